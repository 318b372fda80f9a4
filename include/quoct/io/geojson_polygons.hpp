// quoct::io: GeoJSON polygons for quoct::geo::covered_by (<quoct/geo_boost.hpp>).
// read_geojson_polygons is part of the compiled quoct::io (link quoct::io) and needs no
// Boost; read_geojson_area, in <quoct/io/wkt.hpp>, makes Boost.Geometry polygons of them.
//
// Input: a GeoJSON (RFC 7946) Polygon or MultiPolygon geometry object, a Feature whose
// geometry is one, or a FeatureCollection whose features all have one (their polygons taken
// together; a feature with a null geometry is left out). Positions are [lon, lat] or
// [lon, lat, altitude] in degrees (the altitude is ignored). Longitudes, orientation and
// validity are read as for WKT (see <quoct/io/wkt.hpp>): an edge whose longitudes differ by
// more than 180 degrees crosses lon 180 the short way, rings may come in either orientation,
// and an invalid polygon is refused.
#ifndef QUOCT_IO_GEOJSON_POLYGONS_HPP
#define QUOCT_IO_GEOJSON_POLYGONS_HPP

#include <iosfwd>
#include <string>
#include <vector>

#include "../geo.hpp"
#include "csv.hpp"

namespace quoct {
namespace io {

/// Polygons as written in GeoJSON, unchecked: polygons[p][r] is ring r of polygon p (ring 0
/// the shell, the others its holes), each ring its positions in order, as (lon, lat).
using lonlat_polygons = std::vector<std::vector<std::vector<geo::lonlat>>>;

/// Parses GeoJSON from `in` to its end (see the top of this header for what it may hold);
/// `source` names it in errors. Checks the structure only: every position two or three
/// numbers, every ring an array of positions. Throws parse_error: "source: invalid JSON: ...",
/// "source: not a GeoJSON Polygon or MultiPolygon (a Point)", "source: features[2]: geometry
/// is a Point, not a Polygon or MultiPolygon", "source: coordinates[0][3]: not a [lon, lat]
/// position" (paths count from 0, as JSON arrays do). Reentrant.
lonlat_polygons read_geojson_polygons(std::istream& in, const std::string& source);

}  // namespace io
}  // namespace quoct

#endif  // QUOCT_IO_GEOJSON_POLYGONS_HPP
