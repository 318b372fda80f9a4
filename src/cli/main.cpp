// quoct: the command line. Queries a file of lon/lat points (CSV or GeoJSON; with GDAL any
// vector source; by default the bundled world cities) with a quoct::geo::index and prints
// the hits as a table, CSV or GeoJSON (with GDAL also GeoPackage or FlatGeobuf), or draws
// the quadtree, the query and its hits as an SVG picture.
//
// Exit codes: 0 success (and --help); 1 a data error (missing or malformed file, bad row
// under --on-bad-row=stop, invalid WKT, a file that cannot be written); 2 a usage error (bad
// arguments: unknown, missing, out of range or not numbers), before any file is read.
//
// main() parses the arguments and dispatches; each subcommand family lives in a file of its
// own: queries (near, box, polygon), join, svg_command (svg; svg.cpp draws), index_command
// (index, info), cloud (x, y, z point clouds), boxes. What they share: arguments (options and
// their checks), input (reading FILE) and shared (GDAL's module, writing, error words).
#include <algorithm>
#include <exception>
#include <iostream>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <quoct/file.hpp>
#include <quoct/io/location_index.hpp>
#include <quoct/io/locations.hpp>

#include "arguments.hpp"
#include "boxes.hpp"
#include "cloud.hpp"
#include "index_command.hpp"
#include "info.hpp"
#include "input.hpp"
#include "join.hpp"
#include "queries.hpp"
#include "shared.hpp"
#include "svg_command.hpp"

namespace quoct {
namespace cli {
namespace {

/// The lon/lat subcommands, as added to the app.
struct commands {
    query_commands queries;  // near, box, polygon
    CLI::App* join;
    CLI::App* svg;
    CLI::App* index;
    CLI::App* info;
};

/// Declares every lon/lat subcommand and its options, writing the parsed values into c, q, a
/// and j.
commands add_commands(CLI::App& app, common& c, query& q, number_args& a, join_args& j) {
    commands cmd{};
    cmd.queries = add_query_commands(app, c, q, a);
    cmd.join = add_join_command(app, c, q, j);
    cmd.svg = add_svg_command(app, c, q, a, j);
    cmd.index = add_index_command(app, c, q);
    cmd.info = add_info_command(app, q);
    return cmd;
}

/// Runs the parsed subcommand `used`; returns the exit code. Throws on data errors.
int run(const CLI::App* used, const commands& cmd, const common& c, const query& q, const join_args& j) {
    if (used == cmd.index) return run_index(c, q);
    if (used == cmd.info) return run_info(q);
    input in = read_input(c, c.file);
    const io::location_index x = indexed(in);
    const bool explicit_name = used->count("--name-column") > 0;
    if (explicit_name && std::find(x.columns().begin(), x.columns().end(), c.name_column) == x.columns().end())
        throw io::parse_error(in.name, 0, "no column '" + c.name_column + "'");
    clear_progress();
    if (used == cmd.join) return run_join(j, c, q, x, in.name, explicit_name);
    if (used == cmd.svg) {
        run_svg(*cmd.svg, q, j, x, c);
        return 0;
    }
    return run_query(used, cmd.queries, c, q, x, in.name, explicit_name);
}

}  // namespace
}  // namespace cli
}  // namespace quoct

namespace cli = quoct::cli;

int main(int argc, char** argv) {
    CLI::App app{"quoct: query lon/lat points (CSV or GeoJSON) with a quoct geographic index, and x, y, z point "
                 "clouds (LAS, PLY, XYZ) with an octree",
                 "quoct"};
    app.require_subcommand(1);
    app.footer(cli::rules_footer);
    cli::common c;
    cli::query q;
    cli::number_args a;
    cli::join_args j;
    const cli::commands cmd = cli::add_commands(app, c, q, a, j);
    cli::cloud_args cloud;
    const cli::cloud_commands cloud_cmd = cli::add_cloud_commands(app, *cmd.index, cloud);
    cli::boxes_args boxes;
    const CLI::App* boxes_cmd = cli::add_boxes_command(app, boxes);
    try {
        app.parse(argc, argv);
        const CLI::App* used = app.get_subcommands().front();
        if (used != cloud_cmd.radius && used != cloud_cmd.knn && used != cloud_cmd.box3d && used != cloud_cmd.neighbours &&
            used != boxes_cmd)
            cli::check_arguments(*used, c, a, q);
        if (!cli::with_gdal && (app.get_subcommands().front() == cmd.join || app.get_subcommands().front() == cmd.svg) &&
            j.invalid == "repair")
            throw cli::usage_error(cli::needs_gdal("--invalid repair"));
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help
        std::cerr << "quoct: error: " << e.what() << "\nRun with --help for more information.\n";
        return 2;
    }
    try {
        const CLI::App* used = app.get_subcommands().front();
        if (used == cmd.index && !c.file.empty() && c.file != "-" && ::access(c.file.c_str(), R_OK) == 0 &&
            (cli::kind_of(c.file) == cli::file_kind::las || cli::is_point_file(c.file)))
            return cli::run_cloud_index(c.file, q.output, cloud);
        if (used == boxes_cmd) return cli::run_boxes(boxes);
        const int cloud_rc = cli::run_cloud_query(used, cloud_cmd, cloud);
        if (cloud_rc >= 0) return cloud_rc;
        return cli::run(used, cmd, c, q, j);
    } catch (const quoct::file_error& e) {  // "<path>: <cause>", without its own "quoct: "
        if (::isatty(STDERR_FILENO)) std::cerr << "\r\033[K";
        std::cerr << "quoct: error: " << e.path() << ": " << cli::cause_of(e) << '\n';
        return 1;
    } catch (const std::exception& e) {
        if (::isatty(STDERR_FILENO)) std::cerr << "\r\033[K";
        std::cerr << "quoct: error: " << e.what() << '\n';
        return 1;
    }
}
