# The mesh file readers (io/hc_meshfile.h): node orders, coordinates, volumes, the writer and refused files, per format
# (gmsh, exodus; each reports itself skipped, exit 77 with a SKIPPED line, when its reader is not built in, after
# checking that reading such a file says "not built" and names the CMake option), and the shipped meshes of
# inputs/meshes.
hc_add_test_executable(test_meshfile SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_meshfile.c LIBS hc_io)
if(HC_HAVE_GMSH)
  target_include_directories(test_meshfile SYSTEM PRIVATE ${HC_GMSH_INCLUDE_DIR})
  target_link_libraries(test_meshfile PRIVATE ${HC_GMSH_LIBRARY})
endif()
if(HC_HAVE_EXODUS)
  target_include_directories(test_meshfile SYSTEM PRIVATE ${HC_EXODUS_INCLUDE_DIR})
  target_link_libraries(test_meshfile PRIVATE ${HC_EXODUS_LIBRARY})
endif()
set(HC_MESHFILE_DIR ${CMAKE_CURRENT_BINARY_DIR}/meshfile)
foreach(group common gmsh exodus)
  hc_add_test(meshfile_${group} COMMAND test_meshfile ${group} ${HC_MESHFILE_DIR}/${group} LABELS unit TIMEOUT 120)
endforeach()
# Under the sanitizers, LeakSanitizer is told of a leak inside Gmsh's own reader (tests/lsan_gmsh.supp).
if(HC_ENABLE_SANITIZERS)
  set_property(TEST meshfile_gmsh APPEND PROPERTY ENVIRONMENT
               LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan_gmsh.supp:print_suppressions=0)
endif()
hc_add_test(meshfile_shipped COMMAND test_meshfile shipped ${PROJECT_SOURCE_DIR}/inputs/meshes LABELS unit TIMEOUT 120)
if(NOT HC_HAVE_GMSH)
  message(WARNING "the Gmsh reader is not built: the meshfile_gmsh and meshfile_shipped tests will report themselves "
                  "skipped (install libgmsh-dev)")
endif()
if(NOT HC_HAVE_EXODUS)
  message(WARNING "the Exodus II reader is not built: the meshfile_exodus test will report itself skipped (install "
                  "libexodusii-dev)")
endif()

# The hex27 layouts that the gmsh and exodus groups build their files from, checked by third-party readers: VTK's
# Exodus II reader and meshio's Gmsh reader read those files (tests/test_meshfile_vtk.py; it reports itself skipped
# without VTK's Python modules). It runs after the groups that write the files (a CTest fixture).
find_program(HC_MESHFILE_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(HC_MESHFILE_PYTHON NAMES python3)
set_tests_properties(meshfile_gmsh meshfile_exodus PROPERTIES FIXTURES_SETUP meshfile_files)
if(HC_HAVE_GMSH AND HC_HAVE_EXODUS AND HC_MESHFILE_PYTHON)
  hc_add_test(meshfile_vtk COMMAND ${HC_MESHFILE_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_meshfile_vtk.py
              ${HC_MESHFILE_DIR}/exodus ${HC_MESHFILE_DIR}/gmsh LABELS unit TIMEOUT 120)
else()
  hc_add_test(meshfile_vtk COMMAND sh -c "echo 'SKIPPED: the Gmsh and Exodus II readers (and python3) are needed \
to write and read back the hex27 files: the third-party check of their node orders did not run' && exit 77"
              LABELS unit)
endif()
set_tests_properties(meshfile_vtk PROPERTIES FIXTURES_REQUIRED meshfile_files)

# run_scripts/mesh.sh: its refusals and a small refinement of every shipped mesh, read back (needs the gmsh program
# and the Gmsh reader; skipped without them).
find_program(HC_GMSH_PROGRAM gmsh)
if(HC_GMSH_PROGRAM AND HC_HAVE_GMSH)
  hc_add_test(meshfile_mesh_sh COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_mesh_sh.sh ${PROJECT_SOURCE_DIR}
              $<TARGET_FILE:test_meshfile> ${HC_MESHFILE_DIR}/mesh_sh LABELS unit TIMEOUT 120)
else()
  hc_add_test(meshfile_mesh_sh COMMAND sh -c "echo 'SKIPPED: run_scripts/mesh.sh needs the gmsh program and the \
Gmsh reader to check what it writes (install gmsh and libgmsh-dev)' && exit 77" LABELS unit)
endif()
