/* Timing on a backend: one timing loop (hc_measure_loop, BabelStream's) that every timed call of hexcontract goes
   through (contract --repeat, bench, the run's contraction phase), the calls it times, and the copy bandwidth. */
#ifndef HC_MEASURE_H
#define HC_MEASURE_H

#include "kernels/hc_kernels.h"

typedef struct {
  int calls;       /* timed calls (after one warm-up call) */
  double median_s; /* median seconds per call */
  double min_s;    /* fastest call */
  double mean_s;   /* mean seconds per call */
  double gbs;      /* cost-model bytes / median time, GB/s */
  double gflops;   /* cost-model flops / median time, GFLOP/s */
} hc_timing;

/* Runs k once to warm up, then `calls` times through hc_measure_loop. Arrays are in the backend's memory; out
   is overwritten or added into as k says. */
int hc_measure_contract(const hc_backend *backend, const hc_contract *k, const void *left, const void *right, void *out,
                        int calls, hc_timing *t);

/* The median of t[0..n-1], n >= 1 (sorts t). */
double hc_median(double *t, int n);

/* One call to time: f(backend, arg). */
typedef int (*hc_measure_fn)(const hc_backend *backend, const void *arg);

/* The seconds of one call of f on the backend's timer (hc_backend.timer_start/timer_stop): CUDA events on the
   backend's stream on a device, the wall clock on the host, whose work is done when the call returns. */
int hc_measure_call(const hc_backend *backend, hc_measure_fn f, const void *arg, double *seconds);

/* The timing loop: calls f at least min_calls and at most max_calls times, each timed on its own by
   hc_measure_call, stopping after min_calls once the timed calls add up to max_s seconds (max_s <= 0: no time
   limit). times (max_calls entries) gets each call's seconds in call order, *calls how many ran. */
int hc_measure_loop(const hc_backend *backend, hc_measure_fn f, const void *arg, int min_calls, int max_calls,
                    double max_s, double *times, int *calls);

/* One contraction call for hc_measure_call and hc_measure_loop: hc_measure_contract_fn runs backend->contract on
   it, hc_measure_apply_fn hc_contract_apply (validated first). Arrays in the backend's memory. */
typedef struct {
  const hc_contract *k;
  const void *left, *right;
  void *out;
} hc_measure_contract_arg;
int hc_measure_contract_fn(const hc_backend *backend, const void *arg);
int hc_measure_apply_fn(const hc_backend *backend, const void *arg);

/* A copy bandwidth: bytes read + written per call, over the fastest and the median call. */
typedef struct {
  double bytes; /* read + written per call */
  int calls;    /* timed calls */
  double best_gbs, median_gbs;
} hc_copy_rate;

/* The backend's copy bandwidth (hc_backend.mem_copy, HC_ERR_UNSUPPORTED without one): a buffer of 2 x half
   bytes of its memory, one half copied onto the other. A warm-up copies each way first, so that both halves
   are written before any timed call (a source never written would be the operating system's shared zero page
   on the host, read from cache: about twice the true bandwidth); then at least min_calls and at most
   max_calls (<= 256) timed calls, stopping once they have taken max_s seconds. */
int hc_measure_copy(const hc_backend *backend, size_t half, int min_calls, int max_calls, double max_s,
                    hc_copy_rate *rate);

#endif
