#!/usr/bin/env python3
"""quoct.Tree against scipy's cKDTree, pykdtree's KDTree and scikit-learn's KDTree (those
installed), in one process, on the same data and queries: build, k nearest (k = 1 and 10)
and radius lists (about 32 results each; pykdtree has none), best of --repeat runs, one
thread each (OMP_NUM_THREADS=1 for pykdtree, unless set otherwise; workers=1 for the others).
Prints seconds and each peer's time over quoct's (above 1: quoct is faster), and checks
that the answers agree (k = 10 distances; list lengths).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_peers.py [--n 1000000] [--centres 100000]

Debian: python3-scipy python3-pykdtree python3-sklearn.
"""
import argparse
import os
import time

# One thread for pykdtree too (OpenMP; read when its runtime starts, so set before import).
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import quoct  # noqa: E402


def best(repeat, fn):
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--centres", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(11)
    pts = rng.random((args.n, 3))
    x = pts[rng.choice(args.n, args.centres, replace=False)].copy()
    r = (32 / args.n * 3 / (4 * np.pi)) ** (1 / 3)  # about 32 points per ball

    def quoct_tree():
        return quoct.Tree, "query", "query_ball_point"

    def ckdtree():
        from scipy.spatial import cKDTree

        return cKDTree, "query", "query_ball_point"

    def pykdtree():
        from pykdtree.kdtree import KDTree

        return KDTree, "query", None  # no radius lists

    def sklearn():
        from sklearn.neighbors import KDTree

        return KDTree, "query", "query_radius"

    rows = {}
    for name, library in (("quoct.Tree", quoct_tree), ("cKDTree", ckdtree), ("pykdtree", pykdtree), ("sklearn", sklearn)):
        try:
            make, query, radius = library()
        except ImportError:
            continue
        t, index = best(args.repeat, lambda: make(pts))
        rows[name] = {
            "build": t,
            "k=1": best(args.repeat, lambda: getattr(index, query)(x, k=1))[0],
            "k=10": best(args.repeat, lambda: getattr(index, query)(x, k=10)),
        }
        if radius is not None:
            rows[name]["lists"] = best(args.repeat, lambda: getattr(index, radius)(x, r))

    # The answers agree: k = 10 distances, and the lengths of the lists.
    ours_d = rows["quoct.Tree"]["k=10"][1][0]
    ours_len = np.array([len(row) for row in rows["quoct.Tree"]["lists"][1]])
    for name, row in rows.items():
        d = row["k=10"][1][0]
        assert np.allclose(np.asarray(d, dtype=np.float64), ours_d, rtol=1e-12), name
        if "lists" in row:
            assert (np.array([len(v) for v in row["lists"][1]]) == ours_len).all(), name

    print(f"{args.n} uniform 3D float64 points, {args.centres} centres, r for ~32 results, best of {args.repeat}, 1 thread")
    print(f"{'':12} {'build s':>9} {'k=1 s':>9} {'k=10 s':>9} {'lists s':>9}   peer / quoct")
    base = rows["quoct.Tree"]
    for name, row in rows.items():
        cells = [row["build"], row["k=1"], row["k=10"][0], row["lists"][0] if "lists" in row else None]
        text = " ".join(f"{c:9.3f}" if c is not None else f"{'-':>9}" for c in cells)
        ratios = []
        if name != "quoct.Tree":
            for key, c in zip(("build", "k=1", "k=10", "lists"), cells):
                if c is None:
                    continue
                b = base[key] if key in ("build", "k=1") else base[key][0]
                ratios.append(f"{key} {c / b:.2f}x")
        print(f"{name:12} {text}   {', '.join(ratios)}")


if __name__ == "__main__":
    main()
