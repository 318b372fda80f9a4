// quoct's svg subcommand: an SVG map of lon/lat points, drawn by svg.hpp.
//   quoct svg [FILE] -o map.svg --lon LON --lat LAT --km KM   one query (or --k, the box, --wkt), its hits labelled
//   quoct svg [FILE] -o map.svg --polygons LAYER              the points each polygon covers (join --count), as colours
#ifndef QUOCT_CLI_SVG_COMMAND_HPP
#define QUOCT_CLI_SVG_COMMAND_HPP

#include <CLI/CLI.hpp>

#include <quoct/io/location_index.hpp>

#include "arguments.hpp"

namespace quoct {
namespace cli {

/// Declares svg with its options.
CLI::App* add_svg_command(CLI::App& app, common& c, query& q, number_args& a, join_args& j);

/// The svg subcommand over the index `x` of FILE: queries the shape and writes the picture
/// to q.output, the hits labelled with their --name-column values, the largest by
/// --label-by first; with --polygons, the choropleth of the points each polygon covers, the
/// largest counts labelled with --polygon-label-column. Throws on data errors.
void run_svg(const CLI::App& svg, const query& q, const join_args& j, const io::location_index& x, const common& c);

}  // namespace cli
}  // namespace quoct

#endif  // QUOCT_CLI_SVG_COMMAND_HPP
