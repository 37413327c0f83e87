/* Unit tests of the fused assembly (hc_fused_apply) on one backend (argv[1], default openmp): every kernel's
   fused output against the serial reference's cell data contracted by the serial reference, entry by entry, on
   small random meshes of trilinear and triquadratic cells, both layouts and precisions; sum_into, bad cells,
   a problem that does not match the cell data, and the backends without the operation. With the element apply
   (hc_fused_element, where the backend has it): the same outputs, and rows A_c u_c equal to the element apply's. A
   device backend gets the geometry nodes and the output in its own memory; with no usable device it exits 77 (skipped).
 */
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

static const char *backend_name = "openmp";
static const hc_backend *backend, *serial;

/* Deterministic numbers in [-1, 1). */
static double rnd(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* NX x NY x NZ cells of the box [0,1] x [0,1.2] x [0,0.8] with geometry_nodes (8 or 27) nodes each: node
   (a,b,c) of cell (i,j,k) at the grid point (2i + a', 2j + b', 2k + c') of a grid twice as fine (a' = 2a for 8
   nodes, a for 27), every grid point moved by up to 0.15 of the fine spacing, so that the cells are distorted
   and, with 27 nodes, curved. X0: [C][geometry_nodes][3] (new array). */
static double *mesh_make(int NX, int NY, int NZ, int geometry_nodes, uint64_t seed) {
  const double L[3] = {1.0, 1.2, 0.8};
  const int n1 = geometry_nodes == 8 ? 2 : 3, step = geometry_nodes == 8 ? 2 : 1;
  const int64_t C = (int64_t)NX * NY * NZ;
  double *X0 = malloc(sizeof(*X0) * 3 * (size_t)geometry_nodes * (size_t)C);
  for (int k = 0; k < NZ; k++) {
    for (int j = 0; j < NY; j++) {
      for (int i = 0; i < NX; i++) {
        const int64_t c = i + (int64_t)NX * (j + (int64_t)NY * k);
        for (int v = 0; v < geometry_nodes; v++) {
          const int o[3] = {v % n1 * step, v / n1 % n1 * step, v / (n1 * n1) * step};
          const int g[3] = {2 * i + o[0], 2 * j + o[1], 2 * k + o[2]}, N[3] = {2 * NX, 2 * NY, 2 * NZ};
          /* the same displacement for a grid point wherever it is met */
          uint64_t s = seed ^ (uint64_t)(g[0] + 1000 * (g[1] + 1000 * g[2])) * 0x9E3779B97F4A7C15ULL;
          for (int d = 0; d < 3; d++) {
            const double h = L[d] / N[d];
            const int interior = g[d] > 0 && g[d] < N[d];
            X0[3 * (geometry_nodes * c + v) + d] = g[d] * h + (interior ? 0.15 * h * rnd(&s) : 0.0);
          }
        }
      }
    }
  }
  return X0;
}

static double eps_of(hc_precision prec) {
  return prec == HC_FLOAT ? (double)FLT_EPSILON : DBL_EPSILON;
}

/* Entry i of an array of prec. */
static double at(const void *a, int64_t i, hc_precision prec) {
  return prec == HC_FLOAT ? (double)((const float *)a)[i] : ((const double *)a)[i];
}

static void set_abs(void *a, int64_t n, hc_precision prec) {
  for (int64_t i = 0; i < n; i++) {
    if (prec == HC_FLOAT) {
      ((float *)a)[i] = fabsf(((float *)a)[i]);
    } else {
      ((double *)a)[i] = fabs(((double *)a)[i]);
    }
  }
}

/* The serial reference's output of k (k's layout) from the serial cell data, and the magnitude |left| . |right|
   behind each entry (new arrays). */
static void reference(const hc_celldata_desc *desc, const hc_contract *k, void **out, void **mag) {
  const size_t s = hc_precision_size(k->precision);
  const int64_t nl = hc_contract_numel(k, HC_ARRAY_LEFT), nr = hc_contract_numel(k, HC_ARRAY_RIGHT);
  const int64_t no = hc_contract_numel(k, HC_ARRAY_OUT);
  void *left = malloc(s * (size_t)nl), *right = malloc(s * (size_t)nr);
  *out = malloc(s * (size_t)no), *mag = malloc(s * (size_t)no);
  assert_int_equal(hc_celldata_fill(serial, desc, k->kernel, left, right), HC_OK);
  assert_int_equal(hc_contract_apply(serial, k, left, right, *out), HC_OK);
  set_abs(left, nl, k->precision), set_abs(right, nr, k->precision);
  assert_int_equal(hc_contract_apply(serial, k, left, right, *mag), HC_OK);
  free(left), free(right);
}

/* hc_fused_apply on the backend with desc's geometry nodes and out (k's output) in host memory: a device
   backend gets both in its own memory (out copied there first, for sum_into) and out copied back. Returns the
   call's error, with its message. */
/* X0 ([C][geometry_nodes][3], host) in the backend's memory: the same pointer on a host backend, else a copy (freed
   by X0_free). */
static const double *X0_on_backend(const double *X0, int nodes, int64_t C) {
  if (!backend->is_device) return X0;
  const size_t xbytes = sizeof(double) * 3 * (size_t)nodes * (size_t)C;
  void *d_X0 = NULL;
  assert_int_equal(backend->mem_alloc(xbytes, &d_X0), HC_OK);
  assert_int_equal(backend->copy_to_device(d_X0, X0, xbytes), HC_OK);
  return d_X0;
}

static void X0_free(const double *X0) {
  if (backend->is_device) assert_int_equal(backend->mem_free((void *)X0), HC_OK);
}

/* fused_call of a desc whose X0 is in the backend's memory (X0_on_backend). */
static int fused_call_on(const hc_celldata_desc *desc, const hc_contract *k, void *out) {
  if (!backend->is_device) return hc_fused_apply(backend, desc, k, out);
  const size_t obytes = hc_precision_size(k->precision) * (size_t)hc_contract_numel(k, HC_ARRAY_OUT);
  void *d_out = NULL;
  assert_int_equal(backend->mem_alloc(obytes, &d_out), HC_OK);
  assert_int_equal(backend->copy_to_device(d_out, out, obytes), HC_OK);
  const int err = hc_fused_apply(backend, desc, k, d_out);
  char message[2048];
  snprintf(message, sizeof(message), "%s", hc_error_message());
  if (err == HC_OK) assert_int_equal(backend->copy_to_host(out, d_out, obytes), HC_OK);
  assert_int_equal(backend->mem_free(d_out), HC_OK);
  if (err != HC_OK) return HC_ERROR(err, "%s", message); /* the call's message, not a later one's */
  return HC_OK;
}

static int fused_call(const hc_celldata_desc *desc, const hc_contract *k, void *out) {
  hc_celldata_desc d_desc = *desc;
  d_desc.X0 = X0_on_backend(desc->X0, desc->geometry_nodes, desc->C);
  const int err = fused_call_on(&d_desc, k, out);
  X0_free(d_desc.X0);
  return err;
}

/* The fused output of kernel on desc against the reference, entry by entry: |fused - ref| <= 4 K eps |l||r|
   (both sum K products of the same rounded entries, in other orders). With sum_into, the fused output is added
   to a copy of the reference, which must then be twice it. */
static void check_kernel(const hc_celldata_desc *desc, hc_kernel kernel, int sum_into, const char *what) {
  hc_contract k;
  assert_int_equal(hc_celldata_contract(desc, kernel, &k), HC_OK);
  void *ref, *mag;
  reference(desc, &k, &ref, &mag);
  const size_t s = hc_precision_size(k.precision);
  const int64_t no = hc_contract_numel(&k, HC_ARRAY_OUT);
  void *out = malloc(s * (size_t)no);
  if (sum_into) {
    memcpy(out, ref, s * (size_t)no);
    k.sum_into = 1;
  } else {
    memset(out, 0xff, s * (size_t)no); /* NaNs: every entry must be written */
  }
  if (fused_call(desc, &k, out) != HC_OK) fail_msg("%s: %s", what, hc_error_message());
  /* a device's sines, cosines and FMAs may round the double entries a few units in the last place apart from the
     host's (test_celldata allows 8 per entry): 32 K eps there */
  const double tol = (backend->is_device ? 32.0 : 4.0) * (double)hc_contract_K(&k) * eps_of(k.precision);
  for (int64_t i = 0; i < no; i++) {
    const double r = (sum_into ? 2.0 : 1.0) * at(ref, i, k.precision), x = at(out, i, k.precision);
    const double m = (sum_into ? 2.0 : 1.0) * at(mag, i, k.precision);
    if (!(fabs(x - r) <= tol * m + DBL_MIN))
      fail_msg("%s: %s %s %s entry %lld: fused %.17g, serial %.17g (magnitude %g)", what, hc_kernel_name(kernel),
               hc_layout_name(k.layout), hc_precision_name(k.precision), (long long)i, x, r, m);
  }
  free(ref), free(mag), free(out);
}

/* hc_fused_element (v: the [C][L] rows) or, with into_y, hc_fused_assemble (v: the nodal vector y, n entries, added
   to), with X0, out, cell_nodes, u and v copied to the backend and out and v back. */
static int nodal_call(const hc_celldata_desc *desc, const hc_contract *k, void *out, const int32_t *cell_nodes,
                      const double *u, int64_t n, double *v, int into_y) {
  const double *d_X0 = X0_on_backend(desc->X0, desc->geometry_nodes, desc->C);
  const size_t obytes = hc_precision_size(k->precision) * (size_t)hc_contract_numel(k, HC_ARRAY_OUT);
  const size_t mbytes = sizeof(int32_t) * (size_t)(k->C * k->L), nbytes = sizeof(double) * (size_t)n;
  const size_t vbytes = into_y ? nbytes : sizeof(double) * (size_t)(k->C * k->L);
  void *d_out = NULL, *d_nodes = NULL, *d_u = NULL, *d_v = NULL;
  assert_int_equal(backend->mem_alloc(obytes, &d_out), HC_OK);
  assert_int_equal(backend->mem_alloc(mbytes, &d_nodes), HC_OK);
  assert_int_equal(backend->mem_alloc(nbytes, &d_u), HC_OK);
  assert_int_equal(backend->mem_alloc(vbytes, &d_v), HC_OK);
  assert_int_equal(backend->copy_to_device(d_out, out, obytes), HC_OK);
  assert_int_equal(backend->copy_to_device(d_nodes, cell_nodes, mbytes), HC_OK);
  assert_int_equal(backend->copy_to_device(d_u, u, nbytes), HC_OK);
  assert_int_equal(backend->copy_to_device(d_v, v, vbytes), HC_OK);
  hc_celldata_desc d_desc = *desc;
  d_desc.X0 = d_X0;
  const int err = into_y ? hc_fused_assemble(backend, &d_desc, k, d_out, d_nodes, d_u, d_v)
                         : hc_fused_element(backend, &d_desc, k, d_out, d_nodes, d_u, d_v);
  char message[2048];
  snprintf(message, sizeof(message), "%s", hc_error_message());
  if (err == HC_OK) {
    assert_int_equal(backend->copy_to_host(out, d_out, obytes), HC_OK);
    assert_int_equal(backend->copy_to_host(v, d_v, vbytes), HC_OK);
  }
  void *bufs[] = {d_out, d_nodes, d_u, d_v};
  for (int i = 0; i < 4; i++) assert_int_equal(backend->mem_free(bufs[i]), HC_OK);
  X0_free(d_X0);
  if (err != HC_OK) return HC_ERROR(err, "%s", message);
  return HC_OK;
}

/* FieldField kernel with the element apply against hc_fused_apply on the same cells: the element matrices
   bitwise the same, and each row sum_r out[c,l,r] u[node(c,r)] bitwise the backend's element apply (in double, r in
   order; on cuda each product added by an FMA, assembly_cuda.cu; on the host each product rounded and then added,
   kernels/hc_assembly.c), on a random node map and u. With sum_into, out starts from
   the same numbers in both calls and the rows are those of the sums. */
static void check_element(const hc_celldata_desc *desc, hc_kernel kernel, int sum_into, const char *what) {
  hc_contract k;
  assert_int_equal(hc_celldata_contract(desc, kernel, &k), HC_OK);
  k.sum_into = sum_into;
  const size_t s = hc_precision_size(k.precision);
  const int64_t no = hc_contract_numel(&k, HC_ARRAY_OUT), CL = k.C * k.L, n = CL / 2 + 1;
  void *plain = malloc(s * (size_t)no), *out = malloc(s * (size_t)no);
  int32_t *nodes = malloc(sizeof(*nodes) * (size_t)CL);
  double *u = malloc(sizeof(*u) * (size_t)n), *v = malloc(sizeof(*v) * (size_t)CL);
  uint64_t seed = 11 + (uint64_t)kernel;
  for (int64_t i = 0; i < no; i++) {
    const double x = sum_into ? rnd(&seed) : NAN; /* NaNs: every entry must be written */
    if (k.precision == HC_FLOAT) {
      ((float *)plain)[i] = (float)x;
    } else {
      ((double *)plain)[i] = x;
    }
  }
  memcpy(out, plain, s * (size_t)no);
  for (int64_t i = 0; i < CL; i++) nodes[i] = (int32_t)((int64_t)((rnd(&seed) + 1.0) / 2 * (double)n) % n);
  for (int64_t i = 0; i < n; i++) u[i] = rnd(&seed);
  for (int64_t i = 0; i < CL; i++) v[i] = NAN;
  if (fused_call(desc, &k, plain) != HC_OK) fail_msg("%s: %s", what, hc_error_message());
  if (nodal_call(desc, &k, out, nodes, u, n, v, 0) != HC_OK) fail_msg("%s: %s", what, hc_error_message());
  if (memcmp(plain, out, s * (size_t)no) != 0)
    fail_msg("%s: %s %s %s: the element matrices differ from hc_fused_apply's", what, hc_kernel_name(kernel),
             hc_layout_name(k.layout), hc_precision_name(k.precision));
  const int minor = k.layout == HC_LAYOUT_CELL_MINOR;
  for (int64_t c = 0; c < k.C; c++) {
    for (int l = 0; l < k.L; l++) {
      double r = 0;
      for (int j = 0; j < k.L; j++) {
        const int64_t o = (int64_t)l * k.L + j;
        const double a = at(out, minor ? o * k.C + c : c * no / k.C + o, k.precision), x = u[nodes[c * k.L + j]];
        if (backend->is_device) {
          r = fma(a, x, r);
        } else {
          const double t = a * x;
          r += t;
        }
      }
      const double x = v[c * k.L + l];
      if (!(x == r))
        fail_msg("%s: %s %s %s sum_into %d cell %lld row %d: fused %.17g, element apply %.17g", what,
                 hc_kernel_name(kernel), hc_layout_name(k.layout), hc_precision_name(k.precision), sum_into,
                 (long long)c, l, x, r);
    }
  }
  free(plain), free(out), free(nodes), free(u), free(v);
}

/* C cells of X0 with `nodes` geometry nodes under the shear at time t, in precision prec and layout lay. */
static hc_celldata_desc moving_desc(const hc_basis *b, int64_t C, const double *X0, int nodes, double t, int prec,
                                    int lay) {
  hc_celldata_desc desc;
  hc_celldata_desc_init(&desc, b, C, X0, 1.0, 1.2, 0.8);
  desc.geometry_nodes = nodes;
  desc.t = t, desc.motion.A = 0.03, desc.motion.omega = 1.3;
  desc.precision = (hc_precision)prec;
  desc.layout = (hc_layout)lay;
  return desc;
}

/* The element apply with the fused FieldField kernels (hc_fused_element): orders 1 to 4, trilinear and
   triquadratic cells, both layouts and precisions, sum_into; order 1 with 3^3 points and order 4 cell-minor refused
   on cuda (left to the assembly), every case on openmp taken, every case refused by a backend without the operation. */
static void test_element(void **state) {
  (void)state;
  hc_basis *b = NULL;
  if (hc_fused_element_check(backend) != HC_OK) {
    assert_int_equal(hc_basis_create(1, 0, &b), HC_OK);
    double *X0 = mesh_make(2, 1, 1, 8, 1);
    hc_celldata_desc desc;
    hc_celldata_desc_init(&desc, b, 2, X0, 1.0, 1.2, 0.8);
    hc_contract k;
    assert_int_equal(hc_celldata_contract(&desc, HC_FIELDFIELD_VECTOR, &k), HC_OK);
    double out[2 * 64], u[16] = {0}, v[16];
    int32_t nodes[16] = {0};
    assert_int_equal(hc_fused_element(backend, &desc, &k, out, nodes, u, v), HC_ERR_UNSUPPORTED);
    assert_non_null(strstr(hc_error_message(), backend_name));
    assert_int_equal(hc_fused_element_takes(backend, &desc, &k), HC_ERR_UNSUPPORTED);
    free(X0);
    hc_basis_destroy(&b);
    return;
  }
  /* on cuda: order 1 with 2^3 points (fused_quads), orders 2 to 4 with the default points in the cell-major layout
     (sum factorization), order 2 cell-minor (fused_warps), order 2 with 5^3 points (too many for fused_warps:
     fused_cells' 32 x 32 GEMM) and order 3 cell-minor (its 64 x 64 GEMM) form the rows in the kernel (takes 1; 2: in
     the cell-major layout only); order 1 with 3^3 points (dot products) and order 4 cell-minor (the 128 x 128 tile)
     do not take them (takes 0) */
  const struct {
    int p, q, nodes, takes, cells[3];
  } cases[] = {{2, 0, 8, 1, {2, 2, 3}}, {3, 0, 8, 1, {2, 1, 2}}, {2, 0, 27, 1, {2, 1, 2}},
               {2, 5, 8, 1, {2, 1, 2}}, {1, 0, 8, 1, {3, 2, 2}}, {1, 0, 27, 1, {2, 1, 3}},
               {1, 3, 8, 0, {2, 2, 1}}, {4, 0, 8, 2, {1, 2, 1}}, {4, 0, 27, 2, {1, 1, 2}}};
  for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
    assert_int_equal(hc_basis_create(cases[ci].p, cases[ci].q, &b), HC_OK);
    const int64_t C = (int64_t)cases[ci].cells[0] * cases[ci].cells[1] * cases[ci].cells[2];
    double *X0 = mesh_make(cases[ci].cells[0], cases[ci].cells[1], cases[ci].cells[2], cases[ci].nodes, 5 + ci);
    for (int prec = 0; prec < 2; prec++) {
      for (int lay = 0; lay < 2; lay++) {
        const hc_celldata_desc desc = moving_desc(b, C, X0, cases[ci].nodes, 0.4, prec, lay);
        char what[96];
        snprintf(what, sizeof(what), "element apply, order %d, %d-node cells", cases[ci].p, cases[ci].nodes);
        for (int kern = HC_FIELDFIELD_SCALAR; kern <= HC_FIELDFIELD_TENSOR; kern++) {
          hc_contract k;
          assert_int_equal(hc_celldata_contract(&desc, (hc_kernel)kern, &k), HC_OK);
          const int takes = hc_fused_element_takes(backend, &desc, &k);
          if ((!cases[ci].takes || (cases[ci].takes == 2 && lay)) && backend->is_device) {
            /* refused, before any work: the run applies the matrices in its assembly */
            if (takes != HC_ERR_UNSUPPORTED) fail_msg("%s: %s taken", what, hc_kernel_name((hc_kernel)kern));
            int32_t nodes[64] = {0};
            double u[64] = {0}, v[64];
            assert_int_equal(hc_fused_element(backend, &desc, &k, v, nodes, u, v), HC_ERR_UNSUPPORTED);
            assert_non_null(strstr(hc_error_message(), "leaves the element apply to the assembly"));
            continue;
          }
          if (takes != HC_OK) fail_msg("%s: %s", what, hc_error_message());
          for (int sum_into = 0; sum_into < 2; sum_into++) check_element(&desc, (hc_kernel)kern, sum_into, what);
        }
      }
    }
    free(X0);
    hc_basis_destroy(&b);
  }
}

/* Every kernel, layout and precision, orders 1 to 4 and non-default quadratures (7 points per direction: more
   points than a block has threads), trilinear and triquadratic cells, the shear on. */
static void test_agreement(void **state) {
  (void)state;
  const struct {
    int p, q, nodes, cells[3];
  } cases[] = {{1, 0, 8, {3, 2, 2}}, {2, 0, 8, {2, 2, 3}},  {3, 0, 8, {2, 1, 2}},  {4, 0, 8, {1, 2, 1}},
               {1, 3, 8, {2, 2, 1}}, {1, 0, 27, {2, 2, 2}}, {2, 0, 27, {2, 1, 2}}, {3, 5, 27, {1, 2, 1}},
               {1, 7, 8, {1, 1, 2}}, {3, 0, 27, {1, 2, 1}}, {4, 0, 27, {1, 1, 2}}};
  for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
    hc_basis *b = NULL;
    assert_int_equal(hc_basis_create(cases[ci].p, cases[ci].q, &b), HC_OK);
    const int64_t C = (int64_t)cases[ci].cells[0] * cases[ci].cells[1] * cases[ci].cells[2];
    double *X0 = mesh_make(cases[ci].cells[0], cases[ci].cells[1], cases[ci].cells[2], cases[ci].nodes, 7 + ci);
    for (int prec = 0; prec < 2; prec++) {
      for (int lay = 0; lay < 2; lay++) {
        const hc_celldata_desc desc = moving_desc(b, C, X0, cases[ci].nodes, 0.7, prec, lay);
        char what[96];
        snprintf(what, sizeof(what), "order %d, %d points, %d-node cells", cases[ci].p, b->P, cases[ci].nodes);
        for (int kern = 0; kern < HC_NUM_KERNELS; kern++) check_kernel(&desc, (hc_kernel)kern, 0, what);
      }
    }
    free(X0);
    hc_basis_destroy(&b);
  }
}

/* On a device backend, the grids of order1.yaml and order2.yaml, one to two rounds of resident blocks: 13,824 cells
   of order 1 (on the CUDA backend 432 blocks of fused_points, and fused_quads' resident grid looping over 432 groups
   of cells: 396 blocks on an H100; FieldField's element apply too) and the DataData and DataField kernels of 4,096
   cells of order 2 (456 blocks of 9 cells). */
static void test_agreement_one_round(void **state) {
  (void)state;
  if (!backend->is_device) return; /* the host backends' work does not depend on the grid */
  const struct { int p, cells, kernels; } cases[] = {{1, 24, HC_NUM_KERNELS}, {2, 16, HC_FIELDFIELD_SCALAR}};
  for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
    hc_basis *b = NULL;
    assert_int_equal(hc_basis_create(cases[ci].p, 0, &b), HC_OK);
    const int n = cases[ci].cells;
    double *X0 = mesh_make(n, n, n, 8, 31 + ci);
    for (int prec = 0; prec < 2; prec++) {
      for (int lay = 0; lay < 2; lay++) {
        const hc_celldata_desc desc = moving_desc(b, (int64_t)n * n * n, X0, 8, 0.7, prec, lay);
        char what[96];
        snprintf(what, sizeof(what), "order %d, %d^3 cells", cases[ci].p, n);
        for (int kern = 0; kern < cases[ci].kernels; kern++) check_kernel(&desc, (hc_kernel)kern, 0, what);
        if (cases[ci].p == 1) /* fused_quads' element apply too */
          for (int kern = HC_FIELDFIELD_SCALAR; kern <= HC_FIELDFIELD_TENSOR; kern++)
            check_element(&desc, (hc_kernel)kern, 0, what);
      }
    }
    free(X0);
    hc_basis_destroy(&b);
  }
}

/* sum_into adds the fused output to what out holds, in both layouts. */
static void test_sum_into(void **state) {
  (void)state;
  hc_basis *b = NULL;
  assert_int_equal(hc_basis_create(2, 0, &b), HC_OK);
  double *X0 = mesh_make(2, 3, 2, 8, 3);
  for (int lay = 0; lay < 2; lay++) {
    hc_celldata_desc desc;
    hc_celldata_desc_init(&desc, b, 12, X0, 1.0, 1.2, 0.8);
    desc.layout = (hc_layout)lay;
    for (int kern = 0; kern < HC_NUM_KERNELS; kern++) check_kernel(&desc, (hc_kernel)kern, 1, "sum_into");
  }
  free(X0);
  hc_basis_destroy(&b);
}

/* hc_fused_assemble of a DataField or FieldField kernel: its output bit for bit hc_fused_apply's, and y (random at
   first) plus each cell's nodal values, DataField out[c,l] as stored, FieldField sum_r out[c,l,r] u_r (the element
   apply's sums), within the rounding of the adds' order (they are atomic adds on a device): 1e-13 of the sum of
   their magnitudes. Nodes shared by several cells, as in a mesh. */
static void check_assemble(const hc_celldata_desc *desc, hc_kernel kernel, const char *what) {
  hc_contract k;
  assert_int_equal(hc_celldata_contract(desc, kernel, &k), HC_OK);
  const size_t s = hc_precision_size(k.precision);
  const int64_t no = hc_contract_numel(&k, HC_ARRAY_OUT), CL = k.C * k.L, n = CL / 3 + 1;
  const int ff = hc_kernel_family(kernel) == HC_FAMILY_FIELDFIELD, minor = k.layout == HC_LAYOUT_CELL_MINOR;
  void *plain = malloc(s * (size_t)no), *out = malloc(s * (size_t)no);
  int32_t *nodes = malloc(sizeof(*nodes) * (size_t)CL);
  double *u = malloc(sizeof(*u) * (size_t)n), *y = malloc(sizeof(*y) * (size_t)n);
  double *ref = malloc(sizeof(*ref) * (size_t)n), *mag = malloc(sizeof(*mag) * (size_t)n);
  uint64_t seed = 23 + (uint64_t)kernel;
  for (int64_t i = 0; i < CL; i++) nodes[i] = (int32_t)((int64_t)((rnd(&seed) + 1.0) / 2 * (double)n) % n);
  for (int64_t i = 0; i < n; i++) u[i] = rnd(&seed), y[i] = ref[i] = rnd(&seed), mag[i] = fabs(y[i]);
  if (fused_call(desc, &k, plain) != HC_OK) fail_msg("%s: %s", what, hc_error_message());
  memset(out, 0xff, s * (size_t)no); /* NaNs: every entry must be written */
  if (nodal_call(desc, &k, out, nodes, u, n, y, 1) != HC_OK) fail_msg("%s: %s", what, hc_error_message());
  if (memcmp(plain, out, s * (size_t)no) != 0)
    fail_msg("%s: %s %s %s: the outputs differ from hc_fused_apply's", what, hc_kernel_name(kernel),
             hc_layout_name(k.layout), hc_precision_name(k.precision));
  const int64_t R = ff ? k.L : 1;
  for (int64_t c = 0; c < k.C; c++) {
    for (int l = 0; l < k.L; l++) {
      double r = 0;
      for (int64_t j = 0; j < R; j++) {
        const int64_t o = (int64_t)l * R + j;
        const double a = at(out, minor ? o * k.C + c : c * no / k.C + o, k.precision);
        r = ff ? fma(a, u[nodes[c * k.L + j]], r) : a;
      }
      ref[nodes[c * k.L + l]] += r, mag[nodes[c * k.L + l]] += fabs(r);
    }
  }
  for (int64_t i = 0; i < n; i++)
    if (!(fabs(y[i] - ref[i]) <= 1e-13 * mag[i]))
      fail_msg("%s: %s %s %s node %lld: fused %.17g, assembled %.17g", what, hc_kernel_name(kernel),
               hc_layout_name(k.layout), hc_precision_name(k.precision), (long long)i, y[i], ref[i]);
  free(plain), free(out), free(nodes), free(u), free(y), free(ref), free(mag);
}

/* The fused kernels that add into the nodal vector themselves (hc_fused_assemble): on a backend with the operation,
   the DataField kernels always, the FieldField ones where hc_fused_element takes the case (and not where it does
   not, nor DataData: no nodal vector); every case refused on a backend without it. */
static void test_assemble(void **state) {
  (void)state;
  const struct {
    int p, q, nodes, cells[3];
  } cases[] = {{1, 0, 8, {3, 2, 2}}, {1, 0, 27, {2, 1, 3}}, {2, 0, 8, {2, 2, 3}},
               {3, 0, 8, {2, 1, 2}}, {1, 3, 8, {2, 2, 1}},  {4, 0, 8, {1, 2, 1}}};
  for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
    hc_basis *b = NULL;
    assert_int_equal(hc_basis_create(cases[ci].p, cases[ci].q, &b), HC_OK);
    const int64_t C = (int64_t)cases[ci].cells[0] * cases[ci].cells[1] * cases[ci].cells[2];
    double *X0 = mesh_make(cases[ci].cells[0], cases[ci].cells[1], cases[ci].cells[2], cases[ci].nodes, 17 + ci);
    for (int cfg = 0; cfg < 4; cfg++) {
      const hc_celldata_desc desc = moving_desc(b, C, X0, cases[ci].nodes, 0.6, cfg / 2, cfg % 2);
      char what[96];
      snprintf(what, sizeof(what), "assembly into y, order %d, %d points, %d-node cells", cases[ci].p, b->P,
               cases[ci].nodes);
      for (int kern = 0; kern < HC_NUM_KERNELS; kern++) {
        hc_contract k;
        assert_int_equal(hc_celldata_contract(&desc, (hc_kernel)kern, &k), HC_OK);
        const int takes = hc_fused_assemble_takes(backend, &desc, &k);
        if (hc_kernel_family(k.kernel) == HC_FAMILY_DATADATA) {
          assert_int_equal(takes, HC_ERR_INPUT);
          continue;
        }
        const int expect =
            hc_fused_assemble_check(backend) == HC_OK &&
            (hc_kernel_family(k.kernel) == HC_FAMILY_DATAFIELD || hc_fused_element_takes(backend, &desc, &k) == HC_OK);
        if (!expect) {
          if (takes != HC_ERR_UNSUPPORTED) fail_msg("%s: %s taken", what, hc_kernel_name(k.kernel));
          assert_non_null(strstr(hc_error_message(), backend_name));
          continue;
        }
        if (takes != HC_OK) fail_msg("%s: %s: %s", what, hc_kernel_name(k.kernel), hc_error_message());
        check_assemble(&desc, (hc_kernel)kern, what);
      }
    }
    free(X0);
    hc_basis_destroy(&b);
  }
}

/* The points' geometry kept by a step's first fused call for the others (hc_geometry_cache), as the cell data keeps
   it: on a backend that takes it, the first call fills it (and marks it valid), the later calls at the same time read
   it, and every output is bit for bit the call's without it; at another time it is filled again; with too little room,
   or on a backend that does not take it, it is left alone. Both layouts and precisions, orders 1 and 2, trilinear and
   triquadratic cells, every kernel (on a device: each of its kernels, fused_quads, fused_points, the dot products,
   the GEMMs and sum factorization, reading the geometry that geometry_fill kept). */
static void test_geometry_cache(void **state) {
  (void)state;
  const struct {
    int p, nodes, cells[3];
  } cases[] = {{1, 8, {3, 2, 2}}, {2, 27, {2, 1, 2}}, {2, 8, {5, 4, 3}}, {3, 8, {2, 2, 3}}};
  const int takes = (backend->geometry_cache & HC_GEOMETRY_CACHE_FUSED) != 0;
  for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
    hc_basis *b = NULL;
    assert_int_equal(hc_basis_create(cases[ci].p, 0, &b), HC_OK);
    const int64_t C = (int64_t)cases[ci].cells[0] * cases[ci].cells[1] * cases[ci].cells[2], points = C * b->P;
    double *X0 = mesh_make(cases[ci].cells[0], cases[ci].cells[1], cases[ci].cells[2], cases[ci].nodes, 41 + ci);
    const double *X0b = X0_on_backend(X0, cases[ci].nodes, C); /* one pointer for every call: the key holds it */
    hc_geometry_cache g;
    memset(&g, 0, sizeof(g));
    assert_int_equal(backend->mem_alloc(sizeof(double) * HC_GEOMETRY_CACHE_VALUES * (size_t)points, (void **)&g.values),
                     HC_OK);
    for (int cfg = 0; cfg < 4; cfg++) {
      hc_celldata_desc desc = moving_desc(b, C, X0b, cases[ci].nodes, 0.7, cfg / 2, cfg % 2);
      hc_celldata_desc with = desc;
      with.geometry_cache = &g;
      g.capacity = points, g.valid = 0;
      for (int round = 0; round < 3; round++) {
        /* round 0: every kernel at t (the first fills, the others read); 1: another time; 2: too little room */
        if (round == 1) desc.t = with.t = 1.9;
        if (round == 2) g.capacity = points - 1, g.valid = 0;
        for (int kern = 0; kern < HC_NUM_KERNELS; kern++) {
          if (round > 0 && kern > 1) break;
          hc_contract k;
          assert_int_equal(hc_celldata_contract(&desc, (hc_kernel)kern, &k), HC_OK);
          const size_t bytes = hc_precision_size(k.precision) * (size_t)hc_contract_numel(&k, HC_ARRAY_OUT);
          void *plain = calloc(1, bytes), *kept = calloc(1, bytes);
          assert_int_equal(fused_call_on(&desc, &k, plain), HC_OK);
          assert_int_equal(fused_call_on(&with, &k, kept), HC_OK);
          if (memcmp(plain, kept, bytes) != 0)
            fail_msg("order %d, %d-node cells, %s %s %s round %d: the outputs differ with the kept geometry",
                     cases[ci].p, cases[ci].nodes, hc_kernel_name(k.kernel), hc_layout_name(k.layout),
                     hc_precision_name(k.precision), round);
          assert_int_equal(g.valid, takes && round < 2);
          if (g.valid) assert_true(g.t == with.t && g.X0 == with.X0 && g.C == with.C && g.basis == b);
          free(plain), free(kept);
        }
      }
    }
    assert_int_equal(backend->mem_free(g.values), HC_OK);
    X0_free(X0b), free(X0);
    hc_basis_destroy(&b);
  }
}

/* An inverted cell is the cell data's error, naming the lowest bad cell. */
static void test_bad_cell(void **state) {
  (void)state;
  hc_basis *b = NULL;
  assert_int_equal(hc_basis_create(1, 0, &b), HC_OK);
  double *X0 = mesh_make(3, 2, 2, 8, 5);
  /* cell 7 mirrored in x: vertices a = 0 and a = 1 swapped */
  for (int v = 0; v < 8; v += 2)
    for (int d = 0; d < 3; d++) {
      double t = X0[3 * (8 * 7 + v) + d];
      X0[3 * (8 * 7 + v) + d] = X0[3 * (8 * 7 + v + 1) + d], X0[3 * (8 * 7 + v + 1) + d] = t;
    }
  hc_celldata_desc desc;
  hc_celldata_desc_init(&desc, b, 12, X0, 1.0, 1.2, 0.8);
  hc_contract k;
  assert_int_equal(hc_celldata_contract(&desc, HC_FIELDFIELD_VECTOR, &k), HC_OK);
  double *out = malloc(sizeof(*out) * (size_t)hc_contract_numel(&k, HC_ARRAY_OUT));
  assert_int_equal(fused_call(&desc, &k, out), HC_ERR_INPUT);
  assert_non_null(strstr(hc_error_message(), "cell 7"));
  free(out), free(X0);
  hc_basis_destroy(&b);
}

/* A problem that is not the cell data's is an input error; a backend without the fused operation says so and
   names itself. */
static void test_invalid(void **state) {
  (void)state;
  hc_basis *b = NULL;
  assert_int_equal(hc_basis_create(1, 0, &b), HC_OK);
  double *X0 = mesh_make(2, 1, 1, 8, 1);
  hc_celldata_desc desc;
  hc_celldata_desc_init(&desc, b, 2, X0, 1.0, 1.2, 0.8);
  hc_contract k;
  assert_int_equal(hc_celldata_contract(&desc, HC_DATAFIELD_SCALAR, &k), HC_OK);
  double out[16];
  hc_contract wrong = k;
  wrong.layout = HC_LAYOUT_CELL_MINOR;
  assert_int_equal(fused_call(&desc, &wrong, out), HC_ERR_INPUT);
  assert_non_null(strstr(hc_error_message(), "does not match"));
  assert_int_equal(hc_fused_apply(serial, &desc, &k, out), HC_ERR_UNSUPPORTED);
  assert_non_null(strstr(hc_error_message(), "backend serial"));
  assert_non_null(strstr(hc_error_message(), "not yet on this backend"));
  /* the element apply takes a square FieldField output alone, and the serial reference has none */
  int32_t nodes[16] = {0};
  double u[16] = {0}, v[16];
  assert_int_equal(hc_fused_element(backend, &desc, &k, out, nodes, u, v), HC_ERR_INPUT);
  assert_non_null(strstr(hc_error_message(), "square FieldField"));
  assert_int_equal(hc_celldata_contract(&desc, HC_FIELDFIELD_SCALAR, &k), HC_OK);
  assert_int_equal(hc_fused_element(serial, &desc, &k, out, nodes, u, v), HC_ERR_UNSUPPORTED);
  assert_non_null(strstr(hc_error_message(), "backend serial"));
  free(X0);
  hc_basis_destroy(&b);
}

int main(int argc, char **argv) {
  if (argc > 1) backend_name = argv[1];
  if (hc_backend_find(backend_name, &backend) || hc_backend_find("serial", &serial)) {
    fprintf(stderr, "test_fused: %s\n", hc_error_message());
    return 1;
  }
  if (hc_test_no_device(backend, backend_name)) return 77;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_agreement), cmocka_unit_test(test_agreement_one_round),
      cmocka_unit_test(test_sum_into),  cmocka_unit_test(test_element),
      cmocka_unit_test(test_assemble),  cmocka_unit_test(test_bad_cell),
      cmocka_unit_test(test_invalid),   cmocka_unit_test(test_geometry_cache),
  };
  char name[64];
  snprintf(name, sizeof(name), "fused[%s]", backend_name);
  return cmocka_run_group_tests_name(name, tests, NULL, NULL);
}
