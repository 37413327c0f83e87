// The `cublas` variant: the contractions as cuBLAS strided-batched calls on the same arrays, the vendor
// reference. cuBLAS is column-major, so a row-major (cell-major) M x N matrix is its N x M transpose:
//   FieldField  O_c(L x R) = A_c(L x K) B_c(R x K)^T, i.e. O_c^T = B_c A_c^T:
//               gemm(T, N, m = R, n = L, k = K, B_c (lda K), A_c (ldb K), O_c (ldc R)), one per cell;
//   DataField   out_c(L) = F_c(L x K) d_c(K): gemv(T, m = K, n = L, F_c (lda K), d_c), one per cell;
//   DataData    out_c = a_c . b_c: gemm(T, N, m = n = 1, k = K), one per cell.
// sum_into is beta = 1. The cell-minor layout and data constant over points (P_data = 1) have no
// unit-stride batched form and are unsupported.
#include <cublas_v2.h>

#include <climits>
#include <mutex>

#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_context.cuh"
#include "kernels/cuda/hc_cuda_variants.h"

#define HC_CALL_CUBLAS(expr)                                                                          \
  do {                                                                                                \
    cublasStatus_t hc_cublas_st_ = (expr);                                                            \
    if (hc_cublas_st_ != CUBLAS_STATUS_SUCCESS)                                                       \
      return HC_ERROR(hc_cublas_st_ == CUBLAS_STATUS_ALLOC_FAILED ? HC_ERR_RESOURCE : HC_ERR_RUNTIME, \
                      "cuBLAS error in %s: %s (%s)", #expr, cublasGetStatusString(hc_cublas_st_),     \
                      cublasGetStatusName(hc_cublas_st_));                                            \
  } while (0)

namespace {

// The backend's cuBLAS handle, created at the first call and kept in the backend's context.
int cublas_handle(cublasHandle_t *handle) {
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  std::lock_guard<std::mutex> guard(ctx->cublas_lock);
  if (!ctx->cublas) HC_CALL_CUBLAS(cublasCreate(&ctx->cublas));
  HC_CALL_CUBLAS(cublasSetStream(ctx->cublas, ctx->stream));
  *handle = ctx->cublas;
  return HC_OK;
}

cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                    const double *alpha, const double *A, int lda, long long sa, const double *B, int ldb, long long sb,
                    const double *beta, double *C, int ldc, long long sc, int batch) {
  return cublasDgemmStridedBatched(h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch);
}
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                    const float *alpha, const float *A, int lda, long long sa, const float *B, int ldb, long long sb,
                    const float *beta, float *C, int ldc, long long sc, int batch) {
  return cublasSgemmStridedBatched(h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch);
}
cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t ta, int m, int n, const double *alpha, const double *A, int lda,
                    long long sa, const double *x, long long sx, const double *beta, double *y, long long sy,
                    int batch) {
  return cublasDgemvStridedBatched(h, ta, m, n, alpha, A, lda, sa, x, 1, sx, beta, y, 1, sy, batch);
}
cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t ta, int m, int n, const float *alpha, const float *A, int lda,
                    long long sa, const float *x, long long sx, const float *beta, float *y, long long sy, int batch) {
  return cublasSgemvStridedBatched(h, ta, m, n, alpha, A, lda, sa, x, 1, sx, beta, y, 1, sy, batch);
}

// Runs k on cells [0, C) in batches that fit cuBLAS's int batch count.
template <typename T>
int run_cublas(cublasHandle_t h, const hc_contract *k, const T *A, const T *B, T *out) {
  const hc_cuda_shape s = hc_cuda_shape_of(k);
  const T one = 1, zero = 0, *beta = k->sum_into ? &one : &zero;
  const int K = (int)s.K;
  for (int64_t c0 = 0; c0 < s.C; c0 += INT_MAX) {
    const int batch = (int)(s.C - c0 < INT_MAX ? s.C - c0 : INT_MAX);
    const T *Ac = A + c0 * s.innerA, *Bc = B + c0 * s.innerB;
    T *Oc = out + c0 * s.innerO;
    if (s.family == HC_FAMILY_FIELDFIELD) {
      HC_CALL_CUBLAS(gemm(h, CUBLAS_OP_T, CUBLAS_OP_N, s.R, s.L, K, &one, Bc, K, s.innerB, Ac, K, s.innerA, beta, Oc,
                          s.R, s.innerO, batch));
    } else if (s.family == HC_FAMILY_DATAFIELD) {
      HC_CALL_CUBLAS(gemv(h, CUBLAS_OP_T, K, s.L, &one, Ac, K, s.innerA, Bc, s.innerB, beta, Oc, s.innerO, batch));
    } else {
      HC_CALL_CUBLAS(gemm(h, CUBLAS_OP_T, CUBLAS_OP_N, 1, 1, K, &one, Ac, K, s.innerA, Bc, K, s.innerB, beta, Oc, 1,
                          s.innerO, batch));
    }
  }
  return HC_OK;
}

}  // namespace

extern "C" int hc_supports_cuda_cublas(const hc_contract *k) {
  HC_CHECK(k->layout == HC_LAYOUT_CELL_MAJOR, HC_ERR_UNSUPPORTED,
           "variant 'cublas' needs the cell-major layout: in the cell-minor layout a cell's matrix has stride C "
           "between neighbouring entries, which a strided-batched cuBLAS call cannot express (use cell-major)");
  HC_CHECK(!(hc_kernel_family(k->kernel) == HC_FAMILY_DATAFIELD && k->P_data == 1 && k->P > 1), HC_ERR_UNSUPPORTED,
           "variant 'cublas' cannot run %s with data constant over the points (P_data = 1, P = %d): reusing the "
           "data at every point is no single strided-batched GEMV (use flat, team, slice or tile)",
           hc_kernel_name(k->kernel), k->P);
  const int64_t K = hc_contract_K(k);
  HC_CHECK(K <= INT_MAX, HC_ERR_UNSUPPORTED,
           "variant 'cublas' cannot run %s with K = %lld: its sizes pass cuBLAS's int range", hc_kernel_name(k->kernel),
           (long long)K);
  return HC_OK;
}

extern "C" int hc_contract_cuda_cublas(const hc_contract *k, const void *d_left, const void *d_right, void *d_out) {
  HC_CALL(hc_supports_cuda_cublas(k));
  cublasHandle_t h;
  HC_CALL(cublas_handle(&h));
  if (k->precision == HC_FLOAT) {
    return run_cublas(h, k, static_cast<const float *>(d_left), static_cast<const float *>(d_right),
                      static_cast<float *>(d_out));
  }
  return run_cublas(h, k, static_cast<const double *>(d_left), static_cast<const double *>(d_right),
                    static_cast<double *>(d_out));
}
