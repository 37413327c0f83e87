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
hc_add_test(meshfile_shipped COMMAND test_meshfile shipped ${PROJECT_SOURCE_DIR}/inputs/meshes LABELS unit TIMEOUT 120)
if(NOT HC_HAVE_GMSH)
  message(WARNING "the Gmsh reader is not built: the meshfile_gmsh and meshfile_shipped tests will report themselves "
                  "skipped (install libgmsh-dev)")
endif()
if(NOT HC_HAVE_EXODUS)
  message(WARNING "the Exodus II reader is not built: the meshfile_exodus test will report itself skipped (install "
                  "libexodusii-dev)")
endif()
