/* What the mesh file readers share: the node-order tables of each format and the format readers' entry points. */
#ifndef HC_MESHFILE_IMPL_H
#define HC_MESHFILE_IMPL_H

#include <stdint.h>

#include "io/hc_meshfile.h"

/* Node-order tables, indexed by hexcontract's tensor index t = a + n*(b + n*c) (n = 2 or 3), giving the node's
   position in the format's own connectivity list: cells[t] = file_connectivity[table[t]]. */
extern const int hc_meshfile_gmsh_hex8[8];     /* Gmsh "Hexahedron 8" (element type 5) */
extern const int hc_meshfile_gmsh_hex27[27];   /* Gmsh "Hexahedron 27" (element type 12) */
extern const int hc_meshfile_exodus_hex8[8];   /* Exodus II HEX8 */
extern const int hc_meshfile_exodus_hex27[27]; /* Exodus II HEX27 */

/* Allocates a mesh of num_vertices nodes and num_cells cells of nodes_per_cell nodes (every array, uninitialised),
   with path and format set. */
int hc_meshfile_alloc(const char *path, const char *format, int nodes_per_cell, int64_t num_vertices, int64_t num_cells,
                      hc_meshfile **mesh);

/* det J <= 0 anywhere it is checked (hex8: the corners, hex27: the 27 nodes): HC_ERR_INPUT naming the cell, the
   node and its position. */
int hc_meshfile_check_cells(const hc_meshfile *m);

/* The format readers: fill *mesh with every node of the file and every hexahedron (cells in hexcontract's order,
   indices checked to lie in 0..num_vertices-1). hc_meshfile_read checks the rest (no hexahedra, det J) and drops
   the nodes no cell references. */
int hc_meshfile_read_gmsh(const char *path, hc_meshfile **mesh);
int hc_meshfile_read_exodus(const char *path, hc_meshfile **mesh);
/* An Exodus II file read in parts (hc_meshfile_read_slice: each rank its own cells and nodes). */
typedef struct hc_exodus_file hc_exodus_file;
/* Opens the file and checks its element blocks (one kind of hexahedron, 3D); the errors of the whole reader. */
int hc_exodus_open(const char *path, hc_exodus_file **file);
/* Its hexahedra's geometry nodes per cell, nodes and hexahedra. */
int hc_exodus_counts(const hc_exodus_file *file, int *nodes_per_cell, int64_t *num_nodes, int64_t *num_cells);
/* Nodes first .. first + count - 1 (0-based, the file's order): coords[count][3] and their numbers tags[count]. */
int hc_exodus_read_nodes(hc_exodus_file *file, int64_t first, int64_t count, double *coords, int64_t *tags);
/* Hexahedra first .. first + count - 1 (0-based, in the order of their blocks): cells[count][G] (0-based node
   indices, hexcontract's order, checked to be nodes of the file) and their numbers tags[count]. */
int hc_exodus_read_cells(hc_exodus_file *file, int64_t first, int64_t count, int64_t *cells, int64_t *tags);
void hc_exodus_close(hc_exodus_file **file);

/* The library each reader reads through, for --version (defined where the reader is built). */
const char *hc_meshfile_gmsh_info(void);
const char *hc_meshfile_exodus_info(void);

#endif
