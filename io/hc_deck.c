/* The input deck: a table of keys drives the YAML reader, --set, the writer, comparison and provenance. */
#define _POSIX_C_SOURCE 200809L
#include "io/hc_deck.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "io/hc_path.h"
#include "mesh/hc_mesh.h"
#include "kernels/base/hc_mpi.h"

/* Enumerations are stored and broadcast as int. */
_Static_assert(sizeof(hc_sizing) == sizeof(int), "enum size");
_Static_assert(sizeof(hc_precision) == sizeof(int), "enum size");
_Static_assert(sizeof(hc_layout) == sizeof(int), "enum size");
_Static_assert(sizeof(hc_variant) == sizeof(int), "enum size");
_Static_assert(sizeof(hc_deck_binding) == sizeof(int), "enum size");
_Static_assert(sizeof(hc_deck_assembly) == sizeof(int), "enum size");
_Static_assert(sizeof(hc_mesh_source) == sizeof(int), "enum size");
_Static_assert(sizeof(hc_deck_partitioner) == sizeof(int), "enum size");

#define HC_DECK_FILE_MAX (16 << 20) /* bytes of a deck file */
#define HC_DECK_MSG_MAX  2048       /* bytes of an error message (that of hc_error_set) */

typedef enum {
  HC_DECK_INT,             /* int in [min, max] */
  HC_DECK_INT64,           /* int64_t in [min, max] */
  HC_DECK_DOUBLE,          /* finite double in [min, max], ends open where min_open/max_open */
  HC_DECK_BOOL,            /* bool: true or false */
  HC_DECK_ENUM,            /* int: index of one of choice()'s names */
  HC_DECK_STRING,          /* char[size], non-empty; one of choice()'s names when choice is set */
  HC_DECK_OPTIONAL_STRING, /* char[size], may be empty (written as ""; a null value reads as "") */
  HC_DECK_INT64_3,         /* int64_t[3], each in [min, max]; one scalar sets all three */
  HC_DECK_DOUBLE_3,        /* double[3], each in [min, max]; one scalar sets all three */
  HC_DECK_KERNELS,         /* bool[HC_NUM_KERNELS]: "all" or a list of kernel names */
  HC_DECK_VARIANTS,        /* int[HC_NUM_KERNELS]: mapping of kernel names to variant names */
  HC_DECK_DEVICES,         /* hc_deck_gpu.num_device_ids and device_ids: list of ints in [min, max] */
} hc_deck_type;

typedef struct {
  const char *name; /* dotted */
  hc_deck_type type;
  size_t offset, size; /* of the value in hc_deck */
  double min, max;
  int min_open, max_open;
  const char *(*choice)(int i); /* names of ENUM and STRING choices; NULL past the last */
  const char *expect;           /* what a value must be, after "must be " */
  const char *item_expect;      /* what one item of a list must be */
  /* Set where expect (or item_expect) has a %s: the choices' names, joined with ", " and this before the last
     (a list of kernels/hc_kernels.h, so that its messages follow the list). */
  const char *choice_last;
} hc_deck_key_info;

static const char *hc_deck_source_choice(int i) {
  return i == 0 ? "box" : i == 1 ? "file" : NULL;
}
static const char *hc_deck_partitioner_choice(int i) {
  return i == 0 ? "auto" : i == 1 ? "cartesian" : i == 2 ? "metis" : i == 3 ? "ptscotch" : NULL;
}
static const char *hc_deck_sizing_choice(int i) {
  return i == 0 ? "global" : i == 1 ? "per-rank" : NULL;
}
static const char *hc_deck_backend_choice(int i) {
  return i < HC_NUM_BACKENDS ? hc_backend_names[i] : NULL;
}
static const char *hc_deck_precision_choice(int i) {
  return i < 2 ? hc_precision_name((hc_precision)i) : NULL;
}
static const char *hc_deck_layout_choice(int i) {
  return i < 2 ? hc_layout_name((hc_layout)i) : NULL;
}
static const char *hc_deck_assembly_choice(int i) {
  return i == 0 ? "materialized" : i == 1 ? "fused" : NULL;
}
static const char *hc_deck_variant_choice(int i) {
  return i < HC_NUM_VARIANTS ? hc_variant_name((hc_variant)i) : NULL;
}
static const char *hc_deck_kernel_choice(int i) {
  return i < HC_NUM_KERNELS ? hc_kernel_name((hc_kernel)i) : NULL;
}
static const char *hc_deck_binding_choice(int i) {
  return i == 0 ? "node-local" : i == 1 ? "none" : NULL;
}

#define HC_FIELD(group, member) offsetof(hc_deck, group.member), sizeof(((hc_deck *)0)->group.member)

static const hc_deck_key_info hc_deck_keys[HC_DECK_NUM_KEYS] = {
    [HC_DECK_MESH_SOURCE] = {"mesh.source", HC_DECK_ENUM, HC_FIELD(mesh, source), 0, 0, 0, 0, hc_deck_source_choice,
                             "box or file", NULL},
    [HC_DECK_MESH_FILE] = {"mesh.file", HC_DECK_OPTIONAL_STRING, HC_FIELD(mesh, file), 0, 0, 0, 0, NULL,
                           "a mesh file (.msh, .exo or .e; under 1024 bytes), or \"\" for none", NULL},
    [HC_DECK_MESH_PARTITIONER] = {"mesh.partitioner", HC_DECK_ENUM, HC_FIELD(mesh, partitioner), 0, 0, 0, 0,
                                  hc_deck_partitioner_choice, "auto, cartesian, metis or ptscotch", NULL},
    [HC_DECK_MESH_CELLS] = {"mesh.cells", HC_DECK_INT64_3, HC_FIELD(mesh, cells), 1, HC_DECK_MAX_CELLS, 0, 0, NULL,
                            "a list of 3 integers 1..1000000 [NX, NY, NZ] (or one integer for all three)",
                            "an integer 1..1000000"},
    [HC_DECK_MESH_SIZING] = {"mesh.sizing", HC_DECK_ENUM, HC_FIELD(mesh, sizing), 0, 0, 0, 0, hc_deck_sizing_choice,
                             "global or per-rank", NULL},
    [HC_DECK_MESH_LENGTH] = {"mesh.length", HC_DECK_DOUBLE_3, HC_FIELD(mesh, length), HC_DECK_MIN_LENGTH,
                             HC_DECK_MAX_LENGTH, 0, 0, NULL,
                             "a list of 3 numbers 1e-9..1e9 [LX, LY, LZ] (or one number for all three)",
                             "a number 1e-9..1e9"},
    [HC_DECK_MESH_ORDER] = {"mesh.order", HC_DECK_INT, HC_FIELD(mesh, order), 1, HC_MESH_MAX_ORDER, 0, 0, NULL,
                            "an integer 1..4", NULL},
    [HC_DECK_MESH_QUADRATURE] = {"mesh.quadrature", HC_DECK_INT, HC_FIELD(mesh, quadrature), 0, HC_DECK_MAX_QUADRATURE,
                                 0, 0, NULL, "an integer 1..10, or 0 for order + 1", NULL},
    [HC_DECK_MESH_JITTER] = {"mesh.jitter", HC_DECK_DOUBLE, HC_FIELD(mesh, jitter), 0, HC_MESH_JITTER_MAX, 0, 1, NULL,
                             "a number >= 0 and < 1/6 (a fraction of the cell size; 1/6 keeps every cell valid)", NULL},
    [HC_DECK_MESH_SEED] = {"mesh.seed", HC_DECK_INT64, HC_FIELD(mesh, seed), 0, 9223372036854775807.0, 0, 0, NULL,
                           "an integer 0..9223372036854775807", NULL},
    [HC_DECK_MESH_SHEAR_AMPLITUDE] = {"mesh.shear.amplitude", HC_DECK_DOUBLE, HC_FIELD(mesh, shear_amplitude), 0,
                                      HC_DECK_MAX_LENGTH, 0, 0, NULL, "a number 0..1e9", NULL},
    [HC_DECK_MESH_SHEAR_OMEGA] = {"mesh.shear.omega", HC_DECK_DOUBLE, HC_FIELD(mesh, shear_omega), -HC_DECK_MAX_RATE,
                                  HC_DECK_MAX_RATE, 0, 0, NULL, "a number -1e9..1e9", NULL},
    [HC_DECK_RUN_STEPS] = {"run.steps", HC_DECK_INT, HC_FIELD(run, steps), 1, INT_MAX, 0, 0, NULL,
                           "an integer 1..2147483647", NULL},
    [HC_DECK_RUN_WARMUP] = {"run.warmup", HC_DECK_INT, HC_FIELD(run, warmup), 0, INT_MAX, 0, 0, NULL,
                            "an integer 0..2147483647", NULL},
    [HC_DECK_RUN_DT] = {"run.dt", HC_DECK_DOUBLE, HC_FIELD(run, dt), 0, HC_DECK_MAX_RATE, 1, 0, NULL,
                        "a number > 0 and <= 1e9", NULL},
    [HC_DECK_RUN_BACKEND] = {"run.backend", HC_DECK_STRING, HC_FIELD(run, backend), 0, 0, 0, 0, hc_deck_backend_choice,
                             "%s", NULL, " or "},
    [HC_DECK_RUN_PRECISION] = {"run.precision", HC_DECK_ENUM, HC_FIELD(run, precision), 0, 0, 0, 0,
                               hc_deck_precision_choice, "double or float", NULL},
    [HC_DECK_RUN_LAYOUT] = {"run.layout", HC_DECK_ENUM, HC_FIELD(run, layout), 0, 0, 0, 0, hc_deck_layout_choice,
                            "cell-major or cell-minor", NULL},
    [HC_DECK_RUN_ASSEMBLY] = {"run.assembly", HC_DECK_ENUM, HC_FIELD(run, assembly), 0, 0, 0, 0,
                              hc_deck_assembly_choice, "materialized or fused", NULL},
    [HC_DECK_RUN_LANES] = {"run.lanes", HC_DECK_INT, HC_FIELD(run, lanes), 1, HC_LANES_MAX, 0, 0, NULL,
                           "an integer 1..4", NULL},
    [HC_DECK_RUN_DETERMINISTIC] = {"run.deterministic", HC_DECK_BOOL, HC_FIELD(run, deterministic), 0, 0, 0, 0, NULL,
                                   "true or false", NULL},
    [HC_DECK_RUN_PROGRESS] = {"run.progress", HC_DECK_DOUBLE, HC_FIELD(run, progress), 0, HUGE_VAL, 0, 0, NULL,
                              "a number of seconds >= 0 (0 = no progress lines)", NULL},
    [HC_DECK_RUN_ROOFLINE] = {"run.roofline", HC_DECK_BOOL, HC_FIELD(run, roofline), 0, 0, 0, 0, NULL, "true or false",
                              NULL},
    [HC_DECK_KERNELS_ENABLED] = {"kernels.enabled", HC_DECK_KERNELS, HC_FIELD(kernels, enabled), 0, 0, 0, 0,
                                 hc_deck_kernel_choice, "all, or a non-empty list of kernel names", "a kernel name"},
    [HC_DECK_KERNELS_VARIANT] = {"kernels.variant", HC_DECK_ENUM, HC_FIELD(kernels, variant), 0, 0, 0, 0,
                                 hc_deck_variant_choice, "one of %s", NULL, ", "},
    [HC_DECK_KERNELS_VARIANTS] = {"kernels.variants", HC_DECK_VARIANTS, HC_FIELD(kernels, variants), 0, 0, 0, 0,
                                  hc_deck_variant_choice,
                                  "a mapping of kernel names to variants, e.g. {FieldFieldTensor: tile}", "one of %s",
                                  ", "},
    [HC_DECK_CHECKS_ENABLED] = {"checks.enabled", HC_DECK_BOOL, HC_FIELD(checks, enabled), 0, 0, 0, 0, NULL,
                                "true or false", NULL},
    [HC_DECK_CHECKS_EVERY] = {"checks.every", HC_DECK_INT, HC_FIELD(checks, every), 0, INT_MAX, 0, 0, NULL,
                              "an integer 0..2147483647 (steps between checks, 0 = at the end only)", NULL},
    [HC_DECK_CHECKS_SAMPLES] = {"checks.samples", HC_DECK_INT, HC_FIELD(checks, samples), 0, INT_MAX, 0, 0, NULL,
                                "an integer 0..2147483647", NULL},
    [HC_DECK_CHECKS_TOLERANCE_FACTOR] = {"checks.tolerance_factor", HC_DECK_DOUBLE, HC_FIELD(checks, tolerance_factor),
                                         0, 1e12, 1, 0, NULL, "a number > 0 and <= 1e12", NULL},
    [HC_DECK_OUTPUT_DIR] = {"output.dir", HC_DECK_STRING, HC_FIELD(output, dir), 0, 0, 0, 0, NULL,
                            "a directory name (non-empty, under 1024 bytes)", NULL},
    [HC_DECK_OUTPUT_RESULTS] = {"output.results", HC_DECK_STRING, HC_FIELD(output, results), 0, 0, 0, 0, NULL,
                                "a file name in output.dir, or an absolute path (non-empty, under 256 bytes)", NULL},
    [HC_DECK_OUTPUT_SUMMARY] = {"output.summary", HC_DECK_BOOL, HC_FIELD(output, summary), 0, 0, 0, 0, NULL,
                                "true or false", NULL},
    [HC_DECK_OUTPUT_CSV] = {"output.csv", HC_DECK_OPTIONAL_STRING, HC_FIELD(output, csv), 0, 0, 0, 0, NULL,
                            "a file name (under 1024 bytes), or \"\" for none", NULL},
    [HC_DECK_OUTPUT_VTK] = {"output.vtk", HC_DECK_BOOL, HC_FIELD(output, vtk), 0, 0, 0, 0, NULL, "true or false", NULL},
    [HC_DECK_OUTPUT_VTK_EVERY] = {"output.vtk_every", HC_DECK_INT, HC_FIELD(output, vtk_every), 0, INT_MAX, 0, 0, NULL,
                                  "an integer 0..2147483647 (steps between VTK sets, 0 = the last step only)", NULL},
    [HC_DECK_MEMORY_HOST_LIMIT_GIB] = {"memory.host_limit_gib", HC_DECK_DOUBLE, HC_FIELD(memory, host_limit_gib), 0,
                                       HUGE_VAL, 0, 0, NULL, "a number of GiB >= 0 (0 = detect)", NULL},
    [HC_DECK_MEMORY_DEVICE_LIMIT_GIB] = {"memory.device_limit_gib", HC_DECK_DOUBLE, HC_FIELD(memory, device_limit_gib),
                                         0, HUGE_VAL, 0, 0, NULL, "a number of GiB >= 0 (0 = detect)", NULL},
    [HC_DECK_GPU_BINDING] = {"gpu.binding", HC_DECK_ENUM, HC_FIELD(gpu, binding), 0, 0, 0, 0, hc_deck_binding_choice,
                             "node-local or none", NULL},
    [HC_DECK_GPU_DEVICE_IDS] = {"gpu.device_ids", HC_DECK_DEVICES, HC_FIELD(gpu, device_ids), 0, INT_MAX, 0, 0, NULL,
                                "a list of at most 64 device numbers 0..2147483647 ([] = by node-local rank)",
                                "a device number 0..2147483647"},
    [HC_DECK_GPU_CUDA_AWARE_MPI] = {"gpu.cuda_aware_mpi", HC_DECK_BOOL, HC_FIELD(gpu, cuda_aware_mpi), 0, 0, 0, 0, NULL,
                                    "true or false", NULL},
};

#define HC_DECK_VARIANTS_PREFIX "kernels.variants."

/* Where values come from while reading: a deck file (name) or one --set option (set). */
typedef struct {
  hc_deck *deck;
  yaml_document_t *doc;
  const char *name; /* the deck's path, for FILE */
  const char *set;  /* the --set option, for SET */
} hc_deck_ctx;

static void *hc_deck_value(hc_deck *deck, hc_deck_key key) {
  return (char *)deck + hc_deck_keys[key].offset;
}

static const void *hc_deck_cvalue(const hc_deck *deck, hc_deck_key key) {
  return (const char *)deck + hc_deck_keys[key].offset;
}

/* Copies s into a char[size], zeroing the rest so that equal decks are equal bytes. */
static void hc_deck_copy_string(char *dst, size_t size, const char *s) {
  memset(dst, 0, size);
  strncpy(dst, s, size - 1);
}

void hc_deck_init(hc_deck *deck) {
  memset(deck, 0, sizeof(*deck));
  hc_deck_mesh *m = &deck->mesh;
  m->source = HC_MESH_SOURCE_BOX;
  m->partitioner = HC_DECK_PARTITIONER_AUTO;
  for (int d = 0; d < 3; d++) {
    m->cells[d] = 8;
    m->length[d] = 1.0;
  }
  m->sizing = HC_SIZING_GLOBAL;
  m->order = 2;
  m->quadrature = 0;
  m->jitter = 0.1;
  m->seed = 0;
  m->shear_amplitude = 0.05;
  m->shear_omega = 1.0;
  deck->run.steps = 10;
  deck->run.warmup = 1;
  deck->run.dt = 0.1;
  hc_deck_copy_string(deck->run.backend, sizeof(deck->run.backend), "openmp");
  deck->run.precision = HC_DOUBLE;
  deck->run.layout = HC_LAYOUT_CELL_MAJOR;
  deck->run.assembly = HC_DECK_ASSEMBLY_MATERIALIZED;
  deck->run.lanes = 3;
  deck->run.deterministic = false;
  deck->run.progress = 10.0;
  deck->run.roofline = true;
  for (int k = 0; k < HC_NUM_KERNELS; k++) {
    deck->kernels.enabled[k] = true;
    deck->kernels.variants[k] = HC_DECK_VARIANT_INHERIT;
  }
  deck->kernels.variant = HC_VARIANT_AUTO;
  deck->checks.enabled = true;
  deck->checks.every = 0;
  deck->checks.samples = 64;
  deck->checks.tolerance_factor = 1.0;
  hc_deck_copy_string(deck->output.dir, sizeof(deck->output.dir), ".");
  hc_deck_copy_string(deck->output.results, sizeof(deck->output.results), "hexcontract-results.yaml");
  deck->output.summary = true;
  deck->output.vtk = false;
  deck->output.vtk_every = 0;
  deck->memory.host_limit_gib = 0.0;
  deck->memory.device_limit_gib = 0.0;
  deck->gpu.binding = HC_DECK_BINDING_NODE_LOCAL;
  deck->gpu.num_device_ids = 0;
  deck->gpu.cuda_aware_mpi = false;
}

const char *hc_deck_key_name(hc_deck_key key) {
  return (key >= 0 && key < HC_DECK_NUM_KEYS) ? hc_deck_keys[key].name : "unknown";
}

int hc_deck_quadrature(const hc_deck *deck) {
  return deck->mesh.quadrature > 0 ? deck->mesh.quadrature : deck->mesh.order + 1;
}

void hc_deck_results_path(const hc_deck *deck, char *buf, size_t n) {
  if (deck->output.results[0] == '/') {
    snprintf(buf, n, "%s", deck->output.results);
  } else {
    snprintf(buf, n, "%s/%s", deck->output.dir, deck->output.results);
  }
}

void hc_deck_mesh_file(const hc_deck *deck, char *buf, size_t n) {
  const char *file = deck->mesh.file, *slash = strrchr(deck->path, '/');
  if (file[0] == '/' || deck->origin[HC_DECK_MESH_FILE].source != HC_DECK_FROM_FILE || !slash) {
    snprintf(buf, n, "%s", file);
  } else {
    snprintf(buf, n, "%.*s/%s", (int)(slash - deck->path), deck->path, file);
  }
}

hc_variant hc_deck_variant(const hc_deck *deck, hc_kernel kernel) {
  int v = deck->kernels.variants[kernel];
  return v == HC_DECK_VARIANT_INHERIT ? deck->kernels.variant : (hc_variant)v;
}

/* Names and suggestions. */

/* Levenshtein distance, case-insensitive, of the first 63 characters. */
static int hc_deck_distance(const char *a, const char *b) {
  int na = (int)strnlen(a, 63), nb = (int)strnlen(b, 63);
  int row[64];
  for (int j = 0; j <= nb; j++) row[j] = j;
  for (int i = 1; i <= na; i++) {
    int diag = row[0];
    row[0] = i;
    for (int j = 1; j <= nb; j++) {
      int up = row[j];
      int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
      int best = diag + cost;
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[nb];
}

static const char *hc_deck_last_component(const char *name) {
  const char *dot = strrchr(name, '.');
  return dot ? dot + 1 : name;
}

/* Whether name is a group of keys ("mesh", "mesh.shear"). */
static int hc_deck_is_group(const char *name) {
  size_t n = strlen(name);
  if (!n) return 0;
  for (int k = 0; k < HC_DECK_NUM_KEYS; k++) {
    if (strncmp(hc_deck_keys[k].name, name, n) == 0 && hc_deck_keys[k].name[n] == '.') return 1;
  }
  return 0;
}

static int hc_deck_find_key(const char *name, hc_deck_key *key) {
  for (int k = 0; k < HC_DECK_NUM_KEYS; k++) {
    if (strcmp(hc_deck_keys[k].name, name) == 0) {
      *key = (hc_deck_key)k;
      return 1;
    }
  }
  return 0;
}

/* The known key or group closest to an unknown dotted name, or NULL when none is close. A key whose
   last component matches exactly (run.order for mesh.order) counts as one edit away. */
static const char *hc_deck_suggest_key(const char *name, char *buf, size_t n) {
  int best = INT_MAX;
  buf[0] = '\0';
  for (int k = 0; k < HC_DECK_NUM_KEYS; k++) {
    const char *cand = hc_deck_keys[k].name;
    /* Each key and each of its groups. */
    char sub[128];
    hc_deck_copy_string(sub, sizeof(sub), cand);
    for (;;) {
      int d = hc_deck_distance(name, sub);
      int d_last = hc_deck_distance(hc_deck_last_component(name), hc_deck_last_component(sub)) + 1;
      if (d_last < d) d = d_last;
      if (d < best) {
        best = d;
        snprintf(buf, n, "%s", sub);
      }
      char *dot = strrchr(sub, '.');
      if (!dot) break;
      *dot = '\0';
    }
  }
  int limit = (int)strlen(hc_deck_last_component(name)) / 3;
  if (limit < 2) limit = 2;
  return best <= limit ? buf : NULL;
}

/* The choice closest to an unknown name, or NULL when none is close. */
static const char *hc_deck_suggest_choice(const char *(*choice)(int), const char *name) {
  int best = INT_MAX;
  const char *found = NULL;
  for (int i = 0; choice(i); i++) {
    int d = hc_deck_distance(name, choice(i));
    if (d < best) {
      best = d;
      found = choice(i);
    }
  }
  int limit = (int)strlen(name) / 3;
  if (limit < 2) limit = 2;
  return best <= limit ? found : NULL;
}

/* Errors: one message that starts with where the value was written. */

static int hc_deck_fail(const hc_deck_ctx *ctx, yaml_mark_t mark, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int hc_deck_fail(const hc_deck_ctx *ctx, yaml_mark_t mark, const char *fmt, ...) {
  char msg[HC_DECK_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (ctx->set) return HC_ERROR(HC_ERR_INPUT, "--set %s: %s", ctx->set, msg);
  return HC_ERROR(HC_ERR_INPUT, "%s:%d:%d: %s", ctx->name, (int)mark.line + 1, (int)mark.column + 1, msg);
}

static const char *hc_deck_scalar(const yaml_node_t *node) {
  return (const char *)node->data.scalar.value;
}

static int hc_deck_is_plain(const yaml_node_t *node) {
  return node->type == YAML_SCALAR_NODE && node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* A plain scalar that YAML reads as null: nothing, ~ or null. */
static int hc_deck_is_null(const yaml_node_t *node) {
  if (!hc_deck_is_plain(node)) return 0;
  const char *s = hc_deck_scalar(node);
  return !s[0] || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* What a node holds, for "got ...": 7, "the string "7"", "nothing", "a list of 2 items", "a mapping". */
static const char *hc_deck_describe(const yaml_node_t *node, char *buf, size_t n) {
  if (node->type == YAML_SEQUENCE_NODE) {
    long items = (long)(node->data.sequence.items.top - node->data.sequence.items.start);
    snprintf(buf, n, "a list of %ld item%s", items, items == 1 ? "" : "s");
  } else if (node->type == YAML_MAPPING_NODE) {
    snprintf(buf, n, "a mapping");
  } else if (hc_deck_is_null(node)) {
    snprintf(buf, n, "nothing");
  } else {
    const char *s = hc_deck_scalar(node);
    int len = (int)strnlen(s, 80);
    const char *more = s[len] ? "..." : "";
    if (hc_deck_is_plain(node)) {
      snprintf(buf, n, "%.*s%s", len, s, more);
    } else {
      snprintf(buf, n, "the string \"%.*s%s\"", len, s, more);
    }
  }
  return buf;
}

static int hc_deck_fail_expect(const hc_deck_ctx *ctx, const yaml_node_t *node, const char *key, const char *expect) {
  char got[128];
  return hc_deck_fail(ctx, node->start_mark, "%s must be %s, got %s", key, expect,
                      hc_deck_describe(node, got, sizeof(got)));
}

static void hc_deck_set_origin(const hc_deck_ctx *ctx, const yaml_node_t *node, hc_deck_origin *origin) {
  memset(origin, 0, sizeof(*origin));
  if (ctx->set) {
    origin->source = HC_DECK_FROM_SET;
    hc_deck_copy_string(origin->set, sizeof(origin->set), ctx->set);
  } else {
    origin->source = HC_DECK_FROM_FILE;
    origin->line = (int)node->start_mark.line + 1;
    origin->column = (int)node->start_mark.column + 1;
  }
}

/* Scalars. */

static int hc_deck_read_int64(const hc_deck_ctx *ctx, const yaml_node_t *node, const char *key, const char *expect,
                              double min, double max, int64_t *value) {
  if (!hc_deck_is_plain(node) || hc_deck_is_null(node)) return hc_deck_fail_expect(ctx, node, key, expect);
  const char *s = hc_deck_scalar(node);
  const char *p = s + (s[0] == '+' || s[0] == '-');
  /* Decimal digits only; a leading zero is refused, as YAML 1.1 readers take 010 for octal 8. */
  if (!*p || (p[0] == '0' && p[1])) return hc_deck_fail_expect(ctx, node, key, expect);
  for (; *p; p++) {
    if (!isdigit((unsigned char)*p)) return hc_deck_fail_expect(ctx, node, key, expect);
  }
  errno = 0;
  long long v = strtoll(s, NULL, 10);
  if (errno == ERANGE || (double)v < min || (double)v > max) return hc_deck_fail_expect(ctx, node, key, expect);
  *value = (int64_t)v;
  return HC_OK;
}

/* A decimal number as inputs/README.md documents it: [+-] digits [. digits] [e [+-] digits], or one
   starting with the point (.5). Not what strtod takes besides: hexadecimal (0x1p3), inf, nan, blanks. */
static int hc_deck_is_decimal(const char *s) {
  const char *p = s + (s[0] == '+' || s[0] == '-');
  int digits = 0;
  while (isdigit((unsigned char)*p)) p++, digits++;
  if (*p == '.') {
    p++;
    while (isdigit((unsigned char)*p)) p++, digits++;
  }
  if (!digits) return 0;
  if (*p == 'e' || *p == 'E') {
    p++;
    p += *p == '+' || *p == '-';
    if (!isdigit((unsigned char)*p)) return 0;
    while (isdigit((unsigned char)*p)) p++;
  }
  return *p == '\0';
}

static int hc_deck_read_double(const hc_deck_ctx *ctx, const yaml_node_t *node, const hc_deck_key_info *info,
                               const char *key, const char *expect, double *value) {
  if (!hc_deck_is_plain(node) || hc_deck_is_null(node)) return hc_deck_fail_expect(ctx, node, key, expect);
  const char *s = hc_deck_scalar(node);
  if (!hc_deck_is_decimal(s)) return hc_deck_fail_expect(ctx, node, key, expect);
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end) return hc_deck_fail_expect(ctx, node, key, expect);
  if (errno == ERANGE || !isfinite(v)) {
    char got[128];
    return hc_deck_fail(ctx, node->start_mark,
                        "%s must be %s, got %s, which is %s a double's range (about 2.2e-308 to 1.8e308 in magnitude)",
                        key, expect, hc_deck_describe(node, got, sizeof(got)),
                        fabs(v) > 1.0 || !isfinite(v) ? "above" : "below");
  }
  int ok = 1;
  ok = ok && (info->min_open ? v > info->min : v >= info->min);
  ok = ok && (info->max_open ? v < info->max : v <= info->max);
  if (!ok) return hc_deck_fail_expect(ctx, node, key, expect);
  *value = v;
  return HC_OK;
}

static int hc_deck_read_bool(const hc_deck_ctx *ctx, const yaml_node_t *node, const char *key, bool *value) {
  if (hc_deck_is_plain(node)) {
    const char *s = hc_deck_scalar(node);
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE")) {
      *value = true;
      return HC_OK;
    }
    if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE")) {
      *value = false;
      return HC_OK;
    }
  }
  return hc_deck_fail_expect(ctx, node, key, "true or false");
}

/* Any non-null scalar without NUL bytes, plain or quoted. */
static int hc_deck_read_text(const hc_deck_ctx *ctx, const yaml_node_t *node, const char *key, const char *expect,
                             const char **text) {
  if (node->type != YAML_SCALAR_NODE || hc_deck_is_null(node) || !node->data.scalar.length ||
      strlen(hc_deck_scalar(node)) != node->data.scalar.length) {
    return hc_deck_fail_expect(ctx, node, key, expect);
  }
  *text = hc_deck_scalar(node);
  return HC_OK;
}

/* expect with its %s, if it has one, replaced by choice()'s names joined with ", " and last before the last
   ("serial, openmp, cuda or intrepid2"): buf, or expect itself. */
static const char *hc_deck_expect_choices(const char *expect, const char *(*choice)(int), const char *last, char *buf,
                                          size_t size) {
  const char *at = expect ? strstr(expect, "%s") : NULL;
  if (!at || !choice || !last) return expect;
  const char *names[64];
  int n = 0;
  while (n < 64 && choice(n)) {
    names[n] = choice(n);
    n++;
  }
  char joined[512];
  hc_names_format(names, n, last, joined, sizeof(joined));
  snprintf(buf, size, "%.*s%s%s", (int)(at - expect), expect, joined, at + 2);
  return buf;
}

/* The index of text among choice()'s names; an unknown name names the closest one. */
static int hc_deck_read_choice(const hc_deck_ctx *ctx, const yaml_node_t *node, const char *key, const char *expect,
                               const char *(*choice)(int), int *index) {
  const char *s = NULL;
  HC_CALL(hc_deck_read_text(ctx, node, key, expect, &s));
  for (int i = 0; choice(i); i++) {
    if (!strcmp(s, choice(i))) {
      *index = i;
      return HC_OK;
    }
  }
  char got[128];
  const char *near = hc_deck_suggest_choice(choice, s);
  return hc_deck_fail(ctx, node->start_mark, "%s must be %s, got %s%s%s%s", key, expect,
                      hc_deck_describe(node, got, sizeof(got)), near ? " (did you mean " : "", near ? near : "",
                      near ? "?)" : "");
}

/* Lists: a sequence of scalars, or one scalar standing for a list of one (or, for the 3-vectors, all
   three). */
static int hc_deck_items(const yaml_document_t *doc, const yaml_node_t *node, int max, yaml_node_t **items, int *n) {
  if (node->type == YAML_SCALAR_NODE) {
    items[0] = (yaml_node_t *)node;
    *n = 1;
    return HC_OK;
  }
  if (node->type != YAML_SEQUENCE_NODE) return HC_ERR_INPUT;
  long count = (long)(node->data.sequence.items.top - node->data.sequence.items.start);
  if (count > max) return HC_ERR_INPUT;
  for (long i = 0; i < count; i++) {
    items[i] = yaml_document_get_node((yaml_document_t *)doc, node->data.sequence.items.start[i]);
  }
  *n = (int)count;
  return HC_OK;
}

static int hc_deck_read_vector3(const hc_deck_ctx *ctx, const yaml_node_t *node, hc_deck_key key, void *dst) {
  const hc_deck_key_info *info = &hc_deck_keys[key];
  yaml_node_t *items[3];
  int n = 0;
  if (hc_deck_items(ctx->doc, node, 3, items, &n) || (n != 1 && n != 3) ||
      (node->type == YAML_SCALAR_NODE && hc_deck_is_null(node))) {
    return hc_deck_fail_expect(ctx, node, info->name, info->expect);
  }
  char item_key[96];
  for (int d = 0; d < 3; d++) {
    const yaml_node_t *item = items[n == 3 ? d : 0];
    snprintf(item_key, sizeof(item_key), n == 3 ? "%s[%d]" : "%s", info->name, d);
    if (item->type != YAML_SCALAR_NODE) return hc_deck_fail_expect(ctx, item, item_key, info->item_expect);
    if (info->type == HC_DECK_INT64_3) {
      HC_CALL(hc_deck_read_int64(ctx, item, item_key, info->item_expect, info->min, info->max, (int64_t *)dst + d));
    } else {
      HC_CALL(hc_deck_read_double(ctx, item, info, item_key, info->item_expect, (double *)dst + d));
    }
  }
  return HC_OK;
}

static int hc_deck_read_kernels(const hc_deck_ctx *ctx, const yaml_node_t *node, bool enabled[HC_NUM_KERNELS]) {
  const hc_deck_key_info *info = &hc_deck_keys[HC_DECK_KERNELS_ENABLED];
  if (node->type == YAML_SCALAR_NODE && !strcmp(hc_deck_scalar(node), "all")) {
    for (int k = 0; k < HC_NUM_KERNELS; k++) enabled[k] = true;
    return HC_OK;
  }
  yaml_node_t *items[HC_NUM_KERNELS];
  int n = 0;
  if (hc_deck_items(ctx->doc, node, HC_NUM_KERNELS, items, &n) || n == 0 ||
      (node->type == YAML_SCALAR_NODE && hc_deck_is_null(node))) {
    return hc_deck_fail_expect(ctx, node, info->name, info->expect);
  }
  bool seen[HC_NUM_KERNELS] = {false};
  int first[HC_NUM_KERNELS] = {0};
  for (int i = 0; i < n; i++) {
    int k = 0;
    char item_key[64];
    snprintf(item_key, sizeof(item_key), node->type == YAML_SEQUENCE_NODE ? "%s[%d]" : "%s", info->name, i);
    HC_CALL(hc_deck_read_choice(ctx, items[i], item_key, info->item_expect, hc_deck_kernel_choice, &k));
    if (seen[k]) {
      const yaml_node_t *f = items[first[k]];
      return hc_deck_fail(ctx, items[i]->start_mark,
                          "%s must list each kernel once, got %s twice (%s, and %s[%d] at line %d, column %d)",
                          info->name, hc_kernel_name((hc_kernel)k), item_key, info->name, first[k],
                          (int)f->start_mark.line + 1, (int)f->start_mark.column + 1);
    }
    seen[k] = true;
    first[k] = i;
  }
  memcpy(enabled, seen, sizeof(seen));
  return HC_OK;
}

/* Duplicate keys of a mapping: the second of two equal scalar keys is an error. */
static int hc_deck_check_duplicates(const hc_deck_ctx *ctx, const yaml_node_t *map, const char *prefix) {
  yaml_node_pair_t *start = map->data.mapping.pairs.start, *top = map->data.mapping.pairs.top;
  for (yaml_node_pair_t *p = start; p < top; p++) {
    yaml_node_t *key = yaml_document_get_node(ctx->doc, p->key);
    if (key->type != YAML_SCALAR_NODE) continue;
    for (yaml_node_pair_t *q = start; q < p; q++) {
      yaml_node_t *first = yaml_document_get_node(ctx->doc, q->key);
      if (first->type == YAML_SCALAR_NODE && !strcmp(hc_deck_scalar(first), hc_deck_scalar(key))) {
        return hc_deck_fail(ctx, key->start_mark, "duplicate key %s%s%s (first given at line %d, column %d)", prefix,
                            prefix[0] ? "." : "", hc_deck_scalar(key), (int)first->start_mark.line + 1,
                            (int)first->start_mark.column + 1);
      }
    }
  }
  return HC_OK;
}

/* A mapping key must be a non-empty scalar. */
static int hc_deck_key_text(const hc_deck_ctx *ctx, const yaml_node_t *key, const char *prefix, const char **text) {
  if (key->type != YAML_SCALAR_NODE || hc_deck_is_null(key)) {
    char got[128];
    return hc_deck_fail(ctx, key->start_mark, "a key%s%s must be a name, got %s", prefix[0] ? " under " : "", prefix,
                        hc_deck_describe(key, got, sizeof(got)));
  }
  *text = hc_deck_scalar(key);
  return HC_OK;
}

static int hc_deck_read_variant_entry(const hc_deck_ctx *ctx, const yaml_node_t *value, hc_kernel kernel) {
  const hc_deck_key_info *info = &hc_deck_keys[HC_DECK_KERNELS_VARIANTS];
  char key[96], expect[640];
  int v = 0;
  snprintf(key, sizeof(key), HC_DECK_VARIANTS_PREFIX "%s", hc_kernel_name(kernel));
  HC_CALL(hc_deck_read_choice(
      ctx, value, key,
      hc_deck_expect_choices(info->item_expect, info->choice, info->choice_last, expect, sizeof(expect)), info->choice,
      &v));
  ctx->deck->kernels.variants[kernel] = v;
  hc_deck_set_origin(ctx, value, &ctx->deck->variant_origin[kernel]);
  return HC_OK;
}

/* The kernel named by a kernels.variants key; an unknown name names the closest kernel. */
static int hc_deck_read_variant_kernel(const hc_deck_ctx *ctx, const yaml_node_t *node, const char *name,
                                       hc_kernel *kernel) {
  for (int k = 0; k < HC_NUM_KERNELS; k++) {
    if (!strcmp(name, hc_kernel_name((hc_kernel)k))) {
      *kernel = (hc_kernel)k;
      return HC_OK;
    }
  }
  const char *near = hc_deck_suggest_choice(hc_deck_kernel_choice, name);
  return hc_deck_fail(ctx, node->start_mark,
                      "unknown kernel " HC_DECK_VARIANTS_PREFIX
                      "%s: a key of kernels.variants must be a kernel name%s%s%s",
                      name, near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
}

/* kernels.variants replaces every override with those of its mapping. */
static int hc_deck_read_variants(const hc_deck_ctx *ctx, const yaml_node_t *node) {
  const hc_deck_key_info *info = &hc_deck_keys[HC_DECK_KERNELS_VARIANTS];
  if (node->type != YAML_MAPPING_NODE && !hc_deck_is_null(node)) {
    return hc_deck_fail_expect(ctx, node, info->name, info->expect);
  }
  for (int k = 0; k < HC_NUM_KERNELS; k++) {
    ctx->deck->kernels.variants[k] = HC_DECK_VARIANT_INHERIT;
    memset(&ctx->deck->variant_origin[k], 0, sizeof(ctx->deck->variant_origin[k]));
  }
  if (node->type != YAML_MAPPING_NODE) return HC_OK;
  HC_CALL(hc_deck_check_duplicates(ctx, node, info->name));
  for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
    yaml_node_t *key = yaml_document_get_node(ctx->doc, p->key), *value = yaml_document_get_node(ctx->doc, p->value);
    const char *name = NULL;
    hc_kernel kernel = HC_DATADATA_SCALAR;
    HC_CALL(hc_deck_key_text(ctx, key, info->name, &name));
    HC_CALL(hc_deck_read_variant_kernel(ctx, key, name, &kernel));
    HC_CALL(hc_deck_read_variant_entry(ctx, value, kernel));
  }
  return HC_OK;
}

static int hc_deck_read_devices(const hc_deck_ctx *ctx, const yaml_node_t *node) {
  const hc_deck_key_info *info = &hc_deck_keys[HC_DECK_GPU_DEVICE_IDS];
  hc_deck_gpu *gpu = &ctx->deck->gpu;
  if (hc_deck_is_null(node)) {
    gpu->num_device_ids = 0;
    memset(gpu->device_ids, 0, sizeof(gpu->device_ids));
    return HC_OK;
  }
  yaml_node_t *items[HC_DECK_MAX_DEVICE_IDS];
  int n = 0;
  if (hc_deck_items(ctx->doc, node, HC_DECK_MAX_DEVICE_IDS, items, &n)) {
    return hc_deck_fail_expect(ctx, node, info->name, info->expect);
  }
  int ids[HC_DECK_MAX_DEVICE_IDS] = {0};
  for (int i = 0; i < n; i++) {
    char item_key[64];
    int64_t v = 0;
    snprintf(item_key, sizeof(item_key), node->type == YAML_SEQUENCE_NODE ? "%s[%d]" : "%s", info->name, i);
    HC_CALL(hc_deck_read_int64(ctx, items[i], item_key, info->item_expect, info->min, info->max, &v));
    ids[i] = (int)v;
  }
  gpu->num_device_ids = n;
  memcpy(gpu->device_ids, ids, sizeof(ids));
  return HC_OK;
}

/* Reads the value node of one key into the deck and records where it came from. */
static int hc_deck_read_value(const hc_deck_ctx *ctx, hc_deck_key key, const yaml_node_t *node) {
  const hc_deck_key_info *info = &hc_deck_keys[key];
  void *dst = hc_deck_value(ctx->deck, key);
  char expect_buf[640];
  const char *expect =
      hc_deck_expect_choices(info->expect, info->choice, info->choice_last, expect_buf, sizeof(expect_buf));
  switch (info->type) {
    case HC_DECK_INT: {
      int64_t v = 0;
      HC_CALL(hc_deck_read_int64(ctx, node, info->name, info->expect, info->min, info->max, &v));
      *(int *)dst = (int)v;
      break;
    }
    case HC_DECK_INT64:
      HC_CALL(hc_deck_read_int64(ctx, node, info->name, info->expect, info->min, info->max, (int64_t *)dst));
      break;
    case HC_DECK_DOUBLE:
      HC_CALL(hc_deck_read_double(ctx, node, info, info->name, info->expect, (double *)dst));
      break;
    case HC_DECK_BOOL:
      HC_CALL(hc_deck_read_bool(ctx, node, info->name, (bool *)dst));
      break;
    case HC_DECK_ENUM:
      HC_CALL(hc_deck_read_choice(ctx, node, info->name, expect, info->choice, (int *)dst));
      break;
    case HC_DECK_STRING: {
      const char *s = NULL;
      if (info->choice) {
        int index = 0;
        HC_CALL(hc_deck_read_choice(ctx, node, info->name, expect, info->choice, &index));
        s = info->choice(index);
      } else {
        HC_CALL(hc_deck_read_text(ctx, node, info->name, expect, &s));
      }
      if (strlen(s) >= info->size) return hc_deck_fail_expect(ctx, node, info->name, expect);
      hc_deck_copy_string((char *)dst, info->size, s);
      break;
    }
    case HC_DECK_OPTIONAL_STRING: {
      if (node->type != YAML_SCALAR_NODE) return hc_deck_fail_expect(ctx, node, info->name, info->expect);
      const char *s = hc_deck_is_null(node) ? "" : hc_deck_scalar(node);
      if (strlen(s) != (hc_deck_is_null(node) ? 0 : node->data.scalar.length) || strlen(s) >= info->size)
        return hc_deck_fail_expect(ctx, node, info->name, info->expect);
      hc_deck_copy_string((char *)dst, info->size, s);
      break;
    }
    case HC_DECK_INT64_3:
    case HC_DECK_DOUBLE_3:
      HC_CALL(hc_deck_read_vector3(ctx, node, key, dst));
      break;
    case HC_DECK_KERNELS:
      HC_CALL(hc_deck_read_kernels(ctx, node, (bool *)dst));
      break;
    case HC_DECK_VARIANTS:
      HC_CALL(hc_deck_read_variants(ctx, node));
      break;
    case HC_DECK_DEVICES:
      HC_CALL(hc_deck_read_devices(ctx, node));
      break;
  }
  hc_deck_set_origin(ctx, node, &ctx->deck->origin[key]);
  return HC_OK;
}

/* The names of a group's keys and subgroups, for a message: "cells, sizing, length, ...". */
static void hc_deck_group_members(const char *group, char *buf, size_t n) {
  size_t len = strlen(group), used = 0;
  buf[0] = '\0';
  char last[64] = "";
  for (int k = 0; k < HC_DECK_NUM_KEYS; k++) {
    const char *name = hc_deck_keys[k].name;
    if (len && (strncmp(name, group, len) || name[len] != '.')) continue;
    const char *rest = len ? name + len + 1 : name;
    size_t m = strcspn(rest, ".");
    if (strlen(last) == m && !strncmp(last, rest, m)) continue;
    snprintf(last, sizeof(last), "%.*s", (int)m, rest);
    int w = snprintf(buf + used, n - used, "%s%s", used ? ", " : "", last);
    if (w < 0 || (size_t)w >= n - used) break;
    used += (size_t)w;
  }
}

static int hc_deck_fail_unknown(const hc_deck_ctx *ctx, const yaml_node_t *node, const char *name, const char *group) {
  char near[128], members[512];
  if (hc_deck_suggest_key(name, near, sizeof(near))) {
    return hc_deck_fail(ctx, node->start_mark, "unknown key %s (did you mean %s?)", name, near);
  }
  hc_deck_group_members(group, members, sizeof(members));
  return hc_deck_fail(ctx, node->start_mark, "unknown key %s (expected %s%s%s: %s)", name, group[0] ? "a key of " : "",
                      group[0] ? group : "a group", group[0] ? "" : " of keys", members);
}

/* Reads a group's mapping: every key known, none twice, subgroups recursively. */
static int hc_deck_read_group(const hc_deck_ctx *ctx, const yaml_node_t *map, const char *prefix) {
  HC_CALL(hc_deck_check_duplicates(ctx, map, prefix));
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *key = yaml_document_get_node(ctx->doc, p->key), *value = yaml_document_get_node(ctx->doc, p->value);
    const char *text = NULL;
    char full[256];
    hc_deck_key k;
    HC_CALL(hc_deck_key_text(ctx, key, prefix, &text));
    int w = snprintf(full, sizeof(full), "%s%s%s", prefix, prefix[0] ? "." : "", text);
    if (w < 0 || (size_t)w >= sizeof(full)) return hc_deck_fail(ctx, key->start_mark, "unknown key %.64s...", full);
    if (hc_deck_find_key(full, &k)) {
      HC_CALL(hc_deck_read_value(ctx, k, value));
    } else if (hc_deck_is_group(full)) {
      if (hc_deck_is_null(value)) continue; /* an empty group sets nothing */
      if (value->type != YAML_MAPPING_NODE) {
        char members[512], got[128];
        hc_deck_group_members(full, members, sizeof(members));
        return hc_deck_fail(ctx, value->start_mark, "%s must be a mapping of its keys (%s), got %s", full, members,
                            hc_deck_describe(value, got, sizeof(got)));
      }
      HC_CALL(hc_deck_read_group(ctx, value, full));
    } else {
      return hc_deck_fail_unknown(ctx, key, full, prefix);
    }
  }
  return HC_OK;
}

/* The line and column (0-based, columns in characters as libyaml counts them) of byte offset in text. */
static yaml_mark_t hc_deck_mark_at(const char *text, size_t len, size_t offset) {
  yaml_mark_t mark = {offset, 0, 0};
  for (size_t i = 0; i < offset && i < len; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c == '\n') {
      mark.line++;
      mark.column = 0;
    } else if ((c & 0xC0) != 0x80 && !(i == 0 && c == 0xEF)) {
      mark.column++; /* a character starts here (the byte-order mark at the start is none) */
    }
  }
  return mark;
}

static int hc_deck_fail_parser(const hc_deck_ctx *ctx, const yaml_parser_t *parser, const char *text, size_t len) {
  const char *problem = parser->problem ? parser->problem : "cannot parse";
  if (parser->error == YAML_MEMORY_ERROR) return HC_ERROR(HC_ERR_RESOURCE, "%s: out of memory reading YAML", ctx->name);
  if (parser->context) {
    return hc_deck_fail(ctx, parser->problem_mark, "malformed YAML: %s %s (line %d, column %d)", problem,
                        parser->context, (int)parser->context_mark.line + 1, (int)parser->context_mark.column + 1);
  }
  if (parser->error == YAML_READER_ERROR) {
    /* The reader knows the byte, not the line: find it, and show the byte. */
    size_t at = parser->problem_offset;
    return hc_deck_fail(ctx, hc_deck_mark_at(text, len, at), "malformed YAML: %s (byte 0x%02x; a deck is UTF-8 text)",
                        problem, at < len ? (unsigned char)text[at] : 0);
  }
  return hc_deck_fail(ctx, parser->problem_mark, "malformed YAML: %s", problem);
}

/* The deck's nesting limit: a deck needs 4 levels (groups, a subgroup, a list); deeper flow collections
   would cost the parser time quadratic in their depth. */
#define HC_DECK_MAX_DEPTH 32

/* Checks what the document loader would accept but a deck does not: a byte-order mark after the start,
   YAML tags (!!str, !!float, any tag: a deck's values are read by their key, and quoting is refused
   where a number is wanted, so a tag would be silently ignored) and nesting deeper than
   HC_DECK_MAX_DEPTH. Streams the events, so that a deep deck stops at the limit. */
static int hc_deck_scan(hc_deck_ctx *ctx, const char *text, size_t len) {
  for (size_t i = 1; i + 3 <= len; i++) {
    if (!memcmp(text + i, "\xEF\xBB\xBF", 3)) {
      return hc_deck_fail(ctx, hc_deck_mark_at(text, len, i),
                          "a byte-order mark (U+FEFF) is allowed only at the very start of a deck; remove this one");
    }
  }
  int ierr = HC_OK, depth = 0, done = 0;
  yaml_parser_t parser;
  HC_CHECK(yaml_parser_initialize(&parser), HC_ERR_RESOURCE, "out of memory for a YAML parser");
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  while (!done && !ierr) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&parser, &ev)) {
      ierr = hc_deck_fail_parser(ctx, &parser, text, len);
      break;
    }
    const yaml_char_t *tag = NULL;
    switch (ev.type) {
      case YAML_SCALAR_EVENT:
        tag = ev.data.scalar.tag;
        break;
      case YAML_SEQUENCE_START_EVENT:
        tag = ev.data.sequence_start.tag;
        depth++;
        break;
      case YAML_MAPPING_START_EVENT:
        tag = ev.data.mapping_start.tag;
        depth++;
        break;
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        depth--;
        break;
      case YAML_STREAM_END_EVENT:
        done = 1;
        break;
      default:
        break;
    }
    if (tag) {
      const char *t = (const char *)tag, *std = "tag:yaml.org,2002:";
      int is_std = !strncmp(t, std, strlen(std));
      ierr = hc_deck_fail(ctx, ev.start_mark,
                          "YAML tags are not accepted, got %s%.64s; write the value without a tag (a key's type is "
                          "fixed: inputs/README.md)",
                          is_std ? "!!" : "", is_std ? t + strlen(std) : t);
    } else if (depth > HC_DECK_MAX_DEPTH) {
      ierr = hc_deck_fail(ctx, ev.start_mark,
                          "lists and mappings are nested more than %d deep here; a deck needs at most 4 levels",
                          HC_DECK_MAX_DEPTH);
    }
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&parser);
  return ierr;
}

/* Parses len bytes of YAML text into *doc (one document, at most); the caller deletes *doc when
 *have_doc is set. */
static int hc_deck_load_yaml(hc_deck_ctx *ctx, const char *text, size_t len, yaml_document_t *doc, int *have_doc) {
  int ierr = HC_OK, have_extra = 0;
  yaml_parser_t parser;
  yaml_document_t extra;
  *have_doc = 0;
  HC_CALL(hc_deck_scan(ctx, text, len));
  HC_CHECK(yaml_parser_initialize(&parser), HC_ERR_RESOURCE, "out of memory for a YAML parser");
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  if (!yaml_parser_load(&parser, doc)) {
    ierr = hc_deck_fail_parser(ctx, &parser, text, len);
    goto cleanup;
  }
  *have_doc = 1;
  if (!yaml_document_get_root_node(doc)) goto cleanup;
  /* A second document is an error too. */
  if (!yaml_parser_load(&parser, &extra)) {
    ierr = hc_deck_fail_parser(ctx, &parser, text, len);
    goto cleanup;
  }
  have_extra = 1;
  if (yaml_document_get_root_node(&extra)) {
    ierr = hc_deck_fail(ctx, extra.start_mark, "a deck is one YAML document; a second one starts here");
  }
cleanup:
  if (have_extra) yaml_document_delete(&extra);
  yaml_parser_delete(&parser);
  return ierr;
}

/* Reads a whole deck text over the values in deck. */
static int hc_deck_read_text_deck(const char *name, const char *text, size_t len, hc_deck *deck) {
  int ierr = HC_OK, have_doc = 0;
  yaml_document_t doc;
  hc_deck_ctx ctx = {.deck = deck, .doc = &doc, .name = name, .set = NULL};
  HC_CALL_GOTO(hc_deck_load_yaml(&ctx, text, len, &doc, &have_doc), cleanup);
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (root && !hc_deck_is_null(root)) {
    if (root->type != YAML_MAPPING_NODE) {
      char members[512], got[128];
      hc_deck_group_members("", members, sizeof(members));
      ierr = hc_deck_fail(&ctx, root->start_mark, "a deck must be a mapping of groups (%s), got %s", members,
                          hc_deck_describe(root, got, sizeof(got)));
      goto cleanup;
    }
    HC_CALL_GOTO(hc_deck_read_group(&ctx, root, ""), cleanup);
  }
cleanup:
  if (have_doc) yaml_document_delete(&doc);
  return ierr;
}

int hc_deck_parse_string(const char *name, const char *text, size_t len, hc_deck *deck) {
  hc_deck_init(deck);
  HC_CHECK(strlen(name) < sizeof(deck->path), HC_ERR_INPUT, "%.64s...: the deck's path is too long", name);
  hc_deck_copy_string(deck->path, sizeof(deck->path), name);
  return hc_deck_read_text_deck(name, text, len, deck);
}

int hc_deck_parse_file(const char *path, hc_deck *deck) {
  int ierr = HC_OK;
  char *text = NULL;
  size_t len = 0;
  FILE *f = NULL;
  HC_CALL(hc_path_open_read(path, "the deck", &f));
  text = malloc(HC_DECK_FILE_MAX + 1);
  HC_CHECK_GOTO(text, HC_ERR_RESOURCE, cleanup, "%s: out of memory reading the deck", path);
  len = fread(text, 1, HC_DECK_FILE_MAX + 1, f);
  HC_CHECK_GOTO(!ferror(f), HC_ERR_INPUT, cleanup, "%s: cannot read the deck: %s", path, strerror(errno));
  HC_CHECK_GOTO(len <= HC_DECK_FILE_MAX, HC_ERR_INPUT, cleanup, "%s: the deck is larger than %d MiB", path,
                HC_DECK_FILE_MAX >> 20);
  HC_CALL_GOTO(hc_deck_parse_string(path, text, len, deck), cleanup);
cleanup:
  free(text);
  fclose(f);
  return ierr;
}

/* Keys of the --set list type: `1,2,3` is read as `[1,2,3]`. */
static int hc_deck_is_list(hc_deck_key key) {
  hc_deck_type t = hc_deck_keys[key].type;
  return t == HC_DECK_INT64_3 || t == HC_DECK_DOUBLE_3 || t == HC_DECK_KERNELS || t == HC_DECK_DEVICES;
}

int hc_deck_apply_set(hc_deck *deck, const char *set) {
  int ierr = HC_OK, have_doc = 0;
  char name[256], *text = NULL;
  yaml_document_t doc;
  hc_deck_ctx ctx = {.deck = deck, .doc = &doc, .name = "--set", .set = set};
  yaml_mark_t nowhere = {0, 0, 0};
  const char *eq = strchr(set, '=');
  /* The key, without surrounding blanks. */
  const char *k0 = set, *k1 = eq ? eq : set;
  while (k0 < k1 && isspace((unsigned char)*k0)) k0++;
  while (k1 > k0 && isspace((unsigned char)k1[-1])) k1--;
  if (!eq || k1 == k0) return hc_deck_fail(&ctx, nowhere, "expected key=value, e.g. --set mesh.order=3");
  if ((size_t)(k1 - k0) >= sizeof(name)) return hc_deck_fail(&ctx, nowhere, "unknown key %.64s...", k0);
  snprintf(name, sizeof(name), "%.*s", (int)(k1 - k0), k0);

  hc_deck_key key = HC_DECK_NUM_KEYS;
  hc_kernel variant_kernel = HC_NUM_KERNELS;
  yaml_node_t key_node;
  memset(&key_node, 0, sizeof(key_node));
  size_t np = strlen(HC_DECK_VARIANTS_PREFIX);
  if (!strncmp(name, HC_DECK_VARIANTS_PREFIX, np)) {
    HC_CALL(hc_deck_read_variant_kernel(&ctx, &key_node, name + np, &variant_kernel));
  } else if (!hc_deck_find_key(name, &key)) {
    if (hc_deck_is_group(name)) {
      char members[512];
      hc_deck_group_members(name, members, sizeof(members));
      return hc_deck_fail(&ctx, nowhere, "%s is a group of keys; set one of them (%s.KEY=VALUE, KEY one of %s)", name,
                          name, members);
    }
    char group[256];
    snprintf(group, sizeof(group), "%s", name);
    char *dot = strrchr(group, '.');
    if (dot) *dot = '\0';
    return hc_deck_fail_unknown(&ctx, &key_node, name, dot && hc_deck_is_group(group) ? group : "");
  }

  /* The value: a YAML scalar, or for a list key `a,b,c` as `[a,b,c]`. */
  const char *value = eq + 1;
  while (isspace((unsigned char)*value)) value++;
  size_t len = strlen(value);
  text = malloc(len + 3);
  HC_CHECK(text, HC_ERR_RESOURCE, "--set %s: out of memory", set);
  if (key != HC_DECK_NUM_KEYS && hc_deck_is_list(key) && value[0] != '[' && value[0] != '{' && strchr(value, ',')) {
    snprintf(text, len + 3, "[%s]", value);
  } else {
    snprintf(text, len + 3, "%s", value);
  }
  HC_CALL_GOTO(hc_deck_load_yaml(&ctx, text, strlen(text), &doc, &have_doc), cleanup);
  yaml_node_t *root = yaml_document_get_root_node(&doc), empty;
  if (!root) {
    /* Nothing after '=': an empty plain scalar, which YAML reads as null. */
    memset(&empty, 0, sizeof(empty));
    empty.type = YAML_SCALAR_NODE;
    empty.data.scalar.value = (yaml_char_t *)"";
    empty.data.scalar.style = YAML_PLAIN_SCALAR_STYLE;
    root = &empty;
  }
  if (variant_kernel != HC_NUM_KERNELS) {
    HC_CALL_GOTO(hc_deck_read_variant_entry(&ctx, root, variant_kernel), cleanup);
  } else {
    HC_CALL_GOTO(hc_deck_read_value(&ctx, key, root), cleanup);
  }
cleanup:
  if (have_doc) yaml_document_delete(&doc);
  free(text);
  return ierr;
}

/* Rank 0's part of hc_deck_load. */
static int hc_deck_read_all(const char *path, int nset, char *const *sets, hc_deck *deck) {
  if (path) {
    HC_CALL(hc_deck_parse_file(path, deck));
  } else {
    hc_deck_init(deck);
  }
  for (int i = 0; i < nset; i++) HC_CALL(hc_deck_apply_set(deck, sets[i]));
  return HC_OK;
}

int hc_deck_load(MPI_Comm comm, const char *path, int nset, char *const *sets, hc_deck *deck) {
  struct {
    int code;
    char message[HC_DECK_MSG_MAX];
  } status;
  int rank = 0;
  memset(&status, 0, sizeof(status));
  HC_CALL_MPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    status.code = hc_deck_read_all(path, nset, sets, deck);
    if (status.code) snprintf(status.message, sizeof(status.message), "%s", hc_error_message());
  } else {
    hc_deck_init(deck);
  }
  HC_CALL_MPI(MPI_Bcast(&status, (int)sizeof(status), MPI_BYTE, 0, comm));
  if (status.code) {
    /* Rank 0 keeps its own record (with the place it was raised); the others get the same message. */
    if (rank != 0) hc_error_set(status.code, __FILE__, __LINE__, __func__, "%s", status.message);
    return status.code;
  }
  HC_CALL_MPI(MPI_Bcast(deck, (int)sizeof(*deck), MPI_BYTE, 0, comm));
  return HC_OK;
}

/* Writing. */

static int hc_deck_write_value(hc_yaml_writer *w, const char *name, const hc_deck *deck, hc_deck_key key) {
  const hc_deck_key_info *info = &hc_deck_keys[key];
  const void *src = hc_deck_cvalue(deck, key);
  switch (info->type) {
    case HC_DECK_INT:
      return hc_yaml_writer_int64(w, name, *(const int *)src);
    case HC_DECK_INT64:
      return hc_yaml_writer_int64(w, name, *(const int64_t *)src);
    case HC_DECK_DOUBLE:
      return hc_yaml_writer_double(w, name, *(const double *)src);
    case HC_DECK_BOOL:
      return hc_yaml_writer_bool(w, name, *(const bool *)src);
    case HC_DECK_ENUM:
      return hc_yaml_writer_string(w, name, info->choice(*(const int *)src));
    case HC_DECK_STRING:
    case HC_DECK_OPTIONAL_STRING:
      return hc_yaml_writer_string(w, name, (const char *)src);
    case HC_DECK_INT64_3:
    case HC_DECK_DOUBLE_3:
      HC_CALL(hc_yaml_writer_begin_sequence(w, name, HC_YAML_FLOW));
      for (int d = 0; d < 3; d++) {
        if (info->type == HC_DECK_INT64_3) {
          HC_CALL(hc_yaml_writer_int64(w, NULL, ((const int64_t *)src)[d]));
        } else {
          HC_CALL(hc_yaml_writer_double(w, NULL, ((const double *)src)[d]));
        }
      }
      return hc_yaml_writer_end_sequence(w);
    case HC_DECK_KERNELS: {
      const bool *enabled = src;
      int all = 1;
      for (int k = 0; k < HC_NUM_KERNELS; k++) all = all && enabled[k];
      if (all) return hc_yaml_writer_string(w, name, "all");
      HC_CALL(hc_yaml_writer_begin_sequence(w, name, HC_YAML_FLOW));
      for (int k = 0; k < HC_NUM_KERNELS; k++) {
        if (enabled[k]) HC_CALL(hc_yaml_writer_string(w, NULL, hc_kernel_name((hc_kernel)k)));
      }
      return hc_yaml_writer_end_sequence(w);
    }
    case HC_DECK_VARIANTS: {
      const int *variants = src;
      HC_CALL(hc_yaml_writer_begin_mapping(w, name, HC_YAML_BLOCK));
      for (int k = 0; k < HC_NUM_KERNELS; k++) {
        if (variants[k] == HC_DECK_VARIANT_INHERIT) continue;
        HC_CALL(hc_yaml_writer_string(w, hc_kernel_name((hc_kernel)k), hc_variant_name((hc_variant)variants[k])));
      }
      return hc_yaml_writer_end_mapping(w);
    }
    case HC_DECK_DEVICES:
      HC_CALL(hc_yaml_writer_begin_sequence(w, name, HC_YAML_FLOW));
      for (int i = 0; i < deck->gpu.num_device_ids; i++)
        HC_CALL(hc_yaml_writer_int64(w, NULL, deck->gpu.device_ids[i]));
      return hc_yaml_writer_end_sequence(w);
  }
  return HC_OK;
}

/* Number of leading dotted components two names share, counting group components only. */
static int hc_deck_common_groups(const char *a, int na, const char *b, int nb) {
  int common = 0;
  const char *pa = a, *pb = b;
  while (common < na && common < nb) {
    size_t la = strcspn(pa, "."), lb = strcspn(pb, ".");
    if (la != lb || strncmp(pa, pb, la)) break;
    common++;
    pa += la + 1;
    pb += lb + 1;
  }
  return common;
}

static int hc_deck_num_groups(const char *name) {
  int n = 0;
  for (const char *p = name; *p; p++) n += *p == '.';
  return n;
}

/* The i-th dotted component of name into buf. */
static const char *hc_deck_component(const char *name, int i, char *buf, size_t n) {
  const char *p = name;
  for (int j = 0; j < i; j++) p += strcspn(p, ".") + 1;
  snprintf(buf, n, "%.*s", (int)strcspn(p, "."), p);
  return buf;
}

int hc_deck_write(hc_yaml_writer *w, const char *key, const hc_deck *deck) {
  const char *open = ""; /* the key whose groups are open */
  int depth = 0;
  char part[64];
  HC_CALL(hc_yaml_writer_begin_mapping(w, key, HC_YAML_BLOCK));
  for (int k = 0; k < HC_DECK_NUM_KEYS; k++) {
    const char *name = hc_deck_keys[k].name;
    int groups = hc_deck_num_groups(name);
    int common = hc_deck_common_groups(open, depth, name, groups);
    for (; depth > common; depth--) HC_CALL(hc_yaml_writer_end_mapping(w));
    for (; depth < groups; depth++) {
      HC_CALL(hc_yaml_writer_begin_mapping(w, hc_deck_component(name, depth, part, sizeof(part)), HC_YAML_BLOCK));
    }
    open = name;
    HC_CALL(hc_deck_write_value(w, hc_deck_component(name, groups, part, sizeof(part)), deck, (hc_deck_key)k));
  }
  for (; depth > 0; depth--) HC_CALL(hc_yaml_writer_end_mapping(w));
  return hc_yaml_writer_end_mapping(w);
}

bool hc_deck_equal(const hc_deck *a, const hc_deck *b) {
  for (int k = 0; k < HC_DECK_NUM_KEYS; k++) {
    const hc_deck_key_info *info = &hc_deck_keys[k];
    const void *va = hc_deck_cvalue(a, (hc_deck_key)k), *vb = hc_deck_cvalue(b, (hc_deck_key)k);
    if (info->type == HC_DECK_STRING || info->type == HC_DECK_OPTIONAL_STRING) {
      if (strncmp(va, vb, info->size)) return false;
    } else if (info->type == HC_DECK_DEVICES) {
      if (a->gpu.num_device_ids != b->gpu.num_device_ids ||
          memcmp(a->gpu.device_ids, b->gpu.device_ids, (size_t)a->gpu.num_device_ids * sizeof(int))) {
        return false;
      }
    } else if (memcmp(va, vb, info->size)) {
      return false;
    }
  }
  return true;
}

/* The origin of a dotted key, or NULL when the key is unknown. */
static const hc_deck_origin *hc_deck_origin_of(const hc_deck *deck, const char *key) {
  hc_deck_key k;
  size_t np = strlen(HC_DECK_VARIANTS_PREFIX);
  if (hc_deck_find_key(key, &k)) return &deck->origin[k];
  if (!strncmp(key, HC_DECK_VARIANTS_PREFIX, np)) {
    for (int i = 0; i < HC_NUM_KERNELS; i++) {
      if (!strcmp(key + np, hc_kernel_name((hc_kernel)i))) return &deck->variant_origin[i];
    }
  }
  return NULL;
}

static void hc_deck_format_origin(const hc_deck *deck, const hc_deck_origin *o, char *buf, size_t n) {
  switch (o->source) {
    case HC_DECK_FROM_FILE:
      snprintf(buf, n, "%s:%d:%d", deck->path, o->line, o->column);
      break;
    case HC_DECK_FROM_SET:
      snprintf(buf, n, "--set %s", o->set);
      break;
    default:
      snprintf(buf, n, "default");
      break;
  }
}

int hc_deck_where(const hc_deck *deck, const char *key, char *buf, size_t n) {
  const hc_deck_origin *o = hc_deck_origin_of(deck, key);
  if (n) buf[0] = '\0';
  HC_CHECK(o, HC_ERR_INPUT, "unknown deck key '%s'", key);
  hc_deck_format_origin(deck, o, buf, n);
  return HC_OK;
}

int hc_deck_error_set(const hc_deck *deck, const char *key, int code, const char *file, int line, const char *func,
                      const char *fmt, ...) {
  char msg[HC_DECK_MSG_MAX], where[HC_DECK_PATH_MAX + 64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  const hc_deck_origin *o = hc_deck_origin_of(deck, key);
  if (!o) return hc_error_set(code, file, line, func, "%s", msg);
  if (o->source == HC_DECK_FROM_DEFAULT) {
    return hc_error_set(code, file, line, func, "default %s: %s", key, msg);
  }
  hc_deck_format_origin(deck, o, where, sizeof(where));
  return hc_error_set(code, file, line, func, "%s: %s", where, msg);
}
