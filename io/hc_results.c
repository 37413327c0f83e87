/* The results file: the schema of io/hc_results.h as field tables, the one writer and reader built on them (libyaml,
   with file:line:column errors), and the CSV row of a run. */
#define _GNU_SOURCE
#include "io/hc_results.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#include "hc_config.h"
#include "io/hc_atomic_file.h"
#include "io/hc_path.h"

typedef enum {
  HC_KIND_NAME,
  HC_KIND_STRING,
  HC_KIND_TEXT,
  HC_KIND_INT,
  HC_KIND_INT64,
  HC_KIND_DOUBLE,
  HC_KIND_BOOL,
  HC_KIND_STAT,
  HC_KIND_INT3,
  HC_KIND_INT64_3,
  HC_KIND_DOUBLE3,
} hc_kind;

typedef enum {
  HC_READ_NO,
  HC_READ_REQUIRED,
  HC_READ_OPTIONAL,
  HC_READ_MEASURE,
  HC_READ_POSITIVE,
  HC_READ_STEPS,
  HC_READ_LENIENT,
  HC_READ_SCHEMA,
} hc_read_rule;

/* When the writer writes a key: always, when its string is set, or when the struct it sits in has the condition (the
   writer's caller says which conditions hold, as a mask). */
typedef enum {
  HC_WHEN_ALWAYS = 0,
  HC_WHEN_SET = 1 << 0,
  HC_WHEN_CUDA = 1 << 1,
  HC_WHEN_MEASURED = 1 << 2,
  HC_WHEN_DEVICE = 1 << 3,
  HC_WHEN_MEMORY = 1 << 4,
  HC_WHEN_PERCENT = 1 << 5,
  HC_WHEN_DATADATA = 1 << 6,
  HC_WHEN_NODAL = 1 << 7,
  HC_WHEN_BOX = 1 << 8,
} hc_when;

/* One key of the schema: where its value sits in the struct of its mapping. */
typedef struct {
  const char *key;
  hc_kind kind;
  hc_read_rule read;
  hc_when when;
  size_t offset;
} hc_field;

#define HC_FIELD(kind, key, read, when) \
  {#key, HC_KIND_##kind, HC_READ_##read, HC_WHEN_##when, offsetof(HC_FIELD_OF, key)},
#define HC_NUM_FIELDS(table) ((int)(sizeof(table) / sizeof(table[0])))

#define HC_FIELD_OF hc_results
static const hc_field hc_top_fields[] = {HC_RESULTS_TOP(HC_FIELD)};
static const hc_field hc_decomposition_fields[] = {HC_RESULTS_DECOMPOSITION(HC_FIELD)};
static const hc_field hc_timers_fields[] = {HC_RESULTS_TIMERS(HC_FIELD)};
static const hc_field hc_figures_fields[] = {HC_RESULTS_FIGURES(HC_FIELD)};
static const hc_field hc_values_fields[] = {HC_RESULTS_VALUES(HC_FIELD)};
#undef HC_FIELD_OF
#define HC_FIELD_OF hc_results_build
static const hc_field hc_build_fields[] = {HC_RESULTS_BUILD(HC_FIELD)};
#undef HC_FIELD_OF
#define HC_FIELD_OF hc_results_rank
static const hc_field hc_rank_fields[] = {HC_RESULTS_RANK(HC_FIELD)};
#undef HC_FIELD_OF
#define HC_FIELD_OF hc_results_kernel
static const hc_field hc_kernel_fields[] = {HC_RESULTS_KERNEL(HC_FIELD)};
#undef HC_FIELD_OF
#define HC_FIELD_OF hc_results_roofline
static const hc_field hc_roofline_fields[] = {HC_RESULTS_ROOFLINE(HC_FIELD)};
#undef HC_FIELD_OF
#define HC_FIELD_OF hc_results_roofline_phase
static const hc_field hc_roofline_phase_fields[] = {HC_RESULTS_ROOFLINE_PHASE(HC_FIELD)};
#undef HC_FIELD_OF
#define HC_FIELD_OF hc_results_check
static const hc_field hc_check_fields[] = {HC_RESULTS_CHECK(HC_FIELD)};
#undef HC_FIELD_OF
#define HC_FIELD_OF hc_results_value
static const hc_field hc_value_fields[] = {HC_RESULTS_VALUE(HC_FIELD)};
#undef HC_FIELD_OF

int hc_results_create(hc_results **res) {
  hc_results *r = calloc(1, sizeof(*r));
  HC_CHECK(r, HC_ERR_RESOURCE, "out of host memory");
  snprintf(r->schema, sizeof(r->schema), "%s", HC_RESULTS_SCHEMA);
  r->unit = "seconds per timed step, over ranks";
  *res = r;
  return HC_OK;
}

void hc_results_destroy(hc_results **res) {
  if (!res || !*res) return;
  free((*res)->deck);
  free((*res)->rank_info);
  free((*res)->phases);
  free((*res)->kernels);
  free((*res)->roofline.phases);
  free((*res)->checks);
  free((*res)->values);
  free(*res);
  *res = NULL;
}

/* The writer */

/* Whether the writer writes field f of the struct at base, where the conditions of mask have. */
static int hc_field_written(const hc_field *f, const void *base, unsigned have) {
  if (f->when == HC_WHEN_ALWAYS) return 1;
  if (f->when == HC_WHEN_SET) return ((const char *)base + f->offset)[0] != '\0';
  return (have & (unsigned)f->when) != 0;
}

static int hc_write_stat(hc_yaml_writer *w, const char *key, const hc_results_stat *s) {
  HC_CALL(hc_yaml_writer_begin_mapping(w, key, HC_YAML_FLOW));
  HC_CALL(hc_yaml_writer_double(w, "min", s->min));
  HC_CALL(hc_yaml_writer_double(w, "avg", s->avg));
  HC_CALL(hc_yaml_writer_double(w, "max", s->max));
  HC_CALL(hc_yaml_writer_double(w, "imbalance", s->avg > 0 ? s->max / s->avg - 1.0 : 0.0));
  return hc_yaml_writer_end_mapping(w);
}

static int hc_write_field(hc_yaml_writer *w, const hc_field *f, const void *base) {
  const void *p = (const char *)base + f->offset;
  switch (f->kind) {
    case HC_KIND_NAME:
    case HC_KIND_STRING:
      return hc_yaml_writer_string(w, f->key, (const char *)p);
    case HC_KIND_TEXT: {
      const char *s = *(const hc_results_text *)p;
      return hc_yaml_writer_string(w, f->key, s ? s : "");
    }
    case HC_KIND_INT:
      return hc_yaml_writer_int64(w, f->key, *(const int *)p);
    case HC_KIND_INT64:
      return hc_yaml_writer_int64(w, f->key, *(const int64_t *)p);
    case HC_KIND_DOUBLE:
      return hc_yaml_writer_double(w, f->key, *(const double *)p);
    case HC_KIND_BOOL:
      return hc_yaml_writer_bool(w, f->key, *(const int *)p != 0);
    case HC_KIND_STAT:
      return hc_write_stat(w, f->key, (const hc_results_stat *)p);
    case HC_KIND_INT3:
    case HC_KIND_INT64_3:
    case HC_KIND_DOUBLE3:
      HC_CALL(hc_yaml_writer_begin_sequence(w, f->key, HC_YAML_FLOW));
      for (int d = 0; d < 3; d++) {
        if (f->kind == HC_KIND_INT3) HC_CALL(hc_yaml_writer_int64(w, NULL, ((const int *)p)[d]));
        if (f->kind == HC_KIND_INT64_3) HC_CALL(hc_yaml_writer_int64(w, NULL, ((const int64_t *)p)[d]));
        if (f->kind == HC_KIND_DOUBLE3) HC_CALL(hc_yaml_writer_double(w, NULL, ((const double *)p)[d]));
      }
      return hc_yaml_writer_end_sequence(w);
  }
  return HC_OK;
}

/* The keys of a table that the struct at base has, in table order; have: the conditions that hold (hc_when). */
static int hc_write_fields(hc_yaml_writer *w, const hc_field *fields, int n, const void *base, unsigned have) {
  for (int i = 0; i < n; i++)
    if (hc_field_written(&fields[i], base, have)) HC_CALL(hc_write_field(w, &fields[i], base));
  return HC_OK;
}

/* A mapping key: of fields, from the struct at base, in style. */
static int hc_write_mapping(hc_yaml_writer *w, const char *key, hc_yaml_style style, const hc_field *fields, int n,
                            const void *base, unsigned have) {
  HC_CALL(hc_yaml_writer_begin_mapping(w, key, style));
  HC_CALL(hc_write_fields(w, fields, n, base, have));
  return hc_yaml_writer_end_mapping(w);
}

int hc_results_write_build(hc_yaml_writer *w) {
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING + 64];
  int len = 0;
  MPI_Get_library_version(mpi, &len); /* allowed before MPI_Init */
  mpi[strcspn(mpi, "\n")] = '\0';
  hc_results_build b = {
      .build_type = HC_BUILD_TYPE,
      .c_compiler = HC_C_COMPILER,
      .c_flags = HC_C_FLAGS,
      .openmp = HC_HAVE_OPENMP,
      .cuda = HC_HAVE_CUDA,
      .intrepid2 = HC_HAVE_INTREPID2,
      .mpi_library = mpi,
  };
  snprintf(b.version, sizeof(b.version), "%s", HC_VERSION);
  snprintf(b.git_revision, sizeof(b.git_revision), "%s", HC_GIT_REVISION);
#if HC_HAVE_CUDA
  b.cuda_compiler = HC_CUDA_COMPILER;
  b.cuda_architectures = HC_CUDA_ARCHITECTURES;
#endif
  return hc_write_mapping(w, "build", HC_YAML_BLOCK, hc_build_fields, HC_NUM_FIELDS(hc_build_fields), &b,
                          b.cuda ? HC_WHEN_CUDA : 0);
}

int hc_results_write(hc_yaml_writer *w, const hc_deck *deck, const hc_results *res) {
  HC_CALL(hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_BLOCK));
  HC_CALL(hc_write_fields(w, hc_top_fields, HC_NUM_FIELDS(hc_top_fields), res, 0));
  HC_CALL(hc_results_write_build(w));
  HC_CALL(hc_deck_write(w, "deck", deck));
  HC_CALL(hc_write_mapping(w, "decomposition", HC_YAML_BLOCK, hc_decomposition_fields,
                           HC_NUM_FIELDS(hc_decomposition_fields), res,
                           strcmp(res->mesh_source, "file") ? HC_WHEN_BOX : 0));

  HC_CALL(hc_yaml_writer_begin_sequence(w, "ranks", HC_YAML_BLOCK));
  for (int i = 0; i < res->num_rank_info; i++)
    HC_CALL(
        hc_write_mapping(w, NULL, HC_YAML_FLOW, hc_rank_fields, HC_NUM_FIELDS(hc_rank_fields), &res->rank_info[i], 0));
  HC_CALL(hc_yaml_writer_end_sequence(w));

  HC_CALL(hc_yaml_writer_begin_mapping(w, "timers", HC_YAML_BLOCK));
  HC_CALL(hc_write_fields(w, hc_timers_fields, HC_NUM_FIELDS(hc_timers_fields), res, 0));
  for (int i = 0; i < res->num_phases; i++) HC_CALL(hc_write_stat(w, res->phases[i].name, &res->phases[i].s));
  HC_CALL(hc_yaml_writer_end_mapping(w));

  HC_CALL(hc_yaml_writer_begin_mapping(w, "kernels", HC_YAML_BLOCK));
  for (int i = 0; i < res->num_kernels; i++)
    HC_CALL(hc_write_mapping(w, res->kernels[i].name, HC_YAML_BLOCK, hc_kernel_fields, HC_NUM_FIELDS(hc_kernel_fields),
                             &res->kernels[i], 0));
  HC_CALL(hc_yaml_writer_end_mapping(w));

  const hc_results_roofline *roof = &res->roofline;
  HC_CALL(hc_yaml_writer_begin_mapping(w, "roofline", HC_YAML_BLOCK));
  HC_CALL(hc_write_fields(w, hc_roofline_fields, HC_NUM_FIELDS(hc_roofline_fields), roof,
                          roof->measured ? HC_WHEN_MEASURED | (roof->device ? HC_WHEN_DEVICE : 0) : 0));
  if (roof->measured) {
    HC_CALL(hc_yaml_writer_begin_mapping(w, "phases", HC_YAML_BLOCK));
    for (int i = 0; i < roof->num_phases; i++) {
      const hc_results_roofline_phase *ph = &roof->phases[i];
      const unsigned have = ph->memory_bound ? HC_WHEN_MEMORY | (isnan(ph->percent) ? 0 : HC_WHEN_PERCENT) : 0;
      HC_CALL(hc_write_mapping(w, ph->name, HC_YAML_FLOW, hc_roofline_phase_fields,
                               HC_NUM_FIELDS(hc_roofline_phase_fields), ph, have));
    }
    HC_CALL(hc_yaml_writer_end_mapping(w));
  }
  HC_CALL(hc_yaml_writer_end_mapping(w));

  HC_CALL(hc_write_mapping(w, "figures_of_merit", HC_YAML_BLOCK, hc_figures_fields, HC_NUM_FIELDS(hc_figures_fields),
                           res, 0));

  HC_CALL(hc_yaml_writer_begin_mapping(w, "checks", HC_YAML_BLOCK));
  for (int i = 0; i < res->num_checks; i++)
    HC_CALL(hc_write_mapping(w, res->checks[i].name, HC_YAML_BLOCK, hc_check_fields, HC_NUM_FIELDS(hc_check_fields),
                             &res->checks[i], 0));
  HC_CALL(hc_yaml_writer_end_mapping(w));

  HC_CALL(hc_yaml_writer_begin_mapping(w, "values", HC_YAML_BLOCK));
  HC_CALL(hc_write_fields(w, hc_values_fields, HC_NUM_FIELDS(hc_values_fields), res, 0));
  for (int i = 0; i < res->num_values; i++)
    HC_CALL(hc_write_mapping(w, res->values[i].name, HC_YAML_FLOW, hc_value_fields, HC_NUM_FIELDS(hc_value_fields),
                             &res->values[i], res->values[i].datadata ? HC_WHEN_DATADATA : HC_WHEN_NODAL));
  HC_CALL(hc_yaml_writer_end_mapping(w));
  return hc_yaml_writer_end_mapping(w);
}

/* The CSV row */

/* A roofline phase's percentage; NAN when absent or not measured. */
double hc_results_roofline_percent(const hc_results *res, const char *phase) {
  if (!res->roofline.measured) return NAN;
  for (int i = 0; i < res->roofline.num_phases; i++)
    if (strcmp(res->roofline.phases[i].name, phase) == 0) return res->roofline.phases[i].percent;
  return NAN;
}

int hc_results_append_csv(const hc_deck *deck, const hc_results *res) {
  int ierr = HC_OK;
  char resolved[PATH_MAX];
  const char *path = deck->output.csv;
  char *old = NULL;
  size_t old_len = 0;
  struct stat lst;
  if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && realpath(path, resolved)) path = resolved;
  FILE *f = NULL;
  int err = access(path, F_OK) == 0 ? hc_path_open_read(path, "the CSV file", &f) : HC_OK;
  if (err) {
    char why[1024];
    snprintf(why, sizeof(why), "%s", hc_error_message());
    return HC_DECK_ERROR(deck, "output.csv", err, "%s", why);
  }
  if (f) {
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    old = malloc(n > 0 ? (size_t)n : 1);
    if (!old) fclose(f);
    HC_CHECK(old, HC_ERR_RESOURCE, "out of host memory reading %s", path);
    old_len = n > 0 ? fread(old, 1, (size_t)n, f) : 0;
    fclose(f);
  }
  hc_atomic_file af;
  err = hc_atomic_file_open(path, &af);
  if (err) {
    free(old);
    char why[1024];
    snprintf(why, sizeof(why), "%s", hc_error_message());
    return HC_DECK_ERROR(deck, "output.csv", err, "%s", why);
  }
  if (old_len) fwrite(old, 1, old_len, af.f);
  free(old);
  /* The phases before the step, which has columns of its own. */
  int nphases = 0;
  while (nphases < res->num_phases && strcmp(res->phases[nphases].name, "step") != 0) nphases++;
  if (old_len == 0) {
    fprintf(af.f,
            "date,git_revision,backend,precision,layout,order,quadrature,sizing,ranks,global_cells,"
            "cells_per_rank_max,steps,step_s_avg,step_s_max");
    for (int i = 0; i < nphases; i++) fprintf(af.f, ",%s_s_avg", res->phases[i].name);
    fprintf(af.f,
            ",cell_steps_per_s,node_steps_per_s,contract_gflops,contract_gbs,status,step_roofline_pct,"
            "celldata_roofline_pct\n");
  }
  const hc_results_run *run = &res->run;
  const hc_results_stat *step = hc_results_phase_stat(res, "step");
  double tf = 0, tb = 0;
  for (int k = 0; k < res->num_kernels; k++) tf += res->kernels[k].flops_per_step, tb += res->kernels[k].bytes_per_step;
  const double tt = hc_results_contract_seconds(res);
  int failed = 0;
  for (int i = 0; i < res->num_checks; i++) failed |= !res->checks[i].passed;
  fprintf(af.f, "%s,%s,%s,%s,%s,%d,%d,%s,%d,%lld,%.0f,%d,%.9g,%.9g", res->date, HC_GIT_REVISION, run->backend,
          run->precision, run->layout, run->order, run->quadrature, run->sizing, res->ranks,
          (long long)res->num_global_cells, res->cells_per_rank.max, res->timed_steps, step ? step->avg : 0,
          res->seconds_per_step);
  for (int i = 0; i < nphases; i++) fprintf(af.f, ",%.9g", res->phases[i].s.avg);
  fprintf(af.f, ",%.9g,%.9g,%.9g,%.9g,%s", res->cell_steps_per_second, res->node_steps_per_second,
          tt > 0 ? 1e-9 * tf / tt : 0, tt > 0 ? 1e-9 * tb / tt : 0, failed ? "failed" : "passed");
  /* The roofline's percentages; empty without a roofline (run.roofline off). */
  const char *pct_phases[2] = {"step", "celldata"};
  for (int i = 0; i < 2; i++) {
    double pct = hc_results_roofline_percent(res, pct_phases[i]);
    if (!isnan(pct)) {
      fprintf(af.f, ",%.6g", pct);
    } else {
      fprintf(af.f, ",");
    }
  }
  fprintf(af.f, "\n");
  HC_CHECK_GOTO(!ferror(af.f), HC_ERR_RESOURCE, fail, "%s: write error", path);
  return hc_atomic_file_commit(&af);
fail:
  hc_atomic_file_abort(&af);
  return ierr;
}

/* The reader */

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
    HC_CHECK(n, HC_ERR_INPUT, "%s: missing key %s (every %s file has it)", r->path, dotted, HC_RESULTS_SCHEMA);
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
static int hc_flatten(const hc_reader *r, yaml_node_t *map, const char *prefix, hc_results *res, int *cap) {
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

/* A measured time or rate, which reports divide by: finite and > 0, or (allow_zero) finite and >= 0. */
static int hc_measure(const hc_reader *r, yaml_node_t *n, const char *what, int allow_zero, double *out) {
  HC_CALL(hc_number(r, n, what, out));
  HC_CHECK(isfinite(*out) && (allow_zero ? *out >= 0 : *out > 0), HC_ERR_INPUT,
           "%s:%zu:%zu: %s must be a finite number %s 0 (a measured time or rate), got %s", r->path,
           n->start_mark.line + 1, n->start_mark.column + 1, what, allow_zero ? ">=" : ">",
           (const char *)n->data.scalar.value);
  return HC_OK;
}

/* Min, avg and max below n, named what.min, ...; measure: 0 any number, else a measured time (allow_zero: 2). */
static int hc_stat(const hc_reader *r, yaml_node_t *n, const char *what, int measure, hc_results_stat *st) {
  const char *keys[3] = {"min", "avg", "max"};
  double *v[3] = {&st->min, &st->avg, &st->max};
  for (int i = 0; i < 3; i++) {
    char key[160];
    snprintf(key, sizeof(key), "%s.%s", what, keys[i]);
    yaml_node_t *x = hc_get(r, n, keys[i]);
    HC_CHECK(x, HC_ERR_INPUT, "%s: missing key %s (every %s file has it)", r->path, key, HC_RESULTS_SCHEMA);
    if (measure) {
      HC_CALL(hc_measure(r, x, key, measure == 2, v[i]));
    } else {
      HC_CALL(hc_number(r, x, key, v[i]));
    }
  }
  return HC_OK;
}

/* Field f's value from node n into the struct at base, by f's kind and rule; what names it in messages. */
static int hc_read_value(const hc_reader *r, yaml_node_t *n, const char *what, const hc_field *f, void *base) {
  void *p = (char *)base + f->offset;
  const char *s = "";
  double v = 0, t[3];
  switch (f->kind) {
    case HC_KIND_NAME:
    case HC_KIND_STRING:
      HC_CALL(hc_scalar(r, n, what, &s));
      snprintf((char *)p, f->kind == HC_KIND_NAME ? sizeof(hc_results_name) : sizeof(hc_results_string), "%s", s);
      return HC_OK;
    case HC_KIND_TEXT:
      return HC_OK; /* written only */
    case HC_KIND_BOOL:
      HC_CALL(hc_scalar(r, n, what, &s));
      *(int *)p = strcmp(s, "true") == 0 || strcmp(s, "True") == 0 || strcmp(s, "TRUE") == 0;
      return HC_OK;
    case HC_KIND_STAT:
      return hc_stat(r, n, what, 0, (hc_results_stat *)p);
    case HC_KIND_INT3:
    case HC_KIND_INT64_3:
    case HC_KIND_DOUBLE3: {
      int count = n->type == YAML_SEQUENCE_NODE ? (int)(n->data.sequence.items.top - n->data.sequence.items.start) : 0;
      HC_CHECK(count == 3, HC_ERR_INPUT, "%s:%zu:%zu: %s must be a list of 3 numbers", r->path, n->start_mark.line + 1,
               n->start_mark.column + 1, what);
      for (int i = 0; i < 3; i++)
        HC_CALL(hc_number(r, yaml_document_get_node(r->doc, n->data.sequence.items.start[i]), what, &t[i]));
      for (int i = 0; i < 3; i++) {
        if (f->kind == HC_KIND_INT3) ((int *)p)[i] = (int)t[i];
        if (f->kind == HC_KIND_INT64_3) ((int64_t *)p)[i] = (int64_t)t[i];
        if (f->kind == HC_KIND_DOUBLE3) ((double *)p)[i] = t[i];
      }
      return HC_OK;
    }
    case HC_KIND_INT:
    case HC_KIND_INT64:
    case HC_KIND_DOUBLE:
      break;
  }
  if (f->read == HC_READ_MEASURE) {
    HC_CALL(hc_measure(r, n, what, 0, &v));
  } else {
    HC_CALL(hc_number(r, n, what, &v));
  }
  if (f->read == HC_READ_POSITIVE)
    HC_CHECK(v >= 1 && v == (int)v, HC_ERR_INPUT, "%s: %s must be a positive integer", r->path, what);
  if (f->read == HC_READ_STEPS)
    HC_CHECK(v >= 1 && v <= 1e9 && v == (int)v, HC_ERR_INPUT,
             "%s:%zu:%zu: %s must be a positive integer (a run with no timed step has no times to report), got %s",
             r->path, n->start_mark.line + 1, n->start_mark.column + 1, what, (const char *)n->data.scalar.value);
  if (f->kind == HC_KIND_INT) *(int *)p = (int)v;
  if (f->kind == HC_KIND_INT64) *(int64_t *)p = (int64_t)v;
  if (f->kind == HC_KIND_DOUBLE) *(double *)p = v;
  return HC_OK;
}

/* The keys of a table that the reader takes, from mapping map (NULL: absent) into the struct at base; prefix is
   the mapping's dotted path, for messages. */
static int hc_read_fields(const hc_reader *r, yaml_node_t *map, const char *prefix, const hc_field *fields, int n,
                          void *base) {
  for (int i = 0; i < n; i++) {
    const hc_field *f = &fields[i];
    if (f->read == HC_READ_NO || f->read == HC_READ_SCHEMA) continue;
    char what[160];
    snprintf(what, sizeof(what), "%s%s%s", prefix, prefix[0] ? "." : "", f->key);
    yaml_node_t *x = hc_get(r, map, f->key);
    if (!x && (f->read == HC_READ_OPTIONAL || f->read == HC_READ_LENIENT)) continue;
    HC_CHECK(x, HC_ERR_INPUT, "%s: missing key %s (every %s file has it)", r->path, what, HC_RESULTS_SCHEMA);
    if (f->read != HC_READ_LENIENT) {
      HC_CALL(hc_read_value(r, x, what, f, base));
    } else if (hc_read_value(r, x, what, f, base) != HC_OK) {
      hc_error_clear(); /* a malformed item keeps its default */
    }
  }
  return HC_OK;
}

/* The items of a mapping whose values are mappings, counted for allocation. */
static int hc_num_pairs(yaml_node_t *n) {
  return n && n->type == YAML_MAPPING_NODE ? (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start) : 0;
}

static int hc_read_body(const hc_reader *r, yaml_node_t *root, hc_results *res) {
  HC_CHECK(root && root->type == YAML_MAPPING_NODE, HC_ERR_INPUT,
           "%s: not a results file (the document is not a mapping with a `schema` key)", r->path);
  yaml_node_t *n = hc_get(r, root, "schema");
  HC_CHECK(n, HC_ERR_INPUT, "%s: not a results file: it has no `schema` key (expected schema %s)", r->path,
           HC_RESULTS_SCHEMA);
  const char *schema = "";
  HC_CALL(hc_scalar(r, n, "schema", &schema));
  snprintf(res->schema, sizeof(res->schema), "%s", schema);
  HC_CHECK(strcmp(res->schema, HC_RESULTS_SCHEMA) == 0, HC_ERR_INPUT,
           "%s:%zu:%zu: unknown schema '%s'; this hexcontract reads %s (a newer or older hexcontract wrote the file)",
           r->path, n->start_mark.line + 1, n->start_mark.column + 1, res->schema, HC_RESULTS_SCHEMA);
  HC_CALL(hc_read_fields(r, root, "", hc_top_fields, HC_NUM_FIELDS(hc_top_fields), res));
  HC_CALL(hc_read_fields(r, hc_get(r, root, "build"), "build", hc_build_fields, HC_NUM_FIELDS(hc_build_fields),
                         &res->build));

  HC_CALL(hc_require(r, root, "deck", &n));
  HC_CHECK(n->type == YAML_MAPPING_NODE, HC_ERR_INPUT, "%s:%zu: deck must be a mapping", r->path,
           n->start_mark.line + 1);
  int cap = 0;
  HC_CALL(hc_flatten(r, n, "", res, &cap));

  HC_CALL(hc_read_fields(r, hc_get(r, root, "decomposition"), "decomposition", hc_decomposition_fields,
                         HC_NUM_FIELDS(hc_decomposition_fields), res));

  yaml_node_t *ranks = hc_get(r, root, "ranks");
  if (ranks && ranks->type == YAML_SEQUENCE_NODE) {
    int count = (int)(ranks->data.sequence.items.top - ranks->data.sequence.items.start);
    res->rank_info = calloc((size_t)(count > 0 ? count : 1), sizeof(*res->rank_info));
    HC_CHECK(res->rank_info, HC_ERR_RESOURCE, "out of host memory");
    for (int i = 0; i < count; i++) {
      yaml_node_t *e = yaml_document_get_node(r->doc, ranks->data.sequence.items.start[i]);
      hc_results_rank *ri = &res->rank_info[res->num_rank_info++];
      ri->device_index = -1;
      HC_CALL(hc_read_fields(r, e, "ranks", hc_rank_fields, HC_NUM_FIELDS(hc_rank_fields), ri));
    }
  }

  yaml_node_t *timers = hc_get(r, root, "timers");
  HC_CALL(hc_read_fields(r, timers, "timers", hc_timers_fields, HC_NUM_FIELDS(hc_timers_fields), res));
  HC_CHECK(timers->type == YAML_MAPPING_NODE, HC_ERR_INPUT, "%s:%zu: timers must be a mapping", r->path,
           timers->start_mark.line + 1);
  res->phases = calloc((size_t)hc_num_pairs(timers), sizeof(*res->phases));
  HC_CHECK(res->phases, HC_ERR_RESOURCE, "out of host memory");
  for (yaml_node_pair_t *p = timers->data.mapping.pairs.start; p < timers->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(r->doc, p->key), *val = yaml_document_get_node(r->doc, p->value);
    if (k->type != YAML_SCALAR_NODE || val->type != YAML_MAPPING_NODE) continue;
    hc_results_phase *ph = &res->phases[res->num_phases++];
    snprintf(ph->name, sizeof(ph->name), "%s", (const char *)k->data.scalar.value);
    char key[80];
    snprintf(key, sizeof(key), "timers.%s", ph->name);
    HC_CALL(hc_stat(r, val, key, strcmp(ph->name, "step") != 0 ? 2 : 1, &ph->s));
  }
  HC_CHECK(hc_results_phase_stat(res, "step"), HC_ERR_INPUT, "%s: missing key timers.step (every %s file has it)",
           r->path, HC_RESULTS_SCHEMA);

  HC_CALL(hc_read_fields(r, hc_get(r, root, "figures_of_merit"), "figures_of_merit", hc_figures_fields,
                         HC_NUM_FIELDS(hc_figures_fields), res));

  /* The roofline section is optional: runs with run.roofline off have none, nor do files written before it. */
  yaml_node_t *roof = hc_get(r, root, "roofline");
  HC_CALL(hc_read_fields(r, roof, "roofline", hc_roofline_fields, HC_NUM_FIELDS(hc_roofline_fields), &res->roofline));
  yaml_node_t *step = hc_get(r, hc_get(r, roof, "phases"), "step");
  if (res->roofline.measured && step) {
    res->roofline.phases = calloc(1, sizeof(*res->roofline.phases));
    HC_CHECK(res->roofline.phases, HC_ERR_RESOURCE, "out of host memory");
    hc_results_roofline_phase *ph = &res->roofline.phases[res->roofline.num_phases++];
    snprintf(ph->name, sizeof(ph->name), "step");
    ph->percent = NAN;
    HC_CALL(hc_read_fields(r, step, "roofline.phases.step", hc_roofline_phase_fields,
                           HC_NUM_FIELDS(hc_roofline_phase_fields), ph));
  }

  yaml_node_t *checks = hc_get(r, root, "checks");
  if (checks && checks->type == YAML_MAPPING_NODE) {
    int count = hc_num_pairs(checks);
    res->checks = calloc((size_t)(count > 0 ? count : 1), sizeof(*res->checks));
    HC_CHECK(res->checks, HC_ERR_RESOURCE, "out of host memory");
    for (yaml_node_pair_t *p = checks->data.mapping.pairs.start; p < checks->data.mapping.pairs.top; p++) {
      yaml_node_t *k = yaml_document_get_node(r->doc, p->key), *val = yaml_document_get_node(r->doc, p->value);
      if (k->type != YAML_SCALAR_NODE || val->type != YAML_MAPPING_NODE) continue;
      hc_results_check *c = &res->checks[res->num_checks++];
      snprintf(c->name, sizeof(c->name), "%s", (const char *)k->data.scalar.value);
      c->value = c->expected = c->tolerance = NAN;
      HC_CALL(hc_read_fields(r, val, "checks", hc_check_fields, HC_NUM_FIELDS(hc_check_fields), c));
    }
  }
  return HC_OK;
}

int hc_results_read(const char *path, hc_results **res) {
  int ierr = HC_OK;
  *res = NULL;
  yaml_parser_t parser;
  yaml_document_t doc;
  int parser_ok = 0, doc_ok = 0;
  hc_results *out = NULL;
  FILE *f = NULL;
  HC_CALL_GOTO(hc_path_open_read(path, "the results file", &f), cleanup);
  HC_CALL_GOTO(hc_results_create(&out), cleanup);
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
  hc_results_destroy(&out);
  return ierr;
}

const hc_results_entry *hc_results_deck_entry(const hc_results *res, const char *key) {
  for (int i = 0; i < res->num_deck; i++)
    if (strcmp(res->deck[i].key, key) == 0) return &res->deck[i];
  return NULL;
}

const hc_results_stat *hc_results_phase_stat(const hc_results *res, const char *name) {
  for (int i = 0; i < res->num_phases; i++)
    if (strcmp(res->phases[i].name, name) == 0) return &res->phases[i].s;
  return NULL;
}

double hc_results_contract_seconds(const hc_results *res) {
  const hc_results_stat *contract = hc_results_phase_stat(res, "contract");
  if (res->kernel_lanes > 1 && contract) return contract->max;
  double t = 0;
  for (int k = 0; k < res->num_kernels; k++) t += res->kernels[k].contract_seconds.max;
  return t;
}
