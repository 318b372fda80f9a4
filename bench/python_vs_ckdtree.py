#!/usr/bin/env python3
"""quoct.Tree against scipy.spatial.cKDTree from Python, in one process, on the same data
and the same queries; prints each operation's time for both and the ratio (cKDTree's time
over quoct's: above 1, quoct is faster).

Workloads (fixed seeds): uniform3d (n points uniform in the unit cube), clustered3d (64
Gaussian blobs of very different size and weight plus 2% background, like the C++
benchmarks), bunny3d (n points sampled by area on the Stanford bunny's surface,
data/bunny*.csv), cities2d (the 135k cities of data/cities.csv as lon, lat), scales3d
(distances from the origin log-uniform over 1e-20..1e20) and lastbits3d (points equal but
for their last 12 bits); the last two only when named in --workloads, and on scales3d only
build and k nearest (no one radius suits data at every scale).

Operations: build; query_ball_point for `--centres` balls centred on data points in random
order, radius calibrated for 32 and 256 results on average (lists, and
return_length=True counts); query k=1 and k=10 at the same centres; query_pairs (ndarray output) with the
radius of 4 results per point on average. Each timed on 1 worker and on every core
(workers=-1; build and query_pairs have no workers in cKDTree and are timed once).
Best of --repeat runs. Answers are checked to agree (counts and k=10 distances).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_vs_ckdtree.py --json out.json --markdown out.md
    (or, with quoct installed by pip, just python3 bench/python_vs_ckdtree.py)
"""

import argparse
import csv
import gc
import json
import os
import pathlib
import platform
import sys
import time

import numpy as np
import scipy
from scipy.spatial import cKDTree

import quoct

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"


def uniform3d(n, rng):
    return rng.random((n, 3))


def clustered3d(n, rng):
    blobs = 64
    centres = rng.uniform(0.1, 0.9, (blobs, 3))
    sigma = 0.0005 * 200.0 ** rng.random(blobs)  # 0.0005 .. 0.1
    weight = rng.random(blobs) ** 3 + 0.01  # a few heavy blobs, many light
    background = rng.random(n) < 0.02
    which = rng.choice(blobs, size=n, p=weight / weight.sum())
    pts = centres[which] + sigma[which, None] * rng.standard_normal((n, 3))
    pts[background] = rng.random((background.sum(), 3))
    return pts


def bunny3d(n, rng):
    verts = np.loadtxt(DATA / "bunny.csv", delimiter=",", skiprows=1)
    faces = np.loadtxt(DATA / "bunny_faces.csv", delimiter=",", skiprows=1, dtype=np.int64)
    a, b, c = verts[faces[:, 0]], verts[faces[:, 1]], verts[faces[:, 2]]
    area = 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1)
    tri = rng.choice(len(faces), size=n, p=area / area.sum())
    u, v = rng.random(n), rng.random(n)
    flip = u + v > 1
    u[flip], v[flip] = 1 - u[flip], 1 - v[flip]
    return a[tri] + u[:, None] * (b[tri] - a[tri]) + v[:, None] * (c[tri] - a[tri])


def cities2d(n, rng):
    with open(DATA / "cities.csv", newline="", encoding="utf-8") as f:
        rows = [(float(r["lon"]), float(r["lat"])) for r in csv.DictReader(f)]
    return np.array(rows)


def scales3d(n, rng):
    """Distances from the origin log-uniform over 1e-20..1e20, in random directions: data at
    every scale (a zoom-in simulation, metres mixing planetary and laboratory sizes)."""
    direction = rng.standard_normal((n, 3))
    direction /= np.linalg.norm(direction, axis=1)[:, None]
    return direction * 10.0 ** rng.uniform(-20, 20, n)[:, None]


def lastbits3d(n, rng):
    """Points equal but for their last 12 bits: 1 + j ulp on each axis, j < 4096."""
    return 1.0 + rng.integers(0, 4096, (n, 3)) * np.finfo(np.float64).eps


WORKLOADS = {"uniform3d": uniform3d, "clustered3d": clustered3d, "bunny3d": bunny3d, "cities2d": cities2d,
             "scales3d": scales3d, "lastbits3d": lastbits3d}


GC_OFF = False  # --gc-off: Python's cyclic garbage collector disabled while timing


def best_of(repeat, fn):
    """The shortest of `repeat` runs of fn(), in seconds, and its last result."""
    best, out = np.inf, None
    for _ in range(repeat):
        out = None
        gc.collect()
        if GC_OFF:
            gc.disable()
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
        gc.enable()
    return best, out


def radius_for(tree, centres, k):
    """The radius whose balls hold k points on average over the first 2000 centres (found by
    bisection on the mean count). The mean, not the median of k-th neighbour distances: on
    clustered data that median is set by the sparse centres, and the balls of the dense
    ones then hold tens of thousands of points."""
    sample = centres[:2000]
    d, _ = tree.query(sample, k=k)
    lo, hi = float(d[:, -1].min()), float(d[:, -1].max())
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if tree.query_ball_point(sample, mid, return_length=True, workers=-1).mean() < k:
            lo = mid
        else:
            hi = mid
    return hi


def run_workload(name, pts, args, rng):
    rows = []

    def record(op, workers, t_quoct, t_scipy):
        rows.append({"workload": name, "op": op, "workers": workers, "quoct_s": t_quoct, "ckdtree_s": t_scipy,
                     "ratio": t_scipy / t_quoct})
        print(f"{name:12s} {op:22s} {workers:>4} quoct {t_quoct * 1e3:10.1f} ms  cKDTree {t_scipy * 1e3:10.1f} ms"
              f"  ratio {t_scipy / t_quoct:6.2f}", flush=True)

    tq, qt = best_of(args.repeat, lambda: quoct.Tree(pts))
    ts, st = best_of(args.repeat, lambda: cKDTree(pts))
    record("build", "-", tq, ts)
    centres = pts[rng.choice(len(pts), size=min(args.centres, len(pts)), replace=False)]
    # One radius for every ball means nothing on data at every scale (a mean of 32 points
    # puts hundreds of thousands in the balls near the origin): k nearest only there.
    for target in (32, 256) if name != "scales3d" else ():
        r = radius_for(qt, centres, target)
        print(f"{name:12s} radius for {target} on average: {r:.6g}", flush=True)
        for workers, label in ((1, "1"), (-1, "all")):
            tq, nq = best_of(args.repeat, lambda: qt.query_ball_point(centres, r, return_length=True, workers=workers))
            ts, ns = best_of(args.repeat, lambda: st.query_ball_point(centres, r, return_length=True, workers=workers))
            assert (nq == ns).all(), "counts differ"
            record(f"count{target}", label, tq, ts)
            tq, lq = best_of(args.repeat, lambda: qt.query_ball_point(centres, r, workers=workers))
            del lq
            ts, ls = best_of(args.repeat, lambda: st.query_ball_point(centres, r, workers=workers))
            del ls
            record(f"radius{target}", label, tq, ts)
    for k in (1, 10):
        for workers, label in ((1, "1"), (-1, "all")):
            tq, (dq, _) = best_of(args.repeat, lambda: qt.query(centres, k=k, workers=workers))
            ts, (ds, _) = best_of(args.repeat, lambda: st.query(centres, k=k, workers=workers))
            assert (dq == ds).all(), "distances differ"
            record(f"knn{k}", label, tq, ts)
    if name == "scales3d":
        return rows
    r = radius_for(qt, centres, 4)
    tq, pq = best_of(args.repeat, lambda: qt.query_pairs(r, output_type="ndarray"))
    ts, ps = best_of(args.repeat, lambda: st.query_pairs(r, output_type="ndarray"))
    assert len(pq) == len(ps), "pair counts differ"
    record("pairs4", "1", tq, ts)
    tq, _ = best_of(args.repeat, lambda: qt.query_pairs(r, output_type="ndarray", workers=-1))
    record("pairs4", "all", tq, ts)  # cKDTree's query_pairs has no workers: its 1-worker time
    return rows


def markdown(rows):
    ops = []
    for r in rows:
        key = (r["op"], r["workers"])
        if key not in ops:
            ops.append(key)
    names = list(dict.fromkeys(r["workload"] for r in rows))
    cell = {(r["workload"], r["op"], r["workers"]): r["ratio"] for r in rows}
    out = ["| operation | workers | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for op, w in ops:
        vals = [f"{cell[(n, op, w)]:.2f}x" if (n, op, w) in cell else "—" for n in names]
        out.append(f"| {op} | {w} | " + " | ".join(vals) + " |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="points per synthetic workload (cities: all 135k)")
    ap.add_argument("--centres", type=int, default=100_000, help="query centres")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept")
    ap.add_argument("--workloads", default="uniform3d,clustered3d,bunny3d,cities2d",
                    help="comma-separated, from " + ",".join(WORKLOADS))
    ap.add_argument("--gc-off", action="store_true",
                    help="disable Python's cyclic GC while timing (quoct pauses it itself while it makes lists; "
                         "cKDTree does not, so this times both without it)")
    ap.add_argument("--json", help="write the raw rows here")
    ap.add_argument("--markdown", help="write the ratio table here")
    args = ap.parse_args()
    global GC_OFF
    GC_OFF = args.gc_off
    rows = []
    meta = {"quoct": quoct.__version__, "scipy": scipy.__version__, "numpy": np.__version__,
            "python": sys.version.split()[0], "cpus": os.cpu_count(), "machine": platform.machine(),
            "n": args.n, "centres": args.centres, "repeat": args.repeat, "gc_off": args.gc_off}
    meta["loadavg"] = {"start": os.getloadavg()}  # 1, 5 and 15 minutes: other work on the machine
    for name in args.workloads.split(","):
        rng = np.random.default_rng(20261123)
        rows += run_workload(name, WORKLOADS[name](args.n, rng), args, rng)
        meta["loadavg"][f"after {name}"] = os.getloadavg()
        write(args, meta, rows)  # after each workload, so a long run leaves what it measured
    print(markdown(rows))


def write(args, meta, rows):
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    if args.markdown:
        pathlib.Path(args.markdown).write_text(
            f"quoct {meta['quoct']} vs scipy {meta['scipy']} cKDTree, n = {args.n}, {args.centres} centres, "
            f"best of {args.repeat}, {meta['cpus']} CPUs{', GC off' if args.gc_off else ''}. "
            "Ratio = cKDTree time / quoct time.\n\nLoad average (1, 5, 15 min): "
            + "; ".join(f"{k} {v[0]:.2f} {v[1]:.2f} {v[2]:.2f}" for k, v in meta["loadavg"].items())
            + "\n\n" + markdown(rows))

if __name__ == "__main__":
    main()
