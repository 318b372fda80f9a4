// quoct: how an orthtree is built: its options and the depth limit they may not exceed.
// Dependency-free.
#ifndef QUOCT_BUILD_OPTIONS_HPP
#define QUOCT_BUILD_OPTIONS_HPP

#include <cstddef>
#include <limits>

namespace quoct {

/// The deepest a tree may be, and build_options::max_depth's default; an option may not
/// exceed it. It never stops the split of distinct points of float, double or long double, so
/// with the default a leaf holds over leaf_size points only if they are all equal. Why: a
/// node's children halve its cell on every axis, and a grid fitted to a node's points (when
/// the keys run out of bits) is no wider than the cell they lie in, so a node at depth d lies
/// in a cell 2^-d as wide as the root's bounds on each axis. Those are at most 2 max() wide,
/// and two distinct finite values differ by at least denorm_min(), so a node holding two
/// distinct points lies at depth at most log2(2 max() / denorm_min()) = 1 + max_exponent -
/// min_exponent + digits, and its children one deeper: 279 for
/// float, 2,100 for double, 32,831 for x87 80-bit long double and 32,880 for IEEE binary128.
/// The limit is about twice the largest (rounding in a fitted grid moves its cell edges by
/// units in the last place, not by a level). Queries size their stacks by the tree's actual
/// depth(), so the limit costs a shallow tree nothing.
constexpr std::size_t max_depth_limit = 65536;

/// How a tree is built.
struct build_options {
    /// Stands for the leaf size measured best for the tree's dimension (see leaf_size).
    static constexpr std::size_t auto_leaf_size = std::numeric_limits<std::size_t>::max();
    /// A node with at most this many points is not split. Must be at least 1. The default,
    /// auto_leaf_size, is default_leaf_size(D): 32 in 2D and 48 in other dimensions
    /// (chosen by callgrind counts of radius, count and k-nearest queries on the benchmark
    /// sets, then timed; bench/README.md).
    std::size_t leaf_size = auto_leaf_size;

    /// The leaf size auto_leaf_size stands for in a tree of the given dimension.
    static constexpr std::size_t default_leaf_size(std::size_t dimension) noexcept {
        return dimension == 2 ? 32 : 48;
    }

    /// Nodes at this depth (the root is at 0) are leaves whatever their size: a cap of your
    /// own on depth() for data spread over many scales (each level halves a node's cell, so
    /// points from 1e-20 to 1e20 nest about 133 deep), at the price of leaves over leaf_size.
    /// At most max_depth_limit, the default, which never caps a tree of float, double or
    /// long double points (equal points are never split, whatever the depth).
    std::size_t max_depth = max_depth_limit;
    /// Keep per node its first point's Morton key and its parent (4 + sizeof(Id) bytes a
    /// node; about 0.3 to 0.6 bytes a point at the default leaf sizes), so that nearest()
    /// starts at the leaf holding the query, found by a binary search over the keys, rather
    /// than by a descent from the root that tests each level's children (measured faster
    /// for k-nearest on every benchmark set; bench/README.md). Off: a smaller tree, same
    /// answers. Radius, box and count queries do not use it.
    bool nearest_index = true;
};

namespace detail {

/// The deepest a node of a tree of T can lie (see max_depth_limit): a node holding two
/// distinct points lies at depth at most log2(2 max() / denorm_min()), its children one
/// deeper, and a node of equal points is not split.
template <class T>
constexpr std::size_t split_depth_bound() noexcept {
    using L = std::numeric_limits<T>;
    return static_cast<std::size_t>(1 + L::max_exponent - L::min_exponent + L::digits) + 1;
}
static_assert(split_depth_bound<long double>() < max_depth_limit,
              "quoct: max_depth_limit must stay above the deepest split of long double points");

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_BUILD_OPTIONS_HPP
