/* Moving a contraction's arrays between cell-major host memory and a backend's memory and layout. */
#ifndef HC_TRANSFER_H
#define HC_TRANSFER_H

#include "kernels/hc_kernels.h"

/* Allocates one array of k in the backend's memory and fills it from h_src (cell-major host
   array of hc_contract_numel(k, which) scalars), converted to k->layout. h_src NULL: zeros. */
int hc_array_upload(const hc_backend *backend, const hc_contract *k, hc_array which, const void *h_src, void **d_dst);

/* Copies one array of k from the backend's memory and layout into the cell-major host array h_dst. */
int hc_array_download(const hc_backend *backend, const hc_contract *k, hc_array which, const void *d_src, void *h_dst);

#endif
