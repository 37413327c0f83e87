// The `flat` algorithm: one thread per output entry, each summing its whole contracted index. In the
// cell-minor layout neighbouring threads take neighbouring cells, so every load of a warp is coalesced.
// Also the |a||b| bound kernel and the agreement count that the auto tuner uses.
#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_variants.h"

namespace {

constexpr int kThreads = 256;

// out[c,l,r] = sum_q A[c,l,q] B[c,r,qb(q)] (see hc_cuda_common.cuh). Abs: sum_q |A| |B|, overwriting.
template <typename T, bool CellMinor, bool Abs>
__global__ void __launch_bounds__(kThreads) contract_flat(hc_cuda_shape s, const T *__restrict__ A,
                                                          const T *__restrict__ B, T *__restrict__ out, int sum_into) {
  const int64_t n = s.C * s.innerO;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n; e += (int64_t)gridDim.x * blockDim.x) {
    int64_t c, lr;
    if (CellMinor) {
      c = e % s.C;
      lr = e / s.C;
    } else {
      c = e / s.innerO;
      lr = e % s.innerO;
    }
    const int64_t l = lr / s.R, r = lr % s.R;
    const int64_t a0 = l * s.K, b0 = r * s.KB;
    T sum = 0;
    for (int64_t q = 0; q < s.K; q++) {
      const T a = A[hc_at<CellMinor>(c, a0 + q, s.C, s.innerA)];
      const T b = B[hc_at<CellMinor>(c, b0 + hc_qb(q, s.Dr, s.constant), s.C, s.innerB)];
      sum += Abs ? hc_abs(a) * hc_abs(b) : a * b;
    }
    hc_store(&out[hc_at<CellMinor>(c, lr, s.C, s.innerO)], sum, Abs ? 0 : sum_into);
  }
}

template <bool Abs>
int launch_flat(const hc_contract *k, const void *d_left, const void *d_right, void *d_out) {
  const hc_cuda_shape s = hc_cuda_shape_of(k);
  const unsigned grid = hc_cuda_grid((s.C * s.innerO + kThreads - 1) / kThreads);
  HC_CALL_CUDA_LAUNCH(hc_cuda_dispatch(k,
                                       [&](auto t, auto cm) {
                                         using T = decltype(t);
                                         contract_flat<T, decltype(cm)::value, Abs>
                                             <<<grid, kThreads, 0, hc_cuda_stream()>>>(
                                                 s, static_cast<const T *>(d_left), static_cast<const T *>(d_right),
                                                 static_cast<T *>(d_out), k->sum_into);
                                         return cudaGetLastError();
                                       }),
                      Abs ? "flat |a||b| bound" : "flat");
  return HC_OK;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    count_disagree(int64_t n, const T *__restrict__ x, const T *__restrict__ ref, const T *__restrict__ bound,
                   double tol, double tiny, unsigned long long *bad) {
  unsigned long long mine = 0;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n; e += (int64_t)gridDim.x * blockDim.x) {
    const double d = fabs((double)x[e] - (double)ref[e]);
    if (!(d <= tol * (double)bound[e] + tiny)) mine++;  // NaN counts as a disagreement
  }
  if (mine) atomicAdd(bad, mine);
}

}  // namespace

extern "C" int hc_supports_cuda_flat(const hc_contract *k) {
  return HC_OK;
}

extern "C" int hc_contract_cuda_flat(const hc_contract *k, const void *d_left, const void *d_right, void *d_out) {
  return launch_flat<false>(k, d_left, d_right, d_out);
}

extern "C" int hc_contract_cuda_flat_abs(const hc_contract *k, const void *d_left, const void *d_right, void *d_out) {
  return launch_flat<true>(k, d_left, d_right, d_out);
}

extern "C" int hc_cuda_count_disagree(hc_precision prec, int64_t n, const void *d_x, const void *d_ref,
                                      const void *d_bound, double tol, int64_t *h_bad) {
  int ierr = HC_OK;
  unsigned long long *d_bad = nullptr, h = 0;
  const unsigned grid = hc_cuda_grid((n + kThreads - 1) / kThreads);
  const cudaStream_t stream = hc_cuda_stream();
  HC_CALL_CUDA_GOTO(cudaMalloc(&d_bad, sizeof(*d_bad)), cleanup);
  HC_CALL_CUDA_GOTO(cudaMemsetAsync(d_bad, 0, sizeof(*d_bad), stream), cleanup);
  if (prec == HC_FLOAT) {
    count_disagree<float><<<grid, kThreads, 0, stream>>>(n, static_cast<const float *>(d_x),
                                                         static_cast<const float *>(d_ref),
                                                         static_cast<const float *>(d_bound), tol, 1e-30, d_bad);
  } else {
    count_disagree<double><<<grid, kThreads, 0, stream>>>(n, static_cast<const double *>(d_x),
                                                          static_cast<const double *>(d_ref),
                                                          static_cast<const double *>(d_bound), tol, 1e-300, d_bad);
  }
  HC_CALL_CUDA_LAUNCH_GOTO(cudaGetLastError(), "count_disagree", cleanup);
  HC_CALL_CUDA_GOTO(cudaMemcpyAsync(&h, d_bad, sizeof(h), cudaMemcpyDeviceToHost, stream), cleanup);
  HC_CALL_CUDA_GOTO(cudaStreamSynchronize(stream), cleanup);
cleanup:
  *h_bad = (int64_t)h;
  if (d_bad) cudaFree(d_bad);
  return ierr;
}
