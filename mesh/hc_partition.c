/* Rank grid choice for a box of cells and the cell range of each block. */
#include "mesh/hc_partition.h"

#include <string.h>

const char *hc_sizing_name(hc_sizing sizing) {
  switch (sizing) {
    case HC_SIZING_GLOBAL:
      return "global";
    case HC_SIZING_PER_RANK:
      return "per-rank";
  }
  return "unknown";
}

int hc_sizing_from_name(const char *name, hc_sizing *sizing) {
  HC_CHECK(name && sizing, HC_ERR_INPUT, "hc_sizing_from_name: NULL argument");
  if (!strcmp(name, "global")) {
    *sizing = HC_SIZING_GLOBAL;
    return HC_OK;
  }
  if (!strcmp(name, "per-rank")) {
    *sizing = HC_SIZING_PER_RANK;
    return HC_OK;
  }
  return HC_ERROR(HC_ERR_INPUT, "mesh sizing must be global or per-rank, got \"%s\"", name);
}

void hc_partition_block(int64_t n, int parts, int coord, int64_t *begin, int64_t *count) {
  int64_t q = n / parts, r = n % parts;
  *begin = coord * q + (coord < r ? coord : r);
  *count = q + (coord < r ? 1 : 0);
}

int hc_partition_rank(const int grid[3], const int coords[3]) {
  return coords[0] + grid[0] * (coords[1] + grid[1] * coords[2]);
}

void hc_partition_coords(const int grid[3], int rank, int coords[3]) {
  coords[0] = rank % grid[0];
  coords[1] = (rank / grid[0]) % grid[1];
  coords[2] = rank / (grid[0] * grid[1]);
}

static int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

/* Cost of a GLOBAL grid, compared lexicographically: largest block's surface (half of it),
   imbalance (largest minus smallest block), total cut area. */
static void grid_cost_global(const int64_t n[3], const int g[3], int64_t cost[3]) {
  int64_t hi[3], lo[3];
  for (int d = 0; d < 3; d++) {
    hi[d] = ceil_div(n[d], g[d]);
    lo[d] = n[d] / g[d];
  }
  cost[0] = hi[0] * hi[1] + hi[1] * hi[2] + hi[2] * hi[0];
  cost[1] = hi[0] * hi[1] * hi[2] - lo[0] * lo[1] * lo[2];
  cost[2] = (int64_t)(g[0] - 1) * n[1] * n[2] + (int64_t)(g[1] - 1) * n[2] * n[0] + (int64_t)(g[2] - 1) * n[0] * n[1];
}

/* Cost of a PER_RANK grid: the global box's surface (half of it), in cells; as doubles since a weak-scaled
   box can be large. */
static void grid_cost_per_rank(const int64_t n[3], const int g[3], int64_t cost[3]) {
  double N[3];
  for (int d = 0; d < 3; d++) N[d] = (double)n[d] * g[d];
  double s = N[0] * N[1] + N[1] * N[2] + N[2] * N[0];
  cost[0] = s < 9e18 ? (int64_t)s : INT64_MAX;
  cost[1] = 0;
  cost[2] = 0;
}

static int cost_less(const int64_t a[3], const int64_t b[3]) {
  for (int i = 0; i < 3; i++) {
    if (a[i] != b[i]) return a[i] < b[i];
  }
  return 0;
}

/* Best grid for r ranks, or 0 when none fits (GLOBAL: no block may be empty). */
static int best_grid(int r, hc_sizing sizing, const int64_t n[3], int grid[3]) {
  int found = 0;
  int64_t best[3] = {0, 0, 0};
  for (int px = 1; px <= r; px++) {
    if (r % px) continue;
    if (sizing == HC_SIZING_GLOBAL && px > n[0]) break;
    int q = r / px;
    for (int py = 1; py <= q; py++) {
      if (q % py) continue;
      if (sizing == HC_SIZING_GLOBAL && py > n[1]) break;
      int pz = q / py;
      if (sizing == HC_SIZING_GLOBAL && pz > n[2]) continue;
      int g[3] = {px, py, pz};
      int64_t cost[3];
      if (sizing == HC_SIZING_GLOBAL) {
        grid_cost_global(n, g, cost);
      } else {
        grid_cost_per_rank(n, g, cost);
      }
      if (!found || cost_less(cost, best)) {
        found = 1;
        memcpy(best, cost, sizeof(best));
        memcpy(grid, g, sizeof(g));
      }
    }
  }
  return found;
}

int hc_partition_grid(int nranks, hc_sizing sizing, const int64_t cells[3], int grid[3]) {
  HC_CHECK(nranks >= 1, HC_ERR_INPUT, "the rank count must be at least 1, got %d", nranks);
  HC_CHECK(sizing == HC_SIZING_GLOBAL || sizing == HC_SIZING_PER_RANK, HC_ERR_INPUT,
           "mesh sizing must be global or per-rank, got %d", (int)sizing);
  for (int d = 0; d < 3; d++) {
    HC_CHECK(cells[d] >= 1, HC_ERR_INPUT, "mesh.cells must be positive in every direction, got %lld x %lld x %lld",
             (long long)cells[0], (long long)cells[1], (long long)cells[2]);
  }
  HC_CHECK((double)cells[0] * (double)cells[1] * (double)cells[2] < 4e18, HC_ERR_INPUT,
           "mesh.cells %lld x %lld x %lld overflows a 64-bit cell count", (long long)cells[0], (long long)cells[1],
           (long long)cells[2]);
  if (best_grid(nranks, sizing, cells, grid)) return HC_OK;

  /* GLOBAL only: say what would fit. The largest rank count that fits, and the smallest box that
     fits nranks (grow the directions of the grid that needs the fewest extra cells). */
  int64_t total = cells[0] * cells[1] * cells[2];
  int fits = 1, g[3];
  int64_t r0 = total < nranks ? total : nranks - 1;
  for (int64_t r = r0, tries = 0; r >= 1 && tries < 100000; r--, tries++) {
    if (best_grid((int)r, sizing, cells, g)) {
      fits = (int)r;
      break;
    }
  }
  int64_t need[3] = {0, 0, 0}, need_total = -1;
  for (int px = 1; px <= nranks; px++) {
    if (nranks % px) continue;
    int q = nranks / px;
    for (int py = 1; py <= q; py++) {
      if (q % py) continue;
      int pz = q / py;
      int64_t m[3] = {cells[0] > px ? cells[0] : px, cells[1] > py ? cells[1] : py, cells[2] > pz ? cells[2] : pz};
      double t = (double)m[0] * m[1] * m[2];
      if (need_total < 0 || t < (double)need_total) {
        need_total = (int64_t)t;
        memcpy(need, m, sizeof(need));
      }
    }
  }
  return HC_ERROR(HC_ERR_INPUT,
                  "mesh.cells %lld x %lld x %lld = %lld cells cannot be split over %d MPI ranks: every rank grid "
                  "px x py x pz = %d would leave some rank without cells (a grid needs px <= %lld, py <= %lld, "
                  "pz <= %lld); run on at most %d ranks, or use more cells (e.g. mesh.cells %lld x %lld x %lld)",
                  (long long)cells[0], (long long)cells[1], (long long)cells[2], (long long)total, nranks, nranks,
                  (long long)cells[0], (long long)cells[1], (long long)cells[2], fits, (long long)need[0],
                  (long long)need[1], (long long)need[2]);
}
