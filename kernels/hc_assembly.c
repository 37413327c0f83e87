/* Host assembly by colours: cells of one colour share no node, so each colour is a parallel loop. */
#include "kernels/hc_assembly.h"

#include <math.h>
#include <stdlib.h>

int hc_coloring_create(int64_t C, const int64_t *cell_index, hc_coloring **coloring) {
  hc_coloring *col = calloc(1, sizeof(*col));
  HC_CHECK(col, HC_ERR_RESOURCE, "out of host memory");
  col->C = C;
  col->cells = malloc(sizeof(*col->cells) * (size_t)(C > 0 ? C : 1));
  if (!col->cells) {
    free(col);
    return HC_ERROR(HC_ERR_RESOURCE, "out of host memory for the cell colouring (%lld cells)", (long long)C);
  }
  int64_t count[8] = {0};
  for (int64_t c = 0; c < C; c++) {
    const int64_t *ijk = cell_index + 3 * c;
    count[(ijk[0] & 1) + 2 * (ijk[1] & 1) + 4 * (ijk[2] & 1)]++;
  }
  col->start[0] = 0;
  for (int k = 0; k < 8; k++) col->start[k + 1] = col->start[k] + count[k];
  int64_t next[8];
  for (int k = 0; k < 8; k++) next[k] = col->start[k];
  for (int64_t c = 0; c < C; c++) {
    const int64_t *ijk = cell_index + 3 * c;
    col->cells[next[(ijk[0] & 1) + 2 * (ijk[1] & 1) + 4 * (ijk[2] & 1)]++] = c;
  }
  *coloring = col;
  return HC_OK;
}

int hc_coloring_destroy(hc_coloring **coloring) {
  if (!coloring || !*coloring) return HC_OK;
  free((*coloring)->cells);
  free(*coloring);
  *coloring = NULL;
  return HC_OK;
}

/* Entry (c, q) of an array with `inner` entries per cell, read as double. */
static inline double hc_entry(const void *a, hc_precision precision, hc_layout layout, int64_t C, int64_t inner,
                              int64_t c, int64_t q) {
  int64_t i = layout == HC_LAYOUT_CELL_MAJOR ? c * inner + q : q * C + c;
  return precision == HC_FLOAT ? (double)((const float *)a)[i] : ((const double *)a)[i];
}

int hc_assemble_vector(const hc_coloring *col, int L, hc_layout layout, hc_precision precision, const void *out,
                       const int32_t *cell_nodes, double *y) {
  const int64_t C = col->C;
  for (int k = 0; k < 8; k++) {
#pragma omp parallel for schedule(static)
    for (int64_t i = col->start[k]; i < col->start[k + 1]; i++) {
      const int64_t c = col->cells[i];
      const int32_t *nodes = cell_nodes + c * L;
      for (int l = 0; l < L; l++) y[nodes[l]] += hc_entry(out, precision, layout, C, L, c, l);
    }
  }
  return HC_OK;
}

int hc_assemble_apply(const hc_coloring *col, int L, hc_layout layout, hc_precision precision, const void *A,
                      const int32_t *cell_nodes, const double *u, double *y, double *abs_y) {
  const int64_t C = col->C, LL = (int64_t)L * L;
  for (int k = 0; k < 8; k++) {
#pragma omp parallel for schedule(static)
    for (int64_t i = col->start[k]; i < col->start[k + 1]; i++) {
      const int64_t c = col->cells[i];
      const int32_t *nodes = cell_nodes + c * L;
      for (int l = 0; l < L; l++) {
        double s = 0, sa = 0;
        for (int r = 0; r < L; r++) {
          double t = hc_entry(A, precision, layout, C, LL, c, (int64_t)l * L + r) * u[nodes[r]];
          s += t;
          sa += fabs(t);
        }
        y[nodes[l]] += s;
        if (abs_y) abs_y[nodes[l]] += sa;
      }
    }
  }
  return HC_OK;
}
