/* The input deck: every setting of a run, its defaults, the YAML reader, --set overrides and the writer. */
#ifndef HC_DECK_H
#define HC_DECK_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/hc_yaml_writer.h"
#include "kernels/hc_kernels.h"
#include "mesh/hc_partition.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HC_DECK_PATH_MAX       1024    /* bytes of the deck path and output.dir, with the terminating NUL */
#define HC_DECK_NAME_MAX       256     /* bytes of output.results, with the terminating NUL */
#define HC_DECK_BACKEND_MAX    32      /* bytes of run.backend, with the terminating NUL */
#define HC_DECK_MAX_DEVICE_IDS 64      /* entries of gpu.device_ids */
#define HC_DECK_SET_MAX        128     /* bytes of a --set option kept to say where a key was set */
#define HC_DECK_MAX_CELLS      1000000 /* cells per direction: keeps every count and estimate far from overflow */
#define HC_DECK_MAX_QUADRATURE 10
/* mesh.length and mesh.shear.amplitude: 1e-9..1e9 keeps every coordinate, Jacobian and its determinant
   finite and normal in double precision (float runs are checked for their cell and box volumes). */
#define HC_DECK_MIN_LENGTH 1e-9
#define HC_DECK_MAX_LENGTH 1e9
/* run.dt and |mesh.shear.omega|: keeps the time and the shear's phase finite. */
#define HC_DECK_MAX_RATE 1e9

/* kernels.variants entry of a kernel without an override: it runs kernels.variant. */
#define HC_DECK_VARIANT_INHERIT (-1)

/* gpu.binding: which GPU a rank takes. */
typedef enum { HC_DECK_BINDING_NODE_LOCAL = 0, HC_DECK_BINDING_NONE = 1 } hc_deck_binding;

/* run.assembly: how each step computes the kernels' outputs: cell data stored, then contracted
   (materialized), or formed per cell and contracted at once, storing no input array (fused). */
typedef enum { HC_DECK_ASSEMBLY_MATERIALIZED = 0, HC_DECK_ASSEMBLY_FUSED = 1 } hc_deck_assembly;

/* Where a key's value came from. */
typedef enum { HC_DECK_FROM_DEFAULT = 0, HC_DECK_FROM_FILE = 1, HC_DECK_FROM_SET = 2 } hc_deck_source;

typedef struct {
  hc_deck_source source;
  int line, column;          /* 1-based position of the value in the deck file (HC_DECK_FROM_FILE) */
  char set[HC_DECK_SET_MAX]; /* the --set option, possibly truncated (HC_DECK_FROM_SET) */
} hc_deck_origin;

/* Keys, in the order the reader documents and the writer emits them (see inputs/README.md). */
/* mesh.partitioner: how the cells are dealt to the ranks; auto is cartesian for the box, metis for a file. */
typedef enum {
  HC_DECK_PARTITIONER_AUTO = 0,
  HC_DECK_PARTITIONER_CARTESIAN = 1,
  HC_DECK_PARTITIONER_METIS = 2,
  HC_DECK_PARTITIONER_PTSCOTCH = 3
} hc_deck_partitioner;

typedef enum {
  HC_DECK_MESH_SOURCE = 0,
  HC_DECK_MESH_FILE,
  HC_DECK_MESH_PARTITIONER,
  HC_DECK_MESH_CELLS,
  HC_DECK_MESH_SIZING,
  HC_DECK_MESH_LENGTH,
  HC_DECK_MESH_ORDER,
  HC_DECK_MESH_QUADRATURE,
  HC_DECK_MESH_JITTER,
  HC_DECK_MESH_SEED,
  HC_DECK_MESH_SHEAR_AMPLITUDE,
  HC_DECK_MESH_SHEAR_OMEGA,
  HC_DECK_RUN_STEPS,
  HC_DECK_RUN_WARMUP,
  HC_DECK_RUN_DT,
  HC_DECK_RUN_BACKEND,
  HC_DECK_RUN_PRECISION,
  HC_DECK_RUN_LAYOUT,
  HC_DECK_RUN_ASSEMBLY,
  HC_DECK_RUN_LANES,
  HC_DECK_RUN_DETERMINISTIC,
  HC_DECK_RUN_PROGRESS,
  HC_DECK_RUN_ROOFLINE,
  HC_DECK_KERNELS_ENABLED,
  HC_DECK_KERNELS_VARIANT,
  HC_DECK_KERNELS_VARIANTS,
  HC_DECK_CHECKS_ENABLED,
  HC_DECK_CHECKS_EVERY,
  HC_DECK_CHECKS_SAMPLES,
  HC_DECK_CHECKS_TOLERANCE_FACTOR,
  HC_DECK_OUTPUT_DIR,
  HC_DECK_OUTPUT_RESULTS,
  HC_DECK_OUTPUT_SUMMARY,
  HC_DECK_OUTPUT_CSV,
  HC_DECK_OUTPUT_VTK,
  HC_DECK_OUTPUT_VTK_EVERY,
  HC_DECK_MEMORY_HOST_LIMIT_GIB,
  HC_DECK_MEMORY_DEVICE_LIMIT_GIB,
  HC_DECK_GPU_BINDING,
  HC_DECK_GPU_DEVICE_IDS,
  HC_DECK_GPU_CUDA_AWARE_MPI,
  HC_DECK_NUM_KEYS
} hc_deck_key;

typedef struct {
  hc_mesh_source source;           /* mesh.source: box or file */
  char file[HC_DECK_PATH_MAX];     /* mesh.file: the mesh file, relative to the deck's directory ("" = none) */
  hc_deck_partitioner partitioner; /* mesh.partitioner */
  int64_t cells[3];                /* mesh.cells: NX, NY, NZ, of the box (global) or of each rank's block (per-rank) */
  hc_sizing sizing;                /* mesh.sizing */
  double length[3];                /* mesh.length: LX, LY, LZ, of the box (global) or of each rank's block (per-rank) */
  int order;                       /* mesh.order: p = 1..4 */
  int quadrature;                  /* mesh.quadrature: q points per direction, 0 = order + 1 (see hc_deck_quadrature) */
  double jitter;                   /* mesh.jitter: a fraction of the cell size, 0 <= jitter < HC_MESH_JITTER_MAX */
  int64_t seed;                    /* mesh.seed: seed of the jitter hash */
  double shear_amplitude;          /* mesh.shear.amplitude: A, in units of length */
  double shear_omega;              /* mesh.shear.omega: omega, radians per unit time */
} hc_deck_mesh;

typedef struct {
  int steps;                         /* run.steps: timed steps */
  int warmup;                        /* run.warmup: untimed steps before them */
  double dt;                         /* run.dt: time step */
  char backend[HC_DECK_BACKEND_MAX]; /* run.backend: one of hc_backend_names (built or not) */
  hc_precision precision;            /* run.precision */
  hc_layout layout;                  /* run.layout */
  hc_deck_assembly assembly;         /* run.assembly */
  int lanes;                         /* run.lanes: device queues side by side for a group of fused kernels */
  bool deterministic;                /* run.deterministic: bitwise reproducible reductions and assembly */
  double progress;                   /* run.progress: seconds between progress lines, 0 = none */
  bool roofline; /* run.roofline: measure the copy bandwidth at start-up, report the step's roofline */
} hc_deck_run;

typedef struct {
  bool enabled[HC_NUM_KERNELS]; /* kernels.enabled, by hc_kernel */
  hc_variant variant;           /* kernels.variant */
  int variants[HC_NUM_KERNELS]; /* kernels.variants: an hc_variant, or HC_DECK_VARIANT_INHERIT */
} hc_deck_kernels;

typedef struct {
  bool enabled;            /* checks.enabled */
  int every;               /* checks.every: steps between checks, 0 = at the end only */
  int samples;             /* checks.samples: cells recomputed on the host for the device check, 0 = none */
  double tolerance_factor; /* checks.tolerance_factor: multiplies every per-precision tolerance */
} hc_deck_checks;

typedef struct {
  char dir[HC_DECK_PATH_MAX];     /* output.dir */
  char results[HC_DECK_NAME_MAX]; /* output.results: file name inside output.dir */
  bool summary;                   /* output.summary */
  char csv[HC_DECK_PATH_MAX];     /* output.csv: file a CSV row per run is appended to, "" = none */
  bool vtk;                       /* output.vtk: write ParaView files of the mesh and nodal vectors (io/hc_vtk.h) */
  int vtk_every;                  /* output.vtk_every: timed steps between VTK sets, 0 = the last step only */
} hc_deck_output;

typedef struct {
  double host_limit_gib;   /* memory.host_limit_gib: per rank, 0 = detect */
  double device_limit_gib; /* memory.device_limit_gib: per rank, 0 = detect */
} hc_deck_memory;

typedef struct {
  hc_deck_binding binding;                /* gpu.binding */
  int num_device_ids;                     /* entries of device_ids; 0 = by node-local rank */
  int device_ids[HC_DECK_MAX_DEVICE_IDS]; /* gpu.device_ids */
  bool cuda_aware_mpi;                    /* gpu.cuda_aware_mpi */
} hc_deck_gpu;

/* Every setting of a run. Plain data without pointers: it is broadcast as MPI_BYTE. */
typedef struct {
  hc_deck_mesh mesh;
  hc_deck_run run;
  hc_deck_kernels kernels;
  hc_deck_checks checks;
  hc_deck_output output;
  hc_deck_memory memory;
  hc_deck_gpu gpu;
  char path[HC_DECK_PATH_MAX];                   /* the deck file as given, "" when none */
  hc_deck_origin origin[HC_DECK_NUM_KEYS];       /* where each key was set */
  hc_deck_origin variant_origin[HC_NUM_KERNELS]; /* where each kernels.variants entry was set */
} hc_deck;

/* Fills deck with the defaults of every key (inputs/README.md). */
void hc_deck_init(hc_deck *deck);

/* Reads the deck at path over the defaults. Not collective. Every problem (missing or unreadable
   file, malformed YAML, unknown or duplicate key, wrong type, value out of range) is HC_ERR_INPUT
   with one message "path:line:column: key must be <expected>, got <found>". On error *deck is
   partly filled. */
int hc_deck_parse_file(const char *path, hc_deck *deck);

/* The same for a deck held in memory (len bytes of text); name stands for the path in messages. */
int hc_deck_parse_string(const char *name, const char *text, size_t len, hc_deck *deck);

/* Applies one `key=value` override on top of deck. value is read as a YAML scalar; a list key takes
   `1,2,3` or `[1,2,3]`; kernels.variants.NAME=VARIANT sets one override. Errors are HC_ERR_INPUT
   and start with the option: "--set mesh.order=7: mesh.order must be 1..4, got 7". Not collective. */
int hc_deck_apply_set(hc_deck *deck, const char *set);

/* MPI-collective over comm: rank 0 reads path (NULL: no deck, defaults only), applies the nset
   overrides in sets[] in order (only rank 0's are read) and broadcasts the deck or the error. Every
   rank returns the same code; on error each has the same message in hc_error_message(). */
int hc_deck_load(MPI_Comm comm, const char *path, int nset, char *const *sets, hc_deck *deck);

/* Writes the effective deck, every key included, as a mapping: as the entry `key:` of the mapping
   being written, or (key NULL) as the document's root or a sequence item. Read back with
   hc_deck_parse_file it gives the same values (hc_deck_equal). Not collective. */
int hc_deck_write(hc_yaml_writer *w, const char *key, const hc_deck *deck);

/* Whether a and b hold the same values for every key (where they were set is not compared). */
bool hc_deck_equal(const hc_deck *a, const hc_deck *b);

/* Formats where key (dotted, as in the deck: "mesh.cells", "kernels.variants.FieldFieldTensor")
   was set into buf: "inputs/weak.yaml:12:10", "--set mesh.cells=64,64,64" or "default". An
   unknown key is HC_ERR_INPUT. */
int hc_deck_where(const hc_deck *deck, const char *key, char *buf, size_t n);

/* Raises an error (as HC_ERROR does) whose message starts with where key was set, for checks made
   after reading, e.g. HC_DECK_ERROR(deck, "mesh.cells", HC_ERR_RESOURCE, "needs %.1f GiB", x) gives
   "inputs/strong.yaml:3:10: mesh.cells: needs 12.0 GiB". Returns code. */
int hc_deck_error_set(const hc_deck *deck, const char *key, int code, const char *file, int line, const char *func,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;
#define HC_DECK_ERROR(deck, key, code, ...) \
  hc_deck_error_set((deck), (key), (code), __FILE__, __LINE__, __func__, __VA_ARGS__)

/* The dotted name of a key ("mesh.cells"). */
const char *hc_deck_key_name(hc_deck_key key);

/* The quadrature points per direction the run uses: mesh.quadrature, or order + 1 when it is 0. */
int hc_deck_quadrature(const hc_deck *deck);

/* The results file's path: output.results itself when it is an absolute path, else
   output.dir/output.results. buf holds HC_DECK_PATH_MAX + HC_DECK_NAME_MAX + 2 bytes. */
void hc_deck_results_path(const hc_deck *deck, char *buf, size_t n);

/* The mesh file's path as the run opens it: mesh.file as given when absolute, or set with --set or without a
   deck; else relative to the directory of the deck that set it. buf holds 2 * HC_DECK_PATH_MAX bytes. */
void hc_deck_mesh_file(const hc_deck *deck, char *buf, size_t n);

/* The variant kernel runs: its kernels.variants entry, else kernels.variant. */
hc_variant hc_deck_variant(const hc_deck *deck, hc_kernel kernel);

#ifdef __cplusplus
}
#endif

#endif
