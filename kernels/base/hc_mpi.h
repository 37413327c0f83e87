/* HC_CALL_MPI: checks an MPI call's return code and turns a failure into an hc error. */
#ifndef HC_MPI_H
#define HC_MPI_H

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "kernels/base/hc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records a failed MPI call (its text, MPI's own error string and the world rank) as HC_ERR_RUNTIME
   and returns HC_ERR_RUNTIME. Communicators must use MPI_ERRORS_RETURN for errors to reach it. */
static inline int hc_mpi_error(int mpi_err, const char *expr, const char *file, int line, const char *func) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0, initialized = 0, finalized = 0, rank = -1;
  if (MPI_Error_string(mpi_err, text, &len) != MPI_SUCCESS) text[0] = '\0';
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return hc_error_set(HC_ERR_RUNTIME, file, line, func, "rank %d: %s failed with MPI error %d: %s", rank, expr, mpi_err,
                      text);
}

/* Returns from the calling function with HC_ERR_RUNTIME when an MPI call fails. */
#define HC_CALL_MPI(expr)                                                                                  \
  do {                                                                                                     \
    int hc_mpi_err_ = (expr);                                                                              \
    if (hc_mpi_err_ != MPI_SUCCESS) return hc_mpi_error(hc_mpi_err_, #expr, __FILE__, __LINE__, __func__); \
  } while (0)

/* The same for functions with one cleanup label: sets `ierr` and jumps to label. */
#define HC_CALL_MPI_GOTO(expr, label)                                        \
  do {                                                                       \
    int hc_mpi_err_ = (expr);                                                \
    if (hc_mpi_err_ != MPI_SUCCESS) {                                        \
      ierr = hc_mpi_error(hc_mpi_err_, #expr, __FILE__, __LINE__, __func__); \
      goto label;                                                            \
    }                                                                        \
  } while (0)

/* After a step that may fail on some ranks only: every rank returns the error of the lowest rank that failed
   (its code and message), HC_OK where none did. Collective over comm. */
static inline int hc_mpi_agree(MPI_Comm comm, int ierr) {
  int rank = 0, nranks = 1, e = MPI_Comm_rank(comm, &rank);
  if (e == MPI_SUCCESS) e = MPI_Comm_size(comm, &nranks);
  int mine = ierr ? rank : nranks, first = nranks;
  if (e == MPI_SUCCESS) e = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (e != MPI_SUCCESS) return hc_mpi_error(e, "MPI_Allreduce", __FILE__, __LINE__, __func__);
  if (first == nranks) return HC_OK;
  struct {
    int err;
    char msg[2048];
  } said;
  memset(&said, 0, sizeof(said));
  if (rank == first) {
    said.err = ierr;
    snprintf(said.msg, sizeof(said.msg), "%s", hc_error_message());
  }
  e = MPI_Bcast(&said, (int)sizeof(said), MPI_BYTE, first, comm);
  if (e != MPI_SUCCESS) return hc_mpi_error(e, "MPI_Bcast", __FILE__, __LINE__, __func__);
  return rank == first ? ierr : HC_ERROR(said.err, "%s", said.msg);
}

#ifdef __cplusplus
}
#endif

#endif
