/* Streaming (non-temporal) stores for the OpenMP backend's writers of large arrays. A plain store of a
   line that is not in cache first reads it from memory (read for ownership), so writing an array costs
   twice its bytes; non-temporal stores of whole 64-byte lines skip that read. On processors without
   them (no SSE2) these are plain copies. */
#ifndef HC_STREAM_H
#define HC_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* HC_STREAM_NT (can be set at build time, -DCMAKE_C_FLAGS=-DHC_STREAM_NT=0): 1 (the default where the target has
   SSE2), each line in four 16-byte non-temporal stores; 2 (AVX-512 only, else 1), one 64-byte store; 0, plain
   stores (a copy). */
#ifndef HC_STREAM_NT
#if defined(__SSE2__)
#define HC_STREAM_NT 1
#else
#define HC_STREAM_NT 0
#endif
#endif
#if HC_STREAM_NT == 2 && !defined(__AVX512F__)
#undef HC_STREAM_NT
#define HC_STREAM_NT 1
#endif
#if HC_STREAM_NT
#include <immintrin.h>
#endif

/* The line size that streaming stores fill whole. */
#define HC_STREAM_LINE 64

/* Copies bytes from src (any alignment) to dst: the whole 64-byte lines of dst with non-temporal stores,
   the partial lines at either end with plain ones. Call hc_stream_fence before other threads read dst. */
static inline void hc_stream_copy(void *dst, const void *src, size_t bytes) {
  char *d = (char *)dst;
  const char *s = (const char *)src;
#if HC_STREAM_NT
  size_t head = (size_t)(-(uintptr_t)d & (HC_STREAM_LINE - 1));
  if (head > bytes) head = bytes;
  memcpy(d, s, head);
  d += head, s += head, bytes -= head;
  for (; bytes >= HC_STREAM_LINE; bytes -= HC_STREAM_LINE, d += HC_STREAM_LINE, s += HC_STREAM_LINE) {
#if HC_STREAM_NT == 2
    _mm512_stream_si512((__m512i *)d, _mm512_loadu_si512((const void *)s));
    continue;
#endif
    const __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + 16));
    const __m128i c = _mm_loadu_si128((const __m128i *)(s + 32)), e = _mm_loadu_si128((const __m128i *)(s + 48));
    _mm_stream_si128((__m128i *)d, a);
    _mm_stream_si128((__m128i *)(d + 16), b);
    _mm_stream_si128((__m128i *)(d + 32), c);
    _mm_stream_si128((__m128i *)(d + 48), e);
  }
#endif
  memcpy(d, s, bytes);
}

/* Orders this thread's streaming stores before its later stores (and so before a barrier that other
   threads then read behind). */
static inline void hc_stream_fence(void) {
#if HC_STREAM_NT
  _mm_sfence();
#endif
}

#endif
