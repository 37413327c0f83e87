/* NumPy .npy reader and writer: a strict parser of the header dictionary, checked sizes. */
#include "io/hc_npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/hc_atomic_file.h"
#include "io/hc_path.h"

static const char hc_npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

/* A cursor over the header dictionary text. */
typedef struct {
  const char *s;
  size_t pos, len;
} hc_cursor;

static void hc_skip_space(hc_cursor *cur) {
  while (cur->pos < cur->len && isspace((unsigned char)cur->s[cur->pos])) cur->pos++;
}

static int hc_accept(hc_cursor *cur, char c) {
  hc_skip_space(cur);
  if (cur->pos < cur->len && cur->s[cur->pos] == c) {
    cur->pos++;
    return 1;
  }
  return 0;
}

/* Parses a quoted Python string literal (no escapes, as NumPy writes them) into buf. */
static int hc_parse_string(hc_cursor *cur, char *buf, size_t size) {
  hc_skip_space(cur);
  if (cur->pos >= cur->len || (cur->s[cur->pos] != '\'' && cur->s[cur->pos] != '"')) return 0;
  char quote = cur->s[cur->pos++];
  size_t n = 0;
  while (cur->pos < cur->len && cur->s[cur->pos] != quote) {
    if (n + 1 >= size) return 0;
    buf[n++] = cur->s[cur->pos++];
  }
  if (cur->pos >= cur->len) return 0;
  cur->pos++;
  buf[n] = '\0';
  return 1;
}

static int hc_parse_word(hc_cursor *cur, const char *word) {
  hc_skip_space(cur);
  size_t n = strlen(word);
  if (cur->len - cur->pos >= n && strncmp(cur->s + cur->pos, word, n) == 0) {
    cur->pos += n;
    return 1;
  }
  return 0;
}

/* Parses a shape tuple "(3, 4)", "(3,)" or "()" into dims. */
static int hc_parse_shape(hc_cursor *cur, const char *path, hc_npy_array *arr) {
  HC_CHECK(hc_accept(cur, '('), HC_ERR_INPUT, "%s: malformed .npy header: 'shape' is not a tuple", path);
  arr->ndim = 0;
  while (!hc_accept(cur, ')')) {
    hc_skip_space(cur);
    HC_CHECK(arr->ndim < HC_NPY_MAX_DIMS, HC_ERR_INPUT, "%s: the array has more than %d dimensions", path,
             HC_NPY_MAX_DIMS);
    HC_CHECK(cur->pos < cur->len && isdigit((unsigned char)cur->s[cur->pos]), HC_ERR_INPUT,
             "%s: malformed .npy header: 'shape' holds something other than non-negative integers", path);
    int64_t v = 0;
    while (cur->pos < cur->len && isdigit((unsigned char)cur->s[cur->pos])) {
      HC_CHECK(v <= (INT64_MAX - 9) / 10, HC_ERR_INPUT, "%s: malformed .npy header: a dimension overflows 64 bits",
               path);
      v = 10 * v + (cur->s[cur->pos++] - '0');
    }
    hc_parse_word(cur, "L"); /* Python 2 long suffix */
    arr->dims[arr->ndim++] = v;
    if (!hc_accept(cur, ',')) {
      HC_CHECK(hc_accept(cur, ')'), HC_ERR_INPUT, "%s: malformed .npy header: 'shape' tuple is not closed", path);
      break;
    }
  }
  return HC_OK;
}

/* Parses the header dictionary {'descr': ..., 'fortran_order': ..., 'shape': (...), }. */
static int hc_parse_header(const char *path, const char *text, size_t len, hc_npy_array *arr) {
  hc_cursor cur = {text, 0, len};
  int have_descr = 0, have_order = 0, have_shape = 0;
  char key[64], descr[64];
  HC_CHECK(hc_accept(&cur, '{'), HC_ERR_INPUT, "%s: malformed .npy header: it is not a dictionary", path);
  while (!hc_accept(&cur, '}')) {
    HC_CHECK(hc_parse_string(&cur, key, sizeof(key)), HC_ERR_INPUT, "%s: malformed .npy header: expected a key", path);
    HC_CHECK(hc_accept(&cur, ':'), HC_ERR_INPUT, "%s: malformed .npy header: expected ':' after '%s'", path, key);
    if (strcmp(key, "descr") == 0) {
      HC_CHECK(!have_descr, HC_ERR_INPUT, "%s: malformed .npy header: 'descr' appears twice", path);
      HC_CHECK(hc_parse_string(&cur, descr, sizeof(descr)), HC_ERR_INPUT,
               "%s: unsupported dtype: 'descr' is not a simple type string (structured arrays are not supported; "
               "expected float64 '<f8' or float32 '<f4')",
               path);
      have_descr = 1;
    } else if (strcmp(key, "fortran_order") == 0) {
      HC_CHECK(!have_order, HC_ERR_INPUT, "%s: malformed .npy header: 'fortran_order' appears twice", path);
      if (hc_parse_word(&cur, "True")) {
        return HC_ERROR(HC_ERR_INPUT,
                        "%s: Fortran-order arrays are not supported; save a C-order array "
                        "(numpy.ascontiguousarray)",
                        path);
      }
      HC_CHECK(hc_parse_word(&cur, "False"), HC_ERR_INPUT,
               "%s: malformed .npy header: 'fortran_order' must be True or False", path);
      have_order = 1;
    } else if (strcmp(key, "shape") == 0) {
      HC_CHECK(!have_shape, HC_ERR_INPUT, "%s: malformed .npy header: 'shape' appears twice", path);
      HC_CALL(hc_parse_shape(&cur, path, arr));
      have_shape = 1;
    } else {
      return HC_ERROR(HC_ERR_INPUT, "%s: malformed .npy header: unexpected key '%s'", path, key);
    }
    if (!hc_accept(&cur, ',')) {
      HC_CHECK(hc_accept(&cur, '}'), HC_ERR_INPUT, "%s: malformed .npy header: expected ',' or '}'", path);
      break;
    }
  }
  HC_CHECK(have_descr && have_order && have_shape, HC_ERR_INPUT, "%s: malformed .npy header: missing key '%s'", path,
           !have_descr   ? "descr"
           : !have_order ? "fortran_order"
                         : "shape");
  hc_skip_space(&cur);
  HC_CHECK(cur.pos == cur.len, HC_ERR_INPUT, "%s: malformed .npy header: text after the dictionary", path);
  if (strcmp(descr, "<f8") == 0 || strcmp(descr, "=f8") == 0) {
    arr->precision = HC_DOUBLE;
  } else if (strcmp(descr, "<f4") == 0 || strcmp(descr, "=f4") == 0) {
    arr->precision = HC_FLOAT;
  } else {
    return HC_ERROR(HC_ERR_INPUT,
                    "%s: unsupported dtype '%s' (expected little-endian float64 '<f8' or float32 '<f4'; convert "
                    "with numpy's astype)",
                    path, descr);
  }
  return HC_OK;
}

/* Reads the header from f (at its start, seekable) and checks that exactly the data the shape needs
   follows; leaves f positioned at the data. path names f in messages. Does not close f. */
static int hc_npy_read_prefix(FILE *f, const char *path, hc_npy_array *arr) {
  int ierr = HC_OK;
  char *text = NULL;
  unsigned char pre[12];
  memset(arr, 0, sizeof(*arr));
  size_t got = fread(pre, 1, 8, f);
  HC_CHECK_GOTO(got == 8 && memcmp(pre, hc_npy_magic, 6) == 0, HC_ERR_INPUT, fail,
                "%s: not a .npy file (the magic string \\x93NUMPY is missing)", path);
  int major = pre[6], minor = pre[7];
  HC_CHECK_GOTO(major >= 1 && major <= 3 && minor == 0, HC_ERR_INPUT, fail,
                "%s: unsupported .npy format version %d.%d (expected 1.0, 2.0 or 3.0)", path, major, minor);
  size_t lenbytes = major == 1 ? 2 : 4;
  HC_CHECK_GOTO(fread(pre + 8, 1, lenbytes, f) == lenbytes, HC_ERR_INPUT, fail,
                "%s: truncated .npy file: the header length is missing", path);
  size_t hlen = pre[8] | ((size_t)pre[9] << 8);
  if (lenbytes == 4) hlen |= ((size_t)pre[10] << 16) | ((size_t)pre[11] << 24);
  HC_CHECK_GOTO(hlen > 0 && hlen <= (1u << 20), HC_ERR_INPUT, fail,
                "%s: malformed .npy header: header length %zu is out of range", path, hlen);
  text = malloc(hlen + 1);
  HC_CHECK_GOTO(text, HC_ERR_RESOURCE, fail, "%s: out of memory reading the header", path);
  HC_CHECK_GOTO(fread(text, 1, hlen, f) == hlen, HC_ERR_INPUT, fail,
                "%s: truncated .npy file: the header is %zu bytes but the file ends before it does", path, hlen);
  text[hlen] = '\0';
  HC_CHECK_GOTO(strlen(text) == hlen, HC_ERR_INPUT, fail, "%s: malformed .npy header: it contains a NUL byte", path);
  HC_CALL_GOTO(hc_parse_header(path, text, hlen, arr), fail);
  arr->numel = 1;
  for (int i = 0; i < arr->ndim; i++) {
    HC_CHECK_GOTO(arr->dims[i] == 0 || arr->numel <= ((int64_t)1 << 52) / arr->dims[i], HC_ERR_INPUT, fail,
                  "%s: the shape has more than 2^52 entries", path);
    arr->numel *= arr->dims[i];
  }
  /* The data must be exactly what the shape says. */
  long here = ftell(f);
  HC_CHECK_GOTO(here >= 0 && fseek(f, 0, SEEK_END) == 0, HC_ERR_INPUT, fail, "%s: cannot seek: %s", path,
                strerror(errno));
  long end = ftell(f);
  HC_CHECK_GOTO(end >= 0 && fseek(f, here, SEEK_SET) == 0, HC_ERR_INPUT, fail, "%s: cannot seek: %s", path,
                strerror(errno));
  int64_t want = arr->numel * (int64_t)hc_precision_size(arr->precision), have = (int64_t)(end - here);
  HC_CHECK_GOTO(have >= want, HC_ERR_INPUT, fail,
                "%s: truncated .npy file: the shape needs %lld bytes of data but the file holds %lld", path,
                (long long)want, (long long)have);
  HC_CHECK_GOTO(have == want, HC_ERR_INPUT, fail,
                "%s: malformed .npy file: %lld bytes follow the %lld bytes of data that the shape needs", path,
                (long long)(have - want), (long long)want);
fail:
  free(text);
  return ierr;
}

/* Opens path and reads its header; leaves *fout positioned at the data. */
static int hc_npy_open(const char *path, hc_npy_array *arr, FILE **fout) {
  int ierr = HC_OK;
  memset(arr, 0, sizeof(*arr));
  FILE *f = NULL;
  HC_CALL(hc_path_open_read(path, "the array", &f));
  HC_CALL_GOTO(hc_npy_read_prefix(f, path, arr), fail);
  *fout = f;
  return HC_OK;
fail:
  fclose(f);
  return ierr;
}

int hc_npy_read_header(const char *path, hc_npy_array *arr) {
  FILE *f = NULL;
  HC_CALL(hc_npy_open(path, arr, &f));
  fclose(f);
  return HC_OK;
}

int hc_npy_read_stream(FILE *f, const char *name, hc_npy_array *arr) {
  int ierr = HC_OK;
  HC_CALL(hc_npy_read_prefix(f, name, arr));
  size_t bytes = (size_t)arr->numel * hc_precision_size(arr->precision);
  arr->data = malloc(bytes ? bytes : 1);
  HC_CHECK_GOTO(arr->data, HC_ERR_RESOURCE, fail, "%s: out of host memory reading %zu bytes", name, bytes);
  HC_CHECK_GOTO(fread(arr->data, 1, bytes, f) == bytes, HC_ERR_INPUT, fail, "%s: read error: %s", name,
                strerror(errno));
  return HC_OK;
fail:
  hc_npy_free(arr);
  return ierr;
}

int hc_npy_read(const char *path, hc_npy_array *arr) {
  memset(arr, 0, sizeof(*arr));
  FILE *f = NULL;
  HC_CALL(hc_path_open_read(path, "the array", &f));
  int ierr = hc_npy_read_stream(f, path, arr);
  fclose(f);
  return ierr;
}

void hc_npy_free(hc_npy_array *arr) {
  if (!arr) return;
  free(arr->data);
  memset(arr, 0, sizeof(*arr));
}

int hc_npy_write(const char *path, hc_precision precision, int ndim, const int64_t *dims, const void *data) {
  int ierr = HC_OK;
  char header[1024];
  HC_CHECK(ndim >= 0 && ndim <= HC_NPY_MAX_DIMS, HC_ERR_INPUT, "%s: cannot write %d dimensions", path, ndim);
  int n = snprintf(header, sizeof(header), "{'descr': '%s', 'fortran_order': False, 'shape': (",
                   precision == HC_FLOAT ? "<f4" : "<f8");
  int64_t numel = 1;
  for (int i = 0; i < ndim; i++) {
    n += snprintf(header + n, sizeof(header) - (size_t)n, "%lld,%s", (long long)dims[i], i + 1 < ndim ? " " : "");
    numel *= dims[i];
  }
  n += snprintf(header + n, sizeof(header) - (size_t)n, "), }");
  /* Pad with spaces and a newline so that magic + length + header is a multiple of 64. */
  int major = (10 + n + 1) <= 65535 ? 1 : 2;
  size_t prefix = major == 1 ? 10 : 12;
  size_t total = (prefix + (size_t)n + 1 + 63) / 64 * 64;
  size_t hlen = total - prefix;
  while ((size_t)n < hlen - 1) header[n++] = ' ';
  header[n++] = '\n';
  unsigned char pre[12];
  memcpy(pre, hc_npy_magic, 6);
  pre[6] = (unsigned char)major;
  pre[7] = 0;
  for (size_t i = 0; i < prefix - 8; i++) pre[8 + i] = (unsigned char)((hlen >> (8 * i)) & 0xff);
  hc_atomic_file af;
  HC_CALL(hc_atomic_file_open(path, &af));
  size_t bytes = (size_t)numel * hc_precision_size(precision);
  HC_CHECK_GOTO(fwrite(pre, 1, prefix, af.f) == prefix && fwrite(header, 1, hlen, af.f) == hlen &&
                    (bytes == 0 || fwrite(data, 1, bytes, af.f) == bytes),
                HC_ERR_RESOURCE, fail, "%s: write error: %s", path, strerror(errno));
  return hc_atomic_file_commit(&af);
fail:
  hc_atomic_file_abort(&af);
  return ierr;
}
