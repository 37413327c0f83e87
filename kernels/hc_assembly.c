/* Host assembly by colours: cells of one colour share no node, so each colour is a parallel loop (or, for the
   serial backend, a plain one in the same order). */
#include "kernels/hc_assembly.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/hc_omp.h"
#if HC_HAVE_OPENMP
#include <omp.h>
#endif

int hc_coloring_create(int64_t C, int L, const int32_t *cell_nodes, int64_t num_nodes, hc_coloring **coloring) {
  int ierr = HC_OK;
  HC_CHECK(coloring && C >= 0 && L >= 1 && num_nodes >= 0 && (C == 0 || cell_nodes), HC_ERR_INPUT,
           "hc_coloring_create: bad arguments (C %lld, L %d, %lld nodes)", (long long)C, L, (long long)num_nodes);
  *coloring = NULL;
  for (int64_t i = 0; i < C * L; i++) {
    HC_CHECK(cell_nodes[i] >= 0 && cell_nodes[i] < num_nodes, HC_ERR_INPUT,
             "hc_coloring_create: cell %lld node %d is %d, outside the %lld nodes", (long long)(i / L), (int)(i % L),
             cell_nodes[i], (long long)num_nodes);
  }
  hc_coloring *col = calloc(1, sizeof(*col));
  /* used: [num_nodes], bit b set where a cell of colour base + b has the node; colour: [C], -1 until coloured */
  uint64_t *used = malloc(sizeof(*used) * (size_t)(num_nodes > 0 ? num_nodes : 1));
  int32_t *colour = malloc(sizeof(*colour) * (size_t)(C > 0 ? C : 1));
  HC_CHECK_GOTO(col && used && colour, HC_ERR_RESOURCE, cleanup, "out of host memory for the colouring of %lld cells",
                (long long)C);
  col->C = C;
  col->cells = malloc(sizeof(*col->cells) * (size_t)(C > 0 ? C : 1));
  HC_CHECK_GOTO(col->cells, HC_ERR_RESOURCE, cleanup, "out of host memory for the colouring of %lld cells",
                (long long)C);
  for (int64_t c = 0; c < C; c++) colour[c] = -1;
  /* Rounds of 64 colours, one bit each; a cell that finds all 64 taken waits for the next round. */
  int64_t left = C;
  int num_colors = 0;
  for (int base = 0; left > 0; base += 64) {
    memset(used, 0, sizeof(*used) * (size_t)num_nodes);
    for (int64_t c = 0; c < C; c++) {
      if (colour[c] >= 0) continue;
      const int32_t *nodes = cell_nodes + c * L;
      uint64_t taken = 0;
      for (int l = 0; l < L; l++) taken |= used[nodes[l]];
      if (taken == ~(uint64_t)0) continue;
      int b = 0;
      while (taken >> b & 1) b++;
      const uint64_t bit = (uint64_t)1 << b;
      for (int l = 0; l < L; l++) used[nodes[l]] |= bit;
      colour[c] = base + b;
      if (base + b + 1 > num_colors) num_colors = base + b + 1;
      left--;
    }
  }
  col->num_colors = num_colors;
  col->start = calloc((size_t)num_colors + 1, sizeof(*col->start));
  HC_CHECK_GOTO(col->start, HC_ERR_RESOURCE, cleanup, "out of host memory for %d colours", num_colors);
  for (int64_t c = 0; c < C; c++) col->start[colour[c] + 1]++;
  for (int k = 0; k < num_colors; k++) col->start[k + 1] += col->start[k];
  /* Counting sort by colour, stable: increasing cell id within a colour. */
  for (int64_t c = 0; c < C; c++) col->cells[col->start[colour[c]]++] = c;
  for (int k = num_colors; k > 0; k--) col->start[k] = col->start[k - 1];
  col->start[0] = 0;
  *coloring = col;
  col = NULL;
cleanup:
  free(used);
  free(colour);
  hc_coloring_destroy(&col);
  return ierr;
}

int hc_coloring_destroy(hc_coloring **coloring) {
  if (!coloring || !*coloring) return HC_OK;
  free((*coloring)->start);
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
    for (int k = 0; k < col->num_colors; k++) {                                                                  \
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
    for (int k = 0; k < col->num_colors; k++) {                                                                  \
      HC_OMP_PARALLEL_FOR_IF(threaded) for (int64_t i = col->start[k]; i < col->start[k + 1]; i++) {             \
        const int64_t c = col->cells[i];                                                                         \
        const int32_t *nodes = cell_nodes + c * L;                                                               \
        double uc[HC_ASSEMBLY_MAX_L], s[HC_ASSEMBLY_MAX_L], sa[HC_ASSEMBLY_MAX_L];                               \
        for (int r = 0; r < L; r++) uc[r] = u[nodes[r]];                                                         \
        for (int l = 0; l < L; l++) s[l] = 0, sa[l] = 0;                                                         \
        /* Matrices of at most HC_ASSEMBLY_ROWS rows a column at a time: each row's sums take its terms in the   \
           order of r, as a row at a time would, and the rows run side by side in vector lanes instead of one    \
           dependent chain of additions each. Larger ones a row at a time (a column at a time, even in blocks of \
           rows, measured twice as slow at L = 125). */                                                          \
        if (L <= HC_ASSEMBLY_ROWS) {                                                                             \
          for (int r = 0; r < L; r++) {                                                                          \
            const double ur = uc[r];                                                                             \
            for (int l = 0; l < L; l++) {                                                                        \
              const double t = (double)A[IDX(c, (int64_t)l * L + r)] * ur;                                       \
              s[l] += t;                                                                                         \
              sa[l] += fabs(t);                                                                                  \
            }                                                                                                    \
          }                                                                                                      \
        } else {                                                                                                 \
          for (int l = 0; l < L; l++) {                                                                          \
            for (int r = 0; r < L; r++) {                                                                        \
              const double t = (double)A[IDX(c, (int64_t)l * L + r)] * uc[r];                                    \
              s[l] += t;                                                                                         \
              sa[l] += fabs(t);                                                                                  \
            }                                                                                                    \
          }                                                                                                      \
        }                                                                                                        \
        for (int l = 0; l < L; l++) {                                                                            \
          y[nodes[l]] += s[l];                                                                                   \
          if (abs_y) abs_y[nodes[l]] += sa[l];                                                                   \
        }                                                                                                        \
      }                                                                                                          \
    }                                                                                                            \
  }

/* Rows of a cell's matrix up to which the apply forms their sums together, a column at a time. */
#define HC_ASSEMBLY_ROWS 32
/* Nodes per cell the apply's gather buffer holds: order 8 hexahedra. */
#define HC_ASSEMBLY_MAX_L  729
#define HC_IDX_MAJOR(c, q) ((c)*inner + (q))
#define HC_IDX_MINOR(c, q) ((q)*C + (c))
HC_ASSEMBLY_DEF(f64_major, double, HC_IDX_MAJOR)
HC_ASSEMBLY_DEF(f64_minor, double, HC_IDX_MINOR)
HC_ASSEMBLY_DEF(f32_major, float, HC_IDX_MAJOR)
HC_ASSEMBLY_DEF(f32_minor, float, HC_IDX_MINOR)

/* This thread's number t of nt in an OpenMP parallel region (1 and 0 without OpenMP). */
#if HC_HAVE_OPENMP
#define HC_ASSEMBLY_THREAD(nt, t) ((nt) = omp_get_num_threads(), (t) = omp_get_thread_num())
#else
#define HC_ASSEMBLY_THREAD(nt, t) ((void)0)
#endif

/* Cells per block of the threaded cell-minor apply's first pass. */
#define HC_ASSEMBLY_MINOR_CB 32

/* The threaded cell-minor apply, in two passes: first each cell's sums (v[c L + l], and the sums of magnitudes in va
   where abs_y is given) for blocks of HC_ASSEMBLY_MINOR_CB neighbouring cells at once, each row of the block's
   matrices read as the run of cells it is in memory, every cell's terms in the order of r as in the one-pass loops
   (so the same sums); then the sums added into y by colours, in the same order as the one-pass loops. The one-pass
   loops read, for each cell of a colour, its L x L entries from as many rows C entries apart: a line and a page
   per entry, the line's other cells left for other colours and blocks (on the 2-core VM, weak.yaml at 16^3 cells,
   the cell-minor assembly took six times the cell-major one's time). Returns HC_ERR_RESOURCE when out of memory. */
#define HC_ASSEMBLY_MINOR_DEF(SUFFIX, T)                                                                             \
  static int hc_assemble_apply_blocks_##SUFFIX(const hc_coloring *col, int L, const T *A, const int32_t *cell_nodes, \
                                               const double *u, double *y, double *abs_y) {                          \
    const int64_t C = col->C, B = HC_ASSEMBLY_MINOR_CB, nblk = (C + B - 1) / B;                                      \
    double *v = malloc(sizeof(*v) * (size_t)(C * L * (abs_y ? 2 : 1) + 1)), *va = abs_y ? v + C * L : NULL;          \
    int fail = !v;                                                                                                   \
    HC_OMP_PRAGMA(omp parallel if (!fail)) {                                                                         \
      int64_t nt = 1, t = 0;                                                                                         \
      HC_ASSEMBLY_THREAD(nt, t);                                                                                     \
      /* uc: the block's u at its cells' nodes, [r][cb]; s, sa: a row's sums over the block */                       \
      double *uc = malloc(sizeof(*uc) * (size_t)(B * (L + 2))), *s = uc + B * L, *sa = s + B;                        \
      if (!uc) {                                                                                                     \
        HC_OMP_PRAGMA(omp atomic write) fail = 1;                                                                    \
      }                                                                                                              \
      for (int64_t b = nblk * t / nt; uc && b < nblk * (t + 1) / nt; b++) {                                          \
        const int64_t c0 = b * B, nb = C - c0 < B ? C - c0 : B;                                                      \
        for (int64_t cb = 0; cb < nb; cb++)                                                                          \
          for (int r = 0; r < L; r++) uc[r * B + cb] = u[cell_nodes[(c0 + cb) * L + r]];                             \
        for (int l = 0; l < L; l++) {                                                                                \
          for (int64_t cb = 0; cb < nb; cb++) s[cb] = 0, sa[cb] = 0;                                                 \
          for (int r = 0; r < L; r++) {                                                                              \
            const T *a = A + ((int64_t)l * L + r) * C + c0;                                                          \
            const double *ur = uc + r * B;                                                                           \
            for (int64_t cb = 0; cb < nb; cb++) {                                                                    \
              const double t_ = (double)a[cb] * ur[cb];                                                              \
              s[cb] += t_;                                                                                           \
              sa[cb] += fabs(t_);                                                                                    \
            }                                                                                                        \
          }                                                                                                          \
          for (int64_t cb = 0; cb < nb; cb++) {                                                                      \
            v[(c0 + cb) * L + l] = s[cb];                                                                            \
            if (va) va[(c0 + cb) * L + l] = sa[cb];                                                                  \
          }                                                                                                          \
        }                                                                                                            \
      }                                                                                                              \
      free(uc);                                                                                                      \
    }                                                                                                                \
    if (fail) {                                                                                                      \
      free(v);                                                                                                       \
      HC_CHECK(0, HC_ERR_RESOURCE, "out of host memory for the assembly's sums of %lld cells", (long long)C);        \
    }                                                                                                                \
    for (int k = 0; k < col->num_colors; k++) {                                                                      \
      HC_OMP_PARALLEL_FOR for (int64_t i = col->start[k]; i < col->start[k + 1]; i++) {                              \
        const int64_t c = col->cells[i];                                                                             \
        const int32_t *nodes = cell_nodes + c * L;                                                                   \
        for (int l = 0; l < L; l++) {                                                                                \
          y[nodes[l]] += v[c * L + l];                                                                               \
          if (abs_y) abs_y[nodes[l]] += va[c * L + l];                                                               \
        }                                                                                                            \
      }                                                                                                              \
    }                                                                                                                \
    free(v);                                                                                                         \
    return HC_OK;                                                                                                    \
  }

HC_ASSEMBLY_MINOR_DEF(f64, double)
HC_ASSEMBLY_MINOR_DEF(f32, float)

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
  if (minor && threaded && HC_HAVE_OPENMP)
    return precision == HC_FLOAT ? hc_assemble_apply_blocks_f32(col, L, A, cell_nodes, u, y, abs_y)
                                 : hc_assemble_apply_blocks_f64(col, L, A, cell_nodes, u, y, abs_y);
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
