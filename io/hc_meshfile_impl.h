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

/* The format readers: fill *mesh with every node of the file and every hexahedron (cells in hexcontract's order,
   indices checked to lie in 0..num_vertices-1). hc_meshfile_read checks the rest (no hexahedra, det J) and drops
   the nodes no cell references. */
int hc_meshfile_read_gmsh(const char *path, hc_meshfile **mesh);
int hc_meshfile_read_exodus(const char *path, hc_meshfile **mesh);
/* The library each reader reads through, for --version (defined where the reader is built). */
const char *hc_meshfile_gmsh_info(void);
const char *hc_meshfile_exodus_info(void);

#endif
