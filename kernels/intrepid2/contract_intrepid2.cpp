/* The intrepid2 backend's contractions: Intrepid2::ArrayTools<Kokkos::Serial> on unmanaged Kokkos views of
   our arrays. Intrepid2 indexes every array (C,L,P,D,D) with the cell first, as our cell-major layout
   does (LayoutRight); our cell-minor layout keeps the inner indices in C order with the cell fastest,
   which is no LayoutLeft for ranks above 2 ([L][P][D][C] is not the transpose of [C][L][P][D]), so
   it is wrapped as a LayoutStride view. Neither copies. */
#include <Intrepid2_ArrayTools.hpp>
#include <Trilinos_version.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <type_traits>

#include "kernels/intrepid2/hc_intrepid2.h"

namespace {

using hc_tools = Intrepid2::ArrayTools<Kokkos::Serial>;

template <class T, class Layout>
using hc_view = Kokkos::DynRankView<T, Layout, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

void hc_kokkos_finalize() {
  if (Kokkos::is_initialized()) Kokkos::finalize();
}

/* Kokkos once per process, before the first view; finalised at exit (after MPI_Finalize, which Kokkos's
   Serial space does not use). */
void hc_kokkos_init() {
  static const bool done = [] {
    if (!Kokkos::is_initialized()) {
      Kokkos::initialize();
      std::atexit(hc_kokkos_finalize);
    }
    return true;
  }();
  (void)done;
}

/* One array of k as a view of its cell-major shape: LayoutRight for cell-major, strides for cell-minor
   (cell stride 1, inner indices in C order, each C times the next one's extent). Unused ranks stay
   unspecified, which is how DynRankView counts its rank. */
template <class T, class Layout>
hc_view<T, Layout> hc_wrap(T *data, const hc_contract *k, hc_array which) {
  int ndim = 0;
  int64_t dims[6];
  hc_contract_shape(k, which, &ndim, dims);
  Layout layout;
  int64_t stride = k->C;
  for (int r = 7; r >= 0; r--) {
    layout.dimension[r] = r < ndim ? (size_t)dims[r] : KOKKOS_INVALID_INDEX;
    if constexpr (std::is_same<Layout, Kokkos::LayoutStride>::value) {
      layout.stride[r] = r == 0 ? 1 : r < ndim ? (size_t)stride : 0;
      if (r > 0 && r < ndim) stride *= dims[r];
    }
  }
  return hc_view<T, Layout>(data, layout);
}

/* The nine contractions; DataField takes (out, data, fields) in Intrepid2, our (out, right, left). */
template <class T, class Layout>
void hc_contract_views(const hc_contract *k, const void *left, const void *right, void *out) {
  const auto l = hc_wrap<const T, Layout>(static_cast<const T *>(left), k, HC_ARRAY_LEFT);
  const auto r = hc_wrap<const T, Layout>(static_cast<const T *>(right), k, HC_ARRAY_RIGHT);
  const auto o = hc_wrap<T, Layout>(static_cast<T *>(out), k, HC_ARRAY_OUT);
  const bool sum = k->sum_into != 0;
  switch (k->kernel) {
    case HC_DATADATA_SCALAR:
      hc_tools::contractDataDataScalar(o, l, r, sum);
      break;
    case HC_DATADATA_VECTOR:
      hc_tools::contractDataDataVector(o, l, r, sum);
      break;
    case HC_DATADATA_TENSOR:
      hc_tools::contractDataDataTensor(o, l, r, sum);
      break;
    case HC_DATAFIELD_SCALAR:
      hc_tools::contractDataFieldScalar(o, r, l, sum);
      break;
    case HC_DATAFIELD_VECTOR:
      hc_tools::contractDataFieldVector(o, r, l, sum);
      break;
    case HC_DATAFIELD_TENSOR:
      hc_tools::contractDataFieldTensor(o, r, l, sum);
      break;
    case HC_FIELDFIELD_SCALAR:
      hc_tools::contractFieldFieldScalar(o, l, r, sum);
      break;
    case HC_FIELDFIELD_VECTOR:
      hc_tools::contractFieldFieldVector(o, l, r, sum);
      break;
    case HC_FIELDFIELD_TENSOR:
      hc_tools::contractFieldFieldTensor(o, l, r, sum);
      break;
    default:
      break;
  }
  Kokkos::fence();
}

template <class T>
void hc_contract_layout(const hc_contract *k, const void *left, const void *right, void *out) {
  if (k->layout == HC_LAYOUT_CELL_MINOR) {
    hc_contract_views<T, Kokkos::LayoutStride>(k, left, right, out);
  } else {
    hc_contract_views<T, Kokkos::LayoutRight>(k, left, right, out);
  }
}

}  // namespace

extern "C" int hc_contract_intrepid2(const hc_contract *k, const void *left, const void *right, void *out) {
  try {
    hc_kokkos_init();
    if (k->precision == HC_FLOAT) {
      hc_contract_layout<float>(k, left, right, out);
    } else {
      hc_contract_layout<double>(k, left, right, out);
    }
  } catch (const std::exception &e) {
    return HC_ERROR(HC_ERR_RUNTIME, "Intrepid2 %s: %s", hc_kernel_name(k->kernel), e.what());
  }
  return HC_OK;
}

extern "C" int hc_version_intrepid2(char *buf, size_t size) {
  std::snprintf(buf, size, "Trilinos %s, Kokkos %d.%d.%d (Serial)", TRILINOS_VERSION_STRING, KOKKOS_VERSION / 10000,
                KOKKOS_VERSION / 100 % 100, KOKKOS_VERSION % 100);
  return HC_OK;
}
