// An L-bracket: the L [0,2]x[0,1] + [0,1]x[1,2] extruded 0.5 along z (volume 1.5), as 8-node hexahedra in three
// transfinite blocks (the corner square and the two arms) sharing their faces; 8n cells along each block's sides,
// 4n through the thickness: 768 n^3 cells.
// lbracket.msh: gmsh -3 -setnumber n 1 -format msh41 lbracket.geo -o lbracket.msh
DefineConstant[ n = {1, Min 1, Max 100, Step 1, Name "Parameters/refinement"} ];
t = 0.5;
Point(1) = {0, 0, 0}; Point(2) = {1, 0, 0}; Point(3) = {2, 0, 0};
Point(4) = {0, 1, 0}; Point(5) = {1, 1, 0}; Point(6) = {2, 1, 0};
Point(7) = {0, 2, 0}; Point(8) = {1, 2, 0};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {4, 5}; Line(4) = {5, 6}; Line(5) = {7, 8};
Line(6) = {1, 4}; Line(7) = {2, 5}; Line(8) = {3, 6}; Line(9) = {4, 7}; Line(10) = {5, 8};
Curve Loop(1) = {1, 7, -3, -6};  Plane Surface(1) = {1};  // the corner square
Curve Loop(2) = {2, 8, -4, -7};  Plane Surface(2) = {2};  // the arm along x
Curve Loop(3) = {3, 10, -5, -9}; Plane Surface(3) = {3};  // the arm along y
Transfinite Curve{1:10} = 8 * n + 1;
Transfinite Surface{1:3};
Recombine Surface{1:3};
v[] = Extrude {0, 0, t} { Surface{1:3}; Layers{4 * n}; Recombine; };
Physical Volume("bracket") = {v[1], v[7], v[13]};
Mesh.ElementOrder = 1;
