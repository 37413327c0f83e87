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
                                     const int32_t *d_cell_nodes, const double *d_u, double *d_y) {
  (void)col;
  return hc_assemble_apply_cuda(k, d_A, d_cell_nodes, d_u, d_y);
}

const hc_backend hc_backend_cuda = {
    .name = "cuda",
    .description = "NVIDIA GPUs through CUDA",
    .is_device = 1,
    .contract = hc_contract_cuda,
    .supports = hc_supports_cuda,
    .mem_alloc = hc_cuda_alloc,
    .mem_free = hc_cuda_free,
    .copy_to_device = hc_cuda_copy_to_device,
    .copy_to_host = hc_cuda_copy_to_host,
    .synchronize = hc_cuda_synchronize,
    .celldata = hc_celldata_fill_cuda,
    .device_name = hc_cuda_device_name,
    .device_count = hc_cuda_device_count,
    .device_select = hc_cuda_device_select,
    .device_memory = hc_cuda_device_memory,
    .chosen_variant = hc_chosen_variant_cuda,
    .assemble_vector = hc_assemble_vector_cuda_op,
    .assemble_apply = hc_assemble_apply_cuda_op,
    .mem_zero = hc_cuda_mem_zero,
    .gather = hc_cuda_gather,
    .scatter = hc_cuda_scatter,
    .mem_copy = hc_cuda_mem_copy,
    .peak_flops = hc_cuda_peak_flops,
    .timer_start = hc_cuda_timer_start,
    .timer_stop = hc_cuda_timer_stop,
    .version = hc_cuda_version,
    .range_push = hc_cuda_range_push,
    .range_pop = hc_cuda_range_pop,
    .waxpy = hc_cuda_waxpy,
};
