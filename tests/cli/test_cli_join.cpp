// The `quoct join` command: the bundled cities joined with Natural Earth's 177 countries
// (Antarctica, Fiji and Russia across lon 180 included), checked row by row against brute
// force over Boost.Geometry's covered_by on each country's polygons unwrapped by hand, and
// its edges: a lone Feature, polygons from standard input, null geometries, invalid
// polygons (stop or skip), unknown columns.
#include <catch2/catch.hpp>

#include "test_cli_support.hpp"

#ifdef QUOCT_CLI

#include <quoct/io/csv.hpp>
#include <quoct/io/geojson_polygons.hpp>
#include <quoct/io/locations.hpp>
#include <quoct/io/wkt.hpp>

#include <boost/geometry/algorithms/covered_by.hpp>

#include <algorithm>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace test_cli_join {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

namespace io = quoct::io;
namespace bg = boost::geometry;

const std::string countries = std::string(QUOCT_DATA_DIR) + "/countries_110m.geojson";
const std::string cities = std::string(QUOCT_DATA_DIR) + "/cities.csv";

io::csv_table csv_of(const std::string& text) {
    std::istringstream in(text);
    return io::read_csv(in, "stdout");
}

// Every (city, country) pair by brute force: the city at its longitude or shifted by 360
// degrees covered by the country as read and unwrapped (io::area_of).
std::vector<std::pair<std::size_t, std::size_t>> brute_pairs(const io::location_table& pts, const io::polygon_layer& layer) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::vector<io::wkt_multi_polygon> areas;
    struct bounds {
        double west = 1e300, south = 1e300, east = -1e300, north = -1e300;
    };
    std::vector<bounds> envelopes;  // only to skip the sure misses quickly
    for (const auto& f : layer.features) {
        areas.push_back(io::area_of(f.polygons, "test"));
        bounds b;
        for (const auto& polygon : areas.back())
            for (const auto& v : polygon.outer()) {
                b.west = std::min(b.west, v.x()), b.east = std::max(b.east, v.x());
                b.south = std::min(b.south, v.y()), b.north = std::max(b.north, v.y());
            }
        envelopes.push_back(b);
    }
    for (std::size_t i = 0; i < pts.locations.size(); ++i)
        for (std::size_t f = 0; f < areas.size(); ++f)
            for (double shift : {0.0, 360.0, -360.0}) {
                const io::wkt_point p(pts.locations[i].lon + shift, pts.locations[i].lat);
                const bounds& b = envelopes[f];
                const bool near = p.x() >= b.west && p.x() <= b.east && p.y() >= b.south && p.y() <= b.north;
                if (near && bg::covered_by(p, areas[f])) {
                    out.emplace_back(i, f);
                    break;
                }
            }
    return out;
}

}  // namespace

TEST_CASE("quoct join: cities in countries equal brute force, left, inner and counts", "[cli][join][geo]") {
    const io::location_table pts = io::read_locations_file(cities);
    std::ifstream layer_in(countries);
    const io::polygon_layer layer = io::read_geojson_polygon_layer(layer_in, countries);
    REQUIRE(layer.features.size() == 177);
    const auto expect = brute_pairs(pts, layer);
    REQUIRE(expect.size() > 100000);

    const std::string err = quoct_test::temp_path("join_err.txt");
    const auto left = quoct_test::run_cli("join --format csv --polygons '" + countries +
                                              "' --polygon-columns name,iso_a3 --name-column id '" + cities + "'",
                                          err);
    REQUIRE(left.status == 0);
    const io::csv_table t = csv_of(left.out);
    REQUIRE(t.header.back() == "polygon_iso_a3");
    // Rows: every pair, in city order then country order, and each city in no country once
    // with empty polygon columns.
    std::vector<std::pair<std::string, std::string>> want, got;
    std::size_t e = 0;
    std::vector<bool> matched(pts.locations.size(), false);
    for (const auto& p : expect) matched[p.first] = true;
    const std::size_t id_col = pts.find_column("id");
    for (std::size_t i = 0; i < pts.locations.size(); ++i) {
        if (!matched[i]) want.emplace_back(std::string(pts.values[i][id_col]), "");
        for (; e < expect.size() && expect[e].first == i; ++e)
            want.emplace_back(std::string(pts.values[i][id_col]), io::feature_id_of(layer, expect[e].second).first + "/" +
                                                                     layer.features[expect[e].second].values[layer.find_column("iso_a3")]);
    }
    for (const auto row : t.rows) {
        const std::string pid(row[t.column("polygon_id")]);
        got.emplace_back(std::string(row[t.column("id")]), pid.empty() ? "" : pid + "/" + std::string(row[t.column("polygon_iso_a3")]));
    }
    CHECK(got.size() == want.size());
    CHECK(got == want);

    // Inner: the pairs alone.
    const auto inner = quoct_test::run_cli("join --inner --format csv --polygons '" + countries + "' '" + cities + "'");
    REQUIRE(inner.status == 0);
    CHECK(csv_of(inner.out).rows.size() == expect.size());

    // Counts, one row per country, as GeoJSON too.
    std::map<std::string, std::size_t> want_counts;
    for (std::size_t f = 0; f < layer.features.size(); ++f) want_counts[io::feature_id_of(layer, f).first] = 0;
    for (const auto& p : expect) ++want_counts[io::feature_id_of(layer, p.second).first];
    const auto counted = quoct_test::run_cli("join --count --format csv --polygons '" + countries + "' '" + cities + "'");
    REQUIRE(counted.status == 0);
    const io::csv_table ct = csv_of(counted.out);
    REQUIRE(ct.rows.size() == 177);
    std::map<std::string, std::size_t> got_counts;
    for (const auto row : ct.rows) got_counts[std::string(row[0])] = std::stoul(std::string(row[ct.column("count")]));
    CHECK(got_counts == want_counts);
    const auto as_json = quoct_test::run_cli("join --count --format geojson --polygon-columns name --polygons '" +
                                             countries + "' '" + cities + "'");
    REQUIRE(as_json.status == 0);
    const auto doc = nlohmann::json::parse(as_json.out);
    REQUIRE(doc["features"].size() == 177);
    for (const auto& f : doc["features"]) {
        CHECK(f["geometry"]["type"].get<std::string>().find("Polygon") != std::string::npos);
        CHECK(f["properties"]["count"].get<std::size_t>() == want_counts[f["properties"]["polygon_id"].dump()]);
    }
}

TEST_CASE("quoct join: a lone Feature, stdin, null geometries, invalid polygons, unknown columns", "[cli][join][errors]") {
    const std::string err = quoct_test::temp_path("join_edges_err.txt");
    const std::string points = quoct_test::temp_path("join_points.csv");
    {
        std::ofstream out(points);
        out << "name,lon,lat\nA,0.5,0.5\nB,1,1\nC,5,5\nD,179.5,0\nE,-179.5,0\n";
    }
    // Across lon 180, given as one feature; B lies on the square's corner (boundary included).
    const std::string feature =
        R"({"type":"Feature","id":"sq","properties":{"name":"Square"},"geometry":{"type":"MultiPolygon","coordinates":)"
        R"([[[[0,0],[1,0],[1,1],[0,1],[0,0]]],[[[179,-1],[-179,-1],[-179,1],[179,1],[179,-1]]]]}})";
    const std::string feature_file = quoct_test::temp_path("join_feature.json");
    {
        std::ofstream out(feature_file);
        out << feature;
    }
    auto r = quoct_test::run_cli("join --format csv --polygon-columns name --polygons - '" + points + "' < '" +
                                     feature_file + "'",
                                 err);
    REQUIRE(r.status == 0);
    CHECK(r.out ==
          "name,lon,lat,polygon_id,polygon_name\r\nA,0.5,0.5,sq,Square\r\nB,1,1,sq,Square\r\nC,5,5,,\r\n"
          "D,179.5,0,sq,Square\r\nE,-179.5,0,sq,Square\r\n");

    // A collection with a null geometry and a bow tie (invalid: it crosses itself).
    const std::string layer = quoct_test::temp_path("join_layer.geojson");
    {
        std::ofstream out(layer);
        out << R"({"type":"FeatureCollection","features":[)"
            << R"({"type":"Feature","properties":{"name":"Nothing"},"geometry":null},)"
            << R"({"type":"Feature","id":7,"properties":{"name":"Bow"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[2,2],[2,0],[0,2],[0,0]]]}},)"
            << R"({"type":"Feature","properties":{"name":"Big"},"geometry":{"type":"Polygon","coordinates":[[[-10,-10],[10,-10],[10,10],[-10,10],[-10,-10]]]}}]})";
    }
    r = quoct_test::run_cli("join --format csv --polygons '" + layer + "' '" + points + "'", err);
    CHECK(r.status == 1);
    CHECK(quoct_test::file_text(err).find("feature 2 (id 7, name Bow): invalid polygon: it intersects itself") !=
          std::string::npos);
    r = quoct_test::run_cli("join --count --format csv --invalid skip --polygon-columns name --polygons '" + layer + "' '" +
                                points + "'",
                            err);
    REQUIRE(r.status == 0);
    CHECK(r.out == "polygon_id,polygon_name,count\r\n1,Nothing,0\r\n3,Big,3\r\n");
    const std::string messages = quoct_test::file_text(err);
    CHECK(messages.find("feature 1 (name Nothing) has no geometry: it covers no point") != std::string::npos);
    CHECK(messages.find("quoct: skipped " + layer + ": feature 2 (id 7, name Bow): invalid polygon") != std::string::npos);

    // Unknown column, points that are not polygons, both inputs on stdin.
    r = quoct_test::run_cli("join --polygon-columns nom --polygons '" + layer + "' '" + points + "'", err);
    CHECK(r.status == 1);
    CHECK(quoct_test::file_text(err).find("no polygon column 'nom' (--polygon-columns); the columns are 'name'") !=
          std::string::npos);
    const std::string pointy = quoct_test::temp_path("join_points.geojson");
    {
        std::ofstream out(pointy);
        out << R"({"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"P"},"geometry":{"type":"Point","coordinates":[1,2]}}]})";
    }
    r = quoct_test::run_cli("join --polygons '" + pointy + "' '" + points + "'", err);
    CHECK(r.status == 1);
    CHECK(quoct_test::file_text(err).find("feature 1 (name P): geometry is a Point, not a Polygon or MultiPolygon") !=
          std::string::npos);
    r = quoct_test::run_cli("join --polygons - - < '" + points + "'", err);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
}

}  // namespace test_cli_join

#endif  // QUOCT_CLI
