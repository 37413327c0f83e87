/* Replays fuzz inputs without libFuzzer: feeds each file (or each file of a directory) to LLVMFuzzerTestOneInput. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Feeds one file; 1 when it could not be read. */
static int hc_replay_file(const char *path) {
  printf("%s\n", path);
  fflush(stdout);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "fuzz_replay: cannot open %s\n", path);
    return 1;
  }
  size_t cap = 4096, n = 0;
  uint8_t *data = malloc(cap);
  while (data) {
    n += fread(data + n, 1, cap - n, f);
    if (n < cap) break;
    uint8_t *more = realloc(data, 2 * cap);
    if (!more) free(data);
    data = more;
    cap *= 2;
  }
  int bad = !data || ferror(f);
  fclose(f);
  if (bad) {
    free(data);
    fprintf(stderr, "fuzz_replay: cannot read %s\n", path);
    return 1;
  }
  LLVMFuzzerTestOneInput(data, n);
  free(data);
  return 0;
}

static int hc_replay_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  int files = 0, errors = 0;
  for (int a = 1; a < argc; a++) {
    struct stat st;
    if (stat(argv[a], &st) != 0) {
      fprintf(stderr, "fuzz_replay: no such file or directory: %s\n", argv[a]);
      errors++;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      errors += hc_replay_file(argv[a]);
      files++;
      continue;
    }
    /* A directory: its files in name order. */
    DIR *d = opendir(argv[a]);
    if (!d) {
      errors++;
      continue;
    }
    char **names = NULL;
    size_t num = 0;
    for (struct dirent *e; (e = readdir(d));) {
      if (e->d_name[0] == '.') continue;
      char **more = realloc(names, (num + 1) * sizeof(*names));
      size_t len = strlen(argv[a]) + strlen(e->d_name) + 2;
      char *path = more ? malloc(len) : NULL;
      if (!path) {
        names = more ? more : names;
        errors++;
        break;
      }
      names = more;
      snprintf(path, len, "%s/%s", argv[a], e->d_name);
      names[num++] = path;
    }
    closedir(d);
    if (num) qsort(names, num, sizeof(*names), hc_replay_cmp);
    for (size_t i = 0; i < num; i++) {
      errors += hc_replay_file(names[i]);
      files++;
      free(names[i]);
    }
    free(names);
  }
  printf("fuzz_replay: %d inputs replayed, %d unreadable\n", files, errors);
  return errors || files == 0 ? 1 : 0;
}
