/* Unit tests of the division by an invariant divisor (kernels/cuda/hc_fastdiv.h) that the CUDA cell data
   splits its entry indices with: n / d against the hardware division for every divisor up to 4096 and
   the divisors' neighbourhoods of the powers of two up to 2^31, at the quotients' edges (n = k d - 1,
   k d, k d + 1), the largest numerators and pseudo-random ones. The device runs the same code with
   __umulhi for the multiply-high. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kernels/cuda/hc_fastdiv.h"

static uint64_t seed = 20261123;

static uint32_t next32(void) {
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(seed >> 32);
}

static void check(hc_fastdiv f, uint32_t n) {
  const uint32_t q = hc_fastdiv_div(f, n);
  if (q != n / f.d) fail_msg("%u / %u: %u, expected %u", n, f.d, q, n / f.d);
}

static void check_divisor(uint32_t d) {
  const hc_fastdiv f = hc_fastdiv_make(d);
  assert_int_equal(f.d, d);
  const uint32_t edges[] = {0, 1, 2, d - 1, d, d + 1, UINT32_MAX, UINT32_MAX - 1, UINT32_MAX / 2, UINT32_MAX / 2 + 1};
  for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) check(f, edges[i]);
  /* around multiples of d over the whole range, and at random */
  for (uint64_t k = 1; k * d <= UINT32_MAX; k = k < 64 ? k + 1 : k * 3 + 1) {
    const uint32_t m = (uint32_t)(k * d);
    check(f, m - 1), check(f, m);
    if (m < UINT32_MAX) check(f, m + 1);
  }
  for (int i = 0; i < 64; i++) check(f, next32());
}

static void test_small_divisors(void **state) {
  (void)state;
  for (uint32_t d = 1; d <= 4096; d++) check_divisor(d);
}

static void test_large_divisors(void **state) {
  (void)state;
  for (int b = 12; b <= 31; b++) {
    const uint32_t p = (uint32_t)1 << b;
    for (uint32_t d = p - 3; d <= p + 3 && d <= ((uint32_t)1 << 31); d++) check_divisor(d);
  }
  for (int i = 0; i < 2000; i++) check_divisor(1 + next32() % ((uint32_t)1 << 31));
}

/* Dense: every numerator below 2^20 for the divisors the cell data meets (points per chunk, fields). */
static void test_dense(void **state) {
  (void)state;
  const uint32_t ds[] = {1, 3, 7, 8, 9, 25, 27, 64, 108, 125, 343, 1000};
  for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) {
    const hc_fastdiv f = hc_fastdiv_make(ds[i]);
    for (uint32_t n = 0; n < (1u << 20); n++) check(f, n);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_divisors),
      cmocka_unit_test(test_large_divisors),
      cmocka_unit_test(test_dense),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
