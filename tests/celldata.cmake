# Unit tests of the reference element (host only), the point-wise data functions, the exact sums and the host
# assembly, and of the cell data on every built backend; on the CUDA backend they need a GPU and report
# "skipped" without one.
hc_add_test_executable(test_basis SOURCES test_basis.c LIBS hc_kernels)
hc_add_test(basis COMMAND test_basis LABELS unit TIMEOUT 60)

# The data functions and the mesh motion against hand-worked values and a second, plain evaluation.
hc_add_test_executable(test_pointwise SOURCES test_pointwise.c LIBS hc_kernels m)
hc_add_test(pointwise COMMAND test_pointwise LABELS unit TIMEOUT 60)

hc_add_test_executable(test_celldata SOURCES test_celldata.c LIBS hc_kernels)
foreach(backend ${HC_TEST_BACKENDS})
  if(backend STREQUAL "cuda")
    hc_add_test(celldata_${backend} COMMAND test_celldata ${backend} LABELS unit GPU TIMEOUT 120)
  else()
    hc_add_test(celldata_${backend} COMMAND test_celldata ${backend} LABELS unit TIMEOUT 120)
  endif()
endforeach()

# The fused assembly of the openmp and cuda backends against the serial cell data contracted by the serial
# reference (cuda: skipped without a GPU).
if(HC_HAVE_OPENMP OR HC_HAVE_CUDA)
  hc_add_test_executable(test_fused SOURCES test_fused.c LIBS hc_kernels m)
endif()
if(HC_HAVE_OPENMP)
  hc_add_test(fused_openmp COMMAND test_fused openmp LABELS unit TIMEOUT 120)
endif()
if(HC_HAVE_CUDA)
  hc_add_test(fused_cuda COMMAND test_fused cuda LABELS unit GPU TIMEOUT 120)
endif()

# The exact accumulator of the deterministic sums against exact references.
hc_add_test_executable(test_xsum SOURCES test_xsum.c LIBS hc_kernels m)
hc_add_test(xsum COMMAND test_xsum LABELS unit TIMEOUT 60)
# The division by invariant divisors of the CUDA cell data's index arithmetic, on the host.
hc_add_test_executable(test_fastdiv SOURCES test_fastdiv.c)
hc_add_test(fastdiv COMMAND test_fastdiv LABELS unit TIMEOUT 60)

# The host assembly and its colouring against plain loops.
hc_add_test_executable(test_assembly SOURCES test_assembly.c LIBS hc_kernels m)
hc_add_test(assembly COMMAND test_assembly LABELS unit TIMEOUT 60)
