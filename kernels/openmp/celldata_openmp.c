/* The OpenMP cell data, both precisions. Each thread takes a contiguous run of cells. For every cell
   (cell-major) or block of cells and points (cell-minor) it computes the geometry and data at each point
   once, with the point-wise maths of the serial reference (hc_pointwise.h), into per-point arrays; then
   it forms the entries in the order they lie in memory, a contiguous run at a time in a small buffer (cell-major field
   kernels: eight at a time in vectors, hc_cd_field_prep), and writes the runs out with streaming stores
   (kernels/openmp/hc_stream.h). This file is compiled
   without contraction of multiplies and adds into FMAs, so that both layouts give the same numbers.
   The fused assembly (fused_openmp_impl.h) evaluates the same points one cell at a time and contracts in a
   thread's scratch (FieldField and DataField in the reference space, FieldField with the contractions' packed
   GEMM, gemm_openmp_impl.h, or its few-field path, dots_openmp_impl.h), so that no input array is stored.
   The data functions (sines and cosines in double) are evaluated for many points at once (hc_cd_data_batch),
   one loop over the points per kernel that the compiler vectorises where libmvec's vector sine and cosine are
   at hand (HC_HAVE_LIBMVEC): 4 or 8 points per instruction on AVX2 or AVX-512. */
#if HC_HAVE_LIBMVEC
/* The data functions' sine and cosine (hc_pointwise.h, HC_DATA_SIN and HC_DATA_COS): glibc's own, declared
   with their vector variants (libmvec) and as const, so that loops calling them vectorise. A vector variant
   may round a result a few units in the last place apart from the scalar function (libmvec documents at most
   4 ulp): the OpenMP cell data then agrees with the serial reference to a few units of rounding. */
__attribute__((simd("notinbranch"), const, nothrow)) extern double hc_vsin(double) __asm__("sin");
__attribute__((simd("notinbranch"), const, nothrow)) extern double hc_vcos(double) __asm__("cos");
#define HC_DATA_SIN hc_vsin
#define HC_DATA_COS hc_vcos
#endif
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/hc_celldata.h"
#include "kernels/openmp/hc_omp_gemm.h"
#include "kernels/openmp/hc_omp_transpose.h"
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

/* Entry n of s from pt: the geometry that kernel's entries use (w|J|, J^-1). */
static inline void hc_cd_points_put(hc_cd_points *s, int64_t n, hc_kernel kernel, const hc_cd_point *pt) {
  const hc_family fam = hc_kernel_family(kernel);
  const int rank = (int)hc_kernel_rank(kernel);
  s->wdet[n] = pt->wdet;
  if (fam != HC_FAMILY_DATADATA && rank > 0)
    for (int k = 0; k < 9; k++) s->J[k][n] = pt->J[k];
}

/* Entry n of s from pt: the per-point entries that kernel's entries use (dl, dr). */
static inline void hc_cd_points_put_data(hc_cd_points *s, int64_t n, hc_kernel kernel, const hc_cd_point *pt) {
  const hc_family fam = hc_kernel_family(kernel);
  const int rank = (int)hc_kernel_rank(kernel), Dij = rank == 0 ? 1 : rank == 1 ? 3 : 9;
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
  double st;       /* the shear's time factor at desc's time (hc_motion_time), for desc->shear's products */
  /* desc->geometry_cache as this call uses it: HC_CD_GEOM_NONE, HC_CD_GEOM_READ (it holds this call's points, which are
     read from it instead of being computed) or HC_CD_GEOM_FILL (they are computed and kept in it) */
  int geom_mode;
  double *geom; /* desc->geometry_cache->values, or NULL */
  double *r1g; /* a cell-major rank-1 field kernel's reference gradients as its entries lie (hc_cd_r1_grads), or NULL */
} hc_cd_shape;

enum { HC_CD_GEOM_NONE, HC_CD_GEOM_READ, HC_CD_GEOM_FILL };

/* Points per batch of data functions: a whole number of vectors (8 doubles, AVX-512), so that every point of a
   batch goes through the loop's vector body, and batches of one layout or the other round alike. */
#define HC_CD_BATCH_ALIGN 8

/* The most data values one point needs (DataDataTensor's sigma and eps, DataFieldTensor's kappa and s). */
#define HC_CD_DATA_MAX 18

/* Points per chunk of a batch: the stride of its arrays, a constant, so that the compiler tells the stores of a
   loop over points apart (a run-time stride would need a check per pair of them, and the loop would not
   vectorise). */
#define HC_CD_CHUNK 256

/* A thread's scratch for the data functions of up to cap points (a multiple of HC_CD_CHUNK), chunk by chunk:
   x [cap / HC_CD_CHUNK][3][HC_CD_CHUNK], the points' positions; d [cap / HC_CD_CHUNK][HC_CD_DATA_MAX][HC_CD_CHUNK],
   their data values. */
typedef struct hc_cd_batch {
  double *x, *d;
  int64_t cap;
} hc_cd_batch;

static int hc_cd_batch_create(int64_t n, hc_cd_batch *b) {
  b->cap = (n + HC_CD_CHUNK - 1) / HC_CD_CHUNK * HC_CD_CHUNK;
  b->x = aligned_alloc(64, sizeof(double) * (size_t)((3 + HC_CD_DATA_MAX) * b->cap));
  b->d = b->x ? b->x + 3 * b->cap : NULL;
  return b->x ? HC_OK : HC_ERR_RESOURCE;
}

/* Where coordinate i of point k of b lies, and value m of its data. */
static inline double *hc_cd_batch_x(const hc_cd_batch *b, int i, int64_t k) {
  return b->x + ((k / HC_CD_CHUNK) * 3 + i) * HC_CD_CHUNK + k % HC_CD_CHUNK;
}

static inline double hc_cd_batch_d(const hc_cd_batch *b, int m, int64_t k) {
  return b->d[((k / HC_CD_CHUNK) * HC_CD_DATA_MAX + m) * HC_CD_CHUNK + k % HC_CD_CHUNK];
}

/* Cell c's geometry nodes moved to the call's time into xn ([n][3]): from desc->shear where it is given, one product
   per node with the call's time factor (shape->st) and the same bits as hc_pw_cell_nodes, whose three sines per node
   took 13% of the order1.yaml step (two threads, perf); else hc_pw_cell_nodes. */
static void hc_cd_cell_nodes(const hc_cd_shape *shape, int64_t c, double (*xn)[3]) {
  const hc_celldata_desc *desc = shape->desc;
  const int n = desc->geometry_nodes;
  const double *X0c = desc->X0 + 3 * n * c;
  if (!desc->shear || desc->motion.A == 0.0) {
    hc_pw_cell_nodes(&desc->motion, desc->t, n, X0c, xn);
    return;
  }
  const double *f = desc->shear + n * c;
  for (int v = 0; v < n; v++) hc_motion_apply_factor(f[v], shape->st, X0c + 3 * v, xn[v]);
}

/* The geometry of point p of the cell with geometry nodes xn ([n][3]): pt's w|J| and J^-1 (its other values
   zeroed), and the point's position into entry k of b->x. Returns 0 when the cell is inverted or degenerate
   there (the values are then not to be used). */
static int hc_cd_point_geom(const hc_cd_shape *shape, const double (*xn)[3], double det_floor, int64_t p,
                            hc_cd_point *pt, hc_cd_batch *b, int64_t k) {
  const hc_celldata_desc *desc = shape->desc;
  hc_point_geom g;
  const int n = desc->geometry_nodes;
  const double w = desc->basis->qwts[p];
  /* with a constant node count, so that the trilinear map's loops are specialised as before */
  const int ok = n == 8 ? hc_pw_nodes_geometry_at(8, xn, shape->N + 8 * p, shape->dN + 8 * p, w, det_floor, &g)
                        : hc_pw_nodes_geometry_at(27, xn, shape->N + 27 * p, shape->dN + 27 * p, w, det_floor, &g);
  memset(pt, 0, sizeof(*pt));
  pt->wdet = g.wdet;
  for (int m = 0; m < 3; m++)
    for (int i = 0; i < 3; i++) pt->J[3 * m + i] = g.Jinv[m][i];
  for (int i = 0; i < 3; i++) *hc_cd_batch_x(b, i, k) = g.x[i];
  return ok;
}

/* The kept geometry of point k of b (entry k of b->x) and pt: w|J|, J^-1 and x (hc_geometry_cache). */
static inline void hc_cd_geom_keep(double *g, const hc_cd_point *pt, const hc_cd_batch *b, int64_t k) {
  g[0] = pt->wdet;
  for (int m = 0; m < 9; m++) g[1 + m] = pt->J[m];
  for (int i = 0; i < 3; i++) g[10 + i] = *hc_cd_batch_x(b, i, k);
}

/* pt's w|J| and J^-1 (its other values zeroed) and entry k of b->x from the kept geometry g: the values
   hc_cd_point_geom computed there. */
static inline void hc_cd_geom_take(const double *g, hc_cd_point *pt, hc_cd_batch *b, int64_t k) {
  memset(pt, 0, sizeof(*pt));
  pt->wdet = g[0];
  for (int m = 0; m < 9; m++) pt->J[m] = g[1 + m];
  for (int i = 0; i < 3; i++) *hc_cd_batch_x(b, i, k) = g[10 + i];
}

/* A loop over the points k < nv of a chunk with their positions xk, running body: twice, so that in the first,
   for the smooth data (the only one with sines and cosines), the data functions' tests of the mode fold away
   and the loop vectorises; the constant and polynomial data take the second. */
#define HC_CD_BATCH_LOOP(body)                                                   \
  do {                                                                           \
    if (dp.mode == HC_DATA_SMOOTH) {                                             \
      for (int64_t k = 0; k < nv; k++) {                                         \
        const double xk[3] = {x[k], x[HC_CD_CHUNK + k], x[2 * HC_CD_CHUNK + k]}; \
        body                                                                     \
      }                                                                          \
    } else {                                                                     \
      for (int64_t k = 0; k < nv; k++) {                                         \
        const double xk[3] = {x[k], x[HC_CD_CHUNK + k], x[2 * HC_CD_CHUNK + k]}; \
        body                                                                     \
      }                                                                          \
    }                                                                            \
  } while (0)

/* Values m0 .. m0 + 8 of point k: the 3 x 3 matrix a, row by row. */
#define HC_CD_STORE9(m0, a)                                                                                 \
  do {                                                                                                      \
    _Pragma("GCC unroll 3") for (int i = 0; i < 3; i++) _Pragma("GCC unroll 3") for (int j = 0; j < 3; j++) \
        d[((m0) + 3 * i + j) * HC_CD_CHUNK + k] = (a)[i][j];                                                \
  } while (0)

/* The data functions kernel uses (hc_pw_data's) at the first nv points of chunk x (positions) into chunk d
   (values): one loop over the points per kernel and value group, so that it vectorises. nv: a whole number of
   vectors (HC_CD_BATCH_ALIGN). */
static void hc_cd_data_chunk(const hc_celldata_desc *desc, hc_kernel kernel, int64_t nv, const double *restrict x,
                             double *restrict d) {
  const hc_data_params dp = desc->data;
  const double t = desc->t;
  switch (kernel) {
    case HC_DATADATA_SCALAR:
      HC_CD_BATCH_LOOP(d[k] = hc_data_f(&dp, xk, t); d[HC_CD_CHUNK + k] = hc_data_g(&dp, xk, t););
      break;
    case HC_DATAFIELD_SCALAR:
      HC_CD_BATCH_LOOP(d[k] = hc_data_f(&dp, xk, t););
      break;
    case HC_DATADATA_VECTOR:
      HC_CD_BATCH_LOOP(double v[3]; hc_data_u(&dp, xk, t, v);
                       for (int m = 0; m < 3; m++) d[m * HC_CD_CHUNK + k] = v[m];);
      break;
    case HC_DATAFIELD_VECTOR:
      HC_CD_BATCH_LOOP(double v[3]; hc_data_F(&dp, xk, t, v);
                       for (int m = 0; m < 3; m++) d[m * HC_CD_CHUNK + k] = v[m];);
      break;
    case HC_DATADATA_TENSOR:
      HC_CD_BATCH_LOOP(double sg[3][3]; double ep[3][3]; hc_data_sigma_eps(&dp, xk, t, sg, ep); HC_CD_STORE9(0, sg);
                       HC_CD_STORE9(9, ep););
      break;
    case HC_DATAFIELD_TENSOR:
      HC_CD_BATCH_LOOP(double sv[3][3]; hc_data_s(&dp, xk, t, sv); HC_CD_STORE9(9, sv););
      HC_CD_BATCH_LOOP(double kp[3][3]; hc_data_kappa(&dp, xk, t, kp); HC_CD_STORE9(0, kp););
      break;
    case HC_FIELDFIELD_TENSOR:
      HC_CD_BATCH_LOOP(double kp[3][3]; hc_data_kappa(&dp, xk, t, kp); HC_CD_STORE9(0, kp););
      break;
    default: /* FieldFieldScalar and FieldFieldVector use no data function */
      break;
  }
}
#undef HC_CD_BATCH_LOOP
#undef HC_CD_STORE9

/* The data functions kernel uses at the first n points of b (positions set by hc_cd_point_geom), chunk by
   chunk. The points past n up to a whole vector repeat the last one, so that every point goes through the
   loops' vector bodies (and a point's values do not depend on where in a batch it lies). */
static void hc_cd_data_batch(const hc_celldata_desc *desc, hc_kernel kernel, int64_t n, hc_cd_batch *b) {
  if (n < 1) return;
  const int64_t nv = (n + HC_CD_BATCH_ALIGN - 1) & ~(int64_t)(HC_CD_BATCH_ALIGN - 1);
  for (int64_t k = n; k < nv; k++)
    for (int i = 0; i < 3; i++) *hc_cd_batch_x(b, i, k) = *hc_cd_batch_x(b, i, n - 1);
  for (int64_t c0 = 0; c0 < nv; c0 += HC_CD_CHUNK) {
    const int64_t c = c0 / HC_CD_CHUNK;
    hc_cd_data_chunk(desc, kernel, nv - c0 < HC_CD_CHUNK ? nv - c0 : HC_CD_CHUNK,
                     __builtin_assume_aligned(b->x + c * 3 * HC_CD_CHUNK, 64),
                     __builtin_assume_aligned(b->d + c * HC_CD_DATA_MAX * HC_CD_CHUNK, 64));
  }
}

/* pt's per-point entries (dl, dr) from the data values of point k of b and pt's w|J| (hc_cd_data_batch having run),
   with the formulas of hc_pointwise.h. */
static void hc_cd_point_data(hc_kernel kernel, const hc_cd_batch *b, int64_t k, hc_cd_point *pt) {
  const hc_family fam = hc_kernel_family(kernel);
  const int rank = (int)hc_kernel_rank(kernel);
  const int Di = rank >= 1 ? 3 : 1, Dj = rank == 2 ? 3 : 1;
  hc_point_data d;
  memset(&d, 0, sizeof(d));
  switch (kernel) {
    case HC_DATADATA_SCALAR:
      d.f = hc_cd_batch_d(b, 0, k), d.g = hc_cd_batch_d(b, 1, k);
      break;
    case HC_DATAFIELD_SCALAR:
      d.f = hc_cd_batch_d(b, 0, k);
      break;
    case HC_DATADATA_VECTOR:
      for (int m = 0; m < 3; m++) d.u[m] = hc_cd_batch_d(b, m, k);
      break;
    case HC_DATAFIELD_VECTOR:
      for (int m = 0; m < 3; m++) d.F[m] = hc_cd_batch_d(b, m, k);
      break;
    case HC_DATADATA_TENSOR:
      for (int m = 0; m < 9; m++)
        d.sigma[m / 3][m % 3] = hc_cd_batch_d(b, m, k), d.eps[m / 3][m % 3] = hc_cd_batch_d(b, 9 + m, k);
      break;
    case HC_DATAFIELD_TENSOR:
      for (int m = 0; m < 9; m++)
        d.kappa[m / 3][m % 3] = hc_cd_batch_d(b, m, k), d.s[m / 3][m % 3] = hc_cd_batch_d(b, 9 + m, k);
      break;
    case HC_FIELDFIELD_TENSOR:
      for (int m = 0; m < 9; m++) d.kappa[m / 3][m % 3] = hc_cd_batch_d(b, m, k);
      break;
    default:
      break;
  }
  for (int i = 0; i < Di; i++) {
    for (int j = 0; j < Dj; j++) {
      const int ij = i * Dj + j;
      if (fam == HC_FAMILY_DATADATA) {
        pt->dl[ij] = hc_pw_datadata_left(rank, &d, pt->wdet, i, j);
        pt->dr[ij] = hc_pw_datadata_right(rank, &d, i, j);
      } else {
        if (rank == 2) pt->dl[ij] = d.kappa[i][j];
        if (fam == HC_FAMILY_DATAFIELD) pt->dr[ij] = hc_pw_datafield_right(rank, &d, i, j);
      }
    }
  }
}

/* The values of kernel at the P points of cell c into pts ([P]), the data functions in one batch (b: room for P
   points); the geometry from the kept one, or computed (and kept, with HC_CD_GEOM_FILL). Returns 0 when the cell
   is inverted or degenerate at one of them (the values are then not to be used). */
static int hc_cd_cell_eval(const hc_cd_shape *shape, hc_kernel kernel, int64_t c, hc_cd_point *pts, hc_cd_batch *b) {
  const int64_t P = shape->desc->basis->P;
  double *g = shape->geom ? shape->geom + c * P * HC_GEOMETRY_CACHE_VALUES : NULL;
  int ok = 1;
  if (shape->geom_mode == HC_CD_GEOM_READ) {
    for (int64_t p = 0; p < P; p++) hc_cd_geom_take(g + p * HC_GEOMETRY_CACHE_VALUES, &pts[p], b, p);
  } else {
    double xn[HC_GEOMETRY_NODES_MAX][3];
    hc_cd_cell_nodes(shape, c, xn);
    const double det_floor = hc_pw_nodes_det_floor(shape->desc->geometry_nodes, xn);
    for (int64_t p = 0; p < P; p++) ok &= hc_cd_point_geom(shape, xn, det_floor, p, &pts[p], b, p);
    if (shape->geom_mode == HC_CD_GEOM_FILL)
      for (int64_t p = 0; p < P; p++) hc_cd_geom_keep(g + p * HC_GEOMETRY_CACHE_VALUES, &pts[p], b, p);
  }
  hc_cd_data_batch(shape->desc, kernel, P, b);
  for (int64_t p = 0; p < P; p++) hc_cd_point_data(kernel, b, p, &pts[p]);
  return ok;
}

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

/* FieldField by sum factorization (sumfact_openmp_impl.h) with the default quadrature (q = p + 1 points per
   direction) at orders 3 and 4 (N = p + 1 = 4, 5), each N its own function with constant loop bounds; other cases
   take the GEMM or dot products of fused_openmp_impl.h (at order 2, whose GEMM is 59 K multiply-adds a cell, the
   sum factorization measured 1.4x slower on the 2-core VM; at order 3 10-20% faster, at order 4 2.6x). Needs GCC's
   vector extension (GCC, Clang). */
#if defined(__GNUC__)
#define HC_OMP_SUMFACT 1
typedef double hc_v8d __attribute__((vector_size(64)));
/* Eight doubles at p, aligned or not, into the vector v, and back (macros: a function passing a 64-byte vector by
   value changes the ABI where AVX-512 is off, which GCC warns of). */
#define HC_V8D_LOAD(v, p)  memcpy(&(v), (p), sizeof(hc_v8d))
#define HC_V8D_STORE(p, v) memcpy((p), &(v), sizeof(hc_v8d))
#define HC_SF_N            4
#include "kernels/openmp/sumfact_openmp_impl.h"
#define HC_SF_N 5
#include "kernels/openmp/sumfact_openmp_impl.h"
#else
#define HC_OMP_SUMFACT 0
#endif

/* Whether FieldField on b takes the sum factorization. */
static int hc_fused_sumfact_takes(const hc_basis *b) {
  return HC_OMP_SUMFACT && b->q == b->n1d && (b->n1d == 4 || b->n1d == 5);
}

/* Doubles of the sum factorization's scratch for b (one where it does not take b). */
static int64_t hc_fused_sumfact_doubles(const hc_basis *b) {
#if HC_OMP_SUMFACT
  return b->n1d == 4 ? hc_fused_sumfact_doubles_4() : hc_fused_sumfact_doubles_5();
#else
  (void)b;
  return 1;
#endif
}

/* One cell's FieldField element matrix by sum factorization into the scratch s (hc_fused_sumfact_doubles), returned. */
static const double *hc_fused_ff_sumfact(int rank, const hc_basis *b, const hc_cd_point *pts, double *restrict s) {
#if HC_OMP_SUMFACT
  return b->n1d == 4 ? hc_fused_ff_sumfact_4(rank, b, pts, s) : hc_fused_ff_sumfact_5(rank, b, pts, s);
#else
  (void)rank, (void)b, (void)pts;
  return s;
#endif
}

/* The cell-major field kernels' entries in vectors of eight doubles (hc_cd_major_field), with GCC's vector extension
   as the sum factorization above: each point's or entry's factors (J^-1 entries, w|J|, kappa) laid out per cell in the
   order of the entries they make (hc_cd_field_prep), so that a vector of entries is a few multiplies and adds of
   whole vectors, with no shuffles, then rounded and stored eight at a time. The products and sums are those of
   hc_cd_grad and hc_cd_left in the same order, so the entries have the same bits as the scalar loop's and as the
   cell-minor layout's. */
#define HC_CD_VEC HC_OMP_SUMFACT
#if HC_CD_VEC
typedef float hc_v8f __attribute__((vector_size(32)));
#endif
/* A rank-2 point's right entries from its left ones' gradients by one permutation of lanes (GCC 12 and later, Clang),
   else lane by lane. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define HC_CD_SHUFFLE 1
#endif
#endif
#ifndef HC_CD_SHUFFLE
#define HC_CD_SHUFFLE 0
#endif

/* Rank 2: doubles per point of the prepared factors (hc_cd_field_prep): three vectors of J^-1 entries, one of kappa_ij,
   then the five values of the point's ninth entry (i = j = 2) and its w|J|. */
#define HC_CD_R2_STRIDE 40

/* Entries of a rank-1 field's run (3 P) rounded up to whole vectors. */
static inline int64_t hc_cd_r1_len(int64_t P) {
  return (3 * P + 7) & ~(int64_t)7;
}

/* Doubles of a thread's prepared factors for a cell of P points (hc_cd_field_prep): the most that any rank takes. */
static inline int64_t hc_cd_field_prep_doubles(int64_t P) {
  const int64_t r1 = 4 * hc_cd_r1_len(P), r2 = HC_CD_R2_STRIDE * P;
  return r1 > r2 ? r1 : r2;
}

/* The factors of the cell whose points are pts ([P]) that a field kernel of the rank forms its entries from, into s
   (hc_cd_field_prep_doubles): rank 0, w|J| per point; rank 1, for entry e = 3 p + i of a field's run, (J^-1)[k][i] in
   s[k n + e] (k < 3) and w|J| in s[3 n + e], n = hc_cd_r1_len(P), the entries past 3 P zero; rank 2, per point p at
   q = s + HC_CD_R2_STRIDE p, for its entries e = 3 i + j < 8, (J^-1)[k][i] at q[8 k + e] and kappa_ij at q[24 + e],
   then (J^-1)[k][2] at q[32 + k], kappa_22 at q[35] and w|J| at q[36]. */
static void hc_cd_field_prep(int rank, int64_t P, const hc_cd_point *pts, double *restrict s) {
  if (rank == 0) {
    for (int64_t p = 0; p < P; p++) s[p] = pts[p].wdet;
  } else if (rank == 1) {
    const int64_t n = hc_cd_r1_len(P);
    memset(s, 0, sizeof(*s) * (size_t)(4 * n));
    for (int64_t p = 0; p < P; p++)
      for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++) s[k * n + 3 * p + i] = pts[p].J[3 * k + i];
        s[3 * n + 3 * p + i] = pts[p].wdet;
      }
  } else {
    for (int64_t p = 0; p < P; p++) {
      double *q = s + HC_CD_R2_STRIDE * p;
      for (int e = 0; e < 8; e++) {
        for (int k = 0; k < 3; k++) q[8 * k + e] = pts[p].J[3 * k + e / 3];
        q[24 + e] = pts[p].dl[e];
      }
      for (int k = 0; k < 3; k++) q[32 + k] = pts[p].J[3 * k + 2];
      q[35] = pts[p].dl[8];
      q[36] = pts[p].wdet;
    }
  }
}

/* The reference gradients of b's fields laid out as a rank-1 field's entries (hc_cd_field_prep): for field f, component
   k of the gradient at point p in g[(3 f + k) n + 3 p + i], i < 3, n = hc_cd_r1_len(P), the entries past 3 P zero.
   Returns NULL when out of memory (the caller then forms the entries one point at a time). */
static double *hc_cd_r1_grads(const hc_basis *b) {
  const int64_t P = b->P, n = hc_cd_r1_len(P);
  double *g = calloc((size_t)(3 * b->L * n), sizeof(*g));
  if (!g) return NULL;
  for (int64_t f = 0; f < b->L; f++)
    for (int k = 0; k < 3; k++)
      for (int64_t p = 0; p < P; p++)
        for (int i = 0; i < 3; i++) g[(3 * f + k) * n + 3 * p + i] = b->grad[3 * (f * P + p) + k];
  return g;
}

#define HC_TEMPLATE "kernels/openmp/celldata_openmp_impl.h"
#include "kernels/hc_instantiate.h"
#define HC_TEMPLATE "kernels/openmp/dots_openmp_impl.h"
#include "kernels/hc_instantiate.h"
#define HC_TEMPLATE "kernels/openmp/gemm_openmp_impl.h"
#include "kernels/hc_instantiate.h"
#define HC_TEMPLATE "kernels/openmp/fused_openmp_impl.h"
#include "kernels/hc_instantiate.h"

/* The shape functions of desc's geometry nodes at its quadrature points and the shear's time factor, into shape
   (freed by the caller); with keep, how the call uses desc->geometry_cache (a fill invalidates it until it ends). */
static int hc_cd_shape_create(const hc_celldata_desc *desc, int keep, hc_cd_shape *shape) {
  const int64_t P = desc->basis->P;
  const int n = desc->geometry_nodes;
  shape->desc = desc;
  shape->st = hc_motion_time(&desc->motion, desc->t);
  shape->geom_mode = HC_CD_GEOM_NONE;
  shape->geom = NULL;
  shape->r1g = NULL;
  hc_geometry_cache *g = desc->geometry_cache;
  if (keep && g && g->values && desc->C * P <= g->capacity) {
    shape->geom = g->values;
    shape->geom_mode = hc_geometry_cache_matches(g, desc) ? HC_CD_GEOM_READ : HC_CD_GEOM_FILL;
    if (shape->geom_mode == HC_CD_GEOM_FILL) g->valid = 0;
  }
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
  int failed = hc_cd_shape_create(desc, 1, &shape) != HC_OK;
  int64_t bad = -1;
  if (HC_CD_VEC && !failed && desc->layout == HC_LAYOUT_CELL_MAJOR && hc_kernel_family(kernel) != HC_FAMILY_DATADATA &&
      hc_kernel_rank(kernel) == 1)
    shape.r1g = hc_cd_r1_grads(desc->basis);
  if (!failed) {
    bad = desc->precision == HC_FLOAT
              ? hc_celldata_openmp_f32(&shape, kernel, (float *)left, (float *)right, &failed)
              : hc_celldata_openmp_f64(&shape, kernel, (double *)left, (double *)right, &failed);
  }
  free(shape.N);
  free(shape.dN);
  free(shape.r1g);
  /* every point's geometry is kept */
  if (shape.geom_mode == HC_CD_GEOM_FILL && !failed && bad < 0) hc_geometry_cache_set_key(desc->geometry_cache, desc);
  HC_CHECK(!failed, HC_ERR_RESOURCE, "out of host memory for the cell data scratch of a thread (%lld points)",
           (long long)(desc->layout == HC_LAYOUT_CELL_MAJOR ? P : HC_OMP_CD_CB * HC_OMP_CD_PB));
  if (bad >= 0) return hc_celldata_cell_error(desc, bad, desc->X0 + 3 * n * bad);
  return HC_OK;
}

/* hc_fused_openmp, with the element apply's rows where v is given (FieldField). */
static int hc_fused_run_openmp(const hc_celldata_desc *desc, const hc_contract *k, void *out, const int32_t *cell_nodes,
                               const double *u, double *v) {
  const int64_t P = desc->basis->P;
  const int n = desc->geometry_nodes;
  hc_cd_shape shape;
  int failed = hc_cd_shape_create(desc, 1, &shape) != HC_OK;
  int64_t bad = -1;
  if (!failed) {
    bad = desc->precision == HC_FLOAT ? hc_fused_openmp_f32(&shape, k, (float *)out, cell_nodes, u, v, &failed)
                                      : hc_fused_openmp_f64(&shape, k, (double *)out, cell_nodes, u, v, &failed);
  }
  free(shape.N);
  free(shape.dN);
  /* every point's geometry is kept */
  if (shape.geom_mode == HC_CD_GEOM_FILL && !failed && bad < 0) hc_geometry_cache_set_key(desc->geometry_cache, desc);
  HC_CHECK(!failed, HC_ERR_RESOURCE,
           "out of host memory for the fused assembly scratch of a thread (one cell's entries, %lld points)",
           (long long)P);
  if (bad >= 0) return hc_celldata_cell_error(desc, bad, desc->X0 + 3 * n * bad);
  return HC_OK;
}

int hc_fused_openmp(const hc_celldata_desc *desc, const hc_contract *k, void *out) {
  return hc_fused_run_openmp(desc, k, out, NULL, NULL, NULL);
}

int hc_fused_element_openmp(const hc_celldata_desc *desc, const hc_contract *k, void *out, const int32_t *cell_nodes,
                            const double *u, double *v) {
  /* Every square FieldField case (hc_fused_element_takes asks with out NULL). */
  if (!out) return HC_OK;
  return hc_fused_run_openmp(desc, k, out, cell_nodes, u, v);
}
