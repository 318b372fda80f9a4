"""quoct.geo: locations on the Earth (longitude, latitude in degrees), great-circle
distances in kilometres on a sphere of radius EARTH_RADIUS_KM (the IUGG mean radius,
6371.0088 km).

    >>> import quoct
    >>> g = quoct.geo.Index(lon, lat)
    >>> ids = g.within(2.3522, 48.8566, 25.0)        # within 25 km of Paris
    >>> km, ids = g.nearest(2.3522, 48.8566, k=5)

The distance is ``distance(lon1, lat1, lon2, lat2)``:
``2 R atan2(|a - b|, |a + b|)`` over the unit vectors a, b, well conditioned at every
angle. ``within`` agrees with it exactly (a point at exactly ``km`` is inside, ``km``
being converted to metres as ``km * 1000``), and ``nearest`` orders by it, ties by
smaller index. Longitudes must lie in [-180, 180], latitudes in [-90, 90].
"""

import numbers as _numbers
import os as _os

import numpy as _np

from . import _core
from ._checks import leafsize as _leafsize

__all__ = ["Index", "distance", "EARTH_RADIUS_KM"]

#: Radius of the sphere, km.
EARTH_RADIUS_KM = _core.earth_radius_km


def _coords(a, what):
    try:
        arr = _np.asarray(a)
    except (ValueError, TypeError) as e:
        raise ValueError(f"quoct: {what} is not a numeric array: {e}") from None
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"quoct: {what} must hold real numbers, not dtype {arr.dtype}")
    return _np.asarray(arr, dtype=_np.float64, order="C")  # (ascontiguousarray would make 0-d 1-d)


def _scalar(v, what):
    arr = _coords(v, what)
    if arr.ndim != 0:
        raise ValueError(f"quoct: {what} must be a scalar, got shape {arr.shape}")
    return float(arr)


def distance(lon1, lat1, lon2, lat2):
    """Great-circle distance in km between (lon1, lat1) and (lon2, lat2), in degrees.

    Arguments broadcast against each other (scalars or arrays); returns a float or an
    array of their broadcast shape. This is the distance Index.within and Index.nearest
    agree with exactly. Raises ValueError for a longitude outside [-180, 180] or a
    latitude outside [-90, 90] (NaN included).
    """
    arrays = _np.broadcast_arrays(*(_coords(v, w) for v, w in zip((lon1, lat1, lon2, lat2), ("lon1", "lat1", "lon2", "lat2"))))
    flat = [_np.ascontiguousarray(a.reshape(-1)) for a in arrays]
    out = _core.geo_distance_km(*flat).reshape(arrays[0].shape)
    return float(out) if out.ndim == 0 else out


def _one_polygon(obj):
    """Whether join's argument is one polygon rather than a sequence of them: a str (WKT or
    GeoJSON text), a dict (GeoJSON), a geometry with a geom_type (shapely, whose MultiPolygon
    1.8 would iterate over its parts), or any other __geo_interface__ that is not iterable."""
    if isinstance(obj, (str, dict)):
        return True
    if isinstance(getattr(obj, "geom_type", None), str):
        return True
    return hasattr(obj, "__geo_interface__") and not hasattr(obj, "__iter__")


def _index_from_bytes(data):
    return Index._of_core(_core.GeoIndex.from_bytes(data))


class Index:
    """A static index of locations for radius (km), nearest, box and polygon queries.

    Index(lon, lat, leafsize=None)

    Parameters
    ----------
    lon, lat : array_like, shape (n,)
        Degrees; lon in [-180, 180], lat in [-90, 90]. Copied. Point i has id i.
    leafsize : int, optional
        Leaf size of the octree over the unit vectors (default None: the 3D default,
        48).

    Raises ValueError for arrays of different lengths, non-numeric values, or a point
    outside those ranges (naming the first). Immutable; every query releases the GIL
    and may run from many threads at once.
    """

    def __init__(self, lon, lat, leafsize=None):
        lon = _coords(lon, "lon")
        lat = _coords(lat, "lat")
        if lon.ndim != 1 or lat.ndim != 1 or lon.shape != lat.shape:
            raise ValueError(f"quoct: lon and lat must be 1-D of one length, got shapes {lon.shape} and {lat.shape}")
        leafsize = _leafsize(leafsize, 3)  # the index is an octree over unit vectors in 3D
        self._core = _core.GeoIndex(_np.column_stack((lon, lat)), leafsize)
        # Not kept: the index holds the locations; lon and lat are made from it when read.
        self._lon = self._lat = None

    @classmethod
    def _of_core(cls, core):
        self = cls.__new__(cls)
        self._core = core
        self._lon = self._lat = None
        return self

    def _locations(self):
        if self._lon is None:
            ll = self._core.locations()
            self._lon, self._lat = ll[:, 0].copy(), ll[:, 1].copy()

    @property
    def lon(self):
        """Longitudes by id, as given: made from the index at the first access of ``lon``
        or ``lat`` and kept (the index does not keep the caller's arrays)."""
        self._locations()
        return self._lon

    @property
    def lat(self):
        """Latitudes by id, as given."""
        self._locations()
        return self._lat

    def save(self, path):
        """Saves the index to one file at ``path``, atomically (see quoct.Tree.save).
        Raises quoct.FileError."""
        self._core.save(_os.fspath(path))

    @classmethod
    def load(cls, path, mmap=True):
        """The index saved at ``path``: memory-mapped (default) or read (mmap=False), as
        quoct.Tree.load. Raises quoct.FileError."""
        return cls._of_core(_core.GeoIndex.from_file(_os.fspath(path), bool(mmap)))

    def __reduce__(self):
        return (_index_from_bytes, (self._core.to_bytes(),))

    @property
    def n(self):
        """Number of points."""
        return self._core.size

    def __len__(self):
        return self._core.size

    def __repr__(self):
        return f"quoct.geo.Index(n={self.n})"

    def within(self, lon, lat, km):
        """Ids (int64 array, increasing) of the points at distance <= km from (lon, lat).

        km >= the half circumference (or inf) takes every point. Raises ValueError for a
        centre out of range or a NaN or negative km.
        """
        return self._core.within(_scalar(lon, "lon"), _scalar(lat, "lat"), _scalar(km, "km"))

    def count_within(self, lon, lat, km, workers=1):
        """The number of points within km of each centre; lon, lat and km broadcast
        (scalars or arrays). Returns an int or an int64 array of the broadcast shape.
        workers: threads (-1: every CPU). Raises as within."""
        from . import _threads

        arrays = _np.broadcast_arrays(_coords(lon, "lon"), _coords(lat, "lat"), _coords(km, "km"))
        flat = [_np.ascontiguousarray(a.reshape(-1)) for a in arrays]
        out = self._core.count_within(*flat, _threads(workers)).reshape(arrays[0].shape)
        return int(out) if out.ndim == 0 else out

    def nearest(self, lon, lat, k=1):
        """The min(k, n) points nearest to (lon, lat), nearest first, ties by smaller id.

        Returns (km, ids): a float64 array of distances and an int64 array of ids.
        Raises ValueError for a centre out of range or k < 1.
        """
        if isinstance(k, bool) or not isinstance(k, _numbers.Integral) or k < 1:
            raise ValueError(f"quoct: k must be an integer >= 1, got {k!r}")
        return self._core.nearest(_scalar(lon, "lon"), _scalar(lat, "lat"), int(k))

    def box(self, west, south, east, north):
        """Ids (increasing) of the points with south <= lat <= north and west <= lon <= east,
        boundary included; west > east is a box across the antimeridian (lon >= west or
        lon <= east). Longitudes are compared as given, so 180 and -180 differ here.
        Raises ValueError for values out of range or south > north."""
        return self._core.box(
            _scalar(west, "west"), _scalar(south, "south"), _scalar(east, "east"), _scalar(north, "north")
        )

    def join(self, polygons, workers=1):
        """Which of `polygons` covers each point (boundary included), as geopandas'
        sjoin(predicate="covered_by") pairs them: returns (points, polygons), two int64 arrays
        of equal length, one entry per (point id, polygon index) pair with the point covered
        by that polygon, sorted by point, then polygon. A point in none is in no pair; a point
        on a border shared by two polygons is in two.

        polygons: a sequence whose items are each a WKT POLYGON or MULTIPOLYGON (str), a
        GeoJSON Polygon, MultiPolygon or Feature (a dict, or a str starting with '{'), or an
        object with __geo_interface__ (shapely geometries); or one such polygon alone, taken
        as a sequence of one (a shapely MultiPolygon is one polygon, never its parts; a
        GeoSeries is a sequence of its geometries). Longitudes follow the rules of
        polygon(). workers: threads (-1: every CPU). Raises ValueError naming the polygon
        ("polygons[3]: invalid polygon: ...") for one that is not valid, and TypeError for
        an item of another type. Points per polygon: numpy.bincount(polygons_of_pairs,
        minlength=len(polygons)).
        """
        import json as _json

        from . import _threads

        if _one_polygon(polygons):
            polygons = [polygons]
        texts, geojson = [], []
        for j, item in enumerate(polygons):
            if isinstance(item, str):
                is_json = item.lstrip()[:1] == "{"
                texts.append(item)
            elif isinstance(item, dict) or hasattr(item, "__geo_interface__"):
                mapping = item if isinstance(item, dict) else item.__geo_interface__
                try:
                    texts.append(_json.dumps(mapping, allow_nan=False))
                except (TypeError, ValueError) as e:
                    raise ValueError(f"quoct: polygons[{j}]: not GeoJSON: {e}") from None
                is_json = True
            else:
                raise TypeError(
                    f"quoct: polygons[{j}] must be WKT (str), GeoJSON (dict or str) or have __geo_interface__, "
                    f"not {type(item).__name__}"
                )
            geojson.append(is_json)
        return self._core.join(texts, geojson, _threads(workers))

    def polygon(self, wkt):
        """Ids (increasing) of the points in a WKT POLYGON or MULTIPOLYGON in lon/lat degrees,
        boundary included, holes honoured; edges are straight in the lon/lat plane (as in
        GeoJSON), and a polygon may cross the antimeridian with longitudes up to 360.
        Raises ValueError for text that is not a valid polygon, with the reason."""
        if not isinstance(wkt, str):
            raise ValueError(f"quoct: wkt must be a str, got {type(wkt).__name__}")
        return self._core.polygon(wkt)
