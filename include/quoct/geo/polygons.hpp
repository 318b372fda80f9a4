// quoct: polygon queries on a quoct::geo::index, with Boost.Geometry polygons. Optional: it
// is the one part of the geographic index that needs Boost (headers only, 1.74 or later);
// quoct/geo/index.hpp itself stays dependency-free.
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
// Longitudes (the antimeridian). Every vertex must be finite with a longitude in
// [-360, 360]; latitudes are not checked (the index's points lie in [-90, 90]). Each ring is
// read edge by edge, from its first vertex, as RFC 7946 means it:
//   - an edge whose two longitudes differ by more than 180 (and less than 360) crosses
//     lon 180 the short way: its end, and every vertex after it, is taken 360 degrees east
//     or west. So POLYGON((178 -20, -178 -20, -178 -15, 178 -15, 178 -20)) is the 4-degree
//     box around Fiji, in either orientation;
//   - an edge at most 180 apart is straight as given, so longitudes past 180 (170 to 190,
//     say) describe a polygon across the antimeridian too;
//   - an edge exactly 360 apart (-180 to 180) is straight: it runs once round its parallel,
//     which is how rings along a pole are written: POLYGON((-180 80, -180 90, 180 90, 180 80,
//     -180 80)) is everything north of 80.
// A hole is then moved by the multiple of 360 that puts its middle nearest its shell's.
// unwrap_longitudes() does exactly this to a geometry, to draw or inspect what is tested.
// Validity is Boost.Geometry's business: pass valid geometries, correctly oriented once
// unwrapped (unwrap_longitudes, then bg::correct, then bg::is_valid: the orientation of a
// ring across lon 180 is only known unwrapped), as covered_by expects.
// Refused with std::invalid_argument, never guessed: a ring whose edges, read so, go round
// the Earth (a ring around a pole not closed along the pole, such as
// POLYGON((0 80, 90 80, 180 80, -90 80, 0 80)): is it the cap or the rest of the world?),
// and a polygon (or box) wider than 360 degrees. A box has no edges to read: it is taken as
// given (give it longitudes past 180 to cross the antimeridian, or use index::in_box).
//
// Membership, exactly. With U the geometry so unwrapped (and corrected with bg::correct if
// that moved a vertex) and [W, E] x [S, N] the extent of U's vertices, point (lon, lat) of
// the index is reported when, for some integer k, the point P = (lon + 360 k, lat),
// converted to U's coordinate type, satisfies
//     bg::covered_by(P, U)   and   P in [W, E] x [S, N] as Boost.Geometry compares,
// where "as Boost.Geometry compares" means W <= x <= E or x equals W or E by Boost's
// math::equals (|a - b| <= epsilon * max(|a|, |b|, 1) in the coordinate type), and the same
// for y. covered_by counts the boundary as inside, holes' boundaries included, and by that
// tolerance it puts a point 1e-15 degrees outside a north-south edge on the edge: such
// points are reported. The envelope condition only drops what covered_by's side test
// accepts beyond the polygon's extent: next to a very short, steep edge its tolerance
// reaches far (it takes a point 0.001 degrees above the top of an edge 1e-13 degrees wide
// and 0.01 tall), and no pruning could promise to keep all of that.
//
// Pruning: that envelope, widened by the tolerance and the rounding of the conversion,
// becomes a lon/lat box on the octree (index::visit_candidates); only its candidates are
// tested, so the result is exactly the predicate above over every point.
//
// Thread-safety: these functions only read the index and the geometry (unwrap_longitudes
// writes its argument); they may run concurrently with each other and with any other query.
#ifndef QUOCT_GEO_POLYGONS_HPP
#define QUOCT_GEO_POLYGONS_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <boost/geometry/algorithms/correct.hpp>
#include <boost/geometry/algorithms/covered_by.hpp>
#include <boost/geometry/algorithms/for_each.hpp>
#include <boost/geometry/core/access.hpp>
#include <boost/geometry/core/coordinate_type.hpp>
#include <boost/geometry/core/cs.hpp>
#include <boost/geometry/core/point_type.hpp>
#include <boost/geometry/core/exterior_ring.hpp>
#include <boost/geometry/core/interior_rings.hpp>
#include <boost/geometry/core/tags.hpp>
#include <boost/range/begin.hpp>
#include <boost/range/end.hpp>

#include "index.hpp"

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

template <class Areal>
void check_areal() {
    using traits = areal_traits<Areal>;
    static_assert(traits::is_areal, "quoct::geo::covered_by takes a ring, polygon, multi_polygon or box");
    static_assert(traits::is_cartesian,
                  "quoct::geo::covered_by takes cartesian geometries (x = lon, y = lat in degrees, straight edges)");
    static_assert(std::is_floating_point<typename traits::coordinate_type>::value,
                  "quoct::geo::covered_by needs floating-point coordinates");
}

/// Boost.Geometry's coordinate equality (math::equals with its default policy), in T.
template <class T>
bool boost_equals(T a, T b) noexcept {
    if (a == b) return true;
    const T scale = std::max(std::max(std::abs(a), std::abs(b)), T(1));
    return std::abs(a - b) <= std::numeric_limits<T>::epsilon() * scale;
}

/// lo <= x <= hi as Boost.Geometry compares coordinates: inside, or equal to an end.
template <class T>
bool in_range(T x, T lo, T hi) noexcept {
    return (lo <= x && x <= hi) || boost_equals(x, lo) || boost_equals(x, hi);
}

/// The lon/lat extent of a geometry's vertices (its envelope, as the edges are straight).
struct extent {
    double min_lon = std::numeric_limits<double>::infinity();
    double max_lon = -std::numeric_limits<double>::infinity();
    double min_lat = std::numeric_limits<double>::infinity();
    double max_lat = -std::numeric_limits<double>::infinity();
    bool empty() const noexcept { return min_lon > max_lon; }
    void add(double lon, double lat) noexcept {
        min_lon = std::min(min_lon, lon);
        max_lon = std::max(max_lon, lon);
        min_lat = std::min(min_lat, lat);
        max_lat = std::max(max_lat, lat);
    }
};

/// Calls f(lon, lat) for every vertex, as doubles (a box: its two corners).
template <class Areal, class F>
void for_each_vertex(const Areal& area, F&& f) {
    namespace bg = boost::geometry;
    using point_t = typename areal_traits<Areal>::point_type;
    if constexpr (std::is_same<typename areal_traits<Areal>::tag, bg::box_tag>::value) {
        f(static_cast<double>(bg::get<bg::min_corner, 0>(area)), static_cast<double>(bg::get<bg::min_corner, 1>(area)));
        f(static_cast<double>(bg::get<bg::max_corner, 0>(area)), static_cast<double>(bg::get<bg::max_corner, 1>(area)));
    } else {
        bg::for_each_point(area, [&f](const point_t& p) {
            f(static_cast<double>(bg::get<0>(p)), static_cast<double>(bg::get<1>(p)));
        });
    }
}

template <class Areal>
extent extent_of(const Areal& area) {
    extent e;
    for_each_vertex(area, [&e](double lon, double lat) { e.add(lon, lat); });
    return e;
}

/// Throws unless every vertex is finite with a longitude in [-360, 360].
template <class Areal>
void check_vertices(const Areal& area) {
    for_each_vertex(area, [](double lon, double lat) {
        if (!std::isfinite(lon) || !std::isfinite(lat))
            throw std::invalid_argument("quoct::geo: polygon has a NaN or infinite coordinate");
        if (lon < -360.0 || lon > 360.0) throw std::invalid_argument("quoct::geo: polygon longitude is not in [-360, 360]");
    });
}

/// How far from 360 degrees an edge along a pole may be and still count as 360 wide: an
/// edge from lon 180 to lon -180 at latitude 90 or -90, each end within 8 units in the last
/// place of 180 (2.3e-13 degrees), closes a ring along the pole. Data written by other tools
/// (Natural Earth's Antarctica from shapely, for one) puts such a vertex at
/// -179.99999999999994 rather than -180. Elsewhere only an edge exactly 360 wide is one.
constexpr double same_meridian_tolerance = 8 * 2.842170943040401e-14;  // 8 ulp(180) = 8 * 2^-45

/// The edge rule: how many turns of 360 degrees to add to an edge's end (and every vertex
/// after it) so that an edge more than 180 and less than 360 degrees wide goes the short way
/// (an edge along a pole, `on_pole`, within same_meridian_tolerance of 360 is 360 wide, and
/// is not turned).
inline int edge_turns(double from, double to, bool on_pole = false) noexcept {
    const double d = to - from;
    const double full = on_pole ? 360.0 - same_meridian_tolerance : 360.0;
    return d > 180.0 && d < full ? -1 : d < -180.0 && d > -full ? 1 : 0;
}
/// Whether an edge between latitudes a and b runs along a pole (both 90, or both -90).
inline bool along_pole(double a, double b) noexcept { return a == b && (a == 90.0 || a == -90.0); }

/// The unwrapped longitudes a ring spans, and whether any vertex moves.
struct lon_span {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
    bool moved = false;
    double middle() const noexcept { return lo <= hi ? (lo + hi) / 2 : 0.0; }
};

/// Walks a ring from its first vertex, calling visit(point, unwrapped longitude) for each
/// vertex in order, all shifted by `offset` turns; returns the span. Throws if the ring's
/// edges go round the Earth (checked after the walk: plan with a no-op visit first).
template <class Ring, class Visit>
lon_span walk_ring(Ring& ring, int offset, Visit&& visit) {
    namespace bg = boost::geometry;
    lon_span span;
    int turns = offset;
    bool first = true;
    double start = 0, start_lat = 0, prev = 0, prev_lat = 0, lat_sum = 0;
    for (auto it = boost::begin(ring); it != boost::end(ring); ++it) {
        const double lon = static_cast<double>(bg::get<0>(*it)), lat = static_cast<double>(bg::get<1>(*it));
        lat_sum += lat;
        if (first) start = lon, start_lat = lat; else turns += edge_turns(prev, lon, along_pole(prev_lat, lat));
        first = false;
        prev = lon;
        prev_lat = lat;
        const double unwrapped = lon + 360.0 * turns;
        span.lo = std::min(span.lo, unwrapped);
        span.hi = std::max(span.hi, unwrapped);
        span.moved = span.moved || turns != 0;
        visit(*it, unwrapped);
    }
    if (!first && turns + edge_turns(prev, start, along_pole(prev_lat, start_lat)) != offset) {
        const bool south = lat_sum < 0;  // the ring's vertices lie mostly south of the equator
        throw std::invalid_argument(
            std::string("quoct::geo: a polygon ring goes round the ") + (south ? "south" : "north") +
            " pole (its edges, taken across lon 180 the short way, circle the Earth); close it along the pole, e.g. "
            "with edges from (180, " + (south ? "-90" : "90") + ") to (-180, " + (south ? "-90" : "90") + ")");
    }
    return span;
}

inline void check_width(double lo, double hi) {
    if (hi - lo > 360.0) throw std::invalid_argument("quoct::geo: polygon is wider than 360 degrees of longitude");
}

/// Checks one polygon's rings and fills `offsets` with the turns each hole is shifted by;
/// returns whether any vertex moves. Throws as walk_ring, or if the shell is too wide.
template <class Polygon>
bool plan_polygon(const Polygon& polygon, std::vector<int>& offsets) {
    namespace bg = boost::geometry;
    const auto look = [](const auto&, double) {};
    const lon_span shell = walk_ring(bg::exterior_ring(polygon), 0, look);
    check_width(shell.lo, shell.hi);
    bool moved = shell.moved;
    offsets.clear();
    for (const auto& ring : bg::interior_rings(polygon)) {
        const lon_span hole = walk_ring(ring, 0, look);
        const int k = hole.lo <= hole.hi ? static_cast<int>(std::lround((shell.middle() - hole.middle()) / 360.0)) : 0;
        offsets.push_back(k);
        moved = moved || hole.moved || k != 0;
    }
    return moved;
}

/// Rewrites a ring's longitudes as walk_ring reads them.
template <class Ring>
void shift_ring(Ring& ring, int offset) {
    namespace bg = boost::geometry;
    using coord_t = typename bg::coordinate_type<Ring>::type;
    walk_ring(ring, offset, [](auto& p, double lon) { bg::set<0>(p, static_cast<coord_t>(lon)); });
}

/// Checks `area` (see the top of this header) and returns whether unwrapping moves a vertex.
template <class Areal>
bool plan_unwrap(const Areal& area) {
    namespace bg = boost::geometry;
    using tag = typename areal_traits<Areal>::tag;
    check_vertices(area);
    if constexpr (std::is_same<tag, bg::box_tag>::value) {
        check_width(static_cast<double>(bg::get<bg::min_corner, 0>(area)), static_cast<double>(bg::get<bg::max_corner, 0>(area)));
        return false;
    } else if constexpr (std::is_same<tag, bg::ring_tag>::value) {
        const lon_span span = walk_ring(area, 0, [](const auto&, double) {});
        check_width(span.lo, span.hi);
        return span.moved;
    } else if constexpr (std::is_same<tag, bg::polygon_tag>::value) {
        std::vector<int> offsets;
        return plan_polygon(area, offsets);
    } else {
        std::vector<int> offsets;
        bool moved = false;
        for (auto it = boost::begin(area); it != boost::end(area); ++it) moved = plan_polygon(*it, offsets) || moved;
        return moved;
    }
}

template <class Polygon>
void unwrap_polygon(Polygon& polygon) {
    namespace bg = boost::geometry;
    std::vector<int> offsets;
    plan_polygon(polygon, offsets);
    shift_ring(bg::exterior_ring(polygon), 0);
    std::size_t i = 0;
    for (auto it = boost::begin(bg::interior_rings(polygon)); it != boost::end(bg::interior_rings(polygon)); ++it)
        shift_ring(*it, offsets[i++]);
}

/// visit_covered_by on a geometry that unwrapping leaves as it is.
template <class Id, class Areal, class F>
bool visit_unwrapped(const index<Id>& ix, const Areal& area, F& f) {
    namespace bg = boost::geometry;
    using point_t = typename areal_traits<Areal>::point_type;
    using coord_t = typename areal_traits<Areal>::coordinate_type;
    const extent env = extent_of(area);
    if (env.empty()) return true;
    // The envelope's values are coord_t values, so these conversions are exact.
    const coord_t west = static_cast<coord_t>(env.min_lon), east = static_cast<coord_t>(env.max_lon);
    const coord_t south = static_cast<coord_t>(env.min_lat), north = static_cast<coord_t>(env.max_lat);
    // Boost's tolerance is epsilon * max(|v|, 1) at a bound v, and converting a point to
    // coord_t moves it by half an epsilon of its size: four epsilons of the largest bound
    // cover both.
    const double big = std::max(std::max(std::abs(env.min_lon), std::abs(env.max_lon)),
                                std::max(std::max(std::abs(env.min_lat), std::abs(env.max_lat)), 1.0));
    const double slack = 4 * static_cast<double>(std::numeric_limits<coord_t>::epsilon()) * big;
    const double lo = env.min_lon - slack, hi = env.max_lon + slack;
    const double band_lo = std::max(env.min_lat - slack, -90.0), band_hi = std::min(env.max_lat + slack, 90.0);
    if (band_lo > band_hi) return true;
    // Every k with lon + 360 k in [lo, hi] for some lon in [-180, 180].
    const double k_first = std::floor((lo - 180.0) / 360.0), k_last = std::ceil((hi + 180.0) / 360.0);
    const auto keep = [&](Id id) {
        const lonlat& where = ix.location(id);
        const coord_t y = static_cast<coord_t>(where.lat);
        if (!in_range(y, south, north)) return true;
        for (double k = k_first; k <= k_last; ++k) {
            const coord_t x = static_cast<coord_t>(where.lon + 360.0 * k);
            // [lo, hi] holds every x in_range accepts: a quick test first.
            if (static_cast<double>(x) < lo || static_cast<double>(x) > hi || !in_range(x, west, east)) continue;
            point_t p;
            bg::set<0>(p, x);
            bg::set<1>(p, y);
            if (bg::covered_by(p, area)) return quoct::detail::go_on(f, id);
        }
        return true;
    };
    return ix.visit_candidates(lo, hi - lo, band_lo, band_hi, keep);
}

}  // namespace detail

/// Rewrites the longitudes of `area` (ring, polygon, multi_polygon; a box is left as it is)
/// as visit_covered_by reads them (see "Longitudes" at the top of this header): each ring
/// continuous from its first vertex, an edge more than 180 and less than 360 degrees wide
/// taken the short way across lon 180, each hole moved by a multiple of 360 to its shell.
/// The result may have longitudes past 180 or -180; it is what covered_by tests, so draw or
/// validate (bg::correct, bg::is_valid) this rather than the original. Idempotent in
/// practice: unwrapping again moves nothing. Returns true if a vertex moved.
/// Throws std::invalid_argument, leaving `area` unchanged, if a coordinate is NaN or
/// infinite, a longitude is not in [-360, 360], a ring goes round a pole or a polygon is
/// wider than 360 degrees. Thread-safety: writes `area` only.
template <class Areal>
bool unwrap_longitudes(Areal& area) {
    namespace bg = boost::geometry;
    detail::check_areal<Areal>();
    using tag = typename detail::areal_traits<Areal>::tag;
    if (!detail::plan_unwrap(area)) return false;
    if constexpr (std::is_same<tag, bg::ring_tag>::value) {
        detail::shift_ring(area, 0);
    } else if constexpr (std::is_same<tag, bg::polygon_tag>::value) {
        detail::unwrap_polygon(area);
    } else if constexpr (std::is_same<tag, bg::multi_polygon_tag>::value) {
        for (auto it = boost::begin(area); it != boost::end(area); ++it) detail::unwrap_polygon(*it);
    }
    return true;
}

/// Calls f(id) for every point of `ix` in the areal geometry `area` (ring, polygon,
/// multi_polygon or box; cartesian, x = lon and y = lat in degrees), boundary included, in
/// no particular order; see the top of this header for the exact predicate and for crossing
/// the antimeridian. If f returns something convertible to bool, false stops the search;
/// returns false if it was stopped. An empty geometry takes no point. A geometry that
/// unwrapping changes is unwrapped in a copy, which is then corrected (bg::correct: ring
/// orientation and closure), as unwrapping reverses the orientation of a ring it moves;
/// any other geometry is used as given, so pass it valid and correctly oriented.
/// Throws std::invalid_argument if a coordinate of `area` is NaN or infinite, a longitude
/// is not in [-360, 360], a ring goes round a pole, or a polygon or box is wider than 360
/// degrees; passes on whatever f or Boost.Geometry throws.
template <class Id, class Areal, class F>
bool visit_covered_by(const index<Id>& ix, const Areal& area, F&& f) {
    detail::check_areal<Areal>();
    if (detail::plan_unwrap(area)) {
        Areal unwrapped(area);
        unwrap_longitudes(unwrapped);
        boost::geometry::correct(unwrapped);  // unwrapping can reverse a ring's orientation
        return detail::visit_unwrapped(ix, unwrapped, f);
    }
    return detail::visit_unwrapped(ix, area, f);
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

#endif  // QUOCT_GEO_POLYGONS_HPP
