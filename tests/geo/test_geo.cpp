// Tests of quoct/geo/index.hpp: the great-circle distance against Boost.Geometry's haversine, and
// within / in_box / nearest against brute force over the index's own predicates (bit-exact)
// on the world cities and on hand-made points at the poles and the antimeridian.
#include <catch2/catch.hpp>

#include <quoct/geo/index.hpp>

#include "test_geo_support.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace test_geo {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

using namespace geo_test;
namespace geo = quoct::geo;

namespace {

const double infinity = std::numeric_limits<double>::infinity();
const double not_a_number = std::numeric_limits<double>::quiet_NaN();

bool has(const ids& v, std::uint32_t id) { return std::find(v.begin(), v.end(), id) != v.end(); }

// Hand-made points at the poles and along the antimeridian; ids are positions.
const std::vector<lonlat>& corner_points() {
    static const std::vector<lonlat> pts = {
        {0, 90},    {-180, 90},  {180, 90},       {77.7, 90},       {0, -90},   {-45, -90}, {179.999, 0},
        {-179.999, 0}, {180, 0}, {-180, 0},       {0, 89.999},      {180, 89.999}, {0, 0},
    };
    return pts;
}

// Points rejected by the haversine band check: returned although farther than r + band, or
// missing although nearer than r - band.
std::size_t band_violations(const ids& got, const std::vector<double>& hav, double r) {
    std::vector<char> in(hav.size(), 0);
    for (auto id : got) in[id] = 1;
    std::size_t bad = 0;
    const double band = rounding_band(r);
    for (std::size_t i = 0; i < hav.size(); ++i)
        if ((hav[i] <= r - band && !in[i]) || (hav[i] > r + band && in[i])) ++bad;
    return bad;
}

}  // namespace

TEST_CASE("geo::distance: poles, antimeridian, antipodes and meridians", "[geo][distance]") {
    const double R = geo::earth_radius;
    for (double lon : {-180.0, -135.5, -90.0, 0.0, 45.0, 90.0, 180.0}) {
        CHECK(geo::distance({lon, 90}, {0, 90}) == 0);
        CHECK(geo::distance({lon, -90}, {33, -90}) == 0);
        CHECK(geo::distance({lon, 90}, {lon, -90}) == geo::half_circumference);
    }
    for (double lat : {-89.5, -12.25, 0.0, 33.3, 90.0}) CHECK(geo::distance({180, lat}, {-180, lat}) == 0);
    CHECK(geo::distance({0, 0}, {180, 0}) == geo::half_circumference);
    CHECK(geo::distance({-90, 0}, {90, 0}) == geo::half_circumference);
    CHECK(geo::distance({0, 90}, {12, 0}) == geo::distance({0, 90}, {-160, 0}));  // every equator point is R pi / 2 from the pole
    // Along a meridian and the equator the distance is R * angle; the formula is good to 1e-8 m.
    for (double deg : {1e-9, 1e-6, 0.001, 0.5, 1.0, 10.0, 45.0, 89.999, 90.0}) {
        CHECK(std::abs(geo::distance({0, 0}, {0, deg}) - R * deg * geo::pi / 180) <= 1e-8);
        CHECK(std::abs(geo::distance({10, 0}, {10 + deg, 0}) - R * deg * geo::pi / 180) <= 1e-8);
    }
    CHECK(std::abs(geo::distance({0, 0}, {0, 90}) - R * geo::pi / 2) <= 1e-8);
    rng r(11);
    for (int i = 0; i < 10000; ++i) {
        const lonlat a = r.location(), b = r.location();
        const double d = geo::distance(a, b);
        CHECK(d == geo::distance(b, a));
        CHECK(geo::distance(a, a) == 0);
        CHECK(d >= 0);
        CHECK(d <= geo::half_circumference);
    }
}

TEST_CASE("geo::distance agrees with Boost.Geometry's haversine within the rounding band", "[geo][distance][boost]") {
    rng r(12);
    std::size_t outside = 0, near_antipode = 0;
    double worst_antipode = 0;
    for (int i = 0; i < 40000; ++i) {
        const lonlat a = r.location();
        lonlat b = r.location();
        switch (i % 4) {
            case 1: b = {std::max(-180.0, std::min(180.0, a.lon + r.uniform(-1e-3, 1e-3))), a.lat}; break;
            case 2: b = {a.lon, std::max(-90.0, std::min(90.0, a.lat + r.uniform(-1e-6, 1e-6)))}; break;
            case 3: b = {a.lon > 0 ? a.lon - 180 : a.lon + 180, std::max(-90.0, std::min(90.0, -a.lat + r.uniform(-0.2, 0.2)))}; break;
            default: break;
        }
        const double d = geo::distance(a, b), h = haversine(a, b);
        if (d > geo::half_circumference - 1e4) {  // the haversine degrades near the antipode
            ++near_antipode;
            worst_antipode = std::max(worst_antipode, std::abs(d - h));
        } else if (std::abs(d - h) > rounding_band(d)) {
            ++outside;
        }
    }
    CHECK(outside == 0);
    CHECK(near_antipode > 100);
    CHECK(worst_antipode <= 0.05);
    const auto& pts = cities();
    std::size_t city_outside = 0;
    for (std::size_t i = 1; i < pts.size(); ++i) {
        const double d = geo::distance(pts[i - 1], pts[i]);
        if (d <= geo::half_circumference - 1e4 && std::abs(d - haversine(pts[i - 1], pts[i])) > rounding_band(d)) ++city_outside;
    }
    CHECK(city_outside == 0);
}

TEST_CASE("geo::index::within equals brute force over distance() on the cities", "[geo][within]") {
    const auto& pts = cities();
    REQUIRE(pts.size() == 135233);
    const geo::index<> ix(pts);
    REQUIRE(ix.size() == pts.size());
    rng r(13);
    std::vector<lonlat> centres = {{0, 90}, {123, -90}, {180, -17}, {-180, 65}, {179.999, 0}, {0, 0}};
    for (int i = 0; i < 14; ++i) centres.push_back(pts[r.below(pts.size())]);
    for (int i = 0; i < 6; ++i) centres.push_back(r.location());
    const std::vector<double> radii = {0, 1, 100, 1e3, 1e4, 5e4, 1e5, 3e5, 1e6, 3e6, 1e7, 1.9e7, 2e7,
                                       geo::half_circumference - 1, geo::half_circumference, 2.5e7, infinity};
    for (const lonlat& c : centres) {
        const std::vector<double> dist = distances_from(pts, c);
        std::vector<double> hav(pts.size());
        for (std::size_t i = 0; i < pts.size(); ++i) hav[i] = haversine(c, pts[i]);
        std::vector<double> rs = radii;
        rs.push_back(dist[r.below(pts.size())]);  // through a city: it sits exactly on the boundary
        for (double radius : rs) {
            INFO("centre (" << c.lon << ", " << c.lat << "), radius " << radius);
            const ids got = ix.within(c.lon, c.lat, radius);
            CHECK(compare_ids(got, ids_within(dist, radius)) == "");
            CHECK(ix.count_within(c.lon, c.lat, radius) == got.size());
            if (radius <= geo::half_circumference - 1e4) CHECK(band_violations(got, hav, radius) == 0);
        }
    }
}

TEST_CASE("geo::index::within takes points at exactly the query distance", "[geo][within][boundary]") {
    const auto& pts = cities();
    const geo::index<> ix(pts);
    rng r(14);
    for (int i = 0; i < 100; ++i) {
        const std::uint32_t a = static_cast<std::uint32_t>(r.below(pts.size()));
        const std::uint32_t b = static_cast<std::uint32_t>(r.below(pts.size()));
        const double d = geo::distance(pts[a], pts[b]);
        INFO("cities " << a << " and " << b << ", distance " << d);
        CHECK(has(ix.within(pts[a].lon, pts[a].lat, d), b));
        if (d > 0) CHECK_FALSE(has(ix.within(pts[a].lon, pts[a].lat, std::nextafter(d, 0.0)), b));
    }
    // Along a meridian: (0, 0) to (0, lat) is R lat pi / 180; the point at exactly that distance is in.
    std::vector<lonlat> meridian;
    for (double lat = -90; lat <= 90; lat += 0.375) meridian.push_back({0, lat});
    const geo::index<> m(meridian);
    for (std::uint32_t i = 0; i < meridian.size(); ++i) {
        const double d = geo::distance({0, 0}, meridian[i]);
        INFO("lat " << meridian[i].lat << ", distance " << d);
        CHECK(std::abs(d - geo::earth_radius * std::abs(meridian[i].lat) * geo::pi / 180) <= 1e-8);
        const ids got = m.within(0, 0, d);
        CHECK(has(got, i));
        CHECK(compare_ids(got, ids_within(distances_from(meridian, {0, 0}), d)) == "");
    }
}

TEST_CASE("geo::index::within at the poles and across the antimeridian", "[geo][within]") {
    const auto& pts = corner_points();
    const geo::index<> ix(pts);
    for (double lon : {-180.0, -3.5, 0.0, 77.7, 180.0}) {
        CHECK(sorted(ix.within(lon, 90, 0)) == ids{0, 1, 2, 3});
        CHECK(sorted(ix.within(lon, -90, 0)) == ids{4, 5});
        CHECK(sorted(ix.within(lon, 90, 112)) == ids{0, 1, 2, 3, 10, 11});  // 0.001 degree is 111.2 m
    }
    CHECK(sorted(ix.within(180, 0, 0)) == ids{8, 9});
    CHECK(sorted(ix.within(-180, 0, 0)) == ids{8, 9});
    CHECK(sorted(ix.within(180, 0, 112)) == ids{6, 7, 8, 9});
    CHECK(sorted(ix.within(179.999, 0, 223)) == ids{6, 7, 8, 9});  // 0.002 degree is 222.4 m
    CHECK(sorted(ix.within(179.999, 0, 222)) == ids{6, 8, 9});
    // Every equator point is exactly R pi / 2 from either pole.
    const double quarter = geo::distance({0, 90}, {0, 0});
    CHECK(sorted(ix.within(0, 90, quarter)) == ids{0, 1, 2, 3, 6, 7, 8, 9, 10, 11, 12});
    CHECK(sorted(ix.within(0, 90, std::nextafter(quarter, 0.0))) == ids{0, 1, 2, 3, 10, 11});
    CHECK(ix.within(0, 90, geo::half_circumference).size() == pts.size());
    for (const lonlat& c : pts)
        for (double radius : {0.0, 50.0, 112.0, 223.0, 1e5, quarter, 1.5e7})
            CHECK(compare_ids(ix.within(c.lon, c.lat, radius), ids_within(distances_from(pts, c), radius)) == "");
}

TEST_CASE("geo::index::in_box equals brute force on the cities", "[geo][box]") {
    const auto& pts = cities();
    const geo::index<> ix(pts);
    rng r(15);
    struct box4 {
        double west, south, east, north;
    };
    std::vector<box4> boxes = {{-180, -90, 180, 90}, {180, -90, -180, 90}, {-180, -90, -180, 90}, {180, -90, 180, 90},
                               {170, -30, -170, 0},  {-10, 35, 30, 60},   {0, -90, 0, 90},       {-180, 60, 180, 90},
                               {-180, -90, 180, -50}};
    for (int i = 0; i < 60; ++i) {  // random, about half of them across the antimeridian
        const double s = r.uniform(-90, 90), n = r.uniform(-90, 90);
        boxes.push_back({r.uniform(-180, 180), std::min(s, n), r.uniform(-180, 180), std::max(s, n)});
    }
    for (int i = 0; i < 60; ++i) {  // bounds through cities: those cities sit on the boundary
        const lonlat a = pts[r.below(pts.size())], b = pts[r.below(pts.size())];
        boxes.push_back({a.lon, std::min(a.lat, b.lat), b.lon, std::max(a.lat, b.lat)});
        if (i % 4 == 0) boxes.push_back({a.lon, a.lat, a.lon, a.lat});  // a degenerate box: one location
        if (i % 4 == 1) boxes.push_back({a.lon, -90, a.lon, 90});       // one meridian
    }
    for (const box4& b : boxes) {
        INFO("box " << b.west << ", " << b.south << ", " << b.east << ", " << b.north);
        const ids got = ix.in_box(b.west, b.south, b.east, b.north);
        CHECK(compare_ids(got, ids_in_box(pts, b.west, b.south, b.east, b.north)) == "");
        CHECK(ix.count_in_box(b.west, b.south, b.east, b.north) == got.size());
    }
}

TEST_CASE("geo::index::in_box across the antimeridian and at the poles", "[geo][box]") {
    const auto& pts = corner_points();
    const geo::index<> ix(pts);
    CHECK(sorted(ix.in_box(179.99, -1, -179.99, 1)) == ids{6, 7, 8, 9});
    CHECK(sorted(ix.in_box(-179.99, -1, 179.99, 1)) == ids{12});
    CHECK(sorted(ix.in_box(170, -1, 180, 1)) == ids{6, 8});   // lon -180 is a different value
    CHECK(sorted(ix.in_box(-180, -1, -170, 1)) == ids{7, 9});
    CHECK(sorted(ix.in_box(170, -1, -180, 1)) == ids{6, 8, 9});
    CHECK(sorted(ix.in_box(180, -90, -180, 90)) == ids{1, 2, 8, 9, 11});
    CHECK(sorted(ix.in_box(-180, 89.9, 180, 90)) == ids{0, 1, 2, 3, 10, 11});
    CHECK(sorted(ix.in_box(0, 90, 0, 90)) == ids{0});  // longitudes as stored, even at the pole
    CHECK(sorted(ix.in_box(-180, -90, 180, -90)) == ids{4, 5});
    CHECK(ix.in_box(-180, -90, 180, 90).size() == pts.size());
}

TEST_CASE("geo::index::nearest equals the brute-force order by (distance, id)", "[geo][nearest]") {
    const auto& pts = cities();
    const geo::index<> ix(pts);
    rng r(16);
    std::vector<lonlat> centres = {{0, 90}, {-180, -90}, {180, 0}, {-179.99, -16.5}};
    for (int i = 0; i < 8; ++i) centres.push_back(pts[r.below(pts.size())]);
    for (int i = 0; i < 8; ++i) centres.push_back(r.location());
    for (const lonlat& c : centres) {
        const std::vector<double> dist = distances_from(pts, c);
        for (std::size_t k : {1, 2, 10, 100, 2000}) {
            INFO("centre (" << c.lon << ", " << c.lat << "), k " << k);
            const auto got = ix.nearest(c.lon, c.lat, k);
            const auto want = nearest_brute(dist, k);
            REQUIRE(got.size() == want.size());
            std::size_t differ = 0;
            for (std::size_t i = 0; i < got.size(); ++i)
                differ += (got[i].id != want[i].id || got[i].distance != want[i].distance) ? 1u : 0u;
            CHECK(differ == 0);
        }
    }
}

TEST_CASE("geo::index::nearest with a radius keeps the first k of within()'s points", "[geo][nearest]") {
    const auto& pts = cities();
    const geo::index<> ix(pts);
    rng r(17);
    std::vector<lonlat> centres = {{0, 90}, {180, 0}, {-179.99, -16.5}};
    for (int i = 0; i < 4; ++i) centres.push_back(pts[r.below(pts.size())]);
    for (const lonlat& c : centres) {
        const std::vector<double> dist = distances_from(pts, c);
        const auto by_distance = nearest_brute(dist, dist.size());
        // Radii on a point's distance exactly (boundary points count), between, and beyond.
        for (const double metres : {0.0, by_distance[5].distance, by_distance[300].distance, 1e3, 2e6,
                                    geo::half_circumference, std::numeric_limits<double>::infinity()}) {
            for (std::size_t k : {1, 10, 2000}) {
                INFO("centre (" << c.lon << ", " << c.lat << "), metres " << metres << ", k " << k);
                std::vector<geo::neighbor<std::uint32_t>> got;
                ix.nearest(c.lon, c.lat, k, metres, got);
                std::vector<geo::neighbor<std::uint32_t>> want;
                for (const auto& n : by_distance)
                    if (want.size() < k && (n.distance <= metres || metres >= geo::half_circumference)) want.push_back(n);
                REQUIRE(got.size() == want.size());
                for (std::size_t i = 0; i < got.size(); ++i) {
                    CHECK(got[i].id == want[i].id);
                    CHECK(got[i].distance == want[i].distance);
                }
                CHECK(got.size() == std::min(k, ix.count_within(c.lon, c.lat, metres)));
            }
        }
    }
    std::vector<geo::neighbor<std::uint32_t>> out;
    CHECK_THROWS_AS(ix.nearest(0, 0, 1, -1.0, out), std::invalid_argument);
    CHECK_THROWS_AS(ix.nearest(0, 0, 1, std::numeric_limits<double>::quiet_NaN(), out), std::invalid_argument);
    CHECK_THROWS_AS(ix.nearest(0, 0, 0, 10.0, out), std::invalid_argument);
}

TEST_CASE("geo::index::nearest orders exact ties by id", "[geo][nearest]") {
    // Exact ties: duplicates, the four points one degree from (0, 0) on the axes (their unit
    // vectors differ from (1, 0, 0) by the same components, in other places), and all points
    // at one pole.
    const std::vector<lonlat> pts = {{0, 1},  {5, 5}, {1, 0},  {0, 0},  {-1, 0}, {0, -1}, {0, 0},
                                     {0, 90}, {0, 0}, {90, 90}, {-180, 90}, {2, 2}, {0, 1}};
    const geo::index<> ix(pts);
    const auto got = ix.nearest(0, 0, 8);
    const std::vector<std::uint32_t> want = {3, 6, 8, 0, 2, 4, 5, 12};
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) CHECK(got[i].id == want[i]);
    CHECK(got[0].distance == 0);
    CHECK(got[3].distance == got[7].distance);
    const auto poles = ix.nearest(45, 90, 3);
    REQUIRE(poles.size() == 3);
    CHECK(poles[0].id == 7);
    CHECK(poles[1].id == 9);
    CHECK(poles[2].id == 10);
    CHECK(poles[2].distance == 0);
    CHECK(ix.nearest(0, 0, 100).size() == pts.size());  // k > size: all of them
    const auto all = ix.nearest(3, -7, 100);
    const auto want_all = nearest_brute(distances_from(pts, {3, -7}), 100);
    for (std::size_t i = 0; i < all.size(); ++i) CHECK(all[i].id == want_all[i].id);
}

TEST_CASE("geo::index rejects bad input and bad queries", "[geo][errors]") {
    for (const lonlat& bad : {lonlat{180.5, 0}, lonlat{-181, 0}, lonlat{0, 90.01}, lonlat{0, -91}, lonlat{not_a_number, 0},
                              lonlat{0, not_a_number}, lonlat{infinity, 0}, lonlat{0, -infinity}}) {
        const std::vector<lonlat> pts = {{0, 0}, bad};
        CHECK_THROWS_AS(geo::index<>(pts), std::invalid_argument);
        CHECK_THROWS_AS(geo::distance({0, 0}, bad), std::invalid_argument);
        CHECK_THROWS_AS(geo::distance(bad, {0, 0}), std::invalid_argument);
    }
    const std::vector<lonlat> edge = {{-180, -90}, {180, 90}, {0, 0}};
    const geo::index<> ix(edge);
    CHECK_NOTHROW(ix.within(0, 0, infinity));
    CHECK(ix.within(0, 0, infinity).size() == 3);
    CHECK_THROWS_AS(ix.within(180.5, 0, 1), std::invalid_argument);
    CHECK_THROWS_AS(ix.within(0, not_a_number, 1), std::invalid_argument);
    CHECK_THROWS_AS(ix.within(0, 0, -1), std::invalid_argument);
    CHECK_THROWS_AS(ix.within(0, 0, not_a_number), std::invalid_argument);
    CHECK_THROWS_AS(ix.count_within(0, 0, -1e-300), std::invalid_argument);
    CHECK_THROWS_AS(ix.in_box(0, 10, 1, 5), std::invalid_argument);  // south > north
    CHECK_THROWS_AS(ix.in_box(-181, 0, 1, 5), std::invalid_argument);
    CHECK_THROWS_AS(ix.in_box(0, 0, 181, 5), std::invalid_argument);
    CHECK_THROWS_AS(ix.in_box(0, -91, 1, 5), std::invalid_argument);
    CHECK_THROWS_AS(ix.in_box(0, 0, 1, not_a_number), std::invalid_argument);
    CHECK_THROWS_AS(ix.nearest(0, 0, 0), std::invalid_argument);
    CHECK_THROWS_AS(ix.nearest(0, 95, 1), std::invalid_argument);
    const auto nothing = [](std::uint32_t) {};
    CHECK_THROWS_AS(ix.visit_candidates(not_a_number, 10, 0, 1, nothing), std::invalid_argument);
    CHECK_THROWS_AS(ix.visit_candidates(0, -1, 0, 1, nothing), std::invalid_argument);
    CHECK_THROWS_AS(ix.visit_candidates(0, 10, 2, 1, nothing), std::invalid_argument);
    quoct::build_options bad_options;
    bad_options.leaf_size = 0;
    CHECK_THROWS_AS(geo::index<>(edge, bad_options), std::invalid_argument);
}

TEST_CASE("geo::index: empty index, early stop, 64-bit ids", "[geo]") {
    const geo::index<> none;
    CHECK(none.empty());
    CHECK(none.within(0, 0, 1e6).empty());
    CHECK(none.within(0, 0, infinity).empty());
    CHECK(none.in_box(-180, -90, 180, 90).empty());
    CHECK(none.nearest(0, 0, 5).empty());
    const std::vector<lonlat> no_points;
    CHECK(geo::index<>(no_points).size() == 0);

    const auto& pts = cities();
    const geo::index<> ix(pts);
    for (double radius : {5e5, infinity}) {
        std::size_t calls = 0;
        CHECK_FALSE(ix.visit_within(2.35, 48.85, radius, [&](std::uint32_t) { return ++calls < 3; }));
        CHECK(calls == 3);
    }
    std::size_t calls = 0;
    CHECK_FALSE(ix.visit_in_box(-10, 35, 30, 60, [&](std::uint32_t) { return ++calls < 5; }));
    CHECK(calls == 5);
    CHECK(ix.visit_in_box(-10, 35, 30, 60, [](std::uint32_t) { return true; }));

    const geo::index<std::uint64_t> wide(pts);
    const auto a = ix.within(-74.0, 40.7, 2e5);
    const auto b = wide.within(-74.0, 40.7, 2e5);
    CHECK(compare_ids(a, ids(b.begin(), b.end())) == "");
    CHECK(ix.location(17).lon == pts[17].lon);
    CHECK(ix.memory_bytes() > pts.size() * sizeof(lonlat));
}

}  // namespace test_geo
