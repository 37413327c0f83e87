#!/usr/bin/env python3
"""Gives the hexahedra of a Gmsh mesh mixed orientations: each 8-node hexahedron's node list is renumbered by one of
the 24 rotations of the reference cube (chosen by the cell's position in the file, so neighbours differ), which
keeps every cell right-handed (det J > 0) while its local frame (first, second, third reference direction) points
along a different one of the mesh's axes, either way, than its neighbours'. Geometry and node numbering are kept.

Usage: reorient.py IN.msh OUT.msh   (IN: Gmsh 2.2 ASCII, as `gmsh -format msh22` writes; OUT: Gmsh 4.1 ASCII)
Only the 8-node hexahedra (Gmsh type 5) are written; other elements are dropped. Standard library only."""
import itertools
import sys

# Gmsh's hex8 corner i sits at the reference corner GMSH[i] in {0,1}^3.
GMSH = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]


def rotations():
    """The 24 signed permutation matrices of determinant +1, identity first."""
    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = [[0] * 3 for _ in range(3)]
            for row in range(3):
                m[row][perm[row]] = signs[row]
            det = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                   + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))
            if det == 1:
                out.append(m)
    assert len(out) == 24
    return out


def renumbering(m):
    """new[i] = old[p[i]]: the new corner i is the old corner at m applied to corner i (about the cube's centre)."""
    p = []
    for corner in GMSH:
        c = [2 * x - 1 for x in corner]
        r = [sum(m[row][k] * c[k] for k in range(3)) for row in range(3)]
        p.append(GMSH.index(tuple((x + 1) // 2 for x in r)))
    return p


def det_at_corner0(xyz, cell):
    e = [[xyz[cell[k]][d] - xyz[cell[0]][d] for d in range(3)] for k in (1, 3, 4)]
    return (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0])
            + e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]))


def read_msh22(path):
    with open(path) as f:
        lines = f.read().split("\n")
    if not lines[0].startswith("$MeshFormat") or not lines[1].startswith("2.2 0 "):
        sys.exit(f"reorient.py: {path}: not a Gmsh 2.2 ASCII mesh (write it with gmsh -format msh22)")
    i = lines.index("$Nodes")
    n = int(lines[i + 1])
    nodes = {}
    for line in lines[i + 2:i + 2 + n]:
        t, x, y, z = line.split()
        nodes[int(t)] = (float(x), float(y), float(z))
    i = lines.index("$Elements")
    hexes = []
    for line in lines[i + 2:i + 2 + int(lines[i + 1])]:
        f = [int(v) for v in line.split()]
        if f[1] == 5:
            hexes.append((f[0], f[3 + f[2]:]))
    if not hexes:
        sys.exit(f"reorient.py: {path}: no 8-node hexahedra")
    return nodes, hexes


def main():
    if len(sys.argv) != 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) == 2 else 2)
    nodes, hexes = read_msh22(sys.argv[1])
    rots = [renumbering(m) for m in rotations()]
    out = []
    for k, (tag, cell) in enumerate(hexes):
        p = rots[(7 * k + 3) % 24]
        new = [cell[p[i]] for i in range(8)]
        if det_at_corner0(nodes, new) <= 0 or det_at_corner0(nodes, cell) <= 0:
            sys.exit(f"reorient.py: cell {tag} is not right-handed")
        out.append((tag, new))
    tags = sorted(nodes)
    lo = [min(nodes[t][d] for t in tags) for d in range(3)]
    hi = [max(nodes[t][d] for t in tags) for d in range(3)]
    with open(sys.argv[2], "w") as f:
        f.write("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n")
        f.write("$Entities\n0 0 0 1\n1 %r %r %r %r %r %r 0 0\n$EndEntities\n" % (*lo, *hi))
        f.write(f"$Nodes\n1 {len(tags)} {tags[0]} {tags[-1]}\n3 1 0 {len(tags)}\n")
        f.write("".join(f"{t}\n" for t in tags))
        f.write("".join("%r %r %r\n" % nodes[t] for t in tags))
        f.write(f"$EndNodes\n$Elements\n1 {len(out)} {min(t for t, _ in out)} {max(t for t, _ in out)}\n")
        f.write(f"3 1 5 {len(out)}\n")
        f.write("".join(f"{t} {' '.join(map(str, c))}\n" for t, c in out))
        f.write("$EndElements\n")


if __name__ == "__main__":
    main()
