/* Hexahedral meshes read from files (Gmsh .msh, Exodus II): geometry nodes and cells in hexcontract's node order. */
#ifndef HC_MESHFILE_H
#define HC_MESHFILE_H

#include <mpi.h>
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

/* One rank's slice of a mesh file, for runs in which no rank holds the whole mesh (mesh.partitioner: ptscotch):
   the file's hexahedra first .. first + mesh->num_cells - 1, each cell with its own copy of its geometry nodes. */
typedef struct hc_meshfile_slice {
  hc_meshfile *mesh;        /* the slice's cells: mesh->num_vertices = cells x nodes_per_cell, mesh->cells[c][g] =
                               c nodes_per_cell + g, mesh->coords in that order, mesh->vertex_tag the nodes' numbers in
                               the file, mesh->cell_tag the cells' */
  int64_t *node;            /* node: [num_cells][nodes_per_cell], each geometry node's index among the file's nodes
                               (0-based; cells that share a node share its index) */
  int64_t first;            /* the slice's first cell among the file's hexahedra (0-based) */
  int64_t num_global_cells; /* the file's hexahedra */
  double volume;            /* the whole mesh's volume (hc_meshfile_volume over every slice, summed) */
} hc_meshfile_slice;

/* Reads this rank's slice of path: rank r of R gets the cells floor(N r / R) .. floor(N (r + 1) / R) - 1 of the N
   in the file. Collective over comm. An Exodus II file (where its reader is built) is read by every rank in parts:
   its cells' connectivity, and its share of the nodes, whose coordinates go to the ranks that need them; no rank
   reads the whole file. A Gmsh file (whose library reads a file whole) is read by rank 0 alone, which deals the
   slices out: rank 0 passes it in whole if it has read it already (else NULL; other ranks pass NULL). Every check
   of hc_meshfile_read is made (on each slice) and its errors are raised on every rank alike. */
int hc_meshfile_read_slice(MPI_Comm comm, const char *path, const hc_meshfile *whole, hc_meshfile_slice **slice);
/* Frees a slice; accepts NULL and *slice == NULL. */
int hc_meshfile_slice_destroy(hc_meshfile_slice **slice);
/* Whether path names a file that hc_meshfile_read_slice reads in parts (Exodus II, its reader built). */
int hc_meshfile_reads_in_parts(const char *path);
/* The file's numbers of hexahedra and of geometry nodes per cell, from its header where the format reads in parts
   (Exodus II); HC_ERR_UNSUPPORTED for the others. Not collective. */
int hc_meshfile_count(const char *path, int *nodes_per_cell, int64_t *num_cells);

/* What --version says of a format's reader ("gmsh" or "exodus"): the library it reads through and its version, or
   NULL when that reader was not built into this binary. */
const char *hc_meshfile_reader_info(const char *format);

#endif
