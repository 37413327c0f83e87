/* The intrepid2 backend: Trilinos Intrepid2's own ArrayTools contractions on Kokkos::Serial, behind
   C-callable functions (contract_intrepid2.cpp), and its backend table (backend_intrepid2.c). */
#ifndef HC_INTREPID2_H
#define HC_INTREPID2_H

#include "kernels/hc_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs k with Intrepid2::ArrayTools<Kokkos::Serial>::contract<Family><Rank> on unmanaged views of the host
   arrays (no copies, either layout); initialises Kokkos on first use and finalises it at exit. */
int hc_contract_intrepid2(const hc_contract *k, const void *left, const void *right, void *out);

/* "Trilinos 13.2, Kokkos 3.4.1 (Serial)": the versions this backend was compiled against. */
int hc_version_intrepid2(char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
