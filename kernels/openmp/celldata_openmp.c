/* The OpenMP cell data, both precisions. Each thread takes a contiguous run of cells. For every cell
   (cell-major) or block of cells and points (cell-minor) it computes the geometry and data at each point
   once, with the point-wise maths of the serial reference (hc_pointwise.h), into per-point arrays; then
   it forms the entries in the order they lie in memory, a contiguous run at a time in a small buffer,
   and writes the runs out with streaming stores (kernels/openmp/hc_stream.h). This file is compiled
   without contraction of multiplies and adds into FMAs, so that both layouts give the same numbers.
   The fused assembly (fused_openmp_impl.h) forms the same entries one cell at a time in a thread's
   scratch and contracts them there (with the contractions' packed GEMM, gemm_openmp_impl.h, or their dot
   products, dots_openmp_impl.h), so that no input array is stored. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/hc_celldata.h"
#include "kernels/openmp/hc_omp_gemm.h"
#include "kernels/openmp/hc_stream.h"

/* Cell-minor: cells and points per block. A row of a block (one entry of HC_OMP_CD_CB cells) is 512
   bytes in double, and the block's per-point values (HC_OMP_CD_CB x HC_OMP_CD_PB points) stay in the L2
   cache. */
#define HC_OMP_CD_CB 64
#define HC_OMP_CD_PB 16

/* The values at one point that every entry of a kernel's arrays is made from. */
typedef struct hc_cd_point {
  double wdet;  /* quadrature weight times |det J| */
  double J[9];  /* [3 k + i] = (J^-1)[k][i], for the gradients */
  double dl[9]; /* [i Dj + j]: kappa_ij for the field kernels' left arrays; the DataData left entries */
  double dr[9]; /* [i Dj + j]: the DataField and DataData right entries */
} hc_cd_point;

/* The same values for a block of n points, one array per value (cell-minor, where a row of entries runs
   over cells). */
typedef struct hc_cd_points {
  double *wdet, *J[9], *dl[9], *dr[9];
  double *mem;
} hc_cd_points;

static int hc_cd_points_create(int64_t n, hc_cd_points *s) {
  s->mem = malloc(sizeof(*s->mem) * (size_t)(28 * n));
  if (!s->mem) return HC_ERR_RESOURCE;
  s->wdet = s->mem;
  for (int k = 0; k < 9; k++) {
    s->J[k] = s->mem + (1 + k) * n;
    s->dl[k] = s->mem + (10 + k) * n;
    s->dr[k] = s->mem + (19 + k) * n;
  }
  return HC_OK;
}

/* Entry n of s from pt: the values that kernel's entries use. */
static inline void hc_cd_points_put(hc_cd_points *s, int64_t n, hc_kernel kernel, const hc_cd_point *pt) {
  const hc_family fam = hc_kernel_family(kernel);
  const int rank = (int)hc_kernel_rank(kernel), Dij = rank == 0 ? 1 : rank == 1 ? 3 : 9;
  s->wdet[n] = pt->wdet;
  if (fam != HC_FAMILY_DATADATA && rank > 0)
    for (int k = 0; k < 9; k++) s->J[k][n] = pt->J[k];
  if (fam == HC_FAMILY_DATADATA || rank == 2)
    for (int k = 0; k < Dij; k++) s->dl[k][n] = pt->dl[k];
  if (fam != HC_FAMILY_FIELDFIELD)
    for (int k = 0; k < Dij; k++) s->dr[k][n] = pt->dr[k];
}

/* The cell data being filled, and the shape functions of its geometry nodes (n = 8 trilinear or 27
   triquadratic, desc->geometry_nodes) at its quadrature points. */
typedef struct hc_cd_shape {
  const hc_celldata_desc *desc;
  double *N;       /* [P][n] */
  double (*dN)[3]; /* [P][n][3] */
} hc_cd_shape;

/* The values of kernel at point p of the cell with geometry nodes xn ([n][3]). Returns 0 when the cell is
   inverted or degenerate there (the values are then not to be used). */
static int hc_cd_point_eval(const hc_cd_shape *shape, hc_kernel kernel, const double (*xn)[3], double det_floor,
                            int64_t p, hc_cd_point *pt) {
  const hc_celldata_desc *desc = shape->desc;
  const hc_family fam = hc_kernel_family(kernel);
  const int rank = (int)hc_kernel_rank(kernel);
  const int Di = rank >= 1 ? 3 : 1, Dj = rank == 2 ? 3 : 1;
  hc_point_geom g;
  hc_point_data d;
  const int n = desc->geometry_nodes;
  const double w = desc->basis->qwts[p];
  /* with a constant node count, so that the trilinear map's loops are specialised as before */
  const int ok = n == 8 ? hc_pw_nodes_geometry_at(8, xn, shape->N + 8 * p, shape->dN + 8 * p, w, det_floor, &g)
                        : hc_pw_nodes_geometry_at(27, xn, shape->N + 27 * p, shape->dN + 27 * p, w, det_floor, &g);
  hc_pw_data(&desc->data, kernel, g.x, desc->t, &d);
  memset(pt, 0, sizeof(*pt));
  pt->wdet = g.wdet;
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 3; i++) pt->J[3 * k + i] = g.Jinv[k][i];
  for (int i = 0; i < Di; i++) {
    for (int j = 0; j < Dj; j++) {
      const int ij = i * Dj + j;
      if (fam == HC_FAMILY_DATADATA) {
        pt->dl[ij] = hc_pw_datadata_left(rank, &d, g.wdet, i, j);
        pt->dr[ij] = hc_pw_datadata_right(rank, &d, i, j);
      } else {
        if (rank == 2) pt->dl[ij] = d.kappa[i][j];
        if (fam == HC_FAMILY_DATAFIELD) pt->dr[ij] = hc_pw_datafield_right(rank, &d, i, j);
      }
    }
  }
  return ok;
}

/* Inlined wherever it is called, so that calls with constant arguments give specialised loops. */
#if defined(__GNUC__)
#define HC_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define HC_ALWAYS_INLINE inline
#endif

/* Component m of the physical gradient of the basis function whose reference gradient is gr, from
   column m of J^-1 (j0, j1, j2) = ((J^-1)[0][m], (J^-1)[1][m], (J^-1)[2][m]): sum_k (J^-1)[k][m] gr[k], as
   hc_pw_phys_grad forms it. */
static inline double hc_cd_grad(double j0, double j1, double j2, const double *gr) {
  return j0 * gr[0] + j1 * gr[1] + j2 * gr[2];
}

/* Entry (i, j) of a field kernel's left array (hc_pw_field_left): phi w|J|, grad_i w|J|,
   kappa_ij grad_i w|J|, term by term as the serial reference forms it. */
static inline double hc_cd_left(int rank, double phi, double grad_i, double kappa_ij, double wdet) {
  if (rank == 0) return phi * wdet;
  if (rank == 1) return grad_i * wdet;
  return kappa_ij * grad_i * wdet;
}

#define HC_TEMPLATE "kernels/openmp/celldata_openmp_impl.h"
#include "kernels/hc_instantiate.h"
#define HC_TEMPLATE "kernels/openmp/dots_openmp_impl.h"
#include "kernels/hc_instantiate.h"
#define HC_TEMPLATE "kernels/openmp/gemm_openmp_impl.h"
#include "kernels/hc_instantiate.h"
#define HC_TEMPLATE "kernels/openmp/fused_openmp_impl.h"
#include "kernels/hc_instantiate.h"

/* The shape functions of desc's geometry nodes at its quadrature points, into shape (freed by the caller). */
static int hc_cd_shape_create(const hc_celldata_desc *desc, hc_cd_shape *shape) {
  const int64_t P = desc->basis->P;
  const int n = desc->geometry_nodes;
  shape->desc = desc;
  shape->N = malloc(sizeof(*shape->N) * (size_t)(P * n));
  shape->dN = malloc(sizeof(*shape->dN) * (size_t)(P * n));
  if (!shape->N || !shape->dN) return HC_ERR_RESOURCE;
  for (int64_t p = 0; p < P; p++) hc_pw_shape(n, &desc->basis->qpts[3 * p], shape->N + n * p, shape->dN + n * p);
  return HC_OK;
}

int hc_celldata_fill_openmp(const hc_celldata_desc *desc, hc_kernel kernel, void *left, void *right) {
  const int64_t P = desc->basis->P;
  const int n = desc->geometry_nodes;
  hc_cd_shape shape;
  int failed = hc_cd_shape_create(desc, &shape) != HC_OK;
  int64_t bad = -1;
  if (!failed) {
    bad = desc->precision == HC_FLOAT
              ? hc_celldata_openmp_f32(&shape, kernel, (float *)left, (float *)right, &failed)
              : hc_celldata_openmp_f64(&shape, kernel, (double *)left, (double *)right, &failed);
  }
  free(shape.N);
  free(shape.dN);
  HC_CHECK(!failed, HC_ERR_RESOURCE, "out of host memory for the cell data scratch of a thread (%lld points)",
           (long long)(desc->layout == HC_LAYOUT_CELL_MAJOR ? P : HC_OMP_CD_CB * HC_OMP_CD_PB));
  if (bad >= 0) return hc_celldata_cell_error(desc, bad, desc->X0 + 3 * n * bad);
  return HC_OK;
}

int hc_fused_openmp(const hc_celldata_desc *desc, const hc_contract *k, void *out) {
  const int64_t P = desc->basis->P;
  const int n = desc->geometry_nodes;
  hc_cd_shape shape;
  int failed = hc_cd_shape_create(desc, &shape) != HC_OK;
  int64_t bad = -1;
  if (!failed) {
    bad = desc->precision == HC_FLOAT ? hc_fused_openmp_f32(&shape, k, (float *)out, &failed)
                                      : hc_fused_openmp_f64(&shape, k, (double *)out, &failed);
  }
  free(shape.N);
  free(shape.dN);
  HC_CHECK(!failed, HC_ERR_RESOURCE,
           "out of host memory for the fused assembly scratch of a thread (one cell's entries, %lld points)",
           (long long)P);
  if (bad >= 0) return hc_celldata_cell_error(desc, bad, desc->X0 + 3 * n * bad);
  return HC_OK;
}
