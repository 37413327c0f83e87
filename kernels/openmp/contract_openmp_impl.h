/* The OpenMP contractions for one precision: included once per precision by contract_openmp.c with
   HC_REAL and HC_FN(name). Cell-major arrays: threads take cells, and each cell's small products
   are vectorised along the contiguous contracted index, four right fields at a time so that each
   left entry loaded serves four products. Cell-minor arrays: threads take blocks of cells, and the
   innermost loop runs over the cells of a block, contiguous in every array; FieldField packs each block's
   fields and multiplies them in register tiles vectorised over the cells. */

/* Scalars in one 64-byte vector: the SIMD length asked for in the register-blocked loops. */
#define HC_OMP_W (64 / sizeof(HC_REAL))
/* Cells in one cell-minor FieldField micro-tile: two 64-byte vectors. */
#define HC_OMP_NV (128 / (int)sizeof(HC_REAL))

/* acc[c] += a[c] * b[c] for c < n, a row of a cell-minor block; while it runs, the next rows pa and pb
   (NULL for none) are fetched into the cache, 64-byte line by line, a little ahead of their use: rows of a
   block lie in different pages, where the hardware prefetchers stop. */
static inline void HC_FN(hc_row_fma_openmp)(int64_t n, const HC_REAL *restrict a, const HC_REAL *restrict b,
                                            HC_REAL *restrict acc, const HC_REAL *pa, const HC_REAL *pb) {
  const int64_t line = 64 / (int64_t)sizeof(HC_REAL), chunk = 8 * line;
  for (int64_t c0 = 0; c0 < n; c0 += chunk) {
    const int64_t c1 = n - c0 < chunk ? n : c0 + chunk;
    if (pa) {
      for (int64_t c = c0; c < c1; c += line) HC_PREFETCH(pa + c);
    }
    if (pb) {
      for (int64_t c = c0; c < c1; c += line) HC_PREFETCH(pb + c);
    }
#pragma omp simd
    for (int64_t c = c0; c < c1; c++) acc[c] = HC_FMA(a[c], b[c], acc[c]);
  }
}

/* acc[c] += a[c] b0[c] + a[C + c] b1[c] + a[2C + c] b2[c] + a[3C + c] b3[c] for c < n: four rows of a cell-minor
   block at once (a: four rows C apart), eight sequential streams in flight and the accumulators read and
   written once per four rows. */
static inline void HC_FN(hc_row4_fma_openmp)(int64_t n, const HC_REAL *restrict a, int64_t C,
                                             const HC_REAL *restrict b0, const HC_REAL *restrict b1,
                                             const HC_REAL *restrict b2, const HC_REAL *restrict b3,
                                             HC_REAL *restrict acc) {
#pragma omp simd
  for (int64_t c = 0; c < n; c++)
    acc[c] += (a[c] * b0[c] + a[C + c] * b1[c]) + (a[2 * C + c] * b2[c] + a[3 * C + c] * b3[c]);
}

/* Cell-minor DataField: the row of the data for entry q of K at the block of cells from c0 (with constant data,
   entry q % Dr of the one point). */
static inline const HC_REAL *HC_FN(hc_df_data_row)(const HC_REAL *data, int64_t q, int constant, int64_t Dr, int64_t C,
                                                   int64_t c0) {
  return data + (constant ? q % Dr : q) * C + c0;
}

/* o[c] = acc[c] for c < n, or o[c] += acc[c] when add: a row of a cell-minor block written out. */
static inline void HC_FN(hc_row_store_openmp)(int64_t n, HC_REAL *restrict o, const HC_REAL *restrict acc, int add) {
  if (add) {
#pragma omp simd
    for (int64_t c = 0; c < n; c++) o[c] += acc[c];
  } else {
#pragma omp simd
    for (int64_t c = 0; c < n; c++) o[c] = acc[c];
  }
}

static void HC_FN(hc_datadata_openmp)(const hc_contract *k, const HC_REAL *restrict left, const HC_REAL *restrict right,
                                      HC_REAL *restrict out) {
  const int64_t C = k->C, K = hc_contract_K(k);
  const int sum_into = k->sum_into;
  if (k->layout == HC_LAYOUT_CELL_MAJOR && K * (int64_t)sizeof(HC_REAL) <= 32) {
    /* At most 32 bytes per cell: a vector reduction per cell costs more than its bytes; eight cells at a time,
       vectorised over the cells, each summing its K entries in order (one core of the CI-class VM, float, P = 8:
       24-37% -> 61-67% of the copy roofline; for double at P = 8 the reduction per cell is the faster). */
#pragma omp parallel for schedule(static)
    for (int64_t c0 = 0; c0 < C; c0 += 8) {
      const int64_t nc = C - c0 < 8 ? C - c0 : 8;
      HC_REAL sum[8] = {0};
      for (int64_t q = 0; q < K; q++) {
#pragma omp simd
        for (int64_t c = 0; c < nc; c++) sum[c] += left[(c0 + c) * K + q] * right[(c0 + c) * K + q];
      }
      for (int64_t c = 0; c < nc; c++) out[c0 + c] = sum_into ? out[c0 + c] + sum[c] : sum[c];
    }
    return;
  }
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
  /* Cell-minor: [K][C]; each row of a block is HC_OMP_CB_DD contiguous cells. */
  const int64_t cb = hc_minor_block_openmp(C, HC_OMP_CB_DD);
#pragma omp parallel for schedule(static)
  for (int64_t c0 = 0; c0 < C; c0 += cb) {
    const int64_t nc = C - c0 < cb ? C - c0 : cb;
    HC_REAL acc[HC_OMP_CB_DD];
#pragma omp simd
    for (int64_t c = 0; c < nc; c++) acc[c] = 0;
    int64_t q = 0;
    /* Four rows at a time, then the rows left one at a time. */
    for (; q + 4 <= K; q += 4) {
      const HC_REAL *b = right + q * C + c0;
      HC_FN(hc_row4_fma_openmp)(nc, left + q * C + c0, C, b, b + C, b + 2 * C, b + 3 * C, acc);
    }
    for (; q < K; q++) {
      const HC_REAL *a = left + q * C + c0, *b = right + q * C + c0;
      HC_FN(hc_row_fma_openmp)(nc, a, b, acc, q + 1 < K ? a + C : NULL, q + 1 < K ? b + C : NULL);
    }
    HC_FN(hc_row_store_openmp)(nc, out + c0, acc, sum_into);
  }
}

static void HC_FN(hc_datafield_openmp)(const hc_contract *k, const HC_REAL *restrict fields,
                                       const HC_REAL *restrict data, HC_REAL *restrict out) {
  const int64_t C = k->C, L = k->L, P = k->P, K = hc_contract_K(k), Dr = K / P;
  const int64_t Kd = (int64_t)k->P_data * Dr;
  const int sum_into = k->sum_into, constant = k->P_data == 1 && P > 1;
  if (k->layout == HC_LAYOUT_CELL_MAJOR) {
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < C; c++) {
      const HC_REAL *d = data + c * Kd;
      hc_prefetch_ahead(d, Kd * (int64_t)sizeof(HC_REAL));
      for (int64_t l = 0; l < L; l++) {
        const HC_REAL *f = fields + (c * L + l) * K;
        hc_prefetch_ahead(f, K * (int64_t)sizeof(HC_REAL));
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
  /* Cell-minor: fields [L][K][C], data [K_data][C], out [L][C]. Blocks of HC_OMP_CB_DF cells, K in chunks
     of HC_OMP_KB_DF so that the chunk's data rows stay in cache while every field row streams past them; the
     outputs of the block are written by the first chunk and added to by the others. */
  const int64_t cb = hc_minor_block_openmp(C, HC_OMP_CB_DF);
#pragma omp parallel for schedule(static)
  for (int64_t c0 = 0; c0 < C; c0 += cb) {
    const int64_t nc = C - c0 < cb ? C - c0 : cb;
    for (int64_t q0 = 0; q0 < K; q0 += HC_OMP_KB_DF) {
      const int64_t q1 = K - q0 < HC_OMP_KB_DF ? K : q0 + HC_OMP_KB_DF;
      const int add = sum_into || q0 > 0;
      for (int64_t l = 0; l < L; l++) {
        HC_REAL acc[HC_OMP_CB_DF];
#pragma omp simd
        for (int64_t c = 0; c < nc; c++) acc[c] = 0;
        int64_t q = q0;
        /* Four rows at a time, as in DataData, then the rows left one at a time. */
        for (; q + 4 <= q1; q += 4) {
          const HC_REAL *d[4];
          for (int i = 0; i < 4; i++) d[i] = HC_FN(hc_df_data_row)(data, q + i, constant, Dr, C, c0);
          HC_FN(hc_row4_fma_openmp)(nc, fields + (l * K + q) * C + c0, C, d[0], d[1], d[2], d[3], acc);
        }
        for (; q < q1; q++) {
          const HC_REAL *f = fields + (l * K + q) * C + c0;
          const HC_REAL *d = HC_FN(hc_df_data_row)(data, q, constant, Dr, C, c0);
          /* Fetched ahead: the next field row (that of the next field after the chunk's last), and the next
             data row while the first field reads the chunk's data. */
          const HC_REAL *pf = q + 1 < q1 ? f + C : l + 1 < L ? fields + ((l + 1) * K + q0) * C + c0 : NULL;
          const HC_REAL *pd = l == 0 && q + 1 < q1 && !constant ? d + C : NULL;
          HC_FN(hc_row_fma_openmp)(nc, f, d, acc, pf, pd);
        }
        HC_FN(hc_row_store_openmp)(nc, out + l * C + c0, acc, add);
      }
    }
  }
}

/* Packs a chunk of a block of cell-minor fields, F[f][q0 + q][c0 + c] for f < nf, q < kc, c < nbv, into
   p[sub][f][q][HC_OMP_NV] with c = sub * HC_OMP_NV + j, zero for the cells past nbv. F: [nf][K][C]. */
static void HC_FN(hc_ff_minor_pack_openmp)(const HC_REAL *restrict F, int64_t nf, int64_t K, int64_t C, int64_t c0,
                                           int64_t nbv, int64_t q0, int64_t kc, HC_REAL *restrict p) {
  const int64_t nsub = (nbv + HC_OMP_NV - 1) / HC_OMP_NV;
  for (int64_t f = 0; f < nf; f++) {
    for (int64_t q = 0; q < kc; q++) {
      const HC_REAL *src = F + (f * K + q0 + q) * C + c0;
      /* The next row, fetched while this one is copied: rows lie in different pages. */
      const HC_REAL *next = q + 1 < kc ? src + C : f + 1 < nf ? src + (K - kc + 1) * C : NULL;
      if (next) {
        for (int64_t c = 0; c < nbv; c += 64 / (int64_t)sizeof(HC_REAL)) HC_PREFETCH(next + c);
      }
      for (int64_t sub = 0; sub < nsub; sub++) {
        HC_REAL *dst = p + ((sub * nf + f) * kc + q) * HC_OMP_NV;
        const HC_REAL *s = src + sub * HC_OMP_NV;
        const int64_t n = nbv - sub * HC_OMP_NV;
        if (n >= HC_OMP_NV) {
#pragma omp simd
          for (int j = 0; j < HC_OMP_NV; j++) dst[j] = s[j];
        } else {
          for (int64_t j = 0; j < HC_OMP_NV; j++) dst[j] = j < n ? s[j] : 0;
        }
      }
    }
  }
}

/* One cell-minor micro-tile: acc[i][j][c] = sum_q a[i][q][c] b[j][q][c] for HC_OMP_FF_MR left and
   HC_OMP_FF_NR right fields and HC_OMP_NV cells, in registers, then stored into o[i * ls + j * NV + c] for
   i < mr, j < nr (added to it when add). Rows past mr (nr) repeat the last one, so that partial tiles run the
   same code. a: [mr][kc][HC_OMP_NV], b: [nr][kc][HC_OMP_NV], o: [mr][ls], all packed. */
static inline void HC_FN(hc_ff_minor_tile_openmp)(int64_t mr, int64_t nr, const HC_REAL *restrict a,
                                                  const HC_REAL *restrict b, int64_t kc, HC_REAL *restrict o,
                                                  int64_t ls, int add) {
  const HC_REAL *ai[HC_OMP_FF_MR], *bj[HC_OMP_FF_NR];
  for (int i = 0; i < HC_OMP_FF_MR; i++) ai[i] = a + (i < mr ? i : mr - 1) * kc * HC_OMP_NV;
  for (int j = 0; j < HC_OMP_FF_NR; j++) bj[j] = b + (j < nr ? j : nr - 1) * kc * HC_OMP_NV;
  HC_REAL acc[HC_OMP_FF_MR][HC_OMP_FF_NR][HC_OMP_NV];
  for (int i = 0; i < HC_OMP_FF_MR; i++) {
    for (int j = 0; j < HC_OMP_FF_NR; j++) {
#pragma omp simd simdlen(HC_OMP_W)
      for (int c = 0; c < HC_OMP_NV; c++) acc[i][j][c] = 0;
    }
  }
  for (int64_t q = 0; q < kc; q++) {
    for (int i = 0; i < HC_OMP_FF_MR; i++) {
      const HC_REAL *aq = ai[i] + q * HC_OMP_NV;
      for (int j = 0; j < HC_OMP_FF_NR; j++) {
        const HC_REAL *bq = bj[j] + q * HC_OMP_NV;
#pragma omp simd simdlen(HC_OMP_W)
        for (int c = 0; c < HC_OMP_NV; c++) acc[i][j][c] = HC_FMA(aq[c], bq[c], acc[i][j][c]);
      }
    }
  }
  for (int64_t i = 0; i < mr; i++) {
    for (int64_t j = 0; j < nr; j++) {
      HC_REAL *oij = o + i * ls + j * HC_OMP_NV;
      if (add) {
#pragma omp simd
        for (int c = 0; c < HC_OMP_NV; c++) oij[c] += acc[i][j][c];
      } else {
#pragma omp simd
        for (int c = 0; c < HC_OMP_NV; c++) oij[c] = acc[i][j][c];
      }
    }
  }
}

/* The right fields of one cell, transposed into a panel: bt[q][r] = B[r][q0 + q] for q < kb, with the
   columns r >= R zero up to rp, a multiple of HC_OMP_NR. B: [R][K]. */
static void HC_FN(hc_ff_pack_openmp)(const HC_REAL *restrict B, int64_t R, int64_t K, int64_t q0, int64_t kb,
                                     int64_t rp, HC_REAL *restrict bt) {
  /* Whole blocks of 8 rows x 8 entries transposed in vector registers where the build has them
     (hc_omp_transpose.h), for panels of at most 64 right fields (in double with at least 64 entries of K). One core
     of the 2-core VM (AMD EPYC, AVX-512), ms per call, three rounds, against the packings below: (27,27) Vector
     34.6-34.9 -> 30.4-31.4 in double and 30.0-31.8 -> 24.9-25.8 in float, Tensor 29.6-30.3 -> 28.1-28.6 and
     40.0-41.1 -> 30.3-31.9, Scalar in float 24.1-25.0 -> 20.2-20.9; (64,64) 4-10% faster. Not taken: more than 64
     right fields ((125,216) 0-10% slower than the packing in memory order) and double panels of fewer than 64
     entries of K (Scalar (27,27), K = 27: 21.7-22.6 -> 23.1-24.5). */
  const int vec = R <= 64 && (sizeof(HC_REAL) == 8 ? HC_OMP_T8_DOUBLE && kb >= 64 : HC_OMP_T8_FLOAT);
  if (vec || R < 64) {
    /* B is read row by row, in memory order; the panel is small enough to be written in cache. A panel larger
       than the L1 cache (FieldFieldTensor at (27,27) in double: 243 x 32 doubles), whose columns written one row
       of B at a time would each miss it, takes its whole blocks of 8 rows as blocks of 8 x 8 first, as do the
       panels above; without vector transposes, eight rows' runs of 8 entries read and written as eight runs of a
       panel row. One core of the 2-core VM (AMD EPYC), (27,27) double, 15 calls, three rounds: FieldFieldTensor
       41.2-42.0 -> 32.2-34.7 ms; Scalar and Vector, whose panels fit, 7-10% slower so. */
    int64_t r0 = 0; /* rows packed by blocks */
    if (vec || kb * rp * (int64_t)sizeof(HC_REAL) > HC_OMP_PACK_L1) {
      for (; r0 + 8 <= R; r0 += 8) {
        const HC_REAL *b = B + r0 * K + q0;
        int64_t q = 0;
        for (; q + 8 <= kb; q += 8) HC_FN(hc_transpose8_openmp)(b + q, K, bt + q * rp + r0, rp);
        for (; q < kb; q++) {
          for (int i = 0; i < 8; i++) bt[q * rp + r0 + i] = b[i * K + q];
        }
      }
    }
    for (int64_t r = r0; r < R; r++) {
      for (int64_t q = 0; q < kb; q++) bt[q * rp + r] = B[r * K + q0 + q];
    }
    for (int64_t q = 0; q < kb; q++) {
      for (int64_t r = R; r < rp; r++) bt[q * rp + r] = 0;
    }
    return;
  }
  /* Many right fields: the panel is written in memory order, a row of rp at a time, and the R rows of B it
     reads stay in L1 across the values of q that share each of their lines (one Zen 4 core, (64,64) and
     (125,216): up to +20% in double and +30% in float; at (27,27) no better). */
  for (int64_t q = 0; q < kb; q++) {
    HC_REAL *row = bt + q * rp;
    const HC_REAL *b = B + q0 + q;
    for (int64_t r = 0; r < R; r++) row[r] = b[r * K];
    for (int64_t r = R; r < rp; r++) row[r] = 0;
  }
}

/* Cell-major FieldField of one cell as a small GEMM, O = A B^T: B^T is packed into a panel of at most
   HC_OMP_KB rows of K at a time (hc_ff_panel_tiles_openmp multiplies each). A: [L][K], B: [R][K], O: [L][R];
   bt: HC_OMP_KB x rp scalars. An, Bn: the next cell's fields (NULL: none), whose lines the tiles ask for. */
static void HC_FN(hc_ff_cell_openmp)(const HC_REAL *restrict A, const HC_REAL *restrict B, HC_REAL *restrict O,
                                     int64_t L, int64_t R, int64_t K, int sum_into, HC_REAL *restrict bt,
                                     const HC_REAL *An, const HC_REAL *Bn) {
  const int64_t rp = (R + HC_OMP_NR - 1) / HC_OMP_NR * HC_OMP_NR;
  hc_ff_ahead ahead, *next = NULL;
  if (An) {
    /* Tiles of the cell: each panel's row tiles (hc_ff_tile_rows_openmp) x column tiles. */
    int64_t tiles = 0;
    for (int64_t q0 = 0; q0 < K; q0 += HC_OMP_KB) {
      const int mr = hc_ff_tile_rows_openmp(L, K - q0 < HC_OMP_KB ? K - q0 : HC_OMP_KB);
      tiles += (L + mr - 1) / mr * (rp / HC_OMP_NR);
    }
    hc_ff_ahead_init(&ahead, An, L * K * (int64_t)sizeof(HC_REAL), Bn, R * K * (int64_t)sizeof(HC_REAL), tiles);
    next = &ahead;
  }
  for (int64_t q0 = 0; q0 < K; q0 += HC_OMP_KB) {
    const int64_t kb = K - q0 < HC_OMP_KB ? K - q0 : HC_OMP_KB;
    HC_FN(hc_ff_pack_openmp)(B, R, K, q0, kb, rp, bt);
    HC_FN(hc_ff_panel_tiles_openmp)(A + q0, K, bt, kb, rp, O, L, R, sum_into || q0 > 0, next);
  }
}

/* Cell-minor to cell-major for a block of cells: buf[c][e] = F[e][c0 + c] for e < E, c < n. F: [E][C]. Blocks of
   8 entries x 8 cells transposed in vector registers (hc_omp_transpose.h), the next 8 rows' runs asked for while
   these are read. */
static void HC_FN(hc_minor_to_cells_openmp)(const HC_REAL *restrict F, int64_t E, int64_t C, int64_t c0, int64_t n,
                                            HC_REAL *restrict buf) {
  const int64_t n8 = n / 8 * 8;
  int64_t e = 0;
  for (; e + 8 <= E; e += 8) {
    const HC_REAL *src = F + e * C + c0;
    if (e + 16 <= E)
      for (int i = 0; i < 8; i++) hc_prefetch_lines((const char *)(src + (8 + i) * C), n * (int64_t)sizeof(HC_REAL));
    for (int64_t c = 0; c < n8; c += 8) HC_FN(hc_transpose8_openmp)(src + c, C, buf + c * E + e, E);
    for (int64_t c = n8; c < n; c++)
      for (int i = 0; i < 8; i++) buf[c * E + e + i] = src[i * C + c];
  }
  for (; e < E; e++)
    for (int64_t c = 0; c < n; c++) buf[c * E + e] = F[e * C + c0 + c];
}

/* Cell-major to cell-minor for a block of cells: O[e][c0 + c] = buf[c][e] (+= with add) for e < E, c < n.
   O: [E][C]. */
static void HC_FN(hc_cells_to_minor_openmp)(const HC_REAL *restrict buf, int64_t E, int64_t C, int64_t c0, int64_t n,
                                            HC_REAL *restrict O, int add) {
  const int64_t n8 = n / 8 * 8;
  HC_REAL t[64];
  int64_t e = 0;
  for (; e + 8 <= E; e += 8) {
    HC_REAL *dst = O + e * C + c0;
    for (int64_t c = 0; c < n8; c += 8) {
      if (!add) {
        HC_FN(hc_transpose8_openmp)(buf + c * E + e, E, dst + c, C);
        continue;
      }
      HC_FN(hc_transpose8_openmp)(buf + c * E + e, E, t, 8);
      for (int j = 0; j < 8; j++) {
#pragma omp simd
        for (int i = 0; i < 8; i++) dst[j * C + c + i] += t[j * 8 + i];
      }
    }
    for (int64_t c = n8; c < n; c++)
      for (int j = 0; j < 8; j++) dst[j * C + c] = add ? dst[j * C + c] + buf[c * E + e + j] : buf[c * E + e + j];
  }
  for (; e < E; e++)
    for (int64_t c = 0; c < n; c++) O[e * C + c0 + c] = add ? O[e * C + c0 + c] + buf[c * E + e] : buf[c * E + e];
}

/* work: hc_ff_work_openmp(k) scalars per thread. */
static void HC_FN(hc_fieldfield_openmp)(const hc_contract *k, const HC_REAL *restrict left,
                                        const HC_REAL *restrict right, HC_REAL *restrict out, HC_REAL *work) {
  const int64_t C = k->C, L = k->L, R = k->R, K = hc_contract_K(k);
  const int sum_into = k->sum_into;
  if (k->layout == HC_LAYOUT_CELL_MAJOR) {
    /* whether the GEMM's tiles ask for the next cell's fields: by the bytes of a cell's fields */
    const int64_t cell_bytes = (L + R) * K * (int64_t)sizeof(HC_REAL);
    const int ahead_size = cell_bytes >= HC_OMP_FF_AHEAD_MIN && cell_bytes <= HC_OMP_FF_AHEAD_MAX;
#pragma omp parallel
    {
      HC_REAL *bt = work + (int64_t)omp_get_thread_num() * hc_ff_work_openmp(k);
#pragma omp for schedule(static)
      for (int64_t c = 0; c < C; c++) {
        const HC_REAL *A = left + c * L * K, *B = right + c * R * K;
        HC_REAL *O = out + c * L * R;
        if (hc_ff_takes_gemm(L, R)) {
          const int ahead = ahead_size && c + 1 < C;
          HC_FN(hc_ff_cell_openmp)(A, B, O, L, R, K, sum_into, bt, ahead ? A + L * K : NULL, ahead ? B + R * K : NULL);
        } else {
          hc_prefetch_next(A, L * K * (int64_t)sizeof(HC_REAL));
          hc_prefetch_next(B, R * K * (int64_t)sizeof(HC_REAL));
          HC_FN(hc_ff_cell_small_openmp)(A, B, O, L, R, K, sum_into);
        }
      }
    }
    return;
  }
  const int64_t gemm_cells = hc_ff_minor_gemm_cells_openmp(k);
  if (gemm_cells) {
    /* Cell-minor, cells the cell-major GEMM takes: blocks of gemm_cells cells transposed into cell-major fields,
       each cell multiplied as a cell-major one (hc_ff_cell_openmp), the outputs transposed back. */
#pragma omp parallel
    {
      /* ab: [gemm_cells][L][K], bb: [gemm_cells][R][K], ob: [gemm_cells][L][R], then the B^T panel */
      HC_REAL *ab = work + (int64_t)omp_get_thread_num() * hc_ff_work_openmp(k), *bb = ab + gemm_cells * L * K;
      HC_REAL *ob = bb + gemm_cells * R * K, *bt = ob + gemm_cells * L * R;
#pragma omp for schedule(static)
      for (int64_t c0 = 0; c0 < C; c0 += gemm_cells) {
        const int64_t n = C - c0 < gemm_cells ? C - c0 : gemm_cells;
        HC_FN(hc_minor_to_cells_openmp)(left, L * K, C, c0, n, ab);
        HC_FN(hc_minor_to_cells_openmp)(right, R * K, C, c0, n, bb);
        for (int64_t c = 0; c < n; c++)
          HC_FN(hc_ff_cell_openmp)(ab + c * L * K, bb + c * R * K, ob + c * L * R, L, R, K, 0, bt, NULL, NULL);
        HC_FN(hc_cells_to_minor_openmp)(ob, L * R, C, c0, n, out, sum_into);
      }
    }
    return;
  }
  /* Cell-minor: blocks of nb cells, K in chunks of kq; each chunk of the block's fields is packed and
     multiplied in register tiles into the block's packed outputs, which are then written out row by row. */
  int64_t nb, kq;
  hc_ff_minor_blocking_openmp(k, &nb, &kq);
#pragma omp parallel
  {
    /* ap: [nb / NV][L][kq][NV], bp: [nb / NV][R][kq][NV], op: [nb / NV][L][R][NV] */
    HC_REAL *ap = work + (int64_t)omp_get_thread_num() * hc_ff_work_openmp(k), *bp = ap + L * kq * nb;
    HC_REAL *op = bp + R * kq * nb;
#pragma omp for schedule(static)
    for (int64_t c0 = 0; c0 < C; c0 += nb) {
      const int64_t nbv = C - c0 < nb ? C - c0 : nb, nsub = (nbv + HC_OMP_NV - 1) / HC_OMP_NV;
      for (int64_t q0 = 0; q0 < K; q0 += kq) {
        const int64_t kc = K - q0 < kq ? K - q0 : kq;
        HC_FN(hc_ff_minor_pack_openmp)(left, L, K, C, c0, nbv, q0, kc, ap);
        HC_FN(hc_ff_minor_pack_openmp)(right, R, K, C, c0, nbv, q0, kc, bp);
        for (int64_t sub = 0; sub < nsub; sub++) {
          const HC_REAL *as = ap + sub * L * kc * HC_OMP_NV, *bs = bp + sub * R * kc * HC_OMP_NV;
          HC_REAL *os = op + sub * L * R * HC_OMP_NV;
          for (int64_t l = 0; l < L; l += HC_OMP_FF_MR) {
            const int64_t mr = L - l < HC_OMP_FF_MR ? L - l : HC_OMP_FF_MR;
            for (int64_t r = 0; r < R; r += HC_OMP_FF_NR) {
              const int64_t nr = R - r < HC_OMP_FF_NR ? R - r : HC_OMP_FF_NR;
              HC_FN(hc_ff_minor_tile_openmp)
              (mr, nr, as + l * kc * HC_OMP_NV, bs + r * kc * HC_OMP_NV, kc, os + (l * R + r) * HC_OMP_NV,
               R * HC_OMP_NV, q0 > 0);
            }
          }
        }
      }
      for (int64_t lr = 0; lr < L * R; lr++) {
        HC_REAL *o = out + lr * C + c0;
        for (int64_t sub = 0; sub < nsub; sub++) {
          const HC_REAL *os = op + (sub * L * R + lr) * HC_OMP_NV;
          const int64_t cs = sub * HC_OMP_NV, n = nbv - cs < HC_OMP_NV ? nbv - cs : HC_OMP_NV;
          if (sum_into) {
#pragma omp simd
            for (int64_t c = 0; c < n; c++) o[cs + c] += os[c];
          } else {
#pragma omp simd
            for (int64_t c = 0; c < n; c++) o[cs + c] = os[c];
          }
        }
      }
    }
  }
}

static void HC_FN(hc_contract_openmp)(const hc_contract *k, const void *left, const void *right, void *out,
                                      void *work) {
  switch (hc_kernel_family(k->kernel)) {
    case HC_FAMILY_DATADATA:
      HC_FN(hc_datadata_openmp)(k, (const HC_REAL *)left, (const HC_REAL *)right, (HC_REAL *)out);
      break;
    case HC_FAMILY_DATAFIELD:
      HC_FN(hc_datafield_openmp)(k, (const HC_REAL *)left, (const HC_REAL *)right, (HC_REAL *)out);
      break;
    case HC_FAMILY_FIELDFIELD:
      HC_FN(hc_fieldfield_openmp)(k, (const HC_REAL *)left, (const HC_REAL *)right, (HC_REAL *)out, (HC_REAL *)work);
      break;
  }
}

#undef HC_OMP_W
#undef HC_OMP_NV
