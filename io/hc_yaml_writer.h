/* A small streaming YAML writer on libyaml's emitter that writes its file atomically (hc_atomic_file). */
#ifndef HC_YAML_WRITER_H
#define HC_YAML_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/base/hc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque: a libyaml emitter writing into a temporary file beside the target. */
typedef struct hc_yaml_writer hc_yaml_writer;

/* How a mapping or sequence is laid out: one entry per line (block) or inline, `[1, 2, 3]` (flow).
   Everything nested in a flow collection is flow too. */
typedef enum { HC_YAML_BLOCK = 0, HC_YAML_FLOW = 1 } hc_yaml_style;

/* Starts a YAML document that will replace path when hc_yaml_writer_close succeeds. Nothing is
   visible at path before then. The document holds exactly one node, normally a mapping begun with
   hc_yaml_writer_begin_mapping(w, NULL, HC_YAML_BLOCK). Not collective: call it on one rank. */
int hc_yaml_writer_create(const char *path, hc_yaml_writer **w);

/* Ends the document, flushes and syncs it and renames it into place, then frees *w and sets it to
   NULL. Every mapping and sequence must have been ended. On any error (an earlier one included) the
   temporary file is removed, the target is left untouched, *w is freed and the error returned. */
int hc_yaml_writer_close(hc_yaml_writer **w);

/* Abandons the document: removes the temporary file, leaves the target untouched, frees *w and sets
   it to NULL. Accepts NULL and a NULL handle. */
void hc_yaml_writer_destroy(hc_yaml_writer **w);

/* Every function below writes one node. Inside a mapping key is the entry's key (non-NULL); at the
   top of the document and inside a sequence key must be NULL. A call in the wrong place is
   HC_ERR_RUNTIME; after the first error every call returns that error again. */

/* Begins a mapping (key: {...}) or sequence (key: [...]); end it with the matching end call. */
int hc_yaml_writer_begin_mapping(hc_yaml_writer *w, const char *key, hc_yaml_style style);
int hc_yaml_writer_end_mapping(hc_yaml_writer *w);
int hc_yaml_writer_begin_sequence(hc_yaml_writer *w, const char *key, hc_yaml_style style);
int hc_yaml_writer_end_sequence(hc_yaml_writer *w);

/* A string, quoted whenever it would otherwise read back as a number, boolean or null. */
int hc_yaml_writer_string(hc_yaml_writer *w, const char *key, const char *value);
int hc_yaml_writer_int64(hc_yaml_writer *w, const char *key, int64_t value);
/* The shortest decimal form that reads back to the same double (at most 17 significant digits),
   with a '.' in the mantissa so that every YAML reader (1.1 and 1.2) reads a float: 0.1, 10.0,
   1.0e+21; NaN and infinities as .nan, .inf and -.inf. */
int hc_yaml_writer_double(hc_yaml_writer *w, const char *key, double value);
int hc_yaml_writer_bool(hc_yaml_writer *w, const char *key, bool value);
int hc_yaml_writer_null(hc_yaml_writer *w, const char *key);

/* Formats value as hc_yaml_writer_double writes it; buf needs 32 bytes. */
void hc_yaml_format_double(double value, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
