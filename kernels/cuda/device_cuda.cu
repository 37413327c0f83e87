// The CUDA backend's device functions: how many devices this process sees, choosing one, naming it
// (model, PCI bus id, UUID) and its memory, and the versions of the runtime and driver; NVTX ranges for the
// profiler's timeline.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>

#include "kernels/cuda/hc_cuda_common.cuh"
#include "kernels/cuda/hc_cuda_context.cuh"

void hc_cuda_no_device_reason(cudaError_t err, char *buf, size_t size) {
  int driver = 0, runtime = 0;
  // The runtime loads the driver's library itself; without one it reports driver version 0, and
  // cudaGetDeviceCount says "driver version is insufficient", which is not what is wrong.
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
  cudaGetLastError();
  const char *visible = getenv("CUDA_VISIBLE_DEVICES");
  if (driver == 0) {
    snprintf(buf, size,
             "no NVIDIA driver found (libcuda.so.1, the driver's library, is not loadable): install the NVIDIA "
             "driver, or run on a machine with an NVIDIA GPU");
  } else if (err == cudaErrorInsufficientDriver) {
    snprintf(buf, size,
             "the NVIDIA driver supports CUDA up to %d.%d but this binary uses the CUDA %d.%d runtime: update the "
             "driver, or build with a CUDA toolkit of %d.%d or older",
             driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10, driver / 1000, driver % 1000 / 10);
  } else if (err == cudaSuccess || err == cudaErrorNoDevice) {
    snprintf(buf, size, "the NVIDIA driver (CUDA %d.%d) sees no GPU%s%s%s", driver / 1000, driver % 1000 / 10,
             visible ? " (CUDA_VISIBLE_DEVICES=" : "", visible ? visible : "", visible ? ")" : "");
  } else {
    snprintf(buf, size, "%s (%s)", cudaGetErrorString(err), cudaGetErrorName(err));
  }
}

extern "C" int hc_device_count_cuda(int *count) {
  *count = 0;
  cudaError_t err = cudaGetDeviceCount(count);
  if (err != cudaSuccess || *count <= 0) {
    cudaGetLastError();
    *count = 0;
    char why[384];
    hc_cuda_no_device_reason(err, why, sizeof(why));
    return HC_ERROR(HC_ERR_RESOURCE, "no usable CUDA device: %s", why);
  }
  return HC_OK;
}

extern "C" int hc_device_select_cuda(int device) {
  int count = 0;
  HC_CALL(hc_device_count_cuda(&count));
  HC_CHECK(device >= 0 && device < count, HC_ERR_INPUT, "CUDA device %d does not exist: this process sees %d (0..%d)",
           device, count, count - 1);
  return hc_cuda_context_select(device);
}

extern "C" int hc_device_name_cuda(char *buf, size_t size) {
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

extern "C" int hc_device_memory_cuda(size_t *free_bytes, size_t *total_bytes) {
  const cudaDeviceProp *props = nullptr;
  *free_bytes = *total_bytes = 0;
  HC_CALL(hc_cuda_device_props(&props));  // no usable device: HC_ERR_RESOURCE
  HC_CALL_CUDA(cudaMemGetInfo(free_bytes, total_bytes));
  return HC_OK;
}

extern "C" int hc_version_cuda(char *buf, size_t size) {
  HC_CHECK(buf && size > 0, HC_ERR_INPUT, "CUDA version: no buffer");
  int runtime = 0, driver = 0, count = 0;
  cudaRuntimeGetVersion(&runtime);  // the libcudart this process loaded; needs no driver
  cudaDriverGetVersion(&driver);    // 0 when no driver is installed
  char devices[192];
  if (driver == 0) {
    snprintf(devices, sizeof(devices), "no device (no NVIDIA driver found)");
  } else {
    cudaError_t err = cudaGetDeviceCount(&count);
    cudaGetLastError();
    if (err != cudaSuccess) {
      snprintf(devices, sizeof(devices), "no usable device (%s)", cudaGetErrorString(err));
    } else {
      snprintf(devices, sizeof(devices), "%d device%s", count, count == 1 ? "" : "s");
    }
  }
  char drv[32] = "none";
  if (driver > 0) snprintf(drv, sizeof(drv), "%d.%d", driver / 1000, driver % 1000 / 10);
  snprintf(buf, size, "CUDA runtime %d.%d, driver %s, %s", runtime / 1000, runtime % 1000 / 10, drv, devices);
  return HC_OK;
}

// NVTX v3 is header-only: without a tool attached (nsys) each call returns at once.
extern "C" void hc_range_push_cuda(const char *name) {
  nvtxRangePushA(name);
}

extern "C" void hc_range_pop_cuda(void) {
  nvtxRangePop();
}
