// The k-nearest engine (detail/knn.hpp) and everything fed through it: the result set alone,
// the capped k-nearest of orthtree and dynamic_orthtree, and the dynamic index's nearest with
// its snapshot, levels and tail in one search (the periodic index's nearest is tested in
// periodic/test_periodic.cpp). Oracles: brute-force sorts by (distance, id) over the
// documented predicates (first_k, test_support.hpp), on integer coordinates so that ties are
// many and exact.
#include <catch2/catch.hpp>

#include <quoct/detail/knn.hpp>
#include <quoct/dynamic.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace test_knn {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

using namespace quoct_test;

namespace {

template <class T, class Id>
std::string diff(const std::vector<quoct::neighbor<T, Id>>& got, const std::vector<quoct::neighbor<T, Id>>& want) {
    if (got.size() != want.size())
        return "size " + std::to_string(got.size()) + " instead of " + std::to_string(want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i].id != want[i].id || !(got[i].distance_sq == want[i].distance_sq))
            return "at " + std::to_string(i) + ": id " + std::to_string(got[i].id) + " d " +
                   std::to_string(static_cast<double>(got[i].distance_sq)) + " instead of id " +
                   std::to_string(want[i].id) + " d " + std::to_string(static_cast<double>(want[i].distance_sq));
    return "";
}

// Integer points in [-m, m]^D: many exact ties.
template <class T, std::size_t D>
points<T, D> int_points(std::size_t n, std::uint64_t seed, int m) {
    rng r(seed);
    points<T, D> pts(n);
    for (auto& p : pts)
        for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(r.integer(-m, m));
    return pts;
}

template <class T, std::size_t D>
std::vector<quoct::neighbor<T, std::uint32_t>> all_distances(const points<T, D>& pts, const quoct::point<T, D>& p) {
    std::vector<quoct::neighbor<T, std::uint32_t>> all(pts.size());
    for (std::size_t i = 0; i < pts.size(); ++i) all[i] = {static_cast<std::uint32_t>(i), quoct::distance_sq(pts[i], p)};
    return all;
}

}  // namespace

TEST_CASE("knn_set keeps the first k by (distance, id) under a limit, in any offer order", "[knn]") {
    rng r(11);
    for (int round = 0; round < 40; ++round) {
        const std::size_t n = 1 + r.below(300);
        std::vector<quoct::neighbor<double, std::uint32_t>> cands(n);
        for (std::size_t i = 0; i < n; ++i) cands[i] = {static_cast<std::uint32_t>(i), static_cast<double>(r.below(20))};
        // shuffle: the set must not depend on the order of offers
        for (std::size_t i = n; i > 1; --i) std::swap(cands[i - 1], cands[r.below(i)]);
        const double limits[] = {std::numeric_limits<double>::infinity(), 7.0, 0.0};
        for (const double limit : limits)
            for (const std::size_t k : ks) {
                INFO("n=" << n << " k=" << k << " limit=" << limit);
                std::vector<quoct::neighbor<double, std::uint32_t>> out;
                quoct::detail::knn_set<double, std::uint32_t> set(out, k, limit);
                for (const auto& c : cands)
                    if (c.distance_sq <= set.bound()) set.offer(c.id, c.distance_sq);
                set.finish();
                CHECK(diff(out, first_k(cands, k, limit)) == "");
            }
    }
}

TEST_CASE("knn_set offered by keys breaks ties by the ids the keys map to", "[knn]") {
    // As a tree offers its points: by storage position, whose order is not the ids' order.
    rng r(12);
    for (int round = 0; round < 40; ++round) {
        const std::size_t n = 1 + r.below(300);
        std::vector<std::uint32_t> id_of_key(n);
        for (std::size_t i = 0; i < n; ++i) id_of_key[i] = static_cast<std::uint32_t>(i);
        for (std::size_t i = n; i > 1; --i) std::swap(id_of_key[i - 1], id_of_key[r.below(i)]);
        std::vector<quoct::neighbor<double, std::uint32_t>> cands(n);  // by id
        std::vector<std::uint32_t> offer_order(n);
        for (std::size_t key = 0; key < n; ++key) {
            cands[key] = {id_of_key[key], static_cast<double>(r.below(20))};
            offer_order[key] = static_cast<std::uint32_t>(key);
        }
        for (std::size_t i = n; i > 1; --i) std::swap(offer_order[i - 1], offer_order[r.below(i)]);
        const auto id_of = [&id_of_key](std::uint32_t key) { return id_of_key[key]; };
        const double limits[] = {std::numeric_limits<double>::infinity(), 7.0};
        for (const double limit : limits)
            for (const std::size_t k : ks) {
                INFO("n=" << n << " k=" << k << " limit=" << limit);
                std::vector<quoct::neighbor<double, std::uint32_t>> out;
                quoct::detail::knn_set<double, std::uint32_t, quoct::neighbor<double, std::uint32_t>, decltype(id_of)>
                    set(out, k, limit, id_of);
                for (const std::uint32_t key : offer_order)
                    if (cands[key].distance_sq <= set.bound()) set.offer(key, cands[key].distance_sq);
                set.finish();
                CHECK(diff(out, first_k(cands, k, limit)) == "");
            }
    }
}

TEMPLATE_LIST_TEST_CASE("orthtree: capped nearest equals brute force, ties and the boundary included", "[knn][orthtree]",
                        all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const auto pts = int_points<T, D>(3000, 21, 12);
    const quoct::orthtree<T, D> tree(pts, quoct::build_options{8});
    rng r(5);
    std::vector<quoct::neighbor<T, std::uint32_t>> got;
    for (int q = 0; q < 40; ++q) {
        quoct::point<T, D> p;
        for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(r.integer(-14, 14));
        const auto all = all_distances(pts, p);
        const T radii[] = {T(0), T(1), T(2), T(3), std::sqrt(T(5)), T(6.5), std::numeric_limits<T>::infinity()};
        for (const T radius : radii)
            for (const std::size_t k : ks) {
                INFO("q=" << q << " k=" << k << " r=" << radius);
                tree.nearest(p, k, radius, got);
                CHECK(diff(got, first_k(all, k, radius * radius)) == "");
            }
        for (const std::size_t k : ks) {
            tree.nearest(p, k, got);
            CHECK(diff(got, first_k(all, k, std::numeric_limits<T>::infinity())) == "");
        }
    }
    // A point at exactly the radius is in: the predicate of query().
    const quoct::point<T, D> c = pts[0];
    const T radius = T(3);
    tree.nearest(c, pts.size(), radius, got);
    std::vector<std::uint32_t> ids;
    for (const auto& n : got) ids.push_back(n.id);
    CHECK(id_diff(sorted(ids), sorted(tree.query(quoct::ball<T, D>{c, radius}))) == "");
}

TEMPLATE_LIST_TEST_CASE("orthtree: nearest with a small k-ball on a grid, queries on node faces", "[knn][orthtree]",
                        all_configs) {
    // Distinct points on a dyadic grid, so node boxes share faces with the k-ball exactly:
    // the search stops once the k-ball lies inside an internal node's box, and must not stop
    // when the ball only touches a face (a point beyond it may tie the worst kept one).
    // Queries on grid points, on half steps (faces of cells) and in between; small leaves
    // make deep trees, 1 makes every leaf a single cell, 32 merges sibling runs.
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const int side = D == 2 ? 64 : 16;
    rng r(33);
    points<T, D> pts;
    for (std::size_t i = 0; i < (D == 2 ? 2500u : 2000u); ++i) {
        quoct::point<T, D> p;
        for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(r.integer(0, side - 1)) / T(4);
        pts.push_back(p);
    }
    std::vector<quoct::neighbor<T, std::uint32_t>> got;
    for (const std::size_t leaf : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{32}}) {
        const quoct::orthtree<T, D> tree(pts, quoct::build_options{leaf});
        for (int q = 0; q < 150; ++q) {
            quoct::point<T, D> p;
            const T step = q % 3 == 0 ? T(1) : q % 3 == 1 ? T(2) : T(8);  // quarters, eighths, 32nds
            for (std::size_t a = 0; a < D; ++a)
                p[a] = static_cast<T>(r.integer(-2, static_cast<std::int64_t>(side * step) + 1)) / (T(4) * step);
            const auto all = all_distances(pts, p);
            for (const std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}}) {
                INFO("leaf=" << leaf << " q=" << q << " k=" << k);
                tree.nearest(p, k, got);
                CHECK(diff(got, first_k(all, k, std::numeric_limits<T>::infinity())) == "");
            }
        }
    }
}

TEMPLATE_LIST_TEST_CASE("orthtree: nearest from the leaf located by key, at the edges of the grid", "[knn][orthtree]",
                        all_configs) {
    // The search starts at the leaf whose Morton cell holds the query (a binary search over
    // the node keys; or, without build_options::nearest_index, the leaf reached by descent)
    // and must give the brute-force answer from any start: queries far below
    // and above every key, on the bounds, inside tight clusters whose subtrees were sorted
    // on grids of their own (their points share one key of the root grid), among exact
    // duplicates, and on trees of one and two points.
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    rng r(71);
    points<T, D> pts;
    for (int c = 0; c < 6; ++c) {  // clusters 2^-20 wide, far apart: requantized subtrees
        quoct::point<T, D> centre;
        for (std::size_t a = 0; a < D; ++a) centre[a] = static_cast<T>(r.integer(-1000, 1000));
        for (int i = 0; i < 90; ++i) {
            quoct::point<T, D> p = centre;
            for (std::size_t a = 0; a < D; ++a) p[a] += static_cast<T>(r.integer(0, 7)) * std::ldexp(T(1), -23);
            pts.push_back(p);
        }
    }
    for (int i = 0; i < 200; ++i) {  // scattered points, some repeated exactly
        quoct::point<T, D> p;
        for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(r.integer(-1000, 1000));
        pts.push_back(p);
        if (i % 7 == 0) pts.push_back(p);
    }
    std::vector<quoct::point<T, D>> queries;
    for (std::size_t a = 0; a < D; ++a) {
        for (const T v : {T(-1e30), T(-1e6), T(-1000), T(1000), T(1e6), T(1e30)}) {
            quoct::point<T, D> p = pts[0];
            p[a] = v;
            queries.push_back(p);
        }
    }
    quoct::point<T, D> low, high;
    for (std::size_t a = 0; a < D; ++a) low[a] = T(-1e30), high[a] = T(1e30);
    queries.push_back(low);
    queries.push_back(high);
    for (std::size_t i = 0; i < pts.size(); i += 37) {
        queries.push_back(pts[i]);  // on a point: its duplicates and cluster mates tie or are next
        quoct::point<T, D> p = pts[i];
        for (std::size_t a = 0; a < D; ++a) p[a] += std::ldexp(T(1), -24) * static_cast<T>(r.integer(-3, 3));
        queries.push_back(p);
    }
    std::vector<quoct::neighbor<T, std::uint32_t>> got;
    for (const std::size_t leaf : {std::size_t{1}, std::size_t{4}, std::size_t{32}})
    for (const bool index : {true, false}) {  // located by key, or found by descent
        quoct::build_options options{leaf};
        options.nearest_index = index;
        const quoct::orthtree<T, D> tree(pts, options);
        for (std::size_t q = 0; q < queries.size(); ++q) {
            const auto all = all_distances(pts, queries[q]);
            for (const std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{10}, std::size_t{100}}) {
                INFO("leaf=" << leaf << " index=" << index << " q=" << q << " k=" << k);
                tree.nearest(queries[q], k, got);
                CHECK(diff(got, first_k(all, k, std::numeric_limits<T>::infinity())) == "");
            }
        }
    }
    for (const std::size_t n : {std::size_t{1}, std::size_t{2}}) {
        const points<T, D> few(pts.begin(), pts.begin() + static_cast<std::ptrdiff_t>(n));
        const quoct::orthtree<T, D> tree(few);
        for (const auto& p : queries) {
            tree.nearest(p, 1, got);
            CHECK(diff(got, first_k(all_distances(few, p), 1, std::numeric_limits<T>::infinity())) == "");
        }
    }
}

TEMPLATE_LIST_TEST_CASE("orthtree: the start leaf offered nearest first, by buckets of distance", "[knn][orthtree]",
                        all_configs) {
    // The leaf a search starts from offers its points bucket by bucket (64 buckets of
    // d * scale, scale = 64 / the leaf's farthest distance) and stops at the first bucket
    // whose lower edge lies beyond the bound. On small integers the squared distances are
    // small integers and the farthest often a power of two, so many distances fall exactly
    // on bucket edges and tie the bound there; among them are leaves whose points all sit
    // on the query (farthest 0: no buckets), leaves of more than 64 points (none either),
    // and capped searches, whose bound is set before the first offer.
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    rng r(91);
    points<T, D> pts;
    for (int i = 0; i < 1500; ++i) {
        quoct::point<T, D> p;
        for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(r.integer(-4, 4));
        pts.push_back(p);
    }
    quoct::point<T, D> pile;  // 40 copies of one point: a leaf with every distance equal
    for (std::size_t a = 0; a < D; ++a) pile[a] = T(40);
    for (int i = 0; i < 40; ++i) pts.push_back(pile);
    std::vector<quoct::neighbor<T, std::uint32_t>> got;
    for (const std::size_t leaf : {std::size_t{8}, std::size_t{32}, std::size_t{64}, std::size_t{65}, std::size_t{200}}) {
        const quoct::orthtree<T, D> tree(pts, quoct::build_options{leaf});
        for (int q = 0; q < 60; ++q) {
            quoct::point<T, D> p;
            for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(r.integer(-5, 5));
            if (q == 0) p = pile;
            const auto all = all_distances(pts, p);
            for (const std::size_t k : {std::size_t{2}, std::size_t{3}, std::size_t{10}, std::size_t{40}, std::size_t{90}}) {
                INFO("leaf=" << leaf << " q=" << q << " k=" << k);
                tree.nearest(p, k, got);
                CHECK(diff(got, first_k(all, k, std::numeric_limits<T>::infinity())) == "");
                for (const T radius : {T(1), T(2), T(3)}) {
                    tree.nearest(p, k, radius, got);
                    CHECK(diff(got, first_k(all, k, radius * radius)) == "");
                }
            }
        }
    }
}

TEST_CASE("orthtree: the start leaf offers its points by buckets of distance, not in storage order", "[knn][orthtree]") {
    // 64 points on a line in one leaf, stored (Morton order) from the farthest from the
    // query to the nearest. In storage order each point would be nearer than the last and
    // enter the set: 64 offers. By buckets, the nearest bucket (the 8 points within
    // sqrt(far^2 / 64) of the query) is offered first and fills the set, and the next
    // bucket lies beyond the bound: 8 offers.
    std::vector<quoct::point<double, 2>> pts;
    for (int i = 0; i < 64; ++i) pts.push_back({double(i), 0.0});
    const quoct::orthtree<double, 2> tree(pts, quoct::build_options{64});
    REQUIRE(tree.node_count() == 1);
    const quoct::point<double, 2> q{63.25, 0};
    std::vector<quoct::neighbor<double, std::uint32_t>> out;
    quoct::detail::knn_set<double, std::uint32_t> set(out, 3, std::numeric_limits<double>::infinity());
    std::size_t offers = 0;
    tree.search_nearest(quoct::detail::euclidean_nearest_metric<double, 2>{q}, set, [&](std::uint32_t id, double d) {
        ++offers;
        set.offer(id, d);
    });
    set.finish();
    REQUIRE(out.size() == 3);
    CHECK(out[0].id == 63);
    CHECK(out[1].id == 62);
    CHECK(out[2].id == 61);
    CHECK(offers <= 8);
}

TEMPLATE_LIST_TEST_CASE("orthtree: capped nearest rejects bad input", "[knn][orthtree]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const auto pts = int_points<T, D>(100, 2, 5);
    const quoct::orthtree<T, D> tree(pts);
    std::vector<quoct::neighbor<T, std::uint32_t>> out{{7u, T(1)}};
    const auto p = splat<T, D>(0);
    CHECK_THROWS_AS(tree.nearest(p, 3, T(-1), out), std::invalid_argument);
    CHECK_THROWS_AS(tree.nearest(p, 3, std::numeric_limits<T>::quiet_NaN(), out), std::invalid_argument);
    CHECK_THROWS_AS(tree.nearest(p, 0, T(1), out), std::invalid_argument);
    CHECK_THROWS_AS(tree.nearest(splat<T, D>(std::numeric_limits<T>::infinity()), 3, T(1), out), std::invalid_argument);
    REQUIRE(out.size() == 1);  // untouched on throw
    CHECK(out[0].id == 7u);
    const quoct::orthtree<T, D> none;
    none.nearest(p, 3, T(1), out);
    CHECK(out.empty());
}

TEMPLATE_LIST_TEST_CASE("dynamic_orthtree: nearest and capped nearest over snapshot, levels and tail", "[knn][dynamic]",
                        all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    quoct::dynamic_options opt;
    opt.tail_limit = 16;
    opt.tree.leaf_size = 4;
    opt.rebuild_fraction = 0.5;
    auto pts = int_points<T, D>(400, 31, 9);
    quoct::dynamic_orthtree<T, D> index(pts, opt);
    std::vector<bool> live(pts.size(), true);
    rng r(77);
    std::vector<quoct::neighbor<T, std::uint32_t>> got;
    for (int step = 0; step < 60; ++step) {
        // Mutate: insert, erase and move, so that every part holds something.
        for (int i = 0; i < 9; ++i) {
            quoct::point<T, D> p;
            for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(r.integer(-9, 9));
            const std::size_t what = r.below(3);
            if (what == 0) {
                pts.push_back(p);
                live.push_back(true);
                REQUIRE(index.insert(p) == pts.size() - 1);
            } else {
                const std::size_t id = r.below(pts.size());
                if (!live[id]) continue;
                if (what == 1) {
                    index.erase(static_cast<std::uint32_t>(id));
                    live[id] = false;
                } else {
                    index.move(static_cast<std::uint32_t>(id), p);
                    pts[id] = p;
                }
            }
        }
        quoct::point<T, D> q;
        for (std::size_t a = 0; a < D; ++a) q[a] = static_cast<T>(r.integer(-10, 10));
        std::vector<quoct::neighbor<T, std::uint32_t>> all;
        for (std::size_t i = 0; i < pts.size(); ++i)
            if (live[i]) all.push_back({static_cast<std::uint32_t>(i), quoct::distance_sq(pts[i], q)});
        for (const std::size_t k : ks) {
            INFO("step=" << step << " k=" << k << " side trees=" << index.side_trees());
            index.nearest(q, k, got);
            CHECK(diff(got, first_k(all, k, std::numeric_limits<T>::infinity())) == "");
            index.nearest(q, k, T(3), got);
            CHECK(diff(got, first_k(all, k, T(9))) == "");
        }
    }
    CHECK_THROWS_AS(index.nearest(splat<T, D>(0), 2, T(-1), got), std::invalid_argument);
}

}  // namespace test_knn
