/* The timing loop that every timed call goes through (per-call times on the backend's timer, median and
   minimum), the copy bandwidth, and the reproducible pseudo-random inputs they run on. */
#define _POSIX_C_SOURCE 200809L
#include "app/hc_measure.h"

#include <stdint.h>
#include <stdlib.h>

#include "app/hc_app.h"
#include "kernels/hc_omp.h"

/* The value in [-1, 1) of entry i of the pool of seed: a hash of (seed, i) (splitmix64's finaliser). */
static inline double hc_random_value(uint64_t seed, uint64_t i) {
  uint64_t z = seed * 0xD1B54A32D192ED03ull + i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
}

void hc_fill_random(hc_precision precision, uint64_t seed, void *data, int64_t begin, int64_t end) {
  if (precision == HC_FLOAT) {
    float *x = data;
    HC_OMP_PARALLEL_FOR
    for (int64_t i = begin; i < end; i++) x[i] = (float)hc_random_value(seed, (uint64_t)i);
  } else {
    double *x = data;
    HC_OMP_PARALLEL_FOR
    for (int64_t i = begin; i < end; i++) x[i] = hc_random_value(seed, (uint64_t)i);
  }
}

static int hc_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double hc_median(double *t, int n) {
  qsort(t, (size_t)n, sizeof(*t), hc_cmp_double);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

int hc_measure_call(const hc_backend *b, hc_measure_fn f, const void *arg, double *seconds) {
  HC_CALL(b->timer_start());
  HC_CALL(f(b, arg));
  return b->timer_stop(seconds);
}

int hc_measure_loop(const hc_backend *b, hc_measure_fn f, const void *arg, int min_calls, int max_calls, double max_s,
                    double *times, int *calls) {
  HC_CHECK(min_calls >= 1 && max_calls >= min_calls, HC_ERR_INPUT, "timing loop: bad number of calls (%d..%d)",
           min_calls, max_calls);
  double total = 0;
  int n = 0;
  while (n < max_calls && (n < min_calls || max_s <= 0 || total < max_s)) {
    HC_CALL(hc_measure_call(b, f, arg, &times[n]));
    total += times[n++];
  }
  *calls = n;
  return HC_OK;
}

int hc_measure_contract_fn(const hc_backend *b, const void *arg) {
  const hc_measure_contract_arg *a = arg;
  return b->contract(a->k, a->left, a->right, a->out);
}

int hc_measure_apply_fn(const hc_backend *b, const void *arg) {
  const hc_measure_contract_arg *a = arg;
  return hc_contract_apply(b, a->k, a->left, a->right, a->out);
}

typedef struct {
  void *dst;
  const void *src;
  size_t bytes;
} hc_copy_arg;

static int hc_copy_call(const hc_backend *b, const void *arg) {
  const hc_copy_arg *a = arg;
  return b->mem_copy(a->dst, a->src, a->bytes);
}

#define HC_COPY_MAX_CALLS 256

int hc_measure_copy(const hc_backend *b, size_t half, int min_calls, int max_calls, double max_s, hc_copy_rate *rate) {
  int ierr = HC_OK;
  HC_CHECK(half > 0 && min_calls >= 1 && max_calls >= min_calls && max_calls <= HC_COPY_MAX_CALLS, HC_ERR_INPUT,
           "copy bandwidth: bad buffer (%zu bytes) or calls (%d..%d)", half, min_calls, max_calls);
  void *d_buf = NULL;
  HC_CALL(b->mem_alloc(2 * half, &d_buf));
  hc_copy_arg there = {(char *)d_buf + half, d_buf, half}, back = {d_buf, (char *)d_buf + half, half};
  double t[HC_COPY_MAX_CALLS];
  int n = 0;
  HC_CALL_GOTO(hc_measure_call(b, hc_copy_call, &there, &t[0]), cleanup);
  HC_CALL_GOTO(hc_measure_call(b, hc_copy_call, &back, &t[0]), cleanup);
  HC_CALL_GOTO(hc_measure_loop(b, hc_copy_call, &there, min_calls, max_calls, max_s, t, &n), cleanup);
  rate->bytes = 2.0 * (double)half;
  rate->calls = n;
  double med = hc_median(t, n); /* sorts: t[0] is the fastest */
  rate->best_gbs = t[0] > 0 ? rate->bytes / t[0] * 1e-9 : 0;
  rate->median_gbs = med > 0 ? rate->bytes / med * 1e-9 : 0;
cleanup:
  b->mem_free(d_buf);
  return ierr;
}

int hc_measure_contract(const hc_backend *backend, const hc_contract *k, const void *left, const void *right, void *out,
                        int calls, hc_timing *t) {
  int ierr = HC_OK;
  HC_CHECK(calls >= 1, HC_ERR_INPUT, "the number of timed calls must be at least 1, got %d", calls);
  double *times = malloc(sizeof(*times) * (size_t)calls);
  HC_CHECK(times, HC_ERR_RESOURCE, "out of host memory");
  HC_CALL_GOTO(hc_contract_apply(backend, k, left, right, out), cleanup);
  HC_CALL_GOTO(backend->synchronize(), cleanup);
  const hc_measure_contract_arg a = {k, left, right, out};
  HC_CALL_GOTO(hc_measure_loop(backend, hc_measure_contract_fn, &a, calls, calls, 0, times, &calls), cleanup);
  double sum = 0;
  for (int i = 0; i < calls; i++) sum += times[i];
  double flops, bytes;
  hc_contract_cost(k, &flops, &bytes);
  t->calls = calls;
  t->median_s = hc_median(times, calls);
  t->min_s = times[0];
  t->mean_s = sum / calls;
  t->gbs = t->median_s > 0 ? bytes / t->median_s * 1e-9 : 0;
  t->gflops = t->median_s > 0 ? flops / t->median_s * 1e-9 : 0;
cleanup:
  free(times);
  return ierr;
}
