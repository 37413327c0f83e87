# The proxy run with run.assembly: fused (README.md, section Fused assembly) on the openmp backend: every check
# passes in both precisions and layouts and at orders 1 to 4; the global results equal the materialized run's and
# do not depend on the rank count (1e-12); a mesh file of triquadratic cells; --dump writes the outputs only; the
# serial reference refuses it before any work, exit 2; and the same on the cuda backend where a GPU is present.
# Orders 1 to 4 in fused mode, each in another precision and layout, every check passing: tests app_NAME_order*,
# results NAME_order*.yaml; RUN the run's command line, SKIP expect.sh's skip options.
function(hc_fused_order_tests name)
  cmake_parse_arguments(F "" "" "RUN;SKIP;LABELS" ${ARGN})
  foreach(combo 1:double:cell-minor 2:float:cell-major 3:double:cell-major 4:float:cell-minor 4:double:cell-major)
    string(REPLACE ":" ";" combo ${combo})
    list(GET combo 0 p)
    list(GET combo 1 prec)
    list(GET combo 2 layout)
    hc_add_test(app_${name}_order${p}_${prec}_${layout} COMMAND ${HC_EXPECT} 0 "exactness +ok" ${F_SKIP} --
                ${F_RUN} --set mesh.order=${p} --set run.precision=${prec} --set run.layout=${layout}
                --set output.results=${name}_order${p}_${prec}_${layout}.yaml LABELS ${F_LABELS})
  endforeach()
endfunction()

if(HC_HAVE_OPENMP)
  set(HC_FUSED ${HC_EXE} ${HC_SMALL} --set run.backend=openmp --set run.assembly=fused)
  foreach(prec float double)
    foreach(layout cell-major cell-minor)
      hc_add_test(app_fused_${prec}_${layout} COMMAND ${HC_EXPECT} 0 "patch_test +ok" --file
                  ${HC_APP_DIR}/fused_${prec}_${layout}.yaml --file-match "^    assembly: fused" --
                  ${HC_FUSED} --set run.precision=${prec} --set run.layout=${layout}
                  --set output.results=fused_${prec}_${layout}.yaml LABELS app)
    endforeach()
  endforeach()
  hc_fused_order_tests(fused RUN ${HC_FUSED} LABELS app)

  # Fused against materialized, and fused on 1 to 4 ranks: the materialized 1-rank run of app_partition_np1 and the
  # fused runs, to 1e-12 (double); the same in cell-minor order 3 against a materialized run of its own.
  set(files ${HC_APP_DIR}/partition_np1.yaml)
  foreach(np 1 2 3 4)
    hc_add_test(app_fused_partition_np${np} COMMAND ${HC_EXPECT} 0 "fused assembly" --file
                ${HC_APP_DIR}/fused_partition_np${np}.yaml -- ${HC_MPIRUN} ${np} ${HC_EXE} --set run.backend=openmp
                --set run.assembly=fused --set mesh.cells=7,6,5 --set run.steps=2 --set output.dir=${HC_APP_DIR}
                --set output.results=fused_partition_np${np}.yaml LABELS app mpi TIMEOUT 120)
    set_tests_properties(app_fused_partition_np${np} PROPERTIES FIXTURES_SETUP fused_partition)
    list(APPEND files ${HC_APP_DIR}/fused_partition_np${np}.yaml)
  endforeach()
  hc_add_test(app_fused_partition_independence COMMAND compare_results 1e-12 ${files} LABELS app mpi)
  set_tests_properties(app_fused_partition_independence PROPERTIES FIXTURES_REQUIRED "fused_partition;partition")
  set(files "")
  foreach(mode materialized fused)
    hc_add_test(app_fused_same_${mode} COMMAND ${HC_EXPECT} 0 "${mode} assembly" --file
                ${HC_APP_DIR}/fused_same_${mode}.yaml -- ${HC_EXE} ${HC_SMALL} --set run.backend=openmp
                --set run.assembly=${mode} --set mesh.order=3 --set run.layout=cell-minor
                --set output.results=fused_same_${mode}.yaml LABELS app)
    set_tests_properties(app_fused_same_${mode} PROPERTIES FIXTURES_SETUP fused_same)
    list(APPEND files ${HC_APP_DIR}/fused_same_${mode}.yaml)
  endforeach()
  hc_add_test(app_fused_same COMMAND compare_results 1e-12 ${files} LABELS app)
  set_tests_properties(app_fused_same PROPERTIES FIXTURES_REQUIRED fused_same)

  # A Gmsh mesh of triquadratic cells, fused: every check passes, and the results equal the materialized run's.
  if(HC_HAVE_GMSH)
    set(files "")
    foreach(mode materialized fused)
      hc_add_test(app_fused_pipe_${mode} COMMAND ${HC_EXPECT} 0 "patch_test +ok" --file
                  ${HC_APP_DIR}/fused_pipe_${mode}.yaml -- ${HC_EXE} ${PROJECT_SOURCE_DIR}/inputs/pipe.yaml
                  --set run.backend=openmp --set run.assembly=${mode} --set run.steps=1 --set output.dir=${HC_APP_DIR}
                  --set output.results=fused_pipe_${mode}.yaml LABELS app mesh TIMEOUT 120)
      set_tests_properties(app_fused_pipe_${mode} PROPERTIES FIXTURES_SETUP fused_pipe)
      list(APPEND files ${HC_APP_DIR}/fused_pipe_${mode}.yaml)
    endforeach()
    hc_add_test(app_fused_pipe COMMAND compare_results 1e-12 ${files} LABELS app mesh)
    set_tests_properties(app_fused_pipe PROPERTIES FIXTURES_REQUIRED fused_pipe)
  endif()

  # --dump in fused mode: the outputs, and no input array.
  hc_add_test(app_fused_dump COMMAND sh -c "rm -rf '${HC_APP_DIR}/fused_dump' && mkdir -p '${HC_APP_DIR}/fused_dump' \
&& \"$0\" \"$@\" > /dev/null && test -f '${HC_APP_DIR}/fused_dump/dump_FieldFieldVector_out.npy' \
&& ! ls '${HC_APP_DIR}/fused_dump' | grep -q -e _left -e _right" ${HC_FUSED} --dump 2
              --set output.dir=${HC_APP_DIR}/fused_dump --set output.results=fused_dump.yaml LABELS app)
endif()

# The serial reference stays materialized: refused before any work.
hc_add_test(app_fused_serial COMMAND ${HC_EXPECT} 2
            "--set run.assembly=fused: fused mode is not yet on backend serial \\(the materialized reference" --
            ${HC_EXE} ${HC_SMALL} --set run.backend=serial --set run.assembly=fused LABELS app)

# On the GPU (skipped without one): every check passes in both precisions and layouts and at orders 1 to 4 (a
# triquadratic-free box; the unit test fused_cuda covers 27-node cells); the results equal the materialized GPU
# run's to 1e-12, and do not depend on the rank count.
if(HC_HAVE_CUDA)
  set(HC_NO_GPU "no usable CUDA device")
  set(HC_FUSED_CUDA ${HC_EXE} ${HC_SMALL} --set run.backend=cuda --set run.assembly=fused)
  foreach(prec float double)
    foreach(layout cell-major cell-minor)
      hc_add_test(app_fused_cuda_${prec}_${layout} COMMAND ${HC_EXPECT} 0 "device_vs_host +ok" --skip-if 3
                  ${HC_NO_GPU} -- ${HC_FUSED_CUDA} --set run.precision=${prec} --set run.layout=${layout}
                  --set output.results=fused_cuda_${prec}_${layout}.yaml LABELS app GPU)
    endforeach()
  endforeach()
  hc_fused_order_tests(fused_cuda RUN ${HC_FUSED_CUDA} SKIP --skip-if 3 ${HC_NO_GPU} LABELS app GPU)
  set(files "")
  # (fused: its kernels on 3 lanes side by side, run.lanes' default)
  set(lanes_materialized 1)
  set(lanes_fused 3)
  foreach(mode materialized fused)
    hc_add_test(app_fused_cuda_same_${mode} COMMAND ${HC_EXPECT} 0 "${mode} assembly" --file
                ${HC_APP_DIR}/fused_cuda_same_${mode}.yaml --file-match "kernel_lanes: ${lanes_${mode}}$" --skip-if 3 ${HC_NO_GPU} -- ${HC_EXE} ${HC_SMALL}
                --set run.backend=cuda --set run.assembly=${mode} --set mesh.order=3 --set run.layout=cell-minor
                --set output.results=fused_cuda_same_${mode}.yaml LABELS app GPU)
    set_tests_properties(app_fused_cuda_same_${mode} PROPERTIES FIXTURES_SETUP fused_cuda_same)
    list(APPEND files ${HC_APP_DIR}/fused_cuda_same_${mode}.yaml)
  endforeach()
  # the fused kernels one after another (run.lanes: 1) as side by side (the default, 3 lanes)
  hc_add_test(app_fused_cuda_same_lanes1 COMMAND ${HC_EXPECT} 0 "fused assembly" --file
              ${HC_APP_DIR}/fused_cuda_same_lanes1.yaml --file-match "kernel_lanes: 1$" --skip-if 3 ${HC_NO_GPU} -- ${HC_EXE} ${HC_SMALL}
              --set run.backend=cuda --set run.assembly=fused --set run.lanes=1 --set mesh.order=3
              --set run.layout=cell-minor --set output.results=fused_cuda_same_lanes1.yaml LABELS app GPU)
  set_tests_properties(app_fused_cuda_same_lanes1 PROPERTIES FIXTURES_SETUP fused_cuda_same)
  list(APPEND files ${HC_APP_DIR}/fused_cuda_same_lanes1.yaml)
  hc_add_test(app_fused_cuda_same COMMAND ${HC_EXPECT} 0 "the same" --skip-if 3 ${HC_NO_GPU} --
              sh ${CMAKE_CURRENT_SOURCE_DIR}/gpu_probe_then.sh $<TARGET_FILE:hexcontract> ${HC_APP_DIR} --
              $<TARGET_FILE:compare_results> 1e-12 ${files} LABELS app GPU)
  set_tests_properties(app_fused_cuda_same PROPERTIES FIXTURES_REQUIRED fused_cuda_same)
  set(files ${HC_APP_DIR}/partition_np1.yaml)
  foreach(np 1 3)
    hc_add_test(app_fused_cuda_partition_np${np} COMMAND ${HC_EXPECT} 0 "fused assembly" --file
                ${HC_APP_DIR}/fused_cuda_partition_np${np}.yaml --skip-if 3 ${HC_NO_GPU} -- ${HC_MPIRUN} ${np}
                ${HC_EXE} --set run.backend=cuda --set run.assembly=fused --set mesh.cells=7,6,5 --set run.steps=2
                --set output.dir=${HC_APP_DIR} --set output.results=fused_cuda_partition_np${np}.yaml
                LABELS app mpi GPU TIMEOUT 120)
    set_tests_properties(app_fused_cuda_partition_np${np} PROPERTIES FIXTURES_SETUP fused_cuda_partition)
    list(APPEND files ${HC_APP_DIR}/fused_cuda_partition_np${np}.yaml)
  endforeach()
  hc_add_test(app_fused_cuda_partition_independence COMMAND ${HC_EXPECT} 0 "the same" --skip-if 3 ${HC_NO_GPU} --
              sh ${CMAKE_CURRENT_SOURCE_DIR}/gpu_probe_then.sh $<TARGET_FILE:hexcontract> ${HC_APP_DIR} --
              $<TARGET_FILE:compare_results> 1e-12 ${files} LABELS app mpi GPU)
  set_tests_properties(app_fused_cuda_partition_independence PROPERTIES FIXTURES_REQUIRED
                                                                        "fused_cuda_partition;partition")
endif()
