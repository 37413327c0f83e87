# Unit tests of the reference element (host only).
hc_add_test_executable(test_basis SOURCES test_basis.c LIBS hc_kernels)
hc_add_test(basis COMMAND test_basis LABELS unit TIMEOUT 60)
