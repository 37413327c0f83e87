// The CUDA backend's cell data: the left and right arrays of the nine contractions computed on the device
// from the vertices X0, the mesh motion and the data functions, with the point-wise maths of
// kernels/hc_pointwise.h that the serial reference uses (computed in double, rounded on store).
//
// One thread per (cell, point): it moves the cell's vertices, computes the geometry and the data at its
// point once, then writes every entry (l, p, i, j) of that point. In the cell-minor layout neighbouring
// threads take neighbouring cells (stores coalesce); in the cell-major layout they take neighbouring
// points of one cell. A thread that finds its cell inverted or degenerate records the cell with atomicMin,
// so that the host names the lowest bad cell, as the serial reference does.
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <mutex>
#include <type_traits>

#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/hc_celldata.h"
#include "kernels/hc_pointwise.h"

namespace {

constexpr int kThreads = 128;
constexpr int kStagedThreads = 256;  // at most: 2 * 256 * 9 doubles = 36 KB of shared memory
constexpr unsigned long long kNoBadCell = ULLONG_MAX;

// The basis tables of one hc_basis in device memory, and the bad-cell flag, on one device.
struct basis_cache {
  int device = -1;
  const hc_basis *key = nullptr;  // borrowed; compared by address, order and points
  int p = 0, q = 0;
  double *d_qpts = nullptr;             // [P][3]
  double *d_qwts = nullptr;             // [P]
  double *d_phi = nullptr;              // [L][P]
  double *d_grad = nullptr;             // [L][P][3]
  unsigned long long *d_bad = nullptr;  // lowest bad cell, kNoBadCell when none
};
basis_cache cache;
std::mutex cache_lock;

// Frees the cached tables (on the device that holds them) and forgets the basis.
void cache_release(void) {
  if (cache.device < 0) return;
  int current = -1;
  cudaGetDevice(&current);
  if (current != cache.device) cudaSetDevice(cache.device);
  cudaFree(cache.d_qpts);
  cudaFree(cache.d_qwts);
  cudaFree(cache.d_phi);
  cudaFree(cache.d_grad);
  cudaFree(cache.d_bad);
  if (current >= 0 && current != cache.device) cudaSetDevice(current);
  cache = basis_cache();
}

int upload(double **d_dst, const double *h_src, size_t n) {
  HC_CALL_CUDA(cudaMalloc(d_dst, n * sizeof(double)));
  HC_CALL_CUDA(cudaMemcpyAsync(*d_dst, h_src, n * sizeof(double), cudaMemcpyHostToDevice, hc_cuda_stream()));
  return HC_OK;
}

// Makes the cache hold b's tables on the current device (uploading them once per basis). Call with
// cache_lock held.
int cache_get(const hc_basis *b) {
  int device = 0;
  HC_CALL_CUDA(cudaGetDevice(&device));
  if (cache.device == device && cache.key == b && cache.p == b->p && cache.q == b->q) return HC_OK;
  cache_release();
  cache.device = device;
  int ierr = HC_OK;
  const size_t L = (size_t)b->L, P = (size_t)b->P;
  HC_CALL_GOTO(upload(&cache.d_qpts, b->qpts, 3 * P), fail);
  HC_CALL_GOTO(upload(&cache.d_qwts, b->qwts, P), fail);
  HC_CALL_GOTO(upload(&cache.d_phi, b->phi, L * P), fail);
  HC_CALL_GOTO(upload(&cache.d_grad, b->grad, 3 * L * P), fail);
  HC_CALL_CUDA_GOTO(cudaMalloc(&cache.d_bad, sizeof(*cache.d_bad)), fail);
  cache.key = b;
  cache.p = b->p;
  cache.q = b->q;
  return HC_OK;
fail:
  cache_release();
  return ierr;
}

// What every thread needs: the cells, the time and motion, the data functions and the basis tables.
struct celldata_args {
  int64_t C;
  int L, P;
  double t;
  hc_motion motion;
  hc_data_params data;
  const double *X0;    // [C][8][3]
  const double *qpts;  // [P][3]
  const double *qwts;  // [P]
  const double *phi;   // [L][P]
  const double *grad;  // [L][P][3]
  unsigned long long *bad;
};

// The geometry and data at point p of cell c. Returns false (after recording c) when the cell is inverted
// or degenerate there.
template <hc_kernel Kernel>
__device__ __forceinline__ bool point_setup(const celldata_args &a, int64_t c, int64_t p, hc_point_geom *g,
                                            hc_point_data *d) {
  double xv[8][3];
  hc_pw_cell_vertices(&a.motion, a.t, a.X0 + 24 * c, xv);
  const double xi[3] = {a.qpts[3 * p], a.qpts[3 * p + 1], a.qpts[3 * p + 2]};
  if (!hc_pw_geometry(xv, xi, a.qwts[p], hc_pw_det_floor(xv), g)) {
    atomicMin(a.bad, (unsigned long long)c);
    return false;
  }
  hc_pw_data(&a.data, Kernel, g->x, a.t, d);
  return true;
}

// left: [Lf][P][Di][Dj] and right: [Rf][P][Di][Dj] per cell (Lf = 1 for DataData, Rf = L for FieldField,
// else 1), in CellMinor's layout: entry q of cell c at q * C + c, or c * inner + q.
template <hc_kernel Kernel, typename T, bool CellMinor>
__global__ void __launch_bounds__(kThreads)
    celldata_kernel(celldata_args a, T *__restrict__ left, T *__restrict__ right) {
  constexpr hc_family fam = (hc_family)(Kernel / 3);
  constexpr int rank = Kernel % 3;
  constexpr int Di = rank >= 1 ? 3 : 1, Dj = rank == 2 ? 3 : 1, Dij = Di * Dj;
  const int64_t C = a.C, P = a.P;
  const int64_t Lf = fam == HC_FAMILY_DATADATA ? 1 : a.L, Rf = fam == HC_FAMILY_FIELDFIELD ? a.L : 1;
  const int64_t lin = Lf * P * Dij, rin = Rf * P * Dij;
  const int64_t n = C * P;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n; e += (int64_t)gridDim.x * blockDim.x) {
    int64_t c, p;
    if (CellMinor) {
      c = e % C;
      p = e / C;
    } else {
      c = e / P;
      p = e % P;
    }
    hc_point_geom g;
    hc_point_data d;
    if (!point_setup<Kernel>(a, c, p, &g, &d)) continue;
    if constexpr (fam == HC_FAMILY_DATADATA) {
#pragma unroll
      for (int i = 0; i < Di; i++) {
#pragma unroll
        for (int j = 0; j < Dj; j++) {
          const int64_t q = p * Dij + i * Dj + j;
          left[hc_at<CellMinor>(c, q, C, lin)] = (T)hc_pw_datadata_left(rank, &d, g.wdet, i, j);
          right[hc_at<CellMinor>(c, q, C, rin)] = (T)hc_pw_datadata_right(rank, &d, i, j);
        }
      }
    } else {
      if constexpr (fam == HC_FAMILY_DATAFIELD) {
#pragma unroll
        for (int i = 0; i < Di; i++) {
#pragma unroll
          for (int j = 0; j < Dj; j++) {
            right[hc_at<CellMinor>(c, p * Dij + i * Dj + j, C, rin)] = (T)hc_pw_datafield_right(rank, &d, i, j);
          }
        }
      }
      for (int64_t l = 0; l < Lf; l++) {
        const double phi = a.phi[l * P + p];
        double grad[3];
        hc_pw_phys_grad(g.Jinv, &a.grad[3 * (l * P + p)], grad);
#pragma unroll
        for (int i = 0; i < Di; i++) {
#pragma unroll
          for (int j = 0; j < Dj; j++) {
            const int64_t q = (l * P + p) * Dij + i * Dj + j;
            left[hc_at<CellMinor>(c, q, C, lin)] = (T)hc_pw_field_left(rank, phi, grad, &d, g.wdet, i, j);
            if constexpr (fam == HC_FAMILY_FIELDFIELD) {
              right[hc_at<CellMinor>(c, q, C, rin)] = (T)hc_pw_fieldfield_right(rank, phi, grad, i, j);
            }
          }
        }
      }
    }
  }
}

// The cell-major field kernels (FieldField*, DataField*), whose per-thread stores would stride by D^rank:
// a block takes cpb whole cells (blockDim = cpb * P, one thread per (cell, point) as above) and, for each
// field l, stages the block's entries (l, p, i, j) in shared memory, then writes each cell's P * D^rank
// contiguous entries with neighbouring threads on neighbouring addresses. Shared: 2 * blockDim * D^rank T.
template <hc_kernel Kernel, typename T>
__global__ void __launch_bounds__(kStagedThreads)
    celldata_staged(celldata_args a, int cpb, T *__restrict__ left, T *__restrict__ right) {
  constexpr hc_family fam = (hc_family)(Kernel / 3);
  constexpr int rank = Kernel % 3;
  constexpr int Di = rank >= 1 ? 3 : 1, Dj = rank == 2 ? 3 : 1, Dij = Di * Dj;
  static_assert(fam != HC_FAMILY_DATADATA, "DataData arrays have no fields to stage");
  extern __shared__ double staged_smem[];
  T *s_left = reinterpret_cast<T *>(staged_smem), *s_right = s_left + blockDim.x * Dij;  // [cpb][P][Dij] each
  const int64_t C = a.C, P = a.P, Lf = a.L, Rf = fam == HC_FAMILY_FIELDFIELD ? a.L : 1;
  const int64_t lin = Lf * P * Dij, rin = Rf * P * Dij, chunk = P * Dij;
  const int tid = threadIdx.x;
  const int64_t p = tid % P;
  for (int64_t c0 = (int64_t)blockIdx.x * cpb; c0 < C; c0 += (int64_t)gridDim.x * cpb) {
    const int64_t ncell = C - c0 < cpb ? C - c0 : cpb, c = c0 + tid / P;
    hc_point_geom g;
    hc_point_data d;
    const bool ok = c < c0 + ncell && point_setup<Kernel>(a, c, p, &g, &d);
    if constexpr (fam == HC_FAMILY_DATAFIELD) {
      if (ok) {
#pragma unroll
        for (int i = 0; i < Di; i++) {
#pragma unroll
          for (int j = 0; j < Dj; j++) right[c * rin + p * Dij + i * Dj + j] = (T)hc_pw_datafield_right(rank, &d, i, j);
        }
      }
    }
    for (int64_t l = 0; l < Lf; l++) {
      if (ok) {
        const double phi = a.phi[l * P + p];
        double grad[3];
        hc_pw_phys_grad(g.Jinv, &a.grad[3 * (l * P + p)], grad);
#pragma unroll
        for (int i = 0; i < Di; i++) {
#pragma unroll
          for (int j = 0; j < Dj; j++) {
            s_left[tid * Dij + i * Dj + j] = (T)hc_pw_field_left(rank, phi, grad, &d, g.wdet, i, j);
            if constexpr (fam == HC_FAMILY_FIELDFIELD) {
              s_right[tid * Dij + i * Dj + j] = (T)hc_pw_fieldfield_right(rank, phi, grad, i, j);
            }
          }
        }
      }
      __syncthreads();
      // Entries of a bad cell are written from stale slots: the arrays are not to be used then.
      for (int64_t e = tid; e < ncell * chunk; e += blockDim.x) {
        const int64_t cc = c0 + e / chunk, k = l * chunk + e % chunk;
        left[cc * lin + k] = s_left[e];
        if constexpr (fam == HC_FAMILY_FIELDFIELD) right[cc * rin + k] = s_right[e];
      }
      __syncthreads();
    }
  }
}

template <hc_kernel Kernel>
cudaError_t launch(const celldata_args &a, hc_precision precision, hc_layout layout, void *d_left, void *d_right) {
  const unsigned grid = hc_cuda_grid((a.C * a.P + kThreads - 1) / kThreads);
  const cudaStream_t stream = hc_cuda_stream();
  const bool minor = layout == HC_LAYOUT_CELL_MINOR;
  if constexpr (Kernel / 3 != HC_FAMILY_DATADATA) {
    if (!minor && a.P <= kStagedThreads) {
      const int cpb = kStagedThreads / 2 / a.P > 0 ? kStagedThreads / 2 / a.P : 1;  // P = 27: 4 cells, 108 threads
      const unsigned staged_grid = hc_cuda_grid((a.C + cpb - 1) / cpb);
      const int threads = cpb * a.P;
      constexpr int Dij = Kernel % 3 == 0 ? 1 : Kernel % 3 == 1 ? 3 : 9;
      if (precision == HC_FLOAT) {
        celldata_staged<Kernel, float><<<staged_grid, threads, 2 * threads * Dij * sizeof(float), stream>>>(
            a, cpb, static_cast<float *>(d_left), static_cast<float *>(d_right));
      } else {
        celldata_staged<Kernel, double><<<staged_grid, threads, 2 * threads * Dij * sizeof(double), stream>>>(
            a, cpb, static_cast<double *>(d_left), static_cast<double *>(d_right));
      }
      return cudaGetLastError();
    }
  }
  if (precision == HC_FLOAT) {
    float *l = static_cast<float *>(d_left), *r = static_cast<float *>(d_right);
    if (minor) {
      celldata_kernel<Kernel, float, true><<<grid, kThreads, 0, stream>>>(a, l, r);
    } else {
      celldata_kernel<Kernel, float, false><<<grid, kThreads, 0, stream>>>(a, l, r);
    }
  } else {
    double *l = static_cast<double *>(d_left), *r = static_cast<double *>(d_right);
    if (minor) {
      celldata_kernel<Kernel, double, true><<<grid, kThreads, 0, stream>>>(a, l, r);
    } else {
      celldata_kernel<Kernel, double, false><<<grid, kThreads, 0, stream>>>(a, l, r);
    }
  }
  return cudaGetLastError();
}

cudaError_t launch_kernel(hc_kernel kernel, const celldata_args &a, hc_precision precision, hc_layout layout,
                          void *d_left, void *d_right) {
  switch (kernel) {
    case HC_DATADATA_SCALAR:
      return launch<HC_DATADATA_SCALAR>(a, precision, layout, d_left, d_right);
    case HC_DATADATA_VECTOR:
      return launch<HC_DATADATA_VECTOR>(a, precision, layout, d_left, d_right);
    case HC_DATADATA_TENSOR:
      return launch<HC_DATADATA_TENSOR>(a, precision, layout, d_left, d_right);
    case HC_DATAFIELD_SCALAR:
      return launch<HC_DATAFIELD_SCALAR>(a, precision, layout, d_left, d_right);
    case HC_DATAFIELD_VECTOR:
      return launch<HC_DATAFIELD_VECTOR>(a, precision, layout, d_left, d_right);
    case HC_DATAFIELD_TENSOR:
      return launch<HC_DATAFIELD_TENSOR>(a, precision, layout, d_left, d_right);
    case HC_FIELDFIELD_SCALAR:
      return launch<HC_FIELDFIELD_SCALAR>(a, precision, layout, d_left, d_right);
    case HC_FIELDFIELD_VECTOR:
      return launch<HC_FIELDFIELD_VECTOR>(a, precision, layout, d_left, d_right);
    default:
      return launch<HC_FIELDFIELD_TENSOR>(a, precision, layout, d_left, d_right);
  }
}

}  // namespace

extern "C" int hc_celldata_fill_cuda(const hc_celldata_desc *desc, hc_kernel kernel, void *d_left, void *d_right) {
  const cudaDeviceProp *props = nullptr;
  HC_CALL(hc_cuda_device_props(&props));  // no usable device: HC_ERR_RESOURCE
  const hc_basis *b = desc->basis;
  const cudaStream_t stream = hc_cuda_stream();
  unsigned long long h_bad = kNoBadCell;
  {
    std::lock_guard<std::mutex> guard(cache_lock);
    HC_CALL(cache_get(b));
    celldata_args a;
    a.C = desc->C;
    a.L = b->L;
    a.P = b->P;
    a.t = desc->t;
    a.motion = desc->motion;
    a.data = desc->data;
    a.X0 = desc->X0;
    a.qpts = cache.d_qpts;
    a.qwts = cache.d_qwts;
    a.phi = cache.d_phi;
    a.grad = cache.d_grad;
    a.bad = cache.d_bad;
    HC_CALL_CUDA(cudaMemsetAsync(cache.d_bad, 0xff, sizeof(*cache.d_bad), stream));
    HC_CALL_CUDA_LAUNCH(launch_kernel(kernel, a, desc->precision, desc->layout, d_left, d_right), "cell data");
    HC_CALL_CUDA(cudaMemcpyAsync(&h_bad, cache.d_bad, sizeof(h_bad), cudaMemcpyDeviceToHost, stream));
    HC_CALL_CUDA(cudaStreamSynchronize(stream));
  }
  if (h_bad == kNoBadCell) return HC_OK;
  const int64_t c = (int64_t)h_bad;
  double h_X0c[24];
  HC_CALL_CUDA(cudaMemcpyAsync(h_X0c, desc->X0 + 24 * c, sizeof(h_X0c), cudaMemcpyDeviceToHost, stream));
  HC_CALL_CUDA(cudaStreamSynchronize(stream));
  return hc_celldata_cell_error(desc, c, h_X0c);
}
