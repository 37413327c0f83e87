# The mutation check (tests/mutation/run.sh): every patch of tests/mutation/ plants one bug in a scratch copy of
# the tree, which is built and tested; the test fails if the suite passes on any of them. Nightly only: it
# builds and tests the tree once per patch (15 to 35 minutes on 2 shared cores).
if(HC_NIGHTLY_TESTS)
  hc_add_test(nightly_mutation COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mutation/run.sh --work ${CMAKE_BINARY_DIR}/mutation
              LABELS nightly TIMEOUT 7200)
  set_tests_properties(nightly_mutation PROPERTIES RUN_SERIAL TRUE)
endif()
