/* Unit tests of the rank grid choice, block splits and mesh parameter checks (no MPI calls). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mesh/hc_mesh.h"
#include "mesh/hc_partition.h"

static void assert_message_has(const char *needle) {
  if (!strstr(hc_error_message(), needle)) fail_msg("message \"%s\" lacks \"%s\"", hc_error_message(), needle);
}

static void test_block_split(void **state) {
  (void)state;
  for (int64_t n = 1; n <= 40; n++) {
    for (int parts = 1; parts <= n; parts++) {
      int64_t next = 0;
      for (int c = 0; c < parts; c++) {
        int64_t begin, count;
        hc_partition_block(n, parts, c, &begin, &count);
        assert_int_equal(begin, next);
        assert_int_equal(count, n / parts + (c < n % parts ? 1 : 0));
        next = begin + count;
      }
      assert_int_equal(next, n);
    }
  }
  /* 64-bit counts: a billion cells along one direction. */
  int64_t begin, count;
  hc_partition_block(3000000000ll, 7, 6, &begin, &count);
  assert_int_equal(begin + count, 3000000000ll);
}

static void test_rank_coords(void **state) {
  (void)state;
  int grid[3] = {3, 2, 5}, coords[3];
  for (int r = 0; r < 30; r++) {
    hc_partition_coords(grid, r, coords);
    assert_int_equal(hc_partition_rank(grid, coords), r);
    assert_true(coords[0] < 3 && coords[1] < 2 && coords[2] < 5);
  }
}

/* Simulates every rank of a grid: each cell in exactly one block, no empty block, and a per-rank cell
   count spread within prod(ceil) - prod(floor). */
static void check_grid_covers(const int64_t N[3], const int g[3]) {
  int64_t total = N[0] * N[1] * N[2];
  unsigned char *owner = calloc((size_t)total, 1);
  assert_non_null(owner);
  int64_t cmin = INT64_MAX, cmax = 0;
  for (int r = 0; r < g[0] * g[1] * g[2]; r++) {
    int c[3];
    int64_t b[3], n[3];
    hc_partition_coords(g, r, c);
    for (int d = 0; d < 3; d++) hc_partition_block(N[d], g[d], c[d], &b[d], &n[d]);
    assert_true(n[0] >= 1 && n[1] >= 1 && n[2] >= 1);
    int64_t cells = n[0] * n[1] * n[2];
    cmin = cells < cmin ? cells : cmin;
    cmax = cells > cmax ? cells : cmax;
    for (int64_t k = b[2]; k < b[2] + n[2]; k++) {
      for (int64_t j = b[1]; j < b[1] + n[1]; j++) {
        for (int64_t i = b[0]; i < b[0] + n[0]; i++) owner[i + N[0] * (j + N[1] * k)]++;
      }
    }
  }
  for (int64_t i = 0; i < total; i++) assert_int_equal(owner[i], 1);
  int64_t hi = 1, lo = 1;
  for (int d = 0; d < 3; d++) {
    hi *= (N[d] + g[d] - 1) / g[d];
    lo *= N[d] / g[d];
  }
  assert_true(cmax - cmin <= hi - lo);
  free(owner);
}

static void test_grid_every_rank_count(void **state) {
  (void)state;
  const int counts[] = {1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 16, 24, 27, 64};
  const int64_t boxes[][3] = {{13, 7, 5}, {16, 16, 16}, {64, 3, 2}, {2, 2, 70}, {30, 30, 1}};
  for (size_t b = 0; b < sizeof(boxes) / sizeof(boxes[0]); b++) {
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
      int g[3], R = counts[i];
      int err = hc_partition_grid(R, HC_SIZING_GLOBAL, boxes[b], g);
      int fits = 0;
      for (int px = 1; px <= R; px++) {
        for (int py = 1; py <= R; py++) {
          int pz = R / (px * py);
          if (px * py * pz == R && px <= boxes[b][0] && py <= boxes[b][1] && pz <= boxes[b][2]) fits = 1;
        }
      }
      assert_int_equal(err, fits ? HC_OK : HC_ERR_INPUT);
      if (!fits) continue;
      assert_int_equal(g[0] * g[1] * g[2], R);
      check_grid_covers(boxes[b], g);
    }
  }
  /* Per-rank sizing accepts every rank count; every block holds the per-rank cells. */
  const int64_t per_rank[3] = {3, 2, 2};
  for (int R = 1; R <= 64; R++) {
    int g[3];
    assert_int_equal(hc_partition_grid(R, HC_SIZING_PER_RANK, per_rank, g), HC_OK);
    assert_int_equal(g[0] * g[1] * g[2], R);
    int64_t N[3] = {per_rank[0] * g[0], per_rank[1] * g[1], per_rank[2] * g[2]};
    check_grid_covers(N, g);
  }
}

static void test_grid_shapes(void **state) {
  (void)state;
  int g[3];
  const int64_t cube[3] = {8, 8, 8}, slab[3] = {16, 4, 4}, big[3] = {1000, 1000, 1000};
  assert_int_equal(hc_partition_grid(8, HC_SIZING_GLOBAL, cube, g), HC_OK);
  assert_true(g[0] == 2 && g[1] == 2 && g[2] == 2);
  assert_int_equal(hc_partition_grid(4, HC_SIZING_GLOBAL, slab, g), HC_OK);
  assert_true(g[0] == 4 && g[1] == 1 && g[2] == 1);
  assert_int_equal(hc_partition_grid(64, HC_SIZING_GLOBAL, big, g), HC_OK);
  assert_true(g[0] == 4 && g[1] == 4 && g[2] == 4);
  assert_int_equal(hc_partition_grid(11, HC_SIZING_GLOBAL, big, g), HC_OK);
  assert_int_equal(g[0] * g[1] * g[2], 11);
  /* Weak scaling: 8 ranks of cubic blocks make a cubic box. */
  assert_int_equal(hc_partition_grid(8, HC_SIZING_PER_RANK, cube, g), HC_OK);
  assert_true(g[0] == 2 && g[1] == 2 && g[2] == 2);
  /* Flat blocks are stacked along their short side. */
  const int64_t flat[3] = {8, 8, 2};
  assert_int_equal(hc_partition_grid(4, HC_SIZING_PER_RANK, flat, g), HC_OK);
  assert_true(g[2] == 4);
}

static void test_grid_too_many_ranks(void **state) {
  (void)state;
  int g[3];
  const int64_t small[3] = {2, 2, 2}, cube6[3] = {6, 6, 6};
  hc_error_clear();
  assert_int_equal(hc_partition_grid(11, HC_SIZING_GLOBAL, small, g), HC_ERR_INPUT);
  assert_message_has("2 x 2 x 2 = 8 cells");
  assert_message_has("11 MPI ranks");
  assert_message_has("at most 8 ranks");
  assert_message_has("use more cells (e.g. mesh.cells 2 x 2 x 11)");
  /* A prime beyond every direction: 7 ranks on 6^3 cells. */
  assert_int_equal(hc_partition_grid(7, HC_SIZING_GLOBAL, cube6, g), HC_ERR_INPUT);
  assert_message_has("7 MPI ranks");
  assert_message_has("at most 6 ranks");
  assert_int_equal(hc_partition_grid(0, HC_SIZING_GLOBAL, cube6, g), HC_ERR_INPUT);
  const int64_t bad[3] = {0, 4, 4};
  assert_int_equal(hc_partition_grid(1, HC_SIZING_GLOBAL, bad, g), HC_ERR_INPUT);
  assert_message_has("0 x 4 x 4");
}

/* A billion cells and more: grids, vertex ids and node ids stay in 64 bits. */
static void test_billion_cells(void **state) {
  (void)state;
  int g[3];
  const int64_t big[3] = {1024, 1024, 1024}, huge[3] = {4000, 3000, 2000};
  assert_int_equal(hc_partition_grid(4096, HC_SIZING_GLOBAL, big, g), HC_OK);
  assert_true(g[0] == 16 && g[1] == 16 && g[2] == 16);
  assert_int_equal(hc_partition_grid(131071, HC_SIZING_GLOBAL, huge, g), HC_ERR_INPUT); /* a prime above 4000 */
  assert_message_has("24000000000 cells");

  /* The numbering helpers only read sizes, so a mesh too big to allocate can be described on the stack. */
  hc_mesh m;
  memset(&m, 0, sizeof(m));
  hc_mesh_params_init(&m.params);
  m.params.jitter = 0.1;
  m.order = 4;
  for (int d = 0; d < 3; d++) {
    m.global_cells[d] = huge[d];
    m.length[d] = 1.0;
    m.cell_size[d] = 1.0 / (double)huge[d];
    m.global_nodes[d] = 4 * huge[d] + 1;
  }
  const int64_t last = m.global_nodes[0] * m.global_nodes[1] * m.global_nodes[2] - 1,
                ijk_last[3] = {16000, 12000, 8000};
  int64_t ijk[3];
  assert_true(last > ((int64_t)1 << 40));
  hc_mesh_node_global_index(&m, last, ijk);
  assert_memory_equal(ijk, ijk_last, sizeof(ijk));
  hc_mesh_node_global_index(&m, last - m.global_nodes[0], ijk);
  assert_true(ijk[0] == 16000 && ijk[1] == 11999 && ijk[2] == 8000);
  double X[3], Y[3];
  assert_int_equal(hc_mesh_vertex_reference(&m, 4000, 3000, 2000, X), HC_OK);
  assert_true(X[0] == 1.0 && X[1] == 1.0 && X[2] == 1.0);
  /* Interior vertices whose ids differ only above bit 32 get different jitter. */
  const int64_t stride = (huge[0] + 1) * (huge[1] + 1); /* about 1.2e7 ids per z plane */
  assert_int_equal(hc_mesh_vertex_reference(&m, 7, 5, 1000, X), HC_OK);
  assert_int_equal(hc_mesh_vertex_reference(&m, 7, 5, 1000 + ((int64_t)1 << 32) / stride, Y), HC_OK);
  assert_true(X[0] != Y[0]);
  assert_int_equal(hc_mesh_vertex_reference(&m, 4001, 0, 0, X), HC_ERR_INPUT);
}

static void test_sizing_names(void **state) {
  (void)state;
  hc_sizing s;
  assert_int_equal(hc_sizing_from_name("per-rank", &s), HC_OK);
  assert_int_equal(s, HC_SIZING_PER_RANK);
  assert_string_equal(hc_sizing_name(s), "per-rank");
  assert_int_equal(hc_sizing_from_name("global", &s), HC_OK);
  assert_int_equal(s, HC_SIZING_GLOBAL);
  assert_int_equal(hc_sizing_from_name("weak", &s), HC_ERR_INPUT);
  assert_message_has("\"weak\"");
}

static void test_params_validate(void **state) {
  (void)state;
  hc_mesh_params p;
  hc_mesh_params_init(&p);
  assert_int_equal(hc_mesh_params_validate(&p), HC_OK);
  assert_true(p.jitter == 0.1 && p.order == 2);

  p.cells[0] = 0;
  assert_int_equal(hc_mesh_params_validate(&p), HC_ERR_INPUT);
  assert_message_has("mesh.cells");
  assert_message_has("got 0 x 8 x 8");
  p.cells[0] = -3;
  assert_int_equal(hc_mesh_params_validate(&p), HC_ERR_INPUT);
  assert_message_has("got -3 x 8 x 8");
  hc_mesh_params_init(&p);
  p.order = 5;
  assert_int_equal(hc_mesh_params_validate(&p), HC_ERR_INPUT);
  assert_message_has("mesh.order must be 1..4, got 5");
  hc_mesh_params_init(&p);
  p.jitter = 0.6;
  assert_int_equal(hc_mesh_params_validate(&p), HC_ERR_INPUT);
  assert_message_has("mesh.jitter");
  assert_message_has("got 0.6");
  p.jitter = HC_MESH_JITTER_MAX;
  assert_int_equal(hc_mesh_params_validate(&p), HC_ERR_INPUT);
  p.jitter = -0.01;
  assert_int_equal(hc_mesh_params_validate(&p), HC_ERR_INPUT);
  p.jitter = 0.1666;
  assert_int_equal(hc_mesh_params_validate(&p), HC_OK);
  hc_mesh_params_init(&p);
  p.length[1] = 0;
  assert_int_equal(hc_mesh_params_validate(&p), HC_ERR_INPUT);
  assert_message_has("mesh.length");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_block_split),           cmocka_unit_test(test_rank_coords),
      cmocka_unit_test(test_grid_every_rank_count), cmocka_unit_test(test_grid_shapes),
      cmocka_unit_test(test_grid_too_many_ranks),   cmocka_unit_test(test_sizing_names),
      cmocka_unit_test(test_billion_cells),         cmocka_unit_test(test_params_validate),
  };
  return cmocka_run_group_tests_name("mesh_partition", tests, NULL, NULL);
}
