/* hexcontract report: a weak or strong scaling report (markdown, CSV, gnuplot plots) from a directory of results. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app/hc_app.h"
#include "app/hc_options.h"
#include "app/hc_report.h"
#include "hc_config.h"
#include "io/hc_atomic_file.h"
#include "io/hc_path.h"
#include "io/hc_results.h"

/* The phases of a step in the order of the breakdown; "other" is the step less their sum. */
#define HC_REPORT_NUM_PHASES 6
static const char *const hc_report_phases[HC_REPORT_NUM_PHASES] = {"celldata", "contract", "transfer",
                                                                   "assembly", "halo",     "reduction"};
/* Rank counts of the extrapolation table: the largest measured one times 2, 4, ..., 64. */
#define HC_REPORT_EXTRAPOLATE 6
/* Weak scaling with global sizing: cells per rank may differ by this fraction between runs. */
#define HC_REPORT_WEAK_SLACK 0.02

/* One run of the sweep and what the report derives from it. */
typedef struct {
  hc_results *f;    /* owned */
  const char *name; /* f->path without the directory */
  double t;         /* seconds per step of the slowest rank (figures_of_merit.seconds_per_step) */
  hc_results_stat step, halo, reduction;
  double phase[HC_REPORT_NUM_PHASES + 1]; /* average seconds per step, + other */
  double efficiency, comm_share, per_rank;
  int gpus, threads;      /* threads: per rank, 0 when unknown (a device) */
  double halo_bytes_step; /* bytes sent per rank per step, largest rank */
  double implied_bw;      /* halo_bytes_step / halo.max, bytes/s; 0 when undefined */
  int64_t model_values;   /* halo model: values per exchange, largest rank; -1 n/a */
  int checks_passed;
} hc_report_run;

typedef struct {
  char dir[4096], out[4096];
  hc_report_run *runs; /* [n], by rank count */
  int n;
  int weak;        /* 1 weak, 0 strong */
  int weak_global; /* weak scaling made with global sizing and mesh.cells grown with the ranks */
  int file;        /* the runs read a mesh file (mesh.source: file): partitioned by METIS, no rank grid */
  hc_sizing sizing;
  int64_t cells[3]; /* deck mesh.cells of the smallest run */
  int order;
  int device; /* the runs computed on a device backend (hc_backend.is_device): their ranks name a device index */
  char backend[32], precision[16], layout[16];
  int plots; /* 1 PNGs written, 0 skipped */
  char plot_note[512];
} hc_report;

static void hc_report_usage(FILE *out) {
  fprintf(out,
          "Usage: hexcontract report DIR [--out DIR2]\n"
          "\n"
          "Reads every results file (*.yaml, *.yml; schema hexcontract-results/1) in DIR, one run per rank\n"
          "count of one sweep, and writes a scaling report into DIR2 (default DIR; created if missing, as bench\n"
          "--out is), each file atomically:\n"
          "  report.md       tables: per run ranks, GPUs, cells per rank, time per step (min/avg/max over ranks),\n"
          "                  parallel efficiency against the smallest run, phase shares, communication share,\n"
          "                  figures of merit, checks; the halo traffic model with the measured halo time\n"
          "  report.csv      the same per run, one row each\n"
          "  efficiency.png, phases.png, throughput.png   plots drawn by gnuplot from report.gp and report.dat\n"
          "                  (skipped with a note when gnuplot is missing; HC_GNUPLOT names another program)\n"
          "Weak or strong scaling is read from the decks' mesh.sizing (per-rank: weak, global: strong).\n"
          "Files of another schema, and sweeps whose decks differ in anything but the output keys (backend,\n"
          "precision, layout, order, cells, ...), are refused with exit code 2.\n");
}

static const char *hc_basename(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static int hc_has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n > m && strcmp(s + n - m, suffix) == 0;
}

static int hc_cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int hc_cmp_runs(const void *a, const void *b) {
  const hc_report_run *x = a, *y = b;
  if (x->f->ranks != y->f->ranks) return x->f->ranks < y->f->ranks ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* Reads every results file of dir into rep->runs. */
static int hc_report_load(hc_report *rep) {
  int ierr = HC_OK;
  char **names = NULL;
  int count = 0, cap = 0;
  DIR *d = opendir(rep->dir);
  HC_CHECK(d, HC_ERR_INPUT, "%s: cannot open the directory: %s", rep->dir, strerror(errno));
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!hc_has_suffix(e->d_name, ".yaml") && !hc_has_suffix(e->d_name, ".yml")) continue;
    char path[8192];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", rep->dir, e->d_name);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (count == cap) {
      cap = cap ? 2 * cap : 16;
      char **grown = realloc(names, sizeof(*grown) * (size_t)cap);
      HC_CHECK_GOTO(grown, HC_ERR_RESOURCE, cleanup, "out of host memory");
      names = grown;
    }
    names[count] = strdup(path);
    HC_CHECK_GOTO(names[count], HC_ERR_RESOURCE, cleanup, "out of host memory");
    count++;
  }
  HC_CHECK_GOTO(count > 0, HC_ERR_INPUT, cleanup,
                "%s: no results files (*.yaml) in this directory; run a sweep into it first "
                "(run_scripts/scaling.sh weak --out %s)",
                rep->dir, rep->dir);
  qsort(names, (size_t)count, sizeof(*names), hc_cmp_names);
  rep->runs = calloc((size_t)count, sizeof(*rep->runs));
  HC_CHECK_GOTO(rep->runs, HC_ERR_RESOURCE, cleanup, "out of host memory");
  for (int i = 0; i < count; i++) {
    HC_CALL_GOTO(hc_results_read(names[i], &rep->runs[i].f), cleanup);
    rep->runs[i].name = hc_basename(rep->runs[i].f->path);
    rep->n++;
  }
  qsort(rep->runs, (size_t)rep->n, sizeof(*rep->runs), hc_cmp_runs);
cleanup:
  closedir(d);
  for (int i = 0; i < count; i++) free(names[i]);
  free(names);
  return ierr;
}

/* Deck keys that may differ within a sweep: where the results go, and how often progress is printed. */
static int hc_key_may_differ(const char *key) {
  return strncmp(key, "output.", 7) == 0 || strcmp(key, "run.progress") == 0 || strcmp(key, "mesh.cells") == 0;
}

static int hc_deck_value(const hc_results *f, const char *key, const char **value) {
  const hc_results_entry *e = hc_results_deck_entry(f, key);
  HC_CHECK(e, HC_ERR_INPUT, "%s: the deck has no %s", f->path, key);
  *value = e->value;
  return HC_OK;
}

/* One sweep: the same deck in every file (but for hc_key_may_differ), one run per rank count, and a
   scaling mode read from mesh.sizing. */
static int hc_report_check_sweep(hc_report *rep) {
  const hc_results *a = rep->runs[0].f;
  for (int i = 1; i < rep->n; i++) {
    const hc_results *b = rep->runs[i].f;
    for (int k = 0; k < a->num_deck; k++) {
      const hc_results_entry *ea = &a->deck[k], *eb = hc_results_deck_entry(b, ea->key);
      if (hc_key_may_differ(ea->key)) continue;
      HC_CHECK(eb, HC_ERR_INPUT, "mixed sweep: %s has deck key %s (line %d) but %s has not", a->path, ea->key, ea->line,
               b->path);
      HC_CHECK(strcmp(ea->value, eb->value) == 0, HC_ERR_INPUT,
               "mixed sweep: %s and %s differ in %s (%s against %s); a report compares runs of one deck and "
               "backend that differ only in the rank count (put each sweep in its own directory)",
               a->path, b->path, ea->key, ea->value, eb->value);
    }
    for (int k = 0; k < b->num_deck; k++) {
      if (hc_key_may_differ(b->deck[k].key)) continue;
      HC_CHECK(hc_results_deck_entry(a, b->deck[k].key), HC_ERR_INPUT,
               "mixed sweep: %s has deck key %s (line %d) but %s has not", b->path, b->deck[k].key, b->deck[k].line,
               a->path);
    }
    HC_CHECK(b->ranks != rep->runs[i - 1].f->ranks, HC_ERR_INPUT,
             "two runs on %d rank%s: %s and %s; a sweep has one run per rank count (move one of them out of %s)",
             b->ranks, b->ranks == 1 ? "" : "s", rep->runs[i - 1].f->path, b->path, rep->dir);
  }

  const char *s = NULL;
  HC_CALL(hc_deck_value(a, "mesh.sizing", &s));
  HC_CHECK(hc_sizing_from_name(s, &rep->sizing) == HC_OK, HC_ERR_INPUT, "%s: unknown mesh.sizing '%s'", a->path, s);
  HC_CALL(hc_deck_value(a, "mesh.cells", &s));
  long long c[3];
  HC_CHECK(sscanf(s, "[%lld, %lld, %lld]", &c[0], &c[1], &c[2]) == 3, HC_ERR_INPUT,
           "%s: mesh.cells must be a list of 3 integers, got %s", a->path, s);
  for (int d = 0; d < 3; d++) rep->cells[d] = c[d];
  HC_CALL(hc_deck_value(a, "mesh.order", &s));
  rep->order = atoi(s);
  HC_CALL(hc_deck_value(a, "run.backend", &s));
  snprintf(rep->backend, sizeof(rep->backend), "%.31s", s);
  /* A device backend's ranks each record the device they ran on (rank_info's device_index, -1 on the host). */
  rep->device = a->num_rank_info > 0 && a->rank_info[0].device_index >= 0;
  HC_CALL(hc_deck_value(a, "run.precision", &s));
  snprintf(rep->precision, sizeof(rep->precision), "%s", s);
  HC_CALL(hc_deck_value(a, "run.layout", &s));
  snprintf(rep->layout, sizeof(rep->layout), "%s", s);

  int same_cells = 1;
  const char *other = NULL, *other_cells = NULL;
  for (int i = 1; i < rep->n; i++) {
    HC_CALL(hc_deck_value(rep->runs[i].f, "mesh.cells", &s));
    if (strcmp(s, hc_results_deck_entry(a, "mesh.cells")->value) != 0 && same_cells) {
      same_cells = 0;
      other = rep->runs[i].f->path;
      other_cells = s;
    }
  }
  rep->weak = rep->sizing == HC_SIZING_PER_RANK;
  rep->file = strcmp(a->mesh_source, "file") == 0;
  for (int i = 1; i < rep->n; i++) {
    const hc_results *x = rep->runs[i].f;
    HC_CHECK((strcmp(x->mesh_source, "file") == 0) == rep->file && (!rep->file || !strcmp(x->mesh_file, a->mesh_file)),
             HC_ERR_INPUT, "mixed sweep: %s and %s ran on different meshes (%s against %s)", a->path, x->path,
             rep->file ? a->mesh_file : "the box", x->mesh_file[0] ? x->mesh_file : "the box");
  }
  if (rep->file) return HC_OK; /* a mesh file's sweep is strong: the mesh is fixed */
  if (same_cells) return HC_OK;
  /* mesh.cells differ: only a weak sweep made with global sizing (the box grown with the rank count,
     cells per rank constant) is one sweep. */
  int constant = rep->sizing == HC_SIZING_GLOBAL;
  for (int i = 1; i < rep->n && constant; i++) {
    double x = rep->runs[i].f->cells_per_rank.avg, y = a->cells_per_rank.avg;
    constant = fabs(x - y) <= HC_REPORT_WEAK_SLACK * y;
  }
  HC_CHECK(constant, HC_ERR_INPUT,
           "mixed sweep: %s and %s differ in mesh.cells (%s against %s)%s; a weak sweep keeps the cells per rank, a "
           "strong one the global cells",
           a->path, other, hc_results_deck_entry(a, "mesh.cells")->value, other_cells,
           rep->sizing == HC_SIZING_PER_RANK ? " with mesh.sizing per-rank" : " and so do their cells per rank");
  rep->weak = 1;
  rep->weak_global = 1;
  return HC_OK;
}

int hc_report_halo_model(hc_sizing sizing, const int64_t cells[3], int order, int nranks, int grid[3],
                         int64_t *max_values, int *max_neighbors) {
  HC_CALL(hc_partition_grid(nranks, sizing, cells, grid));
  *max_values = 0;
  *max_neighbors = 0;
  for (int r = 0; r < nranks; r++) {
    int coords[3];
    int64_t n[3];
    hc_partition_coords(grid, r, coords);
    for (int d = 0; d < 3; d++) {
      int64_t begin;
      n[d] = cells[d];
      if (sizing == HC_SIZING_GLOBAL) hc_partition_block(cells[d], grid[d], coords[d], &begin, &n[d]);
    }
    int64_t values = 0;
    int neighbors = 0;
    for (int dz = -1; dz <= 1; dz++) {
      for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
          const int off[3] = {dx, dy, dz};
          int64_t shared = 1;
          int inside = dx || dy || dz;
          for (int d = 0; d < 3 && inside; d++) {
            inside = coords[d] + off[d] >= 0 && coords[d] + off[d] < grid[d];
            shared *= off[d] == 0 ? order * n[d] + 1 : 1;
          }
          if (!inside) continue;
          values += shared;
          neighbors++;
        }
      }
    }
    if (values > *max_values) *max_values = values;
    if (neighbors > *max_neighbors) *max_neighbors = neighbors;
  }
  return HC_OK;
}

/* Threads per rank from a CPU device string ("..., 4 threads"); 0 when there is none. */
static int hc_threads_of(const char *device) {
  const char *t = strstr(device, " thread");
  if (!t) return 0;
  const char *s = t;
  while (s > device && s[-1] >= '0' && s[-1] <= '9') s--;
  return s < t ? atoi(s) : 0;
}

static void hc_report_derive(hc_report *rep) {
  const hc_report_run *base = &rep->runs[0];
  for (int i = 0; i < rep->n; i++) {
    hc_report_run *r = &rep->runs[i];
    const hc_results *f = r->f;
    const hc_results_stat zero = {0, 0, 0}, *s;
    r->step = *hc_results_phase_stat(f, "step");
    r->halo = (s = hc_results_phase_stat(f, "halo")) ? *s : zero;
    r->reduction = (s = hc_results_phase_stat(f, "reduction")) ? *s : zero;
    r->t = f->seconds_per_step;
    double sum = 0;
    for (int p = 0; p < HC_REPORT_NUM_PHASES; p++) {
      s = hc_results_phase_stat(f, hc_report_phases[p]);
      r->phase[p] = s ? s->avg : 0;
      sum += r->phase[p];
    }
    r->phase[HC_REPORT_NUM_PHASES] = fmax(0.0, r->step.avg - sum);
    r->comm_share = r->step.avg > 0 ? (r->halo.avg + r->reduction.avg) / r->step.avg : 0;
    r->per_rank = f->cell_steps_per_second / f->ranks;
    if (rep->weak) {
      r->efficiency = r->t > 0 ? base->t / r->t : 0;
    } else {
      r->efficiency = r->t > 0 ? base->t * base->f->ranks / (r->t * f->ranks) : 0;
    }
    /* Distinct GPUs: (host, device index) pairs of a device backend. */
    r->gpus = 0;
    for (int a = 0; rep->device && a < f->num_rank_info; a++) {
      const hc_results_rank *ra = &f->rank_info[a];
      int seen = ra->device_index < 0;
      for (int b = 0; b < a && !seen; b++)
        seen = f->rank_info[b].device_index == ra->device_index && strcmp(f->rank_info[b].host, ra->host) == 0;
      r->gpus += !seen;
    }
    r->threads = f->num_rank_info > 0 && !rep->device ? hc_threads_of(f->rank_info[0].device) : 0;
    r->halo_bytes_step = f->halo_bytes_per_exchange.max * f->halo_exchanges_per_step;
    r->implied_bw = r->halo.min > 0 && r->halo_bytes_step > 0 ? r->halo_bytes_step / r->halo.min : 0;
    r->model_values = -1;
    int grid[3], nb;
    int64_t values;
    if (!rep->weak_global && !rep->file) {
      if (hc_report_halo_model(rep->sizing, rep->cells, rep->order, f->ranks, grid, &values, &nb) == HC_OK) {
        r->model_values = values;
      } else {
        hc_error_clear();
      }
    }
    r->checks_passed = 0;
    for (int c = 0; c < f->num_checks; c++) r->checks_passed += f->checks[c].passed;
  }
}

static void hc_format_grid(const int g[3], char *buf, size_t n) {
  snprintf(buf, n, "%dx%dx%d", g[0], g[1], g[2]);
}

/* A run's partition: its rank grid on the box, its partitioner on a mesh file (which has no grid). */
static void hc_format_partition(const hc_results *x, char *buf, size_t n) {
  if (x->rank_grid[0] > 0) {
    hc_format_grid(x->rank_grid, buf, n);
  } else {
    snprintf(buf, n, "%.40s", x->partitioner[0] ? x->partitioner : "-");
  }
}

/* "9/9 passed" or "FAILED: volume, mass_sum". */
static void hc_format_checks(const hc_report_run *r, char *buf, size_t n) {
  const hc_results *f = r->f;
  if (f->num_checks == 0) {
    snprintf(buf, n, "%s (no checks)", f->status);
    return;
  }
  if (r->checks_passed == f->num_checks && strcmp(f->status, "passed") == 0) {
    snprintf(buf, n, "%d/%d passed", r->checks_passed, f->num_checks);
    return;
  }
  snprintf(buf, n, "FAILED:");
  for (int c = 0; c < f->num_checks; c++) {
    if (f->checks[c].passed) continue;
    size_t used = strlen(buf);
    snprintf(buf + used, n - used, " %s", f->checks[c].name);
  }
}

static const char *hc_mode_name(const hc_report *rep) {
  return rep->weak ? "weak" : "strong";
}

static void hc_write_csv_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void hc_report_csv(const hc_report *rep, FILE *f) {
  fprintf(f,
          "file,scaling,ranks,rank_grid,gpus,threads_per_rank,cells_per_rank_min,cells_per_rank_max,global_cells,"
          "step_s_min,step_s_avg,step_s_max,efficiency");
  for (int p = 0; p < HC_REPORT_NUM_PHASES; p++) fprintf(f, ",share_%s", hc_report_phases[p]);
  fprintf(f,
          ",share_other,comm_share,cell_steps_per_s,node_steps_per_s,cell_steps_per_s_per_rank,"
          "halo_bytes_per_exchange_max,halo_exchanges_per_step,halo_bytes_per_rank_step,halo_model_bytes_per_exchange,"
          "halo_s_min,halo_s_avg,halo_s_max,halo_implied_gb_per_s,checks_passed,checks_total,status,"
          "step_roofline_pct\n");
  for (int i = 0; i < rep->n; i++) {
    const hc_report_run *r = &rep->runs[i];
    const hc_results *x = r->f;
    char grid[48];
    hc_format_partition(x, grid, sizeof(grid));
    hc_write_csv_string(f, r->name);
    fprintf(f, ",%s,%d,%s,%d,%d,%.0f,%.0f,%lld,%.9g,%.9g,%.9g,%.6f", hc_mode_name(rep), x->ranks, grid, r->gpus,
            r->threads, x->cells_per_rank.min, x->cells_per_rank.max, (long long)x->num_global_cells, r->step.min,
            r->step.avg, r->step.max, r->efficiency);
    for (int p = 0; p <= HC_REPORT_NUM_PHASES; p++)
      fprintf(f, ",%.6f", r->step.avg > 0 ? r->phase[p] / r->step.avg : 0);
    fprintf(f, ",%.6f,%.9g,%.9g,%.9g,%.0f,%d,%.0f,", r->comm_share, x->cell_steps_per_second, x->node_steps_per_second,
            r->per_rank, x->halo_bytes_per_exchange.max, x->halo_exchanges_per_step, r->halo_bytes_step);
    if (r->model_values >= 0) fprintf(f, "%lld", (long long)r->model_values * 8);
    fprintf(f, ",%.9g,%.9g,%.9g,%.6g,%d,%d,%s,", r->halo.min, r->halo.avg, r->halo.max, 1e-9 * r->implied_bw,
            r->checks_passed, x->num_checks, x->status);
    if (isfinite(hc_results_roofline_percent(x, "step"))) fprintf(f, "%.6g", hc_results_roofline_percent(x, "step"));
    fprintf(f, "\n");
  }
}

/* Seconds with 4 significant digits, in the unit that keeps them readable. */
static const char *hc_fmt_s(double s, char *buf, size_t n) {
  if (s >= 1) {
    snprintf(buf, n, "%.4g s", s);
  } else if (s >= 1e-3) {
    snprintf(buf, n, "%.4g ms", 1e3 * s);
  } else {
    snprintf(buf, n, "%.4g us", 1e6 * s);
  }
  return buf;
}

static const char *hc_fmt_bytes(double b, char *buf, size_t n) {
  if (b >= 1 << 30) {
    snprintf(buf, n, "%.3g GiB", b / (1 << 30));
  } else if (b >= 1 << 20) {
    snprintf(buf, n, "%.3g MiB", b / (1 << 20));
  } else if (b >= 1 << 10) {
    snprintf(buf, n, "%.3g KiB", b / (1 << 10));
  } else {
    snprintf(buf, n, "%.0f B", b);
  }
  return buf;
}

/* The run whose halo calibrates the extrapolation: the largest one that sent anything. */
static const hc_report_run *hc_report_halo_reference(const hc_report *rep) {
  for (int i = rep->n - 1; i >= 0; i--)
    if (rep->runs[i].halo_bytes_step > 0 && rep->runs[i].halo.min > 0) return &rep->runs[i];
  return NULL;
}

/* The partitioner of a mesh file's sweep, as its runs name it: METIS or PT-Scotch ("the partitioner" where none of
   the runs split the mesh). */
static const char *hc_report_partitioner(const hc_report *rep) {
  for (int i = 0; i < rep->n; i++) {
    if (strcmp(rep->runs[i].f->partitioner, "metis") == 0) return "METIS";
    if (strcmp(rep->runs[i].f->partitioner, "ptscotch") == 0) return "PT-Scotch";
  }
  return "the partitioner";
}

/* A mesh file's sweep: the partitions METIS (or PT-Scotch) made and the halo traffic they cost (no model: the traffic
   depends on the partition, not on a rank grid). */
static void hc_report_md_partition(const hc_report *rep, FILE *f) {
  char b1[32], b2[32], b3[32], b4[32], bw[32];
  fprintf(
      f,
      "## Partition and halo traffic\n\n"
      "The mesh file's cells are partitioned by %s (k-way, cells joined by their faces) for each rank count. "
      "`cells/rank` and its imbalance (max / avg - 1) are the partition's balance, `faces cut` the faces between "
      "cells of different ranks (the partitioner's objective), `neighbours` and `shared nodes` per rank what each rank "
      "exchanges in the halo (%d nodal vector%s per step, one round of messages). The implied bandwidth is "
      "`bytes per rank and step / halo seconds per step (min over ranks)`. Without a rank grid there is no "
      "closed-form traffic model to extrapolate.\n\n"
      "| ranks | partitioner | cells/rank min..max | imbalance | faces cut | neighbours min..max | shared nodes "
      "min..max | bytes/rank/step (max) | halo s/step min | avg | max | implied bandwidth |\n"
      "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
      hc_report_partitioner(rep), rep->runs[rep->n - 1].f->halo_exchanges_per_step,
      rep->runs[rep->n - 1].f->halo_exchanges_per_step == 1 ? "" : "s");
  for (int i = 0; i < rep->n; i++) {
    const hc_report_run *r = &rep->runs[i];
    const hc_results *x = r->f;
    snprintf(bw, sizeof(bw), "n/a");
    if (r->implied_bw > 0) snprintf(bw, sizeof(bw), "%.3g GB/s", 1e-9 * r->implied_bw);
    const double c = x->cells_per_rank.avg;
    fprintf(f, "| %d | %.40s | %.0f..%.0f | %.1f%% | %lld | %.0f..%.0f | %.0f..%.0f | %s | %s | %s | %s | %s |\n",
            x->ranks, x->partitioner, x->cells_per_rank.min, x->cells_per_rank.max,
            c > 0 ? 100.0 * (x->cells_per_rank.max / c - 1.0) : 0.0, (long long)x->edge_cut, x->halo_neighbors.min,
            x->halo_neighbors.max, x->shared_nodes_per_rank.min, x->shared_nodes_per_rank.max,
            hc_fmt_bytes(r->halo_bytes_step, b1, sizeof(b1)), hc_fmt_s(r->halo.min, b2, sizeof(b2)),
            hc_fmt_s(r->halo.avg, b3, sizeof(b3)), hc_fmt_s(r->halo.max, b4, sizeof(b4)), bw);
  }
  fprintf(f, "\n");
}

static void hc_report_md_model(const hc_report *rep, FILE *f) {
  char b1[32], b2[32], b3[32], b4[32], b5[32];
  fprintf(f,
          "## Halo traffic model\n\n"
          "Every step exchanges %d nodal vector%s (one per DataField and FieldField kernel) in double precision, "
          "all in one round of messages (one message per neighbour each way) "
          "(8 bytes per value). A rank sends each of its neighbours the nodes it shares with it: a face neighbour "
          "`(p*n1+1)*(p*n2+1)` values for a block of `n1 x n2` cells on that face and order `p`, an edge neighbour "
          "`p*n+1`, a corner neighbour 1. So the traffic per rank and step is\n\n"
          "    bytes(N) = 8 * exchanges * max over ranks of sum over neighbours of shared nodes\n\n"
          "which depends only on the rank grid that the partition chooses for N ranks (`hc_partition_grid`) and the "
          "block each rank holds. The table sets it beside the measured halo time (the phase `halo`: the exchange, "
          "its latency and any waiting for a neighbour that is late, so it also absorbs load imbalance) and the "
          "implied bandwidth `bytes(N) / halo seconds per step (min over ranks)`: the rank with the shortest halo "
          "time is the one that reached the exchange last and waited least, so its time is the closest to the cost "
          "of the exchange itself. `model` is the formula above, "
          "`measured` what the run's decomposition counted; they agree when the model holds.\n\n",
          rep->runs[rep->n - 1].f->halo_exchanges_per_step,
          rep->runs[rep->n - 1].f->halo_exchanges_per_step == 1 ? "" : "s");
  fprintf(f,
          "| ranks | rank grid | neighbours (max) | bytes/exchange measured (max) | model | bytes/rank/step | "
          "messages/rank/step | halo s/step min | avg | max | implied bandwidth |\n"
          "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int i = 0; i < rep->n; i++) {
    const hc_report_run *r = &rep->runs[i];
    const hc_results *x = r->f;
    char grid[48], model[48] = "n/a", bw[32] = "n/a";
    hc_format_partition(x, grid, sizeof(grid));
    if (r->model_values >= 0) {
      snprintf(model, sizeof(model), "%.0f%s", 8.0 * r->model_values,
               8.0 * r->model_values == x->halo_bytes_per_exchange.max ? "" : " (differs)");
    }
    if (r->implied_bw > 0) snprintf(bw, sizeof(bw), "%.3g GB/s", 1e-9 * r->implied_bw);
    fprintf(f, "| %d | %s | %.0f | %.0f | %s | %s | %.0f | %s | %s | %s | %s |\n", x->ranks, grid,
            x->halo_neighbors.max, x->halo_bytes_per_exchange.max, model,
            hc_fmt_bytes(r->halo_bytes_step, b1, sizeof(b1)), x->halo_neighbors.max,
            hc_fmt_s(r->halo.min, b5, sizeof(b5)), hc_fmt_s(r->halo.avg, b2, sizeof(b2)),
            hc_fmt_s(r->halo.max, b3, sizeof(b3)), bw);
  }
  const hc_report_run *ref = hc_report_halo_reference(rep);
  if (rep->weak_global) {
    fprintf(f,
            "\nNo extrapolation: this weak sweep grows a globally sized box by hand, so the box at other rank "
            "counts is not known.\n\n");
    return;
  }
  fprintf(f, "\n### Extrapolation\n\n");
  const int nmax = rep->runs[rep->n - 1].f->ranks;
  const int exchanges = rep->runs[rep->n - 1].f->halo_exchanges_per_step;
  if (ref) {
    fprintf(f,
            "The model at larger rank counts, with the halo time scaled from the %d-rank run by the bytes "
            "(bandwidth only: `t_halo(N) = t_halo,min(%d) * bytes(N) / bytes(%d)`; latency adds about "
            "`messages * latency`, and a real network is slower than shared memory). The predicted share assumes "
            "the rest of the step %s.\n\n",
            ref->f->ranks, ref->f->ranks, ref->f->ranks,
            rep->weak ? "stays as it was (weak scaling: fixed work per rank)" : "shrinks as 1/N (strong scaling)");
  } else {
    fprintf(f, "The model at larger rank counts (no measured run exchanged a halo, so no time is predicted).\n\n");
  }
  fprintf(f,
          "| ranks | rank grid | neighbours (max) | bytes/rank/step | messages/rank/step | predicted halo s/step | "
          "predicted halo share |\n|---:|---|---:|---:|---:|---:|---:|\n");
  for (int k = 1; k <= HC_REPORT_EXTRAPOLATE; k++) {
    const int n = nmax << k;
    int grid[3], nb;
    int64_t values;
    char g[48];
    if (hc_report_halo_model(rep->sizing, rep->cells, rep->order, n, grid, &values, &nb) != HC_OK) {
      hc_error_clear();
      fprintf(f, "| %d | does not fit (too few cells) | | | | | |\n", n);
      continue;
    }
    hc_format_grid(grid, g, sizeof(g));
    const double bytes = 8.0 * (double)values * exchanges;
    fprintf(f, "| %d | %s | %d | %s | %d |", n, g, nb, hc_fmt_bytes(bytes, b1, sizeof(b1)), nb);
    if (ref) {
      const double th = ref->halo.min * bytes / ref->halo_bytes_step;
      double rest = ref->step.max - ref->halo.max;
      if (!rep->weak) rest *= (double)ref->f->ranks / n;
      fprintf(f, " %s | %.1f%% |\n", hc_fmt_s(th, b4, sizeof(b4)), 100.0 * th / (th + fmax(rest, 0.0)));
    } else {
      fprintf(f, " | |\n");
    }
  }
  fprintf(f, "\n");
}

static void hc_report_md(const hc_report *rep, FILE *f) {
  const hc_report_run *base = &rep->runs[0];
  const hc_results *a = base->f;
  char b1[32], b2[32], b3[32];
  const char *v = "";
  time_t now = time(NULL);
  char date[40];
  strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  fprintf(f, "# hexcontract %s scaling report\n\n", hc_mode_name(rep));
  fprintf(f, "%d run%s from `%s`, written by `hexcontract report` (%s) on %s.\n\n", rep->n, rep->n == 1 ? "" : "s",
          rep->dir, HC_VERSION, date);
  if (rep->file) {
    fprintf(f, "- Scaling: **%s** (a mesh file, partitioned by %s)", hc_mode_name(rep), hc_report_partitioner(rep));
  } else {
    fprintf(f, "- Scaling: **%s** (mesh.sizing %s%s)", hc_mode_name(rep), hc_sizing_name(rep->sizing),
            rep->weak_global ? ", mesh.cells grown with the ranks" : "");
  }
  if (rep->weak) {
    fprintf(f, ", %.0f cells per rank", a->cells_per_rank.avg);
  } else {
    if (a->global_cells[0] > 0) {
      fprintf(f, ", %lld x %lld x %lld = %lld cells in all", (long long)a->global_cells[0],
              (long long)a->global_cells[1], (long long)a->global_cells[2], (long long)a->num_global_cells);
    } else {
      fprintf(f, ", the %lld cells of %s", (long long)a->num_global_cells, a->mesh_file);
    }
  }
  if (rep->file) {
    fprintf(f, "\n- Deck: mesh.file %s, order %d", hc_results_deck_entry(a, "mesh.file")->value, rep->order);
  } else {
    fprintf(f, "\n- Deck: mesh.cells %s, order %d", hc_results_deck_entry(a, "mesh.cells")->value, rep->order);
  }
  if (hc_deck_value(a, "run.steps", &v) == HC_OK) fprintf(f, ", %s timed steps", v);
  if (hc_deck_value(a, "kernels.enabled", &v) == HC_OK) fprintf(f, ", kernels %s", v);
  hc_error_clear();
  fprintf(f, "\n- Backend %s, %s precision, %s layout\n", rep->backend, rep->precision, rep->layout);
  fprintf(f, "- Build: hexcontract %s, git %s", a->build.version, a->build.git_revision);
  for (int i = 1; i < rep->n; i++) {
    if (strcmp(rep->runs[i].f->build.git_revision, a->build.git_revision) != 0) {
      fprintf(f, " (**note**: %s was built from git %s)", rep->runs[i].name, rep->runs[i].f->build.git_revision);
    }
  }
  if (a->num_rank_info > 0) fprintf(f, "\n- Rank 0 ran on: %s (host %s)", a->rank_info[0].device, a->rank_info[0].host);
  fprintf(f, "\n\n");

  fprintf(f, "## Scaling\n\n");
  if (rep->weak) {
    fprintf(f, "Parallel efficiency of weak scaling (work per rank fixed): `E(N) = t(%d) / t(N)`", a->ranks);
  } else {
    fprintf(f, "Parallel efficiency of strong scaling (global work fixed): `E(N) = t(%d) * %d / (t(N) * N)`", a->ranks,
            a->ranks);
  }
  fprintf(f,
          ", with `t` the time per step of the slowest rank (`figures_of_merit.seconds_per_step`), against the "
          "smallest run. The communication share is (halo + reduction) / step, averaged over ranks. `%% of roofline` "
          "is the step's roofline (the least time of its compulsory bytes at the copy bandwidth each rank measured "
          "at start-up, `roofline.phases.step.percent`) over the measured step, averaged over ranks; `n/a` for a run "
          "with `run.roofline: false` or from an older hexcontract.\n\n");
  fprintf(f,
          "| ranks | %s | cells/rank | time/step min | avg | max | efficiency | cell-steps/s | per rank | "
          "comm share | %% of roofline | checks |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
          rep->device ? "GPUs" : "threads/rank");
  for (int i = 0; i < rep->n; i++) {
    const hc_report_run *r = &rep->runs[i];
    const hc_results *x = r->f;
    char cells[64], checks[512], dev[32], roof[32] = "n/a";
    if (isfinite(hc_results_roofline_percent(x, "step")))
      snprintf(roof, sizeof(roof), "%.1f%%", hc_results_roofline_percent(x, "step"));
    if (x->cells_per_rank.min == x->cells_per_rank.max) {
      snprintf(cells, sizeof(cells), "%.0f", x->cells_per_rank.max);
    } else {
      snprintf(cells, sizeof(cells), "%.0f..%.0f", x->cells_per_rank.min, x->cells_per_rank.max);
    }
    hc_format_checks(r, checks, sizeof(checks));
    if (rep->device) {
      snprintf(dev, sizeof(dev), "%d", r->gpus);
    } else if (r->threads > 0) {
      snprintf(dev, sizeof(dev), "%d", r->threads);
    } else {
      snprintf(dev, sizeof(dev), "?");
    }
    fprintf(f, "| %d | %s | %s | %s | %s | %s | %.1f%% | %.4g | %.4g | %.1f%% | %s | %s |\n", x->ranks, dev, cells,
            hc_fmt_s(r->step.min, b1, sizeof(b1)), hc_fmt_s(r->step.avg, b2, sizeof(b2)),
            hc_fmt_s(r->step.max, b3, sizeof(b3)), 100 * r->efficiency, x->cell_steps_per_second, r->per_rank,
            100 * r->comm_share, roof, checks);
  }

  fprintf(f,
          "\n## Where the time goes\n\nShare of the step (seconds per step averaged over ranks); `other` is the "
          "step less the phases (timer overhead, the loop itself).\n\n| ranks | step avg |");
  for (int p = 0; p < HC_REPORT_NUM_PHASES; p++) fprintf(f, " %s |", hc_report_phases[p]);
  fprintf(f, " other |\n|---:|---:|");
  for (int p = 0; p <= HC_REPORT_NUM_PHASES; p++) fprintf(f, "---:|");
  fprintf(f, "\n");
  for (int i = 0; i < rep->n; i++) {
    const hc_report_run *r = &rep->runs[i];
    fprintf(f, "| %d | %s |", r->f->ranks, hc_fmt_s(r->step.avg, b1, sizeof(b1)));
    for (int p = 0; p <= HC_REPORT_NUM_PHASES; p++)
      fprintf(f, " %.1f%% |", r->step.avg > 0 ? 100 * r->phase[p] / r->step.avg : 0.0);
    fprintf(f, "\n");
  }
  fprintf(f, "\nImbalance of the step over ranks (max/avg - 1):");
  for (int i = 0; i < rep->n; i++) {
    const hc_report_run *r = &rep->runs[i];
    fprintf(f, "%s %d: %.1f%%", i ? "," : "", r->f->ranks, r->step.avg > 0 ? 100 * (r->step.max / r->step.avg - 1) : 0);
  }
  fprintf(f,
          ". The halo phase is the first point where a rank waits for its neighbours, so imbalance in the "
          "phases before it shows up there.\n\n");

  if (rep->file) {
    hc_report_md_partition(rep, f);
  } else {
    hc_report_md_model(rep, f);
  }

  fprintf(f, "## Checks\n\n");
  int failed = 0;
  for (int i = 0; i < rep->n; i++) {
    char checks[512];
    hc_format_checks(&rep->runs[i], checks, sizeof(checks));
    fprintf(f, "- %d rank%s (`%s`): %s\n", rep->runs[i].f->ranks, rep->runs[i].f->ranks == 1 ? "" : "s",
            rep->runs[i].name, checks);
    failed += strcmp(rep->runs[i].f->status, "passed") != 0;
  }
  fprintf(f, "\n%s\n\n",
          failed ? "**Some runs failed their self-checks: their timings are of a wrong answer.**"
                 : "Every run passed its self-checks (app/README.md, section Checks).");

  fprintf(f, "## Plots\n\n");
  if (rep->plots) {
    fprintf(f,
            "![parallel efficiency](efficiency.png)\n\n![time per step by phase](phases.png)\n\n"
            "![throughput per rank](throughput.png)\n\n");
  } else {
    fprintf(f, "%s\n\n", rep->plot_note);
  }
  fprintf(f,
          "`report.dat` holds the plotted numbers and `report.gp` the gnuplot script (`gnuplot report.gp` in this "
          "directory redraws the PNGs); `report.csv` has every number of the tables above, one row per run.\n");
}

static void hc_report_dat(const hc_report *rep, FILE *f) {
  fprintf(f, "# ranks efficiency ideal");
  for (int p = 0; p < HC_REPORT_NUM_PHASES; p++) fprintf(f, " %s_s", hc_report_phases[p]);
  fprintf(f, " other_s cell_steps_per_s_per_rank ideal_per_rank\n");
  for (int i = 0; i < rep->n; i++) {
    const hc_report_run *r = &rep->runs[i];
    fprintf(f, "%d %.6f 1.0", r->f->ranks, r->efficiency);
    for (int p = 0; p <= HC_REPORT_NUM_PHASES; p++) fprintf(f, " %.9g", r->phase[p]);
    fprintf(f, " %.9g %.9g\n", r->per_rank, rep->runs[0].per_rank);
  }
}

static void hc_report_gp(const hc_report *rep, FILE *f) {
  const double lo = rep->runs[0].f->ranks / 1.4, hi = rep->runs[rep->n - 1].f->ranks * 1.4;
  const char *mode = rep->weak ? "Weak" : "Strong";
  double emax = 1.0, tmax = 0.0;
  for (int i = 0; i < rep->n; i++) emax = fmax(emax, rep->runs[i].efficiency);
  for (int i = 0; i < rep->n; i++) tmax = fmax(tmax, rep->runs[i].per_rank);
  fprintf(f,
          "# report.gp: the plots of report.md from report.dat; `gnuplot report.gp` in this directory redraws them.\n"
          "if (!exists(\"suffix\")) suffix = \"\"\n"
          "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
          "  set terminal pngcairo size 900,600 font \",12\"\n"
          "} else {\n"
          "  set terminal png size 900,600\n"
          "}\n"
          "set grid\n"
          "set xlabel \"MPI ranks\"\n"
          "\n"
          "set output 'efficiency.png'.suffix\n"
          "set title \"%s scaling: parallel efficiency (%s, %s)\"\n"
          "set logscale x 2\n"
          "set xrange [%g:%g]\n"
          "set xtics (",
          mode, rep->weak ? "t1/tN" : "t1 n1 / (tN nN)", rep->backend, lo, hi);
  for (int i = 0; i < rep->n; i++)
    fprintf(f, "%s\"%d\" %d", i ? ", " : "", rep->runs[i].f->ranks, rep->runs[i].f->ranks);
  fprintf(f,
          ")\n"
          "set ylabel \"parallel efficiency\"\n"
          "set yrange [0:%g]\n"
          "set key bottom left\n"
          "plot 'report.dat' using 1:2 with linespoints lw 2 pt 7 ps 1.5 title 'measured', \\\n"
          "     '' using 1:3 with lines dt 2 lw 2 title 'ideal'\n"
          "\n"
          "set output 'throughput.png'.suffix\n"
          "set title \"%s scaling: throughput per rank (%s)\"\n"
          "set ylabel \"cell-steps/s per rank\"\n"
          "set yrange [0:%g]\n"
          "plot 'report.dat' using 1:%d with linespoints lw 2 pt 7 ps 1.5 title 'measured', \\\n"
          "     '' using 1:%d with lines dt 2 lw 2 title 'ideal (smallest run)'\n"
          "\n"
          "set output 'phases.png'.suffix\n"
          "set title \"%s scaling: time per step by phase (average over ranks, %s)\"\n"
          "unset logscale x\n"
          "set autoscale x\n"
          "set xtics auto\n"
          "set ylabel \"seconds per step\"\n"
          "set yrange [0:*]\n"
          "set style data histograms\n"
          "set style histogram rowstacked\n"
          "set style fill solid 0.85 border -1\n"
          "set boxwidth 0.7\n"
          "set key outside right top\n"
          "plot 'report.dat' using 4:xtic(1) title '%s'",
          1.1 * emax, mode, rep->backend, tmax > 0 ? 1.15 * tmax : 1.0, 4 + HC_REPORT_NUM_PHASES + 1,
          4 + HC_REPORT_NUM_PHASES + 2, mode, rep->backend, hc_report_phases[0]);
  for (int p = 1; p <= HC_REPORT_NUM_PHASES; p++)
    fprintf(f, ", \\\n     '' using %d title '%s'", 4 + p, p < HC_REPORT_NUM_PHASES ? hc_report_phases[p] : "other");
  fprintf(f, "\n");
}

typedef void (*hc_report_writer)(const hc_report *rep, FILE *f);

static int hc_report_write(const hc_report *rep, const char *name, hc_report_writer writer) {
  char path[8192];
  hc_atomic_file af;
  snprintf(path, sizeof(path), "%s/%s", rep->out, name);
  HC_CALL(hc_atomic_file_open(path, &af));
  writer(rep, af.f);
  return hc_atomic_file_commit(&af);
}

/* The gnuplot program: HC_GNUPLOT, else gnuplot on PATH; NULL when there is none. */
static const char *hc_find_gnuplot(char *buf, size_t n) {
  const char *env = getenv("HC_GNUPLOT");
  const char *prog = env && env[0] ? env : "gnuplot";
  if (strchr(prog, '/')) return access(prog, X_OK) == 0 ? prog : NULL;
  const char *path = getenv("PATH");
  while (path && *path) {
    size_t len = strcspn(path, ":");
    snprintf(buf, n, "%.*s/%s", (int)len, path, prog);
    if (len > 0 && access(buf, X_OK) == 0) return buf;
    path += len;
    if (*path == ':') path++;
  }
  return NULL;
}

static const char *const hc_report_pngs[] = {"efficiency.png", "phases.png", "throughput.png"};

/* Runs gnuplot on report.gp in the output directory; the PNGs are drawn under temporary names and
   renamed into place when gnuplot succeeded. A missing or failing gnuplot is a note, not an error. */
static void hc_report_plot(hc_report *rep) {
  char prog_buf[4096], log[8192], tmp[8192], dst[8192];
  const char *prog = hc_find_gnuplot(prog_buf, sizeof(prog_buf));
  rep->plots = 0;
  if (!prog) {
    snprintf(rep->plot_note, sizeof(rep->plot_note),
             "PNGs skipped: gnuplot was not found (install gnuplot, e.g. `apt-get install gnuplot-nox`, then run "
             "`gnuplot report.gp` in this directory).");
    return;
  }
  snprintf(log, sizeof(log), "%s/report.gp.log", rep->out);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOFOLLOW, 0666);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    if (chdir(rep->out) != 0) _exit(126);
    execl(prog, prog, "-e", "suffix='.tmp'", "report.gp", (char *)NULL);
    _exit(127);
  }
  int status = 0;
  int ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  for (size_t i = 0; i < sizeof(hc_report_pngs) / sizeof(*hc_report_pngs); i++) {
    snprintf(tmp, sizeof(tmp), "%s/%s.tmp", rep->out, hc_report_pngs[i]);
    snprintf(dst, sizeof(dst), "%s/%s", rep->out, hc_report_pngs[i]);
    struct stat st;
    if (ok && (stat(tmp, &st) != 0 || st.st_size == 0)) ok = 0;
    if (ok && rename(tmp, dst) != 0) ok = 0;
    unlink(tmp);
  }
  if (!ok) {
    snprintf(
        rep->plot_note, sizeof(rep->plot_note),
        "PNGs skipped: %.200s failed (exit status %d); its output is in report.gp.log. `gnuplot report.gp` in this "
        "directory retries.",
        prog, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return;
  }
  struct stat st;
  if (stat(log, &st) == 0 && st.st_size == 0) unlink(log);
  rep->plots = 1;
}

/* The output directory and every file the report writes there, checked before the results are read: an
   unwritable directory, or a FIFO or link in place of a file, is refused now, not after the work. */
static int hc_report_check_out(const hc_report *rep, int given, int create) {
  static const char *const files[] = {"report.md",     "report.csv",     "report.dat", "report.gp",
                                      "report.gp.log", "efficiency.png", "phases.png", "throughput.png"};
  char why[1024];
  int err = hc_path_check_out_dir(rep->out, create, files, sizeof(files) / sizeof(*files));
  if (!err) return HC_OK;
  snprintf(why, sizeof(why), "%s", hc_error_message());
  return HC_ERROR(err, "%s %s: %s", given ? "--out" : "report directory", rep->out, why);
}

static void hc_report_print(const hc_report *rep) {
  char b1[32];
  printf("hexcontract report: %s scaling, %d run%s from %s (backend %s)\n", hc_mode_name(rep), rep->n,
         rep->n == 1 ? "" : "s", rep->dir, rep->backend);
  printf("  %6s %14s %11s %11s %9s %s\n", "ranks", "time/step max", "efficiency", "comm share", "roofline", "checks");
  for (int i = 0; i < rep->n; i++) {
    char checks[512], roof[32] = "n/a";
    hc_format_checks(&rep->runs[i], checks, sizeof(checks));
    if (isfinite(hc_results_roofline_percent(rep->runs[i].f, "step")))
      snprintf(roof, sizeof(roof), "%.1f%%", hc_results_roofline_percent(rep->runs[i].f, "step"));
    printf("  %6d %14s %10.1f%% %10.1f%% %9s %s\n", rep->runs[i].f->ranks, hc_fmt_s(rep->runs[i].t, b1, sizeof(b1)),
           100 * rep->runs[i].efficiency, 100 * rep->runs[i].comm_share, roof, checks);
  }
  printf("wrote %s/report.md, report.csv, report.dat, report.gp%s\n", rep->out,
         rep->plots ? ", efficiency.png, phases.png, throughput.png" : "");
  if (!rep->plots) printf("note: %s\n", rep->plot_note);
}

/* The report's one operand: the directory of results files. */
static int hc_report_dir_operand(void *ctx, const char *arg) {
  const char **dir = ctx;
  HC_CHECK(!*dir, HC_ERR_INPUT, "report takes one directory, got '%s' and '%s'", *dir, arg);
  *dir = arg;
  return HC_OK;
}

int hc_cmd_report(int argc, char **argv) {
  int ierr = HC_OK, help = 0;
  hc_report rep;
  memset(&rep, 0, sizeof(rep));
  const char *dir = NULL, *out = NULL;
  /* The help is written by hand (hc_report_usage): it lists the files written, not the options. */
  const hc_option table[] = {{.name = "out",
                              .kind = HC_OPTION_STRING,
                              .dest = &out,
                              .missing = "--out needs a directory (hexcontract report DIR --out DIR2)"},
                             {.name = "help", .short_name = 'h', .kind = HC_OPTION_HELP, .dest = &help},
                             {0}};
  const hc_options spec = {.options = table,
                           .see = " (hexcontract report --help lists the options)",
                           .operand = hc_report_dir_operand,
                           .ctx = &dir};
  HC_CALL(hc_options_parse(&spec, argc, argv));
  if (help) {
    hc_report_usage(stdout);
    return HC_OK;
  }
  HC_CHECK(dir, HC_ERR_INPUT, "report needs a directory of results files: hexcontract report DIR [--out DIR2]");
  HC_CHECK(strlen(dir) < sizeof(rep.dir) && (!out || strlen(out) < sizeof(rep.out)), HC_ERR_INPUT,
           "the directory name is too long");
  snprintf(rep.dir, sizeof(rep.dir), "%s", dir);
  snprintf(rep.out, sizeof(rep.out), "%s", out ? out : dir);
  size_t len = strlen(rep.dir);
  while (len > 1 && rep.dir[len - 1] == '/') rep.dir[--len] = '\0';
  len = strlen(rep.out);
  while (len > 1 && rep.out[len - 1] == '/') rep.out[--len] = '\0';
  /* An existing output directory is checked now; a missing --out is created once the sweep is accepted.
     A missing DIR is reported by the load, which names what it needs. */
  const int out_exists = access(rep.out, F_OK) == 0;
  if (out_exists) HC_CALL(hc_report_check_out(&rep, out != NULL, 0));

  HC_CALL_GOTO(hc_report_load(&rep), cleanup);
  HC_CALL_GOTO(hc_report_check_sweep(&rep), cleanup);
  /* Made once the sweep is known good, so that a refused one leaves nothing behind. */
  if (out && !out_exists) HC_CALL_GOTO(hc_report_check_out(&rep, 1, 1), cleanup);
  hc_report_derive(&rep);
  HC_CALL_GOTO(hc_report_write(&rep, "report.dat", hc_report_dat), cleanup);
  HC_CALL_GOTO(hc_report_write(&rep, "report.gp", hc_report_gp), cleanup);
  hc_report_plot(&rep);
  HC_CALL_GOTO(hc_report_write(&rep, "report.csv", hc_report_csv), cleanup);
  HC_CALL_GOTO(hc_report_write(&rep, "report.md", hc_report_md), cleanup);
  hc_report_print(&rep);
cleanup:
  for (int i = 0; i < rep.n; i++) hc_results_destroy(&rep.runs[i].f);
  free(rep.runs);
  return ierr;
}
