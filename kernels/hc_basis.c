/* The reference hexahedron: GLL nodes, Gauss-Legendre rules and the tensor-product Lagrange tables. */
#include "kernels/hc_basis.h"

#include <math.h>
#include <stdlib.h>

#include "kernels/hc_pointwise.h"

/* P_n(x) and P_{n-1}(x) by the three-term recurrence. */
static void hc_legendre(int n, double x, double *pn, double *pn1) {
  double p0 = 1.0, p1 = x;
  if (n == 0) {
    *pn = 1.0;
    *pn1 = 0.0;
    return;
  }
  for (int k = 2; k <= n; k++) {
    double p2 = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
    p0 = p1;
    p1 = p2;
  }
  *pn = p1;
  *pn1 = p0;
}

int hc_gauss_legendre(int q, double *x, double *w) {
  HC_CHECK(q >= 1, HC_ERR_INPUT, "Gauss-Legendre points per direction must be >= 1, got %d", q);
  for (int i = 0; i < q; i++) {
    /* Tricomi's guess for the i-th largest root, then Newton on P_q. */
    double r = cos(HC_PI * (i + 0.75) / (q + 0.5)), dp = 1.0;
    for (int it = 0; it < 100; it++) {
      double pq, pq1;
      hc_legendre(q, r, &pq, &pq1);
      dp = q * (r * pq - pq1) / (r * r - 1.0);
      double dr = pq / dp;
      r -= dr;
      if (fabs(dr) < 1e-16) break;
    }
    {
      double pq, pq1;
      hc_legendre(q, r, &pq, &pq1);
      dp = q * (r * pq - pq1) / (r * r - 1.0);
    }
    x[q - 1 - i] = r;
    w[q - 1 - i] = 2.0 / ((1.0 - r * r) * dp * dp);
  }
  /* Symmetrise: the rule is exactly symmetric about 0. */
  for (int i = 0; i < q / 2; i++) {
    double a = 0.5 * (x[q - 1 - i] - x[i]), b = 0.5 * (w[i] + w[q - 1 - i]);
    x[i] = -a, x[q - 1 - i] = a;
    w[i] = w[q - 1 - i] = b;
  }
  if (q % 2) x[q / 2] = 0.0;
  return HC_OK;
}

int hc_gll_nodes(int p, double *x) {
  HC_CHECK(p >= 1, HC_ERR_INPUT, "GLL order must be >= 1, got %d", p);
  for (int i = 0; i <= p; i++) {
    /* Chebyshev-Gauss-Lobatto guess, then Newton on (1 - x^2) P_p'(x), written with P_p and P_{p-1}:
       x <- x - (x P_p - P_{p-1}) / ((p+1) P_p). It converges to the endpoints too. */
    double r = -cos(HC_PI * i / p);
    for (int it = 0; it < 100; it++) {
      double pp, pp1;
      hc_legendre(p, r, &pp, &pp1);
      double dr = (r * pp - pp1) / ((p + 1.0) * pp);
      r -= dr;
      if (fabs(dr) < 1e-16) break;
    }
    x[i] = r;
  }
  x[0] = -1.0;
  x[p] = 1.0;
  for (int i = 0; i <= p / 2; i++) {
    double a = 0.5 * (x[p - i] - x[i]);
    x[i] = -a, x[p - i] = a;
  }
  if (p % 2 == 0) x[p / 2] = 0.0;
  return HC_OK;
}

int hc_basis_create(int p, int q, hc_basis **basis) {
  int ierr = HC_OK;
  hc_basis *b = NULL;
  *basis = NULL;
  if (q <= 0) q = p + 1;
  HC_CHECK(p >= 1 && p <= HC_BASIS_MAX_P, HC_ERR_INPUT, "basis order p must be 1..%d, got %d", HC_BASIS_MAX_P, p);
  HC_CHECK(q >= 1 && q <= HC_BASIS_MAX_Q, HC_ERR_INPUT, "quadrature points per direction q must be 1..%d, got %d",
           HC_BASIS_MAX_Q, q);
  b = calloc(1, sizeof(*b));
  HC_CHECK(b, HC_ERR_RESOURCE, "out of host memory creating a basis");
  const int n = p + 1, L = n * n * n, P = q * q * q;
  b->p = p, b->q = q, b->n1d = n, b->L = L, b->P = P;
  b->nodes1d = malloc(sizeof(*b->nodes1d) * n);
  b->qpts1d = malloc(sizeof(*b->qpts1d) * q);
  b->qwts1d = malloc(sizeof(*b->qwts1d) * q);
  b->B1d = malloc(sizeof(*b->B1d) * q * n);
  b->G1d = malloc(sizeof(*b->G1d) * q * n);
  b->nodes = malloc(sizeof(*b->nodes) * L * 3);
  b->qpts = malloc(sizeof(*b->qpts) * P * 3);
  b->qwts = malloc(sizeof(*b->qwts) * P);
  b->phi = malloc(sizeof(*b->phi) * (size_t)L * P);
  b->grad = malloc(sizeof(*b->grad) * (size_t)L * P * 3);
  HC_CHECK_GOTO(
      b->nodes1d && b->qpts1d && b->qwts1d && b->B1d && b->G1d && b->nodes && b->qpts && b->qwts && b->phi && b->grad,
      HC_ERR_RESOURCE, fail, "out of host memory creating a basis of order %d with %d points", p, q);
  HC_CALL_GOTO(hc_gll_nodes(p, b->nodes1d), fail);
  HC_CALL_GOTO(hc_gauss_legendre(q, b->qpts1d, b->qwts1d), fail);
  for (int i = 0; i < q; i++) hc_lagrange_1d(n, b->nodes1d, b->qpts1d[i], &b->B1d[i * n], &b->G1d[i * n]);
  for (int l = 0; l < L; l++) {
    int a = l % n, bb = (l / n) % n, c = l / (n * n);
    b->nodes[3 * l + 0] = b->nodes1d[a];
    b->nodes[3 * l + 1] = b->nodes1d[bb];
    b->nodes[3 * l + 2] = b->nodes1d[c];
  }
  for (int k = 0; k < P; k++) {
    int i = k % q, j = (k / q) % q, m = k / (q * q);
    b->qpts[3 * k + 0] = b->qpts1d[i];
    b->qpts[3 * k + 1] = b->qpts1d[j];
    b->qpts[3 * k + 2] = b->qpts1d[m];
    b->qwts[k] = b->qwts1d[i] * b->qwts1d[j] * b->qwts1d[m];
  }
  for (int l = 0; l < L; l++) {
    int a = l % n, bb = (l / n) % n, c = l / (n * n);
    for (int k = 0; k < P; k++) {
      int i = k % q, j = (k / q) % q, m = k / (q * q);
      double Ba = b->B1d[i * n + a], Bb = b->B1d[j * n + bb], Bc = b->B1d[m * n + c];
      double Ga = b->G1d[i * n + a], Gb = b->G1d[j * n + bb], Gc = b->G1d[m * n + c];
      size_t lp = (size_t)l * P + k;
      b->phi[lp] = Ba * Bb * Bc;
      b->grad[3 * lp + 0] = Ga * Bb * Bc;
      b->grad[3 * lp + 1] = Ba * Gb * Bc;
      b->grad[3 * lp + 2] = Ba * Bb * Gc;
    }
  }
  *basis = b;
  return HC_OK;
fail:
  hc_basis_destroy(&b);
  return ierr;
}

int hc_basis_destroy(hc_basis **basis) {
  if (!basis || !*basis) return HC_OK;
  hc_basis *b = *basis;
  free(b->nodes1d);
  free(b->qpts1d);
  free(b->qwts1d);
  free(b->B1d);
  free(b->G1d);
  free(b->nodes);
  free(b->qpts);
  free(b->qwts);
  free(b->phi);
  free(b->grad);
  free(b);
  *basis = NULL;
  return HC_OK;
}
