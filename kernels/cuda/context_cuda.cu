// The CUDA backend's context (hc_cuda_context.cuh): creating it for a device, destroying it with what it holds
// there (the cublaslt variant's plans, handle and workspace included), the backend's stream and device properties
// read from it, and the cell GEMM kernels' launch setup kept in it.
#include <cublasLt.h>
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
  hc_cuda_basis_free(&ctx->basis);
  for (cudaEvent_t e : ctx->timer) {
    if (e) cudaEventDestroy(e);
  }
  for (cudaEvent_t e : ctx->marks) {
    if (e) cudaEventDestroy(e);
  }
  for (int i = 1; i < HC_LANES_MAX; i++) {
    if (ctx->lanes[i]) cudaStreamDestroy(ctx->lanes[i]);
  }
  for (cudaEvent_t e : ctx->lane_done) {
    if (e) cudaEventDestroy(e);
  }
  if (ctx->fork_event) cudaEventDestroy(ctx->fork_event);
  if (ctx->geom_ready) cudaEventDestroy(ctx->geom_ready);
  if (ctx->cublas) cublasDestroy(ctx->cublas);
  for (hc_cuda_lt_plan &p : ctx->lt_plans) hc_cuda_lt_plan_destroy(&p);
  if (ctx->cublaslt) cublasLtDestroy(ctx->cublaslt);
  cudaFree(ctx->lt_workspace);
  cudaFreeHost(ctx->sum_results);
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
  c->current = c->stream;
  c->lanes[0] = c->stream;
  const cudaError_t perr = cudaGetDeviceProperties(&c->props, device);
  if (perr != cudaSuccess) {
    delete c;
    HC_CALL_CUDA(perr);
  }
  *ctx = c;
  return HC_OK;
}

}  // namespace

void hc_cuda_lt_plan_destroy(hc_cuda_lt_plan *p) {
  if (p->a) cublasLtMatrixLayoutDestroy(p->a);
  if (p->b) cublasLtMatrixLayoutDestroy(p->b);
  if (p->d) cublasLtMatrixLayoutDestroy(p->d);
  if (p->op) cublasLtMatmulDescDestroy(p->op);
  *p = hc_cuda_lt_plan{};
}

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

cudaError_t hc_cuda_occupancy_get(const void *kernel, int threads, size_t smem, int *blocks_per_sm, int *sms) {
  *blocks_per_sm = 0;
  *sms = 0;
  hc_cuda_context *ctx = nullptr;
  if (hc_cuda_context_get(&ctx) != HC_OK) {
    hc_error_clear();
    return cudaErrorNoDevice;
  }
  *sms = ctx->props.multiProcessorCount;
  std::lock_guard<std::mutex> guard(ctx->occupancy_lock);
  for (int i = 0; i < ctx->occupancy_count; i++) {
    const hc_cuda_occupancy &o = ctx->occupancy[i];
    if (o.kernel == kernel && o.threads == threads && o.smem == smem) {
      *blocks_per_sm = o.blocks_per_sm;
      return cudaSuccess;
    }
  }
  // Opted in above the default 48 KB only, as hc_cuda_allow_smem does: setting the cap to a smaller smem would refuse
  // a later launch of the same kernel with more (a fused kernel's shared memory depends on the case; such launches
  // opt in themselves, hc_cuda_launch_resident).
  cudaError_t err = smem > 48 * 1024
                        ? cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)
                        : cudaSuccess;
  if (err == cudaSuccess) err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, kernel, threads, smem);
  if (err != cudaSuccess) return err;
  if (*blocks_per_sm < 1) return cudaErrorInvalidConfiguration;
  if (ctx->occupancy_count < hc_cuda_context::kOccupancySize) {
    ctx->occupancy[ctx->occupancy_count++] = hc_cuda_occupancy{kernel, threads, smem, *blocks_per_sm};
  }
  return cudaSuccess;
}

cudaStream_t hc_cuda_stream(void) {
  const hc_cuda_context *ctx = the_context.load(std::memory_order_acquire);
  return ctx ? ctx->current : 0;
}

int hc_cuda_device_props(const cudaDeviceProp **props) {
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  *props = &ctx->props;
  return HC_OK;
}
