/* `hexcontract demo`: the nine contractions on generated arrays
   on every backend built in, checked against the serial reference and timed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/hc_app.h"
#include "app/hc_measure.h"
#include "app/hc_options.h"
#include "kernels/hc_transfer.h"

/* Largest |x - ref| over n entries, relative to the bound K of |sum_q a_q b_q| for entries in [-1, 1]. */
static double hc_max_error(hc_precision precision, int64_t n, const void *x, const void *ref, double K) {
  double e = 0;
  for (int64_t i = 0; i < n; i++) {
    double a = precision == HC_FLOAT ? ((const float *)x)[i] : ((const double *)x)[i];
    double b = precision == HC_FLOAT ? ((const float *)ref)[i] : ((const double *)ref)[i];
    double d = fabs(a - b) / K;
    if (!(d <= e)) e = d; /* NaN propagates */
  }
  return e;
}

static void hc_demo_usage(FILE *out, const hc_options *spec) {
  fprintf(out,
          "Usage: hexcontract demo [--backend NAME] [--cells N]\n"
          "\n"
          "Runs the nine contractions at the shape of quadratic hexahedra (L = R = P = 27, D = 3) on N\n"
          "generated cells, in double, in both layouts, on every backend built in other than serial (or on\n"
          "the one named), checks each against the serial reference and prints the median time of 5 calls.\n"
          "A device backend with no device present is reported as skipped.\n"
          "\n"
          "Options:\n");
  hc_options_help(out, spec);
  fprintf(out,
          "\n"
          "Exit codes: 0 every result agrees with the serial reference; 1 a result disagreed (FAILED) or a\n"
          "runtime error; 2 bad option or a backend not built into this binary; 3 out of memory, or no backend\n"
          "could run (a device backend without a device).\n");
}

/* Reads the command line into backend and cells; on --help prints the help and sets *help. */
static int hc_demo_parse(int argc, char **argv, const char **backend, int *cells, int *help) {
  char names[256], backend_help[320];
  hc_names_format(hc_backend_names, HC_NUM_BACKENDS, " or ", names, sizeof(names));
  snprintf(backend_help, sizeof(backend_help), "%s (default: every backend built in but serial)", names);
  const hc_option table[] = {
      {.name = "backend", .value = "NAME", .kind = HC_OPTION_STRING, .dest = backend, .help = backend_help},
      {.name = "cells",
       .value = "N",
       .kind = HC_OPTION_INT,
       .dest = cells,
       .min = 1,
       .max = 10000000,
       .help = "cells per array, 1 to 10000000 (default 2000)"},
      {.name = "help", .short_name = 'h', .kind = HC_OPTION_HELP, .dest = help, .help = "print this help"},
      {0}};
  const hc_options spec = {
      .options = table, .rules = HC_OPTIONS_GETOPT, .see = " (see hexcontract demo --help)", .help_column = 19};
  HC_CALL(hc_options_parse(&spec, argc, argv));
  if (*help) hc_demo_usage(stdout, &spec);
  return HC_OK;
}

/* Runs one kernel on one backend against the serial result ref; prints one table row. */
static int hc_demo_case(const hc_backend *b, const hc_contract *k, const void *h_left, const void *h_right,
                        const void *ref, void *h_out, int *failed) {
  int ierr = HC_OK;
  void *d_left = NULL, *d_right = NULL, *d_out = NULL;
  HC_CALL_GOTO(hc_array_upload(b, k, HC_ARRAY_LEFT, h_left, &d_left), cleanup);
  HC_CALL_GOTO(hc_array_upload(b, k, HC_ARRAY_RIGHT, h_right, &d_right), cleanup);
  HC_CALL_GOTO(hc_array_upload(b, k, HC_ARRAY_OUT, NULL, &d_out), cleanup);
  HC_CALL_GOTO(hc_contract_apply(b, k, d_left, d_right, d_out), cleanup);
  HC_CALL_GOTO(b->synchronize(), cleanup);
  HC_CALL_GOTO(hc_array_download(b, k, HC_ARRAY_OUT, d_out, h_out), cleanup);
  double K = (double)hc_contract_K(k);
  double err = hc_max_error(k->precision, hc_contract_numel(k, HC_ARRAY_OUT), h_out, ref, K);
  double tol = 16.0 * (k->precision == HC_FLOAT ? 1.2e-7 : 2.3e-16) * sqrt(K) * 4;
  int ok = err <= tol;
  *failed |= !ok;
  hc_timing t;
  HC_CALL_GOTO(hc_measure_contract(b, k, d_left, d_right, d_out, 5, &t), cleanup);
  printf("  %-17s %-9s %-10s %10.4f %9.2f %9.2f   %.1e (tol %.0e) %s\n", hc_kernel_name(k->kernel), b->name,
         hc_layout_name(k->layout), 1e3 * t.median_s, t.gbs, t.gflops, err, tol, ok ? "ok" : "FAILED");
cleanup:
  if (d_left) b->mem_free(d_left);
  if (d_right) b->mem_free(d_right);
  if (d_out) b->mem_free(d_out);
  return ierr;
}

int hc_cmd_demo(int argc, char **argv) {
  int ierr = HC_OK, help = 0, failed = 0;
  const char *only = NULL;
  int cells = 2000;
  HC_CALL(hc_demo_parse(argc, argv, &only, &cells, &help));
  if (help) return HC_OK;
  const hc_backend *serial, *backends[HC_NUM_BACKENDS];
  int nb = 0;
  HC_CALL(hc_backend_get(HC_BACKEND_SERIAL, &serial));
  if (only) {
    HC_CALL(hc_backend_find(only, &backends[nb++]));
  } else {
    /* serial is the reference every row is checked against; time the other backends. */
    for (int i = 0; i < HC_NUM_BACKENDS; i++) {
      if (i != HC_BACKEND_SERIAL && hc_backend_get((hc_backend_id)i, &backends[nb]) == HC_OK) nb++;
    }
    if (nb == 0) backends[nb++] = serial;
    hc_error_clear();
  }
  printf("hexcontract demo: nine contractions, C=%d cells, L=R=P=27, D=3, double; errors relative to K\n", cells);
  printf("  %-17s %-9s %-10s %10s %9s %9s   %s\n", "kernel", "backend", "layout", "ms/call", "GB/s", "GFLOP/s",
         "max error vs serial");
  void *h_left = NULL, *h_right = NULL, *ref = NULL, *h_out = NULL;
  int skipped[4] = {0, 0, 0, 0};
  for (int kid = 0; kid < HC_NUM_KERNELS && !ierr; kid++) {
    hc_contract k;
    hc_contract_init(&k, (hc_kernel)kid);
    hc_family fam = hc_kernel_family(k.kernel);
    k.C = cells;
    k.P = k.P_data = 27;
    k.D = hc_kernel_rank(k.kernel) > 0 ? 3 : 1;
    k.L = fam == HC_FAMILY_DATADATA ? 1 : 27;
    k.R = fam == HC_FAMILY_FIELDFIELD ? 27 : 1;
    size_t s = hc_precision_size(k.precision);
    h_left = malloc((size_t)hc_contract_numel(&k, HC_ARRAY_LEFT) * s);
    h_right = malloc((size_t)hc_contract_numel(&k, HC_ARRAY_RIGHT) * s);
    ref = calloc((size_t)hc_contract_numel(&k, HC_ARRAY_OUT), s);
    h_out = malloc((size_t)hc_contract_numel(&k, HC_ARRAY_OUT) * s);
    HC_CHECK_GOTO(h_left && h_right && ref && h_out, HC_ERR_RESOURCE, cleanup, "out of host memory");
    hc_fill_random(k.precision, 2 * kid + 1, h_left, 0, hc_contract_numel(&k, HC_ARRAY_LEFT));
    hc_fill_random(k.precision, 2 * kid + 2, h_right, 0, hc_contract_numel(&k, HC_ARRAY_RIGHT));
    HC_CALL_GOTO(hc_contract_apply(serial, &k, h_left, h_right, ref), cleanup);
    for (int bi = 0; bi < nb; bi++) {
      for (int layout = 0; layout < 2 && !skipped[bi]; layout++) {
        k.layout = (hc_layout)layout;
        int err = hc_demo_case(backends[bi], &k, h_left, h_right, ref, h_out, &failed);
        if (err == HC_ERR_RESOURCE && backends[bi]->is_device) {
          printf("  %-7s skipped: %s\n", backends[bi]->name, hc_error_message());
          hc_error_clear();
          skipped[bi] = 1;
          break;
        }
        HC_CALL_GOTO(err, cleanup);
      }
    }
    free(h_left), free(h_right), free(ref), free(h_out);
    h_left = h_right = ref = h_out = NULL;
  }
  HC_CHECK_GOTO(!failed, HC_ERR_RUNTIME, cleanup, "a backend disagreed with the serial reference (rows marked FAILED)");
  int ran = 0;
  for (int bi = 0; bi < nb; bi++) ran += !skipped[bi];
  HC_CHECK_GOTO(ran > 0, HC_ERR_RESOURCE, cleanup, "no backend could run (see the skipped lines above)");
  printf("all results agree with the serial reference\n");
cleanup:
  free(h_left), free(h_right), free(ref), free(h_out);
  return ierr;
}
