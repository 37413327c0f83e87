/* hexcontract bench's reports: the summary table, bench.yaml, bench.csv and the roofline plot. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "app/hc_bench.h"
#include "io/hc_results.h"
#include "hc_config.h"
#include "io/hc_atomic_file.h"
#include "io/hc_yaml_writer.h"

#define HC_BENCH_SCHEMA "hexcontract-bench/1"

static const char *hc_status_name(hc_bench_status s) {
  return s == HC_BENCH_RAN ? "ok" : s == HC_BENCH_SKIPPED ? "skipped" : "FAILED";
}

static const char *hc_bound_name(const hc_bench *bench, const hc_bench_case *bc, double peak) {
  double t_mem = bc->bytes / (bench->copy_gbs * 1e9), t_flop = peak > 0 ? bc->flops / peak : 0;
  return t_flop > t_mem ? "compute" : "memory";
}

const char *hc_bench_small_call_bound(const hc_bench *bench, const hc_bench_case *bc, const hc_bench_row *r) {
  if (!(r->work_s >= HC_BENCH_WORK_SHARE * r->median_s)) return "call overhead";
  double t_mem = bc->bytes / (hc_bench_copy_gbs_larger(bench) * 1e9), t_flop = r->peak > 0 ? bc->flops / r->peak : 0;
  return t_flop > t_mem ? "compute" : "memory";
}

void hc_bench_print_summary(const hc_bench *bench) {
  printf("\nSummary: the best variant per case (%s on %s; copy %.1f GB/s", bench->b->name, bench->device,
         bench->copy_gbs);
  for (int p = 0; p < 2; p++) {
    if (!bench->opt.precision[p]) continue;
    printf("; %s peak %.0f GFLOP/s", hc_precision_name((hc_precision)p), bench->peak[p][0] * 1e-9);
    if (bench->b->is_device && bench->peak[p][1] != bench->peak[p][0])
      printf(" (%.0f on tensor cores)", bench->peak[p][1] * 1e-9);
  }
  printf(")\n");
  printf("  %-16s %4s %4s %-6s %-10s %9s %-16s %10s %8s %9s %7s %7s %8s %-8s%s\n", "kernel", "L", "P", "prec", "layout",
         "C", "best", "ms", "GB/s", "GFLOP/s", "%roof", "bound", "xvendor", "vendor",
         bench->intrepid2 ? "  xintrepid2/core" : "");
  int flagged = 0;
  for (int i = 0; i < bench->ncases; i++) {
    const hc_bench_case *bc = &bench->cases[i];
    if (bc->overhead) continue;
    const hc_contract *k = &bc->k;
    char best[40] = "-", vs[16] = "-", vi2[24] = "";
    const hc_bench_row *r = bc->best >= 0 ? &bc->rows[bc->best] : NULL;
    if (r) {
      snprintf(best, sizeof(best), "%s", hc_variant_name(r->variant));
      if (r->variant == HC_VARIANT_AUTO && r->chosen != HC_VARIANT_AUTO)
        snprintf(best, sizeof(best), "auto->%s", hc_variant_name(r->chosen));
      if (r->vs_vendor > 0) snprintf(vs, sizeof(vs), "%.2f", r->vs_vendor);
    }
    if (bench->intrepid2) snprintf(vi2, sizeof(vi2), "  %16s", "-");
    if (r && r->vs_intrepid2 > 0) snprintf(vi2, sizeof(vi2), "  %16.2f", r->vs_intrepid2);
    int failed = 0;
    for (int j = 0; j < bc->nrows; j++) failed |= bc->rows[j].status == HC_BENCH_FAILED;
    failed |= bc->intrepid2_status == HC_BENCH_FAILED;
    flagged += r && r->above_roof;
    printf("  %-16s %4d %4d %-6s %-10s %9lld %-16s %10.4f %8.1f %9.1f %6.1f%% %7s %8s %-8s%s%s%s\n",
           hc_kernel_name(k->kernel), k->L, k->P, hc_precision_name(k->precision), hc_layout_name(k->layout),
           (long long)k->C, best, r ? 1e3 * r->median_s : 0.0, r ? r->gbs : 0.0, r ? r->gflops : 0.0,
           r ? r->roofline_pct : 0.0, r ? hc_bound_name(bench, bc, r->peak) : "-", vs,
           r && r->vs_vendor > 0 ? hc_variant_name(bc->vendor_variant) : "-", vi2,
           r && r->above_roof ? "  ABOVE-ROOF" : "", failed ? "  FAILED" : "");
  }
  printf(
      "copy bandwidth %.1f GB/s at the start, %.1f GB/s at the end (best of %d calls; median %.1f GB/s); %%roof "
      "above uses the start\n",
      bench->copy_gbs, bench->copy_gbs_end, bench->copy_calls_end, bench->copy_gbs_end_median);
  if (bench->above_roof) {
    printf(
        "%d row%s above %.0f%% of the roofline even at the larger copy bandwidth (%.1f GB/s), %d of them a case's "
        "best\n(marked ABOVE-ROOF): the copy bandwidth understates what these reach (caches holding the arrays, "
        "or a host\ncopy's unseen write-allocate reads), so their %%roof overstates them\n",
        bench->above_roof, bench->above_roof == 1 ? "" : "s", HC_BENCH_ABOVE_ROOF_PCT, hc_bench_copy_gbs_larger(bench),
        flagged);
  } else {
    printf("no variant above %.0f%% of the roofline at the larger of the two\n", HC_BENCH_ABOVE_ROOF_PCT);
  }
  hc_bench_targets_print(bench);
  int work = 0;
  for (int i = 0; i < bench->ncases && !work; i++) {
    const hc_bench_case *bc = &bench->cases[i];
    for (int j = 0; j < bc->nrows && bc->overhead; j++)
      work |= bc->rows[j].status == HC_BENCH_RAN &&
              strcmp(hc_bench_small_call_bound(bench, bc, &bc->rows[j]), "call overhead") != 0;
  }
  printf(
      "\n%s (%d cells, back-to-back calls): the time per call, the call overhead in it (the time of the same\n"
      "calls on one cell), and what dominates it: \"call overhead\" where the work (the rest) is under %.0f%% of\n"
      "it, else the roof that bounds the work:\n",
      work ? "Small calls" : "Call overhead", 1000, 100 * HC_BENCH_WORK_SHARE);
  for (int i = 0; i < bench->ncases; i++) {
    const hc_bench_case *bc = &bench->cases[i];
    if (!bc->overhead) continue;
    printf("  %-16s L=%-3d P=%-3d %-6s", hc_kernel_name(bc->k.kernel), bc->k.L, bc->k.P,
           hc_precision_name(bc->k.precision));
    for (int j = 0; j < bc->nrows; j++) {
      const hc_bench_row *r = &bc->rows[j];
      if (r->status == HC_BENCH_SKIPPED) continue;
      const char *bound = hc_bench_small_call_bound(bench, bc, r);
      if (r->status == HC_BENCH_FAILED) {
        printf("  %s FAILED", hc_variant_name(r->variant));
        continue;
      }
      printf("  %s %.1f us, overhead %.1f us: %s%s", hc_variant_name(r->variant), 1e6 * r->median_s,
             1e6 * r->overhead_s, bound, strcmp(bound, "call overhead") == 0 ? "" : "-bound work");
    }
    printf("\n");
  }
  printf("%d cases in %.1f s; %d FAILED\n", bench->ncases, bench->seconds, bench->failures);
}

static int hc_yaml_row(hc_yaml_writer *w, const hc_bench *bench, const hc_bench_case *bc, const hc_bench_row *r) {
  HC_CALL(hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_BLOCK));
  HC_CALL(hc_yaml_writer_string(w, "variant", hc_variant_name(r->variant)));
  HC_CALL(hc_yaml_writer_string(w, "status", hc_status_name(r->status)));
  if (r->status != HC_BENCH_RAN) HC_CALL(hc_yaml_writer_string(w, "reason", r->reason));
  if (r->status == HC_BENCH_SKIPPED || r->calls == 0) return hc_yaml_writer_end_mapping(w);
  HC_CALL(hc_yaml_writer_string(w, "chosen_variant", hc_variant_name(r->chosen)));
  HC_CALL(hc_yaml_writer_int64(w, "calls", r->calls));
  HC_CALL(hc_yaml_writer_double(w, "median_s", r->median_s));
  HC_CALL(hc_yaml_writer_double(w, "min_s", r->min_s));
  HC_CALL(hc_yaml_writer_double(w, "gbs", r->gbs));
  HC_CALL(hc_yaml_writer_double(w, "gflops", r->gflops));
  HC_CALL(hc_yaml_writer_double(w, "peak_gflops", r->peak * 1e-9));
  HC_CALL(hc_yaml_writer_string(w, "bound", hc_bound_name(bench, bc, r->peak)));
  HC_CALL(hc_yaml_writer_double(w, "roofline_s", r->roofline_s));
  HC_CALL(hc_yaml_writer_double(w, "roofline_pct", r->roofline_pct));
  HC_CALL(hc_yaml_writer_double(w, "roofline_pct_larger_copy", r->roofline_pct_larger));
  if (bc->overhead) {
    HC_CALL(hc_yaml_writer_string(w, "dominated_by", hc_bench_small_call_bound(bench, bc, r)));
    HC_CALL(hc_yaml_writer_double(w, "work_s", r->work_s));
    HC_CALL(hc_yaml_writer_double(w, "overhead_s", r->overhead_s));
  } else {
    HC_CALL(hc_yaml_writer_bool(w, "above_roofline", r->above_roof));
  }
  if (r->vs_vendor > 0) {
    HC_CALL(hc_yaml_writer_double(w, "vs_cublas", r->vs_vendor));
  } else {
    HC_CALL(hc_yaml_writer_null(w, "vs_cublas"));
  }
  if (r->vs_intrepid2 > 0) {
    HC_CALL(hc_yaml_writer_double(w, "vs_intrepid2_per_core", r->vs_intrepid2));
  } else {
    HC_CALL(hc_yaml_writer_null(w, "vs_intrepid2_per_core"));
  }
  HC_CALL(hc_yaml_writer_double(w, "max_abs_diff", r->max_err));
  HC_CALL(hc_yaml_writer_double(w, "tolerance", r->tol));
  HC_CALL(hc_yaml_writer_int64(w, "entries_outside_tolerance", r->bad));
  return hc_yaml_writer_end_mapping(w);
}

static int hc_yaml_case(hc_yaml_writer *w, const hc_bench *bench, const hc_bench_case *bc) {
  const hc_contract *k = &bc->k;
  HC_CALL(hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_BLOCK));
  HC_CALL(hc_yaml_writer_string(w, "kernel", hc_kernel_name(k->kernel)));
  HC_CALL(hc_yaml_writer_int64(w, "C", k->C));
  HC_CALL(hc_yaml_writer_int64(w, "L", k->L));
  HC_CALL(hc_yaml_writer_int64(w, "R", k->R));
  HC_CALL(hc_yaml_writer_int64(w, "P", k->P));
  HC_CALL(hc_yaml_writer_int64(w, "D", k->D));
  HC_CALL(hc_yaml_writer_string(w, "precision", hc_precision_name(k->precision)));
  HC_CALL(hc_yaml_writer_string(w, "layout", hc_layout_name(k->layout)));
  HC_CALL(hc_yaml_writer_double(w, "flops", bc->flops));
  HC_CALL(hc_yaml_writer_double(w, "bytes", bc->bytes));
  HC_CALL(hc_yaml_writer_double(w, "intensity", bc->flops / bc->bytes));
  if (bc->best >= 0) {
    HC_CALL(hc_yaml_writer_string(w, "best", hc_variant_name(bc->rows[bc->best].variant)));
  } else {
    HC_CALL(hc_yaml_writer_null(w, "best"));
  }
  if (bc->have_vendor) {
    HC_CALL(hc_yaml_writer_string(w, "cublas_layout", hc_layout_name(bc->vendor_layout)));
    HC_CALL(hc_yaml_writer_string(w, "vendor_variant", hc_variant_name(bc->vendor_variant)));
  }
  if (bc->intrepid2_status != HC_BENCH_SKIPPED) {
    HC_CALL(hc_yaml_writer_begin_mapping(w, "intrepid2", HC_YAML_BLOCK));
    HC_CALL(hc_yaml_writer_string(w, "status", hc_status_name(bc->intrepid2_status)));
    if (bc->intrepid2_status == HC_BENCH_FAILED) HC_CALL(hc_yaml_writer_string(w, "reason", bc->intrepid2_reason));
    HC_CALL(hc_yaml_writer_int64(w, "calls", bc->intrepid2_calls));
    HC_CALL(hc_yaml_writer_double(w, "median_s", bc->intrepid2_s));
    HC_CALL(hc_yaml_writer_double(w, "max_abs_diff", bc->intrepid2_err));
    HC_CALL(hc_yaml_writer_end_mapping(w));
  }
  HC_CALL(hc_yaml_writer_begin_sequence(w, "variants", HC_YAML_BLOCK));
  for (int j = 0; j < bc->nrows; j++) HC_CALL(hc_yaml_row(w, bench, bc, &bc->rows[j]));
  HC_CALL(hc_yaml_writer_end_sequence(w));
  return hc_yaml_writer_end_mapping(w);
}

static int hc_yaml_body(hc_yaml_writer *w, const hc_bench *bench) {
  const hc_bench_options *o = &bench->opt;
  char buf[1024];
  HC_CALL(hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_BLOCK));
  HC_CALL(hc_yaml_writer_string(w, "schema", HC_BENCH_SCHEMA));
  HC_CALL(hc_yaml_writer_string(w, "status", bench->failures ? "failed" : "passed"));
  HC_CALL(hc_yaml_writer_string(w, "date", bench->date));
  HC_CALL(hc_results_write_build(w));
  HC_CALL(hc_yaml_writer_string(w, "backend", bench->b->name));
  HC_CALL(hc_yaml_writer_string(w, "device", bench->device));
  if (!bench->b->is_device) HC_CALL(hc_yaml_writer_int64(w, "threads", bench->threads));
  HC_CALL(hc_yaml_writer_string(w, "intrepid2",
                                bench->intrepid2 ? "Trilinos Intrepid2 (one core) timed on each case's arrays; "
                                                   "vs_intrepid2_per_core = its time / (the variant's x threads)"
                                                 : "not compared"));
  HC_CALL(hc_yaml_writer_begin_mapping(w, "options", HC_YAML_BLOCK));
  HC_CALL(hc_yaml_writer_double(w, "memory_gb", o->memory_gb));
  HC_CALL(hc_yaml_writer_double(w, "budget_gb", bench->budget_bytes * 1e-9));
  if (bench->budget_note[0]) HC_CALL(hc_yaml_writer_string(w, "budget_note", bench->budget_note));
  if (o->cells > 0) {
    HC_CALL(hc_yaml_writer_int64(w, "cells", o->cells));
  } else {
    HC_CALL(hc_yaml_writer_null(w, "cells"));
  }
  HC_CALL(hc_yaml_writer_int64(w, "repeat", o->repeat));
  buf[0] = '\0';
  for (int i = 0; i < o->nshapes; i++) {
    size_t n = strlen(buf);
    snprintf(buf + n, sizeof(buf) - n, "%s%d,%d", i ? ";" : "", o->shape_L[i], o->shape_P[i]);
  }
  HC_CALL(hc_yaml_writer_string(w, "shapes", buf));
  HC_CALL(hc_yaml_writer_end_mapping(w));
  HC_CALL(hc_yaml_writer_begin_mapping(w, "copy", HC_YAML_BLOCK));
  HC_CALL(hc_yaml_writer_string(w, "how",
                                "the backend's copy kernel (hc_backend.mem_copy) on half the pool onto the "
                                "other half; bytes read + written"));
  HC_CALL(hc_yaml_writer_double(w, "bytes_per_call", bench->copy_bytes));
  HC_CALL(hc_yaml_writer_int64(w, "calls", bench->copy_calls));
  HC_CALL(hc_yaml_writer_double(w, "gbs", bench->copy_gbs));
  HC_CALL(hc_yaml_writer_double(w, "gbs_median", bench->copy_gbs_median));
  HC_CALL(hc_yaml_writer_int64(w, "calls_end", bench->copy_calls_end));
  HC_CALL(hc_yaml_writer_double(w, "gbs_end", bench->copy_gbs_end));
  HC_CALL(hc_yaml_writer_double(w, "gbs_end_median", bench->copy_gbs_end_median));
  HC_CALL(hc_yaml_writer_double(w, "gbs_larger", hc_bench_copy_gbs_larger(bench)));
  HC_CALL(hc_yaml_writer_end_mapping(w));
  HC_CALL(hc_yaml_writer_double(w, "above_roofline_pct", HC_BENCH_ABOVE_ROOF_PCT));
  HC_CALL(hc_yaml_writer_int64(w, "above_roofline_rows", bench->above_roof));
  HC_CALL(hc_yaml_writer_begin_sequence(w, "variants_not_run", HC_YAML_BLOCK));
  for (int v = 0; v < HC_NUM_VARIANTS; v++) {
    if (!bench->lacked[v]) continue;
    HC_CALL(hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_FLOW));
    HC_CALL(hc_yaml_writer_string(w, "variant", hc_variant_name((hc_variant)v)));
    HC_CALL(hc_yaml_writer_string(w, "reason", bench->lacked_reason[v]));
    HC_CALL(hc_yaml_writer_end_mapping(w));
  }
  HC_CALL(hc_yaml_writer_end_sequence(w));
  HC_CALL(hc_yaml_writer_begin_mapping(w, "peaks", HC_YAML_BLOCK));
  for (int p = 0; p < 2; p++) {
    if (!o->precision[p]) continue;
    for (int tc = 0; tc < 2; tc++) {
      snprintf(buf, sizeof(buf), "%s%s", hc_precision_name((hc_precision)p), tc ? "_tensor_cores" : "");
      HC_CALL(hc_yaml_writer_begin_mapping(w, buf, HC_YAML_BLOCK));
      HC_CALL(hc_yaml_writer_double(w, "gflops", bench->peak[p][tc] * 1e-9));
      HC_CALL(hc_yaml_writer_string(w, "how", bench->peak_how[p][tc]));
      HC_CALL(hc_yaml_writer_end_mapping(w));
    }
  }
  HC_CALL(hc_yaml_writer_end_mapping(w));
  HC_CALL(hc_yaml_writer_begin_sequence(w, "cases", HC_YAML_BLOCK));
  for (int i = 0; i < bench->ncases; i++) {
    if (!bench->cases[i].overhead) HC_CALL(hc_yaml_case(w, bench, &bench->cases[i]));
  }
  HC_CALL(hc_yaml_writer_end_sequence(w));
  HC_CALL(hc_yaml_writer_begin_sequence(w, "call_overhead", HC_YAML_BLOCK));
  for (int i = 0; i < bench->ncases; i++) {
    if (bench->cases[i].overhead) HC_CALL(hc_yaml_case(w, bench, &bench->cases[i]));
  }
  HC_CALL(hc_yaml_writer_end_sequence(w));
  HC_CALL(hc_bench_targets_yaml(w, bench));
  HC_CALL(hc_yaml_writer_int64(w, "failures", bench->failures));
  HC_CALL(hc_yaml_writer_double(w, "seconds", bench->seconds));
  return hc_yaml_writer_end_mapping(w);
}

int hc_bench_write_yaml(const hc_bench *bench, const char *path) {
  hc_yaml_writer *w = NULL;
  HC_CALL(hc_yaml_writer_create(path, &w));
  int err = hc_yaml_body(w, bench);
  if (err) {
    hc_yaml_writer_destroy(&w);
    return err;
  }
  return hc_yaml_writer_close(&w);
}

/* A CSV field that may hold commas or quotes. */
static void hc_csv_text(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

int hc_bench_write_csv(const hc_bench *bench, const char *path) {
  hc_atomic_file af;
  HC_CALL(hc_atomic_file_open(path, &af));
  FILE *f = af.f;
  fprintf(f,
          "kind,kernel,C,L,R,P,D,precision,layout,variant,chosen_variant,status,calls,median_s,min_s,bytes,flops,"
          "intensity,gbs,gflops,peak_gflops,copy_gbs,roofline_s,roofline_pct,vs_cublas,best,max_abs_diff,tolerance,"
          "copy_gbs_end,roofline_pct_larger_copy,above_roofline,dominated_by,work_s,overhead_s,threads,intrepid2_s,"
          "vs_intrepid2_per_core,vendor_variant,reason\n");
  for (int i = 0; i < bench->ncases; i++) {
    const hc_bench_case *bc = &bench->cases[i];
    const hc_contract *k = &bc->k;
    for (int j = 0; j < bc->nrows; j++) {
      const hc_bench_row *r = &bc->rows[j];
      fprintf(f, "%s,%s,%lld,%d,%d,%d,%d,%s,%s,%s,%s,%s,%d,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.4f,",
              bc->overhead ? "overhead" : "bench", hc_kernel_name(k->kernel), (long long)k->C, k->L, k->R, k->P, k->D,
              hc_precision_name(k->precision), hc_layout_name(k->layout), hc_variant_name(r->variant),
              hc_variant_name(r->chosen), hc_status_name(r->status), r->calls, r->median_s, r->min_s, bc->bytes,
              bc->flops, bc->flops / bc->bytes, r->gbs, r->gflops, r->peak * 1e-9, bench->copy_gbs, r->roofline_s,
              r->roofline_pct);
      if (r->vs_vendor > 0) fprintf(f, "%.4f", r->vs_vendor);
      const int small = bc->overhead && r->status == HC_BENCH_RAN;
      fprintf(f, ",%d,%.3e,%.3e,%.6e,%.4f,%d,%s,", j == bc->best, r->max_err, r->tol, bench->copy_gbs_end,
              r->roofline_pct_larger, r->above_roof, small ? hc_bench_small_call_bound(bench, bc, r) : "");
      if (small) {
        fprintf(f, "%.6e,%.6e,", r->work_s, r->overhead_s);
      } else {
        fputs(",,", f);
      }
      fprintf(f, "%d,", bench->threads);
      if (bc->intrepid2_status == HC_BENCH_RAN) fprintf(f, "%.6e", bc->intrepid2_s);
      fputc(',', f);
      if (r->vs_intrepid2 > 0) fprintf(f, "%.6g", r->vs_intrepid2);
      fputc(',', f);
      if (bc->have_vendor) fputs(hc_variant_name(bc->vendor_variant), f);
      fputc(',', f);
      hc_csv_text(f, r->reason);
      fputc('\n', f);
    }
  }
  if (ferror(f)) {
    hc_atomic_file_abort(&af);
    return HC_ERROR(HC_ERR_RUNTIME, "%s: write failed", path);
  }
  return hc_atomic_file_commit(&af);
}

/* The data file of the plot: one index block per (precision, family) that has cases, the best variant of
   each case as a point (intensity, GFLOP/s). Returns the blocks' titles. */
static int hc_plot_data(const hc_bench *bench, const char *path, char titles[6][48], int *nblocks) {
  static const char *const families[3] = {"DataData", "DataField", "FieldField"};
  hc_atomic_file af;
  HC_CALL(hc_atomic_file_open(path, &af));
  *nblocks = 0;
  fprintf(af.f, "# intensity (flop/byte)  GFLOP/s  kernel L P layout best-variant\n");
  for (int p = 0; p < 2; p++) {
    for (int fam = 0; fam < 3; fam++) {
      int n = 0;
      for (int i = 0; i < bench->ncases; i++) {
        const hc_bench_case *bc = &bench->cases[i];
        if (bc->overhead || bc->best < 0 || (int)bc->k.precision != p || (int)hc_kernel_family(bc->k.kernel) != fam)
          continue;
        const hc_bench_row *r = &bc->rows[bc->best];
        if (n++ == 0 && *nblocks > 0) fprintf(af.f, "\n\n");
        fprintf(af.f, "%.6e %.6e %s %d %d %s %s\n", bc->flops / bc->bytes, r->gflops, hc_kernel_name(bc->k.kernel),
                bc->k.L, bc->k.P, hc_layout_name(bc->k.layout), hc_variant_name(r->variant));
      }
      if (n > 0) snprintf(titles[(*nblocks)++], 48, "%s %s", families[fam], hc_precision_name((hc_precision)p));
    }
  }
  return hc_atomic_file_commit(&af);
}

/* Quotes s for a POSIX shell: 'it'\''s'. */
static void hc_shell_quote(const char *s, char *out, size_t size) {
  size_t n = 0;
  if (size < 3) return;
  out[n++] = '\'';
  for (; *s && n + 5 < size; s++) {
    if (*s == '\'') {
      memcpy(out + n, "'\\''", 4);
      n += 4;
    } else {
      out[n++] = *s;
    }
  }
  out[n++] = '\'';
  out[n] = '\0';
}

int hc_bench_plot(const hc_bench *bench, char *note, size_t size) {
  char path[4096], titles[6][48];
  int nblocks = 0;
  note[0] = '\0';
  snprintf(path, sizeof(path), "%s/roofline.dat", bench->opt.out);
  HC_CALL(hc_plot_data(bench, path, titles, &nblocks));
  snprintf(path, sizeof(path), "%s/roofline.gp", bench->opt.out);
  hc_atomic_file af;
  HC_CALL(hc_atomic_file_open(path, &af));
  FILE *f = af.f;
  const double bw = bench->copy_gbs, p64 = bench->peak[HC_DOUBLE][0] * 1e-9, p64tc = bench->peak[HC_DOUBLE][1] * 1e-9,
               p32 = bench->peak[HC_FLOAT][0] * 1e-9;
  fprintf(f,
          "# The roofline of hexcontract bench: gnuplot roofline.gp (in this directory) writes roofline.png.\n"
          "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 1200,800 } "
          "else { set terminal png size 1200,800 }\n"
          "set output 'roofline.png.tmp'\n"
          "set title \"hexcontract bench, %s backend: %s (%s)\" noenhanced\n"
          "set logscale xy\n"
          "set xlabel 'arithmetic intensity (flop/byte, cost model of kernels/README.md)'\n"
          "set ylabel 'GFLOP/s (best variant per case)'\n"
          "set grid\n"
          "set key left top\n"
          "bw = %.6g\n"
          "roof(x, p) = (x * bw < p) ? x * bw : p\n"
          "set xrange [0.05:100]\n"
          "set samples 400\n",
          bench->b->name, bench->device, bench->date, bw);
  fprintf(f, "plot ");
  int first = 1;
  if (p64 > 0 && bench->opt.precision[HC_DOUBLE]) {
    fprintf(f, "roof(x, %.6g) title sprintf('FP64 roof: copy %.0f GB/s, peak %.0f GFLOP/s') lw 2 lc rgb '#1f77b4'", p64,
            bw, p64);
    first = 0;
    if (p64tc > p64) {
      fprintf(f, ", \\\n  roof(x, %.6g) title 'FP64 tensor-core roof (%.0f GFLOP/s)' lw 2 dt 2 lc rgb '#1f77b4'", p64tc,
              p64tc);
    }
  }
  if (p32 > 0 && bench->opt.precision[HC_FLOAT]) {
    fprintf(f, "%sroof(x, %.6g) title 'FP32 roof (%.0f GFLOP/s)' lw 2 lc rgb '#d62728'", first ? "" : ", \\\n  ", p32,
            p32);
    first = 0;
  }
  if (first) fprintf(f, "x * bw title 'memory roof (%.0f GB/s)' lw 2", bw), first = 0;
  static const int point_types[3] = {7, 5, 9};
  for (int i = 0; i < nblocks; i++) {
    int fam = strncmp(titles[i], "DataData", 8) == 0 ? 0 : strncmp(titles[i], "DataField", 9) == 0 ? 1 : 2;
    int dbl = strstr(titles[i], "double") != NULL;
    fprintf(f, ", \\\n  'roofline.dat' index %d using 1:2 with points pt %d ps 1.5 lc rgb '%s' title '%s'", i,
            point_types[fam], dbl ? "#1f77b4" : "#d62728", titles[i]);
  }
  fprintf(f, "\nset output\n");
  if (ferror(f)) {
    hc_atomic_file_abort(&af);
    return HC_ERROR(HC_ERR_RUNTIME, "%s: write failed", path);
  }
  HC_CALL(hc_atomic_file_commit(&af));

  /* gnuplot writes roofline.png.tmp in the output directory; renamed into place when it succeeds. */
  if (system("gnuplot --version > /dev/null 2>&1") != 0) {
    snprintf(note, size,
             "gnuplot not found: roofline.png skipped (on a machine with gnuplot: cd %s && gnuplot "
             "roofline.gp)",
             bench->opt.out);
    return HC_OK;
  }
  char dir[4200], cmd[8600];
  hc_shell_quote(bench->opt.out, dir, sizeof(dir));
  snprintf(cmd, sizeof(cmd), "cd %s && gnuplot roofline.gp", dir);
  int st = system(cmd);
  char tmp[4096], png[4096];
  snprintf(tmp, sizeof(tmp), "%s/roofline.png.tmp", bench->opt.out);
  snprintf(png, sizeof(png), "%s/roofline.png", bench->opt.out);
  if (st != 0 || rename(tmp, png) != 0) {
    remove(tmp);
    snprintf(note, size, "gnuplot failed (status %d): roofline.png not written; the script is %s/roofline.gp", st,
             bench->opt.out);
  }
  return HC_OK;
}
