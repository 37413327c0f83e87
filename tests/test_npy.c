/* .npy reader and writer: round trips of every header version and each malformed-file error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "io/hc_npy.h"

static char dir[256];

static const char *path_of(const char *name) {
  static char buf[512];
  snprintf(buf, sizeof(buf), "%s/%s", dir, name);
  return buf;
}

/* Writes a file by hand: magic, version, header text padded to 64 bytes, then data bytes. */
static void write_raw(const char *name, int major, const char *dict, const void *data, size_t bytes) {
  FILE *f = fopen(path_of(name), "wb");
  assert_non_null(f);
  size_t prefix = major == 1 ? 10 : 12, n = strlen(dict);
  size_t total = (prefix + n + 1 + 63) / 64 * 64, hlen = total - prefix;
  unsigned char pre[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)major, 0};
  for (size_t i = 0; i < prefix - 8; i++) pre[8 + i] = (unsigned char)(hlen >> (8 * i));
  fwrite(pre, 1, prefix, f);
  fwrite(dict, 1, n, f);
  for (size_t i = n; i + 1 < hlen; i++) fputc(' ', f);
  fputc('\n', f);
  if (bytes) fwrite(data, 1, bytes, f);
  fclose(f);
}

static void test_roundtrip(void **state) {
  (void)state;
  double d[24];
  float f[6];
  for (int i = 0; i < 24; i++) d[i] = i * 0.5 - 3;
  for (int i = 0; i < 6; i++) f[i] = (float)i * 1.25f;
  int64_t dims[3] = {2, 3, 4};
  assert_int_equal(hc_npy_write(path_of("d.npy"), HC_DOUBLE, 3, dims, d), HC_OK);
  hc_npy_array a;
  assert_int_equal(hc_npy_read(path_of("d.npy"), &a), HC_OK);
  assert_int_equal(a.precision, HC_DOUBLE);
  assert_int_equal(a.ndim, 3);
  assert_true(a.dims[0] == 2 && a.dims[1] == 3 && a.dims[2] == 4 && a.numel == 24);
  assert_memory_equal(a.data, d, sizeof(d));
  hc_npy_free(&a);
  assert_null(a.data);
  int64_t d1[1] = {6};
  assert_int_equal(hc_npy_write(path_of("f.npy"), HC_FLOAT, 1, d1, f), HC_OK);
  assert_int_equal(hc_npy_read(path_of("f.npy"), &a), HC_OK);
  assert_int_equal(a.precision, HC_FLOAT);
  assert_true(a.ndim == 1 && a.dims[0] == 6);
  assert_memory_equal(a.data, f, sizeof(f));
  hc_npy_free(&a);
  /* The header of a written file is padded to a multiple of 64 bytes, as NumPy does. */
  FILE *fp = fopen(path_of("f.npy"), "rb");
  unsigned char pre[10];
  assert_int_equal(fread(pre, 1, 10, fp), 10);
  fclose(fp);
  assert_int_equal((10 + (pre[8] | pre[9] << 8)) % 64, 0);
}

static void test_versions(void **state) {
  (void)state;
  double d[6] = {1, 2, 3, 4, 5, 6};
  hc_npy_array a;
  write_raw("v2.npy", 2, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", d, sizeof(d));
  assert_int_equal(hc_npy_read(path_of("v2.npy"), &a), HC_OK);
  assert_true(a.ndim == 2 && a.dims[0] == 2 && a.dims[1] == 3);
  assert_memory_equal(a.data, d, sizeof(d));
  hc_npy_free(&a);
  write_raw("v3.npy", 3, "{\"shape\": (6,), \"fortran_order\": False, \"descr\": \"<f8\"}", d, sizeof(d));
  assert_int_equal(hc_npy_read(path_of("v3.npy"), &a), HC_OK);
  assert_true(a.ndim == 1 && a.dims[0] == 6);
  hc_npy_free(&a);
  /* A zero-dimensional array (a scalar) has one entry. */
  write_raw("scalar.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", d, sizeof(double));
  assert_int_equal(hc_npy_read(path_of("scalar.npy"), &a), HC_OK);
  assert_true(a.ndim == 0 && a.numel == 1);
  hc_npy_free(&a);
}

/* Each malformed file gives HC_ERR_INPUT, and the message names the file and the problem. */
static void expect_error(const char *name, const char *fragment) {
  hc_npy_array a;
  char path[512];
  snprintf(path, sizeof(path), "%s", path_of(name));
  assert_int_equal(hc_npy_read(path, &a), HC_ERR_INPUT);
  if (!strstr(hc_error_message(), fragment) || !strstr(hc_error_message(), path)) {
    print_error("message '%s' lacks '%s' or the path\n", hc_error_message(), fragment);
    fail();
  }
  assert_null(a.data);
}

static void test_malformed(void **state) {
  (void)state;
  double d[6] = {0};
  write_raw("fortran.npy", 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", d, sizeof(d));
  expect_error("fortran.npy", "Fortran");
  write_raw("int.npy", 1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", d, sizeof(d));
  expect_error("int.npy", "unsupported dtype '<i8'");
  write_raw("big.npy", 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }", d, sizeof(d));
  expect_error("big.npy", "unsupported dtype '>f8'");
  write_raw("c16.npy", 1, "{'descr': '<c16', 'fortran_order': False, 'shape': (3,), }", d, sizeof(d));
  expect_error("c16.npy", "unsupported dtype");
  write_raw("short.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", d, sizeof(d) - 8);
  expect_error("short.npy", "truncated");
  write_raw("long.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", d, sizeof(d));
  expect_error("long.npy", "bytes follow");
  write_raw("nodict.npy", 1, "['descr', '<f8']", d, sizeof(d));
  expect_error("nodict.npy", "malformed");
  write_raw("noshape.npy", 1, "{'descr': '<f8', 'fortran_order': False}", d, sizeof(d));
  expect_error("noshape.npy", "missing key 'shape'");
  write_raw("badshape.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, -3), }", d, sizeof(d));
  expect_error("badshape.npy", "malformed");
  write_raw("extra.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (6,), 'x': 1}", d, sizeof(d));
  expect_error("extra.npy", "unexpected key 'x'");
  write_raw("struct.npy", 1, "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (6,), }", d, sizeof(d));
  expect_error("struct.npy", "structured");
  write_raw("v9.npy", 9, "{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }", d, sizeof(d));
  expect_error("v9.npy", "version 9.0");
  /* Only 1.0, 2.0 and 3.0 exist: other minor versions, 0.x and 4.0 are refused, naming the version. */
  static const int versions[][2] = {{1, 1}, {2, 5}, {3, 255}, {0, 0}, {4, 0}};
  for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
    char name[32], want[80];
    snprintf(name, sizeof(name), "v%d_%d.npy", versions[i][0], versions[i][1]);
    write_raw(name, versions[i][0] == 1 ? 1 : 2, "{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }", d,
              sizeof(d));
    FILE *v = fopen(path_of(name), "r+b");
    assert_non_null(v);
    fseek(v, 6, SEEK_SET);
    fputc(versions[i][0], v);
    fputc(versions[i][1], v);
    fclose(v);
    snprintf(want, sizeof(want), "version %d.%d (expected 1.0, 2.0 or 3.0)", versions[i][0], versions[i][1]);
    expect_error(name, want);
  }
  /* Not a regular file: refused, and a FIFO without a writer does not block the reader. */
  char fifo[512];
  snprintf(fifo, sizeof(fifo), "%s", path_of("fifo.npy"));
  unlink(fifo);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  expect_error("fifo.npy", "is a FIFO (named pipe), not a regular file");
  unlink(fifo);
  FILE *f = fopen(path_of("text.npy"), "wb");
  fputs("hello, not numpy\n", f);
  fclose(f);
  expect_error("text.npy", "not a .npy file");
  f = fopen(path_of("cut.npy"), "wb");
  fwrite("\x93NUMPY\x01\x00\x76\x00{'descr'", 1, 19, f);
  fclose(f);
  expect_error("cut.npy", "truncated");
  f = fopen(path_of("empty.npy"), "wb");
  fclose(f);
  expect_error("empty.npy", "not a .npy file");
  expect_error("missing.npy", "cannot open");
}

static void test_write_errors(void **state) {
  (void)state;
  double d[1] = {0};
  int64_t dims[1] = {1};
  assert_int_equal(hc_npy_write("/nonexistent-dir/x.npy", HC_DOUBLE, 1, dims, d), HC_ERR_INPUT);
  assert_non_null(strstr(hc_error_message(), "/nonexistent-dir/x.npy"));
}

int main(void) {
  snprintf(dir, sizeof(dir), "npy_test_files");
  if (system("mkdir -p npy_test_files") != 0) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roundtrip),
      cmocka_unit_test(test_versions),
      cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_write_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
