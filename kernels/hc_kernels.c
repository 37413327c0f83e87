/* Backend-independent parts of the contraction interface: names, shapes, cost model, layout
   conversion, and the backend registry that completes each backend's table with the core's defaults. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include "kernels/hc_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "hc_config.h"
#include "kernels/hc_assembly.h"

#define HC_KERNEL_NAME(id, name) #name,
const char *const hc_kernel_names[HC_NUM_KERNELS] = {HC_KERNEL_LIST(HC_KERNEL_NAME)};
#undef HC_KERNEL_NAME

#define HC_VARIANT_NAME(id, name, backend, flags, description) #name,
const char *const hc_variant_names[HC_NUM_VARIANTS] = {HC_VARIANT_LIST(HC_VARIANT_NAME)};
#undef HC_VARIANT_NAME

#define HC_VARIANT_DESCRIPTION(id, name, backend, flags, description) description,
static const char *const hc_variant_descriptions[HC_NUM_VARIANTS] = {HC_VARIANT_LIST(HC_VARIANT_DESCRIPTION)};
#undef HC_VARIANT_DESCRIPTION

#define HC_VARIANT_FLAGS(id, name, backend, flags, description) flags,
static const int hc_variant_flag_table[HC_NUM_VARIANTS] = {HC_VARIANT_LIST(HC_VARIANT_FLAGS)};
#undef HC_VARIANT_FLAGS

/* The backend that provides each variant; HC_BACKEND_ALL: every backend (auto). */
enum { HC_BACKEND_ALL = -1 };
#define HC_VARIANT_BACKEND(id, name, backend, flags, description) HC_BACKEND_##backend,
static const int hc_variant_backends[HC_NUM_VARIANTS] = {HC_VARIANT_LIST(HC_VARIANT_BACKEND)};
#undef HC_VARIANT_BACKEND

void hc_names_format(const char *const *names, int n, const char *last, char *buf, size_t size) {
  size_t used = 0;
  if (size) buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    const char *sep = i == 0 ? "" : i == n - 1 ? last : ", ";
    used += (size_t)snprintf(buf + used, size > used ? size - used : 0, "%s%s", sep, names[i]);
  }
}

const char *hc_kernel_name(hc_kernel kernel) {
  return (kernel >= 0 && kernel < HC_NUM_KERNELS) ? hc_kernel_names[kernel] : "unknown";
}

int hc_kernel_from_name(const char *name, hc_kernel *kernel) {
  for (int i = 0; i < HC_NUM_KERNELS; i++) {
    if (name && strcmp(name, hc_kernel_names[i]) == 0) {
      *kernel = (hc_kernel)i;
      return HC_OK;
    }
  }
  char names[512];
  hc_names_format(hc_kernel_names, HC_NUM_KERNELS, ", ", names, sizeof(names));
  return HC_ERROR(HC_ERR_INPUT, "unknown kernel '%s' (expected one of %s)", name ? name : "(null)", names);
}

hc_family hc_kernel_family(hc_kernel kernel) {
  return (hc_family)(kernel / 3);
}

hc_rank hc_kernel_rank(hc_kernel kernel) {
  return (hc_rank)(kernel % 3);
}

const char *hc_layout_name(hc_layout layout) {
  return layout == HC_LAYOUT_CELL_MINOR ? "cell-minor" : "cell-major";
}

int hc_layout_from_name(const char *name, hc_layout *layout) {
  if (name && strcmp(name, "cell-major") == 0) {
    *layout = HC_LAYOUT_CELL_MAJOR;
  } else if (name && strcmp(name, "cell-minor") == 0) {
    *layout = HC_LAYOUT_CELL_MINOR;
  } else {
    return HC_ERROR(HC_ERR_INPUT, "unknown layout '%s' (expected cell-major or cell-minor)", name ? name : "(null)");
  }
  return HC_OK;
}

const char *hc_precision_name(hc_precision precision) {
  return precision == HC_FLOAT ? "float" : "double";
}

size_t hc_precision_size(hc_precision precision) {
  return precision == HC_FLOAT ? sizeof(float) : sizeof(double);
}

const char *hc_variant_name(hc_variant variant) {
  return (variant >= 0 && variant < HC_NUM_VARIANTS) ? hc_variant_names[variant] : "unknown";
}

int hc_variant_from_name(const char *name, hc_variant *variant) {
  for (int i = 0; i < HC_NUM_VARIANTS; i++) {
    if (name && strcmp(name, hc_variant_names[i]) == 0) {
      *variant = (hc_variant)i;
      return HC_OK;
    }
  }
  char names[512];
  hc_names_format(hc_variant_names, HC_NUM_VARIANTS, " or ", names, sizeof(names));
  return HC_ERROR(HC_ERR_INPUT, "unknown variant '%s' (expected %s)", name ? name : "(null)", names);
}

const char *hc_variant_description(hc_variant variant) {
  return (variant >= 0 && variant < HC_NUM_VARIANTS) ? hc_variant_descriptions[variant] : "unknown";
}

int hc_variant_flags(hc_variant variant) {
  return (variant >= 0 && variant < HC_NUM_VARIANTS) ? hc_variant_flag_table[variant] : 0;
}

int hc_variant_provided(hc_variant variant, hc_backend_id backend) {
  if (variant < 0 || variant >= HC_NUM_VARIANTS) return 0;
  return hc_variant_backends[variant] == HC_BACKEND_ALL || hc_variant_backends[variant] == (int)backend;
}

int hc_variant_check(hc_variant variant, hc_backend_id backend) {
  if (hc_variant_provided(variant, backend)) return HC_OK;
  const char *names[HC_NUM_VARIANTS];
  int n = 0;
  for (int v = 0; v < HC_NUM_VARIANTS; v++) {
    if (hc_variant_provided((hc_variant)v, backend)) names[n++] = hc_variant_names[v];
  }
  char available[512];
  hc_names_format(names, n, ", ", available, sizeof(available));
  return HC_ERROR(HC_ERR_UNSUPPORTED, "variant '%s' is not available on backend %s (available: %s)",
                  hc_variant_name(variant), hc_backend_names[backend], available);
}

void hc_contract_init(hc_contract *k, hc_kernel kernel) {
  memset(k, 0, sizeof(*k));
  k->kernel = kernel;
  k->C = 1;
  k->L = k->R = k->P = k->D = k->P_data = 1;
  k->layout = HC_LAYOUT_CELL_MAJOR;
  k->precision = HC_DOUBLE;
  k->variant = HC_VARIANT_AUTO;
}

static int64_t hc_ipow(int64_t base, int exp) {
  int64_t v = 1;
  for (int i = 0; i < exp; i++) v *= base;
  return v;
}

int64_t hc_contract_K(const hc_contract *k) {
  return (int64_t)k->P * hc_ipow(k->D, hc_kernel_rank(k->kernel));
}

static int64_t hc_contract_K_data(const hc_contract *k) {
  int64_t P = hc_kernel_family(k->kernel) == HC_FAMILY_DATAFIELD ? k->P_data : k->P;
  return P * hc_ipow(k->D, hc_kernel_rank(k->kernel));
}

void hc_contract_shape(const hc_contract *k, hc_array which, int *ndim, int64_t dims[6]) {
  hc_family fam = hc_kernel_family(k->kernel);
  int rank = hc_kernel_rank(k->kernel);
  int n = 0;
  dims[n++] = k->C;
  if (which == HC_ARRAY_OUT) {
    if (fam != HC_FAMILY_DATADATA) dims[n++] = k->L;
    if (fam == HC_FAMILY_FIELDFIELD) dims[n++] = k->R;
    *ndim = n;
    return;
  }
  if (which == HC_ARRAY_LEFT && fam != HC_FAMILY_DATADATA) dims[n++] = k->L;
  if (which == HC_ARRAY_RIGHT && fam == HC_FAMILY_FIELDFIELD) dims[n++] = k->R;
  dims[n++] = (which == HC_ARRAY_RIGHT && fam == HC_FAMILY_DATAFIELD) ? k->P_data : k->P;
  for (int i = 0; i < rank; i++) dims[n++] = k->D;
  *ndim = n;
}

int64_t hc_contract_inner(const hc_contract *k, hc_array which) {
  int ndim;
  int64_t dims[6], n = 1;
  hc_contract_shape(k, which, &ndim, dims);
  for (int i = 1; i < ndim; i++) n *= dims[i];
  return n;
}

int64_t hc_contract_numel(const hc_contract *k, hc_array which) {
  return k->C * hc_contract_inner(k, which);
}

void hc_shape_format(int ndim, const int64_t *dims, char *buf, size_t size) {
  size_t used = 0;
  used += (size_t)snprintf(buf + used, size > used ? size - used : 0, "(");
  for (int i = 0; i < ndim; i++) {
    used += (size_t)snprintf(buf + used, size > used ? size - used : 0, "%s%lld", i ? ", " : "", (long long)dims[i]);
  }
  if (ndim == 1) used += (size_t)snprintf(buf + used, size > used ? size - used : 0, ",");
  snprintf(buf + used, size > used ? size - used : 0, ")");
}

/* The expected shapes of a kernel's inputs, in Intrepid letters, for error messages. */
static void hc_expected_shapes(hc_kernel kernel, const char **left, const char **right) {
  static const char *const lefts[3][3] = {{"(C,P)", "(C,P,D)", "(C,P,D,D)"},
                                          {"(C,L,P)", "(C,L,P,D)", "(C,L,P,D,D)"},
                                          {"(C,L,P)", "(C,L,P,D)", "(C,L,P,D,D)"}};
  static const char *const rights[3][3] = {{"(C,P)", "(C,P,D)", "(C,P,D,D)"},
                                           {"(C,P) or (C,1)", "(C,P,D) or (C,1,D)", "(C,P,D,D) or (C,1,D,D)"},
                                           {"(C,R,P)", "(C,R,P,D)", "(C,R,P,D,D)"}};
  *left = lefts[hc_kernel_family(kernel)][hc_kernel_rank(kernel)];
  *right = rights[hc_kernel_family(kernel)][hc_kernel_rank(kernel)];
}

/* Largest extent accepted for L, R, P and D, and for any array's entry count. */
#define HC_MAX_EXTENT ((int64_t)1 << 30)
#define HC_MAX_NUMEL  ((int64_t)1 << 50)

int hc_contract_from_shapes(hc_contract *k, int left_ndim, const int64_t *left_dims, int right_ndim,
                            const int64_t *right_dims) {
  hc_family fam = hc_kernel_family(k->kernel);
  int rank = hc_kernel_rank(k->kernel);
  const char *exp_left, *exp_right;
  char ls[160], rs[160];
  hc_expected_shapes(k->kernel, &exp_left, &exp_right);
  hc_shape_format(left_ndim, left_dims, ls, sizeof(ls));
  hc_shape_format(right_ndim, right_dims, rs, sizeof(rs));
#define HC_SHAPE_CHECK(cond, why)                                                                                \
  HC_CHECK(cond, HC_ERR_INPUT, "shapes do not fit %s: left %s and right %s (%s; expected left %s and right %s)", \
           hc_kernel_name(k->kernel), ls, rs, why, exp_left, exp_right)

  int lfield = fam != HC_FAMILY_DATADATA;   /* left has an L index */
  int rfield = fam == HC_FAMILY_FIELDFIELD; /* right has an R index */
  HC_SHAPE_CHECK(left_ndim == 2 + lfield + rank, "left has the wrong number of dimensions");
  HC_SHAPE_CHECK(right_ndim == 2 + rfield + rank, "right has the wrong number of dimensions");
  int64_t lnumel = 1, rnumel = 1;
  for (int i = 0; i < left_ndim; i++) {
    HC_SHAPE_CHECK(left_dims[i] >= 1, "every extent must be at least 1");
    HC_SHAPE_CHECK(i == 0 || left_dims[i] <= HC_MAX_EXTENT, "an extent other than C exceeds 2^30");
    HC_SHAPE_CHECK(lnumel <= HC_MAX_NUMEL / left_dims[i], "left has more than 2^50 entries");
    lnumel *= left_dims[i];
  }
  for (int i = 0; i < right_ndim; i++) {
    HC_SHAPE_CHECK(right_dims[i] >= 1, "every extent must be at least 1");
    HC_SHAPE_CHECK(i == 0 || right_dims[i] <= HC_MAX_EXTENT, "an extent other than C exceeds 2^30");
    HC_SHAPE_CHECK(rnumel <= HC_MAX_NUMEL / right_dims[i], "right has more than 2^50 entries");
    rnumel *= right_dims[i];
  }
  HC_SHAPE_CHECK(left_dims[0] == right_dims[0], "the cell counts C differ");
  int64_t C = left_dims[0];
  int64_t L = lfield ? left_dims[1] : 1;
  int64_t R = rfield ? right_dims[1] : 1;
  int64_t P = left_dims[1 + lfield];
  int64_t P_right = right_dims[1 + rfield];
  int64_t D = rank > 0 ? left_dims[2 + lfield] : 1;
  if (rank == 2) HC_SHAPE_CHECK(left_dims[3 + lfield] == D, "left's last two extents (D,D) differ");
  for (int i = 0; i < rank; i++) HC_SHAPE_CHECK(right_dims[2 + rfield + i] == D, "the space dimensions D differ");
  if (fam == HC_FAMILY_DATAFIELD) {
    HC_SHAPE_CHECK(P_right == P || P_right == 1, "the data's point count must equal the fields' P, or be 1");
  } else {
    HC_SHAPE_CHECK(P_right == P, "the point counts P differ");
  }
  /* The output must fit too. */
  HC_SHAPE_CHECK(C <= HC_MAX_NUMEL / (L * R), "the output would have more than 2^50 entries");
#undef HC_SHAPE_CHECK
  k->C = C;
  k->L = (int)L;
  k->R = (int)R;
  k->P = (int)P;
  k->D = (int)D;
  k->P_data = fam == HC_FAMILY_DATAFIELD ? (int)P_right : (int)P;
  return HC_OK;
}

int hc_contract_validate(const hc_contract *k) {
  HC_CHECK(k->kernel >= 0 && k->kernel < HC_NUM_KERNELS, HC_ERR_INPUT, "invalid kernel id %d", (int)k->kernel);
  hc_family fam = hc_kernel_family(k->kernel);
  HC_CHECK(k->C >= 1 && k->L >= 1 && k->R >= 1 && k->P >= 1 && k->D >= 1 && k->P_data >= 1, HC_ERR_INPUT,
           "%s: sizes must be positive, got C=%lld L=%d R=%d P=%d D=%d P_data=%d", hc_kernel_name(k->kernel),
           (long long)k->C, k->L, k->R, k->P, k->D, k->P_data);
  HC_CHECK(fam != HC_FAMILY_DATADATA || (k->L == 1 && k->R == 1), HC_ERR_INPUT, "%s has no fields: L and R must be 1",
           hc_kernel_name(k->kernel));
  HC_CHECK(fam == HC_FAMILY_FIELDFIELD || k->R == 1, HC_ERR_INPUT, "%s has no right fields: R must be 1",
           hc_kernel_name(k->kernel));
  HC_CHECK(hc_kernel_rank(k->kernel) > 0 || k->D == 1, HC_ERR_INPUT, "%s has scalar data: D must be 1",
           hc_kernel_name(k->kernel));
  HC_CHECK(fam == HC_FAMILY_DATAFIELD ? (k->P_data == k->P || k->P_data == 1) : k->P_data == k->P, HC_ERR_INPUT,
           "%s: data points P_data=%d must equal P=%d%s", hc_kernel_name(k->kernel), k->P_data, k->P,
           fam == HC_FAMILY_DATAFIELD ? " or be 1" : "");
  HC_CHECK(k->layout == HC_LAYOUT_CELL_MAJOR || k->layout == HC_LAYOUT_CELL_MINOR, HC_ERR_INPUT, "invalid layout %d",
           (int)k->layout);
  HC_CHECK(k->precision == HC_DOUBLE || k->precision == HC_FLOAT, HC_ERR_INPUT, "invalid precision %d",
           (int)k->precision);
  HC_CHECK(k->variant >= 0 && k->variant < HC_NUM_VARIANTS, HC_ERR_INPUT, "invalid variant %d", (int)k->variant);
  return HC_OK;
}

void hc_contract_cost(const hc_contract *k, double *flops, double *bytes) {
  double s = (double)hc_precision_size(k->precision);
  double C = (double)k->C, L = (double)k->L, R = (double)k->R;
  double K = (double)hc_contract_K(k), Kd = (double)hc_contract_K_data(k);
  double out = (double)hc_contract_numel(k, HC_ARRAY_OUT) * (k->sum_into ? 2.0 : 1.0);
  switch (hc_kernel_family(k->kernel)) {
    case HC_FAMILY_FIELDFIELD:
      *flops = 2.0 * C * L * R * K;
      *bytes = s * (C * L * K + C * R * K + out);
      break;
    case HC_FAMILY_DATAFIELD:
      *flops = 2.0 * C * L * K;
      *bytes = s * (C * L * K + C * Kd + out);
      break;
    default:
      *flops = 2.0 * C * K;
      *bytes = s * (2.0 * C * K + out);
      break;
  }
}

/* Transposes a (rows x cols) matrix of elements of type T, in tiles that stay in cache. */
#define HC_TRANSPOSE_DEF(NAME, T)                                                                   \
  static void NAME(int64_t rows, int64_t cols, const T *src, T *dst) {                              \
    const int64_t tile = 32;                                                                        \
    for (int64_t i0 = 0; i0 < rows; i0 += tile)                                                     \
      for (int64_t j0 = 0; j0 < cols; j0 += tile) {                                                 \
        int64_t i1 = i0 + tile < rows ? i0 + tile : rows, j1 = j0 + tile < cols ? j0 + tile : cols; \
        for (int64_t i = i0; i < i1; i++)                                                           \
          for (int64_t j = j0; j < j1; j++) dst[j * rows + i] = src[i * cols + j];                  \
      }                                                                                             \
  }
HC_TRANSPOSE_DEF(hc_transpose_f64, double)
HC_TRANSPOSE_DEF(hc_transpose_f32, float)

int hc_layout_convert(const hc_contract *k, hc_array which, hc_layout src_layout, const void *src, hc_layout dst_layout,
                      void *dst) {
  int64_t C = k->C, inner = hc_contract_inner(k, which);
  size_t bytes = (size_t)(C * inner) * hc_precision_size(k->precision);
  HC_CHECK(src != dst, HC_ERR_INPUT, "hc_layout_convert works out of place");
  if (src_layout == dst_layout || C == 1 || inner == 1) {
    memcpy(dst, src, bytes);
    return HC_OK;
  }
  /* cell-major is a (C x inner) matrix, cell-minor its (inner x C) transpose. */
  int64_t rows = src_layout == HC_LAYOUT_CELL_MAJOR ? C : inner;
  int64_t cols = src_layout == HC_LAYOUT_CELL_MAJOR ? inner : C;
  if (k->precision == HC_FLOAT) {
    hc_transpose_f32(rows, cols, (const float *)src, (float *)dst);
  } else {
    hc_transpose_f64(rows, cols, (const double *)src, (double *)dst);
  }
  return HC_OK;
}

#define HC_BACKEND_NAME(id, name, built, option) #name,
const char *const hc_backend_names[HC_NUM_BACKENDS] = {HC_BACKEND_LIST(HC_BACKEND_NAME)};
#undef HC_BACKEND_NAME
const int hc_num_backend_names = HC_NUM_BACKENDS;

/* Each backend's table where it is built, NULL where not (built is a 0/1 switch of hc_config.h). */
#define HC_CAT_(a, b)                             a##b
#define HC_CAT(a, b)                              HC_CAT_(a, b)
#define HC_BACKEND_TABLE_0(name)                  NULL
#define HC_BACKEND_TABLE_1(name)                  &hc_backend_##name
#define HC_BACKEND_TABLE(id, name, built, option) HC_CAT(HC_BACKEND_TABLE_, built)(name),
static const hc_backend *const hc_backend_tables[HC_NUM_BACKENDS] = {HC_BACKEND_LIST(HC_BACKEND_TABLE)};
#undef HC_BACKEND_TABLE

#define HC_BACKEND_OPTION(id, name, built, option) option,
static const char *const hc_backend_options[HC_NUM_BACKENDS] = {HC_BACKEND_LIST(HC_BACKEND_OPTION)};
#undef HC_BACKEND_OPTION

/* Host arrays of at least this many bytes are asked to be backed by huge pages (see hc_host_alloc). */
#define HC_HOST_HUGE_MIN ((size_t)8 << 20)
#define HC_HOST_HUGE     ((size_t)2 << 20)

/* The core's defaults for what a backend's own table leaves NULL (see hc_backend). Host memory first: for host
   backends only. */

static int hc_host_alloc(size_t bytes, void **ptr) {
  *ptr = NULL;
  if (bytes == 0) return HC_OK;
  /* 64-byte alignment for vector loads; aligned_alloc wants a multiple of the alignment. Large arrays: 2 MB aligned
     and, on Linux, marked for transparent huge pages (madvise; only a hint, a no-op where the kernel has them off,
     and what "always" gives anyway): the cell-minor loops read rows C entries apart, a 4 KB page per entry, more
     pages than the TLB holds; and the first touch of gigabytes is thousands of page faults, not hundreds of
     thousands (the start-up copy's 1 GB on a 2-core VM: 1.7 s on small pages). */
  const size_t align = bytes >= HC_HOST_HUGE_MIN ? HC_HOST_HUGE : 64;
  size_t rounded = (bytes + align - 1) / align * align;
  void *p = aligned_alloc(align, rounded);
  HC_CHECK(p, HC_ERR_RESOURCE, "out of host memory allocating %zu bytes", bytes);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (align == HC_HOST_HUGE) (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
  *ptr = p;
  return HC_OK;
}

static int hc_host_free(void *ptr) {
  free(ptr);
  return HC_OK;
}

static int hc_host_copy(void *dst, const void *src, size_t bytes) {
  if (bytes) memmove(dst, src, bytes);
  return HC_OK;
}

static int hc_host_synchronize(void) {
  return HC_OK;
}

static int hc_host_mem_zero(void *ptr, size_t bytes) {
  if (bytes) memset(ptr, 0, bytes);
  return HC_OK;
}

static int hc_host_gather(const double *x, const int32_t *idx, int64_t n, double *buf) {
  for (int64_t i = 0; i < n; i++) buf[i] = x[idx[i]];
  return HC_OK;
}

static int hc_host_scatter(const double *buf, const int32_t *idx, int64_t n, double *x) {
  for (int64_t i = 0; i < n; i++) x[idx[i]] = buf[i];
  return HC_OK;
}

static int hc_host_waxpy(int64_t n, double a, const double *x, const double *y, double *w) {
  for (int64_t i = 0; i < n; i++) w[i] = a * x[i] + y[i];
  return HC_OK;
}

static int hc_host_sum(int narrays, const void *const *x, hc_precision precision, int64_t n, double *sums) {
  HC_CHECK(narrays >= 0 && narrays <= HC_SUM_ARRAYS_MAX, HC_ERR_RUNTIME, "sum of %d arrays (at most %d)", narrays,
           HC_SUM_ARRAYS_MAX);
  for (int a = 0; a < narrays; a++) {
    double t = 0;
    if (precision == HC_FLOAT) {
      for (int64_t i = 0; i < n; i++) t += (double)((const float *)x[a])[i];
    } else {
      for (int64_t i = 0; i < n; i++) t += ((const double *)x[a])[i];
    }
    sums[a] = t;
  }
  return HC_OK;
}

/* Host assembly on one core, cells in colour order (kernels/hc_assembly.h). */
static int hc_host_assemble_vector(const hc_contract *k, const hc_coloring *col, const void *out,
                                   const int32_t *cell_nodes, double *y) {
  return hc_assemble_vector_serial(col, k->L, k->layout, k->precision, out, cell_nodes, y);
}

static int hc_host_assemble_apply(const hc_contract *k, const hc_coloring *col, const void *A,
                                  const int32_t *cell_nodes, const double *u, double *y, double *abs_y) {
  return hc_assemble_apply_serial(col, k->L, k->layout, k->precision, A, cell_nodes, u, y, abs_y);
}

/* The wall clock (as app/hc_timer.h's hc_wtime): a host backend's work is done when its call returns. */
static double hc_timer_t0;

static double hc_clock_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int hc_clock_timer_start(void) {
  hc_timer_t0 = hc_clock_s();
  return HC_OK;
}

static int hc_clock_timer_stop(double *seconds) {
  *seconds = hc_clock_s() - hc_timer_t0;
  return HC_OK;
}

/* The wall clock at each mark of a host backend's timeline. */
static double hc_clock_marks[HC_MARKS_MAX];

static int hc_clock_mark(int i) {
  HC_CHECK(i >= 0 && i < HC_MARKS_MAX, HC_ERR_INPUT, "timeline mark %d: marks are 0..%d", i, HC_MARKS_MAX - 1);
  hc_clock_marks[i] = hc_clock_s();
  return HC_OK;
}

static int hc_clock_marks_read(int n, double *seconds) {
  HC_CHECK(n >= 1 && n <= HC_MARKS_MAX, HC_ERR_INPUT, "timeline: %d marks read, must be 1..%d", n, HC_MARKS_MAX);
  for (int i = 0; i < n; i++) seconds[i] = hc_clock_marks[i] - hc_clock_marks[0];
  return HC_OK;
}

/* A host backend's lanes: one queue, each call done when it returns; the arguments checked as a device's are. */
static int hc_host_lanes = 0; /* lanes of the open fork, 0 outside one */

static int hc_host_fork(int n) {
  HC_CHECK(!hc_host_lanes, HC_ERR_RUNTIME, "fork: lanes forked already, not joined");
  HC_CHECK(n >= 2 && n <= HC_LANES_MAX, HC_ERR_INPUT, "fork: %d lanes, must be 2..%d", n, HC_LANES_MAX);
  hc_host_lanes = n;
  return HC_OK;
}

static int hc_host_lane(int i) {
  HC_CHECK(i >= 0 && i < (hc_host_lanes ? hc_host_lanes : 1), HC_ERR_INPUT, "lane %d: %d lanes are open", i,
           hc_host_lanes ? hc_host_lanes : 1);
  return HC_OK;
}

static int hc_host_join(void) {
  HC_CHECK(hc_host_lanes, HC_ERR_RUNTIME, "join: no fork to join");
  hc_host_lanes = 0;
  return HC_OK;
}

/* Defaults for every backend. */
static int hc_no_device_name(char *buf, size_t size) {
  if (size) buf[0] = '\0';
  return HC_ERROR(HC_ERR_UNSUPPORTED, "the backend computes on the host and names no device");
}

static int hc_no_device_count(int *count) {
  *count = 0;
  return HC_OK;
}

static int hc_no_device_select(int device) {
  return HC_ERROR(HC_ERR_INPUT, "no device %d: the backend computes on the host", device);
}

static int hc_no_device_memory(size_t *free_bytes, size_t *total_bytes) {
  *free_bytes = *total_bytes = 0;
  return HC_ERROR(HC_ERR_UNSUPPORTED, "the backend computes on the host and has no device memory");
}

static int hc_one_variant(const hc_contract *k, hc_variant *variant) {
  *variant = k->variant;
  return HC_OK;
}

static int hc_no_peak_flops(hc_precision precision, int tensor_cores, double budget_s, double *flops_per_s, char *how,
                            size_t size) {
  (void)precision, (void)tensor_cores, (void)budget_s;
  *flops_per_s = 0;
  if (size) how[0] = '\0';
  return HC_ERROR(HC_ERR_UNSUPPORTED, "the backend reports no peak");
}

static int hc_no_version(char *buf, size_t size) {
  if (size) buf[0] = '\0';
  return HC_ERROR(HC_ERR_UNSUPPORTED, "the backend reports no version");
}

static int hc_no_fused(const struct hc_celldata_desc *desc, const hc_contract *k, void *out) {
  (void)desc, (void)k, (void)out;
  return HC_ERROR(HC_ERR_UNSUPPORTED, "fused assembly is not yet on this backend (run.assembly: materialized is)");
}

static int hc_no_fused_element(const struct hc_celldata_desc *desc, const hc_contract *k, void *out,
                               const int32_t *cell_nodes, const double *u, double *v) {
  (void)desc, (void)k, (void)out, (void)cell_nodes, (void)u, (void)v;
  return HC_ERROR(HC_ERR_UNSUPPORTED, "fused assembly with the element apply is not on this backend");
}

static int hc_no_fused_assemble(const struct hc_celldata_desc *desc, const hc_contract *k, void *out,
                                const int32_t *cell_nodes, const double *u, double *y) {
  (void)desc, (void)k, (void)out, (void)cell_nodes, (void)u, (void)y;
  return HC_ERROR(HC_ERR_UNSUPPORTED, "fused assembly into the nodal vector is not on this backend");
}

static int hc_each_call_checks(const struct hc_celldata_desc *desc) {
  (void)desc;
  return HC_OK;
}

static void hc_no_range_push(const char *name) {
  (void)name;
}

static void hc_no_range_pop(void) {}

static int hc_no_release(void) {
  return HC_OK;
}

/* Sets an operation that own leaves NULL: to the default where there is one, else (device backends) it is an
   error that names the operation. */
#define HC_DEFAULT(op, value)                                                                                 \
  do {                                                                                                        \
    if (!done->op) done->op = (value);                                                                        \
    HC_CHECK(done->op, HC_ERR_RUNTIME, "backend %s: its table lacks %s, which a device backend must provide", \
             own->name, #op);                                                                                 \
  } while (0)

/* own's table completed with the core's defaults into done (see hc_backend). */
static int hc_backend_complete(const hc_backend *own, hc_backend *done) {
  *done = *own;
  HC_CHECK(own->contract && own->supports && own->celldata, HC_ERR_RUNTIME,
           "backend %s: its table lacks contract, supports or celldata", own->name);
  const int host = !own->is_device;
  HC_DEFAULT(mem_alloc, host ? hc_host_alloc : NULL);
  HC_DEFAULT(mem_free, host ? hc_host_free : NULL);
  HC_DEFAULT(copy_to_device, host ? hc_host_copy : NULL);
  HC_DEFAULT(copy_to_host, host ? hc_host_copy : NULL);
  HC_DEFAULT(synchronize, host ? hc_host_synchronize : NULL);
  HC_DEFAULT(mem_zero, host ? hc_host_mem_zero : NULL);
  HC_DEFAULT(mem_copy, host ? hc_host_copy : NULL);
  HC_DEFAULT(gather, host ? hc_host_gather : NULL);
  HC_DEFAULT(scatter, host ? hc_host_scatter : NULL);
  HC_DEFAULT(waxpy, host ? hc_host_waxpy : NULL);
  HC_DEFAULT(sum, host ? hc_host_sum : NULL);
  HC_DEFAULT(assemble_vector, host ? hc_host_assemble_vector : NULL);
  HC_DEFAULT(assemble_apply, host ? hc_host_assemble_apply : NULL);
  HC_DEFAULT(timer_start, host ? hc_clock_timer_start : NULL);
  HC_DEFAULT(timer_stop, host ? hc_clock_timer_stop : NULL);
  HC_DEFAULT(mark, host ? hc_clock_mark : NULL);
  HC_DEFAULT(marks_read, host ? hc_clock_marks_read : NULL);
  HC_DEFAULT(fork, hc_host_fork);
  HC_DEFAULT(lane, hc_host_lane);
  HC_DEFAULT(join, hc_host_join);
  HC_DEFAULT(celldata_check, hc_each_call_checks);
  HC_DEFAULT(fused, hc_no_fused);
  HC_DEFAULT(fused_element, hc_no_fused_element);
  HC_DEFAULT(fused_assemble, hc_no_fused_assemble);
  HC_DEFAULT(device_name, hc_no_device_name);
  HC_DEFAULT(device_count, hc_no_device_count);
  HC_DEFAULT(device_select, hc_no_device_select);
  HC_DEFAULT(device_memory, hc_no_device_memory);
  HC_DEFAULT(chosen_variant, hc_one_variant);
  HC_DEFAULT(peak_flops, hc_no_peak_flops);
  HC_DEFAULT(version, hc_no_version);
  HC_DEFAULT(range_push, hc_no_range_push);
  HC_DEFAULT(range_pop, hc_no_range_pop);
  HC_DEFAULT(release, hc_no_release);
  return HC_OK;
}
#undef HC_DEFAULT

int hc_fused_check(const hc_backend *backend) {
  HC_CHECK(backend, HC_ERR_INPUT, "no backend");
  HC_CHECK(backend->fused && backend->fused != hc_no_fused, HC_ERR_UNSUPPORTED,
           "fused assembly is not yet on backend %s", backend->name);
  return HC_OK;
}

int hc_fused_element_check(const hc_backend *backend) {
  HC_CHECK(backend, HC_ERR_INPUT, "no backend");
  HC_CHECK(backend->fused_element && backend->fused_element != hc_no_fused_element, HC_ERR_UNSUPPORTED,
           "fused assembly with the element apply is not on backend %s", backend->name);
  return HC_OK;
}

int hc_fused_assemble_check(const hc_backend *backend) {
  HC_CHECK(backend, HC_ERR_INPUT, "no backend");
  HC_CHECK(backend->fused_assemble && backend->fused_assemble != hc_no_fused_assemble, HC_ERR_UNSUPPORTED,
           "fused assembly into the nodal vector is not on backend %s", backend->name);
  return HC_OK;
}

/* The completed tables, filled at a backend's first lookup (from the process's main thread). */
static hc_backend hc_backend_done[HC_NUM_BACKENDS];
static int hc_backend_ready[HC_NUM_BACKENDS];

int hc_backend_is(const hc_backend *backend, hc_backend_id id) {
  return id >= 0 && id < HC_NUM_BACKENDS && backend && hc_backend_ready[id] && &hc_backend_done[id] == backend;
}

int hc_backend_get(hc_backend_id id, const hc_backend **backend) {
  HC_CHECK(id >= 0 && id < HC_NUM_BACKENDS, HC_ERR_INPUT, "invalid backend id %d", (int)id);
  HC_CHECK(hc_backend_tables[id], HC_ERR_NOT_BUILT,
           "backend '%s' is not built into this binary (reconfigure with -D%s=ON)", hc_backend_names[id],
           hc_backend_options[id]);
  if (!hc_backend_ready[id]) {
    HC_CALL(hc_backend_complete(hc_backend_tables[id], &hc_backend_done[id]));
    hc_backend_ready[id] = 1;
  }
  *backend = &hc_backend_done[id];
  return HC_OK;
}

int hc_backend_find(const char *name, const hc_backend **backend) {
  for (int i = 0; i < HC_NUM_BACKENDS; i++) {
    if (name && strcmp(name, hc_backend_names[i]) == 0) return hc_backend_get((hc_backend_id)i, backend);
  }
  char names[256];
  hc_names_format(hc_backend_names, HC_NUM_BACKENDS, " or ", names, sizeof(names));
  return HC_ERROR(HC_ERR_INPUT, "unknown backend '%s' (expected %s)", name ? name : "(null)", names);
}

int hc_contract_apply(const hc_backend *backend, const hc_contract *k, const void *left, const void *right, void *out) {
  HC_CALL(hc_contract_validate(k));
  HC_CALL(backend->supports(k));
  return backend->contract(k, left, right, out);
}
