// The grid and key module (detail/morton.hpp): Morton keys against bit-by-bit interleaving,
// the radix sort against std::stable_sort, the key layout, and morton_order against a
// brute-force order on integer grids, non-finite coordinates included; the row sorts
// (sort_ids, sort_small) against std::sort.
#include <catch2/catch.hpp>

#include "test_support.hpp"

#include <quoct/detail/morton.hpp>
#include <quoct/pairs.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

namespace test_keys {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

// Bit b of q[a] at bit b * D + a, one bit at a time.
template <std::size_t D>
std::uint64_t interleave(const std::uint64_t (&q)[D], unsigned bits) {
    std::uint64_t key = 0;
    for (unsigned b = 0; b < bits; ++b)
        for (std::size_t a = 0; a < D; ++a) key |= ((q[a] >> b) & 1u) << (b * D + a);
    return key;
}

template <std::size_t D>
void check_keys(std::uint64_t seed) {
    quoct_test::rng rng(seed);
    constexpr unsigned bits = quoct::detail::morton_bits<D>();
    for (int i = 0; i < 2000; ++i) {
        std::uint64_t q[D];
        for (std::size_t a = 0; a < D; ++a) q[a] = rng.bits() & ((std::uint64_t{1} << bits) - 1);
        REQUIRE(quoct::detail::morton_key<D>(q) == interleave<D>(q, bits));
    }
}

// The brute-force Morton order of points with integer coordinates in [0, 2^bits) on the
// region [0, 2^bits]^D, where the quantizer's cell of v is v itself: by interleaved key,
// ties by position.
template <std::size_t D>
std::vector<std::size_t> brute_order(const std::vector<quoct::point<double, D>>& pts, unsigned bits) {
    std::vector<std::uint64_t> keys(pts.size());
    for (std::size_t i = 0; i < pts.size(); ++i) {
        std::uint64_t q[D];
        for (std::size_t a = 0; a < D; ++a) {
            const double v = pts[i][a];
            q[a] = std::isnan(v) || v >= std::ldexp(1.0, static_cast<int>(bits))
                       ? (std::uint64_t{1} << bits) - 1
                       : v < 0 ? 0 : static_cast<std::uint64_t>(v);
        }
        keys[i] = interleave<D>(q, bits);
    }
    std::vector<std::size_t> order(pts.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return keys[x] < keys[y]; });
    return order;
}

template <std::size_t D>
void check_order(std::size_t n, std::uint64_t seed, bool extremes) {
    const unsigned bits = quoct::detail::key_layout_for<D>(n).axis_bits;
    quoct_test::rng rng(seed);
    std::vector<quoct::point<double, D>> pts(n);
    for (auto& p : pts)
        for (std::size_t a = 0; a < D; ++a)
            p[a] = static_cast<double>(rng.below(std::min<std::size_t>(std::size_t{1} << bits, 16)));  // many ties
    if (extremes)
        for (std::size_t i = 0; i < n; i += 7) {
            const double odd[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(), -5.0, 1e300};
            pts[i][rng.below(D)] = odd[rng.below(5)];
        }
    quoct::box<double, D> region;
    for (std::size_t a = 0; a < D; ++a) region.lo[a] = 0, region.hi[a] = std::ldexp(1.0, static_cast<int>(bits));
    CHECK(quoct::detail::morton_order(pts.data(), n, region) == brute_order<D>(pts, bits));
}

}  // namespace

TEST_CASE("Morton keys interleave the bits of each axis", "[keys]") {
    check_keys<1>(1);
    check_keys<2>(2);
    check_keys<3>(3);
    check_keys<4>(4);
    check_keys<8>(8);
}

TEST_CASE("the radix sort of packed items is a stable sort by the key bits", "[keys]") {
    quoct_test::rng rng(11);
    for (std::size_t n : {0u, 1u, 255u, 256u, 5000u}) {
        for (unsigned low : {0u, 7u, 20u}) {
            for (unsigned bits : {1u, 11u, 12u, 33u, 64u - 20u}) {
                quoct::detail::raw_vector<std::uint64_t> items(n), scratch;
                for (auto& it : items) it = rng.bits() & (rng.coin() ? 0xffffu : ~std::uint64_t{0});
                const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
                std::vector<std::uint64_t> expected(items.begin(), items.end());
                std::stable_sort(expected.begin(), expected.end(), [&](std::uint64_t a, std::uint64_t b) {
                    return ((a >> low) & mask) < ((b >> low) & mask);
                });
                quoct::detail::radix_sort(items, scratch, low, bits);
                REQUIRE(std::vector<std::uint64_t>(items.begin(), items.end()) == expected);
            }
        }
    }
}

TEST_CASE("the key layout leaves room for every position", "[keys]") {
    const auto l3 = quoct::detail::key_layout_for<3>(1000000);
    CHECK(l3.index_bits == 20);
    CHECK(l3.axis_bits == quoct::detail::morton_bits<3>());
    CHECK(quoct::detail::key_layout_for<2>(0).index_bits == 1);
    // 2^60 positions leave 4 bits: one an axis in 3D, none in 8D (a tree refuses to sort
    // them; morton_order keeps the input order).
    CHECK(quoct::detail::key_layout_for<8>(std::size_t{1} << 60).axis_bits == 0);
    CHECK(quoct::detail::key_layout_for<64>(3).axis_bits == 0);
    CHECK(quoct::detail::key_layout_for<3>(std::size_t{1} << 60).axis_bits == 1);
}

TEST_CASE("morton_order equals the brute-force Morton order, NaN and infinities included", "[keys]") {
    for (bool extremes : {false, true}) {
        check_order<1>(300, 1, extremes);
        check_order<2>(1000, 2, extremes);
        check_order<3>(1000, 3, extremes);
        check_order<3>(100, 4, extremes);  // below the radix sort's cut-over
        check_order<4>(700, 5, extremes);
    }
    // An empty set, and a region with no extent (every point in one cell: input order).
    CHECK(quoct::detail::morton_order<double, 3>(nullptr, 0, quoct::box<double, 3>{}).empty());
    const std::vector<quoct::point<double, 2>> same(5, quoct::point<double, 2>{{3, 3}});
    quoct::box<double, 2> flat{{{3, 3}}, {{3, 3}}};
    CHECK(quoct::detail::morton_order(same.data(), same.size(), flat) == std::vector<std::size_t>{0, 1, 2, 3, 4});
}

TEST_CASE("the quantizer is monotonic on every axis, for regions of any extent", "[keys]") {
    quoct_test::rng rng(21);
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double denorm = std::numeric_limits<double>::denorm_min();
    const std::vector<std::vector<double>> sets = {
        {0, 1, 0.5, 0.25, 1e-300},
        {-1e308, 1e308, 0, 3},               // an extent that overflows
        {5 * denorm, 9 * denorm, 7 * denorm},  // a scale that overflows
        {2, 2, 2},                           // no extent
        {-inf, 0, 1, 2},                     // an infinite bound
        {-inf, inf, 0},                      // both
        {nan, nan},                          // no finite value: an empty region
    };
    for (const auto& base : sets) {
        for (unsigned bits : {1u, 11u, 32u}) {
            quoct::box<double, 1> region{{{inf}}, {{-inf}}};
            for (double v : base) region.lo[0] = std::min(region.lo[0], v), region.hi[0] = std::max(region.hi[0], v);
            const quoct::detail::quantizer<double, 1> quant(region, bits);
            // Finite values anywhere, in the region or not (infinities only where the region
            // holds them: outside a region without extent they take the last cell, see cell()).
            std::vector<double> values;
            for (double v : base)
                if (!std::isnan(v)) values.push_back(v);
            for (int i = 0; i < 200; ++i)
                values.push_back(rng.uniform(-2, 2) * std::ldexp(1.0, static_cast<int>(rng.integer(-1074, 1023))));
            values.insert(values.end(), {0.0, -0.0, region.lo[0] * 2, region.hi[0] * 2});
            values.erase(std::remove_if(values.begin(), values.end(), [&](double v) { return std::isnan(v); }),
                         values.end());
            std::sort(values.begin(), values.end());
            std::uint64_t last = 0;
            for (double v : values) {
                const std::uint64_t cell = quant.key(quoct::point<double, 1>{{v}});
                REQUIRE(cell < (std::uint64_t{1} << bits));
                INFO("value " << v << " in [" << region.lo[0] << ", " << region.hi[0] << "], " << bits << " bits");
                REQUIRE(cell >= last);  // never smaller for a larger value
                last = cell;
            }
            CHECK(quant.key(quoct::point<double, 1>{{nan}}) == (std::uint64_t{1} << bits) - 1);
        }
    }
}

TEST_CASE("morton_order over the points' own bounds sorts by the quantizer's keys, whatever the values", "[keys]") {
    quoct_test::rng rng(33);
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (int round = 0; round < 6; ++round) {
        std::vector<quoct::point<double, 3>> pts(round == 5 ? 2 : 500);
        for (auto& p : pts)
            for (std::size_t a = 0; a < 3; ++a) p[a] = rng.uniform(-1, 1) * std::ldexp(1.0, round * 200 - 500);
        for (std::size_t i = 0; i < pts.size(); i += 3) {
            const double odd[] = {nan, inf, -inf, 0.0};
            pts[i][rng.below(3)] = odd[rng.below(round < 3 ? 4 : 1)];
        }
        if (round == 4)
            for (auto& p : pts) p[1] = nan;  // an axis with no finite value
        const quoct::box<double, 3> bounds = quoct::detail::bounds_of(pts.data(), pts.size());
        const auto order = quoct::detail::morton_order(pts.data(), pts.size(), bounds);
        const quoct::detail::quantizer<double, 3> quant(bounds, quoct::detail::key_layout_for<3>(pts.size()).axis_bits);
        std::vector<std::size_t> expected(pts.size());
        std::iota(expected.begin(), expected.end(), std::size_t{0});
        std::stable_sort(expected.begin(), expected.end(),
                         [&](std::size_t x, std::size_t y) { return quant.key(pts[x]) < quant.key(pts[y]); });
        CHECK(order == expected);
    }
    // With no bit of key an axis (D above 63), the input order.
    const std::vector<quoct::point<double, 64>> wide(3);
    CHECK(quoct::detail::morton_order(wide.data(), wide.size(), quoct::box<double, 64>{}) ==
          std::vector<std::size_t>{0, 1, 2});
}

TEST_CASE("neighbor_order of points with non-finite coordinates is a permutation", "[keys][cells]") {
    std::vector<quoct::point<double, 2>> pts = quoct_test::uniform_points<double, 2>(300, 4, 0, 10);
    pts[7][0] = std::numeric_limits<double>::quiet_NaN();
    pts[11][1] = std::numeric_limits<double>::infinity();
    pts[12][0] = -std::numeric_limits<double>::infinity();
    std::vector<std::size_t> order = quoct::neighbor_order(pts, 1.0);
    std::sort(order.begin(), order.end());
    std::vector<std::size_t> all(pts.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    CHECK(order == all);
}

namespace {

// Rows of every length around the thresholds (insertion sort, std::sort, radix), ids of
// every width up to the bound's, duplicates included: sort_ids equals std::sort.
template <class Id>
void check_sort_ids(std::uint64_t seed) {
    quoct_test::rng rng(seed);
    std::vector<Id> scratch;
    for (const unsigned bits : {0u, 1u, 5u, 8u, 9u, 17u, 24u, 31u, 32u, 33u, 63u, 64u}) {
        if (bits > static_cast<unsigned>(std::numeric_limits<Id>::digits)) continue;
        for (const std::size_t n : {0, 1, 2, 3, 47, 48, 49, 63, 64, 65, 66, 200, 1000}) {
            std::vector<Id> row(n);
            for (Id& v : row) v = bits == 0 ? 0 : static_cast<Id>(bits >= 64 ? rng.bits() : rng.bits() & ((std::uint64_t{1} << bits) - 1));
            if (n > 10) row[n / 2] = row[n / 3];  // a duplicate
            std::vector<Id> want = row;
            std::sort(want.begin(), want.end());
            quoct::detail::sort_ids(row.data(), row.data() + n, bits, scratch);
            INFO("bits " << bits << ", n " << n);
            REQUIRE(row == want);
        }
    }
}

}  // namespace

TEST_CASE("sort_ids sorts rows of ids of any length and width as std::sort does", "[keys]") {
    check_sort_ids<std::uint32_t>(21);
    check_sort_ids<std::uint64_t>(22);
    check_sort_ids<std::uint16_t>(23);
    // id_bits: the bits an id below the bound needs.
    CHECK(quoct::detail::id_bits(0) == 0);
    CHECK(quoct::detail::id_bits(1) == 0);
    CHECK(quoct::detail::id_bits(2) == 1);
    CHECK(quoct::detail::id_bits(257) == 9);
    CHECK(quoct::detail::id_bits(std::size_t{1} << 32) == 32);
    CHECK(quoct::detail::id_bits(std::numeric_limits<std::size_t>::max()) == 64);
}

TEST_CASE("sort_small sorts any values with operator<, pairs included", "[keys]") {
    quoct_test::rng rng(24);
    for (const std::size_t n : {0, 1, 2, 20, 48, 49, 300}) {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> v(n);
        for (auto& p : v) p = {static_cast<std::uint32_t>(rng.below(7)), static_cast<std::uint32_t>(rng.below(7))};
        auto want = v;
        std::sort(want.begin(), want.end());
        quoct::detail::sort_small(v.data(), v.data() + n);
        REQUIRE(v == want);
    }
}

}  // namespace test_keys
