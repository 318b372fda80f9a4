// The periodic index (<quoct/periodic.hpp>): periodic_orthtree and periodic_index over a
// dynamic_orthtree, on tori and slabs (an axis that does not wrap), against brute force under
// the minimum image: ball and box queries with points on the wrap boundary and exact radii
// across it, pairs and neighbour lists, moves that wrap, input from flat arrays and
// std::array with distances, k nearest, Minkowski balls, and the edges of the floating-point
// range (node boxes past [0, L), tiny and huge periods, the exact big-integer rule).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <quoct/dynamic.hpp>
#include <quoct/minkowski.hpp>
#include <quoct/pairs.hpp>
#include <quoct/periodic.hpp>

#include "test_exact_support.hpp"
#include "test_minkowski_support.hpp"
#include "test_support.hpp"

namespace test_periodic {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

using namespace quoct_test;
using namespace quoct_test::exact_oracle;
using namespace quoct_test::minkowski_oracle;

namespace {

using pair_list = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

template <class T, std::size_t D>
std::vector<std::uint32_t> brute(const quoct::periodic_domain<T, D>& dom, const std::vector<quoct::point<T, D>>& pts,
                                 const quoct::point<T, D>& c, T r) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 0; i < pts.size(); ++i)
        if (dom.distance_sq(pts[i], c) <= r * r) out.push_back(i);
    return out;
}

// Integer minimum-image distance squared, computed without floating point.
template <class T, std::size_t D>
long lattice_distance_sq(const quoct::point<T, D>& p, const quoct::point<T, D>& q, long L) {
    long s = 0;
    for (std::size_t a = 0; a < D; ++a) {
        long d = std::labs(static_cast<long>(p[a]) - static_cast<long>(q[a])) % L;
        d = std::min(d, L - d);
        s += d * d;
    }
    return s;
}

template <class T, std::size_t D>
quoct::periodic_domain<T, D> cube(T L) {
    quoct::periodic_domain<T, D> d;
    d.length.fill(L);
    return d;
}

// The predicate of shapes.hpp under the minimum image: the rounded sum in T where it
// decides, the unbounded one (no overflow or underflow) where it does not. The last test
// case checks this rule against the exact big-integer oracle (test_exact_support.hpp).
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

template <class T, std::size_t D, class Index>
void check_periodic_nearest(const Index& index, const quoct::periodic_domain<T, D>& dom, const points<T, D>& pts,
                            const std::vector<bool>& live, rng& r, int L) {
    std::vector<quoct::neighbor<T, std::uint32_t>> got;
    for (int q = 0; q < 25; ++q) {
        quoct::point<T, D> c;
        for (std::size_t a = 0; a < D; ++a) c[a] = static_cast<T>(r.integer(0, L - 1));
        if (q % 5 == 0) c[0] = std::nextafter(static_cast<T>(L), T(0));  // on the wrap boundary
        std::vector<quoct::neighbor<T, std::uint32_t>> all;
        for (std::size_t i = 0; i < pts.size(); ++i)
            if (live[i]) all.push_back({static_cast<std::uint32_t>(i), dom.distance_sq(pts[i], c)});
        for (const std::size_t k : ks) {
            INFO("q=" << q << " k=" << k);
            index.nearest(c, k, got);
            CHECK(neighbor_diff(got, first_k(all, k, std::numeric_limits<T>::infinity())) == "");
            index.nearest(c, k, T(2), got);
            CHECK(neighbor_diff(got, first_k(all, k, T(4))) == "");
        }
    }
}

}  // namespace

// --- queries -----------------------------------------------------------------------------

TEMPLATE_TEST_CASE("periodic ball queries match brute force", "[periodic]", QUOCT_TEST_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    quoct_test::rng rng(3);
    const T L = T(2.5);
    for (int open_axis = 0; open_axis < 2; ++open_axis) {
        auto dom = cube<T, D>(L);
        if (open_axis) dom.length[D - 1] = 0;  // a slab: the last axis does not wrap
        std::vector<quoct::point<T, D>> pts(800);
        for (auto& p : pts) p = dom.wrap(quoct_test::random_point<T, D>(rng, T(-1), T(4)));
        // Points on the wrap boundary: exactly 0 and the largest value below L.
        pts[0].coords[0] = 0;
        pts[1] = pts[0];
        pts[1].coords[0] = std::nextafter(L, T(0));
        quoct::periodic_orthtree<T, D> index(dom, pts);
        for (int q = 0; q < 60; ++q) {
            auto c = dom.wrap(quoct_test::random_point<T, D>(rng, T(0), L));
            if (q % 10 == 0) c = pts[static_cast<std::size_t>(q) % pts.size()];
            const T r = static_cast<T>(0.05 + 0.6 * (q % 5));
            const auto expect = brute(dom, pts, c, r);
            CHECK(quoct_test::sorted(index.query(quoct::ball<T, D>{c, r})) == expect);
            CHECK(index.count(quoct::ball<T, D>{c, r}) == expect.size());
            std::vector<std::uint32_t> seen;
            index.visit(quoct::ball<T, D>{c, r}, [&](std::uint32_t id, const quoct::point<T, D>&) { seen.push_back(id); });
            CHECK(quoct_test::sorted(seen) == expect);
        }
        // Across the wrap: a point at 0 sees the point just below L, and the other way.
        const auto near = index.query(quoct::ball<T, D>{pts[0], T(0.001)});
        CHECK(std::find(near.begin(), near.end(), 1u) != near.end());
        const auto back = index.query(quoct::ball<T, D>{pts[1], T(0.001)});
        CHECK(std::find(back.begin(), back.end(), 0u) != back.end());
    }
}

TEMPLATE_TEST_CASE("periodic lattice: exact radii across the wrap", "[periodic]", QUOCT_TEST_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const long L = 6;
    const auto dom = cube<T, D>(T(L));
    std::vector<quoct::point<T, D>> pts;
    // The whole lattice {0..L-1}^D: every radius sqrt(k) hits points exactly, across the wrap too.
    std::size_t total = 1;
    for (std::size_t a = 0; a < D; ++a) total *= static_cast<std::size_t>(L);
    for (std::size_t i = 0; i < total; ++i) {
        quoct::point<T, D> p;
        std::size_t v = i;
        for (std::size_t a = 0; a < D; ++a) {
            p[a] = static_cast<T>(v % static_cast<std::size_t>(L));
            v /= static_cast<std::size_t>(L);
        }
        pts.push_back(p);
    }
    quoct::periodic_orthtree<T, D> index(dom, pts);
    for (long k2 : {0L, 1L, 2L, 3L, 4L, 5L, 9L}) {
        const T r = std::sqrt(static_cast<T>(k2));
        if (r * r != static_cast<T>(k2)) continue;  // only radii whose square is exact
        for (std::size_t ci : {std::size_t{0}, total - 1, total / 2}) {
            std::vector<std::uint32_t> expect;
            for (std::uint32_t i = 0; i < pts.size(); ++i)
                if (lattice_distance_sq(pts[i], pts[ci], L) <= k2) expect.push_back(i);
            CHECK(quoct_test::sorted(index.query(quoct::ball<T, D>{pts[ci], r})) == expect);
            CHECK(index.count(quoct::ball<T, D>{pts[ci], r}) == expect.size());
        }
        std::vector<std::pair<std::uint32_t, std::uint32_t>> expect_pairs;
        for (std::uint32_t i = 0; i < pts.size(); ++i)
            for (std::uint32_t j = i + 1; j < pts.size(); ++j)
                if (lattice_distance_sq(pts[i], pts[j], L) <= k2) expect_pairs.emplace_back(i, j);
        CHECK(quoct::pairs_within(index, r, 2) == expect_pairs);
    }
    // Radius 1 from the corner 0 reaches L-1 on every axis (2D neighbours wrap around).
    const auto around = index.query(quoct::ball<T, D>{pts[0], T(1)});
    CHECK(around.size() == 2 * D + 1);
}

TEMPLATE_TEST_CASE("periodic box queries: across the period's end when lo > hi, against an image-by-image oracle",
                   "[periodic]", QUOCT_TEST_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const long L = 8;
    auto dom = cube<T, D>(T(L));
    dom.length[D - 1] = 0;  // the last axis open: plain bounds there
    // A lattice with halves (dyadic: every coordinate exact), the open axis from -3 to 10.
    std::vector<quoct::point<T, D>> pts;
    quoct_test::rng rng(11);
    for (int i = 0; i < 1500; ++i) {
        quoct::point<T, D> p;
        for (std::size_t a = 0; a < D; ++a)
            p[a] = a == D - 1 ? static_cast<T>(long(rng() % 27) - 6) / 2 : static_cast<T>(long(rng() % (2 * L))) / 2;
        pts.push_back(p);
    }
    // In the box on a wrapping axis: some image x + kL, k in -2..2, lies in [lo, hi'], where
    // hi' = hi, or hi + L for a box across the end (lo > hi). Open axis: lo <= x <= hi.
    const auto oracle = [&](const quoct::box<T, D>& b) {
        std::vector<std::uint32_t> out;
        for (std::uint32_t i = 0; i < pts.size(); ++i) {
            bool in = true;
            for (std::size_t a = 0; a < D && in; ++a) {
                const double x = pts[i][a], lo = b.lo[a], hi = b.hi[a];
                if (!dom.wraps(a)) {
                    in = lo <= x && x <= hi;
                    continue;
                }
                const double top = lo <= hi ? hi : hi + double(L);
                bool any = false;
                for (long k = -2; k <= 2; ++k) any = any || (lo <= x + double(k * L) && x + double(k * L) <= top);
                in = any;
            }
            if (in) out.push_back(i);
        }
        return out;
    };
    quoct::periodic_orthtree<T, D> index(dom, pts);
    quoct::periodic_index<quoct::dynamic_orthtree<T, D>> moving(dom, pts);
    for (std::uint32_t i = 0; i < 300; i += 3) moving.erase(i);  // erased points must not come back
    for (int q = 0; q < 200; ++q) {
        quoct::box<T, D> b;
        for (std::size_t a = 0; a < D; ++a) {
            if (dom.wraps(a)) {
                b.lo[a] = static_cast<T>(long(rng() % (2 * L + 1))) / 2;  // 0 .. L, halves
                b.hi[a] = static_cast<T>(long(rng() % (2 * L + 1))) / 2;
            } else {
                const T x = static_cast<T>(long(rng() % 27) - 6) / 2, y = static_cast<T>(long(rng() % 27) - 6) / 2;
                b.lo[a] = std::min(x, y);
                b.hi[a] = std::max(x, y);
            }
        }
        if (q == 0) b.lo[0] = 0, b.hi[0] = T(L);  // the whole period
        INFO("box " << q);
        const auto expect = oracle(b);
        CHECK(quoct_test::sorted(index.query(b)) == expect);
        CHECK(index.count(b) == expect.size());
        std::vector<std::uint32_t> seen;
        index.visit(b, [&](std::uint32_t id, const quoct::point<T, D>&) { seen.push_back(id); });
        CHECK(quoct_test::sorted(seen) == expect);
        std::vector<std::uint32_t> live;
        for (std::uint32_t id : expect)
            if (!(id < 300 && id % 3 == 0)) live.push_back(id);
        CHECK(quoct_test::sorted(moving.query(b)) == live);
        CHECK(moving.count(b) == live.size());
    }
    // Bad boxes: a bound outside [0, L] on a wrapping axis, lo > hi on the open axis, NaN.
    quoct::box<T, D> bad;
    for (std::size_t a = 0; a < D; ++a) bad.lo[a] = 0, bad.hi[a] = 1;
    bad.lo[0] = T(-0.5);
    CHECK_THROWS_AS(index.query(bad), std::invalid_argument);
    bad.lo[0] = 0;
    bad.hi[0] = T(L) + 1;
    CHECK_THROWS_AS(index.count(bad), std::invalid_argument);
    bad.hi[0] = 1;
    bad.lo[D - 1] = 2;
    CHECK_THROWS_AS(moving.query(bad), std::invalid_argument);
    bad.lo[D - 1] = std::numeric_limits<T>::quiet_NaN();
    CHECK_THROWS_AS(index.visit(bad, [](std::uint32_t, const quoct::point<T, D>&) {}), std::invalid_argument);
}

// --- pairs and neighbour lists -----------------------------------------------------------

TEMPLATE_TEST_CASE("periodic pairs and neighbour lists match brute force", "[periodic]", QUOCT_TEST_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    quoct_test::rng rng(21);
    const auto dom = cube<T, D>(T(1));
    std::vector<quoct::point<T, D>> pts(600);
    for (auto& p : pts) p = dom.wrap(quoct_test::random_point<T, D>(rng, T(0), T(1)));
    quoct::periodic_orthtree<T, D> index(dom, pts);
    for (T r : {T(0.02), T(0.12), T(0.6)}) {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> expect;
        for (std::uint32_t i = 0; i < pts.size(); ++i)
            for (std::uint32_t j = i + 1; j < pts.size(); ++j)
                if (dom.distance_sq(pts[i], pts[j]) <= r * r) expect.emplace_back(i, j);
        CHECK(quoct::pairs_within(index, r) == expect);
        CHECK(quoct::pairs_within(index, r, 3) == expect);
        std::size_t calls = 0;
        quoct::for_each_pair_within(index, r, [&](std::uint32_t i, std::uint32_t j, T d2) {
            CHECK(d2 == dom.distance_sq(pts[i], pts[j]));
            ++calls;
        });
        CHECK(calls == expect.size());
        const auto lists = quoct::neighbor_lists(index, r, 2);
        std::size_t total = 0;
        for (std::size_t i = 0; i < lists.rows(); ++i) {
            CHECK(std::is_sorted(lists.row(i).begin(), lists.row(i).end()));
            total += lists.row(i).size();
        }
        CHECK(total == 2 * expect.size());
    }
}

// --- the dynamic index: moves ------------------------------------------------------------

TEMPLATE_TEST_CASE("periodic dynamic index: moves wrap, bad input rejected", "[periodic]", QUOCT_TEST_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    quoct_test::rng rng(8);
    const auto dom = cube<T, D>(T(3));
    std::vector<quoct::point<T, D>> pts(300);
    for (auto& p : pts) p = dom.wrap(quoct_test::random_point<T, D>(rng, T(0), T(3)));
    quoct::periodic_index<quoct::dynamic_orthtree<T, D>> index(dom, pts);
    for (int step = 0; step < 400; ++step) {
        const auto id = static_cast<std::uint32_t>(rng() % pts.size());
        auto p = pts[id];
        for (std::size_t a = 0; a < D; ++a) p[a] += static_cast<T>(0.3);
        pts[id] = dom.wrap(p);
        index.move(id, pts[id]);
        if (step % 40 == 0) {
            const auto c = dom.wrap(quoct_test::random_point<T, D>(rng, T(0), T(3)));
            const auto expect = brute(dom, pts, c, T(0.4));
            CHECK(quoct_test::sorted(index.query(quoct::ball<T, D>{c, T(0.4)})) == expect);
            CHECK(index.count(quoct::ball<T, D>{c, T(0.4)}) == expect.size());
            std::vector<std::uint32_t> seen;
            index.visit(quoct::ball<T, D>{c, T(0.4)}, [&](std::uint32_t id, const quoct::point<T, D>&) { seen.push_back(id); });
            CHECK(quoct_test::sorted(seen) == expect);
        }
    }
    // Every point at once, the time step of a simulation: a drift, wrapped; one id erased.
    CHECK(index.erase(7));
    pts.erase(pts.begin() + 7);
    std::vector<quoct::point<T, D>> moved(index.id_bound());
    std::vector<std::uint32_t> ids;
    for (std::uint32_t id = 0; id < index.id_bound(); ++id) {
        if (!index.contains(id)) continue;
        auto p = index.point(id);
        for (std::size_t a = 0; a < D; ++a) p[a] += static_cast<T>(0.75 + 0.125 * static_cast<double>(a));
        moved[id] = dom.wrap(p);
        ids.push_back(id);
    }
    moved[7][0] = std::numeric_limits<T>::quiet_NaN();  // an erased id's entry is not read
    index.move_all(moved);
    for (int q = 0; q < 10; ++q) {
        const auto c = dom.wrap(quoct_test::random_point<T, D>(rng, T(0), T(3)));
        std::vector<std::uint32_t> expect;
        for (const std::uint32_t id : ids)
            if (dom.distance_sq(moved[id], c) <= T(0.4) * T(0.4)) expect.push_back(id);
        CHECK(quoct_test::sorted(index.query(quoct::ball<T, D>{c, T(0.4)})) == expect);
    }
    // A new place outside the domain, or the wrong count: refused, nothing moved.
    auto unwrapped = moved;
    unwrapped[ids.back()][0] = T(3);
    CHECK_THROWS_AS(index.move_all(unwrapped), std::invalid_argument);
    unwrapped.pop_back();
    CHECK_THROWS_AS(index.move_all(unwrapped), std::invalid_argument);
    for (const std::uint32_t id : ids) CHECK(index.point(id) == moved[id]);
    for (const std::uint32_t id : ids) pts[id - (id > 7)] = moved[id];

    auto outside = pts[0];
    outside[0] = T(3);  // == L: outside [0, L)
    CHECK_THROWS_AS(index.move(0, outside), std::invalid_argument);
    CHECK_THROWS_AS(index.insert(outside), std::invalid_argument);
    outside[0] = T(-0.0001);
    CHECK_THROWS_AS(index.insert(outside), std::invalid_argument);
    CHECK_THROWS_AS(index.query(quoct::ball<T, D>{outside, T(1)}), std::invalid_argument);
    CHECK_THROWS_AS(index.query(quoct::ball<T, D>{pts[0], T(-1)}), std::invalid_argument);
    CHECK_THROWS_AS(index.move(100000, pts[0]), std::out_of_range);
    CHECK(index.point(0) == pts[0]);
    CHECK(index.size() == pts.size());
    std::vector<quoct::point<T, D>> bad(pts);
    bad[5] = outside;
    CHECK_THROWS_AS((quoct::periodic_orthtree<T, D>(dom, bad)), std::invalid_argument);
    auto bad_dom = dom;
    bad_dom.length[0] = -1;
    CHECK_THROWS_AS((quoct::periodic_orthtree<T, D>(bad_dom, pts)), std::invalid_argument);
    // wrap lands in [0, L) even for values that round to L.
    quoct::point<T, D> tiny;
    for (std::size_t a = 0; a < D; ++a) tiny[a] = -std::numeric_limits<T>::denorm_min();
    CHECK(dom.contains(dom.wrap(tiny)));
}

// --- input and distances -----------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("periodic_index builds from flat arrays and std::array, gives points back and distances",
                        "[distances][periodic][input]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    quoct::periodic_domain<T, D> domain;
    for (std::size_t a = 0; a < D; ++a) domain.length[a] = a == 1 ? T(0) : T(16);
    auto pts = make_points<T, D>(kind::dyadic, 2000, 5);
    for (auto& p : pts) {
        for (std::size_t a = 0; a < D; ++a) p[a] = p[a] + T(4);  // dyadic in [0, 8]
        p = domain.wrap(p);
    }
    const auto flat = flatten(pts);
    const quoct::periodic_orthtree<T, D> torus(domain, flat.data(), pts.size());
    const quoct::periodic_orthtree<T, D> from_arrays(domain, as_arrays(pts));
    const quoct::periodic_index<quoct::dynamic_orthtree<T, D>> moving(domain, flat.data(), pts.size());
    for (std::size_t i = 0; i < pts.size(); i += 37) {
        CHECK(torus.point(static_cast<std::uint32_t>(i)) == pts[i]);
        CHECK(moving.point(static_cast<std::uint32_t>(i)) == pts[i]);
    }
    const auto dist = [&](const quoct::point<T, D>& p, const quoct::point<T, D>& c) { return domain.distance_sq(p, c); };
    for (auto s : make_balls(pts, 40, 6)) {
        s.center = domain.wrap(s.center);
        if (!domain.contains(s.center)) continue;
        check_within(torus, pts, s, dist);
        check_within(from_arrays, pts, s, dist);
        check_within(moving, pts, s, dist);
    }
    auto bad = flat;
    bad[0] = T(-1);
    CHECK_THROWS_WITH((quoct::periodic_orthtree<T, D>(domain, bad.data(), pts.size())), Catch::Contains("point 0"));
}

// --- nearest -----------------------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("periodic_index: nearest under the minimum image equals brute force", "[knn][periodic]",
                        all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const int L = 10;
    for (int slab = 0; slab < 2; ++slab) {
        quoct::periodic_domain<T, D> dom;
        dom.length.fill(static_cast<T>(L));
        if (slab) dom.length[D - 1] = 0;  // the last axis does not wrap
        rng r(40 + static_cast<std::uint64_t>(slab));
        points<T, D> pts(1500);
        for (auto& p : pts)
            for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(r.integer(0, L - 1));
        pts[0][0] = std::nextafter(static_cast<T>(L), T(0));  // just below the period
        std::vector<bool> live(pts.size(), true);
        const quoct::periodic_orthtree<T, D> fixed(dom, pts, quoct::build_options{6});
        check_periodic_nearest(fixed, dom, pts, live, r, L);

        quoct::dynamic_options opt;
        opt.tail_limit = 8;
        opt.tree.leaf_size = 4;
        quoct::periodic_index<quoct::dynamic_orthtree<T, D>> moving(dom, pts, opt);
        for (int i = 0; i < 300; ++i) {
            const std::size_t id = r.below(pts.size());
            if (!live[id]) continue;
            if (i % 7 == 0) {
                moving.erase(static_cast<std::uint32_t>(id));
                live[id] = false;
                continue;
            }
            for (std::size_t a = 0; a < D; ++a) pts[id][a] = static_cast<T>(r.integer(0, L - 1));
            moving.move(static_cast<std::uint32_t>(id), pts[id]);
        }
        check_periodic_nearest(moving, dom, pts, live, r, L);

        std::vector<quoct::neighbor<T, std::uint32_t>> out;
        auto outside = splat<T, D>(T(0));
        outside[0] = static_cast<T>(L);
        CHECK_THROWS_AS(fixed.nearest(outside, 1, out), std::invalid_argument);
        CHECK_THROWS_AS(fixed.nearest(splat<T, D>(T(0)), 0, out), std::invalid_argument);
        CHECK_THROWS_AS(fixed.nearest(splat<T, D>(T(0)), 1, T(-1), out), std::invalid_argument);
    }
}

// --- Minkowski norms ---------------------------------------------------------------------

TEST_CASE("minkowski: every norm under the minimum image matches brute force on a torus", "[minkowski][periodic]") {
    // A 12 x 12 (x 6) integer lattice on a torus of the same size: many points at exactly r,
    // some only across the wrap; one axis that does not wrap in 3D.
    std::vector<quoct::point<double, 2>> pts2;
    for (int x = 0; x < 12; ++x)
        for (int y = 0; y < 12; ++y) pts2.push_back({double(x), double(y)});
    std::vector<quoct::point<double, 3>> pts3;
    for (int x = 0; x < 6; ++x)
        for (int y = 0; y < 6; ++y)
            for (int z = 0; z < 6; ++z) pts3.push_back({x * 0.5, y * 0.5, z * 0.5});
    quoct::build_options options;
    options.leaf_size = 3;
    const auto run = [&](const auto& pts, const auto& domain, const auto& centres, const std::vector<double>& radii) {
        using P = typename std::decay_t<decltype(pts)>::value_type;
        constexpr std::size_t D = P::dimension;
        const quoct::periodic_orthtree<double, D> index(domain, pts, options);
        for (const quoct::norm n : all_norms)
            for (const P& c : centres)
                for (const double r : radii) {
                    INFO(name_of(n) << ", radius " << r);
                    const auto ball = quoct::make_periodic_minkowski_ball(index, c, r, n);
                    const auto want = brute_ball<double, D>(pts, c, r, n, &domain.length);
                    std::vector<std::uint32_t> got;
                    index.base().query_shape(ball, got);
                    std::sort(got.begin(), got.end());
                    REQUIRE(got == want);
                    REQUIRE(index.base().count_shape(ball) == want.size());
                    for (const std::size_t k : {std::size_t{1}, std::size_t{9}, std::size_t{50}}) {
                        const auto expected = brute_nearest<double, D>(pts, c, k, n, r, &domain.length);
                        const auto found = quoct::nearest(index, c, k, n, r);
                        REQUIRE(found.size() == expected.size());
                        for (std::size_t i = 0; i < found.size(); ++i) {
                            REQUIRE(found[i].id == expected[i].second);
                            REQUIRE(found[i].distance_sq == expected[i].first);
                        }
                    }
                }
    };
    quoct::periodic_domain<double, 2> d2;
    d2.length = {12, 12};
    run(pts2, d2, std::vector<quoct::point<double, 2>>{{0, 0}, {11, 11}, {5.5, 0.5}, {6, 3}},
        std::vector<double>{0, 1, 2, 3, 5.5, 6, 20});
    quoct::periodic_domain<double, 3> d3;
    d3.length = {3, 3, 0};  // z does not wrap
    run(pts3, d3, std::vector<quoct::point<double, 3>>{{0, 0, 0}, {2.5, 2.5, 2.5}, {1.25, 0, 7}},
        std::vector<double>{0, 0.5, 1, 1.5, 2.5});
    // The centre must be in the domain; k and the radius are checked.
    const quoct::periodic_orthtree<double, 2> index(d2, pts2);
    CHECK_THROWS_AS(quoct::make_periodic_minkowski_ball(index, {12, 0}, 1.0, quoct::norm::l1), std::invalid_argument);
    CHECK_THROWS_AS(quoct::make_periodic_minkowski_ball(index, {1, 1}, -1.0, quoct::norm::l1), std::invalid_argument);
    CHECK_THROWS_AS(quoct::nearest(index, {-1, 0}, 3, quoct::norm::linf), std::invalid_argument);
    CHECK_THROWS_AS(quoct::nearest(index, {1, 0}, 0, quoct::norm::linf), std::invalid_argument);
}

// --- extremes ----------------------------------------------------------------------------

TEST_CASE("periodic: node boxes reaching past the domain do not prune", "[periodic][extremes]") {
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

TEMPLATE_TEST_CASE("periodic_ball_query classifies any box conservatively", "[periodic][extremes]", float, double,
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
            const quoct::periodic_ball_query<T, D> q(dom, c, r);
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

TEMPLATE_TEST_CASE("periodic index at the wrap, with tiny and huge periods", "[periodic][extremes]", float, double,
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

TEMPLATE_TEST_CASE("extremes: periodic balls with huge and tiny periods follow the exact rule", "[extremes][periodic]",
                   float, double) {
    using T = TestType;
    constexpr std::size_t D = 2;
    constexpr int p = std::numeric_limits<T>::digits;
    rng g(37);
    for (const T length : {std::numeric_limits<T>::max() / 2, std::sqrt(std::numeric_limits<T>::max()) * 4,
                           std::numeric_limits<T>::denorm_min() * 64, T(1)}) {
        const quoct::periodic_domain<T, D> domain{{length, T(0)}};  // axis 1 does not wrap
        points<T, D> pts;
        for (int i = 0; i < 200; ++i) {
            quoct::point<T, D> q;
            q[0] = std::ldexp(T(g.below(1 << 12)), -12) * length;
            q[0] = q[0] < length ? q[0] : T(0);
            q[1] = signed_extreme<T>(g);
            pts.push_back(q);
        }
        const quoct::periodic_orthtree<T, D> index(domain, pts, quoct::build_options{4});
        for (int q = 0; q < 40; ++q) {
            const quoct::point<T, D> c = pts[g.below(pts.size())];
            const T r = extreme_value<T>(g);
            std::vector<std::uint32_t> want;
            for (std::size_t i = 0; i < pts.size(); ++i) {
                const bool in = oracle_within<T, D>(
                    [&](std::size_t a) {
                        if (a == 0) return exact(domain.axis_distance(0, pts[i][0], c[0]));
                        return round_to(align_add(exact(pts[i][1]), exact(c[1]), true), p);
                    },
                    r);
                if (in) want.push_back(static_cast<std::uint32_t>(i));
            }
            INFO("length " << length << " query " << q << " r " << r);
            REQUIRE(id_diff(index.query(quoct::ball<T, D>{c, r}), want) == "");
            REQUIRE(index.count(quoct::ball<T, D>{c, r}) == want.size());
            // k-nearest under the minimum image, by the oracle's distance.
            std::vector<std::pair<dyadic, std::uint32_t>> all;
            for (std::size_t i = 0; i < pts.size(); ++i)
                all.emplace_back(oracle_sum<T, D>([&](std::size_t a) {
                                     if (a == 0) return exact(domain.axis_distance(0, pts[i][0], c[0]));
                                     return round_to(align_add(exact(pts[i][1]), exact(c[1]), true), p);
                                 }),
                                 static_cast<std::uint32_t>(i));
            std::sort(all.begin(), all.end(), oracle_before);
            const std::size_t k = 1 + g.below(12);
            std::vector<std::uint32_t> nearest_want;
            for (std::size_t i = 0; i < k; ++i) nearest_want.push_back(all[i].second);
            REQUIRE(index.nearest(c, k) == nearest_want);
        }
    }
}

}  // namespace test_periodic
