/* The smooth data functions of the workload (kernels/README.md, section What each contraction receives), written out a
   second time from the formulas documented in kernels/hc_pointwise.h, plainly and without calling it: the tests'
   independent reference. Arguments: the point x, the box lengths LX, LY, LZ and the time t; s = (x/LX, y/LY, z/LZ). */
#ifndef HC_TEST_DATA_REF_H
#define HC_TEST_DATA_REF_H

#include <math.h>

#define REF_PI 3.14159265358979323846

typedef struct {
  double s0, s1, s2, t;
} ref_at;

static inline ref_at ref_point(const double x[3], double LX, double LY, double LZ, double t) {
  ref_at a = {x[0] / LX, x[1] / LY, x[2] / LZ, t};
  return a;
}

/* f = 1 + 0.5 sin(2 pi s0) cos(2 pi s1) cos(t) + 0.25 s2 */
static inline double ref_f(ref_at a) {
  return 1.0 + 0.5 * sin(2 * REF_PI * a.s0) * cos(2 * REF_PI * a.s1) * cos(a.t) + 0.25 * a.s2;
}

/* g = 1 + 0.5 cos(2 pi s2 - t) + s0 s1 */
static inline double ref_g(ref_at a) {
  return 1.0 + 0.5 * cos(2 * REF_PI * a.s2 - a.t) + a.s0 * a.s1;
}

/* F = (sin(2 pi s1) + 0.5 cos t, s0 cos(2 pi s2), 1 + s0 s1 s2) */
static inline void ref_F(ref_at a, double F[3]) {
  F[0] = sin(2 * REF_PI * a.s1) + 0.5 * cos(a.t);
  F[1] = a.s0 * cos(2 * REF_PI * a.s2);
  F[2] = 1.0 + a.s0 * a.s1 * a.s2;
}

/* u = (sin(2 pi s1) cos t, cos(2 pi s2), 1 + s0 s1) */
static inline void ref_u(ref_at a, double u[3]) {
  u[0] = sin(2 * REF_PI * a.s1) * cos(a.t);
  u[1] = cos(2 * REF_PI * a.s2);
  u[2] = 1.0 + a.s0 * a.s1;
}

/* kappa = (1 + s0^2) I + a a^T, a = 0.5 (cos(2 pi s1), sin(2 pi s2), cos(t + s0)) */
static inline void ref_kappa(ref_at a, double k[3][3]) {
  double v[3] = {0.5 * cos(2 * REF_PI * a.s1), 0.5 * sin(2 * REF_PI * a.s2), 0.5 * cos(a.t + a.s0)};
  double diag = 1.0 + a.s0 * a.s0;
  k[0][0] = diag + v[0] * v[0], k[0][1] = v[0] * v[1], k[0][2] = v[0] * v[2];
  k[1][0] = v[1] * v[0], k[1][1] = diag + v[1] * v[1], k[1][2] = v[1] * v[2];
  k[2][0] = v[2] * v[0], k[2][1] = v[2] * v[1], k[2][2] = diag + v[2] * v[2];
}

/* s_ij = delta_ij + 0.5 sin(pi (i+1) s_j + t), i and j counted from 0 */
static inline void ref_s(ref_at a, double S[3][3]) {
  const double sj[3] = {a.s0, a.s1, a.s2};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) S[i][j] = (i == j) + 0.5 * sin(REF_PI * (i + 1) * sj[j] + a.t);
}

/* Displacement d = (1 + 0.5 sin t) (sin(pi s1), sin(pi s2), sin(pi s0)) + 0.1 (s0^2, s1^2, s2^2);
   eps = (grad d + grad d^T) / 2 (derivatives in s), sigma = 2 eps + 2 tr(eps) I (mu = 1, lambda = 2).
   The gradient written out entry by entry: G[i][j] = d d_i / d s_j. */
static inline void ref_sigma_eps(ref_at a, double sigma[3][3], double eps[3][3]) {
  const double amp = 1.0 + 0.5 * sin(a.t);
  double G[3][3] = {{0.2 * a.s0, amp * REF_PI * cos(REF_PI * a.s1), 0.0},
                    {0.0, 0.2 * a.s1, amp * REF_PI * cos(REF_PI * a.s2)},
                    {amp * REF_PI * cos(REF_PI * a.s0), 0.0, 0.2 * a.s2}};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) eps[i][j] = 0.5 * G[i][j] + 0.5 * G[j][i];
  const double tr = eps[0][0] + eps[1][1] + eps[2][2];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) sigma[i][j] = 2.0 * eps[i][j] + (i == j ? 2.0 * tr : 0.0);
}

#endif
