"""quoct: exact radius and k-nearest queries over point sets, from numpy.

A quadtree/octree spatial index (the C++ library quoct) with the habits of
``scipy.spatial.cKDTree``: the same constructor, method names, array shapes and
padding rules, so most code changes only its import.

    >>> import numpy as np, quoct
    >>> pts = np.random.default_rng(0).random((100_000, 3))
    >>> t = quoct.Tree(pts)
    >>> hits = t.query_ball_point(pts[:10], r=0.02)      # 10 lists of ids
    >>> d, i = t.query(pts[:10], k=4)                     # (10, 4) each

Classes: :class:`Tree` (static, like cKDTree, optionally periodic), :class:`DynamicTree`
(insert, erase, move with stable ids), :class:`quoct.geo.Index` (lon/lat points,
great-circle distances in km) and :class:`BoxTree` (boxes: those meeting a box or a ball,
those holding a point, the nearest, every overlapping pair).

Where quoct differs from cKDTree, on purpose:

* Balls are closed and exact: a point at distance exactly ``r`` is inside, decided by
  ``sum((p - x)**2) <= r*r`` summed over the axes in order in float64, with no rounding
  slack either way. ``distance_upper_bound`` is closed too (``<=``, cKDTree uses ``<``
  on squared distances).
* k-nearest ties are broken by the smaller index.
* ``p`` is any Minkowski p >= 1, with or without ``boxsize``. Each predicate is exact
  and written once, on the axis gaps |differences| (minimum image on periodic axes) in
  float64, in axis order: their sum <= r for p = 1, their largest <= r for p = inf, the
  sum of their p-th powers (C's ``pow``) <= ``r**p`` for any other p; p = 2 is the
  Euclidean predicate above. ``eps`` is accepted and ignored: answers are always exact.
* Up to 8 dimensions (``DynamicTree``: 4). ``tree`` is a read-only node view, but
  quoct's nodes have up to 2**m children, so it has no ``split_dim``/``split``.
* NaN or infinite coordinates, negative radii, ``k < 1`` and wrong shapes raise
  ``ValueError`` (cKDTree accepts some of them silently).
* float32 and integer inputs are converted to float64 (copied), as cKDTree does, unless
  ``Tree(..., dtype=numpy.float32)`` asks for a float32 tree (half the memory, every
  query computed in float32). The tree always copies the points and, unlike cKDTree,
  does not keep the caller's array alive (``data`` is made from the tree's copy when
  first read).

Saving and sharing: ``Tree.save(path)`` writes one self-contained file (points, ids, nodes:
no rebuild to read it); ``Tree.load(path)`` maps it (``mmap=True``, the default: opened in
a few milliseconds, its points read as queries need them, its pages shared by every
process that opens the file) or reads it (``mmap=False``).
``DynamicTree`` and ``quoct.geo.Index`` have the same ``save``/``load`` (a DynamicTree loads,
never maps). All three pickle as the bytes of that file, so ``copy.deepcopy`` and
``multiprocessing`` work with no rebuild. A file that cannot be read, is not a quoct index
file, holds another kind of index, or is truncated or damaged raises :class:`FileError`
(an ``OSError``) naming the file and the cause.

LAS point clouds: ``quoct.read_las(path, fields=...)`` reads a LAS file (1.0 to 1.4, point
formats 0 to 10, uncompressed) into an (n, 3) float64 array and a dict of the fields asked
for; ``quoct.iter_las`` yields it in chunks of bounded size; ``quoct.las_header`` reads the
header alone. A damaged, truncated or compressed (LAZ) file raises ``ValueError`` naming it
and the cause (docs/io.md lists every check).

Threads: every method releases the GIL while it builds or searches; ``workers=-1``
uses one thread per CPU. Trees are immutable, so any number of Python threads may
query one tree at once.
"""

import itertools as _itertools
import numbers as _numbers
import os as _os

import numpy as _np

from . import _core
from . import geo
from ._checks import leafsize as _leafsize
from ._core import FileError

__all__ = ["Tree", "TreeNode", "DynamicTree", "BoxTree", "FileError", "geo", "read_las", "iter_las", "las_header"]
__version__ = _core.__version__

_MAX_DIM = 8  # Tree; DynamicTree takes up to _MAX_DYNAMIC_DIM
_MAX_DYNAMIC_DIM = 4


# --- argument checks shared by the classes ---------------------------------------------


def _float_array(a, what, dtype=_np.float64):
    """a as a C-contiguous array of dtype (float64 unless told; a copy unless it already is one)."""
    try:
        arr = _np.asarray(a)
    except (ValueError, TypeError) as e:
        raise ValueError(f"quoct: {what} is not a numeric array: {e}") from None
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"quoct: {what} must hold real numbers, not dtype {arr.dtype}")
    with _np.errstate(over="ignore"):  # a float64 beyond float32's range: inf, refused by the tree
        return _np.asarray(arr, dtype=dtype, order="C")  # (ascontiguousarray would make 0-d 1-d)


def _points(data, what="data", max_dim=_MAX_DIM, dtype=_np.float64):
    """data as an (n, m) array of dtype, m in 1..max_dim."""
    arr = _float_array(data, what, dtype)
    if arr.ndim != 2:
        raise ValueError(f"quoct: {what} must have shape (n, m), got shape {arr.shape}")
    if not 1 <= arr.shape[1] <= max_dim:
        raise ValueError(f"quoct: {what} must have 1 to {max_dim} columns (dimensions), got {arr.shape[1]}")
    return arr


def _tree_dtype(dtype):
    """The coordinate type of a Tree: float64 (None, the default) or float32."""
    if dtype is None:
        return _np.dtype(_np.float64)
    try:
        dt = _np.dtype(dtype)
    except TypeError:
        dt = None
    if dt not in (_np.dtype(_np.float64), _np.dtype(_np.float32)):
        raise ValueError(f"quoct: dtype must be float64 or float32, got {dtype!r}")
    return dt


def _threads(workers):
    """scipy's workers (None or 1: one thread, -1: os.cpu_count() threads) as a thread count."""
    if workers is None:
        return 1
    if isinstance(workers, bool) or not isinstance(workers, _numbers.Integral) or not (workers >= 1 or workers == -1):
        raise ValueError(f"quoct: workers must be -1 (every CPU) or an integer >= 1, got {workers!r}")
    if workers == -1:
        cpus = _os.cpu_count()
        if cpus is None:  # scipy's error and message
            raise NotImplementedError("Cannot determine the number of cpus using os.cpu_count(), "
                                      "cannot use -1 for the number of workers")
        return cpus
    return int(workers)


def _check_p_eps(p, eps):
    """Minkowski p as the trees take it: None for 2 (Euclidean, the trees' own balls),
    else p as a float (>= 1, inf included)."""
    if not eps >= 0:
        raise ValueError(f"quoct: eps must be >= 0, got {eps!r}")
    if isinstance(p, bool) or not isinstance(p, _numbers.Real):
        raise ValueError(f"quoct: p must be a real number, got {p!r}")
    p = float(p)
    if p == 2:
        return None
    if not p >= 1:
        raise ValueError(f"quoct: p must be >= 1, got {p!r}")
    return p


def _queries(x, m):
    """x of shape (..., m) as a (q, m) float64 array, and the leading shape x.shape[:-1]."""
    arr = _float_array(x, "x")
    if arr.ndim == 0 and m == 1:  # one scalar for a 1-D tree, as cKDTree takes it
        return arr.reshape(1, 1), ()
    if arr.ndim == 0 or arr.shape[-1] != m:
        raise ValueError(f"quoct: x must have shape (..., {m}) for this {m}-dimensional tree, got shape {arr.shape}")
    return arr.reshape(-1, m), arr.shape[:-1]


def _radius(r, what="r"):
    """A scalar radius as a float (NaN and negative refused)."""
    arr = _float_array(r, what)
    if arr.ndim != 0:
        raise ValueError(f"quoct: {what} must be a scalar")
    v = float(arr)
    if not v >= 0:
        raise ValueError(f"quoct: {what} must be >= 0, got {v!r}")
    return v


def _radii(r, lead):
    """r broadcast against the queries' leading shape, flattened."""
    arr = _float_array(r, "r")
    try:
        arr = _np.broadcast_to(arr, lead)
    except ValueError:
        raise ValueError(f"quoct: r of shape {arr.shape} does not broadcast against x's shape {lead} + (m,)") from None
    return _np.ascontiguousarray(arr.reshape(-1))


def _ball_point(core, m, x, r, p, eps, workers, return_sorted, return_length):
    norm = _check_p_eps(p, eps)
    threads = _threads(workers)
    flat, lead = _queries(x, m)
    radii = _radii(r, lead)
    if return_length:
        counts = (core.ball_count(flat, radii, threads) if norm is None
                  else core.ball_count_norm(flat, radii, threads, norm))
        return int(counts[0]) if lead == () else counts.reshape(lead)
    if return_sorted is None:
        return_sorted = lead != ()
    found = (core.ball(flat, radii, threads, bool(return_sorted)) if norm is None
             else core.ball_norm(flat, radii, threads, bool(return_sorted), norm))
    return found[0] if lead == () else found.reshape(lead)


def _knn(core, m, x, k, eps, p, distance_upper_bound, workers):
    norm = _check_p_eps(p, eps)
    threads = _threads(workers)
    if k is None:  # cKDTree raises TypeError here too
        raise TypeError("quoct: k must be an integer >= 1 or a non-empty list of them, not None")
    if isinstance(k, _numbers.Real) and not isinstance(k, (bool, _numbers.Integral)) and float(k).is_integer():
        k = int(k)  # k=2.0, as cKDTree takes it (a fractional k is refused)
    if isinstance(k, _numbers.Integral) and not isinstance(k, bool):
        if k < 1:
            raise ValueError(f"quoct: k must be >= 1, got {k}")
        columns, squeeze = None, k == 1
        kmax = int(k)
    else:
        try:
            ks = _np.asarray(k)
        except (ValueError, TypeError):
            ks = _np.asarray([], dtype=object)
        if ks.ndim != 1 or ks.size == 0 or ks.dtype.kind not in "iu" or (ks < 1).any():
            raise ValueError(f"quoct: k must be an integer >= 1 or a non-empty list of them, got {k!r}")
        columns, squeeze = ks.astype(_np.intp) - 1, False
        kmax = int(ks.max())
    bound = float(distance_upper_bound)
    if not bound >= 0:
        raise ValueError(f"quoct: distance_upper_bound must be >= 0, got {distance_upper_bound!r}")
    flat, lead = _queries(x, m)
    d, i = core.knn(flat, kmax, bound, threads) if norm is None else core.knn_norm(flat, kmax, bound, threads, norm)
    if columns is not None:
        d, i = d[:, columns], i[:, columns]
    if squeeze:
        d, i = d[:, 0], i[:, 0]
        # One point, k = 1: Python float and int, as cKDTree gives them.
        return (float(d[0]), int(i[0])) if lead == () else (d.reshape(lead), i.reshape(lead))
    shape = lead + (d.shape[1],)
    return d.reshape(shape), i.reshape(shape)


# --- the static tree --------------------------------------------------------------------


class Tree:
    """A static spatial index over n points in m = 1..8 dimensions, like scipy's cKDTree.

    Tree(data, leafsize=None, compact_nodes=True, copy_data=False, balanced_tree=True,
    boxsize=None)

    Parameters
    ----------
    data : array_like, shape (n, m), m from 1 to 8
        The points: float64, float32, or any integer dtype (converted to the tree's
        dtype). The tree keeps its own copy, in its own order; ids are row numbers in
        ``data``.
    leafsize : int, optional
        A node with at most this many points is not split. Default None: quoct's value
        measured best for the dimension (32 in 2D, 48 otherwise; the
        ``leafsize`` attribute tells); cKDTree's default is 16.
    compact_nodes, copy_data, balanced_tree : bool, optional
        Accepted for cKDTree compatibility and ignored: quoct's nodes are always tight
        and the points are always copied.
    boxsize : array_like or float, optional
        A periodic (toroidal) domain as in cKDTree: axis a wraps with period
        ``boxsize[a]``; 0 leaves that axis open. Every point must lie in [0, boxsize)
        on the wrapping axes; query points are wrapped into it, and every query
        (``query`` included) measures the minimum-image distance.
    dtype : float64 (default) or float32, keyword only
        The type the tree stores and computes in. ``numpy.float32`` keeps the points
        in half the memory: a float32 array is then not converted at all, other input
        is rounded to float32, and every query rounds its points, radii and bounds to
        float32 first and answers exactly by the same predicates computed in float32.
        Distances come back as float64 arrays of those float32 values; ``data`` is
        float32. Pair methods need both trees of the same dtype.

    Raises
    ------
    ValueError
        For a wrong shape or dtype, a NaN or infinite coordinate (naming the first bad
        row), a point outside the periodic box, ``leafsize < 1``, or more than 2**31
        points.

    Attributes
    ----------
    data : ndarray, shape (n, m)
        The points (float64, or float32 for a float32 tree), equal to the array passed
        in (rounded to the tree's dtype), made at the first access
        from the tree's own copy (the tree does not keep the caller's array alive, so
        memory holds the points once until ``data`` is read).
    n, m : int
        Number of points and of dimensions.
    size : int
        Number of nodes of the tree.
    mins, maxes : ndarray, shape (m,)
        The smallest and largest coordinate on each axis (inf and -inf when n = 0).
    leafsize : int
    boxsize : ndarray of shape (m,), or None
    dtype : numpy.dtype
        float64 or float32.

    Differences from cKDTree: see ``help(quoct)``; in short closed balls, exact answers
    with no rounding slack, ties by smaller index, any Minkowski p >= 1, ValueError for NaN.
    Thread-safety: immutable once built; every method may run from many threads.
    """

    def __init__(self, data, leafsize=None, compact_nodes=True, copy_data=False, balanced_tree=True, boxsize=None,
                 *, dtype=None):
        self.dtype = _tree_dtype(dtype)
        given = data
        data = _points(data, dtype=self.dtype)
        m = data.shape[1]
        self.leafsize = _leafsize(leafsize, m)
        if boxsize is None:
            self.boxsize = None
            box = _np.empty(0)
        else:
            box = _float_array(boxsize, "boxsize")
            try:
                box = _np.ascontiguousarray(_np.broadcast_to(box, (m,)))
            except ValueError:
                raise ValueError(f"quoct: boxsize must be a scalar or have {m} entries, got shape {box.shape}") from None
            if not (_np.isfinite(box) & (box >= 0)).all():
                raise ValueError(f"quoct: boxsize entries must be finite and >= 0, got {box}")
            if self.dtype != _np.float64:
                with _np.errstate(over="ignore", under="ignore"):
                    rounded = box.astype(self.dtype)
                bad = (box > 0) & ~((rounded > 0) & _np.isfinite(rounded))
                if bad.any():
                    raise ValueError(f"quoct: boxsize {box[bad][0]!r} is 0 or infinite in {self.dtype}")
                if data is not given:  # rounded into this dtype: a coordinate that became L is 0
                    wraps = rounded > 0
                    on_end = (data == rounded) & wraps
                    if on_end.any():
                        data[on_end] = 0
        suffix = "f" if self.dtype == _np.float32 else ""
        self._core = getattr(_core, f"Tree{m}{suffix}")(data, self.leafsize, box)
        if box.size:
            self.boxsize = self._core.boxsize.copy()  # the periods the tree uses (rounded to its dtype)
        self._data = None  # the caller's array is not kept: the tree has its own copy
        self._indices = None
        self.m = m
        self.n = self._core.n

    @classmethod
    def _of_core(cls, core):
        """A Tree around a compiled tree read from a file or bytes."""
        self = cls.__new__(cls)
        self._core = core
        self._data = None
        self._indices = None
        self.dtype = _np.dtype(core.dtype)
        self.m = core.mins.shape[0]
        self.n = core.n
        self.leafsize = core.leafsize
        box = core.boxsize
        self.boxsize = None if box is None else box.copy()
        return self

    @property
    def data(self):
        """The points as float64, shape (n, m), in id order: made from the tree's own copy
        at the first access and kept (equal to the array given, or to the stored points of
        a tree read from a file)."""
        if self._data is None:
            self._data = self._core.points()
        return self._data

    @property
    def indices(self):
        """The ids (row numbers of ``data``) in the tree's storage order, int64 of shape
        (n,), as cKDTree's ``indices``: each node's points are one run of it
        (``indices[node.start_idx:node.end_idx]``). Made at the first access and kept."""
        if self._indices is None:
            self._indices = self._core.indices()
            self._indices.setflags(write=False)
        return self._indices

    @property
    def tree(self):
        """The root node, a read-only :class:`TreeNode` (cKDTree's ``tree``), or None for an
        empty tree."""
        return TreeNode(self, 0, 0) if self.size > 0 else None

    def save(self, path):
        """Saves the tree to one file at ``path`` (str or path-like): points, ids and nodes,
        all a later :meth:`load` needs. Atomic: written beside ``path``, flushed to disk,
        then renamed over it, so a failure midway leaves any old file whole. Raises
        :class:`FileError` if it cannot be written."""
        self._core.save(_os.fspath(path))

    @classmethod
    def load(cls, path, mmap=True):
        """The tree saved at ``path``, answering every query as the saved tree did.

        mmap=True (default): the file is memory-mapped read-only: its structure and
        ids are checked, its points read as queries touch them, and its pages
        are shared by every process that maps it. The file must not be changed while the
        tree lives (``save`` replaces a file rather than changing it, which is safe).
        mmap=False: read into memory, every checksum verified.

        Raises :class:`FileError` if the file cannot be read, is not a quoct index file,
        holds another kind of index (a DynamicTree's, a geo.Index's), or is truncated or
        damaged.
        """
        return cls._of_core(_core.tree_from_file(_os.fspath(path), bool(mmap)))

    def iter_neighbourhoods(self, k=None, r=None, chunk=65536):
        """Yields every point's neighbourhood, in the tree's storage order (points near each
        other come together, so a tree loaded with ``mmap=True`` from a file larger than
        memory is read region by region), ``chunk`` points at a time, as
        ``(ids, indices, distances, offsets)``: the chunk's point j has row number ``ids[j]``,
        and its neighbours are ``indices[offsets[j]:offsets[j + 1]]`` at ``distances[...]``
        (int64, int64, float64, int64 arrays), nearest first by (distance, index).

        Give exactly one of ``k`` (the k nearest, the point itself included: as
        :meth:`query` with that k) or ``r`` (every point within distance r, boundary
        included: as :meth:`query_ball_point`, sorted). Memory is one chunk's
        neighbourhoods. Not for a periodic tree. Raises ValueError for both or neither of k
        and r, k < 1, a NaN, infinite or negative r, a periodic tree, and TypeError for a
        chunk that is not a positive int.
        """
        if (k is None) == (r is None):
            raise ValueError("quoct: give exactly one of k and r")
        if isinstance(chunk, bool) or not isinstance(chunk, _numbers.Integral) or chunk < 1:
            raise TypeError(f"quoct: chunk must be a positive int, not {chunk!r}")
        if k is not None:
            if isinstance(k, bool) or not isinstance(k, _numbers.Integral) or k < 1:
                raise ValueError(f"quoct: k must be an integer >= 1, got {k!r}")
            k, r = int(k), 0.0
        else:
            r = float(r)
            if not (r >= 0 and _np.isfinite(r)):
                raise ValueError(f"quoct: r must be finite and >= 0, got {r!r}")
            k = 0
        if self.boxsize is not None:
            raise ValueError("quoct: iter_neighbourhoods is not offered for a periodic tree")
        for start in range(0, self.n, int(chunk)):
            yield self._core.neighbourhoods(start, int(chunk), k, r)

    @classmethod
    def build_file(cls, source, path, memory_limit=1 << 30, leafsize=None, *, dtype=None, temp_dir=None):
        """Builds the file :meth:`load` reads at ``path`` from points that need not fit in
        memory, using at most about ``memory_limit`` bytes (at least 256 KiB): the points
        are sorted in runs on disk, merged, and the tree built part by part. The file is the
        one ``Tree(points, leafsize, dtype=dtype).save(path)`` writes, byte for byte; ids
        are row numbers. Returns None: ``Tree.load(path)`` opens it.

        source : the path of a LAS, PLY or XYZ file (str or path-like; by its extension,
            ``.ply`` and ``.xyz`` in any case, else LAS; x, y, z as float64), or an array of
            shape (n, 2) or (n, 3) of any dtype numpy converts, a ``numpy.memmap`` of a file
            bigger than memory included: it is read twice, a chunk of rows at a time, and
            must not change meanwhile.
        temp_dir : where the temporary files go (default: beside ``path``); they take about
            twice the points' size and are removed whatever happens.

        Raises ValueError (a NaN or infinite coordinate, naming the row; a damaged LAS, PLY or XYZ file;
        a wrong shape; more than 2**31 points, which the C++ library indexes with 64-bit
        ids), and :class:`FileError` (the target or a temporary file cannot be written, as on
        a full disk; the source changed between its readings), leaving any old file at
        ``path`` as it was.
        """
        dt = _tree_dtype(dtype)
        if isinstance(source, (str, bytes, _os.PathLike)):
            src = _os.fsdecode(source)
            m = 3
        else:
            src = source if hasattr(source, "shape") and hasattr(source, "dtype") else _np.asarray(source)
            if len(src.shape) != 2 or src.shape[1] not in (2, 3):
                raise ValueError(f"quoct: build_file reads arrays of shape (n, 2) or (n, 3), not {src.shape}")
            if src.shape[0] > 2**31 - 1:
                raise ValueError("quoct: more than 2**31 - 1 points; quoct.Tree numbers them in 32 bits")
            m = src.shape[1]
        if isinstance(memory_limit, bool) or not isinstance(memory_limit, _numbers.Integral) or memory_limit < 0:
            raise ValueError(f"quoct: memory_limit must be a non-negative int of bytes, got {memory_limit!r}")
        size = _leafsize(leafsize, m)
        _core.build_file(src, _os.fspath(path), int(memory_limit), size, dt == _np.dtype(_np.float32),
                         "" if temp_dir is None else _os.fspath(temp_dir))

    def __reduce__(self):
        # The bytes of the tree's file: unpickling reads them back, with no rebuild.
        return (_tree_from_bytes, (self._core.to_bytes(),))

    @property
    def size(self):
        """Number of nodes of the tree."""
        return self._core.node_count

    @property
    def mins(self):
        """The smallest coordinate on each axis, shape (m,)."""
        return self._core.mins

    @property
    def maxes(self):
        """The largest coordinate on each axis, shape (m,)."""
        return self._core.maxes

    def __len__(self):
        return self.n

    def __repr__(self):
        periodic = "" if self.boxsize is None else f", boxsize={self.boxsize.tolist()}"
        return f"quoct.Tree(n={self.n}, m={self.m}, leafsize={self.leafsize}{periodic})"

    def query_ball_point(self, x, r, p=2.0, eps=0, workers=1, return_sorted=None, return_length=False):
        """The points within distance r of x (a closed ball: distance exactly r is inside).

        Parameters
        ----------
        x : array_like, shape (..., m)
            One query point, or many.
        r : float or array_like
            Radius, or radii broadcast against ``x.shape[:-1]``. Must be >= 0; inf takes
            every point.
        p : float
            Minkowski p >= 1: 2 (Euclidean, the default), 1, inf, or any other.
        eps : float
            Ignored (answers are exact); must be >= 0.
        workers : int
            Threads: 1 (default), k, or -1 for every CPU. The answer does not depend on it.
        return_sorted : bool or None
            Sort each list by increasing index; None (default) sorts when x holds many
            points and not for a single one, as cKDTree.
        return_length : bool
            Return the number of points instead of the list.

        Returns
        -------
        list of int, or ndarray of dtype object and shape ``x.shape[:-1]`` holding lists;
        with return_length an int, or an int64 array of shape ``x.shape[:-1]``.

        Raises
        ------
        ValueError
            Wrong shape or dtype, NaN or infinite x, NaN or negative r, p below 1 or NaN, bad workers.
            With a boxsize, x is first wrapped into the box.
        """
        return _ball_point(self._core, self.m, x, r, p, eps, workers, return_sorted, return_length)

    def query(self, x, k=1, eps=0, p=2, distance_upper_bound=_np.inf, workers=1):
        """The k nearest points of x, closest first, with their distances (Euclidean, or
        Minkowski p).

        Parameters
        ----------
        x : array_like, shape (..., m)
        k : int or sequence of int
            The number of neighbours, or the ranks (1-based) to return, e.g. ``[1, 5]``.
        eps : float
            Ignored (answers are exact); must be >= 0.
        p : float
            Minkowski p >= 1 (1, 2, inf or any other).
        distance_upper_bound : float
            Only neighbours at distance <= this (closed: ``sum((p - x)**2) <= bound**2``).
            The search is capped by it from the start, so a small bound makes the query
            faster. cKDTree's bound is open (``d**2 < bound**2``, scipy 1.10), so it leaves
            out points exactly at the bound, and at a bound of 0 even coincident points.
        workers : int
            Threads: 1 (default), k, or -1 for every CPU.

        Returns
        -------
        d : float or ndarray
            Distances, shape ``x.shape[:-1]`` for k = 1, else ``x.shape[:-1] + (len,)``;
            inf where fewer neighbours exist.
        i : int or ndarray
            Indices into data, same shape; ``n`` where fewer neighbours exist.

        Equal distances are ordered by smaller index. Distances are
        ``sqrt(sum((p - x)**2))``, summed over the axes in order; for another Minkowski p
        the neighbours are ordered by the predicate's value (the sum of |differences|, the
        largest, or the sum of their p-th powers) and the distance is that value's p-th root.

        Raises
        ------
        ValueError
            Wrong shape or dtype, NaN or infinite x, k < 1, negative bound, p below 1 or NaN.
        """
        return _knn(self._core, self.m, x, k, eps, p, distance_upper_bound, workers)

    def query_pairs(self, r, p=2.0, eps=0, output_type="set", workers=1):
        """Every pair of points (i, j), i < j, at distance <= r.

        Parameters
        ----------
        r : float
            Radius, >= 0 (0 pairs up equal points).
        p, eps : float
            Minkowski p >= 1; eps is ignored.
        output_type : {"set", "ndarray"}
            A set of tuples (cKDTree's default), or an int64 array of shape (npairs, 2)
            sorted by (i, j).
        workers : int
            Threads (a quoct extension): 1, k, or -1 for every CPU.

        With a boxsize the distance is the minimum image.

        Raises
        ------
        ValueError
            NaN or negative r, p below 1 or NaN, unknown output_type.
        """
        norm = _check_p_eps(p, eps)
        if output_type not in ("set", "ndarray"):
            raise ValueError(f"quoct: output_type must be 'set' or 'ndarray', got {output_type!r}")
        if norm is None:
            pairs = self._core.pairs(_radius(r), _threads(workers))
        else:  # from the balls of every point, each pair once
            i, j, _, _ = self._core.pairs_norm(self._core, _radius(r), _threads(workers), norm)
            keep = i < j
            pairs = _np.stack([i[keep], j[keep]], axis=1).astype(_np.int64).reshape(-1, 2)
        if output_type == "ndarray":
            return pairs
        return set(map(tuple, pairs.tolist()))

    def query_ball_tree(self, other, r, p=2.0, eps=0, workers=1):
        """For each point i of this tree, the indices of other's points within r of it.

        Parameters
        ----------
        other : Tree
            A tree of the same dimension (and the same boxsize, if any).
        r : float
            Radius, >= 0.
        p, eps : float
            Minkowski p >= 1; eps is ignored.
        workers : int
            Threads (a quoct extension).

        Returns
        -------
        list of lists of int, one per point of this tree, each sorted increasing.

        Raises
        ------
        ValueError
            other not a Tree of the same dimension and boxsize, NaN or negative r, p below 1 or NaN.
        """
        norm = _check_p_eps(p, eps)
        self._check_other(other)
        if norm is not None:
            return self._ball_tree_norm(other, _radius(r), _threads(workers), norm)
        return self._core.ball_tree(other._core, _radius(r), _threads(workers))

    def _ball_tree_norm(self, other, r, threads, norm):
        """query_ball_tree for Minkowski p other than 2: other's ball lists around our points."""
        if self.n == 0:
            return []
        found = other._core.ball_norm(self._core.points(), _np.full(self.n, r), threads, True, norm)
        return found.tolist()

    @staticmethod
    def _lists_to_pairs(lists):
        """(i, j) arrays of every entry j of lists[i]."""
        lengths = _np.fromiter((len(row) for row in lists), dtype=_np.intp, count=len(lists))
        i = _np.repeat(_np.arange(len(lists), dtype=_np.intp), lengths)
        j = _np.fromiter(_itertools.chain.from_iterable(lists), dtype=_np.intp, count=int(lengths.sum()))
        return i, j

    def count_neighbors(self, other, r, p=2.0, weights=None, cumulative=True, workers=1):
        """The number of pairs (x1 of this tree, x2 of other) at distance <= r.

        Parameters
        ----------
        other : Tree
            A tree of the same dimension (and the same boxsize); may be this tree
            itself, then every point also pairs with itself.
        r : float or 1-D array_like
            Radius or radii, each >= 0.
        p : float
            Minkowski p >= 1 (1, 2, inf or any other).
        weights : tuple, array_like or None
            None: every pair counts 1. A tuple (w_self, w_other) of 1-D arrays (either
            may be None, weight 1): a pair (i, j) counts w_self[i] * w_other[j]. One
            array: the weights of both trees, which must then be the same tree. The
            pairs are listed then (within the largest r) and their weights summed.
        cumulative : bool
            True: counts within each r. False: r are bin edges (non-decreasing) and the
            result holds the pairs in each bin, the first bin being [0, r[0]].
        workers : int
            Threads (a quoct extension): 1, k, or -1 for every CPU.

        One count query per point of this tree and radius, in other: no pair is listed,
        and whole nodes inside a ball are counted without visiting their points (with
        weights the pairs within the largest radius are listed, and weighed).

        Returns
        -------
        int for a scalar r, else an int64 array of r's shape; with weights, float and
        float64.

        Raises
        ------
        ValueError
            other not a compatible Tree, r not scalar or 1-D, NaN or negative r,
            decreasing r with cumulative=False, p below 1 or NaN, bad workers, weights of the
            wrong length, one weights array for two different trees.
        """
        norm = _check_p_eps(p, 0)
        self._check_other(other)
        radii = _float_array(r, "r")
        if radii.ndim > 1:
            raise ValueError(f"quoct: r must be a scalar or 1-D, got shape {radii.shape}")
        flat = radii.reshape(-1)
        if not (flat >= 0).all():
            raise ValueError("quoct: r must be >= 0 (and not NaN)")
        if not cumulative and (_np.diff(flat) < 0).any():
            raise ValueError("quoct: with cumulative=False, r must be non-decreasing (bin edges)")
        threads = _threads(workers)
        if weights is not None:
            counts = self._weighted_counts(other, flat, weights, threads, norm)
            if not cumulative:
                counts = _np.diff(counts, prepend=0.0)
            return float(counts[0]) if radii.ndim == 0 else counts
        if norm is not None:  # a ball count in other around each of our points, per radius
            core = other._core
            points = self._core.points()
            counts = _np.array([int(core.ball_count_norm(points, _np.full(self.n, r), threads, norm).sum())
                                for r in flat], dtype=_np.int64)
            if not cumulative:
                counts = _np.diff(counts, prepend=0)
            return int(counts[0]) if radii.ndim == 0 else counts
        order = _np.argsort(flat, kind="stable")
        counts = _np.empty(flat.shape, dtype=_np.int64)
        counts[order] = self._core.count_pairs(other._core, _np.ascontiguousarray(flat[order]), threads)
        if not cumulative:
            counts = _np.diff(counts, prepend=0)
        return int(counts[0]) if radii.ndim == 0 else counts

    def sparse_distance_matrix(self, other, max_distance, p=2.0, output_type="dok_matrix"):
        """The distances of every pair (i of this tree, j of other) within max_distance.

        Parameters
        ----------
        other : Tree
            A tree of the same dimension (and boxsize).
        max_distance : float
            >= 0; pairs at exactly max_distance are included (closed, as every quoct ball).
        p : float
            Minkowski p >= 1 (1, 2, inf or any other).
        output_type : str
            'dok_matrix' (default) or 'coo_matrix' (scipy.sparse, shape (n, other.n)),
            'dict' ({(i, j): distance}), or 'ndarray' (a structured array with fields
            'i', 'j' (intp) and 'v' (float64)).

        The pairs are those of query_ball_tree (the exact predicate); each distance is
        sqrt of the squared differences summed over the axes in order (minimum image on
        periodic axes), in the tree's dtype; for another Minkowski p the p-th root of the
        predicate's value (the sum or the largest for p = 1 or inf). A pair at distance 0
        is included. For a float32 tree max_distance is rounded to float32 first, so a
        distance may exceed the float64 max_distance by that rounding.

        Raises
        ------
        ValueError
            other not a compatible Tree, NaN or negative max_distance, p below 1 or NaN, an
            unknown output_type.
        """
        norm = _check_p_eps(p, 0)
        self._check_other(other)
        if output_type not in ("dok_matrix", "coo_matrix", "dict", "ndarray"):
            raise ValueError(f"quoct: output_type must be 'dok_matrix', 'coo_matrix', 'dict' or 'ndarray', "
                             f"got {output_type!r}")
        i, j, s, e = self._pairs_within(other, _radius(max_distance, "max_distance"), 1, norm)
        v = _np.ldexp(_np.sqrt(s), e).astype(_np.float64) if norm is None else e
        if output_type == "ndarray":
            out = _np.empty(len(i), dtype=[("i", _np.intp), ("j", _np.intp), ("v", _np.float64)])
            out["i"], out["j"], out["v"] = i, j, v
            return out
        if output_type == "dict":
            return dict(zip(zip(i.tolist(), j.tolist()), v.tolist()))
        import scipy.sparse

        coo = scipy.sparse.coo_matrix((v, (i, j)), shape=(self.n, other.n))
        return coo if output_type == "coo_matrix" else coo.todok()

    def _pairs_within(self, other, r, threads, norm=None):
        """(i, j, s, e) of every pair within r (query_ball_tree's): ids in this tree and in
        other, ordered by (i, j). For p = 2, s * 4^e is the squared distance (summed over
        the axes in order in float64, with no overflow or underflow, as the trees decide
        it). For another p, s is the value the trees' predicate compares (the sum, the
        maximum, or the sum of p-th powers) and e the distance, both from the C++ side."""
        if norm is not None:
            i, j, s, d = self._core.pairs_norm(other._core, r, threads, norm)
            return i.astype(_np.intp), j.astype(_np.intp), s, d
        i, j = self._lists_to_pairs(self._core.ball_tree(other._core, r, threads))
        a, b = self._core.points(), (other._core.points() if other is not self else None)
        b = a if b is None else b
        diffs = []
        for axis in range(self.m):
            d = _np.abs(a[i, axis] - b[j, axis])
            if self.boxsize is not None and self.boxsize[axis] > 0:
                period = self.dtype.type(self.boxsize[axis])  # in the tree's type, as it wraps
                d = _np.minimum(d, period - d)  # the nearer image
            diffs.append(d)
        # p = 2 as the trees decide it, in the tree's type (a and b are float32 arrays for a
        # float32 tree), with no overflow or underflow of the squares: each pair scaled by
        # 2^-e (exact), e its largest difference's exponent; the squared distance is s * 4^e.
        e = _np.frexp(_np.maximum.reduce(diffs) if diffs else _np.zeros(len(i), dtype=self.dtype))[1]
        s = _np.zeros(len(i), dtype=self.dtype)
        with _np.errstate(under="ignore"):  # an axis far smaller than the largest adds nothing
            for d in diffs:
                scaled = _np.ldexp(d, -e)
                s = s + scaled * scaled
        return i, j, s, e

    def _weighted_counts(self, other, radii, weights, threads, norm=None):
        """count_neighbors through the listed pairs (with weights, or a Minkowski p other
        than 2): the summed w_self[i] * w_other[j] (1 without weights) of the pairs within
        each radius (float64, radii's order)."""
        if weights is None:
            weights = (None, None)
        if isinstance(weights, tuple):
            if len(weights) != 2:
                raise ValueError("quoct: weights must be a tuple of two arrays (or None), or one array")
            w_self, w_other = weights
        else:
            if other is not self:
                raise ValueError("quoct: one weights array needs other to be this tree; give a tuple "
                                 "(weights of this tree, weights of other)")
            w_self = w_other = weights

        def check(w, n, which):
            if w is None:
                return None
            w = _float_array(w, f"weights of {which}")
            if w.shape != (n,):
                raise ValueError(f"quoct: weights of {which} must have shape ({n},), got {w.shape}")
            return w

        w_self, w_other = check(w_self, self.n, "this tree"), check(w_other, other.n, "other")
        if radii.size == 0:
            return _np.zeros(0)
        i, j, s, e = self._pairs_within(other, float(radii.max()), threads, norm)
        w = _np.ones(len(i))
        if w_self is not None:
            w = w * w_self[i]
        if w_other is not None:
            w = w * w_other[j]
        if norm is not None:  # a pair is within r when its value s is <= the radius's bound
            order = _np.argsort(s, kind="stable")
            total = _np.concatenate(([0.0], _np.cumsum(w[order])))
            bounds = self._core.norm_bounds(_np.ascontiguousarray(radii, dtype=_np.float64), norm)
            return total[_np.searchsorted(s[order], bounds, side="right")]
        # p = 2: within r when s <= (r 2^-e)^2, the scaled form of the trees' d^2 <= r^2.
        out = _np.empty(len(radii))
        with _np.errstate(over="ignore", under="ignore"):  # (r 2^-e)^2 may leave the range: rightly
            for k, r in enumerate(radii):
                scaled = _np.ldexp(_np.full(len(s), r, dtype=s.dtype), -e)  # r rounded to the tree's type
                out[k] = w[s <= scaled * scaled].sum()
        return out

    def _check_other(self, other):
        if not isinstance(other, Tree):
            raise ValueError(f"quoct: other must be a quoct.Tree, got {type(other).__name__}")
        if other.m != self.m:
            raise ValueError(f"quoct: other has {other.m} dimensions, this tree {self.m}")
        same_box = (self.boxsize is None and other.boxsize is None) or (
            self.boxsize is not None and other.boxsize is not None and _np.array_equal(self.boxsize, other.boxsize)
        )
        if not same_box:
            raise ValueError("quoct: both trees must have the same boxsize (or none)")
        if other.dtype != self.dtype:
            raise ValueError(f"quoct: other is a {other.dtype} tree, this one {self.dtype}: both must have the same dtype")


# --- the dynamic tree -------------------------------------------------------------------


class TreeNode:
    """One node of a :class:`Tree`, read-only: the node view cKDTree gives as ``tree``
    (cKDTreeNode), for quoct's nodes. A quoct node has up to 2**m children (a quadtree's
    four, an octree's eight), not a kd-tree's two, so there is no ``split_dim`` or
    ``split``; ``lesser`` and ``greater`` are the children of a node that has exactly two.

    Attributes
    ----------
    level : int
        Depth below the root (0).
    start_idx, end_idx : int
        The node's points are ``tree.indices[start_idx:end_idx]``.
    children : int
        Number of points in the node (cKDTree's name for it).
    indices : ndarray of int64
        Their ids.
    data_points : ndarray, shape (children, m)
        Their coordinates (``tree.data[indices]``).
    mins, maxes : ndarray, shape (m,)
        The smallest box holding the node's points.
    leaf : bool
    nodes : list of TreeNode
        The children, empty for a leaf.
    lesser, greater : TreeNode or None
    """

    __slots__ = ("_tree", "_index", "level", "start_idx", "end_idx", "_next", "mins", "maxes")

    def __init__(self, tree, index, level):
        self._tree, self._index, self.level = tree, index, level
        self.start_idx, self.end_idx, self._next, self.mins, self.maxes = tree._core.node(index)

    @property
    def children(self):
        return self.end_idx - self.start_idx

    @property
    def leaf(self):
        return self._next == self._index + 1

    @property
    def indices(self):
        return self._tree.indices[self.start_idx:self.end_idx]

    @property
    def data_points(self):
        return self._tree.data[self.indices]

    @property
    def nodes(self):
        out = []
        at = self._index + 1
        while at < self._next:
            child = TreeNode(self._tree, at, self.level + 1)
            out.append(child)
            at = child._next
        return out

    @property
    def lesser(self):
        nodes = self.nodes
        return nodes[0] if len(nodes) == 2 else None

    @property
    def greater(self):
        nodes = self.nodes
        return nodes[1] if len(nodes) == 2 else None

    def __repr__(self):
        kind = "leaf" if self.leaf else f"{len(self.nodes)} children"
        return f"quoct.TreeNode(level={self.level}, points={self.children}, {kind})"


def _tree_from_bytes(data):
    return Tree._of_core(_core.tree_from_bytes(data))


def _dynamic_from_bytes(data):
    return DynamicTree._of_core(_core.dynamic_from_bytes(data))


class DynamicTree:
    """A spatial index whose points can be inserted, erased and moved, with stable ids.

    DynamicTree(data, leafsize=None)

    Point i of ``data`` (shape (n, m), m = 1..4) gets id i; ``insert`` hands out
    ``id_bound``, the next id, and an erased id is never reused. Queries answer exactly
    as a :class:`Tree` over the live points would (closed balls, ties by smaller id),
    with these ids.

    Raises ValueError for a wrong shape or dtype or a NaN or infinite coordinate; the
    index is then unchanged. Thread-safety: queries release the GIL and may run from
    many threads at once; a mutation waits for running queries and runs alone.
    """

    def __init__(self, data, leafsize=None):
        data = _points(data, max_dim=_MAX_DYNAMIC_DIM)
        self.m = data.shape[1]
        self.leafsize = _leafsize(leafsize, self.m)
        self._core = getattr(_core, f"Dynamic{self.m}")(data, self.leafsize)

    @classmethod
    def _of_core(cls, core):
        self = cls.__new__(cls)
        self._core = core
        self.m = int(type(core).__name__[len("Dynamic"):])
        self.leafsize = core.leafsize
        return self

    def save(self, path):
        """Saves the index to one file at ``path``: its live points, ids (erased ones stay
        erased) and trees, so that a loaded index goes on handing out the same next id.
        Atomic, as :meth:`Tree.save`. Raises :class:`FileError`."""
        self._core.save(_os.fspath(path))

    @classmethod
    def load(cls, path):
        """The index saved at ``path``, read into memory (checksums verified): the same
        live ids and points, the same answers, and ``insert`` returns the same next id.
        Raises :class:`FileError` as :meth:`Tree.load` does."""
        return cls._of_core(_core.dynamic_from_file(_os.fspath(path)))

    def __reduce__(self):
        return (_dynamic_from_bytes, (self._core.to_bytes(),))

    @property
    def n(self):
        """Number of live points."""
        return self._core.size

    @property
    def id_bound(self):
        """Every id handed out so far is below this; the next insert returns it."""
        return self._core.id_bound

    def __len__(self):
        return self._core.size

    def __contains__(self, i):
        """True when i is the id of a live point."""
        return isinstance(i, _numbers.Integral) and self._core.contains(int(i))

    def __repr__(self):
        return f"quoct.DynamicTree(n={self.n}, m={self.m}, id_bound={self.id_bound})"

    def _point(self, p):
        arr = _float_array(p, "p")
        if arr.shape != (self.m,):
            raise ValueError(f"quoct: a point must have shape ({self.m},), got {arr.shape}")
        return arr

    def insert(self, p):
        """Adds point p (shape (m,)) and returns its id. ValueError for NaN or infinite p."""
        return self._core.insert(self._point(p))

    def erase(self, i):
        """Removes the point with id i; returns False (changing nothing) if i is not live."""
        return self._core.erase(int(i))

    def insert_all(self, points):
        """Adds the rows of ``points`` (shape (k, m), a scan) at once and returns the first
        one's id: row j gets id first + j. Cheaper than k inserts. ValueError for a wrong
        shape or a NaN or infinite coordinate anywhere; nothing is added then."""
        arr = _float_array(points, "points")
        if arr.ndim != 2 or arr.shape[1] != self.m:
            raise ValueError(f"quoct: points must have shape (k, {self.m}), got {arr.shape}")
        return self._core.insert_all(arr)

    def insert_downsampled(self, points, voxel):
        """Adds the rows of ``points`` (shape (k, m), a scan) thinned to one point per voxel:
        the cubes of side ``voxel`` on a grid through the origin, row p lying in the one
        with index floor(p[a] / voxel) on each axis (in float64). In order, a row is added
        unless a live point, or an earlier row, lies in its voxel. Returns the ids (shape
        (k,), int64): a row's own if added (first, first + 1, ... in row order), else that
        of the point holding its voxel (of the live points there, the smallest id).
        ValueError for a voxel that is not positive and finite, a wrong shape or a NaN or
        infinite coordinate anywhere; nothing is added then."""
        arr = _float_array(points, "points")
        if arr.ndim != 2 or arr.shape[1] != self.m:
            raise ValueError(f"quoct: points must have shape (k, {self.m}), got {arr.shape}")
        return self._core.insert_downsampled(arr, float(voxel))

    def move(self, i, p):
        """Moves the point with id i to p (shape (m,)); its id stays. With ids of shape (k,)
        and p of shape (k, m), moves them all as one batch (an id given twice ends at its
        last row). IndexError if an id is not live, ValueError for a wrong shape or a NaN
        or infinite coordinate; the index is then unchanged."""
        if _np.ndim(i) == 0:
            self._core.move(int(i), self._point(p))
            return
        ids = _np.asarray(i)
        if ids.ndim != 1 or not (ids.size == 0 or _np.issubdtype(ids.dtype, _np.integer)):
            raise ValueError(f"quoct: ids must be integers of shape (k,), got {ids.dtype} {ids.shape}")
        arr = _float_array(p, "p")
        if arr.ndim != 2 or arr.shape != (ids.shape[0], self.m):
            raise ValueError(f"quoct: p must have shape ({ids.shape[0]}, {self.m}), got {arr.shape}")
        self._core.move_many(ids.astype(_np.int64), arr)

    def erase_in(self, lo, hi):
        """Removes every live point in the closed box [lo, hi] (faces included) and returns
        how many. ValueError for a NaN or lo > hi; the index is then unchanged."""
        return self._core.erase_box(self._point(lo), self._point(hi), False)

    def erase_outside(self, lo, hi):
        """Removes every live point outside the closed box [lo, hi] (a local map around a
        sensor: points on the faces stay) and returns how many. Raises as erase_in."""
        return self._core.erase_box(self._point(lo), self._point(hi), True)

    def move_all(self, points):
        """Moves every live point at once: id i goes to points[i]; points has shape
        (id_bound, m) (rows of erased ids are not read). Costs about one rebuild, far less
        than moving most points one by one. ValueError for a wrong shape or a NaN or
        infinite coordinate of a live point; the index is then unchanged."""
        arr = _float_array(points, "points")
        if arr.ndim != 2 or arr.shape[1] != self.m:
            raise ValueError(f"quoct: points must have shape (id_bound, {self.m}), got {arr.shape}")
        self._core.move_all(arr)

    def point(self, i):
        """The coordinates of live point i, shape (m,). IndexError if i is not live."""
        return self._core.point(int(i))

    def rebuild(self):
        """Rebuilds the internal snapshot tree (done automatically when needed)."""
        self._core.rebuild()

    def query_ball_point(self, x, r, p=2.0, eps=0, workers=1, return_sorted=None, return_length=False):
        """The live points within distance r of x; as :meth:`Tree.query_ball_point`."""
        return _ball_point(self._core, self.m, x, r, p, eps, workers, return_sorted, return_length)

    def query(self, x, k=1, eps=0, p=2, distance_upper_bound=_np.inf, workers=1):
        """The k nearest live points of x; as :meth:`Tree.query`, but missing neighbours
        are padded with ``id_bound`` (never a live id) instead of n."""
        return _knn(self._core, self.m, x, k, eps, p, distance_upper_bound, workers)


def _las_path(path):
    if not isinstance(path, (str, bytes, _os.PathLike)):
        raise TypeError(f"quoct: path must be a str or os.PathLike, not {type(path).__name__}")
    return _os.fsdecode(path)


def _las_fields(fields):
    if isinstance(fields, str):
        raise TypeError("quoct: fields must be a sequence of names, not one str (use [name])")
    names = list(fields)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"quoct: field names are str, not {type(name).__name__}")
    return names


def las_header(path):
    """The header of the LAS file at ``path``, checked against the file (its points are not
    read): a dict with ``version`` (major, minor), ``point_format``, ``record_length``,
    ``point_count``, ``point_offset``, ``scale``, ``offset``, ``min``, ``max`` (x, y, z
    tuples), ``system_identifier``, ``generating_software``, ``fields`` (the names
    :func:`read_las` accepts) and ``notes`` (what the reader set aside, as an Extra Bytes
    record it cannot use). The header's bounds are not checked here (they are checked
    against the points, which this does not read). Raises ValueError for a file that is
    not a readable LAS file.
    """
    return _core.LasReader(_las_path(path), [], False).header


def iter_las(path, chunk=1 << 20, fields=(), check_bounds=True):
    """Yields the points of the LAS file at ``path`` in file order, at most ``chunk`` at a
    time, as ``(xyz, values)``: ``xyz`` an (m, 3) float64 array, ``values`` a dict from each
    name in ``fields`` to an (m,) float64 array. Memory is bounded by the chunk, whatever
    the file's size. Raises ValueError as :func:`read_las` does (a bad point when its chunk
    is read), and TypeError for a chunk that is not a positive int.
    """
    if isinstance(chunk, bool) or not isinstance(chunk, _numbers.Integral) or chunk < 1:
        raise TypeError(f"quoct: chunk must be a positive int, not {chunk!r}")
    names = _las_fields(fields)
    reader = _core.LasReader(_las_path(path), names, bool(check_bounds))
    while True:
        xyz, values = reader.read(int(chunk))
        if len(xyz) == 0:
            return
        yield xyz, {name: values[:, j].copy() for j, name in enumerate(names)}


def read_las(path, fields=(), check_bounds=True):
    """Reads every point of the LAS file at ``path`` (LAS 1.0 to 1.4, point formats 0 to
    10, uncompressed): returns ``(xyz, values)``, ``xyz`` an (n, 3) float64 array (each
    coordinate ``X * scale + offset``, the product rounded before the sum, as the LAS
    specification computes it) and ``values`` a dict from each name in ``fields`` to an
    (n,) float64 array. Field names: intensity, return_number, number_of_returns,
    scan_direction_flag, edge_of_flight_line, classification, synthetic, key_point,
    withheld, overlap and scanner_channel (formats 6-10), scan_angle (degrees),
    user_data, point_source_id, gps_time, red, green, blue, nir, and the file's extra
    bytes by name (:func:`las_header` lists a file's). ``check_bounds=False`` reads a file
    whose points lie outside its header's bounds.

    Raises ValueError naming the file and the cause: not a LAS file, a version or format
    it does not know, a truncated or damaged file (a point count that disagrees with the
    file's size, records too short for the format, records past the points' start), a
    compressed (LAZ) file, a field the format lacks, a point outside the header's bounds.
    """
    names = _las_fields(fields)
    reader = _core.LasReader(_las_path(path), names, bool(check_bounds))
    count = reader.header["point_count"]
    xyz, values = reader.read(max(count, 1))
    return xyz, {name: values[:, j].copy() for j, name in enumerate(names)}


def _split_rows(offsets, values):
    """A csr (offsets, values) as a list of int64 arrays, one per row."""
    return _np.split(values, offsets[1:-1]) if len(offsets) > 1 else []


class BoxTree:
    """A static index of axis-aligned boxes (rectangles in 2-D, boxes in 3-D).

    BoxTree(mins, maxes)

    Box i spans ``mins[i]`` to ``maxes[i]`` (both of shape (n, m), m = 2 or 3) and has id i.
    Boxes are closed: boxes that share a face, an edge or a corner meet, a point on a face
    is inside. The boxes are packed into a hierarchy of their own bounds (a packed R-tree,
    as ``quoct::packed_box_index`` in C++); every answer is exact, equal to testing every
    box.

    Queries (each answer an int64 array of ids, sorted; batches give a list of them):
    ``query_box`` (boxes meeting a box), ``query_ball_point`` (boxes meeting a ball),
    ``query_point`` (boxes containing a point), ``query`` (the k nearest boxes, scipy's
    ``(d, i)``), ``query_pairs`` (every pair of boxes that meet) and ``query_box_tree``
    (for each box of another tree, the boxes of this one that meet it).

    Raises ValueError for a wrong shape, a NaN or infinite corner, or a box with
    ``mins > maxes`` on an axis (naming the box). Trees are immutable: any number of
    threads may query one at once; every method releases the GIL.
    """

    def __init__(self, mins, maxes):
        lo = _points(mins, "mins", max_dim=3)
        hi = _points(maxes, "maxes", max_dim=3)
        if lo.shape != hi.shape:
            raise ValueError(f"quoct: mins and maxes must have the same shape, got {lo.shape} and {hi.shape}")
        if lo.shape[1] not in (2, 3):
            raise ValueError(f"quoct: BoxTree takes 2-D or 3-D boxes, got {lo.shape[1]} columns")
        self.m = lo.shape[1]
        self._core = getattr(_core, f"Boxes{self.m}")(lo, hi)

    @property
    def n(self):
        """Number of boxes."""
        return self._core.size

    def __len__(self):
        return self._core.size

    def __repr__(self):
        return f"quoct.BoxTree(n={self.n}, m={self.m})"

    @property
    def mins(self):
        """The boxes' lower corners, (n, m) (a copy)."""
        return self._core.bounds()[0]

    @property
    def maxes(self):
        """The boxes' upper corners, (n, m) (a copy)."""
        return self._core.bounds()[1]

    def _batch(self, x):
        arr, lead = _queries(x, self.m)
        return arr, lead

    def _rows(self, lead, offsets, values):
        rows = _split_rows(offsets, values)
        return rows[0] if lead == () else rows

    def query_box(self, mins, maxes, workers=1):
        """Ids of the boxes meeting the box [mins, maxes] (shape (m,): one array), or each
        of many (shape (..., m): a list of arrays, flattened in C order). A query box may
        reach to infinity; NaN or ``mins > maxes`` raise ValueError."""
        lo, lead = self._batch(mins)
        hi, lead_hi = self._batch(maxes)
        if lead != lead_hi:
            raise ValueError(f"quoct: mins and maxes must have the same shape, got {lead} and {lead_hi}")
        return self._rows(lead, *self._core.query_boxes(lo, hi, _threads(workers)))

    def query_ball_point(self, x, r, workers=1):
        """Ids of the boxes meeting the closed ball of centre x and radius r (a box meets it
        when its nearest point to x is within r, summed in float64 as the point trees
        decide). x of shape (m,) gives one array, (..., m) a list; r broadcasts."""
        arr, lead = self._batch(x)
        rr = _radii(r, lead)
        return self._rows(lead, *self._core.query_balls(arr, rr, _threads(workers)))

    def query_point(self, x, workers=1):
        """Ids of the boxes containing the point x (mins <= x <= maxes on every axis): one
        array for x of shape (m,), a list for (..., m)."""
        arr, lead = self._batch(x)
        return self._rows(lead, *self._core.query_points(arr, _threads(workers)))

    def query(self, x, k=1, workers=1, ties="smallest_id"):
        """The k nearest boxes of x, as scipy's cKDTree.query: ``(d, i)``, Euclidean
        distances to the boxes (0 for a box holding x) and ids, nearest first, ties by
        smaller id; shapes as cKDTree's (k = 1: x's leading shape; an int k > 1: an extra
        axis of k), padded with inf and n when there are fewer than k boxes.
        ``ties="any"``: any of equally distant boxes (the same distances), which stops
        after k of them where x lies inside many boxes; much faster there."""
        if isinstance(k, bool) or not isinstance(k, _numbers.Integral) or k < 1:
            raise ValueError(f"quoct: k must be an integer >= 1, got {k!r}")
        if ties not in ("smallest_id", "any"):
            raise ValueError(f"quoct: ties must be 'smallest_id' or 'any', got {ties!r}")
        arr, lead = self._batch(x)
        d, i = self._core.nearest(arr, int(k), ties == "any", _threads(workers))
        if k == 1:
            return d.reshape(lead)[()], i.reshape(lead)[()]
        return d.reshape(lead + (k,)), i.reshape(lead + (k,))

    def query_pairs(self, workers=1):
        """Every pair (a, b), a < b, of boxes that meet: an (p, 2) int64 array sorted by
        (a, b)."""
        return self._core.pairs(_threads(workers))

    def query_box_tree(self, other, workers=1):
        """A join: row i lists the ids of this tree's boxes that meet box i of ``other`` (a
        BoxTree of the same dimension)."""
        if not isinstance(other, BoxTree) or other.m != self.m:
            raise ValueError(f"quoct: other must be a {self.m}-dimensional BoxTree")
        return _split_rows(*self._core.join(other._core, _threads(workers)))
