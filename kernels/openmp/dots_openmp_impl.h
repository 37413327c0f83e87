/* The OpenMP backend's dot-product contraction of one cell, for one precision: included once per precision (with
   HC_REAL and HC_FN(name)) by contract_openmp.c and by celldata_openmp.c, whose fused assembly contracts with it. */

/* One cell's O = A B^T by dot products, for the FieldField of few left fields where packing does not pay and for the
   fused assembly's cells: each (l, 4 r) as
   four dot products along K, each left entry loaded once for four products. A: [L][K], B: [R][K], O: [L][R]. */
static void HC_FN(hc_ff_cell_dots_openmp)(const HC_REAL *restrict A, const HC_REAL *restrict B, HC_REAL *restrict O,
                                          int64_t L, int64_t R, int64_t K, int sum_into) {
  for (int64_t l = 0; l < L; l++) {
    const HC_REAL *a = A + l * K;
    int64_t r = 0;
    for (; r + 4 <= R; r += 4) {
      const HC_REAL *b0 = B + r * K, *b1 = b0 + K, *b2 = b1 + K, *b3 = b2 + K;
      HC_REAL s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
      for (int64_t q = 0; q < K; q++) {
        s0 += a[q] * b0[q];
        s1 += a[q] * b1[q];
        s2 += a[q] * b2[q];
        s3 += a[q] * b3[q];
      }
      HC_REAL *o = O + l * R + r;
      if (sum_into) {
        o[0] += s0, o[1] += s1, o[2] += s2, o[3] += s3;
      } else {
        o[0] = s0, o[1] = s1, o[2] = s2, o[3] = s3;
      }
    }
    for (; r < R; r++) {
      const HC_REAL *b = B + r * K;
      HC_REAL s = 0;
#pragma omp simd reduction(+ : s)
      for (int64_t q = 0; q < K; q++) s += a[q] * b[q];
      O[l * R + r] = sum_into ? O[l * R + r] + s : s;
    }
  }
}
