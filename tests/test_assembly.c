/* Unit tests of the host assembly (kernels/hc_assembly.h) against a plain loop over the cells: DataField outputs
   summed into a nodal vector and FieldField outputs applied element by element, y = sum_c P_c^T A_c P_c u, on
   structured blocks of order 1 to 3, both layouts and precisions. Entries are small integers, so that every sum
   is exact whatever its order and the comparison is bitwise. Also the colouring: every cell once, and no two
   cells of a colour sharing a node, on blocks (8 parity colours) and shuffled or random meshes; the serial forms; and
   the assembly of every built host backend's table (hc_backend.assemble_*), whose other operations the core completes
   (no NULL pointer), and every built backend's sum and timeline (hc_backend.sum, mark). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "kernels/hc_assembly.h"
#include "tests/hc_test_device.h"

/* A block of NX x NY x NZ cells of order p starting at global cell (i0, j0, k0): cell_index [C][3] and
   cell_nodes [C][L], nodes numbered lexicographically in the block's (p NX + 1) x (p NY + 1) x (p NZ + 1)
   grid, the cell's nodes in the order i fastest, then j, then k. */
typedef struct {
  int64_t C, N;
  int L;
  int64_t *cell_index;
  int32_t *cell_nodes;
} block;

static void block_make(block *b, int NX, int NY, int NZ, int p, int i0, int j0, int k0) {
  const int n = p + 1, GX = p * NX + 1, GY = p * NY + 1, GZ = p * NZ + 1;
  b->C = (int64_t)NX * NY * NZ;
  b->N = (int64_t)GX * GY * GZ;
  b->L = n * n * n;
  b->cell_index = malloc(sizeof(*b->cell_index) * 3 * b->C);
  b->cell_nodes = malloc(sizeof(*b->cell_nodes) * b->L * b->C);
  for (int k = 0; k < NZ; k++) {
    for (int j = 0; j < NY; j++) {
      for (int i = 0; i < NX; i++) {
        const int64_t c = i + (int64_t)NX * (j + (int64_t)NY * k);
        b->cell_index[3 * c] = i0 + i, b->cell_index[3 * c + 1] = j0 + j, b->cell_index[3 * c + 2] = k0 + k;
        for (int c3 = 0; c3 < n; c3++)
          for (int b2 = 0; b2 < n; b2++)
            for (int a1 = 0; a1 < n; a1++)
              b->cell_nodes[c * b->L + a1 + n * (b2 + n * c3)] =
                  (int32_t)((p * i + a1) + GX * ((p * j + b2) + GY * (p * k + c3)));
      }
    }
  }
  (void)GZ;
}

static void block_free(block *b) {
  free(b->cell_index);
  free(b->cell_nodes);
}

static uint64_t seed = 7;

/* An integer in [-8, 8]. */
static double small_int(void) {
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)((int)((seed >> 33) % 17) - 8);
}

/* Entry (c, q) of an array with `inner` entries per cell, in the layout's order. */
static int64_t at(hc_layout layout, int64_t C, int64_t inner, int64_t c, int64_t q) {
  return layout == HC_LAYOUT_CELL_MAJOR ? c * inner + q : q * C + c;
}

/* n small integers of prec (a new array), and the same as doubles in *as_double (new). */
static void *fill(int64_t n, hc_precision prec, double **as_double) {
  void *a = malloc(hc_precision_size(prec) * (size_t)n);
  *as_double = malloc(sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; i++) {
    double v = small_int();
    (*as_double)[i] = v;
    if (prec == HC_FLOAT) {
      ((float *)a)[i] = (float)v;
    } else {
      ((double *)a)[i] = v;
    }
  }
  return a;
}

/* Asserts that col covers each of the C cells once, in increasing id within a colour, and that no two cells of one
   colour share a node. */
static void check_coloring(const hc_coloring *col, int64_t C, int L, const int32_t *cell_nodes, int64_t N) {
  assert_int_equal(col->C, C);
  assert_true(col->num_colors >= (C > 0));
  assert_int_equal(col->start[0], 0);
  assert_int_equal(col->start[col->num_colors], C);
  int *seen = calloc((size_t)(C > 0 ? C : 1), sizeof(*seen));
  int64_t *owner = malloc(sizeof(*owner) * (size_t)(N > 0 ? N : 1));
  for (int k = 0; k < col->num_colors; k++) {
    assert_true(col->start[k + 1] > col->start[k]); /* no empty colour */
    for (int64_t n = 0; n < N; n++) owner[n] = -1;
    for (int64_t i = col->start[k]; i < col->start[k + 1]; i++) {
      const int64_t c = col->cells[i];
      assert_true(c >= 0 && c < C);
      assert_true(i == col->start[k] || col->cells[i - 1] < c);
      seen[c]++;
      for (int l = 0; l < L; l++) {
        const int32_t node = cell_nodes[c * L + l];
        /* no other cell of this colour touches the node */
        assert_true(owner[node] == -1 || owner[node] == c);
        owner[node] = c;
      }
    }
  }
  for (int64_t c = 0; c < C; c++) assert_int_equal(seen[c], 1);
  free(seen), free(owner);
}

/* A block numbered x fastest gets the 8 colours of the parity of (i,j,k), whatever its starting index. */
static void test_coloring(void **state) {
  (void)state;
  block b;
  block_make(&b, 5, 4, 3, 2, 1, 0, 3);
  hc_coloring *col = NULL;
  assert_int_equal(hc_coloring_create(b.C, b.L, b.cell_nodes, b.N, &col), HC_OK);
  check_coloring(col, b.C, b.L, b.cell_nodes, b.N);
  assert_int_equal(col->num_colors, 8);
  for (int k = 0; k < 8; k++) {
    const int64_t *first = b.cell_index + 3 * col->cells[col->start[k]];
    for (int64_t i = col->start[k]; i < col->start[k + 1]; i++) {
      const int64_t *ijk = b.cell_index + 3 * col->cells[i];
      for (int d = 0; d < 3; d++) assert_int_equal(ijk[d] & 1, first[d] & 1);
    }
  }
  assert_int_equal(hc_coloring_destroy(&col), HC_OK);
  assert_null(col);
  assert_int_equal(hc_coloring_destroy(NULL), HC_OK);
  /* a node id out of range is refused */
  b.cell_nodes[7] = (int32_t)b.N;
  assert_int_equal(hc_coloring_create(b.C, b.L, b.cell_nodes, b.N, &col), HC_ERR_INPUT);
  assert_null(col);
  block_free(&b);
}

/* Random-ish meshes: a block whose cells are shuffled and whose nodes are renumbered at random, with some cells
   left out; and cells of random nodes drawn from a few, dense enough to need more than one round of 64 colours. */
static void test_coloring_random(void **state) {
  (void)state;
  for (int trial = 0; trial < 4; trial++) {
    block b;
    block_make(&b, 6 + trial, 5, 4, 1 + trial % 3, 0, 0, 0);
    int64_t *cell_perm = malloc(sizeof(*cell_perm) * (size_t)b.C);
    int32_t *node_perm = malloc(sizeof(*node_perm) * (size_t)b.N);
    for (int64_t c = 0; c < b.C; c++) cell_perm[c] = c;
    for (int64_t n = 0; n < b.N; n++) node_perm[n] = (int32_t)n;
    for (int64_t c = b.C - 1; c > 0; c--) {
      const int64_t j = (int64_t)((small_int() + 8) * 1e6 + c * 7919) % (c + 1), t = cell_perm[c];
      cell_perm[c] = cell_perm[j], cell_perm[j] = t;
    }
    for (int64_t n = b.N - 1; n > 0; n--) {
      const int64_t j = (int64_t)((small_int() + 8) * 1e6 + n * 104729) % (n + 1);
      const int32_t t = node_perm[n];
      node_perm[n] = node_perm[j], node_perm[j] = t;
    }
    const int64_t C = b.C - b.C / 5; /* the last fifth of the shuffled cells left out */
    int32_t *cn = malloc(sizeof(*cn) * (size_t)(C * b.L));
    for (int64_t c = 0; c < C; c++)
      for (int l = 0; l < b.L; l++) cn[c * b.L + l] = node_perm[b.cell_nodes[cell_perm[c] * b.L + l]];
    hc_coloring *col = NULL;
    assert_int_equal(hc_coloring_create(C, b.L, cn, b.N, &col), HC_OK);
    check_coloring(col, C, b.L, cn, b.N);
    assert_true(col->num_colors <= 27); /* first fit: at most one more than the 26 neighbours of a cell */
    assert_int_equal(hc_coloring_destroy(&col), HC_OK);
    free(cell_perm), free(node_perm), free(cn);
    block_free(&b);
  }
  /* 400 cells of 8 nodes drawn from 60: most pairs of cells meet, so the colours pass 64. */
  const int64_t C = 400, N = 60;
  const int L = 8;
  int32_t *cn = malloc(sizeof(*cn) * (size_t)(C * L));
  for (int64_t i = 0; i < C * L; i++) cn[i] = (int32_t)((int64_t)((small_int() + 8) * 131 + i * 7) % N);
  hc_coloring *col = NULL;
  assert_int_equal(hc_coloring_create(C, L, cn, N, &col), HC_OK);
  check_coloring(col, C, L, cn, N);
  assert_true(col->num_colors > 64);
  assert_int_equal(hc_coloring_destroy(&col), HC_OK);
  /* no cells */
  assert_int_equal(hc_coloring_create(0, L, NULL, 0, &col), HC_OK);
  assert_int_equal(col->num_colors, 0);
  assert_int_equal(hc_coloring_destroy(&col), HC_OK);
  free(cn);
}

/* hc_assemble_vector and hc_assemble_apply against the plain loops, every order 1..3, layout and precision; their
   _serial forms, and with be non-NULL a host backend's table's assembly, against the same. */
static void check_against_plain_loops(const hc_backend *be);

static void test_against_plain_loops(void **state) {
  (void)state;
  check_against_plain_loops(NULL);
}

/* Each built host backend's completed table: no NULL operation, and its assembly is the host's. */
static void test_backend_tables(void **state) {
  (void)state;
  for (int i = 0; i < HC_NUM_BACKENDS; i++) {
    const hc_backend *be = NULL;
    if (hc_backend_get((hc_backend_id)i, &be) != HC_OK) continue; /* not built */
    const void *ops[] = {(const void *)be->contract,
                         (const void *)be->supports,
                         (const void *)be->celldata,
                         (const void *)be->mem_alloc,
                         (const void *)be->mem_free,
                         (const void *)be->copy_to_device,
                         (const void *)be->copy_to_host,
                         (const void *)be->synchronize,
                         (const void *)be->mem_zero,
                         (const void *)be->mem_copy,
                         (const void *)be->gather,
                         (const void *)be->scatter,
                         (const void *)be->waxpy,
                         (const void *)be->sum,
                         (const void *)be->assemble_vector,
                         (const void *)be->assemble_apply,
                         (const void *)be->timer_start,
                         (const void *)be->timer_stop,
                         (const void *)be->mark,
                         (const void *)be->marks_read,
                         (const void *)be->celldata_check,
                         (const void *)be->device_name,
                         (const void *)be->device_count,
                         (const void *)be->device_select,
                         (const void *)be->device_memory,
                         (const void *)be->chosen_variant,
                         (const void *)be->peak_flops,
                         (const void *)be->version,
                         (const void *)be->range_push,
                         (const void *)be->range_pop,
                         (const void *)be->release};
    for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
      if (!ops[o]) print_error("backend %s: operation %zu of the completed table is NULL\n", be->name, o);
      assert_non_null(ops[o]);
    }
    assert_true(hc_backend_is(be, (hc_backend_id)i));
    if (be->is_device) continue;
    int count = -1;
    assert_int_equal(be->device_count(&count), HC_OK);
    assert_int_equal(count, 0);
    double seconds = -1;
    assert_int_equal(be->timer_start(), HC_OK);
    assert_int_equal(be->timer_stop(&seconds), HC_OK);
    assert_true(seconds >= 0);
    check_against_plain_loops(be);
  }
}

static void check_against_plain_loops(const hc_backend *be) {
  for (int p = 1; p <= 3; p++) {
    block b;
    block_make(&b, 3, 2, 4 - p, p, 0, 1, 0);
    hc_coloring *col = NULL;
    assert_int_equal(hc_coloring_create(b.C, b.L, b.cell_nodes, b.N, &col), HC_OK);
    const int L = b.L;
    for (int prec = 0; prec < 2; prec++) {
      for (int lay = 0; lay < 2; lay++) {
        const hc_layout layout = (hc_layout)lay;
        const hc_precision precision = (hc_precision)prec;
        double *outd, *Ad, *u = malloc(sizeof(*u) * b.N);
        void *out = fill(b.C * L, precision, &outd), *A = fill(b.C * L * L, precision, &Ad);
        for (int64_t n = 0; n < b.N; n++) u[n] = small_int();
        double *y = calloc((size_t)b.N, sizeof(*y)), *want = calloc((size_t)b.N, sizeof(*want));
        double *ya = calloc((size_t)b.N, sizeof(*ya)), *wanta = calloc((size_t)b.N, sizeof(*wanta));
        /* y starts non-zero: assembly adds into it */
        for (int64_t n = 0; n < b.N; n++) y[n] = want[n] = (double)(n % 5);
        assert_int_equal(hc_assemble_vector(col, L, layout, precision, out, b.cell_nodes, y), HC_OK);
        for (int64_t c = 0; c < b.C; c++)
          for (int l = 0; l < L; l++) want[b.cell_nodes[c * L + l]] += outd[at(layout, b.C, L, c, l)];
        assert_memory_equal(y, want, sizeof(*y) * b.N);
        for (int64_t n = 0; n < b.N; n++) y[n] = (double)(n % 5);
        assert_int_equal(hc_assemble_vector_serial(col, L, layout, precision, out, b.cell_nodes, y), HC_OK);
        assert_memory_equal(y, want, sizeof(*y) * b.N);
        if (be) {
          hc_contract k;
          hc_contract_init(&k, HC_DATAFIELD_SCALAR);
          k.C = b.C, k.L = L, k.layout = layout, k.precision = precision;
          for (int64_t n = 0; n < b.N; n++) y[n] = (double)(n % 5);
          assert_int_equal(be->assemble_vector(&k, col, out, b.cell_nodes, y), HC_OK);
          assert_memory_equal(y, want, sizeof(*y) * b.N);
        }
        memset(y, 0, sizeof(*y) * b.N), memset(want, 0, sizeof(*want) * b.N);
        assert_int_equal(hc_assemble_apply(col, L, layout, precision, A, b.cell_nodes, u, y, ya), HC_OK);
        for (int64_t c = 0; c < b.C; c++) {
          for (int l = 0; l < L; l++) {
            for (int r = 0; r < L; r++) {
              const double t = Ad[at(layout, b.C, (int64_t)L * L, c, (int64_t)l * L + r)] * u[b.cell_nodes[c * L + r]];
              want[b.cell_nodes[c * L + l]] += t;
              wanta[b.cell_nodes[c * L + l]] += fabs(t);
            }
          }
        }
        if (memcmp(y, want, sizeof(*y) * b.N) != 0)
          print_error("apply differs: p=%d prec=%d layout=%d\n", p, prec, lay);
        assert_memory_equal(y, want, sizeof(*y) * b.N);
        assert_memory_equal(ya, wanta, sizeof(*ya) * b.N);
        /* without abs_y, and serially */
        memset(y, 0, sizeof(*y) * b.N);
        assert_int_equal(hc_assemble_apply(col, L, layout, precision, A, b.cell_nodes, u, y, NULL), HC_OK);
        assert_memory_equal(y, want, sizeof(*y) * b.N);
        memset(y, 0, sizeof(*y) * b.N), memset(ya, 0, sizeof(*ya) * b.N);
        assert_int_equal(hc_assemble_apply_serial(col, L, layout, precision, A, b.cell_nodes, u, y, ya), HC_OK);
        assert_memory_equal(y, want, sizeof(*y) * b.N);
        assert_memory_equal(ya, wanta, sizeof(*ya) * b.N);
        if (be) {
          hc_contract k;
          hc_contract_init(&k, HC_FIELDFIELD_SCALAR);
          k.C = b.C, k.L = k.R = L, k.layout = layout, k.precision = precision;
          memset(y, 0, sizeof(*y) * b.N);
          memset(ya, 0, sizeof(*ya) * b.N);
          assert_int_equal(be->assemble_apply(&k, col, A, b.cell_nodes, u, y, ya), HC_OK);
          assert_memory_equal(y, want, sizeof(*y) * b.N);
          assert_memory_equal(ya, wanta, sizeof(*ya) * b.N);
        }
        free(out), free(outd), free(A), free(Ad), free(u), free(y), free(want), free(ya), free(wanta);
      }
    }
    assert_int_equal(hc_coloring_destroy(&col), HC_OK);
    block_free(&b);
  }
}

/* Every built backend's sum (hc_backend.sum; a device backend's where a device answers) against a host sum, of
   three arrays at once: of small integers, exact in any order, bitwise; of values with round-off, within n eps of
   their absolute sum; the same arrays summed twice, the same bits (the order depends on n only); one array alone
   as in a call of three. Lengths past one block, and past the CUDA backend's 1024 blocks of 1024 entries. */
static void test_backend_sum(void **state) {
  (void)state;
  const int64_t lengths[] = {0, 1, 255, 1000, 65537, 3000017};
  for (int i = 0; i < HC_NUM_BACKENDS; i++) {
    const hc_backend *be = NULL;
    if (hc_backend_get((hc_backend_id)i, &be) != HC_OK) continue; /* not built */
    if (hc_test_no_device(be, be->name)) continue;
    for (size_t t = 0; t < sizeof(lengths) / sizeof(lengths[0]); t++) {
      const int64_t n = lengths[t];
      for (int prec = 0; prec < 2; prec++) {
        const hc_precision precision = (hc_precision)prec;
        const size_t s = precision == HC_FLOAT ? sizeof(float) : sizeof(double), bytes = s * (size_t)(n ? n : 1);
        void *h = malloc(bytes), *d[3] = {NULL, NULL, NULL};
        double want[3] = {0, 0, 0}, scale[3] = {0, 0, 0};
        for (int a = 0; a < 3; a++) {
          /* array 0: small integers; 1 and 2: values with round-off */
          for (int64_t j = 0; j < n; j++) {
            double v = a == 0 ? (double)((j * 7919) % 201 - 100) : 1.0 / (double)(j % (97 + a) + 1) - 0.1 * a;
            if (precision == HC_FLOAT) {
              ((float *)h)[j] = (float)v, v = (double)(float)v;
            } else {
              ((double *)h)[j] = v;
            }
            want[a] += v, scale[a] += fabs(v);
          }
          assert_int_equal(be->mem_alloc(bytes, &d[a]), HC_OK);
          assert_int_equal(be->copy_to_device(d[a], h, s * (size_t)n), HC_OK);
        }
        const void *x[3] = {d[0], d[1], d[2]};
        double got[3], again[3], alone = NAN;
        assert_int_equal(be->sum(3, x, precision, n, got), HC_OK);
        assert_int_equal(be->sum(3, x, precision, n, again), HC_OK);
        assert_int_equal(be->sum(1, x + 2, precision, n, &alone), HC_OK);
        for (int a = 0; a < 3; a++) {
          const double tol = a == 0 ? 0.0 : (double)n * 2.3e-16 * scale[a];
          if (!(fabs(got[a] - want[a]) <= tol))
            print_error("backend %s: sum of %lld %s values (array %d) %.17g, want %.17g\n", be->name, (long long)n,
                        hc_precision_name(precision), a, got[a], want[a]);
          assert_true(fabs(got[a] - want[a]) <= tol);
          assert_int_equal(be->mem_free(d[a]), HC_OK);
        }
        assert_memory_equal(got, again, sizeof(got));
        assert_memory_equal(&got[2], &alone, sizeof(alone));
        free(h);
      }
    }
    double none = 1;
    assert_int_equal(be->sum(0, NULL, HC_DOUBLE, 10, &none), HC_OK);
    assert_int_not_equal(be->sum(HC_SUM_ARRAYS_MAX + 1, NULL, HC_DOUBLE, 10, &none), HC_OK);
  }
}

/* A device backend's assembly (a device answering) against plain loops, in both layouts and precisions, at
   orders 1 to 4 (L = 8 to 125: on cuda the element apply stages 32 to 2 cells' whole matrices, or at orders 3 in
   double and 4 panels of their rows, kernels/README.md, section "Assembly"), with more cells than one block takes.
   Small integers, so that the sums are exact in any order and the comparison bitwise. */
static void test_device_assembly(void **state) {
  (void)state;
  for (int i = 0; i < HC_NUM_BACKENDS; i++) {
    const hc_backend *be = NULL;
    if (hc_backend_get((hc_backend_id)i, &be) != HC_OK || !be->is_device) continue; /* not built, or the host */
    if (hc_test_no_device(be, be->name)) continue;
    for (int p = 1; p <= 4; p++) {
      block b;
      block_make(&b, 5, 3, 3, p, 0, 0, 0);
      const int L = b.L;
      for (int prec = 0; prec < 2; prec++) {
        for (int lay = 0; lay < 2; lay++) {
          const hc_precision precision = (hc_precision)prec;
          const hc_layout layout = (hc_layout)lay;
          const size_t s = hc_precision_size(precision);
          double *outd, *Ad, *u = malloc(sizeof(*u) * b.N), *y = malloc(sizeof(*y) * b.N);
          double *want = calloc((size_t)b.N, sizeof(*want)), *wantv = calloc((size_t)b.N, sizeof(*wantv));
          void *out = fill(b.C * L, precision, &outd), *A = fill(b.C * L * L, precision, &Ad);
          for (int64_t n = 0; n < b.N; n++) u[n] = small_int();
          for (int64_t c = 0; c < b.C; c++) {
            for (int l = 0; l < L; l++) {
              wantv[b.cell_nodes[c * L + l]] += outd[at(layout, b.C, L, c, l)];
              for (int r = 0; r < L; r++)
                want[b.cell_nodes[c * L + l]] +=
                    Ad[at(layout, b.C, (int64_t)L * L, c, (int64_t)l * L + r)] * u[b.cell_nodes[c * L + r]];
            }
          }
          void *d_out, *d_A, *d_nodes, *d_u, *d_y;
          assert_int_equal(be->mem_alloc(s * (size_t)(b.C * L), &d_out), HC_OK);
          assert_int_equal(be->mem_alloc(s * (size_t)(b.C * L * L), &d_A), HC_OK);
          assert_int_equal(be->mem_alloc(sizeof(int32_t) * (size_t)(b.C * L), &d_nodes), HC_OK);
          assert_int_equal(be->mem_alloc(sizeof(double) * (size_t)b.N, &d_u), HC_OK);
          assert_int_equal(be->mem_alloc(sizeof(double) * (size_t)b.N, &d_y), HC_OK);
          assert_int_equal(be->copy_to_device(d_out, out, s * (size_t)(b.C * L)), HC_OK);
          assert_int_equal(be->copy_to_device(d_A, A, s * (size_t)(b.C * L * L)), HC_OK);
          assert_int_equal(be->copy_to_device(d_nodes, b.cell_nodes, sizeof(int32_t) * (size_t)(b.C * L)), HC_OK);
          assert_int_equal(be->copy_to_device(d_u, u, sizeof(double) * (size_t)b.N), HC_OK);
          hc_contract k;
          hc_contract_init(&k, HC_FIELDFIELD_SCALAR);
          k.C = b.C, k.L = k.R = L, k.layout = layout, k.precision = precision;
          assert_int_equal(be->mem_zero(d_y, sizeof(double) * (size_t)b.N), HC_OK);
          assert_int_equal(be->assemble_apply(&k, NULL, d_A, d_nodes, d_u, d_y, NULL), HC_OK);
          assert_int_equal(be->copy_to_host(y, d_y, sizeof(double) * (size_t)b.N), HC_OK);
          if (memcmp(y, want, sizeof(*y) * b.N) != 0)
            print_error("backend %s: apply differs at order %d, %s, %s\n", be->name, p, hc_precision_name(precision),
                        hc_layout_name(layout));
          assert_memory_equal(y, want, sizeof(*y) * b.N);
          hc_contract_init(&k, HC_DATAFIELD_SCALAR);
          k.C = b.C, k.L = L, k.layout = layout, k.precision = precision;
          assert_int_equal(be->mem_zero(d_y, sizeof(double) * (size_t)b.N), HC_OK);
          assert_int_equal(be->assemble_vector(&k, NULL, d_out, d_nodes, d_y), HC_OK);
          assert_int_equal(be->copy_to_host(y, d_y, sizeof(double) * (size_t)b.N), HC_OK);
          assert_memory_equal(y, wantv, sizeof(*y) * b.N);
          void *bufs[] = {d_out, d_A, d_nodes, d_u, d_y};
          for (int j = 0; j < 5; j++) assert_int_equal(be->mem_free(bufs[j]), HC_OK);
          free(out), free(outd), free(A), free(Ad), free(u), free(y), free(want), free(wantv);
        }
      }
      block_free(&b);
    }
  }
}

/* Every built backend's timeline (hc_backend.mark, marks_read; a device backend's where a device answers): the
   intervals between marks, one of them a 30 ms wait of the host with nothing queued (the next mark's time is
   when it is queued), one a copy of 64 MB queued between two marks, the others nothing; marks past the limits
   are errors. Then its lanes (fork, lane, join): a copy on lane 1 that the join waits for, lane 0 on a device not
   waiting for it; forks, lanes and joins out of turn are errors. */
static void test_backend_timeline(void **state) {
  (void)state;
  for (int i = 0; i < HC_NUM_BACKENDS; i++) {
    const hc_backend *be = NULL;
    if (hc_backend_get((hc_backend_id)i, &be) != HC_OK) continue; /* not built */
    if (hc_test_no_device(be, be->name)) continue;
    const size_t bytes = (size_t)64 << 20;
    void *d = NULL;
    assert_int_equal(be->mem_alloc(2 * bytes, &d), HC_OK);
    assert_int_equal(be->mem_zero(d, 2 * bytes), HC_OK);
    assert_int_equal(be->synchronize(), HC_OK);
    for (int round = 0; round < 2; round++) {
      double t[5] = {-1, -1, -1, -1, -1}, s[4];
      assert_int_equal(be->mark(0), HC_OK);
      assert_int_equal(be->mark(1), HC_OK);
      const struct timespec wait = {0, 30000000};
      nanosleep(&wait, NULL);
      assert_int_equal(be->mark(2), HC_OK);
      assert_int_equal(be->mem_copy((char *)d + bytes, d, bytes), HC_OK);
      assert_int_equal(be->mark(3), HC_OK);
      assert_int_equal(be->mark(4), HC_OK);
      assert_int_equal(be->marks_read(5, t), HC_OK);
      assert_true(t[0] == 0);
      for (int m = 0; m < 4; m++) s[m] = t[m + 1] - t[m];
      print_message("backend %s: timeline %.6f %.6f %.6f %.6f s\n", be->name, s[0], s[1], s[2], s[3]);
      assert_true(s[0] >= 0 && s[0] < 0.01);
      assert_true(s[1] >= 0.029 && s[1] < 1.0);
      assert_true(s[2] > 0 && s[2] < 1.0);
      assert_true(s[3] >= 0 && s[3] < s[2]);
    }
    double t[4] = {-1, -1, -1, -1};
    assert_int_equal(be->fork(2), HC_OK);
    assert_int_equal(be->mark(0), HC_OK); /* lane 0 */
    assert_int_equal(be->lane(1), HC_OK);
    assert_int_equal(be->mem_copy((char *)d + bytes, d, bytes), HC_OK);
    assert_int_equal(be->mark(1), HC_OK);
    assert_int_equal(be->lane(0), HC_OK);
    assert_int_equal(be->mark(2), HC_OK);
    assert_int_equal(be->join(), HC_OK);
    assert_int_equal(be->mark(3), HC_OK);
    assert_int_equal(be->marks_read(4, t), HC_OK);
    print_message("backend %s: lanes %.6f %.6f %.6f %.6f s\n", be->name, t[0], t[1], t[2], t[3]);
    assert_true(t[0] == 0 && t[1] > 0 && t[3] >= t[1] && t[3] < 1.0);
    if (be->is_device) assert_true(t[2] < t[1]); /* lane 0 ran on beside the copy */
    assert_int_equal(be->fork(1), HC_ERR_INPUT);
    assert_int_equal(be->fork(HC_LANES_MAX + 1), HC_ERR_INPUT);
    assert_int_equal(be->lane(1), HC_ERR_INPUT);
    assert_int_equal(be->join(), HC_ERR_RUNTIME);
    assert_int_equal(be->fork(HC_LANES_MAX), HC_OK);
    assert_int_equal(be->fork(2), HC_ERR_RUNTIME);
    assert_int_equal(be->lane(HC_LANES_MAX), HC_ERR_INPUT);
    assert_int_equal(be->lane(HC_LANES_MAX - 1), HC_OK);
    assert_int_equal(be->join(), HC_OK);
    assert_int_equal(be->synchronize(), HC_OK);
    hc_error_clear();
    double s[1];
    assert_int_equal(be->mark(-1), HC_ERR_INPUT);
    assert_int_equal(be->mark(HC_MARKS_MAX), HC_ERR_INPUT);
    assert_int_equal(be->marks_read(0, s), HC_ERR_INPUT);
    assert_int_equal(be->marks_read(HC_MARKS_MAX + 1, s), HC_ERR_INPUT);
    assert_int_equal(be->mem_free(d), HC_OK);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_coloring),
      cmocka_unit_test(test_coloring_random),
      cmocka_unit_test(test_against_plain_loops),
      cmocka_unit_test(test_backend_tables),
      cmocka_unit_test(test_backend_sum),
      cmocka_unit_test(test_backend_timeline),
      cmocka_unit_test(test_device_assembly),
  };
  return cmocka_run_group_tests_name("assembly", tests, NULL, NULL);
}
