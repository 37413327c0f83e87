# A mesh file's run in ParaView's format (output.vtk), read back by VTK's own reader (after vtk.cmake, which finds
# HC_VTK_PYTHON; meshrun.cmake has the other mesh-file tests).
if(HC_HAVE_GMSH AND HC_VTK_PYTHON)
  hc_add_test(meshrun_vtk COMMAND ${HC_VTK_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_mesh_vtk.py
              $<TARGET_FILE:hexcontract> ${MPIEXEC_EXECUTABLE} ${PROJECT_SOURCE_DIR}/inputs/meshes/lbracket.msh
              ${CMAKE_CURRENT_BINARY_DIR}/meshrun/vtk ${HC_RUN_BACKEND} $<IF:$<BOOL:${HC_HAVE_METIS}>,2,1>
              LABELS app mesh vtk TIMEOUT 120)
endif()
