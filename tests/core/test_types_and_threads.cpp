// Every index over the less travelled instantiations, against brute force: long double,
// D = 4 and 5, Id types other than uint32 (uint16 up to its length_error limit, uint64),
// and the threaded functions at thread counts above 2 (3 to 7, more threads than cores),
// whose results must not depend on the count.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include <quoct/dynamic.hpp>
#include <quoct/objects.hpp>
#include <quoct/orthtree.hpp>
#include <quoct/pairs.hpp>
#include <quoct/parallel.hpp>
#include <quoct/periodic.hpp>

#include "test_support.hpp"

namespace test_types_and_threads {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

template <class T, std::size_t D, class Id>
struct config {
    using scalar = T;
    static constexpr std::size_t dim = D;
    using id = Id;
};
#define WIDE_CONFIGS (config<long double, 2, std::uint32_t>), (config<long double, 3, std::uint64_t>), \
                     (config<double, 4, std::uint16_t>), (config<float, 4, std::uint64_t>),           \
                     (config<double, 5, std::uint32_t>), (config<float, 5, std::uint16_t>)

// Points in [0, 8)^D: half on the integer lattice (exact distances, duplicates, ties on
// query boundaries), half uniform.
template <class T, std::size_t D>
std::vector<quoct::point<T, D>> test_points(std::size_t n, unsigned seed) {
    quoct_test::rng rng(seed);
    std::vector<quoct::point<T, D>> pts(n);
    for (std::size_t i = 0; i < n; ++i)
        pts[i] = i % 2 ? quoct_test::lattice_point<T, D>(rng, 8) : quoct_test::random_point<T, D>(rng, T(0), T(7.99));
    return pts;
}

template <class Id, class T, std::size_t D, class In>
std::vector<Id> brute_ids(const std::vector<quoct::point<T, D>>& pts, In&& in) {
    std::vector<Id> out;
    for (std::size_t i = 0; i < pts.size(); ++i)
        if (in(pts[i])) out.push_back(static_cast<Id>(i));
    return out;
}

template <class Id, class T, std::size_t D>
std::vector<quoct::neighbor<T, Id>> brute_nearest(const std::vector<quoct::point<T, D>>& pts,
                                                  const quoct::point<T, D>& c, std::size_t k) {
    std::vector<quoct::neighbor<T, Id>> all;
    for (std::size_t i = 0; i < pts.size(); ++i) all.push_back({static_cast<Id>(i), quoct::distance_sq(pts[i], c)});
    std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) {
        return x.distance_sq < y.distance_sq || (x.distance_sq == y.distance_sq && x.id < y.id);
    });
    all.resize(std::min(k, all.size()));
    return all;
}

template <class Id, class T>
bool same_neighbors(const std::vector<quoct::neighbor<T, Id>>& a, const std::vector<quoct::neighbor<T, Id>>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].id != b[i].id || a[i].distance_sq != b[i].distance_sq) return false;
    return true;
}

// Ball, box and nearest queries of `index` (ids = positions in pts) against brute force.
template <class Index, class T, std::size_t D>
void check_point_index(const Index& index, const std::vector<quoct::point<T, D>>& pts, quoct_test::rng& rng) {
    using Id = typename Index::id_type;
    for (int q = 0; q < 12; ++q) {
        const auto c = q % 2 ? quoct_test::lattice_point<T, D>(rng, 8) : quoct_test::random_point<T, D>(rng, T(0), T(8));
        const T r = static_cast<T>(q % 4) + (q % 3 == 0 ? T(0.5) : T(0));
        const quoct::ball<T, D> s{c, r};
        const auto expect = brute_ids<Id>(pts, [&](const quoct::point<T, D>& p) { return quoct::contains(s, p); });
        CHECK(quoct_test::sorted(index.query(s)) == expect);
        CHECK(index.count(s) == expect.size());
        quoct::box<T, D> b{c, c};
        for (std::size_t a = 0; a < D; ++a) b.hi[a] += r;
        const auto in_box = brute_ids<Id>(pts, [&](const quoct::point<T, D>& p) { return quoct::contains(b, p); });
        CHECK(quoct_test::sorted(index.query(b)) == in_box);
        for (std::size_t k : {std::size_t{1}, std::size_t{7}, std::size_t{40}}) {
            std::vector<quoct::neighbor<T, Id>> got;
            index.nearest(c, k, got);
            CHECK(same_neighbors(got, brute_nearest<Id>(pts, c, k)));
        }
    }
}

template <class Id>
using pair_vector = std::vector<std::pair<Id, Id>>;

template <class Id, class T, std::size_t D, class Dist>
pair_vector<Id> brute_pairs(const std::vector<quoct::point<T, D>>& pts, T r, Dist&& dist) {
    pair_vector<Id> out;
    for (std::size_t i = 0; i < pts.size(); ++i)
        for (std::size_t j = i + 1; j < pts.size(); ++j)
            if (dist(pts[i], pts[j]) <= r * r) out.emplace_back(static_cast<Id>(i), static_cast<Id>(j));
    return out;
}

template <class V>
bool same_table(const quoct::csr<V>& a, const quoct::csr<V>& b) {
    return a.offsets == b.offsets && a.values == b.values;
}

}  // namespace

TEMPLATE_TEST_CASE("orthtree and dynamic index: wide types, D > 3, other Id types", "[types]", WIDE_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    using Id = typename TestType::id;
    quoct_test::rng rng(41);
    auto pts = test_points<T, D>(700, 42);
    const quoct::orthtree<T, D, Id> tree(pts, quoct::build_options{8, quoct::max_depth_limit});
    check_point_index(tree, pts, rng);

    quoct::dynamic_options options;
    options.tail_limit = 16;
    quoct::dynamic_orthtree<T, D, Id> dyn(pts, options);
    // Move every third point and erase none, so ids stay positions in pts.
    for (std::size_t i = 0; i < pts.size(); i += 3) {
        pts[i] = quoct_test::lattice_point<T, D>(rng, 8);
        dyn.move(static_cast<Id>(i), pts[i]);
    }
    check_point_index(dyn, pts, rng);
    const Id added = dyn.insert(pts[1]);
    CHECK(added == static_cast<Id>(pts.size()));
    CHECK(dyn.erase(added));
    check_point_index(dyn, pts, rng);
}

TEMPLATE_TEST_CASE("pairs, periodic, objects and batches: wide types, D > 3, other Id types, 3 to 7 threads",
                   "[types][threads]", WIDE_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    using Id = typename TestType::id;
    quoct_test::rng rng(43);
    const auto pts = test_points<T, D>(600, 44);
    const quoct::orthtree<T, D, Id> tree(pts);
    const auto euclid = [](const quoct::point<T, D>& a, const quoct::point<T, D>& b) { return quoct::distance_sq(a, b); };

    for (T r : {T(0), T(1), T(1.5)}) {
        const auto expect = brute_pairs<Id>(pts, r, euclid);
        const auto lists = quoct::neighbor_lists(tree, r, 1);
        std::size_t listed = 0;
        for (std::size_t i = 0; i < lists.rows(); ++i) listed += lists.row(i).size();
        CHECK(listed == 2 * expect.size());
        for (unsigned threads : {1u, 3u, 7u}) {
            CHECK(quoct::pairs_within(tree, r, threads) == expect);
            CHECK(same_table(quoct::neighbor_lists(tree, r, threads), lists));
        }
        pair_vector<Id> seen;
        quoct::for_each_pair_within(tree, r, [&](Id i, Id j) { seen.emplace_back(i, j); });
        CHECK(quoct_test::sorted(seen) == expect);
        // Across two indexes: the even points against the odd ones.
        std::vector<quoct::point<T, D>> even, odd;
        for (std::size_t i = 0; i < pts.size(); ++i) (i % 2 ? odd : even).push_back(pts[i]);
        const quoct::orthtree<T, D, Id> a(even), b(odd);
        pair_vector<Id> cross, cross_expect;
        for (std::size_t i = 0; i < even.size(); ++i)
            for (std::size_t j = 0; j < odd.size(); ++j)
                if (quoct::distance_sq(even[i], odd[j]) <= r * r) cross_expect.emplace_back(Id(i), Id(j));
        quoct::for_each_pair_within(a, b, r, [&](Id i, Id j) { cross.emplace_back(i, j); });
        CHECK(quoct_test::sorted(cross) == cross_expect);
        const auto rows = quoct::neighbor_lists(a, b, r, 5);
        pair_vector<Id> from_rows;
        for (std::size_t i = 0; i < rows.rows(); ++i)
            for (Id j : rows.row(i)) from_rows.emplace_back(static_cast<Id>(i), j);
        CHECK(from_rows == cross_expect);
    }

    // Periodic: the same points on the torus [0, 8)^D, whose last axis does not wrap.
    quoct::periodic_domain<T, D> dom;
    dom.length.fill(T(8));
    dom.length[D - 1] = 0;
    const quoct::periodic_index<quoct::orthtree<T, D, Id>> torus(dom, pts);
    for (T r : {T(0), T(1), T(2.5)}) {
        for (int q = 0; q < 6; ++q) {
            const auto c = quoct_test::lattice_point<T, D>(rng, 8);
            const auto expect = brute_ids<Id>(pts, [&](const quoct::point<T, D>& p) { return dom.distance_sq(p, c) <= r * r; });
            CHECK(quoct_test::sorted(torus.query({c, r})) == expect);
            CHECK(torus.count({c, r}) == expect.size());
        }
        const auto expect = brute_pairs<Id>(pts, r, [&](const auto& x, const auto& y) { return dom.distance_sq(x, y); });
        CHECK(quoct::pairs_within(torus, r, 1) == expect);
        CHECK(quoct::pairs_within(torus, r, 4) == expect);
        CHECK(same_table(quoct::neighbor_lists(torus, r, 6), quoct::neighbor_lists(torus, r, 1)));
    }

    // Objects: balls and boxes around the points, sizes over three classes.
    std::vector<quoct::ball<T, D>> balls;
    std::vector<quoct::box<T, D>> boxes;
    for (std::size_t i = 0; i < 300; ++i) {
        const T size = T(0.25) * static_cast<T>(i % 3);
        balls.push_back({pts[i], size});
        quoct::box<T, D> bx{pts[i], pts[i]};
        for (std::size_t a = 0; a < D; ++a) bx.hi[a] += size * static_cast<T>(1 + a % 2);
        boxes.push_back(bx);
    }
    const quoct::object_index<quoct::ball<T, D>, Id> ball_idx(balls);
    const quoct::object_index<quoct::box<T, D>, Id> box_idx(boxes);
    const auto object_pairs = [](const auto& shapes) {
        pair_vector<Id> out;
        for (std::size_t i = 0; i < shapes.size(); ++i)
            for (std::size_t j = i + 1; j < shapes.size(); ++j)
                if (quoct::intersects(shapes[i], shapes[j])) out.emplace_back(Id(i), Id(j));
        return out;
    };
    const auto ball_pairs = object_pairs(balls), box_pairs = object_pairs(boxes);
    for (unsigned threads : {1u, 3u, 6u}) {
        CHECK(ball_idx.colliding_pairs(threads) == ball_pairs);
        CHECK(box_idx.colliding_pairs(threads) == box_pairs);
    }
    pair_vector<Id> seen;
    box_idx.for_each_colliding_pair([&](Id i, Id j) { seen.emplace_back(i, j); });
    CHECK(quoct_test::sorted(seen) == box_pairs);
    for (int q = 0; q < 8; ++q) {
        const quoct::ball<T, D> s{quoct_test::random_point<T, D>(rng, T(0), T(8)), T(q % 3)};
        std::vector<Id> expect;
        for (std::size_t i = 0; i < boxes.size(); ++i)
            if (quoct::intersects(boxes[i], s)) expect.push_back(static_cast<Id>(i));
        CHECK(quoct_test::sorted(box_idx.query(s)) == expect);
        expect.clear();
        for (std::size_t i = 0; i < balls.size(); ++i)
            if (quoct::intersects(balls[i], s)) expect.push_back(static_cast<Id>(i));
        CHECK(quoct_test::sorted(ball_idx.query(s)) == expect);
    }

    // Batches: more queries than two chunks, so they are reordered and shared out.
    std::vector<quoct::ball<T, D>> queries(700);
    std::vector<quoct::point<T, D>> centres(700);
    for (std::size_t i = 0; i < queries.size(); ++i) {
        centres[i] = quoct_test::random_point<T, D>(rng, T(0), T(8));
        queries[i] = {centres[i], T(1)};
    }
    const auto serial = quoct::batch_query(tree, queries, 1, false);
    for (std::size_t i = 0; i < queries.size(); ++i) {
        const auto row = serial.row(i);
        CHECK(std::vector<Id>(row.begin(), row.end()) == tree.query(queries[i]));
    }
    const auto nearest_serial = quoct::batch_nearest(tree, centres.data(), centres.size(), 5, 1, false);
    const auto counts_serial = quoct::batch_count(tree, queries.data(), queries.size(), 1, false);
    for (unsigned threads : {3u, 4u, 7u}) {
        CHECK(same_table(quoct::batch_query(tree, queries, threads), serial));
        CHECK(quoct::batch_count(tree, queries.data(), queries.size(), threads) == counts_serial);
        const auto near = quoct::batch_nearest(tree, centres.data(), centres.size(), 5, threads);
        CHECK(near.offsets == nearest_serial.offsets);
        bool same = near.values.size() == nearest_serial.values.size();
        for (std::size_t i = 0; same && i < near.values.size(); ++i)
            same = near.values[i].id == nearest_serial.values[i].id &&
                   near.values[i].distance_sq == nearest_serial.values[i].distance_sq;
        CHECK(same);
        std::vector<std::size_t> hits(pts.size(), 0);
        quoct::parallel_for(pts.size(), threads, [&](std::size_t i) { hits[i] += 1; }, 7);
        CHECK(std::count(hits.begin(), hits.end(), std::size_t{1}) == static_cast<std::ptrdiff_t>(pts.size()));
    }
}

TEST_CASE("uint16 ids: the length_error limit of every index", "[types]") {
    using Id = std::uint16_t;
    using P = quoct::point<float, 2>;
    const std::size_t most = std::numeric_limits<Id>::max() / 2;  // 32767
    quoct_test::rng rng(45);
    std::vector<P> pts(most);
    for (auto& p : pts) p = quoct_test::random_point<float, 2>(rng, 0, 1);
    std::vector<P> one_more(pts);
    one_more.push_back(pts[0]);
    CHECK(quoct::orthtree<float, 2, Id>(pts).size() == most);
    CHECK_THROWS_AS((quoct::orthtree<float, 2, Id>(one_more)), std::length_error);
    CHECK_THROWS_AS((quoct::dynamic_orthtree<float, 2, Id>(one_more)), std::length_error);

    quoct::dynamic_orthtree<float, 2, Id> dyn(pts);
    const quoct::ball<float, 2> s{{{0.5f, 0.5f}}, 0.1f};
    const auto before = quoct_test::sorted(dyn.query(s));
    CHECK_THROWS_AS(dyn.insert(pts[1]), std::length_error);
    CHECK(dyn.size() == most);
    CHECK(dyn.id_bound() == most);
    CHECK(quoct_test::sorted(dyn.query(s)) == before);
    CHECK(dyn.erase(Id(3)));
    CHECK_THROWS_AS(dyn.insert(pts[1]), std::length_error);  // erased ids are not reused

    std::vector<quoct::ball<float, 2>> balls(most);
    for (std::size_t i = 0; i < most; ++i) balls[i] = {pts[i], 0.001f};
    quoct::object_index<quoct::ball<float, 2>, Id> objects(balls);
    CHECK(objects.size() == most);
    CHECK_THROWS_AS(objects.insert({pts[0], 0.001f}), std::length_error);
    CHECK(objects.size() == most);
    balls.push_back(balls[0]);
    CHECK_THROWS_AS((quoct::object_index<quoct::ball<float, 2>, Id>(balls)), std::length_error);
}

TEST_CASE("uint16 ids: objects moving between size classes never run out of ids", "[types][objects]") {
    // Most objects in one size class and one object going back and forth between it and
    // another: each arrival takes a fresh id in the class's tree, so the class must
    // renumber before those reach the Id limit, however many of its objects are live.
    using Id = std::uint16_t;
    using S = quoct::ball<float, 2>;
    quoct_test::rng rng(46);
    const std::size_t n = 20000;
    std::vector<S> balls(n);
    for (auto& b : balls) b = {quoct_test::random_point<float, 2>(rng, 0, 1), 0.001f};
    quoct::object_index<S, Id> objects(balls);
    const Id traveller = 0;
    for (int trip = 0; trip < 30000; ++trip) {
        balls[traveller].radius = trip % 2 ? 0.001f : 0.5f;
        objects.update(traveller, balls[traveller]);
    }
    const S q{{{0.5f, 0.5f}}, 0.01f};
    std::vector<Id> expect;
    for (std::size_t i = 0; i < n; ++i)
        if (quoct::intersects(balls[i], q)) expect.push_back(static_cast<Id>(i));
    CHECK(quoct_test::sorted(objects.query(q)) == expect);
}

}  // namespace test_types_and_threads
