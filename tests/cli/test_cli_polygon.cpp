// The `quoct polygon` command across the antimeridian, with WKT (EWKT) and GeoJSON: runs
// the built binary on the bundled cities and checks its answers against brute force over
// Boost.Geometry's covered_by on the polygon unwrapped by hand.
#include <catch2/catch.hpp>

#include "test_cli_support.hpp"

#ifdef QUOCT_CLI

#include <quoct/io/csv.hpp>

#include <boost/geometry/algorithms/covered_by.hpp>
#include <boost/geometry/algorithms/correct.hpp>
#include <boost/geometry/geometries/point_xy.hpp>
#include <boost/geometry/geometries/polygon.hpp>
#include <boost/geometry/io/wkt/read.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace test_cli_polygon {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

namespace io = quoct::io;
namespace bg = boost::geometry;
using pt = bg::model::d2::point_xy<double>;

struct polygon_run {
    int status;        // the exit code, or -1 if it did not exit normally
    std::string out;   // stdout
    std::string err;   // stderr
};

polygon_run run_polygon(const std::string& args) {
    const std::string err_file = quoct_test::temp_path("polygon_stderr.txt");
    const quoct_test::cli_result r = quoct_test::run_cli("polygon --format csv " + args, err_file);
    return {r.status, r.out, quoct_test::file_text(err_file)};
}

std::vector<std::string> ids_of(const std::string& csv) {
    std::istringstream in(csv);
    const io::csv_table t = io::read_csv(in, "stdout");
    std::vector<std::string> ids;
    for (const auto row : t.rows) ids.emplace_back(row[t.column("id")]);
    return ids;
}

// The ids of the bundled cities covered by `unwrapped_wkt` at lon or lon + 360, in file order.
std::vector<std::string> expected_ids(const std::string& unwrapped_wkt) {
    bg::model::polygon<pt> area;
    bg::read_wkt(unwrapped_wkt, area);
    bg::correct(area);
    static const io::csv_table t = io::read_csv(std::string(QUOCT_DATA_DIR) + "/cities.csv");
    const std::size_t id = t.column("id"), lon = t.column("lon"), lat = t.column("lat");
    std::vector<std::string> ids;
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
        const double x = t.number(r, lon), y = t.number(r, lat);
        if (bg::covered_by(pt(x, y), area) || bg::covered_by(pt(x + 360, y), area)) ids.emplace_back(t.rows[r][id]);
    }
    return ids;
}

}  // namespace

TEST_CASE("cli polygon: across the antimeridian, WKT and GeoJSON, either orientation", "[cli][polygon][antimeridian]") {
    const auto fiji = expected_ids("POLYGON((178 -20, 182 -20, 182 -15, 178 -15, 178 -20))");
    CHECK(fiji.size() == 4);  // the issue's four cities in Fiji
    for (const char* wkt : {"POLYGON((178 -20, -178 -20, -178 -15, 178 -15, 178 -20))",
                            "POLYGON((178 -20, 178 -15, -178 -15, -178 -20, 178 -20))",
                            "SRID=4326;POLYGON((-178 -15, 178 -15, 178 -20, -178 -20, -178 -15))"}) {
        INFO(wkt);
        const auto r = run_polygon(std::string("--wkt '") + wkt + "'");
        CHECK(r.status == 0);
        CHECK(ids_of(r.out) == fiji);
    }
    // A wider area with a hole across lon 180, as GeoJSON text and as a file.
    const auto holed = expected_ids("POLYGON((170 -25, 190 -25, 190 -10, 170 -10, 170 -25),(177 -19, 181 -19, 181 -16, 177 -16, 177 -19))");
    CHECK(holed.size() > 20);
    const std::string geojson = R"({"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":)"
                                R"([[[170,-25],[170,-10],[-170,-10],[-170,-25],[170,-25]],[[177,-19],[-179,-19],[-179,-16],[177,-16],[177,-19]]]}})";
    const auto text = run_polygon("--geojson '" + geojson + "'");
    CHECK(text.status == 0);
    CHECK(ids_of(text.out) == holed);
    const std::string file = quoct_test::temp_path("polygon.geojson");
    std::ofstream(file) << geojson;
    const auto from_file = run_polygon("--geojson '" + file + "'");
    CHECK(from_file.status == 0);
    CHECK(ids_of(from_file.out) == holed);
    std::filesystem::remove(file);
}

TEST_CASE("cli polygon: SRIDs, self-intersections, poles and missing options fail with a message", "[cli][polygon]") {
    auto r = run_polygon("--wkt 'SRID=3857;POLYGON((0 0, 1 0, 1 1, 0 0))'");
    CHECK(r.status == 1);
    CHECK(r.err == "quoct: error: --wkt: SRID=3857 is not supported: coordinates must be longitude and latitude in degrees "
                   "(SRID=4326, WGS 84)\n");
    r = run_polygon("--wkt 'POLYGON((0 0, 2 2, 2 0, 0 2, 0 0))'");
    CHECK(r.status == 1);
    CHECK(r.err == "quoct: error: --wkt: invalid polygon: it intersects itself (the outer ring crosses or touches itself)\n");
    r = run_polygon("--wkt 'POLYGON((0 80, 90 80, 180 80, -90 80, 0 80))'");
    CHECK(r.status == 1);
    CHECK(r.err.find("quoct: error: --wkt: invalid polygon: a polygon ring goes round the north pole") == 0);
    r = run_polygon("--geojson '{\"type\":\"Point\",\"coordinates\":[1,2]}'");
    CHECK(r.status == 1);
    CHECK(r.err == "quoct: error: --geojson: not a GeoJSON Polygon or MultiPolygon (a Point)\n");
    CHECK(run_polygon("--geojson /nonexistent/area.geojson").status == 1);
    CHECK(run_polygon("").status != 0);
    CHECK(run_polygon("--wkt 'POLYGON((0 0, 1 0, 1 1, 0 0))' --geojson '{}'").status != 0);
}

}  // namespace test_cli_polygon

#endif  // QUOCT_CLI
