/* Unit tests of the mesh file readers (io/hc_meshfile.h): each format's node order against the format's own statement
   of it, coordinates of every cell's nodes under known maps, volumes, the Gmsh writer, and every refused file.
   Usage: test_meshfile common|gmsh|exodus DIR (scratch directory), test_meshfile shipped MESHDIR (the meshes of
   inputs/meshes), test_meshfile info FILE (reads FILE, prints its size, volume, bounds and the time taken).
   The gmsh and exodus groups exit 77 (skipped, with a SKIPPED line) when that reader is not built in. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#include "hc_config.h"
#include "io/hc_meshfile.h"
#include "kernels/base/hc_error.h"
#if HC_HAVE_GMSH
#include <gmshc.h>
#endif
#if HC_HAVE_EXODUS
#include <exodusII.h>
#endif

static char scratch[3000];     /* the group's scratch directory */
static char shipped_dir[3000]; /* inputs/meshes */

static void path_in(char *buf, size_t size, const char *name) {
  snprintf(buf, size, "%s/%s", scratch, name);
}

/* Asserts that the last call failed with code and that its message contains every string given (NULL-ended). */
static void expect_error(int err, int code, ...) {
  va_list aq;
  va_start(aq, code);
  const char *first = va_arg(aq, const char *);
  va_end(aq);
  if (err != code)
    fprintf(stderr, "%s: expected error %d, got %d: %s\n", first ? first : "", code, err, hc_error_message());
  assert_int_equal(err, code);
  va_list ap;
  va_start(ap, code);
  for (const char *s; (s = va_arg(ap, const char *));) {
    if (!strstr(hc_error_message(), s)) fprintf(stderr, "message '%s' does not name '%s'\n", hc_error_message(), s);
    assert_non_null(strstr(hc_error_message(), s));
  }
  va_end(ap);
  hc_error_clear();
}

static void write_text(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, len, f), len);
  fclose(f);
}

#if HC_HAVE_GMSH || HC_HAVE_EXODUS
/* The first half of a file, written to dst. */
static void truncate_copy(const char *src, const char *dst) {
  FILE *f = fopen(src, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  const long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)size);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  write_text(dst, buf, (size_t)size / 2);
  free(buf);
}

#endif

/* Maps of the reference cube [0,1]^3 used to place nodes. */
typedef void (*map_fn)(const double X[3], double x[3]);

/* Affine, right-handed, det = 2*1.5*0.5... with shear: exact for hex8 and hex27. */
static void map_affine(const double X[3], double x[3]) {
  x[0] = 2.0 * X[0] + 0.3 * X[1] - 0.2 * X[2] + 1.0;
  x[1] = 0.1 * X[0] + 1.5 * X[1] + 0.25 * X[2] - 2.0;
  x[2] = -0.05 * X[0] + 0.2 * X[1] + 0.5 * X[2] + 0.5;
}
static const double affine_det =
    2.0 * (1.5 * 0.5 - 0.25 * 0.2) - 0.3 * (0.1 * 0.5 + 0.25 * 0.05) - 0.2 * (0.1 * 0.2 + 1.5 * 0.05);

#if HC_HAVE_GMSH || HC_HAVE_EXODUS
/* Quadratic per direction, so a triquadratic cell represents it exactly; the integral of its det J over the unit
   cube is 2099/1500 (computed exactly with SymPy). */
static void map_quadratic(const double X[3], double x[3]) {
  x[0] = X[0] * (1.0 + 0.5 * X[1]) + 0.3 * X[2] * X[2];
  x[1] = X[1] * (1.0 + 0.4 * X[2]) + 0.1 * X[0] * X[0];
  x[2] = X[2] + 0.2 * X[1] * X[1];
}

/* A quarter of an annulus: radii 0.5..1, height 0.5; volume pi (1 - 1/4) 0.5 / 4. */
static const double annulus_r = 0.5, annulus_R = 1.0, annulus_h = 0.5;
static void map_annulus(const double X[3], double x[3]) {
  const double r = annulus_r + (annulus_R - annulus_r) * X[0], t = 0.5 * M_PI * X[1];
  x[0] = r * cos(t);
  x[1] = r * sin(t);
  x[2] = annulus_h * X[2];
}

/* Checks that node (a,b,c) of cell (i,j,k) of an N^3 grid of order-n cells (cell tag 1 + i + N(j + N k)) lies at
   map((n i + a, n j + b, n k + c) / (n N)), for every cell of mesh. */
static void check_structured(const hc_meshfile *mesh, int N, int n, map_fn map, int64_t tag0) {
  assert_int_equal(mesh->nodes_per_cell, n == 1 ? 8 : 27);
  assert_int_equal(mesh->num_cells, (int64_t)N * N * N);
  assert_int_equal(mesh->num_vertices, (int64_t)(n * N + 1) * (n * N + 1) * (n * N + 1));
  const int m = n + 1;
  for (int64_t cell = 0; cell < mesh->num_cells; cell++) {
    const int64_t e = mesh->cell_tag[cell] - tag0;
    assert_true(e >= 0 && e < (int64_t)N * N * N);
    const int i = (int)(e % N), j = (int)(e / N % N), k = (int)(e / N / N);
    for (int c = 0; c < m; c++)
      for (int b = 0; b < m; b++)
        for (int a = 0; a < m; a++) {
          const double X[3] = {(double)(n * i + a) / (n * N), (double)(n * j + b) / (n * N),
                               (double)(n * k + c) / (n * N)};
          double x[3];
          map(X, x);
          const double *got = mesh->coords + 3 * mesh->cells[cell * mesh->nodes_per_cell + a + m * (b + m * c)];
          for (int d = 0; d < 3; d++) {
            if (fabs(got[d] - x[d]) > 1e-14 * (1.0 + fabs(x[d])))
              fprintf(stderr, "%s: cell %lld node (%d,%d,%d) coordinate %d: %.17g, expected %.17g\n", mesh->path,
                      (long long)mesh->cell_tag[cell], a, b, c, d, got[d], x[d]);
            assert_true(fabs(got[d] - x[d]) <= 1e-14 * (1.0 + fabs(x[d])));
          }
        }
  }
}

#endif

/* hex8 volume: the closed form against the 2x2x2 Gauss rule, which is exact for a trilinear det J (degree 2 per
   direction), on randomly perturbed cells; and hex27 volume of an affine cell. */
static void test_volume_closed_form(void **state) {
  (void)state;
  hc_meshfile m = {.path = "mem", .format = "gmsh", .nodes_per_cell = 8, .num_vertices = 8, .num_cells = 1};
  double coords[8][3];
  int64_t cells[27], tags[27];
  for (int t = 0; t < 27; t++) cells[t] = t, tags[t] = t + 1;
  m.coords = &coords[0][0];
  m.cells = cells;
  m.cell_tag = tags;
  m.vertex_tag = tags;
  srand(7);
  for (int trial = 0; trial < 100; trial++) {
    for (int v = 0; v < 8; v++)
      for (int d = 0; d < 3; d++)
        coords[v][d] = 10.0 * (d == 0) + ((v >> d) & 1) + 0.3 * ((double)rand() / RAND_MAX - 0.5);
    const double g = 0.5 / sqrt(3.0);
    double gauss = 0.0;
    for (int q = 0; q < 8; q++) {
      const double p[3] = {0.5 + ((q & 1) ? g : -g), 0.5 + ((q & 2) ? g : -g), 0.5 + ((q & 4) ? g : -g)};
      double J[3][3] = {{0}};
      for (int v = 0; v < 8; v++) {
        const int a = v & 1, b = (v >> 1) & 1, c = (v >> 2) & 1;
        const double w[3] = {a ? 1 : -1, b ? 1 : -1, c ? 1 : -1};
        const double l[3] = {a ? p[0] : 1 - p[0], b ? p[1] : 1 - p[1], c ? p[2] : 1 - p[2]};
        const double dN[3] = {w[0] * l[1] * l[2], l[0] * w[1] * l[2], l[0] * l[1] * w[2]};
        for (int r = 0; r < 3; r++)
          for (int d = 0; d < 3; d++) J[r][d] += dN[r] * coords[v][d];
      }
      gauss += 0.125 *
               (J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]));
    }
    assert_float_equal(hc_meshfile_volume(&m), gauss, 1e-13);
  }
  /* hex27: an affine cell. */
  double c27[27][3];
  for (int t = 0; t < 27; t++) {
    const double X[3] = {0.5 * (t % 3), 0.5 * (t / 3 % 3), 0.5 * (t / 9)};
    map_affine(X, c27[t]);
  }
  m.nodes_per_cell = 27;
  m.num_vertices = 27;
  m.coords = &c27[0][0];
  assert_float_equal(hc_meshfile_volume(&m), affine_det, 1e-14);
  double lo[3], hi[3];
  hc_meshfile_bounds(&m, lo, hi);
  assert_float_equal(lo[0], 1.0 - 0.2, 1e-15);
  assert_float_equal(hi[0], 2.0 + 0.3 + 1.0, 1e-15);
}

/* Files refused before any format library is involved. */
static void test_refused_any_build(void **state) {
  (void)state;
  char path[4096];
  hc_meshfile *mesh = (hc_meshfile *)&path; /* overwritten with NULL on failure */
  path_in(path, sizeof(path), "mesh.stl");
  write_text(path, "solid x\n", 8);
  expect_error(hc_meshfile_read(path, &mesh), HC_ERR_INPUT, path, "unknown mesh file extension '.stl'", NULL);
  assert_null(mesh);
  path_in(path, sizeof(path), "noextension");
  write_text(path, "x\n", 2);
  expect_error(hc_meshfile_read(path, &mesh), HC_ERR_INPUT, path, "unknown mesh file extension", NULL);
  path_in(path, sizeof(path), "missing.msh");
  expect_error(hc_meshfile_read(path, &mesh), HC_ERR_INPUT, path, "No such file", NULL);
  path_in(path, sizeof(path), "missing.exo");
  expect_error(hc_meshfile_read(path, &mesh), HC_ERR_INPUT, path, "No such file", NULL);
  path_in(path, sizeof(path), "empty.msh");
  write_text(path, "", 0);
  expect_error(hc_meshfile_read(path, &mesh), HC_ERR_INPUT, path, "empty", NULL);
  path_in(path, sizeof(path), "dir.msh");
  mkdir(path, 0700);
  expect_error(hc_meshfile_read(path, &mesh), HC_ERR_INPUT, path, NULL);
  rmdir(path);
  expect_error(hc_meshfile_read("", &mesh), HC_ERR_INPUT, "no file name", NULL);
  assert_int_equal(hc_meshfile_destroy(NULL), HC_OK);
  mesh = NULL;
  assert_int_equal(hc_meshfile_destroy(&mesh), HC_OK);
}

#if HC_HAVE_GMSH
/* Gmsh's own statement of its node order: the reference coordinates of each node of an element type, mapped to
   grid offsets 0..n. */
static void gmsh_local_nodes(int type, int n, int offsets[27][3]) {
  int ierr = 0, dim, order, num_nodes, num_primary;
  char *name = NULL;
  double *local = NULL;
  size_t num_local = 0;
  gmshModelMeshGetElementProperties(type, &name, &dim, &order, &num_nodes, &local, &num_local, &num_primary, &ierr);
  assert_int_equal(ierr, 0);
  assert_int_equal(num_nodes, (n + 1) * (n + 1) * (n + 1));
  for (int g = 0; g < num_nodes; g++)
    for (int d = 0; d < 3; d++) offsets[g][d] = (int)lround((local[3 * g + d] + 1.0) * 0.5 * n);
  gmshFree(name);
  gmshFree(local);
}

enum { GMSH_PLAIN = 0, GMSH_INVERT_CELL_5 = 1, GMSH_ADD_BOUNDARY = 2 };

/* Builds an N^3 grid of hexahedra of order n (Gmsh type 5 or 12) through Gmsh's API, nodes at map(grid), cell
   (i,j,k) tagged 1 + i + N(j + N k), connectivity from Gmsh's reference coordinates; flags add boundary quads and a
   point element (which the reader must ignore) or swap the first two nodes of cell 5. Writes it to each path
   (version 4.1 or 2.2 as named by versions[], binary where binary[] says). */
static void gmsh_build(int N, int n, map_fn map, int flags, int count, const char *const paths[],
                       const double versions[], const int binary[]) {
  int ierr = 0;
  gmshInitialize(0, NULL, 0, &ierr);
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  gmshModelAdd("test", &ierr);
  gmshModelAddDiscreteEntity(3, 1, NULL, 0, &ierr);
  assert_int_equal(ierr, 0);
  const int M = n * N + 1;
  const size_t num_nodes = (size_t)M * M * M;
  size_t *tags = malloc(num_nodes * sizeof(*tags));
  double *xyz = malloc(3 * num_nodes * sizeof(*xyz));
  for (int k = 0; k < M; k++)
    for (int j = 0; j < M; j++)
      for (int i = 0; i < M; i++) {
        const size_t id = (size_t)i + M * ((size_t)j + M * k);
        const double X[3] = {(double)i / (M - 1), (double)j / (M - 1), (double)k / (M - 1)};
        tags[id] = 1 + id;
        map(X, xyz + 3 * id);
      }
  gmshModelMeshAddNodes(3, 1, tags, num_nodes, xyz, 3 * num_nodes, NULL, 0, &ierr);
  assert_int_equal(ierr, 0);
  const int type = n == 1 ? 5 : 12, L = (n + 1) * (n + 1) * (n + 1);
  int off[27][3];
  gmsh_local_nodes(type, n, off);
  const size_t num_cells = (size_t)N * N * N;
  size_t *etags = malloc(num_cells * sizeof(*etags)), *enodes = malloc(num_cells * L * sizeof(*enodes));
  for (size_t e = 0; e < num_cells; e++) {
    const int i = (int)(e % N), j = (int)(e / N % N), k = (int)(e / N / N);
    etags[e] = 1 + e;
    for (int g = 0; g < L; g++)
      enodes[e * L + g] =
          1 + (size_t)(n * i + off[g][0]) + M * ((size_t)(n * j + off[g][1]) + M * (size_t)(n * k + off[g][2]));
    if ((flags & GMSH_INVERT_CELL_5) && etags[e] == 5) {
      const size_t t = enodes[e * L];
      enodes[e * L] = enodes[e * L + 1];
      enodes[e * L + 1] = t;
    }
  }
  gmshModelMeshAddElementsByType(1, type, etags, num_cells, enodes, num_cells * L, &ierr);
  assert_int_equal(ierr, 0);
  if (flags & GMSH_ADD_BOUNDARY) {
    /* Quads on the face z = 0 (corner nodes only; Gmsh type 3) and a point element on node 1 (type 15). */
    gmshModelAddDiscreteEntity(2, 1, NULL, 0, &ierr);
    gmshModelAddDiscreteEntity(0, 1, NULL, 0, &ierr);
    size_t qt[1] = {num_cells + 1}, qn[4] = {1, 1 + (size_t)n, 1 + (size_t)n + (size_t)n * M, 1 + (size_t)n * M};
    gmshModelMeshAddElementsByType(1, 3, qt, 1, qn, 4, &ierr);
    assert_int_equal(ierr, 0);
    size_t pt[1] = {num_cells + 2}, pn[1] = {1};
    gmshModelMeshAddElementsByType(1, 15, pt, 1, pn, 1, &ierr);
    assert_int_equal(ierr, 0);
  }
  for (int f = 0; f < count; f++) {
    gmshOptionSetNumber("Mesh.MshFileVersion", versions[f], &ierr);
    gmshOptionSetNumber("Mesh.Binary", binary[f], &ierr);
    gmshWrite(paths[f], &ierr);
    assert_int_equal(ierr, 0);
  }
  free(tags);
  free(xyz);
  free(etags);
  free(enodes);
  gmshFinalize(&ierr);
}

/* hex8 and hex27 through Gmsh in 4.1 ASCII, 4.1 binary and 2.2 ASCII: every node of every cell where the map puts
   it, and the volume. */
static void gmsh_round_trip(int N, int n, map_fn map, double volume, double tol, const char *stem) {
  char p[3][4096];
  const char *paths[3] = {p[0], p[1], p[2]};
  const char *suffix[3] = {"41.msh", "41bin.msh", "22.msh"};
  for (int f = 0; f < 3; f++) snprintf(p[f], sizeof(p[f]), "%s/%s-%s", scratch, stem, suffix[f]);
  gmsh_build(N, n, map, GMSH_ADD_BOUNDARY, 3, paths, (const double[]){4.1, 4.1, 2.2}, (const int[]){0, 1, 0});
  for (int f = 0; f < 3; f++) {
    hc_meshfile *mesh = NULL;
    if (hc_meshfile_read(paths[f], &mesh) != HC_OK) fprintf(stderr, "%s\n", hc_error_message());
    assert_non_null(mesh);
    assert_string_equal(mesh->format, "gmsh");
    assert_string_equal(mesh->path, paths[f]);
    /* Version 2.2 numbers the elements consecutively through the dimensions: the point and the quad come first. */
    check_structured(mesh, N, n, map, f == 2 ? 3 : 1);
    const double v = hc_meshfile_volume(mesh);
    if (fabs(v - volume) > tol * volume) fprintf(stderr, "%s: volume %.17g, expected %.17g\n", paths[f], v, volume);
    assert_true(fabs(v - volume) <= tol * volume);
    hc_meshfile_destroy(&mesh);
    assert_null(mesh);
  }
}

static void test_gmsh_hex8(void **state) {
  (void)state;
  gmsh_round_trip(3, 1, map_affine, affine_det, 1e-14, "hex8-affine");
}

static void test_gmsh_hex27(void **state) {
  (void)state;
  gmsh_round_trip(2, 2, map_quadratic, 2099.0 / 1500.0, 1e-14, "hex27-quadratic");
  /* The annulus's arcs are interpolated by quadratics through three points of the circle; the volume converges at
     fourth order in the cells' angle. Measured relative errors: 4.93e-5 with 4 cells per quarter, 3.1e-6 with 8
     (ratio 16). The tolerances are 2x and 3x those, tight enough that a wrong mid-edge or mid-face node (an O(1)
     error in a cell's volume) fails. */
  const double quarter = M_PI * (annulus_R * annulus_R - annulus_r * annulus_r) * annulus_h / 4.0;
  gmsh_round_trip(4, 2, map_annulus, quarter, 1e-4, "hex27-annulus4");
  gmsh_round_trip(8, 2, map_annulus, quarter, 1e-5, "hex27-annulus8");
}

/* Node tags far apart (the reader's sorted tag map rather than its dense one): kept as the file's, and the cell
   finds its nodes. */
static void test_gmsh_sparse_tags(void **state) {
  (void)state;
  char path[4096], text[1024];
  path_in(path, sizeof(path), "sparse.msh");
  snprintf(text, sizeof(text),
           "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n9\n7000000 0 0 0\n1000000 1 0 0\n3000000 1 1 0\n"
           "2000000 0 1 0\n5000000 0 0 1\n4000000 1 0 1\n9000000 1 1 1\n6000000 0 1 1\n12 5 5 5\n$EndNodes\n"
           "$Elements\n1\n77 5 0 7000000 1000000 3000000 2000000 5000000 4000000 9000000 6000000\n$EndElements\n");
  write_text(path, text, strlen(text));
  hc_meshfile *mesh = NULL;
  assert_int_equal(hc_meshfile_read(path, &mesh), HC_OK);
  assert_int_equal(mesh->num_cells, 1);
  assert_int_equal(mesh->num_vertices, 8); /* node 12, which no cell references, is dropped */
  assert_int_equal(mesh->cell_tag[0], 77);
  const int64_t want[8] = {7000000, 1000000, 2000000, 3000000, 5000000, 4000000, 6000000, 9000000};
  for (int t = 0; t < 8; t++) {
    assert_int_equal(mesh->vertex_tag[mesh->cells[t]], want[t]);
    for (int d = 0; d < 3; d++) assert_true(mesh->coords[3 * mesh->cells[t] + d] == ((t >> d) & 1));
  }
  double lo[3], hi[3];
  hc_meshfile_bounds(mesh, lo, hi);
  assert_true(lo[0] == 0.0 && hi[2] == 1.0);
  assert_true(hc_meshfile_volume(mesh) == 1.0);
  hc_meshfile_destroy(&mesh);
}

/* The node-order tables against Gmsh's reference coordinates, through the writer: a mesh written by
   hc_meshfile_write_gmsh and read back by Gmsh's reader is the same mesh. */
static void test_gmsh_writer(void **state) {
  (void)state;
  for (int n = 1; n <= 2; n++) {
    char src[4096], dst[4096];
    snprintf(src, sizeof(src), "%s/writer-src-%d.msh", scratch, n);
    snprintf(dst, sizeof(dst), "%s/writer-dst-%d.msh", scratch, n);
    const char *paths[1] = {src};
    gmsh_build(2, n, map_quadratic, GMSH_PLAIN, 1, paths, (const double[]){4.1}, (const int[]){1});
    hc_meshfile *a = NULL, *b = NULL;
    assert_int_equal(hc_meshfile_read(src, &a), HC_OK);
    assert_int_equal(hc_meshfile_write_gmsh(a, dst), HC_OK);
    assert_int_equal(hc_meshfile_read(dst, &b), HC_OK);
    assert_int_equal(a->num_cells, b->num_cells);
    assert_int_equal(a->num_vertices, b->num_vertices);
    for (int64_t i = 0; i < a->num_cells * a->nodes_per_cell; i++)
      for (int d = 0; d < 3; d++) assert_true(a->coords[3 * a->cells[i] + d] == b->coords[3 * b->cells[i] + d]);
    check_structured(b, 2, n, map_quadratic, 1);
    hc_meshfile_destroy(&a);
    hc_meshfile_destroy(&b);
  }
  /* The hex27 file with a negative node tag in its first element crashes Gmsh 4.8 (GModel::getMeshVertexByTag):
     the reader's child process dies, and the reader says so. */
  char src[4096], dst[4096];
  snprintf(src, sizeof(src), "%s/writer-dst-2.msh", scratch);
  snprintf(dst, sizeof(dst), "%s/negative-tag.msh", scratch);
  FILE *f = fopen(src, "rb");
  assert_non_null(f);
  static char text[1 << 16];
  const size_t len = fread(text, 1, sizeof(text) - 1, f);
  fclose(f);
  text[len] = '\0';
  char *e = strstr(text, "$Elements\n");
  assert_non_null(e);
  for (int line = 0; line < 3; line++) e = strchr(e, '\n') + 1; /* to the first element: "1 n1 n2 ..." */
  char *n1 = strchr(e, ' ') + 1, *n2 = strchr(n1, ' ');
  char out[sizeof(text) + 16];
  snprintf(out, sizeof(out), "%.*s-5%s", (int)(n1 - text), text, n2);
  write_text(dst, out, strlen(out));
  hc_meshfile *mesh = NULL;
  const int err = hc_meshfile_read(dst, &mesh);
  if (err == HC_ERR_INPUT && strstr(hc_error_message(), "crashed")) printf("%s\n", hc_error_message());
  expect_error(err, HC_ERR_INPUT, dst, NULL);
  assert_null(mesh);
}

static void test_gmsh_refused(void **state) {
  (void)state;
  char path[4096], cut[4096];
  hc_meshfile *mesh = NULL;
  /* Truncated, ASCII and binary. */
  for (int binary = 0; binary <= 1; binary++) {
    path_in(path, sizeof(path), binary ? "whole-bin.msh" : "whole.msh");
    path_in(cut, sizeof(cut), binary ? "truncated-bin.msh" : "truncated.msh");
    const char *paths[1] = {path};
    gmsh_build(4, 1, map_affine, GMSH_PLAIN, 1, paths, (const double[]){4.1}, (const int[]){binary});
    assert_int_equal(hc_meshfile_read(path, &mesh), HC_OK);
    hc_meshfile_destroy(&mesh);
    truncate_copy(path, cut);
    expect_error(hc_meshfile_read(cut, &mesh), HC_ERR_INPUT, cut, NULL);
    assert_null(mesh);
  }
  /* An inverted cell: tag 5 with its first two nodes swapped (a reflection: det J < 0 at its corners). */
  path_in(path, sizeof(path), "inverted.msh");
  const char *paths[1] = {path};
  gmsh_build(3, 1, map_affine, GMSH_INVERT_CELL_5, 1, paths, (const double[]){4.1}, (const int[]){0});
  expect_error(hc_meshfile_read(path, &mesh), HC_ERR_INPUT, path, "cell 5 is inverted", "det J", NULL);
  path_in(path, sizeof(path), "inverted27.msh");
  gmsh_build(2, 2, map_quadratic, GMSH_INVERT_CELL_5, 1, paths, (const double[]){2.2}, (const int[]){0});
  expect_error(hc_meshfile_read(path, &mesh), HC_ERR_INPUT, path, "cell 5 is inverted", NULL);
  /* Tetrahedra, a 20-node hexahedron, hex8 mixed with hex27 (in two volumes: Gmsh keeps one element type per
     family in a volume), no 3D cells, a missing node: written by hand. */
  static const char head[] =
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n8\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n"
      "5 0 0 1\n6 1 0 1\n7 1 1 1\n8 0 1 1\n$EndNodes\n$Elements\n";
  const struct {
    const char *name, *elements, *expect;
  } bad[] = {
      {"tet.msh", "2\n11 4 0 1 2 4 5\n12 4 0 2 3 4 7\n", "cell 11 is a Tetrahedron 4"},
      {"hex20.msh", "1\n7 17 0 1 2 3 4 5 6 7 8 1 2 3 4 5 6 7 8 1 2 3 4\n", "cell 7 is a Hexahedron 20"},
      {"mixed.msh", "2\n1 5 2 0 1 1 2 3 4 5 6 7 8\n2 12 2 0 2 1 2 3 4 5 6 7 8 1 2 3 4 5 6 7 8 1 2 3 4 5 6 7 8 1 2 3\n",
       "mixes 8-node and 27-node hexahedra"},
      {"quads.msh", "1\n1 3 0 1 2 3 4\n", "no hexahedra"},
      {"badnode.msh", "1\n9 5 0 1 2 3 4 5 6 7 99\n", "99"},
      {"degenerate.msh", "1\n4 5 0 1 2 3 4 5 6 7 7\n", "cell 4 is degenerate: det J = 0"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    char text[1024];
    snprintf(text, sizeof(text), "%s%s$EndElements\n", head, bad[i].elements);
    path_in(path, sizeof(path), bad[i].name);
    write_text(path, text, strlen(text));
    expect_error(hc_meshfile_read(path, &mesh), HC_ERR_INPUT, path, bad[i].expect, NULL);
    assert_null(mesh);
  }
  /* Not a mesh at all. */
  path_in(path, sizeof(path), "garbage.msh");
  write_text(path, "\x01\x02 this is not a mesh\n", 22);
  expect_error(hc_meshfile_read(path, &mesh), HC_ERR_INPUT, path, NULL);
  /* The reader leaves Gmsh finalised: a second read works. */
  path_in(path, sizeof(path), "whole.msh");
  assert_int_equal(hc_meshfile_read(path, &mesh), HC_OK);
  hc_meshfile_destroy(&mesh);
}
#endif

#if HC_HAVE_EXODUS
/* Exodus II's HEX27 as its documentation draws it, as grid offsets 0..2 (corners, the edges (0,1) (1,2) (2,3) (3,0)
   (0,4) (1,5) (2,6) (3,7) (4,5) (5,6) (6,7) (7,4), the centre, then the faces z = 0, z = 2, x = 0, x = 2, y = 0,
   y = 2); HEX8 is its first 8 rows halved. */
static const int exodus_hex27[27][3] = {{0, 0, 0}, {2, 0, 0}, {2, 2, 0}, {0, 2, 0}, {0, 0, 2}, {2, 0, 2}, {2, 2, 2},
                                        {0, 2, 2}, {1, 0, 0}, {2, 1, 0}, {1, 2, 0}, {0, 1, 0}, {0, 0, 1}, {2, 0, 1},
                                        {2, 2, 1}, {0, 2, 1}, {1, 0, 2}, {2, 1, 2}, {1, 2, 2}, {0, 1, 2}, {1, 1, 1},
                                        {1, 1, 0}, {1, 1, 2}, {0, 1, 1}, {2, 1, 1}, {1, 0, 1}, {1, 2, 1}};

/* Writes an N^3 grid of HEX8 or HEX27 (type names as given) through the Exodus II API, nodes at map(grid), cell e
   numbered tag0 + e in the element map; a second block of one TETRA4 when with_tet is 1 (one SHELL4 when 2, which
   the reader ignores), one cell inverted when
   invert_cell >= 0. */
static void exodus_build(const char *path, int N, int n, const char *type, map_fn map, int64_t tag0, int with_tet,
                         int invert_cell) {
  int cws = 8, iows = 8;
  const int exoid = ex_create(path, EX_CLOBBER, &cws, &iows);
  assert_true(exoid >= 0);
  /* HEX20: the first 20 nodes of HEX27. */
  const int M = n * N + 1, L = strcmp(type, "HEX20") == 0 ? 20 : (n + 1) * (n + 1) * (n + 1);
  const int num_nodes = M * M * M, num_cells = N * N * N;
  assert_int_equal(
      ex_put_init(exoid, "hexcontract test", 3, num_nodes, num_cells + (with_tet ? 1 : 0), with_tet ? 2 : 1, 0, 0), 0);
  double *x = malloc(sizeof(double) * num_nodes), *y = malloc(sizeof(double) * num_nodes),
         *z = malloc(sizeof(double) * num_nodes);
  for (int k = 0; k < M; k++)
    for (int j = 0; j < M; j++)
      for (int i = 0; i < M; i++) {
        const int id = i + M * (j + M * k);
        const double X[3] = {(double)i / (M - 1), (double)j / (M - 1), (double)k / (M - 1)};
        double p[3];
        map(X, p);
        x[id] = p[0], y[id] = p[1], z[id] = p[2];
      }
  assert_int_equal(ex_put_coord(exoid, x, y, z), 0);
  assert_int_equal(ex_put_elem_block(exoid, 10, type, num_cells, L, 0), 0);
  int *conn = malloc(sizeof(int) * num_cells * L);
  for (int e = 0; e < num_cells; e++) {
    const int i = e % N, j = e / N % N, k = e / N / N;
    for (int g = 0; g < L; g++) {
      const int *o = exodus_hex27[g];
      const int s = n == 1 ? 2 : 1; /* HEX8: the corners' offsets halved */
      conn[e * L + g] = 1 + (n * i + o[0] / s) + M * ((n * j + o[1] / s) + M * (n * k + o[2] / s));
    }
    if (e == invert_cell) {
      const int t = conn[e * L + 1];
      conn[e * L + 1] = conn[e * L + 3];
      conn[e * L + 3] = t;
    }
  }
  assert_int_equal(ex_put_elem_conn(exoid, 10, conn), 0);
  if (with_tet) {
    assert_int_equal(ex_put_elem_block(exoid, 20, with_tet == 2 ? "SHELL4" : "TETRA4", 1, 4, 0), 0);
    const int tet[4] = {1, 2, 1 + M, 1 + M * M};
    assert_int_equal(ex_put_elem_conn(exoid, 20, tet), 0);
  }
  int *map_e = malloc(sizeof(int) * (num_cells + 1));
  for (int e = 0; e < num_cells + 1; e++) map_e[e] = (int)tag0 + e;
  assert_int_equal(ex_put_elem_num_map(exoid, map_e), 0);
  assert_int_equal(ex_close(exoid), 0);
  free(x);
  free(y);
  free(z);
  free(conn);
  free(map_e);
}

static void test_exodus_hex8_hex27(void **state) {
  (void)state;
  char path[4096];
  hc_meshfile *mesh = NULL;
  const struct {
    const char *file, *type;
    int N, n;
    map_fn map;
    double volume, tol;
  } cases[] = {
      {"hex8.exo", "HEX8", 3, 1, map_affine, affine_det, 1e-14},
      {"hex8-name.e", "HEX", 2, 1, map_affine, affine_det, 1e-14},
      {"hex8-long-name.exo", "hexahedron", 2, 1, map_affine, affine_det, 1e-14},
      {"hex27.exo", "HEX27", 2, 2, map_quadratic, 2099.0 / 1500.0, 1e-14},
      {"annulus27.e", "hex27", 4, 2, map_annulus, M_PI * 0.75 * 0.5 / 4.0, 1e-4},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    path_in(path, sizeof(path), cases[i].file);
    exodus_build(path, cases[i].N, cases[i].n, cases[i].type, cases[i].map, 1001, 2, -1);
    if (hc_meshfile_read(path, &mesh) != HC_OK) fprintf(stderr, "%s\n", hc_error_message());
    assert_non_null(mesh);
    assert_string_equal(mesh->format, "exodus");
    check_structured(mesh, cases[i].N, cases[i].n, cases[i].map, 1001);
    assert_true(fabs(hc_meshfile_volume(mesh) - cases[i].volume) <= cases[i].tol * cases[i].volume);
    assert_int_equal(mesh->vertex_tag[0], 1);
    hc_meshfile_destroy(&mesh);
  }
}

static void test_exodus_refused(void **state) {
  (void)state;
  char path[4096], cut[4096];
  hc_meshfile *mesh = NULL;
  path_in(path, sizeof(path), "tet.exo");
  exodus_build(path, 2, 1, "HEX8", map_affine, 1, 1, -1);
  expect_error(hc_meshfile_read(path, &mesh), HC_ERR_INPUT, path, "cell 9 ", "TETRA4", NULL);
  path_in(path, sizeof(path), "hex20.exo");
  exodus_build(path, 1, 2, "HEX20", map_affine, 1, 0, -1);
  expect_error(hc_meshfile_read(path, &mesh), HC_ERR_INPUT, path, "cell 1 ", "HEX20 of 20 nodes", NULL);
  path_in(path, sizeof(path), "inverted.exo");
  exodus_build(path, 2, 1, "HEX8", map_affine, 100, 0, 3);
  expect_error(hc_meshfile_read(path, &mesh), HC_ERR_INPUT, path, "cell 103 is inverted", NULL);
  path_in(path, sizeof(path), "whole.exo");
  path_in(cut, sizeof(cut), "truncated.exo");
  exodus_build(path, 4, 1, "HEX8", map_affine, 1, 0, -1);
  truncate_copy(path, cut);
  expect_error(hc_meshfile_read(cut, &mesh), HC_ERR_INPUT, cut, "truncated", NULL);
  assert_null(mesh);
  path_in(path, sizeof(path), "garbage.e");
  write_text(path, "not netCDF at all\n", 18);
  expect_error(hc_meshfile_read(path, &mesh), HC_ERR_INPUT, path, NULL);
}
#endif

#if HC_HAVE_GMSH
/* Shipped meshes: each reads, has the cells, kind and volume its README states. */
static void read_shipped(const char *name, int nodes_per_cell, int64_t cells, double volume, double tol) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", shipped_dir, name);
  hc_meshfile *mesh = NULL;
  if (hc_meshfile_read(path, &mesh) != HC_OK) fprintf(stderr, "%s\n", hc_error_message());
  assert_non_null(mesh);
  assert_int_equal(mesh->nodes_per_cell, nodes_per_cell);
  assert_int_equal(mesh->num_cells, cells);
  const double v = hc_meshfile_volume(mesh);
  printf("%s: %lld cells of %d nodes, %lld nodes, volume %.15g (expected %.15g)\n", name, (long long)mesh->num_cells,
         mesh->nodes_per_cell, (long long)mesh->num_vertices, v, volume);
  assert_true(fabs(v - volume) <= tol * volume);
  hc_meshfile_destroy(&mesh);
}

static void test_shipped(void **state) {
  (void)state;
  read_shipped("box-4x4x4.msh", 8, 64, 1.0, 1e-15);
  /* Transfinite interpolation places the bracket's nodes up to rounding: 1e-13. */
  read_shipped("lbracket.msh", 8, 768, 1.5, 1e-13);
  read_shipped("mixed-orientation.msh", 8, 216, 1.0, 1e-14);
  /* Quadratic arcs, 24 cells around: relative error 9.8e-6 (fourth order: the 4.9e-5 of test_gmsh_hex27's 16 cells
     around, times (16/24)^4); tolerance 3e-5. */
  read_shipped("pipe.msh", 27, 432, M_PI * (1.0 - 0.25) * 1.0, 3e-5);
  /* The box's nodes lie exactly at i/4. */
  char path[4096];
  snprintf(path, sizeof(path), "%s/box-4x4x4.msh", shipped_dir);
  hc_meshfile *mesh = NULL;
  assert_int_equal(hc_meshfile_read(path, &mesh), HC_OK);
  assert_int_equal(mesh->num_vertices, 125);
  for (int64_t v = 0; v < 3 * mesh->num_vertices; v++)
    assert_true(mesh->coords[v] * 4.0 == round(mesh->coords[v] * 4.0));
  hc_meshfile_destroy(&mesh);
  /* Mixed orientation: the cells' first reference direction (vertex 1 - vertex 0) takes all 6 axis directions. */
  snprintf(path, sizeof(path), "%s/mixed-orientation.msh", shipped_dir);
  assert_int_equal(hc_meshfile_read(path, &mesh), HC_OK);
  int seen[3][2] = {{0}};
  for (int64_t cell = 0; cell < mesh->num_cells; cell++) {
    const double *x0 = mesh->coords + 3 * mesh->cells[8 * cell], *x1 = mesh->coords + 3 * mesh->cells[8 * cell + 1];
    for (int d = 0; d < 3; d++)
      if (fabs(x1[d] - x0[d]) > 0.1) seen[d][x1[d] > x0[d]] = 1;
  }
  for (int d = 0; d < 3; d++) assert_true(seen[d][0] && seen[d][1]);
  hc_meshfile_destroy(&mesh);
}

#endif

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int info(const char *path) {
  hc_meshfile *mesh = NULL;
  const double t0 = now();
  const int err = hc_meshfile_read(path, &mesh);
  const double t1 = now();
  if (err) {
    fprintf(stderr, "test_meshfile: %s\n", hc_error_message());
    return 1;
  }
  double lo[3], hi[3];
  hc_meshfile_bounds(mesh, lo, hi);
  const double v = hc_meshfile_volume(mesh);
  const double t2 = now();
  printf(
      "%s: %s, %lld cells of %d nodes, %lld nodes, read in %.3f s; volume %.15g, bounds [%g %g %g] - [%g %g %g] "
      "(%.3f s)\n",
      path, mesh->format, (long long)mesh->num_cells, mesh->nodes_per_cell, (long long)mesh->num_vertices, t1 - t0, v,
      lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], t2 - t1);
  hc_meshfile_destroy(&mesh);
  /* Peak memory of this process and of the largest child (the Gmsh reader's process). */
  struct rusage self, children;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  printf("peak memory: this process %.0f MiB, the reader's child process %.0f MiB\n", self.ru_maxrss / 1024.0,
         children.ru_maxrss / 1024.0);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: test_meshfile common|gmsh|exodus DIR | shipped MESHDIR | info FILE\n");
    return 2;
  }
  const char *group = argv[1];
  if (strcmp(group, "info") == 0) return info(argv[2]);
  snprintf(scratch, sizeof(scratch), "%s", argv[2]);
  snprintf(shipped_dir, sizeof(shipped_dir), "%s", argv[2]);
  if (strcmp(group, "shipped") != 0) {
    /* mkdir -p */
    for (char *p = scratch + 1; *p; p++)
      if (*p == '/') {
        *p = '\0';
        mkdir(scratch, 0700);
        *p = '/';
      }
    mkdir(scratch, 0700);
  }
  if (strcmp(group, "common") == 0) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_volume_closed_form),
                                       cmocka_unit_test(test_refused_any_build)};
    return cmocka_run_group_tests(tests, NULL, NULL);
  }
  if (strcmp(group, "gmsh") == 0 || strcmp(group, "shipped") == 0) {
    if (!HC_HAVE_GMSH) {
      /* Not built: reading a .msh says so and names the option. */
      char path[4096];
      hc_meshfile *mesh = NULL;
      const int shipped = strcmp(group, "shipped") == 0;
      snprintf(path, sizeof(path), "%s/%s", scratch, shipped ? "box-4x4x4.msh" : "notbuilt.msh");
      if (!shipped) write_text(path, "$MeshFormat\n", 12);
      const int err = hc_meshfile_read(path, &mesh);
      const int ok =
          err == HC_ERR_NOT_BUILT && strstr(hc_error_message(), "HC_ENABLE_GMSH") && strstr(hc_error_message(), path);
      printf("%s\n", hc_error_message());
      if (!shipped) unlink(path);
      if (!ok) return 1;
      printf(
          "SKIPPED: the Gmsh reader is not built into this binary (configure with -DHC_ENABLE_GMSH=ON and "
          "libgmsh-dev): the %s tests did not run\n",
          group);
      return 77;
    }
#if HC_HAVE_GMSH
    if (strcmp(group, "shipped") == 0) {
      const struct CMUnitTest tests[] = {cmocka_unit_test(test_shipped)};
      return cmocka_run_group_tests(tests, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_gmsh_hex8), cmocka_unit_test(test_gmsh_hex27),
                                       cmocka_unit_test(test_gmsh_writer), cmocka_unit_test(test_gmsh_sparse_tags),
                                       cmocka_unit_test(test_gmsh_refused)};
    return cmocka_run_group_tests(tests, NULL, NULL);
#endif
  }
  if (strcmp(group, "exodus") == 0) {
    if (!HC_HAVE_EXODUS) {
      char path[4096];
      hc_meshfile *mesh = NULL;
      snprintf(path, sizeof(path), "%s/notbuilt.exo", scratch);
      write_text(path, "CDF", 3);
      const int err = hc_meshfile_read(path, &mesh);
      const int ok =
          err == HC_ERR_NOT_BUILT && strstr(hc_error_message(), "HC_ENABLE_EXODUS") && strstr(hc_error_message(), path);
      printf("%s\n", hc_error_message());
      unlink(path);
      if (!ok) return 1;
      printf(
          "SKIPPED: the Exodus II reader is not built into this binary (configure with -DHC_ENABLE_EXODUS=ON and "
          "libexodusii-dev): the exodus tests did not run\n");
      return 77;
    }
#if HC_HAVE_EXODUS
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_exodus_hex8_hex27), cmocka_unit_test(test_exodus_refused)};
    return cmocka_run_group_tests(tests, NULL, NULL);
#endif
  }
  fprintf(stderr, "test_meshfile: unknown group '%s'\n", group);
  return 2;
}
