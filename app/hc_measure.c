/* Timing of repeated contraction calls: warm-up, then per-call times, median and minimum. */
#define _POSIX_C_SOURCE 200809L
#include "app/hc_measure.h"

#include <stdlib.h>

#include "app/hc_timer.h"

static int hc_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int hc_measure_contract(const hc_backend *backend, const hc_contract *k, const void *left, const void *right, void *out,
                        int calls, hc_timing *t) {
  int ierr = HC_OK;
  HC_CHECK(calls >= 1, HC_ERR_INPUT, "the number of timed calls must be at least 1, got %d", calls);
  double *times = malloc(sizeof(*times) * (size_t)calls);
  HC_CHECK(times, HC_ERR_RESOURCE, "out of host memory");
  HC_CALL_GOTO(hc_contract_apply(backend, k, left, right, out), cleanup);
  HC_CALL_GOTO(backend->synchronize(), cleanup);
  double sum = 0;
  for (int i = 0; i < calls; i++) {
    double t0 = hc_wtime();
    HC_CALL_GOTO(backend->contract(k, left, right, out), cleanup);
    HC_CALL_GOTO(backend->synchronize(), cleanup);
    times[i] = hc_wtime() - t0;
    sum += times[i];
  }
  qsort(times, (size_t)calls, sizeof(*times), hc_cmp_double);
  double flops, bytes;
  hc_contract_cost(k, &flops, &bytes);
  t->calls = calls;
  t->median_s = calls % 2 ? times[calls / 2] : 0.5 * (times[calls / 2 - 1] + times[calls / 2]);
  t->min_s = times[0];
  t->mean_s = sum / calls;
  t->gbs = t->median_s > 0 ? bytes / t->median_s * 1e-9 : 0;
  t->gflops = t->median_s > 0 ? flops / t->median_s * 1e-9 : 0;
cleanup:
  free(times);
  return ierr;
}
