// quoct: polygon queries on a quoct::geo::index, with Boost.Geometry polygons. Optional: it
// is the one part of the geographic index that needs Boost (headers only, 1.74 or later);
// quoct/geo.hpp itself stays dependency-free.
//
// Geometries. Any Boost.Geometry areal geometry (ring, polygon with holes, multi_polygon,
// box) in a *cartesian* coordinate system whose x is the longitude and y the latitude, in
// degrees: edges are straight lines in the lon/lat plane, as in GeoJSON (RFC 7946) and in
// most GIS "geometry" types, so an edge along a parallel stays on that parallel. That is a
// choice: Boost.Geometry's spherical coordinate systems join vertices by great-circle arcs
// instead, which bulge towards the poles; they are refused by a static_assert. The
// cartesian choice also makes the polygon lie inside its lon/lat envelope, which is what
// the pruning below needs.
//
// Membership, exactly: point (lon, lat) of the index is reported when
//     bg::covered_by(P(lon + 360 k, lat), geometry)
// for some k in {-1, 0, 1}, with P the geometry's point type (coordinates converted to its
// coordinate type). covered_by counts the boundary as inside, holes' boundaries included.
// The shifts let a polygon cross the antimeridian: give it longitudes past 180 or -180
// (170 to 190, say); a polygon's longitudes must lie in [-360, 360]. Its latitudes are not
// checked (the index's points lie in [-90, 90]). Validity is Boost.Geometry's business:
// pass valid, correctly oriented geometries (bg::is_valid, bg::correct), as covered_by
// expects.
//
// Pruning: the geometry's envelope, widened by the rounding of the coordinate type, becomes
// a lon/lat box on the octree (index::visit_candidates); only its candidates are tested with
// covered_by, so the result is exactly the predicate above over every point, at the cost of
// the points near the envelope.
//
// Thread-safety: these functions only read the index and the geometry; they may run
// concurrently with each other and with any other query.
#ifndef QUOCT_GEO_BOOST_HPP
#define QUOCT_GEO_BOOST_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <boost/geometry/algorithms/covered_by.hpp>
#include <boost/geometry/algorithms/for_each.hpp>
#include <boost/geometry/core/access.hpp>
#include <boost/geometry/core/coordinate_type.hpp>
#include <boost/geometry/core/cs.hpp>
#include <boost/geometry/core/point_type.hpp>
#include <boost/geometry/core/tags.hpp>

#include "geo.hpp"

namespace quoct {
namespace geo {
namespace detail {

template <class Areal>
struct areal_traits {
    using tag = typename boost::geometry::tag<Areal>::type;
    using point_type = typename boost::geometry::point_type<Areal>::type;
    using coordinate_type = typename boost::geometry::coordinate_type<Areal>::type;
    static constexpr bool is_areal =
        std::is_same<tag, boost::geometry::ring_tag>::value || std::is_same<tag, boost::geometry::polygon_tag>::value ||
        std::is_same<tag, boost::geometry::multi_polygon_tag>::value || std::is_same<tag, boost::geometry::box_tag>::value;
    static constexpr bool is_cartesian =
        std::is_same<typename boost::geometry::cs_tag<Areal>::type, boost::geometry::cartesian_tag>::value;
};

/// The lon/lat extent of a geometry's vertices (its envelope, as the edges are straight).
struct extent {
    double min_lon = std::numeric_limits<double>::infinity();
    double max_lon = -std::numeric_limits<double>::infinity();
    double min_lat = std::numeric_limits<double>::infinity();
    double max_lat = -std::numeric_limits<double>::infinity();
    bool empty() const noexcept { return min_lon > max_lon; }

    // Throws unless the vertex is finite with a longitude in [-360, 360].
    void add(double lon, double lat) {
        if (!std::isfinite(lon) || !std::isfinite(lat))
            throw std::invalid_argument("quoct::geo: polygon has a NaN or infinite coordinate");
        if (lon < -360.0 || lon > 360.0) throw std::invalid_argument("quoct::geo: polygon longitude is not in [-360, 360]");
        min_lon = std::min(min_lon, lon);
        max_lon = std::max(max_lon, lon);
        min_lat = std::min(min_lat, lat);
        max_lat = std::max(max_lat, lat);
    }
};

/// Checks every vertex (see extent::add) and returns their extent.
template <class Areal>
extent extent_of(const Areal& area) {
    namespace bg = boost::geometry;
    using point_t = typename areal_traits<Areal>::point_type;
    extent e;
    if constexpr (std::is_same<typename areal_traits<Areal>::tag, bg::box_tag>::value) {
        e.add(static_cast<double>(bg::get<bg::min_corner, 0>(area)), static_cast<double>(bg::get<bg::min_corner, 1>(area)));
        e.add(static_cast<double>(bg::get<bg::max_corner, 0>(area)), static_cast<double>(bg::get<bg::max_corner, 1>(area)));
    } else {
        bg::for_each_point(area, [&e](const point_t& p) {
            e.add(static_cast<double>(bg::get<0>(p)), static_cast<double>(bg::get<1>(p)));
        });
    }
    return e;
}

}  // namespace detail

/// Calls f(id) for every point of `ix` in the areal geometry `area` (ring, polygon,
/// multi_polygon or box; cartesian, x = lon and y = lat in degrees), boundary included, in
/// no particular order; see the top of this header for the exact predicate and for crossing
/// the antimeridian. If f returns something convertible to bool, false stops the search;
/// returns false if it was stopped. An empty geometry takes no point.
/// Throws std::invalid_argument if a coordinate of `area` is NaN or infinite or a longitude
/// is not in [-360, 360]; passes on whatever f or Boost.Geometry throws.
template <class Id, class Areal, class F>
bool visit_covered_by(const index<Id>& ix, const Areal& area, F&& f) {
    namespace bg = boost::geometry;
    using traits = detail::areal_traits<Areal>;
    using point_t = typename traits::point_type;
    using coord_t = typename traits::coordinate_type;
    static_assert(traits::is_areal, "quoct::geo::covered_by takes a ring, polygon, multi_polygon or box");
    static_assert(traits::is_cartesian,
                  "quoct::geo::covered_by takes cartesian geometries (x = lon, y = lat in degrees, straight edges)");
    static_assert(std::is_floating_point<coord_t>::value, "quoct::geo::covered_by needs floating-point coordinates");
    const detail::extent env = detail::extent_of(area);
    if (env.empty()) return true;
    // A point converted into [min, max] was within one rounding of it before conversion.
    const double slack = 540.0 * static_cast<double>(std::numeric_limits<coord_t>::epsilon());
    const double south = std::max(env.min_lat - slack, -90.0);
    const double north = std::min(env.max_lat + slack, 90.0);
    if (south > north) return true;
    const auto keep = [&](Id id) {
        const lonlat& where = ix.location(id);
        for (int k = -1; k <= 1; ++k) {
            point_t p;
            bg::set<0>(p, static_cast<coord_t>(where.lon + 360.0 * k));
            bg::set<1>(p, static_cast<coord_t>(where.lat));
            // Outside the envelope covered_by is false anyway; the test only saves time.
            const double x = static_cast<double>(bg::get<0>(p));
            if (env.min_lon <= x && x <= env.max_lon && bg::covered_by(p, area))
                return quoct::detail::call_go_on(f, id);
        }
        return true;
    };
    const double west = env.min_lon - slack;
    return ix.visit_candidates(west, env.max_lon + slack - west, south, north, keep);
}

/// Clears `out`, then fills it with the ids visit_covered_by(ix, area) reports. Throws as it.
template <class Id, class Areal>
void covered_by(const index<Id>& ix, const Areal& area, std::vector<Id>& out) {
    out.clear();
    visit_covered_by(ix, area, [&](Id id) { out.push_back(id); });
}

/// As covered_by(ix, area, out), returning the ids.
template <class Id, class Areal>
std::vector<Id> covered_by(const index<Id>& ix, const Areal& area) {
    std::vector<Id> out;
    covered_by(ix, area, out);
    return out;
}

/// Number of points covered_by(ix, area) returns. Throws as it.
template <class Id, class Areal>
std::size_t count_covered_by(const index<Id>& ix, const Areal& area) {
    std::size_t n = 0;
    visit_covered_by(ix, area, [&](Id) { ++n; });
    return n;
}

}  // namespace geo
}  // namespace quoct

#endif  // QUOCT_GEO_BOOST_HPP
