# The writer's unit tests: VTK's node order against VTK's documented cells, file names, steps, a written piece.
hc_add_test_executable(test_vtk_writer SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_vtk_writer.c LIBS hc_io)
hc_add_test(vtk_writer COMMAND test_vtk_writer LABELS unit)

# The ParaView output (output.vtk) read back by VTK's own readers (tests/test_vtk.py, Debian's python3-vtk9, which
# run_scripts/setup.sh installs): every order (VTK's hexahedron, triquadratic and Lagrange hexahedra) on 1 and 3
# ranks, and a series of steps with its collection. The Python that has VTK's modules: the system one first
# (python3-vtk9 lives there, whatever python3 comes first on PATH), else the first on PATH. Without one the tests
# are still registered and report themselves skipped (exit 77, "SKIPPED"), never passed.
set(HC_VTK_PYTHON "")
foreach(candidate /usr/bin/python3 python3)
  find_program(HC_VTK_PYTHON_CANDIDATE_${candidate} NAMES ${candidate} NO_CACHE)
  set(exe ${HC_VTK_PYTHON_CANDIDATE_${candidate}})
  if(exe AND NOT HC_VTK_PYTHON)
    execute_process(COMMAND ${exe} -c "import vtkmodules.vtkIOXML, numpy" RESULT_VARIABLE vtk_missing OUTPUT_QUIET
                    ERROR_QUIET)
    if(vtk_missing EQUAL 0)
      set(HC_VTK_PYTHON ${exe})
    endif()
  endif()
endforeach()
if(NOT HC_VTK_PYTHON)
  message(WARNING "no python3 with VTK's modules: the vtk_last_* and vtk_series_* tests will report themselves "
                  "skipped (install python3-vtk9)")
endif()
set(HC_VTK_DIR ${CMAKE_CURRENT_BINARY_DIR}/vtk)
foreach(case "last;1;1" "last;3;1" "last;1;2" "last;3;2" "last;3;3" "last;1;4" "series;3;2" "series;1;3")
  list(GET case 0 mode)
  list(GET case 1 np)
  list(GET case 2 order)
  set(name vtk_${mode}_np${np}_p${order})
  if(HC_VTK_PYTHON)
    hc_add_test(${name} COMMAND ${HC_VTK_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_vtk.py ${mode}
                $<TARGET_FILE:hexcontract> ${MPIEXEC_EXECUTABLE} ${np} ${order} ${HC_VTK_DIR}/${mode}_np${np}_p${order}
                LABELS app mpi TIMEOUT 120)
  else()
    hc_add_test(${name} COMMAND sh -c "echo 'SKIPPED: no python3 with VTK was found at configure time: the VTK \
files were not read back (install python3-vtk9 and reconfigure)' && exit 77" LABELS app mpi)
  endif()
  set_tests_properties(${name} PROPERTIES PROCESSORS ${np})
endforeach()

# Bad VTK keys: exit 2 naming the key, before any work (the 1e8 steps of HC_VTK_LONG would time out).
set(HC_VTK_LONG --set mesh.cells=6,5,4 --set run.steps=100000000 --set output.summary=false
    --set output.dir=${CMAKE_CURRENT_BINARY_DIR}/vtk)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/vtk)
hc_add_test(vtk_bad_every COMMAND ${HC_EXPECT} 2
            "--set output.vtk_every=-1: output.vtk_every must be an integer 0..2147483647 .*got -1" --
            ${HC_EXE} ${HC_VTK_LONG} --set output.vtk=true --set output.vtk_every=-1 LABELS app TIMEOUT 30)
hc_add_test(vtk_bad_every_type COMMAND ${HC_EXPECT} 2 "--set output.vtk_every=2.5: output.vtk_every must be an integer"
            -- ${HC_EXE} ${HC_VTK_LONG} --set output.vtk=true --set output.vtk_every=2.5 LABELS app TIMEOUT 30)
hc_add_test(vtk_bad_bool COMMAND ${HC_EXPECT} 2 "--set output.vtk=yes: output.vtk must be true or false, got yes" --
            ${HC_EXE} ${HC_VTK_LONG} --set output.vtk=yes LABELS app TIMEOUT 30)
hc_add_test(vtk_too_many_files COMMAND ${HC_EXPECT} 2
            "--set output.vtk_every=10: the run would write 20000001 VTK files \\(10000000 sets, .*more than the 100000 allowed" --
            ${HC_EXE} ${HC_VTK_LONG} --set output.vtk=true --set output.vtk_every=10 LABELS app TIMEOUT 30)
hc_add_test(vtk_no_name COMMAND ${HC_EXPECT} 2
            "--set output.results=.yaml: VTK output: the results name '.yaml' leaves no file name" --
            ${HC_EXE} ${HC_VTK_LONG} --set output.vtk=true --set output.results=.yaml LABELS app TIMEOUT 30)
