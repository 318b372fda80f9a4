// quoct: the extension concepts, and the public names of the parts a user combines with
// them. Dependency-free (C++17: the concepts are traits, checked by static_assert).
//
// - A Shape drives a traversal: orthtree::query_shape, count_shape and visit_shape (and
//   the dynamic and periodic indexes' own). docs/extending/shape.md,
//   examples/extend_shape.cpp.
// - A NearestMetric and a ResultSet drive a nearest search: search_nearest(metric, set,
//   sink). docs/extending/nearest-metric.md and docs/extending/result-set.md,
//   examples/extend_nearest_metric.cpp and examples/extend_result_set.cpp.
// - A PairMetric measures the pairs of the pair searches (pairs.hpp) over an index that
//   offers it as metric(). docs/extending/pair-metric.md, examples/extend_pair_metric.cpp.
//
// The two metrics are two protocols because they answer two questions: a nearest metric
// orders candidates and bounds whole boxes from below (to_point, to_box), where a pair
// metric decides a closed predicate axis by axis (axis_distance), so that the pair engine
// can add a pair's squares in axis order and match distance_sq to the last bit.
//
// Each call that takes one checks it with the trait below and a static_assert that names
// the members it needs.
#ifndef QUOCT_CONCEPTS_HPP
#define QUOCT_CONCEPTS_HPP

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "detail/knn.hpp"
#include "detail/pair_metric.hpp"
#include "detail/query_shapes.hpp"
#include "neighbor.hpp"
#include "shapes.hpp"

namespace quoct {

// --- the traits -------------------------------------------------------------------------

/// True when S is a Shape over point<T, D>: `quoct::relation classify(const box<T, D>&)
/// const` (outside only if no point of the closed box is in the shape, inside only if
/// every one is) and `bool contains(const point<T, D>&) const` (the membership predicate).
template <class S, class T, std::size_t D, class = void>
struct is_shape : std::false_type {};
template <class S, class T, std::size_t D>
struct is_shape<S, T, D,
                std::enable_if_t<std::is_same<decltype(std::declval<const S&>().classify(std::declval<const box<T, D>&>())),
                                              relation>::value &&
                                 std::is_convertible<decltype(std::declval<const S&>().contains(
                                                         std::declval<const point<T, D>&>())),
                                                     bool>::value>> : std::true_type {};
/// is_shape<S, T, D>::value: S is a Shape over point<T, D>.
template <class S, class T, std::size_t D>
constexpr bool is_shape_v = is_shape<S, T, D>::value;

/// True when M is a NearestMetric over point<T, D>: `T to_point(const point<T, D>&) const`
/// (smaller is nearer) and `T to_box(const box<T, D>&) const` (a lower bound of to_point
/// over the closed box, rounding included). origin(), in_box() and ball_in_box() are
/// optional guides (docs/extending/nearest-metric.md).
template <class M, class T, std::size_t D, class = void>
struct is_nearest_metric : std::false_type {};
template <class M, class T, std::size_t D>
struct is_nearest_metric<
    M, T, D,
    std::enable_if_t<std::is_convertible<decltype(std::declval<const M&>().to_point(std::declval<const point<T, D>&>())),
                                         T>::value &&
                     std::is_convertible<decltype(std::declval<const M&>().to_box(std::declval<const box<T, D>&>())),
                                         T>::value>> : std::true_type {};
/// is_nearest_metric<M, T, D>::value: M is a NearestMetric over point<T, D>.
template <class M, class T, std::size_t D>
constexpr bool is_nearest_metric_v = is_nearest_metric<M, T, D>::value;

/// True when S is a ResultSet a nearest search reads: `T bound() const` (a candidate
/// farther than it cannot enter the answer) and `bool full() const` (the answer has all it
/// wants, so that a metric's ball_in_box may stop the search).
template <class S, class T, class = void>
struct is_result_set : std::false_type {};
template <class S, class T>
struct is_result_set<S, T,
                     std::enable_if_t<std::is_convertible<decltype(std::declval<const S&>().bound()), T>::value &&
                                      std::is_convertible<decltype(std::declval<const S&>().full()), bool>::value>>
    : std::true_type {};
/// is_result_set<S, T>::value: S is a ResultSet of values T.
template <class S, class T>
constexpr bool is_result_set_v = is_result_set<S, T>::value;

/// True when M is a PairMetric over point<T, D> for the index type Index: `T
/// distance_sq(const point<T, D>&, const point<T, D>&) const`, `T axis_distance(std::size_t
/// axis, T x, T y) const` (whose squares, added in axis order, are distance_sq), `wide<T>
/// wide_axis_distance(std::size_t, T, T) const` (its magnitude with an unbounded exponent)
/// and `bool visit_near(const Index&, const box<T, D>& region, T r, F&& f) const` (visits
/// a superset of the points within r of the region).
template <class M, class Index, class T, std::size_t D, class = void>
struct is_pair_metric : std::false_type {};
template <class M, class Index, class T, std::size_t D>
struct is_pair_metric<
    M, Index, T, D,
    std::enable_if_t<
        std::is_convertible<decltype(std::declval<const M&>().distance_sq(std::declval<const point<T, D>&>(),
                                                                          std::declval<const point<T, D>&>())),
                            T>::value &&
        std::is_convertible<decltype(std::declval<const M&>().axis_distance(std::size_t{}, T{}, T{})), T>::value &&
        std::is_same<decltype(std::declval<const M&>().wide_axis_distance(std::size_t{}, T{}, T{})),
                     detail::wide<T>>::value &&
        std::is_convertible<decltype(std::declval<const M&>().visit_near(
                                std::declval<const Index&>(), std::declval<const box<T, D>&>(), T{},
                                std::declval<bool (*)(typename Index::id_type, const point<T, D>&)>())),
                            bool>::value>> : std::true_type {};
/// is_pair_metric<M, Index, T, D>::value: M is a PairMetric for Index.
template <class M, class Index, class T, std::size_t D>
constexpr bool is_pair_metric_v = is_pair_metric<M, Index, T, D>::value;

// --- the parts a user combines ------------------------------------------------------------

/// The closed ball as a Shape (what query(ball) runs): exact where squares overflow or
/// underflow T too.
template <class T, std::size_t D>
using ball_query = detail::ball_query<T, D>;
/// The closed box as a Shape (what query(box) runs).
template <class T, std::size_t D>
using box_query = detail::box_query<T, D>;
/// The points outside a closed box, as a Shape (what erase_outside(box) erases).
template <class T, std::size_t D>
using outside_box_query = detail::outside_box_query<T, D>;

/// The ResultSet of every k-nearest query: the best k by (distance, id), the tie rule
/// and the pruning bound in one place. `knn_set(out, k, limit = infinity)`, then
/// `offer(id, distance)` from the sink, then `finish()` (out nearest first).
template <class T, class Id, class Neighbor = neighbor<T, Id>>
using knn_set = detail::knn_set<T, Id, Neighbor>;

/// The plain Euclidean PairMetric (the pair searches' own, on an index with no metric()).
template <class T, std::size_t D>
using euclidean_pair_metric = detail::euclidean_pair_metric<T, D>;

/// A non-negative number with an unbounded exponent (m * 2^e): what a PairMetric's
/// wide_axis_distance returns, made by wide_difference(x, y) (|x - y|) or to_wide(x) (|x|).
template <class T>
using wide = detail::wide<T>;
using detail::to_wide;
using detail::wide_difference;

}  // namespace quoct

#endif  // QUOCT_CONCEPTS_HPP
