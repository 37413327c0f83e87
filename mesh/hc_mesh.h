/* A box of hexahedra of order p split over MPI ranks: cells, vertices, node numbering and node ownership. */
#ifndef HC_MESH_H
#define HC_MESH_H

#include <mpi.h>
#include <stdint.h>

#include "kernels/hc_kernels.h"
#include "mesh/hc_partition.h"
#include "mesh/hc_sharing.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HC_MESH_MAX_ORDER 4
/* Exclusive upper bound of hc_mesh_params.jitter. Each jittered coordinate moves by at most
   jitter * h (h the cell size in that direction), so an edge vector of any cell, scaled by the cell
   sizes, is e_d + delta with |delta_d| <= 2 jitter in its own direction and |delta_i| <= 2 jitter in
   the two others. Below 1/6 every column of the scaled trilinear Jacobian, anywhere in the cell (a
   convex combination of four such edges), is strictly diagonally dominant (1 - 2 jitter > 4 jitter)
   with a positive diagonal, so det J > 0: no cell can invert, whatever the hash gives. At 1/4 and
   above a 2D corner can already flip, so 0.5 is not a safe bound. */
#define HC_MESH_JITTER_MAX (1.0 / 6.0)

/* What to build. See hc_sizing for what cells and length mean in each sizing mode. */
typedef struct {
  hc_sizing sizing;
  int64_t cells[3]; /* NX, NY, NZ >= 1: cells of the box (GLOBAL) or of every rank's block (PER_RANK) */
  double length[3]; /* LX, LY, LZ > 0: lengths of the box (GLOBAL) or of every rank's block (PER_RANK) */
  int order;        /* p = 1..HC_MESH_MAX_ORDER: (p+1)^3 nodes per cell */
  double jitter;    /* static jitter amplitude, a fraction of the cell size, 0 <= jitter < HC_MESH_JITTER_MAX */
  uint64_t seed;    /* seed of the jitter hash; every rank must pass the same */
} hc_mesh_params;

/* A whole unstructured mesh of hexahedra, held by one rank (rank 0) to be partitioned and dealt out by
   hc_mesh_create_cells. Every array is borrowed. Geometry nodes of a cell are in tensor order (mesh/hc_hex.h):
   node (a,b,c) at a + n (b + n c), n = 2 for 8 nodes (its vertices, v = a + 2b + 4c as below), n = 3 for 27.
   The mesh must be conforming: two cells that touch share a whole face, edge or vertex, with the same
   geometry nodes. */
typedef struct {
  int geometry_nodes;      /* 8 (trilinear cells) or 27 (triquadratic cells) */
  int64_t num_vertices;    /* geometry nodes of the mesh */
  int64_t num_cells;       /* cells, >= 1 */
  const double *coords;    /* coords: [num_vertices][3] */
  const int64_t *cells;    /* cells: [num_cells][geometry_nodes], 0-based indices into coords */
  const int64_t *cell_tag; /* cell_tag: [num_cells], the file's numbers of the cells for messages; NULL: 1-based */
  const char *name;        /* the file, for messages */
} hc_mesh_cells;

/* How hc_mesh_create_cells deals the cells to the ranks. */
typedef enum {
  HC_PARTITIONER_METIS = 0,   /* k-way partition of the cells' face-adjacency (dual) graph with METIS */
  HC_PARTITIONER_BLOCKS = 1,  /* contiguous runs of the cells in file order (no partitioner) */
  HC_PARTITIONER_PTSCOTCH = 2 /* every rank reads a slice, PT-Scotch partitions the dual graph in parallel
                                 (hc_mesh_create_dist) */
} hc_partitioner;

/* One rank's slice of an unstructured mesh of hexahedra, for hc_mesh_create_dist: the cells first ..
   first + num_cells - 1 of the whole mesh's order, the slices of ranks 0, 1, ... following one another without
   gaps. Every array is borrowed; geometry nodes in tensor order as in hc_mesh_cells. */
typedef struct {
  int geometry_nodes;       /* 8 or 27 */
  int64_t num_global_cells; /* cells of the whole mesh */
  int64_t first;            /* this slice's first cell */
  int64_t num_cells;        /* this slice's cells, >= 1 */
  const int64_t *nodes;     /* nodes: [num_cells][geometry_nodes], the geometry nodes' numbers in the whole mesh
                               (0-based; only the corners' are used, to tell shared vertices) */
  const double *coords;     /* coords: [num_cells][geometry_nodes][3] */
  const int64_t *cell_tag;  /* cell_tag: [num_cells], the file's numbers of the cells; NULL: first + c + 1 */
  const char *name;         /* the file, for messages */
} hc_mesh_slice;

/* One rank's part of the mesh. Every field is read-only for callers; the mesh owns every array.

   Global numbering. The box has NX x NY x NZ cells (global_cells), cell (i,j,k) covering
   [i,i+1]x[j,j+1]x[k,k+1] cell sizes. Vertices form an (NX+1) x (NY+1) x (NZ+1) grid; nodes form a
   (p*NX+1) x (p*NY+1) x (p*NZ+1) grid (global_nodes), node (gi,gj,gk) has global id
   gi + GX * (gj + GY * gk), 64-bit; vertex (I,J,K) is node (p*I,p*J,p*K). The (p+1) nodes of a cell
   along an edge sit at its Gauss-Lobatto-Legendre points (positions come from the reference element
   in kernels/, the mesh only numbers them).

   Local numbering. This rank owns the block of cells cell_begin[d] .. cell_begin[d] + local_cells[d] - 1,
   cells numbered x fastest: c = ci + cx * (cj + cy * ck). Its nodes form a (p*cx+1) x (p*cy+1) x (p*cz+1)
   grid (local_nodes), local node n = a + nx * (b + ny * c) with global index (p*cell_begin + (a,b,c)).
   Within a cell, node (i,j,k) = i + (p+1) * (j + (p+1) * k), i along x, 0 <= i,j,k <= p; vertex
   v = a + 2b + 4c for the corner offsets (a,b,c) in {0,1}^3, i.e. node (p*a, p*b, p*c).

   Geometry. vertex_coords are the jittered reference positions X (lengths in the units of
   hc_mesh_params.length): boundary vertices lie exactly on the box's grid points; interior vertices move
   by a deterministic hash of their global vertex id, so every rank computes bitwise the same X.
   The time-dependent shear x = X + A sin(2 pi Y/LY) sin(2 pi Z/LZ) sin(omega t) of mesh/README.md is applied
   on top of X by the cell-data code (kernels/hc_motion.h), not here.

   Ownership. A node touched by several ranks is owned by the lowest of them; node_owned marks the
   nodes this rank owns, so a sum over owned nodes of all ranks counts every node once. It is found from
   node_global_id and cell_nodes alone (hc_sharing_create, the same as for any mesh), and the sharing is
   kept for the halo (hc_halo_create). */
typedef struct hc_mesh {
  hc_mesh_source source;    /* box (the fields of the box below are set) or file (they are 0, cell_index NULL) */
  int geometry_nodes;       /* geometry nodes per cell in vertex_coords: 8 (the box; trilinear) or 27 */
  MPI_Comm comm;            /* duplicate of the communicator given to hc_mesh_create, MPI_ERRORS_RETURN */
  int rank;                 /* this rank in comm */
  int nranks;               /* ranks in comm */
  hc_mesh_params params;    /* as given */
  int order;                /* p */
  int nodes_per_cell;       /* L = (p+1)^3 */
  int64_t global_cells[3];  /* NX, NY, NZ of the whole box */
  double length[3];         /* LX, LY, LZ of the whole box */
  double cell_size[3];      /* LX/NX, LY/NY, LZ/NZ */
  int64_t num_global_cells; /* NX * NY * NZ */
  int64_t global_nodes[3];  /* p*NX+1, p*NY+1, p*NZ+1 */
  int64_t num_global_nodes; /* product of global_nodes */
  int rank_grid[3];         /* px, py, pz */
  int rank_coords[3];       /* this rank's block in the rank grid */
  int64_t cell_begin[3];    /* first global cell index of this block per direction */
  int64_t local_cells[3];   /* cx, cy, cz: cells of this block per direction (>= 1) */
  int64_t C;                /* local cells, cx * cy * cz */
  int64_t local_nodes[3];   /* p*cx+1, p*cy+1, p*cz+1 */
  int64_t num_nodes;        /* local nodes (owned and shared), < 2^31 */
  int64_t num_owned_nodes;  /* local nodes with node_owned[n] = 1 */
  int64_t *cell_index;      /* cell_index: [C][3], global (i,j,k) of each local cell; the box's alone: sharing, the
                               halo and the colouring use only cell_nodes and node_global_id */
  double *vertex_coords;    /* vertex_coords: [C][geometry_nodes][3], cell-major, reference positions X (jittered
                               on the box) */
  int32_t *cell_nodes;      /* cell_nodes: [C][L], local node ids, cell-major */
  int64_t *node_global_id;  /* node_global_id: [num_nodes] */
  uint8_t *node_owned;      /* node_owned: [num_nodes], 1 where this rank owns the node, else 0 */
  int64_t *cell_tag;        /* cell_tag: [C], a file mesh's own numbers of this rank's cells (NULL for the box) */
  uint8_t *node_boundary;   /* node_boundary: [num_nodes], 1 on a face of the mesh's boundary (a face of one cell) */
  double volume;            /* the undeformed mesh's volume: LX LY LZ, or the cells' exact volumes summed */
  double bounds[2][3];      /* the undeformed mesh's bounding box, low and high corners */
  int64_t edge_cut;         /* faces between cells of different ranks, over the whole mesh */
  hc_sharing *sharing;      /* the ranks holding each local node: neighbours, shared-node lists, ownership */
} hc_mesh;

/* Fills params with the defaults: GLOBAL sizing, 8 x 8 x 8 cells on the unit cube, order 2,
   jitter 0.1, seed 0. */
void hc_mesh_params_init(hc_mesh_params *params);

/* Checks params on their own (not the rank count): cells >= 1, lengths > 0 and finite, order 1..4,
   0 <= jitter < HC_MESH_JITTER_MAX. HC_ERR_INPUT with a message naming the field otherwise. Not collective. */
int hc_mesh_params_validate(const hc_mesh_params *params);

/* Builds this rank's part of the mesh. Collective over comm (duplicates it). Chooses the rank grid
   with hc_partition_grid; too few cells for the ranks is HC_ERR_INPUT saying what would fit. Every rank
   validates the same parameters, so input errors are raised on all ranks alike. */
int hc_mesh_create(MPI_Comm comm, const hc_mesh_params *params, hc_mesh **mesh);

/* Builds this rank's part of an unstructured mesh. Collective over comm. cells is read on rank 0 only (the
   other ranks pass NULL): rank 0 checks it, partitions it over the ranks with partitioner, numbers the
   order-p nodes of the whole mesh (vertices, then the nodes inside edges, faces and cells, each shared node
   numbered once whatever the relative orientation of the cells sharing it), and sends every rank its cells,
   their geometry and global node ids. Ownership and the halo follow from the global ids. Errors (a
   non-conforming mesh, fewer cells than ranks, METIS not built) are raised on every rank alike. */
int hc_mesh_create_cells(MPI_Comm comm, const hc_mesh_cells *cells, int order, hc_partitioner partitioner,
                         hc_mesh **mesh);

/* Builds this rank's part of an unstructured mesh from slices of it, one on every rank, no rank holding the whole
   mesh. Collective over comm. Each rank checks its slice's cells (shape, a face in three cells), their faces are
   matched through owner ranks into the dual graph, PT-Scotch partitions it in parallel, the cells move to their
   parts, and the order-p nodes are numbered through the owners of the vertices, edges and faces (every shared node
   numbered once whatever the cells' orientations, as hc_mesh_create_cells). Errors are raised on every rank alike
   (the lowest failing rank's message); PT-Scotch not built is HC_ERR_NOT_BUILT. One rank needs no PT-Scotch. */
int hc_mesh_create_dist(MPI_Comm comm, const hc_mesh_slice *slice, int order, hc_mesh **mesh);

/* Whether hc_mesh_create_dist can partition with PT-Scotch in this build (HC_ENABLE_PTSCOTCH). */
int hc_mesh_ptscotch_built(void);

/* For the constructors: node ownership from node_global_id and cell_nodes alone, as for any mesh: which ranks
   hold each node (m->sharing, kept for the halo), the lowest of them owning it. Collective over m->comm. */
int hc_mesh_own(hc_mesh *m);

/* Whether hc_mesh_create_cells can partition with METIS in this build (HC_ENABLE_METIS). */
int hc_mesh_metis_built(void);

/* Frees a mesh; accepts NULL and *mesh == NULL, sets *mesh to NULL. Collective over mesh->comm. */
int hc_mesh_destroy(hc_mesh **mesh);

/* The jittered reference position X[3] of global vertex (I,J,K), 0 <= I <= NX etc., the same on
   every rank whether it holds the vertex or not. Not collective. HC_ERR_INPUT out of range. */
int hc_mesh_vertex_reference(const hc_mesh *mesh, int64_t I, int64_t J, int64_t K, double X[3]);

/* The global grid index (gi, gj, gk) of the node with global id gid. Not collective. */
void hc_mesh_node_global_index(const hc_mesh *mesh, int64_t gid, int64_t ijk[3]);

/* Global sum over nodes of x[n] * y[n] (y NULL: of x[n]), every node counted once through
   node_owned. x, y: [num_nodes] of the given precision; accumulated and returned in double.
   Collective over mesh->comm. */
int hc_mesh_nodal_dot(const hc_mesh *mesh, hc_precision precision, const void *x, const void *y, double *result);

#ifdef __cplusplus
}
#endif

#endif
