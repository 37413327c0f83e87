/* The serial reference contractions for one precision: included once per precision by
   contract_serial.c with HC_REAL (the scalar type) and HC_FN(name) (the name with a suffix).
   Plain loops over the formulas of kernels/README.md; never tuned. Each array is addressed as (c, q) with q
   the flattened inner index, at c * cs + q * qs: cell-major cs = inner extent, qs = 1;
   cell-minor cs = 1, qs = C. */

/* out[c] = sum_q left[c,q] right[c,q]; left, right: [C][K], out: [C]. */
static void HC_FN(hc_datadata_serial)(const hc_contract *k, const HC_REAL *left, const HC_REAL *right, HC_REAL *out) {
  const int64_t C = k->C, K = hc_contract_K(k);
  const int64_t cs = k->layout == HC_LAYOUT_CELL_MAJOR ? K : 1, qs = k->layout == HC_LAYOUT_CELL_MAJOR ? 1 : C;
  for (int64_t c = 0; c < C; c++) {
    HC_REAL sum = 0;
    for (int64_t q = 0; q < K; q++) sum += left[c * cs + q * qs] * right[c * cs + q * qs];
    out[c] = k->sum_into ? out[c] + sum : sum;
  }
}

/* out[c,l] = sum_q fields[c,l,q] data[c,q]; fields: [C][L][K], data: [C][K_data], out: [C][L].
   Constant data (P_data = 1) is used at every point: q = p * Dr + e reads data[c, e]. */
static void HC_FN(hc_datafield_serial)(const hc_contract *k, const HC_REAL *fields, const HC_REAL *data, HC_REAL *out) {
  const int64_t C = k->C, L = k->L, K = hc_contract_K(k), Dr = K / k->P, Kd = (int64_t)k->P_data * Dr;
  const int cm = k->layout == HC_LAYOUT_CELL_MAJOR;
  const int64_t fcs = cm ? L * K : 1, dcs = cm ? Kd : 1, ocs = cm ? L : 1, qs = cm ? 1 : C;
  for (int64_t c = 0; c < C; c++) {
    for (int64_t l = 0; l < L; l++) {
      HC_REAL sum = 0;
      for (int64_t q = 0; q < K; q++) {
        int64_t qd = k->P_data == 1 ? q % Dr : q;
        sum += fields[c * fcs + (l * K + q) * qs] * data[c * dcs + qd * qs];
      }
      HC_REAL *o = &out[c * ocs + l * qs];
      *o = k->sum_into ? *o + sum : sum;
    }
  }
}

/* out[c,l,r] = sum_q left[c,l,q] right[c,r,q]; left: [C][L][K], right: [C][R][K], out: [C][L][R]. */
static void HC_FN(hc_fieldfield_serial)(const hc_contract *k, const HC_REAL *left, const HC_REAL *right, HC_REAL *out) {
  const int64_t C = k->C, L = k->L, R = k->R, K = hc_contract_K(k);
  const int cm = k->layout == HC_LAYOUT_CELL_MAJOR;
  const int64_t lcs = cm ? L * K : 1, rcs = cm ? R * K : 1, ocs = cm ? L * R : 1, qs = cm ? 1 : C;
  for (int64_t c = 0; c < C; c++) {
    for (int64_t l = 0; l < L; l++) {
      for (int64_t r = 0; r < R; r++) {
        HC_REAL sum = 0;
        for (int64_t q = 0; q < K; q++) sum += left[c * lcs + (l * K + q) * qs] * right[c * rcs + (r * K + q) * qs];
        HC_REAL *o = &out[c * ocs + (l * R + r) * qs];
        *o = k->sum_into ? *o + sum : sum;
      }
    }
  }
}

static void HC_FN(hc_contract_serial)(const hc_contract *k, const void *left, const void *right, void *out) {
  switch (hc_kernel_family(k->kernel)) {
    case HC_FAMILY_DATADATA:
      HC_FN(hc_datadata_serial)(k, (const HC_REAL *)left, (const HC_REAL *)right, (HC_REAL *)out);
      break;
    case HC_FAMILY_DATAFIELD:
      HC_FN(hc_datafield_serial)(k, (const HC_REAL *)left, (const HC_REAL *)right, (HC_REAL *)out);
      break;
    case HC_FAMILY_FIELDFIELD:
      HC_FN(hc_fieldfield_serial)(k, (const HC_REAL *)left, (const HC_REAL *)right, (HC_REAL *)out);
      break;
  }
}
