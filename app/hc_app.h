/* The subcommands of the hexcontract executable. */
#ifndef HC_APP_H
#define HC_APP_H

#include "hc_config.h"
#include "kernels/hc_kernels.h"

/* The backend used when none is named. */
#if HC_HAVE_OPENMP
#define HC_DEFAULT_BACKEND "openmp"
#else
#define HC_DEFAULT_BACKEND "serial"
#endif

/* Each runs one subcommand with its own arguments (argv[0] is the subcommand's name) and returns an
   hc_error_code; main maps it to the documented exit code. */
int hc_cmd_contract(int argc, char **argv);
int hc_cmd_demo(int argc, char **argv);
int hc_cmd_bench(int argc, char **argv);

/* The proxy run (argv[0] is the program or "run"): initialises and finalises MPI itself and returns the
   process exit code, having reported any error. */
int hc_main_run(int argc, char **argv);

/* Prints the last error as "hexcontract: error: <message>" on stderr (with its source location
   when HC_DEBUG is set in the environment), after the lines already written to stdout. */
void hc_app_report_error(int code);

/* Writes a message to stderr after flushing stdout, so that it follows the lines it refers to also when
   both streams go to one file or pipe (stdout is buffered there, stderr is not). Every message of the app
   to stderr goes through here. */
void hc_app_stderr(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Flushes stdout and says on stderr when some of it could not be written (closed by its reader, as
   `hexcontract ... | head -1` does, or a full disk): the run goes on without it (SIGPIPE is ignored),
   results files are still written, and the exit code is the run's own. what names where the complete
   results are. Returns 1 when output was lost, 0 otherwise. */
int hc_app_stdout_check(const char *what);

/* Fills entries [begin, end) of data, scalars of a precision, with reproducible pseudo-random values in
   [-1, 1): entry i depends only on (seed, i), so any range can be refilled to exactly what it held. */
void hc_fill_random(hc_precision precision, uint64_t seed, void *data, int64_t begin, int64_t end);

#endif
