/* hexcontract bench: every kernel x variant at standard shapes against the device's roofline (its
   measured copy bandwidth and its peak flop rate) and against the vendor libraries. Shared by the runner
   (cmd_bench.c) and the report writers (bench_report.c). */
#ifndef HC_BENCH_H
#define HC_BENCH_H

#include <stdint.h>

#include "io/hc_yaml_writer.h"
#include "kernels/hc_kernels.h"

#define HC_BENCH_MAX_SHAPES 16
#define HC_BENCH_REASON_LEN 320
#define HC_BENCH_HOW_LEN    320
/* A row above this % of its roofline, even at the larger of the two copy bandwidths (measured at the start
   and at the end of the run), is flagged: the roofline model does not hold for it. */
#define HC_BENCH_ABOVE_ROOF_PCT 115.0
/* A small-call (call-overhead) case whose work takes at least this share of its time is named by what
   bounds that work (compute or memory), not as a call overhead. */
#define HC_BENCH_WORK_SHARE 0.5

typedef struct {
  const char *backend;
  int kernel[HC_NUM_KERNELS];   /* 1: benchmarked */
  int variant[HC_NUM_VARIANTS]; /* 1: asked for (those the backend does not support are listed as skipped) */
  int precision[2];             /* indexed by hc_precision */
  int layout[2];                /* indexed by hc_layout */
  int nshapes;
  int shape_L[HC_BENCH_MAX_SHAPES]; /* (L, P) pairs; R = L, D = 3 */
  int shape_P[HC_BENCH_MAX_SHAPES];
  double memory_gb; /* the arrays of each case fill this many GB (1e9 bytes) */
  int repeat;       /* timed calls per variant (fewer when one call takes long) */
  const char *out;  /* output directory */
  int64_t cells;    /* > 0: every case has this many cells instead of filling the budget */
  int no_intrepid2; /* --no-intrepid2: a CPU backend's cases are not also timed with Intrepid2 */
} hc_bench_options;

typedef enum { HC_BENCH_RAN = 0, HC_BENCH_SKIPPED = 1, HC_BENCH_FAILED = 2 } hc_bench_status;

/* One variant on one case. */
typedef struct {
  hc_variant variant;
  hc_variant chosen; /* auto's choice (else the variant itself) */
  hc_bench_status status;
  char reason[HC_BENCH_REASON_LEN]; /* why skipped or failed */
  int calls;
  double median_s, min_s;     /* seconds per call */
  double gbs, gflops;         /* cost model over the median time */
  double peak;                /* the peak rate (flops/s) of the units this variant uses */
  double roofline_s;          /* max(bytes / copy bandwidth, flops / peak) */
  double roofline_pct;        /* 100 roofline_s / median_s */
  double roofline_s_larger;   /* roofline_s at the larger of the start and end copy bandwidths */
  double roofline_pct_larger; /* 100 roofline_s_larger / median_s */
  int above_roof;             /* roofline_pct_larger > HC_BENCH_ABOVE_ROOF_PCT (not on small-call cases) */
  /* Small-call cases: the time per call of the same back-to-back calls on one cell (-1 where the variant
   cannot run one cell); the call overhead (that time, at most median_s; else median_s less the roofline
   time of the work) and the work (the rest of median_s). */
  double one_cell_s, overhead_s, work_s;
  double vs_vendor;    /* the case's vendor_variant's median time over this one (> 1: faster); 0: none ran */
  double vs_intrepid2; /* Intrepid2's median time over this one's times the threads (per core); 0: none */
  double max_err, tol; /* largest difference from the reference (or serial on the sampled cells) */
  int64_t bad;         /* entries outside the tolerance */
} hc_bench_row;

/* One case: a kernel at a shape, precision and layout, with every variant. */
typedef struct {
  hc_contract k;
  int overhead; /* the call-overhead case (1,000 cells; time per call of back-to-back calls) */
  double flops, bytes;
  hc_bench_row rows[HC_NUM_VARIANTS];
  int nrows;
  int best; /* index of the fastest variant that ran and agreed (auto only if alone); -1 */
  /* The vendor variant that vs_vendor compares with: the fastest of the vendor variants (flag HC_VARIANT_VENDOR)
     that ran on the case, or for a cell-minor case where none did, on its cell-major twin; vendor_layout says
     which. HC_NUM_VARIANTS and have_vendor 0 where none ran. */
  hc_variant vendor_variant;
  hc_layout vendor_layout;
  int have_vendor;
  /* Intrepid2 (the intrepid2 backend) on the same input arrays, for vs_intrepid2 (CPU backends). */
  hc_bench_status intrepid2_status;
  char intrepid2_reason[HC_BENCH_REASON_LEN];
  int intrepid2_calls;
  double intrepid2_s, intrepid2_err; /* median seconds per call; largest difference from the reference */
} hc_bench_case;

typedef struct {
  hc_bench_options opt;
  const hc_backend *b;
  const hc_backend *intrepid2; /* timed beside a CPU backend's cases; NULL: not built, asked off or on a device */
  int threads;                 /* CPU threads the backend computes with (1 but for openmp; 0 on a device) */
  char device[256];
  double budget_bytes;              /* the memory budget after the caps */
  char budget_note[256];            /* why it was capped ("" if not) */
  double copy_bytes;                /* bytes moved per copy call, read + write */
  double copy_gbs, copy_gbs_median; /* the best and the median of the copy kernel's calls, GB/s */
  int copy_calls;
  double copy_gbs_end, copy_gbs_end_median; /* the same, measured again at the end of the run */
  int copy_calls_end;
  /* Variants asked for that no case of the run supports, for one reason: listed once, not per case. */
  int lacked[HC_NUM_VARIANTS];
  char lacked_reason[HC_NUM_VARIANTS][HC_BENCH_REASON_LEN];
  int above_roof;    /* rows flagged above HC_BENCH_ABOVE_ROOF_PCT */
  double peak[2][2]; /* [precision][tensor cores] flops/s; 0 unknown */
  char peak_how[2][2][HC_BENCH_HOW_LEN];
  hc_bench_case *cases;
  int ncases;
  int failures;
  double seconds;
  char date[32];
} hc_bench;

/* The peak a variant's row is measured against: the tensor-core peak for the variants with flag
   HC_VARIANT_TENSOR_CORES in double (and auto when it chose one of them). */
double hc_bench_row_peak(const hc_bench *bench, const hc_contract *k, hc_variant ran);

/* The copy bandwidth that flags use: the larger of the start and end measurements, GB/s. */
double hc_bench_copy_gbs_larger(const hc_bench *bench);

/* What dominates a small-call case's time per call: "call overhead" when its work (row->work_s) is less
   than HC_BENCH_WORK_SHARE of it, else "compute" or "memory", the roof that bounds that work. */
const char *hc_bench_small_call_bound(const hc_bench *bench, const hc_bench_case *bc, const hc_bench_row *r);

/* Adds 1 to the first output entry when HC_BENCH_TEST_PERTURB names `name` (tests only: shows that a wrong
   result is reported as FAILED). */
void hc_bench_test_perturb(const hc_contract *k, const char *name, void *h_out);

/* Intrepid2 beside a CPU backend (bench_intrepid2.c). hc_bench_intrepid2_setup finds the intrepid2 backend
   when it applies; hc_bench_intrepid2_case runs it on a case's input arrays (host memory) into h_out, checks
   it against h_ref (the case's reference output, when have_ref) and times it; a disagreement or a runtime
   error counts as a failure of the bench. hc_bench_intrepid2_ratios fills the rows' vs_intrepid2. */
void hc_bench_intrepid2_setup(hc_bench *bench);
int hc_bench_intrepid2_case(hc_bench *bench, hc_bench_case *bc, const void *left, const void *right, void *h_out,
                            const void *h_ref, int have_ref);
void hc_bench_intrepid2_ratios(const hc_bench *bench, hc_bench_case *bc);

/* The bench's targets (bench_targets.c): per kernel family (the call-overhead cases left out), how many
   cases the fastest of our own variants (not a vendor's; auto only where it alone ran) meets each target in,
   of those it applies to. roofline: every case; vendor: where a vendor variant ran (vs_vendor); layout: the
   cell-minor cases whose cell-major twin ran; precision: the float cases whose double twin ran, both
   bandwidth-bound (intensity below the ridge point of their best own row's peak at the start copy bandwidth).
   Layout and precision compare median times per cell. */
#define HC_BENCH_TARGET_ROOF_PCT      85.0 /* % of the roofline */
#define HC_BENCH_TARGET_ROOF_PCT_TC   80.0 /* FieldField (125,216) double: % of the FP64 tensor-core roofline */
#define HC_BENCH_TARGET_VS_VENDOR     1.0  /* vendor's time over ours */
#define HC_BENCH_TARGET_VS_VENDOR_FEM 1.1  /* the same, FieldField double at (27,27) and (64,64) */
#define HC_BENCH_TARGET_LAYOUT_RATIO  1.25 /* cell-minor time over cell-major time, at most */
#define HC_BENCH_TARGET_FLOAT_RATIO   0.55 /* float time over double time, at most */
typedef enum {
  HC_BENCH_TARGET_ROOFLINE = 0,
  HC_BENCH_TARGET_VENDOR = 1,
  HC_BENCH_TARGET_LAYOUT = 2,
  HC_BENCH_TARGET_PRECISION = 3,
  HC_BENCH_NUM_TARGETS = 4
} hc_bench_target;
typedef struct {
  int met, of;
} hc_bench_count;
typedef struct {
  int cases[3]; /* per hc_family: cases with one of our own variants that ran */
  hc_bench_count count[3][HC_BENCH_NUM_TARGETS];
} hc_bench_targets;
void hc_bench_targets_count(const hc_bench *bench, hc_bench_targets *t);
/* Fills bc's vendor_variant, vendor_layout and have_vendor and every row's vs_vendor (0 for rows that did not
   run): the fastest vendor variant that ran on bc, else for a cell-minor case the fastest on the cell-major case of
   bench with the same kernel, shape, cells and precision (vendor libraries run the cell-major layout only). */
void hc_bench_vendor_ratios(const hc_bench *bench, hc_bench_case *bc);
/* One line per family that ran, after the summary table. */
void hc_bench_targets_print(const hc_bench *bench);
/* bench.yaml's `targets:` mapping: how, thresholds, and under families, per family that ran, its cases and
   {met, of} per target. */
int hc_bench_targets_yaml(hc_yaml_writer *w, const hc_bench *bench);

/* Report writers (bench_report.c). Each writes its file atomically in bench->opt.out. */
void hc_bench_print_summary(const hc_bench *bench);
int hc_bench_write_yaml(const hc_bench *bench, const char *path);
int hc_bench_write_csv(const hc_bench *bench, const char *path);
/* Writes roofline.dat and roofline.gp and runs gnuplot for roofline.png; *note says what happened when
   no PNG was made (gnuplot missing or failing). */
int hc_bench_plot(const hc_bench *bench, char *note, size_t size);

#endif
