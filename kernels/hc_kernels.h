/* The public interface of the compute layer: the nine Intrepid contractions, their shapes, layouts,
   precisions and cost model, and the backend table through which every backend runs them. */
#ifndef HC_KERNELS_H
#define HC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/base/hc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The three families of contraction and the rank of the contracted point data. */
typedef enum { HC_FAMILY_DATADATA = 0, HC_FAMILY_DATAFIELD = 1, HC_FAMILY_FIELDFIELD = 2 } hc_family;
typedef enum { HC_RANK_SCALAR = 0, HC_RANK_VECTOR = 1, HC_RANK_TENSOR = 2 } hc_rank;

/* The lists below are the only place where kernels, variants and backends are named: each generates its
   enum here and its names, messages, option help and deck values elsewhere (README.md, "Adding a variant or a
   backend"). Each entry is X(ID, name, ...); ID gives the enum value (HC_<ID> for kernels, HC_VARIANT_<ID>,
   HC_BACKEND_<ID>), name is written as a C identifier and used as a string through #name. */

/* The nine contractions, in the order kernel = 3 * family + rank: X(ID, name). */
#define HC_KERNEL_LIST(X)                \
  X(DATADATA_SCALAR, DataDataScalar)     \
  X(DATADATA_VECTOR, DataDataVector)     \
  X(DATADATA_TENSOR, DataDataTensor)     \
  X(DATAFIELD_SCALAR, DataFieldScalar)   \
  X(DATAFIELD_VECTOR, DataFieldVector)   \
  X(DATAFIELD_TENSOR, DataFieldTensor)   \
  X(FIELDFIELD_SCALAR, FieldFieldScalar) \
  X(FIELDFIELD_VECTOR, FieldFieldVector) \
  X(FIELDFIELD_TENSOR, FieldFieldTensor)

/* Every backend hexcontract knows, built or not, in the order that help texts and --version list them:
   X(ID, name, built, option). built: the hc_config.h switch (0/1) saying whether it is in this binary (1 for
   the serial reference, always built); option: the CMake option that builds it ("" for serial). A backend's
   table, hc_backend_<name>, is defined by its own directory kernels/<name>/. */
#define HC_BACKEND_LIST(X)                              \
  X(SERIAL, serial, 1, "")                              \
  X(OPENMP, openmp, HC_HAVE_OPENMP, "HC_ENABLE_OPENMP") \
  X(CUDA, cuda, HC_HAVE_CUDA, "HC_ENABLE_CUDA")         \
  X(INTREPID2, intrepid2, HC_HAVE_INTREPID2, "HC_ENABLE_INTREPID2")

/* The kernel algorithms, auto first: X(ID, name, backend, flags, description). backend: the ID of the
   backend that provides it, or ALL for auto (every backend's own choice; the CPU backends have only that).
   A variant of the CUDA backend is the pair hc_supports_cuda_<name> and hc_contract_cuda_<name> of
   kernels/cuda/contract_<name>.cu; its declarations and dispatch entry are generated from this list.
   flags: HC_VARIANT_TENSOR_CORES (double precision runs on the tensor-core units, measured against their
   peak), HC_VARIANT_VENDOR (a vendor library's, the references that the bench compares ours with: on each case
   the fastest of them). */
#define HC_VARIANT_LIST(X)                                                                                 \
  X(AUTO, auto, ALL, 0, "the backend's choice for the shape (on cuda the fastest, tuned once per shape)")  \
  X(FLAT, flat, CUDA, 0, "one thread per output entry")                                                    \
  X(TEAM, team, CUDA, 0, "a warp, or a sub-warp group when K is short, per output entry")                  \
  X(SLICE, slice, CUDA, 0, "one shared-memory slice of the cell per block")                                \
  X(ADAPTIVE, adaptive, CUDA, 0, "several shared-memory slices per block, sized to the shape")             \
  X(TILE, tile, CUDA, 0, "shared-memory tiles over (l, r) and the contracted index")                       \
  X(TENSORCORE, tensorcore, CUDA, HC_VARIANT_TENSOR_CORES, "FP64 tensor cores, mma.sync m8n8k4 on sm_80+") \
  X(CUBLAS, cublas, CUDA, HC_VARIANT_TENSOR_CORES | HC_VARIANT_VENDOR,                                     \
    "the vendor library cuBLAS: strided-batched GEMM and GEMV")                                            \
  X(CUBLASLT, cublaslt, CUDA, HC_VARIANT_TENSOR_CORES | HC_VARIANT_VENDOR,                                 \
    "the vendor library cuBLASLt: strided-batched matmul, its heuristic's best algorithm per shape")

/* The nine contractions; kernel = 3 * family + rank. */
#define HC_KERNEL_ENUM(id, name) HC_##id,
typedef enum { HC_KERNEL_LIST(HC_KERNEL_ENUM) HC_NUM_KERNELS } hc_kernel;
#undef HC_KERNEL_ENUM

/* Memory layout of every array of a contraction. Inner indices (l, r, p, i, j) are always in C
   order; only the cell index moves. Cell-major: C slowest ([C][L][P][D], NumPy order).
   Cell-minor: C fastest ([L][P][D][C]), so that neighbouring GPU threads read neighbouring cells. */
typedef enum { HC_LAYOUT_CELL_MAJOR = 0, HC_LAYOUT_CELL_MINOR = 1 } hc_layout;

typedef enum { HC_DOUBLE = 0, HC_FLOAT = 1 } hc_precision;

/* Kernel algorithms (HC_VARIANT_LIST). CPU backends offer `auto` only; the CUDA backend offers the GPU family. */
#define HC_VARIANT_ENUM(id, name, backend, flags, description) HC_VARIANT_##id,
typedef enum { HC_VARIANT_LIST(HC_VARIANT_ENUM) HC_NUM_VARIANTS } hc_variant;
#undef HC_VARIANT_ENUM

/* Backends (HC_BACKEND_LIST), built or not. */
#define HC_BACKEND_ENUM(id, name, built, option) HC_BACKEND_##id,
typedef enum { HC_BACKEND_LIST(HC_BACKEND_ENUM) HC_NUM_BACKENDS } hc_backend_id;
#undef HC_BACKEND_ENUM

/* Flags of a variant (HC_VARIANT_LIST). */
enum { HC_VARIANT_TENSOR_CORES = 1, HC_VARIANT_VENDOR = 2 };

/* Which array of a contraction. */
typedef enum { HC_ARRAY_LEFT = 0, HC_ARRAY_RIGHT = 1, HC_ARRAY_OUT = 2 } hc_array;

/* One contraction problem: what is computed, on which shapes, in which layout and precision.
   Shapes (cell-major order; see hc_contract_shape):
     DataData   left (C,P[,D[,D]])      right (C,P[,D[,D]])        out (C)
     DataField  left (C,L,P[,D[,D]])    right (C,Pd[,D[,D]])       out (C,L)   Pd = P or 1
     FieldField left (C,L,P[,D[,D]])    right (C,R,P[,D[,D]])      out (C,L,R) */
typedef struct {
  hc_kernel kernel;
  int64_t C;  /* cells */
  int L;      /* left fields (1 for DataData) */
  int R;      /* right fields (1 unless FieldField) */
  int P;      /* quadrature points */
  int D;      /* space dimension of Vector and Tensor data (1 for Scalar) */
  int P_data; /* points of the DataField data array: P, or 1 for data constant over points */
  hc_layout layout;
  hc_precision precision;
  hc_variant variant;
  int sum_into; /* nonzero: add into out instead of overwriting it */
} hc_contract;

/* Names, as in kernels/README.md ("FieldFieldTensor") and on the command line ("cell-minor", "tile"). */
const char *hc_kernel_name(hc_kernel kernel);
int hc_kernel_from_name(const char *name, hc_kernel *kernel);
hc_family hc_kernel_family(hc_kernel kernel);
hc_rank hc_kernel_rank(hc_kernel kernel);
const char *hc_layout_name(hc_layout layout);
int hc_layout_from_name(const char *name, hc_layout *layout);
const char *hc_precision_name(hc_precision precision);
const char *hc_variant_name(hc_variant variant);
int hc_variant_from_name(const char *name, hc_variant *variant);
size_t hc_precision_size(hc_precision precision);

/* A variant's properties from HC_VARIANT_LIST: its one-line description, its flags (HC_VARIANT_TENSOR_CORES,
   HC_VARIANT_VENDOR), and whether backend provides it (auto: every backend). */
const char *hc_variant_description(hc_variant variant);
int hc_variant_flags(hc_variant variant);
int hc_variant_provided(hc_variant variant, hc_backend_id backend);
/* HC_OK when backend provides variant, else HC_ERR_UNSUPPORTED naming the variants it has. */
int hc_variant_check(hc_variant variant, hc_backend_id backend);

/* The names of a list for messages and help: "a, b, c or d" with last " or ", "a, b, c, d" with last ", ".
   hc_kernel_names, hc_variant_names and hc_backend_names are the lists of names in enum order. */
void hc_names_format(const char *const *names, int n, const char *last, char *buf, size_t size);
extern const char *const hc_kernel_names[HC_NUM_KERNELS];
extern const char *const hc_variant_names[HC_NUM_VARIANTS];

/* Fills k with the defaults (C=1, L=R=P=D=P_data=1, cell-major, double, auto, overwrite). */
void hc_contract_init(hc_contract *k, hc_kernel kernel);

/* Checks that the sizes in k are positive and consistent for its kernel. */
int hc_contract_validate(const hc_contract *k);

/* The cell-major shape of one array of k: *ndim dimensions in dims[0..5]. */
void hc_contract_shape(const hc_contract *k, hc_array which, int *ndim, int64_t dims[6]);

/* Derives C, L, R, P, D and P_data of kernel k from the shapes of its left and right arrays.
   A shape that does not fit the kernel, or left and right shapes that disagree, is HC_ERR_INPUT
   with a message that names both shapes. Other fields of k are left as they are. */
int hc_contract_from_shapes(hc_contract *k, int left_ndim, const int64_t *left_dims, int right_ndim,
                            const int64_t *right_dims);

/* Formats a shape as "(2, 8, 27, 3)". */
void hc_shape_format(int ndim, const int64_t *dims, char *buf, size_t size);

/* Entries of one array of k, and its extent per cell (the product of its inner dimensions). */
int64_t hc_contract_numel(const hc_contract *k, hc_array which);
int64_t hc_contract_inner(const hc_contract *k, hc_array which);

/* Contracted length K = P * D^rank, and the data array's K_data = P_data * D^rank. */
int64_t hc_contract_K(const hc_contract *k);

/* The cost model of kernels/README.md: floating-point operations and bytes moved by one call. */
void hc_contract_cost(const hc_contract *k, double *flops, double *bytes);

/* Converts one array of k between layouts on the host (out of place): src and dst hold
   hc_contract_numel(k, which) scalars of k->precision. */
int hc_layout_convert(const hc_contract *k, hc_array which, hc_layout src_layout, const void *src, hc_layout dst_layout,
                      void *dst);

/* A backend: a table of function pointers filled with designated initialisers. Pointers passed to a
   backend's functions live in that backend's memory (host memory for serial, openmp and intrepid2, device
   memory for cuda). A backend's own table (hc_backend_<name>) names what is its own; hc_backend_find and
   hc_backend_get give the table completed by the core (libCEED's "optional operations defaulted by the
   core"), in which no pointer is NULL, so that callers never test one:
     every backend provides  contract, supports, celldata;
     a device backend also   mem_alloc, mem_free, copy_to_device, copy_to_host, synchronize, mem_zero, mem_copy,
                             gather, scatter, waxpy, sum, assemble_vector, assemble_apply, timer_start, timer_stop,
                             mark, marks_read (the core defaults them on host backends only: host memory, one-core
                             assembly by colours, the wall clock);
     the rest is optional    (fused, fused_element, fused_assemble, celldata_check, fork, lane, join, device_*,
                             chosen_variant, peak_flops, version, range_*, release: see each default below).
   A backend lacking an operation it must provide is an HC_ERR_RUNTIME at lookup that names it. */
/* The most arrays one call of hc_backend.sum takes. */
#define HC_SUM_ARRAYS_MAX 8
/* The most marks of hc_backend.mark between two calls of marks_read. */
#define HC_MARKS_MAX 64
/* The most lanes of hc_backend.fork. */
#define HC_LANES_MAX 4

struct hc_celldata_desc; /* kernels/hc_celldata.h */
struct hc_coloring;      /* kernels/hc_assembly.h */
/* hc_backend.geometry_cache's bits: celldata takes it, fused (hc_fused_apply, hc_fused_element) takes it. */
enum { HC_GEOMETRY_CACHE_CELLDATA = 1, HC_GEOMETRY_CACHE_FUSED = 2 };

typedef struct hc_backend {
  const char *name;
  const char *description;
  int is_device;      /* nonzero when its memory is not host memory */
  int openmp_threads; /* nonzero when a call runs on the host on OpenMP's threads (omp_get_max_threads) */
  int geometry_cache; /* the calls that take hc_celldata_desc.geometry_cache (the points' geometry kept by the first
                         call at one time for the calls after it): HC_GEOMETRY_CACHE_CELLDATA and
                         HC_GEOMETRY_CACHE_FUSED bits, 0 for none */
  /* Runs the contraction k: out = left . right (or out += with k->sum_into). Arrays in k->layout. */
  int (*contract)(const hc_contract *k, const void *left, const void *right, void *out);
  /* Whether k (its variant, shapes, precision) is supported: HC_OK, or HC_ERR_UNSUPPORTED with why. */
  int (*supports)(const hc_contract *k);
  /* Fills the left and right arrays of kernel from the cells of desc (see hc_celldata_fill). */
  int (*celldata)(const struct hc_celldata_desc *desc, hc_kernel kernel, void *left, void *right);
  /* The check of the cells of the celldata and fused calls made with desc->check_later since the last check (on
     cells of desc's mesh): waits for them, and an inverted or degenerate cell among them is HC_ERR_INPUT naming the
     lowest, as celldata's own check would. Default: HC_OK, the host backends checking in each call. */
  int (*celldata_check)(const struct hc_celldata_desc *desc);
  /* Fused assembly (see hc_fused_apply): k's output, the array that celldata and contract together write, from the
     cells of desc directly, storing no left or right array. k: hc_celldata_contract's problem for k->kernel, with
     its sum_into. Default: HC_ERR_UNSUPPORTED, "fused assembly is not yet on this backend". */
  int (*fused)(const struct hc_celldata_desc *desc, const hc_contract *k, void *out);
  /* Fused assembly with FieldField's element apply (see hc_fused_element): as fused for a square FieldField k,
     and also v[c][l] = sum_r out[c,l,r] u[cell_nodes[c][r]] while each cell's matrix is in the kernel's scratch;
     HC_ERR_UNSUPPORTED, doing nothing, where it does not take k's case, and with out NULL only that answer
     (hc_fused_element_takes). Default: HC_ERR_UNSUPPORTED for every case (hc_fused_element_check). */
  int (*fused_element)(const struct hc_celldata_desc *desc, const hc_contract *k, void *out, const int32_t *cell_nodes,
                       const double *u, double *v);
  /* Fused assembly into the nodal vector (see hc_fused_assemble): as fused for a DataField k, or fused_element for a
     square FieldField k, and also adds each cell's nodal values into y[cell_nodes[c][l]] (DataField: out[c,l] as
     stored; FieldField: the element apply's rows) in the kernel that forms them; HC_ERR_UNSUPPORTED, doing
     nothing, where it does not take k's case, and with out NULL only that answer (hc_fused_assemble_takes).
     Default: HC_ERR_UNSUPPORTED for every case. */
  int (*fused_assemble)(const struct hc_celldata_desc *desc, const hc_contract *k, void *out, const int32_t *cell_nodes,
                        const double *u, double *y);
  /* The backend's memory (default: 64-byte aligned host memory, memmove, nothing to wait for). mem_zero zeroes
     bytes; mem_copy copies bytes between two buffers of the backend's memory with its own copy kernel, queued
     like a contraction (its bandwidth is the bench's memory roof). */
  int (*mem_alloc)(size_t bytes, void **ptr);
  int (*mem_free)(void *ptr);
  int (*copy_to_device)(void *dst, const void *h_src, size_t bytes);
  int (*copy_to_host)(void *h_dst, const void *src, size_t bytes);
  int (*synchronize)(void);
  int (*mem_zero)(void *ptr, size_t bytes);
  int (*mem_copy)(void *dst, const void *src, size_t bytes);
  /* buf[i] = x[idx[i]] and x[idx[i]] = buf[i] for i < n, doubles, all in the backend's memory: the shared nodes
     of a nodal vector on their way to and from the halo exchange (default: host loops). */
  int (*gather)(const double *x, const int32_t *idx, int64_t n, double *buf);
  int (*scatter)(const double *buf, const int32_t *idx, int64_t n, double *x);
  /* w[i] = a x[i] + y[i] for i < n, doubles in the backend's memory, queued on its stream: the nodal interpolant
     of a step computed where the assembly uses it (default: a host loop). */
  int (*waxpy)(int64_t n, double a, const double *x, const double *y, double *w);
  /* sums[a] = x[a][0] + ... + x[a][n-1] for a < narrays (at most HC_SUM_ARRAYS_MAX): arrays of n numbers of
     precision in the backend's memory, each summed in double in an order that depends on n only (the same array
     gives the same bits every call), the sums on the host (waits for the backend's queued work): the DataData
     reductions of a step without bringing their C values to the host, at the cost of one round trip (default: a
     host loop in index order). */
  int (*sum)(int narrays, const void *const *x, hc_precision precision, int64_t n, double *sums);
  /* Assembly in the backend's memory, so that element outputs stay there. assemble_vector:
     y[cell_nodes[c][l]] += out[c,l] for a DataField k; assemble_apply: y[cell_nodes[c][l]] +=
     sum_r A[c,l,r] u[cell_nodes[c][r]] for a FieldField k with L = R. cell_nodes: [C][L] int32, y and u: nodal
     vectors of doubles, all in the backend's memory; col: the cells by colour (host memory), for a host
     backend's parallel loops (a device backend may ignore it). abs_y (NULL: none), a nodal vector like y, also
     accumulates sum_r |A[c,l,r] u[...]|, the scale of the patch test's tolerance (app/checks.c); host backends
     only (a device backend answers HC_ERR_UNSUPPORTED). Default: kernels/hc_assembly.h on one core, cells in
     colour order (the openmp backend names its threaded loops). */
  int (*assemble_vector)(const hc_contract *k, const struct hc_coloring *col, const void *out,
                         const int32_t *cell_nodes, double *y);
  int (*assemble_apply)(const hc_contract *k, const struct hc_coloring *col, const void *A, const int32_t *cell_nodes,
                        const double *u, double *y, double *abs_y);
  /* Timing of the work queued between timer_start and timer_stop on the backend's stream (CUDA events);
     timer_stop waits for that work and gives its seconds. Default: the wall clock between the two calls, the
     host backends' work being done when a call returns. Not nested. */
  int (*timer_start)(void);
  int (*timer_stop)(double *seconds);
  /* A timeline of the work queued on the backend's stream, read without waiting between its parts: mark(i)
     records mark i (0 <= i < HC_MARKS_MAX; CUDA: an event on the current lane's stream, so that its time is when
     the work queued on that lane before it is done), and marks_read(n, seconds) waits for every mark 0 .. n - 1
     (recorded since the last read) and gives seconds[i] = the time of mark i less that of mark 0 (seconds[0] = 0).
     Default: the wall clock at each mark, the host backends' work being done when a call returns. */
  int (*mark)(int i);
  int (*marks_read)(int n, double *seconds);
  /* Lanes: queues of the device that run side by side (CUDA: streams), for calls that neither read nor write
     what another lane's calls write. fork(n), 2 <= n <= HC_LANES_MAX, outside a fork: the work queued after it
     goes on lane 0 (the backend's stream; current after fork) .. n - 1 as lane(i) picks, each lane starting after
     all the work queued before the fork; join(): back to the backend's stream alone, its work queued after the
     join starting after every lane's. Calls that wait (copies to the host, sum, celldata_check, synchronize)
     belong outside a fork. Default: nothing to do (a host backend's call is done when it returns), n and i
     checked as a device backend checks them. */
  int (*fork)(int n);
  int (*lane)(int i);
  int (*join)(void);
  /* The device this rank computes on, e.g. "NVIDIA H100 80GB HBM3 (device 0, PCI 0000:19:00.0)". Default:
     HC_ERR_UNSUPPORTED, the host backends' device being the host, which the app describes itself. */
  int (*device_name)(char *buf, size_t size);
  /* How many devices this process sees, and choosing the one it uses (without a choice: the current device,
     CUDA's 0). Selecting another device frees what the backend kept on the one before (see release). Default: no
     device (0; device_select is HC_ERR_INPUT). */
  int (*device_count)(int *count);
  int (*device_select)(int device);
  /* Free and total bytes of the selected device's memory. Default: HC_ERR_UNSUPPORTED. */
  int (*device_memory)(size_t *free_bytes, size_t *total_bytes);
  /* The variant that runs k, which for auto is the one chosen for k's shape (HC_VARIANT_AUTO while none has been
     chosen yet). Default: k->variant (a backend with one algorithm). */
  int (*chosen_variant)(const hc_contract *k, hc_variant *variant);
  /* The peak flop rate of the device in precision, in flops per second; with tensor_cores nonzero, that of the
     units a tensor-core variant (tensorcore, cublas, cublaslt) uses, the same as without where there are none. how
     (size bytes) says where the number comes from (a table or a measurement). budget_s: about how many seconds a
     measured peak may take (the CPU backends measure it; 0: the bench's thorough default of about 0.3 s per
     instruction set); a peak from a table ignores it. Default: HC_ERR_UNSUPPORTED, "the backend reports no
     peak". */
  int (*peak_flops)(hc_precision precision, int tensor_cores, double budget_s, double *flops_per_s, char *how,
                    size_t size);
  /* The runtime the backend runs on and its versions, e.g. "CUDA runtime 13.0, driver 12.8, 2 devices", for
     hexcontract --version. Needs no device: one that is missing is said in buf, not an error. Default:
     HC_ERR_UNSUPPORTED (nothing beyond the backend's description). */
  int (*version)(char *buf, size_t size);
  /* Opens and closes a named range on a profiler's timeline (NVTX on CUDA, so that an nsys timeline shows the
     step's phases and kernels), nested like a stack. Near-free when no profiler is attached. name is copied by
     the profiler. Default: nothing. */
  void (*range_push)(const char *name);
  void (*range_pop)(void);
  /* Frees the state the backend keeps between calls (CUDA: its context, kernels/cuda/hc_cuda_context.cuh: the
     auto tuner's choices, the basis tables and timer events on the device, the cuBLAS handle, the cuBLASLt
     handle with its plans and workspace), as its user's last call; a later call creates it again. Default:
     nothing (the host backends keep no state). */
  int (*release)(void);
} hc_backend;

/* Names of every backend hexcontract knows, built or not (HC_BACKEND_LIST): "serial", "openmp", "cuda",
   "intrepid2". */
extern const char *const hc_backend_names[HC_NUM_BACKENDS];
extern const int hc_num_backend_names;

/* Looks a backend up by name and gives its completed table (no NULL pointer; see hc_backend). A known backend
   that was not built gives HC_ERR_NOT_BUILT ("not built into this binary"); an unknown name gives HC_ERR_INPUT. */
int hc_backend_find(const char *name, const hc_backend **backend);

/* The same by id: hc_backend_get(HC_BACKEND_SERIAL, &b) is the serial reference. */
int hc_backend_get(hc_backend_id id, const hc_backend **backend);

/* Whether backend is the table of backend id (0 when id is not built). Sets no error. */
int hc_backend_is(const hc_backend *backend, hc_backend_id id);

/* HC_OK when backend has its own fused operation (hc_backend.fused), else HC_ERR_UNSUPPORTED saying that fused
   assembly is not yet on it. */
int hc_fused_check(const hc_backend *backend);

/* HC_OK when backend has its own fused operation with the element apply (hc_backend.fused_element), else
   HC_ERR_UNSUPPORTED. */
int hc_fused_element_check(const hc_backend *backend);

/* HC_OK when backend has its own fused operation into the nodal vector (hc_backend.fused_assemble), else
   HC_ERR_UNSUPPORTED saying that it has not. */
int hc_fused_assemble_check(const hc_backend *backend);

/* Validates k, asks the backend whether it supports k, then runs it. */
int hc_contract_apply(const hc_backend *backend, const hc_contract *k, const void *left, const void *right, void *out);

/* The backends' own tables, each defined by its backend when it is built: what is its own, the rest NULL.
   Callers use the completed table of hc_backend_find or hc_backend_get instead. */
#define HC_BACKEND_TABLE_DECLARE(id, name, built, option) extern const hc_backend hc_backend_##name;
HC_BACKEND_LIST(HC_BACKEND_TABLE_DECLARE)
#undef HC_BACKEND_TABLE_DECLARE

#ifdef __cplusplus
}
#endif

#endif
