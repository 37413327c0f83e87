/* One rank's slice of a mesh file (hc_meshfile_read_slice): read in parts by every rank (Exodus II), or dealt out
   by rank 0 (Gmsh). */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/hc_meshfile_impl.h"
#include "kernels/base/hc_error.h"
#include "kernels/base/hc_mpi.h"

int hc_meshfile_slice_destroy(hc_meshfile_slice **slice) {
  if (!slice || !*slice) return HC_OK;
  hc_meshfile_slice *s = *slice;
  hc_meshfile_destroy(&s->mesh);
  free(s->node);
  free(s);
  *slice = NULL;
  return HC_OK;
}

/* The slice of rank r of R among N cells: first and count. */
static void hc_slice_range(int64_t N, int R, int r, int64_t *first, int64_t *count) {
  *first = N * r / R;
  *count = N * (r + 1) / R - *first;
}

/* An empty slice of C cells of G nodes for path, with mesh->cells set (c G + g). */
static int hc_slice_alloc(const char *path, const char *format, int G, int64_t N, int64_t first, int64_t C,
                          hc_meshfile_slice **out) {
  hc_meshfile_slice *s = calloc(1, sizeof(*s));
  HC_CHECK(s, HC_ERR_RESOURCE, "'%s': out of memory", path);
  *out = s;
  s->first = first;
  s->num_global_cells = N;
  HC_CALL(hc_meshfile_alloc(path, format, G, C * G, C, &s->mesh));
  s->node = malloc((size_t)C * G * sizeof(int64_t) + 1);
  HC_CHECK(s->node, HC_ERR_RESOURCE, "'%s': out of memory for a slice of %" PRId64 " cells", path, C);
  for (int64_t i = 0; i < C * G; i++) s->mesh->cells[i] = i;
  return HC_OK;
}

/* ---- Rank 0 deals the slices of a mesh it holds whole. ---- */

/* A cell as 8-byte words: its tag, its nodes' indices [G], their tags [G], their coordinates [G][3]. */
static void hc_slice_pack(const hc_meshfile *m, int64_t c, int64_t *w) {
  const int G = m->nodes_per_cell;
  w[0] = m->cell_tag[c];
  for (int g = 0; g < G; g++) {
    const int64_t v = m->cells[c * G + g];
    w[1 + g] = v;
    w[1 + G + g] = m->vertex_tag[v];
    memcpy(w + 1 + 2 * G + 3 * g, m->coords + 3 * v, 3 * sizeof(double));
  }
}

static void hc_slice_unpack(const int64_t *w, int64_t c, hc_meshfile_slice *s) {
  const int G = s->mesh->nodes_per_cell;
  s->mesh->cell_tag[c] = w[0];
  for (int g = 0; g < G; g++) {
    s->node[c * G + g] = w[1 + g];
    s->mesh->vertex_tag[c * G + g] = w[1 + G + g];
  }
  memcpy(s->mesh->coords + c * G * 3, w + 1 + 2 * G, (size_t)G * 3 * sizeof(double));
}

static int hc_slice_deal(MPI_Comm comm, const char *path, const hc_meshfile *whole, hc_meshfile_slice **out) {
  int ierr = HC_OK, rank = 0, R = 1;
  HC_CALL_MPI(MPI_Comm_rank(comm, &rank));
  HC_CALL_MPI(MPI_Comm_size(comm, &R));
  hc_meshfile *own = NULL;
  if (rank == 0 && !whole) {
    ierr = hc_meshfile_read(path, &own);
    whole = own;
  }
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), done);
  int64_t head[2] = {rank == 0 ? whole->nodes_per_cell : 0, rank == 0 ? whole->num_cells : 0};
  HC_CALL_MPI_GOTO(MPI_Bcast(head, 2, MPI_INT64_T, 0, comm), done);
  const int G = (int)head[0], W = 1 + 5 * G;
  const int64_t N = head[1];
  int64_t first = 0, C = 0;
  hc_slice_range(N, R, rank, &first, &C);
  ierr = hc_slice_alloc(path, rank == 0 ? whole->format : "gmsh", G, N, first, C, out);
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), done);
  MPI_Datatype cell = MPI_DATATYPE_NULL;
  HC_CALL_MPI_GOTO(MPI_Type_contiguous(W, MPI_INT64_T, &cell), done);
  HC_CALL_MPI_GOTO(MPI_Type_commit(&cell), done_type);
  if (rank == 0) {
    for (int r = 0; r < R && !ierr; r++) {
      int64_t f = 0, n = 0;
      hc_slice_range(N, R, r, &f, &n);
      int64_t *buf = malloc((size_t)n * W * sizeof(int64_t) + 1);
      HC_CHECK_GOTO(buf, HC_ERR_RESOURCE, done_type, "'%s': out of memory dealing slices", path);
      for (int64_t c = 0; c < n; c++) hc_slice_pack(whole, f + c, buf + c * W);
      if (r == 0) {
        for (int64_t c = 0; c < n; c++) hc_slice_unpack(buf + c * W, c, *out);
      } else {
        HC_CHECK_GOTO(n < INT_MAX, HC_ERR_RESOURCE, done_type, "'%s': a slice of %" PRId64 " cells; use more ranks",
                      path, n);
        const int e = MPI_Send(buf, (int)n, cell, r, 78, comm);
        if (e != MPI_SUCCESS) ierr = hc_mpi_error(e, "MPI_Send", __FILE__, __LINE__, __func__);
      }
      free(buf);
    }
  } else {
    int64_t *buf = malloc((size_t)C * W * sizeof(int64_t) + 1);
    HC_CHECK_GOTO(buf, HC_ERR_RESOURCE, done_type, "rank %d: out of memory for its slice of '%s'", rank, path);
    const int e = MPI_Recv(buf, (int)C, cell, 0, 78, comm, MPI_STATUS_IGNORE);
    if (e != MPI_SUCCESS) ierr = hc_mpi_error(e, "MPI_Recv", __FILE__, __LINE__, __func__);
    for (int64_t c = 0; c < C && !ierr; c++) hc_slice_unpack(buf + c * W, c, *out);
    free(buf);
  }
done_type:
  if (cell != MPI_DATATYPE_NULL) MPI_Type_free(&cell);
done:
  hc_meshfile_destroy(&own);
  return ierr;
}

/* ---- Every rank reads its part of an Exodus II file. ---- */

#if HC_HAVE_EXODUS
/* The rank whose share of V nodes holds node v (the shares as hc_slice_range). */
static int hc_node_owner(int64_t V, int R, int64_t v) {
  int r = (int)(v * R / V);
  while (r + 1 < R && V * (r + 1) / R <= v) r++;
  while (r > 0 && V * r / R > v) r--;
  return r;
}

static int hc_slice_read_parts(MPI_Comm comm, const char *path, hc_meshfile_slice **out) {
  int ierr = HC_OK, rank = 0, R = 1;
  HC_CALL_MPI(MPI_Comm_rank(comm, &rank));
  HC_CALL_MPI(MPI_Comm_size(comm, &R));
  hc_exodus_file *f = NULL;
  int G = 8;
  int64_t V = 0, N = 0, first = 0, C = 0, v0 = 0, nv = 0;
  double *ncoords = NULL;
  int64_t *ntags = NULL, *ask = NULL, *got = NULL, *idx = NULL, *ans = NULL, *back = NULL;
  int *sc = calloc((size_t)R, sizeof(int)), *rc = calloc((size_t)R, sizeof(int));
  int *sd = calloc((size_t)R + 1, sizeof(int)), *rd = calloc((size_t)R + 1, sizeof(int));
  ierr = sc && rc && sd && rd ? hc_exodus_open(path, &f) : HC_ERROR(HC_ERR_RESOURCE, "out of memory");
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), done);
  hc_exodus_counts(f, &G, &V, &N);
  hc_slice_range(N, R, rank, &first, &C);
  hc_slice_range(V, R, rank, &v0, &nv);
  ierr = hc_slice_alloc(path, "exodus", G, N, first, C, out);
  if (!ierr) ierr = hc_exodus_read_cells(f, first, C, (*out)->node, (*out)->mesh->cell_tag);
  if (!ierr) {
    ncoords = malloc((size_t)nv * 3 * sizeof(double) + 1);
    ntags = malloc((size_t)nv * sizeof(int64_t) + 1);
    ierr = ncoords && ntags ? hc_exodus_read_nodes(f, v0, nv, ncoords, ntags)
                            : HC_ERROR(HC_ERR_RESOURCE, "'%s': out of memory for %" PRId64 " nodes", path, nv);
  }
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), done);
  /* Each geometry node's coordinates and number from the rank whose share holds it. */
  const int64_t n = C * G;
  HC_CHECK_GOTO(n < INT_MAX / 4, HC_ERR_RESOURCE, agree, "rank %d: a slice of %" PRId64 " cells; use more ranks", rank,
                C);
  ask = malloc((size_t)n * sizeof(int64_t) + 1);
  idx = malloc((size_t)n * sizeof(int64_t) + 1);
  back = malloc((size_t)n * 4 * sizeof(int64_t) + 1);
  HC_CHECK_GOTO(ask && idx && back, HC_ERR_RESOURCE, agree, "rank %d: out of memory reading '%s'", rank, path);
  for (int64_t i = 0; i < n; i++) sc[hc_node_owner(V, R, (*out)->node[i])]++;
  for (int r = 0; r < R; r++) sd[r + 1] = sd[r] + sc[r];
  {
    int *next = calloc((size_t)R, sizeof(int));
    HC_CHECK_GOTO(next, HC_ERR_RESOURCE, agree, "rank %d: out of memory", rank);
    for (int64_t i = 0; i < n; i++) {
      const int r = hc_node_owner(V, R, (*out)->node[i]);
      idx[sd[r] + next[r]] = i;
      ask[sd[r] + next[r]++] = (*out)->node[i];
    }
    free(next);
  }
agree:
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), done);
  HC_CALL_MPI_GOTO(MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm), done);
  for (int r = 0; r < R && !ierr; r++) {
    if ((int64_t)rd[r] + rc[r] >= INT_MAX / 4)
      ierr = HC_ERROR(HC_ERR_RESOURCE, "rank %d: too many nodes asked of it; use more ranks", rank);
    else
      rd[r + 1] = rd[r] + rc[r];
  }
  if (!ierr) {
    got = malloc((size_t)rd[R] * sizeof(int64_t) + 1);
    ans = malloc((size_t)rd[R] * 4 * sizeof(int64_t) + 1);
    if (!got || !ans) ierr = HC_ERROR(HC_ERR_RESOURCE, "rank %d: out of memory reading '%s'", rank, path);
  }
  HC_CALL_GOTO(hc_mpi_agree(comm, ierr), done);
  HC_CALL_MPI_GOTO(MPI_Alltoallv(ask, sc, sd, MPI_INT64_T, got, rc, rd, MPI_INT64_T, comm), done);
  for (int64_t q = 0; q < rd[R]; q++) {
    const int64_t v = got[q] - v0;
    memcpy(ans + 4 * q, ncoords + 3 * v, 3 * sizeof(double));
    ans[4 * q + 3] = ntags[v];
  }
  for (int r = 0; r <= R; r++) {
    if (r < R) sc[r] *= 4, rc[r] *= 4;
    sd[r] *= 4, rd[r] *= 4;
  }
  HC_CALL_MPI_GOTO(MPI_Alltoallv(ans, rc, rd, MPI_INT64_T, back, sc, sd, MPI_INT64_T, comm), done);
  for (int64_t q = 0; q < n; q++) {
    const int64_t i = idx[q];
    memcpy((*out)->mesh->coords + 3 * i, back + 4 * q, 3 * sizeof(double));
    (*out)->mesh->vertex_tag[i] = back[4 * q + 3];
  }
done:
  hc_exodus_close(&f);
  free(sc);
  free(rc);
  free(sd);
  free(rd);
  free(ncoords);
  free(ntags);
  free(ask);
  free(got);
  free(idx);
  free(ans);
  free(back);
  return ierr;
}
#endif

int hc_meshfile_read_slice(MPI_Comm comm, const char *path, const hc_meshfile *whole, hc_meshfile_slice **slice) {
  HC_CHECK(slice, HC_ERR_INPUT, "hc_meshfile_read_slice: slice is NULL");
  *slice = NULL;
  int ierr = HC_OK;
#if HC_HAVE_EXODUS
  if (!whole && hc_meshfile_reads_in_parts(path))
    ierr = hc_slice_read_parts(comm, path, slice);
  else
#endif
    ierr = hc_slice_deal(comm, path, whole, slice);
  /* The checks of the whole reader on each slice: its cells' shapes; the volume of them all. */
  if (!ierr) ierr = hc_mpi_agree(comm, hc_meshfile_check_cells((*slice)->mesh));
  if (!ierr) {
    double mine = hc_meshfile_volume((*slice)->mesh);
    const int e = MPI_Allreduce(&mine, &(*slice)->volume, 1, MPI_DOUBLE, MPI_SUM, comm);
    if (e != MPI_SUCCESS) ierr = hc_mpi_error(e, "MPI_Allreduce", __FILE__, __LINE__, __func__);
  }
  if (ierr) hc_meshfile_slice_destroy(slice);
  return ierr;
}
