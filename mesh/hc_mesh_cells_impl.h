/* What the two constructors of unstructured meshes share (mesh/hc_mesh_cells.c, rank 0 numbers the whole mesh;
   mesh/hc_mesh_dist.c, every rank reads and numbers its part): the reference cell's corners, edges and faces, the
   global id of each order-p node from the ids of its cell's vertices, edges and faces, the shape checks of a cell,
   and the last step, one rank's cells with their global node ids made into its hc_mesh. Private to mesh/. */
#ifndef HC_MESH_CELLS_IMPL_H
#define HC_MESH_CELLS_IMPL_H

#include <math.h>
#include <stdint.h>

#include "mesh/hc_mesh.h"

/* Corner v = a + 2b + 4c of a cell of G geometry nodes (8 or 27): the index of its geometry node (a,b,c)
   scaled to the geometry's lattice. */
static inline int hc_corner_index(int G, int v) {
  const int n = G == 27 ? 3 : 2, s = n - 1;
  return (v & 1) * s + n * (((v >> 1) & 1) * s + n * (((v >> 2) & 1) * s));
}

/* A hash map from a sorted tuple of up to 4 vertex numbers (non-negative) to a dense id. */
typedef struct {
  int64_t key[4]; /* sorted vertex numbers; key[0] = -1 marks an empty slot */
  int64_t id;     /* dense id, in order of first insertion */
  int64_t cell;   /* the first cell that has it */
  int count;      /* cells that have it */
} hc_tuple_entry;

typedef struct {
  hc_tuple_entry *slot;
  int64_t capacity; /* a power of two */
  int64_t size;
  int width; /* 1 (vertices), 2 (edges) or 4 (faces) */
} hc_tuple_map;

/* An empty map for about `expected` keys of width numbers (capacity at least twice that, grown as needed); free
   m->slot after. */
int hc_tuple_map_init(hc_tuple_map *m, int width, int64_t expected);
/* Finds key (sorted) or inserts it with the next id (cell recorded, count 0); returns its entry, valid until the next
   call (the map grows, keeping ids, when it is half full), or NULL when out of memory. */
hc_tuple_entry *hc_tuple_map_get(hc_tuple_map *m, const int64_t *key, int64_t cell);

/* A hash of a tuple of width numbers. */
uint64_t hc_tuple_hash(const int64_t *key, int width);

/* Insertion sort of a few numbers. */
void hc_sort_small(int64_t *a, int n);

/* Face f = 2 axis + side (the axis held fixed, its side 0 or 1): its 4 corners, the first two along the axis
   (axis + 1) % 3. */
void hc_face_corners(int f, int corners[4]);

/* Edge e = 4 d + s (d the axis it runs along, s = lower other axis's side + 2 x higher other axis's side): its
   corners at the low (*c0) and high (*c1) end along d. */
void hc_edge_corners(int e, int *c0, int *c1);

/* A cell's topology as global ids: its corners' vertex ids (by corner v = a + 2b + 4c), its edges' ids (by edge,
   as hc_edge_corners), its faces' ids (by face, as hc_face_corners) and the cell's own global number. Vertex ids
   are also what orients a shared edge or face, so that every cell holding it numbers its nodes alike. */
typedef struct {
  int64_t v[8], e[12], f[6], cell;
} hc_cell_ids;

/* The mesh's numbers of vertices, edges and faces: node ids are vertices, then the p-1 nodes inside each edge,
   the (p-1)^2 inside each face, the (p-1)^3 inside each cell. */
typedef struct {
  int64_t vertices, edges, faces, cells;
} hc_entity_counts;

/* Which entity of the reference cell node (i,j,k), 0 <= i,j,k <= p, lies inside: returns its dimension (0: a corner,
   1: an edge, 2: a face, 3: the cell) and sets *index to the corner (a + 2b + 4c), edge or face (numbered as above;
   0 for the cell). */
int hc_node_entity(int p, int i, int j, int k, int *index);

/* The global id of node (i,j,k), 0 <= i,j,k <= p, of the cell ids describes. */
int64_t hc_cell_node_gid(const hc_cell_ids *ids, const hc_entity_counts *n, int p, int i, int j, int k);

/* All global nodes of an order-p mesh of these counts. */
int64_t hc_entity_node_count(const hc_entity_counts *n, int p);

/* Checks one cell's shape (corner ids distinct: not degenerate; det J > 0 at every geometry node: not inverted)
   and returns its exact volume in *volume. x: [G][3] geometry nodes; corner: its 8 corners' vertex numbers.
   HC_ERR_INPUT naming the mesh (name) and the cell (tag). */
int hc_cell_check(const char *name, int64_t tag, int G, const double *x, const int64_t corner[8], double *volume);

/* Cells' volumes summed (Neumaier's compensated sum: sum + comp) and their bounding box. */
typedef struct {
  double sum, comp, lo[3], hi[3];
} hc_shape_sum;

static inline void hc_shape_sum_init(hc_shape_sum *s) {
  s->sum = s->comp = 0;
  for (int d = 0; d < 3; d++) s->lo[d] = HUGE_VAL, s->hi[d] = -HUGE_VAL;
}

/* Adds a cell of G geometry nodes x[G][3] and volume vol. */
static inline void hc_shape_sum_add(hc_shape_sum *s, int G, const double *x, double vol) {
  for (int g = 0; g < G; g++)
    for (int d = 0; d < 3; d++) s->lo[d] = fmin(s->lo[d], x[3 * g + d]), s->hi[d] = fmax(s->hi[d], x[3 * g + d]);
  const double t = s->sum + vol;
  s->comp += fabs(s->sum) >= fabs(vol) ? (s->sum - t) + vol : (vol - t) + s->sum;
  s->sum = t;
}

/* One rank's cells with their geometry and global node ids. */
typedef struct {
  int64_t C;
  double *coords; /* [C][G][3] */
  int64_t *gid;   /* [C][L] */
  uint8_t *flags; /* [C][L]: 1 on the mesh's boundary */
  int64_t *tag;   /* [C]: the cells' numbers in the file */
} hc_rank_cells;

int hc_rank_cells_alloc(hc_rank_cells *rc, int64_t C, int G, int L);
void hc_rank_cells_free(hc_rank_cells *rc);

/* What is known of the whole mesh. */
typedef struct {
  int err;
  int geometry_nodes;
  int64_t num_cells, num_global_nodes, edge_cut;
  double volume, bounds[2][3];
  char msg[2048];
} hc_mesh_header;

/* This rank's hc_mesh from its cells (rc, emptied) and the whole mesh's header. Collective over comm. */
int hc_mesh_finish(MPI_Comm comm, int order, const hc_mesh_header *hd, hc_rank_cells *rc, hc_mesh **mesh);

#endif
