/* Input deck unit tests: shipped decks, one bad deck per failure kind, --set, provenance and the write/read round trip.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <yaml.h>

#include "io/hc_deck.h"
#include "io/hc_yaml_writer.h"

static const char *inputs_dir; /* the repository's inputs/ */
static const char *decks_dir;  /* tests/data/decks/ */
static char tmp_dir[256];

static const char *join(char *buf, size_t n, const char *dir, const char *name) {
  snprintf(buf, n, "%s/%s", dir, name);
  return buf;
}

/* Asserts that the last error message contains needle. */
static void assert_message_has(const char *needle) {
  const char *msg = hc_error_message();
  if (!strstr(msg, needle)) fail_msg("message \"%s\" lacks \"%s\"", msg, needle);
}

static void test_shipped_decks(void **state) {
  (void)state;
  static const char *const names[] = {"default.yaml", "weak.yaml",   "strong.yaml", "order1.yaml",
                                      "order2.yaml",  "order3.yaml", "order4.yaml"};
  char path[1024];
  hc_deck deck, defaults;
  hc_deck_init(&defaults);
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    int err = hc_deck_parse_file(join(path, sizeof(path), inputs_dir, names[i]), &deck);
    if (err) fail_msg("%s: %s", names[i], hc_error_message());
    if (!strncmp(names[i], "order", 5)) assert_int_equal(deck.mesh.order, names[i][5] - '0');
    if (!strcmp(names[i], "weak.yaml")) assert_int_equal(deck.mesh.sizing, HC_SIZING_PER_RANK);
    if (!strcmp(names[i], "strong.yaml")) assert_int_equal(deck.mesh.sizing, HC_SIZING_GLOBAL);
  }
  /* default.yaml is what runs without a deck: it must hold exactly the defaults. */
  assert_int_equal(hc_deck_parse_file(join(path, sizeof(path), inputs_dir, "default.yaml"), &deck), HC_OK);
  assert_true(hc_deck_equal(&deck, &defaults));
  for (int k = 0; k < HC_NUM_KERNELS; k++) assert_true(deck.kernels.enabled[k]);
  assert_true(deck.checks.enabled);
}

static void test_defaults(void **state) {
  (void)state;
  hc_deck d;
  hc_deck_init(&d);
  assert_true(d.mesh.cells[0] == 8 && d.mesh.cells[1] == 8 && d.mesh.cells[2] == 8);
  assert_int_equal(d.mesh.sizing, HC_SIZING_GLOBAL);
  assert_int_equal(d.mesh.order, 2);
  assert_int_equal(hc_deck_quadrature(&d), 3);
  assert_int_equal(d.run.steps, 10);
  assert_string_equal(d.run.backend, "openmp");
  assert_int_equal(d.run.precision, HC_DOUBLE);
  assert_int_equal(d.run.layout, HC_LAYOUT_CELL_MAJOR);
  assert_int_equal(d.run.assembly, HC_DECK_ASSEMBLY_MATERIALIZED);
  assert_int_equal(d.run.lanes, 3);
  assert_false(d.run.deterministic);
  assert_int_equal(hc_deck_variant(&d, HC_FIELDFIELD_TENSOR), HC_VARIANT_AUTO);
  assert_string_equal(d.output.results, "hexcontract-results.yaml");
  /* An empty deck, one of comments only and one with empty groups all leave the defaults. */
  hc_deck e;
  const char *texts[] = {"", "# nothing here\n", "mesh:\nrun: ~\n", "---\n...\n"};
  for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
    assert_int_equal(hc_deck_parse_string("empty.yaml", texts[i], strlen(texts[i]), &e), HC_OK);
    assert_true(hc_deck_equal(&d, &e));
  }
}

/* One bad deck per failure kind: the message starts with file:line:column and names the key. */
typedef struct {
  const char *file;
  const char *position; /* "line:column" */
  const char *needles[2];
} bad_deck;

static const bad_deck bad_decks[] = {
    {"unknown_key.yaml", "4:3", {"unknown key mesh.ordr", "did you mean mesh.order?"}},
    {"unknown_group.yaml", "2:1", {"unknown key mesch", "did you mean mesh?"}},
    {"misplaced_key.yaml", "4:3", {"unknown key run.order", "did you mean mesh.order?"}},
    {"unknown_key_nosuggest.yaml", "3:3", {"unknown key mesh.colour", "cells, sizing, length, order"}},
    {"wrong_type_int.yaml", "3:10", {"run.steps must be an integer 1..2147483647", "got ten"}},
    {"wrong_type_bool.yaml", "3:18", {"run.deterministic must be true or false", "got 3"}},
    {"wrong_type_list.yaml", "3:10", {"mesh.cells must be a list of 3 integers", "got a mapping"}},
    {"wrong_type_quoted.yaml", "3:10", {"mesh.order must be an integer 1..4", "got the string \"2\""}},
    {"wrong_type_group.yaml", "2:7", {"mesh must be a mapping", "got 8"}},
    {"wrong_type_device_ids.yaml", "3:19", {"gpu.device_ids[1] must be a device number 0..2147483647", "got -1"}},
    {"wrong_cells_count.yaml", "3:10", {"mesh.cells must be a list of 3", "got a list of 2 items"}},
    {"out_of_range_order.yaml", "4:10", {"mesh.order must be an integer 1..4", "got 7"}},
    {"out_of_range_cells.yaml", "3:14", {"mesh.cells[1] must be an integer 1..1000000", "got 0"}},
    {"out_of_range_jitter.yaml", "3:11", {"mesh.jitter must be a number >= 0 and < 1/6", "got 0.5"}},
    {"out_of_range_dt.yaml", "3:7", {"run.dt must be a number > 0", "got 0"}},
    {"bad_backend.yaml", "3:12", {"run.backend must be serial, openmp, cuda or intrepid2", "did you mean openmp?"}},
    {"bad_kernel.yaml", "3:29", {"kernels.enabled[1] must be a kernel name", "did you mean FieldFieldTensor?"}},
    {"duplicate_kernel.yaml",
     "5:7",
     {"kernels.enabled must list each kernel once",
      "DataDataScalar twice (kernels.enabled[1], and kernels.enabled[0] at line 4, column 7)"}},
    {"bad_variant_map.yaml", "4:23", {"kernels.variants.FieldFieldTensor must be one of auto", "did you mean tile?"}},
    {"duplicate_key.yaml", "5:3", {"duplicate key run.steps", "first given at line 3, column 3"}},
    {"duplicate_group.yaml", "6:1", {"duplicate key mesh", "first given at line 2, column 1"}},
    {"malformed_flow.yaml", "4:8", {"malformed YAML", "did not find expected ',' or ']'"}},
    {"malformed_indent.yaml", "4:3", {"malformed YAML", "block mapping"}},
    {"two_documents.yaml", "4:1", {"one YAML document", "second"}},
    {"not_a_mapping.yaml", "2:1", {"a deck must be a mapping of groups", "got a list of 2 items"}},
    /* Numbers: decimals only, within the documented range, which the message states. */
    {"hex_float.yaml", "3:7", {"run.dt must be a number > 0 and <= 1e9", "got 0x1p-3"}},
    {"inf_length.yaml", "3:15", {"mesh.length[1] must be a number 1e-9..1e9", "got .inf"}},
    {"octal_int.yaml", "3:10", {"run.steps must be an integer 1..2147483647", "got 010"}},
    {"underflow_dt.yaml", "3:7", {"got 1e-400", "below a double's range"}},
    {"big_steps.yaml", "3:10", {"run.steps must be an integer 1..2147483647", "got 3000000000"}},
    /* Tags, nesting, and where the text itself is broken. */
    {"tag_float.yaml", "3:7", {"YAML tags are not accepted", "got !!float"}},
    {"tag_str.yaml", "3:8", {"YAML tags are not accepted", "got !!str"}},
    {"tag_custom.yaml", "2:7", {"YAML tags are not accepted", "got !box"}},
    {"deep_nesting.yaml", "3:40", {"nested more than 32 deep", "at most 4 levels"}},
    {"bom_later.yaml", "4:1", {"byte-order mark (U+FEFF)", "only at the very start"}},
    {"utf8_later.yaml", "5:17", {"malformed YAML", "byte 0xe9; a deck is UTF-8 text"}},
};

static void test_bad_decks(void **state) {
  (void)state;
  char path[1024], prefix[1100];
  for (size_t i = 0; i < sizeof(bad_decks) / sizeof(bad_decks[0]); i++) {
    const bad_deck *b = &bad_decks[i];
    hc_deck deck;
    hc_error_clear();
    int err = hc_deck_parse_file(join(path, sizeof(path), decks_dir, b->file), &deck);
    if (err != HC_ERR_INPUT) fail_msg("%s: expected HC_ERR_INPUT, got %d (%s)", b->file, err, hc_error_message());
    snprintf(prefix, sizeof(prefix), "%s:%s: ", path, b->position);
    if (strncmp(hc_error_message(), prefix, strlen(prefix))) {
      fail_msg("%s: message \"%s\" does not start with \"%s\"", b->file, hc_error_message(), prefix);
    }
    for (int j = 0; j < 2; j++) assert_message_has(b->needles[j]);
    /* One message: one line. */
    assert_null(strchr(hc_error_message(), '\n'));
  }
}

static void test_missing_file(void **state) {
  (void)state;
  char path[1024];
  hc_deck deck;
  join(path, sizeof(path), decks_dir, "no_such_deck.yaml");
  assert_int_equal(hc_deck_parse_file(path, &deck), HC_ERR_INPUT);
  assert_message_has(path);
  assert_message_has("cannot open the deck");
  /* A directory opens but cannot be read as a deck. */
  assert_int_equal(hc_deck_parse_file(decks_dir, &deck), HC_ERR_INPUT);
  assert_message_has(decks_dir);
}

/* --set errors start with the option and name the key. */
static void test_set_errors(void **state) {
  (void)state;
  static const struct {
    const char *set;
    const char *needle;
  } cases[] = {
      {"mesh.order", "expected key=value"},
      {"=3", "expected key=value"},
      {"  =3", "expected key=value"},
      {"mesh.ordr=3", "unknown key mesh.ordr (did you mean mesh.order?)"},
      {"foo=1", "unknown key foo (expected a group of keys: mesh, run"},
      {"mesh=3", "mesh is a group of keys"},
      {"mesh.order=7", "mesh.order must be an integer 1..4, got 7"},
      {"mesh.order=two", "mesh.order must be an integer 1..4, got two"},
      {"mesh.order=", "mesh.order must be an integer 1..4, got nothing"},
      {"mesh.cells=[1,2", "malformed YAML"},
      {"mesh.cells=4,0,4", "mesh.cells[1] must be an integer 1..1000000, got 0"},
      {"mesh.cells=4,4", "mesh.cells must be a list of 3 integers"},
      {"run.backend=cuda-aware", "run.backend must be serial, openmp, cuda or intrepid2"},
      {"run.deterministic=yes", "run.deterministic must be true or false, got yes"},
      {"run.assembly=partial", "run.assembly must be materialized or fused, got partial"},
      {"run.lanes=5", "run.lanes must be an integer 1..4, got 5"},
      {"kernels.enabled=DataDataScalar,Nope", "kernels.enabled[1] must be a kernel name, got Nope"},
      {"kernels.variants.FieldFieldTensr=tile", "did you mean FieldFieldTensor?"},
      {"kernels.variants.FieldFieldTensor=tilde", "kernels.variants.FieldFieldTensor must be one of auto"},
      {"output.dir=a: b", "output.dir must be a directory name"},
      {"mesh.length=1,0,1", "mesh.length[1] must be a number 1e-9..1e9, got 0"},
      {"run.dt=nan", "run.dt must be a number > 0 and <= 1e9, got nan"},
      {"run.steps=99999999999999999999", "run.steps must be an integer 1..2147483647"},
      /* Numbers: what strtod takes besides decimals is refused; ranges keep the geometry finite. */
      {"run.dt=0x1p-3", "run.dt must be a number > 0 and <= 1e9, got 0x1p-3"},
      {"run.dt=0X10", "got 0X10"},
      {"run.dt=inf", "got inf"},
      {"run.dt=.inf", "got .inf"},
      {"run.dt=infinity", "got infinity"},
      {"run.dt=NaN", "got NaN"},
      {"run.dt=1e", "got 1e"},
      {"run.dt=1.5f", "got 1.5f"},
      {"run.dt=.", "got ."},
      {"run.dt=1_000", "got 1_000"},
      {"run.dt=1e-320", "below a double's range"},
      {"run.dt=1e309", "above a double's range"},
      {"run.dt=1e300", "run.dt must be a number > 0 and <= 1e9, got 1e300"},
      {"mesh.shear.omega=-infinity", "mesh.shear.omega must be a number -1e9..1e9"},
      {"mesh.shear.omega=2e9", "mesh.shear.omega must be a number -1e9..1e9, got 2e9"},
      {"mesh.shear.amplitude=1e300", "mesh.shear.amplitude must be a number 0..1e9, got 1e300"},
      {"mesh.length=1e10", "mesh.length must be a number 1e-9..1e9, got 1e10"},
      {"mesh.length=1,1e-10,1", "mesh.length[1] must be a number 1e-9..1e9, got 1e-10"},
      {"run.steps=010", "run.steps must be an integer 1..2147483647, got 010"},
      {"run.steps=0x10", "got 0x10"},
      {"run.warmup=-1", "run.warmup must be an integer 0..2147483647, got -1"},
      {"checks.samples=2147483648", "checks.samples must be an integer 0..2147483647"},
      {"checks.tolerance_factor=1e300", "checks.tolerance_factor must be a number > 0 and <= 1e12, got 1e300"},
      {"mesh.seed=-1", "mesh.seed must be an integer 0..9223372036854775807, got -1"},
      {"mesh.seed=9223372036854775808", "mesh.seed must be an integer 0..9223372036854775807"},
      {"gpu.device_ids=1,2147483648", "gpu.device_ids[1] must be a device number 0..2147483647"},
      /* Tags are refused, also where quoting would be allowed; and nesting is bounded. */
      {"run.dt=!!float 1", "YAML tags are not accepted, got !!float"},
      {"output.dir=!!str out", "YAML tags are not accepted, got !!str"},
      {"mesh.cells=!!seq [1, 2, 3]", "YAML tags are not accepted, got !!seq"},
      {"kernels.variants=!m {}", "YAML tags are not accepted, got !m"},
      {"mesh.cells=[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "nested more than 32 deep"},
      {"output.dir=a\xef\xbb\xbf"
       "b",
       "byte-order mark"},
      /* A repeated kernel is named, with where it was first listed. */
      {"kernels.enabled=FieldFieldScalar,DataDataScalar,FieldFieldScalar",
       "FieldFieldScalar twice (kernels.enabled[2], and kernels.enabled[0]"},
  };
  char prefix[256];
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    hc_deck deck;
    hc_deck_init(&deck);
    int err = hc_deck_apply_set(&deck, cases[i].set);
    if (err != HC_ERR_INPUT) fail_msg("--set %s: expected HC_ERR_INPUT, got %d", cases[i].set, err);
    snprintf(prefix, sizeof(prefix), "--set %s: ", cases[i].set);
    if (strncmp(hc_error_message(), prefix, strlen(prefix))) {
      fail_msg("message \"%s\" does not start with \"%s\"", hc_error_message(), prefix);
    }
    assert_message_has(cases[i].needle);
  }
  /* The exact form of the documented example. */
  hc_deck deck;
  hc_deck_init(&deck);
  assert_int_equal(hc_deck_apply_set(&deck, "mesh.order=7"), HC_ERR_INPUT);
  assert_string_equal(hc_error_message(), "--set mesh.order=7: mesh.order must be an integer 1..4, got 7");
}

/* The decimal forms inputs/README.md documents are read, at any nesting the deck needs; nesting past the
   bound is refused in time that does not grow with the depth (libyaml's own time grows with its square). */
static void test_numbers_and_nesting(void **state) {
  (void)state;
  static const struct {
    const char *set;
    double value;
  } ok[] = {{"run.dt=.5", 0.5},        {"run.dt=5.", 5.0},     {"run.dt=+1e-3", 1e-3},
            {"run.dt=1E3", 1e3},       {"run.dt=2.5e+2", 250}, {"mesh.shear.omega=-2.5e+3", -2.5e3},
            {"run.dt=0.000001", 1e-6}, {"run.dt=1e9", 1e9},    {"mesh.shear.omega=-1e9", -1e9}};
  for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
    hc_deck deck;
    hc_deck_init(&deck);
    if (hc_deck_apply_set(&deck, ok[i].set)) fail_msg("%s: %s", ok[i].set, hc_error_message());
    double got = strncmp(ok[i].set, "run.dt", 6) ? deck.mesh.shear_omega : deck.run.dt;
    assert_true(got == ok[i].value);
  }
  hc_deck deck;
  hc_deck_init(&deck);
  assert_int_equal(hc_deck_apply_set(&deck, "mesh.seed=9223372036854775807"), HC_OK);
  assert_true(deck.mesh.seed == INT64_MAX);
  assert_int_equal(hc_deck_apply_set(&deck, "run.steps=2147483647"), HC_OK);
  /* 30 levels of lists under mesh.cells (32 with the root and mesh): a type error, not a nesting one. */
  char text[4096];
  int n = snprintf(text, sizeof(text), "mesh:\n  cells: ");
  for (int d = 0; d < 30; d++) text[n++] = '[';
  for (int d = 0; d < 30; d++) text[n++] = ']';
  text[n++] = '\n';
  assert_int_equal(hc_deck_parse_string("deep.yaml", text, (size_t)n, &deck), HC_ERR_INPUT);
  assert_message_has("deep.yaml:2:11: mesh.cells must be an integer 1..1000000, got a list of 1 item");
  /* A million levels: refused at the 33rd, at once. */
  const int depth = 1000000;
  char *deep = malloc(2 * (size_t)depth + 64);
  assert_non_null(deep);
  n = sprintf(deep, "mesh:\n  cells: ");
  memset(deep + n, '[', (size_t)depth);
  memset(deep + n + depth, ']', (size_t)depth);
  n += 2 * depth;
  clock_t t0 = clock();
  assert_int_equal(hc_deck_parse_string("deeper.yaml", deep, (size_t)n, &deck), HC_ERR_INPUT);
  double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
  free(deep);
  assert_message_has("deeper.yaml:2:40: lists and mappings are nested more than 32 deep");
  if (seconds > 1.0) fail_msg("refusing a deck nested %d deep took %.2f s", depth, seconds);
}

static void test_set_overrides(void **state) {
  (void)state;
  char path[1024];
  hc_deck deck;
  assert_int_equal(hc_deck_parse_file(join(path, sizeof(path), inputs_dir, "weak.yaml"), &deck), HC_OK);
  assert_int_equal(deck.mesh.cells[0], 24);
  /* Lists: comma separated, flow, one value for all three. */
  assert_int_equal(hc_deck_apply_set(&deck, "mesh.cells=64,32,16"), HC_OK);
  assert_true(deck.mesh.cells[0] == 64 && deck.mesh.cells[1] == 32 && deck.mesh.cells[2] == 16);
  assert_int_equal(hc_deck_apply_set(&deck, "mesh.cells=[5, 6, 7]"), HC_OK);
  assert_true(deck.mesh.cells[0] == 5 && deck.mesh.cells[1] == 6 && deck.mesh.cells[2] == 7);
  assert_int_equal(hc_deck_apply_set(&deck, "mesh.cells=12"), HC_OK);
  assert_true(deck.mesh.cells[0] == 12 && deck.mesh.cells[1] == 12 && deck.mesh.cells[2] == 12);
  assert_int_equal(hc_deck_apply_set(&deck, "mesh.length=2,1.5,0.75"), HC_OK);
  assert_true(deck.mesh.length[0] == 2.0 && deck.mesh.length[1] == 1.5 && deck.mesh.length[2] == 0.75);
  /* Scalars of every type; the last --set of a key wins. */
  assert_int_equal(hc_deck_apply_set(&deck, "mesh.order=3"), HC_OK);
  assert_int_equal(hc_deck_apply_set(&deck, " mesh.order = 4"), HC_OK);
  assert_int_equal(deck.mesh.order, 4);
  assert_int_equal(hc_deck_quadrature(&deck), 5);
  assert_int_equal(hc_deck_apply_set(&deck, "mesh.quadrature=2"), HC_OK);
  assert_int_equal(hc_deck_quadrature(&deck), 2);
  assert_int_equal(hc_deck_apply_set(&deck, "run.steps=100"), HC_OK);
  assert_int_equal(deck.run.steps, 100);
  assert_int_equal(hc_deck_apply_set(&deck, "run.backend=serial"), HC_OK);
  assert_string_equal(deck.run.backend, "serial");
  assert_int_equal(hc_deck_apply_set(&deck, "run.precision=float"), HC_OK);
  assert_int_equal(deck.run.precision, HC_FLOAT);
  assert_int_equal(hc_deck_apply_set(&deck, "run.layout=cell-minor"), HC_OK);
  assert_int_equal(deck.run.layout, HC_LAYOUT_CELL_MINOR);
  assert_int_equal(hc_deck_apply_set(&deck, "run.assembly=fused"), HC_OK);
  assert_int_equal(deck.run.assembly, HC_DECK_ASSEMBLY_FUSED);
  assert_int_equal(hc_deck_apply_set(&deck, "run.deterministic=true"), HC_OK);
  assert_true(deck.run.deterministic);
  assert_int_equal(hc_deck_apply_set(&deck, "mesh.sizing=global"), HC_OK);
  assert_int_equal(deck.mesh.sizing, HC_SIZING_GLOBAL);
  assert_int_equal(hc_deck_apply_set(&deck, "run.dt=2.5e-3"), HC_OK);
  assert_true(deck.run.dt == 2.5e-3);
  assert_int_equal(hc_deck_apply_set(&deck, "output.dir=/tmp/a dir"), HC_OK);
  assert_string_equal(deck.output.dir, "/tmp/a dir");
  assert_int_equal(hc_deck_apply_set(&deck, "output.results='true'"), HC_OK);
  assert_string_equal(deck.output.results, "true");
  /* Kernels: a list, a single name, all; variants per kernel and as a mapping. */
  assert_int_equal(hc_deck_apply_set(&deck, "kernels.enabled=DataDataScalar,FieldFieldTensor"), HC_OK);
  for (int k = 0; k < HC_NUM_KERNELS; k++) {
    assert_int_equal(deck.kernels.enabled[k], k == HC_DATADATA_SCALAR || k == HC_FIELDFIELD_TENSOR);
  }
  assert_int_equal(hc_deck_apply_set(&deck, "kernels.enabled=DataFieldVector"), HC_OK);
  for (int k = 0; k < HC_NUM_KERNELS; k++) assert_int_equal(deck.kernels.enabled[k], k == HC_DATAFIELD_VECTOR);
  assert_int_equal(hc_deck_apply_set(&deck, "kernels.enabled=all"), HC_OK);
  for (int k = 0; k < HC_NUM_KERNELS; k++) assert_true(deck.kernels.enabled[k]);
  assert_int_equal(hc_deck_apply_set(&deck, "kernels.variant=flat"), HC_OK);
  assert_int_equal(hc_deck_apply_set(&deck, "kernels.variants.FieldFieldTensor=tile"), HC_OK);
  assert_int_equal(hc_deck_variant(&deck, HC_FIELDFIELD_TENSOR), HC_VARIANT_TILE);
  assert_int_equal(hc_deck_variant(&deck, HC_FIELDFIELD_SCALAR), HC_VARIANT_FLAT);
  assert_int_equal(hc_deck_apply_set(&deck, "kernels.variants={FieldFieldScalar: cublas, DataDataScalar: team}"),
                   HC_OK);
  assert_int_equal(hc_deck_variant(&deck, HC_FIELDFIELD_SCALAR), HC_VARIANT_CUBLAS);
  assert_int_equal(hc_deck_variant(&deck, HC_DATADATA_SCALAR), HC_VARIANT_TEAM);
  assert_int_equal(hc_deck_variant(&deck, HC_FIELDFIELD_TENSOR), HC_VARIANT_FLAT); /* the mapping replaced it */
  /* GPU device list: comma, flow, empty. */
  assert_int_equal(hc_deck_apply_set(&deck, "gpu.device_ids=0,2,1"), HC_OK);
  assert_int_equal(deck.gpu.num_device_ids, 3);
  assert_true(deck.gpu.device_ids[0] == 0 && deck.gpu.device_ids[1] == 2 && deck.gpu.device_ids[2] == 1);
  assert_int_equal(hc_deck_apply_set(&deck, "gpu.device_ids=[]"), HC_OK);
  assert_int_equal(deck.gpu.num_device_ids, 0);
  assert_int_equal(hc_deck_apply_set(&deck, "gpu.device_ids=[3]"), HC_OK);
  assert_int_equal(deck.gpu.num_device_ids, 1);
  assert_int_equal(hc_deck_apply_set(&deck, "gpu.cuda_aware_mpi=true"), HC_OK);
  assert_true(deck.gpu.cuda_aware_mpi);
  /* A failing --set leaves the key's value as it was. */
  assert_int_equal(hc_deck_apply_set(&deck, "mesh.order=9"), HC_ERR_INPUT);
  assert_int_equal(deck.mesh.order, 4);
}

static void test_where(void **state) {
  (void)state;
  char path[1024], where[1200], expect[1200];
  hc_deck deck;
  assert_int_equal(hc_deck_parse_file(join(path, sizeof(path), inputs_dir, "default.yaml"), &deck), HC_OK);
  /* default.yaml: "  order: 2" on line 8. */
  assert_int_equal(hc_deck_where(&deck, "mesh.order", where, sizeof(where)), HC_OK);
  snprintf(expect, sizeof(expect), "%s:8:10", path);
  assert_string_equal(where, expect);
  assert_int_equal(hc_deck_where(&deck, "run.progress", where, sizeof(where)), HC_OK);
  assert_string_equal(where, "default");
  assert_int_equal(hc_deck_apply_set(&deck, "mesh.cells=64,64,64"), HC_OK);
  assert_int_equal(hc_deck_where(&deck, "mesh.cells", where, sizeof(where)), HC_OK);
  assert_string_equal(where, "--set mesh.cells=64,64,64");
  assert_int_equal(hc_deck_where(&deck, "kernels.variants.FieldFieldTensor", where, sizeof(where)), HC_OK);
  assert_string_equal(where, "default");
  assert_int_equal(hc_deck_apply_set(&deck, "kernels.variants.FieldFieldTensor=tile"), HC_OK);
  assert_int_equal(hc_deck_where(&deck, "kernels.variants.FieldFieldTensor", where, sizeof(where)), HC_OK);
  assert_string_equal(where, "--set kernels.variants.FieldFieldTensor=tile");
  assert_int_equal(hc_deck_where(&deck, "mesh.nope", where, sizeof(where)), HC_ERR_INPUT);

  /* Errors raised after reading name where the key was set. */
  assert_int_equal(HC_DECK_ERROR(&deck, "mesh.cells", HC_ERR_RESOURCE, "mesh.cells needs %d GiB", 12), HC_ERR_RESOURCE);
  assert_string_equal(hc_error_message(), "--set mesh.cells=64,64,64: mesh.cells needs 12 GiB");
  assert_int_equal(HC_DECK_ERROR(&deck, "mesh.order", HC_ERR_INPUT, "too high"), HC_ERR_INPUT);
  snprintf(expect, sizeof(expect), "%s:8:10: too high", path);
  assert_string_equal(hc_error_message(), expect);
  assert_int_equal(HC_DECK_ERROR(&deck, "run.backend", HC_ERR_NOT_BUILT, "cuda is not built"), HC_ERR_NOT_BUILT);
  assert_message_has(path);
  assert_int_equal(HC_DECK_ERROR(&deck, "memory.host_limit_gib", HC_ERR_RESOURCE, "x"), HC_ERR_RESOURCE);
  assert_string_equal(hc_error_message(), "default memory.host_limit_gib: x");
  for (int k = 0; k < HC_DECK_NUM_KEYS; k++) {
    assert_int_equal(hc_deck_where(&deck, hc_deck_key_name((hc_deck_key)k), where, sizeof(where)), HC_OK);
  }
}

/* Writes deck to a file with hc_deck_write and reads it back. */
static void write_and_read(const hc_deck *deck, const char *name, hc_deck *back) {
  char path[512];
  hc_yaml_writer *w = NULL;
  join(path, sizeof(path), tmp_dir, name);
  assert_int_equal(hc_yaml_writer_create(path, &w), HC_OK);
  assert_int_equal(hc_deck_write(w, NULL, deck), HC_OK);
  assert_int_equal(hc_yaml_writer_close(&w), HC_OK);
  assert_null(w);
  int err = hc_deck_parse_file(path, back);
  if (err) fail_msg("reading the written deck back: %s", hc_error_message());
}

static void assert_same_values(const hc_deck *a, const hc_deck *b) {
  assert_true(hc_deck_equal(a, b));
  assert_memory_equal(&a->mesh, &b->mesh, sizeof(a->mesh));
  assert_memory_equal(&a->run, &b->run, sizeof(a->run));
  assert_memory_equal(&a->kernels, &b->kernels, sizeof(a->kernels));
  assert_memory_equal(&a->checks, &b->checks, sizeof(a->checks));
  assert_memory_equal(&a->output, &b->output, sizeof(a->output));
  assert_memory_equal(&a->memory, &b->memory, sizeof(a->memory));
  assert_memory_equal(&a->gpu, &b->gpu, sizeof(a->gpu));
}

static void test_roundtrip(void **state) {
  (void)state;
  hc_deck deck, back;
  /* The defaults. */
  hc_deck_init(&deck);
  write_and_read(&deck, "defaults.yaml", &back);
  assert_same_values(&deck, &back);
  /* Every key away from its default, with values that test number and string formatting. */
  static const char *const sets[] = {
      "mesh.source=file",
      "mesh.file='meshes/a mesh: one.msh'",
      "mesh.partitioner=metis",
      "mesh.cells=3,1000000,7",
      "mesh.sizing=per-rank",
      "mesh.length=0.1,0.3333333333333333,1.2345678901234567e-9",
      "mesh.order=4",
      "mesh.quadrature=10",
      "mesh.jitter=0.16666",
      "mesh.seed=9007199254740993",
      "mesh.shear.amplitude=0.0123456789012345678",
      "mesh.shear.omega=-987654321.98765432",
      "run.steps=2147483647",
      "run.warmup=0",
      "run.dt=1e-7",
      "run.backend=cuda",
      "run.precision=float",
      "run.layout=cell-minor",
      "run.assembly=fused",
      "run.lanes=2",
      "run.deterministic=true",
      "run.progress=0",
      "run.roofline=false",
      "kernels.enabled=FieldFieldTensor,DataDataScalar",
      "kernels.variant=adaptive",
      "kernels.variants.FieldFieldVector=tensorcore",
      "kernels.variants.DataFieldScalar=slice",
      "checks.enabled=false",
      "checks.every=5",
      "checks.samples=0",
      "checks.tolerance_factor=1.5",
      "output.dir='  spaced : dir # not a comment'",
      "output.results=\"123\"",
      "output.summary=false",
      "output.csv=sweep results.csv",
      "output.vtk=true",
      "output.vtk_every=7",
      "memory.host_limit_gib=0.5",
      "memory.device_limit_gib=79.25",
      "gpu.binding=none",
      "gpu.device_ids=7,0,3",
      "gpu.cuda_aware_mpi=true",
  };
  for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
    int err = hc_deck_apply_set(&deck, sets[i]);
    if (err) fail_msg("%s", hc_error_message());
  }
  hc_deck defaults;
  hc_deck_init(&defaults);
  for (int k = 0; k < HC_DECK_NUM_KEYS; k++) {
    /* kernels.variants.NAME=... sets the origin of that kernel's entry, not of the whole mapping. */
    if (k == HC_DECK_KERNELS_VARIANTS) continue;
    if (deck.origin[k].source != HC_DECK_FROM_SET) fail_msg("no --set for %s", hc_deck_key_name((hc_deck_key)k));
  }
  assert_int_equal(deck.variant_origin[HC_FIELDFIELD_VECTOR].source, HC_DECK_FROM_SET);
  write_and_read(&deck, "changed.yaml", &back);
  assert_same_values(&deck, &back);
  assert_string_equal(back.output.dir, "  spaced : dir # not a comment");
  assert_string_equal(back.output.results, "123");
  assert_true(back.mesh.length[2] == 1.2345678901234567e-9);
  /* Written again, the deck reads back the same once more (a fixed point). */
  hc_deck again;
  write_and_read(&back, "again.yaml", &again);
  assert_same_values(&back, &again);
  /* Empty variant overrides and device lists round trip too. */
  assert_int_equal(hc_deck_apply_set(&deck, "kernels.variants={}"), HC_OK);
  assert_int_equal(hc_deck_apply_set(&deck, "gpu.device_ids=[]"), HC_OK);
  write_and_read(&deck, "empty-lists.yaml", &back);
  assert_same_values(&deck, &back);
}

/* The deck embedded as one entry of a larger document, as a results file holds it. */
static void test_write_embedded(void **state) {
  (void)state;
  char path[512];
  hc_deck deck;
  hc_deck_init(&deck);
  hc_yaml_writer *w = NULL;
  join(path, sizeof(path), tmp_dir, "results.yaml");
  assert_int_equal(hc_yaml_writer_create(path, &w), HC_OK);
  assert_int_equal(hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_BLOCK), HC_OK);
  assert_int_equal(hc_yaml_writer_string(w, "version", "0.1.0"), HC_OK);
  assert_int_equal(hc_deck_write(w, "deck", &deck), HC_OK);
  assert_int_equal(hc_yaml_writer_int64(w, "exit_status", 0), HC_OK);
  assert_int_equal(hc_yaml_writer_end_mapping(w), HC_OK);
  assert_int_equal(hc_yaml_writer_close(&w), HC_OK);

  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  yaml_parser_t parser;
  yaml_document_t doc;
  assert_true(yaml_parser_initialize(&parser));
  yaml_parser_set_input_file(&parser, f);
  assert_true(yaml_parser_load(&parser, &doc));
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  assert_non_null(root);
  assert_int_equal(root->type, YAML_MAPPING_NODE);
  int found = 0;
  for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(&doc, p->key), *v = yaml_document_get_node(&doc, p->value);
    if (!strcmp((const char *)k->data.scalar.value, "deck")) {
      found = 1;
      assert_int_equal(v->type, YAML_MAPPING_NODE);
      assert_int_equal(v->data.mapping.pairs.top - v->data.mapping.pairs.start, 7); /* the seven groups */
    }
  }
  assert_true(found);
  yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  fclose(f);
}

static int setup(void **state) {
  (void)state;
  snprintf(tmp_dir, sizeof(tmp_dir), "%s/hc_deck_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  return mkdtemp(tmp_dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  static const char *const names[] = {"defaults.yaml", "changed.yaml", "again.yaml", "empty-lists.yaml",
                                      "results.yaml"};
  char path[512];
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) unlink(join(path, sizeof(path), tmp_dir, names[i]));
  return rmdir(tmp_dir);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s INPUTS_DIR DECKS_DIR\n", argv[0]);
    return 2;
  }
  inputs_dir = argv[1];
  decks_dir = argv[2];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shipped_decks), cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_bad_decks),     cmocka_unit_test(test_missing_file),
      cmocka_unit_test(test_set_errors),    cmocka_unit_test(test_numbers_and_nesting),
      cmocka_unit_test(test_set_overrides), cmocka_unit_test(test_where),
      cmocka_unit_test(test_roundtrip),     cmocka_unit_test(test_write_embedded),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
