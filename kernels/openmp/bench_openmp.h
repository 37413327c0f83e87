/* The OpenMP backend's members for hexcontract bench (its copy kernel and its measured peak flop rate) and for
   hexcontract --version. */
#ifndef HC_BENCH_OPENMP_H
#define HC_BENCH_OPENMP_H

#include <stddef.h>

#include "kernels/hc_kernels.h"

/* Copies bytes from src to dst (host memory, not overlapping): each thread one contiguous slice, with the
   static split the contraction kernels use over cells. */
int hc_mem_copy_openmp(void *dst, const void *src, size_t bytes);

/* The cores' peak rate in precision: the register-blocked FMA kernel (kernels/hc_roofline.h) on every
   OpenMP thread at once. tensor_cores is ignored (a CPU has none). */
int hc_peak_flops_openmp(hc_precision precision, int tensor_cores, double budget_s, double *flops_per_s, char *how,
                         size_t size);

/* "OpenMP 4.5 (_OPENMP 201511), N threads": the version the backend was compiled for and omp_get_max_threads(),
   the threads a parallel region of the calling thread gets. */
int hc_version_openmp(char *buf, size_t size);

#endif
