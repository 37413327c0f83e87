/* The run's results: its timers and sizes gathered over ranks into the results file's struct (io/hc_results.h), the
   one-screen summary, and the results and CSV files written. */
#ifndef HC_RUN_RESULTS_H
#define HC_RUN_RESULTS_H

#include "app/hc_run.h"
#include "io/hc_deck.h"
#include "io/hc_results.h"

/* Prints what is about to run on nranks ranks (rank 0). */
void hc_run_print_header(const hc_deck *deck, const hc_run_config *cfg, int nranks);

/* Fills res (from hc_results_create) with the run: timers and sizes reduced over ranks, each rank's host and device
   (rank 0 only), the kernels' costs, the roofline, the checks and values. Collective. */
int hc_run_results_gather(const hc_run *run, hc_results *res);

/* The one-screen summary (rank 0). */
void hc_run_print_summary(const hc_deck *deck, const hc_run *run, const hc_results *res);

/* Dates res, appends its row to output.csv (when set) and writes output.dir/output.results atomically (rank 0). */
int hc_run_results_write(const hc_deck *deck, const hc_run *run, hc_results *res);

#endif
