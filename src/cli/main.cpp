// quoct: the command line. Queries a file of lon/lat points (CSV or GeoJSON; with GDAL any
// vector source; by default the bundled world cities) with a quoct::geo::index and prints
// the hits as a table, CSV or GeoJSON (with GDAL also GeoPackage or FlatGeobuf), or draws
// the quadtree, the query and its hits as an SVG picture.
//
// Exit codes: 0 success (and --help); 1 a data error (missing or malformed file, bad row
// under --on-bad-row=stop, invalid WKT, a file that cannot be written); 2 a usage error (bad
// arguments: unknown, missing, out of range or not numbers), before any file is read.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <vector>

#include <CLI/CLI.hpp>

#include <quoct/geo/index.hpp>
#include <quoct/geo/polygons.hpp>
#include <quoct/parallel.hpp>
#include <quoct/io/geojson_polygons.hpp>
#include <quoct/io/location_index.hpp>
#include <quoct/io/locations.hpp>
#include <quoct/io/wkt.hpp>

#ifdef QUOCT_WITH_GDAL
#include <dlfcn.h>

#include "gdal_module.hpp"
#endif

#include "boxes.hpp"
#include "cloud.hpp"
#include "info.hpp"
#include "svg.hpp"

namespace {

namespace io = quoct::io;
namespace geo = quoct::geo;

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
std::string needs_gdal(const std::string& what) {
    return what + " needs the quoct command built with GDAL (Debian: apt-get install libgdal-dev, then rebuild)";
}

/// Thrown for a bad argument found after CLI11's parse: exit code 2, like CLI11's own.
struct usage_error : CLI::ValidationError {
    explicit usage_error(const std::string& message) : CLI::ValidationError(message) {}
};

/// The directory holding the running executable, or "" when it cannot be found.
std::filesystem::path executable_dir() {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : self.parent_path();
}

#ifdef QUOCT_WITH_GDAL
/// quoct::io::gdal's functions, from the module quoct-gdal.so (gdal_module.hpp), loaded the
/// first time an input or output needs GDAL: beside this executable (the build tree), else
/// where `cmake --install` puts it (lib/quoct, found relative to this executable). Throws
/// std::runtime_error naming every place tried when none holds this build's module.
const quoct::cli::gdal_functions& gdal() {
    static const quoct::cli::gdal_functions* const functions = [] {
        const std::filesystem::path dir = executable_dir();
        std::string tried;
        if (!dir.empty()) {
            for (const std::filesystem::path& place : {dir, dir / QUOCT_INSTALL_MODULE_RELATIVE}) {
                const std::string path = (place / QUOCT_GDAL_MODULE).lexically_normal().string();
                void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
                std::string why;
                if (!handle) {
                    // (dlerror names the module, or a library of GDAL's it could not load.)
                    const char* error = ::dlerror();
                    why = error ? error : "cannot be loaded";
                    if (why.compare(0, path.size(), path) != 0) why = path + ": " + why;
                } else {
                    using entry = const quoct::cli::gdal_functions* (*)();
                    const auto f = reinterpret_cast<entry>(::dlsym(handle, "quoct_cli_gdal_functions"));
                    const quoct::cli::gdal_functions* t = f ? f() : nullptr;
                    if (t && t->version == quoct::cli::gdal_functions_version &&
                        t->size == sizeof(quoct::cli::gdal_functions))
                        return t;
                    // (Left loaded: unloading GDAL's libraries again gains nothing.)
                    why = path + ": not the GDAL module of this build of quoct";
                }
                tried += (tried.empty() ? "" : "; ") + why;
            }
        }
        throw std::runtime_error("this quoct reads and writes GIS formats through its GDAL module, which cannot be loaded (" +
                                 (tried.empty() ? std::string("the executable's directory is unknown") : tried) +
                                 "): install quoct-gdal.so with the command, and GDAL's libraries");
    }();
    return *functions;
}
#endif

/// The bundled cities file: $QUOCT_DATA (a file, or a directory holding cities.csv); else
/// cities.csv where `cmake --install` puts it (share/quoct, found relative to this
/// executable, so a moved or relocated prefix works too); else, when running from the build
/// tree, the data directory of the sources it was built from.
std::string default_file() {
    const char* env = std::getenv("QUOCT_DATA");
    std::string where = env && *env ? env : "";
    if (where.empty()) {
        const std::filesystem::path dir = executable_dir();
        const std::filesystem::path installed = dir / QUOCT_INSTALL_DATA_RELATIVE / "cities.csv";
        std::error_code ec;
        where = !dir.empty() && std::filesystem::is_regular_file(installed, ec) ? installed.lexically_normal().string()
                                                                                 : std::string(QUOCT_DATA_DIR);
    }
    struct stat st {};
    if (::stat(where.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) where += "/cities.csv";
    return where;
}

/// The cause in a file_error's message, without the "quoct: <path>: " before it.
std::string cause_of(const quoct::file_error& e) {
    const std::string what = e.what(), head = "quoct: " + e.path() + ": ";
    return what.compare(0, head.size(), head) == 0 ? what.substr(head.size()) : what;
}

/// The error `e` from opening an index file, for `path`. When the file's header (read again
/// by read_info) names another kind than `quoct index` writes (one saved from C++ or Python
/// without the points' table), it says what the file is and what to do instead.
template <class ReadInfo>
quoct::file_error index_error(const std::string& path, const quoct::file_error& e, ReadInfo read_info) {
    std::string held;
    try {
        held = read_info().type;
    } catch (const quoct::file_error&) {  // a damaged header: e says so
        return quoct::file_error(path, cause_of(e));
    }
    if (held == quoct::detail::file_codec<io::location_index>::type_name()) return quoct::file_error(path, cause_of(e));
    const std::string kind = held.rfind("geo::index<", 0) == 0 ? "a geographic index without a table (a C++ geo::index, "
                                                                  "or a quoct.geo.Index saved from Python)"
                             : held.rfind("orthtree<", 0) == 0 ? "a tree of points (a C++ orthtree, or a quoct.Tree saved from Python)"
                                                               : "an index of another kind";
    return quoct::file_error(path, "holds " + held + ", " + kind + "; the command reads the index files that `quoct index` "
                                   "writes, which keep each point's columns: make one from the points with "
                                   "`quoct index POINTS -o FILE`");
}

/// GDAL's view of the source options (--layer, --s-srs and their --polygon- forms).
#ifdef QUOCT_WITH_GDAL
/// `prefix`: "" for FILE's options, "polygon-" for --polygons'.
io::gdal::source_options gdal_source(const std::string& layer, const std::string& s_srs, const char* prefix = "") {
    io::gdal::source_options source;
    source.layer = layer;
    source.source_srs = s_srs;
    source.layer_option = std::string("--") + prefix + "layer";
    return source;
}
#endif

/// Refuses --layer and --s-srs for a source that quoct reads itself (CSV, GeoJSON).
void no_gdal_options(const std::string& layer, const std::string& s_srs, const std::string& name, const char* prefix) {
    const std::string option = std::string("--") + prefix + (layer.empty() ? "s-srs" : "layer");
    if (!layer.empty() || !s_srs.empty())
        throw io::parse_error(name, 0, with_gdal ? option + " is for sources read through GDAL; this is CSV or GeoJSON text"
                                                 : needs_gdal(option));
}

/// Reads the points of `text` (all of standard input): CSV or GeoJSON by its first
/// character, or, binary with GDAL, any vector source (a GeoPackage piped in).
io::location_table read_points_text(std::string text, const io::read_options& options, const common& c) {
#ifdef QUOCT_WITH_GDAL
    if (!io::binary_kind(text.data(), std::min<std::size_t>(text.size(), 512)).empty())
        return gdal().read_locations_bytes(text, "stdin", options, gdal_source(c.layer, c.s_srs));
#endif
    no_gdal_options(c.layer, c.s_srs, "stdin", "");
    std::istringstream in(std::move(text));
    return io::read_locations_stream(in, "stdin", options);
}

/// Reads the points file `file`: through GDAL when it is a vector source that quoct does not
/// read itself (and GDAL is built in), else as CSV or GeoJSON.
#ifdef QUOCT_WITH_GDAL
/// True when `e` is quoct's GeoJSON reader refusing a "crs" other than WGS 84 lon/lat, which
/// GDAL can reproject.
bool refuses_crs(const io::parse_error& e) {
    const std::string what = e.what();
    return what.find(": crs ") != std::string::npos && what.find("is not WGS 84 longitude/latitude") != std::string::npos;
}
#endif

/// What the stream's first bytes say it is when it is not text (io::binary_kind), or "";
/// the stream is rewound to its start.
std::string binary_start(std::istream& in) {
    char head[512];
    in.read(head, sizeof head);
    const std::string kind = io::binary_kind(head, static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    in.clear();
    in.seekg(0);
    return kind;
}

#ifdef QUOCT_WITH_GDAL
/// The path GDAL is to open for `file`, or "" when quoct reads it itself (CSV or GeoJSON
/// text, or a file that cannot be read, whose reader then says so): `file` when a GDAL
/// driver other than CSV and GeoJSON recognises it; for a zip archive, /vsizip/ + file
/// when GDAL finds a vector source in it (a zipped Shapefile). A binary file GDAL does not
/// read is an error saying what it is.
std::string gdal_path(const std::string& file) {
    const std::string driver = gdal().identify(file);
    if (!driver.empty() && driver != "CSV" && driver != "GeoJSON") return file;
    std::ifstream in(file, std::ios::binary);
    const std::string kind = binary_start(in);
    if (kind.empty()) return "";
    if (kind == "a zip archive" && gdal().reads("/vsizip/" + file)) return "/vsizip/" + file;
    throw io::parse_error(file, 0, "is " + kind + ", which GDAL does not read as a vector source");
}
#endif

/// With GDAL, --s-srs on CSV or GeoJSON text reads it through GDAL too (CSV with its
/// coordinate columns as x and y), as does GeoJSON whose "crs" names another system.
io::location_table read_points_file(const std::string& file, const io::read_options& options, const common& c) {
#ifdef QUOCT_WITH_GDAL
    const io::gdal::source_options source = gdal_source(c.layer, c.s_srs);
    const std::string through_gdal = gdal_path(file);
    if (!through_gdal.empty()) return gdal().read_locations(through_gdal, options, source);
    const std::string driver = gdal().identify(file);
    if (!c.s_srs.empty()) {
        no_gdal_options(c.layer, "", file, "");
        return driver == "GeoJSON" ? gdal().read_locations(file, options, source)
                                   : gdal().read_locations_csv(file, options, source);
    }
    no_gdal_options(c.layer, "", file, "");
    try {
        return io::read_locations_file(file, options);
    } catch (const io::parse_error& e) {
        // quoct's GeoJSON reader takes WGS 84 only; GDAL reprojects any other crs it names.
        if (driver != "GeoJSON" || !refuses_crs(e)) throw;
        return gdal().read_locations(file, options, source);
    }
#else
    no_gdal_options(c.layer, c.s_srs, file, "");
    return io::read_locations_file(file, options);
#endif
}

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
input read_input(const common& c, const std::string& path) {
    const std::string file = path.empty() ? default_file() : path;
    io::read_options options;
    options.lon_column = c.lon_column;
    options.lat_column = c.lat_column;
    options.on_bad_row = c.on_bad_row == "skip" ? io::bad_row_policy::skip : io::bad_row_policy::stop;
    options.on_skip = [](const io::skipped_row& row) { std::cerr << "quoct: skipped " << row.message << '\n'; };
    input in;
    in.name = file == "-" ? "stdin" : file;
    if (file == "-") {
        std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
        if (std::cin.bad()) throw io::parse_error("stdin", 0, "cannot read the input");
        if (io::is_index_file(text.data(), text.size())) {
            try {
                in.index = quoct::from_bytes<io::location_index>(text.data(), text.size());
            } catch (const quoct::file_error& e) {
                throw index_error("stdin", e, [&] { return quoct::read_file_info(text.data(), text.size()); });
            }
        } else {
            in.table = read_points_text(std::move(text), options, c);
        }
    } else if (io::is_index_file(file)) {
        try {
            in.index = quoct::open<io::location_index>(file, quoct::open_options{true});
        } catch (const quoct::file_error& e) {
            throw index_error(e.path(), e, [&] { return quoct::read_file_info(file); });
        }
    } else {
        struct stat st {};
        const bool progress = ::isatty(STDERR_FILENO) && ::stat(file.c_str(), &st) == 0 && st.st_size > (1 << 20);
        if (progress) std::cerr << "quoct: reading " << file << " (" << st.st_size / (1 << 20) << " MiB)..." << std::flush;
        in.table = read_points_file(file, options, c);
        if (progress) std::cerr << "\r\033[Kquoct: " << in.table.locations.size() << " points read, indexing..." << std::flush;
    }
    if (!in.index) {
        in.name = in.table.source;
        if (!in.table.skipped.empty()) std::cerr << "quoct: " << in.table.skipped.size() << " bad rows skipped\n";
    }
    return in;
}

/// FILE's index: opened from an index file, or built over the points read.
io::location_index indexed(input& in) {
    if (in.index) return std::move(*in.index);
    io::location_index x(in.table);
    in.table = io::location_table();
    return x;
}

/// Moves the name column, when present, to the front; --name-column given but missing is an error.
void name_first(io::location_table& table, const common& c, bool explicit_name) {
    const std::size_t col = table.find_column(c.name_column);
    if (col == table.columns.size()) {
        if (explicit_name) throw io::parse_error(table.source, 0, "no column '" + c.name_column + "'");
        return;
    }
    table.move_column_first(col);
}

/// Clears the progress line read_input() may have left on a terminal.
void clear_progress() {
    if (::isatty(STDERR_FILENO)) std::cerr << "\r\033[K" << std::flush;
}

/// near about one centre, appending to `hits` (tagged `center`): within km (sorted by
/// distance, then id), the k nearest, or the k nearest within km.
void run_near(const geo::index<>& ix, const query& q, geo::lonlat centre, std::size_t center, std::vector<io::hit>& hits) {
    if (q.k > 0) {
        for (const auto& n : ix.nearest(centre.lon, centre.lat, q.k))
            if (q.km < 0 || n.distance <= q.km * 1000) hits.push_back({n.id, n.distance, center});
        return;
    }
    const std::size_t first = hits.size();
    ix.visit_within(centre.lon, centre.lat, q.km * 1000,
                    [&](std::uint32_t id) { hits.push_back({id, geo::distance(centre, ix.location(id)), center}); });
    std::sort(hits.begin() + static_cast<std::ptrdiff_t>(first), hits.end(),
              [](const io::hit& a, const io::hit& b) { return a.metres < b.metres || (a.metres == b.metres && a.id < b.id); });
}

/// near --centers: every centre of the centres file in turn, on the one index; the output's
/// first column "center" is the centre's data row number (from 1) or its id column value.
std::vector<io::hit> run_near_centers(const geo::index<>& ix, const query& q, const common& c, io::write_options& out) {
    common centres_options = c;  // the same columns and policy; --layer and --s-srs are FILE's
    centres_options.layer.clear();
    centres_options.s_srs.clear();
    input in = read_input(centres_options, c.centers);
    const io::location_table centres = in.index ? in.index->table() : std::move(in.table);
    std::size_t id_column = centres.columns.size();
    if (!c.centers_id_column.empty()) {
        id_column = centres.find_column(c.centers_id_column);
        if (id_column == centres.columns.size())
            throw io::parse_error(centres.source, 0, "no column '" + c.centers_id_column + "' (--centers-id-column)");
    }
    out.center_column = "center";
    std::vector<io::hit> hits;
    for (std::size_t i = 0; i < centres.locations.size(); ++i) {
        const bool by_id = id_column < centres.columns.size();
        out.center_labels.push_back(by_id ? std::string(centres.values[i][id_column]) : std::to_string(centres.records[i]));
        out.center_kinds.push_back(by_id ? centres.kind(i, id_column) : io::value_kind::json);
        run_near(ix, q, centres.locations[i], i, hits);
    }
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

/// The polygon subcommand's area: --wkt, or --geojson as text (starting with '{'), '-' for
/// standard input, or a file.
io::wkt_multi_polygon polygon_area(const query& q, bool geojson) {
    if (!geojson) return io::read_wkt_area(q.wkt, "--wkt");
    if (q.geojson == "-") {
        std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
        if (std::cin.bad()) throw io::parse_error("stdin", 0, "cannot read the input");
        std::istringstream in(std::move(text));
        return io::read_geojson_area(in, "stdin");
    }
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
    if (svg.count("--km") > 0 || svg.count("--k") > 0) {  // with --k alone, the radius is set by its hits
        shape.type = quoct::cli::svg_shape::kind::circle;
        shape.lon = q.lon, shape.lat = q.lat, shape.metres = std::max(q.km, 0.0) * 1000;
    } else if (svg.count("--west") > 0) {
        shape.type = quoct::cli::svg_shape::kind::box;
        shape.west = q.west, shape.south = q.south, shape.east = q.east, shape.north = q.north;
    } else if (svg.count("--wkt") > 0) {
        shape.type = quoct::cli::svg_shape::kind::polygon;
        shape.area = io::read_wkt_area(q.wkt, "--wkt");
    }
    return shape;
}

/// The hits of the svg subcommand's shape; with --k, the k nearest of its centre (within
/// --km when given), as near lists them.
std::vector<std::size_t> svg_hits(const geo::index<>& ix, const quoct::cli::svg_shape& shape, const query& q) {
    std::vector<std::uint32_t> ids;
    using kind = quoct::cli::svg_shape::kind;
    if (q.k > 0) {
        std::vector<io::hit> near;
        run_near(ix, q, {q.lon, q.lat}, 0, near);
        std::vector<std::size_t> out;
        for (const auto& h : near) out.push_back(h.id);
        return out;
    }
    if (shape.type == kind::circle) ids = ix.within(shape.lon, shape.lat, shape.metres);
    if (shape.type == kind::box) ids = ix.in_box(shape.west, shape.south, shape.east, shape.north);
    if (shape.type == kind::polygon) geo::visit_covered_by(ix, shape.area, [&](std::uint32_t id) { ids.push_back(id); });
    return std::vector<std::size_t>(ids.begin(), ids.end());
}

/// What every subcommand's --help says about coordinates and exit codes.
const char* const rules_footer =
    "Coordinates: longitude then latitude, in degrees; longitudes in [-180, 180], latitudes in\n"
    "[-90, 90]. Queries are closed sets (boundary included): a point at exactly --km, or on a\n"
    "box's or polygon's edge, is a hit. A box with west > east crosses the antimeridian (lon\n"
    "180): --west 170 --east -170 is 20 degrees wide; --west -180 --east 180 is every\n"
    "longitude. Distances (--km, --k) are great-circle on a sphere of radius 6371.0088 km, so\n"
    "lon -180 and 180 are one meridian there; box bounds compare the longitudes as given.\n"
    "Exit codes: 0 success, 1 data error (a file, a row, a polygon), 2 bad arguments.";

/// FILE and the options for reading it, which an index file does not use.
void add_input(CLI::App& sub, common& c) {
    sub.add_option("FILE", c.file, "CSV (with a header) or GeoJSON file of points (GeoJSON when it starts with '{'), "
                                   "with GDAL any GIS vector source of points (GeoPackage, Shapefile, FlatGeobuf, ...), "
                                   "or an index file made by 'quoct index' (each known by its content), - for standard "
                                   "input; default: the bundled cities ($QUOCT_DATA overrides)");
    sub.add_option("--lon-column", c.lon_column, "CSV column of longitudes (not used for an index file)")
        ->capture_default_str();
    sub.add_option("--lat-column", c.lat_column, "CSV column of latitudes (not used for an index file)")
        ->capture_default_str();
    sub.add_option("--on-bad-row", c.on_bad_row,
                   "stop at a bad row, or skip it with a message on stderr (not used for an index file)")
        ->check(CLI::IsMember({"stop", "skip"}))
        ->capture_default_str();
    sub.add_option("--layer", c.layer, "the layer of FILE to read, by name, when it is a GIS source with several "
                                       "(GeoPackage, ...; needs GDAL)");
    sub.add_option("--s-srs", c.s_srs, "the CRS of FILE's coordinates, overriding the one it declares: EPSG:32631, "
                                       "WKT or PROJ text; reprojected to WGS 84 lon/lat (needs GDAL)");
}

/// What index --help says about its output.
const char* const index_footer =
    "Prints what the index holds: the file written with -o; else FILE, when it is an index file;\n"
    "else (a points file, no -o) the index that would be written. One 'key: value' a line:\n"
    "file, type, format version, bytes, source, rows, columns (their number, then their names),\n"
    "feature ids, altitudes, bad rows skipped, bounds (the least and greatest lon and lat).\n"
    "Exit codes: 0 success, 1 data error (a file, a row), 2 bad arguments.";

void add_common(CLI::App& sub, common& c) {
    add_input(sub, c);
    sub.add_option("--name-column", c.name_column, "column shown first (if present)")->capture_default_str();
}

void add_output(CLI::App& sub, common& c, query& q) {
    sub.add_option("--format", c.format, "output format; gpkg (GeoPackage) and fgb (FlatGeobuf) need GDAL and -o; "
                                         "default: by the -o file's extension (.csv, .geojson, .json, .gpkg, .fgb), "
                                         "else table")
        ->check(CLI::IsMember({"table", "csv", "geojson", "gpkg", "fgb"}))
        ->capture_default_str();
    sub.add_option("-o,--output", q.output, "write the rows to this file (replaced only when complete) instead of "
                                            "standard output");
}

/// The output format named by a file's extension, or table. An extension of a GIS format
/// quoct does not write (a Shapefile, KML, ...) is a usage error rather than a text table
/// under that name.
std::string format_by_extension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (ext == ".csv") return "csv";
    if (ext == ".geojson" || ext == ".json") return "geojson";
    if (ext == ".gpkg") return "gpkg";
    if (ext == ".fgb") return "fgb";
    static const char* const gis[] = {".shp", ".shx", ".dbf", ".zip", ".kml", ".kmz", ".gml", ".gpx", ".gdb", ".tab",
                                      ".mif", ".sqlite", ".dxf", ".parquet", ".arrow", ".xlsx", ".ods", ".osm",
                                      ".pbf", ".topojson", ".mbtiles", ".pmtiles", ".geojsonl", ".geojsons", ".jml"};
    for (const char* g : gis)
        if (ext == g)
            throw usage_error("-o " + path + ": quoct does not write " + ext.substr(1) +
                              " files; it writes .csv, .geojson, .json" + (with_gdal ? ", .gpkg and .fgb" : "") +
                              " (--format table writes a text table to any name)");
    return "table";
}

/// --lon, --lat, --km; with `km_needs_centre` --km needs --lon and --lat (near may take its
/// centres from --centers instead).
void add_centre(CLI::App& sub, number_args& a, bool km_needs_centre) {
    auto* lon = sub.add_option("--lon", a.lon, "longitude of the centre, degrees in [-180, 180]")->type_name("LON");
    auto* lat = sub.add_option("--lat", a.lat, "latitude of the centre, degrees in [-90, 90]")->type_name("LAT");
    auto* km = sub.add_option("--km", a.km, "radius in kilometres (great circle), at least 0")->type_name("KM");
    lon->needs(lat);
    lat->needs(lon);
    if (km_needs_centre) km->needs(lon);
}

void add_box(CLI::App& sub, number_args& a, bool required) {
    auto* w = sub.add_option("--west", a.west, "western longitude (west > east crosses lon 180)")->type_name("LON");
    auto* s = sub.add_option("--south", a.south, "southern latitude, at most --north")->type_name("LAT");
    auto* e = sub.add_option("--east", a.east, "eastern longitude")->type_name("LON");
    auto* n = sub.add_option("--north", a.north, "northern latitude")->type_name("LAT");
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
    CLI::App* join;
    CLI::App* svg;
    CLI::App* index;
    CLI::App* info;
};

/// Declares every subcommand and its options, writing the parsed values into c, q and a.
commands add_commands(CLI::App& app, common& c, query& q, number_args& a, join_args& j) {
    commands cmd{};
    cmd.near = app.add_subcommand("near", "points within --km of (--lon, --lat), nearest first; or the --k nearest; "
                                          "or either for every centre of --centers");
    add_centre(*cmd.near, a, false);
    cmd.near->add_option("--k", a.k, "the k nearest points (within --km, if given too), at least 1")->type_name("K");
    auto* centers = cmd.near->add_option("--centers", c.centers,
                                         "a file of query centres (CSV or GeoJSON points, read with the same column "
                                         "options; - for standard input) instead of --lon/--lat; output column 'center' "
                                         "is each centre's data row number, from 1");
    centers->excludes(cmd.near->get_option("--lon"))->excludes(cmd.near->get_option("--lat"));
    cmd.near->add_option("--centers-id-column", c.centers_id_column, "column of the centres file to show as 'center'")
        ->needs(centers);
    cmd.box = app.add_subcommand("box", "points in a lon/lat box, in file order");
    add_box(*cmd.box, a, true);
    cmd.polygon = app.add_subcommand("polygon", "points in a WKT or GeoJSON polygon (lon lat degrees, boundary included), in "
                                                "file order; an edge more than 180 degrees wide crosses lon 180 the short way");
    auto* wkt = cmd.polygon->add_option("--wkt", q.wkt, "POLYGON((lon lat, ...)) or MULTIPOLYGON(...), optionally after SRID=4326;");
    auto* geojson = cmd.polygon->add_option("--geojson", q.geojson, "a GeoJSON Polygon or MultiPolygon (geometry, Feature or "
                                                                     "FeatureCollection), as text starting with '{', a file, "
                                                                     "or - for standard input");
    wkt->excludes(geojson);
    CLI::App* polygon = cmd.polygon;
    polygon->callback([polygon] {
        if (polygon->count("--wkt") == 0 && polygon->count("--geojson") == 0) throw CLI::RequiredError("--wkt or --geojson");
    });
    cmd.join = app.add_subcommand("join", "which polygon of a layer covers each point (boundary included): one row per "
                                          "point and polygon, a point in none with empty polygon columns; or the count "
                                          "of points per polygon");
    cmd.join->add_option("--polygons", j.polygons, "polygons, one per feature: GeoJSON (a FeatureCollection of Polygon or "
                                                   "MultiPolygon features, a Feature or a geometry) or, with GDAL, any "
                                                   "GIS vector source (GeoPackage, Shapefile, ...); - for standard input")
        ->required();
    cmd.join->add_option("--polygon-columns", j.columns, "properties of the polygons to add, comma separated, each as "
                                                         "polygon_<name>; polygon_id (the feature's id, else its "
                                                         "number from 1) always comes")
        ->delimiter(',');
    auto* inner = cmd.join->add_flag("--inner", j.inner, "leave out the points no polygon covers");
    auto* count = cmd.join->add_flag("--count", j.count, "one row per polygon: polygon_id, the polygon columns, count");
    inner->excludes(count);
    cmd.join->add_option("--invalid", j.invalid, "an invalid polygon (it intersects itself, ...) stops the run, is "
                                                 "skipped with a message on stderr, or is repaired (GEOS MakeValid on its "
                                                 "lon/lat as written, needs GDAL) with a message on stderr")
        ->check(CLI::IsMember({"stop", "skip", "repair"}))
        ->capture_default_str();
    cmd.join->add_option("--polygon-layer", j.layer, "the layer of --polygons to read, by name (needs GDAL)");
    cmd.join->add_option("--polygon-s-srs", j.s_srs, "the CRS of the polygons' coordinates, as --s-srs (needs GDAL)");
    cmd.svg = app.add_subcommand("svg", "an SVG map of the points, with one query, its hits labelled, and optionally the "
                                        "quadtree's cells; or, with --polygons, a choropleth of the points each polygon "
                                        "covers (join --count's counts)");
    add_centre(*cmd.svg, a, true);
    cmd.svg->add_option("--k", a.k, "the k nearest points of (--lon, --lat) (within --km, if given too), at least 1")
        ->type_name("K")
        ->needs(cmd.svg->get_option("--lon"));
    add_box(*cmd.svg, a, false);
    cmd.svg->add_option("--wkt", q.wkt, "a WKT polygon to query and draw");
    cmd.svg->add_option("--label-by", q.label_by, "a column of numbers ranking the hits' labels: the largest are "
                                                  "labelled first, at most 60, none over another (ignored when FILE "
                                                  "has no such column, unless given)")
        ->capture_default_str();
    auto* choropleth = cmd.svg->add_option("--polygons", j.polygons, "a choropleth instead: these polygons (as join "
                                                                     "--polygons) filled by the number of points each "
                                                                     "covers, in --classes classes, with a legend");
    cmd.svg->add_option("--polygon-label-column", j.label_column, "with --polygons: the polygons' column labelling "
                                                                  "the largest counts (ignored when absent, unless given)")
        ->capture_default_str()
        ->needs(choropleth);
    cmd.svg->add_option("--classes", a.classes, "with --polygons: colour classes for the positive counts, 1 to 7, of "
                                                "about equal numbers of polygons (quantiles); 0 has its own")
        ->capture_default_str()
        ->needs(choropleth);
    cmd.svg->add_option("--polygon-layer", j.layer, "with --polygons: the layer to read, by name (needs GDAL)")->needs(choropleth);
    cmd.svg->add_option("--polygon-s-srs", j.s_srs, "with --polygons: the CRS of their coordinates, as --s-srs (needs GDAL)")
        ->needs(choropleth);
    cmd.svg->add_option("--invalid", j.invalid, "with --polygons: an invalid polygon stops the run, is skipped or is "
                                                "repaired, as for join")
        ->check(CLI::IsMember({"stop", "skip", "repair"}))
        ->capture_default_str()
        ->needs(choropleth);
    cmd.svg->add_option("-o,--output", q.output, "the SVG file to write (replaced only when the picture is complete)")
        ->required();
    cmd.svg->add_option("--width", a.width, "picture width in pixels, in [16, 20000]")->capture_default_str();
    cmd.svg->add_flag("--cells", q.cells, "draw the quadtree's cells over the points");
    cmd.svg->add_option("--leaf-size", a.leaf_size, "with --cells: split a drawn cell while it holds more points, at least 1")
        ->capture_default_str();
    auto* basemap = cmd.svg->add_option("--basemap", q.basemap, "GeoJSON polygons drawn as land under the points; default: "
                                                                "the bundled Natural Earth countries");
    cmd.svg->add_flag("--no-basemap", q.no_basemap, "no land, only the points")->excludes(basemap);
    cmd.index = app.add_subcommand("index", "index FILE once: the points, every column and the index in one file, "
                                            "which the other subcommands open in place of FILE, fast; given an index "
                                            "file, check it (every checksum) and say what it holds");
    cmd.index->add_option("-o,--output", q.output, "the index file to write (replaced only when complete); without it "
                                                   "nothing is written (a LAS, PLY or XYZ FILE needs it)");
    add_input(*cmd.index, c);
    cmd.index->footer(index_footer);
    cmd.info = app.add_subcommand("info", "what FILE holds, from its header (checked against the file; the points are "
                                          "not read): a LAS file's version, point format, count, bounds and fields, or "
                                          "a quoct index file's type and sections");
    cmd.info->add_option("FILE", q.info_file, "a LAS file or an index file made by 'quoct index'")->required();
    for (auto* sub : {cmd.near, cmd.box, cmd.polygon, cmd.join, cmd.svg}) {
        add_common(*sub, c);
        sub->footer(rules_footer);
    }
    for (auto* sub : {cmd.near, cmd.box, cmd.polygon, cmd.join}) add_output(*sub, c, q);
    CLI::App* near = cmd.near;
    near->callback([near] {
        if (near->count("--centers") == 0 && near->count("--lon") == 0) throw CLI::RequiredError("--lon and --lat, or --centers,");
        if (near->count("--km") == 0 && near->count("--k") == 0) throw CLI::RequiredError("--km or --k");
    });
    CLI::App* svg = cmd.svg;
    svg->callback([svg] {
        const int shapes = (svg->count("--km") > 0 || svg->count("--k") > 0) + (svg->count("--west") > 0) +
                           (svg->count("--wkt") > 0) + (svg->count("--polygons") > 0);
        if (shapes > 1)
            throw CLI::ValidationError("give at most one of --km or --k (with --lon, --lat), the box, --wkt, --polygons");
    });
    return cmd;
}

/// A real number option: refuses text that is not a number, NaN, infinities (and overflow
/// to them), and values outside [lo, hi], each in words. Throws usage_error.
double real_option(const std::string& name, const std::string& text, double lo, double hi) {
    errno = 0;
    char* end = nullptr;
    const double x = std::strtod(text.c_str(), &end);
    if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())) || end != text.c_str() + text.size())
        throw usage_error(name + " must be a number, not '" + text + "'");
    if (!std::isfinite(x)) throw usage_error(name + " must be a finite number, not '" + text + "'");
    if (x >= lo && x <= hi) return x;
    if (hi == std::numeric_limits<double>::infinity())
        throw usage_error(name + " must be at least " + io::shortest_decimal(lo) + ", not " + text);
    throw usage_error(name + " must be in [" + io::shortest_decimal(lo) + ", " + io::shortest_decimal(hi) + "], not " + text);
}

/// A count option: a whole number from 1 to the largest std::size_t. Throws usage_error.
std::size_t count_option(const std::string& name, const std::string& text) {
    const char* begin = text.data() + (!text.empty() && text.front() == '+' ? 1 : 0);
    const char* end = text.data() + text.size();
    unsigned long long value = 0;
    const auto parsed = std::from_chars(begin, end, value);
    if (begin == end || *begin < '0' || *begin > '9' || parsed.ptr != end)
        throw usage_error(name + " must be a whole number, not '" + text + "'");
    constexpr std::size_t most = std::numeric_limits<std::size_t>::max();
    if (parsed.ec == std::errc::result_out_of_range || value > most)
        throw usage_error(name + " must be at most " + std::to_string(most) + ", not " + text);
    if (value == 0) throw usage_error(name + " must be at least 1, not " + text);
    return static_cast<std::size_t>(value);
}

/// Reads the numeric options `used` was given into q, and checks what CLI11 cannot: the
/// ranges, a box's south <= north, standard input read once, two different coordinate
/// columns. Throws usage_error.
void check_arguments(const CLI::App& used, common& c, const number_args& a, query& q) {
    const auto given = [&](const char* name) {
        const CLI::Option* o = used.get_option_no_throw(name);
        return o != nullptr && o->count() > 0;
    };
    constexpr double unbounded = std::numeric_limits<double>::infinity();
    if (given("--lon")) q.lon = real_option("--lon", a.lon, -180, 180);
    if (given("--lat")) q.lat = real_option("--lat", a.lat, -90, 90);
    if (given("--km")) q.km = real_option("--km", a.km, 0, unbounded);
    if (given("--k")) q.k = count_option("--k", a.k);
    if (given("--west")) {
        q.west = real_option("--west", a.west, -180, 180);
        q.south = real_option("--south", a.south, -90, 90);
        q.east = real_option("--east", a.east, -180, 180);
        q.north = real_option("--north", a.north, -90, 90);
        if (q.south > q.north)
            throw usage_error("--south must not be greater than --north (" + a.south + " > " + a.north + ")");
    }
    if (used.get_name() == "svg") {
        q.width = real_option("--width", a.width, 16, 20000);
        q.leaf_size = count_option("--leaf-size", a.leaf_size);
        q.classes = count_option("--classes", a.classes);
        if (q.classes > 7) throw usage_error("--classes must be at most 7, not " + a.classes);
    }
    if (c.file == "-" && c.centers == "-") throw usage_error("FILE and --centers cannot both be '-' (standard input)");
    if (c.file == "-" && (used.get_name() == "join" || used.get_name() == "svg") && used.count("--polygons") > 0 &&
        used.get_option("--polygons")->as<std::string>() == "-")
        throw usage_error("FILE and --polygons cannot both be '-' (standard input)");
    if (c.file == "-" && used.get_name() == "polygon" && used.count("--geojson") > 0 && q.geojson == "-")
        throw usage_error("FILE and --geojson cannot both be '-' (standard input)");
    const std::string name = used.get_name();
    if (name == "near" || name == "box" || name == "polygon" || name == "join") {
        if (!given("--format") && !q.output.empty()) c.format = format_by_extension(q.output);
        if (c.format == "gpkg" || c.format == "fgb") {
            if (!with_gdal) throw usage_error(needs_gdal("--format " + c.format));
            if (q.output.empty()) throw usage_error("--format " + c.format + " writes a file: give -o FILE");
        }
    }
    if (c.lon_column == c.lat_column)
        throw usage_error("--lon-column and --lat-column are both '" + c.lon_column + "'; give two different columns");
}

/// Writes `path` through a temporary file in the same directory, renamed over it only when
/// `write` has finished and everything is flushed: a failure leaves no partial file and an
/// old file as it was. A path that exists and is not a regular file (/dev/stdout) is written
/// directly. Throws io::parse_error when it cannot write, and whatever `write` throws.
template <class Write>
void write_file(const std::string& path, Write&& write) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool special = fs::exists(path, ec) && !fs::is_regular_file(path, ec);
    const std::string temporary = special ? path : path + ".partial-" + std::to_string(::getpid());
    try {
        std::ofstream out(temporary, std::ios::binary);
        if (!out) throw io::parse_error(path, 0, "cannot open for writing");
        write(out);
        if (!out.flush()) throw io::parse_error(path, 0, "cannot write");
        out.close();
        if (!special && std::rename(temporary.c_str(), path.c_str()) != 0)
            throw io::parse_error(path, 0, "cannot replace: " + std::generic_category().message(errno));
    } catch (...) {
        if (!special) fs::remove(temporary, ec);
        throw;
    }
}

/// Writes the rows `hits` of `table` in --format: to standard output, or to -o (through
/// write_file; GeoPackage and FlatGeobuf through GDAL). Returns the exit code.
int write_hits(const common& c, const query& q, const io::location_table& table, const std::vector<io::hit>& hits,
               io::write_options options) {
#ifdef QUOCT_WITH_GDAL
    if (c.format == "gpkg" || c.format == "fgb") {
        gdal().write_locations(q.output, gdal().output_driver(c.format), table, hits, options);
        return 0;
    }
#endif
    options.format = format_of(c.format);
    if (!q.output.empty()) {
        write_file(q.output, [&](std::ostream& out) { io::write_locations(out, table, hits, options); });
        return 0;
    }
    io::write_locations(std::cout, table, hits, options);
    std::cout.flush();
    return std::cout ? 0 : 1;
}

/// The map under svg pictures: --basemap, else the bundled countries next to the bundled
/// cities (installed, or the build tree's data), else none.
std::vector<std::vector<geo::lonlat>> basemap_rings(const query& q) {
    std::string path = q.basemap;
    if (path.empty()) {
        const std::filesystem::path dir = executable_dir();
        std::error_code ec;
        const std::filesystem::path installed = dir / QUOCT_INSTALL_DATA_RELATIVE / "countries_110m.geojson";
        const std::filesystem::path source = std::filesystem::path(QUOCT_DATA_DIR) / "countries_110m.geojson";
        if (!dir.empty() && std::filesystem::is_regular_file(installed, ec)) path = installed.string();
        else if (std::filesystem::is_regular_file(source, ec)) path = source.string();
        else return {};
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw io::parse_error(path, 0, "cannot open (--basemap)");
    std::vector<std::vector<geo::lonlat>> rings;
    for (const auto& polygon : io::read_geojson_polygons(in, path))
        for (const auto& ring : polygon) rings.push_back(ring);
    return rings;
}

/// What an index holds, for `quoct index`: one "key: value" a line (see index_footer).
void describe(std::ostream& out, const std::string& file, const std::string& type, std::uint32_t version,
              std::uint64_t bytes, const io::location_index& x) {
    out << "file: " << file << "\ntype: " << type << "\nformat version: " << version << "\nbytes: " << bytes
        << "\nsource: " << x.source() << "\nrows: " << x.size() << "\ncolumns: " << x.columns().size();
    for (std::size_t i = 0; i < x.columns().size(); ++i) out << (i == 0 ? " (" : ", ") << x.columns()[i];
    out << (x.columns().empty() ? "" : ")") << "\nfeature ids: " << (x.has_feature_ids() ? "yes" : "no")
        << "\naltitudes: " << (x.has_altitudes() ? "yes" : "no") << "\nbad rows skipped: " << x.skipped().size()
        << "\nbounds: ";
    if (x.size() == 0) {
        out << "none\n";
        return;
    }
    geo::lonlat lo = x.index().location(0), hi = lo;
    for (std::uint32_t i = 0; i < x.size(); ++i) {
        const geo::lonlat& p = x.index().location(i);
        lo = {std::min(lo.lon, p.lon), std::min(lo.lat, p.lat)};
        hi = {std::max(hi.lon, p.lon), std::max(hi.lat, p.lat)};
    }
    out << "lon [" << io::shortest_decimal(lo.lon) << ", " << io::shortest_decimal(hi.lon) << "], lat ["
        << io::shortest_decimal(lo.lat) << ", " << io::shortest_decimal(hi.lat) << "]\n";
}

/// The index subcommand: FILE indexed (or, an index file, opened with every checksum checked
/// as by every subcommand), written to -o when given, and described.
int run_index(const common& c, const query& q) {
    input in = read_input(c, c.file);
    const bool was_index = in.index.has_value();
    const io::location_index x = indexed(in);
    clear_progress();
    if (!q.output.empty()) {
        quoct::save(x, q.output);
        const quoct::file_info info = quoct::read_file_info(q.output);
        describe(std::cout, q.output, info.type, info.version, info.bytes, x);
    } else if (was_index && in.name != "stdin") {
        const quoct::file_info info = quoct::read_file_info(in.name);
        describe(std::cout, in.name, info.type, info.version, info.bytes, x);
    } else {
        describe(std::cout, was_index ? "stdin" : "(not written: no -o)",
                 quoct::detail::file_codec<io::location_index>::type_name(), quoct::file_format_version,
                 quoct::to_bytes(x).size(), x);
    }
    std::cout.flush();
    return std::cout ? 0 : 1;
}

/// The join subcommand's polygon layer: --polygons read as GeoJSON (by content, not name)
/// or, with GDAL, as any vector source GDAL recognises.
io::polygon_layer read_layer(const join_args& j) {
    const std::string& path = j.polygons;
    if (path == "-") {
        std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
        if (std::cin.bad()) throw io::parse_error("stdin", 0, "cannot read the input");
#ifdef QUOCT_WITH_GDAL
        if (!io::binary_kind(text.data(), std::min<std::size_t>(text.size(), 512)).empty())
            return gdal().read_polygon_layer_bytes(text, "stdin", gdal_source(j.layer, j.s_srs, "polygon-"));
#endif
        no_gdal_options(j.layer, j.s_srs, "stdin", "polygon-");
        std::istringstream in(std::move(text));
        return io::read_geojson_polygon_layer(in, "stdin");
    }
#ifdef QUOCT_WITH_GDAL
    // Through GDAL: a source quoct does not read itself, or GeoJSON whose CRS is given.
    const std::string through_gdal = gdal_path(path);
    if (!through_gdal.empty()) return gdal().read_polygon_layer(through_gdal, gdal_source(j.layer, j.s_srs, "polygon-"));
    if (!j.s_srs.empty() && gdal().identify(path) == "GeoJSON")
        return gdal().read_polygon_layer(path, gdal_source(j.layer, j.s_srs, "polygon-"));
#endif
    no_gdal_options(j.layer, j.s_srs, path, "polygon-");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw io::parse_error(path, 0, "cannot open");
    // (With GDAL, gdal_path has refused a binary file GDAL does not read.)
    const std::string kind = binary_start(in);
    if (!kind.empty()) throw io::parse_error(path, 0, "is " + kind + ", not GeoJSON: " + needs_gdal("reading it"));
#ifdef QUOCT_WITH_GDAL
    try {
        return io::read_geojson_polygon_layer(in, path);
    } catch (const io::parse_error& e) {
        if (!refuses_crs(e)) throw;
        return gdal().read_polygon_layer(path, gdal_source(j.layer, j.s_srs, "polygon-"));
    }
#else
    return io::read_geojson_polygon_layer(in, path);
#endif
}

/// The area of feature f, checked; with --invalid repair an invalid one is made valid
/// (through GDAL) and checked again, with a message on stderr. Throws io::parse_error.
io::wkt_multi_polygon feature_area(const io::polygon_layer& layer, std::size_t f, [[maybe_unused]] const join_args& j) {
    const std::string name = layer.source + ": " + layer.describe(f);
    try {
        return io::area_of(layer.features[f].polygons, name);
    } catch (const io::parse_error& e) {
#ifdef QUOCT_WITH_GDAL  // (without GDAL, --invalid repair is refused before any file is read)
        if (j.invalid == "repair") {
            const io::lonlat_polygons repaired = gdal().make_valid(layer.features[f].polygons, name);
            if (repaired.empty()) throw io::parse_error(name, 0, "cannot repair: nothing of its area is left");
            io::wkt_multi_polygon area = io::area_of(repaired, name + " (repaired)");
            std::cerr << "quoct: repaired " << e.what() << '\n';
            return area;
        }
#endif
        throw;
    }
}

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
joined_layer join_layer(io::polygon_layer layer_read, const join_args& j, const geo::index<>& ix) {
    joined_layer out{std::move(layer_read), {}, {}};
    const io::polygon_layer& layer = out.layer;
    const std::size_t features = layer.features.size();
    out.areas.resize(features);
    for (std::size_t f = 0; f < features; ++f) {
        if (layer.features[f].polygons.empty()) {
            std::cerr << "quoct: " << layer.source << ": " << layer.describe(f) << " has no geometry: it covers no point\n";
            continue;
        }
        try {
            out.areas[f] = feature_area(layer, f, j);
        } catch (const io::parse_error& e) {
            if (j.invalid == "stop") throw;
            std::cerr << "quoct: skipped " << e.what() << '\n';
        }
    }
    out.covered.resize(features);
    quoct::parallel_for(
        features, 0, [&](std::size_t f) {
            if (out.areas[f]) out.covered[f] = geo::covered_by(ix, *out.areas[f]);
        },
        1);
    return out;
}

/// The join subcommand: every polygon of the layer against the one index over the points,
/// polygons on every core; the rows in point order, then polygon order.
int run_join(const join_args& j, const common& c, const query& q, const io::location_index& x, const std::string& name,
             bool explicit_name) {
    io::polygon_layer read = read_layer(j);
    std::vector<std::size_t> columns;
    for (const std::string& col : j.columns) {
        const std::size_t k = read.find_column(col);
        if (k == read.columns.size()) {
            std::string known;
            for (std::size_t i = 0; i < read.columns.size(); ++i) known += (i ? ", '" : "'") + read.columns[i] + "'";
            throw io::parse_error(read.source, 0, "no polygon column '" + col + "' (--polygon-columns); the columns are " +
                                                       (known.empty() ? "none" : known));
        }
        columns.push_back(k);
    }
    const joined_layer joined = join_layer(std::move(read), j, x.index());
    const io::polygon_layer& layer = joined.layer;
    const std::size_t features = layer.features.size();
    const auto& areas = joined.areas;
    const auto& covered = joined.covered;
    const geo::index<>& ix = x.index();
    if (j.count) {
        std::vector<std::size_t> which, counts;
        for (std::size_t f = 0; f < features; ++f)
            if (areas[f] || layer.features[f].polygons.empty()) {
                which.push_back(f);
                counts.push_back(covered[f].size());
            }
#ifdef QUOCT_WITH_GDAL
        if (c.format == "gpkg" || c.format == "fgb") {
            gdal().write_polygon_counts(q.output, gdal().output_driver(c.format), layer, which, counts, columns);
            return 0;
        }
#endif
        const io::output_format format = format_of(c.format);
        if (!q.output.empty()) {
            write_file(q.output, [&](std::ostream& out) { io::write_polygon_counts(out, layer, which, counts, columns, format); });
            return 0;
        }
        io::write_polygon_counts(std::cout, layer, which, counts, columns, format);
        std::cout.flush();
        return std::cout ? 0 : 1;
    }
    // (point, feature) pairs in point order, then feature order.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (std::size_t f = 0; f < features; ++f)
        for (std::uint32_t id : covered[f]) pairs.emplace_back(id, static_cast<std::uint32_t>(f));
    std::sort(pairs.begin(), pairs.end());
    io::write_options options;
    options.extra_columns = io::join_column_names(layer, columns);
    // Extra row 0: a point no polygon covers (empty columns; null in GeoJSON); row f + 1: feature f.
    options.extra_values.emplace_back(options.extra_columns.size());
    options.extra_kinds.emplace_back(options.extra_columns.size(), io::value_kind::null);
    for (std::size_t f = 0; f < features; ++f) {
        const auto id = io::feature_id_of(layer, f);
        std::vector<std::string> values{id.first};
        std::vector<io::value_kind> kinds{id.second};
        for (std::size_t k : columns) {
            values.push_back(layer.features[f].values[k]);
            kinds.push_back(layer.features[f].kinds[k]);
        }
        options.extra_values.push_back(std::move(values));
        options.extra_kinds.push_back(std::move(kinds));
    }
    std::vector<io::hit> hits;
    std::vector<std::size_t> ids;  // the table rows the hits refer to
    std::size_t p = 0;
    for (std::uint32_t point = 0; point < ix.size(); ++point) {
        const bool any = p < pairs.size() && pairs[p].first == point;
        if (!any && j.inner) continue;
        if (!any) {
            hits.push_back({ids.size(), 0, 0, 0});
            ids.push_back(point);
        }
        for (; p < pairs.size() && pairs[p].first == point; ++p) {
            hits.push_back({ids.size(), 0, 0, std::size_t{pairs[p].second} + 1});
            ids.push_back(point);
        }
    }
    io::location_table table = x.rows(ids);
    table.source = name;
    name_first(table, c, explicit_name);
    return write_hits(c, q, table, hits, options);
}

/// The values of column `col` of `table`, one per row, as io::parse_number reads them (NaN
/// where a value is not a number).
std::vector<double> numbers_of(const io::location_table& table, std::size_t col) {
    std::vector<double> out;
    for (const auto& row : table.values) out.push_back(io::parse_number(row[col]).value_or(std::nan("")));
    return out;
}

/// The title's last part: where the land comes from.
std::string land_note(const query& q, const quoct::cli::svg_options& options) {
    return options.basemap.empty() ? "" : q.basemap.empty() ? "; land: Natural Earth 1:110m" : "; land: " + q.basemap;
}

/// svg --polygons: the choropleth of the points each polygon covers, as join --count counts
/// them; the largest counts labelled with --polygon-label-column.
void run_choropleth(const CLI::App& svg, const join_args& j, const query& q, const io::location_index& x,
                    quoct::cli::svg_options& options) {
    io::polygon_layer read = read_layer(j);
    const std::size_t label = read.find_column(j.label_column);
    if (label == read.columns.size() && svg.count("--polygon-label-column") > 0)
        throw io::parse_error(read.source, 0, "no polygon column '" + j.label_column + "' (--polygon-label-column)");
    const joined_layer joined = join_layer(std::move(read), j, x.index());
    const io::polygon_layer& layer = joined.layer;
    auto& map = options.choropleth;
    map.classes = q.classes;
    std::vector<bool> in_some(x.size());  // a point in overlapping polygons counts once in the title
    for (std::size_t f = 0; f < layer.features.size(); ++f) {
        if (!joined.areas[f]) continue;  // no geometry, or skipped: nothing to draw
        map.areas.push_back(*joined.areas[f]);
        map.counts.push_back(joined.covered[f].size());
        for (std::uint32_t id : joined.covered[f]) in_some[id] = true;
        if (label < layer.columns.size()) map.names.push_back(layer.features[f].values[label]);
    }
    if (map.areas.empty()) throw io::parse_error(layer.source, 0, "no polygon to draw");
    options.title = std::to_string(std::count(in_some.begin(), in_some.end(), true)) + " of " + std::to_string(x.size()) + " points in " +
                    std::to_string(map.areas.size()) + " polygons: points per polygon" + land_note(q, options);
    if (!map.names.empty()) options.label_note = "labelled: the largest counts, where room";
    write_file(q.output, [&](std::ostream& out) { quoct::cli::write_svg(out, {}, {}, {}, options); });
}

/// The svg subcommand: queries the shape and writes the picture to q.output, the hits
/// labelled with their --name-column values, the largest by --label-by first.
void run_svg(const CLI::App& svg, const query& q, const join_args& j, const io::location_index& x, const common& c) {
    const geo::index<>& ix = x.index();
    quoct::cli::svg_options options;
    options.width = q.width;
    options.leaf_size = q.leaf_size;
    options.cells = q.cells;
    if (!q.no_basemap) options.basemap = basemap_rings(q);
    if (svg.count("--polygons") > 0) return run_choropleth(svg, j, q, x, options);
    quoct::cli::svg_shape shape = shape_of(svg, q);
    const std::vector<std::size_t> hits = svg_hits(ix, shape, q);
    if (q.k > 0 && q.km < 0)  // --k alone: the circle through the farthest of the k
        for (std::size_t id : hits) shape.metres = std::max(shape.metres, geo::distance({q.lon, q.lat}, ix.location(static_cast<std::uint32_t>(id))));
    const io::location_table named = x.rows(hits);
    const std::size_t col = named.find_column(c.name_column);
    if (col < named.columns.size())
        for (std::size_t k = 0; k < hits.size(); ++k) options.labels.emplace_back(named.values[k][col]);
    const auto rank = static_cast<std::size_t>(std::find(x.columns().begin(), x.columns().end(), q.label_by) - x.columns().begin());
    if (rank == x.columns().size() && svg.count("--label-by") > 0)
        throw io::parse_error(x.source(), 0, "no column '" + q.label_by + "' (--label-by)");
    if (rank < x.columns().size()) options.label_rank = numbers_of(named, named.find_column(q.label_by));
    if (!options.labels.empty())
        options.label_note = options.label_rank.empty() ? "labelled: the first hits, where room"
                                                         : "labelled: the largest by " + q.label_by + ", where room";
    std::vector<geo::lonlat> locations(ix.size());
    for (std::size_t i = 0; i < locations.size(); ++i) locations[i] = ix.location(static_cast<std::uint32_t>(i));
    options.title = std::to_string(hits.size()) + " of " + std::to_string(ix.size()) + " points" +
                    (q.cells ? "; quadtree cells split above " + std::to_string(q.leaf_size) + " points" : "") +
                    land_note(q, options);
    write_file(q.output, [&](std::ostream& out) { quoct::cli::write_svg(out, locations, hits, shape, options); });
}

/// Runs the parsed subcommand `used`; returns the exit code. Throws on data errors.
int run(const CLI::App* used, const commands& cmd, const common& c, const query& q, const join_args& j) {
    if (used == cmd.index) return run_index(c, q);
    if (used == cmd.info) {
        quoct::cli::describe_file(std::cout, q.info_file);
        std::cout.flush();
        return std::cout ? 0 : 1;
    }
    input in = read_input(c, c.file);
    const io::location_index x = indexed(in);
    const geo::index<>& ix = x.index();
    const bool explicit_name = used->count("--name-column") > 0;
    if (explicit_name && std::find(x.columns().begin(), x.columns().end(), c.name_column) == x.columns().end())
        throw io::parse_error(in.name, 0, "no column '" + c.name_column + "'");
    clear_progress();
    if (used == cmd.join) return run_join(j, c, q, x, in.name, explicit_name);
    if (used == cmd.svg) {
        run_svg(*cmd.svg, q, j, x, c);
        return 0;
    }
    std::vector<io::hit> hits;
    io::write_options options;
    if (used == cmd.near && !c.centers.empty()) hits = run_near_centers(ix, q, c, options);
    if (used == cmd.near && c.centers.empty()) run_near(ix, q, {q.lon, q.lat}, 0, hits);
    if (used == cmd.box) hits = as_hits(ix.in_box(q.west, q.south, q.east, q.north));
    if (used == cmd.polygon) hits = as_hits(geo::covered_by(ix, polygon_area(q, used->count("--geojson") > 0)));
    options.with_distance = used == cmd.near;
    // Only the rows written are taken from the table (an index file's are read in place).
    std::vector<std::size_t> ids(hits.size());
    for (std::size_t i = 0; i < hits.size(); ++i) ids[i] = hits[i].id, hits[i].id = i;
    io::location_table table = x.rows(ids);
    table.source = in.name;
    name_first(table, c, explicit_name);
    return write_hits(c, q, table, hits, options);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"quoct: query lon/lat points (CSV or GeoJSON) with a quoct geographic index, and x, y, z point "
                 "clouds (LAS, PLY, XYZ) with an octree",
                 "quoct"};
    app.require_subcommand(1);
    app.footer(rules_footer);
    common c;
    query q;
    number_args a;
    join_args j;
    const commands cmd = add_commands(app, c, q, a, j);
    quoct::cli::cloud_args cloud;
    const quoct::cli::cloud_commands cloud_cmd = quoct::cli::add_cloud_commands(app, *cmd.index, cloud);
    quoct::cli::boxes_args boxes;
    const CLI::App* boxes_cmd = quoct::cli::add_boxes_command(app, boxes);
    try {
        app.parse(argc, argv);
        const CLI::App* used = app.get_subcommands().front();
        if (used != cloud_cmd.radius && used != cloud_cmd.knn && used != cloud_cmd.box3d && used != cloud_cmd.neighbours &&
            used != boxes_cmd)
            check_arguments(*used, c, a, q);
        if (!with_gdal && (app.get_subcommands().front() == cmd.join || app.get_subcommands().front() == cmd.svg) &&
            j.invalid == "repair")
            throw usage_error(needs_gdal("--invalid repair"));
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help
        std::cerr << "quoct: error: " << e.what() << "\nRun with --help for more information.\n";
        return 2;
    }
    try {
        const CLI::App* used = app.get_subcommands().front();
        if (used == cmd.index && !c.file.empty() && c.file != "-" && ::access(c.file.c_str(), R_OK) == 0 &&
            (quoct::cli::kind_of(c.file) == quoct::cli::file_kind::las || quoct::cli::is_point_file(c.file)))
            return quoct::cli::run_cloud_index(c.file, q.output, cloud);
        if (used == boxes_cmd) return quoct::cli::run_boxes(boxes);
        const int cloud_rc = quoct::cli::run_cloud_query(used, cloud_cmd, cloud);
        if (cloud_rc >= 0) return cloud_rc;
        return run(used, cmd, c, q, j);
    } catch (const quoct::file_error& e) {  // "<path>: <cause>", without its own "quoct: "
        if (::isatty(STDERR_FILENO)) std::cerr << "\r\033[K";
        std::cerr << "quoct: error: " << e.path() << ": " << cause_of(e) << '\n';
        return 1;
    } catch (const std::exception& e) {
        if (::isatty(STDERR_FILENO)) std::cerr << "\r\033[K";
        std::cerr << "quoct: error: " << e.what() << '\n';
        return 1;
    }
}
