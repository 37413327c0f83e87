/* The roofline, the GPU peak-rate table, the host's FMA kernel and the comparison of results (bench). */
#define _POSIX_C_SOURCE 200809L
#include "kernels/hc_roofline.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

double hc_roofline_time(double flops, double bytes, double bw, double peak) {
  double t_mem = bw > 0 ? bytes / bw : 0, t_flop = peak > 0 ? flops / peak : 0;
  return t_mem > t_flop ? t_mem : t_flop;
}

int hc_gpu_fma_per_clock(int major, int minor, hc_precision precision, int tensor_cores) {
  int fp64 = 0, fp32 = 0, fp64_tensor = 0;
  switch (major) {
    case 6:
      fp64 = minor == 0 ? 32 : 4, fp32 = minor == 0 ? 64 : 128;
      break;
    case 7:
      fp64 = minor == 5 ? 2 : 32, fp32 = 64;
      break;
    case 8:
      fp64 = minor == 0 ? 32 : 2, fp32 = minor == 0 ? 64 : 128, fp64_tensor = minor == 0 ? 64 : 0;
      break;
    case 9:
      fp64 = 64, fp32 = 128, fp64_tensor = 128;
      break;
    case 10:
      fp64 = 64, fp32 = 128, fp64_tensor = 64;
      break;
    case 12:
      fp64 = 2, fp32 = 128;
      break;
    default:
      return 0;
  }
  if (precision == HC_FLOAT) return fp32;
  return tensor_cores && fp64_tensor > 0 ? fp64_tensor : fp64;
}

const char *hc_isa_name(hc_isa isa) {
  static const char *const names[HC_NUM_ISAS] = {"baseline (128-bit vectors, no FMA instruction assumed)",
                                                 "AVX2 + FMA (256-bit)", "AVX-512 (512-bit)"};
  return isa >= 0 && isa < HC_NUM_ISAS ? names[isa] : "unknown";
}

/* One kernel per instruction set and precision, from one body: 12 independent accumulators are enough
   to cover the FMA latency of two FMA pipes (4 cycles x 2) and still fit the 16 registers of AVX2. The
   file is compiled with -ffp-contract=fast (kernels/CMakeLists.txt) so that a * m + c is one FMA. */
#define HC_FMA_DEFINE(NAME, ATTR, T, BYTES)                                                            \
  ATTR static double NAME(int64_t iters, double seed) {                                                \
    typedef T hc_vec __attribute__((vector_size(BYTES)));                                              \
    const hc_vec m = (hc_vec){0} + (T)0.999999, c = (hc_vec){0} + (T)1e-6;                             \
    hc_vec a0 = (hc_vec){0} + (T)seed, a1 = a0 + (T)1, a2 = a0 + (T)2, a3 = a0 + (T)3, a4 = a0 + (T)4; \
    hc_vec a5 = a0 + (T)5, a6 = a0 + (T)6, a7 = a0 + (T)7, a8 = a0 + (T)8, a9 = a0 + (T)9;             \
    hc_vec a10 = a0 + (T)10, a11 = a0 + (T)11;                                                         \
    for (int64_t it = 0; it < iters; it++) {                                                           \
      a0 = a0 * m + c, a1 = a1 * m + c, a2 = a2 * m + c, a3 = a3 * m + c;                              \
      a4 = a4 * m + c, a5 = a5 * m + c, a6 = a6 * m + c, a7 = a7 * m + c;                              \
      a8 = a8 * m + c, a9 = a9 * m + c, a10 = a10 * m + c, a11 = a11 * m + c;                          \
    }                                                                                                  \
    hc_vec s = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)) + ((a8 + a9) + (a10 + a11));          \
    double r = 0;                                                                                      \
    for (size_t i = 0; i < (BYTES) / sizeof(T); i++) r += (double)s[i];                                \
    return r;                                                                                          \
  }
#define HC_FMA_ACCUMULATORS 12

HC_FMA_DEFINE(hc_fma_baseline_f64, , double, 16)
HC_FMA_DEFINE(hc_fma_baseline_f32, , float, 16)
#if defined(__x86_64__) && defined(__GNUC__)
#define HC_HAVE_X86_ISAS 1
HC_FMA_DEFINE(hc_fma_avx2_f64, __attribute__((target("avx2,fma"))), double, 32)
HC_FMA_DEFINE(hc_fma_avx2_f32, __attribute__((target("avx2,fma"))), float, 32)
HC_FMA_DEFINE(hc_fma_avx512_f64, __attribute__((target("avx512f"))), double, 64)
HC_FMA_DEFINE(hc_fma_avx512_f32, __attribute__((target("avx512f"))), float, 64)
#else
#define HC_HAVE_X86_ISAS 0
#endif

int hc_isa_available(hc_isa isa) {
  if (isa == HC_ISA_BASELINE) return 1;
#if HC_HAVE_X86_ISAS
  __builtin_cpu_init();
  if (isa == HC_ISA_AVX2_FMA) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (isa == HC_ISA_AVX512) return __builtin_cpu_supports("avx512f");
#endif
  return 0;
}

double hc_fma_kernel(hc_isa isa, hc_precision precision, int64_t iters, double *flops) {
  static const int vector_bytes[HC_NUM_ISAS] = {16, 32, 64};
  double r = 0;
  if (!hc_isa_available(isa)) isa = HC_ISA_BASELINE;
  int lanes = vector_bytes[isa] / (int)hc_precision_size(precision);
  if (isa == HC_ISA_BASELINE)
    r = precision == HC_FLOAT ? hc_fma_baseline_f32(iters, 0.5) : hc_fma_baseline_f64(iters, 0.5);
#if HC_HAVE_X86_ISAS
  if (isa == HC_ISA_AVX2_FMA) r = precision == HC_FLOAT ? hc_fma_avx2_f32(iters, 0.5) : hc_fma_avx2_f64(iters, 0.5);
  if (isa == HC_ISA_AVX512) r = precision == HC_FLOAT ? hc_fma_avx512_f32(iters, 0.5) : hc_fma_avx512_f64(iters, 0.5);
#endif
  *flops += 2.0 * HC_FMA_ACCUMULATORS * lanes * (double)iters;
  return r;
}

static double hc_roofline_wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int hc_host_peak_flops(hc_fma_runner runner, int threads, hc_precision precision, double budget_s, double *flops_per_s,
                       char *how, size_t size) {
  int isas = 0;
  for (int i = 0; i < HC_NUM_ISAS; i++) isas += hc_isa_available((hc_isa)i) != 0;
  /* Per instruction set: a calibration of at most about 2 x calib_s, then 3 runs of target_s. */
  double target_s = budget_s > 0 ? budget_s / (4.0 * isas) : 0.08;
  if (target_s > 0.08) target_s = 0.08;
  const double calib_s = target_s < 0.01 ? target_s : 0.01;
  double best = 0;
  hc_isa best_isa = HC_ISA_BASELINE;
  for (int i = 0; i < HC_NUM_ISAS; i++) {
    hc_isa isa = (hc_isa)i;
    if (!hc_isa_available(isa)) continue;
    int64_t iters = 1 << 12;
    double s = 0, f = 0;
    for (;;) {
      HC_CALL(runner(isa, precision, iters, &s, &f));
      if (s >= calib_s || iters >= (int64_t)1 << 40) break;
      iters *= 2;
    }
    if (s > 0) iters = (int64_t)((double)iters * target_s / s) + 1;
    for (int rep = 0; rep < 3; rep++) {
      f = 0;
      HC_CALL(runner(isa, precision, iters, &s, &f));
      if (s > 0 && f / s > best) best = f / s, best_isa = isa;
    }
  }
  HC_CHECK(best > 0, HC_ERR_RUNTIME, "the FMA kernel measured no time");
  *flops_per_s = best;
  snprintf(how, size,
           "measured: %d thread%s each running a register-blocked FMA kernel (%d independent vector accumulators, "
           "%s), best of 3 runs of about %.3g s",
           threads, threads == 1 ? "" : "s", HC_FMA_ACCUMULATORS, hc_isa_name(best_isa), target_s);
  return HC_OK;
}

/* Keeps the kernels' results alive. */
volatile double hc_fma_sink;

static int hc_fma_run_serial(hc_isa isa, hc_precision precision, int64_t iters, double *seconds, double *flops) {
  double t0 = hc_roofline_wtime();
  hc_fma_sink = hc_fma_kernel(isa, precision, iters, flops);
  *seconds = hc_roofline_wtime() - t0;
  return HC_OK;
}

int hc_peak_flops_serial(hc_precision precision, int tensor_cores, double budget_s, double *flops_per_s, char *how,
                         size_t size) {
  return hc_host_peak_flops(hc_fma_run_serial, 1, precision, budget_s, flops_per_s, how, size);
}

double hc_result_tolerance(hc_precision precision, int64_t K, double bound) {
  const double u = precision == HC_FLOAT ? ldexp(1.0, -24) : ldexp(1.0, -53);
  const double n = (double)K + 2.0;
  return 2.0 * n * u / (1.0 - n * u) * bound;
}

int64_t hc_result_compare(hc_precision precision, int64_t n, const void *x, const void *ref, double tol,
                          double *max_err, int64_t *first_bad) {
  int64_t bad = 0;
  double worst = 0;
  *first_bad = -1;
  for (int64_t i = 0; i < n; i++) {
    double a = precision == HC_FLOAT ? ((const float *)x)[i] : ((const double *)x)[i];
    double b = precision == HC_FLOAT ? ((const float *)ref)[i] : ((const double *)ref)[i];
    double d = fabs(a - b);
    if (!(d <= tol)) {
      if (bad++ == 0) *first_bad = i;
    }
    if (isnan(d)) {
      worst = NAN;
    } else if (d > worst) { /* false once worst is NaN */
      worst = d;
    }
  }
  *max_err = worst;
  return bad;
}
