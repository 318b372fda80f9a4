"""quoct.BoxTree against brute force in numpy: boxes meeting a box or a ball, boxes holding a
point, the k nearest boxes, every overlapping pair and the join, on integer boxes (shared
faces and corners, degenerate boxes, duplicates) in 2-D and 3-D; bad input refused."""

import numpy as np
import pytest

import quoct


def make_boxes(n, m, seed):
    rng = np.random.default_rng(seed)
    lo = rng.integers(-10, 10, size=(n, m)).astype(float)
    hi = lo + rng.integers(0, 4, size=(n, m))
    return lo, hi


def meets(lo, hi, qlo, qhi):
    return np.nonzero(np.all((lo <= qhi) & (qlo <= hi), axis=1))[0]


def gap_sq(lo, hi, x):
    g = x - np.clip(x, lo, hi)
    return (g * g).sum(axis=1)


@pytest.mark.parametrize("m", [2, 3])
def test_queries_equal_brute_force(m):
    lo, hi = make_boxes(3000, m, 1 + m)
    t = quoct.BoxTree(lo, hi)
    assert len(t) == 3000 and t.n == 3000
    np.testing.assert_array_equal(t.mins, lo)
    np.testing.assert_array_equal(t.maxes, hi)
    rng = np.random.default_rng(7)
    qlo = rng.integers(-12, 12, size=(40, m)).astype(float)
    qhi = qlo + rng.integers(0, 5, size=(40, m))
    got = t.query_box(qlo, qhi, workers=2)
    for i in range(40):
        np.testing.assert_array_equal(got[i], meets(lo, hi, qlo[i], qhi[i]))
    np.testing.assert_array_equal(t.query_box(qlo[0], qhi[0]), meets(lo, hi, qlo[0], qhi[0]))
    x = rng.integers(-13, 13, size=(40, m)).astype(float)
    r = rng.integers(0, 4, size=40).astype(float)
    got = t.query_ball_point(x, r)
    for i in range(40):
        np.testing.assert_array_equal(got[i], np.nonzero(gap_sq(lo, hi, x[i]) <= r[i] * r[i])[0])
    got = t.query_point(x, workers=2)
    for i in range(40):
        np.testing.assert_array_equal(got[i], meets(lo, hi, x[i], x[i]))
    d, ids = t.query(x, k=5)
    assert d.shape == (40, 5) and ids.shape == (40, 5)
    for i in range(40):
        g = gap_sq(lo, hi, x[i])
        want = np.lexsort((np.arange(len(g)), g))[:5]
        np.testing.assert_array_equal(ids[i], want)
        np.testing.assert_allclose(d[i], np.sqrt(g[want]))
    da, ia = t.query(x, k=5, ties="any")  # the same distances; any boxes at them
    np.testing.assert_array_equal(da, d)
    for i in range(40):
        assert len(set(ia[i].tolist())) == 5
        np.testing.assert_allclose(np.sqrt(gap_sq(lo, hi, x[i])[ia[i]]), da[i])
    d1, i1 = t.query(x[3])
    assert np.isscalar(i1) or np.ndim(i1) == 0
    assert int(i1) == np.lexsort((np.arange(3000), gap_sq(lo, hi, x[3])))[0]


@pytest.mark.parametrize("m", [2, 3])
def test_pairs_and_join_equal_brute_force(m):
    lo, hi = make_boxes(700, m, 11)
    t = quoct.BoxTree(lo, hi)
    want = [(a, b) for a in range(700) for b in meets(lo, hi, lo[a], hi[a]) if b > a]
    got = t.query_pairs(workers=2)
    assert got.shape == (len(want), 2)
    assert [tuple(p) for p in got.tolist()] == want
    lo2, hi2 = make_boxes(300, m, 12)
    other = quoct.BoxTree(lo2, hi2)
    rows = t.query_box_tree(other, workers=2)
    assert len(rows) == 300
    for i in range(300):
        np.testing.assert_array_equal(rows[i], meets(lo, hi, lo2[i], hi2[i]))


def test_fewer_boxes_than_k_and_empty_tree():
    t = quoct.BoxTree([[0.0, 0.0], [2.0, 2.0]], [[1.0, 1.0], [3.0, 3.0]])
    d, i = t.query([[1.5, 1.5]], k=4)
    assert list(i[0]) == [0, 1, 2, 2]
    assert np.isinf(d[0, 2:]).all()
    empty = quoct.BoxTree(np.empty((0, 3)), np.empty((0, 3)))
    assert len(empty) == 0 and len(empty.query_pairs()) == 0
    assert len(empty.query_point([0.0, 0.0, 0.0])) == 0


def test_bad_input_is_refused():
    lo, hi = make_boxes(20, 2, 3)
    bad = hi.copy()
    bad[7, 1] = lo[7, 1] - 1
    with pytest.raises(ValueError, match="box 7"):
        quoct.BoxTree(lo, bad)
    bad = lo.copy()
    bad[4, 0] = np.nan
    with pytest.raises(ValueError, match="box 4"):
        quoct.BoxTree(bad, hi)
    with pytest.raises(ValueError):
        quoct.BoxTree(lo, hi[:5])
    with pytest.raises(ValueError):
        quoct.BoxTree(np.zeros((3, 4)), np.zeros((3, 4)))
    t = quoct.BoxTree(lo, hi)
    with pytest.raises(ValueError):
        t.query_box([1.0, 1.0], [0.0, 2.0])
    with pytest.raises(ValueError):
        t.query_ball_point([0.0, 0.0], -1.0)
    with pytest.raises(ValueError):
        t.query([0.0, np.nan], k=2)
    with pytest.raises(ValueError):
        t.query([0.0, 0.0], k=0)
    with pytest.raises(ValueError, match="ties"):
        t.query([0.0, 0.0], k=1, ties="first")
    with pytest.raises(ValueError):
        t.query_point([0.0, 0.0, 0.0])
    with pytest.raises(ValueError):
        t.query_box_tree(quoct.BoxTree(np.zeros((1, 3)), np.zeros((1, 3))))


def test_float32_and_infinite_query_bounds():
    lo, hi = make_boxes(500, 3, 5)
    t = quoct.BoxTree(lo.astype(np.float32), hi.astype(np.float32))
    inf = np.inf
    np.testing.assert_array_equal(t.query_box([-inf, -inf, 0.0], [inf, 0.0, inf]),
                                  meets(lo, hi, np.array([-inf, -inf, 0.0]), np.array([inf, 0.0, inf])))
