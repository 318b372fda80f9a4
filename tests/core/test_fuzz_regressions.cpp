// Findings of the fuzz targets in tests/fuzz/, each as a plain test that runs in the normal
// suite. Each input is the fuzzer's reproducer, cut down by hand.
#include <catch2/catch.hpp>

#include <string>
#include <type_traits>

#include <quoct/io/wkt.hpp>

namespace test_fuzz_regressions {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace io = quoct::io;

// fuzz_wkt: Boost.Geometry's validity check rescaled the polygon to 64-bit integers and threw
// boost::numeric::positive_overflow, which escaped read_wkt_area (documented to throw only
// parse_error) and ended the `quoct polygon` command with std::terminate. (Polygons are now
// checked in floating point, and these longitudes are refused before any check.)
TEST_CASE("fuzz regression: WKT with coordinates far apart is refused with parse_error", "[io][geo][fuzz]") {
    const std::string fuzzed = "MULTIPOLYGON(((-180 -90,.80 -90,040 90,-180 -90)),((0 0,1 1,1e80 -90,040 90,-180)))";
    const std::string small = "POLYGON((0 0, 1 1, 1e80 -90, 40 90, 0 0))";
    for (const std::string& wkt : {fuzzed, small}) {
        try {
            io::read_wkt_area(wkt, "--wkt");
            FAIL("no exception for " << wkt);
        } catch (const io::parse_error& e) {
            CHECK(std::string(e.what()).find("--wkt: invalid polygon: ") == 0);
        }
    }
}

// fuzz_wkt: Boost 1.74's bg::is_valid rescaled the polygon to 64-bit integers, and Cramer's
// rule overflowed them (signed overflow, undefined behaviour; UBSan stopped the fuzzer) for a
// hole reaching far outside its shell. wkt_point now makes Boost.Geometry compute in double.
TEST_CASE("fuzz regression: a hole far outside its shell is refused, checked in floating point", "[io][geo][fuzz]") {
    namespace bg = boost::geometry;
    STATIC_REQUIRE(std::is_same<bg::coordinate_type<io::wkt_point>::type, double>::value);
#if defined(BOOST_GEOMETRY_USE_RESCALING)
    STATIC_REQUIRE(std::is_same<bg::rescale_policy_type<io::wkt_point>::type, bg::detail::no_rescale_policy>::value);
#endif
    for (const std::string& wkt : {std::string("polygon((0 0,0 10,10 10,10 0),(2 2,4 8888888,4,2))"),
                                   std::string("POLYGON((0 0,0 10,10 10,10 0,0 0),(2 2,4 8888888,4 2,2 2))")}) {
        try {
            io::read_wkt_area(wkt, "--wkt");
            FAIL("no exception for " << wkt);
        } catch (const io::parse_error& e) {
            CHECK(std::string(e.what()).find("--wkt: invalid polygon: ") == 0);
        }
    }
    // read_wkt_area now refuses lat 8888888 by its range before bg::is_valid sees it, so the
    // polygon goes to bg::is_valid directly: judged in double, invalid, no overflow.
    io::wkt_polygon far;
    bg::read_wkt("POLYGON((0 0,0 10,10 10,10 0,0 0),(2 2,4 8888888,4 2,2 2))", far);
    bg::correct(far);
    CHECK(!bg::is_valid(far));
    // The same shell with a hole inside it is read, and covers what Boost.Geometry says it covers.
    const io::wkt_multi_polygon area = io::read_wkt_area("POLYGON((0 0,0 10,10 10,10 0,0 0),(2 2,4 8,4 2,2 2))", "--wkt");
    REQUIRE(area.size() == 1);
    CHECK(area[0].inners().size() == 1);
    CHECK(bg::covered_by(io::wkt_point(1, 1), area));
    CHECK(!bg::covered_by(io::wkt_point(3.5, 3), area));
}

}  // namespace test_fuzz_regressions
