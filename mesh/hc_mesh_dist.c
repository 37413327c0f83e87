/* An unstructured mesh of hexahedra built by every rank from its own slice of the cells: no rank holds the whole
   mesh. The cells' face-adjacency (dual) graph is found through owner ranks (a key's owner is its hash modulo the
   ranks), PT-Scotch partitions it in parallel, the cells move to their parts, and the order-p nodes are numbered
   through the owners of the vertices, edges and faces (mesh/README.md, section "Meshes from files"). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/base/hc_mpi.h"
#include "mesh/hc_mesh.h"
#include "mesh/hc_mesh_cells_impl.h"

#ifdef HC_HAVE_PTSCOTCH
#include <scotch.h>
#include <ptscotch.h>
#endif

int hc_mesh_ptscotch_built(void) {
#ifdef HC_HAVE_PTSCOTCH
  return 1;
#else
  return 0;
#endif
}

/* ---- Dense global ids for keys that many ranks hold. ---- */

/* What the owner of a key tells each rank that asked for it. */
typedef struct {
  int64_t id;    /* the key's id, 0 .. count - 1, the same for every request of the key */
  int64_t other; /* the payload of another request of the key; -1 where it has no other */
  int32_t mult;  /* requests of the key over all ranks (saturating at INT32_MAX) */
  int16_t ranks; /* distinct ranks that asked for it (saturating at INT16_MAX) */
  int16_t flag;  /* OR of the requests' flags */
} hc_dist_reply;

/* A request as its owner sorts it. */
typedef struct {
  int64_t key[4];
  int64_t payload;
  int64_t pos; /* where its reply goes in the owner's reply buffer */
  int src;
  int flag;
} hc_dist_request;

static int hc_dist_request_cmp(const void *a, const void *b) {
  const hc_dist_request *x = a, *y = b;
  for (int i = 0; i < 4; i++)
    if (x->key[i] != y->key[i]) return x->key[i] < y->key[i] ? -1 : 1;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Ids for the n keys of `width` numbers (1..4, sorted tuples) that this rank holds, one request per key (a key
   may come several times, also from one rank): every distinct key over all ranks gets one id in 0 .. *count - 1,
   numbered in increasing key order on each owner, the owners in rank order. flags and payload (each may be NULL)
   ride along. Collective; deterministic for a given number of ranks. */
static int hc_dist_ids_sent(MPI_Comm comm, int width, int64_t n, const int64_t *keys, const uint8_t *flags,
                            const int64_t *payload, hc_dist_reply *reply, int64_t *count) {
  int ierr = HC_OK, rank = 0, R = 1;
  HC_CALL_MPI(MPI_Comm_rank(comm, &rank));
  HC_CALL_MPI(MPI_Comm_size(comm, &R));
  const int W = width + 2; /* a request: the key, its flag, its payload */
  int *scount = calloc((size_t)R, sizeof(int)), *rcount = calloc((size_t)R, sizeof(int));
  int *sdispl = calloc((size_t)R + 1, sizeof(int)), *rdispl = calloc((size_t)R + 1, sizeof(int));
  int *dest = malloc((size_t)n * sizeof(int) + 1);
  int64_t *order = malloc((size_t)n * sizeof(int64_t) + 1), *sbuf = NULL, *rbuf = NULL, *back = NULL, *mine = NULL;
  int64_t *next = calloc((size_t)R, sizeof(int64_t));
  hc_dist_request *req = NULL;
  /* A rank that fails says so before each exchange (hc_mpi_agree), so that no rank waits for it. */
  if (!(scount && rcount && sdispl && rdispl && dest && order && next))
    ierr = HC_ERROR(HC_ERR_RESOURCE, "rank %d: out of memory numbering %lld mesh entities", rank, (long long)n);
  else if (n * W >= INT_MAX)
    ierr = HC_ERROR(HC_ERR_RESOURCE, "rank %d: %lld mesh entities are more than one message carries; use more ranks",
                    rank, (long long)n);
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), done);
  for (int64_t i = 0; i < n; i++) {
    dest[i] = (int)(hc_tuple_hash(keys + i * width, width) % (uint64_t)R);
    scount[dest[i]]++;
  }
  for (int r = 0; r < R; r++) sdispl[r + 1] = sdispl[r] + scount[r];
  for (int64_t i = 0; i < n; i++) order[sdispl[dest[i]] + next[dest[i]]++] = i;
  HC_CALL_MPI_GOTO(MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm), done);
  for (int r = 0; r < R && !ierr; r++) {
    if ((int64_t)rdispl[r] + rcount[r] >= INT_MAX / W)
      ierr = HC_ERROR(HC_ERR_RESOURCE,
                      "rank %d: more mesh entities come to it than one message carries; use more ranks", rank);
    else
      rdispl[r + 1] = rdispl[r] + rcount[r];
  }
  const int64_t M = ierr ? 0 : rdispl[R];
  sbuf = malloc((size_t)n * W * sizeof(int64_t) + 1);
  rbuf = malloc((size_t)M * W * sizeof(int64_t) + 1);
  req = malloc((size_t)M * sizeof(*req) + 1);
  if (!ierr && !(sbuf && rbuf && req))
    ierr = HC_ERROR(HC_ERR_RESOURCE, "rank %d: out of memory numbering mesh entities", rank);
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), done);
  for (int64_t s = 0; s < n; s++) {
    const int64_t i = order[s];
    int64_t *w = sbuf + s * W;
    for (int k = 0; k < width; k++) w[k] = keys[i * width + k];
    w[width] = flags ? flags[i] : 0;
    w[width + 1] = payload ? payload[i] : -1;
  }
  /* Counts and displacements in numbers, not requests. */
  for (int r = 0; r < R; r++) scount[r] *= W, rcount[r] *= W, sdispl[r] *= W, rdispl[r] *= W;
  HC_CALL_MPI_GOTO(MPI_Alltoallv(sbuf, scount, sdispl, MPI_INT64_T, rbuf, rcount, rdispl, MPI_INT64_T, comm), done);
  free(sbuf); /* each buffer freed once done with: the peak is what one round needs at once */
  sbuf = NULL;

  /* The owner: sort its requests by key, number the distinct keys. */
  for (int r = 0; r < R; r++)
    for (int64_t q = rdispl[r] / W; q < (rdispl[r] + rcount[r]) / W; q++) {
      hc_dist_request *e = &req[q];
      memset(e->key, 0, sizeof(e->key));
      for (int k = 0; k < width; k++) e->key[k] = rbuf[q * W + k];
      e->flag = (int)rbuf[q * W + width];
      e->payload = rbuf[q * W + width + 1];
      e->pos = q;
      e->src = r;
    }
  free(rbuf);
  rbuf = NULL;
  qsort(req, (size_t)M, sizeof(*req), hc_dist_request_cmp);
  int64_t local = 0, offset = 0, total = 0;
  for (int64_t a = 0; a < M; local++) {
    int64_t b = a + 1;
    while (b < M && !memcmp(req[a].key, req[b].key, sizeof(req[a].key))) b++;
    a = b;
  }
  HC_CALL_MPI_GOTO(MPI_Exscan(&local, &offset, 1, MPI_INT64_T, MPI_SUM, comm), done);
  if (rank == 0) offset = 0;
  HC_CALL_MPI_GOTO(MPI_Allreduce(&local, &total, 1, MPI_INT64_T, MPI_SUM, comm), done);
  *count = total;
  /* The replies, in the requests' places: id, another request's payload, multiplicity, distinct ranks, flag. */
  enum { V = 5 };
  back = malloc((size_t)M * V * sizeof(int64_t) + 1);
  mine = malloc((size_t)n * V * sizeof(int64_t) + 1);
  if (!(back && mine)) ierr = HC_ERROR(HC_ERR_RESOURCE, "rank %d: out of memory numbering mesh entities", rank);
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), done);
  for (int64_t a = 0, id = offset; a < M; id++) {
    int64_t b = a + 1;
    while (b < M && !memcmp(req[a].key, req[b].key, sizeof(req[a].key))) b++;
    int ranks = 1, flag = 0;
    for (int64_t q = a; q < b; q++) {
      ranks += q > a && req[q].src != req[q - 1].src;
      flag |= req[q].flag;
    }
    for (int64_t q = a; q < b; q++) {
      int64_t *w = back + req[q].pos * V;
      w[0] = id;
      w[1] = b - a > 1 ? req[q == a ? a + 1 : a].payload : -1;
      w[2] = b - a;
      w[3] = ranks;
      w[4] = flag;
    }
    a = b;
  }
  free(req);
  req = NULL;
  for (int r = 0; r < R; r++)
    scount[r] = scount[r] / W * V, rcount[r] = rcount[r] / W * V, sdispl[r] = sdispl[r] / W * V,
    rdispl[r] = rdispl[r] / W * V;
  HC_CALL_MPI_GOTO(MPI_Alltoallv(back, rcount, rdispl, MPI_INT64_T, mine, scount, sdispl, MPI_INT64_T, comm), done);
  for (int64_t s = 0; s < n; s++) {
    const int64_t *w = mine + s * V;
    hc_dist_reply *y = &reply[order[s]];
    y->id = w[0], y->other = w[1];
    y->mult = (int32_t)(w[2] < INT32_MAX ? w[2] : INT32_MAX);
    y->ranks = (int16_t)(w[3] < INT16_MAX ? w[3] : INT16_MAX);
    y->flag = (int16_t)w[4];
  }
done:
  free(scount);
  free(rcount);
  free(sdispl);
  free(rdispl);
  free(dest);
  free(order);
  free(next);
  free(sbuf);
  free(rbuf);
  free(back);
  free(mine);
  free(req);
  return ierr;
}

/* hc_dist_ids_sent, each key sent once where no payload rides along (the replies' multiplicity then counts the
   ranks' distinct requests): a rank's cells share most of their vertices, edges and faces. */
static int hc_dist_ids(MPI_Comm comm, int width, int64_t n, const int64_t *keys, const uint8_t *flags,
                       const int64_t *payload, hc_dist_reply *reply, int64_t *count) {
  if (payload) return hc_dist_ids_sent(comm, width, n, keys, flags, payload, reply, count);
  int ierr = HC_OK;
  hc_tuple_map map;
  memset(&map, 0, sizeof(map));
  int64_t *local = malloc((size_t)n * sizeof(int64_t) + 1), *ukeys = NULL;
  uint8_t *uflag = NULL;
  hc_dist_reply *ureply = NULL;
  /* Cells of a part share most entities: start at a quarter of the keys, grow where fewer are shared. */
  ierr = local ? hc_tuple_map_init(&map, width, n / 8 + 64) : HC_ERROR(HC_ERR_RESOURCE, "out of memory");
  for (int64_t i = 0; i < n && !ierr; i++) {
    const hc_tuple_entry *e = hc_tuple_map_get(&map, keys + i * width, i);
    if (e)
      local[i] = e->id;
    else
      ierr = HC_ERROR(HC_ERR_RESOURCE, "out of memory for %lld mesh entities", (long long)n);
  }
  const int64_t u = map.size;
  if (!ierr) {
    ukeys = malloc((size_t)u * width * sizeof(int64_t) + 1);
    uflag = calloc((size_t)u + 1, 1);
    ureply = malloc((size_t)u * sizeof(*ureply) + 1);
    if (!ukeys || !uflag || !ureply) ierr = HC_ERROR(HC_ERR_RESOURCE, "out of memory for %lld keys", (long long)u);
  }
  if (!ierr) {
    for (int64_t s = 0; s < map.capacity; s++)
      if (map.slot[s].key[0] >= 0)
        memcpy(ukeys + map.slot[s].id * width, map.slot[s].key, (size_t)width * sizeof(int64_t));
    if (flags)
      for (int64_t i = 0; i < n; i++) uflag[local[i]] |= flags[i];
    free(map.slot);
    map.slot = NULL;
  }
  /* Every rank takes part in the exchange, also one that failed here (with no keys), so that none waits. */
  const int64_t send = ierr ? 0 : u;
  const int err = hc_dist_ids_sent(comm, width, send, ukeys, uflag, NULL, ureply, count);
  if (!ierr) ierr = err;
  if (!ierr)
    for (int64_t i = 0; i < n; i++) reply[i] = ureply[local[i]];
  free(map.slot);
  free(local);
  free(ukeys);
  free(uflag);
  free(ureply);
  return ierr;
}

/* ---- The partition. ---- */

/* part[c] for this rank's C cells (the slice's, in order) from their face neighbours nbr[C][6]
   (global cell numbers, -1 on the boundary). */
static int hc_dist_partition(MPI_Comm comm, const char *name, int64_t C, int64_t N, const int64_t *nbr, int *part) {
  int rank = 0, R = 1;
  HC_CALL_MPI(MPI_Comm_rank(comm, &rank));
  HC_CALL_MPI(MPI_Comm_size(comm, &R));
  if (R == 1) {
    for (int64_t c = 0; c < C; c++) part[c] = 0;
    return HC_OK;
  }
#ifdef HC_HAVE_PTSCOTCH
  int ierr = HC_OK;
  HC_CHECK(SCOTCH_numSizeof() == (int)sizeof(SCOTCH_Num), HC_ERR_RUNTIME,
           "%s: the PT-Scotch library's numbers are %d bytes, its header's %d: a header of another build", name,
           SCOTCH_numSizeof(), (int)sizeof(SCOTCH_Num));
  HC_CHECK(N * 6 < SCOTCH_NUMMAX, HC_ERR_INPUT,
           "%s: %lld cells are more than this PT-Scotch (%d-bit numbers) partitions", name, (long long)N,
           (int)(8 * sizeof(SCOTCH_Num)));
  SCOTCH_Num *vert = malloc((size_t)(C + 1) * sizeof(SCOTCH_Num)),
             *edge = malloc((size_t)(6 * C + 1) * sizeof(SCOTCH_Num));
  SCOTCH_Num *sp = malloc((size_t)C * sizeof(SCOTCH_Num) + 1);
  if (!(vert && edge && sp)) ierr = HC_ERROR(HC_ERR_RESOURCE, "rank %d: out of memory partitioning %s", rank, name);
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), cleanup);
  SCOTCH_Num ne = 0;
  vert[0] = 0;
  for (int64_t c = 0; c < C; c++) {
    for (int f = 0; f < 6; f++)
      if (nbr[6 * c + f] >= 0) edge[ne++] = (SCOTCH_Num)nbr[6 * c + f];
    vert[c + 1] = ne;
  }
  /* In a context of one thread (the run's MPI is funneled: PT-Scotch's own threads would call MPI at once) and
     deterministic, with a fixed seed: the same partition on every run. */
  SCOTCH_Dgraph graph, bound;
  SCOTCH_Strat strat;
  SCOTCH_Context context;
  HC_CHECK_GOTO(SCOTCH_dgraphInit(&graph, comm) == 0 && SCOTCH_dgraphInit(&bound, comm) == 0, HC_ERR_RUNTIME, cleanup,
                "rank %d: SCOTCH_dgraphInit failed for %s", rank, name);
  SCOTCH_stratInit(&strat);
  SCOTCH_contextInit(&context);
  int st = SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
  if (st == 0) st = SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1);
  if (st == 0) st = SCOTCH_contextThreadSpawn(&context, 1, NULL);
  if (st == 0)
    st = SCOTCH_dgraphBuild(&graph, 0, (SCOTCH_Num)C, (SCOTCH_Num)C, vert, NULL, NULL, NULL, ne, ne, edge, NULL, NULL);
  if (st == 0) st = SCOTCH_contextBindDgraph(&context, &graph, &bound);
  if (st == 0) st = SCOTCH_dgraphPart(&bound, (SCOTCH_Num)R, &strat, sp);
  SCOTCH_dgraphExit(&bound);
  SCOTCH_dgraphExit(&graph);
  SCOTCH_contextExit(&context);
  SCOTCH_stratExit(&strat);
  HC_CHECK_GOTO(st == 0, HC_ERR_RUNTIME, cleanup, "%s: PT-Scotch failed partitioning %lld cells into %d parts", name,
                (long long)N, R);
  for (int64_t c = 0; c < C; c++) part[c] = (int)sp[c];
cleanup:
  free(vert);
  free(edge);
  free(sp);
  return ierr;
#else
  (void)nbr;
  (void)part;
  (void)N;
  return HC_ERROR(
      HC_ERR_NOT_BUILT,
      "%s: mesh.partitioner ptscotch: this build has no PT-Scotch (configure with HC_ENABLE_PTSCOTCH=ON and "
      "libptscotch-dev installed)",
      name);
#endif
}

/* Every part gets a cell: an empty part takes the last cell (by global number) of the largest. Collective. */
static int hc_dist_fill_empty(MPI_Comm comm, int64_t first, int64_t C, int *part) {
  int R = 1;
  HC_CALL_MPI(MPI_Comm_size(comm, &R));
  int64_t *count = calloc((size_t)R, sizeof(int64_t)), *all = calloc((size_t)R, sizeof(int64_t));
  int ierr = HC_OK;
  if (!(count && all)) ierr = HC_ERROR(HC_ERR_RESOURCE, "out of memory balancing the partition");
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), done);
  for (int64_t c = 0; c < C; c++) count[part[c]]++;
  HC_CALL_MPI_GOTO(MPI_Allreduce(count, all, R, MPI_INT64_T, MPI_SUM, comm), done);
  for (int r = 0; r < R; r++) {
    if (all[r]) continue;
    int big = 0;
    for (int s = 1; s < R; s++)
      if (all[s] > all[big]) big = s;
    int64_t last = -1, glast = -1;
    for (int64_t c = C - 1; c >= 0 && last < 0; c--)
      if (part[c] == big) last = first + c;
    HC_CALL_MPI_GOTO(MPI_Allreduce(&last, &glast, 1, MPI_INT64_T, MPI_MAX, comm), done);
    if (glast >= first && glast < first + C) part[glast - first] = r;
    all[r]++, all[big]--;
  }
done:
  free(count);
  free(all);
  return ierr;
}

/* ---- Moving the cells to their parts. ---- */

/* A cell on the move, as 8-byte words: its global number, tag, 8 corner vertex numbers, boundary faces (bit f),
   then its geometry nodes' coordinates. */
enum { HC_REC_GID = 0, HC_REC_TAG = 1, HC_REC_CORNER = 2, HC_REC_BFACES = 10, HC_REC_COORDS = 11 };

static int hc_dist_record_cmp(const void *a, const void *b) {
  const int64_t x = ((const int64_t *)a)[HC_REC_GID], y = ((const int64_t *)b)[HC_REC_GID];
  return x < y ? -1 : x > y;
}

/* Sends every record to its part; *out holds this rank's records after, sorted by global number. */
static int hc_dist_move(MPI_Comm comm, int W, int64_t C, const int64_t *rec, const int *part, int64_t **out,
                        int64_t *Cout) {
  int ierr = HC_OK, rank = 0, R = 1;
  HC_CALL_MPI(MPI_Comm_rank(comm, &rank));
  HC_CALL_MPI(MPI_Comm_size(comm, &R));
  int *sc = calloc((size_t)R, sizeof(int)), *rc = calloc((size_t)R, sizeof(int));
  int *sd = calloc((size_t)R + 1, sizeof(int)), *rd = calloc((size_t)R + 1, sizeof(int));
  int64_t *sbuf = malloc((size_t)C * W * sizeof(int64_t) + 1), *next = calloc((size_t)R, sizeof(int64_t));
  MPI_Datatype type = MPI_DATATYPE_NULL;
  *out = NULL;
  if (!(sc && rc && sd && rd && sbuf && next))
    ierr = HC_ERROR(HC_ERR_RESOURCE, "rank %d: out of memory moving cells", rank);
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), done);
  for (int64_t c = 0; c < C; c++) sc[part[c]]++;
  for (int r = 0; r < R; r++) sd[r + 1] = sd[r] + sc[r];
  for (int64_t c = 0; c < C; c++)
    memcpy(sbuf + (sd[part[c]] + next[part[c]]++) * W, rec + c * W, (size_t)W * sizeof(int64_t));
  HC_CALL_MPI_GOTO(MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm), done);
  for (int r = 0; r < R && !ierr; r++) {
    if ((int64_t)rd[r] + rc[r] >= INT_MAX)
      ierr = HC_ERROR(HC_ERR_RESOURCE, "rank %d: too many cells; use more ranks", rank);
    else
      rd[r + 1] = rd[r] + rc[r];
  }
  *Cout = ierr ? 0 : rd[R];
  *out = malloc((size_t)*Cout * W * sizeof(int64_t) + 1);
  if (!ierr && !*out) ierr = HC_ERROR(HC_ERR_RESOURCE, "rank %d: out of memory for %d cells", rank, rd[R]);
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), done);
  HC_CALL_MPI_GOTO(MPI_Type_contiguous(W, MPI_INT64_T, &type), done);
  HC_CALL_MPI_GOTO(MPI_Type_commit(&type), done);
  HC_CALL_MPI_GOTO(MPI_Alltoallv(sbuf, sc, sd, type, *out, rc, rd, type, comm), done);
  qsort(*out, (size_t)rd[R], (size_t)W * sizeof(int64_t), hc_dist_record_cmp);
done:
  if (type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
  free(sc);
  free(rc);
  free(sd);
  free(rd);
  free(sbuf);
  free(next);
  return ierr;
}

/* ---- The constructor. ---- */

static int64_t hc_slice_tag(const hc_mesh_slice *s, int64_t c) {
  return s->cell_tag ? s->cell_tag[c] : s->first + c + 1;
}

/* Checks the slice's cells and finds their face neighbours: nbr[C][6] global cell numbers or -1, *sum their
   volumes and extent. */
static int hc_dist_faces(MPI_Comm comm, const hc_mesh_slice *s, int64_t *nbr, hc_shape_sum *sum) {
  const int G = s->geometry_nodes;
  const int64_t C = s->num_cells;
  int ierr = HC_OK;
  int64_t *keys = malloc((size_t)C * 6 * 4 * sizeof(int64_t) + 1), *gid = malloc((size_t)C * 6 * sizeof(int64_t) + 1);
  hc_dist_reply *rep = malloc((size_t)C * 6 * sizeof(*rep) + 1);
  HC_CHECK_GOTO(keys && gid && rep, HC_ERR_RESOURCE, shape, "out of memory for the faces of %s", s->name);
  for (int64_t c = 0; c < C && !ierr; c++) {
    int64_t corner[8];
    double vol = 0;
    for (int v = 0; v < 8; v++) corner[v] = s->nodes[c * G + hc_corner_index(G, v)];
    ierr = hc_cell_check(s->name, hc_slice_tag(s, c), G, s->coords + c * G * 3, corner, &vol);
    hc_shape_sum_add(sum, G, s->coords + c * G * 3, vol);
    for (int f = 0; f < 6; f++) {
      int fc[4];
      hc_face_corners(f, fc);
      int64_t *k = keys + (c * 6 + f) * 4;
      for (int i = 0; i < 4; i++) k[i] = corner[fc[i]];
      hc_sort_small(k, 4);
      gid[c * 6 + f] = s->first + c;
    }
  }
shape:
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), done);
  HC_CALL_GOTO(hc_dist_ids(comm, 4, 6 * C, keys, NULL, gid, rep, &(int64_t){0}), done);
  for (int64_t i = 0; i < 6 * C && !ierr; i++) {
    const int64_t *k = keys + i * 4;
    if (rep[i].mult > 2)
      ierr = HC_ERROR(HC_ERR_INPUT,
                      "%s: the face of cell %lld with corners %lld, %lld, %lld, %lld (file node numbers) is a face of "
                      "%lld cells: a face belongs to at most two cells",
                      s->name, (long long)hc_slice_tag(s, i / 6), (long long)k[0] + 1, (long long)k[1] + 1,
                      (long long)k[2] + 1, (long long)k[3] + 1, (long long)rep[i].mult);
    nbr[i] = rep[i].other;
  }
done:
  free(keys);
  free(gid);
  free(rep);
  return hc_mpi_agree(comm, ierr);
}

/* The moved cells' topology: ids[C] of their vertices, edges and faces, and which of those lie on the mesh's
   boundary (vflag[C][8], eflag[C][12]; a face is on it where its bit in the record says so); *counts, *cut. */
static int hc_dist_number(MPI_Comm comm, int W, int64_t C, const int64_t *rec, hc_cell_ids *ids, uint8_t *vflag,
                          uint8_t *eflag, hc_entity_counts *counts, int64_t *cut) {
  int ierr = HC_OK;
  /* keys: the most numbers a round needs, 24 a cell (12 edges of 2, 6 faces of 4). */
  int64_t *keys = malloc((size_t)C * 24 * sizeof(int64_t) + 1);
  uint8_t *flag = malloc((size_t)C * 12 + 1);
  hc_dist_reply *rep = malloc((size_t)C * 12 * sizeof(*rep) + 1);
  if (!(keys && flag && rep)) ierr = HC_ERROR(HC_ERR_RESOURCE, "out of memory numbering %lld cells", (long long)C);
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), done);
  /* Vertices: the file's numbers, on the boundary where on a boundary face of any cell. */
  for (int64_t c = 0; c < C; c++) {
    const int64_t *r = rec + c * W;
    for (int v = 0; v < 8; v++) {
      keys[c * 8 + v] = r[HC_REC_CORNER + v];
      flag[c * 8 + v] = 0;
    }
    for (int f = 0; f < 6; f++) {
      if (!((r[HC_REC_BFACES] >> f) & 1)) continue;
      int fc[4];
      hc_face_corners(f, fc);
      for (int i = 0; i < 4; i++) flag[c * 8 + fc[i]] = 1;
    }
  }
  HC_CALL_GOTO(hc_dist_ids(comm, 1, 8 * C, keys, flag, NULL, rep, &counts->vertices), done);
  for (int64_t c = 0; c < C; c++) {
    for (int v = 0; v < 8; v++) ids[c].v[v] = rep[c * 8 + v].id, vflag[c * 8 + v] = (uint8_t)rep[c * 8 + v].flag;
    ids[c].cell = rec[c * W + HC_REC_GID];
  }
  /* Edges, by their vertices' ids. */
  for (int64_t c = 0; c < C; c++) {
    const int64_t bfaces = rec[c * W + HC_REC_BFACES];
    for (int e = 0; e < 12; e++) {
      int c0, c1;
      hc_edge_corners(e, &c0, &c1);
      const int64_t a = ids[c].v[c0], b = ids[c].v[c1];
      keys[(c * 12 + e) * 2] = a < b ? a : b;
      keys[(c * 12 + e) * 2 + 1] = a < b ? b : a;
      flag[c * 12 + e] = 0;
      for (int f = 0; f < 6; f++) {
        if (!((bfaces >> f) & 1)) continue;
        int fc[4], in = 0;
        hc_face_corners(f, fc);
        for (int i = 0; i < 4; i++) in += fc[i] == c0 || fc[i] == c1;
        if (in == 2) flag[c * 12 + e] = 1;
      }
    }
  }
  HC_CALL_GOTO(hc_dist_ids(comm, 2, 12 * C, keys, flag, NULL, rep, &counts->edges), done);
  for (int64_t c = 0; c < C; c++)
    for (int e = 0; e < 12; e++) ids[c].e[e] = rep[c * 12 + e].id, eflag[c * 12 + e] = (uint8_t)rep[c * 12 + e].flag;
  /* Faces, by their vertices' ids; a face two ranks hold is cut. */
  for (int64_t c = 0; c < C; c++)
    for (int f = 0; f < 6; f++) {
      int fc[4];
      hc_face_corners(f, fc);
      int64_t *k = keys + (c * 6 + f) * 4;
      for (int i = 0; i < 4; i++) k[i] = ids[c].v[fc[i]];
      hc_sort_small(k, 4);
    }
  HC_CALL_GOTO(hc_dist_ids(comm, 4, 6 * C, keys, NULL, NULL, rep, &counts->faces), done);
  int64_t halves = 0;
  for (int64_t c = 0; c < C; c++)
    for (int f = 0; f < 6; f++) {
      ids[c].f[f] = rep[c * 6 + f].id;
      halves += rep[c * 6 + f].ranks > 1;
    }
  HC_CALL_MPI_GOTO(MPI_Allreduce(&halves, cut, 1, MPI_INT64_T, MPI_SUM, comm), done);
  *cut /= 2;
done:
  free(keys);
  free(flag);
  free(rep);
  return ierr;
}

int hc_mesh_create_dist(MPI_Comm comm, const hc_mesh_slice *slice, int order, hc_mesh **mesh) {
  int ierr = HC_OK, rank = 0, R = 1;
  HC_CHECK(mesh, HC_ERR_INPUT, "hc_mesh_create_dist: mesh is NULL");
  *mesh = NULL;
  HC_CALL_MPI(MPI_Comm_rank(comm, &rank));
  HC_CALL_MPI(MPI_Comm_size(comm, &R));
  const hc_mesh_slice *s = slice;
  int64_t *nbr = NULL, *rec = NULL, *moved = NULL, C = 0;
  int *part = NULL;
  hc_cell_ids *ids = NULL;
  uint8_t *vflag = NULL, *eflag = NULL;
  hc_rank_cells rc;
  memset(&rc, 0, sizeof(rc));
  hc_mesh_header hd;
  memset(&hd, 0, sizeof(hd));
  if (!s)
    ierr = HC_ERROR(HC_ERR_INPUT, "hc_mesh_create_dist: rank %d has no slice", rank);
  else if (order < 1 || order > HC_MESH_MAX_ORDER)
    ierr = HC_ERROR(HC_ERR_INPUT, "mesh.order must be 1..%d, got %d", HC_MESH_MAX_ORDER, order);
  else if (s->geometry_nodes != 8 && s->geometry_nodes != 27)
    ierr = HC_ERROR(HC_ERR_INPUT, "%s: cells of %d geometry nodes; hexahedra have 8 or 27", s->name, s->geometry_nodes);
  else if (s->num_global_cells < R)
    ierr = HC_ERROR(HC_ERR_INPUT, "%s: %lld cells cannot be dealt to %d ranks (each needs one cell)", s->name,
                    (long long)s->num_global_cells, R);
  else if (s->num_cells < 1)
    ierr = HC_ERROR(HC_ERR_INPUT, "%s: rank %d's slice has no cells", s->name, rank);
  HC_CALL(hc_mpi_agree(comm, ierr));
  const int G = s->geometry_nodes, L = (order + 1) * (order + 1) * (order + 1), W = HC_REC_COORDS + 3 * G;
  const int64_t C0 = s->num_cells;

  /* The slice's cells checked, their faces matched, the partition. */
  hc_shape_sum sum;
  hc_shape_sum_init(&sum);
  nbr = malloc((size_t)C0 * 6 * sizeof(*nbr) + 1);
  part = malloc((size_t)C0 * sizeof(*part) + 1);
  rec = malloc((size_t)C0 * W * sizeof(*rec) + 1);
  ierr = nbr && part && rec ? HC_OK : HC_ERROR(HC_ERR_RESOURCE, "rank %d: out of memory for %s", rank, s->name);
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), cleanup);
  HC_CALL_GOTO(hc_dist_faces(comm, s, nbr, &sum), cleanup);
  ierr = hc_dist_partition(comm, s->name, C0, s->num_global_cells, nbr, part);
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), cleanup);
  HC_CALL_GOTO(hc_dist_fill_empty(comm, s->first, C0, part), cleanup);

  /* The whole mesh's volume and extent. */
  double local = sum.sum + sum.comp;
  hd.geometry_nodes = G;
  hd.num_cells = s->num_global_cells;
  HC_CALL_MPI_GOTO(MPI_Allreduce(&local, &hd.volume, 1, MPI_DOUBLE, MPI_SUM, comm), cleanup);
  HC_CALL_MPI_GOTO(MPI_Allreduce(sum.lo, hd.bounds[0], 3, MPI_DOUBLE, MPI_MIN, comm), cleanup);
  HC_CALL_MPI_GOTO(MPI_Allreduce(sum.hi, hd.bounds[1], 3, MPI_DOUBLE, MPI_MAX, comm), cleanup);

  /* The cells to their parts. */
  for (int64_t c = 0; c < C0; c++) {
    int64_t *r = rec + c * W;
    r[HC_REC_GID] = s->first + c;
    r[HC_REC_TAG] = hc_slice_tag(s, c);
    for (int v = 0; v < 8; v++) r[HC_REC_CORNER + v] = s->nodes[c * G + hc_corner_index(G, v)];
    r[HC_REC_BFACES] = 0;
    for (int f = 0; f < 6; f++) r[HC_REC_BFACES] |= (int64_t)(nbr[c * 6 + f] < 0) << f;
    memcpy(r + HC_REC_COORDS, s->coords + c * G * 3, (size_t)G * 3 * sizeof(double));
  }
  free(nbr);
  nbr = NULL;
  ierr = hc_dist_move(comm, W, C0, rec, part, &moved, &C);
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), cleanup);
  free(rec);
  rec = NULL;

  /* Their nodes numbered. */
  ids = malloc((size_t)C * sizeof(*ids) + 1);
  vflag = malloc((size_t)C * 8 + 1);
  eflag = malloc((size_t)C * 12 + 1);
  ierr = ids && vflag && eflag ? HC_OK
                               : HC_ERROR(HC_ERR_RESOURCE, "rank %d: out of memory for %lld cells", rank, (long long)C);
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), cleanup);
  hc_entity_counts counts = {0, 0, 0, s->num_global_cells};
  ierr = hc_dist_number(comm, W, C, moved, ids, vflag, eflag, &counts, &hd.edge_cut);
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), cleanup);
  hd.num_global_nodes = hc_entity_node_count(&counts, order);

  /* This rank's cells: geometry, global node ids, boundary flags. */
  ierr = hc_rank_cells_alloc(&rc, C, G, L);
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), cleanup);
  for (int64_t c = 0; c < C; c++) {
    const int64_t *r = moved + c * W;
    rc.tag[c] = r[HC_REC_TAG];
    memcpy(rc.coords + c * G * 3, r + HC_REC_COORDS, (size_t)G * 3 * sizeof(double));
    for (int k = 0; k <= order; k++)
      for (int j = 0; j <= order; j++)
        for (int i = 0; i <= order; i++) {
          const int l = i + (order + 1) * (j + (order + 1) * k);
          int x = 0, flag = 0;
          switch (hc_node_entity(order, i, j, k, &x)) {
            case 0:
              flag = vflag[c * 8 + x];
              break;
            case 1:
              flag = eflag[c * 12 + x];
              break;
            case 2:
              flag = (int)((r[HC_REC_BFACES] >> x) & 1);
              break;
            default:
              break;
          }
          rc.gid[c * L + l] = hc_cell_node_gid(&ids[c], &counts, order, i, j, k);
          rc.flags[c * L + l] = (uint8_t)flag;
        }
  }
  ierr = hc_mesh_finish(comm, order, &hd, &rc, mesh);
cleanup:
  free(nbr);
  free(part);
  free(rec);
  free(moved);
  free(ids);
  free(vflag);
  free(eflag);
  hc_rank_cells_free(&rc);
  return ierr;
}
