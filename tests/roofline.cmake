# The step's roofline (README.md, section The step's roofline): the compulsory bytes of each phase against hand-computed numbers
# (unit), and in a run: the summary's block, the results file's section and the CSV row's columns consistent;
# with run.roofline false, no roofline figure anywhere.
hc_add_test_executable(test_step_roofline SOURCES test_step_roofline.c ${PROJECT_SOURCE_DIR}/app/step_roofline.c
                       LIBS hc_kernels hc_mesh MPI::MPI_C)
hc_add_test(step_roofline COMMAND test_step_roofline LABELS unit TIMEOUT 60)

set(HC_ROOF_CSV ${HC_APP_DIR}/roofline.csv)
add_test(NAME app_roofline_clean COMMAND ${CMAKE_COMMAND} -E rm -f ${HC_ROOF_CSV})
set_tests_properties(app_roofline_clean PROPERTIES LABELS app FIXTURES_SETUP roofline_clean)
hc_add_test(app_roofline COMMAND ${HC_EXPECT} 0 "  step +[0-9.e+-]+ +[0-9.e+-]+ +[0-9.e+-]+ +[0-9.]+%" --
            ${HC_EXE} ${HC_SMALL} --set output.results=roofline.yaml --set output.csv=${HC_ROOF_CSV} LABELS app)
set_tests_properties(app_roofline PROPERTIES FIXTURES_REQUIRED roofline_clean FIXTURES_SETUP roofline)
hc_add_test(app_roofline_consistent COMMAND compare_results --roofline ${HC_APP_DIR}/roofline.yaml ${HC_ROOF_CSV}
            LABELS app)
set_tests_properties(app_roofline_consistent PROPERTIES FIXTURES_REQUIRED roofline)

hc_add_test(app_roofline_off COMMAND ${HC_EXPECT} 0 "results: " --not "roofline" -- ${HC_EXE} ${HC_SMALL}
            --set run.roofline=false --set output.results=no_roof.yaml LABELS app)
set_tests_properties(app_roofline_off PROPERTIES FIXTURES_SETUP roofline_off)
hc_add_test(app_roofline_off_results COMMAND compare_results --no-roofline ${HC_APP_DIR}/no_roof.yaml LABELS app)
set_tests_properties(app_roofline_off_results PROPERTIES FIXTURES_REQUIRED roofline_off)
