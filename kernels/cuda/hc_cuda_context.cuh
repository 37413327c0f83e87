// The CUDA backend's state, one object that owns it for the device this process computes on: the stream, the
// device's properties, the auto tuner's choices, the basis tables on the device, the timer's events and the
// cuBLAS handle. Created for the current device at the backend's first call, or for the chosen one by
// device_select (which destroys the context of the device used before, freeing what it held there); destroyed
// by the backend's release (hc_backend.release). The backend's .cu files reach it through hc_cuda_context_get
// and keep no state of their own.
#ifndef HC_CUDA_CONTEXT_CUH
#define HC_CUDA_CONTEXT_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <mutex>

#include "kernels/cuda/hc_cuda.h"

// One auto-tuner choice: the variant chosen for a contraction's kernel, sizes, layout, precision and sum_into.
struct hc_cuda_tuned {
  hc_contract key;
  hc_variant chosen;
};

// The basis tables of one (order, points) pair in device memory (hc_basis's tables are a function of the two),
// and the cell data's bad-cell flag.
struct hc_cuda_basis {
  int p = 0, q = 0;                     // 0: none uploaded
  double *d_qpts = nullptr;             // [P][3]
  double *d_qwts = nullptr;             // [P]
  double *d_phi = nullptr;              // [L][P]
  double *d_grad = nullptr;             // [L][P][3]
  unsigned long long *d_bad = nullptr;  // lowest bad cell
};

struct hc_cuda_context {
  static constexpr int kTunedSize = 64;
  int device = -1;
  cudaStream_t stream = 0;  // the default stream of the device
  cudaDeviceProp props = {};
  std::mutex tuned_lock;  // guards tuned (held while tuning, which calls the variants)
  hc_cuda_tuned tuned[kTunedSize];
  int tuned_count = 0, tuned_next = 0;
  std::mutex basis_lock;  // guards basis
  hc_cuda_basis basis;
  std::mutex cublas_lock;                     // guards cublas
  cublasHandle_t cublas = nullptr;            // created at the cublas variant's first call
  cudaEvent_t timer[2] = {nullptr, nullptr};  // the backend's timer (not nested): start, stop
  int tensorcore_ptx = -1;                    // the PTX version the tensorcore kernel runs as here, read once
};

// The context of the device this process computes on, created for the current device at the first call; a
// process without a usable device gets HC_ERR_RESOURCE saying why.
int hc_cuda_context_get(hc_cuda_context **ctx);

// Makes device the current device and gives the backend a context for it (device_select), destroying the one
// it had for another device with what that held there.
int hc_cuda_context_select(int device);

#endif
