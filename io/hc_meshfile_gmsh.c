/* The Gmsh reader: .msh files (4.1 and 2.2, ASCII and binary) read through Gmsh's own C API (gmshc.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gmshc.h>

#include "io/hc_meshfile_impl.h"
#include "kernels/hc_error.h"

/* Gmsh's last error message, or what to say when it left none. */
static const char *hc_gmsh_last_error(char *buf, size_t size) {
  int ierr = 0;
  char *msg = NULL;
  gmshLoggerGetLastError(&msg, &ierr);
  snprintf(buf, size, "%s", !ierr && msg && msg[0] ? msg : "no message from Gmsh");
  gmshFree(msg);
  return buf;
}

/* Node tag -> index into the node arrays: a dense table when the tags are compact (what Gmsh writes), else the
   tags sorted with their indices and searched. */
typedef struct {
  size_t max_tag;
  int64_t *dense;              /* [max_tag + 1], -1 where no node; NULL when sorted is used */
  struct hc_tag_index *sorted; /* [n], sorted by tag */
  size_t n;
} hc_tag_map;

struct hc_tag_index {
  size_t tag;
  int64_t index;
};

static int hc_tag_index_cmp(const void *pa, const void *pb) {
  const struct hc_tag_index *a = pa, *b = pb;
  return a->tag < b->tag ? -1 : a->tag > b->tag;
}

static int hc_tag_map_create(const char *path, const size_t *tags, size_t n, hc_tag_map *map) {
  memset(map, 0, sizeof(*map));
  map->n = n;
  for (size_t i = 0; i < n; i++)
    if (tags[i] > map->max_tag) map->max_tag = tags[i];
  if (map->max_tag <= 4 * n + 1024) {
    map->dense = malloc((map->max_tag + 1) * sizeof(*map->dense));
    HC_CHECK(map->dense, HC_ERR_RESOURCE, "'%s': out of memory for the node tags", path);
    for (size_t t = 0; t <= map->max_tag; t++) map->dense[t] = -1;
    for (size_t i = 0; i < n; i++) map->dense[tags[i]] = (int64_t)i;
  } else {
    map->sorted = malloc((n ? n : 1) * sizeof(*map->sorted));
    HC_CHECK(map->sorted, HC_ERR_RESOURCE, "'%s': out of memory for the node tags", path);
    for (size_t i = 0; i < n; i++) map->sorted[i] = (struct hc_tag_index){tags[i], (int64_t)i};
    qsort(map->sorted, n, sizeof(*map->sorted), hc_tag_index_cmp);
  }
  return HC_OK;
}

static int64_t hc_tag_map_find(const hc_tag_map *map, size_t tag) {
  if (map->dense) return tag <= map->max_tag ? map->dense[tag] : -1;
  const struct hc_tag_index key = {tag, 0};
  const struct hc_tag_index *hit = bsearch(&key, map->sorted, map->n, sizeof(*map->sorted), hc_tag_index_cmp);
  return hit ? hit->index : -1;
}

static void hc_tag_map_destroy(hc_tag_map *map) {
  free(map->dense);
  free(map->sorted);
  memset(map, 0, sizeof(*map));
}

/* Reads the open model's nodes and 3D elements into *mesh. */
static int hc_gmsh_model_to_mesh(const char *path, hc_meshfile **mesh) {
  int ierr = HC_OK, gerr = 0;
  char msg[1024];
  int *types = NULL;
  size_t num_types = 0;
  size_t **elem_tags = NULL, *elem_tags_n = NULL, **elem_nodes = NULL, *elem_nodes_n = NULL, num_blocks = 0,
         num_nodes_blocks = 0, num_tag_blocks = 0;
  size_t *node_tags = NULL, num_node_tags = 0, num_coords = 0, num_param = 0;
  double *coords = NULL, *param = NULL;
  hc_tag_map map = {0};
  hc_meshfile *m = NULL;

  gmshModelMeshGetElements(&types, &num_types, &elem_tags, &elem_tags_n, &num_tag_blocks, &elem_nodes, &elem_nodes_n,
                           &num_nodes_blocks, 3, -1, &gerr);
  num_blocks = num_types;
  HC_CHECK_GOTO(!gerr, HC_ERR_INPUT, done, "'%s': Gmsh could not list the mesh's 3D elements: %s", path,
                hc_gmsh_last_error(msg, sizeof(msg)));
  /* One kind of hexahedron: Gmsh types 5 (8 nodes) and 12 (27 nodes); every other 3D type is refused. */
  int hex_type = 0;
  size_t hex_block = 0;
  for (size_t k = 0; k < num_blocks; k++) {
    if (elem_tags_n[k] == 0) continue;
    if (types[k] != 5 && types[k] != 12) {
      char *name = NULL;
      int dim, order, num_nodes, num_primary;
      double *local = NULL;
      size_t num_local = 0;
      gmshModelMeshGetElementProperties(types[k], &name, &dim, &order, &num_nodes, &local, &num_local, &num_primary,
                                        &gerr);
      snprintf(msg, sizeof(msg), "%s", !gerr && name ? name : "unknown");
      gmshFree(name);
      gmshFree(local);
      HC_CHECK_GOTO(
          0, HC_ERR_INPUT, done,
          "'%s': cell %zu is a %s (Gmsh element type %d; %zu cells of that type); hexcontract reads meshes of "
          "8-node (Gmsh type 5) or 27-node (type 12) hexahedra only",
          path, elem_tags[k][0], msg, types[k], elem_tags_n[k]);
    }
    if (hex_type && hex_type != types[k])
      HC_CHECK_GOTO(0, HC_ERR_INPUT, done,
                    "'%s': the mesh mixes 8-node and 27-node hexahedra (cell %zu has %d nodes, cell %zu has %d); "
                    "hexcontract needs one kind per mesh",
                    path, elem_tags[hex_block][0], hex_type == 5 ? 8 : 27, elem_tags[k][0], types[k] == 5 ? 8 : 27);
    hex_type = types[k];
    hex_block = k;
  }
  const int nodes_per_cell = hex_type == 12 ? 27 : 8;
  int64_t num_cells = 0;
  for (size_t k = 0; k < num_blocks; k++)
    if (types[k] == hex_type) num_cells += (int64_t)elem_tags_n[k];

  gmshModelMeshGetNodes(&node_tags, &num_node_tags, &coords, &num_coords, &param, &num_param, -1, -1, 0, 0, &gerr);
  HC_CHECK_GOTO(!gerr && num_coords == 3 * num_node_tags, HC_ERR_INPUT, done,
                "'%s': Gmsh could not give the mesh's nodes: %s", path, hc_gmsh_last_error(msg, sizeof(msg)));
  HC_CALL_GOTO(hc_meshfile_alloc(path, "gmsh", nodes_per_cell, (int64_t)num_node_tags, num_cells, &m), done);
  memcpy(m->coords, coords, num_coords * sizeof(*coords));
  for (size_t i = 0; i < num_node_tags; i++) m->vertex_tag[i] = (int64_t)node_tags[i];
  HC_CALL_GOTO(hc_tag_map_create(path, node_tags, num_node_tags, &map), done);

  const int *order = nodes_per_cell == 8 ? hc_meshfile_gmsh_hex8 : hc_meshfile_gmsh_hex27;
  int64_t cell = 0;
  for (size_t k = 0; k < num_blocks; k++) {
    if (types[k] != hex_type) continue;
    HC_CHECK_GOTO(elem_nodes_n[k] == elem_tags_n[k] * (size_t)nodes_per_cell, HC_ERR_INPUT, done,
                  "'%s': Gmsh gave %zu nodes for %zu hexahedra of %d nodes", path, elem_nodes_n[k], elem_tags_n[k],
                  nodes_per_cell);
    for (size_t e = 0; e < elem_tags_n[k]; e++, cell++) {
      const size_t *file_nodes = elem_nodes[k] + e * (size_t)nodes_per_cell;
      m->cell_tag[cell] = (int64_t)elem_tags[k][e];
      for (int t = 0; t < nodes_per_cell; t++) {
        const int64_t index = hc_tag_map_find(&map, file_nodes[order[t]]);
        HC_CHECK_GOTO(index >= 0, HC_ERR_INPUT, done,
                      "'%s': cell %zu references node %zu, which the file does not define", path, elem_tags[k][e],
                      file_nodes[order[t]]);
        m->cells[cell * nodes_per_cell + t] = index;
      }
    }
  }
  *mesh = m;
  m = NULL;
done:
  hc_tag_map_destroy(&map);
  hc_meshfile_destroy(&m);
  for (size_t k = 0; k < num_tag_blocks; k++) gmshFree(elem_tags[k]);
  for (size_t k = 0; k < num_nodes_blocks; k++) gmshFree(elem_nodes[k]);
  gmshFree(elem_tags);
  gmshFree(elem_tags_n);
  gmshFree(elem_nodes);
  gmshFree(elem_nodes_n);
  gmshFree(types);
  gmshFree(node_tags);
  gmshFree(coords);
  gmshFree(param);
  return ierr;
}

int hc_meshfile_read_gmsh(const char *path, hc_meshfile **mesh) {
  int ierr = HC_OK, gerr = 0;
  char msg[1024];
  *mesh = NULL;
  gmshInitialize(0, NULL, 0, &gerr);
  HC_CHECK(!gerr, HC_ERR_RUNTIME, "'%s': Gmsh's API could not be initialised", path);
  /* Quiet, and an error in a file is an exception the API turns into ierr (never exit). */
  gmshOptionSetNumber("General.Terminal", 0, &gerr);
  gmshOptionSetNumber("General.Verbosity", 1, &gerr);
  gmshOptionSetNumber("General.AbortOnError", 2, &gerr);
  gmshLoggerStart(&gerr);
  gmshOpen(path, &gerr);
  HC_CHECK_GOTO(!gerr, HC_ERR_INPUT, done,
                "'%s': Gmsh could not read the mesh file (truncated or not a Gmsh mesh?): %s", path,
                hc_gmsh_last_error(msg, sizeof(msg)));
  /* Gmsh reports a failed read through its logger only, in some of its readers. */
  hc_gmsh_last_error(msg, sizeof(msg));
  HC_CHECK_GOTO(strcmp(msg, "no message from Gmsh") == 0, HC_ERR_INPUT, done,
                "'%s': Gmsh could not read the mesh file (truncated or not a Gmsh mesh?): %s", path, msg);
  HC_CALL_GOTO(hc_gmsh_model_to_mesh(path, mesh), done);
done:
  gmshLoggerStop(&gerr);
  gmshFinalize(&gerr);
  return ierr;
}

const char *hc_meshfile_gmsh_info(void) {
  return "Gmsh .msh 4.1 and 2.2, ASCII and binary (Gmsh C API " GMSH_API_VERSION ")";
}
