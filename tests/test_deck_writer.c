/* YAML writer tests: nested mappings and sequences read back with libyaml, quoting, numbers, atomicity and misuse. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <yaml.h>

#include "io/hc_yaml_writer.h"

static char tmp_dir[256];

static const char *path_of(const char *name) {
  static char buf[512];
  snprintf(buf, sizeof(buf), "%s/%s", tmp_dir, name);
  return buf;
}

/* Number of files in the temporary directory whose name contains part. */
static int count_files(const char *part) {
  int n = 0;
  DIR *d = opendir(tmp_dir);
  assert_non_null(d);
  for (struct dirent *e; (e = readdir(d));) n += strstr(e->d_name, part) != NULL;
  closedir(d);
  return n;
}

static void write_text(const char *name, const char *text) {
  FILE *f = fopen(path_of(name), "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void assert_file_text(const char *name, const char *text) {
  char buf[256] = "";
  FILE *f = fopen(path_of(name), "rb");
  assert_non_null(f);
  size_t n = fread(buf, 1, sizeof(buf) - 1, f);
  buf[n] = '\0';
  fclose(f);
  assert_string_equal(buf, text);
}

/* A loaded document and lookups into it. */
typedef struct {
  yaml_parser_t parser;
  yaml_document_t doc;
  FILE *f;
} loaded;

static yaml_node_t *load(loaded *l, const char *name) {
  l->f = fopen(path_of(name), "rb");
  assert_non_null(l->f);
  assert_true(yaml_parser_initialize(&l->parser));
  yaml_parser_set_input_file(&l->parser, l->f);
  if (!yaml_parser_load(&l->parser, &l->doc)) fail_msg("libyaml: %s", l->parser.problem);
  return yaml_document_get_root_node(&l->doc);
}

static void unload(loaded *l) {
  yaml_document_delete(&l->doc);
  yaml_parser_delete(&l->parser);
  fclose(l->f);
}

static yaml_node_t *get(loaded *l, yaml_node_t *map, const char *key) {
  assert_int_equal(map->type, YAML_MAPPING_NODE);
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(&l->doc, p->key);
    if (!strcmp((const char *)k->data.scalar.value, key)) return yaml_document_get_node(&l->doc, p->value);
  }
  fail_msg("no key %s", key);
  return NULL;
}

static yaml_node_t *item(loaded *l, yaml_node_t *seq, int i) {
  assert_int_equal(seq->type, YAML_SEQUENCE_NODE);
  assert_true(i < seq->data.sequence.items.top - seq->data.sequence.items.start);
  return yaml_document_get_node(&l->doc, seq->data.sequence.items.start[i]);
}

static void assert_scalar(yaml_node_t *node, const char *text, int plain) {
  assert_int_equal(node->type, YAML_SCALAR_NODE);
  assert_string_equal((const char *)node->data.scalar.value, text);
  if (plain) {
    assert_int_equal(node->data.scalar.style, YAML_PLAIN_SCALAR_STYLE);
  } else {
    assert_int_not_equal(node->data.scalar.style, YAML_PLAIN_SCALAR_STYLE);
  }
}

static void test_nested(void **state) {
  (void)state;
  hc_yaml_writer *w = NULL;
  assert_int_equal(hc_yaml_writer_create(path_of("nested.yaml"), &w), HC_OK);
  assert_int_equal(hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_BLOCK), HC_OK);
  assert_int_equal(hc_yaml_writer_string(w, "name", "hexcontract"), HC_OK);
  assert_int_equal(hc_yaml_writer_begin_mapping(w, "timers", HC_YAML_BLOCK), HC_OK);
  assert_int_equal(hc_yaml_writer_begin_mapping(w, "FieldFieldTensor", HC_YAML_FLOW), HC_OK);
  assert_int_equal(hc_yaml_writer_double(w, "min", 0.1), HC_OK);
  assert_int_equal(hc_yaml_writer_double(w, "max", 2.0), HC_OK);
  assert_int_equal(hc_yaml_writer_end_mapping(w), HC_OK);
  assert_int_equal(hc_yaml_writer_end_mapping(w), HC_OK);
  assert_int_equal(hc_yaml_writer_begin_sequence(w, "checks", HC_YAML_BLOCK), HC_OK);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_BLOCK), HC_OK);
    assert_int_equal(hc_yaml_writer_int64(w, "id", i + 1), HC_OK);
    assert_int_equal(hc_yaml_writer_bool(w, "passed", i == 0), HC_OK);
    assert_int_equal(hc_yaml_writer_end_mapping(w), HC_OK);
  }
  assert_int_equal(hc_yaml_writer_end_sequence(w), HC_OK);
  assert_int_equal(hc_yaml_writer_begin_sequence(w, "grid", HC_YAML_FLOW), HC_OK);
  for (int i = 0; i < 3; i++) assert_int_equal(hc_yaml_writer_int64(w, NULL, i + 2), HC_OK);
  assert_int_equal(hc_yaml_writer_end_sequence(w), HC_OK);
  assert_int_equal(hc_yaml_writer_begin_sequence(w, "empty_list", HC_YAML_BLOCK), HC_OK);
  assert_int_equal(hc_yaml_writer_end_sequence(w), HC_OK);
  assert_int_equal(hc_yaml_writer_begin_mapping(w, "empty_map", HC_YAML_BLOCK), HC_OK);
  assert_int_equal(hc_yaml_writer_end_mapping(w), HC_OK);
  /* Strings that would read back as something else are quoted; others are not. */
  static const char *const tricky[] = {"true", "no",   "null", "~",     "",           "123",
                                       "-1.5", ".inf", "0x1F", "a: b",  "# hash",     "- dash",
                                       "[x]",  "{y}",  "it's", "\"q\"", "two\nlines", "Ünïcode"};
  assert_int_equal(hc_yaml_writer_begin_sequence(w, "strings", HC_YAML_BLOCK), HC_OK);
  for (size_t i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
    assert_int_equal(hc_yaml_writer_string(w, NULL, tricky[i]), HC_OK);
  }
  assert_int_equal(hc_yaml_writer_end_sequence(w), HC_OK);
  assert_int_equal(hc_yaml_writer_string(w, "true", "key needing quotes"), HC_OK);
  assert_int_equal(hc_yaml_writer_begin_sequence(w, "numbers", HC_YAML_FLOW), HC_OK);
  assert_int_equal(hc_yaml_writer_int64(w, NULL, INT64_MIN), HC_OK);
  assert_int_equal(hc_yaml_writer_int64(w, NULL, INT64_MAX), HC_OK);
  assert_int_equal(hc_yaml_writer_double(w, NULL, NAN), HC_OK);
  assert_int_equal(hc_yaml_writer_double(w, NULL, INFINITY), HC_OK);
  assert_int_equal(hc_yaml_writer_double(w, NULL, -INFINITY), HC_OK);
  assert_int_equal(hc_yaml_writer_double(w, NULL, 1.0 / 3.0), HC_OK);
  assert_int_equal(hc_yaml_writer_null(w, NULL), HC_OK);
  assert_int_equal(hc_yaml_writer_end_sequence(w), HC_OK);
  assert_int_equal(hc_yaml_writer_end_mapping(w), HC_OK);
  assert_int_equal(hc_yaml_writer_close(&w), HC_OK);
  assert_null(w);
  assert_int_equal(count_files(".tmp."), 0);

  loaded l;
  yaml_node_t *root = load(&l, "nested.yaml");
  assert_scalar(get(&l, root, "name"), "hexcontract", 1);
  yaml_node_t *fft = get(&l, get(&l, root, "timers"), "FieldFieldTensor");
  assert_int_equal(fft->data.mapping.style, YAML_FLOW_MAPPING_STYLE);
  assert_scalar(get(&l, fft, "min"), "0.1", 1);
  assert_scalar(get(&l, fft, "max"), "2.0", 1);
  yaml_node_t *checks = get(&l, root, "checks");
  assert_scalar(get(&l, item(&l, checks, 0), "id"), "1", 1);
  assert_scalar(get(&l, item(&l, checks, 0), "passed"), "true", 1);
  assert_scalar(get(&l, item(&l, checks, 1), "passed"), "false", 1);
  yaml_node_t *grid = get(&l, root, "grid");
  assert_int_equal(grid->data.sequence.style, YAML_FLOW_SEQUENCE_STYLE);
  assert_scalar(item(&l, grid, 2), "4", 1);
  yaml_node_t *empty_list = get(&l, root, "empty_list"), *empty_map = get(&l, root, "empty_map");
  assert_int_equal(empty_list->type, YAML_SEQUENCE_NODE);
  assert_true(empty_list->data.sequence.items.top == empty_list->data.sequence.items.start);
  assert_int_equal(empty_map->type, YAML_MAPPING_NODE);
  assert_true(empty_map->data.mapping.pairs.top == empty_map->data.mapping.pairs.start);
  yaml_node_t *strings = get(&l, root, "strings");
  for (size_t i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
    yaml_node_t *s = item(&l, strings, (int)i);
    assert_string_equal((const char *)s->data.scalar.value, tricky[i]);
    if (i < 9) assert_int_not_equal(s->data.scalar.style, YAML_PLAIN_SCALAR_STYLE);
  }
  assert_scalar(get(&l, root, "true"), "key needing quotes", 1);
  yaml_node_t *numbers = get(&l, root, "numbers");
  assert_scalar(item(&l, numbers, 0), "-9223372036854775808", 1);
  assert_scalar(item(&l, numbers, 1), "9223372036854775807", 1);
  assert_scalar(item(&l, numbers, 2), ".nan", 1);
  assert_scalar(item(&l, numbers, 3), ".inf", 1);
  assert_scalar(item(&l, numbers, 4), "-.inf", 1);
  assert_true(strtod((const char *)item(&l, numbers, 5)->data.scalar.value, NULL) == 1.0 / 3.0);
  assert_scalar(item(&l, numbers, 6), "null", 1);
  unload(&l);
  unlink(path_of("nested.yaml"));
}

static void test_format_double(void **state) {
  (void)state;
  static const double values[] = {
      0.0,         -0.0, 1.0,       0.1,  0.2,          1e-300, 5e-324, 1.7976931348623157e308,
      123456789.0, 1e21, 1.0 / 3.0, -2.5, 6.02214076e23};
  char buf[40];
  for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
    hc_yaml_format_double(values[i], buf, sizeof(buf));
    assert_true(strtod(buf, NULL) == values[i]);
    assert_non_null(strchr(buf, '.')); /* reads back as a float in YAML 1.1 and 1.2 */
    assert_true(signbit(strtod(buf, NULL)) == signbit(values[i]));
  }
  hc_yaml_format_double(0.1, buf, sizeof(buf));
  assert_string_equal(buf, "0.1");
  hc_yaml_format_double(1.0, buf, sizeof(buf));
  assert_string_equal(buf, "1.0");
  hc_yaml_format_double(10.0, buf, sizeof(buf));
  assert_string_equal(buf, "10.0");
  hc_yaml_format_double(-1e21, buf, sizeof(buf));
  assert_string_equal(buf, "-1.0e+21");
  hc_yaml_format_double(1e-5, buf, sizeof(buf));
  assert_string_equal(buf, "1.0e-05");
  hc_yaml_format_double(2.5e-300, buf, sizeof(buf));
  assert_string_equal(buf, "2.5e-300");
  hc_yaml_format_double(1.2345678901234567e-4, buf, sizeof(buf));
  assert_true(strtod(buf, NULL) == 1.2345678901234567e-4);
  hc_yaml_format_double(NAN, buf, sizeof(buf));
  assert_string_equal(buf, ".nan");
  hc_yaml_format_double(-INFINITY, buf, sizeof(buf));
  assert_string_equal(buf, "-.inf");
}

/* Abandoned and failed writes leave the target as it was and no temporary file. */
static void test_atomic(void **state) {
  (void)state;
  write_text("target.yaml", "old: 1\n");
  hc_yaml_writer *w = NULL;
  assert_int_equal(hc_yaml_writer_create(path_of("target.yaml"), &w), HC_OK);
  assert_int_equal(count_files("target.yaml.tmp."), 1);
  assert_int_equal(hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_BLOCK), HC_OK);
  assert_int_equal(hc_yaml_writer_string(w, "new", "2"), HC_OK);
  assert_int_equal(hc_yaml_writer_end_mapping(w), HC_OK);
  hc_yaml_writer_destroy(&w);
  assert_null(w);
  hc_yaml_writer_destroy(&w); /* a NULL handle is fine */
  hc_yaml_writer_destroy(NULL);
  assert_file_text("target.yaml", "old: 1\n");
  assert_int_equal(count_files(".tmp."), 0);

  /* Closing an unfinished document fails and leaves everything as it was. */
  assert_int_equal(hc_yaml_writer_create(path_of("target.yaml"), &w), HC_OK);
  assert_int_equal(hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_BLOCK), HC_OK);
  assert_int_equal(hc_yaml_writer_close(&w), HC_ERR_RUNTIME);
  assert_null(w);
  assert_file_text("target.yaml", "old: 1\n");
  assert_int_equal(count_files(".tmp."), 0);

  /* A finished one replaces the target. */
  assert_int_equal(hc_yaml_writer_create(path_of("target.yaml"), &w), HC_OK);
  assert_int_equal(hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_BLOCK), HC_OK);
  assert_int_equal(hc_yaml_writer_int64(w, "new", 2), HC_OK);
  assert_int_equal(hc_yaml_writer_end_mapping(w), HC_OK);
  assert_int_equal(hc_yaml_writer_close(&w), HC_OK);
  assert_file_text("target.yaml", "new: 2\n");
  assert_int_equal(count_files(".tmp."), 0);
  unlink(path_of("target.yaml"));

  /* A directory that does not exist. */
  assert_int_equal(hc_yaml_writer_create(path_of("no/such/dir/x.yaml"), &w), HC_ERR_INPUT);
  assert_null(w);
}

/* Nodes in the wrong place are errors, and the first error sticks. */
static void test_misuse(void **state) {
  (void)state;
  hc_yaml_writer *w = NULL;
  assert_int_equal(hc_yaml_writer_create(path_of("misuse.yaml"), &w), HC_OK);
  assert_int_equal(hc_yaml_writer_string(w, "key", "at the root"), HC_ERR_RUNTIME);
  assert_int_equal(hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_BLOCK), HC_ERR_RUNTIME); /* sticky */
  hc_yaml_writer_destroy(&w);

  assert_int_equal(hc_yaml_writer_create(path_of("misuse.yaml"), &w), HC_OK);
  assert_int_equal(hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_BLOCK), HC_OK);
  assert_int_equal(hc_yaml_writer_int64(w, NULL, 1), HC_ERR_RUNTIME); /* a mapping entry without a key */
  assert_int_equal(hc_yaml_writer_close(&w), HC_ERR_RUNTIME);

  assert_int_equal(hc_yaml_writer_create(path_of("misuse.yaml"), &w), HC_OK);
  assert_int_equal(hc_yaml_writer_begin_sequence(w, NULL, HC_YAML_FLOW), HC_OK);
  assert_int_equal(hc_yaml_writer_int64(w, "k", 1), HC_ERR_RUNTIME); /* a sequence item with a key */
  hc_yaml_writer_destroy(&w);

  assert_int_equal(hc_yaml_writer_create(path_of("misuse.yaml"), &w), HC_OK);
  assert_int_equal(hc_yaml_writer_begin_sequence(w, NULL, HC_YAML_FLOW), HC_OK);
  assert_int_equal(hc_yaml_writer_end_mapping(w), HC_ERR_RUNTIME); /* mismatched end */
  hc_yaml_writer_destroy(&w);

  assert_int_equal(hc_yaml_writer_create(path_of("misuse.yaml"), &w), HC_OK);
  assert_int_equal(hc_yaml_writer_null(w, NULL), HC_OK);
  assert_int_equal(hc_yaml_writer_null(w, NULL), HC_ERR_RUNTIME); /* a second root */
  hc_yaml_writer_destroy(&w);

  assert_int_equal(hc_yaml_writer_create(path_of("misuse.yaml"), &w), HC_OK);
  assert_int_equal(hc_yaml_writer_close(&w), HC_ERR_RUNTIME); /* no root */
  assert_int_equal(count_files("misuse"), 0);
}

static int setup(void **state) {
  (void)state;
  snprintf(tmp_dir, sizeof(tmp_dir), "%s/hc_yaml_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  return mkdtemp(tmp_dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  return rmdir(tmp_dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nested),
      cmocka_unit_test(test_format_double),
      cmocka_unit_test(test_atomic),
      cmocka_unit_test(test_misuse),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
