/* Assembly of element outputs into nodal vectors on the host: the gather/scatter of kernels/README.md,
   section Assembly (DataField outputs summed into a nodal vector,
   FieldField outputs applied element by element, y = sum_c P_c^T A_c P_c u). */
#ifndef HC_ASSEMBLY_H
#define HC_ASSEMBLY_H

#include <stdint.h>

#include "kernels/hc_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The cells split into colours such that two cells of one colour share no node, so that each colour is
   assembled in parallel without atomics. */
typedef struct hc_coloring {
  int64_t C;
  int num_colors;
  int64_t *start; /* start: [num_colors + 1], cells of colour k: cells[start[k] .. start[k+1]-1] */
  int64_t *cells; /* cells: [C], ordered by colour, increasing cell id within a colour */
} hc_coloring;

/* Colours C cells of L nodes each from their nodes alone (any mesh): cells that share any node get
   different colours. Greedy first fit in increasing cell id, so the first colours are the largest and each
   colour's cells keep the mesh's memory order; on a box numbered x fastest this gives the 8 colours of the
   parity of (i,j,k). cell_nodes: [C][L] node ids in [0, num_nodes). HC_ERR_INPUT for an id out of range.
   Not collective; host memory. */
int hc_coloring_create(int64_t C, int L, const int32_t *cell_nodes, int64_t num_nodes, hc_coloring **coloring);
int hc_coloring_destroy(hc_coloring **coloring);

/* y[cell_nodes[c][l]] += out[c,l] for every cell. out: [C][L] in layout and precision (host memory);
   cell_nodes: [C][L]; y: nodal vector in double. Parallel over cells of one colour with OpenMP where it is
   built; the _serial form runs the same loops, in the same order, on the calling thread alone (same result). */
int hc_assemble_vector(const hc_coloring *col, int L, hc_layout layout, hc_precision precision, const void *out,
                       const int32_t *cell_nodes, double *y);
int hc_assemble_vector_serial(const hc_coloring *col, int L, hc_layout layout, hc_precision precision, const void *out,
                              const int32_t *cell_nodes, double *y);

/* y[cell_nodes[c][l]] += sum_r A[c,l,r] u[cell_nodes[c][r]] for every cell. A: [C][L][L] in layout and
   precision (host memory); u, y: nodal vectors in double. With abs_y non-NULL, also accumulates
   sum_r |A[c,l,r] u[...]| there (the scale of the patch test's tolerance). Threads as hc_assemble_vector. */
int hc_assemble_apply(const hc_coloring *col, int L, hc_layout layout, hc_precision precision, const void *A,
                      const int32_t *cell_nodes, const double *u, double *y, double *abs_y);
int hc_assemble_apply_serial(const hc_coloring *col, int L, hc_layout layout, hc_precision precision, const void *A,
                             const int32_t *cell_nodes, const double *u, double *y, double *abs_y);

#ifdef __cplusplus
}
#endif

#endif
