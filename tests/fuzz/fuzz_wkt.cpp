// Fuzz target: the WKT reader, read_wkt_area (<quoct/io/wkt.hpp>). Only
// quoct::io::parse_error may escape, and a polygon it returns is what it promises: not
// empty, valid by Boost.Geometry, every ring closed and with finite coordinates.
#include <cstdint>
#include <string>

#include <boost/geometry/algorithms/equals.hpp>
#include <boost/geometry/algorithms/is_valid.hpp>

#include <quoct/io/wkt.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace io = quoct::io;
    namespace bg = boost::geometry;
    const std::string text(reinterpret_cast<const char*>(data), size);
    io::wkt_multi_polygon area;
    try {
        area = io::read_wkt_area(text, "fuzz");
    } catch (const io::parse_error&) {
        return 0;
    }
    QUOCT_FUZZ_CHECK(!area.empty(), "read_wkt_area returned an empty area");
    QUOCT_FUZZ_CHECK(bg::is_valid(area), "read_wkt_area returned an invalid area");
    const auto closed_finite = [](const io::wkt_polygon::ring_type& r) {
        if (r.empty() || !bg::equals(r.front(), r.back())) return false;
        for (const auto& p : r)
            if (!std::isfinite(p.x()) || !std::isfinite(p.y())) return false;
        return true;
    };
    for (const auto& poly : area) {
        QUOCT_FUZZ_CHECK(closed_finite(poly.outer()), "an outer ring is open or not finite");
        for (const auto& hole : poly.inners()) QUOCT_FUZZ_CHECK(closed_finite(hole), "a hole is open or not finite");
    }
    return 0;
}
