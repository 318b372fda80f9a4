"""quoct.read_las, iter_las and las_header against LAS files written here with numpy's
structured arrays from the LAS 1.4 specification's tables (not by quoct): coordinates as
the specification computes them, fields, chunks, and the errors a user meets."""

import struct

import numpy as np
import pytest

import quoct

# Point format 1 (28 bytes) and 7 (36 bytes), little-endian, as the specification lays them out.
FORMAT1 = np.dtype([("X", "<i4"), ("Y", "<i4"), ("Z", "<i4"), ("intensity", "<u2"), ("bits", "u1"),
                    ("classification", "u1"), ("scan_angle", "i1"), ("user_data", "u1"),
                    ("point_source_id", "<u2"), ("gps_time", "<f8")])
FORMAT7 = np.dtype([("X", "<i4"), ("Y", "<i4"), ("Z", "<i4"), ("intensity", "<u2"), ("returns", "u1"),
                    ("flags", "u1"), ("classification", "u1"), ("user_data", "u1"), ("scan_angle", "<i2"),
                    ("point_source_id", "<u2"), ("gps_time", "<f8"), ("red", "<u2"), ("green", "<u2"),
                    ("blue", "<u2")])


def las_bytes(records, fmt, minor, scale, offset, lo, hi, count=None, tail=b""):
    header_size = 375 if minor == 4 else 227
    n = len(records) if count is None else count
    h = bytearray(header_size)
    h[0:4] = b"LASF"
    h[24], h[25] = 1, minor
    struct.pack_into("<H", h, 94, header_size)
    struct.pack_into("<I", h, 96, header_size)
    struct.pack_into("<I", h, 100, 0)
    h[104] = fmt
    struct.pack_into("<H", h, 105, records.dtype.itemsize)
    struct.pack_into("<I", h, 107, n)
    struct.pack_into("<3d", h, 131, *scale)
    struct.pack_into("<3d", h, 155, *offset)
    struct.pack_into("<6d", h, 179, hi[0], lo[0], hi[1], lo[1], hi[2], lo[2])
    if minor == 4:
        struct.pack_into("<Q", h, 247, n)
    return bytes(h) + records.tobytes() + tail


@pytest.fixture
def cloud(tmp_path):
    rng = np.random.default_rng(41)
    n = 5000
    rec = np.zeros(n, dtype=FORMAT7)
    rec["X"] = rng.integers(-10**6, 10**6, n)
    rec["Y"] = rng.integers(-10**6, 10**6, n)
    rec["Z"] = rng.integers(-10**4, 10**4, n)
    rec["classification"] = rng.integers(0, 256, n)
    rec["returns"] = rng.integers(1, 8, n) | (rng.integers(1, 8, n) << 4)
    rec["scan_angle"] = rng.integers(-15000, 15000, n)
    rec["gps_time"] = rng.integers(0, 10**6, n) / 64
    rec["red"] = rng.integers(0, 65536, n)
    scale, offset = (0.001, 0.01, 0.25), (500000.125, 4000000.5, -12.0)
    # The specification's formula, X * scale + offset, in float64: numpy rounds the product,
    # then the sum (it never fuses them).
    xyz = np.stack([rec[a].astype(np.float64) * s + o for a, s, o in zip("XYZ", scale, offset)], axis=1)
    path = tmp_path / "cloud.las"
    path.write_bytes(las_bytes(rec, 7, 4, scale, offset, xyz.min(axis=0), xyz.max(axis=0)))
    return path, rec, xyz


def test_read_las_gives_the_specifications_coordinates_and_fields(cloud):
    path, rec, xyz = cloud
    got, values = quoct.read_las(path, fields=["classification", "return_number", "scan_angle", "gps_time", "red"])
    assert got.dtype == np.float64 and got.shape == (len(rec), 3)
    np.testing.assert_array_equal(got, xyz)
    np.testing.assert_array_equal(values["classification"], rec["classification"])
    np.testing.assert_array_equal(values["return_number"], rec["returns"] & 15)
    np.testing.assert_array_equal(values["scan_angle"], rec["scan_angle"] * 0.006)
    np.testing.assert_array_equal(values["gps_time"], rec["gps_time"])
    np.testing.assert_array_equal(values["red"], rec["red"])
    h = quoct.las_header(str(path))
    assert h["version"] == (1, 4) and h["point_format"] == 7 and h["point_count"] == len(rec)
    assert h["record_length"] == 36 and "nir" not in h["fields"] and "green" in h["fields"]
    # A tree over them answers as brute force.
    t = quoct.Tree(got)
    hits = t.query_ball_point(got[0], r=5000.0)
    d2 = ((got - got[0]) ** 2).sum(axis=1)
    assert sorted(hits) == np.nonzero(d2 <= 5000.0**2)[0].tolist()


@pytest.mark.parametrize("chunk", [1, 999, 10**7])
def test_iter_las_in_chunks_gives_the_same_points(cloud, chunk):
    path, rec, xyz = cloud
    if chunk == 1:
        path_small = path.with_name("small.las")
        path_small.write_bytes(las_bytes(rec[:50], 7, 4, (0.001, 0.01, 0.25), (500000.125, 4000000.5, -12.0),
                                         xyz.min(axis=0), xyz.max(axis=0)))
        path, rec, xyz = path_small, rec[:50], xyz[:50]
    parts = list(quoct.iter_las(path, chunk=chunk, fields=["gps_time"]))
    assert all(len(p[0]) <= chunk for p in parts)
    np.testing.assert_array_equal(np.concatenate([p[0] for p in parts]), xyz)
    np.testing.assert_array_equal(np.concatenate([p[1]["gps_time"] for p in parts]), rec["gps_time"])


def test_las_errors_name_the_file_and_the_cause(tmp_path, cloud):
    path, rec, xyz = cloud
    data = path.read_bytes()
    short = tmp_path / "short.las"
    short.write_bytes(data[:-1])
    with pytest.raises(ValueError, match=r"short\.las: truncated: the header promises 5000 points of 36 bytes"):
        quoct.read_las(short)
    stray = tmp_path / "stray.las"
    stray.write_bytes(data + bytes(36))
    with pytest.raises(ValueError, match=r"36 bytes after the last of the header's 5000 point records"):
        quoct.read_las(stray)
    laz = tmp_path / "cloud.laz"
    laz.write_bytes(data)
    with pytest.raises(ValueError, match=r"LASzip is not available in quoct.*pdal translate"):
        quoct.las_header(laz)
    with pytest.raises(ValueError, match=r"no field 'nir' in point format 7"):
        quoct.read_las(path, fields=["nir"])
    with pytest.raises(ValueError, match=r"cannot open"):
        quoct.read_las(tmp_path / "missing.las")
    with pytest.raises(TypeError, match=r"sequence of names"):
        quoct.read_las(path, fields="gps_time")
    with pytest.raises(TypeError, match=r"positive int"):
        next(quoct.iter_las(path, chunk=0))
    # A point outside the header's bounds, then the same file read without the check.
    rec2 = rec[:10].copy()
    rec2["Z"][7] = 10**5
    lo, hi = xyz.min(axis=0), xyz.max(axis=0)
    bad = tmp_path / "bounds.las"
    bad.write_bytes(las_bytes(rec2, 7, 4, (0.001, 0.01, 0.25), (500000.125, 4000000.5, -12.0), lo, hi))
    with pytest.raises(ValueError, match=r"point 7: z = .* lies outside the header's bounds"):
        quoct.read_las(bad)
    got, _ = quoct.read_las(bad, check_bounds=False)
    assert got[7, 2] == 10**5 * 0.25 - 12.0


def test_format1_in_las_1_2(tmp_path):
    rec = np.zeros(3, dtype=FORMAT1)
    rec["X"] = [0, 1, 2]
    rec["bits"] = [1 | 2 << 3, 2 | 2 << 3, 1 | 1 << 3]
    rec["classification"] = [2 | 1 << 5, 6, 31]  # class 2 synthetic, 6, 31
    rec["gps_time"] = [1.5, 2.5, 3.5]
    path = tmp_path / "f1.las"
    path.write_bytes(las_bytes(rec, 1, 2, (0.5, 1, 1), (10, 0, 0), (10, 0, 0), (11, 0, 0)))
    xyz, v = quoct.read_las(path, fields=["classification", "synthetic", "number_of_returns", "gps_time"])
    np.testing.assert_array_equal(xyz[:, 0], [10, 10.5, 11])
    np.testing.assert_array_equal(v["classification"], [2, 6, 31])
    np.testing.assert_array_equal(v["synthetic"], [1, 0, 0])
    np.testing.assert_array_equal(v["number_of_returns"], [2, 2, 1])
    np.testing.assert_array_equal(v["gps_time"], [1.5, 2.5, 3.5])
