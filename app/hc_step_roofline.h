/* The step's roofline (README.md, section The step's roofline): the compulsory bytes of each phase of one rank's step,
   and the least time each phase could take at the rates measured at start-up. */
#ifndef HC_STEP_ROOFLINE_H
#define HC_STEP_ROOFLINE_H

#include <stdint.h>

#include "app/hc_run.h"

/* What one rank's step moves, from the run's problem; no MPI, no backend calls. */
typedef struct {
  const hc_contract *k;          /* [HC_NUM_KERNELS] each kernel's problem on this rank (borrowed) */
  const int *enabled;            /* [HC_NUM_KERNELS] kernels run every step (borrowed) */
  int64_t num_nodes;             /* nodes of this rank's block */
  int64_t halo_bytes_per_vector; /* bytes this rank sends per nodal vector exchanged */
  int reduction_bytes;           /* bytes of this rank's contribution to the DataData reduction */
  int is_device;                 /* the backend's memory is not host memory: outputs cross to the host */
  int device_assembly;           /* ... but the backend assembles there: only DataData outputs cross */
  int dd_copy;                   /* ... and those in full (run.deterministic), not as the device's sums */
  int u_upload;                  /* device assembly: the nodal interpolant u is copied to the device each step */
  int geometry_nodes;            /* geometry nodes per cell (8 trilinear, 27 triquadratic), read once a step */
  int fused;                     /* run.assembly: fused (no cell-data phase; each fused kernel's own traffic) */
  const int *fused_into_y;       /* optional, per kernel: nonzero where its fused kernel adds into the nodal vector
                                    itself (hc_fused_assemble) */
} hc_step_problem;

/* Bytes per step of one rank, by phase (HC_PHASE_STEP: the sum of the four memory phases, celldata, contract,
   transfer and assembly; halo and reduction are messages, on no memory roofline), the transfer's two
   directions, and each kernel's contraction bytes and flops (kernels/README.md, section Cost model). */
typedef struct {
  double bytes[HC_NUM_PHASES];
  double h2d, d2h;
  double kernel_bytes[HC_NUM_KERNELS], kernel_flops[HC_NUM_KERNELS];
} hc_step_bytes;

/* The compulsory bytes of a step, with s bytes per scalar of the run's precision and N = num_nodes:
   - celldata: every enabled kernel's left and right arrays written once, s * (numel(left) + numel(right)),
     plus the cells' geometry nodes read once, C * geometry_nodes * 3 * 8;
   - contract: each enabled kernel's cost-model bytes (hc_contract_cost);
   - fused (run.assembly: fused): celldata nothing; contract, per enabled kernel, its fused kernel's compulsory
     traffic, the geometry nodes read once (C * geometry_nodes * 3 * 8) and the outputs written once
     (s * numel(out)), and the contraction's flops (a third for FieldFieldTensor, whose fused kernel sums over i
     first; those of the geometry and basis transforms uncounted), for FieldField the fewer of those and sum
     factorization's (hc_sumfact_flops);
   - transfer: on a device backend that assembles there, d2h: per DataData kernel its outputs (s * C) with
     dd_copy (else the device sums them: one double each crosses in the reduction phase), h2d: u (8 * N) when
     u_upload; on a device backend that does not, d2h: every output; on the host, nothing. The
     shared nodes' round trip to the host for the halo exchange (2 * 8 bytes per shared node and vector) is
     timed in the halo phase, not here;
   - assembly: per DataField or FieldField kernel, its outputs read (s * numel(out)), the cell-to-node map
     (4 * C * L) and its nodal vector read and written once (2 * 8 * N); FieldField also reads u (8 * N); where
     the fused kernel adds into the nodal vector itself (fused_into_y), the assembly only zeroes it (8 * N), and
     the kernel's contract bytes take the map, the vector's read and write and u: no output is read back;
   - halo: halo_bytes_per_vector per nodal vector (one per DataField and FieldField kernel);
   - reduction: reduction_bytes. */
void hc_step_bytes_of(const hc_step_problem *p, hc_step_bytes *b);

/* The flops of FieldField kernel k's element matrices by sum factorization, for L = N^3 fields of a tensor-product
   basis and P = Q^3 points of a tensor-product rule (else 0): per cell, with the metric's (d, e) pairs (1 for
   FieldFieldScalar, else 9) and their direction-1 classes (1, else 4), 2 (pairs N^2 Q^3 + pairs N^4 Q^2 +
   classes N^6 Q): the points summed one direction at a time (kernels/README.md, section Fused assembly). */
double hc_sumfact_flops(const hc_contract *k);

/* The rates a roofline is taken at, bytes or flops per second; 0 is unknown. */
typedef struct {
  double copy;                 /* the backend's copy bandwidth (read + written bytes per second) */
  double h2d, d2h;             /* host -> device and device -> host copies (device backends) */
  double peak[HC_NUM_KERNELS]; /* per kernel, the peak of the units its variant ran on */
} hc_step_rates;

/* The least seconds of each memory phase: celldata and assembly bytes / copy; contract the sum over kernels
   of max(bytes / copy, flops / peak) (the bench's roofline); transfer h2d / r->h2d + d2h / r->d2h;
   HC_PHASE_STEP their sum; halo and reduction 0 (network-bound, on no memory roofline). A term whose rate is
   unknown is left out. */
void hc_step_roofline(const hc_step_bytes *b, const hc_step_rates *r, double seconds[HC_NUM_PHASES]);

#endif
