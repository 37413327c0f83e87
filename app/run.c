/* The timestep loop of the proxy run (app/README.md); its self-checks are in checks.c. */
#define _POSIX_C_SOURCE 200809L
#include "app/hc_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/hc_checks.h"
#include "app/hc_host.h"
#include "app/hc_inject.h"
#include "app/hc_measure.h"
#include "io/hc_meshfile.h"
#include "app/hc_signal.h"
#include "app/hc_timer.h"
#include "io/hc_npy.h"
#include "kernels/base/hc_mpi.h"

const char *const hc_phase_names[HC_NUM_PHASES] = {"celldata", "contract",  "transfer", "assembly",
                                                   "halo",     "reduction", "step"};

/* Coefficients of the linear function whose interpolant the FieldField outputs are applied to:
   u(x) = 1 + x/LX - 2 y/LY + 0.5 z/LZ (the linear patch test). */
static double hc_linear_u(const double *L, const double x[3]) {
  return 1.0 + x[0] / L[0] - 2.0 * x[1] / L[1] + 0.5 * x[2] / L[2];
}

/* The contraction problem of kernel on this rank. */
static void hc_run_contract_of(const hc_run *run, hc_kernel kernel, hc_contract *k) {
  hc_contract_init(k, kernel);
  hc_family fam = hc_kernel_family(kernel);
  k->C = run->mesh->C;
  k->L = fam == HC_FAMILY_DATADATA ? 1 : run->basis->L;
  k->R = fam == HC_FAMILY_FIELDFIELD ? run->basis->L : 1;
  k->P = k->P_data = run->basis->P;
  k->D = hc_kernel_rank(kernel) > 0 ? 3 : 1;
  k->layout = run->cfg.layout;
  k->precision = run->cfg.precision;
  k->variant = run->cfg.variant[kernel];
}

int hc_run_estimate_memory(const hc_run_config *cfg, int nranks, const hc_backend *be, hc_memory_estimate *est) {
  const int is_device = be->is_device, geometry_cache = be->geometry_cache;
  const int p = cfg->mesh.order, q = cfg->quadrature > 0 ? cfg->quadrature : p + 1;
  double C, nodes, G = 8;
  if (cfg->mesh_source == HC_MESH_SOURCE_FILE) {
    /* A file's cells over the ranks, with METIS's 3% imbalance; nodes as in a cube of as many cells. */
    C = ceil(1.03 * (double)cfg->file_cells / nranks);
    G = cfg->file_geometry_nodes > 0 ? cfg->file_geometry_nodes : 8;
    nodes = pow(p * cbrt(C) + 1, 3);
  } else {
    int grid[3];
    HC_CALL(hc_partition_grid(nranks, cfg->mesh.sizing, cfg->mesh.cells, grid));
    int64_t cmax[3];
    for (int d = 0; d < 3; d++) {
      cmax[d] =
          cfg->mesh.sizing == HC_SIZING_PER_RANK ? cfg->mesh.cells[d] : (cfg->mesh.cells[d] + grid[d] - 1) / grid[d];
    }
    C = (double)cmax[0] * (double)cmax[1] * (double)cmax[2];
    nodes = (double)(p * cmax[0] + 1) * (double)(p * cmax[1] + 1) * (double)(p * cmax[2] + 1);
  }
  const double L = (double)((p + 1) * (p + 1) * (p + 1)), P = (double)q * q * q;
  const double s = (double)hc_precision_size(cfg->precision);
  /* The largest enabled kernel's left + right per cell (the checks' DataFieldScalar too; none when fused), all
     outputs. */
  double inputs = cfg->checks && !cfg->fused ? (L + 1) * P : 0, outputs = 0;
  int nodal = 5; /* u, its parts u0 and du (hc_run_prepare_u), and two scratch vectors of the checks */
  int ff = 0;
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
    if (!cfg->enabled[kid]) continue;
    hc_family fam = hc_kernel_family((hc_kernel)kid);
    double Dr = pow(3.0, hc_kernel_rank((hc_kernel)kid));
    double in = fam == HC_FAMILY_DATADATA ? 2 * P * Dr : fam == HC_FAMILY_DATAFIELD ? (L + 1) * P * Dr : 2 * L * P * Dr;
    double out = fam == HC_FAMILY_DATADATA ? 1 : fam == HC_FAMILY_DATAFIELD ? L : L * L;
    if (in > inputs && !cfg->fused) inputs = in;
    outputs += out;
    if (fam != HC_FAMILY_DATADATA) nodal++;
    if (fam == HC_FAMILY_FIELDFIELD) ff = 1;
  }
  /* Host: cell index, geometry nodes, node map, node coordinates of a step; per node: ids, ownership,
     nodal vectors and halo lists (generously). Backend: geometry nodes (and their shear factors), inputs, outputs, a
     scratch output; on a device also the node map and the nodal vectors it assembles into (u, u0, du and one per field
     kernel), and fused with FieldField the element apply's rows (run->d_v, L doubles) where the fused kernels do not
     add them into the nodal vector themselves (hc_fused_assemble: then none is allocated). */
  const double X0_cell = 3.0 * G * 8;                                /* X0: [C][geometry_nodes][3] double */
  const double shear_cell = cfg->shear_amplitude != 0.0 ? G * 8 : 0; /* the shear's factors: [C][geometry_nodes] */
  const double host_cell = 3 * 8 + X0_cell + L * 4 + L * 3 * 8 + (is_device ? s * outputs : 0);
  const double host_node = 8 + 2 + 8 * nodal + 16;
  /* the points' geometry kept for a step's kernels (hc_geometry_cache), as hc_run_geometry_cache allocates it: on a
     backend whose calls of the run's mode take it, where it is no larger than the inputs (fused: than the outputs) */
  const double geom_bytes = HC_GEOMETRY_CACHE_VALUES * 8 * P, geom_limit = s * (cfg->fused ? outputs : inputs);
  const int geom_takes = geometry_cache & (cfg->fused ? HC_GEOMETRY_CACHE_FUSED : HC_GEOMETRY_CACHE_CELLDATA);
  const double geom_cell = geom_takes && geom_limit > 0 && geom_bytes <= geom_limit ? geom_bytes : 0;
  int rows = cfg->fused && ff && is_device;
  if (rows) {
    rows = hc_fused_assemble_check(be) != HC_OK;
    hc_error_clear(); /* the check's "not on this backend" is an answer here */
  }
  const double dev_cell = X0_cell + shear_cell + geom_cell + s * (inputs + outputs + L * L) +
                          (is_device ? L * 4 + 8.0 * (nodal - 2) * nodes / C + (rows ? 8 * L : 0) : 0);
  est->cells = C;
  est->host_per_cell = host_cell + host_node * nodes / C + (is_device ? 0 : dev_cell);
  est->device_per_cell = is_device ? dev_cell : 0;
  est->host_bytes = C * est->host_per_cell;
  est->device_bytes = C * est->device_per_cell;
  return HC_OK;
}

static int hc_run_prepare_u(hc_run *run);

/* Picks this rank's device by its node-local rank (or from the deck's device list). Collective. */
static int hc_run_bind_device(hc_run *run) {
  const hc_backend *be = run->be;
  run->device = -1;
  run->ranks_per_device = 1;
  MPI_Comm node;
  int local = 0, nlocal = 1, count = 0;
  HC_CALL_MPI(MPI_Comm_split_type(run->comm, MPI_COMM_TYPE_SHARED, run->rank, MPI_INFO_NULL, &node));
  HC_CALL_MPI(MPI_Comm_rank(node, &local));
  HC_CALL_MPI(MPI_Comm_size(node, &nlocal));
  HC_CALL_MPI(MPI_Comm_free(&node));
  run->ranks_on_node = nlocal;
  if (!be->is_device) return HC_OK; /* a host backend computes on the host */
  HC_CALL(be->device_count(&count));
  HC_CHECK(count > 0, HC_ERR_RESOURCE, "rank %d: no device for backend %s", run->rank, be->name);
  if (!run->cfg.gpu_binding) {
    run->device = 0;
  } else if (run->cfg.num_device_ids > 0) {
    run->device = run->cfg.device_ids[local % run->cfg.num_device_ids];
    HC_CHECK(run->device >= 0 && run->device < count, HC_ERR_INPUT,
             "rank %d: gpu.device_ids names device %d but this node has %d (0..%d)", run->rank, run->device, count,
             count - 1);
  } else {
    run->device = local % count;
  }
  int devices = !run->cfg.gpu_binding ? 1 : run->cfg.num_device_ids > 0 ? run->cfg.num_device_ids : count;
  run->ranks_per_device = (nlocal + devices - 1) / devices;
  return be->device_select(run->device);
}

/* Whether a FieldField kernel runs: the only ones that apply their outputs to u. */
static int hc_run_any_fieldfield(const hc_run *run) {
  int any = 0;
  for (int kid = HC_FIELDFIELD_SCALAR; kid < HC_NUM_KERNELS; kid++) any |= run->cfg.enabled[kid];
  return any;
}

/* The buffer of the start-up copy measurement: two halves of this many bytes per memory (a node's, or a
   device's), on a host backend at least HC_ROOFLINE_LLC_HALVES times the node's last-level caches each (the copy
   then streams four times their size through them, and is not served from them: a Xeon of 300 MB of L3 measured
   96-173 GB/s on 2 x 128 MiB and 84-122 GB/s on 2 x 300 MB, against the 69-72 GB/s of the bench's 1 GB);
   shared out among the ranks that use it, but no smaller than HC_ROOFLINE_HALF_MIN per rank. */
#define HC_ROOFLINE_LLC_HALVES 2
#define HC_ROOFLINE_HALF       ((size_t)128 << 20)
#define HC_ROOFLINE_HALF_MIN   ((size_t)16 << 20)
/* ... and of the host <-> device copies. */
#define HC_ROOFLINE_HOST ((size_t)64 << 20)

/* Seconds of the best of 3 copies of bytes between h and d, after one untimed (host clock, synchronised:
   as the step's transfer phase is timed). */
static int hc_run_time_transfer(const hc_backend *be, void *h, void *d, size_t bytes, int to_device, double *rate) {
  double best = 0;
  for (int i = 0; i < 4; i++) {
    double t0 = hc_wtime();
    HC_CALL(to_device ? be->copy_to_device(d, h, bytes) : be->copy_to_host(h, d, bytes));
    HC_CALL(be->synchronize());
    double t = hc_wtime() - t0;
    if (i > 0 && (best == 0 || t < best)) best = t;
  }
  *rate = best > 0 ? (double)bytes / best : 0;
  return HC_OK;
}

/* mesh.partitioner ptscotch: every rank reads its slice of the file (hc_meshfile_read_slice: an Exodus II file in
   parts, a Gmsh file dealt out by rank 0, which has read it whole) and the ranks partition and number it together
   (hc_mesh_create_dist). */
static int hc_run_mesh_in_parts(hc_run *run) {
  hc_run_config *cfg = &run->cfg;
  const double t0 = hc_wtime();
  hc_meshfile_slice *slice = NULL;
  HC_CALL(hc_meshfile_read_slice(run->comm, cfg->mesh_file, run->rank == 0 ? cfg->mesh_whole : NULL, &slice));
  cfg->file_read_s += hc_wtime() - t0;
  cfg->file_volume = slice->volume;
  cfg->file_cells = slice->num_global_cells;
  cfg->file_geometry_nodes = slice->mesh->nodes_per_cell;
  int ierr = HC_OK;
  const double cell = slice->volume / (double)slice->num_global_cells;
  if (cfg->precision == HC_FLOAT && (cell < HC_RUN_FLOAT_MIN_VOLUME || slice->volume > HC_RUN_FLOAT_MAX_VOLUME)) {
    ierr = HC_ERROR(HC_ERR_INPUT,
                    "%s: a volume of %.3g in cells of %.3g on average is outside what float precision holds with its "
                    "accuracy (cells above %.0e, the mesh below %.0e): scale the mesh or run.precision: double",
                    cfg->mesh_file, slice->volume, cell, HC_RUN_FLOAT_MIN_VOLUME, HC_RUN_FLOAT_MAX_VOLUME);
  } else {
    const hc_mesh_slice ms = {.geometry_nodes = slice->mesh->nodes_per_cell,
                              .num_global_cells = slice->num_global_cells,
                              .first = slice->first,
                              .num_cells = slice->mesh->num_cells,
                              .nodes = slice->node,
                              .coords = slice->mesh->coords,
                              .cell_tag = slice->mesh->cell_tag,
                              .name = cfg->mesh_file};
    ierr = hc_mesh_create_dist(run->comm, &ms, cfg->mesh.order, &run->mesh);
  }
  hc_meshfile_slice_destroy(&slice);
  return ierr;
}

/* The rates of the step's roofline (README.md, section The step's roofline), measured on every rank at once so that
   ranks that share a memory measure their share of it: the backend's copy bandwidth (hc_backend.mem_copy, the bench's
   copy kernel) on 2 x 128 MiB per memory (on a host backend at least 2 x twice its last-level caches) shared out
   among its ranks (at least 2 x 16 MiB per rank), at most a
   quarter of the memory free per rank; the host <-> device copy rates on device backends; the peak flop rate
   of the run's precision (a short measurement on the CPU). A fraction of a second, or a few where the host's caches
   are large. Collective. */
static int hc_run_measure_rates(hc_run *run) {
  int ierr = HC_OK;
  const hc_backend *be = run->be;
  hc_roofline_rates *r = &run->rates;
  memset(r, 0, sizeof(*r));
  if (!run->cfg.roofline) return HC_OK;
  HC_CALL_MPI(MPI_Barrier(run->comm));
  const double t0 = hc_wtime();
  const int sharing = be->is_device ? run->ranks_per_device : run->ranks_on_node > 0 ? run->ranks_on_node : 1;
  double free_b = hc_host_mem_available() / sharing;
  size_t dev_free = 0, dev_total = 0;
  if (be->device_memory(&dev_free, &dev_total) == HC_OK && dev_free > 0) free_b = (double)dev_free / sharing;
  hc_error_clear();
  double whole = (double)HC_ROOFLINE_HALF, llc = be->is_device ? 0 : hc_host_llc_bytes();
  if (HC_ROOFLINE_LLC_HALVES * llc > whole) whole = HC_ROOFLINE_LLC_HALVES * llc;
  size_t half = (size_t)(whole / sharing);
  if (half < HC_ROOFLINE_HALF_MIN) half = HC_ROOFLINE_HALF_MIN;
  if (free_b > 0 && (double)half > free_b / 8) half = (size_t)(free_b / 8);
  half = half / 4096 * 4096;
  if (half < 4096) half = 4096;
  HC_CALL(hc_measure_copy(be, half, 3, 64, 0.2, &r->copy)); /* on a GPU 64 calls, some ms: past its clocks' ramp */
  if (be->is_device) {
    size_t bytes = half < HC_ROOFLINE_HOST ? half : HC_ROOFLINE_HOST;
    void *h = malloc(bytes), *d = NULL;
    HC_CHECK(h, HC_ERR_RESOURCE, "out of host memory allocating %zu bytes", bytes);
    memset(h, 1, bytes); /* pageable and touched, as the run's host arrays */
    HC_CALL_GOTO(be->mem_alloc(bytes, &d), cleanup);
    HC_CALL_GOTO(hc_run_time_transfer(be, h, d, bytes, 1, &r->h2d), cleanup);
    HC_CALL_GOTO(hc_run_time_transfer(be, h, d, bytes, 0, &r->d2h), cleanup);
  cleanup:
    if (d) be->mem_free(d);
    free(h);
    HC_CALL(ierr);
  }
  snprintf(r->peak_how, sizeof(r->peak_how), "unknown: the contraction's roofline is its memory roof alone");
  for (int tc = 0; tc < 2; tc++) {
    double *peak = tc ? &r->tc : &r->peak;
    if (tc && !be->is_device) {
      *peak = r->peak;
      continue;
    }
    char how[320];
    int err = be->peak_flops(run->cfg.precision, tc, 0.15, peak, how, sizeof(how));
    if (err == HC_ERR_UNSUPPORTED) {
      hc_error_clear();
      *peak = tc ? r->peak : 0;
      continue;
    }
    HC_CALL(err);
    if (!tc) snprintf(r->peak_how, sizeof(r->peak_how), "%s", how);
  }
  r->measured = 1;
  r->seconds = hc_wtime() - t0;
  return HC_OK;
}

/* Each geometry node's shear factor (hc_celldata_shear) into the backend's memory, once: the cell data then moves a
   node by one product at each call (hc_run_desc hands it on with d_X0). Nothing without the shear. */
static int hc_run_upload_shear(hc_run *run) {
  const hc_mesh *m = run->mesh;
  const size_t n = (size_t)m->C * (size_t)m->geometry_nodes;
  if (run->cfg.shear_amplitude == 0.0 || n == 0) return HC_OK;
  hc_celldata_desc desc;
  hc_run_desc(run, m->vertex_coords, m->C, 0.0, &desc);
  double *f = malloc(sizeof(*f) * n);
  HC_CHECK(f, HC_ERR_RESOURCE, "out of host memory for the %zu geometry nodes' shear factors", n);
  hc_celldata_shear(&desc.motion, m->C, m->geometry_nodes, m->vertex_coords, f);
  int err = run->be->mem_alloc(sizeof(*f) * n, &run->d_shear);
  if (err == HC_OK) err = run->be->copy_to_device(run->d_shear, f, sizeof(*f) * n);
  free(f);
  return err;
}

/* The points' geometry of a step, kept by the backend's first cell-data or fused call for the other kernels'
   (hc_geometry_cache), in the backend's memory, on a backend whose calls of the run's mode take it, where it is no
   larger than limit bytes (the input arrays; fused, the enabled kernels' outputs). */
static int hc_run_geometry_cache(hc_run *run, size_t limit) {
  const size_t points = (size_t)run->mesh->C * (size_t)run->basis->P;
  const size_t bytes = sizeof(double) * HC_GEOMETRY_CACHE_VALUES * points;
  const int mode = run->cfg.fused ? HC_GEOMETRY_CACHE_FUSED : HC_GEOMETRY_CACHE_CELLDATA;
  if (!(run->be->geometry_cache & mode) || limit == 0 || bytes > limit || points == 0) return HC_OK;
  run->geometry = calloc(1, sizeof(*run->geometry));
  HC_CHECK(run->geometry, HC_ERR_RESOURCE, "out of host memory for the points' geometry cache");
  HC_CALL(run->be->mem_alloc(bytes, (void **)&run->geometry->values));
  run->geometry->capacity = (int64_t)points;
  return HC_OK;
}

static int hc_run_setup(MPI_Comm comm, const hc_run_config *cfg, hc_run *run) {
  memset(run, 0, sizeof(*run));
  run->cfg = *cfg;
  run->comm = comm;
  HC_CALL_MPI(MPI_Comm_rank(comm, &run->rank));
  HC_CALL_MPI(MPI_Comm_size(comm, &run->nranks));
  HC_CALL(hc_backend_find(cfg->backend, &run->be));
  HC_CALL(hc_run_bind_device(run));
  HC_CALL(hc_run_measure_rates(run));
  const double t_mesh = hc_wtime(), read_before = run->cfg.file_read_s;
  if (cfg->mesh_source == HC_MESH_SOURCE_FILE) {
    if (cfg->partitioner == HC_PARTITIONER_PTSCOTCH)
      HC_CALL(hc_run_mesh_in_parts(run));
    else
      HC_CALL(hc_mesh_create_cells(comm, cfg->mesh_cells, cfg->mesh.order, cfg->partitioner, &run->mesh));
  } else {
    HC_CALL(hc_mesh_create(comm, &cfg->mesh, &run->mesh));
  }
  /* Reading a file in parts (ptscotch) counts as reading, the rest as setting up. */
  run->mesh_setup_s = hc_wtime() - t_mesh - (run->cfg.file_read_s - read_before);
  HC_CALL(hc_halo_create(run->mesh, &run->halo));
  hc_halo_stats hs;
  HC_CALL(hc_halo_get_stats(run->halo, HC_DOUBLE, &hs));
  run->halo_neighbors = hs.num_neighbors;
  HC_CALL(hc_basis_create(cfg->mesh.order, cfg->quadrature, &run->basis));
  HC_CALL(hc_coloring_create(run->mesh->C, run->mesh->nodes_per_cell, run->mesh->cell_nodes, run->mesh->num_nodes,
                             &run->coloring));
  const hc_mesh *m = run->mesh;
  const hc_backend *be = run->be;
  size_t s = hc_precision_size(cfg->precision);
  size_t in_max = 0, out_max = (size_t)m->C, out_sum = 0;
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
    hc_run_contract_of(run, (hc_kernel)kid, &run->k[kid]);
    if (!cfg->enabled[kid]) continue;
    /* A variant the backend lacks for this shape: say where it was chosen (host backends are checked
       before the run; a device's variants depend on the device). */
    int unsupported = be->supports(&run->k[kid]);
    if (unsupported) {
      char why[1024];
      snprintf(why, sizeof(why), "%s", hc_error_message());
      return HC_ERROR(unsupported, "%s: %s", cfg->variant_where[kid][0] ? cfg->variant_where[kid] : "default", why);
    }
    size_t in =
        (size_t)(hc_contract_numel(&run->k[kid], HC_ARRAY_LEFT) + hc_contract_numel(&run->k[kid], HC_ARRAY_RIGHT));
    if (in > in_max) in_max = in;
    size_t out = (size_t)hc_contract_numel(&run->k[kid], HC_ARRAY_OUT);
    if (out > out_max) out_max = out;
    out_sum += out;
  }
  /* The checks need DataDataScalar and DataFieldScalar problems even when those kernels are off. */
  size_t dfs = (size_t)(hc_contract_numel(&run->k[HC_DATAFIELD_SCALAR], HC_ARRAY_LEFT) +
                        hc_contract_numel(&run->k[HC_DATAFIELD_SCALAR], HC_ARRAY_RIGHT));
  if (cfg->checks && dfs > in_max) in_max = dfs;
  if (cfg->fused) in_max = 0; /* no input array: the fused operation forms each cell's entries in its scratch */
  if (cfg->checks && (size_t)(m->C * m->nodes_per_cell) > out_max) out_max = (size_t)(m->C * m->nodes_per_cell);

  HC_CALL(hc_inject_check(run->rank, HC_INJECT_SETUP, 0));
  size_t X0_bytes = sizeof(double) * (size_t)(m->C * 3 * m->geometry_nodes);
  HC_CALL(be->mem_alloc(X0_bytes, &run->d_X0));
  HC_CALL(be->copy_to_device(run->d_X0, m->vertex_coords, X0_bytes));
  HC_CALL(hc_run_upload_shear(run));
  if (in_max > 0) {
    HC_CALL(be->mem_alloc(s * in_max, &run->d_left));
    run->d_right = (char *)run->d_left; /* set per kernel: right follows left in the same buffer */
  }
  HC_CALL(hc_run_geometry_cache(run, s * (cfg->fused ? out_sum : in_max)));
  HC_CALL(be->mem_alloc(s * out_max, &run->d_scratch));
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
    if (!cfg->enabled[kid]) continue;
    size_t bytes = s * (size_t)hc_contract_numel(&run->k[kid], HC_ARRAY_OUT);
    HC_CALL(be->mem_alloc(bytes, &run->d_out[kid]));
    run->h_out[kid] = run->d_out[kid]; /* the host's view: the same array, or on a device a copy (below) */
    if (hc_kernel_family((hc_kernel)kid) != HC_FAMILY_DATADATA) {
      HC_CALL(hc_calloc((size_t)m->num_nodes, sizeof(double), &run->y[kid]));
    }
  }
  HC_CALL(hc_calloc((size_t)m->num_nodes, sizeof(double), &run->u));
  HC_CALL(hc_calloc((size_t)m->num_nodes, sizeof(double), &run->u0));
  HC_CALL(hc_calloc((size_t)m->num_nodes, sizeof(double), &run->du));
  HC_CALL(hc_calloc((size_t)(m->C * m->nodes_per_cell * 3), sizeof(double), &run->node_x));
  HC_CALL(hc_run_prepare_u(run));
  /* Every backend assembles in its own memory. A device keeps the element outputs and nodal vectors there, so
     that only DataData outputs and shared nodes cross, and computes u there each step; on the host the backend's
     arrays are the host's. */
  run->device_assembly = be->is_device;
  run->dd_copy = be->is_device && cfg->deterministic;
  run->kernel_lanes = 1;
  if (run->device_assembly) {
    for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
      if (!cfg->enabled[kid]) continue;
      run->h_out[kid] = NULL;
      HC_CALL(hc_calloc(s * (size_t)hc_contract_numel(&run->k[kid], HC_ARRAY_OUT), 1, &run->h_out[kid]));
    }
    HC_CALL(hc_halo_shared(run->halo, &run->num_shared, &run->shared));
    size_t sh = (size_t)(run->num_shared > 0 ? run->num_shared : 1);
    HC_CALL(be->mem_alloc(sizeof(int32_t) * sh, (void **)&run->d_shared));
    if (run->num_shared) HC_CALL(be->copy_to_device(run->d_shared, run->shared, sizeof(int32_t) * sh));
    /* staging for every nodal vector's shared entries at once */
    HC_CALL(be->mem_alloc(sizeof(double) * sh * HC_NUM_KERNELS, (void **)&run->d_shbuf));
    HC_CALL(hc_calloc(sh * HC_NUM_KERNELS, sizeof(double), &run->h_shbuf));
    size_t map = sizeof(int32_t) * (size_t)(m->C * m->nodes_per_cell), nodal = sizeof(double) * (size_t)m->num_nodes;
    HC_CALL(be->mem_alloc(map, (void **)&run->d_cell_nodes));
    HC_CALL(be->copy_to_device(run->d_cell_nodes, m->cell_nodes, map));
    HC_CALL(be->mem_alloc(nodal, (void **)&run->d_u));
    /* the nodal vectors in one block, zeroed by one call a step (hc_run_step) */
    size_t nvec = 0;
    for (int kid = 0; kid < HC_NUM_KERNELS; kid++) nvec += run->y[kid] != NULL;
    if (nvec) {
      run->d_y_bytes = nodal * nvec;
      HC_CALL(be->mem_alloc(run->d_y_bytes, (void **)&run->d_y_block));
      for (int kid = 0, i = 0; kid < HC_NUM_KERNELS; kid++)
        if (run->y[kid]) run->d_y[kid] = run->d_y_block + (size_t)(i++) * (size_t)m->num_nodes;
    }
    /* u = u0 + sin(omega t) du, where a FieldField kernel applies its outputs to it */
    if (hc_run_any_fieldfield(run)) {
      HC_CALL(be->mem_alloc(nodal, (void **)&run->d_u0));
      HC_CALL(be->mem_alloc(nodal, (void **)&run->d_du));
      HC_CALL(be->copy_to_device(run->d_u0, run->u0, nodal));
      HC_CALL(be->copy_to_device(run->d_du, run->du, nodal));
    }
  } else {
    run->d_cell_nodes = m->cell_nodes;
    run->d_u = run->u, run->d_u0 = run->u0, run->d_du = run->du;
    for (int kid = 0; kid < HC_NUM_KERNELS; kid++) run->d_y[kid] = run->y[kid];
  }
  /* Fused on a device, where the backend's kernels also add each cell's nodal values into the nodal vector as they
     form them (hc_fused_assemble_takes): no assembly kernel follows them (hc_run_kernel). */
  if (cfg->fused && run->d_y_block) {
    hc_celldata_desc desc;
    hc_run_desc(run, run->d_X0, m->C, 0.0, &desc);
    for (int kid = 0; kid < HC_NUM_KERNELS; kid++)
      run->fused_into_y[kid] = run->y[kid] && hc_fused_assemble_takes(be, &desc, &run->k[kid]) == HC_OK;
  }
  /* Fused, where the backend's FieldField kernels also apply each element matrix to u as they form it: their rows
     A_c u_c, which the assembly then scatters as a vector instead of reading the matrices back (hc_run_kernel, for
     the cases the backend takes: hc_fused_element_takes), for a FieldField kernel that does not add into y itself. */
  int rows = 0;
  for (int kid = HC_FIELDFIELD_SCALAR; kid < HC_NUM_KERNELS; kid++)
    rows |= cfg->enabled[kid] && !run->fused_into_y[kid];
  if (cfg->fused && rows && hc_fused_element_check(be) == HC_OK)
    HC_CALL(be->mem_alloc(sizeof(double) * (size_t)(m->C * m->nodes_per_cell), (void **)&run->d_v));
  return HC_OK;
}

void hc_run_destroy(hc_run *run) {
  const hc_backend *be = run->be;
  if (be) {
    /* The mirrors of a device's memory; on the host they are the host's arrays (hc_run_setup). */
    if (run->device_assembly) {
      for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
        if (run->h_out[kid] != run->d_out[kid]) free(run->h_out[kid]);
      }
      if (run->d_y_block) be->mem_free(run->d_y_block);
      if (run->d_cell_nodes) be->mem_free(run->d_cell_nodes);
      if (run->d_u) be->mem_free(run->d_u);
      if (run->d_u0) be->mem_free(run->d_u0);
      if (run->d_du) be->mem_free(run->d_du);
      if (run->d_shared) be->mem_free(run->d_shared);
      if (run->d_shbuf) be->mem_free(run->d_shbuf);
    }
    for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
      if (run->d_out[kid]) be->mem_free(run->d_out[kid]);
      free(run->y[kid]);
      run->d_out[kid] = run->h_out[kid] = NULL;
      run->d_y[kid] = run->y[kid] = NULL;
    }
    if (run->d_X0) be->mem_free(run->d_X0);
    if (run->d_shear) be->mem_free(run->d_shear);
    if (run->d_v) be->mem_free(run->d_v);
    if (run->d_left) be->mem_free(run->d_left);
    if (run->geometry && run->geometry->values) be->mem_free(run->geometry->values);
    if (run->d_scratch) be->mem_free(run->d_scratch);
    be->release();
  }
  free(run->h_shbuf);
  run->h_shbuf = NULL;
  run->d_shared = NULL;
  run->d_shbuf = NULL;
  run->d_cell_nodes = NULL;
  run->d_u = run->d_u0 = run->d_du = run->d_v = NULL;
  run->d_y_block = NULL;
  run->d_y_bytes = 0;
  run->d_X0 = run->d_shear = run->d_left = run->d_right = run->d_scratch = NULL;
  free(run->geometry);
  run->geometry = NULL;
  free(run->u);
  free(run->u0);
  free(run->du);
  free(run->node_x);
  run->u = run->u0 = run->du = run->node_x = NULL;
  free(run->vtk_steps);
  free(run->vtk_times);
  run->vtk_steps = NULL;
  run->vtk_times = NULL;
  hc_coloring_destroy(&run->coloring);
  hc_basis_destroy(&run->basis);
  hc_halo_destroy(&run->halo);
  hc_mesh_destroy(&run->mesh);
}

/* The cell-data descriptor of this rank at time t, with geometry nodes X0 (backend or host memory). */
void hc_run_desc(const hc_run *run, const double *X0, int64_t C, double t, hc_celldata_desc *desc) {
  const hc_mesh *m = run->mesh;
  hc_celldata_desc_init(desc, run->basis, C, X0, m->length[0], m->length[1], m->length[2]);
  desc->geometry_nodes = m->geometry_nodes;
  desc->cell_tag = C == m->C ? m->cell_tag : NULL; /* the whole rank from its first cell: the file's numbers apply */
  desc->t = t;
  desc->motion.A = run->cfg.shear_amplitude;
  desc->motion.omega = run->cfg.shear_omega;
  desc->shear = (const void *)X0 == run->d_X0 ? run->d_shear : NULL; /* the factors of d_X0's nodes only */
  desc->layout = run->cfg.layout;
  desc->precision = run->cfg.precision;
}

/* Fills the inputs of kernel at time t into d_left / d_right (right placed after left). */
static int hc_run_fill(hc_run *run, const hc_celldata_desc *desc, hc_kernel kernel, const hc_contract *k) {
  size_t s = hc_precision_size(k->precision);
  run->d_right = (char *)run->d_left + s * (size_t)hc_contract_numel(k, HC_ARRAY_LEFT);
  return hc_celldata_fill(run->be, desc, kernel, run->d_left, run->d_right);
}

int hc_run_compute(hc_run *run, const hc_celldata_desc *desc, const hc_contract *k, void *out) {
  if (run->cfg.fused) return hc_fused_apply(run->be, desc, k, out);
  HC_CALL(hc_run_fill(run, desc, k->kernel, k));
  return hc_contract_apply(run->be, k, run->d_left, run->d_right, out);
}

/* The nodal interpolant of the linear function at the nodes' positions at time t. Node positions are
   the trilinear map of the sheared vertices, and the shear moves every vertex by its amplitude times
   sin(omega t); both maps are linear, so u_n(t) = u0_n + sin(omega t) du_n exactly (up to rounding),
   with u0 and du computed once from the positions at sin(omega t) = 0 and 1. */
static int hc_run_prepare_u(hc_run *run) {
  const hc_mesh *m = run->mesh;
  const int L = m->nodes_per_cell;
  hc_celldata_desc desc;
  for (int pass = 0; pass < 2; pass++) {
    hc_run_desc(run, m->vertex_coords, m->C, 0.0, &desc);
    if (pass == 1) {
      /* sin(omega t) = 1 at t = pi / (2 omega); with no motion du is zero */
      if (run->cfg.shear_omega == 0.0 || run->cfg.shear_amplitude == 0.0) desc.motion.A = 0.0;
      desc.motion.omega = 1.0;
      desc.t = 0.5 * HC_PI;
    }
    HC_CALL(hc_celldata_nodes(&desc, run->node_x));
    double *dst = pass == 0 ? run->u0 : run->du;
    for (int64_t c = 0; c < m->C; c++)
      for (int l = 0; l < L; l++) dst[m->cell_nodes[c * L + l]] = hc_linear_u(m->length, run->node_x + 3 * (c * L + l));
  }
  for (int64_t n = 0; n < m->num_nodes; n++) run->du[n] -= run->u0[n];
  return HC_OK;
}

int hc_run_interpolate_u(hc_run *run, double t) {
  const double s = sin(run->cfg.shear_omega * t);
  for (int64_t n = 0; n < run->mesh->num_nodes; n++) run->u[n] = run->u0[n] + s * run->du[n];
  return HC_OK;
}

/* Global sum of per-cell or per-node values: in double, or order-independent when deterministic. */
static int hc_run_allreduce_sum(const hc_run *run, double *values, int n) {
  HC_CALL_MPI(MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, run->comm));
  return HC_OK;
}

/* Sums n accumulators over the ranks into values[0..n-1]. Collective. */
int hc_acc_allreduce(const hc_run *run, hc_acc *a, int n, double *values) {
  if (!a[0].is_exact) {
    for (int i = 0; i < n; i++) values[i] = a[i].plain;
    return hc_run_allreduce_sum(run, values, n);
  }
  int64_t limbs[HC_ACC_MAX * (HC_XSUM_LIMBS + 1)]; /* no allocation that could fail on one rank only */
  HC_CHECK(n <= HC_ACC_MAX, HC_ERR_RUNTIME, "at most %d exact sums at once, got %d", HC_ACC_MAX, n);
  for (int i = 0; i < n; i++) {
    hc_xsum_normalize(&a[i].exact);
    memcpy(limbs + i * (HC_XSUM_LIMBS + 1), a[i].exact.limb, sizeof(int64_t) * HC_XSUM_LIMBS);
    limbs[i * (HC_XSUM_LIMBS + 1) + HC_XSUM_LIMBS] = a[i].exact.nonfinite;
  }
  /* Normalised digits are below 2^32, so a sum over fewer than 2^31 ranks cannot overflow. */
  HC_CALL_MPI(MPI_Allreduce(MPI_IN_PLACE, limbs, n * (HC_XSUM_LIMBS + 1), MPI_INT64_T, MPI_SUM, run->comm));
  for (int i = 0; i < n; i++) {
    hc_xsum x;
    hc_xsum_init(&x);
    memcpy(x.limb, limbs + i * (HC_XSUM_LIMBS + 1), sizeof(int64_t) * HC_XSUM_LIMBS);
    x.nonfinite = limbs[i * (HC_XSUM_LIMBS + 1) + HC_XSUM_LIMBS] != 0;
    values[i] = hc_xsum_value(&x);
  }
  return HC_OK;
}

/* Writes one array of kernel k (backend memory, k's layout) for the first n cells as a cell-major .npy. */
static int hc_run_dump_array(const hc_run *run, const hc_contract *k, hc_array which, const void *d_a, int64_t n,
                             const char *path) {
  const size_t s = hc_precision_size(k->precision);
  const int64_t inner = hc_contract_inner(k, which);
  /* Cell-major: the first n cells are a prefix; cell-minor: copy all, then gather. */
  const int64_t count = k->layout == HC_LAYOUT_CELL_MAJOR ? n * inner : k->C * inner;
  char *all = malloc(s * (size_t)count), *h = malloc(s * (size_t)(n * inner));
  int ierr = HC_OK;
  HC_CHECK_GOTO(all && h, HC_ERR_RESOURCE, cleanup, "out of host memory for --dump");
  HC_CALL_GOTO(run->be->copy_to_host(all, d_a, s * (size_t)count), cleanup);
  for (int64_t c = 0; c < n; c++)
    for (int64_t q = 0; q < inner; q++) {
      int64_t from = k->layout == HC_LAYOUT_CELL_MAJOR ? c * inner + q : q * k->C + c;
      memcpy(h + s * (size_t)(c * inner + q), all + s * (size_t)from, s);
    }
  int ndim;
  int64_t dims[6];
  hc_contract k1 = *k;
  k1.C = n;
  hc_contract_shape(&k1, which, &ndim, dims);
  HC_CALL_GOTO(hc_npy_write(path, k->precision, ndim, dims, h), cleanup);
cleanup:
  free(all);
  free(h);
  return ierr;
}

/* --dump: the left, right and output arrays of kernel for the first cells of rank 0; fused, the output only (no
   input array exists). */
static int hc_run_dump(const hc_run *run, hc_kernel kernel) {
  if (run->rank != 0 || run->cfg.dump_cells <= 0) return HC_OK;
  const hc_contract *k = &run->k[kernel];
  const int64_t n = run->cfg.dump_cells < k->C ? run->cfg.dump_cells : k->C;
  const char *names[3] = {"left", "right", "out"};
  const void *arrays[3] = {run->d_left, run->d_right, run->d_out[kernel]};
  for (int a = run->cfg.fused ? HC_ARRAY_OUT : HC_ARRAY_LEFT; a < 3; a++) {
    char path[1200];
    snprintf(path, sizeof(path), "%s/dump_%s_%s.npy", run->cfg.out_dir, hc_kernel_name(kernel), names[a]);
    HC_CALL(hc_run_dump_array(run, k, (hc_array)a, arrays[a], n, path));
  }
  return HC_OK;
}

/* The nodal vectors the halo exchange sums: kids[v] and their host arrays ys[v]. */
static int hc_run_nodal_vectors(const hc_run *run, int kids[HC_NUM_KERNELS], double *ys[HC_NUM_KERNELS]) {
  int nvec = 0;
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++)
    if (run->y[kid]) kids[nvec] = kid, ys[nvec++] = run->y[kid];
  return nvec;
}

/* Starts summing the shared nodes of every assembled nodal vector over ranks, in one round of messages.
   With device assembly only the shared entries cross: gathered on the device into one buffer, copied
   to the host arrays, and posted. */
static int hc_run_halo_begin(hc_run *run) {
  const hc_backend *be = run->be;
  double *ys[HC_NUM_KERNELS];
  int kids[HC_NUM_KERNELS], nvec = hc_run_nodal_vectors(run, kids, ys);
  const int64_t n = run->num_shared;
  if (run->device_assembly && n > 0 && nvec > 0) {
    for (int v = 0; v < nvec; v++) HC_CALL(be->gather(run->d_y[kids[v]], run->d_shared, n, run->d_shbuf + v * n));
    HC_CALL(be->copy_to_host(run->h_shbuf, run->d_shbuf, sizeof(double) * (size_t)(nvec * n)));
    for (int v = 0; v < nvec; v++)
      for (int64_t i = 0; i < n; i++) ys[v][run->shared[i]] = run->h_shbuf[v * n + i];
  }
  return hc_halo_begin_many(run->halo, nvec, ys);
}

/* Completes the round: waits, sums, and with device assembly scatters the sums back on the device. */
static int hc_run_halo_end(hc_run *run) {
  const hc_backend *be = run->be;
  double *ys[HC_NUM_KERNELS];
  int kids[HC_NUM_KERNELS], nvec = hc_run_nodal_vectors(run, kids, ys);
  HC_CALL(hc_halo_end_many(run->halo, nvec, ys));
  const int64_t n = run->num_shared;
  if (!run->device_assembly || n == 0 || nvec == 0) return HC_OK;
  for (int v = 0; v < nvec; v++)
    for (int64_t i = 0; i < n; i++) run->h_shbuf[v * n + i] = ys[v][run->shared[i]];
  HC_CALL(be->copy_to_device(run->d_shbuf, run->h_shbuf, sizeof(double) * (size_t)(nvec * n)));
  for (int v = 0; v < nvec; v++) HC_CALL(be->scatter(run->d_shbuf + v * n, run->d_shared, n, run->d_y[kids[v]]));
  return HC_OK;
}

/* Opens a range named "what" or "what KERNEL" (kid >= 0) on a profiler's timeline, where the backend has
   the hook (NVTX on CUDA); closed by hc_run_range_end. Nothing on the CPU backends (the core's no-op). */
static void hc_run_range(const hc_run *run, const char *what, int kid) {
  char name[64];
  snprintf(name, sizeof(name), "%s%s%s", what, kid >= 0 ? " " : "", kid >= 0 ? hc_kernel_name((hc_kernel)kid) : "");
  run->be->range_push(name);
}

static void hc_run_range_end(const hc_run *run) {
  run->be->range_pop();
}

/* A step's timeline: a mark on the backend's stream (hc_backend.mark) where each part of the step begins, read
   once at the step's end, so that the parts are timed without a wait between them (a device's queue runs on while
   the host queues the next part). Each interval, from its mark to the next mark of the same lane, counts to the
   phase (-1: none) and, for cell data and contractions, to the kernel (-1: none) its mark names. The step's own
   marks are lane -1; a group of kernels forked onto lanes (hc_run_group) marks each kernel on its lane 0 .. and
   each lane's end, and those intervals count to their kernels alone, the phase being the step's interval around
   the fork. lanes: the open fork's (0 outside one); next: the lane its next kernel goes on. */
typedef struct {
  int n, lanes, next;
  signed char phase[HC_MARKS_MAX], kid[HC_MARKS_MAX], lane[HC_MARKS_MAX];
} hc_step_marks;

static int hc_run_lane_mark(const hc_run *run, hc_step_marks *sm, int lane, int phase, int kid) {
  HC_CHECK(sm->n < HC_MARKS_MAX, HC_ERR_RUNTIME, "a step has more than %d timed parts", HC_MARKS_MAX);
  if (lane >= 0) HC_CALL(run->be->lane(lane));
  HC_CALL(run->be->mark(sm->n));
  sm->phase[sm->n] = (signed char)phase;
  sm->kid[sm->n] = (signed char)kid;
  sm->lane[sm->n++] = (signed char)lane;
  return HC_OK;
}

static int hc_run_mark(const hc_run *run, hc_step_marks *sm, int phase, int kid) {
  return hc_run_lane_mark(run, sm, -1, phase, kid);
}

/* Ends the timeline (waits for what the step queued) and, for a timed step, adds its intervals to the run's
   phase, contraction and cell-data times. */
static int hc_run_marks_end(hc_run *run, hc_step_marks *sm, int timed) {
  double t[HC_MARKS_MAX];
  HC_CALL(hc_run_mark(run, sm, -1, -1));
  HC_CALL(run->be->marks_read(sm->n, t));
  for (int i = 0; timed && i < sm->n; i++) {
    const int ph = sm->phase[i], kid = sm->kid[i];
    int j = i + 1;
    while (j < sm->n && sm->lane[j] != sm->lane[i]) j++;
    if (ph < 0 || j == sm->n) continue;
    const double d = t[j] - t[i];
    if (sm->lane[i] < 0) run->phase_s[ph] += d;
    if (kid >= 0 && ph == HC_PHASE_CELLDATA) run->celldata_s[kid] += d;
    if (kid >= 0 && ph == HC_PHASE_CONTRACT) run->kernel_s[kid] += d;
  }
  return HC_OK;
}

/* One kernel of a step: cell data, contraction (or the fused kernel in their place), assembly (in the backend's
   memory), each queued after a mark of sm. */
static int hc_run_kernel(hc_run *run, const hc_celldata_desc *desc, int kid, int dump, hc_step_marks *sm) {
  const hc_backend *be = run->be;
  const hc_mesh *m = run->mesh;
  const hc_contract *k = &run->k[kid];
  hc_family fam = hc_kernel_family((hc_kernel)kid);
  /* Fused: the kernel's nodal values added into its nodal vector by the fused kernel itself where it takes them
     (zeroed at the step's start), or FieldField's element apply rows from it (run->d_v), the assembly a vector's */
  const int into_y = run->cfg.fused && run->fused_into_y[kid];
  double *v = run->cfg.fused && !into_y && fam == HC_FAMILY_FIELDFIELD && run->d_v &&
                      hc_fused_element_takes(be, desc, k) == HC_OK
                  ? run->d_v
                  : NULL;
  if (run->cfg.fused) {
    /* The fused kernel, timed as the kernel's contraction; the cell-data phase stays empty. */
    hc_run_range(run, "fused", kid);
    if (sm->lanes) {
      HC_CALL(hc_run_lane_mark(run, sm, sm->next, HC_PHASE_CONTRACT, kid));
      sm->next = (sm->next + 1) % sm->lanes;
    } else {
      HC_CALL(hc_run_mark(run, sm, HC_PHASE_CONTRACT, kid));
    }
    if (into_y)
      HC_CALL(hc_fused_assemble(be, desc, k, run->d_out[kid], run->d_cell_nodes, run->d_u, run->d_y[kid]));
    else if (v)
      HC_CALL(hc_fused_element(be, desc, k, run->d_out[kid], run->d_cell_nodes, run->d_u, v));
    else
      HC_CALL(hc_fused_apply(be, desc, k, run->d_out[kid]));
    hc_run_range_end(run);
  } else {
    hc_run_range(run, "celldata", kid);
    HC_CALL(hc_run_mark(run, sm, HC_PHASE_CELLDATA, kid));
    HC_CALL(hc_run_fill(run, desc, (hc_kernel)kid, k));
    hc_run_range_end(run);
    hc_run_range(run, "contract", kid);
    HC_CALL(hc_run_mark(run, sm, HC_PHASE_CONTRACT, kid));
    HC_CALL(hc_contract_apply(be, k, run->d_left, run->d_right, run->d_out[kid]));
    hc_run_range_end(run);
  }
  if (dump) {
    HC_CALL(hc_run_mark(run, sm, -1, -1)); /* writing the --dump arrays is not the step's work */
    HC_CALL(hc_run_dump(run, (hc_kernel)kid));
  }

  if (into_y) return HC_OK; /* assembled by the fused kernel */
  if (fam == HC_FAMILY_DATADATA) {
    /* No assembly. With run.deterministic the C values come to the host for its exact sum (else the backend sums
       them where they are, in the reduction). */
    if (run->dd_copy) {
      hc_run_range(run, "transfer", kid);
      HC_CALL(hc_run_mark(run, sm, HC_PHASE_TRANSFER, -1));
      HC_CALL(be->copy_to_host(run->h_out[kid], run->d_out[kid], hc_precision_size(k->precision) * (size_t)k->C));
      hc_run_range_end(run);
    }
    return HC_OK;
  }
  /* Assembly in the backend's memory: the nodal vector stays there but for its shared nodes (hc_run_halo_begin). */
  hc_run_range(run, "assembly", kid);
  HC_CALL(hc_run_mark(run, sm, HC_PHASE_ASSEMBLY, -1));
  if (!run->d_y_block) HC_CALL(be->mem_zero(run->d_y[kid], sizeof(double) * (size_t)m->num_nodes));
  if (fam == HC_FAMILY_DATAFIELD) {
    HC_CALL(be->assemble_vector(k, run->coloring, run->d_out[kid], run->d_cell_nodes, run->d_y[kid]));
  } else if (v) {
    /* y[node(c,l)] += v[c][l]: the element apply's sums, scattered as a DataField output of doubles is */
    hc_contract kv = *k;
    kv.kernel = HC_DATAFIELD_SCALAR;
    kv.R = 1;
    kv.layout = HC_LAYOUT_CELL_MAJOR;
    kv.precision = HC_DOUBLE;
    HC_CALL(be->assemble_vector(&kv, run->coloring, v, run->d_cell_nodes, run->d_y[kid]));
  } else {
    HC_CALL(be->assemble_apply(k, run->coloring, run->d_out[kid], run->d_cell_nodes, run->d_u, run->d_y[kid], NULL));
  }
  hc_run_range_end(run);
  return HC_OK;
}

/* The kernels kids[0 .. n - 1] that are enabled, in that order, each by hc_run_kernel. With run.lanes above 1, a
   device and fused kernels that queue nothing after themselves (each adds into its own nodal vector, or is a DataData
   kernel whose sums stay where they are) nor wait, the group runs on that many of the backend's lanes side by side, in
   turn, inside a contract phase of the step's timeline; else one after another. */
static int hc_run_group(hc_run *run, const hc_celldata_desc *desc, const int *kids, int nk, int dump,
                        hc_step_marks *sm) {
  /* (a host backend's calls are done when they return: nothing to run side by side) */
  int n = 0, alone = !run->cfg.fused || dump || run->cfg.lanes < 2 || !run->be->is_device;
  for (int i = 0; i < nk; i++) {
    const int kid = kids[i];
    if (!run->cfg.enabled[kid]) continue;
    n++;
    alone |= !run->fused_into_y[kid] && (hc_kernel_family((hc_kernel)kid) != HC_FAMILY_DATADATA || run->dd_copy);
  }
  const int lanes = alone || n < 2 ? 0 : n < run->cfg.lanes ? n : run->cfg.lanes;
  if (lanes) {
    if (lanes > run->kernel_lanes) run->kernel_lanes = lanes;
    HC_CALL(hc_run_mark(run, sm, HC_PHASE_CONTRACT, -1));
    HC_CALL(run->be->fork(lanes));
    sm->lanes = lanes, sm->next = 0;
  }
  int ierr = HC_OK;
  for (int i = 0; i < nk && !ierr; i++)
    if (run->cfg.enabled[kids[i]]) ierr = hc_run_kernel(run, desc, kids[i], dump, sm);
  if (!lanes) return ierr;
  for (int l = 0; l < lanes && !ierr; l++) ierr = hc_run_lane_mark(run, sm, l, -1, -1); /* each lane's end */
  sm->lanes = 0;
  const int jerr = run->be->join(); /* also after an error, so that later calls go on the backend's stream */
  return ierr ? ierr : jerr;
}

/* One timestep at time t: cell data, contractions, assembly, halo exchange, reductions. The kernels that
   feed nodal vectors (DataField, FieldField) run first; the halo messages of their vectors are in flight
   while the DataData kernels, which need no halo, run (on a rank with no halo neighbours, before the exchange). With
   dump, also writes the --dump arrays. The parts are queued one after another and timed by the step's marks
   (hc_step_marks); the waits are the halo's copies, the reduction's sums and, at the end, the cells' check and the
   marks. */
static int hc_run_step(hc_run *run, double t, int timed, int dump) {
  const hc_backend *be = run->be;
  const hc_mesh *m = run->mesh;
  hc_step_marks sm = {0};
  hc_run_range(run, "step", -1);
  const double t_step = hc_wtime();
  hc_celldata_desc desc;
  hc_run_desc(run, run->d_X0, m->C, t, &desc);
  desc.check_later = 1; /* checked once, at the step's end */
  /* The step's kernels share the points' geometry (the step's own calls only: d_X0, t and the run's basis) */
  desc.geometry_cache = run->geometry;

  /* The mesh motion's interpolant u, which the FieldField assembly applies the outputs to, computed in the
     backend's memory: every step on the host, on a device where a FieldField kernel runs (hc_run_setup). */
  hc_run_range(run, "celldata", -1);
  HC_CALL(hc_run_mark(run, &sm, HC_PHASE_CELLDATA, -1));
  if (run->d_u0) HC_CALL(be->waxpy(m->num_nodes, sin(run->cfg.shear_omega * t), run->d_du, run->d_u0, run->d_u));
  hc_run_range_end(run);
  if (run->d_y_block) {
    /* every nodal vector zeroed at once, before the kernels that assemble into them */
    hc_run_range(run, "assembly", -1);
    HC_CALL(hc_run_mark(run, &sm, HC_PHASE_ASSEMBLY, -1));
    HC_CALL(be->mem_zero(run->d_y_block, run->d_y_bytes));
    hc_run_range_end(run);
  }
  /* The nodal kernels (DataField, FieldField), then the DataData ones. Where the rank has halo neighbours, the
     nodal vectors' messages go out between the two groups and are in flight while the DataData kernels run; where
     it has none, the nine kernels are one group: one fork and join a step, the DataData kernels last on the lanes
     beside the others. */
  static const int order[HC_NUM_KERNELS] = {HC_DATAFIELD_SCALAR,  HC_DATAFIELD_VECTOR,  HC_DATAFIELD_TENSOR,
                                            HC_FIELDFIELD_SCALAR, HC_FIELDFIELD_VECTOR, HC_FIELDFIELD_TENSOR,
                                            HC_DATADATA_SCALAR,   HC_DATADATA_VECTOR,   HC_DATADATA_TENSOR};
  const int nodal = run->halo_neighbors > 0 ? 6 : HC_NUM_KERNELS;
  HC_CALL(hc_run_group(run, &desc, order, nodal, dump, &sm));
  hc_run_range(run, "halo", -1);
  HC_CALL(hc_run_mark(run, &sm, HC_PHASE_HALO, -1));
  HC_CALL(hc_run_halo_begin(run));
  hc_run_range_end(run);
  if (nodal < HC_NUM_KERNELS) {
    HC_CALL(hc_run_group(run, &desc, order + nodal, HC_NUM_KERNELS - nodal, dump, &sm));
    hc_run_range(run, "halo", -1);
    HC_CALL(hc_run_mark(run, &sm, HC_PHASE_HALO, -1));
  } else {
    hc_run_range(run, "halo", -1); /* the halo phase goes on */
  }
  HC_CALL(hc_run_halo_end(run));
  hc_run_range_end(run);

  hc_run_range(run, "reduction", -1);
  HC_CALL(hc_run_mark(run, &sm, HC_PHASE_REDUCTION, -1));
  double sums[3];
  hc_acc acc[3];
  hc_acc_init(acc, 3, run->cfg.deterministic);
  if (run->cfg.deterministic) {
    /* exactly, on the host (a device's outputs came over in the transfer phase) */
    for (int kid = 0; kid < 3; kid++)
      if (run->cfg.enabled[kid])
        for (int64_t c = 0; c < m->C; c++) hc_acc_add(&acc[kid], hc_get(run->h_out[kid], run->cfg.precision, c));
  } else {
    /* where the outputs are, the enabled kernels' in one call */
    const void *x[3];
    int which[3], n = 0;
    double local[3];
    for (int kid = 0; kid < 3; kid++)
      if (run->cfg.enabled[kid]) which[n] = kid, x[n++] = run->d_out[kid];
    HC_CALL(be->sum(n, x, run->cfg.precision, m->C, local));
    for (int i = 0; i < n; i++) hc_acc_add(&acc[which[i]], local[i]);
  }
  /* the cells' check of the step's cell data (a bad cell is an error before its sums are used) */
  HC_CALL(be->celldata_check(&desc));
  HC_CALL(hc_acc_allreduce(run, acc, 3, sums));
  for (int kid = 0; kid < 3; kid++) run->values.dd_sum[kid] = sums[kid];
  hc_run_range_end(run);
  HC_CALL(hc_run_marks_end(run, &sm, timed));
  if (timed) run->phase_s[HC_PHASE_STEP] += hc_wtime() - t_step;
  hc_run_range_end(run);
  run->t = t;
  return HC_OK;
}

/* The assembled nodal vectors on the host in full: a device keeps them in its memory, and the host arrays hold
   only their shared entries (hc_run_halo_begin). */
static int hc_run_fetch_nodal(hc_run *run) {
  if (!run->device_assembly) return HC_OK;
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
    if (!run->y[kid]) continue;
    HC_CALL(run->be->copy_to_host(run->y[kid], run->d_y[kid], sizeof(double) * (size_t)run->mesh->num_nodes));
  }
  return HC_OK;
}

/* Global sum and 2-norm over nodes (each counted once) of the assembled vectors. */
static int hc_run_nodal_values(hc_run *run) {
  double v[2 * HC_NUM_KERNELS] = {0};
  const hc_mesh *m = run->mesh;
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
    if (!run->y[kid]) continue;
    for (int64_t n = 0; n < m->num_nodes; n++) {
      if (!m->node_owned[n]) continue;
      v[2 * kid] += run->y[kid][n];
      v[2 * kid + 1] += run->y[kid][n] * run->y[kid][n];
    }
  }
  HC_CALL(hc_run_allreduce_sum(run, v, 2 * HC_NUM_KERNELS));
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
    run->values.nodal_sum[kid] = v[2 * kid];
    run->values.nodal_norm[kid] = sqrt(v[2 * kid + 1]);
  }
  return HC_OK;
}

/* Cells per chunk of the VTK output's point geometry (bounds its memory, whatever the rank's cells). */
#define HC_RUN_VTK_CHUNK 1024

/* The VTK output's point data: the assembled nodal vectors, named by their kernels. Returns their number. */
static int hc_run_vtk_points(const hc_run *run, hc_vtk_field points[HC_NUM_KERNELS]) {
  int n = 0;
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++)
    if (run->y[kid]) points[n].name = hc_kernel_name((hc_kernel)kid), points[n++].values = run->y[kid];
  return n;
}

/* This rank's VTK piece of a timed step at the current time: node coordinates of the moved mesh, each cell's
   volume (sum_p w|J|, as hc_celldata_volumes) and min |J| over its quadrature points, and the assembled nodal
   vectors after the halo exchange (shared nodes summed, so every rank writes the same value there). */
static int hc_run_vtk_piece(hc_run *run, int step) {
  const hc_mesh *m = run->mesh;
  const int L = m->nodes_per_cell, P = run->basis->P;
  int ierr = HC_OK;
  double *x = NULL, *volume = NULL, *min_det = NULL;
  hc_point_geom *geom = NULL;
  HC_CALL(hc_calloc((size_t)m->num_nodes * 3, sizeof(double), &x));
  HC_CALL_GOTO(hc_calloc((size_t)m->C, sizeof(double), &volume), cleanup);
  HC_CALL_GOTO(hc_calloc((size_t)m->C, sizeof(double), &min_det), cleanup);
  HC_CALL_GOTO(hc_calloc((size_t)HC_RUN_VTK_CHUNK * (size_t)P, sizeof(*geom), &geom), cleanup);
  HC_CALL_GOTO(hc_run_fetch_nodal(run), cleanup);
  hc_celldata_desc desc;
  hc_run_desc(run, m->vertex_coords, m->C, run->t, &desc);
  HC_CALL_GOTO(hc_celldata_nodes(&desc, run->node_x), cleanup);
  for (int64_t c = 0; c < m->C; c++)
    for (int l = 0; l < L; l++)
      memcpy(x + 3 * m->cell_nodes[c * L + l], run->node_x + 3 * (c * L + l), 3 * sizeof(double));
  for (int64_t c0 = 0; c0 < m->C; c0 += HC_RUN_VTK_CHUNK) {
    const int64_t n = m->C - c0 < HC_RUN_VTK_CHUNK ? m->C - c0 : HC_RUN_VTK_CHUNK;
    hc_run_desc(run, m->vertex_coords, n, run->t, &desc);
    desc.X0 = m->vertex_coords + 3 * desc.geometry_nodes * c0;
    HC_CALL_GOTO(hc_celldata_geometry(&desc, geom), cleanup);
    for (int64_t c = 0; c < n; c++) {
      double sum = 0, lo = HUGE_VAL;
      for (int p = 0; p < P; p++) {
        sum += geom[c * P + p].wdet;
        if (fabs(geom[c * P + p].det) < lo) lo = fabs(geom[c * P + p].det);
      }
      volume[c0 + c] = sum;
      min_det[c0 + c] = lo;
    }
  }
  hc_vtk_field cells[2] = {{"volume", volume}, {"min_detJ", min_det}}, points[HC_NUM_KERNELS];
  hc_vtk_piece piece = {.rank = run->rank,
                        .order = m->order,
                        .C = m->C,
                        .cell_nodes = m->cell_nodes,
                        .num_nodes = m->num_nodes,
                        .x = x,
                        .global_id = m->node_global_id,
                        .num_cell_fields = 2,
                        .cell_fields = cells,
                        .num_point_fields = hc_run_vtk_points(run, points),
                        .point_fields = points,
                        .time = run->t};
  char path[2600];
  HC_CALL_GOTO(hc_vtk_path(&run->cfg.vtk_names, HC_VTK_PIECE, step, run->rank, 1, path, sizeof(path)), cleanup);
  HC_CALL_GOTO(hc_vtk_write_piece(path, &piece), cleanup);
cleanup:
  free(x);
  free(volume);
  free(min_det);
  free(geom);
  return ierr;
}

/* Rank 0, once every piece of step is written: the parallel file that joins them and, for a series, the
   collection of every set written so far with its time (rewritten at each set, so that it is complete at
   any point of the run). */
static int hc_run_vtk_parallel(hc_run *run, int step) {
  const hc_vtk_names *names = &run->cfg.vtk_names;
  int ierr = HC_OK;
  char path[2600], (*files)[1200] = NULL;
  const char **refs = NULL;
  const int n = run->nranks > run->vtk_sets ? run->nranks : run->vtk_sets;
  HC_CALL(hc_calloc((size_t)n, sizeof(*files), &files));
  HC_CALL_GOTO(hc_calloc((size_t)n, sizeof(*refs), &refs), cleanup);
  for (int r = 0; r < run->nranks; r++) {
    HC_CALL_GOTO(hc_vtk_path(names, HC_VTK_PIECE, step, r, 0, files[r], sizeof(files[r])), cleanup);
    refs[r] = files[r];
  }
  hc_vtk_field cells[2] = {{"volume", NULL}, {"min_detJ", NULL}}, points[HC_NUM_KERNELS];
  hc_vtk_piece fields = {.order = run->mesh->order,
                         .global_id = run->mesh->node_global_id,
                         .num_cell_fields = 2,
                         .cell_fields = cells,
                         .num_point_fields = hc_run_vtk_points(run, points),
                         .point_fields = points};
  HC_CALL_GOTO(hc_vtk_path(names, HC_VTK_PARALLEL, step, 0, 1, path, sizeof(path)), cleanup);
  HC_CALL_GOTO(hc_vtk_write_parallel(path, &fields, run->nranks, refs), cleanup);
  if (names->series) {
    for (int i = 0; i < run->vtk_sets; i++) {
      HC_CALL_GOTO(hc_vtk_path(names, HC_VTK_PARALLEL, run->vtk_steps[i], 0, 0, files[i], sizeof(files[i])), cleanup);
      refs[i] = files[i];
    }
    HC_CALL_GOTO(hc_vtk_path(names, HC_VTK_COLLECTION, 0, 0, 1, path, sizeof(path)), cleanup);
    HC_CALL_GOTO(hc_vtk_write_collection(path, run->vtk_sets, run->vtk_times, refs), cleanup);
  }
cleanup:
  free(files);
  free(refs);
  return ierr;
}

/* The VTK set of a timed step (io/hc_vtk.h): every rank's piece, then rank 0's parallel file and collection.
   A rank that cannot write says why; the others name it. Collective. */
static int hc_run_write_vtk(hc_run *run, int step) {
  const double t0 = hc_wtime();
  if (run->rank == 0) {
    int *steps = realloc(run->vtk_steps, sizeof(int) * (size_t)(run->vtk_sets + 1));
    if (steps) run->vtk_steps = steps;
    double *times = realloc(run->vtk_times, sizeof(double) * (size_t)(run->vtk_sets + 1));
    if (times) run->vtk_times = times;
  }
  int err = run->rank == 0 && (!run->vtk_steps || !run->vtk_times)
                ? HC_ERROR(HC_ERR_RESOURCE, "out of host memory for the VTK collection")
                : hc_run_vtk_piece(run, step);
  struct {
    int code, rank;
  } loc = {err, run->rank}, glob;
  HC_CALL_MPI(MPI_Allreduce(&loc, &glob, 1, MPI_2INT, MPI_MAXLOC, run->comm));
  if (glob.code) {
    if (err) return err;
    return HC_ERROR(glob.code, "rank %d could not write its VTK piece of step %d (its message says why)", glob.rank,
                    step);
  }
  if (run->rank == 0) {
    run->vtk_steps[run->vtk_sets] = step;
    run->vtk_times[run->vtk_sets] = run->t;
  }
  run->vtk_sets++;
  err = run->rank == 0 ? hc_run_vtk_parallel(run, step) : HC_OK;
  HC_CALL_MPI(MPI_Bcast(&err, 1, MPI_INT, 0, run->comm));
  if (err && run->rank != 0)
    return HC_ERROR(err, "rank 0 could not write the VTK parallel file of step %d (its message says why)", step);
  HC_CALL(err);
  run->vtk_s += hc_wtime() - t0;
  return HC_OK;
}

int hc_run_execute(MPI_Comm comm, const hc_run_config *cfg, hc_run *run) {
  HC_CALL(hc_run_setup(comm, cfg, run));
  const int total = cfg->warmup + cfg->steps;
  double start = 0, last_progress = hc_wtime();
  for (int s = 0; s < total; s++) {
    const int timed = s >= cfg->warmup;
    if (s == cfg->warmup) {
      HC_CALL_MPI(MPI_Barrier(comm));
      start = hc_wtime();
    }
    HC_CALL(hc_inject_check(run->rank, HC_INJECT_STEP, s + 1));
    HC_CALL(hc_run_step(run, s * cfg->dt, timed, s == total - 1 && cfg->dump_cells > 0));
    if (timed) run->steps_done++;
    int step = s - cfg->warmup + 1; /* 1-based among the timed steps */
    int last = s == total - 1;
    if (cfg->checks && timed && (last || (cfg->check_every > 0 && step % cfg->check_every == 0))) {
      HC_CALL(hc_inject_check(run->rank, HC_INJECT_CHECKS, s + 1));
      HC_CALL(hc_run_checks(run, step));
    }
    if (cfg->vtk && timed && hc_vtk_writes_step(step, cfg->steps, cfg->vtk_every)) HC_CALL(hc_run_write_vtk(run, step));
    /* SIGINT/SIGTERM on any rank: every rank stops here, after the same step. */
    HC_CALL(hc_signal_agree(comm, &run->stopped_by_signal));
    if (run->stopped_by_signal) break;
    if (run->rank == 0 && cfg->progress_s > 0 && hc_wtime() - last_progress >= cfg->progress_s && !last) {
      double el = timed ? hc_wtime() - start : 0;
      printf("hexcontract: step %d/%d (%s), t = %g, %.1f s per step%s\n", timed ? step : s + 1,
             timed ? cfg->steps : cfg->warmup, timed ? "timed" : "warm-up", s * cfg->dt,
             timed && step > 0 ? el / step : 0.0, timed ? "" : "");
      fflush(stdout);
      last_progress = hc_wtime();
    }
  }
  HC_CALL_MPI(MPI_Barrier(comm));
  /* The VTK output is not part of the run's time. */
  run->total_s = run->steps_done > 0 ? hc_wtime() - start - run->vtk_s : 0.0;
  HC_CALL(hc_run_fetch_nodal(run));
  HC_CALL(hc_run_nodal_values(run));
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
    run->chosen[kid] = run->k[kid].variant;
    if (cfg->enabled[kid]) HC_CALL(run->be->chosen_variant(&run->k[kid], &run->chosen[kid]));
  }
  return HC_OK;
}
