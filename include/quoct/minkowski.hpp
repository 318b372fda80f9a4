// quoct: the Minkowski distances (L_p norms, p >= 1) for radius queries and k nearest on an
// orthtree: p = 1 (taxicab), p = infinity (Chebyshev), any finite p >= 1, and p = 2 (the
// tree's own Euclidean predicate, through the same calls). Header-only, dependency-free.
//
//     const auto b = quoct::make_minkowski_ball(c, 0.5, quoct::norm::l1);
//     tree.query_shape(b, ids);                   // also count_shape, visit_shape
//     auto nn = quoct::nearest(tree, c, 10, quoct::norm::linf);      // (id, distance), nearest first
//     auto n3 = quoct::nearest(tree, c, 10, quoct::norm::minkowski(3));
//
// Exactness. One predicate per norm, on the per-axis gaps g_a = |p_a - c_a| rounded to T,
// combined over the axes in order 0..D-1:
//     l1:   g_0 + g_1 + ... + g_{D-1}                 <=  r
//     linf: max over a of g_a                         <=  r
//     lp:   pow(g_0, p) + ... + pow(g_{D-1}, p)       <=  pow(r, p)        (finite p, not 1 or 2)
//     l2:   the tree's own ball predicate (shapes.hpp): sum of g_a * g_a <= r * r, with no
//           overflow or underflow, exactly what query(ball) answers
// each difference, power and sum rounded to T (IEEE round to nearest, no x87 excess
// precision, no flush of subnormals to zero; std::pow of T, and p itself rounded to T).
// For l1 and linf nothing is squared or raised, so no answer depends on T's exponent
// range: a gap or a sum that overflows to infinity exceeds every finite r, as its unbounded
// value does. For lp the predicate is the one written, in T: a power or a sum that
// overflows is infinity (outside unless pow(r, p) overflows too, when every finite point is
// inside), and a power that underflows to zero counts as zero (so with a large p, points
// nearer than about the smallest normal number's p-th root, 2^(-1022 / p) in double, all
// count as at distance 0; in float 2^(-126 / p)). A query answers exactly the points its
// predicate accepts, boundary included. p is rounded to T; a p that rounds to infinity is
// linf.
//
// Pruning is safe for the reason given in shapes.hpp: for a point inside a box, each axis
// gap of the box's least distance comes from a difference no larger in magnitude than the
// point's, and rounding, sums and maxima are monotone, so the box's rounded least distance
// never exceeds the point's, and its greatest never falls below it. std::pow is not
// guaranteed monotone to the last bit, so for lp the box's terms are widened by 128 of T's
// epsilons of their size (and by 64 of T's smallest subnormals) on the safe side: safe
// for any pow within 32 units in the last place (glibc's is within one). k nearest orders by the
// rounded combined value (the p-sum for lp), then by id: exactly the first k of all points
// so sorted. It reports the distance itself: the sum or maximum for l1 and linf,
// pow(sum, 1 / p) for lp, the square root of the squared distance for l2.
#ifndef QUOCT_MINKOWSKI_HPP
#define QUOCT_MINKOWSKI_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "detail/knn.hpp"
#include "detail/query_shapes.hpp"
#include "shapes.hpp"

namespace quoct {

/// A Minkowski norm: norm::l1, norm::l2, norm::linf, or norm::minkowski(p) for any p >= 1.
/// A small value type, compared with ==.
class norm {
public:
    /// Which predicate (see the note at the top of minkowski.hpp).
    enum class kind_type { l1, l2, linf, lp };

    static const norm l1;    ///< p = 1: the sum of the axis gaps
    static const norm l2;    ///< p = 2: the Euclidean distance, the tree's own ball
    static const norm linf;  ///< p = infinity: the largest axis gap

    /// The norm of Minkowski p: p = 1, 2 and infinity give l1, l2 and linf. Throws
    /// std::invalid_argument if p is NaN or below 1 (not a norm).
    static norm minkowski(double p) {
        if (!(p >= 1)) throw std::invalid_argument("quoct: Minkowski p must be >= 1, got " + std::to_string(p));
        if (p == 1) return l1;
        if (p == 2) return l2;
        if (std::isinf(p)) return linf;
        return norm(kind_type::lp, p);
    }

    /// Which predicate: l1, l2, linf or the general lp.
    constexpr kind_type kind() const noexcept { return kind_; }
    /// p: 1, 2, infinity or the general p.
    constexpr double p() const noexcept { return p_; }

    /// The same norm (the same p).
    friend constexpr bool operator==(const norm& a, const norm& b) noexcept {
        return a.kind_ == b.kind_ && (a.kind_ != kind_type::lp || a.p_ == b.p_);
    }
    /// Not a == b.
    friend constexpr bool operator!=(const norm& a, const norm& b) noexcept { return !(a == b); }

private:
    constexpr norm(kind_type k, double p) noexcept : kind_(k), p_(p) {}
    kind_type kind_;
    double p_;
};

inline constexpr norm norm::l1{norm::kind_type::l1, 1.0};
inline constexpr norm norm::l2{norm::kind_type::l2, 2.0};
inline constexpr norm norm::linf{norm::kind_type::linf, std::numeric_limits<double>::infinity()};

namespace detail {

/// A norm's per-axis term and how terms combine, in T. For lp, term_below and term_above
/// bound pow(g, p) from below and above whatever the last bit of std::pow does, for pruning.
template <class T>
struct norm_terms {
    norm::kind_type kind;
    T p;

    // A finite p that rounds to infinity in T (1e39 in float) is p = infinity there.
    explicit norm_terms(const norm& n) noexcept
        : kind(n.kind() == norm::kind_type::lp && std::isinf(static_cast<T>(n.p())) ? norm::kind_type::linf : n.kind()),
          p(static_cast<T>(n.p())) {}

    T term(T g) const noexcept {
        switch (kind) {
            case norm::kind_type::lp: return std::pow(g, p);
            case norm::kind_type::l2: return g * g;
            default: return g;
        }
    }
    T combine(T acc, T t) const noexcept { return kind == norm::kind_type::linf ? std::max(acc, t) : acc + t; }

    static constexpr T slack = std::numeric_limits<T>::epsilon() * 128;
    static constexpr T floor_slack = std::numeric_limits<T>::denorm_min() * 64;
    T term_below(T g) const noexcept {
        const T t = term(g);
        if (kind != norm::kind_type::lp) return t;
        if (std::isinf(t)) return std::numeric_limits<T>::max();
        const T low = t - t * slack - floor_slack;
        return low > 0 ? low : T(0);
    }
    T term_above(T g) const noexcept {
        const T t = term(g);
        if (kind != norm::kind_type::lp) return t;
        return t + t * slack + floor_slack;
    }
    /// The combined value for the radius r: r, or r * r, or pow(r, p).
    T bound_of(T r) const noexcept { return term(r); }
    /// The distance from a combined value: itself, its square root, or its p-th root.
    T distance_of(T s) const noexcept {
        switch (kind) {
            case norm::kind_type::lp: return std::pow(s, T(1) / p);
            case norm::kind_type::l2: return std::sqrt(s);
            default: return s;
        }
    }

    /// The combination over D axes of gap(a).
    template <std::size_t D, class Gap>
    T sum(Gap&& gap) const noexcept {
        T s = 0;
        for (std::size_t a = 0; a < D; ++a) s = combine(s, term(gap(a)));
        return s;
    }
};

/// The gap along an axis from c to the closed interval [lo, hi] (0 inside it).
template <class T>
T unsigned_axis_gap(T c, T lo, T hi) noexcept {
    return std::abs(axis_gap(c, lo, hi));
}

}  // namespace detail

/// The combined value the predicate compares (the sum, the maximum, or the p-sum; for l2
/// the squared distance rounded in T): the distance of a and b before any root.
template <class T, std::size_t D>
T minkowski_sum(const point<T, D>& a, const point<T, D>& b, const norm& n) noexcept {
    return detail::norm_terms<T>(n).template sum<D>([&](std::size_t i) { return std::abs(a[i] - b[i]); });
}

/// The distance between a and b by norm n, in T: minkowski_sum for l1 and linf, its p-th
/// root for lp, the square root of the squared distance for l2.
template <class T, std::size_t D>
T minkowski_distance(const point<T, D>& a, const point<T, D>& b, const norm& n) noexcept {
    const detail::norm_terms<T> terms(n);
    return terms.distance_of(minkowski_sum(a, b, n));
}

/// A lower bound of minkowski_sum(p, c, n) over the points p of the closed box b (0 when c
/// is inside): never more than the value of any point of b, rounding included.
template <class T, std::size_t D>
T minkowski_sum(const point<T, D>& c, const box<T, D>& b, const norm& n) noexcept {
    const detail::norm_terms<T> terms(n);
    T s = 0;
    for (std::size_t a = 0; a < D; ++a) s = terms.combine(s, terms.term_below(detail::unsigned_axis_gap(c[a], b.lo[a], b.hi[a])));
    return s;
}

/// A closed ball of a Minkowski norm: the points within `radius` of `center` by the
/// predicate of its norm (for linf a cube, for l1 a cross-polytope, for l2 the Euclidean
/// ball). A shape for an orthtree's query_shape, count_shape and visit_shape; make one with
/// make_minkowski_ball, which checks it.
template <class T, std::size_t D>
struct minkowski_ball {
    point<T, D> center;  ///< the centre
    T radius;            ///< the radius, >= 0 (the distance itself, not a power)
    norm kind;           ///< the norm

    /// How the closed box b relates to the ball: outside only if no point of b is in it,
    /// inside only if every point is.
    relation classify(const box<T, D>& b) const noexcept {
        if (kind == norm::l2) return detail::ball_query<T, D>(ball<T, D>{center, radius}).classify(b);
        const detail::norm_terms<T> terms(kind);
        const T bound = terms.bound_of(radius);
        T near = 0, far = 0;
        for (std::size_t a = 0; a < D; ++a) {
            const T c = center[a];
            near = terms.combine(near, terms.term_below(detail::unsigned_axis_gap(c, b.lo[a], b.hi[a])));
            far = terms.combine(far, terms.term_above(std::max(std::abs(c - b.lo[a]), std::abs(b.hi[a] - c))));
        }
        if (near > bound) return relation::outside;
        return far <= bound ? relation::inside : relation::partial;
    }
    /// The predicate.
    bool contains(const point<T, D>& p) const noexcept {
        if (kind == norm::l2) return quoct::contains(ball<T, D>{center, radius}, p);
        const detail::norm_terms<T> terms(kind);
        return minkowski_sum(p, center, kind) <= terms.bound_of(radius);
    }
};

/// A checked minkowski_ball. Throws std::invalid_argument if the centre has a NaN or
/// infinite coordinate or the radius is NaN or negative (an infinite radius takes every point).
template <class T, std::size_t D>
minkowski_ball<T, D> make_minkowski_ball(const point<T, D>& center, T radius, const norm& n) {
    for (std::size_t i = 0; i < D; ++i)
        if (!std::isfinite(center[i]))
            throw std::invalid_argument("quoct: minkowski ball centre has a NaN or infinite coordinate");
    if (!(radius >= 0)) throw std::invalid_argument("quoct: minkowski ball radius is NaN or negative");
    return {center, radius, n};
}

namespace detail {

/// The nearest metric (see orthtree::search_nearest) of a Minkowski norm other than l2:
/// values are minkowski_sum (before any root).
template <class T, std::size_t D>
struct minkowski_nearest_metric {
    point<T, D> query;
    norm_terms<T> terms;
    T to_point(const point<T, D>& p) const noexcept {
        return terms.template sum<D>([&](std::size_t i) { return std::abs(p[i] - query[i]); });
    }
    T to_box(const box<T, D>& b) const noexcept {
        T s = 0;
        for (std::size_t a = 0; a < D; ++a) s = terms.combine(s, terms.term_below(unsigned_axis_gap(query[a], b.lo[a], b.hi[a])));
        return s;  // minkowski_sum(query, b, n), with the terms already made
    }
    const point<T, D>& origin() const noexcept { return query; }
};

/// k nearest by norm n through a search_nearest(metric, set, sink) of the caller's (metric
/// as minkowski_nearest_metric, or the caller's own), then the distances from the combined values.
template <class T, class Id, class Search>
std::vector<neighbor<T, Id>> nearest_by_norm(std::size_t k, std::size_t n, const norm& kind, T radius, Search&& search) {
    const norm_terms<T> terms(kind);
    std::vector<neighbor<T, Id>> out;
    knn_set<T, Id> set(out, std::min(k, std::max<std::size_t>(n, 1)), terms.bound_of(radius));
    search(terms, set, [&set](Id id, T d) { set.offer(id, d); });
    set.finish();
    for (auto& x : out) x.distance_sq = terms.distance_of(x.distance_sq);
    return out;
}

/// Checks k, the query point and the radius of a nearest-by-norm query.
template <class T, std::size_t D>
void check_norm_nearest(const point<T, D>& p, std::size_t k, T radius) {
    if (k == 0) throw std::invalid_argument("quoct: k must be at least 1");
    (void)make_minkowski_ball(p, radius, norm::l1);  // checks p and the radius
}

}  // namespace detail

/// The min(k, tree.size()) points of `tree` nearest to p by norm n, within the closed
/// radius (the predicate of the norm), nearest first, ties by smaller id: exactly the first
/// k of all points within the radius sorted by (minkowski_sum, id). Each neighbor's second
/// member holds the distance itself (not squared, not a p-sum). Tree is an orthtree or a
/// dynamic_orthtree (anything with search_nearest and, for l2, nearest(p, k, radius, out)).
/// Throws std::invalid_argument if k == 0, p has a NaN or infinite coordinate, or the
/// radius is NaN or negative.
template <class Tree>
std::vector<neighbor<typename Tree::scalar_type, typename Tree::id_type>> nearest(
    const Tree& tree, const typename Tree::point_type& p, std::size_t k, const norm& n,
    typename Tree::scalar_type radius = std::numeric_limits<typename Tree::scalar_type>::infinity()) {
    using T = typename Tree::scalar_type;
    using Id = typename Tree::id_type;
    constexpr std::size_t D = Tree::dimension;
    detail::check_norm_nearest(p, k, radius);
    if (n == norm::l2) {  // the tree's own Euclidean search, exact at the ends of T's range
        std::vector<neighbor<T, Id>> out;
        tree.nearest(p, k, radius, out);
        for (auto& x : out) x.distance_sq = std::sqrt(x.distance_sq);
        return out;
    }
    return detail::nearest_by_norm<T, Id>(k, tree.size(), n, radius, [&](const auto& terms, auto& set, auto&& sink) {
        tree.search_nearest(detail::minkowski_nearest_metric<T, D>{p, terms}, set, sink);
    });
}

}  // namespace quoct

#endif  // QUOCT_MINKOWSKI_HPP
