"""Shared oracles for the quoct Python tests: brute force in numpy with quoct's predicate
(squares summed over the axes in order, float64), and scipy.spatial.cKDTree."""

import os
import pathlib

import numpy as np
import pytest


def dist_sq(points, x):
    """Squared distances from x (m,) to every row of points, summed axis by axis in order,
    as quoct (and cKDTree) do."""
    d = np.zeros(len(points))
    for a in range(points.shape[1]):
        d = d + (points[:, a] - x[a]) ** 2
    return d


def brute_ball(points, x, r):
    """Ids of the points with dist_sq <= r * r, increasing."""
    return np.nonzero(dist_sq(points, x) <= r * r)[0].tolist()


def brute_knn(points, x, k, bound=np.inf):
    """The first k of (dist_sq, id) order among points with dist_sq <= bound**2, padded."""
    d2 = dist_sq(points, x)
    keep = np.nonzero(d2 <= bound * bound)[0]
    order = keep[np.lexsort((keep, d2[keep]))][:k]
    d = np.full(k, np.inf)
    i = np.full(k, len(points), dtype=np.int64)
    d[: len(order)] = np.sqrt(d2[order])
    i[: len(order)] = order
    return d, i


@pytest.fixture
def rng():
    return np.random.default_rng(20261123)


def data_dir():
    return pathlib.Path(os.environ.get("QUOCT_DATA_DIR", pathlib.Path(__file__).resolve().parents[2] / "data"))


def lattice(m, half):
    """Integer lattice points in [-half, half]^m: many lie exactly on spheres of integer
    radius about a lattice point (e.g. (3, 4, 0) at 5), so boundaries are tested exactly."""
    axes = [np.arange(-half, half + 1, dtype=np.float64)] * m
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, m)
