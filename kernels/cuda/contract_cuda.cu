// The CUDA backend: the nine contractions on the GPU (the `flat` algorithm: one thread per output
// entry), device memory and the backend's stream. Kernels are templates over the scalar type and
// the layout; in the cell-minor layout neighbouring threads take neighbouring cells, so every load
// of a warp is coalesced.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "kernels/cuda/hc_cuda.h"

namespace {

constexpr int kThreads = 256;

// Addresses of entry (c, q) of an array with `inner` entries per cell.
template <bool CellMinor>
__device__ __forceinline__ int64_t at(int64_t c, int64_t q, int64_t C, int64_t inner) {
  return CellMinor ? q * C + c : c * inner + q;
}

// out[c,l,r] = sum_q A[c,l,q] B[c,r,q]  (DataData: L = R = 1; DataField: R = 1 with B the data,
// whose point index is 0 when P_data = 1). Dr = D^rank entries per point.
template <typename T, bool CellMinor>
__global__ void __launch_bounds__(kThreads) contract_flat(int64_t C, int L, int R, int64_t K, int64_t Dr,
                                                          int64_t K_right, int right_has_r, int constant,
                                                          const T *__restrict__ A, const T *__restrict__ B,
                                                          T *__restrict__ out, int sum_into) {
  const int64_t n = C * L * R;
  const int64_t LK = (int64_t)L * K, RK = right_has_r ? (int64_t)R * K_right : K_right;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n; e += (int64_t)gridDim.x * blockDim.x) {
    int64_t c, lr;
    if (CellMinor) {
      c = e % C;
      lr = e / C;
    } else {
      c = e / ((int64_t)L * R);
      lr = e % ((int64_t)L * R);
    }
    const int64_t l = lr / R, r = lr % R;
    const int64_t a0 = l * K, b0 = right_has_r ? r * K_right : 0;
    T sum = 0;
    for (int64_t q = 0; q < K; q++) {
      const int64_t qb = constant ? q % Dr : q;
      sum += A[at<CellMinor>(c, a0 + q, C, LK)] * B[at<CellMinor>(c, b0 + qb, C, RK)];
    }
    T *o = &out[at<CellMinor>(c, lr, C, (int64_t)L * R)];
    *o = sum_into ? *o + sum : sum;
  }
}

template <typename T>
cudaError_t launch_flat(const hc_contract *k, const void *d_left, const void *d_right, void *d_out,
                        cudaStream_t stream) {
  const hc_family fam = hc_kernel_family(k->kernel);
  const int64_t K = hc_contract_K(k), Dr = K / k->P;
  const int64_t K_right = (fam == HC_FAMILY_DATAFIELD ? k->P_data : k->P) * Dr;
  const int constant = fam == HC_FAMILY_DATAFIELD && k->P_data == 1 && k->P > 1;
  const int64_t n = k->C * k->L * k->R;
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  const unsigned grid = (unsigned)(blocks < (1 << 20) ? blocks : (1 << 20));
  const T *A = static_cast<const T *>(d_left), *B = static_cast<const T *>(d_right);
  T *out = static_cast<T *>(d_out);
  const int has_r = fam == HC_FAMILY_FIELDFIELD;
  if (k->layout == HC_LAYOUT_CELL_MINOR) {
    contract_flat<T, true>
        <<<grid, kThreads, 0, stream>>>(k->C, k->L, k->R, K, Dr, K_right, has_r, constant, A, B, out, k->sum_into);
  } else {
    contract_flat<T, false>
        <<<grid, kThreads, 0, stream>>>(k->C, k->L, k->R, K, Dr, K_right, has_r, constant, A, B, out, k->sum_into);
  }
  return cudaGetLastError();
}

// The backend's stream: the default stream of the current device, for now.
cudaStream_t hc_stream = 0;

// A device is present and usable; checked once, then remembered.
int hc_cuda_ready(void) {
  static int checked = 0, status = HC_OK;
  static char message[512];
  if (!checked) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
      snprintf(message, sizeof(message), "no usable CUDA device (%s)",
               err != cudaSuccess ? cudaGetErrorString(err) : "the driver reports none");
      status = HC_ERR_RESOURCE;
    }
    checked = 1;
  }
  if (status != HC_OK) return HC_ERROR(status, "%s", message);
  return HC_OK;
}

}  // namespace

extern "C" int hc_supports_cuda(const hc_contract *k) {
  HC_CHECK(k->variant == HC_VARIANT_AUTO || k->variant == HC_VARIANT_FLAT, HC_ERR_UNSUPPORTED,
           "variant '%s' is not available on backend cuda in this build (available: auto, flat)",
           hc_variant_name(k->variant));
  return HC_OK;
}

extern "C" int hc_contract_cuda(const hc_contract *k, const void *d_left, const void *d_right, void *d_out) {
  HC_CALL(hc_cuda_ready());
  if (k->precision == HC_FLOAT) {
    HC_CALL_CUDA(launch_flat<float>(k, d_left, d_right, d_out, hc_stream));
  } else {
    HC_CALL_CUDA(launch_flat<double>(k, d_left, d_right, d_out, hc_stream));
  }
  return HC_OK;
}

extern "C" int hc_cuda_alloc(size_t bytes, void **d_ptr) {
  *d_ptr = nullptr;
  HC_CALL(hc_cuda_ready());
  if (bytes == 0) return HC_OK;
  cudaError_t err = cudaMalloc(d_ptr, bytes);
  if (err == cudaErrorMemoryAllocation) {
    size_t free_b = 0, total_b = 0;
    cudaGetLastError();
    cudaMemGetInfo(&free_b, &total_b);
    return HC_ERROR(HC_ERR_RESOURCE, "out of device memory allocating %zu bytes (%zu of %zu bytes free)", bytes,
                    free_b, total_b);
  }
  HC_CALL_CUDA(err);
  return HC_OK;
}

extern "C" int hc_cuda_free(void *d_ptr) {
  if (d_ptr) HC_CALL_CUDA(cudaFree(d_ptr));
  return HC_OK;
}

extern "C" int hc_cuda_copy_to_device(void *d_dst, const void *h_src, size_t bytes) {
  HC_CALL(hc_cuda_ready());
  if (bytes) HC_CALL_CUDA(cudaMemcpyAsync(d_dst, h_src, bytes, cudaMemcpyHostToDevice, hc_stream));
  return HC_OK;
}

extern "C" int hc_cuda_copy_to_host(void *h_dst, const void *d_src, size_t bytes) {
  HC_CALL(hc_cuda_ready());
  if (bytes) {
    HC_CALL_CUDA(cudaMemcpyAsync(h_dst, d_src, bytes, cudaMemcpyDeviceToHost, hc_stream));
    HC_CALL_CUDA(cudaStreamSynchronize(hc_stream));
  }
  return HC_OK;
}

extern "C" int hc_cuda_synchronize(void) {
  HC_CALL(hc_cuda_ready());
  HC_CALL_CUDA(cudaStreamSynchronize(hc_stream));
  return HC_OK;
}
