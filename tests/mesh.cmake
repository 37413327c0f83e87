# Tests of the mesh layer: partition and parameter unit tests; MPI tests of the box, halo and node sharing.
hc_add_test_executable(test_mesh_partition SOURCES test_mesh_partition.c LIBS hc_mesh)
hc_add_test(mesh_partition COMMAND test_mesh_partition LABELS unit TIMEOUT 60)

hc_add_test_executable(test_mesh_mpi SOURCES test_mesh_mpi.c LIBS hc_mesh)
foreach(np 1 2 3 4 5 6 7 8 11)
  hc_add_test(mesh_mpi_np${np} COMMAND test_mesh_mpi NP ${np} LABELS mpi TIMEOUT 60)
endforeach()

# Unstructured meshes: numbering under every cell orientation, ownership, boundary, partitions, bad meshes.
hc_add_test_executable(test_mesh_cells SOURCES test_mesh_cells.c LIBS hc_mesh)
foreach(np 1 2 3 4)
  hc_add_test(mesh_cells_np${np} COMMAND test_mesh_cells NP ${np} LABELS mpi TIMEOUT 120)
endforeach()

# Node sharing and the halo on hand-made unstructured partitions, and the box against its analytic ownership.
hc_add_test_executable(test_sharing_mpi SOURCES test_sharing_mpi.c LIBS hc_mesh)
foreach(np 1 2 3 4)
  hc_add_test(sharing_mpi_np${np} COMMAND test_sharing_mpi NP ${np} LABELS mpi TIMEOUT 120)
endforeach()
