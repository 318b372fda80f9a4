// quoct's query subcommands over lon/lat points, each printing its hits as rows (table, CSV,
// GeoJSON; with GDAL also GeoPackage or FlatGeobuf):
//   quoct near [FILE] --lon LON --lat LAT --km KM (or --k K, or --centers FILE)
//   quoct box [FILE] --west W --south S --east E --north N
//   quoct polygon [FILE] --wkt WKT (or --geojson GEOJSON)
#ifndef QUOCT_CLI_QUERIES_HPP
#define QUOCT_CLI_QUERIES_HPP

#include <cstddef>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <quoct/geo/index.hpp>
#include <quoct/io/location_index.hpp>
#include <quoct/io/locations.hpp>

#include "arguments.hpp"

namespace quoct {
namespace cli {

/// The query subcommands, as added to the app.
struct query_commands {
    CLI::App* near;
    CLI::App* box;
    CLI::App* polygon;
};

/// Declares near, box and polygon, in that order, with their options.
query_commands add_query_commands(CLI::App& app, common& c, query& q, number_args& a);

/// near about one centre, appending to `hits` (tagged `center`): within km (sorted by
/// distance, then id), the k nearest, or the k nearest within km.
void run_near(const geo::index<>& ix, const query& q, geo::lonlat centre, std::size_t center, std::vector<io::hit>& hits);

/// Runs `used`, one of `cmd`, over the index `x` of FILE (called `name` in messages); the
/// rows written name column first (write_rows). Returns the exit code; throws on data errors.
int run_query(const CLI::App* used, const query_commands& cmd, const common& c, const query& q,
              const io::location_index& x, const std::string& name, bool explicit_name);

}  // namespace cli
}  // namespace quoct

#endif  // QUOCT_CLI_QUERIES_HPP
