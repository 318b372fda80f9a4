// Object indexes at the edges of the floating-point range, against brute force: ball-box
// tests that under- or overflow, queried by unbounded shapes. The first test case holds
// reproducers of wrong answers these indexes once gave; the other sweeps extreme values.
// (The periodic index at the same edges: periodic/test_periodic.cpp.)
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

#include <quoct/objects.hpp>

#include "test_support.hpp"

namespace test_sim_extremes {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

using pair_list = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

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
