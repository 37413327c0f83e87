/* The naive reference evaluation used by the conformance and command-line tests. */
#include "tests/hc_test_reference.h"

#include <math.h>

static long double hc_get(const hc_contract *k, const void *a, int64_t i) {
  return k->precision == HC_FLOAT ? (long double)((const float *)a)[i] : (long double)((const double *)a)[i];
}

void hc_test_reference(const hc_contract *k, const void *left, const void *right, const void *out0, double *ref,
                       double *bound) {
  const int rank = hc_kernel_rank(k->kernel);
  const hc_family fam = hc_kernel_family(k->kernel);
  const int64_t C = k->C, L = k->L, R = k->R, P = k->P;
  const int64_t DI = rank >= 1 ? k->D : 1, DJ = rank >= 2 ? k->D : 1;
  const int64_t PR = fam == HC_FAMILY_DATAFIELD ? k->P_data : P; /* points of the right array */
  for (int64_t c = 0; c < C; c++) {
    for (int64_t l = 0; l < L; l++) {
      for (int64_t r = 0; r < R; r++) {
        long double sum = 0, abs_sum = 0;
        for (int64_t p = 0; p < P; p++) {
          for (int64_t i = 0; i < DI; i++) {
            for (int64_t j = 0; j < DJ; j++) {
              /* left[c][l][p][i][j] (no l for DataData), right[c][r][p'][i][j] (r only for FieldField) */
              int64_t li = (((c * L + l) * P + p) * DI + i) * DJ + j;
              int64_t pr = PR == 1 ? 0 : p;
              int64_t ri = (((c * R + r) * PR + pr) * DI + i) * DJ + j;
              long double t = hc_get(k, left, li) * hc_get(k, right, ri);
              sum += t;
              abs_sum += fabsl(t);
            }
          }
        }
        int64_t o = (c * L + l) * R + r;
        if (k->sum_into) {
          long double base = hc_get(k, out0, o);
          sum += base;
          abs_sum += fabsl(base);
        }
        ref[o] = (double)sum;
        bound[o] = (double)abs_sum;
      }
    }
  }
}

int64_t hc_test_compare(const hc_contract *k, const void *out, const double *ref, const double *bound, double *worst) {
  const double u = k->precision == HC_FLOAT ? ldexp(1.0, -24) : ldexp(1.0, -53);
  const double n = (double)hc_contract_K(k) + 2.0;
  const double gamma = n * u / (1.0 - n * u);
  const double tiny = k->precision == HC_FLOAT ? 1e-30 : 1e-300;
  int64_t bad = 0, numel = hc_contract_numel(k, HC_ARRAY_OUT);
  *worst = 0;
  for (int64_t e = 0; e < numel; e++) {
    double x = k->precision == HC_FLOAT ? (double)((const float *)out)[e] : ((const double *)out)[e];
    double tol = gamma * bound[e] + tiny;
    double ratio = fabs(x - ref[e]) / tol;
    if (!(ratio <= 1.0)) bad++; /* NaN counts as bad */
    if (!(ratio <= *worst)) *worst = ratio;
  }
  return bad;
}

void hc_test_fill(hc_precision precision, int64_t n, uint64_t seed, void *data) {
  uint64_t x = seed * 0x2545F4914F6CDD1Dull + 1;
  for (int64_t i = 0; i < n; i++) {
    x ^= x << 13; /* xorshift64 */
    x ^= x >> 7;
    x ^= x << 17;
    double v = (double)(x >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
    if (precision == HC_FLOAT) {
      ((float *)data)[i] = (float)v;
    } else {
      ((double *)data)[i] = v;
    }
  }
}
