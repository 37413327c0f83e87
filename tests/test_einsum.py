#!/usr/bin/env python3
"""hexcontract contract against NumPy's einsum, an implementation written by other people.

Usage: test_einsum.py PATH/TO/hexcontract BACKEND...   (exit 77: skipped when NumPy is missing)
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("SKIPPED: NumPy is not installed for %s: the comparison with numpy.einsum did not run" % sys.executable)
    sys.exit(77)

# The formulas of kernels/README.md, written as einsum subscripts over the left and right arrays.
KERNELS = {
    "DataDataScalar": "cp,cp->c",
    "DataDataVector": "cpi,cpi->c",
    "DataDataTensor": "cpij,cpij->c",
    "DataFieldScalar": "clp,cp->cl",
    "DataFieldVector": "clpi,cpi->cl",
    "DataFieldTensor": "clpij,cpij->cl",
    "FieldFieldScalar": "clp,crp->clr",
    "FieldFieldVector": "clpi,crpi->clr",
    "FieldFieldTensor": "clpij,crpij->clr",
}


def shapes(name, C, L, R, P, D, constant):
    rank = {"Scalar": 0, "Vector": 1, "Tensor": 2}[name[-6:]]
    tail = (D,) * rank
    if name.startswith("DataData"):
        return (C, P) + tail, (C, P) + tail
    if name.startswith("DataField"):
        return (C, L, P) + tail, (C, 1 if constant else P) + tail
    return (C, L, P) + tail, (C, R, P) + tail


def main():
    exe, backends = sys.argv[1], sys.argv[2:]
    rng = np.random.default_rng(20261122)
    failures, runs = 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, subscripts in KERNELS.items():
            for dtype in (np.float64, np.float32):
                C, L, R, P, D = (int(v) for v in rng.integers(1, 12, size=5))
                D = min(D, 3)
                constant = name.startswith("DataField") and dtype == np.float32
                ls, rs = shapes(name, C, L, R, P, D, constant)
                left = rng.uniform(-1, 1, ls).astype(dtype)
                right = rng.uniform(-1, 1, rs).astype(dtype)
                # Constant data (one point) is used at every point: broadcast it over the P axis.
                right_full = np.repeat(right, P, axis=1) if constant else right
                expect = np.einsum(subscripts, left.astype(np.float64), right_full.astype(np.float64))
                scale = np.einsum(subscripts, np.abs(left.astype(np.float64)), np.abs(right_full.astype(np.float64)))
                base = rng.uniform(-1, 1, expect.shape).astype(dtype)
                np.save(os.path.join(tmp, "l.npy"), left)
                np.save(os.path.join(tmp, "r.npy"), right)
                eps = np.finfo(dtype).eps
                K = P * D ** {"Scalar": 0, "Vector": 1, "Tensor": 2}[name[-6:]]
                for backend in backends:
                    for layout in ("cell-major", "cell-minor"):
                        for sum_into in (False, True):
                            out = os.path.join(tmp, "o.npy")
                            np.save(out, base)
                            cmd = [exe, "contract", "--kernel", name, "--left", os.path.join(tmp, "l.npy"),
                                   "--right", os.path.join(tmp, "r.npy"), "--out", out, "--backend", backend,
                                   "--layout", layout] + (["--sum-into"] if sum_into else [])
                            res = subprocess.run(cmd, capture_output=True, text=True)
                            if res.returncode == 3 and "no usable CUDA device" in res.stderr:  # no GPU here
                                continue
                            if res.returncode != 0:
                                print("FAILED (exit %d): %s\n%s%s" % (res.returncode, " ".join(cmd), res.stdout,
                                                                      res.stderr))
                                failures += 1
                                continue
                            got = np.load(out)
                            want = expect + (base.astype(np.float64) if sum_into else 0)
                            tol = 4 * (K + 2) * eps * (scale + (np.abs(base) if sum_into else 0)) + 1e-300
                            ok = got.dtype == dtype and got.shape == want.shape and np.all(np.abs(got - want) <= tol)
                            runs += 1
                            if not ok:
                                failures += 1
                                print("FAILED: %s %s %s %s sum_into=%s shape %s: max error %.3g" % (
                                    name, np.dtype(dtype).name, backend, layout, sum_into, ls,
                                    float(np.max(np.abs(got - want))) if got.shape == want.shape else -1))
    print("%d passed, %d failed" % (runs - failures, failures))
    return 1 if failures or runs == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
