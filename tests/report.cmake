# hexcontract report and run_scripts/scaling.sh: fixture sweeps (tests/data/results), refusals, and real sweeps.
set(HC_TEST_REPORT ${CMAKE_CURRENT_SOURCE_DIR}/test_report.sh)
set(HC_REPORT_DIR ${CMAKE_CURRENT_BINARY_DIR}/report)
file(MAKE_DIRECTORY ${HC_REPORT_DIR})

# Reports on committed results files of 1, 2 and 3 ranks (weak and strong): every file written, the
# efficiency as computed from the files; refused inputs exit 2 with a message naming the files.
foreach(case weak strong mixed cells schema duplicate empty missing_dir no_gnuplot)
  hc_add_test(report_${case} COMMAND ${HC_TEST_REPORT} ${case} $<TARGET_FILE:hexcontract> ${PROJECT_SOURCE_DIR}
              ${HC_REPORT_DIR} LABELS app report TIMEOUT 60)
endforeach()

# A real weak sweep on 1 and 2 ranks through scaling.sh, then its report; a failing run stops the sweep.
hc_add_test(report_scaling_weak COMMAND ${HC_TEST_REPORT} scaling_weak $<TARGET_FILE:hexcontract> ${PROJECT_SOURCE_DIR}
            ${HC_REPORT_DIR} LABELS app mpi report TIMEOUT 120)
set_tests_properties(report_scaling_weak PROPERTIES PROCESSORS 2)
hc_add_test(report_scaling_fails COMMAND ${HC_TEST_REPORT} scaling_fails $<TARGET_FILE:hexcontract> ${PROJECT_SOURCE_DIR}
            ${HC_REPORT_DIR} LABELS app mpi report TIMEOUT 120)

# Nightly: weak and strong sweeps over 1, 2 and 4 ranks at the shipped decks' cells per rank (strong: a
# 24^3 box, so that one rank fits a small machine), 4 timed steps each, their reports checked.
if(HC_NIGHTLY_TESTS)
  foreach(mode weak strong)
    # Full-size blocks, few steps: the sweep checks scaling and its report, the shipped decks run long.
    set(extra --set run.steps=4 --set run.warmup=1)
    if(mode STREQUAL "strong")
      list(APPEND extra --set mesh.cells=24,24,24)
    endif()
    hc_add_test(nightly_scaling_${mode} COMMAND ${HC_EXPECT} 0 "${mode} scaling, 3 runs" --file
                ${HC_REPORT_DIR}/nightly_${mode}/report.md -- ${CMAKE_COMMAND} -E env
                ${PROJECT_SOURCE_DIR}/run_scripts/scaling.sh ${mode} --ranks "1 2 4" --exe $<TARGET_FILE:hexcontract>
                --out ${HC_REPORT_DIR}/nightly_${mode} ${extra} LABELS nightly mpi report TIMEOUT 3600)
    # scaling.sh refuses a directory that holds results: start from an empty one every night.
    add_test(NAME nightly_scaling_${mode}_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${HC_REPORT_DIR}/nightly_${mode})
    set_tests_properties(nightly_scaling_${mode}_clean PROPERTIES LABELS "nightly;report" FIXTURES_SETUP
                                                                  nightly_${mode}_clean)
    set_tests_properties(nightly_scaling_${mode} PROPERTIES FIXTURES_REQUIRED nightly_${mode}_clean PROCESSORS 2)
  endforeach()
  if(HC_HAVE_CUDA)
    # The proxy run on the GPU, weak over 1 and 2 ranks (sharing a GPU when there is one only);
    # skipped (77) on a machine without a GPU. (No ';' in the script: CMake would split it there.)
    hc_add_test(nightly_scaling_cuda COMMAND sh -c
                "(nvidia-smi -L >/dev/null 2>&1 || exit 77) && rm -rf '${HC_REPORT_DIR}/nightly_cuda' && \
'${PROJECT_SOURCE_DIR}/run_scripts/scaling.sh' weak --ranks '1 2' --backend cuda --exe '$<TARGET_FILE:hexcontract>' \
--out '${HC_REPORT_DIR}/nightly_cuda' && grep -q '^2 runs from' '${HC_REPORT_DIR}/nightly_cuda/report.md'"
                LABELS nightly mpi report GPU TIMEOUT 1800)
  endif()
endif()
