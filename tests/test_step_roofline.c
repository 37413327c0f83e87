/* Unit tests of the step's roofline (app/step_roofline.c): the compulsory bytes of each phase of a step
   against numbers worked out by hand for 2 x 1 x 1 cells of order 1, and the roofline times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka after the standard headers it needs */
#include <cmocka.h>
#include <string.h>

#include "app/hc_step_roofline.h"

/* The run's problem of kernel on 2 cells of order 1 (L = 8) with q = 2 (P = 8), D = 3. */
static void problem_of(hc_kernel kernel, hc_precision precision, hc_contract *k) {
  hc_contract_init(k, kernel);
  hc_family fam = hc_kernel_family(kernel);
  k->C = 2;
  k->L = fam == HC_FAMILY_DATADATA ? 1 : 8;
  k->R = fam == HC_FAMILY_FIELDFIELD ? 8 : 1;
  k->P = k->P_data = 8;
  k->D = hc_kernel_rank(kernel) > 0 ? 3 : 1;
  k->precision = precision;
}

typedef struct {
  hc_contract k[HC_NUM_KERNELS];
  int enabled[HC_NUM_KERNELS];
  hc_step_problem p;
} fixture;

/* 2 x 1 x 1 cells of order 1: 3 x 2 x 2 = 12 nodes; the given kernels enabled. */
static void fixture_init(fixture *f, hc_precision precision, int n, const hc_kernel *kernels) {
  memset(f, 0, sizeof(*f));
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++) problem_of((hc_kernel)kid, precision, &f->k[kid]);
  for (int i = 0; i < n; i++) f->enabled[kernels[i]] = 1;
  f->p.k = f->k;
  f->p.enabled = f->enabled;
  f->p.num_nodes = 12;
  f->p.halo_bytes_per_vector = 40;
  f->p.reduction_bytes = 24;
  f->p.geometry_nodes = 8;
}

/* The step of FieldFieldScalar alone in double on the host. */
static void host_fieldfield(fixture *f, hc_step_bytes *b) {
  const hc_kernel kernels[] = {HC_FIELDFIELD_SCALAR};
  fixture_init(f, HC_DOUBLE, 1, kernels);
  hc_step_bytes_of(&f->p, b);
}

/* FieldFieldScalar in double on the host:
   celldata: left (2,8,8) + right (2,8,8) = 256 doubles = 2048 B, vertices 2 * 8 * 3 * 8 = 384 B: 2432;
   contract: 8 * (2*8*8 + 2*8*8 + 2*8*8) = 3072 B, 2 * 2*8*8*8 = 2048 flops;
   assembly: outputs 128 doubles = 1024 B, map 4 * 2 * 8 = 64 B, y read and written 2 * 8 * 12 = 192 B,
   u read 8 * 12 = 96 B: 1376; no transfer; halo 40 B (one vector); reduction 24 B. */
static void test_host_fieldfield(void **state) {
  (void)state;
  fixture f;
  hc_step_bytes b;
  host_fieldfield(&f, &b);
  assert_true(b.bytes[HC_PHASE_CELLDATA] == 2432);
  assert_true(b.bytes[HC_PHASE_CONTRACT] == 3072);
  assert_true(b.kernel_bytes[HC_FIELDFIELD_SCALAR] == 3072 && b.kernel_flops[HC_FIELDFIELD_SCALAR] == 2048);
  assert_true(b.bytes[HC_PHASE_ASSEMBLY] == 1376);
  assert_true(b.bytes[HC_PHASE_TRANSFER] == 0 && b.h2d == 0 && b.d2h == 0);
  assert_true(b.bytes[HC_PHASE_HALO] == 40);
  assert_true(b.bytes[HC_PHASE_REDUCTION] == 24);
  assert_true(b.bytes[HC_PHASE_STEP] == 2432 + 3072 + 1376);

  /* A device backend that does not assemble: the output crosses, 1024 B. */
  f.p.is_device = 1;
  hc_step_bytes_of(&f.p, &b);
  assert_true(b.d2h == 1024 && b.h2d == 0 && b.bytes[HC_PHASE_TRANSFER] == 1024);

  /* Triquadratic cells: 27 geometry nodes each, 2 * 27 * 3 * 8 = 1296 B of them. */
  f.p.geometry_nodes = 27;
  hc_step_bytes_of(&f.p, &b);
  assert_true(b.bytes[HC_PHASE_CELLDATA] == 2048 + 1296);
}

/* FieldFieldScalar and DataDataScalar in float on a device that assembles, u uploaded:
   celldata: FFS 256 floats = 1024 B, DDS left (2,8) + right (2,8) = 32 floats = 128 B, vertices 384 B: 1536;
   contract: FFS 4 * 384 = 1536 B, DDS 4 * (2*2*8 + 2) = 136 B: 1672;
   assembly: FFS only: 128 floats = 512 B + 64 + 192 + 96 = 864;
   transfer (run.deterministic, DataData outputs copied): d2h the DDS output, 2 floats = 8 B; h2d u, 96 B. */
static void test_device_assembly(void **state) {
  (void)state;
  fixture f;
  const hc_kernel kernels[] = {HC_FIELDFIELD_SCALAR, HC_DATADATA_SCALAR};
  fixture_init(&f, HC_FLOAT, 2, kernels);
  f.p.is_device = f.p.device_assembly = f.p.u_upload = f.p.dd_copy = 1;
  hc_step_bytes b;
  hc_step_bytes_of(&f.p, &b);
  assert_true(b.bytes[HC_PHASE_CELLDATA] == 1536);
  assert_true(b.bytes[HC_PHASE_CONTRACT] == 1672);
  assert_true(b.kernel_bytes[HC_DATADATA_SCALAR] == 136 && b.kernel_flops[HC_DATADATA_SCALAR] == 32);
  assert_true(b.bytes[HC_PHASE_ASSEMBLY] == 864);
  assert_true(b.d2h == 8 && b.h2d == 96 && b.bytes[HC_PHASE_TRANSFER] == 104);
  assert_true(b.bytes[HC_PHASE_HALO] == 40);
  assert_true(b.bytes[HC_PHASE_STEP] == 1536 + 1672 + 104 + 864);
  /* u computed on the device: it no longer crosses. */
  f.p.u_upload = 0;
  hc_step_bytes_of(&f.p, &b);
  assert_true(b.h2d == 0 && b.bytes[HC_PHASE_TRANSFER] == 8);
  /* Summed on the device (no run.deterministic): the DDS outputs stay there, their sum crosses in the reduction
     phase; nothing is left to transfer. */
  f.p.dd_copy = 0;
  hc_step_bytes_of(&f.p, &b);
  assert_true(b.d2h == 0 && b.bytes[HC_PHASE_TRANSFER] == 0);
}

/* Roofline times of the host FieldFieldScalar step at 1024 B/s: celldata 2432 / 1024 = 2.375 s, assembly
   1376 / 1024 = 1.34375 s; the contraction max(3072 / 1024, 2048 / peak): 3 s memory-bound with no peak or
   peak 1024, 4 s compute-bound at peak 512. Halo and reduction are on no memory roofline. Transfers at their
   own rates. */
static void test_roofline_times(void **state) {
  (void)state;
  fixture f;
  hc_step_bytes b;
  host_fieldfield(&f, &b);
  hc_step_rates r;
  memset(&r, 0, sizeof(r));
  r.copy = 1024;
  double t[HC_NUM_PHASES];
  hc_step_roofline(&b, &r, t);
  assert_true(t[HC_PHASE_CELLDATA] == 2.375 && t[HC_PHASE_ASSEMBLY] == 1.34375);
  assert_true(t[HC_PHASE_CONTRACT] == 3.0 && t[HC_PHASE_TRANSFER] == 0);
  assert_true(t[HC_PHASE_HALO] == 0 && t[HC_PHASE_REDUCTION] == 0);
  assert_true(t[HC_PHASE_STEP] == 2.375 + 3.0 + 1.34375);
  r.peak[HC_FIELDFIELD_SCALAR] = 1024;
  hc_step_roofline(&b, &r, t);
  assert_true(t[HC_PHASE_CONTRACT] == 3.0);
  r.peak[HC_FIELDFIELD_SCALAR] = 512;
  hc_step_roofline(&b, &r, t);
  assert_true(t[HC_PHASE_CONTRACT] == 4.0);
  assert_true(t[HC_PHASE_STEP] == 2.375 + 4.0 + 1.34375);

  /* Device without assembly: 1024 B down at 256 B/s is 4 s. */
  f.p.is_device = 1;
  hc_step_bytes_of(&f.p, &b);
  r.d2h = 256;
  r.h2d = 1;
  hc_step_roofline(&b, &r, t);
  assert_true(t[HC_PHASE_TRANSFER] == 4.0);
  assert_true(t[HC_PHASE_STEP] == 2.375 + 4.0 + 4.0 + 1.34375);
}

/* Sum factorization's flops (hc_sumfact_flops), worked out by hand, and the fused step's FieldField flops the fewer
   of those and the direct contraction's:
   - FieldFieldScalar, 2 cells of order 1 (N = Q = 2): 2 * 2 * (4 * 8 + 16 * 4 + 64 * 2) = 896, under the direct
     2 * 2 * 8 * 8 * 8 = 2048;
   - FieldFieldVector, 1 cell of order 2 (N = Q = 3): 2 * (9 * 9 * 27 + 9 * 81 * 9 + 4 * 729 * 3) = 34992;
   - FieldFieldTensor, 2 cells of order 1: 2 * 2 * (9 * 4 * 8 + 9 * 16 * 4 + 4 * 64 * 2) = 5504, over the fused
     direct count 2 * 2 * 8 * 8 * 24 = 6144 (a third of 9 P): 5504;
   - no count for 10 fields (not N^3), 27 points with 8 fields by 27, or a DataField kernel. */
static void test_sumfact(void **state) {
  (void)state;
  fixture f;
  hc_step_bytes b;
  host_fieldfield(&f, &b);
  assert_true(hc_sumfact_flops(&f.k[HC_FIELDFIELD_SCALAR]) == 896);
  assert_true(b.kernel_flops[HC_FIELDFIELD_SCALAR] == 2048); /* materialized: the contraction's */
  f.p.fused = 1;
  hc_step_bytes_of(&f.p, &b);
  assert_true(b.kernel_flops[HC_FIELDFIELD_SCALAR] == 896);
  f.enabled[HC_FIELDFIELD_TENSOR] = 1;
  hc_step_bytes_of(&f.p, &b);
  assert_true(b.kernel_flops[HC_FIELDFIELD_TENSOR] == 5504);
  hc_contract k = f.k[HC_FIELDFIELD_VECTOR];
  k.C = 1, k.L = k.R = 27, k.P = k.P_data = 27;
  assert_true(hc_sumfact_flops(&k) == 34992);
  k.L = k.R = 10;
  assert_true(hc_sumfact_flops(&k) == 0);
  k.L = 8, k.R = 27;
  assert_true(hc_sumfact_flops(&k) == 0);
  assert_true(hc_sumfact_flops(&f.k[HC_DATAFIELD_VECTOR]) == 0);
}

/* Fused on a device, FieldFieldScalar and DataFieldVector in double, their kernels adding into the nodal vectors
   themselves (fused_into_y) or not:
   - fused kernel bytes: the vertices 2 * 8 * 3 * 8 = 384 B and the outputs, 128 doubles (1024 B) and 16 (128 B):
     1408 and 512; assembly as on the host, 1024 + 64 + 192 + 96 = 1376 and 128 + 64 + 192 = 384;
   - into y: the kernels also take the map (64 B), y's read and write (96 B) and for FieldField u (96 B): 1664 and
     672; the assembly only zeroes each vector, 96 B: the step 1152 B (the outputs read back) less. */
static void test_fused_into_y(void **state) {
  (void)state;
  fixture f;
  const hc_kernel kernels[] = {HC_FIELDFIELD_SCALAR, HC_DATAFIELD_VECTOR};
  fixture_init(&f, HC_DOUBLE, 2, kernels);
  f.p.is_device = f.p.device_assembly = 1;
  f.p.fused = 1;
  hc_step_bytes b;
  hc_step_bytes_of(&f.p, &b);
  assert_true(b.kernel_bytes[HC_FIELDFIELD_SCALAR] == 1408 && b.kernel_bytes[HC_DATAFIELD_VECTOR] == 512);
  assert_true(b.bytes[HC_PHASE_CONTRACT] == 1920 && b.bytes[HC_PHASE_ASSEMBLY] == 1760);
  assert_true(b.bytes[HC_PHASE_STEP] == 3680);
  int into[HC_NUM_KERNELS] = {0};
  into[HC_FIELDFIELD_SCALAR] = into[HC_DATAFIELD_VECTOR] = 1;
  f.p.fused_into_y = into;
  hc_step_bytes_of(&f.p, &b);
  assert_true(b.kernel_bytes[HC_FIELDFIELD_SCALAR] == 1664 && b.kernel_bytes[HC_DATAFIELD_VECTOR] == 672);
  assert_true(b.bytes[HC_PHASE_CONTRACT] == 2336 && b.bytes[HC_PHASE_ASSEMBLY] == 192);
  assert_true(b.bytes[HC_PHASE_STEP] == 3680 - 1152);
  /* only where the run is fused */
  f.p.fused = 0;
  hc_step_bytes_of(&f.p, &b);
  assert_true(b.bytes[HC_PHASE_ASSEMBLY] == 1760);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_fieldfield), cmocka_unit_test(test_device_assembly),
      cmocka_unit_test(test_roofline_times),  cmocka_unit_test(test_sumfact),
      cmocka_unit_test(test_fused_into_y),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
