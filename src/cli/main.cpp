// quoct: the command line. Queries a file of lon/lat points (CSV or GeoJSON; by default the
// bundled world cities) with a quoct::geo::index and prints the hits as a table, CSV or
// GeoJSON, or draws the quadtree, the query and its hits as an SVG picture.
//
// Exit codes: 0 success; 1 a data error (missing or malformed file, bad row under
// --on-bad-row=stop, invalid WKT); CLI11's own non-zero codes for bad arguments.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include <CLI/CLI.hpp>

#include <quoct/geo.hpp>
#include <quoct/geo_boost.hpp>
#include <quoct/io/locations.hpp>
#include <quoct/io/wkt.hpp>

#include "svg.hpp"

namespace {

namespace io = quoct::io;
namespace geo = quoct::geo;

/// Options shared by every subcommand.
struct common {
    std::string file;
    std::string lon_column = "lon", lat_column = "lat", name_column = "name";
    std::string format = "table", on_bad_row = "stop";
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
};

/// The bundled cities file: $QUOCT_DATA (a file, or a directory holding cities.csv), else
/// the data directory this program was built from.
std::string default_file() {
    const char* env = std::getenv("QUOCT_DATA");
    std::string where = env && *env ? env : QUOCT_DATA_DIR;
    struct stat st {};
    if (::stat(where.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) where += "/cities.csv";
    return where;
}

/// Reads the points file, reporting skipped rows on stderr and, when stderr is a terminal
/// and the file is large, what it is doing.
io::location_table load(const common& c) {
    const std::string file = c.file.empty() ? default_file() : c.file;
    io::read_options options;
    options.lon_column = c.lon_column;
    options.lat_column = c.lat_column;
    options.on_bad_row = c.on_bad_row == "skip" ? io::bad_row_policy::skip : io::bad_row_policy::stop;
    options.on_skip = [](const io::skipped_row& row) { std::cerr << "quoct: skipped " << row.message << '\n'; };
    struct stat st {};
    const bool progress = ::isatty(STDERR_FILENO) && ::stat(file.c_str(), &st) == 0 && st.st_size > (1 << 20);
    if (progress) std::cerr << "quoct: reading " << file << " (" << st.st_size / (1 << 20) << " MiB)..." << std::flush;
    io::location_table table = io::read_locations_file(file, options);
    if (progress) std::cerr << "\r\033[Kquoct: " << table.locations.size() << " points read, indexing..." << std::flush;
    if (!table.skipped.empty()) std::cerr << "quoct: " << table.skipped.size() << " bad rows skipped\n";
    return table;
}

/// Moves the name column, when present, to the front; --name-column given but missing is an error.
void name_first(io::location_table& table, const common& c, bool explicit_name) {
    const std::size_t col = table.find_column(c.name_column);
    if (col == table.columns.size()) {
        if (explicit_name) throw io::parse_error(table.source, 0, "no column '" + c.name_column + "'");
        return;
    }
    std::rotate(table.columns.begin(), table.columns.begin() + static_cast<std::ptrdiff_t>(col),
                table.columns.begin() + static_cast<std::ptrdiff_t>(col) + 1);
    for (auto& row : table.values)
        std::rotate(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(col),
                    row.begin() + static_cast<std::ptrdiff_t>(col) + 1);
}

/// Clears the progress line load() may have left on a terminal.
void clear_progress() {
    if (::isatty(STDERR_FILENO)) std::cerr << "\r\033[K" << std::flush;
}

/// near: within km (sorted by distance), the k nearest, or the k nearest within km.
std::vector<io::hit> run_near(const geo::index<>& ix, const query& q) {
    std::vector<io::hit> hits;
    if (q.k > 0) {
        for (const auto& n : ix.nearest(q.lon, q.lat, q.k))
            if (q.km < 0 || n.distance <= q.km * 1000) hits.push_back({n.id, n.distance});
        return hits;
    }
    for (std::uint32_t id : ix.within(q.lon, q.lat, q.km * 1000))
        hits.push_back({id, geo::distance({q.lon, q.lat}, ix.location(id))});
    std::sort(hits.begin(), hits.end(),
              [](const io::hit& a, const io::hit& b) { return a.metres < b.metres || (a.metres == b.metres && a.id < b.id); });
    return hits;
}

std::vector<io::hit> as_hits(std::vector<std::uint32_t> ids) {
    std::sort(ids.begin(), ids.end());
    std::vector<io::hit> hits;
    for (std::uint32_t id : ids) hits.push_back({id, 0});
    return hits;
}

io::output_format format_of(const std::string& name) {
    return name == "csv" ? io::output_format::csv : name == "geojson" ? io::output_format::geojson : io::output_format::table;
}

/// The polygon subcommand's area: --wkt, or --geojson as text (starting with '{') or a file.
io::wkt_multi_polygon polygon_area(const query& q, bool geojson) {
    if (!geojson) return io::read_wkt_area(q.wkt, "--wkt");
    const std::size_t first = q.geojson.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && q.geojson[first] == '{') {
        std::istringstream in(q.geojson);
        return io::read_geojson_area(in, "--geojson");
    }
    std::ifstream in(q.geojson);
    if (!in) throw io::parse_error(q.geojson, 0, "cannot open");
    return io::read_geojson_area(in, q.geojson);
}

/// The svg subcommand's shape, from whichever query options were given.
quoct::cli::svg_shape shape_of(const CLI::App& svg, const query& q) {
    quoct::cli::svg_shape shape;
    if (svg.count("--km") > 0) {
        shape.type = quoct::cli::svg_shape::kind::circle;
        shape.lon = q.lon, shape.lat = q.lat, shape.metres = q.km * 1000;
    } else if (svg.count("--west") > 0) {
        shape.type = quoct::cli::svg_shape::kind::box;
        shape.west = q.west, shape.south = q.south, shape.east = q.east, shape.north = q.north;
    } else if (svg.count("--wkt") > 0) {
        shape.type = quoct::cli::svg_shape::kind::polygon;
        shape.area = io::read_wkt_area(q.wkt, "--wkt");
    }
    return shape;
}

/// The hits of the svg subcommand's shape.
std::vector<std::size_t> svg_hits(const geo::index<>& ix, const quoct::cli::svg_shape& shape) {
    std::vector<std::uint32_t> ids;
    using kind = quoct::cli::svg_shape::kind;
    if (shape.type == kind::circle) ids = ix.within(shape.lon, shape.lat, shape.metres);
    if (shape.type == kind::box) ids = ix.in_box(shape.west, shape.south, shape.east, shape.north);
    if (shape.type == kind::polygon) geo::visit_covered_by(ix, shape.area, [&](std::uint32_t id) { ids.push_back(id); });
    return std::vector<std::size_t>(ids.begin(), ids.end());
}

void add_common(CLI::App& sub, common& c) {
    sub.add_option("FILE", c.file, "CSV (with a header) or GeoJSON (.geojson/.json) file of points; default: "
                                   "the bundled cities ($QUOCT_DATA overrides)")
        ->check(CLI::ExistingFile);
    sub.add_option("--lon-column", c.lon_column, "CSV column of longitudes")->capture_default_str();
    sub.add_option("--lat-column", c.lat_column, "CSV column of latitudes")->capture_default_str();
    sub.add_option("--name-column", c.name_column, "column shown first (if present)")->capture_default_str();
    sub.add_option("--on-bad-row", c.on_bad_row, "stop at a bad row, or skip it with a message on stderr")
        ->check(CLI::IsMember({"stop", "skip"}))
        ->capture_default_str();
}

void add_output(CLI::App& sub, common& c) {
    sub.add_option("--format", c.format, "output format")
        ->check(CLI::IsMember({"table", "csv", "geojson"}))
        ->capture_default_str();
}

void add_centre(CLI::App& sub, query& q, bool required) {
    auto* lon = sub.add_option("--lon", q.lon, "longitude of the centre, degrees")->check(CLI::Range(-180.0, 180.0));
    auto* lat = sub.add_option("--lat", q.lat, "latitude of the centre, degrees")->check(CLI::Range(-90.0, 90.0));
    auto* km = sub.add_option("--km", q.km, "radius in kilometres (great circle)")->check(CLI::NonNegativeNumber);
    if (required) {
        lon->required();
        lat->required();
    } else {
        km->needs(lon)->needs(lat);
    }
}

void add_box(CLI::App& sub, query& q, bool required) {
    auto* w = sub.add_option("--west", q.west, "western longitude (west > east crosses lon 180)")->check(CLI::Range(-180.0, 180.0));
    auto* s = sub.add_option("--south", q.south, "southern latitude")->check(CLI::Range(-90.0, 90.0));
    auto* e = sub.add_option("--east", q.east, "eastern longitude")->check(CLI::Range(-180.0, 180.0));
    auto* n = sub.add_option("--north", q.north, "northern latitude")->check(CLI::Range(-90.0, 90.0));
    for (auto* o : {w, s, e, n}) {
        if (required) o->required();
        for (auto* other : {w, s, e, n})
            if (other != o) o->needs(other);
    }
}

/// The subcommands, as added to the app.
struct commands {
    CLI::App* near;
    CLI::App* box;
    CLI::App* polygon;
    CLI::App* svg;
};

/// Declares every subcommand and its options, writing the parsed values into c and q.
commands add_commands(CLI::App& app, common& c, query& q) {
    commands cmd{};
    cmd.near = app.add_subcommand("near", "points within --km of (--lon, --lat), nearest first; or the --k nearest");
    add_centre(*cmd.near, q, true);
    cmd.near->add_option("--k", q.k, "the k nearest points (within --km, if given too)")->check(CLI::PositiveNumber);
    cmd.box = app.add_subcommand("box", "points in a lon/lat box, in file order");
    add_box(*cmd.box, q, true);
    cmd.polygon = app.add_subcommand("polygon", "points in a WKT or GeoJSON polygon (lon lat degrees, boundary included), in "
                                                "file order; an edge more than 180 degrees wide crosses lon 180 the short way");
    auto* wkt = cmd.polygon->add_option("--wkt", q.wkt, "POLYGON((lon lat, ...)) or MULTIPOLYGON(...), optionally after SRID=4326;");
    auto* geojson = cmd.polygon->add_option("--geojson", q.geojson, "a GeoJSON Polygon or MultiPolygon (geometry, Feature or "
                                                                     "FeatureCollection), as text starting with '{' or a file");
    wkt->excludes(geojson);
    CLI::App* polygon = cmd.polygon;
    polygon->callback([polygon] {
        if (polygon->count("--wkt") == 0 && polygon->count("--geojson") == 0) throw CLI::RequiredError("--wkt or --geojson");
    });
    cmd.svg = app.add_subcommand("svg", "an SVG picture of the quadtree over the points, with one query and its hits");
    add_centre(*cmd.svg, q, false);
    add_box(*cmd.svg, q, false);
    cmd.svg->add_option("--wkt", q.wkt, "a WKT polygon to query and draw");
    cmd.svg->add_option("-o,--output", q.output, "the SVG file to write")->required();
    cmd.svg->add_option("--width", q.width, "picture width in pixels")->check(CLI::Range(16.0, 20000.0))->capture_default_str();
    cmd.svg->add_option("--leaf-size", q.leaf_size, "split a drawn cell while it holds more points")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    for (auto* sub : {cmd.near, cmd.box, cmd.polygon, cmd.svg}) add_common(*sub, c);
    for (auto* sub : {cmd.near, cmd.box, cmd.polygon}) add_output(*sub, c);
    CLI::App* near = cmd.near;
    near->callback([near] {
        if (near->count("--km") == 0 && near->count("--k") == 0) throw CLI::RequiredError("--km or --k");
    });
    CLI::App* svg = cmd.svg;
    svg->callback([svg] {
        const int shapes = (svg->count("--km") > 0) + (svg->count("--west") > 0) + (svg->count("--wkt") > 0);
        if (shapes > 1) throw CLI::ValidationError("give at most one of --km (with --lon, --lat), the box, --wkt");
    });
    return cmd;
}

/// The svg subcommand: queries the shape and writes the picture to q.output.
void run_svg(const CLI::App& svg, const query& q, const io::location_table& table, const geo::index<>& ix) {
    const quoct::cli::svg_shape shape = shape_of(svg, q);
    const std::vector<std::size_t> hits = svg_hits(ix, shape);
    std::ofstream out(q.output);
    if (!out) throw io::parse_error(q.output, 0, "cannot open for writing");
    quoct::cli::svg_options options;
    options.width = q.width;
    options.leaf_size = q.leaf_size;
    options.title = std::to_string(hits.size()) + " of " + std::to_string(ix.size()) +
                    " points; quadtree cells split above " + std::to_string(q.leaf_size) + " points";
    quoct::cli::write_svg(out, table.locations, hits, shape, options);
    if (!out.flush()) throw io::parse_error(q.output, 0, "cannot write");
}

/// Runs the parsed subcommand `used`; returns the exit code. Throws on data errors.
int run(const CLI::App* used, const commands& cmd, const common& c, const query& q) {
    io::location_table table = load(c);
    name_first(table, c, used->count("--name-column") > 0);
    const geo::index<> ix(table.locations);
    clear_progress();
    if (used == cmd.svg) {
        run_svg(*cmd.svg, q, table, ix);
        return 0;
    }
    std::vector<io::hit> hits;
    if (used == cmd.near) hits = run_near(ix, q);
    if (used == cmd.box) hits = as_hits(ix.in_box(q.west, q.south, q.east, q.north));
    if (used == cmd.polygon) hits = as_hits(geo::covered_by(ix, polygon_area(q, used->count("--geojson") > 0)));
    io::write_options options;
    options.format = format_of(c.format);
    options.with_distance = used == cmd.near;
    io::write_locations(std::cout, table, hits, options);
    std::cout.flush();
    return std::cout ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"quoct: query lon/lat points (CSV or GeoJSON) with a quoct geographic index"};
    app.require_subcommand(1);
    common c;
    query q;
    const commands cmd = add_commands(app, c, q);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    try {
        return run(app.get_subcommands().front(), cmd, c, q);
    } catch (const std::exception& e) {
        if (::isatty(STDERR_FILENO)) std::cerr << "\r\033[K";
        std::cerr << "quoct: error: " << e.what() << '\n';
        return 1;
    }
}
