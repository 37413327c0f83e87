/* The reference hexahedron: Gauss-Lobatto-Legendre nodes, Gauss-Legendre quadrature and the tensor-product
   Lagrange basis at the quadrature points, all on [-1,1] and computed in code. */
#ifndef HC_BASIS_H
#define HC_BASIS_H

#include "kernels/base/hc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest order and points per direction that hc_basis_create accepts. */
#define HC_BASIS_MAX_P 8
#define HC_BASIS_MAX_Q 32

/* Fills x[0..q-1] (ascending) and w[0..q-1] with the q-point Gauss-Legendre rule on [-1,1], exact for
   polynomials of degree <= 2q-1 (Newton on the Legendre polynomial P_q). q >= 1. */
int hc_gauss_legendre(int q, double *x, double *w);

/* Fills x[0..p] (ascending, x[0] = -1, x[p] = 1) with the p+1 Gauss-Lobatto-Legendre points on [-1,1]:
   the endpoints and the roots of P_p' (Newton). p >= 1. */
int hc_gll_nodes(int p, double *x);

/* The reference element of order p with q Gauss points per direction, on [-1,1]^3. Basis function
   l = a + (p+1)*(b + (p+1)*c) is phi_a(xi) phi_b(eta) phi_c(zeta), with phi_a the 1D Lagrange polynomial
   on the GLL nodes; point k = i + q*(j + q*m) sits at (xi_i, xi_j, xi_m) with weight w_i w_j w_m. */
typedef struct hc_basis {
  int p, q;        /* order, Gauss points per direction */
  int n1d;         /* p + 1 */
  int L;           /* (p+1)^3 basis functions */
  int P;           /* q^3 points */
  double *nodes1d; /* GLL nodes: [p+1] */
  double *qpts1d;  /* Gauss points: [q] */
  double *qwts1d;  /* Gauss weights: [q] */
  double *B1d;     /* 1D values phi_a(xi_i): [q][p+1] */
  double *G1d;     /* 1D derivatives phi_a'(xi_i): [q][p+1] */
  double *nodes;   /* 3D nodes: [L][3] */
  double *qpts;    /* 3D points: [P][3] */
  double *qwts;    /* 3D weights: [P] (they sum to 8) */
  double *phi;     /* values: [L][P] */
  double *grad;    /* reference gradients d phi_l / d xi_k: [L][P][3] */
} hc_basis;

/* Creates the reference element of order p (1..HC_BASIS_MAX_P) with q (1..HC_BASIS_MAX_Q) points per
   direction; q <= 0 picks the default q = p + 1. */
int hc_basis_create(int p, int q, hc_basis **basis);

/* Frees a basis; accepts NULL and sets *basis to NULL. */
int hc_basis_destroy(hc_basis **basis);

#ifdef __cplusplus
}
#endif

#endif
