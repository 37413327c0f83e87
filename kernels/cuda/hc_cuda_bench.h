/* The CUDA backend's members for hexcontract bench (bench_cuda.cu): its copy kernel, the device's peak
   flop rate from its attributes, and CUDA-event timing on the backend's stream. */
#ifndef HC_CUDA_BENCH_H
#define HC_CUDA_BENCH_H

#include <stddef.h>

#include "kernels/hc_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copies bytes from d_src to d_dst (device memory, not overlapping) with a 16-byte-per-thread copy kernel
   on the backend's stream; asynchronous. */
int hc_mem_copy_cuda(void *d_dst, const void *d_src, size_t bytes);

/* Multiprocessors x boost clock x FMA per clock per multiprocessor (hc_gpu_fma_per_clock) x 2. */
int hc_peak_flops_cuda(hc_precision precision, int tensor_cores, double budget_s, double *flops_per_s, char *how,
                       size_t size);

/* CUDA events recorded on the backend's stream; timer_stop waits for the stop event. */
int hc_timer_start_cuda(void);
int hc_timer_stop_cuda(double *seconds);
/* The timeline (hc_backend.mark, marks_read): the context's events recorded on its current lane's stream. */
int hc_mark_cuda(int i);
int hc_marks_read_cuda(int n, double *seconds);
/* The lanes (hc_backend.fork, lane, join): the context's stream and non-blocking streams, ordered by events. */
int hc_fork_cuda(int n);
int hc_lane_cuda(int i);
int hc_join_cuda(void);

#ifdef __cplusplus
}
#endif

#endif
