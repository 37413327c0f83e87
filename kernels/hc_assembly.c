/* Host assembly by colours: cells of one colour share no node, so each colour is a parallel loop (or, for the
   serial backend, a plain one in the same order). */
#include "kernels/hc_assembly.h"

#include <math.h>
#include <stdlib.h>

#include "kernels/hc_omp.h"

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

/* The assembly loops for one scalar type T and one layout: entry (c, q) of an array with `inner`
   entries per cell sits at IDX(c, q). */
#define HC_ASSEMBLY_DEF(SUFFIX, T, IDX)                                                                          \
  static void hc_assemble_vector_##SUFFIX(const hc_coloring *col, int threaded, int L, const T *out,             \
                                          const int32_t *cell_nodes, double *y) {                                \
    const int64_t C = col->C, inner = L;                                                                         \
    (void)C, (void)inner, (void)threaded;                                                                        \
    for (int k = 0; k < 8; k++) {                                                                                \
      HC_OMP_PARALLEL_FOR_IF(threaded) for (int64_t i = col->start[k]; i < col->start[k + 1]; i++) {             \
        const int64_t c = col->cells[i];                                                                         \
        const int32_t *nodes = cell_nodes + c * L;                                                               \
        for (int l = 0; l < L; l++) y[nodes[l]] += (double)out[IDX(c, l)];                                       \
      }                                                                                                          \
    }                                                                                                            \
  }                                                                                                              \
  static void hc_assemble_apply_##SUFFIX(const hc_coloring *col, int threaded, int L, const T *A,                \
                                         const int32_t *cell_nodes, const double *u, double *y, double *abs_y) { \
    const int64_t C = col->C, inner = (int64_t)L * L;                                                            \
    (void)C, (void)inner, (void)threaded;                                                                        \
    for (int k = 0; k < 8; k++) {                                                                                \
      HC_OMP_PARALLEL_FOR_IF(threaded) for (int64_t i = col->start[k]; i < col->start[k + 1]; i++) {             \
        const int64_t c = col->cells[i];                                                                         \
        const int32_t *nodes = cell_nodes + c * L;                                                               \
        double uc[HC_ASSEMBLY_MAX_L];                                                                            \
        for (int r = 0; r < L; r++) uc[r] = u[nodes[r]];                                                         \
        for (int l = 0; l < L; l++) {                                                                            \
          double s = 0, sa = 0;                                                                                  \
          for (int r = 0; r < L; r++) {                                                                          \
            double t = (double)A[IDX(c, (int64_t)l * L + r)] * uc[r];                                            \
            s += t;                                                                                              \
            sa += fabs(t);                                                                                       \
          }                                                                                                      \
          y[nodes[l]] += s;                                                                                      \
          if (abs_y) abs_y[nodes[l]] += sa;                                                                      \
        }                                                                                                        \
      }                                                                                                          \
    }                                                                                                            \
  }

/* Nodes per cell the apply's gather buffer holds: order 8 hexahedra. */
#define HC_ASSEMBLY_MAX_L  729
#define HC_IDX_MAJOR(c, q) ((c)*inner + (q))
#define HC_IDX_MINOR(c, q) ((q)*C + (c))
HC_ASSEMBLY_DEF(f64_major, double, HC_IDX_MAJOR)
HC_ASSEMBLY_DEF(f64_minor, double, HC_IDX_MINOR)
HC_ASSEMBLY_DEF(f32_major, float, HC_IDX_MAJOR)
HC_ASSEMBLY_DEF(f32_minor, float, HC_IDX_MINOR)

/* The loops of layout and precision, on OpenMP's threads where threaded is nonzero (and OpenMP is built). */
static int hc_assemble_vector_run(const hc_coloring *col, int threaded, int L, hc_layout layout, hc_precision precision,
                                  const void *out, const int32_t *cell_nodes, double *y) {
  const int minor = layout == HC_LAYOUT_CELL_MINOR;
  if (precision == HC_FLOAT) {
    (minor ? hc_assemble_vector_f32_minor : hc_assemble_vector_f32_major)(col, threaded, L, out, cell_nodes, y);
  } else {
    (minor ? hc_assemble_vector_f64_minor : hc_assemble_vector_f64_major)(col, threaded, L, out, cell_nodes, y);
  }
  return HC_OK;
}

static int hc_assemble_apply_run(const hc_coloring *col, int threaded, int L, hc_layout layout, hc_precision precision,
                                 const void *A, const int32_t *cell_nodes, const double *u, double *y, double *abs_y) {
  HC_CHECK(L >= 1 && L <= HC_ASSEMBLY_MAX_L, HC_ERR_INPUT, "assembly supports 1 to %d nodes per cell, got %d",
           HC_ASSEMBLY_MAX_L, L);
  const int minor = layout == HC_LAYOUT_CELL_MINOR;
  if (precision == HC_FLOAT) {
    (minor ? hc_assemble_apply_f32_minor : hc_assemble_apply_f32_major)(col, threaded, L, A, cell_nodes, u, y, abs_y);
  } else {
    (minor ? hc_assemble_apply_f64_minor : hc_assemble_apply_f64_major)(col, threaded, L, A, cell_nodes, u, y, abs_y);
  }
  return HC_OK;
}

int hc_assemble_vector(const hc_coloring *col, int L, hc_layout layout, hc_precision precision, const void *out,
                       const int32_t *cell_nodes, double *y) {
  return hc_assemble_vector_run(col, 1, L, layout, precision, out, cell_nodes, y);
}

int hc_assemble_vector_serial(const hc_coloring *col, int L, hc_layout layout, hc_precision precision, const void *out,
                              const int32_t *cell_nodes, double *y) {
  return hc_assemble_vector_run(col, 0, L, layout, precision, out, cell_nodes, y);
}

int hc_assemble_apply(const hc_coloring *col, int L, hc_layout layout, hc_precision precision, const void *A,
                      const int32_t *cell_nodes, const double *u, double *y, double *abs_y) {
  return hc_assemble_apply_run(col, 1, L, layout, precision, A, cell_nodes, u, y, abs_y);
}

int hc_assemble_apply_serial(const hc_coloring *col, int L, hc_layout layout, hc_precision precision, const void *A,
                             const int32_t *cell_nodes, const double *u, double *y, double *abs_y) {
  return hc_assemble_apply_run(col, 0, L, layout, precision, A, cell_nodes, u, y, abs_y);
}
