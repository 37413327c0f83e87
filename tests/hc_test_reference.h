/* An independent naive evaluation of the formulas of kernels/README.md, for checking every backend. */
#ifndef HC_TEST_REFERENCE_H
#define HC_TEST_REFERENCE_H

#include "kernels/hc_kernels.h"

/* Evaluates k on cell-major arrays by the kernels/README.md formula with explicit (c, l, r, p, i, j) loops in
   long double: ref[e] is the exact-ish result (plus out0[e] when k->sum_into; out0 may be NULL
   otherwise) and bound[e] the sum of |terms| (plus |out0[e]|), which scales the tolerance. */
void hc_test_reference(const hc_contract *k, const void *left, const void *right, const void *out0, double *ref,
                       double *bound);

/* Checks a cell-major result against ref: |out - ref| <= gamma_(K+2) * bound + tiny, with the unit
   roundoff u of k's precision (2^-53 double, 2^-24 float) and gamma_n = n u / (1 - n u), the
   classical bound for a sum of K products. Returns the number of entries out of tolerance and sets
   *worst to the largest error / tolerance. */
int64_t hc_test_compare(const hc_contract *k, const void *out, const double *ref, const double *bound, double *worst);

/* Reproducible pseudo-random values in [-1, 1). */
void hc_test_fill(hc_precision precision, int64_t n, uint64_t seed, void *data);

#endif
