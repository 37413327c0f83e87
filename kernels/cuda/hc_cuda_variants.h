/* The CUDA backend's variants: one supports/launch pair per algorithm, C-callable, used by the
   dispatcher in contract_cuda.cu. Each launcher runs on the backend's stream, takes device pointers in
   k->layout and returns an HC error code; each supports() says HC_OK or HC_ERR_UNSUPPORTED with why. */
#ifndef HC_CUDA_VARIANTS_H
#define HC_CUDA_VARIANTS_H

#include "kernels/hc_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every variant that HC_VARIANT_LIST gives to backend CUDA: hc_supports_cuda_<name> and
   hc_contract_cuda_<name>, defined in contract_<name>.cu (slice and adaptive share contract_slice.cu). The
   entries of other backends (and auto's, ALL) declare nothing. HC_CUDA_PROVIDES(backend) is 1 for the list's
   backend token CUDA and 0 for any other. */
#define HC_CUDA_CAT_(a, b)        a##b
#define HC_CUDA_CAT(a, b)         HC_CUDA_CAT_(a, b)
#define HC_CUDA_SECOND(a, b, ...) b
#define HC_CUDA_SECOND_(...)      HC_CUDA_SECOND(__VA_ARGS__)
#define HC_CUDA_PROBE_CUDA        ~, 1
#define HC_CUDA_PROVIDES(backend) HC_CUDA_SECOND_(HC_CUDA_CAT(HC_CUDA_PROBE_, backend), 0, ~)
#define HC_CUDA_VARIANT_DECLARE_0(name)
#define HC_CUDA_VARIANT_DECLARE_1(name)              \
  int hc_supports_cuda_##name(const hc_contract *k); \
  int hc_contract_cuda_##name(const hc_contract *k, const void *d_left, const void *d_right, void *d_out);
#define HC_CUDA_VARIANT_DECLARE(id, name, backend, flags, description) \
  HC_CUDA_CAT(HC_CUDA_VARIANT_DECLARE_, HC_CUDA_PROVIDES(backend))(name)
HC_VARIANT_LIST(HC_CUDA_VARIANT_DECLARE)

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
