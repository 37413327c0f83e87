/* Reads a results file (schema hexcontract-results/1) back into memory, for reports and comparisons. */
#ifndef HC_RESULTS_READ_H
#define HC_RESULTS_READ_H

#include <stdint.h>

#include "kernels/hc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The schema this reader understands (the one app/hc_results.h writes). */
#define HC_RESULTS_READ_SCHEMA "hexcontract-results/1"

/* Min, average and max of a quantity over ranks. */
typedef struct {
  double min, avg, max;
} hc_results_stat;

/* One leaf of the deck, flattened: "mesh.cells" -> "[6, 6, 6]", "run.steps" -> "3". */
typedef struct {
  char key[128];
  char value[256]; /* a sequence or mapping is written back in flow style */
  int line;        /* 1-based line in the file */
} hc_results_entry;

typedef struct {
  char name[32];
  hc_results_stat s; /* seconds per timed step */
} hc_results_phase;

typedef struct {
  char name[64];
  int passed;
  double value, expected, tolerance;
} hc_results_check;

typedef struct {
  char host[256];
  char device[256];
  int device_index; /* -1: the host */
} hc_results_rank;

typedef struct {
  char path[4096];
  char schema[64], status[16], date[40], version[40], git_revision[64];
  hc_results_entry *deck; /* [num_deck] */
  int num_deck;
  /* decomposition */
  int ranks;
  int rank_grid[3];
  int64_t global_cells[3];
  int64_t num_global_cells, num_global_nodes;
  hc_results_stat cells_per_rank, nodes_per_rank, halo_bytes_per_exchange, halo_neighbors;
  int halo_exchanges_per_step;
  hc_results_rank *rank_info; /* [num_rank_info], normally [ranks] */
  int num_rank_info;
  /* timers, in file order (celldata, contract, ..., step) */
  int timed_steps;
  double total_seconds;
  hc_results_phase *phases; /* [num_phases] */
  int num_phases;
  /* figures of merit */
  double cell_steps_per_second, node_steps_per_second, seconds_per_step;
  hc_results_check *checks; /* [num_checks] */
  int num_checks;
  /* the step's roofline (optional: absent from files of runs with run.roofline off, and older ones) */
  int roofline;                 /* roofline.measured */
  double roofline_step_percent; /* roofline.phases.step.percent; NAN when absent */
} hc_results_file;

/* Reads path. A file that is not YAML, has no `schema` key or another schema than
   HC_RESULTS_READ_SCHEMA, or lacks a key the report needs is HC_ERR_INPUT with a message that names
   the file (and line:column where there is one). Not collective. */
int hc_results_read(const char *path, hc_results_file **res);

/* Frees a file read by hc_results_read; accepts NULL and *res == NULL, sets *res to NULL. */
void hc_results_file_destroy(hc_results_file **res);

/* The deck entry of a dotted key ("mesh.sizing"), NULL when absent. */
const hc_results_entry *hc_results_deck_entry(const hc_results_file *res, const char *key);

/* The timer of a phase by name ("halo", "step"), NULL when absent. */
const hc_results_stat *hc_results_phase_stat(const hc_results_file *res, const char *name);

#ifdef __cplusplus
}
#endif

#endif
