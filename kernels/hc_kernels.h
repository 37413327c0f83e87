/* The public interface of the compute layer: the nine Intrepid contractions, their shapes, layouts,
   precisions and cost model, and the backend table through which every backend runs them. */
#ifndef HC_KERNELS_H
#define HC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/hc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The three families of contraction and the rank of the contracted point data. */
typedef enum { HC_FAMILY_DATADATA = 0, HC_FAMILY_DATAFIELD = 1, HC_FAMILY_FIELDFIELD = 2 } hc_family;
typedef enum { HC_RANK_SCALAR = 0, HC_RANK_VECTOR = 1, HC_RANK_TENSOR = 2 } hc_rank;

/* The nine contractions; kernel = 3 * family + rank. */
typedef enum {
  HC_DATADATA_SCALAR = 0,
  HC_DATADATA_VECTOR,
  HC_DATADATA_TENSOR,
  HC_DATAFIELD_SCALAR,
  HC_DATAFIELD_VECTOR,
  HC_DATAFIELD_TENSOR,
  HC_FIELDFIELD_SCALAR,
  HC_FIELDFIELD_VECTOR,
  HC_FIELDFIELD_TENSOR,
  HC_NUM_KERNELS
} hc_kernel;

/* Memory layout of every array of a contraction. Inner indices (l, r, p, i, j) are always in C
   order; only the cell index moves. Cell-major: C slowest ([C][L][P][D], NumPy order).
   Cell-minor: C fastest ([L][P][D][C]), so that neighbouring GPU threads read neighbouring cells. */
typedef enum { HC_LAYOUT_CELL_MAJOR = 0, HC_LAYOUT_CELL_MINOR = 1 } hc_layout;

typedef enum { HC_DOUBLE = 0, HC_FLOAT = 1 } hc_precision;

/* Kernel algorithms. CPU backends offer `auto` only; the CUDA backend offers the GPU family. */
typedef enum {
  HC_VARIANT_AUTO = 0,
  HC_VARIANT_FLAT,
  HC_VARIANT_TEAM,
  HC_VARIANT_SLICE,
  HC_VARIANT_ADAPTIVE,
  HC_VARIANT_TILE,
  HC_VARIANT_TENSORCORE,
  HC_VARIANT_CUBLAS,
  HC_NUM_VARIANTS
} hc_variant;

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
   backend's functions live in that backend's memory (host memory for serial and openmp, device
   memory for cuda). */
struct hc_celldata_desc; /* kernels/hc_celldata.h */
typedef struct hc_backend {
  const char *name;
  const char *description;
  int is_device; /* nonzero when its memory is not host memory */
  /* Runs the contraction k: out = left . right (or out += with k->sum_into). Arrays in k->layout. */
  int (*contract)(const hc_contract *k, const void *left, const void *right, void *out);
  /* Whether k (its variant, shapes, precision) is supported: HC_OK, or HC_ERR_UNSUPPORTED with why. */
  int (*supports)(const hc_contract *k);
  int (*mem_alloc)(size_t bytes, void **ptr);
  int (*mem_free)(void *ptr);
  int (*copy_to_device)(void *dst, const void *h_src, size_t bytes);
  int (*copy_to_host)(void *h_dst, const void *src, size_t bytes);
  int (*synchronize)(void);
  /* Fills the left and right arrays of kernel from the cells of desc (see hc_celldata_fill); NULL when the
     backend computes no cell data. */
  int (*celldata)(const struct hc_celldata_desc *desc, hc_kernel kernel, void *left, void *right);
  /* The device this rank computes on, e.g. "NVIDIA H100 80GB HBM3 (device 0, PCI 0000:19:00.0)"; NULL on the
     CPU backends, whose device the app describes itself. */
  int (*device_name)(char *buf, size_t size);
  /* Optional (NULL on the CPU backends): how many devices this process sees, and choosing the one it
     uses; device_select is called before any other call of the backend. */
  int (*device_count)(int *count);
  int (*device_select)(int device);
  /* Optional: free and total bytes of the selected device's memory. */
  int (*device_memory)(size_t *free_bytes, size_t *total_bytes);
  /* Optional (device backends): assembly in the backend's memory, so that element outputs stay there.
     assemble_vector: y[cell_nodes[c][l]] += out[c,l] for a DataField k; assemble_apply:
     y[cell_nodes[c][l]] += sum_r A[c,l,r] u[cell_nodes[c][r]] for a FieldField k with L = R. cell_nodes:
     [C][L] int32, y and u: nodal vectors of doubles, all in the backend's memory. mem_zero zeroes bytes. */
  int (*assemble_vector)(const hc_contract *k, const void *out, const int32_t *cell_nodes, double *y);
  int (*assemble_apply)(const hc_contract *k, const void *A, const int32_t *cell_nodes, const double *u, double *y);
  int (*mem_zero)(void *ptr, size_t bytes);
  /* Optional (device backends): buf[i] = x[idx[i]] and x[idx[i]] = buf[i] for i < n, doubles, all in the
     backend's memory: the shared nodes of a nodal vector on their way to and from the halo exchange. */
  int (*gather)(const double *x, const int32_t *idx, int64_t n, double *buf);
  int (*scatter)(const double *buf, const int32_t *idx, int64_t n, double *x);
  /* Optional (NULL where a backend has only one algorithm): the variant that runs k, which for auto
     is the one chosen for k's shape (HC_VARIANT_AUTO while none has been chosen yet). */
  int (*chosen_variant)(const hc_contract *k, hc_variant *variant);
  /* Optional, for `hexcontract bench`: copies bytes between two buffers of the backend's memory with the
     backend's own copy kernel, queued like a contraction (its bandwidth is the bench's memory roof). */
  int (*mem_copy)(void *dst, const void *src, size_t bytes);
  /* Optional: the peak flop rate of the device in precision, in flops per second; with tensor_cores
     nonzero, that of the units a tensor-core variant (tensorcore, cublas) uses, the same as without where
     there are none. how (size bytes) says where the number comes from (a table or a measurement).
     budget_s: about how many seconds a measured peak may take (the CPU backends measure it; 0: the bench's
     thorough default of about 0.3 s per instruction set); a peak from a table ignores it. */
  int (*peak_flops)(hc_precision precision, int tensor_cores, double budget_s, double *flops_per_s, char *how,
                    size_t size);
  /* Optional (NULL: the host clock after synchronize): device-side timing of the work queued between
     timer_start and timer_stop on the backend's stream (CUDA events); timer_stop waits for that work and
     gives its seconds. */
  int (*timer_start)(void);
  int (*timer_stop)(double *seconds);
  /* Optional (NULL: nothing beyond the backend's name): the runtime the backend runs on and its versions, e.g.
     "CUDA runtime 13.0, driver 12.8, 2 devices", for hexcontract --version. Needs no device: one that is
     missing is said in buf, not an error. */
  int (*version)(char *buf, size_t size);
  /* Optional (NULL: none): opens and closes a named range on a profiler's timeline (NVTX on CUDA, so that an
     nsys timeline shows the step's phases and kernels), nested like a stack. Near-free when no profiler is
     attached. name is copied by the profiler. */
  void (*range_push)(const char *name);
  void (*range_pop)(void);
  /* Optional (device backends): w[i] = a x[i] + y[i] for i < n, doubles in the backend's memory, queued on its
     stream: the nodal interpolant of a step computed where the assembly uses it. */
  int (*waxpy)(int64_t n, double a, const double *x, const double *y, double *w);
} hc_backend;

/* Names of every backend hexcontract knows, built or not: "serial", "openmp", "cuda", "intrepid2". */
extern const char *const hc_backend_names[];
extern const int hc_num_backend_names;

/* Looks a backend up by name. A known backend that was not built gives HC_ERR_NOT_BUILT
   ("not built into this binary"); an unknown name gives HC_ERR_INPUT. */
int hc_backend_find(const char *name, const hc_backend **backend);

/* Validates k, asks the backend whether it supports k, then runs it. */
int hc_contract_apply(const hc_backend *backend, const hc_contract *k, const void *left, const void *right, void *out);

/* The backends' tables, each defined by its backend when it is built (see hc_backend_find). */
extern const hc_backend hc_backend_serial;
extern const hc_backend hc_backend_openmp;
extern const hc_backend hc_backend_cuda;
extern const hc_backend hc_backend_intrepid2;

#ifdef __cplusplus
}
#endif

#endif
