/* Point-wise maths of the cell data, compiled by the host C compiler and by nvcc: the mesh motion,
   1D Lagrange basis, trilinear and triquadratic geometry, the data functions of kernels/README.md and the
   entries of the nine contractions' left and right arrays. */
#ifndef HC_POINTWISE_H
#define HC_POINTWISE_H

#include <math.h>

#include "kernels/hc_kernels.h"

#ifdef __CUDACC__
#define HC_HOST_DEVICE __host__ __device__
#else
#define HC_HOST_DEVICE
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define HC_PI 3.14159265358979323846

/* A cell whose det J at some point is at most HC_DET_RTOL * (dx/2)(dy/2)(dz/2), with dx, dy, dz the
   extents of the cell's bounding box in x, y and z, is inverted or degenerate. The ratio is at most 6
   and exactly 1 for an undeformed box, however long or thin: stretching a cell along an axis scales its
   det J and that extent alike, so only the cell's shape decides, not its size or aspect ratio. */
#define HC_DET_RTOL 1e-10

/* The time-dependent shear of mesh/README.md, applied to each vertex:
   x = X + A sin(2 pi Y/LY) sin(2 pi Z/LZ) sin(omega t), y = Y, z = Z. Lengths in mesh units,
   omega in radians per unit time. Points on the y and z faces stay put (a sine vanishes there) and
   both x faces shift alike, so the total volume stays LX*LY*LZ. */
typedef struct hc_motion {
  double LX, LY, LZ; /* box size */
  double A;          /* shear amplitude (0: no motion) */
  double omega;      /* angular frequency */
} hc_motion;

/* Which data functions f, g, F, kappa, s, u, sigma, eps the cell data uses.
   HC_DATA_SMOOTH: the smooth functions below (hc_data_f ... hc_data_sigma_eps).
   HC_DATA_CONSTANT: f = g = 1, F = (1,1,1), kappa = s = I, u = e_x, sigma = eps = e_x e_x^T, so that
     every DataData kernel integrates 1 (the volume check) and kappa's stiffness is the Laplacian.
   HC_DATA_POLYNOMIAL: f = s0^a s1^b s2^c in the box's normalised coordinates s = (x/LX, y/LY, z/LZ), a
     polynomial of degree {a,b,c} in x, y, z whose values stay near 1 at any length scale (the
     exactness check; its integral over the box is LX LY LZ / ((a+1)(b+1)(c+1))),
     everything else as in HC_DATA_CONSTANT. */
typedef enum { HC_DATA_SMOOTH = 0, HC_DATA_CONSTANT = 1, HC_DATA_POLYNOMIAL = 2 } hc_data_mode;

typedef struct hc_data_params {
  hc_data_mode mode;
  double LX, LY, LZ; /* the smooth functions use s = (x/LX, y/LY, z/LZ) */
  int degree[3];     /* HC_DATA_POLYNOMIAL: exponents of s0, s1, s2 in f */
} hc_data_params;

/* Geometry of a cell's map (trilinear or triquadratic) at one point. */
typedef struct hc_point_geom {
  double x[3];       /* physical point */
  double Jinv[3][3]; /* J^-1, J[i][k] = dx_i / dxi_k */
  double det;        /* det J */
  double wdet;       /* quadrature weight times |det J| */
} hc_point_geom;

/* The data functions at one point (only those its kernel needs are filled). */
typedef struct hc_point_data {
  double f, g;
  double F[3], u[3];
  double kappa[3][3], s[3][3], sigma[3][3], eps[3][3];
} hc_point_data;

/* The shear's factor of one vertex, A sin(2 pi Y/LY) sin(2 pi Z/LZ), which does not change with time: its shift at
   time t is this times sin(omega t), the same bits as hc_motion_apply's product (hc_celldata_shear keeps it). */
HC_HOST_DEVICE static inline double hc_motion_factor(const hc_motion *m, const double X[3]) {
  return m->A * sin(2.0 * HC_PI * X[1] / m->LY) * sin(2.0 * HC_PI * X[2] / m->LZ);
}

/* The shear's factor at time t, sin(omega t), which every node shares. */
HC_HOST_DEVICE static inline double hc_motion_time(const hc_motion *m, double t) {
  return sin(m->omega * t);
}

/* Shears one vertex whose factor is f (hc_motion_factor) with st = hc_motion_time: X to x. */
HC_HOST_DEVICE static inline void hc_motion_apply_factor(double f, double st, const double X[3], double x[3]) {
  x[0] = X[0] + f * st;
  x[1] = X[1];
  x[2] = X[2];
}

/* Shears one vertex: X (reference position) to x at time t. */
HC_HOST_DEVICE static inline void hc_motion_apply(const hc_motion *m, double t, const double X[3], double x[3]) {
  double shift = m->A == 0.0 ? 0.0 : hc_motion_factor(m, X) * hc_motion_time(m, t);
  x[0] = X[0] + shift;
  x[1] = X[1];
  x[2] = X[2];
}

/* Geometry nodes per cell: the 8 vertices of a trilinear cell (vertex a + 2b + 4c at reference point
   (2a-1, 2b-1, 2c-1)) or the 27 nodes of a triquadratic one (node a + 3(b + 3c) at reference point
   (a-1, b-1, c-1)), a, b, c along the first, second and third reference directions. */
#define HC_GEOMETRY_NODES_MAX 27

/* The n >= 1 geometry nodes of a cell at time t, each moved by the shear. X0c: [n][3] reference
   positions. */
HC_HOST_DEVICE static inline void hc_pw_cell_nodes(const hc_motion *m, double t, int n, const double *X0c,
                                                   double (*xn)[3]) {
  hc_motion_apply(m, t, X0c, xn[0]); /* node 0 whatever n, as the compiler cannot know n >= 1 */
  for (int v = 1; v < n; v++) hc_motion_apply(m, t, X0c + 3 * v, xn[v]);
}

/* The 8 vertices of a cell at time t. X0c: [8][3] reference positions, vertex v = a + 2b + 4c. */
HC_HOST_DEVICE static inline void hc_pw_cell_vertices(const hc_motion *m, double t, const double *X0c,
                                                      double xv[8][3]) {
  hc_pw_cell_nodes(m, t, 8, X0c, xv);
}

/* Values phi[a] and derivatives dphi[a] (either may be NULL) at x of the n Lagrange polynomials on
   nodes[0..n-1]: phi_a(nodes[b]) = delta_ab. */
HC_HOST_DEVICE static inline void hc_lagrange_1d(int n, const double *nodes, double x, double *phi, double *dphi) {
  for (int a = 0; a < n; a++) {
    double v = 1.0, d = 0.0;
    for (int b = 0; b < n; b++) {
      if (b == a) continue;
      double inv = 1.0 / (nodes[a] - nodes[b]);
      /* product rule: d(v * (x - x_b) inv) = d * (x - x_b) inv + v * inv */
      d = d * (x - nodes[b]) * inv + v * inv;
      v = v * (x - nodes[b]) * inv;
    }
    if (phi) phi[a] = v;
    if (dphi) dphi[a] = d;
  }
}

/* The trilinear shape functions at reference point xi: N[v] and their derivatives dN[v][k] = dN_v / dxi_k,
   for the vertices v = a + 2b + 4c at corner offsets (a,b,c). */
HC_HOST_DEVICE static inline void hc_pw_trilinear_shape(const double xi[3], double N[8], double dN[8][3]) {
  for (int v = 0; v < 8; v++) {
    /* corner offsets (a,b,c) of v, as signs s_k = 2 * offset - 1 */
    double s[3] = {(double)(2 * (v & 1) - 1), (double)(2 * ((v >> 1) & 1) - 1), (double)(2 * ((v >> 2) & 1) - 1)};
    double h[3] = {0.5 * (1.0 + s[0] * xi[0]), 0.5 * (1.0 + s[1] * xi[1]), 0.5 * (1.0 + s[2] * xi[2])};
    N[v] = h[0] * h[1] * h[2];
    dN[v][0] = 0.5 * s[0] * h[1] * h[2];
    dN[v][1] = 0.5 * s[1] * h[0] * h[2];
    dN[v][2] = 0.5 * s[2] * h[0] * h[1];
  }
}

/* The 1D quadratic Lagrange polynomials on the nodes (-1, 0, 1) at x: values h[a] and derivatives dh[a]. */
HC_HOST_DEVICE static inline void hc_pw_quadratic_1d(double x, double h[3], double dh[3]) {
  h[0] = 0.5 * x * (x - 1.0);
  h[1] = (1.0 - x) * (1.0 + x);
  h[2] = 0.5 * x * (x + 1.0);
  dh[0] = x - 0.5;
  dh[1] = -2.0 * x;
  dh[2] = x + 0.5;
}

/* The triquadratic shape functions at reference point xi: N[n] = h_a(xi_0) h_b(xi_1) h_c(xi_2) and their
   derivatives dN[n][k] = dN_n / dxi_k, for the nodes n = a + 3(b + 3c) (hc_pw_quadratic_1d's h). */
HC_HOST_DEVICE static inline void hc_pw_triquadratic_shape(const double xi[3], double N[27], double dN[27][3]) {
  double h[3][3], dh[3][3];
  for (int k = 0; k < 3; k++) hc_pw_quadratic_1d(xi[k], h[k], dh[k]);
  for (int c = 0; c < 3; c++) {
    for (int b = 0; b < 3; b++) {
      for (int a = 0; a < 3; a++) {
        const int n = a + 3 * (b + 3 * c);
        N[n] = h[0][a] * h[1][b] * h[2][c];
        dN[n][0] = dh[0][a] * h[1][b] * h[2][c];
        dN[n][1] = h[0][a] * dh[1][b] * h[2][c];
        dN[n][2] = h[0][a] * h[1][b] * dh[2][c];
      }
    }
  }
}

/* The shape functions of a cell with n = 8 (trilinear) or 27 (triquadratic) geometry nodes at xi:
   N: [n], dN: [n][3]. */
HC_HOST_DEVICE static inline void hc_pw_shape(int n, const double xi[3], double *N, double (*dN)[3]) {
  if (n == 27) {
    hc_pw_triquadratic_shape(xi, N, dN);
  } else {
    hc_pw_trilinear_shape(xi, N, dN);
  }
}

/* The map onto the cell with n geometry nodes xn ([n][3]) at the point whose shape functions are N ([n]),
   dN ([n][3]): the point x and the Jacobian J[i][k] = dx_i / dxi_k = sum_n xn[n][i] dN[n][k]. */
HC_HOST_DEVICE static inline void hc_pw_map_at(int n, const double (*xn)[3], const double *N, const double (*dN)[3],
                                               double x[3], double J[3][3]) {
  for (int i = 0; i < 3; i++) {
    x[i] = 0.0;
    for (int k = 0; k < 3; k++) J[i][k] = 0.0;
  }
  for (int v = 0; v < n; v++) {
    for (int i = 0; i < 3; i++) {
      x[i] += N[v] * xn[v][i];
      for (int k = 0; k < 3; k++) J[i][k] += dN[v][k] * xn[v][i];
    }
  }
}

/* The triquadratic map onto the cell with 27 geometry nodes xn at reference point xi: the point x and the
   Jacobian J. The shape functions are formed node by node as they are used, with no [27] arrays (what a GPU
   thread can keep in registers), and the sums are those of hc_pw_triquadratic_shape and hc_pw_map_at, in the
   same order: the same numbers. */
HC_HOST_DEVICE static inline void hc_pw_triquadratic_map(const double (*xn)[3], const double xi[3], double x[3],
                                                         double J[3][3]) {
  double h[3][3], dh[3][3];
  for (int k = 0; k < 3; k++) hc_pw_quadratic_1d(xi[k], h[k], dh[k]);
  for (int i = 0; i < 3; i++) {
    x[i] = 0.0;
    for (int k = 0; k < 3; k++) J[i][k] = 0.0;
  }
  for (int c = 0; c < 3; c++) {
    for (int b = 0; b < 3; b++) {
      for (int a = 0; a < 3; a++) {
        const double *xv = xn[a + 3 * (b + 3 * c)];
        const double N = h[0][a] * h[1][b] * h[2][c];
        const double dN[3] = {dh[0][a] * h[1][b] * h[2][c], h[0][a] * dh[1][b] * h[2][c], h[0][a] * h[1][b] * dh[2][c]};
        for (int i = 0; i < 3; i++) {
          x[i] += N * xv[i];
          for (int k = 0; k < 3; k++) J[i][k] += dN[k] * xv[i];
        }
      }
    }
  }
}

/* The trilinear map onto the cell with vertices xv at the point whose shape functions are N, dN: the
   point x and the Jacobian J[i][k] = dx_i / dxi_k. */
HC_HOST_DEVICE static inline void hc_pw_trilinear_at(const double xv[8][3], const double N[8], const double dN[8][3],
                                                     double x[3], double J[3][3]) {
  hc_pw_map_at(8, xv, N, dN, x, J);
}

/* Trilinear map of the reference cube [-1,1]^3 onto the cell with vertices xv: the point x and the
   Jacobian J[i][k] = dx_i / dxi_k at xi. */
HC_HOST_DEVICE static inline void hc_pw_trilinear(const double xv[8][3], const double xi[3], double x[3],
                                                  double J[3][3]) {
  double N[8], dN[8][3];
  hc_pw_trilinear_shape(xi, N, dN);
  hc_pw_trilinear_at(xv, N, dN, x, J);
}

HC_HOST_DEVICE static inline double hc_pw_det3(const double J[3][3]) {
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

/* Jinv = J^-1 = adj(J) / det. */
HC_HOST_DEVICE static inline void hc_pw_inv3(const double J[3][3], double det, double Jinv[3][3]) {
  double r = 1.0 / det;
  Jinv[0][0] = (J[1][1] * J[2][2] - J[1][2] * J[2][1]) * r;
  Jinv[0][1] = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) * r;
  Jinv[0][2] = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) * r;
  Jinv[1][0] = (J[1][2] * J[2][0] - J[1][0] * J[2][2]) * r;
  Jinv[1][1] = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) * r;
  Jinv[1][2] = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) * r;
  Jinv[2][0] = (J[1][0] * J[2][1] - J[1][1] * J[2][0]) * r;
  Jinv[2][1] = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) * r;
  Jinv[2][2] = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) * r;
}

/* The smallest det J a valid cell with geometry nodes in the bounding box [lo, hi] may have: HC_DET_RTOL times
   the product of the box's half-extents in x, y and z (det J of the undeformed box). The nodes of a trilinear
   map lie in its vertices' box, so a triquadratic cell placed by one has its floor. */
HC_HOST_DEVICE static inline double hc_pw_box_det_floor(const double lo[3], const double hi[3]) {
  return HC_DET_RTOL * (0.5 * (hi[0] - lo[0])) * (0.5 * (hi[1] - lo[1])) * (0.5 * (hi[2] - lo[2]));
}

/* The same from the n nodes themselves. fmin and fmax are exact, so that a box gathered in any order (a GPU
   warp's shuffles) gives the same floor. */
HC_HOST_DEVICE static inline double hc_pw_nodes_det_floor(int n, const double (*xn)[3]) {
  double lo[3], hi[3];
  for (int i = 0; i < 3; i++) lo[i] = hi[i] = xn[0][i];
  for (int v = 1; v < n; v++) {
    for (int i = 0; i < 3; i++) {
      lo[i] = fmin(lo[i], xn[v][i]);
      hi[i] = fmax(hi[i], xn[v][i]);
    }
  }
  return hc_pw_box_det_floor(lo, hi);
}

/* hc_pw_nodes_det_floor of a trilinear cell's 8 vertices. */
HC_HOST_DEVICE static inline double hc_pw_det_floor(const double xv[8][3]) {
  return hc_pw_nodes_det_floor(8, xv);
}

/* The rest of the geometry at a point whose position g->x is set, from its Jacobian J and quadrature
   weight w: det J, J^-1 and w|det J|. Returns 0 when det J is at most det_floor (or NaN): the cell is
   inverted or degenerate there, and Jinv is not to be used. */
HC_HOST_DEVICE static inline int hc_pw_geometry_from_jacobian(const double J[3][3], double w, double det_floor,
                                                              hc_point_geom *g) {
  g->det = hc_pw_det3(J);
  if (!(g->det > det_floor)) {
    g->wdet = 0.0;
    for (int i = 0; i < 3; i++)
      for (int k = 0; k < 3; k++) g->Jinv[i][k] = 0.0;
    return 0;
  }
  hc_pw_inv3(J, g->det, g->Jinv);
  g->wdet = w * g->det;
  return 1;
}

/* Geometry at the point whose shape functions are N ([n]), dN ([n][3]) (hc_pw_shape) on the cell with n
   geometry nodes xn, with quadrature weight w (hc_pw_geometry_from_jacobian). */
HC_HOST_DEVICE static inline int hc_pw_nodes_geometry_at(int n, const double (*xn)[3], const double *N,
                                                         const double (*dN)[3], double w, double det_floor,
                                                         hc_point_geom *g) {
  double J[3][3];
  hc_pw_map_at(n, xn, N, dN, g->x, J);
  return hc_pw_geometry_from_jacobian(J, w, det_floor, g);
}

/* Geometry at the point whose trilinear shape functions are N, dN (hc_pw_trilinear_shape) on the cell
   with vertices xv (hc_pw_nodes_geometry_at with n = 8). */
HC_HOST_DEVICE static inline int hc_pw_geometry_at(const double xv[8][3], const double N[8], const double dN[8][3],
                                                   double w, double det_floor, hc_point_geom *g) {
  return hc_pw_nodes_geometry_at(8, xv, N, dN, w, det_floor, g);
}

/* Geometry at reference point xi with quadrature weight w on the trilinear cell with vertices xv
   (hc_pw_geometry_at). */
HC_HOST_DEVICE static inline int hc_pw_geometry(const double xv[8][3], const double xi[3], double w, double det_floor,
                                                hc_point_geom *g) {
  double N[8], dN[8][3];
  hc_pw_trilinear_shape(xi, N, dN);
  return hc_pw_geometry_at(xv, N, dN, w, det_floor, g);
}

/* Geometry at reference point xi with quadrature weight w on the cell with n = 8 or 27 geometry nodes xn
   (hc_pw_nodes_geometry_at). */
HC_HOST_DEVICE static inline int hc_pw_nodes_geometry(int n, const double (*xn)[3], const double xi[3], double w,
                                                      double det_floor, hc_point_geom *g) {
  double N[HC_GEOMETRY_NODES_MAX], dN[HC_GEOMETRY_NODES_MAX][3];
  hc_pw_shape(n, xi, N, dN);
  return hc_pw_nodes_geometry_at(n, xn, N, dN, w, det_floor, g);
}

/* Physical gradient grad = J^-T grad_ref: grad_i = sum_k Jinv[k][i] grad_ref_k. */
HC_HOST_DEVICE static inline void hc_pw_phys_grad(const double Jinv[3][3], const double *grad_ref, double grad[3]) {
  for (int i = 0; i < 3; i++) grad[i] = Jinv[0][i] * grad_ref[0] + Jinv[1][i] * grad_ref[1] + Jinv[2][i] * grad_ref[2];
}

/* The sine and cosine the data functions below call: libm's, unless the including file names others first (the
   OpenMP cell data names the same functions declared with vector variants, so that its loops over points
   vectorise; kernels/openmp/celldata_openmp.c). */
#ifndef HC_DATA_SIN
#define HC_DATA_SIN sin
#endif
#ifndef HC_DATA_COS
#define HC_DATA_COS cos
#endif

/* Normalised coordinates s = (x/LX, y/LY, z/LZ). */
HC_HOST_DEVICE static inline void hc_data_unit(const hc_data_params *dp, const double x[3], double s[3]) {
  s[0] = x[0] / dp->LX;
  s[1] = x[1] / dp->LY;
  s[2] = x[2] / dp->LZ;
}

/* Load f. Smooth: f = 1 + 0.5 sin(2 pi s0) cos(2 pi s1) cos(t) + 0.25 s2. */
HC_HOST_DEVICE static inline double hc_data_f(const hc_data_params *dp, const double x[3], double t) {
  if (dp->mode == HC_DATA_CONSTANT) return 1.0;
  double s[3];
  hc_data_unit(dp, x, s);
  if (dp->mode == HC_DATA_POLYNOMIAL) {
    double v = 1.0;
    for (int i = 0; i < 3; i++)
      for (int e = 0; e < dp->degree[i]; e++) v *= s[i];
    return v;
  }
  return 1.0 + 0.5 * HC_DATA_SIN(2.0 * HC_PI * s[0]) * HC_DATA_COS(2.0 * HC_PI * s[1]) * HC_DATA_COS(t) + 0.25 * s[2];
}

/* Second scalar g. Smooth: g = 1 + 0.5 cos(2 pi s2 - t) + s0 s1. */
HC_HOST_DEVICE static inline double hc_data_g(const hc_data_params *dp, const double x[3], double t) {
  if (dp->mode != HC_DATA_SMOOTH) return 1.0;
  double s[3];
  hc_data_unit(dp, x, s);
  return 1.0 + 0.5 * HC_DATA_COS(2.0 * HC_PI * s[2] - t) + s[0] * s[1];
}

/* Flux F. Smooth: F = (sin(2 pi s1) + 0.5 cos t, s0 cos(2 pi s2), 1 + s0 s1 s2). */
HC_HOST_DEVICE static inline void hc_data_F(const hc_data_params *dp, const double x[3], double t, double F[3]) {
  if (dp->mode != HC_DATA_SMOOTH) {
    F[0] = F[1] = F[2] = 1.0;
    return;
  }
  double s[3];
  hc_data_unit(dp, x, s);
  F[0] = HC_DATA_SIN(2.0 * HC_PI * s[1]) + 0.5 * HC_DATA_COS(t);
  F[1] = s[0] * HC_DATA_COS(2.0 * HC_PI * s[2]);
  F[2] = 1.0 + s[0] * s[1] * s[2];
}

/* Diffusivity kappa, symmetric positive definite (eigenvalues >= 1). Smooth:
   kappa = (1 + s0^2) I + a a^T, a = 0.5 (cos(2 pi s1), sin(2 pi s2), cos(t + s0)). */
HC_HOST_DEVICE static inline void hc_data_kappa(const hc_data_params *dp, const double x[3], double t,
                                                double kappa[3][3]) {
  if (dp->mode != HC_DATA_SMOOTH) {
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) kappa[i][j] = i == j ? 1.0 : 0.0;
    return;
  }
  double s[3];
  hc_data_unit(dp, x, s);
  double a[3] = {0.5 * HC_DATA_COS(2.0 * HC_PI * s[1]), 0.5 * HC_DATA_SIN(2.0 * HC_PI * s[2]),
                 0.5 * HC_DATA_COS(t + s[0])};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) kappa[i][j] = (i == j ? 1.0 + s[0] * s[0] : 0.0) + a[i] * a[j];
}

/* Tensor field s (not symmetric). Smooth: s_ij = delta_ij + 0.5 sin(pi (i+1) s_j + t). */
HC_HOST_DEVICE static inline void hc_data_s(const hc_data_params *dp, const double x[3], double t, double S[3][3]) {
  double s[3];
  hc_data_unit(dp, x, s);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      S[i][j] =
          (i == j ? 1.0 : 0.0) + (dp->mode == HC_DATA_SMOOTH ? 0.5 * HC_DATA_SIN(HC_PI * (i + 1) * s[j] + t) : 0.0);
}

/* Velocity u. Smooth: u = (sin(2 pi s1) cos t, cos(2 pi s2), 1 + s0 s1). */
HC_HOST_DEVICE static inline void hc_data_u(const hc_data_params *dp, const double x[3], double t, double u[3]) {
  if (dp->mode != HC_DATA_SMOOTH) {
    u[0] = 1.0;
    u[1] = u[2] = 0.0;
    return;
  }
  double s[3];
  hc_data_unit(dp, x, s);
  u[0] = HC_DATA_SIN(2.0 * HC_PI * s[1]) * HC_DATA_COS(t);
  u[1] = HC_DATA_COS(2.0 * HC_PI * s[2]);
  u[2] = 1.0 + s[0] * s[1];
}

/* Strain eps and stress sigma. Smooth: eps = sym(grad_s d) of the displacement
   d = (1 + 0.5 sin t) (sin(pi s1), sin(pi s2), sin(pi s0)) + 0.1 (s0^2, s1^2, s2^2) (derivatives in s),
   sigma = 2 mu eps + lambda tr(eps) I with mu = 1, lambda = 2. */
HC_HOST_DEVICE static inline void hc_data_sigma_eps(const hc_data_params *dp, const double x[3], double t,
                                                    double sigma[3][3], double eps[3][3]) {
  if (dp->mode != HC_DATA_SMOOTH) {
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) sigma[i][j] = eps[i][j] = (i == 0 && j == 0) ? 1.0 : 0.0;
    return;
  }
  double s[3], e[3][3] = {{0.0}};
  hc_data_unit(dp, x, s);
  double amp = 1.0 + 0.5 * HC_DATA_SIN(t);
  for (int i = 0; i < 3; i++) e[i][i] = 0.2 * s[i];  /* d(0.1 s_i^2)/ds_i */
  e[0][1] = amp * HC_PI * HC_DATA_COS(HC_PI * s[1]); /* d d0 / ds1 */
  e[1][2] = amp * HC_PI * HC_DATA_COS(HC_PI * s[2]); /* d d1 / ds2 */
  e[2][0] = amp * HC_PI * HC_DATA_COS(HC_PI * s[0]); /* d d2 / ds0 */
  double tr = e[0][0] + e[1][1] + e[2][2];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      eps[i][j] = 0.5 * (e[i][j] + e[j][i]);
      sigma[i][j] = 2.0 * eps[i][j] + (i == j ? 2.0 * tr : 0.0);
    }
  }
}

/* Evaluates at x the data functions that kernel's arrays use (the others are left as they are). */
HC_HOST_DEVICE static inline void hc_pw_data(const hc_data_params *dp, hc_kernel kernel, const double x[3], double t,
                                             hc_point_data *d) {
  switch (kernel) {
    case HC_DATADATA_SCALAR:
      d->f = hc_data_f(dp, x, t);
      d->g = hc_data_g(dp, x, t);
      break;
    case HC_DATADATA_VECTOR:
      hc_data_u(dp, x, t, d->u);
      break;
    case HC_DATADATA_TENSOR:
      hc_data_sigma_eps(dp, x, t, d->sigma, d->eps);
      break;
    case HC_DATAFIELD_SCALAR:
      d->f = hc_data_f(dp, x, t);
      break;
    case HC_DATAFIELD_VECTOR:
      hc_data_F(dp, x, t, d->F);
      break;
    case HC_DATAFIELD_TENSOR:
      hc_data_kappa(dp, x, t, d->kappa);
      hc_data_s(dp, x, t, d->s);
      break;
    case HC_FIELDFIELD_TENSOR:
      hc_data_kappa(dp, x, t, d->kappa);
      break;
    default:
      break;
  }
}

/* Entry (l,p,i,j) of the left array of a field kernel (FieldField*, DataField*) of this rank:
   phi_l w|J|, d_i phi_l w|J|, kappa_ij d_i phi_l w|J|. grad: physical gradient of phi_l at p. */
HC_HOST_DEVICE static inline double hc_pw_field_left(int rank, double phi, const double grad[3], const hc_point_data *d,
                                                     double wdet, int i, int j) {
  if (rank == 0) return phi * wdet;
  if (rank == 1) return grad[i] * wdet;
  return d->kappa[i][j] * grad[i] * wdet;
}

/* Entry (r,p,i,j) of the right array of FieldField: phi_r, d_i phi_r, d_j phi_r (the same for every
   i), so that sum_{p,i,j} left right = sum_p w|J| grad phi_l . kappa grad phi_r. */
HC_HOST_DEVICE static inline double hc_pw_fieldfield_right(int rank, double phi, const double grad[3], int i, int j) {
  if (rank == 0) return phi;
  if (rank == 1) return grad[i];
  return grad[j];
}

/* Entry (p,i,j) of the data array of DataField: f, F_i, s_ij. */
HC_HOST_DEVICE static inline double hc_pw_datafield_right(int rank, const hc_point_data *d, int i, int j) {
  if (rank == 0) return d->f;
  if (rank == 1) return d->F[i];
  return d->s[i][j];
}

/* Entry (p,i,j) of the left array of DataData: f w|J|, u_i w|J|, sigma_ij w|J|. */
HC_HOST_DEVICE static inline double hc_pw_datadata_left(int rank, const hc_point_data *d, double wdet, int i, int j) {
  if (rank == 0) return d->f * wdet;
  if (rank == 1) return d->u[i] * wdet;
  return d->sigma[i][j] * wdet;
}

/* Entry (p,i,j) of the right array of DataData: g, u_i, eps_ij. */
HC_HOST_DEVICE static inline double hc_pw_datadata_right(int rank, const hc_point_data *d, int i, int j) {
  if (rank == 0) return d->g;
  if (rank == 1) return d->u[i];
  return d->eps[i][j];
}

/* The fused assembly's reference-space forms (the CUDA and OpenMP fused kernels), with the physical gradient
   d_i phi = sum_k (J^-1)_ki dref_k phi; Jinv, kappa and s row-major [9]. */

/* DataField's vector at a point: sum_ij left(l,p,ij) right(p,ij) = sum_k dref_k phi_l(p) v_k (Vector, Tensor) or
   phi_l(p) v_0 (Scalar), with v_0 = w|J| f (a: f), or v_k = sum_i (J^-1)_ki M_i where M_i = w|J| F_i (a: F) or
   w|J| sum_j kappa_ij s_ij (a: kappa, s: s; NULL below rank 2). */
HC_HOST_DEVICE static inline void hc_pw_df_ref_vector(int rank, const double *Jinv, const double *a, const double *s,
                                                      double wdet, double *v) {
  if (rank == 0) {
    v[0] = a[0] * wdet;
    return;
  }
  double M[3];
  for (int i = 0; i < 3; i++)
    M[i] = rank == 1 ? a[i] * wdet
                     : (a[3 * i] * s[3 * i] + a[3 * i + 1] * s[3 * i + 1] + a[3 * i + 2] * s[3 * i + 2]) * wdet;
  for (int k = 0; k < 3; k++) v[k] = Jinv[3 * k] * M[0] + Jinv[3 * k + 1] * M[1] + Jinv[3 * k + 2] * M[2];
}

/* FieldField's metric at a point: sum_ij left(l,p,ij) right(r,p,ij) = sum_km dref_k phi_l G_km dref_m phi_r with
   G = w|J| J^-1 kappa J^-T (Tensor) or w|J| J^-1 J^-T (Vector, kappa NULL): G[3 k + m]. */
HC_HOST_DEVICE static inline void hc_pw_ff_metric(const double *Jinv, const double *kappa, double wdet, double G[9]) {
  double M[3][3]; /* J^-1 kappa, or J^-1 */
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 3; j++)
      M[k][j] = kappa ? Jinv[3 * k] * kappa[j] + Jinv[3 * k + 1] * kappa[3 + j] + Jinv[3 * k + 2] * kappa[6 + j]
                      : Jinv[3 * k + j];
  for (int k = 0; k < 3; k++)
    for (int m = 0; m < 3; m++)
      G[3 * k + m] = (M[k][0] * Jinv[3 * m] + M[k][1] * Jinv[3 * m + 1] + M[k][2] * Jinv[3 * m + 2]) * wdet;
}

#ifdef __cplusplus
}
#endif

#endif
