/* The OpenMP backend: the contractions on the host's cores, parallel over cells and vectorised. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "kernels/hc_kernels.h"
#include "kernels/hc_celldata.h"
#include "kernels/openmp/bench_openmp.h"
#include "kernels/serial/hc_host_memory.h"

/* Cells per block in the cell-minor loops: a few vector widths, small enough to sit in L1. */
#define HC_OMP_CB 64
/* Cells per block in the cell-minor FieldField loop: two or more vector widths. */
#define HC_OMP_CB_FF 16
/* a * b + c, fused into one FMA instruction where the target has one (the build's ISO C mode does not
   contract a * b + c by itself), else the plain expression. */
#if defined(FP_FAST_FMA) && defined(FP_FAST_FMAF)
#define HC_FMA(a, b, c) _Generic((c), float : fmaf, default : fma)(a, b, c)
#else
#define HC_FMA(a, b, c) ((a) * (b) + (c))
#endif
/* Register tile of the cell-major FieldField micro-kernel: HC_OMP_MR left fields x HC_OMP_NR right fields
   (two 64-byte vectors of the precision that includes it). */
#define HC_OMP_MR 4
#define HC_OMP_NR (128 / (int)sizeof(HC_REAL))
/* Rows of K in a packed panel of B^T: HC_OMP_KB x R scalars stay in L2. */
#define HC_OMP_KB 256
/* Left fields from which a cell-major FieldField cell is computed as a packed GEMM; fewer take dot products. */
#define HC_OMP_FF_GEMM_L 16

/* Scalars of work space per thread for FieldField: the packed B^T panel (cell-major) or the R x HC_OMP_CB_FF
   accumulators (cell-minor). */
static int64_t hc_ff_work_omp(const hc_contract *k) {
  if (k->layout == HC_LAYOUT_CELL_MINOR) return (int64_t)k->R * HC_OMP_CB_FF;
  const int64_t K = hc_contract_K(k), kb = K < HC_OMP_KB ? K : HC_OMP_KB;
  const int64_t nr = 128 / (int64_t)hc_precision_size(k->precision); /* HC_OMP_NR of k's precision */
  return kb * (((int64_t)k->R + nr - 1) / nr * nr);
}

#define HC_TEMPLATE "kernels/openmp/contract_openmp_impl.h"
#include "kernels/hc_instantiate.h"

static int hc_contract_openmp(const hc_contract *k, const void *left, const void *right, void *out) {
  void *work = NULL;
  if (hc_kernel_family(k->kernel) == HC_FAMILY_FIELDFIELD) {
    size_t n = (size_t)omp_get_max_threads() * (size_t)hc_ff_work_omp(k);
    work = malloc(n * hc_precision_size(k->precision));
    HC_CHECK(work, HC_ERR_RESOURCE, "out of host memory for the OpenMP work space (%zu scalars)", n);
  }
  if (k->precision == HC_FLOAT) {
    hc_contract_omp_f32(k, left, right, out, work);
  } else {
    hc_contract_omp_f64(k, left, right, out, work);
  }
  free(work);
  return HC_OK;
}

static int hc_supports_openmp(const hc_contract *k) {
  return hc_supports_host(k, "openmp");
}

const hc_backend hc_backend_openmp = {
    .name = "openmp",
    .description = "OpenMP threads over cells, vectorised inner loops",
    .is_device = 0,
    .contract = hc_contract_openmp,
    .supports = hc_supports_openmp,
    .mem_alloc = hc_host_alloc,
    .mem_free = hc_host_free,
    .copy_to_device = hc_host_copy,
    .copy_to_host = hc_host_copy,
    .synchronize = hc_host_synchronize,
    .celldata = hc_celldata_fill_openmp,
    .chosen_variant = NULL,
    .mem_copy = hc_mem_copy_openmp,
    .peak_flops = hc_peak_flops_openmp,
};
