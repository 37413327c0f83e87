/* The OpenMP cell data: threads over blocks of cells, both precisions. */
#include <stdlib.h>

#include "kernels/hc_celldata.h"

/* Cells per block: enough to fill a cache line of a cell-minor array with each entry. */
#define HC_OMP_CD_CB 16

#define HC_TEMPLATE "kernels/openmp/celldata_openmp_impl.h"
#include "kernels/hc_instantiate.h"

int hc_celldata_fill_openmp(const hc_celldata_desc *desc, hc_kernel kernel, void *left, void *right) {
  int failed = 0;
  int64_t bad = desc->precision == HC_FLOAT
                    ? hc_celldata_omp_f32(desc, kernel, (float *)left, (float *)right, &failed)
                    : hc_celldata_omp_f64(desc, kernel, (double *)left, (double *)right, &failed);
  HC_CHECK(!failed, HC_ERR_RESOURCE, "out of host memory for the cell data scratch (%d cells x %d points per thread)",
           HC_OMP_CD_CB, desc->basis->P);
  if (bad >= 0) return hc_celldata_cell_error(desc, bad, desc->X0 + 24 * bad);
  return HC_OK;
}
