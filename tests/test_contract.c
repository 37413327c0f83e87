/* Conformance suite: every kernel x variant x layout x precision x sum_into of one backend (argv[1])
   against the naive reference of hc_test_reference.c, on random shapes and the edge cases
   (C = 1, P = 1, D = 1..3, L != R, constant data). argv[2], if given, keeps the kernels whose names contain it;
   argv[3], the one variant of that name (for a slow tool such as compute-sanitizer's racecheck, which `auto`,
   timing every variant, would keep busy). Exit 77 (skipped) for a device backend with no device present. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/hc_test_device.h"

#include "kernels/hc_kernels.h"
#include "kernels/hc_transfer.h"
#include "tests/hc_test_reference.h"

static const hc_backend *backend;
static int only_variant = -1; /* argv[3]: the one variant checked, or -1 for all */

/* Runs k (all arrays cell-major on the host) on the backend and checks it; returns 1 when checked, 0
   when the backend does not support k. */
static int check_case(const hc_contract *k, uint64_t seed) {
  size_t s = hc_precision_size(k->precision);
  int64_t nl = hc_contract_numel(k, HC_ARRAY_LEFT), nr = hc_contract_numel(k, HC_ARRAY_RIGHT);
  int64_t no = hc_contract_numel(k, HC_ARRAY_OUT);
  if (backend->supports(k) != HC_OK) {
    hc_error_clear();
    return 0;
  }
  void *left = malloc((size_t)nl * s), *right = malloc((size_t)nr * s), *out = malloc((size_t)no * s);
  void *out0 = malloc((size_t)no * s);
  double *ref = malloc(sizeof(double) * (size_t)no), *bound = malloc(sizeof(double) * (size_t)no);
  assert_non_null(left), assert_non_null(right), assert_non_null(out), assert_non_null(out0);
  assert_non_null(ref), assert_non_null(bound);
  hc_test_fill(k->precision, nl, seed, left);
  hc_test_fill(k->precision, nr, seed + 1, right);
  hc_test_fill(k->precision, no, seed + 2, out0);
  hc_test_reference(k, left, right, out0, ref, bound);

  void *d_left = NULL, *d_right = NULL, *d_out = NULL;
  assert_int_equal(hc_array_upload(backend, k, HC_ARRAY_LEFT, left, &d_left), HC_OK);
  assert_int_equal(hc_array_upload(backend, k, HC_ARRAY_RIGHT, right, &d_right), HC_OK);
  /* Without sum_into the output starts as garbage (out0) and must be overwritten. */
  assert_int_equal(hc_array_upload(backend, k, HC_ARRAY_OUT, out0, &d_out), HC_OK);
  int err = hc_contract_apply(backend, k, d_left, d_right, d_out);
  if (err) print_error("%s\n", hc_error_message());
  assert_int_equal(err, HC_OK);
  assert_int_equal(backend->synchronize(), HC_OK);
  assert_int_equal(hc_array_download(backend, k, HC_ARRAY_OUT, d_out, out), HC_OK);
  double worst;
  int64_t bad = hc_test_compare(k, out, ref, bound, &worst);
  if (bad) {
    print_error(
        "%s %s %s variant=%s sum_into=%d C=%lld L=%d R=%d P=%d D=%d P_data=%d: %lld of %lld entries "
        "out of tolerance (worst error/tolerance %.3g)\n",
        hc_kernel_name(k->kernel), hc_layout_name(k->layout), hc_precision_name(k->precision),
        hc_variant_name(k->variant), k->sum_into, (long long)k->C, k->L, k->R, k->P, k->D, k->P_data, (long long)bad,
        (long long)no, worst);
  }
  assert_int_equal(bad, 0);
  backend->mem_free(d_left), backend->mem_free(d_right), backend->mem_free(d_out);
  free(left), free(right), free(out), free(out0), free(ref), free(bound);
  return 1;
}

/* Runs one shape through every variant, layout, precision and sum_into setting. */
static int check_shape(hc_kernel kernel, int64_t C, int L, int R, int P, int D, int P_data, uint64_t seed) {
  hc_contract k;
  hc_contract_init(&k, kernel);
  hc_family fam = hc_kernel_family(kernel);
  k.C = C;
  k.L = fam == HC_FAMILY_DATADATA ? 1 : L;
  k.R = fam == HC_FAMILY_FIELDFIELD ? R : 1;
  k.P = P;
  k.D = hc_kernel_rank(kernel) > 0 ? D : 1;
  k.P_data = fam == HC_FAMILY_DATAFIELD ? P_data : P;
  assert_int_equal(hc_contract_validate(&k), HC_OK);
  int checked = 0;
  for (int v = 0; v < HC_NUM_VARIANTS; v++) {
    if (only_variant >= 0 && v != only_variant) continue;
    for (int layout = 0; layout < 2; layout++) {
      for (int prec = 0; prec < 2; prec++) {
        for (int sum_into = 0; sum_into < 2; sum_into++) {
          k.variant = (hc_variant)v;
          k.layout = (hc_layout)layout;
          k.precision = (hc_precision)prec;
          k.sum_into = sum_into;
          checked += check_case(&k, seed + 7 * (uint64_t)(v * 8 + layout * 4 + prec * 2 + sum_into));
        }
      }
    }
  }
  return checked;
}

static void test_kernel(void **state) {
  hc_kernel kernel = (hc_kernel)(intptr_t)*state;
  int checked = 0;
  /* Edge cases: one cell, one point, D = 1..3, L != R, constant data. */
  checked += check_shape(kernel, 1, 1, 1, 1, 1, 1, 11);
  checked += check_shape(kernel, 1, 3, 5, 4, 2, 4, 12);
  checked += check_shape(kernel, 7, 8, 3, 1, 3, 1, 13);
  checked += check_shape(kernel, 5, 4, 9, 8, 3, 1, 14);
  checked += check_shape(kernel, 33, 8, 8, 8, 3, 8, 15);
  checked += check_shape(kernel, 130, 27, 8, 27, 3, 27, 16);
  /* The CUDA warp per cell on the tensor cores (tiles of 16 x 8): L <= 16 with R > 16, K = 21 and 63 (m16n8k16 on
     each whole 16 entries, then m16n8k4 over the zeros past K); L = R = 32 with K = 48 and 144 (whole 16s only). */
  checked += check_shape(kernel, 37, 12, 30, 7, 3, 7, 25);
  checked += check_shape(kernel, 9, 32, 32, 16, 3, 1, 26);
  /* The tiles of the pipelined FieldField GEMMs (16 to 128 rows, several tiles per cell past 128 rows,
     odd and even K), with two partial K-steps. */
  checked += check_shape(kernel, 3, 130, 70, 5, 2, 5, 17);
  checked += check_shape(kernel, 4, 50, 12, 17, 2, 17, 18);
  /* The CUDA float outer-product tiles (128 x 128 past 64 rows): L != R both partial tiles, K = 18 (scalar loads),
     36 (16-byte loads, the last K-step half past K) and 72. */
  checked += check_shape(kernel, 4, 100, 125, 18, 2, 18, 27);
  /* The OpenMP packed GEMM's panels above 32 KB, packed in blocks of 8 x 8 (FieldFieldTensor): K = 171 with R = 27
     in double (three rows and three entries past the last whole block), K = 135 with R = 40 in both precisions. */
  checked += check_shape(kernel, 3, 20, 27, 19, 3, 19, 27);
  checked += check_shape(kernel, 2, 18, 40, 15, 3, 15, 28);
  /* Rows longer than the CUDA cell-major DataField's runs (4 KB), summed in pieces: K = 1170, and constant data
     (D^rank = 9 per point) with K up to 5400. */
  checked += check_shape(kernel, 5, 3, 2, 130, 3, 130, 22);
  checked += check_shape(kernel, 4, 5, 2, 600, 3, 1, 23);
  /* Random shapes (HC_TEST_QUICK=1 skips them: for slow tools such as compute-sanitizer's racecheck). */
  uint64_t x = 0x1234567ull + (uint64_t)kernel;
  const int quick = getenv("HC_TEST_QUICK") && getenv("HC_TEST_QUICK")[0] == '1';
  if (quick && only_variant < 0) assert_true(checked >= 8 * 8);
  if (!quick) {
    /* More tiles than a persistent grid has blocks, so that each block runs several. */
    checked += check_shape(kernel, 1500, 20, 17, 3, 2, 3, 19);
    checked += check_shape(kernel, 300, 66, 9, 2, 3, 2, 20);
    /* Many small cells: more tiles than a persistent grid has blocks. */
    checked += check_shape(kernel, 3000, 8, 7, 8, 3, 1, 21);
    /* The CUDA warp-per-cell FieldField (L, R <= 32): more cells than its resident warps, K of 4 and 12 (a cell's
       whole run in one step) and 36 (rows in two or three steps). */
    checked += check_shape(kernel, 1700, 27, 19, 4, 3, 4, 24);
  }
  for (int t = 0; t < (quick ? 0 : 12); t++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    int64_t C = 1 + (int64_t)((x >> 33) % 70);
    int L = 1 + (int)((x >> 20) % 9), R = 1 + (int)((x >> 24) % 9), P = 1 + (int)((x >> 28) % 12);
    int D = 1 + (int)((x >> 40) % 3), Pd = ((x >> 45) & 1) ? 1 : P;
    checked += check_shape(kernel, C, L, R, P, D, Pd, 100 + (uint64_t)t);
  }
  /* Every backend runs at least its `auto` variant on every shape; one variant asked for, at least one case. */
  if (only_variant >= 0 && checked == 0)
    print_error("variant '%s' ran none of %s's shapes on this backend\n", hc_variant_name((hc_variant)only_variant),
                hc_kernel_name(kernel));
  assert_true(checked >= (only_variant >= 0 ? 1 : (quick ? 8 : 24) * 8));
}

static void test_shape_errors(void **state) {
  (void)state;
  hc_contract k;
  hc_contract_init(&k, HC_FIELDFIELD_VECTOR);
  int64_t l[4] = {2, 8, 27, 3}, r3[3] = {2, 8, 27}, rbad[4] = {2, 8, 27, 2}, rc[4] = {3, 8, 27, 3};
  assert_int_equal(hc_contract_from_shapes(&k, 4, l, 3, r3), HC_ERR_INPUT);
  assert_non_null(strstr(hc_error_message(), "(2, 8, 27, 3)"));
  assert_non_null(strstr(hc_error_message(), "(2, 8, 27)"));
  assert_int_equal(hc_contract_from_shapes(&k, 4, l, 4, rbad), HC_ERR_INPUT);
  assert_non_null(strstr(hc_error_message(), "space dimensions D differ"));
  assert_int_equal(hc_contract_from_shapes(&k, 4, l, 4, rc), HC_ERR_INPUT);
  assert_non_null(strstr(hc_error_message(), "cell counts C differ"));
  int64_t r4[4] = {2, 5, 27, 3};
  assert_int_equal(hc_contract_from_shapes(&k, 4, l, 4, r4), HC_OK);
  assert_true(k.C == 2 && k.L == 8 && k.R == 5 && k.P == 27 && k.D == 3);

  hc_contract_init(&k, HC_DATAFIELD_TENSOR);
  int64_t f[5] = {4, 8, 9, 3, 3}, d1[4] = {4, 1, 3, 3}, d2[4] = {4, 2, 3, 3};
  assert_int_equal(hc_contract_from_shapes(&k, 5, f, 4, d1), HC_OK);
  assert_true(k.P == 9 && k.P_data == 1 && k.L == 8 && k.D == 3);
  assert_int_equal(hc_contract_from_shapes(&k, 5, f, 4, d2), HC_ERR_INPUT);
  int64_t zero[2] = {0, 4};
  hc_contract_init(&k, HC_DATADATA_SCALAR);
  assert_int_equal(hc_contract_from_shapes(&k, 2, zero, 2, zero), HC_ERR_INPUT);
  int64_t t1[4] = {2, 4, 3, 2};
  hc_contract_init(&k, HC_DATADATA_TENSOR);
  assert_int_equal(hc_contract_from_shapes(&k, 4, t1, 4, t1), HC_ERR_INPUT);
}

static void test_names_and_cost(void **state) {
  (void)state;
  for (int i = 0; i < HC_NUM_KERNELS; i++) {
    hc_kernel k;
    assert_int_equal(hc_kernel_from_name(hc_kernel_name((hc_kernel)i), &k), HC_OK);
    assert_int_equal(k, i);
  }
  hc_kernel k;
  assert_int_equal(hc_kernel_from_name("FieldFieldTensr", &k), HC_ERR_INPUT);
  assert_non_null(strstr(hc_error_message(), "FieldFieldTensr"));
  const hc_backend *b;
  assert_int_equal(hc_backend_find("vulkan", &b), HC_ERR_INPUT);
  /* The cost model (kernels/README.md) for FieldFieldVector, double, C=10 L=8 R=4 P=27 D=3: K = 81. */
  hc_contract c;
  hc_contract_init(&c, HC_FIELDFIELD_VECTOR);
  c.C = 10, c.L = 8, c.R = 4, c.P = c.P_data = 27, c.D = 3;
  double flops, bytes;
  hc_contract_cost(&c, &flops, &bytes);
  assert_true(flops == 2.0 * 10 * 8 * 4 * 81);
  assert_true(bytes == 8.0 * (10 * 8 * 81 + 10 * 4 * 81 + 10 * 8 * 4));
  c.sum_into = 1;
  hc_contract_cost(&c, &flops, &bytes);
  assert_true(bytes == 8.0 * (10 * 8 * 81 + 10 * 4 * 81 + 2 * 10 * 8 * 4));
}

static void test_layout_roundtrip(void **state) {
  (void)state;
  hc_contract k;
  hc_contract_init(&k, HC_FIELDFIELD_TENSOR);
  k.C = 37, k.L = 5, k.R = 3, k.P = k.P_data = 4, k.D = 3;
  int64_t n = hc_contract_numel(&k, HC_ARRAY_LEFT), inner = hc_contract_inner(&k, HC_ARRAY_LEFT);
  double *a = malloc(sizeof(double) * (size_t)n), *b = malloc(sizeof(double) * (size_t)n);
  double *c = malloc(sizeof(double) * (size_t)n);
  hc_test_fill(HC_DOUBLE, n, 3, a);
  assert_int_equal(hc_layout_convert(&k, HC_ARRAY_LEFT, HC_LAYOUT_CELL_MAJOR, a, HC_LAYOUT_CELL_MINOR, b), HC_OK);
  for (int64_t cell = 0; cell < k.C; cell++)
    for (int64_t q = 0; q < inner; q++) assert_true(b[q * k.C + cell] == a[cell * inner + q]);
  assert_int_equal(hc_layout_convert(&k, HC_ARRAY_LEFT, HC_LAYOUT_CELL_MINOR, b, HC_LAYOUT_CELL_MAJOR, c), HC_OK);
  assert_memory_equal(a, c, sizeof(double) * (size_t)n);
  free(a), free(b), free(c);
}

/* test_contract [BACKEND [KERNEL_SUBSTRING]]: the kernels whose names contain the substring (all by
   default), e.g. `test_contract cuda FieldField` for a slow tool such as compute-sanitizer. */
int main(int argc, char **argv) {
  const char *name = argc > 1 ? argv[1] : "serial";
  const char *only = argc > 2 ? argv[2] : "";
  if (hc_backend_find(name, &backend) != HC_OK) {
    fprintf(stderr, "%s\n", hc_error_message());
    return 1;
  }
  if (argc > 3) {
    hc_variant v;
    if (hc_variant_from_name(argv[3], &v) != HC_OK) {
      fprintf(stderr, "%s\n", hc_error_message());
      return 1;
    }
    only_variant = (int)v;
  }
  if (hc_test_no_device(backend, name)) return 77;
  struct CMUnitTest tests[HC_NUM_KERNELS + 3];
  static char names[HC_NUM_KERNELS][64];
  size_t n = 0;
  for (int i = 0; i < HC_NUM_KERNELS; i++) {
    if (!strstr(hc_kernel_name((hc_kernel)i), only)) continue;
    snprintf(names[n], sizeof(names[n]), "%s_%s", name, hc_kernel_name((hc_kernel)i));
    tests[n] = (struct CMUnitTest){names[n], test_kernel, NULL, NULL, (void *)(intptr_t)i};
    n++;
  }
  if (n == 0) {
    fprintf(stderr, "no kernel name contains '%s'\n", only);
    return 1;
  }
  if (!only[0]) {
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_shape_errors);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_names_and_cost);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_layout_roundtrip);
  }
  return _cmocka_run_group_tests(name, tests, n, NULL, NULL);
}
