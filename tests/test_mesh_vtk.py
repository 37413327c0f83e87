#!/usr/bin/env python3
"""A mesh file's run written for ParaView (output.vtk) and read back with VTK's own reader: every cell of the mesh
once, in VTK's cell type for the order, each rank's piece with its rank id, positive cell volumes that sum to the
results file's volume check, and one global node id per point shared alike by every piece. Usage:
  test_mesh_vtk.py HEXCONTRACT MPIEXEC MESH WORKDIR BACKEND NP"""
import os
import re
import shutil
import subprocess
import sys

SKIP = 77
try:
    import numpy as np
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkIOXML import vtkXMLPUnstructuredGridReader
except ImportError as e:
    print(f"test_mesh_vtk: SKIPPED: VTK's Python modules are missing ({e})")
    sys.exit(SKIP)

exe, mpiexec, mesh, work, backend, nranks = sys.argv[1:7]
nranks = int(nranks)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
cmd = [mpiexec, "-n", str(nranks), exe, "--set", "mesh.source=file", "--set", f"mesh.file={mesh}", "--set",
       f"run.backend={backend}", "--set", "mesh.order=2", "--set", "run.steps=1", "--set", "run.roofline=false",
       "--set", "output.vtk=true", "--set", f"output.dir={work}", "--set", "output.results=r.yaml"]
run = subprocess.run(cmd, capture_output=True, text=True)
if run.returncode != 0:
    print(run.stdout, run.stderr)
    sys.exit(f"test_mesh_vtk: the run failed with exit code {run.returncode}")
cells = int(re.search(r"(\d+) hex\d+ cells", run.stdout).group(1))
failures = []
reader = vtkXMLPUnstructuredGridReader()
reader.SetFileName(os.path.join(work, "r.pvtu"))
reader.Update()
grid = reader.GetOutput()
if grid.GetNumberOfCells() != cells:
    failures.append(f"{grid.GetNumberOfCells()} cells in the .pvtu, the mesh has {cells}")
types = {grid.GetCellType(i) for i in range(grid.GetNumberOfCells())}
if types != {29}:  # VTK_TRIQUADRATIC_HEXAHEDRON at order 2
    failures.append(f"cell types {types}, want {{29}}")
cd = grid.GetCellData()
ranks = vtk_to_numpy(cd.GetArray("rank"))
if sorted(set(ranks.tolist())) != list(range(nranks)):
    failures.append(f"ranks {sorted(set(ranks.tolist()))}, want 0..{nranks - 1}")
volume = vtk_to_numpy(cd.GetArray("volume"))
if not (volume > 0).all():
    failures.append("a cell volume <= 0")
text = open(os.path.join(work, "r.yaml")).read()
check = re.search(r"\n  volume:\n(?:    .*\n)*?    value: ([-0-9.e+]+)", text)
if not check:
    failures.append("no volume check in the results file")
elif abs(volume.sum() - float(check.group(1))) > 1e-9 * abs(float(check.group(1))):
    failures.append(f"cell volumes sum to {volume.sum()}, the volume check says {check.group(1)}")
ids = vtk_to_numpy(grid.GetPointData().GetArray("GlobalNodeId"))
pts = vtk_to_numpy(grid.GetPoints().GetData())
seen = {}
for i, g in enumerate(ids.tolist()):
    if g in seen and np.abs(pts[seen[g]] - pts[i]).max() > 1e-12:
        failures.append(f"global node {g} at two places")
        break
    seen.setdefault(g, i)
for f in failures:
    print("test_mesh_vtk: FAILED:", f)
print(f"test_mesh_vtk: {cells} cells on {nranks} rank(s), {len(seen)} nodes: {'FAILED' if failures else 'ok'}")
sys.exit(1 if failures else 0)
