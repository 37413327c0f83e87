#!/usr/bin/env python3
"""The ParaView output (output.vtk) read back by VTK's own readers (Debian's python3-vtk9): the cells, their types
and VTK's node order, the ranks, the cell volumes and min |J|, the nodal vectors against the results file, shared
nodes alike on every rank, and with output.vtk_every the collection of steps with their times and moved nodes.
Reports "skipped" (exit 77) when VTK's Python modules are missing. Usage:
  test_vtk.py last   HEXCONTRACT MPIEXEC NP ORDER WORKDIR   one set, at the last step
  test_vtk.py series HEXCONTRACT MPIEXEC NP ORDER WORKDIR   output.vtk_every: a set every 2 steps and the last"""
import math
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

SKIP = 77
try:
    import numpy as np
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkIOXML import vtkXMLPUnstructuredGridReader, vtkXMLUnstructuredGridReader
except ImportError as e:
    print(f"test_vtk: SKIPPED: VTK's Python modules are missing ({e}); run_scripts/setup.sh installs python3-vtk9")
    sys.exit(SKIP)

mode, exe, mpiexec, nranks, order, work = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), \
    sys.argv[6]
failures = []
CELLS = (4, 3, 3)
LENGTH = (1.0, 0.75, 1.25)
AMPLITUDE, OMEGA, DT, WARMUP = 0.05, 2.0, 0.1, 1
VTK_TYPE = {1: 12, 2: 29, 3: 72, 4: 72}  # hexahedron, triquadratic hexahedron, Lagrange hexahedron


def fail(msg):
    failures.append(msg)
    print("test_vtk: FAILED: " + msg)


def run(steps, extra):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cmd = [mpiexec, "-n", str(nranks), exe, "--set", "mesh.cells=%d,%d,%d" % CELLS,
           "--set", "mesh.length=%r,%r,%r" % LENGTH, "--set", f"mesh.order={order}",
           "--set", f"mesh.shear.amplitude={AMPLITUDE}", "--set", f"mesh.shear.omega={OMEGA}",
           "--set", f"run.dt={DT}", "--set", f"run.warmup={WARMUP}", "--set", f"run.steps={steps}",
           "--set", "run.roofline=false", "--set", "output.summary=false", "--set", f"output.dir={work}",
           "--set", "output.results=box.yaml", "--set", "output.vtk=true",
           "--set", "run.backend=" + os.environ.get("HC_TEST_RUN_BACKEND", "serial")] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    print(p.stdout + p.stderr)
    if p.returncode != 0:
        print(f"test_vtk: FAILED: exit code {p.returncode}: {' '.join(cmd)}")
        sys.exit(1)


def results_values(path):
    """values.KERNEL.{nodal_sum, nodal_norm} of a results file (one flow mapping per line)."""
    values, inside = {}, False
    for line in open(path):
        if line.startswith("values:"):
            inside = True
        elif inside and not line.startswith(" "):
            break
        elif inside:
            m = re.match(r"\s+(\w+): \{nodal_sum: ([^,]+), nodal_norm: ([^}]+)\}", line)
            if m:
                values[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return values


def read(reader_class, path):
    reader = reader_class()
    reader.SetFileName(path)
    reader.Update()
    grid = reader.GetOutput()
    if grid is None or grid.GetNumberOfCells() == 0:
        fail(f"{path}: VTK read no cells")
        sys.exit(1)
    return grid


def cell_array(grid, name):
    a = grid.GetCellData().GetArray(name)
    if a is None:
        fail(f"no cell data {name}")
        sys.exit(1)
    return vtk_to_numpy(a)


def point_array(grid, name):
    a = grid.GetPointData().GetArray(name)
    return None if a is None else vtk_to_numpy(a)


def shape_derivatives(cell, n, points):
    """VTK's shape-function derivatives of the cell's type at parametric points: [points][3][n]. They depend on
    the type and order alone. VTK's linear cells return them as [3][n], its higher-order ones as [n][3]: the
    layout is told by a central difference of the shape functions themselves."""
    X = np.array([cell.GetPoints().GetPoint(i) for i in range(n)])
    out = []
    for pc in points:
        d = [0.0] * (3 * n)
        cell.InterpolateDerivs(list(pc), d)
        out.append(np.array(d))
    fd, w = np.zeros((3, 3)), [0.0] * n
    for k in range(3):
        for s in (1, -1):
            q = list(points[0])
            q[k] += s * 1e-5
            cell.InterpolateFunctions(q, w)
            fd[k] += s * (np.array(w) @ X) / 2e-5
    a, b = out[0].reshape(3, n) @ X, out[0].reshape(n, 3).T @ X
    if np.abs(a - fd).max() <= np.abs(b - fd).max():
        return np.array([d.reshape(3, n) for d in out])
    return np.array([d.reshape(n, 3).T for d in out])


def check_cells(grid, where):
    """VTK's reading of every cell: its type, its nodes in VTK's order (along each parametric direction the
    coordinate it mostly follows increases), and its volume integrated from VTK's own interpolation against the
    file's volume (sum_p w|J|), and min |J|."""
    types = vtk_to_numpy(grid.GetCellTypesArray())
    if set(types.tolist()) != {VTK_TYPE[order]}:
        fail(f"{where}: cell types {sorted(set(types.tolist()))}, expected {VTK_TYPE[order]} for order {order}")
    volume, min_det = cell_array(grid, "volume"), cell_array(grid, "min_detJ")
    C, n = grid.GetNumberOfCells(), (order + 1) ** 3
    conn = vtk_to_numpy(grid.GetCells().GetConnectivityArray())
    if len(conn) != C * n:
        fail(f"{where}: {len(conn)} node ids for {C} cells of {n} nodes")
        return
    X = vtk_to_numpy(grid.GetPoints().GetData())[conn.reshape(C, n)]  # [C][n][3]
    cell = grid.GetCell(0)
    ijk = np.rint(np.array(cell.GetParametricCoords()).reshape(n, 3) * order).astype(int)
    # The nodes on VTK's parametric grid: along direction d the coordinate d increases.
    G = np.zeros((C, order + 1, order + 1, order + 1, 3))
    G[:, ijk[:, 0], ijk[:, 1], ijk[:, 2]] = X
    for d in range(3):
        bad = np.argwhere(~(np.diff(G[..., d], axis=1 + d) > 0))
        if len(bad):
            fail(f"{where}: cell {bad[0][0]}: coordinate {d} does not increase along VTK's parametric direction {d} "
                 "(wrong node order)")
            return
    # The degree of det J of VTK's map, per direction, is at most 3 order - 1: nq Gauss points integrate it.
    nq = (3 * order + 1) // 2 + 1
    gx, gw = np.polynomial.legendre.leggauss(nq)
    gx, gw = (gx + 1) / 2, gw / 2
    pts = [(a, b, e) for a in gx for b in gx for e in gx]
    wts = np.array([a * b * e for a in gw for b in gw for e in gw])
    D = shape_derivatives(cell, n, pts)  # [Q][3][n]
    vol = np.linalg.det(np.einsum("qkn,cnd->cqkd", D, X)) @ wts
    worst = np.argmax(np.abs(vol - volume) / np.abs(volume))
    if not abs(vol[worst] - volume[worst]) <= 1e-9 * abs(volume[worst]):
        fail(f"{where}: cell {worst}: volume from VTK's interpolation {vol[worst]!r}, the file's {volume[worst]!r}")
    bad = np.argwhere(~((0 < min_det) & (8 * min_det <= volume * (1 + 1e-12))))
    if len(bad):
        c = bad[0][0]
        fail(f"{where}: cell {c}: min |J| {min_det[c]!r} is not in (0, volume / 8 = {volume[c] / 8!r}]")


def check_set(pvtu, results, time):
    """One set: the joined grid, each rank's piece, and the nodal vectors against the results file."""
    grid = read(vtkXMLPUnstructuredGridReader, pvtu)
    ncells = CELLS[0] * CELLS[1] * CELLS[2]
    if grid.GetNumberOfCells() != ncells:
        fail(f"{pvtu}: {grid.GetNumberOfCells()} cells, expected the global {ncells}")
    ranks = cell_array(grid, "rank")
    if sorted(set(ranks.tolist())) != list(range(nranks)):
        fail(f"{pvtu}: ranks {sorted(set(ranks.tolist()))}, expected 0..{nranks - 1}")
    box = LENGTH[0] * LENGTH[1] * LENGTH[2]
    total = cell_array(grid, "volume").sum()
    if not abs(total - box) <= 1e-12 * box:
        fail(f"{pvtu}: cell volumes sum to {total!r}, the box's is {box!r}")
    check_cells(grid, pvtu)
    sources = [p.get("Source") for p in ET.parse(pvtu).getroot().iter("Piece")]
    if len(sources) != nranks:
        fail(f"{pvtu}: {len(sources)} pieces, expected one per rank ({nranks})")
    values = {}  # kernel -> {global node id: value}
    fields = [k for k in results]
    if not fields:
        fail("the results file has no nodal vectors")
    for r, src in enumerate(sources):
        piece = read(vtkXMLUnstructuredGridReader, os.path.join(os.path.dirname(pvtu), src))
        pr = cell_array(piece, "rank")
        if not (pr == r).all():
            fail(f"{src}: piece {r} holds cells of ranks {sorted(set(pr.tolist()))}")
        t = vtk_to_numpy(piece.GetFieldData().GetArray("TimeValue"))[0]
        if not abs(t - time) <= 1e-12:
            fail(f"{src}: TimeValue {t!r}, expected {time!r}")
        gid = point_array(piece, "GlobalNodeId")
        for k in fields:
            y = point_array(piece, k)
            if y is None:
                fail(f"{src}: no point data {k}")
                continue
            seen = values.setdefault(k, {})
            for g, v in zip(gid.tolist(), y.tolist()):
                # After the halo exchange a shared node holds the same sum on every rank (bitwise).
                if g in seen and seen[g] != v:
                    fail(f"{src}: {k} at node {g} is {v!r} on rank {r} but {seen[g]!r} on an earlier rank: not the "
                         "vector after the halo exchange")
                    break
                seen[g] = v
    nodes = (order * CELLS[0] + 1) * (order * CELLS[1] + 1) * (order * CELLS[2] + 1)
    for k, (nodal_sum, nodal_norm) in results.items():
        v = np.array(list(values.get(k, {}).values()))
        if len(v) != nodes:
            fail(f"{k}: {len(v)} distinct nodes in the pieces, the box has {nodes}")
            continue
        if not abs(v.sum() - nodal_sum) <= 1e-12 * np.abs(v).sum():
            fail(f"{k}: the sum over distinct nodes {v.sum()!r} is not the results file's nodal_sum {nodal_sum!r}")
        norm = math.sqrt((v * v).sum())
        if not abs(norm - nodal_norm) <= 1e-12 * nodal_norm:
            fail(f"{k}: the 2-norm over distinct nodes {norm!r} is not the results file's nodal_norm {nodal_norm!r}")
    return grid


def gll(p):
    return {1: [-1, 1], 2: [-1, 0, 1], 3: [-1, -1 / math.sqrt(5), 1 / math.sqrt(5), 1],
            4: [-1, -math.sqrt(3 / 7), 0, math.sqrt(3 / 7), 1]}[p]


def check_moved(grid, time, where):
    """The nodes at a set's time (no jitter): every cell vertex at x = X + A sin(2 pi Y/LY) sin(2 pi Z/LZ)
    sin(omega t), y = Y, z = Z, X on the box's grid."""
    gid, pts = point_array(grid, "GlobalNodeId"), vtk_to_numpy(grid.GetPoints().GetData())
    G = [order * n + 1 for n in CELLS]
    h = [LENGTH[d] / CELLS[d] for d in range(3)]
    checked = 0
    for g, x in zip(gid.tolist(), pts):
        ijk = (g % G[0], (g // G[0]) % G[1], g // (G[0] * G[1]))
        if any(i % order for i in ijk):
            continue
        X = [ijk[d] // order * h[d] for d in range(3)]
        shift = AMPLITUDE * math.sin(2 * math.pi * X[1] / LENGTH[1]) * math.sin(2 * math.pi * X[2] / LENGTH[2]) * \
            math.sin(OMEGA * time)
        want = (X[0] + shift, X[1], X[2])
        if max(abs(x[d] - want[d]) for d in range(3)) > 1e-12:
            fail(f"{where}: vertex node {g} at {tuple(x)}, expected {want} at t = {time}")
            return
        checked += 1
    if not checked:
        fail(f"{where}: no vertex node checked")


if mode == "last":
    steps = 2
    run(steps, [])
    check_set(os.path.join(work, "box.pvtu"), results_values(os.path.join(work, "box.yaml")),
              (WARMUP + steps - 1) * DT)
    if os.path.exists(os.path.join(work, "box.pvd")):
        fail("a collection was written without output.vtk_every")
elif mode == "series":
    steps, every = 5, 2
    run(steps, ["--set", f"output.vtk_every={every}", "--set", "mesh.jitter=0"])
    pvd = os.path.join(work, "box.pvd")
    if not os.path.isfile(pvd):
        fail("no collection box.pvd")
        sys.exit(1)
    sets = [(float(d.get("timestep")), d.get("file")) for d in ET.parse(pvd).getroot().iter("DataSet")]
    want = [((WARMUP + s - 1) * DT, f"box_{s}.pvtu") for s in (2, 4, 5)]
    if [f for _, f in sets] != [f for _, f in want] or any(abs(a[0] - b[0]) > 1e-12 for a, b in zip(sets, want)):
        fail(f"box.pvd lists {sets}, expected {want}")
    # The results file holds the last step's vectors; earlier sets are checked for cells, ranks and motion.
    for time, name in sets:
        path = os.path.join(work, name)
        if name == want[-1][1]:
            grid = check_set(path, results_values(os.path.join(work, "box.yaml")), time)
        else:
            grid = read(vtkXMLPUnstructuredGridReader, path)
            if grid.GetNumberOfCells() != CELLS[0] * CELLS[1] * CELLS[2]:
                fail(f"{name}: {grid.GetNumberOfCells()} cells")
        check_moved(grid, time, name)
    if os.path.exists(os.path.join(work, "box.pvtu")):
        fail("box.pvtu was written with output.vtk_every")
else:
    fail(f"unknown mode {mode}")

print("test_vtk: " + ("FAILED" if failures else "passed") + f" ({mode}, {nranks} ranks, order {order})")
sys.exit(1 if failures else 0)
