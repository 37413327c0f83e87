/* Exact summation of doubles in a wide fixed-point accumulator. */
#include "kernels/hc_xsum.h"

#include <math.h>
#include <stdint.h>
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

/* Bit k of the normalised, non-negative digits (bit 0 is 2^-1074); the top limb may hold more than 32 bits. */
static int hc_xsum_bit(const hc_xsum *t, int64_t k) {
  int64_t i = k / 32;
  if (i >= HC_XSUM_LIMBS - 1) i = HC_XSUM_LIMBS - 1;
  int64_t b = k - 32 * i;
  return b < 63 && (((uint64_t)t->limb[i] >> b) & 1u);
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
  /* The highest set bit B of the magnitude M = sum_k bit(k) 2^k, the value being M * 2^-1074. */
  int64_t B = -1;
  for (int64_t k = 32 * (HC_XSUM_LIMBS - 1) + 62; k >= 0 && B < 0; k--)
    if (hc_xsum_bit(&t, k)) B = k;
  if (B < 0) return 0.0;
  /* Round M to 53 significant bits, to nearest with ties to even (below 2^53 units, M is exact: a subnormal
     or the first binade of normals). The result depends on the exact value only. */
  int64_t lo = B > 52 ? B - 52 : 0;
  uint64_t m = 0;
  for (int64_t k = B; k >= lo; k--) m = (m << 1) | (uint64_t)hc_xsum_bit(&t, k);
  if (lo > 0) {
    int half = hc_xsum_bit(&t, lo - 1), sticky = 0;
    for (int64_t k = lo - 2; k >= 0 && !sticky; k--) sticky = hc_xsum_bit(&t, k);
    if (half && (sticky || (m & 1u))) m++; /* m may become 2^53: still exact in a double */
  }
  double v = ldexp((double)m, (int)(lo - 1074)); /* overflows to infinity past DBL_MAX, as rounding does */
  return neg ? -v : v;
}
