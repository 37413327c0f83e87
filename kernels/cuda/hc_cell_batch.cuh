// The pipelined cell-batch kernel behind `tile` for small cell-major FieldField (L, R <= 8) and for
// cell-major DataField whose field block of one cell is small.
//
// In the cell-major layout a run of consecutive cells is one contiguous span of A (nb L K entries), one
// of B (nb R KB) and one of the output (nb L R). A block copies the spans of a batch of nb cells into
// shared memory with 16-byte cp.async (sm_80+; plain copies on older devices) from the 16-byte boundary
// at or before the span's start, so every copy is aligned and whole whatever K is; the span starts
// `shift` entries into the copy. Copies run STAGES - 1 batches ahead of the arithmetic, on a persistent
// grid. Each output is a dot product over K done by a team of G lanes from shared memory, each lane
// starting at a different offset so that neighbouring teams read different banks; the batch's outputs
// are written as one contiguous run.
#ifndef HC_CELL_BATCH_CUH
#define HC_CELL_BATCH_CUH

#include "kernels/cuda/hc_cell_gemm.cuh"
#include "kernels/cuda/hc_cuda_common.cuh"

namespace hc_batch {

constexpr int kThreads = 256;
constexpr int kStages = 3;

// The batch geometry, fixed per launch.
struct plan {
  int nb;         // cells per batch
  int64_t spanA;  // entries of A per batch: nb L K
  int64_t spanB;  // entries of B per batch: nb R KB
  int64_t ldA;    // shared-memory entries per stage for A and for B (span + 2 V, a multiple of V)
  int64_t ldB;
};

// Copies entries [begin, end) of X (16-byte aligned) into dst, from the 16-byte boundary at or before
// begin; returns where entry `begin` landed in dst.
template <typename T>
__device__ __forceinline__ int copy_span(T *dst, const T *__restrict__ X, int64_t begin, int64_t end, int tid) {
  constexpr int V = 16 / sizeof(T);
  const int shift = (int)(begin % V);
  const int64_t a0 = begin - shift, nchunks = (end - a0 + V - 1) / V;
  for (int64_t i = tid; i < nchunks; i += kThreads) {
    const int64_t e0 = a0 + i * V, valid = end - e0 < V ? end - e0 : V;
    // A partial last chunk copies its valid entries and zero-fills the rest.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst + i * V);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(X + e0),
                 "r"((int)(valid * sizeof(T))));
#else
    for (int j = 0; j < V; j++) dst[i * V + j] = j < valid ? X[e0 + j] : T(0);
#endif
  }
  return shift;
}

template <typename T, int G, bool DF>
__global__ void __launch_bounds__(kThreads) cell_batch(hc_cuda_shape s, plan p, const T *__restrict__ A,
                                                       const T *__restrict__ B, T *__restrict__ out, int sum_into) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T *S = reinterpret_cast<T *>(smem_raw);  // [kStages][ldA + ldB]
  const int tid = threadIdx.x;
  const int64_t nbatch = (s.C + p.nb - 1) / p.nb;
  if ((int64_t)blockIdx.x >= nbatch) return;
  const int64_t mine = (nbatch - 1 - blockIdx.x) / gridDim.x + 1;
  const int64_t LR = (int64_t)s.L * s.R;

  // Where each stage's A and B spans begin in shared memory.
  int shiftA[kStages], shiftB[kStages];
  int64_t ld_b = blockIdx.x, ld_left = mine;
  int ld_stage = 0;
  auto load = [&]() {
    if (ld_left > 0) {
      const int64_t c0 = ld_b * p.nb, c1 = c0 + p.nb < s.C ? c0 + p.nb : s.C;
      T *dA = S + ld_stage * (p.ldA + p.ldB);
      int sa = copy_span(dA, A, c0 * s.innerA, c1 * s.innerA, tid);
      int sb = copy_span(dA + p.ldA, B, c0 * s.innerB, c1 * s.innerB, tid);
#pragma unroll
      for (int i = 0; i < kStages; i++) {
        if (i == ld_stage) shiftA[i] = sa, shiftB[i] = sb;
      }
      ld_stage = ld_stage + 1 == kStages ? 0 : ld_stage + 1;
      ld_b += gridDim.x;
      ld_left--;
    }
    hc_gemm::copy_commit();
  };
#pragma unroll
  for (int n = 0; n < kStages - 1; n++) load();

  const int lane = tid % G;
  int stage = 0;
  for (int64_t n = 0, b = blockIdx.x; n < mine; n++, b += gridDim.x) {
    hc_gemm::copy_wait<kStages - 2>();
    __syncthreads();
    load();
    int sa = 0, sb = 0;
#pragma unroll
    for (int i = 0; i < kStages; i++) {
      if (i == stage) sa = shiftA[i], sb = shiftB[i];
    }
    const T *As = S + stage * (p.ldA + p.ldB) + sa;
    const T *Bs = S + stage * (p.ldA + p.ldB) + p.ldA + sb;
    const int64_t c0 = b * p.nb, nc = c0 + p.nb < s.C ? p.nb : s.C - c0;
    const int nout = (int)(nc * LR);
    // Rounds of kThreads / G outputs; every lane of a warp runs every round (the shuffles need them all).
    for (int e0 = 0; e0 < nout; e0 += kThreads / G) {
      const int e = e0 + tid / G;
      T sum = 0;
      if (e < nout) {
        const int ci = e / (int)LR, lr = e - ci * (int)LR, l = lr / s.R, r = lr - l * s.R;
        const T *a = As + (int64_t)ci * s.innerA + (int64_t)l * s.K;
        const T *bb = Bs + (int64_t)ci * s.innerB + (DF ? 0 : (int64_t)r * s.K);
        // Each team starts at its own offset into K so that neighbouring teams read different banks.
        const int K = (int)s.K;
        int q = (lane + e * G) % K;
        for (int j = lane; j < K; j += G) {
          sum += a[q] * bb[DF ? (int)hc_qb(q, s.Dr, s.constant) : q];
          q += G;
          if (q >= K) q -= K;
        }
      }
#pragma unroll
      for (int off = G / 2; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off, G);
      if (lane == 0 && e < nout) hc_store(&out[c0 * LR + e], sum, sum_into);
    }
    stage = stage + 1 == kStages ? 0 : stage + 1;
  }
  hc_gemm::copy_wait<0>();
}

// Whether the batch kernel takes k's shape: cell-major, and one cell's A and B under a quarter of the
// per-stage budget.
inline bool takes(const hc_cuda_shape &s, size_t elem, const void *A, const void *B) {
  const size_t budget = 12 * 1024;  // bytes of A + B per stage for one cell at most
  return !s.cell_minor && (size_t)(s.innerA + s.innerB) * elem <= budget && s.K < (int64_t(1) << 30) &&
         (reinterpret_cast<uintptr_t>(A) % 16) == 0 && (reinterpret_cast<uintptr_t>(B) % 16) == 0;
}

template <typename T, int G, bool DF>
cudaError_t launch_g(const hc_cuda_shape &s, const plan &p, size_t smem, const T *A, const T *B, T *out, int sum_into,
                     cudaStream_t stream) {
  auto kernel = cell_batch<T, G, DF>;
  constexpr int kMaxDevices = 64;
  static int fit[kMaxDevices];
  static size_t fit_smem[kMaxDevices];
  int device = 0, sms = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  if (device < 0 || device >= kMaxDevices) return cudaErrorInvalidDevice;
  if (fit[device] == 0 || fit_smem[device] != smem) {
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (err == cudaSuccess) err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit[device], kernel, kThreads, smem);
    if (err != cudaSuccess) return err;
    if (fit[device] < 1) return cudaErrorInvalidConfiguration;
    fit_smem[device] = smem;
  }
  err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err != cudaSuccess) return err;
  const int64_t nbatch = (s.C + p.nb - 1) / p.nb, resident = (int64_t)sms * fit[device];
  const unsigned grid = (unsigned)(nbatch < resident ? (nbatch > 0 ? nbatch : 1) : resident);
  kernel<<<grid, kThreads, smem, stream>>>(s, p, A, B, out, sum_into);
  return cudaGetLastError();
}

// Launches the batch kernel (takes(s, ...) must hold): batches of up to 12 KB of A and B, and teams of
// G lanes, the smallest power of two that gives each thread of a batch an output to work on.
template <typename T>
cudaError_t launch(const hc_cuda_shape &s, const void *Av, const void *Bv, void *outv, int sum_into,
                   cudaStream_t stream) {
  constexpr int V = 16 / sizeof(T);
  const int64_t per_cell = s.innerA + s.innerB;
  plan p;
  p.nb = (int)((12 * 1024 / sizeof(T)) / per_cell);
  if (p.nb < 1) p.nb = 1;
  if (p.nb > s.C) p.nb = (int)s.C;
  p.spanA = p.nb * s.innerA;
  p.spanB = p.nb * s.innerB;
  p.ldA = (p.spanA + 2 * V + V - 1) / V * V;
  p.ldB = (p.spanB + 2 * V + V - 1) / V * V;
  const size_t smem = (size_t)kStages * (p.ldA + p.ldB) * sizeof(T);
  const int64_t outs = p.nb * (int64_t)s.L * s.R;
  int G = 1;
  while (G < 32 && outs * G * 2 <= kThreads && G * 2 <= s.K) G *= 2;
  const T *A = static_cast<const T *>(Av), *B = static_cast<const T *>(Bv);
  T *out = static_cast<T *>(outv);
  const bool df = s.family == HC_FAMILY_DATAFIELD;
  switch (G) {
    case 1:
      return df ? launch_g<T, 1, true>(s, p, smem, A, B, out, sum_into, stream)
                : launch_g<T, 1, false>(s, p, smem, A, B, out, sum_into, stream);
    case 2:
      return df ? launch_g<T, 2, true>(s, p, smem, A, B, out, sum_into, stream)
                : launch_g<T, 2, false>(s, p, smem, A, B, out, sum_into, stream);
    case 4:
      return df ? launch_g<T, 4, true>(s, p, smem, A, B, out, sum_into, stream)
                : launch_g<T, 4, false>(s, p, smem, A, B, out, sum_into, stream);
    case 8:
      return df ? launch_g<T, 8, true>(s, p, smem, A, B, out, sum_into, stream)
                : launch_g<T, 8, false>(s, p, smem, A, B, out, sum_into, stream);
    case 16:
      return df ? launch_g<T, 16, true>(s, p, smem, A, B, out, sum_into, stream)
                : launch_g<T, 16, false>(s, p, smem, A, B, out, sum_into, stream);
    default:
      return df ? launch_g<T, 32, true>(s, p, smem, A, B, out, sum_into, stream)
                : launch_g<T, 32, false>(s, p, smem, A, B, out, sum_into, stream);
  }
}

}  // namespace hc_batch

#endif
