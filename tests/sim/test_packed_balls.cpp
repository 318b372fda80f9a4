// quoct::packed_ball_index against brute force over the closed predicates of shapes.hpp:
// balls meeting a box or a ball, balls containing a point, the k nearest balls (by
// distance_sq(p, ball), ties by smaller id, and with ties::any), every pair of balls that meet, joins with
// another set (balls, boxes) and with points, and refit() against building anew. Sets of
// many sizes, integer lattices (balls tangent to balls and to query faces, radius 0,
// duplicates), dyadic polydisperse balls, extreme extents (radii near the least normal and
// near the largest double, balls whose box reaches infinity), infinite query bounds; bad
// input refused with the index unchanged.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include <quoct/packed_objects.hpp>

#include "test_support.hpp"

namespace test_packed_balls {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

using namespace quoct_test;

enum class kind { lattice, dyadic, extreme };

// Balls of one kind: integer centres and radii 0..3 (tangent pairs, duplicates), dyadic
// centres with radii over a 1:1024 range, or a mix of tiny, ordinary and huge radii.
template <class T, std::size_t D>
std::vector<quoct::ball<T, D>> make_balls(std::size_t n, kind k, std::uint64_t seed) {
    rng r(seed);
    std::vector<quoct::ball<T, D>> out(n);
    for (auto& s : out) {
        for (std::size_t a = 0; a < D; ++a) {
            if (k == kind::lattice)
                s.center[a] = static_cast<T>(static_cast<int>(r() % 24) - 12);
            else
                s.center[a] = static_cast<T>(std::ldexp(std::floor(r.uniform(0, 1) * 4096), -12));
        }
        if (k == kind::lattice) {
            s.radius = static_cast<T>(r() % 4);
        } else if (k == kind::dyadic) {
            s.radius = static_cast<T>(std::ldexp(1.0, -4 - static_cast<int>(r() % 11)));
        } else {
            const int e = static_cast<int>(r() % 3);
            const T big = std::numeric_limits<T>::max() / 4;
            s.radius = e == 0 ? std::numeric_limits<T>::min() * static_cast<T>(r() % 5) : e == 1 ? T(0.01) : big;
            if (e == 2 && r() % 2 == 0) s.center[0] = std::numeric_limits<T>::max() / 2;  // its box reaches +inf
        }
    }
    return out;
}

template <class Shape, class Q>
std::vector<std::uint32_t> brute(const std::vector<Shape>& objects, const Q& q) {
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < objects.size(); ++i)
        if (quoct::intersects(objects[i], q)) out.push_back(static_cast<std::uint32_t>(i));
    return out;
}

template <class T, std::size_t D>
std::vector<std::uint32_t> brute_containing(const std::vector<quoct::ball<T, D>>& balls, const quoct::point<T, D>& p) {
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < balls.size(); ++i)
        if (quoct::contains(balls[i], p)) out.push_back(static_cast<std::uint32_t>(i));
    return out;
}

template <class T, std::size_t D>
std::vector<quoct::neighbor<T, std::uint32_t>> brute_nearest(const std::vector<quoct::ball<T, D>>& balls,
                                                             const quoct::point<T, D>& p, std::size_t k) {
    std::vector<quoct::neighbor<T, std::uint32_t>> all;
    for (std::size_t i = 0; i < balls.size(); ++i) all.push_back({static_cast<std::uint32_t>(i), quoct::distance_sq(p, balls[i])});
    std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) {
        return x.distance_sq < y.distance_sq || (x.distance_sq == y.distance_sq && x.id < y.id);
    });
    all.resize(std::min(k, all.size()));
    return all;
}

// Every query of `index` over `balls` against brute force.
template <class T, std::size_t D>
void check_queries(const quoct::packed_ball_index<T, D>& index, const std::vector<quoct::ball<T, D>>& balls, kind k,
                   std::uint64_t seed) {
    REQUIRE(index.size() == balls.size());
    rng r(seed);
    const auto point = [&] {
        quoct::point<T, D> p;
        for (std::size_t a = 0; a < D; ++a)
            p[a] = k == kind::lattice ? static_cast<T>(static_cast<int>(r() % 30) - 15)
                                      : static_cast<T>(std::ldexp(std::floor(r.uniform(-0.1, 1.1) * 4096), -12));
        return p;
    };
    const T inf = std::numeric_limits<T>::infinity();
    for (int q = 0; q < 50; ++q) {
        quoct::box<T, D> w{point(), point()};
        for (std::size_t a = 0; a < D; ++a)
            if (w.hi[a] < w.lo[a]) std::swap(w.lo[a], w.hi[a]);
        if (q % 10 == 9) w.hi[0] = inf, w.lo[D - 1] = -inf;  // a box reaching infinity
        CHECK(sorted(index.query(w)) == brute(balls, w));
        CHECK(index.count(w) == brute(balls, w).size());
        const T radius = k == kind::lattice ? static_cast<T>(r() % 5)
                         : q % 10 == 8      ? inf
                                            : static_cast<T>(std::ldexp(1.0, -static_cast<int>(r() % 9)));
        const quoct::ball<T, D> s{point(), radius};
        CHECK(sorted(index.query(s)) == brute(balls, s));
        const quoct::point<T, D> p = point();
        CHECK(sorted(index.containing(p)) == brute_containing(balls, p));
        for (const std::size_t kk : {std::size_t{1}, std::size_t{6}, std::size_t{40}}) {
            std::vector<quoct::neighbor<T, std::uint32_t>> got;
            index.nearest(p, kk, got);
            const auto want = brute_nearest(balls, p, kk);
            CHECK(neighbor_diff(got, want) == "");
            index.nearest(p, kk, got, quoct::ties::any);
            CHECK(any_tie_diff(got, want, [&](std::uint32_t id) { return quoct::distance_sq(p, balls[id]); }) == "");
        }
    }
    for (std::size_t id = 0; id < balls.size(); id += 89) {
        const quoct::ball<T, D> s = index.shape(static_cast<std::uint32_t>(id));
        CHECK((s.center == balls[id].center && s.radius == balls[id].radius));
    }
}

template <class T, std::size_t D>
std::vector<std::pair<std::uint32_t, std::uint32_t>> brute_pairs(const std::vector<quoct::ball<T, D>>& balls) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> want;
    for (std::uint32_t a = 0; a < balls.size(); ++a)
        for (std::uint32_t b = a + 1; b < balls.size(); ++b)
            if (quoct::intersects(balls[a], balls[b])) want.emplace_back(a, b);
    return want;
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("packed_ball_index: every query equals brute force", "[objects][packed]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{17}, std::size_t{300}, std::size_t{4000}})
        for (const kind k : {kind::lattice, kind::dyadic, kind::extreme}) {
            CAPTURE(n, static_cast<int>(k));
            const auto balls = make_balls<T, D>(n, k, 3 + n);
            check_queries(quoct::packed_ball_index<T, D>(balls), balls, k, 5 + n);
        }
}

TEST_CASE("packed_ball_index: many balls around one point, and its nearest are the smallest ids", "[objects][packed]") {
    std::vector<quoct::ball<double, 3>> balls;
    rng r(8);
    for (int i = 0; i < 6000; ++i) {
        const double c = i % 2 == 0 ? 0.0 : 100.0 + static_cast<double>(i);
        balls.push_back({{{c, c, c}}, std::ldexp(1.0, -static_cast<int>(r() % 20))});
    }
    const quoct::packed_ball_index<double, 3> index(balls);
    const quoct::point<double, 3> origin{{0, 0, 0}};
    CHECK(index.nearest(origin, 3) == std::vector<std::uint32_t>{0, 2, 4});
    std::vector<quoct::neighbor<double, std::uint32_t>> any;  // any three, each at 0: even ids
    index.nearest(origin, 3, any, quoct::ties::any);
    REQUIRE(any.size() == 3);
    for (const auto& x : any) CHECK((x.distance_sq == 0 && x.id % 2 == 0));
    for (const std::uint32_t id : index.nearest(origin, 3, quoct::ties::any)) CHECK(id % 2 == 0);  // the ids form
    CHECK(index.containing(origin).size() == 3000);
}

TEMPLATE_LIST_TEST_CASE("packed_ball_index: every pair of balls that meet, once, as brute force", "[objects][packed]",
                        all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    for (const kind k : {kind::lattice, kind::dyadic, kind::extreme}) {
        CAPTURE(static_cast<int>(k));
        const auto balls = make_balls<T, D>(1100, k, 31);
        const auto want = brute_pairs(balls);
        const quoct::packed_ball_index<T, D> index(balls);
        CHECK(index.colliding_pairs(1) == want);
        CHECK(index.colliding_pairs(2) == want);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
        CHECK(index.for_each_colliding_pair([&](std::uint32_t a, std::uint32_t b) { got.emplace_back(a, b); }));
        std::sort(got.begin(), got.end());
        CHECK(got == want);
    }
}

TEMPLATE_LIST_TEST_CASE("packed indexes: joins with another set and with points equal brute force", "[objects][packed]",
                        all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const auto balls = make_balls<T, D>(900, kind::lattice, 41);
    std::vector<quoct::box<T, D>> boxes(700);
    rng r(43);
    for (auto& b : boxes)
        for (std::size_t a = 0; a < D; ++a) {
            b.lo[a] = static_cast<T>(static_cast<int>(r() % 26) - 13);
            b.hi[a] = b.lo[a] + static_cast<T>(r() % 3);
        }
    const quoct::packed_ball_index<T, D> ball_index(balls);
    const quoct::packed_box_index<T, D> box_index(boxes);
    for (const unsigned threads : {1u, 2u}) {
        const quoct::csr<std::uint32_t> balls_per_box = ball_index.meeting(box_index, threads);
        REQUIRE(balls_per_box.rows() == boxes.size());
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            const auto row = balls_per_box.row(i);
            CHECK(std::vector<std::uint32_t>(row.begin(), row.end()) == brute(balls, boxes[i]));
        }
        const quoct::csr<std::uint32_t> boxes_per_ball = box_index.meeting(ball_index, threads);
        REQUIRE(boxes_per_ball.rows() == balls.size());
        for (std::size_t i = 0; i < balls.size(); ++i) {
            const auto row = boxes_per_ball.row(i);
            CHECK(std::vector<std::uint32_t>(row.begin(), row.end()) == brute(boxes, balls[i]));
        }
        std::vector<quoct::point<T, D>> points(500);
        for (auto& p : points)
            for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(static_cast<int>(r() % 28) - 14);
        const quoct::csr<std::uint32_t> holding = ball_index.containing(points, threads);
        REQUIRE(holding.rows() == points.size());
        for (std::size_t i = 0; i < points.size(); ++i) {
            const auto row = holding.row(i);
            CHECK(std::vector<std::uint32_t>(row.begin(), row.end()) == brute_containing(balls, points[i]));
        }
    }
}

TEMPLATE_LIST_TEST_CASE("packed indexes: refit equals building anew, for every query", "[objects][packed]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    auto balls = make_balls<T, D>(3000, kind::dyadic, 51);
    quoct::packed_ball_index<T, D> index(balls);
    rng r(53);
    for (int step = 0; step < 3; ++step) {
        for (std::size_t i = 0; i < balls.size(); ++i) {  // most a little, 1% anywhere
            for (std::size_t a = 0; a < D; ++a)
                balls[i].center[a] = i % 100 == 0 ? static_cast<T>(std::ldexp(std::floor(r.uniform(0, 1) * 4096), -12))
                                                  : balls[i].center[a] + static_cast<T>(std::ldexp(static_cast<double>(r() % 5) - 2.0, -10));
            if (i % 7 == 0) balls[i].radius = static_cast<T>(std::ldexp(1.0, -4 - static_cast<int>(r() % 11)));
        }
        index.refit(balls);
        check_queries(index, balls, kind::dyadic, 57 + step);
        CHECK(index.colliding_pairs(2) == brute_pairs(balls));
    }
    std::vector<quoct::box<T, D>> boxes(40);
    for (std::size_t i = 0; i < boxes.size(); ++i) boxes[i] = quoct::box<T, D>{balls[i].center, balls[i].center};
    quoct::packed_box_index<T, D> box_index(boxes);
    for (auto& b : boxes) b.hi[0] += 1;
    box_index.refit(boxes);
    for (std::size_t i = 0; i < boxes.size(); ++i) CHECK(sorted(box_index.containing(boxes[i].hi)) == brute(boxes, quoct::box<T, D>{boxes[i].hi, boxes[i].hi}));
}

TEMPLATE_LIST_TEST_CASE("packed_ball_index: points a rounding past a ball's edge, where the predicate's roundings decide",
                        "[objects][packed]", all_configs) {
    // A centre of one sign and a larger radius: c + r is smaller than r, so p - c rounds on a
    // coarser grid than p, and the predicate accepts points a step or two beyond the real
    // edge. The ball's box must hold them; so must a query ball's grown form.
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    rng r(61);
    std::vector<quoct::ball<T, D>> balls(400);
    for (auto& s : balls) {
        for (std::size_t a = 0; a < D; ++a) s.center[a] = static_cast<T>(-r.uniform(0.05, 0.95));
        s.radius = static_cast<T>(r.uniform(1.0, 1.9));
    }
    const quoct::packed_ball_index<T, D> index(balls);
    std::size_t beyond = 0;  // accepted points outside the centre +- radius rounded to nearest
    for (std::size_t i = 0; i < balls.size(); ++i) {
        const quoct::ball<T, D>& s = balls[i];
        for (std::size_t a = 0; a < D; ++a)
            for (const bool up : {true, false}) {
                quoct::point<T, D> p = s.center;
                p[a] = up ? s.center[a] + s.radius : s.center[a] - s.radius;
                for (int k = 0; k < 4; ++k) p[a] = std::nextafter(p[a], up ? T(-10) : T(10));
                for (int k = 0; k < 9; ++k, p[a] = std::nextafter(p[a], up ? T(10) : T(-10))) {
                    const bool in = quoct::contains(s, p);
                    if (in && (up ? p[a] > s.center[a] + s.radius : p[a] < s.center[a] - s.radius)) ++beyond;
                    const std::vector<std::uint32_t> got = sorted(index.containing(p));
                    CHECK(std::binary_search(got.begin(), got.end(), static_cast<std::uint32_t>(i)) == in);
                    CHECK(got == brute_containing(balls, p));
                    const quoct::ball<T, D> dot{p, T(0)};
                    CHECK(sorted(index.query(dot)) == brute(balls, dot));
                    CHECK(sorted(index.query(quoct::box<T, D>{p, p})) == brute(balls, quoct::box<T, D>{p, p}));
                }
            }
    }
    CHECK(beyond > 0);  // the case this test is for did arise
}

TEMPLATE_LIST_TEST_CASE("packed_ball_index: balls a rounding past a query ball's edge, and nearest at near-equal distances",
                        "[objects][packed]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    rng r(71);
    // A large query ball whose edge passes near the origin, and small balls stepping across
    // that edge a unit of the last place at a time: the sum of radii rounds on the large
    // radius's coarse grid, the small balls' boxes on the fine grid near 0.
    for (int q = 0; q < 6; ++q) {
        quoct::ball<T, D> query{{}, T(0)};
        for (std::size_t a = 0; a < D; ++a) query.center[a] = a == 0 ? static_cast<T>(-r.uniform(1.0, 1.9)) : T(0);
        query.radius = -query.center[0] + static_cast<T>(r.uniform(0.001, 0.002));
        const T small = static_cast<T>(std::ldexp(1.0, -24));
        std::vector<quoct::ball<T, D>> balls;
        T x = query.center[0] + query.radius + small;
        for (int k = 0; k < 3000; ++k) x = std::nextafter(x, T(-1));
        for (int k = 0; k < 6000; ++k, x = std::nextafter(x, T(1))) {
            quoct::ball<T, D> s{{}, small};
            s.center[0] = x;
            balls.push_back(s);
        }
        const quoct::packed_ball_index<T, D> index(balls);
        const std::vector<std::uint32_t> want = brute(balls, query);
        CHECK(sorted(index.query(query)) == want);
        CHECK(!want.empty());
        CHECK(want.size() < balls.size());
    }
    // Balls near the origin on a sphere of radius 1000 around p0 = (1000, 0, ...): their
    // measures from points near p0 tie but for roundings relative to 1000, while their boxes
    // are rounded on the fine grid near 0, so a box's distance may exceed its ball's measure.
    quoct::point<T, D> p0{};
    p0[0] = T(1000);
    std::vector<quoct::ball<T, D>> shell(100);  // then each copied 60 times, ids interleaved
    for (std::size_t i = 0; i < shell.size(); ++i) {
        double side[D], norm = 1;
        side[0] = -1;
        for (std::size_t a = 1; a < D; ++a) {
            side[a] = r.uniform(-1e-6, 1e-6);
            norm += side[a] * side[a];
        }
        for (std::size_t a = 0; a < D; ++a) shell[i].center[a] = static_cast<T>(1000.0 * (a == 0 ? 1 : 0) + 1000.0 * side[a] / std::sqrt(norm));
        shell[i].radius = i % 2 == 0 ? T(0) : static_cast<T>(std::ldexp(1.0, -60));
    }
    for (std::size_t i = 0; i < 5900; ++i) shell.push_back(shell[i]);
    const quoct::packed_ball_index<T, D> index(shell);
    for (int q = 0; q < 40; ++q) {
        quoct::point<T, D> p = p0;
        for (int k = q % 7; k > 0; --k) p[0] = std::nextafter(p[0], q % 2 == 0 ? T(0) : T(2000));
        for (std::size_t a = 1; a < D; ++a) p[a] = static_cast<T>(r.uniform(-1e-12, 1e-12));
        for (const std::size_t k : {std::size_t{1}, std::size_t{5}, std::size_t{30}}) {
            std::vector<quoct::neighbor<T, std::uint32_t>> got;
            index.nearest(p, k, got);
            CHECK(neighbor_diff(got, brute_nearest(shell, p, k)) == "");
        }
    }
}

TEMPLATE_LIST_TEST_CASE("moving_ball_index: after every update, as brute force and as building anew", "[objects][packed]",
                        all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    auto balls = make_balls<T, D>(2500, kind::dyadic, 81);
    quoct::moving_ball_index<T, D> index(balls);
    rng r(83);
    bool some_loose = false;
    for (int step = 0; step < 12; ++step) {
        const std::size_t far = step < 6 ? 10 : 100;  // 1%, then (past the limit) 10% a step
        for (std::size_t i = 0; i < balls.size(); ++i) {
            for (std::size_t a = 0; a < D; ++a)
                balls[i].center[a] = (i + static_cast<std::size_t>(step)) % far == 0
                                         ? static_cast<T>(std::ldexp(std::floor(r.uniform(0, 1) * 4096), -12))
                                         : balls[i].center[a] + static_cast<T>(std::ldexp(static_cast<double>(r() % 5) - 2.0, -12));
        }
        index.update(balls);
        some_loose = some_loose || index.loose() > 0;
        CAPTURE(step, index.loose(), index.builds());
        CHECK(index.loose() <= index.loose_limit());
        const auto want = brute_pairs(balls);
        CHECK(index.colliding_pairs(1) == want);
        CHECK(index.colliding_pairs(2) == quoct::packed_ball_index<T, D>(balls).colliding_pairs(2));
        std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
        CHECK(index.for_each_colliding_pair([&](std::uint32_t a, std::uint32_t b) { got.emplace_back(a, b); }));
        std::sort(got.begin(), got.end());
        CHECK(got == want);
        for (int q = 0; q < 20; ++q) {
            quoct::point<T, D> p;
            for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(std::ldexp(std::floor(r.uniform(-0.1, 1.1) * 4096), -12));
            quoct::box<T, D> w{p, p};
            for (std::size_t a = 0; a < D; ++a) w.hi[a] += T(0.05);
            CHECK(sorted(index.query(w)) == brute(balls, w));
            const quoct::ball<T, D> s{p, T(0.03)};
            CHECK(sorted(index.query(s)) == brute(balls, s));
            CHECK(sorted(index.containing(p)) == brute_containing(balls, p));
            std::vector<quoct::neighbor<T, std::uint32_t>> near;
            index.nearest(p, 7, near);
            const auto want = brute_nearest(balls, p, 7);
            CHECK(neighbor_diff(near, want) == "");
            index.nearest(p, 7, near, quoct::ties::any);
            CHECK(any_tie_diff(near, want, [&](std::uint32_t id) { return quoct::distance_sq(p, balls[id]); }) == "");
        }
        for (std::size_t id = 0; id < balls.size(); id += 97) CHECK(index.shape(static_cast<std::uint32_t>(id)).radius == balls[id].radius);
    }
    CHECK(some_loose);
    CHECK(index.builds() > 1);  // the 10% steps passed the limit
    auto bad = balls;
    bad[5].radius = -1;
    const auto before = index.colliding_pairs();
    const std::size_t loose = index.loose();
    CHECK_THROWS_WITH(index.update(bad), Catch::Matchers::Contains("ball 5"));
    CHECK_THROWS_AS(index.update(std::vector<quoct::ball<T, D>>(3)), std::invalid_argument);
    CHECK(index.colliding_pairs() == before);
    CHECK(index.loose() == loose);
}

TEST_CASE("moving indexes: ties among loose objects, queries infinite on every axis, objects of the largest radius",
          "[objects][packed]") {
    // Two boxes jump to the same far place in one update: the nearest of a point there is
    // the smaller id, whatever order they went loose in.
    for (const auto& ab : {std::pair<int, int>{3, 40}, std::pair<int, int>{40, 3}, std::pair<int, int>{0, 63}}) {
        std::vector<quoct::box<double, 2>> v;
        for (int i = 0; i < 64; ++i) v.push_back({{{double(i), 0}}, {{double(i) + 0.5, 0.5}}});
        quoct::moving_box_index<double, 2> m(v);
        v[static_cast<std::size_t>(ab.first)] = v[static_cast<std::size_t>(ab.second)] = {{{1000, 1000}}, {{1001, 1001}}};
        m.update(v);
        const quoct::point<double, 2> p{{1000.5, 1000.5}};
        CHECK(m.nearest(p, 1) == quoct::packed_box_index<double, 2>(v).nearest(p, 1));
        CHECK(m.nearest(p, 3) == quoct::packed_box_index<double, 2>(v).nearest(p, 3));
        // A query infinite on every axis meets every object once, parked entries not again.
        const double inf = std::numeric_limits<double>::infinity();
        const quoct::box<double, 2> all{{{-inf, -inf}}, {{inf, inf}}};
        CHECK(sorted(m.query(all)).size() == 64);
        CHECK(m.count(quoct::ball<double, 2>{{{0, 0}}, inf}) == 64);
    }
    // A ball of the largest radius (its box reaches infinity on every axis), one that went
    // loose, and one that goes loose by growing to that radius: no pair twice, no (a, a).
    std::vector<quoct::ball<double, 2>> g;
    for (int i = 0; i < 64; ++i) g.push_back({{{double(i), 0}}, 0.25});
    g[0].radius = std::numeric_limits<double>::max();
    quoct::moving_ball_index<double, 2> mg(g);
    g[40].center = {{5000, 5000}};
    g[7].radius = std::numeric_limits<double>::max();
    mg.update(g);
    CHECK(mg.loose() > 0);
    CHECK(mg.colliding_pairs() == brute_pairs(g));
    std::vector<std::pair<std::uint32_t, std::uint32_t>> seen;
    mg.for_each_colliding_pair([&](std::uint32_t a, std::uint32_t b) { seen.emplace_back(a, b); });
    std::sort(seen.begin(), seen.end());
    CHECK(seen == brute_pairs(g));
    CHECK(sorted(mg.query(quoct::ball<double, 2>{{{0, 0}}, std::numeric_limits<double>::max()})) ==
          brute(g, quoct::ball<double, 2>{{{0, 0}}, std::numeric_limits<double>::max()}));
}

TEST_CASE("moving_box_index: boxes that move, touching faces included, as brute force", "[objects][packed]") {
    std::vector<quoct::box<double, 2>> boxes(1500);
    rng r(91);
    for (auto& b : boxes)
        for (std::size_t a = 0; a < 2; ++a) {
            b.lo[a] = static_cast<double>(static_cast<int>(r() % 60));
            b.hi[a] = b.lo[a] + static_cast<double>(r() % 3);
        }
    quoct::moving_box_index<double, 2> index(boxes);
    for (int step = 0; step < 6; ++step) {
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            const double d = i % 50 == static_cast<std::size_t>(step) ? static_cast<double>(static_cast<int>(r() % 60)) - boxes[i].lo[0]
                                                                      : static_cast<double>(static_cast<int>(r() % 3) - 1);
            boxes[i].lo[0] += d, boxes[i].hi[0] += d;
        }
        index.update(boxes);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> want;
        for (std::uint32_t a = 0; a < boxes.size(); ++a)
            for (std::uint32_t b = a + 1; b < boxes.size(); ++b)
                if (quoct::intersects(boxes[a], boxes[b])) want.emplace_back(a, b);
        CHECK(index.colliding_pairs(2) == want);
        const quoct::point<double, 2> p{{20, 30}};
        CHECK(sorted(index.containing(p)) == brute(boxes, quoct::box<double, 2>{p, p}));
    }
}

TEST_CASE("packed_ball_index: bad balls, queries and refits are refused by name, the index unchanged", "[objects][packed]") {
    auto balls = make_balls<double, 3>(40, kind::dyadic, 5);
    auto bad = balls;
    bad[17].radius = -1;
    CHECK_THROWS_WITH((quoct::packed_ball_index<double, 3>(bad)), Catch::Matchers::Contains("ball 17"));
    bad[17].radius = std::numeric_limits<double>::infinity();
    CHECK_THROWS_WITH((quoct::packed_ball_index<double, 3>(bad)), Catch::Matchers::Contains("ball 17"));
    bad[17] = balls[17];
    bad[23].center[1] = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH((quoct::packed_ball_index<double, 3>(bad)), Catch::Matchers::Contains("ball 23"));
    quoct::packed_ball_index<double, 3> index(balls);
    const auto before = index.colliding_pairs();
    CHECK_THROWS_WITH(index.refit(bad), Catch::Matchers::Contains("ball 23"));
    CHECK_THROWS_AS(index.refit(std::vector<quoct::ball<double, 3>>(39)), std::invalid_argument);
    CHECK(index.colliding_pairs() == before);
    check_queries(index, balls, kind::dyadic, 9);
    const quoct::point<double, 3> p{{0.5, 0.5, 0.5}};
    CHECK_THROWS_AS(index.nearest(p, 0), std::invalid_argument);
    CHECK_THROWS_AS(index.query(quoct::ball<double, 3>{p, -1.0}), std::invalid_argument);
    CHECK_THROWS_AS(index.containing(std::vector<quoct::point<double, 3>>{p, {{0, std::nan(""), 0}}}), std::invalid_argument);
    CHECK_THROWS_AS(index.shape(40), std::out_of_range);
    quoct::packed_ball_index<double, 3> none;
    none.refit(std::vector<quoct::ball<double, 3>>{});
    CHECK(none.nearest(p, 3).empty());
}

}  // namespace test_packed_balls
