# The proxy run end to end: decks, exit codes, results files, and partition independence (app/README.md, section Checks).
pkg_check_modules(HC_TEST_YAML REQUIRED IMPORTED_TARGET yaml-0.1)
hc_add_test_executable(compare_results SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/compare_results.c
                       LIBS PkgConfig::HC_TEST_YAML m)

set(HC_EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/expect.sh)
# Every run names the backend: the decks say openmp, which a build without OpenMP lacks.
set(HC_EXE $<TARGET_FILE:hexcontract> --set run.backend=${HC_RUN_BACKEND})
set(HC_MPIRUN ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG})
set(HC_APP_DIR ${CMAKE_CURRENT_BINARY_DIR}/app)
file(MAKE_DIRECTORY ${HC_APP_DIR})
# A small, quick problem for the tests.
set(HC_SMALL --set mesh.cells=6,5,4 --set run.steps=2 --set output.dir=${HC_APP_DIR})

foreach(backend serial openmp intrepid2)
  if((backend STREQUAL "openmp" AND NOT HC_HAVE_OPENMP) OR (backend STREQUAL "intrepid2" AND NOT HC_HAVE_INTREPID2))
    continue()
  endif()
  # Every check ok, and a results file written by this run (deleted first) that says passed; on serial the
  # summary says that device_vs_host compares serial with serial.
  set(check_line "device_vs_host +ok")
  if(backend STREQUAL "serial")
    set(check_line "this compares serial with serial")
  endif()
  hc_add_test(app_run_${backend} COMMAND ${HC_EXPECT} 0 "${check_line}" --file ${HC_APP_DIR}/run_${backend}.yaml
              --file-match "^status: passed" --
              ${HC_EXE} ${HC_SMALL} --set run.backend=${backend} --set output.results=run_${backend}.yaml
              LABELS app)
  foreach(prec float double)
    foreach(layout cell-major cell-minor)
      hc_add_test(app_checks_${backend}_${prec}_${layout} COMMAND ${HC_EXPECT} 0 "patch_test +ok" --
                  ${HC_EXE} ${HC_SMALL} --set run.backend=${backend} --set run.precision=${prec}
                  --set run.layout=${layout} --set output.results=checks_${backend}_${prec}_${layout}.yaml
                  LABELS app)
    endforeach()
  endforeach()
endforeach()

# compare_results itself: a cancelling nodal sum rounded otherwise is the same (its scale is the vector's 1-norm
# bound, sqrt(N) |y|_2), one beyond that bound differs (exit 1, the value named).
set(HC_CMP_DIR ${CMAKE_CURRENT_SOURCE_DIR}/data/results/compare)
hc_add_test(compare_results_roundoff COMMAND ${HC_EXPECT} 0 "6 values of 2 files compared \\(1e-12\\): the same" --
            $<TARGET_FILE:compare_results> 1e-12 ${HC_CMP_DIR}/reference.yaml ${HC_CMP_DIR}/roundoff.yaml LABELS app)
hc_add_test(compare_results_differs COMMAND ${HC_EXPECT} 1 "FieldFieldTensor.nodal_sum = 1.99" --
            $<TARGET_FILE:compare_results> 1e-12 ${HC_CMP_DIR}/reference.yaml ${HC_CMP_DIR}/wrong.yaml LABELS app)

# The results file parses as YAML and holds every documented field.
hc_add_test(app_results_fields COMMAND compare_results --fields ${HC_APP_DIR}/run_openmp.yaml LABELS app)
if(HC_HAVE_OPENMP)
  set_tests_properties(app_run_openmp PROPERTIES FIXTURES_SETUP run_openmp)
  set_tests_properties(app_results_fields PROPERTIES FIXTURES_REQUIRED run_openmp)
else()
  set_tests_properties(app_results_fields PROPERTIES DISABLED TRUE)
endif()
# A CSV row per run is appended to output.csv (its fields checked); --dump writes .npy arrays whose inputs,
# contracted again, give the dumped output.
hc_add_test(app_csv_and_dump COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/csv_dump.sh $<TARGET_FILE:hexcontract>
            ${HC_APP_DIR}/csv_dump LABELS app)

# Every malformed deck of tests/data/decks gives exit 2 and a message that starts with file:line:column.
file(GLOB HC_BAD_DECKS ${CMAKE_CURRENT_SOURCE_DIR}/data/decks/*.yaml)
foreach(deck ${HC_BAD_DECKS})
  get_filename_component(name ${deck} NAME_WE)
  hc_add_test(app_bad_deck_${name} COMMAND ${HC_EXPECT} 2 "error: .*${name}.yaml:[0-9]+:[0-9]+: " -- ${HC_EXE}
              ${deck} LABELS app)
endforeach()

# Every shipped deck runs and verifies (shrunk here; whole in the nightly set).
file(GLOB HC_DECKS ${PROJECT_SOURCE_DIR}/inputs/*.yaml)
foreach(deck ${HC_DECKS})
  get_filename_component(name ${deck} NAME_WE)
  # A deck of a mesh file needs the Gmsh reader (and METIS for the nightly's two ranks).
  file(READ ${deck} text)
  if(text MATCHES "source: file" AND NOT HC_HAVE_GMSH)
    hc_add_test(app_deck_${name} COMMAND sh -c "echo 'SKIPPED: ${name}.yaml reads a Gmsh mesh and this build has no \
Gmsh reader (install libgmsh-dev)'; exit ${HC_SKIP_RETURN_CODE}" LABELS app)
    continue()
  endif()
  hc_add_test(app_deck_${name} COMMAND ${HC_EXPECT} 0 "results: " -- ${HC_EXE} ${deck} --set mesh.cells=4,4,3
              --set run.steps=1 --set output.dir=${HC_APP_DIR} --set output.results=deck_${name}.yaml LABELS app)
  if(HC_NIGHTLY_TESTS AND (HC_HAVE_METIS OR NOT text MATCHES "source: file"))
    hc_add_test(nightly_deck_${name} COMMAND ${HC_EXPECT} 0 "results: " -- ${HC_MPIRUN} 2 ${HC_EXE} ${deck}
                --set output.dir=${HC_APP_DIR} --set output.results=nightly_${name}.yaml LABELS nightly TIMEOUT 3600)
  endif()
endforeach()

# Bad input: exit 2 with file:line:column, on several ranks, none hanging.
hc_add_test(app_bad_deck COMMAND ${HC_EXPECT} 2 "bad_order.yaml:4:10: mesh.order must be an integer 1..4, got 7" --
            ${HC_MPIRUN} 3 ${HC_EXE} ${CMAKE_CURRENT_SOURCE_DIR}/data/app/bad_order.yaml LABELS app mpi TIMEOUT 60)
hc_add_test(app_bad_set COMMAND ${HC_EXPECT} 2 "--set run.steps=0: run.steps must be" --
            ${HC_EXE} --set run.steps=0 LABELS app)
# Cells that the mesh motion folds during the run: exit 2 naming the step's time, on 2 ranks, materialized and (where
# the backend has it) fused. A device queues a step's cell data and checks its cells once at the step's end.
foreach(mode materialized fused)
  if(mode STREQUAL "fused" AND HC_RUN_BACKEND STREQUAL "serial")
    continue()
  endif()
  hc_add_test(app_folding_cells_${mode} COMMAND ${HC_EXPECT} 2 "cell [0-9]+ is inverted or degenerate at t = 0.8:" --
              ${HC_MPIRUN} 2 ${HC_EXE} ${PROJECT_SOURCE_DIR}/inputs/order1.yaml --set mesh.cells=4
              --set mesh.shear.amplitude=3 --set run.assembly=${mode} --set output.dir=${HC_APP_DIR}
              --set output.results=folding_${mode}.yaml LABELS app mpi TIMEOUT 60)
endforeach()
hc_add_test(app_missing_deck COMMAND ${HC_EXPECT} 2 "nonexistent.yaml" -- ${HC_EXE} nonexistent.yaml LABELS app)
hc_add_test(app_bad_option COMMAND ${HC_EXPECT} 2 "unknown option '--frob'" -- ${HC_EXE} --frob LABELS app)
hc_add_test(app_bad_output_dir COMMAND ${HC_EXPECT} 2 "output.dir" -- ${HC_EXE} ${HC_SMALL}
            --set output.dir=/nonexistent/dir LABELS app)
if(NOT HC_HAVE_CUDA)
  hc_add_test(app_backend_not_built COMMAND ${HC_EXPECT} 2 "not built into this binary" -- ${HC_EXE}
              --set run.backend=cuda LABELS app)
endif()
# Out of memory is refused before any work, with the estimate, the limit and what would fit.
hc_add_test(app_memory_refused COMMAND ${HC_EXPECT} 3 "GiB of host memory .* cells per rank fit" -- ${HC_EXE}
            --set mesh.cells=200,200,200 --set memory.host_limit_gib=0.5 LABELS app)
# A failing check makes the exit code 1 (an impossible tolerance).
hc_add_test(app_check_fails COMMAND ${HC_EXPECT} 1 "FAILED" -- ${HC_EXE} ${HC_SMALL}
            --set checks.tolerance_factor=1e-30 --set output.results=fails.yaml LABELS app)

# Partition independence (app/README.md): global results agree across rank counts: to 1e-12 relative in double, and bitwise
# with run.deterministic (sums over cells; assembled nodal vectors are compared to 1e-12 either way).
set(HC_PI_FILES "")
set(HC_PI_DET_FILES "")
foreach(np 1 2 3 4)
  hc_add_test(app_partition_np${np} COMMAND ${HC_EXPECT} 0 "results: " --file ${HC_APP_DIR}/partition_np${np}.yaml --
              ${HC_MPIRUN} ${np} ${HC_EXE}
              --set mesh.cells=7,6,5 --set run.steps=2 --set output.dir=${HC_APP_DIR}
              --set output.results=partition_np${np}.yaml LABELS app mpi TIMEOUT 120)
  set_tests_properties(app_partition_np${np} PROPERTIES FIXTURES_SETUP partition)
  hc_add_test(app_deterministic_np${np} COMMAND ${HC_EXPECT} 0 "results: " --file
              ${HC_APP_DIR}/deterministic_np${np}.yaml -- ${HC_MPIRUN} ${np} ${HC_EXE}
              --set mesh.cells=7,6,5 --set run.steps=2 --set run.deterministic=true --set output.dir=${HC_APP_DIR}
              --set output.results=deterministic_np${np}.yaml LABELS app mpi reliability TIMEOUT 120)
  set_tests_properties(app_deterministic_np${np} PROPERTIES FIXTURES_SETUP deterministic)
  list(APPEND HC_PI_FILES ${HC_APP_DIR}/partition_np${np}.yaml)
  list(APPEND HC_PI_DET_FILES ${HC_APP_DIR}/deterministic_np${np}.yaml)
endforeach()
hc_add_test(app_partition_independence COMMAND compare_results 1e-12 ${HC_PI_FILES} LABELS app mpi)
set_tests_properties(app_partition_independence PROPERTIES FIXTURES_REQUIRED partition)
hc_add_test(app_deterministic_bitwise COMMAND compare_results exact ${HC_PI_DET_FILES} LABELS app mpi reliability)
set_tests_properties(app_deterministic_bitwise PROPERTIES FIXTURES_REQUIRED deterministic)

# The same on 8 ranks, whose 2 x 2 x 2 rank grid has an interior corner (a node shared by all 8 ranks, reached
# through the halo's corner neighbours) and uneven blocks (6 x 5 x 4 cells): the DataData sums, the check values
# and the norms and sums of every assembled nodal vector against the 1-rank run.
foreach(mode partition deterministic)
  set(det false)
  if(mode STREQUAL "deterministic")
    set(det true)
  endif()
  set(files "")
  foreach(np 1 8)
    set(grid "1 x 1 x 1")
    if(np EQUAL 8)
      set(grid "2 x 2 x 2")
    endif()
    # One thread per rank: 8 ranks share the 2 cores of a small machine.
    hc_add_test(app_corner_${mode}_np${np} COMMAND ${HC_EXPECT} 0 "rank grid ${grid}," --file
                ${HC_APP_DIR}/corner_${mode}_np${np}.yaml -- env OMP_NUM_THREADS=1 ${HC_MPIRUN} ${np} ${HC_EXE}
                --set mesh.cells=6,5,4 --set run.steps=2 --set run.deterministic=${det} --set output.dir=${HC_APP_DIR}
                --set output.results=corner_${mode}_np${np}.yaml LABELS app mpi TIMEOUT 120)
    set_tests_properties(app_corner_${mode}_np${np} PROPERTIES FIXTURES_SETUP corner_${mode} PROCESSORS 2)
    list(APPEND files ${HC_APP_DIR}/corner_${mode}_np${np}.yaml)
  endforeach()
  set(tol 1e-12)
  if(det)
    set(tol exact)
  endif()
  hc_add_test(app_corner_${mode} COMMAND compare_results ${tol} ${files} LABELS app mpi)
  set_tests_properties(app_corner_${mode} PROPERTIES FIXTURES_REQUIRED corner_${mode})
endforeach()

# The proxy run on the GPU (skipped without one): every precision and layout on one rank, and the
# partition independence on 1, 2 and 3 ranks sharing the node's GPUs.
if(HC_HAVE_CUDA)
  set(HC_NO_GPU "no usable CUDA device")
  foreach(prec float double)
    foreach(layout cell-major cell-minor)
      hc_add_test(app_gpu_${prec}_${layout} COMMAND ${HC_EXPECT} 0 "patch_test +ok" --skip-if 3 ${HC_NO_GPU} --
                  ${HC_EXE} ${HC_SMALL} --set run.backend=cuda --set run.precision=${prec} --set run.layout=${layout}
                  --set output.results=gpu_${prec}_${layout}.yaml LABELS app GPU)
    endforeach()
  endforeach()
  set(HC_GPU_PI_FILES "")
  foreach(np 1 2 3)
    hc_add_test(app_gpu_partition_np${np} COMMAND ${HC_EXPECT} 0 "results: " --file
                ${HC_APP_DIR}/gpu_partition_np${np}.yaml --skip-if 3 ${HC_NO_GPU} -- ${HC_MPIRUN}
                ${np} ${HC_EXE} --set run.backend=cuda --set mesh.cells=7,6,5 --set run.steps=2
                --set output.dir=${HC_APP_DIR} --set output.results=gpu_partition_np${np}.yaml
                LABELS app mpi GPU TIMEOUT 120)
    set_tests_properties(app_gpu_partition_np${np} PROPERTIES FIXTURES_SETUP gpu_partition)
    list(APPEND HC_GPU_PI_FILES ${HC_APP_DIR}/gpu_partition_np${np}.yaml)
  endforeach()
  # Partition independence on the GPU, and the GPU against the CPU reference run of app_partition_np1; skipped
  # only when a probe run finds no GPU, so that a GPU run that wrote no file fails the comparison.
  hc_add_test(app_gpu_partition_independence COMMAND ${HC_EXPECT} 0 "the same" --skip-if 3 ${HC_NO_GPU} --
              sh ${CMAKE_CURRENT_SOURCE_DIR}/gpu_probe_then.sh $<TARGET_FILE:hexcontract> ${HC_APP_DIR} --
              $<TARGET_FILE:compare_results> 1e-12 ${HC_APP_DIR}/partition_np1.yaml ${HC_GPU_PI_FILES}
              LABELS app mpi GPU)
  set_tests_properties(app_gpu_partition_independence PROPERTIES FIXTURES_REQUIRED "gpu_partition;partition")
endif()

# A variant a backend lacks is refused before any work, naming where it was set (deck line or --set).
if(NOT HC_HAVE_CUDA)
  hc_add_test(app_variant_set COMMAND ${HC_EXPECT} 2
              "--set kernels.variants.FieldFieldTensor=tile: variant 'tile' is not available on backend" --
              ${HC_EXE} ${HC_SMALL} --set kernels.variants.FieldFieldTensor=tile LABELS app)
  hc_add_test(app_variant_deck COMMAND ${HC_EXPECT} 2 "variant_tile.yaml:3:32: variant 'tile' is not available" --
              ${HC_EXE} ${CMAKE_CURRENT_SOURCE_DIR}/data/app/variant_tile.yaml ${HC_SMALL} LABELS app)
endif()
# Geometry at any scale: a long, thin (jittered) box runs and verifies in both precisions; cells too small for
# float precision are refused before any work, naming mesh.length.
foreach(prec double float)
  hc_add_test(app_thin_box_${prec} COMMAND ${HC_EXPECT} 0 "patch_test +ok" -- ${HC_EXE} ${HC_SMALL}
              --set mesh.length=1e6,1,1e-6 --set mesh.shear.amplitude=0 --set run.precision=${prec}
              --set output.results=thin_${prec}.yaml LABELS app)
endforeach()
hc_add_test(app_float_cells_too_small COMMAND ${HC_EXPECT} 2
            "--set mesh.length=1e-9: cells of .* have a volume of .*, below the 1e-30 that float precision" --
            ${HC_EXE} ${HC_SMALL} --set mesh.length=1e-9 --set mesh.cells=40 --set run.precision=float LABELS app)
# A check that fails because the deck's quadrature is too low for it says so.
hc_add_test(app_quadrature_hint COMMAND ${HC_EXPECT} 1
            "patch_test +FAILED.*\n.*hint: mesh.quadrature gives q = 2 points per direction, below the 3 this check needs at order 3"
            -- ${HC_EXE} ${HC_SMALL} --set mesh.order=3 --set mesh.quadrature=2 --set output.results=hint.yaml LABELS app)
