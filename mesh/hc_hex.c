/* One hexahedron's geometry from its 8 or 27 nodes: map, Jacobian, exact volume, affinity. */
#include "mesh/hc_hex.h"

#include <math.h>
#include <stddef.h>

/* The 1D Lagrange basis on the n = 2 nodes (-1, 1) or n = 3 nodes (-1, 0, 1) at t, and its derivative. */
static void hc_hex_basis_1d(int n, double t, double phi[3], double dphi[3]) {
  if (n == 2) {
    phi[0] = 0.5 * (1 - t), phi[1] = 0.5 * (1 + t);
    dphi[0] = -0.5, dphi[1] = 0.5;
  } else {
    phi[0] = 0.5 * t * (t - 1), phi[1] = 1 - t * t, phi[2] = 0.5 * t * (t + 1);
    dphi[0] = t - 0.5, dphi[1] = -2 * t, dphi[2] = t + 0.5;
  }
}

static int hc_hex_n(int geometry_nodes) {
  return geometry_nodes == 27 ? 3 : 2;
}

double hc_hex_map(int geometry_nodes, const double *x, const double xi[3], double point[3], double J[3][3]) {
  const int n = hc_hex_n(geometry_nodes);
  double phi[3][3], dphi[3][3], Jl[3][3] = {{0}};
  for (int d = 0; d < 3; d++) hc_hex_basis_1d(n, xi[d], phi[d], dphi[d]);
  point[0] = point[1] = point[2] = 0;
  for (int c = 0; c < n; c++)
    for (int b = 0; b < n; b++)
      for (int a = 0; a < n; a++) {
        const double *xn = x + 3 * (a + n * (b + n * c));
        const double w = phi[0][a] * phi[1][b] * phi[2][c];
        const double g[3] = {dphi[0][a] * phi[1][b] * phi[2][c], phi[0][a] * dphi[1][b] * phi[2][c],
                             phi[0][a] * phi[1][b] * dphi[2][c]};
        for (int i = 0; i < 3; i++) {
          point[i] += w * xn[i];
          for (int j = 0; j < 3; j++) Jl[i][j] += xn[i] * g[j];
        }
      }
  if (J)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) J[i][j] = Jl[i][j];
  return Jl[0][0] * (Jl[1][1] * Jl[2][2] - Jl[1][2] * Jl[2][1]) -
         Jl[0][1] * (Jl[1][0] * Jl[2][2] - Jl[1][2] * Jl[2][0]) +
         Jl[0][2] * (Jl[1][0] * Jl[2][1] - Jl[1][1] * Jl[2][0]);
}

/* Gauss-Legendre points and weights on [-1,1], n = 1..8, by Newton's iteration on P_n. */
static void hc_hex_gauss(int n, double *t, double *w) {
  for (int i = 0; i < n; i++) {
    double z = cos(3.14159265358979323846 * (i + 0.75) / (n + 0.5)), dp = 1;
    for (int it = 0; it < 100; it++) {
      double p0 = 1, p1 = z;
      for (int k = 2; k <= n; k++) {
        double p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
        p0 = p1, p1 = p2;
      }
      dp = n * (z * p1 - p0) / (z * z - 1);
      double dz = p1 / dp;
      z -= dz;
      if (fabs(dz) < 1e-16) break;
    }
    t[i] = z;
    w[i] = 2 / ((1 - z * z) * dp * dp);
  }
}

/* Sum over a Gauss rule of `points` per direction of g(x(xi)) det J, g = (x_0 / scale)^power. */
static double hc_hex_quadrature(int geometry_nodes, const double *x, int power, double scale, int points) {
  double t[8], w[8], sum = 0;
  hc_hex_gauss(points, t, w);
  for (int k = 0; k < points; k++)
    for (int j = 0; j < points; j++)
      for (int i = 0; i < points; i++) {
        const double xi[3] = {t[i], t[j], t[k]};
        double pt[3];
        double det = hc_hex_map(geometry_nodes, x, xi, pt, NULL);
        sum += w[i] * w[j] * w[k] * det * (power ? pow(pt[0] / scale, power) : 1.0);
      }
  return sum;
}

double hc_hex_volume(int geometry_nodes, const double *x) {
  return hc_hex_quadrature(geometry_nodes, x, 0, 1.0, geometry_nodes == 27 ? 3 : 2);
}

double hc_hex_integrate_power(int geometry_nodes, const double *x, int n, double scale, int points) {
  return hc_hex_quadrature(geometry_nodes, x, n, scale, points < 1 ? 1 : points > 8 ? 8 : points);
}

double hc_hex_min_det(int geometry_nodes, const double *x, int *where) {
  const int n = hc_hex_n(geometry_nodes);
  double worst = HUGE_VAL;
  int at = 0;
  for (int c = 0; c < n; c++)
    for (int b = 0; b < n; b++)
      for (int a = 0; a < n; a++) {
        const double xi[3] = {-1.0 + 2.0 * a / (n - 1), -1.0 + 2.0 * b / (n - 1), -1.0 + 2.0 * c / (n - 1)};
        double pt[3], det = hc_hex_map(geometry_nodes, x, xi, pt, NULL);
        if (!(det >= worst)) worst = det, at = a + n * (b + n * c); /* NaN counts as the worst */
      }
  if (where) *where = at;
  return worst;
}

int hc_hex_is_affine(int geometry_nodes, const double *x, double rel_tol) {
  const int n = hc_hex_n(geometry_nodes), m = n - 1;
  const double *o = x, *ex = x + 3 * m, *ey = x + 3 * (n * m), *ez = x + 3 * (n * n * m);
  double diam = 0;
  for (int i = 0; i < geometry_nodes; i++)
    for (int d = 0; d < 3; d++) diam = fmax(diam, fabs(x[3 * i + d] - o[d]));
  for (int c = 0; c < n; c++)
    for (int b = 0; b < n; b++)
      for (int a = 0; a < n; a++) {
        const double s[3] = {(double)a / m, (double)b / m, (double)c / m};
        const double *xn = x + 3 * (a + n * (b + n * c));
        for (int d = 0; d < 3; d++) {
          double want = o[d] + s[0] * (ex[d] - o[d]) + s[1] * (ey[d] - o[d]) + s[2] * (ez[d] - o[d]);
          if (!(fabs(xn[d] - want) <= rel_tol * diam)) return 0;
        }
      }
  return 1;
}
