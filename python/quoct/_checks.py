"""Argument checks shared by quoct's Python classes (private)."""

import numbers as _numbers

from . import _core


def leafsize(value, m):
    """The leaf size for a tree of dimension m: value checked (an integer >= 1, ValueError
    otherwise), or for None the C++ default of that dimension."""
    if value is None:
        return int(_core.default_leaf_size(m))
    if isinstance(value, bool) or not isinstance(value, _numbers.Integral) or value < 1:
        raise ValueError(f"quoct: leafsize must be an integer >= 1, got {value!r}")
    return int(value)
