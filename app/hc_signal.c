/* SIGINT and SIGTERM during the proxy run: a flag set by the handler, agreed on over the ranks once per step. */
#define _POSIX_C_SOURCE 200809L
#include "app/hc_signal.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "kernels/base/hc_error.h"
#include "kernels/base/hc_mpi.h"

/* The last signal caught, 0 when none: written only by the handler, read at step boundaries. */
static volatile sig_atomic_t hc_signal_caught;

static void hc_signal_handler(int signo) {
  hc_signal_caught = signo;
}

int hc_signal_catch(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = hc_signal_handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART; /* MPI and file calls carry on; the loop looks at the flag between steps */
  HC_CHECK(sigaction(SIGINT, &sa, NULL) == 0 && sigaction(SIGTERM, &sa, NULL) == 0, HC_ERR_RUNTIME,
           "cannot install the SIGINT/SIGTERM handler");
  return HC_OK;
}

void hc_signal_release(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int hc_signal_agree(MPI_Comm comm, int *signo) {
  int local = hc_signal_caught;
  HC_CALL_MPI(MPI_Allreduce(&local, signo, 1, MPI_INT, MPI_MAX, comm));
  return HC_OK;
}

const char *hc_signal_name(int signo) {
  static char buf[32];
  if (signo == SIGINT) return "SIGINT";
  if (signo == SIGTERM) return "SIGTERM";
  snprintf(buf, sizeof(buf), "signal %d", signo);
  return buf;
}
