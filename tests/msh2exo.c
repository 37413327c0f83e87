/* Test helper: writes a mesh file that hexcontract reads (Gmsh) as Exodus II, through the Exodus II API and the
   reader's own node-order tables inverted, so that the proxy run can read the same mesh in both formats.
   Usage: msh2exo IN.msh OUT.exo */
#include <exodusII.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/hc_meshfile.h"
#include "io/hc_meshfile_impl.h"
#include "kernels/base/hc_error.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: msh2exo IN.msh OUT.exo\n");
    return 2;
  }
  hc_meshfile *m = NULL;
  if (hc_meshfile_read(argv[1], &m)) {
    fprintf(stderr, "msh2exo: %s\n", hc_error_message());
    return 1;
  }
  const int G = m->nodes_per_cell;
  const int *table = G == 27 ? hc_meshfile_exodus_hex27 : hc_meshfile_exodus_hex8;
  int cws = 8, iows = 8, status = 1;
  const int exoid = ex_create(argv[2], EX_CLOBBER, &cws, &iows);
  double *x = malloc(sizeof(double) * (size_t)m->num_vertices), *y = malloc(sizeof(double) * (size_t)m->num_vertices),
         *z = malloc(sizeof(double) * (size_t)m->num_vertices);
  int *conn = malloc(sizeof(int) * (size_t)(m->num_cells * G)), *map = malloc(sizeof(int) * (size_t)m->num_cells);
  if (exoid < 0 || !x || !y || !z || !conn || !map) {
    fprintf(stderr, "msh2exo: cannot create %s\n", argv[2]);
    goto done;
  }
  for (int64_t v = 0; v < m->num_vertices; v++)
    x[v] = m->coords[3 * v], y[v] = m->coords[3 * v + 1], z[v] = m->coords[3 * v + 2];
  for (int64_t c = 0; c < m->num_cells; c++) {
    for (int t = 0; t < G; t++) conn[c * G + table[t]] = (int)m->cells[c * G + t] + 1;
    map[c] = (int)m->cell_tag[c];
  }
  if (ex_put_init(exoid, "hexcontract msh2exo", 3, (int)m->num_vertices, (int)m->num_cells, 1, 0, 0) ||
      ex_put_coord(exoid, x, y, z) ||
      ex_put_elem_block(exoid, 1, G == 27 ? "HEX27" : "HEX8", (int)m->num_cells, G, 0) ||
      ex_put_elem_conn(exoid, 1, conn) || ex_put_elem_num_map(exoid, map)) {
    fprintf(stderr, "msh2exo: writing %s failed\n", argv[2]);
    goto done;
  }
  status = 0;
done:
  if (exoid >= 0 && ex_close(exoid)) status = 1;
  free(x), free(y), free(z), free(conn), free(map);
  hc_meshfile_destroy(&m);
  return status;
}
