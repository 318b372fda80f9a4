// Tests of quoct::orthtree on data at every scale: distances from the origin log-uniform over
// 40 and 30 decades, points equal but for their last bits, coordinates from 1e-300 to 1e300,
// and a chain of powers of two from the smallest subnormal to the largest finite value (the
// deepest a tree can be). Every leaf holds at most leaf_size points unless they are all equal
// (the default max_depth never caps a tree), the depth stays within the bound that
// max_depth_limit documents, and ball, box, count and k-nearest queries agree with brute force,
// at the origin and at radii from tiny to huge.
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <quoct/dynamic.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#define QUOCT_TEST_SMALL_STACK 1
#endif

namespace test_scales {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

using namespace quoct_test;

/// The deepest level a tree of T can split a node at, plus one for its children:
/// log2(2 max / denorm_min) + 1, the bound max_depth_limit documents, computed here apart.
template <class T>
constexpr std::size_t deepest_split() {
    using L = std::numeric_limits<T>;
    return static_cast<std::size_t>(2 + L::max_exponent - L::min_exponent + L::digits);
}

/// A leaf as leaf_probe sees it: its box, how many points, whether they are all equal.
template <class T, std::size_t D>
struct leaf_seen {
    quoct::box<T, D> box;
    std::size_t points;
    bool all_equal;
    quoct::point<T, D> first;
};

// The leaves of a tree, seen through the public count_shape contract alone: a shape that
// calls every box partial makes the traversal look into every node, and it tests contains()
// on each point of a leaf right after classify() on that leaf's box (an internal node is
// followed by its first child's classify() instead). contains() says no, so the count is 0.
template <class T, std::size_t D>
class leaf_probe {
public:
    quoct::relation classify(const quoct::box<T, D>& b) const {
        box_ = b;
        in_leaf_ = false;
        return quoct::relation::partial;
    }
    bool contains(const quoct::point<T, D>& p) const {
        if (!in_leaf_) leaves_.push_back(leaf_seen<T, D>{box_, 0, true, p});
        in_leaf_ = true;
        leaf_seen<T, D>& l = leaves_.back();
        ++l.points;
        l.all_equal = l.all_equal && p == l.first;
        return false;
    }
    const std::vector<leaf_seen<T, D>>& leaves() const { return leaves_; }

private:
    mutable std::vector<leaf_seen<T, D>> leaves_;
    mutable quoct::box<T, D> box_{};
    mutable bool in_leaf_ = false;
};

/// Every point in exactly one leaf, and no leaf over leaf_size unless its points are all
/// equal (then its box is that one point).
template <class T, std::size_t D>
void check_leaves(const quoct::orthtree<T, D>& tree, std::size_t leaf_size) {
    leaf_probe<T, D> probe;
    CHECK(tree.count_shape(probe) == 0);
    std::size_t total = 0, over = 0, biggest = 0;
    bool equal_boxes_ok = true;
    for (const auto& l : probe.leaves()) {
        total += l.points;
        biggest = std::max(biggest, l.points);
        over += l.points > leaf_size && !l.all_equal ? 1 : 0;
        if (l.all_equal) equal_boxes_ok = equal_boxes_ok && l.box.lo == l.first && l.box.hi == l.first;
    }
    INFO(probe.leaves().size() << " leaves, the largest of " << biggest << " points, depth " << tree.depth()
                               << ", leaf_size " << leaf_size);
    CHECK(total == tree.size());
    CHECK(over == 0);
    CHECK(equal_boxes_ok);
}

template <class T, std::size_t D>
double norm(const quoct::point<T, D>& p) {
    double s = 0;
    for (std::size_t a = 0; a < D; ++a) s += double(p[a]) * double(p[a]);
    return std::sqrt(s);
}

template <class T, std::size_t D>
quoct::box<T, D> box_around(const quoct::point<T, D>& c, double half) {
    quoct::box<T, D> b{c, c};
    for (std::size_t a = 0; a < D; ++a) {
        b.lo[a] = static_cast<T>(double(c[a]) - half);
        b.hi[a] = static_cast<T>(double(c[a]) + half);
    }
    return b;
}

/// Ball, box, count and k-nearest against brute force: the generic query sets, then queries
/// at the origin at every power of ten (the tiny ones below the data, the huge ones above,
/// those beyond T's range infinite), and around data points on their own scale (radius a
/// fraction of the point's distance from the origin, as a zoom-in simulation asks).
template <class T, std::size_t D>
void check_queries(const points<T, D>& pts, const quoct::orthtree<T, D>& tree, std::uint64_t seed) {
    using point = quoct::point<T, D>;
    std::vector<quoct::ball<T, D>> balls = make_balls(pts, 40, seed);
    std::vector<quoct::box<T, D>> boxes = make_boxes(pts, 30, seed + 1);
    const point origin = splat<T, D>(0);
    balls.push_back({origin, T(0)});
    for (int e = -320; e <= 320; e += 10) {
        const double r = std::pow(10.0, e);
        balls.push_back({origin, static_cast<T>(r)});
        boxes.push_back(box_around(origin, r));
    }
    rng r(seed + 2);
    std::vector<point> centres{origin};
    const auto bounds = brute_bounds(pts);
    for (std::size_t i = 0; i < 8; ++i) {  // anywhere in the bounds, and far outside them
        point p, far;
        for (std::size_t a = 0; a < D; ++a) {
            p[a] = static_cast<T>(r.uniform(double(bounds.lo[a]), double(bounds.hi[a])));
            far[a] = static_cast<T>(std::min(double(bounds.hi[a]) * double(i + 2) / 2 + 1, double(std::numeric_limits<T>::max())));
        }
        centres.push_back(p);
        centres.push_back(far);
    }
    for (std::size_t i = 0; i < 24; ++i) {
        const point& q = pts[r.below(pts.size())];
        centres.push_back(q);
        point half = q;
        for (std::size_t a = 0; a < D; ++a) half[a] = q[a] / 2;  // between the shells of q
        centres.push_back(half);
        for (double f : {1e-6, 1e-2, 0.3}) {
            balls.push_back({q, static_cast<T>(f * norm(q))});
            boxes.push_back(box_around(q, f * norm(q)));
        }
    }
    for (const auto& s : balls) {
        INFO(str(s));
        const auto want = brute_ball(pts, s);
        CHECK(id_diff(tree.query(s), want) == "");
        CHECK(tree.count(s) == want.size());
    }
    for (const auto& b : boxes) {
        INFO(str(b));
        const auto want = brute_box(pts, b);
        CHECK(id_diff(tree.query(b), want) == "");
        CHECK(tree.count(b) == want.size());
    }
    std::vector<quoct::neighbor<T, std::uint32_t>> got;
    for (const point& p : centres) {
        // brute force's k nearest for a smaller k are the first k of its 100: one total
        // order (distance, then id), so each centre's distances are computed once.
        const auto nearest100 = brute_nearest(pts, p, 100);
        for (std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{10}, std::size_t{100}}) {
            INFO("nearest to " << str(p) << " k=" << k);
            tree.nearest(p, k, got);
            const std::vector<quoct::neighbor<T, std::uint32_t>> want(
                nearest100.begin(), nearest100.begin() + static_cast<std::ptrdiff_t>(std::min(k, nearest100.size())));
            CHECK(neighbor_diff(got, want) == "");
        }
    }
}

enum class scale_set { log_uniform20, log_uniform15, nearly_equal, spread };

const char* name_of(scale_set s) {
    switch (s) {
        case scale_set::log_uniform20: return "log-uniform 1e-20..1e20";
        case scale_set::log_uniform15: return "log-uniform 1e-15..1e15";
        case scale_set::nearly_equal: return "equal but for the last bits";
        case scale_set::spread: return "spread (1e-300..1e300, float 1e-30..1e30)";
    }
    return "?";
}

template <class T, std::size_t D>
points<T, D> make_set(scale_set s, std::size_t n, std::uint64_t seed) {
    switch (s) {
        case scale_set::log_uniform20: return log_uniform_points<T, D>(n, seed);
        case scale_set::log_uniform15: return log_uniform_points<T, D>(n, seed, 1e-15, 1e15);
        case scale_set::nearly_equal: return nearly_equal_points<T, D>(n, seed);
        case scale_set::spread: return spread_points<T, D>(n, seed);
    }
    return {};
}

#ifdef QUOCT_TEST_SMALL_STACK
/// Runs f on a thread whose stack is `bytes` (a Python worker thread's may be small).
void on_small_stack(std::size_t bytes, const std::function<void()>& f) {
    pthread_attr_t attr;
    REQUIRE(pthread_attr_init(&attr) == 0);
    REQUIRE(pthread_attr_setstacksize(&attr, bytes) == 0);
    pthread_t thread;
    const auto run = [](void* arg) -> void* {
        (*static_cast<const std::function<void()>*>(arg))();
        return nullptr;
    };
    REQUIRE(pthread_create(&thread, &attr, run, const_cast<std::function<void()>*>(&f)) == 0);
    REQUIRE(pthread_join(thread, nullptr) == 0);
    pthread_attr_destroy(&attr);
}
#endif

}  // namespace

TEMPLATE_LIST_TEST_CASE("orthtree: data at every scale splits every leaf to leaf_size, however deep", "[orthtree][structure][scales]",
                        all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const scale_set set = GENERATE(scale_set::log_uniform20, scale_set::log_uniform15, scale_set::nearly_equal, scale_set::spread);
    const std::size_t leaf = GENERATE(std::size_t{1}, quoct::build_options::default_leaf_size(D));
    const auto pts = make_set<T, D>(set, 20000, 41 + static_cast<std::uint64_t>(set));
    INFO(name_of(set) << ", leaf_size " << leaf);
    quoct::build_options options;
    options.leaf_size = leaf;
    const quoct::orthtree<T, D> tree(pts, options);
    CHECK(tree.depth() <= deepest_split<T>());
    // About 133 levels of nesting around the origin: deeper than the old fixed cap of 64.
    if (set == scale_set::log_uniform20) CHECK(tree.depth() > 100);
    check_leaves(tree, leaf);
    check_queries(pts, tree, 51 + static_cast<std::uint64_t>(set));
}

TEMPLATE_LIST_TEST_CASE("orthtree: a max_depth of the user's still caps data at every scale", "[orthtree][structure][scales]",
                        all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const auto pts = log_uniform_points<T, D>(5000, 61);
    for (std::size_t cap : {std::size_t{0}, std::size_t{10}, std::size_t{64}}) {
        INFO("max_depth " << cap);
        const quoct::orthtree<T, D> tree(pts, quoct::build_options{8, cap});
        CHECK(tree.depth() == cap);  // the data is deeper than each cap
        check_queries(pts, tree, 62);
    }
}

TEMPLATE_TEST_CASE("orthtree: powers of two from denorm_min to max() split to single points, on a small stack",
                   "[orthtree][structure][depth]", (cfg<float, 1>), (cfg<double, 1>), (cfg<float, 2>), (cfg<double, 2>),
                   (cfg<double, 3>), (cfg<float, 8>), (cfg<double, 8>)) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    using L = std::numeric_limits<T>;
    // 0, +-max() and +-2^e for every e from the smallest subnormal's up: each level of the
    // tree peels off the outermost, so it is about as deep as a tree of T can be.
    std::vector<T> values{T(0), L::max(), -L::max()};
    for (T v = L::denorm_min(); v < L::infinity(); v *= 2) {
        values.push_back(v);
        values.push_back(-v);
    }
    points<T, D> pts;
    for (std::size_t i = 0; i < values.size(); ++i) {
        auto p = splat<T, D>(values[i]);
        if (D > 1) p[1] = values[(i * 7) % values.size()];  // not only the diagonal
        pts.push_back(p);
    }
    INFO(pts.size() << " points");
    quoct::orthtree<T, D> tree;
    std::vector<std::vector<quoct::neighbor<T, std::uint32_t>>> found(pts.size());
    const auto build_and_query = [&] {
        tree = quoct::orthtree<T, D>(pts, quoct::build_options{1, quoct::max_depth_limit});
        for (std::size_t i = 0; i < pts.size(); ++i) tree.nearest(pts[i], 2, found[i]);
    };
#ifdef QUOCT_TEST_SMALL_STACK
    on_small_stack(512 * 1024, build_and_query);  // a recursive build at D = 8 would need megabytes
#else
    build_and_query();
#endif
    INFO("depth " << tree.depth());
    CHECK(tree.depth() <= deepest_split<T>());
    CHECK(tree.depth() > deepest_split<T>() / 4);
    check_leaves(tree, 1);
    bool nearest_ok = true;
    for (std::size_t i = 0; i < pts.size(); ++i) nearest_ok = nearest_ok && neighbor_diff(found[i], brute_nearest(pts, pts[i], 2)) == "";
    CHECK(nearest_ok);
    check_queries(pts, tree, 71);
}

TEMPLATE_LIST_TEST_CASE("dynamic_orthtree: data at every scale, inserted, moved and erased, against brute force",
                        "[dynamic][scales]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    using point = quoct::point<T, D>;
    // Its snapshot, levels and tail are orthtrees and a list, all fed to one search.
    const auto first = log_uniform_points<T, D>(8000, 81);
    const auto more = log_uniform_points<T, D>(4000, 82);
    quoct::dynamic_orthtree<T, D> index(first);
    std::vector<point> where(first);
    std::vector<bool> live(first.size(), true);
    for (const point& p : more) {
        CHECK(index.insert(p) == where.size());
        where.push_back(p);
        live.push_back(true);
    }
    rng r(83);
    for (std::size_t i = 0; i < 1000; ++i) {
        const std::size_t id = r.below(where.size());
        if (!live[id]) continue;
        if (i % 3 == 0) {
            index.erase(static_cast<std::uint32_t>(id));
            live[id] = false;
        } else {
            where[id] = more[r.below(more.size())];  // to another scale
            for (std::size_t a = 0; a < D; ++a) where[id][a] = static_cast<T>(where[id][a] * T(0.75));
            index.move(static_cast<std::uint32_t>(id), where[id]);
        }
    }
    // By the predicate's unbounded squared distance (float squares of 1e-20 underflow), as
    // brute_nearest measures it, reported rounded to T.
    const auto brute_nearest_live = [&](const point& q, std::size_t k) {
        std::vector<point> pts;
        std::vector<std::uint32_t> ids;
        for (std::size_t i = 0; i < where.size(); ++i)
            if (live[i]) pts.push_back(where[i]), ids.push_back(static_cast<std::uint32_t>(i));
        std::vector<std::pair<T, std::uint32_t>> all;
        for (const auto& n : brute_nearest(pts, q, k)) all.emplace_back(n.distance_sq, ids[n.id]);
        return all;
    };
    std::vector<quoct::neighbor<T, std::uint32_t>> got;
    bool nearest_ok = true, balls_ok = true;
    for (std::size_t q = 0; q < 200; ++q) {
        std::size_t id = r.below(where.size());
        while (!live[id]) id = r.below(where.size());
        const point c = q % 4 == 3 ? splat<T, D>(0) : where[id];
        const std::size_t k = q % 2 == 0 ? 2 : 10;
        index.nearest(c, k, got);
        const auto want = brute_nearest_live(c, k);
        bool same = got.size() == want.size();
        for (std::size_t i = 0; same && i < got.size(); ++i)
            same = got[i].id == want[i].second && got[i].distance_sq == want[i].first;
        nearest_ok = nearest_ok && same;
        const quoct::ball<T, D> s{c, static_cast<T>(0.3 * norm(c))};
        std::vector<std::uint32_t> in_ball;
        for (std::size_t i = 0; i < where.size(); ++i)
            if (live[i] && quoct::contains(s, where[i])) in_ball.push_back(static_cast<std::uint32_t>(i));
        balls_ok = balls_ok && id_diff(index.query(s), in_ball) == "" && index.count(s) == in_ball.size();
    }
    CHECK(nearest_ok);
    CHECK(balls_ok);
}

}  // namespace test_scales
