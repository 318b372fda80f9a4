// quoct: an orthtree's data, apart from how it is built and searched. Dependency-free.
//
// The data is a few sections (detail::section: owned, or a view of bytes such as a mapped
// index file) and the numbers that describe them. This header is the one place that knows
// their names and layout and what makes them safe to search: a builder fills them, an index
// file stores them (write_sections, read_sections), and the searches (orthtree.hpp) read
// them. quoct/file.hpp only moves sections in and out of files.
//
// Sections, with `prefix` before each name (an index inside another has one):
//   meta       8 x uint64: points, depth, leaf_size, max_depth, nearest_index, the key
//              grid's bits per axis, the key bits dropped to fit 32, nodes
//   bounds     2 D x T: the lower corner of all points, then the upper
//   coords     D n x T: axis a of stored point i at [a n + i] (points in Morton order)
//   ids        n x Id: the input position of stored point i
//   nodes      nodes + 1 x node: pre-order, then a sentinel whose begin is n
//   node_keys  nodes x uint32 (none without the nearest index): the top 32 bits of each
//              node's first point's Morton key on the root grid
//   parents    nodes x Id (none without the nearest index): each node's parent
// docs/file-format.md describes the file around them.
#ifndef QUOCT_DETAIL_ORTHTREE_DATA_HPP
#define QUOCT_DETAIL_ORTHTREE_DATA_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../build_options.hpp"
#include "../shapes.hpp"
#include "block_check.hpp"
#include "morton.hpp"
#include "section.hpp"

namespace quoct {
namespace detail {

/// A node: the exact bounds of its points, in T, and where its points and subtree end.
template <class T, std::size_t D, class Id>
struct orthtree_node {
    T lo[D];
    T hi[D];
    Id begin;  // the node's points are [begin, nodes_[skip].begin)
    Id skip;   // the next node after this subtree in pre-order; index + 1 for a leaf
};

template <class T, std::size_t D, class Id>
struct orthtree_data {
    using node = orthtree_node<T, D, Id>;
    using box_type = box<T, D>;
    static constexpr std::size_t fanout = std::size_t{1} << D;
    static constexpr std::size_t meta_count = 8;

    std::size_t size_ = 0;
    section<T> coords_;    // axis a of stored point i at coords_[a * size_ + i]
    section<Id> ids_;      // input position of stored point i
    section<node> nodes_;  // pre-order, then one sentinel whose begin is size_
    // Where a nearest search starts (locate_leaf): per node the top 32 bits of its first
    // point's Morton key on the root grid (non-decreasing in pre-order) and its parent.
    section<std::uint32_t> node_keys_;
    section<Id> parents_;
    std::shared_ptr<const quantizer<T, D>> grid_;  // the root grid of the keys
    unsigned axis_bits_ = 0;                       // its bits per axis
    unsigned key_shift_ = 0;                       // key bits dropped to fit 32
    box_type bounds_ = empty_box();
    std::size_t depth_ = 0;
    bool unchecked_ = false;  // coordinates not known finite: data read from bytes
    build_options options_;
    // Sections checked as the searches reach them (data read lazily from a file: see
    // reach_node, reach_run and reach_coords); null when every section is trusted (built here, or
    // checked whole when read).
    struct guards {
        std::shared_ptr<const block_guard> coords, ids, nodes, node_keys, parents;
        mutable std::once_flag ids_whole;  // every id checked, and their being a permutation
    };
    std::shared_ptr<const guards> lazy_;

    static box_type empty_box() noexcept {
        box_type b;
        for (std::size_t i = 0; i < D; ++i) {
            b.lo[i] = std::numeric_limits<T>::infinity();
            b.hi[i] = -std::numeric_limits<T>::infinity();
        }
        return b;
    }
    std::size_t nodes_in_tree() const noexcept { return nodes_.empty() ? 0 : nodes_.size() - 1; }
    /// Axis a of every stored point, in storage order.
    const T* axis(std::size_t a) const noexcept { return coords_.data() + a * size_; }
    /// Stored point i.
    point<T, D> point_at(std::size_t i) const noexcept {
        point<T, D> p;
        for (std::size_t a = 0; a < D; ++a) p[a] = coords_[a * size_ + i];
        return p;
    }
    /// Whether node n, at index `index`, has no children.
    static bool is_leaf(const node& n, std::size_t index) noexcept { return n.skip == index + 1; }

    // --- checks as searches reach the data (lazy_ set) --------------------------------------
    // What every search relies on of a node it reaches: its bytes match their block's
    // checksum; its skip lies beyond it and within the tree (the check of each block of
    // nodes makes sure of it for every node that starts in the block, and of its begin's
    // being at most n), and within `end` (the parent's skip, when given). Before its points
    // are read (reach_run): its end node reached too, and begin <= end. A search that checks
    // every node it reaches as it reaches it (children within their parent, at most 2^D of
    // them, no deeper than the recorded depth: the searches check those) can neither leave
    // the arrays nor loop. Throws file_error through the guard.
    QUOCT_CHECK_INLINE void reach_node(std::size_t i, std::size_t end = std::numeric_limits<std::size_t>::max()) const {
        lazy_->nodes->reach(i * sizeof(node), (i + 1) * sizeof(node));
        if (nodes_[i].skip > end) fail_node(i, "runs past its parent");
    }
    /// Node i's points [begin, end) reached (node i reached already): its end node, their
    /// order, and the blocks of their coordinates and (`ids`) ids.
    QUOCT_CHECKED_PATH void reach_run(std::size_t i, bool coords, bool ids) const {
        const std::size_t skip = nodes_[i].skip;
        lazy_->nodes->reach(skip * sizeof(node), (skip + 1) * sizeof(node));
        const std::size_t b = nodes_[i].begin, e = nodes_[skip].begin;
        if (b > e) fail_node(i, "starts after its end");
        if (coords) reach_coords(b, e);
        if (ids) lazy_->ids->reach(b * sizeof(Id), e * sizeof(Id));
    }
    /// The coordinates of points [b, e) of the stored order, reached: every axis's blocks
    /// match their checksums.
    QUOCT_CHECK_INLINE void reach_coords(std::size_t b, std::size_t e) const {
        for (std::size_t a = 0; a < D; ++a)
            lazy_->coords->reach((a * size_ + b) * sizeof(T), (a * size_ + e) * sizeof(T));
    }
    /// Node i's key and its parent, reached (the parent is checked to hold the node).
    QUOCT_CHECK_INLINE void reach_key(std::size_t i) const { lazy_->node_keys->reach(i * sizeof(std::uint32_t), (i + 1) * sizeof(std::uint32_t)); }
    QUOCT_CHECKED_PATH std::size_t reach_parent(std::size_t i) const {
        lazy_->parents->reach(i * sizeof(Id), (i + 1) * sizeof(Id));
        const std::size_t p = parents_[i];
        if (p >= i) fail_node(i, "has the wrong parent");
        reach_node(p);
        if (nodes_[p].skip < nodes_[i].skip) fail_node(i, "has the wrong parent");
        return p;
    }
    /// Every id reached, and checked to be a permutation of [0, n) (as validate() does), once:
    /// for what relies on each id's coming once (the pair searches, the id map of point()).
    QUOCT_CHECKED_PATH void reach_all_ids() const {
        std::call_once(lazy_->ids_whole, [&] {
            lazy_->ids->reach_all();
            const auto fail = [&](const std::string& cause) { lazy_->ids->fail(cause); };
            validate_ids(fail);
        });
    }
    /// Every block of every section reached, and the whole structure checked (validate()).
    QUOCT_CHECKED_PATH void reach_everything() const {
        for (const auto* g : {&lazy_->coords, &lazy_->ids, &lazy_->nodes, &lazy_->node_keys, &lazy_->parents}) (*g)->reach_all();
        const auto fail = [&](const std::string& cause) { lazy_->nodes->fail(cause); };
        validate(fail);
    }
    [[noreturn]] QUOCT_CHECKED_PATH void fail_node(std::size_t i, const char* what) const {
        lazy_->nodes->fail("damaged: node " + std::to_string(i) + " " + what);
    }

    /// The meta section's values (see the top of this header), in order.
    static std::vector<std::uint64_t> meta_values(std::size_t size, std::size_t depth, const build_options& o,
                                                  unsigned axis_bits, unsigned key_shift, std::size_t nodes) {
        return {size, depth, o.leaf_size, o.max_depth, o.nearest_index ? 1u : 0u, axis_bits, key_shift, nodes};
    }
    /// Node n as its file bytes, at `at` (sizeof(node) bytes): its members, any padding zero,
    /// so that equal trees give equal files.
    static void node_bytes(const node& n, unsigned char* at) noexcept {
        std::memset(at, 0, sizeof(node));
        std::memcpy(at + offsetof(node, lo), n.lo, sizeof n.lo);
        std::memcpy(at + offsetof(node, hi), n.hi, sizeof n.hi);
        std::memcpy(at + offsetof(node, begin), &n.begin, sizeof n.begin);
        std::memcpy(at + offsetof(node, skip), &n.skip, sizeof n.skip);
    }

    /// Adds the sections to `w` (borrowed: the data outlives the writer; the small ones
    /// copied). Writer: add(name, p, n), add_copy(name, vector), add_bytes(name, bytes, size).
    template <class Writer>
    void write_sections(Writer& w, const std::string& prefix) const {
        // Data read lazily is checked whole first: a new file's checksums must not vouch
        // for bytes no one checked.
        if (lazy_) reach_everything();
        w.add_copy(prefix + "meta", meta_values(size_, depth_, options_, axis_bits_, key_shift_, nodes_in_tree()));
        std::vector<T> bounds(2 * D);
        for (std::size_t a = 0; a < D; ++a) bounds[a] = bounds_.lo[a], bounds[D + a] = bounds_.hi[a];
        w.add_copy(prefix + "bounds", bounds);
        w.add(prefix + "coords", coords_.data(), coords_.size());
        w.add(prefix + "ids", ids_.data(), ids_.size());
        if (sizeof(node) == 2 * D * sizeof(T) + 2 * sizeof(Id)) {
            w.add(prefix + "nodes", nodes_.data(), nodes_.size());
        } else {  // padding inside a node: written as zeros, so that equal trees give equal files
            std::vector<unsigned char> bytes(nodes_.size() * sizeof(node), 0);
            for (std::size_t i = 0; i < nodes_.size(); ++i) node_bytes(nodes_[i], bytes.data() + i * sizeof(node));
            w.add_bytes(prefix + "nodes", std::move(bytes), sizeof(node));
        }
        w.add(prefix + "node_keys", node_keys_.data(), node_keys_.size());
        w.add(prefix + "parents", parents_.data(), parents_.size());
    }

    /// The data in `r`'s sections (views or copies, as the reader hands them out), checked
    /// as validate() does. Reader: get<U>(name, count) and fail(cause), which throws.
    template <class Reader>
    static orthtree_data read_sections(const Reader& r, const std::string& prefix) {
        const section<std::uint64_t> m = r.template get<std::uint64_t>(prefix + "meta", meta_count);
        const std::size_t n = to_size(m[0]), count = to_size(m[7]);
        orthtree_data t;
        if (n > std::size_t{std::numeric_limits<Id>::max()} / 2 || (n == 0) != (count == 0) || count > 2 * n)
            r.fail("damaged: " + std::to_string(m[0]) + " points in " + std::to_string(m[7]) + " nodes");
        if (n > std::numeric_limits<std::size_t>::max() / D) r.fail("damaged: too many points");
        t.size_ = n;
        t.depth_ = to_size(m[1]);
        t.options_.leaf_size = to_size(m[2]);
        t.options_.max_depth = to_size(m[3]);
        t.options_.nearest_index = m[4] != 0;
        // (A tree never built, made empty by default, keeps the leaf size unresolved.)
        if (t.options_.leaf_size == 0 || (t.options_.leaf_size == build_options::auto_leaf_size && n != 0) ||
            t.options_.max_depth > max_depth_limit || m[4] > 1)
            r.fail("damaged: build options out of range");
        const section<T> bounds = r.template get<T>(prefix + "bounds", 2 * D);
        for (std::size_t a = 0; a < D; ++a) t.bounds_.lo[a] = bounds[a], t.bounds_.hi[a] = bounds[D + a];
        t.coords_ = r.template get<T>(prefix + "coords", D * n);
        t.ids_ = r.template get<Id>(prefix + "ids", n);
        t.nodes_ = r.template get<node>(prefix + "nodes", n == 0 ? 0 : count + 1);
        const bool keyed = t.options_.nearest_index && n != 0;
        t.node_keys_ = r.template get<std::uint32_t>(prefix + "node_keys", keyed ? count : 0);
        t.parents_ = r.template get<Id>(prefix + "parents", keyed ? count : 0);
        if (r.lazy() && n != 0) t.guard(r, prefix);
        else t.validate([&](const std::string& cause) { r.fail(cause); });
        if (keyed) {
            const unsigned bits = static_cast<unsigned>(std::min<std::uint64_t>(m[5], 64));
            const unsigned key_bits = bits * static_cast<unsigned>(D);
            if (bits == 0 || bits > morton_bits<D>() || m[6] != (key_bits > 32 ? key_bits - 32 : 0))
                r.fail("damaged: the nearest index's key grid is out of range");
            t.axis_bits_ = bits;
            t.key_shift_ = static_cast<unsigned>(m[6]);
            t.grid_ = std::make_shared<const quantizer<T, D>>(t.bounds_, bits);
        }
        // Checksums say the bytes are the ones saved, not that a builder wrote them (a forger
        // can mend checksums), so no data read from bytes counts its coordinates finite.
        t.unchecked_ = true;
        return t;
    }

    /// Checks what every search relies on, calling fail(cause) (which must throw) at the
    /// first fault: the bounds are a finite box; the nodes are a tree in pre-order as the
    /// builder makes them, so that no search can leave the arrays or loop (the root spans
    /// all, every skip lies beyond its node and within its parent's subtree, node starts never
    /// decrease, so every run of points is inside [0, n); no node has more than 2^D children;
    /// the depth is the one recorded, as the searches size their stacks by it; each parent is
    /// the one recorded); and the ids are a permutation of [0, n), as code that indexes its
    /// own arrays by id relies on. O(n + nodes) time, n bits. Coordinates are not read.
    template <class Fail>
    void validate(Fail&& fail) const {
        if (size_ == 0) return;
        for (std::size_t a = 0; a < D; ++a)
            if (!(std::isfinite(bounds_.lo[a]) && std::isfinite(bounds_.hi[a]) && bounds_.lo[a] <= bounds_.hi[a]))
                fail("damaged: the bounds are not a finite box");
        validate_nodes(fail);
        validate_ids(fail);
    }

private:
    static std::size_t to_size(std::uint64_t v) noexcept {
        return v > std::numeric_limits<std::size_t>::max() ? std::numeric_limits<std::size_t>::max()
                                                           : static_cast<std::size_t>(v);
    }

    // Read lazily: the guards, and the checks of what every search starts from (the bounds,
    // the root and the end node). The rest is checked as the searches reach it.
    template <class Reader>
    void guard(const Reader& r, const std::string& prefix) {
        for (std::size_t a = 0; a < D; ++a)
            if (!(std::isfinite(bounds_.lo[a]) && std::isfinite(bounds_.hi[a]) && bounds_.lo[a] <= bounds_.hi[a]))
                r.fail("damaged: the bounds are not a finite box");
        const std::size_t n = size_;
        auto g = std::make_shared<guards>();
        g->coords = r.guard(prefix + "coords");
        g->ids = r.guard(prefix + "ids", [n](const unsigned char* p, std::size_t from, std::size_t to) {
            for (std::size_t at = from; at < to; at += sizeof(Id)) {
                Id id;
                std::memcpy(&id, p + at, sizeof(Id));
                if (id >= n) return "the id of point " + std::to_string(at / sizeof(Id)) + " is not below " + std::to_string(n);
            }
            return std::string();
        });
        const std::size_t count = nodes_in_tree();
        // Each node that starts in a block: its skip beyond it and at most the node count,
        // its begin at most n (read as bytes: a node may run into the next block).
        g->nodes = r.guard(prefix + "nodes", [n, count](const unsigned char* p, std::size_t from, std::size_t to) {
            for (std::size_t i = (from + sizeof(node) - 1) / sizeof(node); i * sizeof(node) < to && i <= count; ++i) {
                Id begin, skip;
                std::memcpy(&begin, p + i * sizeof(node) + offsetof(node, begin), sizeof(Id));
                std::memcpy(&skip, p + i * sizeof(node) + offsetof(node, skip), sizeof(Id));
                if (begin > n || (i < count && (skip <= i || skip > count)))
                    return "node " + std::to_string(i) + " skips out of the tree";
            }
            return std::string();
        });
        g->node_keys = r.guard(prefix + "node_keys");
        g->parents = r.guard(prefix + "parents");
        lazy_ = std::move(g);
        lazy_->nodes->reach(0, sizeof(node));
        lazy_->nodes->reach(count * sizeof(node), (count + 1) * sizeof(node));
        if (nodes_[0].begin != 0 || nodes_[0].skip != count) r.fail("damaged: node 0 does not span the tree");
        if (nodes_[count].begin != n) r.fail("damaged: node " + std::to_string(count) + " (the end) does not end the points");
        if (depth_ >= count) r.fail("damaged: a tree of " + std::to_string(count) + " nodes is not " + std::to_string(depth_) + " deep");
    }


    template <class Fail>
    void validate_nodes(Fail& fail) const {
        const std::size_t count = nodes_in_tree();
        const auto bad = [&](std::size_t i, const char* what) { fail("damaged: node " + std::to_string(i) + " " + what); };
        const node* nodes = nodes_.data();
        if (nodes[0].begin != 0 || nodes[0].skip != count) bad(0, "does not span the tree");
        if (nodes[count].begin != size_) bad(count, "(the end) does not end the points");
        struct open_node {
            std::size_t index, children;
        };
        std::vector<open_node> path;
        std::size_t depth = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t skip = nodes[i].skip;
            while (!path.empty() && i >= nodes[path.back().index].skip) path.pop_back();
            if (i != 0) {
                if (path.empty()) bad(i, "lies outside the root");
                open_node& parent = path.back();
                if (skip > nodes[parent.index].skip) bad(i, "runs past its parent");
                if (++parent.children > fanout) bad(i - 1, "has too many children");
                if (!parents_.empty() && parents_[i] != parent.index) bad(i, "has the wrong parent");
            }
            if (skip <= i || skip > count) bad(i, "skips out of the tree");
            if (nodes[i].begin > nodes[i + 1].begin) bad(i, "starts after the next node");
            if (skip != i + 1) path.push_back(open_node{i, 0});
            else depth = std::max(depth, path.size());
        }
        if (depth != depth_)
            fail("damaged: the tree is " + std::to_string(depth) + " deep, not " + std::to_string(depth_));
    }

    template <class Fail>
    void validate_ids(Fail& fail) const {
        std::vector<std::uint64_t> seen((size_ + 63) / 64, 0);
        const Id* ids = ids_.data();
        for (std::size_t i = 0; i < size_; ++i) {
            const std::size_t id = ids[i];
            if (id >= size_ || (seen[id >> 6] >> (id & 63) & 1u) != 0)
                fail("damaged: the ids are not a permutation (point " + std::to_string(i) + ")");
            seen[id >> 6] |= std::uint64_t{1} << (id & 63);
        }
    }
};

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_ORTHTREE_DATA_HPP
