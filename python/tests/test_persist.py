"""Saving, loading, mapping and pickling quoct's indexes: every answer after a round trip
equals the answer of the index that was saved (itself checked against scipy elsewhere);
bad files raise quoct.FileError."""
import copy
import multiprocessing
import os
import pickle

import numpy as np
import pytest
import quoct
import quoct.geo


def _answers(t, x):
    """Every query kind of a Tree or DynamicTree at the points x."""
    out = {
        "ball": [sorted(ids) for ids in t.query_ball_point(x, 0.05)],
        "count": t.query_ball_point(x, 0.05, return_length=True).tolist(),
        "knn": [a.tolist() for a in t.query(x, k=5)],
        "capped": [a.tolist() for a in t.query(x, k=3, distance_upper_bound=0.02)],
    }
    if isinstance(t, quoct.Tree):
        out["pairs"] = sorted(map(tuple, t.query_pairs(0.02, output_type="ndarray").tolist()))
        out["neighbors"] = t.count_neighbors(t, [0.01, 0.05]).tolist()
    return out


@pytest.fixture
def points():
    rng = np.random.default_rng(5)
    return np.vstack([rng.random((3000, 3)), np.repeat(rng.random((1, 3)), 40, axis=0)])


@pytest.mark.parametrize("mmap", [True, False])
@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_tree_save_load(tmp_path, m, mmap):
    rng = np.random.default_rng(m)
    data = rng.random((2000, m))
    t = quoct.Tree(data, leafsize=7)
    path = tmp_path / "t.quoct"
    t.save(path)
    back = quoct.Tree.load(path, mmap=mmap)
    x = rng.random((50, m))
    assert _answers(back, x) == _answers(t, x)
    assert (back.n, back.m, back.leafsize, back.size) == (t.n, t.m, 7, t.size)
    np.testing.assert_array_equal(back.mins, t.mins)
    np.testing.assert_array_equal(back.maxes, t.maxes)
    np.testing.assert_array_equal(back.data, data)  # the points by id, from the file
    assert back.boxsize is None


def test_tree_periodic_and_float32(tmp_path):
    rng = np.random.default_rng(2)
    data = (rng.random((2000, 2)) * 10).astype(np.float32)
    t = quoct.Tree(data, boxsize=[10, 0])
    t.save(str(tmp_path / "p.quoct"))
    back = quoct.Tree.load(str(tmp_path / "p.quoct"))
    np.testing.assert_array_equal(back.boxsize, [10, 0])
    x = rng.random((40, 2)) * 10
    x[0] = [9.99, 5]  # across the wrap
    assert _answers(back, x) == _answers(t, x)
    np.testing.assert_array_equal(back.data, data.astype(np.float64))


def test_empty_tree(tmp_path):
    t = quoct.Tree(np.empty((0, 3)))
    t.save(tmp_path / "e.quoct")
    back = quoct.Tree.load(tmp_path / "e.quoct")
    assert back.n == 0 and back.data.shape == (0, 3)
    assert pickle.loads(pickle.dumps(t)).query_ball_point([0.5, 0.5, 0.5], 1.0) == []


def test_tree_pickle_deepcopy(points):
    t = quoct.Tree(points)
    x = points[:60] + 0.001
    for other in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t), copy.copy(t), pickle.loads(pickle.dumps(t, protocol=5))):
        assert _answers(other, x) == _answers(t, x)
        np.testing.assert_array_equal(other.data, points)


def test_mapped_tree_pickles_too(tmp_path, points):
    t = quoct.Tree(points)
    t.save(tmp_path / "t.quoct")
    mapped = quoct.Tree.load(tmp_path / "t.quoct")
    os.remove(tmp_path / "t.quoct")  # the mapping outlives the name
    x = points[:30]
    assert _answers(pickle.loads(pickle.dumps(mapped)), x) == _answers(t, x)


def _worker_query(args):
    tree, x = args
    return [sorted(ids) for ids in tree.query_ball_point(x, 0.05)], tree.query(x, k=4)[1].tolist()


def _worker_open(args):
    path, x = args
    tree = quoct.Tree.load(path)
    return [sorted(ids) for ids in tree.query_ball_point(x, 0.05)], tree.query(x, k=4)[1].tolist()


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_multiprocessing(tmp_path, points, method):
    t = quoct.Tree(points)
    t.save(tmp_path / "t.quoct")
    chunks = [points[i:i + 20] for i in range(0, 80, 20)]
    expected = [_worker_query((t, x)) for x in chunks]
    with multiprocessing.get_context(method).Pool(2) as pool:
        assert pool.map(_worker_query, [(t, x) for x in chunks]) == expected
        assert pool.map(_worker_open, [(str(tmp_path / "t.quoct"), x) for x in chunks]) == expected


def _mapped_file_pages(path):
    """(mappings, resident kB, shared kB) of this process's mappings of the file at path
    (Linux). Shared counts clean and dirty pages: on tmpfs a file's pages stay dirty."""
    maps = rss = shared = 0
    inside = False
    with open("/proc/self/smaps") as f:
        for line in f:
            fields = line.split(None, 5)
            if "-" in fields[0] and ":" not in fields[0]:  # a mapping's header line
                inside = len(fields) == 6 and os.path.realpath(fields[5].rstrip("\n")) == path
                maps += inside
            elif inside and fields[0] == "Rss:":
                rss += int(fields[1])
            elif inside and fields[0] in ("Shared_Clean:", "Shared_Dirty:"):
                shared += int(fields[1])
    return maps, rss, shared


def _worker_mapped(args):
    path, x = args
    tree = quoct.Tree.load(path, mmap=True)
    tree.query(x, k=1)  # touches the leaf of every point
    return _mapped_file_pages(path)


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="needs Linux's /proc/self/smaps")
def test_mapped_tree_shares_pages_between_processes(tmp_path):
    # A tree loaded with mmap=True reads its file's pages in place: another process that maps
    # the same file uses the same physical pages (shared), where a loaded copy would map
    # none of the file.
    x = np.random.default_rng(2).random((60000, 3))
    path = os.path.realpath(tmp_path / "t.quoct")
    quoct.Tree(x).save(path)
    mine = quoct.Tree.load(path, mmap=True)
    mine.query(x, k=1)
    maps, rss, _ = _mapped_file_pages(path)
    if rss == 0:
        pytest.skip("this kernel reports no resident pages in smaps")
    assert maps >= 1 and rss > 0.5 * os.path.getsize(path) / 1024  # the points were read from the mapping
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        _, their_rss, their_shared = pool.map(_worker_mapped, [(path, x)])[0]
    assert their_rss > 0 and their_shared >= 0.9 * their_rss
    assert mine.query(x[:10], k=1)[1].tolist() == list(range(10))
    copied = quoct.Tree.load(path, mmap=False)
    assert copied.n == mine.n
    assert _mapped_file_pages(path)[0] == maps  # loading a copy maps nothing of the file


def test_dynamic_save_load_pickle(tmp_path):
    rng = np.random.default_rng(9)
    d = quoct.DynamicTree(rng.random((1500, 3)), leafsize=9)
    for _ in range(400):
        d.insert(rng.random(3))
    for i in range(0, 1800, 3):
        d.erase(i)
    for i in range(1, 600, 7):
        if i in d:
            d.move(i, rng.random(3))
    d.save(tmp_path / "d.quoct")
    x = rng.random((40, 3))
    for back in (quoct.DynamicTree.load(tmp_path / "d.quoct"), pickle.loads(pickle.dumps(d)), copy.deepcopy(d)):
        assert (back.n, back.m, back.id_bound, back.leafsize) == (d.n, d.m, d.id_bound, 9)
        assert _answers(back, x) == _answers(d, x)
        assert all((i in back) == (i in d) for i in range(d.id_bound))
        p = rng.random(3)
        assert back.insert(p) == d.id_bound  # the next id goes on from the saved one
        assert 0 not in back and 1 in back


def test_dynamic_pickles_as_it_grows():
    # Pickled as points go in one at a time: past 1,300 inserts its first side tree has been
    # folded into the second and emptied (a state that once failed to load back).
    rng = np.random.default_rng(10)
    d = quoct.DynamicTree(rng.random((5000, 3)))
    x = rng.random((8, 3))
    for step in range(1, 1601):
        d.insert(rng.random(3))
        if step % 100 == 0:
            back = pickle.loads(pickle.dumps(d))
            assert back.n == d.n == 5000 + step
            assert _answers(back, x) == _answers(d, x)


def test_geo_save_load_pickle(tmp_path):
    rng = np.random.default_rng(3)
    lon = np.concatenate([rng.uniform(-180, 180, 5000), [180.0, -180.0, 0.0, 12.5]])
    lat = np.concatenate([rng.uniform(-90, 90, 5000), [0.0, 10.0, 90.0, -90.0]])
    g = quoct.geo.Index(lon, lat)
    g.save(tmp_path / "g.quoct")
    for back in (quoct.geo.Index.load(tmp_path / "g.quoct"), quoct.geo.Index.load(tmp_path / "g.quoct", mmap=False),
                 pickle.loads(pickle.dumps(g))):
        assert back.n == g.n
        np.testing.assert_array_equal(back.lon, lon)
        np.testing.assert_array_equal(back.lat, lat)
        for c in [(2.35, 48.86), (180, 0), (-180, -89.9), (0, 90)]:
            np.testing.assert_array_equal(back.within(*c, 800), g.within(*c, 800))
            for a, b in zip(back.nearest(*c, 6), g.nearest(*c, 6)):
                np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(back.box(170, -10, -170, 10), g.box(170, -10, -170, 10))


def _section(data, name):
    """The offset and length of section `name` in index file bytes (docs/file-format.md)."""
    count = int.from_bytes(data[24:28], "little")
    for i in range(count):
        row = data[128 + 64 * i: 192 + 64 * i]
        if row[:32].rstrip(b"\0").decode() == name:
            return int.from_bytes(row[32:40], "little"), int.from_bytes(row[40:48], "little")
    raise KeyError(name)


def test_errors(tmp_path, points):
    t = quoct.Tree(points)
    path = tmp_path / "t.quoct"
    t.save(path)
    good = path.read_bytes()
    assert issubclass(quoct.FileError, OSError)
    with pytest.raises(quoct.FileError, match="cannot open"):
        quoct.Tree.load(tmp_path / "missing.quoct")
    with pytest.raises(quoct.FileError, match="nothing was changed|cannot create"):
        t.save(tmp_path / "no" / "dir" / "t.quoct")
    (tmp_path / "c.csv").write_text("lon,lat\n1,2\n")
    with pytest.raises(quoct.FileError, match="not a quoct index file"):
        quoct.Tree.load(tmp_path / "c.csv")
    with pytest.raises(quoct.FileError, match="not a quoct.DynamicTree"):
        quoct.DynamicTree.load(path)
    with pytest.raises(quoct.FileError, match=r"holds orthtree<double, 3, uint32>, asked for geo::index<uint32>"):
        quoct.geo.Index.load(path)
    quoct.geo.Index([1.0], [2.0]).save(tmp_path / "g.quoct")
    with pytest.raises(quoct.FileError, match=r"holds geo::index<uint32>, not a quoct.Tree"):
        quoct.Tree.load(tmp_path / "g.quoct")
    path.write_bytes(good[: len(good) // 2])
    for mmap in (True, False):
        with pytest.raises(quoct.FileError, match="truncated"):
            quoct.Tree.load(path, mmap=mmap)
    coords_at, coords_bytes = _section(good, "coords")
    damaged = bytearray(good)
    damaged[coords_at + coords_bytes - 8] ^= 0xFF  # the last point's last coordinate
    path.write_bytes(bytes(damaged))
    with pytest.raises(quoct.FileError, match="checksum mismatch in section 'coords'"):
        quoct.Tree.load(path, mmap=False)
    mapped = quoct.Tree.load(path, mmap=True)  # reads the header and the block checksums only
    with pytest.raises(quoct.FileError, match="checksum mismatch in section 'coords'"):
        mapped.query(points.mean(axis=0), k=len(points))  # reads every point
    pickled = bytearray(pickle.dumps(t))
    pickled[pickled.find(good[coords_at:coords_at + 100]) + 50] ^= 1  # inside the file's bytes in the pickle
    with pytest.raises(quoct.FileError, match="checksum"):
        pickle.loads(bytes(pickled))
