/* The Gmsh reader: .msh files (4.1 and 2.2, ASCII and binary) read through Gmsh's own C API (gmshc.h), in a child
   process so that a damaged file that crashes Gmsh is an error, not a crash. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gmshc.h>

#include "io/hc_meshfile_impl.h"
#include "kernels/base/hc_error.h"

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

/* Reads the file in this process through Gmsh's API. */
static int hc_gmsh_read_here(const char *path, hc_meshfile **mesh) {
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

/* What the child sends first: the outcome, then either the message or the mesh's arrays. */
typedef struct {
  int32_t code;           /* HC_OK or the error code */
  int32_t nodes_per_cell; /* 8 or 27 */
  int64_t num_vertices, num_cells;
  int64_t message_len; /* bytes of the error message that follow, when code != HC_OK */
} hc_gmsh_header;

/* Writes all of buf, 0 on success. */
static int hc_write_all(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n > 0) {
    const ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w, n -= (size_t)w;
  }
  return 0;
}

/* Reads all of buf, 0 on success (-1 at an early end: the child died). */
static int hc_read_all(int fd, void *buf, size_t n) {
  char *p = buf;
  while (n > 0) {
    const ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    p += r, n -= (size_t)r;
  }
  return 0;
}

/* The child: reads the file and sends the outcome through fd, then ends without running exit handlers or flushing
   the parent's stdio buffers. */
static void hc_gmsh_child(const char *path, int fd) {
  /* A crash in Gmsh ends this process (not a handler the parent had installed, such as a test harness's) and is
     reported by the parent; it leaves no core file. */
  const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGINT, SIGTERM, SIGPIPE};
  for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) signal(fatal[i], SIG_DFL);
  const struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  hc_meshfile *m = NULL;
  const int err = hc_gmsh_read_here(path, &m);
  hc_gmsh_header h = {.code = err};
  int bad = 0;
  if (err) {
    const char *msg = hc_error_message();
    h.message_len = (int64_t)strlen(msg);
    bad = hc_write_all(fd, &h, sizeof(h)) || hc_write_all(fd, msg, (size_t)h.message_len);
  } else {
    h.nodes_per_cell = m->nodes_per_cell;
    h.num_vertices = m->num_vertices;
    h.num_cells = m->num_cells;
    bad = hc_write_all(fd, &h, sizeof(h)) ||
          hc_write_all(fd, m->coords, (size_t)m->num_vertices * 3 * sizeof(*m->coords)) ||
          hc_write_all(fd, m->vertex_tag, (size_t)m->num_vertices * sizeof(*m->vertex_tag)) ||
          hc_write_all(fd, m->cells, (size_t)(m->num_cells * m->nodes_per_cell) * sizeof(*m->cells)) ||
          hc_write_all(fd, m->cell_tag, (size_t)m->num_cells * sizeof(*m->cell_tag));
  }
  close(fd);
  _exit(bad ? 1 : 0);
}

/* The parent: receives the child's outcome. On an early end, the child's fate says what happened. */
static int hc_gmsh_receive(const char *path, int fd, pid_t pid, hc_meshfile **mesh) {
  int ierr = HC_OK;
  hc_meshfile *m = NULL;
  char *msg = NULL;
  hc_gmsh_header h;
  int early = hc_read_all(fd, &h, sizeof(h));
  if (!early && h.code != HC_OK) {
    msg = calloc((size_t)(h.message_len > 0 && h.message_len < 65536 ? h.message_len : 0) + 1, 1);
    HC_CHECK_GOTO(msg, HC_ERR_RESOURCE, done, "'%s': out of memory", path);
    early = h.message_len < 0 || h.message_len >= 65536 || hc_read_all(fd, msg, (size_t)h.message_len);
    if (!early) ierr = HC_ERROR(h.code, "%s", msg);
  } else if (!early) {
    HC_CHECK_GOTO((h.nodes_per_cell == 8 || h.nodes_per_cell == 27) && h.num_vertices >= 0 && h.num_cells >= 0,
                  HC_ERR_RUNTIME, done, "'%s': the Gmsh reader's process sent a damaged header", path);
    HC_CALL_GOTO(hc_meshfile_alloc(path, "gmsh", h.nodes_per_cell, h.num_vertices, h.num_cells, &m), done);
    early = hc_read_all(fd, m->coords, (size_t)h.num_vertices * 3 * sizeof(*m->coords)) ||
            hc_read_all(fd, m->vertex_tag, (size_t)h.num_vertices * sizeof(*m->vertex_tag)) ||
            hc_read_all(fd, m->cells, (size_t)(h.num_cells * h.nodes_per_cell) * sizeof(*m->cells)) ||
            hc_read_all(fd, m->cell_tag, (size_t)h.num_cells * sizeof(*m->cell_tag));
  }
done:
  close(fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) continue;
  if (!ierr && early) {
    const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (sig == SIGINT || sig == SIGTERM || sig == SIGKILL || sig == SIGPIPE)
      ierr = HC_ERROR(HC_ERR_RUNTIME, "'%s': the Gmsh reader's process was stopped by signal %d (%s)%s", path, sig,
                      strsignal(sig), sig == SIGKILL ? ": out of memory?" : "");
    else if (sig)
      ierr = HC_ERROR(HC_ERR_INPUT,
                      "'%s': Gmsh crashed reading the mesh file (signal %d, %s): the file is damaged (a count, tag or "
                      "size out of range); check it with `gmsh -check %s`",
                      path, sig, strsignal(sig), path);
    else
      ierr = HC_ERROR(HC_ERR_RUNTIME, "'%s': the Gmsh reader's process ended early (exit status %d)", path,
                      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  free(msg);
  if (ierr) {
    hc_meshfile_destroy(&m);
    return ierr;
  }
  *mesh = m;
  return HC_OK;
}

int hc_meshfile_read_gmsh(const char *path, hc_meshfile **mesh) {
  *mesh = NULL;
  /* Gmsh 4.8 crashes on some damaged files (a node tag out of range in an element: GModel::getMeshVertexByTag),
     so the reading runs in a child process; the parent gets the mesh through a pipe or an error either way. Where
     no process can be made, it runs here. */
  int fds[2];
  if (pipe(fds) != 0) return hc_gmsh_read_here(path, mesh);
  fflush(NULL);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return hc_gmsh_read_here(path, mesh);
  }
  if (pid == 0) {
    close(fds[0]);
    hc_gmsh_child(path, fds[1]);
  }
  close(fds[1]);
  return hc_gmsh_receive(path, fds[0], pid, mesh);
}

const char *hc_meshfile_gmsh_info(void) {
  return "Gmsh .msh 4.1 and 2.2, ASCII and binary (Gmsh C API " GMSH_API_VERSION ")";
}
