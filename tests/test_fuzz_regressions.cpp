// Findings of the fuzz targets in tests/fuzz/, each as a plain test that runs in the normal
// suite. Each input is the fuzzer's reproducer, cut down by hand.
#include <catch2/catch.hpp>

#include <string>

#include <quoct/io/wkt.hpp>

namespace io = quoct::io;

// fuzz_wkt: Boost.Geometry's validity check rescales the polygon to 64-bit integers and threw
// boost::numeric::positive_overflow, which escaped read_wkt_area (documented to throw only
// parse_error) and ended the `quoct polygon` command with std::terminate.
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
