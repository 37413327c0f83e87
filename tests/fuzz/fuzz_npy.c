/* libFuzzer target: the .npy reader (hc_npy_read_stream) on any bytes, read from memory through fmemopen. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/hc_npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 1 when the last input was accepted as an array (read by fuzz_replay.c). */
int hc_fuzz_accepted;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  hc_fuzz_accepted = 0;
  if (size == 0) return 0; /* fmemopen needs at least one byte: an empty file is refused */
  char *buf = malloc(size);
  if (!buf) return 0;
  memcpy(buf, data, size);
  FILE *f = fmemopen(buf, size, "rb");
  if (!f) {
    free(buf);
    return 0;
  }
  hc_npy_array arr;
  if (hc_npy_read_stream(f, "fuzz.npy", &arr) == HC_OK) {
    hc_fuzz_accepted = 1;
    /* An accepted array holds exactly numel scalars of its shape: touch every byte. */
    int64_t numel = 1;
    for (int i = 0; i < arr.ndim; i++) numel *= arr.dims[i];
    if (numel != arr.numel || arr.ndim < 0 || arr.ndim > HC_NPY_MAX_DIMS) abort();
    size_t bytes = (size_t)arr.numel * hc_precision_size(arr.precision);
    volatile unsigned char sink = 0;
    for (size_t i = 0; i < bytes; i++) sink ^= ((const unsigned char *)arr.data)[i];
    (void)sink;
  }
  hc_npy_free(&arr);
  fclose(f);
  free(buf);
  hc_error_clear();
  return 0;
}
