/* The run's results: timers and sizes reduced over ranks into the results struct (io/hc_results.h), figures of
   merit, checks, the one-screen summary, and the results and CSV files. */
#define _GNU_SOURCE
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/hc_host.h"
#include "app/hc_inject.h"
#include "app/hc_run_results.h"
#include "app/hc_signal.h"
#include "app/hc_step_roofline.h"
#include "hc_config.h"
#include "io/hc_yaml_writer.h"
#include "kernels/hc_xsum.h"
#include "kernels/base/hc_mpi.h"
#if HC_HAVE_OPENMP
#include <omp.h>
#endif

/* A host or device name, as every rank sends it to rank 0. */
#define HC_DEVICE_LEN 256

/* The cost model of kernel on the whole mesh (all ranks). */
static void hc_global_cost(const hc_run *run, hc_kernel kernel, double *flops, double *bytes) {
  hc_contract k = run->k[kernel];
  k.C = run->mesh->num_global_cells;
  hc_contract_cost(&k, flops, bytes);
  /* fused: its own compulsory traffic, the geometry nodes in and the outputs out, and flops (hc_step_bytes_of) */
  if (run->cfg.fused) {
    *bytes = (double)k.C * run->mesh->geometry_nodes * 3 * 8 +
             (double)hc_precision_size(k.precision) * (double)hc_contract_numel(&k, HC_ARRAY_OUT);
    if (kernel == HC_FIELDFIELD_TENSOR) *flops /= 3; /* it sums over i first: 3 P, not 9 P */
  }
}

/* What this rank computes on: the backend's device or the CPU and its threads. */
static void hc_device_of(const hc_run *run, char *buf, size_t n) {
  char cpu[160];
  hc_host_cpu_model(cpu, sizeof(cpu));
  int threads = 1;
#if HC_HAVE_OPENMP
  if (run->be->openmp_threads) threads = omp_get_max_threads();
#endif
  char dev[200] = "";
  if (run->be->device_name(dev, sizeof(dev)) == HC_OK) {
    snprintf(buf, n, "%s", dev);
    return;
  }
  hc_error_clear(); /* a host backend: the host it runs on */
  snprintf(buf, n, "%s, %d thread%s", cpu, threads, threads == 1 ? "" : "s");
}

static int hc_reduce_stats(MPI_Comm comm, int n, const double *local, hc_results_stat *out) {
  int ierr = HC_OK, nranks;
  HC_CALL_MPI(MPI_Comm_size(comm, &nranks));
  double *buf = malloc(sizeof(double) * 3 * (size_t)n);
  HC_CHECK(buf, HC_ERR_RESOURCE, "out of host memory");
  HC_CALL_MPI_GOTO(MPI_Allreduce(local, buf, n, MPI_DOUBLE, MPI_MIN, comm), cleanup);
  HC_CALL_MPI_GOTO(MPI_Allreduce(local, buf + n, n, MPI_DOUBLE, MPI_SUM, comm), cleanup);
  HC_CALL_MPI_GOTO(MPI_Allreduce(local, buf + 2 * n, n, MPI_DOUBLE, MPI_MAX, comm), cleanup);
  for (int i = 0; i < n; i++) {
    out[i].min = buf[i];
    out[i].avg = buf[n + i] / nranks;
    out[i].max = buf[2 * n + i];
  }
cleanup:
  free(buf);
  return ierr;
}

/* This rank's compulsory bytes per step and their roofline seconds at the rates it measured. */
static void hc_run_roofline(const hc_run *run, int64_t halo_bytes, double bytes[HC_NUM_PHASES],
                            double seconds[HC_NUM_PHASES]) {
  hc_step_problem p = {
      .k = run->k,
      .enabled = run->cfg.enabled,
      .num_nodes = run->mesh->num_nodes,
      .halo_bytes_per_vector = halo_bytes,
      .reduction_bytes = (int)sizeof(double) * 3 * (run->cfg.deterministic ? HC_XSUM_LIMBS + 1 : 1),
      .is_device = run->be->is_device,
      .device_assembly = run->device_assembly,
      .dd_copy = run->dd_copy,
      .geometry_nodes = run->mesh->geometry_nodes,
      .fused = run->cfg.fused,
      .fused_into_y = run->fused_into_y,
  };
  hc_step_bytes b;
  hc_step_bytes_of(&p, &b);
  hc_step_rates r = {.copy = run->rates.copy.best_gbs * 1e9, .h2d = run->rates.h2d, .d2h = run->rates.d2h};
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
    const int tc = run->cfg.precision == HC_DOUBLE && (hc_variant_flags(run->chosen[kid]) & HC_VARIANT_TENSOR_CORES);
    r.peak[kid] = tc ? run->rates.tc : run->rates.peak;
  }
  hc_step_roofline(&b, &r, seconds);
  memcpy(bytes, b.bytes, sizeof(b.bytes));
}

/* Whether a phase is on the memory roofline: halo and reduction are messages, network-bound. */
static int hc_roof_memory_phase(int phase) {
  return phase != HC_PHASE_HALO && phase != HC_PHASE_REDUCTION;
}

/* The `roofline` of res: the rates measured at start-up and, per phase and for the step, the compulsory bytes, the
   roofline seconds, the measured seconds (phase) and the percentage reached (averages over ranks). Collective. */
static int hc_run_results_roofline(const hc_run *run, int64_t halo_bytes, const hc_results_stat phase[HC_NUM_PHASES],
                                   hc_results *res) {
  hc_results_roofline *roof = &res->roofline;
  roof->device = run->be->is_device;
  roof->measured = run->rates.measured;
  if (!roof->measured) return HC_OK;
  double local[6 + 2 * HC_NUM_PHASES];
  hc_results_stat rs[6 + 2 * HC_NUM_PHASES];
  int m = 0;
  local[m++] = run->rates.copy.best_gbs;
  local[m++] = 1e-9 * run->rates.h2d;
  local[m++] = 1e-9 * run->rates.d2h;
  local[m++] = 1e-9 * run->rates.peak;
  local[m++] = 1e-9 * run->rates.tc;
  local[m++] = run->rates.seconds;
  hc_run_roofline(run, halo_bytes, local + m, local + m + HC_NUM_PHASES);
  HC_CALL(hc_reduce_stats(run->comm, 6 + 2 * HC_NUM_PHASES, local, rs));
  m = 0;
  roof->copy_gbytes_per_second = rs[m++];
  roof->host_to_device_gbytes_per_second = rs[m++];
  roof->device_to_host_gbytes_per_second = rs[m++];
  roof->peak_gflops = rs[m++];
  roof->tensor_core_peak_gflops = rs[m++];
  roof->measure_seconds = rs[m++];
  roof->copy_bytes_per_call = run->rates.copy.bytes;
  roof->copy_calls = run->rates.copy.calls;
  snprintf(roof->peak_how, sizeof(roof->peak_how), "%s", run->rates.peak_how);
  roof->phases = calloc(HC_NUM_PHASES, sizeof(*roof->phases));
  HC_CHECK(roof->phases, HC_ERR_RESOURCE, "out of host memory");
  roof->num_phases = HC_NUM_PHASES;
  for (int i = 0; i < HC_NUM_PHASES; i++) {
    hc_results_roofline_phase *ph = &roof->phases[i];
    const double measured = phase[i].avg, roofline = rs[m + HC_NUM_PHASES + i].avg;
    snprintf(ph->name, sizeof(ph->name), "%s", hc_phase_names[i]);
    ph->bytes_per_step = rs[m + i].avg;
    ph->memory_bound = hc_roof_memory_phase(i);
    ph->measured_seconds = measured;
    ph->roofline_seconds = roofline;
    /* The share of the roofline reached: roofline seconds over measured seconds; undefined with nothing measured. */
    const double f = measured > 0 ? roofline / measured : -1.0;
    ph->percent = ph->memory_bound && f >= 0 ? 100.0 * f : NAN;
  }
  return HC_OK;
}

/* Each rank's host, device and device index into res->rank_info on rank 0. Collective. */
static int hc_run_results_ranks(const hc_run *run, hc_results *res) {
  int ierr = HC_OK;
  char dev[HC_DEVICE_LEN], host[HC_DEVICE_LEN];
  char *devices = NULL, *hosts = NULL;
  int *device_index = NULL;
  hc_device_of(run, dev, sizeof(dev));
  if (gethostname(host, sizeof(host)) != 0) snprintf(host, sizeof(host), "unknown");
  host[sizeof(host) - 1] = '\0';
  if (run->rank == 0) {
    devices = calloc((size_t)run->nranks, HC_DEVICE_LEN);
    hosts = calloc((size_t)run->nranks, HC_DEVICE_LEN);
    device_index = calloc((size_t)run->nranks, sizeof(*device_index));
    res->rank_info = calloc((size_t)run->nranks, sizeof(*res->rank_info));
  }
  /* Every rank learns whether rank 0 can receive, so that none is left in the gathers. */
  int ok = run->rank != 0 || (devices && hosts && device_index && res->rank_info);
  HC_CALL_MPI_GOTO(MPI_Bcast(&ok, 1, MPI_INT, 0, run->comm), cleanup);
  HC_CHECK_GOTO(ok, HC_ERR_RESOURCE, cleanup, "rank 0: out of host memory for the per-rank device table of %d ranks",
                run->nranks);
  HC_CALL_MPI_GOTO(MPI_Gather(dev, HC_DEVICE_LEN, MPI_CHAR, devices, HC_DEVICE_LEN, MPI_CHAR, 0, run->comm), cleanup);
  HC_CALL_MPI_GOTO(MPI_Gather(host, HC_DEVICE_LEN, MPI_CHAR, hosts, HC_DEVICE_LEN, MPI_CHAR, 0, run->comm), cleanup);
  HC_CALL_MPI_GOTO(MPI_Gather(&run->device, 1, MPI_INT, device_index, 1, MPI_INT, 0, run->comm), cleanup);
  if (run->rank == 0) {
    res->num_rank_info = run->nranks;
    for (int r = 0; r < run->nranks; r++) {
      hc_results_rank *ri = &res->rank_info[r];
      ri->rank = r;
      snprintf(ri->host, sizeof(ri->host), "%s", hosts + (size_t)r * HC_DEVICE_LEN);
      snprintf(ri->device, sizeof(ri->device), "%s", devices + (size_t)r * HC_DEVICE_LEN);
      ri->device_index = device_index[r];
    }
  }
cleanup:
  free(devices);
  free(hosts);
  free(device_index);
  return ierr;
}

int hc_run_results_gather(const hc_run *run, hc_results *res) {
  const hc_mesh *m = run->mesh;
  const int steps = run->steps_done > 0 ? run->steps_done : 1;
  double local[HC_NUM_PHASES + 2 * HC_NUM_KERNELS + 5];
  int n = 0;
  for (int i = 0; i < HC_NUM_PHASES; i++) local[n++] = run->phase_s[i] / steps;
  for (int i = 0; i < HC_NUM_KERNELS; i++) local[n++] = run->kernel_s[i] / steps;
  for (int i = 0; i < HC_NUM_KERNELS; i++) local[n++] = run->celldata_s[i] / steps;
  hc_halo_stats hs;
  HC_CALL(hc_halo_get_stats(run->halo, HC_DOUBLE, &hs));
  local[n++] = (double)m->C;
  local[n++] = (double)m->num_nodes;
  local[n++] = (double)hs.send_bytes;
  local[n++] = (double)hs.num_neighbors;
  local[n++] = (double)hs.shared_nodes;
  hc_results_stat all[HC_NUM_PHASES + 2 * HC_NUM_KERNELS + 5];
  HC_CALL(hc_reduce_stats(run->comm, n, local, all));
  const hc_results_stat *kernel = all + HC_NUM_PHASES, *celldata = kernel + HC_NUM_KERNELS;
  n = HC_NUM_PHASES + 2 * HC_NUM_KERNELS;
  /* The other collectives, before any allocation that one rank alone could fail. */
  HC_CALL_MPI(MPI_Allreduce(&run->total_s, &res->total_seconds, 1, MPI_DOUBLE, MPI_MAX, run->comm));
  HC_CALL_MPI(MPI_Allreduce(&run->mesh_setup_s, &res->mesh_setup_seconds, 1, MPI_DOUBLE, MPI_MAX, run->comm));
  HC_CALL(hc_run_results_ranks(run, res));
  HC_CALL(hc_run_results_roofline(run, hs.send_bytes, all, res));

  int failed = 0;
  for (int i = 0; i < run->nchecks; i++) failed |= run->checks[i].failures > 0;
  /* incomplete: stopped by a signal before its last step (timers cover the steps done); then a check. */
  snprintf(res->status, sizeof(res->status), "%s",
           run->stopped_by_signal ? "incomplete"
           : failed               ? "failed"
                                  : "passed");
  if (run->stopped_by_signal)
    snprintf(res->stopped_by, sizeof(res->stopped_by), "%s", hc_signal_name(run->stopped_by_signal));

  res->ranks = run->nranks;
  const int file = m->source == HC_MESH_SOURCE_FILE;
  snprintf(res->mesh_source, sizeof(res->mesh_source), "%s", file ? "file" : "box");
  if (file) snprintf(res->mesh_file, sizeof(res->mesh_file), "%.511s", run->cfg.mesh_file);
  snprintf(res->partitioner, sizeof(res->partitioner), "%s",
           !file                                             ? "cartesian"
           : run->nranks == 1                                ? "none"
           : run->cfg.partitioner == HC_PARTITIONER_METIS    ? "metis"
           : run->cfg.partitioner == HC_PARTITIONER_PTSCOTCH ? "ptscotch"
                                                             : "blocks");
  res->geometry_nodes = m->geometry_nodes;
  res->volume = m->volume;
  res->edge_cut = m->edge_cut;
  res->mesh_read_seconds = run->cfg.file_read_s;
  for (int d = 0; d < 3; d++) {
    res->rank_grid[d] = m->rank_grid[d];
    res->global_cells[d] = m->global_cells[d];
    res->length[d] = m->length[d];
  }
  res->num_global_cells = m->num_global_cells;
  res->num_global_nodes = m->num_global_nodes;
  res->cells_per_rank = all[n++];
  res->nodes_per_rank = all[n++];
  res->halo_bytes_per_exchange = all[n++];
  res->halo_neighbors = all[n++];
  res->shared_nodes_per_rank = all[n++];
  for (int k = 0; k < HC_NUM_KERNELS; k++) res->halo_exchanges_per_step += run->y[k] != NULL;

  res->timed_steps = run->steps_done;
  res->kernel_lanes = run->kernel_lanes;
  res->phases = calloc(HC_NUM_PHASES, sizeof(*res->phases));
  HC_CHECK(res->phases, HC_ERR_RESOURCE, "out of host memory");
  res->num_phases = HC_NUM_PHASES;
  for (int i = 0; i < HC_NUM_PHASES; i++) {
    snprintf(res->phases[i].name, sizeof(res->phases[i].name), "%s", hc_phase_names[i]);
    res->phases[i].s = all[i];
  }

  res->kernels = calloc(HC_NUM_KERNELS, sizeof(*res->kernels));
  res->values = calloc(HC_NUM_KERNELS, sizeof(*res->values));
  HC_CHECK(res->kernels && res->values, HC_ERR_RESOURCE, "out of host memory");
  res->time = run->t;
  for (int k = 0; k < HC_NUM_KERNELS; k++) {
    if (!run->cfg.enabled[k]) continue;
    hc_results_kernel *kr = &res->kernels[res->num_kernels++];
    const double tmax = kernel[k].max;
    snprintf(kr->name, sizeof(kr->name), "%s", hc_kernel_name((hc_kernel)k));
    snprintf(kr->variant, sizeof(kr->variant), "%s", hc_variant_name(run->cfg.variant[k]));
    snprintf(kr->chosen_variant, sizeof(kr->chosen_variant), "%s", hc_variant_name(run->chosen[k]));
    kr->contract_seconds = kernel[k];
    kr->celldata_seconds = celldata[k];
    hc_global_cost(run, (hc_kernel)k, &kr->flops_per_step, &kr->bytes_per_step);
    kr->gflops = tmax > 0 ? 1e-9 * kr->flops_per_step / tmax : 0;
    kr->gbytes_per_second = tmax > 0 ? 1e-9 * kr->bytes_per_step / tmax : 0;
    hc_results_value *v = &res->values[res->num_values++];
    snprintf(v->name, sizeof(v->name), "%s", kr->name);
    v->datadata = hc_kernel_family((hc_kernel)k) == HC_FAMILY_DATADATA;
    v->sum = run->values.dd_sum[k];
    v->nodal_sum = run->values.nodal_sum[k];
    v->nodal_norm = run->values.nodal_norm[k];
  }

  const double tstep = all[HC_PHASE_STEP].max;
  res->cell_steps_per_second = tstep > 0 ? m->num_global_cells / tstep : 0;
  res->node_steps_per_second = tstep > 0 ? m->num_global_nodes / tstep : 0;
  res->seconds_per_step = tstep;

  res->checks = calloc(run->nchecks > 0 ? (size_t)run->nchecks : 1, sizeof(*res->checks));
  HC_CHECK(res->checks, HC_ERR_RESOURCE, "out of host memory");
  for (int i = 0; i < run->nchecks; i++) {
    const hc_check *c = &run->checks[i];
    hc_results_check *rc = &res->checks[res->num_checks++];
    snprintf(rc->name, sizeof(rc->name), "%s", c->name);
    snprintf(rc->what, sizeof(rc->what), "%s", c->what);
    rc->passed = c->failures == 0;
    rc->value = c->value;
    rc->expected = c->expected;
    rc->tolerance = c->tolerance;
    rc->step = c->step;
    rc->evaluations = c->evaluations;
    rc->failures = c->failures;
    if (c->failures) snprintf(rc->hint, sizeof(rc->hint), "%s", c->hint);
  }

  res->run = (hc_results_run){
      .backend = run->be->name,
      .precision = hc_precision_name(run->cfg.precision),
      .layout = hc_layout_name(run->cfg.layout),
      .sizing = hc_sizing_name(run->cfg.mesh.sizing),
      .order = m->order,
      .quadrature = run->basis->q,
  };
  return HC_OK;
}

void hc_run_print_header(const hc_deck *deck, const hc_run_config *cfg, int nranks) {
  const int p = cfg->mesh.order, q = cfg->quadrature;
  printf("hexcontract %s (git %s): %d rank%s, backend %s, %s, %s, %s assembly\n", HC_VERSION, HC_GIT_REVISION, nranks,
         nranks == 1 ? "" : "s", cfg->backend, hc_precision_name(cfg->precision), hc_layout_name(cfg->layout),
         cfg->fused ? "fused" : "materialized");
  printf("deck: %s\n", deck->path[0] ? deck->path : "(none: defaults)");
  if (cfg->mesh_source == HC_MESH_SOURCE_FILE) {
    printf("mesh: %s, %lld hex%d cells, partitioned by %s, order %d (L = %d), q = %d (P = %d), shear A = %g\n",
           cfg->mesh_file, (long long)cfg->file_cells, cfg->file_geometry_nodes,
           nranks == 1                                   ? "none (one rank)"
           : cfg->partitioner == HC_PARTITIONER_PTSCOTCH ? "ptscotch"
                                                         : "metis",
           p, (p + 1) * (p + 1) * (p + 1), q, q * q * q, cfg->shear_amplitude);
  } else {
    printf("mesh: %lld x %lld x %lld cells %s, order %d (L = %d), q = %d (P = %d), jitter %g, shear A = %g\n",
           (long long)cfg->mesh.cells[0], (long long)cfg->mesh.cells[1], (long long)cfg->mesh.cells[2],
           cfg->mesh.sizing == HC_SIZING_PER_RANK ? "per rank" : "in all", p, (p + 1) * (p + 1) * (p + 1), q, q * q * q,
           cfg->mesh.jitter, cfg->shear_amplitude);
  }
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
static void hc_run_print_checks(const hc_run *run) {
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
    if (strcmp(c->name, "device_vs_host") == 0 && hc_backend_is(run->be, HC_BACKEND_SERIAL))
      printf("  %-*s note: the backend is serial, the reference itself: this compares serial with serial\n", wname, "");
  }
}

/* The roofline block of the summary (README.md, section The step's roofline). */
static void hc_run_print_roofline(const hc_run *run, const hc_results *res) {
  const hc_results_roofline *st = &res->roofline;
  printf(
      "\nroofline of the step (README.md, section The step's roofline; per rank, averages over ranks): copy bandwidth "
      "%.4g GB/s (min "
      "%.4g, max %.4g over ranks; best of %d copies of %.3g MB each)",
      st->copy_gbytes_per_second.avg, st->copy_gbytes_per_second.min, st->copy_gbytes_per_second.max,
      (int)st->copy_calls, 1e-6 * st->copy_bytes_per_call);
  if (run->be->is_device)
    printf(", host->device %.4g GB/s, device->host %.4g GB/s", st->host_to_device_gbytes_per_second.avg,
           st->device_to_host_gbytes_per_second.avg);
  if (st->peak_gflops.avg > 0) {
    printf(", peak %.4g GFLOP/s %s", st->peak_gflops.avg, hc_precision_name(run->cfg.precision));
    if (st->tensor_core_peak_gflops.avg != st->peak_gflops.avg)
      printf(" (tensor cores %.4g)", st->tensor_core_peak_gflops.avg);
  } else {
    printf(", peak unknown (memory roof only)");
  }
  printf("; measured at start-up in %.2f s\n", st->measure_seconds.max);
  printf("  %-10s %12s %12s %12s %14s\n", "phase", "MB/step", "roofline ms", "measured ms", "% of roofline");
  for (int i = 0; i <= HC_PHASE_STEP; i++) {
    if (i == HC_PHASE_TRANSFER && !run->be->is_device) continue;
    const hc_results_roofline_phase *ph = &st->phases[i];
    printf("  %-10s %12.6g ", ph->name, 1e-6 * ph->bytes_per_step);
    if (!ph->memory_bound) {
      printf("%12s %12.6g   messages: network-bound, on no memory roofline\n", "-", 1e3 * ph->measured_seconds);
      continue;
    }
    printf("%12.6g %12.6g ", 1e3 * ph->roofline_seconds, 1e3 * ph->measured_seconds);
    if (!isnan(ph->percent)) {
      printf("%13.1f%%", ph->percent);
    } else {
      printf("%14s", "-");
    }
    printf("%s\n", i == HC_PHASE_STEP ? "   (the memory phases' roofline over the whole step)" : "");
  }
}

void hc_run_print_summary(const hc_deck *deck, const hc_run *run, const hc_results *res) {
  const hc_mesh *m = run->mesh;
  char pct[16];
  char parts[64];
  if (m->source == HC_MESH_SOURCE_BOX) {
    snprintf(parts, sizeof(parts), "rank grid %d x %d x %d", m->rank_grid[0], m->rank_grid[1], m->rank_grid[2]);
  } else {
    snprintf(parts, sizeof(parts), "partitioner %.40s", res->partitioner);
  }
  printf(
      "decomposition: %s, %lld global cells, %lld global nodes; per rank %.0f..%.0f cells, %.0f..%.0f nodes, "
      "%.0f..%.0f shared nodes, %.0f..%.0f neighbours; %lld faces cut\n",
      parts, (long long)m->num_global_cells, (long long)m->num_global_nodes, res->cells_per_rank.min,
      res->cells_per_rank.max, res->nodes_per_rank.min, res->nodes_per_rank.max, res->shared_nodes_per_rank.min,
      res->shared_nodes_per_rank.max, res->halo_neighbors.min, res->halo_neighbors.max, (long long)m->edge_cut);
  if (m->source == HC_MESH_SOURCE_FILE) {
    if (run->cfg.partitioner == HC_PARTITIONER_PTSCOTCH)
      printf(
          "mesh file: read in %.2f s (rank 0; every rank reads its part); partitioned, numbered and moved in "
          "%.2f s\n",
          res->mesh_read_seconds, res->mesh_setup_seconds);
    else
      printf("mesh file: read in %.2f s on rank 0; partitioned, numbered and dealt out in %.2f s\n",
             res->mesh_read_seconds, res->mesh_setup_seconds);
  }
  printf("rank 0 ran on %s (%s)\n", res->rank_info[0].device, res->rank_info[0].host);
  const hc_results_stat *step = &res->phases[HC_PHASE_STEP].s;
  printf("\ntime per step: %.6g s avg (min %.6g, max %.6g over ranks), imbalance %.1f%%, %d timed steps in %.3f s\n",
         step->avg, step->min, step->max, step->avg > 0 ? 100.0 * (step->max / step->avg - 1.0) : 0.0, run->steps_done,
         res->total_seconds);
  if (run->cfg.fused) printf("  (fused assembly: no cell-data phase; the fused kernels are timed in contract)\n");
  printf("  %-10s %12s %12s %8s\n", "phase", "avg s/step", "max s/step", "share");
  for (int i = 0; i < HC_PHASE_STEP; i++) {
    if (i == HC_PHASE_TRANSFER && !run->be->is_device) continue;
    const hc_results_phase *ph = &res->phases[i];
    printf("  %-10s %12.6g %12.6g %8s\n", ph->name, ph->s.avg, ph->s.max,
           hc_pct(ph->s.avg, step->avg, pct, sizeof(pct)));
  }
  if (res->roofline.measured) hc_run_print_roofline(run, res);
  printf("\n  %-17s %-16s %12s %10s %10s\n", "kernel", "variant", "max ms/step", "GB/s", "GFLOP/s");
  double tf = 0, tb = 0;
  for (int k = 0; k < res->num_kernels; k++) {
    const hc_results_kernel *kr = &res->kernels[k];
    double flops = kr->flops_per_step, bytes = kr->bytes_per_step, tmax = kr->contract_seconds.max;
    char var[2 * sizeof(hc_results_name) + 2];
    if (strcmp(kr->chosen_variant, kr->variant) != 0) {
      snprintf(var, sizeof(var), "%s->%s", kr->variant, kr->chosen_variant);
    } else {
      snprintf(var, sizeof(var), "%s", kr->variant);
    }
    printf("  %-17s %-16s %12.4f %10.2f %10.2f\n", kr->name, var, 1e3 * tmax, tmax > 0 ? 1e-9 * bytes / tmax : 0,
           tmax > 0 ? 1e-9 * flops / tmax : 0);
    tf += flops, tb += bytes;
  }
  const double tt = hc_results_contract_seconds(res);
  if (res->kernel_lanes > 1)
    printf(
        "  (fused kernels on %d lanes side by side: each kernel's time overlaps the others'; the figures of merit "
        "take the contract phase)\n",
        res->kernel_lanes);
  printf(
      "\nfigures of merit: %.4g cell-steps/s, %.4g node-steps/s; contractions %.2f GB/s, %.2f GFLOP/s "
      "(all ranks)\n",
      res->cell_steps_per_second, res->node_steps_per_second, tt > 0 ? 1e-9 * tb / tt : 0, tt > 0 ? 1e-9 * tf / tt : 0);
  printf("halo: %.0f..%.0f neighbours, %.0f..%.0f bytes sent per rank and step, %d nodal vectors in one round\n",
         res->halo_neighbors.min, res->halo_neighbors.max,
         res->halo_bytes_per_exchange.min * res->halo_exchanges_per_step,
         res->halo_bytes_per_exchange.max * res->halo_exchanges_per_step, res->halo_exchanges_per_step);
  if (run->nchecks) hc_run_print_checks(run);
  char path[HC_DECK_PATH_MAX + HC_DECK_NAME_MAX + 2];
  hc_deck_results_path(deck, path, sizeof(path));
  printf("\nresults: %s\n", path);
  fflush(stdout);
}

int hc_run_results_write(const hc_deck *deck, const hc_run *run, hc_results *res) {
  time_t now = time(NULL);
  strftime(res->date, sizeof(res->date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  if (deck->output.csv[0]) HC_CALL(hc_results_append_csv(deck, res));
  char path[HC_DECK_PATH_MAX + HC_DECK_NAME_MAX + 2];
  hc_deck_results_path(deck, path, sizeof(path));
  hc_yaml_writer *w = NULL;
  int err = hc_yaml_writer_create(path, &w);
  if (err) {
    char why[1024];
    snprintf(why, sizeof(why), "%s", hc_error_message());
    return HC_DECK_ERROR(deck, "output.dir", err, "cannot write the results file: %s", why);
  }
  err = hc_results_write(w, deck, res);
  if (!err) err = hc_inject_check(run->rank, HC_INJECT_RESULTS, run->steps_done);
  if (err) {
    hc_yaml_writer_destroy(&w);
    return err;
  }
  return hc_yaml_writer_close(&w);
}
