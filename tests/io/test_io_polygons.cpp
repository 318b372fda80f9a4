// quoct::io polygons: WKT and GeoJSON areas across the antimeridian (unwrapped as RFC 7946
// means them), EWKT SRIDs, and the messages for invalid polygons; queried areas against
// Boost.Geometry's covered_by on polygons unwrapped by hand.
#include <catch2/catch.hpp>

#include "test_io_support.hpp"

#include <quoct/geo/polygons.hpp>
#include <quoct/io/geojson_polygons.hpp>
#include <quoct/io/wkt.hpp>

#include "test_geo_support.hpp"

#include <boost/geometry/algorithms/covered_by.hpp>
#include <boost/geometry/algorithms/for_each.hpp>
#include <boost/geometry/algorithms/equals.hpp>
#include <boost/geometry/geometries/box.hpp>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace test_io_polygons {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

namespace io = quoct::io;
namespace geo = quoct::geo;
namespace bg = boost::geometry;
using geo_test::ids;

using quoct_test::failure;

io::wkt_multi_polygon geojson(const std::string& text, const std::string& source = "g") {
    std::istringstream in(text);
    return io::read_geojson_area(in, source);
}

std::string geojson_failure(const std::string& text) {
    return failure([&] { geojson(text, "g"); });
}

// Dyadic points on both sides of lon 180, on and around the Fiji box [178, 182] x [-20, -15]
// with the hole [179, 181] x [-18, -16], and a second box [0, 2] x [-20, -15].
std::vector<geo::lonlat> fiji_grid() {
    std::vector<geo::lonlat> pts;
    for (double x : {177.5, 178.0, 179.0, 179.5, 180.0, -180.0, -179.5, -179.0, -178.0, -177.5, -1.0, 0.0, 1.0, 2.0, 2.5})
        for (double y : {-20.5, -20.0, -18.0, -17.0, -16.0, -15.0, -14.5}) pts.push_back({x, y});
    return pts;
}

// The oracle: Boost.Geometry's covered_by on the area as written by hand, unwrapped into
// [0, 360), each point tried at lon and lon + 360.
ids oracle(const std::vector<geo::lonlat>& pts, const std::string& unwrapped_wkt) {
    io::wkt_multi_polygon area;
    if (unwrapped_wkt.rfind("POLYGON", 0) == 0) {
        area.resize(1);
        bg::read_wkt(unwrapped_wkt, area[0]);
    } else {
        bg::read_wkt(unwrapped_wkt, area);
    }
    bg::correct(area);
    ids out;
    for (std::uint32_t i = 0; i < pts.size(); ++i)
        if (bg::covered_by(io::wkt_point(pts[i].lon, pts[i].lat), area) ||
            bg::covered_by(io::wkt_point(pts[i].lon + 360, pts[i].lat), area))
            out.push_back(i);
    return out;
}

const char* const fiji_unwrapped =
    "MULTIPOLYGON(((178 -20,182 -20,182 -15,178 -15,178 -20),(179 -18,181 -18,181 -16,179 -16,179 -18)),"
    "((0 -20,2 -20,2 -15,0 -15,0 -20)))";

}  // namespace

TEST_CASE("io polygons: WKT across the antimeridian is unwrapped, in either orientation", "[io][polygon][antimeridian]") {
    const auto pts = fiji_grid();
    const geo::index<> ix(pts);
    const ids want = oracle(pts, fiji_unwrapped);
    REQUIRE(want.size() > 20);
    for (const char* wkt :
         {"MULTIPOLYGON(((178 -20,-178 -20,-178 -15,178 -15,178 -20),(179 -18,-179 -18,-179 -16,179 -16,179 -18)),((0 -20,2 -20,2 -15,0 -15,0 -20)))",
          "MULTIPOLYGON(((178 -20,178 -15,-178 -15,-178 -20,178 -20),(-179 -16,-179 -18,179 -18,179 -16,-179 -16)),((0 -20,0 -15,2 -15,2 -20,0 -20)))",
          "SRID=4326;MULTIPOLYGON(((-178 -15,178 -15,178 -20,-178 -20)),((2 -20,2 -15,0 -15,0 -20)))"}) {
        INFO(wkt);
        const auto area = io::read_wkt_area(wkt, "--wkt");
        double lo = 1e9, hi = -1e9;
        bg::for_each_point(area[0], [&](const io::wkt_point& p) { lo = std::min(lo, p.x()), hi = std::max(hi, p.x()); });
        CHECK(hi - lo == 4);  // unwrapped: 4 degrees wide
        const ids got = geo_test::sorted(geo::covered_by(ix, area));
        if (area[0].inners().empty())
            CHECK(got == oracle(pts, "MULTIPOLYGON(((178 -20,182 -20,182 -15,178 -15,178 -20)),((0 -20,2 -20,2 -15,0 -15,0 -20)))"));
        else
            CHECK(got == want);
    }
    CHECK(failure([] { io::read_wkt_area("POLYGON((0 80, 90 80, 180 80, -90 80, 0 80))", "--wkt"); }) ==
          "--wkt: invalid polygon: a polygon ring goes round the north pole (its edges, taken across lon 180 the short "
          "way, circle the Earth); close it along the pole, e.g. with edges from (180, 90) to (-180, 90)");
    CHECK(failure([] { io::read_wkt_area("POLYGON((0 -80, -90 -80, -180 -80, 90 -80, 0 -80))", "--wkt"); }).find(
              "goes round the south pole (its edges, taken across lon 180 the short way, circle the Earth); close it "
              "along the pole, e.g. with edges from (180, -90) to (-180, -90)") != std::string::npos);
    CHECK(failure([] { io::read_wkt_area("POLYGON((-200 0, -200 1, 170 1, 170 0, -200 0))", "--wkt"); }) ==
          "--wkt: invalid polygon: polygon is wider than 360 degrees of longitude");
}

TEST_CASE("io polygons: EWKT SRID=4326 is accepted, other SRIDs refused", "[io][polygon]") {
    const auto plain = io::read_wkt_area("POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))", "--wkt");
    for (const char* wkt : {"SRID=4326;POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))", "  srid=4326; polygon((0 0, 10 0, 10 10, 0 10, 0 0))"})
        CHECK(bg::equals(io::read_wkt_area(wkt, "--wkt"), plain));
    CHECK(failure([] { io::read_wkt_area("SRID=3857;POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))", "--wkt"); }) ==
          "--wkt: SRID=3857 is not supported: coordinates must be longitude and latitude in degrees (SRID=4326, WGS 84)");
    CHECK(failure([] { io::read_wkt_area("SRID=4326 POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))", "--wkt"); }) ==
          "--wkt: invalid WKT: SRID=... must end with ';'");
}

TEST_CASE("io polygons: self-intersecting polygons say so", "[io][polygon]") {
    CHECK(failure([] { io::read_wkt_area("POLYGON((0 0, 2 2, 2 0, 0 2, 0 0))", "--wkt"); }) ==
          "--wkt: invalid polygon: it intersects itself (the outer ring crosses or touches itself)");
    CHECK(failure([] { io::read_wkt_area("POLYGON((0 0, 0 2, 2 0, 2 2, 0 0))", "--wkt"); }) ==
          "--wkt: invalid polygon: it intersects itself (the outer ring crosses or touches itself)");
    CHECK(failure([] { io::read_wkt_area("MULTIPOLYGON(((20 20, 21 20, 21 21, 20 20)),((0 0, 10 0, 10 10, 5 0, 0 10, 0 0)))", "--wkt"); }) ==
          "--wkt: invalid polygon: it intersects itself (polygon 2's outer ring crosses or touches itself)");
    CHECK(failure([] { io::read_wkt_area("POLYGON((0 0, 10 0, 10 10, 0 10, 0 0),(2 2, 4 4, 4 2, 2 4, 2 2))", "--wkt"); }) ==
          "--wkt: invalid polygon: it intersects itself (hole 1 crosses or touches itself)");
    const std::string crossing = failure([] { io::read_wkt_area("POLYGON((0 0, 10 0, 10 10, 0 10, 0 0),(5 5, 15 5, 15 6, 5 6, 5 5))", "--wkt"); });
    CHECK(crossing.find("--wkt: invalid polygon: it intersects itself (its rings cross or touch): ") == 0);
    CHECK(failure([] { io::read_wkt_area("POLYGON((0 0, 10 0, 20 0, 10 0, 10 10, 0 10, 0 0))", "--wkt"); }).find("--wkt: invalid polygon: Geometry has spikes") == 0);
    // A valid polygon across lon 180 is not mistaken for a self-intersecting one.
    CHECK_NOTHROW(io::read_wkt_area("POLYGON((170 0, -170 0, -170 10, 170 10, 170 0))", "--wkt"));
}

TEST_CASE("io polygons: GeoJSON Polygon, MultiPolygon, Feature and FeatureCollection", "[io][polygon][antimeridian]") {
    const auto pts = fiji_grid();
    const geo::index<> ix(pts);
    const ids want = oracle(pts, fiji_unwrapped);
    const std::string fiji = "[[[178,-20],[-178,-20],[-178,-15],[178,-15],[178,-20]],[[179,-18],[-179,-18],[-179,-16],[179,-16],[179,-18]]]";
    const std::string square = "[[[0,-20,5],[2,-20,5],[2,-15,5],[0,-15,5],[0,-20,5]]]";  // with altitudes
    const std::string multi = R"({"type":"MultiPolygon","coordinates":[)" + fiji + "," + square + "]}";
    const std::string feature_a = R"({"type":"Feature","properties":{"name":"Fiji"},"geometry":{"type":"Polygon","coordinates":)" + fiji + "}}";
    const std::string feature_b = R"({"type":"Feature","properties":null,"geometry":{"type":"Polygon","coordinates":)" + square + "}}";
    const std::string collection = R"({"type":"FeatureCollection","features":[)" + feature_a + "," +
                                   R"({"type":"Feature","properties":{},"geometry":null},)" + feature_b + "]}";
    for (const std::string& text : {multi, collection}) {
        INFO(text);
        CHECK(geo_test::sorted(geo::covered_by(ix, geojson(text))) == want);
    }
    const ids fiji_only = oracle(pts, "POLYGON((178 -20,182 -20,182 -15,178 -15,178 -20),(179 -18,181 -18,181 -16,179 -16,179 -18))");
    CHECK(geo_test::sorted(geo::covered_by(ix, geojson(feature_a))) == fiji_only);
    CHECK(geo_test::sorted(geo::covered_by(ix, geojson(R"({"type":"Polygon","coordinates":)" + fiji + "}"))) == fiji_only);
    CHECK(geojson(R"({"type":"Polygon","coordinates":)" + fiji + "}").size() == 1);

    CHECK(geojson_failure("{") .find("g: invalid JSON: ") == 0);
    CHECK(geojson_failure(R"({"type":"Point","coordinates":[1,2]})") == "g: not a GeoJSON Polygon or MultiPolygon (a Point)");
    CHECK(geojson_failure("[1,2]") == "g: not a GeoJSON Polygon or MultiPolygon (a JSON array)");
    CHECK(geojson_failure(R"({"type":"FeatureCollection","features":[)" + feature_a +
                          R"(,{"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}]})") ==
          "g: features[1]: geometry is a LineString, not a Polygon or MultiPolygon");
    CHECK(geojson_failure(R"({"type":"Polygon","coordinates":[[[0,0],[1,0],[1,"x"],[0,0]]]})") ==
          "g: coordinates[0][2]: not a [lon, lat] position");
    CHECK(geojson_failure(R"({"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[0,0],[1]]]]})") ==
          "g: coordinates[1][0][1]: not a [lon, lat] position");
    CHECK(geojson_failure(R"({"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[2,2],[2,0],[0,2],[0,0]]]}})") ==
          "g: invalid polygon: it intersects itself (the outer ring crosses or touches itself)");
    CHECK(geojson_failure(R"({"type":"Polygon","coordinates":[[[0,80],[90,80],[180,80],[-90,80],[0,80]]]})").find("g: invalid polygon: a polygon ring goes round the north pole") == 0);
    CHECK(geojson_failure(R"({"type":"FeatureCollection","features":[]})") == "g: invalid polygon: it is empty");
    // The plain reader, without Boost: rings as written.
    std::istringstream in(R"({"type":"Polygon","coordinates":)" + fiji + "}");
    const io::lonlat_polygons raw = io::read_geojson_polygons(in, "raw");
    REQUIRE(raw.size() == 1);
    REQUIRE(raw[0].size() == 2);
    CHECK(raw[0][0].size() == 5);
    CHECK(raw[0][0][1].lon == -178);
    CHECK(raw[0][1][2].lat == -16);
}

}  // namespace test_io_polygons
