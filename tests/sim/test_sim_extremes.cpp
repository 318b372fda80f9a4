// Simulation indexes at the edges of the floating-point range, against brute force: the
// periodic index over node boxes that reach past [0, L) or to infinity, and object indexes
// whose ball-box tests under- or overflow, queried by unbounded shapes. The first test case
// of each part holds reproducers of wrong answers these indexes once gave; the others sweep
// extreme values.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include <quoct/dynamic.hpp>
#include <quoct/objects.hpp>
#include <quoct/pairs.hpp>
#include <quoct/periodic.hpp>

#include "test_support.hpp"

namespace test_sim_extremes {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

using pair_list = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

// The predicate of shapes.hpp under the minimum image: the rounded sum in T where it
// decides, the unbounded one (no overflow or underflow) where it does not. test_extremes.cpp
// checks this rule against an exact big-integer oracle.
template <class T, std::size_t D>
bool periodic_within(const quoct::periodic_domain<T, D>& dom, const quoct::point<T, D>& p,
                     const quoct::point<T, D>& c, T r) {
    const quoct::detail::radius_bound<T, D> bound(r);
    return bound.admits(dom.distance_sq(p, c), [&](std::size_t a) { return dom.wide_axis_distance(a, p[a], c[a]); });
}

template <class T, std::size_t D>
std::vector<std::uint32_t> periodic_brute(const quoct::periodic_domain<T, D>& dom,
                                          const std::vector<quoct::point<T, D>>& pts, const quoct::ball<T, D>& s) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 0; i < pts.size(); ++i)
        if (periodic_within(dom, pts[i], s.center, s.radius)) out.push_back(i);
    return out;
}

template <class T, std::size_t D>
pair_list periodic_brute_pairs(const quoct::periodic_domain<T, D>& dom, const std::vector<quoct::point<T, D>>& pts,
                               T r) {
    pair_list out;
    for (std::uint32_t i = 0; i < pts.size(); ++i)
        for (std::uint32_t j = i + 1; j < pts.size(); ++j)
            if (periodic_within(dom, pts[i], pts[j], r)) out.emplace_back(i, j);
    return out;
}

// Every way of asking the periodic index (query, count, visit, the pair searches) against
// brute force, for the given centres and radii.
template <class Index, class T, std::size_t D>
void check_periodic(const Index& index, const std::vector<quoct::point<T, D>>& pts,
                    const std::vector<quoct::point<T, D>>& centres, const std::vector<T>& radii) {
    const auto& dom = index.domain();
    for (const auto& c : centres)
        for (T r : radii) {
            const quoct::ball<T, D> s{c, r};
            const auto expect = periodic_brute(dom, pts, s);
            CHECK(quoct_test::sorted(index.query(s)) == expect);
            CHECK(index.count(s) == expect.size());
            std::vector<std::uint32_t> seen;
            index.visit(s, [&](std::uint32_t id, const quoct::point<T, D>&) { seen.push_back(id); });
            CHECK(quoct_test::sorted(seen) == expect);
        }
    for (T r : radii) {
        const pair_list expect = periodic_brute_pairs(dom, pts, r);
        CHECK(quoct::pairs_within(index, r) == expect);
        pair_list seen;
        quoct::for_each_pair_within(index, r, [&](std::uint32_t i, std::uint32_t j) { seen.emplace_back(i, j); });
        CHECK(quoct_test::sorted(seen) == expect);
        const auto lists = quoct::neighbor_lists(index, r);
        std::size_t total = 0;
        for (std::size_t i = 0; i < lists.rows(); ++i) total += lists.row(i).size();
        CHECK(total == 2 * expect.size());
    }
}

template <class T, std::size_t D>
quoct::periodic_domain<T, D> cube(T L) {
    quoct::periodic_domain<T, D> d;
    d.length.fill(L);
    return d;
}

}  // namespace

TEST_CASE("periodic: node boxes reaching past the domain do not prune", "[sim][periodic][extremes]") {
    using P = quoct::point<double, 1>;
    const quoct::periodic_domain<double, 1> d{{1.0}};
    {
        const std::vector<P> pts{{std::nextafter(1.0, 0.0)}, {0.1}};
        const quoct::periodic_orthtree<double, 1> index(d, pts);
        const quoct::ball<double, 1> s{{0.0}, 0x1p-53};
        REQUIRE(periodic_brute(d, pts, s).size() == 1);
        CHECK(index.count(s) == 1);
        check_periodic(index, pts, {P{0.0}, P{0.5}}, {0.0, 0x1p-53, 0.2});
    }
    {
        const std::vector<P> pts{{0.0}, {0.7}};
        const quoct::periodic_orthtree<double, 1> index(d, pts);
        const quoct::ball<double, 1> s{{0.99999999}, 1.2e-8};
        REQUIRE(periodic_brute(d, pts, s) == std::vector<std::uint32_t>{0});
        CHECK(index.query(s) == std::vector<std::uint32_t>{0});
        check_periodic(index, pts, {P{0.99999999}, P{0.3}}, {1.2e-8, 0.31});
    }
    {
        const quoct::periodic_domain<double, 1> big{{1e300}};
        const std::vector<P> pts{{0.0}, {0.0}, {1e292}};
        const quoct::periodic_orthtree<double, 1> index(big, pts);
        CHECK(quoct::pairs_within(index, 1.0) == pair_list{{0, 1}});
        CHECK(index.query(quoct::ball<double, 1>{{0.0}, 1.0}).size() == 2);
        CHECK(quoct::orthtree<double, 1>(pts).query(quoct::ball<double, 1>{{0.0}, 1.0}).size() == 2);
        check_periodic(index, pts, {P{0.0}, P{1e292}, P{std::nextafter(1e300, 0.0)}}, {0.0, 1.0, 2e292});
    }
}

TEMPLATE_TEST_CASE("periodic_ball_query classifies any box conservatively", "[sim][periodic][extremes]", float, double,
                   long double) {
    using T = TestType;
    constexpr std::size_t D = 2;
    const T inf = std::numeric_limits<T>::infinity();
    quoct_test::rng rng(11);
    for (T L : {T(1), T(3e-30), static_cast<T>(std::numeric_limits<T>::max() / 4)}) {
        const auto dom = cube<T, D>(L);
        // Box faces: inside, on, just past and far past [0, L), and infinite.
        const std::vector<T> faces{-inf, -L, std::nextafter(T(0), -inf), T(0), L / 4, L / 2,
                                   std::nextafter(L, T(0)), L, std::nextafter(L, inf), 2 * L, inf};
        for (int trial = 0; trial < 3000; ++trial) {
            quoct::box<T, D> b;
            for (std::size_t a = 0; a < D; ++a) {
                T x = faces[rng() % faces.size()], y = faces[rng() % faces.size()];
                if (y < x) std::swap(x, y);
                b.lo[a] = x;
                b.hi[a] = y;
            }
            const T centres[] = {T(0), L / 4, L / 2, std::nextafter(L, T(0))};
            quoct::point<T, D> c;
            for (std::size_t a = 0; a < D; ++a) c[a] = centres[rng() % 4];
            const T r = L * static_cast<T>(std::ldexp(1.0, -static_cast<int>(rng() % 8)));
            const quoct::periodic_ball_query<T, D> q{dom, c, quoct::detail::radius_bound<T, D>(r)};
            const quoct::relation rel = q.classify(b);
            // Domain points of the box: its corners and faces clamped into [0, L).
            for (int k = 0; k < 16; ++k) {
                quoct::point<T, D> p;
                bool in_box = true;
                for (std::size_t a = 0; a < D; ++a) {
                    const T pick = (k >> a & 1) ? b.hi[a] : b.lo[a];
                    const T v = pick < 0 ? T(0) : pick >= L ? std::nextafter(L, T(0)) : pick;
                    in_box = in_box && b.lo[a] <= v && v <= b.hi[a];
                    p[a] = v;
                }
                if (!in_box) continue;
                if (q.contains(p)) CHECK(rel != quoct::relation::outside);
                else CHECK(rel != quoct::relation::inside);
            }
        }
    }
}

TEMPLATE_TEST_CASE("periodic index at the wrap, with tiny and huge periods", "[sim][periodic][extremes]", float, double,
                   long double) {
    using T = TestType;
    const T big = static_cast<T>(std::numeric_limits<T>::max() / 8);
    for (T L : {T(1), T(1e-30), big}) {
        const auto dom = cube<T, 2>(L);
        quoct_test::rng rng(5);
        // Points near 0 and just below L on each axis, where the node boxes are rounded out.
        std::vector<quoct::point<T, 2>> pts;
        const std::vector<T> xs{T(0), std::numeric_limits<T>::denorm_min(), L / 3, L / 2,
                                std::nextafter(L, T(0)), std::nextafter(std::nextafter(L, T(0)), T(0))};
        for (T x : xs)
            for (T y : xs) pts.push_back({{x, y}});
        for (int i = 0; i < 40; ++i) pts.push_back(dom.wrap(quoct_test::random_point<T, 2>(rng, T(0), L)));
        const std::vector<quoct::point<T, 2>> centres{{{T(0), T(0)}}, {{std::nextafter(L, T(0)), T(0)}}, {{L / 2, L / 3}}};
        const T ulp = std::nextafter(L, T(0));
        const std::vector<T> radii{T(0), L - ulp, L / 100, L / 3, L};
        check_periodic(quoct::periodic_orthtree<T, 2>(dom, pts), pts, centres, radii);
        check_periodic(quoct::periodic_index<quoct::dynamic_orthtree<T, 2>>(dom, pts), pts, centres, radii);
    }
}

// --- objects --------------------------------------------------------------------------

namespace {

template <class Shape, class Q>
std::vector<std::uint32_t> object_brute(const std::vector<Shape>& shapes, const Q& q) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 0; i < shapes.size(); ++i)
        if (quoct::intersects(shapes[i], q)) out.push_back(i);
    return out;
}

template <class Shape>
pair_list object_brute_pairs(const std::vector<Shape>& shapes) {
    pair_list out;
    for (std::uint32_t i = 0; i < shapes.size(); ++i)
        for (std::uint32_t j = i + 1; j < shapes.size(); ++j)
            if (quoct::intersects(shapes[i], shapes[j])) out.emplace_back(i, j);
    return out;
}

template <class Shape, class Q>
void check_object_query(const quoct::object_index<Shape>& index, const std::vector<Shape>& shapes, const Q& q) {
    const auto expect = object_brute(shapes, q);
    CHECK(quoct_test::sorted(index.query(q)) == expect);
    CHECK(index.count(q) == expect.size());
}

template <class ShapeA, class ShapeB>
void check_cross(const std::vector<ShapeA>& a, const std::vector<ShapeB>& b) {
    const quoct::object_index<ShapeA> ia(a);
    const quoct::object_index<ShapeB> ib(b);
    pair_list expect, seen;
    for (std::uint32_t i = 0; i < a.size(); ++i)
        for (std::uint32_t j = 0; j < b.size(); ++j)
            if (quoct::intersects(a[i], b[j])) expect.emplace_back(i, j);
    quoct::for_each_colliding_pair(ia, ib, [&](std::uint32_t i, std::uint32_t j) { seen.emplace_back(i, j); });
    CHECK(quoct_test::sorted(seen) == expect);
}

template <class Shape>
void check_self(const std::vector<Shape>& shapes) {
    const quoct::object_index<Shape> index(shapes);
    const pair_list expect = object_brute_pairs(shapes);
    pair_list seen;
    index.for_each_colliding_pair([&](std::uint32_t i, std::uint32_t j) { seen.emplace_back(i, j); });
    CHECK(quoct_test::sorted(seen) == expect);
    CHECK(index.colliding_pairs(3) == expect);
}

}  // namespace

TEST_CASE("objects: unbounded queries, the largest boxes, under- and overflowing squares",
          "[sim][objects][extremes]") {
    using B2 = quoct::box<double, 2>;
    using S2 = quoct::ball<double, 2>;
    const double inf = std::numeric_limits<double>::infinity(), M = DBL_MAX;
    // 2: queries reaching infinity, or whose centre +- radius overflows, are valid.
    const std::vector<B2> boxes{{{{0, 0}}, {{1, 1}}}, {{{-5, 2}}, {{-4, 3}}}, {{{1e308, 0}}, {{1.5e308, 0}}}};
    const std::vector<S2> balls{{{{0, 0}}, 1}, {{{-5, 2}}, 0.5}, {{{1e308, 0}}, 1e307}};
    const quoct::box_index<double, 2> box_idx(boxes);
    const quoct::ball_index<double, 2> ball_idx(balls);
    for (const B2& q : {B2{{{-inf, -inf}}, {{inf, inf}}}, B2{{{0.5, -inf}}, {{inf, 2}}}, B2{{{inf, 0}}, {{inf, 0}}}}) {
        check_object_query(box_idx, boxes, q);
        check_object_query(ball_idx, balls, q);
    }
    for (const S2& q : {S2{{{0, 0}}, inf}, S2{{{1e308, 0}}, 1e308}, S2{{{-1e308, 0}}, M}}) {
        check_object_query(box_idx, boxes, q);
        check_object_query(ball_idx, balls, q);
    }
    CHECK(box_idx.count(S2{{{1e308, 0}}, 1e308}) == 3);
    // 3: a box whose half-width is the largest finite value.
    const std::vector<B2> widest{{{{-M, -M}}, {{M, M}}}};
    const quoct::box_index<double, 2> w(widest);
    REQUIRE(quoct::intersects(widest[0], S2{{{8, 0}}, 0}));
    CHECK(w.count(S2{{{8, 0}}, 0}) == 1);
    check_object_query(w, widest, B2{{{8, 0}}, {{8, 0}}});
    // 4: ball-box tests whose squares would underflow (to 0) or overflow (to inf) in T are
    // decided with no overflow or underflow, as intersects says: a box 2e-30 from a float
    // ball of radius 0 does not meet it, one touching a ball of radius 2e-30 does.
    {
        using Bf = quoct::box<float, 2>;
        const std::vector<Bf> tiny{{{{2e-30f, 0}}, {{2e-30f, 0}}}};
        const quoct::ball<float, 2> q{{{0, 0}}, 0};
        REQUIRE_FALSE(quoct::intersects(tiny[0], q));
        CHECK(quoct::box_index<float, 2>(tiny).count(q) == 0);
        const quoct::ball<float, 2> touching{{{0, 0}}, 2e-30f};
        REQUIRE(quoct::intersects(tiny[0], touching));
        CHECK(quoct::box_index<float, 2>(tiny).count(touching) == 1);
        const std::vector<quoct::ball<float, 2>> dots{touching};
        CHECK(quoct::ball_index<float, 2>(dots).count(tiny[0]) == 1);
        CHECK(quoct::ball_index<float, 2>(dots).count(Bf{{{2.0000002e-30f, 0}}, {{3e-30f, 0}}}) == 0);
    }
    {
        const std::vector<B2> tiny{{{{1e-170, 0}}, {{1e-170, 0}}}};
        REQUIRE_FALSE(quoct::intersects(tiny[0], S2{{{0, 0}}, 0}));
        CHECK(quoct::box_index<double, 2>(tiny).count(S2{{{0, 0}}, 0}) == 0);
        CHECK(quoct::box_index<double, 2>(tiny).count(S2{{{0, 0}}, 1e-170}) == 1);
    }
    {
        // 2e236 away from a ball of radius 2e197: both squares overflow, and it is far outside.
        const std::vector<S2> far{{{{2e236, 0}}, 2e197}};
        const std::vector<B2> corner{{{{-8, -8}}, {{-8, -8}}}};
        REQUIRE_FALSE(quoct::intersects(far[0], corner[0]));
        CHECK(quoct::box_index<double, 2>(corner).count(far[0]) == 0);
        CHECK(quoct::ball_index<double, 2>(far).count(corner[0]) == 0);
        const std::vector<S2> reaching{{{{2e236, 0}}, 2.0000000000001e236}};
        REQUIRE(quoct::intersects(reaching[0], corner[0]));
        CHECK(quoct::box_index<double, 2>(corner).count(reaching[0]) == 1);
        CHECK(quoct::ball_index<double, 2>(reaching).count(corner[0]) == 1);
        check_cross(reaching, corner);
        check_cross(corner, reaching);
        check_cross(far, corner);
        check_cross(corner, far);
    }
}

namespace {

// Values that put squares and sums at the edges: zeros, subnormals, the square roots of
// the smallest normal and of the largest finite value, and the largest finite value.
template <class T>
std::vector<T> extreme_values() {
    const T m = std::numeric_limits<T>::max(), n = std::numeric_limits<T>::min();
    const T sm = std::sqrt(m), sn = std::sqrt(n);
    std::vector<T> v{T(0), std::numeric_limits<T>::denorm_min(), n, sn / 2, sn, 2 * sn, T(1), T(8),
                     sm / 2, sm, 2 * sm, m / 4, m / 2, m};
    const std::size_t k = v.size();
    for (std::size_t i = 1; i < k; ++i) v.push_back(-v[i]);
    return v;
}

template <class T, std::size_t D>
struct extreme_source {
    quoct_test::rng rng;
    std::vector<T> values = extreme_values<T>();

    explicit extreme_source(unsigned seed) : rng(seed) {}
    T value() {
        T v = values[rng() % values.size()];
        switch (rng() % 4) {  // sometimes one step off, to miss the exact boundaries
            case 0: return std::nextafter(v, std::numeric_limits<T>::infinity());
            case 1: return std::nextafter(v, -std::numeric_limits<T>::infinity());
            default: return v;
        }
    }
    T finite(T v) const { return std::isfinite(v) ? v : std::copysign(std::numeric_limits<T>::max(), v); }
    quoct::point<T, D> point() {
        quoct::point<T, D> p;
        for (std::size_t a = 0; a < D; ++a) p[a] = finite(value());
        return p;
    }
    T radius() { return finite(std::abs(value())); }
    quoct::box<T, D> box(bool may_be_infinite) {
        quoct::box<T, D> b;
        for (std::size_t a = 0; a < D; ++a) {
            T x = value(), y = value();
            if (!may_be_infinite) x = finite(x), y = finite(y);
            else if (rng() % 6 == 0) x = -std::numeric_limits<T>::infinity();
            else if (rng() % 6 == 0) y = std::numeric_limits<T>::infinity();
            if (y < x) std::swap(x, y);
            b.lo[a] = x;
            b.hi[a] = y;
        }
        return b;
    }
    quoct::ball<T, D> ball_query() {
        return {point(), rng() % 8 == 0 ? std::numeric_limits<T>::infinity() : radius()};
    }
};

}  // namespace

TEMPLATE_TEST_CASE("object indexes agree with intersects at extreme values", "[sim][objects][extremes]", QUOCT_TEST_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    extreme_source<T, D> src(29);
    for (int round = 0; round < 6; ++round) {
        std::vector<quoct::ball<T, D>> balls(60);
        std::vector<quoct::box<T, D>> boxes(60);
        for (auto& s : balls) s = {src.point(), src.radius()};
        for (auto& b : boxes) b = src.box(false);
        const quoct::ball_index<T, D> ball_idx(balls);
        const quoct::box_index<T, D> box_idx(boxes);
        for (int q = 0; q < 40; ++q) {
            const quoct::ball<T, D> s = src.ball_query();
            const quoct::box<T, D> b = src.box(true);
            check_object_query(ball_idx, balls, s);
            check_object_query(ball_idx, balls, b);
            check_object_query(box_idx, boxes, s);
            check_object_query(box_idx, boxes, b);
        }
        check_self(balls);
        check_self(boxes);
        check_cross(balls, boxes);
        check_cross(boxes, balls);
    }
}

}  // namespace test_sim_extremes
