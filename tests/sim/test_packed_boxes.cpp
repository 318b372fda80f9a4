// quoct::packed_box_index against brute force over the closed predicates of shapes.hpp:
// boxes meeting a box or a ball, boxes containing a point, counts, the k nearest boxes
// (ties by smaller id, and with ties::any) and every pair of boxes that meet, on sets of many sizes (empty, one, a partial last node, several
// levels), with integer and dyadic corners (queries on box faces, boxes sharing faces,
// degenerate boxes), duplicates, and many boxes around one point; bad input refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <stdexcept>
#include <vector>

#include <quoct/packed_objects.hpp>

#include "test_support.hpp"

namespace test_packed_boxes {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

using namespace quoct_test;

// Boxes of several kinds: `lattice` on an integer grid (faces shared, degenerate boxes,
// duplicates), else dyadic corners with sizes over four decades, some of size zero.
template <class T, std::size_t D>
std::vector<quoct::box<T, D>> make_boxes(std::size_t n, bool lattice, std::uint64_t seed) {
    rng r(seed);
    std::vector<quoct::box<T, D>> out(n);
    for (auto& b : out)
        for (std::size_t a = 0; a < D; ++a) {
            if (lattice) {
                b.lo[a] = static_cast<T>(static_cast<int>(r() % 20) - 10);
                b.hi[a] = b.lo[a] + static_cast<T>(r() % 4);
            } else {
                b.lo[a] = static_cast<T>(std::ldexp(std::floor(r.uniform(0, 1) * 1024), -10));
                b.hi[a] = r() % 8 == 0 ? b.lo[a] : b.lo[a] + static_cast<T>(std::ldexp(1.0, -static_cast<int>(r() % 14)));
            }
        }
    return out;
}

template <class T, std::size_t D, class Q>
std::vector<std::uint32_t> brute(const std::vector<quoct::box<T, D>>& boxes, const Q& q) {
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < boxes.size(); ++i)
        if (quoct::intersects(boxes[i], q)) out.push_back(static_cast<std::uint32_t>(i));
    return out;
}

template <class T, std::size_t D>
std::vector<quoct::neighbor<T, std::uint32_t>> brute_nearest(const std::vector<quoct::box<T, D>>& boxes,
                                                             const quoct::point<T, D>& p, std::size_t k) {
    std::vector<quoct::neighbor<T, std::uint32_t>> all;
    for (std::size_t i = 0; i < boxes.size(); ++i) all.push_back({static_cast<std::uint32_t>(i), quoct::distance_sq(p, boxes[i])});
    std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) {
        return x.distance_sq < y.distance_sq || (x.distance_sq == y.distance_sq && x.id < y.id);
    });
    all.resize(std::min(k, all.size()));
    return all;
}

template <class T, std::size_t D>
void check_against_brute_force(const std::vector<quoct::box<T, D>>& boxes, bool lattice, std::uint64_t seed) {
    const quoct::packed_box_index<T, D> index(boxes);
    REQUIRE(index.size() == boxes.size());
    rng r(seed);
    const auto point = [&] {
        quoct::point<T, D> p;
        for (std::size_t a = 0; a < D; ++a)
            p[a] = lattice ? static_cast<T>(static_cast<int>(r() % 26) - 13)
                           : static_cast<T>(std::ldexp(std::floor(r.uniform(-0.1, 1.1) * 2048), -11));
        return p;
    };
    for (int q = 0; q < 60; ++q) {
        quoct::box<T, D> w{point(), point()};
        for (std::size_t a = 0; a < D; ++a)
            if (w.hi[a] < w.lo[a]) std::swap(w.lo[a], w.hi[a]);
        CHECK(sorted(index.query(w)) == brute(boxes, w));
        CHECK(index.count(w) == brute(boxes, w).size());
        const quoct::ball<T, D> s{point(), lattice ? static_cast<T>(r() % 5) : static_cast<T>(std::ldexp(1.0, -static_cast<int>(r() % 8)))};
        CHECK(sorted(index.query(s)) == brute(boxes, s));
        const quoct::point<T, D> p = point();
        CHECK(sorted(index.containing(p)) == brute(boxes, quoct::box<T, D>{p, p}));
        for (const std::size_t k : {std::size_t{1}, std::size_t{5}, std::size_t{40}}) {
            std::vector<quoct::neighbor<T, std::uint32_t>> got;
            index.nearest(p, k, got);
            const auto want = brute_nearest(boxes, p, k);
            CHECK(neighbor_diff(got, want) == "");
            index.nearest(p, k, got, quoct::ties::any);
            CHECK(any_tie_diff(got, want, [&](std::uint32_t id) { return quoct::distance_sq(p, boxes[id]); }) == "");
        }
    }
    for (std::size_t id = 0; id < boxes.size(); id += 97) {
        const quoct::box<T, D> b = index.shape(static_cast<std::uint32_t>(id));
        CHECK((b.lo == boxes[id].lo && b.hi == boxes[id].hi));
    }
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("packed_box_index: every query equals brute force", "[objects][packed]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{16}, std::size_t{17}, std::size_t{300}, std::size_t{5000}})
        for (const bool lattice : {false, true}) {
            CAPTURE(n, lattice);
            check_against_brute_force<T, D>(make_boxes<T, D>(n, lattice, 7 + n), lattice, 11 + n);
        }
}

TEST_CASE("packed_box_index: many boxes around one point, and its nearest are the smallest ids", "[objects][packed]") {
    // 3,000 nested boxes all holding the origin, in shuffled ids, among 3,000 far ones: the
    // nearest box of the origin is the smallest id of the nested ones, at 0.
    std::vector<quoct::box<double, 2>> boxes;
    rng r(3);
    for (int i = 0; i < 6000; ++i) {
        const double h = std::ldexp(1.0, -static_cast<int>(r() % 20));
        const double c = i % 2 == 0 ? 0.0 : 100.0 + static_cast<double>(i);
        boxes.push_back({{{c - h, c - h}}, {{c + h, c + h}}});
    }
    const quoct::packed_box_index<double, 2> index(boxes);
    const quoct::point<double, 2> origin{{0, 0}};
    CHECK(index.nearest(origin, 3) == std::vector<std::uint32_t>{0, 2, 4});
    // Any three of the nested boxes, with ties::any: each at 0, so an even id.
    std::vector<quoct::neighbor<double, std::uint32_t>> any;
    index.nearest(origin, 3, any, quoct::ties::any);
    REQUIRE(any.size() == 3);
    for (const auto& x : any) CHECK((x.distance_sq == 0 && x.id % 2 == 0));
    CHECK(index.containing(origin).size() == 3000);
    std::size_t seen = 0;
    CHECK_FALSE(index.visit(quoct::box<double, 2>{origin, origin}, [&](std::uint32_t) { return ++seen < 10; }));
    CHECK(seen == 10);
}

TEMPLATE_LIST_TEST_CASE("packed_box_index: every pair of boxes that meet, once, as brute force", "[objects][packed]",
                        all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    for (const bool lattice : {false, true}) {
        CAPTURE(lattice);
        const std::vector<quoct::box<T, D>> boxes = make_boxes<T, D>(1200, lattice, 21);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> want;
        for (std::uint32_t a = 0; a < boxes.size(); ++a)
            for (std::uint32_t b = a + 1; b < boxes.size(); ++b)
                if (quoct::intersects(boxes[a], boxes[b])) want.emplace_back(a, b);
        const quoct::packed_box_index<T, D> index(boxes);
        CHECK(index.colliding_pairs(1) == want);
        CHECK(index.colliding_pairs(3) == want);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
        CHECK(index.for_each_colliding_pair([&](std::uint32_t a, std::uint32_t b) { got.emplace_back(a, b); }));
        std::sort(got.begin(), got.end());
        CHECK(got == want);
        std::size_t seen = 0;
        CHECK(index.for_each_colliding_pair([&](std::uint32_t, std::uint32_t) { return ++seen < 5; }) == (want.size() < 5));
    }
}

TEMPLATE_LIST_TEST_CASE("packed_box_index: boxes a few ulps past a query ball's edge, where c + r rounds", "[objects][packed]",
                        all_configs) {
    // Query balls of non-dyadic centre and radius, so that c + r and c - r round; boxes whose
    // near face lies within a few ulps of either, on one axis, the other axes through the
    // centre. The predicate decides by its own roundings; the search must not prune first.
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    rng r(41);
    for (int round = 0; round < 40; ++round) {
        quoct::point<T, D> c;
        for (std::size_t a = 0; a < D; ++a) c[a] = static_cast<T>(r.uniform(-3, 3));
        const T radius = static_cast<T>(r.uniform(0.01, 2));
        std::vector<quoct::box<T, D>> boxes;
        for (std::size_t a = 0; a < D; ++a)
            for (int side : {-1, 1})
                for (int ulps = -4; ulps <= 4; ++ulps) {
                    T face = side > 0 ? static_cast<T>(c[a] + radius) : static_cast<T>(c[a] - radius);
                    for (int u = 0; u < std::abs(ulps); ++u)
                        face = std::nextafter(face, ulps > 0 ? std::numeric_limits<T>::infinity() * side
                                                             : -std::numeric_limits<T>::infinity() * side);
                    quoct::box<T, D> b{c, c};
                    if (side > 0) b.lo[a] = face, b.hi[a] = face + T(1);
                    else b.lo[a] = face - T(1), b.hi[a] = face;
                    boxes.push_back(b);
                }
        for (std::size_t i = boxes.size(); i < 200; ++i) boxes.push_back(boxes[i % 20]);  // (several levels)
        const quoct::packed_box_index<T, D> index(boxes);
        const quoct::ball<T, D> q{c, radius};
        CHECK(sorted(index.query(q)) == brute(boxes, q));
    }
}

TEMPLATE_LIST_TEST_CASE("packed_box_index: every kernel level (portable, AVX2 where the CPU has it) answers as brute force",
                        "[objects][packed][simd]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    namespace kn = quoct::detail::kernels;
    struct restore {
        ~restore() { kn::use_level(kn::cpu_level()); }
    } guard;
    for (const kn::level want : {kn::level::portable, kn::level::avx2}) {
        const kn::level l = kn::use_level(want);
        CAPTURE(kn::level_name(l));
        for (const bool lattice : {false, true}) check_against_brute_force<T, D>(make_boxes<T, D>(3000, lattice, 21), lattice, 23);
    }
}

TEST_CASE("packed_box_index: bad boxes, queries and ids are refused by name", "[objects][packed]") {
    std::vector<quoct::box<double, 3>> boxes = make_boxes<double, 3>(40, false, 5);
    boxes[17].lo[1] = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH((quoct::packed_box_index<double, 3>(boxes)), Catch::Matchers::Contains("box 17"));
    boxes[17] = boxes[16];
    std::swap(boxes[23].lo[2], boxes[23].hi[2]);
    if (boxes[23].lo[2] == boxes[23].hi[2]) boxes[23].hi[2] -= 1;
    CHECK_THROWS_WITH((quoct::packed_box_index<double, 3>(boxes)), Catch::Matchers::Contains("box 23"));
    boxes[23] = boxes[16];
    const quoct::packed_box_index<double, 3> index(boxes);
    const quoct::point<double, 3> p{{0.5, 0.5, 0.5}};
    CHECK_THROWS_AS(index.nearest(p, 0), std::invalid_argument);
    CHECK_THROWS_AS(index.nearest({{0.5, std::numeric_limits<double>::quiet_NaN(), 0.5}}, 1), std::invalid_argument);
    CHECK_THROWS_AS(index.query(quoct::ball<double, 3>{p, -1.0}), std::invalid_argument);
    CHECK_THROWS_AS(index.query(quoct::box<double, 3>{{{1, 0, 0}}, {{0, 1, 1}}}), std::invalid_argument);
    CHECK_THROWS_AS(index.shape(40), std::out_of_range);
    CHECK(quoct::packed_box_index<double, 3>().nearest(p, 3).empty());
}

}  // namespace test_packed_boxes
