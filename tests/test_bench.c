/* The bench's measures: the roofline time, the GPU peak table, the host FMA kernel and copy, the result
   comparison and its tolerance, and the counts of the bench targets on made-up cases. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/hc_bench.h"
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

/* One case of test_targets: kernel at (L, P), 10 cells (20 in float), flops/bytes 0.1 (bandwidth-bound). */
static hc_bench_case *hc_test_case(hc_bench *bench, hc_kernel kernel, int L, int P, hc_precision prec, hc_layout lay) {
  hc_bench_case *bc = &bench->cases[bench->ncases++];
  bc->k.kernel = kernel, bc->k.L = L, bc->k.R = L, bc->k.P = P, bc->k.D = 3, bc->k.precision = prec;
  bc->k.layout = lay, bc->k.C = prec == HC_FLOAT ? 20 : 10, bc->flops = 1, bc->bytes = 10;
  return bc;
}

static void hc_test_row(hc_bench_case *bc, hc_variant v, hc_variant chosen, double median_s, double pct, double vs) {
  hc_bench_row *r = &bc->rows[bc->nrows++];
  r->variant = v, r->chosen = chosen, r->status = HC_BENCH_RAN, r->median_s = median_s, r->roofline_pct = pct;
  r->vs_vendor = vs, r->peak = 1e9;
}

static void test_targets(void **state) {
  (void)state;
  static hc_bench_case cases[8];
  hc_bench bench = {.cases = cases, .copy_gbs = 1, .peak = {{1e9, 2e9}, {1e9, 1e9}}};
  /* FieldField double (27,27), cell-major: the fastest of ours is flat (90%), 1.05x the faster vendor variant
     (short of 1.1x); cublas and auto (which chose it) are faster but not ours. */
  hc_bench_case *bc = hc_test_case(&bench, HC_FIELDFIELD_SCALAR, 27, 27, HC_DOUBLE, HC_LAYOUT_CELL_MAJOR);
  hc_test_row(bc, HC_VARIANT_FLAT, HC_VARIANT_FLAT, 1.0, 90, 1.05);
  hc_test_row(bc, HC_VARIANT_TILE, HC_VARIANT_TILE, 2.0, 95, 0.525);
  hc_test_row(bc, HC_VARIANT_CUBLAS, HC_VARIANT_CUBLAS, 0.5, 99, 1.0);
  hc_test_row(bc, HC_VARIANT_AUTO, HC_VARIANT_CUBLAS, 0.4, 99, 1.3);
  /* Cell-minor: 84% (short), 1.2x the vendor (met), 1.2x the time of cell-major (within 1.25x); a faster team
     that failed does not count. */
  bc = hc_test_case(&bench, HC_FIELDFIELD_SCALAR, 27, 27, HC_DOUBLE, HC_LAYOUT_CELL_MINOR);
  hc_test_row(bc, HC_VARIANT_FLAT, HC_VARIANT_FLAT, 1.2, 84, 1.2);
  hc_test_row(bc, HC_VARIANT_TEAM, HC_VARIANT_TEAM, 0.1, 100, 12);
  bc->rows[1].status = HC_BENCH_FAILED;
  /* Float, cell-major: 85% (met, at the threshold), twice the cells in the same time: 0.5x per cell. */
  bc = hc_test_case(&bench, HC_FIELDFIELD_SCALAR, 27, 27, HC_FLOAT, HC_LAYOUT_CELL_MAJOR);
  hc_test_row(bc, HC_VARIANT_TILE, HC_VARIANT_TILE, 1.0, 85, 0);
  /* (125,216) double: 30% of the FP64 roofline, but 82% of the tensor-core one (flops 1.64e9 at 2e9/s). */
  bc = hc_test_case(&bench, HC_FIELDFIELD_SCALAR, 125, 216, HC_DOUBLE, HC_LAYOUT_CELL_MAJOR);
  bc->flops = 1.64e9, bc->bytes = 0.5e9;
  hc_test_row(bc, HC_VARIANT_FLAT, HC_VARIANT_FLAT, 1.0, 30, 0);
  /* DataData on a CPU backend: auto alone ran, and it counts (86%). */
  bc = hc_test_case(&bench, HC_DATADATA_SCALAR, 1, 8, HC_DOUBLE, HC_LAYOUT_CELL_MAJOR);
  hc_test_row(bc, HC_VARIANT_AUTO, HC_VARIANT_AUTO, 1.0, 86, 0);
  /* A call-overhead case does not count. */
  bc = hc_test_case(&bench, HC_DATAFIELD_SCALAR, 8, 8, HC_DOUBLE, HC_LAYOUT_CELL_MAJOR);
  bc->overhead = 1;
  hc_test_row(bc, HC_VARIANT_AUTO, HC_VARIANT_AUTO, 1.0, 100, 0);
  hc_bench_targets t;
  hc_bench_targets_count(&bench, &t);
  const hc_bench_count *ff = t.count[HC_FAMILY_FIELDFIELD], *dd = t.count[HC_FAMILY_DATADATA];
  assert_int_equal(t.cases[HC_FAMILY_FIELDFIELD], 4);
  assert_int_equal(ff[HC_BENCH_TARGET_ROOFLINE].met, 3);
  assert_int_equal(ff[HC_BENCH_TARGET_ROOFLINE].of, 4);
  assert_int_equal(ff[HC_BENCH_TARGET_VENDOR].met, 1);
  assert_int_equal(ff[HC_BENCH_TARGET_VENDOR].of, 2);
  assert_int_equal(ff[HC_BENCH_TARGET_LAYOUT].met, 1);
  assert_int_equal(ff[HC_BENCH_TARGET_LAYOUT].of, 1);
  assert_int_equal(ff[HC_BENCH_TARGET_PRECISION].met, 1);
  assert_int_equal(ff[HC_BENCH_TARGET_PRECISION].of, 1);
  assert_int_equal(t.cases[HC_FAMILY_DATADATA], 1);
  assert_int_equal(dd[HC_BENCH_TARGET_ROOFLINE].met, 1);
  assert_int_equal(dd[HC_BENCH_TARGET_ROOFLINE].of, 1);
  assert_int_equal(dd[HC_BENCH_TARGET_VENDOR].of + dd[HC_BENCH_TARGET_LAYOUT].of + dd[HC_BENCH_TARGET_PRECISION].of, 0);
  assert_int_equal(t.cases[HC_FAMILY_DATAFIELD], 0);
  /* Slower cell-minor (1.3x) misses the layout target; a float case no faster per cell misses precision. */
  cases[1].rows[0].median_s = 1.3;
  cases[2].rows[0].median_s = 1.2;
  hc_bench_targets_count(&bench, &t);
  assert_int_equal(t.count[HC_FAMILY_FIELDFIELD][HC_BENCH_TARGET_LAYOUT].met, 0);
  assert_int_equal(t.count[HC_FAMILY_FIELDFIELD][HC_BENCH_TARGET_PRECISION].met, 0);
  /* Compute-bound (intensity above the ridge point): the precision target does not apply. */
  cases[2].flops = 100;
  hc_bench_targets_count(&bench, &t);
  assert_int_equal(t.count[HC_FAMILY_FIELDFIELD][HC_BENCH_TARGET_PRECISION].of, 0);
}

/* The vendor ratio compares with the faster of the vendor variants that ran (cublas, cublaslt), on the same
   case or, for a cell-minor case, on its cell-major twin; the vendor target counts against it. */
static void test_vendor_ratios(void **state) {
  (void)state;
  static hc_bench_case cases[3];
  hc_bench bench = {.cases = cases, .copy_gbs = 1, .peak = {{1e9, 2e9}, {1e9, 1e9}}};
  /* FieldField double (27,27): flat 1.11x cublas but 0.89x cublaslt, the faster vendor (the target: 1.1x). */
  hc_bench_case *maj = hc_test_case(&bench, HC_FIELDFIELD_SCALAR, 27, 27, HC_DOUBLE, HC_LAYOUT_CELL_MAJOR);
  hc_test_row(maj, HC_VARIANT_FLAT, HC_VARIANT_FLAT, 0.45, 90, 0);
  hc_test_row(maj, HC_VARIANT_TENSORCORE, HC_VARIANT_TENSORCORE, 0.1, 99, 0);
  maj->rows[1].status = HC_BENCH_FAILED;
  hc_test_row(maj, HC_VARIANT_CUBLAS, HC_VARIANT_CUBLAS, 0.5, 99, 0);
  hc_test_row(maj, HC_VARIANT_CUBLASLT, HC_VARIANT_CUBLASLT, 0.4, 99, 0);
  hc_test_row(maj, HC_VARIANT_AUTO, HC_VARIANT_CUBLASLT, 0.41, 99, 0);
  /* Cell-minor: the vendor variants cannot run it, so both compare with the cell-major case's. */
  hc_bench_case *min = hc_test_case(&bench, HC_FIELDFIELD_SCALAR, 27, 27, HC_DOUBLE, HC_LAYOUT_CELL_MINOR);
  hc_test_row(min, HC_VARIANT_FLAT, HC_VARIANT_FLAT, 0.5, 90, 0);
  hc_test_row(min, HC_VARIANT_CUBLAS, HC_VARIANT_CUBLAS, 0, 0, 0);
  hc_test_row(min, HC_VARIANT_CUBLASLT, HC_VARIANT_CUBLASLT, 0, 0, 0);
  min->rows[1].status = min->rows[2].status = HC_BENCH_SKIPPED;
  /* No vendor variant at all (a CPU backend). */
  hc_bench_case *cpu = hc_test_case(&bench, HC_DATADATA_SCALAR, 1, 8, HC_DOUBLE, HC_LAYOUT_CELL_MAJOR);
  hc_test_row(cpu, HC_VARIANT_AUTO, HC_VARIANT_AUTO, 1.0, 86, 0);
  for (int i = 0; i < bench.ncases; i++) hc_bench_vendor_ratios(&bench, &cases[i]);
  assert_true(maj->have_vendor && maj->vendor_variant == HC_VARIANT_CUBLASLT);
  assert_int_equal(maj->vendor_layout, HC_LAYOUT_CELL_MAJOR);
  assert_float_equal(maj->rows[0].vs_vendor, 0.4 / 0.45, 1e-12);
  assert_true(maj->rows[1].vs_vendor == 0); /* failed */
  assert_float_equal(maj->rows[2].vs_vendor, 0.8, 1e-12);
  assert_float_equal(maj->rows[3].vs_vendor, 1.0, 1e-12);
  assert_true(min->have_vendor && min->vendor_variant == HC_VARIANT_CUBLASLT);
  assert_int_equal(min->vendor_layout, HC_LAYOUT_CELL_MAJOR);
  assert_float_equal(min->rows[0].vs_vendor, 0.8, 1e-12);
  assert_true(min->rows[1].vs_vendor == 0 && min->rows[2].vs_vendor == 0);
  assert_true(!cpu->have_vendor && cpu->vendor_variant == HC_NUM_VARIANTS && cpu->rows[0].vs_vendor == 0);
  hc_bench_targets t;
  hc_bench_targets_count(&bench, &t);
  assert_int_equal(t.count[HC_FAMILY_FIELDFIELD][HC_BENCH_TARGET_VENDOR].met, 0);
  assert_int_equal(t.count[HC_FAMILY_FIELDFIELD][HC_BENCH_TARGET_VENDOR].of, 2);
  /* Without cublaslt (it failed), cublas is the faster vendor: flat is 1.11x (met), cell-minor 1.0x (short). */
  maj->rows[3].status = HC_BENCH_FAILED;
  for (int i = 0; i < bench.ncases; i++) hc_bench_vendor_ratios(&bench, &cases[i]);
  assert_true(maj->vendor_variant == HC_VARIANT_CUBLAS && min->vendor_variant == HC_VARIANT_CUBLAS);
  assert_float_equal(maj->rows[0].vs_vendor, 0.5 / 0.45, 1e-12);
  assert_true(maj->rows[3].vs_vendor == 0);
  assert_float_equal(min->rows[0].vs_vendor, 1.0, 1e-12);
  hc_bench_targets_count(&bench, &t);
  assert_int_equal(t.count[HC_FAMILY_FIELDFIELD][HC_BENCH_TARGET_VENDOR].met, 1);
  assert_int_equal(t.count[HC_FAMILY_FIELDFIELD][HC_BENCH_TARGET_VENDOR].of, 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roofline_time), cmocka_unit_test(test_gpu_table),
      cmocka_unit_test(test_compare),       cmocka_unit_test(test_tolerance),
      cmocka_unit_test(test_fma_kernel),    cmocka_unit_test(test_backend_members),
      cmocka_unit_test(test_targets),       cmocka_unit_test(test_vendor_ratios),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
