/* The OpenMP contractions for one precision: included once per precision by contract_openmp.c with
   HC_REAL and HC_FN(name). Cell-major arrays: threads take cells, and each cell's small products
   are vectorised along the contiguous contracted index, four right fields at a time so that each
   left entry loaded serves four products. Cell-minor arrays: threads take blocks of HC_OMP_CB
   cells, and the innermost loop runs over the cells of a block, contiguous in every array. */

static void HC_FN(hc_datadata_omp)(const hc_contract *k, const HC_REAL *restrict left, const HC_REAL *restrict right,
                                   HC_REAL *restrict out) {
  const int64_t C = k->C, K = hc_contract_K(k);
  const int sum_into = k->sum_into;
  if (k->layout == HC_LAYOUT_CELL_MAJOR) {
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < C; c++) {
      const HC_REAL *a = left + c * K, *b = right + c * K;
      HC_REAL sum = 0;
#pragma omp simd reduction(+ : sum)
      for (int64_t q = 0; q < K; q++) sum += a[q] * b[q];
      out[c] = sum_into ? out[c] + sum : sum;
    }
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t c0 = 0; c0 < C; c0 += HC_OMP_CB) {
    const int64_t nc = C - c0 < HC_OMP_CB ? C - c0 : HC_OMP_CB;
    HC_REAL acc[HC_OMP_CB] = {0};
    for (int64_t q = 0; q < K; q++) {
      const HC_REAL *a = left + q * C + c0, *b = right + q * C + c0;
#pragma omp simd
      for (int64_t c = 0; c < nc; c++) acc[c] += a[c] * b[c];
    }
    for (int64_t c = 0; c < nc; c++) out[c0 + c] = sum_into ? out[c0 + c] + acc[c] : acc[c];
  }
}

static void HC_FN(hc_datafield_omp)(const hc_contract *k, const HC_REAL *restrict fields, const HC_REAL *restrict data,
                                    HC_REAL *restrict out) {
  const int64_t C = k->C, L = k->L, P = k->P, K = hc_contract_K(k), Dr = K / P;
  const int64_t Kd = (int64_t)k->P_data * Dr;
  const int sum_into = k->sum_into, constant = k->P_data == 1 && P > 1;
  if (k->layout == HC_LAYOUT_CELL_MAJOR) {
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < C; c++) {
      const HC_REAL *d = data + c * Kd;
      for (int64_t l = 0; l < L; l++) {
        const HC_REAL *f = fields + (c * L + l) * K;
        HC_REAL sum = 0;
        if (constant) {
          /* sum_e d[e] * (sum_p f[p, e]): the data is the same at every point. */
          for (int64_t e = 0; e < Dr; e++) {
            HC_REAL fe = 0;
            for (int64_t p = 0; p < P; p++) fe += f[p * Dr + e];
            sum += fe * d[e];
          }
        } else {
#pragma omp simd reduction(+ : sum)
          for (int64_t q = 0; q < K; q++) sum += f[q] * d[q];
        }
        out[c * L + l] = sum_into ? out[c * L + l] + sum : sum;
      }
    }
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t c0 = 0; c0 < C; c0 += HC_OMP_CB) {
    const int64_t nc = C - c0 < HC_OMP_CB ? C - c0 : HC_OMP_CB;
    for (int64_t l = 0; l < L; l++) {
      HC_REAL acc[HC_OMP_CB] = {0};
      for (int64_t q = 0; q < K; q++) {
        const HC_REAL *f = fields + (l * K + q) * C + c0;
        const HC_REAL *d = data + (constant ? q % Dr : q) * C + c0;
#pragma omp simd
        for (int64_t c = 0; c < nc; c++) acc[c] += f[c] * d[c];
      }
      HC_REAL *o = out + l * C + c0;
      for (int64_t c = 0; c < nc; c++) o[c] = sum_into ? o[c] + acc[c] : acc[c];
    }
  }
}

/* work: R * HC_OMP_CB_FF scalars per thread (cell-minor only). */
static void HC_FN(hc_fieldfield_omp)(const hc_contract *k, const HC_REAL *restrict left, const HC_REAL *restrict right,
                                     HC_REAL *restrict out, HC_REAL *work) {
  const int64_t C = k->C, L = k->L, R = k->R, K = hc_contract_K(k);
  const int sum_into = k->sum_into;
  if (k->layout == HC_LAYOUT_CELL_MAJOR) {
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < C; c++) {
      const HC_REAL *A = left + c * L * K, *B = right + c * R * K;
      HC_REAL *O = out + c * L * R;
      for (int64_t l = 0; l < L; l++) {
        const HC_REAL *a = A + l * K;
        int64_t r = 0;
        for (; r + 4 <= R; r += 4) {
          const HC_REAL *b0 = B + r * K, *b1 = b0 + K, *b2 = b1 + K, *b3 = b2 + K;
          HC_REAL s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
          for (int64_t q = 0; q < K; q++) {
            s0 += a[q] * b0[q];
            s1 += a[q] * b1[q];
            s2 += a[q] * b2[q];
            s3 += a[q] * b3[q];
          }
          HC_REAL *o = O + l * R + r;
          if (sum_into) {
            o[0] += s0, o[1] += s1, o[2] += s2, o[3] += s3;
          } else {
            o[0] = s0, o[1] = s1, o[2] = s2, o[3] = s3;
          }
        }
        for (; r < R; r++) {
          const HC_REAL *b = B + r * K;
          HC_REAL s = 0;
#pragma omp simd reduction(+ : s)
          for (int64_t q = 0; q < K; q++) s += a[q] * b[q];
          O[l * R + r] = sum_into ? O[l * R + r] + s : s;
        }
      }
    }
    return;
  }
  /* Cell-minor: for each left entry A[l,q,block], update all R accumulators of the block, so each
     left entry is loaded once; the accumulators (R x HC_OMP_CB_FF) stay in L1. */
#pragma omp parallel
  {
    HC_REAL *acc = work + (int64_t)omp_get_thread_num() * R * HC_OMP_CB_FF;
#pragma omp for schedule(static)
    for (int64_t c0 = 0; c0 < C; c0 += HC_OMP_CB_FF) {
      const int64_t nc = C - c0 < HC_OMP_CB_FF ? C - c0 : HC_OMP_CB_FF;
      for (int64_t l = 0; l < L; l++) {
        for (int64_t i = 0; i < R * HC_OMP_CB_FF; i++) acc[i] = 0;
        for (int64_t q = 0; q < K; q++) {
          const HC_REAL *a = left + (l * K + q) * C + c0;
          for (int64_t r = 0; r < R; r++) {
            const HC_REAL *b = right + (r * K + q) * C + c0;
            HC_REAL *ar = acc + r * HC_OMP_CB_FF;
#pragma omp simd
            for (int64_t c = 0; c < nc; c++) ar[c] += a[c] * b[c];
          }
        }
        for (int64_t r = 0; r < R; r++) {
          HC_REAL *o = out + (l * R + r) * C + c0;
          const HC_REAL *ar = acc + r * HC_OMP_CB_FF;
          for (int64_t c = 0; c < nc; c++) o[c] = sum_into ? o[c] + ar[c] : ar[c];
        }
      }
    }
  }
}

static void HC_FN(hc_contract_omp)(const hc_contract *k, const void *left, const void *right, void *out, void *work) {
  switch (hc_kernel_family(k->kernel)) {
    case HC_FAMILY_DATADATA:
      HC_FN(hc_datadata_omp)(k, (const HC_REAL *)left, (const HC_REAL *)right, (HC_REAL *)out);
      break;
    case HC_FAMILY_DATAFIELD:
      HC_FN(hc_datafield_omp)(k, (const HC_REAL *)left, (const HC_REAL *)right, (HC_REAL *)out);
      break;
    case HC_FAMILY_FIELDFIELD:
      HC_FN(hc_fieldfield_omp)(k, (const HC_REAL *)left, (const HC_REAL *)right, (HC_REAL *)out, (HC_REAL *)work);
      break;
  }
}
