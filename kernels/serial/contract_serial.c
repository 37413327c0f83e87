/* The serial backend: the readable reference for every contraction, and host memory operations. */
#include <stdlib.h>
#include <string.h>

#include "kernels/hc_kernels.h"
#include "kernels/hc_celldata.h"
#include "kernels/hc_roofline.h"
#include "kernels/serial/hc_host_memory.h"

#define HC_TEMPLATE "kernels/serial/contract_serial_impl.h"
#include "kernels/hc_instantiate.h"

static int hc_contract_serial(const hc_contract *k, const void *left, const void *right, void *out) {
  if (k->precision == HC_FLOAT) {
    hc_contract_serial_f32(k, left, right, out);
  } else {
    hc_contract_serial_f64(k, left, right, out);
  }
  return HC_OK;
}

/* The serial backend runs every shape with its one algorithm, which `auto` names. */
static int hc_supports_serial(const hc_contract *k) {
  return hc_variant_check(k->variant, HC_BACKEND_SERIAL);
}

int hc_host_alloc(size_t bytes, void **ptr) {
  *ptr = NULL;
  if (bytes == 0) return HC_OK;
  void *p = NULL;
  /* 64-byte alignment for vector loads; aligned_alloc wants a multiple of the alignment. */
  size_t rounded = (bytes + 63) / 64 * 64;
  p = aligned_alloc(64, rounded);
  HC_CHECK(p, HC_ERR_RESOURCE, "out of host memory allocating %zu bytes", bytes);
  *ptr = p;
  return HC_OK;
}

int hc_host_free(void *ptr) {
  free(ptr);
  return HC_OK;
}

int hc_host_copy(void *dst, const void *src, size_t bytes) {
  if (bytes) memmove(dst, src, bytes);
  return HC_OK;
}

int hc_host_synchronize(void) {
  return HC_OK;
}

const hc_backend hc_backend_serial = {
    .name = "serial",
    .description = "plain loops on one core: the readable reference",
    .is_device = 0,
    .contract = hc_contract_serial,
    .supports = hc_supports_serial,
    .mem_alloc = hc_host_alloc,
    .mem_free = hc_host_free,
    .copy_to_device = hc_host_copy,
    .copy_to_host = hc_host_copy,
    .synchronize = hc_host_synchronize,
    .celldata = hc_celldata_fill_serial,
    .chosen_variant = NULL,
    .mem_copy = hc_host_copy,
    .peak_flops = hc_peak_flops_serial,
};
