# Reliability: a failure on one rank of several ends every rank quickly with the documented exit code and no
# results file; real allocation failures are reported; signals stop a run with an incomplete results file;
# the deck and .npy fuzz corpora replay cleanly (the fuzzers themselves: HC_ENABLE_FUZZ, tests/fuzz/README.md).
# Every run names the backend: the decks say openmp, which a build without OpenMP lacks.
set(HC_REL_EXE $<TARGET_FILE:hexcontract> --set run.backend=${HC_RUN_BACKEND})
set(HC_REL_MPIRUN ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG})
set(HC_REL_DIR ${CMAKE_CURRENT_BINARY_DIR}/reliability)
file(MAKE_DIRECTORY ${HC_REL_DIR})
set(HC_FAILURE ${CMAKE_CURRENT_SOURCE_DIR}/failure.sh)
set(HC_REL_SMALL --set mesh.cells=6,5,4 --set run.steps=3 --set output.dir=${HC_REL_DIR})

# hc_add_inject_test(NAME NP SPEC CODE REGEX [extra hexcontract args]): HC_INJECT_FAILURE=SPEC on NP ranks must
# end every rank within 30 s with exit code CODE, a message matching REGEX and no results file.
function(hc_add_inject_test NAME NP SPEC CODE REGEX)
  hc_add_test(${NAME} COMMAND ${HC_FAILURE} ${CODE} "${REGEX}" ${HC_REL_DIR}/${NAME}.yaml 30 --
              env HC_INJECT_FAILURE=${SPEC} ${HC_REL_MPIRUN} ${NP} ${HC_REL_EXE} ${HC_REL_SMALL}
              --set output.results=${NAME}.yaml ${ARGN} LABELS reliability mpi TIMEOUT 60)
  set_tests_properties(${NAME} PROPERTIES PROCESSORS ${NP})
endfunction()

hc_add_inject_test(inject_step_runtime_np3 3 rank=1,phase=step,step=2,kind=runtime 1
                   "error on rank 1: runtime failure at step 2")
hc_add_inject_test(inject_step_alloc_np4 4 rank=3,phase=step,step=4,kind=alloc 3
                   "error on rank 3: out of host memory at step 4")
hc_add_inject_test(inject_setup_alloc_np4 4 rank=2,phase=setup,kind=alloc 3
                   "error on rank 2: out of host memory while setting up")
hc_add_inject_test(inject_setup_input_np3 3 rank=0,phase=setup,kind=input 2
                   "error on rank 0: bad input found late while setting up")
hc_add_inject_test(inject_checks_input_np3 3 rank=2,phase=checks,step=3,kind=input 2
                   "error on rank 2: bad input found late in the self-checks after step 3" --set checks.every=1)
hc_add_inject_test(inject_checks_runtime_np4 4 rank=1,phase=checks,kind=runtime 1
                   "error on rank 1: runtime failure in the self-checks after step 4")
hc_add_inject_test(inject_results_np3 3 rank=0,phase=results,kind=alloc 3
                   "error on rank 0: out of host memory while writing the results file")
hc_add_inject_test(inject_bad_spec_np2 2 rank=1,phase=loop 2 "HC_INJECT_FAILURE=rank=1,phase=loop: phase must be")

# A real allocation that fails past the estimate (memory.host_limit_gib claims plenty; the address space is
# capped at 4 GB, room for the CUDA and MPI libraries and threads) is reported as out of memory with exit code
# 3, not a crash. Not under ASan, which
# reserves terabytes of address space.
if(NOT HC_ENABLE_SANITIZERS)
  hc_add_test(alloc_fails_reported COMMAND ${HC_FAILURE} 3 "error on rank 0: .*out of (host )?memory"
              ${HC_REL_DIR}/alloc_fails.yaml 60 -- sh -c "ulimit -v 4000000 && exec \"$0\" \"$@\"" ${HC_REL_EXE}
              --set mesh.cells=60,60,60 --set run.steps=1 --set memory.host_limit_gib=1000
              --set output.dir=${HC_REL_DIR} --set output.results=alloc_fails.yaml LABELS reliability TIMEOUT 60)
endif()

# SIGTERM/SIGINT stop the run after a step: results marked incomplete, exit 128 + signal. Through mpirun,
# which forwards SIGTERM to the ranks and then exits with a status of its own.
set(HC_SIGNAL ${CMAKE_CURRENT_SOURCE_DIR}/signal_stop.sh)
set(HC_LONG --set mesh.cells=6,5,4 --set run.steps=1000000 --set run.progress=0.1 --set output.dir=${HC_REL_DIR})
hc_add_test(signal_int_np1 COMMAND ${HC_SIGNAL} INT self 130 ${HC_REL_DIR}/signal_int_np1.yaml -- ${HC_REL_EXE}
            ${HC_LONG} --set output.results=signal_int_np1.yaml LABELS reliability TIMEOUT 120)
hc_add_test(signal_term_ranks_np2 COMMAND ${HC_SIGNAL} TERM children 143 ${HC_REL_DIR}/signal_term_ranks_np2.yaml --
            ${HC_REL_MPIRUN} 2 ${HC_REL_EXE} ${HC_LONG} --set output.results=signal_term_ranks_np2.yaml
            LABELS reliability mpi TIMEOUT 120)
hc_add_test(signal_term_mpirun_np2 COMMAND ${HC_SIGNAL} TERM self nonzero ${HC_REL_DIR}/signal_term_mpirun_np2.yaml
            -- ${HC_REL_MPIRUN} 2 ${HC_REL_EXE} ${HC_LONG} --set output.results=signal_term_mpirun_np2.yaml
            LABELS reliability mpi TIMEOUT 120)
set_tests_properties(signal_int_np1 PROPERTIES PROCESSORS 1)
set_tests_properties(signal_term_ranks_np2 signal_term_mpirun_np2 PROPERTIES PROCESSORS 2)

# Fuzzing: the corpus replays through the fuzz targets in every build (gcc included); the libFuzzer binaries
# themselves need -DHC_ENABLE_FUZZ=ON and clang (tests/fuzz/README.md).
set(HC_FUZZ_DIR ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
foreach(target deck npy)
  hc_add_test_executable(fuzz_replay_${target} SOURCES ${HC_FUZZ_DIR}/fuzz_replay.c ${HC_FUZZ_DIR}/fuzz_${target}.c
                         LIBS hc_io)
  # Each input is accepted or refused as tests/fuzz/TARGET.expect says, not merely survived.
  hc_add_test(fuzz_replay_${target} COMMAND fuzz_replay_${target} --expect ${HC_FUZZ_DIR}/${target}.expect
              ${HC_FUZZ_DIR}/corpus/${target} LABELS reliability
              TIMEOUT 120)
  if(HC_ENABLE_FUZZ)
    add_executable(fuzz_${target} ${HC_FUZZ_DIR}/fuzz_${target}.c)
    target_link_libraries(fuzz_${target} PRIVATE hc_io hc_options)
    target_link_options(fuzz_${target} PRIVATE -fsanitize=fuzzer)
    set_target_properties(fuzz_${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endif()
endforeach()
