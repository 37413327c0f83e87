/* The OpenMP backend's copy kernel and peak-rate measurement for hexcontract bench, and its version. */
#define _POSIX_C_SOURCE 200809L
#include "kernels/openmp/bench_openmp.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "kernels/hc_roofline.h"

int hc_mem_copy_openmp(void *dst, const void *src, size_t bytes) {
#pragma omp parallel
  {
    const size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
    /* Slices of whole 64-byte lines, so that no two threads write one cache line. */
    const size_t lines = (bytes + 63) / 64, per = (lines + nt - 1) / nt;
    size_t begin = t * per * 64, end = (t + 1) * per * 64;
    if (end > bytes) end = bytes;
    if (begin < end) memcpy((char *)dst + begin, (const char *)src + begin, end - begin);
  }
  return HC_OK;
}

/* Keeps the kernels' results alive. */
static volatile double hc_fma_sink_openmp;

static int hc_fma_run_openmp(hc_isa isa, hc_precision precision, int64_t iters, double *seconds, double *flops) {
  double t0 = 0, total = 0, sink = 0;
#pragma omp parallel reduction(+ : total, sink)
  {
#pragma omp barrier
#pragma omp master
    t0 = omp_get_wtime();
    double f = 0;
    sink += hc_fma_kernel(isa, precision, iters, &f);
    total += f;
  }
  /* The implicit barrier at the end of the region: every thread has finished. */
  *seconds = omp_get_wtime() - t0;
  *flops += total;
  hc_fma_sink_openmp = sink;
  return HC_OK;
}

int hc_peak_flops_openmp(hc_precision precision, int tensor_cores, double budget_s, double *flops_per_s, char *how,
                         size_t size) {
  return hc_host_peak_flops(hc_fma_run_openmp, omp_get_max_threads(), precision, budget_s, flops_per_s, how, size);
}

int hc_version_openmp(char *buf, size_t size) {
  /* _OPENMP is the release date of the specification the compiler implements. */
  static const struct {
    long date;
    const char *version;
  } specs[] = {{202411, "6.0"}, {202111, "5.2"}, {202011, "5.1"}, {201811, "5.0"},
               {201511, "4.5"}, {201307, "4.0"}, {201107, "3.1"}, {200805, "3.0"}};
  const char *version = "before 3.0";
  for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
    if ((long)_OPENMP >= specs[i].date) {
      version = specs[i].version;
      break;
    }
  }
  const int threads = omp_get_max_threads();
  HC_CHECK(buf && size > 0, HC_ERR_INPUT, "OpenMP version: no buffer");
  snprintf(buf, size, "OpenMP %s (_OPENMP %ld), %d thread%s", version, (long)_OPENMP, threads, threads == 1 ? "" : "s");
  return HC_OK;
}
