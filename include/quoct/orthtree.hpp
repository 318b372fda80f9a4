// quoct: the orthtree, a quadtree (D = 2) and an octree (D = 3) in one template.
//
// Life cycle: build once from a range of points, then query. Every query is const and
// touches no shared mutable state, so any number of threads may query one tree at once
// (point(id) builds an id map on its first call, once, under std::call_once).
//
// Layout: the tree keeps its own copy of the coordinates, permuted into Morton (Z) order so
// that every node owns one contiguous run [begin, end) of it, stored axis by axis (all x,
// then all y, ...) so the per-point distance loop vectorises. Nodes live in one vector in
// depth-first pre-order: a node's first child follows it, and each node records where its
// subtree ends (skip), so a query walks the vector forwards with no stack at all. Node
// boxes are the exact bounds of their points, in T.
//
// Files: this header is the tree's interface and its searches; its data (the sections above
// and the checks that make them safe to search) is detail/orthtree_data.hpp, and the
// builder that fills them from points in memory detail/orthtree_build.hpp.
#ifndef QUOCT_ORTHTREE_HPP
#define QUOCT_ORTHTREE_HPP

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "build_options.hpp"
#include "concepts.hpp"
#include "detail/bits.hpp"
#include "detail/callback.hpp"
#include "detail/file_names.hpp"
#include "detail/knn.hpp"
#include "detail/morton.hpp"
#include "detail/orthtree_build.hpp"
#include "detail/orthtree_data.hpp"
#include "detail/pair_kernels.hpp"
#include "detail/query_shapes.hpp"
#include "detail/section.hpp"
#include "detail/validate.hpp"
#include "queries.hpp"
#include "shapes.hpp"
#include "point_traits.hpp"

namespace quoct {

template <class T, std::size_t D, class Id>
class dynamic_orthtree;  // (searches its trees as one: orthtree::search_nearest_top_down)

namespace detail {

/// c ? a : b for indexes, computed with masks: g++ makes a ternary on data a branch, and
/// a binary search's branches are mispredicted half the time.
inline std::size_t select_index(bool c, std::size_t a, std::size_t b) noexcept {
    return b ^ ((a ^ b) & (std::size_t(0) - static_cast<std::size_t>(c)));
}

/// The Euclidean nearest metric of nearest(): distances are distance_sq(point, query), and
/// to_box(b) = distance_sq(query, b) is no larger than to_point(p) for any p in b, rounding
/// included (shapes.hpp).
///
/// The nearest-metric protocol (what orthtree::search_nearest reads;
/// docs/extending/nearest-metric.md): `T to_point(p)` and `T to_box(b)`, a lower bound of to_point over the
/// closed box, required; `origin()`, `in_box(b)` and `ball_in_box(b, bound)`, optional
/// guides. The others: minkowski_nearest_metric (minkowski.hpp), the periodic ones
/// (periodic.hpp) and geo's metres metric. A pair search takes a pair metric instead
/// (quoct::euclidean_pair_metric).
template <class T, std::size_t D>
struct euclidean_nearest_metric {
    point<T, D> query;
    T to_point(const point<T, D>& p) const noexcept { return distance_sq(p, query); }
    T to_box(const box<T, D>& b) const noexcept { return distance_sq(query, b); }
    /// The query point: the search starts at the leaf whose Morton cell holds it.
    const point<T, D>& origin() const noexcept { return query; }
    /// True if the query lies in the closed box b: a guide for the descent, cheaper than
    /// to_box(b) == 0 (pruning never uses it).
    bool in_box(const box<T, D>& b) const noexcept {
        bool in = true;
        for (std::size_t a = 0; a < D; ++a) in &= b.lo[a] <= query[a] && query[a] <= b.hi[a];
        return in;
    }
    /// True if every point outside the closed box b (beyond a face on some axis) is farther
    /// than `bound` from the query as to_point() measures it: the query is inside b, and on
    /// every axis its rounded squared offset to each face exceeds the bound (a point beyond
    /// that face is no nearer on that axis, rounding included, and the other axes only add).
    bool ball_in_box(const box<T, D>& b, T bound) const noexcept {
        bool in = true;
        for (std::size_t a = 0; a < D; ++a) {
            const T down = query[a] - b.lo[a];
            const T up = b.hi[a] - query[a];
            in &= down > 0 && up > 0 && down * down > bound && up * up > bound;
        }
        return in;
    }
};

/// Whether a nearest metric offers in_box(box), the descent's cheap guide.
template <class Metric, class Box, class = void>
struct has_in_box : std::false_type {};
template <class Metric, class Box>
struct has_in_box<Metric, Box, decltype(void(std::declval<const Metric&>().in_box(std::declval<const Box&>())))>
    : std::true_type {};
/// Whether a nearest metric offers origin(), a point whose leaf the search starts from.
template <class Metric, class Point, class = void>
struct has_origin : std::false_type {};
template <class Metric, class Point>
struct has_origin<Metric, Point,
                  std::enable_if_t<std::is_convertible<decltype(std::declval<const Metric&>().origin()), const Point&>::value>>
    : std::true_type {};
/// Whether a nearest metric offers ball_in_box(box, bound), the search's early exit.
template <class Metric, class Box, class T, class = void>
struct has_ball_in_box : std::false_type {};
template <class Metric, class Box, class T>
struct has_ball_in_box<Metric, Box, T,
                       decltype(void(std::declval<const Metric&>().ball_in_box(std::declval<const Box&>(),
                                                                               std::declval<T>())))>
    : std::true_type {};

}  // namespace detail

/// The Euclidean NearestMetric (docs/extending/nearest-metric.md): to_point is
/// distance_sq(p, query), to_box the squared distance to the closed box, with all three
/// guides (origin, in_box, ball_in_box). What nearest() runs; a start for a metric of your own.
template <class T, std::size_t D>
using euclidean_nearest_metric = detail::euclidean_nearest_metric<T, D>;

/// A 2^D-ary spatial tree over points in D dimensions with scalar T (float or double).
/// Id is the unsigned integer type of point ids; a point's id is its position in the input.
/// Its ball, box and nearest queries (query, count, visit, query_with_distances, nearest)
/// are point_queries'.
template <class T, std::size_t D, class Id = std::uint32_t>
class orthtree : public point_queries<orthtree<T, D, Id>, T, D, Id>,
                 private detail::plain_space<T, D>,
                 private detail::orthtree_data<T, D, Id> {
    static_assert(std::is_floating_point<T>::value, "quoct::orthtree: T must be float, double or long double");
    static_assert(D >= 1 && D <= 8, "quoct::orthtree: D must be between 1 and 8 (2^D children per node)");
    static_assert(std::is_integral<Id>::value && std::is_unsigned<Id>::value,
                  "quoct::orthtree: Id must be an unsigned integer type");

public:
    /// @name Types
    /// The tree's scalar, id, point, box, ball and neighbour types, and its dimension.
    ///@{
    using scalar_type = T;  ///< the coordinate type
    using id_type = Id;  ///< the point ids
    using point_type = quoct::point<T, D>;  ///< a point
    using box_type = box<T, D>;  ///< a closed box
    using ball_type = ball<T, D>;  ///< a closed ball
    using neighbor_type = neighbor<T, Id>;  ///< one result of nearest()
    static constexpr std::size_t dimension = D;  ///< the number of coordinates
    ///@}
    /// Children per internal node at most: 4 for a quadtree, 8 for an octree.
    static constexpr std::size_t fanout = std::size_t{1} << D;

    /// An empty tree.
    orthtree() = default;

    /// Builds from n points at `points`: quoct::point<T, D>, std::array<S, D>, S[D] or any
    /// type described by quoct::point_traits (see quoct/point_traits.hpp); point i gets id i.
    /// The coordinates are read once, converted to T, into the tree's own store; `points` is
    /// not used afterwards. Throws std::invalid_argument (naming the first bad point) if a
    /// coordinate is NaN or infinite, or if the options are out of range; std::length_error
    /// if n points would not fit the Id type. Nothing is built when it throws.
    template <class P>
    orthtree(const P* points, std::size_t n, build_options options = {}) {
        build(detail::point_source<T, D, P>{points, n}, options);
    }

    /// Builds from n points stored flat, coordinate a of point i at coords[i * D + a] (a
    /// C-contiguous numpy array of shape (n, D), a row-major Eigen matrix); n counts points,
    /// not coordinates. Otherwise as the constructor above, which it throws like.
    orthtree(const T* coords, std::size_t n, build_options options = {}) {
        build(detail::flat_source<T, D>{coords, n}, options);
    }

    /// Builds from a contiguous range (std::vector, std::array, a C array, std::span) of any
    /// point type the pointer form takes; ids are positions in the range. Throws as it.
    template <class Range, class = std::enable_if_t<detail::is_contiguous_range<Range>::value>>
    explicit orthtree(const Range& points, build_options options = {}) {
        build(detail::range_source<T, D>(points), options);
    }

    /// Number of points.
    std::size_t size() const noexcept { return size_; }
    /// True when the tree holds no points.
    bool empty() const noexcept { return size_ == 0; }
    /// The smallest box holding every point. An empty tree gives lo = +inf, hi = -inf.
    box_type bounds() const noexcept {
        return bounds_;
    }
    /// Depth of the deepest leaf (0 for a tree of one leaf or none): set by the data, not by
    /// a fixed cap (see max_depth_limit); about 133 for points from 1e-20 to 1e20.
    std::size_t depth() const noexcept { return depth_; }
    /// The options the tree was built with; in a tree built from points (even none), or
    /// read from a file of one, leaf_size is resolved. A tree made empty by default, never
    /// built, keeps auto_leaf_size, and so does one read from its file.
    const build_options& options() const noexcept { return options_; }
    /// Number of nodes.
    std::size_t node_count() const noexcept { return nodes_.empty() ? 0 : nodes_.size() - 1; }
    /// Bytes held by the tree: coordinates, ids and nodes, and the id-to-position map once
    /// point() has built it (sizeof(Id) bytes per point).
    std::size_t memory_bytes() const noexcept {
        return coords_.memory_bytes() + ids_.memory_bytes() + nodes_.memory_bytes() + node_keys_.memory_bytes() +
               parents_.memory_bytes() +
               (lookup_ && lookup_->built.load(std::memory_order_acquire) ? lookup_->position.capacity() * sizeof(Id)
                                                                          : 0);
    }

    /// One node of the tree, read-only, for inspection and interop (a node view like
    /// cKDTree's .tree). Nodes are numbered 0 (the root) to node_count() - 1 in pre-order:
    /// an internal node's first child is the next node, each child's subtree_end is its next
    /// sibling, and the last child's is the parent's own subtree_end; a leaf's subtree_end
    /// is its index + 1 (it has no children). Its points are stored positions [begin, end)
    /// (their ids: stored_ids()), and box is the exact bounds of those points.
    struct node_info {
        std::size_t begin;        ///< first stored position of the node's points
        std::size_t end;          ///< one past its last
        std::size_t subtree_end;  ///< the first node after this node's subtree
        box_type box;             ///< the smallest box holding its points
        bool leaf;                ///< true when the node has no children
    };
    /// Node i (see node_info). Throws std::out_of_range if i >= node_count().
    node_info node_at(std::size_t i) const {
        if (i >= node_count())
            throw std::out_of_range("quoct: node " + std::to_string(i) + " is not a node of the tree");
        if (lazy_) this->reach_node(i), this->reach_run(i, false, false);
        const node& n = nodes_[i];
        return node_info{n.begin, nodes_[n.skip].begin, n.skip, box_of(n), is_leaf(n, i)};
    }
    /// The ids of the points in storage order (size() of them; a node's points are a run
    /// [begin, end) of it): valid while the tree lives, read-only. On a tree opened from a
    /// file without checking it whole (quoct/file.hpp), the first call checks every id
    /// against its block's checksum and that they are a permutation of [0, size()) (throws
    /// quoct::file_error if not): O(n) once.
    const Id* stored_ids() const {
        if (lazy_) this->reach_all_ids();
        return ids_.data();
    }
    /// The point at stored position i < size() (its id is stored_ids()[i]), as stored: with
    /// stored_ids(), every point in storage order, with no map from ids (see point()). On a
    /// tree opened from a file without checking it whole, checks the point's block first.
    point_type stored_point(std::size_t i) const {
        if (lazy_) this->reach_coords(i, i + 1);
        return point_at(i);
    }

    /// The point with this id, as stored (converted to T). The first call builds a map from
    /// ids to stored positions, sizeof(Id) bytes per point, in O(n), once, safely when
    /// threads call at once; later calls are O(1). Throws std::out_of_range if
    /// id >= size(), and std::bad_alloc if the map cannot be built.
    point_type point(Id id) const {
        if (id >= size_ || !lookup_)  // (no lookup_: a moved-from tree)
            throw std::out_of_range("quoct: id " + std::to_string(id) + " is not a point of the tree");
        const std::size_t at = position_of(id);
        if (lazy_) this->reach_coords(at, at + 1);
        return point_at(at);
    }

    // (The ball, box and nearest queries come from point_queries, through the primitives
    // below and query_shape, count_shape and visit_shape.)
    friend class point_queries<orthtree, T, D, Id>;

    /// Advanced: the search behind nearest(), for indexes built on this tree (the dynamic,
    /// periodic and geographic ones), for orders of your own and for merging answers. Calls
    /// sink(id, value) for every point whose metric.to_point(point) is <= set.bound() at
    /// that moment, each point at most once, the leaf nearest the query first, and skips
    /// only regions whose metric.to_box(box) exceeds set.bound() or that the metric's
    /// ball_in_box rules out. Metric is a NearestMetric (docs/extending/nearest-metric.md:
    /// `T to_point(const point_type&) const`, `T to_box(const box_type&) const`, a lower
    /// bound of to_point over the closed box, and optional guides; quoct::euclidean_nearest_metric
    /// is the one nearest() runs). Set is a ResultSet (docs/extending/result-set.md: `T
    /// bound() const` and `bool full() const`; quoct::knn_set, which sink normally feeds,
    /// keeps the best k). Both are checked at compile time (quoct/concepts.hpp).
    /// Throws std::bad_alloc if a tree over 255 deep cannot have room for its path, or a
    /// search over 64 levels deep below one node for its stack (both are on the thread's
    /// stack otherwise), and passes on what sink throws.
    template <class Metric, class Set, class Sink>
    void search_nearest(const Metric& metric, const Set& set, Sink&& sink) const {
        static_assert(is_nearest_metric_v<Metric, T, D>,
                      "quoct: search_nearest's Metric must be a NearestMetric, which needs T to_point(const point_type&) "
                      "const and T to_box(const box_type&) const (docs/extending/nearest-metric.md)");
        static_assert(is_result_set_v<Set, T>,
                      "quoct: search_nearest's Set must be a ResultSet, which needs T bound() const and bool full() const "
                      "(docs/extending/result-set.md)");
        if constexpr (is_nearest_metric_v<Metric, T, D> && is_result_set_v<Set, T>) {  // (one error, not a cascade)
            const auto by_id = [&](Id position, T d) { sink(ids_[position], d); };
            if (lazy_) checked_call([&] { find_nearest<false, true>(metric, set, by_id); });
            else find_nearest<false, false>(metric, set, by_id);
        }
    }

    /// Advanced: queries with a shape of your own (a polygon, a periodic ball, ...): a
    /// Shape (docs/extending/shape.md, checked at compile time by quoct/concepts.hpp)
    /// provides `quoct::relation classify(const box_type& b) const`, which must say outside
    /// only if no point of the closed box b is in the shape and inside only if every point
    /// of it is, and `bool contains(const point_type& p) const`, the membership predicate.
    /// The result is then exactly the points for which contains() is true. Same contracts
    /// as query(), count() and visit(); the shape is not validated.
    template <class Shape>
    void query_shape(const Shape& shape, std::vector<Id>& out) const {
        static_assert(is_shape_v<Shape, T, D>,
                      "quoct: a Shape needs quoct::relation classify(const box_type&) const and "
                      "bool contains(const point_type&) const (docs/extending/shape.md)");
        if constexpr (is_shape_v<Shape, T, D>) collect(shape, out);
    }
    /// Advanced: count() for a shape of your own (see query_shape).
    template <class Shape>
    std::size_t count_shape(const Shape& shape) const {
        static_assert(is_shape_v<Shape, T, D>,
                      "quoct: a Shape needs quoct::relation classify(const box_type&) const and "
                      "bool contains(const point_type&) const (docs/extending/shape.md)");
        if constexpr (is_shape_v<Shape, T, D>) return count_in(shape);
        else return 0;
    }
    /// Advanced: visit() for a shape of your own (see query_shape).
    template <class Shape, class F>
    bool visit_shape(const Shape& shape, F&& f) const {
        static_assert(is_shape_v<Shape, T, D>,
                      "quoct: a Shape needs quoct::relation classify(const box_type&) const and "
                      "bool contains(const point_type&) const (docs/extending/shape.md)");
        if constexpr (is_shape_v<Shape, T, D>) return visit_in(shape, f);
        else return false;
    }

private:
    // The data (detail/orthtree_data.hpp): the sections the searches read, and their numbers.
    // A node's box is the exact bounds of its points in T (tight, so pruning is exact with
    // no rounding argument of its own; in T, so measuring it converts nothing).
    using data_type = detail::orthtree_data<T, D, Id>;
    using node = typename data_type::node;
    using data_type::size_;
    using data_type::coords_;
    using data_type::ids_;
    using data_type::nodes_;
    using data_type::node_keys_;
    using data_type::parents_;
    using data_type::grid_;
    using data_type::axis_bits_;
    using data_type::key_shift_;
    using data_type::bounds_;
    using data_type::depth_;
    using data_type::unchecked_;
    using data_type::options_;
    using data_type::lazy_;
    using data_type::empty_box;
    using data_type::axis;
    using data_type::point_at;
    using data_type::is_leaf;
    // A node a nearest search defers, with its lower bound.
    struct deferred {
        Id index;
        T distance;
    };
    // A nearest search keeps its path (depth() + 1 nodes) on the thread's stack in trees up
    // to inline_depth deep, on the heap in deeper ones; and its stack of deferred nodes
    // (fanout - 1 a level of the subtree it searches, and one more) in 16 KiB of the thread's
    // stack, room for 64 levels in 2D and 3D, moved to the heap if it ever needs more. A
    // tree whose whole depth fits both (shallow()) needs neither the test nor the move.
    static constexpr std::size_t inline_depth = 255;
    static constexpr std::size_t inline_deferred =
        std::min(64 * (fanout - 1) + 1, std::size_t{16384} / sizeof(deferred));
    static_assert(inline_deferred >= fanout, "quoct: a node's children must fit the deferred stack");
    bool shallow() const noexcept { return depth_ <= 64 && depth_ * (fanout - 1) + 1 <= inline_deferred; }

    box_type box_of(const node& n) const noexcept {
        box_type b;
        for (std::size_t a = 0; a < D; ++a) {
            b.lo[a] = n.lo[a];
            b.hi[a] = n.hi[a];
        }
        return b;
    }

    // --- queries -------------------------------------------------------------------------

    // The one traversal every shape query runs on. whole(b, e) receives the runs of nodes
    // that lie entirely inside the shape, partial(b, e) the leaves that straddle its
    // boundary; either returns false to stop. Returns false if stopped. WholeReads says
    // what whole() reads of its points (partial() reads their coordinates and ids): on
    // data read lazily from a file, that is checked before it is handed over.
    enum reads : unsigned { reads_nothing = 0, reads_ids = 1, reads_all = 3 };
    // Checked (data read lazily): every node it reaches is checked (reach_node) before its
    // links are followed (it walks forwards, so it ends), and every run of points before it
    // is handed over.
    template <unsigned WholeReads, bool Checked, class Query, class Whole, class Partial>
    bool traverse(const Query& q, Whole&& whole, Partial&& partial) const {
        constexpr bool checked = Checked;
        const std::size_t count = node_count();
        for (std::size_t i = 0; i < count;) {
            if (checked) this->reach_node(i);
            const node& n = nodes_[i];
            const relation rel = q.classify(box_of(n));
            if (rel == relation::partial && !is_leaf(n, i)) {
                ++i;  // look inside: the first child is next
                continue;
            }
            if (rel != relation::outside) {
                const std::size_t b = n.begin, e = nodes_[n.skip].begin;
                if (checked) this->reach_run(i, rel == relation::partial || WholeReads == reads_all, rel == relation::partial || WholeReads != reads_nothing);
                if (!(rel == relation::inside ? whole(b, e) : partial(b, e))) return false;
            }
            i = n.skip;
        }
        return true;
    }
    // Each search comes in two forms, a template flag Checked apart: checked, on data read
    // lazily from a file (every node and run of points checked as reached), and not. The
    // public entries pick one (lazy_ set or not); the checked form is called through
    // checked_call, kept out of line and compiled for size, and each form has its own
    // lambdas, so that the form for trusted data compiles as it would alone. (The same
    // checks behind a run-time flag in one form cost the trees in memory 1.5 to 3.6% more
    // instructions under callgrind; the two forms sharing one set of lambdas, 2 to 14%.)
    template <class F>
    QUOCT_CHECKED_PATH void checked_call(const F& f) const {
        f();
    }

    // The vector kernels of the neighbour lists (detail/pair_kernels.hpp) count the points
    // of the leaves a plain ball straddles, with the ball's own arithmetic (distance_sq in
    // T, never fused, <= radius_sq): for float and double, at the AVX2 or AVX-512 level.
    // They read whole vectors past a range, so ranges stop kernels::lanes_max points short
    // of the end of the stored points (the few after go through the loop). Measured: counts
    // 8 to 20% faster; collecting ids the same way was no faster for balls of 256 points
    // and 2 to 5% slower for balls of 32, so query() keeps its branch-free loop.
    template <class Query>
    static constexpr bool kernel_ball =
        detail::kernels::has_vector_kernels<T> && std::is_same<Query, detail::ball_query<T, D, true>>::value;
    // The end of the part of [b, e) the kernels may take: b when they do not run here.
    std::size_t kernel_end(std::size_t b, std::size_t e, detail::kernels::level l) const noexcept {
        if (l == detail::kernels::level::portable || size_ < detail::kernels::lanes_max ||
            size_ > std::numeric_limits<std::uint32_t>::max())
            return b;
        return std::max(b, std::min(e, size_ - detail::kernels::lanes_max));
    }
    template <class Query>
    void ball_kernel_args(const Query& q, T (&center)[D], const T* (&cols)[D]) const noexcept {
        for (std::size_t a = 0; a < D; ++a) {
            center[a] = q.center[a];
            cols[a] = axis(a);
        }
    }

    template <class Query>
    void collect(const Query& q, std::vector<Id>& out) const {
        if (lazy_) checked_call([&] { collect_in<true>(q, out); });
        else collect_in<false>(q, out);
    }
    template <bool Checked, class Query>
    void collect_in(const Query& q, std::vector<Id>& out) const {
        out.clear();
        traverse<reads_ids, Checked>(
            q,
            [&](std::size_t b, std::size_t e) {
                out.insert(out.end(), ids_.data() + b, ids_.data() + e);
                return true;
            },
            [&](std::size_t b, std::size_t e) {
                // Branch-free: write every id, advance past the ones inside.
                constexpr std::size_t chunk = 64;
                Id found[chunk];
                for (std::size_t s = b; s < e; s += chunk) {
                    const std::size_t stop = std::min(e, s + chunk);
                    std::size_t k = 0;
                    for (std::size_t i = s; i < stop; ++i) {
                        found[k] = ids_[i];
                        k += q.contains(point_at(i)) ? 1u : 0u;
                    }
                    const Id* first = found;  // the same insert as the whole runs above
                    out.insert(out.end(), first, first + k);
                }
                return true;
            });
    }

    template <class Query>
    std::size_t count_in(const Query& q) const {
        if (!lazy_) return count_of<false>(q);
        std::size_t total = 0;
        checked_call([&] { total = count_of<true>(q); });
        return total;
    }
    template <bool Checked, class Query>
    std::size_t count_of(const Query& q) const {
        std::size_t total = 0;
        [[maybe_unused]] const detail::kernels::level level = detail::kernels::active_level();
        traverse<reads_nothing, Checked>(
            q,
            [&](std::size_t b, std::size_t e) {
                total += e - b;
                return true;
            },
            [&](std::size_t b, std::size_t e) {
                if constexpr (kernel_ball<Query>) {
                    const std::size_t v_end = kernel_end(b, e, level);
                    if (v_end != b) {
                        T center[D];
                        const T* cols[D];
                        ball_kernel_args(q, center, cols);
                        total += detail::kernels::count_within<T, D>(level, center, cols, nullptr, b, v_end, q.radius_sq);
                        b = v_end;
                    }
                }
                // Counted in T in short runs: exact, and the loop vectorises.
                constexpr std::size_t chunk = 1024;
                for (std::size_t s = b; s < e; s += chunk) {
                    const std::size_t stop = std::min(e, s + chunk);
                    T here = 0;
                    for (std::size_t i = s; i < stop; ++i) here += q.contains(point_at(i)) ? T(1) : T(0);
                    total += static_cast<std::size_t>(here);
                }
                return true;
            });
        return total;
    }

    template <class Query, class F>
    bool visit_in(const Query& q, F& f) const {
        if (!lazy_) return visit_of<false>(q, f);
        bool done = false;
        checked_call([&] { done = visit_of<true>(q, f); });
        return done;
    }
    template <bool Checked, class Query, class F>
    bool visit_of(const Query& q, F& f) const {
        return traverse<reads_all, Checked>(
            q,
            [&](std::size_t b, std::size_t e) {
                for (std::size_t i = b; i < e; ++i)
                    if (!detail::go_on(f, ids_[i], point_at(i))) return false;
                return true;
            },
            [&](std::size_t b, std::size_t e) {
                for (std::size_t i = b; i < e; ++i) {
                    const point_type p = point_at(i);
                    if (q.contains(p) && !detail::go_on(f, ids_[i], p)) return false;
                }
                return true;
            });
    }

    // --- point_queries' primitives -------------------------------------------------------

    // (with_ball, with_box and result_distance_sq: detail::plain_space's.)
    void capped_nearest(const point_type& p, std::size_t k, T radius, std::vector<neighbor_type>& out) const {
        detail::check_point(p, "nearest query point");
        detail::check_k(k);
        detail::check_radius(radius, "nearest");
        if (lazy_) checked_call([&] { capped_nearest_in<true>(p, k, radius, out); });
        else capped_nearest_in<false>(p, k, radius, out);
    }
    template <bool Checked>
    void capped_nearest_in(const point_type& p, std::size_t k, T radius, std::vector<neighbor_type>& out) const {
        // Points are offered by storage position; the set reads an id only for a tie and
        // for the answers.
        const Id* ids = ids_.data();
        detail::run_nearest_sq<T, D, Id>(
            out, k, size_, radius,
            [&](const auto& set, auto&& sink) {
                const detail::euclidean_nearest_metric<T, D> metric{p};
                if (k == 1) find_nearest<true, Checked>(metric, set, sink);
                else find_nearest<false, Checked>(metric, set, sink);
            },
            [&](Id position) { return point_at(position) == p; },
            [&](T upper, auto&& f) {
                visit_of<Checked>(detail::ball_query<T, D>(p, detail::radius_bound<T, D>::at_most(upper)), f);
            },
            [&](const point_type& q) { return detail::point_offsets<T, D>{q, p}; },
            [ids](Id position) { return ids[position]; });
    }

    // --- build (detail/orthtree_build.hpp) --------------------------------------------------

    template <class Source>
    void build(const Source& points, const build_options& options) {
        detail::orthtree_builder<T, D, Id>(static_cast<data_type&>(*this)).build(points, options);
        if (size_ != 0) lookup_ = std::make_shared<id_lookup>();
    }

    // search_nearest, calling sink(position, distance) (a point's storage position);
    // Single: sink offers every point to a set that keeps one (k == 1).
    template <bool Single, bool Checked, class Metric, class Set, class Sink>
    void find_nearest(const Metric& metric, const Set& set, Sink& sink) const;
    template <bool Single, bool Shallow, bool Checked, class Metric, class Set, class Sink>
    void find_nearest_in(const Metric& metric, const Set& set, Sink& sink) const;
    // search_nearest for dynamic_orthtree, which searches several trees as one: its first
    // tree by search_nearest, the others by this, once the set holds the first one's
    // nearest points. Top down: nearest child first, every node farther than the bound
    // left out, which visits less than search_nearest's start from the query's leaf (found
    // by a binary search, then climbed back) in a tree whose points lie mostly beyond the
    // bound. Only where can_search_top_down(): built here (not read lazily), and shallow(),
    // so that the deferred nodes (at most fanout - 1 a level, and one) fit the stack.
    template <class, std::size_t, class>
    friend class dynamic_orthtree;
    bool can_search_top_down() const noexcept { return !lazy_ && shallow(); }
    // The box of the points held (the root's; bounds() may be larger in a tree that has
    // dropped points): for a tree not read lazily and not empty.
    box_type points_box() const noexcept { return box_of(nodes_[0]); }
    // This tree without the points whose id (input position) p has dropped(p), the others'
    // ids renumbered 0, 1, ... in order (orthtree_builder::compact); only on a tree built
    // here (not read lazily). For dynamic_orthtree, which so forgets the points it erased.
    bool can_compact() const noexcept { return !lazy_; }
    template <class Dropped>
    orthtree without(Dropped&& dropped) const {
        data_type d;
        detail::orthtree_builder<T, D, Id>(d).compact(data(), dropped);
        return orthtree(std::move(d));
    }
    template <class Metric, class Set, class Sink>
    void search_nearest_top_down(const Metric& metric, const Set& set, Sink&& sink) const {
        if (nodes_.empty()) return;
        const auto by_id = [&](Id position, T d) { sink(ids_[position], d); };
        deferred stack[inline_deferred];
        std::size_t top = 0;
        const auto visit = [&](std::size_t at) {
            const node& n = nodes_[at];
            if (is_leaf(n, at)) {
                scan_leaf<false>(metric, set, by_id, n.begin, nodes_[n.skip].begin);
                return;
            }
            const T bound = set.bound();
            const std::size_t base = top;
            std::size_t nearest_child = base;
            T nearest_distance = T(0);
            for (std::size_t ci = at + 1; ci < n.skip; ci = nodes_[ci].skip) {
                const T d = metric.to_box(box_of(nodes_[ci]));
                if (d > bound) continue;
                if (top == base || d < nearest_distance) nearest_child = top, nearest_distance = d;
                stack[top++] = deferred{static_cast<Id>(ci), d};
            }
            if (top - base > 1) std::swap(stack[nearest_child], stack[top - 1]);
        };
        visit(0);
        while (top != 0) {
            const deferred e = stack[--top];
            if (e.distance <= set.bound()) visit(e.index);
        }
    }
    template <bool Single, class Metric, class Set, class Sink>
    void scan_leaf(const Metric& metric, const Set& set, Sink& sink, std::size_t b, std::size_t e) const;
    template <class Metric, class Set, class Sink>
    void scan_start_leaf(const Metric& metric, const Set& set, Sink& sink, std::size_t b, std::size_t e) const;
    template <bool Checked, class Metric>
    std::size_t locate_leaf(const Metric& metric, std::size_t* up) const;
    template <bool Checked, class Metric>
    std::size_t descend(const Metric& metric, std::size_t* up, std::size_t from = 0) const;
    template <bool Checked, class Metric>
    std::size_t restart_within(const Metric& metric, std::size_t* up, std::size_t depth) const;
    // On data read lazily: a child of a node reached, checked (reach_node) to lie within its
    // parent's subtree, the parent to have no more than 2^D children, and a path to be no
    // deeper than the recorded depth (the searches' arrays are sized by it).
    QUOCT_CHECKED_PATH void reach_child(std::size_t child, std::size_t parent_end, std::size_t nth) const {
        this->reach_node(child, parent_end);
        if (nth > fanout) this->fail_node(child - 1, "has too many children");
    }
    QUOCT_CHECKED_PATH void check_depth(std::size_t depth, std::size_t at) const {
        if (depth > depth_) this->fail_node(at, "lies deeper than the tree's recorded depth");
    }

    // The id-to-position map point() builds on first use, shared by copies of the tree
    // (which hold the same ids); `built` lets memory_bytes() look without waiting.
    struct id_lookup {
        std::once_flag once;
        std::atomic<bool> built{false};
        std::vector<Id> position;
    };
    std::size_t position_of(Id id) const {
        id_lookup& l = *lookup_;
        if (lazy_) this->reach_all_ids();
        std::call_once(l.once, [&] {
            std::vector<Id> pos(size_);
            // (An id out of range can only come from a damaged file opened unverified: skipped,
            // so that it cannot write outside the map.)
            for (std::size_t i = 0; i < size_; ++i)
                if (ids_[i] < size_) pos[ids_[i]] = static_cast<Id>(i);
            l.position = std::move(pos);
            l.built.store(true, std::memory_order_release);
        });
        return l.position[id];
    }

    std::shared_ptr<id_lookup> lookup_;

    // Index files (quoct/file.hpp, through detail::file_codec) store the data's sections
    // and make trees over data read back (detail/orthtree_data.hpp writes and checks them);
    // they know nothing else of the tree.
    template <class>
    friend struct detail::file_codec;
    static std::string file_type_name() {
        return "orthtree<" + detail::scalar_name<T>() + ", " + std::to_string(D) + ", " + detail::id_name<Id>() + ">";
    }
    template <class Writer>
    void write_sections(Writer& w, const std::string& prefix) const {
        data().write_sections(w, prefix);
    }
    template <class Reader>
    static orthtree read_sections(const Reader& r, const std::string& prefix) {
        return orthtree(data_type::read_sections(r, prefix));
    }
    const data_type& data() const noexcept { return *this; }
    explicit orthtree(data_type data) : data_type(std::move(data)) {
        if (size_ != 0) lookup_ = std::make_shared<id_lookup>();
    }
};

/// A quadtree: the orthtree in 2D.
template <class T, class Id = std::uint32_t>
using quadtree = orthtree<T, 2, Id>;
/// An octree: the orthtree in 3D.
template <class T, class Id = std::uint32_t>
using octree = orthtree<T, 3, Id>;

// ---------------------------------------------------------------------------------------
// Implementation

// The leaf whose run of Morton keys holds p's key on the root grid (p outside the bounds is
// clamped to them): a branch-free binary search for the last node whose key is at most p's,
// which is a leaf (the node before the first one with a larger key ends its predecessor's
// subtree), or the root when p's key is below them all (then its first leaf). Writes the
// leaf and its ancestors, the leaf first and the root last, to `up`; returns the leaf's
// depth. p is metric.origin(). When the leaf's key is p's, p's cell may be split among
// several leaves (below the root grid's resolution), of which this is the last: then
// restart_within makes sure of it, when the metric has in_box.
template <class T, std::size_t D, class Id>
template <bool Checked, class Metric>
std::size_t orthtree<T, D, Id>::locate_leaf(const Metric& metric, std::size_t* up) const {
    constexpr bool checked = Checked;
    const point_type& p = metric.origin();
    const std::uint32_t key = static_cast<std::uint32_t>(grid_->key(p) >> key_shift_);
    const std::uint32_t* keys = node_keys_.data();
    std::size_t at = 0;
    for (std::size_t n = node_keys_.size(); n > 1;) {
        const std::size_t half = n / 2;
        if (checked) this->reach_key(at + half);
        at = detail::select_index(keys[at + half] <= key, at + half, at);
        n -= half;
    }
    if (checked) this->reach_key(at);
    const bool shared = keys[at] == key;
    if (checked) this->reach_node(at);
    while (!is_leaf(nodes_[at], at)) {
        ++at;
        if (checked) this->reach_node(at);
    }
    std::size_t count = 0;
    if (checked) {
        // Up by the checked parents (each holds its child), no deeper than recorded.
        for (; at != 0; at = this->reach_parent(at)) {
            check_depth(count + 1, at);
            up[count++] = at;
        }
    } else {
        for (; at != 0; at = parents_[at]) up[count++] = at;
    }
    up[count] = 0;
    if constexpr (detail::has_in_box<Metric, box_type>::value)
        if (shared) return restart_within<Checked>(metric, up, count);
    return count;
}

// Straight down to a leaf, at each level the first child whose box holds the query (in_box,
// if the metric has it) or else the nearest by to_box, keeping nothing on the way: from the
// root, or from up[from] when up[0..from] is the path to it from the root. Writes the leaf
// and its ancestors to `up` as locate_leaf does; returns the leaf's depth.
template <class T, std::size_t D, class Id>
template <bool Checked, class Metric>
std::size_t orthtree<T, D, Id>::descend(const Metric& metric, std::size_t* up, std::size_t from) const {
    constexpr bool checked = Checked;
    std::size_t depth = from;
    if (from == 0) up[0] = 0;  // the path from the root, reversed at the end
    std::size_t at = up[from];
    if (checked) this->reach_node(at);
    while (!is_leaf(nodes_[at], at)) {
        const std::size_t end = nodes_[at].skip;
        std::size_t choice = end;
        if constexpr (detail::has_in_box<Metric, box_type>::value) {
            std::size_t nth = 0;
            for (std::size_t ci = at + 1; ci < end; ci = nodes_[ci].skip) {
                if (checked) reach_child(ci, end, ++nth);
                if (metric.in_box(box_of(nodes_[ci]))) {
                    choice = ci;
                    break;
                }
            }
        }
        if (choice == end) {
            std::size_t ci = at + 1, nth = 1;
            if (checked) reach_child(ci, end, nth);
            choice = ci;
            T best = metric.to_box(box_of(nodes_[ci]));
            while (best > T(0) && (ci = nodes_[ci].skip) < end) {
                if (checked) reach_child(ci, end, ++nth);
                const T d = metric.to_box(box_of(nodes_[ci]));
                if (d < best) best = d, choice = ci;
            }
        }
        at = choice;
        if (checked) check_depth(depth + 1, at);
        up[++depth] = at;
    }
    std::reverse(up, up + depth + 1);
    return depth;
}

// A leaf found by key whose cell of the root grid is split among several leaves (in a
// subtree re-sorted on a finer grid, as data at every scale makes, or in the bits cut from
// the keys) is the last of them, maybe far from the query: unless the query lies in its
// box, start again at the deepest ancestor whose box holds the query and go down from there.
// `up` and the result as locate_leaf and descend.
template <class T, std::size_t D, class Id>
template <bool Checked, class Metric>
std::size_t orthtree<T, D, Id>::restart_within(const Metric& metric, std::size_t* up, std::size_t depth) const {
    if (depth == 0 || metric.in_box(box_of(nodes_[up[0]]))) return depth;
    std::size_t from = 1;
    while (from < depth && !metric.in_box(box_of(nodes_[up[from]]))) ++from;
    std::reverse(up + from, up + depth + 1);  // the path from the root to up[from] ...
    std::copy(up + from, up + depth + 1, up);  // ... at the front
    return descend<Checked>(metric, up, depth - from);
}

// In two passes. First to a leaf near the query, whose points fill the set and give the
// bound (offered nearest first by scan_start_leaf, unless k = 1): with a metric that has an
// origin(), the leaf whose Morton cell holds it, found by a binary search on the node keys
// (locate_leaf; where that cell is split further, as in data at every scale, down from the
// deepest ancestor whose box holds the query); otherwise straight down (descend). Then
// back up the path from the root to that leaf: at each level the siblings of
// the path node within the bound are searched depth first, nearest child first (entered at
// once, the others wait on an explicit stack with their lower bounds). Every node is thus
// either on the path or under a sibling of it, and each point is offered once. A node may
// hold a point tied with the worst kept one but with a smaller id, so only nodes strictly
// farther than the bound are pruned (an infinite box distance, possible only with infinite
// coordinates, is never pruned while the set is not full).
template <class T, std::size_t D, class Id>
template <bool Single, bool Checked, class Metric, class Set, class Sink>
void orthtree<T, D, Id>::find_nearest(const Metric& metric, const Set& set, Sink& sink) const {
    if (nodes_.empty()) return;
    if (metric.to_box(box_of(nodes_[0])) > set.bound()) return;
    // (Data read lazily: its depth is not trusted, so room is tested.)
    if (Checked || !shallow()) find_nearest_in<Single, false, Checked>(metric, set, sink);
    else find_nearest_in<Single, true, false>(metric, set, sink);
}

// find_nearest in a tree that is shallow() or not. The two are apart so that the shallow
// one's path and stack are at fixed places in its frame and it never tests for room.
// On data read lazily from a file, every node is checked as it is reached, children
// within their parent (so no node is reached twice under one path node), at most 2^D of
// them, the path no deeper than recorded, every leaf's points before they are read.
template <class T, std::size_t D, class Id>
template <bool Single, bool Shallow, bool Checked, class Metric, class Set, class Sink>
void orthtree<T, D, Id>::find_nearest_in(const Metric& metric, const Set& set, Sink& sink) const {
    constexpr bool checked = Checked;
    std::size_t up_here[inline_depth + 1];
    std::unique_ptr<std::size_t[]> up_heap;
    if (!Shallow && depth_ > inline_depth) up_heap.reset(new std::size_t[depth_ + 1]);
    std::size_t* const up = Shallow || depth_ <= inline_depth ? up_here : up_heap.get();
    // up[0] is the leaf searched first, up[i + 1] the parent of up[i], up[depth] the root.
    std::size_t depth = 0;
    if constexpr (detail::has_origin<Metric, point_type>::value) {
        depth = grid_ ? locate_leaf<Checked>(metric, up) : descend<Checked>(metric, up);
    } else {
        depth = descend<Checked>(metric, up);
    }
    const std::size_t leaf = up[0];
    if (checked) this->reach_run(leaf, true, true);
    if constexpr (Single) scan_leaf<true>(metric, set, sink, nodes_[leaf].begin, nodes_[nodes_[leaf].skip].begin);
    else scan_start_leaf(metric, set, sink, nodes_[leaf].begin, nodes_[nodes_[leaf].skip].begin);

    // The deferred nodes, most recent last; a local count keeps the top in a register.
    deferred stack_here[inline_deferred];
    std::unique_ptr<deferred[]> stack_heap;
    deferred* stack = stack_here;
    std::size_t room = inline_deferred, top = 0;
    // Pushes the children of node `parent` within the bound but `skip`, the nearest on top.
    const auto push_children = [&](std::size_t parent, std::size_t skip) {
        if (!Shallow && room - top < fanout) {  // deeper than 64 levels below a path node
            std::unique_ptr<deferred[]> more(new deferred[2 * room]);
            std::copy(stack, stack + top, more.get());
            stack_heap = std::move(more);
            stack = stack_heap.get();
            room *= 2;
        }
        const std::size_t base = top;
        std::size_t nearest_child = base;
        T nearest_distance = T(0);
        const T bound = set.bound();
        [[maybe_unused]] std::size_t nth = 0;
        [[maybe_unused]] bool met_skip = skip == 0;
        for (std::size_t ci = parent + 1; ci < nodes_[parent].skip; ci = nodes_[ci].skip) {
            if (checked) reach_child(ci, nodes_[parent].skip, ++nth);
            if (ci == skip) {
                if (checked) met_skip = true;
                continue;
            }
            const T d = metric.to_box(box_of(nodes_[ci]));
            if (d > bound) continue;
            if (top == base || d < nearest_distance) {
                nearest_child = top;
                nearest_distance = d;
            }
            stack[top++] = deferred{static_cast<Id>(ci), d};
        }
        // (A path node that is not a child of the next one up would have its subtree
        // searched again at every level above: refused.)
        if (checked && !met_skip) this->fail_node(skip, "is not a child of the node recorded as its parent");
        if (top - base > 1) std::swap(stack[nearest_child], stack[top - 1]);
    };
    for (std::size_t level = 1; level <= depth; ++level) {
        // The k-ball inside an internal path node's box: every point outside it is too far
        // (its points are a cell of the Morton grid, strictly apart from its siblings' on
        // some axis, and so are its ancestors'). Not for the leaf: a leaf may be a merged
        // run of sibling cells whose box overlaps theirs.
        if constexpr (detail::has_ball_in_box<Metric, box_type, T>::value)
            if (level > 1 && metric.ball_in_box(box_of(nodes_[up[level - 1]]), set.bound())) return;
        push_children(up[level], up[level - 1]);
        // Depth first under the siblings just pushed: the most recently deferred node
        // still within the bound next; a leaf is scanned, an internal node's children pushed.
        while (top != 0) {
            const deferred e = stack[--top];
            if (e.distance > set.bound()) continue;
            const node& n = nodes_[e.index];
            if (is_leaf(n, e.index)) {
                if (checked) this->reach_run(e.index, true, true);
                scan_leaf<Single>(metric, set, sink, n.begin, nodes_[n.skip].begin);
            } else {
                push_children(e.index, 0);
            }
        }
    }
}

// Offers the points [b, e) of a leaf: distances first, in a loop that vectorises, then only
// the contenders (the bound is re-read only after an offer, which may tighten it). Single
// (one nearest wanted, every point offered to the set): only the points at the chunk's
// least distance can enter, so only they are offered, found by a test that is almost never
// true instead of one on each point against a bound that keeps moving.
template <class T, std::size_t D, class Id>
template <bool Single, class Metric, class Set, class Sink>
void orthtree<T, D, Id>::scan_leaf(const Metric& metric, const Set& set, Sink& sink, std::size_t b,
                                   std::size_t e) const {
    constexpr std::size_t chunk = 64;
    T dist[chunk];
    T bound = set.bound();
    for (std::size_t s = b; s < e; s += chunk) {
        const std::size_t m = std::min<std::size_t>(e - s, chunk);
        for (std::size_t j = 0; j < m; ++j) dist[j] = metric.to_point(point_at(s + j));
        if constexpr (Single) {
            // The least distance, two running minima side by side. (No distance is NaN in a
            // built tree; in one read from a damaged file a NaN can hide its chunk's points,
            // a wrong answer but no read outside it.)
            T least0 = dist[0], least1 = dist[0];
            std::size_t j = 1;
            for (; j + 1 < m; j += 2) {
                least0 = std::min(least0, dist[j]);
                least1 = std::min(least1, dist[j + 1]);
            }
            if (j < m) least0 = std::min(least0, dist[j]);
            const T least = std::min(least0, least1);
            if (!(least <= bound)) continue;
            for (std::size_t i = 0; i < m; ++i)
                if (dist[i] <= least) sink(static_cast<Id>(s + i), dist[i]);  // that is, == least
            bound = set.bound();
        } else {
            for (std::size_t j = 0; j < m; ++j)
                if (dist[j] <= bound) {
                    sink(static_cast<Id>(s + j), dist[j]);
                    bound = set.bound();
                }
        }
    }
}

// The leaf a search starts from, its points offered nearest first, near enough: by buckets
// of distance, so that the set fills with the nearest and few points enter only to be
// pushed out again. In storage order about k (1 + ln(m / k)) of a leaf's m points enter,
// each an insertion that shifts the kept ones and mispredicts the end of its loop; nearest
// first, about k enter, each near the end. Callgrind on the cities, knn10: 24.2 insertions
// a query before, 17.7 after (bench/README.md). A leaf of over 64 points, or distances the
// buckets cannot scale to (infinite, or all zero), go in storage order, and so does a leaf
// offered to a full set (a later tree of the dynamic index), where few points can enter.
template <class T, std::size_t D, class Id>
template <class Metric, class Set, class Sink>
void orthtree<T, D, Id>::scan_start_leaf(const Metric& metric, const Set& set, Sink& sink, std::size_t b,
                                         std::size_t e) const {
    constexpr std::size_t most = 64, buckets = 64;  // a point and a bucket per bit of a word
    const std::size_t m = e - b;
    if (m > most || m == 0 || set.full()) return scan_leaf<false>(metric, set, sink, b, e);
    T dist[most];
    for (std::size_t i = 0; i < m; ++i) dist[i] = metric.to_point(point_at(b + i));
    T far0 = dist[0], far1 = dist[m - 1];  // two running maxima side by side
    for (std::size_t i = 1; i + 1 < m; i += 2) far0 = std::max(far0, dist[i]), far1 = std::max(far1, dist[i + 1]);
    const T scale = T(buckets) / std::max(far0, far1);
    if (!(scale < std::numeric_limits<T>::infinity() && scale > T(0))) return scan_leaf<false>(metric, set, sink, b, e);
    // Bucket c holds the points with c <= d * scale < c + 1 (the last one also those beyond):
    // in[c] has bit i for point i, and bit c of `used` says that in[c] is not empty.
    std::uint64_t in[buckets] = {};
    std::uint64_t used = 0;
    const auto fill = [&](auto unchecked) {
        for (std::size_t i = 0; i < m; ++i) {
            // A NaN distance (from coordinates no built tree has: a file opened without its
            // checksums, quoct/file.hpp) goes to bucket 0 by max(0, d); a checked tree keeps
            // the cheaper order of operands.
            const T d = dist[i] * scale;
            const T low = decltype(unchecked)::value ? std::max(T(0), d) : std::max(d, T(0));
            const auto c = static_cast<unsigned>(std::min(low, T(buckets - 1)));
            in[c] |= std::uint64_t{1} << i;
            used |= std::uint64_t{1} << c;
        }
    };
    if (unchecked_) fill(std::true_type{});
    else fill(std::false_type{});
    // A point in bucket c has d * scale >= c in floating point, and rounding keeps order,
    // so once bound * scale < c no point from bucket c on is within the bound.
    T bound = set.bound();
    for (; used != 0; used &= used - 1) {
        const unsigned c = detail::lowest_bit(used);
        if (bound * scale < T(c)) break;
        for (std::uint64_t points = in[c]; points != 0; points &= points - 1) {
            const unsigned i = detail::lowest_bit(points);
            if (dist[i] <= bound) {
                sink(static_cast<Id>(b + i), dist[i]);
                bound = set.bound();
            }
        }
    }
}

}  // namespace quoct

#endif  // QUOCT_ORTHTREE_HPP
