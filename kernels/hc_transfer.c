/* Upload and download of contraction arrays, with the layout conversion done on the host. */
#include "kernels/hc_transfer.h"

#include <stdlib.h>
#include <string.h>

int hc_array_upload(const hc_backend *backend, const hc_contract *k, hc_array which, const void *h_src, void **d_dst) {
  int ierr = HC_OK;
  size_t bytes = (size_t)hc_contract_numel(k, which) * hc_precision_size(k->precision);
  void *h_tmp = malloc(bytes);
  void *d = NULL;
  HC_CHECK(h_tmp, HC_ERR_RESOURCE, "out of host memory allocating %zu bytes", bytes);
  if (h_src) {
    HC_CALL_GOTO(hc_layout_convert(k, which, HC_LAYOUT_CELL_MAJOR, h_src, k->layout, h_tmp), fail);
  } else {
    memset(h_tmp, 0, bytes);
  }
  HC_CALL_GOTO(backend->mem_alloc(bytes, &d), fail);
  HC_CALL_GOTO(backend->copy_to_device(d, h_tmp, bytes), fail);
  free(h_tmp);
  *d_dst = d;
  return HC_OK;
fail:
  if (d) backend->mem_free(d);
  free(h_tmp);
  return ierr;
}

int hc_array_download(const hc_backend *backend, const hc_contract *k, hc_array which, const void *d_src, void *h_dst) {
  int ierr = HC_OK;
  size_t bytes = (size_t)hc_contract_numel(k, which) * hc_precision_size(k->precision);
  void *h_tmp = malloc(bytes);
  HC_CHECK(h_tmp, HC_ERR_RESOURCE, "out of host memory allocating %zu bytes", bytes);
  HC_CALL_GOTO(backend->copy_to_host(h_tmp, d_src, bytes), cleanup);
  HC_CALL_GOTO(hc_layout_convert(k, which, k->layout, h_tmp, HC_LAYOUT_CELL_MAJOR, h_dst), cleanup);
cleanup:
  free(h_tmp);
  return ierr;
}
