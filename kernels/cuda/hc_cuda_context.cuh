// The CUDA backend's state, one object that owns it for the device this process computes on: the stream, the
// device's properties, the auto tuner's choices, the basis tables on the device, the timer's events, the cell
// GEMM kernels' launch setup, the cuBLAS handle and the cublaslt variant's cuBLASLt handle, plans and workspace.
// Created for the current device at the backend's first call, or for the chosen one by
// device_select (which destroys the context of the device used before, freeing what it held there); destroyed
// by the backend's release (hc_backend.release). The backend's .cu files reach it through hc_cuda_context_get
// and keep no state of their own.
#ifndef HC_CUDA_CONTEXT_CUH
#define HC_CUDA_CONTEXT_CUH

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "kernels/cuda/hc_cuda.h"
#include "kernels/cuda/hc_cuda_common.cuh"

// One auto-tuner choice: the variant chosen for a contraction's kernel, sizes, layout, precision and sum_into.
struct hc_cuda_tuned {
  hc_contract key;
  hc_variant chosen;
};

// The basis tables of one (order, points) pair in device memory (hc_basis's tables are a function of the two),
// and the cell data's bad-cell flag.
struct hc_cuda_basis {
  int p = 0, q = 0;                     // 0: none uploaded
  double *d_qpts = nullptr;             // [P][3]
  double *d_qwts = nullptr;             // [P]
  double *d_phi = nullptr;              // [L][P]
  double *d_grad = nullptr;             // [L][P][3]
  double *d_tabT = nullptr;             // [P][4][L]: phi, then the 3 reference gradient components, fields fastest
  double *d_b1d = nullptr;              // [q][p+1]: the 1D values phi_a(xi_i) (hc_basis B1d)
  double *d_g1d = nullptr;              // [q][p+1]: the 1D derivatives phi_a'(xi_i) (hc_basis G1d)
  unsigned long long *d_bad = nullptr;  // lowest bad cell; no cell (all ones) between readings. Kept when the
                                        // tables change (basis_get), so that queued calls keep what they found
  unsigned long long *h_bad = nullptr;  // pinned host memory that d_bad is read back into
  bool bad_queued = false;              // d_bad's copy into h_bad is queued after every cell-data launch so far
                                        // (hc_cuda_bad_flag_queue), to be read after a wait
};

// Frees the tables b holds (on the current device) and forgets them.
inline void hc_cuda_basis_free(hc_cuda_basis *b) {
  cudaFree(b->d_qpts);
  cudaFree(b->d_qwts);
  cudaFree(b->d_phi);
  cudaFree(b->d_grad);
  cudaFree(b->d_tabT);
  cudaFree(b->d_b1d);
  cudaFree(b->d_g1d);
  cudaFree(b->d_bad);
  cudaFreeHost(b->h_bad);
  *b = hc_cuda_basis();
}

// How many blocks of a kernel fit on one SM of the device with `threads` threads and `smem` bytes of dynamic
// shared memory (hc_cuda_occupancy_get).
struct hc_cuda_occupancy {
  const void *kernel = nullptr;
  int threads = 0;
  size_t smem = 0;
  int blocks_per_sm = 0;
};

// What the cublaslt variant's choice of algorithm depends on (on the context's device, which the plans belong to):
// the precision, the GEMM's sizes and batch strides (in elements) and the alignment in bytes of every matrix of
// each operand (C and D are the output).
struct hc_cuda_lt_key {
  hc_precision precision;
  int m, n, k, batch;
  int64_t stride_a, stride_b, stride_d;
  uint32_t align_a, align_b, align_d;
};

// One shape's cuBLASLt matmul (the cublaslt variant): its descriptors, the heuristic's first algorithm and that
// algorithm's workspace bytes.
struct hc_cuda_lt_plan {
  hc_cuda_lt_key key = {};
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;  // d describes both C and D
  cublasLtMatmulAlgo_t algo = {};
  size_t workspace = 0;
};

struct hc_cuda_context {
  static constexpr int kTunedSize = 64;
  static constexpr int kOccupancySize = 256;  // more launch shapes than a run or the bench uses
  static constexpr int kLtPlans = 64;
  int device = -1;
  cudaStream_t stream = 0;   // the default stream of the device
  cudaStream_t current = 0;  // where the backend queues its work (hc_cuda_stream): stream, or a lane's in a fork
  // The lanes (hc_backend.fork, lane, join): lane 0 is stream, lanes 1 .. are non-blocking streams created at their
  // first fork; forked: the open fork's lanes (0 outside one); fork_event: recorded on stream at the fork, awaited
  // by the lanes; lane_done: recorded on each lane at the join, awaited by stream.
  cudaStream_t lanes[HC_LANES_MAX] = {};
  int forked = 0;
  cudaEvent_t fork_event = nullptr;
  cudaEvent_t lane_done[HC_LANES_MAX] = {};
  // The points' geometry kept for the fused calls (hc_geometry_cache), last filled on geom_stream: inside a fork
  // (geom_forked), geom_ready is recorded after the fill, so that a fused call on another lane waits for it before
  // reading; outside one every later lane follows the fill. Guarded by basis_lock.
  cudaEvent_t geom_ready = nullptr;
  cudaStream_t geom_stream = 0;
  bool geom_forked = false;
  cudaDeviceProp props = {};
  std::mutex tuned_lock;  // guards tuned (held while tuning, which calls the variants)
  hc_cuda_tuned tuned[kTunedSize];
  int tuned_count = 0, tuned_next = 0;
  std::mutex basis_lock;  // guards basis
  hc_cuda_basis basis;
  std::mutex occupancy_lock;  // guards occupancy
  hc_cuda_occupancy occupancy[kOccupancySize];
  int occupancy_count = 0;
  std::mutex cublas_lock;           // guards cublas
  cublasHandle_t cublas = nullptr;  // created at the cublas variant's first call
  // The cublaslt variant's state, created at its first call and guarded by cublaslt_lock (held through its
  // matmuls, which use a plan and the workspace): the handle, the plans (the oldest replaced when all kLtPlans
  // are taken) and the workspace on the device, grown to the largest a plan needs.
  std::mutex cublaslt_lock;
  cublasLtHandle_t cublaslt = nullptr;
  hc_cuda_lt_plan lt_plans[kLtPlans];
  int lt_plan_count = 0, lt_plan_next = 0;
  void *lt_workspace = nullptr;
  size_t lt_workspace_bytes = 0;
  cudaEvent_t timer[2] = {nullptr, nullptr};  // the backend's timer (not nested): start, stop
  cudaEvent_t marks[HC_MARKS_MAX] = {};       // the timeline's marks (hc_backend.mark), each created at its first use
  int tensorcore_ptx = -1;                    // the PTX version the tensorcore kernel runs as here, read once
  // hc_sum_cuda's results, written by its last kernel straight into pinned host memory (mapped: the device
  // writes it through sum_results_device), allocated at its first call: no copy to queue after the kernels, only
  // the wait
  double *sum_results = nullptr;
  double *sum_results_device = nullptr;
};

// The context of the device this process computes on, created for the current device at the first call; a
// process without a usable device gets HC_ERR_RESOURCE saying why.
int hc_cuda_context_get(hc_cuda_context **ctx);

// Makes device the current device and gives the backend a context for it (device_select), destroying the one
// it had for another device with what that held there.
int hc_cuda_context_select(int device);

// How many blocks of kernel (a cell GEMM kernel of hc_cell_gemm.cuh, a fused kernel of celldata_cuda.cu, the warp
// per cell or a DataField kernel of contract_tile.cu, launched with threads threads and smem bytes of dynamic shared
// memory) fit on one SM of the context's device, and its SMs. The first call for a (kernel, threads, smem) opts the
// kernel into smem bytes where that is above the default 48 KB (a later launch with more must opt in itself:
// hc_cuda_allow_smem) and keeps the count in the context for later calls with the same three; an error is the CUDA
// runtime's (cudaErrorNoDevice without a usable device).
cudaError_t hc_cuda_occupancy_get(const void *kernel, int threads, size_t smem, int *blocks_per_sm, int *sms);

// Queues the copy of the bad-cell flag (hc_cuda_basis.d_bad) into pinned host memory on the context's stream, so that
// the check of the cell-data calls queued so far (hc_celldata_check_cuda) reads it after the caller's own wait
// instead of queueing a copy and waiting again: hc_sum_cuda, the step's last wait but the check's, calls it before
// its wait. Nothing where no cell data has been computed. HC_OK, or the CUDA error.
int hc_cuda_bad_flag_queue(void);

// A launch of kernel on the context's stream whose blocks loop over their work: its shared memory allowed
// (hc_cuda_allow_smem) and a resident grid, as many blocks as fit on the device at once (hc_cuda_occupancy_get), at
// most `blocks`.
template <typename Kernel, typename... Args>
cudaError_t hc_cuda_launch_resident(Kernel kernel, int threads, size_t smem, int64_t blocks, Args... args) {
  cudaError_t err = hc_cuda_allow_smem(kernel, smem);
  if (err != cudaSuccess) return err;
  int blocks_per_sm = 0, sms = 0;
  err = hc_cuda_occupancy_get(reinterpret_cast<const void *>(kernel), threads, smem, &blocks_per_sm, &sms);
  if (err != cudaSuccess) return err;
  const int64_t resident = (int64_t)sms * blocks_per_sm;
  kernel<<<hc_cuda_grid(blocks < resident ? blocks : resident), threads, smem, hc_cuda_stream()>>>(args...);
  return cudaGetLastError();
}

// Destroys p's descriptors and empties it.
void hc_cuda_lt_plan_destroy(hc_cuda_lt_plan *p);

#endif
