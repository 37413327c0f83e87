# Messages and output (tests/messages.sh): errors after the lines they refer to, a failing one-rank run
# without Open MPI's notes, a closed stdout, the checks table, demo --help, the CUDA backend without a
# driver; HC_INJECT_FAILURE that could never fire; report's refusal of non-positive times and its --out.
set(HC_MESSAGES ${CMAKE_CURRENT_SOURCE_DIR}/messages.sh)
set(HC_MESSAGES_DIR ${CMAKE_CURRENT_BINARY_DIR}/messages)
file(MAKE_DIRECTORY ${HC_MESSAGES_DIR})
set(HC_MESSAGES_CASES error_order one_rank_fails closed_stdout checks_table demo_help)
if(HC_HAVE_CUDA)
  list(APPEND HC_MESSAGES_CASES no_driver)
endif()
foreach(case ${HC_MESSAGES_CASES})
  hc_add_test(messages_${case} COMMAND sh ${HC_MESSAGES} ${case} $<TARGET_FILE:hexcontract> ${HC_MESSAGES_DIR}
              LABELS app TIMEOUT 120)
endforeach()

# HC_INJECT_FAILURE naming what this run never reaches is refused (exit 2), on one rank and on two.
set(HC_MSG_RUN $<TARGET_FILE:hexcontract> --set run.backend=${HC_RUN_BACKEND} --set mesh.cells=4,3,3
               --set run.steps=2 --set output.dir=${HC_MESSAGES_DIR})
set(HC_MSG_MPIRUN ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG})
foreach(bad "rank=1,phase=step;1;rank=1 does not exist: this run has 1 rank \\(0..0\\)"
        "rank=2,phase=setup;2;rank=2 does not exist: this run has 2 ranks \\(0..1\\)"
        "rank=0,phase=step,step=4;1;step must be 1..3, the steps of this run"
        "rank=0,phase=step,step=0;1;step must be 1..3"
        "rank=0,phase=checks;1;phase=checks never comes: checks.enabled is false"
        "rank=1,phase=results;2;phase=results fires on rank 0 only"
        "rank=0,phase=setup,step=2;1;step applies to phase=step and phase=checks only"
        "rank=0,rank=0,phase=step;1;rank is given twice")
  list(GET bad 0 spec)
  list(GET bad 1 np)
  list(GET bad 2 regex)
  string(MAKE_C_IDENTIFIER "${spec}" name)
  set(extra "")
  if(spec MATCHES "phase=checks")
    set(extra --set checks.enabled=false)
  endif()
  hc_add_test(inject_refused_${name}_np${np} COMMAND ${HC_EXPECT} 2 "HC_INJECT_FAILURE=${spec}: ${regex}" --
              env HC_INJECT_FAILURE=${spec} ${HC_MSG_MPIRUN} ${np} ${HC_MSG_RUN} ${extra} LABELS reliability mpi
              TIMEOUT 60)
  set_tests_properties(inject_refused_${name}_np${np} PROPERTIES PROCESSORS ${np})
endforeach()

# report: times that are zero, negative or not finite are refused naming the file, line and key; --out is
# created when missing.
foreach(case bad_times out_created)
  hc_add_test(report_${case} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_report.sh ${case} $<TARGET_FILE:hexcontract>
              ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/report LABELS app report TIMEOUT 60)
endforeach()

# bench asked only for variants the backend lacks: refused before any work.
hc_add_test(bench_variants_none_run COMMAND ${HC_EXPECT} 2
            "option --variant: backend serial runs none of the variants asked for \\(flat,tile\\): variant is not available"
            -- $<TARGET_FILE:hexcontract> bench --backend serial --variant flat,tile --cells 10 --memory-gb 0.001
            --out ${HC_MESSAGES_DIR}/bench_none LABELS app)
