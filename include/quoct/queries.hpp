// quoct::point_queries: the query surface of a point index, derived from its primitives.
//
// Every point index (orthtree, dynamic_orthtree, periodic_index) writes only what differs
// between them, its primitives:
// - a shape search: query_shape(shape, out), count_shape(shape) and visit_shape(shape, f)
//   for any shape with classify(box) and contains(point) (see orthtree::query_shape);
// - with_ball(ball, f) and with_box(box, f): check a ball or box and call f with the
//   shape that stands for it in this index (plain, or wrapped by the minimum image);
// - result_distance_sq(point, centre): the value a ball's predicate compares with r^2;
// - capped_nearest(p, k, radius, out): its nearest search.
// point_queries<Derived> turns them into the public members below, the same in every index
// kind, documented once. docs/concepts.md states the contract and which index has what.

#ifndef QUOCT_QUERIES_HPP
#define QUOCT_QUERIES_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

#include "detail/knn.hpp"
#include "detail/query_shapes.hpp"
#include "detail/validate.hpp"
#include "neighbor.hpp"
#include "shapes.hpp"

namespace quoct {

/// The order of results with distances: as the traversal meets them (any, the fastest), or
/// nearest first, by (distance_sq, id), so equal distances come smaller id first.
enum class result_order { any, nearest_first };

namespace detail {

/// Sorts neighbours by (distance_sq, id) when asked to.
template <class T, class Id>
void order_results(std::vector<neighbor<T, Id>>& out, result_order order) {
    if (order != result_order::nearest_first) return;
    // NaN distances go last, unsorted (std::sort needs a strict weak order); they come only
    // from coordinates no builder makes, in a tree read from a damaged file.
    const auto last = std::partition(out.begin(), out.end(), [](const neighbor<T, Id>& n) { return !std::isnan(n.distance_sq); });
    std::sort(out.begin(), last, knn_set<T, Id>::before);
}

/// The primitives of point_queries that are the same in every index over plain
/// coordinates (orthtree, dynamic_orthtree, which inherit them privately): a ball or box is
/// checked, then stands for itself (with_ball_query's ball, box_query), and a result's
/// distance is distance_sq.
template <class T, std::size_t D>
struct plain_space {
    template <class F>
    static decltype(auto) with_ball(const ball<T, D>& s, F&& f) {
        check_ball(s);
        return with_ball_query(s, f);
    }
    template <class F>
    static decltype(auto) with_box(const box<T, D>& b, F&& f) {
        check_box(b);
        return f(box_query<T, D>(b));
    }
    static T result_distance_sq(const point<T, D>& p, const point<T, D>& center) noexcept {
        return distance_sq(p, center);
    }
};

}  // namespace detail

/// The ball, box and nearest queries of a point index, derived from its primitives (see
/// the top of quoct/queries.hpp and docs/concepts.md): orthtree, dynamic_orthtree and
/// periodic_index derive from it, so their queries have one definition and one contract.
/// Every member is const and thread-safe as the index's const members are (a dynamic
/// index: while nobody mutates it). What a ball or a box means is the index's: closed, in
/// plain coordinates for orthtree and dynamic_orthtree, under the minimum image for
/// periodic_index. A braced argument `{centre, radius}` is a ball; a box is passed as a
/// quoct::box<T, D> (the box overloads take nothing else).
template <class Derived, class T, std::size_t D, class Id>
class point_queries {
    // The box overloads are templates taking exactly box<T, D>, so that a braced
    // {centre, radius} (which could also initialise a box) always means a ball.
    template <class Box>
    using if_box = std::enable_if_t<std::is_same<Box, box<T, D>>::value, int>;

public:
    /// Clears `out`, then fills it with the ids of the points in the closed ball, in no
    /// particular order: exactly the points whose squared distance from s.center is at most
    /// s.radius^2 (the minimum-image distance in a periodic index). An infinite radius takes
    /// every point. Throws std::invalid_argument for a bad ball: a NaN or negative radius, a
    /// NaN or infinite centre (a centre outside the domain, for a periodic index).
    void query(const ball<T, D>& s, std::vector<Id>& out) const {
        self().with_ball(s, [&](const auto& q) { self().query_shape(q, out); });
    }
    /// As query(s, out), returning the ids.
    std::vector<Id> query(const ball<T, D>& s) const {
        std::vector<Id> out;
        query(s, out);
        return out;
    }
    /// Clears `out`, then fills it with the points query(s) returns, each with its squared
    /// distance from s.center (the very value the ball predicate compares with s.radius^2,
    /// so every distance_sq is <= s.radius^2). In no particular order, or nearest first by
    /// (distance_sq, id) with result_order::nearest_first. Throws as query.
    void query(const ball<T, D>& s, std::vector<neighbor<T, Id>>& out, result_order order = result_order::any) const {
        out.clear();
        visit(s, [&](Id id, const point<T, D>& p) {
            out.push_back(neighbor<T, Id>{id, self().result_distance_sq(p, s.center)});
        });
        detail::order_results(out, order);
    }
    /// As query(s, out, order), returning the neighbours.
    std::vector<neighbor<T, Id>> query_with_distances(const ball<T, D>& s, result_order order = result_order::any) const {
        std::vector<neighbor<T, Id>> out;
        query(s, out, order);
        return out;
    }
    /// Clears `out`, then fills it with the ids of the points in the closed box, in no
    /// particular order (a periodic index: the points with an image in the box; see
    /// periodic_box_query). Throws std::invalid_argument for a bad box: a NaN coordinate
    /// or lo > hi on some axis (and, for a periodic index, a box out of its reach).
    template <class Box, if_box<Box> = 0>
    void query(const Box& b, std::vector<Id>& out) const {
        self().with_box(b, [&](const auto& q) { self().query_shape(q, out); });
    }
    /// As query(b, out), returning the ids.
    template <class Box, if_box<Box> = 0>
    std::vector<Id> query(const Box& b) const {
        std::vector<Id> out;
        query(b, out);
        return out;
    }

    /// Number of points in the closed ball; the same points query(s) returns. Throws as query.
    std::size_t count(const ball<T, D>& s) const {
        return self().with_ball(s, [&](const auto& q) { return self().count_shape(q); });
    }
    /// Number of points in the closed box; the same points query(b) returns. Throws as query.
    template <class Box, if_box<Box> = 0>
    std::size_t count(const Box& b) const {
        return self().with_box(b, [&](const auto& q) { return self().count_shape(q); });
    }

    /// Calls f(id, point) for each point in the closed ball, in no particular order. If f
    /// returns something convertible to bool, false stops the search. Returns false if it
    /// was stopped. f must not modify the index. Throws as query, and passes on whatever f
    /// throws.
    template <class F>
    bool visit(const ball<T, D>& s, F&& f) const {
        return self().with_ball(s, [&](const auto& q) { return self().visit_shape(q, f); });
    }
    /// As visit(ball, f), for the closed box.
    template <class Box, class F, if_box<Box> = 0>
    bool visit(const Box& b, F&& f) const {
        return self().with_box(b, [&](const auto& q) { return self().visit_shape(q, f); });
    }

    /// The min(k, size()) points closest to p, closest first; equal distances are ordered by
    /// smaller id: exactly the first k of all points sorted by (squared distance, id), the
    /// distance query() uses. Throws std::invalid_argument if k == 0 or p is not a valid
    /// point (NaN or infinite, or outside a periodic domain).
    void nearest(const point<T, D>& p, std::size_t k, std::vector<neighbor<T, Id>>& out) const {
        self().capped_nearest(p, k, std::numeric_limits<T>::infinity(), out);
    }
    /// Capped k-nearest: the k closest points within the closed ball of the given radius
    /// around p (user units; query()'s predicate), closest first, ties by smaller id; fewer
    /// than k when fewer lie within. An infinite radius is nearest(p, k, out). Throws as
    /// nearest(p, k, out), and std::invalid_argument for a NaN or negative radius.
    void nearest(const point<T, D>& p, std::size_t k, T radius, std::vector<neighbor<T, Id>>& out) const {
        self().capped_nearest(p, k, radius, out);
    }
    /// As nearest(p, k, out), giving ids only.
    void nearest(const point<T, D>& p, std::size_t k, std::vector<Id>& out) const {
        std::vector<neighbor<T, Id>> found;
        nearest(p, k, found);
        detail::ids_of(found, out);
    }
    /// As nearest(p, k, out), returning the ids.
    std::vector<Id> nearest(const point<T, D>& p, std::size_t k) const {
        std::vector<Id> out;
        nearest(p, k, out);
        return out;
    }

protected:
    /// @name Made and copied only as part of an index
    ///@{
    point_queries() = default;                                    ///< nothing to set
    ~point_queries() = default;                                   ///< not deleted through a base pointer
    point_queries(const point_queries&) = default;                ///< stateless
    point_queries(point_queries&&) = default;                     ///< stateless
    point_queries& operator=(const point_queries&) = default;     ///< stateless
    point_queries& operator=(point_queries&&) = default;          ///< stateless
    ///@}

private:
    const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }
};

}  // namespace quoct

#endif  // QUOCT_QUERIES_HPP
