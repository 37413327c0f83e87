/* The OpenMP contractions for one precision: included once per precision by contract_openmp.c with
   HC_REAL and HC_FN(name). Cell-major arrays: threads take cells, and each cell's small products
   are vectorised along the contiguous contracted index, four right fields at a time so that each
   left entry loaded serves four products. Cell-minor arrays: threads take blocks of HC_OMP_CB
   cells, and the innermost loop runs over the cells of a block, contiguous in every array. */

/* Scalars in one 64-byte vector: the SIMD length asked for in the register-blocked loops. */
#define HC_OMP_W (64 / sizeof(HC_REAL))

static void HC_FN(hc_datadata_omp)(const hc_contract *k, const HC_REAL *restrict left, const HC_REAL *restrict right,
                                   HC_REAL *restrict out) {
  const int64_t C = k->C, K = hc_contract_K(k);
  const int sum_into = k->sum_into;
  if (k->layout == HC_LAYOUT_CELL_MAJOR) {
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < C; c++) {
      const HC_REAL *a = left + c * K, *b = right + c * K;
      HC_REAL sum = 0;
#pragma omp simd reduction(+ : sum)
      for (int64_t q = 0; q < K; q++) sum += a[q] * b[q];
      out[c] = sum_into ? out[c] + sum : sum;
    }
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t c0 = 0; c0 < C; c0 += HC_OMP_CB) {
    const int64_t nc = C - c0 < HC_OMP_CB ? C - c0 : HC_OMP_CB;
    HC_REAL acc[HC_OMP_CB] = {0};
    for (int64_t q = 0; q < K; q++) {
      const HC_REAL *a = left + q * C + c0, *b = right + q * C + c0;
#pragma omp simd
      for (int64_t c = 0; c < nc; c++) acc[c] += a[c] * b[c];
    }
    for (int64_t c = 0; c < nc; c++) out[c0 + c] = sum_into ? out[c0 + c] + acc[c] : acc[c];
  }
}

static void HC_FN(hc_datafield_omp)(const hc_contract *k, const HC_REAL *restrict fields, const HC_REAL *restrict data,
                                    HC_REAL *restrict out) {
  const int64_t C = k->C, L = k->L, P = k->P, K = hc_contract_K(k), Dr = K / P;
  const int64_t Kd = (int64_t)k->P_data * Dr;
  const int sum_into = k->sum_into, constant = k->P_data == 1 && P > 1;
  if (k->layout == HC_LAYOUT_CELL_MAJOR) {
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < C; c++) {
      const HC_REAL *d = data + c * Kd;
      for (int64_t l = 0; l < L; l++) {
        const HC_REAL *f = fields + (c * L + l) * K;
        HC_REAL sum = 0;
        if (constant) {
          /* sum_e d[e] * (sum_p f[p, e]): the data is the same at every point. */
          for (int64_t e = 0; e < Dr; e++) {
            HC_REAL fe = 0;
            for (int64_t p = 0; p < P; p++) fe += f[p * Dr + e];
            sum += fe * d[e];
          }
        } else {
#pragma omp simd reduction(+ : sum)
          for (int64_t q = 0; q < K; q++) sum += f[q] * d[q];
        }
        out[c * L + l] = sum_into ? out[c * L + l] + sum : sum;
      }
    }
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t c0 = 0; c0 < C; c0 += HC_OMP_CB) {
    const int64_t nc = C - c0 < HC_OMP_CB ? C - c0 : HC_OMP_CB;
    for (int64_t l = 0; l < L; l++) {
      HC_REAL acc[HC_OMP_CB] = {0};
      for (int64_t q = 0; q < K; q++) {
        const HC_REAL *f = fields + (l * K + q) * C + c0;
        const HC_REAL *d = data + (constant ? q % Dr : q) * C + c0;
#pragma omp simd
        for (int64_t c = 0; c < nc; c++) acc[c] += f[c] * d[c];
      }
      HC_REAL *o = out + l * C + c0;
      for (int64_t c = 0; c < nc; c++) o[c] = sum_into ? o[c] + acc[c] : acc[c];
    }
  }
}

/* The right fields of one cell, transposed into a panel: bt[q][r] = B[r][q0 + q] for q < kb, with the
   columns r >= R zero up to rp, a multiple of HC_OMP_NR. B: [R][K]. */
static void HC_FN(hc_ff_pack_omp)(const HC_REAL *restrict B, int64_t R, int64_t K, int64_t q0, int64_t kb, int64_t rp,
                                  HC_REAL *restrict bt) {
  /* B is read row by row, in memory order; the panel is small enough to be written in cache. */
  for (int64_t r = 0; r < R; r++) {
    for (int64_t q = 0; q < kb; q++) bt[q * rp + r] = B[r * K + q0 + q];
  }
  for (int64_t q = 0; q < kb; q++) {
    for (int64_t r = R; r < rp; r++) bt[q * rp + r] = 0;
  }
}

/* One micro-tile: acc[i][j] = sum_q a[i][q] bt[q][r + j] for HC_OMP_MR rows of A and HC_OMP_NR columns
   from r, accumulated in registers, then stored into O[i][r + j] for i < mr, r + j < R (added to it when
   add). Rows i >= mr repeat row mr - 1, so that the last, partial tile runs the same code. a: [mr][K] from
   column q0, bt: [kb][rp], O: [mr][R]. */
static inline void HC_FN(hc_ff_tile_omp)(int64_t mr, const HC_REAL *restrict a, int64_t K, const HC_REAL *restrict bt,
                                         int64_t kb, int64_t rp, int64_t r, int64_t R, HC_REAL *restrict O, int add) {
  const HC_REAL *ai[HC_OMP_MR];
  for (int i = 0; i < HC_OMP_MR; i++) ai[i] = a + (i < mr ? i : mr - 1) * K;
  HC_REAL acc[HC_OMP_MR][HC_OMP_NR];
  for (int i = 0; i < HC_OMP_MR; i++) {
#pragma omp simd simdlen(HC_OMP_W)
    for (int j = 0; j < HC_OMP_NR; j++) acc[i][j] = 0;
  }
  for (int64_t q = 0; q < kb; q++) {
    const HC_REAL *b = bt + q * rp + r;
    for (int i = 0; i < HC_OMP_MR; i++) {
      const HC_REAL aiq = ai[i][q];
#pragma omp simd simdlen(HC_OMP_W)
      for (int j = 0; j < HC_OMP_NR; j++) acc[i][j] = HC_FMA(aiq, b[j], acc[i][j]);
    }
  }
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

/* Cell-major FieldField of one cell with few left fields, where packing does not pay: each (l, 4 r) as
   four dot products along K, each left entry loaded once for four products. A: [L][K], B: [R][K], O: [L][R]. */
static void HC_FN(hc_ff_cell_dots_omp)(const HC_REAL *restrict A, const HC_REAL *restrict B, HC_REAL *restrict O,
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

/* Cell-major FieldField of one cell as a small GEMM, O = A B^T: B^T is packed into a panel of at most
   HC_OMP_KB rows of K at a time, and register tiles of HC_OMP_MR x HC_OMP_NR outputs take outer
   products along K. A: [L][K], B: [R][K], O: [L][R]; bt: HC_OMP_KB x rp scalars. */
static void HC_FN(hc_ff_cell_omp)(const HC_REAL *restrict A, const HC_REAL *restrict B, HC_REAL *restrict O, int64_t L,
                                  int64_t R, int64_t K, int sum_into, HC_REAL *restrict bt) {
  const int64_t rp = (R + HC_OMP_NR - 1) / HC_OMP_NR * HC_OMP_NR;
  for (int64_t q0 = 0; q0 < K; q0 += HC_OMP_KB) {
    const int64_t kb = K - q0 < HC_OMP_KB ? K - q0 : HC_OMP_KB;
    const int add = sum_into || q0 > 0;
    HC_FN(hc_ff_pack_omp)(B, R, K, q0, kb, rp, bt);
    for (int64_t l = 0; l < L; l += HC_OMP_MR) {
      const int64_t mr = L - l < HC_OMP_MR ? L - l : HC_OMP_MR;
      for (int64_t r = 0; r < R; r += HC_OMP_NR)
        HC_FN(hc_ff_tile_omp)(mr, A + l * K + q0, K, bt, kb, rp, r, R, O + l * R, add);
    }
  }
}

/* work: hc_ff_work_omp(k) scalars per thread. */
static void HC_FN(hc_fieldfield_omp)(const hc_contract *k, const HC_REAL *restrict left, const HC_REAL *restrict right,
                                     HC_REAL *restrict out, HC_REAL *work) {
  const int64_t C = k->C, L = k->L, R = k->R, K = hc_contract_K(k);
  const int sum_into = k->sum_into;
  if (k->layout == HC_LAYOUT_CELL_MAJOR) {
#pragma omp parallel
    {
      HC_REAL *bt = work + (int64_t)omp_get_thread_num() * hc_ff_work_omp(k);
#pragma omp for schedule(static)
      for (int64_t c = 0; c < C; c++) {
        const HC_REAL *A = left + c * L * K, *B = right + c * R * K;
        HC_REAL *O = out + c * L * R;
        if (L >= HC_OMP_FF_GEMM_L) {
          HC_FN(hc_ff_cell_omp)(A, B, O, L, R, K, sum_into, bt);
        } else {
          HC_FN(hc_ff_cell_dots_omp)(A, B, O, L, R, K, sum_into);
        }
      }
    }
    return;
  }
  /* Cell-minor: for each left entry A[l,q,block], update all R accumulators of the block, so each
     left entry is loaded once; the accumulators (R x HC_OMP_CB_FF) stay in L1. */
#pragma omp parallel
  {
    HC_REAL *acc = work + (int64_t)omp_get_thread_num() * R * HC_OMP_CB_FF;
#pragma omp for schedule(static)
    for (int64_t c0 = 0; c0 < C; c0 += HC_OMP_CB_FF) {
      const int64_t nc = C - c0 < HC_OMP_CB_FF ? C - c0 : HC_OMP_CB_FF;
      for (int64_t l = 0; l < L; l++) {
        for (int64_t i = 0; i < R * HC_OMP_CB_FF; i++) acc[i] = 0;
        for (int64_t q = 0; q < K; q++) {
          const HC_REAL *a = left + (l * K + q) * C + c0;
          for (int64_t r = 0; r < R; r++) {
            const HC_REAL *b = right + (r * K + q) * C + c0;
            HC_REAL *ar = acc + r * HC_OMP_CB_FF;
#pragma omp simd
            for (int64_t c = 0; c < nc; c++) ar[c] += a[c] * b[c];
          }
        }
        for (int64_t r = 0; r < R; r++) {
          HC_REAL *o = out + (l * R + r) * C + c0;
          const HC_REAL *ar = acc + r * HC_OMP_CB_FF;
          for (int64_t c = 0; c < nc; c++) o[c] = sum_into ? o[c] + ar[c] : ar[c];
        }
      }
    }
  }
}

static void HC_FN(hc_contract_omp)(const hc_contract *k, const void *left, const void *right, void *out, void *work) {
  switch (hc_kernel_family(k->kernel)) {
    case HC_FAMILY_DATADATA:
      HC_FN(hc_datadata_omp)(k, (const HC_REAL *)left, (const HC_REAL *)right, (HC_REAL *)out);
      break;
    case HC_FAMILY_DATAFIELD:
      HC_FN(hc_datafield_omp)(k, (const HC_REAL *)left, (const HC_REAL *)right, (HC_REAL *)out);
      break;
    case HC_FAMILY_FIELDFIELD:
      HC_FN(hc_fieldfield_omp)(k, (const HC_REAL *)left, (const HC_REAL *)right, (HC_REAL *)out, (HC_REAL *)work);
      break;
  }
}

#undef HC_OMP_W
