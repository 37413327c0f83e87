/* MPI tests of hc_deck_load: a good deck gives the same deck on every rank; a bad one the same error, and none hangs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mpi.h>

#include "io/hc_deck.h"

static const char *inputs_dir, *decks_dir;
static int rank_, nranks_;

/* Whether buf (n bytes) is the same on every rank. */
static int same_on_all_ranks(const void *buf, size_t n) {
  char *root = malloc(n);
  assert_non_null(root);
  memcpy(root, buf, n);
  MPI_Bcast(root, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
  int same = !memcmp(root, buf, n), all = 0;
  free(root);
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all;
}

/* Asserts, on every rank alike, that cond holds on every rank. */
static void assert_all(int cond, const char *what) {
  int all = 0;
  MPI_Allreduce(&cond, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!all) fail_msg("rank %d: %s (%s)", rank_, what, cond ? "true here" : "false here");
}

/* Loads a deck on every rank and checks that every rank got the same error code and message. */
static int load_everywhere(const char *path, int nset, char **sets, hc_deck *deck) {
  hc_error_clear();
  int err = hc_deck_load(MPI_COMM_WORLD, path, nset, sets, deck);
  char msg[2048] = {0};
  snprintf(msg, sizeof(msg), "%s", hc_error_message());
  assert_all(same_on_all_ranks(&err, sizeof(err)), "the same error code on every rank");
  assert_all(same_on_all_ranks(msg, sizeof(msg)), "the same message on every rank");
  return err;
}

static void test_good_deck(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof(path), "%s/weak.yaml", inputs_dir);
  char set0[] = "mesh.cells=5,6,7", set1[] = "run.deterministic=true";
  char *sets[] = {set0, set1};
  hc_deck deck;
  assert_int_equal(load_everywhere(path, 2, sets, &deck), HC_OK);
  assert_all(same_on_all_ranks(&deck, sizeof(deck)), "the same deck on every rank");
  assert_all(deck.mesh.cells[2] == 7 && deck.run.deterministic && deck.mesh.sizing == HC_SIZING_PER_RANK,
             "the deck's values");
  char where[1200];
  assert_int_equal(hc_deck_where(&deck, "mesh.cells", where, sizeof(where)), HC_OK);
  assert_all(!strcmp(where, "--set mesh.cells=5,6,7"), "where mesh.cells was set");
  assert_int_equal(hc_deck_where(&deck, "mesh.order", where, sizeof(where)), HC_OK);
  assert_all(strstr(where, "weak.yaml:") != NULL, "where mesh.order was set");

  /* No deck: the defaults. */
  hc_deck defaults;
  hc_deck_init(&defaults);
  assert_int_equal(load_everywhere(NULL, 0, NULL, &deck), HC_OK);
  assert_all(hc_deck_equal(&deck, &defaults), "no deck gives the defaults");
}

static void test_bad_deck(void **state) {
  (void)state;
  char path[1024];
  hc_deck deck;
  snprintf(path, sizeof(path), "%s/out_of_range_order.yaml", decks_dir);
  assert_int_equal(load_everywhere(path, 0, NULL, &deck), HC_ERR_INPUT);
  assert_all(strstr(hc_error_message(), "out_of_range_order.yaml:4:10: mesh.order must be") != NULL,
             "the message names file:line:column and the key");
  snprintf(path, sizeof(path), "%s/malformed_flow.yaml", decks_dir);
  assert_int_equal(load_everywhere(path, 0, NULL, &deck), HC_ERR_INPUT);
  assert_all(strstr(hc_error_message(), "malformed YAML") != NULL, "malformed YAML");
  snprintf(path, sizeof(path), "%s/no_such_deck.yaml", decks_dir);
  assert_int_equal(load_everywhere(path, 0, NULL, &deck), HC_ERR_INPUT);
  assert_all(strstr(hc_error_message(), "no_such_deck.yaml: cannot open the deck") != NULL, "missing file");
}

static void test_bad_set(void **state) {
  (void)state;
  hc_deck deck;
  char good[] = "run.steps=3", bad[] = "mesh.order=7", syntax[] = "mesh.order";
  char *sets[] = {good, bad};
  assert_int_equal(load_everywhere(NULL, 2, sets, &deck), HC_ERR_INPUT);
  assert_all(!strcmp(hc_error_message(), "--set mesh.order=7: mesh.order must be an integer 1..4, got 7"),
             "the message names the option");
  char *sets2[] = {syntax};
  assert_int_equal(load_everywhere(NULL, 1, sets2, &deck), HC_ERR_INPUT);
  assert_all(strstr(hc_error_message(), "--set mesh.order: expected key=value") != NULL, "bad --set syntax");
  /* After errors, a good load still works: nothing is left half-way in a collective. */
  assert_int_equal(load_everywhere(NULL, 1, sets, &deck), HC_OK);
  assert_all(deck.run.steps == 3, "run.steps");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks_);
  if (argc != 3) {
    if (rank_ == 0) fprintf(stderr, "usage: %s INPUTS_DIR DECKS_DIR\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  inputs_dir = argv[1];
  decks_dir = argv[2];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_good_deck),
      cmocka_unit_test(test_bad_deck),
      cmocka_unit_test(test_bad_set),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  MPI_Finalize();
  return failed;
}
