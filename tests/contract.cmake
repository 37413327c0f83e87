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

# NumPy's einsum as a second, independent implementation. The Python that has NumPy: the system one first
# (Debian's python3-numpy lives there, whatever python3 comes first on PATH), else the first on PATH. Without
# one the test is still registered and reports itself skipped (exit 77, "SKIPPED" in its output), never passed.
set(HC_PYTHON "")
foreach(candidate /usr/bin/python3 python3)
  find_program(HC_PYTHON_CANDIDATE_${candidate} NAMES ${candidate} NO_CACHE)
  set(exe ${HC_PYTHON_CANDIDATE_${candidate}})
  if(exe AND NOT HC_PYTHON)
    execute_process(COMMAND ${exe} -c "import numpy" RESULT_VARIABLE numpy_missing OUTPUT_QUIET ERROR_QUIET)
    if(numpy_missing EQUAL 0)
      set(HC_PYTHON ${exe})
    endif()
  endif()
endforeach()
if(HC_PYTHON)
  message(STATUS "einsum test: ${HC_PYTHON} (with NumPy)")
  hc_add_test(einsum COMMAND ${HC_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_einsum.py
              $<TARGET_FILE:hexcontract> ${HC_TEST_BACKENDS} LABELS unit app)
else()
  message(WARNING "no python3 with NumPy: the einsum test will report itself skipped (install python3-numpy)")
  hc_add_test(einsum COMMAND sh -c "echo 'SKIPPED: no python3 with NumPy was found at configure time: the \
comparison with numpy.einsum did not run (install python3-numpy and reconfigure)' && exit 77" LABELS unit app)
endif()
