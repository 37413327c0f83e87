/* The serial reference cell data: plain loops over cells, points and entries, both precisions. */
#include <stdlib.h>

#include "kernels/hc_celldata.h"

#define HC_TEMPLATE "kernels/serial/celldata_serial_impl.h"
#include "kernels/hc_instantiate.h"

int hc_celldata_fill_serial(const hc_celldata_desc *desc, hc_kernel kernel, void *left, void *right) {
  int ierr = HC_OK;
  const int P = desc->basis->P;
  hc_point_geom *geom = malloc(sizeof(*geom) * P);
  hc_point_data *data = malloc(sizeof(*data) * P);
  HC_CHECK_GOTO(geom && data, HC_ERR_RESOURCE, cleanup, "out of host memory for the cell data scratch (%d points)", P);
  int64_t bad = desc->precision == HC_FLOAT
                    ? hc_celldata_serial_f32(desc, kernel, (float *)left, (float *)right, geom, data)
                    : hc_celldata_serial_f64(desc, kernel, (double *)left, (double *)right, geom, data);
  if (bad >= 0) ierr = hc_celldata_cell_error(desc, bad, desc->X0 + 3 * desc->geometry_nodes * bad);
cleanup:
  free(geom);
  free(data);
  return ierr;
}
