// Assembly on the GPU: element outputs gathered and scattered into nodal vectors with atomic adds
// (kernels/README.md, section Assembly: DataField outputs summed into a nodal vector, FieldField outputs applied
// element by element, y = sum_c P_c^T A_c P_c u). One thread per (cell, row); in the cell-minor layout neighbouring
// threads take neighbouring cells, so the element reads coalesce; in the cell-major one a block first copies a
// few cells' element matrices (contiguous) and u at their nodes into shared memory with coalesced reads, where
// small enough (assemble_apply_staged). Also the gather
// and scatter of shared nodes for the halo exchange, w = a x + y for the nodal interpolant of a step, and the sums
// of a step's DataData outputs.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_context.cuh"

namespace {

constexpr int kThreads = 256;
// Bytes of loads of a thread in flight at once in assemble_apply_staged's copies into shared memory (4 doubles,
// 8 floats: within the registers of 6 blocks per SM).
constexpr int kStageBytes = 32;

// Entry (c, q) of an array with `inner` entries per cell.
template <bool CellMinor>
__device__ __forceinline__ int64_t entry(int64_t c, int64_t q, int64_t C, int64_t inner) {
  return CellMinor ? q * C + c : c * inner + q;
}

// The (cell, row) of work item e: cells fastest in the cell-minor layout.
template <bool CellMinor>
__device__ __forceinline__ void split(int64_t e, int64_t C, int L, int64_t *c, int *l) {
  if (CellMinor) {
    *c = e % C;
    *l = (int)(e / C);
  } else {
    *c = e / L;
    *l = (int)(e % L);
  }
}

// y[nodes[c][l]] += out[c,l]
template <typename T, bool CellMinor>
__global__ void __launch_bounds__(kThreads)
    assemble_vector(int64_t C, int L, const T *__restrict__ out, const int32_t *__restrict__ nodes, double *y) {
  const int64_t n = C * L;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n; e += (int64_t)gridDim.x * blockDim.x) {
    int64_t c;
    int l;
    split<CellMinor>(e, C, L, &c, &l);
    atomicAdd(&y[nodes[c * L + l]], (double)out[entry<CellMinor>(c, l, C, L)]);
  }
}

// y[nodes[c][l]] += sum_r A[c,l,r] u[nodes[c][r]]
template <typename T, bool CellMinor>
__global__ void __launch_bounds__(kThreads)
    assemble_apply(int64_t C, int L, const T *__restrict__ A, const int32_t *__restrict__ nodes,
                   const double *__restrict__ u, double *y) {
  const int64_t n = C * L, LL = (int64_t)L * L;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n; e += (int64_t)gridDim.x * blockDim.x) {
    int64_t c;
    int l;
    split<CellMinor>(e, C, L, &c, &l);
    const int32_t *cn = nodes + c * L;
    double s = 0;
    for (int r = 0; r < L; r++) s += (double)A[entry<CellMinor>(c, (int64_t)l * L + r, C, LL)] * u[cn[r]];
    atomicAdd(&y[cn[l]], s);
  }
}

// Cell-major, G cells at a time: the cells' element matrices copied into shared memory with coalesced reads and u
// at their nodes; then one thread per (cell, row) sums its row as assemble_apply does, in the same order. Where the
// G cells' whole matrices fit (W = 0), they are one contiguous run, copied at row stride L | 1 (odd, so that the
// threads' rows fall in distinct banks); else in panels of W columns (a power of two: W consecutive entries of
// each row, 128 bytes), at row stride W + 1, each thread carrying its row's sum from panel to panel.
template <typename T>
__global__ void __launch_bounds__(kThreads, 6)
    assemble_apply_staged(int64_t C, int L, int G, int W, const T *__restrict__ A, const int32_t *__restrict__ nodes,
                          const double *__restrict__ u, double *y) {
  extern __shared__ double apply_smem[];
  const int64_t LL = (int64_t)L * L;
  const int PW = W ? W : L, LD = W ? W + 1 : L | 1;
  double *us = apply_smem;                                    // [G][L]
  T *As = reinterpret_cast<T *>(apply_smem + (size_t)G * L);  // [G][L][LD]: the panel's columns of every row
  const int i = threadIdx.x;                                  // the thread's row (g L <= G L <= blockDim.x)
  constexpr int kStageBatch = kStageBytes / (int)sizeof(T);
  for (int64_t c0 = (int64_t)blockIdx.x * G; c0 < C; c0 += (int64_t)gridDim.x * G) {
    const int g = (int)(C - c0 < G ? C - c0 : G), rows = g * L;
    const T *src = A + c0 * LL;
    if (i < rows) us[i] = u[nodes[c0 * L + i]];
    double s = 0;
    for (int r0 = 0; r0 < L; r0 += PW) {
      const int w = L - r0 < PW ? L - r0 : PW;
      // a thread's kStageBatch loads in flight before their stores
      if (W == 0) {
        const int n = rows * L;  // the whole matrices: under 96 KB
        for (int e0 = i; e0 < n; e0 += kStageBatch * blockDim.x) {
          T v[kStageBatch];
#pragma unroll
          for (int b = 0; b < kStageBatch; b++) {
            const int e = e0 + b * blockDim.x;
            if (e < n) v[b] = src[e];
          }
#pragma unroll
          for (int b = 0; b < kStageBatch; b++) {
            const int e = e0 + b * blockDim.x;
            if (e < n) As[e / L * LD + e % L] = v[b];
          }
        }
      } else {
        // thread i copies column i % W of rows i / W, i / W + step, ...
        const int col = i & (W - 1), step = blockDim.x / W;
        if (col < w) {
          for (int row0 = i / W; row0 < rows; row0 += kStageBatch * step) {
            T v[kStageBatch];
#pragma unroll
            for (int b = 0; b < kStageBatch; b++) {
              const int row = row0 + b * step;
              if (row < rows) v[b] = src[(int64_t)row * L + r0 + col];
            }
#pragma unroll
            for (int b = 0; b < kStageBatch; b++) {
              const int row = row0 + b * step;
              if (row < rows) As[row * LD + col] = v[b];
            }
          }
        }
      }
      __syncthreads();
      if (i < rows) {
        const T *row = As + i * LD;
        const double *uc = us + i / L * L + r0;
        for (int r = 0; r < w; r++) s += (double)row[r] * uc[r];
      }
      __syncthreads();  // the next panel, or the next cells, overwrite the matrices
    }
    if (i < rows) atomicAdd(&y[nodes[c0 * L + i]], s);
  }
}

// Shared memory of assemble_apply_staged at most: two blocks per SM.
constexpr size_t kApplySmemBytes = 96 * 1024;

// The staging of assemble_apply_staged for rows of L entries: G cells per block (as many as kThreads rows take,
// at least one) and the panel width W, 0 where the G cells' whole matrices fit kApplySmemBytes, else 128 bytes of
// a row (16 doubles, 32 floats); also its shared memory in bytes.
template <typename T>
struct apply_staging {
  int G, W;
  size_t smem;
  explicit apply_staging(int L) {
    G = L < kThreads ? kThreads / L : 1;
    W = 0;
    smem = (size_t)G * L * (sizeof(double) + (size_t)(L | 1) * sizeof(T));
    if (smem > kApplySmemBytes) {
      W = 128 / (int)sizeof(T);
      smem = (size_t)G * L * (sizeof(double) + (size_t)(W + 1) * sizeof(T));
    }
  }
};

template <typename T>
cudaError_t launch_vector(const hc_contract *k, const void *d_out, const int32_t *d_nodes, double *d_y) {
  const unsigned grid = hc_cuda_grid((k->C * k->L + kThreads - 1) / kThreads);
  const T *out = static_cast<const T *>(d_out);
  if (k->layout == HC_LAYOUT_CELL_MINOR) {
    assemble_vector<T, true><<<grid, kThreads, 0, hc_cuda_stream()>>>(k->C, k->L, out, d_nodes, d_y);
  } else {
    assemble_vector<T, false><<<grid, kThreads, 0, hc_cuda_stream()>>>(k->C, k->L, out, d_nodes, d_y);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_apply(const hc_contract *k, const void *d_A, const int32_t *d_nodes, const double *d_u,
                         double *d_y) {
  const unsigned grid = hc_cuda_grid((k->C * k->L + kThreads - 1) / kThreads);
  const T *A = static_cast<const T *>(d_A);
  if (k->layout == HC_LAYOUT_CELL_MAJOR) {
    const apply_staging<T> st(k->L);
    const cudaError_t err = hc_cuda_allow_smem(assemble_apply_staged<T>, st.smem);
    if (err != cudaSuccess) return err;
    assemble_apply_staged<T><<<hc_cuda_grid((k->C + st.G - 1) / st.G), kThreads, st.smem, hc_cuda_stream()>>>(
        k->C, k->L, st.G, st.W, A, d_nodes, d_u, d_y);
  } else {
    assemble_apply<T, true><<<grid, kThreads, 0, hc_cuda_stream()>>>(k->C, k->L, A, d_nodes, d_u, d_y);
  }
  return cudaGetLastError();
}

__global__ void __launch_bounds__(kThreads)
    gather(const double *__restrict__ x, const int32_t *__restrict__ idx, int64_t n, double *__restrict__ buf) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    buf[i] = x[idx[i]];
}

__global__ void __launch_bounds__(kThreads)
    scatter(const double *__restrict__ buf, const int32_t *__restrict__ idx, int64_t n, double *__restrict__ x) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    x[idx[i]] = buf[i];
}

__global__ void __launch_bounds__(kThreads)
    waxpy(int64_t n, double a, const double *__restrict__ x, const double *__restrict__ y, double *__restrict__ w) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    w[i] = a * x[i] + y[i];
}

// The sums of a step's DataData outputs in two launches whose order depends on n only, for every array at once
// (blockIdx.y): with B blocks per array (about four entries a thread, at most kSumBlocks), thread t of block b
// sums x[b kThreads + t + j B kThreads] over j, then the block its threads' sums in a fixed tree into
// sum_partial[a][b]; one block per array then sums its B partials the same way into result[a] (the context's
// pinned sum_results, which the host reads once the stream is done).
constexpr int kSumBlocks = 1024;
__device__ double sum_partial[HC_SUM_ARRAYS_MAX][kSumBlocks];

struct SumArrays {
  const void *x[HC_SUM_ARRAYS_MAX];
};

// The block's sum of each thread's v, in a fixed tree (every thread of the block must call it).
__device__ __forceinline__ double block_sum(double v) {
  __shared__ double part[kThreads];
  part[threadIdx.x] = v;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if ((int)threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  return part[0];
}

template <typename T>
__global__ void __launch_bounds__(kThreads) sum_blocks(SumArrays arrays, int64_t n) {
  const T *__restrict__ x = static_cast<const T *>(arrays.x[blockIdx.y]);
  double v = 0;
  for (int64_t i = blockIdx.x * (int64_t)kThreads + threadIdx.x; i < n; i += (int64_t)gridDim.x * kThreads)
    v += (double)x[i];
  v = block_sum(v);
  if (threadIdx.x == 0) sum_partial[blockIdx.y][blockIdx.x] = v;
}

__global__ void __launch_bounds__(kThreads) sum_partials(int blocks, double *result) {
  double v = 0;
  for (int b = threadIdx.x; b < blocks; b += kThreads) v += sum_partial[blockIdx.y][b];
  v = block_sum(v);
  if (threadIdx.x == 0) result[blockIdx.y] = v;
}

}  // namespace

extern "C" int hc_sum_cuda(int narrays, const void *const *d_x, hc_precision precision, int64_t n, double *sums) {
  HC_CHECK(narrays >= 0 && narrays <= HC_SUM_ARRAYS_MAX, HC_ERR_RUNTIME, "sum of %d arrays (at most %d)", narrays,
           HC_SUM_ARRAYS_MAX);
  for (int a = 0; a < narrays; a++) sums[a] = 0;
  if (narrays == 0 || n <= 0) return HC_OK;
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  if (!ctx->sum_results_device) {  // a call whose second step failed leaves the first done
    if (!ctx->sum_results)
      HC_CALL_CUDA(cudaHostAlloc(reinterpret_cast<void **>(&ctx->sum_results), sizeof(double) * HC_SUM_ARRAYS_MAX,
                                 cudaHostAllocMapped));
    HC_CALL_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void **>(&ctx->sum_results_device), ctx->sum_results, 0));
  }
  SumArrays arrays = {};
  for (int a = 0; a < narrays; a++) arrays.x[a] = d_x[a];
  const int64_t want = (n + 4 * kThreads - 1) / (4 * kThreads); /* about four entries a thread */
  const int blocks = (int)(want < kSumBlocks ? want : kSumBlocks);
  const dim3 grid(blocks, narrays), one(1, narrays);
  cudaStream_t s = hc_cuda_stream();
  if (precision == HC_FLOAT) {
    sum_blocks<float><<<grid, kThreads, 0, s>>>(arrays, n);
  } else {
    sum_blocks<double><<<grid, kThreads, 0, s>>>(arrays, n);
  }
  HC_CALL_CUDA_LAUNCH(cudaGetLastError(), "sum_blocks");
  sum_partials<<<one, kThreads, 0, s>>>(blocks, ctx->sum_results_device);
  HC_CALL_CUDA_LAUNCH(cudaGetLastError(), "sum_partials");
  HC_CALL(hc_cuda_bad_flag_queue());  // the step's check after this wait then waits for nothing
  HC_CALL_CUDA(cudaStreamSynchronize(s));
  for (int a = 0; a < narrays; a++) sums[a] = ctx->sum_results[a];
  return HC_OK;
}

extern "C" int hc_waxpy_cuda(int64_t n, double a, const double *d_x, const double *d_y, double *d_w) {
  if (n <= 0) return HC_OK;
  waxpy<<<hc_cuda_grid((n + kThreads - 1) / kThreads), kThreads, 0, hc_cuda_stream()>>>(n, a, d_x, d_y, d_w);
  HC_CALL_CUDA_LAUNCH(cudaGetLastError(), "waxpy");
  return HC_OK;
}

extern "C" int hc_gather_cuda(const double *d_x, const int32_t *d_idx, int64_t n, double *d_buf) {
  if (n <= 0) return HC_OK;
  gather<<<hc_cuda_grid((n + kThreads - 1) / kThreads), kThreads, 0, hc_cuda_stream()>>>(d_x, d_idx, n, d_buf);
  HC_CALL_CUDA_LAUNCH(cudaGetLastError(), "gather");
  return HC_OK;
}

extern "C" int hc_scatter_cuda(const double *d_buf, const int32_t *d_idx, int64_t n, double *d_x) {
  if (n <= 0) return HC_OK;
  scatter<<<hc_cuda_grid((n + kThreads - 1) / kThreads), kThreads, 0, hc_cuda_stream()>>>(d_buf, d_idx, n, d_x);
  HC_CALL_CUDA_LAUNCH(cudaGetLastError(), "scatter");
  return HC_OK;
}

extern "C" int hc_assemble_vector_cuda(const hc_contract *k, const void *d_out, const int32_t *d_cell_nodes,
                                       double *d_y) {
  HC_CHECK(hc_kernel_family(k->kernel) == HC_FAMILY_DATAFIELD, HC_ERR_INPUT,
           "vector assembly takes a DataField output, got %s", hc_kernel_name(k->kernel));
  if (k->precision == HC_FLOAT) {
    HC_CALL_CUDA_LAUNCH(launch_vector<float>(k, d_out, d_cell_nodes, d_y), "vector assembly");
  } else {
    HC_CALL_CUDA_LAUNCH(launch_vector<double>(k, d_out, d_cell_nodes, d_y), "vector assembly");
  }
  return HC_OK;
}

extern "C" int hc_assemble_apply_cuda(const hc_contract *k, const void *d_A, const int32_t *d_cell_nodes,
                                      const double *d_u, double *d_y) {
  HC_CHECK(hc_kernel_family(k->kernel) == HC_FAMILY_FIELDFIELD && k->L == k->R, HC_ERR_INPUT,
           "element apply takes a square FieldField output, got %s with L = %d, R = %d", hc_kernel_name(k->kernel),
           k->L, k->R);
  if (k->precision == HC_FLOAT) {
    HC_CALL_CUDA_LAUNCH(launch_apply<float>(k, d_A, d_cell_nodes, d_u, d_y), "element apply");
  } else {
    HC_CALL_CUDA_LAUNCH(launch_apply<double>(k, d_A, d_cell_nodes, d_u, d_y), "element apply");
  }
  return HC_OK;
}

extern "C" int hc_mem_zero_cuda(void *d_ptr, size_t bytes) {
  if (bytes) HC_CALL_CUDA(cudaMemsetAsync(d_ptr, 0, bytes, hc_cuda_stream()));
  return HC_OK;
}
