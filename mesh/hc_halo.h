/* Halo exchange of nodal vectors: sums each shared node's contributions over every rank that touches it. */
#ifndef HC_HALO_H
#define HC_HALO_H

#include <stdint.h>

#include "kernels/hc_kernels.h"
#include "mesh/hc_mesh.h"
#include "mesh/hc_sharing.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque: the neighbours of one rank (every rank holding one of its nodes: on a box the faces, edges
   and corners of its block, up to 26; on any other mesh as many as the partition gives), the local nodes
   shared with each (send and receive lists, the same nodes in increasing global id on both sides), message
   buffers and requests, all set up once by hc_halo_create. */
typedef struct hc_halo hc_halo;

/* Traffic of one hc_halo_exchange on this rank, for the performance model. */
typedef struct {
  int num_neighbors;    /* ranks this rank exchanges with (0..26 on a box, any number otherwise); one message
                           each way per neighbour */
  int64_t shared_nodes; /* local nodes touched by at least one other rank */
  int64_t send_values;  /* nodal values sent per exchange (a node shared with k ranks is sent k times) */
  int64_t send_bytes;   /* bytes sent per exchange in the precision asked for */
  int64_t recv_bytes;   /* bytes received per exchange (equal to send_bytes: the pattern is symmetric) */
} hc_halo_stats;

/* Builds the halo of mesh: neighbour ranks and shared-node index lists, copied from mesh->sharing (or,
   where the mesh has none, from a hc_sharing_create on its generic fields: node_global_id, cell_nodes,
   order), buffers sized for double (float uses the same buffers). Collective over mesh->comm (duplicates
   it, so that halo messages never meet other traffic). The mesh must outlive the halo. */
int hc_halo_create(const hc_mesh *mesh, hc_halo **halo);

/* The same from a sharing that hc_sharing_create built over comm (copied; the sharing may be destroyed
   afterwards). Collective over comm (duplicates it). */
int hc_halo_create_from_sharing(MPI_Comm comm, const hc_sharing *sharing, hc_halo **halo);

/* Sums a nodal vector over ranks: on return, x[n] of every local node n (owned or not) holds the
   sum of the x[n] that every rank touching that node passed in. Contributions are added in increasing
   rank order, so every rank ends with bitwise the same value for a shared node.
   x: [num_nodes] of mesh->num_nodes values in precision (HC_DOUBLE or HC_FLOAT), in and out.
   Collective over the mesh's communicator: every rank calls it, in the same precision (only neighbours
   talk, with non-blocking MPI_Irecv/MPI_Isend/MPI_Waitall; there is no global synchronisation). */
int hc_halo_exchange(hc_halo *halo, hc_precision precision, void *x);

/* The same for nvec nodal vectors of doubles at once, in one round of messages (one per neighbour each
   way): the sums are bitwise those of nvec calls of hc_halo_exchange. Collective. */
int hc_halo_exchange_many(hc_halo *halo, int nvec, double *const *x);

/* hc_halo_exchange_many in two halves, so that other work runs while the messages are in flight:
   begin packs the shared values and posts the messages; end waits for them and sums. Between the two
   the vectors' shared entries must not change. At most one round per halo in flight. Collective. */
int hc_halo_begin_many(hc_halo *halo, int nvec, double *const *x);
int hc_halo_end_many(hc_halo *halo, int nvec, double *const *x);

/* The local nodes this rank shares with any neighbour: *shared points at *num_shared local node ids
   (owned by the halo). hc_halo_exchange reads and writes x only at these nodes, so a caller whose
   vector lives elsewhere (on a device) need only bring these entries over and back. Not collective. */
int hc_halo_shared(const hc_halo *halo, int64_t *num_shared, const int32_t **shared);

/* Traffic of one exchange on this rank in the given precision. Not collective. */
int hc_halo_get_stats(const hc_halo *halo, hc_precision precision, hc_halo_stats *stats);

/* Frees a halo; accepts NULL and *halo == NULL, sets *halo to NULL. Collective over the mesh's communicator. */
int hc_halo_destroy(hc_halo **halo);

#ifdef __cplusplus
}
#endif

#endif
