// The `team` algorithm (team reduction, "teamstride"): a team of G threads per output entry strides
// through the flattened contracted index q in [0, K) and reduces with warp shuffles. A team is a whole
// warp (G = 32) when K > 16; when K is short several outputs share one warp in sub-warp teams of
// G = next power of two >= K threads (the special case of the Kokkos study), so fewer lanes idle.
#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_variants.h"

namespace {

constexpr int kThreads = 256;

template <typename T, bool CellMinor>
__global__ void __launch_bounds__(kThreads) contract_team(hc_cuda_shape s, int G, const T *__restrict__ A,
                                                          const T *__restrict__ B, T *__restrict__ out, int sum_into) {
  const int64_t n = s.C * s.innerO;
  const int lane = threadIdx.x & 31, team = lane / G, rank = lane % G, per_warp = 32 / G;
  const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  // The loop bound depends on the warp only, so every lane reaches every shuffle.
  for (int64_t base = warp * per_warp; base < n; base += warps * per_warp) {
    const int64_t e = base + team;
    int64_t c = 0, lr = 0;
    T sum = 0;
    if (e < n) {
      // Cell-minor: neighbouring teams take neighbouring cells.
      c = CellMinor ? e % s.C : e / s.innerO;
      lr = CellMinor ? e / s.C : e % s.innerO;
      const int64_t a0 = (lr / s.R) * s.K, b0 = (lr % s.R) * s.KB;
      for (int64_t q = rank; q < s.K; q += G) {
        sum += A[hc_at<CellMinor>(c, a0 + q, s.C, s.innerA)] *
               B[hc_at<CellMinor>(c, b0 + hc_qb(q, s.Dr, s.constant), s.C, s.innerB)];
      }
    }
    for (int off = G / 2; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    if (e < n && rank == 0) hc_store(&out[hc_at<CellMinor>(c, lr, s.C, s.innerO)], sum, sum_into);
  }
}

}  // namespace

extern "C" int hc_supports_cuda_team(const hc_contract *k) {
  return HC_OK;
}

extern "C" int hc_contract_cuda_team(const hc_contract *k, const void *d_left, const void *d_right, void *d_out) {
  const hc_cuda_shape s = hc_cuda_shape_of(k);
  int G = 1;
  while (G < 32 && G < s.K) G *= 2;
  const int64_t n = s.C * s.innerO, per_block = (kThreads / 32) * (32 / G);
  const unsigned grid = hc_cuda_grid((n + per_block - 1) / per_block);
  HC_CALL_CUDA_LAUNCH(hc_cuda_dispatch(k,
                                       [&](auto t, auto cm) {
                                         using T = decltype(t);
                                         contract_team<T, decltype(cm)::value><<<grid, kThreads, 0, hc_cuda_stream()>>>(
                                             s, G, static_cast<const T *>(d_left), static_cast<const T *>(d_right),
                                             static_cast<T *>(d_out), k->sum_into);
                                         return cudaGetLastError();
                                       }),
                      "team");
  return HC_OK;
}
