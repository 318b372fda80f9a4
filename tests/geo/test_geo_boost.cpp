// Tests of quoct/geo/polygons.hpp: polygon queries on the geographic index against brute force
// over Boost.Geometry's covered_by (bit-exact), on the world cities and on hand-made points
// on edges, vertices and holes; across the antimeridian and at the poles.
#include <catch2/catch.hpp>

#include <quoct/geo/index.hpp>
#include <quoct/geo/polygons.hpp>

#include "test_geo_support.hpp"

#include <boost/geometry/algorithms/correct.hpp>
#include <boost/geometry/algorithms/covered_by.hpp>
#include <boost/geometry/algorithms/equals.hpp>
#include <boost/geometry/algorithms/for_each.hpp>
#include <boost/geometry/algorithms/reverse.hpp>
#include <boost/geometry/util/math.hpp>
#include <boost/geometry/geometries/box.hpp>
#include <boost/geometry/geometries/multi_polygon.hpp>
#include <boost/geometry/geometries/point.hpp>
#include <boost/geometry/geometries/point_xy.hpp>
#include <boost/geometry/geometries/polygon.hpp>
#include <boost/geometry/geometries/ring.hpp>
#include <boost/geometry/io/wkt/read.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace test_geo_boost {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

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

// The test's own reading of the longitude rules: each ring continuous from its first
// vertex (a step of more than 180 and less than 360 degrees goes the other way round),
// each hole moved by a multiple of 360 to the shell's middle, then corrected (orientation)
// when anything moved.
template <class Ring>
bool unwrap_ring_plain(Ring& r, double shift, double& lo, double& hi) {
    std::vector<double> given;
    for (const auto& p : r) given.push_back(bg::get<0>(p));
    double add = shift;
    lo = 1e300, hi = -1e300;
    for (std::size_t i = 0; i < given.size(); ++i) {
        const double d = i == 0 ? 0 : given[i] - given[i - 1];
        if (180 < d && d < 360) add -= 360;
        if (-360 < d && d < -180) add += 360;
        bg::set<0>(r[i], given[i] + add);
        lo = std::min(lo, given[i] + add), hi = std::max(hi, given[i] + add);
    }
    return add != 0;
}
inline bool unwrap_plain(polygon& p) {
    double lo, hi, hlo, hhi;
    bool moved = unwrap_ring_plain(p.outer(), 0, lo, hi);
    for (auto& hole : p.inners()) {
        moved = unwrap_ring_plain(hole, 0, hlo, hhi) || moved;
        const double k = std::round(((lo + hi) / 2 - (hlo + hhi) / 2) / 360);
        if (k != 0) moved = unwrap_ring_plain(hole, 360 * k, hlo, hhi) || true;
    }
    return moved;
}
inline bool unwrap_plain(multi_polygon& mp) {
    bool moved = false;
    for (auto& p : mp) moved = unwrap_plain(p) || moved;
    return moved;
}
[[maybe_unused]] inline bool unwrap_plain(ring& r) {
    double lo, hi;
    return unwrap_ring_plain(r, 0, lo, hi);
}
template <class Geometry>
bool unwrap_plain(Geometry&) {  // boxes and float polygons here never cross lon 180
    return false;
}

// lo <= v <= hi, or v equal to an end by Boost.Geometry's own tolerant comparison.
template <class T>
bool in_range_boost(T v, T lo, T hi) {
    return (lo <= v && v <= hi) || bg::math::equals(v, lo) || bg::math::equals(v, hi);
}

// The extent of a geometry's vertices, {min x, min y, max x, max y} (bg::envelope would
// do, but GCC 12 warns about Boost's uninitialised box inside it).
template <class Geometry>
std::array<typename bg::coordinate_type<Geometry>::type, 4> extent_plain(const Geometry& g) {
    using c_t = typename bg::coordinate_type<Geometry>::type;
    const c_t inf = std::numeric_limits<c_t>::infinity();
    std::array<c_t, 4> e{{inf, inf, -inf, -inf}};
    if constexpr (std::is_same<typename bg::tag<Geometry>::type, bg::box_tag>::value) {
        e = {{bg::get<bg::min_corner, 0>(g), bg::get<bg::min_corner, 1>(g), bg::get<bg::max_corner, 0>(g),
              bg::get<bg::max_corner, 1>(g)}};
    } else {
        bg::for_each_point(g, [&e](const typename bg::point_type<Geometry>::type& p) {
            e[0] = std::min(e[0], bg::get<0>(p)), e[1] = std::min(e[1], bg::get<1>(p));
            e[2] = std::max(e[2], bg::get<0>(p)), e[3] = std::max(e[3], bg::get<1>(p));
        });
    }
    return e;
}

// The documented predicate, over every point: the geometry unwrapped, then covered_by at
// lon + 360 k for some k, inside the geometry's envelope as Boost.Geometry compares.
template <class Geometry>
ids covered_brute(const std::vector<lonlat>& pts, const Geometry& given) {
    using p_t = typename bg::point_type<Geometry>::type;
    using c_t = typename bg::coordinate_type<Geometry>::type;
    Geometry g = given;
    if (unwrap_plain(g)) bg::correct(g);
    const auto env = extent_plain(g);
    ids out;
    for (std::size_t i = 0; i < pts.size(); ++i)
        for (int k = -3; k <= 3; ++k) {
            p_t p;
            bg::set<0>(p, static_cast<c_t>(pts[i].lon + 360.0 * k));
            bg::set<1>(p, static_cast<c_t>(pts[i].lat));
            if (in_range_boost(bg::get<0>(p), env[0], env[2]) && in_range_boost(bg::get<1>(p), env[1], env[3]) &&
                bg::covered_by(p, g)) {
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
    // An edge from 179.999 to -179.999 crosses lon 180 the short way (RFC 7946), so this is
    // the thin box across it, with the equator points on its edge, and not the band between.
    const polygon thin = from_wkt<polygon>("POLYGON((179.999 -1,179.999 0,-179.999 0,-179.999 -1,179.999 -1))");
    CHECK(sorted(geo::covered_by(il, thin)) == ids{0, 1, 2, 3});
    CHECK(compare_ids(geo::covered_by(il, thin), covered_brute(line, thin)) == "");
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
    CHECK_THROWS_AS(geo::covered_by(ix, from_wkt<polygon>("POLYGON((-360 0,-360 1,360 1,360 0,-360 0))")), std::invalid_argument);
    CHECK(compare_ids(geo::covered_by(ix, from_wkt<polygon>("POLYGON((-190 0,-190 1,170 1,170 0,-190 0))")),
                      ix.in_box(-180, 0, 180, 1)) == "");  // 360 wide: every longitude
    CHECK(geo::covered_by(ix, polygon{}).empty());
    CHECK(geo::covered_by(ix, multi_polygon{}).empty());
    CHECK(geo::covered_by(geo::index<>{}, from_wkt<polygon>("POLYGON((0 0,0 1,1 1,1 0,0 0))")).empty());

    const auto europe = from_wkt<polygon>("POLYGON((-10 35,-10 60,30 60,30 35,-10 35))");
    std::size_t calls = 0;
    CHECK_FALSE(geo::visit_covered_by(ix, europe, [&](std::uint32_t) { return ++calls < 4; }));
    CHECK(calls == 4);
    CHECK(geo::visit_covered_by(ix, europe, [](std::uint32_t) {}));
}

TEST_CASE("geo covered_by keeps the points Boost.Geometry puts on an axis-aligned edge", "[geo][polygon][edges]") {
    // Boost.Geometry compares x coordinates with a relative tolerance (math::equals), so it
    // puts a point 1e-15 degrees outside a vertical edge on that edge (not so for horizontal
    // edges, whose side test is tighter). Each edge of the rectangle [10, 11] x [45, 46] is
    // moved one ulp outwards or inwards in turn.
    const double w = 10, e = 11, s = 45, n = 46;
    for (int side = 0; side < 4; ++side)
        for (const double toward : {-1.0, 1.0}) {
            double lo_x = w, hi_x = e, lo_y = s, hi_y = n;
            double& moved = side == 0 ? lo_x : side == 1 ? hi_x : side == 2 ? lo_y : hi_y;
            moved = std::nextafter(moved, moved + toward);
            polygon poly;
            for (const point& p : {point(lo_x, lo_y), point(lo_x, hi_y), point(hi_x, hi_y), point(hi_x, lo_y), point(lo_x, lo_y)})
                poly.outer().push_back(p);
            bg::correct(poly);
            // Points on the unmoved edge lines, one of them half-way along each edge.
            const std::vector<lonlat> pts = {{w, 45.0005}, {e, 45.5}, {10.5, s}, {10.25, n}, {w, s}, {e, n}, {10.5, 45.5}};
            // All lie within Boost's tolerance of the envelope, so the answer is covered_by's.
            ids want;
            for (std::uint32_t i = 0; i < pts.size(); ++i)
                if (bg::covered_by(point(pts[i].lon, pts[i].lat), poly)) want.push_back(i);
            INFO("side " << side << ", moved " << (toward > 0 ? "up" : "down"));
            CHECK(compare_ids(covered_brute(pts, poly), want) == "");
            // The case: west edge at nextafter(10, 11), and Boost takes (10, 45.0005).
            if (side == 0 && toward > 0) REQUIRE(want.size() == pts.size());
            const geo::index<> ix(pts);
            CHECK(compare_ids(geo::covered_by(ix, poly), want) == "");
            CHECK(geo::count_covered_by(ix, poly) == want.size());
        }
    // Boost also takes a point 0.001 degrees above the top of a steep edge 1e-13 wide, far
    // outside the polygon's extent; the documented predicate leaves it out.
    polygon steep;
    for (const point& p : {point(0, 0), point(1e-13, 0.01), point(1, 0.01), point(1, 0), point(0, 0)}) steep.outer().push_back(p);
    bg::correct(steep);
    const std::vector<lonlat> off = {{1e-13 - 3e-16, 0.011}, {0.5, 0.01}, {0.5, 0.011}};
    REQUIRE(bg::covered_by(point(off[0].lon, off[0].lat), steep));
    const geo::index<> io(off);
    CHECK(sorted(geo::covered_by(io, steep)) == ids{1});
    CHECK(compare_ids(covered_brute(off, steep), ids{1}) == "");
}

namespace {

// Longitudes past 180 or -180 brought back into [-180, 180] (exact for these values).
template <class Geometry>
Geometry wrapped(Geometry g) {
    bg::for_each_point(g, [](point& p) {
        const double x = bg::get<0>(p);
        bg::set<0>(p, x > 180 ? x - 360 : x < -180 ? x + 360 : x);
    });
    return g;
}

template <class Geometry>
Geometry reversed(Geometry g) {
    bg::reverse(g);
    return g;
}

}  // namespace

TEST_CASE("geo covered_by: edges more than 180 degrees wide cross lon 180 the short way", "[geo][polygon][antimeridian]") {
    // Dyadic points on and around the Fiji box [178, 182] x [-20, -15] with a hole
    // [179, 181] x [-18, -16], on both sides of lon 180: the answer by hand, unwrapped.
    std::vector<lonlat> pts;
    for (double x : {177.5, 178.0, 178.5, 179.0, 179.5, 180.0, -180.0, -179.5, -179.0, -178.5, -178.0, -177.5, 0.0, 2.0})
        for (double y : {-20.5, -20.0, -19.0, -18.0, -17.0, -16.0, -15.5, -15.0, -14.5}) pts.push_back({x, y});
    const geo::index<> ix(pts);
    ids want_box, want_holed;
    for (std::uint32_t i = 0; i < pts.size(); ++i) {
        const double x = pts[i].lon < 0 ? pts[i].lon + 360 : pts[i].lon, y = pts[i].lat;
        if (178 <= x && x <= 182 && -20 <= y && y <= -15) {
            want_box.push_back(i);
            if (!(179 < x && x < 181 && -18 < y && y < -16)) want_holed.push_back(i);
        }
    }
    // The polygon, both orientations, and the same starting west of lon 180.
    for (const char* wkt : {"POLYGON((178 -20, -178 -20, -178 -15, 178 -15, 178 -20))",
                            "POLYGON((178 -20, 178 -15, -178 -15, -178 -20, 178 -20))",
                            "POLYGON((-178 -15, 178 -15, 178 -20, -178 -20, -178 -15))"}) {
        polygon poly;
        bg::read_wkt(wkt, poly);  // not corrected: covered_by corrects what it unwraps
        INFO(wkt);
        CHECK(compare_ids(geo::covered_by(ix, poly), want_box) == "");
        CHECK(compare_ids(covered_brute(pts, poly), want_box) == "");
        bg::correct(poly);  // corrected wrapped, so wrongly: covered_by corrects it again
        CHECK(compare_ids(geo::covered_by(ix, poly), want_box) == "");
    }
    // With a hole given from either side of lon 180, in a polygon and a multipolygon.
    for (const char* hole : {"(179 -18, -179 -18, -179 -16, 179 -16, 179 -18)", "(-179 -16, 179 -16, 179 -18, -179 -18, -179 -16)"}) {
        const auto poly = from_wkt<polygon>(std::string("POLYGON((178 -20, -178 -20, -178 -15, 178 -15, 178 -20),") + hole + ")");
        INFO(hole);
        CHECK(compare_ids(geo::covered_by(ix, poly), want_holed) == "");
        CHECK(compare_ids(covered_brute(pts, poly), want_holed) == "");
        const auto mp = from_wkt<multi_polygon>(std::string("MULTIPOLYGON(((178 -20, -178 -20, -178 -15, 178 -15, 178 -20),") +
                                                hole + "),((0 -20, 2 -20, 2 -15, 0 -15, 0 -20)))");
        ids want_mp = want_holed;
        for (std::uint32_t i = 0; i < pts.size(); ++i)
            if (0 <= pts[i].lon && pts[i].lon <= 2 && -20 <= pts[i].lat && pts[i].lat <= -15) want_mp.push_back(i);
        CHECK(compare_ids(geo::covered_by(ix, mp), want_mp) == "");
        CHECK(compare_ids(covered_brute(pts, mp), want_mp) == "");
    }
    // A bare ring, and the same box given continuous (unchanged meaning).
    ring rg;
    bg::read_wkt("POLYGON((-178 -20, 178 -20, 178 -15, -178 -15, -178 -20))", rg);
    CHECK(compare_ids(geo::covered_by(ix, rg), want_box) == "");
    CHECK(compare_ids(geo::covered_by(ix, from_wkt<polygon>("POLYGON((178 -20,182 -20,182 -15,178 -15,178 -20))")), want_box) == "");
}

TEST_CASE("geo covered_by: random polygons across lon 180, wrapped, against the unwrapped oracle", "[geo][polygon][antimeridian]") {
    std::vector<lonlat> pts = cities();
    rng r(23);
    for (int i = 0; i < 3000; ++i) pts.push_back({r.uniform(-180, 180), r.uniform(-60, 60)});  // synthetic, near or not
    for (int i = 0; i < 3000; ++i) pts.push_back({r.uniform(-0.5, 0.5) + (i % 2 ? 179.5 : -179.5), r.uniform(-50, 50)});
    const geo::index<> ix(pts);
    for (int i = 0; i < 12; ++i) {
        const polygon continuous = random_star(r, {i % 2 ? 178.0 : -178.0, r.uniform(-40, 40)}, r.uniform(3, 12), i % 3 == 0);
        const polygon given = wrapped(continuous);
        INFO("polygon " << i);
        const ids got = geo::covered_by(ix, given);
        CHECK(compare_ids(got, covered_brute(pts, given)) == "");
        CHECK(compare_ids(got, covered_brute(pts, continuous)) == "");
        CHECK(compare_ids(geo::covered_by(ix, reversed(given)), got) == "");
        CHECK(geo::count_covered_by(ix, given) == got.size());
    }
    multi_polygon mp;
    for (int i = 0; i < 4; ++i) mp.push_back(wrapped(random_star(r, {i % 2 ? 179.0 : -179.0, r.uniform(-40, 40)}, r.uniform(2, 8), i < 2)));
    CHECK(compare_ids(geo::covered_by(ix, mp), covered_brute(pts, mp)) == "");
}

TEST_CASE("geo covered_by: rings round a pole and polygons wider than 360 degrees are refused", "[geo][polygon][antimeridian][errors]") {
    const auto& pts = cities();
    const geo::index<> ix(pts);
    const auto fails = [&](const char* wkt) {
        polygon poly;
        bg::read_wkt(wkt, poly);
        try {
            geo::covered_by(ix, poly);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(fails("POLYGON((0 80, 90 80, 180 80, -90 80, 0 80))").find("goes round the north pole") != std::string::npos);
    CHECK(fails("POLYGON((0 -80, -90 -80, -180 -80, 90 -80, 0 -80))").find("goes round the south pole") != std::string::npos);
    CHECK(fails("POLYGON((0 0, 0 1, 360 1, 361 0, 0 0))").find("[-360, 360]") != std::string::npos);
    CHECK(fails("POLYGON((-200 0, -200 1, 170 1, 170 0, -200 0))").find("wider than 360") != std::string::npos);
    // A pole edge whose ends are within a few ulps of +-180 (as shapely writes Natural
    // Earth's Antarctica: 180 to -179.99999999999994) closes the ring as the exact edge does:
    // everything south of -50. 1e-9 degrees off is another meridian: the pole edge is short,
    // and the ring goes round the pole.
    const auto south_of_50 = [](double west) {
        polygon cap;
        // As Natural Earth's Antarctica runs: down lon 180 to the pole, along it, up the
        // other name of the meridian, then east round the parallel back to the start.
        for (const point& p : {point(180, -50), point(180, -90), point(west, -90), point(west, -50), point(-90, -50),
                               point(0, -50), point(90, -50), point(180, -50)})
            bg::append(cap.outer(), p);
        bg::correct(cap);
        return cap;
    };
    const auto cap_ids = ix.in_box(-180, -90, 180, -50);
    REQUIRE(cap_ids.size() > 3);  // Ushuaia, Punta Arenas, ...
    const double near_180 = std::nextafter(std::nextafter(-180.0, 0.0), 0.0);  // -179.99999999999994
    for (double west : {-180.0, near_180, std::nextafter(-180.0, 0.0)}) {
        INFO("west " << west);
        CHECK(compare_ids(geo::covered_by(ix, south_of_50(west)), cap_ids) == "");
    }
    CHECK_THROWS_WITH(geo::covered_by(ix, south_of_50(-179.999999999)), Catch::Matchers::Contains("goes round the south pole"));
    // Away from the poles the tolerance does not apply: an edge from 180 to a few ulps off
    // -180 at latitude 1 to 2 is short, and this ring a small polygon across lon 180.
    CHECK(fails("POLYGON((179 0, 180 1, -179.99999999999994 2, -179 1, 179 0))") == "no error");
    // Closed along the pole instead: the cap, whichever way the pole edge is written.
    for (const char* cap : {"POLYGON((-180 80, -180 90, 180 90, 180 80, -180 80))",
                            "POLYGON((-180 80, 0 80, 180 80, 180 90, -180 90, -180 80))",
                            "POLYGON((180 80, -180 80, -180 90, 180 90, 180 80))"}) {
        INFO(cap);
        CHECK(compare_ids(geo::covered_by(ix, from_wkt<polygon>(cap)), ix.in_box(-180, 80, 180, 90)) == "");
    }
}

TEST_CASE("geo unwrap_longitudes: what covered_by tests, unchanged on error", "[geo][polygon][antimeridian]") {
    auto poly = from_wkt<polygon>("POLYGON((178 -20, -178 -20, -178 -15, 178 -15, 178 -20),(-179 -16, 179 -16, 179 -18, -179 -18, -179 -16))");
    auto plain = poly;
    CHECK(unwrap_plain(plain));
    CHECK(geo::unwrap_longitudes(poly));
    CHECK(bg::equals(poly, plain));
    CHECK(extent_plain(poly)[0] == 178);
    CHECK(extent_plain(poly)[2] == 182);
    const auto again = poly;
    CHECK_FALSE(geo::unwrap_longitudes(poly));  // nothing left to move
    CHECK(bg::equals(poly, again));
    auto round = from_wkt<polygon>("POLYGON((0 80, 90 80, 180 80, -90 80, 0 80))");
    const auto before = round;
    CHECK_THROWS_AS(geo::unwrap_longitudes(round), std::invalid_argument);
    CHECK(bg::equals(round, before));
    auto square = from_wkt<box>("BOX(170 0,190 5)");
    CHECK_FALSE(geo::unwrap_longitudes(square));
}

}  // namespace test_geo_boost
