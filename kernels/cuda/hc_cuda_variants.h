/* The CUDA backend's variants: one supports/launch pair per algorithm, C-callable, used by the
   dispatcher in contract_cuda.cu. Each launcher runs on the backend's stream, takes device pointers in
   k->layout and returns an HC error code; each supports() says HC_OK or HC_ERR_UNSUPPORTED with why. */
#ifndef HC_CUDA_VARIANTS_H
#define HC_CUDA_VARIANTS_H

#include "kernels/hc_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* flat: one thread per output entry (contract_flat.cu). */
int hc_supports_cuda_flat(const hc_contract *k);
int hc_contract_cuda_flat(const hc_contract *k, const void *d_left, const void *d_right, void *d_out);

/* team: a warp, or a sub-warp group when K is short, per output entry (contract_team.cu). */
int hc_supports_cuda_team(const hc_contract *k);
int hc_contract_cuda_team(const hc_contract *k, const void *d_left, const void *d_right, void *d_out);

/* slice and adaptive: one (or several) shared-memory slices per block (contract_slice.cu). */
int hc_supports_cuda_slice(const hc_contract *k);
int hc_contract_cuda_slice(const hc_contract *k, const void *d_left, const void *d_right, void *d_out);
int hc_supports_cuda_adaptive(const hc_contract *k);
int hc_contract_cuda_adaptive(const hc_contract *k, const void *d_left, const void *d_right, void *d_out);

/* tile: shared-memory tiles over (l, r) and the contracted index (contract_tile.cu). */
int hc_supports_cuda_tile(const hc_contract *k);
int hc_contract_cuda_tile(const hc_contract *k, const void *d_left, const void *d_right, void *d_out);

/* tensorcore: FP64 mma.sync m8n8k4 on sm_80+ (contract_tensorcore.cu). */
int hc_supports_cuda_tensorcore(const hc_contract *k);
int hc_contract_cuda_tensorcore(const hc_contract *k, const void *d_left, const void *d_right, void *d_out);

/* cublas: cuBLAS strided-batched GEMM and GEMV (contract_cublas.cu). */
int hc_supports_cuda_cublas(const hc_contract *k);
int hc_contract_cuda_cublas(const hc_contract *k, const void *d_left, const void *d_right, void *d_out);

/* The flat kernel on |left| and |right|: the bound sum_q |a_q b_q| of every output entry (overwrites
   d_out, ignores k->sum_into). The auto tuner scales its agreement tolerance by it. */
int hc_contract_cuda_flat_abs(const hc_contract *k, const void *d_left, const void *d_right, void *d_out);

/* Counts, into *h_bad, the n entries where |x - ref| > tol * bound + tiny (NaN counts); all arrays
   hold n scalars of precision prec in device memory. Synchronises the backend's stream. */
int hc_cuda_count_disagree(hc_precision prec, int64_t n, const void *d_x, const void *d_ref, const void *d_bound,
                           double tol, int64_t *h_bad);

#ifdef __cplusplus
}
#endif

#endif
