/* Unit tests of the workload's data functions and mesh motion (kernels/hc_pointwise.h) against values worked
   out by hand at chosen points and against a second, plainly written evaluation of their documented formulas
   (tests/hc_test_data_ref.h); neither calls the functions under test. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "kernels/hc_pointwise.h"
#include "tests/hc_test_data_ref.h"

static const double TOL = 1e-14;

/* |got - want| <= TOL * max(1, |want|), with the names printed on failure. */
static void near(double got, double want, const char *what, int i, int j) {
  if (!(fabs(got - want) <= TOL * fmax(1.0, fabs(want))))
    print_error("%s[%d][%d]: got %.17g, expected %.17g\n", what, i, j, got, want);
  assert_true(fabs(got - want) <= TOL * fmax(1.0, fabs(want)));
}

static void near3(const double got[3], const double want[3], const char *what) {
  for (int i = 0; i < 3; i++) near(got[i], want[i], what, i, 0);
}

static void near33(double got[3][3], double want[3][3], const char *what) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) near(got[i][j], want[i][j], what, i, j);
}

static hc_data_params smooth(double LX, double LY, double LZ) {
  hc_data_params dp = {HC_DATA_SMOOTH, LX, LY, LZ, {0, 0, 0}};
  return dp;
}

/* Box 2 x 4 x 8 and x = (0.5, 0, 4): s = (1/4, 0, 1/2), where the sines and cosines of the formulas take
   the values 0, +-1 and sqrt(2)/2. Every number below is worked out by hand from the documented formulas. */
static void test_hand_values_t0(void **state) {
  (void)state;
  const hc_data_params dp = smooth(2.0, 4.0, 8.0);
  const double x[3] = {0.5, 0.0, 4.0}, t = 0.0, r2 = sqrt(2.0), c = cos(0.25);
  /* f = 1 + 0.5 sin(pi/2) cos(0) cos(0) + 0.25 (1/2) */
  near(hc_data_f(&dp, x, t), 1.625, "f", 0, 0);
  /* g = 1 + 0.5 cos(pi) + (1/4)(0) */
  near(hc_data_g(&dp, x, t), 0.5, "g", 0, 0);
  double v[3], m[3][3], m2[3][3];
  hc_data_F(&dp, x, t, v);
  near3(v, (double[3]){0.5, -0.25, 1.0}, "F");
  hc_data_u(&dp, x, t, v);
  near3(v, (double[3]){0.0, -1.0, 1.0}, "u");
  /* a = (0.5, 0, 0.5 cos(1/4)), kappa = (1 + 1/16) I + a a^T */
  hc_data_kappa(&dp, x, t, m);
  near33(m, (double[3][3]){{1.3125, 0.0, 0.25 * c}, {0.0, 1.0625, 0.0}, {0.25 * c, 0.0, 1.0625 + 0.25 * c * c}},
         "kappa");
  /* s_ij = delta_ij + 0.5 sin(pi (i+1) s_j): rows i = 0, 1, 2 over s_j = 1/4, 0, 1/2 */
  hc_data_s(&dp, x, t, m);
  near33(m, (double[3][3]){{1.0 + r2 / 4, 0.0, 0.5}, {0.5, 1.0, 0.0}, {r2 / 4, 0.0, 0.5}}, "s");
  /* grad d: diagonal 0.2 s = (0.05, 0, 0.1); d0/ds1 = pi, d1/ds2 = pi cos(pi/2) = 0, d2/ds0 = pi sqrt(2)/2 */
  hc_data_sigma_eps(&dp, x, t, m, m2);
  near33(m2, (double[3][3]){{0.05, HC_PI / 2, HC_PI * r2 / 4}, {HC_PI / 2, 0.0, 0.0}, {HC_PI * r2 / 4, 0.0, 0.1}},
         "eps");
  /* tr eps = 0.15: sigma = 2 eps + 0.3 I */
  near33(m, (double[3][3]){{0.4, HC_PI, HC_PI * r2 / 2}, {HC_PI, 0.3, 0.0}, {HC_PI * r2 / 2, 0.0, 0.5}}, "sigma");
}

/* The same point at t = pi/2: cos t = 0, sin t = 1, so the time terms switch; the amplitude of d is 1.5. */
static void test_hand_values_t_half_pi(void **state) {
  (void)state;
  const hc_data_params dp = smooth(2.0, 4.0, 8.0);
  const double x[3] = {0.5, 0.0, 4.0}, t = HC_PI / 2, r2 = sqrt(2.0), sn = sin(0.25);
  near(hc_data_f(&dp, x, t), 1.125, "f", 0, 0);
  /* g = 1 + 0.5 cos(pi - pi/2) */
  near(hc_data_g(&dp, x, t), 1.0, "g", 0, 0);
  double v[3], m[3][3], m2[3][3];
  hc_data_F(&dp, x, t, v);
  near3(v, (double[3]){0.0, -0.25, 1.0}, "F");
  hc_data_u(&dp, x, t, v);
  near3(v, (double[3]){0.0, -1.0, 1.0}, "u");
  /* a = (0.5, 0, 0.5 cos(pi/2 + 1/4)) = (0.5, 0, -0.5 sin(1/4)) */
  hc_data_kappa(&dp, x, t, m);
  near33(m, (double[3][3]){{1.3125, 0.0, -0.25 * sn}, {0.0, 1.0625, 0.0}, {-0.25 * sn, 0.0, 1.0625 + 0.25 * sn * sn}},
         "kappa");
  /* sin(theta + pi/2) = cos(theta) */
  hc_data_s(&dp, x, t, m);
  near33(m, (double[3][3]){{1.0 + r2 / 4, 0.5, 0.0}, {0.0, 1.5, -0.5}, {-r2 / 4, 0.5, 1.0}}, "s");
  hc_data_sigma_eps(&dp, x, t, m, m2);
  near33(m2,
         (double[3][3]){
             {0.05, 0.75 * HC_PI, 0.75 * HC_PI * r2 / 2}, {0.75 * HC_PI, 0.0, 0.0}, {0.75 * HC_PI * r2 / 2, 0.0, 0.1}},
         "eps");
  near33(m,
         (double[3][3]){{0.4, 1.5 * HC_PI, 0.75 * HC_PI * r2}, {1.5 * HC_PI, 0.3, 0.0}, {0.75 * HC_PI * r2, 0.0, 0.5}},
         "sigma");
}

/* Deterministic numbers in [lo, hi). */
static double rnd(uint64_t *s, double lo, double hi) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * (double)(*s >> 11) / 9007199254740992.0;
}

/* Many points of several boxes and times, inside and a little outside the box: every function against the
   plainly written formulas. */
static void test_against_formulas(void **state) {
  (void)state;
  uint64_t seed = 2026;
  for (int n = 0; n < 2000; n++) {
    const double LX = rnd(&seed, 0.5, 3.0), LY = rnd(&seed, 0.5, 3.0), LZ = rnd(&seed, 0.5, 3.0);
    const hc_data_params dp = smooth(LX, LY, LZ);
    const double x[3] = {rnd(&seed, -0.2, 1.2) * LX, rnd(&seed, -0.2, 1.2) * LY, rnd(&seed, -0.2, 1.2) * LZ};
    const double t = rnd(&seed, 0.0, 10.0);
    const ref_at a = ref_point(x, LX, LY, LZ, t);
    near(hc_data_f(&dp, x, t), ref_f(a), "f", n, 0);
    near(hc_data_g(&dp, x, t), ref_g(a), "g", n, 0);
    double v[3], w[3], m[3][3], m2[3][3], r[3][3], r2[3][3];
    hc_data_F(&dp, x, t, v), ref_F(a, w);
    near3(v, w, "F");
    hc_data_u(&dp, x, t, v), ref_u(a, w);
    near3(v, w, "u");
    hc_data_kappa(&dp, x, t, m), ref_kappa(a, r);
    near33(m, r, "kappa");
    hc_data_s(&dp, x, t, m), ref_s(a, r);
    near33(m, r, "s");
    hc_data_sigma_eps(&dp, x, t, m, m2), ref_sigma_eps(a, r, r2);
    near33(m, r, "sigma");
    near33(m2, r2, "eps");
  }
}

/* HC_DATA_CONSTANT: f = g = 1, F = (1,1,1), kappa = s = I, u = e_x, sigma = eps = e_x e_x^T; HC_DATA_POLYNOMIAL:
   f = x^a y^b z^c and the rest as constant. */
static void test_constant_and_polynomial(void **state) {
  (void)state;
  const double I[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, E[3][3] = {{1, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  const double x[3] = {2.0, 3.0, 0.5}, t = 0.7;
  for (int mode = HC_DATA_CONSTANT; mode <= HC_DATA_POLYNOMIAL; mode++) {
    /* the unit box, where x and the normalised s = (x/LX, y/LY, z/LZ) coincide */
    hc_data_params dp = {(hc_data_mode)mode, 1.0, 1.0, 1.0, {3, 1, 2}};
    /* polynomial: 2^3 3^1 0.5^2 = 6 */
    near(hc_data_f(&dp, x, t), mode == HC_DATA_CONSTANT ? 1.0 : 6.0, "f", mode, 0);
    near(hc_data_g(&dp, x, t), 1.0, "g", mode, 0);
    double v[3], m[3][3], m2[3][3];
    hc_data_F(&dp, x, t, v);
    near3(v, (double[3]){1, 1, 1}, "F");
    hc_data_u(&dp, x, t, v);
    near3(v, (double[3]){1, 0, 0}, "u");
    hc_data_kappa(&dp, x, t, m);
    near33(m, (double(*)[3])I, "kappa");
    hc_data_s(&dp, x, t, m);
    near33(m, (double(*)[3])I, "s");
    hc_data_sigma_eps(&dp, x, t, m, m2);
    near33(m, (double(*)[3])E, "sigma");
    near33(m2, (double(*)[3])E, "eps");
  }
  hc_data_params dp = {HC_DATA_POLYNOMIAL, 1.0, 1.0, 1.0, {0, 0, 0}};
  near(hc_data_f(&dp, x, t), 1.0, "f x^0", 0, 0);
  dp.degree[0] = 5, dp.degree[1] = 0, dp.degree[2] = 1;
  near(hc_data_f(&dp, (double[3]){-1.5, 7.0, 2.0}, t), -15.1875, "f x^5 z", 0, 0); /* (-1.5)^5 * 2 */
}

/* The shear x = X + A sin(2 pi Y/LY) sin(2 pi Z/LZ) sin(omega t), y = Y, z = Z, at hand-picked points. */
static void test_motion(void **state) {
  (void)state;
  const hc_motion m = {1.0, 4.0, 8.0, 0.1, 2.0};
  const double t = HC_PI / 4; /* sin(omega t) = 1 */
  struct {
    double X[3], x0;
  } cases[] = {
      {{0.3, 1.0, 2.0}, 0.4},                     /* sin(pi/2) sin(pi/2) */
      {{0.3, 3.0, 2.0}, 0.2},                     /* sin(3 pi/2) = -1 */
      {{0.3, 1.0, 6.0}, 0.2},                     /* sin(3 pi/2) = -1 */
      {{0.3, 3.0, 6.0}, 0.4},                     /* both -1 */
      {{0.3, 0.0, 2.0}, 0.3},                     /* the y = 0 face stays put */
      {{0.3, 1.0, 8.0}, 0.3},                     /* and the z = LZ face */
      {{0.9, 0.5, 1.0}, 0.9 + 0.1 * 0.5},         /* sin(pi/4)^2 = 1/2 */
      {{0.9, 2.0 / 3, 4.0 / 3}, 0.9 + 0.1 * 0.75} /* sin(pi/3)^2 = 3/4 */
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    double x[3];
    hc_motion_apply(&m, t, cases[i].X, x);
    near(x[0], cases[i].x0, "motion x", (int)i, 0);
    near(x[1], cases[i].X[1], "motion y", (int)i, 1);
    near(x[2], cases[i].X[2], "motion z", (int)i, 2);
    /* the node's factor, kept once (hc_celldata_shear), times sin(omega t): the same bits */
    double xf[3];
    hc_motion_apply_factor(hc_motion_factor(&m, cases[i].X), hc_motion_time(&m, t), cases[i].X, xf);
    assert_memory_equal(xf, x, sizeof(x));
  }
  /* sin(omega t) at t = pi/12: sin(pi/6) = 1/2; at t = 0 nothing moves; A = 0 never moves */
  double x[3];
  hc_motion_apply(&m, HC_PI / 12, (double[3]){0.3, 1.0, 2.0}, x);
  near(x[0], 0.35, "motion x, t = pi/12", 0, 0);
  hc_motion_apply(&m, 0.0, (double[3]){0.3, 1.0, 2.0}, x);
  near(x[0], 0.3, "motion x, t = 0", 0, 0);
  hc_motion m0 = m;
  m0.A = 0.0;
  hc_motion_apply(&m0, t, (double[3]){0.3, 1.0, 2.0}, x);
  near(x[0], 0.3, "motion x, A = 0", 0, 0);
}

/* Each kernel's data (hc_pw_data) holds the functions kernels/README.md names for it, and the array entries
   are the documented products: f w|J| and g; u w|J| and u; sigma w|J| and eps; phi w|J| and f; grad phi w|J|
   and F; kappa_ij d_i phi w|J| and s_ij; phi w|J| and phi; grad phi w|J| and grad phi; kappa_ij d_i phi w|J|
   and d_j phi. */
static void test_kernel_entries(void **state) {
  (void)state;
  const hc_data_params dp = smooth(1.5, 2.0, 0.75);
  const double x[3] = {0.4, 1.3, 0.2}, t = 0.9, wdet = 0.37, phi = -0.6, grad[3] = {0.8, -1.1, 0.25};
  const ref_at a = ref_point(x, 1.5, 2.0, 0.75, t);
  double F[3], u[3], kap[3][3], S[3][3], sig[3][3], eps[3][3];
  ref_F(a, F), ref_u(a, u), ref_kappa(a, kap), ref_s(a, S), ref_sigma_eps(a, sig, eps);
  const double f = ref_f(a), g = ref_g(a);
  for (int kern = 0; kern < HC_NUM_KERNELS; kern++) {
    hc_point_data d;
    hc_pw_data(&dp, (hc_kernel)kern, x, t, &d);
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        double left, right, want_left, want_right;
        switch ((hc_kernel)kern) {
          case HC_DATADATA_SCALAR:
            left = hc_pw_datadata_left(0, &d, wdet, 0, 0), right = hc_pw_datadata_right(0, &d, 0, 0);
            want_left = f * wdet, want_right = g;
            break;
          case HC_DATADATA_VECTOR:
            left = hc_pw_datadata_left(1, &d, wdet, i, 0), right = hc_pw_datadata_right(1, &d, i, 0);
            want_left = u[i] * wdet, want_right = u[i];
            break;
          case HC_DATADATA_TENSOR:
            left = hc_pw_datadata_left(2, &d, wdet, i, j), right = hc_pw_datadata_right(2, &d, i, j);
            want_left = sig[i][j] * wdet, want_right = eps[i][j];
            break;
          case HC_DATAFIELD_SCALAR:
            left = hc_pw_field_left(0, phi, grad, &d, wdet, 0, 0), right = hc_pw_datafield_right(0, &d, 0, 0);
            want_left = phi * wdet, want_right = f;
            break;
          case HC_DATAFIELD_VECTOR:
            left = hc_pw_field_left(1, phi, grad, &d, wdet, i, 0), right = hc_pw_datafield_right(1, &d, i, 0);
            want_left = grad[i] * wdet, want_right = F[i];
            break;
          case HC_DATAFIELD_TENSOR:
            left = hc_pw_field_left(2, phi, grad, &d, wdet, i, j), right = hc_pw_datafield_right(2, &d, i, j);
            want_left = kap[i][j] * grad[i] * wdet, want_right = S[i][j];
            break;
          case HC_FIELDFIELD_SCALAR:
            left = hc_pw_field_left(0, phi, grad, &d, wdet, 0, 0), right = hc_pw_fieldfield_right(0, phi, grad, 0, 0);
            want_left = phi * wdet, want_right = phi;
            break;
          case HC_FIELDFIELD_VECTOR:
            left = hc_pw_field_left(1, phi, grad, &d, wdet, i, 0), right = hc_pw_fieldfield_right(1, phi, grad, i, 0);
            want_left = grad[i] * wdet, want_right = grad[i];
            break;
          default:
            left = hc_pw_field_left(2, phi, grad, &d, wdet, i, j), right = hc_pw_fieldfield_right(2, phi, grad, i, j);
            want_left = kap[i][j] * grad[i] * wdet, want_right = grad[j];
            break;
        }
        near(left, want_left, hc_kernel_name((hc_kernel)kern), i, j);
        near(right, want_right, hc_kernel_name((hc_kernel)kern), i, j);
      }
    }
  }
}

/* The triquadratic shape functions: node n = a + 3(b + 3c) at reference point (a-1, b-1, c-1) has
   N_n = delta at the nodes; at other points they sum to 1, reproduce x, y, z and x y z^2 with their
   derivatives, and hc_pw_triquadratic_map (the shape functions formed as it sums) gives the same numbers as
   hc_pw_triquadratic_shape with hc_pw_map_at. */
static void test_triquadratic_shape(void **state) {
  (void)state;
  double N[27], dN[27][3];
  for (int m = 0; m < 27; m++) {
    const double xi[3] = {m % 3 - 1.0, (m / 3) % 3 - 1.0, m / 9 - 1.0};
    hc_pw_triquadratic_shape(xi, N, dN);
    for (int n = 0; n < 27; n++) assert_true(N[n] == (n == m ? 1.0 : 0.0));
  }
  const double pts[3][3] = {{0.3, -0.7, 0.1}, {-0.95, 0.5, 0.77}, {0.0, 1.0, -0.25}};
  double xn[27][3], ff[27];
  for (int n = 0; n < 27; n++) {
    xn[n][0] = 2.0 * (n % 3 - 1.0) + 0.1 * n, xn[n][1] = (n / 3) % 3 - 1.0 - 0.05 * n, xn[n][2] = n / 9 - 1.0;
    const double X[3] = {n % 3 - 1.0, (n / 3) % 3 - 1.0, n / 9 - 1.0};
    ff[n] = X[0] * X[1] * X[2] * X[2];
  }
  for (int ip = 0; ip < 3; ip++) {
    const double *xi = pts[ip];
    hc_pw_triquadratic_shape(xi, N, dN);
    double one = 0.0, d1[3] = {0.0, 0.0, 0.0}, f = 0.0, df[3] = {0.0, 0.0, 0.0}, X[3] = {0.0, 0.0, 0.0};
    for (int n = 0; n < 27; n++) {
      const double Xn[3] = {n % 3 - 1.0, (n / 3) % 3 - 1.0, n / 9 - 1.0};
      one += N[n], f += N[n] * ff[n];
      for (int k = 0; k < 3; k++) d1[k] += dN[n][k], df[k] += dN[n][k] * ff[n], X[k] += N[n] * Xn[k];
    }
    assert_true(fabs(one - 1.0) < 1e-15);
    for (int k = 0; k < 3; k++) assert_true(fabs(d1[k]) < 1e-14 && fabs(X[k] - xi[k]) < 1e-15);
    assert_true(fabs(f - xi[0] * xi[1] * xi[2] * xi[2]) < 1e-15);
    assert_true(fabs(df[0] - xi[1] * xi[2] * xi[2]) < 1e-14 && fabs(df[1] - xi[0] * xi[2] * xi[2]) < 1e-14 &&
                fabs(df[2] - 2.0 * xi[0] * xi[1] * xi[2]) < 1e-14);
    double x1[3], J1[3][3], x2[3], J2[3][3];
    hc_pw_map_at(27, xn, N, dN, x1, J1);
    hc_pw_triquadratic_map(xn, xi, x2, J2);
    for (int i = 0; i < 3; i++) {
      assert_true(x1[i] == x2[i]);
      for (int k = 0; k < 3; k++) assert_true(J1[i][k] == J2[i][k]);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hand_values_t0),
      cmocka_unit_test(test_hand_values_t_half_pi),
      cmocka_unit_test(test_against_formulas),
      cmocka_unit_test(test_constant_and_polynomial),
      cmocka_unit_test(test_motion),
      cmocka_unit_test(test_kernel_entries),
      cmocka_unit_test(test_triquadratic_shape),
  };
  return cmocka_run_group_tests_name("pointwise", tests, NULL, NULL);
}
