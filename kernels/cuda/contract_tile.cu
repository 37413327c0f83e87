// The `tile` algorithm. FieldField: per cell a small GEMM O(L x R) = A(L x K) B(R x K)^T, with the
// flattened (p, i, j) as the contracted index, so Scalar, Vector and Tensor share one kernel.
//   Cell-major with L and R at most 32 (one above 8): a warp per cell holding the whole output in registers
//   (hc_warp_gemm.cuh); with L or R above 32, the pipelined per-cell GEMM of hc_cell_gemm.cuh (output tiles of
//   64 x 64 or 128 x 128, K-steps copied to shared memory by cp.async, FMA register blocks), except in float with L
//   or R above 64: 128 x 128 tiles multiplied as outer products of K-steps staged transposed (ff_outer); with both at
//   most 8, 8 x 8 output tiles, one entry per thread, with K-tiles of kTK entries of both operands in shared memory.
//   Cell-minor with L or R above 8: groups of 16 (double) or 32 (float) cells on the lanes, one 128-byte line per
//   row and entry, staged into shared memory as they lie and multiplied in register blocks per cell
//   (contract_minor_ff_lanes); with both at most 8, one thread per cell holds the whole 8 x 8 output in
//   registers and reads each entry of A and B once, a warp's loads being 32 neighbouring cells.
// DataField: per cell a GEMV out(L) = F(L x K) d(K). Cell-major: short rows in runs of whole rows streamed through
// each warp's shared memory by cp.async (contract_tile_df_runs below); longer rows kRows per block, with K-tiles of
// the data staged in shared memory and reused by every row. Cell-minor: one thread per cell and kMinorRows
// rows, a warp's loads being 32 neighbouring cells; the data entry of each q is read once per kMinorRows rows.
// DataData has nothing to tile.
#include <cstdint>

#include "kernels/cuda/hc_cell_gemm.cuh"
#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_variants.h"
#include "kernels/cuda/hc_fastdiv.h"
#include "kernels/cuda/hc_warp_gemm.cuh"

namespace {

constexpr int kSmall = hc_wgemm::kSmall;  // FieldField: the 8 x 8 kernels' L and R at most

// Float cell-major FieldField with L or R above 64 (ff_outer): a block of 256 threads per 128 x 128 output tile of one
// cell, each thread an 8 x 8 block of it, rows 64 h + 4 ty + i and columns 64 h + 4 tx + i (h < 2, i < 4), a warp 4 x 8
// threads. Each K-step of 16 entries of A and of B is read from device memory into registers a step ahead (16-byte
// loads where every row starts 16-byte aligned, else scalars), then written to shared memory transposed, [k][row], so
// that for each entry k a thread reads its 8 rows and 8 columns as four 16-byte words, each one shared-memory wavefront
// for the warp, and multiplies them as an outer product. Two stages of shared memory, one barrier per step. Each output
// is its K products summed in order, as in the other kernels. Measured on an H200 (2026-11-29, README section
// hexcontract bench) against cell_gemm's K-contiguous tiles (hc_cell_gemm.cuh): 1.04-1.5x as fast at L = 125; K-steps
// of 8 entries 1-5% slower, 2-9% with the k-loop not unrolled; 8 x 16 entries per thread (128 threads, 255 registers,
// 56 bytes spilled) 9-28% slower; 64 x 64 tiles of 64 threads at (64,64) 23% slower than cell_gemm's, which keeps them.
struct outer_cfg {
  static constexpr int BT = 128, NT = 256, BK = 16, KU = 2;  // tile, threads, K-step, k-loop unroll
  static constexpr int LD = BT + 4, H = BT / 2;              // row stride of the stages (16-byte aligned); half tile
  static constexpr int WR = BK / 4, WORDS = BT * WR / NT;    // 4-entry words per row; per thread, operand and step
};

template <int VEC>
__global__ void __launch_bounds__(outer_cfg::NT, 2)
    ff_outer(hc_cuda_shape s, const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ out,
             int sum_into) {
  using Cfg = outer_cfg;
  constexpr int NT = Cfg::NT, BT = Cfg::BT, BK = Cfg::BK, LD = Cfg::LD, H = Cfg::H, WR = Cfg::WR, WORDS = Cfg::WORDS;
  __shared__ __align__(16) float As[2][BK][LD], Bs[2][BK][LD];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int ty = warp / 2 * 4 + lane / 8, tx = warp % 2 * 8 + lane % 8;
  const int tm = (s.L + BT - 1) / BT, tn = (s.R + BT - 1) / BT;
  const int64_t ntiles = s.C * tm * tn, K = s.K;  // a cell's L K and R K entries below 2^31 (ff_outer_takes)
  const int nk = (int)((K + BK - 1) / BK);
  for (int64_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
    const int64_t c = t / (tm * tn);
    const int rem = (int)(t - c * tm * tn), m0 = rem / tn * BT, n0 = rem % tn * BT;
    // Thread tid loads words w = tid + NT n of each step: row w / WR, entries 4 (w % WR) .. + 3, at offsets oa[n],
    // ob[n] from the cell's matrices, of which ka[n], kb[n] entries lie before K (none for a row past L or R: zeros).
    const float *Ac = A + c * s.innerA, *Bc = B + c * s.innerB;
    int oa[WORDS], ob[WORDS], ka[WORDS], kb[WORDS], so[WORDS];
#pragma unroll
    for (int n = 0; n < WORDS; n++) {
      const int w = tid + NT * n, row = w / WR, kq = w % WR * 4;
      const bool inl = m0 + row < s.L, inr = n0 + row < s.R;
      oa[n] = (inl ? m0 + row : 0) * (int)K + kq, ka[n] = inl ? (int)K - kq : 0;
      ob[n] = (inr ? n0 + row : 0) * (int)K + kq, kb[n] = inr ? (int)K - kq : 0;
      so[n] = kq * LD + row;
    }
    float ra[WORDS][4], rb[WORDS][4];
    auto load = [&](int k0) {
#pragma unroll
      for (int n = 0; n < WORDS; n++) {
        if constexpr (VEC == 4) {
          const float4 x =
              k0 < ka[n] ? __ldg(reinterpret_cast<const float4 *>(Ac + oa[n] + k0)) : make_float4(0, 0, 0, 0);
          const float4 y =
              k0 < kb[n] ? __ldg(reinterpret_cast<const float4 *>(Bc + ob[n] + k0)) : make_float4(0, 0, 0, 0);
          ra[n][0] = x.x, ra[n][1] = x.y, ra[n][2] = x.z, ra[n][3] = x.w;
          rb[n][0] = y.x, rb[n][1] = y.y, rb[n][2] = y.z, rb[n][3] = y.w;
        } else {
#pragma unroll
          for (int e = 0; e < 4; e++) {
            ra[n][e] = k0 + e < ka[n] ? __ldg(Ac + oa[n] + k0 + e) : 0.f;
            rb[n][e] = k0 + e < kb[n] ? __ldg(Bc + ob[n] + k0 + e) : 0.f;
          }
        }
      }
    };
    auto stage = [&](int st) {
#pragma unroll
      for (int n = 0; n < WORDS; n++)
#pragma unroll
        for (int e = 0; e < 4; e++)
          (&As[st][0][0])[so[n] + e * LD] = ra[n][e], (&Bs[st][0][0])[so[n] + e * LD] = rb[n][e];
    };
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
      for (int j = 0; j < 8; j++) acc[i][j] = 0.f;
    load(0);
    stage(0);
    __syncthreads();
    for (int kt = 0; kt < nk; kt++) {
      const int st = kt & 1;
      if (kt + 1 < nk) load((kt + 1) * BK);  // in flight while this step is multiplied
#pragma unroll(Cfg::KU)
      for (int k = 0; k < BK; k++) {
        float a[8], b[8];
        *reinterpret_cast<float4 *>(a) = *reinterpret_cast<const float4 *>(&As[st][k][4 * ty]);
        *reinterpret_cast<float4 *>(a + 4) = *reinterpret_cast<const float4 *>(&As[st][k][H + 4 * ty]);
        *reinterpret_cast<float4 *>(b) = *reinterpret_cast<const float4 *>(&Bs[st][k][4 * tx]);
        *reinterpret_cast<float4 *>(b + 4) = *reinterpret_cast<const float4 *>(&Bs[st][k][H + 4 * tx]);
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
          for (int j = 0; j < 8; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
      if (kt + 1 < nk) stage(st ^ 1);  // that stage's reads ended at the previous step's barrier
      __syncthreads();
    }
    float *o = out + c * s.innerO;
#pragma unroll
    for (int i = 0; i < 8; i++) {
      const int l = m0 + i / 4 * H + 4 * ty + i % 4;
#pragma unroll
      for (int j = 0; j < 8; j++) {
        const int r = n0 + j / 4 * H + 4 * tx + j % 4;
        if (l < s.L && r < s.R) hc_store(&o[(int64_t)l * s.R + r], acc[i][j], sum_into);
      }
    }
  }
}

// Whether ff_outer takes a float case: L or R above 64, and each cell's A and B indexed in 32 bits.
inline bool ff_outer_takes(const hc_cuda_shape &s) {
  return (s.L > 64 || s.R > 64) && s.innerA <= INT32_MAX && s.innerB <= INT32_MAX;
}

cudaError_t launch_ff_outer(const hc_cuda_shape &s, const void *A, const void *B, void *out, int sum_into,
                            cudaStream_t stream) {
  constexpr int BT = outer_cfg::BT;
  const bool wide = s.K % 4 == 0 && ((uintptr_t)A | (uintptr_t)B) % 16 == 0;
  const int64_t ntiles = s.C * ((s.L + BT - 1) / BT) * ((s.R + BT - 1) / BT);
  const unsigned grid = (unsigned)(ntiles < (1 << 30) ? ntiles : (1 << 30));  // blocks loop over the tiles past it
  const float *a = static_cast<const float *>(A), *b = static_cast<const float *>(B);
  float *o = static_cast<float *>(out);
  if (wide)
    ff_outer<4><<<grid, outer_cfg::NT, 0, stream>>>(s, a, b, o, sum_into);
  else
    ff_outer<1><<<grid, outer_cfg::NT, 0, stream>>>(s, a, b, o, sum_into);
  return cudaGetLastError();
}

// Cell-major FieldField with L or R above 8: the tile configuration for the larger of the two.
template <typename T>
cudaError_t launch_ff_gemm(const hc_cuda_shape &s, const void *A, const void *B, void *out, int sum_into,
                           cudaStream_t stream) {
  using namespace hc_gemm;
  const int n = s.L > s.R ? s.L : s.R;
  // K-steps of 32 entries, 3 deep. Past 64 rows in double: 8 x 4 entries per thread (256 threads): more would spill.
  if (n <= 16) return launch<MathFma<T, 16, 16, 8, 8>, 16, 16, 32, 3, 1>(s, A, B, out, sum_into, stream);
  if (n <= 32) return launch<MathFma<T, 32, 32, 16, 16>, 32, 32, 32, 3, 1>(s, A, B, out, sum_into, stream);
  if constexpr (sizeof(T) == 4) {
    // Float: 64 x 64 tiles of 128 threads, 4 x 8 entries each, a warp's lanes 4 rows x 8 columns of threads, so that
    // a 16-byte read of A or of B by the warp is one shared-memory wavefront (16 x 16 threads of 4 x 4 had read B
    // in two, for half the FMAs per read; 32 x 16 threads of 4 x 8 on 128 x 128 tiles, the same). K-steps of 32 entries
    // two deep up to 64 rows; past them ff_outer above, or, where a cell's A or B has 2^31 entries or more, these tiles
    // three deep. Measured on an H200, 2026-11-28,
    // `bench --precision float --layout cell-major`, % of the roofline for Scalar / Vector / Tensor: (64,64) 56 / 48
    // / 44 -> 70 / 61 / 56, (125,216) 41 / 43 / 44 -> 47 / 48 / 49. Not faster: 8 x 8 entries per thread (64 or 256
    // threads), 8 x 16 on 128 x 128 tiles (which spills), K-steps of 16 or 64, four stages, the K-loop unrolled, 5
    // or 6 blocks per SM under a register cap.
    if (ff_outer_takes(s)) return launch_ff_outer(s, A, B, out, sum_into, stream);
    using Fma = MathFma<T, 64, 64, 16, 8>;
    if (n <= 64) return launch<Fma, 64, 64, 32, 2, 1>(s, A, B, out, sum_into, stream);
    return launch<Fma, 64, 64, 32, 3, 1>(s, A, B, out, sum_into, stream);
  }
  using Big = MathFma<T, 128, 128, 16, 32>;
  if (n <= 64 || !smem_fits(smem_bytes<Big, 128, 128, 32, 3>())) {
    return launch<MathFma<T, 64, 64, 16, 16>, 64, 64, 32, 3, 1>(s, A, B, out, sum_into, stream);
  }
  return launch<Big, 128, 128, 32, 3, 1>(s, A, B, out, sum_into, stream);
}

// Cell-major FieldField with L and R at most 32: hc_warp_gemm.cuh's warp per cell, four warps per block on a
// resident grid. K-steps of 32 entries two deep, except K above 32 in double: 16 entries two deep (measured on
// an H200, 2026-11-28, for (27,27): the whole cell in one step of 32 reached 1.0-1.4x cuBLAS; with K = 81 and 243,
// float in steps of 32 two deep at 1.08-1.13x cuBLAS, ahead of 3 deep, of 6 warps per block and of 2 resident
// blocks; double in steps of 16 two deep 96-99% of the copy rate against 76-85% in steps of 32 with 1-4 warps per
// block). The register tile for L (rows rg + 4 i, i < MI) and R (columns cg + 8 j, j < NJ).
template <typename T, int BK, int STAGES>
cudaError_t launch_warp_gemm_bk(const hc_cuda_shape &s, const T *A, const T *B, T *out, int sum_into) {
  using hc_wgemm::launch;
  const int mi = (s.L + 3) / 4, nj = (s.R + 7) / 8;
  if (mi <= 4) {
    return nj <= 2 ? launch<T, 4, 2, BK, STAGES>(s, A, B, out, sum_into)
                   : launch<T, 4, 4, BK, STAGES>(s, A, B, out, sum_into);
  }
  if (mi <= 7) {
    return nj <= 2 ? launch<T, 7, 2, BK, STAGES>(s, A, B, out, sum_into)
                   : launch<T, 7, 4, BK, STAGES>(s, A, B, out, sum_into);
  }
  return nj <= 2 ? launch<T, 8, 2, BK, STAGES>(s, A, B, out, sum_into)
                 : launch<T, 8, 4, BK, STAGES>(s, A, B, out, sum_into);
}

template <typename T>
cudaError_t launch_warp_gemm(const hc_cuda_shape &s, const void *A, const void *B, void *out, int sum_into) {
  const T *a = static_cast<const T *>(A), *b = static_cast<const T *>(B);
  T *o = static_cast<T *>(out);
  if (sizeof(T) == 8 && s.K > 32) return launch_warp_gemm_bk<T, 16, 2>(s, a, b, o, sum_into);
  return launch_warp_gemm_bk<T, 32, 2>(s, a, b, o, sum_into);
}

// Cell-minor FieldField with L or R above 8, the cells on the lanes: a block owns a group of G neighbouring cells (G =
// 16 in double, 32 in float: one 128-byte line holds entry (row, q) of all of them) and a 32 x 32 output tile of each.
// Every K-step of KC entries copies the group's lines of the tile's 32 rows of A and 32 of B into shared memory as
// they lie in memory, [row][q][cell], VEC scalars per cp.async (16 bytes where C is a multiple of them), STAGES deep;
// thread (tile t, cell) then reads its cell's entries (the lanes on neighbouring cells: conflict-free) and keeps a
// block of its cell's outputs in registers (8 x 4 in double, two blocks per warp, lanes 0-15 and 16-31; 8 x 8 in
// float), so that nothing is transposed on the way in or out: every store of a warp is whole 128-byte lines of
// cells. Each output is its K products summed in order, as in the other kernels. Build-time tuning per precision
// (HC_LANES_KC_D / _F, HC_LANES_STAGES_D / _F); the defaults were the fastest on an H200 (2026-11-29) among KC 4 or
// 8 and 2 to 4 stages (README, section hexcontract bench).
#ifndef HC_LANES_KC_D
#define HC_LANES_KC_D 8
#endif
#ifndef HC_LANES_STAGES_D
#define HC_LANES_STAGES_D 2
#endif
#ifndef HC_LANES_KC_F
#define HC_LANES_KC_F 4
#endif
#ifndef HC_LANES_STAGES_F
#define HC_LANES_STAGES_F 3
#endif
constexpr int kLanesThreads = 512;
template <typename T>
struct lanes_cfg {
  static constexpr int G = 128 / (int)sizeof(T);          // cells per group
  static constexpr int H = 32 / G;                        // tiles per warp
  static constexpr int TM = 8, TN = 32 / (int)sizeof(T);  // a thread's outputs: 256 bytes of accumulators
  static constexpr int BM = 32, BN = (kLanesThreads / 32) * H / (BM / TM) * TN;  // the block's output tile
  static_assert(H >= 1 && BN >= TN, "a warp holds whole tiles");
  static constexpr size_t smem(int kc, int stages) { return (size_t)stages * (BM + BN) * kc * G * sizeof(T); }
};

template <typename T, int KC, int STAGES, int VEC>
__global__ void __launch_bounds__(kLanesThreads, 1)
    contract_minor_ff_lanes(hc_cuda_shape s, const T *__restrict__ A, const T *__restrict__ B, T *__restrict__ out,
                            int sum_into) {
  using Cfg = lanes_cfg<T>;
  constexpr int G = Cfg::G, BM = Cfg::BM, BN = Cfg::BN, TM = Cfg::TM, TN = Cfg::TN, NT = kLanesThreads;
  constexpr int CH = G / VEC, STAGE = (BM + BN) * KC * G;
  // Thread tid copies, of every K-step, the VEC cells from cp of entry kq of rows rt + RSTEP n of the tile's A and
  // B: the same offsets at every step, so that its addresses are two cursors moved on by KC C a step.
  constexpr int RSTEP = NT / (CH * KC), NA = BM / RSTEP, NB = BN / RSTEP;
  static_assert(NT % (CH * KC) == 0 && BM % RSTEP == 0 && BN % RSTEP == 0, "the copies tile the step evenly");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T *S = reinterpret_cast<T *>(smem_raw);
  const int tid = threadIdx.x, lane = tid & 31, cell = lane % G, t = (tid >> 5) * Cfg::H + lane / G;
  const int tr = t / (BN / TN), tc = t % (BN / TN);
  const int cp = tid % CH * VEC, kq = tid / CH % KC, rt = tid / (CH * KC), dst0 = (rt * KC + kq) * G + cp;
  const int64_t ntiles = (s.C + G - 1) / G * ((s.L + BM - 1) / BM) * ((s.R + BN - 1) / BN);
  const int nk = (int)((s.K + KC - 1) / KC);
  if ((int64_t)blockIdx.x >= ntiles) return;
  const int64_t mine = (ntiles - 1 - blockIdx.x) / gridDim.x + 1;
  const int64_t rstride = (int64_t)RSTEP * s.K * s.C, kstride = (int64_t)KC * s.C;

  // The load cursor: the tile and K-step that the next copy fills. With VEC > 1, C is a multiple of VEC, so a
  // copy's VEC cells are all in the array or all past it.
  int64_t ld_w = blockIdx.x, q = kq;
  int ld_k = 0, na = 0, nb = 0;
  bool cell_in = false;
  const T *pa = A, *pb = B;
  auto ld_tile = [&]() {
    const hc_gemm::minor_tile o(s, ld_w, BM, BN, G);
    pa = A + ((int64_t)(o.l0 + rt) * s.K + kq) * s.C + o.c0 + cp;
    pb = B + ((int64_t)(o.r0 + rt) * s.K + kq) * s.C + o.c0 + cp;
    q = kq;
    cell_in = cp < o.ncell;
    const int la = s.L - o.l0 - rt, lb = s.R - o.r0 - rt;  // rows of this thread's sequences that exist
    na = la <= 0 ? 0 : (la + RSTEP - 1) / RSTEP;
    nb = lb <= 0 ? 0 : (lb + RSTEP - 1) / RSTEP;
  };
  ld_tile();
  auto copy = [&](int stage, bool more) {
    T *dst = S + stage * STAGE + dst0;
    const bool in = cell_in && q < s.K;
    const T *p = pa;
#pragma unroll
    for (int n = 0; n < NA; n++, p += rstride) {
      const bool full = in && n < na;
      hc_gemm::copy_async<VEC * sizeof(T)>(dst + n * RSTEP * KC * G, full ? p : A, full);
    }
    p = pb;
#pragma unroll
    for (int n = 0; n < NB; n++, p += rstride) {
      const bool full = in && n < nb;
      hc_gemm::copy_async<VEC * sizeof(T)>(dst + (BM + n * RSTEP) * KC * G, full ? p : B, full);
    }
    pa += kstride;
    pb += kstride;
    q += KC;
    if (more && ++ld_k == nk) {
      ld_k = 0;
      ld_w += gridDim.x;
      ld_tile();
    }
  };
  T acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; i++)
#pragma unroll
    for (int j = 0; j < TN; j++) acc[i][j] = T(0);
  auto step = [&](int stage) {
    const T *As = S + stage * STAGE + tr * TM * KC * G + cell;
    const T *Bs = S + stage * STAGE + (BM + tc * TN) * KC * G + cell;
#pragma unroll
    for (int k = 0; k < KC; k++) {
      T a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; i++) a[i] = As[(i * KC + k) * G];
#pragma unroll
      for (int j = 0; j < TN; j++) b[j] = Bs[(j * KC + k) * G];
#pragma unroll
      for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = fma(a[i], b[j], acc[i][j]);
    }
  };
  int64_t w = blockIdx.x;
  hc_gemm::pipeline<STAGES>(mine * nk, copy, step, nk, [&]() {
    const hc_gemm::minor_tile o(s, w, BM, BN, G);
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
      for (int j = 0; j < TN; j++) {
        const int l = o.l0 + tr * TM + i, r = o.r0 + tc * TN + j;
        if (cell < o.ncell && l < s.L && r < s.R)
          hc_store(&out[((int64_t)l * s.R + r) * s.C + o.c0 + cell], acc[i][j], sum_into);
        acc[i][j] = T(0);
      }
    w += gridDim.x;
  });
}

// K-steps of 4 entries 3 deep, 96 KB of shared memory per block in both precisions: double's where the device gives a
// block less than its defaults take (128 KB; on an H200 this configuration measured 2-5 points either side of them).
constexpr int kLanesKcSmall = 4, kLanesStagesSmall = 3;

// Launches contract_minor_ff_lanes on a persistent grid: 16-byte copies where every line of A and B starts at a
// 16-byte word (C a multiple of 16 / sizeof(T), A and B aligned), else one scalar.
template <typename T, int KC, int ST>
cudaError_t launch_ff_lanes_k(const hc_cuda_shape &s, const void *A, const void *B, void *out, int sum_into,
                              cudaStream_t stream) {
  using Cfg = lanes_cfg<T>;
  constexpr int V16 = 16 / sizeof(T);
  const bool wide = s.C % V16 == 0 && ((reinterpret_cast<uintptr_t>(A) | reinterpret_cast<uintptr_t>(B)) % 16) == 0;
  auto kernel = wide ? contract_minor_ff_lanes<T, KC, ST, V16> : contract_minor_ff_lanes<T, KC, ST, 1>;
  const int64_t ntiles =
      (s.C + Cfg::G - 1) / Cfg::G * ((s.L + Cfg::BM - 1) / Cfg::BM) * ((s.R + Cfg::BN - 1) / Cfg::BN);
  return hc_gemm::launch_persistent<T>(kernel, kLanesThreads, Cfg::smem(KC, ST), ntiles, s, A, B, out, sum_into,
                                       stream);
}
template <typename T>
cudaError_t launch_ff_lanes(const hc_cuda_shape &s, const void *A, const void *B, void *out, int sum_into,
                            cudaStream_t stream) {
  constexpr bool dbl = sizeof(T) == 8;
  constexpr int KC = dbl ? HC_LANES_KC_D : HC_LANES_KC_F, ST = dbl ? HC_LANES_STAGES_D : HC_LANES_STAGES_F;
  if (hc_gemm::smem_fits(lanes_cfg<T>::smem(KC, ST)))
    return launch_ff_lanes_k<T, KC, ST>(s, A, B, out, sum_into, stream);
  return launch_ff_lanes_k<T, kLanesKcSmall, kLanesStagesSmall>(s, A, B, out, sum_into, stream);
}

constexpr int kTK = 16;        // contracted entries per K-tile (FieldField)
constexpr int kMinorRows = 8;  // cell-minor DataField: rows of F per thread
constexpr int kMinorThreads = 128;

// Cell-minor FieldField with L, R <= kSmall: thread c owns cell c's whole output, acc[l][r], and walks q
// reading A[l][q] and B[r][q] once each (rows past L or R are zeros, never read). Neighbouring threads take
// neighbouring cells, so every load and store of a warp is 32 consecutive entries.
template <typename T>
__global__ void __launch_bounds__(kMinorThreads)
    contract_minor_ff_small(hc_cuda_shape s, const T *__restrict__ A, const T *__restrict__ B, T *__restrict__ out,
                            int sum_into) {
  const int64_t C = s.C, KC = s.K * C;
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < C; c += (int64_t)gridDim.x * blockDim.x) {
    T acc[kSmall][kSmall];
#pragma unroll
    for (int i = 0; i < kSmall; i++)
#pragma unroll
      for (int j = 0; j < kSmall; j++) acc[i][j] = T(0);
    const T *a = A + c, *b = B + c;
    for (int64_t q = 0; q < s.K; q++, a += C, b += C) {
      T av[kSmall], bv[kSmall];
#pragma unroll
      for (int i = 0; i < kSmall; i++) av[i] = i < s.L ? __ldg(a + i * KC) : T(0);
#pragma unroll
      for (int j = 0; j < kSmall; j++) bv[j] = j < s.R ? __ldg(b + j * KC) : T(0);
#pragma unroll
      for (int i = 0; i < kSmall; i++)
#pragma unroll
        for (int j = 0; j < kSmall; j++) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
    }
#pragma unroll
    for (int i = 0; i < kSmall; i++)
#pragma unroll
      for (int j = 0; j < kSmall; j++)
        if (i < s.L && j < s.R) hc_store(&out[((int64_t)i * s.R + j) * C + c], acc[i][j], sum_into);
  }
}

// A lane's word of a cell-minor row: one cell's scalar, or (float4) four neighbouring cells; lane_at(v, w) is the
// scalar of cell w of the word.
__device__ __forceinline__ double lane_at(double v, int) {
  return v;
}
__device__ __forceinline__ float lane_at(float v, int) {
  return v;
}
__device__ __forceinline__ float lane_at(const float4 &v, int w) {
  return w == 0 ? v.x : w == 1 ? v.y : w == 2 ? v.z : v.w;
}

// Cell-minor DataField: lane = the VW cells of one word V of a run of 32 words, warp = a block of kMinorRows rows
// (the block's warps stride through the row blocks). out[l][c] = sum_q A[l][q][c] d[qb][c], qb = q, or q % Dr for
// constant data (a counter, not a division). V = T: one cell per lane. V = float4 (VW = 4): a warp's load of a row
// is 512 bytes and a thread has four times the bytes in flight per load; C a multiple of 4 and the arrays 16-byte
// aligned, so that every row's words are aligned. (In double, two cells per lane measured slower at L >= 27: 154
// registers.)
template <typename T, typename V = T, int VW = 1>
__global__ void __launch_bounds__(kMinorThreads)
    contract_minor_df(hc_cuda_shape s, const T *__restrict__ A, const T *__restrict__ B, T *__restrict__ out,
                      int sum_into) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const int nrb = (s.L + kMinorRows - 1) / kMinorRows;
  const int64_t C = s.C, CV = C / VW, KCV = s.K * CV, groups = (CV + 31) / 32;
  const V *Av = reinterpret_cast<const V *>(A), *Bv = reinterpret_cast<const V *>(B);
  for (int64_t grp = blockIdx.x; grp < groups; grp += gridDim.x) {
    const int64_t cv = grp * 32 + lane;
    if (cv >= CV) continue;  // no barriers below
    for (int rb = warp; rb < nrb; rb += warps) {
      const int l0 = rb * kMinorRows;
      T acc[kMinorRows][VW];
#pragma unroll
      for (int i = 0; i < kMinorRows; i++)
#pragma unroll
        for (int w = 0; w < VW; w++) acc[i][w] = T(0);
      const V *a = Av + (int64_t)l0 * KCV + cv;
      int64_t qb = 0;
      for (int64_t q = 0; q < s.K; q++, a += CV) {
        const V d = __ldg(Bv + qb * CV + cv);
        if (++qb == s.KB) qb = 0;
#pragma unroll
        for (int i = 0; i < kMinorRows; i++) {
          if (l0 + i < s.L) {
            const V x = __ldg(a + i * KCV);
#pragma unroll
            for (int w = 0; w < VW; w++) acc[i][w] = fma(lane_at(x, w), lane_at(d, w), acc[i][w]);
          }
        }
      }
#pragma unroll
      for (int i = 0; i < kMinorRows; i++)
        if (l0 + i < s.L)
#pragma unroll
          for (int w = 0; w < VW; w++) hc_store(&out[(int64_t)(l0 + i) * C + cv * VW + w], acc[i][w], sum_into);
    }
  }
}

template <typename T, int TILE>
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
        As[row][kk] = in_k && l0 + row < s.L ? A[hc_at<false>(c, (l0 + row) * s.K + q, s.C, s.innerA)] : T(0);
        Bs[row][kk] = in_k && r0 + row < s.R ? B[hc_at<false>(c, (r0 + row) * s.KB + q, s.C, s.innerB)] : T(0);
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < kTK; kk++) sum += As[ty][kk] * Bs[tx][kk];
      __syncthreads();
    }
    const int l = l0 + ty, r = r0 + tx;
    if (l < s.L && r < s.R) hc_store(&out[hc_at<false>(c, (int64_t)l * s.R + r, s.C, s.innerO)], sum, sum_into);
  }
}

// Cell-major DataField, rows of K entries of at most kDfChunkBytes / kDfMinRows bytes. In this layout the C x L
// rows of F lie one after another, so a warp takes runs of whole rows (rows = a power of two <= 32 of them, rows x
// K entries of at most kDfChunkBytes): it copies a run into its own part of shared memory by cp.async, 32
// consecutive entries per copy instruction, each row at an odd stride (no bank conflicts when the rows are
// summed), and while the next run's copies are in flight sums this one: 32 / rows lanes per row multiply its
// entries by the data, read through L1 (the L rows of a cell read the same d), and combine by shuffles. The warps
// never wait for each other. qb(q) is q, or q % Dr for constant data (a counter, not a division).
constexpr int kDfWarps = 4;
constexpr int kDfChunkBytes = 4096;
constexpr int kDfMinRows = 4;

struct df_plan {
  int rows;          // rows per run: a power of two, kDfMinRows to 32 (less: the rows are too long for runs)
  int lanes_log2;    // log2 of the lanes per row, 32 / rows
  int ld;            // the shared-memory stride of a row: K, odd
  hc_fastdiv div_k;  // an entry of a run -> its row
};

template <typename T>
df_plan df_plan_of(int64_t K) {
  df_plan p{};
  p.rows = 32;
  while (p.rows > 1 && p.rows * K * (int64_t)sizeof(T) > kDfChunkBytes) p.rows /= 2;
  if (p.rows < kDfMinRows) return p;  // the rest is for contract_tile_df_runs, whose rows are short
  p.lanes_log2 = 0;
  while ((p.rows << p.lanes_log2) < 32) p.lanes_log2++;
  p.ld = (int)K | 1;
  p.div_k = hc_fastdiv_make((uint32_t)K);
  return p;
}

template <typename T, bool Constant>
__global__ void __launch_bounds__(32 * kDfWarps)
    contract_tile_df_runs(hc_cuda_shape s, df_plan p, const T *__restrict__ A, const T *__restrict__ B,
                          T *__restrict__ out, int sum_into) {
  __shared__ T smem[kDfWarps][2][kDfChunkBytes / sizeof(T) + 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, K = (int)s.K;
  const int64_t nrows = s.C * s.L, runs = (nrows + p.rows - 1) / p.rows;
  const int64_t stride = (int64_t)gridDim.x * kDfWarps;
  const int i = lane >> p.lanes_log2, sub = lane & ((1 << p.lanes_log2) - 1), lanes = 1 << p.lanes_log2;

  // A run's rows are contiguous in F.
  auto copy = [&](int64_t run, T *dst) {
    const int64_t r0 = run * p.rows;
    const int n = (int)(nrows - r0 < p.rows ? nrows - r0 : p.rows) * K;
    const T *src = A + r0 * K;
    for (int f = lane; f < n; f += 32) {
      const int r = (int)hc_fastdiv_div(p.div_k, (uint32_t)f);
      hc_gemm::copy_async<sizeof(T)>(dst + r * p.ld + (f - r * K), src + f, true);
    }
    hc_gemm::copy_commit();
  };

  int64_t run = (int64_t)blockIdx.x * kDfWarps + warp;
  if (run >= runs) return;  // no block barriers below
  int b = 0;
  copy(run, smem[warp][0]);
  for (;;) {
    const int64_t next = run + stride;
    const bool more = next < runs;
    if (more) {
      copy(next, smem[warp][b ^ 1]);
      hc_gemm::copy_wait<1>();
    } else {
      hc_gemm::copy_wait<0>();
    }
    __syncwarp();
    const int64_t row = run * p.rows + i;
    T sum = 0;
    if (row < nrows) {
      const T *x = smem[warp][b] + i * p.ld;
      const T *d = B + (row / s.L) * s.innerB;
      if (Constant) {
        const int dr = (int)s.Dr, step = lanes % dr;
        for (int j = sub, qm = sub % dr; j < K; j += lanes) {
          sum = fma(x[j], __ldg(d + qm), sum);
          qm += step;
          if (qm >= dr) qm -= dr;
        }
      } else {
        for (int j = sub; j < K; j += lanes) sum = fma(x[j], __ldg(d + j), sum);
      }
    }
    for (int off = lanes >> 1; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    if (sub == 0 && row < nrows) hc_store(&out[row], sum, sum_into);
    __syncwarp();  // every lane done with this buffer before the next copy into it
    if (!more) break;
    run = next;
    b ^= 1;
  }
}

// Cell-major DataField with longer rows: warp ty of the block takes row l0 + ty of cell c; lane tx strides
// through q in K-tiles of 32, with the K-tile of the data in shared memory (measured faster than the runs above
// once fewer than kDfMinRows rows fit in one: one H100, 2026-11-27).
constexpr int kRows = 8;  // rows (warps) per block
template <typename T>
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
      if (ty == 0) ds[tx] = q < s.K ? B[hc_at<false>(c, hc_qb(q, s.Dr, s.constant), s.C, s.innerB)] : T(0);
      __syncthreads();
      if (l < s.L && q < s.K) sum += A[hc_at<false>(c, (int64_t)l * s.K + q, s.C, s.innerA)] * ds[tx];
      __syncthreads();
    }
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    if (tx == 0 && l < s.L) hc_store(&out[hc_at<false>(c, l, s.C, s.innerO)], sum, sum_into);
  }
}

template <typename T>
cudaError_t launch_tile_df(const hc_cuda_shape &s, const T *A, const T *B, T *out, int sum_into, cudaStream_t stream) {
  const df_plan p = df_plan_of<T>(s.K);
  if (p.rows < kDfMinRows) {
    contract_tile_df<T>
        <<<hc_cuda_grid(s.C * ((s.L + kRows - 1) / kRows)), dim3(32, kRows), 0, stream>>>(s, A, B, out, sum_into);
    return cudaGetLastError();
  }
  const int64_t runs = (s.C * s.L + p.rows - 1) / p.rows, blocks = (runs + kDfWarps - 1) / kDfWarps;
  auto kernel = s.constant ? contract_tile_df_runs<T, true> : contract_tile_df_runs<T, false>;
  // a resident grid, so that each warp has a next run to copy while it sums one
  return hc_cuda_launch_resident(kernel, 32 * kDfWarps, 0, blocks, s, p, A, B, out, sum_into);
}

}  // namespace

extern "C" int hc_supports_cuda_tile(const hc_contract *k) {
  HC_CHECK(hc_kernel_family(k->kernel) != HC_FAMILY_DATADATA, HC_ERR_UNSUPPORTED,
           "variant 'tile' does not apply to %s: a DataData output is one dot product per cell with no reuse to "
           "tile (use flat or team)",
           hc_kernel_name(k->kernel));
  // Cell-minor FieldField with L or R above 8 (contract_minor_ff_lanes): at least kLanesKcSmall x kLanesStagesSmall
  // steps of shared memory per block (96 KB), where the device is known.
  if (hc_kernel_family(k->kernel) == HC_FAMILY_FIELDFIELD && k->layout == HC_LAYOUT_CELL_MINOR &&
      (k->L > kSmall || k->R > kSmall)) {
    const size_t need = k->precision == HC_DOUBLE ? lanes_cfg<double>::smem(kLanesKcSmall, kLanesStagesSmall)
                                                  : lanes_cfg<float>::smem(kLanesKcSmall, kLanesStagesSmall);
    const cudaDeviceProp *props = nullptr;
    if (hc_cuda_device_props(&props) != HC_OK) {
      hc_error_clear();  // no device: the call itself says so
    } else {
      HC_CHECK(need <= props->sharedMemPerBlockOptin, HC_ERR_UNSUPPORTED,
               "variant 'tile' runs a cell-minor FieldField with more than %d fields in blocks of %zu KB of shared "
               "memory; device '%s' gives a block %zu KB",
               kSmall, need / 1024, props->name, (size_t)props->sharedMemPerBlockOptin / 1024);
    }
  }
  return HC_OK;
}

extern "C" int hc_contract_cuda_tile(const hc_contract *k, const void *d_left, const void *d_right, void *d_out) {
  HC_CALL(hc_supports_cuda_tile(k));
  const hc_cuda_shape s = hc_cuda_shape_of(k);
  const cudaStream_t stream = hc_cuda_stream();
  const bool small = s.L <= kSmall && s.R <= kSmall, df = s.family == HC_FAMILY_DATAFIELD;
  if (!df && !small) {
    // the per-cell GEMMs of hc_cell_gemm.cuh
    const bool f = k->precision == HC_FLOAT;
    HC_CALL_CUDA_LAUNCH(hc_wgemm::takes(s, d_left, d_right)
                            ? (f ? launch_warp_gemm<float>(s, d_left, d_right, d_out, k->sum_into)
                                 : launch_warp_gemm<double>(s, d_left, d_right, d_out, k->sum_into))
                        : s.cell_minor ? (f ? launch_ff_lanes<float>(s, d_left, d_right, d_out, k->sum_into, stream)
                                            : launch_ff_lanes<double>(s, d_left, d_right, d_out, k->sum_into, stream))
                                       : (f ? launch_ff_gemm<float>(s, d_left, d_right, d_out, k->sum_into, stream)
                                            : launch_ff_gemm<double>(s, d_left, d_right, d_out, k->sum_into, stream)),
                        "tile (FieldField)");
    return HC_OK;
  }
  // Cell-minor DataField: as many warps per block as row blocks, at most kMinorThreads / 32.
  const int nrb = (s.L + kMinorRows - 1) / kMinorRows;
  const int minor_warps = nrb < kMinorThreads / 32 ? nrb : kMinorThreads / 32;
  HC_CALL_CUDA_LAUNCH(
      hc_cuda_dispatch(k,
                       [&](auto t, auto) {
                         using T = decltype(t);
                         const T *A = static_cast<const T *>(d_left), *B = static_cast<const T *>(d_right);
                         T *out = static_cast<T *>(d_out);
                         const bool f4 = std::is_same<T, float>::value && s.C % 4 == 0 &&
                                         ((uintptr_t)A | (uintptr_t)B | (uintptr_t)out) % 16 == 0;
                         if (s.cell_minor && df && f4) {
                           contract_minor_df<float, float4, 4>
                               <<<hc_cuda_grid((s.C / 4 + 31) / 32), 32 * minor_warps, 0, stream>>>(
                                   s, reinterpret_cast<const float *>(A), reinterpret_cast<const float *>(B),
                                   reinterpret_cast<float *>(out), k->sum_into);
                         } else if (s.cell_minor && df) {
                           contract_minor_df<T><<<hc_cuda_grid((s.C + 31) / 32), 32 * minor_warps, 0, stream>>>(
                               s, A, B, out, k->sum_into);
                         } else if (s.cell_minor) {
                           contract_minor_ff_small<T>
                               <<<hc_cuda_grid((s.C + kMinorThreads - 1) / kMinorThreads), kMinorThreads, 0, stream>>>(
                                   s, A, B, out, k->sum_into);
                         } else if (df) {
                           return launch_tile_df<T>(s, A, B, out, k->sum_into, stream);
                         } else {
                           // cell-major, L and R at most 8: one 8 x 8 output tile per cell
                           contract_tile_ff<T, kSmall>
                               <<<hc_cuda_grid(s.C), dim3(kSmall, kSmall), 0, stream>>>(s, A, B, out, k->sum_into);
                         }
                         return cudaGetLastError();
                       }),
      df ? "tile (DataField)" : "tile (FieldField)");
  return HC_OK;
}
