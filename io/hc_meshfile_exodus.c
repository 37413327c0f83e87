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

int hc_meshfile_read_exodus(const char *path, hc_meshfile **mesh) {
  int ierr = HC_OK;
  char msg[1024];
  *mesh = NULL;
  int64_t *block_ids = NULL, *elem_map = NULL, *conn = NULL;
  double *x = NULL, *y = NULL, *z = NULL;
  hc_meshfile *m = NULL;
  /* Quiet, and never abort the process on an error (EX_ABORT off). */
  ex_opts(EX_DEFAULT);
  int comp_ws = 8, io_ws = 0;
  float version = 0.0f;
  const int exoid = ex_open(path, EX_READ, &comp_ws, &io_ws, &version);
  HC_CHECK(exoid >= 0, HC_ERR_INPUT,
           "'%s': the Exodus II library could not open the file (truncated or not Exodus?): %s", path,
           hc_exodus_last_error(msg, sizeof(msg)));
  ex_set_int64_status(exoid, EX_ALL_INT64_API);
  char title[MAX_LINE_LENGTH + 1];
  int64_t num_dim = 0, num_nodes = 0, num_elem = 0, num_blocks = 0, num_node_sets = 0, num_side_sets = 0;
  HC_CHECK_GOTO(
      ex_get_init(exoid, title, &num_dim, &num_nodes, &num_elem, &num_blocks, &num_node_sets, &num_side_sets) >= 0,
      HC_ERR_INPUT, done, "'%s': cannot read the Exodus II header: %s", path, hc_exodus_last_error(msg, sizeof(msg)));
  HC_CHECK_GOTO(num_dim == 3, HC_ERR_INPUT, done,
                "'%s': the mesh is %" PRId64 "D; hexcontract reads 3D meshes of hexahedra", path, num_dim);
  HC_CHECK_GOTO(num_nodes > 0 && num_elem > 0 && num_blocks > 0, HC_ERR_INPUT, done,
                "'%s': the mesh has no hexahedra (%" PRId64 " nodes, %" PRId64 " elements, %" PRId64 " blocks)", path,
                num_nodes, num_elem, num_blocks);
  block_ids = malloc((size_t)num_blocks * sizeof(*block_ids));
  elem_map = malloc((size_t)num_elem * sizeof(*elem_map));
  HC_CHECK_GOTO(block_ids && elem_map, HC_ERR_RESOURCE, done, "'%s': out of memory", path);
  HC_CHECK_GOTO(ex_get_elem_blk_ids(exoid, block_ids) >= 0 && ex_get_id_map(exoid, EX_ELEM_MAP, elem_map) >= 0,
                HC_ERR_INPUT, done, "'%s': cannot read the element blocks: %s", path,
                hc_exodus_last_error(msg, sizeof(msg)));
  /* Element numbers are positive; netCDF reads the missing part of a truncated file as zeros, without error. */
  for (int64_t e = 0; e < num_elem; e++)
    HC_CHECK_GOTO(elem_map[e] > 0, HC_ERR_INPUT, done,
                  "'%s': element %" PRId64 " of the file has number %" PRId64
                  " in the element map (numbers are positive): the file is truncated or damaged",
                  path, e + 1, elem_map[e]);

  /* First pass: the blocks' types, one kind of hexahedron, the number of cells. Elements are numbered
     consecutively through the blocks in their order; elem_map gives each its number in the file. */
  int nodes_per_cell = 0;
  int64_t num_cells = 0, first = 0, hex_first = -1;
  for (int64_t b = 0; b < num_blocks; b++) {
    char type[MAX_STR_LENGTH + 1] = "", base[MAX_STR_LENGTH + 1];
    int64_t n = 0, npe = 0, nattr = 0;
    HC_CHECK_GOTO(ex_get_elem_block(exoid, block_ids[b], type, &n, &npe, &nattr) >= 0, HC_ERR_INPUT, done,
                  "'%s': cannot read element block %" PRId64 ": %s", path, block_ids[b],
                  hc_exodus_last_error(msg, sizeof(msg)));
    hc_exodus_type_base(type, base, sizeof(base));
    /* A type that names its node count ("HEX20") must have that many nodes. */
    const char *digits = type + strcspn(type, "0123456789");
    HC_CHECK_GOTO(!digits[0] || strtoll(digits, NULL, 10) == npe, HC_ERR_INPUT, done,
                  "'%s': element block %" PRId64 " has type %s but %" PRId64 " nodes per element", path, block_ids[b],
                  type, npe);
    if (n > 0 && hc_exodus_type_is_3d(base)) {
      HC_CHECK_GOTO(strncmp(base, "HEX", 3) == 0 && (npe == 8 || npe == 27), HC_ERR_INPUT, done,
                    "'%s': cell %" PRId64 " (element block %" PRId64 ", %" PRId64 " cells) is a %s of %" PRId64
                    " nodes; hexcontract reads meshes of 8-node (HEX8) or 27-node (HEX27) hexahedra only",
                    path, elem_map[first], block_ids[b], n, type, npe);
      HC_CHECK_GOTO(nodes_per_cell == 0 || nodes_per_cell == npe, HC_ERR_INPUT, done,
                    "'%s': the mesh mixes 8-node and 27-node hexahedra (cell %" PRId64 " has %d nodes, cell %" PRId64
                    " has %" PRId64 "); hexcontract needs one kind per mesh",
                    path, elem_map[hex_first], nodes_per_cell, elem_map[first], npe);
      nodes_per_cell = (int)npe;
      if (hex_first < 0) hex_first = first;
      num_cells += n;
    }
    first += n;
  }
  HC_CHECK_GOTO(num_cells > 0, HC_ERR_INPUT, done,
                "'%s': the mesh has no hexahedra (no 3D element block); hexcontract needs HEX8 or HEX27 blocks", path);

  HC_CALL_GOTO(hc_meshfile_alloc(path, "exodus", nodes_per_cell, num_nodes, num_cells, &m), done);
  x = malloc((size_t)num_nodes * sizeof(*x));
  y = malloc((size_t)num_nodes * sizeof(*y));
  z = malloc((size_t)num_nodes * sizeof(*z));
  HC_CHECK_GOTO(x && y && z, HC_ERR_RESOURCE, done, "'%s': out of memory for %" PRId64 " nodes", path, num_nodes);
  HC_CHECK_GOTO(ex_get_coord(exoid, x, y, z) >= 0 && ex_get_id_map(exoid, EX_NODE_MAP, m->vertex_tag) >= 0,
                HC_ERR_INPUT, done, "'%s': cannot read the node coordinates: %s", path,
                hc_exodus_last_error(msg, sizeof(msg)));
  for (int64_t v = 0; v < num_nodes; v++) {
    m->coords[3 * v] = x[v];
    m->coords[3 * v + 1] = y[v];
    m->coords[3 * v + 2] = z[v];
  }

  /* Second pass: the hexahedra's connectivity (1-based node indices), into hexcontract's order. */
  const int *order = nodes_per_cell == 8 ? hc_meshfile_exodus_hex8 : hc_meshfile_exodus_hex27;
  int64_t cell = 0;
  first = 0;
  for (int64_t b = 0; b < num_blocks; b++) {
    char type[MAX_STR_LENGTH + 1] = "", base[MAX_STR_LENGTH + 1];
    int64_t n = 0, npe = 0, nattr = 0;
    HC_CHECK_GOTO(ex_get_elem_block(exoid, block_ids[b], type, &n, &npe, &nattr) >= 0, HC_ERR_INPUT, done,
                  "'%s': cannot read element block %" PRId64 ": %s", path, block_ids[b],
                  hc_exodus_last_error(msg, sizeof(msg)));
    hc_exodus_type_base(type, base, sizeof(base));
    if (n > 0 && hc_exodus_type_is_3d(base)) {
      conn = malloc((size_t)(n * npe) * sizeof(*conn));
      HC_CHECK_GOTO(conn, HC_ERR_RESOURCE, done, "'%s': out of memory for element block %" PRId64, path, block_ids[b]);
      HC_CHECK_GOTO(ex_get_elem_conn(exoid, block_ids[b], conn) >= 0, HC_ERR_INPUT, done,
                    "'%s': cannot read the connectivity of element block %" PRId64 ": %s", path, block_ids[b],
                    hc_exodus_last_error(msg, sizeof(msg)));
      for (int64_t e = 0; e < n; e++, cell++) {
        m->cell_tag[cell] = elem_map[first + e];
        for (int t = 0; t < nodes_per_cell; t++) {
          const int64_t node = conn[e * npe + order[t]];
          HC_CHECK_GOTO(
              node >= 1 && node <= num_nodes, HC_ERR_INPUT, done,
              "'%s': cell %" PRId64 " references node %" PRId64
              ", which the file does not define (it has nodes 1..%" PRId64 ")%s",
              path, elem_map[first + e], node, num_nodes,
              node == 0 ? "; the missing part of a truncated file reads as zeros: is the file complete?" : "");
          m->cells[cell * nodes_per_cell + t] = node - 1;
        }
      }
      free(conn);
      conn = NULL;
    }
    first += n;
  }
  *mesh = m;
  m = NULL;
done:
  ex_close(exoid);
  free(block_ids);
  free(elem_map);
  free(conn);
  free(x);
  free(y);
  free(z);
  hc_meshfile_destroy(&m);
  return ierr;
}

const char *hc_meshfile_exodus_info(void) {
  static char info[128];
  snprintf(info, sizeof(info), "Exodus II .exo and .e (Exodus II API %.2f)", (double)EX_API_VERS);
  return info;
}
