// Tests of quoct::orthtree against brute force (the kernel's exact predicates over every
// point) and against Boost.Geometry's rtree: ball, box, count, visit, nearest, bounds, on
// synthetic data sets chosen to break trees (clusters of very different density, heavy
// duplicates, collinear points, lattices hit exactly by the radius, coordinates from 1e-300
// to 1e300) and on real data (bunny surface samples, world cities); every build option
// edge; several Id types; invalid input; empty trees; concurrent queries; user shapes.
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <boost/geometry/index/rtree.hpp>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace test_orthtree {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

using namespace quoct_test;

// --- the shared oracle check ---------------------------------------------------------------

// Runs ball, box and nearest queries of every kind (see make_balls / make_boxes) through every
// entry point of the tree and compares each answer with brute force over `pts`.
template <class Tree, class T, std::size_t D>
void check_against_brute_force(const points<T, D>& pts, const Tree& tree, std::uint64_t seed, std::size_t n_balls = 100,
                               std::size_t n_boxes = 60, std::size_t n_knn = 30) {
    using Id = typename Tree::id_type;
    using point = quoct::point<T, D>;
    REQUIRE(tree.size() == pts.size());
    CHECK(tree.empty() == pts.empty());
    const auto want_bounds = brute_bounds(pts);
    CHECK(tree.bounds().lo == want_bounds.lo);
    CHECK(tree.bounds().hi == want_bounds.hi);
    if (pts.empty()) return;

    std::vector<Id> out, seen;
    bool points_ok = true;
    const auto record = [&](Id id, const point& p) {
        seen.push_back(id);
        points_ok = points_ok && id < pts.size() && p == pts[id];  // the visitor sees the input point
    };

    for (const auto& s : make_balls(pts, n_balls, seed)) {
        INFO(str(s));
        const auto want = brute_ball<Id>(pts, s);
        CHECK(id_diff(tree.query(s), want) == "");
        out.assign(3, Id{1});  // stale contents must go
        tree.query(s, out);
        CHECK(id_diff(out, want) == "");
        CHECK(tree.count(s) == want.size());
        seen.clear();
        CHECK(tree.visit(s, record));
        CHECK(id_diff(seen, want) == "");
    }
    for (const auto& b : make_boxes(pts, n_boxes, seed + 1)) {
        INFO(str(b));
        const auto want = brute_box<Id>(pts, b);
        CHECK(id_diff(tree.query(b), want) == "");
        out.assign(3, Id{1});
        tree.query(b, out);
        CHECK(id_diff(out, want) == "");
        CHECK(tree.count(b) == want.size());
        seen.clear();
        CHECK(tree.visit(b, record));
        CHECK(id_diff(seen, want) == "");
    }
    CHECK(points_ok);

    rng r(seed + 2);
    const std::size_t ks[] = {1, 2, 7, 32, 33, 64, 300};  // 32 | 33: sorted array | heap
    std::vector<quoct::neighbor<T, Id>> got;
    for (std::size_t q = 0; q < n_knn; ++q) {
        point p = pts[r.below(pts.size())];
        if (q % 2 == 1)
            for (std::size_t a = 0; a < D; ++a)
                p[a] = static_cast<T>(std::max(-double(std::numeric_limits<T>::max()), std::min(double(std::numeric_limits<T>::max()),
                           r.uniform(want_bounds.lo[a], want_bounds.hi[a]) * (q % 6 == 5 ? 3 : 1))));
        const std::size_t k = ks[q % 7];
        INFO("nearest to " << str(p) << " k=" << k);
        const auto want = brute_nearest<Id>(pts, p, k);
        got.assign(2, quoct::neighbor<T, Id>{Id{1}, T(1)});
        tree.nearest(p, k, got);
        CHECK(neighbor_diff(got, want) == "");
        std::vector<Id> want_ids;
        for (const auto& w : want) want_ids.push_back(w.id);
        out.assign(3, Id{1});
        tree.nearest(p, k, out);
        CHECK(out == want_ids);
        CHECK(tree.nearest(p, k) == want_ids);
    }
}

// True when `text` holds `number` as a whole token (not as part of a longer number).
// (No std::regex: GCC 12 warns falsely inside it under the sanitizers.)
inline bool names_number(const std::string& text, std::size_t number) {
    const std::string n = std::to_string(number);
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    for (std::size_t at = text.find(n); at != std::string::npos; at = text.find(n, at + 1))
        if ((at == 0 || !digit(text[at - 1])) && (at + n.size() == text.size() || !digit(text[at + n.size()]))) return true;
    return false;
}

template <class T, std::size_t D>
quoct::orthtree<T, D> build(const points<T, D>& pts, quoct::build_options o = {}) {
    return quoct::orthtree<T, D>(pts, o);
}

// Points with duplicates removed (order kept for the first copy).
template <class T, std::size_t D>
points<T, D> distinct(points<T, D> pts) {
    std::sort(pts.begin(), pts.end(), [](const quoct::point<T, D>& a, const quoct::point<T, D>& b) {
        for (std::size_t i = 0; i < D; ++i)
            if (a[i] != b[i]) return a[i] < b[i];
        return false;
    });
    pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
    return pts;
}

}  // namespace

// --- empty and tiny trees ---------------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("orthtree: an empty tree answers nothing", "[orthtree]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const T inf = std::numeric_limits<T>::infinity();
    const typename TestType::tree built(points<T, D>{}), made;
    for (const auto* t : {&built, &made}) {
        CHECK(t->size() == 0);
        CHECK(t->empty());
        CHECK(t->depth() == 0);
        CHECK(t->bounds().lo == splat<T, D>(inf));
        CHECK(t->bounds().hi == splat<T, D>(-inf));
        const quoct::ball<T, D> all{splat<T, D>(0), inf};
        const quoct::box<T, D> everywhere{splat<T, D>(-inf), splat<T, D>(inf)};
        std::vector<std::uint32_t> out{1, 2, 3};
        t->query(all, out);
        CHECK(out.empty());
        out = {1, 2, 3};
        t->query(everywhere, out);
        CHECK(out.empty());
        CHECK(t->query(all).empty());
        CHECK(t->count(all) == 0);
        CHECK(t->count(everywhere) == 0);
        int calls = 0;
        CHECK(t->visit(all, [&](std::uint32_t, const quoct::point<T, D>&) { ++calls; }));
        CHECK(t->visit(everywhere, [&](std::uint32_t, const quoct::point<T, D>&) { ++calls; }));
        CHECK(calls == 0);
        out = {1, 2, 3};
        t->nearest(splat<T, D>(0), 5, out);
        CHECK(out.empty());
        CHECK_THROWS_AS(t->nearest(splat<T, D>(0), 0), std::invalid_argument);  // still validated
        CHECK_THROWS_AS(t->count(quoct::ball<T, D>{splat<T, D>(0), T(-1)}), std::invalid_argument);
    }
}

TEMPLATE_LIST_TEST_CASE("orthtree: one point, and two", "[orthtree]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const auto p = make_point<T, D>({1.5, -2, 4});
    const auto one = build(points<T, D>{p});
    CHECK(one.size() == 1);
    CHECK(one.bounds().lo == p);
    CHECK(one.bounds().hi == p);
    CHECK(one.query(quoct::ball<T, D>{p, T(0)}) == std::vector<std::uint32_t>{0});
    CHECK(one.query(quoct::box<T, D>{p, p}) == std::vector<std::uint32_t>{0});
    CHECK(one.count(quoct::ball<T, D>{splat<T, D>(0), T(1)}) == 0);
    CHECK(one.nearest(splat<T, D>(100), 3) == std::vector<std::uint32_t>{0});
    const auto q = make_point<T, D>({1.5, 1, 4});  // 3 from p along y
    const auto two = build(points<T, D>{p, q}, {1, quoct::max_depth_limit});
    CHECK(two.count(quoct::ball<T, D>{p, T(3)}) == 2);
    CHECK(two.count(quoct::ball<T, D>{p, std::nextafter(T(3), T(0))}) == 1);
    CHECK(two.nearest(make_point<T, D>({1.5, -0.5, 4}), 2) == std::vector<std::uint32_t>{0, 1});  // tie: smaller id first
    check_against_brute_force(points<T, D>{p, q}, two, 7, 20, 12, 6);
}

// --- every data set against brute force ------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("orthtree matches brute force on every data set", "[orthtree][data]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const kind k = GENERATE(kind::uniform, kind::clustered, kind::duplicates, kind::identical, kind::collinear,
                            kind::axis_line, kind::lattice, kind::dyadic, kind::spread, kind::bunny, kind::cities);
    INFO("data set " << name_of(k));
    const auto pts = make_points<T, D>(k, 20000, 1000 + static_cast<std::uint64_t>(k));
    REQUIRE(pts.size() > 1000);
    const auto tree = build(pts);
    CHECK(tree.depth() <= quoct::max_depth_limit);
    check_against_brute_force(pts, tree, 2000 + static_cast<std::uint64_t>(k));
}

TEMPLATE_LIST_TEST_CASE("orthtree: every build option gives the same answers", "[orthtree][options]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const std::size_t leaf = GENERATE(1, 2, 12, 64, 10000);
    const std::size_t depth = GENERATE(0, 1, 3, 64);
    const kind k = GENERATE(kind::clustered, kind::duplicates, kind::spread);
    INFO("leaf_size " << leaf << " max_depth " << depth << " data " << name_of(k));
    const auto pts = make_points<T, D>(k, 3000, 77);
    const auto tree = build(pts, {leaf, depth});
    CHECK(tree.depth() <= depth);
    if (depth == 0 || leaf >= pts.size()) {
        CHECK(tree.depth() == 0);
        CHECK(tree.node_count() == 1);
    }
    check_against_brute_force(pts, tree, 99, 30, 20, 10);
}

TEMPLATE_LIST_TEST_CASE("orthtree: leaves hold at most leaf_size distinct points unless at max_depth", "[orthtree][structure]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    // A leaf above leaf_size is allowed only for equal points or at max_depth; so a tree of
    // n distinct points that stops short of max_depth has at least n / leaf_size leaves. The
    // tight cluster is finer than any one-shot Morton grid over the whole extent. (Data at
    // every scale, whose leaves are checked one by one, is in test_scales.cpp.)
    const kind k = GENERATE(kind::uniform, kind::clustered, kind::collinear, kind::bunny);
    const std::size_t leaf = GENERATE(1, 12);
    auto pts = make_points<T, D>(k, 5000, 5);
    // 2000 points 1e-9 apart around the centre, with the data's far corners around them
    for (std::size_t i = 0; i < 2000; ++i) {
        auto p = splat<T, D>(T(0.5));
        p[0] = static_cast<T>(0.5 + 1e-9 * static_cast<double>(i) * (std::is_same<T, float>::value ? 100 : 1));
        pts.push_back(p);
    }
    pts = distinct(pts);
    INFO(name_of(k) << ", " << pts.size() << " distinct points, leaf_size " << leaf);
    const auto tree = build(pts, {leaf, quoct::max_depth_limit});
    REQUIRE(tree.depth() < quoct::max_depth_limit);
    CHECK(tree.node_count() >= (pts.size() + leaf - 1) / leaf);
    check_against_brute_force(pts, tree, 3, 20, 10, 5);
}

TEMPLATE_LIST_TEST_CASE("orthtree: the default leaf size is default_leaf_size(D)", "[orthtree][structure]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const kind k = GENERATE(kind::uniform, kind::clustered, kind::bunny);
    const auto pts = make_points<T, D>(k, 20000, 11);
    const std::size_t leaf = quoct::build_options::default_leaf_size(D);
    INFO(name_of(k) << ", default leaf size " << leaf);
    const auto by_default = build(pts);
    const auto explicit_leaf = build(pts, {leaf, quoct::max_depth_limit});
    const auto other_leaf = build(pts, {leaf + 8, quoct::max_depth_limit});
    CHECK(by_default.node_count() == explicit_leaf.node_count());
    CHECK(by_default.depth() == explicit_leaf.depth());
    CHECK(by_default.node_count() != other_leaf.node_count());  // the comparison can tell
    check_against_brute_force(pts, by_default, 7, 20, 10, 5);
}

// --- data sets with a story ---------------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("orthtree: lattice points at exactly the radius are included", "[orthtree][boundary]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const int half = D == 2 ? 20 : 8;
    const auto pts = lattice_points<T, D>(half);
    const auto tree = build(pts);
    // Integer oracle, independent of floating point: |p - c|^2 <= r^2 in integers.
    const auto int_count = [&](const std::array<int, 3>& c, int r) {
        std::size_t n = 0;
        for (const auto& p : pts) {
            long long s = 0;
            for (std::size_t a = 0; a < D; ++a) {
                const long long d = static_cast<long long>(p[a]) - c[a];
                s += d * d;
            }
            n += s <= static_cast<long long>(r) * r ? 1 : 0;
        }
        return n;
    };
    // Radii with Pythagorean boundary points: 5 (3-4-5), 13 (5-12-13) in 2D; 3 (1-2-2), 7 (2-3-6) in 3D.
    const std::vector<int> radii = D == 2 ? std::vector<int>{0, 1, 5, 13} : std::vector<int>{0, 1, 3, 7};
    for (const std::array<int, 3> c : {std::array<int, 3>{0, 0, 0}, std::array<int, 3>{-3, 2, 1}, std::array<int, 3>{half, half, half}}) {
        for (int r : radii) {
            const quoct::ball<T, D> s{make_point<T, D>({double(c[0]), double(c[1]), double(c[2])}), static_cast<T>(r)};
            INFO(str(s));
            const auto got = tree.query(s);
            CHECK(got.size() == int_count(c, r));
            CHECK(tree.count(s) == int_count(c, r));
            CHECK(id_diff(got, brute_ball(pts, s)) == "");
            // the boundary point at offset (3, 4) / (1, 2, 2) etc. is among them
            if (r == (D == 2 ? 5 : 3)) {
                auto edge = s.center;
                edge[0] -= D == 2 ? 3 : 1;
                edge[1] -= D == 2 ? 4 : 2;
                if (D == 3) edge[2] -= 2;
                const auto at = std::find(pts.begin(), pts.end(), edge);
                REQUIRE(at != pts.end());
                CHECK(std::count(got.begin(), got.end(), static_cast<std::uint32_t>(at - pts.begin())) == 1);
            }
        }
    }
    if (D == 2) CHECK(int_count({0, 0, 0}, 5) == 81);   // Gauss circle N(5)
    if (D == 3) CHECK(int_count({0, 0, 0}, 3) == 123);  // points of Z^3 in the ball of radius 3
    // A box with lattice points on every face: [-3, 4]^D holds 8^D of them.
    const auto b = quoct::box<T, D>{splat<T, D>(-3), splat<T, D>(4)};
    CHECK(tree.count(b) == static_cast<std::size_t>(std::pow(8.0, double(D))));
    check_against_brute_force(pts, tree, 11);
}

TEMPLATE_LIST_TEST_CASE("orthtree: heavy duplicates keep the tree shallow and ties ordered", "[orthtree][duplicates]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const auto pts = duplicate_points<T, D>(200000, 40, 8);
    const auto dup = duplicated_point<T, D>();
    const auto tree = build(pts);
    CHECK(tree.depth() <= quoct::max_depth_limit);
    const std::size_t copies = static_cast<std::size_t>(std::count(pts.begin(), pts.end(), dup));
    REQUIRE(copies >= 200000);
    CHECK(tree.count(quoct::ball<T, D>{dup, T(0)}) == copies);
    CHECK(tree.count(quoct::box<T, D>{dup, dup}) == copies);
    // the k nearest to the duplicate are its copies with the smallest ids, in id order
    std::vector<std::uint32_t> first_ids;
    for (std::size_t i = 0; i < pts.size() && first_ids.size() < 10; ++i)
        if (pts[i] == dup) first_ids.push_back(static_cast<std::uint32_t>(i));
    CHECK(tree.nearest(dup, 10) == first_ids);
    check_against_brute_force(pts, tree, 12, 30, 20, 10);

    const points<T, D> same(200000, dup);
    const auto flat = build(same);
    CHECK(flat.depth() <= 1);  // identical points cannot be told apart: nothing to split
    CHECK(flat.bounds().lo == dup);
    CHECK(flat.bounds().hi == dup);
    CHECK(flat.count(quoct::ball<T, D>{dup, T(0)}) == same.size());
    CHECK(flat.count(quoct::ball<T, D>{splat<T, D>(100), T(1)}) == 0);
    CHECK(flat.nearest(splat<T, D>(0), 3) == std::vector<std::uint32_t>{0, 1, 2});
    std::vector<quoct::neighbor<T, std::uint32_t>> nb;
    flat.nearest(splat<T, D>(0), 300000, nb);  // k > size: all, ids ascending
    REQUIRE(nb.size() == same.size());
    bool ordered = true;
    for (std::size_t i = 0; i < nb.size(); ++i)
        ordered = ordered && nb[i].id == i && nb[i].distance_sq == quoct::distance_sq(dup, splat<T, D>(0));
    CHECK(ordered);
}

TEMPLATE_LIST_TEST_CASE("orthtree: coordinates from tiny to huge build shallow and query exactly", "[orthtree][spread]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const auto pts = spread_points<T, D>(30000, 13);
    for (std::size_t depth : {std::size_t{8}, std::size_t{64}}) {
        const auto tree = build(pts, {12, depth});
        CHECK(tree.depth() <= depth);
        check_against_brute_force(pts, tree, 14, 60, 30, 10);
    }
    // extremes: the largest finite values and the smallest subnormals, together
    const T big = std::numeric_limits<T>::max(), tiny = std::numeric_limits<T>::denorm_min();
    points<T, D> edge{splat<T, D>(big), splat<T, D>(-big), splat<T, D>(tiny), splat<T, D>(-tiny), splat<T, D>(0),
                      splat<T, D>(2 * tiny), splat<T, D>(big / 2), make_point<T, D>({big, -big, tiny})};
    const auto tree = build(edge, {1, quoct::max_depth_limit});
    CHECK(tree.bounds().lo == splat<T, D>(-big));
    CHECK(tree.bounds().hi == splat<T, D>(big));
    CHECK(tree.count(quoct::ball<T, D>{splat<T, D>(0), std::numeric_limits<T>::infinity()}) == edge.size());
    check_against_brute_force(edge, tree, 15, 40, 30, 10);
}

// --- Id types ------------------------------------------------------------------------------------

TEST_CASE("orthtree: Id types uint8_t, uint16_t and uint64_t", "[orthtree][id]") {
    const auto small = clustered_points<double, 2>(100, 21);
    check_against_brute_force(small, quoct::orthtree<double, 2, std::uint8_t>(small, {2, 64}), 22, 40, 20, 10);
    const auto mid = clustered_points<float, 3>(20000, 23);
    check_against_brute_force(mid, quoct::orthtree<float, 3, std::uint16_t>(mid, {4, 64}), 24, 40, 20, 10);
    const auto big = bunny_points<double, 3>(30000, 25);
    check_against_brute_force(big, quoct::orthtree<double, 3, std::uint64_t>(big), 26, 40, 20, 10);
    // More points than the Id type can number: length_error, not silent wrap-around.
    const auto many = uniform_points<double, 2>(70000, 27);
    CHECK_THROWS_AS((quoct::orthtree<double, 2, std::uint16_t>(many)), std::length_error);
    const auto some = uniform_points<float, 2>(300, 28);
    CHECK_THROWS_AS((quoct::orthtree<float, 2, std::uint8_t>(some)), std::length_error);
}

// --- bad input -----------------------------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("orthtree: NaN or infinite input coordinates throw, naming the point", "[orthtree][errors]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const T bad_values[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                            -std::numeric_limits<T>::infinity()};
    for (const T bad : bad_values) {
        for (std::size_t a = 0; a < D; ++a) {
            auto pts = uniform_points<T, D>(40, 31);
            pts[17][a] = bad;
            pts[30][0] = bad;  // a later bad point: the first one is named
            INFO("value " << bad << " on axis " << a);
            try {
                quoct::orthtree<T, D> tree(pts);
                FAIL("no exception");
            } catch (const std::invalid_argument& e) {
                const std::string what = e.what();
                INFO(what);
                CHECK(names_number(what, 17));
                CHECK_FALSE(names_number(what, 30));
            }
        }
    }
}

TEMPLATE_LIST_TEST_CASE("orthtree: invalid options and query arguments throw invalid_argument", "[orthtree][errors]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    using ball = quoct::ball<T, D>;
    using box = quoct::box<T, D>;
    const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    const auto pts = uniform_points<T, D>(500, 32);
    CHECK_THROWS_AS((build(pts, {0, 10})), std::invalid_argument);
    CHECK_THROWS_AS((build(pts, {12, quoct::max_depth_limit + 1})), std::invalid_argument);
    CHECK_THROWS_AS((build(points<T, D>{}, {0, 10})), std::invalid_argument);  // even with no points
    CHECK_NOTHROW(build(pts, {1, quoct::max_depth_limit}));
    const auto tree = build(pts);
    std::vector<std::uint32_t> out;
    const auto noop = [](std::uint32_t, const quoct::point<T, D>&) {};

    std::vector<ball> bad_balls{{splat<T, D>(0), T(-1)}, {splat<T, D>(0), -std::numeric_limits<T>::denorm_min()},
                                {splat<T, D>(0), nan},   {splat<T, D>(nan), T(1)},
                                {splat<T, D>(inf), T(1)}, {splat<T, D>(-inf), inf}};
    auto half_nan = splat<T, D>(1);
    half_nan[D - 1] = nan;
    bad_balls.push_back({half_nan, T(1)});
    for (const auto& s : bad_balls) {
        INFO(str(s));
        CHECK_THROWS_AS(tree.query(s), std::invalid_argument);
        CHECK_THROWS_AS(tree.query(s, out), std::invalid_argument);
        CHECK_THROWS_AS(tree.count(s), std::invalid_argument);
        CHECK_THROWS_AS(tree.visit(s, noop), std::invalid_argument);
    }
    std::vector<box> bad_boxes{{splat<T, D>(1), splat<T, D>(0)}, {splat<T, D>(nan), splat<T, D>(1)},
                               {splat<T, D>(0), splat<T, D>(nan)}, {splat<T, D>(inf), splat<T, D>(-inf)}};
    auto inverted_last = box{splat<T, D>(0), splat<T, D>(1)};
    inverted_last.lo[D - 1] = 2;
    bad_boxes.push_back(inverted_last);
    for (const auto& b : bad_boxes) {
        INFO(str(b));
        CHECK_THROWS_AS(tree.query(b), std::invalid_argument);
        CHECK_THROWS_AS(tree.query(b, out), std::invalid_argument);
        CHECK_THROWS_AS(tree.count(b), std::invalid_argument);
        CHECK_THROWS_AS(tree.visit(b, noop), std::invalid_argument);
    }
    CHECK_THROWS_AS(tree.nearest(splat<T, D>(0), 0), std::invalid_argument);
    CHECK_THROWS_AS(tree.nearest(splat<T, D>(nan), 3), std::invalid_argument);
    CHECK_THROWS_AS(tree.nearest(splat<T, D>(inf), 3), std::invalid_argument);
    // valid edge arguments do not throw
    CHECK(tree.count(ball{splat<T, D>(0), T(-0.0)}) == brute_ball(pts, ball{splat<T, D>(0), T(0)}).size());
    CHECK(tree.count(ball{splat<T, D>(0), inf}) == pts.size());
    CHECK(tree.count(box{splat<T, D>(-inf), splat<T, D>(inf)}) == pts.size());
    CHECK(tree.count(box{splat<T, D>(inf), splat<T, D>(inf)}) == 0);
}

// --- visit and nearest specifics --------------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("orthtree: visit stops after exactly the call that returns false", "[orthtree][visit]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const auto pts = clustered_points<T, D>(20000, 41);
    const auto tree = build(pts);
    const quoct::ball<T, D> s{pts[5], static_cast<T>(extent(pts) / 3)};
    const quoct::box<T, D> b{brute_bounds(pts).lo, pts[5]};
    const std::size_t in_ball = tree.count(s), in_box = tree.count(b);
    REQUIRE(in_ball > 100);
    REQUIRE(in_box > 100);
    const auto run = [&](const auto& shape, std::size_t total) {
        for (std::size_t stop_at : {std::size_t{1}, std::size_t{2}, total / 2, total - 1, total}) {
            std::size_t calls = 0;
            const bool finished = tree.visit(shape, [&](std::uint32_t, const quoct::point<T, D>&) { return ++calls < stop_at; });
            INFO("stop at call " << stop_at << " of " << total);
            CHECK(calls == stop_at);
            CHECK_FALSE(finished);
        }
        std::size_t calls = 0;
        CHECK(tree.visit(shape, [&](std::uint32_t, const quoct::point<T, D>&) { return ++calls > 0; }));
        CHECK(calls == total);
        calls = 0;
        CHECK(tree.visit(shape, [&](std::uint32_t, const quoct::point<T, D>&) { ++calls; }));  // void: visit all
        CHECK(calls == total);
        struct oops {};
        calls = 0;
        CHECK_THROWS_AS(tree.visit(shape, [&](std::uint32_t, const quoct::point<T, D>&) {
            if (++calls == 3) throw oops{};
        }), oops);
        CHECK(calls == 3);
    };
    run(s, in_ball);
    run(b, in_box);
}

TEMPLATE_LIST_TEST_CASE("orthtree: nearest orders by distance then id, k beyond size returns all", "[orthtree][nearest]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    // The lattice puts 2D neighbours at equal distances: ties everywhere.
    const auto pts = lattice_points<T, D>(D == 2 ? 12 : 5);
    const auto tree = build(pts, {3, 64});
    const auto centre = splat<T, D>(0);
    std::vector<quoct::neighbor<T, std::uint32_t>> got;
    tree.nearest(centre, 1 + 2 * D, got);  // the centre and its 2D axis neighbours at distance 1
    REQUIRE(got.size() == 1 + 2 * D);
    CHECK(got[0].distance_sq == T(0));
    for (std::size_t i = 1; i < got.size(); ++i) {
        CHECK(got[i].distance_sq == T(1));
        CHECK((got[i - 1].id < got[i].id || got[i - 1].distance_sq < got[i].distance_sq));
    }
    CHECK(neighbor_diff(got, brute_nearest(pts, centre, 1 + 2 * D)) == "");
    // k == size and k > size: every point, in (distance, id) order
    for (std::size_t k : {pts.size(), pts.size() + 1, std::size_t{1} << 40}) {
        const auto p = make_point<T, D>({0.5, -0.25, 3});
        tree.nearest(p, k, got);
        CHECK(got.size() == pts.size());
        CHECK(neighbor_diff(got, brute_nearest(pts, p, pts.size())) == "");
    }
    // from far away the order is still exact
    const auto far = splat<T, D>(T(1e6));
    tree.nearest(far, 50, got);
    CHECK(neighbor_diff(got, brute_nearest(pts, far, 50)) == "");
}

// --- concurrency ---------------------------------------------------------------------------------

TEMPLATE_LIST_TEST_CASE("orthtree: concurrent queries on one const tree match serial results", "[orthtree][threads]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const auto pts = clustered_points<T, D>(30000, 51);
    const auto tree = build(pts);
    const auto balls = make_balls(pts, 120, 52);
    const auto boxes = make_boxes(pts, 60, 53);
    struct answers {
        std::vector<std::vector<std::uint32_t>> ball_ids, box_ids, nearest_ids;
        std::vector<std::size_t> counts;
    };
    const auto run_all = [&](answers& a) {
        std::vector<std::uint32_t> out;
        for (const auto& s : balls) {
            tree.query(s, out);
            a.ball_ids.push_back(sorted(out));
            a.counts.push_back(tree.count(s));
            a.nearest_ids.push_back(tree.nearest(s.center, 10));
        }
        for (const auto& b : boxes) {
            a.box_ids.push_back(sorted(tree.query(b)));
            a.counts.push_back(tree.count(b));
        }
    };
    answers serial;
    run_all(serial);
    constexpr std::size_t threads = 4;
    std::vector<answers> parallel(threads);
    std::vector<std::thread> workers;
    std::atomic<int> ready{0};
    for (std::size_t t = 0; t < threads; ++t)
        workers.emplace_back([&, t] {
            ++ready;
            while (ready.load() < static_cast<int>(threads)) std::this_thread::yield();  // start together
            run_all(parallel[t]);
        });
    for (auto& w : workers) w.join();
    for (std::size_t t = 0; t < threads; ++t) {
        INFO("thread " << t);
        CHECK(parallel[t].ball_ids == serial.ball_ids);
        CHECK(parallel[t].box_ids == serial.box_ids);
        CHECK(parallel[t].nearest_ids == serial.nearest_ids);
        CHECK(parallel[t].counts == serial.counts);
    }
    // and the serial answers are right
    for (std::size_t q = 0; q < balls.size(); q += 7) CHECK(serial.ball_ids[q] == brute_ball(pts, balls[q]));
}

// --- user-defined shapes ---------------------------------------------------------------------------

namespace {

// The half-space x0 + x1 + ... <= c. Sums of box corners bound the sums of its points
// (rounding is monotone), so classify agrees with contains.
template <class T, std::size_t D>
struct halfspace {
    T c;
    quoct::relation classify(const quoct::box<T, D>& b) const {
        T lo = 0, hi = 0;
        for (std::size_t a = 0; a < D; ++a) {
            lo += b.lo[a];
            hi += b.hi[a];
        }
        if (lo > c) return quoct::relation::outside;
        return hi <= c ? quoct::relation::inside : quoct::relation::partial;
    }
    bool contains(const quoct::point<T, D>& p) const {
        T s = 0;
        for (std::size_t a = 0; a < D; ++a) s += p[a];
        return s <= c;
    }
};

// The shell inner < |p - centre| <= outer, from the kernel's distance functions.
template <class T, std::size_t D>
struct shell {
    quoct::point<T, D> centre;
    T inner_sq, outer_sq;
    quoct::relation classify(const quoct::box<T, D>& b) const {
        const T near = quoct::distance_sq(centre, b), far = quoct::farthest_distance_sq(centre, b);
        if (near > outer_sq || far <= inner_sq) return quoct::relation::outside;
        return far <= outer_sq && near > inner_sq ? quoct::relation::inside : quoct::relation::partial;
    }
    bool contains(const quoct::point<T, D>& p) const {
        const T d = quoct::distance_sq(p, centre);
        return inner_sq < d && d <= outer_sq;
    }
};

}  // namespace

TEMPLATE_LIST_TEST_CASE("orthtree: user shapes via query_shape, count_shape, visit_shape", "[orthtree][shapes]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const kind k = GENERATE(kind::clustered, kind::dyadic, kind::bunny);
    INFO(name_of(k));
    const auto pts = make_points<T, D>(k, 20000, 61);
    const auto tree = build(pts);
    rng r(62);
    std::vector<std::uint32_t> out;
    const auto check_shape = [&](const auto& shape) {
        const auto want = brute_if(pts, [&](const quoct::point<T, D>& p) { return shape.contains(p); });
        out.assign(2, 9);
        tree.query_shape(shape, out);
        CHECK(id_diff(out, want) == "");
        CHECK(tree.count_shape(shape) == want.size());
        std::vector<std::uint32_t> seen;
        CHECK(tree.visit_shape(shape, [&](std::uint32_t id, const quoct::point<T, D>&) { seen.push_back(id); }));
        CHECK(id_diff(seen, want) == "");
        if (want.size() > 3) {
            std::size_t calls = 0;
            CHECK_FALSE(tree.visit_shape(shape, [&](std::uint32_t, const quoct::point<T, D>&) { return ++calls < 3; }));
            CHECK(calls == 3);
        }
        return want.size();
    };
    std::size_t nonempty = 0;
    for (int q = 0; q < 40; ++q) {
        const auto& p = pts[r.below(pts.size())];
        T sum = 0;
        for (std::size_t a = 0; a < D; ++a) sum += p[a];
        const halfspace<T, D> h{q % 4 == 0 ? sum : static_cast<T>(sum + extent(pts) * r.uniform(-1, 1))};  // through a data point, or not
        INFO("halfspace sum <= " << h.c);
        nonempty += check_shape(h) > 0 ? 1 : 0;
        const T d_sq = quoct::distance_sq(p, pts[r.below(pts.size())]);
        const shell<T, D> sh{p, d_sq * T(0.25), d_sq};  // outer boundary through a data point
        INFO("shell around " << str(p) << " (" << sh.inner_sq << ", " << sh.outer_sq << "]");
        nonempty += check_shape(sh) > 0 ? 1 : 0;
    }
    CHECK(nonempty > 40);
}

// --- Boost.Geometry rtree as a second reference ---------------------------------------------------

TEMPLATE_LIST_TEST_CASE("orthtree ball queries agree with a Boost.Geometry rtree", "[orthtree][boost]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    namespace bg = boost::geometry;
    namespace bgi = boost::geometry::index;
    const kind k = GENERATE(kind::bunny, kind::cities, kind::clustered);
    INFO(name_of(k));
    const auto pts = make_points<T, D>(k, 30000, 71);
    using value = std::pair<bg_point<T, D>, std::uint32_t>;
    std::vector<value> values;
    for (std::size_t i = 0; i < pts.size(); ++i) values.emplace_back(to_bg(pts[i]), static_cast<std::uint32_t>(i));
    const bgi::rtree<value, bgi::rstar<16>> rtree(values);
    const auto tree = build(pts);
    for (const auto& s : make_balls(pts, 150, 72)) {
        INFO(str(s));
        const T r2 = s.radius * s.radius;
        // The box only preselects, so widen it well beyond rounding; satisfies() decides.
        quoct::box<T, D> around;
        for (std::size_t a = 0; a < D; ++a) {
            const T pad = s.radius + (std::fabs(s.center[a]) + s.radius) * T(1e-4) + std::numeric_limits<T>::min();
            around.lo[a] = s.center[a] - pad;
            around.hi[a] = s.center[a] + pad;
        }
        const auto c = to_bg(s.center);
        std::vector<value> hits;
        rtree.query(bgi::intersects(to_bg(around)) && bgi::satisfies([&](const value& v) {
                        return bg::comparable_distance(v.first, c, bg::strategy::distance::comparable::pythagoras<T>()) <= r2;
                    }),
                    std::back_inserter(hits));
        std::vector<std::uint32_t> want;
        for (const auto& h : hits) want.push_back(h.second);
        CHECK(id_diff(tree.query(s), want) == "");
        CHECK(tree.count(s) == want.size());
    }
}

// --- other dimensions ----------------------------------------------------------------------------

TEMPLATE_TEST_CASE("orthtree is one template for every dimension: 1D and 4D", "[orthtree][dimensions]", (cfg<float, 1>),
                   (cfg<double, 1>), (cfg<float, 4>), (cfg<double, 4>)) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    CHECK(TestType::tree::fanout == (std::size_t{1} << D));
    const kind k = GENERATE(kind::uniform, kind::clustered, kind::duplicates, kind::dyadic, kind::spread, kind::lattice);
    INFO(name_of(k));
    const auto pts = make_points<T, D>(k, 8000, 81);
    const auto tree = build(pts, {4, 64});
    CHECK(tree.depth() <= 64);
    check_against_brute_force(pts, tree, 82, 60, 30, 15);
}

TEMPLATE_TEST_CASE("orthtree: two distinct points with leaf_size 1 make a root and two leaves", "[orthtree][structure][regression]",
                   (cfg<float, 1>), (cfg<double, 1>), (cfg<float, 2>), (cfg<double, 2>), (cfg<float, 3>), (cfg<double, 3>),
                   (cfg<float, 4>), (cfg<double, 4>)) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    using L = std::numeric_limits<T>;
    // Distinct points must be separated (the build leaves only equal points, or nodes at
    // max_depth, above leaf_size). Each pair differs on axis 0 only.
    const std::pair<T, T> pairs[] = {{T(0), T(1)},
                                     {T(1), std::nextafter(T(1), T(2))},
                                     {-L::max(), L::max()},
                                     {std::nextafter(L::max(), T(0)), L::max()},
                                     {T(0), L::min()},
                                     {T(0), L::denorm_min()}};
    for (const auto& pr : pairs) {
        auto a = splat<T, D>(T(0.5)), b = a;
        a[0] = pr.first;
        b[0] = pr.second;
        const points<T, D> pts{a, b};
        const auto tree = build(pts, {1, quoct::max_depth_limit});
        INFO(str(a) << " and " << str(b));
        CHECK(tree.node_count() == 3);
        CHECK(tree.depth() == 1);
        // the queries stay exact regardless (a tiny gap may square to 0: then both are "at" a)
        const quoct::ball<T, D> at_a{a, T(0)};
        CHECK(id_diff(tree.query(at_a), brute_ball(pts, at_a)) == "");
        CHECK(neighbor_diff(std::vector<quoct::neighbor<T, std::uint32_t>>{[&] {
                                std::vector<quoct::neighbor<T, std::uint32_t>> nb;
                                tree.nearest(b, 1, nb);
                                return nb.at(0);
                            }()},
                            brute_nearest(pts, b, 1)) == "");
    }
}

TEST_CASE("orthtree: node_at and stored_ids describe the tree: ranges, children, exact boxes", "[orthtree][nodes]") {
    // Random points, a lattice with duplicates, and one point: the node view must hold for each.
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<quoct::point<double, 3>> cloud(5000);
    for (auto& p : cloud) p = {u(rng), u(rng), std::floor(4 * u(rng)) / 4};
    quoct::build_options options;
    options.leaf_size = 7;
    for (const auto& pts : {cloud, std::vector<quoct::point<double, 3>>(40, quoct::point<double, 3>{1, 2, 3}),
                            std::vector<quoct::point<double, 3>>{{0.5, 0.5, 0.5}}}) {
        const quoct::orthtree<double, 3> tree(pts, options);
        const std::size_t nodes = tree.node_count();
        REQUIRE(nodes >= 1);
        // stored_ids is a permutation of the ids.
        std::vector<std::uint32_t> ids(tree.stored_ids(), tree.stored_ids() + tree.size());
        std::vector<std::uint32_t> sorted = ids;
        std::sort(sorted.begin(), sorted.end());
        for (std::uint32_t i = 0; i < sorted.size(); ++i) REQUIRE(sorted[i] == i);
        const auto root = tree.node_at(0);
        CHECK(root.begin == 0);
        CHECK(root.end == tree.size());
        CHECK(root.subtree_end == nodes);
        for (std::size_t i = 0; i < nodes; ++i) {
            const auto n = tree.node_at(i);
            REQUIRE(n.begin < n.end);
            // The box is the exact bounds of the node's points.
            quoct::box<double, 3> exact{{1e300, 1e300, 1e300}, {-1e300, -1e300, -1e300}};
            for (std::size_t at = n.begin; at < n.end; ++at) {
                const auto p = pts[ids[at]];
                for (std::size_t a = 0; a < 3; ++a) {
                    exact.lo[a] = std::min(exact.lo[a], p[a]);
                    exact.hi[a] = std::max(exact.hi[a], p[a]);
                }
            }
            for (std::size_t a = 0; a < 3; ++a) {
                REQUIRE(n.box.lo[a] == exact.lo[a]);
                REQUIRE(n.box.hi[a] == exact.hi[a]);
            }
            REQUIRE(n.leaf == (n.subtree_end == i + 1));
            if (n.leaf) continue;
            // The children (i + 1, then each one's subtree_end) split the range in order,
            // at least two of them, at most 8.
            std::size_t at = n.begin, count = 0;
            for (std::size_t c = i + 1; c < n.subtree_end; c = tree.node_at(c).subtree_end, ++count) {
                const auto child = tree.node_at(c);
                REQUIRE(child.begin == at);
                REQUIRE(child.subtree_end <= n.subtree_end);
                at = child.end;
            }
            REQUIRE(at == n.end);
            REQUIRE(count >= 2);
            REQUIRE(count <= 8);
        }
        CHECK_THROWS_AS(tree.node_at(nodes), std::out_of_range);
    }
    const quoct::orthtree<double, 2> empty{std::vector<quoct::point<double, 2>>{}};
    CHECK(empty.node_count() == 0);
    CHECK_THROWS_AS(empty.node_at(0), std::out_of_range);
}

}  // namespace test_orthtree
