/* ParaView output: VTK XML UnstructuredGrid pieces, the parallel file and the time collection, in ASCII. */
#define _POSIX_C_SOURCE 200809L
#include "io/hc_vtk.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/hc_atomic_file.h"
#include "kernels/base/hc_error.h"

/* Values per line of an ASCII array. */
#define HC_VTK_PER_LINE 6

int hc_vtk_cell_type(int order) {
  if (order == 1) return HC_VTK_HEXAHEDRON;
  if (order == 2) return HC_VTK_TRIQUADRATIC_HEXAHEDRON;
  if (order >= 3 && order <= HC_VTK_MAX_ORDER) return HC_VTK_LAGRANGE_HEXAHEDRON;
  return 0;
}

/* VTK's index of node (i,j,k) of a cell of order p (VTK 9's vtkHigherOrderHexahedron::PointIndexFromIJK
   with the same order in every direction): corners, edges along i, j, k, faces normal to i, j, k, interior. */
static int hc_vtk_index(int p, int i, int j, int k) {
  const int ib = i == 0 || i == p, jb = j == 0 || j == p, kb = k == 0 || k == p, m = p - 1;
  const int nb = ib + jb + kb;
  if (nb == 3) return (i ? (j ? 2 : 1) : (j ? 3 : 0)) + (k ? 4 : 0);
  int offset = 8;
  if (nb == 2) {
    if (!ib) return offset + (i - 1) + (j ? 2 * m : 0) + (k ? 4 * m : 0);
    if (!jb) return offset + (j - 1) + (i ? m : 3 * m) + (k ? 4 * m : 0);
    return offset + 8 * m + (k - 1) + m * (i ? (j ? 2 : 1) : (j ? 3 : 0));
  }
  offset += 12 * m;
  if (nb == 1) {
    if (ib) return offset + (j - 1) + m * (k - 1) + (i ? m * m : 0);
    offset += 2 * m * m;
    if (jb) return offset + (i - 1) + m * (k - 1) + (j ? m * m : 0);
    offset += 2 * m * m;
    return offset + (i - 1) + m * (j - 1) + (k ? m * m : 0);
  }
  offset += 6 * m * m;
  return offset + (i - 1) + m * ((j - 1) + m * (k - 1));
}

int hc_vtk_node_order(int order, int *vtk) {
  HC_CHECK(order >= 1 && order <= HC_VTK_MAX_ORDER, HC_ERR_INPUT, "VTK output: order must be 1..%d, got %d",
           HC_VTK_MAX_ORDER, order);
  const int n1 = order + 1;
  for (int k = 0; k < n1; k++)
    for (int j = 0; j < n1; j++)
      for (int i = 0; i < n1; i++) vtk[hc_vtk_index(order, i, j, k)] = i + n1 * (j + n1 * k);
  return HC_OK;
}

/* Writes s into an XML attribute value, escaped. */
static void hc_vtk_attr(FILE *f, const char *s) {
  for (; *s; s++) {
    const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '"' ? "&quot;" : NULL;
    if (e) {
      fputs(e, f);
    } else {
      fputc(*s, f);
    }
  }
}

/* Commits a file written to af, or removes it after a write error. */
static int hc_vtk_finish(hc_atomic_file *af) {
  if (ferror(af->f)) {
    hc_atomic_file_abort(af);
    return HC_ERROR(HC_ERR_RESOURCE, "%s: write error", af->path);
  }
  return hc_atomic_file_commit(af);
}

static void hc_vtk_header(FILE *f, const char *type) {
  /* Version 2.2: VTK 9 reads the higher-order hexahedra of files older than 2.1 in VTK 8's node order. */
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"%s\" version=\"2.2\" byte_order=\"LittleEndian\">\n", type);
}

/* An ASCII DataArray of n doubles (components per tuple) with 17 significant digits. */
static void hc_vtk_doubles(FILE *f, const char *name, int components, int64_t n, const double *v) {
  fputs("        <DataArray type=\"Float64\"", f);
  if (name) {
    fputs(" Name=\"", f);
    hc_vtk_attr(f, name);
    fputc('"', f);
  }
  if (components > 1) fprintf(f, " NumberOfComponents=\"%d\"", components);
  fputs(" format=\"ascii\">\n", f);
  for (int64_t i = 0; i < n; i++) fprintf(f, "%.17g%c", v[i], (i + 1) % HC_VTK_PER_LINE && i + 1 < n ? ' ' : '\n');
  fputs("        </DataArray>\n", f);
}

int hc_vtk_write_piece(const char *path, const hc_vtk_piece *piece) {
  const int p = piece->order, type = hc_vtk_cell_type(p);
  HC_CHECK(type, HC_ERR_INPUT, "%s: VTK output: order must be 1..%d, got %d", path, HC_VTK_MAX_ORDER, p);
  const int L = (p + 1) * (p + 1) * (p + 1);
  int vtk[(HC_VTK_MAX_ORDER + 1) * (HC_VTK_MAX_ORDER + 1) * (HC_VTK_MAX_ORDER + 1)];
  HC_CALL(hc_vtk_node_order(p, vtk));
  hc_atomic_file af;
  HC_CALL(hc_atomic_file_open(path, &af));
  FILE *f = af.f;
  hc_vtk_header(f, "UnstructuredGrid");
  fputs("  <UnstructuredGrid>\n", f);
  fprintf(f,
          "    <FieldData>\n      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">"
          "%.17g</DataArray>\n    </FieldData>\n",
          piece->time);
  fprintf(f, "    <Piece NumberOfPoints=\"%" PRId64 "\" NumberOfCells=\"%" PRId64 "\">\n", piece->num_nodes, piece->C);
  fprintf(f, "      <PointData%s>\n", piece->global_id ? " GlobalIds=\"GlobalNodeId\"" : "");
  if (piece->global_id) {
    fputs("        <DataArray type=\"Int64\" Name=\"GlobalNodeId\" format=\"ascii\">\n", f);
    for (int64_t n = 0; n < piece->num_nodes; n++)
      fprintf(f, "%" PRId64 "%c", piece->global_id[n],
              (n + 1) % HC_VTK_PER_LINE && n + 1 < piece->num_nodes ? ' ' : '\n');
    fputs("        </DataArray>\n", f);
  }
  for (int i = 0; i < piece->num_point_fields; i++)
    hc_vtk_doubles(f, piece->point_fields[i].name, 1, piece->num_nodes, piece->point_fields[i].values);
  fputs("      </PointData>\n      <CellData>\n", f);
  fputs("        <DataArray type=\"Int32\" Name=\"rank\" format=\"ascii\">\n", f);
  for (int64_t c = 0; c < piece->C; c++)
    fprintf(f, "%d%c", piece->rank, (c + 1) % (4 * HC_VTK_PER_LINE) && c + 1 < piece->C ? ' ' : '\n');
  fputs("        </DataArray>\n", f);
  for (int i = 0; i < piece->num_cell_fields; i++)
    hc_vtk_doubles(f, piece->cell_fields[i].name, 1, piece->C, piece->cell_fields[i].values);
  fputs("      </CellData>\n      <Points>\n", f);
  hc_vtk_doubles(f, NULL, 3, 3 * piece->num_nodes, piece->x);
  fputs("      </Points>\n      <Cells>\n", f);
  fputs("        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n", f);
  for (int64_t c = 0; c < piece->C; c++)
    for (int n = 0; n < L; n++) fprintf(f, "%" PRId32 "%c", piece->cell_nodes[c * L + vtk[n]], n + 1 < L ? ' ' : '\n');
  fputs("        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n", f);
  for (int64_t c = 0; c < piece->C; c++)
    fprintf(f, "%" PRId64 "%c", (c + 1) * L, (c + 1) % HC_VTK_PER_LINE && c + 1 < piece->C ? ' ' : '\n');
  fputs("        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n", f);
  for (int64_t c = 0; c < piece->C; c++)
    fprintf(f, "%d%c", type, (c + 1) % (4 * HC_VTK_PER_LINE) && c + 1 < piece->C ? ' ' : '\n');
  fputs("        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n", f);
  return hc_vtk_finish(&af);
}

int hc_vtk_write_parallel(const char *path, const hc_vtk_piece *piece, int npieces, const char *const *sources) {
  hc_atomic_file af;
  HC_CALL(hc_atomic_file_open(path, &af));
  FILE *f = af.f;
  hc_vtk_header(f, "PUnstructuredGrid");
  fputs("  <PUnstructuredGrid GhostLevel=\"0\">\n", f);
  fprintf(f, "    <PPointData%s>\n", piece->global_id ? " GlobalIds=\"GlobalNodeId\"" : "");
  if (piece->global_id) fputs("      <PDataArray type=\"Int64\" Name=\"GlobalNodeId\"/>\n", f);
  for (int i = 0; i < piece->num_point_fields; i++) {
    fputs("      <PDataArray type=\"Float64\" Name=\"", f);
    hc_vtk_attr(f, piece->point_fields[i].name);
    fputs("\"/>\n", f);
  }
  fputs("    </PPointData>\n    <PCellData>\n      <PDataArray type=\"Int32\" Name=\"rank\"/>\n", f);
  for (int i = 0; i < piece->num_cell_fields; i++) {
    fputs("      <PDataArray type=\"Float64\" Name=\"", f);
    hc_vtk_attr(f, piece->cell_fields[i].name);
    fputs("\"/>\n", f);
  }
  fputs(
      "    </PCellData>\n    <PPoints>\n      <PDataArray type=\"Float64\" NumberOfComponents=\"3\"/>\n"
      "    </PPoints>\n",
      f);
  for (int r = 0; r < npieces; r++) {
    fputs("    <Piece Source=\"", f);
    hc_vtk_attr(f, sources[r]);
    fputs("\"/>\n", f);
  }
  fputs("  </PUnstructuredGrid>\n</VTKFile>\n", f);
  return hc_vtk_finish(&af);
}

int hc_vtk_write_collection(const char *path, int n, const double *times, const char *const *files) {
  hc_atomic_file af;
  HC_CALL(hc_atomic_file_open(path, &af));
  FILE *f = af.f;
  hc_vtk_header(f, "Collection");
  fputs("  <Collection>\n", f);
  for (int i = 0; i < n; i++) {
    fprintf(f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"", times[i]);
    hc_vtk_attr(f, files[i]);
    fputs("\"/>\n", f);
  }
  fputs("  </Collection>\n</VTKFile>\n", f);
  return hc_vtk_finish(&af);
}

int hc_vtk_names_init(hc_vtk_names *names, const char *dir, const char *results, int series, int steps) {
  memset(names, 0, sizeof(*names));
  HC_CHECK(strlen(dir) < sizeof(names->dir) && strlen(results) < sizeof(names->name), HC_ERR_INPUT,
           "VTK output: the directory or results name is too long");
  snprintf(names->dir, sizeof(names->dir), "%s", dir);
  snprintf(names->name, sizeof(names->name), "%s", results);
  size_t n = strlen(names->name);
  if (n >= 5 && !strcmp(names->name + n - 5, ".yaml")) {
    names->name[n - 5] = '\0';
  } else if (n >= 4 && !strcmp(names->name + n - 4, ".yml")) {
    names->name[n - 4] = '\0';
  }
  n = strlen(names->name);
  HC_CHECK(n > 0 && names->name[n - 1] != '/', HC_ERR_INPUT,
           "VTK output: the results name '%s' leaves no file name for the VTK files (they are named after it)",
           results);
  names->series = series;
  names->width = 1;
  for (int s = steps; s >= 10; s /= 10) names->width++;
  return HC_OK;
}

int hc_vtk_path(const hc_vtk_names *names, hc_vtk_file kind, int step, int rank, int with_dir, char *buf, size_t n) {
  const char *name = names->name, *slash = strrchr(name, '/');
  if (!with_dir && slash) name = slash + 1;
  char stem[1200];
  if (names->series && kind != HC_VTK_COLLECTION) {
    snprintf(stem, sizeof(stem), "%s_%0*d", name, names->width, step);
  } else {
    snprintf(stem, sizeof(stem), "%s", name);
  }
  int w;
  /* an absolute results name (output.results) carries its own directory */
  const int in_dir = with_dir && name[0] != '/';
  const char *dir = in_dir ? names->dir : "", *sep = in_dir ? "/" : "";
  if (kind == HC_VTK_PIECE) {
    w = snprintf(buf, n, "%s%s%s_r%d.vtu", dir, sep, stem, rank);
  } else {
    w = snprintf(buf, n, "%s%s%s.%s", dir, sep, stem, kind == HC_VTK_PARALLEL ? "pvtu" : "pvd");
  }
  HC_CHECK(w > 0 && (size_t)w < n, HC_ERR_INPUT, "VTK output: the path '%.64s...' is too long", buf);
  return HC_OK;
}

int hc_vtk_writes_step(int step, int steps, int every) {
  return step == steps || (every > 0 && step % every == 0);
}

int64_t hc_vtk_num_sets(int steps, int every) {
  if (every <= 0) return 1;
  return (int64_t)(steps / every) + (steps % every != 0);
}
