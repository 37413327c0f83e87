/* The CUDA backend's C-callable launchers (HC_CALL_CUDA and its kin: kernels/base/hc_cuda_error.h). */
#ifndef HC_CUDA_H
#define HC_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/hc_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Contractions (device pointers, k->layout); run on the backend's stream. */
int hc_contract_cuda(const hc_contract *k, const void *d_left, const void *d_right, void *d_out);
int hc_supports_cuda(const hc_contract *k);
/* The variant that runs k: k->variant, or for auto the one its tuner chose for k's shape
   (HC_VARIANT_AUTO while no call has tuned that shape yet). */
int hc_chosen_variant_cuda(const hc_contract *k, hc_variant *variant);

/* Device memory and the backend's stream. Each reports "no CUDA device" as HC_ERR_RESOURCE. */
int hc_mem_alloc_cuda(size_t bytes, void **d_ptr);
int hc_mem_free_cuda(void *d_ptr);
int hc_mem_copy_to_device_cuda(void *d_dst, const void *h_src, size_t bytes);
int hc_mem_copy_to_host_cuda(void *h_dst, const void *d_src, size_t bytes);
int hc_stream_synchronize_cuda(void);

/* Cell data (kernels/hc_celldata.h): the left and right arrays of kernel computed on the device from
   desc->X0 (device memory; desc validated). Runs on the backend's stream and synchronises it, unless
   desc->check_later; uploads the basis tables once per basis. An inverted or degenerate cell is HC_ERR_INPUT
   naming the lowest one, from this call or, with desc->check_later, from hc_celldata_check_cuda. */
int hc_celldata_fill_cuda(const struct hc_celldata_desc *desc, hc_kernel kernel, void *d_left, void *d_right);
/* hc_backend.celldata_check: waits for the stream and reads the bad-cell flag that the calls since the last
   read have set. */
int hc_celldata_check_cuda(const struct hc_celldata_desc *desc);
/* The fused assembly (hc_backend.fused): k's output from desc's geometry nodes, without the input arrays. */
int hc_fused_cuda(const struct hc_celldata_desc *desc, const hc_contract *k, void *d_out);
/* The same with FieldField's element apply (hc_backend.fused_element): also d_v[c][l] = sum_r out[c,l,r]
   d_u[d_cell_nodes[c][r]], from each cell's matrix as its kernel stores it, where the kernel takes it (orders 2
   and 3; else HC_ERR_UNSUPPORTED, and with d_out null only that answer). */
int hc_fused_element_cuda(const struct hc_celldata_desc *desc, const hc_contract *k, void *d_out,
                          const int32_t *d_cell_nodes, const double *d_u, double *d_v);
/* The same into the nodal vector (hc_backend.fused_assemble): d_y[d_cell_nodes[c][l]] += DataField's out[c,l] as
   stored, or FieldField's element apply rows (where hc_fused_element_cuda takes the case), by atomic adds in the
   kernel that forms them, as the assembly's kernels add them. */
int hc_fused_assemble_cuda(const struct hc_celldata_desc *desc, const hc_contract *k, void *d_out,
                           const int32_t *d_cell_nodes, const double *d_u, double *d_y);

/* Devices: how many this process sees (none: HC_ERR_RESOURCE), choosing one (before any other call of
   the backend), its name "model (device n, PCI dddd:bb:dd.f, UUID GPU-...)" and its free and total
   memory in bytes. */
int hc_device_count_cuda(int *count);
int hc_device_select_cuda(int device);
int hc_device_name_cuda(char *buf, size_t size);
int hc_device_memory_cuda(size_t *free_bytes, size_t *total_bytes);
/* "CUDA runtime R, driver D, N devices" (cudaRuntimeGetVersion, cudaDriverGetVersion, cudaGetDeviceCount);
   without a driver or a device it says so and still returns HC_OK. */
int hc_version_cuda(char *buf, size_t size);

/* Frees the backend's state (its context: the tuner's choices, the basis tables and the timer's events on the
   device, the cuBLAS handle); the next call creates it again. */
int hc_release_cuda(void);

/* NVTX ranges (a push opens a range named name on this thread, a pop closes the innermost one). */
void hc_range_push_cuda(const char *name);
void hc_range_pop_cuda(void);

/* Assembly on the device (kernels/cuda/assembly_cuda.cu), on the backend's stream. */
int hc_assemble_vector_cuda(const hc_contract *k, const void *d_out, const int32_t *d_cell_nodes, double *d_y);
int hc_assemble_apply_cuda(const hc_contract *k, const void *d_A, const int32_t *d_cell_nodes, const double *d_u,
                           double *d_y);
int hc_mem_zero_cuda(void *d_ptr, size_t bytes);
int hc_gather_cuda(const double *d_x, const int32_t *d_idx, int64_t n, double *d_buf);
int hc_scatter_cuda(const double *d_buf, const int32_t *d_idx, int64_t n, double *d_x);
/* d_w[i] = a d_x[i] + d_y[i], i < n. */
int hc_waxpy_cuda(int64_t n, double a, const double *d_x, const double *d_y, double *d_w);
/* sums[a] = d_x[a][0] + ... + d_x[a][n-1] in double, in an order fixed by n, onto the host (hc_backend's sum). */
int hc_sum_cuda(int narrays, const void *const *d_x, hc_precision precision, int64_t n, double *sums);

#ifdef __cplusplus
}
#endif

#endif
