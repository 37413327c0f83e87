// The `tile` algorithm. FieldField: per cell a small GEMM O(L x R) = A(L x K) B(R x K)^T, with the
// flattened (p, i, j) as the contracted index, so Scalar, Vector and Tensor share one kernel. Cell-major
// with L or R above 8: the pipelined per-cell GEMM of hc_cell_gemm.cuh (output tiles of 16 x 16 up to
// 128 x 128, K-steps copied to shared memory by cp.async, FMA register blocks). Otherwise TILE x TILE
// output tiles, one entry per thread, with K-tiles of kTK entries of both operands in shared memory.
// DataField: per cell a GEMV out(L) = F(L x K) d(K), with kRows rows of F per block and K-tiles of the
// data staged in shared memory and reused by every row. DataData has nothing to tile.
#include "kernels/cuda/hc_cell_gemm.cuh"
#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_variants.h"

namespace {

// Cell-major FieldField with L or R above 8: the tile configuration for the larger of the two.
template <typename T>
cudaError_t launch_ff_gemm(const hc_cuda_shape &s, const void *A, const void *B, void *out, int sum_into,
                           cudaStream_t stream) {
  using namespace hc_gemm;
  const int n = s.L > s.R ? s.L : s.R;
  // K-steps of 32 entries, 3 deep. Past 64 rows: 4 x 8 entries per thread in float (512 threads), 8 x 4 in
  // double (256): more would spill.
  if (n <= 16) return launch<MathFma<T, 16, 16, 8, 8>, 16, 16, 32, 3, 1>(s, A, B, out, sum_into, stream);
  if (n <= 32) return launch<MathFma<T, 32, 32, 16, 16>, 32, 32, 32, 3, 1>(s, A, B, out, sum_into, stream);
  using Big = std::conditional_t<sizeof(T) == 4, MathFma<T, 128, 128, 32, 16>, MathFma<T, 128, 128, 16, 32>>;
  if (n <= 64 || !smem_fits(smem_bytes<Big, 128, 128, 32, 3>())) {
    return launch<MathFma<T, 64, 64, 16, 16>, 64, 64, 32, 3, 1>(s, A, B, out, sum_into, stream);
  }
  return launch<Big, 128, 128, 32, 3, 1>(s, A, B, out, sum_into, stream);
}

constexpr int kTK = 16;   // contracted entries per K-tile (FieldField)
constexpr int kRows = 8;  // rows (warps) per block (DataField)

template <typename T, bool CellMinor, int TILE>
__global__ void __launch_bounds__(TILE *TILE)
    contract_tile_ff(hc_cuda_shape s, const T *__restrict__ A, const T *__restrict__ B, T *__restrict__ out,
                     int sum_into) {
  __shared__ T As[TILE][kTK + 1];  // As[l][k]
  __shared__ T Bs[TILE][kTK + 1];  // Bs[r][k]
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TILE + tx;
  const int64_t tl = (s.L + TILE - 1) / TILE, tr = (s.R + TILE - 1) / TILE, nwork = s.C * tl * tr;
  for (int64_t w = blockIdx.x; w < nwork; w += gridDim.x) {
    const int64_t c = w / (tl * tr);
    const int l0 = (int)((w % (tl * tr)) / tr) * TILE, r0 = (int)(w % tr) * TILE;
    T sum = 0;
    for (int64_t k0 = 0; k0 < s.K; k0 += kTK) {
      for (int i = tid; i < TILE * kTK; i += TILE * TILE) {
        const int row = i / kTK, kk = i % kTK;
        const int64_t q = k0 + kk;
        const bool in_k = q < s.K;
        As[row][kk] = in_k && l0 + row < s.L ? A[hc_at<CellMinor>(c, (l0 + row) * s.K + q, s.C, s.innerA)] : T(0);
        Bs[row][kk] = in_k && r0 + row < s.R ? B[hc_at<CellMinor>(c, (r0 + row) * s.KB + q, s.C, s.innerB)] : T(0);
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < kTK; kk++) sum += As[ty][kk] * Bs[tx][kk];
      __syncthreads();
    }
    const int l = l0 + ty, r = r0 + tx;
    if (l < s.L && r < s.R) hc_store(&out[hc_at<CellMinor>(c, (int64_t)l * s.R + r, s.C, s.innerO)], sum, sum_into);
  }
}

// DataField: warp ty of the block takes row l0 + ty of cell c; lane tx strides through q in K-tiles of
// 32, with the K-tile of the data in shared memory.
template <typename T, bool CellMinor>
__global__ void __launch_bounds__(32 * kRows)
    contract_tile_df(hc_cuda_shape s, const T *__restrict__ A, const T *__restrict__ B, T *__restrict__ out,
                     int sum_into) {
  __shared__ T ds[32];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t tl = (s.L + kRows - 1) / kRows, nwork = s.C * tl;
  for (int64_t w = blockIdx.x; w < nwork; w += gridDim.x) {
    const int64_t c = w / tl;
    const int l = (int)(w % tl) * kRows + ty;
    T sum = 0;
    for (int64_t k0 = 0; k0 < s.K; k0 += 32) {
      const int64_t q = k0 + tx;
      if (ty == 0) ds[tx] = q < s.K ? B[hc_at<CellMinor>(c, hc_qb(q, s.Dr, s.constant), s.C, s.innerB)] : T(0);
      __syncthreads();
      if (l < s.L && q < s.K) sum += A[hc_at<CellMinor>(c, (int64_t)l * s.K + q, s.C, s.innerA)] * ds[tx];
      __syncthreads();
    }
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    if (tx == 0 && l < s.L) hc_store(&out[hc_at<CellMinor>(c, l, s.C, s.innerO)], sum, sum_into);
  }
}

}  // namespace

extern "C" int hc_supports_cuda_tile(const hc_contract *k) {
  HC_CHECK(hc_kernel_family(k->kernel) != HC_FAMILY_DATADATA, HC_ERR_UNSUPPORTED,
           "variant 'tile' does not apply to %s: a DataData output is one dot product per cell with no reuse to "
           "tile (use flat or team)",
           hc_kernel_name(k->kernel));
  return HC_OK;
}

extern "C" int hc_contract_cuda_tile(const hc_contract *k, const void *d_left, const void *d_right, void *d_out) {
  HC_CALL(hc_supports_cuda_tile(k));
  const hc_cuda_shape s = hc_cuda_shape_of(k);
  const cudaStream_t stream = hc_cuda_stream();
  if (s.family == HC_FAMILY_DATAFIELD) {
    const unsigned grid = hc_cuda_grid(s.C * ((s.L + kRows - 1) / kRows));
    HC_CALL_CUDA_LAUNCH(hc_cuda_dispatch(k,
                                         [&](auto t, auto cm) {
                                           using T = decltype(t);
                                           contract_tile_df<T, decltype(cm)::value>
                                               <<<grid, dim3(32, kRows), 0, stream>>>(
                                                   s, static_cast<const T *>(d_left), static_cast<const T *>(d_right),
                                                   static_cast<T *>(d_out), k->sum_into);
                                           return cudaGetLastError();
                                         }),
                        "tile (DataField)");
    return HC_OK;
  }
  const bool small = s.L <= 8 && s.R <= 8;
  if (!s.cell_minor && !small) {
    HC_CALL_CUDA_LAUNCH(k->precision == HC_FLOAT
                            ? launch_ff_gemm<float>(s, d_left, d_right, d_out, k->sum_into, stream)
                            : launch_ff_gemm<double>(s, d_left, d_right, d_out, k->sum_into, stream),
                        "tile (FieldField)");
    return HC_OK;
  }
  // Output tiles of 8 x 8 when both field counts fit in one, else 16 x 16.
  const int tile = small ? 8 : 16;
  const unsigned grid = hc_cuda_grid(s.C * ((s.L + tile - 1) / tile) * ((s.R + tile - 1) / tile));
  HC_CALL_CUDA_LAUNCH(hc_cuda_dispatch(k,
                                       [&](auto t, auto cm) {
                                         using T = decltype(t);
                                         constexpr bool CM = decltype(cm)::value;
                                         auto kernel = small ? contract_tile_ff<T, CM, 8> : contract_tile_ff<T, CM, 16>;
                                         kernel<<<grid, dim3(tile, tile), 0, stream>>>(
                                             s, static_cast<const T *>(d_left), static_cast<const T *>(d_right),
                                             static_cast<T *>(d_out), k->sum_into);
                                         return cudaGetLastError();
                                       }),
                      "tile (FieldField)");
  return HC_OK;
}
