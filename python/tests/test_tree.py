"""quoct.Tree against scipy.spatial.cKDTree and brute force on the same float64 data."""

import gc
import ctypes
import ctypes.util
import json
import pickle
import os
import weakref

import numpy as np
import pytest
from scipy.spatial import cKDTree

import quoct
from conftest import brute_ball, brute_knn, dist_sq, lattice

DIMS = [1, 2, 3, 4]


def same_lists(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert sorted(x) == sorted(y)


@pytest.mark.parametrize("m", DIMS)
def test_ball_point_equals_ckdtree(rng, m):
    pts = rng.random((3000, m))
    x = np.concatenate([rng.random((200, m)), pts[:50]])
    t, k = quoct.Tree(pts, leafsize=8), cKDTree(pts)
    r = {1: 0.005, 2: 0.05, 3: 0.12, 4: 0.25}[m]  # about 20 to 30 points a ball
    ours = t.query_ball_point(x, r, return_sorted=True)
    assert ours.dtype == object and ours.shape == (len(x),)
    theirs = k.query_ball_point(x, r, return_sorted=True)
    assert [list(v) for v in ours] == [list(v) for v in theirs]
    lengths = t.query_ball_point(x, r, return_length=True)
    np.testing.assert_array_equal(lengths, k.query_ball_point(x, r, return_length=True))
    assert lengths.sum() > len(x)  # not vacuous


@pytest.mark.parametrize("n, r", [(100, 0.9), (5000, 0.1), (70000, 0.03), (300000, 0.012)])
@pytest.mark.parametrize("workers", [1, -1])
def test_ball_point_sorted_long_rows(rng, n, r, workers):
    """Rows long enough for the radix sort of ids (64 and more), ids of 7 to 19 bits (one to
    three digit passes), short rows mixed in: each row in scipy's sorted order exactly."""
    pts = rng.random((n, 2))
    x = np.concatenate([rng.random((150, 2)), pts[:20], [[5.0, 5.0]]])
    radii = np.where(np.arange(len(x)) % 3 == 0, r / 8, r)
    t, k = quoct.Tree(pts), cKDTree(pts)
    ours = t.query_ball_point(x, radii, return_sorted=True, workers=workers)
    theirs = k.query_ball_point(x, radii, return_sorted=True)
    assert [list(v) for v in ours] == [list(v) for v in theirs]
    lengths = np.array([len(v) for v in ours])
    assert lengths.max() >= 64 and (lengths < 64).any() and lengths.min() == 0  # both paths, and empty


@pytest.mark.parametrize("m", [2, 3])
def test_ball_point_radius_array_broadcast(rng, m):
    pts = rng.random((2000, m))
    x = rng.random((6, 5, m))
    r = rng.random((6, 5)) * 0.2
    t, k = quoct.Tree(pts), cKDTree(pts)
    ours = t.query_ball_point(x, r)
    assert ours.shape == (6, 5)
    theirs = k.query_ball_point(x, r)
    same_lists(ours.ravel(), theirs.ravel())
    # r of shape (5,) broadcast against the (6, 5) leading shape
    r5 = np.linspace(0.01, 0.2, 5)
    same_lists(t.query_ball_point(x, r5).ravel(), k.query_ball_point(x, r5).ravel())
    np.testing.assert_array_equal(t.query_ball_point(x, r5, return_length=True), k.query_ball_point(x, r5, return_length=True))


@pytest.mark.parametrize("m", [2, 3, 4])
def test_lattice_points_exactly_on_the_sphere(m):
    pts = lattice(m, 5 if m < 4 else 3)
    t, k = quoct.Tree(pts, leafsize=4), cKDTree(pts)
    centres = pts[:: max(1, len(pts) // 60)]
    for r in [0.0, 1.0, 2.0, 3.0, 5.0, np.sqrt(2.0), np.sqrt(3.0)]:
        ours = t.query_ball_point(centres, r, return_sorted=True)
        for c, row in zip(centres, ours):
            assert row == brute_ball(pts, c, r)
        same_lists(ours, k.query_ball_point(centres, r))
    # The boundary is really tested: points at exactly distance 3 ((3, 0, ...), (2, 2, 1, ...)) exist.
    origin = np.zeros(m)
    on_sphere = np.nonzero(dist_sq(pts, origin) == 9.0)[0]
    assert len(on_sphere) > 0
    assert set(on_sphere) <= set(t.query_ball_point(origin, 3.0))
    assert not set(on_sphere) & set(t.query_ball_point(origin, np.nextafter(3.0, 0)))


@pytest.mark.parametrize("m", DIMS)
def test_query_knn_equals_ckdtree_and_brute_force(rng, m):
    pts = rng.random((2000, m))
    x = rng.random((100, m))
    t, k = quoct.Tree(pts), cKDTree(pts)
    for kk in [1, 10]:
        d, i = t.query(x, k=kk)
        dk, ik = k.query(x, k=kk)
        assert d.shape == dk.shape and i.shape == ik.shape
        np.testing.assert_array_equal(d, dk)  # bit for bit
        np.testing.assert_array_equal(i, ik)
        for row in range(0, len(x), 17):
            bd, bi = brute_knn(pts, x[row], kk)
            np.testing.assert_array_equal(np.atleast_1d(d[row]), bd)
            np.testing.assert_array_equal(np.atleast_1d(i[row]), bi)


def test_query_shapes_like_scipy(rng):
    pts = rng.random((500, 3))
    t, k = quoct.Tree(pts), cKDTree(pts)
    cases = [
        (pts[0], 1),
        (pts[0], 4),
        (pts[:7], 1),
        (pts[:7], 3),
        (pts[:12].reshape(3, 4, 3), 2),
        (pts[:7], [1, 3, 5]),
        (pts[0], [2]),
    ]
    for x, kk in cases:
        d, i = t.query(x, k=kk)
        dk, ik = k.query(x, k=kk)
        assert np.shape(d) == np.shape(dk) and np.shape(i) == np.shape(ik), (np.shape(x), kk)
        np.testing.assert_array_equal(d, dk)
        np.testing.assert_array_equal(i, ik)
    d, i = t.query(pts[3])
    assert d == 0.0 and i == 3


def test_query_pads_with_inf_and_n(rng):
    pts = rng.random((5, 2))
    t, k = quoct.Tree(pts), cKDTree(pts)
    d, i = t.query(pts[:3], k=8)
    dk, ik = k.query(pts[:3], k=8)
    np.testing.assert_array_equal(d, dk)
    np.testing.assert_array_equal(i, ik)
    assert np.isinf(d[:, 5:]).all() and (i[:, 5:] == 5).all()


def test_distance_upper_bound_is_closed(rng):
    pts = lattice(3, 3)
    t = quoct.Tree(pts)
    centre = np.zeros(3)
    d, i = t.query(centre, k=10, distance_upper_bound=1.0)
    bd, bi = brute_knn(pts, centre, 10, bound=1.0)
    np.testing.assert_array_equal(d, bd)
    np.testing.assert_array_equal(i, bi)
    assert (d == 1.0).sum() == 6  # the six unit neighbours, at exactly the bound
    # cKDTree's bound is open: just above 1 it takes what quoct's takes at 1 (its order
    # among the ties is its own).
    dk, ik = cKDTree(pts).query(centre, k=10, distance_upper_bound=np.nextafter(1.0, 2.0))
    np.testing.assert_array_equal(d, dk)
    assert sorted(zip(d, i)) == sorted(zip(dk, ik))
    # Random data has no point at the bound: the same answer as cKDTree.
    pts = rng.random((3000, 3))
    x = rng.random((50, 3))
    ours = quoct.Tree(pts).query(x, k=16, distance_upper_bound=0.05)
    theirs = cKDTree(pts).query(x, k=16, distance_upper_bound=0.05)
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1], theirs[1])


@pytest.mark.parametrize("workers", [1, -1])
def test_long_sorted_lists_equal_ckdtree(rng, workers):
    # Lists of tens to hundreds of ids (long ones radix sorted, short ones by std::sort), some empty
    # (centres far away), with duplicate points, and on a lattice with points on the sphere.
    pts = np.concatenate([rng.random((3000, 3)), rng.random((50, 3))[np.arange(200) % 50]])
    x = np.concatenate([rng.random((400, 3)), rng.random((40, 3)) + 5.0])
    t, k = quoct.Tree(pts), cKDTree(pts)
    for r in [0.12, 0.3]:
        ours = t.query_ball_point(x, r, workers=workers)
        theirs = k.query_ball_point(x, r)
        assert sum(map(len, ours)) >= 16 * len(x)
        for a, b in zip(ours, theirs):
            assert a == sorted(b)
    pts = lattice(3, 4)
    t = quoct.Tree(pts)
    x = pts[::7]
    ours = t.query_ball_point(x, 3.0, workers=workers)
    for c, row in zip(x, ours):
        assert row == brute_ball(pts, c, 3.0)


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_distance_upper_bound_on_lattice_against_ckdtree(m):
    # Lattice points lie exactly at the bounds sqrt(1), sqrt(2), ..., so the capped search
    # must keep a point at exactly the bound (quoct's ball is closed) and prune nothing it
    # should take, with k below and above the number of points in the ball. cKDTree's bound
    # is strict (d < bound, scipy 1.10): its answer at nextafter(bound, inf) is quoct's at
    # bound (bound > 0), up to the order among equal distances.
    pts = lattice(m, 3 if m < 4 else 2)
    centres = np.concatenate([pts[:: max(1, len(pts) // 40)], pts[:20] + 0.5])
    t, ck = quoct.Tree(pts), cKDTree(pts)
    for bound in [0.0, 1.0, np.sqrt(2.0), 2.0, np.sqrt(5.0), 3.0]:
        for k in [1, 3, 7, 40]:
            d, i = t.query(centres, k=k, distance_upper_bound=bound)
            d, i = d.reshape(len(centres), -1), i.reshape(len(centres), -1)
            for c, x in enumerate(centres):
                bd, bi = brute_knn(pts, x, k, bound=bound)
                np.testing.assert_array_equal(d[c], bd)
                np.testing.assert_array_equal(i[c], bi)
            if bound == 0:  # cKDTree takes nothing at a bound of 0 (nor just above: squared, it is 0)
                continue
            dk, ik = ck.query(centres, k=k, distance_upper_bound=np.nextafter(bound, np.inf))
            dk, ik = dk.reshape(len(centres), -1), ik.reshape(len(centres), -1)
            np.testing.assert_array_equal(d, dk)
            np.testing.assert_array_equal(i[d == np.inf], ik[dk == np.inf])  # padding: n
            for c in np.nonzero(np.isinf(d[:, -1]))[0]:  # the whole ball: the same ids
                assert set(i[c]) == set(ik[c])
            if bound == int(bound):  # cKDTree compares squares (d * d < bound**2): exact here
                ds, _ = ck.query(centres, k=k, distance_upper_bound=bound)
                assert (ds[np.isfinite(ds)] < bound).all()


def test_distance_upper_bound_periodic_and_dynamic_on_lattice():
    pts = lattice(2, 4) + 4.0  # 0..8 on both axes
    box = [9.0, 9.0]
    t, ck = quoct.Tree(pts, boxsize=box), cKDTree(pts, boxsize=box)
    x = np.array([[0.0, 0.0], [8.0, 8.0], [4.5, 0.0], [0.0, 8.5]])
    for bound in [1.0, 2.0, np.sqrt(5.0)]:
        d, i = t.query(x, k=30, distance_upper_bound=bound)  # k above any ball's count
        dk, ik = ck.query(x, k=30, distance_upper_bound=np.nextafter(bound, np.inf))
        np.testing.assert_array_equal(d, dk)
        for c in range(len(x)):
            assert set(i[c]) == set(ik[c])
    dyn = quoct.DynamicTree(pts)
    for bound in [1.0, 2.0, np.sqrt(5.0)]:
        d, i = dyn.query(x, k=7, distance_upper_bound=bound)
        for c in range(len(x)):
            bd, bi = brute_knn(pts, x[c], 7, bound=bound)
            np.testing.assert_array_equal(d[c], bd)
            np.testing.assert_array_equal(i[c], bi)


def test_ties_by_smaller_index():
    pts = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [0.0, 1.0], [2.0, 0.0]])
    t = quoct.Tree(pts)
    d, i = t.query([0.0, 0.0], k=3)
    np.testing.assert_array_equal(i, [0, 1, 2])
    np.testing.assert_array_equal(d, [1.0, 1.0, 1.0])
    d, i = t.query([0.0, 1.0], k=2)
    np.testing.assert_array_equal(i, [1, 4])  # duplicates, both at 0


@pytest.mark.parametrize("m", [1, 2, 3])
def test_query_pairs_equals_ckdtree(rng, m):
    pts = np.concatenate([rng.random((1500, m)), rng.random((20, m))[[0, 0, 1, 1]]])  # with duplicates
    t, k = quoct.Tree(pts), cKDTree(pts)
    for r in [0.0, 0.02, 0.08]:
        assert t.query_pairs(r) == k.query_pairs(r)
        arr = t.query_pairs(r, output_type="ndarray")
        theirs = k.query_pairs(r, output_type="ndarray")
        theirs = theirs[np.lexsort((theirs[:, 1], theirs[:, 0]))]
        assert arr.shape == theirs.shape and arr.dtype == np.int64
        np.testing.assert_array_equal(arr, theirs)
    assert len(t.query_pairs(0.0)) >= 2


def test_query_pairs_on_lattice_boundary():
    pts = lattice(2, 6)
    t, k = quoct.Tree(pts), cKDTree(pts)
    for r in [1.0, 5.0]:
        assert t.query_pairs(r) == k.query_pairs(r)


@pytest.mark.parametrize("m", [2, 3])
def test_count_neighbors_equals_ckdtree(rng, m):
    a, b = rng.random((800, m)), rng.random((600, m))
    ta, tb, ka, kb = quoct.Tree(a), quoct.Tree(b), cKDTree(a), cKDTree(b)
    assert ta.count_neighbors(tb, 0.1) == ka.count_neighbors(kb, 0.1)
    assert isinstance(ta.count_neighbors(tb, 0.1), int)
    r = np.array([0.0, 0.05, 0.2, 0.1, 0.3])
    np.testing.assert_array_equal(ta.count_neighbors(tb, r), ka.count_neighbors(kb, r))
    np.testing.assert_array_equal(ta.count_neighbors(ta, r), ka.count_neighbors(ka, r))
    edges = np.array([0.05, 0.1, 0.1, 0.3])
    np.testing.assert_array_equal(
        ta.count_neighbors(tb, edges, cumulative=False), ka.count_neighbors(kb, edges, cumulative=False)
    )


def test_count_neighbors_on_lattice():
    pts = lattice(3, 3)
    t, k = quoct.Tree(pts), cKDTree(pts)
    r = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(t.count_neighbors(t, r), k.count_neighbors(k, r))


@pytest.mark.parametrize("workers", [1, 2, -1])
def test_count_neighbors_workers_periodic_and_edge_cases(rng, workers):
    a, b = rng.random((700, 3)), rng.random((900, 3))
    r = np.array([0.0, 0.03, 0.1, 0.25, np.inf])
    ta, tb, ka, kb = quoct.Tree(a), quoct.Tree(b), cKDTree(a), cKDTree(b)
    np.testing.assert_array_equal(ta.count_neighbors(tb, r, workers=workers), ka.count_neighbors(kb, r))
    assert ta.count_neighbors(tb, np.inf, workers=workers) == len(a) * len(b)
    pa, pb = quoct.Tree(a, boxsize=1.0), quoct.Tree(b, boxsize=1.0)
    qa, qb = cKDTree(a, boxsize=1.0), cKDTree(b, boxsize=1.0)
    r = np.array([0.05, 0.2, 0.4])
    np.testing.assert_array_equal(pa.count_neighbors(pb, r, workers=workers), qa.count_neighbors(qb, r))
    np.testing.assert_array_equal(pa.count_neighbors(pa, r, workers=workers), qa.count_neighbors(qa, r))
    empty = quoct.Tree(np.empty((0, 3)))
    assert ta.count_neighbors(empty, 1.0, workers=workers) == 0
    assert empty.count_neighbors(ta, 1.0, workers=workers) == 0
    with pytest.raises(ValueError, match="workers"):
        ta.count_neighbors(tb, 0.1, workers=0)


@pytest.mark.parametrize("m", [2, 3])
def test_query_ball_tree_equals_ckdtree(rng, m):
    a, b = rng.random((500, m)), rng.random((700, m))
    ours = quoct.Tree(a).query_ball_tree(quoct.Tree(b), 0.1)
    theirs = cKDTree(a).query_ball_tree(cKDTree(b), 0.1)
    assert isinstance(ours, list) and len(ours) == 500
    same_lists(ours, theirs)
    assert all(row == sorted(row) for row in ours)


def test_attributes_like_ckdtree(rng):
    pts = rng.random((1000, 3)) * [1, 2, 3]
    t, k = quoct.Tree(pts), cKDTree(pts)
    assert (t.n, t.m) == (k.n, k.m) == (1000, 3)
    np.testing.assert_array_equal(t.mins, k.mins)
    np.testing.assert_array_equal(t.maxes, k.maxes)
    assert t.size >= 1 and len(t) == 1000
    # The tree does not keep the caller's array alive (it has its own copy); .data gives
    # the same values, made once from that copy.
    np.testing.assert_array_equal(t.data, pts)
    assert t.data is t.data
    gone = weakref.ref(pts)
    del pts, k
    gc.collect()
    assert gone() is None
    e = quoct.Tree(np.empty((0, 2)))
    assert e.n == 0 and e.query_ball_point([0.0, 0.0], 1.0) == []
    d, i = e.query([0.0, 0.0], k=2)
    assert np.isinf(d).all() and (i == 0).all()


@pytest.mark.parametrize("m", [2, 3])
def test_periodic_boxsize_equals_ckdtree(rng, m):
    box = np.array([1.0, 2.0, 0.5][:m])
    pts = rng.random((1500, m)) * box
    t, k = quoct.Tree(pts, boxsize=box), cKDTree(pts, boxsize=box)
    x = rng.random((100, m)) * box
    for r in [0.05, 0.2]:
        same_lists(t.query_ball_point(x, r), k.query_ball_point(x, r))
        assert t.query_pairs(r) == k.query_pairs(r)
    # Query points outside the box are wrapped, as cKDTree does.
    outside = x + box * rng.integers(-2, 3, size=x.shape)
    same_lists(t.query_ball_point(outside, 0.1), k.query_ball_point(outside, 0.1))
    other = rng.random((300, m)) * box
    to, ko = quoct.Tree(other, boxsize=box), cKDTree(other, boxsize=box)
    same_lists(t.query_ball_tree(to, 0.1), k.query_ball_tree(ko, 0.1))
    r = np.array([0.05, 0.1, 0.3])
    np.testing.assert_array_equal(t.count_neighbors(to, r), k.count_neighbors(ko, r))
    # k nearest under the minimum image, query points inside and outside the box.
    for q in (x, outside):
        for kk in (1, 7):
            d, i = t.query(q, k=kk)
            dk, ik = k.query(q, k=kk)
            np.testing.assert_array_equal(i, ik)
            np.testing.assert_allclose(d, dk, rtol=1e-14, atol=0)


def test_periodic_open_axis_and_scalar_boxsize(rng):
    pts = rng.random((800, 2)) * [1.0, 5.0]
    t, k = quoct.Tree(pts, boxsize=[1.0, 0.0]), cKDTree(pts, boxsize=[1.0, 0.0])
    assert t.query_pairs(0.1) == k.query_pairs(0.1)
    pts = rng.random((800, 3))
    t, k = quoct.Tree(pts, boxsize=1.0), cKDTree(pts, boxsize=1.0)
    np.testing.assert_array_equal(t.boxsize, [1.0, 1.0, 1.0])
    assert t.query_pairs(0.05) == k.query_pairs(0.05)


def test_float32_input_is_widened_like_ckdtree(rng):
    pts = rng.random((2000, 3)).astype(np.float32)
    x = rng.random((50, 3)).astype(np.float32)
    t, k = quoct.Tree(pts), cKDTree(pts)
    assert t.data.dtype == np.float64
    same_lists(t.query_ball_point(x, 0.1), k.query_ball_point(x, 0.1))
    d, i = t.query(x, k=5)
    dk, ik = k.query(x, k=5)
    np.testing.assert_array_equal(d, dk)
    np.testing.assert_array_equal(i, ik)


def test_non_contiguous_and_other_dtypes(rng):
    base = rng.random((3000, 6))
    strided = base[::2, 1:4]  # neither C- nor F-contiguous
    assert not strided.flags.c_contiguous
    fortran = np.asfortranarray(base[:, :3])
    ints = rng.integers(-50, 50, size=(1500, 3))
    for pts in [strided, fortran, ints, ints.astype(np.int16), ints.astype(np.uint8), ints.tolist()]:
        t, k = quoct.Tree(pts), cKDTree(np.asarray(pts, dtype=np.float64))
        x = np.asarray(pts, dtype=np.float64)[:40:3]
        r = 10.0 if np.asarray(pts).dtype.kind in "iu" else 0.1
        same_lists(t.query_ball_point(x, r), k.query_ball_point(x, r))
        xq = x[:, ::-1][:, ::-1]  # a non-contiguous query array
        np.testing.assert_array_equal(t.query(xq, k=3)[0], k.query(xq, k=3)[0])


@pytest.mark.parametrize("workers", [2, -1])
def test_workers_give_the_same_answer(rng, workers):
    pts = rng.random((20000, 3))
    x = rng.random((5000, 3))
    t = quoct.Tree(pts)
    one = t.query_ball_point(x, 0.05, return_sorted=True)
    many = t.query_ball_point(x, 0.05, return_sorted=True, workers=workers)
    assert [list(a) for a in one] == [list(b) for b in many]
    np.testing.assert_array_equal(
        t.query_ball_point(x, 0.05, return_length=True), t.query_ball_point(x, 0.05, return_length=True, workers=workers)
    )
    for kk in [1, 10]:
        d1, i1 = t.query(x, k=kk)
        dw, iw = t.query(x, k=kk, workers=workers)
        np.testing.assert_array_equal(d1, dw)
        np.testing.assert_array_equal(i1, iw)
    np.testing.assert_array_equal(
        t.query_pairs(0.01, output_type="ndarray"), t.query_pairs(0.01, output_type="ndarray", workers=workers)
    )


def test_sparse_distance_matrix_against_brute_force():
    # Integer lattice points: distances sqrt(k) exactly at the bound are included (closed).
    a = lattice(3, 2)
    b = lattice(3, 2) + [0.5, 0, 0]
    t, u = quoct.Tree(a), quoct.Tree(b)
    r = 1.5  # offsets (1.5, 0, 0) and (0.5, 1, 1) lie exactly at it
    want = {}
    for j, q in enumerate(b):
        s = dist_sq(a, q)
        for i in np.nonzero(s <= r * r)[0]:
            want[(int(i), j)] = float(np.sqrt(s[i]))
    assert any((dist_sq(a, q) == r * r).any() for q in b)  # boundary pairs exist
    got = t.sparse_distance_matrix(u, r, output_type="dict")
    assert got == want
    assert all(type(i) is int and type(v) is float for (i, _), v in got.items())
    coo = t.sparse_distance_matrix(u, r, output_type="coo_matrix")
    dok = t.sparse_distance_matrix(u, r)
    arr = t.sparse_distance_matrix(u, r, output_type="ndarray")
    assert coo.shape == dok.shape == (len(a), len(b))
    assert {(int(i), int(j)): v for i, j, v in zip(coo.row, coo.col, coo.data)} == want
    assert dict(dok.items()) == want
    assert {(int(i), int(j)): v for i, j, v in arr} == want
    # A tree with itself: the pairs at distance 0 are entries too.
    zero = t.sparse_distance_matrix(t, 1.0, output_type="dict")
    assert all(zero[(i, i)] == 0.0 for i in range(len(a)))
    assert len(t.sparse_distance_matrix(t, 1.0, output_type="ndarray")) == len(zero)
    # Distances at the ends of the range, as the tree decides them (no overflow or
    # underflow of the squares): the pair 3e200 apart is within 4e200, not within 2e200.
    far = quoct.Tree([[0.0, 0.0], [3e200, 0.0]])
    assert far.sparse_distance_matrix(far, 2e200, output_type="dict") == {(0, 0): 0.0, (1, 1): 0.0}
    assert far.sparse_distance_matrix(far, 4e200, output_type="dict")[(0, 1)] == 3e200
    near = quoct.Tree([[0.0, 0.0], [2e-200, 0.0]])
    assert near.sparse_distance_matrix(near, 1e-190, output_type="dict")[(0, 1)] == 2e-200
    assert (0, 1) not in near.sparse_distance_matrix(near, 1e-200, output_type="dict")
    with pytest.raises(ValueError, match="output_type"):
        t.sparse_distance_matrix(u, r, output_type="list")
    with pytest.raises(ValueError, match="max_distance"):
        t.sparse_distance_matrix(u, -1.0)


def test_count_neighbors_weights_against_brute_force(rng):
    a, b = rng.random((60, 2)), rng.random((80, 2))
    wa, wb = rng.random(60), rng.random(80)
    t, u = quoct.Tree(a), quoct.Tree(b)
    radii = np.array([0.05, 0.1, 0.2, 0.4])
    s = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
    w = wa[:, None] * wb[None, :]
    want = [w[s <= r * r].sum() for r in radii]
    np.testing.assert_allclose(t.count_neighbors(u, radii, weights=(wa, wb)), want, rtol=1e-12)
    np.testing.assert_allclose(t.count_neighbors(u, radii, weights=(wa, None)),
                               [np.broadcast_to(wa[:, None], s.shape)[s <= r * r].sum() for r in radii], rtol=1e-12)
    binned = t.count_neighbors(u, radii, weights=(wa, wb), cumulative=False)
    np.testing.assert_allclose(np.cumsum(binned), want, rtol=1e-12)
    # Unit weights give the unweighted counts, as floats.
    ones = t.count_neighbors(u, radii, weights=(np.ones(60), np.ones(80)))
    assert ones.dtype == np.float64
    np.testing.assert_array_equal(ones, t.count_neighbors(u, radii))
    assert isinstance(t.count_neighbors(u, 0.1, weights=(wa, wb)), float)
    with pytest.raises(ValueError, match="one weights array"):
        t.count_neighbors(u, radii, weights=wa)
    # At the ends of the range, weighted counts decide as the unweighted ones (the tree).
    for pts, rs in (([[0.0, 0.0], [2e-200, 0.0]], [1e-200, 1e-190]), ([[0.0, 0.0], [3e200, 0.0]], [2e200, 4e200])):
        e = quoct.Tree(pts)
        np.testing.assert_array_equal(e.count_neighbors(e, rs, weights=(np.ones(2), np.ones(2))), e.count_neighbors(e, rs))
    with pytest.raises(ValueError, match="shape"):
        t.count_neighbors(u, radii, weights=(wa[:-1], wb))
    same = t.count_neighbors(t, radii, weights=wa)
    sa = ((a[:, None, :] - a[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(same, [(wa[:, None] * wa[None, :])[sa <= r * r].sum() for r in radii], rtol=1e-12)


def test_single_query_gives_python_scalars_and_workers_minus_one(rng, monkeypatch):
    t = quoct.Tree(rng.random((100, 3)))
    d, i = t.query([0.5, 0.5, 0.5])
    assert type(d) is float and type(i) is int
    assert json.dumps([d, i])
    d3, i3 = t.query([0.5, 0.5, 0.5], k=3)
    assert d3.shape == (3,) and i3.shape == (3,)
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    with pytest.raises(NotImplementedError, match="Cannot determine the"):
        t.query([0.5, 0.5, 0.5], workers=-1)


_libm = ctypes.CDLL(ctypes.util.find_library("m"))
_libm.pow.restype = ctypes.c_double
_libm.pow.argtypes = (ctypes.c_double, ctypes.c_double)


def c_pow(x, y):
    """C's pow (inf on overflow, 0 on underflow), as the trees compute it."""
    return _libm.pow(float(x), float(y))


def minkowski_values(a, x, p, boxsize=None):
    """The value each row of a has against x by the trees' predicate of Minkowski p: the
    axis gaps (minimum image where boxsize wraps), summed (p = 1), their largest (inf),
    or the sum of C's pow(gap, p) in axis order."""
    d = np.abs(np.asarray(a, dtype=float) - np.asarray(x, dtype=float))
    if boxsize is not None:
        box = np.broadcast_to(np.asarray(boxsize, dtype=float), d.shape[-1:])
        d = np.where(box > 0, np.minimum(d, box - d), d)
    if p == 1:
        return d.sum(axis=1)
    if p == np.inf:
        return d.max(axis=1)
    out = np.zeros(len(d))
    for axis in range(d.shape[1]):
        out = out + np.array([c_pow(g, p) for g in d[:, axis]])
    return out


def minkowski_bound(r, p):
    return r if p in (1, np.inf) else c_pow(r, p)


def minkowski_distance(v, p):
    return v if p in (1, np.inf) else c_pow(v, 1 / p)


MINKOWSKI_P = [1, np.inf, 3, 1.5, 7.25]


@pytest.mark.parametrize("boxsize", [None, 7.0])
@pytest.mark.parametrize("p", MINKOWSKI_P)
def test_minkowski_p_against_brute_force(p, boxsize):
    # Integer lattice: many points exactly at distance r (closed balls), many ties. With a
    # boxsize of 7 the lattice [0, 6]^3 fills the box: neighbours across the wrap too.
    pts = lattice(3, 3) + (3 if boxsize else 0)
    t = quoct.Tree(pts, boxsize=boxsize)
    centres = np.array([[0, 0, 0], [1, 2, 3], [0.5, 0.5, 0], [6.5, 0, 3]])
    centres = centres if boxsize else centres - 1

    def dist(a, x):
        return minkowski_values(a, x, p, boxsize)

    for x in centres:
        dd = dist(pts, x)
        for r in (0.0, 1.0, 2.0, 3.5):
            want = sorted(np.nonzero(dd <= minkowski_bound(r, p))[0].tolist())
            assert t.query_ball_point(x, r, p=p, return_sorted=True) == want
            assert t.query_ball_point(x, r, p=p, return_length=True) == len(want)
        order = np.lexsort((np.arange(len(pts)), dd))[:7]  # by (value, index)
        d, i = t.query(x, k=7, p=p)
        np.testing.assert_array_equal(i, order)
        np.testing.assert_array_equal(d, [minkowski_distance(v, p) for v in dd[order]])
        d, i = t.query(x, k=40, p=p, distance_upper_bound=1.0)
        inside = [j for j in np.lexsort((np.arange(len(pts)), dd)) if dd[j] <= minkowski_bound(1.0, p)][:40]
        np.testing.assert_array_equal(i[: len(inside)], inside)
        assert (i[len(inside):] == len(pts)).all() and np.isinf(d[len(inside):]).all()  # padding
        assert len(inside) < 40
    # Pairs, trees, counts and distances through the same predicate.
    other = quoct.Tree((pts[::3] + 0.5) % 7 if boxsize else pts[::3] + 0.5, boxsize=boxsize)
    r = 2.0
    lists = t.query_ball_tree(other, r, p=p)
    for a, row in enumerate(lists):
        assert row == sorted(np.nonzero(dist(other.data, pts[a]) <= minkowski_bound(r, p))[0].tolist())
    want = [sum((dist(other.data, q) <= minkowski_bound(rr, p)).sum() for q in pts) for rr in (1.0, 2.0)]
    counted = t.count_neighbors(other, [1.0, 2.0], p=p)
    assert counted.dtype == np.int64 and counted.tolist() == want
    binned = t.count_neighbors(other, [1.0, 2.0], p=p, cumulative=False)
    assert binned.dtype == np.int64 and binned.tolist() == [want[0], want[1] - want[0]]
    assert type(t.count_neighbors(other, 2.0, p=p)) is int
    weighted = t.count_neighbors(other, [1.0, 2.0], p=p, weights=(np.ones(len(pts)), np.full(other.n, 2.0)))
    np.testing.assert_array_equal(weighted, 2.0 * np.array(want))
    pairs = t.query_pairs(1.0, p=p)
    assert pairs == {(a, b) for a in range(len(pts)) for b in range(a + 1, len(pts))
                     if dist(pts[b:b + 1], pts[a])[0] <= minkowski_bound(1.0, p)}
    m = t.sparse_distance_matrix(other, r, p=p, output_type="dict")
    assert m == {(a, b): minkowski_distance(float(dist(other.data[b:b + 1], pts[a])[0]), p)
                 for a, row in enumerate(lists) for b in row}


def test_minkowski_large_p_overflow_and_underflow():
    # p = 100: gaps above ~1.2e3 overflow to inf (outside any finite r whose power is
    # finite), gaps below ~1e-3 underflow to 0 (inside every ball): the predicate as written.
    pts = np.array([[0.0, 0.0], [2000.0, 0.0], [1e-4, 1e-4], [0.5, 0.5], [1.0, 0.0]])
    t = quoct.Tree(pts)
    for r in (0.0, 1e-5, 0.5, 1.0, 1e3, 1e4):
        want = [i for i, v in enumerate(minkowski_values(pts, [0, 0], 100)) if v <= minkowski_bound(r, 100)]
        assert t.query_ball_point([0, 0], r, p=100, return_sorted=True) == want


def test_ckdtree_argument_habits(rng):
    # A scalar query on a 1-D tree, k=2.0, k=None: as cKDTree takes them.
    one = rng.random((50, 1))
    t, c = quoct.Tree(one), cKDTree(one)
    d, i = t.query(0.5)
    assert (d, i) == c.query(0.5) and type(i) is int
    assert sorted(t.query_ball_point(0.5, 0.1)) == sorted(c.query_ball_point(0.5, 0.1))
    two = rng.random((50, 2))
    t2 = quoct.Tree(two)
    np.testing.assert_array_equal(t2.query([0.5, 0.5], k=2.0)[1], t2.query([0.5, 0.5], k=2)[1])
    with pytest.raises(TypeError):
        t2.query([0.5, 0.5], k=None)
    with pytest.raises(ValueError, match="k must be"):
        t2.query([0.5, 0.5], k=2.5)


@pytest.mark.parametrize("m", [5, 6, 8])
def test_five_to_eight_dimensions_against_brute_force(rng, m, tmp_path):
    # Half-integer coordinates on a coarse grid: many points exactly at distance r.
    pts = rng.integers(0, 4, size=(600, m)) / 2.0
    t = quoct.Tree(pts, leafsize=4)
    x = pts[:20]
    for r in (0.0, 0.5, 1.0, 1.5):
        want = [brute_ball(pts, q, r) for q in x]
        assert [sorted(row) for row in t.query_ball_point(x, r)] == want
        assert t.query_ball_point(x, r, return_length=True).tolist() == [len(w) for w in want]
    d, i = t.query(x + 0.25, k=6)
    for row_d, row_i, q in zip(d, i, x + 0.25):
        bd, bi = brute_knn(pts, q, 6)
        assert row_i.tolist() == bi.tolist()
        np.testing.assert_array_equal(row_d, bd)
    want_pairs = {(a, b) for a in range(len(pts)) for b in brute_ball(pts, pts[a], 0.5) if a < b}
    assert t.query_pairs(0.5) == want_pairs
    assert t.count_neighbors(t, [0.5, 1.0]).tolist() == [
        sum(len(brute_ball(pts, q, r)) for q in pts) for r in (0.5, 1.0)]
    for p in (1, np.inf, 3):
        assert t.query_ball_point(x[0], 1.0, p=p, return_sorted=True) == np.nonzero(
            minkowski_values(pts, x[0], p) <= minkowski_bound(1.0, p))[0].tolist()
    t.save(tmp_path / "t.quoct")
    np.testing.assert_array_equal(quoct.Tree.load(tmp_path / "t.quoct").data, pts)
    assert pickle.loads(pickle.dumps(t)).query_ball_point(x[1], 1.0, return_sorted=True) == brute_ball(pts, x[1], 1.0)


def float32_values(pts32, q32):
    """Squared distances by the float32 predicate: differences, squares and the sum in axis
    order, each rounded to float32 (no overflow or underflow at these scales)."""
    s = np.zeros(len(pts32), dtype=np.float32)
    for axis in range(pts32.shape[1]):
        d = pts32[:, axis] - q32[axis]
        s = s + d * d
    return s


@pytest.mark.parametrize("m", [2, 3, 7])
def test_float32_tree_answers_by_the_float32_predicate(rng, m):
    # Coordinates on a grid of 1/64: many ties and points exactly at r, in float32 too.
    pts = (rng.integers(0, 64, size=(3000, m)) / 64).astype(np.float32)
    t = quoct.Tree(pts, dtype=np.float32)
    assert t.dtype == np.float32 and t.data.dtype == np.float32
    np.testing.assert_array_equal(t.data, pts)
    x = pts[:30].astype(np.float64)
    for r in (0.0, 0.0625, 0.25):
        got = t.query_ball_point(x, r)
        for q, row in zip(pts[:30], got):
            assert sorted(row) == np.nonzero(float32_values(pts, q) <= np.float32(r) * np.float32(r))[0].tolist()
    d, i = t.query(x + 1 / 128, k=5)
    assert d.dtype == np.float64
    for q, row_d, row_i in zip((x + 1 / 128).astype(np.float32), d, i):
        s = float32_values(pts, q)
        order = np.lexsort((np.arange(len(pts)), s))[:5]
        assert row_i.tolist() == order.tolist()
        np.testing.assert_array_equal(row_d, np.sqrt(s[order]).astype(np.float64))
    # Float64 points are rounded to float32.
    shifted = pts.astype(np.float64) + 1e-12
    np.testing.assert_array_equal(quoct.Tree(shifted, dtype=np.float32).data, shifted.astype(np.float32))
    # Pairs and weights in float32 too: unit weights give the unweighted counts, every p.
    u = quoct.Tree(pts[::7], dtype=np.float32)
    radii = [0.0625, 0.125]
    for p in (2, 1, np.inf, 3):
        np.testing.assert_array_equal(
            t.count_neighbors(u, radii, p=p, weights=(np.ones(t.n), np.ones(u.n))), t.count_neighbors(u, radii, p=p))
        assert len(t.sparse_distance_matrix(u, 0.125, p=p, output_type="ndarray")) == t.count_neighbors(u, 0.125, p=p)
    # Pickle and files keep the dtype; the points take half the bytes.
    back = pickle.loads(pickle.dumps(t))
    assert back.dtype == np.float32
    assert back.query_ball_point(x[:3], 0.125).tolist() == t.query_ball_point(x[:3], 0.125).tolist()
    assert len(pickle.dumps(t)) < 0.8 * len(pickle.dumps(quoct.Tree(pts)))


def test_indices_and_the_node_view_describe_the_tree(rng):
    pts = rng.random((3000, 3))
    t = quoct.Tree(pts, leafsize=8)
    assert sorted(t.indices.tolist()) == list(range(t.n))
    assert not t.indices.flags.writeable
    root = t.tree
    assert (root.level, root.start_idx, root.end_idx, root.children) == (0, 0, t.n, t.n)
    np.testing.assert_array_equal(np.sort(root.indices), np.arange(t.n))
    np.testing.assert_array_equal(root.data_points, pts[root.indices])
    seen = 0

    def walk(node):
        nonlocal seen
        seen += 1
        np.testing.assert_array_equal(node.mins, node.data_points.min(axis=0))  # exact bounds
        np.testing.assert_array_equal(node.maxes, node.data_points.max(axis=0))
        if node.leaf:
            assert node.nodes == [] and node.lesser is None and node.children <= 8
            return
        kids = node.nodes
        assert 2 <= len(kids) <= 8
        assert kids[0].start_idx == node.start_idx and kids[-1].end_idx == node.end_idx
        for a, b in zip(kids, kids[1:]):
            assert a.end_idx == b.start_idx
        for k in kids:
            assert k.level == node.level + 1
            walk(k)

    walk(root)
    assert seen == t.size
    assert quoct.Tree(np.empty((0, 2))).tree is None
    # Two distinct values, leafsize 1: a root and two leaves, as cKDTree's lesser and greater.
    data = np.ones((64, 3))
    data[32:] = 2
    two = quoct.Tree(data, leafsize=1)
    assert two.size == 3
    np.testing.assert_array_equal(np.sort(two.tree.lesser.indices), np.arange(32))
    np.testing.assert_array_equal(np.sort(two.tree.greater.indices), np.arange(32, 64))
    # The view of a mapped tree reads the same nodes.
    back = pickle.loads(pickle.dumps(t))
    np.testing.assert_array_equal(back.indices, t.indices)
    assert [n.children for n in back.tree.nodes] == [n.children for n in t.tree.nodes]


def test_float32_periodic_edges_and_huge_p(rng):
    # The periods a float32 tree uses are float32: a pickled or loaded copy pairs with it.
    t = quoct.Tree(rng.random((200, 3)) * 0.1, boxsize=0.1, dtype=np.float32)
    u = pickle.loads(pickle.dumps(t))
    np.testing.assert_array_equal(t.boxsize, u.boxsize)
    assert t.count_neighbors(u, 0.02) == t.count_neighbors(t, 0.02)
    # A period that is 0 or infinite in float32 is refused, not silently left open.
    with pytest.raises(ValueError, match="0 or infinite in float32"):
        quoct.Tree(np.zeros((2, 2)), boxsize=1e-46, dtype=np.float32)
    with pytest.raises(ValueError, match="0 or infinite in float32"):
        quoct.Tree(np.zeros((2, 2)), boxsize=1e39, dtype=np.float32)
    # A float64 coordinate that rounds to the period in float32 is the point 0 of the torus.
    w = quoct.Tree([[0.99999999, 0.5], [0.25, 0.5]], boxsize=1.0, dtype=np.float32)
    assert w.data[0, 0] == 0 and w.query_ball_point([0.0, 0.5], 0.0) == [0]
    # The same float32 array as input is the user's: a coordinate equal to the period is refused.
    with pytest.raises(ValueError, match="outside the periodic"):
        quoct.Tree(np.array([[1.0, 0.5]], dtype=np.float32), boxsize=1.0, dtype=np.float32)
    # A p that is infinite in float32 is p = inf there.
    f = quoct.Tree([[0, 0], [0.55, 0], [0.9, 0]], dtype=np.float32)
    d, i = f.query([0, 0], k=3, p=1e39)
    np.testing.assert_array_equal(d, np.array([0, 0.55, 0.9], dtype=np.float32).astype(np.float64))
    assert f.query_ball_point([0, 0], 0.5, p=1e39) == [0]
