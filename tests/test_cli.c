/* The `hexcontract contract` command as a user runs it: results on arrays it has never seen agree
   with the naive reference for every kernel, backend, layout, precision and --sum-into, and every
   kind of bad input exits with code 2 and a message naming the file or option.
   Usage: test_cli PATH/TO/hexcontract BACKEND... */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "io/hc_npy.h"
#include "tests/hc_test_reference.h"

static const char *exe;
static char **backends;
static int nbackends;

/* Runs `exe ARGS` and returns its exit code; its stdout and stderr land in out. */
static int run(char *out, size_t size, const char *fmt, ...) {
  char args[2048], cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof(args), fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof(cmd), "%s %s 2>&1", exe, args);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t n = fread(out, 1, size - 1, p);
  out[n] = '\0';
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void expect_exit(int code, const char *fragment, const char *fmt, ...) {
  char args[2048], out[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof(args), fmt, ap);
  va_end(ap);
  int got = run(out, sizeof(out), "%s", args);
  if (got != code || !strstr(out, fragment)) {
    print_error("hexcontract %s\n  exit %d (expected %d), output:\n%s\n  expected to contain: %s\n", args, got, code,
                out, fragment);
    fail();
  }
}

/* Writes the arrays of k (random, cell-major) to left.npy/right.npy/out0.npy. */
static void write_inputs(const hc_contract *k, uint64_t seed, void **left, void **right, void **out0) {
  int nd;
  int64_t dims[6];
  size_t s = hc_precision_size(k->precision);
  hc_array which[3] = {HC_ARRAY_LEFT, HC_ARRAY_RIGHT, HC_ARRAY_OUT};
  const char *names[3] = {"cli_left.npy", "cli_right.npy", "cli_out.npy"};
  void **bufs[3] = {left, right, out0};
  for (int a = 0; a < 3; a++) {
    int64_t n = hc_contract_numel(k, which[a]);
    *bufs[a] = malloc((size_t)n * s);
    hc_test_fill(k->precision, n, seed + (uint64_t)a, *bufs[a]);
    hc_contract_shape(k, which[a], &nd, dims);
    assert_int_equal(hc_npy_write(names[a], k->precision, nd, dims, *bufs[a]), HC_OK);
  }
}

static void test_agrees_with_reference(void **state) {
  (void)state;
  char out[8192];
  int runs = 0;
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
    for (int prec = 0; prec < 2; prec++) {
      hc_contract k;
      hc_contract_init(&k, (hc_kernel)kid);
      hc_family fam = hc_kernel_family(k.kernel);
      k.C = 23;
      k.L = fam == HC_FAMILY_DATADATA ? 1 : 8;
      k.R = fam == HC_FAMILY_FIELDFIELD ? 5 : 1;
      k.P = 9;
      k.P_data = fam == HC_FAMILY_DATAFIELD && prec ? 1 : k.P; /* constant data in float */
      k.D = hc_kernel_rank(k.kernel) ? 3 : 1;
      k.precision = (hc_precision)prec;
      void *left, *right, *out0;
      write_inputs(&k, 1000 + 10 * (uint64_t)kid + (uint64_t)prec, &left, &right, &out0);
      int64_t no = hc_contract_numel(&k, HC_ARRAY_OUT);
      double *ref = malloc(sizeof(double) * (size_t)no), *bound = malloc(sizeof(double) * (size_t)no);
      for (int b = 0; b < nbackends; b++) {
        for (int layout = 0; layout < 2; layout++) {
          for (int sum_into = 0; sum_into < 2; sum_into++) {
            k.sum_into = sum_into;
            hc_test_reference(&k, left, right, out0, ref, bound);
            int64_t dims[6];
            int nd;
            hc_contract_shape(&k, HC_ARRAY_OUT, &nd, dims);
            /* --sum-into adds into the existing output file: start each run from out0. */
            assert_int_equal(hc_npy_write("cli_result.npy", k.precision, nd, dims, out0), HC_OK);
            int code = run(out, sizeof(out),
                           "contract --kernel %s --left cli_left.npy --right cli_right.npy --out cli_result.npy "
                           "--backend %s --layout %s%s",
                           hc_kernel_name(k.kernel), backends[b], layout ? "cell-minor" : "cell-major",
                           sum_into ? " --sum-into" : "");
            if (code == 3 && strstr(out, "no usable CUDA device")) continue; /* no GPU here */
            if (code != 0) print_error("%s\n", out);
            assert_int_equal(code, 0);
            hc_npy_array res;
            assert_int_equal(hc_npy_read("cli_result.npy", &res), HC_OK);
            assert_int_equal(res.precision, k.precision);
            assert_int_equal(res.ndim, nd);
            for (int i = 0; i < nd; i++) assert_true(res.dims[i] == dims[i]);
            double worst;
            int64_t bad = hc_test_compare(&k, res.data, ref, bound, &worst);
            if (bad)
              print_error("%s on %s: %lld entries off (worst %.3g)\n", hc_kernel_name(k.kernel), backends[b],
                          (long long)bad, worst);
            assert_int_equal(bad, 0);
            hc_npy_free(&res);
            runs++;
          }
        }
      }
      free(left), free(right), free(out0), free(ref), free(bound);
    }
  }
  assert_true(runs >= HC_NUM_KERNELS * 2 * 4);
}

static void test_repeat_prints_rates(void **state) {
  (void)state;
  hc_contract k;
  hc_contract_init(&k, HC_FIELDFIELD_SCALAR);
  k.C = 10, k.L = 8, k.R = 8, k.P = k.P_data = 8;
  void *l, *r, *o;
  write_inputs(&k, 5, &l, &r, &o);
  free(l), free(r), free(o);
  expect_exit(0, "GFLOP/s",
              "contract --kernel FieldFieldScalar --left cli_left.npy --right cli_right.npy "
              "--out cli_result.npy --repeat 3");
  expect_exit(0, "over 3 calls",
              "contract --kernel FieldFieldScalar --left cli_left.npy --right cli_right.npy "
              "--out cli_result.npy --repeat 3 --backend serial");
}

static void test_bad_input(void **state) {
  (void)state;
  /* FieldFieldScalar inputs from the test above are in cli_left.npy / cli_right.npy. */
  hc_contract k;
  hc_contract_init(&k, HC_FIELDFIELD_SCALAR);
  k.C = 4, k.L = 3, k.R = 2, k.P = k.P_data = 5;
  void *l, *r, *o;
  write_inputs(&k, 9, &l, &r, &o);
  /* The end of this test asserts that no run wrote cli_bad_out.npy: one left by an earlier run must go first. */
  remove("cli_bad_out.npy");
  const char *io = "--left cli_left.npy --right cli_right.npy --out cli_bad_out.npy";
  expect_exit(2, "unknown kernel 'FieldFieldTensr'", "contract --kernel FieldFieldTensr %s", io);
  expect_exit(2, "shapes do not fit FieldFieldVector", "contract --kernel FieldFieldVector %s", io);
  expect_exit(2, "cli_left.npy and cli_right.npy", "contract --kernel FieldFieldVector %s", io);
  expect_exit(2, "(4, 3, 5)", "contract --kernel DataDataScalar %s", io);
  expect_exit(2, "--kernel is required", "contract %s", io);
  expect_exit(2, "--out is required", "contract --kernel FieldFieldScalar --left cli_left.npy --right cli_right.npy");
  expect_exit(2, "unknown option '--frobnicate'", "contract --kernel FieldFieldScalar %s --frobnicate", io);
  /* A long name after one dash is named as typed (getopt_long named the argument before it). */
  expect_exit(2, "unknown option '-kernel'", "contract -kernel FieldFieldScalar %s", io);
  expect_exit(2, "option --repeat", "contract --kernel FieldFieldScalar %s --repeat many", io);
  expect_exit(2, "unknown layout 'row-major'", "contract --kernel FieldFieldScalar %s --layout row-major", io);
  expect_exit(2, "unknown backend 'vulkan'", "contract --kernel FieldFieldScalar %s --backend vulkan", io);
  expect_exit(2, "not available on backend serial",
              "contract --kernel FieldFieldScalar %s --backend serial "
              "--variant tile",
              io);
  expect_exit(2, "cannot open",
              "contract --kernel FieldFieldScalar --left nope.npy --right cli_right.npy "
              "--out cli_bad_out.npy");
  expect_exit(2, "cli_bad_out.npy: cannot open", "contract --kernel FieldFieldScalar %s --sum-into", io);
  /* --sum-into into an array of the wrong shape. */
  int64_t dims[2] = {4, 3};
  double z[12] = {0};
  assert_int_equal(hc_npy_write("cli_wrong_out.npy", HC_DOUBLE, 2, dims, z), HC_OK);
  expect_exit(2, "needs an array of shape (4, 3, 2)",
              "contract --kernel FieldFieldScalar --left cli_left.npy "
              "--right cli_right.npy --out cli_wrong_out.npy --sum-into");
  /* Mixed precisions. */
  int64_t rd[3] = {4, 2, 5};
  float rf[40] = {0};
  assert_int_equal(hc_npy_write("cli_right_f32.npy", HC_FLOAT, 3, rd, rf), HC_OK);
  expect_exit(2, "same precision",
              "contract --kernel FieldFieldScalar --left cli_left.npy --right "
              "cli_right_f32.npy --out cli_bad_out.npy");
  /* Malformed files: Fortran order, another dtype, truncated. */
  FILE *f = fopen("cli_fortran.npy", "wb");
  const char hdr[] = "{'descr': '<f8', 'fortran_order': True, 'shape': (4, 3, 5), }";
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118, 0};
  fwrite(pre, 1, 10, f);
  fprintf(f, "%-117s\n", hdr);
  fwrite(l, 8, 60, f);
  fclose(f);
  expect_exit(2, "cli_fortran.npy: Fortran-order",
              "contract --kernel FieldFieldScalar --left cli_fortran.npy "
              "--right cli_right.npy --out cli_bad_out.npy");
  f = fopen("cli_int.npy", "wb");
  fwrite(pre, 1, 10, f);
  fprintf(f, "%-117s\n", "{'descr': '<i4', 'fortran_order': False, 'shape': (4, 2, 5), }");
  fwrite(l, 4, 40, f);
  fclose(f);
  expect_exit(2, "cli_int.npy: unsupported dtype '<i4'",
              "contract --kernel FieldFieldScalar --left "
              "cli_left.npy --right cli_int.npy --out cli_bad_out.npy");
  f = fopen("cli_trunc.npy", "wb");
  fwrite(pre, 1, 10, f);
  fprintf(f, "%-117s\n", "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 2, 5), }");
  fwrite(l, 8, 39, f);
  fclose(f);
  expect_exit(2, "cli_trunc.npy: truncated",
              "contract --kernel FieldFieldScalar --left cli_left.npy --right "
              "cli_trunc.npy --out cli_bad_out.npy");
  /* No output file is left behind by a failed run. */
  f = fopen("cli_bad_out.npy", "rb");
  assert_null(f);
  free(l), free(r), free(o);
}

static void test_help(void **state) {
  (void)state;
  expect_exit(0, "--sum-into", "contract --help");
  expect_exit(0, "--layout", "contract --help");
  expect_exit(0, "Exit codes", "--help");
  expect_exit(2, "unknown subcommand 'frob'", "frob");
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_cli PATH/TO/hexcontract BACKEND...\n");
    return 1;
  }
  exe = argv[1];
  backends = argv + 2;
  nbackends = argc - 2;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_agrees_with_reference),
      cmocka_unit_test(test_repeat_prints_rates),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_help),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
