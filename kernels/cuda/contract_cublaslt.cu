// The `cublaslt` variant: the contractions as one cuBLASLt strided-batched matmul per call, with the algorithm
// that cuBLASLt's heuristic ranks first for the shape, chosen once per shape, precision and alignment and cached
// with the workspace it needs in the backend's context (hc_cuda_context.cuh): the second vendor reference beside
// `cublas`, with the same mappings. cuBLASLt is column-major (CUBLASLT_ORDER_COL), so a row-major (cell-major) M x N
// matrix is its N x M transpose; every call is D_c = op(A_c) op(B_c) with A_c stored K x m (ld K, transposed), B_c
// stored K x n (ld K), D_c m x n (ld m), batched over the cells with each array's entries per cell as its batch stride:
//   FieldField  O_c^T (R x L) = B_c A_c^T: m = R, n = L, k = K, A = the right fields B_c, B = the left fields A_c;
//   DataField   out_c (L x 1) = F_c d_c:   m = L, n = 1, k = K, A = the fields F_c, B = the data d_c (a GEMV);
//   DataData    out_c (1 x 1) = a_c . b_c: m = n = 1, k = K, A = a_c, B = b_c.
// Double computes in FP64 (CUBLAS_COMPUTE_64F), float in true FP32 (CUBLAS_COMPUTE_32F, never TF32). sum_into is
// beta = 1 with C = D. As for `cublas`, the cell-minor layout and data constant over points (P_data = 1) have no
// unit-stride batched form and are unsupported.
#include <cublasLt.h>

#include <climits>
#include <cstdint>
#include <mutex>

#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_context.cuh"
#include "kernels/cuda/hc_cuda_variants.h"

#define HC_CUBLASLT_ERROR(st, expr)                                                                                \
  HC_ERROR((st) == CUBLAS_STATUS_ALLOC_FAILED ? HC_ERR_RESOURCE : HC_ERR_RUNTIME, "cuBLASLt error in %s: %s (%s)", \
           expr, cublasLtGetStatusString(st), cublasLtGetStatusName(st))

#define HC_CALL_CUBLASLT(expr)                                                                      \
  do {                                                                                              \
    cublasStatus_t hc_cublaslt_st_ = (expr);                                                        \
    if (hc_cublaslt_st_ != CUBLAS_STATUS_SUCCESS) return HC_CUBLASLT_ERROR(hc_cublaslt_st_, #expr); \
  } while (0)

// The same for functions that release resources through one cleanup label (`int ierr` in scope).
#define HC_CALL_CUBLASLT_GOTO(expr, label)              \
  do {                                                  \
    cublasStatus_t hc_cublaslt_st_ = (expr);            \
    if (hc_cublaslt_st_ != CUBLAS_STATUS_SUCCESS) {     \
      ierr = HC_CUBLASLT_ERROR(hc_cublaslt_st_, #expr); \
      goto label;                                       \
    }                                                   \
  } while (0)

namespace {

// The most workspace an algorithm may ask for (NVIDIA's recommendation for Hopper); most of these shapes need none.
constexpr uint64_t kMaxWorkspace = uint64_t(32) << 20;

bool same_key(const hc_cuda_lt_key &a, const hc_cuda_lt_key &b) {
  return a.precision == b.precision && a.m == b.m && a.n == b.n && a.k == b.k && a.batch == b.batch &&
         a.stride_a == b.stride_a && a.stride_b == b.stride_b && a.stride_d == b.stride_d && a.align_a == b.align_a &&
         a.align_b == b.align_b && a.align_d == b.align_d;
}

// A column-major rows x cols matrix with leading dimension ld, batch matrices stride elements apart.
cublasStatus_t layout_create(cublasLtMatrixLayout_t *layout, cudaDataType_t type, int rows, int cols, int64_t ld,
                             int batch, int64_t stride) {
  const int32_t order = CUBLASLT_ORDER_COL;
  cublasStatus_t st = cublasLtMatrixLayoutCreate(layout, type, (uint64_t)rows, (uint64_t)cols, ld);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof(order));
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch));
  if (st == CUBLAS_STATUS_SUCCESS)
    st =
        cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride));
  return st;
}

// Builds the plan of key: its descriptors, then the heuristic's best algorithm within kMaxWorkspace for operands
// of the key's alignments. No algorithm for the shape is HC_ERR_UNSUPPORTED.
int plan_create(cublasLtHandle_t handle, const hc_cuda_lt_key *key, hc_cuda_lt_plan *p) {
  int ierr = HC_OK, found = 0;
  const cudaDataType_t type = key->precision == HC_FLOAT ? CUDA_R_32F : CUDA_R_64F;
  const cublasComputeType_t compute = key->precision == HC_FLOAT ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_64F;
  const int32_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  const uint64_t max_workspace = kMaxWorkspace;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulHeuristicResult_t result = {};
  cublasStatus_t st;
  *p = hc_cuda_lt_plan{};
  p->key = *key;
  HC_CALL_CUBLASLT_GOTO(cublasLtMatmulDescCreate(&p->op, compute, type), fail);
  HC_CALL_CUBLASLT_GOTO(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)), fail);
  HC_CALL_CUBLASLT_GOTO(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)), fail);
  HC_CALL_CUBLASLT_GOTO(layout_create(&p->a, type, key->k, key->m, key->k, key->batch, key->stride_a), fail);
  HC_CALL_CUBLASLT_GOTO(layout_create(&p->b, type, key->k, key->n, key->k, key->batch, key->stride_b), fail);
  HC_CALL_CUBLASLT_GOTO(layout_create(&p->d, type, key->m, key->n, key->m, key->batch, key->stride_d), fail);
  HC_CALL_CUBLASLT_GOTO(cublasLtMatmulPreferenceCreate(&pref), fail);
  HC_CALL_CUBLASLT_GOTO(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                             &max_workspace, sizeof(max_workspace)),
                        fail);
  HC_CALL_CUBLASLT_GOTO(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                                                             &key->align_a, sizeof(key->align_a)),
                        fail);
  HC_CALL_CUBLASLT_GOTO(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                                                             &key->align_b, sizeof(key->align_b)),
                        fail);
  HC_CALL_CUBLASLT_GOTO(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                                                             &key->align_d, sizeof(key->align_d)),
                        fail);
  HC_CALL_CUBLASLT_GOTO(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
                                                             &key->align_d, sizeof(key->align_d)),
                        fail);
  st = cublasLtMatmulAlgoGetHeuristic(handle, p->op, p->a, p->b, p->d, p->d, pref, 1, &result, &found);
  if (st == CUBLAS_STATUS_SUCCESS && found > 0) st = result.state;
  HC_CHECK_GOTO(
      st != CUBLAS_STATUS_NOT_SUPPORTED && (st != CUBLAS_STATUS_SUCCESS || found > 0), HC_ERR_UNSUPPORTED, fail,
      "variant 'cublaslt': cuBLASLt's heuristic has no %s algorithm for m = %d, n = %d, k = %d in a batch of "
      "%d with operands aligned to %u, %u and %u bytes (use cublas or one of our own variants)",
      hc_precision_name(key->precision), key->m, key->n, key->k, key->batch, key->align_a, key->align_b, key->align_d);
  if (st != CUBLAS_STATUS_SUCCESS) {
    ierr = HC_CUBLASLT_ERROR(st, "cublasLtMatmulAlgoGetHeuristic");
    goto fail;
  }
  p->algo = result.algo;
  p->workspace = result.workspaceSize;
  cublasLtMatmulPreferenceDestroy(pref);
  return HC_OK;
fail:
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  hc_cuda_lt_plan_destroy(p);
  return ierr;
}

// The context's cached plan of key, or a new one in place of the oldest. Call with ctx->cublaslt_lock held.
int plan_get(hc_cuda_context *ctx, const hc_cuda_lt_key *key, hc_cuda_lt_plan **plan) {
  for (int i = 0; i < ctx->lt_plan_count; i++) {
    if (same_key(ctx->lt_plans[i].key, *key)) {
      *plan = &ctx->lt_plans[i];
      return HC_OK;
    }
  }
  hc_cuda_lt_plan *p = &ctx->lt_plans[ctx->lt_plan_next];
  if (ctx->lt_plan_count == hc_cuda_context::kLtPlans) hc_cuda_lt_plan_destroy(p);
  HC_CALL(plan_create(ctx->cublaslt, key, p));
  ctx->lt_plan_next = (ctx->lt_plan_next + 1) % hc_cuda_context::kLtPlans;
  if (ctx->lt_plan_count < hc_cuda_context::kLtPlans) ctx->lt_plan_count++;
  *plan = p;
  return HC_OK;
}

// At least bytes of workspace on the context's device (nullptr for 0). A larger one replaces the old, whose
// cudaFree waits for the work that still uses it. Call with ctx->cublaslt_lock held.
int workspace_get(hc_cuda_context *ctx, size_t bytes, void **ws) {
  *ws = nullptr;
  if (bytes == 0) return HC_OK;
  if (ctx->lt_workspace_bytes < bytes) {
    if (ctx->lt_workspace) HC_CALL_CUDA(cudaFree(ctx->lt_workspace));
    ctx->lt_workspace = nullptr;
    ctx->lt_workspace_bytes = 0;
    cudaError_t err = cudaMalloc(&ctx->lt_workspace, bytes);
    if (err != cudaSuccess) {
      cudaGetLastError();
      ctx->lt_workspace = nullptr;
      return HC_ERROR(err == cudaErrorMemoryAllocation ? HC_ERR_RESOURCE : HC_ERR_RUNTIME,
                      "variant 'cublaslt': cannot allocate the %zu bytes of workspace its algorithm needs: %s", bytes,
                      cudaGetErrorString(err));
    }
    ctx->lt_workspace_bytes = bytes;
  }
  *ws = ctx->lt_workspace;
  return HC_OK;
}

// The largest power of two, at most 256, that divides the address of every matrix of a batch: the first one's,
// p, and the batch stride's bytes past it.
uint32_t batch_alignment(const void *p, int64_t stride_bytes, int batch) {
  uint64_t x = (uint64_t)(uintptr_t)p | 256u;
  if (batch > 1) x |= (uint64_t)stride_bytes;
  return (uint32_t)(x & (~x + 1));
}

// Runs k on cells [0, C) in batches that fit cuBLASLt's int32 batch count, one matmul each.
template <typename T>
int run_cublaslt(const hc_contract *k, const T *A, const T *B, T *out) {
  const hc_cuda_shape s = hc_cuda_shape_of(k);
  const T one = 1, zero = 0, *beta = k->sum_into ? &one : &zero;
  const bool ff = s.family == HC_FAMILY_FIELDFIELD;
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  std::lock_guard<std::mutex> guard(ctx->cublaslt_lock);
  if (!ctx->cublaslt) HC_CALL_CUBLASLT(cublasLtCreate(&ctx->cublaslt));
  for (int64_t c0 = 0; c0 < s.C; c0 += INT_MAX) {
    const int batch = (int)(s.C - c0 < INT_MAX ? s.C - c0 : INT_MAX);
    const T *Ac = A + c0 * s.innerA, *Bc = B + c0 * s.innerB;
    T *Oc = out + c0 * s.innerO;
    // cuBLASLt's operands: FieldField multiplies the right fields by the left ones, the others the left by the right.
    const T *op_a = ff ? Bc : Ac, *op_b = ff ? Ac : Bc;
    hc_cuda_lt_key key = {};
    key.precision = k->precision;
    key.m = ff ? s.R : s.L;
    key.n = ff ? s.L : 1;
    key.k = (int)s.K;
    key.batch = batch;
    key.stride_a = ff ? s.innerB : s.innerA;
    key.stride_b = ff ? s.innerA : s.innerB;
    key.stride_d = s.innerO;
    key.align_a = batch_alignment(op_a, key.stride_a * (int64_t)sizeof(T), batch);
    key.align_b = batch_alignment(op_b, key.stride_b * (int64_t)sizeof(T), batch);
    key.align_d = batch_alignment(Oc, key.stride_d * (int64_t)sizeof(T), batch);
    hc_cuda_lt_plan *p;
    void *ws;
    HC_CALL(plan_get(ctx, &key, &p));
    HC_CALL(workspace_get(ctx, p->workspace, &ws));
    HC_CALL_CUBLASLT(cublasLtMatmul(ctx->cublaslt, p->op, &one, op_a, p->a, op_b, p->b, beta, Oc, p->d, Oc, p->d,
                                    &p->algo, ws, p->workspace, ctx->stream));
  }
  return HC_OK;
}

}  // namespace

extern "C" int hc_supports_cuda_cublaslt(const hc_contract *k) {
  HC_CHECK(k->layout == HC_LAYOUT_CELL_MAJOR, HC_ERR_UNSUPPORTED,
           "variant 'cublaslt' needs the cell-major layout: in the cell-minor layout a cell's matrix has stride C "
           "between neighbouring entries, which a strided-batched cuBLASLt layout cannot express (use cell-major)");
  HC_CHECK(!(hc_kernel_family(k->kernel) == HC_FAMILY_DATAFIELD && k->P_data == 1 && k->P > 1), HC_ERR_UNSUPPORTED,
           "variant 'cublaslt' cannot run %s with data constant over the points (P_data = 1, P = %d): reusing the "
           "data at every point is no single strided-batched matmul (use flat, team, slice or tile)",
           hc_kernel_name(k->kernel), k->P);
  const int64_t K = hc_contract_K(k);
  HC_CHECK(K <= INT_MAX, HC_ERR_UNSUPPORTED,
           "variant 'cublaslt' cannot run %s with K = %lld: its sizes pass cuBLASLt's int range",
           hc_kernel_name(k->kernel), (long long)K);
  return HC_OK;
}

extern "C" int hc_contract_cuda_cublaslt(const hc_contract *k, const void *d_left, const void *d_right, void *d_out) {
  HC_CALL(hc_supports_cuda_cublaslt(k));
  if (k->precision == HC_FLOAT) {
    return run_cublaslt(k, static_cast<const float *>(d_left), static_cast<const float *>(d_right),
                        static_cast<float *>(d_out));
  }
  return run_cublaslt(k, static_cast<const double *>(d_left), static_cast<const double *>(d_right),
                      static_cast<double *>(d_out));
}
