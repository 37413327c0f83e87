// The pipelined per-cell GEMM behind the cell-major FieldField kernels of `tile` and `tensorcore`.
//
// Per cell, FieldField is O(L x R) = A(L x K) B(R x K)^T with A and B row-major and contiguous. A block
// owns output tiles of BM x BN and walks the contracted index in K-steps of BK entries; each K-step of A
// and B is copied into shared memory with cp.async (sm_80+; plain loads and stores on older devices),
// STAGES steps deep, so the loads of the next steps are in flight while the current one is multiplied.
// The grid is persistent (as many blocks as fit on the device at once), and the pipeline runs over the
// concatenation of all the block's tiles: the first steps of the next tile load while the block
// finishes and stores the current one. Rows past L or R and entries past K are zero-filled in shared
// memory, never read from device memory.
//
// The arithmetic is a policy (Math): the FP64 tensor cores (mma.sync) or FMA register blocks.
// Every tile's (l, r, K-step) pass is done in the same order, so results do not depend on the grid.
#ifndef HC_CELL_GEMM_CUH
#define HC_CELL_GEMM_CUH

#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_context.cuh"

namespace hc_gemm {

// How far the loops over the mma or FMA steps of one K-step are unrolled (1 keeps the 128 x 128 tiles
// from spilling; a build-time tuning macro).
#ifndef HC_GEMM_KK_UNROLL
#define HC_GEMM_KK_UNROLL 1
#endif
constexpr int kKkUnroll = HC_GEMM_KK_UNROLL;

// Copies Bytes (4, 8 or 16) from global to shared memory asynchronously, or zero-fills them when !full.
template <int Bytes>
__device__ __forceinline__ void copy_async(void *dst, const void *src, bool full) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  const int n = full ? Bytes : 0;
  if constexpr (Bytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(n));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(src), "n"(Bytes), "r"(n));
  }
#else
  struct alignas(Bytes) chunk {
    unsigned char b[Bytes];
  };
  *static_cast<chunk *>(dst) = full ? *static_cast<const chunk *>(src) : chunk{};
#endif
}

__device__ __forceinline__ void copy_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Waits until at most N committed groups of this thread are still in flight.
template <int N>
__device__ __forceinline__ void copy_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

// Rows [row0, row0 + ROWS) and entries [k0, k0 + BK) of a row-major (rows x K) matrix into dst[ROWS][LD],
// VEC scalars per copy (K % VEC == 0 and 16-byte aligned rows when VEC * sizeof(T) == 16).
template <typename T, int ROWS, int BK, int LD, int VEC, int NT>
__device__ __forceinline__ void load_step(T *dst, const T *__restrict__ src, int row0, int rows, int64_t K, int64_t k0,
                                          int tid) {
  constexpr int kChunksPerRow = BK / VEC, kChunks = ROWS * kChunksPerRow;
#pragma unroll
  for (int i0 = 0; i0 < kChunks; i0 += NT) {
    const int i = i0 + tid;
    if (kChunks % NT == 0 || i < kChunks) {
      const int r = i / kChunksPerRow, kc = (i % kChunksPerRow) * VEC;
      const int64_t q = k0 + kc;
      const bool full = row0 + r < rows && q < K;
      copy_async<VEC * sizeof(T)>(dst + r * LD + kc, full ? src + (int64_t)(row0 + r) * K + q : src, full);
    }
  }
}

// FP64 tensor-core math: WARPS_M x WARPS_N warps, each owning a (BM / WARPS_M) x (BN / WARPS_N) block of
// the tile as MT x NT tiles of 16 x 8, multiplied with mma.sync m16n8k8 (sm_90) or four m8n8k4 (sm_80).
template <int BM, int BN, int WARPS_M, int WARPS_N, int KSTEP>
struct MathDmma {
  using T = double;
  static constexpr int kThreads = 32 * WARPS_M * WARPS_N;
  static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N, MT = WM / 16, NT = WN / 8;
  static_assert(WM % 16 == 0 && WN % 8 == 0, "warp tiles are made of 16 x 8 mma tiles");
  static constexpr int kPad = 4;        // row stride BK + 4 doubles: a fragment load is two conflict-free wavefronts
  static constexpr int kStepK = KSTEP;  // 8 or 16: the k of one mma.sync
  static_assert(KSTEP == 8 || KSTEP == 16, "m16n8k8 or m16n8k16");

  double acc[MT][NT][4];

  __device__ __forceinline__ void zero() {
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
      for (int j = 0; j < NT; j++)
#pragma unroll
        for (int h = 0; h < 4; h++) acc[i][j][h] = 0.0;
  }

  // D(16x8) += A(16x8) B(8x8). Lane = 4 g + t holds a = A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4];
  // b = B[t][g], B[t+4][g]; d = D[g][2t], D[g][2t+1], D[g+8][2t], D[g+8][2t+1].
  static __device__ __forceinline__ void mma(double (&d)[4], const double *a, const double *b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    // m8n8k4: lane (g, t) holds A[g][t], B[t][g] and D[g][2t], D[g][2t+1].
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a[0]), "d"(b[0]));
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a[2]), "d"(b[1]));
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d[2]), "+d"(d[3])
                 : "d"(a[1]), "d"(b[0]));
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d[2]), "+d"(d[3])
                 : "d"(a[3]), "d"(b[1]));
#else
    __trap();  // never launched: tensorcore's supports() refuses devices and builds older than sm_80
#endif
  }

  // D(16x8) += A(16x16) B(16x8) (sm_90): a[i] = A[g + 8 (i % 2)][t + 4 (i / 2)], b[j] = B[t + 4 j][g]; on
  // older devices, two m16n8k8 steps on the same registers.
  static __device__ __forceinline__ void mma16(double (&d)[4], const double (&a)[8], const double (&b)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
        "{%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
          "d"(b[2]), "d"(b[3]));
#else
    mma(d, a, b);
    mma(d, a + 4, b + 2);
#endif
  }

  // The mma steps of entries kk .. kk + kStepK - 1 of As[BM][ld], Bs[BN][ld] in shared memory.
  __device__ __forceinline__ void kstep(const double *As, const double *Bs, int ld, int kk, int tid) {
    kstep(As, ld, Bs, ld, kk, tid);
  }

  // The same with row strides of their own: As[BM][lda], Bs[BN][ldb].
  __device__ __forceinline__ void kstep(const double *As, int lda, const double *Bs, int ldb, int kk, int tid) {
    const int warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
    const int wm = (warp / WARPS_N) * WM, wn = (warp % WARPS_N) * WN;
    double b[NT][kStepK / 4];
#pragma unroll
    for (int j = 0; j < NT; j++) {
      const double *p = Bs + (wn + j * 8 + g) * ldb + kk + t;
#pragma unroll
      for (int e = 0; e < kStepK / 4; e++) b[j][e] = p[4 * e];
    }
#pragma unroll
    for (int i = 0; i < MT; i++) {
      const double *p = As + (wm + i * 16 + g) * lda + kk + t;
      double a[2 * (kStepK / 4)];
#pragma unroll
      for (int e = 0; e < kStepK / 4; e++) {
        a[2 * e] = p[4 * e];
        a[2 * e + 1] = p[8 * lda + 4 * e];
      }
#pragma unroll
      for (int j = 0; j < NT; j++) {
        if constexpr (kStepK == 16) {
          mma16(acc[i][j], a, b[j]);
        } else {
          mma(acc[i][j], a, b[j]);
        }
      }
    }
  }

  // One K-step of BK entries: As[BM][LD], Bs[BN][LD] in shared memory.
  template <int BK, int LD>
  __device__ __forceinline__ void step(const double *As, const double *Bs, int tid) {
#pragma unroll(kKkUnroll)
    for (int kk = 0; kk < BK; kk += kStepK) kstep(As, Bs, LD, kk, tid);
  }

  // Stores (or adds) the tile at (l0, r0) of O (L x R, row-major, entry e at O[e * ostride]); rows past L and
  // columns past R are dropped.
  __device__ __forceinline__ void store(double *O, int L, int R, int l0, int r0, int sum_into, int tid,
                                        int64_t ostride = 1) const {
    const int warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
    const int wm = l0 + (warp / WARPS_N) * WM, wn = r0 + (warp % WARPS_N) * WN;
    // A lane's two neighbouring entries of a row (h, h + 1) as one 16-byte store where they are a 16-byte word
    // (contiguous rows of even length from an aligned start): a store instruction then writes whole sectors,
    // where one entry per lane fills half of each.
    const bool pairs = ostride == 1 && R % 2 == 0 && (reinterpret_cast<uintptr_t>(O) & 15) == 0;
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
      for (int j = 0; j < NT; j++)
#pragma unroll
        for (int h = 0; h < 4; h += 2) {
          const int l = wm + i * 16 + g + 8 * (h >> 1), r = wn + j * 8 + 2 * t;
          if (l >= L || r >= R) continue;
          if (pairs) {  // r is even, so r + 1 < R too
            double2 *o = reinterpret_cast<double2 *>(&O[(int64_t)l * R + r]);
            double2 v = make_double2(acc[i][j][h], acc[i][j][h + 1]);
            if (sum_into) {
              const double2 w = *o;
              v.x += w.x, v.y += w.y;
            }
            *o = v;
          } else {
            hc_store(&O[((int64_t)l * R + r) * ostride], acc[i][j][h], sum_into);
            if (r + 1 < R) hc_store(&O[((int64_t)l * R + r + 1) * ostride], acc[i][j][h + 1], sum_into);
          }
        }
  }
};

// FMA math for float or double: TY x TX threads, thread (y, x) owning rows y + TY i (i < BM / TY) and
// columns x + TX j (j < BN / TX) of the tile, so that the rows a warp reads fall in distinct banks. Each
// K-step is read from shared memory VEC4 entries at a time (16 bytes).
template <typename Real, int BM, int BN, int TY, int TX>
struct MathFma {
  using T = Real;
  static constexpr int kThreads = TY * TX;
  static constexpr int MI = BM / TY, NJ = BN / TX, V = 16 / sizeof(Real);
  static_assert(BM % TY == 0 && BN % TX == 0, "the thread grid divides the tile");
  static constexpr int kPad = V;  // row stride BK + V: 16-byte reads of consecutive rows use distinct banks
  static constexpr int kStepK = V;

  Real acc[MI][NJ];

  __device__ __forceinline__ void zero() {
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
      for (int j = 0; j < NJ; j++) acc[i][j] = Real(0);
  }

  struct alignas(16) vec {
    Real v[V];
  };

  // The FMAs of entries kk .. kk + V - 1 of As[BM][ld], Bs[BN][ld] in shared memory.
  __device__ __forceinline__ void kstep(const Real *As, const Real *Bs, int ld, int kk, int tid) {
    kstep(As, ld, Bs, ld, kk, tid);
  }

  // The same with row strides of their own: As[BM][lda], Bs[BN][ldb] (multiples of V).
  __device__ __forceinline__ void kstep(const Real *As, int lda, const Real *Bs, int ldb, int kk, int tid) {
    const int y = tid / TX, x = tid % TX;
    // The smaller of a thread's two sets of 16-byte words is held in registers, the other read one word at a time.
    if constexpr (NJ <= MI) {
      vec b[NJ];
#pragma unroll
      for (int j = 0; j < NJ; j++) b[j] = *reinterpret_cast<const vec *>(Bs + (x + TX * j) * ldb + kk);
#pragma unroll
      for (int i = 0; i < MI; i++) {
        const vec a = *reinterpret_cast<const vec *>(As + (y + TY * i) * lda + kk);
#pragma unroll
        for (int j = 0; j < NJ; j++)
#pragma unroll
          for (int e = 0; e < V; e++) acc[i][j] = fma(a.v[e], b[j].v[e], acc[i][j]);
      }
    } else {
      vec a[MI];
#pragma unroll
      for (int i = 0; i < MI; i++) a[i] = *reinterpret_cast<const vec *>(As + (y + TY * i) * lda + kk);
#pragma unroll
      for (int j = 0; j < NJ; j++) {
        const vec b = *reinterpret_cast<const vec *>(Bs + (x + TX * j) * ldb + kk);
#pragma unroll
        for (int i = 0; i < MI; i++)
#pragma unroll
          for (int e = 0; e < V; e++) acc[i][j] = fma(a[i].v[e], b.v[e], acc[i][j]);
      }
    }
  }

  template <int BK, int LD>
  __device__ __forceinline__ void step(const Real *As, const Real *Bs, int tid) {
#pragma unroll(kKkUnroll)
    for (int kk = 0; kk < BK; kk += V) kstep(As, Bs, LD, kk, tid);
  }

  __device__ __forceinline__ void store(Real *O, int L, int R, int l0, int r0, int sum_into, int tid,
                                        int64_t ostride = 1) const {
    const int y = tid / TX, x = tid % TX;
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
      for (int j = 0; j < NJ; j++) {
        const int l = l0 + y + TY * i, r = r0 + x + TX * j;
        if (l < L && r < R) hc_store(&O[((int64_t)l * R + r) * ostride], acc[i][j], sum_into);
      }
  }
};

// The first nk entries (a multiple of Math::kStepK) of As[BM][ld], Bs[BN][ld] into math's accumulators, both
// known only at run time (the fused assembly's chunks).
template <class Math>
__device__ __forceinline__ void steps(Math &math, const typename Math::T *As, const typename Math::T *Bs, int ld,
                                      int nk, int tid) {
  for (int kk = 0; kk < nk; kk += Math::kStepK) math.kstep(As, Bs, ld, kk, tid);
}

// Where one tile of the block's sequence lies: its cell's A, B and output, and its first row and column.
template <typename T>
struct tile_at {
  const T *A, *B;
  T *O;
  int l0, r0;
  __device__ __forceinline__ tile_at(const hc_cuda_shape &s, int64_t w, int BM, int BN, const T *A_, const T *B_,
                                     T *O_) {
    const int64_t tl = (s.L + BM - 1) / BM, tr = (s.R + BN - 1) / BN, c = w / (tl * tr);
    const int64_t lr = w - c * tl * tr;
    l0 = (int)(lr / tr) * BM;
    r0 = (int)(lr % tr) * BN;
    A = A_ + c * s.innerA;
    B = B_ + c * s.innerB;
    O = O_ + c * s.innerO;
  }
};

// The software pipeline of both kernels: `steps` K-steps (the block's tiles times nk), whose copies run
// STAGES - 1 steps ahead of the arithmetic. copy(stage, more) issues the next K-step's copies into a stage and
// moves its own cursor on (to the next tile after nk of them, when more steps remain); step(stage)
// multiplies a stage; done() ends a tile after its nk-th step. Every thread runs the same steps, so the
// barriers are uniform.
template <int STAGES, typename Copy, typename Step, typename Done>
__device__ __forceinline__ void pipeline(int64_t steps, Copy &&copy, Step &&step, int nk, Done &&done) {
  int64_t ld_left = steps;
  int ld_stage = 0;
  auto load = [&]() {
    if (ld_left > 0) {
      copy(ld_stage, --ld_left > 0);
      ld_stage = ld_stage + 1 == STAGES ? 0 : ld_stage + 1;
    }
    copy_commit();  // an empty group past the end keeps the wait counts uniform
  };
#pragma unroll
  for (int n = 0; n < STAGES - 1; n++) load();
  int k = 0, stage = 0;
  for (int64_t n = 0; n < steps; n++) {
    copy_wait<STAGES - 2>();
    __syncthreads();  // this step is in shared memory for all; every thread is done with the previous stage
    load();
    step(stage);
    stage = stage + 1 == STAGES ? 0 : stage + 1;
    if (++k == nk) {
      done();
      k = 0;
    }
  }
  copy_wait<0>();
}

// The kernel: Math over BM x BN tiles, K-steps of BK, STAGES deep, VEC scalars per copy. The loads run
// STAGES - 1 steps ahead of the arithmetic; both walk the block's tiles with cursors, so that the index
// arithmetic (divisions included) is paid once per tile, not once per K-step.
template <class Math, int BM, int BN, int BK, int STAGES, int VEC, int MINB>
__global__ void __launch_bounds__(Math::kThreads, MINB)
    cell_gemm(hc_cuda_shape s, const typename Math::T *__restrict__ A, const typename Math::T *__restrict__ B,
              typename Math::T *__restrict__ out, int sum_into) {
  using T = typename Math::T;
  constexpr int LD = BK + Math::kPad, NT = Math::kThreads;
  static_assert(BK % Math::kStepK == 0 && BK % VEC == 0, "K-steps hold whole mma steps and copies");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T *As = reinterpret_cast<T *>(smem_raw);
  T *Bs = As + STAGES * BM * LD;

  const int tid = threadIdx.x;
  const int64_t ntiles = s.C * ((s.L + BM - 1) / BM) * ((s.R + BN - 1) / BN);
  const int nk = (int)((s.K + BK - 1) / BK);
  if ((int64_t)blockIdx.x >= ntiles) return;
  const int64_t mine = (ntiles - 1 - blockIdx.x) / gridDim.x + 1;

  // The load cursor: the tile and K-step that the next copy fills.
  int64_t ld_w = blockIdx.x;
  tile_at<T> ld(s, ld_w, BM, BN, A, B, out);
  int ld_k = 0;
  auto copy = [&](int stage, bool more) {
    const int64_t k0 = (int64_t)ld_k * BK;
    load_step<T, BM, BK, LD, VEC, NT>(As + stage * BM * LD, ld.A, ld.l0, s.L, s.K, k0, tid);
    load_step<T, BN, BK, LD, VEC, NT>(Bs + stage * BN * LD, ld.B, ld.r0, s.R, s.K, k0, tid);
    if (more && ++ld_k == nk) {
      ld_k = 0;
      ld_w += gridDim.x;
      ld = tile_at<T>(s, ld_w, BM, BN, A, B, out);
    }
  };
  Math math;
  math.zero();
  int64_t w = blockIdx.x;
  pipeline<STAGES>(
      mine * nk, copy, [&](int stage) { math.template step<BK, LD>(As + stage * BM * LD, Bs + stage * BN * LD, tid); },
      nk,
      [&]() {
        const tile_at<T> t(s, w, BM, BN, A, B, out);
        math.store(t.O, s.L, s.R, t.l0, t.r0, sum_into, tid);
        math.zero();
        w += gridDim.x;
      });
}

// Shared memory of one block of cell_gemm, in bytes.
template <class Math, int BM, int BN, int BK, int STAGES>
constexpr size_t smem_bytes() {
  return (size_t)STAGES * (BM + BN) * (BK + Math::kPad) * sizeof(typename Math::T);
}

// Whether a block with this much shared memory fits the current device once opted in (the 128 x 128
// configurations need more than an sm_80 device gives one block; the callers fall back to 64 x 64).
inline bool smem_fits(size_t bytes) {
  const cudaDeviceProp *props;
  if (hc_cuda_device_props(&props) != HC_OK) {
    hc_error_clear();
    return false;
  }
  return bytes <= props->sharedMemPerBlockOptin;
}

// Launches kernel on a persistent grid: as many blocks of `threads` threads and `smem` bytes as fit on the
// device at once, at most one per tile (ntiles), each looping over the tiles (the occupancy is looked up once
// per kernel in the backend's context, which also sets the shared-memory opt-in).
template <typename T, typename Kernel>
cudaError_t launch_persistent(Kernel kernel, int threads, size_t smem, int64_t ntiles, const hc_cuda_shape &s,
                              const void *A, const void *B, void *out, int sum_into, cudaStream_t stream) {
  int blocks_per_sm = 0, sms = 0;
  const cudaError_t err =
      hc_cuda_occupancy_get(reinterpret_cast<const void *>(kernel), threads, smem, &blocks_per_sm, &sms);
  if (err != cudaSuccess) return err;
  const int64_t resident = (int64_t)sms * blocks_per_sm;
  const unsigned grid = (unsigned)(ntiles < resident ? (ntiles > 0 ? ntiles : 1) : resident);
  kernel<<<grid, threads, smem, stream>>>(s, static_cast<const T *>(A), static_cast<const T *>(B),
                                          static_cast<T *>(out), sum_into);
  return cudaGetLastError();
}

// Launches cell_gemm on a persistent grid; the copy width is 16 bytes when every row of A and B starts 16-byte
// aligned, else one scalar.
template <class Math, int BM, int BN, int BK, int STAGES, int MINB>
cudaError_t launch(const hc_cuda_shape &s, const void *A, const void *B, void *out, int sum_into, cudaStream_t stream) {
  using T = typename Math::T;
  constexpr int V16 = 16 / sizeof(T);
  constexpr size_t smem = smem_bytes<Math, BM, BN, BK, STAGES>();
  const bool wide =
      s.K % V16 == 0 && (reinterpret_cast<uintptr_t>(A) % 16) == 0 && (reinterpret_cast<uintptr_t>(B) % 16) == 0;
  auto kernel = wide ? cell_gemm<Math, BM, BN, BK, STAGES, V16, MINB> : cell_gemm<Math, BM, BN, BK, STAGES, 1, MINB>;
  const int64_t ntiles = s.C * ((s.L + BM - 1) / BM) * ((s.R + BN - 1) / BN);
  return launch_persistent<T>(kernel, Math::kThreads, smem, ntiles, s, A, B, out, sum_into, stream);
}

// Cell-minor. Entry q of cell c is at q * C + c, so a cell's matrices are spread C entries apart and only
// neighbouring cells share a memory sector (32 bytes: 4 doubles or 8 floats). A block therefore owns a group
// of G = 32 / sizeof(T) neighbouring cells and the same BM x BN output tile of each: every K-step copies the
// G cells' rows into G slices of shared memory (the G entries of one row and q are one sector, copied by
// neighbouring threads), and G thread groups of Math::kThreads multiply one slice each exactly as cell_gemm
// does for one cell. Consecutive blocks take the tiles of one group, so the group's rows that several tiles
// read are in L2 when the next tile asks. So that the stores to out[e * C + c] are whole sectors too, a finished
// tile goes through shared memory, cell fastest (`tensorcore`'s cell-minor FieldField: an mma is one warp's, so a
// warp is one cell's).
template <typename T>
__host__ __device__ constexpr int minor_group() {
  return 32 / (int)sizeof(T);
}

// Scalars of shared memory per cell slice of ROWS rows: 16 bytes of padding between slices, so that the
// G cells' copies of one row and q fall in different banks, and every slice stays 16-byte aligned.
template <typename T, int ROWS, int LD>
__host__ __device__ constexpr int minor_slice() {
  return ROWS * LD + 16 / (int)sizeof(T);
}

// Copies rows [row0, row0 + ROWS) of the (rows x K) matrices of the G cells of a group, one K-step of BK
// entries at a time, into dst[G][SLICE] (row r, entry kq of cell g at dst[g * SLICE + r * LD + kq]); cells past
// ncell, rows past `rows` and entries past K are zero-filled, never read. Thread tid always copies cell
// g = tid % G, entry kq = tid / G % BK, rows rt + n * RSTEP (rt = tid / (G * BK), n < ROWS / RSTEP), so its
// addresses are one pointer that a tile sets and each K-step moves on by BK * C, plus multiples of one stride:
// no index arithmetic per entry.
template <typename T, int G, int ROWS, int BK, int LD, int SLICE, int NT>
struct minor_loader {
  static constexpr int RSTEP = NT / (G * BK), N = ROWS / RSTEP;
  static_assert(NT % (G * BK) == 0 && ROWS % RSTEP == 0, "the threads tile the K-step's rows evenly");
  const T *src;     // the array (a valid address for zero-fills)
  const T *p;       // entry (row0 + rt, k0 + kq) of cell c0 + g
  int64_t stride;   // RSTEP rows
  int64_t step;     // BK entries: BK * C
  int64_t k;        // k0 + kq
  int dst0, nrows;  // where row rt of the thread's cell goes; how many of its N rows exist
  bool cell;        // its cell exists

  __device__ __forceinline__ void tile(const T *array, int64_t c0, int ncell, int row0, int rows, int64_t K, int64_t C,
                                       int tid) {
    const int g = tid % G, kq = tid / G % BK, rt = tid / (G * BK);
    src = array;
    stride = (int64_t)RSTEP * K * C;
    step = (int64_t)BK * C;
    k = kq;
    dst0 = g * SLICE + rt * LD + kq;
    const int left = rows - row0 - rt;  // rows of this thread's sequence that exist: ceil(left / RSTEP)
    nrows = left <= 0 ? 0 : (left + RSTEP - 1) / RSTEP;
    cell = g < ncell;
    p = array + ((int64_t)(row0 + rt) * K + kq) * C + c0 + g;
  }

  // The next K-step into dst (one stage's [G][SLICE]).
  __device__ __forceinline__ void copy(T *dst, int64_t K) {
    const bool in = cell && k < K;
    const T *q = p;
#pragma unroll
    for (int n = 0; n < N; n++, q += stride) {
      const bool full = in && n < nrows;
      copy_async<sizeof(T)>(dst + dst0 + n * RSTEP * LD, full ? q : src, full);
    }
    p += step;
    k += BK;
  }
};

// Where one tile of a cell-minor block's sequence lies: its group's first cell and cell count, its first row
// and column.
struct minor_tile {
  int64_t c0;
  int ncell, l0, r0;
  __device__ __forceinline__ minor_tile(const hc_cuda_shape &s, int64_t w, int BM, int BN, int G) {
    const int64_t tl = (s.L + BM - 1) / BM, tr = (s.R + BN - 1) / BN, group = w / (tl * tr);
    const int64_t lr = w - group * tl * tr;
    l0 = (int)(lr / tr) * BM;
    r0 = (int)(lr % tr) * BN;
    c0 = group * G;
    ncell = (int)(s.C - c0 < G ? s.C - c0 : G);
  }
};

// The cell-minor kernel: cell_gemm's pipeline over the tiles of groups of G cells (see above).
template <class Math, int BM, int BN, int BK, int STAGES, int MINB>
__global__ void __launch_bounds__(Math::kThreads *minor_group<typename Math::T>(), MINB)
    cell_gemm_minor(hc_cuda_shape s, const typename Math::T *__restrict__ A, const typename Math::T *__restrict__ B,
                    typename Math::T *__restrict__ out, int sum_into) {
  using T = typename Math::T;
  constexpr int G = minor_group<T>(), LD = BK + Math::kPad, NT = Math::kThreads * G;
  constexpr int SA = minor_slice<T, BM, LD>(), SB = minor_slice<T, BN, LD>();
  static_assert(BK % Math::kStepK == 0, "K-steps hold whole mma or FMA steps");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T *As = reinterpret_cast<T *>(smem_raw);  // [STAGES][G][SA]
  T *Bs = As + STAGES * G * SA;             // [STAGES][G][SB]
  T *Os = Bs + STAGES * G * SB;             // [BM * BN][G]: a finished tile

  const int tid = threadIdx.x, g = tid / Math::kThreads, mtid = tid % Math::kThreads;
  const int64_t ntiles = (s.C + G - 1) / G * ((s.L + BM - 1) / BM) * ((s.R + BN - 1) / BN);
  const int nk = (int)((s.K + BK - 1) / BK);
  if ((int64_t)blockIdx.x >= ntiles) return;
  const int64_t mine = (ntiles - 1 - blockIdx.x) / gridDim.x + 1;

  // The load cursor: the tile and K-step that the next copy fills (the loaders hold the addresses).
  int64_t ld_w = blockIdx.x;
  int ld_k = 0;
  minor_loader<T, G, BM, BK, LD, SA, NT> la;
  minor_loader<T, G, BN, BK, LD, SB, NT> lb;
  auto ld_tile = [&]() {
    const minor_tile t(s, ld_w, BM, BN, G);
    la.tile(A, t.c0, t.ncell, t.l0, s.L, s.K, s.C, tid);
    lb.tile(B, t.c0, t.ncell, t.r0, s.R, s.K, s.C, tid);
  };
  ld_tile();
  auto copy = [&](int stage, bool more) {
    la.copy(As + stage * G * SA, s.K);
    lb.copy(Bs + stage * G * SB, s.K);
    if (more && ++ld_k == nk) {
      ld_k = 0;
      ld_w += gridDim.x;
      ld_tile();
    }
  };
  Math math;
  math.zero();
  int64_t w = blockIdx.x;
  pipeline<STAGES>(
      mine * nk, copy,
      [&](int stage) { math.template step<BK, LD>(As + (stage * G + g) * SA, Bs + (stage * G + g) * SB, mtid); }, nk,
      [&]() {
        const minor_tile t(s, w, BM, BN, G);
        // the next write to Os is at least one loop-top barrier away
        math.store(Os + g, BM, BN, 0, 0, 0, mtid, G);
        __syncthreads();
        for (int i = tid; i < BM * BN * G; i += NT) {
          const int cg = i % G, e = i / G, l = t.l0 + e / BN, r = t.r0 + e % BN;
          if (cg < t.ncell && l < s.L && r < s.R)
            hc_store(&out[((int64_t)l * s.R + r) * s.C + t.c0 + cg], Os[i], sum_into);
        }
        math.zero();
        w += gridDim.x;
      });
}

// Launches cell_gemm_minor on a persistent grid, as launch does cell_gemm.
template <class Math, int BM, int BN, int BK, int STAGES, int MINB>
cudaError_t launch_minor(const hc_cuda_shape &s, const void *A, const void *B, void *out, int sum_into,
                         cudaStream_t stream) {
  using T = typename Math::T;
  constexpr int G = minor_group<T>(), LD = BK + Math::kPad, threads = Math::kThreads * G;
  constexpr size_t smem =
      ((size_t)STAGES * G * (minor_slice<T, BM, LD>() + minor_slice<T, BN, LD>()) + (size_t)BM * BN * G) * sizeof(T);
  const int64_t ntiles = (s.C + G - 1) / G * ((s.L + BM - 1) / BM) * ((s.R + BN - 1) / BN);
  return launch_persistent<T>(cell_gemm_minor<Math, BM, BN, BK, STAGES, MINB>, threads, smem, ntiles, s, A, B, out,
                              sum_into, stream);
}

}  // namespace hc_gemm

#endif
