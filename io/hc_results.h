/* The results file (schema hexcontract-results/1): its keys defined once, the struct they fill, its writer and
   reader, and the CSV row of a run. */
#ifndef HC_RESULTS_H
#define HC_RESULTS_H

#include <stdint.h>

#include "io/hc_deck.h"
#include "io/hc_yaml_writer.h"
#include "kernels/base/hc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Schema of the results file; bumped when a key changes meaning or goes away. */
#define HC_RESULTS_SCHEMA "hexcontract-results/1"

#define HC_RESULTS_NAME_MAX   64
#define HC_RESULTS_STRING_MAX 512

/* Min, average and max of a quantity over ranks; written with its imbalance, max / avg - 1. */
typedef struct {
  double min, avg, max;
} hc_results_stat;

/* The C types of the schema's kinds of value. */
typedef char hc_results_name[HC_RESULTS_NAME_MAX];
typedef char hc_results_string[HC_RESULTS_STRING_MAX];
typedef const char *hc_results_text; /* borrowed; written, never read */
typedef int hc_results_int3[3];
typedef int64_t hc_results_int64_3[3];
typedef double hc_results_double3[3];
#define HC_RESULTS_CTYPE_NAME    hc_results_name
#define HC_RESULTS_CTYPE_STRING  hc_results_string
#define HC_RESULTS_CTYPE_TEXT    hc_results_text
#define HC_RESULTS_CTYPE_INT     int
#define HC_RESULTS_CTYPE_INT64   int64_t
#define HC_RESULTS_CTYPE_DOUBLE  double
#define HC_RESULTS_CTYPE_BOOL    int
#define HC_RESULTS_CTYPE_STAT    hc_results_stat
#define HC_RESULTS_CTYPE_INT3    hc_results_int3
#define HC_RESULTS_CTYPE_INT64_3 hc_results_int64_3
#define HC_RESULTS_CTYPE_DOUBLE3 hc_results_double3

/* The schema, one list per mapping of the file, in file order: X(kind, key, read, when). The key is also the
   struct member. kind: NAME (a short string), STRING, TEXT (a borrowed string, written only), INT, INT64, DOUBLE,
   BOOL, STAT (written with its imbalance), INT3, INT64_3, DOUBLE3 (flow sequences of 3). read says what the reader does
   with it: NO (written only), REQUIRED, OPTIONAL (when present), MEASURE (required, a measured time or rate: finite and
   > 0), POSITIVE (required, an integer >= 1), STEPS (required, the timed steps: an integer 1..1e9), LENIENT (taken when
   present and well-formed), SCHEMA (the schema check). when says when the writer writes it: ALWAYS, SET (a string that
   is not empty), BOX (a run on the generated box), CUDA (a build with CUDA), MEASURED (the roofline was measured),
   DEVICE (measured, on a device backend), MEMORY (a phase on the memory roofline), PERCENT (and its percentage defined,
   not NAN), DATADATA / NODAL (a DataData kernel / the others). */

/* The top of the file. */
#define HC_RESULTS_TOP(X)                                                                                   \
  X(NAME, schema, SCHEMA, ALWAYS)   /* HC_RESULTS_SCHEMA */                                                 \
  X(NAME, status, REQUIRED, ALWAYS) /* passed, failed, or incomplete (stopped by a signal; then a check) */ \
  X(NAME, stopped_by, NO, SET)      /* the signal that stopped an incomplete run */                         \
  X(NAME, date, OPTIONAL, ALWAYS)   /* UTC, ISO 8601 */

/* `build`: how the binary was built, in every results and bench file. */
#define HC_RESULTS_BUILD(X)               \
  X(NAME, version, OPTIONAL, ALWAYS)      \
  X(NAME, git_revision, OPTIONAL, ALWAYS) \
  X(TEXT, build_type, NO, ALWAYS)         \
  X(TEXT, c_compiler, NO, ALWAYS)         \
  X(TEXT, c_flags, NO, ALWAYS)            \
  X(BOOL, openmp, NO, ALWAYS)             \
  X(BOOL, cuda, NO, ALWAYS)               \
  X(BOOL, intrepid2, NO, ALWAYS)          \
  X(TEXT, cuda_compiler, NO, CUDA)        \
  X(TEXT, cuda_architectures, NO, CUDA)   \
  X(TEXT, mpi_library, NO, ALWAYS) /* its first line */

/* `decomposition`: the mesh over the ranks; per rank: cells, nodes, halo bytes and neighbours per exchange. */
#define HC_RESULTS_DECOMPOSITION(X)                                                                                 \
  X(INT, ranks, POSITIVE, ALWAYS)                                                                                   \
  X(NAME, mesh_source, OPTIONAL, ALWAYS)   /* box or file (absent in files before 0.1.1: box) */                    \
  X(STRING, mesh_file, OPTIONAL, SET)      /* the mesh file, as the run opened it */                                \
  X(NAME, partitioner, OPTIONAL, ALWAYS)   /* cartesian (the box) or metis */                                       \
  X(INT, geometry_nodes, OPTIONAL, ALWAYS) /* 8 (trilinear cells) or 27 (triquadratic) */                           \
  X(INT3, rank_grid, OPTIONAL, BOX)                                                                                 \
  X(INT64_3, global_cells, OPTIONAL, BOX)                                                                           \
  X(DOUBLE3, length, NO, ALWAYS)                  /* a file mesh: its bounding box's */                             \
  X(DOUBLE, volume, OPTIONAL, ALWAYS)             /* the undeformed mesh's */                                       \
  X(INT64, edge_cut, OPTIONAL, ALWAYS)            /* faces between cells of different ranks */                      \
  X(DOUBLE, mesh_read_seconds, OPTIONAL, ALWAYS)  /* rank 0 reading the mesh file (0 for the box) */                \
  X(DOUBLE, mesh_setup_seconds, OPTIONAL, ALWAYS) /* building the ranks' parts and their sharing, max over ranks */ \
  X(INT64, num_global_cells, REQUIRED, ALWAYS)                                                                      \
  X(INT64, num_global_nodes, REQUIRED, ALWAYS)                                                                      \
  X(STAT, cells_per_rank, REQUIRED, ALWAYS)                                                                         \
  X(STAT, nodes_per_rank, REQUIRED, ALWAYS)                                                                         \
  X(STAT, halo_bytes_per_exchange, REQUIRED, ALWAYS)                                                                \
  X(STAT, halo_neighbors, REQUIRED, ALWAYS)                                                                         \
  X(STAT, shared_nodes_per_rank, OPTIONAL, ALWAYS)                                                                  \
  X(INT, halo_exchanges_per_step, REQUIRED, ALWAYS) /* nodal vectors exchanged per step */

/* Each item of the `ranks` sequence: where the rank ran. */
#define HC_RESULTS_RANK(X)           \
  X(INT, rank, NO, ALWAYS)           \
  X(STRING, host, LENIENT, ALWAYS)   \
  X(STRING, device, LENIENT, ALWAYS) \
  X(INT, device_index, LENIENT, ALWAYS) /* -1: the host */

/* `timers`, then one STAT per phase (hc_results.phases), seconds per timed step over ranks. */
#define HC_RESULTS_TIMERS(X)                                                                            \
  X(TEXT, unit, NO, ALWAYS)                                                                             \
  X(INT, timed_steps, STEPS, ALWAYS)                                                                    \
  X(DOUBLE, total_seconds, MEASURE, ALWAYS) /* wall time of the timed steps, max over ranks */          \
  X(INT, kernel_lanes, OPTIONAL, ALWAYS)    /* queues a group of kernels ran on side by side (run.lanes \
                                               where a fork ran, else 1; absent in older files: 1) */

/* Each enabled kernel in `kernels`, by name: seconds per step over ranks; cost and rates on the whole mesh. */
#define HC_RESULTS_KERNEL(X)            \
  X(NAME, variant, NO, ALWAYS)          \
  X(NAME, chosen_variant, NO, ALWAYS)   \
  X(STAT, contract_seconds, NO, ALWAYS) \
  X(STAT, celldata_seconds, NO, ALWAYS) \
  X(DOUBLE, flops_per_step, NO, ALWAYS) \
  X(DOUBLE, bytes_per_step, NO, ALWAYS) \
  X(DOUBLE, gflops, NO, ALWAYS)         \
  X(DOUBLE, gbytes_per_second, NO, ALWAYS)

/* `roofline` (README.md, section The step's roofline): the rates measured at start-up, per rank over ranks. */
#define HC_RESULTS_ROOFLINE(X)                                               \
  X(BOOL, measured, OPTIONAL, ALWAYS)                                        \
  X(STAT, copy_gbytes_per_second, NO, MEASURED)                              \
  X(DOUBLE, copy_bytes_per_call, NO, MEASURED)                               \
  X(INT64, copy_calls, NO, MEASURED)                                         \
  X(STAT, host_to_device_gbytes_per_second, NO, DEVICE)                      \
  X(STAT, device_to_host_gbytes_per_second, NO, DEVICE)                      \
  X(STAT, peak_gflops, NO, MEASURED) /* in the run's precision; 0 unknown */ \
  X(STAT, tensor_core_peak_gflops, NO, DEVICE)                               \
  X(STRING, peak_how, NO, MEASURED)                                          \
  X(STAT, measure_seconds, NO, MEASURED)

/* Each phase, the step last, in `roofline.phases` (averages over ranks). */
#define HC_RESULTS_ROOFLINE_PHASE(X)                                                                 \
  X(DOUBLE, bytes_per_step, NO, ALWAYS) /* compulsory */                                             \
  X(BOOL, memory_bound, NO, ALWAYS)     /* halo and reduction are messages, on no memory roofline */ \
  X(DOUBLE, measured_seconds, NO, ALWAYS)                                                            \
  X(DOUBLE, roofline_seconds, NO, MEMORY)                                                            \
  X(DOUBLE, percent, OPTIONAL, PERCENT) /* roofline over measured seconds; NAN: undefined */

/* `figures_of_merit`, on the whole mesh, from the slowest rank's step. */
#define HC_RESULTS_FIGURES(X)                       \
  X(DOUBLE, cell_steps_per_second, MEASURE, ALWAYS) \
  X(DOUBLE, node_steps_per_second, MEASURE, ALWAYS) \
  X(DOUBLE, seconds_per_step, MEASURE, ALWAYS)

/* Each self-check in `checks`, by name (app/README.md, section Checks): the worst evaluation. */
#define HC_RESULTS_CHECK(X)              \
  X(STRING, what, NO, ALWAYS)            \
  X(BOOL, passed, OPTIONAL, ALWAYS)      \
  X(DOUBLE, value, OPTIONAL, ALWAYS)     \
  X(DOUBLE, expected, OPTIONAL, ALWAYS)  \
  X(DOUBLE, tolerance, OPTIONAL, ALWAYS) \
  X(INT, step, NO, ALWAYS)               \
  X(INT, evaluations, NO, ALWAYS)        \
  X(INT, failures, NO, ALWAYS)           \
  X(STRING, hint, NO, SET) /* when it failed: a likely cause */

/* `values`: the time reached, then each enabled kernel's global results (hc_results.values). */
#define HC_RESULTS_VALUES(X) X(DOUBLE, time, NO, ALWAYS)

#define HC_RESULTS_VALUE(X)       \
  X(DOUBLE, sum, NO, DATADATA)    \
  X(DOUBLE, nodal_sum, NO, NODAL) \
  X(DOUBLE, nodal_norm, NO, NODAL)

#define HC_RESULTS_MEMBER(kind, key, read, when) HC_RESULTS_CTYPE_##kind key;

typedef struct {
  HC_RESULTS_BUILD(HC_RESULTS_MEMBER)
} hc_results_build;

/* One leaf of the deck, flattened by the reader: "mesh.cells" -> "[6, 6, 6]", "run.steps" -> "3". */
typedef struct {
  char key[128];
  char value[256]; /* a sequence or mapping is written back in flow style */
  int line;        /* 1-based line in the file */
} hc_results_entry;

typedef struct {
  HC_RESULTS_RANK(HC_RESULTS_MEMBER)
} hc_results_rank;

typedef struct {
  char name[32];
  hc_results_stat s; /* seconds per timed step */
} hc_results_phase;

typedef struct {
  char name[64];
  HC_RESULTS_KERNEL(HC_RESULTS_MEMBER)
} hc_results_kernel;

typedef struct {
  char name[32];
  HC_RESULTS_ROOFLINE_PHASE(HC_RESULTS_MEMBER)
} hc_results_roofline_phase;

typedef struct {
  int device; /* a device backend (not a key) */
  HC_RESULTS_ROOFLINE(HC_RESULTS_MEMBER)
  hc_results_roofline_phase *phases; /* [num_phases], owned */
  int num_phases;
} hc_results_roofline;

typedef struct {
  char name[64];
  HC_RESULTS_CHECK(HC_RESULTS_MEMBER)
} hc_results_check;

typedef struct {
  char name[64];
  int datadata; /* a DataData kernel (not a key) */
  HC_RESULTS_VALUE(HC_RESULTS_MEMBER)
} hc_results_value;

/* What ran, for the CSV row: not keys of the file (its deck holds what was asked). */
typedef struct {
  const char *backend, *precision, *layout, *sizing; /* borrowed */
  int order, quadrature;
} hc_results_run;

/* A results file in memory. The writer's caller fills it (arrays allocated with malloc: hc_results_destroy frees
   them); the reader fills what reports need (read != NO above, the deck flattened), and leaves the rest zero. */
typedef struct {
  char path[4096]; /* the file read */
  HC_RESULTS_TOP(HC_RESULTS_MEMBER)
  hc_results_build build;
  hc_results_entry *deck; /* [num_deck], read; the writer writes the hc_deck it is given */
  int num_deck;
  HC_RESULTS_DECOMPOSITION(HC_RESULTS_MEMBER)
  hc_results_rank *rank_info; /* [num_rank_info], normally [ranks]: the `ranks` sequence */
  int num_rank_info;
  HC_RESULTS_TIMERS(HC_RESULTS_MEMBER)
  hc_results_phase *phases; /* [num_phases], in file order (celldata, contract, ..., step) */
  int num_phases;
  hc_results_kernel *kernels; /* [num_kernels], the enabled ones; written, not read */
  int num_kernels;
  hc_results_roofline roofline; /* optional: absent from files written before it */
  HC_RESULTS_FIGURES(HC_RESULTS_MEMBER)
  hc_results_check *checks; /* [num_checks] */
  int num_checks;
  HC_RESULTS_VALUES(HC_RESULTS_MEMBER)
  hc_results_value *values; /* [num_values], the enabled kernels; written, not read */
  int num_values;
  hc_results_run run; /* written into the CSV row only */
} hc_results;

/* An empty results struct: schema HC_RESULTS_SCHEMA, the timers' unit, no arrays. */
int hc_results_create(hc_results **res);

/* Frees res and its arrays; accepts NULL and *res == NULL, sets *res to NULL. */
void hc_results_destroy(hc_results **res);

/* Writes res as the results document (one mapping) with the deck under `deck`. Not collective. */
int hc_results_write(hc_yaml_writer *w, const hc_deck *deck, const hc_results *res);

/* Writes the `build` mapping (version, git revision, compilers and flags, OpenMP/CUDA, MPI library) that every
   results and bench file carries. Not collective. */
int hc_results_write_build(hc_yaml_writer *w);

/* Appends res's row to deck's output.csv (a header first when the file is new or empty), by rewriting the file
   to a temporary one and renaming it, so a reader never sees half a row. A symbolic link is followed: the row
   goes to the file it points to, and the link stays. Not collective. */
int hc_results_append_csv(const hc_deck *deck, const hc_results *res);

/* Reads path. A file that is not YAML, has no `schema` key or another schema than HC_RESULTS_SCHEMA, or lacks
   a key the report needs is HC_ERR_INPUT with a message that names the file (and line:column where there is
   one). Not collective. */
int hc_results_read(const char *path, hc_results **res);

/* The deck entry of a dotted key ("mesh.sizing"), NULL when absent. */
const hc_results_entry *hc_results_deck_entry(const hc_results *res, const char *key);

/* The timer of a phase by name ("halo", "step"), NULL when absent. */
const hc_results_stat *hc_results_phase_stat(const hc_results *res, const char *name);

/* Seconds per step of the contractions, for their GB/s and GFLOP/s: the sum of the kernels' contract_seconds.max,
   or, where the kernels ran side by side (kernel_lanes above 1) and their times overlap, the contract phase's max. */
double hc_results_contract_seconds(const hc_results *res);

/* A phase's percentage of its roofline ("step"); NAN when the file has none. */
double hc_results_roofline_percent(const hc_results *res, const char *phase);

#ifdef __cplusplus
}
#endif

#endif
