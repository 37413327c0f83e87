/* The geometry of one hexahedron on its own, from its 8 (trilinear) or 27 (triquadratic) geometry nodes:
   the map, its Jacobian, its exact volume and whether it is a parallelepiped. Plain host code, independent
   of the cell-data kernels in kernels/ (the checks compare the two). */
#ifndef HC_HEX_H
#define HC_HEX_H

#ifdef __cplusplus
extern "C" {
#endif

/* Geometry nodes are in tensor order: node (a,b,c) at index a + n (b + n c), n = 2 (8 nodes, at reference
   coordinates -1 and 1) or n = 3 (27 nodes, at -1, 0 and 1), a along the first reference direction.
   x: [geometry_nodes][3]. */

/* The point x(xi)[3] and the Jacobian J[i][j] = d x_i / d xi_j at reference point xi[3] in [-1,1]^3;
   J may be NULL. Returns det J. */
double hc_hex_map(int geometry_nodes, const double *x, const double xi[3], double point[3], double J[3][3]);

/* The cell's volume, integral of det J over [-1,1]^3, exact: det J has degree 2 per direction on a trilinear
   cell and 5 on a triquadratic one, so Gauss-Legendre rules of 2 and 3 points per direction integrate it
   exactly (up to rounding). */
double hc_hex_volume(int geometry_nodes, const double *x);

/* The smallest det J over the geometry nodes themselves (the corners of a trilinear cell, where its det J
   takes its extremes over each face diagonal direction; all 27 nodes of a triquadratic one), and the index
   of that node in *where. A valid cell has it > 0. */
double hc_hex_min_det(int geometry_nodes, const double *x, int *where);

/* Whether the cell is a parallelepiped (an affine image of the reference cube): every geometry node within
   rel_tol times the cell's diameter of the affine map through node (0,0,0) and its three edges. */
int hc_hex_is_affine(int geometry_nodes, const double *x, double rel_tol);

/* The integral over the cell of f(x)^n where f(x) = (x_0 / scale)^n (powers of the first coordinate), with
   Gauss-Legendre rules of `points` per direction (1..8). Used by the exactness check on affine cells. */
double hc_hex_integrate_power(int geometry_nodes, const double *x, int n, double scale, int points);

#ifdef __cplusplus
}
#endif

#endif
