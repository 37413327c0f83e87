// The unit cube as n x n x n 8-node hexahedra, structured (extrusions of a point, a line, a square): the vertices lie
// at exactly (i/n, j/n, k/n). box-4x4x4.msh: gmsh -3 -setnumber n 4 -format msh41 box.geo -o box-4x4x4.msh
DefineConstant[ n = {4, Min 1, Max 1000, Step 1, Name "Parameters/cells per edge"} ];
Point(1) = {0, 0, 0};
x[] = Extrude {1, 0, 0} { Point{1}; Layers{n}; Recombine; };
y[] = Extrude {0, 1, 0} { Line{x[1]}; Layers{n}; Recombine; };
z[] = Extrude {0, 0, 1} { Surface{y[1]}; Layers{n}; Recombine; };
// Only the hexahedra are saved (no boundary quads): the volume is the one physical group.
Physical Volume("domain") = {z[1]};
Mesh.ElementOrder = 1;
