// The CUDA backend's context (hc_cuda_context.cuh): creating it for a device, destroying it with what it holds
// there, and the backend's stream and device properties read from it.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdio>
#include <mutex>

#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_context.cuh"

namespace {

// The backend's one context (nullptr until its first call), read without a lock on every call, and the lock
// that creating or destroying it takes.
std::atomic<hc_cuda_context *> the_context{nullptr};
std::mutex the_context_lock;

// Frees everything ctx holds on its device, and ctx. Call with the_context_lock held.
void context_destroy(hc_cuda_context *ctx) {
  if (!ctx) return;
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess) current = -1;
  if (current != ctx->device) cudaSetDevice(ctx->device);
  cudaFree(ctx->basis.d_qpts);
  cudaFree(ctx->basis.d_qwts);
  cudaFree(ctx->basis.d_phi);
  cudaFree(ctx->basis.d_grad);
  cudaFree(ctx->basis.d_bad);
  for (cudaEvent_t e : ctx->timer) {
    if (e) cudaEventDestroy(e);
  }
  if (ctx->cublas) cublasDestroy(ctx->cublas);
  if (current >= 0 && current != ctx->device) cudaSetDevice(current);
  cudaGetLastError();
  delete ctx;
}

// A new context for device (the current device once cudaSetDevice has made it so). Call with the_context_lock
// held.
int context_create(int device, hc_cuda_context **ctx) {
  *ctx = nullptr;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count <= 0) {
    cudaGetLastError();
    char why[384];
    hc_cuda_no_device_reason(err, why, sizeof(why));
    return HC_ERROR(HC_ERR_RESOURCE, "no usable CUDA device: %s", why);
  }
  hc_cuda_context *c = new (std::nothrow) hc_cuda_context;
  HC_CHECK(c, HC_ERR_RESOURCE, "out of host memory for the CUDA backend's context");
  c->device = device;
  c->stream = 0;  // the default stream of the device: no stream of its own to create
  const cudaError_t perr = cudaGetDeviceProperties(&c->props, device);
  if (perr != cudaSuccess) {
    delete c;
    HC_CALL_CUDA(perr);
  }
  *ctx = c;
  return HC_OK;
}

}  // namespace

int hc_cuda_context_get(hc_cuda_context **ctx) {
  *ctx = the_context.load(std::memory_order_acquire);
  if (*ctx) return HC_OK;
  std::lock_guard<std::mutex> guard(the_context_lock);
  if (!the_context.load(std::memory_order_relaxed)) {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
      cudaGetLastError();
      device = 0;  // no device: context_create says why
    }
    hc_cuda_context *created = nullptr;
    HC_CALL(context_create(device, &created));
    the_context.store(created, std::memory_order_release);
  }
  *ctx = the_context.load(std::memory_order_relaxed);
  return HC_OK;
}

// Makes device the current device and gives the backend a context for it, destroying the one it had for
// another device.
int hc_cuda_context_select(int device) {
  std::lock_guard<std::mutex> guard(the_context_lock);
  HC_CALL_CUDA(cudaSetDevice(device));
  hc_cuda_context *old = the_context.load(std::memory_order_relaxed);
  if (old && old->device == device) return HC_OK;
  the_context.store(nullptr, std::memory_order_release);
  context_destroy(old);
  hc_cuda_context *created = nullptr;
  HC_CALL(context_create(device, &created));
  the_context.store(created, std::memory_order_release);
  return HC_OK;
}

extern "C" int hc_release_cuda(void) {
  std::lock_guard<std::mutex> guard(the_context_lock);
  hc_cuda_context *old = the_context.exchange(nullptr, std::memory_order_acq_rel);
  context_destroy(old);
  return HC_OK;
}

cudaStream_t hc_cuda_stream(void) {
  const hc_cuda_context *ctx = the_context.load(std::memory_order_acquire);
  return ctx ? ctx->stream : 0;
}

int hc_cuda_device_props(const cudaDeviceProp **props) {
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  *props = &ctx->props;
  return HC_OK;
}
