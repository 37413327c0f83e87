/* libFuzzer target: the deck reader (hc_deck_parse_string) and --set overrides (hc_deck_apply_set) on any bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/hc_deck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 1 when the last input was accepted: the deck parsed and every override applied (read by fuzz_replay.c). */
int hc_fuzz_accepted;

/* The input is a deck, then optionally overrides: from the first line that starts with "--set " on, each such
   line is one override (the text after "--set "), applied in order on top of the deck as read. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  size_t deck_len = size;
  for (size_t i = 0; i + 6 <= size; i++) {
    if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, "--set ", 6) == 0) {
      deck_len = i;
      break;
    }
  }
  hc_deck deck;
  hc_deck_init(&deck);
  int err = hc_deck_parse_string("fuzz.yaml", text, deck_len, &deck);
  hc_fuzz_accepted = err == HC_OK;
  if (err) hc_deck_init(&deck); /* a deck that failed is partly filled: go on from the defaults */
  char *set = malloc(size + 1);
  if (!set) {
    hc_fuzz_accepted = 0;
    return 0;
  }
  for (size_t i = deck_len; i < size;) {
    size_t end = i;
    while (end < size && text[end] != '\n') end++;
    if (end - i >= 6 && memcmp(text + i, "--set ", 6) == 0) {
      memcpy(set, text + i + 6, end - i - 6);
      set[end - i - 6] = '\0';
      if (hc_deck_apply_set(&deck, set) != HC_OK) hc_fuzz_accepted = 0;
    }
    i = end + 1;
  }
  free(set);
  /* What the app asks of a deck it accepted. */
  char where[512];
  for (int key = 0; key < HC_DECK_NUM_KEYS; key++)
    hc_deck_where(&deck, hc_deck_key_name((hc_deck_key)key), where, sizeof(where));
  volatile int sink = hc_deck_quadrature(&deck);
  for (int k = 0; k < HC_NUM_KERNELS; k++) sink += (int)hc_deck_variant(&deck, (hc_kernel)k);
  (void)sink;
  hc_error_clear();
  return 0;
}
