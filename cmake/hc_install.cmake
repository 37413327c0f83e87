# Install rules: `cmake --install build --prefix P` gives
#   P/bin/hexcontract                              the application
#   P/share/hexcontract/inputs/                    the shipped decks and their reference, meshes/ (Gmsh)
#   P/share/hexcontract/run_scripts/               scaling.sh, mesh.sh and the Slurm template
#   P/lib/libhexcontract_kernels.a                 the nine contractions (serial and the backends built in)
#   P/lib/libhexcontract_base.a                    the error layer they report through (kernels/base)
#   P/include/hexcontract/kernels/hc_kernels.h, kernels/base/hc_error.h, hc_config.h  their public headers
#   P/lib/cmake/hexcontract/                       the CMake package: find_package(hexcontract), hexcontract::kernels
#   P/lib/pkgconfig/hexcontract.pc                 the same for pkg-config
#   P/share/doc/hexcontract/                       README files, LICENSE, CITATION.cff
include(CMakePackageConfigHelpers)

set(HC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/hexcontract)
set(HC_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/hexcontract)

# The installed binary keeps the run paths of the libraries it links outside the system's directories (MPI,
# the CUDA runtime), so that it runs without LD_LIBRARY_PATH as the build's binary does.
set_target_properties(hexcontract PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
install(TARGETS hexcontract RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS hc_kernels hc_base EXPORT hexcontractTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/kernels/hc_kernels.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hexcontract/kernels)
install(FILES ${PROJECT_SOURCE_DIR}/kernels/base/hc_error.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hexcontract/kernels/base)
install(FILES ${PROJECT_BINARY_DIR}/hc_config.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hexcontract)

file(GLOB HC_INSTALL_DECKS ${PROJECT_SOURCE_DIR}/inputs/*.yaml)
install(FILES ${HC_INSTALL_DECKS} ${PROJECT_SOURCE_DIR}/inputs/README.md DESTINATION ${HC_INSTALL_DATADIR}/inputs)
file(GLOB HC_INSTALL_MESHES ${PROJECT_SOURCE_DIR}/inputs/meshes/*.geo ${PROJECT_SOURCE_DIR}/inputs/meshes/*.msh
     ${PROJECT_SOURCE_DIR}/inputs/meshes/README.md)
install(FILES ${HC_INSTALL_MESHES} DESTINATION ${HC_INSTALL_DATADIR}/inputs/meshes)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/inputs/meshes/reorient.py DESTINATION ${HC_INSTALL_DATADIR}/inputs/meshes)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/run_scripts/scaling.sh ${PROJECT_SOURCE_DIR}/run_scripts/mesh.sh
        DESTINATION ${HC_INSTALL_DATADIR}/run_scripts)
install(FILES ${PROJECT_SOURCE_DIR}/run_scripts/slurm/scaling.sbatch ${PROJECT_SOURCE_DIR}/run_scripts/slurm/README.md
        DESTINATION ${HC_INSTALL_DATADIR}/run_scripts/slurm)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CITATION.cff
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
foreach(dir kernels mesh app)
  install(FILES ${PROJECT_SOURCE_DIR}/${dir}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/${dir})
endforeach()

# A library built with the sanitizers needs their runtimes where it is linked.
if(HC_ENABLE_SANITIZERS)
  target_link_options(hc_kernels INTERFACE $<INSTALL_INTERFACE:-fsanitize=address,undefined>)
endif()

# The CMake package. The targets' dependencies are found again by the consumer (find_dependency).
install(EXPORT hexcontractTargets NAMESPACE hexcontract:: DESTINATION ${HC_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hexcontractConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/hexcontractConfig.cmake INSTALL_DESTINATION ${HC_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/hexcontractConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/hexcontractConfig.cmake ${PROJECT_BINARY_DIR}/hexcontractConfigVersion.cmake
        DESTINATION ${HC_INSTALL_CMAKEDIR})

# The pkg-config file: relative to its own place (${pcfiledir}), since the prefix is chosen at install time.
# The library is static, so everything it needs is in Libs.
set(HC_PC_CFLAGS "")
set(HC_PC_BACKENDS "serial")
set(HC_PC_LIBS "-lm")
if(HC_HAVE_OPENMP)
  string(APPEND HC_PC_BACKENDS " openmp")
  set(HC_PC_CFLAGS "${OpenMP_C_FLAGS}")
  set(HC_PC_LIBS "${OpenMP_C_FLAGS} ${HC_PC_LIBS}")
endif()
if(HC_HAVE_CUDA)
  string(APPEND HC_PC_BACKENDS " cuda")
  set(HC_PC_LIBS "${HC_PC_LIBS} -L${CUDAToolkit_LIBRARY_DIR} -Wl,-rpath,${CUDAToolkit_LIBRARY_DIR} -lcublas -lcublasLt -lcudart -lstdc++")
endif()
if(HC_HAVE_INTREPID2)
  string(APPEND HC_PC_BACKENDS " intrepid2")
  set(HC_PC_LIBS "${HC_PC_LIBS} -L${Intrepid2_LIBRARY_DIRS} -ltrilinos_kokkoscore -lstdc++")
endif()
file(RELATIVE_PATH HC_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
if(HC_ENABLE_SANITIZERS)
  set(HC_PC_LIBS "-fsanitize=address,undefined ${HC_PC_LIBS}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/hexcontract.pc.in ${PROJECT_BINARY_DIR}/hexcontract.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/hexcontract.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
