/* Files and directories checked before use: regular files only, opened without blocking, outputs writable and distinct.
 */
#define _GNU_SOURCE
#include "io/hc_path.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernels/base/hc_error.h"

const char *hc_path_kind(unsigned int st_mode) {
  if (S_ISREG(st_mode)) return "a regular file";
  if (S_ISDIR(st_mode)) return "a directory";
  if (S_ISFIFO(st_mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(st_mode)) return "a character device";
  if (S_ISBLK(st_mode)) return "a block device";
  if (S_ISSOCK(st_mode)) return "a socket";
  if (S_ISLNK(st_mode)) return "a symbolic link";
  return "not a regular file";
}

int hc_path_open_read(const char *path, const char *what, FILE **f) {
  *f = NULL;
  /* O_NONBLOCK: opening a FIFO without a writer would wait for one. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  HC_CHECK(fd >= 0, HC_ERR_INPUT, "%s: cannot open %s: %s", path, what, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return HC_ERROR(HC_ERR_INPUT, "%s: cannot open %s: %s", path, what, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return HC_ERROR(HC_ERR_INPUT, "%s: %s is %s, not a regular file", path, what, hc_path_kind(st.st_mode));
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  *f = fdopen(fd, "rb");
  if (!*f) {
    int e = errno;
    close(fd);
    return HC_ERROR(HC_ERR_RESOURCE, "%s: cannot open a stream on %s: %s", path, what, strerror(e));
  }
  return HC_OK;
}

/* The directory part of path into buf ("." when there is none). */
static void hc_path_dirname(const char *path, char *buf, size_t n) {
  char copy[PATH_MAX];
  snprintf(copy, sizeof(copy), "%s", path);
  snprintf(buf, n, "%s", dirname(copy));
}

int hc_path_check_dir(const char *dir, int create) {
  struct stat st;
  HC_CHECK(dir[0], HC_ERR_INPUT, "an empty directory name");
  if (stat(dir, &st) != 0) {
    HC_CHECK(errno == ENOENT, HC_ERR_INPUT, "cannot use directory '%s': %s", dir, strerror(errno));
    HC_CHECK(create, HC_ERR_INPUT, "directory '%s' does not exist", dir);
    HC_CHECK(mkdir(dir, 0777) == 0, HC_ERR_INPUT, "cannot create directory '%s': %s", dir, strerror(errno));
    HC_CHECK(stat(dir, &st) == 0, HC_ERR_INPUT, "cannot use directory '%s': %s", dir, strerror(errno));
  }
  HC_CHECK(S_ISDIR(st.st_mode), HC_ERR_INPUT, "'%s' exists and is %s, not a directory", dir, hc_path_kind(st.st_mode));
  /* A probe file: permissions, ACLs and read-only file systems all show, also for root. */
  char probe[PATH_MAX + 32];
  int w = snprintf(probe, sizeof(probe), "%s/.hexcontract-probe-XXXXXX", dir);
  HC_CHECK(w > 0 && (size_t)w < sizeof(probe), HC_ERR_INPUT, "directory name '%.64s...' is too long", dir);
  int fd = mkstemp(probe);
  HC_CHECK(fd >= 0, HC_ERR_INPUT, "cannot create a file in directory '%s': %s", dir, strerror(errno));
  close(fd);
  unlink(probe);
  return HC_OK;
}

int hc_path_check_output(const char *path, int follow_link) {
  struct stat st;
  char dir[PATH_MAX], target[PATH_MAX];
  HC_CHECK(path[0], HC_ERR_INPUT, "an empty file name");
  HC_CHECK(strlen(path) < PATH_MAX, HC_ERR_INPUT, "file name '%.64s...' is too long", path);
  const char *where = path; /* the file that will be replaced */
  if (lstat(path, &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      HC_CHECK(follow_link, HC_ERR_INPUT,
               "'%s' is a symbolic link; results are replaced atomically, which would replace the link: name the "
               "file it points to, or a new file",
               path);
      HC_CHECK(stat(path, &st) == 0, HC_ERR_INPUT, "'%s' is a symbolic link to a file that cannot be used: %s", path,
               strerror(errno));
      HC_CHECK(realpath(path, target), HC_ERR_INPUT, "'%s': cannot resolve the symbolic link: %s", path,
               strerror(errno));
      where = target;
    }
    HC_CHECK(S_ISREG(st.st_mode), HC_ERR_INPUT, "'%s' is %s, not a regular file; name a regular file or a new one",
             path, hc_path_kind(st.st_mode));
  } else {
    HC_CHECK(errno == ENOENT, HC_ERR_INPUT, "cannot use '%s': %s", path, strerror(errno));
  }
  hc_path_dirname(where, dir, sizeof(dir));
  int err = hc_path_check_dir(dir, 0);
  if (err) {
    char why[1024];
    snprintf(why, sizeof(why), "%s", hc_error_message());
    return HC_ERROR(err, "cannot write '%s': %s", path, why);
  }
  return HC_OK;
}

/* The canonical name of path: realpath of the whole path (follow) or of its directory, then its name. */
static void hc_path_canonical(const char *path, int follow, char *buf, size_t n) {
  char dir[PATH_MAX], real[PATH_MAX], copy[PATH_MAX];
  if (follow && realpath(path, real)) {
    snprintf(buf, n, "%s", real);
    return;
  }
  hc_path_dirname(path, dir, sizeof(dir));
  snprintf(copy, sizeof(copy), "%s", path);
  const char *base = basename(copy);
  if (realpath(dir, real)) {
    snprintf(buf, n, "%s/%s", real, base);
  } else {
    snprintf(buf, n, "%s", path);
  }
}

int hc_path_check_out_dir(const char *dir, int create, const char *const *files, size_t n) {
  char path[PATH_MAX + 64];
  HC_CALL(hc_path_check_dir(dir, create));
  for (size_t i = 0; i < n; i++) {
    HC_CHECK(snprintf(path, sizeof(path), "%s/%s", dir, files[i]) < (int)sizeof(path), HC_ERR_INPUT,
             "directory name '%.64s...' is too long", dir);
    HC_CALL(hc_path_check_output(path, 0));
  }
  return HC_OK;
}

int hc_path_same_file(const char *a, const char *b, int follow_links) {
  struct stat sa, sb;
  int (*get)(const char *, struct stat *) = follow_links ? stat : lstat;
  if (get(a, &sa) == 0 && get(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  char ca[PATH_MAX + NAME_MAX + 2], cb[PATH_MAX + NAME_MAX + 2];
  hc_path_canonical(a, follow_links, ca, sizeof(ca));
  hc_path_canonical(b, follow_links, cb, sizeof(cb));
  return strcmp(ca, cb) == 0;
}
