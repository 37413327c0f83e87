/* The run's summary and results file: timers reduced over ranks, figures of merit, checks, provenance. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/hc_inject.h"
#include "app/hc_host.h"
#include "app/hc_results.h"
#include "app/hc_signal.h"
#include "app/hc_step_roofline.h"
#include "hc_config.h"
#include "io/hc_atomic_file.h"
#include "io/hc_path.h"
#include "io/hc_yaml_writer.h"
#include "kernels/hc_xsum.h"
#include "mesh/hc_mpi.h"
#if HC_HAVE_OPENMP
#include <omp.h>
#endif

/* The cost model of kernel on the whole mesh (all ranks). */
static void hc_global_cost(const hc_run *run, hc_kernel kernel, double *flops, double *bytes) {
  hc_contract k = run->k[kernel];
  k.C = run->mesh->num_global_cells;
  hc_contract_cost(&k, flops, bytes);
}

/* What this rank computes on: the backend's device or the CPU and its threads. */
static void hc_device_of(const hc_run *run, char *buf, size_t n) {
  char cpu[160];
  hc_host_cpu_model(cpu, sizeof(cpu));
  int threads = 1;
#if HC_HAVE_OPENMP
  if (strcmp(run->be->name, "openmp") == 0) threads = omp_get_max_threads();
#endif
  if (run->be->device_name) {
    char dev[200] = "";
    if (run->be->device_name(dev, sizeof(dev)) == HC_OK) {
      snprintf(buf, n, "%s", dev);
      return;
    }
    hc_error_clear();
  }
  snprintf(buf, n, "%s, %d thread%s", cpu, threads, threads == 1 ? "" : "s");
}

static int hc_reduce_stats(MPI_Comm comm, int n, const double *local, hc_stat *out) {
  double *buf = malloc(sizeof(double) * 3 * (size_t)n);
  HC_CHECK(buf, HC_ERR_RESOURCE, "out of host memory");
  int nranks;
  MPI_Comm_size(comm, &nranks);
  int err = MPI_Allreduce(local, buf, n, MPI_DOUBLE, MPI_MIN, comm);
  if (err == MPI_SUCCESS) err = MPI_Allreduce(local, buf + n, n, MPI_DOUBLE, MPI_SUM, comm);
  if (err == MPI_SUCCESS) err = MPI_Allreduce(local, buf + 2 * n, n, MPI_DOUBLE, MPI_MAX, comm);
  if (err != MPI_SUCCESS) {
    free(buf);
    return HC_ERROR(HC_ERR_RUNTIME, "MPI_Allreduce of the timers failed (MPI error %d)", err);
  }
  for (int i = 0; i < n; i++) {
    out[i].min = buf[i];
    out[i].avg = buf[n + i] / nranks;
    out[i].max = buf[2 * n + i];
  }
  free(buf);
  return HC_OK;
}

/* This rank's compulsory bytes per step and their roofline seconds at the rates it measured. */
static void hc_results_roofline(const hc_run *run, int64_t halo_bytes, double bytes[HC_NUM_PHASES],
                                double seconds[HC_NUM_PHASES]) {
  hc_step_problem p = {
      .k = run->k,
      .enabled = run->cfg.enabled,
      .num_nodes = run->mesh->num_nodes,
      .halo_bytes_per_vector = halo_bytes,
      .reduction_bytes = (int)sizeof(double) * 3 * (run->cfg.deterministic ? HC_XSUM_LIMBS + 1 : 1),
      .is_device = run->be->is_device,
      .device_assembly = run->device_assembly,
      .u_upload = run->u_upload,
  };
  hc_step_bytes b;
  hc_step_bytes_of(&p, &b);
  hc_step_rates r = {.copy = run->rates.copy.best_gbs * 1e9, .h2d = run->rates.h2d, .d2h = run->rates.d2h};
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
    const int tc = run->cfg.precision == HC_DOUBLE &&
                   (run->chosen[kid] == HC_VARIANT_TENSORCORE || run->chosen[kid] == HC_VARIANT_CUBLAS);
    r.peak[kid] = tc ? run->rates.tc : run->rates.peak;
  }
  hc_step_roofline(&b, &r, seconds);
  memcpy(bytes, b.bytes, sizeof(b.bytes));
}

int hc_results_gather(const hc_run *run, hc_results_stats *st) {
  memset(st, 0, sizeof(*st));
  const int steps = run->steps_done > 0 ? run->steps_done : 1;
  double local[HC_NUM_PHASES + 2 * HC_NUM_KERNELS + 5];
  int n = 0;
  for (int i = 0; i < HC_NUM_PHASES; i++) local[n++] = run->phase_s[i] / steps;
  for (int i = 0; i < HC_NUM_KERNELS; i++) local[n++] = run->kernel_s[i] / steps;
  for (int i = 0; i < HC_NUM_KERNELS; i++) local[n++] = run->celldata_s[i] / steps;
  hc_halo_stats hs;
  HC_CALL(hc_halo_get_stats(run->halo, HC_DOUBLE, &hs));
  local[n++] = (double)run->mesh->C;
  local[n++] = (double)run->mesh->num_nodes;
  local[n++] = (double)run->mesh->num_owned_nodes;
  local[n++] = (double)hs.send_bytes;
  local[n++] = (double)hs.num_neighbors;
  hc_stat all[HC_NUM_PHASES + 2 * HC_NUM_KERNELS + 5];
  HC_CALL(hc_reduce_stats(run->comm, n, local, all));
  st->roofline = run->rates.measured;
  if (st->roofline) {
    double roof[6 + 2 * HC_NUM_PHASES];
    hc_stat rs[6 + 2 * HC_NUM_PHASES];
    int m = 0;
    roof[m++] = run->rates.copy.best_gbs;
    roof[m++] = 1e-9 * run->rates.h2d;
    roof[m++] = 1e-9 * run->rates.d2h;
    roof[m++] = 1e-9 * run->rates.peak;
    roof[m++] = 1e-9 * run->rates.tc;
    roof[m++] = run->rates.seconds;
    hc_results_roofline(run, hs.send_bytes, roof + m, roof + m + HC_NUM_PHASES);
    HC_CALL(hc_reduce_stats(run->comm, 6 + 2 * HC_NUM_PHASES, roof, rs));
    m = 0;
    st->copy_gbs = rs[m++];
    st->h2d_gbs = rs[m++];
    st->d2h_gbs = rs[m++];
    st->peak_gflops = rs[m++];
    st->tc_gflops = rs[m++];
    st->rates_s = rs[m++];
    for (int i = 0; i < HC_NUM_PHASES; i++) st->roof_bytes[i] = rs[m + i], st->roof_s[i] = rs[m + HC_NUM_PHASES + i];
  }
  n = 0;
  for (int i = 0; i < HC_NUM_PHASES; i++) st->phase[i] = all[n++];
  for (int i = 0; i < HC_NUM_KERNELS; i++) st->kernel[i] = all[n++];
  for (int i = 0; i < HC_NUM_KERNELS; i++) st->celldata[i] = all[n++];
  st->cells = all[n++];
  st->nodes = all[n++];
  st->owned_nodes = all[n++];
  st->halo_bytes = all[n++];
  st->halo_neighbors = all[n++];
  for (int k = 0; k < HC_NUM_KERNELS; k++) st->halo_exchanges += run->y[k] != NULL;
  HC_CALL_MPI(MPI_Allreduce(&run->total_s, &st->total_s, 1, MPI_DOUBLE, MPI_MAX, run->comm));
  st->nranks = run->nranks;
  char dev[HC_DEVICE_LEN], host[HC_DEVICE_LEN];
  hc_device_of(run, dev, sizeof(dev));
  if (gethostname(host, sizeof(host)) != 0) snprintf(host, sizeof(host), "unknown");
  host[sizeof(host) - 1] = '\0';
  if (run->rank == 0) {
    st->devices = calloc((size_t)run->nranks, HC_DEVICE_LEN);
    st->hosts = calloc((size_t)run->nranks, HC_DEVICE_LEN);
    st->device_index = calloc((size_t)run->nranks, sizeof(*st->device_index));
  }
  /* Every rank learns whether rank 0 can receive, so that none is left in the gathers. */
  int ok = run->rank != 0 || (st->devices && st->hosts && st->device_index);
  HC_CALL_MPI(MPI_Bcast(&ok, 1, MPI_INT, 0, run->comm));
  if (!ok) {
    hc_results_stats_free(st);
    return HC_ERROR(HC_ERR_RESOURCE, "rank 0: out of host memory for the per-rank device table of %d ranks",
                    run->nranks);
  }
  HC_CALL_MPI(MPI_Gather(dev, HC_DEVICE_LEN, MPI_CHAR, st->devices, HC_DEVICE_LEN, MPI_CHAR, 0, run->comm));
  HC_CALL_MPI(MPI_Gather(host, HC_DEVICE_LEN, MPI_CHAR, st->hosts, HC_DEVICE_LEN, MPI_CHAR, 0, run->comm));
  HC_CALL_MPI(MPI_Gather(&run->device, 1, MPI_INT, st->device_index, 1, MPI_INT, 0, run->comm));
  return HC_OK;
}

void hc_results_stats_free(hc_results_stats *st) {
  free(st->devices);
  free(st->hosts);
  free(st->device_index);
  st->devices = st->hosts = NULL;
  st->device_index = NULL;
}

void hc_results_print_header(const hc_deck *deck, const hc_run_config *cfg) {
  int nranks;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const int p = cfg->mesh.order, q = cfg->quadrature;
  printf("hexcontract %s (git %s): %d rank%s, backend %s, %s, %s\n", HC_VERSION, HC_GIT_REVISION, nranks,
         nranks == 1 ? "" : "s", cfg->backend, hc_precision_name(cfg->precision), hc_layout_name(cfg->layout));
  printf("deck: %s\n", deck->path[0] ? deck->path : "(none: defaults)");
  printf("mesh: %lld x %lld x %lld cells %s, order %d (L = %d), q = %d (P = %d), jitter %g, shear A = %g\n",
         (long long)cfg->mesh.cells[0], (long long)cfg->mesh.cells[1], (long long)cfg->mesh.cells[2],
         cfg->mesh.sizing == HC_SIZING_PER_RANK ? "per rank" : "in all", p, (p + 1) * (p + 1) * (p + 1), q, q * q * q,
         cfg->mesh.jitter, cfg->shear_amplitude);
  printf("steps: %d timed after %d warm-up, dt = %g; checks %s\n", cfg->steps, cfg->warmup, cfg->dt,
         !cfg->checks           ? "off"
         : cfg->check_every > 0 ? "every few steps"
                                : "at the end");
  fflush(stdout);
}

static const char *hc_pct(double part, double whole, char *buf, size_t n) {
  snprintf(buf, n, "%5.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

/* The checks table: columns as wide as their longest entry, value and expected value at the same
   (round-trip) precision. */
static void hc_results_print_checks(const hc_run *run) {
  enum { HC_NUM_WIDTH = 32 };
  int wname = 0, wvalue = 0, wexpected = 0;
  char num[HC_NUM_WIDTH];
  for (int i = 0; i < run->nchecks; i++) {
    const hc_check *c = &run->checks[i];
    int n = (int)strlen(c->name);
    if (n > wname) wname = n;
    n = snprintf(num, sizeof(num), "%.17g", c->value);
    if (n > wvalue) wvalue = n;
    n = snprintf(num, sizeof(num), "%.17g", c->expected);
    if (n > wexpected) wexpected = n;
  }
  printf("\nchecks (app/README.md, section Checks; the worst evaluation of each):\n");
  for (int i = 0; i < run->nchecks; i++) {
    const hc_check *c = &run->checks[i];
    printf("  %-*s %-6s value %-*.17g expected %-*.17g tolerance %-9.3g (%d of %d passed)\n", wname, c->name,
           c->failures ? "FAILED" : "ok", wvalue, c->value, wexpected, c->expected, c->tolerance,
           c->evaluations - c->failures, c->evaluations);
    if (c->failures && c->hint[0]) printf("  %-*s hint: %s\n", wname, "", c->hint);
    /* On the serial backend the sampled cells are recomputed by the code that ran: it says so. */
    if (strcmp(c->name, "device_vs_host") == 0 && strcmp(run->be->name, "serial") == 0)
      printf("  %-*s note: the backend is serial, the reference itself: this compares serial with serial\n", wname, "");
  }
}

/* The share of the roofline a phase reached: its roofline seconds over its measured seconds (averages over
   ranks); negative when undefined (nothing measured). */
static double hc_roof_fraction(const hc_results_stats *st, int phase) {
  return st->phase[phase].avg > 0 ? st->roof_s[phase].avg / st->phase[phase].avg : -1.0;
}

/* Whether a phase is on the memory roofline: halo and reduction are messages, network-bound. */
static int hc_roof_memory_phase(int phase) {
  return phase != HC_PHASE_HALO && phase != HC_PHASE_REDUCTION;
}

/* The roofline block of the summary (README.md, section The step's roofline). */
static void hc_results_print_roofline(const hc_run *run, const hc_results_stats *st) {
  const hc_roofline_rates *r = &run->rates;
  printf(
      "\nroofline of the step (README.md, section The step's roofline; per rank, averages over ranks): copy bandwidth "
      "%.4g GB/s (min "
      "%.4g, max %.4g over ranks; best of %d copies of %.3g MB each)",
      st->copy_gbs.avg, st->copy_gbs.min, st->copy_gbs.max, r->copy.calls, 1e-6 * r->copy.bytes);
  if (run->be->is_device) printf(", host->device %.4g GB/s, device->host %.4g GB/s", st->h2d_gbs.avg, st->d2h_gbs.avg);
  if (st->peak_gflops.avg > 0) {
    printf(", peak %.4g GFLOP/s %s", st->peak_gflops.avg, hc_precision_name(run->cfg.precision));
    if (st->tc_gflops.avg != st->peak_gflops.avg) printf(" (tensor cores %.4g)", st->tc_gflops.avg);
  } else {
    printf(", peak unknown (memory roof only)");
  }
  printf("; measured at start-up in %.2f s\n", st->rates_s.max);
  printf("  %-10s %12s %12s %12s %14s\n", "phase", "MB/step", "roofline ms", "measured ms", "% of roofline");
  for (int i = 0; i <= HC_PHASE_STEP; i++) {
    if (i == HC_PHASE_TRANSFER && !run->be->is_device) continue;
    printf("  %-10s %12.6g ", hc_phase_names[i], 1e-6 * st->roof_bytes[i].avg);
    if (!hc_roof_memory_phase(i)) {
      printf("%12s %12.6g   messages: network-bound, on no memory roofline\n", "-", 1e3 * st->phase[i].avg);
      continue;
    }
    double f = hc_roof_fraction(st, i);
    printf("%12.6g %12.6g ", 1e3 * st->roof_s[i].avg, 1e3 * st->phase[i].avg);
    if (f >= 0) {
      printf("%13.1f%%", 100.0 * f);
    } else {
      printf("%14s", "-");
    }
    printf("%s\n", i == HC_PHASE_STEP ? "   (the memory phases' roofline over the whole step)" : "");
  }
}

void hc_results_print_summary(const hc_deck *deck, const hc_run *run, const hc_results_stats *st) {
  const hc_mesh *m = run->mesh;
  char pct[16];
  printf(
      "decomposition: rank grid %d x %d x %d, %lld global cells, %lld global nodes; per rank %.0f..%.0f cells, "
      "%.0f..%.0f nodes\n",
      m->rank_grid[0], m->rank_grid[1], m->rank_grid[2], (long long)m->num_global_cells, (long long)m->num_global_nodes,
      st->cells.min, st->cells.max, st->nodes.min, st->nodes.max);
  printf("rank 0 ran on %s (%s)\n", st->devices, st->hosts);
  const hc_stat *step = &st->phase[HC_PHASE_STEP];
  printf("\ntime per step: %.6g s avg (min %.6g, max %.6g over ranks), imbalance %.1f%%, %d timed steps in %.3f s\n",
         step->avg, step->min, step->max, step->avg > 0 ? 100.0 * (step->max / step->avg - 1.0) : 0.0, run->steps_done,
         st->total_s);
  printf("  %-10s %12s %12s %8s\n", "phase", "avg s/step", "max s/step", "share");
  for (int i = 0; i < HC_PHASE_STEP; i++) {
    if (i == HC_PHASE_TRANSFER && !run->be->is_device) continue;
    printf("  %-10s %12.6g %12.6g %8s\n", hc_phase_names[i], st->phase[i].avg, st->phase[i].max,
           hc_pct(st->phase[i].avg, step->avg, pct, sizeof(pct)));
  }
  if (st->roofline) hc_results_print_roofline(run, st);
  printf("\n  %-17s %-16s %12s %10s %10s\n", "kernel", "variant", "max ms/step", "GB/s", "GFLOP/s");
  double tf = 0, tb = 0, tt = 0;
  for (int k = 0; k < HC_NUM_KERNELS; k++) {
    if (!run->cfg.enabled[k]) continue;
    double flops, bytes, tmax = st->kernel[k].max;
    hc_global_cost(run, (hc_kernel)k, &flops, &bytes);
    char var[48];
    if (run->chosen[k] != run->cfg.variant[k]) {
      snprintf(var, sizeof(var), "%s->%s", hc_variant_name(run->cfg.variant[k]), hc_variant_name(run->chosen[k]));
    } else {
      snprintf(var, sizeof(var), "%s", hc_variant_name(run->cfg.variant[k]));
    }
    printf("  %-17s %-16s %12.4f %10.2f %10.2f\n", hc_kernel_name((hc_kernel)k), var, 1e3 * tmax,
           tmax > 0 ? 1e-9 * bytes / tmax : 0, tmax > 0 ? 1e-9 * flops / tmax : 0);
    tf += flops, tb += bytes, tt += tmax;
  }
  double cells_per_s = step->max > 0 ? (double)m->num_global_cells / step->max : 0;
  double dofs_per_s = step->max > 0 ? (double)m->num_global_nodes / step->max : 0;
  printf(
      "\nfigures of merit: %.4g cell-steps/s, %.4g node-steps/s; contractions %.2f GB/s, %.2f GFLOP/s "
      "(all ranks)\n",
      cells_per_s, dofs_per_s, tt > 0 ? 1e-9 * tb / tt : 0, tt > 0 ? 1e-9 * tf / tt : 0);
  printf("halo: %.0f..%.0f neighbours, %.0f..%.0f bytes sent per rank and step, %d nodal vectors in one round\n",
         st->halo_neighbors.min, st->halo_neighbors.max, st->halo_bytes.min * st->halo_exchanges,
         st->halo_bytes.max * st->halo_exchanges, st->halo_exchanges);
  if (run->nchecks) hc_results_print_checks(run);
  char path[HC_DECK_PATH_MAX + HC_DECK_NAME_MAX + 2];
  hc_deck_results_path(deck, path, sizeof(path));
  printf("\nresults: %s\n", path);
  fflush(stdout);
}

int hc_results_write_build(hc_yaml_writer *w) {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING + 64];
  HC_CALL(hc_yaml_writer_begin_mapping(w, "build", HC_YAML_BLOCK));
  HC_CALL(hc_yaml_writer_string(w, "version", HC_VERSION));
  HC_CALL(hc_yaml_writer_string(w, "git_revision", HC_GIT_REVISION));
  HC_CALL(hc_yaml_writer_string(w, "build_type", HC_BUILD_TYPE));
  HC_CALL(hc_yaml_writer_string(w, "c_compiler", HC_C_COMPILER));
  HC_CALL(hc_yaml_writer_string(w, "c_flags", HC_C_FLAGS));
  HC_CALL(hc_yaml_writer_bool(w, "openmp", HC_HAVE_OPENMP));
  HC_CALL(hc_yaml_writer_bool(w, "cuda", HC_HAVE_CUDA));
  HC_CALL(hc_yaml_writer_bool(w, "intrepid2", HC_HAVE_INTREPID2));
  if (HC_HAVE_CUDA) {
    HC_CALL(hc_yaml_writer_string(w, "cuda_compiler", HC_CUDA_COMPILER));
    HC_CALL(hc_yaml_writer_string(w, "cuda_architectures", HC_CUDA_ARCHITECTURES));
  }
  int len = 0;
  MPI_Get_library_version(buf, &len); /* allowed before MPI_Init */
  buf[strcspn(buf, "\n")] = '\0';
  HC_CALL(hc_yaml_writer_string(w, "mpi_library", buf));
  return hc_yaml_writer_end_mapping(w);
}

static int hc_write_stat(hc_yaml_writer *w, const char *key, const hc_stat *s) {
  HC_CALL(hc_yaml_writer_begin_mapping(w, key, HC_YAML_FLOW));
  HC_CALL(hc_yaml_writer_double(w, "min", s->min));
  HC_CALL(hc_yaml_writer_double(w, "avg", s->avg));
  HC_CALL(hc_yaml_writer_double(w, "max", s->max));
  HC_CALL(hc_yaml_writer_double(w, "imbalance", s->avg > 0 ? s->max / s->avg - 1.0 : 0.0));
  return hc_yaml_writer_end_mapping(w);
}

/* The `roofline` mapping: the rates measured at start-up and, per phase and for the step, the compulsory bytes,
   the roofline seconds, the measured seconds and the percentage reached (averages over ranks). */
static int hc_results_write_roofline(hc_yaml_writer *w, const hc_run *run, const hc_results_stats *st) {
  HC_CALL(hc_yaml_writer_begin_mapping(w, "roofline", HC_YAML_BLOCK));
  HC_CALL(hc_yaml_writer_bool(w, "measured", st->roofline));
  if (!st->roofline) return hc_yaml_writer_end_mapping(w);
  HC_CALL(hc_write_stat(w, "copy_gbytes_per_second", &st->copy_gbs));
  HC_CALL(hc_yaml_writer_double(w, "copy_bytes_per_call", run->rates.copy.bytes));
  HC_CALL(hc_yaml_writer_int64(w, "copy_calls", run->rates.copy.calls));
  if (run->be->is_device) {
    HC_CALL(hc_write_stat(w, "host_to_device_gbytes_per_second", &st->h2d_gbs));
    HC_CALL(hc_write_stat(w, "device_to_host_gbytes_per_second", &st->d2h_gbs));
  }
  HC_CALL(hc_write_stat(w, "peak_gflops", &st->peak_gflops));
  if (run->be->is_device) HC_CALL(hc_write_stat(w, "tensor_core_peak_gflops", &st->tc_gflops));
  HC_CALL(hc_yaml_writer_string(w, "peak_how", run->rates.peak_how));
  HC_CALL(hc_write_stat(w, "measure_seconds", &st->rates_s));
  HC_CALL(hc_yaml_writer_begin_mapping(w, "phases", HC_YAML_BLOCK));
  for (int i = 0; i <= HC_PHASE_STEP; i++) {
    HC_CALL(hc_yaml_writer_begin_mapping(w, hc_phase_names[i], HC_YAML_FLOW));
    HC_CALL(hc_yaml_writer_double(w, "bytes_per_step", st->roof_bytes[i].avg));
    HC_CALL(hc_yaml_writer_bool(w, "memory_bound", hc_roof_memory_phase(i)));
    HC_CALL(hc_yaml_writer_double(w, "measured_seconds", st->phase[i].avg));
    if (hc_roof_memory_phase(i)) {
      double f = hc_roof_fraction(st, i);
      HC_CALL(hc_yaml_writer_double(w, "roofline_seconds", st->roof_s[i].avg));
      if (f >= 0) HC_CALL(hc_yaml_writer_double(w, "percent", 100.0 * f));
    }
    HC_CALL(hc_yaml_writer_end_mapping(w));
  }
  HC_CALL(hc_yaml_writer_end_mapping(w));
  return hc_yaml_writer_end_mapping(w);
}

static int hc_results_body(hc_yaml_writer *w, const hc_deck *deck, const hc_run *run, const hc_results_stats *st) {
  const hc_mesh *m = run->mesh;
  char buf[MPI_MAX_LIBRARY_VERSION_STRING + 64];
  HC_CALL(hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_BLOCK));
  HC_CALL(hc_yaml_writer_string(w, "schema", HC_RESULTS_SCHEMA));
  int failed = 0;
  for (int i = 0; i < run->nchecks; i++) failed |= run->checks[i].failures > 0;
  /* incomplete: stopped by a signal before its last step (timers cover the steps done); then a check. */
  HC_CALL(hc_yaml_writer_string(w, "status", run->stopped_by_signal ? "incomplete" : failed ? "failed" : "passed"));
  if (run->stopped_by_signal) {
    HC_CALL(hc_yaml_writer_string(w, "stopped_by", hc_signal_name(run->stopped_by_signal)));
  }
  time_t now = time(NULL);
  strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  HC_CALL(hc_yaml_writer_string(w, "date", buf));

  HC_CALL(hc_results_write_build(w));

  HC_CALL(hc_deck_write(w, "deck", deck));

  HC_CALL(hc_yaml_writer_begin_mapping(w, "decomposition", HC_YAML_BLOCK));
  HC_CALL(hc_yaml_writer_int64(w, "ranks", run->nranks));
  HC_CALL(hc_yaml_writer_begin_sequence(w, "rank_grid", HC_YAML_FLOW));
  for (int d = 0; d < 3; d++) HC_CALL(hc_yaml_writer_int64(w, NULL, m->rank_grid[d]));
  HC_CALL(hc_yaml_writer_end_sequence(w));
  HC_CALL(hc_yaml_writer_begin_sequence(w, "global_cells", HC_YAML_FLOW));
  for (int d = 0; d < 3; d++) HC_CALL(hc_yaml_writer_int64(w, NULL, m->global_cells[d]));
  HC_CALL(hc_yaml_writer_end_sequence(w));
  HC_CALL(hc_yaml_writer_begin_sequence(w, "length", HC_YAML_FLOW));
  for (int d = 0; d < 3; d++) HC_CALL(hc_yaml_writer_double(w, NULL, m->length[d]));
  HC_CALL(hc_yaml_writer_end_sequence(w));
  HC_CALL(hc_yaml_writer_int64(w, "num_global_cells", m->num_global_cells));
  HC_CALL(hc_yaml_writer_int64(w, "num_global_nodes", m->num_global_nodes));
  HC_CALL(hc_write_stat(w, "cells_per_rank", &st->cells));
  HC_CALL(hc_write_stat(w, "nodes_per_rank", &st->nodes));
  HC_CALL(hc_write_stat(w, "halo_bytes_per_exchange", &st->halo_bytes));
  HC_CALL(hc_write_stat(w, "halo_neighbors", &st->halo_neighbors));
  HC_CALL(hc_yaml_writer_int64(w, "halo_exchanges_per_step", st->halo_exchanges));
  HC_CALL(hc_yaml_writer_end_mapping(w));

  HC_CALL(hc_yaml_writer_begin_sequence(w, "ranks", HC_YAML_BLOCK));
  for (int r = 0; r < st->nranks; r++) {
    HC_CALL(hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_FLOW));
    HC_CALL(hc_yaml_writer_int64(w, "rank", r));
    HC_CALL(hc_yaml_writer_string(w, "host", st->hosts + (size_t)r * HC_DEVICE_LEN));
    HC_CALL(hc_yaml_writer_string(w, "device", st->devices + (size_t)r * HC_DEVICE_LEN));
    HC_CALL(hc_yaml_writer_int64(w, "device_index", st->device_index ? st->device_index[r] : -1));
    HC_CALL(hc_yaml_writer_end_mapping(w));
  }
  HC_CALL(hc_yaml_writer_end_sequence(w));

  HC_CALL(hc_yaml_writer_begin_mapping(w, "timers", HC_YAML_BLOCK));
  HC_CALL(hc_yaml_writer_string(w, "unit", "seconds per timed step, over ranks"));
  HC_CALL(hc_yaml_writer_int64(w, "timed_steps", run->steps_done));
  HC_CALL(hc_yaml_writer_double(w, "total_seconds", st->total_s));
  for (int i = 0; i < HC_NUM_PHASES; i++) HC_CALL(hc_write_stat(w, hc_phase_names[i], &st->phase[i]));
  HC_CALL(hc_yaml_writer_end_mapping(w));

  HC_CALL(hc_yaml_writer_begin_mapping(w, "kernels", HC_YAML_BLOCK));
  for (int k = 0; k < HC_NUM_KERNELS; k++) {
    if (!run->cfg.enabled[k]) continue;
    double flops, bytes, tmax = st->kernel[k].max;
    hc_global_cost(run, (hc_kernel)k, &flops, &bytes);
    HC_CALL(hc_yaml_writer_begin_mapping(w, hc_kernel_name((hc_kernel)k), HC_YAML_BLOCK));
    HC_CALL(hc_yaml_writer_string(w, "variant", hc_variant_name(run->cfg.variant[k])));
    HC_CALL(hc_yaml_writer_string(w, "chosen_variant", hc_variant_name(run->chosen[k])));
    HC_CALL(hc_write_stat(w, "contract_seconds", &st->kernel[k]));
    HC_CALL(hc_write_stat(w, "celldata_seconds", &st->celldata[k]));
    HC_CALL(hc_yaml_writer_double(w, "flops_per_step", flops));
    HC_CALL(hc_yaml_writer_double(w, "bytes_per_step", bytes));
    HC_CALL(hc_yaml_writer_double(w, "gflops", tmax > 0 ? 1e-9 * flops / tmax : 0));
    HC_CALL(hc_yaml_writer_double(w, "gbytes_per_second", tmax > 0 ? 1e-9 * bytes / tmax : 0));
    HC_CALL(hc_yaml_writer_end_mapping(w));
  }
  HC_CALL(hc_yaml_writer_end_mapping(w));

  HC_CALL(hc_results_write_roofline(w, run, st));

  const double tstep = st->phase[HC_PHASE_STEP].max;
  HC_CALL(hc_yaml_writer_begin_mapping(w, "figures_of_merit", HC_YAML_BLOCK));
  HC_CALL(hc_yaml_writer_double(w, "cell_steps_per_second", tstep > 0 ? m->num_global_cells / tstep : 0));
  HC_CALL(hc_yaml_writer_double(w, "node_steps_per_second", tstep > 0 ? m->num_global_nodes / tstep : 0));
  HC_CALL(hc_yaml_writer_double(w, "seconds_per_step", tstep));
  HC_CALL(hc_yaml_writer_end_mapping(w));

  HC_CALL(hc_yaml_writer_begin_mapping(w, "checks", HC_YAML_BLOCK));
  for (int i = 0; i < run->nchecks; i++) {
    const hc_check *c = &run->checks[i];
    HC_CALL(hc_yaml_writer_begin_mapping(w, c->name, HC_YAML_BLOCK));
    HC_CALL(hc_yaml_writer_string(w, "what", c->what));
    HC_CALL(hc_yaml_writer_bool(w, "passed", c->failures == 0));
    HC_CALL(hc_yaml_writer_double(w, "value", c->value));
    HC_CALL(hc_yaml_writer_double(w, "expected", c->expected));
    HC_CALL(hc_yaml_writer_double(w, "tolerance", c->tolerance));
    HC_CALL(hc_yaml_writer_int64(w, "step", c->step));
    HC_CALL(hc_yaml_writer_int64(w, "evaluations", c->evaluations));
    HC_CALL(hc_yaml_writer_int64(w, "failures", c->failures));
    if (c->failures && c->hint[0]) HC_CALL(hc_yaml_writer_string(w, "hint", c->hint));
    HC_CALL(hc_yaml_writer_end_mapping(w));
  }
  HC_CALL(hc_yaml_writer_end_mapping(w));

  HC_CALL(hc_yaml_writer_begin_mapping(w, "values", HC_YAML_BLOCK));
  HC_CALL(hc_yaml_writer_double(w, "time", run->t));
  for (int k = 0; k < HC_NUM_KERNELS; k++) {
    if (!run->cfg.enabled[k]) continue;
    HC_CALL(hc_yaml_writer_begin_mapping(w, hc_kernel_name((hc_kernel)k), HC_YAML_FLOW));
    if (hc_kernel_family((hc_kernel)k) == HC_FAMILY_DATADATA) {
      HC_CALL(hc_yaml_writer_double(w, "sum", run->values.dd_sum[k]));
    } else {
      HC_CALL(hc_yaml_writer_double(w, "nodal_sum", run->values.nodal_sum[k]));
      HC_CALL(hc_yaml_writer_double(w, "nodal_norm", run->values.nodal_norm[k]));
    }
    HC_CALL(hc_yaml_writer_end_mapping(w));
  }
  HC_CALL(hc_yaml_writer_end_mapping(w));
  return hc_yaml_writer_end_mapping(w);
}

/* Appends one CSV row for this run to output.csv (a header first when the file is new or empty), by
   rewriting the file to a temporary one and renaming it, so a reader never sees half a row. A symbolic
   link is followed: the row goes to the file it points to, and the link stays. */
static int hc_results_append_csv(const hc_deck *deck, const hc_run *run, const hc_results_stats *st) {
  int ierr = HC_OK;
  char resolved[PATH_MAX];
  const char *path = deck->output.csv;
  char *old = NULL;
  size_t old_len = 0;
  struct stat lst;
  if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && realpath(path, resolved)) path = resolved;
  FILE *f = NULL;
  int err = access(path, F_OK) == 0 ? hc_path_open_read(path, "the CSV file", &f) : HC_OK;
  if (err) {
    char why[1024];
    snprintf(why, sizeof(why), "%s", hc_error_message());
    return HC_DECK_ERROR(deck, "output.csv", err, "%s", why);
  }
  if (f) {
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    old = malloc(n > 0 ? (size_t)n : 1);
    if (!old) fclose(f);
    HC_CHECK(old, HC_ERR_RESOURCE, "out of host memory reading %s", path);
    old_len = n > 0 ? fread(old, 1, (size_t)n, f) : 0;
    fclose(f);
  }
  hc_atomic_file af;
  err = hc_atomic_file_open(path, &af);
  if (err) {
    free(old);
    char why[1024];
    snprintf(why, sizeof(why), "%s", hc_error_message());
    return HC_DECK_ERROR(deck, "output.csv", err, "%s", why);
  }
  if (old_len) fwrite(old, 1, old_len, af.f);
  free(old);
  if (old_len == 0) {
    fprintf(af.f,
            "date,git_revision,backend,precision,layout,order,quadrature,sizing,ranks,global_cells,"
            "cells_per_rank_max,steps,step_s_avg,step_s_max");
    for (int i = 0; i < HC_PHASE_STEP; i++) fprintf(af.f, ",%s_s_avg", hc_phase_names[i]);
    fprintf(af.f,
            ",cell_steps_per_s,node_steps_per_s,contract_gflops,contract_gbs,status,step_roofline_pct,"
            "celldata_roofline_pct\n");
  }
  char date[32];
  time_t now = time(NULL);
  strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  const hc_mesh *m = run->mesh;
  const double tstep = st->phase[HC_PHASE_STEP].max;
  double tf = 0, tb = 0, tt = 0;
  for (int k = 0; k < HC_NUM_KERNELS; k++) {
    if (!run->cfg.enabled[k]) continue;
    double flops, bytes;
    hc_global_cost(run, (hc_kernel)k, &flops, &bytes);
    tf += flops, tb += bytes, tt += st->kernel[k].max;
  }
  int failed = 0;
  for (int i = 0; i < run->nchecks; i++) failed |= run->checks[i].failures > 0;
  fprintf(af.f, "%s,%s,%s,%s,%s,%d,%d,%s,%d,%lld,%.0f,%d,%.9g,%.9g", date, HC_GIT_REVISION, run->be->name,
          hc_precision_name(run->cfg.precision), hc_layout_name(run->cfg.layout), m->order, run->basis->q,
          hc_sizing_name(run->cfg.mesh.sizing), run->nranks, (long long)m->num_global_cells, st->cells.max,
          run->steps_done, st->phase[HC_PHASE_STEP].avg, tstep);
  for (int i = 0; i < HC_PHASE_STEP; i++) fprintf(af.f, ",%.9g", st->phase[i].avg);
  fprintf(af.f, ",%.9g,%.9g,%.9g,%.9g,%s", tstep > 0 ? m->num_global_cells / tstep : 0,
          tstep > 0 ? m->num_global_nodes / tstep : 0, tt > 0 ? 1e-9 * tf / tt : 0, tt > 0 ? 1e-9 * tb / tt : 0,
          failed ? "failed" : "passed");
  /* The roofline's percentages; empty without a roofline (run.roofline off). */
  const int pct_phases[2] = {HC_PHASE_STEP, HC_PHASE_CELLDATA};
  for (int i = 0; i < 2; i++) {
    double frac = st->roofline ? hc_roof_fraction(st, pct_phases[i]) : -1.0;
    if (frac >= 0) {
      fprintf(af.f, ",%.6g", 100.0 * frac);
    } else {
      fprintf(af.f, ",");
    }
  }
  fprintf(af.f, "\n");
  HC_CHECK_GOTO(!ferror(af.f), HC_ERR_RESOURCE, fail, "%s: write error", path);
  return hc_atomic_file_commit(&af);
fail:
  hc_atomic_file_abort(&af);
  return ierr;
}

int hc_results_write(const hc_deck *deck, const hc_run *run, const hc_results_stats *st) {
  if (deck->output.csv[0]) HC_CALL(hc_results_append_csv(deck, run, st));
  char path[HC_DECK_PATH_MAX + HC_DECK_NAME_MAX + 2];
  hc_deck_results_path(deck, path, sizeof(path));
  hc_yaml_writer *w = NULL;
  int err = hc_yaml_writer_create(path, &w);
  if (err) {
    char why[1024];
    snprintf(why, sizeof(why), "%s", hc_error_message());
    return HC_DECK_ERROR(deck, "output.dir", err, "cannot write the results file: %s", why);
  }
  err = hc_results_body(w, deck, run, st);
  if (!err) err = hc_inject_check(run->rank, HC_INJECT_RESULTS, run->steps_done);
  if (err) {
    hc_yaml_writer_destroy(&w);
    return err;
  }
  return hc_yaml_writer_close(&w);
}
