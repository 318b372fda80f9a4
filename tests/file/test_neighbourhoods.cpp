// quoct/neighbourhoods.hpp: every point's k nearest and every point within r, in storage
// order, on a tree in memory and on the file build_file wrote, mapped: each neighbourhood
// equal to brute force over the points by (squared distance, id); stopping early; bad k and r.
#include <quoct/build_file.hpp>
#include <quoct/neighbourhoods.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "test_support.hpp"

namespace test_neighbourhoods {  // this file's own: the test files build in unity batches

namespace {

using namespace quoct_test;

// The first `keep` points by (squared distance from p, id), as the trees compute the
// distance, of those within squared distance `within`.
template <class T, std::size_t D>
std::vector<std::pair<T, std::uint32_t>> by_distance(const points<T, D>& pts, const quoct::point<T, D>& p,
                                                     std::size_t keep, T within = std::numeric_limits<T>::infinity()) {
    std::vector<std::pair<T, std::uint32_t>> out;
    for (std::uint32_t i = 0; i < pts.size(); ++i) {
        T d = 0;
        for (std::size_t a = 0; a < D; ++a) d += (pts[i][a] - p[a]) * (pts[i][a] - p[a]);
        if (d <= within) out.emplace_back(d, i);
    }
    keep = std::min(keep, out.size());
    std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(keep), out.end());
    out.resize(keep);
    return out;
}

template <class T, std::size_t D>
void check_tree(const quoct::orthtree<T, D>& tree, const points<T, D>& pts) {
    std::vector<std::uint32_t> order;
    std::size_t wrong = 0;
    quoct::for_each_knn(tree, 7, [&](std::uint32_t id, const std::vector<quoct::neighbor<T, std::uint32_t>>& hood) {
        order.push_back(id);
        const auto want = by_distance(pts, pts[id], 7);
        wrong += hood.size() != 7;
        for (std::size_t j = 0; j < std::min<std::size_t>(hood.size(), 7); ++j)
            wrong += hood[j].id != want[j].second || hood[j].distance_sq != want[j].first;
    });
    CHECK(wrong == 0);
    CHECK(order == std::vector<std::uint32_t>(tree.stored_ids(), tree.stored_ids() + tree.size()));
    const T r = T(6);  // integer coordinates: points at exactly r are on the boundary
    std::size_t seen = 0;
    quoct::for_each_within(tree, r, [&](std::uint32_t id, const std::vector<quoct::neighbor<T, std::uint32_t>>& hood) {
        ++seen;
        const auto want = by_distance(pts, pts[id], pts.size(), r * r);
        wrong += hood.size() != want.size();
        for (std::size_t j = 0; j < std::min(hood.size(), want.size()); ++j)
            wrong += hood[j].id != want[j].second || hood[j].distance_sq != want[j].first;
    });
    CHECK(wrong == 0);
    CHECK(seen == pts.size());
    std::size_t calls = 0;
    quoct::for_each_knn(tree, 3, [&](std::uint32_t, const auto&) { return ++calls < 10; });
    CHECK(calls == 10);
    CHECK_THROWS_AS(quoct::for_each_knn(tree, 0, [](std::uint32_t, const auto&) {}), std::invalid_argument);
    CHECK_THROWS_AS(quoct::for_each_within(tree, T(-1), [](std::uint32_t, const auto&) {}), std::invalid_argument);
    CHECK_THROWS_AS(quoct::for_each_within(tree, std::numeric_limits<T>::quiet_NaN(), [](std::uint32_t, const auto&) {}),
                    std::invalid_argument);
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("neighbourhoods: every point's k nearest and points within r, in memory and from a built file",
                        "[file][neighbourhoods]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    points<T, D> pts;
    rng r(21);
    for (int i = 0; i < 1500; ++i) pts.push_back(lattice_point<T, D>(r, D == 2 ? 45 : 12));  // duplicates, ties
    check_tree(quoct::orthtree<T, D>(pts), pts);
    const std::string path =
        (std::filesystem::temp_directory_path() / ("quoct_test_hoods_" + std::to_string(::getpid()) + ".quoct")).string();
    quoct::array_points<T, D> in(&pts[0][0], pts.size());
    quoct::build_file_options o;
    o.memory_limit = 0;
    quoct::build_file<quoct::orthtree<T, D>>(in, path, o);
    check_tree(quoct::open<quoct::orthtree<T, D>>(path), pts);
    std::remove(path.c_str());
}

}  // namespace test_neighbourhoods
