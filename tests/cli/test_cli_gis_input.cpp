// The `quoct` command on GIS files as they come: GeoJSON points whatever the file is called
// or with a byte-order mark on standard input, a GeoJSON crs other than WGS 84 lon/lat
// refused for points, polygons and join layers, `polygon --geojson -` from standard input,
// and polygon vertices off the globe refused by name.
#include <catch2/catch.hpp>

#ifdef QUOCT_CLI

#include "test_cli_support.hpp"

#include <quoct/io/csv.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

namespace test_cli_gis_input {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

using quoct_test::file_text;
using quoct_test::run_cli;
using quoct_test::temp_path;
using result = std::pair<int, std::string>;

// The exit code of `quoct args`, and its whole stderr.
result error_of(const std::string& args) {
    const std::string err = temp_path("gis_stderr.txt");
    const int status = run_cli(args, err).status;
    return {status, file_text(err)};
}

std::string written(const std::string& name, const std::string& text) {
    const std::string path = temp_path(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

// The first column of every data row of CSV output.
std::vector<std::string> first_column(const std::string& csv) {
    std::istringstream in(csv);
    const quoct::io::csv_table t = quoct::io::read_csv(in, "stdout");
    std::vector<std::string> out;
    for (const auto row : t.rows) out.emplace_back(row[0]);
    return out;
}

const std::string bom = "\xEF\xBB\xBF";
const std::string points = R"({"type":"FeatureCollection","features":[{"type":"Feature",)"
                           R"("geometry":{"type":"Point","coordinates":[5,6]},"properties":{"name":"g"}}]})";
const std::string mercator_crs = R"("crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::3857"}},)";
const std::string refused = "crs urn:ogc:def:crs:EPSG::3857 is not WGS 84 longitude/latitude; reproject first, e.g. "
                            "ogr2ogr -t_srs EPSG:4326\n";

}  // namespace

TEST_CASE("cli gis input: GeoJSON points are known by content, in any file and on standard input", "[cli][gis_input]") {
    for (const char* name : {"points.txt", "points"}) {
        const std::string path = written(name, points);
        const auto r = run_cli("near --lon 5 --lat 6 --k 1 --format csv '" + path + "'");
        CHECK(r.status == 0);
        CHECK(first_column(r.out) == std::vector<std::string>{"g"});
    }
    const std::string with_bom = written("bom.geojson", bom + "\n" + points);
    const auto r = run_cli("near --lon 5 --lat 6 --k 1 --format csv - < '" + with_bom + "'");
    CHECK(r.status == 0);
    CHECK(first_column(r.out) == std::vector<std::string>{"g"});
    const std::string csv = written("bom.csv", bom + "name,lon,lat\nc,1,2\n");
    const auto c = run_cli("near --lon 1 --lat 2 --k 1 --format csv - < '" + csv + "'");
    CHECK(c.status == 0);
    CHECK(c.out.rfind("name,lon,lat", 0) == 0);  // the header's first column without the mark
}

TEST_CASE("cli gis input: a GeoJSON crs other than WGS 84 lon/lat is a data error, or reprojected by GDAL", "[cli][gis_input]") {
    const std::string pts = written("mercator_points.geojson", "{" + mercator_crs + points.substr(1));
    const std::string polygon = "{" + mercator_crs + R"("type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,0]]]})";
    const std::string area = written("mercator_area.geojson", polygon);
    // polygon --geojson takes WGS 84 only, with or without GDAL.
    CHECK(error_of("polygon --geojson '" + area + "'") == result{1, "quoct: error: " + area + ": " + refused});
    CHECK(error_of("polygon --geojson '" + polygon + "'") == result{1, "quoct: error: --geojson: " + refused});
#ifdef QUOCT_CLI_GDAL
    // Built with GDAL, a points file and a join layer are reprojected: the point (5 m, 6 m)
    // in Web Mercator is 4.49e-5 E, 5.39e-5 N; a square of 10 m covers it, not (5, 6) degrees.
    const auto near = run_cli("near --lon 0 --lat 0 --k 1 --format csv '" + pts + "'");
    REQUIRE(near.status == 0);
    CHECK_THAT(near.out, Catch::Contains("g,4.4915764205") && Catch::Contains("e-05,5.389891704"));
    const std::string square = written("mercator_square.geojson", "{" + mercator_crs +
                               R"("type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]})");
    const std::string degrees = written("degrees.geojson", points);
    CHECK(run_cli("join --count --format csv --polygons '" + square + "' '" + pts + "'").out == "polygon_id,count\r\n1,1\r\n");
    CHECK(run_cli("join --count --format csv --polygons '" + square + "' '" + degrees + "'").out == "polygon_id,count\r\n1,0\r\n");
#else
    CHECK(error_of("near --lon 5 --lat 6 --k 1 '" + pts + "'") == result{1, "quoct: error: " + pts + ": " + refused});
    CHECK(error_of("join --polygons '" + area + "'") == result{1, "quoct: error: " + area + ": " + refused});
#endif
}

TEST_CASE("cli gis input: polygon --geojson - reads the polygon from standard input", "[cli][gis_input]") {
    const std::string swiss = R"({"type":"Polygon","coordinates":[[[5.9,45.8],[10.5,45.8],[10.5,47.8],[5.9,47.8],[5.9,45.8]]]})";
    const std::string path = written("swiss.geojson", swiss);
    const auto from_file = run_cli("polygon --format csv --geojson '" + path + "'");
    REQUIRE(from_file.status == 0);
    REQUIRE(first_column(from_file.out).size() > 10);
    const auto from_stdin = run_cli("polygon --format csv --geojson - < '" + path + "'");
    CHECK(from_stdin.status == 0);
    CHECK(from_stdin.out == from_file.out);
    const result both = error_of("polygon --geojson - - < '" + path + "'");
    CHECK(both.first == 2);
    CHECK(both.second.substr(0, both.second.find('\n')) == "quoct: error: FILE and --geojson cannot both be '-' (standard input)");
    // Errors name standard input as the points' reader does.
    const std::string bad = written("bad.geojson", R"({"type":"Point","coordinates":[1,2]})");
    CHECK(error_of("polygon --geojson - < '" + bad + "'") ==
          result{1, "quoct: error: stdin: not a GeoJSON Polygon or MultiPolygon (a Point)\n"});
}

TEST_CASE("cli gis input: polygon vertices off the globe are a data error naming the vertex", "[cli][gis_input]") {
    CHECK(error_of("polygon --wkt 'POLYGON((0 0, 10 0, 10 91, 0 0))'") ==
          result{1, "quoct: error: --wkt: invalid polygon: vertex (10, 91) has a latitude outside [-90, 90]\n"});
    CHECK(error_of(R"(polygon --geojson '{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,-91],[0,0]]]}')") ==
          result{1, "quoct: error: --geojson: invalid polygon: vertex (10, -91) has a latitude outside [-90, 90]\n"});
}

#ifdef QUOCT_CLI_GDAL
TEST_CASE("cli gis input: errors about a layer name the option that chooses it", "[cli][gis_input]") {
    // A GeoPackage of two layers, made by GDAL's own ogr2ogr.
    const std::string two = quoct_test::temp_path("two_layers_cli.gpkg");
    std::remove(two.c_str());
    const std::string countries = std::string(QUOCT_DATA_DIR) + "/countries_110m.geojson";
    REQUIRE(std::system(("ogr2ogr -f GPKG -nln areas '" + two + "' '" + countries + "'").c_str()) == 0);
    REQUIRE(std::system(("ogr2ogr -f GPKG -update -nln more '" + two + "' '" + countries + "'").c_str()) == 0);
    const std::string cities = "'" + std::string(QUOCT_DATA_DIR) + "/cities.csv'";
    const std::string layers = "'areas', 'more'";
    CHECK(error_of("join --polygons '" + two + "' " + cities) ==
          result{1, "quoct: error: " + two + ": holds 2 layers (" + layers + "); name one (--polygon-layer)\n"});
    CHECK(error_of("join --polygons '" + two + "' --polygon-layer nope " + cities) ==
          result{1, "quoct: error: " + two + ": no layer 'nope' (--polygon-layer); the layers are " + layers + "\n"});
    CHECK(run_cli("join --count --polygons '" + two + "' --polygon-layer more " + cities).status == 0);
    // FILE's own option for FILE.
    CHECK(error_of("near --lon 0 --lat 0 --k 1 --layer nope '" + two + "'") ==
          result{1, "quoct: error: " + two + ": no layer 'nope' (--layer); the layers are " + layers + "\n"});
}
#endif

}  // namespace test_cli_gis_input

#endif  // QUOCT_CLI
