// quoct::io: WKT and GeoJSON polygons for quoct::geo::covered_by (<quoct/geo/polygons.hpp>).
// Header-only; needs Boost.Geometry (headers) and the compiled quoct::io (parse_error, and
// read_geojson_polygons from <quoct/io/geojson_polygons.hpp> for GeoJSON).
//
// Coordinates are "lon lat" in degrees, as in every WKT/GeoJSON tool; edges are straight in
// the lon/lat plane (the cartesian model geo/polygons.hpp expects), and an edge whose
// longitudes differ by more than 180 degrees crosses lon 180 the short way, as in RFC 7946:
// the area is unwrapped (geo::unwrap_longitudes) into continuous longitudes, which may then
// run past 180 or -180 (see "Longitudes" in <quoct/geo/polygons.hpp>). A PostGIS EWKT prefix
// "SRID=4326;" is accepted; any other SRID is refused, as its coordinates are not lon/lat
// degrees. Every vertex, as written, needs a latitude in [-90, 90] and a longitude in
// [-360, 360] (past 180 or -180 only to cross lon 180, as above); any other is refused by
// name ("invalid polygon: vertex (10, 91) has a latitude outside [-90, 90]"). Rings may be
// given in either orientation and open or closed: a ring whose last position is not its
// first is closed (as GEOS and shapely close it), and the unwrapped polygon is corrected
// (bg::correct) and checked with bg::is_valid, so a self-intersecting ring ("it intersects
// itself"), a spike, a hole outside its shell, a ring round a pole or a polygon wider than
// 360 degrees is refused.
#ifndef QUOCT_IO_WKT_HPP
#define QUOCT_IO_WKT_HPP

#include <cstddef>
#include <istream>
#include <stdexcept>
#include <string>

#include <boost/geometry/algorithms/correct.hpp>
#include <boost/geometry/algorithms/intersects.hpp>
#include <boost/geometry/algorithms/is_valid.hpp>
#include <boost/geometry/core/exception.hpp>
#include <boost/geometry/geometries/multi_polygon.hpp>
#include <boost/geometry/geometries/point_xy.hpp>
#include <boost/geometry/geometries/polygon.hpp>
#include <boost/geometry/geometries/register/point.hpp>
#include <boost/geometry/io/wkt/read.hpp>

#include "../geo/polygons.hpp"
#include "csv.hpp"
#include "geojson_polygons.hpp"

namespace quoct {
namespace io {

/// A lon/lat point, x = longitude and y = latitude in degrees, in Boost.Geometry's cartesian
/// system: a Boost.Geometry point_xy<double> (x(), y(), constructed from (x, y)) under a name of
/// its own, so that Boost.Geometry checks its polygons in floating point. Boost 1.74 otherwise
/// rescales cartesian doubles to 64-bit integers in bg::is_valid, and that integer arithmetic
/// overflows (undefined behaviour, then a wrong verdict) for rings far apart, e.g. a hole
/// reaching lat 8888888 (found by fuzzing).
struct wkt_point : boost::geometry::model::d2::point_xy<double> {
    using point_xy::point_xy;
    wkt_point() = default;
};

}  // namespace io
}  // namespace quoct

BOOST_GEOMETRY_REGISTER_POINT_2D_GET_SET(quoct::io::wkt_point, double, boost::geometry::cs::cartesian, x, y, x, y)

#if defined(BOOST_GEOMETRY_USE_RESCALING)  // Boost versions that still rescale by default
#include <boost/geometry/policies/robustness/get_rescale_policy.hpp>
#include <boost/geometry/policies/robustness/no_rescale_policy.hpp>
namespace boost {
namespace geometry {
/// Boost.Geometry algorithms on quoct::io::wkt_point compute in double, without rescaling.
template <>
struct rescale_policy_type<quoct::io::wkt_point, cartesian_tag> {
    using type = detail::no_rescale_policy;
};
}  // namespace geometry
}  // namespace boost
#endif

namespace quoct {
namespace io {
/// A polygon with holes over wkt_point (clockwise shells, closed rings: Boost's defaults).
using wkt_polygon = boost::geometry::model::polygon<wkt_point>;
/// One or more polygons; what read_wkt_area returns for POLYGON and MULTIPOLYGON alike.
using wkt_multi_polygon = boost::geometry::model::multi_polygon<wkt_polygon>;

namespace detail {

inline bool wkt_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// `text` without a leading EWKT "SRID=4326;" (any letter case and spacing). Throws
/// parse_error for any other SRID, or an SRID without its ';'.
inline std::string strip_srid(const std::string& text, const std::string& source) {
    std::size_t i = 0;
    while (i < text.size() && wkt_space(text[i])) ++i;
    const std::string tag = "SRID=";
    for (std::size_t j = 0; j < tag.size(); ++j) {
        const char c = i + j < text.size() ? text[i + j] : ' ';
        if ((c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c) != tag[j]) return text;  // no SRID
    }
    const std::size_t semicolon = text.find(';', i);
    if (semicolon == std::string::npos) throw parse_error(source, 0, "invalid WKT: SRID=... must end with ';'");
    std::string srid;
    for (std::size_t j = i + tag.size(); j < semicolon; ++j)
        if (!wkt_space(text[j])) srid += text[j];
    if (srid != "4326")
        throw parse_error(source, 0, "SRID=" + srid + " is not supported: coordinates must be longitude and latitude in "
                                     "degrees (SRID=4326, WGS 84)");
    return text.substr(semicolon + 1);
}

/// Names the first ring of `area` that crosses or touches itself ("the outer ring",
/// "hole 2", "polygon 3's outer ring"), or "" if none does.
inline std::string self_crossing_ring(const wkt_multi_polygon& area) {
    for (std::size_t p = 0; p < area.size(); ++p) {
        const std::string of = area.size() > 1 ? "polygon " + std::to_string(p + 1) + "'s " : "";
        if (boost::geometry::intersects(area[p].outer())) return (of.empty() ? "the " : of) + "outer ring";
        for (std::size_t h = 0; h < area[p].inners().size(); ++h)
            if (boost::geometry::intersects(area[p].inners()[h])) return of + "hole " + std::to_string(h + 1);
    }
    return "";
}

/// Throws parse_error naming the first vertex of `area`, as written (before unwrapping), whose
/// latitude is outside [-90, 90] or whose longitude is outside [-360, 360], the range
/// geo::unwrap_longitudes reads; a NaN is left to it.
inline void check_vertices(const wkt_multi_polygon& area, const std::string& source) {
    const auto check = [&](const wkt_point& p) {
        const double lon = p.x(), lat = p.y();
        const char* what = lat < -90 || lat > 90      ? "latitude outside [-90, 90]"
                           : lon < -360 || lon > 360 ? "longitude outside [-360, 360]"
                                                     : nullptr;
        if (what != nullptr)
            throw parse_error(source, 0, "invalid polygon: vertex (" + shortest_decimal(lon) + ", " + shortest_decimal(lat) +
                                             ") has a " + what);
    };
    for (const wkt_polygon& polygon : area) {
        for (const wkt_point& p : polygon.outer()) check(p);
        for (const auto& hole : polygon.inners())
            for (const wkt_point& p : hole) check(p);
    }
}

/// Unwraps, corrects and validates an area read from `source`, as the top of this header says.
inline void finish_area(wkt_multi_polygon& area, const std::string& source) {
    namespace bg = boost::geometry;
    if (area.empty()) throw parse_error(source, 0, "invalid polygon: it is empty");
    check_vertices(area, source);
    try {
        geo::unwrap_longitudes(area);
    } catch (const std::invalid_argument& e) {
        std::string why = e.what();
        const std::string prefix = "quoct::geo: ";
        if (why.compare(0, prefix.size(), prefix) == 0) why.erase(0, prefix.size());
        throw parse_error(source, 0, "invalid polygon: " + why);
    }
    std::string reason, ring;
    bg::validity_failure_type failure;
    try {
        bg::correct(area);
        if (bg::is_valid(area, failure)) return;
        bg::is_valid(area, reason);
        if (failure != bg::failure_spikes) ring = self_crossing_ring(area);
    } catch (const bg::exception& e) {
        throw parse_error(source, 0, std::string("invalid polygon: ") + e.what());
    }
    if (!ring.empty()) throw parse_error(source, 0, "invalid polygon: it intersects itself (" + ring + " crosses or touches itself)");
    if (failure == bg::failure_self_intersections)
        throw parse_error(source, 0, "invalid polygon: it intersects itself (its rings cross or touch): " + reason);
    throw parse_error(source, 0, "invalid polygon: " + reason);
}

}  // namespace detail

/// Parses `text`, a WKT POLYGON or MULTIPOLYGON in lon/lat degrees (leading spaces and any
/// letter case allowed, optionally after "SRID=4326;"), unwraps its longitudes across
/// lon 180, corrects its orientation and closure, and checks it is valid. The result's
/// longitudes are continuous per ring and may run past 180 or -180 (see the top of this
/// header). `source` names the text in errors (e.g. "--wkt"). Throws parse_error
/// "source: invalid WKT: ..." for text Boost.Geometry cannot read and for any other
/// geometry type, "source: SRID=n is not supported: ..." for an SRID other than 4326, and
/// "source: invalid polygon: ..." for an invalid or empty one ("it intersects itself (...)"
/// when a ring crosses itself or another ring, "vertex (lon, lat) has a latitude outside
/// [-90, 90]"). Thread-safe (no shared state).
inline wkt_multi_polygon read_wkt_area(const std::string& wkt, const std::string& source) {
    namespace bg = boost::geometry;
    const std::string text = detail::strip_srid(wkt, source);
    std::string head;
    for (char c : text) {
        const bool space = detail::wkt_space(c);
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
    detail::finish_area(area, source);
    return area;
}

/// The polygons of lonlat_polygons (one GeoJSON feature's, say) as one multi-polygon,
/// unwrapped, corrected and checked as read_wkt_area does; `source` names them in errors
/// ("source: invalid polygon: ..."). Throws parse_error.
inline wkt_multi_polygon area_of(const lonlat_polygons& polygons, const std::string& source) {
    wkt_multi_polygon area;
    for (const auto& rings : polygons) {
        wkt_polygon polygon;
        for (std::size_t r = 0; r < rings.size(); ++r) {
            auto& ring = r == 0 ? polygon.outer() : (polygon.inners().emplace_back(), polygon.inners().back());
            for (const geo::lonlat& p : rings[r]) ring.push_back(wkt_point(p.lon, p.lat));
        }
        area.push_back(std::move(polygon));
    }
    detail::finish_area(area, source);
    return area;
}

/// Reads GeoJSON polygons from `in` (read_geojson_polygons), then unwraps, corrects and
/// checks them as read_wkt_area does, and returns them as one multi-polygon whose
/// longitudes are continuous per ring (they may run past 180 or -180). Throws parse_error
/// as read_geojson_polygons, and "source: invalid polygon: ..." as read_wkt_area.
inline wkt_multi_polygon read_geojson_area(std::istream& in, const std::string& source) {
    return area_of(read_geojson_polygons(in, source), source);
}

}  // namespace io
}  // namespace quoct

#endif  // QUOCT_IO_WKT_HPP
