// quoct: periodic domains. A box [0, L_0) x ... x [0, L_{D-1}) whose axes wrap (a torus,
// like scipy's cKDTree(boxsize=...)), and an index over it whose radius queries, counts
// and pair searches (quoct/pairs.hpp) use the minimum-image distance, so neighbours are
// found across the wrap. Optional header; standard library only.
//
// The minimum-image distance is defined once, per axis, as
//     d = |p - q|;  if the axis wraps: d = min(d, L - d)
// evaluated in T exactly as written, and distance_sq sums d * d over axes 0..D-1 in order,
// as the core's distance_sq does. Every query here answers exactly by that predicate:
// the pruning shapes only ever bound it from the safe side (see periodic_ball_query).
// Each point counts once (its nearest image), whatever the radius.
#ifndef QUOCT_PERIODIC_HPP
#define QUOCT_PERIODIC_HPP

#include <array>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/knn.hpp"
#include "detail/callback.hpp"
#include "detail/pair_metric.hpp"
#include "detail/validate.hpp"
#include "concepts.hpp"
#include "shapes.hpp"
#include "minkowski.hpp"
#include "orthtree.hpp"

namespace quoct {

/// The domain: axis a wraps with period length[a] when length[a] > 0, and is an ordinary
/// open axis when length[a] == 0 (so a slab or a channel is a domain too).
template <class T, std::size_t D>
struct periodic_domain {
    std::array<T, D> length{};  ///< the period of each axis (> 0), or 0 for an open axis

    /// True when axis a wraps.
    bool wraps(std::size_t a) const noexcept { return length[a] > 0; }

    /// The minimum-image distance along axis a between coordinates x and y (>= 0), for x
    /// and y inside the domain.
    T axis_distance(std::size_t a, T x, T y) const noexcept {
        T d = std::abs(x - y);
        if (wraps(a)) {
            const T w = length[a] - d;
            d = w < d ? w : d;
        }
        return d;
    }
    /// axis_distance(a, x, y) with an unbounded exponent: the same value where it is finite
    /// (always on a wrapping axis), |x - y| where that overflows T.
    wide<T> wide_axis_distance(std::size_t a, T x, T y) const noexcept {
        return wraps(a) ? detail::to_wide(axis_distance(a, x, y)) : detail::wide_difference(x, y);
    }

    /// Squared minimum-image distance, rounded in T: the sum every periodic query compares
    /// with the radius squared, by the predicate of shapes.hpp (which decides exactly where
    /// the squares overflow or underflow).
    T distance_sq(const point<T, D>& p, const point<T, D>& q) const noexcept {
        T s = 0;
        for (std::size_t a = 0; a < D; ++a) {
            const T d = axis_distance(a, p[a], q[a]);
            s += d * d;
        }
        return s;
    }

    /// True when p is finite and 0 <= p[a] < length[a] on every wrapping axis.
    bool contains(const point<T, D>& p) const noexcept {
        if (!is_finite(p)) return false;
        for (std::size_t a = 0; a < D; ++a)
            if (wraps(a) && !(p[a] >= 0 && p[a] < length[a])) return false;
        return true;
    }

    /// p moved by whole periods into [0, length) on every wrapping axis (a coordinate that
    /// rounds to length itself becomes 0). p must be finite.
    point<T, D> wrap(point<T, D> p) const noexcept {
        for (std::size_t a = 0; a < D; ++a) {
            if (!wraps(a)) continue;
            T x = p[a] - length[a] * std::floor(p[a] / length[a]);
            if (!(x >= 0)) x = 0;
            if (x >= length[a]) x = 0;
            p[a] = x;
        }
        return p;
    }

    /// Throws std::invalid_argument unless every length is finite and >= 0.
    void validate() const {
        for (std::size_t a = 0; a < D; ++a)
            if (!(length[a] >= 0) || !std::isfinite(length[a]))
                throw std::invalid_argument("quoct: periodic_domain length on axis " + std::to_string(a) +
                                            " must be finite and >= 0");
    }
    /// Throws std::invalid_argument (saying `what`) unless contains(p).
    void check(const point<T, D>& p, const char* what) const {
        if (!contains(p))
            throw std::invalid_argument(std::string("quoct: ") + what +
                                        " is outside the periodic domain [0, L) or not finite");
    }
};

namespace detail {
/// Cuts [lo, hi] to [lo, hi] n [0, L] on a wrapping axis, where every stored coordinate
/// lies; false when nothing is left (no point of the domain in the box).
template <class T>
bool cut_to_period(T& lo, T& hi, T L) noexcept {
    lo = lo > 0 ? lo : T(0);
    hi = hi < L ? hi : L;
    return lo <= hi;
}

/// Bounds of the minimum-image gap along axis a from c (inside the domain) to the points of
/// the domain in [lo, hi]: near <= d(p) <= far for each such p, as rounded (the argument
/// at periodic_ball_query). False when no point of the domain is in [lo, hi].
template <class T, std::size_t D>
bool periodic_axis_bounds(const periodic_domain<T, D>& domain, std::size_t a, T c, T lo, T hi, T& near, T& far) noexcept {
    if (domain.wraps(a) && !cut_to_period(lo, hi, domain.length[a])) return false;
    T g = 0;
    if (c < lo) g = lo - c;
    else if (c > hi) g = c - hi;
    const T x = std::abs(lo - c), y = std::abs(hi - c);
    T f = x > y ? x : y;
    if (domain.wraps(a)) {
        const T wg = domain.length[a] - f, wf = domain.length[a] - g;
        g = wg < g ? wg : g;
        f = wf < f ? wf : f;
    }
    near = g > 0 ? g : T(0);
    far = f;
    return true;
}
}  // namespace detail

/// A closed ball under the minimum-image distance, as a shape for query_shape /
/// visit_shape / count_shape: contains(p) is domain.distance_sq(p, center) <= r * r by the
/// predicate of shapes.hpp (exact where the squares overflow or underflow).
///
/// classify bounds that from both sides per axis, for the points p of the domain in any
/// box [lo, hi] (a tree's node boxes are rounded outwards, so they may reach past [0, L)
/// or to infinity). On a wrapping axis the box is first cut to [0, L], which keeps every
/// such p and puts |lo - c| and |hi - c| within L. With g = the direct gap from the centre
/// to [lo, hi] and f = the larger of |lo - c| and |hi - c| (both as rounded), every p has
/// g <= |p - c| <= f as rounded, since rounding is monotone; so on a wrapping axis
/// 0 <= min(g, L - f) <= d(p) and d(p) <= min(f, L - g), and squares and the sum in axis
/// order keep the order. So outside and inside are never claimed wrongly (the argument of
/// shapes.hpp).
template <class T, std::size_t D>
struct periodic_ball_query {
    periodic_domain<T, D> domain;      ///< the domain
    point<T, D> center;                ///< the centre, inside the domain
    detail::radius_bound<T, D> bound;  ///< the radius, as the predicate compares it (made from r)

    /// The ball of radius r >= 0 about center, a point of domain (a periodic_index's
    /// shape(ball) checks both; here they are the caller's to check).
    periodic_ball_query(const periodic_domain<T, D>& domain_, const point<T, D>& center_, T r)
        : periodic_ball_query(domain_, center_, detail::radius_bound<T, D>(r)) {}
    /// \cond QUOCT_INTERNAL
    periodic_ball_query(const periodic_domain<T, D>& domain_, const point<T, D>& center_,
                        const detail::radius_bound<T, D>& bound_)
        : domain(domain_), center(center_), bound(bound_) {}
    /// \endcond

    /// How the closed box b relates to the ball: outside only if no point of the domain in
    /// b is in it, inside only if every one is.
    relation classify(const box<T, D>& b) const noexcept {
        T near = 0, far = 0;
        for (std::size_t a = 0; a < D; ++a) {
            T g, f;
            if (!detail::periodic_axis_bounds(domain, a, center[a], b.lo[a], b.hi[a], g, f)) return relation::outside;
            near += g * g;
            far += f * f;
        }
        return bound.classify(near, far);
    }
    /// The predicate: domain.distance_sq(p, center) within the radius.
    bool contains(const point<T, D>& p) const {
        return bound.admits(domain.distance_sq(p, center),
                            [&](std::size_t a) { return domain.wide_axis_distance(a, p[a], center[a]); });
    }
};

/// A closed box in a periodic domain, as a shape for query_shape / count_shape /
/// visit_shape, and what a periodic_index's box queries use. On an open axis (and on a
/// wrapping axis with lo <= hi) a point is in when lo <= p <= hi; on a wrapping axis with
/// lo > hi the box runs across the period's end: p >= lo or p <= hi (as geo::index's boxes
/// across the antimeridian). A point at 0 on a wrapping axis is also at L (its image), so a
/// box reaching L takes it. The comparisons are the whole predicate: exact, no arithmetic.
/// On a wrapping axis both bounds must lie in [0, L] (validate()).
template <class T, std::size_t D>
struct periodic_box_query {
    periodic_domain<T, D> domain;  ///< the domain
    box<T, D> bounds;              ///< lo and hi per axis; lo > hi runs across a wrapping axis's end

    /// Throws std::invalid_argument for a NaN bound, lo > hi on an open axis, or a bound
    /// outside [0, L] on a wrapping axis.
    void validate() const {
        for (std::size_t a = 0; a < D; ++a) {
            const T lo = bounds.lo[a], hi = bounds.hi[a];
            if (std::isnan(lo) || std::isnan(hi))
                throw std::invalid_argument("quoct: box bound on axis " + std::to_string(a) + " is NaN");
            if (!domain.wraps(a)) {
                if (lo > hi)
                    throw std::invalid_argument("quoct: box lo > hi on axis " + std::to_string(a) + ", which does not wrap");
            } else if (!(lo >= 0 && lo <= domain.length[a] && hi >= 0 && hi <= domain.length[a])) {
                throw std::invalid_argument("quoct: box bounds on wrapping axis " + std::to_string(a) +
                                            " must lie in [0, L] (a box across the period's end has lo > hi)");
            }
        }
    }
    /// How the closed box b relates to this one, per axis: outside when no coordinate of b
    /// on the axis is in (a node reaching 0 counts as reaching L), inside when every one is.
    relation classify(const box<T, D>& b) const noexcept {
        bool inside = true;
        for (std::size_t a = 0; a < D; ++a) {
            const T lo = bounds.lo[a], hi = bounds.hi[a];
            const bool meets = lo <= hi ? !(b.hi[a] < lo || b.lo[a] > hi) : !(b.hi[a] < lo && b.lo[a] > hi);
            if (!meets && !(domain.wraps(a) && b.lo[a] <= 0 && b.hi[a] >= 0 && axis_in(a, domain.length[a])))
                return relation::outside;
            inside = inside && (lo <= hi ? lo <= b.lo[a] && b.hi[a] <= hi : b.lo[a] >= lo || b.hi[a] <= hi);
        }
        return inside ? relation::inside : relation::partial;
    }
    /// The predicate: on every axis axis_in(p[a]), or, on a wrapping axis, p[a] == 0 and
    /// axis_in(L) (a point at 0 is also at L, its image).
    bool contains(const point<T, D>& p) const noexcept {
        for (std::size_t a = 0; a < D; ++a)
            if (!axis_in(a, p[a]) && !(domain.wraps(a) && p[a] == 0 && axis_in(a, domain.length[a]))) return false;
        return true;
    }
    /// True when x is within the bounds on axis a: lo <= x <= hi, or, across the end
    /// (lo > hi), x >= lo or x <= hi.
    bool axis_in(std::size_t a, T x) const noexcept {
        const T lo = bounds.lo[a], hi = bounds.hi[a];
        return lo <= hi ? lo <= x && x <= hi : x >= lo || x <= hi;
    }
};

namespace detail {

/// The points within minimum-image distance r of a box inside the domain: a superset of
/// the points q with distance_sq(p, q) <= r^2 for some p in the box (per axis, the gap
/// from q to [lo, hi] is min(direct gap, L - farther end), each no larger than the
/// corresponding term for any p of the box, by monotone rounding). classify takes any
/// node box, cut to [0, L] on wrapping axes first as periodic_ball_query does, so that
/// L - f never goes negative.
template <class T, std::size_t D>
struct periodic_near_box {
    periodic_domain<T, D> domain;
    box<T, D> region;
    T sure_in;   // radius_bound's: a superset of the points within the radius
    T sure_out;

    T gap(std::size_t a, T q) const noexcept {
        T g = 0;
        if (q < region.lo[a]) g = region.lo[a] - q;
        else if (q > region.hi[a]) g = q - region.hi[a];
        if (domain.wraps(a)) {
            const T x = std::abs(q - region.lo[a]), y = std::abs(q - region.hi[a]);
            const T w = domain.length[a] - (x > y ? x : y);
            g = w < g ? w : g;
        }
        return g;
    }
    relation classify(const box<T, D>& b) const noexcept {
        T near = 0, far = 0;
        for (std::size_t a = 0; a < D; ++a) {
            T lo = b.lo[a], hi = b.hi[a];
            if (domain.wraps(a) && !detail::cut_to_period(lo, hi, domain.length[a])) return relation::outside;
            T g = 0;
            if (hi < region.lo[a]) g = region.lo[a] - hi;
            else if (lo > region.hi[a]) g = lo - region.hi[a];
            if (domain.wraps(a)) {
                T f = 0;
                for (T q : {lo, hi})
                    for (T e : {region.lo[a], region.hi[a]}) {
                        const T d = std::abs(q - e);
                        f = d > f ? d : f;
                    }
                const T w = domain.length[a] - f;
                g = w < g ? w : g;
            }
            near += g * g;
            const T h = reach_beyond(region.lo[a], region.hi[a], lo, hi);  // the farthest face beyond region's
            far += h * h;
        }
        if (near > sure_out) return relation::outside;
        return far <= sure_in ? relation::inside : relation::partial;
    }
    bool contains(const point<T, D>& q) const noexcept {
        T s = 0;
        for (std::size_t a = 0; a < D; ++a) {
            const T g = gap(a, q[a]);
            s += g * g;
        }
        return s <= sure_out;
    }
};

/// nearest()'s metric under the minimum image: to_point is domain.distance_sq, and to_box
/// sums, per axis, the smallest gap any point of the box can have: min(direct gap,
/// L - farther end) on a wrapping axis, as in periodic_ball_query's lower bound, clamped
/// at 0 (a node box rounded outwards may be a little wider than the period, and a
/// negative gap squared would overstate it).
template <class T, std::size_t D>
struct periodic_nearest_metric {
    periodic_domain<T, D> domain;
    point<T, D> center;

    T to_point(const point<T, D>& p) const noexcept { return domain.distance_sq(p, center); }
    /// The query (inside the domain): the search starts at the leaf whose cell holds it.
    const point<T, D>& origin() const noexcept { return center; }
    T to_box(const box<T, D>& b) const noexcept {
        T near = 0;
        for (std::size_t a = 0; a < D; ++a) {
            const T c = center[a];
            T g = 0;
            if (c < b.lo[a]) g = b.lo[a] - c;
            else if (c > b.hi[a]) g = c - b.hi[a];
            if (domain.wraps(a)) {
                const T x = std::abs(b.lo[a] - c), y = std::abs(b.hi[a] - c);
                const T w = domain.length[a] - (x > y ? x : y);
                g = w < g ? w : g;
                g = g > 0 ? g : T(0);
            }
            near += g * g;
        }
        return near;
    }
};


}  // namespace detail

/// The pair searches' view of a periodic index, the PairMetric (docs/extending/pair-metric.md)
/// that periodic_index::metric() returns: the minimum-image distance of domain.
template <class T, std::size_t D>
struct periodic_pair_metric {
    periodic_domain<T, D> domain;  ///< the domain

    /// domain.distance_sq(a, b).
    T distance_sq(const point<T, D>& a, const point<T, D>& b) const noexcept { return domain.distance_sq(a, b); }
    /// domain.axis_distance(a, x, y).
    T axis_distance(std::size_t a, T x, T y) const noexcept { return domain.axis_distance(a, x, y); }
    /// domain.wide_axis_distance(a, x, y).
    wide<T> wide_axis_distance(std::size_t a, T x, T y) const noexcept { return domain.wide_axis_distance(a, x, y); }
    /// Calls f(id, point) for a superset of index's points within r (minimum image) of some
    /// point of region, while f returns true; false if f stopped it.
    template <class Index, class F>
    bool visit_near(const Index& index, const box<T, D>& region, T r, F&& f) const {
        const detail::radius_bound<T, D> bound(r);
        return index.visit_shape(detail::periodic_near_box<T, D>{domain, region, bound.sure_in, bound.sure_out}, f);
    }
};

/// An index over a periodic domain. Index is the index underneath: quoct::orthtree (built
/// once) or quoct::dynamic_orthtree (insert / erase / move, forwarded after the domain
/// check). Every point must lie in the domain: 0 <= x < L on each wrapping axis (use
/// domain().wrap(p) first); points outside are rejected with std::invalid_argument.
/// Queries are const and thread-safe as the underlying index's are; they are
/// point_queries'. Ball queries, counts, pair searches and nearest use the minimum-image
/// distance; a box query takes a box whose bounds lie in [0, L] on each wrapping axis, and
/// runs across the period's end on an axis where lo > hi (periodic_box_query). base() is
/// the index underneath, which knows nothing of the wrap.
template <class Index>
class periodic_index : public point_queries<periodic_index<Index>, typename Index::scalar_type, Index::dimension,
                                            typename Index::id_type> {
public:
    /// @name Types
    /// The index's scalar, id, point, box, ball, domain and neighbour types, and its dimension.
    ///@{
    using scalar_type = typename Index::scalar_type;  ///< the coordinate type
    using id_type = typename Index::id_type;  ///< the point ids
    static constexpr std::size_t dimension = Index::dimension;  ///< the number of coordinates
    using point_type = quoct::point<scalar_type, dimension>;  ///< a point
    using box_type = quoct::box<scalar_type, dimension>;  ///< a closed box
    using ball_type = quoct::ball<scalar_type, dimension>;  ///< a closed ball
    using domain_type = periodic_domain<scalar_type, dimension>;  ///< the periodic domain
    using neighbor_type = quoct::neighbor<scalar_type, id_type>;  ///< one result of nearest()
    ///@}
    /// Whether quoct::open maps this index's file (as its base index's), or loads it.
    static constexpr bool file_mappable = detail::file_mappable<Index>::value;

private:
    using T = scalar_type;
    using Id = id_type;
    static constexpr std::size_t D = dimension;

public:

    /// An empty index over the domain. Throws std::invalid_argument for a bad domain.
    explicit periodic_index(const domain_type& domain) : domain_(checked(domain)) {}

    /// Indexes n points (ids 0..n-1) of any point type Index takes (quoct::point<T, D>,
    /// std::array<S, D>, S[D], a type described by quoct::point_traits); extra arguments go
    /// to Index's constructor (build or dynamic options). Throws std::invalid_argument for a
    /// bad domain or a point outside it (naming the first such point), and as Index's
    /// constructor.
    template <class P, class... Args>
    periodic_index(const domain_type& domain, const P* points, std::size_t n, Args&&... args)
        : domain_(checked(domain)),
          base_(check_all(domain, detail::point_source<T, D, P>{points, n}, points), n, std::forward<Args>(args)...) {}

    /// As above, for n points stored flat: coordinate a of point i at coords[i * D + a].
    template <class... Args>
    periodic_index(const domain_type& domain, const T* coords, std::size_t n, Args&&... args)
        : domain_(checked(domain)),
          base_(check_all(domain, detail::flat_source<T, D>{coords, n}, coords), n, std::forward<Args>(args)...) {}

    /// As above, for a contiguous range of points.
    template <class Range, class... Args, class = std::enable_if_t<detail::is_contiguous_range<Range>::value>>
    periodic_index(const domain_type& domain, const Range& points, Args&&... args)
        : periodic_index(domain, detail::range_source<T, D>(points).data, std::size(points),
                         std::forward<Args>(args)...) {}

    /// The domain.
    const domain_type& domain() const noexcept { return domain_; }
    /// The index underneath (plain coordinates: its queries do not wrap).
    const Index& base() const noexcept { return base_; }
    /// For the pair searches: the minimum-image metric.
    periodic_pair_metric<T, D> metric() const noexcept { return {domain_}; }
    /// Number of points.
    std::size_t size() const noexcept { return base_.size(); }
    /// True when there are none.
    bool empty() const noexcept { return base_.empty(); }
    /// Every id is below this.
    std::size_t id_bound() const noexcept { return detail::id_bound(base_); }

    // (The ball, box and nearest queries come from point_queries, under the minimum image:
    // balls of minimum-image distance, boxes as periodic_box_query, through the primitives
    // below and query_shape, count_shape and visit_shape.)
    friend class point_queries<periodic_index, scalar_type, dimension, id_type>;

    /// Advanced: query() for a shape of your own over the stored (unwrapped) coordinates
    /// (periodic_ball_query, periodic_box_query, or one with the contract of
    /// orthtree::query_shape).
    template <class Shape>
    void query_shape(const Shape& s, std::vector<Id>& out) const {
        base_.query_shape(s, out);
    }
    /// Advanced: count() for a shape of your own (see query_shape).
    template <class Shape>
    std::size_t count_shape(const Shape& s) const {
        return base_.count_shape(s);
    }
    /// Advanced: the nearest search of the index underneath (orthtree::search_nearest, with
    /// its contract) over the stored (unwrapped) coordinates: a metric that should wrap must
    /// say so itself, as nearest()'s minimum-image metric does.
    template <class Metric, class Set, class Sink>
    void search_nearest(const Metric& metric, const Set& set, Sink&& sink) const {
        base_.search_nearest(metric, set, sink);
    }
    /// Advanced: a shape of your own over the stored (unwrapped) coordinates.
    template <class Shape, class F>
    bool visit_shape(const Shape& s, F&& f) const {
        return base_.visit_shape(s, f);
    }

    // --- mutation, when Index is a dynamic_orthtree (not thread-safe) -------------------

    // (Templates, so that they exist only when Index has them.)

    /// Adds a point (which must be in the domain) and returns its id. Throws
    /// std::invalid_argument outside the domain, and what Index::insert throws
    /// (std::length_error, std::bad_alloc); the index is then unchanged.
    template <class I = Index>
    auto insert(const point_type& p) -> decltype(std::declval<I&>().insert(p)) {
        domain_.check(p, "inserted point");
        return base_.insert(p);
    }
    /// Removes a point; false if the id is not live. Does not throw.
    template <class I = Index>
    auto erase(Id id) -> decltype(std::declval<I&>().erase(id)) {
        return base_.erase(id);
    }
    /// Moves a point to p (in the domain). Throws std::out_of_range for an id that is not
    /// live, std::invalid_argument outside the domain and std::bad_alloc when memory runs
    /// out; the index is then unchanged.
    template <class I = Index>
    auto move(Id id, const point_type& p) -> decltype(std::declval<I&>().move(id, p)) {
        if (!base_.contains(id)) throw std::out_of_range("quoct: id " + std::to_string(id) + " is not a live point");
        domain_.check(p, "moved-to point");
        base_.move(id, p);
    }
    /// Moves every live point at once, as dynamic_orthtree::move_all (about one rebuild,
    /// whatever moved): the point with id i goes to points[i], for n == id_bound() points
    /// given by id (the entries of erased ids are not read). Every live point's new place
    /// must lie in the domain: wrap it first (domain().wrap(p)). Throws
    /// std::invalid_argument if n != id_bound() or a live point's new place is outside the
    /// domain or not finite (naming its id), and std::bad_alloc when memory runs out; the
    /// index is then unchanged.
    template <class I = Index>
    auto move_all(const point_type* points, std::size_t n) -> decltype(std::declval<I&>().move_all(points, n)) {
        if (n == base_.id_bound())
            for (std::size_t id = 0; id < n; ++id)
                if (base_.contains(static_cast<Id>(id)) && !domain_.contains(points[id]))
                    throw std::invalid_argument("quoct: move_all: the new place of id " + std::to_string(id) +
                                                " is outside the periodic domain [0, L) or not finite");
        base_.move_all(points, n);  // checks n
    }
    /// As move_all(points.data(), points.size()).
    template <class I = Index>
    auto move_all(const std::vector<point_type>& points)
        -> decltype(std::declval<I&>().move_all(points.data(), points.size())) {
        move_all(points.data(), points.size());
    }
    /// True when id names a live point.
    template <class I = Index>
    auto contains(Id id) const -> decltype(std::declval<const I&>().contains(id)) {
        return base_.contains(id);
    }

    /// The point with this id, as stored. Throws std::out_of_range if it is not a (live)
    /// point; over an orthtree the first call builds its id map (see orthtree::point).
    point_type point(Id id) const { return base_.point(id); }

private:
    static const domain_type& checked(const domain_type& d) {
        d.validate();
        return d;
    }
    // Checks every point of `source` and returns `pass`, the same points for Index.
    template <class Source, class Pass>
    static Pass check_all(const domain_type& d, const Source& source, Pass pass) {
        for (std::size_t i = 0; i < source.size(); ++i)
            if (!d.contains(source[i]))
                throw std::invalid_argument("quoct: point " + std::to_string(i) +
                                            " is outside the periodic domain [0, L) or not finite");
        return pass;
    }
    periodic_ball_query<T, D> shape(const ball_type& s) const {
        detail::check_radius(s.radius, "ball");
        domain_.check(s.center, "ball centre");
        return {domain_, s.center, s.radius};
    }

    // --- point_queries' primitives
    template <class F>
    decltype(auto) with_ball(const ball_type& s, F&& f) const {
        return f(shape(s));
    }
    template <class F>
    decltype(auto) with_box(const box_type& b, F&& f) const {
        const periodic_box_query<T, D> q{domain_, b};
        q.validate();
        return f(q);
    }
    T result_distance_sq(const point_type& p, const point_type& center) const noexcept {
        return domain_.distance_sq(p, center);
    }
    void capped_nearest(const point_type& p, std::size_t k, T radius, std::vector<neighbor_type>& out) const {
        detail::check_k(k);
        detail::check_radius(radius, "nearest");
        domain_.check(p, "nearest query point");
        detail::run_nearest_sq<T, D, Id>(
            out, k, size(), radius,
            [&](const auto& set, auto&& sink) {
                base_.search_nearest(detail::periodic_nearest_metric<T, D>{domain_, p}, set, sink);
            },
            [&](Id id) { return base_.point(id) == p; },
            [&](T upper, auto&& f) {
                base_.visit_shape(periodic_ball_query<T, D>{domain_, p, detail::radius_bound<T, D>::at_most(upper)}, f);
            },
            [&](const point_type& q) {
                return [this, q, &p](std::size_t a) { return domain_.wide_axis_distance(a, q[a], p[a]); };
            });
    }

    // Its saved form (quoct/file.hpp reads and writes it through detail::file_codec): the
    // domain's lengths under "domain", checked as the constructor checks them, and the base
    // index under "base.".
    template <class>
    friend struct detail::file_codec;
    template <class Base = Index>  // (a template: a class instantiated whole needs no file code)
    static std::string file_type_name() {
        return "periodic_index<" + detail::file_codec<Base>::type_name() + ">";
    }
    template <class Writer>
    void write_sections(Writer& w, const std::string& prefix) const {
        w.add(prefix + "domain", domain_.length.data(), D);
        detail::file_codec<Index>::write(base_, w, prefix + "base.");
    }
    template <class Reader>
    static periodic_index read_sections(const Reader& r, const std::string& prefix) {
        domain_type domain;
        const detail::section<T> length = r.template get<T>(prefix + "domain", D);
        for (std::size_t a = 0; a < D; ++a) domain.length[a] = length[a];
        try {
            domain.validate();
        } catch (const std::invalid_argument& e) {
            r.fail(std::string("damaged: ") + e.what());
        }
        periodic_index p(domain);
        p.base_ = detail::file_codec<Index>::read(r, prefix + "base.");
        return p;
    }

    domain_type domain_;
    Index base_;
};

/// A closed ball of a Minkowski norm (minkowski.hpp) under the minimum image: the points p
/// of the domain whose per-axis minimum-image gaps domain.axis_distance(a, p[a], center[a]),
/// combined by the norm, are within the radius, by the predicate of minkowski.hpp (for l2
/// exactly periodic_ball_query's). A shape for periodic_index::visit_shape, or for the base
/// index's query_shape and count_shape; make one with make_periodic_minkowski_ball. classify
/// bounds the gaps per axis as periodic_ball_query does, with the norm's safe-side terms.
template <class T, std::size_t D>
struct periodic_minkowski_ball {
    periodic_domain<T, D> domain;  ///< the domain
    point<T, D> center;            ///< the centre, inside the domain
    T radius;                      ///< the radius, >= 0
    norm kind;                     ///< the norm

    /// How the closed box b relates to the ball: outside only if no point of the domain in
    /// b is in it, inside only if every one is.
    relation classify(const box<T, D>& b) const noexcept {
        if (kind == norm::l2)
            return periodic_ball_query<T, D>{domain, center, radius}.classify(b);
        const detail::norm_terms<T> terms(kind);
        const T bound = terms.bound_of(radius);
        T near = 0, far = 0;
        for (std::size_t a = 0; a < D; ++a) {
            T g, f;
            if (!detail::periodic_axis_bounds(domain, a, center[a], b.lo[a], b.hi[a], g, f)) return relation::outside;
            near = terms.combine(near, terms.term_below(g));
            far = terms.combine(far, terms.term_above(f));
        }
        if (near > bound) return relation::outside;
        return far <= bound ? relation::inside : relation::partial;
    }
    /// The predicate of the norm on the minimum-image gaps.
    bool contains(const point<T, D>& p) const {
        if (kind == norm::l2) return periodic_ball_query<T, D>{domain, center, radius}.contains(p);
        const detail::norm_terms<T> terms(kind);
        return terms.template sum<D>([&](std::size_t a) { return domain.axis_distance(a, p[a], center[a]); }) <=
               terms.bound_of(radius);
    }
};

/// A checked periodic_minkowski_ball for `index`: throws std::invalid_argument if the
/// centre is outside the domain (or not finite) or the radius is NaN or negative.
template <class Index>
periodic_minkowski_ball<typename Index::scalar_type, Index::dimension> make_periodic_minkowski_ball(
    const periodic_index<Index>& index, const typename periodic_index<Index>::point_type& center,
    typename Index::scalar_type radius, const norm& n) {
    detail::check_radius(radius, "ball");
    index.domain().check(center, "ball centre");
    return {index.domain(), center, radius, n};
}

namespace detail {

/// nearest()'s metric of a Minkowski norm other than l2 under the minimum image: values
/// are the combined per-axis minimum-image terms; to_box combines periodic_axis_bounds'
/// lower gaps with the safe-side terms (the nodes' boxes are not cut, as in
/// periodic_nearest_metric, so a gap is clamped at 0).
template <class T, std::size_t D>
struct periodic_minkowski_nearest_metric {
    periodic_domain<T, D> domain;
    point<T, D> center;
    norm_terms<T> terms;

    T to_point(const point<T, D>& p) const noexcept {
        return terms.template sum<D>([&](std::size_t a) { return domain.axis_distance(a, p[a], center[a]); });
    }
    const point<T, D>& origin() const noexcept { return center; }
    T to_box(const box<T, D>& b) const noexcept {
        T near = 0;
        for (std::size_t a = 0; a < D; ++a) {
            const T c = center[a];
            T g = unsigned_axis_gap(c, b.lo[a], b.hi[a]);
            if (domain.wraps(a)) {
                const T x = std::abs(b.lo[a] - c), y = std::abs(b.hi[a] - c);
                const T w = domain.length[a] - (x > y ? x : y);
                g = w < g ? w : g;
                g = g > 0 ? g : T(0);
            }
            near = terms.combine(near, terms.term_below(g));
        }
        return near;
    }
};

}  // namespace detail

/// k nearest by a Minkowski norm under the minimum image: as quoct::nearest(tree, p, k, n,
/// radius) of minkowski.hpp, with the gaps of periodic_minkowski_ball. p must be inside the
/// domain. Throws std::invalid_argument if k == 0, p is outside the domain or not finite,
/// or the radius is NaN or negative.
template <class Index>
std::vector<neighbor<typename Index::scalar_type, typename Index::id_type>> nearest(
    const periodic_index<Index>& index, const typename periodic_index<Index>::point_type& p, std::size_t k,
    const norm& n, typename Index::scalar_type radius = std::numeric_limits<typename Index::scalar_type>::infinity()) {
    using T = typename Index::scalar_type;
    using Id = typename Index::id_type;
    constexpr std::size_t D = Index::dimension;
    detail::check_norm_nearest(p, k, radius);
    index.domain().check(p, "nearest query point");
    if (n == norm::l2) {
        std::vector<neighbor<T, Id>> out;
        index.nearest(p, k, radius, out);
        for (auto& x : out) x.distance_sq = std::sqrt(x.distance_sq);
        return out;
    }
    return detail::nearest_by_norm<T, Id>(k, index.size(), n, radius, [&](const auto& terms, auto& set, auto&& sink) {
        index.base().search_nearest(detail::periodic_minkowski_nearest_metric<T, D>{index.domain(), p, terms}, set, sink);
    });
}

/// A periodic index built once: periodic_index over quoct::orthtree.
template <class T, std::size_t D, class Id = std::uint32_t>
using periodic_orthtree = periodic_index<orthtree<T, D, Id>>;

}  // namespace quoct

#endif  // QUOCT_PERIODIC_HPP
