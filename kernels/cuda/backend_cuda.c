/* The CUDA backend's table. */
#include "kernels/cuda/hc_cuda.h"
#include "kernels/cuda/hc_cuda_bench.h"

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
    .chosen_variant = hc_chosen_variant_cuda,
    .mem_copy = hc_cuda_mem_copy,
    .peak_flops = hc_cuda_peak_flops,
    .timer_start = hc_cuda_timer_start,
    .timer_stop = hc_cuda_timer_stop,
};
