# Type stubs for quoct (the docstrings are in __init__.py: help(quoct.Tree)).
import os
from typing import Any, Dict, Iterator, List, Literal, Optional, Sequence, Set, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import geo as geo

__version__: str
__all__: List[str]

_Path = Union[str, "os.PathLike[str]"]
_Workers = Optional[int]

class FileError(OSError): ...
_K = Union[int, Sequence[int]]

class TreeNode:
    level: int
    start_idx: int
    end_idx: int
    mins: npt.NDArray[np.float64]
    maxes: npt.NDArray[np.float64]
    @property
    def children(self) -> int: ...
    @property
    def leaf(self) -> bool: ...
    @property
    def indices(self) -> npt.NDArray[np.int64]: ...
    @property
    def data_points(self) -> npt.NDArray[Any]: ...
    @property
    def nodes(self) -> List["TreeNode"]: ...
    @property
    def lesser(self) -> Optional["TreeNode"]: ...
    @property
    def greater(self) -> Optional["TreeNode"]: ...

class Tree:
    data: npt.NDArray[Any]
    n: int
    m: int
    leafsize: int
    boxsize: Optional[npt.NDArray[np.float64]]
    dtype: np.dtype[Any]
    def __init__(
        self,
        data: npt.ArrayLike,
        leafsize: Optional[int] = None,
        compact_nodes: bool = True,
        copy_data: bool = False,
        balanced_tree: bool = True,
        boxsize: Optional[npt.ArrayLike] = None,
        *,
        dtype: Optional[npt.DTypeLike] = None,
    ) -> None: ...
    @property
    def indices(self) -> npt.NDArray[np.int64]: ...
    @property
    def tree(self) -> Optional[TreeNode]: ...
    def save(self, path: _Path) -> None: ...
    @classmethod
    def load(cls, path: _Path, mmap: bool = True) -> "Tree": ...
    def iter_neighbourhoods(self, k: Optional[int] = None, r: Optional[float] = None,
                            chunk: int = 65536) -> Iterator[Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]: ...
    @classmethod
    def build_file(cls, source: Any, path: _Path, memory_limit: int = ..., leafsize: Optional[int] = None, *,
                   dtype: Any = None, temp_dir: Optional[_Path] = None) -> None: ...
    @property
    def size(self) -> int: ...
    @property
    def mins(self) -> npt.NDArray[np.float64]: ...
    @property
    def maxes(self) -> npt.NDArray[np.float64]: ...
    def __len__(self) -> int: ...
    def query_ball_point(
        self,
        x: npt.ArrayLike,
        r: npt.ArrayLike,
        p: float = 2.0,
        eps: float = 0,
        workers: _Workers = 1,
        return_sorted: Optional[bool] = None,
        return_length: bool = False,
    ) -> Any: ...
    def query(
        self,
        x: npt.ArrayLike,
        k: _K = 1,
        eps: float = 0,
        p: float = 2,
        distance_upper_bound: float = ...,
        workers: _Workers = 1,
    ) -> Tuple[Any, Any]: ...
    def query_pairs(
        self, r: float, p: float = 2.0, eps: float = 0, output_type: str = "set", workers: _Workers = 1
    ) -> Union[Set[Tuple[int, int]], npt.NDArray[np.int64]]: ...
    def query_ball_tree(
        self, other: "Tree", r: float, p: float = 2.0, eps: float = 0, workers: _Workers = 1
    ) -> List[List[int]]: ...
    def count_neighbors(
        self,
        other: "Tree",
        r: npt.ArrayLike,
        p: float = 2.0,
        weights: Union[None, npt.ArrayLike, Tuple[Optional[npt.ArrayLike], Optional[npt.ArrayLike]]] = None,
        cumulative: bool = True,
        workers: Optional[int] = 1,
    ) -> Union[int, float, npt.NDArray[np.int64], npt.NDArray[np.float64]]: ...
    def sparse_distance_matrix(
        self, other: "Tree", max_distance: float, p: float = 2.0, output_type: str = "dok_matrix"
    ) -> Any: ...

class DynamicTree:
    m: int
    leafsize: int
    def __init__(self, data: npt.ArrayLike, leafsize: Optional[int] = None) -> None: ...
    def save(self, path: _Path) -> None: ...
    @classmethod
    def load(cls, path: _Path) -> "DynamicTree": ...
    @property
    def n(self) -> int: ...
    @property
    def id_bound(self) -> int: ...
    def __len__(self) -> int: ...
    def __contains__(self, i: object) -> bool: ...
    def insert(self, p: npt.ArrayLike) -> int: ...
    def erase(self, i: int) -> bool: ...
    def move(self, i: int, p: npt.ArrayLike) -> None: ...
    def move_all(self, points: npt.ArrayLike) -> None: ...
    def point(self, i: int) -> npt.NDArray[np.float64]: ...
    def rebuild(self) -> None: ...
    def query_ball_point(
        self,
        x: npt.ArrayLike,
        r: npt.ArrayLike,
        p: float = 2.0,
        eps: float = 0,
        workers: _Workers = 1,
        return_sorted: Optional[bool] = None,
        return_length: bool = False,
    ) -> Any: ...
    def query(
        self,
        x: npt.ArrayLike,
        k: _K = 1,
        eps: float = 0,
        p: float = 2,
        distance_upper_bound: float = ...,
        workers: _Workers = 1,
    ) -> Tuple[Any, Any]: ...

def las_header(path: _Path) -> Dict[str, Any]: ...
def iter_las(
    path: _Path,
    chunk: int = ...,
    fields: Sequence[str] = (),
    check_bounds: bool = True,
) -> Iterator[Tuple[npt.NDArray[np.float64], Dict[str, npt.NDArray[np.float64]]]]: ...
def read_las(
    path: _Path,
    fields: Sequence[str] = (),
    check_bounds: bool = True,
) -> Tuple[npt.NDArray[np.float64], Dict[str, npt.NDArray[np.float64]]]: ...

class BoxTree:
    m: int
    def __init__(self, mins: npt.ArrayLike, maxes: npt.ArrayLike) -> None: ...
    @property
    def n(self) -> int: ...
    def __len__(self) -> int: ...
    @property
    def mins(self) -> npt.NDArray[np.float64]: ...
    @property
    def maxes(self) -> npt.NDArray[np.float64]: ...
    def query_box(self, mins: npt.ArrayLike, maxes: npt.ArrayLike, workers: _Workers = 1) -> Any: ...
    def query_ball_point(self, x: npt.ArrayLike, r: npt.ArrayLike, workers: _Workers = 1) -> Any: ...
    def query_point(self, x: npt.ArrayLike, workers: _Workers = 1) -> Any: ...
    def query(self, x: npt.ArrayLike, k: int = 1, workers: _Workers = 1,
              ties: Literal["smallest_id", "any"] = "smallest_id") -> Tuple[Any, Any]: ...
    def query_pairs(self, workers: _Workers = 1) -> npt.NDArray[np.int64]: ...
    def query_box_tree(self, other: "BoxTree", workers: _Workers = 1) -> List[npt.NDArray[np.int64]]: ...
