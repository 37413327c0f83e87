// The CUDA backend's cell data: the left and right arrays of the nine contractions computed on the device
// from the geometry nodes X0 (8 per cell, trilinear, or 27, triquadratic), the mesh motion and the data
// functions, with the point-wise maths of kernels/hc_pointwise.h that the serial reference uses (computed in
// double, rounded on store). Every kernel is a template on the geometry nodes per cell NV, so that the
// trilinear kernels are those of a build without triquadratic cells.
//
// Every kernel computes each cell's moved geometry nodes once (into shared memory) and each (cell, point)'s
// geometry and data functions once (a "record": J^-1, w|J| and the data), then writes the entries from the
// records with neighbouring threads on neighbouring addresses:
//   cell-major (celldata_major_staged): a block takes whole cells, whose part of each array is one
//     contiguous run; a thread forms the D^rank entries of one item (point, or field and point) and a round
//     of items goes out through shared memory;
//   cell-minor (celldata_points): a thread owns one (cell, point), keeps its record in registers and writes
//     every entry of that point; a warp's 32 threads take 32 neighbouring cells, whose entries are adjacent.
//   Cell-major with more points than the staged kernel's shared memory holds uses celldata_points too.
// A thread that finds its cell inverted or degenerate records the cell with atomicMin, so that the host
// names the lowest bad cell, as the serial reference does.
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <vector>

#include "kernels/cuda/hc_cell_gemm.cuh"
#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_context.cuh"
#include "kernels/cuda/hc_fastdiv.h"
#include "kernels/hc_celldata.h"
#include "kernels/hc_pointwise.h"

namespace {

constexpr int kThreads = 256;
constexpr int kLanes = 32, kRows = kThreads / kLanes;  // celldata_points: a warp's lanes, warps per block
constexpr size_t kStagedRecordBytes = 24 * 1024;       // staged kernel: records of this many bytes of cells
constexpr size_t kStagedMaxBytes = 96 * 1024;          // staged kernel: shared memory per block at most
constexpr int kMaxMajorCells = 64;                     // staged kernel: cells per block at most
constexpr int kMinBlocks = 2;                          // blocks per SM the registers must allow (110-126 registers)
// The staged kernel in float, and in double with trilinear cells (NV = 8): 3 blocks per SM (78-80 registers, up to
// 60 bytes spilled in double), measured faster (double on an H100, both builds in one call: the cell data of
// order1.yaml 0.24 -> 0.22 ms, order4.yaml 2.83 -> 2.57 ms, weak.yaml 24^3 1.40 -> 1.33 ms, 48^3 9.94 -> 9.76 ms;
// order2/3 unchanged).
constexpr int kMinBlocksStaged = 3;
// The staged kernel's cells per block where its grid is at least kFillWaves waves of resident blocks: as many as
// give one round of records to the block's threads (kThreads / P, within kFillMaxBytes of shared memory, so that
// 3 blocks fit an SM's 228 KB), not the fewer that kStagedRecordBytes holds, which leave up to half the threads idle
// while the others compute their records. On fewer waves the larger blocks cost more in the last wave than they
// gain. H100, both builds in one call, two rounds: weak.yaml at 48^3 cells (31 waves) 9.75 -> 9.49 ms of cell data
// in double, 6.90 -> 6.49-6.50 ms in float, at 32^3 (9 waves) 2.13 -> 2.01-2.02 ms in float; order1.yaml at 48^3
// 1.24 -> 1.15 ms; the same cells per block on order2.yaml .. order4.yaml (1.1-1.3 waves) 10-13% slower.
constexpr int kFillWaves = 4;
constexpr size_t kFillMaxBytes = 74 * 1024;
constexpr unsigned long long kNoBadCell = ULLONG_MAX;

int upload(cudaStream_t stream, double **d_dst, const double *h_src, size_t n) {
  HC_CALL_CUDA(cudaMalloc(d_dst, n * sizeof(double)));
  HC_CALL_CUDA(cudaMemcpyAsync(*d_dst, h_src, n * sizeof(double), cudaMemcpyHostToDevice, stream));
  return HC_OK;
}

// Makes ctx hold b's tables on its device, uploading them once per (order, points). Call with ctx->basis_lock held.
int basis_get(hc_cuda_context *ctx, const hc_basis *b) {
  hc_cuda_basis *cb = &ctx->basis;
  if (cb->p == b->p && cb->q == b->q) return HC_OK;
  unsigned long long *d_bad = cb->d_bad, *h_bad = cb->h_bad;
  cb->d_bad = cb->h_bad = nullptr;
  hc_cuda_basis_free(cb);
  cb->d_bad = d_bad, cb->h_bad = h_bad;
  int ierr = HC_OK;
  const size_t L = (size_t)b->L, P = (size_t)b->P;
  HC_CALL_GOTO(upload(ctx->stream, &cb->d_qpts, b->qpts, 3 * P), fail);
  HC_CALL_GOTO(upload(ctx->stream, &cb->d_qwts, b->qwts, P), fail);
  HC_CALL_GOTO(upload(ctx->stream, &cb->d_phi, b->phi, L * P), fail);
  HC_CALL_GOTO(upload(ctx->stream, &cb->d_grad, b->grad, 3 * L * P), fail);
  HC_CALL_GOTO(upload(ctx->stream, &cb->d_b1d, b->B1d, (size_t)b->q * b->n1d), fail);
  HC_CALL_GOTO(upload(ctx->stream, &cb->d_g1d, b->G1d, (size_t)b->q * b->n1d), fail);
  {
    // the fields' values at a point side by side, for reads by one thread per field (fused_points)
    std::vector<double> tabT(4 * P * L);
    for (size_t l = 0; l < L; l++) {
      for (size_t p = 0; p < P; p++) {
        tabT[4 * p * L + l] = b->phi[l * P + p];
        for (size_t k = 0; k < 3; k++) tabT[(4 * p + 1 + k) * L + l] = b->grad[3 * (l * P + p) + k];
      }
    }
    HC_CALL_GOTO(upload(ctx->stream, &cb->d_tabT, tabT.data(), tabT.size()), fail);
    HC_CALL_CUDA_GOTO(cudaStreamSynchronize(ctx->stream), fail);  // tabT is freed on leaving
  }
  if (!cb->d_bad) {
    HC_CALL_CUDA_GOTO(cudaMalloc(&cb->d_bad, sizeof(*cb->d_bad)), fail);
    HC_CALL_CUDA_GOTO(cudaMallocHost(&cb->h_bad, sizeof(*cb->h_bad)), fail);
    HC_CALL_CUDA_GOTO(cudaMemsetAsync(cb->d_bad, 0xff, sizeof(*cb->d_bad), ctx->stream), fail);
  }
  // in place before the call's launch, which may go on another lane (hc_backend.fork)
  HC_CALL_CUDA_GOTO(cudaStreamSynchronize(ctx->stream), fail);
  cb->p = b->p;
  cb->q = b->q;
  return HC_OK;
fail:
  hc_cuda_basis_free(cb);
  return ierr;
}

// What every block needs: the cells, the time and motion, the data functions and the basis tables.
struct celldata_args {
  int64_t C;
  int L, P;
  double t;
  hc_motion motion;
  hc_data_params data;
  const double *X0;  // [C][NV][3], NV the kernel's geometry nodes per cell
  // hc_celldata_desc.shear ([C][NV]: each node's shear factor) and st = sin(omega t), or null: the sines at each node
  const double *shear = nullptr;
  double st = 0.0;
  const double *qpts;  // [P][3]
  const double *qwts;  // [P]
  const double *phi;   // [L][P]
  const double *grad;  // [L][P][3]
  const double *tabT;  // [P][4][L]: phi and the reference gradient, fields fastest
  const double *b1d;   // [q][p+1]: the 1D values and derivatives of the tensor-product basis (fused_sumfact)
  const double *g1d;
  const double *h_b1d;  // the same in host memory, for fused_sumfact's launch (its sumfact_tables parameter)
  const double *h_g1d;
  unsigned long long *bad;
  // FieldField's element apply in the fused kernels (hc_fused_element_cuda), else null: the node map [C][L], the
  // nodal vector u, and v[c][l] = sum_r out[c,l,r] u[cell_nodes[c][r]] ([C][L], doubles)
  const int32_t *cell_nodes = nullptr;
  const double *u = nullptr;
  double *v = nullptr;
  // Or instead of v, the rows added into the nodal vector y[cell_nodes[c][l]] (hc_fused_assemble_cuda), as the
  // assembly of v would add them; DataField's kernels also add out[c][l] into it. apply: v or y is set.
  double *y = nullptr;
  bool apply = false;
  // The fused kernels' points' geometry kept for the step (hc_geometry_cache, filled by geometry_fill): value k of
  // point p of cell c at geom[k C P + c P + p], w|J|, J^-1 row by row, x; or null: each point computes its own
  const double *geom = nullptr;
};

// Row l of cell c's element apply (a.apply): into v, or added into the nodal vector y at the row's node.
__device__ __forceinline__ void row_out(const celldata_args &a, int64_t c, int L, int l, double s) {
  if (a.y) {
    atomicAdd(&a.y[__ldg(&a.cell_nodes[c * L + l])], s);
  } else {
    a.v[c * L + l] = s;
  }
}

// The data functions a kernel's arrays use, packed after J^-1 and w|J| in each point record:
//   DataDataScalar f, g   DataDataVector u   DataDataTensor sigma, eps   DataFieldScalar f
//   DataFieldVector F     DataFieldTensor kappa, s                      FieldFieldTensor kappa
template <hc_kernel Kernel>
__host__ __device__ constexpr int data_count() {
  return Kernel == HC_DATADATA_SCALAR                                    ? 2
         : Kernel == HC_DATADATA_VECTOR || Kernel == HC_DATAFIELD_VECTOR ? 3
         : Kernel == HC_DATADATA_TENSOR || Kernel == HC_DATAFIELD_TENSOR ? 18
         : Kernel == HC_DATAFIELD_SCALAR                                 ? 1
         : Kernel == HC_FIELDFIELD_TENSOR                                ? 9
                                                                         : 0;
}

// Entries per (field and) point of a kernel's arrays: D^rank, D = 3.
template <hc_kernel Kernel>
__host__ __device__ constexpr int entries_per_point() {
  return Kernel % 3 == 0 ? 1 : Kernel % 3 == 1 ? 3 : 9;
}

// Doubles per point record: J^-1 (9, row-major), w|J|, then the kernel's data.
template <hc_kernel Kernel>
__host__ __device__ constexpr int record_size() {
  return 10 + data_count<Kernel>();
}

// A record read from shared memory, structure of arrays: value k of record r at s[k * stride + r].
struct shared_record {
  const double *s;
  int stride;
  __device__ __forceinline__ double operator()(int k) const { return s[k * stride]; }
};

// A record in registers (every index a constant once the loops are unrolled).
template <int R>
struct register_record {
  double v[R];
  __device__ __forceinline__ double operator()(int k) const { return v[k]; }
};

// Doubles of shared memory per cell besides its NV moved geometry nodes: its det J floor, computed once per cell
// (node_floors) rather than at each point (a triquadratic point that read its 81 coordinates for both the floor
// and the map would hold them all in registers and spill; a trilinear one would spend a tenth of its
// instructions on the 8 vertices' bounding box again).
constexpr int kFloorDoubles = 1;

// The geometry of point p of a cell with NV geometry nodes xn (moved), recording cell c (atomicMin on a.bad)
// when it is inverted or degenerate there. floor: the cell's det J floor (node_floors).
template <int NV>
__device__ __forceinline__ void point_geometry(const celldata_args &a, const double (*xn)[3], const double *floor,
                                               int64_t c, int64_t p, hc_point_geom *g) {
  const double xi[3] = {a.qpts[3 * p], a.qpts[3 * p + 1], a.qpts[3 * p + 2]};
  bool ok;
  if constexpr (NV == 27) {
    // the shape functions node by node as the sums use them: 108 of them at once would spill
    double J[3][3];
    hc_pw_triquadratic_map(xn, xi, g->x, J);
    ok = hc_pw_geometry_from_jacobian(J, a.qwts[p], *floor, g);
  } else {
    double N[8], dN[8][3];
    hc_pw_trilinear_shape(xi, N, dN);
    ok = hc_pw_geometry_at(xn, N, dN, a.qwts[p], *floor, g);
  }
  if (!ok) atomicMin(a.bad, (unsigned long long)c);
}

// The kept geometry of point p of cell c (a.geom, as geometry_fill stored it): w|J|, J^-1 and x (not det J).
__device__ __forceinline__ void kept_geometry(const celldata_args &a, int64_t c, int64_t p, hc_point_geom *g) {
  const int64_t n = a.C * a.P;
  const double *src = a.geom + c * a.P + p;
  g->wdet = __ldg(src);
#pragma unroll
  for (int k = 0; k < 9; k++) g->Jinv[k / 3][k % 3] = __ldg(src + (1 + k) * n);
#pragma unroll
  for (int i = 0; i < 3; i++) g->x[i] = __ldg(src + (10 + i) * n);
}

// The record of point p of a cell with NV geometry nodes xn (moved): its geometry (point_geometry, which records
// an inverted or degenerate cell c), or with the points' geometry kept (a.geom; xn and floor unused) read from it.
// floor: the cell's det J floor (node_floors). Kept = false (the cell data, whose calls never keep it): no reading.
template <hc_kernel Kernel, int NV, bool Kept = true>
__device__ __forceinline__ void point_record(const celldata_args &a, const double (*xn)[3], const double *floor,
                                             int64_t c, int64_t p, double *v) {
  hc_point_geom g;
  if (Kept && a.geom) {
    kept_geometry(a, c, p, &g);
  } else {
    point_geometry<NV>(a, xn, floor, c, p, &g);
  }
#pragma unroll
  for (int k = 0; k < 9; k++) v[k] = g.Jinv[k / 3][k % 3];
  v[9] = g.wdet;
  if constexpr (data_count<Kernel>() > 0) {
    hc_point_data d;
    hc_pw_data(&a.data, Kernel, g.x, a.t, &d);
    double *w = v + 10;
    if constexpr (Kernel == HC_DATADATA_SCALAR) {
      w[0] = d.f, w[1] = d.g;
    } else if constexpr (Kernel == HC_DATADATA_VECTOR) {
      for (int i = 0; i < 3; i++) w[i] = d.u[i];
    } else if constexpr (Kernel == HC_DATAFIELD_VECTOR) {
      for (int i = 0; i < 3; i++) w[i] = d.F[i];
    } else if constexpr (Kernel == HC_DATADATA_TENSOR) {
      for (int k = 0; k < 9; k++) w[k] = d.sigma[k / 3][k % 3], w[9 + k] = d.eps[k / 3][k % 3];
    } else if constexpr (Kernel == HC_DATAFIELD_TENSOR) {
      for (int k = 0; k < 9; k++) w[k] = d.kappa[k / 3][k % 3], w[9 + k] = d.s[k / 3][k % 3];
    } else if constexpr (Kernel == HC_DATAFIELD_SCALAR) {
      w[0] = d.f;
    } else {
      for (int k = 0; k < 9; k++) w[k] = d.kappa[k / 3][k % 3];
    }
  }
}

// The data functions back from a record, as hc_pw_data left them (only the kernel's).
template <hc_kernel Kernel, typename Rec>
__device__ __forceinline__ void record_data(const Rec &rec, hc_point_data *d) {
  if constexpr (Kernel == HC_DATADATA_SCALAR) {
    d->f = rec(10), d->g = rec(11);
  } else if constexpr (Kernel == HC_DATADATA_VECTOR) {
    for (int i = 0; i < 3; i++) d->u[i] = rec(10 + i);
  } else if constexpr (Kernel == HC_DATAFIELD_VECTOR) {
    for (int i = 0; i < 3; i++) d->F[i] = rec(10 + i);
  } else if constexpr (Kernel == HC_DATADATA_TENSOR) {
    for (int k = 0; k < 9; k++) d->sigma[k / 3][k % 3] = rec(10 + k), d->eps[k / 3][k % 3] = rec(19 + k);
  } else if constexpr (Kernel == HC_DATAFIELD_TENSOR) {
    for (int k = 0; k < 9; k++) d->kappa[k / 3][k % 3] = rec(10 + k), d->s[k / 3][k % 3] = rec(19 + k);
  } else if constexpr (Kernel == HC_DATAFIELD_SCALAR) {
    d->f = rec(10);
  } else if constexpr (Kernel == HC_FIELDFIELD_TENSOR) {
    for (int k = 0; k < 9; k++) d->kappa[k / 3][k % 3] = rec(10 + k);
  }
}

// The Dij entries (p, i, j) of the per-point arrays at a point (DataData's left and right, DataField's
// right, which has no left here): store(ij, left, right), with the formulas of hc_pointwise.h.
template <hc_kernel Kernel, typename Rec, typename Store>
__device__ __forceinline__ void point_entries(const Rec &rec, Store &&store) {
  constexpr int rank = Kernel % 3, Di = rank >= 1 ? 3 : 1, Dj = rank == 2 ? 3 : 1;
  hc_point_data d;
  record_data<Kernel>(rec, &d);
  const double wdet = rec(9);
#pragma unroll
  for (int i = 0; i < Di; i++) {
#pragma unroll
    for (int j = 0; j < Dj; j++) {
      if constexpr (Kernel / 3 == HC_FAMILY_DATADATA) {
        store(i * Dj + j, hc_pw_datadata_left(rank, &d, wdet, i, j), hc_pw_datadata_right(rank, &d, i, j));
      } else {
        store(i * Dj + j, 0.0, hc_pw_datafield_right(rank, &d, i, j));
      }
    }
  }
}

// The Dij entries (l, p, i, j) of the field arrays for field l at a point (lp = l * P + p): the left of
// DataField and FieldField, the right of FieldField: store(ij, left, right).
template <hc_kernel Kernel, typename Rec, typename Store>
__device__ __forceinline__ void field_entries(const celldata_args &a, int64_t lp, const Rec &rec, Store &&store) {
  constexpr int rank = Kernel % 3, Di = rank >= 1 ? 3 : 1, Dj = rank == 2 ? 3 : 1;
  hc_point_data d;
  record_data<Kernel>(rec, &d);
  const double wdet = rec(9), phi = rank == 0 ? __ldg(&a.phi[lp]) : 0.0;
  double grad[3] = {0.0, 0.0, 0.0};
  if constexpr (rank > 0) {
    const double gref[3] = {__ldg(&a.grad[3 * lp]), __ldg(&a.grad[3 * lp + 1]), __ldg(&a.grad[3 * lp + 2])};
    double Jinv[3][3];
#pragma unroll
    for (int k = 0; k < 9; k++) Jinv[k / 3][k % 3] = rec(k);
    hc_pw_phys_grad(Jinv, gref, grad);
  }
#pragma unroll
  for (int i = 0; i < Di; i++) {
#pragma unroll
    for (int j = 0; j < Dj; j++) {
      store(i * Dj + j, hc_pw_field_left(rank, phi, grad, &d, wdet, i, j),
            Kernel / 3 == HC_FAMILY_FIELDFIELD ? hc_pw_fieldfield_right(rank, phi, grad, i, j) : 0.0);
    }
  }
}

// Geometry node n of the cells' node lists (cell c's nodes are NV c .. NV c + NV - 1) moved to time t: x[3].
__device__ __forceinline__ void moved_node(const celldata_args &a, int64_t n, double *x) {
  const double *src = a.X0 + 3 * n;
  const double X[3] = {src[0], src[1], src[2]};
  if (a.shear) {
    hc_motion_apply_factor(__ldg(a.shear + n), a.st, X, x);  // one product where three sines were
  } else {
    hc_motion_apply(&a.motion, a.t, X, x);
  }
}

// Cells c0 .. c0 + ncell - 1 moved to time t: s_x[cell][node][3], NV geometry nodes per cell, one thread
// per node.
template <int NV>
__device__ __forceinline__ void move_nodes(const celldata_args &a, int64_t c0, int ncell, double *s_x) {
  for (int v = threadIdx.x; v < NV * ncell; v += blockDim.x) moved_node(a, NV * c0 + v, s_x + 3 * v);
}

// The det J floor (hc_pw_nodes_det_floor) of each of ncell cells whose moved nodes are s_x[cell][NV][3]:
// s_floor[cell], one thread per cell. Call after a barrier that follows move_nodes.
template <int NV>
__device__ __forceinline__ void node_floors(int ncell, const double *s_x, double *s_floor) {
  for (int cl = threadIdx.x; cl < ncell; cl += blockDim.x)
    s_floor[cl] = hc_pw_nodes_det_floor(NV, reinterpret_cast<const double(*)[3]>(s_x + NV * 3 * cl));
}

// Cells c0 .. c0 + ncell - 1 moved into s_x (move_nodes) and their det J floors into s_floor (node_floors), each
// followed by a barrier: what every kernel does first with a group of cells.
template <int NV>
__device__ __forceinline__ void group_nodes(const celldata_args &a, int64_t c0, int ncell, double *s_x,
                                            double *s_floor) {
  move_nodes<NV>(a, c0, ncell, s_x);
  __syncthreads();
  node_floors<NV>(ncell, s_x, s_floor);
  __syncthreads();
}

// The det J floor (hc_pw_box_det_floor) of the nodes x that each group of W neighbouring lanes holds (W a power of
// two, at most 32), from their bounding box gathered through shuffles; every lane of the warp calls it and gets
// its group's floor. fmin and fmax are exact, so that in any order it is hc_pw_nodes_det_floor's.
template <int W>
__device__ __forceinline__ double shfl_det_floor(const double (&x)[3]) {
  double lo[3], hi[3];
#pragma unroll
  for (int i = 0; i < 3; i++) lo[i] = hi[i] = x[i];
#pragma unroll
  for (int m = 1; m < W; m *= 2) {
#pragma unroll
    for (int i = 0; i < 3; i++) {
      lo[i] = fmin(lo[i], __shfl_xor_sync(0xffffffffu, lo[i], m));
      hi[i] = fmax(hi[i], __shfl_xor_sync(0xffffffffu, hi[i], m));
    }
  }
  return hc_pw_box_det_floor(lo, hi);
}

// group_nodes in one phase for trilinear cells (fused_points): a cell's 8 vertices are moved by 8 neighbouring
// lanes of one warp (8 divides 32, so a cell never straddles two warps), which meet through shuffles for its det
// J floor (shfl_det_floor), and the first of them stores it: one barrier, and no phase in which one thread per cell
// works while the block waits.
__device__ __forceinline__ void group_vertices(const celldata_args &a, int64_t c0, int ncell, double *s_x,
                                               double *s_floor) {
  const int v = threadIdx.x, nv = 8 * ncell;
  if (v < (nv + 31) / 32 * 32) {  // whole warps, for the shuffles; lanes past the cells form groups of their own
    double x[3] = {0.0, 0.0, 0.0};
    if (v < nv) {
      moved_node(a, 8 * c0 + v, x);
#pragma unroll
      for (int i = 0; i < 3; i++) s_x[3 * v + i] = x[i];
    }
    const double floor = shfl_det_floor<8>(x);
    if (v < nv && v % 8 == 0) s_floor[v / 8] = floor;
  }
  __syncthreads();
}

// A group of cells c0 .. c0 + ncell - 1: their moved nodes and det J floors, by group_vertices with Vertices
// (trilinear cells, a node per thread), else by group_nodes.
template <int NV, bool Vertices>
__device__ __forceinline__ void group_cells(const celldata_args &a, int64_t c0, int ncell, double *s_x,
                                            double *s_floor) {
  if constexpr (Vertices) {
    group_vertices(a, c0, ncell, s_x, s_floor);
  } else {
    group_nodes<NV>(a, c0, ncell, s_x, s_floor);
  }
}

// A fused kernel's group of cells: group_cells, or with the points' geometry kept (a.geom), which needs neither
// nodes nor floors, only the barrier that ends the reads of the group before.
template <int NV, bool Vertices>
__device__ __forceinline__ void fused_group_nodes(const celldata_args &a, int64_t c0, int ncell, double *s_x,
                                                  double *s_floor) {
  if (a.geom) {
    __syncthreads();
  } else {
    group_cells<NV, Vertices>(a, c0, ncell, s_x, s_floor);
  }
}

// Cell-minor arrays (and cell-major ones whose points do not fit the staged kernel): one thread per
// (cell, point) computes its point's record into registers, then writes every entry of that point, the
// per-point arrays' Dij and the field arrays' L * Dij. A block takes kLanes cells of kRows points each in the
// cell-minor layout (a warp: 32 neighbouring cells of one point, so each store is one contiguous run), and
// kRows cells of kLanes points each in the cell-major one. The cells' moved geometry nodes (NV each) and
// their det J floors, are computed once per block into shared memory.
template <hc_kernel Kernel, typename T, bool CellMinor, int NV>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    celldata_points(celldata_args a, T *__restrict__ left, T *__restrict__ right) {
  constexpr hc_family fam = (hc_family)(Kernel / 3);
  constexpr int Dij = entries_per_point<Kernel>();
  constexpr int ncellb = CellMinor ? kLanes : kRows, nptsb = CellMinor ? kRows : kLanes;
  __shared__ double s_x[ncellb * (NV * 3 + kFloorDoubles)];  // [ncellb][NV][3], then [ncellb] floors
  double *s_floor = s_x + ncellb * NV * 3;
  const int64_t C = a.C, P = a.P, L = a.L;
  const int64_t chunks = (P + nptsb - 1) / nptsb, tiles = (C + ncellb - 1) / ncellb * chunks;
  const int lane = threadIdx.x % kLanes, row = threadIdx.x / kLanes;
  const int cl = CellMinor ? lane : row, pp = CellMinor ? row : lane;
  const int64_t pin = P * Dij, fin = L * P * Dij;  // entries per cell of the per-point and field arrays
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t c0 = tile / chunks * ncellb, c = c0 + cl, p = tile % chunks * nptsb + pp;
    const int ncell = (int)(C - c0 < ncellb ? C - c0 : ncellb);
    group_nodes<NV>(a, c0, ncell, s_x, s_floor);
    if (c < C && p < P) {
      register_record<record_size<Kernel>()> rec;
      point_record<Kernel, NV, false>(a, reinterpret_cast<const double(*)[3]>(s_x + NV * 3 * cl), s_floor + cl, c, p,
                                      rec.v);
      if constexpr (fam != HC_FAMILY_FIELDFIELD) {
        point_entries<Kernel>(rec, [&](int ij, double lv, double rv) {
          const int64_t at = hc_at<CellMinor>(c, p * Dij + ij, C, pin);
          if constexpr (fam == HC_FAMILY_DATADATA) left[at] = (T)lv;
          right[at] = (T)rv;
        });
      }
      if constexpr (fam != HC_FAMILY_DATADATA) {
        for (int64_t l = 0; l < L; l++) {
          field_entries<Kernel>(a, l * P + p, rec, [&](int ij, double lv, double rv) {
            const int64_t at = hc_at<CellMinor>(c, (l * P + p) * Dij + ij, C, fin);
            left[at] = (T)lv;
            if constexpr (fam == HC_FAMILY_FIELDFIELD) right[at] = (T)rv;
          });
        }
      }
    }
    __syncthreads();
  }
}

// Items per thread in a round of write_items: with Dij = 3, three (a round fills the stage that Dij = 9 needs, with
// a third of the barriers); else one. H100, both builds in one call: the Vector kernels' cell data of weak.yaml at
// 48^3 cells in float 0.72 -> 0.65 ms (DataField) and 1.15 -> 1.06 ms (FieldField), order4.yaml 0.26 -> 0.23 and
// 0.42 -> 0.40 ms.
template <int Dij>
__host__ __device__ constexpr int stage_items() {
  return Dij == 3 ? 3 : 1;
}

// Writes n items of Dij entries each to out[0 .. n * Dij) (one contiguous run of the array), one thread per
// item: entries(item, store) calls store(ij, value). With Dij > 1 a round of blockDim * stage_items items goes
// through shared memory (stage: blockDim * stage_items * Dij T), so that neighbouring threads store neighbouring
// addresses; with Dij = 1 they do so already. Every thread of the block calls it (it holds barriers).
template <int Dij, typename T, typename Entries>
__device__ __forceinline__ void write_items(T *__restrict__ out, uint32_t n, T *stage, Entries &&entries) {
  constexpr uint32_t per = stage_items<Dij>();
  for (uint32_t r0 = 0; r0 < n; r0 += blockDim.x * per) {
    if constexpr (Dij == 1) {
      const uint32_t item = r0 + threadIdx.x;
      if (item < n) entries(item, [&](int, double v) { out[item] = (T)v; });
    } else {
#pragma unroll
      for (uint32_t j = 0; j < per; j++) {
        const uint32_t slot = j * blockDim.x + threadIdx.x, item = r0 + slot;
        if (item < n) entries(item, [&](int ij, double v) { stage[slot * Dij + ij] = (T)v; });
      }
      __syncthreads();
      const uint32_t m = (n - r0 < blockDim.x * per ? n - r0 : blockDim.x * per) * Dij;
      T *dst = out + (size_t)r0 * Dij;
      for (uint32_t f = threadIdx.x; f < m; f += blockDim.x) dst[f] = stage[f];
      __syncthreads();
    }
  }
}

// Blocks per SM the staged kernel's registers allow (__launch_bounds__).
template <typename T, int NV>
constexpr int staged_min_blocks() {
  return sizeof(T) == 4 || NV == 8 ? kMinBlocksStaged : kMinBlocks;
}

// What the staged kernel needs besides the arguments: its tiling (cells per group, blocks per group) and the
// dividers of its item indices.
struct staged_tiles {
  int cpb;  // cells per group; gridDim.x blocks per group, block blockIdx.x writing that share of its items
  hc_fastdiv div_P, div_LP;
};

// Cell-major arrays, in groups of cpb whole cells, each group taken by gridDim.x blocks (blockIdx.x its share; the
// shares of a group are neighbouring blocks, which run together and write neighbouring addresses):
// (1) the group's moved geometry nodes (and their det J floors) into shared memory; (2) one record per (cell,
// point) into shared memory; (3) the tile's share of the group's part of each array, which in the cell-major
// layout is one contiguous run, written item by item (a point of the per-point arrays, a (field, point) of the
// field arrays) through write_items, so that the geometry and data are computed once per (cell, point) and
// tile and the stores are coalesced whatever D^rank is. FieldField's right array is a second pass over the
// items. Where a group has several blocks, each computes all of the group's records (see staged_plan).
template <hc_kernel Kernel, typename T, int NV>
__global__ void __launch_bounds__(kThreads, staged_min_blocks<T, NV>())
    celldata_major_staged(celldata_args a, staged_tiles tl, T *__restrict__ left, T *__restrict__ right) {
  constexpr hc_family fam = (hc_family)(Kernel / 3);
  constexpr int Dij = entries_per_point<Kernel>(), R = record_size<Kernel>();
  extern __shared__ double staged_smem[];
  const int cpb = tl.cpb;
  const int64_t C = a.C, P = a.P, L = a.L;
  const int ntile = cpb * (int)P;
  double *s_x = staged_smem, *s_floor = s_x + NV * 3 * cpb;     // [cpb][NV][3], [cpb] floors
  double *s_rec = s_floor + kFloorDoubles * cpb;                // [R][cpb * P]
  T *stage = reinterpret_cast<T *>(s_rec + (size_t)R * ntile);  // [blockDim * stage_items][Dij]
  for (int64_t c0 = (int64_t)blockIdx.y * cpb; c0 < C; c0 += (int64_t)gridDim.y * cpb) {
    const int ncell = (int)(C - c0 < cpb ? C - c0 : cpb);
    // this block's share [*i0, *i0 + return) of n items (n * gridDim.x < 2^32: staged_plan)
    auto share_of = [&](uint32_t n, uint32_t *i0) {
      *i0 = n * blockIdx.x / gridDim.x;
      return n * (blockIdx.x + 1) / gridDim.x - *i0;
    };
    group_nodes<NV>(a, c0, ncell, s_x, s_floor);
    for (int r = threadIdx.x; r < ncell * (int)P; r += blockDim.x) {
      const int cl = (int)hc_fastdiv_div(tl.div_P, (uint32_t)r);
      double v[R];
      point_record<Kernel, NV, false>(a, reinterpret_cast<const double(*)[3]>(s_x + NV * 3 * cl), s_floor + cl, c0 + cl,
                                      r - cl * P, v);
#pragma unroll
      for (int k = 0; k < R; k++) s_rec[k * ntile + r] = v[k];
    }
    __syncthreads();
    if constexpr (fam != HC_FAMILY_FIELDFIELD) {
      // items r = (cell, point) of the group; record r
      uint32_t i0;
      const uint32_t n = share_of((uint32_t)(ncell * P), &i0);
      const int64_t at = (c0 * P + i0) * Dij;
      if constexpr (fam == HC_FAMILY_DATADATA) {
        write_items<Dij>(left + at, n, stage, [&](uint32_t r, auto &&store) {
          point_entries<Kernel>(shared_record{s_rec + i0 + r, ntile},
                                [&](int ij, double lv, double) { store(ij, lv); });
        });
      }
      write_items<Dij>(right + at, n, stage, [&](uint32_t r, auto &&store) {
        point_entries<Kernel>(shared_record{s_rec + i0 + r, ntile}, [&](int ij, double, double rv) { store(ij, rv); });
      });
    }
    if constexpr (fam != HC_FAMILY_DATADATA) {
      // items (cell, field, point) of the group; record (cell, point)
      uint32_t i0;
      const uint32_t n = share_of((uint32_t)(ncell * L * P), &i0);
      const int64_t at = (c0 * L * P + i0) * Dij;
      auto item_entries = [&](uint32_t r, auto &&pick) {
        const uint32_t item = i0 + r, cl = hc_fastdiv_div(tl.div_LP, item), lp = item - cl * tl.div_LP.d;
        const uint32_t p = lp - hc_fastdiv_div(tl.div_P, lp) * tl.div_P.d;
        field_entries<Kernel>(a, lp, shared_record{s_rec + cl * P + p, ntile}, pick);
      };
      write_items<Dij>(left + at, n, stage, [&](uint32_t item, auto &&store) {
        item_entries(item, [&](int ij, double lv, double) { store(ij, lv); });
      });
      if constexpr (fam == HC_FAMILY_FIELDFIELD) {
        write_items<Dij>(right + at, n, stage, [&](uint32_t item, auto &&store) {
          item_entries(item, [&](int ij, double, double rv) { store(ij, rv); });
        });
      }
    }
    __syncthreads();
  }
}

// Shared memory of the staged kernel per cell (its NV moved geometry nodes, floor_doubles and P records), and
// for cpb cells per block with the stage.
template <hc_kernel Kernel, int NV>
size_t staged_cell_bytes(int64_t P) {
  return sizeof(double) * (NV * 3 + kFloorDoubles + (size_t)P * record_size<Kernel>());
}
template <hc_kernel Kernel, typename T, int NV>
size_t staged_smem_bytes(int cpb, int64_t P) {
  constexpr int Dij = entries_per_point<Kernel>();
  return (size_t)cpb * staged_cell_bytes<Kernel, NV>(P) +
         (Dij > 1 ? sizeof(T) * kThreads * Dij * stage_items<Dij>() : 0);
}

// Blocks of the staged kernel that one SM holds with cpb cells per block at P points (0: none, or the query
// failed), from the occupancy calculator, once per (cpb, P). Called under ctx->basis_lock (celldata_call).
template <hc_kernel Kernel, typename T, int NV>
int staged_resident(int cpb, int64_t P) {
  static int64_t cached_P[kMaxMajorCells + 1];
  static int cached_blocks[kMaxMajorCells + 1];
  if (cached_P[cpb] != P) {
    int blocks = 0;
    const size_t smem = staged_smem_bytes<Kernel, T, NV>(cpb, P);
    if (smem <= kStagedMaxBytes &&
        (hc_cuda_allow_smem(celldata_major_staged<Kernel, T, NV>, smem) != cudaSuccess ||
         cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, celldata_major_staged<Kernel, T, NV>, kThreads, smem) !=
             cudaSuccess)) {
      (void)cudaGetLastError();
      blocks = 0;
    }
    cached_P[cpb] = P;
    cached_blocks[cpb] = blocks;
  }
  return cached_blocks[cpb];
}

// The model cost of one tile of the staged kernel (cpb cells, a 1/chunks share of their items): its rounds of
// kThreads records, each weighted kRecordWeight, and its rounds of kThreads items of each array, each weighted by
// the item's entries (the stores of a round). kRecordWeight: a round of records takes about as long as 20 rounds
// of one store per thread (ncu on an H100, order4.yaml: a wave of DataData blocks about 5.5 us, a round of
// FieldFieldTensor items 2.5 us, 9 entries each).
constexpr int64_t kRecordWeight = 20;
template <hc_kernel Kernel>
int64_t staged_tile_cost(int64_t cpb, int64_t chunks, int64_t L, int64_t P) {
  constexpr hc_family fam = (hc_family)(Kernel / 3);
  constexpr int64_t Dij = entries_per_point<Kernel>();
  constexpr int64_t point_arrays = fam == HC_FAMILY_DATADATA ? 2 : fam == HC_FAMILY_DATAFIELD ? 1 : 0;
  constexpr int64_t field_arrays = fam == HC_FAMILY_DATADATA ? 0 : fam == HC_FAMILY_DATAFIELD ? 1 : 2;
  constexpr int64_t per = stage_items<Dij>();
  auto rounds = [](int64_t items, int64_t width) { return (items + width - 1) / width; };
  auto share = [&](int64_t items) { return rounds(rounds(items, chunks), kThreads * per) * per; };
  return kRecordWeight * rounds(cpb * P, kThreads) +
         Dij * (point_arrays * share(cpb * P) + field_arrays * share(cpb * L * P));
}

// The staged kernel's tiling: cells per group and blocks per group.
struct staged_shape {
  int cpb, chunks;
};

// Where a grid of kThreads / P cells per block is kFillWaves waves of resident blocks or more: those blocks, one
// share each (see kFillWaves). Else, for cells of at least kThreads items (a few waves, where a last wave partly
// filled costs much: order4.yaml's FieldFieldVector took 2 rounds of blocks for 1.26 rounds' work, at 36% of the
// DRAM peak), the cells per group (1 .. as many as fit kStagedRecordBytes of records) and shares per group (1 ..
// kMaxChunks) of the least model time: rounds of resident tiles times staged_tile_cost. Ties go to more cells and fewer
// shares. The last (C, L, P)'s plan is kept, so that a step's calls do not search again (a search is a few microseconds
// of host time, which an order1.yaml step, queued about as fast as it runs, would show). Called under ctx->basis_lock
// (celldata_call).
constexpr int kMaxChunks = 16;
template <hc_kernel Kernel, typename T, int NV>
staged_shape staged_search(const celldata_args &a) {
  staged_shape shape{};
  int cpb = (int)(kStagedRecordBytes / staged_cell_bytes<Kernel, NV>(a.P));
  cpb = cpb < 1 ? 1 : cpb > kMaxMajorCells ? kMaxMajorCells : cpb;
  shape.cpb = cpb, shape.chunks = 1;
  const cudaDeviceProp *props = nullptr;
  if (hc_cuda_device_props(&props) != HC_OK) {
    hc_error_clear();
    return shape;
  }
  if (a.P <= kThreads) {
    int fill = (int)(kThreads / a.P);
    fill = fill > kMaxMajorCells ? kMaxMajorCells : fill;
    while (fill > 1 && staged_smem_bytes<Kernel, T, NV>(fill, a.P) > kFillMaxBytes) fill--;
    const int64_t resident = (int64_t)props->multiProcessorCount * staged_min_blocks<T, NV>();
    if ((a.C + fill - 1) / fill >= kFillWaves * resident) {
      shape.cpb = fill;
      return shape;
    }
  }
  // Cells of fewer items than a round of threads (order 1: 64) keep the default: there a tile is mostly its round
  // of records, which the model weighs too lightly (order1.yaml, H100: its choices measured 0-20% slower).
  if (a.L * a.P < kThreads) return shape;
  int64_t best = INT64_MAX;
  for (int c = cpb; c >= 1; c--) {
    const int64_t resident = (int64_t)props->multiProcessorCount * staged_resident<Kernel, T, NV>(c, a.P);
    if (resident == 0) continue;
    const int64_t groups = (a.C + c - 1) / c;
    for (int k = 1; k <= kMaxChunks && (int64_t)c * a.L * a.P * k < INT32_MAX; k++) {
      const int64_t t = (groups * k + resident - 1) / resident * staged_tile_cost<Kernel>(c, k, a.L, a.P);
      if (t < best) best = t, shape.cpb = c, shape.chunks = k;
    }
  }
  return shape;
}

// staged_search's tiling for a, the last (C, L, P)'s kept (see above).
template <hc_kernel Kernel, typename T, int NV>
staged_shape staged_plan(const celldata_args &a) {
  static int64_t last_C = -1;
  static int last_L, last_P;
  static staged_shape last;
  if (a.C != last_C || a.L != last_L || a.P != last_P) {
    last = staged_search<Kernel, T, NV>(a);
    last_C = a.C, last_L = a.L, last_P = a.P;
  }
  return last;
}

template <hc_kernel Kernel, typename T, int NV>
cudaError_t launch_typed(const celldata_args &a, bool minor, void *d_left, void *d_right) {
  const cudaStream_t stream = hc_cuda_stream();
  T *l = static_cast<T *>(d_left), *r = static_cast<T *>(d_right);
  if (!minor) {
    const staged_shape plan = staged_plan<Kernel, T, NV>(a);
    const size_t smem = staged_smem_bytes<Kernel, T, NV>(plan.cpb, a.P);
    if (smem <= kStagedMaxBytes) {
      staged_tiles tl;
      tl.cpb = plan.cpb;
      tl.div_P = hc_fastdiv_make((uint32_t)a.P);
      tl.div_LP = hc_fastdiv_make((uint32_t)(a.L * a.P));
      const cudaError_t err = hc_cuda_allow_smem(celldata_major_staged<Kernel, T, NV>, smem);
      if (err != cudaSuccess) return err;
      const dim3 grid(plan.chunks, hc_cuda_grid((a.C + plan.cpb - 1) / plan.cpb, 65535));
      celldata_major_staged<Kernel, T, NV><<<grid, kThreads, smem, stream>>>(a, tl, l, r);
      return cudaGetLastError();
    }
  }
  const int64_t cells = minor ? kLanes : kRows, points = minor ? kRows : kLanes;
  const unsigned grid = hc_cuda_grid((a.C + cells - 1) / cells * ((a.P + points - 1) / points));
  if (minor) {
    celldata_points<Kernel, T, true, NV><<<grid, kThreads, 0, stream>>>(a, l, r);
  } else {
    celldata_points<Kernel, T, false, NV><<<grid, kThreads, 0, stream>>>(a, l, r);
  }
  return cudaGetLastError();
}

template <hc_kernel Kernel, int NV>
cudaError_t launch_nodes(const celldata_args &a, hc_precision precision, bool minor, void *d_left, void *d_right) {
  return precision == HC_FLOAT ? launch_typed<Kernel, float, NV>(a, minor, d_left, d_right)
                               : launch_typed<Kernel, double, NV>(a, minor, d_left, d_right);
}

template <hc_kernel Kernel>
cudaError_t launch(const celldata_args &a, int nodes, hc_precision precision, hc_layout layout, void *d_left,
                   void *d_right) {
  const bool minor = layout == HC_LAYOUT_CELL_MINOR;
  return nodes == 27 ? launch_nodes<Kernel, 27>(a, precision, minor, d_left, d_right)
                     : launch_nodes<Kernel, 8>(a, precision, minor, d_left, d_right);
}

// Calls f(std::integral_constant<hc_kernel, K>{}) for the kernel K named at run time: the one switch over the
// nine kernels that turns a run-time name into a template argument (the cell data and the fused assembly).
template <typename F>
cudaError_t with_kernel(hc_kernel kernel, F &&f) {
  switch (kernel) {
    case HC_DATADATA_SCALAR:
      return f(std::integral_constant<hc_kernel, HC_DATADATA_SCALAR>{});
    case HC_DATADATA_VECTOR:
      return f(std::integral_constant<hc_kernel, HC_DATADATA_VECTOR>{});
    case HC_DATADATA_TENSOR:
      return f(std::integral_constant<hc_kernel, HC_DATADATA_TENSOR>{});
    case HC_DATAFIELD_SCALAR:
      return f(std::integral_constant<hc_kernel, HC_DATAFIELD_SCALAR>{});
    case HC_DATAFIELD_VECTOR:
      return f(std::integral_constant<hc_kernel, HC_DATAFIELD_VECTOR>{});
    case HC_DATAFIELD_TENSOR:
      return f(std::integral_constant<hc_kernel, HC_DATAFIELD_TENSOR>{});
    case HC_FIELDFIELD_SCALAR:
      return f(std::integral_constant<hc_kernel, HC_FIELDFIELD_SCALAR>{});
    case HC_FIELDFIELD_VECTOR:
      return f(std::integral_constant<hc_kernel, HC_FIELDFIELD_VECTOR>{});
    default:
      return f(std::integral_constant<hc_kernel, HC_FIELDFIELD_TENSOR>{});
  }
}

cudaError_t launch_kernel(hc_kernel kernel, const celldata_args &a, int nodes, hc_precision precision, hc_layout layout,
                          void *d_left, void *d_right) {
  return with_kernel(kernel,
                     [&](auto k) { return launch<decltype(k)::value>(a, nodes, precision, layout, d_left, d_right); });
}

// ---- The fused assembly (hc_backend.fused, README section "Fused assembly") ----
//
// DataData and DataField (fused_points): NCB cells per block, one thread per (cell, point) computing its record;
// each entry is used once, so none is stored, and DataField's contraction is taken in the reference space
// (field_point_vector; described at the kernel).
//
// FieldField (fused_cells), in the reference space as the OpenMP fused kernel takes it: sum_ij left right =
// sum_km dref_k phi_l G_km dref_m phi_r (hc_pw_ff_metric; Scalar: phi_l w|J| phi_r), so that the left matrix is
// the reference table (L rows of P Dk entries, Dk = 3, or 1 for Scalar), the same for every cell, and only the
// right one, G dref phi_r, is formed per cell. A block takes NCB cells at a time (a grid-stride loop over groups
// of cells), their points in chunks of PC: (1) the cells' moved geometry nodes into shared memory; (2) every
// point's metric (9 doubles, or w|J|) from its record, one thread per (cell, point), the whole group's at once
// (so that no point geometry lies on the chain of barriers of a cell's chunks); then per cell and chunk (3) the
// chunk's right rows (and its left rows, unless one chunk holds every point and the table stays in shared
// memory for the whole kernel), rounded to the array precision, and (4) the chunk's contribution to the L x L
// outputs. With 16 or more fields (orders 2 to 4) step (4) is a GEMM of the chunk's matrices (Math,
// hc_cell_gemm.cuh): the FP64 tensor cores (mma.sync) in double, register blocks of FMAs with 16-byte
// shared-memory reads in float, over the element matrix padded to a BM x BM tile (rows past L are never stored;
// the chunk's entries past PC Dk are zeroed up to a whole mma or vector step). With fewer (order 1) each thread
// sums one output's dot product, or S threads split one and meet through shared memory. The big arrays are
// never stored.

constexpr int kFusedThreads = 256;
// Blocks per SM the registers of fused_points must allow: its kernels are latency-bound (a record is about a
// thousand instructions, with the data functions' sines and cosines), so that more warps in flight pay more than
// the few registers spilled where the record is small (DataData and DataField Scalar and Vector: 10 + 1..3
// doubles; 3 blocks of 80 registers measured faster than 2 of up to 128, and than 4 of 64, on an H100), and with
// trilinear cells (NV = 8) where it is larger too (the Tensor kernels: 36-48 bytes spilled; with fused_quads' 3
// blocks below, the fused contraction phase of order1.yaml 157 -> 152 us per step on an H100, weak.yaml 424 -> 416).
template <hc_kernel Kernel, int NV>
constexpr int fused_points_blocks() {
  return record_size<Kernel>() <= 13 || NV == 8 ? 3 : 2;
}
// Threads per block where a cell's points and outputs fit 64 (order 1): four times the cells in flight per SM,
// as a block is mostly idle while its few points' records are computed.
constexpr int kFusedSmallThreads = 64;
constexpr size_t kFusedSmemBytes = 96 * 1024;  // shared memory per block at most: two blocks per SM
// With the 128 x 128 tile (order 4) one block fills an SM (kFusedBigThreads): it may take most of the shared
// memory, so that the chunks hold more points.
constexpr size_t kFusedSmemBytesBig = 160 * 1024;  // within sm_80's 163 KB per block

// Threads per block with the 128 x 128 tile (order 4): a block fills an SM, so that it takes twice the warps
// of the smaller tiles' blocks, each with half the accumulators (32 doubles, within 128 registers).
constexpr int kFusedBigThreads = 512;

// Threads per block of FieldField's GEMM of a BM x BM element matrix (padded), and its math.
constexpr int fused_gemm_threads(int BM) {
  return BM >= 128 ? kFusedBigThreads : kFusedThreads;
}
template <typename T, int BM, int W = fused_gemm_threads(BM) / 128>
using fused_math = std::conditional_t<std::is_same_v<T, double>, hc_gemm::MathDmma<BM, BM, W, 4, 8>,
                                      hc_gemm::MathFma<float, BM, BM, 8 * W, 16>>;

// How a cell's contraction is laid out (set on the host, fused_shape_of).
struct fused_shape {
  int Lf, Rf, Dk;  // left rows, right rows, entries per point and row
  int PC, LDK;     // points per chunk; row stride of the chunk matrices: PC Dk made odd (no bank conflicts), or
                   // with a GEMM (BM > 0) rounded up to 8 plus 4 (conflict-free mma and 16-byte reads)
  int BM;          // FieldField's padded element matrix with a GEMM (Math), else 0
  int LM, RM;      // rows of the left and right chunk matrices in shared memory: Lf and Rf, or BM
  int KQ;          // the GEMM's step: the chunk's entries are zeroed past PC Dk up to a multiple of KQ (1: none)
  int NCB;         // cells per block: > 1 only with all points in one chunk (PC = P)
  int nout, S;     // outputs per cell; threads per output (1 when there are more outputs than threads)
  int nt;          // threads per block
};

// Doubles per point of FieldField's metric in the reference space (hc_pw_ff_metric): G, or w|J| alone for
// FieldFieldScalar.
template <hc_kernel Kernel>
__host__ __device__ constexpr int ff_metric_size() {
  return Kernel == HC_FIELDFIELD_SCALAR ? 1 : 9;
}

// FieldField's metric at point p of cell c (moved geometry nodes xn, det J floor *floor) from its record: its
// ff_metric_size doubles k at dst[k * stride].
template <hc_kernel Kernel, int NV>
__device__ __forceinline__ void point_metric(const celldata_args &a, const double (*xn)[3], const double *floor,
                                             int64_t c, int p, double *dst, int stride) {
  double v[record_size<Kernel>()];
  point_record<Kernel, NV>(a, xn, floor, c, p, v);
  if constexpr (ff_metric_size<Kernel>() == 1) {
    dst[0] = v[9];
  } else {
    double g[9];
    hc_pw_ff_metric(v, Kernel == HC_FIELDFIELD_TENSOR ? v + 10 : nullptr, v[9], g);
#pragma unroll
    for (int k = 0; k < 9; k++) dst[k * stride] = g[k];
  }
}

// Cell c's NV geometry nodes moved into s_x[NV][3] and its det J floor into *s_floor by one warp (lane: the caller's
// lane). Lane v moves node v and the lanes past NV move one again (8 nodes: each group of 8 lanes all of them), so
// that the lanes' bounding box is the nodes' and shuffles give the floor (shfl_det_floor): lane 0 alone taking it
// from shared memory cost a tenth of fused_warps' instructions (ncu, FieldFieldVector at 48^3 cells). Kernels
// whose registers are tight (Shuffled = false: FieldFieldScalar's, which spilled 288 bytes per thread with the
// shuffles, ptxas -v) move the NV nodes with NV lanes and take the floor in lane 0.
template <int NV, bool Shuffled>
__device__ __forceinline__ void warp_cell_nodes(const celldata_args &a, int64_t c, int lane, double *s_x,
                                                double *s_floor) {
  if constexpr (Shuffled) {
    constexpr int W = NV == 8 ? 8 : 32;
    const int v = NV == 8 ? lane % 8 : lane < NV ? lane : 0;
    double x[3];
    moved_node(a, NV * c + v, x);
    if (lane < NV) {
#pragma unroll
      for (int i = 0; i < 3; i++) s_x[3 * lane + i] = x[i];
    }
    const double floor = shfl_det_floor<W>(x);
    if (lane == 0) *s_floor = floor;
  } else {
    for (int v = lane; v < NV; v += 32) moved_node(a, NV * c + v, s_x + 3 * v);
    __syncwarp();
    if (lane == 0) *s_floor = hc_pw_nodes_det_floor(NV, reinterpret_cast<const double(*)[3]>(s_x));
  }
}

// FieldFieldScalar's metric (w|J|) at point p of a triquadratic cell, as a call: inlined into fused_warps, the
// triquadratic map there spilled 960 bytes per thread (ptxas -v; 32 so, in double).
__device__ __noinline__ void scalar_metric_27(const celldata_args &a, const double (*xn)[3], const double *floor,
                                              int64_t c, int p, double *dst) {
  point_metric<HC_FIELDFIELD_SCALAR, 27>(a, xn, floor, c, p, dst, 1);
}

// The element apply's rows of cell c from its matrix as stored (cell_out: entry (l, r) at cell_out[(l Rf + r) rs]),
// one thread per row: v[c Lf + l] = sum_r out[c, l, r] u[cell_nodes[c][r]], r in the order of the element apply
// (assembly_cuda.cu), so that the sums are the same; us: u at the cell's nodes in shared memory, or null (read
// through cn). Call after a barrier that follows the block's stores of the matrix.
template <typename T>
__device__ __forceinline__ void element_apply(const celldata_args &a, const T *cell_out, int64_t rs, int Lf, int Rf,
                                              const double *us, const int32_t *cn, int64_t c) {
  for (int l = threadIdx.x; l < Lf; l += blockDim.x) {
    const T *row = cell_out + (int64_t)l * Rf * rs;
    double s = 0;
    if (us) {
#pragma unroll 8
      for (int r = 0; r < Rf; r++) s += (double)row[r * rs] * us[r];
    } else {
      for (int r = 0; r < Rf; r++) s += (double)row[r * rs] * __ldg(&a.u[__ldg(&cn[r])]);
    }
    row_out(a, c, Lf, l, s);
  }
}

// Doubles of shared memory before the chunk matrices (the NCB cells' geometry nodes and floors, their metrics),
// made even so that the matrices start on 16 bytes.
template <hc_kernel Kernel, int NV>
__host__ __device__ constexpr size_t fused_matrix_offset(int NCB, int P) {
  return ((size_t)NCB * (NV * 3 + kFloorDoubles + (size_t)ff_metric_size<Kernel>() * P) + 1) / 2 * 2;
}

// Blocks per SM that the registers must allow for NT threads per block: 8 of the small blocks, 2 of 256
// threads, one of kFusedBigThreads (128 registers per thread each time but the small blocks').
template <int NT>
constexpr int fused_min_blocks() {
  return NT == kFusedSmallThreads ? 8 : NT == kFusedBigThreads ? 1 : 2;
}

// NT threads per block (kFusedThreads, kFusedSmallThreads, or with the 128 x 128 tile kFusedBigThreads). Math:
// void (dot products: one output per thread, or S threads per output) or the GEMM of FieldField's element
// matrix (f.BM rows).
template <hc_kernel Kernel, typename T, int NV, int NT, class Math = void>
__global__ void __launch_bounds__(NT, fused_min_blocks<NT>())
    fused_cells(celldata_args a, fused_shape f, bool cell_minor, int sum_into, T *__restrict__ out) {
  static_assert((hc_family)(Kernel / 3) == HC_FAMILY_FIELDFIELD,
                "fused_cells takes FieldField (fused_points the rest)");
  constexpr int G = ff_metric_size<Kernel>();
  constexpr bool kGemm = !std::is_void_v<Math>;
  if constexpr (kGemm) static_assert(Math::kThreads == NT, "the GEMM's warps are the block's");
  extern __shared__ double fused_smem[];
  const int64_t C = a.C, P = a.P;
  const int ncb = f.NCB, rstride = ncb * (int)P;        // metric k of (cell cl, point p) at s_g[k rstride + cl P + p]
  double *s_x = fused_smem;                             // [NCB][NV][3]
  double *s_floor = s_x + (size_t)ncb * NV * 3;         // [NCB]
  double *s_g = s_floor + (size_t)ncb * kFloorDoubles;  // [G][NCB][P]
  T *Ls = reinterpret_cast<T *>(fused_smem + fused_matrix_offset<Kernel, NV>(ncb, P));  // [LM][LDK]
  T *Rs = Ls + (size_t)f.LM * f.LDK;                                                    // [RM][LDK]
  T *red = Rs + (size_t)f.RM * f.LDK;                                                   // [NT]
  const int tid = threadIdx.x, nt = blockDim.x;
  const int slice = f.S > 1 ? tid / f.nout : 0, o0 = f.S > 1 ? tid % f.nout : tid;
  const bool active = slice < f.S;
  // The padding rows of the GEMM's matrices, never formed: zero, so that every product is of finite numbers.
  for (int it = tid; it < (f.LM - f.Lf) * f.LDK; it += nt) Ls[(size_t)f.Lf * f.LDK + it] = T(0);
  for (int it = tid; it < (f.RM - f.Rf) * f.LDK; it += nt) Rs[(size_t)f.Rf * f.LDK + it] = T(0);
  // One chunk holding every point: the left rows (the reference table, rounded to T, the same for every cell)
  // loaded once; else each chunk's are stored beside its right rows, from the same loads.
  constexpr int Dk = G == 1 ? 1 : 3;               // f.Dk
  const double *table = Dk == 1 ? a.phi : a.grad;  // the left rows: [L][P Dk]
  const bool resident = f.PC == P;
  if (resident) {
    for (int it = tid; it < f.Lf * (int)P * Dk; it += nt) {
      const int row = it / ((int)P * Dk), k = it - row * (int)P * Dk;
      Ls[row * f.LDK + k] = (T)__ldg(&table[it]);
    }
    __syncthreads();
  }
  // The metrics of every point of cells c0 + cl, cl < ncell, one thread per (cell, point), before any of the
  // cells' chunks (so that the chain of barriers per chunk holds no point geometry).
  auto metrics = [&](int64_t c0, int ncell) {
    for (int it = tid; it < ncell * (int)P; it += nt) {
      const int cl = it / (int)P, p = it - cl * (int)P;
      point_metric<Kernel, NV>(a, reinterpret_cast<const double(*)[3]>(s_x + cl * NV * 3), s_floor + cl, c0 + cl, p,
                               s_g + it, rstride);
    }
    __syncthreads();
  };
  for (int64_t c0 = (int64_t)blockIdx.x * ncb; c0 < C; c0 += (int64_t)gridDim.x * ncb) {
    const int ncell = (int)(C - c0 < ncb ? C - c0 : ncb);
    fused_group_nodes<NV, false>(a, c0, ncell, s_x, s_floor);
    metrics(c0, ncell);
    for (int cl = 0; cl < ncell; cl++) {
      const int64_t c = c0 + cl;
      T acc = T(0);  // output o0, or slice's part of it
      std::conditional_t<kGemm, Math, int> math{};
      if constexpr (kGemm) math.zero();
      for (int64_t p0 = 0; p0 < P; p0 += f.PC) {
        const int pc = (int)(P - p0 < f.PC ? P - p0 : f.PC);
        // the right rows: G dref phi_r (Dk = 3), or w|J| phi_r, at each point, from the metric in double (and
        // the left rows' dref phi_l or phi_l, where not resident); unrolled so that a thread's loads overlap
#pragma unroll 4
        for (int it = tid; it < f.Rf * pc; it += nt) {
          const int row = it / pc, pp = it - row * pc;
          const double *g = s_g + cl * P + p0 + pp;
          const int at = row * f.LDK + pp * Dk;
          double d[Dk];
#pragma unroll
          for (int k = 0; k < Dk; k++) {
            d[k] = __ldg(&table[(row * P + p0 + pp) * Dk + k]);
            if (!resident) Ls[at + k] = (T)d[k];
          }
          if constexpr (G == 1) {
            Rs[at] = (T)(g[0] * d[0]);
          } else {
#pragma unroll
            for (int k = 0; k < 3; k++)
              Rs[at + k] =
                  (T)(g[3 * k * rstride] * d[0] + g[(3 * k + 1) * rstride] * d[1] + g[(3 * k + 2) * rstride] * d[2]);
          }
        }
        const int kn = pc * f.Dk, knq = (kn + f.KQ - 1) / f.KQ * f.KQ;
        if constexpr (kGemm) {
          // the entries past kn up to the GEMM's next step: zero in both matrices
          const int padw = knq - kn;
          for (int it = tid; it < (f.Lf + f.Rf) * padw; it += nt) {
            const int row = it / padw, k = kn + it % padw;
            (row < f.Lf ? Ls + row * f.LDK : Rs + (row - f.Lf) * f.LDK)[k] = T(0);
          }
        }
        __syncthreads();
        if constexpr (kGemm) {
          hc_gemm::steps(math, Ls, Rs, f.LDK, knq, tid);
        } else if (active && o0 < f.nout) {
          const T *lrow = Ls + (o0 / f.Rf) * f.LDK, *rrow = Rs + (o0 % f.Rf) * f.LDK;
          for (int k = slice; k < kn; k += f.S) acc += lrow[k] * rrow[k];
        }
        __syncthreads();  // the next chunk or cell overwrites the matrices
      }
      // with the element apply, u at the cell's nodes into the chunk's right rows (free until the next cell's
      // chunk, where they hold L doubles, 8-byte aligned), loaded while the matrix is stored
      const int32_t *cn = a.apply ? a.cell_nodes + c * f.Lf : nullptr;
      double *us = a.apply && (size_t)f.RM * f.LDK * sizeof(T) >= (size_t)f.Lf * sizeof(double) &&
                           (size_t)f.LM * f.LDK * sizeof(T) % sizeof(double) == 0
                       ? reinterpret_cast<double *>(Rs)
                       : nullptr;
      if (us)
        for (int l = tid; l < f.Lf; l += nt) us[l] = __ldg(&a.u[__ldg(&cn[l])]);
      auto store = [&](int o, T v) { hc_store(&out[cell_minor ? (int64_t)o * C + c : c * f.nout + o], v, sum_into); };
      if constexpr (kGemm) {
        math.store(out + (cell_minor ? c : c * f.nout), f.Lf, f.Rf, 0, 0, sum_into, tid, cell_minor ? C : 1);
      } else if (f.S > 1) {
        red[tid] = active ? acc : T(0);
        __syncthreads();
        if (tid < f.nout) {
          T sum = T(0);
          for (int j = 0; j < f.S; j++) sum += red[tid + j * f.nout];
          store(tid, sum);
        }
      } else if (o0 < f.nout) {
        store(o0, acc);
      }
      if (a.apply) {
        // the element apply's rows (with the 256-thread GEMM blocks: fused_apply_in_kernel), one thread each,
        // from the matrix as stored (the block's stores are seen after the barrier), r in the order of the element
        // apply (assembly_cuda.cu): the same sums
        __syncthreads();
        element_apply(a, out + (cell_minor ? c : c * f.nout), cell_minor ? C : 1, f.Lf, f.Rf, us, cn, c);
        __syncthreads();  // the next cell's chunk overwrites u
      }
    }
  }
}

// FieldField by sum factorization (fused_sumfact): with the default quadrature (q = p + 1 points per direction)
// and N = p + 1 = 3 to 5 (orders 2 to 4), cell-major. The basis is a tensor product
// (hc_basis.h): field l = a1 + N (a2 + N a3) is X(a1) X(a2) X(a3) and point k = k1 + Q (k2 + Q k3), so that each of the
// sum's terms dref_d phi_l G_de dref_e phi_r factors into one 1D pair per direction, X^d_m(a, k) X^e_m(b, k) (X^d_m:
// the 1D derivatives where d = m, else the values; FieldFieldScalar: values and G = w|J| alone), and the sum over the
// points is taken one direction at a time. Per cell and a3, with G's nine (or one) components at the points in
// shared memory:
//   (1) T1[de][b3][k2][k1] = sum_k3 X^d_3(a3, k3) X^e_3(b3, k3) G_de(k1, k2, k3)
//   (2) U[t][b3][a2][b2][k1] = sum_(de in class t) sum_k2 X^d_2(a2, k2) X^e_2(b2, k2) T1[de][b3][k2][k1], the
//       classes t = 2 [d = 0] + [e = 0] being the four direction-1 factors (one for FieldFieldScalar)
//   (3) out[l][r] for the N^2 rows l of a3 = sum_t sum_k1 X^t_1(a1, k1) X^t_1(b1, k1) U[t][b3][a2][b2][k1], one
//       thread per column r = b1 + N (b2 + N b3), so that each row's stores coalesce.
// At order 4 that is about 0.5 M multiply-adds per cell where the GEMM of fused_cells does 5.9 M (order 3: 0.11 M
// against 0.79 M; order 2: 18 K against 59 K), on the FP64 (or FP32) units rather than the tensor cores. A block
// takes one cell at a time (N^3 threads rounded up to a warp) and loops over the cells. The same sums as the
// materialized contraction in another order: the results agree within the contraction's tolerance.
constexpr int kSumfactMinN = 3, kSumfactMaxN = 5;
__host__ __device__ constexpr int sumfact_threads(int N) {
  return (N * N * N + 31) / 32 * 32;
}

// Shared memory of fused_sumfact: doubles (the nodes and floor made even, G at the points, u at the cell's nodes),
// then T (the 1D tables, T1, U).
template <hc_kernel Kernel, typename T, int NV, int N>
__host__ __device__ constexpr size_t sumfact_smem() {
  constexpr int G = ff_metric_size<Kernel>(), NC = G == 1 ? 1 : 4, L = N * N * N;
  return sizeof(double) * ((NV * 3 + kFloorDoubles + 1) / 2 * 2 + (size_t)G * L + L) +
         sizeof(T) * (2 * N * N + (size_t)G * N * N * N + (size_t)NC * L * N);
}

// Blocks per SM the registers must allow: with N = 3, 20 blocks of one warp (96 registers, the 1D tables in them;
// at 80 FieldFieldTensor spilled 96 bytes per thread, ptxas -v) for trilinear cells, 12 (168) for triquadratic ones,
// whose map spilled 200 bytes at 80 and 40 at 128; 8 (128) with N = 4; 3 with N = 5 (160 registers; at 128, 64
// bytes spilled in double).
__host__ __device__ constexpr int sumfact_min_blocks(int N, int NV) {
  return N == 3 ? (NV == 8 ? 20 : 12) : N == 4 ? 8 : 3;
}

// The 1D tables of fused_sumfact rounded to T, values then derivatives, each [k][a], as a kernel parameter: with
// N >= 4 the entries that phases (2) and (3) take at indices known when compiled (every a and k of the unrolled
// loops, the same for all threads) are then operands of the multiply-adds from the constant bank, where reading the
// shared memory's copy cost a load each (on an H200 the FieldFieldVector and Tensor kernels of order4.yaml 8% faster,
// order3.yaml's 6-8%; with N = 3, whose tables the registers hold, no faster).
template <typename T, int N>
struct sumfact_tables {
  T v[2 * N * N];
};

template <hc_kernel Kernel, typename T, int NV, int N>
__global__ void __launch_bounds__(sumfact_threads(N), sumfact_min_blocks(N, NV))
    fused_sumfact(celldata_args a, int sum_into, T *__restrict__ out,
                  const __grid_constant__ sumfact_tables<T, N> tab) {
  static_assert((hc_family)(Kernel / 3) == HC_FAMILY_FIELDFIELD, "fused_sumfact takes FieldField");
  constexpr int Q = N, P = Q * Q * Q, L = N * N * N, QN = Q * N, NT = sumfact_threads(N);
  constexpr int G = ff_metric_size<Kernel>(), NC = G == 1 ? 1 : 4;
  extern __shared__ double fused_smem[];
  double *s_x = fused_smem;                                         // [NV][3]
  double *s_floor = s_x + NV * 3;                                   // [1]
  double *s_g = fused_smem + (NV * 3 + kFloorDoubles + 1) / 2 * 2;  // [G][P]
  double *s_us = s_g + G * P;                                       // [L]: u at the cell's nodes (element apply)
  T *s_b = reinterpret_cast<T *>(s_us + L);                         // [2][Q][N]: the 1D values, then derivatives
  T *s_t1 = s_b + 2 * QN;                                           // [G][N][Q][Q]
  T *s_u = s_t1 + G * N * Q * Q;                                    // [NC][N][N][N][Q]
  const int tid = threadIdx.x;
  for (int it = tid; it < QN; it += NT) {
    s_b[it] = (T)__ldg(&a.b1d[it]);
    s_b[QN + it] = (T)__ldg(&a.g1d[it]);
  }
  // X^d_m: the derivatives' table where d == m (none for FieldFieldScalar)
  auto X = [&](int d, int m) -> const T * { return G > 1 && d == m ? s_b + QN : s_b; };
  // With N = 3 the 1D tables (18 numbers) in registers, and the thread's own columns of them in phases (2) and (3)
  // (its b2 and b1), so that those phases read only T1 and U from shared memory. Larger tables stay there, but for
  // the entries every thread takes alike in phases (2) and (3), which come from the parameter tab (sumfact_tables).
  constexpr bool kRegs = N == 3;
  T xr[kRegs ? 2 * QN : 1], xb2[kRegs ? 2 * Q : 1], xb1[kRegs ? 2 * Q : 1];
  if constexpr (kRegs) {
    __syncthreads();
    const int b2 = tid % QN / Q, b1 = tid % N;
#pragma unroll
    for (int i = 0; i < 2 * QN; i++) xr[i] = s_b[i];
#pragma unroll
    for (int k = 0; k < 2 * Q; k++) {
      xb2[k] = s_b[k / Q * QN + k % Q * N + b2];
      xb1[k] = s_b[k / Q * QN + k % Q * N + b1];
    }
  }
  // entry (k, a) of the values (deriv false) or derivatives; the same of the thread's column b (b2 in phase (2))
  auto xa_at = [&](bool deriv, int k, int a) -> T {
    if constexpr (kRegs) {
      return xr[(deriv ? QN : 0) + k * N + a];
    } else {
      return tab.v[(deriv ? QN : 0) + k * N + a];
    }
  };
  auto xb2_at = [&](bool deriv, int k, int b) -> T {
    if constexpr (kRegs) {
      return xb2[(deriv ? Q : 0) + k];
    } else {
      return s_b[(deriv ? QN : 0) + k * N + b];
    }
  };
  auto xb1_at = [&](bool deriv, int k, int b) -> T {
    if constexpr (kRegs) {
      return xb1[(deriv ? Q : 0) + k];
    } else {
      return s_b[(deriv ? QN : 0) + k * N + b];
    }
  };
  for (int64_t c = blockIdx.x; c < a.C; c += gridDim.x) {
    fused_group_nodes<NV, false>(a, c, 1, s_x, s_floor);  // its barriers also end the previous cell's reads
    for (int p = tid; p < P; p += NT)
      point_metric<Kernel, NV>(a, reinterpret_cast<const double(*)[3]>(s_x), s_floor, c, p, s_g + p, P);
    const int32_t *cn = a.apply ? a.cell_nodes + c * L : nullptr;
    if (a.apply)
      for (int l = tid; l < L; l += NT) s_us[l] = __ldg(&a.u[__ldg(&cn[l])]);
    __syncthreads();
    T *cell_out = out + c * (int64_t)L * L;
    for (int a3 = 0; a3 < N; a3++) {
      // (1): the previous a3's (2) has passed the barrier before its (3), so T1 is free
      for (int it = tid; it < G * N * Q * Q; it += NT) {
        const int de = it / (N * Q * Q), rem = it - de * (N * Q * Q), b3 = rem / (Q * Q), k12 = rem - b3 * (Q * Q);
        const T *xa = X(de / 3, 2), *xb = X(de % 3, 2);
        const double *g = s_g + de * P + k12;
        T s = T(0);
#pragma unroll
        for (int k3 = 0; k3 < Q; k3++) s += xa[k3 * N + a3] * xb[k3 * N + b3] * (T)g[k3 * Q * Q];
        s_t1[it] = s;
      }
      __syncthreads();  // T1 complete, and every thread past the previous a3's (3), so U is free
      // (2): a thread per (b3, b2, k1), every class and a2
      for (int it = tid; it < N * N * Q; it += NT) {
        const int b3 = it / QN, b2 = (it - b3 * QN) / Q, k1 = it % Q;
        T acc[NC][N] = {};
#pragma unroll
        for (int de = 0; de < G; de++) {
          const int d = de / 3, e = de % 3, t = NC == 1 ? 0 : 2 * (d == 0) + (e == 0);
          const bool dd = G > 1 && d == 1, ed = G > 1 && e == 1;
          const T *t1 = s_t1 + (de * N + b3) * Q * Q + k1;
#pragma unroll
          for (int k2 = 0; k2 < Q; k2++) {
            const T w = xb2_at(ed, k2, b2) * t1[k2 * Q];
#pragma unroll
            for (int a2 = 0; a2 < N; a2++) acc[t][a2] += xa_at(dd, k2, a2) * w;
          }
        }
        T *u = s_u + b3 * N * QN + b2 * Q + k1;
#pragma unroll
        for (int t = 0; t < NC; t++)
#pragma unroll
          for (int a2 = 0; a2 < N; a2++) u[t * L * Q + a2 * QN] = acc[t][a2];
      }
      __syncthreads();
      // (3): thread r = b1 + N (b2 + N b3) the column r of the N^2 rows of a3
      if (tid < L) {
        const int b1 = tid % N, b2 = tid / N % N, b3 = tid / (N * N);
        const T *u = s_u + b3 * N * QN + b2 * Q;
        T acc[N][N] = {};  // [a2][a1]
#pragma unroll
        for (int t = 0; t < NC; t++) {
          const bool dd = NC > 1 && (t >> 1), ed = NC > 1 && (t & 1);
#pragma unroll
          for (int k1 = 0; k1 < Q; k1++) {
            const T y = xb1_at(ed, k1, b1);
            T z[N];
#pragma unroll
            for (int a2 = 0; a2 < N; a2++) z[a2] = y * u[t * L * Q + a2 * QN + k1];
#pragma unroll
            for (int a1 = 0; a1 < N; a1++) {
              const T x = xa_at(dd, k1, a1);
#pragma unroll
              for (int a2 = 0; a2 < N; a2++) acc[a2][a1] += x * z[a2];
            }
          }
        }
#pragma unroll
        for (int a2 = 0; a2 < N; a2++)
#pragma unroll
          for (int a1 = 0; a1 < N; a1++)
            hc_store(&cell_out[(int64_t)(a1 + N * a2 + N * N * a3) * L + tid], acc[a2][a1], sum_into);
      }
    }
    if (a.apply) {
      __syncthreads();  // the block's stores of the matrix seen
      element_apply(a, cell_out, 1, L, L, s_us, cn, c);
    }
  }
}

// FieldField with 16 to 32 fields (order 2; fused_warps): the same reference-space contraction as fused_cells,
// with one warp per cell and no barrier of the block between a cell's phases, so that a block has eight cells in
// flight where fused_cells has one between its barriers. The block loads the reference table once, rounded to
// T, rows padded to kWarpRows and entries to whole chunks with zeros: the left matrix of every cell (and in
// double the exact values of the right rows' dref phi; in float those are read from the table in device
// memory). Per cell a warp moves the geometry nodes, computes the det J floor and each point's metric (lane p:
// point p) into its own shared memory, then per chunk of kWarpPoints points forms the chunk's right rows (a
// lane keeps one point's metric in registers and takes every fourth row, neighbouring lanes neighbouring rows,
// so that in double a half-warp's reads and writes fall in distinct banks) and adds their product with the table's
// columns to its 32 x 32 tile (warp_math: mma.sync in double, FMA register blocks in float), and finally
// writes the element matrix: cell-major through its shared memory (the chunk rows' space, made large enough for
// L x L), so that the stores coalesce. With the element apply (a.v) it also writes each row's sum against u at
// the cell's nodes from the staged matrix (cell-minor staged too).
constexpr int kWarpPoints = 8;                      // points per chunk: 8 Dk entries, whole mma or FMA steps
constexpr int kWarpRows = 32;                       // the element matrix padded to 32 x 32
constexpr size_t kFusedWarpSmemBytes = 112 * 1024;  // two blocks per SM
template <typename T>
using warp_math = std::conditional_t<std::is_same_v<T, double>, hc_gemm::MathDmma<kWarpRows, kWarpRows, 1, 1, 8>,
                                     hc_gemm::MathFma<float, kWarpRows, kWarpRows, 4, 8>>;

struct fused_warp_shape {
  int LDK;           // row stride of the table: its entries padded to whole chunks, plus the math's pad
  int LDC;           // row stride of a chunk's right rows: kWarpPoints Dk plus the math's pad
  int warp_doubles;  // per warp: nodes, floor, metrics (made even), then the chunk's right rows [32][LDC] of T
                     // (or the staged element matrix [L][L], where larger)
  int warp_bytes;
};

template <hc_kernel Kernel, typename T, int NV>
__global__ void __launch_bounds__(kFusedThreads, 2)
    fused_warps(celldata_args a, fused_warp_shape w, bool cell_minor, int sum_into, T *__restrict__ out) {
  using Math = warp_math<T>;
  constexpr int G = ff_metric_size<Kernel>(), Dk = G == 1 ? 1 : 3;
  constexpr int kn = kWarpPoints * Dk, kRowStep = 32 / kWarpPoints;
  static_assert(kn % Math::kStepK == 0, "a chunk is whole steps of the math");
  constexpr bool kExact = std::is_same_v<T, double>;  // the table in shared memory holds dref phi exactly
  extern __shared__ double fused_smem[];
  const int64_t C = a.C;
  const int P = a.P, L = a.L, K = P * Dk, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int nwarps = blockDim.x >> 5;
  const double *table = Dk == 1 ? a.phi : a.grad;  // [L][K]
  T *Ls = reinterpret_cast<T *>(fused_smem);       // [kWarpRows][LDK]
  double *s_x = reinterpret_cast<double *>(reinterpret_cast<char *>(fused_smem) + sizeof(T) * kWarpRows * w.LDK +
                                           (size_t)warp * w.warp_bytes);  // [NV][3]
  double *s_floor = s_x + NV * 3;
  double *s_g = s_floor + kFloorDoubles;                // [G][P]
  T *Rs = reinterpret_cast<T *>(s_x + w.warp_doubles);  // [kWarpRows][LDC]
  for (int it = threadIdx.x; it < kWarpRows * w.LDK; it += blockDim.x) {
    const int row = it / w.LDK, k = it - row * w.LDK;
    Ls[it] = row < L && k < K ? (T)__ldg(&table[row * K + k]) : T(0);
  }
  for (int it = lane; it < (kWarpRows - L) * w.LDC; it += 32) Rs[L * w.LDC + it] = T(0);  // never formed
  __syncthreads();
  const int pp = lane / kRowStep;  // the lane's point in every chunk; its first row: lane % kRowStep
  for (int64_t c = (int64_t)blockIdx.x * nwarps + warp; c < C; c += (int64_t)gridDim.x * nwarps) {
    if (!a.geom) warp_cell_nodes<NV, G != 1>(a, c, lane, s_x, s_floor);
    __syncwarp();
    for (int p = lane; p < P; p += 32) {
      if constexpr (G == 1 && NV == 27)
        scalar_metric_27(a, reinterpret_cast<const double(*)[3]>(s_x), s_floor, c, p, s_g + p);
      else
        point_metric<Kernel, NV>(a, reinterpret_cast<const double(*)[3]>(s_x), s_floor, c, p, s_g + p, P);
    }
    __syncwarp();
    Math math;
    math.zero();
    for (int p0 = 0; p0 < P; p0 += kWarpPoints) {
      const int p = p0 + pp;
      const bool live = p < P;
      double g[G];
#pragma unroll
      for (int k = 0; k < G; k++) g[k] = live ? s_g[k * P + p] : 0.0;  // past P: zero rows of the chunk
      auto right_row = [&](int row) {
        double d[Dk];
#pragma unroll
        for (int k = 0; k < Dk; k++)
          d[k] = kExact ? (double)Ls[row * w.LDK + p * Dk + k] : live ? __ldg(&table[row * K + p * Dk + k]) : 0.0;
        T *dst = Rs + row * w.LDC + pp * Dk;
        if constexpr (G == 1) {
          dst[0] = (T)(g[0] * d[0]);
        } else {
#pragma unroll
          for (int k = 0; k < 3; k++) dst[k] = (T)(g[3 * k] * d[0] + g[3 * k + 1] * d[1] + g[3 * k + 2] * d[2]);
        }
      };
      if constexpr (kExact && G == 1) {
#pragma unroll 1  // unrolled, FieldFieldScalar's double kernel spilled 280 bytes per thread (ptxas -v)
        for (int row = lane % kRowStep; row < L; row += kRowStep) right_row(row);
      } else {
        for (int row = lane % kRowStep; row < L; row += kRowStep) right_row(row);
      }
      __syncwarp();
      if constexpr (Dk == 1) {  // (guarded as below, FieldFieldScalar's double kernel spilled 40 bytes)
#pragma unroll 1
        for (int kk = 0; kk < kn; kk += Math::kStepK) math.kstep(Ls + p0, w.LDK, Rs, w.LDC, kk, lane);
      } else {
        // the steps past the chunk's live entries are products of zeros: skipped (at order 2, P = 27, the last
        // chunk's third step, a twelfth of the cell's)
        const int kl = (P - p0) * Dk;
#pragma unroll 1  // the fragments of one step at a time: with the accumulators, 128 registers
        for (int kk = 0; kk < kn; kk += Math::kStepK)
          if (kk < kl) math.kstep(Ls + p0 * Dk, w.LDK, Rs, w.LDC, kk, lane);
      }
      __syncwarp();  // the next chunk overwrites the right rows
    }
    if (cell_minor && !a.apply) {
      math.store(out + c, L, L, 0, 0, sum_into, lane, C);
    } else {
      // staged in the warp's shared memory, [L][L] within the chunk rows' space (made large enough for it,
      // fused_warp_shape_of): cell-major the stores coalesce; with the element apply the rows, as stored, are at
      // hand for it (read back from out instead, FieldFieldScalar's double step was 0.72 -> 1.17 ms on an H200)
      const double ur = a.apply && lane < L ? __ldg(&a.u[__ldg(&a.cell_nodes[c * L + lane])]) : 0.0;  // lane r: u_r
      math.store(Rs, L, L, 0, 0, 0, lane);
      __syncwarp();
      for (int e = lane; e < L * L; e += 32) {
        T *o = cell_minor ? out + (int64_t)e * C + c : out + c * L * L + e;
        const T val = hc_store(o, Rs[e], sum_into);
        if (sum_into) Rs[e] = val;
      }
      if (a.apply) {
        // row l, lane l: sum_r A[l][r] u_r in the order of the element apply (assembly_cuda.cu), the same sum
        __syncwarp();
        const T *row = Rs + (lane < L ? lane : 0) * L;
        double s = 0;
        for (int r = 0; r < L; r++) s += (double)row[r] * __shfl_sync(0xffffffffu, ur, r);
        if (lane < L) row_out(a, c, L, lane, s);
      }
      __syncwarp();  // the next cell's chunks overwrite them
      // where the matrix covered the chunk's padding rows (FieldFieldScalar), those are zero again
      for (int it = L * w.LDC + lane; it < L * L && it < kWarpRows * w.LDC; it += 32) Rs[it] = T(0);
    }
  }
}

// DataField's contraction at a point moved into the reference space (a reference gradient's components, or phi,
// against the V doubles of hc_pw_df_ref_vector, from the point's record): the same sums as the materialized
// contraction's, grouped otherwise, in double.
template <hc_kernel Kernel>
__host__ __device__ constexpr int field_point_doubles() {
  return Kernel == HC_DATAFIELD_SCALAR ? 1 : 3;
}

template <hc_kernel Kernel, int R>
__device__ __forceinline__ void field_point_vector(const register_record<R> &rec, double *v) {
  constexpr int rank = Kernel % 3;
  hc_pw_df_ref_vector(rank, rec.v, rec.v + 10, rank == 2 ? rec.v + 19 : nullptr, rec.v[9], v);
}

// DataData and DataField, whose entries are each used once: NCB cells per block (as many as give every thread a
// point), one thread per (cell, point) computing its record, as the cell data does. DataData: the thread
// sums its point's products of the rounded left and right entries, and one thread per cell adds the points'
// sums in order. DataField: the thread reduces its record to the point's field_point_vector (V doubles) in
// shared memory; then one thread per (cell, field) sums, over the points, the field's reference gradient (or
// phi) against them: 3 products per point where forming the left entries took D^rank gradients' worth. No left
// array and no chunking: NCB >= 1 cells with all their points fit kFusedSmemBytes (fused_points_cells; a cell
// that does not, past 4,000 points, hc_fused_cuda refuses).
template <hc_kernel Kernel, typename T, int NV, int NT, int MB>
__global__ void __launch_bounds__(NT, MB)
    fused_points(celldata_args a, int ncb, bool cell_minor, int sum_into, T *__restrict__ out) {
  constexpr bool kField = (hc_family)(Kernel / 3) == HC_FAMILY_DATAFIELD;
  constexpr int R = record_size<Kernel>(), V = kField ? field_point_doubles<Kernel>() : 0;
  extern __shared__ double fused_smem[];
  const int64_t C = a.C;
  const int P = a.P, L = a.L, nout = kField ? L : 1, items = ncb * P, tid = threadIdx.x, nt = blockDim.x;
  double *s_x = fused_smem;                                    // [ncb][NV][3]
  double *s_floor = s_x + (size_t)ncb * NV * 3;                // [ncb]
  double *s_pt = s_floor + (size_t)ncb * kFloorDoubles;        // DataField: [V][items]
  T *s_val = reinterpret_cast<T *>(s_pt + (size_t)V * items);  // DataData: [items]
  for (int64_t c0 = (int64_t)blockIdx.x * ncb; c0 < C; c0 += (int64_t)gridDim.x * ncb) {
    const int ncell = (int)(C - c0 < ncb ? C - c0 : ncb);
    fused_group_nodes<NV, NV == 8>(a, c0, ncell, s_x, s_floor);
    for (int it = tid; it < ncell * P; it += nt) {
      const int cl = it / P, p = it - cl * P;
      register_record<R> rec;
      point_record<Kernel, NV>(a, reinterpret_cast<const double(*)[3]>(s_x + cl * NV * 3), s_floor + cl, c0 + cl, p,
                               rec.v);
      if constexpr (kField) {
        double v[V];
        field_point_vector<Kernel>(rec, v);
#pragma unroll
        for (int k = 0; k < V; k++) s_pt[k * items + it] = v[k];
      } else {
        T sum = T(0);
        point_entries<Kernel>(rec, [&](int, double lv, double rv) { sum += (T)lv * (T)rv; });
        s_val[it] = sum;
      }
    }
    __syncthreads();
    for (int it = tid; it < ncell * nout; it += nt) {
      const int cl = it / nout, o = it - cl * nout;
      T sum = T(0);
      if constexpr (kField) {
        double acc = 0.0;
        for (int p = 0; p < P; p++) {
          // neighbouring threads take neighbouring fields: neighbouring entries of tabT
          const int ip = cl * P + p;
          const double *tab = a.tabT + (size_t)4 * p * L + o;
          if constexpr (V == 1) {
            acc += __ldg(tab) * s_pt[ip];
          } else {
#pragma unroll
            for (int k = 0; k < 3; k++) acc += __ldg(tab + (size_t)(1 + k) * L) * s_pt[k * items + ip];
          }
        }
        sum = (T)acc;
      } else {
        for (int p = 0; p < P; p++) sum += s_val[cl * P + p];
      }
      const int64_t c = c0 + cl;
      const T val = hc_store(&out[cell_minor ? (int64_t)o * C + c : c * nout + o], sum, sum_into);
      // DataField into the nodal vector (hc_fused_assemble_cuda): the entry as stored, as the assembly adds it
      if (kField && a.y) atomicAdd(&a.y[__ldg(&a.cell_nodes[c * L + o])], (double)val);
    }
    __syncthreads();  // the next cells overwrite the nodes, floors and point values
  }
}

// Shared memory of fused_points for ncb cells of P points with NV geometry nodes each, for a DataData or DataField
// kernel (scalar: bytes per output).
inline size_t fused_points_smem(hc_kernel kernel, int NV, int ncb, int P, size_t scalar) {
  const bool field = hc_kernel_family(kernel) == HC_FAMILY_DATAFIELD;
  const size_t items = (size_t)ncb * P, V = kernel == HC_DATAFIELD_SCALAR ? 1 : 3;
  return sizeof(double) * ((size_t)ncb * (NV * 3 + kFloorDoubles) + (field ? V * items : 0)) +
         (field ? 0 : scalar * items);
}

// Cells per block of fused_points with nt threads: enough that every thread has a point; 0 where one cell does not
// fit.
template <hc_kernel Kernel, int NV>
int fused_points_cells(const celldata_args &a, size_t scalar, int nt) {
  int ncb = a.P < nt ? nt / a.P : 1;
  while (ncb > 0 && fused_points_smem(Kernel, NV, ncb, a.P, scalar) > kFusedSmemBytes) ncb--;
  return ncb;
}

// fused_points with NT threads per block and registers for MB blocks per SM, on a grid of every block.
template <hc_kernel Kernel, typename T, int NV, int NT, int MB>
cudaError_t points_launch(const celldata_args &a, bool minor, int sum_into, void *d_out) {
  const int ncb = fused_points_cells<Kernel, NV>(a, sizeof(T), NT);
  if (ncb < 1) return cudaErrorInvalidConfiguration;
  const size_t smem = fused_points_smem(Kernel, NV, ncb, (int)a.P, sizeof(T));
  auto kernel = fused_points<Kernel, T, NV, NT, MB>;
  const cudaError_t err = hc_cuda_allow_smem(kernel, smem);
  if (err != cudaSuccess) return err;
  kernel<<<hc_cuda_grid((a.C + ncb - 1) / ncb), NT, smem, hc_cuda_stream()>>>(a, ncb, minor, sum_into,
                                                                              static_cast<T *>(d_out));
  return cudaGetLastError();
}

// Shared memory of fused_cells: the metrics of every point of NCB cells of P points, the chunk matrices of PC points.
template <hc_kernel Kernel, int NV>
size_t fused_smem_bytes(const fused_shape &f, int P, size_t scalar) {
  return sizeof(double) * fused_matrix_offset<Kernel, NV>(f.NCB, P) + scalar * ((size_t)(f.LM + f.RM) * f.LDK + f.nt);
}

// The most fields per cell of FieldField's GEMM (the 128 x 128 tile).
constexpr int kFusedMaxFields = 128;

// The padded element matrix of FieldField's GEMM for L fields (orders 2 to 4), or 0 for the dot products.
inline int fused_gemm_rows(int L) {
  if (L < 16) return 0;
  return L <= 32 ? 32 : L <= 64 ? 64 : 128;
}

template <hc_kernel Kernel, int NV>
fused_shape fused_shape_of(const celldata_args &a, size_t scalar) {
  static_assert((hc_family)(Kernel / 3) == HC_FAMILY_FIELDFIELD,
                "fused_cells takes FieldField (fused_points the rest)");
  fused_shape f;
  f.Lf = f.Rf = a.L;
  f.Dk = Kernel == HC_FIELDFIELD_TENSOR ? 3 : entries_per_point<Kernel>();
  f.nout = f.Lf * f.Rf;
  f.BM = fused_gemm_rows(a.L);
  f.nt = f.BM                                                        ? fused_gemm_threads(f.BM)
         : a.P <= kFusedSmallThreads && f.nout <= kFusedSmallThreads ? kFusedSmallThreads
                                                                     : kFusedThreads;
  f.S = f.nout < f.nt ? f.nt / f.nout : 1;
  f.LM = f.BM ? f.BM : f.Lf;
  f.RM = f.BM ? f.BM : f.Rf;
  f.KQ = !f.BM ? 1 : scalar == sizeof(double) ? 8 : 4;
  auto stride = [&](int pc) { return f.BM ? (pc * f.Dk + 7) / 8 * 8 + 4 : (pc * f.Dk) | 1; };
  const size_t cap = f.BM >= 128 ? kFusedSmemBytesBig : kFusedSmemBytes;
  // the most points per chunk whose matrices fit the cap beside the metrics, at least one (fused_cells_fit)
  f.NCB = 1;
  f.PC = 1;
  f.LDK = stride(1);
  for (int pc = (int)a.P; pc > 1; pc--) {
    fused_shape g = f;
    g.PC = pc;
    g.LDK = stride(pc);
    if (fused_smem_bytes<Kernel, NV>(g, (int)a.P, scalar) <= cap) {
      f = g;
      break;
    }
  }
  // with every point in one chunk, as many cells per block as give each thread a point and fit the cap
  if (f.PC == a.P) {
    for (int ncb = f.nt / (int)a.P; ncb > 1; ncb--) {
      fused_shape g = f;
      g.NCB = ncb;
      if (fused_smem_bytes<Kernel, NV>(g, (int)a.P, scalar) <= cap) {
        f = g;
        break;
      }
    }
  }
  return f;
}

// Whether fused_cells fits a cell of a.P points and a.L fields: the smallest shape (one point per chunk) within
// its cap of shared memory.
template <hc_kernel Kernel, int NV>
bool fused_cells_fit(const celldata_args &a, size_t scalar) {
  const fused_shape f = fused_shape_of<Kernel, NV>(a, scalar);
  return fused_smem_bytes<Kernel, NV>(f, (int)a.P, scalar) <= (f.BM >= 128 ? kFusedSmemBytesBig : kFusedSmemBytes);
}

// The FieldField fused kernels launch on a resident grid (hc_cuda_launch_resident), their blocks looping over the
// cells. Each block loads its tables into shared memory before its cells: with a block per eight cells, fused_warps
// spent a tenth of its instructions on that (ncu, 48^3 cells).

// The shape of fused_warps for a cell of a.P points, and its shared memory per block.
template <hc_kernel Kernel, typename T, int NV>
fused_warp_shape fused_warp_shape_of(const celldata_args &a) {
  constexpr int G = ff_metric_size<Kernel>(), Dk = G == 1 ? 1 : 3, pad = warp_math<T>::kPad;
  fused_warp_shape w;
  w.LDK = (a.P + kWarpPoints - 1) / kWarpPoints * kWarpPoints * Dk + pad;
  w.LDC = kWarpPoints * Dk + pad;
  w.warp_doubles = (NV * 3 + kFloorDoubles + G * a.P + 1) / 2 * 2;
  // the chunk's right rows, where the element matrix is staged too ([L][L]: FieldFieldScalar's rows are short)
  const int rows = kWarpRows * w.LDC >= a.L * a.L ? kWarpRows * w.LDC : (a.L * a.L + 3) / 4 * 4;  // 16 bytes
  w.warp_bytes = (int)(sizeof(double) * w.warp_doubles + sizeof(T) * rows);
  return w;
}
template <typename T>
size_t fused_warp_smem(const fused_warp_shape &w) {
  return sizeof(T) * kWarpRows * w.LDK + (size_t)(kFusedThreads / 32) * w.warp_bytes;
}

// FieldField through fused_warps: with 16 to 32 fields, where the table and eight warps' cells fit
// kFusedWarpSmemBytes; false where it does not take the case.
template <hc_kernel Kernel, typename T, int NV>
bool fused_warps_take(const celldata_args &a) {
  return a.L >= 16 && a.L <= kWarpRows &&
         fused_warp_smem<T>(fused_warp_shape_of<Kernel, T, NV>(a)) <= kFusedWarpSmemBytes;
}

template <hc_kernel Kernel, typename T, int NV>
cudaError_t fused_warps_launch(const celldata_args &a, bool minor, int sum_into, void *d_out) {
  const fused_warp_shape w = fused_warp_shape_of<Kernel, T, NV>(a);
  constexpr int cells = kFusedThreads / 32;
  return hc_cuda_launch_resident(fused_warps<Kernel, T, NV>, kFusedThreads, fused_warp_smem<T>(w),
                                 (a.C + cells - 1) / cells, a, w, minor, sum_into, static_cast<T *>(d_out));
}

// FieldField of order 1 with 2 x 2 x 2 points (L = P = 8; fused_quads), in both layouts: a warp takes four cells,
// eight lanes each, so that every lane is busy in every phase (fused_cells gave such a cell 64 threads, most of
// them idle while its 8 points' metrics were formed, and 1,056 blocks of two warps; 30-46 us per kernel at 24^3
// cells on an H100, ncu). The block's cells' nodes and det J floors as fused_points takes them (group_vertices, or
// group_nodes for 27 nodes), then lane j of a cell the metric of point j into shared memory, and then row j
// of the element matrix in registers: per point, the table's dref phi_j (from shared memory, loaded once per block)
// against G, then against every field's dref phi_r, in double, rounded at the store. With the element apply it
// sums its stored row against u at the cell's nodes (shuffled from the group's lanes), r in order, each product
// added by an FMA: the element apply's sums (assembly_cuda.cu). On a resident grid. With trilinear cells blocks of
// 4 warps (16 cells), 6 per SM at up to 80 registers (up to 60 bytes spilled): on an H200 (order1.yaml, 24^3
// cells, ncu, both builds in one call) the three kernels 21.2 / 24.7 / 29.3 -> 18.2 / 22.0 / 25.8 us against
// blocks of 8 warps, 3 per SM, whose 396 resident blocks took a second round as long as the first for the 432 of
// the grid (the SMs active 64-67% of the kernel's time; now 792 resident blocks for 864, the second round a
// tenth of the cells). Tried: 7 blocks per SM at 72 registers (one round, more spilled), within 7% of 6 either
// way; the element matrices by FP64 mma (m16n8k4, a pair of cells per 16 x 8 product) instead of the FMA loop,
// 0-6% faster per kernel and the same step: the kernel waits on its loads (the kept geometry, u, the stores and
// the atomics), not on its arithmetic. With 27 geometry nodes blocks of 8 warps, one per SM (142-222 registers).
constexpr int kQuadCells = 4;  // cells per warp
constexpr int quads_threads(int NV) {
  return NV == 8 ? 128 : kFusedThreads;
}
template <hc_kernel Kernel, typename T, int NV, int NT = quads_threads(NV)>
__global__ void __launch_bounds__(NT, NV == 8 ? 6 : 1)
    fused_quads(celldata_args a, bool cell_minor, int sum_into, T *__restrict__ out) {
  static_assert((hc_family)(Kernel / 3) == HC_FAMILY_FIELDFIELD, "fused_quads takes FieldField");
  constexpr int G = ff_metric_size<Kernel>(), L = 8, P = 8, CB = NT / 32 * kQuadCells;
  __shared__ double s_tab[4 * P * L];  // a.tabT: [P][4][L]
  __shared__ double s_x[CB][NV * 3];
  __shared__ double s_floor[CB];
  __shared__ double s_g[CB][G * P];  // component k of point p at [k P + p]
  const int tid = threadIdx.x, lane = tid % 32, cl = lane / 8, j = lane % 8, wc = tid / 32 * kQuadCells + cl;
  for (int i = tid; i < 4 * P * L; i += NT) s_tab[i] = __ldg(&a.tabT[i]);
  __syncthreads();
  double *xs = s_x[wc], *g = s_g[wc];
  for (int64_t c0 = (int64_t)blockIdx.x * CB; c0 < a.C; c0 += (int64_t)gridDim.x * CB) {
    const int64_t c = c0 + wc;
    const bool live = c < a.C;
    const int ncell = (int)(a.C - c0 < CB ? a.C - c0 : CB);
    // the block's cells' nodes and floors (thread 8 wc + j: cell wc's vertex j); 27 nodes: by any thread, so that
    // every warp must first be done with the previous cells' nodes
    if constexpr (NV != 8) __syncthreads();
    fused_group_nodes<NV, NV == 8>(a, c0, ncell, &s_x[0][0], s_floor);
    if (live) point_metric<Kernel, NV>(a, reinterpret_cast<const double(*)[3]>(xs), &s_floor[wc], c, j, g + j, P);
    __syncwarp();
    double m[L];
#pragma unroll
    for (int r = 0; r < L; r++) m[r] = 0.0;
    if (live) {
#pragma unroll 2
      for (int p = 0; p < P; p++) {
        const double *tab = s_tab + 4 * p * L;  // phi, then dref_0..2 phi, fields fastest
        if constexpr (G == 1) {
          const double w = tab[j] * g[p];
#pragma unroll
          for (int r = 0; r < L; r++) m[r] += w * tab[r];
        } else {
          const double d0 = tab[L + j], d1 = tab[2 * L + j], d2 = tab[3 * L + j];
          double w[3];
#pragma unroll
          for (int e = 0; e < 3; e++) w[e] = d0 * g[e * P + p] + d1 * g[(3 + e) * P + p] + d2 * g[(6 + e) * P + p];
#pragma unroll
          for (int r = 0; r < L; r++) m[r] += w[0] * tab[L + r] + w[1] * tab[2 * L + r] + w[2] * tab[3 * L + r];
        }
      }
    }
    const double u_mine = a.apply && live ? __ldg(&a.u[__ldg(&a.cell_nodes[c * L + j])]) : 0.0;
    double s = 0.0;
#pragma unroll
    for (int r = 0; r < L; r++) {
      const double ur = __shfl_sync(0xffffffffu, u_mine, 8 * cl + r);
      if (live) {
        T *o = out + (cell_minor ? (int64_t)(j * L + r) * a.C + c : (c * L + j) * L + r);
        const T v = hc_store(o, (T)m[r], sum_into);
        s += (double)v * ur;
      }
    }
    if (a.apply && live) row_out(a, c, L, j, s);
  }
}

template <hc_kernel Kernel, typename T, int NV>
cudaError_t quads_launch(const celldata_args &a, bool minor, int sum_into, void *d_out) {
  constexpr int NT = quads_threads(NV), cells = NT / 32 * kQuadCells;
  return hc_cuda_launch_resident(fused_quads<Kernel, T, NV>, NT, 0, (a.C + cells - 1) / cells, a, minor, sum_into,
                                 static_cast<T *>(d_out));
}

// Whether fused_quads takes the case: order 1 with 2 x 2 x 2 points.
inline bool quads_take(const celldata_args &a) {
  return a.L == 8 && a.P == 8;
}

// N of fused_sumfact for the case (a.L = a.P = N^3, N in kSumfactMinN..kSumfactMaxN, cell-major), else 0.
inline int sumfact_n(const celldata_args &a, bool minor) {
  for (int n = kSumfactMinN; n <= kSumfactMaxN && !minor; n++)
    if (a.L == n * n * n && a.P == n * n * n) return n;
  return 0;
}

template <hc_kernel Kernel, typename T, int NV, int N>
cudaError_t sumfact_launch(const celldata_args &a, int sum_into, void *d_out) {
  sumfact_tables<T, N> tab;  // q = p + 1 = N points per direction (sumfact_n)
  for (int i = 0; i < N * N; i++) {
    tab.v[i] = (T)a.h_b1d[i];
    tab.v[N * N + i] = (T)a.h_g1d[i];
  }
  return hc_cuda_launch_resident(fused_sumfact<Kernel, T, NV, N>, sumfact_threads(N), sumfact_smem<Kernel, T, NV, N>(),
                                 a.C, a, sum_into, static_cast<T *>(d_out), tab);
}

// Whether FieldField's kernel for a.L fields and a.P points takes the element apply (a.v): fused_quads,
// fused_sumfact, fused_warps, and fused_cells with the 256-thread GEMM blocks (32 or 64 rows: orders 2 and 3 in the
// cell-minor layout). Not the 128 x 128 tile (order 4 cell-minor), whose block fills an SM so that the rows' loads
// back from out stall it (on an H200 the three FieldField kernels of order4.yaml took 0.30 ms more, the assembly
// 0.24 ms less; the element apply's kernel storing the rows after it, 0.22 ms more), nor fused_cells' dot products
// (order 1 with other than 8 points; with 8 they had cost 0.04 ms more, the assembly no less): there
// hc_fused_element_cuda says it does not take the case, and the run applies the matrices in its assembly.
template <hc_kernel Kernel, typename T, int NV>
bool fused_apply_in_kernel(const celldata_args &a, bool minor) {
  if (quads_take(a) || sumfact_n(a, minor)) return true;
  if (fused_warps_take<Kernel, T, NV>(a)) return true;
  const fused_shape f = fused_shape_of<Kernel, NV>(a, sizeof(T));
  return f.BM == 32 || f.BM == 64;
}

template <hc_kernel Kernel, typename T, int NV, int NT = kFusedThreads, class Math = void>
cudaError_t fused_launch_acc(const celldata_args &a, const fused_shape &f, bool minor, int sum_into, void *d_out) {
  return hc_cuda_launch_resident(fused_cells<Kernel, T, NV, NT, Math>, NT,
                                 fused_smem_bytes<Kernel, NV>(f, (int)a.P, sizeof(T)), (a.C + f.NCB - 1) / f.NCB, a, f,
                                 minor, sum_into, static_cast<T *>(d_out));
}

// DataData and DataField through fused_points (hc_fused_cuda has checked that one cell fits it); FieldField's
// element matrices of 16 or more fields through the GEMM (fused_math), smaller ones through the dot products.
template <hc_kernel Kernel, typename T, int NV>
cudaError_t fused_launch(const celldata_args &a, bool minor, int sum_into, void *d_out) {
  if constexpr ((hc_family)(Kernel / 3) != HC_FAMILY_FIELDFIELD) {
    // Trilinear cells of up to 8 points (order 1): blocks of 128 threads with registers for 7 per SM (72), so that
    // a grid of 24^3 cells is one wave of resident blocks (256 threads and 3 blocks per SM gave 396 resident blocks
    // for 432: two waves); on an H200 each DataData kernel of order1.yaml 8.2 -> 6.6 us, DataField Vector and
    // Tensor 11.6 -> 9.7 and 13.9 -> 11.8 us.
    if (NV == 8 && a.P <= 8) return points_launch<Kernel, T, NV, 128, 7>(a, minor, sum_into, d_out);
    return points_launch<Kernel, T, NV, kFusedThreads, fused_points_blocks<Kernel, NV>()>(a, minor, sum_into, d_out);
  } else {
    if (quads_take(a)) return quads_launch<Kernel, T, NV>(a, minor, sum_into, d_out);
    switch (sumfact_n(a, minor)) {
      case 3:
        return sumfact_launch<Kernel, T, NV, 3>(a, sum_into, d_out);
      case 4:
        return sumfact_launch<Kernel, T, NV, 4>(a, sum_into, d_out);
      case 5:
        return sumfact_launch<Kernel, T, NV, 5>(a, sum_into, d_out);
      default:
        break;
    }
    if (fused_warps_take<Kernel, T, NV>(a)) return fused_warps_launch<Kernel, T, NV>(a, minor, sum_into, d_out);
    const fused_shape f = fused_shape_of<Kernel, NV>(a, sizeof(T));
    if (f.nt == kFusedSmallThreads)
      return fused_launch_acc<Kernel, T, NV, kFusedSmallThreads>(a, f, minor, sum_into, d_out);
    if (f.BM == 32)
      return fused_launch_acc<Kernel, T, NV, kFusedThreads, fused_math<T, 32>>(a, f, minor, sum_into, d_out);
    if (f.BM == 64)
      return fused_launch_acc<Kernel, T, NV, kFusedThreads, fused_math<T, 64>>(a, f, minor, sum_into, d_out);
    if (f.BM == 128)
      return fused_launch_acc<Kernel, T, NV, kFusedBigThreads, fused_math<T, 128>>(a, f, minor, sum_into, d_out);
    return fused_launch_acc<Kernel, T, NV>(a, f, minor, sum_into, d_out);
  }
}

// The points' geometry of every cell kept for the fused kernels of one time (a.geom's layout, hc_geometry_cache):
// ncb cells per block, their nodes moved once as fused_points moves them, then one thread per (cell, point), which
// records an inverted or degenerate cell (point_geometry) as a kernel computing its own geometry does.
template <int NV>
__global__ void __launch_bounds__(kThreads) geometry_fill(celldata_args a, int ncb, double *__restrict__ geom) {
  extern __shared__ double fill_smem[];
  const int64_t C = a.C, n = C * a.P;
  const int P = a.P;
  double *s_x = fill_smem, *s_floor = s_x + (size_t)ncb * NV * 3;
  for (int64_t c0 = (int64_t)blockIdx.x * ncb; c0 < C; c0 += (int64_t)gridDim.x * ncb) {
    const int ncell = (int)(C - c0 < ncb ? C - c0 : ncb);
    group_cells<NV, NV == 8>(a, c0, ncell, s_x, s_floor);
    for (int it = threadIdx.x; it < ncell * P; it += blockDim.x) {
      const int cl = it / P;
      hc_point_geom g;
      point_geometry<NV>(a, reinterpret_cast<const double(*)[3]>(s_x + cl * NV * 3), s_floor + cl, c0 + cl, it - cl * P,
                         &g);
      double *dst = geom + c0 * P + it;
      dst[0] = g.wdet;
#pragma unroll
      for (int k = 0; k < 9; k++) dst[(1 + k) * n] = g.Jinv[k / 3][k % 3];
#pragma unroll
      for (int i = 0; i < 3; i++) dst[(10 + i) * n] = g.x[i];
    }
    __syncthreads();  // the next group overwrites the nodes
  }
}

// geometry_fill of a's cells (NV geometry nodes each) into geom: as many cells per block as give every thread a
// point, at most kThreads / 8 (group_vertices moves a node per thread). Tried: the kernel compiled for 4 blocks per
// SM (64 registers, 190-300 bytes spilled) where that made order1.yaml's 432 blocks one round instead of two (2
// per SM at 102 registers): 10.3 -> 13.9 us on an H200 (ncu), the spills costing more than the second round.
template <int NV>
cudaError_t geometry_fill_launch(const celldata_args &a, double *geom) {
  const int ncb = a.P >= kThreads ? 1 : a.P > 8 ? kThreads / a.P : kThreads / 8;
  const size_t smem = sizeof(double) * (size_t)ncb * (NV * 3 + kFloorDoubles);
  geometry_fill<NV><<<hc_cuda_grid((a.C + ncb - 1) / ncb), kThreads, smem, hc_cuda_stream()>>>(a, ncb, geom);
  return cudaGetLastError();
}

template <hc_kernel Kernel>
cudaError_t fused_kernel(const celldata_args &a, int nodes, const hc_contract *k, void *d_out) {
  const bool minor = k->layout == HC_LAYOUT_CELL_MINOR, f32 = k->precision == HC_FLOAT;
  if (nodes == 27) {
    return f32 ? fused_launch<Kernel, float, 27>(a, minor, k->sum_into, d_out)
               : fused_launch<Kernel, double, 27>(a, minor, k->sum_into, d_out);
  }
  return f32 ? fused_launch<Kernel, float, 8>(a, minor, k->sum_into, d_out)
             : fused_launch<Kernel, double, 8>(a, minor, k->sum_into, d_out);
}

cudaError_t fused_any(const celldata_args &a, int nodes, const hc_contract *k, void *d_out) {
  return with_kernel(k->kernel, [&](auto kk) { return fused_kernel<decltype(kk)::value>(a, nodes, k, d_out); });
}

// The bad-cell flag's reading: the lowest cell that the calls queued since the last reading found inverted or
// degenerate, as desc's error (HC_OK where none). d_bad holds "none" between readings: set when it is made (at
// the first tables' upload), and again after a reading that found a bad cell. Call with ctx->basis_lock held.
int bad_cell_read(hc_cuda_context *ctx, const hc_celldata_desc *desc) {
  const cudaStream_t stream = ctx->stream;
  hc_cuda_basis *cb = &ctx->basis;
  if (!cb->d_bad) return HC_OK;  // no cell data computed yet: no cell found bad
  if (!cb->bad_queued)
    HC_CALL_CUDA(cudaMemcpyAsync(cb->h_bad, cb->d_bad, sizeof(*cb->h_bad), cudaMemcpyDeviceToHost, stream));
  cb->bad_queued = false;
  HC_CALL_CUDA(cudaStreamSynchronize(stream));  // after hc_cuda_bad_flag_queue and the caller's wait: nothing queued
  const unsigned long long h_bad = *cb->h_bad;
  if (h_bad == kNoBadCell) return HC_OK;
  // a kept geometry (hc_geometry_cache) that the calls filled holds a bad cell's: never read again
  if (desc->geometry_cache) desc->geometry_cache->valid = 0;
  HC_CALL_CUDA(cudaMemsetAsync(cb->d_bad, 0xff, sizeof(*cb->d_bad), stream));
  const int64_t c = (int64_t)h_bad;
  HC_CHECK(c < desc->C, HC_ERR_INPUT, "cell data: cell %lld of an earlier call is inverted or degenerate",
           (long long)c);
  const int n = desc->geometry_nodes;
  double h_X0c[3 * HC_GEOMETRY_NODES_MAX];
  HC_CALL_CUDA(cudaMemcpyAsync(h_X0c, desc->X0 + 3 * n * c, sizeof(double) * 3 * n, cudaMemcpyDeviceToHost, stream));
  HC_CALL_CUDA(cudaStreamSynchronize(stream));
  return hc_celldata_cell_error(desc, c, h_X0c);
}

// What both entry points share: the context's basis tables for desc's basis, the kernel's arguments, a launch,
// and (unless desc->check_later) the bad-cell flag read back, so that a call costs one launch, one 8-byte copy
// into pinned memory and one wait (with check_later, the launch alone). launch(a) starts the kernel on the
// context's stream.
template <typename Launch>
int celldata_call(const hc_celldata_desc *desc, const char *what, Launch &&launch) {
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));  // no usable device: HC_ERR_RESOURCE
  const hc_basis *b = desc->basis;
  const hc_cuda_basis *cb = &ctx->basis;
  std::lock_guard<std::mutex> guard(ctx->basis_lock);
  HC_CALL(basis_get(ctx, b));
  celldata_args a;
  a.C = desc->C;
  a.L = b->L;
  a.P = b->P;
  a.t = desc->t;
  a.motion = desc->motion;
  a.data = desc->data;
  a.X0 = desc->X0;
  a.qpts = cb->d_qpts;
  a.qwts = cb->d_qwts;
  a.phi = cb->d_phi;
  a.grad = cb->d_grad;
  a.tabT = cb->d_tabT;
  a.b1d = cb->d_b1d;
  a.g1d = cb->d_g1d;
  a.h_b1d = b->B1d;
  a.h_g1d = b->G1d;
  a.bad = cb->d_bad;
  if (desc->shear && desc->motion.A != 0.0) a.shear = desc->shear, a.st = hc_motion_time(&desc->motion, desc->t);
  ctx->basis.bad_queued = false;  // a copy queued before this launch does not see it
  HC_CALL_CUDA_LAUNCH(launch(a), what);
  return desc->check_later ? HC_OK : bad_cell_read(ctx, desc);
}

}  // namespace

extern "C" int hc_celldata_fill_cuda(const hc_celldata_desc *desc, hc_kernel kernel, void *d_left, void *d_right) {
  return celldata_call(desc, "cell data", [&](const celldata_args &a) {
    return launch_kernel(kernel, a, desc->geometry_nodes, desc->precision, desc->layout, d_left, d_right);
  });
}

int hc_cuda_bad_flag_queue(void) {
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  std::lock_guard<std::mutex> guard(ctx->basis_lock);
  hc_cuda_basis *cb = &ctx->basis;
  if (!cb->d_bad || cb->bad_queued) return HC_OK;
  HC_CALL_CUDA(cudaMemcpyAsync(cb->h_bad, cb->d_bad, sizeof(*cb->h_bad), cudaMemcpyDeviceToHost, ctx->stream));
  cb->bad_queued = true;
  return HC_OK;
}

extern "C" int hc_celldata_check_cuda(const hc_celldata_desc *desc) {
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  std::lock_guard<std::mutex> guard(ctx->basis_lock);
  return bad_cell_read(ctx, desc);
}

namespace {

// What a fused call also does with FieldField's element apply: nothing (hc_fused_cuda), its rows into a vector v
// (hc_fused_element_cuda), or added into the nodal vector y (hc_fused_assemble_cuda, where DataField adds its outputs
// too).
enum class fused_mode { plain, element, assemble };

// The three entries: d_vec is v or y by mode; with d_out null only whether the kernel takes the case.
int fused_entry(const hc_celldata_desc *desc, const hc_contract *k, fused_mode mode, void *d_out,
                const int32_t *d_cell_nodes, const double *d_u, double *d_vec) {
  double *d_v = mode == fused_mode::element ? d_vec : nullptr, *d_y = mode == fused_mode::assemble ? d_vec : nullptr;
  HC_CHECK(k->C == desc->C, HC_ERR_INPUT, "fused assembly: the contraction has %lld cells, the cell data %lld",
           (long long)k->C, (long long)desc->C);
  HC_CHECK(hc_kernel_family(k->kernel) != HC_FAMILY_FIELDFIELD || desc->basis->L <= kFusedMaxFields, HC_ERR_UNSUPPORTED,
           "fused assembly on cuda: %s with %d fields per cell: its element matrix GEMM takes %d at most",
           hc_kernel_name(k->kernel), desc->basis->L, kFusedMaxFields);
  HC_CHECK(hc_kernel_family(k->kernel) == HC_FAMILY_FIELDFIELD ||
               fused_points_smem(k->kernel, desc->geometry_nodes, 1, desc->basis->P, hc_precision_size(k->precision)) <=
                   kFusedSmemBytes,
           HC_ERR_UNSUPPORTED,
           "fused assembly on cuda: %s with %d points per cell: one cell's point values take more than the %zu KB of "
           "shared memory a block has",
           hc_kernel_name(k->kernel), desc->basis->P, kFusedSmemBytes / 1024);
  if (hc_kernel_family(k->kernel) == HC_FAMILY_FIELDFIELD) {
    celldata_args a{};
    a.L = desc->basis->L;
    a.P = desc->basis->P;
    const size_t scalar = hc_precision_size(k->precision);
    const bool fits = with_kernel(k->kernel, [&](auto kk) {
                        constexpr hc_kernel K = decltype(kk)::value;
                        if constexpr ((hc_family)(K / 3) == HC_FAMILY_FIELDFIELD) {
                          const bool ok = desc->geometry_nodes == 27 ? fused_cells_fit<K, 27>(a, scalar)
                                                                     : fused_cells_fit<K, 8>(a, scalar);
                          return ok ? cudaSuccess : cudaErrorInvalidConfiguration;
                        } else {
                          return cudaSuccess;
                        }
                      }) == cudaSuccess;
    HC_CHECK(fits, HC_ERR_UNSUPPORTED,
             "fused assembly on cuda: %s with %d points per cell: one cell's point metrics and one point's matrices "
             "take more than the shared memory a block has",
             hc_kernel_name(k->kernel), desc->basis->P);
  }
  // the element apply's rows in the kernel that forms the matrices, where it takes them (fused_apply_in_kernel)
  const bool ff = hc_kernel_family(k->kernel) == HC_FAMILY_FIELDFIELD, apply = ff && mode != fused_mode::plain;
  bool in_kernel = false;
  if (apply) {
    celldata_args a{};
    a.L = desc->basis->L;
    a.P = desc->basis->P;
    const bool f32 = k->precision == HC_FLOAT, n27 = desc->geometry_nodes == 27,
               minor = k->layout == HC_LAYOUT_CELL_MINOR;
    in_kernel = with_kernel(k->kernel, [&](auto kk) {
                  constexpr hc_kernel K = decltype(kk)::value;
                  if constexpr ((hc_family)(K / 3) == HC_FAMILY_FIELDFIELD) {
                    const bool in = n27 ? (f32 ? fused_apply_in_kernel<K, float, 27>(a, minor)
                                               : fused_apply_in_kernel<K, double, 27>(a, minor))
                                        : (f32 ? fused_apply_in_kernel<K, float, 8>(a, minor)
                                               : fused_apply_in_kernel<K, double, 8>(a, minor));
                    return in ? cudaSuccess : cudaErrorNotSupported;
                  } else {
                    return cudaErrorNotSupported;
                  }
                }) == cudaSuccess;
  }
  HC_CHECK(in_kernel || !apply, HC_ERR_UNSUPPORTED,
           "fused assembly on cuda: %s with %d fields and %d points leaves the element apply to the assembly (its "
           "kernels take it with sum factorization and with orders 2 and 3's GEMMs)",
           hc_kernel_name(k->kernel), desc->basis->L, desc->basis->P);
  if (!d_out) return HC_OK;  // the question alone
  // the points' geometry kept for the calls at this time (hc_geometry_cache): read where it holds this call's, else
  // filled first (and not valid until the fill is queued)
  hc_geometry_cache *kept = desc->geometry_cache;
  const bool keep = kept && kept->values && desc->C * desc->basis->P <= kept->capacity;
  const bool fill = keep && !hc_geometry_cache_matches(kept, desc);
  if (fill) kept->valid = 0;
  const char *what = mode == fused_mode::assemble  ? "fused assembly into the nodal vector"
                     : mode == fused_mode::element ? "fused assembly with the element apply"
                                                   : "fused assembly";
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  HC_CALL(celldata_call(desc, what, [&](const celldata_args &a) {
    celldata_args b = a;
    b.cell_nodes = d_cell_nodes, b.u = d_u, b.v = d_v, b.y = d_y, b.apply = apply;
    const cudaStream_t stream = hc_cuda_stream();
    cudaError_t err = cudaSuccess;
    if (fill) {
      // filled on this call's lane; a call on another lane waits for the fill (geom_ready) before reading it
      err = desc->geometry_nodes == 27 ? geometry_fill_launch<27>(a, kept->values)
                                       : geometry_fill_launch<8>(a, kept->values);
      // outside a fork every later lane starts after it (hc_backend.fork): no event to record
      ctx->geom_forked = ctx->forked != 0;
      ctx->geom_stream = stream;
      if (err == cudaSuccess && ctx->forked && !ctx->geom_ready)
        err = cudaEventCreateWithFlags(&ctx->geom_ready, cudaEventDisableTiming);
      if (err == cudaSuccess && ctx->forked) err = cudaEventRecord(ctx->geom_ready, stream);
    } else if (keep && ctx->geom_forked && ctx->geom_stream != stream) {
      err = cudaStreamWaitEvent(stream, ctx->geom_ready, 0);
    }
    if (err != cudaSuccess) return err;
    if (keep) b.geom = kept->values;
    return fused_any(b, desc->geometry_nodes, k, d_out);
  }));
  // a bad cell that a later check finds makes it invalid again (bad_cell_read)
  if (fill) hc_geometry_cache_set_key(kept, desc);
  return HC_OK;
}

}  // namespace

extern "C" int hc_fused_cuda(const hc_celldata_desc *desc, const hc_contract *k, void *d_out) {
  return fused_entry(desc, k, fused_mode::plain, d_out, nullptr, nullptr, nullptr);
}

extern "C" int hc_fused_element_cuda(const hc_celldata_desc *desc, const hc_contract *k, void *d_out,
                                     const int32_t *d_cell_nodes, const double *d_u, double *d_v) {
  return fused_entry(desc, k, fused_mode::element, d_out, d_cell_nodes, d_u, d_v);
}

extern "C" int hc_fused_assemble_cuda(const hc_celldata_desc *desc, const hc_contract *k, void *d_out,
                                      const int32_t *d_cell_nodes, const double *d_u, double *d_y) {
  HC_CHECK(hc_kernel_family(k->kernel) != HC_FAMILY_DATADATA, HC_ERR_UNSUPPORTED,
           "fused assembly on cuda: %s has no nodal vector", hc_kernel_name(k->kernel));
  return fused_entry(desc, k, fused_mode::assemble, d_out, d_cell_nodes, d_u, d_y);
}
