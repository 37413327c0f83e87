/* MPI tests of the node sharing (mesh/hc_sharing.h) and of the halo built from it: hand-made partitions whose
   cells are dealt to ranks in scattered patterns (non-contiguous parts, neighbours across edges and corners,
   rotated cells, a rank with no shared node, a rank with no cell), checked against brute force over every
   rank's global ids; and on the box, the generic ownership and neighbour lists against the analytic ones of
   the Cartesian blocks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mpi.h>

#include "mesh/hc_halo.h"
#include "mesh/hc_mesh.h"
#include "mesh/hc_sharing.h"

#include "tests/hc_test_mpi.h"

static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* This rank's part of an unstructured mesh: cells, local nodes numbered by first appearance, global ids. */
typedef struct {
  int order, L;
  int64_t C, num_nodes;
  int32_t *cell_nodes; /* [C][L] */
  int64_t *gid;        /* [num_nodes] */
} part;

/* Appends to pt the cells of an nx x ny x nz box of order p that rank_of gives this rank, in decreasing global
   cell id; cells of odd id are rotated a quarter turn about z in their local numbering. Node (gi,gj,gk) of the
   box has the global id gid_base + a bijective scramble of its lattice index (so global order is not the
   geometric one). */
static void part_add_box(part *pt, int nx, int ny, int nz, int p, int (*rank_of)(int64_t cell, int nranks),
                         int64_t gid_base) {
  const int P1 = p + 1, L = P1 * P1 * P1;
  const int64_t GX = p * nx + 1, GY = p * ny + 1, GZ = p * nz + 1, ncell = (int64_t)nx * ny * nz;
  pt->order = p;
  pt->L = L;
  int32_t *local = malloc(sizeof(*local) * (size_t)(GX * GY * GZ));
  for (int64_t g = 0; g < GX * GY * GZ; g++) local[g] = -1;
  for (int64_t c = ncell - 1; c >= 0; c--) {
    if (rank_of(c, nranks_) != rank_) continue;
    const int64_t ci = c % nx, cj = (c / nx) % ny, ck = c / ((int64_t)nx * ny);
    pt->cell_nodes = realloc(pt->cell_nodes, sizeof(*pt->cell_nodes) * (size_t)((pt->C + 1) * L));
    for (int k = 0; k < P1; k++) {
      for (int j = 0; j < P1; j++) {
        for (int i = 0; i < P1; i++) {
          /* local (i,j,k) sits at lattice (a,b,k): itself, or rotated for odd cells */
          const int a = (c & 1) ? p - j : i, b = (c & 1) ? i : j;
          const int64_t g = (p * ci + a) + GX * ((p * cj + b) + GY * (p * ck + k));
          if (local[g] < 0) {
            local[g] = (int32_t)pt->num_nodes++;
            pt->gid = realloc(pt->gid, sizeof(*pt->gid) * (size_t)pt->num_nodes);
            /* odd multiplier modulo 2^40 permutes [0, 2^40) */
            pt->gid[local[g]] = gid_base + (int64_t)(((uint64_t)g * 0x9E3779B1ull) & ((1ull << 40) - 1));
          }
          pt->cell_nodes[pt->C * L + i + P1 * (j + P1 * k)] = local[g];
        }
      }
    }
    pt->C++;
  }
  free(local);
}

static void part_free(part *pt) {
  free(pt->cell_nodes);
  free(pt->gid);
  memset(pt, 0, sizeof(*pt));
}

/* Every rank's global ids, sorted per rank: ids of rank r at all[start[r] .. start[r+1]-1]. */
typedef struct {
  int64_t *all;
  int *start;
} everyone;

static int compare_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static void everyone_gather(const part *pt, everyone *e) {
  int n = (int)pt->num_nodes, *counts = malloc(sizeof(int) * (size_t)nranks_);
  e->start = malloc(sizeof(int) * (size_t)(nranks_ + 1));
  MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
  e->start[0] = 0;
  for (int r = 0; r < nranks_; r++) e->start[r + 1] = e->start[r] + counts[r];
  e->all = malloc(sizeof(int64_t) * (size_t)(e->start[nranks_] + 1));
  MPI_Allgatherv(pt->gid, n, MPI_INT64_T, e->all, counts, e->start, MPI_INT64_T, MPI_COMM_WORLD);
  for (int r = 0; r < nranks_; r++) {
    qsort(e->all + e->start[r], (size_t)counts[r], sizeof(int64_t), compare_i64);
  }
  free(counts);
}

static int holds(const everyone *e, int r, int64_t g) {
  return bsearch(&g, e->all + e->start[r], (size_t)(e->start[r + 1] - e->start[r]), sizeof(int64_t), compare_i64) !=
         NULL;
}

/* The value rank r puts at global id g before an exchange: integers, so that sums are exact. */
static double int_value(int64_t g, int r) {
  return (double)((g % 97) + 1) * (r + 1);
}

/* An irregular value, whose sums depend on their order. */
static double odd_value(int64_t g, int r) {
  return 1.0 / (3.0 + (double)((uint64_t)(g * 7919 + r * 104729) % 1000));
}

/* Checks a sharing of pt against brute force over every rank's ids, then the halo built from it. */
static void check_sharing(const part *pt, const hc_sharing *s) {
  everyone e;
  everyone_gather(pt, &e);
  EXPECT(s->num_nodes == pt->num_nodes && s->rank == rank_, "num_nodes %lld, want %lld", (long long)s->num_nodes,
         (long long)pt->num_nodes);
  /* Ownership and shared counts. */
  int64_t owned = 0, shared = 0;
  for (int64_t n = 0; n < pt->num_nodes; n++) {
    int lowest = -1, count = 0;
    for (int r = 0; r < nranks_; r++) {
      if (!holds(&e, r, pt->gid[n])) continue;
      if (lowest < 0) lowest = r;
      count++;
    }
    EXPECT(s->node_owned[n] == (lowest == rank_), "node %lld (id %lld): owned %d, lowest holder %d", (long long)n,
           (long long)pt->gid[n], s->node_owned[n], lowest);
    EXPECT(s->node_owner[n] == lowest, "node %lld: owner %d, lowest holder %d", (long long)n, s->node_owner[n], lowest);
    owned += lowest == rank_;
    shared += count > 1;
  }
  EXPECT(s->num_owned == owned && s->num_shared == shared, "owned %lld want %lld, shared %lld want %lld",
         (long long)s->num_owned, (long long)owned, (long long)s->num_shared, (long long)shared);
  /* Neighbours: every other rank holding one of our ids, ascending; per neighbour the common ids, ascending. */
  int nn = 0;
  for (int q = 0; q < nranks_; q++) {
    if (q == rank_) continue;
    int64_t common = 0;
    for (int i = e.start[rank_]; i < e.start[rank_ + 1]; i++) common += holds(&e, q, e.all[i]);
    if (!common) continue;
    EXPECT(nn < s->num_neighbors && s->neighbor[nn] == q, "neighbour %d is %d, want %d", nn,
           nn < s->num_neighbors ? s->neighbor[nn] : -1, q);
    if (nn < s->num_neighbors && s->neighbor[nn] == q) {
      EXPECT(s->offset[nn + 1] - s->offset[nn] == common, "rank %d: %lld shared nodes, want %lld", q,
             (long long)(s->offset[nn + 1] - s->offset[nn]), (long long)common);
      for (int64_t k = s->offset[nn]; k < s->offset[nn + 1]; k++) {
        const int64_t g = pt->gid[s->index[k]];
        EXPECT(holds(&e, q, g), "node id %lld listed for rank %d, which lacks it", (long long)g, q);
        EXPECT(k == s->offset[nn] || pt->gid[s->index[k - 1]] < g, "list for rank %d not in increasing id", q);
      }
    }
    nn++;
  }
  EXPECT(s->num_neighbors == nn, "%d neighbours, want %d", s->num_neighbors, nn);
  /* Both sides of every pair list the same ids in the same order. */
  for (int i = 0; i < s->num_neighbors; i++) {
    const int64_t cnt = s->offset[i + 1] - s->offset[i];
    int64_t theirs_cnt = -1;
    MPI_Sendrecv(&cnt, 1, MPI_INT64_T, s->neighbor[i], 1, &theirs_cnt, 1, MPI_INT64_T, s->neighbor[i], 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT(theirs_cnt == cnt, "rank %d lists %lld nodes shared with us, we list %lld", s->neighbor[i],
           (long long)theirs_cnt, (long long)cnt);
    if (theirs_cnt != cnt) continue;
    int64_t *mine = malloc(sizeof(int64_t) * (size_t)(cnt + 1)), *theirs = malloc(sizeof(int64_t) * (size_t)(cnt + 1));
    for (int64_t k = 0; k < cnt; k++) mine[k] = pt->gid[s->index[s->offset[i] + k]];
    MPI_Sendrecv(mine, (int)cnt, MPI_INT64_T, s->neighbor[i], 2, theirs, (int)cnt, MPI_INT64_T, s->neighbor[i], 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT(!memcmp(mine, theirs, sizeof(int64_t) * (size_t)cnt), "lists with rank %d differ", s->neighbor[i]);
    free(mine);
    free(theirs);
  }

  /* The halo from this sharing: integer sums exactly, in double, float and several vectors at once; irregular
     sums bitwise equal to the sum over holders in increasing rank order. */
  hc_halo *h = NULL;
  EXPECT(hc_halo_create_from_sharing(MPI_COMM_WORLD, s, &h) == HC_OK, "hc_halo_create_from_sharing: %s",
         hc_error_message());
  const int64_t N = pt->num_nodes;
  double *x = malloc(sizeof(double) * (size_t)(N + 1)), *y = malloc(sizeof(double) * (size_t)(N + 1));
  float *xf = malloc(sizeof(float) * (size_t)(N + 1));
  for (int64_t n = 0; n < N; n++) {
    x[n] = int_value(pt->gid[n], rank_);
    xf[n] = (float)x[n];
    y[n] = odd_value(pt->gid[n], rank_);
  }
  EXPECT(hc_halo_exchange(h, HC_DOUBLE, x) == HC_OK, "hc_halo_exchange: %s", hc_error_message());
  EXPECT(hc_halo_exchange(h, HC_FLOAT, xf) == HC_OK, "hc_halo_exchange float: %s", hc_error_message());
  double *const many[2] = {y, x};
  for (int64_t n = 0; n < N; n++) x[n] = int_value(pt->gid[n], rank_); /* again, beside y */
  EXPECT(hc_halo_begin_many(h, 2, many) == HC_OK && hc_halo_end_many(h, 2, many) == HC_OK, "begin/end: %s",
         hc_error_message());
  for (int64_t n = 0; n < N; n++) {
    const int64_t g = pt->gid[n];
    double want = 0, want_odd = 0;
    for (int r = 0; r < nranks_; r++) {
      if (!holds(&e, r, g)) continue;
      want += int_value(g, r);
      want_odd += odd_value(g, r);
    }
    EXPECT(x[n] == want && (double)xf[n] == want, "id %lld: sums %g (float %g), want %g", (long long)g, x[n],
           (double)xf[n], want);
    EXPECT(!memcmp(&y[n], &want_odd, sizeof(double)), "id %lld: irregular sum %.17g, want %.17g in rank order",
           (long long)g, y[n], want_odd);
  }
  hc_halo_stats stats;
  EXPECT(hc_halo_get_stats(h, HC_DOUBLE, &stats) == HC_OK, "stats");
  EXPECT(stats.num_neighbors == s->num_neighbors && stats.shared_nodes == s->num_shared &&
             stats.send_values == s->offset[s->num_neighbors],
         "stats %d neighbours, %lld shared, %lld sent", stats.num_neighbors, (long long)stats.shared_nodes,
         (long long)stats.send_values);
  EXPECT(hc_halo_destroy(&h) == HC_OK && h == NULL, "hc_halo_destroy");
  free(x);
  free(y);
  free(xf);
  free(e.all);
  free(e.start);
}

static void check_part(const part *pt) {
  hc_sharing *s = NULL;
  int err = hc_sharing_create(MPI_COMM_WORLD, pt->num_nodes, pt->gid, pt->C, pt->order, pt->cell_nodes, &s);
  EXPECT(err == HC_OK && s, "hc_sharing_create: %s", hc_error_message());
  assert_all_ranks_ok();
  check_sharing(pt, s);
  assert_all_ranks_ok();
  assert_int_equal(hc_sharing_destroy(&s), HC_OK);
  assert_null(s);
}

/* 2 x 2 x 2 cells dealt so that parts touch across faces, edges and corners only: on 2 ranks a checkerboard,
   on 4 rank 0 holds the two opposite corner cells (0,0,0) and (1,1,1), which meet at one vertex. */
static int deal_corners(int64_t c, int nranks) {
  static const int table[8] = {0, 3, 1, 2, 2, 1, 3, 0};
  return nranks == 2 ? (int)((c ^ (c >> 1) ^ (c >> 2)) & 1) : table[c] % nranks;
}

static void test_scattered(void **state) {
  (void)state;
  for (int p = 1; p <= 3; p++) {
    part pt = {0};
    part_add_box(&pt, 2, 2, 2, p, deal_corners, 0);
    check_part(&pt);
    part_free(&pt);
  }
}

/* Cells dealt by a hash to ranks 0..R-2; rank R-1 holds no cell of this box. */
static int deal_hash_but_last(int64_t c, int nranks) {
  return nranks == 1 ? 0 : (int)(mix((uint64_t)c + 17) % (uint64_t)(nranks - 1));
}

static int deal_all_to_last(int64_t c, int nranks) {
  (void)c;
  return nranks - 1;
}

/* The last rank holds only a box of its own (ids far from the first's): no shared node, no neighbour. */
static void test_isolated_rank(void **state) {
  (void)state;
  part pt = {0};
  part_add_box(&pt, 3, 2, 2, 3, deal_hash_but_last, 0);
  if (nranks_ > 1) part_add_box(&pt, 2, 1, 1, 3, deal_all_to_last, (int64_t)1 << 41);
  check_part(&pt);
  hc_sharing *s = NULL;
  EXPECT(hc_sharing_create(MPI_COMM_WORLD, pt.num_nodes, pt.gid, pt.C, pt.order, pt.cell_nodes, &s) == HC_OK,
         "hc_sharing_create: %s", hc_error_message());
  if (nranks_ > 1 && rank_ == nranks_ - 1) {
    EXPECT(s->num_neighbors == 0 && s->num_shared == 0 && s->num_owned == pt.num_nodes, "isolated rank shares");
  }
  hc_sharing_destroy(&s);
  part_free(&pt);
  assert_all_ranks_ok();
}

/* Cells dealt by a hash to ranks 1..R-1: rank 0, the lowest, holds nothing. */
static int deal_hash_but_first(int64_t c, int nranks) {
  return nranks == 1 ? 0 : 1 + (int)(mix((uint64_t)c) % (uint64_t)(nranks - 1));
}

static void test_empty_rank(void **state) {
  (void)state;
  part pt = {0};
  part_add_box(&pt, 4, 3, 2, 2, deal_hash_but_first, 5);
  if (nranks_ > 1 && rank_ == 0) EXPECT(pt.C == 0 && pt.num_nodes == 0, "rank 0 has cells");
  check_part(&pt);
  part_free(&pt);
}

/* Boundary nodes of one whole box, in any cell order and orientation: the nodes on the box's faces. */
static int deal_all_to_me(int64_t c, int nranks) {
  (void)c, (void)nranks;
  return rank_;
}

static void test_boundary_nodes(void **state) {
  (void)state;
  for (int p = 1; p <= 4; p++) {
    part pt = {0};
    const int nx = 3, ny = 2, nz = 4;
    part_add_box(&pt, nx, ny, nz, p, deal_all_to_me, 0);
    uint8_t *b = malloc((size_t)pt.num_nodes);
    int64_t nb = -1;
    assert_int_equal(hc_mesh_boundary_nodes(pt.C, p, pt.cell_nodes, pt.num_nodes, b, &nb), HC_OK);
    const int64_t GX = p * nx + 1, GY = p * ny + 1, GZ = p * nz + 1;
    assert_int_equal(nb, GX * GY * GZ - (GX - 2) * (GY - 2) * (GZ - 2));
    for (int64_t n = 0; n < pt.num_nodes; n++) {
      /* undo the scramble: 0x9E3779B1 is odd, so its inverse modulo 2^40 exists; recompute by search instead */
      int64_t g = -1;
      for (int64_t t = 0; t < GX * GY * GZ; t++) {
        if ((int64_t)(((uint64_t)t * 0x9E3779B1ull) & ((1ull << 40) - 1)) == pt.gid[n]) g = t;
      }
      assert_true(g >= 0);
      const int64_t gi = g % GX, gj = (g / GX) % GY, gk = g / (GX * GY);
      const int on = gi == 0 || gi == GX - 1 || gj == 0 || gj == GY - 1 || gk == 0 || gk == GZ - 1;
      assert_int_equal(b[n], on);
    }
    /* A face that three cells have is refused, naming the cell. */
    int32_t *three = malloc(sizeof(*three) * (size_t)pt.L * 3);
    for (int c = 0; c < 3; c++) memcpy(three + c * pt.L, pt.cell_nodes, sizeof(*three) * (size_t)pt.L);
    hc_error_clear();
    assert_int_equal(hc_mesh_boundary_nodes(3, p, three, pt.num_nodes, b, NULL), HC_ERR_INPUT);
    assert_non_null(strstr(hc_error_message(), "at most two cells"));
    free(three);
    free(b);
    part_free(&pt);
  }
}

/* A global id held twice on one rank, or a node id out of range on one rank: every rank returns an error. */
static void test_bad_input(void **state) {
  (void)state;
  part pt = {0};
  part_add_box(&pt, 2, 2, 2, 1, deal_corners, 0);
  hc_sharing *s = NULL;
  if (rank_ == nranks_ - 1 && pt.num_nodes > 1) pt.gid[1] = pt.gid[0];
  hc_error_clear();
  int err = hc_sharing_create(MPI_COMM_WORLD, pt.num_nodes, pt.gid, pt.C, pt.order, pt.cell_nodes, &s);
  /* alone, nothing is checked: no node can be shared */
  if (nranks_ > 1) EXPECT(err != HC_OK && s == NULL, "duplicate id accepted");
  if (rank_ == nranks_ - 1 && nranks_ > 1) {
    EXPECT(strstr(hc_error_message(), "held by two local nodes"), "message \"%s\"", hc_error_message());
  }
  hc_sharing_destroy(&s);
  part_free(&pt);
  part_add_box(&pt, 2, 2, 2, 1, deal_corners, 0);
  if (rank_ == 0 && pt.C > 0) pt.cell_nodes[3] = (int32_t)pt.num_nodes;
  hc_error_clear();
  err = hc_sharing_create(MPI_COMM_WORLD, pt.num_nodes, pt.gid, pt.C, pt.order, pt.cell_nodes, &s);
  if (nranks_ > 1) EXPECT(err != HC_OK && s == NULL, "node id out of range accepted");
  if (rank_ == 0 && nranks_ > 1)
    EXPECT(strstr(hc_error_message(), "outside the"), "message \"%s\"", hc_error_message());
  hc_sharing_destroy(&s);
  part_free(&pt);
  EXPECT(hc_sharing_destroy(NULL) == HC_OK && hc_sharing_destroy(&s) == HC_OK, "destroy NULL");
  assert_all_ranks_ok();
}

/* The box: generic ownership equals the analytic one (the lowest block coordinate in every direction), and the
   neighbours and lists equal those of the block geometry (offsets in (z,y,x) lexicographic order, nodes of the
   shared block face, edge or corner x fastest), for several shapes, sizings and orders. */
static void check_box(hc_sizing sizing, int64_t nx, int64_t ny, int64_t nz, int order) {
  hc_mesh_params prm;
  hc_mesh_params_init(&prm);
  prm.sizing = sizing;
  prm.cells[0] = nx;
  prm.cells[1] = ny;
  prm.cells[2] = nz;
  prm.order = order;
  hc_mesh *m = NULL;
  EXPECT(hc_mesh_create(MPI_COMM_WORLD, &prm, &m) == HC_OK, "hc_mesh_create: %s", hc_error_message());
  assert_all_ranks_ok();
  const int64_t *ln = m->local_nodes;
  int64_t owned = 0;
  for (int64_t c = 0; c < ln[2]; c++) {
    for (int64_t b = 0; b < ln[1]; b++) {
      for (int64_t a = 0; a < ln[0]; a++) {
        const int64_t n = a + ln[0] * (b + ln[1] * c);
        const int want =
            (a > 0 || m->rank_coords[0] == 0) && (b > 0 || m->rank_coords[1] == 0) && (c > 0 || m->rank_coords[2] == 0);
        EXPECT(m->node_owned[n] == want, "box %lldx%lldx%lld p=%d grid %dx%dx%d: node (%lld,%lld,%lld) owned %d",
               (long long)nx, (long long)ny, (long long)nz, order, m->rank_grid[0], m->rank_grid[1], m->rank_grid[2],
               (long long)a, (long long)b, (long long)c, m->node_owned[n]);
        owned += want;
      }
    }
  }
  EXPECT(m->num_owned_nodes == owned, "owned %lld, want %lld", (long long)m->num_owned_nodes, (long long)owned);
  const hc_sharing *s = m->sharing;
  int nn = 0;
  for (int oz = -1; oz <= 1; oz++) {
    for (int oy = -1; oy <= 1; oy++) {
      for (int ox = -1; ox <= 1; ox++) {
        const int o[3] = {ox, oy, oz};
        int nc[3], inside = !!(ox || oy || oz);
        int64_t lo[3], hi[3];
        for (int d = 0; d < 3; d++) {
          nc[d] = m->rank_coords[d] + o[d];
          inside &= nc[d] >= 0 && nc[d] < m->rank_grid[d];
          lo[d] = o[d] > 0 ? ln[d] - 1 : 0;
          hi[d] = o[d] < 0 ? 0 : ln[d] - 1;
        }
        if (!inside) continue;
        const int q = hc_partition_rank(m->rank_grid, nc);
        EXPECT(nn < s->num_neighbors && s->neighbor[nn] == q, "neighbour %d: %d, want %d", nn,
               nn < s->num_neighbors ? s->neighbor[nn] : -1, q);
        if (nn >= s->num_neighbors) break;
        int64_t k = s->offset[nn];
        for (int64_t c = lo[2]; c <= hi[2]; c++) {
          for (int64_t b = lo[1]; b <= hi[1]; b++) {
            for (int64_t a = lo[0]; a <= hi[0]; a++, k++) {
              EXPECT(k < s->offset[nn + 1] && s->index[k] == (int32_t)(a + ln[0] * (b + ln[1] * c)),
                     "list for rank %d differs at %lld", q, (long long)(k - s->offset[nn]));
            }
          }
        }
        EXPECT(k == s->offset[nn + 1], "list for rank %d: %lld nodes, want %lld", q,
               (long long)(s->offset[nn + 1] - s->offset[nn]), (long long)(k - s->offset[nn]));
        nn++;
      }
    }
  }
  EXPECT(s->num_neighbors == nn, "%d neighbours, want %d", s->num_neighbors, nn);
  assert_all_ranks_ok();
  hc_mesh_destroy(&m);
}

static void test_box_analytic(void **state) {
  (void)state;
  for (int p = 1; p <= HC_MESH_MAX_ORDER; p++) {
    check_box(HC_SIZING_GLOBAL, 13, 7, 5, p); /* grids 1x1x1, 2x1x1, 3x1x1, 2x2x1 */
    check_box(HC_SIZING_GLOBAL, 2, 3, 8, p);  /* splits along z first */
  }
  check_box(HC_SIZING_GLOBAL, 1, 1, 8, 2); /* 1 x 1 x R */
  check_box(HC_SIZING_GLOBAL, 6, 6, 6, 3);
  check_box(HC_SIZING_PER_RANK, 3, 2, 2, 2);
  check_box(HC_SIZING_PER_RANK, 1, 1, 1, 4);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks_);
  if (rank_ > 0 && !freopen("/dev/null", "w", stdout)) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_boundary_nodes), cmocka_unit_test(test_scattered), cmocka_unit_test(test_isolated_rank),
      cmocka_unit_test(test_empty_rank),     cmocka_unit_test(test_bad_input), cmocka_unit_test(test_box_analytic),
  };
  int failed = cmocka_run_group_tests_name("sharing_mpi", tests, NULL, NULL), any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any ? 1 : 0;
}
