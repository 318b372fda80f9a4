"""quoct.DynamicTree against brute force over the live points, and quoct.geo.Index
against brute force over quoct.geo.distance (the predicate it documents) and the
haversine formula."""

import csv
import pathlib

import numpy as np
import pytest

import quoct
from conftest import brute_ball, brute_knn, data_dir


@pytest.mark.parametrize("m", [2, 3])
def test_dynamic_tree_equals_brute_force_over_live_points(rng, m):
    pts = rng.random((400, m))
    dyn = quoct.DynamicTree(pts, leafsize=8)
    live = {i: pts[i].copy() for i in range(len(pts))}
    for step in range(600):
        op = rng.integers(3)
        if op == 0:
            p = rng.random(m)
            expected = dyn.id_bound
            i = dyn.insert(p)
            assert i == expected and dyn.id_bound == expected + 1
            live[i] = p
        elif op == 1 and live:
            i = int(rng.choice(list(live)))
            assert dyn.erase(i)
            del live[i]
            assert not dyn.erase(i)
        elif live:
            i = int(rng.choice(list(live)))
            p = rng.random(m)
            dyn.move(i, p)
            live[i] = p
        if step % 100 == 0:
            check_dynamic(dyn, live, rng, m)
    check_dynamic(dyn, live, rng, m)


def check_dynamic(dyn, live, rng, m):
    ids = np.array(sorted(live), dtype=np.int64)
    coords = np.array([live[i] for i in ids]).reshape(-1, m)
    assert dyn.n == len(live) == len(dyn)
    x = rng.random((20, m))
    rows = dyn.query_ball_point(x, 0.15, return_sorted=True)
    for c, row in zip(x, rows):
        assert row == ids[brute_ball(coords, c, 0.15)].tolist()
    d, i = dyn.query(x, k=5)
    for row in range(len(x)):
        bd, bi = brute_knn(coords, x[row], 5)
        np.testing.assert_array_equal(d[row], bd)
        bi = np.where(bi < len(coords), ids[np.minimum(bi, len(coords) - 1)], dyn.id_bound)
        np.testing.assert_array_equal(i[row], bi)
    some = int(ids[0])
    np.testing.assert_array_equal(dyn.point(some), live[some])
    assert some in dyn


def test_dynamic_move_all_equals_brute_force(rng):
    pts = rng.random((300, 3))
    dyn = quoct.DynamicTree(pts)
    dyn.erase(5)
    new = rng.random((300, 3))
    new[5] = np.nan  # an erased id's row is not read
    dyn.move_all(new)
    live = {i: new[i] for i in range(300) if i != 5}
    check_dynamic(dyn, live, rng, 3)
    bad = new.copy()
    bad[7, 0] = np.inf
    with pytest.raises(ValueError, match="7"):
        dyn.move_all(bad)
    with pytest.raises(ValueError):
        dyn.move_all(new[:10])
    check_dynamic(dyn, live, rng, 3)


def test_dynamic_scans_batches_and_box_erasure_equal_brute_force(rng):
    # A sliding local map on a lattice (points on the boxes' faces, duplicates): scans in
    # at once, a batch of moves, erasure in and outside boxes, each checked.
    dyn = quoct.DynamicTree(rng.integers(0, 8, (100, 3)).astype(np.float64), leafsize=4)
    live = {i: dyn.point(i) for i in range(100)}
    for step in range(12):
        scan = rng.integers(0, 8, (50, 3)).astype(np.float32)  # float32 rows are taken as float64
        first = dyn.insert_all(scan)
        assert first == dyn.id_bound - 50
        live.update({first + j: scan[j].astype(np.float64) for j in range(50)})
        ids = rng.choice(sorted(live), min(10, len(live)), replace=False)
        ids[-1] = ids[0]  # an id twice: its last row wins
        to = rng.integers(0, 8, (len(ids), 3)).astype(np.float64)
        dyn.move(ids, to)
        for i, p in zip(ids, to):
            live[int(i)] = p
        lo = rng.integers(0, 4, 3).astype(np.float64)
        hi = lo + 4
        inside = [i for i, p in live.items() if np.all(p >= lo) and np.all(p <= hi)]
        if step % 2:
            assert dyn.erase_in(lo, hi) == len(inside)
            for i in inside:
                del live[i]
        else:
            assert dyn.erase_outside(lo, hi) == len(live) - len(inside)
            live = {i: live[i] for i in inside}
        check_dynamic(dyn, live, rng, 3)
    # Bad batches and boxes are refused whole.
    n, bound = dyn.n, dyn.id_bound
    with pytest.raises(ValueError, match="NaN or infinite"):
        dyn.insert_all(np.array([[0.0, 0.0, 0.0], [np.nan, 0.0, 0.0]]))
    with pytest.raises(ValueError, match="shape"):
        dyn.insert_all(np.zeros((2, 2)))
    with pytest.raises(IndexError, match="not a live point"):
        dyn.move(np.array([sorted(live)[0], bound]), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="shape"):
        dyn.move(np.array([sorted(live)[0]]), np.zeros((2, 3)))
    with pytest.raises(ValueError):
        dyn.erase_in([1.0, 0.0, 0.0], [0.0, 1.0, 1.0])  # lo > hi
    with pytest.raises(ValueError):
        dyn.erase_outside([np.nan, 0.0, 0.0], [1.0, 1.0, 1.0])
    assert dyn.n == n and dyn.id_bound == bound
    check_dynamic(dyn, live, rng, 3)


def test_dynamic_insert_downsampled_keeps_one_point_per_voxel_as_brute_force(rng):
    # The documented rule as the oracle: voxel floor(p / voxel) per axis in float64; in row
    # order a row goes in unless a live point (the smallest id) or an earlier row holds its
    # voxel. Half-integer rows sit on voxel faces; an erasure frees voxels.
    dyn = quoct.DynamicTree(np.zeros((0, 3)))
    live = {}
    for step, voxel in enumerate([0.5, 2.0, 0.3, 1.0]):
        scan = rng.integers(-8, 8, (120, 3)) / 2.0
        scan[5] = scan[3]
        cells = np.floor(scan / voxel) + 0.0
        want, added, nxt = [], {}, dyn.id_bound
        for p, c in zip(scan, cells):
            holders = [i for i, q in live.items() if np.array_equal(np.floor(q / voxel) + 0.0, c)]
            key = tuple(c)
            if holders:
                want.append(min(holders))
            elif key in added:
                want.append(added[key])
            else:
                added[key] = nxt
                live[nxt] = p
                want.append(nxt)
                nxt += 1
        got = dyn.insert_downsampled(scan, voxel)
        assert got.dtype == np.int64 and got.tolist() == want
        assert dyn.id_bound == nxt
        check_dynamic(dyn, live, rng, 3)
        if step == 1:
            inside = [i for i, p in live.items() if np.all(p >= -2) and np.all(p <= 2)]
            assert dyn.erase_in([-2.0] * 3, [2.0] * 3) == len(inside)
            for i in inside:
                del live[i]
    n, bound = dyn.n, dyn.id_bound
    for bad in [0.0, -1.0, np.nan, np.inf]:
        with pytest.raises(ValueError, match="voxel"):
            dyn.insert_downsampled(np.zeros((2, 3)), bad)
    with pytest.raises(ValueError, match="NaN or infinite"):
        dyn.insert_downsampled(np.array([[0.0, 0.0, 0.0], [np.nan, 0.0, 0.0]]), 1.0)
    with pytest.raises(ValueError, match="shape"):
        dyn.insert_downsampled(np.zeros((2, 2)), 1.0)
    assert dyn.n == n and dyn.id_bound == bound


def test_dynamic_tree_errors_leave_it_unchanged(rng):
    pts = rng.random((50, 3))
    dyn = quoct.DynamicTree(pts)
    before = dyn.query_ball_point(pts[:5], 0.3, return_sorted=True)
    with pytest.raises(ValueError, match="NaN or infinite"):
        dyn.insert([0.1, np.nan, 0.2])
    with pytest.raises(ValueError, match="NaN or infinite"):
        dyn.move(3, [np.inf, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        dyn.insert([0.1, 0.2])
    with pytest.raises(IndexError, match="not a live point"):
        dyn.move(50, [0.0, 0.0, 0.0])
    with pytest.raises(IndexError, match="not a live point"):
        dyn.point(-1)
    assert not dyn.erase(10**12)
    with pytest.raises(ValueError, match="NaN or infinite"):
        quoct.DynamicTree(np.array([[0.0, np.nan]]))
    assert dyn.n == 50 and dyn.id_bound == 50
    after = dyn.query_ball_point(pts[:5], 0.3, return_sorted=True)
    assert [list(a) for a in before] == [list(b) for b in after]


def read_cities():
    lon, lat = [], []
    with open(data_dir() / "cities.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            lon.append(float(row["lon"]))
            lat.append(float(row["lat"]))
    return np.array(lon), np.array(lat)


@pytest.fixture(scope="module")
def cities():
    lon, lat = read_cities()
    return lon, lat, quoct.geo.Index(lon, lat)


def haversine_km(lon1, lat1, lon2, lat2):
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dl, dp = np.radians(lon2 - lon1), p2 - p1
    a = np.sin(dp / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dl / 2) ** 2
    return 2 * quoct.geo.EARTH_RADIUS_KM * np.arcsin(np.sqrt(a))


def test_geo_distance_matches_haversine(rng):
    lon1, lon2 = rng.uniform(-180, 180, (2, 1000))
    lat1, lat2 = rng.uniform(-80, 80, (2, 1000))
    np.testing.assert_allclose(quoct.geo.distance(lon1, lat1, lon2, lat2), haversine_km(lon1, lat1, lon2, lat2), atol=1e-6)
    assert quoct.geo.distance(0, 0, 0, 0) == 0.0
    assert isinstance(quoct.geo.distance(0, 0, 1, 1), float)


def test_geo_within_and_nearest_equal_brute_force(cities, rng):
    lon, lat, g = cities
    assert g.n == len(lon)
    for j in rng.integers(len(lon), size=25):
        d = quoct.geo.distance(lon[j], lat[j], lon, lat)
        for km in [0.0, 10.0, 80.0]:
            np.testing.assert_array_equal(g.within(lon[j], lat[j], km), np.nonzero(d <= km)[0])
        # A radius that is exactly some city's distance: that city is in.
        edge = float(np.sort(d)[40])
        assert set(np.nonzero(d == edge)[0]) <= set(g.within(lon[j], lat[j], edge).tolist())
        km, ids = g.nearest(lon[j], lat[j], k=8)
        order = np.lexsort((np.arange(len(d)), d))[:8]
        np.testing.assert_array_equal(ids, order)
        np.testing.assert_array_equal(km, d[order])
    counts = g.count_within(lon[:300], lat[:300], 50.0, workers=-1)
    assert counts.shape == (300,)
    assert counts[7] == len(g.within(lon[7], lat[7], 50.0))


def test_geo_box_and_polygon(cities):
    lon, lat, g = cities
    inside = (lon >= 0) & (lon <= 10) & (lat >= 40) & (lat <= 50)
    np.testing.assert_array_equal(g.box(0, 40, 10, 50), np.nonzero(inside)[0])
    np.testing.assert_array_equal(g.polygon("POLYGON((0 40, 10 40, 10 50, 0 50, 0 40))"), np.nonzero(inside)[0])
    across = (lon >= 170) | (lon <= -170)
    band = across & (lat >= -50) & (lat <= -10)
    np.testing.assert_array_equal(g.box(170, -50, -170, -10), np.nonzero(band)[0])
    assert band.sum() > 0
    with pytest.raises(ValueError, match="invalid WKT"):
        g.polygon("POLYGON((0 40, 10")
    with pytest.raises(ValueError, match="latitude"):
        g.within(0.0, 91.0, 10.0)
    with pytest.raises(ValueError, match="negative"):
        g.within(0.0, 0.0, -1.0)
    with pytest.raises(ValueError, match="south > north"):
        g.box(0, 50, 10, 40)
    with pytest.raises(ValueError, match="k must be"):
        g.nearest(0.0, 0.0, k=0)
    with pytest.raises(ValueError, match="point 1 is not"):
        quoct.geo.Index([0.0, 200.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="one length"):
        quoct.geo.Index([0.0, 1.0], [0.0])


def test_geo_join_pairs_boxes_as_brute_force(cities):
    lon, lat, g = cities
    # Boxes as polygons in every accepted form: WKT, GeoJSON text, a dict, __geo_interface__.
    boxes = [(0, 40, 10, 50), (-10, 35, 5, 45), (170, -50, 190, -10), (100, -10, 120, 10), (-5, -1, -4, 0)]

    def ring(w, s, e, n):
        return [[w, s], [e, s], [e, n], [w, n], [w, s]]

    class Shape:  # a shapely-like object
        def __init__(self, mapping):
            self.__geo_interface__ = mapping

    forms = [
        "POLYGON((0 40, 10 40, 10 50, 0 50, 0 40))",
        '{"type":"Polygon","coordinates":[' + str(ring(-10, 35, 5, 45)) + "]}",
        {"type": "Feature", "properties": {"name": "Fiji"}, "geometry": {"type": "Polygon", "coordinates": [ring(170, -50, 190, -10)]}},
        Shape({"type": "Polygon", "coordinates": (tuple(map(tuple, ring(100, -10, 120, 10))),)}),
        "POLYGON((-5 -1, -4 -1, -4 0, -5 0, -5 -1))",
    ]
    pairs = set()
    for j, (w, s, e, n) in enumerate(boxes):
        lon_ok = ((lon >= w) & (lon <= e)) | ((lon + 360 >= w) & (lon + 360 <= e))
        for i in np.nonzero(lon_ok & (lat >= s) & (lat <= n))[0]:
            pairs.add((int(i), j))
    want = sorted(pairs)
    for workers in (1, 2, -1):
        points, polygons = g.join(forms, workers=workers)
        assert points.dtype == np.int64 and polygons.dtype == np.int64
        assert list(zip(points.tolist(), polygons.tolist())) == want
    counts = np.bincount(g.join(forms)[1], minlength=len(forms))
    assert counts.tolist() == [sum(1 for p in want if p[1] == j) for j in range(len(forms))]
    assert [len(a) for a in g.join([])] == [0, 0]

    with pytest.raises(ValueError, match=r"polygons\[1\]: invalid polygon: it intersects itself"):
        g.join(["POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))", "POLYGON((0 0, 2 2, 2 0, 0 2, 0 0))"])
    bow = "POLYGON((0 0, 2 2, 2 0, 0 2, 0 0))"
    for workers in (1, 2, -1):  # the first invalid polygon by position, whatever the threads
        with pytest.raises(ValueError, match=r"polygons\[1\]: invalid polygon"):
            g.join(["POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))", bow, bow, "POINT(1 2)"] + [bow] * 20, workers=workers)
    with pytest.raises(ValueError, match=r"polygons\[0\]: invalid WKT"):
        g.join(["POINT(1 2)"])
    with pytest.raises(ValueError, match=r"polygons\[0\]: not a GeoJSON Polygon or MultiPolygon"):
        g.join([{"type": "Point", "coordinates": [1, 2]}])
    with pytest.raises(TypeError, match=r"polygons\[0\] must be WKT"):
        g.join([42])


def test_geo_join_takes_one_polygon_alone(cities):
    shapely_geometry = pytest.importorskip("shapely.geometry")
    lon, lat, g = cities
    square = "POLYGON((0 40, 10 40, 10 50, 0 50, 0 40))"
    inside = np.nonzero((lon >= 0) & (lon <= 10) & (lat >= 40) & (lat <= 50))[0]
    assert len(inside) > 0
    one = shapely_geometry.box(0, 40, 10, 50)
    for form in (square, '{"type":"Polygon","coordinates":[[[0,40],[10,40],[10,50],[0,50],[0,40]]]}',
                 {"type": "Polygon", "coordinates": [[[0, 40], [10, 40], [10, 50], [0, 50], [0, 40]]]}, one):
        points, polygons = g.join(form)
        assert points.tolist() == inside.tolist()
        assert polygons.tolist() == [0] * len(inside)
    # A MultiPolygon is one polygon, never a sequence of its parts.
    two = shapely_geometry.MultiPolygon([one, shapely_geometry.box(100, -10, 120, 10)])
    points, polygons = g.join(two)
    want = np.nonzero(((lon >= 0) & (lon <= 10) & (lat >= 40) & (lat <= 50))
                      | ((lon >= 100) & (lon <= 120) & (lat >= -10) & (lat <= 10)))[0]
    assert points.tolist() == want.tolist() and set(polygons.tolist()) == {0}
    # A sequence of geometries is still many.
    points, polygons = g.join([one, one])
    assert polygons.tolist().count(1) == len(inside)


def test_geo_join_countries_as_shapely(cities):
    shapely_geometry = pytest.importorskip("shapely.geometry")
    import json

    lon, lat, g = cities
    path = data_dir() / "countries_110m.geojson"
    features = json.loads(path.read_text())["features"]
    points, polygons = g.join(features, workers=2)
    got = set(zip(points.tolist(), polygons.tolist()))
    sample = np.random.default_rng(5).choice(len(lon), 2000, replace=False)
    shapes = [shapely_geometry.shape(f["geometry"]) for f in features]
    for i in sample:
        p = shapely_geometry.Point(lon[i], lat[i])
        for j, shape in enumerate(shapes):
            assert ((int(i), j) in got) == shape.covers(p), (i, j, features[j]["properties"]["name"])
