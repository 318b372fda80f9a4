# quoct._core is private: use quoct.Tree, quoct.DynamicTree and quoct.geo.Index.
from typing import Any

__version__: str
earth_radius_km: float

def __getattr__(name: str) -> Any: ...
