// Tests of the geometry kernel (quoct/shapes.hpp): every predicate against Boost.Geometry
// and against brute force over corners and sample points, on random data (general values
// compared within a few ulps, grid values k/4 that must agree exactly) and on hand-made
// edge cases: tangency, zero-size boxes, zero radius, centres inside and on faces. Three
// named regression tests pin the classic mistakes in circle-rectangle write-ups.
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace test_geometry {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

using namespace quoct_test;
namespace bg = boost::geometry;

// Values on the grid k/4, |k| <= 24: sums of a few squares of differences are exact in
// float and double, so every reference must agree bit for bit.
template <class T>
T grid_value(rng& r) {
    return static_cast<T>(r.integer(-24, 24)) / T(4);
}

// Values in (-1000, 1000) at scales from 1e-2 up: rounding happens, references may differ
// in the last bits.
template <class T>
T general_value(rng& r) {
    return static_cast<T>(r.uniform(-1, 1) * std::pow(10.0, static_cast<double>(r.integer(-2, 3))));
}

template <class T, std::size_t D>
quoct::point<T, D> random_point(rng& r, bool grid) {
    quoct::point<T, D> p;
    for (std::size_t a = 0; a < D; ++a) p[a] = grid ? grid_value<T>(r) : general_value<T>(r);
    return p;
}

// A valid box; some axes (and sometimes all) have zero extent.
template <class T, std::size_t D>
quoct::box<T, D> random_box(rng& r, bool grid) {
    const auto p = random_point<T, D>(r, grid), q = random_point<T, D>(r, grid);
    const bool point_box = r.below(16) == 0;
    quoct::box<T, D> b;
    for (std::size_t a = 0; a < D; ++a) {
        b.lo[a] = std::min(p[a], q[a]);
        b.hi[a] = std::max(p[a], q[a]);
        if (point_box || r.below(8) == 0) b.hi[a] = b.lo[a];
    }
    return b;
}

template <class T>
T random_radius(rng& r, bool grid) {
    if (r.below(16) == 0) return T(0);
    return grid ? static_cast<T>(r.integer(0, 40)) / T(4)
                : static_cast<T>(r.uniform01() * std::pow(10.0, static_cast<double>(r.integer(-2, 3))));
}

// |a - b| within `ulps` units of the larger magnitude.
template <class T>
bool close_rel(T a, T b, int ulps) {
    return std::fabs(a - b) <= static_cast<T>(ulps) * std::numeric_limits<T>::epsilon() * std::max(std::fabs(a), std::fabs(b));
}

// A sum of D non-negative rounded terms, in any order: within about D + 1 ulps.
template <class T, std::size_t D>
constexpr int sum_ulps() {
    return static_cast<int>(2 * D + 2);
}

template <class T, std::size_t D>
std::vector<quoct::point<T, D>> corners(const quoct::box<T, D>& b) {
    std::vector<quoct::point<T, D>> out;
    for (std::size_t mask = 0; mask < (std::size_t{1} << D); ++mask) {
        quoct::point<T, D> c;
        for (std::size_t a = 0; a < D; ++a) c[a] = (mask >> a) & 1u ? b.hi[a] : b.lo[a];
        out.push_back(c);
    }
    return out;
}

// Points of the closed box: corners, face points and interior points.
template <class T, std::size_t D>
std::vector<quoct::point<T, D>> samples_in(const quoct::box<T, D>& b, rng& r, std::size_t n) {
    auto out = corners(b);
    for (std::size_t i = 0; i < n; ++i) {
        quoct::point<T, D> p;
        for (std::size_t a = 0; a < D; ++a) {
            const std::size_t pick = r.below(4);
            if (pick == 0) p[a] = b.lo[a];
            else if (pick == 1) p[a] = b.hi[a];
            else p[a] = std::min(b.hi[a], std::max(b.lo[a], static_cast<T>(r.uniform(b.lo[a], b.hi[a]))));
        }
        out.push_back(p);
    }
    return out;
}

// The box [lo, hi]^D.
template <class T, std::size_t D>
quoct::box<T, D> cube(T lo, T hi) {
    return {splat<T, D>(lo), splat<T, D>(hi)};
}

}  // namespace

// --- distances ------------------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("geometry: distance_sq(point, point) matches Boost.Geometry comparable_distance", "[geometry][boost]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    // The reference really is squared: 3-4-5 gives 25, not 5.
    REQUIRE(bg_distance_sq(make_point<T, D>({0, 0, 0}), make_point<T, D>({3, 4, 0})) == T(25));
    REQUIRE(quoct::distance_sq(make_point<T, D>({0, 0, 0}), make_point<T, D>({3, 4, 0})) == T(25));

    rng r(101);
    for (int i = 0; i < 4000; ++i) {
        const bool grid = i % 2 == 0;
        const auto a = random_point<T, D>(r, grid), b = random_point<T, D>(r, grid);
        const T got = quoct::distance_sq(a, b), want = bg_distance_sq(a, b);
        INFO(str(a) << " " << str(b) << " got " << got << " want " << want << (grid ? " (grid)" : ""));
        // Boost's pythagoras adds the axis terms in the same order (d0^2 first), so even
        // rounded values agree bit for bit.
        CHECK(got == want);
        CHECK(got == quoct::distance_sq(b, a));  // symmetric bit for bit
        CHECK(got >= T(0));
        CHECK(quoct::distance_sq(a, a) == T(0));
    }
}

TEMPLATE_LIST_TEST_CASE("geometry: distance_sq(point, box) matches Boost.Geometry comparable_distance", "[geometry][boost]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    rng r(102);
    for (int i = 0; i < 4000; ++i) {
        const bool grid = i % 2 == 0;
        const auto p = random_point<T, D>(r, grid);
        const auto b = random_box<T, D>(r, grid);
        const T got = quoct::distance_sq(p, b), want = bg_distance_sq(p, b);
        INFO(str(p) << " " << str(b) << " got " << got << " want " << want);
        if (grid) CHECK(got == want);
        else CHECK(close_rel(got, want, sum_ulps<T, D>()));
        CHECK((got == T(0)) == quoct::contains(b, p));
        // Exactness: no point of the box is closer than the box itself, after rounding too.
        for (const auto& q : samples_in(b, r, 6)) CHECK(got <= quoct::distance_sq(p, q));
        // A zero-size box is its point.
        CHECK(quoct::distance_sq(p, quoct::box<T, D>{b.lo, b.lo}) == quoct::distance_sq(p, b.lo));
    }
}

TEMPLATE_LIST_TEST_CASE("geometry: distance_sq(point, box): inside, on a face, at a corner", "[geometry]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const auto b = cube<T, D>(0, 2);
    CHECK(quoct::distance_sq(splat<T, D>(1), b) == T(0));  // centre inside
    for (std::size_t a = 0; a < D; ++a) {
        auto p = splat<T, D>(1);
        p[a] = 2;  // on the upper face
        CHECK(quoct::distance_sq(p, b) == T(0));
        p[a] = 0;  // on the lower face
        CHECK(quoct::distance_sq(p, b) == T(0));
        p[a] = T(3.5);  // 1.5 beyond the upper face
        CHECK(quoct::distance_sq(p, b) == T(2.25));
        p[a] = T(-0.5);
        CHECK(quoct::distance_sq(p, b) == T(0.25));
    }
    CHECK(quoct::distance_sq(splat<T, D>(3), b) == static_cast<T>(D));  // beyond the corner
    CHECK(quoct::distance_sq(make_point<T, D>({5, 6, 1}), b) == T(25));  // 3-4-5 from corner (2, 2)
}

TEMPLATE_LIST_TEST_CASE("geometry: farthest_distance_sq is the farthest corner's distance_sq", "[geometry][boost]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    rng r(103);
    for (int i = 0; i < 3000; ++i) {
        const bool grid = i % 2 == 0;
        const auto p = random_point<T, D>(r, grid);
        const auto b = random_box<T, D>(r, grid);
        T worst = 0, worst_bg = 0;
        for (const auto& c : corners(b)) {
            worst = std::max(worst, quoct::distance_sq(c, p));
            worst_bg = std::max(worst_bg, bg_distance_sq(c, p));
        }
        const T got = quoct::farthest_distance_sq(p, b);
        INFO(str(p) << " " << str(b) << " got " << got << " corners " << worst << " bg " << worst_bg);
        CHECK(got == worst);  // same per-axis magnitudes, same order: exact
        if (grid) CHECK(got == worst_bg);
        else CHECK(close_rel(got, worst_bg, sum_ulps<T, D>()));
        for (const auto& q : samples_in(b, r, 6)) CHECK(quoct::distance_sq(q, p) <= got);
    }
}

// --- ball and box ------------------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("geometry: intersects(ball, box) matches Boost.Geometry and the box's points", "[geometry][boost]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    rng r(104);
    int decided_by_bg = 0;
    for (int i = 0; i < 4000; ++i) {
        const bool grid = i % 2 == 0;
        const quoct::ball<T, D> s{random_point<T, D>(r, grid), random_radius<T>(r, grid)};
        const auto b = random_box<T, D>(r, grid);
        const bool got = quoct::intersects(s, b);
        const T bg_d = bg_distance_sq(s.center, b), r2 = s.radius * s.radius;
        INFO(str(s) << " " << str(b) << " bg distance_sq " << bg_d);
        CHECK(quoct::intersects(b, s) == got);
        // General values may round differently right at the boundary; only there is the
        // reference allowed to disagree.
        if (grid || !close_rel(bg_d, r2, sum_ulps<T, D>() + 2)) {
            CHECK(got == (bg_d <= r2));
            ++decided_by_bg;
        }
        // Consistency with the point predicate: a box with a point in the ball meets it.
        for (const auto& q : samples_in(b, r, 6))
            if (quoct::contains(s, q)) CHECK(got);
    }
    CHECK(decided_by_bg > 3900);
}

TEMPLATE_LIST_TEST_CASE("geometry: contains(ball, box) is every corner inside, and matches Boost.Geometry", "[geometry][boost]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    rng r(105);
    int inside = 0, outside = 0;
    for (int i = 0; i < 4000; ++i) {
        const bool grid = i % 2 == 0;
        const quoct::ball<T, D> s{random_point<T, D>(r, grid), random_radius<T>(r, grid) * 3};
        const auto b = random_box<T, D>(r, grid);
        const bool got = quoct::contains(s, b);
        INFO(str(s) << " " << str(b));
        bool all_corners = true, all_corners_bg = true;
        for (const auto& c : corners(b)) {
            all_corners = all_corners && quoct::contains(s, c);
            all_corners_bg = all_corners_bg && bg_distance_sq(c, s.center) <= s.radius * s.radius;
        }
        CHECK(got == all_corners);
        if (grid) CHECK(got == all_corners_bg);
        if (got) {
            CHECK(quoct::intersects(s, b));
            for (const auto& q : samples_in(b, r, 6)) CHECK(quoct::contains(s, q));
        }
        (got ? inside : outside)++;
    }
    CHECK(inside > 100);  // the random cases exercise both answers
    CHECK(outside > 100);
}

TEMPLATE_LIST_TEST_CASE("geometry: ball and box: hand-made edge cases", "[geometry]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const auto b = cube<T, D>(0, 2);
    const T below5 = std::nextafter(T(5), T(0));

    SECTION("tangent to a face at exactly r") {
        for (std::size_t a = 0; a < D; ++a) {
            auto c = splat<T, D>(1);
            c[a] = T(3.5);
            CHECK(quoct::intersects(quoct::ball<T, D>{c, T(1.5)}, b));
            CHECK_FALSE(quoct::intersects(quoct::ball<T, D>{c, std::nextafter(T(1.5), T(0))}, b));
            c[a] = T(-1.5);
            CHECK(quoct::intersects(quoct::ball<T, D>{c, T(1.5)}, b));
            CHECK_FALSE(quoct::intersects(quoct::ball<T, D>{c, std::nextafter(T(1.5), T(0))}, b));
        }
    }
    SECTION("tangent to a corner at exactly r (3-4-5)") {
        const auto c = make_point<T, D>({5, 6, 1});  // (3, 4) beyond the corner (2, 2)
        CHECK(quoct::intersects(quoct::ball<T, D>{c, T(5)}, b));
        CHECK_FALSE(quoct::intersects(quoct::ball<T, D>{c, below5}, b));
        const auto d = make_point<T, D>({-3, -4, 1});  // beyond the corner (0, 0)
        CHECK(quoct::intersects(quoct::ball<T, D>{d, T(5)}, b));
        CHECK_FALSE(quoct::intersects(quoct::ball<T, D>{d, below5}, b));
    }
    SECTION("zero-size box: meets and lies in the ball exactly when its point does") {
        const auto p = make_point<T, D>({3, 4, 0});
        const quoct::box<T, D> dot{p, p};
        for (T rad : {T(0), T(1), below5, T(5), T(6)}) {
            const quoct::ball<T, D> s{splat<T, D>(0), rad};
            CHECK(quoct::intersects(s, dot) == quoct::contains(s, p));
            CHECK(quoct::contains(s, dot) == quoct::contains(s, p));
            CHECK(quoct::contains(s, p) == (rad >= T(5)));
        }
        CHECK(quoct::contains(quoct::ball<T, D>{p, T(0)}, dot));
    }
    SECTION("zero radius: meets the box exactly when the centre is in it") {
        CHECK(quoct::intersects(quoct::ball<T, D>{splat<T, D>(1), T(0)}, b));
        CHECK(quoct::intersects(quoct::ball<T, D>{splat<T, D>(2), T(0)}, b));  // on the corner
        CHECK(quoct::intersects(quoct::ball<T, D>{make_point<T, D>({0, 1, 1}), T(0)}, b));  // on a face
        CHECK_FALSE(quoct::intersects(quoct::ball<T, D>{splat<T, D>(std::nextafter(T(2), T(3))), T(0)}, b));
        CHECK_FALSE(quoct::contains(quoct::ball<T, D>{splat<T, D>(1), T(0)}, b));
        CHECK(quoct::contains(quoct::ball<T, D>{splat<T, D>(1), T(0)}, quoct::box<T, D>{splat<T, D>(1), splat<T, D>(1)}));
    }
    SECTION("centre inside the box") {
        const quoct::ball<T, D> tiny{make_point<T, D>({0.5, 1.5, 1}), T(0.01)};
        CHECK(quoct::intersects(tiny, b));
        CHECK_FALSE(quoct::contains(tiny, b));
        // From the centre (1,...,1) every corner is at distance sqrt(D).
        const T need = std::sqrt(static_cast<T>(D));
        const T r_in = std::nextafter(need, T(10)) , r_out = std::nextafter(need, T(0));
        CHECK(quoct::contains(quoct::ball<T, D>{splat<T, D>(1), r_in * (1 + 4 * std::numeric_limits<T>::epsilon())}, b));
        CHECK_FALSE(quoct::contains(quoct::ball<T, D>{splat<T, D>(1), r_out * (1 - 4 * std::numeric_limits<T>::epsilon())}, b));
        // Farthest corner from (0.5, 0.5, ...) is (2, 2, ...): distance^2 = 2.25 D.
        const quoct::ball<T, D> off{splat<T, D>(T(0.5)), T(1.5) * std::sqrt(static_cast<T>(D)) * (1 + 4 * std::numeric_limits<T>::epsilon())};
        CHECK(quoct::contains(off, b));
        CHECK(quoct::farthest_distance_sq(splat<T, D>(T(0.5)), b) == T(2.25) * static_cast<T>(D));
    }
    SECTION("centre on a face") {
        for (std::size_t a = 0; a < D; ++a) {
            auto c = splat<T, D>(1);
            c[a] = 2;
            CHECK(quoct::intersects(quoct::ball<T, D>{c, T(0)}, b));
            CHECK(quoct::farthest_distance_sq(c, b) == static_cast<T>(D + 3));  // 2^2 on axis a, 1 elsewhere
            CHECK_FALSE(quoct::contains(quoct::ball<T, D>{c, std::sqrt(static_cast<T>(D + 3)) * T(0.999)}, b));
        }
    }
    SECTION("unit box: contains needs the farthest corner, not the nearest face") {
        // radius covers the centre-to-face distance (1) but not the corner (sqrt(D)).
        CHECK_FALSE(quoct::contains(quoct::ball<T, D>{splat<T, D>(1), T(1.2)}, b));
        CHECK(quoct::intersects(quoct::ball<T, D>{splat<T, D>(1), T(1.2)}, b));
    }
}

// --- the three regression tests for the classic circle-rectangle mistakes ---------------

TEMPLATE_LIST_TEST_CASE("geometry regression (strict <): tangent ball and box intersect, tangent balls intersect", "[geometry][regression]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const auto b = cube<T, D>(0, 2);
    for (std::size_t a = 0; a < D; ++a) {
        auto c = splat<T, D>(1);
        c[a] = 5;  // 3 beyond the face x_a = 2
        CHECK(quoct::intersects(quoct::ball<T, D>{c, T(3)}, b));
        CHECK(quoct::intersects(b, quoct::ball<T, D>{c, T(3)}));
        c[a] = -3;
        CHECK(quoct::intersects(quoct::ball<T, D>{c, T(3)}, b));
    }
    // corner tangency, 3-4-5
    CHECK(quoct::intersects(quoct::ball<T, D>{make_point<T, D>({5, 6, 1}), T(5)}, b));
    // a point ball on the face touches
    CHECK(quoct::intersects(quoct::ball<T, D>{make_point<T, D>({2, 1, 1}), T(0)}, b));
    // balls: |(0,0) - (3,4)| = 5 = 2 + 3
    const quoct::ball<T, D> p{splat<T, D>(0), T(2)}, q{make_point<T, D>({3, 4, 0}), T(3)};
    CHECK(quoct::intersects(p, q));
    CHECK(quoct::intersects(q, p));
    for (std::size_t a = 0; a < D; ++a) {
        auto c = splat<T, D>(0);
        c[a] = T(2.5);
        CHECK(quoct::intersects(quoct::ball<T, D>{splat<T, D>(0), T(1)}, quoct::ball<T, D>{c, T(1.5)}));
    }
    // two zero-radius balls at one point touch; a point on a sphere is in the ball
    CHECK(quoct::intersects(quoct::ball<T, D>{splat<T, D>(1), T(0)}, quoct::ball<T, D>{splat<T, D>(1), T(0)}));
    CHECK(quoct::contains(quoct::ball<T, D>{splat<T, D>(0), T(5)}, make_point<T, D>({3, 4, 0})));
    // boxes sharing only a face or a corner touch
    CHECK(quoct::intersects(b, cube<T, D>(2, 3)));
    CHECK(quoct::intersects(b, quoct::box<T, D>{make_point<T, D>({2, -1, 0}), make_point<T, D>({4, 0, 2})}));
}

TEMPLATE_LIST_TEST_CASE("geometry regression (full width for half-width): a ball just outside a box does not intersect", "[geometry][regression]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    // Box [0, 2]^D has half-width 1. A centre at 2 + r + gap with 0 < gap < 1 is outside by
    // gap; a test that subtracts the full width 2 from |c - box centre| would call it a hit.
    const auto b = cube<T, D>(0, 2);
    for (T rad : {T(0.5), T(1), T(3)}) {
        for (T gap : {T(0.0625), T(0.25), T(0.5), T(0.9375)}) {
            for (std::size_t a = 0; a < D; ++a) {
                auto c = splat<T, D>(1);
                c[a] = 2 + rad + gap;
                INFO("r=" << rad << " gap=" << gap << " axis " << a << " above");
                CHECK_FALSE(quoct::intersects(quoct::ball<T, D>{c, rad}, b));
                CHECK(quoct::distance_sq(c, b) == gap * gap + 2 * gap * rad + rad * rad);
                c[a] = 0 - rad - gap;
                INFO("below");
                CHECK_FALSE(quoct::intersects(quoct::ball<T, D>{c, rad}, b));
                // and a ball reaching `gap` into the box does meet it
                c[a] = 2 + rad - gap;
                CHECK(quoct::intersects(quoct::ball<T, D>{c, rad}, b));
            }
        }
    }
    // Beyond a corner: (2.5, 2.5) is sqrt(0.5) ~ 0.7071 from the corner (2, 2); r = 0.7 misses,
    // though on every axis alone the centre is within the full width of the box centre.
    const auto c = make_point<T, D>({2.5, 2.5, 1});
    CHECK_FALSE(quoct::intersects(quoct::ball<T, D>{c, T(0.7)}, b));
    CHECK(quoct::intersects(quoct::ball<T, D>{c, T(0.71)}, b));
    // A non-square box, [0, 4] x [0, 1] (x [0, 1]): half-widths differ per axis.
    auto lo = splat<T, D>(0), hi = splat<T, D>(1);
    hi[0] = 4;
    const quoct::box<T, D> slab{lo, hi};
    CHECK_FALSE(quoct::intersects(quoct::ball<T, D>{make_point<T, D>({2, 2.75, 0.5}), T(1.5)}, slab));  // 0.25 short
    CHECK(quoct::intersects(quoct::ball<T, D>{make_point<T, D>({2, 2.5, 0.5}), T(1.5)}, slab));
    CHECK_FALSE(quoct::intersects(quoct::ball<T, D>{make_point<T, D>({5.75, 0.5, 0.5}), T(1.5)}, slab));
}

TEMPLATE_LIST_TEST_CASE("geometry regression (inverted result): far apart is false, overlapping is true", "[geometry][regression]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const auto b = cube<T, D>(0, 2);
    const quoct::ball<T, D> far{splat<T, D>(100), T(1)}, over{splat<T, D>(T(2.5)), T(1)}, in{splat<T, D>(1), T(0.5)};
    CHECK_FALSE(quoct::intersects(far, b));
    CHECK_FALSE(quoct::intersects(b, far));
    CHECK(quoct::intersects(over, b));
    CHECK(quoct::intersects(in, b));
    CHECK_FALSE(quoct::contains(far, b));
    CHECK(quoct::contains(quoct::ball<T, D>{splat<T, D>(1), T(10)}, b));
    CHECK_FALSE(quoct::intersects(far, in));
    CHECK(quoct::intersects(quoct::ball<T, D>{splat<T, D>(T(1.25)), T(0.5)}, in));
    CHECK_FALSE(quoct::intersects(b, cube<T, D>(5, 6)));
    CHECK(quoct::intersects(b, cube<T, D>(1, 6)));
    CHECK_FALSE(quoct::contains(b, splat<T, D>(3)));
    CHECK(quoct::contains(b, splat<T, D>(1)));
    CHECK_FALSE(quoct::contains(far, splat<T, D>(0)));
    CHECK(quoct::contains(far, splat<T, D>(100)));
    CHECK_FALSE(quoct::contains(b, cube<T, D>(1, 3)));
    CHECK(quoct::contains(b, cube<T, D>(T(0.5), T(1.5))));
}

// --- balls -----------------------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("geometry: contains(ball, point) and intersects(ball, ball) match Boost.Geometry", "[geometry][boost]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    rng r(106);
    int hits = 0, misses = 0;
    for (int i = 0; i < 4000; ++i) {
        const bool grid = i % 2 == 0;
        const quoct::ball<T, D> s{random_point<T, D>(r, grid), random_radius<T>(r, grid)};
        const quoct::ball<T, D> t{random_point<T, D>(r, grid), random_radius<T>(r, grid)};
        const auto p = random_point<T, D>(r, grid);
        INFO(str(s) << " " << str(t) << " " << str(p));
        const T dp = bg_distance_sq(p, s.center), r2 = s.radius * s.radius;
        const T dc = bg_distance_sq(s.center, t.center), rr = (s.radius + t.radius) * (s.radius + t.radius);
        if (grid || !close_rel(dp, r2, sum_ulps<T, D>() + 2)) CHECK(quoct::contains(s, p) == (dp <= r2));
        if (grid || !close_rel(dc, rr, sum_ulps<T, D>() + 4)) CHECK(quoct::intersects(s, t) == (dc <= rr));
        CHECK(quoct::intersects(s, t) == quoct::intersects(t, s));
        (quoct::intersects(s, t) ? hits : misses)++;
        CHECK(quoct::contains(s, s.center));
    }
    CHECK(hits > 100);
    CHECK(misses > 100);
}

TEMPLATE_LIST_TEST_CASE("geometry: balls: hand-made edge cases", "[geometry]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const auto o = splat<T, D>(0);
    const auto p345 = make_point<T, D>({3, 4, 0});
    CHECK(quoct::contains(quoct::ball<T, D>{o, T(5)}, p345));
    CHECK_FALSE(quoct::contains(quoct::ball<T, D>{o, std::nextafter(T(5), T(0))}, p345));
    CHECK(quoct::contains(quoct::ball<T, D>{o, T(0)}, o));
    // the smallest offset whose square is still a normal number is outside a zero ball
    CHECK_FALSE(quoct::contains(quoct::ball<T, D>{o, T(0)}, make_point<T, D>({2 * std::sqrt(std::numeric_limits<T>::min()), 0, 0})));
    CHECK(quoct::contains(quoct::ball<T, D>{o, std::numeric_limits<T>::infinity()}, splat<T, D>(std::numeric_limits<T>::max())));
    // tangent from outside and from inside (nested, touching)
    CHECK(quoct::intersects(quoct::ball<T, D>{o, T(2)}, quoct::ball<T, D>{p345, T(3)}));
    CHECK_FALSE(quoct::intersects(quoct::ball<T, D>{o, T(2)}, quoct::ball<T, D>{p345, T(3) - T(1) / 1024}));
    CHECK(quoct::intersects(quoct::ball<T, D>{o, T(10)}, quoct::ball<T, D>{p345, T(1)}));  // nested
    CHECK(quoct::intersects(quoct::ball<T, D>{o, T(0)}, quoct::ball<T, D>{p345, T(5)}));  // point on sphere
    CHECK_FALSE(quoct::intersects(quoct::ball<T, D>{o, T(0)}, quoct::ball<T, D>{p345, T(0)}));
}

// --- boxes -------------------------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("geometry: contains(box, point) matches Boost.Geometry covered_by", "[geometry][boost]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    rng r(107);
    int in = 0, out = 0;
    for (int i = 0; i < 4000; ++i) {
        const bool grid = i % 4 != 0;  // mostly grid values: faces are hit often
        const auto b = random_box<T, D>(r, grid);
        const auto p = i % 3 == 0 ? corners(b)[r.below(std::size_t{1} << D)] : random_point<T, D>(r, grid);
        const bool got = quoct::contains(b, p);
        INFO(str(b) << " " << str(p));
        CHECK(got == bg::covered_by(to_bg(p), to_bg(b)));
        (got ? in : out)++;
    }
    CHECK(in > 1000);
    CHECK(out > 1000);
    // faces, edges and corners are in; one ulp out is out
    const auto b = cube<T, D>(0, 2);
    for (const auto& c : corners(b)) CHECK(quoct::contains(b, c));
    auto p = splat<T, D>(2);
    CHECK(quoct::contains(b, p));
    p[D - 1] = std::nextafter(T(2), T(3));
    CHECK_FALSE(quoct::contains(b, p));
    const quoct::box<T, D> dot{splat<T, D>(1), splat<T, D>(1)};
    CHECK(quoct::contains(dot, splat<T, D>(1)));
    CHECK_FALSE(quoct::contains(dot, splat<T, D>(std::nextafter(T(1), T(0)))));
}

TEMPLATE_LIST_TEST_CASE("geometry: intersects(box, box) and contains(box, box) match Boost.Geometry", "[geometry][boost]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    rng r(108);
    int meet = 0, apart = 0, within = 0;
    for (int i = 0; i < 4000; ++i) {
        const bool grid = i % 4 != 0;
        const auto a = random_box<T, D>(r, grid);
        auto b = random_box<T, D>(r, grid);
        if (i % 5 == 0) {  // share a face on a random axis
            const std::size_t ax = r.below(D);
            const T w = b.hi[ax] - b.lo[ax];
            b.lo[ax] = a.hi[ax];
            b.hi[ax] = a.hi[ax] + w;
        }
        INFO(str(a) << " " << str(b));
        const bool got = quoct::intersects(a, b);
        CHECK(got == bg::intersects(to_bg(a), to_bg(b)));
        CHECK(got == quoct::intersects(b, a));
        const bool in = quoct::contains(a, b);
        CHECK(in == bg::covered_by(to_bg(b), to_bg(a)));
        if (in) CHECK(got);
        CHECK(quoct::contains(a, a));
        (got ? meet : apart)++;
        within += in ? 1 : 0;
    }
    CHECK(meet > 500);
    CHECK(apart > 500);
    CHECK(within > 20);
}

TEMPLATE_LIST_TEST_CASE("geometry: box and box: hand-made edge cases", "[geometry]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const T inf = std::numeric_limits<T>::infinity();
    const auto b = cube<T, D>(0, 2);
    CHECK(quoct::intersects(b, cube<T, D>(2, 2)));  // a corner
    CHECK_FALSE(quoct::intersects(b, cube<T, D>(std::nextafter(T(2), T(3)), 3)));
    CHECK(quoct::contains(b, cube<T, D>(0, 2)));
    CHECK_FALSE(quoct::contains(b, cube<T, D>(0, std::nextafter(T(2), T(3)))));
    CHECK(quoct::contains(cube<T, D>(-inf, inf), b));
    CHECK(quoct::intersects(cube<T, D>(-inf, inf), b));
    CHECK(quoct::contains(b, cube<T, D>(1, 1)));  // a zero-size box inside
    CHECK(quoct::intersects(cube<T, D>(1, 1), cube<T, D>(1, 1)));
}

// --- bounding ball -------------------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("geometry: bounding_ball contains its box, tightly", "[geometry]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    rng r(109);
    const double top = std::is_same<T, float>::value ? 1e18 : 1e150;  // squares stay finite
    for (int i = 0; i < 3000; ++i) {
        quoct::box<T, D> b;
        const double scale = std::pow(10.0, r.uniform(-std::log10(top), std::log10(top)));
        for (std::size_t a = 0; a < D; ++a) {
            const double c = r.uniform(-1, 1) * scale * (r.coin() ? 1 : 1e3), w = r.below(8) == 0 ? 0 : r.uniform01() * scale;
            b.lo[a] = static_cast<T>(c);
            b.hi[a] = std::max(b.lo[a], static_cast<T>(c + w));
        }
        const auto s = quoct::bounding_ball(b);
        INFO(str(b) << " -> " << str(s));
        CHECK(quoct::contains(s, b));
        for (const auto& c : corners(b)) CHECK(quoct::contains(s, c));
        CHECK(quoct::contains(b, s.center));
        CHECK(quoct::is_finite(s.center));
        // tight: only rounding separates the radius from the half-diagonal
        double half_diag_sq = 0;
        for (std::size_t a = 0; a < D; ++a) {
            const double h = (static_cast<double>(b.hi[a]) - static_cast<double>(b.lo[a])) / 2;
            half_diag_sq += h * h;
        }
        // (the centre is rounded to a representable point, up to half an ulp of the coordinates off)
        double mag = 0;
        for (std::size_t a = 0; a < D; ++a) mag = std::max({mag, std::fabs(static_cast<double>(b.lo[a])), std::fabs(static_cast<double>(b.hi[a]))});
        const double eps = std::numeric_limits<T>::epsilon();
        CHECK(static_cast<double>(s.radius) <= std::sqrt(half_diag_sq) * (1 + 8 * eps) + 2 * eps * mag * std::sqrt(double(D)));
    }
    // a point box gives a zero ball
    const auto dot = quoct::bounding_ball(cube<T, D>(3, 3));
    CHECK(dot.radius == T(0));
    CHECK(dot.center == splat<T, D>(3));
    // [0, 2]^D: centre (1, ...), radius sqrt(D) rounded up if needed
    const auto u = quoct::bounding_ball(cube<T, D>(0, 2));
    CHECK(u.center == splat<T, D>(1));
    CHECK(u.radius * u.radius >= static_cast<T>(D));
}

TEMPLATE_LIST_TEST_CASE("geometry: bounding_ball of a box wider than max/2 keeps a finite centre", "[geometry][regression]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    // Points this far apart are valid input to orthtree; query(bounding_ball(tree.bounds()))
    // must not throw. lo + (hi - lo) / 2 overflows here; lo / 2 + hi / 2 would not.
    const T big = std::numeric_limits<T>::max() / 2 * T(1.5);
    const auto s = quoct::bounding_ball(cube<T, D>(-big, big));
    INFO(str(s));
    CHECK(quoct::is_finite(s.center));
    CHECK(quoct::contains(s, cube<T, D>(-big, big)));
}

}  // namespace test_geometry
