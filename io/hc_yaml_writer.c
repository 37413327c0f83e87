/* YAML writer: libyaml emitter events into an hc_atomic_file, with a nesting stack that checks usage. */
#include "io/hc_yaml_writer.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "io/hc_atomic_file.h"

#define HC_YAML_MAX_DEPTH 64

typedef enum { HC_YAML_LEVEL_ROOT = 0, HC_YAML_LEVEL_MAPPING, HC_YAML_LEVEL_SEQUENCE } hc_yaml_level;

struct hc_yaml_writer {
  hc_atomic_file file;
  yaml_emitter_t emitter;
  int emitter_ready;
  int error; /* sticky: the first error's code */
  int depth; /* levels[0] is the document root */
  hc_yaml_level levels[HC_YAML_MAX_DEPTH];
  int64_t count[HC_YAML_MAX_DEPTH]; /* nodes written at each level */
};

/* Records and keeps the writer's first error. */
static int hc_yaml_fail(hc_yaml_writer *w, int code, const char *what) {
  if (!w->error) {
    w->error = HC_ERROR(code, "%s: cannot write YAML: %s", w->file.path, what);
  }
  return w->error;
}

static int hc_yaml_emit(hc_yaml_writer *w, yaml_event_t *event) {
  if (!yaml_emitter_emit(&w->emitter, event)) {
    const char *problem = w->emitter.problem ? w->emitter.problem : "libyaml emitter error";
    return hc_yaml_fail(w, w->emitter.error == YAML_MEMORY_ERROR ? HC_ERR_RESOURCE : HC_ERR_RUNTIME, problem);
  }
  return HC_OK;
}

/* Whether a plain scalar s would be read back as something other than a string (null, bool, int,
   float, in YAML 1.1 or 1.2) or is empty: such strings are quoted. */
static int hc_yaml_needs_quotes(const char *s) {
  static const char *const words[] = {"null",  "Null",  "NULL", "~",    "true", "True", "TRUE", "false",
                                      "False", "FALSE", "yes",  "Yes",  "YES",  "no",   "No",   "NO",
                                      "on",    "On",    "ON",   "off",  "Off",  "OFF",  "y",    "Y",
                                      "n",     "N",     ".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN"};
  if (!s[0]) return 1;
  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
    if (strcmp(s, words[i]) == 0) return 1;
  }
  /* Anything that starts like a number is quoted: over-quoting is harmless. */
  if (isdigit((unsigned char)s[0]) || s[0] == '+' || s[0] == '-' || s[0] == '.') return 1;
  return 0;
}

static int hc_yaml_scalar(hc_yaml_writer *w, const char *value, int is_string) {
  yaml_event_t event;
  yaml_scalar_style_t style = YAML_PLAIN_SCALAR_STYLE;
  if (is_string && hc_yaml_needs_quotes(value)) style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
  if (is_string && style == YAML_PLAIN_SCALAR_STYLE) style = YAML_ANY_SCALAR_STYLE;
  if (!yaml_scalar_event_initialize(&event, NULL, NULL, (yaml_char_t *)value, (int)strlen(value), 1, 1, style)) {
    return hc_yaml_fail(w, HC_ERR_RESOURCE, "out of memory");
  }
  return hc_yaml_emit(w, &event);
}

/* Checks that a node may be written here (a key inside a mapping, none elsewhere, one root) and
   writes the key. */
static int hc_yaml_begin_node(hc_yaml_writer *w, const char *key) {
  if (w->error) return w->error;
  hc_yaml_level level = w->levels[w->depth];
  if (level == HC_YAML_LEVEL_MAPPING) {
    if (!key) return hc_yaml_fail(w, HC_ERR_RUNTIME, "a mapping entry needs a key");
    HC_CALL(hc_yaml_scalar(w, key, 1));
  } else if (key) {
    return hc_yaml_fail(
        w, HC_ERR_RUNTIME,
        level == HC_YAML_LEVEL_ROOT ? "the document's root node takes no key" : "a sequence item takes no key");
  } else if (level == HC_YAML_LEVEL_ROOT && w->count[0] > 0) {
    return hc_yaml_fail(w, HC_ERR_RUNTIME, "a document holds one root node");
  }
  w->count[w->depth]++;
  return HC_OK;
}

int hc_yaml_writer_create(const char *path, hc_yaml_writer **w_out) {
  int ierr = HC_OK;
  yaml_event_t event;
  *w_out = NULL;
  hc_yaml_writer *w = calloc(1, sizeof(*w));
  HC_CHECK(w, HC_ERR_RESOURCE, "%s: out of memory for a YAML writer", path);
  HC_CALL_GOTO(hc_atomic_file_open(path, &w->file), cleanup);
  HC_CHECK_GOTO(yaml_emitter_initialize(&w->emitter), HC_ERR_RESOURCE, cleanup, "%s: out of memory for a YAML emitter",
                path);
  w->emitter_ready = 1;
  yaml_emitter_set_output_file(&w->emitter, w->file.f);
  yaml_emitter_set_unicode(&w->emitter, 1);
  yaml_emitter_set_indent(&w->emitter, 2);
  yaml_emitter_set_width(&w->emitter, -1); /* never fold long lines */
  yaml_stream_start_event_initialize(&event, YAML_UTF8_ENCODING);
  HC_CALL_GOTO(hc_yaml_emit(w, &event), cleanup);
  yaml_document_start_event_initialize(&event, NULL, NULL, NULL, 1);
  HC_CALL_GOTO(hc_yaml_emit(w, &event), cleanup);
  *w_out = w;
  return HC_OK;
cleanup:
  hc_yaml_writer_destroy(&w);
  return ierr;
}

int hc_yaml_writer_close(hc_yaml_writer **w_ptr) {
  int ierr = HC_OK;
  yaml_event_t event;
  hc_yaml_writer *w = *w_ptr;
  if (!w) return HC_OK;
  if (w->error) {
    ierr = w->error;
    goto cleanup;
  }
  if (w->depth != 0 || w->count[0] != 1) {
    ierr = hc_yaml_fail(w, HC_ERR_RUNTIME,
                        w->depth ? "a mapping or sequence was not ended" : "the document has no root node");
    goto cleanup;
  }
  yaml_document_end_event_initialize(&event, 1);
  HC_CALL_GOTO(hc_yaml_emit(w, &event), cleanup);
  yaml_stream_end_event_initialize(&event);
  HC_CALL_GOTO(hc_yaml_emit(w, &event), cleanup);
  if (!yaml_emitter_flush(&w->emitter)) {
    ierr = hc_yaml_fail(w, HC_ERR_RESOURCE, "write error");
    goto cleanup;
  }
  yaml_emitter_delete(&w->emitter);
  w->emitter_ready = 0;
  ierr = hc_atomic_file_commit(&w->file);
  w->file.tmp[0] = '\0'; /* committed or removed by the commit: nothing left to abort */
cleanup:
  hc_yaml_writer_destroy(w_ptr);
  return ierr;
}

void hc_yaml_writer_destroy(hc_yaml_writer **w_ptr) {
  if (!w_ptr || !*w_ptr) return;
  hc_yaml_writer *w = *w_ptr;
  if (w->emitter_ready) yaml_emitter_delete(&w->emitter);
  hc_atomic_file_abort(&w->file);
  free(w);
  *w_ptr = NULL;
}

static int hc_yaml_begin_collection(hc_yaml_writer *w, const char *key, hc_yaml_style style, hc_yaml_level level) {
  yaml_event_t event;
  HC_CALL(hc_yaml_begin_node(w, key));
  if (w->depth + 1 >= HC_YAML_MAX_DEPTH) return hc_yaml_fail(w, HC_ERR_RUNTIME, "nested too deeply");
  int ok =
      level == HC_YAML_LEVEL_MAPPING
          ? yaml_mapping_start_event_initialize(
                &event, NULL, NULL, 1, style == HC_YAML_FLOW ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE)
          : yaml_sequence_start_event_initialize(
                &event, NULL, NULL, 1, style == HC_YAML_FLOW ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
  if (!ok) return hc_yaml_fail(w, HC_ERR_RESOURCE, "out of memory");
  HC_CALL(hc_yaml_emit(w, &event));
  w->depth++;
  w->levels[w->depth] = level;
  w->count[w->depth] = 0;
  return HC_OK;
}

static int hc_yaml_end_collection(hc_yaml_writer *w, hc_yaml_level level) {
  yaml_event_t event;
  if (w->error) return w->error;
  if (w->levels[w->depth] != level) {
    return hc_yaml_fail(w, HC_ERR_RUNTIME,
                        level == HC_YAML_LEVEL_MAPPING ? "end of a mapping that was not begun"
                                                       : "end of a sequence that was not begun");
  }
  if (level == HC_YAML_LEVEL_MAPPING) {
    yaml_mapping_end_event_initialize(&event);
  } else {
    yaml_sequence_end_event_initialize(&event);
  }
  HC_CALL(hc_yaml_emit(w, &event));
  w->depth--;
  return HC_OK;
}

int hc_yaml_writer_begin_mapping(hc_yaml_writer *w, const char *key, hc_yaml_style style) {
  return hc_yaml_begin_collection(w, key, style, HC_YAML_LEVEL_MAPPING);
}

int hc_yaml_writer_end_mapping(hc_yaml_writer *w) {
  return hc_yaml_end_collection(w, HC_YAML_LEVEL_MAPPING);
}

int hc_yaml_writer_begin_sequence(hc_yaml_writer *w, const char *key, hc_yaml_style style) {
  return hc_yaml_begin_collection(w, key, style, HC_YAML_LEVEL_SEQUENCE);
}

int hc_yaml_writer_end_sequence(hc_yaml_writer *w) {
  return hc_yaml_end_collection(w, HC_YAML_LEVEL_SEQUENCE);
}

int hc_yaml_writer_string(hc_yaml_writer *w, const char *key, const char *value) {
  HC_CALL(hc_yaml_begin_node(w, key));
  return hc_yaml_scalar(w, value ? value : "", 1);
}

int hc_yaml_writer_int64(hc_yaml_writer *w, const char *key, int64_t value) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%" PRId64, value);
  HC_CALL(hc_yaml_begin_node(w, key));
  return hc_yaml_scalar(w, buf, 0);
}

void hc_yaml_format_double(double value, char *buf, size_t size) {
  if (isnan(value)) {
    snprintf(buf, size, ".nan");
    return;
  }
  if (isinf(value)) {
    snprintf(buf, size, value > 0 ? ".inf" : "-.inf");
    return;
  }
  int digits = 1;
  for (; digits <= 17; digits++) {
    snprintf(buf, size, "%.*g", digits, value);
    if (strtod(buf, NULL) == value) break;
  }
  /* Plain decimals for everyday magnitudes: 10.0 rather than 1e+01. */
  double mag = fabs(value);
  if (strchr(buf, 'e') && mag >= 1e-4 && mag < 1e16) {
    int prec = digits - 1 - (int)floor(log10(mag));
    snprintf(buf, size, "%.*f", prec > 0 ? prec : 0, value);
    if (strtod(buf, NULL) != value) snprintf(buf, size, "%.*g", digits, value);
  }
  /* A mantissa without '.' would read back as an integer (1), or as a string in YAML 1.1 readers
     such as PyYAML (1e+20): write 1.0 and 1.0e+20. */
  char *e = strchr(buf, 'e');
  size_t n = strlen(buf), m = e ? (size_t)(e - buf) : n;
  if (!memchr(buf, '.', m) && n + 3 <= size) {
    memmove(buf + m + 2, buf + m, n - m + 1);
    memcpy(buf + m, ".0", 2);
  }
}

int hc_yaml_writer_double(hc_yaml_writer *w, const char *key, double value) {
  char buf[40];
  hc_yaml_format_double(value, buf, sizeof(buf));
  HC_CALL(hc_yaml_begin_node(w, key));
  return hc_yaml_scalar(w, buf, 0);
}

int hc_yaml_writer_bool(hc_yaml_writer *w, const char *key, bool value) {
  HC_CALL(hc_yaml_begin_node(w, key));
  return hc_yaml_scalar(w, value ? "true" : "false", 0);
}

int hc_yaml_writer_null(hc_yaml_writer *w, const char *key) {
  HC_CALL(hc_yaml_begin_node(w, key));
  return hc_yaml_scalar(w, "null", 0);
}
