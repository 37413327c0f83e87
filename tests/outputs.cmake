# Output and input paths (tests/test_outputs.sh): checked before any work, regular files only, never
# blocking on a FIFO, no two outputs the same file. Short timeouts: a command that blocks or runs its
# whole workload first fails by timing out.
set(HC_OUTPUTS_DIR ${CMAKE_CURRENT_BINARY_DIR}/outputs)
file(MAKE_DIRECTORY ${HC_OUTPUTS_DIR})
foreach(case early early_mpi dir fifo link csv_dir same_file bench report contract)
  hc_add_test(outputs_${case} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_outputs.sh ${case} $<TARGET_FILE:hexcontract>
              ${MPIEXEC_EXECUTABLE} ${PROJECT_SOURCE_DIR} ${HC_OUTPUTS_DIR} LABELS app TIMEOUT 30)
endforeach()
set_tests_properties(outputs_early_mpi PROPERTIES LABELS "app;mpi" PROCESSORS 2)
