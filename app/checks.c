/* The self-checks of the proxy run (app/README.md, section Checks): one function per check, listed in one table. */
#include "app/hc_checks.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/base/hc_mpi.h"
#include "mesh/hc_hex.h"

/* The machine epsilon of a precision. */
static double hc_eps(hc_precision precision) {
  return precision == HC_FLOAT ? (double)FLT_EPSILON : DBL_EPSILON;
}

/* Records a check's outcome on every rank (values are global already). */
static void hc_check_record(hc_run *run, const char *name, const char *what, int step, double value, double expected,
                            double tolerance) {
  hc_check *ch = NULL;
  for (int i = 0; i < run->nchecks; i++)
    if (strcmp(run->checks[i].name, name) == 0) ch = &run->checks[i];
  if (!ch && run->nchecks < HC_MAX_CHECKS) {
    ch = &run->checks[run->nchecks++];
    memset(ch, 0, sizeof(*ch));
    snprintf(ch->name, sizeof(ch->name), "%s", name);
    snprintf(ch->what, sizeof(ch->what), "%s", what);
  }
  if (!ch) return;
  int passed = fabs(value - expected) <= tolerance; /* NaN fails */
  /* Keep the worst evaluation: a failure, else the latest. */
  if (!passed || ch->failures == 0) {
    ch->step = step;
    ch->value = value;
    ch->expected = expected;
    ch->tolerance = tolerance;
    ch->passed = passed;
  }
  ch->evaluations++;
  ch->failures += !passed;
}

/* After a failed check that Gauss quadrature with q points per direction integrates exactly only from
   q_needed on: says so in the check's hint, since the deck's mesh.quadrature is then the likely cause. */
static void hc_check_quadrature(hc_run *run, const char *name, int q_needed, const char *why) {
  const int q = run->basis->q;
  for (int i = 0; i < run->nchecks; i++) {
    hc_check *ch = &run->checks[i];
    if (strcmp(ch->name, name) || !ch->failures || q >= q_needed) continue;
    snprintf(ch->hint, sizeof(ch->hint),
             "mesh.quadrature gives q = %d points per direction, below the %d this check needs at order %d (%s): set "
             "mesh.quadrature to 0 (q = order + 1) or at least %d",
             q, q_needed, run->mesh->order, why, q_needed);
  }
}

/* The tolerance of a sum of n terms of K-term products in the run's precision, relative to scale. */
static double hc_check_tol(const hc_run *run, double K, double n, double scale) {
  return run->cfg.tolerance_factor * 16.0 * hc_eps(run->cfg.precision) * (K + log2(n + 1.0) + 1.0) * scale;
}

/* The worst case over ranks: the rank with the largest ratio broadcasts its two numbers w[0..1]; returns
   that largest ratio in *global_ratio. Collective. */
static int hc_check_worst(const hc_run *run, double ratio, double w[2], double *global_ratio) {
  struct {
    double ratio;
    int rank;
  } loc = {ratio, run->rank}, glob;
  HC_CALL_MPI(MPI_Allreduce(&loc, &glob, 1, MPI_DOUBLE_INT, MPI_MAXLOC, run->comm));
  HC_CALL_MPI(MPI_Bcast(w, 2, MPI_DOUBLE, glob.rank, run->comm));
  if (global_ratio) *global_ratio = glob.ratio;
  return HC_OK;
}

/* Whether the cells are not parallelepipeds, so that det J has degree 2 on them. */
static int hc_check_deformed(const hc_run *run) {
  return run->cfg.mesh.jitter > 0 || run->cfg.shear_amplitude > 0 || run->mesh->source == HC_MESH_SOURCE_FILE;
}

/* The volume the cells hold at time t, found apart from the cell data: the box's LX LY LZ, which the shear keeps
   (mesh/README.md), or on a file mesh the sum of every cell's exact volume (mesh/hc_hex.h) with its geometry nodes
   moved to time t. Collective. */
static int hc_check_expected_volume(hc_run *run, double t, double *volume) {
  const hc_mesh *m = run->mesh;
  if (m->source == HC_MESH_SOURCE_BOX) {
    *volume = m->length[0] * m->length[1] * m->length[2];
    return HC_OK;
  }
  const int G = m->geometry_nodes;
  hc_celldata_desc desc;
  hc_run_desc(run, m->vertex_coords, m->C, t, &desc);
  hc_acc acc;
  hc_acc_init(&acc, 1, 1);
  double x[27 * 3];
  for (int64_t c = 0; c < m->C; c++) {
    for (int g = 0; g < G; g++) hc_motion_apply(&desc.motion, t, m->vertex_coords + 3 * (c * G + g), x + 3 * g);
    hc_acc_add(&acc, hc_hex_volume(G, x));
  }
  return hc_acc_allreduce(run, &acc, 1, volume);
}

/* What the volume checks compare with, in words. */
static const char *hc_check_volume_name(const hc_run *run) {
  return run->mesh->source == HC_MESH_SOURCE_BOX ? "LX*LY*LZ" : "the cells' exact volumes at this step";
}

/* Volume: kernel (DataDataScalar) with f = g = 1 sums to the mesh's volume. */
static int hc_check_volume(hc_run *run, const char *name, hc_kernel kernel, int step) {
  const hc_mesh *m = run->mesh;
  const hc_backend *be = run->be;
  const hc_precision prec = run->cfg.precision;
  const size_t s = hc_precision_size(prec);
  int ierr = HC_OK;
  hc_celldata_desc desc;
  hc_run_desc(run, run->d_X0, m->C, run->t, &desc);
  desc.data.mode = HC_DATA_CONSTANT;
  hc_contract k = run->k[kernel];
  k.variant = HC_VARIANT_AUTO;
  HC_CALL(hc_run_compute(run, &desc, &k, run->d_scratch));
  double *h = malloc(s * (size_t)m->C);
  HC_CHECK(h, HC_ERR_RESOURCE, "out of host memory");
  HC_CALL_GOTO(be->copy_to_host(h, run->d_scratch, s * (size_t)m->C), cleanup);
  double v[2];
  hc_acc acc[2];
  hc_acc_init(acc, 2, 1);
  for (int64_t c = 0; c < m->C; c++) {
    hc_acc_add(&acc[0], hc_get(h, prec, c));
    hc_acc_add(&acc[1], fabs(hc_get(h, prec, c)));
  }
  HC_CALL_GOTO(hc_acc_allreduce(run, acc, 2, v), cleanup);
  double expected;
  HC_CALL_GOTO(hc_check_expected_volume(run, run->t, &expected), cleanup);
  char what[128];
  snprintf(what, sizeof(what), "global sum of DataDataScalar with f = g = 1 against %s", hc_check_volume_name(run));
  hc_check_record(run, name, what, step, v[0], expected,
                  hc_check_tol(run, run->basis->P, (double)m->num_global_cells, v[1]));
  hc_check_quadrature(run, name, hc_check_deformed(run) ? 2 : 1, "det J of a deformed trilinear cell has degree 2");
cleanup:
  free(h);
  return ierr;
}

/* Mass sum: all entries of the mass matrices (kernel, FieldFieldScalar) sum to LX*LY*LZ. */
static int hc_check_mass_sum(hc_run *run, const char *name, hc_kernel kernel, int step) {
  const hc_mesh *m = run->mesh;
  const hc_precision prec = run->cfg.precision;
  const int L = m->nodes_per_cell;
  double v[2];
  hc_acc acc[2];
  hc_acc_init(acc, 2, 1);
  int64_t n = hc_contract_numel(&run->k[kernel], HC_ARRAY_OUT);
  for (int64_t i = 0; i < n; i++) {
    double a = hc_get(run->h_out[kernel], prec, i);
    hc_acc_add(&acc[0], a);
    hc_acc_add(&acc[1], fabs(a));
  }
  HC_CALL(hc_acc_allreduce(run, acc, 2, v));
  double expected;
  HC_CALL(hc_check_expected_volume(run, run->t, &expected));
  char what[128];
  snprintf(what, sizeof(what), "sum of all mass-matrix entries against %s", hc_check_volume_name(run));
  hc_check_record(run, name, what, step, v[0], expected,
                  hc_check_tol(run, run->basis->P, (double)m->num_global_cells * L * L, v[1]));
  hc_check_quadrature(run, name, hc_check_deformed(run) ? 2 : 1, "det J of a deformed trilinear cell has degree 2");
  return HC_OK;
}

/* Zero row sums of the step's outputs of kernel: over r for FieldFieldVector/Tensor, over l for
   DataFieldVector/Tensor. */
static int hc_check_zero_row_sum(hc_run *run, const char *name, hc_kernel kernel, int step) {
  const hc_mesh *m = run->mesh;
  const hc_precision prec = run->cfg.precision;
  const int L = m->nodes_per_cell;
  const hc_contract *k = &run->k[kernel];
  const int ff = hc_kernel_family(kernel) == HC_FAMILY_FIELDFIELD;
  const int64_t rows = ff ? (int64_t)L : 1, len = L, inner = ff ? (int64_t)L * L : L;
  double worst[2] = {0, 0}; /* largest |row sum| / tolerance scale, and that row's numbers */
  double worst_ratio = -1;  /* any row, even an exact one, records its numbers */
  for (int64_t c = 0; c < m->C; c++) {
    for (int64_t row = 0; row < rows; row++) {
      double sum = 0, abs_sum = 0;
      for (int64_t j = 0; j < len; j++) {
        int64_t q = row * len + j;
        int64_t i = k->layout == HC_LAYOUT_CELL_MAJOR ? c * inner + q : q * k->C + c;
        double a = hc_get(run->h_out[kernel], prec, i);
        sum += a, abs_sum += fabs(a);
      }
      double ratio = fabs(sum) / (abs_sum + DBL_MIN);
      if (!(ratio <= worst_ratio)) worst_ratio = ratio, worst[0] = sum, worst[1] = abs_sum;
    }
  }
  HC_CALL(hc_check_worst(run, worst_ratio, worst, NULL));
  char what[128];
  snprintf(what, sizeof(what), "largest |sum over %s| of %s, against 0", ff ? "r of out[c,l,r]" : "l of out[c,l]",
           hc_kernel_name(kernel));
  /* The row sum cancels to 0: its error scales with the row's entries, times the sum's length. */
  hc_check_record(run, name, what, step, worst[0], 0.0,
                  4.0 * hc_check_tol(run, (double)hc_contract_K(k) + len, 1, worst[1]));
  return HC_OK;
}

/* The undeformed, unjittered vertices of this rank's cells, [C][8][3] double, in a new backend array *d_X0
   that the caller releases (also on failure, when not NULL). */
static int hc_check_flat_vertices(const hc_run *run, void **d_X0) {
  const hc_mesh *m = run->mesh;
  const size_t bytes = sizeof(double) * 24 * (size_t)m->C;
  int ierr = HC_OK;
  *d_X0 = NULL;
  double *X0 = malloc(bytes);
  HC_CHECK(X0, HC_ERR_RESOURCE, "out of host memory");
  for (int64_t c = 0; c < m->C; c++)
    for (int v = 0; v < 8; v++) {
      int off[3] = {v & 1, (v >> 1) & 1, (v >> 2) & 1};
      for (int d = 0; d < 3; d++)
        X0[24 * c + 3 * v + d] = (double)(m->cell_index[3 * c + d] + off[d]) * m->cell_size[d];
    }
  HC_CALL_GOTO(run->be->mem_alloc(bytes, d_X0), cleanup);
  HC_CALL_GOTO(run->be->copy_to_device(*d_X0, X0, bytes), cleanup);
cleanup:
  free(X0);
  return ierr;
}

/* Whether every cell of a file mesh is a parallelepiped (then its map is affine). Collective. */
static int hc_check_all_affine(const hc_run *run, int *affine) {
  const hc_mesh *m = run->mesh;
  int local = 1;
  for (int64_t c = 0; c < m->C && local; c++)
    local = hc_hex_is_affine(m->geometry_nodes, m->vertex_coords + 3 * m->geometry_nodes * c, 1e-12);
  HC_CALL_MPI(MPI_Allreduce(&local, affine, 1, MPI_INT, MPI_MIN, run->comm));
  return HC_OK;
}

/* Exactness: on cells whose map is affine the load vector (kernel, DataFieldScalar) of a polynomial f that
   Gauss quadrature of q points integrates exactly sums to its integral. On the box: the undeformed,
   unjittered cells and f of degree 2q-1 in x, 2q-2 in y and 1 in z, against the analytic integral. On a file
   mesh whose cells are all parallelepipeds: its own cells and f = (x/LX)^(2q-1) (of degree 2q-1 in every
   reference direction), against each cell's integral by a rule of q + 1 points (mesh/hc_hex.h); on other file
   meshes the check does not run. */
static int hc_check_exactness(hc_run *run, const char *name, hc_kernel kernel, int step) {
  const hc_mesh *m = run->mesh;
  const hc_backend *be = run->be;
  const hc_precision prec = run->cfg.precision;
  const size_t s = hc_precision_size(prec);
  const int L = m->nodes_per_cell, q = run->basis->q, box = m->source == HC_MESH_SOURCE_BOX;
  const int deg[3] = {2 * q - 1, box ? 2 * q - 2 : 0, box ? 1 : 0};
  int ierr = HC_OK;
  void *d_X0flat = NULL, *h = NULL;
  if (box) {
    HC_CALL_GOTO(hc_check_flat_vertices(run, &d_X0flat), cleanup);
  } else {
    int affine = 0;
    HC_CALL(hc_check_all_affine(run, &affine));
    if (!affine) return HC_OK;
  }
  hc_contract k = run->k[kernel];
  k.variant = HC_VARIANT_AUTO;
  hc_celldata_desc pd;
  hc_run_desc(run, box ? d_X0flat : run->d_X0, m->C, 0.0, &pd);
  if (box) pd.geometry_nodes = 8; /* the flat vertices: trilinear cells */
  pd.motion.A = 0.0;
  pd.data.mode = HC_DATA_POLYNOMIAL;
  for (int d = 0; d < 3; d++) pd.data.degree[d] = deg[d];
  HC_CALL_GOTO(hc_run_compute(run, &pd, &k, run->d_scratch), cleanup);
  HC_CALL_GOTO(hc_calloc((size_t)(m->C * L), s, &h), cleanup);
  HC_CALL_GOTO(be->copy_to_host(h, run->d_scratch, s * (size_t)(m->C * L)), cleanup);
  double v[3];
  hc_acc acc[3];
  hc_acc_init(acc, 3, 1);
  for (int64_t i = 0; i < m->C * L; i++) {
    hc_acc_add(&acc[0], hc_get(h, prec, i));
    hc_acc_add(&acc[1], fabs(hc_get(h, prec, i)));
  }
  for (int64_t c = 0; !box && c < m->C; c++)
    hc_acc_add(&acc[2], hc_hex_integrate_power(m->geometry_nodes, m->vertex_coords + 3 * m->geometry_nodes * c, deg[0],
                                               m->length[0], q + 1));
  HC_CALL_GOTO(hc_acc_allreduce(run, acc, 3, v), cleanup);
  double exact = v[2];
  if (box) {
    exact = 1.0;
    for (int d = 0; d < 3; d++) exact *= m->length[d] / (deg[d] + 1);
  }
  char what[160];
  if (box) {
    snprintf(what, sizeof(what),
             "load vector of f = (x/LX)^%d (y/LY)^%d (z/LZ)^%d on the undeformed mesh against its integral", deg[0],
             deg[1], deg[2]);
  } else {
    snprintf(what, sizeof(what),
             "load vector of f = (x/LX)^%d on the mesh's parallelepipeds against its integral (q + 1 points)", deg[0]);
  }
  hc_check_record(run, name, what, step, v[0], exact,
                  hc_check_tol(run, run->basis->P, (double)m->num_global_cells * L, v[1]));
cleanup:
  free(h);
  if (d_X0flat) be->mem_free(d_X0flat);
  return ierr;
}

/* The table that assembles host arrays for a check: the run's backend when it computes on the host (so that
   --backend serial assembles on one core), else the first built host backend on OpenMP's threads, else the
   serial reference. */
static int hc_check_host_backend(const hc_run *run, const hc_backend **hb) {
  if (!run->be->is_device) {
    *hb = run->be;
    return HC_OK;
  }
  for (int id = 0; id < HC_NUM_BACKENDS; id++) {
    const hc_backend *b = NULL;
    if (hc_backend_get((hc_backend_id)id, &b) == HC_OK && !b->is_device && b->openmp_threads) {
      *hb = b;
      return HC_OK;
    }
    hc_error_clear(); /* not built */
  }
  return hc_backend_get(HC_BACKEND_SERIAL, hb);
}

/* Linear patch test: the assembled stiffness apply (kernel, FieldFieldVector) of a linear u is zero at
   interior nodes. */
static int hc_check_patch_test(hc_run *run, const char *name, hc_kernel kernel, int step) {
  const hc_mesh *m = run->mesh;
  const int L = m->nodes_per_cell;
  const hc_contract *k = &run->k[kernel];
  const hc_backend *hb = NULL;
  int ierr = HC_OK;
  if (run->device_assembly) HC_CALL(hc_run_interpolate_u(run, run->t)); /* the step may have kept u on the device */
  HC_CALL(hc_check_host_backend(run, &hb));
  double *y = NULL, *ya = NULL;
  HC_CALL(hc_calloc((size_t)m->num_nodes, sizeof(double), &y));
  HC_CALL_GOTO(hc_calloc((size_t)m->num_nodes, sizeof(double), &ya), cleanup);
  HC_CALL_GOTO(hb->assemble_apply(k, run->coloring, run->h_out[kernel], m->cell_nodes, run->u, y, ya), cleanup);
  HC_CALL_GOTO(hc_halo_exchange(run->halo, HC_DOUBLE, y), cleanup);
  HC_CALL_GOTO(hc_halo_exchange(run->halo, HC_DOUBLE, ya), cleanup);
  double worst = 0, worst_scale = 0, worst_ratio = -1;
  for (int64_t n = 0; n < m->num_nodes; n++) {
    if (m->node_boundary[n]) continue; /* interior nodes: on no face of the mesh's boundary */
    double ratio = fabs(y[n]) / (ya[n] + DBL_MIN);
    if (ratio > worst_ratio) worst_ratio = ratio, worst = y[n], worst_scale = ya[n];
  }
  double w[2] = {worst, worst_scale}, global_ratio;
  HC_CALL_GOTO(hc_check_worst(run, worst_ratio, w, &global_ratio), cleanup);
  if (global_ratio >= 0) {
    hc_check_record(run, name, "largest |(K u)_n| at interior nodes for a linear u, against 0", step, w[0], 0.0,
                    4.0 * hc_check_tol(run, (double)hc_contract_K(k) + 8.0 * L, 1, w[1]));
    /* grad phi_l . adj(J) c has degree p + 1 per direction on a trilinear cell: 2q - 1 >= p + 1. */
    hc_check_quadrature(run, name, (m->order + 3) / 2, "grad phi w|J| of a trilinear cell has degree order + 1");
  }
cleanup:
  free(y);
  free(ya);
  return ierr;
}

/* The worst entry of device_vs_host so far: its error over its tolerance, and those two numbers. */
typedef struct {
  double ratio, err, tol;
} hc_check_sample_worst;

/* device_vs_host for one kernel: S cells of this rank, evenly spread, recomputed by the serial reference
   and compared entry by entry with the backend's outputs; updates *worst. */
static int hc_check_samples(const hc_run *run, const hc_backend *serial, hc_kernel kernel, int64_t S,
                            hc_check_sample_worst *worst) {
  const hc_mesh *m = run->mesh;
  const hc_precision prec = run->cfg.precision;
  const size_t s = hc_precision_size(prec);
  const hc_contract *k = &run->k[kernel];
  hc_contract k1 = *k;
  k1.C = 1;
  k1.layout = HC_LAYOUT_CELL_MAJOR;
  k1.variant = HC_VARIANT_AUTO;
  k1.sum_into = 0;
  const int64_t nl = hc_contract_numel(&k1, HC_ARRAY_LEFT), nr = hc_contract_numel(&k1, HC_ARRAY_RIGHT);
  const int64_t no = hc_contract_numel(&k1, HC_ARRAY_OUT);
  int ierr = HC_OK;
  void *left = NULL, *right = NULL, *out = NULL, *out_abs = NULL;
  HC_CALL_GOTO(hc_calloc((size_t)(nl + nr), s, &left), cleanup);
  HC_CALL_GOTO(hc_calloc((size_t)no, s, &out), cleanup);
  HC_CALL_GOTO(hc_calloc((size_t)no, s, &out_abs), cleanup);
  right = (char *)left + s * (size_t)nl;
  for (int64_t i = 0; i < S; i++) {
    int64_t c = (i * m->C) / S;
    hc_celldata_desc d1;
    hc_run_desc(run, m->vertex_coords, 1, run->t, &d1);
    d1.X0 = m->vertex_coords + 3 * d1.geometry_nodes * c;
    d1.layout = HC_LAYOUT_CELL_MAJOR;
    HC_CALL_GOTO(hc_celldata_fill(serial, &d1, kernel, left, right), cleanup);
    HC_CALL_GOTO(hc_contract_apply(serial, &k1, left, right, out), cleanup);
    /* The scale of the tolerance: the same contraction of |left| and |right|. */
    for (int64_t j = 0; j < nl + nr; j++) {
      if (prec == HC_FLOAT) {
        ((float *)left)[j] = fabsf(((float *)left)[j]);
      } else {
        ((double *)left)[j] = fabs(((double *)left)[j]);
      }
    }
    HC_CALL_GOTO(hc_contract_apply(serial, &k1, left, right, out_abs), cleanup);
    for (int64_t e = 0; e < no; e++) {
      int64_t idx = k->layout == HC_LAYOUT_CELL_MAJOR ? c * no + e : e * k->C + c;
      double got = hc_get(run->h_out[kernel], prec, idx), want = hc_get(out, prec, e);
      double tol = run->cfg.tolerance_factor * 4.0 * ((double)hc_contract_K(k) + 2.0) * hc_eps(prec) *
                       (hc_get(out_abs, prec, e) + fabs(want)) +
                   DBL_MIN;
      double ratio = fabs(got - want) / tol;
      if (!(ratio <= worst->ratio)) worst->ratio = ratio, worst->err = fabs(got - want), worst->tol = tol;
    }
  }
cleanup:
  free(left);
  free(out);
  free(out_abs);
  return ierr;
}

/* Device against host: sampled cells of every enabled kernel recomputed by the serial reference. */
static int hc_check_device_vs_host(hc_run *run, const char *name, hc_kernel kernel, int step) {
  const hc_mesh *m = run->mesh;
  const hc_backend *serial;
  HC_CALL(hc_backend_get(HC_BACKEND_SERIAL, &serial));
  const int64_t S = run->cfg.check_samples < m->C ? run->cfg.check_samples : m->C;
  hc_check_sample_worst worst = {.ratio = -1}; /* any entry records its numbers */
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++)
    if (run->cfg.enabled[kid]) HC_CALL(hc_check_samples(run, serial, (hc_kernel)kid, S, &worst));
  double w[2] = {worst.err, worst.tol};
  HC_CALL(hc_check_worst(run, worst.ratio, w, NULL));
  char what[160];
  snprintf(what, sizeof(what), "largest |backend - serial reference| over %lld sampled cells per rank%s", (long long)S,
           run->be == serial ? " (the backend is serial: serial against serial)" : "");
  hc_check_record(run, name, what, step, w[0], 0.0, w[1]);
  return HC_OK;
}

/* When a check of the table runs. */
typedef enum {
  HC_WHEN_ALWAYS,     /* on every run */
  HC_WHEN_ENABLED,    /* when its kernel is enabled */
  HC_WHEN_PER_KERNEL, /* when its kernel is enabled, named NAME:KERNEL: one entry per kernel it applies to */
  HC_WHEN_SAMPLED,    /* when checks.samples > 0 */
} hc_check_when;

/* Every check has this signature: it evaluates the check called name on the run's state after timed step
   `step` and records the outcome (hc_check_record); kernel is the one its table entry names. Collective. */
typedef int (*hc_check_fn)(hc_run *run, const char *name, hc_kernel kernel, int step);

typedef struct {
  const char *name;   /* in the summary and the results file */
  hc_check_when when; /* whether it runs */
  hc_kernel kernel;   /* the kernel it checks or computes with, passed to fn */
  hc_check_fn fn;
} hc_check_entry;

/* Every check, in the order they run and are reported (app/README.md, section Checks). */
static const hc_check_entry hc_check_table[] = {
    {"volume", HC_WHEN_ALWAYS, HC_DATADATA_SCALAR, hc_check_volume},
    {"mass_sum", HC_WHEN_ENABLED, HC_FIELDFIELD_SCALAR, hc_check_mass_sum},
    {"zero_row_sum", HC_WHEN_PER_KERNEL, HC_FIELDFIELD_VECTOR, hc_check_zero_row_sum},
    {"zero_row_sum", HC_WHEN_PER_KERNEL, HC_FIELDFIELD_TENSOR, hc_check_zero_row_sum},
    {"zero_row_sum", HC_WHEN_PER_KERNEL, HC_DATAFIELD_VECTOR, hc_check_zero_row_sum},
    {"zero_row_sum", HC_WHEN_PER_KERNEL, HC_DATAFIELD_TENSOR, hc_check_zero_row_sum},
    {"exactness", HC_WHEN_ALWAYS, HC_DATAFIELD_SCALAR, hc_check_exactness},
    {"patch_test", HC_WHEN_ENABLED, HC_FIELDFIELD_VECTOR, hc_check_patch_test},
    {"device_vs_host", HC_WHEN_SAMPLED, HC_NUM_KERNELS, hc_check_device_vs_host}, /* every enabled kernel */
};

#define HC_NUM_CHECK_ENTRIES ((int)(sizeof(hc_check_table) / sizeof(hc_check_table[0])))
_Static_assert(HC_NUM_CHECK_ENTRIES <= HC_MAX_CHECKS, "hc_run.checks must hold every check of the table");

static int hc_check_applies(const hc_run *run, const hc_check_entry *e) {
  switch (e->when) {
    case HC_WHEN_ALWAYS:
      return 1;
    case HC_WHEN_ENABLED:
    case HC_WHEN_PER_KERNEL:
      return run->cfg.enabled[e->kernel];
    case HC_WHEN_SAMPLED:
      return run->cfg.check_samples > 0;
  }
  return 0;
}

/* The element outputs that stayed on the device come over for the checks (not timed). */
static int hc_check_fetch_outputs(hc_run *run) {
  if (!run->device_assembly) return HC_OK;
  const size_t s = hc_precision_size(run->cfg.precision);
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
    if (!run->cfg.enabled[kid]) continue;
    size_t bytes = s * (size_t)hc_contract_numel(&run->k[kid], HC_ARRAY_OUT);
    HC_CALL(run->be->copy_to_host(run->h_out[kid], run->d_out[kid], bytes));
  }
  return HC_OK;
}

int hc_run_checks(hc_run *run, int step) {
  HC_CALL(hc_check_fetch_outputs(run));
  for (int i = 0; i < HC_NUM_CHECK_ENTRIES; i++) {
    const hc_check_entry *e = &hc_check_table[i];
    if (!hc_check_applies(run, e)) continue;
    char name[sizeof(run->checks[0].name)];
    if (e->when == HC_WHEN_PER_KERNEL) {
      snprintf(name, sizeof(name), "%s:%s", e->name, hc_kernel_name(e->kernel));
    } else {
      snprintf(name, sizeof(name), "%s", e->name);
    }
    HC_CALL(e->fn(run, name, e->kernel, step));
  }
  return HC_OK;
}
