/* An unstructured mesh of hexahedra on rank 0: partitioned, its order-p nodes numbered, dealt to the ranks. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/hc_hex.h"
#include "mesh/hc_mesh.h"
#include "mesh/hc_mesh_cells_impl.h"
#include "kernels/base/hc_mpi.h"

#ifdef HC_HAVE_METIS
#include <metis.h>
#endif

int hc_mesh_metis_built(void) {
#ifdef HC_HAVE_METIS
  return 1;
#else
  return 0;
#endif
}

/* ---- A hash map from a sorted tuple of up to 4 vertex numbers to a dense id (edges and faces). ---- */

int hc_tuple_map_init(hc_tuple_map *m, int width, int64_t expected) {
  m->width = width;
  m->size = 0;
  m->capacity = 1024;
  while (m->capacity < 2 * expected) m->capacity *= 2;
  m->slot = malloc((size_t)m->capacity * sizeof(*m->slot));
  HC_CHECK(m->slot, HC_ERR_RESOURCE, "out of memory for the mesh's %s (%lld slots)",
           width == 1   ? "vertices"
           : width == 2 ? "edges"
                        : "faces",
           (long long)m->capacity);
  for (int64_t i = 0; i < m->capacity; i++) m->slot[i].key[0] = -1;
  return HC_OK;
}

uint64_t hc_tuple_hash(const int64_t *key, int width) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < width; i++) {
    h ^= (uint64_t)key[i] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
  }
  return h ^ (h >> 31);
}

/* Finds key (sorted) or inserts it with the next id; returns its entry. */
/* Doubles the capacity, keeping every entry (and its id). 0 when out of memory (the map is then unchanged). */
static int hc_tuple_map_grow(hc_tuple_map *m) {
  const int64_t cap = 2 * m->capacity;
  hc_tuple_entry *slot = malloc((size_t)cap * sizeof(*slot));
  if (!slot) return 0;
  for (int64_t i = 0; i < cap; i++) slot[i].key[0] = -1;
  for (int64_t k = 0; k < m->capacity; k++) {
    if (m->slot[k].key[0] < 0) continue;
    uint64_t i = hc_tuple_hash(m->slot[k].key, m->width) & (uint64_t)(cap - 1);
    while (slot[i].key[0] >= 0) i = (i + 1) & (uint64_t)(cap - 1);
    slot[i] = m->slot[k];
  }
  free(m->slot);
  m->slot = slot;
  m->capacity = cap;
  return 1;
}

hc_tuple_entry *hc_tuple_map_get(hc_tuple_map *m, const int64_t *key, int64_t cell) {
  /* At most half full: probes stay short, and there is always an empty slot. */
  if (2 * (m->size + 1) > m->capacity && !hc_tuple_map_grow(m)) return NULL;
  uint64_t i = hc_tuple_hash(key, m->width) & (uint64_t)(m->capacity - 1);
  for (;; i = (i + 1) & (uint64_t)(m->capacity - 1)) {
    hc_tuple_entry *e = &m->slot[i];
    if (e->key[0] < 0) {
      memcpy(e->key, key, (size_t)m->width * sizeof(*key));
      e->id = m->size++;
      e->cell = cell;
      e->count = 0;
      return e;
    }
    if (!memcmp(e->key, key, (size_t)m->width * sizeof(*key))) return e;
  }
}

/* The entry of key (sorted), which must be in the map. */
static const hc_tuple_entry *hc_tuple_map_find(const hc_tuple_map *m, const int64_t *key) {
  uint64_t i = hc_tuple_hash(key, m->width) & (uint64_t)(m->capacity - 1);
  while (memcmp(m->slot[i].key, key, (size_t)m->width * sizeof(*key))) i = (i + 1) & (uint64_t)(m->capacity - 1);
  return &m->slot[i];
}

void hc_sort_small(int64_t *a, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && a[j - 1] > a[j]; j--) {
      int64_t t = a[j];
      a[j] = a[j - 1], a[j - 1] = t;
    }
}

/* ---- The reference cell's corners, edges and faces in the (p+1)^3 node lattice. ---- */

/* Corner v = a + 2b + 4c of a cell: its geometry node (a,b,c) scaled to the geometry's lattice. */
static int64_t hc_corner_vertex(const hc_mesh_cells *mc, int64_t c, int v) {
  return mc->cells[c * mc->geometry_nodes + hc_corner_index(mc->geometry_nodes, v)];
}

/* The 6 faces as (axis held fixed, its side); the 12 edges as (varying axis, the other two sides). */
void hc_face_corners(int f, int corners[4]) {
  const int axis = f / 2, side = f % 2, u = (axis + 1) % 3, w = (axis + 2) % 3;
  int k = 0;
  for (int j = 0; j < 2; j++)
    for (int i = 0; i < 2; i++) {
      int bit[3];
      bit[axis] = side, bit[u] = i, bit[w] = j;
      corners[k++] = bit[0] + 2 * bit[1] + 4 * bit[2];
    }
}

void hc_edge_corners(int e, int *c0, int *c1) {
  const int d = e / 4, lo = d == 0 ? 1 : 0, hi = d == 2 ? 1 : 2;
  int bit[3];
  bit[d] = 0, bit[lo] = e & 1, bit[hi] = (e >> 1) & 1;
  *c0 = bit[0] + 2 * bit[1] + 4 * bit[2];
  *c1 = *c0 + (1 << d);
}

int64_t hc_entity_node_count(const hc_entity_counts *n, int p) {
  const int64_t m = p - 1;
  return n->vertices + n->edges * m + n->faces * m * m + n->cells * m * m * m;
}

int hc_node_entity(int p, int i, int j, int k, int *index) {
  const int ijk[3] = {i, j, k};
  int ends = 0, bit[3];
  for (int d = 0; d < 3; d++) {
    bit[d] = ijk[d] == p ? 1 : 0;
    ends += ijk[d] == 0 || ijk[d] == p;
  }
  if (ends == 3) {
    *index = bit[0] + 2 * bit[1] + 4 * bit[2];
  } else if (ends == 2) {
    int d = 0;
    while (ijk[d] == 0 || ijk[d] == p) d++;
    const int lo = d == 0 ? 1 : 0, hi = d == 2 ? 1 : 2;
    *index = 4 * d + bit[lo] + 2 * bit[hi];
  } else if (ends == 1) {
    int a = 0;
    while (!(ijk[a] == 0 || ijk[a] == p)) a++;
    *index = 2 * a + bit[a];
  } else {
    *index = 0;
  }
  return 3 - ends;
}

int64_t hc_cell_node_gid(const hc_cell_ids *ids, const hc_entity_counts *n, int p, int i, int j, int k) {
  const int ijk[3] = {i, j, k};
  const int64_t m = p - 1;
  const int64_t edge_base = n->vertices, face_base = edge_base + n->edges * m, cell_base = face_base + n->faces * m * m;
  int x = 0;
  switch (hc_node_entity(p, i, j, k, &x)) {
    case 0:
      return ids->v[x];
    case 1: {
      /* Inside edge x along axis d: numbered from its lower-numbered vertex. */
      const int d = x / 4;
      int c0, c1;
      hc_edge_corners(x, &c0, &c1);
      const int t = ids->v[c0] < ids->v[c1] ? ijk[d] : p - ijk[d];
      return edge_base + ids->e[x] * m + (t - 1);
    }
    case 2: {
      /* Inside face x, normal to axis a: its own frame starts at its lowest-numbered corner and runs first
         towards the lower-numbered of that corner's two neighbours on the face. */
      const int a = x / 2, u = (a + 1) % 3, w = (a + 2) % 3;
      int fc[4];
      hc_face_corners(x, fc);
      int64_t vid[2][2];
      for (int y = 0; y < 2; y++)
        for (int z = 0; z < 2; z++) vid[y][z] = ids->v[fc[2 * y + z]];
      int x0 = 0, y0 = 0;
      for (int y = 0; y < 2; y++)
        for (int z = 0; z < 2; z++)
          if (vid[y][z] < vid[y0][x0]) x0 = z, y0 = y;
      const int du = x0 ? p - ijk[u] : ijk[u], dw = y0 ? p - ijk[w] : ijk[w];
      const int u_first = vid[y0][1 - x0] < vid[1 - y0][x0]; /* the neighbour along u is the lower */
      const int s = u_first ? du : dw, t = u_first ? dw : du;
      return face_base + ids->f[x] * m * m + (s - 1) + m * (t - 1);
    }
    default:
      return cell_base + ids->cell * m * m * m + (i - 1) + m * ((j - 1) + m * (k - 1));
  }
}

int hc_cell_check(const char *name, int64_t tag, int G, const double *x, const int64_t corner[8], double *volume) {
  for (int v = 0; v < 8; v++)
    for (int w = 0; w < v; w++)
      HC_CHECK(corner[v] != corner[w], HC_ERR_INPUT,
               "%s: cell %lld is degenerate: its corners %d and %d are the same node", name, (long long)tag, w, v);
  int where = 0;
  const double det = hc_hex_min_det(G, x, &where);
  HC_CHECK(det > 0, HC_ERR_INPUT,
           "%s: cell %lld is inverted or degenerate: det J = %.3g at its geometry node %d (of %d, tensor order)", name,
           (long long)tag, det, where, G);
  *volume = hc_hex_volume(G, x);
  return HC_OK;
}

/* ---- Rank 0: the numbering of the whole mesh. ---- */

typedef struct {
  int64_t *vertex_id;  /* [num_vertices]: dense number of a corner geometry node, -1 for the others */
  int64_t num_corners; /* corner vertices in use */
  hc_tuple_map edges, faces;
  int64_t num_global_nodes;
  uint8_t *boundary; /* [num_global_nodes]: on a face of one cell only */
  int64_t edge_cut;  /* faces between cells of different ranks */
} hc_numbering;

static void hc_numbering_free(hc_numbering *nb) {
  free(nb->vertex_id);
  free(nb->edges.slot);
  free(nb->faces.slot);
  free(nb->boundary);
  memset(nb, 0, sizeof(*nb));
}

static int64_t hc_cell_tag(const hc_mesh_cells *mc, int64_t c) {
  return mc->cell_tag ? mc->cell_tag[c] : c + 1;
}

/* Cell c's vertex, edge and face ids in rank 0's numbering. */
static void hc_cell_ids_root(const hc_mesh_cells *mc, const hc_numbering *nb, int64_t c, hc_cell_ids *ids) {
  for (int v = 0; v < 8; v++) ids->v[v] = nb->vertex_id[hc_corner_vertex(mc, c, v)];
  for (int e = 0; e < 12; e++) {
    int c0, c1;
    hc_edge_corners(e, &c0, &c1);
    const int64_t a = ids->v[c0], b = ids->v[c1];
    int64_t key[4] = {a < b ? a : b, a < b ? b : a};
    ids->e[e] = hc_tuple_map_find(&nb->edges, key)->id;
  }
  for (int f = 0; f < 6; f++) {
    int fc[4];
    hc_face_corners(f, fc);
    int64_t key[4] = {ids->v[fc[0]], ids->v[fc[1]], ids->v[fc[2]], ids->v[fc[3]]};
    hc_sort_small(key, 4);
    ids->f[f] = hc_tuple_map_find(&nb->faces, key)->id;
  }
  ids->cell = c;
}

static hc_entity_counts hc_numbering_counts(const hc_numbering *nb, int64_t cells) {
  return (hc_entity_counts){nb->num_corners, nb->edges.size, nb->faces.size, cells};
}

/* Checks the cells, numbers edges and faces (the corners are numbered), and marks the boundary nodes. */
static int hc_numbering_build(const hc_mesh_cells *mc, int p, const int *part, hc_numbering *nb) {
  const int64_t N = mc->num_cells;
  /* nb->vertex_id and num_corners are set and the cells checked (hc_mesh_root_prepare). */
  HC_CALL(hc_tuple_map_init(&nb->edges, 2, 3 * N + 64));
  HC_CALL(hc_tuple_map_init(&nb->faces, 4, 3 * N + 64));
  for (int64_t c = 0; c < N; c++) {
    int64_t corner[8];
    for (int v = 0; v < 8; v++) corner[v] = nb->vertex_id[hc_corner_vertex(mc, c, v)];
    for (int e = 0; e < 12; e++) {
      int c0, c1;
      hc_edge_corners(e, &c0, &c1);
      const int64_t a = corner[c0], b = corner[c1];
      int64_t key[4] = {a < b ? a : b, a < b ? b : a};
      hc_tuple_entry *edge = hc_tuple_map_get(&nb->edges, key, c);
      HC_CHECK(edge, HC_ERR_RESOURCE, "out of memory for the edges of %s", mc->name);
      edge->count++;
    }
    for (int f = 0; f < 6; f++) {
      int fc[4];
      hc_face_corners(f, fc);
      int64_t key[4] = {corner[fc[0]], corner[fc[1]], corner[fc[2]], corner[fc[3]]};
      hc_sort_small(key, 4);
      hc_tuple_entry *e = hc_tuple_map_get(&nb->faces, key, c);
      HC_CHECK(e, HC_ERR_RESOURCE, "out of memory for the faces of %s", mc->name);
      e->count++;
      HC_CHECK(e->count <= 2, HC_ERR_INPUT,
               "%s: the face of cell %lld with corners %lld, %lld, %lld, %lld is also a face of two other cells (cell "
               "%lld and another): a face belongs to at most two cells",
               mc->name, (long long)hc_cell_tag(mc, c), (long long)key[0], (long long)key[1], (long long)key[2],
               (long long)key[3], (long long)hc_cell_tag(mc, e->cell));
      if (e->count == 2 && part[e->cell] != part[c]) nb->edge_cut++;
    }
  }
  const hc_entity_counts counts = hc_numbering_counts(nb, N);
  nb->num_global_nodes = hc_entity_node_count(&counts, p);
  nb->boundary = calloc((size_t)nb->num_global_nodes, 1);
  HC_CHECK(nb->boundary, HC_ERR_RESOURCE, "out of memory for the %lld nodes of %s", (long long)nb->num_global_nodes,
           mc->name);
  for (int64_t c = 0; c < N; c++) {
    /* Which of the cell's faces are on the boundary. */
    hc_cell_ids ids;
    hc_cell_ids_root(mc, nb, c, &ids);
    int on_boundary[6];
    for (int f = 0; f < 6; f++) {
      int fc[4];
      hc_face_corners(f, fc);
      int64_t key[4] = {ids.v[fc[0]], ids.v[fc[1]], ids.v[fc[2]], ids.v[fc[3]]};
      hc_sort_small(key, 4);
      on_boundary[f] = hc_tuple_map_find(&nb->faces, key)->count == 1;
    }
    for (int k = 0; k <= p; k++)
      for (int j = 0; j <= p; j++)
        for (int i = 0; i <= p; i++) {
          const int64_t g = hc_cell_node_gid(&ids, &counts, p, i, j, k);
          const int ijk[3] = {i, j, k};
          for (int f = 0; f < 6; f++)
            if (on_boundary[f] && ijk[f / 2] == (f % 2) * p) nb->boundary[g] = 1;
        }
  }
  return HC_OK;
}

/* ---- Rank 0: the partition. ---- */

static int hc_partition_cells(const hc_mesh_cells *mc, const hc_numbering *nb, hc_partitioner partitioner, int nranks,
                              int *part) {
  const int64_t N = mc->num_cells;
  if (nranks == 1 || partitioner == HC_PARTITIONER_BLOCKS) {
    for (int64_t c = 0; c < N; c++) part[c] = (int)((c * nranks) / N);
    return HC_OK;
  }
#ifdef HC_HAVE_METIS
  HC_CHECK(N * 8 < INT32_MAX && nb->num_corners < INT32_MAX, HC_ERR_INPUT,
           "%s: %lld cells are more than this METIS (32-bit indices) partitions", mc->name, (long long)N);
  int ierr = HC_OK;
  idx_t ne = (idx_t)N, nn = (idx_t)nb->num_corners, ncommon = 4, np = (idx_t)nranks, objval = 0;
  idx_t *eptr = malloc((size_t)(N + 1) * sizeof(idx_t)), *eind = malloc((size_t)N * 8 * sizeof(idx_t));
  idx_t *epart = malloc((size_t)N * sizeof(idx_t)), *npart = malloc((size_t)nb->num_corners * sizeof(idx_t));
  idx_t options[METIS_NOPTIONS];
  HC_CHECK_GOTO(eptr && eind && epart && npart, HC_ERR_RESOURCE, cleanup, "out of memory partitioning %s", mc->name);
  for (int64_t c = 0; c <= N; c++) eptr[c] = (idx_t)(8 * c);
  for (int64_t c = 0; c < N; c++)
    for (int v = 0; v < 8; v++) eind[8 * c + v] = (idx_t)nb->vertex_id[hc_corner_vertex(mc, c, v)];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = 1; /* the same partition on every run */
  int st = METIS_PartMeshDual(&ne, &nn, eptr, eind, NULL, NULL, &ncommon, &np, NULL, options, &objval, epart, npart);
  HC_CHECK_GOTO(st == METIS_OK, st == METIS_ERROR_MEMORY ? HC_ERR_RESOURCE : HC_ERR_RUNTIME, cleanup,
                "%s: METIS_PartMeshDual failed (status %d) partitioning %lld cells into %d parts", mc->name, st,
                (long long)N, nranks);
  for (int64_t c = 0; c < N; c++) part[c] = (int)epart[c];
cleanup:
  free(eptr);
  free(eind);
  free(epart);
  free(npart);
  return ierr;
#else
  (void)nb;
  (void)part;
  return HC_ERROR(HC_ERR_NOT_BUILT,
                  "%s: mesh.partitioner metis: this build has no METIS (configure with HC_ENABLE_METIS=ON and "
                  "libmetis-dev installed)",
                  mc->name);
#endif
}

/* Every rank gets a cell: an empty part takes the last cell of the largest. */
static void hc_partition_fill_empty(int64_t N, int nranks, int *part) {
  int64_t *count = calloc((size_t)nranks, sizeof(*count));
  if (!count) return;
  for (int64_t c = 0; c < N; c++) count[part[c]]++;
  for (int r = 0; r < nranks; r++) {
    if (count[r]) continue;
    int big = 0;
    for (int s = 1; s < nranks; s++)
      if (count[s] > count[big]) big = s;
    for (int64_t c = N - 1; c >= 0; c--)
      if (part[c] == big) {
        part[c] = r, count[r]++, count[big]--;
        break;
      }
  }
  free(count);
}

/* ---- Messages larger than an int counts. ---- */

#define HC_MESH_CHUNK (1 << 30)

static int hc_send_bytes(const void *buf, size_t bytes, int dest, MPI_Comm comm) {
  for (size_t off = 0; off < bytes || off == 0; off += HC_MESH_CHUNK) {
    size_t n = bytes - off < HC_MESH_CHUNK ? bytes - off : HC_MESH_CHUNK;
    HC_CALL_MPI(MPI_Send((const char *)buf + off, (int)n, MPI_BYTE, dest, 77, comm));
    if (!bytes) break;
  }
  return HC_OK;
}

static int hc_recv_bytes(void *buf, size_t bytes, MPI_Comm comm) {
  for (size_t off = 0; off < bytes || off == 0; off += HC_MESH_CHUNK) {
    size_t n = bytes - off < HC_MESH_CHUNK ? bytes - off : HC_MESH_CHUNK;
    HC_CALL_MPI(MPI_Recv((char *)buf + off, (int)n, MPI_BYTE, 0, 77, comm, MPI_STATUS_IGNORE));
    if (!bytes) break;
  }
  return HC_OK;
}

void hc_rank_cells_free(hc_rank_cells *rc) {
  free(rc->coords);
  free(rc->gid);
  free(rc->flags);
  free(rc->tag);
  memset(rc, 0, sizeof(*rc));
}

int hc_rank_cells_alloc(hc_rank_cells *rc, int64_t C, int G, int L) {
  rc->C = C;
  rc->coords = malloc((size_t)C * G * 3 * sizeof(double) + 1);
  rc->gid = malloc((size_t)C * L * sizeof(int64_t) + 1);
  rc->flags = malloc((size_t)C * L + 1);
  rc->tag = malloc((size_t)C * sizeof(int64_t) + 1);
  HC_CHECK(rc->coords && rc->gid && rc->flags && rc->tag, HC_ERR_RESOURCE, "out of memory for a part of %lld cells",
           (long long)C);
  return HC_OK;
}

/* The C cells list[0..C-1] of one rank. */
static int hc_rank_cells_make(const hc_mesh_cells *mc, const hc_numbering *nb, int p, const int64_t *list, int64_t C,
                              hc_rank_cells *rc) {
  const int G = mc->geometry_nodes, L = (p + 1) * (p + 1) * (p + 1);
  const hc_entity_counts counts = hc_numbering_counts(nb, mc->num_cells);
  HC_CALL(hc_rank_cells_alloc(rc, C, G, L));
  for (int64_t k = 0; k < C; k++) {
    const int64_t c = list[k];
    hc_cell_ids ids;
    hc_cell_ids_root(mc, nb, c, &ids);
    rc->tag[k] = hc_cell_tag(mc, c);
    for (int g = 0; g < G; g++)
      for (int d = 0; d < 3; d++) rc->coords[(k * G + g) * 3 + d] = mc->coords[3 * mc->cells[c * G + g] + d];
    for (int kk = 0; kk <= p; kk++)
      for (int j = 0; j <= p; j++)
        for (int i = 0; i <= p; i++) {
          const int l = i + (p + 1) * (j + (p + 1) * kk);
          const int64_t g = hc_cell_node_gid(&ids, &counts, p, i, j, kk);
          rc->gid[k * L + l] = g;
          rc->flags[k * L + l] = nb->boundary[g];
        }
  }
  return HC_OK;
}

/* The cells of each rank in increasing order, found in one pass over the partition: rank r's are
   (*list)[(*start)[r] .. (*start)[r + 1] - 1]. */
static int hc_rank_lists(int64_t N, int nranks, const int *part, int64_t **list, int64_t **start) {
  *list = malloc((size_t)N * sizeof(**list) + 1);
  *start = calloc((size_t)nranks + 1, sizeof(**start));
  HC_CHECK(*list && *start, HC_ERR_RESOURCE, "out of memory dealing %lld cells to %d ranks", (long long)N, nranks);
  for (int64_t c = 0; c < N; c++) (*start)[part[c] + 1]++;
  for (int r = 0; r < nranks; r++) (*start)[r + 1] += (*start)[r];
  int64_t *next = malloc((size_t)nranks * sizeof(*next) + 1);
  HC_CHECK(next, HC_ERR_RESOURCE, "out of memory dealing %lld cells to %d ranks", (long long)N, nranks);
  memcpy(next, *start, (size_t)nranks * sizeof(*next));
  for (int64_t c = 0; c < N; c++) (*list)[next[part[c]]++] = c;
  free(next);
  return HC_OK;
}

/* ---- Every rank: its local numbering from the global ids. ---- */

static int hc_mesh_from_rank_cells(hc_mesh *m, hc_rank_cells *rc) {
  const int L = m->nodes_per_cell, G = m->geometry_nodes;
  const int64_t CL = rc->C * L;
  int ierr = HC_OK;
  m->C = rc->C;
  /* gid -> local id, in the order cells first touch the nodes. */
  int64_t cap = 1024;
  while (cap < 2 * CL) cap *= 2;
  int64_t *key = malloc((size_t)cap * sizeof(*key));
  int32_t *val = malloc((size_t)cap * sizeof(*val));
  m->cell_nodes = malloc((size_t)CL * sizeof(*m->cell_nodes) + 1);
  HC_CHECK_GOTO(key && val && m->cell_nodes, HC_ERR_RESOURCE, cleanup, "rank %d: out of memory numbering %lld cells",
                m->rank, (long long)rc->C);
  for (int64_t i = 0; i < cap; i++) key[i] = -1;
  int64_t n = 0;
  for (int64_t i = 0; i < CL; i++) {
    const int64_t g = rc->gid[i];
    uint64_t h = ((uint64_t)g * 0x9E3779B97F4A7C15ull) >> 17;
    for (;; h++) {
      int64_t s = (int64_t)(h & (uint64_t)(cap - 1));
      if (key[s] < 0) {
        HC_CHECK_GOTO(n < INT32_MAX, HC_ERR_INPUT, cleanup,
                      "rank %d: its part has more than 2^31 - 1 nodes; use more ranks", m->rank);
        key[s] = g, val[s] = (int32_t)n++;
      }
      if (key[s] == g) {
        m->cell_nodes[i] = val[s];
        break;
      }
    }
  }
  m->num_nodes = n;
  m->node_global_id = malloc((size_t)n * sizeof(*m->node_global_id) + 1);
  m->node_owned = calloc((size_t)n + 1, 1);
  m->node_boundary = calloc((size_t)n + 1, 1);
  m->vertex_coords = malloc((size_t)rc->C * G * 3 * sizeof(double) + 1);
  HC_CHECK_GOTO(m->node_global_id && m->node_owned && m->node_boundary && m->vertex_coords, HC_ERR_RESOURCE, cleanup,
                "rank %d: out of memory for %lld nodes", m->rank, (long long)n);
  memcpy(m->vertex_coords, rc->coords, (size_t)rc->C * G * 3 * sizeof(double));
  m->cell_tag = rc->tag;
  rc->tag = NULL;
  for (int64_t i = 0; i < CL; i++) {
    const int32_t l = m->cell_nodes[i];
    m->node_global_id[l] = rc->gid[i];
    m->node_boundary[l] = rc->flags[i];
  }
cleanup:
  free(key);
  free(val);
  return ierr;
}

/* ---- The constructor. ---- */

static int hc_mesh_root_prepare(const hc_mesh_cells *mc, int order, hc_partitioner partitioner, int nranks, int *part,
                                hc_numbering *nb, hc_mesh_header *hd) {
  HC_CHECK(mc->geometry_nodes == 8 || mc->geometry_nodes == 27, HC_ERR_INPUT,
           "%s: cells of %d geometry nodes; hexahedra have 8 or 27", mc->name, mc->geometry_nodes);
  HC_CHECK(mc->num_cells >= 1, HC_ERR_INPUT, "%s: the mesh has no cells", mc->name);
  HC_CHECK(mc->num_cells >= nranks, HC_ERR_INPUT, "%s: %lld cells cannot be dealt to %d ranks (each needs one cell)",
           mc->name, (long long)mc->num_cells, nranks);
  /* The partition needs the corners' dense numbers (in order of first use): number them first. */
  memset(nb, 0, sizeof(*nb));
  nb->vertex_id = malloc((size_t)mc->num_vertices * sizeof(*nb->vertex_id) + 1);
  HC_CHECK(nb->vertex_id, HC_ERR_RESOURCE, "out of memory for the vertices of %s", mc->name);
  for (int64_t v = 0; v < mc->num_vertices; v++) nb->vertex_id[v] = -1;
  const int G = mc->geometry_nodes;
  for (int64_t c = 0; c < mc->num_cells; c++) {
    for (int g = 0; g < G; g++) {
      const int64_t w = mc->cells[c * G + g];
      HC_CHECK(w >= 0 && w < mc->num_vertices, HC_ERR_INPUT,
               "%s: cell %lld names node %lld, not one of the mesh's %lld nodes", mc->name,
               (long long)hc_cell_tag(mc, c), (long long)w, (long long)mc->num_vertices);
    }
    for (int v = 0; v < 8; v++) {
      const int64_t w = hc_corner_vertex(mc, c, v);
      if (nb->vertex_id[w] < 0) nb->vertex_id[w] = nb->num_corners++;
    }
  }
  /* Every cell's shape, the volume (compensated sum of exact cell volumes) and the bounding box. */
  hc_shape_sum sum;
  hc_shape_sum_init(&sum);
  for (int64_t c = 0; c < mc->num_cells; c++) {
    double x[27 * 3], vol = 0;
    int64_t corner[8];
    for (int g = 0; g < G; g++)
      for (int d = 0; d < 3; d++) x[3 * g + d] = mc->coords[3 * mc->cells[c * G + g] + d];
    for (int v = 0; v < 8; v++) corner[v] = nb->vertex_id[hc_corner_vertex(mc, c, v)];
    HC_CALL(hc_cell_check(mc->name, hc_cell_tag(mc, c), G, x, corner, &vol));
    hc_shape_sum_add(&sum, G, x, vol);
  }
  HC_CALL(hc_partition_cells(mc, nb, partitioner, nranks, part));
  hc_partition_fill_empty(mc->num_cells, nranks, part);
  HC_CALL(hc_numbering_build(mc, order, part, nb));
  hd->geometry_nodes = G;
  hd->num_cells = mc->num_cells;
  hd->num_global_nodes = nb->num_global_nodes;
  hd->edge_cut = nb->edge_cut;
  hd->volume = sum.sum + sum.comp;
  for (int d = 0; d < 3; d++) hd->bounds[0][d] = sum.lo[d], hd->bounds[1][d] = sum.hi[d];
  return HC_OK;
}

int hc_mesh_finish(MPI_Comm comm, int order, const hc_mesh_header *hd, hc_rank_cells *rc, hc_mesh **mesh) {
  int ierr = HC_OK, rank = 0, nranks = 1;
  HC_CALL_MPI(MPI_Comm_rank(comm, &rank));
  HC_CALL_MPI(MPI_Comm_size(comm, &nranks));
  const int L = (order + 1) * (order + 1) * (order + 1), G = hd->geometry_nodes;
  hc_mesh *m = calloc(1, sizeof(*m));
  HC_CHECK_GOTO(m, HC_ERR_RESOURCE, cleanup, "rank %d: out of memory allocating the mesh", rank);
  m->comm = MPI_COMM_NULL;
  m->source = HC_MESH_SOURCE_FILE;
  m->geometry_nodes = G;
  m->rank = rank;
  m->nranks = nranks;
  hc_mesh_params_init(&m->params);
  m->params.order = order;
  m->params.jitter = 0;
  m->order = order;
  m->nodes_per_cell = L;
  m->num_global_cells = hd->num_cells;
  m->num_global_nodes = hd->num_global_nodes;
  m->volume = hd->volume;
  m->edge_cut = hd->edge_cut;
  for (int d = 0; d < 3; d++) {
    m->bounds[0][d] = hd->bounds[0][d], m->bounds[1][d] = hd->bounds[1][d];
    m->length[d] = hd->bounds[1][d] - hd->bounds[0][d];
  }
  HC_CALL_GOTO(hc_mesh_from_rank_cells(m, rc), cleanup);
  HC_CALL_MPI_GOTO(MPI_Comm_dup(comm, &m->comm), cleanup);
  HC_CALL_MPI_GOTO(MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN), cleanup);
  /* Ownership from the global ids, as for the box: the lowest rank holding a node (the sharing stays for the halo). */
  HC_CALL_GOTO(hc_mesh_own(m), cleanup);
  *mesh = m;
  m = NULL;
cleanup:
  if (m) hc_mesh_destroy(&m);
  return ierr;
}

int hc_mesh_create_cells(MPI_Comm comm, const hc_mesh_cells *cells, int order, hc_partitioner partitioner,
                         hc_mesh **mesh) {
  int ierr = HC_OK, rank = 0, nranks = 1;
  HC_CHECK(mesh, HC_ERR_INPUT, "hc_mesh_create_cells: mesh is NULL");
  *mesh = NULL;
  HC_CALL_MPI(MPI_Comm_rank(comm, &rank));
  HC_CALL_MPI(MPI_Comm_size(comm, &nranks));
  hc_mesh_header hd;
  memset(&hd, 0, sizeof(hd));
  hc_numbering nb;
  memset(&nb, 0, sizeof(nb));
  int *part = NULL;
  int64_t *list = NULL, *start = NULL;
  hc_rank_cells rc;
  memset(&rc, 0, sizeof(rc));
  if (rank == 0) {
    if (!cells) {
      hd.err = HC_ERROR(HC_ERR_INPUT, "hc_mesh_create_cells: rank 0 has no cells");
    } else if (order < 1 || order > HC_MESH_MAX_ORDER) {
      hd.err = HC_ERROR(HC_ERR_INPUT, "mesh.order must be 1..%d, got %d", HC_MESH_MAX_ORDER, order);
    } else if (!(part = malloc((size_t)cells->num_cells * sizeof(*part) + 1))) {
      hd.err = HC_ERROR(HC_ERR_RESOURCE, "out of memory partitioning %s", cells->name);
    } else {
      hd.err = hc_mesh_root_prepare(cells, order, partitioner, nranks, part, &nb, &hd);
    }
    if (hd.err) snprintf(hd.msg, sizeof(hd.msg), "%s", hc_error_message());
  }
  HC_CALL_MPI_GOTO(MPI_Bcast(&hd, (int)sizeof(hd), MPI_BYTE, 0, comm), cleanup);
  if (hd.err) {
    ierr = rank == 0 ? hd.err : HC_ERROR(hd.err, "%s", hd.msg);
    goto cleanup;
  }
  const int L = (order + 1) * (order + 1) * (order + 1), G = hd.geometry_nodes;
  if (rank == 0) {
    /* Other ranks' parts one at a time (a count of -1 tells a rank that rank 0 failed), then rank 0's own. */
    ierr = hc_rank_lists(cells->num_cells, nranks, part, &list, &start);
    for (int r = 1; r < nranks; r++) {
      hc_rank_cells other;
      memset(&other, 0, sizeof(other));
      if (!ierr) ierr = hc_rank_cells_make(cells, &nb, order, list + start[r], start[r + 1] - start[r], &other);
      int64_t C = ierr ? -1 : other.C;
      int err = MPI_Send(&C, 1, MPI_INT64_T, r, 76, comm);
      if (!ierr && err != MPI_SUCCESS) ierr = hc_mpi_error(err, "MPI_Send", __FILE__, __LINE__, __func__);
      if (!ierr) ierr = hc_send_bytes(other.coords, (size_t)C * G * 3 * sizeof(double), r, comm);
      if (!ierr) ierr = hc_send_bytes(other.gid, (size_t)C * L * sizeof(int64_t), r, comm);
      if (!ierr) ierr = hc_send_bytes(other.flags, (size_t)C * L, r, comm);
      if (!ierr) ierr = hc_send_bytes(other.tag, (size_t)C * sizeof(int64_t), r, comm);
      hc_rank_cells_free(&other);
    }
    if (!ierr) ierr = hc_rank_cells_make(cells, &nb, order, list, start[1], &rc);
  } else {
    int64_t C = 0;
    HC_CALL_MPI_GOTO(MPI_Recv(&C, 1, MPI_INT64_T, 0, 76, comm, MPI_STATUS_IGNORE), agree);
    HC_CHECK_GOTO(C >= 0, HC_ERR_RESOURCE, agree, "rank 0 could not send rank %d its cells", rank);
    HC_CALL_GOTO(hc_rank_cells_alloc(&rc, C, G, L), agree);
    HC_CALL_GOTO(hc_recv_bytes(rc.coords, (size_t)C * G * 3 * sizeof(double), comm), agree);
    HC_CALL_GOTO(hc_recv_bytes(rc.gid, (size_t)C * L * sizeof(int64_t), comm), agree);
    HC_CALL_GOTO(hc_recv_bytes(rc.flags, (size_t)C * L, comm), agree);
    HC_CALL_GOTO(hc_recv_bytes(rc.tag, (size_t)C * sizeof(int64_t), comm), agree);
  }
agree:
  /* Every rank goes on only if all have their cells (else every rank returns the first failure's error). */
  ierr = hc_mpi_agree(comm, ierr);
  if (ierr) goto cleanup;
  ierr = hc_mesh_finish(comm, order, &hd, &rc, mesh);
cleanup:
  hc_rank_cells_free(&rc);
  hc_numbering_free(&nb);
  free(part);
  free(list);
  free(start);
  return ierr;
}
