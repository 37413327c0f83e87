/* Unit tests of the reference element: Gauss-Legendre exactness, GLL nodes, Lagrange basis tables. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "kernels/hc_basis.h"
#include "kernels/hc_pointwise.h"

/* Exact integral of x^d over [-1,1]. */
static double mono_exact(int d) {
  return d % 2 ? 0.0 : 2.0 / (d + 1);
}

static double ipow(double x, int d) {
  double v = 1.0;
  for (int i = 0; i < d; i++) v *= x;
  return v;
}

/* The q-point rule integrates x^d exactly for d <= 2q-1, and misses x^(2q). */
static void test_gauss_exactness_1d(void **state) {
  (void)state;
  double x[6], w[6];
  for (int q = 1; q <= 6; q++) {
    assert_int_equal(hc_gauss_legendre(q, x, w), HC_OK);
    for (int i = 0; i < q; i++) {
      assert_true(w[i] > 0.0);
      assert_true(x[i] > -1.0 && x[i] < 1.0);
      if (i) assert_true(x[i] > x[i - 1]);
    }
    for (int d = 0; d <= 2 * q; d++) {
      double sum = 0.0;
      for (int i = 0; i < q; i++) sum += w[i] * ipow(x[i], d);
      double err = fabs(sum - mono_exact(d));
      if (d <= 2 * q - 1) {
        assert_true(err < 1e-14);
      } else {
        assert_true(err > 1e-4); /* the rule's error term for x^(2q) is at least 7e-4 up to q = 6 */
      }
    }
  }
}

/* Tensor rule: x^a y^b z^c is exact for a, b, c <= 2q-1, and not for a = 2q. */
static void test_gauss_exactness_3d(void **state) {
  (void)state;
  for (int q = 1; q <= 6; q++) {
    hc_basis *b = NULL;
    assert_int_equal(hc_basis_create(1, q, &b), HC_OK);
    assert_int_equal(b->P, q * q * q);
    for (int a = 0; a <= 2 * q; a++) {
      for (int bb = 0; bb <= 2 * q - 1; bb += (q > 1 ? 2 * q - 1 : 1)) {
        for (int c = 0; c <= 2 * q - 1; c++) {
          double sum = 0.0;
          for (int k = 0; k < b->P; k++) {
            const double *xi = &b->qpts[3 * k];
            sum += b->qwts[k] * ipow(xi[0], a) * ipow(xi[1], bb) * ipow(xi[2], c);
          }
          double exact = mono_exact(a) * mono_exact(bb) * mono_exact(c), err = fabs(sum - exact);
          if (a <= 2 * q - 1) {
            assert_true(err < 1e-13);
          } else if (bb % 2 == 0 && c % 2 == 0) {
            assert_true(err > 1e-5);
          }
        }
      }
    }
    hc_basis_destroy(&b);
  }
}

static void test_gll_nodes(void **state) {
  (void)state;
  double x[9];
  const double s5 = 1.0 / sqrt(5.0), s37 = sqrt(3.0 / 7.0);
  const double expect[4][5] = {{-1, 1}, {-1, 0, 1}, {-1, -s5, s5, 1}, {-1, -s37, 0, s37, 1}};
  for (int p = 1; p <= 4; p++) {
    assert_int_equal(hc_gll_nodes(p, x), HC_OK);
    for (int i = 0; i <= p; i++) assert_true(fabs(x[i] - expect[p - 1][i]) < 1e-15);
  }
  /* Higher orders: ascending, symmetric, interior nodes are roots of P_p'. */
  for (int p = 5; p <= 8; p++) {
    assert_int_equal(hc_gll_nodes(p, x), HC_OK);
    assert_true(x[0] == -1.0 && x[p] == 1.0);
    for (int i = 1; i <= p; i++) assert_true(x[i] > x[i - 1]);
    for (int i = 0; i <= p; i++) assert_true(fabs(x[i] + x[p - i]) < 1e-15);
  }
}

/* 1D: partition of unity, interpolation of the nodes, exact derivatives of polynomials of degree <= p. */
static void test_lagrange_1d(void **state) {
  (void)state;
  double nodes[5], phi[5], dphi[5];
  for (int p = 1; p <= 4; p++) {
    int n = p + 1;
    assert_int_equal(hc_gll_nodes(p, nodes), HC_OK);
    for (int m = 0; m < n; m++) {
      hc_lagrange_1d(n, nodes, nodes[m], phi, NULL);
      for (int a = 0; a < n; a++) assert_true(fabs(phi[a] - (a == m ? 1.0 : 0.0)) < 1e-15);
    }
    for (int s = 0; s <= 20; s++) {
      double x = -1.0 + 0.1 * s + 0.0123;
      hc_lagrange_1d(n, nodes, x, phi, dphi);
      double sum = 0.0, dsum = 0.0;
      for (int a = 0; a < n; a++) sum += phi[a], dsum += dphi[a];
      assert_true(fabs(sum - 1.0) < 1e-14);
      assert_true(fabs(dsum) < 1e-13);
      for (int k = 1; k <= p; k++) {
        double v = 0.0, dv = 0.0;
        for (int a = 0; a < n; a++) v += ipow(nodes[a], k) * phi[a], dv += ipow(nodes[a], k) * dphi[a];
        assert_true(fabs(v - ipow(x, k)) < 1e-13);
        assert_true(fabs(dv - k * ipow(x, k - 1)) < 1e-12);
      }
    }
  }
}

/* 3D tables: index order, partition of unity, zero gradient sum, and phi_l(node_m) = delta_lm. */
static void test_basis_tables(void **state) {
  (void)state;
  for (int p = 1; p <= 4; p++) {
    hc_basis *b = NULL;
    assert_int_equal(hc_basis_create(p, 0, &b), HC_OK);
    const int n = p + 1, q = p + 1, L = b->L, P = b->P;
    assert_int_equal(b->q, q);
    assert_int_equal(L, n * n * n);
    assert_int_equal(P, q * q * q);
    double wsum = 0.0;
    for (int k = 0; k < P; k++) wsum += b->qwts[k];
    assert_true(fabs(wsum - 8.0) < 1e-13);
    for (int k = 0; k < P; k++) {
      double sum = 0.0, g[3] = {0.0, 0.0, 0.0};
      for (int l = 0; l < L; l++) {
        sum += b->phi[l * P + k];
        for (int i = 0; i < 3; i++) g[i] += b->grad[3 * (l * P + k) + i];
      }
      assert_true(fabs(sum - 1.0) < 1e-13);
      for (int i = 0; i < 3; i++) assert_true(fabs(g[i]) < 1e-12);
      /* x fastest in points and in basis functions */
      assert_true(b->qpts[3 * k] == b->qpts1d[k % q] && b->qpts[3 * k + 1] == b->qpts1d[(k / q) % q] &&
                  b->qpts[3 * k + 2] == b->qpts1d[k / (q * q)]);
    }
    for (int l = 0; l < L; l++) {
      assert_true(b->nodes[3 * l] == b->nodes1d[l % n] && b->nodes[3 * l + 1] == b->nodes1d[(l / n) % n] &&
                  b->nodes[3 * l + 2] == b->nodes1d[l / (n * n)]);
    }
    /* phi_l at node m from the 1D factors, and phi, grad at a point against the 1D tables. */
    double px[5], py[5], pz[5];
    for (int m = 0; m < L; m++) {
      hc_lagrange_1d(n, b->nodes1d, b->nodes[3 * m], px, NULL);
      hc_lagrange_1d(n, b->nodes1d, b->nodes[3 * m + 1], py, NULL);
      hc_lagrange_1d(n, b->nodes1d, b->nodes[3 * m + 2], pz, NULL);
      for (int l = 0; l < L; l++) {
        double v = px[l % n] * py[(l / n) % n] * pz[l / (n * n)];
        assert_true(fabs(v - (l == m ? 1.0 : 0.0)) < 1e-14);
      }
    }
    int k = P - 2;
    double dx[5];
    hc_lagrange_1d(n, b->nodes1d, b->qpts[3 * k], px, dx);
    hc_lagrange_1d(n, b->nodes1d, b->qpts[3 * k + 1], py, NULL);
    hc_lagrange_1d(n, b->nodes1d, b->qpts[3 * k + 2], pz, NULL);
    for (int l = 0; l < L; l++) {
      int a = l % n, bb = (l / n) % n, c = l / (n * n);
      assert_true(fabs(b->phi[l * P + k] - px[a] * py[bb] * pz[c]) < 1e-14);
      assert_true(fabs(b->grad[3 * (l * P + k)] - dx[a] * py[bb] * pz[c]) < 1e-13);
    }
    assert_int_equal(hc_basis_destroy(&b), HC_OK);
    assert_null(b);
  }
}

static void test_basis_errors(void **state) {
  (void)state;
  hc_basis *b = NULL;
  assert_int_equal(hc_basis_create(0, 2, &b), HC_ERR_INPUT);
  assert_null(b);
  assert_int_equal(hc_basis_create(HC_BASIS_MAX_P + 1, 2, &b), HC_ERR_INPUT);
  assert_int_equal(hc_basis_create(2, HC_BASIS_MAX_Q + 1, &b), HC_ERR_INPUT);
  assert_int_equal(hc_basis_create(2, 7, &b), HC_OK);
  assert_int_equal(b->q, 7);
  assert_int_equal(hc_basis_destroy(&b), HC_OK);
  assert_null(b);
  assert_int_equal(hc_basis_destroy(&b), HC_OK);
  assert_int_equal(hc_basis_destroy(NULL), HC_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gauss_exactness_1d), cmocka_unit_test(test_gauss_exactness_3d),
      cmocka_unit_test(test_gll_nodes),          cmocka_unit_test(test_lagrange_1d),
      cmocka_unit_test(test_basis_tables),       cmocka_unit_test(test_basis_errors),
  };
  return cmocka_run_group_tests_name("basis", tests, NULL, NULL);
}
