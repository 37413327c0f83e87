/* The serial backend: the readable reference for every contraction. Its memory, assembly (on one core) and
   timer are the core's host defaults (hc_backend). */
#include "kernels/hc_kernels.h"
#include "kernels/hc_celldata.h"
#include "kernels/hc_roofline.h"

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

const hc_backend hc_backend_serial = {
    .name = "serial",
    .description = "plain loops on one core: the readable reference",
    .is_device = 0,
    .contract = hc_contract_serial,
    .supports = hc_supports_serial,
    .celldata = hc_celldata_fill_serial,
    .peak_flops = hc_peak_flops_serial,
};
