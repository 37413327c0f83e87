/* Host facts from /proc and /sys: available memory, the last-level caches and the CPU model. */
#include "app/hc_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

double hc_host_mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  double kb = 0;
  while (fgets(line, sizeof(line), f)) {
    if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
  }
  fclose(f);
  return kb * 1024.0;
}

/* The first line of a sysfs file into buf (its newline cut), 0 when it cannot be read. */
static int hc_host_read_line(const char *path, char *buf, size_t n) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  const int ok = fgets(buf, (int)n, f) != NULL;
  fclose(f);
  if (ok) buf[strcspn(buf, "\n")] = '\0';
  return ok;
}

double hc_host_llc_bytes(void) {
  enum { MAX_INSTANCES = 256 };
  char seen[MAX_INSTANCES][64];
  int nseen = 0, top = 0;
  double total = 0;
  for (int cpu = 0; cpu < 4096; cpu++) {
    char path[160], line[64];
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache", cpu);
    FILE *probe = fopen(path, "r");
    if (!probe) break; /* past the last CPU (sysfs numbers them from 0 without gaps on Linux), or none there */
    fclose(probe);
    for (int idx = 0; idx < 16; idx++) {
      snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, idx);
      if (!hc_host_read_line(path, line, sizeof(line))) break;
      const int level = atoi(line);
      if (level < top) continue;
      snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/size", cpu, idx);
      if (!hc_host_read_line(path, line, sizeof(line))) continue;
      char unit = 0;
      double size = 0;
      if (sscanf(line, "%lf%c", &size, &unit) < 1) continue;
      size *= unit == 'K' ? 1024.0 : unit == 'M' ? 1048576.0 : unit == 'G' ? 1073741824.0 : 1.0;
      snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, idx);
      if (!hc_host_read_line(path, line, sizeof(line))) snprintf(line, sizeof(line), "cpu%d", cpu);
      if (level > top) { /* a higher level: what was counted below it is not the last */
        top = level;
        total = 0;
        nseen = 0;
      }
      int known = nseen == MAX_INSTANCES; /* past as many instances, the rest are not counted */
      for (int i = 0; i < nseen && !known; i++) known = strcmp(seen[i], line) == 0;
      if (known) continue;
      snprintf(seen[nseen++], sizeof(seen[0]), "%s", line);
      total += size;
    }
  }
#if defined(_SC_LEVEL3_CACHE_SIZE)
  /* no cache directories (some containers and VMs): what the C library reads from the processor (glibc: cpuid) */
  if (total <= 0) {
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    total = l3 > 0 ? (double)l3 : l2 > 0 ? (double)l2 : 0;
  }
#endif
  return total;
}

void hc_host_cpu_model(char *buf, size_t n) {
  snprintf(buf, n, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof(line), f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) == 0 && colon) {
      colon += 2;
      colon[strcspn(colon, "\n")] = '\0';
      snprintf(buf, n, "%s", colon);
      break;
    }
  }
  fclose(f);
}
