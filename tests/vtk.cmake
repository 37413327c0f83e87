# The ParaView output (output.vtk) read back by VTK's own readers (tests/test_vtk.py, Debian's python3-vtk9, which
# run_scripts/setup.sh installs): "skipped" when VTK's Python modules are missing. Every order (VTK's hexahedron,
# triquadratic and Lagrange hexahedra) on 1 and 3 ranks, and a series of steps with its collection.
find_program(HC_VTK_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(HC_VTK_PYTHON NAMES python3)
if(HC_VTK_PYTHON)
  set(HC_VTK_DIR ${CMAKE_CURRENT_BINARY_DIR}/vtk)
  foreach(case "last;1;1" "last;3;1" "last;1;2" "last;3;2" "last;3;3" "last;1;4" "series;3;2" "series;1;3")
    list(GET case 0 mode)
    list(GET case 1 np)
    list(GET case 2 order)
    hc_add_test(vtk_${mode}_np${np}_p${order} COMMAND ${HC_VTK_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_vtk.py ${mode}
                $<TARGET_FILE:hexcontract> ${MPIEXEC_EXECUTABLE} ${np} ${order} ${HC_VTK_DIR}/${mode}_np${np}_p${order}
                LABELS app mpi TIMEOUT 120)
    set_tests_properties(vtk_${mode}_np${np}_p${order} PROPERTIES PROCESSORS ${np})
  endforeach()
endif()
