/* A libyaml reader of results files: the keys that reports need, with file:line:column errors. */
#include "io/hc_results_read.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "io/hc_path.h"

/* Where the reader is: the parsed document and the file's name, for messages. */
typedef struct {
  yaml_document_t *doc;
  const char *path;
} hc_reader;

static yaml_node_t *hc_get(const hc_reader *r, yaml_node_t *map, const char *key) {
  if (!map || map->type != YAML_MAPPING_NODE) return NULL;
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
    if (k && k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0)
      return yaml_document_get_node(r->doc, p->value);
  }
  return NULL;
}

/* The node at a dotted path below map ("decomposition.ranks"), or an error naming the key. */
static int hc_require(const hc_reader *r, yaml_node_t *map, const char *dotted, yaml_node_t **out) {
  char part[128];
  const char *s = dotted;
  yaml_node_t *n = map;
  while (*s) {
    size_t len = strcspn(s, ".");
    HC_CHECK(len < sizeof(part), HC_ERR_INPUT, "%s: key %s is too long", r->path, dotted);
    memcpy(part, s, len);
    part[len] = '\0';
    n = hc_get(r, n, part);
    HC_CHECK(n, HC_ERR_INPUT, "%s: missing key %s (every %s file has it)", r->path, dotted, HC_RESULTS_READ_SCHEMA);
    s += len;
    if (*s == '.') s++;
  }
  *out = n;
  return HC_OK;
}

static int hc_scalar(const hc_reader *r, yaml_node_t *n, const char *what, const char **out) {
  HC_CHECK(n->type == YAML_SCALAR_NODE, HC_ERR_INPUT, "%s:%zu:%zu: %s must be a scalar", r->path,
           n->start_mark.line + 1, n->start_mark.column + 1, what);
  *out = (const char *)n->data.scalar.value;
  return HC_OK;
}

static int hc_number(const hc_reader *r, yaml_node_t *n, const char *what, double *out) {
  const char *s = "";
  HC_CALL(hc_scalar(r, n, what, &s));
  if (strcmp(s, ".nan") == 0 || strcmp(s, ".NaN") == 0) {
    *out = NAN;
    return HC_OK;
  }
  if (strcmp(s, ".inf") == 0 || strcmp(s, "-.inf") == 0) {
    *out = s[0] == '-' ? -INFINITY : INFINITY;
    return HC_OK;
  }
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  HC_CHECK(end != s && *end == '\0' && errno == 0, HC_ERR_INPUT, "%s:%zu:%zu: %s must be a number, got '%s'", r->path,
           n->start_mark.line + 1, n->start_mark.column + 1, what, s);
  *out = v;
  return HC_OK;
}

static int hc_number_at(const hc_reader *r, yaml_node_t *map, const char *dotted, double *out) {
  yaml_node_t *n;
  HC_CALL(hc_require(r, map, dotted, &n));
  return hc_number(r, n, dotted, out);
}

/* A measured time or rate, which reports divide by: finite and > 0, or (allow_zero) finite and >= 0. */
static int hc_measure_at(const hc_reader *r, yaml_node_t *map, const char *dotted, int allow_zero, double *out) {
  yaml_node_t *n;
  HC_CALL(hc_require(r, map, dotted, &n));
  HC_CALL(hc_number(r, n, dotted, out));
  HC_CHECK(isfinite(*out) && (allow_zero ? *out >= 0 : *out > 0), HC_ERR_INPUT,
           "%s:%zu:%zu: %s must be a finite number %s 0 (a measured time or rate), got %s", r->path,
           n->start_mark.line + 1, n->start_mark.column + 1, dotted, allow_zero ? ">=" : ">",
           (const char *)n->data.scalar.value);
  return HC_OK;
}

static int hc_string_at(const hc_reader *r, yaml_node_t *map, const char *dotted, char *buf, size_t size) {
  yaml_node_t *n;
  const char *s = "";
  HC_CALL(hc_require(r, map, dotted, &n));
  HC_CALL(hc_scalar(r, n, dotted, &s));
  snprintf(buf, size, "%s", s);
  return HC_OK;
}

static int hc_stat_at(const hc_reader *r, yaml_node_t *map, const char *dotted, hc_results_stat *st) {
  yaml_node_t *n;
  HC_CALL(hc_require(r, map, dotted, &n));
  char key[160];
  snprintf(key, sizeof(key), "%s.min", dotted);
  HC_CALL(hc_number_at(r, map, key, &st->min));
  snprintf(key, sizeof(key), "%s.avg", dotted);
  HC_CALL(hc_number_at(r, map, key, &st->avg));
  snprintf(key, sizeof(key), "%s.max", dotted);
  return hc_number_at(r, map, key, &st->max);
}

/* A timer's min, avg and max over ranks: seconds per step, finite, > 0 (the whole step) or >= 0 (a phase). */
static int hc_timer_at(const hc_reader *r, yaml_node_t *map, const char *dotted, int allow_zero, hc_results_stat *st) {
  yaml_node_t *n;
  HC_CALL(hc_require(r, map, dotted, &n));
  char key[160];
  snprintf(key, sizeof(key), "%s.min", dotted);
  HC_CALL(hc_measure_at(r, map, key, allow_zero, &st->min));
  snprintf(key, sizeof(key), "%s.avg", dotted);
  HC_CALL(hc_measure_at(r, map, key, allow_zero, &st->avg));
  snprintf(key, sizeof(key), "%s.max", dotted);
  return hc_measure_at(r, map, key, allow_zero, &st->max);
}

/* Three numbers in a sequence. */
static int hc_triple_at(const hc_reader *r, yaml_node_t *map, const char *dotted, double v[3]) {
  yaml_node_t *n;
  HC_CALL(hc_require(r, map, dotted, &n));
  int count = n->type == YAML_SEQUENCE_NODE ? (int)(n->data.sequence.items.top - n->data.sequence.items.start) : 0;
  HC_CHECK(count == 3, HC_ERR_INPUT, "%s:%zu:%zu: %s must be a list of 3 numbers", r->path, n->start_mark.line + 1,
           n->start_mark.column + 1, dotted);
  for (int i = 0; i < 3; i++)
    HC_CALL(hc_number(r, yaml_document_get_node(r->doc, n->data.sequence.items.start[i]), dotted, &v[i]));
  return HC_OK;
}

/* Writes node n back in flow style into buf (truncated at size). */
static void hc_flow(const hc_reader *r, yaml_node_t *n, char *buf, size_t size) {
  size_t used = strlen(buf);
  if (used + 1 >= size) return;
  if (n->type == YAML_SCALAR_NODE) {
    snprintf(buf + used, size - used, "%s", (const char *)n->data.scalar.value);
  } else if (n->type == YAML_SEQUENCE_NODE) {
    snprintf(buf + used, size - used, "[");
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
      if (i != n->data.sequence.items.start) snprintf(buf + strlen(buf), size - strlen(buf), ", ");
      hc_flow(r, yaml_document_get_node(r->doc, *i), buf, size);
    }
    snprintf(buf + strlen(buf), size - strlen(buf), "]");
  } else if (n->type == YAML_MAPPING_NODE) {
    snprintf(buf + used, size - used, "{");
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
      if (p != n->data.mapping.pairs.start) snprintf(buf + strlen(buf), size - strlen(buf), ", ");
      hc_flow(r, yaml_document_get_node(r->doc, p->key), buf, size);
      snprintf(buf + strlen(buf), size - strlen(buf), ": ");
      hc_flow(r, yaml_document_get_node(r->doc, p->value), buf, size);
    }
    snprintf(buf + strlen(buf), size - strlen(buf), "}");
  }
}

/* Flattens the deck: nested block mappings become dotted keys; anything else is a leaf. Mappings
   written in flow style (kernels.variants) and sequences stay whole. */
static int hc_flatten(const hc_reader *r, yaml_node_t *map, const char *prefix, hc_results_file *res, int *cap) {
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(r->doc, p->key), *v = yaml_document_get_node(r->doc, p->value);
    const char *kn = "";
    HC_CALL(hc_scalar(r, k, "a deck key", &kn));
    char key[128];
    int len = snprintf(key, sizeof(key), "%s%s%s", prefix, prefix[0] ? "." : "", kn);
    HC_CHECK(len > 0 && (size_t)len < sizeof(key), HC_ERR_INPUT, "%s:%zu: deck key %s.%s is too long", r->path,
             k->start_mark.line + 1, prefix, kn);
    if (v->type == YAML_MAPPING_NODE && v->data.mapping.style != YAML_FLOW_MAPPING_STYLE) {
      HC_CALL(hc_flatten(r, v, key, res, cap));
      continue;
    }
    if (res->num_deck == *cap) {
      int ncap = *cap ? 2 * *cap : 64;
      hc_results_entry *grown = realloc(res->deck, sizeof(*grown) * (size_t)ncap);
      HC_CHECK(grown, HC_ERR_RESOURCE, "out of host memory");
      res->deck = grown;
      *cap = ncap;
    }
    hc_results_entry *e = &res->deck[res->num_deck++];
    memset(e, 0, sizeof(*e));
    snprintf(e->key, sizeof(e->key), "%s", key);
    hc_flow(r, v, e->value, sizeof(e->value));
    e->line = (int)v->start_mark.line + 1;
  }
  return HC_OK;
}

static int hc_read_body(const hc_reader *r, yaml_node_t *root, hc_results_file *res) {
  HC_CHECK(root && root->type == YAML_MAPPING_NODE, HC_ERR_INPUT,
           "%s: not a results file (the document is not a mapping with a `schema` key)", r->path);
  yaml_node_t *n = hc_get(r, root, "schema");
  HC_CHECK(n, HC_ERR_INPUT, "%s: not a results file: it has no `schema` key (expected schema %s)", r->path,
           HC_RESULTS_READ_SCHEMA);
  HC_CALL(hc_string_at(r, root, "schema", res->schema, sizeof(res->schema)));
  HC_CHECK(strcmp(res->schema, HC_RESULTS_READ_SCHEMA) == 0, HC_ERR_INPUT,
           "%s:%zu:%zu: unknown schema '%s'; this hexcontract reads %s (a newer or older hexcontract wrote the file)",
           r->path, n->start_mark.line + 1, n->start_mark.column + 1, res->schema, HC_RESULTS_READ_SCHEMA);
  HC_CALL(hc_string_at(r, root, "status", res->status, sizeof(res->status)));
  if (hc_get(r, root, "date")) HC_CALL(hc_string_at(r, root, "date", res->date, sizeof(res->date)));
  if (hc_get(r, hc_get(r, root, "build"), "version"))
    HC_CALL(hc_string_at(r, root, "build.version", res->version, sizeof(res->version)));
  if (hc_get(r, hc_get(r, root, "build"), "git_revision"))
    HC_CALL(hc_string_at(r, root, "build.git_revision", res->git_revision, sizeof(res->git_revision)));

  HC_CALL(hc_require(r, root, "deck", &n));
  HC_CHECK(n->type == YAML_MAPPING_NODE, HC_ERR_INPUT, "%s:%zu: deck must be a mapping", r->path,
           n->start_mark.line + 1);
  int cap = 0;
  HC_CALL(hc_flatten(r, n, "", res, &cap));

  double v, t[3];
  HC_CALL(hc_number_at(r, root, "decomposition.ranks", &v));
  res->ranks = (int)v;
  HC_CHECK(v >= 1 && v == res->ranks, HC_ERR_INPUT, "%s: decomposition.ranks must be a positive integer", r->path);
  HC_CALL(hc_triple_at(r, root, "decomposition.rank_grid", t));
  for (int d = 0; d < 3; d++) res->rank_grid[d] = (int)t[d];
  HC_CALL(hc_triple_at(r, root, "decomposition.global_cells", t));
  for (int d = 0; d < 3; d++) res->global_cells[d] = (int64_t)t[d];
  HC_CALL(hc_number_at(r, root, "decomposition.num_global_cells", &v));
  res->num_global_cells = (int64_t)v;
  HC_CALL(hc_number_at(r, root, "decomposition.num_global_nodes", &v));
  res->num_global_nodes = (int64_t)v;
  HC_CALL(hc_stat_at(r, root, "decomposition.cells_per_rank", &res->cells_per_rank));
  HC_CALL(hc_stat_at(r, root, "decomposition.nodes_per_rank", &res->nodes_per_rank));
  HC_CALL(hc_stat_at(r, root, "decomposition.halo_bytes_per_exchange", &res->halo_bytes_per_exchange));
  HC_CALL(hc_stat_at(r, root, "decomposition.halo_neighbors", &res->halo_neighbors));
  HC_CALL(hc_number_at(r, root, "decomposition.halo_exchanges_per_step", &v));
  res->halo_exchanges_per_step = (int)v;

  yaml_node_t *ranks = hc_get(r, root, "ranks");
  if (ranks && ranks->type == YAML_SEQUENCE_NODE) {
    int count = (int)(ranks->data.sequence.items.top - ranks->data.sequence.items.start);
    res->rank_info = calloc((size_t)(count > 0 ? count : 1), sizeof(*res->rank_info));
    HC_CHECK(res->rank_info, HC_ERR_RESOURCE, "out of host memory");
    for (int i = 0; i < count; i++) {
      yaml_node_t *e = yaml_document_get_node(r->doc, ranks->data.sequence.items.start[i]);
      hc_results_rank *ri = &res->rank_info[res->num_rank_info++];
      ri->device_index = -1;
      yaml_node_t *x;
      const char *s = "";
      if ((x = hc_get(r, e, "host")) && hc_scalar(r, x, "ranks.host", &s) == HC_OK)
        snprintf(ri->host, sizeof(ri->host), "%s", s);
      if ((x = hc_get(r, e, "device")) && hc_scalar(r, x, "ranks.device", &s) == HC_OK)
        snprintf(ri->device, sizeof(ri->device), "%s", s);
      if ((x = hc_get(r, e, "device_index")) && hc_number(r, x, "ranks.device_index", &v) == HC_OK)
        ri->device_index = (int)v;
    }
  }

  HC_CALL(hc_require(r, root, "timers.timed_steps", &n));
  HC_CALL(hc_number(r, n, "timers.timed_steps", &v));
  res->timed_steps = (int)v;
  HC_CHECK(v >= 1 && v <= 1e9 && v == res->timed_steps, HC_ERR_INPUT,
           "%s:%zu:%zu: timers.timed_steps must be a positive integer (a run with no timed step has no times to "
           "report), got %s",
           r->path, n->start_mark.line + 1, n->start_mark.column + 1, (const char *)n->data.scalar.value);
  HC_CALL(hc_measure_at(r, root, "timers.total_seconds", 0, &res->total_seconds));
  yaml_node_t *timers;
  HC_CALL(hc_require(r, root, "timers", &timers));
  HC_CHECK(timers->type == YAML_MAPPING_NODE, HC_ERR_INPUT, "%s:%zu: timers must be a mapping", r->path,
           timers->start_mark.line + 1);
  int count = (int)(timers->data.mapping.pairs.top - timers->data.mapping.pairs.start);
  res->phases = calloc((size_t)count, sizeof(*res->phases));
  HC_CHECK(res->phases, HC_ERR_RESOURCE, "out of host memory");
  for (yaml_node_pair_t *p = timers->data.mapping.pairs.start; p < timers->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(r->doc, p->key), *val = yaml_document_get_node(r->doc, p->value);
    if (k->type != YAML_SCALAR_NODE || val->type != YAML_MAPPING_NODE) continue;
    hc_results_phase *ph = &res->phases[res->num_phases++];
    snprintf(ph->name, sizeof(ph->name), "%s", (const char *)k->data.scalar.value);
    char key[80];
    snprintf(key, sizeof(key), "timers.%s", ph->name);
    HC_CALL(hc_timer_at(r, root, key, strcmp(ph->name, "step") != 0, &ph->s));
  }
  HC_CHECK(hc_results_phase_stat(res, "step"), HC_ERR_INPUT, "%s: missing key timers.step (every %s file has it)",
           r->path, HC_RESULTS_READ_SCHEMA);

  HC_CALL(hc_measure_at(r, root, "figures_of_merit.cell_steps_per_second", 0, &res->cell_steps_per_second));
  HC_CALL(hc_measure_at(r, root, "figures_of_merit.node_steps_per_second", 0, &res->node_steps_per_second));
  HC_CALL(hc_measure_at(r, root, "figures_of_merit.seconds_per_step", 0, &res->seconds_per_step));

  /* The roofline section is optional: runs with run.roofline off have none, nor do files written before it. */
  res->roofline_step_percent = NAN;
  yaml_node_t *roof = hc_get(r, root, "roofline"), *measured = hc_get(r, roof, "measured");
  if (measured) {
    const char *s = "false";
    HC_CALL(hc_scalar(r, measured, "roofline.measured", &s));
    res->roofline = strcmp(s, "true") == 0 || strcmp(s, "True") == 0 || strcmp(s, "TRUE") == 0;
  }
  if (res->roofline && hc_get(r, hc_get(r, hc_get(r, roof, "phases"), "step"), "percent"))
    HC_CALL(hc_number_at(r, root, "roofline.phases.step.percent", &res->roofline_step_percent));

  yaml_node_t *checks = hc_get(r, root, "checks");
  if (checks && checks->type == YAML_MAPPING_NODE) {
    count = (int)(checks->data.mapping.pairs.top - checks->data.mapping.pairs.start);
    res->checks = calloc((size_t)(count > 0 ? count : 1), sizeof(*res->checks));
    HC_CHECK(res->checks, HC_ERR_RESOURCE, "out of host memory");
    for (yaml_node_pair_t *p = checks->data.mapping.pairs.start; p < checks->data.mapping.pairs.top; p++) {
      yaml_node_t *k = yaml_document_get_node(r->doc, p->key), *val = yaml_document_get_node(r->doc, p->value);
      if (k->type != YAML_SCALAR_NODE || val->type != YAML_MAPPING_NODE) continue;
      hc_results_check *c = &res->checks[res->num_checks++];
      snprintf(c->name, sizeof(c->name), "%s", (const char *)k->data.scalar.value);
      yaml_node_t *x = hc_get(r, val, "passed");
      const char *s = "false";
      if (x) HC_CALL(hc_scalar(r, x, "checks.passed", &s));
      c->passed = strcmp(s, "true") == 0 || strcmp(s, "True") == 0 || strcmp(s, "TRUE") == 0;
      c->value = c->expected = c->tolerance = NAN;
      if ((x = hc_get(r, val, "value"))) HC_CALL(hc_number(r, x, "checks.value", &c->value));
      if ((x = hc_get(r, val, "expected"))) HC_CALL(hc_number(r, x, "checks.expected", &c->expected));
      if ((x = hc_get(r, val, "tolerance"))) HC_CALL(hc_number(r, x, "checks.tolerance", &c->tolerance));
    }
  }
  return HC_OK;
}

int hc_results_read(const char *path, hc_results_file **res) {
  int ierr = HC_OK;
  *res = NULL;
  yaml_parser_t parser;
  yaml_document_t doc;
  int parser_ok = 0, doc_ok = 0;
  hc_results_file *out = NULL;
  FILE *f = NULL;
  HC_CALL_GOTO(hc_path_open_read(path, "the results file", &f), cleanup);
  out = calloc(1, sizeof(*out));
  HC_CHECK_GOTO(out, HC_ERR_RESOURCE, cleanup, "out of host memory");
  snprintf(out->path, sizeof(out->path), "%s", path);
  parser_ok = yaml_parser_initialize(&parser);
  HC_CHECK_GOTO(parser_ok, HC_ERR_RESOURCE, cleanup, "out of host memory (YAML parser)");
  yaml_parser_set_input_file(&parser, f);
  doc_ok = yaml_parser_load(&parser, &doc);
  HC_CHECK_GOTO(doc_ok, HC_ERR_INPUT, cleanup, "%s:%zu:%zu: malformed YAML: %s", path, parser.problem_mark.line + 1,
                parser.problem_mark.column + 1, parser.problem ? parser.problem : "unknown problem");
  hc_reader r = {&doc, path};
  HC_CALL_GOTO(hc_read_body(&r, yaml_document_get_root_node(&doc), out), cleanup);
  *res = out;
  out = NULL;
cleanup:
  if (doc_ok) yaml_document_delete(&doc);
  if (parser_ok) yaml_parser_delete(&parser);
  if (f) fclose(f);
  hc_results_file_destroy(&out);
  return ierr;
}

void hc_results_file_destroy(hc_results_file **res) {
  if (!res || !*res) return;
  free((*res)->deck);
  free((*res)->rank_info);
  free((*res)->phases);
  free((*res)->checks);
  free(*res);
  *res = NULL;
}

const hc_results_entry *hc_results_deck_entry(const hc_results_file *res, const char *key) {
  for (int i = 0; i < res->num_deck; i++)
    if (strcmp(res->deck[i].key, key) == 0) return &res->deck[i];
  return NULL;
}

const hc_results_stat *hc_results_phase_stat(const hc_results_file *res, const char *name) {
  for (int i = 0; i < res->num_phases; i++)
    if (strcmp(res->phases[i].name, name) == 0) return &res->phases[i].s;
  return NULL;
}
