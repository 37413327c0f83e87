/* Unit tests of the cell data on one backend (argv[1], default serial): geometry, volumes, the arrays of the
   nine contractions contracted by the serial reference, agreement with serial, layouts, bad cells and, on a
   device backend, its device functions. A device backend with no usable device here exits 77 (skipped). */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/hc_test_device.h"

#include "kernels/hc_celldata.h"
#include "tests/hc_test_data_ref.h"

static const char *backend_name = "serial";
static const hc_backend *backend, *serial;

static int imax(int a, int b) {
  return a > b ? a : b;
}

/* A box mesh of NX x NY x NZ cells with its vertices as X0 [C][8][3]. */
typedef struct {
  int NX, NY, NZ;
  double LX, LY, LZ;
  int64_t C;
  double *X0; /* [C][8][3] */
} box;

/* Deterministic numbers in [-1, 1). */
static double rnd(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* Builds the box; interior vertices move by up to jitter * h in each direction. */
static void box_make(box *m, int NX, int NY, int NZ, double LX, double LY, double LZ, double jitter) {
  m->NX = NX, m->NY = NY, m->NZ = NZ, m->LX = LX, m->LY = LY, m->LZ = LZ;
  m->C = (int64_t)NX * NY * NZ;
  const int VX = NX + 1, VY = NY + 1, VZ = NZ + 1;
  double *V = malloc(sizeof(*V) * 3 * VX * VY * VZ); /* V: [VZ][VY][VX][3] */
  const double h[3] = {LX / NX, LY / NY, LZ / NZ};
  uint64_t seed = 12345;
  for (int k = 0; k < VZ; k++) {
    for (int j = 0; j < VY; j++) {
      for (int i = 0; i < VX; i++) {
        double *v = &V[3 * (i + VX * (j + VY * k))];
        int interior = i > 0 && i < NX && j > 0 && j < NY && k > 0 && k < NZ;
        v[0] = i * h[0], v[1] = j * h[1], v[2] = k * h[2];
        for (int d = 0; d < 3; d++) v[d] += interior ? jitter * h[d] * rnd(&seed) : 0.0;
      }
    }
  }
  m->X0 = malloc(sizeof(*m->X0) * 24 * m->C);
  for (int k = 0; k < NZ; k++) {
    for (int j = 0; j < NY; j++) {
      for (int i = 0; i < NX; i++) {
        int64_t c = i + (int64_t)NX * (j + (int64_t)NY * k);
        for (int v = 0; v < 8; v++) {
          int a = v & 1, b = (v >> 1) & 1, cc = (v >> 2) & 1;
          for (int d = 0; d < 3; d++) m->X0[24 * c + 3 * v + d] = V[3 * ((i + a) + VX * ((j + b) + VY * (k + cc))) + d];
        }
      }
    }
  }
  free(V);
}

static void box_free(box *m) {
  free(m->X0);
  m->X0 = NULL;
}

static void desc_for(hc_celldata_desc *desc, const hc_basis *b, const box *m) {
  hc_celldata_desc_init(desc, b, m->C, m->X0, m->LX, m->LY, m->LZ);
}

static double eps_of(hc_precision prec) {
  return prec == HC_FLOAT ? (double)FLT_EPSILON : DBL_EPSILON;
}

/* n scalars of prec as doubles (new array). */
static double *as_double(const void *a, int64_t n, hc_precision prec) {
  double *d = malloc(sizeof(*d) * (n ? n : 1));
  for (int64_t i = 0; i < n; i++) d[i] = prec == HC_FLOAT ? (double)((const float *)a)[i] : ((const double *)a)[i];
  return d;
}

/* |a| in place. */
static void abs_inplace(void *a, int64_t n, hc_precision prec) {
  for (int64_t i = 0; i < n; i++) {
    if (prec == HC_FLOAT) {
      ((float *)a)[i] = fabsf(((float *)a)[i]);
    } else {
      ((double *)a)[i] = fabs(((double *)a)[i]);
    }
  }
}

/* Fills kernel's arrays on be (new host arrays in *left, *right; k set). desc->X0 is host memory; a device
   backend gets X0 and the arrays in its own memory, and its arrays are copied back after the fill. */
static int fill(const hc_backend *be, const hc_celldata_desc *desc, hc_kernel kernel, hc_contract *k, void **left,
                void **right) {
  assert_int_equal(hc_celldata_contract(desc, kernel, k), HC_OK);
  size_t s = hc_precision_size(desc->precision);
  const size_t lbytes = s * (size_t)hc_contract_numel(k, HC_ARRAY_LEFT);
  const size_t rbytes = s * (size_t)hc_contract_numel(k, HC_ARRAY_RIGHT);
  *left = malloc(lbytes);
  *right = malloc(rbytes);
  if (!be->is_device) return hc_celldata_fill(be, desc, kernel, *left, *right);
  const size_t xbytes = sizeof(double) * 3 * (size_t)desc->geometry_nodes * (size_t)desc->C;
  void *d_X0 = NULL, *d_left = NULL, *d_right = NULL, *d_shear = NULL;
  assert_int_equal(be->mem_alloc(xbytes, &d_X0), HC_OK);
  assert_int_equal(be->mem_alloc(lbytes, &d_left), HC_OK);
  assert_int_equal(be->mem_alloc(rbytes, &d_right), HC_OK);
  assert_int_equal(be->copy_to_device(d_X0, desc->X0, xbytes), HC_OK);
  if (desc->shear) { /* the nodes' shear factors go with them */
    assert_int_equal(be->mem_alloc(xbytes / 3, &d_shear), HC_OK);
    assert_int_equal(be->copy_to_device(d_shear, desc->shear, xbytes / 3), HC_OK);
  }
  /* the device arrays start as NaNs (all bits set), so that an entry the fill leaves unwritten disagrees */
  memset(*left, 0xff, lbytes);
  memset(*right, 0xff, rbytes);
  assert_int_equal(be->copy_to_device(d_left, *left, lbytes), HC_OK);
  assert_int_equal(be->copy_to_device(d_right, *right, rbytes), HC_OK);
  hc_celldata_desc d_desc = *desc;
  d_desc.X0 = d_X0;
  d_desc.shear = d_shear;
  int err = hc_celldata_fill(be, &d_desc, kernel, d_left, d_right);
  char message[2048];
  snprintf(message, sizeof(message), "%s", hc_error_message());
  if (err == HC_OK) {
    assert_int_equal(be->copy_to_host(*left, d_left, lbytes), HC_OK);
    assert_int_equal(be->copy_to_host(*right, d_right, rbytes), HC_OK);
  }
  assert_int_equal(be->mem_free(d_X0), HC_OK);
  assert_int_equal(be->mem_free(d_left), HC_OK);
  assert_int_equal(be->mem_free(d_right), HC_OK);
  if (d_shear) assert_int_equal(be->mem_free(d_shear), HC_OK);
  if (err != HC_OK) return HC_ERROR(err, "%s", message); /* the fill's message, not a later call's */
  return HC_OK;
}

/* Contracts with the serial reference: the output (cell-major, as doubles) and, from |left| and |right|,
   the magnitude sum |left||right| behind each entry. */
static void contract(const hc_contract *k, void *left, void *right, double **out, double **mag) {
  size_t s = hc_precision_size(k->precision);
  int64_t no = hc_contract_numel(k, HC_ARRAY_OUT);
  void *o = malloc(s * no), *ocm = malloc(s * no);
  assert_int_equal(hc_contract_apply(serial, k, left, right, o), HC_OK);
  assert_int_equal(hc_layout_convert(k, HC_ARRAY_OUT, k->layout, o, HC_LAYOUT_CELL_MAJOR, ocm), HC_OK);
  *out = as_double(ocm, no, k->precision);
  abs_inplace(left, hc_contract_numel(k, HC_ARRAY_LEFT), k->precision);
  abs_inplace(right, hc_contract_numel(k, HC_ARRAY_RIGHT), k->precision);
  assert_int_equal(hc_contract_apply(serial, k, left, right, o), HC_OK);
  assert_int_equal(hc_layout_convert(k, HC_ARRAY_OUT, k->layout, o, HC_LAYOUT_CELL_MAJOR, ocm), HC_OK);
  *mag = as_double(ocm, no, k->precision);
  free(o);
  free(ocm);
}

static double sum(const double *a, int64_t n) {
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += a[i];
  return s;
}

/* Sum of w|J| is the box volume: undeformed, jittered, sheared at several times, jittered and sheared. */
static void test_volume(void **state) {
  (void)state;
  const double LX = 2.0, LY = 1.5, LZ = 1.0, V = LX * LY * LZ;
  for (int p = 1; p <= 3; p += 2) {
    hc_basis *b = NULL;
    assert_int_equal(hc_basis_create(p, 0, &b), HC_OK);
    for (int jit = 0; jit <= 1; jit++) {
      box m;
      box_make(&m, 4, 3, 3, LX, LY, LZ, jit ? 0.2 : 0.0);
      double *vol = malloc(sizeof(*vol) * m.C);
      const double times[] = {0.0, 0.3, 1.1, 2.5};
      for (int it = 0; it < 4; it++) {
        hc_celldata_desc desc;
        desc_for(&desc, b, &m);
        desc.t = times[it];
        desc.motion.A = 0.08 * LX;
        desc.motion.omega = 1.3;
        assert_int_equal(hc_celldata_volumes(&desc, vol), HC_OK);
        for (int64_t c = 0; c < m.C; c++) assert_true(vol[c] > 0.0);
        assert_true(fabs(sum(vol, m.C) - V) <= 1e-12 * V);
      }
      free(vol);
      box_free(&m);
    }
    hc_basis_destroy(&b);
  }
}

/* Cells x = x0 + M (a,b,c) for corner offsets (a,b,c): gradients, det J and linear reproduction. */
static void test_affine_cells(void **state) {
  (void)state;
  const double M[2][3][3] = {{{2.0, 0.3, 0.1}, {0.2, 1.5, -0.2}, {0.1, 0.4, 1.2}},
                             {{0.5, -0.2, 0.0}, {0.1, 0.7, 0.3}, {-0.1, 0.0, 0.9}}};
  const double x0[2][3] = {{0.1, -0.2, 0.3}, {3.0, 1.0, -1.0}};
  double X0[2][8][3];
  for (int c = 0; c < 2; c++)
    for (int v = 0; v < 8; v++)
      for (int i = 0; i < 3; i++)
        X0[c][v][i] = x0[c][i] + M[c][i][0] * (v & 1) + M[c][i][1] * ((v >> 1) & 1) + M[c][i][2] * ((v >> 2) & 1);
  const double u0 = 3.0, du[3] = {1.0, -2.0, 0.5}; /* u = u0 + du . x */
  for (int p = 1; p <= 4; p++) {
    hc_basis *b = NULL;
    assert_int_equal(hc_basis_create(p, 0, &b), HC_OK);
    const int L = b->L, P = b->P;
    hc_celldata_desc desc;
    hc_celldata_desc_init(&desc, b, 2, &X0[0][0][0], 4.0, 3.0, 2.0);
    hc_contract k;
    void *left, *right;
    assert_int_equal(fill(backend, &desc, HC_FIELDFIELD_VECTOR, &k, &left, &right), HC_OK);
    int ndim;
    int64_t dims[6];
    hc_contract_shape(&k, HC_ARRAY_RIGHT, &ndim, dims);
    assert_int_equal(ndim, 4);
    assert_true(dims[0] == 2 && dims[1] == L && dims[2] == P && dims[3] == 3);
    const double *gl = left, *gr = right; /* [C][L][P][3] */
    double *xn = malloc(sizeof(*xn) * 2 * L * 3);
    hc_point_geom *geom = malloc(sizeof(*geom) * 2 * P);
    assert_int_equal(hc_celldata_nodes(&desc, xn), HC_OK);
    assert_int_equal(hc_celldata_geometry(&desc, geom), HC_OK);
    for (int c = 0; c < 2; c++) {
      /* J = M / 2 on [-1,1]^3; det J = det M / 8 */
      double J[3][3], Jinv[3][3];
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) J[i][j] = 0.5 * M[c][i][j];
      double det = hc_pw_det3(J);
      hc_pw_inv3(J, det, Jinv);
      double vol = 0.0;
      for (int q = 0; q < P; q++) {
        const hc_point_geom *g = &geom[c * P + q];
        assert_true(fabs(g->det - det) < 1e-14);
        vol += g->wdet;
        double gu[3] = {0.0, 0.0, 0.0};
        for (int l = 0; l < L; l++) {
          const double *gp = &gr[((c * L + l) * P + q) * 3];
          /* analytic gradient J^-T grad_ref, grad_ref from the tables */
          double ga[3];
          hc_pw_phys_grad(Jinv, &b->grad[3 * (l * P + q)], ga);
          for (int i = 0; i < 3; i++) {
            assert_true(fabs(gp[i] - ga[i]) < 1e-12);
            assert_true(fabs(gl[((c * L + l) * P + q) * 3 + i] - ga[i] * b->qwts[q] * det) < 1e-12);
          }
          double ul =
              u0 + du[0] * xn[(c * L + l) * 3] + du[1] * xn[(c * L + l) * 3 + 1] + du[2] * xn[(c * L + l) * 3 + 2];
          for (int i = 0; i < 3; i++) gu[i] += ul * gp[i];
        }
        for (int i = 0; i < 3; i++) assert_true(fabs(gu[i] - du[i]) < 1e-11);
      }
      assert_true(fabs(vol - 8.0 * det) < 1e-13);
      if (p == 1) {
        /* p = 1: the trilinear basis, grad_ref phi_v = s_k/2 prod of the other (1 + s xi)/2. */
        for (int q = 0; q < P; q++) {
          const double *xi = &b->qpts[3 * q];
          for (int v = 0; v < 8; v++) {
            double s[3] = {2.0 * (v & 1) - 1, 2.0 * ((v >> 1) & 1) - 1, 2.0 * ((v >> 2) & 1) - 1};
            double h[3] = {0.5 * (1 + s[0] * xi[0]), 0.5 * (1 + s[1] * xi[1]), 0.5 * (1 + s[2] * xi[2])};
            double gref[3] = {0.5 * s[0] * h[1] * h[2], 0.5 * s[1] * h[0] * h[2], 0.5 * s[2] * h[0] * h[1]}, ga[3];
            hc_pw_phys_grad(Jinv, gref, ga);
            for (int i = 0; i < 3; i++) assert_true(fabs(gr[((c * L + v) * P + q) * 3 + i] - ga[i]) < 1e-12);
            for (int i = 0; i < 3; i++) assert_true(fabs(xn[(c * L + v) * 3 + i] - X0[c][v][i]) < 1e-14);
          }
        }
      }
    }
    free(xn);
    free(geom);
    free(left);
    free(right);
    hc_basis_destroy(&b);
  }
}

/* Polynomial f of degree <= 2q-1 per direction integrates exactly on the undeformed box (the load vector
   summed over l, and DataDataScalar with g = 1), at any length scale and in both precisions: f is a
   polynomial of the box's normalised coordinates, so neither its values nor its integral under- or
   overflow on a box of 1e-5 or 1e6. */
static void test_polynomial_exactness(void **state) {
  (void)state;
  const double scales[3] = {1.0, 1e-5, 1e6};
  for (int is = 0; is < 3; is++) {
    const double LX = 2.0 * scales[is], LY = 1.5 * scales[is], LZ = 1.2 * scales[is];
    for (int prec = 0; prec < 2; prec++) {
      for (int p = 1; p <= 2; p++) {
        hc_basis *b = NULL;
        assert_int_equal(hc_basis_create(p, 0, &b), HC_OK);
        const int q = b->q;
        box m;
        box_make(&m, 3, 2, 2, LX, LY, LZ, 0.0);
        hc_celldata_desc desc;
        desc_for(&desc, b, &m);
        desc.precision = (hc_precision)prec;
        desc.data.mode = HC_DATA_POLYNOMIAL;
        const int deg[3] = {2 * q - 1, 2 * q - 2, 1};
        for (int i = 0; i < 3; i++) desc.data.degree[i] = deg[i];
        double exact = LX / (deg[0] + 1) * LY / (deg[1] + 1) * LZ / (deg[2] + 1);
        const hc_kernel kernels[2] = {HC_DATAFIELD_SCALAR, HC_DATADATA_SCALAR};
        for (int ik = 0; ik < 2; ik++) {
          hc_contract k;
          void *left, *right;
          double *out, *mag;
          assert_int_equal(fill(backend, &desc, kernels[ik], &k, &left, &right), HC_OK);
          contract(&k, left, right, &out, &mag);
          double got = sum(out, hc_contract_numel(&k, HC_ARRAY_OUT));
          if (!(fabs(got - exact) < 1e3 * eps_of(desc.precision) * exact))
            fail_msg("scale %g, %s, order %d: %.17g against %.17g", scales[is], hc_precision_name(desc.precision), p,
                     got, exact);
          free(out), free(mag), free(left), free(right);
        }
        box_free(&m);
        hc_basis_destroy(&b);
      }
    }
  }
}

/* The degenerate-cell threshold depends on the cell's shape, not its size or aspect ratio: perfect
   boxes 1e6 : 1 : 1e-6 long, or uniformly tiny or huge, are valid; a cell skewed into a sliver is still
   refused. */
static void test_thin_cells(void **state) {
  (void)state;
  hc_basis *b = NULL;
  assert_int_equal(hc_basis_create(2, 0, &b), HC_OK);
  const double sizes[4][3] = {{1e6, 1.0, 1e-6}, {1e-6, 1e-6, 1e4}, {1e-9, 1e-9, 1e-9}, {1e9, 1e9, 1e9}};
  for (int i = 0; i < 4; i++) {
    box m;
    box_make(&m, 2, 1, 1, sizes[i][0], sizes[i][1], sizes[i][2], 0.0);
    hc_celldata_desc desc;
    desc_for(&desc, b, &m);
    double vol[2];
    if (hc_celldata_volumes(&desc, vol) != HC_OK)
      fail_msg("box %g x %g x %g: %s", sizes[i][0], sizes[i][1], sizes[i][2], hc_error_message());
    assert_true(fabs(vol[0] + vol[1] - sizes[i][0] * sizes[i][1] * sizes[i][2]) <
                1e-12 * sizes[i][0] * sizes[i][1] * sizes[i][2]);
    /* cell 1's top face slid along x by 1e3 times the cell's length in x: a skewed but valid cell; by
       1e11 times, a sliver whose det J is 1e-11 of its bounding box's: degenerate */
    const double w = sizes[i][0] / 2;
    double x_top[4];
    for (int v = 4; v < 8; v++) x_top[v - 4] = m.X0[24 * 1 + 3 * v];
    for (int v = 4; v < 8; v++) m.X0[24 * 1 + 3 * v] = x_top[v - 4] + 1e3 * w;
    assert_int_equal(hc_celldata_volumes(&desc, vol), HC_OK);
    for (int v = 4; v < 8; v++) m.X0[24 * 1 + 3 * v] = x_top[v - 4] + 1e11 * w;
    assert_int_equal(hc_celldata_volumes(&desc, vol), HC_ERR_INPUT);
    assert_non_null(strstr(hc_error_message(), "cell 1 is inverted or degenerate"));
    box_free(&m);
  }
  hc_basis_destroy(&b);
}

/* Volume, mass-matrix sum and zero row sums of the contracted arrays, every precision and layout. */
static void test_contracted_checks(void **state) {
  (void)state;
  const double LX = 1.0, LY = 2.0, LZ = 1.5, V = LX * LY * LZ;
  for (int p = 1; p <= 2; p++) {
    hc_basis *b = NULL;
    assert_int_equal(hc_basis_create(p, 0, &b), HC_OK);
    box m;
    box_make(&m, 3, 3, 2, LX, LY, LZ, 0.2);
    for (int prec = 0; prec < 2; prec++) {
      for (int lay = 0; lay < 2; lay++) {
        hc_celldata_desc desc;
        desc_for(&desc, b, &m);
        desc.t = 0.7;
        desc.motion.A = 0.1;
        desc.motion.omega = 2.0;
        desc.precision = (hc_precision)prec;
        desc.layout = (hc_layout)lay;
        const double eps = eps_of(desc.precision);
        for (int kern = 0; kern < HC_NUM_KERNELS; kern++) {
          hc_kernel kernel = (hc_kernel)kern;
          hc_family fam = hc_kernel_family(kernel);
          desc.data.mode = fam == HC_FAMILY_DATADATA ? HC_DATA_CONSTANT : HC_DATA_SMOOTH;
          hc_contract k;
          void *left, *right;
          double *out, *mag;
          assert_int_equal(fill(backend, &desc, kernel, &k, &left, &right), HC_OK);
          contract(&k, left, right, &out, &mag);
          const int64_t C = k.C, L = k.L, R = k.R, K = hc_contract_K(&k);
          const double tol = 4.0 * (double)(K + L + R) * eps;
          if (fam == HC_FAMILY_DATADATA || kernel == HC_FIELDFIELD_SCALAR) {
            /* constant data: every DataData kernel integrates 1; the mass matrix sums to the volume */
            int64_t n = hc_contract_numel(&k, HC_ARRAY_OUT);
            double s = sum(out, n), smag = sum(mag, n);
            if (fabs(s - V) > tol * smag) {
              print_error("%s %s %s p=%d: sum %.17g, volume %.17g\n", hc_kernel_name(kernel),
                          hc_precision_name(desc.precision), hc_layout_name(desc.layout), p, s, V);
            }
            assert_true(fabs(s - V) <= tol * smag);
          }
          if (kernel == HC_FIELDFIELD_VECTOR || kernel == HC_FIELDFIELD_TENSOR) {
            for (int64_t c = 0; c < C; c++) {
              for (int64_t l = 0; l < L; l++) {
                double s = 0.0, smag = 0.0;
                for (int64_t r = 0; r < R; r++) s += out[(c * L + l) * R + r], smag += mag[(c * L + l) * R + r];
                assert_true(smag > 0.0);
                assert_true(fabs(s) <= tol * smag);
              }
            }
          }
          if (kernel == HC_DATAFIELD_VECTOR || kernel == HC_DATAFIELD_TENSOR) {
            for (int64_t c = 0; c < C; c++) {
              double s = 0.0, smag = 0.0;
              for (int64_t l = 0; l < L; l++) s += out[c * L + l], smag += mag[c * L + l];
              assert_true(smag > 0.0);
              assert_true(fabs(s) <= tol * smag);
            }
          }
          free(out), free(mag), free(left), free(right);
        }
      }
    }
    box_free(&m);
    hc_basis_destroy(&b);
  }
}

/* Each contraction of the produced arrays is the integral kernels/README.md names, recomputed here from
   the host geometry and the data functions as written out in tests/hc_test_data_ref.h (not the code's own):
   e.g. FieldFieldTensor = sum_p w|J| grad phi_l . kappa grad phi_r. */
static void test_formulas(void **state) {
  (void)state;
  hc_basis *b = NULL;
  assert_int_equal(hc_basis_create(2, 0, &b), HC_OK);
  box m;
  box_make(&m, 2, 2, 2, 1.0, 1.2, 0.8, 0.2);
  hc_celldata_desc desc;
  desc_for(&desc, b, &m);
  desc.t = 0.9, desc.motion.A = 0.1, desc.motion.omega = 1.0;
  desc.layout = HC_LAYOUT_CELL_MINOR;
  const int64_t C = m.C, L = b->L, P = b->P;
  hc_point_geom *geom = malloc(sizeof(*geom) * C * P);
  double *grad = malloc(sizeof(*grad) * L * P * 3); /* grad: [L][P][3] of one cell */
  assert_int_equal(hc_celldata_geometry(&desc, geom), HC_OK);
  for (int kern = 0; kern < HC_NUM_KERNELS; kern++) {
    hc_kernel kernel = (hc_kernel)kern;
    hc_family fam = hc_kernel_family(kernel);
    hc_contract k;
    void *left, *right;
    double *out, *mag;
    assert_int_equal(fill(backend, &desc, kernel, &k, &left, &right), HC_OK);
    contract(&k, left, right, &out, &mag);
    const int64_t no = hc_contract_inner(&k, HC_ARRAY_OUT);
    for (int64_t c = 0; c < C; c++) {
      for (int64_t l = 0; l < L; l++)
        for (int64_t p = 0; p < P; p++)
          hc_pw_phys_grad(geom[c * P + p].Jinv, &b->grad[3 * (l * P + p)], &grad[3 * (l * P + p)]);
      for (int64_t e = 0; e < no; e++) {
        const int64_t l = fam == HC_FAMILY_FIELDFIELD ? e / L : e, r = e % L;
        double ref = 0.0;
        for (int64_t p = 0; p < P; p++) {
          const hc_point_geom *g = &geom[c * P + p];
          const double *gl = &grad[3 * (l * P + p)];
          const ref_at a = ref_point(g->x, m.LX, m.LY, m.LZ, desc.t);
          const double phil = fam == HC_FAMILY_DATADATA ? 0.0 : b->phi[l * P + p];
          double v = 0.0, F[3], u[3], kap[3][3], S[3][3], sig[3][3], eps[3][3];
          switch (kernel) {
            case HC_DATADATA_SCALAR:
              v = ref_f(a) * ref_g(a);
              break;
            case HC_DATADATA_VECTOR:
              ref_u(a, u);
              v = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
              break;
            case HC_DATADATA_TENSOR:
              ref_sigma_eps(a, sig, eps);
              for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) v += sig[i][j] * eps[i][j];
              break;
            case HC_DATAFIELD_SCALAR:
              v = phil * ref_f(a);
              break;
            case HC_DATAFIELD_VECTOR:
              ref_F(a, F);
              v = gl[0] * F[0] + gl[1] * F[1] + gl[2] * F[2];
              break;
            case HC_DATAFIELD_TENSOR:
              ref_kappa(a, kap);
              ref_s(a, S);
              for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) v += kap[i][j] * gl[i] * S[i][j];
              break;
            case HC_FIELDFIELD_SCALAR:
              v = phil * b->phi[r * P + p];
              break;
            case HC_FIELDFIELD_VECTOR:
              for (int i = 0; i < 3; i++) v += gl[i] * grad[3 * (r * P + p) + i];
              break;
            default:
              ref_kappa(a, kap);
              for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) v += gl[i] * kap[i][j] * grad[3 * (r * P + p) + j];
              break;
          }
          ref += g->wdet * v;
        }
        assert_true(fabs(out[c * no + e] - ref) <= 1e-13 * (mag[c * no + e] + 1e-300));
      }
    }
    free(out), free(mag), free(left), free(right);
  }
  free(geom);
  free(grad);
  box_free(&m);
  hc_basis_destroy(&b);
}

/* Largest |x - y| over n entries, and the largest |y|. */
static double max_diff(const double *x, const double *y, int64_t n, double *amax) {
  double d = 0.0;
  *amax = 0.0;
  for (int64_t i = 0; i < n; i++) d = fmax(d, fabs(x[i] - y[i])), *amax = fmax(*amax, fabs(y[i]));
  return d;
}

/* The backend's arrays agree with serial's, and cell-minor arrays are the transpose of cell-major ones:
   exactly on the host backends; on a device backend, whose compiler may contract multiplies and adds into
   FMAs differently per layout, to the same few units of rounding. d0: the cells, basis, time and motion (its
   precision and layout are each set in turn); most: the cells across the mesh's widest direction; the kernels
   of kernel_mask (bit k: kernel k); what: the case, for the messages. */
static void agree_with_serial(const hc_celldata_desc *d0, int most, unsigned kernel_mask, const char *what) {
  for (int prec = 0; prec < 2; prec++) {
    for (int kern = 0; kern < HC_NUM_KERNELS; kern++) {
      if (!(kernel_mask >> kern & 1u)) continue;
      hc_celldata_desc desc = *d0;
      desc.precision = (hc_precision)prec;
      hc_contract k;
      void *arr[2][2][2]; /* [backend, serial][cell-major, cell-minor][left, right] */
      for (int lay = 0; lay < 2; lay++) {
        desc.layout = (hc_layout)lay;
        assert_int_equal(fill(backend, &desc, (hc_kernel)kern, &k, &arr[0][lay][0], &arr[0][lay][1]), HC_OK);
        assert_int_equal(fill(serial, &desc, (hc_kernel)kern, &k, &arr[1][lay][0], &arr[1][lay][1]), HC_OK);
      }
      /* backend against serial, to a few units of the stored precision's rounding relative to the array's
         magnitude. On a device, FMA contraction and the device's sin and cos move the last bits of the moved
         geometry nodes (coordinates up to 1); J is formed from their differences across a cell of width
         h = 1 / cells, so its relative error, and that of J^-1 and the gradients, grows by 1 / h. */
      const double tol = (backend->is_device ? 8.0 * most : 4.0) * eps_of(desc.precision);
      for (int w = 0; w < 2; w++) {
        hc_array which = w ? HC_ARRAY_RIGHT : HC_ARRAY_LEFT;
        const int64_t n = hc_contract_numel(&k, which);
        const size_t bytes = (size_t)n * hc_precision_size(desc.precision);
        for (int lay = 0; lay < 2; lay++) {
          double *x = as_double(arr[0][lay][w], n, desc.precision), *y = as_double(arr[1][lay][w], n, desc.precision);
          double amax = 0.0;
          int64_t bad = 0;
          for (int64_t i = 0; i < n; i++) amax = fmax(amax, fabs(y[i]));
          for (int64_t i = 0; i < n; i++) {
            if (!(fabs(x[i] - y[i]) <= tol * amax)) {
              if (bad++ < 3)
                print_error("%s: %s %s %s %s entry %lld: %s %.17g, serial %.17g (magnitude %g)\n", what,
                            hc_kernel_name(k.kernel), hc_precision_name(desc.precision), hc_layout_name((hc_layout)lay),
                            w ? "right" : "left", (long long)i, backend_name, x[i], y[i], amax);
            }
          }
          assert_int_equal(bad, 0);
          free(x), free(y);
        }
        /* cell-minor = transpose of cell-major */
        void *t = malloc(bytes);
        k.layout = HC_LAYOUT_CELL_MAJOR;
        assert_int_equal(hc_layout_convert(&k, which, HC_LAYOUT_CELL_MAJOR, arr[0][0][w], HC_LAYOUT_CELL_MINOR, t),
                         HC_OK);
        if (!backend->is_device) {
          assert_memory_equal(t, arr[0][1][w], bytes);
        } else {
          double *x = as_double(t, n, desc.precision), *y = as_double(arr[0][1][w], n, desc.precision), amax;
          assert_true(max_diff(x, y, n, &amax) <= tol * amax);
          free(x), free(y);
        }
        free(t);
      }
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
          for (int l = 0; l < 2; l++) free(arr[i][j][l]);
    }
  }
}

/* agree_with_serial on a jittered box: order p with q points per direction (0: the default) on cells[0] x
   cells[1] x cells[2] cells, the kernels of kernel_mask. */
static void agreement_case(int p, int q, const int cells[3], unsigned kernel_mask) {
  hc_basis *b = NULL;
  assert_int_equal(hc_basis_create(p, q, &b), HC_OK);
  box m;
  box_make(&m, cells[0], cells[1], cells[2], 1.0, 1.0, 1.0, 0.15);
  hc_celldata_desc desc;
  desc_for(&desc, b, &m);
  desc.t = 1.9, desc.motion.A = 0.05, desc.motion.omega = 1.0;
  char what[96];
  snprintf(what, sizeof(what), "order %d, %d points, %lld cells", p, b->P, (long long)m.C);
  agree_with_serial(&desc, imax(cells[0], imax(cells[1], cells[2])), kernel_mask, what);
  box_free(&m);
  hc_basis_destroy(&b);
}

static void test_agreement_and_layouts(void **state) {
  (void)state;
  /* Order 2 on 45 cells (one block of cells with a remainder) and on 429 (several blocks per thread, split
     over threads); orders 1, 3 and 4, and 343 and 512 points (7 and 8 per direction) at order 1, so that a
     device's blocks of cells come out whole and with a remainder, and cells too large for the CUDA
     backend's staged kernel (512 points of the tensor kernels' records) go through its other kernel. */
  const struct {
    int p, q, cells[3];
  } cases[] = {{2, 0, {5, 3, 3}}, {2, 0, {13, 11, 3}}, {1, 0, {5, 3, 3}}, {1, 7, {5, 3, 3}},
               {1, 8, {3, 2, 1}}, {3, 0, {5, 3, 3}},   {4, 0, {3, 2, 1}}};
  for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++)
    agreement_case(cases[ci].p, cases[ci].q, cases[ci].cells, (1u << HC_NUM_KERNELS) - 1);
}

/* On a device backend, a grid of many waves of blocks: the CUDA backend's staged kernel then takes as many cells
   per block as give each thread a point (32 at order 1 with 8 points, fewer where the tensor records' shared
   memory caps them), one block per group of cells, instead of the groups and shares of its model, from 4 waves of
   its resident blocks (at 3 blocks per SM, 73,728 cells of order 1 are 4 waves for up to 192 SMs); the smaller
   cases of test_agreement_and_layouts take the model's (groups of cells whose items several blocks share, the last
   group short on 429 cells). The kernels with small arrays: the three DataData and the scalar DataField and
   FieldField (38 MB per field array). */
static void test_agreement_many_waves(void **state) {
  (void)state;
  if (!backend->is_device) return; /* the host backends' blocks do not depend on the grid */
  const int cells[3] = {48, 48, 32};
  agreement_case(1, 0, cells,
                 1u << HC_DATADATA_SCALAR | 1u << HC_DATADATA_VECTOR | 1u << HC_DATADATA_TENSOR |
                     1u << HC_DATAFIELD_SCALAR | 1u << HC_FIELDFIELD_SCALAR);
}

/* On a device backend, the grids of order1.yaml and order2.yaml, one to two rounds of resident blocks: 13,824 cells of
   order 1 (on the CUDA backend the staged kernel's 24 KB tiling, 477 to 1,152 blocks, for 396 resident on an H100) and
   4,096 of order 2 (the model's groups of cells shared by neighbouring blocks), every kernel. */
static void test_agreement_one_round(void **state) {
  (void)state;
  if (!backend->is_device) return; /* the host backends' blocks do not depend on the grid */
  const int order1[3] = {24, 24, 24}, order2[3] = {16, 16, 16};
  agreement_case(1, 0, order1, (1u << HC_NUM_KERNELS) - 1);
  agreement_case(2, 0, order2, (1u << HC_NUM_KERNELS) - 1);
}

/* Neighbouring cells give their shared nodes the same coordinates. */
static void test_shared_nodes(void **state) {
  (void)state;
  hc_basis *b = NULL;
  assert_int_equal(hc_basis_create(3, 0, &b), HC_OK);
  box m;
  box_make(&m, 3, 3, 3, 1.0, 1.0, 1.0, 0.2);
  hc_celldata_desc desc;
  desc_for(&desc, b, &m);
  desc.t = 0.4, desc.motion.A = 0.1, desc.motion.omega = 1.0;
  const int n = b->n1d, L = b->L;
  double *x = malloc(sizeof(*x) * m.C * L * 3);
  assert_int_equal(hc_celldata_nodes(&desc, x), HC_OK);
  /* cells 13 (centre) and 14 (its +x neighbour): node (p, b, c) of 13 is node (0, b, c) of 14 */
  for (int cc = 0; cc < n; cc++) {
    for (int bb = 0; bb < n; bb++) {
      int l13 = (n - 1) + n * (bb + n * cc), l14 = 0 + n * (bb + n * cc);
      for (int i = 0; i < 3; i++) assert_true(fabs(x[(13 * L + l13) * 3 + i] - x[(14 * L + l14) * 3 + i]) < 1e-15);
    }
  }
  free(x);
  box_free(&m);
  hc_basis_destroy(&b);
}

/* The cell an inverted-or-degenerate error names ("cell N is inverted or degenerate"), or -1. */
static long long named_cell(const char *message) {
  const char *at = strstr(message, "cell ");
  long long c = -1;
  while (at && sscanf(at, "cell %lld is inverted", &c) != 1) at = strstr(at + 1, "cell ");
  return at ? c : -1;
}

/* Fills kernel on the backend and on serial: both must fail naming the same cell, which is returned. */
static long long bad_cell_both(const hc_celldata_desc *desc, hc_kernel kernel) {
  hc_contract k;
  void *left, *right;
  assert_int_equal(fill(serial, desc, kernel, &k, &left, &right), HC_ERR_INPUT);
  free(left), free(right);
  long long want = named_cell(hc_error_message());
  assert_true(want >= 0);
  assert_int_equal(fill(backend, desc, kernel, &k, &left, &right), HC_ERR_INPUT);
  free(left), free(right);
  assert_non_null(strstr(hc_error_message(), "inverted or degenerate"));
  assert_int_equal(named_cell(hc_error_message()), want);
  return want;
}

/* An inverted or flattened cell is an error naming the (lowest) bad cell, from the backend and the host. */
static void test_bad_cells(void **state) {
  (void)state;
  hc_basis *b = NULL;
  assert_int_equal(hc_basis_create(2, 0, &b), HC_OK);
  for (int prec = 0; prec < 2; prec++) {
    box m;
    box_make(&m, 2, 2, 2, 1.0, 1.0, 1.0, 0.0);
    hc_celldata_desc desc;
    desc_for(&desc, b, &m);
    desc.precision = (hc_precision)prec;
    hc_contract k;
    void *left, *right;
    double vol[8];
    char want[32];
    /* cell 5 mirrored in x: vertices a = 0 and a = 1 swapped */
    for (int v = 0; v < 8; v += 2) {
      for (int d = 0; d < 3; d++) {
        double tmp = m.X0[24 * 5 + 3 * v + d];
        m.X0[24 * 5 + 3 * v + d] = m.X0[24 * 5 + 3 * (v + 1) + d];
        m.X0[24 * 5 + 3 * (v + 1) + d] = tmp;
      }
    }
    snprintf(want, sizeof(want), "cell 5 ");
    assert_int_equal(fill(backend, &desc, HC_FIELDFIELD_VECTOR, &k, &left, &right), HC_ERR_INPUT);
    assert_non_null(strstr(hc_error_message(), want));
    assert_non_null(strstr(hc_error_message(), "inverted"));
    free(left), free(right);
    assert_int_equal(hc_celldata_volumes(&desc, vol), HC_ERR_INPUT);
    assert_non_null(strstr(hc_error_message(), want));
    /* cell 2 flattened onto its bottom face as well: cell 2 is named, being the lowest */
    for (int v = 4; v < 8; v++) m.X0[24 * 2 + 3 * v + 2] = m.X0[24 * 2 + 3 * (v - 4) + 2];
    assert_int_equal(fill(backend, &desc, HC_DATADATA_TENSOR, &k, &left, &right), HC_ERR_INPUT);
    assert_non_null(strstr(hc_error_message(), "cell 2 "));
    free(left), free(right);
    assert_int_equal(bad_cell_both(&desc, HC_FIELDFIELD_TENSOR), 2);
    /* a NaN vertex */
    box_free(&m);
    box_make(&m, 2, 2, 2, 1.0, 1.0, 1.0, 0.0);
    desc.X0 = m.X0;
    m.X0[24 * 7 + 4] = NAN;
    assert_int_equal(fill(backend, &desc, HC_FIELDFIELD_SCALAR, &k, &left, &right), HC_ERR_INPUT);
    assert_non_null(strstr(hc_error_message(), "cell 7 "));
    free(left), free(right);
    /* shear so strong that cells fold */
    box_free(&m);
    box_make(&m, 2, 4, 4, 0.2, 1.0, 1.0, 0.3); /* a shear alone moves a cell's x-edges alike: jitter */
    desc_for(&desc, b, &m);
    desc.t = 1.0, desc.motion.A = 2.0, desc.motion.omega = 1.5;
    desc.precision = (hc_precision)prec;
    desc.layout = (hc_layout)prec; /* cell-minor in the second round */
    assert_int_equal(fill(backend, &desc, HC_FIELDFIELD_SCALAR, &k, &left, &right), HC_ERR_INPUT);
    assert_non_null(strstr(hc_error_message(), "inverted or degenerate"));
    free(left), free(right);
    /* the same cell as serial names, for every kernel */
    for (int kern = 0; kern < HC_NUM_KERNELS; kern++) bad_cell_both(&desc, (hc_kernel)kern);
    box_free(&m);
  }
  hc_basis_destroy(&b);
}

/* Triquadratic cells (27 geometry nodes per cell, node a + 3(b + 3c) at reference point (a-1, b-1, c-1)). */

/* The 27 nodes of the triquadratic cell that the trilinear map of the vertices X8 ([8][3], vertex
   a + 2b + 4c) places: node (a,b,c) at the vertices' weights (1 - a/2, a/2) x ... , written out here. X27:
   [27][3]. */
static void hex27_from_hex8(const double *X8, double *X27) {
  for (int c = 0; c < 3; c++) {
    for (int b = 0; b < 3; b++) {
      for (int a = 0; a < 3; a++) {
        const double s[3] = {0.5 * a, 0.5 * b, 0.5 * c}; /* in [0,1] */
        double *x = &X27[3 * (a + 3 * (b + 3 * c))];
        x[0] = x[1] = x[2] = 0.0;
        for (int v = 0; v < 8; v++) {
          const int o[3] = {v & 1, (v >> 1) & 1, (v >> 2) & 1};
          double w = 1.0;
          for (int k = 0; k < 3; k++) w *= o[k] ? s[k] : 1.0 - s[k];
          for (int d = 0; d < 3; d++) x[d] += w * X8[3 * v + d];
        }
      }
    }
  }
}

/* A sector of an annulus, r0 <= r <= r1, 0 <= theta <= angle, 0 <= z <= H, in NR x NT x NZ triquadratic
   cells (cell i + NR (j + NT k)) whose nodes lie on circles: node (a,b,c) of cell (i,j,k) at radius
   r0 + (i + a/2) dr, angle (j + b/2) dtheta, height (k + c/2) dz. X0: [C][27][3]. */
typedef struct {
  int NR, NT, NZ;
  double r0, r1, angle, H;
  int64_t C;
  double *X0;
} annulus;

static void annulus_make(annulus *m, int NR, int NT, int NZ) {
  m->NR = NR, m->NT = NT, m->NZ = NZ;
  m->r0 = 0.6, m->r1 = 1.0, m->angle = 0.5 * HC_PI, m->H = 0.5;
  m->C = (int64_t)NR * NT * NZ;
  m->X0 = malloc(sizeof(*m->X0) * 81 * m->C);
  const double dr = (m->r1 - m->r0) / NR, dt = m->angle / NT, dz = m->H / NZ;
  for (int k = 0; k < NZ; k++) {
    for (int j = 0; j < NT; j++) {
      for (int i = 0; i < NR; i++) {
        const int64_t cell = i + (int64_t)NR * (j + (int64_t)NT * k);
        for (int n = 0; n < 27; n++) {
          const int a = n % 3, b = (n / 3) % 3, c = n / 9;
          const double r = m->r0 + (i + 0.5 * a) * dr, th = (j + 0.5 * b) * dt;
          double *x = &m->X0[81 * cell + 3 * n];
          x[0] = r * cos(th), x[1] = r * sin(th), x[2] = (k + 0.5 * c) * dz;
        }
      }
    }
  }
}

/* The exact volume of the annulus's triquadratic cells. In the plane a cell is x = r(xi0) q(xi1): r linear
   (its three nodes are equispaced in r) and q the quadratic through three points of the unit circle; z is
   linear. So det J = (dr/dxi0) r (q x q') (dz/dxi2), and summed over the cells the volume is
   (r1^2 - r0^2)/2 * H * sum over the angular sectors of int_{-1}^{1} q x q' dxi, which with
   q = A + B xi + C xi^2 is 2 A x B + (2/3) B x C (for the circle itself it would be the sector's angle). */
static double annulus_hex27_volume(const annulus *m) {
  const double dt = m->angle / m->NT;
  double area2 = 0.0; /* int q x q' over all NT sectors */
  for (int j = 0; j < m->NT; j++) {
    double P[3][2];
    for (int b = 0; b < 3; b++) P[b][0] = cos((j + 0.5 * b) * dt), P[b][1] = sin((j + 0.5 * b) * dt);
    const double A[2] = {P[1][0], P[1][1]}, B[2] = {0.5 * (P[2][0] - P[0][0]), 0.5 * (P[2][1] - P[0][1])},
                 Cq[2] = {0.5 * (P[0][0] - 2.0 * P[1][0] + P[2][0]), 0.5 * (P[0][1] - 2.0 * P[1][1] + P[2][1])};
    area2 += 2.0 * (A[0] * B[1] - A[1] * B[0]) + (2.0 / 3.0) * (B[0] * Cq[1] - B[1] * Cq[0]);
  }
  return 0.5 * (m->r1 * m->r1 - m->r0 * m->r0) * area2 * m->H;
}

static void annulus_free(annulus *m) {
  free(m->X0);
  m->X0 = NULL;
}

static void desc_for_annulus(hc_celldata_desc *desc, const hc_basis *b, const annulus *m) {
  hc_celldata_desc_init(desc, b, m->C, m->X0, m->r1, m->r1, m->H);
  desc->geometry_nodes = 27;
}

/* A triquadratic cell whose 27 nodes the trilinear map of 8 vertices places is that trilinear cell: the
   same geometry, volumes, nodes and every kernel's arrays on the backend, in both precisions and layouts, to
   a few units of rounding (the map sums 27 nodes' terms instead of 8). The shear is off (it moves a
   midpoint node off the trilinear map of the moved vertices); the data still depend on t. */
static void test_hex27_trilinear(void **state) {
  (void)state;
  hc_basis *b = NULL;
  assert_int_equal(hc_basis_create(2, 0, &b), HC_OK);
  box m;
  box_make(&m, 5, 3, 3, 1.0, 1.2, 0.8, 0.2);
  double *X27 = malloc(sizeof(*X27) * 81 * m.C);
  for (int64_t c = 0; c < m.C; c++) hex27_from_hex8(&m.X0[24 * c], &X27[81 * c]);
  hc_celldata_desc d8, d27;
  desc_for(&d8, b, &m);
  d8.t = 0.8;
  d27 = d8;
  d27.geometry_nodes = 27;
  d27.X0 = X27;
  const int most = 5;
  const int64_t C = m.C, P = b->P, L = b->L;
  /* the host helpers */
  hc_point_geom *g8 = malloc(sizeof(*g8) * C * P), *g27 = malloc(sizeof(*g27) * C * P);
  assert_int_equal(hc_celldata_geometry(&d8, g8), HC_OK);
  assert_int_equal(hc_celldata_geometry(&d27, g27), HC_OK);
  const double tol = 8.0 * most * DBL_EPSILON;
  for (int64_t i = 0; i < C * P; i++) {
    for (int d = 0; d < 3; d++) assert_true(fabs(g27[i].x[d] - g8[i].x[d]) <= tol);
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < 3; k++) assert_true(fabs(g27[i].Jinv[r][k] - g8[i].Jinv[r][k]) <= tol * most);
    assert_true(fabs(g27[i].det - g8[i].det) <= tol * fabs(g8[i].det));
    assert_true(fabs(g27[i].wdet - g8[i].wdet) <= tol * fabs(g8[i].wdet));
  }
  double *v8 = malloc(sizeof(*v8) * C), *v27 = malloc(sizeof(*v27) * C);
  double *x8 = malloc(sizeof(*x8) * C * L * 3), *x27 = malloc(sizeof(*x27) * C * L * 3);
  assert_int_equal(hc_celldata_volumes(&d8, v8), HC_OK);
  assert_int_equal(hc_celldata_volumes(&d27, v27), HC_OK);
  for (int64_t c = 0; c < C; c++) assert_true(fabs(v27[c] - v8[c]) <= tol * v8[c]);
  assert_int_equal(hc_celldata_nodes(&d8, x8), HC_OK);
  assert_int_equal(hc_celldata_nodes(&d27, x27), HC_OK);
  double amax;
  assert_true(max_diff(x27, x8, C * L * 3, &amax) <= tol);
  /* the backend's arrays */
  for (int prec = 0; prec < 2; prec++) {
    for (int lay = 0; lay < 2; lay++) {
      d8.precision = d27.precision = (hc_precision)prec;
      d8.layout = d27.layout = (hc_layout)lay;
      const double atol = 8.0 * most * eps_of(d8.precision);
      for (int kern = 0; kern < HC_NUM_KERNELS; kern++) {
        hc_contract k;
        void *a8[2], *a27[2];
        assert_int_equal(fill(backend, &d8, (hc_kernel)kern, &k, &a8[0], &a8[1]), HC_OK);
        assert_int_equal(fill(backend, &d27, (hc_kernel)kern, &k, &a27[0], &a27[1]), HC_OK);
        for (int w = 0; w < 2; w++) {
          const int64_t n = hc_contract_numel(&k, w ? HC_ARRAY_RIGHT : HC_ARRAY_LEFT);
          double *x = as_double(a27[w], n, d8.precision), *y = as_double(a8[w], n, d8.precision);
          const double diff = max_diff(x, y, n, &amax);
          if (!(diff <= atol * amax))
            fail_msg("%s %s %s %s: hex27 and hex8 differ by %g (magnitude %g)", hc_kernel_name(k.kernel),
                     hc_precision_name(d8.precision), hc_layout_name(d8.layout), w ? "right" : "left", diff, amax);
          free(x), free(y), free(a8[w]), free(a27[w]);
        }
      }
    }
  }
  free(g8), free(g27), free(v8), free(v27), free(x8), free(x27), free(X27);
  box_free(&m);
  hc_basis_destroy(&b);
}

/* Curved triquadratic cells (a sector of an annulus): det J is of degree 5 in each reference direction, so
   with q >= 3 points the volumes are exact to rounding against the cells' closed form, and near the
   annulus's (the quadratic's distance from the circle, O(dtheta^4)), far nearer than the cells' vertices'
   trilinear cells; the nodes at order 2 (the GLL nodes are -1, 0, 1) are the geometry nodes, and with the
   shear they are the moved geometry nodes. */
static void test_hex27_curved_volume(void **state) {
  (void)state;
  annulus m;
  annulus_make(&m, 2, 8, 2);
  const double exact = annulus_hex27_volume(&m), ring = 0.5 * m.angle * (m.r1 * m.r1 - m.r0 * m.r0) * m.H;
  double *X8 = malloc(sizeof(*X8) * 24 * m.C);
  for (int64_t c = 0; c < m.C; c++)
    for (int v = 0; v < 8; v++)
      for (int d = 0; d < 3; d++)
        X8[24 * c + 3 * v + d] = m.X0[81 * c + 3 * (2 * (v & 1) + 6 * ((v >> 1) & 1) + 18 * ((v >> 2) & 1)) + d];
  double *vol = malloc(sizeof(*vol) * m.C);
  for (int q = 3; q <= 5; q++) {
    hc_basis *b = NULL;
    assert_int_equal(hc_basis_create(2, q, &b), HC_OK);
    hc_celldata_desc desc;
    desc_for_annulus(&desc, b, &m);
    assert_int_equal(hc_celldata_volumes(&desc, vol), HC_OK);
    for (int64_t c = 0; c < m.C; c++) assert_true(vol[c] > 0.0);
    const double got = sum(vol, m.C);
    if (!(fabs(got - exact) <= 1e-13 * exact)) fail_msg("q = %d: volume %.17g, exact %.17g", q, got, exact);
    assert_true(fabs(got - ring) <= 1e-5 * ring);
    /* the same cells' vertices alone, trilinear: the chords' error, O(dtheta^2) */
    hc_celldata_desc d8 = desc;
    d8.geometry_nodes = 8, d8.X0 = X8;
    assert_int_equal(hc_celldata_volumes(&d8, vol), HC_OK);
    assert_true(fabs(sum(vol, m.C) - ring) > 1e-3 * ring);
    /* a volume-type kernel through the backend: DataDataScalar with constant data integrates 1 */
    desc.data.mode = HC_DATA_CONSTANT;
    hc_contract k;
    void *left, *right;
    double *out, *mag;
    assert_int_equal(fill(backend, &desc, HC_DATADATA_SCALAR, &k, &left, &right), HC_OK);
    contract(&k, left, right, &out, &mag);
    assert_true(fabs(sum(out, m.C) - exact) <= 1e-13 * exact);
    free(out), free(mag), free(left), free(right);
    hc_basis_destroy(&b);
  }
  hc_basis *b = NULL;
  assert_int_equal(hc_basis_create(2, 0, &b), HC_OK);
  hc_celldata_desc desc;
  desc_for_annulus(&desc, b, &m);
  desc.t = 0.7, desc.motion.A = 0.05, desc.motion.omega = 1.0;
  double *x = malloc(sizeof(*x) * m.C * 27 * 3), moved[3];
  assert_int_equal(hc_celldata_nodes(&desc, x), HC_OK);
  for (int64_t i = 0; i < m.C * 27; i++) {
    hc_motion_apply(&desc.motion, desc.t, &m.X0[3 * i], moved);
    for (int d = 0; d < 3; d++) assert_true(fabs(x[3 * i + d] - moved[d]) <= 1e-15);
  }
  free(x), free(vol), free(X8);
  hc_basis_destroy(&b);
  annulus_free(&m);
}

/* Case ci of the moving-mesh tests (shear factors, kept geometry): trilinear cells of order 1 (ci 0) and 2 (1) on a
   jittered box, triquadratic cells of order 2 (2) on an annulus; sheared (A = 0.05, omega = 1) at time t, with
   the nodes' shear factors (hc_celldata_shear) at hand, not set in desc. */
typedef struct moving_case {
  hc_basis *b;
  box m;
  annulus a;
  hc_celldata_desc desc;
  double *shear; /* [C][geometry_nodes] */
} moving_case;

static void moving_case_make(int ci, double t, moving_case *mc) {
  memset(mc, 0, sizeof(*mc));
  assert_int_equal(hc_basis_create(ci == 0 ? 1 : 2, 0, &mc->b), HC_OK);
  if (ci < 2) {
    box_make(&mc->m, 5, 4, 3, 1.0, 1.0, 1.0, 0.15);
    desc_for(&mc->desc, mc->b, &mc->m);
  } else {
    annulus_make(&mc->a, 2, 4, 2);
    desc_for_annulus(&mc->desc, mc->b, &mc->a);
  }
  mc->desc.t = t, mc->desc.motion.A = 0.05, mc->desc.motion.omega = 1.0;
  const hc_celldata_desc *d = &mc->desc;
  mc->shear = malloc(sizeof(*mc->shear) * (size_t)(d->C * d->geometry_nodes));
  hc_celldata_shear(&d->motion, d->C, d->geometry_nodes, d->X0, mc->shear);
}

/* kernel's arrays filled by the backend from a and from b are the same bits. */
static void same_arrays(const hc_celldata_desc *a, const hc_celldata_desc *b, hc_kernel kernel) {
  hc_contract k;
  void *arr[2][2];
  assert_int_equal(fill(backend, a, kernel, &k, &arr[0][0], &arr[0][1]), HC_OK);
  assert_int_equal(fill(backend, b, kernel, &k, &arr[1][0], &arr[1][1]), HC_OK);
  const size_t s = hc_precision_size(k.precision);
  assert_memory_equal(arr[0][0], arr[1][0], s * (size_t)hc_contract_numel(&k, HC_ARRAY_LEFT));
  assert_memory_equal(arr[0][1], arr[1][1], s * (size_t)hc_contract_numel(&k, HC_ARRAY_RIGHT));
  for (int i = 0; i < 4; i++) free(arr[i / 2][i % 2]);
}

static void moving_case_free(int ci, moving_case *mc) {
  free(mc->shear);
  if (ci < 2) {
    box_free(&mc->m);
  } else {
    annulus_free(&mc->a);
  }
  hc_basis_destroy(&mc->b);
}

/* hc_celldata_desc.shear, the nodes' shear factors (hc_celldata_shear): the backend's arrays with them agree with the
   serial reference, which computes each node's sines at every call, as closely as without them; on the host
   backends bit for bit the arrays without them (the factors hold the same product). Trilinear cells of orders 1
   and 2, triquadratic ones of order 2. */
static void test_shear_factors(void **state) {
  (void)state;
  for (int ci = 0; ci < 3; ci++) {
    moving_case mc;
    moving_case_make(ci, 1.9, &mc);
    const hc_basis *b = mc.b;
    hc_celldata_desc desc = mc.desc;
    hc_celldata_desc with = desc;
    with.shear = mc.shear;
    char what[96];
    snprintf(what, sizeof(what), "shear factors, order %d, %d-node cells", b->p, desc.geometry_nodes);
    agree_with_serial(&with, 5, (1u << HC_NUM_KERNELS) - 1, what);
    for (int kern = 0; kern < HC_NUM_KERNELS && !backend->is_device; kern++) {
      for (int lay = 0; lay < 2; lay++) {
        desc.layout = with.layout = (hc_layout)lay;
        same_arrays(&desc, &with, (hc_kernel)kern);
      }
    }
    moving_case_free(ci, &mc);
  }
}

/* The points' geometry kept by a step's first call for the others (hc_geometry_cache): on a backend that takes it,
   the first call fills it (and marks it valid), the later calls at the same time read it, and every array is bit for
   bit what the call without it gives; at another time it is filled again; with too little room, or on a backend that
   does not take it, it is left alone. Both layouts and precisions, trilinear orders 1-2 and triquadratic cells. */
static void test_geometry_cache(void **state) {
  (void)state;
  for (int ci = 0; ci < 3; ci++) {
    moving_case mc;
    moving_case_make(ci, 1.3, &mc);
    const hc_basis *b = mc.b;
    hc_celldata_desc desc = mc.desc;
    desc.shear = mc.shear;
    const int64_t points = desc.C * b->P;
    hc_geometry_cache g;
    memset(&g, 0, sizeof(g));
    g.values = malloc(sizeof(double) * HC_GEOMETRY_CACHE_VALUES * (size_t)points);
    const int takes = (backend->geometry_cache & HC_GEOMETRY_CACHE_CELLDATA) != 0;
    for (int cfg = 0; cfg < 4; cfg++) {
      desc.layout = (hc_layout)(cfg % 2);
      desc.precision = cfg / 2 ? HC_FLOAT : HC_DOUBLE;
      hc_celldata_desc with = desc;
      with.geometry_cache = &g;
      g.capacity = points;
      g.valid = 0;
      for (int round = 0; round < 3; round++) {
        /* round 0: every kernel at t (the first fills, the others read); 1: another time; 2: too little room */
        if (round == 1) desc.t = with.t = 2.1;
        if (round == 2) g.capacity = points - 1, g.valid = 0;
        for (int kern = 0; kern < HC_NUM_KERNELS; kern++) {
          if (round > 0 && kern > 1) break;
          same_arrays(&desc, &with, (hc_kernel)kern);
          assert_int_equal(g.valid, takes && round < 2);
          if (g.valid) assert_true(g.t == with.t && g.X0 == with.X0 && g.C == with.C && g.basis == b);
        }
      }
      desc.t = 1.3;
    }
    free(g.values);
    moving_case_free(ci, &mc);
  }
}

/* On curved, sheared triquadratic cells the backend's arrays agree with serial's, and cell-minor arrays are
   the transpose of cell-major ones, by the rules of test_agreement_and_layouts; the cases take a device's
   blocks whole and with a remainder, and cells too large for the CUDA backend's staged kernel. */
static void test_hex27_agreement(void **state) {
  (void)state;
  const struct {
    int p, q, cells[3];
  } cases[] = {{2, 0, {3, 5, 3}}, {1, 0, {2, 7, 3}}, {1, 8, {2, 3, 1}}, {3, 0, {2, 3, 2}}};
  for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
    hc_basis *b = NULL;
    assert_int_equal(hc_basis_create(cases[ci].p, cases[ci].q, &b), HC_OK);
    annulus m;
    annulus_make(&m, cases[ci].cells[0], cases[ci].cells[1], cases[ci].cells[2]);
    hc_celldata_desc desc;
    desc_for_annulus(&desc, b, &m);
    desc.t = 1.9, desc.motion.A = 0.05, desc.motion.omega = 1.0;
    char what[96];
    snprintf(what, sizeof(what), "hex27, order %d, %d points", cases[ci].p, b->P);
    agree_with_serial(&desc, imax(cases[ci].cells[0], imax(cases[ci].cells[1], cases[ci].cells[2])),
                      (1u << HC_NUM_KERNELS) - 1, what);
    annulus_free(&m);
    hc_basis_destroy(&b);
  }
}

/* An inverted triquadratic cell is an error naming the (lowest) bad cell, from the backend, serial and the
   host helpers: a cell mirrored in its first reference direction (nodes a = 0 and a = 2 swapped), and one
   whose corners are those of a valid cell but whose centre node is pulled out through a face, so that only
   the 27-node map folds. */
static void test_hex27_bad_cells(void **state) {
  (void)state;
  hc_basis *b = NULL;
  assert_int_equal(hc_basis_create(2, 0, &b), HC_OK);
  for (int prec = 0; prec < 2; prec++) {
    annulus m;
    annulus_make(&m, 2, 4, 2);
    hc_celldata_desc desc;
    desc_for_annulus(&desc, b, &m);
    desc.precision = (hc_precision)prec;
    desc.layout = (hc_layout)prec;
    double vol[16];
    double *X = &m.X0[81 * 9];
    for (int n = 0; n < 27; n += 3) {
      for (int d = 0; d < 3; d++) {
        double tmp = X[3 * n + d];
        X[3 * n + d] = X[3 * (n + 2) + d];
        X[3 * (n + 2) + d] = tmp;
      }
    }
    assert_int_equal(hc_celldata_volumes(&desc, vol), HC_ERR_INPUT);
    assert_non_null(strstr(hc_error_message(), "cell 9 is inverted or degenerate"));
    assert_non_null(strstr(hc_error_message(), "27 geometry nodes"));
    for (int kern = 0; kern < HC_NUM_KERNELS; kern++) assert_int_equal(bad_cell_both(&desc, (hc_kernel)kern), 9);
    /* cell 6's centre node (1,1,1) pushed past its outer face (r), by two cells' widths */
    const double dr = (m.r1 - m.r0) / m.NR;
    double *centre = &m.X0[81 * 6 + 3 * 13];
    const double r = hypot(centre[0], centre[1]);
    centre[0] *= (r + 2.0 * dr) / r, centre[1] *= (r + 2.0 * dr) / r;
    assert_int_equal(hc_celldata_volumes(&desc, vol), HC_ERR_INPUT);
    assert_non_null(strstr(hc_error_message(), "cell 6 is inverted or degenerate"));
    for (int kern = 0; kern < HC_NUM_KERNELS; kern++) assert_int_equal(bad_cell_both(&desc, (hc_kernel)kern), 6);
    annulus_free(&m);
  }
  hc_basis_destroy(&b);
}

/* A backend member that only says it was called. */
static int called_celldata(const struct hc_celldata_desc *desc, hc_kernel kernel, void *left, void *right) {
  return HC_ERROR(HC_ERR_RUNTIME, "called through the backend table");
}

static void test_invalid_input(void **state) {
  (void)state;
  hc_basis *b = NULL;
  assert_int_equal(hc_basis_create(1, 0, &b), HC_OK);
  box m;
  box_make(&m, 1, 1, 1, 1.0, 1.0, 1.0, 0.0);
  hc_celldata_desc desc;
  desc_for(&desc, b, &m);
  double left[8 * 8], right[8 * 8];
  desc.C = 0;
  assert_int_equal(hc_celldata_fill(backend, &desc, HC_DATADATA_SCALAR, left, right), HC_ERR_INPUT);
  desc.C = 1, desc.X0 = NULL;
  assert_int_equal(hc_celldata_fill(backend, &desc, HC_DATADATA_SCALAR, left, right), HC_ERR_INPUT);
  desc.X0 = m.X0, desc.data.LY = 0.0;
  assert_int_equal(hc_celldata_fill(backend, &desc, HC_DATADATA_SCALAR, left, right), HC_ERR_INPUT);
  desc.data.LY = 1.0;
  desc.geometry_nodes = 20; /* a serendipity cell: not supported */
  assert_int_equal(hc_celldata_fill(backend, &desc, HC_DATADATA_SCALAR, left, right), HC_ERR_INPUT);
  assert_non_null(strstr(hc_error_message(), "must be 8 (trilinear) or 27 (triquadratic), got 20"));
  desc.geometry_nodes = 8;
  assert_int_equal(hc_celldata_fill(backend, &desc, HC_NUM_KERNELS, left, right), HC_ERR_INPUT);
  assert_int_equal(hc_celldata_fill(backend, &desc, HC_DATADATA_SCALAR, NULL, right), HC_ERR_INPUT);
  hc_backend none = *backend;
  none.celldata = called_celldata;
  assert_int_equal(hc_celldata_fill(&none, &desc, HC_DATADATA_SCALAR, left, right), HC_ERR_RUNTIME);
  hc_contract k;
  void *l, *r;
  assert_int_equal(fill(backend, &desc, HC_DATADATA_SCALAR, &k, &l, &r), HC_OK);
  free(l), free(r);
  box_free(&m);
  hc_basis_destroy(&b);
}

/* Cell data queued with check_later, as a step queues it: a device backend names the bad cell in celldata_check,
   the lowest over every call since the last check (a later call on other cells, or with another basis, between),
   and the check after that finds none; a host backend checks in each call, as without check_later. */
static void test_bad_cells_later(void **state) {
  (void)state;
  hc_basis *b1 = NULL, *b2 = NULL;
  assert_int_equal(hc_basis_create(1, 0, &b1), HC_OK);
  assert_int_equal(hc_basis_create(2, 0, &b2), HC_OK);
  box m;
  box_make(&m, 3, 2, 2, 1.0, 1.0, 1.0, 0.1);
  const size_t xbytes = sizeof(double) * 24 * (size_t)m.C;
  /* X0 of the good cells, of cell 7 mirrored in x, of cell 4 mirrored as well */
  double *X[3];
  for (int a = 0; a < 3; a++) {
    X[a] = malloc(xbytes);
    memcpy(X[a], m.X0, xbytes);
  }
  for (int a = 1; a < 3; a++) {
    for (int c = 7; c >= 4; c -= 3) {
      if (a == 1 && c == 4) continue;
      for (int v = 0; v < 8; v += 2)
        for (int d = 0; d < 3; d++) {
          double tmp = X[a][24 * c + 3 * v + d];
          X[a][24 * c + 3 * v + d] = X[a][24 * c + 3 * (v + 1) + d];
          X[a][24 * c + 3 * (v + 1) + d] = tmp;
        }
    }
  }
  hc_celldata_desc desc[3];
  hc_contract k;
  void *dX[3], *d_left = NULL, *d_right = NULL;
  desc_for(&desc[0], b2, &m);
  assert_int_equal(hc_celldata_contract(&desc[0], HC_FIELDFIELD_TENSOR, &k), HC_OK);
  const size_t lbytes = sizeof(double) * (size_t)hc_contract_numel(&k, HC_ARRAY_LEFT);
  const size_t rbytes = sizeof(double) * (size_t)hc_contract_numel(&k, HC_ARRAY_RIGHT);
  assert_int_equal(backend->mem_alloc(lbytes, &d_left), HC_OK);
  assert_int_equal(backend->mem_alloc(rbytes, &d_right), HC_OK);
  for (int a = 0; a < 3; a++) {
    assert_int_equal(backend->mem_alloc(xbytes, &dX[a]), HC_OK);
    assert_int_equal(backend->copy_to_device(dX[a], X[a], xbytes), HC_OK);
    desc_for(&desc[a], b2, &m);
    desc[a].X0 = dX[a];
    desc[a].check_later = 1;
  }
  const int later = backend->is_device; /* the host backends check in each call */
  /* good cells: no error, now or at the check */
  assert_int_equal(hc_celldata_fill(backend, &desc[0], HC_FIELDFIELD_TENSOR, d_left, d_right), HC_OK);
  assert_int_equal(backend->celldata_check(&desc[0]), HC_OK);
  /* cell 7 bad, then cells 4 and 7 with the order-1 basis, then good cells: cell 4, named at the check */
  assert_int_equal(hc_celldata_fill(backend, &desc[1], HC_DATAFIELD_VECTOR, d_left, d_right),
                   later ? HC_OK : HC_ERR_INPUT);
  if (!later) assert_non_null(strstr(hc_error_message(), "cell 7 is inverted"));
  desc[2].basis = b1;
  assert_int_equal(hc_celldata_fill(backend, &desc[2], HC_DATADATA_TENSOR, d_left, d_right),
                   later ? HC_OK : HC_ERR_INPUT);
  if (!later) assert_non_null(strstr(hc_error_message(), "cell 4 is inverted"));
  desc[2].basis = b2;
  assert_int_equal(hc_celldata_fill(backend, &desc[0], HC_FIELDFIELD_SCALAR, d_left, d_right), HC_OK);
  if (later) {
    assert_int_equal(backend->celldata_check(&desc[2]), HC_ERR_INPUT);
    print_message("%s\n", hc_error_message());
    assert_non_null(strstr(hc_error_message(), "cell 4 is inverted or degenerate"));
  }
  assert_int_equal(backend->celldata_check(&desc[2]), HC_OK);
  /* without check_later the call itself names its bad cell */
  desc[1].check_later = 0;
  assert_int_equal(hc_celldata_fill(backend, &desc[1], HC_DATADATA_SCALAR, d_left, d_right), HC_ERR_INPUT);
  assert_non_null(strstr(hc_error_message(), "cell 7 is inverted"));
  assert_int_equal(backend->celldata_check(&desc[1]), HC_OK);
  for (int a = 0; a < 3; a++) {
    assert_int_equal(backend->mem_free(dX[a]), HC_OK);
    free(X[a]);
  }
  assert_int_equal(backend->mem_free(d_left), HC_OK);
  assert_int_equal(backend->mem_free(d_right), HC_OK);
  box_free(&m);
  hc_basis_destroy(&b1);
  hc_basis_destroy(&b2);
}

/* A device backend's device functions: count, selection (and a bad index), name and memory. */
static void test_device(void **state) {
  (void)state;
  if (!backend->is_device) return; /* a CPU backend: its device is the host */
  int count = 0;
  assert_int_equal(backend->device_count(&count), HC_OK);
  assert_true(count >= 1);
  assert_non_null(backend->device_select);
  assert_int_equal(backend->device_select(count), HC_ERR_INPUT);
  assert_int_equal(backend->device_select(-1), HC_ERR_INPUT);
  assert_int_equal(backend->device_select(0), HC_OK);
  char name[256];
  assert_non_null(backend->device_name);
  assert_int_equal(backend->device_name(name, sizeof(name)), HC_OK);
  print_message("device: %s (%d visible)\n", name, count);
  assert_non_null(strstr(name, "(device 0, PCI "));
  assert_non_null(strstr(name, ", UUID GPU-"));
  size_t free_bytes = 0, total_bytes = 0;
  assert_non_null(backend->device_memory);
  assert_int_equal(backend->device_memory(&free_bytes, &total_bytes), HC_OK);
  assert_true(total_bytes > 0 && free_bytes <= total_bytes);
}

int main(int argc, char **argv) {
  if (argc > 1) backend_name = argv[1];
  if (hc_backend_find(backend_name, &backend) || hc_backend_find("serial", &serial)) {
    fprintf(stderr, "test_celldata: %s\n", hc_error_message());
    return 1;
  }
  if (hc_test_no_device(backend, backend_name)) return 77;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_volume),
      cmocka_unit_test(test_affine_cells),
      cmocka_unit_test(test_polynomial_exactness),
      cmocka_unit_test(test_thin_cells),
      cmocka_unit_test(test_contracted_checks),
      cmocka_unit_test(test_formulas),
      cmocka_unit_test(test_agreement_and_layouts),
      cmocka_unit_test(test_agreement_many_waves),
      cmocka_unit_test(test_agreement_one_round),
      cmocka_unit_test(test_shear_factors),
      cmocka_unit_test(test_geometry_cache),
      cmocka_unit_test(test_shared_nodes),
      cmocka_unit_test(test_bad_cells),
      cmocka_unit_test(test_hex27_trilinear),
      cmocka_unit_test(test_hex27_curved_volume),
      cmocka_unit_test(test_hex27_agreement),
      cmocka_unit_test(test_hex27_bad_cells),
      cmocka_unit_test(test_bad_cells_later),
      cmocka_unit_test(test_invalid_input),
      cmocka_unit_test(test_device),
  };
  char name[64];
  snprintf(name, sizeof(name), "celldata[%s]", backend_name);
  return cmocka_run_group_tests_name(name, tests, NULL, NULL);
}
