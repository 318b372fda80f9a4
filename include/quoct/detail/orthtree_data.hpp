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
#include <string>
#include <vector>

#include "../build_options.hpp"
#include "../shapes.hpp"
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
        if (t.options_.leaf_size == 0 || t.options_.leaf_size == build_options::auto_leaf_size ||
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
        t.validate([&](const std::string& cause) { r.fail(cause); });
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
