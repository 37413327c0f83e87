// The `tensorcore` algorithm: FieldField in double on the FP64 tensor cores (sm_80+). Per cell the output
// is the small GEMM O(L x R) = A(L x K) B(R x K)^T.
// Cell-major with L and R at most 32 (one above 8): hc_warp_gemm.cuh's warp per cell on the tensor cores (a warp
// holds a cell's whole output as tiles of 16 x 8, its rows staged by cp.async in steps of 32 entries, each step
// two mma.sync m16n8k16 per tile). Other cell-major shapes: the pipelined per-cell GEMM of
// hc_cell_gemm.cuh, with output tiles of 16 x 16 up to 128 x 128 (the smallest that holds L x R) staged through
// shared memory by cp.async and multiplied with mma.sync m16n8k8 (sm_90; four m8n8k4 on sm_80).
// Cell-minor: the cell-minor GEMM of the same header, which stages groups of neighbouring cells (whose
// entries share memory sectors) through shared memory, with output tiles of 16 x 16 or 32 x 32.
#include "kernels/cuda/hc_cell_gemm.cuh"
#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_context.cuh"
#include "kernels/cuda/hc_cuda_variants.h"
#include "kernels/cuda/hc_warp_gemm.cuh"

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
  // K-steps of 32 entries, 3 deep; warp tiles of 16 x 16 (up to 32 rows) or 32 x 16 (up to 64), the 64 x 64 tiles
  // two deep (three blocks per SM: on an H200 at (64,64) double 83 / 93 / 89% of the roofline for Scalar / Vector /
  // Tensor, three deep 80-81 / 89-90 / 88-91%, four deep or K-steps of 16 or 64 1-6 points below, 4 warps of 32 x 32
  // or 8 of 16 x 32 within 1-3 points).
  if (n <= 16) return launch<MathDmma<16, 16, 1, 1, KS>, 16, 16, 32, 3, 1>(s, A, B, out, sum_into, stream);
  if (n <= 32) return launch<MathDmma<32, 32, 2, 2, KS>, 32, 32, 32, 3, 1>(s, A, B, out, sum_into, stream);
  using Big = MathDmma<128, 128, HC_TC_WARPS_M, 4, KS>;
  constexpr size_t big_smem = smem_bytes<Big, 128, 128, HC_TC_BK, HC_TC_STAGES>();
  if (n <= 64 || !smem_fits(big_smem)) {
    return launch<MathDmma<64, 64, 2, 4, KS>, 64, 64, 32, 2, 1>(s, A, B, out, sum_into, stream);
  }
  return launch<Big, 128, 128, HC_TC_BK, HC_TC_STAGES, 1>(s, A, B, out, sum_into, stream);
}

// Cell-major with L and R at most 32: hc_warp_gemm.cuh's warp per cell with MMA, tiles of 16 x 8 for L (MT of
// them) and R (NT), K-steps of 32 entries two deep; four warps per block (124 KB of shared memory per block at
// L = R = 27: one block per SM) where a cell is one step, else two (three blocks per SM). Measured on an H200,
// 2026-11-28, (27,27) double in % of the roofline (Scalar / Vector / Tensor), the results staged for coalesced
// stores: four warps two deep 95-96 / 86 / 86%, two warps 93 / 89 / 88%, three warps 92 / 87 / 84%, four warps three
// deep 95 / 88 / 85%, three warps three deep 78 / 78 / 83%, two warps four deep 55-58%. Before the staged stores:
// steps of 16 four deep (one block per SM) 80 / 75 / 76%, two or three deep with 2-4 warps per block 64 / 55-57 /
// 55-58%, 2 x 8 or 3 x 6 warps per block 29-40%.
constexpr int kWarpBK = 32, kWarpStages = 2, kWarpsLongK = 2;
template <int MT, int WARPS>
cudaError_t launch_warp_mma_w(const hc_cuda_shape &s, const double *A, const double *B, double *out, int sum_into) {
  using hc_wgemm::launch;
  return (s.R + 7) / 8 <= 2 ? launch<double, MT, 2, kWarpBK, kWarpStages, true, WARPS>(s, A, B, out, sum_into)
                            : launch<double, MT, 4, kWarpBK, kWarpStages, true, WARPS>(s, A, B, out, sum_into);
}
template <int MT>
cudaError_t launch_warp_mma_mt(const hc_cuda_shape &s, const double *A, const double *B, double *out, int sum_into) {
  return s.K <= kWarpBK ? launch_warp_mma_w<MT, hc_wgemm::kWarps>(s, A, B, out, sum_into)  // one step per cell
                        : launch_warp_mma_w<MT, kWarpsLongK>(s, A, B, out, sum_into);
}

// Whether the warp per cell with MMA takes a cell-major shape: hc_wgemm::takes, within the device's shared memory
// per block (up to 147 KB at L = R = 32; GPUs with 99 KB per block take the block tiles of launch_cell_major).
bool warp_mma_takes(const hc_cuda_shape &s, const void *A, const void *B) {
  return hc_wgemm::takes(s, A, B) &&
         hc_gemm::smem_fits(hc_wgemm::smem_bytes<double, kWarpBK, kWarpStages, hc_wgemm::kWarps, true>(s));
}
cudaError_t launch_warp_mma(const hc_cuda_shape &s, const void *A, const void *B, void *out, int sum_into) {
  const double *a = static_cast<const double *>(A), *b = static_cast<const double *>(B);
  double *o = static_cast<double *>(out);
  return s.L <= 16 ? launch_warp_mma_mt<1>(s, a, b, o, sum_into) : launch_warp_mma_mt<2>(s, a, b, o, sum_into);
}

// Cell-minor: hc_cell_gemm.cuh's cell-minor GEMM (groups of 4 neighbouring cells, whose entries share memory
// sectors), with output tiles of 16 x 16 (up to 16 rows) or 32 x 32, m16n8k8, K-steps of HC_TC_MINOR_BK
// entries HC_TC_MINOR_STAGES deep (build-time tuning macros).
#ifndef HC_TC_MINOR_BK
#define HC_TC_MINOR_BK 16
#endif
#ifndef HC_TC_MINOR_STAGES
#define HC_TC_MINOR_STAGES 3
#endif
#ifndef HC_TC_MINOR_WM
#define HC_TC_MINOR_WM 2
#endif
#ifndef HC_TC_MINOR_WN
#define HC_TC_MINOR_WN 2
#endif
cudaError_t launch_cell_minor(const hc_cuda_shape &s, const void *A, const void *B, void *out, int sum_into,
                              cudaStream_t stream) {
  using namespace hc_gemm;
  constexpr int BK = HC_TC_MINOR_BK, ST = HC_TC_MINOR_STAGES;
  const int n = s.L > s.R ? s.L : s.R;
  if (n <= 16) return launch_minor<MathDmma<16, 16, 1, 1, 8>, 16, 16, BK, ST, 1>(s, A, B, out, sum_into, stream);
  return launch_minor<MathDmma<32, 32, HC_TC_MINOR_WM, HC_TC_MINOR_WN, 8>, 32, 32, BK, ST, 1>(s, A, B, out, sum_into,
                                                                                              stream);
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
    HC_CALL_CUDA(cudaFuncGetAttributes(
        &attr,
        hc_gemm::cell_gemm_minor<hc_gemm::MathDmma<16, 16, 1, 1, 8>, 16, 16, HC_TC_MINOR_BK, HC_TC_MINOR_STAGES, 1>));
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
  HC_CALL_CUDA_LAUNCH(s.cell_minor ? launch_cell_minor(s, d_left, d_right, d_out, k->sum_into, hc_cuda_stream())
                      : warp_mma_takes(s, d_left, d_right)
                          ? launch_warp_mma(s, d_left, d_right, d_out, k->sum_into)
                          : launch_cell_major(s, d_left, d_right, d_out, k->sum_into, hc_cuda_stream()),
                      "tensorcore");
  return HC_OK;
}
