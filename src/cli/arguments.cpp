// The arguments the lon/lat subcommands share, and their checks (arguments.hpp).
#include "arguments.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <system_error>

#include <quoct/io/locations.hpp>

namespace quoct {
namespace cli {

namespace {

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

}  // namespace

std::string needs_gdal(const std::string& what) {
    return what + " needs the quoct command built with GDAL (Debian: apt-get install libgdal-dev, then rebuild)";
}

const char* const rules_footer =
    "Coordinates: longitude then latitude, in degrees; longitudes in [-180, 180], latitudes in\n"
    "[-90, 90]. Queries are closed sets (boundary included): a point at exactly --km, or on a\n"
    "box's or polygon's edge, is a hit. A box with west > east crosses the antimeridian (lon\n"
    "180): --west 170 --east -170 is 20 degrees wide; --west -180 --east 180 is every\n"
    "longitude. Distances (--km, --k) are great-circle on a sphere of radius 6371.0088 km, so\n"
    "lon -180 and 180 are one meridian there; box bounds compare the longitudes as given.\n"
    "Exit codes: 0 success, 1 data error (a file, a row, a polygon), 2 bad arguments.";

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

}  // namespace cli
}  // namespace quoct
