/* Division of unsigned 32-bit integers by a divisor fixed at launch, by one multiply-high, an add and two
   shifts (Granlund and Montgomery, "Division by invariant integers using multiplication", 1994): the
   CUDA cell data splits flat entry indices into (cell, field, point) with it, where a hardware division
   would cost more than the entry itself. Exact for every n and every divisor 1 <= d <= 2^31. Plain C, so that the
   host tests check it; on the device the multiply-high is __umulhi. */
#ifndef HC_FASTDIV_H
#define HC_FASTDIV_H

#include <stdint.h>

#ifdef __CUDACC__
#define HC_FASTDIV_FN __host__ __device__ static inline
#else
#define HC_FASTDIV_FN static inline
#endif

typedef struct hc_fastdiv {
  uint32_t d;      /* the divisor */
  uint32_t m;      /* 2^32 (2^l - d) / d + 1, l = ceil(log2 d) */
  uint32_t s1, s2; /* min(l, 1), max(l - 1, 0) */
} hc_fastdiv;

/* The divider for 1 <= d <= 2^31. */
HC_FASTDIV_FN hc_fastdiv hc_fastdiv_make(uint32_t d) {
  uint32_t l = 0;
  while (l < 32 && ((uint64_t)1 << l) < d) l++;
  hc_fastdiv f;
  f.d = d;
  f.m = (uint32_t)((((uint64_t)1 << 32) * (((uint64_t)1 << l) - d)) / d + 1);
  f.s1 = l < 1 ? l : 1;
  f.s2 = l > 1 ? l - 1 : 0;
  return f;
}

/* n / d. */
HC_FASTDIV_FN uint32_t hc_fastdiv_div(hc_fastdiv f, uint32_t n) {
#ifdef __CUDA_ARCH__
  const uint32_t t = __umulhi(f.m, n);
#else
  const uint32_t t = (uint32_t)(((uint64_t)f.m * n) >> 32);
#endif
  return (t + ((n - t) >> f.s1)) >> f.s2;
}

#endif
