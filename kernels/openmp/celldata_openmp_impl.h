/* The OpenMP cell data for one precision: included once per precision by celldata_openmp.c with HC_REAL
   and HC_FN(name). Threads take blocks of HC_OMP_CD_CB cells; each entry of the arrays is written for the
   cells of a block in turn, contiguous in cell-minor arrays and one stream per cell in cell-major ones.
   The point-wise maths is that of the serial reference (hc_pointwise.h). */

/* Fills left and right for every cell of desc. Returns the lowest inverted or degenerate cell, or -1;
 *failed is set when a thread could not allocate its scratch. */
static int64_t HC_FN(hc_celldata_omp)(const hc_celldata_desc *desc, hc_kernel kernel, HC_REAL *restrict left,
                                      HC_REAL *restrict right, int *failed) {
  const hc_basis *b = desc->basis;
  const int64_t C = desc->C, P = b->P, CB = HC_OMP_CD_CB;
  const hc_family fam = hc_kernel_family(kernel);
  const int rank = (int)hc_kernel_rank(kernel);
  const int Di = rank >= 1 ? 3 : 1, Dj = rank == 2 ? 3 : 1;
  const int64_t Lf = fam == HC_FAMILY_DATADATA ? 1 : b->L;      /* fields of left */
  const int64_t Rf = fam == HC_FAMILY_FIELDFIELD ? b->L : 1;    /* fields of right */
  const int64_t lin = Lf * P * Di * Dj, rin = Rf * P * Di * Dj; /* entries per cell */
  const int cm = desc->layout == HC_LAYOUT_CELL_MAJOR;
  const int64_t nblk = (C + CB - 1) / CB;
  int64_t bad = C;
  int fail = 0;
#pragma omp parallel reduction(min : bad) reduction(max : fail)
  {
    /* geom, data: [CB][P] per thread */
    hc_point_geom *geom = malloc(sizeof(*geom) * CB * P);
    hc_point_data *data = malloc(sizeof(*data) * CB * P);
#pragma omp for schedule(static)
    for (int64_t blk = 0; blk < nblk; blk++) {
      if (!geom || !data) {
        fail = 1;
        continue;
      }
      const int64_t c0 = blk * CB, nc = C - c0 < CB ? C - c0 : CB;
      for (int64_t cb = 0; cb < nc; cb++) {
        double xv[8][3];
        hc_pw_cell_vertices(&desc->motion, desc->t, desc->X0 + 24 * (c0 + cb), xv);
        const double det_floor = hc_pw_det_floor(xv);
        for (int64_t p = 0; p < P; p++) {
          hc_point_geom *g = &geom[cb * P + p];
          if (!hc_pw_geometry(xv, &b->qpts[3 * p], b->qwts[p], det_floor, g) && c0 + cb < bad) bad = c0 + cb;
          hc_pw_data(&desc->data, kernel, g->x, desc->t, &data[cb * P + p]);
        }
      }
      double grad[HC_OMP_CD_CB][3];
      /* left: [Lf][P][Di][Dj] per cell */
      int64_t q = 0;
      for (int64_t l = 0; l < Lf; l++) {
        for (int64_t p = 0; p < P; p++) {
          const double phi = fam != HC_FAMILY_DATADATA ? b->phi[l * P + p] : 0.0;
          for (int64_t cb = 0; cb < nc; cb++) {
            if (fam != HC_FAMILY_DATADATA) hc_pw_phys_grad(geom[cb * P + p].Jinv, &b->grad[3 * (l * P + p)], grad[cb]);
          }
          for (int i = 0; i < Di; i++) {
            for (int j = 0; j < Dj; j++, q++) {
              for (int64_t cb = 0; cb < nc; cb++) {
                const hc_point_geom *g = &geom[cb * P + p];
                const hc_point_data *d = &data[cb * P + p];
                double v = fam == HC_FAMILY_DATADATA ? hc_pw_datadata_left(rank, d, g->wdet, i, j)
                                                     : hc_pw_field_left(rank, phi, grad[cb], d, g->wdet, i, j);
                left[cm ? (c0 + cb) * lin + q : q * C + c0 + cb] = (HC_REAL)v;
              }
            }
          }
        }
      }
      /* right: [Rf][P][Di][Dj] per cell */
      q = 0;
      for (int64_t r = 0; r < Rf; r++) {
        for (int64_t p = 0; p < P; p++) {
          const double phi = fam == HC_FAMILY_FIELDFIELD ? b->phi[r * P + p] : 0.0;
          for (int64_t cb = 0; cb < nc; cb++) {
            if (fam == HC_FAMILY_FIELDFIELD)
              hc_pw_phys_grad(geom[cb * P + p].Jinv, &b->grad[3 * (r * P + p)], grad[cb]);
          }
          for (int i = 0; i < Di; i++) {
            for (int j = 0; j < Dj; j++, q++) {
              for (int64_t cb = 0; cb < nc; cb++) {
                const hc_point_data *d = &data[cb * P + p];
                double v = fam == HC_FAMILY_FIELDFIELD  ? hc_pw_fieldfield_right(rank, phi, grad[cb], i, j)
                           : fam == HC_FAMILY_DATAFIELD ? hc_pw_datafield_right(rank, d, i, j)
                                                        : hc_pw_datadata_right(rank, d, i, j);
                right[cm ? (c0 + cb) * rin + q : q * C + c0 + cb] = (HC_REAL)v;
              }
            }
          }
        }
      }
    }
    free(geom);
    free(data);
  }
  *failed = fail;
  return bad < C ? bad : -1;
}
