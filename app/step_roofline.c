/* The compulsory bytes of each phase of a step and their roofline times (README.md, section The step's roofline). */
#include "app/hc_step_roofline.h"

#include <string.h>

#include "kernels/hc_roofline.h"

/* n when x = n^3 for an integer n >= 1, else 0. */
static int hc_cube_root(int64_t x) {
  int n = 1;
  while ((int64_t)n * n * n < x) n++;
  return (int64_t)n * n * n == x ? n : 0;
}

double hc_sumfact_flops(const hc_contract *k) {
  const int N = hc_cube_root(k->L), Q = hc_cube_root(k->P);
  if (hc_kernel_family(k->kernel) != HC_FAMILY_FIELDFIELD || k->L != k->R || !N || !Q) return 0;
  const double n = N, q = Q, pairs = k->kernel == HC_FIELDFIELD_SCALAR ? 1 : 9;
  const double classes = k->kernel == HC_FIELDFIELD_SCALAR ? 1 : 4;
  return 2.0 * (double)k->C *
         (pairs * n * n * q * q * q + pairs * n * n * n * n * q * q + classes * n * n * n * n * n * n * q);
}

void hc_step_bytes_of(const hc_step_problem *p, hc_step_bytes *b) {
  memset(b, 0, sizeof(*b));
  const double N = (double)p->num_nodes;
  int any = 0, vectors = 0;
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
    if (!p->enabled[kid]) continue;
    const hc_contract *k = &p->k[kid];
    const double s = (double)hc_precision_size(k->precision), C = (double)k->C;
    const hc_family fam = hc_kernel_family((hc_kernel)kid);
    const double out = s * (double)hc_contract_numel(k, HC_ARRAY_OUT);
    any = 1;
    hc_contract_cost(k, &b->kernel_flops[kid], &b->kernel_bytes[kid]);
    if (p->fused) {
      /* no input array: the geometry nodes in, the outputs out; FieldFieldTensor contracts 3 P, not 9 P */
      b->kernel_bytes[kid] = C * p->geometry_nodes * 3 * 8 + out;
      if (kid == HC_FIELDFIELD_TENSOR) b->kernel_flops[kid] /= 3;
      if (fam == HC_FAMILY_FIELDFIELD) {
        const double sf = hc_sumfact_flops(k);
        if (sf > 0 && sf < b->kernel_flops[kid]) b->kernel_flops[kid] = sf;
      }
    } else {
      b->bytes[HC_PHASE_CELLDATA] +=
          s * (double)(hc_contract_numel(k, HC_ARRAY_LEFT) + hc_contract_numel(k, HC_ARRAY_RIGHT));
    }
    b->bytes[HC_PHASE_CONTRACT] += b->kernel_bytes[kid];
    if (fam == HC_FAMILY_DATADATA) {
      if (p->device_assembly && p->dd_copy) b->d2h += s * C;
    } else {
      vectors++;
      const double scatter = 4.0 * C * k->L + 8.0 * N + (fam == HC_FAMILY_FIELDFIELD ? 8.0 * N : 0);
      if (p->fused && p->fused_into_y && p->fused_into_y[kid]) {
        b->bytes[HC_PHASE_ASSEMBLY] += 8.0 * N;
        b->kernel_bytes[kid] += scatter;
        b->bytes[HC_PHASE_CONTRACT] += scatter;
      } else {
        b->bytes[HC_PHASE_ASSEMBLY] += out + 8.0 * N + scatter;
      }
    }
    if (p->is_device && !p->device_assembly) b->d2h += out;
  }
  if (any && !p->fused) b->bytes[HC_PHASE_CELLDATA] += (double)p->k[0].C * p->geometry_nodes * 3 * 8;
  if (p->u_upload) b->h2d += 8.0 * N;
  b->bytes[HC_PHASE_TRANSFER] = b->h2d + b->d2h;
  b->bytes[HC_PHASE_HALO] = (double)vectors * (double)p->halo_bytes_per_vector;
  b->bytes[HC_PHASE_REDUCTION] = p->reduction_bytes;
  b->bytes[HC_PHASE_STEP] = b->bytes[HC_PHASE_CELLDATA] + b->bytes[HC_PHASE_CONTRACT] + b->bytes[HC_PHASE_TRANSFER] +
                            b->bytes[HC_PHASE_ASSEMBLY];
}

static double hc_over(double bytes, double rate) {
  return rate > 0 ? bytes / rate : 0;
}

void hc_step_roofline(const hc_step_bytes *b, const hc_step_rates *r, double t[HC_NUM_PHASES]) {
  memset(t, 0, sizeof(double) * HC_NUM_PHASES);
  t[HC_PHASE_CELLDATA] = hc_over(b->bytes[HC_PHASE_CELLDATA], r->copy);
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++)
    t[HC_PHASE_CONTRACT] += hc_roofline_time(b->kernel_flops[kid], b->kernel_bytes[kid], r->copy, r->peak[kid]);
  t[HC_PHASE_TRANSFER] = hc_over(b->h2d, r->h2d) + hc_over(b->d2h, r->d2h);
  t[HC_PHASE_ASSEMBLY] = hc_over(b->bytes[HC_PHASE_ASSEMBLY], r->copy);
  t[HC_PHASE_STEP] = t[HC_PHASE_CELLDATA] + t[HC_PHASE_CONTRACT] + t[HC_PHASE_TRANSFER] + t[HC_PHASE_ASSEMBLY];
}
