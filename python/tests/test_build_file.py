"""quoct.Tree.build_file against Tree(...).save: the same file, byte for byte, from arrays,
numpy memmaps, LAS files (written here from the specification's tables), PLY and XYZ files, within the
smallest memory limit (many sorted runs, the tree built in parts); the errors a user meets
leave any old file as it was."""

import numpy as np
import pytest

import quoct
from test_las import FORMAT1, las_bytes


def saved(tree, path):
    tree.save(path)
    return path.read_bytes()


@pytest.mark.parametrize("m", [2, 3])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_an_array_gives_the_file_save_writes(tmp_path, m, dtype):
    rng = np.random.default_rng(m)
    pts = rng.integers(-500, 500, size=(20000, m)) / 4  # dyadic, with duplicates
    quoct.Tree.build_file(pts, tmp_path / "built.quoct", memory_limit=0, dtype=dtype)
    assert (tmp_path / "built.quoct").read_bytes() == saved(quoct.Tree(pts, dtype=dtype), tmp_path / "saved.quoct")
    tree = quoct.Tree.load(tmp_path / "built.quoct")
    q = np.zeros(m)
    got = sorted(tree.query_ball_point(q, 20.0))
    want = np.flatnonzero(((pts.astype(dtype).astype(np.float64) - q) ** 2).sum(axis=1) <= 400.0).tolist()
    assert got == want


def test_a_memmap_is_read_in_chunks_into_the_same_file(tmp_path):
    rng = np.random.default_rng(7)
    raw = tmp_path / "points.f32"
    mm = np.memmap(raw, dtype=np.float32, mode="w+", shape=(30000, 3))
    mm[:] = rng.normal(size=(30000, 3)).astype(np.float32)
    mm.flush()
    src = np.memmap(raw, dtype=np.float32, mode="r", shape=(30000, 3))
    quoct.Tree.build_file(src, tmp_path / "mm.quoct", memory_limit=0, leafsize=8, dtype=np.float32)
    want = saved(quoct.Tree(np.asarray(src), leafsize=8, dtype=np.float32), tmp_path / "saved.quoct")
    assert (tmp_path / "mm.quoct").read_bytes() == want


def test_a_las_file_gives_the_file_of_its_points(tmp_path):
    rng = np.random.default_rng(11)
    n = 12000
    rec = np.zeros(n, dtype=FORMAT1)
    rec["X"] = rng.integers(0, 4000, n)
    rec["Y"] = rng.integers(0, 4000, n)
    rec["Z"] = rng.integers(0, 400, n)
    scale, offset = (0.25, 0.25, 0.25), (1000.0, 2000.0, 0.0)
    xyz = np.stack([rec[a].astype(np.float64) * s + o for a, s, o in zip("XYZ", scale, offset)], axis=1)
    las = tmp_path / "cloud.las"
    las.write_bytes(las_bytes(rec, 1, 2, scale, offset, xyz.min(axis=0), xyz.max(axis=0)))
    quoct.Tree.build_file(las, tmp_path / "cloud.quoct", memory_limit=0)
    assert (tmp_path / "cloud.quoct").read_bytes() == saved(quoct.Tree(xyz), tmp_path / "saved.quoct")


def test_ply_and_xyz_files_give_the_file_of_their_points(tmp_path):
    rng = np.random.default_rng(12)
    xyz = rng.integers(-4000, 4000, size=(12000, 3)) / 8  # dyadic: exact in text and float32
    text = tmp_path / "cloud.XYZ"
    np.savetxt(text, xyz, fmt="%.17g", header="x y z")
    ply = tmp_path / "cloud.ply"
    ply.write_bytes(b"ply\nformat binary_little_endian 1.0\nelement vertex %d\n" % len(xyz) +
                    b"property float x\nproperty float y\nproperty float z\nend_header\n" +
                    xyz.astype("<f4").tobytes())
    want = saved(quoct.Tree(xyz), tmp_path / "saved.quoct")
    for source in (text, ply):
        quoct.Tree.build_file(source, tmp_path / "built.quoct", memory_limit=0)
        assert (tmp_path / "built.quoct").read_bytes() == want
    bad = tmp_path / "bad.xyz"
    bad.write_text("1 2 3\n4 5 x\n")
    with pytest.raises(ValueError, match="bad.xyz:2"):
        quoct.Tree.build_file(bad, tmp_path / "bad.quoct")
    assert not (tmp_path / "bad.quoct").exists()


def test_errors_leave_the_old_file(tmp_path):
    target = tmp_path / "t.quoct"
    target.write_bytes(b"old")
    pts = np.random.default_rng(3).random((20000, 3))
    pts[1234, 2] = np.nan
    with pytest.raises(ValueError, match="point 1234"):
        quoct.Tree.build_file(pts, target, memory_limit=0)
    with pytest.raises(ValueError, match=r"shape \(n, 2\) or \(n, 3\)"):
        quoct.Tree.build_file(np.zeros((5, 4)), target)
    with pytest.raises(ValueError, match="memory_limit"):
        quoct.Tree.build_file(np.zeros((5, 3)), target, memory_limit=-1)
    with pytest.raises(ValueError, match="leafsize"):
        quoct.Tree.build_file(np.zeros((5, 3)), target, leafsize=0)
    with pytest.raises(ValueError, match="not a LAS file"):
        quoct.Tree.build_file(target, tmp_path / "other.quoct")
    with pytest.raises(quoct.FileError, match="nowhere"):
        quoct.Tree.build_file(np.random.default_rng(4).random((20000, 3)), target, memory_limit=0,
                              temp_dir=tmp_path / "nowhere")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.quoct"]


@pytest.mark.parametrize("mmap", [True, False])
def test_iter_neighbourhoods_gives_every_point_its_neighbours_as_brute_force(tmp_path, mmap):
    rng = np.random.default_rng(9)
    pts = rng.integers(0, 40, size=(3000, 3)).astype(np.float64)  # integers: ties and boundary points
    quoct.Tree.build_file(pts, tmp_path / "h.quoct", memory_limit=0)
    tree = quoct.Tree.load(tmp_path / "h.quoct", mmap=mmap)
    d2 = ((pts[:, None, :] - pts[None, :, :]) ** 2).sum(axis=2)
    for kwargs in ({"k": 6}, {"r": 2.0}):
        seen = []
        for ids, indices, distances, offsets in tree.iter_neighbourhoods(chunk=700, **kwargs):
            assert len(offsets) == len(ids) + 1 and offsets[0] == 0 and offsets[-1] == len(indices)
            for j, i in enumerate(ids):
                got = indices[offsets[j]:offsets[j + 1]]
                order = np.lexsort((np.arange(len(pts)), d2[i]))
                want = order[:6] if "k" in kwargs else order[d2[i][order] <= 4.0]
                assert got.tolist() == want.tolist()
                assert np.array_equal(distances[offsets[j]:offsets[j + 1]], np.sqrt(d2[i][want]))
            seen.extend(ids.tolist())
        assert seen == tree.indices.tolist()  # storage order, every point once
    with pytest.raises(ValueError, match="exactly one"):
        next(tree.iter_neighbourhoods())
    with pytest.raises(ValueError, match="exactly one"):
        next(tree.iter_neighbourhoods(k=2, r=1.0))
    with pytest.raises(ValueError, match="k must be"):
        next(tree.iter_neighbourhoods(k=0))
    with pytest.raises(ValueError, match="r must be"):
        next(tree.iter_neighbourhoods(r=float("nan")))
    with pytest.raises(TypeError, match="chunk"):
        next(tree.iter_neighbourhoods(k=1, chunk=0))
