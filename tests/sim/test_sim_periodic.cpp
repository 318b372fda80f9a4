// Periodic domains: minimum-image queries and pair searches against brute force, with
// points on the wrap boundary and radii that hit lattice points exactly across it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include <quoct/dynamic.hpp>
#include <quoct/pairs.hpp>
#include <quoct/periodic.hpp>

#include "test_support.hpp"

namespace test_sim_periodic {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

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

}  // namespace

TEMPLATE_TEST_CASE("periodic ball queries match brute force", "[sim][periodic]", QUOCT_TEST_CONFIGS) {
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

TEMPLATE_TEST_CASE("periodic lattice: exact radii across the wrap", "[sim][periodic]", QUOCT_TEST_CONFIGS) {
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

TEMPLATE_TEST_CASE("periodic pairs and neighbour lists match brute force", "[sim][periodic]", QUOCT_TEST_CONFIGS) {
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

TEMPLATE_TEST_CASE("periodic dynamic index: moves wrap, bad input rejected", "[sim][periodic]", QUOCT_TEST_CONFIGS) {
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

TEMPLATE_TEST_CASE("periodic box queries: across the period's end when lo > hi, against an image-by-image oracle",
                   "[sim][periodic]", QUOCT_TEST_CONFIGS) {
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

}  // namespace test_sim_periodic
