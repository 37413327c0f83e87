/* The bench's measures: the roofline time, the GPU peak table, the host FMA kernel and copy, the result
   comparison and its tolerance. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hc_config.h"
#include "kernels/hc_roofline.h"

static void test_roofline_time(void **state) {
  (void)state;
  /* 1 GB at 1 TB/s is 1 ms; 1 GFLOP at 10 TFLOP/s is 0.1 ms: memory-bound. */
  assert_float_equal(hc_roofline_time(1e9, 1e9, 1e12, 1e13), 1e-3, 1e-15);
  assert_float_equal(hc_roofline_time(1e11, 1e9, 1e12, 1e13), 1e-2, 1e-15);
  /* An unknown peak drops the compute term. */
  assert_float_equal(hc_roofline_time(1e11, 1e9, 1e12, 0), 1e-3, 1e-15);
}

static void test_gpu_table(void **state) {
  (void)state;
  /* H100 SXM: 132 SMs at 1.98 GHz: 33.5 TFLOP/s FP64, 66.9 on the FP64 tensor cores and in FP32. */
  assert_int_equal(hc_gpu_fma_per_clock(9, 0, HC_DOUBLE, 0), 64);
  assert_int_equal(hc_gpu_fma_per_clock(9, 0, HC_DOUBLE, 1), 128);
  assert_int_equal(hc_gpu_fma_per_clock(9, 0, HC_FLOAT, 1), 128);
  assert_float_equal(2.0 * 132 * 1.98e9 * hc_gpu_fma_per_clock(9, 0, HC_DOUBLE, 1) * 1e-12, 66.9, 0.05);
  /* A100: 9.7 TFLOP/s FP64, 19.5 on tensor cores (108 SMs at 1.41 GHz). */
  assert_float_equal(2.0 * 108 * 1.41e9 * hc_gpu_fma_per_clock(8, 0, HC_DOUBLE, 0) * 1e-12, 9.75, 0.01);
  assert_float_equal(2.0 * 108 * 1.41e9 * hc_gpu_fma_per_clock(8, 0, HC_DOUBLE, 1) * 1e-12, 19.5, 0.01);
  /* No FP64 tensor cores on consumer Ampere: the same as without. */
  assert_int_equal(hc_gpu_fma_per_clock(8, 6, HC_DOUBLE, 1), hc_gpu_fma_per_clock(8, 6, HC_DOUBLE, 0));
  assert_int_equal(hc_gpu_fma_per_clock(3, 5, HC_DOUBLE, 0), 0);
}

static void test_compare(void **state) {
  (void)state;
  double ref[5] = {1, 2, 3, 4, 5}, x[5] = {1, 2, 3, 4, 5};
  double err;
  int64_t first;
  assert_int_equal(hc_result_compare(HC_DOUBLE, 5, x, ref, 1e-12, &err, &first), 0);
  assert_true(err == 0 && first == -1);
  x[3] += 1e-13; /* within */
  x[1] += 1e-9;  /* outside */
  assert_int_equal(hc_result_compare(HC_DOUBLE, 5, x, ref, 1e-12, &err, &first), 1);
  assert_int_equal(first, 1);
  assert_float_equal(err, 1e-9, 1e-15);
  x[4] = NAN; /* a NaN always disagrees and sticks in the error */
  assert_int_equal(hc_result_compare(HC_DOUBLE, 5, x, ref, 1e-12, &err, &first), 2);
  assert_true(isnan(err));
  float fr[3] = {1, 2, 3}, fx[3] = {1, 2, 3.5f};
  assert_int_equal(hc_result_compare(HC_FLOAT, 3, fx, fr, 0.1, &err, &first), 1);
  assert_int_equal(first, 2);
}

static void test_tolerance(void **state) {
  (void)state;
  /* 2 gamma_{K+2} bound, scaled by the precision's unit roundoff. */
  double td = hc_result_tolerance(HC_DOUBLE, 27, 27.0), tf = hc_result_tolerance(HC_FLOAT, 27, 27.0);
  assert_float_equal(td, 2.0 * 29 * ldexp(1.0, -53) * 27 / (1 - 29 * ldexp(1.0, -53)), 1e-25);
  assert_float_equal(tf / td, ldexp(1.0, 29), ldexp(1.0, 29) * 1e-5);
  assert_true(hc_result_tolerance(HC_DOUBLE, 1944, 1944.0) > td);
}

static void test_fma_kernel(void **state) {
  (void)state;
  for (int isa = 0; isa < HC_NUM_ISAS; isa++) {
    if (!hc_isa_available((hc_isa)isa)) continue;
    for (int p = 0; p < 2; p++) {
      double flops = 0;
      double r = hc_fma_kernel((hc_isa)isa, (hc_precision)p, 1000, &flops);
      assert_true(isfinite(r));
      assert_true(flops >= 2.0 * 12 * 2 * 1000); /* at least 2 lanes */
    }
  }
  double peak = 0;
  char how[320];
  assert_int_equal(hc_peak_flops_serial(HC_DOUBLE, 0, 0.0, &peak, how, sizeof(how)), HC_OK);
  assert_true(peak > 1e8);
  assert_non_null(strstr(how, "measured"));
}

static void test_backend_members(void **state) {
  (void)state;
  const char *names[] = {"serial", "openmp"};
  for (int i = 0; i < 2; i++) {
    const hc_backend *b;
    if (hc_backend_find(names[i], &b) != HC_OK) {
      hc_error_clear();
      continue;
    }
    assert_non_null(b->mem_copy);
    assert_non_null(b->peak_flops);
    char src[1000], dst[1000];
    for (int j = 0; j < 1000; j++) src[j] = (char)(j * 7), dst[j] = 0;
    assert_int_equal(b->mem_copy(dst, src, sizeof(src)), HC_OK);
    assert_memory_equal(dst, src, sizeof(src));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roofline_time), cmocka_unit_test(test_gpu_table),  cmocka_unit_test(test_compare),
      cmocka_unit_test(test_tolerance),     cmocka_unit_test(test_fma_kernel), cmocka_unit_test(test_backend_members),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
