// The `tensorcore` algorithm: FieldField in double on the FP64 tensor cores (sm_80+). Per cell the output
// is the small GEMM O(L x R) = A(L x K) B(R x K)^T.
// Cell-major: the pipelined per-cell GEMM of hc_cell_gemm.cuh, with output tiles of 16 x 16 up to
// 128 x 128 (the smallest that holds L x R) staged through shared memory by cp.async and multiplied
// with mma.sync m16n8k8 (sm_90; four m8n8k4 on sm_80).
// Cell-minor: each warp computes a 16 x 16 block of one cell's O as 2 x 2 tiles of m8n8k4, with
// fragments loaded straight from global memory, where neighbouring cells' entries are far apart.
#include "kernels/cuda/hc_cell_gemm.cuh"
#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_context.cuh"
#include "kernels/cuda/hc_cuda_variants.h"

namespace {

// Tuning of the 128 x 128 tiles: warps along L (4: 16 warps of 32 x 32; 2: 8 warps of 64 x 32), the k of
// one mma (8 or 16), and the K-step and depth of the pipeline.
#ifndef HC_TC_WARPS_M
#define HC_TC_WARPS_M 4
#endif
#ifndef HC_TC_KSTEP
#define HC_TC_KSTEP 16
#endif
#ifndef HC_TC_BK
#define HC_TC_BK 32
#endif
#ifndef HC_TC_STAGES
#define HC_TC_STAGES 3
#endif

// Cell-major: the tile configuration for the larger of L and R.
cudaError_t launch_cell_major(const hc_cuda_shape &s, const void *A, const void *B, void *out, int sum_into,
                              cudaStream_t stream) {
  using namespace hc_gemm;
  const int n = s.L > s.R ? s.L : s.R;
  constexpr int KS = HC_TC_KSTEP;
  // K-steps of 32 entries, 3 deep; warp tiles of 16 x 16 (up to 32 rows) or 32 x 16 (up to 64).
  if (n <= 16) return launch<MathDmma<16, 16, 1, 1, KS>, 16, 16, 32, 3, 1>(s, A, B, out, sum_into, stream);
  if (n <= 32) return launch<MathDmma<32, 32, 2, 2, KS>, 32, 32, 32, 3, 1>(s, A, B, out, sum_into, stream);
  using Big = MathDmma<128, 128, HC_TC_WARPS_M, 4, KS>;
  constexpr size_t big_smem = smem_bytes<Big, 128, 128, HC_TC_BK, HC_TC_STAGES>();
  if (n <= 64 || !smem_fits(big_smem)) {
    return launch<MathDmma<64, 64, 2, 4, KS>, 64, 64, 32, 3, 1>(s, A, B, out, sum_into, stream);
  }
  return launch<Big, 128, 128, HC_TC_BK, HC_TC_STAGES, 1>(s, A, B, out, sum_into, stream);
}

constexpr int kWarps = 4;  // warps per block

// D(8x8) += A(8x4, row-major) B(4x8, column-major) in FP64. Lane = 4 g + t holds A[g][t], B[t][g] and
// D[g][2t], D[g][2t+1].
__device__ __forceinline__ void dmma_8x8x4(double &d0, double &d1, double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d0), "+d"(d1)
               : "d"(a), "d"(b));
#else
  __trap();  // never launched: supports() refuses devices and builds older than sm_80
#endif
}

template <bool CellMinor>
__global__ void __launch_bounds__(32 * kWarps)
    contract_tensorcore(hc_cuda_shape s, const double *__restrict__ A, const double *__restrict__ B,
                        double *__restrict__ out, int sum_into) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int64_t tl = (s.L + 15) / 16, tr = (s.R + 15) / 16, nwork = s.C * tl * tr;
  const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  for (int64_t w = warp; w < nwork; w += warps) {
    const int64_t c = w / (tl * tr);
    const int l0 = (int)((w % (tl * tr)) / tr) * 16, r0 = (int)(w % tr) * 16;
    double acc[2][2][2] = {};
    const int la[2] = {l0 + g, l0 + 8 + g}, rb[2] = {r0 + g, r0 + 8 + g};
    for (int64_t k0 = 0; k0 < s.K; k0 += 4) {
      const int64_t q = k0 + t;
      double a[2], b[2];
#pragma unroll
      for (int i = 0; i < 2; i++) {
        a[i] = q < s.K && la[i] < s.L ? A[hc_at<CellMinor>(c, la[i] * s.K + q, s.C, s.innerA)] : 0.0;
        b[i] = q < s.K && rb[i] < s.R ? B[hc_at<CellMinor>(c, rb[i] * s.KB + q, s.C, s.innerB)] : 0.0;
      }
#pragma unroll
      for (int i = 0; i < 2; i++) {
#pragma unroll
        for (int j = 0; j < 2; j++) dmma_8x8x4(acc[i][j][0], acc[i][j][1], a[i], b[j]);
      }
    }
#pragma unroll
    for (int i = 0; i < 2; i++) {
#pragma unroll
      for (int j = 0; j < 2; j++) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
          const int l = la[i], r = r0 + 8 * j + 2 * t + h;
          if (l < s.L && r < s.R) {
            hc_store(&out[hc_at<CellMinor>(c, (int64_t)l * s.R + r, s.C, s.innerO)], acc[i][j][h], sum_into);
          }
        }
      }
    }
  }
}

}  // namespace

extern "C" int hc_supports_cuda_tensorcore(const hc_contract *k) {
  HC_CHECK(hc_kernel_family(k->kernel) == HC_FAMILY_FIELDFIELD, HC_ERR_UNSUPPORTED,
           "variant 'tensorcore' runs the FieldField contractions only (a GEMM per cell); %s is not one",
           hc_kernel_name(k->kernel));
  HC_CHECK(k->precision == HC_DOUBLE, HC_ERR_UNSUPPORTED,
           "variant 'tensorcore' uses the FP64 tensor cores and runs in double only, not %s",
           hc_precision_name(k->precision));
  const cudaDeviceProp *props;
  HC_CALL(hc_cuda_device_props(&props));
  HC_CHECK(props->major >= 8, HC_ERR_UNSUPPORTED,
           "variant 'tensorcore' needs FP64 tensor cores (compute capability 8.0 or newer); device '%s' is %d.%d",
           props->name, props->major, props->minor);
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  int &ptx = ctx->tensorcore_ptx;
  if (ptx < 0) {
    cudaFuncAttributes attr;
    HC_CALL_CUDA(cudaFuncGetAttributes(&attr, contract_tensorcore<true>));
    ptx = attr.ptxVersion;
  }
  HC_CHECK(ptx >= 80, HC_ERR_UNSUPPORTED,
           "variant 'tensorcore' was built for compute capability %d.%d in this binary; rebuild with "
           "CMAKE_CUDA_ARCHITECTURES of 80 or newer",
           ptx / 10, ptx % 10);
  return HC_OK;
}

extern "C" int hc_contract_cuda_tensorcore(const hc_contract *k, const void *d_left, const void *d_right, void *d_out) {
  HC_CALL(hc_supports_cuda_tensorcore(k));
  const hc_cuda_shape s = hc_cuda_shape_of(k);
  if (!s.cell_minor) {
    HC_CALL_CUDA_LAUNCH(launch_cell_major(s, d_left, d_right, d_out, k->sum_into, hc_cuda_stream()), "tensorcore");
    return HC_OK;
  }
  const int64_t nwork = s.C * ((s.L + 15) / 16) * ((s.R + 15) / 16);
  const unsigned grid = hc_cuda_grid((nwork + kWarps - 1) / kWarps);
  const double *A = static_cast<const double *>(d_left), *B = static_cast<const double *>(d_right);
  double *out = static_cast<double *>(d_out);
  contract_tensorcore<true><<<grid, 32 * kWarps, 0, hc_cuda_stream()>>>(s, A, B, out, k->sum_into);
  HC_CALL_CUDA_LAUNCH(cudaGetLastError(), "tensorcore");
  return HC_OK;
}
