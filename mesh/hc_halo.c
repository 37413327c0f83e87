/* Neighbour lists, packing and the non-blocking summing exchange of nodal vectors. */
#include "mesh/hc_halo.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/base/hc_mpi.h"

struct hc_halo {
  MPI_Comm comm;         /* duplicate of the mesh's communicator, MPI_ERRORS_RETURN */
  int64_t num_nodes;     /* local nodes of the mesh */
  int num_neighbors;     /* neighbour ranks, in increasing rank order */
  int num_lower;         /* neighbours whose rank is below this rank's */
  int *neighbor;         /* neighbor: [num_neighbors], their ranks */
  int64_t *offset;       /* offset: [num_neighbors + 1], start of each neighbour's list in index */
  int32_t *index;        /* index: [offset[num_neighbors]], local nodes shared with each neighbour */
  int64_t num_shared;    /* local nodes shared with any neighbour */
  int32_t *shared;       /* shared: [num_shared], those nodes */
  void *send_buf;        /* [capacity * offset[num_neighbors]] values, sized for double */
  void *recv_buf;        /* [capacity * offset[num_neighbors]] values, sized for double */
  int capacity;          /* vectors the buffers hold at once */
  void *work;            /* [num_nodes] values, sized for double: sums of shared nodes */
  MPI_Request *requests; /* [2 * num_neighbors]: receives, then sends */
};

int hc_halo_create_from_sharing(MPI_Comm comm, const hc_sharing *sharing, hc_halo **halo) {
  int ierr = HC_OK;
  hc_halo *h = NULL;
  uint8_t *mark = NULL;
  HC_CHECK(sharing && halo, HC_ERR_INPUT, "hc_halo_create_from_sharing: NULL argument");
  *halo = NULL;
  const hc_sharing *s = sharing;
  const int nn = s->num_neighbors;
  const int64_t total = s->offset[nn];
  h = calloc(1, sizeof(*h));
  HC_CHECK(h, HC_ERR_RESOURCE, "rank %d: out of memory allocating the halo", s->rank);
  h->comm = MPI_COMM_NULL;
  h->num_nodes = s->num_nodes;
  h->num_neighbors = nn;
  h->num_lower = 0;
  while (h->num_lower < nn && s->neighbor[h->num_lower] < s->rank) h->num_lower++;
  h->neighbor = malloc((size_t)(nn > 0 ? nn : 1) * sizeof(*h->neighbor));
  h->offset = malloc((size_t)(nn + 1) * sizeof(*h->offset));
  h->index = malloc((size_t)(total > 0 ? total : 1) * sizeof(*h->index));
  h->capacity = 1;
  h->send_buf = malloc((size_t)(total > 0 ? total : 1) * sizeof(double));
  h->recv_buf = malloc((size_t)(total > 0 ? total : 1) * sizeof(double));
  h->work = malloc((size_t)(s->num_nodes > 0 ? s->num_nodes : 1) * sizeof(double));
  h->requests = malloc((size_t)(2 * nn > 0 ? 2 * nn : 1) * sizeof(*h->requests));
  mark = calloc((size_t)(s->num_nodes > 0 ? s->num_nodes : 1), sizeof(*mark));
  HC_CHECK_GOTO(h->neighbor && h->offset && h->index && h->send_buf && h->recv_buf && h->work && h->requests && mark,
                HC_ERR_RESOURCE, cleanup, "rank %d: out of memory allocating halo buffers of %lld values", s->rank,
                (long long)total);
  memcpy(h->neighbor, s->neighbor, (size_t)nn * sizeof(*h->neighbor));
  memcpy(h->offset, s->offset, (size_t)(nn + 1) * sizeof(*h->offset));
  memcpy(h->index, s->index, (size_t)total * sizeof(*h->index));

  /* The shared nodes in increasing local id. */
  for (int64_t k = 0; k < total; k++) mark[h->index[k]] = 1;
  h->num_shared = 0;
  for (int64_t n = 0; n < s->num_nodes; n++) h->num_shared += mark[n];
  h->shared = malloc((size_t)(h->num_shared > 0 ? h->num_shared : 1) * sizeof(*h->shared));
  HC_CHECK_GOTO(h->shared, HC_ERR_RESOURCE, cleanup, "rank %d: out of memory in the halo", s->rank);
  for (int64_t n = 0, k = 0; n < s->num_nodes; n++) {
    if (mark[n]) h->shared[k++] = (int32_t)n;
  }

  HC_CALL_MPI_GOTO(MPI_Comm_dup(comm, &h->comm), cleanup);
  HC_CALL_MPI_GOTO(MPI_Comm_set_errhandler(h->comm, MPI_ERRORS_RETURN), cleanup);
  *halo = h;
  h = NULL;
cleanup:
  free(mark);
  if (h) hc_halo_destroy(&h);
  return ierr;
}

int hc_halo_create(const hc_mesh *mesh, hc_halo **halo) {
  HC_CHECK(mesh && halo, HC_ERR_INPUT, "hc_halo_create: NULL argument");
  *halo = NULL;
  if (mesh->sharing) return hc_halo_create_from_sharing(mesh->comm, mesh->sharing, halo);
  hc_sharing *sharing = NULL;
  HC_CALL(hc_sharing_create(mesh->comm, mesh->num_nodes, mesh->node_global_id, mesh->C, mesh->order, mesh->cell_nodes,
                            &sharing));
  int ierr = hc_halo_create_from_sharing(mesh->comm, sharing, halo);
  hc_sharing_destroy(&sharing);
  return ierr;
}

/* Packing and summing of nvec vectors for one scalar type T, generated for double and float from one
   source. Buffers are neighbour-major: neighbour i's message holds each vector's values for its nodes in
   turn, starting at nvec * offset[i]. */
#define HC_HALO_DEFINE_TYPED(T)                                                               \
  static void halo_pack_##T(const hc_halo *h, int nvec, T *const *x) {                        \
    T *send = h->send_buf;                                                                    \
    for (int i = 0; i < h->num_neighbors; i++) {                                              \
      const int64_t o = h->offset[i], cnt = h->offset[i + 1] - o;                             \
      for (int v = 0; v < nvec; v++) {                                                        \
        T *dst = send + nvec * o + v * cnt;                                                   \
        for (int64_t k = 0; k < cnt; k++) dst[k] = x[v][h->index[o + k]];                     \
      }                                                                                       \
    }                                                                                         \
  }                                                                                           \
  static void halo_add_##T(const hc_halo *h, int nvec, int v, int first, int last, T *work) { \
    const T *recv = h->recv_buf;                                                              \
    for (int i = first; i < last; i++) {                                                      \
      const int64_t o = h->offset[i], cnt = h->offset[i + 1] - o;                             \
      const T *src = recv + nvec * o + v * cnt;                                               \
      for (int64_t k = 0; k < cnt; k++) work[h->index[o + k]] += src[k];                      \
    }                                                                                         \
  }                                                                                           \
  static void halo_sum_##T(const hc_halo *h, int nvec, T *const *x) {                         \
    T *work = h->work;                                                                        \
    for (int v = 0; v < nvec; v++) {                                                          \
      for (int64_t s = 0; s < h->num_shared; s++) work[h->shared[s]] = 0;                     \
      halo_add_##T(h, nvec, v, 0, h->num_lower, work);                                        \
      for (int64_t s = 0; s < h->num_shared; s++) work[h->shared[s]] += x[v][h->shared[s]];   \
      halo_add_##T(h, nvec, v, h->num_lower, h->num_neighbors, work);                         \
      for (int64_t s = 0; s < h->num_shared; s++) x[v][h->shared[s]] = work[h->shared[s]];    \
    }                                                                                         \
  }

HC_HALO_DEFINE_TYPED(double)
HC_HALO_DEFINE_TYPED(float)

/* Posts one round of messages for nvec vectors of one precision: receives, packing, sends. */
static int hc_halo_begin_vectors(hc_halo *h, hc_precision precision, int nvec, void *const *x) {
  const int nn = h->num_neighbors;
  if (nn == 0 || nvec == 0) return HC_OK;
  if (nvec > h->capacity) {
    size_t n = (size_t)nvec * (size_t)(h->offset[nn] > 0 ? h->offset[nn] : 1) * sizeof(double);
    void *send = realloc(h->send_buf, n);
    if (send) h->send_buf = send;
    void *recv = send ? realloc(h->recv_buf, n) : NULL;
    if (recv) h->recv_buf = recv;
    HC_CHECK(send && recv, HC_ERR_RESOURCE, "out of memory for the halo buffers of %d vectors (%zu bytes)", nvec, n);
    h->capacity = nvec;
  }
  const MPI_Datatype type = precision == HC_DOUBLE ? MPI_DOUBLE : MPI_FLOAT;
  const size_t size = hc_precision_size(precision);
  char *send = h->send_buf, *recv = h->recv_buf;
  for (int i = 0; i < nn; i++) {
    HC_CALL_MPI(MPI_Irecv(recv + nvec * h->offset[i] * size, (int)(nvec * (h->offset[i + 1] - h->offset[i])), type,
                          h->neighbor[i], 0, h->comm, &h->requests[i]));
  }
  if (precision == HC_DOUBLE) {
    halo_pack_double(h, nvec, (double *const *)x);
  } else {
    halo_pack_float(h, nvec, (float *const *)x);
  }
  for (int i = 0; i < nn; i++) {
    HC_CALL_MPI(MPI_Isend(send + nvec * h->offset[i] * size, (int)(nvec * (h->offset[i + 1] - h->offset[i])), type,
                          h->neighbor[i], 0, h->comm, &h->requests[nn + i]));
  }
  return HC_OK;
}

/* Completes the round posted by hc_halo_begin_vectors and sums into the vectors. */
static int hc_halo_end_vectors(hc_halo *h, hc_precision precision, int nvec, void *const *x) {
  const int nn = h->num_neighbors;
  if (nn == 0 || nvec == 0) return HC_OK;
  HC_CALL_MPI(MPI_Waitall(2 * nn, h->requests, MPI_STATUSES_IGNORE));
  if (precision == HC_DOUBLE) {
    halo_sum_double(h, nvec, (double *const *)x);
  } else {
    halo_sum_float(h, nvec, (float *const *)x);
  }
  return HC_OK;
}

/* Sums nvec vectors of one precision in one round of messages. */
static int hc_halo_exchange_vectors(hc_halo *h, hc_precision precision, int nvec, void *const *x) {
  HC_CALL(hc_halo_begin_vectors(h, precision, nvec, x));
  return hc_halo_end_vectors(h, precision, nvec, x);
}

int hc_halo_exchange(hc_halo *halo, hc_precision precision, void *x) {
  HC_CHECK(halo && (x || halo->num_nodes == 0), HC_ERR_INPUT, "hc_halo_exchange: NULL argument");
  HC_CHECK(precision == HC_DOUBLE || precision == HC_FLOAT, HC_ERR_INPUT, "hc_halo_exchange: unknown precision %d",
           (int)precision);
  return hc_halo_exchange_vectors(halo, precision, 1, &x);
}

static int hc_halo_check_many(const hc_halo *halo, int nvec, double *const *x) {
  HC_CHECK(halo && nvec >= 0 && (nvec == 0 || x), HC_ERR_INPUT, "hc_halo_exchange_many: bad arguments");
  for (int v = 0; v < nvec; v++)
    HC_CHECK(x[v] || halo->num_nodes == 0, HC_ERR_INPUT, "hc_halo_exchange_many: vector %d is NULL", v);
  return HC_OK;
}

int hc_halo_begin_many(hc_halo *halo, int nvec, double *const *x) {
  HC_CALL(hc_halo_check_many(halo, nvec, x));
  return hc_halo_begin_vectors(halo, HC_DOUBLE, nvec, (void *const *)x);
}

int hc_halo_end_many(hc_halo *halo, int nvec, double *const *x) {
  HC_CALL(hc_halo_check_many(halo, nvec, x));
  return hc_halo_end_vectors(halo, HC_DOUBLE, nvec, (void *const *)x);
}

int hc_halo_exchange_many(hc_halo *halo, int nvec, double *const *x) {
  HC_CHECK(halo && nvec >= 0 && (nvec == 0 || x), HC_ERR_INPUT, "hc_halo_exchange_many: bad arguments");
  for (int v = 0; v < nvec; v++)
    HC_CHECK(x[v] || halo->num_nodes == 0, HC_ERR_INPUT, "hc_halo_exchange_many: vector %d is NULL", v);
  return hc_halo_exchange_vectors(halo, HC_DOUBLE, nvec, (void *const *)x);
}

int hc_halo_shared(const hc_halo *halo, int64_t *num_shared, const int32_t **shared) {
  HC_CHECK(halo && num_shared && shared, HC_ERR_INPUT, "hc_halo_shared: NULL argument");
  *num_shared = halo->num_shared;
  *shared = halo->shared;
  return HC_OK;
}

int hc_halo_get_stats(const hc_halo *halo, hc_precision precision, hc_halo_stats *stats) {
  HC_CHECK(halo && stats, HC_ERR_INPUT, "hc_halo_get_stats: NULL argument");
  HC_CHECK(precision == HC_DOUBLE || precision == HC_FLOAT, HC_ERR_INPUT, "hc_halo_get_stats: unknown precision %d",
           (int)precision);
  stats->num_neighbors = halo->num_neighbors;
  stats->shared_nodes = halo->num_shared;
  stats->send_values = halo->offset[halo->num_neighbors];
  stats->send_bytes = stats->send_values * (int64_t)hc_precision_size(precision);
  stats->recv_bytes = stats->send_bytes;
  return HC_OK;
}

int hc_halo_destroy(hc_halo **halo) {
  if (!halo || !*halo) return HC_OK;
  hc_halo *h = *halo;
  int ierr = HC_OK;
  free(h->neighbor);
  free(h->offset);
  free(h->index);
  free(h->shared);
  free(h->send_buf);
  free(h->recv_buf);
  free(h->work);
  free(h->requests);
  if (h->comm != MPI_COMM_NULL) {
    int err = MPI_Comm_free(&h->comm);
    if (err != MPI_SUCCESS) ierr = hc_mpi_error(err, "MPI_Comm_free(&h->comm)", __FILE__, __LINE__, __func__);
  }
  free(h);
  *halo = NULL;
  return ierr;
}
