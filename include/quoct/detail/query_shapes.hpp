// quoct internals: the query shapes the traversal understands. A shape says how a node's
// box relates to it (outside: prune; inside: take whole; partial: look closer) and whether
// one point belongs to it. Both answers come from the geometry kernel, so pruning and the
// per-point test can never disagree (see the exactness note in shapes.hpp).
#ifndef QUOCT_DETAIL_QUERY_SHAPES_HPP
#define QUOCT_DETAIL_QUERY_SHAPES_HPP

#include <algorithm>
#include <cstddef>
#include <limits>
#include <utility>

#include "../shapes.hpp"

namespace quoct {
namespace detail {

/// A closed ball with its radius squared once: radius_bound's sure bounds decide, and its
/// slow path the few points between them. Plain (made only by with_ball_query, for a
/// radius whose radius_bound is plain, as nearly every one is): the comparison in T alone.
template <class T, std::size_t D, bool Plain = false>
struct ball_query {
    point<T, D> center;
    radius_bound<T, D> bound;

    explicit ball_query(const ball<T, D>& s) : center(s.center), bound(s.radius) {}
    ball_query(const point<T, D>& c, const radius_bound<T, D>& b) : center(c), bound(b) {}

    quoct::relation classify(const box<T, D>& b) const noexcept {
        if (distance_sq(center, b) > bound.sure_out) return quoct::relation::outside;
        return farthest_distance_sq(center, b) <= bound.sure_in ? quoct::relation::inside : quoct::relation::partial;
    }
    bool contains(const point<T, D>& p) const {
        return bound.admits(distance_sq(p, center), point_offsets<T, D>{p, center});
    }
};

/// The plain form: the radius squared alone, as small as the loop it feeds.
template <class T, std::size_t D>
struct ball_query<T, D, true> {
    point<T, D> center;
    T radius_sq;

    ball_query(const point<T, D>& c, const radius_bound<T, D>& b) : center(c), radius_sq(b.r_sq) {}

    quoct::relation classify(const box<T, D>& b) const noexcept {
        if (distance_sq(center, b) > radius_sq) return quoct::relation::outside;
        return farthest_distance_sq(center, b) <= radius_sq ? quoct::relation::inside : quoct::relation::partial;
    }
    bool contains(const point<T, D>& p) const noexcept { return distance_sq(p, center) <= radius_sq; }
};

/// Calls f(query) with the ball_query for s, plain or not, and returns what f returns: the
/// one place a query ball picks its form, so the plain loop carries no test of the other.
template <class T, std::size_t D, class F>
decltype(auto) with_ball_query(const ball<T, D>& s, F&& f) {
    const radius_bound<T, D> bound(s.radius);
    if (bound.plain) return f(ball_query<T, D, true>(s.center, bound));
    return f(ball_query<T, D, false>(s.center, bound));
}

/// A closed box.
template <class T, std::size_t D>
struct box_query {
    box<T, D> region;

    explicit box_query(const box<T, D>& b) : region(b) {}

    quoct::relation classify(const box<T, D>& b) const noexcept {
        if (!intersects(region, b)) return quoct::relation::outside;
        return quoct::contains(region, b) ? quoct::relation::inside : quoct::relation::partial;
    }
    bool contains(const point<T, D>& p) const noexcept { return quoct::contains(region, p); }
};

/// The points outside a closed box (its complement).
template <class T, std::size_t D>
struct outside_box_query {
    box<T, D> region;

    explicit outside_box_query(const box<T, D>& b) : region(b) {}

    quoct::relation classify(const box<T, D>& b) const noexcept {
        if (quoct::contains(region, b)) return quoct::relation::outside;
        return intersects(region, b) ? quoct::relation::partial : quoct::relation::inside;
    }
    bool contains(const point<T, D>& p) const noexcept { return !quoct::contains(region, p); }
};

/// The box that holds every point: a query that enumerates an index.
template <class T, std::size_t D>
box<T, D> everything() noexcept {
    box<T, D> b;
    for (std::size_t a = 0; a < D; ++a) {
        b.lo[a] = -std::numeric_limits<T>::infinity();
        b.hi[a] = std::numeric_limits<T>::infinity();
    }
    return b;
}

/// The smallest box around the points (lo = +inf, hi = -inf when there are none).
template <class T, std::size_t D>
box<T, D> bounds_of(const point<T, D>* p, std::size_t n) noexcept {
    box<T, D> b = everything<T, D>();
    std::swap(b.lo, b.hi);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t a = 0; a < D; ++a) {
            b.lo[a] = std::min(b.lo[a], p[i][a]);
            b.hi[a] = std::max(b.hi[a], p[i][a]);
        }
    return b;
}

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_QUERY_SHAPES_HPP
