// The `slice` and `adaptive` algorithms: a block loads a slice of one operand into shared memory and
// computes every output that uses it. FieldField: the slice is A[c,l,:] and the block computes out[c,l,:]
// (R outputs); DataField: the slice is the data d[c,:] and the block computes out[c,:] (L outputs).
// `slice` puts one slice in a block; `adaptive` puts several, chosen from K and the outputs per slice,
// when one is too little work. DataData has no slice that several outputs share.
#include <cstdio>

#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_variants.h"

namespace {

constexpr int kMaxThreads = 256;
constexpr size_t kDefaultShared = 48 * 1024;  // usable without opting in

// FieldField (FF) or DataField slices, spb slices per block. In the cell-minor layout neighbouring
// slices are neighbouring cells, and loads and outputs are ordered so that neighbouring threads take them.
template <typename T, bool CellMinor, bool FF>
__global__ void __launch_bounds__(kMaxThreads)
    contract_slice(hc_cuda_shape s, int spb, const T *__restrict__ A, const T *__restrict__ B, T *__restrict__ out,
                   int sum_into) {
  extern __shared__ __align__(16) unsigned char hc_smem[];
  T *S = reinterpret_cast<T *>(hc_smem);  // S: [spb][Ks]
  const int64_t nslices = FF ? s.C * s.L : s.C;
  const int64_t Ks = FF ? s.K : s.KB;  // entries of one slice
  const int M = FF ? s.R : s.L;        // outputs per slice
  for (int64_t first = blockIdx.x * (int64_t)spb; first < nslices; first += (int64_t)gridDim.x * spb) {
    const int ns = (int)min((int64_t)spb, nslices - first);
    for (int64_t i = threadIdx.x; i < ns * Ks; i += blockDim.x) {
      const int64_t j = CellMinor ? i % ns : i / Ks, q = CellMinor ? i / ns : i % Ks, slice = first + j;
      if (FF) {
        const int64_t c = CellMinor ? slice % s.C : slice / s.L, l = CellMinor ? slice / s.C : slice % s.L;
        S[j * Ks + q] = A[hc_at<CellMinor>(c, l * s.K + q, s.C, s.innerA)];
      } else {
        S[j * Ks + q] = B[hc_at<CellMinor>(slice, q, s.C, s.innerB)];
      }
    }
    __syncthreads();
    for (int t = threadIdx.x; t < ns * M; t += blockDim.x) {
      const int j = CellMinor ? t % ns : t / M, m = CellMinor ? t / ns : t % M;
      const int64_t slice = first + j;
      const T *Sj = S + j * Ks;
      T sum = 0;
      if (FF) {
        const int64_t c = CellMinor ? slice % s.C : slice / s.L, l = CellMinor ? slice / s.C : slice % s.L;
        for (int64_t q = 0; q < s.K; q++) sum += Sj[q] * B[hc_at<CellMinor>(c, m * s.KB + q, s.C, s.innerB)];
        hc_store(&out[hc_at<CellMinor>(c, l * s.R + m, s.C, s.innerO)], sum, sum_into);
      } else {
        for (int64_t q = 0; q < s.K; q++) {
          sum += A[hc_at<CellMinor>(slice, m * s.K + q, s.C, s.innerA)] * Sj[hc_qb(q, s.Dr, s.constant)];
        }
        hc_store(&out[hc_at<CellMinor>(slice, m, s.C, s.innerO)], sum, sum_into);
      }
    }
    __syncthreads();
  }
}

// Shared-memory bytes of one slice of k.
size_t slice_bytes(const hc_contract *k) {
  const hc_cuda_shape s = hc_cuda_shape_of(k);
  return (size_t)(s.family == HC_FAMILY_FIELDFIELD ? s.K : s.KB) * hc_precision_size(k->precision);
}

int supports_slice(const hc_contract *k, const char *name) {
  HC_CHECK(hc_kernel_family(k->kernel) != HC_FAMILY_DATADATA, HC_ERR_UNSUPPORTED,
           "variant '%s' does not apply to %s: a DataData output uses its left and right entries once, so there is "
           "no slice for several outputs to share (use flat or team)",
           name, hc_kernel_name(k->kernel));
  const cudaDeviceProp *props;
  HC_CALL(hc_cuda_device_props(&props));
  const size_t need = slice_bytes(k);
  HC_CHECK(need <= props->sharedMemPerBlockOptin, HC_ERR_UNSUPPORTED,
           "variant '%s' cannot run %s with K = %lld: one slice needs %zu bytes of shared memory and this device "
           "allows %zu per block (use tile, team or flat)",
           name, hc_kernel_name(k->kernel), (long long)hc_contract_K(k), need, (size_t)props->sharedMemPerBlockOptin);
  return HC_OK;
}

// Launches with spb slices per block (spb = 0: adaptive, chosen from the shape and shared memory).
int launch_slice(const hc_contract *k, int spb, const void *d_left, const void *d_right, void *d_out) {
  const hc_cuda_shape s = hc_cuda_shape_of(k);
  const bool ff = s.family == HC_FAMILY_FIELDFIELD;
  const int M = ff ? s.R : s.L;
  const int64_t nslices = ff ? s.C * s.L : s.C;
  const size_t one = slice_bytes(k);
  if (spb == 0) {
    // Enough slices to give a block about kMaxThreads outputs, as far as shared memory allows without
    // opting in to more (so that several blocks still fit on a multiprocessor).
    int64_t want = kMaxThreads / M, fit = (int64_t)(kDefaultShared / one);
    spb = (int)(want < fit ? want : fit);
    if (spb < 1) spb = 1;
    if (spb > nslices) spb = (int)nslices;
  }
  int threads = ((spb * M + 31) / 32) * 32;
  if (threads > kMaxThreads) threads = kMaxThreads;
  const size_t shared = one * (size_t)spb;
  const unsigned grid = hc_cuda_grid((nslices + spb - 1) / spb);
  HC_CALL_CUDA_LAUNCH(hc_cuda_dispatch(k,
                                       [&](auto t, auto cm) {
                                         using T = decltype(t);
                                         constexpr bool CM = decltype(cm)::value;
                                         auto kernel = ff ? contract_slice<T, CM, true> : contract_slice<T, CM, false>;
                                         if (shared > kDefaultShared) {
                                           cudaError_t err = cudaFuncSetAttribute(
                                               kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
                                           if (err != cudaSuccess) return err;
                                         }
                                         kernel<<<grid, threads, shared, hc_cuda_stream()>>>(
                                             s, spb, static_cast<const T *>(d_left), static_cast<const T *>(d_right),
                                             static_cast<T *>(d_out), k->sum_into);
                                         return cudaGetLastError();
                                       }),
                      spb == 1 ? "slice" : "adaptive");
  return HC_OK;
}

}  // namespace

extern "C" int hc_supports_cuda_slice(const hc_contract *k) {
  return supports_slice(k, "slice");
}

extern "C" int hc_contract_cuda_slice(const hc_contract *k, const void *d_left, const void *d_right, void *d_out) {
  HC_CALL(supports_slice(k, "slice"));
  return launch_slice(k, 1, d_left, d_right, d_out);
}

extern "C" int hc_supports_cuda_adaptive(const hc_contract *k) {
  return supports_slice(k, "adaptive");
}

extern "C" int hc_contract_cuda_adaptive(const hc_contract *k, const void *d_left, const void *d_right, void *d_out) {
  HC_CALL(supports_slice(k, "adaptive"));
  return launch_slice(k, 0, d_left, d_right, d_out);
}
