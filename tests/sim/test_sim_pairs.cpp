// Pair searches, neighbour lists and batch queries against brute force.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include <quoct/dynamic.hpp>
#include <quoct/pairs.hpp>
#include <quoct/parallel.hpp>

#include "test_support.hpp"

namespace test_sim_pairs {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

using pair_list = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

template <class T, std::size_t D>
pair_list brute_pairs(const std::vector<quoct::point<T, D>>& pts, const std::vector<bool>& live, T r) {
    pair_list out;
    for (std::uint32_t i = 0; i < pts.size(); ++i)
        for (std::uint32_t j = i + 1; j < pts.size(); ++j)
            if (live[i] && live[j] && quoct::distance_sq(pts[i], pts[j]) <= r * r) out.emplace_back(i, j);
    return out;
}

template <class T, std::size_t D>
quoct::csr<std::uint32_t> brute_lists(const std::vector<quoct::point<T, D>>& from, const std::vector<bool>& from_live,
                                      const std::vector<quoct::point<T, D>>& to, const std::vector<bool>& to_live, T r,
                                      bool skip_self) {
    quoct::csr<std::uint32_t> t;
    for (std::uint32_t i = 0; i < from.size(); ++i) {
        if (from_live[i])
            for (std::uint32_t j = 0; j < to.size(); ++j)
                if (to_live[j] && !(skip_self && i == j) && quoct::distance_sq(from[i], to[j]) <= r * r)
                    t.values.push_back(j);
        t.offsets.push_back(t.values.size());
    }
    return t;
}

template <class T, std::size_t D>
std::vector<quoct::point<T, D>> cloud(quoct_test::rng& rng, std::size_t n, bool lattice) {
    std::vector<quoct::point<T, D>> pts(n);
    for (auto& p : pts) p = lattice ? quoct_test::lattice_point<T, D>(rng, 8) : quoct_test::random_point<T, D>(rng, T(0), T(1));
    return pts;
}

}  // namespace

TEMPLATE_TEST_CASE("pair search and neighbour lists match brute force", "[sim][pairs]", QUOCT_TEST_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    for (int lattice = 0; lattice < 2; ++lattice) {
        quoct_test::rng rng(42 + static_cast<unsigned>(lattice));
        const auto pts = cloud<T, D>(rng, 700, lattice == 1);
        const std::vector<bool> all(pts.size(), true);
        quoct::orthtree<T, D> tree(pts);
        for (T r : {T(0), T(lattice ? 1 : 0.03), T(lattice ? 2 : 0.11)}) {
            const auto expect = brute_pairs(pts, all, r);
            pair_list seen;
            quoct::for_each_pair_within(tree, r, [&](std::uint32_t i, std::uint32_t j, T d2) {
                CHECK(i < j);
                CHECK(d2 == quoct::distance_sq(pts[i], pts[j]));
                seen.emplace_back(i, j);
            });
            CHECK(quoct_test::sorted(seen) == expect);
            for (unsigned threads : {1u, 2u, 3u}) CHECK(quoct::pairs_within(tree, r, threads) == expect);

            const auto lists = brute_lists(pts, all, pts, all, r, true);
            for (unsigned threads : {1u, 2u}) {
                const auto got = quoct::neighbor_lists(tree, r, threads);
                CHECK(got.offsets == lists.offsets);
                CHECK(got.values == lists.values);
            }
        }
        // Every pair for an infinite radius.
        CHECK(quoct::pairs_within(tree, std::numeric_limits<T>::infinity()).size() == pts.size() * (pts.size() - 1) / 2);
    }
}

TEMPLATE_TEST_CASE("pairs across two indexes and on a dynamic index", "[sim][pairs]", QUOCT_TEST_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    quoct_test::rng rng(5);
    auto fluid = cloud<T, D>(rng, 500, false);
    const auto wall = cloud<T, D>(rng, 300, false);
    std::vector<bool> fluid_live(fluid.size(), true);
    const std::vector<bool> wall_live(wall.size(), true);
    quoct::orthtree<T, D> wall_tree(wall);
    quoct::dynamic_orthtree<T, D> fluid_index(fluid);
    // Move and erase some fluid points so the dynamic index has every part populated.
    for (std::uint32_t id = 0; id < fluid.size(); id += 7) {
        fluid[id] = quoct_test::random_point<T, D>(rng, T(0), T(1));
        fluid_index.move(id, fluid[id]);
    }
    for (std::uint32_t id = 3; id < fluid.size(); id += 11) {
        fluid_index.erase(id);
        fluid_live[id] = false;
    }
    const T r = T(0.08);
    const auto cross = brute_lists(fluid, fluid_live, wall, wall_live, r, false);
    for (unsigned threads : {1u, 2u}) {
        const auto got = quoct::neighbor_lists(fluid_index, wall_tree, r, threads);
        CHECK(got.offsets == cross.offsets);
        CHECK(got.values == cross.values);
    }
    pair_list seen, expect;
    quoct::for_each_pair_within(fluid_index, wall_tree, r, [&](std::uint32_t i, std::uint32_t j) { seen.emplace_back(i, j); });
    for (std::size_t i = 0; i < cross.rows(); ++i)
        for (std::uint32_t j : cross.row(i)) expect.emplace_back(static_cast<std::uint32_t>(i), j);
    CHECK(quoct_test::sorted(seen) == expect);

    CHECK(quoct::pairs_within(fluid_index, r, 2) == brute_pairs(fluid, fluid_live, r));
    const auto self = quoct::neighbor_lists(fluid_index, r);
    const auto self_expect = brute_lists(fluid, fluid_live, fluid, fluid_live, r, true);
    CHECK(self.offsets == self_expect.offsets);
    CHECK(self.values == self_expect.values);
}

TEST_CASE("pair search stops early and rejects bad radii", "[sim][pairs]") {
    std::vector<quoct::point<double, 2>> pts;
    for (int i = 0; i < 100; ++i) pts.push_back({{i * 0.1, 0.0}});
    quoct::quadtree<double> tree(pts);
    int calls = 0;
    CHECK_FALSE(quoct::for_each_pair_within(tree, 1.0, [&](std::uint32_t, std::uint32_t) { return ++calls < 5; }));
    CHECK(calls == 5);
    CHECK_THROWS_AS(quoct::pairs_within(tree, -1.0), std::invalid_argument);
    CHECK_THROWS_AS(quoct::neighbor_lists(tree, std::nan("")), std::invalid_argument);
    CHECK_THROWS_AS(quoct::for_each_pair_within(tree, -0.5, [](std::uint32_t, std::uint32_t) {}), std::invalid_argument);
    quoct::quadtree<double> none;
    CHECK(quoct::pairs_within(none, 1.0).empty());
    CHECK(quoct::neighbor_lists(none, 1.0).rows() == 0);
}

TEMPLATE_TEST_CASE("batch queries equal one-by-one queries", "[sim][parallel]", QUOCT_TEST_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    quoct_test::rng rng(11);
    const auto pts = cloud<T, D>(rng, 3000, false);
    quoct::orthtree<T, D> tree(pts);
    std::vector<quoct::ball<T, D>> balls(1500);
    std::vector<quoct::box<T, D>> boxes(600);
    std::vector<quoct::point<T, D>> centres(700);
    for (auto& s : balls) s = {quoct_test::random_point<T, D>(rng, T(-0.1), T(1.1)), T(0.07)};
    for (auto& b : boxes) {
        b.lo = quoct_test::random_point<T, D>(rng, T(0), T(0.9));
        b.hi = b.lo;
        for (std::size_t a = 0; a < D; ++a) b.hi[a] += T(0.1);
    }
    for (auto& c : centres) c = quoct_test::random_point<T, D>(rng, T(0), T(1));
    for (unsigned threads : {1u, 2u, 4u})
        for (bool spatial : {false, true}) {
            const auto rows = quoct::batch_query(tree, balls, threads, spatial);
            REQUIRE(rows.rows() == balls.size());
            for (std::size_t i = 0; i < balls.size(); ++i) {
                const auto one = tree.query(balls[i]);
                CHECK(std::vector<std::uint32_t>(rows.row(i).begin(), rows.row(i).end()) == one);
            }
            const auto box_rows = quoct::batch_query(tree, boxes.data(), boxes.size(), threads, spatial);
            for (std::size_t i = 0; i < boxes.size(); ++i)
                CHECK(std::vector<std::uint32_t>(box_rows.row(i).begin(), box_rows.row(i).end()) == tree.query(boxes[i]));
            const auto counts = quoct::batch_count(tree, balls.data(), balls.size(), threads, spatial);
            for (std::size_t i = 0; i < balls.size(); ++i) CHECK(counts[i] == rows.row(i).size());
            const auto near = quoct::batch_nearest(tree, centres.data(), centres.size(), 5, threads, spatial);
            for (std::size_t i = 0; i < centres.size(); ++i) {
                std::vector<quoct::neighbor<T, std::uint32_t>> one;
                tree.nearest(centres[i], 5, one);
                REQUIRE(near.row(i).size() == one.size());
                for (std::size_t k = 0; k < one.size(); ++k) CHECK(near.row(i)[k].id == one[k].id);
            }
        }
    balls[900].radius = T(-1);
    CHECK_THROWS_AS(quoct::batch_query(tree, balls, 2), std::invalid_argument);
    CHECK_THROWS_AS(quoct::batch_count(tree, balls.data(), balls.size(), 2), std::invalid_argument);
}

TEMPLATE_TEST_CASE("batch queries on a dynamic index run concurrently and match", "[sim][parallel]", QUOCT_TEST_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    quoct_test::rng rng(13);
    auto pts = cloud<T, D>(rng, 2000, false);
    quoct::dynamic_orthtree<T, D> index(pts);
    for (std::uint32_t id = 0; id < pts.size(); id += 3) index.move(id, quoct_test::random_point<T, D>(rng, T(0), T(1)));
    for (std::uint32_t id = 1; id < pts.size(); id += 17) index.erase(id);
    std::vector<quoct::ball<T, D>> balls(1200);
    for (auto& s : balls) s = {quoct_test::random_point<T, D>(rng, T(0), T(1)), T(0.05)};
    const auto rows = quoct::batch_query(index, balls, 3);
    const auto counts = quoct::batch_count(index, balls.data(), balls.size(), 3);
    for (std::size_t i = 0; i < balls.size(); ++i) {
        CHECK(std::vector<std::uint32_t>(rows.row(i).begin(), rows.row(i).end()) == index.query(balls[i]));
        CHECK(counts[i] == rows.row(i).size());
    }
    std::vector<std::size_t> hits(balls.size());
    quoct::parallel_for(balls.size(), 2, [&](std::size_t i) { hits[i] = index.count(balls[i]); }, 100);
    CHECK(hits == counts);
}

TEMPLATE_TEST_CASE("pair search with few neighbours per point and a dense blob", "[sim][pairs]", QUOCT_TEST_CONFIGS) {
    // Sparse background (a point's grid cell holds a few points: the block grid is coarsened)
    // plus a blob of duplicates and near-duplicates (blocks capped at block_max_points).
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    quoct_test::rng rng(77);
    auto pts = cloud<T, D>(rng, 3000, false);
    for (std::size_t i = 0; i < 400; ++i)
        pts.push_back(quoct_test::random_point<T, D>(rng, T(0.5), T(0.5) + T(1) / T(1024) * T(i % 3)));
    const std::vector<bool> all(pts.size(), true);
    quoct::orthtree<T, D> tree(pts);
    for (T r : {T(0.004), T(0.02), T(0.06)}) {
        const auto expect = brute_pairs(pts, all, r);
        for (unsigned threads : {1u, 2u}) CHECK(quoct::pairs_within(tree, r, threads) == expect);
        const auto lists = brute_lists(pts, all, pts, all, r, true);
        const auto got = quoct::neighbor_lists(tree, r, 2);
        CHECK(got.offsets == lists.offsets);
        CHECK(got.values == lists.values);
    }
}

}  // namespace test_sim_pairs
