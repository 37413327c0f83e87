/* Host-memory operations shared by the CPU backends (serial, openmp). */
#ifndef HC_HOST_MEMORY_H
#define HC_HOST_MEMORY_H

#include <stddef.h>

#include "kernels/hc_kernels.h"

int hc_host_alloc(size_t bytes, void **ptr); /* 64-byte aligned; HC_ERR_RESOURCE when out of memory */
int hc_host_free(void *ptr);
int hc_host_copy(void *dst, const void *src, size_t bytes);
int hc_host_synchronize(void);

#endif
