/* The unit tests' probe of a device backend: a device backend with no usable device here is reported skipped. */
#ifndef HC_TEST_DEVICE_H
#define HC_TEST_DEVICE_H

#include <stdio.h>

#include "kernels/hc_kernels.h"

/* 1 (after printing why, for CTest's log) when backend is a device backend without a usable device: the test
   then exits 77, which CTest reports as skipped. 0 for a host backend, or a device that answers. */
static inline int hc_test_no_device(const hc_backend *backend, const char *name) {
  if (!backend->is_device) return 0;
  void *probe = NULL;
  if (backend->mem_alloc(64, &probe) != HC_OK) {
    printf("skipped: backend %s has no usable device here: %s\n", name, hc_error_message());
    return 1;
  }
  backend->mem_free(probe);
  return 0;
}

#endif
