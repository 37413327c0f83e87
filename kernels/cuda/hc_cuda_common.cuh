// What every .cu file of the CUDA backend shares: the backend's stream and device properties, the
// uniform view of a contraction that all kernels use, and the layout-aware addressing.
//
// Every contraction is read as out[c,l,r] = sum_{q<K} A[c,l,q] * B[c,r,qb(q)]:
//   DataData   L = R = 1;
//   DataField  R = 1, B is the data array; qb(q) = q % Dr when the data is constant over points;
//   FieldField qb(q) = q.
// K = P * Dr is the flattened contracted index (p, i, j), Dr = D^rank.
#ifndef HC_CUDA_COMMON_CUH
#define HC_CUDA_COMMON_CUH

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/base/hc_cuda_error.h"
#include "kernels/cuda/hc_cuda.h"

// The backend's stream (the default stream of the current device, for now).
cudaStream_t hc_cuda_stream(void);

// Properties of the current device, read once; HC_ERR_RESOURCE when there is no usable device.
int hc_cuda_device_props(const cudaDeviceProp **props);

// Why this process has no usable CUDA device, for a message "no usable CUDA device: <why>": err is what
// cudaGetDeviceCount returned (cudaSuccess with a count of 0: the driver sees no GPU). Tells a machine
// without an NVIDIA driver (libcuda.so.1 not loadable) from a driver older than the runtime, and from a
// driver that sees no GPU (naming CUDA_VISIBLE_DEVICES when it is set).
void hc_cuda_no_device_reason(cudaError_t err, char *buf, size_t size);

// Grid size for a grid-stride loop over `work` blocks' worth of items, at most cap (a grid's second and third
// dimensions: 65,535).
inline unsigned hc_cuda_grid(int64_t blocks, int64_t cap = int64_t(1) << 20) {
  if (blocks < 1) blocks = 1;
  return (unsigned)(blocks < cap ? blocks : cap);
}

// Lets kernel take smem bytes of dynamic shared memory: above the default 48 KB a kernel must opt in.
template <typename Kernel>
inline cudaError_t hc_cuda_allow_smem(Kernel kernel, size_t smem) {
  return smem > 48 * 1024 ? cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)
                          : cudaSuccess;
}

// The uniform view of a contraction (see the top of this file).
struct hc_cuda_shape {
  int64_t C;
  int L, R;
  int64_t K;       // contracted length of the left array
  int64_t Dr;      // D^rank entries per point
  int64_t KB;      // contracted length of one B field: K, or Dr for constant data
  int64_t innerA;  // entries of A per cell: L*K
  int64_t innerB;  // entries of B per cell: R*KB
  int64_t innerO;  // entries of out per cell: L*R
  bool constant;   // DataField data constant over points (P_data = 1 < P)
  hc_family family;
  bool cell_minor;
};

inline hc_cuda_shape hc_cuda_shape_of(const hc_contract *k) {
  hc_cuda_shape s;
  s.family = hc_kernel_family(k->kernel);
  s.C = k->C;
  s.L = k->L;
  s.R = k->R;
  s.K = hc_contract_K(k);
  s.Dr = s.K / k->P;
  s.constant = s.family == HC_FAMILY_DATAFIELD && k->P_data == 1 && k->P > 1;
  s.KB = s.constant ? s.Dr : s.K;
  s.innerA = (int64_t)s.L * s.K;
  s.innerB = (int64_t)s.R * s.KB;
  s.innerO = (int64_t)s.L * s.R;
  s.cell_minor = k->layout == HC_LAYOUT_CELL_MINOR;
  return s;
}

// Address of entry (c, q) of an array with `inner` entries per cell.
template <bool CellMinor>
__device__ __forceinline__ int64_t hc_at(int64_t c, int64_t q, int64_t C, int64_t inner) {
  return CellMinor ? q * C + c : c * inner + q;
}

// Index of B's entry for contracted index q (constant data repeats its Dr entries at every point).
__device__ __forceinline__ int64_t hc_qb(int64_t q, int64_t Dr, bool constant) {
  return constant ? q % Dr : q;
}

__device__ __forceinline__ float hc_abs(float x) {
  return fabsf(x);
}
__device__ __forceinline__ double hc_abs(double x) {
  return fabs(x);
}

// Stores one output entry: overwrite, or add into what is there. Returns the entry as stored.
template <typename T>
__device__ __forceinline__ T hc_store(T *o, T v, int sum_into) {
  const T stored = sum_into ? *o + v : v;
  *o = stored;
  return stored;
}

// Calls f(T(), std::integral_constant<bool, CellMinor>()) for the precision and layout of k, so that
// one generic lambda instantiates every kernel for both precisions and both layouts.
template <typename F>
cudaError_t hc_cuda_dispatch(const hc_contract *k, F &&f) {
  using minor = std::true_type;
  using major = std::false_type;
  if (k->precision == HC_FLOAT) return k->layout == HC_LAYOUT_CELL_MINOR ? f(float(), minor()) : f(float(), major());
  return k->layout == HC_LAYOUT_CELL_MINOR ? f(double(), minor()) : f(double(), major());
}

#endif
