"""Bad input gets a ValueError with a clear message (never a crash), the tree is left
as it was, and the GIL is released while quoct works."""

import sys
import threading
import time

import numpy as np
import pytest

import quoct


@pytest.fixture
def tree(rng):
    return quoct.Tree(rng.random((500, 3)))


@pytest.mark.parametrize(
    "data, message",
    [
        (np.array([[0.0, 1.0], [np.nan, 2.0]]), "point 1 has a NaN or infinite coordinate"),
        (np.array([[0.0, 1.0], [1.0, np.inf]]), "point 1 has a NaN or infinite coordinate"),
        (np.zeros(5), r"shape \(n, m\)"),
        (np.zeros((4, 9)), "1 to 8 columns"),
        (np.zeros((4, 0)), "1 to 8 columns"),
        (np.array([["a", "b"]]), "real numbers"),
        (np.array([[1 + 2j, 0]]), "real numbers"),
        (np.array([[1, None]], dtype=object), "real numbers"),
        ([[1.0, 2.0], [3.0]], "not a numeric array"),
    ],
)
def test_bad_data(data, message):
    with pytest.raises(ValueError, match=message):
        quoct.Tree(data)


def test_bad_dtype_and_dynamic_dimensions():
    with pytest.raises(ValueError, match="dtype must be float64 or float32"):
        quoct.Tree(np.zeros((4, 2)), dtype=np.int32)
    with pytest.raises(ValueError, match="dtype must be float64 or float32"):
        quoct.Tree(np.zeros((4, 2)), dtype="float16")
    # A float64 beyond float32's range becomes inf in a float32 tree: refused, naming the row.
    with pytest.raises(ValueError, match="point 1 has a NaN or infinite coordinate"):
        quoct.Tree(np.array([[0.0, 1.0], [1e300, 2.0]]), dtype=np.float32)
    with pytest.raises(ValueError, match="1 to 4 columns"):
        quoct.DynamicTree(np.zeros((4, 5)))
    a, b = quoct.Tree(np.zeros((4, 2))), quoct.Tree(np.zeros((4, 2)), dtype=np.float32)
    with pytest.raises(ValueError, match="same dtype"):
        a.query_ball_tree(b, 0.1)


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_default_leafsize_is_the_cpp_default(rng, m):
    pts = rng.random((5000, m))
    expected = {1: 48, 2: 32, 3: 48, 4: 48}[m]
    assert quoct._core.default_leaf_size(m) == expected
    t = quoct.Tree(pts)
    assert t.leafsize == expected
    assert t.size == quoct.Tree(pts, leafsize=expected).size
    assert t.size != quoct.Tree(pts, leafsize=expected + 8).size
    assert quoct.DynamicTree(pts).leafsize == expected


def test_bad_build_options(rng):
    pts = rng.random((10, 2))
    with pytest.raises(ValueError, match="leafsize"):
        quoct.Tree(pts, leafsize=0)
    with pytest.raises(ValueError, match="boxsize"):
        quoct.Tree(pts, boxsize=[1.0, -1.0])
    with pytest.raises(ValueError, match="boxsize"):
        quoct.Tree(pts, boxsize=[1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="outside the periodic domain"):
        quoct.Tree(pts + 1.0, boxsize=1.0)


def test_bad_queries_raise_and_leave_the_tree_as_it_was(tree, rng):
    x = rng.random((20, 3))
    before = tree.query_ball_point(x, 0.2, return_sorted=True)
    bad_x = x.copy()
    bad_x[7, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        tree.query_ball_point(bad_x, 0.2)
    with pytest.raises(ValueError, match="NaN or infinite"):
        tree.query(bad_x, k=2, workers=-1)
    with pytest.raises(ValueError, match="negative"):
        tree.query_ball_point(x, -0.1)
    with pytest.raises(ValueError, match="NaN"):
        tree.query_ball_point(x, np.full(20, np.nan), workers=2)
    with pytest.raises(ValueError, match=r"shape \(\.\.\., 3\)"):
        tree.query_ball_point(x[:, :2], 0.1)
    with pytest.raises(ValueError, match="broadcast"):
        tree.query_ball_point(x, np.ones(3))
    with pytest.raises(ValueError, match="k must be"):
        tree.query(x, k=0)
    with pytest.raises(ValueError, match="k must be"):
        tree.query(x, k=[0, 1])
    with pytest.raises(ValueError, match="k must be"):
        tree.query(x, k=1.5)
    with pytest.raises(ValueError, match="p must be >= 1"):
        tree.query(x, p=float("nan"))
    with pytest.raises(ValueError, match="p must be >= 1"):
        tree.query_ball_point(x, 0.1, p=0.5)
    with pytest.raises(ValueError, match="workers"):
        tree.query(x, workers=0)
    with pytest.raises(ValueError, match="distance_upper_bound"):
        tree.query(x, distance_upper_bound=-1.0)
    with pytest.raises(ValueError, match=">= 0"):
        tree.query_pairs(-1.0)
    with pytest.raises(ValueError, match="output_type"):
        tree.query_pairs(0.1, output_type="list")
    with pytest.raises(ValueError, match="quoct.Tree"):
        tree.count_neighbors(object(), 0.1)
    with pytest.raises(ValueError, match="dimensions"):
        tree.query_ball_tree(quoct.Tree(rng.random((5, 2))), 0.1)
    with pytest.raises(ValueError, match=">= 0"):
        tree.count_neighbors(tree, [0.1, -0.1])
    with pytest.raises(ValueError, match="non-decreasing"):
        tree.count_neighbors(tree, [0.2, 0.1], cumulative=False)
    with pytest.raises(ValueError, match="shape"):
        tree.count_neighbors(tree, 0.1, weights=np.ones(499))
    after = tree.query_ball_point(x, 0.2, return_sorted=True)
    assert [list(a) for a in before] == [list(b) for b in after]


def test_knn_on_a_periodic_tree_refuses_nan(rng):
    t = quoct.Tree(rng.random((50, 2)), boxsize=1.0)
    with pytest.raises(ValueError):
        t.query([np.nan, 0.5], k=2)


def test_many_python_threads_query_one_tree(rng):
    pts = rng.random((20000, 3))
    t = quoct.Tree(pts)
    x = rng.random((2000, 3))
    expected = t.query_ball_point(x, 0.05, return_length=True)
    results = [None] * 8

    def work(j):
        results[j] = t.query_ball_point(x, 0.05, return_length=True)

    threads = [threading.Thread(target=work, args=(j,)) for j in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for r in results:
        np.testing.assert_array_equal(r, expected)


def test_gil_is_released_while_querying(rng):
    # With a long switch interval the main thread never hands the GIL over between
    # bytecodes, so the counter thread can only advance while quoct has released it. The
    # counter gives the GIL back at every step (sleep(0)), so quoct gets it back at once.
    pts = rng.random((200000, 3))
    t = quoct.Tree(pts)
    x = rng.random((200000, 3))
    state = {"count": 0, "stop": False}

    def spin():
        while not state["stop"]:
            state["count"] += 1
            time.sleep(0)

    old = sys.getswitchinterval()
    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        sys.setswitchinterval(100.0)
        moved = False
        for _ in range(5):
            before = state["count"]
            t.query_ball_point(x, 0.02, return_length=True)
            if state["count"] != before:
                moved = True
                break
    finally:
        sys.setswitchinterval(old)
        state["stop"] = True
        spinner.join()
    assert moved
