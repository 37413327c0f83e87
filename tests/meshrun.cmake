# The proxy run on mesh files (mesh.source: file): every check on the shipped meshes on 1-4 ranks, partition
# independence, a box written as a mesh file against the generated box, the ParaView output, and bad mesh keys.
# (app.cmake defines HC_EXPECT, HC_EXE, HC_MPIRUN and compare_results.)
set(HC_MESH_DIR ${PROJECT_SOURCE_DIR}/inputs/meshes)
set(HC_MESHRUN_DIR ${CMAKE_CURRENT_BINARY_DIR}/meshrun)
file(MAKE_DIRECTORY ${HC_MESHRUN_DIR})
set(HC_MESHRUN --set run.steps=2 --set run.roofline=false --set output.dir=${HC_MESHRUN_DIR})

if(HC_HAVE_GMSH)
  # Each shipped mesh at an order that puts nodes inside its edges and faces, on 1-4 ranks (more than one
  # needs METIS); every check ok, and the global results the same on every rank count.
  set(HC_MESHRUN_CASES "lbracket:2" "mixed-orientation:3" "box-4x4x4:2" "pipe:2")
  foreach(case ${HC_MESHRUN_CASES})
    string(REPLACE ":" ";" parts ${case})
    list(GET parts 0 mesh)
    list(GET parts 1 order)
    set(files "")
    foreach(np 1 2 3 4)
      if(np GREATER 1 AND NOT HC_HAVE_METIS)
        continue()
      endif()
      hc_add_test(meshrun_${mesh}_np${np} COMMAND ${HC_EXPECT} 0 "device_vs_host +ok" --not "FAILED"
                  --file ${HC_MESHRUN_DIR}/${mesh}_np${np}.yaml --file-match "^status: passed" --
                  ${HC_MPIRUN} ${np} ${HC_EXE} ${HC_MESHRUN} --set mesh.source=file
                  --set mesh.file=${HC_MESH_DIR}/${mesh}.msh --set mesh.order=${order}
                  --set output.results=${mesh}_np${np}.yaml LABELS app mpi mesh TIMEOUT 120)
      set_tests_properties(meshrun_${mesh}_np${np} PROPERTIES FIXTURES_SETUP meshrun_${mesh})
      list(APPEND files ${HC_MESHRUN_DIR}/${mesh}_np${np}.yaml)
    endforeach()
    list(LENGTH files nfiles)
    if(nfiles GREATER 1)
      hc_add_test(meshrun_${mesh}_partition_independence COMMAND compare_results 1e-12 ${files} LABELS app mpi mesh)
      set_tests_properties(meshrun_${mesh}_partition_independence PROPERTIES FIXTURES_REQUIRED meshrun_${mesh})
    endif()
  endforeach()

  # The box written as a mesh file (box-4x4x4.msh: the unit cube in 4 x 4 x 4 cells) gives the generated
  # box's global results (no jitter: the file's vertices are the box's grid points) to 1e-12. The checks are
  # off: the exactness check integrates a different polynomial on a file mesh.
  set(files "")
  foreach(np 1 3)
    if(np GREATER 1 AND NOT HC_HAVE_METIS)
      continue()
    endif()
    foreach(source box file)
      hc_add_test(meshrun_box_as_${source}_np${np} COMMAND ${HC_EXPECT} 0 "results: "
                  --file ${HC_MESHRUN_DIR}/box_as_${source}_np${np}.yaml --
                  ${HC_MPIRUN} ${np} ${HC_EXE} ${HC_MESHRUN} --set checks.enabled=false --set mesh.source=${source}
                  --set mesh.file=${HC_MESH_DIR}/box-4x4x4.msh --set mesh.cells=4 --set mesh.jitter=0
                  --set output.results=box_as_${source}_np${np}.yaml LABELS app mpi mesh TIMEOUT 120)
      set_tests_properties(meshrun_box_as_${source}_np${np} PROPERTIES FIXTURES_SETUP meshrun_box_as)
      list(APPEND files ${HC_MESHRUN_DIR}/box_as_${source}_np${np}.yaml)
    endforeach()
  endforeach()
  hc_add_test(meshrun_box_as_file_agree COMMAND compare_results 1e-12 ${files} LABELS app mesh)
  set_tests_properties(meshrun_box_as_file_agree PROPERTIES FIXTURES_REQUIRED meshrun_box_as)

  # A missing file: exit 2 naming it and the key.
  hc_add_test(meshrun_missing_file COMMAND ${HC_EXPECT} 2 "mesh.file=.*no-such.msh.*cannot open the mesh file" --
              ${HC_EXE} ${HC_MESHRUN} --set mesh.source=file --set mesh.file=${HC_MESHRUN_DIR}/no-such.msh LABELS app mesh)
endif()

# Mesh keys that do not go together: exit 2 naming the key, before anything is read.
hc_add_test(meshrun_no_file COMMAND ${HC_EXPECT} 2 "mesh.file: mesh.source is file but mesh.file names no file" --
            ${HC_EXE} ${HC_MESHRUN} --set mesh.source=file LABELS app mesh)
hc_add_test(meshrun_cartesian_file COMMAND ${HC_EXPECT} 2 "mesh.partitioner=cartesian: cartesian splits the box" --
            ${HC_EXE} ${HC_MESHRUN} --set mesh.source=file --set mesh.file=x.msh --set mesh.partitioner=cartesian
            LABELS app mesh)
hc_add_test(meshrun_metis_box COMMAND ${HC_EXPECT} 2 "mesh.partitioner=metis: metis partitions mesh files" --
            ${HC_EXE} ${HC_MESHRUN} --set mesh.partitioner=metis LABELS app mesh)
hc_add_test(meshrun_ptscotch_box COMMAND ${HC_EXPECT} 2 "mesh.partitioner=ptscotch: ptscotch partitions mesh files" --
            ${HC_EXE} ${HC_MESHRUN} --set mesh.partitioner=ptscotch LABELS app mesh)
hc_add_test(meshrun_jitter_file COMMAND ${HC_EXPECT} 2 "mesh.jitter=0.1: jitter moves the box.s vertices" --
            ${HC_EXE} ${HC_MESHRUN} --set mesh.source=file --set mesh.file=x.msh --set mesh.jitter=0.1 LABELS app mesh)
hc_add_test(meshrun_bad_partitioner COMMAND ${HC_EXPECT} 2 "mesh.partitioner must be auto, cartesian, metis or ptscotch" --
            ${HC_EXE} ${HC_MESHRUN} --set mesh.partitioner=scotch LABELS app mesh)
hc_add_test(meshrun_per_rank_file COMMAND ${HC_EXPECT} 2 "mesh.sizing=per-rank: per-rank sizing grows the box" --
            ${HC_EXE} ${HC_MESHRUN} --set mesh.source=file --set mesh.file=x.msh --set mesh.sizing=per-rank
            LABELS app mesh)

# A strong-scaling study of a mesh deck: the report shows METIS's partitions (balance, faces cut, neighbours,
# shared nodes) in place of the box's rank-grid model.
if(HC_HAVE_GMSH AND HC_HAVE_METIS)
  hc_add_test(meshrun_scaling COMMAND ${HC_EXPECT} 0 "wrote .*report.md" --file ${HC_MESHRUN_DIR}/scaling/report.md
              --file-match "^\\| 2 \\| metis \\|" -- sh -c "rm -rf '${HC_MESHRUN_DIR}/scaling' && \
'${PROJECT_SOURCE_DIR}/run_scripts/scaling.sh' strong --deck '${PROJECT_SOURCE_DIR}/inputs/lbracket.yaml' \
--ranks '1 2' --backend ${HC_RUN_BACKEND} --set run.steps=2 --set run.roofline=false \
--exe '$<TARGET_FILE:hexcontract>' --out '${HC_MESHRUN_DIR}/scaling'" LABELS app mesh report TIMEOUT 180)
endif()

# The same meshes as Exodus II files (written by tests/msh2exo.c through the Exodus II API, hex8 and hex27): the run
# reads them to the Gmsh runs' global results, to 1e-12, on 2 ranks (1 without METIS).
if(HC_HAVE_GMSH AND HC_HAVE_EXODUS)
  add_executable(msh2exo msh2exo.c)
  target_link_libraries(msh2exo PRIVATE hc_io ${HC_EXODUS_LIBRARY})
  target_include_directories(msh2exo SYSTEM PRIVATE ${HC_EXODUS_INCLUDE_DIR})
  set_target_properties(msh2exo PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set(np 2)
  if(NOT HC_HAVE_METIS)
    set(np 1)
  endif()
  foreach(mesh lbracket pipe)
    hc_add_test(meshrun_${mesh}_exodus COMMAND ${HC_EXPECT} 0 "device_vs_host +ok" --not "FAILED"
                --file ${HC_MESHRUN_DIR}/${mesh}_exo_np${np}.yaml --file-match "^status: passed" -- sh -c
                "$<TARGET_FILE:msh2exo> '${HC_MESH_DIR}/${mesh}.msh' '${HC_MESHRUN_DIR}/${mesh}.exo' && \
${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} $<TARGET_FILE:hexcontract> --set run.backend=${HC_RUN_BACKEND} --set run.steps=2 \
--set run.roofline=false --set output.dir=${HC_MESHRUN_DIR} --set mesh.source=file \
--set mesh.file=${HC_MESHRUN_DIR}/${mesh}.exo --set mesh.order=2 --set output.results=${mesh}_exo_np${np}.yaml"
                LABELS app mpi mesh TIMEOUT 120)
    set_tests_properties(meshrun_${mesh}_exodus PROPERTIES FIXTURES_SETUP meshrun_${mesh}_exo)
    hc_add_test(meshrun_${mesh}_exodus_agrees COMMAND compare_results 1e-12 ${HC_MESHRUN_DIR}/${mesh}_np${np}.yaml
                ${HC_MESHRUN_DIR}/${mesh}_exo_np${np}.yaml LABELS app mesh)
    set_tests_properties(meshrun_${mesh}_exodus_agrees PROPERTIES FIXTURES_REQUIRED "meshrun_${mesh};meshrun_${mesh}_exo")
  endforeach()
endif()

# mesh.partitioner ptscotch: every rank reads its own part of an Exodus II file (no rank reads it whole), PT-Scotch
# partitions the cells in parallel and owner ranks number the nodes (mesh/hc_mesh_dist.c). Every check ok, and the
# global results those of the one-rank Gmsh run above (rank 0's numbering) to 1e-12: hex8, hex27 (the pipe) and cells
# of every orientation at order 3. A Gmsh file with ptscotch is read by rank 0 and dealt out in slices. Damaged
# files read in parts: exit 2 naming the file and the cell, on every rank alike.
if(HC_HAVE_GMSH AND HC_HAVE_EXODUS AND HC_HAVE_PTSCOTCH)
  foreach(case "lbracket:2:4:exo" "pipe:2:3:exo" "mixed-orientation:3:2:exo" "box-4x4x4:2:3:msh")
    string(REPLACE ":" ";" parts ${case})
    list(GET parts 0 mesh)
    list(GET parts 1 order)
    list(GET parts 2 np)
    list(GET parts 3 ext)
    if(ext STREQUAL "exo")
      set(file ${HC_MESHRUN_DIR}/${mesh}_pt.exo)
      set(make "$<TARGET_FILE:msh2exo> '${HC_MESH_DIR}/${mesh}.msh' '${file}' && ")
    else()
      set(file ${HC_MESH_DIR}/${mesh}.msh)
      set(make "")
    endif()
    hc_add_test(meshrun_${mesh}_ptscotch_np${np} COMMAND ${HC_EXPECT} 0 "device_vs_host +ok" --not "FAILED"
                --file ${HC_MESHRUN_DIR}/${mesh}_pt_np${np}.yaml --file-match "^  partitioner: ptscotch" -- sh -c
                "${make}${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} $<TARGET_FILE:hexcontract> \
--set run.backend=${HC_RUN_BACKEND} --set run.steps=2 --set run.roofline=false --set output.dir=${HC_MESHRUN_DIR} \
--set mesh.source=file --set mesh.file=${file} --set mesh.partitioner=ptscotch --set mesh.order=${order} \
--set output.results=${mesh}_pt_np${np}.yaml" LABELS app mpi mesh TIMEOUT 120)
    set_tests_properties(meshrun_${mesh}_ptscotch_np${np} PROPERTIES FIXTURES_SETUP meshrun_${mesh}_pt)
    hc_add_test(meshrun_${mesh}_ptscotch_agrees COMMAND compare_results 1e-12 ${HC_MESHRUN_DIR}/${mesh}_np1.yaml
                ${HC_MESHRUN_DIR}/${mesh}_pt_np${np}.yaml LABELS app mesh)
    set_tests_properties(meshrun_${mesh}_ptscotch_agrees PROPERTIES FIXTURES_REQUIRED "meshrun_${mesh};meshrun_${mesh}_pt")
  endforeach()
  # The strong-scaling report of a ptscotch sweep names PT-Scotch and its partitions.
  hc_add_test(meshrun_scaling_ptscotch COMMAND ${HC_EXPECT} 0 "wrote .*report.md"
              --file ${HC_MESHRUN_DIR}/scaling_pt/report.md --file-match "^\\| 2 \\| ptscotch \\|" -- sh -c
              "rm -rf '${HC_MESHRUN_DIR}/scaling_pt' && '${PROJECT_SOURCE_DIR}/run_scripts/scaling.sh' strong \
--deck '${PROJECT_SOURCE_DIR}/inputs/lbracket.yaml' --ranks '1 2' --backend ${HC_RUN_BACKEND} --set run.steps=2 \
--set run.roofline=false --set mesh.partitioner=ptscotch --exe '$<TARGET_FILE:hexcontract>' \
--out '${HC_MESHRUN_DIR}/scaling_pt'" LABELS app mesh report TIMEOUT 180)
  hc_add_test(meshrun_ptscotch_missing COMMAND ${HC_EXPECT} 2 "mesh.file=.*no-such.exo.*cannot open the mesh file" --
              ${HC_MPIRUN} 2 ${HC_EXE} ${HC_MESHRUN} --set mesh.source=file --set mesh.file=${HC_MESHRUN_DIR}/no-such.exo
              --set mesh.partitioner=ptscotch LABELS app mpi mesh)
  foreach(case "inverted:cell 103 is inverted" "truncated:truncated")
    string(REPLACE ":" ";" parts ${case})
    list(GET parts 0 name)
    list(GET parts 1 want)
    hc_add_test(meshrun_ptscotch_${name} COMMAND ${HC_EXPECT} 2 "${name}.exo.*${want}" --
                ${HC_MPIRUN} 2 ${HC_EXE} ${HC_MESHRUN} --set mesh.source=file
                --set mesh.file=${HC_MESHFILE_DIR}/exodus/${name}.exo --set mesh.partitioner=ptscotch LABELS app mpi mesh)
    set_tests_properties(meshrun_ptscotch_${name} PROPERTIES FIXTURES_REQUIRED meshfile_files)
  endforeach()
endif()
