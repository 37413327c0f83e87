/* hexcontract's main: dispatches to the subcommands and maps errors to exit codes. */
#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/hc_app.h"
#include "app/hc_report.h"
#include "hc_config.h"
#include "io/hc_meshfile.h"
#include "kernels/base/hc_mpi.h"

static void hc_print_usage(FILE *out) {
  fprintf(out,
          "hexcontract %s: MPI proxy application for finite-element assembly on hexahedral meshes\n"
          "\n"
          "Usage:\n"
          "  mpirun -np N hexcontract [DECK.yaml] [--set key=value ...]\n"
          "                   the proxy run: mesh, cell data, the nine contractions every step, assembly,\n"
          "                   halo exchange, self-checks, summary and results file (hexcontract run --help;\n"
          "                   deck keys in inputs/README.md). With no deck the defaults run.\n"
          "  hexcontract demo [--backend B] [--cells N]\n"
          "                   the nine contractions on generated arrays on every backend built in, checked\n"
          "                   against the serial reference and timed\n"
          "  hexcontract contract --kernel NAME --left A.npy --right B.npy --out O.npy [options]\n"
          "                   run one contraction on NumPy arrays (see hexcontract contract --help)\n"
          "  hexcontract report DIR [--out DIR2]\n"
          "                   scaling report (tables, efficiency, halo model, plots) from a directory of results\n"
          "                   files (see hexcontract report --help; run_scripts/scaling.sh runs a sweep)\n"
          "  hexcontract bench [--backend B] [--kernel K] [--variant V] [--memory-gb G] [--out DIR] ...\n"
          "                   every kernel x variant at standard shapes against the roofline and the\n"
          "                   vendor libraries (cuBLAS, cuBLASLt)\n"
          "                   (see hexcontract bench --help)\n"
          "  hexcontract --help | --version\n"
          "\n"
          "Backends built into this binary:",
          HC_VERSION);
  for (int i = 0; i < hc_num_backend_names; i++) {
    const hc_backend *b;
    if (hc_backend_find(hc_backend_names[i], &b) == HC_OK) fprintf(out, " %s", b->name);
  }
  hc_error_clear();
  fprintf(out,
          "\n"
          "\n"
          "Exit codes: 0 ran and verified; 1 verification or runtime failure; 2 bad input or usage;\n"
          "3 out of a resource (memory, device).\n");
}

/* --version: the build, every backend built in with the runtime under it, and the MPI library (whose version
   may be asked before MPI_Init). Needs no device. */
static int hc_print_version(void) {
  static const char *const hc_mesh_formats[2] = {"gmsh", "exodus"};
  printf("hexcontract %s (git %s, %s build, %s)\n", HC_VERSION, HC_GIT_REVISION, HC_BUILD_TYPE, HC_C_COMPILER);
  printf("backends:");
  for (int i = 0; i < hc_num_backend_names; i++) {
    const hc_backend *b;
    if (hc_backend_find(hc_backend_names[i], &b) == HC_OK) printf(" %s", b->name);
  }
  printf("\n");
  for (int i = 0; i < hc_num_backend_names; i++) {
    const hc_backend *b;
    char buf[512] = "";
    if (hc_backend_find(hc_backend_names[i], &b) != HC_OK) {
      printf("  %-9s not built into this binary\n", hc_backend_names[i]);
    } else if (b->version(buf, sizeof(buf)) != HC_OK) {
      printf("  %-9s %s\n", b->name, b->description);
    } else {
      printf("  %-9s %s; %s\n", b->name, b->description, buf);
    }
  }
  hc_error_clear();
  printf("mesh readers:");
  int num_readers = 0;
  for (int i = 0; i < 2; i++)
    if (hc_meshfile_reader_info(hc_mesh_formats[i])) printf(" %s", hc_mesh_formats[i]), num_readers++;
  printf("%s\n", num_readers ? "" : " none");
  for (int i = 0; i < 2; i++) {
    const char *info = hc_meshfile_reader_info(hc_mesh_formats[i]);
    if (info) {
      printf("  %-9s %s\n", hc_mesh_formats[i], info);
    } else {
      printf("  %-9s not built into this binary (HC_ENABLE_%s)\n", hc_mesh_formats[i], i == 0 ? "GMSH" : "EXODUS");
    }
  }
  if (HC_HAVE_CUDA) printf("CUDA compiler: %s, architectures %s\n", HC_CUDA_COMPILER, HC_CUDA_ARCHITECTURES);
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  HC_CALL_MPI(MPI_Get_library_version(mpi, &len));
  mpi[strcspn(mpi, "\n")] = '\0';
  printf("MPI: %s\n", mpi);
  return HC_OK;
}

void hc_app_stderr(const char *fmt, ...) {
  fflush(stdout);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fflush(stderr);
}

void hc_app_report_error(int code) {
  if (code == HC_OK) return;
  const char *msg = hc_error_message();
  hc_app_stderr("hexcontract: error: %s\n", msg[0] ? msg : "unknown error");
  if (getenv("HC_DEBUG")) hc_app_stderr("hexcontract: raised at %s\n", hc_error_location());
}

int hc_app_stdout_check(const char *what) {
  errno = 0;
  int failed = fflush(stdout) != 0;
  int why = errno;
  if (!failed && !ferror(stdout)) return 0;
  hc_app_stderr("hexcontract: warning: standard output could not be written (%s): lines of the output were lost; %s\n",
                failed && why ? strerror(why) : "a write failed earlier, e.g. its reader closed it", what);
  return 1;
}

/* A deck is named by its extension, so that a mistyped subcommand is not read as a deck. */
static int hc_looks_like_deck(const char *arg) {
  size_t n = strlen(arg);
  return (n > 5 && strcmp(arg + n - 5, ".yaml") == 0) || (n > 4 && strcmp(arg + n - 4, ".yml") == 0);
}

int main(int argc, char **argv) {
  /* A reader that closes stdout early (hexcontract ... | head -1) must not kill the run before it writes its
     results: writes to it fail with EPIPE instead, and hc_app_stdout_check says so at the end. */
  signal(SIGPIPE, SIG_IGN);
  if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    hc_print_usage(stdout);
    return 0;
  }
  if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
    int err = hc_print_version();
    hc_app_report_error(err);
    return hc_error_exit_code(err);
  }
  int err;
  if (argc >= 2 && strcmp(argv[1], "contract") == 0) {
    err = hc_cmd_contract(argc - 1, argv + 1);
  } else if (argc >= 2 && strcmp(argv[1], "bench") == 0) {
    err = hc_cmd_bench(argc - 1, argv + 1);
  } else if (argc >= 2 && strcmp(argv[1], "demo") == 0) {
    err = hc_cmd_demo(argc - 1, argv + 1);
  } else if (argc >= 2 && strcmp(argv[1], "report") == 0) {
    err = hc_cmd_report(argc - 1, argv + 1);
  } else if (argc >= 2 && strcmp(argv[1], "run") == 0) {
    return hc_main_run(argc - 1, argv + 1);
  } else if (argc < 2 || argv[1][0] == '-' || hc_looks_like_deck(argv[1])) {
    /* No subcommand: the proxy run, with a deck and/or --set options. */
    return hc_main_run(argc, argv);
  } else {
    hc_app_stderr("hexcontract: error: unknown subcommand '%s' (a deck must be a .yaml or .yml file)\n\n", argv[1]);
    hc_print_usage(stderr);
    return 2;
  }
  hc_app_report_error(err);
  hc_app_stdout_check("the files written, if any, are complete");
  return hc_error_exit_code(err);
}
