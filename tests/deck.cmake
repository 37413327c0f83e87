# Tests of the input deck and the YAML writer: unit tests, and the collective load on 2 and 3 ranks.
set(HC_DECK_TEST_DIRS ${PROJECT_SOURCE_DIR}/inputs ${CMAKE_CURRENT_SOURCE_DIR}/data/decks)

hc_add_test_executable(test_deck SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_deck.c LIBS hc_io)
hc_add_test(deck COMMAND test_deck ${HC_DECK_TEST_DIRS} LABELS unit TIMEOUT 60)

hc_add_test_executable(test_deck_writer SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_deck_writer.c LIBS hc_io)
hc_add_test(deck_yaml_writer COMMAND test_deck_writer LABELS unit TIMEOUT 60)

hc_add_test_executable(test_deck_mpi SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_deck_mpi.c LIBS hc_io)
foreach(np 2 3)
  hc_add_test(deck_mpi_np${np} COMMAND test_deck_mpi ${HC_DECK_TEST_DIRS} NP ${np} LABELS mpi TIMEOUT 60)
endforeach()
