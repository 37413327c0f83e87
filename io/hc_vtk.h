/* ParaView output: one rank's hexahedra of order p as a VTK XML UnstructuredGrid (.vtu), the parallel file
   that joins the ranks' pieces (.pvtu) and the collection that lists the written steps with their times (.pvd). */
#ifndef HC_VTK_H
#define HC_VTK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HC_VTK_MAX_ORDER 4
/* VTK's own cell types (vtkCellType.h) the writer uses: order 1, 2, and 3..HC_VTK_MAX_ORDER. */
#define HC_VTK_HEXAHEDRON              12
#define HC_VTK_TRIQUADRATIC_HEXAHEDRON 29
#define HC_VTK_LAGRANGE_HEXAHEDRON     72
/* Most files a run may write (all ranks and steps together): every one is checked before the run. */
#define HC_VTK_MAX_FILES 100000

/* A named array of doubles: one value per cell or per node. Borrowed. */
typedef struct {
  const char *name;
  const double *values;
} hc_vtk_field;

/* One rank's piece of a mesh of hexahedra of order p, whatever built it (a box or an unstructured mesh):
   its cells, their nodes and the nodes' coordinates. Every array is borrowed.
   A cell's L = (p+1)^3 nodes are in tensor-product order, node (i,j,k) = i + (p+1) * (j + (p+1) * k) with i
   along the cell's first reference direction, 0 <= i,j,k <= p (mesh/hc_mesh.h); the writer maps them to VTK's
   order. Nodes may sit anywhere along the reference axes (Gauss-Lobatto-Legendre points here); VTK places
   them at equispaced parameters, which changes how it interpolates inside a cell, not the nodes or cells. */
typedef struct {
  int rank;                         /* written as the cell data "rank" */
  int order;                        /* p = 1..HC_VTK_MAX_ORDER */
  int64_t C;                        /* cells */
  const int32_t *cell_nodes;        /* [C][L] local node ids, cell-major */
  int64_t num_nodes;                /* local nodes */
  const double *x;                  /* [num_nodes][3] coordinates */
  const int64_t *global_id;         /* [num_nodes] global node ids (point data GlobalNodeId), or NULL */
  int num_cell_fields;              /* cell data besides "rank" */
  const hc_vtk_field *cell_fields;  /* [num_cell_fields], each [C] */
  int num_point_fields;             /* point data besides GlobalNodeId */
  const hc_vtk_field *point_fields; /* [num_point_fields], each [num_nodes] */
  double time;                      /* written as the field data TimeValue */
} hc_vtk_piece;

/* The VTK cell type of order p: HC_VTK_HEXAHEDRON, HC_VTK_TRIQUADRATIC_HEXAHEDRON or
   HC_VTK_LAGRANGE_HEXAHEDRON; 0 outside 1..HC_VTK_MAX_ORDER. */
int hc_vtk_cell_type(int order);

/* VTK's node order of a cell of order p: vtk[n] is the tensor-product index i + (p+1)(j + (p+1)k) of VTK's
   n-th node (corners, then edges, faces and the interior, as vtkHigherOrderHexahedron::PointIndexFromIJK
   numbers them in VTK 9, which for p = 2 is also the order of the triquadratic hexahedron). vtk: [(p+1)^3]. */
int hc_vtk_node_order(int order, int *vtk);

/* Writes piece as an ASCII XML UnstructuredGrid to path, atomically (io/hc_atomic_file.h). Coordinates and
   fields are written with 17 significant digits, so they read back bitwise. Not collective. */
int hc_vtk_write_piece(const char *path, const hc_vtk_piece *piece);

/* Writes the parallel file (.pvtu) at path that joins npieces pieces written with the arrays of piece (names
   and types; its values are not read); sources[r] is piece r's file name relative to path's directory.
   Atomic. Not collective. */
int hc_vtk_write_parallel(const char *path, const hc_vtk_piece *piece, int npieces, const char *const *sources);

/* Writes the collection (.pvd) at path listing n files (relative to path's directory) with their times.
   Atomic. Not collective. */
int hc_vtk_write_collection(const char *path, int n, const double *times, const char *const *files);

/* The file names of a run's VTK output: output.dir/NAME... with NAME the results file name without its
   .yaml or .yml extension. With a series (output.vtk_every > 0) each written step has its own set,
   NAME_STEP.pvtu and NAME_STEP_rR.vtu (STEP the timed step, zero-padded to the digits of the step count),
   listed by NAME.pvd; without, one set NAME.pvtu and NAME_rR.vtu. */
typedef struct {
  char dir[1024];  /* output.dir */
  char name[1024]; /* NAME, possibly with directories of the results name */
  int series;      /* 1: a set per written step and the collection */
  int width;       /* digits of STEP */
} hc_vtk_names;

typedef enum { HC_VTK_PIECE = 0, HC_VTK_PARALLEL = 1, HC_VTK_COLLECTION = 2 } hc_vtk_file;

/* Fills names for output.dir, output.results, whether there is a series and the run's timed steps. An empty
   NAME (a results file named ".yaml") is HC_ERR_INPUT. */
int hc_vtk_names_init(hc_vtk_names *names, const char *dir, const char *results, int series, int steps);

/* The path (with dir, or without: the file name alone, for the references between the files) of one file:
   a piece (step, rank), a parallel file (step) or the collection. HC_ERR_INPUT when it does not fit in n. */
int hc_vtk_path(const hc_vtk_names *names, hc_vtk_file kind, int step, int rank, int with_dir, char *buf, size_t n);

/* Whether timed step (1-based) of steps writes a set with output.vtk_every = every: every every-th step
   and the last one; with every = 0 the last one only. */
int hc_vtk_writes_step(int step, int steps, int every);

/* The number of sets a run of steps timed steps writes with output.vtk_every = every. */
int64_t hc_vtk_num_sets(int steps, int every);

#ifdef __cplusplus
}
#endif

#endif
