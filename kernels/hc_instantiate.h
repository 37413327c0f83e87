/* Instantiates a template header once per precision: define HC_TEMPLATE as the header's path (a string),
   then include this file. The header sees HC_REAL (double, then float) and HC_FN(name) (name_f64, name_f32). */
#ifndef HC_TEMPLATE
#error "define HC_TEMPLATE before including kernels/hc_instantiate.h"
#endif

#define HC_REAL     double
#define HC_FN(name) name##_f64
#include HC_TEMPLATE
#undef HC_REAL
#undef HC_FN

#define HC_REAL     float
#define HC_FN(name) name##_f32
#include HC_TEMPLATE
#undef HC_REAL
#undef HC_FN

#undef HC_TEMPLATE
