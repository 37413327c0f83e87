# The installed tree used from outside (tests/test_install.sh, tests/install/), the Slurm dry run of the
# scaling study (tests/test_slurm.sh), and the CITATION.cff version against the project's.
hc_add_test(install_package COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_install.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/install_package ${CMAKE_C_COMPILER} LABELS install TIMEOUT 300)
hc_add_test(slurm_dry_run COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_slurm.sh $<TARGET_FILE:hexcontract> ${PROJECT_SOURCE_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/slurm_dry_run LABELS report TIMEOUT 60)
hc_add_test(citation_version COMMAND grep -qx "version: \"${PROJECT_VERSION}\"" ${PROJECT_SOURCE_DIR}/CITATION.cff
            LABELS install TIMEOUT 10)
hc_add_test(cli_version COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_version.sh $<TARGET_FILE:hexcontract> ${HC_HAVE_OPENMP}
            ${HC_HAVE_CUDA} ${PROJECT_VERSION} ${HC_HAVE_INTREPID2} ${HC_HAVE_GMSH} ${HC_HAVE_EXODUS} LABELS app TIMEOUT 30)
# The documentation stays inside the repository: no pointer outside it, every README link and section it names
# exists, and .gitignore keeps run outputs out but the recorded results in.
find_program(HC_DOCS_PYTHON NAMES python3)
if(HC_DOCS_PYTHON)
  hc_add_test(docs_self_contained COMMAND ${HC_DOCS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_docs.py ${PROJECT_SOURCE_DIR}
              LABELS docs TIMEOUT 60)
endif()
