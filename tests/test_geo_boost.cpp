// Tests of quoct/geo_boost.hpp: polygon queries on the geographic index against brute force
// over Boost.Geometry's covered_by (bit-exact), on the world cities and on hand-made points
// on edges, vertices and holes; across the antimeridian and at the poles.
#include <catch2/catch.hpp>

#include <quoct/geo.hpp>
#include <quoct/geo_boost.hpp>

#include "test_geo_support.hpp"

#include <boost/geometry/algorithms/correct.hpp>
#include <boost/geometry/algorithms/covered_by.hpp>
#include <boost/geometry/geometries/box.hpp>
#include <boost/geometry/geometries/multi_polygon.hpp>
#include <boost/geometry/geometries/point.hpp>
#include <boost/geometry/geometries/point_xy.hpp>
#include <boost/geometry/geometries/polygon.hpp>
#include <boost/geometry/geometries/ring.hpp>
#include <boost/geometry/io/wkt/read.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

using namespace geo_test;
namespace geo = quoct::geo;
namespace bg = boost::geometry;

namespace {

using point = bg::model::point<double, 2, bg::cs::cartesian>;
using polygon = bg::model::polygon<point>;
using multi_polygon = bg::model::multi_polygon<polygon>;
using ring = bg::model::ring<point>;
using box = bg::model::box<point>;

template <class Geometry>
Geometry from_wkt(const std::string& wkt) {
    Geometry g;
    bg::read_wkt(wkt, g);
    bg::correct(g);
    return g;
}

// The documented predicate, over every point: covered_by at lon - 360, lon or lon + 360.
template <class Geometry>
ids covered_brute(const std::vector<lonlat>& pts, const Geometry& g) {
    using p_t = typename bg::point_type<Geometry>::type;
    using c_t = typename bg::coordinate_type<Geometry>::type;
    ids out;
    for (std::size_t i = 0; i < pts.size(); ++i)
        for (int k = -1; k <= 1; ++k) {
            p_t p;
            bg::set<0>(p, static_cast<c_t>(pts[i].lon + 360.0 * k));
            bg::set<1>(p, static_cast<c_t>(pts[i].lat));
            if (bg::covered_by(p, g)) {
                out.push_back(static_cast<std::uint32_t>(i));
                break;
            }
        }
    return out;
}

// A star-shaped polygon around c: n vertices at random angles and radii up to `reach`
// degrees, optionally with a star-shaped hole; longitudes may run past +-180.
polygon random_star(rng& r, lonlat c, double reach, bool hole) {
    const std::size_t n = 3 + r.below(30);
    std::vector<double> angles(n);
    for (auto& a : angles) a = r.uniform(0, 2 * geo::pi);
    std::sort(angles.begin(), angles.end());
    polygon poly;
    double nearest = reach;
    for (double a : angles) {
        const double rho = r.uniform(0.3, 1.0) * reach;
        nearest = std::min(nearest, rho);
        poly.outer().push_back(point(c.lon + rho * std::cos(a), c.lat + rho * std::sin(a)));
    }
    if (hole) {
        poly.inners().resize(1);
        for (int i = 0; i < 5; ++i) {
            const double a = 2 * geo::pi * i / 5;
            poly.inners()[0].push_back(point(c.lon + 0.25 * nearest * std::cos(a), c.lat + 0.25 * nearest * std::sin(a)));
        }
    }
    bg::correct(poly);  // closes the rings and orients them as the polygon type wants
    return poly;
}

}  // namespace

TEST_CASE("geo covered_by: edges, vertices and holes with dyadic coordinates", "[geo][polygon]") {
    // A grid whose points fall exactly on the edges and vertices below.
    std::vector<lonlat> pts;
    for (double x : {-1.0, 0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 6.25, 8.0, 8.5})
        for (double y : {-1.0, 0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 6.25, 8.0, 8.5}) pts.push_back({x, y});
    const geo::index<> ix(pts);

    const auto square = from_wkt<polygon>("POLYGON((0 0,0 8,8 8,8 0,0 0),(2 2,4 2,4 4,2 4,2 2))");
    ids want;
    for (std::uint32_t i = 0; i < pts.size(); ++i) {
        const double x = pts[i].lon, y = pts[i].lat;
        const bool in_hole_interior = 2 < x && x < 4 && 2 < y && y < 4;
        if (0 <= x && x <= 8 && 0 <= y && y <= 8 && !in_hole_interior) want.push_back(i);
    }
    CHECK(compare_ids(covered_brute(pts, square), want) == "");
    CHECK(compare_ids(geo::covered_by(ix, square), want) == "");
    CHECK(geo::count_covered_by(ix, square) == want.size());

    const auto triangle = from_wkt<polygon>("POLYGON((0 0,8 8,8 0,0 0))");  // the diagonal y = x is an edge
    want.clear();
    for (std::uint32_t i = 0; i < pts.size(); ++i)
        if (0 <= pts[i].lat && pts[i].lat <= pts[i].lon && pts[i].lon <= 8) want.push_back(i);
    CHECK(compare_ids(covered_brute(pts, triangle), want) == "");
    CHECK(compare_ids(geo::covered_by(ix, triangle), want) == "");

    const auto b = from_wkt<box>("BOX(0.5 1,6.25 5)");
    CHECK(compare_ids(geo::covered_by(ix, b), ix.in_box(0.5, 1, 6.25, 5)) == "");
    const auto rg = from_wkt<ring>("POLYGON((0 0,0 2.5,2.5 2.5,2.5 0,0 0))");
    CHECK(compare_ids(geo::covered_by(ix, rg), ix.in_box(0, 0, 2.5, 2.5)) == "");
}

TEST_CASE("geo covered_by equals brute force over covered_by on the cities", "[geo][polygon]") {
    const auto& pts = cities();
    const geo::index<> ix(pts);
    rng r(21);
    for (int i = 0; i < 16; ++i) {
        const lonlat c = pts[r.below(pts.size())];
        const polygon poly = random_star(r, {c.lon, std::max(-70.0, std::min(70.0, c.lat))}, r.uniform(0.2, 15), i % 2 == 0);
        INFO("polygon " << i << " around (" << c.lon << ", " << c.lat << ")");
        const ids got = geo::covered_by(ix, poly);
        CHECK(compare_ids(got, covered_brute(pts, poly)) == "");
        CHECK(geo::count_covered_by(ix, poly) == got.size());
    }
    // Vertices at cities and edges along their exact coordinates: those cities are on the boundary.
    for (int i = 0; i < 8; ++i) {
        const lonlat a = pts[r.below(pts.size())];
        const double w = a.lon, s = a.lat, e = a.lon + r.uniform(0.5, 5), n = a.lat + r.uniform(0.5, 5);
        polygon poly;
        for (const point& p : {point(w, s), point(w, n), point(e, n), point(e, s), point(w, s)}) poly.outer().push_back(p);
        bg::correct(poly);
        INFO("rectangle from city (" << a.lon << ", " << a.lat << ")");
        const ids got = geo::covered_by(ix, poly);
        CHECK(compare_ids(got, covered_brute(pts, poly)) == "");
        if (e <= 180 && n <= 90) CHECK(compare_ids(got, ix.in_box(w, s, e, n)) == "");
        ids vertex_hits;
        for (std::uint32_t id : got)
            if (pts[id].lon == w || pts[id].lat == s) vertex_hits.push_back(id);
        CHECK_FALSE(vertex_hits.empty());  // at least the city itself, on the corner
    }
    multi_polygon mp;
    for (int i = 0; i < 4; ++i) {
        const lonlat c = pts[r.below(pts.size())];
        mp.push_back(random_star(r, {c.lon, std::max(-70.0, std::min(70.0, c.lat))}, r.uniform(1, 8), i % 2 == 1));
    }
    CHECK(compare_ids(geo::covered_by(ix, mp), covered_brute(pts, mp)) == "");
}

TEST_CASE("geo covered_by across the antimeridian", "[geo][polygon]") {
    const auto& pts = cities();
    const geo::index<> ix(pts);
    // Fiji and Tonga: one rectangle given three ways, and the lon/lat box that is the same set.
    const auto east = from_wkt<polygon>("POLYGON((170 -25,170 -10,190 -10,190 -25,170 -25))");
    const auto west = from_wkt<polygon>("POLYGON((-190 -25,-190 -10,-170 -10,-170 -25,-190 -25))");
    const auto split = from_wkt<multi_polygon>(
        "MULTIPOLYGON(((170 -25,170 -10,180 -10,180 -25,170 -25)),((-180 -25,-180 -10,-170 -10,-170 -25,-180 -25)))");
    const ids box_ids = ix.in_box(170, -25, -170, -10);
    REQUIRE(box_ids.size() > 20);
    std::size_t west_of_180 = 0;
    for (auto id : box_ids) west_of_180 += pts[id].lon < 0 ? 1u : 0u;
    CHECK(west_of_180 > 5);  // both sides really are there
    for (const auto* g : {&east, &west}) {
        const ids got = geo::covered_by(ix, *g);
        CHECK(compare_ids(got, covered_brute(pts, *g)) == "");
        CHECK(compare_ids(got, box_ids) == "");
    }
    CHECK(compare_ids(geo::covered_by(ix, split), box_ids) == "");
    // Random stars near the antimeridian, running past it.
    rng r(22);
    for (int i = 0; i < 6; ++i) {
        const polygon poly = random_star(r, {i % 2 ? 178.0 : -178.0, r.uniform(-40, 40)}, r.uniform(3, 12), i < 3);
        CHECK(compare_ids(geo::covered_by(ix, poly), covered_brute(pts, poly)) == "");
    }
    // Hand-made points on the antimeridian itself.
    const std::vector<lonlat> line = {{180, 0}, {-180, 0}, {179.999, 0}, {-179.999, 0}, {180, 5}, {0, 0}};
    const geo::index<> il(line);
    CHECK(sorted(geo::covered_by(il, from_wkt<polygon>("POLYGON((179 -1,179 1,181 1,181 -1,179 -1))"))) == ids{0, 1, 2, 3});
    CHECK(sorted(geo::covered_by(il, from_wkt<polygon>("POLYGON((-181 -1,-181 1,-180 1,-180 -1,-181 -1))"))) == ids{0, 1, 2});
    // Edges are straight in lon/lat and never wrap by themselves: from 179.999 to -179.999 is
    // the long way round, the band between them, which has the equator points on its edge.
    CHECK(sorted(geo::covered_by(il, from_wkt<polygon>("POLYGON((179.999 -1,179.999 0,-179.999 0,-179.999 -1,179.999 -1))"))) == ids{2, 3, 5});
}

TEST_CASE("geo covered_by at the poles", "[geo][polygon]") {
    std::vector<lonlat> pts = {{0, 90}, {-180, 90}, {180, 90}, {77.7, 90}, {0, -90}, {12, 89.5}, {12, 80}, {-100, 85}};
    const auto& all = cities();
    pts.insert(pts.end(), all.begin(), all.end());
    const geo::index<> ix(pts);
    const auto cap = from_wkt<polygon>("POLYGON((-180 80,-180 90,180 90,180 80,-180 80))");
    const ids got = geo::covered_by(ix, cap);
    CHECK(compare_ids(got, covered_brute(pts, cap)) == "");
    CHECK(compare_ids(got, ix.in_box(-180, 80, 180, 90)) == "");
    const auto wedge = from_wkt<polygon>("POLYGON((0 85,0 90,90 90,90 85,0 85))");
    CHECK(sorted(geo::covered_by(ix, wedge)) == ids{0, 3, 5});
    const auto south = from_wkt<polygon>("POLYGON((-10 -95,-10 -60,10 -60,10 -95,-10 -95))");  // past the pole: lat is not checked
    CHECK(compare_ids(geo::covered_by(ix, south), covered_brute(pts, south)) == "");
    CHECK(geo::covered_by(ix, from_wkt<polygon>("POLYGON((0 91,0 95,5 95,5 91,0 91))")).empty());
}

TEST_CASE("geo covered_by: float coordinates, errors, empty geometries, early stop", "[geo][polygon][errors]") {
    const auto& pts = cities();
    const geo::index<> ix(pts);
    using fpoint = bg::model::d2::point_xy<float>;
    bg::model::polygon<fpoint> fpoly;
    bg::read_wkt("POLYGON((2.1 48.7,2.1 49.0,2.6 49.0,2.6 48.7,2.1 48.7))", fpoly);
    bg::correct(fpoly);
    CHECK(compare_ids(geo::covered_by(ix, fpoly), covered_brute(pts, fpoly)) == "");

    const double nan = std::numeric_limits<double>::quiet_NaN();
    polygon bad;
    for (const point& p : {point(0, 0), point(0, 1), point(nan, 1), point(1, 0), point(0, 0)}) bad.outer().push_back(p);
    CHECK_THROWS_AS(geo::covered_by(ix, bad), std::invalid_argument);
    CHECK_THROWS_AS(geo::covered_by(ix, from_wkt<polygon>("POLYGON((350 0,350 1,361 1,361 0,350 0))")), std::invalid_argument);
    CHECK_THROWS_AS(geo::covered_by(ix, from_wkt<box>("BOX(-400 0,0 1)")), std::invalid_argument);
    CHECK_NOTHROW(geo::covered_by(ix, from_wkt<polygon>("POLYGON((-360 0,-360 1,360 1,360 0,-360 0))")));
    CHECK(geo::covered_by(ix, polygon{}).empty());
    CHECK(geo::covered_by(ix, multi_polygon{}).empty());
    CHECK(geo::covered_by(geo::index<>{}, from_wkt<polygon>("POLYGON((0 0,0 1,1 1,1 0,0 0))")).empty());

    const auto europe = from_wkt<polygon>("POLYGON((-10 35,-10 60,30 60,30 35,-10 35))");
    std::size_t calls = 0;
    CHECK_FALSE(geo::visit_covered_by(ix, europe, [&](std::uint32_t) { return ++calls < 4; }));
    CHECK(calls == 4);
    CHECK(geo::visit_covered_by(ix, europe, [](std::uint32_t) {}));
}
