/* The serial reference cell data for one precision: included once per precision by celldata_serial.c with
   HC_REAL (the stored scalar type) and HC_FN(name). Plain loops, cell by cell: the geometry (trilinear or
   triquadratic, hc_pw_nodes_geometry) and data at every point, then each array's entries in C order of their
   inner indices. Computed in double. */

/* Fills left and right for every cell of desc (layout as in hc_contract: entry q of cell c at
   c * inner + q cell-major, q * C + c cell-minor). geom, data: [P] scratch. Returns the first inverted or
   degenerate cell, or -1. */
static int64_t HC_FN(hc_celldata_serial)(const hc_celldata_desc *desc, hc_kernel kernel, HC_REAL *left, HC_REAL *right,
                                         hc_point_geom *geom, hc_point_data *data) {
  const hc_basis *b = desc->basis;
  const int64_t C = desc->C, P = b->P;
  const hc_family fam = hc_kernel_family(kernel);
  const int rank = (int)hc_kernel_rank(kernel);
  const int Di = rank >= 1 ? 3 : 1, Dj = rank == 2 ? 3 : 1;
  const int64_t Lf = fam == HC_FAMILY_DATADATA ? 1 : b->L;      /* fields of left */
  const int64_t Rf = fam == HC_FAMILY_FIELDFIELD ? b->L : 1;    /* fields of right */
  const int64_t lin = Lf * P * Di * Dj, rin = Rf * P * Di * Dj; /* entries per cell */
  const int cm = desc->layout == HC_LAYOUT_CELL_MAJOR;
  const int n = desc->geometry_nodes; /* 8 or 27 */
  for (int64_t c = 0; c < C; c++) {
    double xn[HC_GEOMETRY_NODES_MAX][3];
    hc_pw_cell_nodes(&desc->motion, desc->t, n, desc->X0 + 3 * n * c, xn);
    const double det_floor = hc_pw_nodes_det_floor(n, xn);
    for (int64_t p = 0; p < P; p++) {
      if (!hc_pw_nodes_geometry(n, xn, &b->qpts[3 * p], b->qwts[p], det_floor, &geom[p])) return c;
      hc_pw_data(&desc->data, kernel, geom[p].x, desc->t, &data[p]);
    }
    /* left: [Lf][P][Di][Dj] per cell */
    int64_t q = 0;
    for (int64_t l = 0; l < Lf; l++) {
      for (int64_t p = 0; p < P; p++) {
        double phi = 0.0, grad[3] = {0.0, 0.0, 0.0};
        if (fam != HC_FAMILY_DATADATA) {
          phi = b->phi[l * P + p];
          hc_pw_phys_grad(geom[p].Jinv, &b->grad[3 * (l * P + p)], grad);
        }
        for (int i = 0; i < Di; i++) {
          for (int j = 0; j < Dj; j++, q++) {
            double v = fam == HC_FAMILY_DATADATA ? hc_pw_datadata_left(rank, &data[p], geom[p].wdet, i, j)
                                                 : hc_pw_field_left(rank, phi, grad, &data[p], geom[p].wdet, i, j);
            left[cm ? c * lin + q : q * C + c] = (HC_REAL)v;
          }
        }
      }
    }
    /* right: [Rf][P][Di][Dj] per cell */
    q = 0;
    for (int64_t r = 0; r < Rf; r++) {
      for (int64_t p = 0; p < P; p++) {
        double phi = 0.0, grad[3] = {0.0, 0.0, 0.0};
        if (fam == HC_FAMILY_FIELDFIELD) {
          phi = b->phi[r * P + p];
          hc_pw_phys_grad(geom[p].Jinv, &b->grad[3 * (r * P + p)], grad);
        }
        for (int i = 0; i < Di; i++) {
          for (int j = 0; j < Dj; j++, q++) {
            double v = fam == HC_FAMILY_FIELDFIELD  ? hc_pw_fieldfield_right(rank, phi, grad, i, j)
                       : fam == HC_FAMILY_DATAFIELD ? hc_pw_datafield_right(rank, &data[p], i, j)
                                                    : hc_pw_datadata_right(rank, &data[p], i, j);
            right[cm ? c * rin + q : q * C + c] = (HC_REAL)v;
          }
        }
      }
    }
  }
  return -1;
}
