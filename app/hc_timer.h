/* Wall-clock timers of the app. */
#ifndef HC_TIMER_H
#define HC_TIMER_H

#include <time.h>

/* Seconds on a monotonic clock. */
static inline double hc_wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
