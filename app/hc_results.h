/* The run's summary on stdout and its YAML results file. */
#ifndef HC_RESULTS_H
#define HC_RESULTS_H

#include "app/hc_run.h"
#include "io/hc_deck.h"
#include "io/hc_yaml_writer.h"

/* Schema of the results file; bumped when a key changes meaning or goes away. */
#define HC_RESULTS_SCHEMA "hexcontract-results/1"

/* Timers and sizes reduced over ranks: min, avg, max. */
typedef struct {
  double min, avg, max;
} hc_stat;

typedef struct {
  hc_stat phase[HC_NUM_PHASES];       /* seconds per timed step */
  hc_stat kernel[HC_NUM_KERNELS];     /* contraction seconds per step */
  hc_stat celldata[HC_NUM_KERNELS];   /* cell-data seconds per step, per kernel */
  hc_stat cells, nodes, owned_nodes;  /* per rank */
  hc_stat halo_bytes, halo_neighbors; /* per rank and exchange */
  int halo_exchanges;                 /* exchanges per step */
  double total_s;                     /* wall time of the timed steps (max over ranks) */
  char *devices;                      /* rank 0: nranks strings of HC_DEVICE_LEN, what each rank ran on */
  char *hosts;                        /* rank 0: nranks host names of HC_DEVICE_LEN */
  int *device_index;                  /* rank 0: each rank's device index (-1: the host) */
  int nranks;
  /* The step's roofline (README.md, section The step's roofline), per rank; only when roofline is nonzero (run.roofline). */
  int roofline;
  hc_stat copy_gbs, h2d_gbs, d2h_gbs; /* measured rates, GB/s (h2d, d2h: device backends) */
  hc_stat peak_gflops, tc_gflops;     /* peak in the run's precision, and on the tensor cores; 0 unknown */
  hc_stat rates_s;                    /* seconds the measurement took */
  hc_stat roof_bytes[HC_NUM_PHASES];  /* compulsory bytes per step */
  hc_stat roof_s[HC_NUM_PHASES];      /* least seconds per step (0 for halo and reduction) */
} hc_results_stats;

#define HC_DEVICE_LEN 256

/* Prints what is about to run (rank 0). */
void hc_results_print_header(const hc_deck *deck, const hc_run_config *cfg);

/* Reduces the run's timers and sizes over ranks and gathers each rank's device. Collective. */
int hc_results_gather(const hc_run *run, hc_results_stats *stats);
void hc_results_stats_free(hc_results_stats *stats);

/* The one-screen summary (rank 0). */
void hc_results_print_summary(const hc_deck *deck, const hc_run *run, const hc_results_stats *stats);

/* Writes the `build` mapping (version, git revision, compilers and flags, OpenMP/CUDA, MPI library) that
   every results and bench file carries. */
int hc_results_write_build(hc_yaml_writer *w);

/* Writes output.dir/output.results atomically (rank 0). */
int hc_results_write(const hc_deck *deck, const hc_run *run, const hc_results_stats *stats);

#endif
