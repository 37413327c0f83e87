/* Files written atomically: to a temporary file beside the target, then renamed over it. */
#ifndef HC_ATOMIC_FILE_H
#define HC_ATOMIC_FILE_H

#include <stdio.h>

typedef struct {
  FILE *f;             /* write here */
  char path[4096];     /* the final name */
  char tmp[4096 + 32]; /* the temporary name, removed on abort */
} hc_atomic_file;

/* Opens a temporary file in the directory of path. An existing path that is not a regular file (a FIFO,
   a device, a directory, a symbolic link) is refused with HC_ERR_INPUT. */
int hc_atomic_file_open(const char *path, hc_atomic_file *af);
/* Flushes, syncs and renames the temporary file to its final name. */
int hc_atomic_file_commit(hc_atomic_file *af);
/* Closes and removes the temporary file; the final name is left as it was. */
void hc_atomic_file_abort(hc_atomic_file *af);

#endif
