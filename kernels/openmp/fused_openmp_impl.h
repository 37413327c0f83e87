/* The OpenMP fused assembly for one precision: included once per precision by celldata_openmp.c with HC_REAL
   and HC_FN(name), after celldata_openmp_impl.h, whose per-cell formation of the entries it shares. */

/* FieldFieldTensor's entries of field f of one cell with the sum over i taken first: the right array repeats
   d_j phi_r over i, so sum_ij (kappa_ij d_i phi_l w|J|) d_j phi_r = sum_j (sum_i kappa_ij d_i phi_l w|J|) d_j phi_r,
   ol[p][j] = sum_i kappa_ij d_i phi_f w|J| (in double, rounded once) and orr[p][j] = d_j phi_f: a contracted
   length of 3 P instead of 9 P. */
static void HC_FN(hc_fused_ff_tensor_field)(int64_t f, const hc_basis *b, const hc_cd_point *pts, HC_REAL *restrict ol,
                                            HC_REAL *restrict orr) {
  const int64_t P = b->P;
  for (int64_t p = 0; p < P; p++) {
    const hc_cd_point *pt = &pts[p];
    const double *gr = &b->grad[3 * (f * P + p)];
    double g[3];
    for (int m = 0; m < 3; m++) g[m] = hc_cd_grad(pt->J[m], pt->J[3 + m], pt->J[6 + m], gr);
    for (int j = 0; j < 3; j++) {
      double a = 0.0;
      for (int i = 0; i < 3; i++) a += hc_cd_left(2, 0.0, g[i], pt->dl[i * 3 + j], pt->wdet);
      ol[p * 3 + j] = (HC_REAL)a;
      orr[p * 3 + j] = (HC_REAL)g[j];
    }
  }
}

/* DataField's outputs of one cell (o: [L]) taken in the reference space, as the cuda kernel takes them
   (celldata_cuda.cu, fused_points): sum_ij left(l,p,ij) right(p,ij) is phi_l(p) v(p) with v = w|J| f (Scalar), or
   sum_k dref_k phi_l(p) v_k(p) with v_k = sum_i (J^-1)_ki M_i, M_i = w|J| F_i (Vector) or w|J| sum_j kappa_ij s_ij
   (Tensor), the physical gradient being d_i phi_l = sum_k (J^-1)_ki dref_k phi_l: the same sums as the
   materialized contraction's, grouped otherwise, in double. v: [3 P] scratch. */
static void HC_FN(hc_fused_df_cell)(int rank, const hc_basis *b, const hc_cd_point *pts, double *restrict v,
                                    double *restrict o) {
  const int64_t P = b->P, L = b->L;
  for (int64_t p = 0; p < P; p++) {
    const hc_cd_point *pt = &pts[p];
    if (rank == 0) {
      v[p] = pt->dr[0] * pt->wdet;
      continue;
    }
    double M[3];
    for (int i = 0; i < 3; i++)
      M[i] = rank == 1 ? pt->dr[i] * pt->wdet
                       : (pt->dl[3 * i] * pt->dr[3 * i] + pt->dl[3 * i + 1] * pt->dr[3 * i + 1] +
                          pt->dl[3 * i + 2] * pt->dr[3 * i + 2]) *
                             pt->wdet;
    for (int k = 0; k < 3; k++) v[3 * p + k] = pt->J[3 * k] * M[0] + pt->J[3 * k + 1] * M[1] + pt->J[3 * k + 2] * M[2];
  }
  for (int64_t l = 0; l < L; l++) {
    double acc = 0.0;
    if (rank == 0) {
      const double *phi = &b->phi[l * P];
      for (int64_t p = 0; p < P; p++) acc += phi[p] * v[p];
    } else {
      const double *gr = &b->grad[3 * l * P];
      for (int64_t q = 0; q < 3 * P; q++) acc += gr[q] * v[q];
    }
    o[l] = acc;
  }
}

/* Cells [c0, c1) of kernel k: each cell's left (lb: [Lf][K]) and right (rb: [Rf][K]) entries, the same numbers
   the cell data writes cell-major (FieldFieldTensor's summed over i first, K = 3 P), formed in the thread's scratch
   from the point values pts ([P]) and contracted at once into out (k's layout, overwritten or, with k->sum_into, added
   to; ob: [Lf][Rf], a cell-minor cell's outputs before they are spread), FieldField of HC_OMP_FF_GEMM_L or more
   fields with the materialized contraction's packed GEMM (bt: its panel, hc_ff_panel_openmp scalars), the rest with
   dot products; DataField in the reference space (hc_fused_df_cell, with dv: [3 P + L] doubles); pb: a batch of P
   points. Returns the lowest inverted or degenerate cell, or -1. */
static int64_t HC_FN(hc_fused_cells)(const hc_cd_shape *shape, const hc_contract *k, int64_t c0, int64_t c1,
                                     hc_cd_point *pts, HC_REAL *restrict lb, HC_REAL *restrict rb, HC_REAL *restrict ob,
                                     HC_REAL *restrict bt, double *restrict dv, hc_cd_batch *pb,
                                     HC_REAL *restrict out) {
  const hc_celldata_desc *desc = shape->desc;
  const hc_basis *b = desc->basis;
  const hc_kernel kernel = k->kernel;
  const int64_t C = k->C, P = b->P;
  const hc_family fam = hc_kernel_family(kernel);
  const int rank = (int)hc_kernel_rank(kernel);
  const int Dij = rank == 0 ? 1 : rank == 1 ? 3 : 9;
  const int ff_tensor = kernel == HC_FIELDFIELD_TENSOR;
  const int64_t K = ff_tensor ? 3 * P : P * Dij; /* the contracted length */
  const int64_t Lf = fam == HC_FAMILY_DATADATA ? 1 : b->L, Rf = fam == HC_FAMILY_FIELDFIELD ? b->L : 1;
  const int field = fam != HC_FAMILY_DATADATA, ff = fam == HC_FAMILY_FIELDFIELD, add = k->sum_into;
  const int n = desc->geometry_nodes;
  int64_t bad = -1;
  for (int64_t c = c0; c < c1; c++) {
    double xn[HC_GEOMETRY_NODES_MAX][3];
    hc_pw_cell_nodes(&desc->motion, desc->t, n, desc->X0 + 3 * n * c, xn);
    const double det_floor = hc_pw_nodes_det_floor(n, xn);
    if (!hc_cd_cell_eval(shape, kernel, xn, det_floor, pts, pb) && bad < 0) bad = c;
    if (fam == HC_FAMILY_DATAFIELD) {
      double *o = dv + 3 * P;
      HC_FN(hc_fused_df_cell)(rank, b, pts, dv, o);
      for (int64_t l = 0; l < Lf; l++) {
        HC_REAL *dst = out + (k->layout == HC_LAYOUT_CELL_MAJOR ? c * Lf + l : l * C + c);
        *dst = add ? *dst + (HC_REAL)o[l] : (HC_REAL)o[l];
      }
      continue;
    }
    for (int64_t f = 0; f < Lf; f++) {
      HC_REAL *ol = lb + f * K, *orr = ff ? rb + f * K : NULL;
      if (!field) {
        for (int64_t p = 0; p < P; p++)
          for (int ij = 0; ij < Dij; ij++) ol[p * Dij + ij] = (HC_REAL)pts[p].dl[ij];
      } else if (rank == 0) {
        HC_FN(hc_cd_major_field)(0, f, b, pts, ol, orr);
      } else if (rank == 1) {
        HC_FN(hc_cd_major_field)(1, f, b, pts, ol, orr);
      } else if (ff_tensor) {
        HC_FN(hc_fused_ff_tensor_field)(f, b, pts, ol, orr);
      } else {
        HC_FN(hc_cd_major_field)(2, f, b, pts, ol, orr);
      }
    }
    if (!ff)
      for (int64_t p = 0; p < P; p++)
        for (int ij = 0; ij < Dij; ij++) rb[p * Dij + ij] = (HC_REAL)pts[p].dr[ij];
    /* out[c, l, r] = sum_q left[l][q] right[r][q]: cell-major straight into the cell's outputs, cell-minor through
       ob and then to every C-th entry */
    const int gemm = ff && Lf >= HC_OMP_FF_GEMM_L;
    if (k->layout == HC_LAYOUT_CELL_MAJOR) {
      if (gemm) {
        HC_FN(hc_ff_cell_openmp)(lb, rb, out + c * Lf * Rf, Lf, Rf, K, add, bt);
      } else {
        HC_FN(hc_ff_cell_dots_openmp)(lb, rb, out + c * Lf * Rf, Lf, Rf, K, add);
      }
    } else {
      if (gemm) {
        HC_FN(hc_ff_cell_openmp)(lb, rb, ob, Lf, Rf, K, 0, bt);
      } else {
        HC_FN(hc_ff_cell_dots_openmp)(lb, rb, ob, Lf, Rf, K, 0);
      }
      for (int64_t lr = 0; lr < Lf * Rf; lr++) {
        HC_REAL *o = out + lr * C + c;
        *o = add ? *o + ob[lr] : ob[lr];
      }
    }
  }
  return bad;
}

/* Kernel k's output for every cell of shape->desc, threads over contiguous runs of cells. Returns the lowest
   inverted or degenerate cell, or -1; *failed is set when a thread could not allocate its scratch. */
static int64_t HC_FN(hc_fused_openmp)(const hc_cd_shape *shape, const hc_contract *k, HC_REAL *restrict out,
                                      int *failed) {
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
    const int64_t panel = hc_ff_panel_openmp(K, L, (int64_t)sizeof(HC_REAL));
    HC_REAL *lb = malloc(sizeof(*lb) * (size_t)(2 * L * K + L * L + panel));
    double *dv = malloc(sizeof(*dv) * (size_t)(3 * P + L));
    hc_cd_batch pb = {NULL, NULL, 0};
    int64_t b = -1;
    if (hc_cd_batch_create(P, &pb) != HC_OK || !pts || !lb || !dv) {
      fail = 1;
    } else if (c0 < c1) {
      b = HC_FN(hc_fused_cells)(shape, k, c0, c1, pts, lb, lb + L * K, lb + 2 * L * K, lb + 2 * L * K + L * L, dv, &pb,
                                out);
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
