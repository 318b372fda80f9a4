#!/usr/bin/env python3
"""Memory of Python spatial indexes, each measured in a process of its own: quoct.Tree,
quoct.DynamicTree and quoct.geo.Index against scipy's cKDTree, pykdtree's KDTree and
scikit-learn's KDTree (those found), on n uniform 3D float64 points (lon/lat for geo.Index),
and quoct.Tree(dtype=float32) on the same points given as float32.

For each, in MiB of resident memory, counting the points once: what the index holds after
the build, the caller's array deleted (cKDTree keeps that array alive, quoct keeps a copy
of its own: either way the points are in the figure, once); the peak while building (the
kernel's high-water mark, reset just before the build through /proc/self/clear_refs, with
the caller's array, which every library needs then); and what it holds after a first list
query (query_ball_point for 1,000 centres, the result deleted, or each library's
equivalent); plus the build time. Each figure is the process's resident size less what it
held before the points were made.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_memory.py [--n 1000000] [--json out.json]

Linux only (it reads /proc/self/status). Figures move by a few tenths of a MiB between runs.
"""

import argparse
import json
import os
import subprocess
import sys

LIBRARIES = ["quoct.Tree", "quoct.Tree float32", "quoct.DynamicTree", "quoct.geo.Index", "cKDTree", "pykdtree", "sklearn"]

CHILD = r"""
import gc, sys, time, json
import numpy as np

def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) / 1024.0
    raise RuntimeError(key)

def reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")

name, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(7)
if name == "quoct.geo.Index":
    pts = np.column_stack([rng.uniform(-180, 180, n), np.degrees(np.arcsin(rng.uniform(-1, 1, n)))])
else:
    pts = rng.random((n, 3))
centres = pts[rng.choice(n, 1000, replace=False)].copy()
if name == "quoct.Tree float32":  # float32 points in, a float32 tree (the data is then 12 bytes a point)
    pts = pts.astype(np.float32)
# Load the library before the baseline, so that its code is not counted.
if name.startswith("quoct"):
    import quoct, quoct.geo
elif name == "cKDTree":
    from scipy.spatial import cKDTree
elif name == "pykdtree":
    from pykdtree.kdtree import KDTree as PyKD
else:
    from sklearn.neighbors import KDTree as SkKD
gc.collect()
points_mib = pts.nbytes / 2**20
base = status("VmRSS") - points_mib  # the process before the points
reset_peak()
t0 = time.perf_counter()
if name == "quoct.Tree":
    t = quoct.Tree(pts)
elif name == "quoct.Tree float32":
    t = quoct.Tree(pts, dtype=np.float32)
elif name == "quoct.DynamicTree":
    t = quoct.DynamicTree(pts)
elif name == "quoct.geo.Index":
    t = quoct.geo.Index(pts[:, 0], pts[:, 1])
elif name == "cKDTree":
    t = cKDTree(pts)
elif name == "pykdtree":
    t = PyKD(pts)
else:
    t = SkKD(pts)
seconds = time.perf_counter() - t0
peak = status("VmHWM") - base
del pts
gc.collect()
kept = status("VmRSS") - base
if name == "quoct.geo.Index":
    r = [t.within(lon, lat, 50.0) for lon, lat in centres]
elif name == "pykdtree":
    r = t.query(centres, k=32)  # pykdtree has no radius lists: its k-nearest, k = 32
elif name == "sklearn":
    r = t.query_radius(centres, r=0.06)
else:
    r = t.query_ball_point(centres, r=0.06)
del r
gc.collect()
after = status("VmRSS") - base
print(json.dumps({"library": name, "n": n, "kept_mib": kept, "peak_mib": peak, "after_query_mib": after,
                  "build_s": seconds}))
"""


def available(name):
    module = {"cKDTree": "scipy.spatial", "pykdtree": "pykdtree.kdtree", "sklearn": "sklearn.neighbors"}.get(name, "quoct")
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--json", help="also write the rows to this JSON file")
    args = ap.parse_args()
    rows = []
    print(f"{args.n} points; MiB (resident); data itself {args.n * 24 / 2**20:.1f} MiB (3D float64)")
    print(f"{'library':20} {'kept':>7} {'peak':>7} {'after list':>10} {'build s':>8}")
    for name in LIBRARIES:
        if not available(name):
            print(f"{name:20} not installed")
            continue
        out = subprocess.run([sys.executable, "-c", CHILD, name, str(args.n)], capture_output=True, text=True,
                             env=os.environ.copy())
        if out.returncode != 0:
            print(f"{name:20} failed: {out.stderr.strip().splitlines()[-1] if out.stderr else out.returncode}")
            continue
        row = json.loads(out.stdout)
        rows.append(row)
        print(f"{name:20} {row['kept_mib']:7.1f} {row['peak_mib']:7.1f} {row['after_query_mib']:10.1f} {row['build_s']:8.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
