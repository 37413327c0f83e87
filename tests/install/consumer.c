/* An outside program that calls one of hexcontract's contractions through its installed headers and library,
   and checks the numbers against a hand computation. Exit code 0 when they agree. */
#include <math.h>
#include <stdio.h>

#include "hc_config.h"
#include "kernels/hc_kernels.h"

static int check(const char *what, const double *got, const double *want, int n) {
  int bad = 0;
  for (int i = 0; i < n; i++) {
    if (fabs(got[i] - want[i]) > 1e-14) {
      fprintf(stderr, "consumer: %s[%d] = %g, expected %g\n", what, i, got[i], want[i]);
      bad = 1;
    }
  }
  return bad;
}

int main(void) {
  const hc_backend *serial = NULL;
  if (hc_backend_find("serial", &serial) != HC_OK) {
    fprintf(stderr, "consumer: no serial backend: %s\n", hc_error_message());
    return 1;
  }
  /* FieldFieldScalar on one cell, L = R = 2 fields, P = 3 points: out[l][r] = sum_p A[l][p] B[r][p]. */
  hc_contract k;
  hc_contract_init(&k, HC_FIELDFIELD_SCALAR);
  k.C = 1;
  k.L = 2;
  k.R = 2;
  k.P = 3;
  k.P_data = 3;
  const double A[2][3] = {{1, 2, 3}, {4, 5, 6}};  /* A: [C][L][P] */
  const double B[2][3] = {{1, 0, -1}, {2, 1, 0}}; /* B: [C][R][P] */
  double out[2][2] = {{0, 0}, {0, 0}};
  /* By hand: (1 - 3, 2 + 2 + 0; 4 - 6, 8 + 5 + 0). */
  const double want[2][2] = {{-2, 4}, {-2, 13}};
  const double twice[2][2] = {{-4, 8}, {-4, 26}};
  int bad = 0;
  if (hc_contract_apply(serial, &k, A, B, out) != HC_OK) {
    fprintf(stderr, "consumer: hc_contract_apply failed: %s\n", hc_error_message());
    return 1;
  }
  bad |= check("out", &out[0][0], &want[0][0], 4);
  k.sum_into = 1; /* adds the same product once more */
  if (hc_contract_apply(serial, &k, A, B, out) != HC_OK) {
    fprintf(stderr, "consumer: hc_contract_apply (sum_into) failed: %s\n", hc_error_message());
    return 1;
  }
  bad |= check("out after sum_into", &out[0][0], &twice[0][0], 4);
  /* The cost model: 2 C L R K flops, s (C L K + C R K + C L R) bytes, the output read too with sum_into. */
  double flops = 0, bytes = 0;
  hc_contract_cost(&k, &flops, &bytes);
  const double cost[2] = {flops, bytes}, cost_want[2] = {2 * 2 * 2 * 3, 8 * (6 + 6 + 4 + 4)};
  bad |= check("cost", cost, cost_want, 2);
  printf("consumer: hexcontract %s, %s: %s\n", HC_VERSION, hc_kernel_name(k.kernel), bad ? "FAILED" : "passed");
  return bad;
}
