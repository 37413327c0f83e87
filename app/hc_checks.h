/* The proxy run's self-checks (checks.c) and the parts of the timestep (run.c) they share; internal to app/. */
#ifndef HC_CHECKS_H
#define HC_CHECKS_H

#include <stdlib.h>

#include "app/hc_run.h"
#include "kernels/hc_xsum.h"

/* The self-checks of app/README.md, section Checks, at the state of the step just run: every check of the
   table in checks.c that applies to the run records its outcome in run->checks. Collective. */
int hc_run_checks(hc_run *run, int step);

/* The cell-data descriptor of this rank at time t, with vertices X0 (backend or host memory). */
void hc_run_desc(const hc_run *run, const double *X0, int64_t C, double t, hc_celldata_desc *desc);

/* Computes k's output for the cells of desc into out (backend memory) as the run's steps do: with run.assembly
   materialized, the cell data into d_left / d_right, then the contraction; fused, the backend's fused operation
   (no input arrays). */
int hc_run_compute(hc_run *run, const hc_celldata_desc *desc, const hc_contract *k, void *out);

/* Sets u to the interpolant of the linear function at the nodes' positions at time t (host memory). */
int hc_run_interpolate_u(hc_run *run, double t);

/* An accumulator of a global sum: a plain double, or an exact one whose value does not depend on the
   order or grouping of the terms (so neither on the rank count) and carries no rounding error. The
   DataData reductions are exact with run.deterministic; the checks' sums always are, so that their
   tolerances only need to cover the arithmetic being checked, however many terms a sum has. */
typedef struct {
  int is_exact;
  double plain;
  hc_xsum exact;
} hc_acc;

/* The most accumulators reduced at once. */
#define HC_ACC_MAX 3

static inline void hc_acc_init(hc_acc *a, int n, int exact) {
  for (int i = 0; i < n; i++) a[i].is_exact = exact, a[i].plain = 0, hc_xsum_init(&a[i].exact);
}

static inline void hc_acc_add(hc_acc *a, double v) {
  if (a->is_exact) {
    hc_xsum_add(&a->exact, v);
  } else {
    a->plain += v;
  }
}

/* Sums n accumulators over the ranks into values[0..n-1]. Collective. */
int hc_acc_allreduce(const hc_run *run, hc_acc *a, int n, double *values);

/* Allocates and zeroes a host array. */
static inline int hc_calloc(size_t n, size_t size, void *ptr) {
  void *p = calloc(n ? n : 1, size);
  HC_CHECK(p, HC_ERR_RESOURCE, "out of host memory allocating %zu bytes", n * size);
  *(void **)ptr = p;
  return HC_OK;
}

/* Entry i of an array of the run's precision, as a double. */
static inline double hc_get(const void *a, hc_precision precision, int64_t i) {
  return precision == HC_FLOAT ? (double)((const float *)a)[i] : ((const double *)a)[i];
}

#endif
