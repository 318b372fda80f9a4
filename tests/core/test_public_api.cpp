// Every documented member of every public class compiles. Explicit instantiation compiles
// each non-template member of a class template (a member that cannot compile for those
// arguments is an error here, as periodic_orthtree::point was); the test case below calls
// the member templates, which explicit instantiation does not reach, once each.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <vector>

#include <quoct/dynamic.hpp>
#include <quoct/geo/index.hpp>
#include <quoct/objects.hpp>
#include <quoct/orthtree.hpp>
#include <quoct/packed_objects.hpp>
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
