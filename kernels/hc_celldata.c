/* Backend-independent parts of the cell data: the descriptor, dispatch and the host geometry helpers. */
#include "kernels/hc_celldata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hc_celldata_desc_init(hc_celldata_desc *desc, const hc_basis *basis, int64_t C, const double *X0, double LX,
                           double LY, double LZ) {
  memset(desc, 0, sizeof(*desc));
  desc->C = C;
  desc->geometry_nodes = 8;
  desc->X0 = X0;
  desc->t = 0.0;
  desc->motion.LX = LX, desc->motion.LY = LY, desc->motion.LZ = LZ;
  desc->motion.A = 0.0, desc->motion.omega = 0.0;
  desc->data.mode = HC_DATA_SMOOTH;
  desc->data.LX = LX, desc->data.LY = LY, desc->data.LZ = LZ;
  desc->basis = basis;
  desc->layout = HC_LAYOUT_CELL_MAJOR;
  desc->precision = HC_DOUBLE;
}

void hc_celldata_shear(const hc_motion *m, int64_t C, int n, const double *X0, double *f) {
  for (int64_t i = 0; i < C * n; i++) f[i] = hc_motion_factor(m, X0 + 3 * i);
}

int hc_geometry_cache_matches(const hc_geometry_cache *g, const hc_celldata_desc *desc) {
  const hc_motion *a = &g->motion, *b = &desc->motion;
  return g->valid && g->X0 == desc->X0 && g->shear == desc->shear && g->t == desc->t && g->C == desc->C &&
         g->geometry_nodes == desc->geometry_nodes && g->basis == desc->basis && a->LX == b->LX && a->LY == b->LY &&
         a->LZ == b->LZ && a->A == b->A && a->omega == b->omega;
}

void hc_geometry_cache_set_key(hc_geometry_cache *g, const hc_celldata_desc *desc) {
  g->X0 = desc->X0, g->shear = desc->shear, g->t = desc->t, g->motion = desc->motion, g->C = desc->C;
  g->geometry_nodes = desc->geometry_nodes, g->basis = desc->basis;
  g->valid = 1;
}

int hc_celldata_validate(const hc_celldata_desc *desc) {
  HC_CHECK(desc, HC_ERR_INPUT, "cell data: no descriptor");
  HC_CHECK(desc->C >= 1, HC_ERR_INPUT, "cell data: cell count C must be >= 1, got %lld", (long long)desc->C);
  HC_CHECK(desc->geometry_nodes == 8 || desc->geometry_nodes == 27, HC_ERR_INPUT,
           "cell data: geometry nodes per cell must be 8 (trilinear) or 27 (triquadratic), got %d",
           desc->geometry_nodes);
  HC_CHECK(desc->X0, HC_ERR_INPUT, "cell data: no geometry node array X0");
  HC_CHECK(desc->basis, HC_ERR_INPUT, "cell data: no basis");
  const hc_motion *m = &desc->motion;
  HC_CHECK(m->LY > 0 && m->LZ > 0, HC_ERR_INPUT, "cell data: motion box lengths LY, LZ must be > 0, got %g, %g", m->LY,
           m->LZ);
  const hc_data_params *d = &desc->data;
  HC_CHECK(d->LX > 0 && d->LY > 0 && d->LZ > 0, HC_ERR_INPUT,
           "cell data: data box lengths LX, LY, LZ must be > 0, got %g, %g, %g", d->LX, d->LY, d->LZ);
  HC_CHECK(d->mode == HC_DATA_SMOOTH || d->mode == HC_DATA_CONSTANT || d->mode == HC_DATA_POLYNOMIAL, HC_ERR_INPUT,
           "cell data: invalid data mode %d (expected smooth 0, constant 1 or polynomial 2)", (int)d->mode);
  HC_CHECK(d->mode != HC_DATA_POLYNOMIAL || (d->degree[0] >= 0 && d->degree[1] >= 0 && d->degree[2] >= 0), HC_ERR_INPUT,
           "cell data: polynomial degrees must be >= 0, got %d, %d, %d", d->degree[0], d->degree[1], d->degree[2]);
  HC_CHECK(desc->layout == HC_LAYOUT_CELL_MAJOR || desc->layout == HC_LAYOUT_CELL_MINOR, HC_ERR_INPUT,
           "cell data: invalid layout %d", (int)desc->layout);
  HC_CHECK(desc->precision == HC_DOUBLE || desc->precision == HC_FLOAT, HC_ERR_INPUT, "cell data: invalid precision %d",
           (int)desc->precision);
  return HC_OK;
}

int hc_celldata_contract(const hc_celldata_desc *desc, hc_kernel kernel, hc_contract *k) {
  HC_CHECK(kernel >= 0 && kernel < HC_NUM_KERNELS, HC_ERR_INPUT, "cell data: invalid kernel id %d", (int)kernel);
  HC_CALL(hc_celldata_validate(desc));
  hc_family fam = hc_kernel_family(kernel);
  hc_contract_init(k, kernel);
  k->C = desc->C;
  k->L = fam == HC_FAMILY_DATADATA ? 1 : desc->basis->L;
  k->R = fam == HC_FAMILY_FIELDFIELD ? desc->basis->L : 1;
  k->P = k->P_data = desc->basis->P;
  k->D = hc_kernel_rank(kernel) == HC_RANK_SCALAR ? 1 : 3;
  k->layout = desc->layout;
  k->precision = desc->precision;
  return HC_OK;
}

int hc_celldata_fill(const hc_backend *backend, const hc_celldata_desc *desc, hc_kernel kernel, void *left,
                     void *right) {
  hc_contract k;
  HC_CHECK(backend, HC_ERR_INPUT, "cell data: no backend");
  HC_CALL(hc_celldata_contract(desc, kernel, &k));
  HC_CHECK(left && right, HC_ERR_INPUT, "cell data: %s needs both a left and a right array", hc_kernel_name(kernel));
  return backend->celldata(desc, kernel, left, right);
}

/* The checks of hc_fused_apply's arguments. */
static int hc_fused_args(const hc_backend *backend, const hc_celldata_desc *desc, const hc_contract *k) {
  hc_contract kd;
  HC_CHECK(backend && k, HC_ERR_INPUT, "fused assembly: no backend or no problem");
  HC_CALL(hc_celldata_contract(desc, k->kernel, &kd));
  HC_CHECK(k->C == kd.C && k->L == kd.L && k->R == kd.R && k->P == kd.P && k->D == kd.D && k->P_data == kd.P_data &&
               k->layout == kd.layout && k->precision == kd.precision,
           HC_ERR_INPUT, "fused assembly: the %s problem does not match the cell data (C %lld, L %d, P %d, %s, %s)",
           hc_kernel_name(k->kernel), (long long)kd.C, kd.L, kd.P, hc_layout_name(kd.layout),
           hc_precision_name(kd.precision));
  return HC_OK;
}

/* rc, where the backend says it does not take the case, with the backend's name. */
static int hc_fused_named(const hc_backend *backend, int rc) {
  if (rc == HC_ERR_UNSUPPORTED) {
    char why[512];
    snprintf(why, sizeof(why), "%s", hc_error_message());
    return HC_ERROR(rc, "backend %s: %s", backend->name, why);
  }
  return rc;
}

int hc_fused_apply(const hc_backend *backend, const hc_celldata_desc *desc, const hc_contract *k, void *out) {
  HC_CALL(hc_fused_args(backend, desc, k));
  HC_CHECK(out, HC_ERR_INPUT, "fused assembly: %s needs an output array", hc_kernel_name(k->kernel));
  return hc_fused_named(backend, backend->fused(desc, k, out));
}

int hc_fused_element_takes(const hc_backend *backend, const hc_celldata_desc *desc, const hc_contract *k) {
  HC_CALL(hc_fused_args(backend, desc, k));
  HC_CHECK(hc_kernel_family(k->kernel) == HC_FAMILY_FIELDFIELD && k->L == k->R, HC_ERR_INPUT,
           "fused assembly: the element apply takes a square FieldField output, got %s with L = %d, R = %d",
           hc_kernel_name(k->kernel), k->L, k->R);
  return hc_fused_named(backend, backend->fused_element(desc, k, NULL, NULL, NULL, NULL));
}

int hc_fused_element(const hc_backend *backend, const hc_celldata_desc *desc, const hc_contract *k, void *out,
                     const int32_t *cell_nodes, const double *u, double *v) {
  HC_CALL(hc_fused_element_takes(backend, desc, k));
  HC_CHECK(out && cell_nodes && u && v, HC_ERR_INPUT,
           "fused assembly: the element apply of %s needs out, cell_nodes, u and v", hc_kernel_name(k->kernel));
  return hc_fused_named(backend, backend->fused_element(desc, k, out, cell_nodes, u, v));
}

int hc_fused_assemble_takes(const hc_backend *backend, const hc_celldata_desc *desc, const hc_contract *k) {
  HC_CALL(hc_fused_args(backend, desc, k));
  const hc_family fam = hc_kernel_family(k->kernel);
  HC_CHECK(fam == HC_FAMILY_DATAFIELD || (fam == HC_FAMILY_FIELDFIELD && k->L == k->R), HC_ERR_INPUT,
           "fused assembly into the nodal vector takes a DataField or square FieldField output, got %s with L = %d, "
           "R = %d",
           hc_kernel_name(k->kernel), k->L, k->R);
  return hc_fused_named(backend, backend->fused_assemble(desc, k, NULL, NULL, NULL, NULL));
}

int hc_fused_assemble(const hc_backend *backend, const hc_celldata_desc *desc, const hc_contract *k, void *out,
                      const int32_t *cell_nodes, const double *u, double *y) {
  HC_CALL(hc_fused_assemble_takes(backend, desc, k));
  const int ff = hc_kernel_family(k->kernel) == HC_FAMILY_FIELDFIELD;
  HC_CHECK(out && cell_nodes && y && (u || !ff), HC_ERR_INPUT,
           "fused assembly of %s into the nodal vector needs out, cell_nodes, y%s", hc_kernel_name(k->kernel),
           ff ? " and u" : "");
  return hc_fused_named(backend, backend->fused_assemble(desc, k, out, cell_nodes, u, y));
}

int hc_celldata_cell_error(const hc_celldata_desc *desc, int64_t c, const double *h_X0c) {
  const hc_basis *b = desc->basis;
  const int n = desc->geometry_nodes;
  double xn[HC_GEOMETRY_NODES_MAX][3];
  hc_pw_cell_nodes(&desc->motion, desc->t, n, h_X0c, xn);
  double det_floor = hc_pw_nodes_det_floor(n, xn);
  for (int p = 0; p < b->P; p++) {
    hc_point_geom g;
    const double *xi = &b->qpts[3 * p];
    if (!hc_pw_nodes_geometry(n, xn, xi, b->qwts[p], det_floor, &g)) {
      char name[64];
      if (desc->cell_tag) {
        snprintf(name, sizeof(name), "cell %lld of the mesh file", (long long)desc->cell_tag[c]);
      } else {
        snprintf(name, sizeof(name), "cell %lld", (long long)c);
      }
      return HC_ERROR(HC_ERR_INPUT,
                      "%s is inverted or degenerate at t = %g: det J = %g at quadrature point %d "
                      "(xi = %.3f, %.3f, %.3f; x = %g, %g, %g), must exceed %g (its %s cross or collapse: "
                      "reduce the %sshear amplitude)",
                      name, desc->t, g.det, p, xi[0], xi[1], xi[2], g.x[0], g.x[1], g.x[2], det_floor,
                      n == 8 ? "vertices" : "27 geometry nodes", desc->cell_tag ? "" : "jitter or the ");
    }
  }
  return HC_ERROR(HC_ERR_RUNTIME,
                  "cell %lld was flagged as inverted or degenerate, but its host recomputation is valid", (long long)c);
}

int hc_celldata_geometry(const hc_celldata_desc *desc, hc_point_geom *geom) {
  HC_CALL(hc_celldata_validate(desc));
  const hc_basis *b = desc->basis;
  const int P = b->P, n = desc->geometry_nodes;
  for (int64_t c = 0; c < desc->C; c++) {
    const double *X0c = desc->X0 + 3 * n * c;
    double xn[HC_GEOMETRY_NODES_MAX][3];
    hc_pw_cell_nodes(&desc->motion, desc->t, n, X0c, xn);
    double det_floor = hc_pw_nodes_det_floor(n, xn);
    for (int p = 0; p < P; p++) {
      if (!hc_pw_nodes_geometry(n, xn, &b->qpts[3 * p], b->qwts[p], det_floor, &geom[c * P + p])) {
        return hc_celldata_cell_error(desc, c, X0c);
      }
    }
  }
  return HC_OK;
}

int hc_celldata_volumes(const hc_celldata_desc *desc, double *volume) {
  HC_CALL(hc_celldata_validate(desc));
  const hc_basis *b = desc->basis;
  const int n = desc->geometry_nodes;
  for (int64_t c = 0; c < desc->C; c++) {
    const double *X0c = desc->X0 + 3 * n * c;
    double xn[HC_GEOMETRY_NODES_MAX][3];
    hc_pw_cell_nodes(&desc->motion, desc->t, n, X0c, xn);
    double det_floor = hc_pw_nodes_det_floor(n, xn), sum = 0.0;
    for (int p = 0; p < b->P; p++) {
      hc_point_geom g;
      if (!hc_pw_nodes_geometry(n, xn, &b->qpts[3 * p], b->qwts[p], det_floor, &g))
        return hc_celldata_cell_error(desc, c, X0c);
      sum += g.wdet;
    }
    volume[c] = sum;
  }
  return HC_OK;
}

int hc_celldata_nodes(const hc_celldata_desc *desc, double *x) {
  HC_CALL(hc_celldata_validate(desc));
  const hc_basis *b = desc->basis;
  const int L = b->L, n = desc->geometry_nodes;
  for (int64_t c = 0; c < desc->C; c++) {
    double xn[HC_GEOMETRY_NODES_MAX][3], N[HC_GEOMETRY_NODES_MAX], dN[HC_GEOMETRY_NODES_MAX][3], J[3][3];
    hc_pw_cell_nodes(&desc->motion, desc->t, n, desc->X0 + 3 * n * c, xn);
    for (int l = 0; l < L; l++) {
      hc_pw_shape(n, &b->nodes[3 * l], N, dN);
      hc_pw_map_at(n, xn, N, dN, &x[(c * L + l) * 3], J);
    }
  }
  return HC_OK;
}
