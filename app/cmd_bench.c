/* `hexcontract bench`: every kernel x variant at standard shapes, timed against the device's measured
   copy bandwidth, its peak flop rate and the vendor libraries (cuBLAS, cuBLASLt), with every result checked. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "app/hc_app.h"
#include "app/hc_host.h"
#include "app/hc_bench.h"
#include "app/hc_measure.h"
#include "app/hc_options.h"
#include "app/hc_timer.h"
#include "io/hc_path.h"
#include "kernels/hc_roofline.h"

#if HC_HAVE_OPENMP
#include <omp.h>
#endif

/* The standard shapes: linear to quartic hexahedra, (L, P) with R = L and D = 3. */
static const int hc_standard_L[] = {8, 27, 64, 125}, hc_standard_P[] = {8, 27, 64, 216};
/* Cells of the call-overhead case. */
#define HC_OVERHEAD_CELLS 1000
/* Back-to-back calls per timing of the call-overhead case, and timings. */
#define HC_OVERHEAD_CALLS   100
#define HC_OVERHEAD_TIMINGS 5
/* A variant's timed calls stop once they have taken this long (at least 3 calls). */
#define HC_BENCH_VARIANT_SECONDS 1.0
/* Cells of each case checked against the serial reference. */
#define HC_BENCH_SAMPLES 4
/* Array offsets in the pool are aligned to this many bytes. */
#define HC_BENCH_ALIGN 256

static void hc_bench_usage(FILE *out, const hc_options *spec) {
  fprintf(out,
          "Usage: hexcontract bench [options]\n"
          "\n"
          "Times every kernel x variant at the standard shapes against the device's roofline (the copy\n"
          "bandwidth measured in the same run, and the peak flop rate) and against the faster of the vendor\n"
          "variants (cuBLAS, cuBLASLt) on each case, checks every result, and writes DIR/bench.yaml,\n"
          "DIR/bench.csv and the roofline plot DIR/roofline.png.\n"
          "\n"
          "Options:\n");
  hc_options_help(out, spec);
  fprintf(out,
          "\n"
          "Exit codes: 0 ran and every result agreed; 1 a result disagreed (FAILED) or a runtime error;\n"
          "2 bad option; 3 out of memory or no device.\n");
}

/* --kernel: names, family names (DataData, DataField, FieldField) or all, comma-separated. */
static int hc_bench_parse_kernels(const char *text, void *dest) {
  int *sel = dest;
  char buf[1024];
  snprintf(buf, sizeof(buf), "%s", text);
  memset(sel, 0, sizeof(int) * HC_NUM_KERNELS);
  static const char *const families[] = {"DataData", "DataField", "FieldField"};
  char *save = NULL;
  int any = 0, named[HC_NUM_KERNELS] = {0};
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    hc_kernel k;
    int matched = 0;
    if (strcmp(tok, "all") == 0) {
      for (int i = 0; i < HC_NUM_KERNELS; i++) sel[i] = 1;
      matched = 1;
    }
    for (int f = 0; f < 3 && !matched; f++) {
      if (strcmp(tok, families[f]) == 0) {
        for (int r = 0; r < 3; r++) sel[3 * f + r] = 1;
        matched = 1;
      }
    }
    if (!matched) {
      if (hc_kernel_from_name(tok, &k) != HC_OK) {
        hc_error_clear();
        return HC_ERROR(HC_ERR_INPUT,
                        "option --kernel: unknown kernel '%s' (a name such as FieldFieldVector, a family DataData, "
                        "DataField or FieldField, or all)",
                        tok);
      }
      HC_CHECK(!named[k], HC_ERR_INPUT, "option --kernel: %s is named twice in '%s'; name each kernel once", tok, text);
      sel[k] = named[k] = 1;
    }
    any = 1;
  }
  HC_CHECK(any, HC_ERR_INPUT, "option --kernel: no kernel named in '%s'", text);
  return HC_OK;
}

static int hc_bench_parse_variants(const char *text, void *dest) {
  int *sel = dest;
  char buf[1024];
  snprintf(buf, sizeof(buf), "%s", text);
  memset(sel, 0, sizeof(int) * HC_NUM_VARIANTS);
  char *save = NULL;
  int any = 0, named[HC_NUM_VARIANTS] = {0};
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (strcmp(tok, "all") == 0) {
      for (int i = 0; i < HC_NUM_VARIANTS; i++) sel[i] = 1;
    } else {
      hc_variant v;
      if (hc_variant_from_name(tok, &v) != HC_OK) {
        hc_error_clear();
        char names[512];
        hc_names_format(hc_variant_names, HC_NUM_VARIANTS, ", ", names, sizeof(names));
        return HC_ERROR(HC_ERR_INPUT, "option --variant: unknown variant '%s' (%s or all)", tok, names);
      }
      HC_CHECK(!named[v], HC_ERR_INPUT, "option --variant: %s is named twice in '%s'; name each variant once", tok,
               text);
      sel[v] = named[v] = 1;
    }
    any = 1;
  }
  HC_CHECK(any, HC_ERR_INPUT, "option --variant: no variant named in '%s'", text);
  return HC_OK;
}

/* --shapes: standard, or L,P pairs separated by ';'. */
static int hc_bench_parse_shapes(const char *text, void *dest) {
  hc_bench_options *o = dest;
  if (strcmp(text, "standard") == 0) {
    o->nshapes = 4;
    for (int i = 0; i < 4; i++) o->shape_L[i] = hc_standard_L[i], o->shape_P[i] = hc_standard_P[i];
    return HC_OK;
  }
  char buf[1024];
  snprintf(buf, sizeof(buf), "%s", text);
  o->nshapes = 0;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
    HC_CHECK(o->nshapes < HC_BENCH_MAX_SHAPES, HC_ERR_INPUT, "option --shapes: at most %d shapes, got more in '%s'",
             HC_BENCH_MAX_SHAPES, text);
    char *end = NULL;
    errno = 0;
    long L = strtol(tok, &end, 10), P = 0;
    int ok = errno == 0 && end != tok && *end == ',';
    if (ok) {
      char *p = end + 1;
      P = strtol(p, &end, 10);
      ok = errno == 0 && end != p && *end == '\0';
    }
    HC_CHECK(ok && L >= 1 && L <= 4096 && P >= 1 && P <= 4096, HC_ERR_INPUT,
             "option --shapes: expected 'standard' or L,P pairs separated by ';' with L and P from 1 to 4096 "
             "(e.g. 27,27;125,216), got '%s'",
             text);
    o->shape_L[o->nshapes] = (int)L;
    o->shape_P[o->nshapes] = (int)P;
    o->nshapes++;
  }
  HC_CHECK(o->nshapes > 0, HC_ERR_INPUT, "option --shapes: no shape in '%s'", text);
  return HC_OK;
}

/* --out: a directory, not "". */
static int hc_bench_parse_out(const char *text, void *dest) {
  HC_CHECK(text[0] != '\0', HC_ERR_INPUT, "option --out: expected a directory, got ''");
  *(const char **)dest = text;
  return HC_OK;
}

/* Reads the command line into o; on --help prints the help and sets *help. */
static int hc_bench_parse(int argc, char **argv, hc_bench_options *o, int *help) {
  /* In the order of hc_precision and hc_layout, then both. */
  static const char *const precisions[] = {"double", "float", "both", NULL};
  static const char *const layouts[] = {"cell-major", "cell-minor", "both", NULL};
  int precision = 2, layout = 2;
  char backends[256], backend_help[320];
  hc_names_format(hc_backend_names, HC_NUM_BACKENDS, " or ", backends, sizeof(backends));
  snprintf(backend_help, sizeof(backend_help), "%s (default %s)", backends, HC_DEFAULT_BACKEND);
  const hc_option table[] = {
      {.name = "backend", .value = "B", .kind = HC_OPTION_STRING, .dest = &o->backend, .help = backend_help},
      {.name = "kernel",
       .value = "K[,K..]",
       .kind = HC_OPTION_PARSE,
       .dest = o->kernel,
       .parse = hc_bench_parse_kernels,
       .help = "kernels by name, or DataData, DataField, FieldField, all (default all)"},
      {.name = "variant",
       .value = "V[,V..]",
       .kind = HC_OPTION_PARSE,
       .dest = o->variant,
       .parse = hc_bench_parse_variants,
       .help = "variants (default all; those the backend does not run are listed as skipped)"},
      {.name = "precision",
       .value = "P",
       .kind = HC_OPTION_CHOICE,
       .dest = &precision,
       .choices = precisions,
       .help = "double, float or both (default both)"},
      {.name = "layout",
       .value = "L",
       .kind = HC_OPTION_CHOICE,
       .dest = &layout,
       .choices = layouts,
       .help = "cell-major, cell-minor or both (default both)"},
      {.name = "shapes",
       .value = "S",
       .kind = HC_OPTION_PARSE,
       .dest = o,
       .parse = hc_bench_parse_shapes,
       .help = "standard: (L,P) = (8,8), (27,27), (64,64), (125,216); or L,P[;L,P..]\n"
               "(R = L, D = 3; DataData uses P only)"},
      {.name = "memory-gb",
       .value = "G",
       .kind = HC_OPTION_DOUBLE,
       .dest = &o->memory_gb,
       .min = 1e-6,
       .max = 1e4,
       .expected = "a number of GB from 0.000001 to 10000",
       .help = "the arrays of each case fill G GB (1e9 bytes; default 2, capped by the free\n"
               "device and host memory) so that caches do not flatter the result"},
      {.name = "cells",
       .value = "N",
       .kind = HC_OPTION_INT64,
       .dest = &o->cells,
       .min = 1,
       .max = 1000000000,
       .help = "N cells in every case instead of filling the budget"},
      {.name = "repeat",
       .value = "N",
       .kind = HC_OPTION_INT,
       .dest = &o->repeat,
       .min = 1,
       .max = 100000,
       .help = "timed calls per variant after a warm-up (default 10; fewer, at least 3,\n"
               "when a call takes long)"},
      {.name = "out",
       .value = "DIR",
       .kind = HC_OPTION_PARSE,
       .dest = &o->out,
       .parse = hc_bench_parse_out,
       .help = "output directory, created if missing (default ./bench-results)"},
      {.name = "no-intrepid2",
       .kind = HC_OPTION_FLAG,
       .dest = &o->no_intrepid2,
       .help = "on a CPU backend, do not also time Trilinos Intrepid2 on each case's arrays\n"
               "(when the intrepid2 backend is built; one core, so it takes long at 2 GB)"},
      {.name = "help", .short_name = 'h', .kind = HC_OPTION_HELP, .dest = help, .help = "print this help"},
      {0}};
  const hc_options spec = {
      .options = table, .rules = HC_OPTIONS_GETOPT, .see = " (see hexcontract bench --help)", .help_column = 24};
  memset(o, 0, sizeof(*o));
  o->backend = HC_DEFAULT_BACKEND;
  for (int i = 0; i < HC_NUM_KERNELS; i++) o->kernel[i] = 1;
  for (int i = 0; i < HC_NUM_VARIANTS; i++) o->variant[i] = 1;
  HC_CALL(hc_bench_parse_shapes("standard", o));
  o->memory_gb = 2.0;
  o->repeat = 10;
  o->out = "bench-results";
  *help = 0;
  HC_CALL(hc_options_parse(&spec, argc, argv));
  if (*help) {
    hc_bench_usage(stdout, &spec);
    return HC_OK;
  }
  o->precision[HC_DOUBLE] = precision != HC_FLOAT;
  o->precision[HC_FLOAT] = precision != HC_DOUBLE;
  o->layout[HC_LAYOUT_CELL_MAJOR] = layout != HC_LAYOUT_CELL_MINOR;
  o->layout[HC_LAYOUT_CELL_MINOR] = layout != HC_LAYOUT_CELL_MAJOR;
  return HC_OK;
}

static int64_t hc_bench_align(int64_t bytes) {
  return (bytes + HC_BENCH_ALIGN - 1) / HC_BENCH_ALIGN * HC_BENCH_ALIGN;
}

/* Byte offsets of a case's arrays in the pool: left, right, out, and the end. */
static void hc_bench_offsets(const hc_contract *k, int64_t off[4]) {
  const int64_t s = (int64_t)hc_precision_size(k->precision);
  off[0] = 0;
  off[1] = hc_bench_align(hc_contract_numel(k, HC_ARRAY_LEFT) * s);
  off[2] = off[1] + hc_bench_align(hc_contract_numel(k, HC_ARRAY_RIGHT) * s);
  off[3] = off[2] + hc_bench_align(hc_contract_numel(k, HC_ARRAY_OUT) * s);
}

/* The pool: the budget in the backend's memory, its host mirror (the same memory on a CPU backend),
   and the byte range whose contents no longer match the fill (outputs written there). */
typedef struct {
  const hc_backend *b;
  void *d_pool, *h_pool;
  int64_t bytes;
  hc_precision precision;
  uint64_t seed;
  int64_t dirty_lo, dirty_hi;
} hc_bench_pool;

/* Makes the dirty range hold the fill again. */
static int hc_bench_pool_restore(hc_bench_pool *pool) {
  if (pool->dirty_hi <= pool->dirty_lo) return HC_OK;
  const int64_t s = (int64_t)hc_precision_size(pool->precision);
  const int64_t lo = pool->dirty_lo / s * s, hi = (pool->dirty_hi + s - 1) / s * s;
  if (pool->b->is_device) {
    HC_CALL(pool->b->copy_to_device((char *)pool->d_pool + lo, (char *)pool->h_pool + lo, (size_t)(hi - lo)));
  } else {
    hc_fill_random(pool->precision, pool->seed, pool->h_pool, lo / s, hi / s);
  }
  pool->dirty_lo = pool->dirty_hi = 0;
  return HC_OK;
}

static int hc_bench_pool_fill(hc_bench_pool *pool, hc_precision precision) {
  const int64_t s = (int64_t)hc_precision_size(precision);
  pool->precision = precision;
  pool->seed = 1 + (uint64_t)precision;
  hc_fill_random(precision, pool->seed, pool->h_pool, 0, pool->bytes / s);
  if (pool->b->is_device) HC_CALL(pool->b->copy_to_device(pool->d_pool, pool->h_pool, (size_t)pool->bytes));
  HC_CALL(pool->b->synchronize());
  pool->dirty_lo = pool->dirty_hi = 0;
  return HC_OK;
}

static void hc_bench_pool_mark(hc_bench_pool *pool, int64_t lo, int64_t hi) {
  if (pool->dirty_hi <= pool->dirty_lo) {
    pool->dirty_lo = lo, pool->dirty_hi = hi;
  } else {
    if (lo < pool->dirty_lo) pool->dirty_lo = lo;
    if (hi > pool->dirty_hi) pool->dirty_hi = hi;
  }
}

/* The copy bandwidth: half a buffer of the budget's size copied onto the other half (the budget, not
   the pool, so that a small --cells still measures memory rather than cache), read + write bytes counted. */
static int hc_bench_copy_bandwidth(hc_bench *bench, double *gbs, double *gbs_median, int *ncalls) {
  const hc_backend *b = bench->b;
  const size_t half = (size_t)(bench->budget_bytes / 2) / HC_BENCH_ALIGN * HC_BENCH_ALIGN;
  const int calls = bench->opt.repeat < 5 ? 5 : bench->opt.repeat;
  hc_copy_rate rate;
  HC_CALL(hc_measure_copy(b, half, 3, calls < 2 * HC_OVERHEAD_CALLS ? calls : 2 * HC_OVERHEAD_CALLS, 2.0, &rate));
  bench->copy_bytes = rate.bytes;
  *ncalls = rate.calls;
  *gbs = rate.best_gbs;
  *gbs_median = rate.median_gbs;
  return HC_OK;
}

double hc_bench_copy_gbs_larger(const hc_bench *bench) {
  return bench->copy_gbs_end > bench->copy_gbs ? bench->copy_gbs_end : bench->copy_gbs;
}

double hc_bench_row_peak(const hc_bench *bench, const hc_contract *k, hc_variant ran) {
  int tc = k->precision == HC_DOUBLE && (hc_variant_flags(ran) & HC_VARIANT_TENSOR_CORES);
  return bench->peak[k->precision][tc];
}

/* The serial reference on HC_BENCH_SAMPLES cells of k, from the host mirror: ns sampled cells in cells[],
   their outputs cell-major in h_sref (ns x inner out). */
static int hc_bench_sample_reference(const hc_contract *k, const hc_bench_pool *pool, const int64_t off[4],
                                     int64_t cells[HC_BENCH_SAMPLES], int *ns, void *h_sref) {
  int ierr = HC_OK;
  const hc_backend *serial = NULL;
  HC_CALL(hc_backend_get(HC_BACKEND_SERIAL, &serial));
  const int64_t C = k->C;
  const int64_t cand[HC_BENCH_SAMPLES] = {0, C / 3, (2 * C) / 3, C - 1};
  *ns = 0;
  for (int i = 0; i < HC_BENCH_SAMPLES; i++) {
    int dup = 0;
    for (int j = 0; j < *ns; j++) dup |= cells[j] == cand[i];
    if (!dup) cells[(*ns)++] = cand[i];
  }
  hc_contract ks = *k;
  ks.C = *ns;
  ks.layout = HC_LAYOUT_CELL_MAJOR;
  ks.variant = HC_VARIANT_AUTO;
  const size_t s = hc_precision_size(k->precision);
  void *arr[2] = {NULL, NULL};
  for (int a = 0; a < 2; a++) {
    const int64_t inner = hc_contract_inner(k, (hc_array)a);
    const char *src = (const char *)pool->h_pool + off[a];
    arr[a] = malloc((size_t)(inner * *ns) * s);
    HC_CHECK_GOTO(arr[a], HC_ERR_RESOURCE, cleanup, "out of host memory");
    for (int j = 0; j < *ns; j++) {
      char *dst = (char *)arr[a] + (size_t)(j * inner) * s;
      if (k->layout == HC_LAYOUT_CELL_MAJOR) {
        memcpy(dst, src + (size_t)(cells[j] * inner) * s, (size_t)inner * s);
      } else {
        for (int64_t q = 0; q < inner; q++) memcpy(dst + (size_t)q * s, src + (size_t)(q * C + cells[j]) * s, s);
      }
    }
  }
  HC_CALL_GOTO(hc_contract_apply(serial, &ks, arr[0], arr[1], h_sref), cleanup);
cleanup:
  free(arr[0]);
  free(arr[1]);
  return ierr;
}

/* The output entries of the sampled cells of h_out (k->layout), cell-major into h_dst. */
static void hc_bench_extract(const hc_contract *k, const void *h_out, const int64_t *cells, int ns, void *h_dst) {
  const size_t s = hc_precision_size(k->precision);
  const int64_t inner = hc_contract_inner(k, HC_ARRAY_OUT);
  for (int j = 0; j < ns; j++) {
    char *dst = (char *)h_dst + (size_t)(j * inner) * s;
    for (int64_t q = 0; q < inner; q++) {
      int64_t at = k->layout == HC_LAYOUT_CELL_MAJOR ? cells[j] * inner + q : q * k->C + cells[j];
      memcpy(dst + (size_t)q * s, (const char *)h_out + (size_t)at * s, s);
    }
  }
}

void hc_bench_test_perturb(const hc_contract *k, const char *name, void *h_out) {
  const char *perturb = getenv("HC_BENCH_TEST_PERTURB");
  if (!perturb || strcmp(perturb, name) != 0) return;
  if (k->precision == HC_FLOAT) {
    ((float *)h_out)[0] += 1.0f;
  } else {
    ((double *)h_out)[0] += 1.0;
  }
}

/* Host buffers of a case's outputs: the reference (the first variant that agreed with serial), the current
   variant's, and the sampled cells of serial and of the variant. */
typedef struct {
  void *ref, *cur, *sref, *scur;
} hc_bench_buffers;

/* Back-to-back calls of k, host clock, one synchronize: the time per call with its launch, in
   HC_OVERHEAD_TIMINGS timings of HC_OVERHEAD_CALLS calls (sorted later). */
static int hc_bench_back_to_back(const hc_backend *b, const hc_contract *k, const void *d_left, const void *d_right,
                                 void *d_out, double tt[HC_OVERHEAD_TIMINGS]) {
  for (int i = 0; i < HC_OVERHEAD_TIMINGS; i++) {
    double t0 = hc_wtime();
    for (int j = 0; j < HC_OVERHEAD_CALLS; j++) HC_CALL(b->contract(k, d_left, d_right, d_out));
    HC_CALL(b->synchronize());
    tt[i] = (hc_wtime() - t0) / HC_OVERHEAD_CALLS;
  }
  return HC_OK;
}

/* Runs, checks and times one variant of a case; fills row. A variant that cannot run on this case is
   SKIPPED; one that fails at run time or disagrees is FAILED. */
static int hc_bench_variant(hc_bench *bench, hc_bench_case *bc, hc_bench_pool *pool, const int64_t off[4],
                            hc_bench_buffers *buf, const int64_t *cells, int ns, int *have_ref, hc_bench_row *row) {
  const hc_backend *b = bench->b;
  hc_contract k = bc->k;
  k.variant = row->variant;
  row->chosen = row->variant;
  row->status = HC_BENCH_SKIPPED;
  int err = b->supports(&k);
  if (err == HC_ERR_UNSUPPORTED) {
    snprintf(row->reason, sizeof(row->reason), "%s", hc_error_message());
    hc_error_clear();
    return HC_OK;
  }
  HC_CALL(err);
  const int64_t nout = hc_contract_numel(&k, HC_ARRAY_OUT);
  const size_t out_bytes = (size_t)nout * hc_precision_size(k.precision);
  void *d_left = (char *)pool->d_pool + off[0], *d_right = (char *)pool->d_pool + off[1];
  void *d_out = (char *)pool->d_pool + off[2];
  hc_measure_contract_arg a = {&k, d_left, d_right, d_out};
  /* A fresh output region (the fill's values, not an earlier variant's result) shows unwritten entries. */
  HC_CALL(hc_bench_pool_restore(pool));
  hc_bench_pool_mark(pool, off[2], off[2] + (int64_t)out_bytes);
  double t_warm = 0;
  err = hc_measure_call(b, hc_measure_contract_fn, &a, &t_warm);
  if (err == HC_OK) err = b->copy_to_host(buf->cur, d_out, out_bytes);
  if (err == HC_OK) err = b->chosen_variant(&k, &row->chosen);
  if (err != HC_OK) {
    if (err == HC_ERR_UNSUPPORTED || err == HC_ERR_INPUT) {
      snprintf(row->reason, sizeof(row->reason), "%s", hc_error_message());
      hc_error_clear();
      return HC_OK;
    }
    row->status = HC_BENCH_FAILED;
    bench->failures++;
    snprintf(row->reason, sizeof(row->reason), "runtime error: %s", hc_error_message());
    hc_error_clear();
    return HC_OK;
  }
  hc_bench_test_perturb(&k, hc_variant_name(k.variant), buf->cur);

  /* Checks: the sampled cells against serial, then every entry against the reference. */
  const int64_t K = hc_contract_K(&k), inner = hc_contract_inner(&k, HC_ARRAY_OUT);
  row->tol = hc_result_tolerance(k.precision, K, (double)K); /* |entries| < 1: sum |a b| < K */
  int64_t first = -1;
  hc_bench_extract(&k, buf->cur, cells, ns, buf->scur);
  row->bad = hc_result_compare(k.precision, ns * inner, buf->scur, buf->sref, row->tol, &row->max_err, &first);
  if (row->bad) {
    snprintf(row->reason, sizeof(row->reason),
             "disagrees with the serial reference at %lld of the %lld entries of %d sampled cells (first at sampled "
             "cell %lld, entry %lld; max |diff| %.3g, tolerance %.3g)",
             (long long)row->bad, (long long)(ns * inner), ns, (long long)cells[first / inner],
             (long long)(first % inner), row->max_err, row->tol);
  } else if (*have_ref) {
    double err_ref = 0;
    row->bad = hc_result_compare(k.precision, nout, buf->cur, buf->ref, row->tol, &err_ref, &first);
    if (!(err_ref <= row->max_err)) row->max_err = err_ref;
    if (row->bad) {
      snprintf(row->reason, sizeof(row->reason),
               "disagrees with the reference variant at %lld of %lld entries (first at entry %lld of the output "
               "in %s layout; max |diff| %.3g, tolerance %.3g)",
               (long long)row->bad, (long long)nout, (long long)first, hc_layout_name(k.layout), err_ref, row->tol);
    }
  } else {
    memcpy(buf->ref, buf->cur, out_bytes);
    *have_ref = 1;
  }
  if (row->bad) {
    row->status = HC_BENCH_FAILED;
    bench->failures++;
  } else {
    row->status = HC_BENCH_RAN;
  }

  /* Timing. */
  double *t = NULL;
  int calls = 0;
  if (bc->overhead) {
    double tt[HC_OVERHEAD_TIMINGS];
    HC_CALL(hc_bench_back_to_back(b, &k, d_left, d_right, d_out, tt));
    row->median_s = hc_median(tt, HC_OVERHEAD_TIMINGS);
    row->min_s = tt[0];
    row->calls = HC_OVERHEAD_CALLS * HC_OVERHEAD_TIMINGS;
    /* The same on one cell (the first cell of the same arrays), after a call that lets auto choose for that
       shape: the fixed cost of a call, whatever its work. */
    hc_contract k1 = k;
    k1.C = 1;
    row->one_cell_s = -1; /* unknown: a variant that cannot run one cell */
    if (b->supports(&k1) == HC_OK) {
      HC_CALL(b->contract(&k1, d_left, d_right, d_out));
      HC_CALL(hc_bench_back_to_back(b, &k1, d_left, d_right, d_out, tt));
      row->one_cell_s = hc_median(tt, HC_OVERHEAD_TIMINGS);
    }
    hc_error_clear();
  } else {
    int want = bench->opt.repeat;
    if (t_warm > 0 && t_warm * want > HC_BENCH_VARIANT_SECONDS) want = (int)(HC_BENCH_VARIANT_SECONDS / t_warm);
    if (want < 3) want = 3;
    if (want > bench->opt.repeat) want = bench->opt.repeat;
    t = malloc(sizeof(*t) * (size_t)want);
    HC_CHECK(t, HC_ERR_RESOURCE, "out of host memory");
    int e = hc_measure_loop(b, hc_measure_contract_fn, &a, want, want, 0, t, &calls);
    if (e) {
      free(t);
      return e;
    }
    row->median_s = hc_median(t, calls);
    row->min_s = t[0];
    row->calls = calls;
    free(t);
  }
  row->gbs = row->median_s > 0 ? bc->bytes / row->median_s * 1e-9 : 0;
  row->gflops = row->median_s > 0 ? bc->flops / row->median_s * 1e-9 : 0;
  row->peak = hc_bench_row_peak(bench, &k, row->chosen);
  row->roofline_s = hc_roofline_time(bc->flops, bc->bytes, bench->copy_gbs * 1e9, row->peak);
  row->roofline_pct = row->median_s > 0 ? 100.0 * row->roofline_s / row->median_s : 0;
  return HC_OK;
}

static void hc_bench_print_row(const hc_bench_case *bc, const hc_bench_row *r) {
  char name[48];
  if (r->variant == HC_VARIANT_AUTO && r->chosen != HC_VARIANT_AUTO && r->status != HC_BENCH_SKIPPED) {
    snprintf(name, sizeof(name), "auto->%s", hc_variant_name(r->chosen));
  } else {
    snprintf(name, sizeof(name), "%s", hc_variant_name(r->variant));
  }
  if (r->status == HC_BENCH_SKIPPED) {
    printf("      %-16s skipped: %s\n", name, r->reason);
    return;
  }
  if (r->status == HC_BENCH_FAILED && r->calls == 0) {
    printf("      %-16s FAILED: %s\n", name, r->reason);
    return;
  }
  char vs[64] = "";
  if (r->vs_vendor > 0) snprintf(vs, sizeof(vs), "%6.2fx %s", r->vs_vendor, hc_variant_name(bc->vendor_variant));
  if (r->vs_intrepid2 > 0) snprintf(vs + strlen(vs), sizeof(vs) - strlen(vs), "%6.2fx intrepid2/core", r->vs_intrepid2);
  if (bc->overhead) {
    printf("      %-16s %10.2f us/call (min %.2f)  %9.2f GB/s %10.2f GFLOP/s  %s%s%s\n", name, 1e6 * r->median_s,
           1e6 * r->min_s, r->gbs, r->gflops, vs, r->status == HC_BENCH_FAILED ? "  FAILED: " : "",
           r->status == HC_BENCH_FAILED ? r->reason : "");
    return;
  }
  printf("      %-16s %10.4f ms (min %.4f) %9.1f GB/s %10.1f GFLOP/s %6.1f%% roof  %s%s%s\n", name, 1e3 * r->median_s,
         1e3 * r->min_s, r->gbs, r->gflops, r->roofline_pct, vs, r->status == HC_BENCH_FAILED ? "  FAILED: " : "",
         r->status == HC_BENCH_FAILED ? r->reason : "");
}

/* A skipped row's reason without its variant's name ("variant 'tile' is ..." -> "variant is ..."). */
static void hc_bench_skip_reason(const hc_bench_row *r, char *buf, size_t size) {
  char quoted[64];
  snprintf(quoted, sizeof(quoted), " '%s'", hc_variant_name(r->variant));
  const char *at = strstr(r->reason, quoted);
  if (!at) {
    snprintf(buf, size, "%s", r->reason);
    return;
  }
  snprintf(buf, size, "%.*s%s", (int)(at - r->reason), r->reason, at + strlen(quoted));
}

/* Runs every variant of one case. */
static int hc_bench_case_run(hc_bench *bench, hc_bench_case *bc, hc_bench_pool *pool, hc_bench_buffers *buf, int index,
                             int total) {
  const hc_contract *k = &bc->k;
  int64_t off[4], cells[HC_BENCH_SAMPLES];
  int ns = 0, have_ref = 0;
  hc_bench_offsets(k, off);
  HC_CHECK(off[3] <= pool->bytes, HC_ERR_RUNTIME, "case %d does not fit the pool (%lld > %lld bytes)", index,
           (long long)off[3], (long long)pool->bytes);
  HC_CALL(hc_bench_pool_restore(pool));
  HC_CALL(hc_bench_sample_reference(k, pool, off, cells, &ns, buf->sref));
  const double ai = bc->flops / bc->bytes;
  printf("[%3d/%d] %-16s L=%-3d P=%-3d D=%d %-6s %-10s C=%-9lld %s  AI %.3g flop/B\n", index, total,
         hc_kernel_name(k->kernel), k->L, k->P, k->D, hc_precision_name(k->precision), hc_layout_name(k->layout),
         (long long)k->C, bc->overhead ? "small calls" : "", ai);
  /* Every variant asked for in the list's order, auto (the list's first) last: flat, the first after it, is
     the reference. */
  bc->nrows = 0;
  for (int v = 1; v <= HC_NUM_VARIANTS; v++) {
    hc_variant var = (hc_variant)(v % HC_NUM_VARIANTS);
    if (!bench->opt.variant[var] || bench->lacked[var]) continue;
    hc_bench_row *row = &bc->rows[bc->nrows++];
    memset(row, 0, sizeof(*row));
    row->variant = var;
    HC_CALL(hc_bench_variant(bench, bc, pool, off, buf, cells, ns, &have_ref, row));
  }
  HC_CALL(hc_bench_intrepid2_case(bench, bc, (char *)pool->h_pool + off[0], (char *)pool->h_pool + off[1], buf->cur,
                                  buf->ref, have_ref));
  hc_bench_intrepid2_ratios(bench, bc);
  /* Ratios to the fastest vendor variant, and the best variant. */
  hc_bench_vendor_ratios(bench, bc);
  bc->best = -1;
  int ran = 0;
  for (int r = 0; r < bc->nrows; r++) ran += bc->rows[r].status == HC_BENCH_RAN;
  for (int r = 0; r < bc->nrows; r++) {
    const hc_bench_row *row = &bc->rows[r];
    if (row->status != HC_BENCH_RAN) continue;
    if (row->variant == HC_VARIANT_AUTO && ran > 1) continue;
    if (bc->best < 0 || row->median_s < bc->rows[bc->best].median_s) bc->best = r;
  }
  /* Skipped variants with the same reason (but for their name) share one line. */
  for (int r = 0; r < bc->nrows;) {
    char why[HC_BENCH_REASON_LEN], names[128];
    if (bc->rows[r].status != HC_BENCH_SKIPPED) {
      hc_bench_print_row(bc, &bc->rows[r++]);
      continue;
    }
    hc_bench_skip_reason(&bc->rows[r], why, sizeof(why));
    snprintf(names, sizeof(names), "%s", hc_variant_name(bc->rows[r].variant));
    for (r++; r < bc->nrows && bc->rows[r].status == HC_BENCH_SKIPPED; r++) {
      char other[HC_BENCH_REASON_LEN];
      hc_bench_skip_reason(&bc->rows[r], other, sizeof(other));
      if (strcmp(other, why) != 0) break;
      size_t n = strlen(names);
      snprintf(names + n, sizeof(names) - n, ",%s", hc_variant_name(bc->rows[r].variant));
    }
    printf("      %-16s skipped: %s\n", names, why);
  }
  fflush(stdout);
  return HC_OK;
}

/* The list of cases: per precision, kernel, shape and layout (cell-major first, for the vendor ratio), then
   the call-overhead cases. C fills the budget unless --cells is given. */
static int hc_bench_plan(hc_bench *bench, int64_t *pool_bytes, int64_t *max_out) {
  const hc_bench_options *o = &bench->opt;
  int cap = 0;
  for (int pass = 0; pass < 2; pass++) {
    int n = 0;
    *pool_bytes = 0;
    *max_out = 0;
    for (int p = 0; p < 2; p++) {
      if (!o->precision[p]) continue;
      for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
        if (!o->kernel[kid]) continue;
        for (int sh = 0; sh < o->nshapes; sh++) {
          hc_family fam = hc_kernel_family((hc_kernel)kid);
          /* DataData has no fields: shapes of equal P are one case. */
          int dup = 0;
          for (int j = 0; j < sh && fam == HC_FAMILY_DATADATA; j++) dup |= o->shape_P[j] == o->shape_P[sh];
          if (dup) continue;
          for (int lay = 0; lay < 2; lay++) {
            if (!o->layout[lay]) continue;
            hc_contract k;
            hc_contract_init(&k, (hc_kernel)kid);
            k.precision = (hc_precision)p;
            k.layout = (hc_layout)lay;
            k.P = k.P_data = o->shape_P[sh];
            k.D = hc_kernel_rank(k.kernel) > 0 ? 3 : 1;
            k.L = fam == HC_FAMILY_DATADATA ? 1 : o->shape_L[sh];
            k.R = fam == HC_FAMILY_FIELDFIELD ? o->shape_L[sh] : 1;
            const int64_t per_cell = (int64_t)hc_precision_size(k.precision) *
                                     (hc_contract_inner(&k, HC_ARRAY_LEFT) + hc_contract_inner(&k, HC_ARRAY_RIGHT) +
                                      hc_contract_inner(&k, HC_ARRAY_OUT));
            k.C = o->cells > 0 ? o->cells : (int64_t)((bench->budget_bytes - 3 * HC_BENCH_ALIGN) / (double)per_cell);
            HC_CHECK(k.C >= 1, HC_ERR_INPUT,
                     "option --memory-gb: a budget of %.3g GB holds no cell of %s with L = %d, P = %d (%lld bytes "
                     "per cell)",
                     bench->budget_bytes * 1e-9, hc_kernel_name(k.kernel), k.L, k.P, (long long)per_cell);
            int64_t off[4];
            hc_bench_offsets(&k, off);
            if (off[3] > *pool_bytes) *pool_bytes = off[3];
            if (off[3] - off[2] > *max_out) *max_out = off[3] - off[2];
            if (pass == 1) {
              memset(&bench->cases[n], 0, sizeof(bench->cases[n]));
              bench->cases[n].k = k;
            }
            n++;
          }
        }
      }
    }
    /* The call-overhead cases: every kernel asked for at the first shape, 1,000 cells, in the first
       precision and layout asked for. */
    for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
      if (!o->kernel[kid]) continue;
      hc_contract k;
      hc_contract_init(&k, (hc_kernel)kid);
      hc_family fam = hc_kernel_family(k.kernel);
      k.precision = o->precision[HC_DOUBLE] ? HC_DOUBLE : HC_FLOAT;
      k.layout = o->layout[HC_LAYOUT_CELL_MAJOR] ? HC_LAYOUT_CELL_MAJOR : HC_LAYOUT_CELL_MINOR;
      k.P = k.P_data = o->shape_P[0];
      k.D = hc_kernel_rank(k.kernel) > 0 ? 3 : 1;
      k.L = fam == HC_FAMILY_DATADATA ? 1 : o->shape_L[0];
      k.R = fam == HC_FAMILY_FIELDFIELD ? o->shape_L[0] : 1;
      k.C = HC_OVERHEAD_CELLS;
      int64_t off[4];
      hc_bench_offsets(&k, off);
      if (off[3] > *pool_bytes) *pool_bytes = off[3];
      if (off[3] - off[2] > *max_out) *max_out = off[3] - off[2];
      if (pass == 1) {
        memset(&bench->cases[n], 0, sizeof(bench->cases[n]));
        bench->cases[n].k = k;
        bench->cases[n].overhead = 1;
      }
      n++;
    }
    if (pass == 0) {
      cap = n;
      bench->cases = calloc((size_t)(cap > 0 ? cap : 1), sizeof(*bench->cases));
      HC_CHECK(bench->cases, HC_ERR_RESOURCE, "out of host memory");
    }
    bench->ncases = n;
  }
  for (int i = 0; i < bench->ncases; i++) {
    hc_bench_case *bc = &bench->cases[i];
    bc->k.variant = HC_VARIANT_AUTO;
    hc_contract_cost(&bc->k, &bc->flops, &bc->bytes);
  }
  return HC_OK;
}

/* The variants asked for that no case of the run supports, for one reason (a CPU backend's variants
   other than auto): marked in bench->lacked and listed once instead of in every case. None of the variants
   asked for running at all is HC_ERR_INPUT. */
static int hc_bench_find_lacked(hc_bench *bench) {
  int runnable = 0;
  for (int v = 0; v < HC_NUM_VARIANTS; v++) {
    bench->lacked[v] = 0;
    if (!bench->opt.variant[v]) continue;
    int lacked = bench->ncases > 0;
    for (int i = 0; i < bench->ncases && lacked; i++) {
      hc_contract k = bench->cases[i].k;
      k.variant = (hc_variant)v;
      int err = bench->b->supports(&k);
      if (err != HC_ERR_UNSUPPORTED) {
        hc_error_clear();
        lacked = 0;
        break;
      }
      hc_bench_row probe;
      char why[HC_BENCH_REASON_LEN];
      probe.variant = (hc_variant)v;
      snprintf(probe.reason, sizeof(probe.reason), "%s", hc_error_message());
      hc_error_clear();
      hc_bench_skip_reason(&probe, why, sizeof(why));
      if (i == 0) {
        snprintf(bench->lacked_reason[v], sizeof(bench->lacked_reason[v]), "%s", why);
      } else if (strcmp(why, bench->lacked_reason[v]) != 0) {
        lacked = 0;
      }
    }
    bench->lacked[v] = lacked;
    runnable += !lacked;
  }
  if (runnable == 0) {
    char names[256] = "";
    for (int v = 0; v < HC_NUM_VARIANTS; v++) {
      size_t n = strlen(names);
      if (bench->lacked[v])
        snprintf(names + n, sizeof(names) - n, "%s%s", n ? "," : "", hc_variant_name((hc_variant)v));
    }
    int first = 0;
    while (!bench->lacked[first]) first++;
    return HC_ERROR(HC_ERR_INPUT, "option --variant: backend %s runs none of the variants asked for (%s): %s",
                    bench->b->name, names, bench->lacked_reason[first]);
  }
  return HC_OK;
}

/* Prints the variants that bench->lacked marks, one line per reason. */
static void hc_bench_print_lacked(const hc_bench *bench) {
  int done[HC_NUM_VARIANTS] = {0};
  for (int v = 0; v < HC_NUM_VARIANTS; v++) {
    if (!bench->lacked[v] || done[v]) continue;
    char names[256] = "";
    for (int w = v; w < HC_NUM_VARIANTS; w++) {
      if (!bench->lacked[w] || strcmp(bench->lacked_reason[w], bench->lacked_reason[v]) != 0) continue;
      size_t n = strlen(names);
      snprintf(names + n, sizeof(names) - n, "%s%s", n ? "," : "", hc_variant_name((hc_variant)w));
      done[w] = 1;
    }
    printf("  not run in any case: %s: %s\n", names, bench->lacked_reason[v]);
  }
}

/* The memory budget: --memory-gb, capped by the free device memory and the host memory (the host holds
   the pool's mirror on a device backend, and two copies of the largest output). */
static void hc_bench_budget(hc_bench *bench) {
  const hc_backend *b = bench->b;
  double budget = bench->opt.memory_gb * 1e9;
  bench->budget_note[0] = '\0';
  size_t free_b = 0, total_b = 0;
  if (b->is_device && b->device_memory(&free_b, &total_b) == HC_OK && free_b > 0) {
    double cap = 0.85 * (double)free_b;
    if (budget > cap) {
      budget = cap;
      snprintf(bench->budget_note, sizeof(bench->budget_note), "capped at %.2f GB: 85%% of the device's %.2f GB free",
               cap * 1e-9, (double)free_b * 1e-9);
    }
  }
  hc_error_clear();
  double avail = hc_host_mem_available();
  if (avail > 0) {
    double cap = 0.8 * avail / 1.7;
    if (budget > cap) {
      budget = cap;
      snprintf(bench->budget_note, sizeof(bench->budget_note),
               "capped at %.2f GB by the host's %.2f GB available (the pool, its outputs and their copies)", cap * 1e-9,
               avail * 1e-9);
    }
  }
  bench->budget_bytes = budget;
}

/* What the CPU backends run on: the CPU's model and the threads; returns the threads. */
static int hc_bench_cpu_name(const hc_backend *b, char *buf, size_t n) {
  char model[160];
  hc_host_cpu_model(model, sizeof(model));
  int threads = 1;
#if HC_HAVE_OPENMP
  if (b->openmp_threads) threads = omp_get_max_threads();
#endif
  snprintf(buf, n, "%s, %d thread%s", model, threads, threads == 1 ? "" : "s");
  return threads;
}

/* Once every case ran and the copy bandwidth was measured again: each row that ran, at the larger of the
   two copy bandwidths (a regular case above HC_BENCH_ABOVE_ROOF_PCT of its roofline is flagged), and the
   overhead (the time of a one-cell call) and the work (the rest) in each small call. */
static void hc_bench_flag(hc_bench *bench) {
  const double bw = hc_bench_copy_gbs_larger(bench) * 1e9;
  bench->above_roof = 0;
  for (int i = 0; i < bench->ncases; i++) {
    hc_bench_case *bc = &bench->cases[i];
    for (int j = 0; j < bc->nrows; j++) {
      hc_bench_row *r = &bc->rows[j];
      if (r->status != HC_BENCH_RAN || r->median_s <= 0) continue;
      r->roofline_s_larger = hc_roofline_time(bc->flops, bc->bytes, bw, r->peak);
      r->roofline_pct_larger = 100.0 * r->roofline_s_larger / r->median_s;
      r->above_roof = !bc->overhead && r->roofline_pct_larger > HC_BENCH_ABOVE_ROOF_PCT;
      bench->above_roof += r->above_roof;
      if (!bc->overhead) continue;
      /* Without a one-cell time, the work is at least its roofline time. */
      const double one = r->one_cell_s >= 0 ? r->one_cell_s : r->median_s - r->roofline_s_larger;
      r->overhead_s = one < 0 ? 0 : one < r->median_s ? one : r->median_s;
      r->work_s = r->median_s - r->overhead_s;
    }
  }
}

/* The output directory, created when missing, and the files the bench writes there: checked before any
   work, so that an unwritable directory or a FIFO among them is found before the cases run. */
static int hc_bench_check_out(const char *dir) {
  static const char *const files[] = {"bench.yaml", "bench.csv", "roofline.dat", "roofline.gp", "roofline.png"};
  char why[1024];
  int err = hc_path_check_out_dir(dir, 1, files, sizeof(files) / sizeof(*files));
  if (!err) return HC_OK;
  snprintf(why, sizeof(why), "%s", hc_error_message());
  return HC_ERROR(err, "option --out %s: %s", dir, why);
}

static int hc_bench_run(hc_bench *bench) {
  int ierr = HC_OK;
  const hc_backend *b = bench->b;
  hc_bench_pool pool = {.b = b};
  hc_bench_buffers buf = {NULL, NULL, NULL, NULL};
  int64_t pool_bytes = 0, max_out = 0;
  double t_start = hc_wtime();

  /* A device backend without a device stops here, before any output. */
  if (b->is_device) {
    void *probe = NULL;
    HC_CALL(b->mem_alloc(256, &probe));
    HC_CALL(b->mem_free(probe));
    if (b->device_name(bench->device, sizeof(bench->device)) != HC_OK) {
      bench->device[0] = '\0';
      hc_error_clear();
    }
  } else {
    bench->threads = hc_bench_cpu_name(b, bench->device, sizeof(bench->device));
  }
  hc_bench_intrepid2_setup(bench);
  HC_CALL(hc_bench_check_out(bench->opt.out));
  hc_bench_budget(bench);
  HC_CALL(hc_bench_plan(bench, &pool_bytes, &max_out));
  HC_CALL(hc_bench_find_lacked(bench));

  /* Peaks: the CUDA cores' (or CPU cores') and the tensor cores'. */
  for (int p = 0; p < 2; p++) {
    if (!bench->opt.precision[p]) continue;
    for (int tc = 0; tc < 2; tc++) {
      double *peak = &bench->peak[p][tc];
      char *how = bench->peak_how[p][tc];
      if (tc && !b->is_device) {
        *peak = bench->peak[p][0];
        snprintf(how, HC_BENCH_HOW_LEN, "no tensor cores: the same as without");
        continue;
      }
      int err = b->peak_flops((hc_precision)p, tc, 0.0, peak, how, HC_BENCH_HOW_LEN);
      if (err == HC_ERR_UNSUPPORTED) {
        *peak = 0;
        snprintf(how, HC_BENCH_HOW_LEN, "unknown (%s): the roofline is the memory roof alone", hc_error_message());
        hc_error_clear();
      } else {
        HC_CALL(err);
      }
    }
  }
  /* On a device the peak's description names it (until the backend names its device itself). */
  if (!bench->device[0]) {
    const char *how = bench->peak_how[bench->opt.precision[HC_DOUBLE] ? HC_DOUBLE : HC_FLOAT][0];
    snprintf(bench->device, sizeof(bench->device), "%.*s", (int)strcspn(how, ","), how);
  }

  printf("hexcontract bench: backend %s on %s\n", b->name, bench->device);
  printf("  memory budget %.3g GB per case%s%s (pool of %.3g GB); %d cases; results in %s\n",
         bench->budget_bytes * 1e-9, bench->budget_note[0] ? ", " : "", bench->budget_note, (double)pool_bytes * 1e-9,
         bench->ncases, bench->opt.out);
  fflush(stdout);

  HC_CALL(hc_bench_copy_bandwidth(bench, &bench->copy_gbs, &bench->copy_gbs_median, &bench->copy_calls));
  /* The pool, its host mirror and the output buffers. */
  HC_CALL_GOTO(b->mem_alloc((size_t)pool_bytes, &pool.d_pool), cleanup);
  pool.bytes = pool_bytes;
  if (b->is_device) {
    pool.h_pool = malloc((size_t)pool_bytes);
    HC_CHECK_GOTO(pool.h_pool, HC_ERR_RESOURCE, cleanup,
                  "out of host memory for the pool's mirror (%.3g GB); lower "
                  "--memory-gb",
                  (double)pool_bytes * 1e-9);
  } else {
    pool.h_pool = pool.d_pool;
  }
  buf.ref = malloc((size_t)max_out);
  buf.cur = malloc((size_t)max_out);
  HC_CHECK_GOTO(buf.ref && buf.cur, HC_ERR_RESOURCE, cleanup, "out of host memory for the outputs (2 x %.3g GB)",
                (double)max_out * 1e-9);

  printf("  copy bandwidth %.1f GB/s (best of %d calls; median %.1f GB/s), %.3g GB read + written per call\n",
         bench->copy_gbs, bench->copy_calls, bench->copy_gbs_median, bench->copy_bytes * 1e-9);
  for (int p = 0; p < 2; p++) {
    if (!bench->opt.precision[p]) continue;
    printf("  peak %-6s %.1f GFLOP/s (%s)\n", hc_precision_name((hc_precision)p), bench->peak[p][0] * 1e-9,
           bench->peak_how[p][0]);
    if (b->is_device)
      printf("  peak %-6s tensor cores %.1f GFLOP/s (%s)\n", hc_precision_name((hc_precision)p),
             bench->peak[p][1] * 1e-9, bench->peak_how[p][1]);
  }
  printf(
      "  per variant: median time per call (min), GB/s and GFLOP/s (kernels/README.md cost model) of the median,\n"
      "  %% of the roofline max(bytes / copy bandwidth, flops / peak) and the fastest vendor variant's time over\n"
      "  the variant's (named after it)\n");
  if (bench->intrepid2)
    printf("  and Trilinos Intrepid2 (one core) on the same arrays: its time over the variant's times %d thread%s\n",
           bench->threads, bench->threads == 1 ? "" : "s");
  hc_bench_print_lacked(bench);
  fflush(stdout);

  int filled = -1;
  for (int i = 0; i < bench->ncases; i++) {
    hc_bench_case *bc = &bench->cases[i];
    if ((int)bc->k.precision != filled) {
      HC_CALL_GOTO(hc_bench_pool_fill(&pool, bc->k.precision), cleanup);
      filled = (int)bc->k.precision;
    }
    const int64_t inner = hc_contract_inner(&bc->k, HC_ARRAY_OUT);
    const size_t s = hc_precision_size(bc->k.precision);
    free(buf.sref);
    free(buf.scur);
    buf.sref = malloc((size_t)(HC_BENCH_SAMPLES * inner) * s);
    buf.scur = malloc((size_t)(HC_BENCH_SAMPLES * inner) * s);
    HC_CHECK_GOTO(buf.sref && buf.scur, HC_ERR_RESOURCE, cleanup, "out of host memory");
    HC_CALL_GOTO(hc_bench_case_run(bench, bc, &pool, &buf, i + 1, bench->ncases), cleanup);
  }
  /* The copy bandwidth again, with the pool's memory given back: a bandwidth that changed over the run
     (other work on the machine, clocks, NUMA placement) shows, and flags go by the larger of the two. */
  HC_CALL_GOTO(b->mem_free(pool.d_pool), cleanup);
  pool.d_pool = NULL;
  HC_CALL_GOTO(
      hc_bench_copy_bandwidth(bench, &bench->copy_gbs_end, &bench->copy_gbs_end_median, &bench->copy_calls_end),
      cleanup);
  hc_bench_flag(bench);
  bench->seconds = hc_wtime() - t_start;
cleanup:
  if (pool.d_pool) b->mem_free(pool.d_pool);
  if (b->is_device) free(pool.h_pool);
  free(buf.ref);
  free(buf.cur);
  free(buf.sref);
  free(buf.scur);
  return ierr;
}

int hc_cmd_bench(int argc, char **argv) {
  int ierr = HC_OK, help = 0;
  hc_bench bench;
  memset(&bench, 0, sizeof(bench));
  HC_CALL(hc_bench_parse(argc, argv, &bench.opt, &help));
  if (help) return HC_OK;
  HC_CALL(hc_backend_find(bench.opt.backend, &bench.b));
  time_t now = time(NULL);
  strftime(bench.date, sizeof(bench.date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  HC_CALL_GOTO(hc_bench_run(&bench), cleanup);

  hc_bench_print_summary(&bench);
  char path[4096], note[512] = "";
  snprintf(path, sizeof(path), "%s/bench.yaml", bench.opt.out);
  HC_CALL_GOTO(hc_bench_write_yaml(&bench, path), cleanup);
  printf("wrote %s\n", path);
  snprintf(path, sizeof(path), "%s/bench.csv", bench.opt.out);
  HC_CALL_GOTO(hc_bench_write_csv(&bench, path), cleanup);
  printf("wrote %s\n", path);
  HC_CALL_GOTO(hc_bench_plot(&bench, note, sizeof(note)), cleanup);
  if (note[0]) {
    printf("note: %s\n", note);
  } else {
    printf("wrote %s/roofline.png\n", bench.opt.out);
  }
  HC_CHECK_GOTO(bench.failures == 0, HC_ERR_RUNTIME, cleanup,
                "%d result%s disagreed with the reference (rows marked FAILED above and in bench.yaml)", bench.failures,
                bench.failures == 1 ? "" : "s");
  printf("all results agree (serial reference on sampled cells, and the first variant on every entry)\n");
cleanup:
  free(bench.cases);
  bench.b->release();
  return ierr;
}
