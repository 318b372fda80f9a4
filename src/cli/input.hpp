// Reading FILE, the points every lon/lat subcommand queries: an index file made by
// `quoct index` (opened in place, every checksum checked), or a points file (CSV, GeoJSON,
// with GDAL any vector source), or standard input holding either.
#ifndef QUOCT_CLI_INPUT_HPP
#define QUOCT_CLI_INPUT_HPP

#include <iosfwd>
#include <optional>
#include <string>

#include <quoct/io/location_index.hpp>
#include <quoct/io/locations.hpp>

#include "arguments.hpp"

namespace quoct {
namespace cli {

/// FILE as read: an index file opened, or a points file read.
struct input {
    std::optional<io::location_index> index;  // an index file's
    io::location_table table;                  // a points file's, when index is not set
    std::string name;                          // what errors call it: the path, or "stdin"
};

/// Reads FILE ("" for the default file, "-" for standard input). An index file, recognised by
/// its first bytes (a regular file or standard input), is opened mapped (nothing is parsed or
/// built) with every checksum verified: no subcommand prints a byte it has not checked. The
/// column options are not used then. A points file is read with them, skipped rows reported
/// on stderr, and not indexed. Throws io::parse_error and quoct::file_error.
input read_input(const common& c, const std::string& path);

/// FILE's index: opened from an index file, or built over the points read.
io::location_index indexed(input& in);

/// Refuses --layer and --s-srs for a source that quoct reads itself (CSV, GeoJSON).
/// `prefix`: "" for FILE's options, "polygon-" for --polygons'.
void no_gdal_options(const std::string& layer, const std::string& s_srs, const std::string& name, const char* prefix);

/// What the stream's first bytes say it is when it is not text (io::binary_kind), or "";
/// the stream is rewound to its start.
std::string binary_start(std::istream& in);

#ifdef QUOCT_WITH_GDAL
/// True when `e` is quoct's GeoJSON reader refusing a "crs" other than WGS 84 lon/lat, which
/// GDAL can reproject.
bool refuses_crs(const io::parse_error& e);

/// The path GDAL is to open for `file`, or "" when quoct reads it itself (CSV or GeoJSON
/// text, or a file that cannot be read, whose reader then says so): `file` when a GDAL
/// driver other than CSV and GeoJSON recognises it; for a zip archive, /vsizip/ + file
/// when GDAL finds a vector source in it (a zipped Shapefile). A binary file GDAL does not
/// read is an error saying what it is.
std::string gdal_path(const std::string& file);
#endif

}  // namespace cli
}  // namespace quoct

#endif  // QUOCT_CLI_INPUT_HPP
