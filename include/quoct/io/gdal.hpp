// quoct::io::gdal: vector GIS files through GDAL/OGR, the optional component quoct::gdal
// (CMake option QUOCT_GDAL; link quoct::gdal, find_package(quoct COMPONENTS gdal) when
// installed). Everything here needs GDAL 3.0 or later; the rest of quoct::io does not.
//
// Reading. Any vector source OGR opens (GeoPackage, Shapefile, FlatGeobuf, GeoJSONSeq,
// GML, KML, a /vsizip/ or /vsicurl/ path, ...) gives the same tables as the CSV and GeoJSON
// readers: a location_table of points (read_locations) or a polygon_layer (read_polygon_layer).
// - The layer: source_options::layer by name, else the source's only layer; a source with
//   several layers and no name given throws, naming them.
// - Coordinates are reprojected to WGS 84 longitude and latitude in degrees, from the layer's
//   CRS, or from source_options::source_srs when given (it overrides the layer's; any text
//   OGR's SetFromUserInput takes: "EPSG:32631", WKT, a PROJ string). Axis order is the
//   traditional GIS one throughout: x then y as stored, longitude then latitude for
//   geographic systems, whatever the EPSG definition says. A layer whose CRS is WGS 84
//   lon/lat already, or that has none and none is given, is read as it is, exactly.
//   Polygons are reprojected vertex by vertex.
// - Attributes keep their types (value_kind): integer, real and boolean fields are numbers
//   (value_kind::json, "true"/"false" for booleans), lists JSON arrays, strings and every other
//   type text (dates and times in ISO 8601, "2024-05-01T12:00:00Z"); a null field is
//   value_kind::null, an unset one value_kind::missing.
// - Ids: a layer with a named FID column (GeoPackage's "fid", say) gives each feature's FID
//   as its id (location_table::feature_ids, polygon_feature::id); other layers (Shapefile,
//   FlatGeobuf, GeoJSONSeq) give none, so a join names a polygon by its number from 1.
// - Bad records, as for CSV (read_options::on_bad_row): a point feature without a geometry
//   (for read_locations_csv, whose x or y is not a number), whose geometry is not a Point,
//   not finite, outside lon [-180, 180] or lat [-90, 90] after reprojection, or that cannot
//   be reprojected; "path: feature 3: geometry is a LineString, not a Point" (features
//   counted from 1 in the layer's order). A polygon layer's feature
//   without a geometry has no polygons (it covers nothing); any geometry other than a
//   Polygon or MultiPolygon (curved ones are made linear first) throws, naming the feature.
// - Errors about the source as a whole throw parse_error: it cannot be opened, it is not a
//   vector source, no such layer, a CRS text OGR cannot read, a CRS that cannot be
//   transformed to WGS 84.
//
// Writing. The rows write_locations writes, as a layer of points in a new GeoPackage or
// FlatGeobuf file: the same columns as GeoJSON output
// (center, kept columns, distance_km, extra columns, plus "feature_id" when the table has
// ids), typed by their value_kind: a column whose values are all JSON integers is a 64-bit
// integer field, all JSON numbers a real field, true/false a boolean field, any other a
// string field (a CSV column is a number column when all its values are numbers, see
// <quoct/io/locations.hpp>). Column names equal but
// for case are made unique ("Name", "name_2"), and a GeoPackage's FID and geometry
// columns take names no column has ("fid", else "fid_2", ...; "geom"). Geometry: Point
// (with Z when the table has altitudes, NaN for a point without) in EPSG:4326, lon/lat
// order. The file is written under a temporary name in the same directory and renamed over
// `path` only when complete; a path that exists and is not a regular file is refused.
//
// GDAL keeps global state (its driver registry); these functions register the drivers on
// first use. While they run, GDAL's messages go to a quiet error handler pushed on the
// calling thread's handler stack (GDAL's handler stack and last error are per thread) and
// reach the caller only in the exceptions. They may be called from several threads at
// once, each with its own files, as GDAL allows.
#ifndef QUOCT_IO_GDAL_HPP
#define QUOCT_IO_GDAL_HPP

#include <cstddef>
#include <string>
#include <vector>

#include "geojson_polygons.hpp"
#include "locations.hpp"

namespace quoct {
namespace io {
namespace gdal {

/// Which layer of a source to read, and in which CRS its coordinates are.
struct source_options {
    /// The layer's name; "" for the source's only layer.
    std::string layer;
    /// The CRS of the coordinates, overriding the layer's: "EPSG:3857", WKT, a PROJ string;
    /// "" for the layer's own (or WGS 84 lon/lat when the layer declares none).
    std::string source_srs;
    /// How the caller's users choose the layer, named in the errors about it (a command
    /// passes its option, as "--polygon-layer"); "" names nothing.
    std::string layer_option;
};

/// GDAL's short name of the vector driver that recognises `path` by its content (and, for
/// some drivers such as Shapefile, by its name), e.g. "GPKG", "FlatGeobuf", "GeoJSON",
/// "ESRI Shapefile"; "" when none does or the file cannot be read. Never throws.
std::string identify(const std::string& path);

/// True when `path` is a vector source for GDAL rather than for quoct's own readers: a
/// driver other than CSV and GeoJSON recognises it (see identify). Never throws.
bool reads(const std::string& path);

/// The points of a layer of `path` (see the top of this header). Throws parse_error.
location_table read_locations(const std::string& path, const read_options& options = {},
                              const source_options& source = {});

/// The points of a vector source held in memory (all of standard input, say); `name` names
/// it in errors and in location_table::source. Throws parse_error.
location_table read_locations(const std::string& bytes, const std::string& name, const read_options& options = {},
                              const source_options& source = {});

/// The points of the CSV file `path` (a header, then records) whose columns
/// options.lon_column and options.lat_column hold x and y in the CRS
/// source.source_srs (UTM eastings and northings, say), read with GDAL's CSV driver and
/// reprojected to WGS 84; without source_srs they are taken as lon/lat. Every other column
/// is kept as text, as read_locations_csv keeps it. Throws parse_error, also when either
/// column is missing.
location_table read_locations_csv(const std::string& path, const read_options& options = {},
                                  const source_options& source = {});

/// The polygons of a layer of `path`, one polygon_feature per feature, in the layer's order;
/// each feature's rings as lon/lat (unchecked, as read_geojson_polygon_layer gives them) and
/// its geometry as GeoJSON. Throws parse_error.
polygon_layer read_polygon_layer(const std::string& path, const source_options& source = {});

/// The polygon layer of a source held in memory. Throws parse_error.
polygon_layer read_polygon_layer(const std::string& bytes, const std::string& name, const source_options& source = {});

/// The OGR driver for an output format: "gpkg" gives "GPKG" (GeoPackage), "fgb"
/// "FlatGeobuf". Throws std::invalid_argument for any other name. (Formats of several files,
/// such as Shapefile, are not offered: they cannot be replaced in one rename.)
std::string output_driver(const std::string& format);

/// Writes the rows `hits` of `table` to a new file `path` with OGR driver `driver` (see
/// output_driver), one point feature each, with the columns and types described at the top
/// of this header; options.format is not used. Preconditions as for write_locations.
/// Throws parse_error when the file cannot be written (the old file, if any, stays).
void write_locations(const std::string& path, const std::string& driver, const location_table& table,
                     const std::vector<hit>& hits, const write_options& options = {});

/// Writes one feature per entry of `features` (indexes into layer.features): its polygons as
/// a MultiPolygon (no geometry for a feature without; FlatGeobuf, which would drop such a
/// feature silently, is refused then with parse_error naming it), "polygon_id", the columns `columns` as
/// join_column_names names them, and "count" from counts; as write_polygon_counts does for
/// GeoJSON. Throws parse_error as write_locations.
void write_polygon_counts(const std::string& path, const std::string& driver, const polygon_layer& layer,
                          const std::vector<std::size_t>& features, const std::vector<std::size_t>& counts,
                          const std::vector<std::size_t>& columns);

/// An invalid polygon made valid with GEOS's MakeValid (through OGR, method "structure"), on
/// its coordinates as written (planar lon/lat, as shapely.make_valid does): the area its
/// shells enclose less its holes, overlapping parts joined, a self-crossing shell split into
/// polygons; parts that collapse to lines or points are dropped.
/// `source` names the polygon in errors. Throws parse_error when GDAL was built without
/// GEOS or the repair fails.
lonlat_polygons make_valid(const lonlat_polygons& polygons, const std::string& source);

}  // namespace gdal
}  // namespace io
}  // namespace quoct

#endif  // QUOCT_IO_GDAL_HPP
