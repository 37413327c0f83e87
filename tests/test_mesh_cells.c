/* MPI tests of unstructured meshes (hc_mesh_create_cells): the order-p numbering of a box whose cells list their
   nodes in every one of the cube's 24 orientations, ownership, boundary nodes, the partitions and bad meshes. */
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

#include "mesh/hc_hex.h"
#include "mesh/hc_mesh.h"
#include "kernels/base/hc_mpi.h"

#include "tests/hc_test_mpi.h"

/* The 24 rotations of the cube as maps of tensor indices (i,j,k) in {0..m}^3: an axis permutation and
   flips whose determinant is +1. */
static void rotation(int r, int m, const int in[3], int out[3]) {
  static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  const int perm = r / 4, odd = perm >= 3, flips = r % 4;
  /* flip bits: an even number of flips for even permutations, odd for odd ones */
  static const int even[4] = {0, 3, 5, 6}, oddf[4] = {1, 2, 4, 7};
  const int f = odd ? oddf[flips] : even[flips];
  for (int d = 0; d < 3; d++) {
    int v = in[perms[perm][d]];
    out[d] = (f >> d) & 1 ? m - v : v;
  }
}

/* A box of nx x ny x nz unit-ish cells with G = 8 or 27 geometry nodes; cell c lists its nodes in orientation
   c % 24 (or 0 with rotate = 0). Node coordinates are a smooth, positive-Jacobian map of the grid. */
typedef struct {
  hc_mesh_cells mc;
  double *coords;
  int64_t *cells;
} test_box;

static void box_point(int n, int64_t I, int64_t J, int64_t K, int64_t nx, int64_t ny, int64_t nz, double x[3]) {
  const double s = (double)(n - 1);
  double X = I / (s * nx), Y = J / (s * ny), Z = K / (s * nz);
  x[0] = 2.0 * X + 0.05 * sin(3.0 * Y);
  x[1] = 1.0 * Y + 0.04 * X * X;
  x[2] = 0.5 * Z;
}

static void make_box(test_box *b, int G, int64_t nx, int64_t ny, int64_t nz, int rotate) {
  const int n = G == 27 ? 3 : 2, s = n - 1;
  const int64_t gx = s * nx + 1, gy = s * ny + 1, gz = s * nz + 1, N = nx * ny * nz;
  b->coords = malloc((size_t)(gx * gy * gz) * 3 * sizeof(double));
  b->cells = malloc((size_t)N * G * sizeof(int64_t));
  for (int64_t K = 0; K < gz; K++)
    for (int64_t J = 0; J < gy; J++)
      for (int64_t I = 0; I < gx; I++) box_point(n, I, J, K, nx, ny, nz, &b->coords[3 * (I + gx * (J + gy * K))]);
  for (int64_t ck = 0; ck < nz; ck++)
    for (int64_t cj = 0; cj < ny; cj++)
      for (int64_t ci = 0; ci < nx; ci++) {
        const int64_t c = ci + nx * (cj + ny * ck);
        for (int k = 0; k < n; k++)
          for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
              int in[3] = {i, j, k}, o[3];
              rotation(rotate ? (int)(c % 24) : 0, s, in, o);
              int64_t I = s * ci + o[0], J = s * cj + o[1], K = s * ck + o[2];
              b->cells[c * G + i + n * (j + n * k)] = I + gx * (J + gy * K);
            }
      }
  b->mc = (hc_mesh_cells){.geometry_nodes = G,
                          .num_vertices = gx * gy * gz,
                          .num_cells = N,
                          .coords = b->coords,
                          .cells = b->cells,
                          .cell_tag = NULL,
                          .name = "test box"};
}

static void free_box(test_box *b) {
  free(b->coords);
  free(b->cells);
}

/* This rank's slice of mc for hc_mesh_create_dist (the cells N r / R .. N (r + 1) / R - 1); free *coords after. */
static hc_mesh_slice slice_of(const hc_mesh_cells *mc, double **coords) {
  const int G = mc->geometry_nodes;
  const int64_t N = mc->num_cells, first = N * rank_ / nranks_, C = N * (rank_ + 1) / nranks_ - first;
  *coords = malloc((size_t)(C > 0 ? C : 1) * G * 3 * sizeof(double));
  for (int64_t c = 0; c < C; c++)
    for (int g = 0; g < G; g++)
      for (int d = 0; d < 3; d++) (*coords)[(c * G + g) * 3 + d] = mc->coords[3 * mc->cells[(first + c) * G + g] + d];
  return (hc_mesh_slice){.geometry_nodes = G,
                         .num_global_cells = N,
                         .first = first,
                         .num_cells = C,
                         .nodes = mc->cells + first * G,
                         .coords = *coords,
                         .cell_tag = NULL,
                         .name = mc->name};
}

/* The mesh of mc by partitioner: PTSCOTCH through hc_mesh_create_dist, every rank passing its slice (every rank
   has mc), the others through hc_mesh_create_cells from rank 0. */
static int create(const hc_mesh_cells *mc, int order, hc_partitioner partitioner, hc_mesh **m) {
  if (partitioner != HC_PARTITIONER_PTSCOTCH)
    return hc_mesh_create_cells(MPI_COMM_WORLD, rank_ == 0 ? mc : NULL, order, partitioner, m);
  double *coords = NULL;
  const hc_mesh_slice s = slice_of(mc, &coords);
  const int err = hc_mesh_create_dist(MPI_COMM_WORLD, &s, order, m);
  free(coords);
  return err;
}

/* Numbering of a rotated box on every order, geometry and partitioner: the global node count of the box,
   one position per global id (every cell that has a node puts it at the same place), one owner per node,
   boundary flags on the box's faces exactly. */
static void check_box(int G, int order, hc_partitioner partitioner, int rotate) {
  const int64_t nx = 3, ny = 2, nz = 4;
  test_box b;
  make_box(&b, G, nx, ny, nz, rotate);
  hc_mesh *m = NULL;
  int err = create(&b.mc, order, partitioner, &m);
  EXPECT(err == 0, "create: %s", hc_error_message());
  if (err) {
    free_box(&b);
    assert_all_ranks_ok();
    return;
  }
  const int p = order, L = m->nodes_per_cell;
  const int64_t NG = (p * nx + 1) * (p * ny + 1) * (p * nz + 1);
  EXPECT(m->num_global_nodes == NG, "global nodes %lld, want %lld", (long long)m->num_global_nodes, (long long)NG);
  EXPECT(m->num_global_cells == nx * ny * nz, "cells");
  int64_t C = m->C, Ctot = 0;
  MPI_Allreduce(&C, &Ctot, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT(Ctot == nx * ny * nz && C >= 1, "cells over ranks %lld (this rank %lld)", (long long)Ctot, (long long)C);
  /* Positions by global id: the sum of owners' positions, and a count of owners. */
  double *pos = calloc((size_t)NG * 3, sizeof(double)), *all = calloc((size_t)NG * 3, sizeof(double));
  int *own = calloc((size_t)NG, sizeof(int)), *owners = calloc((size_t)NG, sizeof(int));
  int *bnd = calloc((size_t)NG, sizeof(int)), *bnd_all = calloc((size_t)NG, sizeof(int));
  double *seen = malloc((size_t)m->num_nodes * 3 * sizeof(double));
  for (int64_t i = 0; i < m->num_nodes * 3; i++) seen[i] = NAN;
  for (int64_t c = 0; c < m->C; c++)
    for (int k = 0; k <= p; k++)
      for (int j = 0; j <= p; j++)
        for (int i = 0; i <= p; i++) {
          const int32_t l = m->cell_nodes[c * L + i + (p + 1) * (j + (p + 1) * k)];
          EXPECT(l >= 0 && l < m->num_nodes, "local node %d", l);
          const double xi[3] = {-1.0 + 2.0 * i / p, -1.0 + 2.0 * j / p, -1.0 + 2.0 * k / p};
          double x[3];
          hc_hex_map(G, m->vertex_coords + (size_t)c * G * 3, xi, x, NULL);
          for (int d = 0; d < 3; d++) {
            if (isnan(seen[3 * l + d])) seen[3 * l + d] = x[d];
            EXPECT(fabs(seen[3 * l + d] - x[d]) < 1e-12, "node %lld at %g and %g in two cells",
                   (long long)m->node_global_id[l], seen[3 * l + d], x[d]);
          }
        }
  for (int64_t l = 0; l < m->num_nodes; l++) {
    const int64_t g = m->node_global_id[l];
    EXPECT(g >= 0 && g < NG, "gid %lld", (long long)g);
    if (g < 0 || g >= NG) continue;
    bnd[g] = m->node_boundary[l] ? 1 : 0;
    if (!m->node_owned[l]) continue;
    own[g] = 1;
    for (int d = 0; d < 3; d++) pos[3 * g + d] = seen[3 * l + d];
  }
  MPI_Allreduce(own, owners, (int)NG, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(pos, all, (int)(3 * NG), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(bnd, bnd_all, (int)NG, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  for (int64_t g = 0; g < NG; g++) EXPECT(owners[g] == 1, "node %lld has %d owners", (long long)g, owners[g]);
  /* Every rank's copy sits where the owner's does; boundary = on a face of the box (in grid terms). */
  for (int64_t l = 0; l < m->num_nodes; l++) {
    const int64_t g = m->node_global_id[l];
    if (g < 0 || g >= NG) continue;
    for (int d = 0; d < 3; d++)
      EXPECT(fabs(all[3 * g + d] - seen[3 * l + d]) < 1e-12, "node %lld: rank's copy off the owner's", (long long)g);
    /* The box's faces: x = 0 or 2 (+ the small sin term, which vanishes nowhere on X), so test by Y, Z and X. */
  }
  /* Count boundary nodes against the box's: all nodes minus the interior grid. */
  int64_t nb = 0;
  for (int64_t g = 0; g < NG; g++) nb += bnd_all[g];
  const int64_t interior = (p * nx - 1) * (p * ny - 1) * (p * nz - 1);
  EXPECT(nb == NG - interior, "boundary nodes %lld, want %lld", (long long)nb, (long long)(NG - interior));
  free(pos), free(all), free(own), free(owners), free(bnd), free(bnd_all), free(seen);
  hc_mesh_destroy(&m);
  free_box(&b);
  assert_all_ranks_ok();
}

static void test_numbering_hex8(void **state) {
  (void)state;
  for (int p = 1; p <= 4; p++) {
    check_box(8, p, HC_PARTITIONER_BLOCKS, 1);
    if (hc_mesh_metis_built()) check_box(8, p, HC_PARTITIONER_METIS, 1);
    if (hc_mesh_ptscotch_built() || nranks_ == 1) check_box(8, p, HC_PARTITIONER_PTSCOTCH, 1);
  }
  check_box(8, 3, HC_PARTITIONER_BLOCKS, 0);
  if (hc_mesh_ptscotch_built() || nranks_ == 1) check_box(8, 3, HC_PARTITIONER_PTSCOTCH, 0);
}

/* A box of 4 x 4 x 4 cells with holes: the cells that a fixed hash picks are left out, so the mesh has re-entrant
   corners and edges that cells hold with none of their boundary faces (a cell beside a hole's corner only), and a
   node's boundary flag must come from all the cells that hold it, on whatever ranks. Every rank's copy of a node
   has the same flag, and the nodes and boundary nodes are those of the solid: at lattice point (X, Y, Z) (0..4p in
   each direction) there is a node when one of the 8 cells around the point is in the mesh, a boundary node when
   one of them is not. */
static int present(int i, int j, int k) {
  if (i < 0 || j < 0 || k < 0 || i > 3 || j > 3 || k > 3) return 0;
  return (i * 7 + j * 5 + k * 3 + i * j * k) % 5 != 0;
}

static void check_holes(int G, int order, hc_partitioner partitioner) {
  test_box b;
  make_box(&b, G, 4, 4, 4, 1);
  int64_t N = 0;
  for (int64_t c = 0; c < 64; c++)
    if (present((int)(c % 4), (int)(c / 4 % 4), (int)(c / 16))) {
      memmove(b.cells + N * G, b.cells + c * G, (size_t)G * sizeof(int64_t));
      N++;
    }
  b.mc.num_cells = N;
  hc_mesh *m = NULL;
  int err = create(&b.mc, order, partitioner, &m);
  EXPECT(err == 0, "create: %s", hc_error_message());
  if (!err) {
    const int p = order, n = 4 * p + 1;
    int64_t NG = 0, NB = 0;
    for (int Z = 0; Z < n; Z++)
      for (int Y = 0; Y < n; Y++)
        for (int X = 0; X < n; X++) {
          int around = 0;
          for (int o = 0; o < 8; o++) {
            const int cx = (o & 1) ? X / p : (X - 1 + p) / p - 1, cy = (o & 2) ? Y / p : (Y - 1 + p) / p - 1,
                      cz = (o & 4) ? Z / p : (Z - 1 + p) / p - 1;
            around += present(cx, cy, cz);
          }
          NG += around > 0;
          NB += around > 0 && around < 8;
        }
    EXPECT(m->num_global_nodes == NG, "holes: %lld global nodes, want %lld", (long long)m->num_global_nodes,
           (long long)NG);
    int *lo = malloc((size_t)NG * sizeof(int)), *hi = malloc((size_t)NG * sizeof(int));
    int *lo_all = malloc((size_t)NG * sizeof(int)), *hi_all = malloc((size_t)NG * sizeof(int));
    for (int64_t g = 0; g < NG; g++) lo[g] = 2, hi[g] = -1;
    for (int64_t l = 0; l < m->num_nodes; l++) {
      const int64_t g = m->node_global_id[l];
      if (g < 0 || g >= NG) continue;
      lo[g] = m->node_boundary[l] < lo[g] ? m->node_boundary[l] : lo[g];
      hi[g] = m->node_boundary[l] > hi[g] ? m->node_boundary[l] : hi[g];
    }
    MPI_Allreduce(lo, lo_all, (int)NG, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(hi, hi_all, (int)NG, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int64_t boundary = 0, differ = 0;
    for (int64_t g = 0; g < NG; g++) boundary += hi_all[g] == 1, differ += lo_all[g] != hi_all[g];
    EXPECT(differ == 0, "holes: %lld nodes flagged differently on two ranks", (long long)differ);
    EXPECT(boundary == NB, "holes (G %d, p %d, partitioner %d): %lld boundary nodes, want %lld", G, p, (int)partitioner,
           (long long)boundary, (long long)NB);
    free(lo), free(hi), free(lo_all), free(hi_all);
  }
  hc_mesh_destroy(&m);
  free_box(&b);
  assert_all_ranks_ok();
}

static void test_holes(void **state) {
  (void)state;
  for (int p = 1; p <= 3; p++)
    for (int G = 8; G <= 27; G += 19) {
      check_holes(G, p, HC_PARTITIONER_BLOCKS);
      if (hc_mesh_metis_built()) check_holes(G, p, HC_PARTITIONER_METIS);
      if (hc_mesh_ptscotch_built() || nranks_ == 1) check_holes(G, p, HC_PARTITIONER_PTSCOTCH);
    }
}

static void test_numbering_hex27(void **state) {
  (void)state;
  for (int p = 1; p <= 4; p++) {
    check_box(27, p, HC_PARTITIONER_BLOCKS, 1);
    if (hc_mesh_ptscotch_built() || nranks_ == 1) check_box(27, p, HC_PARTITIONER_PTSCOTCH, 1);
  }
  if (hc_mesh_metis_built()) check_box(27, 2, HC_PARTITIONER_METIS, 1);
}

/* The volume: the exact volumes of the cells summed (the map preserves nothing simple; compare with a fine
   midpoint sum of det J on the same cells computed here). */
static void test_volume_bounds(void **state) {
  (void)state;
  test_box b;
  make_box(&b, 8, 2, 2, 2, 1);
  hc_mesh *m = NULL;
  int err = hc_mesh_create_cells(MPI_COMM_WORLD, rank_ == 0 ? &b.mc : NULL, 2, HC_PARTITIONER_BLOCKS, &m);
  EXPECT(!err, "%s", hc_error_message());
  hc_mesh *dm = NULL;
  if (hc_mesh_ptscotch_built() || nranks_ == 1) {
    /* The distributed constructor: the same volume (to rounding: summed in another order), bounds and counts. */
    const int derr = create(&b.mc, 2, HC_PARTITIONER_PTSCOTCH, &dm);
    EXPECT(!derr, "dist: %s", hc_error_message());
    if (!derr && !err) {
      EXPECT(fabs(dm->volume - m->volume) < 1e-14, "dist volume %.17g, rank 0's %.17g", dm->volume, m->volume);
      for (int d3 = 0; d3 < 3; d3++)
        EXPECT(dm->bounds[0][d3] == m->bounds[0][d3] && dm->bounds[1][d3] == m->bounds[1][d3], "dist bounds");
      EXPECT(dm->num_global_nodes == m->num_global_nodes, "dist nodes %lld, rank 0's %lld",
             (long long)dm->num_global_nodes, (long long)m->num_global_nodes);
      EXPECT(dm->edge_cut >= 0 && (nranks_ > 1 || dm->edge_cut == 0), "dist edge cut %lld", (long long)dm->edge_cut);
    }
    hc_mesh_destroy(&dm);
  }
  if (!err) {
    double want = 0;
    for (int64_t c = 0; c < b.mc.num_cells; c++) {
      double x[24];
      for (int v = 0; v < 8; v++)
        for (int d = 0; d < 3; d++) x[3 * v + d] = b.coords[3 * b.cells[8 * c + v] + d];
      want += hc_hex_integrate_power(8, x, 0, 1.0, 6);
    }
    EXPECT(fabs(m->volume - want) < 1e-13, "volume %.17g, want %.17g", m->volume, want);
    EXPECT(fabs(m->bounds[0][0]) < 1e-15 && fabs(m->bounds[1][2] - 0.5) < 1e-15, "bounds");
    EXPECT(fabs(m->length[1] - (m->bounds[1][1] - m->bounds[0][1])) == 0, "length");
  }
  hc_mesh_destroy(&m);
  free_box(&b);
  assert_all_ranks_ok();
}

/* Bad meshes: an error on every rank, the same code, the message naming the file and the cell (by its number, 1-based,
   where want_cell > 0), from both constructors. */
static void expect_error_cell(const hc_mesh_cells *mc, const char *what, int64_t want_cell) {
  for (int dist = 0; dist < 2; dist++) {
    if (dist && !(hc_mesh_ptscotch_built() || nranks_ == 1)) continue;
    hc_mesh *m = NULL;
    int err = create(mc, 2, dist ? HC_PARTITIONER_PTSCOTCH : HC_PARTITIONER_BLOCKS, &m);
    EXPECT(err == HC_ERR_INPUT, "%s (%s): code %d", what, dist ? "dist" : "rank 0", err);
    EXPECT(strstr(hc_error_message(), "test box") != NULL, "%s: message '%s' names no file", what, hc_error_message());
    char cell[64];
    snprintf(cell, sizeof(cell), "cell %lld ", (long long)want_cell);
    EXPECT(want_cell <= 0 || strstr(hc_error_message(), cell) != NULL, "%s (%s): message '%s' names not %s", what,
           dist ? "dist" : "rank 0", hc_error_message(), cell);
    EXPECT(m == NULL, "%s: a mesh came back", what);
    assert_all_ranks_ok();
  }
}

static void expect_error(const hc_mesh_cells *mc, const char *what) {
  expect_error_cell(mc, what, 0);
}

static void test_bad_meshes(void **state) {
  (void)state;
  test_box b;
  make_box(&b, 8, 2, 2, 2, 0);
  /* Inverted: swap two corners of cell 1 (a reflection). */
  int64_t t = b.cells[8 + 0];
  b.cells[8 + 0] = b.cells[8 + 1], b.cells[8 + 1] = t;
  expect_error_cell(&b.mc, "inverted", 2);
  b.cells[8 + 1] = b.cells[8 + 0], b.cells[8 + 0] = t;
  /* A node out of range (rank 0's constructor; the slices' readers check their nodes). */
  int64_t keep = b.cells[5];
  b.cells[5] = b.mc.num_vertices + 3;
  {
    hc_mesh *m = NULL;
    int err = hc_mesh_create_cells(MPI_COMM_WORLD, rank_ == 0 ? &b.mc : NULL, 2, HC_PARTITIONER_BLOCKS, &m);
    EXPECT(err == HC_ERR_INPUT && m == NULL, "bad node: code %d", err);
    assert_all_ranks_ok();
  }
  b.cells[5] = keep;
  /* Degenerate: two corners of cell 3 the same node. */
  keep = b.cells[8 * 2 + 7];
  b.cells[8 * 2 + 7] = b.cells[8 * 2 + 6];
  expect_error_cell(&b.mc, "degenerate", 3);
  b.cells[8 * 2 + 7] = keep;
  /* A face in three cells: cell 0 twice. */
  hc_mesh_cells three = b.mc;
  int64_t *cells = malloc((size_t)(b.mc.num_cells + 2) * 8 * sizeof(int64_t));
  memcpy(cells, b.cells, (size_t)b.mc.num_cells * 8 * sizeof(int64_t));
  memcpy(cells + 8 * b.mc.num_cells, b.cells, 8 * sizeof(int64_t));
  memcpy(cells + 8 * (b.mc.num_cells + 1), b.cells, 8 * sizeof(int64_t));
  three.cells = cells;
  three.num_cells += 2;
  expect_error_cell(&three, "face in three cells", 0);
  free(cells);
  /* Fewer cells than ranks. */
  if (nranks_ > 1) {
    hc_mesh_cells one = b.mc;
    one.num_cells = 1;
    expect_error(&one, "one cell");
  }
  free_box(&b);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks_);
  /* One copy of cmocka's report: every rank reaches the same verdicts. */
  if (rank_ > 0 && !freopen("/dev/null", "w", stdout)) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_numbering_hex8), cmocka_unit_test(test_numbering_hex27), cmocka_unit_test(test_holes),
      cmocka_unit_test(test_volume_bounds),  cmocka_unit_test(test_bad_meshes),
  };
  int failed = cmocka_run_group_tests_name("mesh_cells", tests, NULL, NULL), any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any ? 1 : 0;
}
