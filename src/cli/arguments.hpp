// The arguments of quoct's lon/lat subcommands (near, box, polygon, join, svg, index): the
// options as parsed, the options several subcommands declare alike, and the checks CLI11
// cannot make. Every refusal found after CLI11's parse is a usage_error (exit code 2),
// saying in words what is wrong with which option, before any file is read.
#ifndef QUOCT_CLI_ARGUMENTS_HPP
#define QUOCT_CLI_ARGUMENTS_HPP

#include <cstddef>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace quoct {
namespace cli {

/// Options shared by every subcommand.
struct common {
    std::string file;
    std::string lon_column = "lon", lat_column = "lat", name_column = "name";
    std::string format = "table", on_bad_row = "stop";
    std::string centers, centers_id_column;  // near --centers FILE: many query centres
    std::string layer, s_srs;                // --layer, --s-srs: FILE read through GDAL
};

/// The numeric options as typed: CLI11 only collects them, check_arguments() reads and
/// checks them, so that every refusal says in words what is wrong with which option.
struct number_args {
    std::string lon, lat, km, k, west, south, east, north;
    std::string width = "900", leaf_size = "32", classes = "5";
};

/// The query options; which are used depends on the subcommand.
struct query {
    double lon = 0, lat = 0, km = -1;
    std::size_t k = 0;
    double west = 0, south = 0, east = 0, north = 0;
    std::string wkt;
    std::string geojson;
    std::string output;
    double width = 900;
    std::size_t leaf_size = 32;
    bool cells = false, no_basemap = false;
    std::string basemap;
    std::string label_by = "population";  // svg: the column ranking the hits' labels
    std::size_t classes = 5;              // svg --polygons: colour classes
    std::string info_file;                // info: the file described
};

/// The join subcommand's options.
struct join_args {
    std::string polygons;                  // --polygons FILE
    std::vector<std::string> columns;      // --polygon-columns
    bool inner = false, count = false;     // --inner, --count
    std::string invalid = "stop";          // --invalid stop|skip|repair
    std::string layer, s_srs;              // --polygon-layer, --polygon-s-srs
    std::string label_column = "name";     // svg --polygons: --polygon-label-column
};

/// True when this quoct was built with GDAL (quoct::gdal).
#ifdef QUOCT_WITH_GDAL
constexpr bool with_gdal = true;
#else
constexpr bool with_gdal = false;
#endif

/// What an option that needs GDAL says without it.
std::string needs_gdal(const std::string& what);

/// Thrown for a bad argument found after CLI11's parse: exit code 2, like CLI11's own.
struct usage_error : CLI::ValidationError {
    explicit usage_error(const std::string& message) : CLI::ValidationError(message) {}
};

/// What every subcommand's --help says about coordinates and exit codes.
extern const char* const rules_footer;

/// FILE and the options for reading it, which an index file does not use.
void add_input(CLI::App& sub, common& c);

/// add_input, then --name-column.
void add_common(CLI::App& sub, common& c);

/// --format and -o, for the subcommands that write rows.
void add_output(CLI::App& sub, common& c, query& q);

/// --lon, --lat, --km; with `km_needs_centre` --km needs --lon and --lat (near may take its
/// centres from --centers instead).
void add_centre(CLI::App& sub, number_args& a, bool km_needs_centre);

/// --west, --south, --east, --north: all four or none (`required`: all four).
void add_box(CLI::App& sub, number_args& a, bool required);

/// Reads the numeric options `used` was given into q, and checks what CLI11 cannot: the
/// ranges, a box's south <= north, standard input read once, two different coordinate
/// columns; sets c.format from -o's extension when --format is not given. Throws usage_error.
void check_arguments(const CLI::App& used, common& c, const number_args& a, query& q);

}  // namespace cli
}  // namespace quoct

#endif  // QUOCT_CLI_ARGUMENTS_HPP
