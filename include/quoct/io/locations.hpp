// quoct::io: named lon/lat locations in and out of files, for quoct::geo::index. Part of the
// compiled companion library quoct::io (link quoct::io, include <quoct/io/locations.hpp>).
//
// Reading. A CSV file with a header (see <quoct/io/csv.hpp>; longitude and latitude columns
// chosen by name), or a GeoJSON FeatureCollection (RFC 7946) of Point features. A file or
// stream is taken as GeoJSON by its content, whatever its name: when its first byte that is
// not white space, after an optional UTF-8 byte-order mark, is '{' (quote a CSV header's
// first name that starts with '{'); a byte-order mark before a CSV header is skipped too.
// GeoJSON coordinates are WGS 84 longitude and latitude in degrees, as RFC 7946 says; a
// "crs" member at the top (GeoJSON 2008) is accepted only when it names that system
// (urn:ogc:def:crs:OGC:1.3:CRS84 or urn:ogc:def:crs:OGC::CRS84, or EPSG:4326 /
// urn:ogc:def:crs:EPSG::4326, read as longitude then latitude as GDAL writes it, although
// EPSG:4326 officially puts latitude first) or is null; any other crs throws parse_error
// ("file: crs urn:ogc:def:crs:EPSG::3857 is not WGS 84 longitude/latitude; reproject first,
// e.g. ogr2ogr -t_srs EPSG:4326"), as projected coordinates are not degrees. Either way
// the result is a location_table: one location per good record, plus every other column (CSV)
// or property (GeoJSON) kept, so that a name, a population or an id survives to the output.
// A CSV column whose values are all numbers (empty ones aside) is typed as GDAL's CSV
// driver and pandas type it: its values are value_kind::json and its empty ones
// value_kind::null, written back as numbers and nulls, so long as each reads back as the
// same number (an integer that fits in 64 bits, without leading zeros: "007" is text; a
// decimal of at most 15 significant digits); otherwise the column stays text. GeoJSON keeps
// more: each property's JSON type (value_kind), the feature "id" and a third coordinate (the
// altitude), and writes them all back.
//
// Bad records. A record is bad when its longitude or latitude is not a finite number, the
// longitude is not in [-180, 180] or the latitude not in [-90, 90]; in GeoJSON also a
// feature that is not a Point feature with two or three numeric coordinates. A GeoJSON
// feature whose geometry is null (RFC 7946's unlocated feature) is not bad: it is left out
// under either policy, listed in location_table::skipped and passed to on_skip ("file:
// feature 3: has a null geometry (an unlocated feature): left out"). A lone Feature, not in
// a FeatureCollection, is read as a collection of one. With
// bad_row_policy::stop the first one throws parse_error ("file.csv:17: ..." or
// "file.geojson: feature 3: ...", features counted from 1 as lines are); with bad_row_policy::skip it is left out, listed in
// location_table::skipped and passed to read_options::on_skip if set. Problems with the file
// as a whole (missing, unreadable, malformed CSV or JSON, a missing column, JSON that is not a
// FeatureCollection, a crs other than WGS 84 lon/lat) always throw parse_error.
//
// Writing. The rows a query picked, as an aligned text table, as CSV (RFC 4180, read back by
// read_locations_csv) or as a GeoJSON FeatureCollection (read back by read_locations_geojson).
// Coordinates are written in the shortest form that reads back to the same double. Column
// names are written unique (output_columns): a kept column whose name is taken, by an
// earlier column or by one the writer adds ("lon", "lat", "distance_km", ...), gets "_2",
// "_3", ... appended, so that no column is dropped and the output reads back.
//
// Every function here is reentrant: no global state, so threads may read and write at once.
#ifndef QUOCT_IO_LOCATIONS_HPP
#define QUOCT_IO_LOCATIONS_HPP

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "../geo/index.hpp"
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
    /// For CSV, the 1-based line on which the record starts; for GeoJSON, the 1-based number
    /// of the feature in the "features" array.
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

/// How a kept value was written in its source (see location_table::values).
enum class value_kind : unsigned char {
    text,    ///< a CSV field or a JSON string; the value is its text
    json,    ///< a JSON number, true/false, object or array; the value is its compact JSON
    null,    ///< JSON null; the value is ""
    missing  ///< the GeoJSON feature has no such property; the value is ""
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
    /// values[i][c] (or values.field(i, c)) is column c of record i, as a std::string_view: the
    /// field's text for CSV; for GeoJSON a string property's text, any other property's compact
    /// JSON, or "" when the feature lacks it. Stored flat (text_fields): values.size() records
    /// of values.width() == columns.size() fields each.
    text_fields values;
    /// How each value was written, record by record: kinds[i * columns.size() + c] for
    /// values[i][c] (read it through kind(i, c)). Empty (for CSV without a number column, or
    /// a table made by hand) means every value is value_kind::text; otherwise it has
    /// values.size() * columns.size() entries (for CSV: value_kind::json or null in its
    /// number columns, text in the others).
    std::vector<value_kind> kinds;
    /// GeoJSON: empty when no feature has an "id", else each record's "id" member as compact
    /// JSON ("\"a-1\"" or "7"), "" for a feature without one. Written back to GeoJSON as the
    /// feature id, to CSV and the table as a column "feature_id". Empty for CSV.
    std::vector<std::string> feature_ids;
    /// GeoJSON: empty when no Point has a third coordinate, else each record's altitude (NaN
    /// for a Point without one). Written back as the third coordinate, to CSV and the table as
    /// a column "altitude" (empty where NaN). Empty for CSV.
    std::vector<double> altitudes;
    /// For each record, the CSV line it starts on or the GeoJSON feature number (from 1).
    std::vector<std::size_t> origins;
    /// For each record, its number among the source's data records, from 1: the CSV record
    /// after the header, or the GeoJSON feature, whether or not bad records were skipped.
    std::vector<std::size_t> records;
    /// The bad records left out under bad_row_policy::skip, in file order.
    std::vector<skipped_row> skipped;

    /// The index of the kept column `name`, or columns.size() when there is none.
    std::size_t find_column(const std::string& name) const noexcept;
    /// How values[record][column] was written (value_kind::text when kinds is empty).
    /// Preconditions: record < values.size(), column < columns.size(). Never throws.
    value_kind kind(std::size_t record, std::size_t column) const noexcept;
    /// Moves kept column `column` to the front, values and kinds with it, the others keeping
    /// their order. Precondition: column < columns.size(). Never throws.
    void move_column_first(std::size_t column) noexcept;
};

/// The locations of a CSV table already in memory. Throws parse_error when a coordinate
/// column is missing, when lon_column and lat_column name the same column, and for a bad
/// record under the stop policy.
location_table read_locations(const csv_table& table, const read_options& options = {});

/// Reads the CSV file at `path` as read_csv does, then read_locations(table, options).
/// Throws parse_error as both.
location_table read_locations_csv(const std::string& path, const read_options& options = {});

/// Parses a GeoJSON FeatureCollection of Point features from `in` to its end; `source` names
/// it in errors. A Point's coordinates are [lon, lat] or [lon, lat, altitude] (the altitude is
/// kept in location_table::altitudes); a feature's "properties" may be an object or null, and
/// its "id" is kept in location_table::feature_ids. lon_column and lat_column are not used.
/// A UTF-8 byte-order mark before the JSON is skipped. Throws parse_error for malformed JSON
/// ("source: invalid JSON: ..."), for a top level that is not a FeatureCollection with a
/// "features" array, for a "crs" member that does not name WGS 84 lon/lat (see the top of
/// this header), and for a bad feature under the stop policy ("source: feature 3: geometry
/// is a LineString, not a Point"; features count from 1).
location_table read_locations_geojson(std::istream& in, const std::string& source, const read_options& options = {});

/// Reads the GeoJSON file at `path`, as read_locations_geojson(stream, path, options).
/// Also throws parse_error when the file cannot be opened.
location_table read_locations_geojson(const std::string& path, const read_options& options = {});

/// Reads `path` as GeoJSON when its first byte that is not white space, after an optional
/// UTF-8 byte-order mark, is '{', as CSV otherwise, whatever the file is called (".txt",
/// no extension). A regular file is looked at and rewound, then read a piece at a time as
/// CSV; a file that cannot be rewound (a named pipe) is read whole first, as
/// read_locations_stream does. Throws parse_error when the file cannot be opened ("path:
/// cannot open: No such file or directory") or read, and as the reader it picks.
location_table read_locations_file(const std::string& path, const read_options& options = {});

/// Reads locations from `in` to its end (standard input, a pipe), as GeoJSON when the first
/// byte that is not white space, after an optional UTF-8 byte-order mark, is '{', as CSV
/// otherwise; `source` names it in errors. Throws as the reader it picks, and parse_error
/// when the stream cannot be read.
location_table read_locations_stream(std::istream& in, const std::string& source, const read_options& options = {});

/// One row of output: a record of a location_table and, optionally, its distance.
struct hit {
    /// The record: an index into location_table::locations.
    std::size_t id;
    /// Great-circle distance in metres from the query point; ignored unless
    /// write_options::with_distance.
    double metres = 0;
    /// The query centre this row answers: an index into write_options::center_labels;
    /// ignored when center_column is empty.
    std::size_t center = 0;
    /// The values of write_options::extra_columns for this row: an index into
    /// write_options::extra_values; ignored when extra_columns is empty.
    std::size_t extra = 0;
};

/// The three output formats.
enum class output_format {
    table,   ///< aligned columns for reading, UTF-8 aware, with a header line
    csv,     ///< RFC 4180 with a header row, fields quoted when needed
    geojson  ///< a FeatureCollection of Point features; properties in column order, each written
             ///< back as its value_kind says (a missing one left out)
};

/// How to write rows.
struct write_options {
    /// The output format.
    output_format format = output_format::table;
    /// Adds a column "distance_km": hit::metres / 1000 with three decimals (a number in GeoJSON).
    bool with_distance = false;
    /// When not empty, a first column of this name, whose value for a hit h is
    /// center_labels[h.center], written as center_kinds[h.center] says (text when
    /// center_kinds is shorter): which query centre the row answers.
    std::string center_column{};
    /// The values of center_column, one per query centre.
    std::vector<std::string> center_labels{};
    /// How each center_labels value is written (value_kind::json for a number in GeoJSON).
    std::vector<value_kind> center_kinds{};
    /// When not empty, columns written last, after every other: for a hit h, column k's
    /// value is extra_values[h.extra][k], written as extra_kinds[h.extra][k] says (text when
    /// extra_kinds is shorter). A join's columns from the other side.
    std::vector<std::string> extra_columns{};
    /// The rows of extra values, each with extra_columns.size() values.
    std::vector<std::vector<std::string>> extra_values{};
    /// How each extra value is written, row by row.
    std::vector<std::vector<value_kind>> extra_kinds{};
};

/// The column names write_locations writes for `table` in `format`, in order, each unique:
/// center_column if set; the kept columns (renamed apart as described at the top of this
/// header); for CSV and the table "feature_id" if the table has feature ids, "lon", "lat",
/// "altitude" if it has altitudes; "distance_km" if asked for; then the extra columns. In
/// GeoJSON, where the coordinates, altitude and feature id are not properties, only
/// center_column, the kept columns, "distance_km" and the extra columns are names, so a
/// property called "lon" keeps its name there.
std::vector<std::string> output_columns(const location_table& table, const write_options& options);

/// The properties write_locations writes for hit `h` in GeoJSON, in order: for each,
/// visit(column, value, kind), where column indexes output_columns(table, options) as for
/// output_format::geojson (whatever options.format says), value is the text (a JSON number's
/// text for value_kind::json; "distance_km" is h.metres rounded to whole metres, in km) and
/// kind how to write it; a value_kind::missing one is to be left out. For writers of other
/// formats with typed columns (quoct::io::gdal). Precondition as for write_locations.
void for_each_property(const location_table& table, const hit& h, const write_options& options,
                       const std::function<void(std::size_t, std::string_view, value_kind)>& visit);

/// Writes the records `hits` of `table`, in the order given, with the columns
/// output_columns(table, options) names. Preconditions: every hit.id < table.locations.size(),
/// and, with center_column set, every hit.center < center_labels.size().
/// Throws only what the stream throws (std::bad_alloc aside).
void write_locations(std::ostream& out, const location_table& table, const std::vector<hit>& hits,
                     const write_options& options = {});

/// Writes rows of text cells (the first the header) as an aligned table or as CSV, as
/// write_locations writes its cells. Precondition: format is table or csv, and every row
/// has as many cells as the header.
void write_rows(std::ostream& out, const std::vector<std::vector<std::string>>& cells, output_format format);

/// What a file beginning with `bytes` is when it is not text (it holds a NUL byte):
/// "a GeoPackage or SQLite database", "a FlatGeobuf file", "an ESRI Shapefile", "a zip
/// archive", "a gzip file", else "a binary file (it holds a NUL byte)"; "" for text. The
/// readers above refuse such a file with this in their message (parse_error "data.gpkg: is
/// a GeoPackage or SQLite database, not CSV or GeoJSON text: read it through GDAL ... or
/// convert it first ..."), looking at its first 512 bytes.
std::string binary_kind(const void* bytes, std::size_t size);

/// The shortest decimal text that reads back (parse_number, strtod) as exactly `x`.
std::string shortest_decimal(double x);

}  // namespace io
}  // namespace quoct

#endif  // QUOCT_IO_LOCATIONS_HPP
