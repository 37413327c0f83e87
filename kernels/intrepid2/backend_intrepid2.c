/* The intrepid2 backend's table: Intrepid2's contractions on one core, host memory, and the serial
   reference's cell data. */
#include "kernels/hc_celldata.h"
#include "kernels/hc_roofline.h"
#include "kernels/intrepid2/hc_intrepid2.h"
#include "kernels/serial/hc_host_memory.h"

static int hc_supports_intrepid2(const hc_contract *k) {
  return hc_variant_check(k->variant, HC_BACKEND_INTREPID2);
}

const hc_backend hc_backend_intrepid2 = {
    .name = "intrepid2",
    .description = "Trilinos Intrepid2's ArrayTools on Kokkos::Serial (one core): the library this app stands for",
    .is_device = 0,
    .contract = hc_contract_intrepid2,
    .supports = hc_supports_intrepid2,
    .mem_alloc = hc_host_alloc,
    .mem_free = hc_host_free,
    .copy_to_device = hc_host_copy,
    .copy_to_host = hc_host_copy,
    .synchronize = hc_host_synchronize,
    .celldata = hc_celldata_fill_serial,
    .chosen_variant = NULL,
    .mem_copy = hc_host_copy,
    .peak_flops = hc_peak_flops_serial,
    .version = hc_intrepid2_version,
};
