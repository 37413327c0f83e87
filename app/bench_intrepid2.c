/* hexcontract bench beside Trilinos Intrepid2: each case of a CPU backend also runs on the intrepid2 backend,
   on the same input arrays, checked against the case's reference and timed, for the per-core speed-up column
   (Intrepid2's time over ours times our threads). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/hc_bench.h"
#include "app/hc_measure.h"
#include "kernels/hc_roofline.h"

/* Timed calls stop once they have taken this long (at least 3 unless the first call alone took longer). */
#define HC_BENCH_INTREPID2_SECONDS 1.0

void hc_bench_intrepid2_setup(hc_bench *bench) {
  bench->intrepid2 = NULL;
  if (bench->b->is_device || bench->opt.no_intrepid2) return;
  if (hc_backend_get(HC_BACKEND_INTREPID2, &bench->intrepid2) != HC_OK || bench->intrepid2 == bench->b) {
    bench->intrepid2 = NULL;
    hc_error_clear();
  }
}

static void hc_bench_intrepid2_fail(hc_bench *bench, hc_bench_case *bc, const char *why) {
  bc->intrepid2_status = HC_BENCH_FAILED;
  snprintf(bc->intrepid2_reason, sizeof(bc->intrepid2_reason), "%s", why);
  bench->failures++;
  printf("      %-16s FAILED: %s\n", "intrepid2", why);
}

int hc_bench_intrepid2_case(hc_bench *bench, hc_bench_case *bc, const void *left, const void *right, void *h_out,
                            const void *h_ref, int have_ref) {
  const hc_backend *i2 = bench->intrepid2;
  hc_contract k = bc->k;
  k.variant = HC_VARIANT_AUTO;
  bc->intrepid2_status = HC_BENCH_SKIPPED;
  bc->intrepid2_calls = 0;
  bc->intrepid2_s = 0;
  if (!i2 || bc->overhead) return HC_OK;
  char why[HC_BENCH_REASON_LEN];
  /* The first call is checked; it is also the only timing when it takes longer than the budget of calls. */
  const hc_measure_contract_arg a = {&k, left, right, h_out};
  double first = 0;
  int err = hc_measure_call(i2, hc_measure_apply_fn, &a, &first);
  if (err) {
    snprintf(why, sizeof(why), "runtime error: %s", hc_error_message());
    hc_error_clear();
    hc_bench_intrepid2_fail(bench, bc, why);
    return HC_OK;
  }
  hc_bench_test_perturb(&k, "intrepid2", h_out);
  const int64_t nout = hc_contract_numel(&k, HC_ARRAY_OUT), K = hc_contract_K(&k);
  const double tol = hc_result_tolerance(k.precision, K, (double)K);
  int64_t bad = 0, at = -1;
  bc->intrepid2_err = 0;
  if (have_ref) bad = hc_result_compare(k.precision, nout, h_out, h_ref, tol, &bc->intrepid2_err, &at);
  if (bad) {
    snprintf(why, sizeof(why),
             "Intrepid2 disagrees with the reference variant at %lld of %lld entries (first at entry %lld of the "
             "output in %s layout; max |diff| %.3g, tolerance %.3g)",
             (long long)bad, (long long)nout, (long long)at, hc_layout_name(k.layout), bc->intrepid2_err, tol);
    hc_bench_intrepid2_fail(bench, bc, why);
    return HC_OK;
  }
  int want = bench->opt.repeat;
  if (first * want > HC_BENCH_INTREPID2_SECONDS) want = (int)(HC_BENCH_INTREPID2_SECONDS / first);
  if (want < 3) want = first > HC_BENCH_INTREPID2_SECONDS ? 0 : 3;
  double *t = malloc(sizeof(*t) * (size_t)(want > 0 ? want : 1));
  HC_CHECK(t, HC_ERR_RESOURCE, "out of host memory");
  int n = 0;
  if (want == 0) t[n++] = first;
  err = want > 0 ? hc_measure_loop(i2, hc_measure_apply_fn, &a, want, want, 0, t, &n) : HC_OK;
  if (err) {
    free(t);
    return err;
  }
  bc->intrepid2_s = hc_median(t, n);
  bc->intrepid2_calls = n;
  bc->intrepid2_status = HC_BENCH_RAN;
  printf("      %-16s %10.4f ms (min %.4f) %9.1f GB/s %10.1f GFLOP/s  Trilinos Intrepid2 on the same arrays\n",
         "intrepid2", 1e3 * bc->intrepid2_s, 1e3 * t[0], bc->bytes / bc->intrepid2_s * 1e-9,
         bc->flops / bc->intrepid2_s * 1e-9);
  free(t);
  return HC_OK;
}

void hc_bench_intrepid2_ratios(const hc_bench *bench, hc_bench_case *bc) {
  const int threads = bench->threads > 0 ? bench->threads : 1;
  for (int r = 0; r < bc->nrows; r++) {
    hc_bench_row *row = &bc->rows[r];
    row->vs_intrepid2 = 0;
    if (bc->intrepid2_status == HC_BENCH_RAN && row->status == HC_BENCH_RAN && row->median_s > 0)
      row->vs_intrepid2 = bc->intrepid2_s / (row->median_s * threads);
  }
}
