// The CUDA backend: dispatch of a contraction to its variant, the `auto` tuner (its choices kept in the
// backend's context, hc_cuda_context.cuh) and device memory. The variants live in contract_<name>.cu.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <mutex>

#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_context.cuh"
#include "kernels/cuda/hc_cuda_variants.h"

namespace {

struct variant_fns {
  int (*supports)(const hc_contract *k);
  int (*contract)(const hc_contract *k, const void *d_left, const void *d_right, void *d_out);
};

// Indexed by hc_variant, generated from HC_VARIANT_LIST: the variants of backend CUDA, in the list's order;
// auto (which the dispatcher resolves) and other backends' variants have no functions here.
#define HC_CUDA_VARIANT_FNS_0(name) {nullptr, nullptr},
#define HC_CUDA_VARIANT_FNS_1(name) {hc_supports_cuda_##name, hc_contract_cuda_##name},
#define HC_CUDA_VARIANT_FNS(id, name, backend, flags, description) \
  HC_CUDA_CAT(HC_CUDA_VARIANT_FNS_, HC_CUDA_PROVIDES(backend))(name)
constexpr variant_fns kVariants[] = {HC_VARIANT_LIST(HC_CUDA_VARIANT_FNS)};
#undef HC_CUDA_VARIANT_FNS
static_assert(sizeof(kVariants) / sizeof(kVariants[0]) == HC_NUM_VARIANTS, "kVariants has one entry per hc_variant");
static_assert(kVariants[HC_VARIANT_AUTO].contract == nullptr, "auto is resolved by the dispatcher, not a variant");

bool same_key(const hc_contract *a, const hc_contract *b) {
  return a->kernel == b->kernel && a->C == b->C && a->L == b->L && a->R == b->R && a->P == b->P && a->D == b->D &&
         a->P_data == b->P_data && a->layout == b->layout && a->precision == b->precision &&
         !a->sum_into == !b->sum_into;
}

// The cached choice for k on ctx's device, or HC_VARIANT_AUTO when k has not been tuned. Call with ctx->tuned_lock
// held.
hc_variant tuned_lookup(const hc_cuda_context *ctx, const hc_contract *k) {
  for (int i = 0; i < ctx->tuned_count; i++) {
    if (same_key(&ctx->tuned[i].key, k)) return ctx->tuned[i].chosen;
  }
  return HC_VARIANT_AUTO;
}

// Remembers the choice for k, replacing the oldest once the cache is full. Call with ctx->tuned_lock held.
void tuned_insert(hc_cuda_context *ctx, const hc_contract *k, hc_variant chosen) {
  hc_cuda_tuned *e = &ctx->tuned[ctx->tuned_next];
  ctx->tuned_next = (ctx->tuned_next + 1) % hc_cuda_context::kTunedSize;
  if (ctx->tuned_count < hc_cuda_context::kTunedSize) ctx->tuned_count++;
  e->key = *k;
  e->chosen = chosen;
}

// Milliseconds of the fastest of `reps` calls of k, each timed with CUDA events on the backend's stream.
// Stops early once a call takes longer than cutoff_ms, so that a slow candidate costs the tuner one call.
int time_variant(cudaStream_t stream, const hc_contract *k, const void *d_left, const void *d_right, void *d_out,
                 int reps, float cutoff_ms, float *ms) {
  int ierr = HC_OK;
  cudaEvent_t start = nullptr, stop = nullptr;
  *ms = INFINITY;
  HC_CALL_CUDA_GOTO(cudaEventCreate(&start), cleanup);
  HC_CALL_CUDA_GOTO(cudaEventCreate(&stop), cleanup);
  for (int i = 0; i < reps; i++) {
    float t = 0;
    HC_CALL_CUDA_GOTO(cudaEventRecord(start, stream), cleanup);
    HC_CALL_GOTO(kVariants[k->variant].contract(k, d_left, d_right, d_out), cleanup);
    HC_CALL_CUDA_GOTO(cudaEventRecord(stop, stream), cleanup);
    HC_CALL_CUDA_GOTO(cudaEventSynchronize(stop), cleanup);
    HC_CALL_CUDA_GOTO(cudaEventElapsedTime(&t, start, stop), cleanup);
    if (t < *ms) *ms = t;
    if (t > cutoff_ms) break;
  }
cleanup:
  if (start) cudaEventDestroy(start);
  if (stop) cudaEventDestroy(stop);
  return ierr;
}

// Times every supported variant on k's arrays and returns the fastest whose result agrees with flat's
// within 2 gamma_{K+2} sum_q |a_q b_q| (gamma_n = n u / (1 - n u), u the unit roundoff), the bound each
// correct summation order keeps to. Candidates write into scratch buffers, never into d_out. Without
// device memory for the scratch buffers the choice is flat, untimed.
int tune(cudaStream_t stream, const hc_contract *k, const void *d_left, const void *d_right, void *d_out,
         hc_variant *chosen) {
  int ierr = HC_OK;
  const int64_t n = hc_contract_numel(k, HC_ARRAY_OUT);
  const size_t bytes = (size_t)n * hc_precision_size(k->precision);
  void *d_ref = nullptr, *d_bound = nullptr, *d_x = nullptr;
  *chosen = HC_VARIANT_FLAT;
  if (cudaMalloc(&d_ref, bytes) != cudaSuccess || cudaMalloc(&d_bound, bytes) != cudaSuccess ||
      cudaMalloc(&d_x, bytes) != cudaSuccess) {
    cudaGetLastError();
    goto cleanup;
  }
  {
    hc_contract kf = *k;
    kf.variant = HC_VARIANT_FLAT;
    kf.sum_into = 0;
    HC_CALL_GOTO(hc_contract_cuda_flat(&kf, d_left, d_right, d_ref), cleanup);
    HC_CALL_GOTO(hc_contract_cuda_flat_abs(&kf, d_left, d_right, d_bound), cleanup);
    const double u = k->precision == HC_FLOAT ? ldexp(1.0, -24) : ldexp(1.0, -53);
    const double nk = (double)hc_contract_K(k) + 2.0, tol = 2.0 * nk * u / (1.0 - nk * u);
    float best = INFINITY;
    for (int v = 0; v < HC_NUM_VARIANTS; v++) {
      hc_contract kv = *k;
      kv.variant = (hc_variant)v;
      if (!kVariants[v].supports || kVariants[v].supports(&kv) != HC_OK) {
        hc_error_clear();
        continue;
      }
      // One call on a zeroed output, checked against flat (with sum_into it adds to zero), then timed.
      HC_CALL_CUDA_GOTO(cudaMemsetAsync(d_x, 0, bytes, stream), cleanup);
      if (kVariants[v].contract(&kv, d_left, d_right, d_x) != HC_OK) {
        hc_error_clear();
        continue;
      }
      int64_t bad = 0;
      if (v != HC_VARIANT_FLAT) {
        HC_CALL_GOTO(hc_cuda_count_disagree(k->precision, n, d_x, d_ref, d_bound, tol, &bad), cleanup);
      }
      if (bad) continue;
      float ms;
      if (time_variant(stream, &kv, d_left, d_right, d_x, 3, 2 * best, &ms) != HC_OK) {
        hc_error_clear();
        continue;
      }
      if (ms < best) {
        best = ms;
        *chosen = (hc_variant)v;
      }
    }
  }
cleanup:
  if (d_ref) cudaFree(d_ref);
  if (d_bound) cudaFree(d_bound);
  if (d_x) cudaFree(d_x);
  return ierr;
}

// The variant auto runs for k: the cached choice, or a new one tuned on these arrays.
int auto_choice(hc_cuda_context *ctx, const hc_contract *k, const void *d_left, const void *d_right, void *d_out,
                hc_variant *chosen) {
  std::lock_guard<std::mutex> guard(ctx->tuned_lock);
  *chosen = tuned_lookup(ctx, k);
  if (*chosen != HC_VARIANT_AUTO) return HC_OK;
  HC_CALL(tune(ctx->stream, k, d_left, d_right, d_out, chosen));
  tuned_insert(ctx, k, *chosen);
  return HC_OK;
}

}  // namespace

extern "C" int hc_supports_cuda(const hc_contract *k) {
  HC_CHECK(k->variant >= 0 && k->variant < HC_NUM_VARIANTS, HC_ERR_UNSUPPORTED, "unknown variant %d on backend cuda",
           (int)k->variant);
  HC_CALL(hc_variant_check(k->variant, HC_BACKEND_CUDA));
  if (k->variant == HC_VARIANT_AUTO) return HC_OK;  // flat runs every shape
  return kVariants[k->variant].supports(k);
}

extern "C" int hc_contract_cuda(const hc_contract *k, const void *d_left, const void *d_right, void *d_out) {
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  HC_CALL(hc_supports_cuda(k));
  if (k->variant != HC_VARIANT_AUTO) return kVariants[k->variant].contract(k, d_left, d_right, d_out);
  hc_contract kv = *k;
  HC_CALL(auto_choice(ctx, k, d_left, d_right, d_out, &kv.variant));
  return kVariants[kv.variant].contract(&kv, d_left, d_right, d_out);
}

extern "C" int hc_chosen_variant_cuda(const hc_contract *k, hc_variant *variant) {
  *variant = k->variant;
  if (k->variant != HC_VARIANT_AUTO) return HC_OK;
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  std::lock_guard<std::mutex> guard(ctx->tuned_lock);
  *variant = tuned_lookup(ctx, k);
  return HC_OK;
}

extern "C" int hc_mem_alloc_cuda(size_t bytes, void **d_ptr) {
  *d_ptr = nullptr;
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  if (bytes == 0) return HC_OK;
  cudaError_t err = cudaMalloc(d_ptr, bytes);
  if (err == cudaErrorMemoryAllocation) {
    size_t free_b = 0, total_b = 0;
    cudaGetLastError();
    cudaMemGetInfo(&free_b, &total_b);
    return HC_ERROR(HC_ERR_RESOURCE, "out of device memory allocating %zu bytes (%zu of %zu bytes free)", bytes, free_b,
                    total_b);
  }
  HC_CALL_CUDA(err);
  return HC_OK;
}

extern "C" int hc_mem_free_cuda(void *d_ptr) {
  if (d_ptr) HC_CALL_CUDA(cudaFree(d_ptr));
  return HC_OK;
}

extern "C" int hc_mem_copy_to_device_cuda(void *d_dst, const void *h_src, size_t bytes) {
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  if (bytes) HC_CALL_CUDA(cudaMemcpyAsync(d_dst, h_src, bytes, cudaMemcpyHostToDevice, ctx->stream));
  return HC_OK;
}

extern "C" int hc_mem_copy_to_host_cuda(void *h_dst, const void *d_src, size_t bytes) {
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  if (bytes) {
    HC_CALL_CUDA(cudaMemcpyAsync(h_dst, d_src, bytes, cudaMemcpyDeviceToHost, ctx->stream));
    HC_CALL_CUDA(cudaStreamSynchronize(ctx->stream));
  }
  return HC_OK;
}

extern "C" int hc_stream_synchronize_cuda(void) {
  hc_cuda_context *ctx = nullptr;
  HC_CALL(hc_cuda_context_get(&ctx));
  HC_CALL_CUDA(cudaStreamSynchronize(ctx->stream));
  return HC_OK;
}
