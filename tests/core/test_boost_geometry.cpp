// Tests of quoct/interop/boost_geometry.hpp: conversions of registered Boost.Geometry points and
// boxes (bg::model::point, bg::model::d2::point_xy, user structs registered with the
// BOOST_GEOMETRY_REGISTER_POINT_* macros) and trees built and queried through the adapter,
// checked against brute force with Boost.Geometry's own covered_by and comparable_distance.
#include "test_support.hpp"

#include <quoct/interop/boost_geometry.hpp>

#include <catch2/catch.hpp>

#include <boost/geometry/geometries/point_xy.hpp>
#include <boost/geometry/geometries/register/point.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <list>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace bg = boost::geometry;

namespace adapter_test {
struct user_point {  // a user's own 2D type
    double x, y;
};
struct user_vec3 {  // and a 3D one in float
    float x, y, z;
};
}  // namespace adapter_test

BOOST_GEOMETRY_REGISTER_POINT_2D(adapter_test::user_point, double, bg::cs::cartesian, x, y)
BOOST_GEOMETRY_REGISTER_POINT_3D(adapter_test::user_vec3, float, bg::cs::cartesian, x, y, z)

namespace test_boost_geometry {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

using namespace quoct_test;
using model3d = bg::model::point<double, 3, bg::cs::cartesian>;
using xy_float = bg::model::d2::point_xy<float>;
using adapter_test::user_point;
using adapter_test::user_vec3;

// A point type P made from the coordinates of a quoct point (P's dimension D).
template <class P, class T, std::size_t D>
P make(const quoct::point<T, D>& q) {
    P p{};
    if constexpr (D >= 1) bg::set<0>(p, q[0]);
    if constexpr (D >= 2) bg::set<1>(p, q[1]);
    if constexpr (D >= 3) bg::set<2>(p, q[2]);
    return p;
}

template <class P>
using scalar_of = typename bg::coordinate_type<P>::type;
template <class P>
constexpr std::size_t dim_of = bg::dimension<P>::value;

// Per point type: its data set (points as P, and the same points as quoct points).
template <class P>
struct sample {
    using T = scalar_of<P>;
    static constexpr std::size_t D = dim_of<P>;
    points<T, D> q;
    std::vector<P> p;
    explicit sample(std::size_t n) {
        // clustered data snapped to k/64 in part, so box faces and radii meet points exactly
        q = make_points<T, D>(kind::clustered, n, 301);
        const auto grid = dyadic_points<T, D>(n / 4, 302);
        q.insert(q.end(), grid.begin(), grid.end());
        for (const auto& x : q) p.push_back(make<P>(x));
    }
};

}  // namespace

TEMPLATE_TEST_CASE("boost_geometry: from_boost and to_boost convert points exactly", "[boost_geometry]", model3d, xy_float,
                   user_point, user_vec3) {
    using P = TestType;
    using T = scalar_of<P>;
    constexpr std::size_t D = dim_of<P>;
    static_assert(std::is_same<decltype(quoct::from_boost(std::declval<const P&>())), quoct::point<T, D>>::value,
                  "from_boost(point) gives quoct::point<coordinate_type, dimension>");
    const auto q = make_point<T, D>({1.5, -2.25, 1e-7});
    const P p = make<P>(q);
    CHECK(quoct::from_boost(p) == q);
    const P back = quoct::to_boost<P>(q);
    CHECK(bg::get<0>(back) == q[0]);
    CHECK(bg::get<1>(back) == q[1]);
    if constexpr (D == 3) CHECK(bg::get<2>(back) == q[2]);
    CHECK(quoct::from_boost(quoct::to_boost<P>(q)) == q);
    // extreme values survive the round trip
    const auto e = make_point<T, D>({std::numeric_limits<T>::max(), -std::numeric_limits<T>::denorm_min(), -0.0});
    CHECK(quoct::from_boost(make<P>(e)) == e);
}

TEMPLATE_TEST_CASE("boost_geometry: from_boost and to_boost convert boxes exactly", "[boost_geometry]", model3d, xy_float,
                   user_point, user_vec3) {
    using P = TestType;
    using B = bg::model::box<P>;
    using T = scalar_of<P>;
    constexpr std::size_t D = dim_of<P>;
    static_assert(std::is_same<decltype(quoct::from_boost(std::declval<const B&>())), quoct::box<T, D>>::value,
                  "from_boost(box) gives quoct::box<coordinate_type, dimension>");
    const auto lo = make_point<T, D>({-1, 0.5, 2}), hi = make_point<T, D>({3, 0.75, 2});
    const B b(make<P>(lo), make<P>(hi));
    const auto qb = quoct::from_boost(b);
    CHECK(qb.lo == lo);
    CHECK(qb.hi == hi);
    const B back = quoct::to_boost<B>(qb);
    CHECK(quoct::from_boost(back.min_corner()) == lo);
    CHECK(quoct::from_boost(back.max_corner()) == hi);
    CHECK(bg::get<bg::min_corner, 0>(back) == T(-1));
    CHECK(bg::get<bg::max_corner, 1>(back) == T(0.75));
}

TEMPLATE_TEST_CASE("boost_geometry: make_orthtree builds from any range of registered points", "[boost_geometry]", model3d,
                   xy_float, user_point, user_vec3) {
    using P = TestType;
    using T = scalar_of<P>;
    constexpr std::size_t D = dim_of<P>;
    const sample<P> s(3000);
    const auto tree = quoct::make_orthtree(s.p);
    static_assert(std::is_same<std::decay_t<decltype(tree)>, quoct::orthtree<T, D, std::uint32_t>>::value,
                  "make_orthtree deduces scalar and dimension from the point type");
    CHECK(tree.size() == s.q.size());
    CHECK(tree.bounds().lo == brute_bounds(s.q).lo);
    CHECK(tree.bounds().hi == brute_bounds(s.q).hi);
    // non-contiguous ranges, another Id type, options passed through
    const std::list<P> as_list(s.p.begin(), s.p.end());
    const auto from_list = quoct::make_orthtree<std::uint64_t>(as_list, {4, 0});
    static_assert(std::is_same<std::decay_t<decltype(from_list)>, quoct::orthtree<T, D, std::uint64_t>>::value, "Id");
    CHECK(from_list.size() == s.q.size());
    CHECK(from_list.depth() == 0);
    const std::deque<P> as_deque(s.p.begin(), s.p.end());
    const auto from_deque = quoct::make_orthtree(as_deque);
    // same ids: point i of the range is id i
    const quoct::ball<T, D> probe{s.q[17], T(0)};
    CHECK(id_diff(from_deque.query(probe), brute_ball(s.q, probe)) == "");
    CHECK(id_diff(from_list.query(probe), brute_ball<std::uint64_t>(s.q, probe)) == "");
    CHECK(quoct::make_orthtree(std::vector<P>{}).empty());
    // a NaN coordinate throws as the tree would, naming the point
    std::vector<P> bad = s.p;
    bg::set<1>(bad[5], std::numeric_limits<T>::quiet_NaN());
    CHECK_THROWS_AS(quoct::make_orthtree(bad), std::invalid_argument);
}

TEMPLATE_TEST_CASE("boost_geometry: box and ball queries match brute force with Boost.Geometry predicates", "[boost_geometry]",
                   model3d, xy_float, user_point, user_vec3) {
    using P = TestType;
    using B = bg::model::box<P>;
    using T = scalar_of<P>;
    constexpr std::size_t D = dim_of<P>;
    const sample<P> s(20000);
    const auto tree = quoct::make_orthtree(s.p);
    std::size_t nonempty = 0;
    for (const auto& qb : make_boxes(s.q, 60, 304)) {
        const B b(make<P>(qb.lo), make<P>(qb.hi));
        INFO(str(qb));
        std::vector<std::uint32_t> want;
        for (std::size_t i = 0; i < s.p.size(); ++i)
            if (bg::covered_by(s.p[i], b)) want.push_back(static_cast<std::uint32_t>(i));
        std::vector<std::uint32_t> out{7, 7};
        quoct::query(tree, b, out);
        CHECK(id_diff(out, want) == "");
        CHECK(id_diff(quoct::query(tree, b), want) == "");
        CHECK(quoct::count(tree, b) == want.size());
        std::vector<std::uint32_t> seen;
        CHECK(quoct::visit(tree, b, [&](std::uint32_t id, const quoct::point<T, D>&) { seen.push_back(id); }));
        CHECK(id_diff(seen, want) == "");
        nonempty += want.empty() ? 0 : 1;
    }
    for (const auto& qs : make_balls(s.q, 100, 305)) {
        const P c = make<P>(qs.center);
        const T r2 = qs.radius * qs.radius;
        INFO(str(qs));
        std::vector<std::uint32_t> want;
        for (std::size_t i = 0; i < s.p.size(); ++i)
            if (bg::comparable_distance(s.p[i], c, bg::strategy::distance::comparable::pythagoras<T>()) <= r2)
                want.push_back(static_cast<std::uint32_t>(i));
        std::vector<std::uint32_t> out{7, 7};
        quoct::query(tree, c, qs.radius, out);
        CHECK(id_diff(out, want) == "");
        CHECK(id_diff(quoct::query(tree, c, qs.radius), want) == "");
        CHECK(quoct::count(tree, c, qs.radius) == want.size());
        std::size_t calls = 0;
        const bool finished = quoct::visit(tree, c, qs.radius, [&](std::uint32_t, const quoct::point<T, D>&) { return ++calls < 5; });
        CHECK(calls == std::min<std::size_t>(want.size(), 5));
        CHECK(finished == (want.size() < 5));
        nonempty += want.empty() ? 0 : 1;
    }
    CHECK(nonempty > 100);
}

TEST_CASE("boost_geometry: queries convert to the tree's scalar type and validate", "[boost_geometry]") {
    // a float tree queried with double Boost.Geometry shapes: coordinates are converted
    const auto pts = dyadic_points<float, 2>(5000, 306);
    const quoct::orthtree<float, 2> tree(pts);
    using dpt = bg::model::d2::point_xy<double>;
    const bg::model::box<dpt> b(dpt(-1, -1), dpt(1.5, 2));
    const quoct::box<float, 2> qb{{{-1, -1}}, {{1.5f, 2}}};
    CHECK(id_diff(quoct::query(tree, b), brute_box(pts, qb)) == "");
    CHECK(quoct::count(tree, dpt(0.5, 0.25), 1.5f) == brute_ball(pts, quoct::ball<float, 2>{{{0.5f, 0.25f}}, 1.5f}).size());
    // invalid shapes throw like the tree's own queries
    const bg::model::box<dpt> inverted(dpt(2, 0), dpt(1, 1));
    CHECK_THROWS_AS(quoct::query(tree, inverted), std::invalid_argument);
    CHECK_THROWS_AS(quoct::count(tree, dpt(0, 0), -1.0f), std::invalid_argument);
    CHECK_THROWS_AS(quoct::count(tree, dpt(std::numeric_limits<double>::quiet_NaN(), 0), 1.0f), std::invalid_argument);
}

}  // namespace test_boost_geometry
