// quoct: the in-memory builder of an orthtree's data (detail/orthtree_data.hpp) from points
// in memory. Dependency-free.
//
// The build sorts the points by Morton key on a grid over their bounds, splits the sorted run
// into nodes by key digits (a subtree whose keys run out of bits is re-sorted on a grid
// fitted to its points), then stores the coordinates in key order, axis by axis, and last
// the node boxes and the nearest index. It reads nothing but the keys and, where it must,
// the input points, and writes only the data's sections: orthtree.hpp's searches never
// see it.
#ifndef QUOCT_DETAIL_ORTHTREE_BUILD_HPP
#define QUOCT_DETAIL_ORTHTREE_BUILD_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../build_options.hpp"
#include "../point_traits.hpp"
#include "../shapes.hpp"
#include "morton.hpp"
#include "orthtree_data.hpp"

namespace quoct {
namespace detail {

/// A node yet to be built over sorted positions [b, e): its depth, the key bits per axis
/// left below the digits its points share, and whether the keys' grid was fitted to this
/// node's points with nothing split since (`fresh`).
struct build_pending {
    std::size_t b, e, depth;
    unsigned bits_left;
    bool fresh;
};

/// How many children the node t (over leaf_size, above max_depth) gets, 0 if it is a leaf
/// after all; their runs of sorted positions start at run_start[0..runs) and the last ends at
/// run_start[runs]. key(i) is the Morton key at sorted position i (D * axis_bits bits). The
/// keys of [b, e) share all but their low D * bits_left bits. Levels where every point falls
/// in the same child are skipped (t.bits_left counts down), so each internal node has at
/// least two children. When the keys run out of bits, requantize(t) re-sorts the range on a
/// grid fitted to its points (and key(i) reads the new keys); when t is `fresh` running out
/// again means the points are all equal, and the node is a leaf. Both builders split with it.
template <std::size_t D, class KeyAt, class Requantize>
std::size_t split_runs(KeyAt&& key, Requantize&& requantize, build_pending& t, unsigned axis_bits,
                       std::size_t leaf_size, std::size_t* run_start) {
    const std::size_t b = t.b, e = t.e;
    constexpr std::uint64_t mask = (std::uint64_t{1} << D) - 1;
    for (;;) {
        if (t.bits_left == 0) {
            if (t.fresh) return 0;  // a fitted grid could not separate them: all equal
            requantize(t);
            t.bits_left = axis_bits;
            t.fresh = true;
        }
        const unsigned shift = static_cast<unsigned>(D) * (t.bits_left - 1);
        if (((key(b) >> shift) & mask) != ((key(e - 1) >> shift) & mask)) break;
        --t.bits_left;
    }
    // Keys are sorted and share every digit above this one, so each child is one run.
    const unsigned shift = static_cast<unsigned>(D) * (t.bits_left - 1);
    std::size_t runs = 0;
    for (std::size_t s = b; s < e; ++runs) {
        run_start[runs] = s;
        const std::uint64_t d = (key(s) >> shift) & mask;
        std::size_t lo = s + 1, hi = e;  // first position whose digit differs from d
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (((key(mid) >> shift) & mask) == d) lo = mid + 1;
            else hi = mid;
        }
        // Sibling octants that would each be a small leaf share one leaf instead, so leaves
        // stay near leaf_size points rather than a 2^D-th of it.
        if (runs > 0 && lo - run_start[runs - 1] <= leaf_size) --runs;
        s = lo;
    }
    run_start[runs] = e;
    return runs;
}

/// Fills an orthtree's data from a source of points (detail::point_source and its kin:
/// size() and operator[] giving a point<T, D>). Throws std::invalid_argument (a NaN or
/// infinite coordinate, naming the point; options out of range) and std::length_error (more
/// points than Id can number) before anything is written.
template <class T, std::size_t D, class Id>
class orthtree_builder {
public:
    using data = orthtree_data<T, D, Id>;
    using node = typename data::node;
    using box_type = box<T, D>;
    using point_type = point<T, D>;
    static constexpr std::size_t fanout = data::fanout;

    explicit orthtree_builder(data& d) noexcept : d_(d) {}

    template <class Source>
    void build(const Source& points, const build_options& options);

    /// Builds the subtree of a larger tree over `points` (a part of its sorted points), for
    /// the out-of-core builder: `items` are the part's packed sort items in order (a key on
    /// the larger tree's root grid above `layout.index_bits`, a position in `points` below),
    /// `start` the subtree's root as the larger build would reach it (positions relative to
    /// the part, its depth and key bits left as in the larger tree), `root` the larger tree's
    /// bounds. The data then holds the part's points, ids (positions in `points`), nodes
    /// (parents relative to the subtree's root, whose own parent reads 0) and node keys on
    /// the root grid: the larger tree's nodes for this subtree, as an in-memory build of all
    /// the points makes them, once offset. `options` as the larger build's, leaf size set.
    template <class Source>
    void build_part(const Source& points, raw_vector<std::uint64_t> items, key_layout layout, build_pending start,
                    const box_type& root, const build_options& options);

    /// The data of `src` (built here, not read lazily) without the points at the input
    /// positions p for which dropped(p): the others keep their stored order and their nodes,
    /// their input positions renumbered 0, 1, ... in order; nodes left without a point go;
    /// boxes, depth, keys and parents are made again; the bounds (and so the key grid) stay.
    /// O(n + nodes), no sort: what a dynamic index does with the points it erased.
    template <class Dropped>
    void compact(const data& src, Dropped&& dropped);

private:
    // Packed sort items: a Morton key above index_bits, a position below.
    struct build_state {
        raw_vector<std::uint64_t> items;
        raw_vector<std::uint64_t> scratch;
        unsigned index_bits;
        unsigned axis_bits;
        std::uint64_t key(std::size_t i) const noexcept { return items[i] >> index_bits; }
        std::size_t index(std::uint64_t item) const noexcept {
            return static_cast<std::size_t>(item & ((std::uint64_t{1} << index_bits) - 1));
        }
    };
    using pending = build_pending;

    template <class Source>
    box_type check_input(const Source& points, const build_options& options) const;
    template <class Source>
    void sort_input(const Source& points, const box_type& all, build_state& st);
    template <class Source>
    void requantize(const Source& points, std::size_t b, std::size_t e, build_state& st);
    template <class Source>
    void store_points(const Source& points, build_state& st);
    void set_boxes();
    template <class Source>
    void build_nodes(const Source& points, build_state& st, pending start);
    template <class Source>
    std::size_t split_node(const Source& points, pending& t, std::size_t* run_start, build_state& st);
    void set_box(std::size_t ni, const box_type& exact);
    box_type tight_bounds(std::size_t b, std::size_t e) const noexcept;
    void index_leaves(const box_type& all, unsigned axis_bits);

    data& d_;
};

/// Checks the options and the points, and returns the bounds of the points: one pass.
template <class T, std::size_t D, class Id>
template <class Source>
auto orthtree_builder<T, D, Id>::check_input(const Source& points, const build_options& options) const -> box_type {
    const std::size_t n = points.size();
    if (options.leaf_size == 0) throw std::invalid_argument("quoct: build_options::leaf_size must be at least 1");
    if (options.max_depth > max_depth_limit)
        throw std::invalid_argument("quoct: build_options::max_depth may not exceed " +
                                    std::to_string(max_depth_limit));
    if (n > std::size_t{std::numeric_limits<Id>::max()} / 2)
        throw std::length_error("quoct: " + std::to_string(n) + " points do not fit the Id type");
    box_type all = d_.empty_box();
    bool finite = true;
    for (std::size_t i = 0; i < n; ++i) {
        const point_type p = points[i];
        for (std::size_t a = 0; a < D; ++a) {
            const T v = p[a];
            finite &= std::abs(v) <= std::numeric_limits<T>::max();  // false for NaN too
            all.lo[a] = std::min(all.lo[a], v);
            all.hi[a] = std::max(all.hi[a], v);
        }
    }
    if (!finite)
        for (std::size_t i = 0; i < n; ++i)
            if (!is_finite(points[i]))
                throw std::invalid_argument("quoct: point " + std::to_string(i) + " has a NaN or infinite coordinate");
    return all;
}

template <class T, std::size_t D, class Id>
template <class Source>
void orthtree_builder<T, D, Id>::build(const Source& points, const build_options& options) {
    const std::size_t n = points.size();
    const box_type all = check_input(points, options);
    d_.options_ = options;
    if (d_.options_.leaf_size == build_options::auto_leaf_size) d_.options_.leaf_size = build_options::default_leaf_size(D);
    d_.size_ = n;
    if (n == 0) return;
    build_state st;
    const key_layout layout = key_layout_for<D>(n);
    if (layout.axis_bits == 0) throw std::length_error("quoct: too many points to sort");
    st.index_bits = layout.index_bits;
    st.axis_bits = layout.axis_bits;
    // In steps that keep the peak near the input plus the finished tree: the sorted keys
    // (with their scratch while sorting), then the nodes from the keys alone, then the keys
    // traded for the ids, then the coordinates in key order, and last the node boxes.
    sort_input(points, all, st);
    d_.bounds_ = all;
    d_.nodes_.reserve(2 * n / d_.options_.leaf_size + 2);
    build_nodes(points, st, pending{0, n, 0, st.axis_bits, true});
    d_.nodes_.push_back(node{});
    d_.nodes_.back().begin = static_cast<Id>(n);
    store_points(points, st);
    d_.nodes_.shrink_to_fit();
    set_boxes();
    if (d_.options_.nearest_index) index_leaves(all, st.axis_bits);
}

template <class T, std::size_t D, class Id>
template <class Source>
void orthtree_builder<T, D, Id>::build_part(const Source& points, raw_vector<std::uint64_t> items, key_layout layout,
                                            build_pending start, const box_type& root, const build_options& options) {
    const std::size_t n = points.size();
    d_.options_ = options;
    d_.size_ = n;
    d_.bounds_ = root;
    d_.depth_ = start.depth;
    build_state st;
    st.items = std::move(items);
    st.index_bits = layout.index_bits;
    st.axis_bits = layout.axis_bits;
    d_.nodes_.reserve(2 * n / d_.options_.leaf_size + 2);
    build_nodes(points, st, start);
    d_.nodes_.push_back(node{});
    d_.nodes_.back().begin = static_cast<Id>(n);
    store_points(points, st);
    set_boxes();
    if (d_.options_.nearest_index) index_leaves(root, st.axis_bits);
}

template <class T, std::size_t D, class Id>
template <class Dropped>
void orthtree_builder<T, D, Id>::compact(const data& src, Dropped&& dropped) {
    constexpr Id none = std::numeric_limits<Id>::max();  // above every position (n < max / 2)
    const std::size_t n = src.size_;
    d_.options_ = src.options_;
    d_.unchecked_ = src.unchecked_;
    raw_vector<Id> rank(n);  // input position -> the new one, or none
    std::size_t m = 0;
    for (std::size_t i = 0; i < n; ++i) rank[i] = dropped(i) ? none : static_cast<Id>(m++);
    d_.size_ = m;
    if (m == 0) return;
    d_.bounds_ = src.bounds_;
    // before[i]: how many of the points stored before position i are kept (their new place).
    raw_vector<Id> before(n + 1);
    d_.ids_.resize(m);
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i) {
        before[i] = static_cast<Id>(k);
        const Id r = rank[src.ids_[i]];
        if (r != none) d_.ids_[k++] = r;
    }
    before[n] = static_cast<Id>(k);
    d_.coords_.resize(D * m);
    for (std::size_t a = 0; a < D; ++a) {
        const T* from = src.axis(a);
        T* to = d_.coords_.data() + a * m;
        for (std::size_t i = 0; i < n; ++i)
            if (before[i + 1] != before[i]) to[before[i]] = from[i];
    }
    // A node stays if it keeps a point (then so do its ancestors; a node that goes takes its
    // whole subtree). at[j]: how many nodes before j stay, the new index of the first node
    // from j on that stays, so a node's new skip is at[old skip].
    const std::size_t count = src.nodes_in_tree();
    const auto keeps = [&](std::size_t j) {
        return before[src.nodes_[src.nodes_[j].skip].begin] != before[src.nodes_[j].begin];
    };
    raw_vector<Id> at(count + 1);
    std::size_t c = 0;
    for (std::size_t j = 0; j < count; ++j) {
        at[j] = static_cast<Id>(c);
        if (keeps(j)) ++c;
    }
    at[count] = static_cast<Id>(c);
    d_.nodes_.resize(c + 1);
    for (std::size_t j = 0; j < count; ++j) {
        if (!keeps(j)) continue;
        node& nn = d_.nodes_[at[j]];
        nn = src.nodes_[j];
        nn.begin = before[src.nodes_[j].begin];
        nn.skip = at[src.nodes_[j].skip];
    }
    d_.nodes_[c] = node{};
    d_.nodes_[c].begin = static_cast<Id>(m);
    // The depth: the most internal nodes above a leaf.
    std::vector<std::size_t> open;
    d_.depth_ = 0;
    for (std::size_t i = 0; i < c; ++i) {
        while (!open.empty() && i >= d_.nodes_[open.back()].skip) open.pop_back();
        if (d_.is_leaf(d_.nodes_[i], i)) d_.depth_ = std::max(d_.depth_, open.size());
        else open.push_back(i);
    }
    set_boxes();
    if (d_.options_.nearest_index) index_leaves(src.bounds_, src.axis_bits_);
}

// The keys and parents locate_leaf() reads. Keys come from the root grid of sort_input (a
// requantized subtree's points share one root key), so they never decrease in pre-order.
template <class T, std::size_t D, class Id>
void orthtree_builder<T, D, Id>::index_leaves(const box_type& all, unsigned axis_bits) {
    d_.axis_bits_ = axis_bits;
    d_.grid_ = std::make_shared<const quantizer<T, D>>(all, axis_bits);
    const unsigned key_bits = axis_bits * static_cast<unsigned>(D);
    d_.key_shift_ = key_bits > 32 ? key_bits - 32 : 0;
    const std::size_t count = d_.nodes_in_tree();
    d_.node_keys_.resize(count);
    d_.parents_.resize(count);
    d_.parents_[0] = 0;
    for (std::size_t i = 0; i < count; ++i) {
        d_.node_keys_[i] = static_cast<std::uint32_t>(d_.grid_->key(d_.point_at(d_.nodes_[i].begin)) >> d_.key_shift_);
        if (!d_.is_leaf(d_.nodes_[i], i))
            for (std::size_t ci = i + 1; ci < d_.nodes_[i].skip; ci = d_.nodes_[ci].skip) d_.parents_[ci] = static_cast<Id>(i);
    }
}

// Computes every point's Morton key relative to the bounds of all points and sorts the
// (key, input position) items.
template <class T, std::size_t D, class Id>
template <class Source>
void orthtree_builder<T, D, Id>::sort_input(const Source& points, const box_type& all, build_state& st) {
    const quantizer<T, D> quant(all, st.axis_bits);
    st.items.resize(d_.size_);
    for (std::size_t i = 0; i < d_.size_; ++i) st.items[i] = quant.key(points[i]) << st.index_bits | i;
    radix_sort(st.items, st.scratch, st.index_bits, st.axis_bits * static_cast<unsigned>(D));
    raw_vector<std::uint64_t>().swap(st.scratch);
}

// Re-sorts the items of stored positions [b, e) by keys relative to their points' own
// bounds: the grid of the enclosing keys has run out of bits, but the points are still
// distinct. The points are read from the input, through the items' positions.
template <class T, std::size_t D, class Id>
template <class Source>
void orthtree_builder<T, D, Id>::requantize(const Source& points, std::size_t b, std::size_t e, build_state& st) {
    const std::size_t m = e - b;
    box_type bounds = d_.empty_box();
    for (std::size_t i = b; i < e; ++i) {
        const point_type p = points[st.index(st.items[i])];
        for (std::size_t a = 0; a < D; ++a) {
            bounds.lo[a] = std::min(bounds.lo[a], p[a]);
            bounds.hi[a] = std::max(bounds.hi[a], p[a]);
        }
    }
    const quantizer<T, D> quant(bounds, st.axis_bits);
    raw_vector<std::uint64_t> local(m), scratch;
    for (std::size_t i = 0; i < m; ++i) local[i] = quant.key(points[st.index(st.items[b + i])]) << st.index_bits | i;
    radix_sort(local, scratch, st.index_bits, st.axis_bits * static_cast<unsigned>(D));
    // The new keys, with the input positions the items had.
    const std::uint64_t low = (std::uint64_t{1} << st.index_bits) - 1;
    scratch.resize(m);  // (a short sort leaves it empty)
    for (std::size_t i = 0; i < m; ++i) scratch[i] = (local[i] & ~low) | (st.items[b + st.index(local[i])] & low);
    std::copy(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(m),
              st.items.begin() + static_cast<std::ptrdiff_t>(b));
}

// Trades the sorted items for the ids (freeing them), then copies the coordinates in key
// order into the axis-major store.
template <class T, std::size_t D, class Id>
template <class Source>
void orthtree_builder<T, D, Id>::store_points(const Source& points, build_state& st) {
    d_.ids_.resize(d_.size_);
    for (std::size_t i = 0; i < d_.size_; ++i) d_.ids_[i] = static_cast<Id>(st.index(st.items[i]));
    raw_vector<std::uint64_t>().swap(st.items);
    d_.coords_.resize(D * d_.size_);
    for (std::size_t i = 0; i < d_.size_; ++i) {
        const point_type p = points[d_.ids_[i]];
        for (std::size_t a = 0; a < D; ++a) d_.coords_[a * d_.size_ + i] = p[a];
    }
}

// Every node's box, the exact bounds of its points: a leaf's measured, an internal node's
// the union of its children's, in reverse pre-order so that children come first.
template <class T, std::size_t D, class Id>
void orthtree_builder<T, D, Id>::set_boxes() {
    for (std::size_t ni = d_.nodes_in_tree(); ni-- > 0;) {
        const node& n = d_.nodes_[ni];
        box_type box;
        if (d_.is_leaf(n, ni)) {
            box = tight_bounds(n.begin, d_.nodes_[n.skip].begin);
        } else {
            box = d_.empty_box();
            for (std::size_t ci = ni + 1; ci < n.skip; ci = d_.nodes_[ci].skip)
                for (std::size_t a = 0; a < D; ++a) {
                    box.lo[a] = std::min(box.lo[a], d_.nodes_[ci].lo[a]);
                    box.hi[a] = std::max(box.hi[a], d_.nodes_[ci].hi[a]);
                }
        }
        set_box(ni, box);
    }
}

template <class T, std::size_t D, class Id>
auto orthtree_builder<T, D, Id>::tight_bounds(std::size_t b, std::size_t e) const noexcept -> box_type {
    box_type r = d_.empty_box();
    for (std::size_t a = 0; a < D; ++a) {
        const T* col = d_.axis(a);
        // Two accumulators each, so the min and max chains run side by side.
        T lo0 = r.lo[a], lo1 = r.lo[a], hi0 = r.hi[a], hi1 = r.hi[a];
        std::size_t i = b;
        for (; i + 1 < e; i += 2) {
            lo0 = std::min(lo0, col[i]);
            lo1 = std::min(lo1, col[i + 1]);
            hi0 = std::max(hi0, col[i]);
            hi1 = std::max(hi1, col[i + 1]);
        }
        if (i < e) lo0 = std::min(lo0, col[i]), hi0 = std::max(hi0, col[i]);
        r.lo[a] = std::min(lo0, lo1);
        r.hi[a] = std::max(hi0, hi1);
    }
    return r;
}

template <class T, std::size_t D, class Id>
void orthtree_builder<T, D, Id>::set_box(std::size_t ni, const box_type& exact) {
    for (std::size_t a = 0; a < D; ++a) {
        d_.nodes_[ni].lo[a] = exact.lo[a];
        d_.nodes_[ni].hi[a] = exact.hi[a];
    }
}

// Appends the nodes in pre-order, depth first with an explicit stack: a tree may be
// thousands of levels deep (max_depth_limit), and a thread's stack small. A node over
// [b, e) is a leaf or splits (split_node); an internal node's skip is set once its last
// child is done. Only the sorted keys are read (and, to re-sort a range, the input); the
// boxes come later, from the stored points (set_boxes).
template <class T, std::size_t D, class Id>
template <class Source>
void orthtree_builder<T, D, Id>::build_nodes(const Source& points, build_state& st, pending t) {
    struct open {
        std::size_t index, children_left;
    };
    std::vector<pending> todo;  // later children of the nodes on the path, the next last
    std::vector<open> up;       // the internal nodes on the path to the current one
    std::size_t run_start[fanout + 1];
    for (;;) {
        const std::size_t ni = d_.nodes_.size();
        d_.nodes_.push_back(node{});
        d_.nodes_[ni].begin = static_cast<Id>(t.b);
        d_.nodes_[ni].skip = static_cast<Id>(ni + 1);
        const bool small = t.e - t.b <= d_.options_.leaf_size || t.depth >= d_.options_.max_depth;
        if (const std::size_t runs = small ? 0 : split_node(points, t, run_start, st)) {
            up.push_back(open{ni, runs});
            for (std::size_t c = runs; c-- > 1;)  // the later children wait, the first is next
                todo.push_back(pending{run_start[c], run_start[c + 1], t.depth + 1, t.bits_left - 1, false});
            t = pending{run_start[0], run_start[1], t.depth + 1, t.bits_left - 1, false};
            continue;
        }
        d_.depth_ = std::max(d_.depth_, t.depth);
        while (!up.empty()) {  // close the ancestors whose last child this was
            open& o = up.back();
            if (--o.children_left != 0) break;
            d_.nodes_[o.index].skip = static_cast<Id>(d_.nodes_.size());
            up.pop_back();
        }
        if (todo.empty()) return;
        t = todo.back();
        todo.pop_back();
    }
}

// split_runs over the sorted items, re-sorting a range in memory where the keys run out.
template <class T, std::size_t D, class Id>
template <class Source>
std::size_t orthtree_builder<T, D, Id>::split_node(const Source& points, pending& t, std::size_t* run_start,
                                                   build_state& st) {
    return split_runs<D>([&](std::size_t i) { return st.key(i); },
                         [&](const pending& r) { requantize(points, r.b, r.e, st); }, t, st.axis_bits,
                         d_.options_.leaf_size, run_start);
}

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_ORTHTREE_BUILD_HPP
