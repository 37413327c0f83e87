/* What the app reads about the host machine: available memory and the CPU model. */
#ifndef HC_HOST_H
#define HC_HOST_H

#include <stddef.h>

/* Bytes of host memory available now (MemAvailable of /proc/meminfo), 0 when unknown. */
double hc_host_mem_available(void);

/* The CPU's model name ("unknown CPU" when /proc/cpuinfo does not say). */
void hc_host_cpu_model(char *buf, size_t n);

#endif
