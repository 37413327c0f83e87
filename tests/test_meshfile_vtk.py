#!/usr/bin/env python3
"""The hex27 node orders against third-party readers: the files that test_meshfile wrote (meshfile_exodus,
meshfile_gmsh) are read by VTK's Exodus II reader (vtkExodusIIReader, which gives VTK_TRIQUADRATIC_HEXAHEDRON in
VTK's order) and, where meshio is installed, by meshio's Gmsh reader (which gives hexahedron27 in VTK's order too).
Every node of every cell must sit at the grid point that its VTK parametric coordinates say, which checks the
Exodus and Gmsh layouts that test_meshfile builds its files from, independently of hexcontract's tables.
Usage: test_meshfile_vtk.py EXODUS_DIR GMSH_DIR. Exit 77 (skipped) without VTK's Python modules."""
import itertools
import sys

try:
    from vtkmodules.vtkCommonDataModel import vtkTriQuadraticHexahedron
    from vtkmodules.vtkIOExodus import vtkExodusIIReader
except ImportError:
    print("SKIPPED: no VTK Python modules (install python3-vtk9): the hex27 orders were not checked against VTK")
    sys.exit(77)

failures = []


def qmap(x):
    """test_meshfile.c's map_quadratic."""
    return (x[0] * (1 + 0.5 * x[1]) + 0.3 * x[2] ** 2, x[1] * (1 + 0.4 * x[2]) + 0.1 * x[0] ** 2,
            x[2] + 0.2 * x[1] ** 2)


# The 5^3 grid of a 2^3 mesh of order 2, by position (rounded: VTK's Exodus reader gives float32 points).
GRID = {tuple(round(c, 5) for c in qmap((i / 4, j / 4, k / 4))): (i, j, k) for i, j, k in itertools.product(range(5), repeat=3)}
PARAM = vtkTriQuadraticHexahedron().GetParametricCoords()


def check(name, cells):
    """cells: lists of 27 points in VTK_TRIQUADRATIC_HEXAHEDRON order."""
    bad = 0
    for points in cells:
        ids = [GRID.get(tuple(round(float(c), 5) for c in p)) for p in points]
        if None in ids:
            failures.append(f"{name}: a node is on no grid point")
            return
        for k in range(27):
            want = tuple(ids[0][d] + round(2 * PARAM[3 * k + d]) for d in range(3))
            bad += ids[k] != want
    print(f"{name}: {len(cells)} cells, {bad} nodes away from where VTK's parametric coordinates put them")
    if bad or len(cells) != 8:
        failures.append(f"{name}: {bad} misplaced nodes in {len(cells)} cells (expected 8 cells, 0)")


reader = vtkExodusIIReader()
reader.SetFileName(f"{sys.argv[1]}/hex27.exo")
reader.UpdateInformation()
reader.SetAllArrayStatus(reader.ELEM_BLOCK, 1)
reader.Update()
it = reader.GetOutput().NewIterator()
it.InitTraversal()
cells = []
while not it.IsDoneWithTraversal():
    ds = it.GetCurrentDataObject()
    for c in range(ds.GetNumberOfCells()):
        cell = ds.GetCell(c)
        if cell.GetCellType() == 9:  # the SHELL4 block that hexcontract's reader ignores
            continue
        if cell.GetCellType() != 29:
            failures.append(f"hex27.exo: VTK cell type {cell.GetCellType()}, expected 29 (triquadratic hexahedron)")
            continue
        cells.append([ds.GetPoint(cell.GetPointId(k)) for k in range(cell.GetNumberOfPoints())])
    it.GoToNextItem()
check("hex27.exo (vtkExodusIIReader)", cells)

try:
    import meshio
except ImportError:
    meshio = None
    print("meshio not installed (python3-meshio): the Gmsh files were not read by meshio")
if meshio:
    for f in ("hex27-quadratic-41.msh", "hex27-quadratic-22.msh"):
        m = meshio.read(f"{sys.argv[2]}/{f}")
        hexes = [b.data for b in m.cells if b.type == "hexahedron27"]
        check(f"{f} (meshio {meshio.__version__})", [[m.points[i] for i in c] for block in hexes for c in block])

for f in failures:
    print("test_meshfile_vtk: FAILED: " + f)
print("test_meshfile_vtk: " + ("passed" if not failures else "FAILED"))
sys.exit(1 if failures else 0)
