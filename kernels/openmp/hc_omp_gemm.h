/* The tiles of the OpenMP backend's packed GEMM of a cell-major FieldField cell (gemm_openmp_impl.h), shared by
   the contractions (contract_openmp.c) and the fused assembly (celldata_openmp.c). */
#ifndef HC_OMP_GEMM_H
#define HC_OMP_GEMM_H

#include <math.h>
#include <stdint.h>

/* a * b + c, fused into one FMA instruction where the target has one (the build's ISO C mode does not
   contract a * b + c by itself), else the plain expression. */
#if defined(FP_FAST_FMA) && defined(FP_FAST_FMAF)
#define HC_FMA(a, b, c) _Generic((c), float : fmaf, default : fma)(a, b, c)
#else
#define HC_FMA(a, b, c) ((a) * (b) + (c))
#endif
/* Register tile of the cell-major FieldField micro-kernel: HC_OMP_MR left fields x HC_OMP_NR right fields
   (two 64-byte vectors of the precision that includes it). */
#ifndef HC_OMP_MR
#if defined(__AVX512F__)
/* 32 vector registers: 8 x 2 accumulators, each broadcast of A serving two FMAs and each B vector eight.
   One core of the CI-class VM (Zen 4), cell-major FieldField, (27,27) to (125,216): 12-21 -> 15-37 GFLOP/s
   in double and 24-41 -> 27-63 in float over 4 rows (6 rows: the same within the spread), 2026-11-23. */
#define HC_OMP_MR 8
#else
#define HC_OMP_MR 4
#endif
#endif
/* Rows of the larger register tile taken where it pads fewer rows of L (hc_ff_tile_rows_openmp): on AVX-512,
   9 x 2 accumulators, each B vector serving nine FMAs (L = 27: three tiles of 9 rows instead of four of 8, the
   last of them 3 rows computed as 8; L = 125: fourteen of 9, 126 rows, instead of sixteen of 8, 128). */
#if defined(__AVX512F__)
#define HC_OMP_MR_BIG 9
#else
#define HC_OMP_MR_BIG HC_OMP_MR
#endif
#define HC_OMP_NR (128 / (int)sizeof(HC_REAL))

/* Inlined wherever it is called, so that calls with constant arguments give specialised loops. */
#if defined(__GNUC__)
#define HC_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define HC_ALWAYS_INLINE inline
#endif
/* Entries of K in a panel from which the larger tile is taken. One core of the 2-core VM (AMD EPYC, AVX-512),
   `bench --backend openmp --kernel FieldField --layout cell-major`, (27,27), ms per call, three rounds: Vector
   (K = 81) 36.9-37.6 -> 32.7-33.6 in double and 36.4-37.3 -> 28.2-30.6 in float, Tensor (K = 243) 34.3-45.9 ->
   29.9-30.5 and 42.3-43.0 -> 40.3-41.9; but Scalar (K = 27) 22.9-23.3 -> 24.8-25.6 and 23.6-24.9 -> 27.1-27.5. */
#define HC_OMP_MR_BIG_KB 64

/* Rows of a register tile for L rows and a panel of kb entries of K: the larger tile where it pads fewer of the
   rows and the panel is long enough, else HC_OMP_MR. */
static inline int hc_ff_tile_rows_openmp(int64_t L, int64_t kb) {
  const int64_t small = (L + HC_OMP_MR - 1) / HC_OMP_MR * HC_OMP_MR;
  const int64_t big = (L + HC_OMP_MR_BIG - 1) / HC_OMP_MR_BIG * HC_OMP_MR_BIG;
  return big < small && kb >= HC_OMP_MR_BIG_KB ? HC_OMP_MR_BIG : HC_OMP_MR;
}
/* Rows of K in a packed panel of B^T: HC_OMP_KB x R scalars stay in L2. */
#ifndef HC_OMP_KB
#define HC_OMP_KB 256
#endif
/* Bytes of a packed panel above which fewer than 64 right fields are packed in blocks of 8 x 8 rather than one
   row of B at a time: the L1 data cache of the cores measured (32 KB on Zen 4, 48 KB on recent Xeons). */
#define HC_OMP_PACK_L1 32768
/* Left fields from which a cell-major FieldField cell of more than HC_OMP_NARROW right fields is computed as a packed
   GEMM; fewer take dot products (dots_openmp_impl.h). */
#define HC_OMP_FF_GEMM_L 16
/* Right fields at most of the narrow path (dots_openmp_impl.h): a panel row of one vector of 8 (AVX-512 double, AVX
   float), against the GEMM's two vectors; and the entries of K per panel, 128 x 8 scalars on the stack. */
#define HC_OMP_NARROW    8
#define HC_OMP_NARROW_KB 128

/* Asks for the line at p into the L2 cache (the prefetch hint of moderate locality), where the compiler has a way
   to say so. */
#if defined(__GNUC__)
#define HC_PREFETCH_L2(p) __builtin_prefetch((p), 0, 2)
#else
#define HC_PREFETCH_L2(p) ((void)(p))
#endif
/* The lines of the next cell's fields that a cell's register tiles ask for while they run (into L2, the
   prefetch hint of moderate locality), a run of `per` lines per tile, the left fields' lines first: so that the
   next cell's packing and tiles find them in cache instead of waiting for memory, whose single-core rate on
   8 or 9 rows read at once is a fraction of the copy rate (one Zen 4 core: packing B, 27 x 243 doubles, took
   about as long as the FMAs of the cell's tiles). p[i], left[i]: the next line of each of the two runs and how many
   remain. */
typedef struct {
  const char *p[2];
  int64_t left[2];
  int64_t per;
} hc_ff_ahead;

/* Bytes of a cell's left and right fields up to which the next cell's are asked for during its tiles: larger
   ones would push the cell's own fields and panel out of a core's L2 cache (1 MB on Zen 4, 2 MB on recent
   Xeons). */
#ifndef HC_OMP_FF_AHEAD_MAX
#define HC_OMP_FF_AHEAD_MAX (512 * 1024)
#endif
/* ... and from which: smaller cells' lines come in time from the hardware's own prefetchers (one Zen 4 core,
   FieldFieldScalar (27,27), 23 KB per cell in double and 12 KB in float: 4-8% slower with them asked for). */
#ifndef HC_OMP_FF_AHEAD_MIN
#define HC_OMP_FF_AHEAD_MIN (24 * 1024)
#endif

/* The two runs of lines [a, a + abytes) and [b, b + bbytes), spread over `tiles` tiles (one run of at most
   ceil(lines / (tiles - 1)) per tile, so that a tile whose run ends where the first range does leaves none). */
static inline void hc_ff_ahead_init(hc_ff_ahead *h, const void *a, int64_t abytes, const void *b, int64_t bbytes,
                                    int64_t tiles) {
  h->p[0] = (const char *)a;
  h->p[1] = (const char *)b;
  h->left[0] = (abytes + 63) / 64;
  h->left[1] = (bbytes + 63) / 64;
  const int64_t lines = h->left[0] + h->left[1], t = tiles > 1 ? tiles - 1 : 1;
  h->per = (lines + t - 1) / t;
}

/* The run of lines one tile asks for: its first line, and *n lines (none where h is NULL or nothing remains). */
static inline const char *hc_ff_ahead_take(hc_ff_ahead *h, int64_t *n) {
  *n = 0;
  if (!h) return NULL;
  const int i = h->left[0] > 0 ? 0 : 1;
  const int64_t m = h->left[i] < h->per ? h->left[i] : h->per;
  const char *p = h->p[i];
  h->p[i] += 64 * m;
  h->left[i] -= m;
  *n = m;
  return p;
}

/* Scalars of the packed B^T panel of one cell (HC_OMP_KB rows of K at most, R padded to a multiple of
   HC_OMP_NR), for a contracted length K, R right fields and s-byte scalars. */
static inline int64_t hc_ff_panel_openmp(int64_t K, int64_t R, int64_t s) {
  const int64_t kb = K < HC_OMP_KB ? K : HC_OMP_KB, nr = 128 / s; /* HC_OMP_NR of that precision */
  return kb * ((R + nr - 1) / nr * nr);
}

#endif
