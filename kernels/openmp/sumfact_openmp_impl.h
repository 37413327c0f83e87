/* The OpenMP fused FieldField element matrix by sum factorization for N = HC_SF_N 1D basis functions and as many
   Gauss points per direction: included by celldata_openmp.c once per N (4, 5: orders 3 and 4), which defines
   hc_fused_ff_sumfact_N. With N constant every loop bound is, so that the short loops unroll and the runs of
   entries go in whole vectors (hc_v8d, GCC's vector extension: 8 doubles). On the 2-core VM (AVX-512) a cell of
   order 4 (N = 5) took 41 us, the same with runtime bounds and no vector blocks 134 us.

   In the reference space (fused_openmp_impl.h): E[l][r] = sum_p sum_de dref_d phi_l(p) G_de(p) dref_e phi_r(p),
   with G the point's metric (hc_pw_ff_metric: w|J| J^-1 J^-T, or w|J| J^-1 kappa J^-T for Tensor; w|J| and the
   values phi for Scalar). The basis is a tensor product (hc_basis.h: l = a1 + N (a2 + N a3), p = k1 + Q (k2 + Q k3)),
   so each term factors into one 1D pair per direction, X^d_m(a, k) X^e_m(b, k), the 1D derivatives G1d where
   d = m - 1 and the values B1d otherwise, and the sum over the points goes one direction at a time, per a3:
     (1) T1[de][b3][k2][k1] = sum_k3 X^d_3(a3, k3) X^e_3(b3, k3) G_de(k1, k2, k3), then
         W[de][b3][k2][b2][k1] = X^e_2(b2, k2) T1[de][b3][k2][k1]
     (2) U[t][b3][a2][b2][k1] = sum_(de in t) sum_k2 X^d_2(a2, k2) W[de][b3][k2][b2][k1], the classes
         t = 2 [d = 0] + [e = 0] being the four direction-1 factors (one for Scalar): the N rows a2 of a (t, b3)
         in vector registers while the pairs of t and the k2 go by
     (3) V[t][k1][a2][r] = X^t_1(b1, k1) U[t][b3][a2][b2][k1] (r = b1 + N (b2 + N b3)), then
         E[l][r] = sum_t sum_k1 X^t_1(a1, k1) V[t][k1][a2][r] for the N^2 rows of a3: 8 columns r of the N rows a1
         of an a2 in vector registers while (t, k1) go by.
   Each entry's sums in the order of the indices above, in double, without contraction into multiply-adds (the
   file's -ffp-contract=off). At order 4 about 0.5 M multiply-adds per cell where the product of the reference
   rows takes 5.9 M; the cuda backend's fused_sumfact (celldata_cuda.cu) takes the same factors. */

#define HC_SF_CAT_(a, b) a##b
#define HC_SF_CAT(a, b)  HC_SF_CAT_(a, b)

/* The shape and the scratch's layout, in doubles: g [NG][P], T1 [NG][N b3][Q k2][Q k1], W [NG][N b3][Q k2][NQP (b2,
   k1)], U [NC][N b3][N a2][NQP (b2, k1)], V [NC][Q k1][N a2][LP r], E [L][L] (NG, NC at most 9 and 4); the rows of W,
   U and V padded to whole vectors. */
#define HC_SF_SHAPE                \
  enum {                           \
    N = HC_SF_N,                   \
    Q = HC_SF_N,                   \
    QQ = Q * Q,                    \
    L = N * N * N,                 \
    P = Q * Q * Q,                 \
    NQ = N * Q,                    \
    NQP = (NQ + 7) / 8 * 8,        \
    NQV = NQP / 8,                 \
    LP = (L + 7) / 8 * 8,          \
    AT_T1 = 9 * P,                 \
    AT_W = AT_T1 + 9 * N * QQ,     \
    AT_U = AT_W + 9 * N * Q * NQP, \
    AT_V = AT_U + 4 * N * N * NQP, \
    AT_E = AT_V + 4 * Q * N * LP,  \
    DOUBLES = AT_E + L * L         \
  }

/* Doubles of hc_fused_ff_sumfact_N's scratch. */
static int64_t HC_SF_CAT(hc_fused_sumfact_doubles_, HC_SF_N)(void) {
  HC_SF_SHAPE;
  return DOUBLES;
}

static const double *HC_SF_CAT(hc_fused_ff_sumfact_, HC_SF_N)(int rank, const hc_basis *b, const hc_cd_point *pts,
                                                              double *restrict s) {
  HC_SF_SHAPE;
  const int NG = rank == 0 ? 1 : 9, NC = rank == 0 ? 1 : 4;
  double *restrict g = s, *restrict t1 = s + AT_T1, *restrict w = s + AT_W, *restrict uu = s + AT_U;
  double *restrict vv = s + AT_V, *restrict E = s + AT_E;
  for (int p = 0; p < P; p++) {
    if (rank == 0) {
      g[p] = pts[p].wdet;
      continue;
    }
    double G[9];
    hc_pw_ff_metric(pts[p].J, rank == 2 ? pts[p].dl : NULL, pts[p].wdet, G);
    for (int de = 0; de < 9; de++) g[de * P + p] = G[de];
  }
  /* X^d_m: the derivatives where d = m - 1 (none for Scalar), else the values; [Q k][N a] */
#define HC_SF_X(deriv) (NG > 1 && (deriv) ? b->G1d : b->B1d)
  for (int a3 = 0; a3 < N; a3++) {
    for (int de = 0; de < NG; de++) {
      const double *xa = HC_SF_X(de / 3 == 2), *xb = HC_SF_X(de % 3 == 2), *xe = HC_SF_X(de % 3 == 1);
      for (int b3 = 0; b3 < N; b3++) {
        double *row = t1 + (de * N + b3) * QQ;
        for (int j = 0; j < QQ; j++) row[j] = 0.0;
        for (int k3 = 0; k3 < Q; k3++) {
          const double cf = xa[k3 * N + a3] * xb[k3 * N + b3], *gk = g + de * P + k3 * QQ;
          for (int j = 0; j < QQ; j++) row[j] += cf * gk[j];
        }
        for (int k2 = 0; k2 < Q; k2++) {
          const double *src = row + k2 * Q;
          double *dst = w + ((de * N + b3) * Q + k2) * NQP;
          for (int b2 = 0; b2 < N; b2++)
            for (int k1 = 0; k1 < Q; k1++) dst[b2 * Q + k1] = xe[k2 * N + b2] * src[k1];
          for (int j = NQ; j < NQP; j++) dst[j] = 0.0;
        }
      }
    }
    for (int t = 0; t < NC; t++) {
      for (int b3 = 0; b3 < N; b3++) {
        hc_v8d acc[N][NQV];
        for (int a2 = 0; a2 < N; a2++)
          for (int v = 0; v < NQV; v++) acc[a2][v] = (hc_v8d){0};
        for (int de = 0; de < NG; de++) {
          const int d = de / 3, e = de % 3;
          if (NC > 1 && 2 * (d == 0) + (e == 0) != t) continue;
          const double *xd = HC_SF_X(d == 1);
          for (int k2 = 0; k2 < Q; k2++) {
            const double *src = w + ((de * N + b3) * Q + k2) * NQP;
            hc_v8d sv[NQV];
            for (int v = 0; v < NQV; v++) HC_V8D_LOAD(sv[v], src + 8 * v);
            for (int a2 = 0; a2 < N; a2++) {
              const double cf = xd[k2 * N + a2];
              for (int v = 0; v < NQV; v++) acc[a2][v] += cf * sv[v];
            }
          }
        }
        for (int a2 = 0; a2 < N; a2++)
          for (int v = 0; v < NQV; v++) HC_V8D_STORE(uu + ((t * N + b3) * N + a2) * NQP + 8 * v, acc[a2][v]);
      }
    }
    for (int t = 0; t < NC; t++) {
      const double *xe = HC_SF_X(t & 1);
      for (int k1 = 0; k1 < Q; k1++)
        for (int a2 = 0; a2 < N; a2++) {
          double *dst = vv + ((t * Q + k1) * N + a2) * LP;
          for (int b3 = 0; b3 < N; b3++)
            for (int b2 = 0; b2 < N; b2++) {
              const double y = uu[((t * N + b3) * N + a2) * NQP + b2 * Q + k1];
              for (int b1 = 0; b1 < N; b1++) dst[(b3 * N + b2) * N + b1] = xe[k1 * N + b1] * y;
            }
          for (int r = L; r < LP; r++) dst[r] = 0.0;
        }
    }
    for (int a2 = 0; a2 < N; a2++) {
      for (int r0 = 0; r0 < LP; r0 += 8) {
        hc_v8d acc[N];
        for (int a1 = 0; a1 < N; a1++) acc[a1] = (hc_v8d){0};
        for (int t = 0; t < NC; t++) {
          const double *xd = HC_SF_X(t >> 1);
          for (int k1 = 0; k1 < Q; k1++) {
            hc_v8d sv;
            HC_V8D_LOAD(sv, vv + ((t * Q + k1) * N + a2) * LP + r0);
            for (int a1 = 0; a1 < N; a1++) acc[a1] += xd[k1 * N + a1] * sv;
          }
        }
        for (int a1 = 0; a1 < N; a1++) {
          double *row = E + (a1 + N * (a2 + N * a3)) * L + r0;
          if (r0 + 8 <= L) {
            HC_V8D_STORE(row, acc[a1]);
          } else {
            for (int i = 0; r0 + i < L; i++) row[i] = acc[a1][i];
          }
        }
      }
    }
  }
#undef HC_SF_X
  return E;
}

#undef HC_SF_SHAPE
#undef HC_SF_CAT
#undef HC_SF_CAT_
#undef HC_SF_N
