/* Per-cell data of the finite-element workload (kernels/README.md): geometry of moving trilinear or
   triquadratic cells and the left and right arrays that feed the nine contractions, computed by a backend. */
#ifndef HC_CELLDATA_H
#define HC_CELLDATA_H

#include <stdint.h>

#include "kernels/hc_basis.h"
#include "kernels/hc_kernels.h"
#include "kernels/hc_pointwise.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The geometry at every point of a call's cells (w|J|, J^-1 row by row, and the physical point x: the values that do
   not depend on the kernel), kept by a backend that takes it (hc_backend.geometry_cache) from the first cell-data
   or fused call at one time for the calls after it: a step's kernels share one computation of the geometry instead of
   one each. The caller owns it and sets it in hc_celldata_desc.geometry_cache; the backend fills `values` and the key
   when the key does not match the call (geometry nodes, time, motion, cells, basis) and reads them when it does. In
   the backend's memory: on the host [C][P][13] as below; on a device (cuda) value by value, [13][C][P], so that
   neighbouring threads read neighbouring points. */
#define HC_GEOMETRY_CACHE_VALUES 13
typedef struct hc_geometry_cache {
  double *values;   /* [C][P][HC_GEOMETRY_CACHE_VALUES]: w|J|, (J^-1)[0][0..2], [1][..], [2][..], x[0..2] */
  int64_t capacity; /* points values has room for: a call of more cells or points leaves it unused */
  /* What values holds: valid nonzero once a call has filled them for this key (and found every cell sound). */
  int valid;
  const double *X0, *shear;
  double t;
  hc_motion motion;
  int64_t C;
  int geometry_nodes;
  const hc_basis *basis;
} hc_geometry_cache;

/* Whether g holds the geometry of desc's points: its key is desc's and a call has filled it. */
int hc_geometry_cache_matches(const hc_geometry_cache *g, const struct hc_celldata_desc *desc);

/* Marks g as holding the geometry of desc's points: its key becomes desc's (hc_geometry_cache_matches). */
void hc_geometry_cache_set_key(hc_geometry_cache *g, const struct hc_celldata_desc *desc);

/* What to compute: C cells of the basis's order and quadrature at time t, in one layout and precision.
   Reference coordinates are [-1,1]^3. A cell's geometry is given by its geometry nodes (hc_pointwise.h):
   with 8, trilinear, vertex v = a + 2b + 4c at corner offsets (a,b,c) in (x,y,z), i.e. at reference point
   (2a-1, 2b-1, 2c-1); with 27, triquadratic, node n = a + 3(b + 3c) at reference point (a-1, b-1, c-1),
   a, b, c in {0,1,2} along the first, second and third reference directions. */
typedef struct hc_celldata_desc {
  int64_t C;             /* cells */
  int geometry_nodes;    /* geometry nodes per cell: 8 (trilinear) or 27 (triquadratic) */
  const double *X0;      /* geometry node positions before the shear: [C][geometry_nodes][3]; borrowed. For
                            hc_celldata_fill in the backend's memory, for the host helpers in host memory */
  double t;              /* time */
  hc_motion motion;      /* shear applied to every geometry node at time t */
  hc_data_params data;   /* data functions f, g, F, kappa, s, u, sigma, eps */
  const hc_basis *basis; /* reference element (host memory); borrowed */
  hc_layout layout;      /* layout of the arrays hc_celldata_fill writes */
  hc_precision precision;
  const int64_t *cell_tag; /* optional, host: [C], each cell's number in its mesh file, named in messages; NULL:
                              cells are named by their index */
  int check_later;         /* 0 (hc_celldata_desc_init): each call checks its cells before it returns; nonzero: a
                              device backend may return with the call queued and its check not yet known, which
                              hc_backend.celldata_check gives (a step's calls, checked once at its end) */
  const double *shear;     /* optional: hc_celldata_shear of X0 and motion ([C][geometry_nodes]), in the memory of
                              X0, so that the openmp and cuda backends move a node by one product at each call
                              instead of three sines; NULL (hc_celldata_desc_init): computed at each call. Must
                              belong to this X0 and motion: the backends do not check it */
  hc_geometry_cache *geometry_cache; /* optional (NULL: hc_celldata_desc_init): the points' geometry shared by the calls
                                     at one time (see above), on a backend with geometry_cache; the others ignore
                                     it. X0's contents must not change while it is in use: the key holds the
                                     pointer */
} hc_celldata_desc;

/* Fills desc with C trilinear cells (8 geometry nodes) at X0 on basis: t = 0, no motion (A = 0, box
   LX x LY x LZ), smooth data scaled to the box, cell-major, double. */
void hc_celldata_desc_init(hc_celldata_desc *desc, const hc_basis *basis, int64_t C, const double *X0, double LX,
                           double LY, double LZ);

/* The shear's factor (hc_motion_factor) of each of the n geometry nodes of C cells at X0 ([C][n][3], host memory)
   into f ([C][n], host memory): what hc_celldata_desc.shear holds, once per mesh and motion. */
void hc_celldata_shear(const hc_motion *m, int64_t C, int n, const double *X0, double *f);

/* Checks desc: C >= 1, 8 or 27 geometry nodes, X0 and basis set, positive box lengths, valid mode, layout
   and precision. */
int hc_celldata_validate(const hc_celldata_desc *desc);

/* The contraction problem whose left and right arrays hc_celldata_fill writes for kernel: C cells,
   L = R = (p+1)^3 fields, P = q^3 points, D = 3, P_data = P, desc's layout and precision. */
int hc_celldata_contract(const hc_celldata_desc *desc, hc_kernel kernel, hc_contract *k);

/* Fills left and right (backend memory, shapes and layout of hc_celldata_contract) for kernel:
     FieldFieldScalar  left phi_l w|J|               right phi_r
     FieldFieldVector  left d_i phi_l w|J|           right d_i phi_r
     FieldFieldTensor  left kappa_ij d_i phi_l w|J|  right d_j phi_r (replicated over i)
     DataFieldScalar   left as FieldFieldScalar      right f
     DataFieldVector   left as FieldFieldVector      right F_i
     DataFieldTensor   left as FieldFieldTensor      right s_ij
     DataDataScalar    left f w|J|                   right g
     DataDataVector    left u_i w|J|                 right u_i
     DataDataTensor    left sigma_ij w|J|            right eps_ij
   Everything is computed in double and stored in desc->precision. An inverted or degenerate cell
   (det J <= HC_DET_RTOL * size^3 at some point) is HC_ERR_INPUT naming the lowest such cell and its
   point; the arrays are then not to be used. With desc->check_later a device backend may leave that check to
   hc_backend.celldata_check. A backend without cell data gives HC_ERR_UNSUPPORTED. */
int hc_celldata_fill(const hc_backend *backend, const hc_celldata_desc *desc, hc_kernel kernel, void *left,
                     void *right);

/* Fused assembly: computes k's output into out (backend memory, k's layout and precision; overwritten, or added to
   with k->sum_into), the array that hc_celldata_fill followed by hc_contract_apply writes, from the cells of desc
   directly: the backend forms each cell's point geometry, data and entries in its own scratch and contracts them
   at once, storing no left or right array. k: the problem of hc_celldata_contract(desc, k->kernel), sum_into
   aside (HC_ERR_INPUT otherwise). Inverted or degenerate cells are the error of hc_celldata_fill. A backend
   without the fused operation (hc_backend.fused: serial, cuda so far) gives HC_ERR_UNSUPPORTED naming it. */
int hc_fused_apply(const hc_backend *backend, const hc_celldata_desc *desc, const hc_contract *k, void *out);

/* hc_fused_apply for a square FieldField k, and also the element apply's rows while each cell's matrix is in the
   backend's scratch: v[c][l] = sum_r out[c,l,r] u[cell_nodes[c][r]] (v: [C][L] doubles, cell-major whatever k's
   layout; cell_nodes: [C][L]; u: nodal; all in backend memory), each entry of out as stored and r in order, the
   sums the element apply (hc_backend.assemble_apply) scatters, so that assembling v as a vector
   (hc_backend.assemble_vector) gives its y. A backend without the operation (hc_backend.fused_element: cuda and
   openmp have it; hc_fused_element_check), or whose kernel does not take k's case (cuda: orders 1 and 4), gives
   HC_ERR_UNSUPPORTED naming it and computes nothing. */
int hc_fused_element(const hc_backend *backend, const hc_celldata_desc *desc, const hc_contract *k, void *out,
                     const int32_t *cell_nodes, const double *u, double *v);

/* Whether hc_fused_element takes k's case on backend: HC_OK, or HC_ERR_UNSUPPORTED (with why) where it would
   refuse it, HC_ERR_INPUT where the arguments are not a square FieldField problem of desc. Runs nothing. */
int hc_fused_element_takes(const hc_backend *backend, const hc_celldata_desc *desc, const hc_contract *k);

/* hc_fused_apply for a DataField k, or hc_fused_element for a square FieldField k, that also adds each cell's nodal
   values into the nodal vector y (doubles, backend memory, as zeroed or added to by the caller) in the kernel that
   forms them: DataField y[cell_nodes[c][l]] += out[c,l] as stored, FieldField the element apply's rows, what
   hc_backend.assemble_vector adds from out or from hc_fused_element's v; so that the step has no assembly kernel
   of its own. A backend without the operation (hc_backend.fused_assemble: cuda has it), or whose kernel does not
   take k's case, gives HC_ERR_UNSUPPORTED naming it and computes nothing. */
int hc_fused_assemble(const hc_backend *backend, const hc_celldata_desc *desc, const hc_contract *k, void *out,
                      const int32_t *cell_nodes, const double *u, double *y);

/* Whether hc_fused_assemble takes k's case on backend: HC_OK, or HC_ERR_UNSUPPORTED (with why) where it would refuse
   it, HC_ERR_INPUT where the arguments are not a DataField or square FieldField problem of desc. Runs nothing. */
int hc_fused_assemble_takes(const hc_backend *backend, const hc_celldata_desc *desc, const hc_contract *k);

/* Host, serial: the geometry of every cell and point. desc->X0 in host memory. geom: [C][P]. Inverted or
   degenerate cells are the same error as in hc_celldata_fill. */
int hc_celldata_geometry(const hc_celldata_desc *desc, hc_point_geom *geom);

/* Host, serial: each cell's volume, sum_p w_p |det J|. desc->X0 in host memory. volume: [C]. */
int hc_celldata_volumes(const hc_celldata_desc *desc, double *volume);

/* Host, serial: physical coordinates of each cell's GLL nodes at time t (the trilinear or triquadratic map
   of the sheared geometry nodes at basis->nodes), for nodal interpolants. desc->X0 in host memory.
   x: [C][L][3], cell-major whatever desc->layout says. Nodes shared by neighbouring cells get the same
   coordinates. */
int hc_celldata_nodes(const hc_celldata_desc *desc, double *x);

/* Raises the error for cell c, which a backend found inverted or degenerate: recomputes the cell from
   h_X0c ([geometry_nodes][3], host memory) and names the cell, the first bad point and its det J. Returns
   the code. */
int hc_celldata_cell_error(const hc_celldata_desc *desc, int64_t c, const double *h_X0c);

/* The backends' implementations (the `celldata` member of their tables): desc already validated. */
int hc_celldata_fill_serial(const hc_celldata_desc *desc, hc_kernel kernel, void *left, void *right);
int hc_celldata_fill_openmp(const hc_celldata_desc *desc, hc_kernel kernel, void *left, void *right);
/* The openmp backend's fused operations (hc_backend.fused, .fused_element: every square FieldField case, the rows
   as the host's element apply sums them): desc and k already checked. */
int hc_fused_openmp(const hc_celldata_desc *desc, const hc_contract *k, void *out);
int hc_fused_element_openmp(const hc_celldata_desc *desc, const hc_contract *k, void *out, const int32_t *cell_nodes,
                            const double *u, double *v);

#ifdef __cplusplus
}
#endif

#endif
