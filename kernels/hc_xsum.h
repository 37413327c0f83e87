/* Exact summation of doubles: a fixed-point accumulator wide enough for every finite double, so that a sum
   does not depend on the order or grouping of its terms (bitwise reproducible global sums). */
#ifndef HC_XSUM_H
#define HC_XSUM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 32-bit digits at bit offsets 0, 32, 64, ... from 2^-1074 (the smallest subnormal) up past 2^1024. */
#define HC_XSUM_LIMBS 68

typedef struct {
  int64_t limb[HC_XSUM_LIMBS]; /* value = sum_i limb[i] * 2^(32 i - 1074) */
  int64_t adds;                /* terms since the last normalisation */
  int nonfinite;               /* a NaN or infinity was added: the sum is NaN */
} hc_xsum;

void hc_xsum_init(hc_xsum *x);
/* Adds v exactly. */
void hc_xsum_add(hc_xsum *x, double v);
/* Brings every limb but the top one into [0, 2^32), carrying upwards; keeps the value. */
void hc_xsum_normalize(hc_xsum *x);
/* Adds another accumulator (both normalised first by the caller or not: any state works). */
void hc_xsum_merge(hc_xsum *x, const hc_xsum *y);
/* The exact sum rounded to the nearest double (ties to even; infinity past DBL_MAX, NaN if a term was not
   finite): a function of the exact value only, so equal sums give equal bits. */
double hc_xsum_value(const hc_xsum *x);

#ifdef __cplusplus
}
#endif

#endif
