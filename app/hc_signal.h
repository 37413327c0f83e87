/* SIGINT and SIGTERM during the proxy run: caught, agreed on by every rank, acted on at a step boundary. */
#ifndef HC_SIGNAL_H
#define HC_SIGNAL_H

#include <mpi.h>

/* Catches SIGINT and SIGTERM: the handler only records the signal (async-signal-safe). */
int hc_signal_catch(void);

/* Restores the default action of SIGINT and SIGTERM (a later signal ends the process at once). */
void hc_signal_release(void);

/* Whether any rank of comm has caught a signal: the largest signal number caught, 0 when none. Collective
   (one MPI_Allreduce of an int), so that every rank stops at the same step. */
int hc_signal_agree(MPI_Comm comm, int *signo);

/* "SIGINT", "SIGTERM" or "signal N" (a static string: not thread-safe for other signals). */
const char *hc_signal_name(int signo);

#endif
