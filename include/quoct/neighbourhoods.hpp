// quoct: every point's neighbourhood, streamed: its k nearest, or every point within r, for
// each point of a tree in storage order (the order of the tree's leaves, so consecutive
// points are near each other and a mapped file is read region by region), handed to a
// callback one point at a time. Memory is one neighbourhood, whatever the tree's size: the
// per-point metrics of LiDAR work (normals, outlier removal, density) over a cloud opened
// from a file larger than memory. Dependency-free.
//
//   auto tree = quoct::open<quoct::octree<double>>("cloud.quoct");
//   quoct::for_each_knn(tree, 8, [&](std::uint32_t id, const auto& hood) {
//       // hood: the 8 nearest of point id (itself first), nearest first, as tree.nearest gives
//   });
//   quoct::for_each_within(tree, 0.5, [&](std::uint32_t id, const auto& hood) { ... });
#ifndef QUOCT_NEIGHBOURHOODS_HPP
#define QUOCT_NEIGHBOURHOODS_HPP

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "detail/callback.hpp"
#include "neighbor.hpp"
#include "orthtree.hpp"
#include "queries.hpp"

namespace quoct {

/// Calls f(id, hood) for every point of `tree`, in storage order: hood (a const
/// std::vector<neighbor<T, Id>>&, valid during the call) holds its min(k, size()) nearest
/// points by (squared distance, id), exactly tree.nearest(point, k) (the point itself among
/// them, at distance 0, first unless an equal point has a smaller id). If f returns
/// something convertible to bool, false stops. Throws std::invalid_argument if k == 0 (before
/// any call), and passes on what f throws. f must not modify the tree.
template <class T, std::size_t D, class Id, class F>
void for_each_knn(const orthtree<T, D, Id>& tree, std::size_t k, F&& f) {
    if (k == 0) throw std::invalid_argument("quoct: for_each_knn needs k >= 1");
    std::vector<neighbor<T, Id>> hood;
    const Id* ids = tree.stored_ids();
    for (std::size_t i = 0; i < tree.size(); ++i) {
        tree.nearest(tree.stored_point(i), k, hood);
        if (!detail::go_on(f, ids[i], static_cast<const std::vector<neighbor<T, Id>>&>(hood))) return;
    }
}

/// Calls f(id, hood) for every point of `tree`, in storage order: hood holds every point
/// within the closed ball of radius r around it (the point itself included), each with its
/// squared distance, nearest first by (squared distance, id): exactly
/// tree.query(ball{point, r}, out, result_order::nearest_first). If f returns something
/// convertible to bool, false stops. Throws std::invalid_argument for a NaN, infinite or
/// negative r (before any call), and passes on what f throws.
template <class T, std::size_t D, class Id, class F>
void for_each_within(const orthtree<T, D, Id>& tree, T r, F&& f) {
    if (!(r >= 0) || !std::isfinite(r))
        throw std::invalid_argument("quoct: for_each_within needs a finite radius >= 0");
    std::vector<neighbor<T, Id>> hood;
    const Id* ids = tree.stored_ids();
    for (std::size_t i = 0; i < tree.size(); ++i) {
        tree.query(ball<T, D>{tree.stored_point(i), r}, hood, result_order::nearest_first);
        if (!detail::go_on(f, ids[i], static_cast<const std::vector<neighbor<T, Id>>&>(hood))) return;
    }
}

}  // namespace quoct

#endif  // QUOCT_NEIGHBOURHOODS_HPP
