/* Which ranks hold each local node of any hexahedral mesh, found from the nodes' global ids alone: the
   neighbour ranks, the nodes shared with each, and node ownership. */
#ifndef HC_SHARING_H
#define HC_SHARING_H

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One rank's view of who else holds its nodes. Every field is read-only for callers; the sharing owns
   every array. */
typedef struct hc_sharing {
  int rank;            /* this rank in the communicator given to hc_sharing_create */
  int num_neighbors;   /* ranks holding at least one of this rank's nodes (itself excluded) */
  int *neighbor;       /* neighbor: [num_neighbors], their ranks, ascending */
  int64_t *offset;     /* offset: [num_neighbors + 1], start of each neighbour's list in index */
  int32_t *index;      /* index: [offset[num_neighbors]], local nodes shared with each neighbour, each list
                          in increasing global id, so that both sides list the same nodes in the same order */
  int64_t num_nodes;   /* local nodes */
  int64_t num_shared;  /* local nodes held by at least one other rank */
  int64_t num_owned;   /* local nodes with node_owned[n] = 1 */
  int32_t *node_owner; /* node_owner: [num_nodes], the lowest rank holding each node (its owner) */
  uint8_t *node_owned; /* node_owned: [num_nodes], 1 where this rank is the lowest rank holding the node */
} hc_sharing;

/* Marks the nodes on the boundary of a set of cells: the (p+1)^2 lattice nodes of every cell face that no
   other of these cells has. Faces are matched by their 4 corner nodes (the corners of the (p+1)^3 lattice,
   node (i,j,k) = i + (p+1)(j + (p+1)k) of a cell), so any relative orientation of two cells is recognised.
   C cells of order p = order; cell_nodes: [C][(p+1)^3] local node ids in [0, num_nodes); boundary:
   [num_nodes], set to 1 on the boundary and 0 elsewhere; *num_boundary (may be NULL): how many are 1.
   HC_ERR_INPUT for a node id out of range or a face that three or more cells have. Not collective. */
int hc_mesh_boundary_nodes(int64_t C, int order, const int32_t *cell_nodes, int64_t num_nodes, uint8_t *boundary,
                           int64_t *num_boundary);

/* Finds, for this rank's nodes, every other rank holding the same global id, by a rendezvous: each
   candidate node (one on the boundary of this rank's cells, hc_mesh_boundary_nodes; a node inside them
   cannot be held by another rank of a conforming mesh) is sent to its directory rank (a hash of its global
   id modulo the rank count, MPI_Alltoall of counts and MPI_Alltoallv of ids), which sends every holder the
   ascending list of holders (a second MPI_Alltoall and MPI_Alltoallv). The owner of a node is the lowest
   rank holding it. Collective over comm (whose error handler must be MPI_ERRORS_RETURN for MPI failures to
   be reported rather than abort); an invalid mesh or a failure on any rank makes every rank return an
   error (on one rank nothing can be shared: no candidates, and the cells are not examined). gid: [num_nodes]
   global ids (>= 0, distinct on a rank); C cells of order p = order, cell_nodes:
   [C][(p+1)^3] local node ids. Limits: num_nodes < 2^31 (local ids are int32), and MPI's int counts bound
   the ids one rank receives as a directory and the holder lists it sends back to 2^31 - 1 values each
   (with the hash, about (sum over ranks of candidate nodes) / ranks; the message names the rank). */
int hc_sharing_create(MPI_Comm comm, int64_t num_nodes, const int64_t *gid, int64_t C, int order,
                      const int32_t *cell_nodes, hc_sharing **sharing);

/* Frees a sharing; accepts NULL and *sharing == NULL, sets *sharing to NULL. Not collective. */
int hc_sharing_destroy(hc_sharing **sharing);

#ifdef __cplusplus
}
#endif

#endif
