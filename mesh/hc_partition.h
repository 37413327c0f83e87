/* Cartesian block partition of a box of hexahedra over MPI ranks: rank grid choice and block ranges. */
#ifndef HC_PARTITION_H
#define HC_PARTITION_H

#include <stdint.h>

#include "kernels/base/hc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the box is sized when the rank count changes.
   GLOBAL: the global cell counts NX, NY, NZ and box lengths LX, LY, LZ are fixed (strong scaling).
   PER_RANK: every rank holds NX x NY x NZ cells of a block LX x LY x LZ; the global box is the rank
   grid (px, py, pz) times that block, px*NX x py*NY x pz*NZ cells on px*LX x py*LY x pz*LZ, so the
   cell size stays LX/NX x LY/NY x LZ/NZ whatever the rank count (weak scaling). */
typedef enum { HC_SIZING_GLOBAL = 0, HC_SIZING_PER_RANK = 1 } hc_sizing;

/* Where a mesh comes from: the generated box, or cells read from a file (mesh/README.md). */
typedef enum { HC_MESH_SOURCE_BOX = 0, HC_MESH_SOURCE_FILE = 1 } hc_mesh_source;

/* "global" or "per-rank". */
const char *hc_sizing_name(hc_sizing sizing);
/* Parses "global" or "per-rank"; anything else is HC_ERR_INPUT. */
int hc_sizing_from_name(const char *name, hc_sizing *sizing);

/* Chooses the rank grid grid[3] = (px, py, pz), px*py*pz = nranks, for cells[3] = (NX, NY, NZ) cells
   (global cells with HC_SIZING_GLOBAL, cells per rank with HC_SIZING_PER_RANK). Not collective.
   GLOBAL: every rank must get at least one cell (px <= NX, py <= NY, pz <= NZ); among those grids the
   one with the smallest largest-block surface wins, then the smallest cell-count imbalance, then the
   smallest total cut area. No grid fits: HC_ERR_INPUT naming the cells, the ranks and what would fit.
   PER_RANK: the grid that makes the global box closest to a cube (smallest global surface).
   Every nranks >= 1 is accepted, primes included. */
int hc_partition_grid(int nranks, hc_sizing sizing, const int64_t cells[3], int grid[3]);

/* Block `coord` (0 <= coord < parts) of n cells split into parts blocks: the first n % parts blocks
   hold one cell more. Outputs its first cell and its cell count. */
void hc_partition_block(int64_t n, int parts, int coord, int64_t *begin, int64_t *count);

/* Rank of block coords[3] in the rank grid, x fastest: rank = cx + px * (cy + py * cz), and back. */
int hc_partition_rank(const int grid[3], const int coords[3]);
void hc_partition_coords(const int grid[3], int rank, int coords[3]);

#ifdef __cplusplus
}
#endif

#endif
