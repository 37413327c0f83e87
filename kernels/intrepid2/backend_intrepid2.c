/* The intrepid2 backend's table: Intrepid2's contractions on one core and the serial reference's cell data; its
   memory, assembly (on one core) and timer are the core's host defaults (hc_backend). */
#include "kernels/hc_celldata.h"
#include "kernels/hc_roofline.h"
#include "kernels/intrepid2/hc_intrepid2.h"

static int hc_supports_intrepid2(const hc_contract *k) {
  return hc_variant_check(k->variant, HC_BACKEND_INTREPID2);
}

const hc_backend hc_backend_intrepid2 = {
    .name = "intrepid2",
    .description = "Trilinos Intrepid2's ArrayTools on Kokkos::Serial (one core): the library this app stands for",
    .is_device = 0,
    .contract = hc_contract_intrepid2,
    .supports = hc_supports_intrepid2,
    .celldata = hc_celldata_fill_serial,
    .peak_flops = hc_peak_flops_serial,
    .version = hc_version_intrepid2,
};
