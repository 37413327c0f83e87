// A pipe: the annulus 0.5 <= r <= 1 around the z axis, 0 <= z <= 1, as curved 27-node hexahedra (order-2 geometry:
// the mid-edge and mid-face nodes of the cells on the cylinders lie on them). Four transfinite quarter blocks,
// 6n cells around each quarter, 3n through the wall, 6n along the axis: 432 n^3 cells.
// pipe.msh: gmsh -3 -setnumber n 1 -format msh41 pipe.geo -o pipe.msh
DefineConstant[ n = {1, Min 1, Max 100, Step 1, Name "Parameters/refinement"} ];
r = 0.5; R = 1.0; h = 1.0;
Point(1) = {0, 0, 0};
For q In {0:3}
  c = Cos(q * Pi / 2); s = Sin(q * Pi / 2);
  Point(10 + q) = {r * c, r * s, 0};
  Point(20 + q) = {R * c, R * s, 0};
EndFor
For q In {0:3}
  Circle(10 + q) = {10 + q, 1, 10 + (q + 1) % 4};
  Circle(20 + q) = {20 + q, 1, 20 + (q + 1) % 4};
  Line(30 + q) = {10 + q, 20 + q};
EndFor
For q In {0:3}
  Curve Loop(40 + q) = {30 + q, 20 + q, -(30 + (q + 1) % 4), -(10 + q)};
  Plane Surface(40 + q) = {40 + q};
  Transfinite Curve{10 + q, 20 + q} = 6 * n + 1;
  Transfinite Curve{30 + q} = 3 * n + 1;
  Transfinite Surface{40 + q};
  Recombine Surface{40 + q};
EndFor
v[] = Extrude {0, 0, h} { Surface{40:43}; Layers{6 * n}; Recombine; };
Physical Volume("pipe") = {v[1], v[7], v[13], v[19]};
Mesh.ElementOrder = 2;
Mesh.SecondOrderIncomplete = 0;
