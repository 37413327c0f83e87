// The CUDA backend's device functions: how many devices this process sees, choosing one, naming it
// (model, PCI bus id, UUID) and its memory; NVTX ranges for the profiler's timeline.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>

#include "kernels/cuda/hc_cuda_common.cuh"

extern "C" int hc_cuda_device_count(int *count) {
  *count = 0;
  cudaError_t err = cudaGetDeviceCount(count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    *count = 0;
    return HC_ERROR(HC_ERR_RESOURCE, "no usable CUDA device: %s (%s)", cudaGetErrorString(err), cudaGetErrorName(err));
  }
  HC_CHECK(*count > 0, HC_ERR_RESOURCE, "no usable CUDA device: the driver reports none");
  return HC_OK;
}

extern "C" int hc_cuda_device_select(int device) {
  int count = 0;
  HC_CALL(hc_cuda_device_count(&count));
  HC_CHECK(device >= 0 && device < count, HC_ERR_INPUT, "CUDA device %d does not exist: this process sees %d (0..%d)",
           device, count, count - 1);
  HC_CALL_CUDA(cudaSetDevice(device));
  // The backend runs on the default stream of the selected device: no stream of its own to create.
  return HC_OK;
}

extern "C" int hc_cuda_device_name(char *buf, size_t size) {
  const cudaDeviceProp *props = nullptr;
  int device = 0;
  HC_CHECK(buf && size > 0, HC_ERR_INPUT, "device name: no buffer");
  buf[0] = '\0';
  HC_CALL(hc_cuda_device_props(&props));
  HC_CALL_CUDA(cudaGetDevice(&device));
  const unsigned char *u = reinterpret_cast<const unsigned char *>(props->uuid.bytes);
  snprintf(buf, size,
           "%s (device %d, PCI %04x:%02x:%02x.0, UUID GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
           "%02x%02x%02x%02x%02x%02x)",
           props->name, device, (unsigned)props->pciDomainID, (unsigned)props->pciBusID, (unsigned)props->pciDeviceID,
           u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  return HC_OK;
}

extern "C" int hc_cuda_device_memory(size_t *free_bytes, size_t *total_bytes) {
  const cudaDeviceProp *props = nullptr;
  *free_bytes = *total_bytes = 0;
  HC_CALL(hc_cuda_device_props(&props));  // no usable device: HC_ERR_RESOURCE
  HC_CALL_CUDA(cudaMemGetInfo(free_bytes, total_bytes));
  return HC_OK;
}

// NVTX v3 is header-only: without a tool attached (nsys) each call returns at once.
extern "C" void hc_cuda_range_push(const char *name) {
  nvtxRangePushA(name);
}

extern "C" void hc_cuda_range_pop(void) {
  nvtxRangePop();
}
