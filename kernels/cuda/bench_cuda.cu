// The CUDA backend's members for hexcontract bench: the copy kernel whose bandwidth is the memory roof,
// the peak flop rate from the device's attributes, and CUDA-event timing on the backend's stream.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "kernels/cuda/hc_cuda_bench.h"
#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_context.cuh"
#include "kernels/hc_roofline.h"

namespace {

constexpr int kCopyThreads = 256;

// One 16-byte word per thread and iteration of a grid-stride loop: dst[i] = src[i], i < n.
__global__ void copy16(const int4 *__restrict__ src, int4 *__restrict__ dst, int64_t n) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

// The bytes that do not fill a 16-byte word, or buffers that are not 16-byte aligned.
__global__ void copy1(const unsigned char *__restrict__ src, unsigned char *__restrict__ dst, int64_t n) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

}  // namespace

extern "C" int hc_mem_copy_cuda(void *d_dst, const void *d_src, size_t bytes) {
  if (bytes == 0) return HC_OK;
  const cudaStream_t stream = hc_cuda_stream();
  const bool aligned = ((uintptr_t)d_dst % 16 == 0) && ((uintptr_t)d_src % 16 == 0);
  const int64_t words = aligned ? (int64_t)(bytes / 16) : 0, tail = (int64_t)bytes - 16 * words;
  if (words > 0) {
    copy16<<<hc_cuda_grid((words + kCopyThreads - 1) / kCopyThreads), kCopyThreads, 0, stream>>>(
        static_cast<const int4 *>(d_src), static_cast<int4 *>(d_dst), words);
    HC_CALL_CUDA_LAUNCH(cudaGetLastError(), "copy");
  }
  if (tail > 0) {
    copy1<<<hc_cuda_grid((tail + kCopyThreads - 1) / kCopyThreads), kCopyThreads, 0, stream>>>(
        static_cast<const unsigned char *>(d_src) + 16 * words, static_cast<unsigned char *>(d_dst) + 16 * words, tail);
    HC_CALL_CUDA_LAUNCH(cudaGetLastError(), "copy");
  }
  return HC_OK;
}

extern "C" int hc_peak_flops_cuda(hc_precision precision, int tensor_cores, double budget_s, double *flops_per_s,
                                  char *how, size_t size) {
  const cudaDeviceProp *props = nullptr;
  int device = 0, clock_khz = 0;
  *flops_per_s = 0;
  HC_CALL(hc_cuda_device_props(&props));
  HC_CALL_CUDA(cudaGetDevice(&device));
  HC_CALL_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  const int fma = hc_gpu_fma_per_clock(props->major, props->minor, precision, tensor_cores);
  HC_CHECK(fma > 0, HC_ERR_UNSUPPORTED,
           "no peak flop rate for compute capability %d.%d (%s): it is not in hc_gpu_fma_per_clock's table",
           props->major, props->minor, props->name);
  const bool tc =
      tensor_cores && precision == HC_DOUBLE && fma != hc_gpu_fma_per_clock(props->major, props->minor, precision, 0);
  *flops_per_s = 2.0 * props->multiProcessorCount * (clock_khz * 1e3) * fma;
  snprintf(how, size, "%s, compute capability %d.%d: %d SMs x %.0f MHz (boost clock) x %d %s%s FMA/clock/SM x 2",
           props->name, props->major, props->minor, props->multiProcessorCount, clock_khz * 1e-3, fma,
           precision == HC_FLOAT ? "FP32" : "FP64", tc ? " tensor-core" : "");
  return HC_OK;
}

// The timer's events are the context's, created at its first start.
extern "C" int hc_timer_start_cuda(void) {
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  for (cudaEvent_t &e : ctx->timer) {
    if (!e) HC_CALL_CUDA(cudaEventCreate(&e));
  }
  HC_CALL_CUDA(cudaEventRecord(ctx->timer[0], ctx->stream));
  return HC_OK;
}

extern "C" int hc_timer_stop_cuda(double *seconds) {
  float ms = 0;
  *seconds = 0;
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  HC_CHECK(ctx->timer[0] && ctx->timer[1], HC_ERR_RUNTIME, "CUDA timer stopped before it was started");
  HC_CALL_CUDA(cudaEventRecord(ctx->timer[1], ctx->stream));
  HC_CALL_CUDA(cudaEventSynchronize(ctx->timer[1]));
  HC_CALL_CUDA(cudaEventElapsedTime(&ms, ctx->timer[0], ctx->timer[1]));
  *seconds = 1e-3 * ms;
  return HC_OK;
}

// The timeline's marks: events of the context, each created at its first record.
extern "C" int hc_mark_cuda(int i) {
  HC_CHECK(i >= 0 && i < HC_MARKS_MAX, HC_ERR_INPUT, "timeline mark %d: marks are 0..%d", i, HC_MARKS_MAX - 1);
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  if (!ctx->marks[i]) HC_CALL_CUDA(cudaEventCreate(&ctx->marks[i]));
  HC_CALL_CUDA(cudaEventRecord(ctx->marks[i], ctx->current));
  return HC_OK;
}

extern "C" int hc_marks_read_cuda(int n, double *seconds) {
  HC_CHECK(n >= 1 && n <= HC_MARKS_MAX, HC_ERR_INPUT, "timeline: %d marks read, must be 1..%d", n, HC_MARKS_MAX);
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  for (int i = 0; i < n; i++) HC_CHECK(ctx->marks[i], HC_ERR_RUNTIME, "timeline: mark %d read before it was made", i);
  // the last mark first: after a join it follows every lane's; a mark on a lane that ended later is waited for
  // alone (cudaEventElapsedTime answers cudaErrorNotReady), so that a step's read costs one wait
  HC_CALL_CUDA(cudaEventSynchronize(ctx->marks[n - 1]));
  seconds[0] = 0;
  for (int i = 1; i < n; i++) {
    float ms = 0;
    cudaError_t err = cudaEventElapsedTime(&ms, ctx->marks[0], ctx->marks[i]);
    if (err == cudaErrorNotReady) {
      cudaGetLastError();
      HC_CALL_CUDA(cudaEventSynchronize(ctx->marks[i]));
      err = cudaEventElapsedTime(&ms, ctx->marks[0], ctx->marks[i]);
    }
    HC_CALL_CUDA(err);
    seconds[i] = 1e-3 * ms;
  }
  return HC_OK;
}

// The lanes: the context's stream and non-blocking streams, each created at its first fork, with the events that
// order them (hc_cuda_context).
extern "C" int hc_fork_cuda(int n) {
  HC_CHECK(n >= 2 && n <= HC_LANES_MAX, HC_ERR_INPUT, "fork: %d lanes, must be 2..%d", n, HC_LANES_MAX);
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  HC_CHECK(!ctx->forked, HC_ERR_RUNTIME, "fork: lanes forked already, not joined");
  if (!ctx->fork_event) HC_CALL_CUDA(cudaEventCreateWithFlags(&ctx->fork_event, cudaEventDisableTiming));
  HC_CALL_CUDA(cudaEventRecord(ctx->fork_event, ctx->stream));
  for (int i = 1; i < n; i++) {
    if (!ctx->lanes[i]) HC_CALL_CUDA(cudaStreamCreateWithFlags(&ctx->lanes[i], cudaStreamNonBlocking));
    if (!ctx->lane_done[i]) HC_CALL_CUDA(cudaEventCreateWithFlags(&ctx->lane_done[i], cudaEventDisableTiming));
    HC_CALL_CUDA(cudaStreamWaitEvent(ctx->lanes[i], ctx->fork_event, 0));
  }
  ctx->forked = n;
  ctx->current = ctx->stream;
  return HC_OK;
}

extern "C" int hc_lane_cuda(int i) {
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  const int n = ctx->forked ? ctx->forked : 1;
  HC_CHECK(i >= 0 && i < n, HC_ERR_INPUT, "lane %d: %d lanes are open", i, n);
  ctx->current = ctx->lanes[i];
  return HC_OK;
}

extern "C" int hc_join_cuda(void) {
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  HC_CHECK(ctx->forked, HC_ERR_RUNTIME, "join: no fork to join");
  for (int i = 1; i < ctx->forked; i++) {
    HC_CALL_CUDA(cudaEventRecord(ctx->lane_done[i], ctx->lanes[i]));
    HC_CALL_CUDA(cudaStreamWaitEvent(ctx->stream, ctx->lane_done[i], 0));
  }
  ctx->forked = 0;
  ctx->current = ctx->stream;
  // a geometry filled in the fork is now behind the stream, which every later lane follows: no event to wait for
  std::lock_guard<std::mutex> guard(ctx->basis_lock);
  ctx->geom_forked = false;
  return HC_OK;
}
