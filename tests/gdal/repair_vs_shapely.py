"""`quoct join --invalid repair` against shapely: Natural Earth's countries written by GDAL
with 15 significant digits (ogr2ogr -lco SIGNIFICANT_FIGURES=15) make some polygons
self-intersect (Sudan). quoct must repair exactly the features GEOS calls invalid, and count in each
repaired feature the cities that shapely's make_valid(...).covers(...) counts. (quoct repairs
with GEOS's "structure" method, shapely 1.8 with "linework"; they differ only where parts
overlap, which a self-crossing shell such as Sudan's does not.)

Usage: repair_vs_shapely.py QUOCT DATA_DIR WORK_DIR
"""
import csv
import json
import os
import subprocess
import sys

from shapely.geometry import Point, shape
from shapely.prepared import prep
from shapely.validation import make_valid


def main():
    quoct, data, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    polygons = os.path.join(work, "countries_15_digits.geojson")
    if os.path.exists(polygons):
        os.remove(polygons)
    subprocess.run(["ogr2ogr", "-f", "GeoJSON", "-lco", "SIGNIFICANT_FIGURES=15", polygons,
                    os.path.join(data, "countries_110m.geojson")], check=True)
    with open(polygons, encoding="utf-8") as f:
        layer = json.load(f)
    cities = os.path.join(data, "cities.csv")

    stopped = subprocess.run([quoct, "join", "--count", "--polygons", polygons, cities], capture_output=True, text=True)
    assert stopped.returncode == 1, stopped
    assert "invalid polygon" in stopped.stderr and "Sudan" in stopped.stderr, stopped.stderr

    run = subprocess.run([quoct, "join", "--count", "--format", "csv", "--polygon-columns", "name", "--invalid", "repair",
                          "--polygons", polygons, cities], capture_output=True, text=True, check=True)
    counts = {row["polygon_name"]: int(row["count"]) for row in csv.DictReader(run.stdout.splitlines())}
    repaired = {line.split("name ", 1)[1].split(")")[0] for line in run.stderr.splitlines() if line.startswith("quoct: repaired")}

    points = []
    with open(cities, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            points.append(Point(float(row["lon"]), float(row["lat"])))
    invalid = {}
    for feature in layer["features"]:
        geometry = shape(feature["geometry"])
        if not geometry.is_valid:
            invalid[feature["properties"]["name"]] = make_valid(geometry)
    assert "Sudan" in invalid, sorted(invalid)
    assert repaired == set(invalid), (sorted(repaired), sorted(invalid))
    for name, geometry in sorted(invalid.items()):
        covers = prep(geometry)
        expected = sum(1 for p in points if covers.covers(p))
        print(f"{name}: quoct {counts[name]}, shapely {expected}")
        assert counts[name] == expected, name
    print(f"{len(invalid)} repaired features, counts equal to shapely's")


if __name__ == "__main__":
    main()
