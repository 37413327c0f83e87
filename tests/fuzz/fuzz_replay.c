/* Replays fuzz inputs without libFuzzer: feeds each file (or each file of a directory) to LLVMFuzzerTestOneInput,
   and with --expect MANIFEST checks that each was accepted or refused as the manifest says. Usage:
     fuzz_replay [--expect MANIFEST] FILE|DIR...
   MANIFEST: one "NAME accept" or "NAME refuse" per line (NAME: a file's name without its directory; '#' starts
   a comment). Every replayed file must be listed, and every listed name replayed. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern int hc_fuzz_accepted; /* set by the target: 1 when it accepted its last input */

#define HC_REPLAY_MAX 1024

/* The manifest: names and their expected outcome (1 accept, 0 refuse), and whether each was replayed. */
static struct {
  char name[256];
  int accept, seen;
} expect[HC_REPLAY_MAX];
static int nexpect = -1; /* -1: no manifest */

static int hc_replay_load_manifest(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return fprintf(stderr, "fuzz_replay: cannot open %s\n", path), 1;
  char line[512];
  int lineno = 0, bad = 0;
  nexpect = 0;
  while (fgets(line, sizeof(line), f)) {
    lineno++;
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char name[256], what[16];
    int n = sscanf(line, "%255s %15s", name, what);
    if (n <= 0) continue;
    if (n != 2 || (strcmp(what, "accept") && strcmp(what, "refuse")) || nexpect == HC_REPLAY_MAX) {
      fprintf(stderr, "fuzz_replay: %s:%d: expected 'NAME accept' or 'NAME refuse'\n", path, lineno);
      bad = 1;
      continue;
    }
    snprintf(expect[nexpect].name, sizeof(expect[nexpect].name), "%s", name);
    expect[nexpect].accept = strcmp(what, "accept") == 0;
    expect[nexpect++].seen = 0;
  }
  fclose(f);
  return bad;
}

/* 0 when the outcome of path is the manifest's (or there is no manifest), else 1 with a message. */
static int hc_replay_check(const char *path, int accepted) {
  if (nexpect < 0) return 0;
  const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
  for (int i = 0; i < nexpect; i++) {
    if (strcmp(expect[i].name, name) != 0) continue;
    expect[i].seen = 1;
    if (expect[i].accept == accepted) return 0;
    fprintf(stderr, "fuzz_replay: %s was %s, but must be %s\n", path, accepted ? "accepted" : "refused",
            expect[i].accept ? "accepted" : "refused");
    return 1;
  }
  fprintf(stderr, "fuzz_replay: %s (%s) is not in the manifest: add it as accept or refuse\n", path,
          accepted ? "accepted" : "refused");
  return 1;
}

/* Feeds one file; 1 when it could not be read or its outcome is not the manifest's. */
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
  hc_fuzz_accepted = -1;
  LLVMFuzzerTestOneInput(data, n);
  free(data);
  printf("  %s\n", hc_fuzz_accepted == 1 ? "accepted" : "refused");
  return hc_replay_check(path, hc_fuzz_accepted == 1);
}

static int hc_replay_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  int files = 0, errors = 0, first = 1;
  if (argc > 2 && strcmp(argv[1], "--expect") == 0) {
    if (hc_replay_load_manifest(argv[2])) return 1;
    first = 3;
  }
  for (int a = first; a < argc; a++) {
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
  for (int i = 0; i < nexpect; i++) {
    if (!expect[i].seen) fprintf(stderr, "fuzz_replay: %s is in the manifest but was not replayed\n", expect[i].name);
    errors += !expect[i].seen;
  }
  printf("fuzz_replay: %d inputs replayed, %d unreadable or not as the manifest says\n", files, errors);
  return errors || files == 0 ? 1 : 0;
}
