// quoct::io: GeoJSON polygons for quoct::geo::covered_by (<quoct/geo/polygons.hpp>).
// read_geojson_polygons is part of the compiled quoct::io (link quoct::io) and needs no
// Boost; read_geojson_area, in <quoct/io/wkt.hpp>, makes Boost.Geometry polygons of them.
//
// Input: a GeoJSON (RFC 7946) Polygon or MultiPolygon geometry object, a Feature whose
// geometry is one, or a FeatureCollection whose features all have one (their polygons taken
// together; a feature with a null geometry is left out). Positions are [lon, lat] or
// [lon, lat, altitude] in degrees (the altitude is ignored), WGS 84 as RFC 7946 says: a
// top-level "crs" member (GeoJSON 2008) must be null or name WGS 84 lon/lat
// (urn:ogc:def:crs:OGC:1.3:CRS84, urn:ogc:def:crs:OGC::CRS84, EPSG:4326 or
// urn:ogc:def:crs:EPSG::4326; EPSG:4326 officially has latitude first, but files that
// declare it, as GDAL writes them, hold longitude first, and are read so), any other is
// refused ("source: crs urn:ogc:def:crs:EPSG::3857 is not WGS 84 longitude/latitude;
// reproject first, e.g. ogr2ogr -t_srs EPSG:4326"). Longitudes, latitudes, orientation,
// closure and validity are read as for WKT (see <quoct/io/wkt.hpp>): an edge whose
// longitudes differ by more than 180 degrees crosses lon 180 the short way, a vertex with a
// latitude outside [-90, 90] is refused, rings may come in either orientation, a ring whose
// last position is not its first is closed (as GEOS and shapely do; RFC 7946 asks for
// closed rings), and an invalid polygon is refused.
#ifndef QUOCT_IO_GEOJSON_POLYGONS_HPP
#define QUOCT_IO_GEOJSON_POLYGONS_HPP

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "../geo/index.hpp"
#include "csv.hpp"
#include "locations.hpp"

namespace quoct {
namespace io {

/// Polygons as written in GeoJSON, unchecked: polygons[p][r] is ring r of polygon p (ring 0
/// the shell, the others its holes), each ring its positions in order, as (lon, lat).
using lonlat_polygons = std::vector<std::vector<std::vector<geo::lonlat>>>;

/// Parses GeoJSON from `in` to its end (see the top of this header for what it may hold);
/// `source` names it in errors. Checks the structure and the crs only: every position two or
/// three numbers, every ring an array of positions. Throws parse_error: "source: invalid JSON: ...",
/// "source: crs ... is not WGS 84 longitude/latitude; ...",
/// "source: not a GeoJSON Polygon or MultiPolygon (a Point)", "source: features[2]: geometry
/// is a Point, not a Polygon or MultiPolygon", "source: coordinates[0][3]: not a [lon, lat]
/// position" (paths count from 0, as JSON arrays do). Reentrant.
lonlat_polygons read_geojson_polygons(std::istream& in, const std::string& source);

/// One feature of a polygon layer, as written (unchecked, as read_geojson_polygons).
struct polygon_feature {
    /// Its place in the file, from 1 (1 for a lone geometry or Feature).
    std::size_t number = 0;
    /// The GeoJSON "id" member as compact JSON ("\"FRA\"", "7"), "" when it has none.
    std::string id;
    /// Its properties by column of the layer: a string's text, any other value's compact
    /// JSON, "" for null or a property it lacks; kinds says which.
    std::vector<std::string> values;
    /// How each value was written (value_kind::missing for a property it lacks).
    std::vector<value_kind> kinds;
    /// Its polygons' rings, as read_geojson_polygons gives them; empty for a null geometry.
    lonlat_polygons polygons;
    /// Its geometry as compact JSON ("null" when it has none), to write it back.
    std::string geometry;
};

/// Polygons one feature at a time, with their ids and properties: the polygon side of a join.
struct polygon_layer {
    /// Where the layer came from (a path or display name).
    std::string source;
    /// Every property name, in order of first appearance.
    std::vector<std::string> columns;
    /// The features, in file order.
    std::vector<polygon_feature> features;

    /// The index of column `name`, or columns.size() when there is none.
    std::size_t find_column(const std::string& name) const noexcept;
    /// Names feature f for messages: "feature 3 (id \"SDN\", name Sudan)": its number, and
    /// its id and name (or NAME, or the first text property) when it has them.
    std::string describe(std::size_t f) const;
};

/// Parses GeoJSON from `in` to its end as read_geojson_polygons does, but keeps each feature
/// apart: a FeatureCollection gives one polygon_feature per feature (a null geometry gives
/// one without polygons), a Feature or a bare Polygon or MultiPolygon one feature. Time
/// linear in the text. Throws parse_error as read_geojson_polygons; errors about a feature
/// name it as describe() does.
polygon_layer read_geojson_polygon_layer(std::istream& in, const std::string& source);

/// The value identifying feature f in a join's output, and how to write it: its GeoJSON id
/// (a string id as text), else its number from 1.
std::pair<std::string, value_kind> feature_id_of(const polygon_layer& layer, std::size_t f);

/// The names a join gives the polygon side's columns: "polygon_id", then "polygon_<name>"
/// for each of `columns` (indexes into layer.columns), each made unique with "_2", "_3", ...
std::vector<std::string> join_column_names(const polygon_layer& layer, const std::vector<std::size_t>& columns);

/// Writes one row per feature of `features` (indexes into layer.features): "polygon_id",
/// the layer's columns `columns` (indexes) as join_column_names names them, then "count" from
/// counts (one per entry of features). As a table or CSV, or as a GeoJSON FeatureCollection
/// of the features themselves (their geometry and id as read, those columns and count as
/// properties).
void write_polygon_counts(std::ostream& out, const polygon_layer& layer, const std::vector<std::size_t>& features,
                          const std::vector<std::size_t>& counts, const std::vector<std::size_t>& columns,
                          output_format format);

}  // namespace io
}  // namespace quoct

#endif  // QUOCT_IO_GEOJSON_POLYGONS_HPP
