// The distributed index's tests (tests/mpi): what every test file shares. Every rank makes
// the same global point set (fixed seeds) and passes its own slice of it (some ranks none);
// every answer is gathered on rank 0 and compared there with a brute-force loop over the
// gathered input, with the core's predicates.
//
// Checks use CHECK, never REQUIRE: a failed check must not skip the collective calls that
// follow, or the other ranks would wait for ever.
#ifndef QUOCT_TESTS_MPI_TEST_SUPPORT_HPP
#define QUOCT_TESTS_MPI_TEST_SUPPORT_HPP

#include <catch2/catch.hpp>

#include <mpi.h>
#include <quoct/mpi.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

namespace quoct_mpi_test {

using gid = std::uint64_t;

inline int rank_here() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}
inline int ranks() {
    int p = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    return p;
}

/// Every rank's `mine`, concatenated in rank order, on rank 0 (empty elsewhere).
template <class V>
std::vector<V> gather(const std::vector<V>& mine) {
    const int p = ranks();
    const int bytes = static_cast<int>(mine.size() * sizeof(V));
    std::vector<int> counts(static_cast<std::size_t>(p)), displs(static_cast<std::size_t>(p));
    MPI_Gather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < p; ++r) displs[static_cast<std::size_t>(r)] = total, total += counts[static_cast<std::size_t>(r)];
    std::vector<V> all(rank_here() == 0 ? static_cast<std::size_t>(total) / sizeof(V) : 0);
    MPI_Gatherv(mine.data(), bytes, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
    return all;
}

/// Every rank's rows, in rank order, on rank 0.
template <class V>
quoct::csr<V> gather_rows(const quoct::csr<V>& mine) {
    std::vector<std::uint64_t> lengths(mine.rows());
    for (std::size_t i = 0; i < mine.rows(); ++i) lengths[i] = mine.offsets[i + 1] - mine.offsets[i];
    const std::vector<std::uint64_t> all_lengths = gather(lengths);
    quoct::csr<V> all;
    all.values = gather(mine.values);
    for (const std::uint64_t n : all_lengths) all.offsets.push_back(all.offsets.back() + n);
    return all;
}

template <class T, std::size_t D>
struct config {
    using scalar = T;
    static constexpr std::size_t dim = D;
};

// The configurations of the templated cases: (float, double) x (2D, 3D), or with CMake's
// QUOCT_TEST_CONFIGS=two (CI's sanitizer build) float 2D and double 3D only.
#ifndef QUOCT_TEST_TWO_CONFIGS
#define QUOCT_MPI_TEST_CONFIGS (quoct_mpi_test::config<float, 2>), (quoct_mpi_test::config<float, 3>), \
                               (quoct_mpi_test::config<double, 2>), (quoct_mpi_test::config<double, 3>)
#else
#define QUOCT_MPI_TEST_CONFIGS (quoct_mpi_test::config<float, 2>), (quoct_mpi_test::config<double, 3>)
#endif

enum class shape { uniform, clustered, duplicates };
inline constexpr shape all_shapes[] = {shape::uniform, shape::clustered, shape::duplicates};
inline const char* name_of(shape s) {
    return s == shape::uniform ? "uniform" : s == shape::clustered ? "clustered" : "duplicates";
}

/// The global point set: dyadic coordinates (multiples of 1/4 in [0, 64)), so distances
/// and boundary cases are exact in float too.
template <class T, std::size_t D>
std::vector<quoct::point<T, D>> global_points(shape s, std::size_t n) {
    std::mt19937 rng(12345);
    std::vector<quoct::point<T, D>> pts(n);
    std::uniform_int_distribution<int> cell(0, 255), small(0, 19), blob(0, 4);
    std::normal_distribution<double> spread(0.0, 1.5);
    const double centres[5] = {8, 20, 33, 47, 60};
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t a = 0; a < D; ++a) {
            if (s == shape::uniform) {
                pts[i][a] = T(cell(rng)) / 4;
            } else if (s == shape::clustered) {
                const double c = centres[(i * 7 + static_cast<std::size_t>(blob(rng) == 0)) % 5];
                const double v = std::round((c + spread(rng) * (i % 3 == 0 ? 3 : 0.5)) * 4) / 4;
                pts[i][a] = T(std::min(63.75, std::max(0.0, v)));
            } else {
                pts[i][a] = T((i * 13 + a * 5) % 20 == 0 ? 0 : small(rng) % 4 * 8);  // 4^D places
            }
        }
    return pts;
}

/// Rank r's slice of n points: uneven, and rank 1 empty when there are 3 ranks or more.
inline std::pair<std::size_t, std::size_t> slice(std::size_t n) {
    const int p = ranks(), me = rank_here();
    std::vector<std::size_t> weight(static_cast<std::size_t>(p));
    std::size_t total = 0;
    for (int r = 0; r < p; ++r) total += weight[static_cast<std::size_t>(r)] = (p >= 3 && r == 1) ? 0 : static_cast<std::size_t>(r + 1);
    std::size_t before = 0;
    for (int r = 0; r < me; ++r) before += weight[static_cast<std::size_t>(r)];
    return {n * before / total, n * (before + weight[static_cast<std::size_t>(me)]) / total};
}

template <class T, std::size_t D>
std::vector<quoct::point<T, D>> my_slice(const std::vector<quoct::point<T, D>>& all) {
    const auto s = slice(all.size());
    return {all.begin() + static_cast<std::ptrdiff_t>(s.first), all.begin() + static_cast<std::ptrdiff_t>(s.second)};
}

template <class T, std::size_t D>
std::vector<quoct::ball<T, D>> my_balls(const std::vector<quoct::point<T, D>>& all, unsigned seed) {
    std::mt19937 rng(seed * 31 + static_cast<unsigned>(rank_here()));
    std::uniform_int_distribution<std::size_t> pick(0, all.empty() ? 0 : all.size() - 1);
    std::uniform_int_distribution<int> cell(-8, 263);
    const T radii[] = {T(0), T(1), T(2.5), T(4), T(9.75)};
    std::vector<quoct::ball<T, D>> balls;
    for (int q = 0; q < 12 + 5 * rank_here(); ++q) {
        quoct::ball<T, D> b{};
        for (std::size_t a = 0; a < D; ++a) b.center[a] = all.empty() || q % 3 == 0 ? T(cell(rng)) / 4 : all[pick(rng)][a];
        b.radius = radii[q % 5];
        balls.push_back(b);
    }
    if (rank_here() == 0) balls.push_back({{}, std::numeric_limits<T>::infinity()});
    return balls;
}

template <class T, std::size_t D>
std::vector<quoct::box<T, D>> my_boxes(const std::vector<quoct::point<T, D>>& all, unsigned seed) {
    std::mt19937 rng(seed * 17 + static_cast<unsigned>(rank_here()));
    std::uniform_int_distribution<int> cell(-8, 263), size(0, 60);
    std::vector<quoct::box<T, D>> boxes;
    for (int q = 0; q < 10 + 3 * rank_here(); ++q) {
        quoct::box<T, D> b{};
        for (std::size_t a = 0; a < D; ++a) {
            b.lo[a] = T(cell(rng)) / 4;
            b.hi[a] = b.lo[a] + T(size(rng)) / 4;
            if (q % 2 == 0 && !all.empty()) {  // around a data point, its faces on others
                b.lo[a] = all[static_cast<std::size_t>(q) * 37 % all.size()][a] - T(size(rng) % 9);
                b.hi[a] = b.lo[a] + T(size(rng) % 17);
            }
        }
        boxes.push_back(b);
    }
    return boxes;
}

template <class Index, class P>
void check_partition(const Index& index, const std::vector<P>& all) {
    std::vector<std::pair<gid, P>> mine;
    for (std::size_t i = 0; i < index.owned_size(); ++i) mine.push_back({index.owned_ids()[i], index.owned_points()[i]});
    CHECK(std::is_sorted(index.owned_ids().begin(), index.owned_ids().end()));
    const std::vector<std::uint64_t> counts = gather(std::vector<std::uint64_t>{index.owned_size()});
    auto got = gather(mine);
    if (rank_here() != 0) return;
    CHECK(index.size() == all.size());
    std::sort(got.begin(), got.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    CHECK(got.size() == all.size());
    if (got.size() != all.size()) return;
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < all.size(); ++i) wrong += got[i].first != i || got[i].second != all[i];
    CHECK(wrong == 0);
    // The balance promise: at most max(ceil(N/P), floor(1.1 N/P)) points on any rank.
    const std::uint64_t most = *std::max_element(counts.begin(), counts.end());
    const std::uint64_t n = all.size(), p = static_cast<std::uint64_t>(ranks());
    CHECK(most <= index.balance_limit());
    CHECK(index.balance_limit() == std::max((n + p - 1) / p, (11 * n) / (10 * p)));
}

template <class T, std::size_t D, class Q>
std::vector<gid> brute_query(const std::vector<quoct::point<T, D>>& all, const Q& q) {
    std::vector<gid> ids;
    for (std::size_t i = 0; i < all.size(); ++i)
        if (quoct::contains(q, all[i])) ids.push_back(i);
    return ids;
}

template <class Index, class P, class Q>
void check_queries(const Index& index, const std::vector<P>& all, const std::vector<Q>& queries) {
    const quoct::csr<gid> got = gather_rows(index.query(queries));
    const std::vector<std::uint64_t> counts = gather(index.count(queries));
    const std::vector<Q> every = gather(queries);
    // Balls: the same rows with distances, nearest first by (distance_sq, id) (collective,
    // so asked on every rank before rank 0 checks).
    using T = typename Index::scalar_type;
    constexpr bool balls = std::is_same<Q, quoct::ball<T, Index::dimension>>::value;
    quoct::csr<quoct::neighbor<T, gid>> got_with;
    if constexpr (balls) {
        const auto with = index.query_with_distances(queries);
        CHECK(with.rows() == queries.size());
        got_with = gather_rows(with);
    }
    if (rank_here() != 0) return;
    CHECK(got.rows() == every.size());
    CHECK(counts.size() == every.size());
    if (got.rows() != every.size() || counts.size() != every.size()) return;
    std::size_t wrong = 0, hits = 0;
    for (std::size_t q = 0; q < every.size(); ++q) {
        const std::vector<gid> expect = brute_query(all, every[q]);
        const std::vector<gid> row(got.row(q).begin(), got.row(q).end());
        wrong += row != expect || counts[q] != expect.size();
        hits += expect.size();
    }
    CHECK(wrong == 0);
    CHECK(hits > 0);
    if constexpr (balls) {
        REQUIRE(got_with.rows() == every.size());
        std::size_t wrong_with = 0;
        for (std::size_t q = 0; q < every.size(); ++q) {
            std::vector<std::pair<T, gid>> want;
            for (const gid i : brute_query(all, every[q])) want.push_back({quoct::distance_sq(all[i], every[q].center), i});
            std::sort(want.begin(), want.end());
            bool same = got_with.row(q).size() == want.size();
            for (std::size_t i = 0; same && i < want.size(); ++i)
                same = got_with.row(q)[i].id == want[i].second && got_with.row(q)[i].distance_sq == want[i].first;
            wrong_with += !same;
        }
        CHECK(wrong_with == 0);
    }
}

template <class Index, class P>
void check_nearest(const Index& index, const std::vector<P>& all, std::size_t k, unsigned seed) {
    using T = typename Index::scalar_type;
    std::vector<P> queries;
    for (const auto& b : my_balls(all, seed)) if (quoct::is_finite(b.center)) queries.push_back(b.center);
    const auto got = gather_rows(index.nearest(queries, k));
    const std::vector<P> every = gather(queries);
    if (rank_here() != 0) return;
    CHECK(got.rows() == every.size());
    if (got.rows() != every.size()) return;
    std::size_t wrong = 0;
    std::vector<std::pair<T, gid>> order(all.size());
    for (std::size_t q = 0; q < every.size(); ++q) {
        for (std::size_t i = 0; i < all.size(); ++i) order[i] = {quoct::distance_sq(all[i], every[q]), i};
        std::sort(order.begin(), order.end());
        const std::size_t m = std::min(k, all.size());
        bool same = got.row(q).size() == m;
        for (std::size_t i = 0; same && i < m; ++i)
            same = got.row(q)[i].id == order[i].second && got.row(q)[i].distance_sq == order[i].first;
        wrong += !same;
    }
    CHECK(wrong == 0);
}

template <class Index, class P>
void check_pairs(const Index& index, const std::vector<P>& all, typename Index::scalar_type r) {
    using T = typename Index::scalar_type;
    std::vector<std::pair<gid, gid>> pairs;
    std::size_t bad_d2 = 0;
    index.for_each_pair_within(r, [&](gid i, gid j, T d2) {
        pairs.push_back({i, j});
        bad_d2 += !(i < j) || !(d2 <= r * r);
    });
    CHECK(bad_d2 == 0);
    const quoct::csr<gid> lists = index.neighbor_lists(r);
    std::vector<std::pair<gid, gid>> directed;
    std::size_t unsorted = 0;
    for (std::size_t i = 0; i < lists.rows(); ++i) {
        unsorted += !std::is_sorted(lists.row(i).begin(), lists.row(i).end());
        for (const gid j : lists.row(i)) directed.push_back({index.owned_ids()[i], j});
    }
    CHECK(unsorted == 0);
    CHECK(lists.rows() == index.owned_size());
    auto got = gather(pairs);
    auto got_directed = gather(directed);
    if (rank_here() != 0) return;
    std::vector<std::pair<gid, gid>> expect, expect_directed;
    for (std::size_t i = 0; i < all.size(); ++i)
        for (std::size_t j = 0; j < all.size(); ++j)
            if (i != j && quoct::distance_sq(all[i], all[j]) <= r * r) {
                expect_directed.push_back({i, j});
                if (i < j) expect.push_back({i, j});
            }
    std::sort(got.begin(), got.end());
    std::sort(got_directed.begin(), got_directed.end());
    CHECK(got.size() == expect.size());  // each pair once: a duplicate would show here
    CHECK(got == expect);
    CHECK(got_directed == expect_directed);
    if (r > 0) CHECK(!expect.empty());
}

/// New positions for this rank's points at a step, a function of (id, position, step):
/// dyadic shifts; step 2 doubles everything (the points leave the key grid); step 3
/// squeezes all into a corner (the cuts no longer balance); step 4 shifts again.
template <class T, std::size_t D>
quoct::point<T, D> moved(gid id, quoct::point<T, D> p, int step) {
    for (std::size_t a = 0; a < D; ++a) {
        if (step == 2) p[a] = p[a] * 2 - 16;
        else if (step == 3) p[a] = std::floor(p[a] / 8) / 4;
        else p[a] += T(static_cast<int>((id * 7 + a * 3 + static_cast<gid>(step) * 5) % 9) - 4) / 4;
    }
    return p;
}

}  // namespace quoct_mpi_test

#endif  // QUOCT_TESTS_MPI_TEST_SUPPORT_HPP
