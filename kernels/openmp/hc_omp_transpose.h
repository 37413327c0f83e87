/* 8 x 8 transposes in vector registers, for the packing of the OpenMP backend's cell-major FieldField panels
   (contract_openmp_impl.h): dst[j * dld + i] = src[i * sld + j] for i, j < 8. With AVX-512 (double) or AVX
   (float) the block is eight row loads, 24 shuffles and eight row stores, where the compiler made 64 scalar loads
   and stores of the portable loops (HC_OMP_T8_PORTABLE, the others' block); HC_OMP_T8_DOUBLE and HC_OMP_T8_FLOAT
   say which ones this build has. */
#ifndef HC_OMP_TRANSPOSE_H
#define HC_OMP_TRANSPOSE_H

#include <stdint.h>

#if defined(__AVX512F__) || defined(__AVX__)
#include <immintrin.h>
#endif

/* The portable block: eight rows' runs of 8 entries read, then written as eight runs of dst (staged in t). */
#define HC_OMP_T8_PORTABLE(T)                                                   \
  T t[8][8];                                                                    \
  for (int i = 0; i < 8; i++) {                                                 \
    _Pragma("omp simd") for (int j = 0; j < 8; j++) t[i][j] = src[i * sld + j]; \
  }                                                                             \
  for (int j = 0; j < 8; j++) {                                                 \
    _Pragma("omp simd") for (int i = 0; i < 8; i++) dst[j * dld + i] = t[i][j]; \
  }

#if defined(__AVX512F__)
#define HC_OMP_T8_DOUBLE 1
static inline void hc_transpose8_f64(const double *restrict src, int64_t sld, double *restrict dst, int64_t dld) {
  __m512d r[8], t[8], u[8];
  for (int i = 0; i < 8; i++) r[i] = _mm512_loadu_pd(src + i * sld);
  /* t[2k] = (x[2k][0], x[2k+1][0], x[2k][2], x[2k+1][2], ...), t[2k+1] the odd columns likewise */
  for (int k = 0; k < 4; k++) {
    t[2 * k] = _mm512_unpacklo_pd(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_pd(r[2 * k], r[2 * k + 1]);
  }
  /* u: four rows' entries of columns (j, j + 4) per vector, j = 0, 2, 1, 3 for rows 0-3 and again for rows 4-7 */
  const __m512i lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  for (int h = 0; h < 2; h++) {
    const __m512d *a = t + 4 * h;
    __m512d *b = u + 4 * h;
    b[0] = _mm512_permutex2var_pd(a[0], lo, a[2]); /* columns 0 and 4 */
    b[1] = _mm512_permutex2var_pd(a[0], hi, a[2]); /* columns 2 and 6 */
    b[2] = _mm512_permutex2var_pd(a[1], lo, a[3]); /* columns 1 and 5 */
    b[3] = _mm512_permutex2var_pd(a[1], hi, a[3]); /* columns 3 and 7 */
  }
  /* Column j of rows 0-3 is the low half of u[...] and of rows 4-7 that of u[4 + ...]; column j + 4 the high. */
  static const int col[4] = {0, 2, 1, 3};
  for (int m = 0; m < 4; m++) {
    _mm512_storeu_pd(dst + col[m] * dld, _mm512_shuffle_f64x2(u[m], u[4 + m], 0x44));
    _mm512_storeu_pd(dst + (col[m] + 4) * dld, _mm512_shuffle_f64x2(u[m], u[4 + m], 0xEE));
  }
}
#else
#define HC_OMP_T8_DOUBLE 0
static inline void hc_transpose8_f64(const double *restrict src, int64_t sld, double *restrict dst, int64_t dld) {
  HC_OMP_T8_PORTABLE(double);
}
#endif

#if defined(__AVX__)
#define HC_OMP_T8_FLOAT 1
static inline void hc_transpose8_f32(const float *restrict src, int64_t sld, float *restrict dst, int64_t dld) {
  __m256 r[8], t[8], u[8];
  for (int i = 0; i < 8; i++) r[i] = _mm256_loadu_ps(src + i * sld);
  for (int k = 0; k < 4; k++) {
    t[2 * k] = _mm256_unpacklo_ps(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm256_unpackhi_ps(r[2 * k], r[2 * k + 1]);
  }
  for (int h = 0; h < 2; h++) {
    const __m256 *a = t + 4 * h;
    __m256 *b = u + 4 * h;
    b[0] = _mm256_shuffle_ps(a[0], a[2], _MM_SHUFFLE(1, 0, 1, 0)); /* columns 0 and 4 of four rows */
    b[1] = _mm256_shuffle_ps(a[0], a[2], _MM_SHUFFLE(3, 2, 3, 2)); /* columns 1 and 5 */
    b[2] = _mm256_shuffle_ps(a[1], a[3], _MM_SHUFFLE(1, 0, 1, 0)); /* columns 2 and 6 */
    b[3] = _mm256_shuffle_ps(a[1], a[3], _MM_SHUFFLE(3, 2, 3, 2)); /* columns 3 and 7 */
  }
  for (int m = 0; m < 4; m++) {
    _mm256_storeu_ps(dst + m * dld, _mm256_permute2f128_ps(u[m], u[4 + m], 0x20));
    _mm256_storeu_ps(dst + (m + 4) * dld, _mm256_permute2f128_ps(u[m], u[4 + m], 0x31));
  }
}
#else
#define HC_OMP_T8_FLOAT 0
static inline void hc_transpose8_f32(const float *restrict src, int64_t sld, float *restrict dst, int64_t dld) {
  HC_OMP_T8_PORTABLE(float);
}
#endif

#endif
