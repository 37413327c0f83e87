// The warp-per-cell GEMM behind `tile`'s cell-major FieldField where L and R are at most 32 and one of them is
// above 8 (the triquadratic cell's 27 x 27 element matrices among them).
//
// Per cell, O(L x R) = A(L x K) B(R x K)^T with A and B row-major and contiguous. A warp owns one cell at a time
// and the whole of its output: lane (rg, cg) = (lane / 8, lane % 8) holds rows rg + 4 i (i < MI) and columns
// cg + 8 j (j < NJ) in registers, MI = ceil(L / 4) and NJ = ceil(R / 8), so 27 x 27 takes 28 x 32 slots where
// the block tiles of hc_cell_gemm.cuh take 32 x 32 with a K-step of 32 for K = 27. The warp walks K in steps
// of BK entries, STAGES deep, each step copied into the warp's own slice of shared memory by cp.async. Where K
// <= BK (`whole`), a cell's A and B are each one run of scalars, copied by 16-byte words whatever its alignment
// (K = 27 makes most rows start inside a word): from the word that holds the first entry, and read back from its
// offset in that word (`shift`), so that no copy is narrower than 16 bytes but where the array ends inside a word
// (scalar copies there, so that nothing past the array is read); each entry of K is then one shared-memory read
// per row or column of the lane and MI x NJ FMAs. Where K > BK (`rows`), a step's rows are copied one scalar per
// lane, BK lanes along a row (so that each copy instruction reads whole rows' runs), into rows of LD scalars that
// start at 16-byte words and are zero past K; the arithmetic then reads V = 16 / sizeof(T) entries of a row or
// column at once (one 16-byte shared-memory read) for V x MI x NJ FMAs, a fifth fewer instructions than one read per
// entry in float. The rows a warp reads at once lie in distinct banks (row stride BK + V scalars). Only warp barriers:
// the warps of a block never wait on each other. Every output is its K products summed in order, whatever the grid (the
// zeros past K add nothing).
//
// With MMA (double, compute capability 8.0 or newer: `tensorcore`'s cell-major FieldField), the staged rows (always
// `rows` mode, whatever K) feed the FP64 tensor cores instead of the FMAs: the warp's output is MI x NJ tiles of
// 16 x 8, each 16 entries of a step one mma.sync m16n8k16 per tile (where the step ends at K, steps of 4, m16n8k4,
// over the zeros up to the next multiple of 4), the rows in a stride of BK + 4 doubles, so that a fragment's loads
// are conflict-free. A (27,27) cell with K = 81 is 8 x 5 m16n8k16 and 8 m16n8k4 where the FMAs are about 2,300.
#ifndef HC_WARP_GEMM_CUH
#define HC_WARP_GEMM_CUH

#include "kernels/cuda/hc_cell_gemm.cuh"
#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_context.cuh"

namespace hc_wgemm {

// The word of V = 16 / sizeof(T) scalars at src (global, 16-byte aligned) into dst (shared, 16-byte aligned), or
// only its first n < V scalars, one copy each, where the array ends inside the word (nothing is read past it).
template <typename T>
__device__ __forceinline__ void copy_word(T *dst, const T *src, int64_t n) {
  constexpr int V = 16 / (int)sizeof(T);
  if (n >= V) {
    hc_gemm::copy_async<16>(dst, src, true);
  } else {
    for (int x = 0; x < n; x++) hc_gemm::copy_async<sizeof(T)>(dst + x, src + x, true);
  }
}

// 16 bytes of T in one register group, and its scalar v.
template <typename T>
struct vec;
template <>
struct vec<float> {
  using type = float4;
  static __device__ __forceinline__ float at(const float4 &x, int v) {
    return v == 0 ? x.x : v == 1 ? x.y : v == 2 ? x.z : x.w;
  }
};
template <>
struct vec<double> {
  using type = double2;
  static __device__ __forceinline__ double at(const double2 &x, int v) { return v == 0 ? x.x : x.y; }
};

template <typename T, int BK, bool MMA = false>
struct layout {
  static constexpr int V = 16 / (int)sizeof(T);  // scalars per 16-byte word
  static constexpr int LD = BK + (MMA ? 4 : V);  // row stride of `rows` mode, 16-byte aligned
  static_assert(BK % V == 0, "a step is whole 16-byte words");
  static_assert(!MMA || (sizeof(T) == 8 && BK % 16 == 0), "the FP64 tensor cores take steps of 16 doubles");
};

// Copies entries [k0, k0 + BK) of rows [0, rows) (rows <= 32) of the matrix whose row 0 starts at src + e (row
// stride K) into dst[row][LD], entries at or past K as zeros: lane (rr, kk) = (lane / BK, lane % BK) copies entry
// kk of rows rr, rr + 32 / BK, ... (one scalar each; a copy instruction reads 32 / BK whole runs of BK).
template <typename T, int BK, int LD>
__device__ __forceinline__ void copy_rows(T *dst, const T *__restrict__ src, int64_t e, int rows, int64_t K, int64_t k0,
                                          int lane) {
  static_assert(32 % BK == 0, "a step's entries of a row are a whole number of lanes' copies");
  constexpr int RP = 32 / BK;  // rows per copy instruction
  const int rr = lane / BK, kk = lane % BK;
  const bool in = k0 + kk < K;
  const T *from = in ? src + e + rr * K + k0 + kk : src;
  T *to = dst + rr * LD + kk;
#pragma unroll 4
  for (int r = rr; r < rows; r += RP) {
    hc_gemm::copy_async<sizeof(T)>(to, from, in);
    to += RP * LD;
    if (in) from += RP * K;
  }
}

// Scalars of a stage that hold A (or with b, B): K <= BK, the cell's run and up to V - 1 before it, in whole
// 16-byte words; else L (R) rows of LD (a lane's rows past them read row 0).
template <typename T, int BK, bool MMA = false>
__host__ __device__ inline int stage_b(const hc_cuda_shape &s, bool b = false) {
  using Lay = layout<T, BK, MMA>;
  if (MMA || s.K > BK) return (int)(b ? s.R : s.L) * Lay::LD;
  const int n = (int)(b ? s.innerB : s.innerA) + 2 * Lay::V - 1;
  return n / Lay::V * Lay::V;
}

// Copies the n scalars at src + e (`tot` scalars in the array from src) into dst, from the 16-byte word that
// holds the first: it lands at dst[shift], shift = e % V.
template <typename T>
__device__ __forceinline__ void copy_run(T *dst, const T *__restrict__ src, int64_t e, int n, int64_t tot, int lane) {
  constexpr int V = 16 / (int)sizeof(T);
  const int shift = (int)(e & (V - 1));
  const int64_t a0 = e - shift;
  const int words = (shift + n + V - 1) / V;
  for (int j = lane; j < words; j += 32) {
    copy_word(dst + j * V, src + a0 + j * V, tot - (a0 + j * V));
  }
}

// D(16 x 8) += A(16 x 4) B(4 x 8) in double: lane 4 g + t holds a0 = A[g][t], a1 = A[g + 8][t], b = B[t][g] and
// d = D[g][2t], D[g][2t + 1], D[g + 8][2t], D[g + 8][2t + 1] (m16n8k4 on sm_90, two m8n8k4 on sm_80).
__device__ __forceinline__ void mma_k4(double (&d)[4], double a0, double a1, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a0), "d"(a1), "d"(b));
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a0), "d"(b));
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d[2]), "+d"(d[3])
               : "d"(a1), "d"(b));
#else
  __trap();  // never launched: tensorcore's supports() refuses devices and builds older than sm_80
#endif
}

// D(16 x 8) += A(16 x 16) B(16 x 8) in double, with hc_cell_gemm.cuh's fragments (MathDmma::mma16).
using Dmma = hc_gemm::MathDmma<16, 8, 1, 1, 16>;

// The kernel: WARPS warps per block, each its own cells (warp w of the grid takes cells w, w + warps, ...),
// STAGES steps of BK entries in flight per warp. A and B must be 16-byte aligned (the launcher checks).
// With MMA (see above), MI and NJ count tiles of 16 rows and 8 columns.
template <typename T, int MI, int NJ, int BK, int STAGES, int WARPS, bool MMA = false>
__global__ void __launch_bounds__(32 * WARPS, 1)
    warp_gemm(hc_cuda_shape s, const T *__restrict__ A, const T *__restrict__ B, T *__restrict__ out, int sum_into) {
  using Lay = layout<T, BK, MMA>;
  constexpr int V = Lay::V, LD = Lay::LD;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, rg = lane >> 3, cg = lane & 7;
  const int g = lane >> 2, t = lane & 3;  // MMA: the fragments' row and column within a tile
  // K <= BK: a cell's A and B are each one run of scalars, copied whole (row l at l K from the run's shift).
  const bool whole = !MMA && s.K <= BK;
  const int boff = stage_b<T, BK, MMA>(s), stage_n = boff + stage_b<T, BK, MMA>(s, true);
  // MMA: a finished cell's L x R results go out through the stage just read where they fit in it (below).
  const bool staged = MMA && s.L * s.R <= stage_n;
  T *buf = reinterpret_cast<T *>(smem_raw) + warp * (STAGES * stage_n);
  const int64_t nwarps = (int64_t)gridDim.x * WARPS, w0 = (int64_t)blockIdx.x * WARPS + warp;
  if (w0 >= s.C) return;  // the whole warp: no block-wide barrier follows
  const int nk = (int)((s.K + BK - 1) / BK);
  const int64_t steps = ((s.C - 1 - w0) / nwarps + 1) * nk;
  const int64_t totA = s.C * s.innerA, totB = s.C * s.innerB;

  // The load cursor: the cell and step that the next copy fills.
  int64_t ld_c = w0, ld_left = steps;
  int ld_k = 0, ld_stage = 0;
  auto load = [&]() {
    if (ld_left > 0) {
      T *As = buf + ld_stage * stage_n;
      if (whole) {
        copy_run<T>(As, A, ld_c * s.innerA, (int)s.innerA, totA, lane);
        copy_run<T>(As + boff, B, ld_c * s.innerB, (int)s.innerB, totB, lane);
      } else {
        const int64_t k0 = (int64_t)ld_k * BK;
        copy_rows<T, BK, LD>(As, A, ld_c * s.innerA, s.L, s.K, k0, lane);
        copy_rows<T, BK, LD>(As + boff, B, ld_c * s.innerB, s.R, s.K, k0, lane);
      }
      if (--ld_left > 0 && ++ld_k == nk) {
        ld_k = 0;
        ld_c += nwarps;
      }
      ld_stage = ld_stage + 1 == STAGES ? 0 : ld_stage + 1;
    }
    hc_gemm::copy_commit();  // an empty group past the end keeps the wait counts uniform
  };

  // Where this lane's rows and columns of the current cell start in a stage (rows past L or R read row 0's); with
  // MMA, rows g + 16 i and g + 8 + 16 i (offA[i], offA[MI + i]) and column t, and rows g + 8 j of B.
  int offA[MMA ? 2 * MI : MI], offB[NJ];
  auto offsets = [&](int64_t c) {
    if constexpr (MMA) {
#pragma unroll
      for (int h = 0; h < 2 * MI; h++) {
        const int l = g + 16 * (h % MI) + 8 * (h / MI);
        offA[h] = (l < s.L ? l : 0) * LD + t;
      }
#pragma unroll
      for (int j = 0; j < NJ; j++) offB[j] = boff + (g + 8 * j < s.R ? g + 8 * j : 0) * LD + t;
    } else {
#pragma unroll
      for (int i = 0; i < MI; i++) {
        const int l = rg + 4 * i < s.L ? rg + 4 * i : 0;
        offA[i] = whole ? (int)((c * s.innerA) & (V - 1)) + l * (int)s.K : l * LD;
      }
#pragma unroll
      for (int j = 0; j < NJ; j++) {
        const int r = cg + 8 * j < s.R ? cg + 8 * j : 0;
        offB[j] = boff + (whole ? (int)((c * s.innerB) & (V - 1)) + r * (int)s.K : r * LD);
      }
    }
  };

  constexpr int NA = MMA ? 4 : 1;  // accumulators per (i, j): an mma tile's four, or one FMA slot
  T acc[MI][NJ][NA];
#pragma unroll
  for (int i = 0; i < MI; i++)
#pragma unroll
    for (int j = 0; j < NJ; j++)
#pragma unroll
      for (int h = 0; h < NA; h++) acc[i][j][h] = T(0);
  // Entry k of a `whole` stage: one read per row and column.
  auto fma_at = [&](const T *S, int k) {
    T a[MI], b[NJ];
#pragma unroll
    for (int i = 0; i < MI; i++) a[i] = S[offA[i] + k];
#pragma unroll
    for (int j = 0; j < NJ; j++) b[j] = S[offB[j] + k];
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
      for (int j = 0; j < NJ; j++) acc[i][j][0] = fma(a[i], b[j], acc[i][j][0]);
  };
  // Entries [k, k + V) of a `rows` stage: one 16-byte read per row and column, the entries in order.
  using Vec = typename hc_wgemm::vec<T>::type;
  auto fma_vec = [&](const T *S, int k) {
    Vec a[MI], b[NJ];
#pragma unroll
    for (int i = 0; i < MI; i++) a[i] = *reinterpret_cast<const Vec *>(S + offA[i] + k);
#pragma unroll
    for (int j = 0; j < NJ; j++) b[j] = *reinterpret_cast<const Vec *>(S + offB[j] + k);
#pragma unroll
    for (int v = 0; v < V; v++)
#pragma unroll
      for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NJ; j++) acc[i][j][0] = fma(vec<T>::at(a[i], v), vec<T>::at(b[j], v), acc[i][j][0]);
  };
  // MMA: entries [k, k + 16) of a `rows` stage, one m16n8k16 per tile.
  auto mma_16 = [&](const T *S, int k) {
    if constexpr (MMA) {
      double b[NJ][4];
#pragma unroll
      for (int j = 0; j < NJ; j++)
#pragma unroll
        for (int e = 0; e < 4; e++) b[j][e] = S[offB[j] + k + 4 * e];
#pragma unroll
      for (int i = 0; i < MI; i++) {
        double a[8];
#pragma unroll
        for (int e = 0; e < 4; e++) a[2 * e] = S[offA[i] + k + 4 * e], a[2 * e + 1] = S[offA[MI + i] + k + 4 * e];
#pragma unroll
        for (int j = 0; j < NJ; j++) Dmma::mma16(acc[i][j], a, b[j]);
      }
    }
  };
  // MMA: entries [k, k + 4) of a `rows` stage, one m16n8k4 per tile.
  auto mma_4 = [&](const T *S, int k) {
    if constexpr (MMA) {
      double b[NJ];
#pragma unroll
      for (int j = 0; j < NJ; j++) b[j] = S[offB[j] + k];
#pragma unroll
      for (int i = 0; i < MI; i++) {
        const double a0 = S[offA[i] + k], a1 = S[offA[MI + i] + k];
#pragma unroll
        for (int j = 0; j < NJ; j++) mma_k4(acc[i][j], a0, a1, b[j]);
      }
    }
  };

#pragma unroll
  for (int n = 0; n < STAGES - 1; n++) load();
  int64_t c = w0;
  int kc = 0, stage = 0;
  offsets(c);
  for (int64_t n = 0; n < steps; n++) {
    hc_gemm::copy_wait<STAGES - 2>();
    __syncwarp();  // the step is in shared memory for every lane; every lane is done with the stage load() refills
    load();
    T *S = buf + stage * stage_n;
    const int64_t k0 = (int64_t)kc * BK;
    const int kn = (int)(s.K - k0 < BK ? s.K - k0 : BK);
    if constexpr (MMA) {
#pragma unroll
      for (int k = 0; k < BK; k += 16) {
        if (k + 16 <= kn) {
          mma_16(S, k);
          continue;
        }
#pragma unroll
        for (int k4 = k; k4 < k + 16; k4 += 4) {
          if (k4 >= kn) break;  // the same for the whole warp; the entries past K are zeros
          mma_4(S, k4);
        }
        break;
      }
    } else if (whole) {
#pragma unroll
      for (int k = 0; k < BK; k++) {
        if (k >= kn) break;  // the same for the whole warp
        fma_at(S, k);
      }
    } else {
#pragma unroll
      for (int k = 0; k < BK; k += V) {
        if (k >= kn) break;  // the same for the whole warp; the entries past K are zeros
        fma_vec(S, k);
      }
    }
    stage = stage + 1 == STAGES ? 0 : stage + 1;
    if (++kc == nk) {
      T *O = out + c * s.innerO;
      // MMA: the cell's L x R results, a run of the output, through the stage just used (it holds L + R rows of
      // more than 32 scalars), so that the run is written in contiguous 32-lane stores rather than the fragments'
      // rows (12 of each 32-byte sector's bytes at (27,27)); load() refills this stage only after the next step's
      // __syncwarp. Without MMA a store instruction writes whole sectors already.
      if (staged) __syncwarp();  // every lane is done with the step's operands
#pragma unroll
      for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NJ; j++)
#pragma unroll
          for (int h = 0; h < NA; h++) {
            // MMA: D[g + 8 (h / 2)][2 t + h % 2] of tile (i, j)
            const int l = MMA ? 16 * i + g + 8 * (h / 2) : rg + 4 * i, r = MMA ? 8 * j + 2 * t + h % 2 : cg + 8 * j;
            if (l < s.L && r < s.R) {
              if (staged)
                S[l * s.R + r] = acc[i][j][h];
              else
                hc_store(&O[l * s.R + r], acc[i][j][h], sum_into);
            }
            acc[i][j][h] = T(0);
          }
      if (staged) {
        __syncwarp();
        for (int x = lane; x < s.L * s.R; x += 32) hc_store(&O[x], S[x], sum_into);
      }
      kc = 0;
      c += nwarps;
      if (c < s.C) offsets(c);
    }
  }
  hc_gemm::copy_wait<0>();
}

// Shared memory of one block, in bytes.
template <typename T, int BK, int STAGES, int WARPS, bool MMA = false>
__host__ __device__ inline size_t smem_bytes(const hc_cuda_shape &s) {
  return (size_t)WARPS * STAGES * (stage_b<T, BK, MMA>(s) + stage_b<T, BK, MMA>(s, true)) * sizeof(T);
}

// Whether the warp per cell takes a cell-major FieldField: L and R at most 32 (one above 8: else `tile`'s 8 x 8
// kernel), and A and B 16-byte aligned, as its copies need.
constexpr int kSmall = 8;
inline bool takes(const hc_cuda_shape &s, const void *A, const void *B) {
  return !s.cell_minor && s.L <= 32 && s.R <= 32 && (s.L > kSmall || s.R > kSmall) && s.K > 0 &&
         ((reinterpret_cast<uintptr_t>(A) | reinterpret_cast<uintptr_t>(B)) % 16) == 0;
}

// Launches warp_gemm with kWarps warps per block on a resident grid. The blocks resident per SM depend on the
// shared memory, which depends on the shape (a cell's whole run when K <= BK, else L + R rows), and the backend
// keeps the count per shared-memory size (hc_cuda_occupancy_get).
constexpr int kWarps = 4;
template <typename T, int MI, int NJ, int BK, int STAGES, bool MMA = false, int W = kWarps>
cudaError_t launch(const hc_cuda_shape &s, const T *A, const T *B, T *out, int sum_into) {
  return hc_cuda_launch_resident(warp_gemm<T, MI, NJ, BK, STAGES, W, MMA>, 32 * W, smem_bytes<T, BK, STAGES, W, MMA>(s),
                                 (s.C + W - 1) / W, s, A, B, out, sum_into);
}

}  // namespace hc_wgemm

#endif
