/* The limits a contraction is measured against (hexcontract bench): the roofline, the peak flop rates of
   NVIDIA GPUs by compute capability, the host's register-blocked FMA kernel, and the agreement of two
   results within a tolerance scaled by the precision. */
#ifndef HC_ROOFLINE_H
#define HC_ROOFLINE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/hc_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The shortest time a call that moves `bytes` and computes `flops` can take on a device of memory
   bandwidth bw (bytes/s) and peak rate peak (flops/s): max(bytes / bw, flops / peak). A rate <= 0 is
   taken as unknown and drops its term. */
double hc_roofline_time(double flops, double bytes, double bw, double peak);

/* Fused multiply-adds per clock per multiprocessor of an NVIDIA GPU of compute capability major.minor
   in precision: on the CUDA cores, or with tensor_cores on the FP64 tensor cores (double on 8.0, 9.0
   and 10.x; elsewhere, and in float, the same as without). 0 for a compute capability not in the table.
   Sources: the CUDA C++ Programming Guide's table of arithmetic instruction throughput, and NVIDIA's
   A100 (8.0), H100 (9.0) and B200 (10.0) data sheets for the FP64 tensor cores:
     cc       FP64  FP32  FP64 tensor
     6.0        32    64    -
     6.1, 6.2    4   128    -
     7.0, 7.2   32    64    -
     7.5         2    64    -
     8.0        32    64   64
     8.6-8.9     2   128    -
     9.0        64   128  128
     10.x       64   128   64
     12.x        2   128    - */
int hc_gpu_fma_per_clock(int major, int minor, hc_precision precision, int tensor_cores);

/* The host's instruction sets for the FMA kernel, best last; which of them this CPU runs. */
typedef enum { HC_ISA_BASELINE = 0, HC_ISA_AVX2_FMA = 1, HC_ISA_AVX512 = 2, HC_NUM_ISAS } hc_isa;
const char *hc_isa_name(hc_isa isa);
int hc_isa_available(hc_isa isa);

/* The register-blocked FMA kernel of one thread: 12 independent vector accumulators, iters rounds of
   acc = acc * m + c each (one FMA, or a multiply and an add on the baseline). Adds its floating-point
   operations to *flops and returns a value that depends on every one of them. */
double hc_fma_kernel(hc_isa isa, hc_precision precision, int64_t iters, double *flops);

/* Runs hc_fma_kernel(isa, precision, iters) on every thread of a backend at once and returns the
   seconds from the first start to the last end, with the flops of all threads in *flops. */
typedef int (*hc_fma_runner)(hc_isa isa, hc_precision precision, int64_t iters, double *seconds, double *flops);

/* The host's peak rate in precision measured with runner on `threads` threads: each instruction set
   the CPU has, best of three runs; the fastest is the peak. how says which. budget_s: about how many seconds
   the whole measurement may take (0: runs of about 0.08 s, the bench's). */
int hc_host_peak_flops(hc_fma_runner runner, int threads, hc_precision precision, double budget_s, double *flops_per_s,
                       char *how, size_t size);

/* The serial backend's members for the bench: one thread of the FMA kernel; memmove is its copy. */
int hc_peak_flops_serial(hc_precision precision, int tensor_cores, double budget_s, double *flops_per_s, char *how,
                         size_t size);

/* The tolerance of a result entry whose terms' magnitudes sum to at most bound, over K products:
   2 gamma_{K+2} bound, gamma_n = n u / (1 - n u), u the unit roundoff of precision; the 2 covers the
   error of the result and of the reference it is compared with. */
double hc_result_tolerance(hc_precision precision, int64_t K, double bound);

/* Compares n entries of x with ref (host arrays of precision): the number of entries with
   |x - ref| > tol (a NaN in either counts), the largest |x - ref| in *max_err (NaN if any) and the
   first bad index in *first_bad (-1 if none). */
int64_t hc_result_compare(hc_precision precision, int64_t n, const void *x, const void *ref, double tol,
                          double *max_err, int64_t *first_bad);

#ifdef __cplusplus
}
#endif

#endif
