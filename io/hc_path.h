/* Files and directories checked before use: regular files only, opened without blocking, outputs writable and distinct.
 */
#ifndef HC_PATH_H
#define HC_PATH_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens path for reading as a stream, refusing anything but a regular file (a FIFO, device, socket or
   directory) without blocking on it: the open is non-blocking and the type is checked on the open
   descriptor. what names the file in messages ("the deck"). Errors are HC_ERR_INPUT with
   "path: cannot open WHAT: ..." or "path: WHAT is a FIFO (named pipe), not a regular file". */
int hc_path_open_read(const char *path, const char *what, FILE **f);

/* Makes sure dir is a directory this process can create files in, before any work: with create, a
   missing dir is created (its parent must exist). The check creates and removes a probe file, so that a
   read-only file system or a missing permission is found now. Errors are HC_ERR_INPUT and say what
   was found ("'out' exists and is not a directory", "cannot create a file in 'out': Permission denied"). */
int hc_path_check_dir(const char *dir, int create);

/* Checks before any work that the output file path can be written: it is new or a regular file, and
   the directory it goes in exists and is writable. A symbolic link is refused unless follow_link is
   set, when it must point to a regular file (or to nothing yet in an existing directory). Never opens
   path. Errors are HC_ERR_INPUT, e.g. "'/dev/null' is a character device, not a regular file". */
int hc_path_check_output(const char *path, int follow_link);

/* An output directory and the files a command writes there (n names, without the directory), checked
   before any work: hc_path_check_dir (with create), then hc_path_check_output on each file (links
   refused). Errors as theirs, the caller adding which option or directory it was. */
int hc_path_check_out_dir(const char *dir, int create, const char *const *files, size_t n);

/* Whether a and b name the same file: the same device and inode where both exist, else the same
   canonical path (the directory resolved by realpath, then the file's name; symbolic links followed
   when follow_links is set). Paths whose directory does not exist are compared as written. */
int hc_path_same_file(const char *a, const char *b, int follow_links);

/* "a directory", "a FIFO (named pipe)", "a character device", ... for st_mode, after "is ". */
const char *hc_path_kind(unsigned int st_mode);

#ifdef __cplusplus
}
#endif

#endif
