#!/usr/bin/python3
"""The join of bench/README.md's "Polygon joins against geopandas": how many cities each
country covers (boundary included), with geopandas' sjoin, the whole process timed by the
caller (hyperfine). Reads the same files as `quoct join --count`: the points from CSV
(columns lon, lat) or from any file geopandas reads (GeoPackage, FlatGeobuf, ...).

    bench/join_geopandas.py data/cities.csv data/countries_110m.geojson > counts.csv
    bench/join_geopandas.py cities.gpkg countries.gpkg > counts.csv
"""
import sys

import geopandas
import pandas


def main(points_csv, polygons_file):
    if points_csv.lower().endswith(".csv"):
        cities = pandas.read_csv(points_csv, keep_default_na=False)
        points = geopandas.GeoDataFrame(cities, geometry=geopandas.points_from_xy(cities.lon, cities.lat), crs="EPSG:4326")
    else:
        points = geopandas.read_file(points_csv)
    countries = geopandas.read_file(polygons_file)
    joined = geopandas.sjoin(points, countries, how="inner", predicate="intersects")  # for a point: covered_by, boundary included
    counts = joined.groupby("index_right").size().reindex(countries.index, fill_value=0)
    out = pandas.DataFrame({"polygon_name": countries["name"], "count": counts.values})
    out.to_csv(sys.stdout, index=False)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
