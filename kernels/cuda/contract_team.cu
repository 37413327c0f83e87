// The `team` algorithm (team reduction, "teamstride"): a team of G threads per output entry strides
// through the flattened contracted index q in [0, K) and reduces with warp shuffles. A team is a whole
// warp (G = 32) when K > 16; when K is short several outputs share one warp in sub-warp teams of
// G = next power of two >= K threads (the special case of the Kokkos study), so fewer lanes idle.
// Cell-major DataField has its own kernel (contract_team_df): there the rows of F lie one after another, so a
// warp's teams take neighbouring rows, 16-byte loads where the rows allow (K * sizeof(T) a multiple of 16),
// a thread's loads of a row issued in rounds of kTeamDfLoads, and a warp walks a span of rows by counters
// instead of dividing per row. Rows of 4 KB or more (256 entries or more without 16-byte loads) keep the
// kernel above.
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

constexpr int kTeamDfSteps = 8;  // rows per span: kTeamDfSteps rounds of a warp's teams
// Loads of F (and of d) per thread in flight: two of 16 bytes, or eight scalars.
template <int W>
constexpr int kTeamDfLoads = W > 1 ? 2 : 8;

// W scalars as one 16-byte load (W = 1: the scalar itself).
template <typename T, int W>
struct df_vec {
  using type = T;
};
template <>
struct df_vec<double, 2> {
  using type = double2;
};
template <>
struct df_vec<float, 4> {
  using type = float4;
};

// acc += a . d over the W scalars of a load.
__device__ __forceinline__ double df_dot(double a, double d, double acc) {
  return fma(a, d, acc);
}
__device__ __forceinline__ float df_dot(float a, float d, float acc) {
  return fmaf(a, d, acc);
}
__device__ __forceinline__ double df_dot(double2 a, double2 d, double acc) {
  return fma(a.y, d.y, fma(a.x, d.x, acc));
}
__device__ __forceinline__ float df_dot(float4 a, float4 d, float acc) {
  return fmaf(a.w, d.w, fmaf(a.z, d.z, fmaf(a.y, d.y, fmaf(a.x, d.x, acc))));
}

// out[c,l] = sum_q F[c,l,q] d[c,qb(q)] (cell-major), teams of 1 << g_log2 lanes per row. W > 1: rows of W-scalar
// vectors (K % W == 0 and 16-byte aligned arrays); kTeamDfLoads<W> loads of F and as many of d in flight per thread.
template <typename T, int W, bool Constant>
__global__ void __launch_bounds__(kThreads, W > 1 ? 5 : 4)
    contract_team_df(hc_cuda_shape s, int g_log2, const T *__restrict__ A, const T *__restrict__ B, T *__restrict__ out,
                     int sum_into) {
  using V = typename df_vec<T, W>::type;
  const int lane = threadIdx.x & 31, G = 1 << g_log2, team = lane >> g_log2, rank = lane & (G - 1);
  const int per_warp = 32 >> g_log2, K = (int)s.K, KV = K / W, L = s.L;
  const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  const int64_t nrows = s.C * L, span = (int64_t)per_warp * kTeamDfSteps;
  for (int64_t r0 = warp * span; r0 < nrows; r0 += warps * span) {
    const int64_t r1 = r0 + span < nrows ? r0 + span : nrows;
    int64_t row = r0 + team, c = row / L;
    int l = (int)(row - c * L);
    // The loop bound depends on the warp only, so every lane reaches every shuffle.
    for (int64_t base = r0; base < r1; base += per_warp) {
      T s0 = 0, s1 = 0;
      if (row < r1) {
        if (Constant) {
          const T *a = A + row * K, *d = B + c * s.innerB;
          const int dr = (int)s.Dr;
          for (int q = rank; q < K; q += G) s0 = fma(__ldg(a + q), __ldg(d + q % dr), s0);
        } else {
          const V *a = reinterpret_cast<const V *>(A + row * K), *d = reinterpret_cast<const V *>(B + c * s.innerB);
          // rounds of U loads of F and U of d, issued together (the last round's past the row predicated off)
          for (int v0 = rank; v0 < KV; v0 += kTeamDfLoads<W> * G) {
            V av[kTeamDfLoads<W>], dv[kTeamDfLoads<W>];
#pragma unroll
            for (int u = 0; u < kTeamDfLoads<W>; u++) {
              const int v = v0 + u * G;
              av[u] = v < KV ? __ldg(a + v) : V{};
              dv[u] = v < KV ? __ldg(d + v) : V{};
            }
#pragma unroll
            for (int u = 0; u < kTeamDfLoads<W>; u += 2)
              s0 = df_dot(av[u], dv[u], s0), s1 = df_dot(av[u + 1], dv[u + 1], s1);
          }
        }
      }
      T sum = s0 + s1;
      for (int off = G / 2; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
      if (row < r1 && rank == 0) hc_store(&out[row], sum, sum_into);
      row += per_warp;
      for (l += per_warp; l >= L; l -= L) c++;
    }
  }
}

template <typename T, int W>
cudaError_t launch_team_df(const hc_cuda_shape &s, const T *A, const T *B, T *out, int sum_into) {
  // W > 1: at least two loads (of W scalars) per thread and row where K allows; W = 1: as few lanes per row as
  // take it in one round of kTeamDfLoads<1> loads
  const int64_t kv = s.K / W;
  int g_log2 = 0;
  if (W > 1) {
    while (g_log2 < 5 && ((int64_t)2 << (g_log2 + 1)) <= kv) g_log2++;
  } else {
    while (g_log2 < 5 && ((int64_t)kTeamDfLoads<W> << g_log2) < kv) g_log2++;
  }
  const int64_t rows_per_block = (int64_t)(kThreads / 32) * (32 >> g_log2) * kTeamDfSteps;
  const unsigned grid = hc_cuda_grid((s.C * s.L + rows_per_block - 1) / rows_per_block);
  auto kernel = s.constant ? contract_team_df<T, 1, true> : contract_team_df<T, W, false>;
  kernel<<<grid, kThreads, 0, hc_cuda_stream()>>>(s, g_log2, A, B, out, sum_into);
  return cudaGetLastError();
}

}  // namespace

extern "C" int hc_supports_cuda_team(const hc_contract *k) {
  return HC_OK;
}

extern "C" int hc_contract_cuda_team(const hc_contract *k, const void *d_left, const void *d_right, void *d_out) {
  const hc_cuda_shape s = hc_cuda_shape_of(k);
  // Cell-major DataField with rows of under 4 KB (16-byte loads) or of at most 256 entries: contract_team_df. Longer
  // rows go to the kernel below, a whole warp per row, measured faster there (one H100, 2026-11-27: 97-98% of the
  // roofline against 86-94% with contract_team_df at K = 648 and 1944 in double).
  const size_t row_bytes = (size_t)s.K * hc_precision_size(k->precision);
  const bool vec = !s.constant && row_bytes % 16 == 0 && ((uintptr_t)d_left | (uintptr_t)d_right) % 16 == 0;
  if (s.family == HC_FAMILY_DATAFIELD && !s.cell_minor && (vec ? row_bytes < 4096 : s.K <= 32 * kTeamDfLoads<1>)) {
    HC_CALL_CUDA_LAUNCH(hc_cuda_dispatch(k,
                                         [&](auto t, auto) {
                                           using T = decltype(t);
                                           const T *A = static_cast<const T *>(d_left);
                                           const T *B = static_cast<const T *>(d_right);
                                           T *out = static_cast<T *>(d_out);
                                           return vec ? launch_team_df<T, 16 / sizeof(T)>(s, A, B, out, k->sum_into)
                                                      : launch_team_df<T, 1>(s, A, B, out, k->sum_into);
                                         }),
                        "team (DataField)");
    return HC_OK;
  }
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
