// Users' own point types in (quoct::point_traits, std::array, T[D], a flat const T*), points
// back out (point(id)), and radius results with their distances, on orthtree and
// dynamic_orthtree, against brute force (the periodic index's: periodic/test_periodic.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include <quoct/interop/boost_geometry.hpp>
#include <quoct/dynamic.hpp>
#include <quoct/geo/index.hpp>
#include <quoct/point_traits.hpp>

#include "test_support.hpp"

using namespace quoct_test;

namespace {

// A PCL-like point: float coordinates among other fields.
struct xyz_point {
    float x, y, z;
    float intensity;
};
// A 2D struct with double coordinates.
struct xy_point {
    double x, y;
    int tag;
};

}  // namespace

template <>
struct quoct::point_traits<xyz_point> {
    static constexpr std::size_t dimension = 3;
    static float get(const xyz_point& p, std::size_t axis) { return axis == 0 ? p.x : axis == 1 ? p.y : p.z; }
};
template <>
struct quoct::point_traits<xy_point> {
    static constexpr std::size_t dimension = 2;
    static double get(const xy_point& p, std::size_t axis) { return axis == 0 ? p.x : p.y; }
};

namespace {

template <class T, std::size_t D>
T plain_distance(const quoct::point<T, D>& p, const quoct::point<T, D>& c) {
    return quoct::distance_sq(p, c);
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("orthtree builds alike from points, std::array, C arrays and a flat array", "[input]",
                        all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    using tree_t = typename TestType::tree;
    for (kind k : {kind::uniform, kind::dyadic, kind::duplicates, kind::clustered}) {
        INFO(name_of(k));
        const auto pts = make_points<T, D>(k, 3000, 31);
        const tree_t ref(pts);
        const auto arrays = as_arrays(pts);
        const auto flat = flatten(pts);
        std::vector<T> c_store(flat);  // reinterpreted as T[n][D] below
        const T(*c_rows)[D] = reinterpret_cast<const T(*)[D]>(c_store.data());
        const tree_t from_arrays(arrays), from_array_ptr(arrays.data(), arrays.size()), from_flat(flat.data(), pts.size()),
            from_c(c_rows, pts.size());
        for (const tree_t* t : {&from_arrays, &from_array_ptr, &from_flat, &from_c}) {
            REQUIRE(t->size() == pts.size());
            CHECK(t->memory_bytes() == ref.memory_bytes());
            for (const auto& s : make_balls(pts, 40, 7)) CHECK(id_diff(sorted(t->query(s)), brute_ball(pts, s)) == "");
            for (std::size_t i = 0; i < pts.size(); i += 97)
                CHECK(t->point(static_cast<std::uint32_t>(i)) == pts[i]);
        }
    }
}

TEST_CASE("orthtree builds from a C array of C arrays and from a std::array of points", "[input]") {
    const double grid[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    const quoct::quadtree<double> from_c(grid);
    CHECK(sorted(from_c.query(quoct::ball<double, 2>{{{0, 0}}, 1})) == std::vector<std::uint32_t>{0, 1, 2});
    const std::array<quoct::point<float, 2>, 3> fixed{{{{0, 0}}, {{2, 0}}, {{0, 3}}}};
    const quoct::quadtree<float> from_fixed(fixed);
    CHECK(from_fixed.point(2) == quoct::point<float, 2>{{0, 3}});
}

TEST_CASE("orthtree builds from users' structs through point_traits, converting the scalar", "[input]") {
    rng r(5);
    std::vector<xyz_point> cloud(2000);
    for (auto& p : cloud) p = {static_cast<float>(r.uniform(-1, 1)), static_cast<float>(r.uniform(-1, 1)),
                               static_cast<float>(r.uniform(-1, 1)), 0.5f};
    std::vector<quoct::point<double, 3>> widened;
    for (const auto& p : cloud) widened.push_back({{double(p.x), double(p.y), double(p.z)}});
    const quoct::octree<double> tree(cloud);       // float struct into a double tree: exact
    const quoct::octree<float> ftree(cloud.data(), cloud.size());
    for (const auto& s : make_balls(widened, 60, 3)) CHECK(id_diff(sorted(tree.query(s)), brute_ball(widened, s)) == "");
    for (std::size_t i = 0; i < cloud.size(); i += 13) {
        CHECK(tree.point(static_cast<std::uint32_t>(i)) == widened[i]);
        CHECK(ftree.point(static_cast<std::uint32_t>(i))[2] == cloud[i].z);
    }

    std::vector<xy_point> flat2(500);
    for (std::size_t i = 0; i < flat2.size(); ++i) flat2[i] = {r.uniform(0, 10), r.uniform(0, 10), int(i)};
    const quoct::quadtree<double> q(flat2);
    CHECK(q.point(7) == quoct::point<double, 2>{{flat2[7].x, flat2[7].y}});
}

TEST_CASE("a flat array with a bad coordinate is refused naming the point", "[input]") {
    std::vector<double> flat{0, 0, 0, 1, 1, 1, 2, std::numeric_limits<double>::quiet_NaN(), 2};
    CHECK_THROWS_WITH((quoct::octree<double>(flat.data(), 3)), Catch::Contains("point 2"));
    CHECK_THROWS_AS((quoct::dynamic_octree<double>(flat.data(), 3)), std::invalid_argument);
    const quoct::octree<double> empty(static_cast<const double*>(nullptr), 0);
    CHECK(empty.empty());
}

TEMPLATE_LIST_TEST_CASE("orthtree::point returns every point by id, and refuses other ids", "[input][point]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const auto pts = make_points<T, D>(kind::clustered, 5000, 11);
    const typename TestType::tree tree(pts);
    const std::size_t before = tree.memory_bytes();
    for (std::size_t i = 0; i < pts.size(); ++i) REQUIRE(tree.point(static_cast<std::uint32_t>(i)) == pts[i]);
    CHECK(tree.memory_bytes() == before + pts.size() * sizeof(std::uint32_t));  // the id map, once built
    CHECK_THROWS_AS(tree.point(static_cast<std::uint32_t>(pts.size())), std::out_of_range);
    const typename TestType::tree copy = tree;  // copies share the built map
    CHECK(copy.point(3) == pts[3]);
    CHECK_THROWS_AS(typename TestType::tree().point(0), std::out_of_range);
}

TEST_CASE("orthtree::point builds its map once when threads ask at once", "[input][point]") {
    const auto pts = make_points<double, 3>(kind::uniform, 20000, 4);
    const quoct::octree<double> tree(pts);
    // The map is made by the first point() call, kept, and counted by memory_bytes().
    const std::size_t before = tree.memory_bytes();
    std::vector<int> ok(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            bool all = true;
            for (std::size_t i = static_cast<std::size_t>(t); i < pts.size(); i += 4)
                all = all && tree.point(static_cast<std::uint32_t>(i)) == pts[i];
            ok[static_cast<std::size_t>(t)] = all ? 1 : 0;
        });
    for (auto& th : threads) th.join();
    CHECK(ok == std::vector<int>(4, 1));
    // One map of one entry per point, built once and kept: it is there after the threads,
    // and later calls add nothing.
    const std::size_t with_map = tree.memory_bytes();
    CHECK(with_map == before + pts.size() * sizeof(std::uint32_t));
    for (std::size_t i = 0; i < pts.size(); i += 97) CHECK(tree.point(static_cast<std::uint32_t>(i)) == pts[i]);
    CHECK(tree.memory_bytes() == with_map);
}

TEMPLATE_LIST_TEST_CASE("orthtree radius results with distances equal brute force, sorted or not", "[distances]",
                        all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    for (kind k : {kind::dyadic, kind::uniform, kind::duplicates, kind::lattice}) {
        INFO(name_of(k));
        const auto pts = make_points<T, D>(k, 4000, 21);
        const typename TestType::tree tree(pts);
        for (const auto& s : make_balls(pts, 60, 8)) check_within(tree, pts, s, plain_distance<T, D>);
    }
    const typename TestType::tree tree;
    CHECK(tree.query_with_distances(quoct::ball<T, D>{splat<T, D>(0), 1}).empty());
    CHECK_THROWS_AS(tree.query_with_distances(quoct::ball<T, D>{splat<T, D>(0), -1}), std::invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("dynamic_orthtree radius results with distances equal brute force over the live points",
                        "[distances][dynamic]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    auto pts = make_points<T, D>(kind::dyadic, 3000, 41);
    quoct::dynamic_orthtree<T, D> index(flatten(pts).data(), pts.size());
    std::vector<bool> live(pts.size(), true);
    rng r(9);
    for (std::size_t step = 0; step < 900; ++step) {
        const std::size_t id = r.below(pts.size());
        if (!live[id]) continue;
        if (step % 3 == 0) {
            index.erase(static_cast<std::uint32_t>(id));
            live[id] = false;
        } else {
            pts[id] = pts[r.below(pts.size())];
            index.move(static_cast<std::uint32_t>(id), pts[id]);
        }
    }
    for (const auto& s : make_balls(pts, 60, 2)) check_within(index, pts, s, plain_distance<T, D>, &live);
}

TEMPLATE_LIST_TEST_CASE("dynamic_orthtree::move_all answers as brute force over the moved points", "[dynamic][move_all]",
                        all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    auto pts = make_points<T, D>(kind::dyadic, 2500, 12);
    quoct::dynamic_orthtree<T, D> index(pts);
    std::vector<bool> live(pts.size(), true);
    rng r(77);
    // Changes of every kind first, so that the tail, levels and dead marks are all in use.
    for (std::size_t step = 0; step < 400; ++step) {
        const std::size_t id = r.below(pts.size());
        if (step % 4 == 0 && live[id]) {
            index.erase(static_cast<std::uint32_t>(id));
            live[id] = false;
        } else if (live[id]) {
            pts[id] = pts[r.below(pts.size())];
            index.move(static_cast<std::uint32_t>(id), pts[id]);
        }
    }
    for (std::size_t i = 0; i < 50; ++i) {
        pts.push_back(pts[r.below(pts.size())]);
        live.push_back(true);
        REQUIRE(index.insert(pts.back()) == pts.size() - 1);
    }
    const auto check_all = [&] {
        for (const auto& s : make_balls(pts, 40, 3)) {
            std::vector<std::uint32_t> want;
            for (std::uint32_t i = 0; i < pts.size(); ++i)
                if (live[i] && quoct::contains(s, pts[i])) want.push_back(i);
            CHECK(id_diff(sorted(index.query(s)), want) == "");
        }
        for (std::uint32_t i = 0; i < pts.size(); ++i)
            if (live[i]) REQUIRE(index.point(i) == pts[i]);
    };
    check_all();

    // Everything moves: a random shift of each live point (erased ids get NaN: never read).
    auto moved = pts;
    for (std::size_t i = 0; i < moved.size(); ++i)
        for (std::size_t a = 0; a < D; ++a)
            moved[i][a] = live[i] ? static_cast<T>(moved[i][a] + T(r.integer(-64, 64)) / T(256))
                                  : std::numeric_limits<T>::quiet_NaN();

    // Bad input changes nothing: a wrong count, a NaN at a live id.
    CHECK_THROWS_AS(index.move_all(moved.data(), moved.size() - 1), std::invalid_argument);
    auto poisoned = moved;
    std::size_t victim = 0;
    while (!live[victim]) ++victim;
    poisoned[victim][D - 1] = std::numeric_limits<T>::infinity();
    CHECK_THROWS_WITH(index.move_all(poisoned), Catch::Contains("id " + std::to_string(victim)));
    check_all();

    index.move_all(moved);
    pts = moved;
    CHECK(index.pending() == 0);
    CHECK(index.side_trees() == 0);
    check_all();
    // And the index goes on working after it.
    const auto id = index.insert(pts[victim]);
    pts.push_back(pts[victim]);
    live.push_back(true);
    CHECK(id == pts.size() - 1);
    check_all();
}

TEST_CASE("orthtree builds straight from a vector of Boost.Geometry points", "[input][boost_geometry]") {
    namespace bg = boost::geometry;
    using P = bg::model::point<double, 3, bg::cs::cartesian>;
    const auto pts = make_points<double, 3>(kind::uniform, 2000, 8);
    std::vector<P> bpts;
    for (const auto& p : pts) bpts.emplace_back(p[0], p[1], p[2]);
    const quoct::octree<double> tree(bpts);
    const auto made = quoct::make_orthtree(bpts);
    for (const auto& s : make_balls(pts, 40, 4)) {
        CHECK(id_diff(sorted(tree.query(s)), brute_ball(pts, s)) == "");
        CHECK(id_diff(sorted(made.query(s)), brute_ball(pts, s)) == "");
    }
    CHECK(tree.point(5) == pts[5]);
}

TEST_CASE("geo::index builds from std::array and flat lon/lat, and gives within's distances", "[input][distances][geo]") {
    const auto& cities = cities_lon_lat();  // std::array<double, 2>: lon, lat
    std::vector<double> flat;
    std::vector<quoct::geo::lonlat> places;
    for (const auto& c : cities) {
        flat.push_back(c[0]);
        flat.push_back(c[1]);
        places.push_back({c[0], c[1]});
    }
    const quoct::geo::index<> from_arrays(cities), from_flat(flat.data(), cities.size()), from_places(places);
    rng r(3);
    for (int q = 0; q < 30; ++q) {
        const auto& c = cities[r.below(cities.size())];
        const double metres = q % 5 == 0 ? 0.0 : std::pow(10.0, r.uniform(2, 6.5));
        std::vector<quoct::geo::neighbor<std::uint32_t>> want;
        for (std::uint32_t i = 0; i < places.size(); ++i) {
            const double d = quoct::geo::distance({c[0], c[1]}, places[i]);
            if (d <= metres) want.push_back({i, d});
        }
        std::sort(want.begin(), want.end(), [](const auto& a, const auto& b) {
            return a.distance < b.distance || (a.distance == b.distance && a.id < b.id);
        });
        for (const auto* ix : {&from_arrays, &from_flat, &from_places}) {
            std::vector<quoct::geo::neighbor<std::uint32_t>> got;
            ix->within(c[0], c[1], metres, got, quoct::result_order::nearest_first);
            REQUIRE(got.size() == want.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                CHECK(got[i].id == want[i].id);
                CHECK(got[i].distance == want[i].distance);
            }
        }
    }
    CHECK(from_flat.point(10).lon == cities[10][0]);
    CHECK_THROWS_AS(from_flat.point(static_cast<std::uint32_t>(cities.size())), std::out_of_range);
    std::vector<double> bad{0, 0, 200, 0};
    CHECK_THROWS_WITH((quoct::geo::index<>(bad.data(), 2)), Catch::Contains("point 1"));
}
