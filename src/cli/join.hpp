// quoct's join subcommand: every polygon of a layer against one index over the points,
// polygons on every core.
//   quoct join [FILE] --polygons LAYER                 a row per point and polygon covering it
//   quoct join [FILE] --polygons LAYER --count         a row per polygon: how many points
// svg --polygons reads and joins its layer the same way (svg_command.hpp).
#ifndef QUOCT_CLI_JOIN_HPP
#define QUOCT_CLI_JOIN_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <quoct/geo/index.hpp>
#include <quoct/io/geojson_polygons.hpp>
#include <quoct/io/location_index.hpp>
#include <quoct/io/wkt.hpp>

#include "arguments.hpp"

namespace quoct {
namespace cli {

/// Declares join with its options.
CLI::App* add_join_command(CLI::App& app, common& c, query& q, join_args& j);

/// The join subcommand's polygon layer: --polygons read as GeoJSON (by content, not name)
/// or, with GDAL, as any vector source GDAL recognises.
io::polygon_layer read_layer(const join_args& j);

/// A polygon layer against the points: each feature's area, none for a feature without a
/// geometry or (--invalid skip) an invalid one, each reported on stderr; and the points
/// each area covers, in id order.
struct joined_layer {
    io::polygon_layer layer;
    std::vector<std::optional<io::wkt_multi_polygon>> areas;
    std::vector<std::vector<std::uint32_t>> covered;
};

/// Finds the points each polygon of `layer` (read from --polygons) covers, polygons on
/// every core.
joined_layer join_layer(io::polygon_layer layer_read, const join_args& j, const geo::index<>& ix);

/// The join subcommand over the index `x` of FILE (called `name` in messages): the rows in
/// point order, then polygon order; with --count, a row per polygon. Returns the exit code;
/// throws on data errors.
int run_join(const join_args& j, const common& c, const query& q, const io::location_index& x, const std::string& name,
             bool explicit_name);

}  // namespace cli
}  // namespace quoct

#endif  // QUOCT_CLI_JOIN_HPP
