// The old header names forward to the new ones for one release: code that includes them
// still compiles and gets the same declarations.
#include <catch2/catch.hpp>

#include <quoct/boost_geometry.hpp>
#include <quoct/geo.hpp>
#include <quoct/geo_boost.hpp>
#include <quoct/geometry.hpp>

#include <quoct/geo/index.hpp>
#include <quoct/geo/polygons.hpp>
#include <quoct/interop/boost_geometry.hpp>
#include <quoct/shapes.hpp>

#include <boost/geometry/geometries/point_xy.hpp>

#include <vector>

namespace test_forwarding_headers {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

TEST_CASE("forwarding headers: the old names declare what the new ones do", "[headers]") {
    const quoct::ball<double, 2> b{{0, 0}, 1};
    CHECK(quoct::contains(b, quoct::point<double, 2>{1, 0}));
    const double lon_lat[] = {2.35, 48.86, -0.13, 51.51};
    const quoct::geo::index<> cities(lon_lat, 2);
    CHECK(cities.size() == 2);
    const std::vector<boost::geometry::model::d2::point_xy<double>> pts{{1.0, 2.0}, {3.0, 4.0}};
    const auto tree = quoct::make_orthtree(pts);
    CHECK(tree.size() == 2);
}

}  // namespace test_forwarding_headers
