/* `hexcontract contract`: one contraction on arrays from NumPy .npy files, on any backend. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/hc_app.h"
#include "app/hc_measure.h"
#include "app/hc_options.h"
#include "kernels/hc_transfer.h"
#include "io/hc_npy.h"
#include "io/hc_path.h"

/* Where the help of each option starts, and the width --variant's help is wrapped to. */
#define HC_CONTRACT_HELP_COLUMN 21
#define HC_HELP_WIDTH           96

/* --variant's help: auto, and the variants each backend has beyond it (HC_VARIANT_LIST). */
static void hc_contract_variant_help(char *text, size_t size) {
  size_t used = (size_t)snprintf(text, size, "kernel algorithm: %s (default)", hc_variant_name(HC_VARIANT_AUTO));
  for (int b = 0; b < HC_NUM_BACKENDS; b++) {
    const char *names[HC_NUM_VARIANTS];
    int n = 0;
    for (int v = 0; v < HC_NUM_VARIANTS; v++) {
      if (v != HC_VARIANT_AUTO && hc_variant_provided((hc_variant)v, (hc_backend_id)b))
        names[n++] = hc_variant_names[v];
    }
    if (n == 0 || used >= size) continue;
    char list[512];
    hc_names_format(names, n, " and ", list, sizeof(list));
    used += (size_t)snprintf(text + used, size - used, "; the %s backend also has %s", hc_backend_names[b], list);
  }
  hc_options_wrap(text, HC_CONTRACT_HELP_COLUMN, HC_HELP_WIDTH);
}

static void hc_contract_usage(FILE *out, const hc_options *spec) {
  fprintf(out,
          "Usage: hexcontract contract --kernel NAME --left A.npy --right B.npy --out O.npy [options]\n"
          "\n"
          "Runs one of the nine Intrepid contractions on C-order float32 or float64 .npy arrays and writes\n"
          "the result to --out (in the inputs' precision). Shapes (C cells, L/R fields, P points, D dims):\n"
          "  DataDataScalar   left (C,P)          right (C,P)          out (C,)\n"
          "  DataDataVector   left (C,P,D)        right (C,P,D)        out (C,)\n"
          "  DataDataTensor   left (C,P,D,D)      right (C,P,D,D)      out (C,)\n"
          "  DataFieldScalar  left (C,L,P)        right (C,P)          out (C,L)\n"
          "  DataFieldVector  left (C,L,P,D)      right (C,P,D)        out (C,L)\n"
          "  DataFieldTensor  left (C,L,P,D,D)    right (C,P,D,D)      out (C,L)\n"
          "  FieldFieldScalar left (C,L,P)        right (C,R,P)        out (C,L,R)\n"
          "  FieldFieldVector left (C,L,P,D)      right (C,R,P,D)      out (C,L,R)\n"
          "  FieldFieldTensor left (C,L,P,D,D)    right (C,R,P,D,D)    out (C,L,R)\n"
          "For DataField kernels --left is the field array and --right the data array; data with P = 1\n"
          "(shape (C,1,...)) is constant over the points.\n"
          "\n"
          "Options:\n");
  hc_options_help(out, spec);
  fprintf(out,
          "\n"
          "Exit codes: 0 done; 1 runtime failure; 2 bad input or usage (the message names the file or\n"
          "option); 3 out of memory or device.\n");
}

typedef struct {
  const char *kernel, *left, *right, *out, *backend, *variant, *layout;
  int sum_into, repeat;
} hc_contract_options;

/* Reads the command line into o; on --help prints the help and sets *help. */
static int hc_contract_parse(int argc, char **argv, hc_contract_options *o, int *help) {
  char backends[256], backend_help[320], variant_help[1024];
  hc_names_format(hc_backend_names, HC_NUM_BACKENDS, " or ", backends, sizeof(backends));
  snprintf(backend_help, sizeof(backend_help), "%s (default openmp when built, else serial)", backends);
  hc_contract_variant_help(variant_help, sizeof(variant_help));
  const hc_option table[] = {
      {.name = "kernel",
       .value = "NAME",
       .kind = HC_OPTION_STRING,
       .dest = &o->kernel,
       .help = "one of the nine names above (required)"},
      {.name = "left",
       .value = "FILE",
       .kind = HC_OPTION_STRING,
       .dest = &o->left,
       .help = "left array, .npy (required)"},
      {.name = "right",
       .value = "FILE",
       .kind = HC_OPTION_STRING,
       .dest = &o->right,
       .help = "right array, .npy (required)"},
      {.name = "out",
       .value = "FILE",
       .kind = HC_OPTION_STRING,
       .dest = &o->out,
       .help = "output array, .npy, written atomically (required)"},
      {.name = "backend", .value = "NAME", .kind = HC_OPTION_STRING, .dest = &o->backend, .help = backend_help},
      {.name = "variant", .value = "NAME", .kind = HC_OPTION_STRING, .dest = &o->variant, .help = variant_help},
      {.name = "layout",
       .value = "NAME",
       .kind = HC_OPTION_STRING,
       .dest = &o->layout,
       .help = "layout used inside the computation: cell-major (default) or cell-minor;\n"
               "files are always C order (cell-major)"},
      {.name = "sum-into",
       .kind = HC_OPTION_FLAG,
       .dest = &o->sum_into,
       .help = "read the existing --out array and add the contraction into it"},
      {.name = "repeat",
       .value = "N",
       .kind = HC_OPTION_INT,
       .dest = &o->repeat,
       .min = 0,
       .max = 1000000000,
       .help = "also time N more calls (after one warm-up) and print the time per call\n"
               "(median and min) with GB/s and GFLOP/s from the cost model of kernels/README.md"},
      {.name = "help", .short_name = 'h', .kind = HC_OPTION_HELP, .dest = help, .help = "print this help"},
      {0}};
  const hc_options spec = {.options = table,
                           .rules = HC_OPTIONS_GETOPT,
                           .see = " (see hexcontract contract --help)",
                           .help_column = HC_CONTRACT_HELP_COLUMN};
  memset(o, 0, sizeof(*o));
  o->backend = HC_DEFAULT_BACKEND;
  o->variant = "auto";
  o->layout = "cell-major";
  *help = 0;
  HC_CALL(hc_options_parse(&spec, argc, argv));
  if (*help) {
    hc_contract_usage(stdout, &spec);
    return HC_OK;
  }
  HC_CHECK(o->kernel, HC_ERR_INPUT, "option --kernel is required (see hexcontract contract --help)");
  HC_CHECK(o->left, HC_ERR_INPUT, "option --left is required (see hexcontract contract --help)");
  HC_CHECK(o->right, HC_ERR_INPUT, "option --right is required (see hexcontract contract --help)");
  HC_CHECK(o->out, HC_ERR_INPUT, "option --out is required (see hexcontract contract --help)");
  return HC_OK;
}

int hc_cmd_contract(int argc, char **argv) {
  int ierr = HC_OK, help = 0;
  hc_contract_options o;
  hc_npy_array left = {0}, right = {0}, out = {0};
  const hc_backend *backend = NULL;
  void *d_left = NULL, *d_right = NULL, *d_out = NULL;
  hc_contract k;
  HC_CALL(hc_contract_parse(argc, argv, &o, &help));
  if (help) return HC_OK;
  hc_kernel kernel;
  hc_variant variant;
  hc_layout layout;
  HC_CALL(hc_kernel_from_name(o.kernel, &kernel));
  HC_CALL(hc_variant_from_name(o.variant, &variant));
  HC_CALL(hc_layout_from_name(o.layout, &layout));
  HC_CALL(hc_backend_find(o.backend, &backend));
  /* The output, before any work: a new or regular file in a writable directory, and not an input. */
  if (hc_path_check_output(o.out, 0)) {
    char why[1024];
    snprintf(why, sizeof(why), "%s", hc_error_message());
    return HC_ERROR(HC_ERR_INPUT, "option --out %s: %s", o.out, why);
  }
  HC_CHECK(!hc_path_same_file(o.out, o.left, 1) && !hc_path_same_file(o.out, o.right, 1), HC_ERR_INPUT,
           "option --out %s: it is also an input (--left %s, --right %s); writing it would replace that input: name "
           "another file",
           o.out, o.left, o.right);

  HC_CALL_GOTO(hc_npy_read(o.left, &left), cleanup);
  HC_CALL_GOTO(hc_npy_read(o.right, &right), cleanup);
  HC_CHECK_GOTO(left.precision == right.precision, HC_ERR_INPUT, cleanup,
                "%s is %s but %s is %s: both inputs must have the same precision", o.left,
                left.precision == HC_FLOAT ? "float32" : "float64", o.right,
                right.precision == HC_FLOAT ? "float32" : "float64");
  hc_contract_init(&k, kernel);
  if (hc_contract_from_shapes(&k, left.ndim, left.dims, right.ndim, right.dims) != HC_OK) {
    char why[2048];
    snprintf(why, sizeof(why), "%s", hc_error_message());
    ierr = HC_ERROR(HC_ERR_INPUT, "%s and %s: %s", o.left, o.right, why);
    goto cleanup;
  }
  k.layout = layout;
  k.precision = left.precision;
  k.variant = variant;
  k.sum_into = o.sum_into;
  HC_CALL_GOTO(backend->supports(&k), cleanup);

  int ndim;
  int64_t dims[6];
  hc_contract_shape(&k, HC_ARRAY_OUT, &ndim, dims);
  if (o.sum_into) {
    char want[160], got[160];
    HC_CALL_GOTO(hc_npy_read(o.out, &out), cleanup);
    hc_shape_format(ndim, dims, want, sizeof(want));
    hc_shape_format(out.ndim, out.dims, got, sizeof(got));
    int same = out.ndim == ndim;
    for (int i = 0; same && i < ndim; i++) same = out.dims[i] == dims[i];
    HC_CHECK_GOTO(same, HC_ERR_INPUT, cleanup, "%s: --sum-into needs an array of shape %s for %s, found %s", o.out,
                  want, o.kernel, got);
    HC_CHECK_GOTO(out.precision == k.precision, HC_ERR_INPUT, cleanup,
                  "%s: --sum-into needs %s like the inputs, found %s", o.out,
                  k.precision == HC_FLOAT ? "float32" : "float64", out.precision == HC_FLOAT ? "float32" : "float64");
  } else {
    out.precision = k.precision;
    out.ndim = ndim;
    memcpy(out.dims, dims, sizeof(int64_t) * (size_t)ndim);
    out.numel = hc_contract_numel(&k, HC_ARRAY_OUT);
    out.data = malloc((size_t)out.numel * hc_precision_size(k.precision));
    HC_CHECK_GOTO(out.data, HC_ERR_RESOURCE, cleanup, "out of host memory for the output");
  }

  HC_CALL_GOTO(hc_array_upload(backend, &k, HC_ARRAY_LEFT, left.data, &d_left), cleanup);
  HC_CALL_GOTO(hc_array_upload(backend, &k, HC_ARRAY_RIGHT, right.data, &d_right), cleanup);
  HC_CALL_GOTO(hc_array_upload(backend, &k, HC_ARRAY_OUT, o.sum_into ? out.data : NULL, &d_out), cleanup);
  HC_CALL_GOTO(hc_contract_apply(backend, &k, d_left, d_right, d_out), cleanup);
  HC_CALL_GOTO(backend->synchronize(), cleanup);
  HC_CALL_GOTO(hc_array_download(backend, &k, HC_ARRAY_OUT, d_out, out.data), cleanup);
  HC_CALL_GOTO(hc_npy_write(o.out, k.precision, out.ndim, out.dims, out.data), cleanup);

  char shape[160];
  hc_shape_format(out.ndim, out.dims, shape, sizeof(shape));
  printf("%s on %s (%s, %s, variant %s): C=%lld L=%d R=%d P=%d D=%d%s; wrote %s %s\n", hc_kernel_name(k.kernel),
         backend->name, hc_layout_name(k.layout), hc_precision_name(k.precision), hc_variant_name(k.variant),
         (long long)k.C, k.L, k.R, k.P, k.D, k.P_data == 1 && k.P > 1 ? " (constant data)" : "", o.out, shape);
  if (o.repeat > 0) {
    /* Timed calls add into (or overwrite) the device copy only; the file already holds one call. */
    hc_timing t;
    HC_CALL_GOTO(hc_measure_contract(backend, &k, d_left, d_right, d_out, o.repeat, &t), cleanup);
    printf(
        "time per call: median %.6g ms, min %.6g ms over %d calls (after 1 warm-up); %.3f GB/s, %.3f GFLOP/s "
        "at the median (cost model: kernels/README.md)\n",
        1e3 * t.median_s, 1e3 * t.min_s, t.calls, t.gbs, t.gflops);
  }

cleanup:
  if (backend) {
    if (d_left) backend->mem_free(d_left);
    if (d_right) backend->mem_free(d_right);
    if (d_out) backend->mem_free(d_out);
    backend->release();
  }
  hc_npy_free(&left);
  hc_npy_free(&right);
  hc_npy_free(&out);
  return ierr;
}
