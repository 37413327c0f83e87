/* The CUDA backend's table. */
#include "kernels/cuda/hc_cuda.h"
#include "kernels/cuda/hc_cuda_bench.h"

/* The assembly's launchers; the device needs no colouring (its kernels add atomically). */
static int hc_assemble_vector_cuda_op(const hc_contract *k, const struct hc_coloring *col, const void *d_out,
                                      const int32_t *d_cell_nodes, double *d_y) {
  (void)col;
  return hc_assemble_vector_cuda(k, d_out, d_cell_nodes, d_y);
}

static int hc_assemble_apply_cuda_op(const hc_contract *k, const struct hc_coloring *col, const void *d_A,
                                     const int32_t *d_cell_nodes, const double *d_u, double *d_y, double *d_abs_y) {
  (void)col;
  HC_CHECK(!d_abs_y, HC_ERR_UNSUPPORTED, "backend cuda assembles no |A u| scale (abs_y): a host backend does");
  return hc_assemble_apply_cuda(k, d_A, d_cell_nodes, d_u, d_y);
}

const hc_backend hc_backend_cuda = {
    .name = "cuda",
    .description = "NVIDIA GPUs through CUDA",
    .is_device = 1,
    .geometry_cache = HC_GEOMETRY_CACHE_FUSED, /* the fused kernels; the cell data computes each point's geometry */
    .contract = hc_contract_cuda,
    .supports = hc_supports_cuda,
    .mem_alloc = hc_mem_alloc_cuda,
    .mem_free = hc_mem_free_cuda,
    .copy_to_device = hc_mem_copy_to_device_cuda,
    .copy_to_host = hc_mem_copy_to_host_cuda,
    .synchronize = hc_stream_synchronize_cuda,
    .celldata = hc_celldata_fill_cuda,
    .celldata_check = hc_celldata_check_cuda,
    .fused = hc_fused_cuda,
    .fused_element = hc_fused_element_cuda,
    .fused_assemble = hc_fused_assemble_cuda,
    .device_name = hc_device_name_cuda,
    .device_count = hc_device_count_cuda,
    .device_select = hc_device_select_cuda,
    .device_memory = hc_device_memory_cuda,
    .chosen_variant = hc_chosen_variant_cuda,
    .assemble_vector = hc_assemble_vector_cuda_op,
    .assemble_apply = hc_assemble_apply_cuda_op,
    .mem_zero = hc_mem_zero_cuda,
    .gather = hc_gather_cuda,
    .scatter = hc_scatter_cuda,
    .mem_copy = hc_mem_copy_cuda,
    .peak_flops = hc_peak_flops_cuda,
    .timer_start = hc_timer_start_cuda,
    .timer_stop = hc_timer_stop_cuda,
    .mark = hc_mark_cuda,
    .marks_read = hc_marks_read_cuda,
    .fork = hc_fork_cuda,
    .lane = hc_lane_cuda,
    .join = hc_join_cuda,
    .version = hc_version_cuda,
    .range_push = hc_range_push_cuda,
    .range_pop = hc_range_pop_cuda,
    .release = hc_release_cuda,
    .waxpy = hc_waxpy_cuda,
    .sum = hc_sum_cuda,
};
