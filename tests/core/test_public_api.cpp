// Every documented member of every public class compiles. Explicit instantiation compiles
// each non-template member of a class template (a member that cannot compile for those
// arguments is an error here, as periodic_orthtree::point was); the first test case below
// calls the member templates, which explicit instantiation does not reach, once each, and
// the second the function templates of pairs.hpp and file.hpp. (The distributed index's:
// tests/mpi/test_mpi_index.cpp.)
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <quoct/dynamic.hpp>
#include <quoct/file.hpp>
#include <quoct/geo/index.hpp>
#include <quoct/objects.hpp>
#include <quoct/orthtree.hpp>
#include <quoct/packed_objects.hpp>
#include <quoct/pairs.hpp>
#include <quoct/periodic.hpp>

template class quoct::orthtree<float, 2>;
template class quoct::orthtree<double, 3>;
template class quoct::orthtree<double, 4, std::uint64_t>;
template class quoct::packed_object_index<quoct::box<float, 2>>;
template class quoct::packed_object_index<quoct::box<double, 3>, std::uint64_t>;
template class quoct::packed_object_index<quoct::ball<float, 3>>;
template class quoct::packed_object_index<quoct::ball<double, 2>, std::uint16_t>;
template class quoct::moving_object_index<quoct::ball<double, 3>>;
template class quoct::moving_object_index<quoct::box<float, 2>, std::uint64_t>;
template class quoct::dynamic_orthtree<float, 2>;
template class quoct::dynamic_orthtree<double, 3, std::uint64_t>;
template class quoct::periodic_index<quoct::orthtree<float, 3>>;
template class quoct::periodic_index<quoct::orthtree<double, 2>>;
template class quoct::periodic_index<quoct::dynamic_orthtree<double, 3>>;
// The query surface the point indexes share (queries.hpp), for each of them.
template class quoct::point_queries<quoct::orthtree<double, 3>, double, 3, std::uint32_t>;
template class quoct::point_queries<quoct::dynamic_orthtree<float, 2>, float, 2, std::uint32_t>;
template class quoct::point_queries<quoct::periodic_index<quoct::orthtree<float, 3>>, float, 3, std::uint32_t>;
template class quoct::point_queries<quoct::periodic_index<quoct::dynamic_orthtree<double, 3>>, double, 3, std::uint32_t>;
template class quoct::geo::index<std::uint32_t>;
template class quoct::geo::index<std::uint64_t>;
template class quoct::object_index<quoct::ball<double, 2>>;
template class quoct::object_index<quoct::box<float, 3>>;

namespace {

// Calls each member template of a point index once on a tiny input: visit, count and query
// for a ball and a box, the shape forms, and the constructors from every input form.
template <class Index, class... Extra>
std::size_t exercise(const Index& index) {
    using T = typename Index::scalar_type;
    constexpr std::size_t D = Index::dimension;
    quoct::ball<T, D> s{};
    s.radius = 2;
    quoct::box<T, D> b{};
    for (std::size_t a = 0; a < D; ++a) b.hi[a] = 1;
    std::size_t n = 0;
    index.visit(s, [&](typename Index::id_type, const quoct::point<T, D>&) { ++n; });
    index.visit(b, [&](typename Index::id_type, const quoct::point<T, D>&) { return true; });
    const quoct::ball_query<T, D> shape(s);
    std::vector<typename Index::id_type> ids;
    index.query_shape(shape, ids);
    n += index.count_shape(shape);
    index.visit_shape(shape, [&](typename Index::id_type, const quoct::point<T, D>&) { return true; });
    return n + ids.size();
}

}  // namespace

TEST_CASE("every public class's member templates compile and run", "[api]") {
    const std::vector<quoct::point<double, 3>> pts{{{0, 0, 0}}, {{1, 1, 1}}, {{0.5, 0, 1}}};
    const std::vector<std::array<double, 3>> arrays{{{0, 0, 0}}, {{1, 1, 1}}, {{0.5, 0, 1}}};
    const std::vector<double> flat{0, 0, 0, 1, 1, 1, 0.5, 0, 1};

    const quoct::octree<double> tree(pts), t2(arrays), t3(flat.data(), 3), t4(arrays.data(), 3);
    CHECK(exercise(tree) == exercise(t2));
    CHECK(exercise(t3) == exercise(t4));

    quoct::dynamic_octree<double> dyn(flat.data(), 3), d2(arrays), d3(pts.data(), pts.size());
    CHECK(exercise(dyn) == exercise(d2));
    dyn.move_all(arrays);
    dyn.move_all(flat.data(), 3);
    dyn.move_all(pts.data(), pts.size());
    CHECK(dyn.point(1) == pts[1]);

    const quoct::periodic_domain<double, 3> domain{{2.0, 2.0, 2.0}};
    const quoct::periodic_orthtree<double, 3> torus(domain, arrays);
    quoct::periodic_index<quoct::dynamic_octree<double>> moving(domain, pts);
    CHECK(torus.count(quoct::ball<double, 3>{{{0, 0, 0}}, 0.5}) == 1);
    CHECK(torus.point(2) == pts[2]);
    const auto id = moving.insert({{1.5, 1.5, 1.5}});
    moving.move(id, {{0.5, 0.5, 0.5}});
    CHECK(moving.contains(id));
    CHECK(moving.erase(id));
    torus.visit_shape(quoct::ball_query<double, 3>(quoct::ball<double, 3>{{{0, 0, 0}}, 1}),
                      [](std::uint32_t, const quoct::point<double, 3>&) {});
    // Box queries under the period: [1.5, 2) and [0, 0.5] on axis 0 hold the point at 0.
    const quoct::box<double, 3> across{{{1.5, 0, 0}}, {{0.5, 2, 2}}};
    CHECK(torus.count(across) == moving.count(across));
    torus.visit(across, [](std::uint32_t, const quoct::point<double, 3>&) { return true; });
    moving.visit(across, [](std::uint32_t, const quoct::point<double, 3>&) {});
    std::vector<std::uint32_t> found;
    torus.query_shape(quoct::periodic_box_query<double, 3>{domain, across}, found);
    CHECK(found.size() == torus.count_shape(quoct::periodic_box_query<double, 3>{domain, across}));
    struct everything {  // a result set that takes every point (the protocol of search_nearest)
        double bound() const { return 1e300; }
        bool full() const { return false; }
    };
    std::size_t offered = 0;
    torus.search_nearest(quoct::euclidean_nearest_metric<double, 3>{{{0, 0, 0}}}, everything{},
                         [&](std::uint32_t, double) { ++offered; });
    CHECK(offered == torus.size());

    const std::vector<quoct::geo::lonlat> places{{2.35, 48.85}, {-0.13, 51.5}};
    const quoct::geo::index<> geo(places);
    CHECK(geo.point(1).lat == 51.5);
    geo.visit_within(2.35, 48.85, 1e6, [](std::uint32_t) {});
    geo.visit_in_box(-10, 40, 10, 60, [](std::uint32_t) { return true; });
    geo.visit_candidates(-10, 20, 40, 60, [](std::uint32_t) {});

    quoct::ball_index<double, 2> balls(std::vector<quoct::ball<double, 2>>{{{{0, 0}}, 1}, {{{3, 0}}, 1}});
    balls.resize(0, 2.0);
    CHECK(balls.count(quoct::ball<double, 2>{{{2, 0}}, 0}) == 2);  // touching both
    balls.for_each([](std::uint32_t, const quoct::ball<double, 2>&) {});
    balls.for_each_colliding_pair([](std::uint32_t, std::uint32_t) {});
    quoct::box_index<float, 3> boxes(std::vector<quoct::box<float, 3>>{{{{0, 0, 0}}, {{1, 1, 1}}}});
    boxes.resize(0, quoct::point<float, 3>{{2, 2, 2}});
    CHECK(boxes.query(quoct::box<float, 3>{{{2, 2, 2}}, {{3, 3, 3}}}).size() == 1);
}

namespace {

// Saves `index` and reads it back by each function template of file.hpp (load, open,
// from_bytes, view_bytes); every copy answers `count` as the saved index does.
template <class Index, class Count>
void round_trip(const Index& index, const std::string& path, Count count) {
    quoct::save(index, path);
    const std::vector<unsigned char> bytes = quoct::to_bytes(index);
    // view_bytes reads 8-byte aligned bytes, kept alive by its last argument.
    const auto aligned = std::make_shared<std::vector<std::uint64_t>>((bytes.size() + 7) / 8);
    std::memcpy(aligned->data(), bytes.data(), bytes.size());
    const auto want = count(index);
    CHECK(count(quoct::load<Index>(path)) == want);
    CHECK(count(quoct::open<Index>(path)) == want);
    CHECK(count(quoct::from_bytes<Index>(bytes.data(), bytes.size())) == want);
    CHECK(count(quoct::view_bytes<Index>(aligned->data(), bytes.size(), aligned)) == want);
}

}  // namespace

// The function templates of pairs.hpp and file.hpp, once each on three points.
TEST_CASE("the pair searches and the file functions compile and run for every index kind", "[api]") {
    const std::vector<quoct::point<double, 3>> pts{{{0, 0, 0}}, {{1, 1, 1}}, {{0.5, 0, 1}}};
    const double r = 1.2;  // (0, 2) and (1, 2) are 1.118 apart, (0, 1) 1.732
    std::vector<std::pair<std::uint32_t, std::uint32_t>> brute;
    for (std::uint32_t i = 0; i < pts.size(); ++i)
        for (std::uint32_t j = i + 1; j < pts.size(); ++j)
            if (quoct::distance_sq(pts[i], pts[j]) <= r * r) brute.emplace_back(i, j);
    REQUIRE(brute.size() == 2);
    const quoct::octree<double> tree(pts);
    const quoct::dynamic_octree<double> dyn(pts);
    const quoct::periodic_domain<double, 3> domain{{2.0, 2.0, 2.0}};  // every gap under half a period
    const quoct::periodic_orthtree<double, 3> torus(domain, pts);
    const auto same = [](const quoct::csr<std::uint32_t>& a, const quoct::csr<std::uint32_t>& b) {
        return a.offsets == b.offsets && a.values == b.values;
    };

    // pairs.hpp over indexes: one index, and two (where each point also meets its own copy).
    std::size_t seen = 0;
    quoct::for_each_pair_within(tree, r, [&](std::uint32_t, std::uint32_t) { ++seen; });
    CHECK(seen == brute.size());
    seen = 0;
    quoct::for_each_pair_within(tree, dyn, r, [&](std::uint32_t i, std::uint32_t j, double d2) {
        seen += d2 == quoct::distance_sq(pts[i], pts[j]) ? 1 : 0;
    });
    CHECK(seen == pts.size() + 2 * brute.size());
    CHECK(quoct::pairs_within(tree, r) == brute);
    CHECK(quoct::pairs_within(torus, r, 2) == brute);
    const quoct::csr<std::uint32_t> rows = quoct::neighbor_lists(tree, r);
    CHECK(rows.values.size() == 2 * brute.size());
    const quoct::csr<std::uint32_t> cross = quoct::neighbor_lists(tree, dyn, r);
    CHECK(cross.values.size() == pts.size() + 2 * brute.size());

    // pairs.hpp over arrays of points: the same tables, without an index.
    CHECK(same(quoct::neighbor_lists(pts, r), rows));
    quoct::csr<std::uint32_t> into;
    quoct::neighbor_lists(pts, r, into);
    CHECK(same(into, rows));
    CHECK(same(quoct::neighbor_lists(pts, pts, r), cross));
    quoct::neighbor_lists(pts, pts, r, into);
    CHECK(same(into, cross));
    CHECK(same(quoct::neighbor_lists(pts, std::vector<double>{r, r, 0.5}, quoct::radius_rule::larger), rows));
    const std::vector<std::size_t> order = quoct::neighbor_order(pts, r);
    const auto reordered = quoct::reorder(pts, order);
    REQUIRE(order.size() == pts.size());
    for (std::size_t k = 0; k < order.size(); ++k) CHECK(reordered[k] == pts[order[k]]);

    // file.hpp for each index kind with a saved form, in a scratch directory.
    struct scratch {  // removed with its files at the end, whatever happens
        std::filesystem::path path =
            std::filesystem::temp_directory_path() / ("quoct_test_public_api_" + std::to_string(std::random_device{}()));
        scratch() { std::filesystem::create_directories(path); }
        ~scratch() {
            std::error_code ec;
            std::filesystem::remove_all(path, ec);
        }
        std::string operator/(const std::string& name) const { return (path / name).string(); }
    } dir;
    const quoct::ball<double, 3> s{{{0.5, 0.5, 0.5}}, 0.8};  // holds the third point only
    const auto count = [&](const auto& index) { return index.count(s); };
    CHECK(count(tree) == 1);
    round_trip(tree, dir / "tree.quoct", count);
    round_trip(dyn, dir / "dynamic.quoct", count);
    round_trip(torus, dir / "torus.quoct", count);
    round_trip(quoct::periodic_index<quoct::dynamic_octree<double>>(domain, pts), dir / "moving.quoct", count);
    const quoct::geo::index<> geo(std::vector<quoct::geo::lonlat>{{2.35, 48.85}, {-0.13, 51.5}});
    const auto near_paris = [](const auto& index) { return index.count_within(2.35, 48.85, 1e6); };
    CHECK(near_paris(geo) == 2);
    round_trip(geo, dir / "geo.quoct", near_paris);
}
