/* The OpenMP cell data for one precision: included once per precision by celldata_openmp.c with HC_REAL
   and HC_FN(name). Entries are computed in double (hc_cd_grad, hc_cd_left) and rounded when they are
   buffered. */

/* A writer of one contiguous run of an array: entries are formed in buf and go out with streaming stores
   in whole 64-byte lines of dst, the rest carried over to the next flush. */
typedef struct HC_FN(hc_cd_writer) {
  HC_REAL *dst; /* where buf[0] goes */
  HC_REAL *buf; /* [cap] */
  int64_t n, cap;
} HC_FN(hc_cd_writer);

/* Writes out the entries of w up to the last line boundary of dst (all of them when last). */
static void HC_FN(hc_cd_flush)(HC_FN(hc_cd_writer) * w, int last) {
  int64_t k = w->n;
  if (!last) {
    const uintptr_t end = (uintptr_t)(w->dst + w->n) & ~(uintptr_t)(HC_STREAM_LINE - 1);
    k = end > (uintptr_t)w->dst ? (int64_t)((end - (uintptr_t)w->dst) / sizeof(HC_REAL)) : 0;
  }
  hc_stream_copy(w->dst, w->buf, (size_t)k * sizeof(HC_REAL));
  memmove(w->buf, w->buf + k, (size_t)(w->n - k) * sizeof(HC_REAL));
  w->dst += k;
  w->n -= k;
}

/* Room for m more entries (m + a line's worth at most cap): where to form them. */
static HC_REAL *HC_FN(hc_cd_reserve)(HC_FN(hc_cd_writer) * w, int64_t m) {
  if (w->n + m > w->cap) HC_FN(hc_cd_flush)(w, 0);
  return w->buf + w->n;
}

/* Eight entries from the vector v of doubles at dst, rounded to HC_REAL (a macro: a 64-byte vector passed by value
   changes the ABI where AVX-512 is off). */
#if HC_CD_VEC
#define HC_CD_PUT8(dst, v)                                      \
  do {                                                          \
    if (sizeof(HC_REAL) == sizeof(double)) {                    \
      memcpy((dst), &(v), sizeof(hc_v8d));                      \
    } else {                                                    \
      const hc_v8f v8f_ = __builtin_convertvector((v), hc_v8f); \
      memcpy((dst), &v8f_, sizeof(v8f_));                       \
    }                                                           \
  } while (0)
#endif

/* Cell-major: field f's entries of one cell (pts[0..P-1]) in its left array (ol) and, for FieldField, in its
   right array (orr, else NULL), in memory order, the gradients once per point. With the vector extension, from the
   cell's prepared factors s (hc_cd_field_prep) and, at rank 1, the gradients r1g (hc_cd_r1_grads; NULL: the scalar
   loop); a rank-1 run's last vector may write up to 7 entries past the run. Inlined with a constant rank, so that the
   loops over i and j unroll. */
static HC_ALWAYS_INLINE void HC_FN(hc_cd_major_field)(int rank, int64_t f, const hc_basis *b, const hc_cd_point *pts,
                                                      const double *restrict s, const double *restrict r1g,
                                                      HC_REAL *restrict ol, HC_REAL *restrict orr) {
  const int64_t P = b->P;
  const int Di = rank >= 1 ? 3 : 1, Dj = rank == 2 ? 3 : 1, Dij = Di * Dj;
#if HC_CD_VEC
  if (rank == 0) {
    const double *phi = &b->phi[f * P];
    for (int64_t p = 0; p < P; p++) ol[p] = (HC_REAL)(phi[p] * s[p]);
    if (orr)
      for (int64_t p = 0; p < P; p++) orr[p] = (HC_REAL)phi[p];
    return;
  }
  if (rank == 1 && r1g) {
    const int64_t n = hc_cd_r1_len(P);
    const double *G = r1g + 3 * f * n;
    for (int64_t v = 0; v < n; v += 8) {
      hc_v8d j0, j1, j2, w, g0, g1, g2;
      HC_V8D_LOAD(j0, s + v), HC_V8D_LOAD(j1, s + n + v), HC_V8D_LOAD(j2, s + 2 * n + v), HC_V8D_LOAD(w, s + 3 * n + v);
      HC_V8D_LOAD(g0, G + v), HC_V8D_LOAD(g1, G + n + v), HC_V8D_LOAD(g2, G + 2 * n + v);
      const hc_v8d g = j0 * g0 + j1 * g1 + j2 * g2, l = g * w;
      HC_CD_PUT8(ol + v, l);
      if (orr) HC_CD_PUT8(orr + v, g);
    }
    return;
  }
  if (rank == 2) {
    for (int64_t p = 0; p < P; p++) {
      const double *q = s + HC_CD_R2_STRIDE * p, *gr = &b->grad[3 * (f * P + p)];
      hc_v8d j0, j1, j2, ka;
      HC_V8D_LOAD(j0, q), HC_V8D_LOAD(j1, q + 8), HC_V8D_LOAD(j2, q + 16), HC_V8D_LOAD(ka, q + 24);
      /* lanes 3 i + j: g_i, then its kappa_ij g_i w|J| */
      const hc_v8d g = j0 * gr[0] + j1 * gr[1] + j2 * gr[2], l = ka * g * q[36];
      const double g2 = hc_cd_grad(q[32], q[33], q[34], gr);
      HC_CD_PUT8(ol + 9 * p, l);
      ol[9 * p + 8] = (HC_REAL)hc_cd_left(2, 0.0, g2, q[35], q[36]);
      if (orr) {
        /* lanes 3 i + j: g_j, the same values as g's lanes j, 3 + j, 6 + j */
#if HC_CD_SHUFFLE
        const hc_v8d gj = __builtin_shufflevector(g, g, 0, 3, 6, 0, 3, 6, 0, 3);
#else
        const hc_v8d gj = {g[0], g[3], g[6], g[0], g[3], g[6], g[0], g[3]};
#endif
        HC_CD_PUT8(orr + 9 * p, gj);
        orr[9 * p + 8] = (HC_REAL)g2;
      }
    }
    return;
  }
#else
  (void)s, (void)r1g;
#endif
  for (int64_t p = 0; p < P; p++) {
    const hc_cd_point *pt = &pts[p];
    const double phi = b->phi[f * P + p], *gr = &b->grad[3 * (f * P + p)];
    double g[3] = {0.0, 0.0, 0.0};
    if (rank > 0)
      for (int m = 0; m < 3; m++) g[m] = hc_cd_grad(pt->J[m], pt->J[3 + m], pt->J[6 + m], gr);
    for (int i = 0; i < Di; i++)
      for (int j = 0; j < Dj; j++)
        ol[p * Dij + i * Dj + j] = (HC_REAL)hc_cd_left(rank, phi, g[i], pt->dl[i * Dj + j], pt->wdet);
    if (orr)
      for (int i = 0; i < Di; i++)
        for (int j = 0; j < Dj; j++) orr[p * Dij + i * Dj + j] = (HC_REAL)(rank == 0 ? phi : g[rank == 2 ? j : i]);
  }
}

/* Cell-major: cells [c0, c1), whose entries are one contiguous run of each array, formed cell by cell in
   memory order, the gradients of each basis function at each point once. pts: P points; pb: a batch of P.
   Returns the lowest inverted or degenerate cell, or -1. */
static int64_t HC_FN(hc_cd_major)(const hc_cd_shape *shape, hc_kernel kernel, int64_t c0, int64_t c1, hc_cd_point *pts,
                                  hc_cd_batch *pb, double *restrict prep, HC_FN(hc_cd_writer) * wl,
                                  HC_FN(hc_cd_writer) * wr) {
  const hc_celldata_desc *desc = shape->desc;
  const hc_basis *b = desc->basis;
  const int64_t P = b->P;
  const hc_family fam = hc_kernel_family(kernel);
  const int rank = (int)hc_kernel_rank(kernel);
  const int Di = rank >= 1 ? 3 : 1, Dj = rank == 2 ? 3 : 1, Dij = Di * Dj;
  const int64_t chunk = P * Dij; /* entries of one field */
  const int64_t Lf = fam == HC_FAMILY_DATADATA ? 1 : b->L;
  const int field = fam != HC_FAMILY_DATADATA, ff = fam == HC_FAMILY_FIELDFIELD;
  int64_t bad = -1;
  for (int64_t c = c0; c < c1; c++) {
    if (!hc_cd_cell_eval(shape, kernel, c, pts, pb) && bad < 0) bad = c;
    if (HC_CD_VEC && field) hc_cd_field_prep(rank, P, pts, prep);
    /* left, and FieldField's right, field by field */
    for (int64_t f = 0; f < Lf; f++) {
      HC_REAL *ol = HC_FN(hc_cd_reserve)(wl, chunk), *orr = ff ? HC_FN(hc_cd_reserve)(wr, chunk) : NULL;
      if (!field) {
        for (int64_t p = 0; p < P; p++)
          for (int ij = 0; ij < Dij; ij++) ol[p * Dij + ij] = (HC_REAL)pts[p].dl[ij];
      } else if (rank == 0) {
        HC_FN(hc_cd_major_field)(0, f, b, pts, prep, shape->r1g, ol, orr);
      } else if (rank == 1) {
        HC_FN(hc_cd_major_field)(1, f, b, pts, prep, shape->r1g, ol, orr);
      } else {
        HC_FN(hc_cd_major_field)(2, f, b, pts, prep, shape->r1g, ol, orr);
      }
      wl->n += chunk;
      if (ff) wr->n += chunk;
    }
    /* DataData's and DataField's right: a value per point */
    if (!ff) {
      HC_REAL *orr = HC_FN(hc_cd_reserve)(wr, chunk);
      for (int64_t p = 0; p < P; p++)
        for (int ij = 0; ij < Dij; ij++) orr[p * Dij + ij] = (HC_REAL)pts[p].dr[ij];
      wr->n += chunk;
    }
  }
  return bad;
}

/* Cell-minor: writes row (nc entries) to entry q of the cells at dst: dst + q C. */
static inline void HC_FN(hc_cd_row_out)(HC_REAL *dst, int64_t q, int64_t C, const HC_REAL *row, int64_t nc) {
  hc_stream_copy(dst + q * C, row, (size_t)nc * sizeof(HC_REAL));
}

/* Cell-minor: the entries of the points [p0, p0 + np) of a block of nc cells, whose per-point values are
   s[pl nc + cb], a row (one entry of every cell) at a time; the gradients once per field and point.
   row: [4][HC_OMP_CD_CB] scratch. */
static void HC_FN(hc_cd_minor_rows)(const hc_cd_shape *shape, hc_kernel kernel, int64_t p0, int64_t np,
                                    const hc_cd_points *s, int64_t nc, HC_REAL *left, HC_REAL *right, HC_REAL *row) {
  const hc_basis *b = shape->desc->basis;
  const int64_t C = shape->desc->C, P = b->P;
  const hc_family fam = hc_kernel_family(kernel);
  const int rank = (int)hc_kernel_rank(kernel);
  const int Di = rank >= 1 ? 3 : 1, Dj = rank == 2 ? 3 : 1, Dij = Di * Dj;
  const int64_t Lf = fam == HC_FAMILY_DATADATA ? 1 : b->L;
  const int field = fam != HC_FAMILY_DATADATA, ff = fam == HC_FAMILY_FIELDFIELD;
  HC_REAL *gq[3] = {row + HC_OMP_CD_CB, row + 2 * HC_OMP_CD_CB, row + 3 * HC_OMP_CD_CB}; /* rounded gradients */
  double g[3][HC_OMP_CD_CB];
  for (int64_t f = 0; f < Lf; f++) {
    for (int64_t pl = 0; pl < np; pl++) {
      const int64_t fp = f * P + p0 + pl, n0 = pl * nc;
      const double phi = field ? b->phi[fp] : 0.0, *gr = &b->grad[3 * fp];
      if (field && rank > 0) {
        for (int m = 0; m < 3; m++) {
          for (int64_t cb = 0; cb < nc; cb++)
            g[m][cb] = hc_cd_grad(s->J[m][n0 + cb], s->J[3 + m][n0 + cb], s->J[6 + m][n0 + cb], gr);
          for (int64_t cb = 0; cb < nc; cb++) gq[m][cb] = (HC_REAL)g[m][cb];
        }
      }
      for (int i = 0; i < Di; i++) {
        for (int j = 0; j < Dj; j++) {
          const double *dl = s->dl[i * Dj + j] + n0, *w = s->wdet + n0;
          if (field)
            for (int64_t cb = 0; cb < nc; cb++) row[cb] = (HC_REAL)hc_cd_left(rank, phi, g[i][cb], dl[cb], w[cb]);
          else
            for (int64_t cb = 0; cb < nc; cb++) row[cb] = (HC_REAL)dl[cb];
          HC_FN(hc_cd_row_out)(left + (fp * Di + i) * Dj * C, j, C, row, nc);
          if (ff && rank > 0) HC_FN(hc_cd_row_out)(right + (fp * Di + i) * Dj * C, j, C, gq[rank == 2 ? j : i], nc);
        }
      }
      if (ff && rank == 0) {
        for (int64_t cb = 0; cb < nc; cb++) row[cb] = (HC_REAL)phi;
        HC_FN(hc_cd_row_out)(right, fp, C, row, nc);
      }
    }
  }
  if (!ff) {
    for (int64_t pl = 0; pl < np; pl++) {
      for (int ij = 0; ij < Dij; ij++) {
        for (int64_t cb = 0; cb < nc; cb++) row[cb] = (HC_REAL)s->dr[ij][pl * nc + cb];
        HC_FN(hc_cd_row_out)(right, (p0 + pl) * Dij + ij, C, row, nc);
      }
    }
  }
}

/* Cell-minor: cells [c0, c1) in blocks of HC_OMP_CD_CB cells and HC_OMP_CD_PB points, the block's data functions
   in one batch (b: room for HC_OMP_CD_CB HC_OMP_CD_PB points). row: [4][HC_OMP_CD_CB]. Returns the lowest inverted
   or degenerate cell, or -1. */
static int64_t HC_FN(hc_cd_minor)(const hc_cd_shape *shape, hc_kernel kernel, int64_t c0, int64_t c1, hc_cd_points *s,
                                  hc_cd_batch *b, HC_REAL *left, HC_REAL *right, HC_REAL *row) {
  const hc_celldata_desc *desc = shape->desc;
  const int64_t P = desc->basis->P;
  const int n = desc->geometry_nodes;
  int64_t bad = -1;
  for (int64_t cb0 = c0; cb0 < c1; cb0 += HC_OMP_CD_CB) {
    const int64_t nc = c1 - cb0 < HC_OMP_CD_CB ? c1 - cb0 : HC_OMP_CD_CB;
    const int read = shape->geom_mode == HC_CD_GEOM_READ;
    double xv[HC_OMP_CD_CB][HC_GEOMETRY_NODES_MAX][3], det_floor[HC_OMP_CD_CB];
    for (int64_t cb = 0; cb < nc && !read; cb++) {
      hc_cd_cell_nodes(shape, cb0 + cb, xv[cb]);
      det_floor[cb] = hc_pw_nodes_det_floor(n, xv[cb]);
    }
    for (int64_t p0 = 0; p0 < P; p0 += HC_OMP_CD_PB) {
      const int64_t np = P - p0 < HC_OMP_CD_PB ? P - p0 : HC_OMP_CD_PB;
      for (int64_t pl = 0; pl < np; pl++) {
        for (int64_t cb = 0; cb < nc; cb++) {
          hc_cd_point pt;
          const int64_t k = pl * nc + cb;
          double *g = shape->geom ? shape->geom + ((cb0 + cb) * P + p0 + pl) * HC_GEOMETRY_CACHE_VALUES : NULL;
          if (read) {
            hc_cd_geom_take(g, &pt, b, k);
          } else {
            if (!hc_cd_point_geom(shape, xv[cb], det_floor[cb], p0 + pl, &pt, b, k) && (bad < 0 || cb0 + cb < bad))
              bad = cb0 + cb;
            if (shape->geom_mode == HC_CD_GEOM_FILL) hc_cd_geom_keep(g, &pt, b, k);
          }
          hc_cd_points_put(s, k, kernel, &pt);
        }
      }
      hc_cd_data_batch(shape->desc, kernel, np * nc, b);
      for (int64_t k = 0; k < np * nc; k++) {
        hc_cd_point pt;
        memset(&pt, 0, sizeof(pt));
        pt.wdet = s->wdet[k];
        hc_cd_point_data(kernel, b, k, &pt);
        hc_cd_points_put_data(s, k, kernel, &pt);
      }
      HC_FN(hc_cd_minor_rows)(shape, kernel, p0, np, s, nc, left + cb0, right + cb0, row);
    }
  }
  return bad;
}

/* Fills left and right for every cell of desc. Returns the lowest inverted or degenerate cell, or -1;
 *failed is set when a thread could not allocate its scratch. */
static int64_t HC_FN(hc_celldata_openmp)(const hc_cd_shape *shape, hc_kernel kernel, HC_REAL *restrict left,
                                         HC_REAL *restrict right, int *failed) {
  const hc_celldata_desc *desc = shape->desc;
  const int64_t C = desc->C, P = desc->basis->P;
  const int64_t cap = 4 * 9 * P + HC_STREAM_LINE; /* cell-major writer buffers: several fields' entries */
  const hc_family fam = hc_kernel_family(kernel);
  const int rank = (int)hc_kernel_rank(kernel);
  const int64_t Dij = rank == 0 ? 1 : rank == 1 ? 3 : 9;
  const int64_t lin = (fam == HC_FAMILY_DATADATA ? 1 : desc->basis->L) * P * Dij;
  const int64_t rin = (fam == HC_FAMILY_FIELDFIELD ? desc->basis->L : 1) * P * Dij;
  int64_t bad = C;
  int fail = 0;
#pragma omp parallel reduction(min : bad) reduction(max : fail)
  {
    /* Each thread a contiguous run of cells, in whole blocks of HC_OMP_CD_CB. */
    const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t nblk = (C + HC_OMP_CD_CB - 1) / HC_OMP_CD_CB;
    int64_t c0 = (nblk * t / nt) * HC_OMP_CD_CB, c1 = (nblk * (t + 1) / nt) * HC_OMP_CD_CB;
    if (c1 > C) c1 = C;
    /* Each layout's scratch: cell-major, the values at one cell's points and a writer per array;
       cell-minor, the values at a block's points and its rows. */
    int64_t b = -1;
    if (desc->layout == HC_LAYOUT_CELL_MAJOR) {
      /* each writer's buffer with room for a vector's entries past its end (hc_cd_major_field) */
      HC_REAL *buf = malloc(sizeof(*buf) * (size_t)(2 * (cap + 8)));
      hc_cd_point *pts = malloc(sizeof(*pts) * (size_t)P);
      const size_t prep_bytes = (sizeof(double) * (size_t)hc_cd_field_prep_doubles(P) + 63) & ~(size_t)63;
      double *prep = aligned_alloc(64, prep_bytes);
      hc_cd_batch batch = {NULL, NULL, 0};
      if (hc_cd_batch_create(P, &batch) != HC_OK || !buf || !pts || !prep) {
        fail = 1;
      } else if (c0 < c1) {
        HC_FN(hc_cd_writer) wl = {left + c0 * lin, buf, 0, cap}, wr = {right + c0 * rin, buf + cap + 8, 0, cap};
        b = HC_FN(hc_cd_major)(shape, kernel, c0, c1, pts, &batch, prep, &wl, &wr);
        HC_FN(hc_cd_flush)(&wl, 1);
        HC_FN(hc_cd_flush)(&wr, 1);
      }
      free(buf);
      free(pts);
      free(prep);
      free(batch.x);
    } else {
      hc_cd_points s;
      hc_cd_batch batch = {NULL, NULL, 0};
      HC_REAL *row = malloc(sizeof(*row) * 4 * HC_OMP_CD_CB);
      if (hc_cd_points_create(HC_OMP_CD_CB * HC_OMP_CD_PB, &s) != HC_OK ||
          hc_cd_batch_create(HC_OMP_CD_CB * HC_OMP_CD_PB, &batch) != HC_OK || !row) {
        fail = 1;
      } else if (c0 < c1) {
        b = HC_FN(hc_cd_minor)(shape, kernel, c0, c1, &s, &batch, left, right, row);
      }
      free(s.mem);
      free(batch.x);
      free(row);
    }
    if (b >= 0) bad = b;
    hc_stream_fence();
  }
  *failed = fail;
  return bad < C ? bad : -1;
}

#if HC_CD_VEC
#undef HC_CD_PUT8
#endif
