# nightly.cmake: the nightly check as a CTest dashboard script: update, configure, build, test, (submit).
#
#   ctest -S run_scripts/nightly.cmake [-V]
#
# Updates the checkout (git; skipped when it is not a git checkout, has local changes or commits, or has
# no upstream), configures a fresh build with the nightly tests (-DHC_NIGHTLY_TESTS=ON; CUDA when nvcc is
# found), builds it and runs every test: the regular ones and the `nightly` label set (full-size decks,
# scaling sweeps, the GPU tests when there is a GPU). CTest writes its standard XML under
# BUILD/Testing/<timestamp>/ (Configure.xml, Build.xml, Test.xml). It submits to a CDash server only when one
# is named (CTEST_SUBMIT_URL, or CTEST_DROP_SITE with CTEST_DROP_LOCATION); otherwise the results stay local.
# Exits non-zero when the configure, the build or any test failed.
#
# Settings, as -DNAME=VALUE before -S or in the environment:
#   HC_NIGHTLY_BUILD_DIR   build directory (default: build-nightly in the source tree); emptied first
#   HC_NIGHTLY_MODEL       Nightly (default), Continuous or Experimental
#   HC_NIGHTLY_CMAKE_ARGS  extra CMake arguments, ;-separated (-DHC_ENABLE_CUDA=OFF;-DCMAKE_CUDA_ARCHITECTURES=90)
#   HC_NIGHTLY_JOBS        parallel build and test jobs (default: the processor count)
#   HC_NIGHTLY_UPDATE      OFF skips the update step
#   HC_NIGHTLY_LABEL       only the tests of this label regex (default: all tests)
#   CTEST_SUBMIT_URL       e.g. https://my.cdash.org/submit.php?project=hexcontract
#   CTEST_DROP_SITE, CTEST_DROP_LOCATION, CTEST_DROP_METHOD (default https)   the same, in parts
cmake_minimum_required(VERSION 3.24)

# A setting from -D, else the environment, else a default.
macro(hc_setting name default)
  if(NOT DEFINED ${name})
    if(DEFINED ENV{${name}})
      set(${name} "$ENV{${name}}")
    else()
      set(${name} "${default}")
    endif()
  endif()
endmacro()

get_filename_component(CTEST_SOURCE_DIRECTORY "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
cmake_host_system_information(RESULT hc_nproc QUERY NUMBER_OF_LOGICAL_CORES)
hc_setting(HC_NIGHTLY_BUILD_DIR "${CTEST_SOURCE_DIRECTORY}/build-nightly")
hc_setting(HC_NIGHTLY_MODEL Nightly)
hc_setting(HC_NIGHTLY_CMAKE_ARGS "")
hc_setting(HC_NIGHTLY_JOBS ${hc_nproc})
hc_setting(HC_NIGHTLY_UPDATE ON)
hc_setting(HC_NIGHTLY_LABEL "")
hc_setting(CTEST_SUBMIT_URL "")
hc_setting(CTEST_DROP_SITE "")
hc_setting(CTEST_DROP_LOCATION "")
hc_setting(CTEST_DROP_METHOD https)
set(CTEST_BINARY_DIRECTORY "${HC_NIGHTLY_BUILD_DIR}")
set(CTEST_CMAKE_GENERATOR "Unix Makefiles")
set(CTEST_NIGHTLY_START_TIME "01:00:00 UTC")

# Where and what: the site is the host name; the build name says CPU-only or with CUDA.
site_name(CTEST_SITE)
find_program(hc_nvcc nvcc PATHS /usr/local/cuda/bin NO_CACHE)
set(hc_flavour cpu)
if(hc_nvcc AND NOT HC_NIGHTLY_CMAKE_ARGS MATCHES "HC_ENABLE_CUDA=OFF")
  set(hc_flavour cuda)
endif()
set(CTEST_BUILD_NAME "${CMAKE_HOST_SYSTEM_NAME}-${CMAKE_HOST_SYSTEM_PROCESSOR}-${hc_flavour}")

# Update only where it cannot lose work: a clean git checkout that tracks an upstream and has no commits
# of its own (CTest's git update is a fetch and a hard reset to the upstream). Otherwise the revision is
# recorded and the source tested as it is.
find_package(Git QUIET)
set(hc_update_note "")
if(NOT HC_NIGHTLY_UPDATE)
  set(hc_update_note "update skipped (HC_NIGHTLY_UPDATE=OFF)")
elseif(NOT GIT_FOUND OR NOT EXISTS "${CTEST_SOURCE_DIRECTORY}/.git")
  set(hc_update_note "update skipped: ${CTEST_SOURCE_DIRECTORY} is not a git checkout")
else()
  set(CTEST_UPDATE_COMMAND "${GIT_EXECUTABLE}")
  execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no
                  WORKING_DIRECTORY ${CTEST_SOURCE_DIRECTORY} OUTPUT_VARIABLE hc_dirty RESULT_VARIABLE hc_rc1)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-list --count @{upstream}..HEAD
                  WORKING_DIRECTORY ${CTEST_SOURCE_DIRECTORY} OUTPUT_VARIABLE hc_ahead RESULT_VARIABLE hc_rc2
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT hc_rc1 EQUAL 0 OR NOT hc_dirty STREQUAL "")
    set(CTEST_UPDATE_VERSION_ONLY ON)
    set(hc_update_note "update skipped: the checkout has local changes (testing it as it is)")
  elseif(NOT hc_rc2 EQUAL 0)
    set(CTEST_UPDATE_VERSION_ONLY ON)
    set(hc_update_note "update skipped: the branch has no upstream (testing it as it is)")
  elseif(NOT hc_ahead STREQUAL "0")
    set(CTEST_UPDATE_VERSION_ONLY ON)
    set(hc_update_note "update skipped: the branch has ${hc_ahead} commit(s) not in its upstream")
  endif()
endif()

if(EXISTS "${CTEST_BINARY_DIRECTORY}/CMakeCache.txt")
  ctest_empty_binary_directory("${CTEST_BINARY_DIRECTORY}")
endif()
file(MAKE_DIRECTORY "${CTEST_BINARY_DIRECTORY}")

ctest_start(${HC_NIGHTLY_MODEL})
set(hc_failed "")
if(CTEST_UPDATE_COMMAND)
  ctest_update(RETURN_VALUE hc_updated)
  if(hc_updated LESS 0)
    # No network on the machine, or a server that is down: test what is there.
    message(WARNING "nightly: the update failed (no network?); testing the checkout as it is")
  elseif(NOT CTEST_UPDATE_VERSION_ONLY)
    message(STATUS "nightly: updated, ${hc_updated} file(s) changed")
  endif()
endif()
if(hc_update_note)
  message(STATUS "nightly: ${hc_update_note}")
endif()

ctest_configure(OPTIONS "-DHC_NIGHTLY_TESTS=ON;-DHC_WARNINGS_AS_ERRORS=ON;-DHC_ENABLE_CUDA=AUTO;${HC_NIGHTLY_CMAKE_ARGS}"
                RETURN_VALUE hc_rc)
if(NOT hc_rc EQUAL 0)
  list(APPEND hc_failed "configure")
else()
  ctest_build(PARALLEL_LEVEL ${HC_NIGHTLY_JOBS} RETURN_VALUE hc_rc NUMBER_ERRORS hc_errors)
  if(NOT hc_rc EQUAL 0 OR hc_errors GREATER 0)
    list(APPEND hc_failed "build")
  else()
    set(hc_label_args "")
    if(HC_NIGHTLY_LABEL)
      set(hc_label_args INCLUDE_LABEL "${HC_NIGHTLY_LABEL}")
    endif()
    ctest_test(PARALLEL_LEVEL ${HC_NIGHTLY_JOBS} ${hc_label_args} RETURN_VALUE hc_rc)
    if(NOT hc_rc EQUAL 0)
      list(APPEND hc_failed "tests")
    endif()
  endif()
endif()

if(NOT CTEST_SUBMIT_URL AND CTEST_DROP_SITE)
  set(CTEST_SUBMIT_URL "${CTEST_DROP_METHOD}://${CTEST_DROP_SITE}${CTEST_DROP_LOCATION}")
endif()
if(CTEST_SUBMIT_URL)
  ctest_submit(RETURN_VALUE hc_rc)
  if(NOT hc_rc EQUAL 0)
    message(WARNING "nightly: could not submit to ${CTEST_SUBMIT_URL}; the results are in ${CTEST_BINARY_DIRECTORY}/Testing")
  endif()
else()
  message(STATUS "nightly: no dashboard named (CTEST_SUBMIT_URL or CTEST_DROP_SITE): results kept local")
endif()

file(READ "${CTEST_BINARY_DIRECTORY}/Testing/TAG" hc_tag LIMIT 64)
string(REGEX MATCH "^[^\n]*" hc_tag "${hc_tag}")
set(hc_xml "${CTEST_BINARY_DIRECTORY}/Testing/${hc_tag}")
if(hc_failed)
  string(REPLACE ";" ", " hc_failed "${hc_failed}")
  message(FATAL_ERROR "nightly: FAILED (${hc_failed}) on ${CTEST_SITE} ${CTEST_BUILD_NAME}; CTest XML in ${hc_xml}, "
                      "test output in ${CTEST_BINARY_DIRECTORY}/Testing/Temporary/LastTest.log")
endif()
message(STATUS "nightly: passed on ${CTEST_SITE} ${CTEST_BUILD_NAME}; CTest XML in ${hc_xml}")
