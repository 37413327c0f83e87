/* The OpenMP backend's contraction of one cell-major FieldField cell where the packed GEMM's panel does not pay (few
   fields), for one precision: included once per precision (with HC_REAL and HC_FN(name)) by contract_openmp.c and by
   celldata_openmp.c, whose fused assembly contracts with it. */

/* dst[j * dld + i] = src[i * sld + j] for i, j < 8: hc_omp_transpose.h's block of this precision. */
static inline void HC_FN(hc_transpose8_openmp)(const HC_REAL *restrict src, int64_t sld, HC_REAL *restrict dst,
                                               int64_t dld) {
  if (sizeof(HC_REAL) == 8) {
    hc_transpose8_f64((const double *)src, sld, (double *)dst, dld);
  } else {
    hc_transpose8_f32((const float *)src, sld, (float *)dst, dld);
  }
}

/* Rows of A per register tile of the narrow path: eight rows, each one vector of HC_OMP_NARROW outputs. */
#define HC_OMP_NARROW_MR 8

/* One cell's O = A B^T for at most HC_OMP_NARROW right fields (hc_omp_gemm.h): B^T packed into a panel of one vector
   per entry of K (8 x 8 blocks transposed in vector registers where R = 8, hc_omp_transpose.h; columns past R zero),
   HC_OMP_NARROW_KB entries at a time, and each tile of eight rows of A taken as outer products along it, every panel
   row loaded once for eight FMAs; each output sums its K products in order. A: [L][K], B: [R][K], O: [L][R]. */
static void HC_FN(hc_ff_cell_narrow_openmp)(const HC_REAL *restrict A, const HC_REAL *restrict B, HC_REAL *restrict O,
                                            int64_t L, int64_t R, int64_t K, int sum_into) {
  enum { NW = HC_OMP_NARROW, MR = HC_OMP_NARROW_MR, KB = HC_OMP_NARROW_KB };
  HC_REAL bt[KB * NW] __attribute__((aligned(64)));
  const int once = K <= KB; /* one panel serves every tile of rows */
  for (int64_t l0 = 0; l0 < L; l0 += MR) {
    const int64_t mr = L - l0 < MR ? L - l0 : MR;
    const HC_REAL *ai[MR]; /* rows past mr repeat the last, so that a partial tile runs the same code */
    for (int i = 0; i < MR; i++) ai[i] = A + (l0 + (i < mr ? i : mr - 1)) * K;
    HC_REAL acc[MR][NW];
    for (int i = 0; i < MR; i++) {
#pragma omp simd simdlen(NW)
      for (int j = 0; j < NW; j++) acc[i][j] = 0;
    }
    for (int64_t q0 = 0; q0 < K; q0 += KB) {
      const int64_t kb = K - q0 < KB ? K - q0 : KB;
      if (!once || l0 == 0) {
        int64_t q = 0;
        if (R == NW) {
          for (; q + 8 <= kb; q += 8) HC_FN(hc_transpose8_openmp)(B + q0 + q, K, bt + q * NW, NW);
        }
        /* the row's entries, then zeros: a loop over all NW columns with the entry only where r < R was vectorised
           with masked loads at B + r K for every r, whose masked-off lanes past the array's end, when they fall on
           an unmapped page, cost an assist each (a fused DataData kernel, R = 1, measured 10-20x slower) */
        for (; q < kb; q++) {
          HC_REAL *row = bt + q * NW;
          for (int64_t r = 0; r < NW; r++) row[r] = 0;
          for (int64_t r = 0; r < R; r++) row[r] = B[r * K + q0 + q];
        }
      }
      for (int64_t q = 0; q < kb; q++) {
        const HC_REAL *b = bt + q * NW;
        for (int i = 0; i < MR; i++) {
          const HC_REAL a = ai[i][q0 + q];
#pragma omp simd simdlen(NW)
          for (int j = 0; j < NW; j++) acc[i][j] = HC_FMA(a, b[j], acc[i][j]);
        }
      }
    }
    for (int64_t i = 0; i < mr; i++) {
      HC_REAL *o = O + (l0 + i) * R;
      if (sum_into) {
        for (int64_t j = 0; j < R; j++) o[j] += acc[i][j];
      } else {
        for (int64_t j = 0; j < R; j++) o[j] = acc[i][j];
      }
    }
  }
}

/* One cell's O = A B^T by dot products, for more than HC_OMP_NARROW right fields: each (l, 4 r) as
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

/* One cell's O = A B^T for few fields: the narrow panel for at most HC_OMP_NARROW right fields, else dot products. */
static inline void HC_FN(hc_ff_cell_small_openmp)(const HC_REAL *restrict A, const HC_REAL *restrict B,
                                                  HC_REAL *restrict O, int64_t L, int64_t R, int64_t K, int sum_into) {
  if (R <= HC_OMP_NARROW) {
    HC_FN(hc_ff_cell_narrow_openmp)(A, B, O, L, R, K, sum_into);
  } else {
    HC_FN(hc_ff_cell_dots_openmp)(A, B, O, L, R, K, sum_into);
  }
}

#undef HC_OMP_NARROW_MR
