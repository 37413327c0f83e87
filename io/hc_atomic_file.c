/* Atomic file writes: temporary file, fsync, rename. */
#define _POSIX_C_SOURCE 200809L
#include "io/hc_atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/hc_path.h"
#include "kernels/base/hc_error.h"

int hc_atomic_file_open(const char *path, hc_atomic_file *af) {
  memset(af, 0, sizeof(*af));
  HC_CHECK(strlen(path) < sizeof(af->path), HC_ERR_INPUT, "%s: path is too long", path);
  strcpy(af->path, path);
  /* The rename would replace a FIFO, a device or a link with a regular file: only regular files are
     replaced. */
  struct stat st;
  HC_CHECK(lstat(path, &st) != 0 || S_ISREG(st.st_mode), HC_ERR_INPUT,
           "%s: is %s, not a regular file; name a regular file or a new one", path, hc_path_kind(st.st_mode));
  snprintf(af->tmp, sizeof(af->tmp), "%s.tmp.XXXXXX", path);
  int fd = mkstemp(af->tmp);
  HC_CHECK(fd >= 0, HC_ERR_INPUT, "%s: cannot create a file there: %s", path, strerror(errno));
  af->f = fdopen(fd, "wb");
  if (!af->f) {
    close(fd);
    unlink(af->tmp);
    return HC_ERROR(HC_ERR_RESOURCE, "%s: cannot open a stream: %s", path, strerror(errno));
  }
  return HC_OK;
}

int hc_atomic_file_commit(hc_atomic_file *af) {
  int ok = fflush(af->f) == 0 && fsync(fileno(af->f)) == 0;
  int err = errno;
  ok = (fclose(af->f) == 0) && ok;
  af->f = NULL;
  if (!ok) {
    unlink(af->tmp);
    return HC_ERROR(HC_ERR_RESOURCE, "%s: write error: %s", af->path, strerror(err));
  }
  /* mkstemp creates 0600; results are for sharing. */
  mode_t mask = umask(0);
  umask(mask);
  chmod(af->tmp, 0666 & ~mask);
  if (rename(af->tmp, af->path) != 0) {
    err = errno;
    unlink(af->tmp);
    return HC_ERROR(HC_ERR_INPUT, "%s: cannot rename the finished file into place: %s", af->path, strerror(err));
  }
  return HC_OK;
}

void hc_atomic_file_abort(hc_atomic_file *af) {
  if (af->f) fclose(af->f);
  af->f = NULL;
  if (af->tmp[0]) unlink(af->tmp);
}
