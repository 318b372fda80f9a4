// quoct internals: the query shapes the traversal understands. A shape says how a node's
// box relates to it (outside: prune; inside: take whole; partial: look closer) and whether
// one point belongs to it. Both answers come from the geometry kernel, so pruning and the
// per-point test can never disagree (see the exactness note in geometry.hpp).
#ifndef QUOCT_DETAIL_QUERY_SHAPES_HPP
#define QUOCT_DETAIL_QUERY_SHAPES_HPP

#include <cstddef>

#include "../geometry.hpp"

namespace quoct {
namespace detail {

/// A closed ball with its radius squared once.
template <class T, std::size_t D>
struct ball_query {
    point<T, D> center;
    T radius_sq;

    explicit ball_query(const ball<T, D>& s) : center(s.center), radius_sq(s.radius * s.radius) {}

    quoct::relation classify(const box<T, D>& b) const noexcept {
        if (distance_sq(center, b) > radius_sq) return quoct::relation::outside;
        return farthest_distance_sq(center, b) <= radius_sq ? quoct::relation::inside : quoct::relation::partial;
    }
    bool contains(const point<T, D>& p) const noexcept { return distance_sq(p, center) <= radius_sq; }
};

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

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_QUERY_SHAPES_HPP
