// quoct: the Minkowski distances p = 1 (taxicab, L1) and p = infinity (Chebyshev, L-inf)
// beside the Euclidean one, for radius queries and k nearest on an orthtree. Header-only,
// dependency-free.
//
//     const quoct::minkowski_ball<double, 3> b = quoct::make_minkowski_ball(c, 0.5, quoct::norm::l1);
//     tree.query_shape(b, ids);                   // also count_shape, visit_shape
//     auto nn = quoct::nearest(tree, c, 10, quoct::norm::linf);   // (id, distance), nearest first
//
// Exactness. One predicate per norm, computed in T, axis by axis in order 0..D-1:
//     l1:   |p_0 - c_0| + |p_1 - c_1| + ... + |p_{D-1} - c_{D-1}|  <=  r
//     linf: max over a of |p_a - c_a|                                <=  r
// each difference, its absolute value and each sum rounded to T (IEEE round to nearest,
// no x87 excess precision, no flush of subnormals to zero). Nothing is squared, so no ball
// answer depends on T's exponent range: a difference or a sum that overflows to infinity
// exceeds every finite r, as its unbounded value does, and a difference or a sum of
// subnormals is exact. A query answers exactly the points the predicate accepts, boundary
// included. Pruning is safe for the reason given in geometry.hpp: for a point inside a
// box, each axis term of the box's least distance comes from a difference no larger in
// magnitude than the point's, and rounding is monotone, so the box's rounded least
// distance (sum or maximum) never exceeds the point's, and its greatest never falls below
// it. k nearest orders by these rounded distances, then by id: exactly the first k of all
// points so sorted. Distances that overflow are all infinity there and tie, ordered by id
// (the unbounded values might order them otherwise).
// p = 2 is the tree's own query(ball) and nearest().
#ifndef QUOCT_MINKOWSKI_HPP
#define QUOCT_MINKOWSKI_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <vector>

#include "detail/knn.hpp"
#include "geometry.hpp"

namespace quoct {

/// The Minkowski norms besides the Euclidean: p = 1 and p = infinity.
enum class norm { l1, linf };

namespace detail {

/// The norm of D per-axis gaps gap(0), ..., gap(D - 1), each rounded in T: their sum in
/// axis order (l1) or their largest (linf).
template <class T, std::size_t D, class Gap>
T combine_gaps(norm n, Gap&& gap) noexcept {
    T d = 0;
    for (std::size_t i = 0; i < D; ++i) {
        const T g = gap(i);
        d = n == norm::l1 ? d + g : std::max(d, g);
    }
    return d;
}

}  // namespace detail

/// The distance of the predicate above between a and b, in T.
template <class T, std::size_t D>
T minkowski_distance(const point<T, D>& a, const point<T, D>& b, norm n) noexcept {
    return detail::combine_gaps<T, D>(n, [&](std::size_t i) { return std::abs(a[i] - b[i]); });
}

/// The least distance from c to a point of the closed box b (0 when c is inside), as the
/// predicate measures it: never more than the distance of any point of b, rounding included.
template <class T, std::size_t D>
T minkowski_distance(const point<T, D>& c, const box<T, D>& b, norm n) noexcept {
    return detail::combine_gaps<T, D>(n, [&](std::size_t i) {
        return c[i] < b.lo[i] ? b.lo[i] - c[i] : c[i] > b.hi[i] ? c[i] - b.hi[i] : T(0);
    });
}

/// The greatest distance from c to a point of the closed box b (its farthest corner):
/// never less than the distance of any point of b, rounding included.
template <class T, std::size_t D>
T minkowski_farthest(const point<T, D>& c, const box<T, D>& b, norm n) noexcept {
    return detail::combine_gaps<T, D>(
        n, [&](std::size_t i) { return std::max(std::abs(c[i] - b.lo[i]), std::abs(b.hi[i] - c[i])); });
}

/// A closed ball of a Minkowski norm: the points within `radius` of `center` by the
/// predicate above (for linf a cube, for l1 a cross-polytope). A shape for an orthtree's
/// query_shape, count_shape and visit_shape; make one with make_minkowski_ball, which checks it.
template <class T, std::size_t D>
struct minkowski_ball {
    point<T, D> center;
    T radius;
    norm kind;

    /// How the closed box b relates to the ball: outside only if no point of b is in it,
    /// inside only if every point is.
    relation classify(const box<T, D>& b) const noexcept {
        if (minkowski_distance(center, b, kind) > radius) return relation::outside;
        return minkowski_farthest(center, b, kind) <= radius ? relation::inside : relation::partial;
    }
    /// The predicate.
    bool contains(const point<T, D>& p) const noexcept { return minkowski_distance(p, center, kind) <= radius; }
};

/// A checked minkowski_ball. Throws std::invalid_argument if the centre has a NaN or
/// infinite coordinate or the radius is NaN or negative (an infinite radius takes every point).
template <class T, std::size_t D>
minkowski_ball<T, D> make_minkowski_ball(const point<T, D>& center, T radius, norm n) {
    for (std::size_t i = 0; i < D; ++i)
        if (!std::isfinite(center[i]))
            throw std::invalid_argument("quoct: minkowski ball centre has a NaN or infinite coordinate");
    if (!(radius >= 0)) throw std::invalid_argument("quoct: minkowski ball radius is NaN or negative");
    return {center, radius, n};
}

namespace detail {

/// The nearest metric (see orthtree::search_nearest) of a Minkowski norm.
template <class T, std::size_t D>
struct minkowski_metric {
    point<T, D> query;
    norm kind;
    T to_point(const point<T, D>& p) const noexcept { return minkowski_distance(p, query, kind); }
    T to_box(const box<T, D>& b) const noexcept { return minkowski_distance(query, b, kind); }
    const point<T, D>& origin() const noexcept { return query; }
};

}  // namespace detail

/// The min(k, tree.size()) points of `tree` nearest to p by norm n, within the closed
/// radius (the predicate above: distance <= radius), nearest first, ties by smaller id:
/// exactly the first k of all points within the radius sorted by (distance, id). Each
/// neighbor's second member holds the distance itself (not squared). Tree is an orthtree
/// (anything with search_nearest, point_type, id_type and scalar_type). Throws
/// std::invalid_argument if k == 0, p has a NaN or infinite coordinate, or the radius is
/// NaN or negative.
template <class Tree>
std::vector<neighbor<typename Tree::scalar_type, typename Tree::id_type>> nearest(
    const Tree& tree, const typename Tree::point_type& p, std::size_t k, norm n,
    typename Tree::scalar_type radius = std::numeric_limits<typename Tree::scalar_type>::infinity()) {
    using T = typename Tree::scalar_type;
    using Id = typename Tree::id_type;
    constexpr std::size_t D = Tree::dimension;
    if (k == 0) throw std::invalid_argument("quoct: k must be at least 1");
    const minkowski_ball<T, D> checked = make_minkowski_ball(p, radius, n);  // checks p and the radius
    std::vector<neighbor<T, Id>> out;
    detail::knn_set<T, Id> set(out, std::min(k, std::max<std::size_t>(tree.size(), 1)), checked.radius);
    const detail::minkowski_metric<T, D> metric{p, n};
    tree.search_nearest(metric, set, [&set](Id id, T d) { set.offer(id, d); });
    set.finish();
    return out;
}

}  // namespace quoct

#endif  // QUOCT_MINKOWSKI_HPP
