/* OpenMP work-sharing that compiles away, without unknown-pragma warnings, when OpenMP is not built. */
#ifndef HC_OMP_H
#define HC_OMP_H

#include "hc_config.h"

#if HC_HAVE_OPENMP
#define HC_OMP_PRAGMA(x)    _Pragma(#x)
#define HC_OMP_PARALLEL_FOR _Pragma("omp parallel for schedule(static)")
/* The same, on the calling thread alone where cond is zero (OpenMP's if clause: a team of one). */
#define HC_OMP_PARALLEL_FOR_IF(cond) HC_OMP_PRAGMA(omp parallel for schedule(static) if (cond))
#else
#define HC_OMP_PRAGMA(x)
#define HC_OMP_PARALLEL_FOR
#define HC_OMP_PARALLEL_FOR_IF(cond)
#endif

#endif
