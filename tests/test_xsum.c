/* Unit tests of the exact accumulator (kernels/hc_xsum.h) against exact references: sums of scaled integers in
   128-bit integer arithmetic (rounded once, by the conversion to double), and sums constructed so that their
   exact value is known (x and -x cancel, powers of two add up to 2^n - 2^m). Mixed signs, all negative,
   catastrophic cancellation, the whole exponent range with subnormals, and merges of partial accumulators. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/hc_xsum.h"

static uint64_t seed = 20261123;

static uint64_t next(void) {
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return seed >> 11; /* 53 bits */
}

/* An integer in [-(2^bits - 1), 2^bits - 1], bits <= 53. */
static int64_t rnd_int(int bits) {
  int64_t m = (int64_t)(next() >> (53 - bits));
  return (next() & 1) ? -m : m;
}

static double sum_of(const double *v, int n) {
  hc_xsum x;
  hc_xsum_init(&x);
  for (int i = 0; i < n; i++) hc_xsum_add(&x, v[i]);
  return hc_xsum_value(&x);
}

/* Bitwise equality (so that -0 and 0 differ and NaN equals NaN), with both values printed on failure. */
static void same(double got, double want, const char *what) {
  if (memcmp(&got, &want, sizeof(got)) != 0) print_error("%s: got %a, expected %a\n", what, got, want);
  assert_memory_equal(&got, &want, sizeof(got));
}

static void shuffle(double *v, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(next() % (uint64_t)(i + 1));
    double t = v[i];
    v[i] = v[j], v[j] = t;
  }
}

/* Terms k_i 2^(e_i) with e_i in [E, E + 40] and |k_i| < 2^bits: the scaled sum sum k_i 2^(e_i - E) is an exact
   __int128, converted to double with one rounding (to nearest, ties to even) and scaled back exactly. */
static void window_case(int E, int n, int bits, int sign, const char *what) {
  double *v = malloc(sizeof(*v) * n);
  __int128 S = 0;
  for (int i = 0; i < n; i++) {
    int64_t k = rnd_int(bits);
    if (sign) k = sign * (k < 0 ? -k : k);
    int e = (int)(next() % 41);
    v[i] = ldexp((double)k, E + e);
    S += (__int128)k * ((__int128)1 << e);
  }
  double want = ldexp((double)S, E);
  same(sum_of(v, n), want, what);
  shuffle(v, n);
  same(sum_of(v, n), want, what);
  free(v);
}

/* Mixed signs and one sign only, at the bottom (subnormals), middle and top of the exponent range. */
static void test_windows(void **state) {
  (void)state;
  char what[96];
  const int Es[] = {-1074, -1050, -600, -60, -20, 0, 300, 900};
  for (size_t w = 0; w < sizeof(Es) / sizeof(Es[0]); w++) {
    for (int sign = -1; sign <= 1; sign++) {
      for (int rep = 0; rep < 20; rep++) {
        /* At the bottom, keep the sum below 2^53 units of 2^-1074: ldexp then scales exactly into the subnormals. */
        int bits = Es[w] == -1074 ? 5 : 53, n = Es[w] == -1074 ? 200 : 1000;
        snprintf(what, sizeof(what), "window 2^%d, sign %d, case %d", Es[w], sign, rep);
        window_case(Es[w], n, bits, sign, what);
      }
    }
  }
}

/* 1e300 + 1 - 1e300 = 1, and cancellations whose rounded partial sums lose everything. */
static void test_cancellation(void **state) {
  (void)state;
  same(sum_of((double[]){1e300, 1.0, -1e300}, 3), 1.0, "1e300 + 1 - 1e300");
  same(sum_of((double[]){1e300, 1.0, -1e300, -1.0}, 4), 0.0, "1e300 + 1 - 1e300 - 1");
  same(sum_of((double[]){1.0, 1e100, 1.0, -1e100}, 4), 2.0, "1 + 1e100 + 1 - 1e100");
  same(sum_of((double[]){-1e300, -1.0, 1e300, 0x1p-1074}, 4), -1.0 + 0x1p-1074, "-1e300 - 1 + 1e300 + 2^-1074");
  same(sum_of((double[]){DBL_MAX, DBL_MAX, -DBL_MAX}, 3), DBL_MAX, "DBL_MAX + DBL_MAX - DBL_MAX");
  same(sum_of((double[]){-DBL_MAX, -DBL_MAX, DBL_MAX}, 3), -DBL_MAX, "-DBL_MAX - DBL_MAX + DBL_MAX");
  same(sum_of((double[]){DBL_MAX, 0x1p-1074, -DBL_MAX}, 3), 0x1p-1074, "DBL_MAX + 2^-1074 - DBL_MAX");
  same(sum_of((double[]){0x1p-1074, -0x1p-1074}, 2), 0.0, "2^-1074 - 2^-1074");
  same(sum_of((double[]){0.1, 0.2, -0.3}, 3), 0x1p-55, "0.1 + 0.2 - 0.3"); /* exact in binary: 2^-55 */
  /* x_i and -x_i of every magnitude, shuffled, around a residual r: exactly r. */
  const double residuals[] = {0.0, 1.0, -3.5, 0x1p-1074, -0x1.8p-1070, 0x1.fffffffffffffp-1022, 1e-300, -7e250};
  for (size_t r = 0; r < sizeof(residuals) / sizeof(residuals[0]); r++) {
    enum { N = 2 * 2098 + 1 };
    static double v[N];
    int n = 0;
    for (int e = -1074; e <= 1023; e++) {
      double x = ldexp((double)(next() | (1ULL << 52)), e - 52); /* a random 53-bit mantissa at 2^e */
      if (!isfinite(x) || x == 0.0) x = ldexp(1.0, e);           /* subnormals: the power of two */
      if (next() & 1) x = -x;
      v[n++] = x;
      v[n++] = -x;
    }
    v[n++] = residuals[r];
    shuffle(v, n);
    char what[64];
    snprintf(what, sizeof(what), "cancellation around %a", residuals[r]);
    same(sum_of(v, n), residuals[r], what);
  }
}

/* Every power of two from 2^-1074 to 2^1022 sums to 2^1023 - 2^-1074, which rounds to 2^1023; the subnormal
   powers alone sum to the largest subnormal, exactly; all negative, the negatives of those. */
static void test_exponent_range(void **state) {
  (void)state;
  enum { N = 2097 };
  static double v[N];
  int n = 0;
  for (int e = -1074; e <= 1022; e++) v[n++] = ldexp(1.0, e);
  shuffle(v, n);
  same(sum_of(v, n), 0x1p1023, "2^-1074 + ... + 2^1022");
  for (int i = 0; i < n; i++) v[i] = -v[i];
  same(sum_of(v, n), -0x1p1023, "-(2^-1074 + ... + 2^1022)");
  n = 0;
  for (int e = -1074; e <= -1023; e++) v[n++] = -ldexp(1.0, e);
  same(sum_of(v, n), -0x0.fffffffffffffp-1022, "the subnormal powers, negative");
  /* Beyond DBL_MAX the sum rounds to infinity; one term rounding at each end of the range. */
  same(sum_of((double[]){DBL_MAX, 0x1p970}, 2), INFINITY, "DBL_MAX + half an ulp (a tie to even: up)");
  same(sum_of((double[]){DBL_MAX, 0x1p969}, 2), DBL_MAX, "DBL_MAX + a quarter ulp");
  same(sum_of((double[]){-DBL_MAX, -DBL_MAX}, 2), -INFINITY, "-2 DBL_MAX");
  same(sum_of((double[]){0x1p-1074, 0x1p-1074, 0x1p-1074}, 3), 0x1.8p-1073, "3 x 2^-1074");
  same(sum_of((double[]){0x1p-1022, -0x1p-1074}, 2), 0x0.fffffffffffffp-1022, "2^-1022 - 2^-1074");
}

/* Rounding of the exact sum, once: ties to even, and a tail far below that breaks a tie (a sum rounded twice,
   first to 64 bits and then to 53, gets these wrong). */
static void test_rounding(void **state) {
  (void)state;
  same(sum_of((double[]){1.0, 0x1p-53}, 2), 1.0, "1 + 2^-53: a tie, to even");
  same(sum_of((double[]){1.0, 0x1p-52, 0x1p-53}, 3), 1.0 + 0x1p-51, "1 + 2^-52 + 2^-53: a tie, to even (up)");
  same(sum_of((double[]){1.0, 0x1p-53, 0x1p-80}, 3), 1.0 + 0x1p-52, "1 + 2^-53 + 2^-80: above the tie");
  same(sum_of((double[]){1.0, 0x1p-53, 0x1p-1074}, 3), 1.0 + 0x1p-52, "1 + 2^-53 + 2^-1074: above the tie");
  same(sum_of((double[]){1.0, 0x1p-53, -0x1p-1074}, 3), 1.0, "1 + 2^-53 - 2^-1074: below the tie");
  same(sum_of((double[]){-1.0, -0x1p-53, -0x1p-80}, 3), -1.0 - 0x1p-52, "negative, above the tie");
  same(sum_of((double[]){0x1p1000, 0x1p947, 0x1p-1074}, 3), 0x1p1000 + 0x1p948, "2^1000 + half ulp + 2^-1074");
  same(sum_of((double[]){0.0, -0.0}, 2), 0.0, "0 + -0");
  same(sum_of(NULL, 0), 0.0, "the empty sum");
  same(sum_of((double[]){1.0, NAN, 2.0}, 3), NAN, "a NaN term");
  same(sum_of((double[]){1.0, INFINITY, -INFINITY}, 3), NAN, "infinities");
}

/* Terms split over several accumulators, merged in any order, give the whole sum's bits; merging keeps a NaN. */
static void test_merge(void **state) {
  (void)state;
  enum { N = 3000, PARTS = 7 };
  static double v[N];
  for (int rep = 0; rep < 20; rep++) {
    __int128 S = 0;
    const int E = rep % 2 ? -1074 : -30;
    for (int i = 0; i < N; i++) {
      int64_t k = rnd_int(rep % 2 ? 20 : 53);
      int e = (int)(next() % 41);
      v[i] = ldexp((double)k, E + e);
      S += (__int128)k * ((__int128)1 << e);
    }
    const double want = ldexp((double)S, E);
    hc_xsum part[PARTS], total;
    for (int p = 0; p < PARTS; p++) hc_xsum_init(&part[p]);
    for (int i = 0; i < N; i++) hc_xsum_add(&part[next() % PARTS], v[i]);
    /* merged left to right, and as a tree from the right, with a normalisation in between for some */
    hc_xsum_init(&total);
    for (int p = 0; p < PARTS; p++) hc_xsum_merge(&total, &part[p]);
    same(hc_xsum_value(&total), want, "merged left to right");
    for (int p = PARTS - 2; p >= 0; p--) {
      if (p % 2) hc_xsum_normalize(&part[p + 1]);
      hc_xsum_merge(&part[p], &part[p + 1]);
    }
    same(hc_xsum_value(&part[0]), want, "merged as a chain from the right");
  }
  /* a merge of x and -x's accumulators is exactly zero; of an accumulator that saw a NaN is NaN */
  hc_xsum a, b;
  hc_xsum_init(&a), hc_xsum_init(&b);
  for (int e = -1074; e <= 1023; e += 7) hc_xsum_add(&a, ldexp(1.5, e) > DBL_MAX ? DBL_MAX : ldexp(1.5, e));
  for (int e = 1023; e >= -1074; e--)
    if ((e + 1074) % 7 == 0) hc_xsum_add(&b, ldexp(-1.5, e) < -DBL_MAX ? -DBL_MAX : ldexp(-1.5, e));
  hc_xsum_merge(&a, &b);
  same(hc_xsum_value(&a), 0.0, "x merged with -x");
  hc_xsum_add(&b, NAN);
  hc_xsum_merge(&a, &b);
  same(hc_xsum_value(&a), NAN, "merged with a NaN");
}

/* The accumulator normalises itself every 2^30 terms: a sum that passes the count keeps its value. */
static void test_normalisation(void **state) {
  (void)state;
  hc_xsum x;
  hc_xsum_init(&x);
  for (int i = 0; i < 1000; i++) hc_xsum_add(&x, -0x1.fffffffffffffp1000);
  x.adds = ((int64_t)1 << 30) - 3; /* as if the terms so far had been many more */
  for (int i = 0; i < 1000; i++) hc_xsum_add(&x, 0x1.fffffffffffffp1000);
  for (int i = 0; i < 10; i++) hc_xsum_add(&x, -0x1p-1074);
  same(hc_xsum_value(&x), -0x1.4p-1071, "after a normalisation in the middle");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_windows),  cmocka_unit_test(test_cancellation), cmocka_unit_test(test_exponent_range),
      cmocka_unit_test(test_rounding), cmocka_unit_test(test_merge),        cmocka_unit_test(test_normalisation),
  };
  return cmocka_run_group_tests_name("xsum", tests, NULL, NULL);
}
