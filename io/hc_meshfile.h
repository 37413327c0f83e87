/* Hexahedral meshes read from files (Gmsh .msh, Exodus II): geometry nodes and cells in hexcontract's node order. */
#ifndef HC_MESHFILE_H
#define HC_MESHFILE_H

#include <stdint.h>

/* A hexahedral mesh read from a file: geometry nodes and cells, in hexcontract's node order. */
typedef struct hc_meshfile {
  char path[4096];      /* the file as given */
  const char *format;   /* "gmsh" or "exodus" (static string) */
  int nodes_per_cell;   /* 8 (trilinear hex8) or 27 (triquadratic hex27); one kind per mesh */
  int64_t num_vertices; /* geometry nodes */
  int64_t num_cells;
  double *coords;      /* [num_vertices][3] */
  int64_t *cells;      /* [num_cells][nodes_per_cell]: 0-based indices into coords, in hexcontract's
                          tensor order: geometry node (a,b,c) of the cell at index a + n*(b + n*c),
                          n = 2 (hex8) or 3 (hex27), a along the cell's first reference direction;
                          for hex8 vertex v = a + 2b + 4c (as mesh/hc_mesh.h's vertex_coords) */
  int64_t *cell_tag;   /* [num_cells]: the file's own element tag / number, for messages */
  int64_t *vertex_tag; /* [num_vertices]: the file's own node tag */
} hc_meshfile;

/* Reads path, format from the extension: .msh (Gmsh 4.1 or 2.2, ASCII or binary) or .exo/.e (Exodus II).
   Keeps only 3D cells; they must all be hex8 or all hex27 (2D/1D/0D elements such as boundary quads or
   physical-group points are ignored). Nodes that no hexahedron references (a circle's centre point) are
   dropped. Errors (HC_ERR_INPUT, message naming the file and, where one is at fault, the cell by its tag):
   missing/unreadable/truncated file, unknown extension, a format support not built (HC_ERR_NOT_BUILT, naming
   the CMake option), any other 3D cell type (tets, prisms, pyramids, hex20, mixed hex8+hex27), no hexahedra,
   an inverted or degenerate cell (det J <= 0 at a corner for hex8, at any of the 27 nodes for hex27; the
   message says the cell tag and where), a cell referencing a missing node.
   Not collective: the caller reads on one rank. The Gmsh reader runs Gmsh (initialise, open, finalise) in a
   child process (fork, the mesh comes back through a pipe; the child calls no MPI and ends with _exit), because
   Gmsh 4.8 crashes on some damaged files: such a crash is HC_ERR_INPUT "Gmsh crashed reading the mesh file".
   Where no child process can be made it reads in the calling process. Not thread-safe. */
int hc_meshfile_read(const char *path, hc_meshfile **mesh);
/* Frees the mesh; accepts NULL and *mesh == NULL, sets *mesh = NULL. */
int hc_meshfile_destroy(hc_meshfile **mesh);
/* The mesh's volume computed independently of the app's quadrature pipeline: hex8 exactly (the trilinear
   cell's closed-form volume from the divergence theorem over its bilinear faces), hex27 with the 4-point
   Gauss rule per direction, which integrates the triquadratic det J (degree 5 per direction) exactly. */
double hc_meshfile_volume(const hc_meshfile *mesh);
/* Axis-aligned bounding box of the geometry nodes: lo[3], hi[3]. */
void hc_meshfile_bounds(const hc_meshfile *mesh, double lo[3], double hi[3]);
/* Writes mesh as a Gmsh 4.1 file (ASCII; one volume entity, nodes tagged 1..num_vertices and cells
   1..num_cells in the mesh's order) — used by tests and by run_scripts to write a box as a mesh file.
   Needs no Gmsh library. The file is written atomically (a temporary file renamed over path). */
int hc_meshfile_write_gmsh(const hc_meshfile *mesh, const char *path);

/* What --version says of a format's reader ("gmsh" or "exodus"): the library it reads through and its version, or
   NULL when that reader was not built into this binary. */
const char *hc_meshfile_reader_info(const char *format);

#endif
