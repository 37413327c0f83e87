/* OpenMP work-sharing that compiles away, without unknown-pragma warnings, when OpenMP is not built. */
#ifndef HC_OMP_H
#define HC_OMP_H

#include "hc_config.h"

#if HC_HAVE_OPENMP
#define HC_OMP_PARALLEL_FOR _Pragma("omp parallel for schedule(static)")
#else
#define HC_OMP_PARALLEL_FOR
#endif

#endif
