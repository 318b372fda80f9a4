// Minkowski balls and k nearest for p = 1, 2, infinity and general p (<quoct/minkowski.hpp>)
// against brute force with the predicate written out (test_minkowski_support.hpp): integer
// lattices (many points exactly on the boundary), dyadic coordinates, random clouds in 1 to
// 4 dimensions, float and double, extremes (differences that overflow, subnormal gaps,
// powers that overflow or underflow), and bad arguments. The same under the minimum image:
// periodic/test_periodic.cpp.
#include <catch2/catch.hpp>

#include <quoct/minkowski.hpp>
#include <quoct/orthtree.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "test_minkowski_support.hpp"

namespace test_minkowski {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

using namespace quoct_test::minkowski_oracle;

namespace {

template <class T, std::size_t D>
std::vector<quoct::point<T, D>> lattice(int half) {
    std::vector<quoct::point<T, D>> out;
    std::size_t side = static_cast<std::size_t>(2 * half + 1), total = 1;
    for (std::size_t a = 0; a < D; ++a) total *= side;
    for (std::size_t i = 0; i < total; ++i) {
        quoct::point<T, D> p{};
        std::size_t rest = i;
        for (std::size_t a = 0; a < D; ++a, rest /= side) p[a] = static_cast<T>(static_cast<int>(rest % side) - half);
        out.push_back(p);
    }
    return out;
}

template <class T, std::size_t D>
std::vector<quoct::point<T, D>> cloud(std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<quoct::point<T, D>> out(n);
    for (auto& p : out)
        for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(u(rng));
    return out;
}

template <class T, std::size_t D>
void check_queries(const std::vector<quoct::point<T, D>>& pts, const std::vector<quoct::point<T, D>>& centres,
                   const std::vector<T>& radii, std::size_t leaf, const std::vector<quoct::norm>& norms = all_norms) {
    quoct::build_options options;
    options.leaf_size = leaf;
    const quoct::orthtree<T, D> tree(pts, options);
    for (const quoct::norm n : norms)
        for (const auto& c : centres)
            for (const T r : radii) {
                INFO(name_of(n) << ", radius " << r);
                const auto ball = quoct::make_minkowski_ball(c, r, n);
                const auto want = brute_ball(pts, c, r, n);
                std::vector<std::uint32_t> got;
                tree.query_shape(ball, got);
                std::sort(got.begin(), got.end());
                REQUIRE(got == want);
                REQUIRE(tree.count_shape(ball) == want.size());
                for (const std::size_t k : {std::size_t{1}, std::size_t{7}, std::size_t{40}}) {
                    const auto expected = brute_nearest(pts, c, k, n, r);
                    const auto found = quoct::nearest(tree, c, k, n, r);
                    REQUIRE(found.size() == expected.size());
                    for (std::size_t i = 0; i < found.size(); ++i) {
                        REQUIRE(found[i].id == expected[i].second);
                        REQUIRE(found[i].distance_sq == expected[i].first);
                    }
                }
            }
}

}  // namespace

TEST_CASE("minkowski: l1 and linf balls and k nearest on integer lattices, boundary points included", "[minkowski]") {
    // Radii at whole numbers: every lattice point at exactly r is inside (closed balls),
    // and many tie in k nearest (broken by smaller id).
    check_queries<double, 2>(lattice<double, 2>(6), {{0, 0}, {1, -2}, {6, 6}, {0.5, 0.5}}, {0, 1, 2, 3, 5.5, 12}, 4);
    check_queries<double, 3>(lattice<double, 3>(3), {{0, 0, 0}, {1, 2, -3}, {0.5, 0, 0}}, {0, 1, 2, 4}, 8);
    check_queries<float, 3>(lattice<float, 3>(3), {{0, 0, 0}, {-3, 3, 1}}, {0, 1, 3}, 3);
    check_queries<double, 1>(lattice<double, 1>(20), {{0}, {7.5}}, {0, 2, 7.5}, 2);
    check_queries<double, 4>(lattice<double, 4>(2), {{0, 0, 0, 0}, {1, -1, 2, 0}}, {0, 1, 2, 3}, 6);
}

TEST_CASE("minkowski: random clouds and dyadic radii match brute force", "[minkowski]") {
    const auto pts2 = cloud<double, 2>(3000, 1);
    check_queries<double, 2>(pts2, {pts2[0], pts2[17], {0.25, -0.125}}, {0.0, 0.0625, 0.2, 0.5, 3.0}, 16);
    const auto pts3 = cloud<float, 3>(3000, 2);
    check_queries<float, 3>(pts3, {pts3[5], {0.0f, 0.0f, 0.0f}}, {0.0f, 0.125f, 0.3f, 1.0f}, 32);
}

TEST_CASE("minkowski: extremes: differences that overflow, subnormal gaps, an infinite radius", "[minkowski]") {
    const double big = std::numeric_limits<double>::max(), tiny = std::numeric_limits<double>::denorm_min();
    const std::vector<quoct::point<double, 2>> pts = {
        {big, 0}, {-big, 0}, {0, big}, {tiny, 0}, {0, -tiny}, {2 * tiny, 2 * tiny}, {0, 0}, {big / 2, big / 2}};
    quoct::build_options one;
    one.leaf_size = 1;  // a node per point: pruning and whole-node takes decide at the extremes
    const quoct::orthtree<double, 2> tree(pts, one);
    for (const quoct::norm n : {quoct::norm::l1, quoct::norm::linf, quoct::norm::minkowski(3)})
        for (const quoct::point<double, 2> c : {quoct::point<double, 2>{0, 0}, quoct::point<double, 2>{-big, 0},
                                                 quoct::point<double, 2>{tiny, tiny}})
            for (const double r : {0.0, tiny, 2 * tiny, 3 * tiny, big / 2, big, std::numeric_limits<double>::infinity()}) {
                INFO("r " << r);
                std::vector<std::uint32_t> got;
                tree.query_shape(quoct::make_minkowski_ball(c, r, n), got);
                std::sort(got.begin(), got.end());
                CHECK(got == brute_ball(pts, c, r, n));
                const auto found = quoct::nearest(tree, c, 3, n, r);
                const auto expected = brute_nearest(pts, c, 3, n, r);
                REQUIRE(found.size() == expected.size());
                for (std::size_t i = 0; i < found.size(); ++i) {
                    CHECK(found[i].id == expected[i].second);
                    CHECK(found[i].distance_sq == expected[i].first);
                }
                CHECK(tree.count_shape(quoct::make_minkowski_ball(c, r, n)) == brute_ball(pts, c, r, n).size());
            }
    // (big, 0) and (-big, 0) are 2 * big apart: the difference overflows to infinity, which
    // exceeds every finite radius, as the unbounded 2 * big does.
    CHECK(quoct::minkowski_distance(pts[0], pts[1], quoct::norm::linf) == std::numeric_limits<double>::infinity());
    CHECK_FALSE(quoct::make_minkowski_ball(pts[1], big, quoct::norm::linf).contains(pts[0]));
    // Gaps between subnormals are exact: l1 from (0, 0) to (2 tiny, 2 tiny) is 4 tiny.
    CHECK(quoct::minkowski_distance(pts[5], pts[6], quoct::norm::l1) == 4 * tiny);
}

TEST_CASE("minkowski: bad arguments throw and an empty tree answers nothing", "[minkowski]") {
    const quoct::orthtree<double, 2> empty{std::vector<quoct::point<double, 2>>{}};
    CHECK(quoct::nearest(empty, {0, 0}, 3, quoct::norm::l1).empty());
    CHECK(empty.count_shape(quoct::make_minkowski_ball(quoct::point<double, 2>{0, 0}, 1.0, quoct::norm::linf)) == 0);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    using ball = quoct::minkowski_ball<double, 2>;
    const auto make = [](quoct::point<double, 2> c, double r, quoct::norm n) -> ball { return quoct::make_minkowski_ball(c, r, n); };
    CHECK_THROWS_AS(make({nan, 0}, 1.0, quoct::norm::l1), std::invalid_argument);
    CHECK_THROWS_AS(make({0, 0}, -1.0, quoct::norm::l1), std::invalid_argument);
    CHECK_THROWS_AS(make({0, 0}, nan, quoct::norm::linf), std::invalid_argument);
    const quoct::orthtree<double, 2> tree(lattice<double, 2>(2));
    CHECK_THROWS_AS(quoct::nearest(tree, {0, 0}, 0, quoct::norm::l1), std::invalid_argument);
    CHECK_THROWS_AS(quoct::nearest(tree, {0, std::numeric_limits<double>::infinity()}, 1, quoct::norm::l1),
                    std::invalid_argument);
}

TEST_CASE("minkowski: general p: the norm value, its checks and its special cases", "[minkowski]") {
    CHECK(quoct::norm::minkowski(1) == quoct::norm::l1);
    CHECK(quoct::norm::minkowski(2) == quoct::norm::l2);
    CHECK(quoct::norm::minkowski(std::numeric_limits<double>::infinity()) == quoct::norm::linf);
    CHECK(quoct::norm::minkowski(3) == quoct::norm::minkowski(3.0));
    CHECK(quoct::norm::minkowski(3) != quoct::norm::minkowski(4));
    CHECK(quoct::norm::minkowski(3).kind() == quoct::norm::kind_type::lp);
    CHECK_THROWS_AS(quoct::norm::minkowski(0.5), std::invalid_argument);
    CHECK_THROWS_AS(quoct::norm::minkowski(-1), std::invalid_argument);
    CHECK_THROWS_AS(quoct::norm::minkowski(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
    // p = 3 on integers: 1 + 8 = 9 <= 9 = pow(r, 3) only if r^3 >= 9; the point (1, 2) is at
    // 9^(1/3) from the origin.
    const quoct::point<double, 2> o{0, 0}, q{1, 2};
    CHECK(quoct::minkowski_sum(q, o, quoct::norm::minkowski(3)) == 9);
    CHECK(quoct::make_minkowski_ball(o, 3.0, quoct::norm::minkowski(3)).contains(q));
    CHECK_FALSE(quoct::make_minkowski_ball(o, 2.0, quoct::norm::minkowski(3)).contains(q));
    // l2 is the tree's own predicate, exact where squares overflow: 3e200 is outside 2e200.
    const quoct::point<double, 2> far{3e200, 0};
    CHECK_FALSE(quoct::make_minkowski_ball(o, 2e200, quoct::norm::l2).contains(far));
    CHECK(quoct::make_minkowski_ball(o, 3e200, quoct::norm::l2).contains(far));
}

}  // namespace test_minkowski
