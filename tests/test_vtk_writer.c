/* Unit tests of the ParaView writer (io/hc_vtk.h): VTK's node order against VTK's documented cells, file names,
   the steps a series writes, and a written piece. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "io/hc_vtk.h"
#include "kernels/base/hc_error.h"

/* The tensor-product index of node (i,j,k) of order p. */
static int tp(int p, int i, int j, int k) {
  return i + (p + 1) * (j + (p + 1) * k);
}

/* Every order: a permutation whose first 8 nodes are VTK_HEXAHEDRON's corners (0,0,0), (1,0,0), (1,1,0),
   (0,1,0), then the same at z = 1. */
static void test_node_order_corners(void **state) {
  (void)state;
  for (int p = 1; p <= HC_VTK_MAX_ORDER; p++) {
    const int L = (p + 1) * (p + 1) * (p + 1);
    int vtk[125], seen[125] = {0};
    assert_int_equal(hc_vtk_node_order(p, vtk), HC_OK);
    for (int n = 0; n < L; n++) {
      assert_true(vtk[n] >= 0 && vtk[n] < L);
      seen[vtk[n]]++;
    }
    for (int n = 0; n < L; n++) assert_int_equal(seen[n], 1);
    const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    for (int v = 0; v < 8; v++) assert_int_equal(vtk[v], tp(p, p * corner[v][0], p * corner[v][1], p * corner[v][2]));
  }
  int vtk[125];
  assert_int_equal(hc_vtk_node_order(5, vtk), HC_ERR_INPUT);
  hc_error_clear();
  assert_int_equal(hc_vtk_cell_type(1), 12);
  assert_int_equal(hc_vtk_cell_type(2), 29);
  assert_int_equal(hc_vtk_cell_type(3), 72);
  assert_int_equal(hc_vtk_cell_type(4), 72);
  assert_int_equal(hc_vtk_cell_type(5), 0);
}

/* Order 2 is VTK_TRIQUADRATIC_HEXAHEDRON: after the corners, the mid-edge nodes of the edges (0,1), (1,2), (2,3),
   (3,0), (4,5), (5,6), (6,7), (7,4), (0,4), (1,5), (2,6), (3,7), then the mid-face nodes of the faces x = 0, x = 1,
   y = 0, y = 1, z = 0, z = 1, then the centre (vtkTriQuadraticHexahedron's documentation and parametric
   coordinates). */
static void test_node_order_triquadratic(void **state) {
  (void)state;
  const int mid[27][3] = {{0, 0, 0}, {2, 0, 0}, {2, 2, 0}, {0, 2, 0}, {0, 0, 2}, {2, 0, 2}, {2, 2, 2},
                          {0, 2, 2}, {1, 0, 0}, {2, 1, 0}, {1, 2, 0}, {0, 1, 0}, {1, 0, 2}, {2, 1, 2},
                          {1, 2, 2}, {0, 1, 2}, {0, 0, 1}, {2, 0, 1}, {2, 2, 1}, {0, 2, 1}, {0, 1, 1},
                          {2, 1, 1}, {1, 0, 1}, {1, 2, 1}, {1, 1, 0}, {1, 1, 2}, {1, 1, 1}};
  int vtk[27];
  assert_int_equal(hc_vtk_node_order(2, vtk), HC_OK);
  for (int n = 0; n < 27; n++) assert_int_equal(vtk[n], tp(2, mid[n][0], mid[n][1], mid[n][2]));
}

/* Order 3 as vtkLagrangeHexahedron numbers it in VTK 9: each edge's nodes from its lower corner, the edges along
   z in the order of their corners 0..3, the faces' nodes with their first free index fastest. */
static void test_node_order_lagrange(void **state) {
  (void)state;
  int vtk[64];
  assert_int_equal(hc_vtk_node_order(3, vtk), HC_OK);
  const int some[][4] = {{8, 1, 0, 0},  {9, 2, 0, 0},  {10, 3, 1, 0}, {12, 1, 3, 0}, {14, 0, 1, 0}, {24, 0, 0, 1},
                         {26, 3, 0, 1}, {28, 3, 3, 1}, {30, 0, 3, 1}, {32, 0, 1, 1}, {33, 0, 2, 1}, {34, 0, 1, 2},
                         {40, 1, 0, 1}, {48, 1, 1, 0}, {56, 1, 1, 1}, {57, 2, 1, 1}, {63, 2, 2, 2}};
  for (size_t i = 0; i < sizeof(some) / sizeof(some[0]); i++)
    assert_int_equal(vtk[some[i][0]], tp(3, some[i][1], some[i][2], some[i][3]));
}

static void test_names(void **state) {
  (void)state;
  hc_vtk_names names;
  char buf[2600];
  assert_int_equal(hc_vtk_names_init(&names, "out", "hexcontract-results.yaml", 0, 10), HC_OK);
  assert_int_equal(hc_vtk_path(&names, HC_VTK_PARALLEL, 10, 0, 1, buf, sizeof(buf)), HC_OK);
  assert_string_equal(buf, "out/hexcontract-results.pvtu");
  assert_int_equal(hc_vtk_path(&names, HC_VTK_PIECE, 10, 3, 0, buf, sizeof(buf)), HC_OK);
  assert_string_equal(buf, "hexcontract-results_r3.vtu");
  /* A series: the step zero-padded to the digits of the step count; the collection has none. */
  assert_int_equal(hc_vtk_names_init(&names, ".", "sub/r.yml", 1, 120), HC_OK);
  assert_int_equal(hc_vtk_path(&names, HC_VTK_PIECE, 7, 12, 1, buf, sizeof(buf)), HC_OK);
  assert_string_equal(buf, "./sub/r_007_r12.vtu");
  assert_int_equal(hc_vtk_path(&names, HC_VTK_PARALLEL, 7, 0, 0, buf, sizeof(buf)), HC_OK);
  assert_string_equal(buf, "r_007.pvtu");
  assert_int_equal(hc_vtk_path(&names, HC_VTK_COLLECTION, 7, 0, 1, buf, sizeof(buf)), HC_OK);
  assert_string_equal(buf, "./sub/r.pvd");
  /* Only .yaml and .yml are taken off. */
  assert_int_equal(hc_vtk_names_init(&names, ".", "run.out", 0, 1), HC_OK);
  assert_string_equal(names.name, "run.out");
  assert_int_equal(hc_vtk_names_init(&names, ".", ".yaml", 0, 1), HC_ERR_INPUT);
  assert_non_null(strstr(hc_error_message(), "leaves no file name"));
  hc_error_clear();
  assert_int_equal(hc_vtk_names_init(&names, ".", "sub/.yaml", 0, 1), HC_ERR_INPUT);
  hc_error_clear();
}

static void test_steps(void **state) {
  (void)state;
  /* Every 3rd of 10 and the last: 3, 6, 9, 10. */
  int written[11] = {0}, n = 0;
  for (int s = 1; s <= 10; s++) n += written[s] = hc_vtk_writes_step(s, 10, 3);
  assert_int_equal(n, 4);
  assert_true(written[3] && written[6] && written[9] && written[10] && !written[1] && !written[8]);
  assert_int_equal(hc_vtk_num_sets(10, 3), 4);
  assert_int_equal(hc_vtk_num_sets(9, 3), 3);
  assert_int_equal(hc_vtk_num_sets(5, 0), 1);
  assert_int_equal(hc_vtk_num_sets(2, 7), 1);
  assert_true(!hc_vtk_writes_step(4, 5, 0) && hc_vtk_writes_step(5, 5, 0));
}

/* One order-1 cell, its nodes in tensor-product order: the file holds VTK's corner order, the fields, and
   nothing is left beside it. */
static void test_write_piece(void **state) {
  (void)state;
  char dir[] = "/tmp/hc_test_vtk_XXXXXX", path[256], fifo[256];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof(path), "%s/one_r0.vtu", dir);
  int32_t cell_nodes[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  double x[24], volume = 1.0, min_det = 0.125, f[8];
  for (int n = 0; n < 8; n++) {
    x[3 * n] = n & 1, x[3 * n + 1] = (n >> 1) & 1, x[3 * n + 2] = (n >> 2) & 1;
    f[n] = 0.5 + n;
  }
  hc_vtk_field cells[2] = {{"volume", &volume}, {"min_detJ", &min_det}}, points[1] = {{"Field<&\">", f}};
  hc_vtk_piece piece = {.rank = 3,
                        .order = 1,
                        .C = 1,
                        .cell_nodes = cell_nodes,
                        .num_nodes = 8,
                        .x = x,
                        .num_cell_fields = 2,
                        .cell_fields = cells,
                        .num_point_fields = 1,
                        .point_fields = points,
                        .time = 0.25};
  assert_int_equal(hc_vtk_write_piece(path, &piece), HC_OK);
  FILE *fp = fopen(path, "rb");
  assert_non_null(fp);
  char text[8192];
  size_t len = fread(text, 1, sizeof(text) - 1, fp);
  text[len] = '\0';
  fclose(fp);
  assert_non_null(strstr(text, "NumberOfPoints=\"8\" NumberOfCells=\"1\""));
  assert_non_null(strstr(text, "Name=\"connectivity\" format=\"ascii\">\n0 1 3 2 4 5 7 6\n"));
  assert_non_null(strstr(text, "Name=\"types\" format=\"ascii\">\n12\n"));
  assert_non_null(strstr(text, "Name=\"rank\" format=\"ascii\">\n3\n"));
  assert_non_null(strstr(text, "Name=\"Field&lt;&amp;&quot;&gt;\""));
  assert_non_null(strstr(text, "0.5 1.5 2.5 3.5 4.5 5.5\n6.5 7.5\n"));
  assert_non_null(strstr(text, "version=\"2.2\""));
  assert_null(strstr(text, "GlobalNodeId"));
  /* Nothing but the file is left in the directory. */
  DIR *d = opendir(dir);
  assert_non_null(d);
  int entries = 0;
  for (struct dirent *e; (e = readdir(d));) entries += e->d_name[0] != '.';
  closedir(d);
  assert_int_equal(entries, 1);
  /* A FIFO in the file's place is refused and left. */
  snprintf(fifo, sizeof(fifo), "%s/fifo.vtu", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  assert_int_equal(hc_vtk_write_piece(fifo, &piece), HC_ERR_INPUT);
  hc_error_clear();
  struct stat st;
  assert_int_equal(lstat(fifo, &st), 0);
  assert_true(S_ISFIFO(st.st_mode));
  unlink(fifo);
  unlink(path);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_node_order_corners),
      cmocka_unit_test(test_node_order_triquadratic),
      cmocka_unit_test(test_node_order_lagrange),
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_steps),
      cmocka_unit_test(test_write_piece),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
