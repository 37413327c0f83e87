/* What the app reads about the host machine: available memory, the last-level caches and the CPU model. */
#ifndef HC_HOST_H
#define HC_HOST_H

#include <stddef.h>

/* Bytes of host memory available now (MemAvailable of /proc/meminfo), 0 when unknown. */
double hc_host_mem_available(void);

/* Bytes of the host's last-level caches, all of them (the highest level in each CPU's cache directory of sysfs,
   each instance once, as told by its shared_cpu_list; without them the C library's level-3 or level-2 size),
   0 when unknown. */
double hc_host_llc_bytes(void);

/* The CPU's model name ("unknown CPU" when /proc/cpuinfo does not say). */
void hc_host_cpu_model(char *buf, size_t n);

#endif
