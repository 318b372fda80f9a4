// quoct internals: the pair-metric protocol and what the pair engine asks of an index.
// pairs.hpp's searches (and the MPI halos) measure pairs through a pair metric: the plain
// Euclidean one is here, the minimum-image one in periodic.hpp. A nearest search takes a
// nearest metric instead, a different protocol (euclidean_nearest_metric in orthtree.hpp);
// docs/concepts.md sets the two side by side.
#ifndef QUOCT_DETAIL_PAIR_METRIC_HPP
#define QUOCT_DETAIL_PAIR_METRIC_HPP

#include <cstddef>
#include <type_traits>
#include <utility>

#include "../shapes.hpp"
#include "query_shapes.hpp"

namespace quoct {
namespace detail {

// Member detection, so the generic algorithms work on quoct::orthtree (which has none of
// these) and on the simulation indexes (which may have them).
template <class I, class = void>
struct has_id_bound : std::false_type {};
template <class I>
struct has_id_bound<I, std::void_t<decltype(std::declval<const I&>().id_bound())>> : std::true_type {};

template <class I, class = void>
struct has_metric : std::false_type {};
template <class I>
struct has_metric<I, std::void_t<decltype(std::declval<const I&>().metric())>> : std::true_type {};

/// All ids of the index are below this: id_bound() if the index has one, else size().
template <class Index>
std::size_t id_bound(const Index& index) {
    if constexpr (has_id_bound<Index>::value) return index.id_bound();
    else return index.size();
}

template <class I, class = void>
struct has_base : std::false_type {};
template <class I>
struct has_base<I, std::void_t<decltype(std::declval<const I&>().base())>> : std::true_type {};

/// How far [lo, hi] reaches beyond [region_lo, region_hi] on either side: 0 when it lies
/// inside; NaN, from faces at the same infinity, counts as 0 too. The far bound of the pair
/// searches' candidate shapes (near_box, periodic_near_box) on one axis.
template <class T>
T reach_beyond(T region_lo, T region_hi, T lo, T hi) noexcept {
    const T below = region_lo - lo, above = hi - region_hi;
    T h = 0;
    if (below > h) h = below;
    if (above > h) h = above;
    return h;
}

/// The plain Euclidean pair metric: the core's distance_sq, and candidate regions as boxes.
///
/// The pair-metric protocol (what pairs.hpp's searches call; docs/concepts.md, "the
/// pair-search protocol"): `T distance_sq(a, b)`, the value compared with r^2;
/// `T axis_distance(axis, x, y)`, the per-axis difference whose squares distance_sq sums in
/// axis order; `wide<T> wide_axis_distance(axis, x, y)`, the same with an unbounded exponent
/// (radius_bound's slow path); and `bool visit_near(index, region, r, f)`, which visits a
/// superset of the points within r of some point of the box `region`. The other pair
/// metric is periodic_pair_metric (periodic.hpp). A nearest search takes a nearest metric
/// instead (euclidean_nearest_metric in orthtree.hpp states that protocol).
template <class T, std::size_t D>
struct euclidean_pair_metric {
    T distance_sq(const point<T, D>& a, const point<T, D>& b) const noexcept { return quoct::distance_sq(a, b); }
    /// The signed per-axis difference whose square distance_sq sums.
    T axis_distance(std::size_t, T x, T y) const noexcept { return x - y; }
    /// |x - y| with an unbounded exponent (radius_bound's slow path).
    wide<T> wide_axis_distance(std::size_t, T x, T y) const noexcept { return wide_difference(x, y); }

    /// Visits (id, point) for a superset of the points q within distance r of some point p
    /// of the box `region` by the ball predicate (those with distance_sq(q, region) at most
    /// radius_bound's sure_out).
    template <class Index, class F>
    bool visit_near(const Index& index, const box<T, D>& region, T r, F&& f) const {
        const radius_bound<T, D> bound(r);
        return index.visit_shape(near_box{region, bound.sure_in, bound.sure_out}, f);
    }

    /// The points within distance r of a box. Every point q with distance_sq(q, p) <= r^2
    /// for some p in the box passes contains(q): on each axis the gap from q to the box is
    /// no larger than |q - p| and rounding is monotone (the argument of shapes.hpp).
    struct near_box {
        box<T, D> region;
        T sure_in;   // radius_bound's: every point within the radius has distance_sq(q,
        T sure_out;  // region) <= sure_out, and a box within sure_in is inside

        relation classify(const box<T, D>& b) const noexcept {
            T near = 0, far = 0;
            for (std::size_t a = 0; a < D; ++a) {
                T g = 0;  // the smallest gap from a point of b to region on this axis
                if (b.hi[a] < region.lo[a]) g = region.lo[a] - b.hi[a];
                else if (b.lo[a] > region.hi[a]) g = b.lo[a] - region.hi[a];
                near += g * g;
                // the largest: from b's farthest face beyond region's
                const T h = reach_beyond(region.lo[a], region.hi[a], b.lo[a], b.hi[a]);
                far += h * h;
            }
            if (near > sure_out) return relation::outside;
            return far <= sure_in ? relation::inside : relation::partial;
        }
        bool contains(const point<T, D>& q) const noexcept { return quoct::distance_sq(q, region) <= sure_out; }
    };
};

/// The metric of an index: its metric() if it has one (periodic indexes), else Euclidean.
template <class Index>
auto metric_of(const Index& index) {
    if constexpr (has_metric<Index>::value) return index.metric();
    else return euclidean_pair_metric<typename Index::scalar_type, Index::dimension>{};
}

/// Whether an index has stored_ids() (an orthtree): on one read lazily from a file, its
/// first call checks that the ids are a permutation, as the pair engines rely on.
template <class Index, class = void>
struct has_stored_ids : std::false_type {};
template <class Index>
struct has_stored_ids<Index, std::void_t<decltype(std::declval<const Index&>().stored_ids())>> : std::true_type {};

/// Calls f(id, point) for every point of the index (of its base() index if it wraps one),
/// each id once: the callers index their own arrays by id.
template <class Index, class F>
void for_each_point(const Index& index, F&& f) {
    if constexpr (has_base<Index>::value) {
        for_each_point(index.base(), f);
    } else {
        using T = typename Index::scalar_type;
        constexpr std::size_t D = Index::dimension;
        if constexpr (has_stored_ids<Index>::value) (void)index.stored_ids();
        index.visit(everything<T, D>(), f);
    }
}

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_PAIR_METRIC_HPP
