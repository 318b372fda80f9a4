// quoct::io input as GIS files come: GeoJSON points known by content whatever the file is
// called (a byte-order mark skipped), the GeoJSON 2008 "crs" member checked for points and
// polygons, polygon vertices outside the globe refused by name, and open rings closed.
#include <catch2/catch.hpp>

#include "test_io_support.hpp"

#include <quoct/io/geojson_polygons.hpp>
#include <quoct/io/locations.hpp>
#include <quoct/io/wkt.hpp>

#include <boost/geometry/algorithms/equals.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

namespace test_io_gis_input {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

namespace io = quoct::io;
namespace fs = std::filesystem;
using strings = std::vector<std::string>;

using quoct_test::failure;

// A directory of this test's own, removed at the end of the process.
std::string temp_file(const std::string& name) {
    struct directory {
        fs::path path;
        directory() {
            std::random_device rd;
            path = fs::temp_directory_path() / ("quoct_test_gis_" + std::to_string(rd()) + "_" + std::to_string(rd()));
            fs::create_directories(path);
        }
        ~directory() {
            std::error_code ignored;
            fs::remove_all(path, ignored);
        }
    };
    static const directory dir;
    return (dir.path / name).string();
}

std::string written(const std::string& name, const std::string& text) {
    const std::string path = temp_file(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

const std::string bom = "\xEF\xBB\xBF";
const std::string points_geojson = R"({"type":"FeatureCollection","features":[{"type":"Feature",)"
                                   R"("geometry":{"type":"Point","coordinates":[5,6]},"properties":{"name":"g"}}]})";
const std::string points_csv = "name,lon,lat\nc,1,2\n";

// The one point of points_geojson (5, 6, named g) or points_csv (1, 2, named c).
void check_point(const io::location_table& t, double lon, const std::string& name) {
    CHECK(t.columns == strings{"name"});
    REQUIRE(t.locations.size() == 1);
    CHECK(t.locations[0].lon == lon);
    CHECK(t.values.field(0, 0) == name);
}

std::string named_crs(const std::string& name) {
    return R"({"type":"name","properties":{"name":")" + name + R"("}})";
}

// points_geojson with a "crs" member (its JSON) before the features.
std::string points_with_crs(const std::string& crs) {
    return R"({"type":"FeatureCollection","crs":)" + crs + points_geojson.substr(points_geojson.find(",\"features\""));
}

const char* const lonlat_crs_names[] = {"urn:ogc:def:crs:OGC:1.3:CRS84", "urn:ogc:def:crs:OGC::CRS84", "EPSG:4326",
                                        "urn:ogc:def:crs:EPSG::4326", "urn:ogc:def:crs:ogc:1.3:crs84"};

const std::string web_mercator_refused =
    "crs urn:ogc:def:crs:EPSG::3857 is not WGS 84 longitude/latitude; reproject first, e.g. ogr2ogr -t_srs EPSG:4326";

}  // namespace

TEST_CASE("io gis input: GeoJSON points are known by content, whatever the file is called", "[io][geo][gis_input]") {
    for (const std::string& prefix : {std::string(), std::string(" \r\n\t"), bom, bom + "\n  "}) {
        INFO("prefix of " << prefix.size() << " bytes");
        for (const char* name : {"points.txt", "points", "points.GEOJSON", "points.csv"}) {
            INFO(name);
            const std::string path = written(name, prefix + points_geojson);
            const io::location_table t = io::read_locations_file(path);
            check_point(t, 5, "g");
            CHECK(t.source == path);
        }
        std::istringstream in(prefix + points_geojson);
        check_point(io::read_locations_stream(in, "stdin"), 5, "g");
    }
    // CSV whatever the name too, and a byte-order mark before the header is not part of the
    // first column's name (file and stream).
    for (const std::string& prefix : {std::string(), bom}) {
        for (const char* name : {"points.json", "points", "points.csv"}) {
            INFO(name);
            check_point(io::read_locations_file(written(name, prefix + points_csv)), 1, "c");
        }
        std::istringstream in(prefix + points_csv);
        check_point(io::read_locations_stream(in, "stdin"), 1, "c");
    }
    CHECK(failure([] { io::read_locations_file("/nonexistent/points.txt"); }) ==
          "/nonexistent/points.txt: cannot open: No such file or directory");
    CHECK(failure([] { io::read_locations_file(written("empty.geojson", "")); }).find("empty.geojson: the file is empty") !=
          std::string::npos);
}

TEST_CASE("io gis input: a file that cannot be rewound (a named pipe) is read by content too", "[io][geo][gis_input]") {
    for (const std::string& text : {bom + points_geojson, points_csv}) {
        const std::string fifo = temp_file("points.fifo");
        fs::remove(fifo);
        REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
        std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
        io::location_table t;
        try {
            t = io::read_locations_file(fifo);
        } catch (...) {
            writer.join();
            throw;
        }
        writer.join();
        check_point(t, text == points_csv ? 1 : 5, text == points_csv ? "c" : "g");
        fs::remove(fifo);
    }
}

TEST_CASE("io gis input: GeoJSON points with a crs other than WGS 84 lon/lat are refused", "[io][geo][gis_input]") {
    for (const char* name : lonlat_crs_names) {
        INFO(name);
        std::istringstream in(points_with_crs(named_crs(name)));
        check_point(io::read_locations_geojson(in, "t.geojson"), 5, "g");
    }
    std::istringstream null_crs(points_with_crs("null"));
    check_point(io::read_locations_geojson(null_crs, "t.geojson"), 5, "g");

    const std::string mercator = points_with_crs(named_crs("urn:ogc:def:crs:EPSG::3857"));
    CHECK(failure([&] {
              std::istringstream in(mercator);
              io::read_locations_geojson(in, "t.geojson");
          }) == "t.geojson: " + web_mercator_refused);
    const std::string path = written("mercator.json", mercator);
    CHECK(failure([&] { io::read_locations_file(path); }) == path + ": " + web_mercator_refused);
    CHECK(failure([&] {
              std::istringstream in(mercator);
              io::read_locations_stream(in, "stdin");
          }) == "stdin: " + web_mercator_refused);
    // A crs that is not a name is named by its JSON.
    const std::string link = R"({"type":"link","properties":{"href":"http://example.com/crs/42","type":"proj4"}})";
    CHECK(failure([&] {
              std::istringstream in(points_with_crs(link));
              io::read_locations_geojson(in, "t.geojson");
          }) == "t.geojson: crs " + link + " is not WGS 84 longitude/latitude; reproject first, e.g. ogr2ogr -t_srs EPSG:4326");
}

TEST_CASE("io gis input: GeoJSON polygons with a crs other than WGS 84 lon/lat are refused", "[io][polygon][gis_input]") {
    const std::string geometry = R"({"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]})";
    const std::string feature = R"({"type":"Feature","properties":{"name":"a"},"geometry":)" + geometry + "}";
    // The crs member as the first member of each kind of top-level object.
    const auto with_crs = [&](const std::string& crs) {
        return strings{R"({"crs":)" + crs + "," + geometry.substr(1), R"({"crs":)" + crs + "," + feature.substr(1),
                       R"({"crs":)" + crs + R"(,"type":"FeatureCollection","features":[)" + feature + "]}"};
    };
    for (const std::string& name : {std::string(lonlat_crs_names[0]), std::string("EPSG:4326"), std::string("urn:ogc:def:crs:EPSG::4326")})
        for (const std::string& text : with_crs(named_crs(name))) {
            INFO(text);
            std::istringstream a(text), b(text), c(text);
            CHECK(io::read_geojson_polygons(a, "g").size() == 1);
            CHECK(io::read_geojson_area(b, "g").size() == 1);
            CHECK(io::read_geojson_polygon_layer(c, "g").features.size() == 1);
        }
    for (const std::string& text : with_crs(named_crs("urn:ogc:def:crs:EPSG::3857"))) {
        INFO(text);
        const std::string expected = "g: " + web_mercator_refused;
        CHECK(failure([&] {
                  std::istringstream in(text);
                  io::read_geojson_polygons(in, "g");
              }) == expected);
        CHECK(failure([&] {
                  std::istringstream in(text);
                  io::read_geojson_area(in, "g");
              }) == expected);
        CHECK(failure([&] {
                  std::istringstream in(text);
                  io::read_geojson_polygon_layer(in, "g");
              }) == expected);
    }
}

TEST_CASE("io gis input: polygon vertices off the globe are refused, naming the vertex", "[io][polygon][gis_input]") {
    CHECK(failure([] { io::read_wkt_area("POLYGON((0 0, 10 0, 10 91, 0 0))", "--wkt"); }) ==
          "--wkt: invalid polygon: vertex (10, 91) has a latitude outside [-90, 90]");
    CHECK(failure([] { io::read_wkt_area("MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)),((0 0, 10 0, 10 -90.5, 0 0)))", "--wkt"); }) ==
          "--wkt: invalid polygon: vertex (10, -90.5) has a latitude outside [-90, 90]");
    CHECK(failure([] { io::read_wkt_area("POLYGON((0 0, 10 0, 10 10, 0 10, 0 0),(1 1, 2 1, 2 1e300, 1 1))", "--wkt"); }) ==
          "--wkt: invalid polygon: vertex (2, 1e+300) has a latitude outside [-90, 90]");
    CHECK(failure([] { io::read_wkt_area("POLYGON((0 0, 400 0, 400 1, 0 0))", "--wkt"); }) ==
          "--wkt: invalid polygon: vertex (400, 0) has a longitude outside [-360, 360]");
    const auto geojson_failure = [](const std::string& text) {
        return failure([&] {
            std::istringstream in(text);
            io::read_geojson_area(in, "g");
        });
    };
    CHECK(geojson_failure(R"({"type":"Polygon","coordinates":[[[0,0],[10,0],[10,91],[0,0]]]})") ==
          "g: invalid polygon: vertex (10, 91) has a latitude outside [-90, 90]");
    CHECK(geojson_failure(R"({"type":"Polygon","coordinates":[[[0,0],[-361,0],[-361,1],[0,0]]]})") ==
          "g: invalid polygon: vertex (-361, 0) has a longitude outside [-360, 360]");
    // The poles themselves, and longitudes past 180 (the documented way across lon 180), stay.
    CHECK(io::read_wkt_area("POLYGON((-180 80, -180 90, 180 90, 180 80, -180 80))", "--wkt").size() == 1);
    CHECK(io::read_wkt_area("POLYGON((-180 -90, -180 -80, 180 -80, 180 -90, -180 -90))", "--wkt").size() == 1);
    CHECK(io::read_wkt_area("POLYGON((170 0, 190 0, 190 10, 170 10, 170 0))", "--wkt").size() == 1);
}

TEST_CASE("io gis input: a ring whose last position is not its first is closed", "[io][polygon][gis_input]") {
    const auto closed = io::read_wkt_area("POLYGON((0 0, 10 0, 10 10, 0 10, 0 0),(2 2, 4 2, 4 4, 2 4, 2 2))", "--wkt");
    CHECK(boost::geometry::equals(io::read_wkt_area("POLYGON((0 0, 10 0, 10 10, 0 10),(2 2, 4 2, 4 4, 2 4))", "--wkt"), closed));
    std::istringstream in(R"({"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10]],[[2,2],[4,2],[4,4],[2,4]]]})");
    const io::wkt_multi_polygon area = io::read_geojson_area(in, "g");
    CHECK(boost::geometry::equals(area, closed));
    REQUIRE(area.size() == 1);
    CHECK(area[0].outer().size() == 5);  // closed: the first position again at the end
    CHECK(area[0].outer().front().x() == area[0].outer().back().x());
    CHECK(area[0].outer().front().y() == area[0].outer().back().y());
}

TEST_CASE("io gis input: a binary file (GeoPackage, FlatGeobuf, Shapefile) is named, not parsed as CSV", "[io][gis_input]") {
    struct case_t {
        std::string bytes, kind;
    };
    const std::vector<case_t> cases = {
        {std::string("SQLite format 3\0\x10\0\x01\x01", 20), "a GeoPackage or SQLite database"},
        {std::string("fgb\x03" "fgb\0\x10\0\0\0", 12), "a FlatGeobuf file"},
        {std::string("\0\0\x27\x0a\0\0\0\0", 8), "an ESRI Shapefile"},
        {std::string("PK\x03\x04\x14\0\0\0", 8), "a zip archive"},
        {std::string("lon,lat\n1,2\0\n", 13), "a binary file (it holds a NUL byte)"},
    };
    for (const auto& c : cases) {
        INFO(c.kind);
        CHECK(io::binary_kind(c.bytes.data(), c.bytes.size()) == c.kind);
        const std::string says = "is " + c.kind + ", not CSV or GeoJSON text";
        const std::string path = temp_file("binary.csv");
        std::ofstream(path, std::ios::binary) << c.bytes;
        const std::string file_message = failure([&] { io::read_locations_file(path); });
        CHECK_THAT(file_message, Catch::Contains(says));
        CHECK_THAT(file_message, Catch::Contains("ogr2ogr -f CSV"));
        std::istringstream in(c.bytes);
        CHECK_THAT(failure([&] { io::read_locations_stream(in, "stdin"); }), Catch::StartsWith("stdin: " + says));
    }
    // Text stays text: UTF-8 and a byte-order mark are not binary.
    const std::string text = "\xEF\xBB\xBFname,lon,lat\nK\xC3\xB8" "benhavn,12.5,55.7\n";
    CHECK(io::binary_kind(text.data(), text.size()).empty());
    std::istringstream in(text);
    CHECK(io::read_locations_stream(in, "stdin").locations.size() == 1);
}

}  // namespace test_io_gis_input
