# hexcontract bench: its measures (unit) and quick runs on the CPU backends (app), bad options (exit 2).
hc_add_test_executable(test_bench SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_bench.c ${PROJECT_SOURCE_DIR}/app/bench_targets.c
                       LIBS hc_io hc_kernels m)
hc_add_test(bench_unit COMMAND test_bench LABELS unit)

set(HC_BENCH_DIR ${CMAKE_CURRENT_BINARY_DIR}/bench)
file(MAKE_DIRECTORY ${HC_BENCH_DIR})
foreach(backend serial openmp intrepid2)
  if((backend STREQUAL "openmp" AND NOT HC_HAVE_OPENMP) OR (backend STREQUAL "intrepid2" AND NOT HC_HAVE_INTREPID2))
    continue()
  endif()
  hc_add_test(bench_${backend} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_bench.sh $<TARGET_FILE:hexcontract>
              ${backend} ${HC_BENCH_DIR}/${backend} ${HC_HAVE_INTREPID2} LABELS app)
endforeach()

set(HC_BENCH_EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/expect.sh)
set(HC_BENCH_EXE $<TARGET_FILE:hexcontract>)
hc_add_test(bench_help COMMAND ${HC_BENCH_EXPECT} 0 "--memory-gb G" -- ${HC_BENCH_EXE} bench --help LABELS app)
hc_add_test(bench_bad_option COMMAND ${HC_BENCH_EXPECT} 2 "unknown option '--frob'" -- ${HC_BENCH_EXE} bench --frob
            LABELS app)
hc_add_test(bench_bad_kernel COMMAND ${HC_BENCH_EXPECT} 2 "option --kernel: unknown kernel 'FieldFieldMatrix'" --
            ${HC_BENCH_EXE} bench --kernel FieldFieldMatrix LABELS app)
hc_add_test(bench_bad_variant COMMAND ${HC_BENCH_EXPECT} 2 "option --variant: unknown variant 'fast'" --
            ${HC_BENCH_EXE} bench --variant flat,fast LABELS app)
hc_add_test(bench_bad_precision COMMAND ${HC_BENCH_EXPECT} 2 "option --precision: expected double, float or both" --
            ${HC_BENCH_EXE} bench --precision half LABELS app)
hc_add_test(bench_bad_layout COMMAND ${HC_BENCH_EXPECT} 2 "option --layout: expected cell-major, cell-minor or both"
            -- ${HC_BENCH_EXE} bench --layout diagonal LABELS app)
hc_add_test(bench_bad_shapes COMMAND ${HC_BENCH_EXPECT} 2 "option --shapes: expected 'standard' or L,P pairs" --
            ${HC_BENCH_EXE} bench --shapes 8x8 LABELS app)
hc_add_test(bench_bad_memory COMMAND ${HC_BENCH_EXPECT} 2 "option --memory-gb: expected a number" --
            ${HC_BENCH_EXE} bench --memory-gb -1 LABELS app)
hc_add_test(bench_bad_cells COMMAND ${HC_BENCH_EXPECT} 2 "option --cells: expected an integer from 1" --
            ${HC_BENCH_EXE} bench --cells 0 LABELS app)
hc_add_test(bench_bad_repeat COMMAND ${HC_BENCH_EXPECT} 2 "option --repeat: expected an integer from 1" --
            ${HC_BENCH_EXE} bench --repeat x LABELS app)
hc_add_test(bench_bad_out COMMAND ${HC_BENCH_EXPECT} 2 "option --out /nonexistent/dir/x: cannot create directory" --
            ${HC_BENCH_EXE} bench --backend serial --cells 10 --memory-gb 0.001 --shapes 8,8 --kernel DataDataScalar
            --out /nonexistent/dir/x LABELS app)
hc_add_test(bench_bad_backend COMMAND ${HC_BENCH_EXPECT} 2 "frob" -- ${HC_BENCH_EXE} bench --backend frob LABELS app)
if(NOT HC_HAVE_INTREPID2)
  hc_add_test(bench_intrepid2_not_built COMMAND ${HC_BENCH_EXPECT} 2 "not built into this binary" -- ${HC_BENCH_EXE}
              bench --backend intrepid2 LABELS app)
endif()
if(NOT HC_HAVE_CUDA)
  hc_add_test(bench_cuda_not_built COMMAND ${HC_BENCH_EXPECT} 2 "not built into this binary" -- ${HC_BENCH_EXE} bench
              --backend cuda LABELS app)
endif()
# A kernel or variant named twice in a list is refused, naming it.
hc_add_test(bench_repeated_kernel COMMAND ${HC_BENCH_EXPECT} 2
            "option --kernel: FieldFieldTensor is named twice in 'FieldFieldTensor,DataData,FieldFieldTensor'" --
            ${HC_BENCH_EXE} bench --backend serial --kernel FieldFieldTensor,DataData,FieldFieldTensor LABELS app)
hc_add_test(bench_repeated_variant COMMAND ${HC_BENCH_EXPECT} 2 "option --variant: auto is named twice" --
            ${HC_BENCH_EXE} bench --backend serial --variant auto,flat,auto LABELS app)
