// The `quoct` command as a GIS user meets it (issues 11.5, 11.6 and 12): numbers checked in
// words, exit codes as documented, many centres in one run, standard input, lossless GeoJSON
// through the tool, and pictures across the antimeridian. Answers are checked against brute
// force over quoct::geo::distance.
#include <catch2/catch.hpp>

#ifdef QUOCT_CLI

#include "test_cli_support.hpp"

#include <quoct/geo/index.hpp>
#include <quoct/io/locations.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace test_cli_io {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

namespace io = quoct::io;
namespace geo = quoct::geo;
using quoct_test::file_text;
using quoct_test::run_cli;
using quoct_test::temp_path;
using strings = std::vector<std::string>;

io::csv_table parse_csv(const std::string& text) {
    std::istringstream in(text);
    return io::read_csv(in, "stdout");
}

#ifdef QUOCT_CLI_GDAL
#define CLI_GDAL_WRITES ", .gpkg and .fgb"
#else
#define CLI_GDAL_WRITES ""
#endif

// The first line of stderr of `quoct args`, and its exit code.
std::pair<int, std::string> error_of(const std::string& args) {
    const std::string err = temp_path("stderr.txt");
    const int status = run_cli(args, err).status;
    std::string text = file_text(err);
    return {status, text.substr(0, text.find('\n'))};
}

// A small points file: a grid of integer lon/lat around the antimeridian and Paris, with
// duplicates, so that ties and boundaries are exercised.
struct points_file {
    std::string path = temp_path("points.csv");
    std::vector<geo::lonlat> where;
    strings names;
    points_file() {
        std::ofstream out(path);
        out << "name,lon,lat\n";
        for (int lon = -3; lon <= 3; ++lon)
            for (int lat = 40; lat <= 44; ++lat) add(out, lon, lat);
        for (int lon : {177, 178, 179, 180, -180, -179, -178})
            for (int lat = -18; lat <= -16; ++lat) add(out, lon, lat);
        add(out, 0, 42);  // a duplicate
    }
    void add(std::ofstream& out, double lon, double lat) {
        names.push_back("p" + std::to_string(names.size()));
        where.push_back({lon, lat});
        out << names.back() << ',' << lon << ',' << lat << '\n';
    }
};

// Brute force of `near` for one centre: (distance, id) order, the k first, within km.
strings brute_near(const points_file& p, geo::lonlat c, std::size_t k, double km) {
    std::vector<std::pair<double, std::size_t>> all;
    for (std::size_t i = 0; i < p.where.size(); ++i) all.push_back({geo::distance(c, p.where[i]), i});
    std::sort(all.begin(), all.end());
    strings out;
    for (const auto& [d, i] : all) {
        if (k > 0 && out.size() == k) break;
        if (km >= 0 && d > km * 1000) break;
        out.push_back(p.names[i]);
    }
    return out;
}

// The hit circles of an SVG picture (the group filled #d6336c) and the x extent of the shape's path.
struct picture {
    std::size_t hits = 0;
    double width = 0, shape_lo = 1e300, shape_hi = -1e300;
    explicit picture(const std::string& svg) {
        const auto group = svg.find("<g fill=\"#d6336c\">");
        REQUIRE(group != std::string::npos);
        const std::string hit_part = svg.substr(group, svg.find("</g>", group) - group);
        for (std::size_t at = 0; (at = hit_part.find("<circle", at)) != std::string::npos; ++at) ++hits;
        width = std::stod(svg.substr(svg.find("width=\"") + 7));
        const auto path = svg.find("<path fill=\"#e8590c\"");
        REQUIRE(path != std::string::npos);
        const auto d = svg.find(" d=\"", path) + 4;
        std::istringstream coords(svg.substr(d, svg.find('"', d) - d));
        std::string token;
        const std::regex pair(R"(M?(-?[0-9.]+),(-?[0-9.]+)Z?)");
        while (coords >> token) {
            std::smatch m;
            if (!std::regex_match(token, m, pair)) continue;
            shape_lo = std::min(shape_lo, std::stod(m[1]));
            shape_hi = std::max(shape_hi, std::stod(m[1]));
        }
    }
};

}  // namespace

TEST_CASE("cli io: numeric options are checked in words, NaN, infinity and overflow are refused", "[cli][cli_io]") {
    using result = std::pair<int, std::string>;
    const std::string near = "near --lon 0 --lat 0 ";
    CHECK(error_of(near + "--k 0") == result{2, "quoct: error: --k must be at least 1, not 0"});
    CHECK(error_of(near + "--k 1 --km nan") == result{2, "quoct: error: --km must be a finite number, not 'nan'"});
    CHECK(error_of(near + "--km inf") == result{2, "quoct: error: --km must be a finite number, not 'inf'"});
    CHECK(error_of(near + "--km -1") == result{2, "quoct: error: --km must be at least 0, not -1"});
    CHECK(error_of(near + "--km 1e400") == result{2, "quoct: error: --km must be a finite number, not '1e400'"});
    CHECK(error_of(near + "--km 5km") == result{2, "quoct: error: --km must be a number, not '5km'"});
    CHECK(error_of(near + "--k 18446744073709551616") ==
          result{2, "quoct: error: --k must be at most 18446744073709551615, not 18446744073709551616"});
    CHECK(error_of(near + "--k -1") == result{2, "quoct: error: --k must be a whole number, not '-1'"});
    CHECK(error_of(near + "--k 1.5") == result{2, "quoct: error: --k must be a whole number, not '1.5'"});
    CHECK(error_of("near --lon 0 --lat 95 --k 1") == result{2, "quoct: error: --lat must be in [-90, 90], not 95"});
    CHECK(error_of("near --lon nan --lat 0 --k 1") == result{2, "quoct: error: --lon must be a finite number, not 'nan'"});
    CHECK(error_of("box --west 10 --south 5 --east 20 --north 1") ==
          result{2, "quoct: error: --south must not be greater than --north (5 > 1)"});
    CHECK(error_of("box --west 181 --south 0 --east 20 --north 1") ==
          result{2, "quoct: error: --west must be in [-180, 180], not 181"});
    CHECK(error_of("svg --leaf-size 0 -o x.svg") == result{2, "quoct: error: --leaf-size must be at least 1, not 0"});

    // svg --width nan fails before anything is written: no empty file, and an old file stays.
    const std::string out = temp_path("nan.svg");
    std::filesystem::remove(out);
    CHECK(error_of("svg --width nan -o '" + out + "'") ==
          result{2, "quoct: error: --width must be a finite number, not 'nan'"});
    CHECK(!std::filesystem::exists(out));
    std::ofstream(out) << "old";
    CHECK(error_of("svg --width 10 -o '" + out + "'") == result{2, "quoct: error: --width must be in [16, 20000], not 10"});
    CHECK(error_of("svg --wkt 'POLYGON((0 0, 1 0, 1 1' -o '" + out + "'").first == 1);
    CHECK(file_text(out) == "old");
}

TEST_CASE("cli io: exit codes are 0 for answers and help, 1 for data errors, 2 for usage errors", "[cli][cli_io]") {
    CHECK(run_cli("--help").status == 0);
    CHECK(run_cli("near --help").status == 0);
    CHECK(run_cli("near --lon 2.35 --lat 48.85 --k 1").status == 0);
    CHECK(run_cli("").status == 2);
    CHECK(run_cli("frobnicate").status == 2);
    CHECK(run_cli("near --lon 2.35").status == 2);
    CHECK(run_cli("near --lon 2.35 --lat 48.85").status == 2);
    CHECK(run_cli("near --lon 2.35 --lat 48 --km 1 --format xml").status == 2);
    CHECK(run_cli("box --west 1 --south 2 --east 3").status == 2);
    CHECK(run_cli("near --lon 0 --lat 0 --km 1 /nonexistent/points.csv").status == 1);
    CHECK(run_cli("polygon --wkt 'POLYGON((0 0, 1 0, 1 1'").status == 1);
    const points_file p;
    CHECK(error_of("near --lon 0 --lat 0 --k 1 --lon-column lat '" + p.path + "'") ==
          std::pair<int, std::string>{2, "quoct: error: --lon-column and --lat-column are both 'lat'; give two different columns"});
}

TEST_CASE("cli io: -o with the extension of a GIS format quoct does not write is refused, nothing written",
          "[cli][cli_io]") {
    const std::string written = CLI_GDAL_WRITES;
    const auto lower = [](std::string t) {
        for (char& ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        return t;
    };
    for (const char* ext : {"shp", "kml", "SHP", "gpx", "parquet"}) {
        const std::string out = temp_path(std::string("out.") + ext);
        INFO(out);
        for (const std::string& command : {std::string("near --lon 2.35 --lat 48.85 --k 3"),
                                           std::string("box --west 0 --south 40 --east 10 --north 50")}) {
            const auto e = error_of(command + " -o '" + out + "'");
            CHECK(e.first == 2);
            CHECK(e.second == "quoct: error: -o " + out + ": quoct does not write " + lower(ext) +
                                  " files; it writes .csv, .geojson, .json" + written +
                                  " (--format table writes a text table to any name)");
            CHECK(!std::filesystem::exists(out));
        }
        // Asked for by name, a text table goes to any file name.
        CHECK(run_cli("near --lon 2.35 --lat 48.85 --k 3 --format table -o '" + out + "'").status == 0);
        CHECK(file_text(out).rfind("name", 0) == 0);
    }
    // Other names hold a text table, as before.
    const std::string txt = temp_path("out.txt");
    CHECK(run_cli("near --lon 2.35 --lat 48.85 --k 3 -o '" + txt + "'").status == 0);
    CHECK(file_text(txt).rfind("name", 0) == 0);
}

TEST_CASE("cli io: --help documents the longitude rules", "[cli][cli_io]") {
    for (const char* sub : {"near", "box", "polygon", "svg"}) {
        const std::string help = run_cli(std::string(sub) + " --help").out;
        CHECK(help.find("west > east") != std::string::npos);       // crossing the antimeridian
        CHECK(help.find("[-180, 180]") != std::string::npos);      // the ranges
        CHECK(help.find("boundary included") != std::string::npos);  // closed sets
        CHECK(help.find("Exit codes") != std::string::npos);
    }
}

TEST_CASE("cli io: near --centers answers every centre as brute force, with --k, --km or both", "[cli][cli_io]") {
    const points_file p;
    const std::string centres = temp_path("centres.csv");
    const std::vector<geo::lonlat> cs = {{0, 42}, {179.5, -17}, {-179.9, -16.5}, {0.5, 40.5}, {90, 0}};
    {
        std::ofstream out(centres);
        out << "code,lon,lat\n";
        for (std::size_t i = 0; i < cs.size(); ++i) out << "c" << i << ',' << cs[i].lon << ',' << cs[i].lat << '\n';
    }
    struct mode {
        std::string args;
        std::size_t k;
        double km;
    };
    for (const mode& m : {mode{"--k 3", 3, -1}, mode{"--km 250", 0, 250}, mode{"--k 4 --km 150", 4, 150}}) {
        INFO(m.args);
        const auto r = run_cli("near --centers '" + centres + "' " + m.args + " --format csv '" + p.path + "'");
        REQUIRE(r.status == 0);
        const auto t = parse_csv(r.out);
        REQUIRE(t.header.front() == "center");
        CHECK(t.header[1] == "name");
        std::vector<strings> got(cs.size());
        for (const auto row : t.rows) got.at(std::stoul(std::string(row[0])) - 1).emplace_back(row[1]);
        for (std::size_t c = 0; c < cs.size(); ++c) CHECK(got[c] == brute_near(p, cs[c], m.k, m.km));
    }
    // The id column names the centres; GeoJSON centres read the same.
    const auto named = parse_csv(
        run_cli("near --centers '" + centres + "' --centers-id-column code --k 1 --format csv '" + p.path + "'").out);
    REQUIRE(named.rows.size() == cs.size());
    for (std::size_t c = 0; c < cs.size(); ++c) CHECK(named.rows[c][0] == "c" + std::to_string(c));
    const std::string gj = temp_path("centres.geojson");
    {
        std::ofstream out(gj);
        out << R"({"type":"FeatureCollection","features":[)";
        for (std::size_t i = 0; i < cs.size(); ++i)
            out << (i ? "," : "") << R"({"type":"Feature","geometry":{"type":"Point","coordinates":[)" << cs[i].lon << ','
                << cs[i].lat << R"(]},"properties":{"code":"g)" << i << R"("}})";
        out << "]}";
    }
    const auto from_geojson =
        run_cli("near --centers '" + gj + "' --centers-id-column code --k 2 --format csv '" + p.path + "'");
    REQUIRE(from_geojson.status == 0);
    const auto g = parse_csv(from_geojson.out);
    REQUIRE(g.rows.size() == 2 * cs.size());
    for (std::size_t c = 0; c < cs.size(); ++c) {
        CHECK(g.rows[2 * c][0] == "g" + std::to_string(c));
        CHECK(strings{std::string(g.rows[2 * c][1]), std::string(g.rows[2 * c + 1][1])} == brute_near(p, cs[c], 2, -1));
    }
    // GeoJSON output: "center" is the first property, a number for row numbers.
    const auto doc = nlohmann::json::parse(run_cli("near --centers '" + centres + "' --k 1 --format geojson '" + p.path + "'").out);
    REQUIRE(doc["features"].size() == cs.size());
    CHECK(doc["features"][4]["properties"].begin().key() == "center");
    CHECK(doc["features"][4]["properties"]["center"] == 5);

    using result = std::pair<int, std::string>;
    CHECK(error_of("near --centers '" + centres + "' --lon 1 --lat 2 --k 1").first == 2);
    CHECK(error_of("near --centers '" + centres + "'") == result{2, "quoct: error: --km or --k is required"});
    CHECK(error_of("near --centers '" + centres + "' --centers-id-column nope --k 1 '" + p.path + "'").first == 1);
    CHECK(error_of("near --centers-id-column code --lon 1 --lat 2 --k 1").first == 2);
}

TEST_CASE("cli io: '-' reads standard input, for FILE and for --centers, not both", "[cli][cli_io]") {
    const points_file p;
    const std::string centres = temp_path("stdin_centres.csv");
    std::ofstream(centres) << "lon,lat\n1,41\n179,-17\n";
    const std::string expected = run_cli("near --centers '" + centres + "' --k 2 --format csv '" + p.path + "'").out;
    REQUIRE(!expected.empty());
    CHECK(run_cli("near --centers '" + centres + "' --k 2 --format csv - < '" + p.path + "'").out == expected);
    CHECK(run_cli("near --centers - --k 2 --format csv '" + p.path + "' < '" + centres + "'").out == expected);
    // GeoJSON on standard input is recognised by its first character.
    const std::string gj = temp_path("stdin.geojson");
    std::ofstream(gj) << R"({"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point",
        "coordinates":[1,2]},"properties":{"name":"x"}}]})";
    const auto r = run_cli("near --lon 1 --lat 2 --k 1 --format csv - < '" + gj + "'");
    CHECK(r.status == 0);
    const io::csv_table out = parse_csv(r.out);
    REQUIRE(!out.rows.empty());
    CHECK(out.rows[0][0] == "x");
    CHECK(error_of("near --centers - --k 1 - < '" + centres + "'") ==
          std::pair<int, std::string>{2, "quoct: error: FILE and --centers cannot both be '-' (standard input)"});
}

TEST_CASE("cli io: GeoJSON through the tool keeps property types, feature ids and altitudes", "[cli][cli_io]") {
    const std::string in = temp_path("typed.geojson");
    const auto input = nlohmann::json::parse(R"({"type":"FeatureCollection","features":[
      {"type":"Feature","id":"a-1","geometry":{"type":"Point","coordinates":[1,2,120.5]},
       "properties":{"name":"a","pop":1200,"ratio":0.25,"capital":true,"note":null,"tags":["x",{"y":1}],"lon":"text"}},
      {"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[1.5,2]},
       "properties":{"name":"b","pop":3,"meta":{"k":[1,2]}}}]})");
    std::ofstream(in) << input.dump();
    const auto r = run_cli("near --lon 1 --lat 2 --k 5 --format geojson '" + in + "'");
    REQUIRE(r.status == 0);
    const auto out = nlohmann::json::parse(r.out);
    REQUIRE(out["features"].size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        const auto& f = out["features"][i];
        const auto& g = input["features"][i];
        CHECK(f["id"] == g["id"]);
        CHECK(f["geometry"] == g["geometry"]);
        auto properties = f["properties"];
        CHECK(properties["distance_km"].is_number());
        properties.erase("distance_km");
        CHECK(properties == g["properties"]);
    }
}

TEST_CASE("cli io: svg across the antimeridian draws the region around the query, hits included", "[cli][cli_io]") {
    const points_file p;
    const std::string svg = temp_path("antimeridian.svg");
    // A box from 178 east across lon 180 to -178.
    REQUIRE(run_cli("svg --west 178 --south -18 --east -178 --north -16 -o '" + svg + "' '" + p.path + "'").status == 0);
    const picture box(file_text(svg));
    std::size_t expected = 0;
    for (const auto& w : p.where) expected += (w.lon >= 178 || w.lon <= -178) && w.lat >= -18 && w.lat <= -16;
    CHECK(box.hits == expected);
    CHECK(box.shape_hi - box.shape_lo > box.width / 3);  // the query fills the picture, not a sliver of it
    CHECK(box.shape_lo > 0);
    CHECK(box.shape_hi < box.width);

    // A circle about a centre near lon 180: every hit drawn.
    REQUIRE(run_cli("svg --lon 179.8 --lat -17 --km 150 -o '" + svg + "' '" + p.path + "'").status == 0);
    const picture circle(file_text(svg));
    expected = 0;
    for (const auto& w : p.where) expected += geo::distance({179.8, -17}, w) <= 150000;
    CHECK(circle.hits == expected);
    CHECK(circle.shape_hi - circle.shape_lo > circle.width / 3);

    // A polygon whose edges cross lon 180 is drawn unwrapped, around the query.
    REQUIRE(run_cli("svg --wkt 'POLYGON((178 -18, -178 -18, -178 -16, 178 -16, 178 -18))' -o '" + svg + "' '" + p.path +
                    "'")
                .status == 0);
    const picture polygon(file_text(svg));
    CHECK(polygon.shape_hi - polygon.shape_lo > polygon.width / 3);
    CHECK(polygon.shape_hi - polygon.shape_lo < polygon.width);
}

}  // namespace test_cli_io

#endif  // QUOCT_CLI
