/* The register tiles of the OpenMP backend's packed GEMM of one cell-major FieldField cell, for one precision:
   included once per precision (with HC_REAL and HC_FN(name)) by contract_openmp.c, whose contraction packs each
   cell's right fields into a panel (contract_openmp_impl.h), and by celldata_openmp.c, whose fused assembly
   forms the panel itself. The tile sizes are kernels/openmp/hc_omp_gemm.h's. */

/* Scalars in one 64-byte vector: the SIMD length asked for in the register-blocked loops. */
#define HC_OMP_GEMM_W (64 / sizeof(HC_REAL))

/* One micro-tile: acc[i][j] = sum_q a[i][q] bt[q][r + j] for MR rows of A (HC_OMP_MR or HC_OMP_MR_BIG, a
   constant once inlined) and HC_OMP_NR columns from r, accumulated in registers, then stored into O[i][r + j] for
   i < mr, r + j < R (added to it when add). Rows i >= mr repeat row mr - 1, so that the last, partial tile runs
   the same code. a: [mr][K] from column q0, bt: [kb][rp], O: [mr][R]. Asks for the next run of lines of ahead
   (NULL: none) along the way, one or two per entry of K. */
static HC_ALWAYS_INLINE void HC_FN(hc_ff_tile_openmp)(const int MR, int64_t mr, const HC_REAL *restrict a, int64_t K,
                                                      const HC_REAL *restrict bt, int64_t kb, int64_t rp, int64_t r,
                                                      int64_t R, HC_REAL *restrict O, int add, hc_ff_ahead *ahead) {
  enum { MR_MAX = HC_OMP_MR_BIG > HC_OMP_MR ? HC_OMP_MR_BIG : HC_OMP_MR };
  int64_t npf;
  const char *pf = hc_ff_ahead_take(ahead, &npf);
  const int two = npf > kb;
  const int64_t pf_step = two ? 128 : 64, pf_n = two ? (npf + 1) / 2 : npf;
  const HC_REAL *ai[MR_MAX];
  for (int i = 0; i < MR; i++) ai[i] = a + (i < mr ? i : mr - 1) * K;
  HC_REAL acc[MR_MAX][HC_OMP_NR];
  for (int i = 0; i < MR; i++) {
#pragma omp simd simdlen(HC_OMP_GEMM_W)
    for (int j = 0; j < HC_OMP_NR; j++) acc[i][j] = 0;
  }
  /* One entry of K: acc[i][j] += a[i][q] bt[q][r + j]. */
#define HC_FF_TILE_STEP(q)                                                                       \
  do {                                                                                           \
    const HC_REAL *b = bt + (q)*rp + r;                                                          \
    for (int i = 0; i < MR; i++) {                                                               \
      const HC_REAL aiq = ai[i][q];                                                              \
      _Pragma("omp simd simdlen(HC_OMP_GEMM_W)") for (int j = 0; j < HC_OMP_NR; j++) acc[i][j] = \
          HC_FMA(aiq, b[j], acc[i][j]);                                                          \
    }                                                                                            \
  } while (0)
  /* The entries that ask for lines, then the rest in a loop of their own, as fast as without them. */
  int64_t q = 0;
  for (; q < pf_n && q < kb; q++) {
    HC_PREFETCH_L2(pf + q * pf_step);
    if (two) HC_PREFETCH_L2(pf + q * pf_step + 64);
    HC_FF_TILE_STEP(q);
  }
  for (; q < kb; q++) HC_FF_TILE_STEP(q);
#undef HC_FF_TILE_STEP
  const int64_t nr = R - r < HC_OMP_NR ? R - r : HC_OMP_NR;
  for (int64_t i = 0; i < mr; i++) {
    HC_REAL *o = O + i * R + r;
    if (add) {
      for (int64_t j = 0; j < nr; j++) o[j] += acc[i][j];
    } else {
      for (int64_t j = 0; j < nr; j++) o[j] = acc[i][j];
    }
  }
}

/* The tiles of MR rows (a constant once inlined) over L rows. */
static HC_ALWAYS_INLINE void HC_FN(hc_ff_panel_rows_openmp)(const int MR, const HC_REAL *restrict A, int64_t K,
                                                            const HC_REAL *restrict bt, int64_t kb, int64_t rp,
                                                            HC_REAL *restrict O, int64_t L, int64_t R, int add,
                                                            hc_ff_ahead *ahead) {
  for (int64_t l = 0; l < L; l += MR) {
    const int64_t mr = L - l < MR ? L - l : MR;
    for (int64_t r = 0; r < R; r += HC_OMP_NR)
      HC_FN(hc_ff_tile_openmp)(MR, mr, A + l * K, K, bt, kb, rp, r, R, O + l * R, add, ahead);
  }
}

/* O (+)= A B^T over one packed panel of B^T (bt: [kb][rp], columns past R zero), in register tiles of
   HC_OMP_MR or HC_OMP_MR_BIG rows (hc_ff_tile_rows_openmp) x HC_OMP_NR outputs taking outer products along its kb
   entries. A: [L] rows of stride K, from the panel's first column; O: [L][R], added to when add. Each tile asks
   for its run of ahead's lines (NULL: none). */
static void HC_FN(hc_ff_panel_tiles_openmp)(const HC_REAL *restrict A, int64_t K, const HC_REAL *restrict bt,
                                            int64_t kb, int64_t rp, HC_REAL *restrict O, int64_t L, int64_t R, int add,
                                            hc_ff_ahead *ahead) {
#if HC_OMP_MR_BIG != HC_OMP_MR
  if (hc_ff_tile_rows_openmp(L, kb) == HC_OMP_MR_BIG) {
    HC_FN(hc_ff_panel_rows_openmp)(HC_OMP_MR_BIG, A, K, bt, kb, rp, O, L, R, add, ahead);
    return;
  }
#endif
  HC_FN(hc_ff_panel_rows_openmp)(HC_OMP_MR, A, K, bt, kb, rp, O, L, R, add, ahead);
}

#undef HC_OMP_GEMM_W
