// The `quoct` command end to end: runs the built binary (its path comes from CMake as
// QUOCT_CLI) on the bundled cities and on small files, and checks its answers against
// brute force over quoct::geo::distance and Boost.Geometry, and its exit codes.
#include <catch2/catch.hpp>

#include "test_cli_support.hpp"

#ifdef QUOCT_CLI

#include <quoct/geo/index.hpp>
#include <quoct/io/locations.hpp>

#include <boost/geometry/algorithms/covered_by.hpp>
#include <boost/geometry/geometries/point_xy.hpp>
#include <boost/geometry/geometries/polygon.hpp>
#include <boost/geometry/io/wkt/read.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace test_cli {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

namespace io = quoct::io;
namespace fs = std::filesystem;

using run_result = quoct_test::cli_result;
using quoct_test::file_text;
using quoct_test::temp_path;

// Runs `quoct <args>` through the shell; stderr goes to `err_file` when given, else is dropped.
run_result run_quoct(const std::string& args, const std::string& err_file = "", const std::string& env = "") {
    return quoct_test::run_cli(args, err_file, env);
}

io::csv_table csv_of(const std::string& text) {
    std::istringstream in(text);
    return io::read_csv(in, "stdout");
}

const io::csv_table& cities() {
    static const io::csv_table table = io::read_csv(std::string(QUOCT_DATA_DIR) + "/cities.csv");
    return table;
}

// The ids (CSV "id" column) of every city the predicate accepts, in file order.
template <class Pred>
std::vector<std::string> brute_force_ids(Pred&& accept) {
    const auto& t = cities();
    const std::size_t id = t.column("id"), lon = t.column("lon"), lat = t.column("lat");
    std::vector<std::string> ids;
    for (std::size_t r = 0; r < t.rows.size(); ++r)
        if (accept(quoct::geo::lonlat{t.number(r, lon), t.number(r, lat)})) ids.emplace_back(t.rows[r][id]);
    return ids;
}

std::vector<std::string> column_values(const io::csv_table& t, const std::string& name) {
    std::vector<std::string> values;
    for (const auto row : t.rows) values.emplace_back(row[t.column(name)]);
    return values;
}

}  // namespace

TEST_CASE("cli: near Paris on the bundled cities, sorted by distance, as brute force", "[cli]") {
    const auto r = run_quoct("near --lon 2.3522 --lat 48.8566 --km 25 --format csv");
    REQUIRE(r.status == 0);
    const auto t = csv_of(r.out);
    CHECK(t.header == std::vector<std::string>{"name", "id", "country", "population", "lon", "lat", "distance_km"});
    REQUIRE(!t.rows.empty());
    CHECK(t.rows[0][0] == "Paris");
    for (std::size_t i = 1; i < t.rows.size(); ++i) CHECK(t.number(i - 1, 6) <= t.number(i, 6));
    auto expected = brute_force_ids([](quoct::geo::lonlat p) { return quoct::geo::distance({2.3522, 48.8566}, p) <= 25000; });
    auto got = column_values(t, "id");
    std::sort(expected.begin(), expected.end());
    std::sort(got.begin(), got.end());
    CHECK(got == expected);

    const auto table = run_quoct("near --lon 2.3522 --lat 48.8566 --k 10");
    REQUIRE(table.status == 0);
    std::istringstream lines(table.out);
    std::string header, first;
    std::getline(lines, header);
    std::getline(lines, first);
    CHECK(header.rfind("name", 0) == 0);
    CHECK(first.rfind("Paris ", 0) == 0);
    CHECK(std::count(table.out.begin(), table.out.end(), '\n') == 11);
}

TEST_CASE("cli: box across the antimeridian and polygon match brute force and Boost.Geometry", "[cli]") {
    const auto box = run_quoct("box --west 175 --south -25 --east -175 --north -10 --format csv");
    REQUIRE(box.status == 0);
    CHECK(column_values(csv_of(box.out), "id") == brute_force_ids([](quoct::geo::lonlat p) {
              return (p.lon >= 175 || p.lon <= -175) && p.lat >= -25 && p.lat <= -10;
          }));

    const std::string wkt = "POLYGON((5.9 45.8, 10.5 45.8, 10.5 47.8, 5.9 47.8, 5.9 45.8), (8 46.5, 9 46.5, 9 47, 8 47, 8 46.5))";
    const auto poly = run_quoct("polygon --format geojson --wkt '" + wkt + "'");
    REQUIRE(poly.status == 0);
    const auto doc = nlohmann::json::parse(poly.out);
    std::vector<std::string> got;
    // The CSV's id column is all integers: a number in GeoJSON.
    for (const auto& f : doc["features"]) got.push_back(std::to_string(f["properties"]["id"].get<std::int64_t>()));
    namespace bg = boost::geometry;
    using pt = bg::model::d2::point_xy<double>;
    bg::model::polygon<pt> reference;
    bg::read_wkt(wkt, reference);
    const auto expected = brute_force_ids([&](quoct::geo::lonlat p) { return bg::covered_by(pt(p.lon, p.lat), reference); });
    CHECK(expected.size() > 100);
    CHECK(got == expected);
}

TEST_CASE("cli: --help names the command quoct, not the path it was run by", "[cli]") {
    const auto help = run_quoct("--help");
    CHECK(help.status == 0);
    CHECK(help.out.find("Usage: quoct [OPTIONS] SUBCOMMAND") != std::string::npos);
    CHECK(help.out.find(QUOCT_CLI) == std::string::npos);
}

TEST_CASE("cli: bad arguments, missing files, invalid WKT and bad rows fail with a message", "[cli]") {
    const std::string err = temp_path("stderr.txt");
    CHECK(run_quoct("").status != 0);
    CHECK(run_quoct("near --lon 2.35").status != 0);                         // no --lat, no --km/--k
    CHECK(run_quoct("near --lon 2.35 --lat 48.85").status != 0);             // neither --km nor --k
    CHECK(run_quoct("near --lon 2.35 --lat 95 --km 1").status != 0);         // latitude out of range
    CHECK(run_quoct("near --lon 2.35 --lat 48 --km 1 --format xml").status != 0);
    CHECK(run_quoct("box --west 1 --south 2 --east 3").status != 0);
    CHECK(run_quoct("frobnicate").status != 0);

    CHECK(run_quoct("near --lon 0 --lat 0 --km 1 /nonexistent/points.csv", err).status != 0);
    CHECK(file_text(err).find("/nonexistent/points.csv") != std::string::npos);

    CHECK(run_quoct("polygon --wkt 'POLYGON((0 0, 1 0, 1 1'", err).status == 1);
    CHECK(file_text(err).find("quoct: error: --wkt: invalid WKT") == 0);

    const std::string bad = temp_path("bad.csv");
    std::ofstream(bad) << "city,x,y\nA,1,2\nB,1,100\nC,abc,3\nD,1.5,2\n";
    const std::string columns = " --lon-column x --lat-column y --name-column city ";
    CHECK(run_quoct("near --lon 1 --lat 2 --km 100" + columns + "'" + bad + "'", err).status == 1);
    CHECK(file_text(err) == "quoct: error: " + bad + ":3: column 'y': 100 is not in [-90, 90]\n");

    const auto skipped = run_quoct("near --lon 1 --lat 2 --km 100 --format csv --on-bad-row skip" + columns + "'" + bad + "'", err);
    CHECK(skipped.status == 0);
    CHECK(file_text(err) == "quoct: skipped " + bad + ":3: column 'y': 100 is not in [-90, 90]\nquoct: skipped " + bad +
                            ":4: column 'x': 'abc' is not a number\nquoct: 2 bad rows skipped\n");
    CHECK(column_values(csv_of(skipped.out), "city") == std::vector<std::string>{"A", "D"});
    CHECK(run_quoct("near --lon 1 --lat 2 --km 100 --on-bad-row skip --name-column nope" + columns.substr(0, 30) + "'" + bad + "'")
              .status == 1);
}

TEST_CASE("cli: --help for every subcommand, QUOCT_DATA, GeoJSON input and svg output", "[cli]") {
    for (const char* sub : {"near", "box", "polygon", "svg"}) {
        const auto help = run_quoct(std::string(sub) + " --help");
        CHECK(help.status == 0);
        CHECK(help.out.find("--on-bad-row") != std::string::npos);
    }
    CHECK(run_quoct("--help").out.find("near") != std::string::npos);

    const std::string geojson = temp_path("points.geojson");
    std::ofstream(geojson) << R"({"type":"FeatureCollection","features":[
        {"type":"Feature","geometry":{"type":"Point","coordinates":[10,20]},"properties":{"name":"here"}},
        {"type":"Feature","geometry":{"type":"Point","coordinates":[10,21]},"properties":{"name":"there"}}]})";
    const auto near = run_quoct("near --lon 10 --lat 20 --k 5 --format csv", "", "QUOCT_DATA='" + geojson + "'");
    REQUIRE(near.status == 0);
    const auto t = csv_of(near.out);
    CHECK(column_values(t, "name") == std::vector<std::string>{"here", "there"});
    CHECK(t.rows[1][3] == "111.195");  // one degree of the 6371.0088 km sphere

    const std::string svg = temp_path("out.svg");
    fs::remove(svg);
    REQUIRE(run_quoct("svg --lon 2.3522 --lat 48.8566 --km 25 -o '" + svg + "'").status == 0);
    const std::string picture = file_text(svg);
    CHECK(picture.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
    CHECK(picture.find("<rect") != std::string::npos);
    CHECK(picture.find("fill=\"#d6336c\"") != std::string::npos);
    CHECK(picture.find("</svg>") != std::string::npos);
    CHECK(run_quoct("svg --lon 2 --lat 48 --km 25 --wkt 'POLYGON((0 0,1 0,1 1,0 0))' -o '" + svg + "'").status != 0);
}

}  // namespace test_cli

#endif  // QUOCT_CLI
