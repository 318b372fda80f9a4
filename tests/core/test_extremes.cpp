// The ball predicate at the ends of the floating-point range: squares that overflow or
// underflow T, checked against an exact oracle (test_exact_support.hpp: big-integer dyadic
// numbers, each operation rounded to T's precision, the rule of shapes.hpp written a second
// time in a way that shares nothing with the library's), for the predicate alone and for the
// tree's queries, pair searches and k nearest.
#include "test_exact_support.hpp"
#include "test_support.hpp"

#include <quoct/detail/rounding.hpp>
#include <quoct/dynamic.hpp>
#include <quoct/pairs.hpp>

#include <catch2/catch.hpp>

namespace test_extremes {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

using namespace quoct_test;
using namespace quoct_test::exact_oracle;

template <class T, std::size_t D>
dyadic oracle_distance(const quoct::point<T, D>& c, const quoct::point<T, D>& q) {
    constexpr int p = std::numeric_limits<T>::digits;
    return oracle_sum<T, D>([&](std::size_t a) { return round_to(align_add(exact(q[a]), exact(c[a]), true), p); });
}

template <class T, std::size_t D>
bool oracle_contains(const quoct::point<T, D>& c, T r, const quoct::point<T, D>& q) {
    constexpr int p = std::numeric_limits<T>::digits;
    return oracle_within<T, D>(
        [&](std::size_t a) { return round_to(align_add(exact(q[a]), exact(c[a]), true), p); }, r);
}

/// The oracle's k nearest of pts to c within r: ids by (distance, id).
template <class T, std::size_t D>
std::vector<std::uint32_t> oracle_nearest(const points<T, D>& pts, const quoct::point<T, D>& c, std::size_t k, T r) {
    std::vector<std::pair<dyadic, std::uint32_t>> all;
    for (std::size_t i = 0; i < pts.size(); ++i)
        if (oracle_contains(c, r, pts[i])) all.emplace_back(oracle_distance(c, pts[i]), static_cast<std::uint32_t>(i));
    std::sort(all.begin(), all.end(), oracle_before);
    std::vector<std::uint32_t> ids;
    for (std::size_t i = 0; i < std::min(k, all.size()); ++i) ids.push_back(all[i].second);
    return ids;
}

/// A point near c at an extreme offset (mostly): c plus an extreme value on some axes.
template <class T, std::size_t D>
quoct::point<T, D> near_point(rng& g, const quoct::point<T, D>& c) {
    quoct::point<T, D> q = c;
    for (std::size_t a = 0; a < D; ++a) {
        if (g.below(3) == 0) continue;
        const T v = c[a] + signed_extreme<T>(g);
        q[a] = std::isfinite(v) ? v : signed_extreme<T>(g);
    }
    return q;
}

template <class T, std::size_t D>
struct config {
    using scalar = T;
    static constexpr std::size_t dimension = D;
};
using extreme_configs = std::tuple<config<float, 1>, config<float, 2>, config<float, 3>, config<double, 1>,
                                   config<double, 2>, config<double, 3>, config<float, 5>, config<double, 8>>;

}  // namespace

TEST_CASE("extremes: the reproducers of overflowing and underflowing squares", "[extremes][geometry]") {
    using P1 = quoct::point<double, 1>;
    // 9e400 and 4e400 both overflow to infinity in double: the point is outside.
    CHECK_FALSE(quoct::contains(quoct::ball<double, 1>{P1{{0.0}}, 2e200}, P1{{3e200}}));
    CHECK(quoct::contains(quoct::ball<double, 1>{P1{{0.0}}, 3e200}, P1{{3e200}}));
    CHECK(quoct::contains(quoct::ball<double, 1>{P1{{0.0}}, 2e200}, P1{{2e200}}));
    // (1e-200)^2 underflows to 0: still outside a ball of radius 0.
    CHECK_FALSE(quoct::contains(quoct::ball<double, 1>{P1{{0.0}}, 0.0}, P1{{1e-200}}));
    CHECK(quoct::contains(quoct::ball<double, 1>{P1{{1e-200}}, 0.0}, P1{{1e-200}}));
    CHECK(quoct::contains(quoct::ball<double, 1>{P1{{0.0}}, 1e-200}, P1{{1e-200}}));
    CHECK_FALSE(quoct::contains(quoct::ball<double, 1>{P1{{0.0}}, 1e-200}, P1{{1.0000001e-200}}));
    using F3 = quoct::point<float, 3>;
    CHECK_FALSE(quoct::contains(quoct::ball<float, 3>{F3{{0, 0, 0}}, 0.0f}, F3{{1e-30f, 0, 0}}));
    CHECK_FALSE(quoct::contains(quoct::ball<float, 3>{F3{{0, 0, 0}}, 2e19f}, F3{{3e19f, 0, 0}}));
    // A difference that overflows T itself.
    CHECK_FALSE(quoct::contains(quoct::ball<double, 1>{P1{{-1.5e308}}, 1.7e308}, P1{{1.5e308}}));
    CHECK(quoct::contains(quoct::ball<double, 1>{P1{{-1.5e308}}, std::numeric_limits<double>::infinity()}, P1{{1.5e308}}));

    // The free functions at non-finite input (the indexes refuse it): a point at infinity
    // or NaN is in no finite ball, a NaN radius holds nothing.
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    CHECK_FALSE(quoct::contains(quoct::ball<double, 1>{P1{{0.0}}, 1e200}, P1{{inf}}));
    CHECK_FALSE(quoct::contains(quoct::ball<double, 1>{P1{{0.0}}, 1e200}, P1{{nan}}));
    CHECK_FALSE(quoct::contains(quoct::ball<double, 1>{P1{{0.0}}, nan}, P1{{0.0}}));
    CHECK(quoct::contains(quoct::ball<double, 1>{P1{{0.0}}, inf}, P1{{1e308}}));
    CHECK_FALSE(quoct::intersects(quoct::ball<double, 1>{P1{{0.0}}, 1e200}, quoct::box<double, 1>{P1{{inf}}, P1{{inf}}}));
    CHECK(quoct::intersects(quoct::ball<double, 1>{P1{{0.0}}, 1e200}, quoct::ball<double, 1>{P1{{3e200}}, 2e200}));
    CHECK_FALSE(quoct::intersects(quoct::ball<double, 1>{P1{{0.0}}, 1e200}, quoct::ball<double, 1>{P1{{3.1e200}}, 2e200}));

    const std::vector<P1> pts{P1{{0.0}}, P1{{3e200}}};
    const quoct::orthtree<double, 1> tree(pts);
    CHECK(sorted(tree.query(quoct::ball<double, 1>{P1{{0.0}}, 2e200})) == std::vector<std::uint32_t>{0});
    CHECK(tree.count(quoct::ball<double, 1>{P1{{0.0}}, 2e200}) == 1);
    std::size_t pairs = 0;
    quoct::for_each_pair_within(tree, 2e200, [&](std::uint32_t, std::uint32_t) { ++pairs; });
    CHECK(pairs == 0);
    quoct::for_each_pair_within(tree, 3e200, [&](std::uint32_t, std::uint32_t) { ++pairs; });
    CHECK(pairs == 1);
}

TEMPLATE_LIST_TEST_CASE("extremes: contains(ball, point) is the exact rule at every scale", "[extremes][geometry]",
                        extreme_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dimension;
    rng g(23);
    std::size_t inside = 0, outside = 0;
    for (int round = 0; round < 4000; ++round) {
        quoct::point<T, D> c;
        for (std::size_t a = 0; a < D; ++a) c[a] = signed_extreme<T>(g);
        const quoct::point<T, D> q = near_point(g, c);
        // Radii near the distance itself half of the time, so the boundary is hit.
        T r = extreme_value<T>(g);
        if (g.coin()) {
            const long double d = std::sqrt(static_cast<long double>(quoct::distance_sq(q, c)));
            if (std::isfinite(static_cast<double>(d)) && d > 0) r = static_cast<T>(d);
        }
        const bool want = oracle_contains(c, r, q);
        INFO("round " << round << " r " << r);
        REQUIRE(quoct::contains(quoct::ball<T, D>{c, r}, q) == want);
        (want ? inside : outside) += 1;
    }
    CHECK(inside > 400);
    CHECK(outside > 400);
}

TEMPLATE_LIST_TEST_CASE("extremes: ball meets box and box inside ball by the exact rule", "[extremes][geometry]",
                        extreme_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dimension;
    constexpr int p = std::numeric_limits<T>::digits;
    rng g(29);
    for (int round = 0; round < 3000; ++round) {
        quoct::point<T, D> c;
        for (std::size_t a = 0; a < D; ++a) c[a] = signed_extreme<T>(g);
        quoct::point<T, D> x = near_point(g, c), y = near_point(g, c);
        quoct::box<T, D> b;
        for (std::size_t a = 0; a < D; ++a) b.lo[a] = std::min(x[a], y[a]), b.hi[a] = std::max(x[a], y[a]);
        const T r = extreme_value<T>(g);
        const bool meets = oracle_within<T, D>(
            [&](std::size_t a) {
                const T nearest = std::min(std::max(c[a], b.lo[a]), b.hi[a]);
                return round_to(align_add(exact(c[a]), exact(nearest), true), p);
            },
            r);
        const bool holds = oracle_within<T, D>(
            [&](std::size_t a) {
                const dyadic down = round_to(align_add(exact(c[a]), exact(b.lo[a]), true), p);
                const dyadic up = round_to(align_add(exact(b.hi[a]), exact(c[a]), true), p);
                return less_equal(down, up) ? up : down;
            },
            r);
        INFO("round " << round);
        REQUIRE(quoct::intersects(quoct::ball<T, D>{c, r}, b) == meets);
        REQUIRE(quoct::contains(quoct::ball<T, D>{c, r}, b) == holds);
        // bounding_ball holds its box by the same rule.
        REQUIRE(quoct::contains(quoct::bounding_ball(b), b));
    }
}

TEMPLATE_LIST_TEST_CASE("extremes: tree queries and pair searches equal the exact oracle", "[extremes][orthtree][pairs]",
                        extreme_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dimension;
    rng g(31);
    for (int set = 0; set < 8; ++set) {
        // Clusters around a few extreme centres, each point at an extreme offset from its centre.
        points<T, D> pts;
        points<T, D> centres(3);
        for (auto& c : centres)
            for (std::size_t a = 0; a < D; ++a) c[a] = set % 3 == 0 ? T(0) : signed_extreme<T>(g);
        for (int i = 0; i < 160; ++i) pts.push_back(near_point(g, centres[g.below(3)]));
        for (int i = 0; i < 12; ++i) pts.push_back(pts[g.below(pts.size())]);  // duplicates
        const quoct::orthtree<T, D> tree(pts, quoct::build_options{4});
        for (int q = 0; q < 40; ++q) {
            const quoct::point<T, D> c = q % 2 ? pts[g.below(pts.size())] : near_point(g, centres[g.below(3)]);
            const T r = q % 5 == 0 ? T(0) : extreme_value<T>(g);
            std::vector<std::uint32_t> want;
            for (std::size_t i = 0; i < pts.size(); ++i)
                if (oracle_contains(c, r, pts[i])) want.push_back(static_cast<std::uint32_t>(i));
            const quoct::ball<T, D> s{c, r};
            INFO("set " << set << " query " << q << " r " << r);
            REQUIRE(id_diff(tree.query(s), want) == "");
            REQUIRE(tree.count(s) == want.size());
            REQUIRE(id_diff(brute_ball(pts, s), want) == "");
        }
        // Pairs, at radii on every scale: each unordered pair once, by the oracle. Its
        // distance of each pair is computed once for the four radii (oracle_contains is
        // oracle_within over these same rounded offsets).
        std::vector<dyadic> pair_distance;
        for (std::size_t i = 0; i < pts.size(); ++i)
            for (std::size_t j = i + 1; j < pts.size(); ++j) pair_distance.push_back(oracle_distance(pts[i], pts[j]));
        for (int k = 0; k < 4; ++k) {
            const T r = k == 0 ? T(0) : extreme_value<T>(g);
            const dyadic rr = std::isinf(r) ? dyadic{} : round_to(times(exact(r), exact(r)), std::numeric_limits<T>::digits);
            std::vector<std::pair<std::uint32_t, std::uint32_t>> want, got;
            std::size_t at = 0;
            for (std::size_t i = 0; i < pts.size(); ++i)
                for (std::size_t j = i + 1; j < pts.size(); ++j, ++at)
                    if (std::isinf(r) || less_equal(pair_distance[at], rr))
                        want.emplace_back(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j));
            quoct::for_each_pair_within(tree, r, [&](std::uint32_t i, std::uint32_t j) {
                got.emplace_back(std::min(i, j), std::max(i, j));
            });
            std::sort(got.begin(), got.end());
            INFO("set " << set << " pair radius " << r);
            REQUIRE(got == want);
        }
    }
}

TEMPLATE_LIST_TEST_CASE("extremes: k-nearest orders by the exact distance at every scale", "[extremes][knn]",
                        extreme_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dimension;
    using Id = std::uint32_t;
    rng g(41);
    for (int set = 0; set < 8; ++set) {
        points<T, D> pts;
        points<T, D> centres(3);
        for (auto& c : centres)
            for (std::size_t a = 0; a < D; ++a) c[a] = set % 3 == 0 ? T(0) : signed_extreme<T>(g);
        for (int i = 0; i < 120; ++i) pts.push_back(near_point(g, centres[g.below(3)]));
        for (int i = 0; i < 10; ++i) pts.push_back(pts[g.below(pts.size())]);
        const quoct::orthtree<T, D> tree(pts, quoct::build_options{4});
        quoct::dynamic_orthtree<T, D> moving;
        for (const auto& q : pts) moving.insert(q);
        for (int q = 0; q < 30; ++q) {
            const quoct::point<T, D> c = q % 2 ? pts[g.below(pts.size())] : near_point(g, centres[g.below(3)]);
            const std::size_t k = 1 + g.below(q % 3 == 0 ? 40 : 5);
            const T r = q % 4 == 0 ? extreme_value<T>(g) : std::numeric_limits<T>::infinity();
            const std::vector<Id> want = oracle_nearest(pts, c, k, r);
            for (int which = 0; which < 2; ++which) {
                std::vector<quoct::neighbor<T, Id>> got;
                if (which == 0) tree.nearest(c, k, r, got);
                else moving.nearest(c, k, r, got);
                std::vector<Id> ids;
                for (const auto& x : got) ids.push_back(x.id);
                INFO("set " << set << " query " << q << " k " << k << " r " << r << (which ? " dynamic" : " orthtree"));
                REQUIRE(ids == want);
                for (std::size_t i = 1; i < got.size(); ++i) CHECK(got[i - 1].distance_sq <= got[i].distance_sq);
            }
        }
    }
}

TEST_CASE("extremes: k-nearest reproducers", "[extremes][knn]") {
    using P1 = quoct::point<double, 1>;
    // Far apart: both squared distances overflow, yet 3e200 is nearer 2.9e200 than 0 is.
    const std::vector<P1> pts{P1{{0.0}}, P1{{3e200}}};
    const quoct::orthtree<double, 1> tree(pts);
    CHECK(tree.nearest(P1{{2.9e200}}, 2) == std::vector<std::uint32_t>{1, 0});
    std::vector<quoct::neighbor<double, std::uint32_t>> got;
    tree.nearest(P1{{0.0}}, 2, 2e200, got);
    REQUIRE(got.size() == 1);
    CHECK(got[0].id == 0);
    // Under T's smallest square: 2e-200 is nearer than 3e-200, though both squares are 0 in T.
    const std::vector<P1> tiny{P1{{3e-200}}, P1{{2e-200}}, P1{{-2.5e-200}}};
    const quoct::orthtree<double, 1> small(tiny);
    CHECK(small.nearest(P1{{0.0}}, 3) == std::vector<std::uint32_t>{1, 2, 0});
    small.nearest(P1{{0.0}}, 3, 0.0, got);
    CHECK(got.empty());
    small.nearest(P1{{0.0}}, 3, 2.5e-200, got);
    REQUIRE(got.size() == 2);
    CHECK(got[0].id == 1);
    CHECK(got[1].id == 2);
    // The query's own point first, at distance 0 exactly.
    CHECK(small.nearest(P1{{3e-200}}, 1) == std::vector<std::uint32_t>{0});
}

TEMPLATE_TEST_CASE("extremes: outward rounding steps as std::nextafter does, at zero, the subnormals and infinity",
                   "[extremes][geometry]", float, double) {
    using T = TestType;
    using lim = std::numeric_limits<T>;
    std::vector<T> xs = {T(0), -T(0), lim::denorm_min(), lim::min(), lim::max(), lim::infinity(), T(1), T(0.1),
                         lim::epsilon(), T(3e-30), T(7)};
    rng r(5);
    for (int i = 0; i < 200; ++i) xs.push_back(static_cast<T>(std::ldexp(r.uniform(0.5, 1), static_cast<int>(r() % 200) - 100)));
    const std::size_t base = xs.size();
    for (std::size_t i = 0; i < base; ++i) xs.push_back(-xs[i]);
    for (const T x : xs)
        for (const bool up : {false, true}) {
            CAPTURE(x, up);
            const T want = std::nextafter(x, up ? lim::infinity() : -lim::infinity());
            const T got = quoct::detail::step(x, up);
            CHECK((got == want && std::signbit(got) == std::signbit(want)));
        }
    CHECK(quoct::detail::minus_down(T(1), lim::infinity()) == -lim::infinity());
    CHECK(quoct::detail::plus_up(-lim::infinity(), T(1)) == -lim::max());
    CHECK(quoct::detail::plus_up(lim::max(), lim::max()) == lim::infinity());
}

}  // namespace test_extremes
