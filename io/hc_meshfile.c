/* Mesh files: the format dispatch, the checks every format shares (no hexahedra, det J), volume, bounds, and the
   Gmsh 4.1 writer. */
#include "io/hc_meshfile.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hc_config.h"
#include "io/hc_atomic_file.h"
#include "io/hc_meshfile_impl.h"
#include "kernels/base/hc_error.h"
#include "kernels/hc_xsum.h"

/* Gmsh's reference hexahedra (Gmsh manual, "Node ordering"; gmsh::model::mesh::getElementProperties gives the same
   local coordinates): corners 0..7 at (-1,-1,-1), (1,-1,-1), (1,1,-1), (-1,1,-1), then the same at z = 1; hex27
   adds the edges (0,1) (0,3) (0,4) (1,2) (1,5) (2,3) (2,6) (3,7) (4,5) (4,7) (5,6) (6,7) as nodes 8..19, the faces
   z = -1, y = -1, x = -1, x = 1, y = 1, z = 1 as 20..25 and the centre as 26. */
const int hc_meshfile_gmsh_hex8[8] = {0, 1, 3, 2, 4, 5, 7, 6};
const int hc_meshfile_gmsh_hex27[27] = {0,  8,  1,  9,  20, 11, 3, 13, 2,  10, 21, 12, 22, 26,
                                        23, 15, 24, 14, 4,  16, 5, 17, 25, 18, 7,  19, 6};
/* Exodus II (SEACAS exodus-element-types.md, the Exodus II manual's HEX27): the corners as Gmsh's; the edges
   (0,1) (1,2) (2,3) (3,0) (0,4) (1,5) (2,6) (3,7) (4,5) (5,6) (6,7) (7,4) as 8..19, the centre as 20, then the
   faces z = -1, z = 1, x = -1, x = 1, y = -1, y = 1 as 21..26. */
const int hc_meshfile_exodus_hex8[8] = {0, 1, 3, 2, 4, 5, 7, 6};
const int hc_meshfile_exodus_hex27[27] = {0,  8,  1,  11, 21, 9,  3, 10, 2,  12, 25, 13, 23, 20,
                                          24, 15, 26, 14, 4,  16, 5, 19, 22, 17, 7,  18, 6};

int hc_meshfile_alloc(const char *path, const char *format, int nodes_per_cell, int64_t num_vertices, int64_t num_cells,
                      hc_meshfile **mesh) {
  *mesh = NULL;
  hc_meshfile *m = calloc(1, sizeof(*m));
  HC_CHECK(m, HC_ERR_RESOURCE, "'%s': out of memory for the mesh", path);
  snprintf(m->path, sizeof(m->path), "%s", path);
  m->format = format;
  m->nodes_per_cell = nodes_per_cell;
  m->num_vertices = num_vertices;
  m->num_cells = num_cells;
  m->coords = malloc((size_t)(num_vertices > 0 ? num_vertices : 1) * 3 * sizeof(*m->coords));
  m->vertex_tag = malloc((size_t)(num_vertices > 0 ? num_vertices : 1) * sizeof(*m->vertex_tag));
  m->cells = malloc((size_t)(num_cells > 0 ? num_cells : 1) * (size_t)nodes_per_cell * sizeof(*m->cells));
  m->cell_tag = malloc((size_t)(num_cells > 0 ? num_cells : 1) * sizeof(*m->cell_tag));
  if (!m->coords || !m->vertex_tag || !m->cells || !m->cell_tag) {
    hc_meshfile_destroy(&m);
    return HC_ERROR(HC_ERR_RESOURCE, "'%s': out of memory for a mesh of %" PRId64 " nodes and %" PRId64 " cells", path,
                    num_vertices, num_cells);
  }
  *mesh = m;
  return HC_OK;
}

int hc_meshfile_destroy(hc_meshfile **mesh) {
  if (!mesh || !*mesh) return HC_OK;
  hc_meshfile *m = *mesh;
  free(m->coords);
  free(m->cells);
  free(m->cell_tag);
  free(m->vertex_tag);
  free(m);
  *mesh = NULL;
  return HC_OK;
}

/* The 1D quadratic Lagrange basis on the nodes -1, 0, 1 and its derivative. */
static void hc_quad_basis(double x, double l[3], double dl[3]) {
  l[0] = 0.5 * x * (x - 1.0);
  l[1] = 1.0 - x * x;
  l[2] = 0.5 * x * (x + 1.0);
  dl[0] = x - 0.5;
  dl[1] = -2.0 * x;
  dl[2] = x + 0.5;
}

static double hc_det3(const double a[3], const double b[3], const double c[3]) {
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
}

/* The columns of the hex27 cell's Jacobian at reference point (x, y, z) in [-1,1]^3: J[d] = dX/dxi_d.
   X: [27][3], tensor order. */
static void hc_hex27_jacobian(const double X[27][3], double x, double y, double z, double J[3][3]) {
  double l[3][3], dl[3][3];
  hc_quad_basis(x, l[0], dl[0]);
  hc_quad_basis(y, l[1], dl[1]);
  hc_quad_basis(z, l[2], dl[2]);
  memset(J, 0, 9 * sizeof(double));
  for (int c = 0; c < 3; c++)
    for (int b = 0; b < 3; b++)
      for (int a = 0; a < 3; a++) {
        const double w[3] = {dl[0][a] * l[1][b] * l[2][c], l[0][a] * dl[1][b] * l[2][c], l[0][a] * l[1][b] * dl[2][c]};
        const double *p = X[a + 3 * (b + 3 * c)];
        for (int d = 0; d < 3; d++)
          for (int e = 0; e < 3; e++) J[d][e] += w[d] * p[e];
      }
}

/* The cell's nodes relative to its first node (rounding then does not grow with the distance from the origin). */
static void hc_cell_nodes(const hc_meshfile *m, int64_t cell, double X[27][3]) {
  const int64_t *nodes = m->cells + cell * m->nodes_per_cell;
  const double *o = m->coords + 3 * nodes[0];
  for (int n = 0; n < m->nodes_per_cell; n++)
    for (int d = 0; d < 3; d++) X[n][d] = m->coords[3 * nodes[n] + d] - o[d];
}

/* The smallest det J of the cell over its corners (hex8: the trilinear map's Jacobian there is exact from the three
   edges leaving the corner) or over its 27 nodes (hex27), and the tensor index where it is reached. */
static double hc_cell_min_det(const hc_meshfile *m, int64_t cell, int *where) {
  double X[27][3];
  hc_cell_nodes(m, cell, X);
  double min_det = INFINITY;
  *where = 0;
  if (m->nodes_per_cell == 8) {
    for (int v = 0; v < 8; v++) {
      const int a = v & 1, b = (v >> 1) & 1, c = (v >> 2) & 1;
      double e[3][3];
      for (int d = 0; d < 3; d++) {
        e[0][d] = X[1 + 2 * b + 4 * c][d] - X[2 * b + 4 * c][d];
        e[1][d] = X[a + 2 + 4 * c][d] - X[a + 4 * c][d];
        e[2][d] = X[a + 2 * b + 4][d] - X[a + 2 * b][d];
      }
      const double det = hc_det3(e[0], e[1], e[2]);
      if (det < min_det) min_det = det, *where = v;
    }
  } else {
    for (int t = 0; t < 27; t++) {
      double J[3][3];
      hc_hex27_jacobian(X, t % 3 - 1.0, (t / 3) % 3 - 1.0, t / 9 - 1.0, J);
      /* On [-1,1]^3 det J is 8 times the det J of the cell mapped from [0,1]^3, as the hex8 corners use. */
      const double det = hc_det3(J[0], J[1], J[2]) / 8.0;
      if (det < min_det) min_det = det, *where = t;
    }
  }
  return min_det;
}

/* det J <= 0 anywhere it is checked: HC_ERR_INPUT naming the cell, the node and its position. Degenerate cells
   (two nodes at one place) give det J = 0 up to rounding, so "not positive" means below 1e-12 of the cell's size
   cubed. */
int hc_meshfile_check_cells(const hc_meshfile *m) {
  const int n = m->nodes_per_cell == 8 ? 2 : 3;
  for (int64_t cell = 0; cell < m->num_cells; cell++) {
    int where = 0;
    const double det = hc_cell_min_det(m, cell, &where);
    const int64_t *nodes = m->cells + cell * m->nodes_per_cell;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < m->nodes_per_cell; k++)
      for (int d = 0; d < 3; d++) {
        lo[d] = fmin(lo[d], m->coords[3 * nodes[k] + d]);
        hi[d] = fmax(hi[d], m->coords[3 * nodes[k] + d]);
      }
    const double h = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    if (!(det > 1e-12 * h * h * h)) {
      const int a = where % n, b = (where / n) % n, c = where / (n * n);
      const double *x = m->coords + 3 * nodes[where];
      return HC_ERROR(HC_ERR_INPUT,
                      "'%s': cell %" PRId64 " is %s: det J = %.3g at its %s (a,b,c) = (%d,%d,%d), node %" PRId64
                      " at (%.9g, %.9g, %.9g); a cell's nodes must be ordered so that its reference frame is "
                      "right-handed (positive det J) and the cell is not flattened",
                      m->path, m->cell_tag[cell], det < 0 ? "inverted" : "degenerate", det, n == 2 ? "corner" : "node",
                      a, b, c, m->vertex_tag[nodes[where]], x[0], x[1], x[2]);
    }
  }
  return HC_OK;
}

/* Drops the nodes that no cell references, keeping the others in the file's order. */
static int hc_meshfile_compact(hc_meshfile *m) {
  int64_t *renumber = malloc((size_t)(m->num_vertices > 0 ? m->num_vertices : 1) * sizeof(*renumber));
  HC_CHECK(renumber, HC_ERR_RESOURCE, "'%s': out of memory for %" PRId64 " nodes", m->path, m->num_vertices);
  for (int64_t v = 0; v < m->num_vertices; v++) renumber[v] = -1;
  const int64_t entries = m->num_cells * m->nodes_per_cell;
  for (int64_t i = 0; i < entries; i++) renumber[m->cells[i]] = 0;
  int64_t kept = 0;
  for (int64_t v = 0; v < m->num_vertices; v++) {
    if (renumber[v] < 0) continue;
    renumber[v] = kept;
    for (int d = 0; d < 3; d++) m->coords[3 * kept + d] = m->coords[3 * v + d];
    m->vertex_tag[kept] = m->vertex_tag[v];
    kept++;
  }
  for (int64_t i = 0; i < entries; i++) m->cells[i] = renumber[m->cells[i]];
  free(renumber);
  m->num_vertices = kept;
  return HC_OK;
}

#if !HC_HAVE_GMSH
int hc_meshfile_read_gmsh(const char *path, hc_meshfile **mesh) {
  *mesh = NULL;
  return HC_ERROR(HC_ERR_NOT_BUILT,
                  "'%s': this binary was built without the Gmsh reader; install Gmsh's C API (Debian: libgmsh-dev, "
                  "which run_scripts/setup.sh installs) and configure with -DHC_ENABLE_GMSH=ON (or AUTO)",
                  path);
}
const char *hc_meshfile_gmsh_info(void) {
  return NULL;
}
#endif

#if !HC_HAVE_EXODUS
int hc_meshfile_read_exodus(const char *path, hc_meshfile **mesh) {
  *mesh = NULL;
  return HC_ERROR(HC_ERR_NOT_BUILT,
                  "'%s': this binary was built without the Exodus II reader; install the Exodus II library (Debian: "
                  "libexodusii-dev, which run_scripts/setup.sh installs) and configure with -DHC_ENABLE_EXODUS=ON "
                  "(or AUTO)",
                  path);
}
const char *hc_meshfile_exodus_info(void) {
  return NULL;
}
#endif

const char *hc_meshfile_reader_info(const char *format) {
  if (format && strcmp(format, "gmsh") == 0) return HC_HAVE_GMSH ? hc_meshfile_gmsh_info() : NULL;
  if (format && strcmp(format, "exodus") == 0) return HC_HAVE_EXODUS ? hc_meshfile_exodus_info() : NULL;
  return NULL;
}

/* The file's extension, case-insensitively: 1 Gmsh, 2 Exodus II, 0 neither. */
static int hc_meshfile_kind(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *dot = strrchr(slash ? slash + 1 : path, '.');
  if (!dot) return 0;
  if (strcasecmp(dot, ".msh") == 0) return 1;
  if (strcasecmp(dot, ".exo") == 0 || strcasecmp(dot, ".e") == 0) return 2;
  return 0;
}

/* The checks before any reader runs: a name, a known extension, a file that opens and is not empty. */
static int hc_meshfile_check_path(const char *path) {
  HC_CHECK(path && path[0], HC_ERR_INPUT, "mesh file: no file name given");
  HC_CHECK(strlen(path) < sizeof(((hc_meshfile *)0)->path), HC_ERR_INPUT,
           "mesh file '%.64s...': the name is longer than %zu characters", path, sizeof(((hc_meshfile *)0)->path) - 1);
  const int kind = hc_meshfile_kind(path);
  const char *slash = strrchr(path, '/');
  const char *dot = strrchr(slash ? slash + 1 : path, '.');
  HC_CHECK(kind != 0, HC_ERR_INPUT,
           "'%s': unknown mesh file extension '%s'; hexcontract reads .msh (Gmsh 4.1 or 2.2) and .exo or .e "
           "(Exodus II)",
           path, dot ? dot : "(none)");
  FILE *f = fopen(path, "rb");
  HC_CHECK(f, HC_ERR_INPUT, "'%s': cannot open the mesh file: %s", path, strerror(errno));
  int c = fgetc(f);
  const int read_error = ferror(f);
  fclose(f);
  HC_CHECK(!read_error, HC_ERR_INPUT, "'%s': cannot read the mesh file (is it a directory?)", path);
  HC_CHECK(c != EOF, HC_ERR_INPUT, "'%s': the mesh file is empty", path);
  return HC_OK;
}

int hc_meshfile_read(const char *path, hc_meshfile **mesh) {
  HC_CHECK(mesh, HC_ERR_INPUT, "hc_meshfile_read: no place for the mesh (mesh is NULL)");
  *mesh = NULL;
  HC_CALL(hc_meshfile_check_path(path));
  const int kind = hc_meshfile_kind(path);
  hc_meshfile *m = NULL;
  int ierr = HC_OK;
  HC_CALL_GOTO(kind == 1 ? hc_meshfile_read_gmsh(path, &m) : hc_meshfile_read_exodus(path, &m), fail);
  HC_CHECK_GOTO(m->num_cells > 0, HC_ERR_INPUT, fail,
                "'%s': the mesh has no hexahedra (no 3D elements at all); hexcontract needs 8-node or 27-node "
                "hexahedra (a Gmsh mesh saved without its volume's physical group loses its 3D elements: "
                "Mesh.SaveAll = 1, or a physical volume)",
                path);
  for (int64_t i = 0; i < m->num_cells * m->nodes_per_cell; i++)
    HC_CHECK_GOTO(m->cells[i] >= 0 && m->cells[i] < m->num_vertices, HC_ERR_INPUT, fail,
                  "'%s': cell %" PRId64 " references node index %" PRId64 ", outside the file's %" PRId64 " nodes",
                  path, m->cell_tag[i / m->nodes_per_cell], m->cells[i], m->num_vertices);
  HC_CALL_GOTO(hc_meshfile_compact(m), fail);
  HC_CALL_GOTO(hc_meshfile_check_cells(m), fail);
  *mesh = m;
  return HC_OK;
fail:
  hc_meshfile_destroy(&m);
  return ierr;
}

/* The flux of x through a bilinear face with corners p00, p10, p01, p11 (parameters (u,v), normal x_u x x_v):
   the integral over [0,1]^2 of x . (x_u x x_v) in closed form, x = p00 + u e + v f + u v g. */
static double hc_bilinear_flux(const double p00[3], const double p10[3], const double p01[3], const double p11[3]) {
  double e[3], f[3], g[3], s[3];
  for (int d = 0; d < 3; d++) {
    e[d] = p10[d] - p00[d];
    f[d] = p01[d] - p00[d];
    g[d] = p11[d] - p10[d] - p01[d] + p00[d];
  }
  /* e x f + (e x g + g x f) / 2 */
  for (int d = 0; d < 3; d++) {
    const int d1 = (d + 1) % 3, d2 = (d + 2) % 3;
    s[d] = (e[d1] * f[d2] - e[d2] * f[d1]) + 0.5 * ((e[d1] * g[d2] - e[d2] * g[d1]) + (g[d1] * f[d2] - g[d2] * f[d1]));
  }
  return p00[0] * s[0] + p00[1] * s[1] + p00[2] * s[2] - 0.25 * hc_det3(e, f, g);
}

/* The trilinear cell's volume by the divergence theorem, V = (1/3) sum over its six faces of the flux of x, each face
   parametrised so that x_u x x_v points out of a right-handed cell. X: [8][3], tensor order. */
static double hc_hex8_volume(const double X[8][3]) {
  static const int face[6][4] = {{0, 2, 1, 3}, {4, 5, 6, 7}, {0, 4, 2, 6}, {1, 3, 5, 7}, {0, 1, 4, 5}, {2, 6, 3, 7}};
  double flux = 0.0;
  for (int k = 0; k < 6; k++) flux += hc_bilinear_flux(X[face[k][0]], X[face[k][1]], X[face[k][2]], X[face[k][3]]);
  return flux / 3.0;
}

/* The hex27 cell's volume: 4-point Gauss-Legendre per direction on [-1,1]^3. */
static double hc_hex27_volume(const double X[27][3]) {
  const double s = sqrt(6.0 / 5.0);
  const double x[4] = {-sqrt((3.0 + 2.0 * s) / 7.0), -sqrt((3.0 - 2.0 * s) / 7.0), sqrt((3.0 - 2.0 * s) / 7.0),
                       sqrt((3.0 + 2.0 * s) / 7.0)};
  const double w[4] = {(18.0 - sqrt(30.0)) / 36.0, (18.0 + sqrt(30.0)) / 36.0, (18.0 + sqrt(30.0)) / 36.0,
                       (18.0 - sqrt(30.0)) / 36.0};
  double v = 0.0;
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 4; i++) {
        double J[3][3];
        hc_hex27_jacobian(X, x[i], x[j], x[k], J);
        v += w[i] * w[j] * w[k] * hc_det3(J[0], J[1], J[2]);
      }
  return v;
}

double hc_meshfile_volume(const hc_meshfile *mesh) {
  /* The cells' volumes summed exactly: the total does not depend on the cells' order (nor on a partition). */
  hc_xsum sum;
  hc_xsum_init(&sum);
  for (int64_t cell = 0; cell < mesh->num_cells; cell++) {
    double X[27][3];
    hc_cell_nodes(mesh, cell, X);
    hc_xsum_add(&sum, mesh->nodes_per_cell == 8 ? hc_hex8_volume((const double(*)[3])X)
                                                : hc_hex27_volume((const double(*)[3])X));
  }
  return hc_xsum_value(&sum);
}

void hc_meshfile_bounds(const hc_meshfile *mesh, double lo[3], double hi[3]) {
  for (int d = 0; d < 3; d++) lo[d] = INFINITY, hi[d] = -INFINITY;
  for (int64_t v = 0; v < mesh->num_vertices; v++)
    for (int d = 0; d < 3; d++) {
      lo[d] = fmin(lo[d], mesh->coords[3 * v + d]);
      hi[d] = fmax(hi[d], mesh->coords[3 * v + d]);
    }
}

int hc_meshfile_write_gmsh(const hc_meshfile *mesh, const char *path) {
  HC_CHECK(mesh && path, HC_ERR_INPUT, "hc_meshfile_write_gmsh: no mesh or no file name");
  HC_CHECK(mesh->nodes_per_cell == 8 || mesh->nodes_per_cell == 27, HC_ERR_INPUT,
           "'%s': cannot write cells of %d nodes; hexahedra have 8 or 27", path, mesh->nodes_per_cell);
  HC_CHECK(mesh->num_vertices > 0 && mesh->num_cells > 0, HC_ERR_INPUT, "'%s': the mesh to write is empty", path);
  const int *order = mesh->nodes_per_cell == 8 ? hc_meshfile_gmsh_hex8 : hc_meshfile_gmsh_hex27;
  int inverse[27];
  for (int t = 0; t < mesh->nodes_per_cell; t++) inverse[order[t]] = t;
  double lo[3], hi[3];
  hc_meshfile_bounds(mesh, lo, hi);
  hc_atomic_file af;
  HC_CALL(hc_atomic_file_open(path, &af));
  FILE *f = af.f;
  fprintf(f, "$MeshFormat\n4.1 0 %zu\n$EndMeshFormat\n", sizeof(size_t));
  fprintf(f, "$Entities\n0 0 0 1\n1 %.17g %.17g %.17g %.17g %.17g %.17g 0 0\n$EndEntities\n", lo[0], lo[1], lo[2],
          hi[0], hi[1], hi[2]);
  fprintf(f, "$Nodes\n1 %" PRId64 " 1 %" PRId64 "\n3 1 0 %" PRId64 "\n", mesh->num_vertices, mesh->num_vertices,
          mesh->num_vertices);
  for (int64_t v = 0; v < mesh->num_vertices; v++) fprintf(f, "%" PRId64 "\n", v + 1);
  for (int64_t v = 0; v < mesh->num_vertices; v++)
    fprintf(f, "%.17g %.17g %.17g\n", mesh->coords[3 * v], mesh->coords[3 * v + 1], mesh->coords[3 * v + 2]);
  fprintf(f, "$EndNodes\n$Elements\n1 %" PRId64 " 1 %" PRId64 "\n3 1 %d %" PRId64 "\n", mesh->num_cells,
          mesh->num_cells, mesh->nodes_per_cell == 8 ? 5 : 12, mesh->num_cells);
  for (int64_t cell = 0; cell < mesh->num_cells; cell++) {
    const int64_t *nodes = mesh->cells + cell * mesh->nodes_per_cell;
    fprintf(f, "%" PRId64, cell + 1);
    for (int k = 0; k < mesh->nodes_per_cell; k++) fprintf(f, " %" PRId64, nodes[inverse[k]] + 1);
    fputc('\n', f);
  }
  fprintf(f, "$EndElements\n");
  if (ferror(f)) {
    hc_atomic_file_abort(&af);
    return HC_ERROR(HC_ERR_RUNTIME, "'%s': writing the mesh file failed", path);
  }
  return hc_atomic_file_commit(&af);
}

int hc_meshfile_reads_in_parts(const char *path) {
  return HC_HAVE_EXODUS && path && hc_meshfile_kind(path) == 2;
}

int hc_meshfile_count(const char *path, int *nodes_per_cell, int64_t *num_cells) {
  HC_CHECK(hc_meshfile_reads_in_parts(path), HC_ERR_UNSUPPORTED,
           "'%s': only an Exodus II file is counted from its header", path ? path : "");
#if HC_HAVE_EXODUS
  hc_exodus_file *f = NULL;
  int64_t nodes = 0;
  HC_CALL(hc_meshfile_check_path(path));
  HC_CALL(hc_exodus_open(path, &f));
  hc_exodus_counts(f, nodes_per_cell, &nodes, num_cells);
  hc_exodus_close(&f);
#else
  (void)nodes_per_cell;
  (void)num_cells;
#endif
  return HC_OK;
}
