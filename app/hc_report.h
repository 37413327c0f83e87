/* hexcontract report: scaling tables, efficiency, a halo traffic model and plots from a directory of results. */
#ifndef HC_REPORT_H
#define HC_REPORT_H

#include <stdint.h>

#include "mesh/hc_partition.h"

/* hexcontract report DIR [--out DIR2] (argv[0] is "report"): reads every *.yaml / *.yml results file
   in DIR (all of schema hexcontract-results/1, one sweep: the same deck but for output keys, one run
   per rank count) and writes report.md, report.csv, report.dat, report.gp and, through gnuplot, the
   PNG plots into DIR2 (default DIR), each atomically. Returns an hc_error_code: HC_ERR_INPUT for bad
   usage, an empty directory, a file of another schema or a mixed sweep. Not collective (no MPI). */
int hc_cmd_report(int argc, char **argv);

/* The halo traffic model: on nranks ranks with the Cartesian partition of hc_partition_grid, the largest
   number of nodal values any rank sends per exchange (a shared node goes once to every neighbour that
   shares it: a face neighbour gets (p*n1+1)(p*n2+1) values, an edge neighbour p*n+1, a corner one 1),
   and the largest neighbour count. cells: global cells (GLOBAL) or cells per rank (PER_RANK); order p.
   HC_ERR_INPUT when no rank grid fits. */
int hc_report_halo_model(hc_sizing sizing, const int64_t cells[3], int order, int nranks, int grid[3],
                         int64_t *max_values, int *max_neighbors);

#endif
