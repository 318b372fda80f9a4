// quoct::io: named lon/lat locations in and out of files, for quoct::geo::index. Part of the
// compiled companion library quoct::io (link quoct::io, include <quoct/io/locations.hpp>).
//
// Reading. A CSV file with a header (see <quoct/io/csv.hpp>; longitude and latitude columns
// chosen by name), or a GeoJSON FeatureCollection (RFC 7946) of Point features. Either way
// the result is a location_table: one location per good record, plus every other column (CSV)
// or property (GeoJSON) kept as text, so that a name, a population or an id survives to the
// output.
//
// Bad records. A record is bad when its longitude or latitude is not a finite number, the
// longitude is not in [-180, 180] or the latitude not in [-90, 90]; in GeoJSON also a
// feature that is not a Point feature with two or three numeric coordinates. With
// bad_row_policy::stop the first one throws parse_error ("file.csv:17: ..." or
// "file.geojson: feature 3: ..."); with bad_row_policy::skip it is left out, listed in
// location_table::skipped and passed to read_options::on_skip if set. Problems with the file
// as a whole (missing, unreadable, malformed CSV or JSON, a missing column, JSON that is not a
// FeatureCollection) always throw parse_error.
//
// Writing. The rows a query picked, as an aligned text table, as CSV (RFC 4180, read back by
// read_locations_csv) or as a GeoJSON FeatureCollection (read back by read_locations_geojson).
// Coordinates are written in the shortest form that reads back to the same double.
//
// Every function here is reentrant: no global state, so threads may read and write at once.
#ifndef QUOCT_IO_LOCATIONS_HPP
#define QUOCT_IO_LOCATIONS_HPP

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "../geo.hpp"
#include "csv.hpp"

namespace quoct {
namespace io {

/// What to do with a bad record (see the top of this header).
enum class bad_row_policy {
    stop,  ///< throw parse_error at the first bad record
    skip   ///< leave it out and report it
};

/// A record left out under bad_row_policy::skip.
struct skipped_row {
    /// For CSV, the 1-based line on which the record starts; for GeoJSON, the 0-based index of
    /// the feature in the "features" array.
    std::size_t where;
    /// The whole message, as parse_error::what() would have said it, e.g.
    /// "cities.csv:17: column 'lat': 95 is not in [-90, 90]".
    std::string message;
};

/// How to read a file of locations.
struct read_options {
    /// CSV column holding the longitude in degrees.
    std::string lon_column = "lon";
    /// CSV column holding the latitude in degrees.
    std::string lat_column = "lat";
    /// What to do with a bad record.
    bad_row_policy on_bad_row = bad_row_policy::stop;
    /// Called once per skipped record, as it is skipped, when set (skip policy only).
    std::function<void(const skipped_row&)> on_skip;
};

/// Locations read from a file, with the rest of each record kept as text.
struct location_table {
    /// Where the table came from (a path or display name).
    std::string source;
    /// The names of the kept columns: for CSV every column but the longitude and latitude, in
    /// file order; for GeoJSON every property name, in order of first appearance.
    std::vector<std::string> columns;
    /// One per good record, in file order; id i of a geo::index built from it is record i.
    std::vector<geo::lonlat> locations;
    /// values[i][c] is column c of record i: the field's text for CSV; for GeoJSON a string
    /// property's text, any other property's compact JSON, or "" when the feature lacks it.
    std::vector<std::vector<std::string>> values;
    /// For each record, the CSV line it starts on or the GeoJSON feature index.
    std::vector<std::size_t> origins;
    /// The bad records left out under bad_row_policy::skip, in file order.
    std::vector<skipped_row> skipped;

    /// The index of the kept column `name`, or columns.size() when there is none.
    std::size_t find_column(const std::string& name) const noexcept;
};

/// The locations of a CSV table already in memory. Throws parse_error when a coordinate
/// column is missing, and for a bad record under the stop policy.
location_table read_locations(const csv_table& table, const read_options& options = {});

/// Reads the CSV file at `path` as read_csv does, then read_locations(table, options).
/// Throws parse_error as both.
location_table read_locations_csv(const std::string& path, const read_options& options = {});

/// Parses a GeoJSON FeatureCollection of Point features from `in` to its end; `source` names
/// it in errors. A Point's coordinates are [lon, lat] or [lon, lat, altitude] (the altitude is
/// ignored); a feature's "properties" may be an object or null. lon_column and lat_column are
/// not used. Throws parse_error for malformed JSON ("source: invalid JSON: ..."), for a
/// top level that is not a FeatureCollection with a "features" array, and for a bad feature
/// under the stop policy ("source: feature 3: geometry is a LineString, not a Point").
location_table read_locations_geojson(std::istream& in, const std::string& source, const read_options& options = {});

/// Reads the GeoJSON file at `path`, as read_locations_geojson(stream, path, options).
/// Also throws parse_error when the file cannot be opened.
location_table read_locations_geojson(const std::string& path, const read_options& options = {});

/// Reads `path` as GeoJSON when its name ends in .geojson or .json (any letter case), as CSV
/// otherwise. Throws as the reader it picks.
location_table read_locations_file(const std::string& path, const read_options& options = {});

/// One row of output: a record of a location_table and, optionally, its distance.
struct hit {
    /// The record: an index into location_table::locations.
    std::size_t id;
    /// Great-circle distance in metres from the query point; ignored unless
    /// write_options::with_distance.
    double metres = 0;
};

/// The three output formats.
enum class output_format {
    table,   ///< aligned columns for reading, UTF-8 aware, with a header line
    csv,     ///< RFC 4180 with a header row, fields quoted when needed
    geojson  ///< a FeatureCollection of Point features, every column a string property
};

/// How to write rows.
struct write_options {
    /// The output format.
    output_format format = output_format::table;
    /// Adds a column "distance_km": hit::metres / 1000 with three decimals (a number in GeoJSON).
    bool with_distance = false;
};

/// Writes the records `hits` of `table`, in the order given: the kept columns, then "lon" and
/// "lat", then "distance_km" if asked for. Precondition: every hit.id < table.locations.size().
/// Throws only what the stream throws (std::bad_alloc aside).
void write_locations(std::ostream& out, const location_table& table, const std::vector<hit>& hits,
                     const write_options& options = {});

/// The shortest decimal text that reads back (parse_number, strtod) as exactly `x`.
std::string shortest_decimal(double x);

}  // namespace io
}  // namespace quoct

#endif  // QUOCT_IO_LOCATIONS_HPP
