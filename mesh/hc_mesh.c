/* Builds one rank's block of the hexahedral box: cells, jittered vertices, node numbering and ownership. */
#include "mesh/hc_mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/base/hc_mpi.h"

void hc_mesh_params_init(hc_mesh_params *params) {
  params->sizing = HC_SIZING_GLOBAL;
  for (int d = 0; d < 3; d++) {
    params->cells[d] = 8;
    params->length[d] = 1.0;
  }
  params->order = 2;
  params->jitter = 0.1;
  params->seed = 0;
}

int hc_mesh_params_validate(const hc_mesh_params *params) {
  HC_CHECK(params, HC_ERR_INPUT, "hc_mesh_params_validate: params is NULL");
  const hc_mesh_params *q = params;
  HC_CHECK(q->sizing == HC_SIZING_GLOBAL || q->sizing == HC_SIZING_PER_RANK, HC_ERR_INPUT,
           "mesh.sizing must be global or per-rank, got %d", (int)q->sizing);
  HC_CHECK(q->cells[0] >= 1 && q->cells[1] >= 1 && q->cells[2] >= 1, HC_ERR_INPUT,
           "mesh.cells must be at least 1 in every direction, got %lld x %lld x %lld", (long long)q->cells[0],
           (long long)q->cells[1], (long long)q->cells[2]);
  for (int d = 0; d < 3; d++) {
    HC_CHECK(isfinite(q->length[d]) && q->length[d] > 0, HC_ERR_INPUT,
             "mesh.length must be positive and finite in every direction, got %g x %g x %g", q->length[0], q->length[1],
             q->length[2]);
  }
  HC_CHECK(q->order >= 1 && q->order <= HC_MESH_MAX_ORDER, HC_ERR_INPUT, "mesh.order must be 1..%d, got %d",
           HC_MESH_MAX_ORDER, q->order);
  HC_CHECK(isfinite(q->jitter) && q->jitter >= 0 && q->jitter < HC_MESH_JITTER_MAX, HC_ERR_INPUT,
           "mesh.jitter must be in [0, 1/6) (a fraction of the cell size; 1/6 and above can invert cells), got %g",
           q->jitter);
  return HC_OK;
}

static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* A uniform number in [-1, 1) from a 64-bit hash. */
static double hash_unit(uint64_t h) {
  return (double)(h >> 11) * 0x1.0p-52 - 1.0;
}

int hc_mesh_vertex_reference(const hc_mesh *mesh, int64_t I, int64_t J, int64_t K, double X[3]) {
  const int64_t *N = mesh->global_cells;
  const int64_t v[3] = {I, J, K};
  HC_CHECK(I >= 0 && I <= N[0] && J >= 0 && J <= N[1] && K >= 0 && K <= N[2], HC_ERR_INPUT,
           "vertex (%lld, %lld, %lld) is outside the vertex grid %lld x %lld x %lld", (long long)I, (long long)J,
           (long long)K, (long long)(N[0] + 1), (long long)(N[1] + 1), (long long)(N[2] + 1));
  int interior = 1;
  for (int d = 0; d < 3; d++) {
    /* I / N first, so that I = N gives exactly the box length. */
    X[d] = mesh->length[d] * ((double)v[d] / (double)N[d]);
    if (v[d] == 0 || v[d] == N[d]) interior = 0;
  }
  if (!interior || mesh->params.jitter == 0) return HC_OK;
  uint64_t vid = (uint64_t)(I + (N[0] + 1) * (J + (N[1] + 1) * K));
  uint64_t h = splitmix64(splitmix64(mesh->params.seed) ^ vid);
  for (int d = 0; d < 3; d++) {
    X[d] += mesh->params.jitter * mesh->cell_size[d] * hash_unit(splitmix64(h + (uint64_t)d));
  }
  return HC_OK;
}

void hc_mesh_node_global_index(const hc_mesh *mesh, int64_t gid, int64_t ijk[3]) {
  const int64_t *G = mesh->global_nodes;
  ijk[0] = gid % G[0];
  ijk[1] = (gid / G[0]) % G[1];
  ijk[2] = gid / (G[0] * G[1]);
}

/* Fills the arrays of m, whose sizes are set. */
static int mesh_fill(hc_mesh *m) {
  const int p = m->order, P1 = p + 1, L = m->nodes_per_cell;
  const int64_t *lc = m->local_cells, *ln = m->local_nodes, *b0 = m->cell_begin, *G = m->global_nodes;
  for (int64_t ck = 0; ck < lc[2]; ck++) {
    for (int64_t cj = 0; cj < lc[1]; cj++) {
      for (int64_t ci = 0; ci < lc[0]; ci++) {
        const int64_t c = ci + lc[0] * (cj + lc[1] * ck);
        const int64_t g[3] = {b0[0] + ci, b0[1] + cj, b0[2] + ck};
        for (int d = 0; d < 3; d++) m->cell_index[c * 3 + d] = g[d];
        for (int v = 0; v < 8; v++) {
          HC_CALL(hc_mesh_vertex_reference(m, g[0] + (v & 1), g[1] + ((v >> 1) & 1), g[2] + ((v >> 2) & 1),
                                           &m->vertex_coords[(c * 8 + v) * 3]));
        }
        for (int k = 0; k < P1; k++) {
          for (int j = 0; j < P1; j++) {
            for (int i = 0; i < P1; i++) {
              m->cell_nodes[c * L + i + P1 * (j + P1 * k)] =
                  (int32_t)((p * ci + i) + ln[0] * ((p * cj + j) + ln[1] * (p * ck + k)));
            }
          }
        }
      }
    }
  }
  for (int64_t c = 0; c < ln[2]; c++) {
    for (int64_t b = 0; b < ln[1]; b++) {
      for (int64_t a = 0; a < ln[0]; a++) {
        const int64_t n = a + ln[0] * (b + ln[1] * c);
        m->node_global_id[n] = (p * b0[0] + a) + G[0] * ((p * b0[1] + b) + G[1] * (p * b0[2] + c));
        const int64_t g[3] = {p * b0[0] + a, p * b0[1] + b, p * b0[2] + c};
        m->node_boundary[n] =
            (uint8_t)(g[0] == 0 || g[0] == G[0] - 1 || g[1] == 0 || g[1] == G[1] - 1 || g[2] == 0 || g[2] == G[2] - 1);
      }
    }
  }
  return HC_OK;
}

int hc_mesh_own(hc_mesh *m) {
  HC_CALL(hc_sharing_create(m->comm, m->num_nodes, m->node_global_id, m->C, m->order, m->cell_nodes, &m->sharing));
  memcpy(m->node_owned, m->sharing->node_owned, (size_t)m->num_nodes * sizeof(*m->node_owned));
  m->num_owned_nodes = m->sharing->num_owned;
  return HC_OK;
}

int hc_mesh_create(MPI_Comm comm, const hc_mesh_params *params, hc_mesh **mesh) {
  int ierr = HC_OK;
  hc_mesh *m = NULL;
  HC_CHECK(params && mesh, HC_ERR_INPUT, "hc_mesh_create: NULL argument");
  *mesh = NULL;
  HC_CALL(hc_mesh_params_validate(params));
  int rank = 0, nranks = 1, grid[3];
  HC_CALL_MPI(MPI_Comm_rank(comm, &rank));
  HC_CALL_MPI(MPI_Comm_size(comm, &nranks));
  HC_CALL(hc_partition_grid(nranks, params->sizing, params->cells, grid));

  const int p = params->order;
  int64_t N[3];
  double len[3], nodes_global = 1, nodes_block = 1;
  for (int d = 0; d < 3; d++) {
    if (params->sizing == HC_SIZING_PER_RANK) {
      N[d] = params->cells[d] * grid[d];
      len[d] = params->length[d] * grid[d];
    } else {
      N[d] = params->cells[d];
      len[d] = params->length[d];
    }
    nodes_global *= (double)p * (double)N[d] + 1;
    /* The largest block, the same on every rank, so that every rank raises the same errors. */
    nodes_block *= (double)p * (double)((N[d] + grid[d] - 1) / grid[d]) + 1;
  }
  HC_CHECK(nodes_global < 4e18, HC_ERR_INPUT,
           "a mesh of %lld x %lld x %lld cells of order %d has %.3g nodes, more than 64-bit ids allow", (long long)N[0],
           (long long)N[1], (long long)N[2], p, nodes_global);
  HC_CHECK(nodes_block <= (double)INT32_MAX, HC_ERR_INPUT,
           "a block of the %lld x %lld x %lld cell mesh of order %d on %d ranks (grid %d x %d x %d) has %.3g nodes, "
           "more than 32-bit local ids allow (2^31 - 1); use more ranks or fewer cells per rank",
           (long long)N[0], (long long)N[1], (long long)N[2], p, nranks, grid[0], grid[1], grid[2], nodes_block);

  m = calloc(1, sizeof(*m));
  HC_CHECK(m, HC_ERR_RESOURCE, "rank %d: out of memory allocating the mesh", rank);
  m->comm = MPI_COMM_NULL;
  m->source = HC_MESH_SOURCE_BOX;
  m->geometry_nodes = 8;
  m->rank = rank;
  m->nranks = nranks;
  m->params = *params;
  m->order = p;
  m->nodes_per_cell = (p + 1) * (p + 1) * (p + 1);
  m->num_global_cells = N[0] * N[1] * N[2];
  m->num_global_nodes = 1;
  m->C = 1;
  m->num_nodes = 1;
  hc_partition_coords(grid, rank, m->rank_coords);
  for (int d = 0; d < 3; d++) {
    m->global_cells[d] = N[d];
    m->length[d] = len[d];
    m->cell_size[d] = len[d] / (double)N[d];
    m->global_nodes[d] = p * N[d] + 1;
    m->num_global_nodes *= m->global_nodes[d];
    m->rank_grid[d] = grid[d];
    hc_partition_block(N[d], grid[d], m->rank_coords[d], &m->cell_begin[d], &m->local_cells[d]);
    m->local_nodes[d] = p * m->local_cells[d] + 1;
    m->C *= m->local_cells[d];
    m->num_nodes *= m->local_nodes[d];
    m->bounds[0][d] = 0.0;
    m->bounds[1][d] = len[d];
  }
  m->volume = len[0] * len[1] * len[2];
  /* Faces between blocks: each cut plane across direction d holds the box's cells in the two others. */
  m->edge_cut = 0;
  for (int d = 0; d < 3; d++) m->edge_cut += (int64_t)(grid[d] - 1) * N[(d + 1) % 3] * N[(d + 2) % 3];
  m->cell_index = malloc((size_t)m->C * 3 * sizeof(*m->cell_index));
  m->vertex_coords = malloc((size_t)m->C * 8 * 3 * sizeof(*m->vertex_coords));
  m->cell_nodes = malloc((size_t)m->C * m->nodes_per_cell * sizeof(*m->cell_nodes));
  m->node_global_id = malloc((size_t)m->num_nodes * sizeof(*m->node_global_id));
  m->node_owned = malloc((size_t)m->num_nodes * sizeof(*m->node_owned));
  m->node_boundary = malloc((size_t)m->num_nodes * sizeof(*m->node_boundary));
  HC_CHECK_GOTO(
      m->cell_index && m->vertex_coords && m->cell_nodes && m->node_global_id && m->node_owned && m->node_boundary,
      HC_ERR_RESOURCE, cleanup, "rank %d: out of memory allocating a mesh block of %lld cells", rank, (long long)m->C);
  HC_CALL_GOTO(mesh_fill(m), cleanup);
  HC_CALL_MPI_GOTO(MPI_Comm_dup(comm, &m->comm), cleanup);
  HC_CALL_MPI_GOTO(MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN), cleanup);
  HC_CALL_GOTO(hc_mesh_own(m), cleanup);
  *mesh = m;
  m = NULL;
cleanup:
  if (m) hc_mesh_destroy(&m);
  return ierr;
}

int hc_mesh_destroy(hc_mesh **mesh) {
  if (!mesh || !*mesh) return HC_OK;
  hc_mesh *m = *mesh;
  int ierr = HC_OK;
  free(m->cell_index);
  free(m->vertex_coords);
  free(m->cell_nodes);
  free(m->node_global_id);
  free(m->node_owned);
  free(m->node_boundary);
  free(m->cell_tag);
  hc_sharing_destroy(&m->sharing);
  if (m->comm != MPI_COMM_NULL) {
    int err = MPI_Comm_free(&m->comm);
    if (err != MPI_SUCCESS) ierr = hc_mpi_error(err, "MPI_Comm_free(&m->comm)", __FILE__, __LINE__, __func__);
  }
  free(m);
  *mesh = NULL;
  return ierr;
}

int hc_mesh_nodal_dot(const hc_mesh *mesh, hc_precision precision, const void *x, const void *y, double *result) {
  HC_CHECK(mesh && x && result, HC_ERR_INPUT, "hc_mesh_nodal_dot: NULL argument");
  double local = 0;
  if (precision == HC_DOUBLE) {
    const double *a = x, *b = y;
    for (int64_t n = 0; n < mesh->num_nodes; n++) {
      if (mesh->node_owned[n]) local += b ? a[n] * b[n] : a[n];
    }
  } else if (precision == HC_FLOAT) {
    const float *a = x, *b = y;
    for (int64_t n = 0; n < mesh->num_nodes; n++) {
      if (mesh->node_owned[n]) local += b ? (double)a[n] * (double)b[n] : (double)a[n];
    }
  } else {
    return HC_ERROR(HC_ERR_INPUT, "hc_mesh_nodal_dot: unknown precision %d", (int)precision);
  }
  HC_CALL_MPI(MPI_Allreduce(&local, result, 1, MPI_DOUBLE, MPI_SUM, mesh->comm));
  return HC_OK;
}
