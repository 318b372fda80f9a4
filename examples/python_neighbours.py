#!/usr/bin/env python3
"""quoct from Python: neighbours in a point cloud, and the nearest city to some places.

    python3 examples/python_neighbours.py [data_dir]

(with quoct installed by pip, or PYTHONPATH=build/python after a CMake build). Reads the
Stanford bunny's vertices and the world cities from data/.
"""

import csv
import pathlib
import sys

import numpy as np

import quoct

data = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1] / "data")

# --- a point cloud: every vertex's neighbours within r ----------------------------------
cloud = np.loadtxt(data / "bunny.csv", delimiter=",", skiprows=1)  # about 10 units across
tree = quoct.Tree(cloud)
r = 0.5
counts = tree.query_ball_point(cloud, r=r, return_length=True, workers=-1)
print(f"bunny: {tree.n} vertices in {tree.m}D, box {tree.mins.round(3)} .. {tree.maxes.round(3)}")
print(f"  neighbours within {r} (itself included): min {counts.min()}, median {int(np.median(counts))}, max {counts.max()}")
lonely = np.flatnonzero(counts == 1)
print(f"  {len(lonely)} vertices with no other vertex that close")

# Closest other vertex of each: k=2, since the nearest is the vertex itself (distance 0).
d, i = tree.query(cloud, k=2, workers=-1)
print(f"  spacing to the nearest other vertex: median {np.median(d[:, 1]):.4f}, max {d[:, 1].max():.4f}")
pairs = tree.query_pairs(0.2, output_type="ndarray")
print(f"  {len(pairs)} pairs of vertices within 0.2 of each other, e.g. {pairs[:3].tolist()}")

# --- the nearest city to a list of coordinates ------------------------------------------
names, lon, lat = [], [], []
with open(data / "cities.csv", newline="", encoding="utf-8") as f:
    for row in csv.DictReader(f):
        names.append(row["name"])
        lon.append(float(row["lon"]))
        lat.append(float(row["lat"]))
cities = quoct.geo.Index(lon, lat)
print(f"\ncities: {cities.n} places")
places = {
    "Eiffel Tower": (2.2945, 48.8584),
    "Mount Everest": (86.9250, 27.9881),
    "Null Island": (0.0, 0.0),
    "Cape Horn": (-67.2750, -55.9800),
    "South Pole": (0.0, -90.0),
}
for place, (x, y) in places.items():
    km, ids = cities.nearest(x, y, k=1)
    around = len(cities.within(x, y, 50.0))
    print(f"  {place:14s} nearest city {names[ids[0]]!r} at {km[0]:.1f} km; {around} cities within 50 km")
