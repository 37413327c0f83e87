/* The OpenMP fused assembly for one precision: included once per precision by celldata_openmp.c with HC_REAL
   and HC_FN(name), after celldata_openmp_impl.h, whose per-cell point evaluation it shares. */

/* DataField's outputs of one cell (o: [L]) taken in the reference space, as the cuda kernel takes them
   (celldata_cuda.cu, fused_points): sum_ij left(l,p,ij) right(p,ij) is phi_l(p) v(p) with v = w|J| f (Scalar), or
   sum_k dref_k phi_l(p) v_k(p) with v_k = sum_i (J^-1)_ki M_i, M_i = w|J| F_i (Vector) or w|J| sum_j kappa_ij s_ij
   (Tensor), the physical gradient being d_i phi_l = sum_k (J^-1)_ki dref_k phi_l: the same sums as the
   materialized contraction's, grouped otherwise, in double. v: [3 P] scratch. Each o[l] sums its products in the
   order of q, all fields side by side (tT: the reference table transposed, [K][L], hc_fused_ff_table), so that the
   loop over the fields vectorises: one field's sum alone is a chain of dependent adds that does not (on the GPU
   machine's Xeon DataFieldVector of order4.yaml had taken 3 ms per step on 16 cores). */
static void HC_FN(hc_fused_df_cell)(int rank, const hc_basis *b, const hc_cd_point *pts, const double *restrict tT,
                                    double *restrict v, double *restrict o) {
  const int64_t P = b->P, L = b->L, K = rank == 0 ? P : 3 * P;
  for (int64_t p = 0; p < P; p++)
    hc_pw_df_ref_vector(rank, pts[p].J, pts[p].dr, pts[p].dl, pts[p].wdet, v + (rank == 0 ? p : 3 * p));
  for (int64_t l = 0; l < L; l++) o[l] = 0.0;
  for (int64_t q = 0; q < K; q++) {
    const double vq = v[q], *t = tT + q * L;
    for (int64_t l = 0; l < L; l++) o[l] += t[l] * vq;
  }
}

/* FieldField's right rows of one cell (rb: [L][K]) in the reference space, against the constant left rows of
   hc_fused_ff_left: sum_q left(l,q) right(r,q) = sum_p sum_kk' dref_k phi_l(p) G_kk'(p) dref_k' phi_r(p) with
   G = w|J| J^-1 J^-T (Vector) or w|J| J^-1 kappa J^-T (Tensor), the physical gradient being
   d_i phi = sum_k (J^-1)_ki dref_k phi; right(r, 3p + k) = sum_k' G_kk'(p) dref_k' phi_r(p), K = 3 P. Scalar:
   right(r, p) = w|J| phi_r(p), K = P. In double, rounded once. g: [9 P] scratch. */
static void HC_FN(hc_fused_ff_right)(int rank, const hc_basis *b, const hc_cd_point *pts, double *restrict g,
                                     HC_REAL *restrict rb) {
  const int64_t P = b->P, L = b->L;
  if (rank == 0) {
    for (int64_t r = 0; r < L; r++)
      for (int64_t p = 0; p < P; p++) rb[r * P + p] = (HC_REAL)(pts[p].wdet * b->phi[r * P + p]);
    return;
  }
  for (int64_t p = 0; p < P; p++) hc_pw_ff_metric(pts[p].J, rank == 2 ? pts[p].dl : NULL, pts[p].wdet, &g[9 * p]);
  for (int64_t r = 0; r < L; r++) {
    for (int64_t p = 0; p < P; p++) {
      const double *gr = &b->grad[3 * (r * P + p)], *G = &g[9 * p];
      for (int kk = 0; kk < 3; kk++)
        rb[r * 3 * P + 3 * p + kk] = (HC_REAL)(G[3 * kk] * gr[0] + G[3 * kk + 1] * gr[1] + G[3 * kk + 2] * gr[2]);
    }
  }
}

/* hc_fused_ff_right's rows formed straight into the GEMM's packed panel, transposed: bt[q][r] = right(r, q) for
   every q < K, the same values; each panel row from the metric of its point and the reference table transposed
   (tT: [K][L], hc_fused_ff_table), a loop over the fields that vectorises. The panel's columns r >= L are left
   as they are (zero: hc_fused_cells clears them once). g: [9 P] scratch. */
static void HC_FN(hc_fused_ff_right_packed)(int rank, const hc_basis *b, const hc_cd_point *pts, double *restrict g,
                                            const double *restrict tT, int64_t rp, HC_REAL *restrict bt) {
  const int64_t P = b->P, L = b->L;
  if (rank == 0) {
    for (int64_t p = 0; p < P; p++) {
      const double w = pts[p].wdet, *t = &tT[p * L];
      HC_REAL *row = &bt[p * rp];
      for (int64_t r = 0; r < L; r++) row[r] = (HC_REAL)(w * t[r]);
    }
    return;
  }
  for (int64_t p = 0; p < P; p++) {
    double *G = &g[9 * p];
    hc_pw_ff_metric(pts[p].J, rank == 2 ? pts[p].dl : NULL, pts[p].wdet, G);
    const double *t0 = &tT[3 * p * L], *t1 = t0 + L, *t2 = t1 + L;
    for (int kk = 0; kk < 3; kk++) {
      const double a0 = G[3 * kk], a1 = G[3 * kk + 1], a2 = G[3 * kk + 2];
      HC_REAL *row = &bt[(3 * p + kk) * rp];
      for (int64_t r = 0; r < L; r++) row[r] = (HC_REAL)(a0 * t0[r] + a1 * t1[r] + a2 * t2[r]);
    }
  }
}

/* The reference table transposed for hc_fused_ff_right_packed and hc_fused_df_cell: tT[q][l] = phi_l(q) (K = P) or
   dref_k phi_l(p) at q = 3 p + k (K = 3 P). */
static void HC_FN(hc_fused_ff_table)(int rank, const hc_basis *b, double *restrict tT) {
  const int64_t L = b->L, K = b->P * (rank == 0 ? 1 : 3);
  const double *src = rank == 0 ? b->phi : b->grad;
  for (int64_t l = 0; l < L; l++)
    for (int64_t q = 0; q < K; q++) tT[q * L + l] = src[l * K + q];
}

/* FieldField's left rows in the reference space (hc_fused_ff_right), the same for every cell: phi_l(p) (Scalar,
   K = P) or dref_k phi_l(p) at 3 p + k (K = 3 P), rounded to the run's precision. lb: [L][K]. */
static void HC_FN(hc_fused_ff_left)(int rank, const hc_basis *b, HC_REAL *restrict lb) {
  const int64_t n = b->L * b->P * (rank == 0 ? 1 : 3);
  const double *src = rank == 0 ? b->phi : b->grad;
  for (int64_t q = 0; q < n; q++) lb[q] = (HC_REAL)src[q];
}

/* Cells [c0, c1) of kernel k, contracted at once into out (k's layout, overwritten or, with k->sum_into, added to;
   ob: [Lf][Rf], a cell-minor cell's outputs before they are spread), from the point values pts ([P], pb: a batch of
   P points). FieldField in the reference space: at orders 3 and 4 with the default points by sum factorization
   (hc_fused_ff_sumfact, in double, rounded once); otherwise the constant left rows (lb: [L][K], hc_fused_ff_left,
   once) against each cell's right rows: from HC_OMP_FF_GEMM_L fields on formed straight into the packed panel of the
   materialized contraction's GEMM tiles, transposed, the whole K at once (bt: [K][rp], hc_fused_ff_right_packed),
   else in rows (rb: [L][K], hc_fused_ff_right) for hc_ff_cell_small_openmp; DataField in the reference space
   (hc_fused_df_cell); DataData from its per-point entries as the cell data rounds them. dv: [9 P + 2 L + 3 P L]
   doubles, then the sum factorization's scratch (hc_fused_sumfact_doubles) where it takes the case. With v
   (FieldField), also the element apply's rows while the cell's matrix is in cache: v[c][l] = sum_r out[c,l,r]
   u[cell_nodes[c][r]], each entry as stored, r in order, each product rounded and then added (the host's element apply,
   hc_assemble_apply, to the bit). Returns the lowest inverted or degenerate cell, or -1. */
static int64_t HC_FN(hc_fused_cells)(const hc_cd_shape *shape, const hc_contract *k, int64_t c0, int64_t c1,
                                     hc_cd_point *pts, HC_REAL *restrict lb, HC_REAL *restrict rb, HC_REAL *restrict ob,
                                     HC_REAL *restrict bt, double *restrict dv, hc_cd_batch *pb, HC_REAL *restrict out,
                                     const int32_t *cell_nodes, const double *u, double *restrict v) {
  const hc_celldata_desc *desc = shape->desc;
  const hc_basis *b = desc->basis;
  const hc_kernel kernel = k->kernel;
  const int64_t C = k->C, P = b->P;
  const hc_family fam = hc_kernel_family(kernel);
  const int rank = (int)hc_kernel_rank(kernel);
  const int Dij = rank == 0 ? 1 : rank == 1 ? 3 : 9;
  const int ff_tensor = kernel == HC_FIELDFIELD_TENSOR;
  const int64_t K = ff_tensor ? 3 * P : P * Dij; /* the contracted length (3 P for every FieldField of rank > 0) */
  const int64_t Lf = fam == HC_FAMILY_DATADATA ? 1 : b->L, Rf = fam == HC_FAMILY_FIELDFIELD ? b->L : 1;
  const int ff = fam == HC_FAMILY_FIELDFIELD, add = k->sum_into;
  int64_t bad = -1;
  const int sumfact = ff && hc_fused_sumfact_takes(b), gemm = ff && !sumfact && Lf >= HC_OMP_FF_GEMM_L;
  const int64_t rp = (Rf + HC_OMP_NR - 1) / HC_OMP_NR * HC_OMP_NR; /* the panel's row stride */
  double *tT = dv + 9 * P + b->L;
  double *uc = tT + 3 * P * b->L; /* [L]: the cell's u */
  double *sf = uc + b->L;         /* hc_fused_ff_sumfact's scratch */
  if (ff && !sumfact) HC_FN(hc_fused_ff_left)(rank, b, lb);
  if (gemm || fam == HC_FAMILY_DATAFIELD) HC_FN(hc_fused_ff_table)(rank, b, tT);
  if (gemm) {
    for (int64_t q = 0; q < K; q++)
      for (int64_t r = Rf; r < rp; r++) bt[q * rp + r] = 0;
  }
  for (int64_t c = c0; c < c1; c++) {
    if (!hc_cd_cell_eval(shape, kernel, c, pts, pb) && bad < 0) bad = c;
    if (fam == HC_FAMILY_DATAFIELD) {
      double *o = dv + 3 * P;
      HC_FN(hc_fused_df_cell)(rank, b, pts, tT, dv, o);
      for (int64_t l = 0; l < Lf; l++) {
        HC_REAL *dst = out + (k->layout == HC_LAYOUT_CELL_MAJOR ? c * Lf + l : l * C + c);
        *dst = add ? *dst + (HC_REAL)o[l] : (HC_REAL)o[l];
      }
      continue;
    }
    const HC_REAL *a = ob; /* the cell's matrix as stored, row-major */
    if (sumfact) {
      /* the element matrix in double, rounded once into the cell's outputs (cell-minor: through ob) */
      const double *E = hc_fused_ff_sumfact(rank, b, pts, sf);
      if (k->layout == HC_LAYOUT_CELL_MAJOR) {
        HC_REAL *o = out + c * Lf * Rf;
        for (int64_t lr = 0; lr < Lf * Rf; lr++) o[lr] = add ? o[lr] + (HC_REAL)E[lr] : (HC_REAL)E[lr];
        a = o;
      } else {
        for (int64_t lr = 0; lr < Lf * Rf; lr++) {
          HC_REAL *o = out + lr * C + c;
          ob[lr] = *o = add ? *o + (HC_REAL)E[lr] : (HC_REAL)E[lr];
        }
      }
    } else {
      if (gemm) {
        HC_FN(hc_fused_ff_right_packed)(rank, b, pts, dv, tT, rp, bt);
      } else if (ff) {
        HC_FN(hc_fused_ff_right)(rank, b, pts, dv, rb);
      } else {
        for (int64_t p = 0; p < P; p++)
          for (int ij = 0; ij < Dij; ij++) lb[p * Dij + ij] = (HC_REAL)pts[p].dl[ij];
        for (int64_t p = 0; p < P; p++)
          for (int ij = 0; ij < Dij; ij++) rb[p * Dij + ij] = (HC_REAL)pts[p].dr[ij];
      }
      /* out[c, l, r] = sum_q left[l][q] right[r][q]: cell-major straight into the cell's outputs, cell-minor through
         ob and then to every C-th entry */
      if (k->layout == HC_LAYOUT_CELL_MAJOR) {
        if (gemm) {
          HC_FN(hc_ff_panel_tiles_openmp)(lb, K, bt, K, rp, out + c * Lf * Rf, Lf, Rf, add, NULL);
        } else {
          HC_FN(hc_ff_cell_small_openmp)(lb, rb, out + c * Lf * Rf, Lf, Rf, K, add);
        }
        a = out + c * Lf * Rf;
      } else {
        if (gemm) {
          HC_FN(hc_ff_panel_tiles_openmp)(lb, K, bt, K, rp, ob, Lf, Rf, 0, NULL);
        } else {
          HC_FN(hc_ff_cell_small_openmp)(lb, rb, ob, Lf, Rf, K, 0);
        }
        for (int64_t lr = 0; lr < Lf * Rf; lr++) {
          HC_REAL *o = out + lr * C + c;
          ob[lr] = *o = add ? *o + ob[lr] : ob[lr];
        }
      }
    }
    if (ff && v) {
      /* every row's sum in r's order, eight rows side by side in registers (independent chains) */
      for (int64_t r = 0; r < Rf; r++) uc[r] = u[cell_nodes[c * Rf + r]];
      int64_t l = 0;
      for (; l + 8 <= Lf; l += 8) {
        double s8[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int64_t r = 0; r < Rf; r++)
          for (int i = 0; i < 8; i++) {
            const double t = (double)a[(l + i) * Rf + r] * uc[r];
            s8[i] += t;
          }
        for (int i = 0; i < 8; i++) v[c * Lf + l + i] = s8[i];
      }
      for (; l < Lf; l++) {
        double s1 = 0;
        for (int64_t r = 0; r < Rf; r++) {
          const double t = (double)a[l * Rf + r] * uc[r];
          s1 += t;
        }
        v[c * Lf + l] = s1;
      }
    }
  }
  return bad;
}

/* Kernel k's output for every cell of shape->desc, threads over contiguous runs of cells. Returns the lowest
   inverted or degenerate cell, or -1; *failed is set when a thread could not allocate its scratch. */
static int64_t HC_FN(hc_fused_openmp)(const hc_cd_shape *shape, const hc_contract *k, HC_REAL *restrict out,
                                      const int32_t *cell_nodes, const double *u, double *v, int *failed) {
  const int64_t C = k->C, P = shape->desc->basis->P, L = shape->desc->basis->L;
  const int rank = (int)hc_kernel_rank(k->kernel);
  const int64_t K = P * (rank == 0 ? 1 : rank == 1 ? 3 : 9);
  int64_t bad = C;
  int fail = 0;
#pragma omp parallel reduction(min : bad) reduction(max : fail)
  {
    const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t c0 = C * t / nt, c1 = C * (t + 1) / nt;
    hc_cd_point *pts = malloc(sizeof(*pts) * (size_t)P);
    const int64_t panel = 3 * P * ((L + HC_OMP_NR - 1) / HC_OMP_NR * HC_OMP_NR); /* FieldField's whole K */
    HC_REAL *lb = malloc(sizeof(*lb) * (size_t)(2 * L * K + L * L + panel));
    const int64_t sf = hc_kernel_family(k->kernel) == HC_FAMILY_FIELDFIELD && hc_fused_sumfact_takes(shape->desc->basis)
                           ? hc_fused_sumfact_doubles(shape->desc->basis)
                           : 0;
    double *dv = malloc(sizeof(*dv) * (size_t)(9 * P + 2 * L + 3 * P * L + sf));
    hc_cd_batch pb = {NULL, NULL, 0};
    int64_t b = -1;
    if (hc_cd_batch_create(P, &pb) != HC_OK || !pts || !lb || !dv) {
      fail = 1;
    } else if (c0 < c1) {
      b = HC_FN(hc_fused_cells)(shape, k, c0, c1, pts, lb, lb + L * K, lb + 2 * L * K, lb + 2 * L * K + L * L, dv, &pb,
                                out, cell_nodes, u, v);
    }
    free(pts);
    free(lb);
    free(dv);
    free(pb.x);
    if (b >= 0) bad = b;
  }
  *failed = fail;
  return bad < C ? bad : -1;
}
