/* Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0) of float32 or float64. */
#ifndef HC_NPY_H
#define HC_NPY_H

#include <stdint.h>
#include <stdio.h>

#include "kernels/hc_kernels.h"

#define HC_NPY_MAX_DIMS 8

/* A C-order array read from a .npy file; owns data. */
typedef struct {
  hc_precision precision; /* float64 -> HC_DOUBLE, float32 -> HC_FLOAT */
  int ndim;
  int64_t dims[HC_NPY_MAX_DIMS];
  int64_t numel;
  void *data; /* numel scalars, C order */
} hc_npy_array;

/* Reads the header of path: dtype, shape. Any other dtype than little-endian float32/float64,
   Fortran order, a malformed or truncated header, or a data size that does not match the shape
   is HC_ERR_INPUT with a message that starts with the path. */
int hc_npy_read_header(const char *path, hc_npy_array *arr);

/* Reads the whole file; arr->data is allocated and released by hc_npy_free. */
int hc_npy_read(const char *path, hc_npy_array *arr);

/* The same from an open, seekable stream positioned at the file's start (a file, or bytes in memory through
   fmemopen); name stands for the file in messages. Reads to the end of f; does not close it. */
int hc_npy_read_stream(FILE *f, const char *name, hc_npy_array *arr);

/* Releases arr->data and zeroes arr. Accepts an array that holds nothing. */
void hc_npy_free(hc_npy_array *arr);

/* Writes a C-order array as a version 1.0 file (2.0 when the header needs it), atomically:
   to a temporary file beside path, then renamed over it. */
int hc_npy_write(const char *path, hc_precision precision, int ndim, const int64_t *dims, const void *data);

#endif
