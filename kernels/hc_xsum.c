/* Exact summation of doubles in a wide fixed-point accumulator. */
#include "kernels/hc_xsum.h"

#include <math.h>
#include <string.h>

void hc_xsum_init(hc_xsum *x) {
  memset(x, 0, sizeof(*x));
}

void hc_xsum_normalize(hc_xsum *x) {
  int64_t carry = 0;
  for (int i = 0; i < HC_XSUM_LIMBS - 1; i++) {
    int64_t v = x->limb[i] + carry;
    /* floor division by 2^32, so that the remainder is in [0, 2^32) */
    carry = v >> 32;
    x->limb[i] = v - carry * ((int64_t)1 << 32);
  }
  x->limb[HC_XSUM_LIMBS - 1] += carry;
  x->adds = 0;
}

void hc_xsum_add(hc_xsum *x, double v) {
  if (v == 0.0) return;
  if (!isfinite(v)) {
    x->nonfinite = 1;
    return;
  }
  int e;
  double f = frexp(fabs(v), &e); /* |v| = f * 2^e, f in [0.5, 1) */
  /* |v| = m * 2^(e - 53) with m < 2^53 an integer; subnormals have e - 53 < -1074, shifted below. */
  int64_t m = (int64_t)ldexp(f, 53);
  int64_t shift = (int64_t)(e - 53) + 1074;
  if (shift < 0) {
    m >>= -shift; /* exact: the low bits of a subnormal's mantissa are zero */
    shift = 0;
  }
  int idx = (int)(shift / 32), off = (int)(shift % 32);
  /* m << off spans at most 85 bits: three 32-bit digits. */
  uint64_t lo = ((uint64_t)m << off) & 0xffffffffu;
  uint64_t mid = off ? (((uint64_t)m >> (32 - off)) & 0xffffffffu) : (((uint64_t)m >> 32) & 0xffffffffu);
  uint64_t hi = off ? ((uint64_t)m >> (64 - off)) : 0;
  int64_t sign = v < 0 ? -1 : 1;
  x->limb[idx] += sign * (int64_t)lo;
  if (idx + 1 < HC_XSUM_LIMBS) x->limb[idx + 1] += sign * (int64_t)mid;
  if (idx + 2 < HC_XSUM_LIMBS) x->limb[idx + 2] += sign * (int64_t)hi;
  /* Each digit added is below 2^32: 2^30 additions cannot overflow a limb. */
  if (++x->adds >= ((int64_t)1 << 30)) hc_xsum_normalize(x);
}

void hc_xsum_merge(hc_xsum *x, const hc_xsum *y) {
  hc_xsum t = *y;
  hc_xsum_normalize(x);
  hc_xsum_normalize(&t);
  for (int i = 0; i < HC_XSUM_LIMBS; i++) x->limb[i] += t.limb[i];
  x->nonfinite |= t.nonfinite;
  hc_xsum_normalize(x);
}

double hc_xsum_value(const hc_xsum *x) {
  if (x->nonfinite) return NAN;
  hc_xsum t = *x;
  hc_xsum_normalize(&t);
  /* The top limb carries the sign; for a negative sum, negate so every digit is non-negative. */
  int neg = t.limb[HC_XSUM_LIMBS - 1] < 0;
  if (neg) {
    for (int i = 0; i < HC_XSUM_LIMBS; i++) t.limb[i] = -t.limb[i];
    hc_xsum_normalize(&t);
  }
  /* Sum the digits from the most significant down in long double: the result depends only on the digits. */
  long double s = 0;
  for (int i = HC_XSUM_LIMBS - 1; i >= 0; i--) s += ldexpl((long double)t.limb[i], 32 * i - 1074);
  return neg ? -(double)s : (double)s;
}
