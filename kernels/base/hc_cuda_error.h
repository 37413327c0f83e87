/* HC_CALL_CUDA and its kin: checks a CUDA runtime call's return code and turns a failure into an hc error
   (kernels/base/hc_error.h), as kernels/base/hc_mpi.h does for MPI. Included by the CUDA backend's .cu files. */
#ifndef HC_CUDA_ERROR_H
#define HC_CUDA_ERROR_H

#include <cuda_runtime.h>

#include "kernels/base/hc_error.h"

/* Records a failed CUDA call: HC_ERR_RESOURCE when the device is out of memory, HC_ERR_RUNTIME otherwise, with
   what failed (the call's text, or "launching the <what> kernel") and CUDA's message; returns that code. */
static inline int hc_cuda_error(cudaError_t err, const char *what, int launch, const char *file, int line,
                                const char *func) {
  return hc_error_set(err == cudaErrorMemoryAllocation ? HC_ERR_RESOURCE : HC_ERR_RUNTIME, file, line, func,
                      launch ? "CUDA error launching the %s kernel: %s (%s)" : "CUDA error in %s: %s (%s)", what,
                      cudaGetErrorString(err), cudaGetErrorName(err));
}

/* Returns from the calling function with an hc error when a CUDA runtime call fails. */
#define HC_CALL_CUDA(expr)                                                                                       \
  do {                                                                                                           \
    cudaError_t hc_cuda_err_ = (expr);                                                                           \
    if (hc_cuda_err_ != cudaSuccess) return hc_cuda_error(hc_cuda_err_, #expr, 0, __FILE__, __LINE__, __func__); \
  } while (0)

/* The same for functions with one cleanup label: sets `ierr` and jumps to label. */
#define HC_CALL_CUDA_GOTO(expr, label)                                            \
  do {                                                                            \
    cudaError_t hc_cuda_err_ = (expr);                                            \
    if (hc_cuda_err_ != cudaSuccess) {                                            \
      ierr = hc_cuda_error(hc_cuda_err_, #expr, 0, __FILE__, __LINE__, __func__); \
      goto label;                                                                 \
    }                                                                             \
  } while (0)

/* Checks a kernel launch (expr returns the launch's cudaError_t, e.g. cudaGetLastError after it), naming the
   kernel: "CUDA error launching the <what> kernel". */
#define HC_CALL_CUDA_LAUNCH(expr, what)                                                                         \
  do {                                                                                                          \
    cudaError_t hc_cuda_err_ = (expr);                                                                          \
    if (hc_cuda_err_ != cudaSuccess) return hc_cuda_error(hc_cuda_err_, what, 1, __FILE__, __LINE__, __func__); \
  } while (0)

/* The same with one cleanup label. */
#define HC_CALL_CUDA_LAUNCH_GOTO(expr, what, label)                              \
  do {                                                                           \
    cudaError_t hc_cuda_err_ = (expr);                                           \
    if (hc_cuda_err_ != cudaSuccess) {                                           \
      ierr = hc_cuda_error(hc_cuda_err_, what, 1, __FILE__, __LINE__, __func__); \
      goto label;                                                                \
    }                                                                            \
  } while (0)

#endif
