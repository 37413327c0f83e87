/* The OpenMP backend: the contractions on the host's cores, parallel over cells and vectorised, and the host
   assembly on the same threads; its memory and timer are the core's host defaults (hc_backend). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "kernels/hc_kernels.h"
#include "kernels/hc_assembly.h"
#include "kernels/hc_celldata.h"
#include "kernels/openmp/bench_openmp.h"
#include "kernels/openmp/hc_omp_gemm.h"
#include "kernels/openmp/hc_omp_transpose.h"

/* Cells per block in the cell-minor DataData loop: rows of 32 KiB (double), which the hardware prefetchers
   follow across pages; the accumulators, one row, stay in L1. Measured on one core of the CI-class VM
   (DataData Vector and Tensor, double, 0.2 GB): 11-12 GB/s with 1,024 cells, 12-15 with 2,048, 13-16 with
   4,096, no better with 8,192. The loop takes four rows at a time (eight streams in flight, the accumulators
   read and written once per four rows): 51-64% -> 82-108% of the copy roofline there (2026-11-23). */
#define HC_OMP_CB_DD 4096
/* Cells per block and entries of K per chunk in the cell-minor DataField loop: each field row read is 8 KiB
   (double), and the chunk of data rows, HC_OMP_KB_DF x HC_OMP_CB_DF scalars (256 KiB), stays in L2 for all L
   fields. On one core of the CI-class VM, double, with four rows at a time: 512 x 64 33-55% of the copy
   roofline, 1,024 x 32 60-84% (2,048 x 32 and 4,096 x 16 no better; the (125,216) Tensor case, about 100
   cells at 0.2 GB, stays near 40%). */
#ifndef HC_OMP_CB_DF
#define HC_OMP_CB_DF 1024
#endif
#ifndef HC_OMP_KB_DF
#define HC_OMP_KB_DF 32
#endif
/* Cell-minor FieldField: the packed left and right fields of a block of cells take at most this many bytes
   per thread (about half an L2), a block holds at most HC_OMP_FF_NB cells, and a chunk of K at least
   HC_OMP_FF_KQ_MIN entries. */
#define HC_OMP_FF_PACK_BYTES (1 << 20)
#define HC_OMP_FF_NB         256
#define HC_OMP_FF_KQ_MIN     64
/* Bytes of a row of a cell-minor FieldField block at least (a multiple of the micro-tile's two vectors). */
#define HC_OMP_FF_ROW_MIN 512
/* Hints the cache line at p into the caches (x86 prefetch instructions never fault), where the compiler has
   a way to say so. */
#if defined(__GNUC__)
#define HC_PREFETCH(p) __builtin_prefetch(p)
#else
#define HC_PREFETCH(p) ((void)(p))
#endif
/* Cell-major DataField: how far ahead of the entries being read the loop asks for the lines it will read next
   (0: leave it to the hardware prefetchers). One core of a server processor keeps few misses in flight for one
   thread's loads, so a stream read by one thread runs below the core's copy rate unless its lines are asked
   for well ahead (README section "hexcontract bench" has the measurements; DataData gained nothing). */
#ifndef HC_OMP_AHEAD_BYTES
#define HC_OMP_AHEAD_BYTES 2048
#endif
/* Asks for the lines of [q, q + bytes). */
static inline void hc_prefetch_lines(const char *q, int64_t bytes) {
  for (int64_t off = 0; off < bytes; off += 64) HC_PREFETCH(q + off);
}
/* Asks for the lines of [p + HC_OMP_AHEAD_BYTES, p + HC_OMP_AHEAD_BYTES + bytes). */
static inline void hc_prefetch_ahead(const void *p, int64_t bytes) {
  if (HC_OMP_AHEAD_BYTES > 0) hc_prefetch_lines((const char *)p + HC_OMP_AHEAD_BYTES, bytes);
}
/* Asks for the lines of the bytes that follow [p, p + bytes) at HC_OMP_NEXT_BYTES or bytes ahead, the more of the
   two: a run of cells' records read one after another, whose next ones are fetched while this one is used. */
#ifndef HC_OMP_NEXT_BYTES
#define HC_OMP_NEXT_BYTES 2048
#endif
static inline void hc_prefetch_next(const void *p, int64_t bytes) {
  hc_prefetch_lines((const char *)p + (bytes > HC_OMP_NEXT_BYTES ? bytes : HC_OMP_NEXT_BYTES), bytes);
}
/* Cells per block of a cell-minor DataData or DataField loop: at most max, and at most an even share of the
   cells per thread (a multiple of 16, at least 16), so that a small C still spreads over every thread. */
static inline int64_t hc_minor_block_openmp(int64_t C, int64_t max) {
  const int64_t threads = omp_get_max_threads();
  const int64_t share = ((C + threads - 1) / threads + 15) / 16 * 16;
  return share < 16 ? 16 : share < max ? share : max;
}
/* Register tile of the cell-minor FieldField micro-kernel: HC_OMP_FF_MR left x HC_OMP_FF_NR right fields,
   each over two 64-byte vectors of cells (24 vector accumulators). */
#define HC_OMP_FF_MR 3
#define HC_OMP_FF_NR 4

/* Scalars of one FieldField cell's left and right fields and outputs: (L + R) K + L R. */
static int64_t hc_ff_cell_scalars(const hc_contract *k) {
  return ((int64_t)k->L + k->R) * hc_contract_K(k) + (int64_t)k->L * k->R;
}

/* Whether a FieldField cell of L left and R right fields is multiplied by the packed GEMM (hc_ff_cell_openmp), not
   by the narrow or small kernels. */
static inline int hc_ff_takes_gemm(int64_t L, int64_t R) {
  return L >= HC_OMP_FF_GEMM_L && R > HC_OMP_NARROW;
}

/* Blocking of the cell-minor FieldField loop: blocks of *nb cells, a multiple of the micro-tile's width
   (two 64-byte vectors), and chunks of *kq entries of K, so that the packed left and right fields of a
   chunk, (L + R) x kq x nb scalars, and the block's outputs, L x R x nb, take about HC_OMP_FF_PACK_BYTES.
   Wide blocks where all of K fits, so that each row read is long; else rows of HC_OMP_FF_ROW_MIN bytes and K split
   into even chunks of at least HC_OMP_FF_KQ_MIN, so that the outputs are updated rarely. */
static void hc_ff_minor_blocking_openmp(const hc_contract *k, int64_t *nb, int64_t *kq) {
  const int64_t s = (int64_t)hc_precision_size(k->precision), nv = 128 / s, K = hc_contract_K(k);
  const int64_t budget = HC_OMP_FF_PACK_BYTES / s, LR = (int64_t)k->L + k->R, LxR = (int64_t)k->L * k->R;
  const int64_t b = budget / hc_ff_cell_scalars(k) / nv * nv;
  if (b >= nv) {
    *nb = b < HC_OMP_FF_NB ? b : HC_OMP_FF_NB;
    *kq = K;
    return;
  }
  const int64_t nbmin = HC_OMP_FF_ROW_MIN / s;
  int64_t q = (budget / nbmin - LxR) / LR;
  q = q < HC_OMP_FF_KQ_MIN ? HC_OMP_FF_KQ_MIN : q;
  const int64_t chunks = (K + q - 1) / q;
  *nb = nbmin;
  *kq = (K + chunks - 1) / chunks;
}

/* Cell-minor FieldField whose cells the cell-major GEMM would multiply (hc_ff_cell_openmp: L >= HC_OMP_FF_GEMM_L,
   R > HC_OMP_NARROW): blocks of this many cells (a multiple of 8, 8 to HC_OMP_FF_GEMM_CELLS) are transposed into
   cell-major fields, so that their left and right fields and outputs take about HC_OMP_FF_PACK_BYTES, multiplied
   cell by cell and their outputs transposed back. 0 where the register tiles over cells take the case. */
#ifndef HC_OMP_FF_GEMM_CELLS
#define HC_OMP_FF_GEMM_CELLS 64
#endif
static int64_t hc_ff_minor_gemm_cells_openmp(const hc_contract *k) {
  if (k->layout != HC_LAYOUT_CELL_MINOR || !hc_ff_takes_gemm(k->L, k->R)) return 0;
  const int64_t s = (int64_t)hc_precision_size(k->precision),
                n = HC_OMP_FF_PACK_BYTES / s / hc_ff_cell_scalars(k) / 8 * 8;
  return n < 8 ? 8 : n > HC_OMP_FF_GEMM_CELLS ? HC_OMP_FF_GEMM_CELLS : n;
}

/* Scalars of work space per thread for FieldField: the packed B^T panel (cell-major); the block's cell-major
   fields and outputs and the panel (cell-minor through the GEMM); or the packed left and right fields and the
   outputs of a block of cells (cell-minor, register tiles over cells). */
static int64_t hc_ff_work_openmp(const hc_contract *k) {
  const int64_t gemm_cells = hc_ff_minor_gemm_cells_openmp(k);
  if (gemm_cells) {
    return gemm_cells * hc_ff_cell_scalars(k) +
           hc_ff_panel_openmp(hc_contract_K(k), k->R, (int64_t)hc_precision_size(k->precision));
  }
  if (k->layout == HC_LAYOUT_CELL_MINOR) {
    int64_t nb, kq;
    hc_ff_minor_blocking_openmp(k, &nb, &kq);
    return (((int64_t)k->L + k->R) * kq + (int64_t)k->L * k->R) * nb;
  }
  return hc_ff_panel_openmp(hc_contract_K(k), k->R, (int64_t)hc_precision_size(k->precision));
}

#define HC_TEMPLATE "kernels/openmp/dots_openmp_impl.h"
#include "kernels/hc_instantiate.h"
#define HC_TEMPLATE "kernels/openmp/gemm_openmp_impl.h"
#include "kernels/hc_instantiate.h"
#define HC_TEMPLATE "kernels/openmp/contract_openmp_impl.h"
#include "kernels/hc_instantiate.h"

static int hc_contract_openmp(const hc_contract *k, const void *left, const void *right, void *out) {
  void *work = NULL;
  if (hc_kernel_family(k->kernel) == HC_FAMILY_FIELDFIELD) {
    size_t n = (size_t)omp_get_max_threads() * (size_t)hc_ff_work_openmp(k);
    work = malloc(n * hc_precision_size(k->precision));
    HC_CHECK(work, HC_ERR_RESOURCE, "out of host memory for the OpenMP work space (%zu scalars)", n);
  }
  if (k->precision == HC_FLOAT) {
    hc_contract_openmp_f32(k, left, right, out, work);
  } else {
    hc_contract_openmp_f64(k, left, right, out, work);
  }
  free(work);
  return HC_OK;
}

/* Host assembly on OpenMP's threads, one colour at a time (kernels/hc_assembly.h). */
static int hc_assemble_vector_openmp(const hc_contract *k, const hc_coloring *col, const void *out,
                                     const int32_t *cell_nodes, double *y) {
  return hc_assemble_vector(col, k->L, k->layout, k->precision, out, cell_nodes, y);
}

static int hc_assemble_apply_openmp(const hc_contract *k, const hc_coloring *col, const void *A,
                                    const int32_t *cell_nodes, const double *u, double *y, double *abs_y) {
  return hc_assemble_apply(col, k->L, k->layout, k->precision, A, cell_nodes, u, y, abs_y);
}

static int hc_supports_openmp(const hc_contract *k) {
  return hc_variant_check(k->variant, HC_BACKEND_OPENMP);
}

const hc_backend hc_backend_openmp = {
    .name = "openmp",
    .description = "OpenMP threads over cells, vectorised inner loops",
    .is_device = 0,
    .openmp_threads = 1,
    .geometry_cache = HC_GEOMETRY_CACHE_CELLDATA | HC_GEOMETRY_CACHE_FUSED,
    .contract = hc_contract_openmp,
    .supports = hc_supports_openmp,
    .celldata = hc_celldata_fill_openmp,
    .fused = hc_fused_openmp,
    .fused_element = hc_fused_element_openmp,
    .mem_copy = hc_mem_copy_openmp,
    .assemble_vector = hc_assemble_vector_openmp,
    .assemble_apply = hc_assemble_apply_openmp,
    .peak_flops = hc_peak_flops_openmp,
    .version = hc_version_openmp,
};
