/* The proxy run: configuration, phase timers, checks and the timestep loop. */
#ifndef HC_RUN_H
#define HC_RUN_H

#include <mpi.h>

#include "app/hc_measure.h"
#include "io/hc_deck.h"
#include "io/hc_vtk.h"
#include "kernels/hc_assembly.h"
#include "kernels/hc_basis.h"
#include "kernels/hc_celldata.h"
#include "kernels/hc_kernels.h"
#include "mesh/hc_halo.h"
#include "mesh/hc_mesh.h"

/* Float runs hold cell volumes (w|J| ~ h^3) and box volumes (the checks' sums) in single precision: both must stay
   well inside its normal range, 1.2e-38 to 3.4e38. */
#define HC_RUN_FLOAT_MIN_VOLUME 1e-30
#define HC_RUN_FLOAT_MAX_VOLUME 1e30

/* Everything a run needs to know, taken from the effective deck. */
typedef struct {
  hc_mesh_source mesh_source;           /* mesh.source: the box of `mesh`, or the cells of mesh_file */
  char mesh_file[2048];                 /* mesh.file as the run opens it (hc_deck_mesh_file) */
  hc_partitioner partitioner;           /* a file mesh's partitioner (mesh.partitioner) */
  const hc_mesh_cells *mesh_cells;      /* a file mesh, on rank 0 only: its cells, read before the run (NULL where the
                                           ranks read it in parts: ptscotch with an Exodus II file) */
  const struct hc_meshfile *mesh_whole; /* the file mesh that mesh_cells describes (rank 0) */
  int64_t file_cells;                   /* a file mesh, on rank 0 only: its number of cells */
  int file_geometry_nodes;              /* a file mesh, on rank 0 only: 8 or 27 */
  double file_volume;     /* a file mesh, on rank 0 only: its volume (0 until read where the ranks read it in parts) */
  double file_read_s;     /* a file mesh, on rank 0 only: seconds reading it */
  hc_mesh_params mesh;    /* sizing, cells, length, order, jitter, seed (the box's; order on every mesh) */
  int quadrature;         /* q points per direction; 0: order + 1 */
  double shear_amplitude; /* A of the shear x = X + A sin(2 pi Y/LY) sin(2 pi Z/LZ) sin(omega t) */
  double shear_omega;
  int steps, warmup; /* timed steps, untimed steps before them */
  double dt;
  char backend[32];
  hc_precision precision;
  hc_layout layout;
  int fused;         /* run.assembly: fused (each kernel's output straight from the cells, no inputs stored) */
  int lanes;         /* run.lanes: the device queues a group of fused kernels runs on side by side (1: one queue) */
  int deterministic; /* order-independent global sums */
  int roofline;      /* measure the rates of the step's roofline at start-up */
  double progress_s; /* seconds between progress lines, 0: none */
  int enabled[HC_NUM_KERNELS]; /* kernels run every step */
  hc_variant variant[HC_NUM_KERNELS];
  char variant_where[HC_NUM_KERNELS]
                    [160]; /* where each kernel's variant was set, for messages: "--set ...", "deck:3:5" */
  int checks;              /* run the self-checks */
  int check_every;         /* every N steps; 0: after the last step only */
  int check_samples;       /* cells per rank recomputed by the serial reference */
  double tolerance_factor; /* multiplies every check's tolerance */
  double host_limit_gib, device_limit_gib; /* 0: from the machine */
  int dump_cells;                          /* --dump N: arrays of the first N cells of rank 0, last step */
  char out_dir[1024];                      /* where dumps go (output.dir) */
  int vtk;                                 /* output.vtk: write the ParaView files (io/hc_vtk.h) */
  int vtk_every;                           /* output.vtk_every: timed steps between sets, 0: the last only */
  hc_vtk_names vtk_names;                  /* their file names */
  int gpu_binding;                         /* 1: each rank picks a device by its node-local rank */
  int num_device_ids;                      /* devices to pick from (0: all the node has) */
  int device_ids[HC_DECK_MAX_DEVICE_IDS];  /* gpu.device_ids */
} hc_run_config;

/* Phases of a step, timed separately (seconds summed over the timed steps). */
typedef enum {
  HC_PHASE_CELLDATA = 0, /* mesh motion, geometry, basis transforms, the left/right arrays (empty when fused) */
  HC_PHASE_CONTRACT,     /* the contractions (all kernels; per kernel in kernel_s); when fused, the fused kernels */
  HC_PHASE_TRANSFER,     /* element outputs from the device to the host */
  HC_PHASE_ASSEMBLY,     /* gather/scatter into nodal vectors */
  HC_PHASE_HALO,         /* halo exchange of the nodal vectors */
  HC_PHASE_REDUCTION,    /* global sums of the DataData outputs */
  HC_PHASE_STEP,         /* the whole step */
  HC_NUM_PHASES
} hc_phase;

extern const char *const hc_phase_names[HC_NUM_PHASES];

/* The rates of the step's roofline, measured by every rank at start-up (run.roofline), all at once. */
typedef struct {
  int measured;       /* 0: run.roofline is off and nothing was measured */
  hc_copy_rate copy;  /* the backend's copy kernel (hc_backend.mem_copy) */
  double h2d, d2h;    /* host <-> device copies of pageable host memory, bytes/s (device backends; else 0) */
  double peak, tc;    /* peak flop rate in the run's precision, flops/s, and on the tensor cores (0: unknown) */
  char peak_how[320]; /* where the peak comes from */
  double seconds;     /* what the measurement took */
} hc_roofline_rates;

/* One self-check (app/README.md, section Checks) with its numbers. */
typedef struct {
  char name[48];                     /* "volume", "mass_sum", "zero_row_sum:FieldFieldVector", ... */
  char what[160];                    /* what it compares */
  int step;                          /* step it was last evaluated at */
  double value, expected, tolerance; /* |value - expected| <= tolerance passes */
  int passed;
  int evaluations, failures; /* over the run */
  char hint[256];            /* when it failed: a likely cause in the deck, e.g. too few quadrature points */
} hc_check;

#define HC_MAX_CHECKS 24

/* Global results that must not depend on the rank count (partition independence, app/README.md, section Checks). */
typedef struct {
  double dd_sum[HC_NUM_KERNELS];     /* DataData: sum over cells */
  double nodal_sum[HC_NUM_KERNELS];  /* DataField, FieldField: sum over nodes of the assembled vector */
  double nodal_norm[HC_NUM_KERNELS]; /* ... and its 2-norm */
} hc_run_values;

typedef struct {
  hc_run_config cfg;
  MPI_Comm comm;
  int rank, nranks;
  const hc_backend *be;
  hc_mesh *mesh;
  hc_halo *halo;
  int halo_neighbors; /* ranks this rank exchanges halo values with */
  hc_basis *basis;
  hc_coloring *coloring;
  hc_contract k[HC_NUM_KERNELS];     /* each kernel's problem on this rank */
  hc_variant chosen[HC_NUM_KERNELS]; /* the algorithm each kernel ran (what `auto` chose) */
  int device;                        /* the device this rank uses (-1: the host) */
  int ranks_per_device;              /* ranks of this node per device, the largest (1 when not shared) */
  int ranks_on_node;                 /* ranks of this rank's node */
  void *d_X0;                        /* jittered geometry nodes [C][geometry_nodes][3] double, backend memory */
  void *d_shear;                     /* their shear factors [C][geometry_nodes] (hc_celldata_shear), backend memory;
                                        NULL without the shear */
  void *d_left, *d_right;            /* input arrays, sized for the largest enabled kernel (NULL when fused) */
  hc_geometry_cache *geometry;       /* on a backend with geometry_cache, the points' geometry of a step, filled by its
                                        first cell-data call for the others (hc_run_step hands it on);
                                        NULL elsewhere, when fused, or where it would outgrow the input arrays */
  void *d_out[HC_NUM_KERNELS];       /* element outputs, backend memory */
  void *h_out[HC_NUM_KERNELS];       /* the same on the host (aliases d_out on host backends) */
  void *d_scratch;                   /* a spare output for the checks */
  double *u;                         /* nodal interpolant of a linear function at the current time */
  int device_assembly;               /* the backend's memory is a device's: element outputs and nodal vectors stay
                                        there, only DataData sums and shared nodes cross (hc_backend.is_device) */
  int kernel_lanes;                  /* the most lanes a group of kernels ran on (hc_run_group), 1 for none */
  int dd_copy;                       /* a device's DataData outputs come to the host each step for an exact sum
                                        (run.deterministic); else the backend sums them where they are */
  int32_t *d_cell_nodes;             /* [C][L] node map in the backend's memory (aliases the mesh's on the host) */
  double *d_u;                       /* u in the backend's memory (aliases u on the host) */
  double *d_u0, *d_du;               /* u0 and du there, where the step computes u (aliases on the host) */
  double *d_v;                       /* [C][L] in the backend's memory: FieldField's element apply rows, where the
                                        fused kernels compute them (hc_fused_element), else NULL */
  double *d_y[HC_NUM_KERNELS];       /* assembled nodal vectors in the backend's memory (alias y on the host) */
  double *d_y_block;                 /* on a device, the block that holds every d_y, zeroed once at a step's start */
  size_t d_y_bytes;                  /* its size */
  int fused_into_y[HC_NUM_KERNELS];  /* fused, where the kernel adds into its nodal vector itself (hc_fused_assemble):
                                        no assembly kernel follows it */
  int64_t num_shared;                /* nodes shared with other ranks (device assembly: only these cross) */
  const int32_t *shared;             /* their local ids (borrowed from the halo) */
  int32_t *d_shared;                 /* the same in the backend's memory */
  double *d_shbuf, *h_shbuf;         /* [vectors][num_shared] staging of shared values, device and host */
  double *y[HC_NUM_KERNELS];         /* assembled nodal vectors of DataField and FieldField kernels */
  double *node_x;                    /* [C][L][3] node coordinates (scratch) */
  double *u0, *du;                   /* u at the nodes = u0 + sin(omega t) du: the shear moves the nodes linearly in
                                        sin(omega t), and u is linear in the position */
  double phase_s[HC_NUM_PHASES];
  double kernel_s[HC_NUM_KERNELS];   /* contraction seconds per kernel */
  double celldata_s[HC_NUM_KERNELS]; /* cell-data seconds per kernel */
  double total_s;                    /* wall time of the timed steps, less the VTK output's */
  double mesh_setup_s;               /* wall time building this rank's part of the mesh (a file's: partition,
                                        numbering, dealing out) and its node sharing */
  double vtk_s;                      /* seconds in writing the VTK output, all sets (this rank's) */
  int vtk_sets;                      /* VTK sets written */
  int *vtk_steps;                    /* [vtk_sets] their timed steps (rank 0, for the collection) */
  double *vtk_times;                 /* [vtk_sets] their times */
  double t;                          /* simulated time of the last step */
  int steps_done;
  int stopped_by_signal; /* SIGINT/SIGTERM that stopped the run before its last step, 0: none */
  hc_run_values values;
  hc_check checks[HC_MAX_CHECKS];
  int nchecks;
  double host_bytes, device_bytes; /* the memory estimate of this rank */
  hc_roofline_rates rates;
} hc_run;

/* Runs the whole workload of cfg on comm: mesh, cell data, the timestep loop, checks. Collective.
   On return run holds the timers, checks and values (for the summary and the results file). */
int hc_run_execute(MPI_Comm comm, const hc_run_config *cfg, hc_run *run);

/* Releases what hc_run_execute allocated, setting the pointers it frees to NULL. Collective. */
void hc_run_destroy(hc_run *run);

/* One rank's memory for a run, with the largest block of the decomposition. */
typedef struct {
  double cells;                          /* cells of the largest block */
  double host_bytes, device_bytes;       /* totals (device 0 on host backends) */
  double host_per_cell, device_per_cell; /* the parts that grow with the cells, nodes included */
} hc_memory_estimate;

/* Estimates one rank's host and device memory for cfg on nranks ranks of backend be. */
int hc_run_estimate_memory(const hc_run_config *cfg, int nranks, const hc_backend *be, hc_memory_estimate *est);

#endif
