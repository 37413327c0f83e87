/* Boundary nodes of a set of hexahedra, and the rendezvous on global ids that finds which ranks hold each node. */
#include "mesh/hc_sharing.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/base/hc_mpi.h"

static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* A cell face in the bucket of its smallest corner node: its other three corners, ascending, and which face. */
typedef struct {
  int32_t v[3];
  int32_t matches; /* other faces of the bucket with the same corners */
  int64_t cf;      /* 6 * cell + face */
} face_entry;

static void sort4(int32_t v[4]) {
  for (int i = 1; i < 4; i++) {
    int32_t t = v[i];
    int j = i - 1;
    for (; j >= 0 && v[j] > t; j--) v[j + 1] = v[j];
    v[j + 1] = t;
  }
}

/* Lattice node (i,j,k) of a cell of order p with coordinate d of face f = 2d + side fixed at side * p. */
static int face_node(int p, int f, int a, int b) {
  const int P1 = p + 1, d = f / 2, s = (f % 2) * p;
  const int ijk[3][3] = {{s, a, b}, {a, s, b}, {a, b, s}};
  return ijk[d][0] + P1 * (ijk[d][1] + P1 * ijk[d][2]);
}

int hc_mesh_boundary_nodes(int64_t C, int order, const int32_t *cell_nodes, int64_t num_nodes, uint8_t *boundary,
                           int64_t *num_boundary) {
  HC_CHECK(C >= 0 && num_nodes >= 0 && (C == 0 || cell_nodes) && (num_nodes == 0 || boundary), HC_ERR_INPUT,
           "hc_mesh_boundary_nodes: bad arguments (C %lld, num_nodes %lld)", (long long)C, (long long)num_nodes);
  HC_CHECK(order >= 1 && order <= 64, HC_ERR_INPUT, "hc_mesh_boundary_nodes: order must be 1..64, got %d", order);
  const int p = order, P1 = p + 1, L = P1 * P1 * P1;
  if (num_nodes > 0) memset(boundary, 0, (size_t)num_nodes);
  if (num_boundary) *num_boundary = 0;
  for (int64_t i = 0; i < C * L; i++) {
    HC_CHECK(cell_nodes[i] >= 0 && cell_nodes[i] < num_nodes, HC_ERR_INPUT,
             "hc_mesh_boundary_nodes: cell %lld node %d is %d, outside the %lld local nodes", (long long)(i / L),
             (int)(i % L), cell_nodes[i], (long long)num_nodes);
  }
  /* Faces bucketed by their smallest corner node (a counting sort, in the cells' memory order), then matched
     within each bucket, which holds a few faces. */
  int64_t *start = calloc((size_t)num_nodes + 1, sizeof(*start));
  face_entry *face = malloc((size_t)(C > 0 ? 6 * C : 1) * sizeof(*face));
  int ierr = HC_OK;
  HC_CHECK_GOTO(start && face, HC_ERR_RESOURCE, cleanup, "out of memory for the faces of %lld cells (%zu bytes)",
                (long long)C, (size_t)C * 6 * sizeof(*face));
  for (int64_t c = 0; c < C; c++) {
    const int32_t *nodes = cell_nodes + c * L;
    for (int f = 0; f < 6; f++) {
      int32_t v[4] = {nodes[face_node(p, f, 0, 0)], nodes[face_node(p, f, p, 0)], nodes[face_node(p, f, 0, p)],
                      nodes[face_node(p, f, p, p)]};
      sort4(v);
      start[v[0] + 1]++;
    }
  }
  for (int64_t n = 0; n < num_nodes; n++) start[n + 1] += start[n];
  for (int64_t c = 0; c < C; c++) {
    const int32_t *nodes = cell_nodes + c * L;
    for (int f = 0; f < 6; f++) {
      int32_t v[4] = {nodes[face_node(p, f, 0, 0)], nodes[face_node(p, f, p, 0)], nodes[face_node(p, f, 0, p)],
                      nodes[face_node(p, f, p, p)]};
      sort4(v);
      face[start[v[0]]++] = (face_entry){{v[1], v[2], v[3]}, 0, 6 * c + f};
    }
  }
  for (int64_t n = num_nodes; n > 0; n--) start[n] = start[n - 1];
  start[0] = 0;
  for (int64_t n = 0; n < num_nodes; n++) {
    for (int64_t i = start[n]; i < start[n + 1]; i++) {
      for (int64_t j = i + 1; j < start[n + 1]; j++) {
        if (memcmp(face[i].v, face[j].v, sizeof(face[i].v)) != 0) continue;
        face[i].matches++;
        face[j].matches++;
      }
      const int64_t c = face[i].cf / 6;
      const int f = (int)(face[i].cf % 6);
      HC_CHECK_GOTO(face[i].matches <= 1, HC_ERR_INPUT, cleanup,
                    "cell %lld face %d: its corner nodes %lld %d %d %d belong to %d cells; a face of a hexahedral mesh "
                    "belongs to at most two cells",
                    (long long)c, f, (long long)n, face[i].v[0], face[i].v[1], face[i].v[2], face[i].matches + 1);
      if (face[i].matches) continue;
      const int32_t *nodes = cell_nodes + c * L;
      for (int b = 0; b <= p; b++) {
        for (int a = 0; a <= p; a++) boundary[nodes[face_node(p, f, a, b)]] = 1;
      }
    }
  }
  if (num_boundary) {
    int64_t count = 0;
    for (int64_t n = 0; n < num_nodes; n++) count += boundary[n];
    *num_boundary = count;
  }
cleanup:
  free(start);
  free(face);
  return ierr;
}

/* The directory rank of a global id. */
static int directory_rank(int64_t gid, int nranks) {
  return (int)(splitmix64((uint64_t)gid) % (uint64_t)nranks);
}

/* Makes every rank return an error when any rank's ierr is one: a failing rank keeps its own message, the
   others say that another rank failed. Collective. */
static int sharing_agree(MPI_Comm comm, int ierr) {
  int code = ierr, worst = 0;
  HC_CALL_MPI(MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, comm));
  if (ierr != HC_OK) return ierr;
  if (worst != HC_OK) {
    return HC_ERROR(worst, "hc_sharing_create: another rank failed (its message says why), so this rank stops too");
  }
  return HC_OK;
}

/* Exclusive prefix sums of n counts into displacements, which must fit MPI's int. */
static int sharing_displs(int n, const int *counts, int *displs, int rank, const char *what) {
  int64_t sum = 0;
  for (int r = 0; r < n; r++) {
    displs[r] = (int)sum;
    sum += counts[r];
    HC_CHECK(sum <= INT_MAX, HC_ERR_INPUT,
             "rank %d: %s %lld values or more, beyond the 2^31 - 1 that MPI's int counts allow in one "
             "MPI_Alltoallv; use more ranks",
             rank, what, (long long)sum);
  }
  return HC_OK;
}

/* A received global id and where it sits in the receive buffer (so ties keep the senders' rank order). */
typedef struct {
  int64_t gid;
  int64_t pos;
} id_pos;

static int compare_id_pos(const void *a, const void *b) {
  const id_pos *x = a, *y = b;
  if (x->gid != y->gid) return x->gid < y->gid ? -1 : 1;
  return (x->pos > y->pos) - (x->pos < y->pos);
}

/* A node this rank shares with another rank. */
typedef struct {
  int32_t rank;
  int32_t node;
  int64_t gid;
} shared_pair;

static int compare_pair(const void *a, const void *b) {
  const shared_pair *x = a, *y = b;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return (x->gid > y->gid) - (x->gid < y->gid);
}

/* Buffers of the rendezvous, freed together. */
typedef struct {
  uint8_t *candidate; /* [num_nodes] */
  int *counts;        /* [6][nranks]: send, send displacements, receive, receive displacements, then the same
                         for the replies */
  int32_t *send_node; /* [num_send] local node of each id sent, in send order */
  int64_t *send_gid;  /* [num_send] */
  int64_t *recv_gid;  /* [num_recv] */
  id_pos *sorted;     /* [num_recv] */
  int64_t *reply_at;  /* [num_recv + 1] start of each received id's answer in reply */
  int *reply;         /* [reply_at[num_recv]] per received id: holder count k, then the k holders if k > 1 */
  int *answer;        /* [answers received] the same, for this rank's ids */
  shared_pair *pairs; /* [num_pairs] */
} rendezvous;

static void rendezvous_free(rendezvous *z) {
  free(z->candidate);
  free(z->counts);
  free(z->send_node);
  free(z->send_gid);
  free(z->recv_gid);
  free(z->sorted);
  free(z->reply_at);
  free(z->reply);
  free(z->answer);
  free(z->pairs);
}

/* Candidates, sorted by directory rank: send_node, send_gid and the send counts. Not collective. */
static int sharing_pack(hc_sharing *s, int nranks, const int64_t *gid, int64_t C, int order, const int32_t *cell_nodes,
                        rendezvous *z, int64_t *num_send) {
  int *sc = z->counts, *sd = z->counts + nranks;
  int64_t nb = 0;
  if (nranks > 1) {
    HC_CALL(hc_mesh_boundary_nodes(C, order, cell_nodes, s->num_nodes, z->candidate, &nb));
  } else if (s->num_nodes > 0) {
    memset(z->candidate, 0, (size_t)s->num_nodes); /* alone: no node can be shared */
  }
  z->send_node = malloc((size_t)(nb > 0 ? nb : 1) * sizeof(*z->send_node));
  z->send_gid = malloc((size_t)(nb > 0 ? nb : 1) * sizeof(*z->send_gid));
  HC_CHECK(z->send_node && z->send_gid, HC_ERR_RESOURCE, "rank %d: out of memory for %lld candidate shared nodes",
           s->rank, (long long)nb);
  for (int64_t n = 0; n < s->num_nodes; n++) {
    if (!z->candidate[n]) continue;
    HC_CHECK(gid[n] >= 0, HC_ERR_INPUT, "rank %d: local node %lld has the negative global id %lld", s->rank,
             (long long)n, (long long)gid[n]);
    sc[directory_rank(gid[n], nranks)]++;
  }
  HC_CALL(sharing_displs(nranks, sc, sd, s->rank, "sends as candidate shared nodes"));
  int *next = z->counts + 2 * nranks; /* borrowed until the receive counts arrive */
  memcpy(next, sd, (size_t)nranks * sizeof(*next));
  for (int64_t n = 0; n < s->num_nodes; n++) {
    if (!z->candidate[n]) continue;
    const int k = next[directory_rank(gid[n], nranks)]++;
    z->send_node[k] = (int32_t)n;
    z->send_gid[k] = gid[n];
  }
  *num_send = nb;
  return HC_OK;
}

/* The directory's work: sorts the ids received and writes, per id in receive order, the count of ranks that
   sent it and (when more than one) those ranks, ascending; sets the reply counts. k < 0 flags an id that rank
   -1 - k sent twice. Not collective. */
static int sharing_directory(int rank, int nranks, int64_t num_recv, rendezvous *z) {
  const int *rc = z->counts + 2 * nranks, *rd = z->counts + 3 * nranks;
  int *qc = z->counts + 4 * nranks, *qd = z->counts + 5 * nranks;
  const int64_t M = num_recv;
  z->sorted = malloc((size_t)(M > 0 ? M : 1) * sizeof(*z->sorted));
  z->reply_at = malloc((size_t)(M + 1) * sizeof(*z->reply_at));
  HC_CHECK(z->sorted && z->reply_at, HC_ERR_RESOURCE, "rank %d: out of memory for a directory of %lld ids", rank,
           (long long)M);
  for (int64_t i = 0; i < M; i++) z->sorted[i] = (id_pos){z->recv_gid[i], i};
  qsort(z->sorted, (size_t)M, sizeof(*z->sorted), compare_id_pos);
  /* The sender of receive position pos: receive buffers are in increasing source rank. */
  int32_t *src = malloc((size_t)(M > 0 ? M : 1) * sizeof(*src));
  HC_CHECK(src, HC_ERR_RESOURCE, "rank %d: out of memory for a directory of %lld ids", rank, (long long)M);
  for (int r = 0; r < nranks; r++) {
    for (int i = 0; i < rc[r]; i++) src[rd[r] + i] = r;
  }
  /* Answer sizes, counted into reply_at (shifted by one), then prefix sums. */
  memset(z->reply_at, 0, (size_t)(M + 1) * sizeof(*z->reply_at));
  for (int64_t g = 0; g < M;) {
    int64_t e = g + 1;
    while (e < M && z->sorted[e].gid == z->sorted[g].gid) e++;
    const int64_t k = e - g;
    for (int64_t i = g; i < e; i++) z->reply_at[z->sorted[i].pos + 1] = 1 + (k > 1 ? k : 0);
    g = e;
  }
  for (int64_t i = 0; i < M; i++) z->reply_at[i + 1] += z->reply_at[i];
  int ierr = HC_OK;
  for (int r = 0; r < nranks; r++) qc[r] = (int)(z->reply_at[rd[r] + rc[r]] - z->reply_at[rd[r]]);
  HC_CALL_GOTO(sharing_displs(nranks, qc, qd, rank, "answers as a directory with"), cleanup);
  z->reply = malloc((size_t)(z->reply_at[M] > 0 ? z->reply_at[M] : 1) * sizeof(*z->reply));
  HC_CHECK_GOTO(z->reply, HC_ERR_RESOURCE, cleanup, "rank %d: out of memory for the directory's answers", rank);
  for (int64_t g = 0; g < M;) {
    int64_t e = g + 1;
    int twice = -1;
    while (e < M && z->sorted[e].gid == z->sorted[g].gid) {
      if (src[z->sorted[e].pos] == src[z->sorted[e - 1].pos]) twice = src[z->sorted[e].pos];
      e++;
    }
    const int k = (int)(e - g);
    for (int64_t i = g; i < e; i++) {
      int *out = z->reply + z->reply_at[z->sorted[i].pos];
      out[0] = twice >= 0 ? -1 - twice : k;
      for (int j = 0; j < k && k > 1; j++) out[1 + j] = src[z->sorted[g + j].pos];
    }
    g = e;
  }
cleanup:
  free(src);
  return ierr;
}

/* Reads this rank's answers: ownership, and the neighbours with their sorted node lists. Not collective. */
static int sharing_unpack(hc_sharing *s, int64_t num_send, rendezvous *z) {
  int64_t num_pairs = 0, at = 0;
  for (int64_t i = 0; i < num_send; i++) {
    const int k = z->answer[at];
    HC_CHECK(k > 0, HC_ERR_INPUT,
             "rank %d: global id %lld (local node %d here) is held by two local nodes of rank %d; global ids must be "
             "distinct on a rank",
             s->rank, (long long)z->send_gid[i], z->send_node[i], -1 - k);
    if (k > 1) num_pairs += k - 1;
    at += 1 + (k > 1 ? k : 0);
  }
  z->pairs = malloc((size_t)(num_pairs > 0 ? num_pairs : 1) * sizeof(*z->pairs));
  HC_CHECK(z->pairs, HC_ERR_RESOURCE, "rank %d: out of memory for %lld shared node pairs", s->rank,
           (long long)num_pairs);
  int64_t np = 0;
  at = 0;
  for (int64_t i = 0; i < num_send; i++) {
    const int k = z->answer[at];
    const int *holders = z->answer + at + 1;
    at += 1 + (k > 1 ? k : 0);
    if (k == 1) continue;
    const int32_t n = z->send_node[i];
    s->num_shared++;
    s->node_owner[n] = holders[0];
    if (holders[0] != s->rank) {
      s->node_owned[n] = 0;
      s->num_owned--;
    }
    for (int j = 0; j < k; j++) {
      if (holders[j] != s->rank) z->pairs[np++] = (shared_pair){holders[j], n, z->send_gid[i]};
    }
  }
  qsort(z->pairs, (size_t)np, sizeof(*z->pairs), compare_pair);
  int nn = 0;
  for (int64_t i = 0; i < np; i++) nn += i == 0 || z->pairs[i].rank != z->pairs[i - 1].rank;
  s->neighbor = malloc((size_t)(nn > 0 ? nn : 1) * sizeof(*s->neighbor));
  s->offset = malloc((size_t)(nn + 1) * sizeof(*s->offset));
  s->index = malloc((size_t)(np > 0 ? np : 1) * sizeof(*s->index));
  HC_CHECK(s->neighbor && s->offset && s->index, HC_ERR_RESOURCE, "rank %d: out of memory for %lld shared node pairs",
           s->rank, (long long)np);
  s->offset[0] = 0;
  for (int64_t i = 0; i < np; i++) {
    if (i == 0 || z->pairs[i].rank != z->pairs[i - 1].rank) {
      s->neighbor[s->num_neighbors++] = z->pairs[i].rank;
    }
    s->index[i] = z->pairs[i].node;
    s->offset[s->num_neighbors] = i + 1;
  }
  return HC_OK;
}

int hc_sharing_create(MPI_Comm comm, int64_t num_nodes, const int64_t *gid, int64_t C, int order,
                      const int32_t *cell_nodes, hc_sharing **sharing) {
  HC_CHECK(sharing, HC_ERR_INPUT, "hc_sharing_create: sharing is NULL");
  *sharing = NULL;
  int ierr = HC_OK, rank = 0, nranks = 1;
  HC_CALL_MPI(MPI_Comm_rank(comm, &rank));
  HC_CALL_MPI(MPI_Comm_size(comm, &nranks));
  rendezvous z = {0};
  hc_sharing *s = calloc(1, sizeof(*s));
  int64_t num_send = 0, num_recv = 0, num_answers = 0;
  if (!s) {
    ierr = HC_ERROR(HC_ERR_RESOURCE, "rank %d: out of memory allocating the node sharing", rank);
    goto local_done;
  }
  s->rank = rank;
  s->num_nodes = num_nodes;
  HC_CHECK_GOTO(num_nodes >= 0 && num_nodes <= INT32_MAX && C >= 0 && (num_nodes == 0 || gid) && (C == 0 || cell_nodes),
                HC_ERR_INPUT, local_done,
                "rank %d: hc_sharing_create: bad arguments (%lld nodes, at most 2^31 - 1; %lld cells)", rank,
                (long long)num_nodes, (long long)C);
  s->node_owned = malloc((size_t)(num_nodes > 0 ? num_nodes : 1) * sizeof(*s->node_owned));
  s->node_owner = malloc((size_t)(num_nodes > 0 ? num_nodes : 1) * sizeof(*s->node_owner));
  z.candidate = malloc((size_t)(num_nodes > 0 ? num_nodes : 1) * sizeof(*z.candidate));
  z.counts = calloc((size_t)6 * (size_t)nranks, sizeof(*z.counts));
  HC_CHECK_GOTO(s->node_owned && s->node_owner && z.candidate && z.counts, HC_ERR_RESOURCE, local_done,
                "rank %d: out of memory for the node sharing of %lld nodes", rank, (long long)num_nodes);
  if (num_nodes > 0) memset(s->node_owned, 1, (size_t)num_nodes);
  for (int64_t n = 0; n < num_nodes; n++) s->node_owner[n] = rank;
  s->num_owned = num_nodes;
  HC_CALL_GOTO(sharing_pack(s, nranks, gid, C, order, cell_nodes, &z, &num_send), local_done);
local_done:
  if (!s) return sharing_agree(comm, ierr);
  HC_CALL_GOTO(sharing_agree(comm, ierr), cleanup);

  /* Ids to their directory ranks. */
  int *sc = z.counts, *sd = sc + nranks, *rc = sd + nranks, *rd = rc + nranks, *qc = rd + nranks, *qd = qc + nranks;
  HC_CALL_MPI_GOTO(MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm), cleanup);
  ierr = sharing_displs(nranks, rc, rd, rank, "receives as a directory");
  if (ierr == HC_OK) {
    num_recv = (int64_t)rd[nranks - 1] + rc[nranks - 1];
    z.recv_gid = malloc((size_t)(num_recv > 0 ? num_recv : 1) * sizeof(*z.recv_gid));
    if (!z.recv_gid) ierr = HC_ERROR(HC_ERR_RESOURCE, "rank %d: out of memory for %lld ids", rank, (long long)num_recv);
  }
  HC_CALL_GOTO(sharing_agree(comm, ierr), cleanup);
  HC_CALL_MPI_GOTO(MPI_Alltoallv(z.send_gid, sc, sd, MPI_INT64_T, z.recv_gid, rc, rd, MPI_INT64_T, comm), cleanup);

  /* Holder lists back to every holder. */
  ierr = sharing_directory(rank, nranks, num_recv, &z);
  HC_CALL_GOTO(sharing_agree(comm, ierr), cleanup);
  /* Answer counts now come back into the send slots' places: what was sent to r is answered by r. */
  int *ac = sc, *ad = sd;
  HC_CALL_MPI_GOTO(MPI_Alltoall(qc, 1, MPI_INT, ac, 1, MPI_INT, comm), cleanup);
  ierr = sharing_displs(nranks, ac, ad, rank, "receives as answers");
  if (ierr == HC_OK) {
    num_answers = (int64_t)ad[nranks - 1] + ac[nranks - 1];
    z.answer = malloc((size_t)(num_answers > 0 ? num_answers : 1) * sizeof(*z.answer));
    if (!z.answer) ierr = HC_ERROR(HC_ERR_RESOURCE, "rank %d: out of memory for the directory's answers", rank);
  }
  HC_CALL_GOTO(sharing_agree(comm, ierr), cleanup);
  HC_CALL_MPI_GOTO(MPI_Alltoallv(z.reply, qc, qd, MPI_INT, z.answer, ac, ad, MPI_INT, comm), cleanup);

  ierr = sharing_unpack(s, num_send, &z);
  HC_CALL_GOTO(sharing_agree(comm, ierr), cleanup);
  *sharing = s;
  s = NULL;
cleanup:
  rendezvous_free(&z);
  hc_sharing_destroy(&s);
  return ierr;
}

int hc_sharing_destroy(hc_sharing **sharing) {
  if (!sharing || !*sharing) return HC_OK;
  hc_sharing *s = *sharing;
  free(s->neighbor);
  free(s->offset);
  free(s->index);
  free(s->node_owner);
  free(s->node_owned);
  free(s);
  *sharing = NULL;
  return HC_OK;
}
