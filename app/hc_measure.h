/* Timing of repeated contraction calls on a backend. */
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

/* Runs k once to warm up, then `calls` times, each timed on its own with the backend synchronised.
   Arrays are in the backend's memory; out is overwritten or added into as k says. */
int hc_measure_contract(const hc_backend *backend, const hc_contract *k, const void *left, const void *right, void *out,
                        int calls, hc_timing *t);

#endif
