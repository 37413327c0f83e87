# Conformance of every backend's contractions against the naive reference, and the .npy reader.
add_library(hc_test_reference STATIC ${CMAKE_CURRENT_SOURCE_DIR}/hc_test_reference.c)
target_link_libraries(hc_test_reference PUBLIC hc_kernels)

hc_add_test_executable(test_contract SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_contract.c LIBS hc_test_reference)
foreach(backend ${HC_TEST_BACKENDS})
  if(backend STREQUAL "cuda")
    hc_add_test(contract_${backend} COMMAND test_contract ${backend} LABELS unit GPU)
  else()
    hc_add_test(contract_${backend} COMMAND test_contract ${backend} LABELS unit)
  endif()
endforeach()

hc_add_test_executable(test_npy SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_npy.c LIBS hc_io)
hc_add_test(npy COMMAND test_npy LABELS unit)

# The contract command end to end, on every backend built in (a device backend without a device is
# skipped inside the test, which still checks the CPU backends).
hc_add_test_executable(test_cli SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.c LIBS hc_io hc_test_reference)
hc_add_test(cli COMMAND test_cli $<TARGET_FILE:hexcontract> ${HC_TEST_BACKENDS} LABELS unit app)

# NumPy's einsum as a second, independent implementation, when Python with NumPy is present.
# The system Python first: that is where Debian's python3-numpy lives. Without NumPy the test reports
# itself skipped.
find_program(HC_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(HC_PYTHON NAMES python3)
if(HC_PYTHON)
  hc_add_test(einsum COMMAND ${HC_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_einsum.py
              $<TARGET_FILE:hexcontract> ${HC_TEST_BACKENDS} LABELS unit app)
endif()
