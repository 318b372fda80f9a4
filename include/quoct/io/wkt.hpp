// quoct::io: WKT polygons for quoct::geo::covered_by (<quoct/geo_boost.hpp>). Header-only;
// needs Boost.Geometry (headers) and, for parse_error, the compiled quoct::io.
//
// Coordinates are "lon lat" in degrees, as in every WKT/GeoJSON tool; edges are straight in
// the lon/lat plane (the cartesian model geo_boost.hpp expects). Rings may be given in either
// orientation and open or closed: the polygon is corrected (bg::correct) before it is
// checked with bg::is_valid, so a self-intersecting ring, a spike or a hole outside its shell
// is refused, with Boost.Geometry's reason in the message.
#ifndef QUOCT_IO_WKT_HPP
#define QUOCT_IO_WKT_HPP

#include <string>

#include <boost/geometry/algorithms/correct.hpp>
#include <boost/geometry/algorithms/is_valid.hpp>
#include <boost/geometry/core/exception.hpp>
#include <boost/geometry/geometries/multi_polygon.hpp>
#include <boost/geometry/geometries/point_xy.hpp>
#include <boost/geometry/geometries/polygon.hpp>
#include <boost/geometry/io/wkt/read.hpp>
#include <boost/numeric/conversion/converter_policies.hpp>

#include "csv.hpp"

namespace quoct {
namespace io {

/// A lon/lat point, x = longitude and y = latitude in degrees, in Boost.Geometry's cartesian system.
using wkt_point = boost::geometry::model::d2::point_xy<double>;
/// A polygon with holes over wkt_point (clockwise shells, closed rings: Boost's defaults).
using wkt_polygon = boost::geometry::model::polygon<wkt_point>;
/// One or more polygons; what read_wkt_area returns for POLYGON and MULTIPOLYGON alike.
using wkt_multi_polygon = boost::geometry::model::multi_polygon<wkt_polygon>;

/// Parses `text`, a WKT POLYGON or MULTIPOLYGON in lon/lat degrees (leading spaces and any
/// letter case allowed), corrects its orientation and closure, and checks it is valid.
/// `source` names the text in errors (e.g. "--wkt"). Throws parse_error
/// "source: invalid WKT: ..." for text Boost.Geometry cannot read, for any other geometry
/// type, and "source: invalid polygon: ..." for an invalid or empty one, or one whose
/// coordinates are too far apart for Boost.Geometry's validity check (its integer rescaling
/// overflows, e.g. 1e80 next to 1).
inline wkt_multi_polygon read_wkt_area(const std::string& text, const std::string& source) {
    namespace bg = boost::geometry;
    std::string head;
    for (char c : text) {
        const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
        if (c == '(' || (space && !head.empty())) break;
        if (!space) head += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    }
    wkt_multi_polygon area;
    try {
        if (head == "POLYGON") {
            wkt_polygon polygon;
            bg::read_wkt(text, polygon);
            area.push_back(std::move(polygon));
        } else if (head == "MULTIPOLYGON") {
            bg::read_wkt(text, area);
        } else {
            throw parse_error(source, 0, "invalid WKT: expected POLYGON or MULTIPOLYGON, not '" + head + "'");
        }
    } catch (const bg::read_wkt_exception& e) {
        throw parse_error(source, 0, std::string("invalid WKT: ") + e.what());
    }
    if (area.empty()) throw parse_error(source, 0, "invalid polygon: it is empty");
    std::string reason;
    bool valid = false;
    try {
        bg::correct(area);
        valid = bg::is_valid(area, reason);
    } catch (const boost::numeric::bad_numeric_cast& e) {
        // Boost.Geometry rescales to 64-bit integers to find self-intersections; coordinates
        // wide apart overflow it (found by fuzzing: 1e80 next to 1).
        throw parse_error(source, 0, std::string("invalid polygon: coordinates too far apart to check (") + e.what() + ")");
    } catch (const bg::exception& e) {
        throw parse_error(source, 0, std::string("invalid polygon: ") + e.what());
    }
    if (!valid) throw parse_error(source, 0, "invalid polygon: " + reason);
    return area;
}

}  // namespace io
}  // namespace quoct

#endif  // QUOCT_IO_WKT_HPP
