/* MPI tests of the mesh: cell ownership, node ownership, jitter and the summing halo exchange on any rank count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>
#include <mpi.h>

#include "mesh/hc_halo.h"
#include "mesh/hc_mesh.h"
#include "kernels/base/hc_mpi.h"

#include "tests/hc_test_mpi.h"

/* Creates a mesh and asserts that every rank got one. */
static hc_mesh *make_mesh(hc_sizing sizing, int64_t nx, int64_t ny, int64_t nz, int order, double jitter) {
  hc_mesh_params p;
  hc_mesh_params_init(&p);
  p.sizing = sizing;
  p.cells[0] = nx;
  p.cells[1] = ny;
  p.cells[2] = nz;
  p.length[0] = 2.0;
  p.length[1] = 1.5;
  p.length[2] = 0.75;
  p.order = order;
  p.jitter = jitter;
  p.seed = 12345;
  hc_mesh *mesh = NULL;
  int err = hc_mesh_create(MPI_COMM_WORLD, &p, &mesh);
  EXPECT(err == HC_OK, "hc_mesh_create: %s", hc_error_message());
  assert_all_ranks_ok();
  return mesh;
}

static void check_ownership(hc_sizing sizing, int order) {
  /* 13 x 7 x 5 global cells fit every rank count up to 13; per-rank blocks of 3 x 2 x 2 cells. */
  hc_mesh *m =
      sizing == HC_SIZING_GLOBAL ? make_mesh(sizing, 13, 7, 5, order, 0.1) : make_mesh(sizing, 3, 2, 2, order, 0.1);
  const int64_t *N = m->global_cells;
  if (sizing == HC_SIZING_PER_RANK) {
    for (int d = 0; d < 3; d++) {
      EXPECT(m->local_cells[d] == m->params.cells[d], "per-rank block %lld", (long long)m->local_cells[d]);
      EXPECT(N[d] == m->params.cells[d] * m->rank_grid[d], "global cells %lld", (long long)N[d]);
      EXPECT(fabs(m->cell_size[d] - m->params.length[d] / (double)m->params.cells[d]) < 1e-14, "cell size %g",
             m->cell_size[d]);
    }
  }
  EXPECT(m->rank_grid[0] * m->rank_grid[1] * m->rank_grid[2] == nranks_, "grid");
  EXPECT(m->C >= 1, "empty rank");

  /* Cells: each global cell counted once over all ranks. */
  int *cells = calloc((size_t)m->num_global_cells, sizeof(int)),
      *sum = calloc((size_t)m->num_global_cells, sizeof(int));
  for (int64_t c = 0; c < m->C; c++) {
    const int64_t *g = &m->cell_index[3 * c];
    int inside = 1;
    for (int d = 0; d < 3; d++) inside &= g[d] >= m->cell_begin[d] && g[d] < m->cell_begin[d] + m->local_cells[d];
    EXPECT(inside, "cell %lld outside its block", (long long)c);
    if (inside) cells[g[0] + N[0] * (g[1] + N[1] * g[2])]++;
  }
  MPI_Allreduce(cells, sum, (int)m->num_global_cells, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int64_t i = 0; i < m->num_global_cells; i++)
    EXPECT(sum[i] == 1, "cell %lld owned %d times", (long long)i, sum[i]);
  free(cells);
  free(sum);

  /* Balance: the spread of per-rank cells stays within prod(ceil) - prod(floor) of the chosen grid. */
  int64_t cmin = 0, cmax = 0, hi = 1, lo = 1;
  MPI_Allreduce(&m->C, &cmin, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&m->C, &cmax, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  for (int d = 0; d < 3; d++) {
    hi *= (N[d] + m->rank_grid[d] - 1) / m->rank_grid[d];
    lo *= N[d] / m->rank_grid[d];
  }
  EXPECT(cmin >= 1 && cmax - cmin <= hi - lo, "cells per rank %lld..%lld, bound %lld", (long long)cmin, (long long)cmax,
         (long long)(hi - lo));

  /* Nodes: every global node owned by exactly one rank, the lowest one touching it; cell maps in range
     and consistent with the global numbering. */
  int *owned = calloc((size_t)m->num_global_nodes, sizeof(int)),
      *touch = calloc((size_t)m->num_global_nodes, sizeof(int));
  int *osum = calloc((size_t)m->num_global_nodes, sizeof(int)),
      *tmin = calloc((size_t)m->num_global_nodes, sizeof(int));
  for (int64_t n = 0; n < m->num_nodes; n++) {
    owned[m->node_global_id[n]] += m->node_owned[n] ? rank_ + 1 : 0;
    touch[m->node_global_id[n]] = rank_ + 1;
  }
  for (int64_t n = 0; n < m->num_global_nodes; n++) {
    if (!touch[n]) touch[n] = nranks_ + 1;
  }
  MPI_Allreduce(owned, osum, (int)m->num_global_nodes, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(touch, tmin, (int)m->num_global_nodes, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  for (int64_t n = 0; n < m->num_global_nodes; n++) {
    EXPECT(osum[n] == tmin[n], "node %lld: owner sum %d, lowest toucher %d", (long long)n, osum[n], tmin[n] - 1);
  }
  int64_t nowned = 0;
  MPI_Allreduce(&m->num_owned_nodes, &nowned, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT(nowned == m->num_global_nodes, "owned nodes %lld of %lld", (long long)nowned, (long long)m->num_global_nodes);
  const int p = m->order, P1 = p + 1;
  for (int64_t c = 0; c < m->C; c++) {
    for (int l = 0; l < m->nodes_per_cell; l++) {
      int32_t n = m->cell_nodes[c * m->nodes_per_cell + l];
      EXPECT(n >= 0 && n < m->num_nodes, "cell %lld node %d = %d", (long long)c, l, n);
      if (n < 0 || n >= m->num_nodes) continue;
      int64_t ijk[3], want[3] = {l % P1, (l / P1) % P1, l / (P1 * P1)};
      hc_mesh_node_global_index(m, m->node_global_id[n], ijk);
      for (int d = 0; d < 3; d++) {
        EXPECT(ijk[d] == p * m->cell_index[3 * c + d] + want[d], "cell %lld node %d dir %d", (long long)c, l, d);
      }
    }
  }
  free(owned);
  free(touch);
  free(osum);
  free(tmin);
  assert_all_ranks_ok();
  assert_int_equal(hc_mesh_destroy(&m), HC_OK);
  assert_null(m);
}

static void test_ownership_global(void **state) {
  (void)state;
  check_ownership(HC_SIZING_GLOBAL, 1);
  check_ownership(HC_SIZING_GLOBAL, 2);
}

static void test_ownership_per_rank(void **state) {
  (void)state;
  check_ownership(HC_SIZING_PER_RANK, 1);
  check_ownership(HC_SIZING_PER_RANK, 3);
}

/* det of the trilinear Jacobian of cell x ([8][3]) at reference point (s,t,u) in [0,1]^3. */
static double trilinear_det(const double *x, double s, double t, double u) {
  double J[3][3] = {{0}};
  for (int v = 0; v < 8; v++) {
    int a = v & 1, b = (v >> 1) & 1, c = (v >> 2) & 1;
    double fs = a ? s : 1 - s, ft = b ? t : 1 - t, fu = c ? u : 1 - u;
    double ds = a ? 1 : -1, dt = b ? 1 : -1, du = c ? 1 : -1;
    for (int d = 0; d < 3; d++) {
      J[d][0] += x[3 * v + d] * ds * ft * fu;
      J[d][1] += x[3 * v + d] * fs * dt * fu;
      J[d][2] += x[3 * v + d] * fs * ft * du;
    }
  }
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

static void test_jitter(void **state) {
  (void)state;
  const double amp = nextafter(HC_MESH_JITTER_MAX, 0);
  hc_mesh *m = make_mesh(HC_SIZING_GLOBAL, 12, 6, 5, 2, amp);
  const int64_t N[3] = {m->global_cells[0], m->global_cells[1], m->global_cells[2]};
  const int64_t nv = (N[0] + 1) * (N[1] + 1) * (N[2] + 1);
  double *lo = malloc((size_t)nv * 3 * sizeof(double)), *hi = malloc((size_t)nv * 3 * sizeof(double));
  double *glo = malloc((size_t)nv * 3 * sizeof(double)), *ghi = malloc((size_t)nv * 3 * sizeof(double));
  for (int64_t i = 0; i < 3 * nv; i++) {
    lo[i] = INFINITY;
    hi[i] = -INFINITY;
  }
  double volume = 0, moved = 0;
  const double g0 = 0.5 - 0.5 / sqrt(3.0), g1 = 0.5 + 0.5 / sqrt(3.0);
  for (int64_t c = 0; c < m->C; c++) {
    const double *x = &m->vertex_coords[24 * c];
    for (int v = 0; v < 8; v++) {
      int64_t I[3] = {m->cell_index[3 * c] + (v & 1), m->cell_index[3 * c + 1] + ((v >> 1) & 1),
                      m->cell_index[3 * c + 2] + ((v >> 2) & 1)};
      int64_t id = I[0] + (N[0] + 1) * (I[1] + (N[1] + 1) * I[2]);
      int boundary = 0;
      double ref[3];
      EXPECT(hc_mesh_vertex_reference(m, I[0], I[1], I[2], ref) == HC_OK, "vertex_reference");
      EXPECT(!memcmp(ref, &x[3 * v], sizeof(ref)), "vertex_reference differs from vertex_coords");
      for (int d = 0; d < 3; d++) {
        double grid = m->length[d] * ((double)I[d] / (double)N[d]);
        double dev = fabs(x[3 * v + d] - grid);
        if (I[d] == 0 || I[d] == N[d]) boundary = 1;
        EXPECT(dev <= amp * m->cell_size[d] * (1 + 1e-12), "vertex moved %g > %g", dev, amp * m->cell_size[d]);
        moved = dev > moved ? dev : moved;
        lo[3 * id + d] = fmin(lo[3 * id + d], x[3 * v + d]);
        hi[3 * id + d] = fmax(hi[3 * id + d], x[3 * v + d]);
      }
      if (boundary) {
        for (int d = 0; d < 3; d++) {
          EXPECT(x[3 * v + d] == m->length[d] * ((double)I[d] / (double)N[d]), "boundary vertex moved");
        }
      }
      /* Corner Jacobian of the trilinear map. */
      EXPECT(trilinear_det(x, v & 1, (v >> 1) & 1, (v >> 2) & 1) > 0, "cell %lld inverted at corner %d", (long long)c,
             v);
    }
    /* 2-point Gauss is exact for det J of a trilinear cell. */
    for (int q = 0; q < 8; q++) {
      volume += trilinear_det(x, q & 1 ? g1 : g0, (q >> 1) & 1 ? g1 : g0, (q >> 2) & 1 ? g1 : g0) / 8;
    }
  }
  EXPECT(moved > 0.5 * amp * m->cell_size[2], "jitter barely moved anything: %g", moved);
  /* A vertex seen by several ranks: the min and max over ranks agree bitwise. */
  MPI_Allreduce(lo, glo, (int)(3 * nv), MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(hi, ghi, (int)(3 * nv), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  for (int64_t i = 0; i < 3 * nv; i++) {
    EXPECT(glo[i] == ghi[i] && !memcmp(&glo[i], &ghi[i], sizeof(double)), "vertex %lld differs over ranks",
           (long long)(i / 3));
  }
  double total = 0;
  MPI_Allreduce(&volume, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double exact = m->length[0] * m->length[1] * m->length[2];
  EXPECT(fabs(total - exact) < 1e-12 * exact, "volume %.17g, box %.17g", total, exact);
  free(lo);
  free(hi);
  free(glo);
  free(ghi);
  assert_all_ranks_ok();
  hc_mesh_destroy(&m);

  /* Without jitter the vertices sit exactly on the grid. */
  m = make_mesh(HC_SIZING_GLOBAL, 12, 6, 5, 1, 0.0);
  for (int64_t c = 0; c < m->C; c++) {
    for (int v = 0; v < 8; v++) {
      for (int d = 0; d < 3; d++) {
        int64_t I = m->cell_index[3 * c + d] + ((v >> d) & 1);
        EXPECT(m->vertex_coords[24 * c + 3 * v + d] == m->length[d] * ((double)I / (double)N[d]), "unjittered");
      }
    }
  }
  assert_all_ranks_ok();
  hc_mesh_destroy(&m);
}

/* Cells touching node gi along one direction of G nodes, order p: 2 at an inner vertex plane, else 1. */
static int touching(int64_t gi, int64_t G, int p) {
  return (gi % p == 0 && gi > 0 && gi < G - 1) ? 2 : 1;
}

static void check_halo(int order, hc_precision precision) {
  /* 12^3 cells: 2 x 2 x 1 ranks on 4 (edge neighbours), 3 x 2 x 1 on 6, 2 x 2 x 2 on 8 (corners). */
  hc_mesh *m = make_mesh(HC_SIZING_GLOBAL, 12, 12, 12, order, 0.1);
  hc_halo *h = NULL;
  EXPECT(hc_halo_create(m, &h) == HC_OK, "hc_halo_create: %s", hc_error_message());
  assert_all_ranks_ok();
  const size_t size = hc_precision_size(precision);
  void *x = calloc((size_t)m->num_nodes, size);
  double *xd = x;
  float *xf = x;
  for (int64_t c = 0; c < m->C; c++) {
    for (int l = 0; l < m->nodes_per_cell; l++) {
      int32_t n = m->cell_nodes[c * m->nodes_per_cell + l];
      if (precision == HC_DOUBLE) {
        xd[n] += 1;
      } else {
        xf[n] += 1;
      }
    }
  }
  EXPECT(hc_halo_exchange(h, precision, x) == HC_OK, "hc_halo_exchange: %s", hc_error_message());
  for (int64_t n = 0; n < m->num_nodes; n++) {
    int64_t g[3];
    hc_mesh_node_global_index(m, m->node_global_id[n], g);
    int want = 1;
    for (int d = 0; d < 3; d++) want *= touching(g[d], m->global_nodes[d], order);
    double got = precision == HC_DOUBLE ? xd[n] : (double)xf[n];
    EXPECT(got == want, "node (%lld,%lld,%lld): %g cells, want %d", (long long)g[0], (long long)g[1], (long long)g[2],
           got, want);
  }
  /* Every node counted once: the sum of cells touching each node is C * L. */
  double total = 0;
  EXPECT(hc_mesh_nodal_dot(m, precision, x, NULL, &total) == HC_OK, "hc_mesh_nodal_dot");
  EXPECT(total == (double)m->num_global_cells * m->nodes_per_cell, "sum %g, want %lld", total,
         (long long)(m->num_global_cells * m->nodes_per_cell));

  /* Traffic: what is sent is received; a single rank exchanges nothing. */
  hc_halo_stats stats;
  EXPECT(hc_halo_get_stats(h, precision, &stats) == HC_OK, "hc_halo_get_stats");
  EXPECT(stats.send_bytes == stats.send_values * (int64_t)size && stats.recv_bytes == stats.send_bytes, "bytes");
  EXPECT(stats.num_neighbors >= (nranks_ > 1) && stats.num_neighbors <= 26, "neighbours %d", stats.num_neighbors);
  int expect_neighbors = 1;
  for (int d = 0; d < 3; d++) {
    expect_neighbors *= 1 + (m->rank_coords[d] > 0) + (m->rank_coords[d] < m->rank_grid[d] - 1);
  }
  EXPECT(stats.num_neighbors == expect_neighbors - 1, "neighbours %d, want %d", stats.num_neighbors,
         expect_neighbors - 1);
  if (nranks_ == 4) {
    EXPECT(m->rank_grid[0] + m->rank_grid[1] + m->rank_grid[2] == 5, "grid on 4 ranks %d x %d x %d", m->rank_grid[0],
           m->rank_grid[1], m->rank_grid[2]);
  }
  if (nranks_ == 8) EXPECT(m->rank_grid[0] == 2 && m->rank_grid[1] == 2 && m->rank_grid[2] == 2, "grid on 8 ranks");
  int64_t sent = 0, shared = 0;
  MPI_Allreduce(&stats.send_values, &sent, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&stats.shared_nodes, &shared, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (nranks_ == 1) EXPECT(sent == 0 && stats.num_neighbors == 0, "one rank sends nothing");
  if (nranks_ == 2) {
    /* One cut plane of (p*NY+1) x (p*NZ+1) nodes, sent both ways. */
    int64_t plane = (m->rank_grid[0] == 2)   ? m->global_nodes[1] * m->global_nodes[2]
                    : (m->rank_grid[1] == 2) ? m->global_nodes[0] * m->global_nodes[2]
                                             : m->global_nodes[0] * m->global_nodes[1];
    EXPECT(sent == 2 * plane && shared == 2 * plane, "sent %lld, plane %lld", (long long)sent, (long long)plane);
  }
  free(x);
  assert_all_ranks_ok();
  assert_int_equal(hc_halo_destroy(&h), HC_OK);
  assert_null(h);
  hc_mesh_destroy(&m);
}

static void test_halo_double(void **state) {
  (void)state;
  for (int p = 1; p <= HC_MESH_MAX_ORDER; p++) check_halo(p, HC_DOUBLE);
}

static void test_halo_float(void **state) {
  (void)state;
  check_halo(1, HC_FLOAT);
  check_halo(3, HC_FLOAT);
}

/* Irregular contributions: every rank ends with bitwise the same sum at a shared node. */
static void test_halo_bitwise(void **state) {
  (void)state;
  hc_mesh *m = make_mesh(HC_SIZING_GLOBAL, 12, 12, 12, 2, 0.1);
  hc_halo *h = NULL;
  EXPECT(hc_halo_create(m, &h) == HC_OK, "hc_halo_create: %s", hc_error_message());
  assert_all_ranks_ok();
  double *x = calloc((size_t)m->num_nodes, sizeof(double));
  for (int64_t c = 0; c < m->C; c++) {
    int64_t gc = m->cell_index[3 * c] + 131 * (m->cell_index[3 * c + 1] + 17 * m->cell_index[3 * c + 2]);
    for (int l = 0; l < m->nodes_per_cell; l++) {
      x[m->cell_nodes[c * m->nodes_per_cell + l]] += 1.0 / (3.0 + (double)((gc * 7919 + l * 104729) % 1000));
    }
  }
  EXPECT(hc_halo_exchange(h, HC_DOUBLE, x) == HC_OK, "hc_halo_exchange: %s", hc_error_message());
  const int64_t G = m->num_global_nodes;
  double *lo = malloc((size_t)G * sizeof(double)), *hi = malloc((size_t)G * sizeof(double));
  double *glo = malloc((size_t)G * sizeof(double)), *ghi = malloc((size_t)G * sizeof(double));
  for (int64_t i = 0; i < G; i++) {
    lo[i] = INFINITY;
    hi[i] = -INFINITY;
  }
  for (int64_t n = 0; n < m->num_nodes; n++) lo[m->node_global_id[n]] = hi[m->node_global_id[n]] = x[n];
  MPI_Allreduce(lo, glo, (int)G, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(hi, ghi, (int)G, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  for (int64_t i = 0; i < G; i++)
    EXPECT(glo[i] == ghi[i] && isfinite(glo[i]), "node %lld differs over ranks", (long long)i);
  free(x);
  free(lo);
  free(hi);
  free(glo);
  free(ghi);
  assert_all_ranks_ok();
  hc_halo_destroy(&h);
  hc_mesh_destroy(&m);
}

static void test_bad_input(void **state) {
  (void)state;
  hc_mesh_params p;
  hc_mesh *m = NULL;
  struct {
    int64_t nx;
    int order;
    double jitter;
    const char *key;
  } cases[] = {{0, 2, 0.1, "mesh.cells must be at least 1"},
               {-4, 2, 0.1, "got -4 x 8 x 8"},
               {8, 5, 0.1, "mesh.order must be 1..4, got 5"},
               {8, 2, 0.6, "mesh.jitter must be in [0, 1/6)"}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    hc_mesh_params_init(&p);
    p.cells[0] = cases[i].nx;
    p.order = cases[i].order;
    p.jitter = cases[i].jitter;
    hc_error_clear();
    int err = hc_mesh_create(MPI_COMM_WORLD, &p, &m);
    EXPECT(err == HC_ERR_INPUT && m == NULL, "case %zu: error %d", i, err);
    EXPECT(strstr(hc_error_message(), cases[i].key), "case %zu: message \"%s\" lacks \"%s\"", i, hc_error_message(),
           cases[i].key);
  }
  /* More ranks than cells: 1 x 1 x cells on R ranks. */
  if (nranks_ > 1) {
    hc_mesh_params_init(&p);
    p.cells[0] = 1;
    p.cells[1] = 1;
    p.cells[2] = nranks_ - 1;
    int err = hc_mesh_create(MPI_COMM_WORLD, &p, &m);
    char want[128];
    EXPECT(err == HC_ERR_INPUT && m == NULL, "too many ranks: error %d", err);
    snprintf(want, sizeof(want), "1 x 1 x %d = %d cells cannot be split over %d MPI ranks", nranks_ - 1, nranks_ - 1,
             nranks_);
    EXPECT(strstr(hc_error_message(), want), "message \"%s\" lacks \"%s\"", hc_error_message(), want);
    snprintf(want, sizeof(want), "at most %d ranks", nranks_ - 1);
    EXPECT(strstr(hc_error_message(), want), "message \"%s\" lacks \"%s\"", hc_error_message(), want);
  }
  /* Too many nodes for one rank's 32-bit local ids, refused before anything is allocated. */
  hc_mesh_params_init(&p);
  p.order = 4;
  for (int d = 0; d < 3; d++) p.cells[d] = 1000;
  EXPECT(hc_mesh_create(MPI_COMM_WORLD, &p, &m) == HC_ERR_INPUT && m == NULL, "huge block accepted");
  EXPECT(strstr(hc_error_message(), "32-bit local ids"), "message \"%s\"", hc_error_message());
  /* Destroy accepts NULL. */
  EXPECT(hc_mesh_destroy(NULL) == HC_OK && hc_mesh_destroy(&m) == HC_OK, "destroy NULL");
  EXPECT(hc_halo_destroy(NULL) == HC_OK, "destroy NULL");
  assert_all_ranks_ok();
}

/* HC_CALL_MPI turns an MPI error into HC_ERR_RUNTIME with MPI's message. */
static int send_to_bad_rank(MPI_Comm comm) {
  int v = 0;
  HC_CALL_MPI(MPI_Send(&v, 1, MPI_INT, 100000, 0, comm));
  return HC_OK;
}

static void test_call_mpi(void **state) {
  (void)state;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  hc_error_clear();
  int err = send_to_bad_rank(comm);
  EXPECT(err == HC_ERR_RUNTIME, "error %d", err);
  EXPECT(strstr(hc_error_message(), "MPI_Send") && strstr(hc_error_message(), "rank"), "message \"%s\"",
         hc_error_message());
  MPI_Comm_free(&comm);
  assert_all_ranks_ok();
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks_);
  /* One copy of cmocka's report: every rank reaches the same verdicts. */
  if (rank_ > 0 && !freopen("/dev/null", "w", stdout)) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ownership_global), cmocka_unit_test(test_ownership_per_rank),
      cmocka_unit_test(test_jitter),           cmocka_unit_test(test_halo_double),
      cmocka_unit_test(test_halo_float),       cmocka_unit_test(test_halo_bitwise),
      cmocka_unit_test(test_bad_input),        cmocka_unit_test(test_call_mpi),
  };
  int failed = cmocka_run_group_tests_name("mesh_mpi", tests, NULL, NULL), any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any ? 1 : 0;
}
