// quoct: a geographic index over longitude/latitude points. Optional and dependency-free;
// polygons (Boost.Geometry) are in quoct/geo/polygons.hpp.
//
// The model. Coordinates are WGS84 longitude and latitude in degrees, taken as directions on
// a sphere of radius earth_radius = 6371008.8 m (the IUGG mean Earth radius R1). Distances are
// great-circle distances on that sphere, in metres. The ellipsoid is not modelled: against
// the true geodesic distance the sphere is off by up to about 0.5%.
//
// How it works. Every point becomes a unit vector in 3D (x towards lon 0 on the equator, z
// towards the north pole), kept in a quoct::octree. On the unit sphere a great-circle radius
// theta is the chord radius 2 sin(theta / 2), so a cap is a ball query and needs no special
// case at the poles or the antimeridian. Unit vectors come from degrees by an exact
// reduction to a quadrant first, so both poles are single points ((0, 0, +-1) whatever the
// longitude) and lon -180 and lon 180 give the same vector.
//
// Exactness. Membership is decided by one function of the stored lon/lat, never by the tree:
//   within: distance(centre, p) <= metres, with distance() below;
//   in_box: south <= lat <= north and west <= lon <= east (lon >= west || lon <= east when
//           west > east), compared on the lon/lat values as given at build time.
// The tree only gathers candidates with a region made larger by a margin (1e-12, relative
// and absolute, in unit-sphere units: a few micrometres on the Earth) that is about a
// thousand times the rounding of the unit-vector conversion and of the formulas; every
// candidate is then tested with the predicate. So a query returns exactly the points a
// brute-force loop over the predicate accepts, to the last bit, boundary points included.
// Unlike the core's, this needs no floating-point flags: the distance is one out-of-line
// function that every caller shares, and FMA contraction (-march=native) moves the pruning
// tests by about 1e-16, far inside the margin.
//
// Thread-safety: an index is immutable after construction; every query is const and may run
// concurrently with any other query on the same index.
#ifndef QUOCT_GEO_INDEX_HPP
#define QUOCT_GEO_INDEX_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../orthtree.hpp"

namespace quoct {
namespace geo {

/// Radius of the sphere, in metres: the IUGG mean Earth radius R1 (6371.0088 km).
constexpr double earth_radius = 6371008.8;
/// Pi as a double.
constexpr double pi = 3.141592653589793;
/// Half the great circle, in metres: the largest distance() can return. A radius at least
/// this large takes every point.
constexpr double half_circumference = earth_radius * pi;

/// A location: longitude then latitude, in degrees (lon in [-180, 180], lat in [-90, 90]).
struct lonlat {
    double lon;  ///< longitude in degrees, east positive
    double lat;  ///< latitude in degrees, north positive
};

}  // namespace geo

/// geo::lonlat as a point for quoct::point_traits: coordinate 0 the longitude, 1 the latitude.
template <>
struct point_traits<geo::lonlat> {
    static constexpr std::size_t dimension = 2;  ///< two coordinates: lon, lat
    /// The longitude (axis 0) or the latitude (axis 1).
    static double get(const geo::lonlat& p, std::size_t axis) noexcept { return axis == 0 ? p.lon : p.lat; }
};

namespace geo {

/// One result of geo::index::nearest: the point's id and its great-circle distance in metres.
template <class Id>
struct neighbor {
    Id id;            ///< the point's id
    double distance;  ///< its great-circle distance from the query, in metres
};

namespace detail {

using vec3 = point<double, 3>;

/// sin and cos of x degrees. x is first reduced exactly (remquo) to |r| <= 45 and a quadrant,
/// so multiples of 90 give exact 0 and +-1: every pole point maps to one vector, and
/// lon -180 and 180 to the same one (up to the sign of a zero).
inline void sincos_deg(double x, double& s, double& c) noexcept {
    int q = 0;
    const double r = std::remquo(x, 90.0, &q) * (pi / 180);
    const double sr = std::sin(r), cr = std::cos(r);
    switch (static_cast<unsigned>(q) & 3u) {
        case 0: s = sr; c = cr; break;
        case 1: s = cr; c = -sr; break;
        case 2: s = -sr; c = -cr; break;
        default: s = -cr; c = sr; break;
    }
}

/// The unit vector of a location: x towards (0, 0), y towards (90, 0), z towards the north pole.
inline vec3 unit_vector(double lon, double lat) noexcept {
    double slat, clat, slon, clon;
    sincos_deg(lat, slat, clat);
    sincos_deg(lon, slon, clon);
    return vec3{{clat * clon, clat * slon, slat}};
}

// One compiled body for the predicate, so that no caller can see it rounded differently:
// inlined copies could be contracted into FMAs one way here and another way there.
#if defined(__GNUC__) || defined(__clang__)
#define QUOCT_GEO_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define QUOCT_GEO_NOINLINE __declspec(noinline)
#else
#define QUOCT_GEO_NOINLINE
#endif

/// The great-circle distance in metres between the points of two (near-)unit vectors:
/// earth_radius * 2 atan2(|a - b|, |a + b|), Kahan's angle formula. It is well conditioned
/// at every angle, antipodes included (unlike acos of the dot product or the haversine's
/// asin), and it is built from differences, sums and squares only, so it is symmetric and
/// exactly 0 for a == b however the compiler evaluates it, FMA contraction included.
/// |a - b| is also the chord the octree measures.
QUOCT_GEO_NOINLINE inline double metres_between(const vec3& a, const vec3& b) noexcept {
    double diff_sq = 0, sum_sq = 0;
    for (std::size_t i = 0; i < vec3::dimension; ++i) {
        const double d = a[i] - b[i], s = a[i] + b[i];
        diff_sq += d * d;
        sum_sq += s * s;
    }
    const double t = 2 * std::atan2(std::sqrt(diff_sq), std::sqrt(sum_sq));
    return earth_radius * (t < pi ? t : pi);  // never above half_circumference, whatever atan2's last bit
}

#undef QUOCT_GEO_NOINLINE

/// Relative and absolute margin, in unit-sphere units, by which candidate regions are grown.
constexpr double margin = 1e-12;

inline bool valid_lon(double lon) noexcept { return lon >= -180.0 && lon <= 180.0; }  // false for NaN
inline bool valid_lat(double lat) noexcept { return lat >= -90.0 && lat <= 90.0; }

inline void check_location(double lon, double lat, const char* what) {
    if (!valid_lon(lon)) throw std::invalid_argument(std::string("quoct::geo: ") + what + " longitude is not in [-180, 180]");
    if (!valid_lat(lat)) throw std::invalid_argument(std::string("quoct::geo: ") + what + " latitude is not in [-90, 90]");
}

inline void check_metres(double metres) {
    if (std::isnan(metres)) throw std::invalid_argument("quoct::geo: distance is NaN");
    if (metres < 0) throw std::invalid_argument("quoct::geo: distance is negative");
}

/// A conservative 3D stand-in for a lon/lat box, for the octree's visit_shape: a latitude
/// band (a z slab) and a longitude arc (a wedge about the z axis), each grown by `margin`.
/// Every unit vector of a location in the box is in it; points near it may be too.
/// The arc runs eastwards from `west` over `width` degrees; a width of 360 or more is the
/// whole circle. Up to 180 degrees the wedge is the intersection of two half-planes through
/// the z axis, above 180 their union.
class lonlat_region {
public:
    lonlat_region(double west, double width, double south, double north) noexcept {
        double s, c;
        sincos_deg(south, s, c);
        z_lo_ = s - margin;
        sincos_deg(north, s, c);
        z_hi_ = s + margin;
        all_lon_ = !(width < 360.0);
        wide_ = width > 180.0;
        sincos_deg(west, wy_, wx_);
        sincos_deg(west + width, ey_, ex_);
    }

    /// Must say outside only if no point of b is in the region, inside only if all are.
    /// Each half-plane side is linear in the point, so its extremes over b are at corners,
    /// and IEEE rounding is monotone, so the corner bound holds for the rounded values too.
    relation classify(const box<double, 3>& b) const noexcept {
        if (b.hi[2] < z_lo_ || b.lo[2] > z_hi_) return relation::outside;
        const bool z_inside = z_lo_ <= b.lo[2] && b.hi[2] <= z_hi_;
        if (all_lon_) return z_inside ? relation::inside : relation::partial;
        const double w_min = west_side(wx_ >= 0 ? b.lo[1] : b.hi[1], wy_ >= 0 ? b.hi[0] : b.lo[0]);
        const double w_max = west_side(wx_ >= 0 ? b.hi[1] : b.lo[1], wy_ >= 0 ? b.lo[0] : b.hi[0]);
        const double e_min = east_side(ey_ >= 0 ? b.lo[0] : b.hi[0], ex_ >= 0 ? b.hi[1] : b.lo[1]);
        const double e_max = east_side(ey_ >= 0 ? b.hi[0] : b.lo[0], ex_ >= 0 ? b.lo[1] : b.hi[1]);
        const bool all_w = w_min >= -margin, none_w = w_max < -margin;
        const bool all_e = e_min >= -margin, none_e = e_max < -margin;
        const bool none = wide_ ? (none_w && none_e) : (none_w || none_e);
        const bool all = wide_ ? (all_w || all_e) : (all_w && all_e);
        if (none) return relation::outside;
        return z_inside && all ? relation::inside : relation::partial;
    }

    bool contains(const vec3& p) const noexcept {
        if (!(z_lo_ <= p[2] && p[2] <= z_hi_)) return false;
        if (all_lon_) return true;
        const bool in_w = west_side(p[1], p[0]) >= -margin;
        const bool in_e = east_side(p[0], p[1]) >= -margin;
        return wide_ ? (in_w || in_e) : (in_w && in_e);
    }

private:
    // (west direction) x (x, y): >= 0 on the eastern side of the west edge's meridian plane.
    double west_side(double y, double x) const noexcept { return wx_ * y - wy_ * x; }
    // (x, y) x (east direction): >= 0 on the western side of the east edge's meridian plane.
    double east_side(double x, double y) const noexcept { return x * ey_ - y * ex_; }

    double z_lo_, z_hi_;
    bool all_lon_, wide_;
    double wx_, wy_, ex_, ey_;
};

}  // namespace detail

/// Great-circle distance in metres between two locations (degrees) on the sphere of radius
/// earth_radius: earth_radius * 2 atan2(|a - b|, |a + b|) over their unit vectors. This is the
/// predicate geo::index::within and nearest agree with exactly. It is symmetric, 0 for equal
/// locations (and between any two points of one pole, or lon -180 and 180 at one latitude),
/// in [0, half_circumference], and within 1e-8 m of the exact spherical distance between
/// the given locations everywhere, antipodes included (the haversine formula, ill-conditioned
/// there, loses centimetres). Against Boost.Geometry's haversine with the same radius it
/// agrees to 1e-6 m + 1e-9 * distance, except within about 10 km of the antipode, where the
/// haversine's own error grows (to a few centimetres within 0.01 degree of it).
/// Throws std::invalid_argument if a longitude is not in [-180, 180] or a latitude not in
/// [-90, 90] (NaN included).
inline double distance(const lonlat& a, const lonlat& b) {
    detail::check_location(a.lon, a.lat, "first location's");
    detail::check_location(b.lon, b.lat, "second location's");
    return detail::metres_between(detail::unit_vector(a.lon, a.lat), detail::unit_vector(b.lon, b.lat));
}

/// A static index of locations on the Earth for exact radius (within), lon/lat box and
/// k-nearest queries. Built once from lon/lat points in degrees; a point's id is its
/// position in the input. Id is the unsigned integer id type, as for quoct::orthtree.
/// An empty index answers every query with nothing; duplicate points are all reported.
///
/// Queries are const and safe to run concurrently from any number of threads.
template <class Id = std::uint32_t>
class index {
public:
    using id_type = Id;                  ///< the point ids
    using neighbor_type = neighbor<Id>;  ///< one result of nearest()

    /// An empty index.
    index() = default;

    /// Builds from n locations at `points`, each read once into the index: lonlat, or any
    /// two-coordinate point type quoct::point_traits describes (std::array<double, 2>,
    /// double[2], quoct::point<double, 2>, your own struct), coordinate 0 the longitude and
    /// 1 the latitude, in degrees. Throws std::invalid_argument naming the first point whose
    /// longitude is not in [-180, 180] or latitude not in [-90, 90] (NaN and infinities
    /// included), or if the options are out of range; std::length_error if n points do not
    /// fit Id. Duplicate points are fine.
    template <class P>
    index(const P* points, std::size_t n, build_options options = {}) {
        build(quoct::detail::point_source<double, 2, P>{points, n}, options);
    }
    /// As above, for n locations stored flat: lon, lat, lon, lat, ... (n counts locations).
    index(const double* lon_lat, std::size_t n, build_options options = {}) {
        build(quoct::detail::flat_source<double, 2>{lon_lat, n}, options);
    }

    /// Builds from a contiguous range (std::vector, std::array, a C array) of any location
    /// type the pointer form takes. Throws as it.
    template <class Range, class = std::enable_if_t<quoct::detail::is_contiguous_range<Range>::value>>
    explicit index(const Range& points, build_options options = {}) {
        build(quoct::detail::range_source<double, 2>(points), options);
    }

    /// Number of points.
    std::size_t size() const noexcept { return where_.size(); }
    /// True when the index holds no points.
    bool empty() const noexcept { return where_.empty(); }
    /// The location of point `id` as given at build time. Precondition: id < size().
    const lonlat& location(Id id) const noexcept { return where_[id]; }
    /// The location of point `id` as given at build time. Throws std::out_of_range if
    /// id >= size().
    const lonlat& point(Id id) const {
        if (id >= where_.size()) throw std::out_of_range("quoct::geo: id " + std::to_string(id) + " is not a point of the index");
        return where_[id];
    }
    /// Bytes held: the lon/lat copy and the octree of unit vectors.
    std::size_t memory_bytes() const noexcept {
        return where_.memory_bytes() + tree_.memory_bytes();
    }

    // --- within: a spherical cap ---------------------------------------------------------

    /// Calls f(id) for every point whose distance() from (lon, lat) is at most `metres`, in no
    /// particular order. If f returns something convertible to bool, false stops the search;
    /// returns false if it was stopped. A radius of half_circumference or more (infinity
    /// included) takes every point; 0 takes the points at the centre exactly.
    /// Throws std::invalid_argument if lon is not in [-180, 180], lat not in [-90, 90], or
    /// metres is NaN or negative; passes on whatever f throws.
    template <class F>
    bool visit_within(double lon, double lat, double metres, F&& f) const {
        detail::check_location(lon, lat, "centre");
        detail::check_metres(metres);
        if (metres >= half_circumference) return visit_all(f);
        const detail::vec3 c = detail::unit_vector(lon, lat);
        return visit_within_unit(c, metres, [&](Id id, double) { return quoct::detail::go_on(f, id); });
    }
    /// Clears `out`, then fills it with the ids visit_within(lon, lat, metres) reports. Throws as it.
    void within(double lon, double lat, double metres, std::vector<Id>& out) const {
        out.clear();
        visit_within(lon, lat, metres, [&](Id id) { out.push_back(id); });
    }
    /// As within(lon, lat, metres, out), returning the ids.
    std::vector<Id> within(double lon, double lat, double metres) const {
        std::vector<Id> out;
        within(lon, lat, metres, out);
        return out;
    }
    /// Clears `out`, then fills it with the points within(lon, lat, metres) returns, each
    /// with its distance() from (lon, lat) in metres (the value compared with `metres`), in
    /// no particular order, or nearest first by (distance, id) with
    /// result_order::nearest_first. Throws as within.
    void within(double lon, double lat, double metres, std::vector<neighbor_type>& out,
                result_order order = result_order::any) const {
        out.clear();
        detail::check_location(lon, lat, "centre");
        detail::check_metres(metres);
        const detail::vec3 c = detail::unit_vector(lon, lat);
        visit_within_unit(c, metres, [&](Id id, double d) { out.push_back(neighbor_type{id, d}); });
        if (order == result_order::nearest_first)
            std::sort(out.begin(), out.end(), [](const neighbor_type& a, const neighbor_type& b) {
                return a.distance < b.distance || (a.distance == b.distance && a.id < b.id);
            });
    }
    /// Number of points within(lon, lat, metres) returns. Throws as it.
    std::size_t count_within(double lon, double lat, double metres) const {
        std::size_t n = 0;
        visit_within(lon, lat, metres, [&](Id) { ++n; });
        return n;
    }

    // --- in_box: a lon/lat box -----------------------------------------------------------

    /// Calls f(id) for every point with south <= lat <= north and west <= lon <= east, or,
    /// when west > east (a box across the antimeridian), lon >= west or lon <= east. Bounds
    /// are closed and compared with the lon/lat values given at build time, so lon 180 and
    /// lon -180 are different values here: (170, s, 180, n) does not take a point stored at
    /// lon -180, while (170, s, -180, n) takes both. west == east is one meridian;
    /// (-180, s, 180, n) is every longitude. Stops and returns as visit_within.
    /// Throws std::invalid_argument if a longitude is not in [-180, 180], a latitude not in
    /// [-90, 90], or south > north; passes on whatever f throws.
    template <class F>
    bool visit_in_box(double west, double south, double east, double north, F&& f) const {
        const double width = check_box(west, south, east, north);
        const bool wraps = west > east;
        const auto keep = [&](Id id) {
            const lonlat& p = where_[id];
            const bool lon_ok = wraps ? (p.lon >= west || p.lon <= east) : (west <= p.lon && p.lon <= east);
            return lon_ok && south <= p.lat && p.lat <= north ? quoct::detail::go_on(f, id) : true;
        };
        return visit_candidates(west, width, south, north, keep);
    }
    /// Clears `out`, then fills it with the ids visit_in_box reports. Throws as it.
    void in_box(double west, double south, double east, double north, std::vector<Id>& out) const {
        out.clear();
        visit_in_box(west, south, east, north, [&](Id id) { out.push_back(id); });
    }
    /// As in_box(west, south, east, north, out), returning the ids.
    std::vector<Id> in_box(double west, double south, double east, double north) const {
        std::vector<Id> out;
        in_box(west, south, east, north, out);
        return out;
    }
    /// Number of points in_box(west, south, east, north) returns. Throws as it.
    std::size_t count_in_box(double west, double south, double east, double north) const {
        std::size_t n = 0;
        visit_in_box(west, south, east, north, [&](Id) { ++n; });
        return n;
    }

    // --- nearest -------------------------------------------------------------------------

    /// The min(k, size()) points closest to (lon, lat) by distance(), closest first; equal
    /// distances are ordered by smaller id. This is exactly the first k of all points sorted
    /// by (distance(), id). Throws std::invalid_argument if k == 0, lon is not in
    /// [-180, 180] or lat not in [-90, 90].
    void nearest(double lon, double lat, std::size_t k, std::vector<neighbor_type>& out) const {
        nearest(lon, lat, k, std::numeric_limits<double>::infinity(), out);
    }
    /// Capped k-nearest: the k points closest to (lon, lat), closest first, ties by smaller
    /// id, among the points within(lon, lat, metres) returns; fewer when fewer lie within.
    /// A radius of half_circumference or more is nearest(lon, lat, k, out). Throws as
    /// nearest(lon, lat, k, out), and std::invalid_argument for a NaN or negative radius.
    void nearest(double lon, double lat, std::size_t k, double metres, std::vector<neighbor_type>& out) const;
    /// As nearest(lon, lat, k, out), returning the neighbours.
    std::vector<neighbor_type> nearest(double lon, double lat, std::size_t k) const {
        std::vector<neighbor_type> out;
        nearest(lon, lat, k, out);
        return out;
    }

    // --- advanced ------------------------------------------------------------------------

    /// Advanced, for exact filters of your own (quoct/geo/polygons.hpp's polygons use it): calls
    /// f(id) for a superset of the points of the lon/lat box whose longitudes run eastwards
    /// from `west` over `width` degrees (any finite west; width >= 360 is every longitude)
    /// and whose latitudes are in [south, north]: every such point, plus possibly points just
    /// outside (the region is grown by 1e-12 in unit-sphere coordinates, and is decided on
    /// the unit vectors, so lon 180 and -180 are alike here). Test each id yourself.
    /// Stops and returns as visit_within. Throws std::invalid_argument for a NaN or infinite
    /// west, a NaN or negative width, latitudes outside [-90, 90] or south > north.
    template <class F>
    bool visit_candidates(double west, double width, double south, double north, F&& f) const {
        if (!std::isfinite(west)) throw std::invalid_argument("quoct::geo: west longitude is not finite");
        if (!(width >= 0)) throw std::invalid_argument("quoct::geo: longitude width is NaN or negative");
        check_band(south, north);
        const detail::lonlat_region region(west, width, south, north);
        return tree_.visit_shape(region, [&](Id id, const detail::vec3&) { return quoct::detail::go_on(f, id); });
    }

private:
    template <class Source>
    void build(const Source& points, const build_options& options) {
        const std::size_t n = points.size();
        quoct::detail::section<lonlat> where;
        where.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const quoct::point<double, 2> p = points[i];
            where[i] = lonlat{p[0], p[1]};
            if (!detail::valid_lon(p[0]) || !detail::valid_lat(p[1]))
                throw std::invalid_argument("quoct::geo: point " + std::to_string(i) +
                                            " is not a longitude in [-180, 180] and a latitude in [-90, 90]");
        }
        std::vector<detail::vec3> unit(n);  // the tree keeps its own copy, in its order
        for (std::size_t i = 0; i < n; ++i) unit[i] = detail::unit_vector(where[i].lon, where[i].lat);
        tree_ = octree<double, Id>(unit.data(), n, options);  // checks the options and the size
        where_ = std::move(where);
    }

    // The search within `metres` (checked by the caller) of the unit vector c, calling
    // f(id, distance in metres) for each point found; the distance is computed from the
    // tree's own copy of the point's unit vector. From half_circumference on, every point.
    template <class F>
    bool visit_within_unit(const detail::vec3& c, double metres, F&& f) const {
        const bool all = metres >= half_circumference;
        const double chord = all ? 4.0 : chord_for(metres);  // 4: beyond every unit vector
        return tree_.visit(ball<double, 3>{c, chord}, [&](Id id, const detail::vec3& u) {
            const double d = detail::metres_between(c, u);
            return all || d <= metres ? quoct::detail::go_on(f, id, d) : true;
        });
    }

    // A chord radius no point within `metres` by distance() can exceed, rounding included:
    // the chord of the angle, grown by the margin.
    static double chord_for(double metres) noexcept {
        const double chord = 2 * std::sin(metres / earth_radius / 2);
        return chord * (1 + detail::margin) + detail::margin;
    }

    static void check_band(double south, double north) {
        if (!detail::valid_lat(south) || !detail::valid_lat(north))
            throw std::invalid_argument("quoct::geo: box latitude is not in [-90, 90]");
        if (south > north) throw std::invalid_argument("quoct::geo: box has south > north");
    }

    // Validates a box and returns the width of its longitude arc, eastwards from west.
    static double check_box(double west, double south, double east, double north) {
        if (!detail::valid_lon(west) || !detail::valid_lon(east))
            throw std::invalid_argument("quoct::geo: box longitude is not in [-180, 180]");
        check_band(south, north);
        return west <= east ? east - west : east - west + 360.0;
    }

    template <class F>
    bool visit_all(F& f) const {
        for (std::size_t i = 0; i < where_.size(); ++i)
            if (!quoct::detail::go_on(f, static_cast<Id>(i))) return false;
        return true;
    }

    // Its saved form (quoct/file.hpp reads and writes it through detail::file_codec): the
    // points under "lonlat", the tree under "tree.". (The tree's ids index the lon/lat
    // arrays: the tree's own checks bound them.)
    template <class>
    friend struct quoct::detail::file_codec;
    static std::string file_type_name() { return "geo::index<" + quoct::detail::id_name<Id>() + ">"; }
    template <class Writer>
    void write_sections(Writer& w, const std::string& prefix) const {
        w.add(prefix + "lonlat", where_.data(), where_.size());
        quoct::detail::file_codec<octree<double, Id>>::write(tree_, w, prefix + "tree.");
    }
    template <class Reader>
    static index read_sections(const Reader& r, const std::string& prefix) {
        index g;
        g.tree_ = quoct::detail::file_codec<octree<double, Id>>::read(r, prefix + "tree.");
        g.where_ = r.template get<lonlat>(prefix + "lonlat", g.tree_.size());
        return g;
    }

    // Sections, owned when built here or views of a mapped file (quoct/file.hpp).
    quoct::detail::section<lonlat> where_;        // by id, as given
    octree<double, Id> tree_;                     // over unit_vector(where_[id]), id by id
};

namespace detail {
// nearest()'s metric for the octree's search over unit vectors: distances in metres by
// distance()'s own formula. A box's lower bound comes from its chord distance, shrunk by
// the margin before the angle is taken (so rounding in either formula cannot make it
// exceed a point's distance()). Points whose chord is beyond what the set's bound allows
// (chord_for, grown by the margin) get infinity without the costly formula: they cannot
// enter the set.
template <class Set>
struct metres_metric {
    vec3 centre;
    const Set* set;
    mutable double limit_for = -1;   // the bound the chord limit was computed for
    mutable double chord_limit_sq = 0;

    double to_point(const vec3& q) const {
        if (set->bound() != limit_for) {
            limit_for = set->bound();
            const double m = limit_for / earth_radius;
            const double chord = m >= pi ? 2.0 : 2 * std::sin(m / 2);
            const double grown = chord * (1 + margin) + margin;
            chord_limit_sq = grown * grown;
        }
        if (quoct::distance_sq(q, centre) > chord_limit_sq) return std::numeric_limits<double>::infinity();
        return metres_between(centre, q);
    }
    /// The centre's unit vector: the search starts at the leaf whose Morton cell holds it.
    const vec3& origin() const noexcept { return centre; }
    double to_box(const box<double, 3>& b) const {
        const double chord = std::sqrt(quoct::distance_sq(centre, b)) * (1 - margin) - margin;
        if (!(chord > 0)) return 0;
        return earth_radius * 2 * std::asin(std::min(1.0, chord / 2)) * (1 - margin);
    }
};
}  // namespace detail

// One search over the octree of unit vectors, in metres, feeding the engine's result set
// (its limit the radius of a capped search).
template <class Id>
void index<Id>::nearest(double lon, double lat, std::size_t k, double metres, std::vector<neighbor_type>& out) const {
    detail::check_location(lon, lat, "centre");
    if (k == 0) throw std::invalid_argument("quoct::geo: nearest needs k >= 1");
    detail::check_metres(metres);
    // within()'s predicate is distance() <= metres, or every point from half_circumference
    // on; the set keeps exactly the candidates at most its limit.
    using set_type = quoct::detail::knn_set<double, Id, neighbor_type>;
    set_type set(out, std::min(k, std::max<std::size_t>(size(), 1)),
                 metres >= half_circumference ? std::numeric_limits<double>::infinity() : metres);
    const detail::metres_metric<set_type> metric{detail::unit_vector(lon, lat), &set};
    tree_.search_nearest(metric, set, [&set](Id id, double d) { set.offer(id, d); });
    set.finish();
}

}  // namespace geo
}  // namespace quoct

#endif  // QUOCT_GEO_INDEX_HPP
