/* The Exodus II reader: .exo/.e files read through the Exodus II library (exodusII.h, on netCDF). */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <exodusII.h>

#include "io/hc_meshfile_impl.h"
#include "kernels/base/hc_error.h"

/* The Exodus library's last error message. */
static const char *hc_exodus_last_error(char *buf, size_t size) {
  const char *msg = NULL, *func = NULL;
  int code = 0;
  ex_get_err(&msg, &func, &code);
  snprintf(buf, size, "%s%s%s", func && func[0] ? func : "", func && func[0] ? ": " : "",
           msg && msg[0] ? msg : "no message from the Exodus library");
  return buf;
}

/* An element type name, upper case, without digits: "HEX27" -> "HEX", "tetra4" -> "TETRA", "Hexahedron" ->
   "HEXAHEDRON" (any name that starts with HEX is a hexahedron; its node count says which). */
static void hc_exodus_type_base(const char *type, char *base, size_t size) {
  size_t n = 0;
  for (const char *p = type; *p && n + 1 < size; p++)
    if (isalpha((unsigned char)*p)) base[n++] = (char)toupper((unsigned char)*p);
  base[n] = '\0';
}

/* 1 for a 3D element type (Exodus names: HEX, TETRA, WEDGE, PYRAMID, NFACED and their variants), else 0 (2D and
   1D types, shells, spheres, bars, which the reader skips). */
static int hc_exodus_type_is_3d(const char *base) {
  return strncmp(base, "HEX", 3) == 0 || strncmp(base, "TET", 3) == 0 || strncmp(base, "WEDGE", 5) == 0 ||
         strncmp(base, "PYRAMID", 7) == 0 || strcmp(base, "NFACED") == 0 || strcmp(base, "POLYHEDRON") == 0;
}

/* An open Exodus II file: its element blocks, which of them hold the hexahedra, and the counts. */
struct hc_exodus_file {
  char path[4096];
  int exoid;
  int nodes_per_cell;
  int64_t num_nodes, num_cells, num_blocks;
  int64_t *block_id;    /* [num_blocks] */
  int64_t *block_count; /* [num_blocks]: elements of each block */
  int64_t *block_first; /* [num_blocks]: its first element's index among all the file's elements (0-based) */
  int64_t *block_npe;   /* [num_blocks]: nodes per element */
  int *block_hex;       /* [num_blocks]: 1 for a block of the hexahedra */
};

void hc_exodus_close(hc_exodus_file **file) {
  hc_exodus_file *f = *file;
  if (!f) return;
  if (f->exoid >= 0) ex_close(f->exoid);
  free(f->block_id);
  free(f->block_count);
  free(f->block_first);
  free(f->block_npe);
  free(f->block_hex);
  free(f);
  *file = NULL;
}

int hc_exodus_open(const char *path, hc_exodus_file **file) {
  int ierr = HC_OK;
  char msg[1024];
  *file = NULL;
  hc_exodus_file *f = calloc(1, sizeof(*f));
  HC_CHECK(f, HC_ERR_RESOURCE, "'%s': out of memory", path);
  snprintf(f->path, sizeof(f->path), "%s", path);
  /* Quiet, and never abort the process on an error (EX_ABORT off). */
  ex_opts(EX_DEFAULT);
  int comp_ws = 8, io_ws = 0;
  float version = 0.0f;
  f->exoid = ex_open(path, EX_READ, &comp_ws, &io_ws, &version);
  HC_CHECK_GOTO(f->exoid >= 0, HC_ERR_INPUT, done,
                "'%s': the Exodus II library could not open the file (truncated or not Exodus?): %s", path,
                hc_exodus_last_error(msg, sizeof(msg)));
  ex_set_int64_status(f->exoid, EX_ALL_INT64_API);
  char title[MAX_LINE_LENGTH + 1];
  int64_t num_dim = 0, num_elem = 0, num_node_sets = 0, num_side_sets = 0;
  HC_CHECK_GOTO(ex_get_init(f->exoid, title, &num_dim, &f->num_nodes, &num_elem, &f->num_blocks, &num_node_sets,
                            &num_side_sets) >= 0,
                HC_ERR_INPUT, done, "'%s': cannot read the Exodus II header: %s", path,
                hc_exodus_last_error(msg, sizeof(msg)));
  HC_CHECK_GOTO(num_dim == 3, HC_ERR_INPUT, done,
                "'%s': the mesh is %" PRId64 "D; hexcontract reads 3D meshes of hexahedra", path, num_dim);
  HC_CHECK_GOTO(f->num_nodes > 0 && num_elem > 0 && f->num_blocks > 0, HC_ERR_INPUT, done,
                "'%s': the mesh has no hexahedra (%" PRId64 " nodes, %" PRId64 " elements, %" PRId64 " blocks)", path,
                f->num_nodes, num_elem, f->num_blocks);
  const size_t B = (size_t)f->num_blocks;
  f->block_id = malloc(B * sizeof(int64_t));
  f->block_count = malloc(B * sizeof(int64_t));
  f->block_first = malloc(B * sizeof(int64_t));
  f->block_npe = malloc(B * sizeof(int64_t));
  f->block_hex = calloc(B, sizeof(int));
  HC_CHECK_GOTO(f->block_id && f->block_count && f->block_first && f->block_npe && f->block_hex, HC_ERR_RESOURCE, done,
                "'%s': out of memory", path);
  HC_CHECK_GOTO(ex_get_elem_blk_ids(f->exoid, f->block_id) >= 0, HC_ERR_INPUT, done,
                "'%s': cannot read the element blocks: %s", path, hc_exodus_last_error(msg, sizeof(msg)));
  /* The blocks' types, one kind of hexahedron, the number of cells. Elements are numbered consecutively through
     the blocks in their order; the element map gives each its number in the file. */
  int64_t first = 0, hex_first = -1;
  for (int64_t b = 0; b < f->num_blocks; b++) {
    char type[MAX_STR_LENGTH + 1] = "", base[MAX_STR_LENGTH + 1];
    int64_t n = 0, npe = 0, nattr = 0;
    HC_CHECK_GOTO(ex_get_elem_block(f->exoid, f->block_id[b], type, &n, &npe, &nattr) >= 0, HC_ERR_INPUT, done,
                  "'%s': cannot read element block %" PRId64 ": %s", path, f->block_id[b],
                  hc_exodus_last_error(msg, sizeof(msg)));
    f->block_count[b] = n, f->block_first[b] = first, f->block_npe[b] = npe;
    hc_exodus_type_base(type, base, sizeof(base));
    /* A type that names its node count ("HEX20") must have that many nodes. */
    const char *digits = type + strcspn(type, "0123456789");
    HC_CHECK_GOTO(!digits[0] || strtoll(digits, NULL, 10) == npe, HC_ERR_INPUT, done,
                  "'%s': element block %" PRId64 " has type %s but %" PRId64 " nodes per element", path, f->block_id[b],
                  type, npe);
    if (n > 0 && hc_exodus_type_is_3d(base)) {
      int64_t tag = 0;
      HC_CHECK_GOTO(ex_get_partial_id_map(f->exoid, EX_ELEM_MAP, first + 1, 1, &tag) >= 0, HC_ERR_INPUT, done,
                    "'%s': cannot read the element map: %s", path, hc_exodus_last_error(msg, sizeof(msg)));
      HC_CHECK_GOTO(strncmp(base, "HEX", 3) == 0 && (npe == 8 || npe == 27), HC_ERR_INPUT, done,
                    "'%s': cell %" PRId64 " (element block %" PRId64 ", %" PRId64 " cells) is a %s of %" PRId64
                    " nodes; hexcontract reads meshes of 8-node (HEX8) or 27-node (HEX27) hexahedra only",
                    path, tag, f->block_id[b], n, type, npe);
      if (f->nodes_per_cell != 0 && f->nodes_per_cell != npe) {
        int64_t first_tag = 0;
        ex_get_partial_id_map(f->exoid, EX_ELEM_MAP, hex_first + 1, 1, &first_tag);
        HC_CHECK_GOTO(0, HC_ERR_INPUT, done,
                      "'%s': the mesh mixes 8-node and 27-node hexahedra (cell %" PRId64 " has %d nodes, cell %" PRId64
                      " has %" PRId64 "); hexcontract needs one kind per mesh",
                      path, first_tag, f->nodes_per_cell, tag, npe);
      }
      f->nodes_per_cell = (int)npe;
      if (hex_first < 0) hex_first = first;
      f->block_hex[b] = 1;
      f->num_cells += n;
    }
    first += n;
  }
  HC_CHECK_GOTO(f->num_cells > 0, HC_ERR_INPUT, done,
                "'%s': the mesh has no hexahedra (no 3D element block); hexcontract needs HEX8 or HEX27 blocks", path);
  *file = f;
  f = NULL;
done:
  hc_exodus_close(&f);
  return ierr;
}

int hc_exodus_counts(const hc_exodus_file *f, int *nodes_per_cell, int64_t *num_nodes, int64_t *num_cells) {
  *nodes_per_cell = f->nodes_per_cell, *num_nodes = f->num_nodes, *num_cells = f->num_cells;
  return HC_OK;
}

int hc_exodus_read_nodes(hc_exodus_file *f, int64_t first, int64_t count, double *coords, int64_t *tags) {
  int ierr = HC_OK;
  char msg[1024];
  double *x = malloc((size_t)count * 3 * sizeof(double) + 1);
  HC_CHECK(x, HC_ERR_RESOURCE, "'%s': out of memory for %" PRId64 " nodes", f->path, count);
  if (count > 0)
    HC_CHECK_GOTO(ex_get_partial_coord(f->exoid, first + 1, count, x, x + count, x + 2 * count) >= 0 &&
                      ex_get_partial_id_map(f->exoid, EX_NODE_MAP, first + 1, count, tags) >= 0,
                  HC_ERR_INPUT, done, "'%s': cannot read the node coordinates: %s", f->path,
                  hc_exodus_last_error(msg, sizeof(msg)));
  for (int64_t v = 0; v < count; v++)
    for (int d = 0; d < 3; d++) coords[3 * v + d] = x[d * count + v];
done:
  free(x);
  return ierr;
}

int hc_exodus_read_cells(hc_exodus_file *f, int64_t first, int64_t count, int64_t *cells, int64_t *tags) {
  int ierr = HC_OK;
  char msg[1024];
  const int G = f->nodes_per_cell;
  const int *order = G == 8 ? hc_meshfile_exodus_hex8 : hc_meshfile_exodus_hex27;
  int64_t *conn = NULL;
  /* cell: the hexahedra's running number; the blocks of hexahedra that meet first .. first + count - 1. */
  for (int64_t b = 0, cell = 0; b < f->num_blocks && cell < first + count; b++) {
    if (!f->block_hex[b]) continue;
    const int64_t n = f->block_count[b], npe = f->block_npe[b];
    const int64_t lo = first > cell ? first - cell : 0, hi = first + count < cell + n ? first + count - cell : n;
    if (lo < hi) {
      const int64_t k = hi - lo, out = cell + lo - first;
      conn = malloc((size_t)(k * npe) * sizeof(*conn));
      HC_CHECK_GOTO(conn, HC_ERR_RESOURCE, done, "'%s': out of memory for element block %" PRId64, f->path,
                    f->block_id[b]);
      HC_CHECK_GOTO(ex_get_partial_conn(f->exoid, EX_ELEM_BLOCK, f->block_id[b], lo + 1, k, conn, NULL, NULL) >= 0 &&
                        ex_get_partial_id_map(f->exoid, EX_ELEM_MAP, f->block_first[b] + lo + 1, k, tags + out) >= 0,
                    HC_ERR_INPUT, done, "'%s': cannot read the connectivity of element block %" PRId64 ": %s", f->path,
                    f->block_id[b], hc_exodus_last_error(msg, sizeof(msg)));
      for (int64_t e = 0; e < k; e++) {
        /* Element numbers are positive; netCDF reads the missing part of a truncated file as zeros, without error. */
        HC_CHECK_GOTO(tags[out + e] > 0, HC_ERR_INPUT, done,
                      "'%s': element %" PRId64 " of the file has number %" PRId64
                      " in the element map (numbers are positive): the file is truncated or damaged",
                      f->path, f->block_first[b] + lo + e + 1, tags[out + e]);
        for (int t = 0; t < G; t++) {
          const int64_t node = conn[e * npe + order[t]];
          HC_CHECK_GOTO(
              node >= 1 && node <= f->num_nodes, HC_ERR_INPUT, done,
              "'%s': cell %" PRId64 " references node %" PRId64
              ", which the file does not define (it has nodes 1..%" PRId64 ")%s",
              f->path, tags[out + e], node, f->num_nodes,
              node == 0 ? "; the missing part of a truncated file reads as zeros: is the file complete?" : "");
          cells[(out + e) * G + t] = node - 1;
        }
      }
      free(conn);
      conn = NULL;
    }
    cell += n;
  }
done:
  free(conn);
  return ierr;
}

int hc_meshfile_read_exodus(const char *path, hc_meshfile **mesh) {
  int ierr = HC_OK;
  *mesh = NULL;
  hc_exodus_file *f = NULL;
  hc_meshfile *m = NULL;
  HC_CALL(hc_exodus_open(path, &f));
  HC_CALL_GOTO(hc_meshfile_alloc(path, "exodus", f->nodes_per_cell, f->num_nodes, f->num_cells, &m), done);
  HC_CALL_GOTO(hc_exodus_read_nodes(f, 0, f->num_nodes, m->coords, m->vertex_tag), done);
  HC_CALL_GOTO(hc_exodus_read_cells(f, 0, f->num_cells, m->cells, m->cell_tag), done);
  *mesh = m;
  m = NULL;
done:
  hc_exodus_close(&f);
  hc_meshfile_destroy(&m);
  return ierr;
}

const char *hc_meshfile_exodus_info(void) {
  static char info[128];
  snprintf(info, sizeof(info), "Exodus II .exo and .e (Exodus II API %.2f)", (double)EX_API_VERS);
  return info;
}
