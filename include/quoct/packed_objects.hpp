// quoct: a static index of boxes packed into a bounding hierarchy of the boxes themselves:
// built in one pass, queried by box, ball or point (the boxes that contain it), by k
// nearest, and for every pair of boxes that meet (the broad phase). Optional header;
// standard library only.
//
//   std::vector<quoct::box<double, 2>> parcels = ...;
//   const quoct::packed_box_index<double, 2> index(parcels);        // ids 0..n-1, as given
//   std::vector<std::uint32_t> hit = index.query(window);           // boxes meeting the window
//   std::vector<std::uint32_t> at = index.containing(p);            // boxes holding the point
//   std::vector<quoct::neighbor<double, std::uint32_t>> near;
//   index.nearest(p, 10, near);                                     // the 10 nearest boxes
//   auto overlaps = index.colliding_pairs(2);                       // (a, b), a < b, on 2 threads
//
// Design (a packed R-tree, as flatbush and Boost.Geometry's bulk load build one). The boxes
// are ordered top down, each node's boxes cut into its children's by halving across the
// longest extent of their centres (each child a tile of space), and cut into nodes of `fanout` boxes; those nodes into parents of
// `fanout` nodes, and so on up to one root. Level 0 is the boxes
// themselves, level l + 1 the bounding boxes of level l's runs of `fanout`: entry j of
// level l + 1 holds entries [fanout j, fanout j + fanout) of level l, so no links are
// stored, and the boxes under any node are one run of the sorted order. Every level keeps
// its bounds axis by axis (all low x, all high x, ...), so that a node's children are tested
// against a query in one loop the compiler vectorises. A node whose box lies inside the
// query is taken whole (its run of ids, copied), without testing its boxes.
//
// Answers. Each query returns exactly the boxes its predicate accepts, by the closed
// predicates of shapes.hpp: intersects(query box, box), intersects(query ball, box) and
// contains(box, point). A node's box holds its boxes exactly (unions of bounds need no
// rounding), and each predicate can only grow with the box it is given, so pruning never
// drops a box the predicate accepts. nearest() ranks boxes by distance_sq(p, box) (0 for a
// point inside), ties by smaller id: exactly the first k of all boxes sorted by (squared
// distance, id). It searches nodes in that order too, by their least squared distance and
// their least id, so that where a point lies inside many boxes it still stops after k of
// them.
//
// Thread-safety: the index is immutable; queries may run from any number of threads.
#ifndef QUOCT_PACKED_OBJECTS_HPP
#define QUOCT_PACKED_OBJECTS_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "detail/bits.hpp"
#include "detail/callback.hpp"
#include "detail/validate.hpp"
#include "neighbor.hpp"
#include "parallel.hpp"
#include "shapes.hpp"

namespace quoct {

/// A static index of boxes (see the top of this header). Ids are the boxes' positions in
/// the input. Id must number every box (std::uint64_t beyond 2^32 - 1).
template <class T, std::size_t D, class Id = std::uint32_t>
class packed_box_index {
    static_assert(std::is_floating_point<T>::value, "quoct::packed_box_index: T must be a floating-point type");
    static_assert(std::is_integral<Id>::value && std::is_unsigned<Id>::value,
                  "quoct::packed_box_index: Id must be an unsigned integer type");

public:
    using scalar_type = T;                       ///< the coordinate type
    using id_type = Id;                          ///< the box ids
    using point_type = point<T, D>;              ///< a point
    using box_type = box<T, D>;                  ///< a closed box (an indexed box, or a query)
    using ball_type = ball<T, D>;                ///< a closed ball (a query)
    using neighbor_type = neighbor<T, Id>;       ///< one result of nearest()
    static constexpr std::size_t dimension = D;  ///< the number of coordinates
    /// Children per node (and boxes per leaf).
    static constexpr std::size_t fanout = 16;

    /// An empty index.
    packed_box_index() = default;
    /// Indexes the n boxes at `boxes` (ids 0..n-1). Throws std::invalid_argument for a box
    /// with a NaN or infinite corner or lo > hi on an axis (naming the first such box),
    /// std::length_error if Id cannot number n boxes, std::bad_alloc.
    packed_box_index(const box_type* boxes, std::size_t n) { build(boxes, n); }
    /// Indexes the boxes of `boxes` (ids 0..size-1); throws as the constructor above.
    explicit packed_box_index(const std::vector<box_type>& boxes) : packed_box_index(boxes.data(), boxes.size()) {}

    /// Boxes indexed.
    std::size_t size() const noexcept { return ids_.size(); }
    /// True when no box is indexed.
    bool empty() const noexcept { return ids_.empty(); }
    /// Box `id` as given (converted to nothing: stored as is). Throws std::out_of_range if
    /// id >= size().
    box_type shape(Id id) const {
        if (id >= size()) throw std::out_of_range("quoct: id " + std::to_string(id) + " is not a box of the index");
        return entry(0, position_[id]);
    }
    /// Bytes the index holds (its boxes, levels, ids and the id map).
    std::size_t memory_bytes() const noexcept {
        std::size_t n = 0;
        for (const level& l : levels_) n += (2 * D * sizeof(T) + sizeof(Id)) * l.count;
        return n + (ids_.size() + position_.size()) * sizeof(Id);
    }

    /// @name Queries
    /// Each gives exactly the boxes its predicate accepts (closed sets: touching counts),
    /// in no particular order. Throws std::invalid_argument for a query with a NaN, a box
    /// with lo > hi, a negative radius, a NaN or infinite point.
    ///@{
    /// Calls f(id) for every box meeting `q` (intersects(q, box)); f returning false (when
    /// it returns a bool) stops the search. Returns false if stopped.
    template <class F>
    bool visit(const box_type& q, F&& f) const {
        detail::check_box(q);
        return search(q, f);
    }
    /// As visit(box, f), for the boxes meeting the ball `q` (intersects(q, box)).
    template <class F>
    bool visit(const ball_type& q, F&& f) const {
        detail::check_ball(q);
        return search(q, f);
    }
    /// Ids of the boxes meeting the query (a box or a ball), into `out` (cleared first).
    template <class Query>
    void query(const Query& q, std::vector<Id>& out) const {
        out.clear();
        visit(q, [&](Id id) { out.push_back(id); });
    }
    /// Ids of the boxes meeting the query (a box or a ball).
    template <class Query>
    std::vector<Id> query(const Query& q) const {
        std::vector<Id> out;
        query(q, out);
        return out;
    }
    /// How many boxes meet the query (a box or a ball).
    template <class Query>
    std::size_t count(const Query& q) const {
        std::size_t k = 0;
        visit(q, [&](Id) { ++k; });
        return k;
    }
    /// Ids of the boxes that contain `p` (contains(box, p): lo <= p <= hi on every axis).
    std::vector<Id> containing(const point_type& p) const {
        detail::check_point(p, "query point");
        std::vector<Id> out;
        auto add = [&](Id id) { out.push_back(id); };
        search(box_type{p, p}, add);
        return out;
    }
    /// The min(k, size()) boxes nearest `p` by distance_sq(p, box) (0 inside), nearest
    /// first, ties by smaller id. Throws std::invalid_argument if k == 0 or p has a NaN or
    /// infinite coordinate.
    void nearest(const point_type& p, std::size_t k, std::vector<neighbor_type>& out) const;
    /// The broad phase: calls f(a, b) once for every pair of boxes that meet (closed:
    /// touching counts), a < b; false from f stops (then returns false). Serial; the order
    /// is fixed for a given index but otherwise unspecified.
    template <class F>
    bool for_each_colliding_pair(F&& f) const {
        for (std::size_t s = 0; s < size(); ++s) {  // in stored order: neighbours in space
            const Id a = ids_[s];
            auto later = [&](Id b) { return b <= a || detail::go_on(f, a, b); };
            if (!search(entry(0, s), later)) return false;
        }
        return true;
    }
    /// Every pair (a, b) of boxes that meet, a < b, sorted by (a, b), found on `threads`
    /// std::threads (0: one per hardware thread); the list is the same for any thread count.
    std::vector<std::pair<Id, Id>> colliding_pairs(unsigned threads = 1) const {
        std::vector<std::size_t> order(ids_.begin(), ids_.end());  // rows by id, taken in stored order
        const csr<Id> rows = detail::gather_rows<Id>(size(), order, threads, [&](std::size_t a, std::vector<Id>& out) {
            const std::size_t from = out.size();
            auto later = [&](Id b) {
                if (b > a) out.push_back(b);
            };
            search(entry(0, position_[a]), later);
            std::sort(out.begin() + static_cast<std::ptrdiff_t>(from), out.end());
        });
        return detail::pairs_of_rows(rows);
    }
    /// As nearest(p, k, out), returning the ids.
    std::vector<Id> nearest(const point_type& p, std::size_t k) const {
        std::vector<neighbor_type> found;
        nearest(p, k, found);
        std::vector<Id> ids(found.size());
        for (std::size_t i = 0; i < found.size(); ++i) ids[i] = found[i].id;
        return ids;
    }
    ///@}

private:
    // One level: its entries' bounds axis by axis, and the least id under each entry.
    struct level {
        std::size_t count = 0;
        std::vector<T> lo[D], hi[D];
        std::vector<Id> least;
    };

    box_type entry(std::size_t l, std::size_t i) const noexcept {
        box_type b;
        for (std::size_t a = 0; a < D; ++a) b.lo[a] = levels_[l].lo[a][i], b.hi[a] = levels_[l].hi[a][i];
        return b;
    }
    // The run of sorted positions under entry i of level l.
    std::pair<std::size_t, std::size_t> run(std::size_t l, std::size_t i) const noexcept {
        std::size_t span = 1;
        for (std::size_t j = 0; j < l; ++j) span *= fanout;
        return {i * span, std::min(ids_.size(), (i + 1) * span)};
    }

    void build(const box_type* boxes, std::size_t n);
    struct centred {  // a box's centre and its id, moved together while sorting
        point_type c;
        std::size_t id;
    };
    static void tile(std::vector<centred>& order, std::size_t b, std::size_t e, std::size_t chunk);
    static void bisect(std::vector<centred>& order, std::size_t b, std::size_t e, std::size_t chunk);
    template <class Query, class F>
    bool search(const Query& q, F& f) const;
    static std::uint32_t meeting(const box_type& q, const level& c, std::size_t b, std::size_t m) noexcept;

    std::vector<level> levels_;    // levels_[0]: the boxes in sorted order; back(): the root
    std::vector<Id> ids_;          // by sorted position
    std::vector<Id> position_;     // by id: its sorted position
};

/// quoct::packed_box_index in 2D.
template <class T, class Id = std::uint32_t>
using packed_rectangle_index = packed_box_index<T, 2, Id>;

template <class T, std::size_t D, class Id>
void packed_box_index<T, D, Id>::build(const box_type* boxes, std::size_t n) {
    if (n > std::size_t{std::numeric_limits<Id>::max()})
        throw std::length_error("quoct: " + std::to_string(n) + " boxes do not fit the Id type");
    std::vector<centred> order(n);
    for (std::size_t i = 0; i < n; ++i) {
        const box_type& b = boxes[i];
        try {
            detail::check_point(b.lo, "box corner");
            detail::check_point(b.hi, "box corner");
            detail::check_box(b);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(std::string(e.what()) + " (box " + std::to_string(i) + ")");
        }
        order[i].id = i;
        for (std::size_t a = 0; a < D; ++a) order[i].c[a] = b.lo[a] / 2 + b.hi[a] / 2;
    }
    std::size_t span = 1;  // boxes under the root
    while (span < n) span *= fanout;
    tile(order, 0, n, span / fanout);
    ids_.resize(n);
    position_.resize(n);
    levels_.assign(1, level{});
    level& base = levels_[0];
    base.count = n;
    for (std::size_t a = 0; a < D; ++a) base.lo[a].resize(n), base.hi[a].resize(n);
    base.least.resize(n);
    for (std::size_t s = 0; s < n; ++s) {
        const std::size_t i = order[s].id;
        ids_[s] = static_cast<Id>(i);
        position_[i] = static_cast<Id>(s);
        base.least[s] = static_cast<Id>(i);
        for (std::size_t a = 0; a < D; ++a) base.lo[a][s] = boxes[i].lo[a], base.hi[a][s] = boxes[i].hi[a];
    }
    while (levels_.back().count > 1) {
        const std::size_t below = levels_.back().count, count = (below + fanout - 1) / fanout;
        level up;
        up.count = count;
        for (std::size_t a = 0; a < D; ++a) up.lo[a].resize(count), up.hi[a].resize(count);
        up.least.resize(count);
        const level& child = levels_.back();
        for (std::size_t j = 0; j < count; ++j) {
            const std::size_t b = j * fanout, e = std::min(below, b + fanout);
            for (std::size_t a = 0; a < D; ++a) {
                up.lo[a][j] = *std::min_element(child.lo[a].begin() + static_cast<std::ptrdiff_t>(b),
                                                child.lo[a].begin() + static_cast<std::ptrdiff_t>(e));
                up.hi[a][j] = *std::max_element(child.hi[a].begin() + static_cast<std::ptrdiff_t>(b),
                                                child.hi[a].begin() + static_cast<std::ptrdiff_t>(e));
            }
            up.least[j] = *std::min_element(child.least.begin() + static_cast<std::ptrdiff_t>(b),
                                            child.least.begin() + static_cast<std::ptrdiff_t>(e));
        }
        levels_.push_back(std::move(up));
    }
}

// Top down: orders [b, e) so that each run of `chunk` boxes (a child of the node over
// [b, e)) is a tile of space, then each run for its own children.
template <class T, std::size_t D, class Id>
void packed_box_index<T, D, Id>::tile(std::vector<centred>& order, std::size_t b, std::size_t e, std::size_t chunk) {
    if (chunk <= 1 || e - b <= 1) return;  // (the order inside a leaf does not matter)
    bisect(order, b, e, chunk);
    for (std::size_t s = b; s < e; s += chunk) tile(order, s, std::min(e, s + chunk), chunk / fanout);
}

// Cuts [b, e) into tiles of whole chunks by halving: at a chunk boundary near the middle,
// across the longest extent of the centres (so tiles come out about square whatever the
// data's shape), each half again, in O(n log chunks).
template <class T, std::size_t D, class Id>
void packed_box_index<T, D, Id>::bisect(std::vector<centred>& order, std::size_t b, std::size_t e, std::size_t chunk) {
    const std::size_t chunks = (e - b + chunk - 1) / chunk;
    if (chunks <= 1) return;
    point_type lo = order[b].c, hi = lo;
    for (std::size_t s = b + 1; s < e; ++s)
        for (std::size_t a = 0; a < D; ++a) {
            lo[a] = std::min(lo[a], order[s].c[a]);
            hi[a] = std::max(hi[a], order[s].c[a]);
        }
    std::size_t axis = 0;
    for (std::size_t a = 1; a < D; ++a)
        if (hi[a] - lo[a] > hi[axis] - lo[axis]) axis = a;
    const std::size_t cut = b + chunks / 2 * chunk;
    std::nth_element(order.begin() + static_cast<std::ptrdiff_t>(b), order.begin() + static_cast<std::ptrdiff_t>(cut),
                     order.begin() + static_cast<std::ptrdiff_t>(e),
                     [axis](const centred& x, const centred& y) { return x.c[axis] < y.c[axis]; });
    bisect(order, b, cut, chunk);
    bisect(order, cut, e, chunk);
}

// Bit k: entry b + k of level c (k < m) meets q, by intersects(q, box) (closed; nothing
// here is NaN). Two doubles at a time with SSE2 (every x86-64 has it) for a full node.
template <class T, std::size_t D, class Id>
std::uint32_t packed_box_index<T, D, Id>::meeting(const box_type& q, const level& c, std::size_t b, std::size_t m) noexcept {
#if defined(__SSE2__)
    if constexpr (std::is_same<T, double>::value && fanout % 2 == 0) {
        if (m == fanout) {
            __m128d in[fanout / 2];
            for (std::size_t p = 0; p < fanout / 2; ++p) in[p] = _mm_castsi128_pd(_mm_set1_epi32(-1));
            for (std::size_t a = 0; a < D; ++a) {
                const __m128d ql = _mm_set1_pd(q.lo[a]), qh = _mm_set1_pd(q.hi[a]);
                const double* lo = c.lo[a].data() + b;
                const double* hi = c.hi[a].data() + b;
                for (std::size_t p = 0; p < fanout / 2; ++p)
                    in[p] = _mm_and_pd(in[p], _mm_and_pd(_mm_cmple_pd(ql, _mm_loadu_pd(hi + 2 * p)),
                                                         _mm_cmple_pd(_mm_loadu_pd(lo + 2 * p), qh)));
            }
            std::uint32_t met = 0;
            for (std::size_t p = 0; p < fanout / 2; ++p) met |= static_cast<std::uint32_t>(_mm_movemask_pd(in[p])) << (2 * p);
            return met;
        }
    }
#endif
    std::uint32_t met = 0;
    for (std::size_t k = 0; k < m; ++k) {
        bool in = true;
        for (std::size_t a = 0; a < D; ++a) in = in && q.lo[a] <= c.hi[a][b + k] && c.lo[a][b + k] <= q.hi[a];
        met |= static_cast<std::uint32_t>(in) << k;
    }
    return met;
}

// Depth first from the root: a node's children tested in one pass (boxes: one vectorised
// loop), the ones inside the query taken whole, the others met descended (or, on level 0,
// reported).
template <class T, std::size_t D, class Id>
template <class Query, class F>
bool packed_box_index<T, D, Id>::search(const Query& q, F& f) const {
    if (ids_.empty()) return true;
    const std::size_t top = levels_.size() - 1;
    if (!intersects(q, entry(top, 0))) return true;
    if (top == 0) return detail::go_on(f, ids_[0]);  // one box: the root is the box
    struct item {
        std::size_t l, i;
    };
    // Depth first holds at most fanout - 1 siblings a level, and a level more is a factor
    // fanout more boxes: 64 levels would number more boxes than memory holds.
    item stack[64 * fanout];
    std::size_t depth = 0;
    const auto whole = [&](std::size_t l, std::size_t i) {
        const std::pair<std::size_t, std::size_t> r = run(l, i);
        for (std::size_t s = r.first; s < r.second; ++s)
            if (!detail::go_on(f, ids_[s])) return false;
        return true;
    };
    if (contains(q, entry(top, 0))) return whole(top, 0);
    stack[depth++] = {top, 0};
    while (depth != 0) {
        const item it = stack[--depth];
        const std::size_t l = it.l - 1;
        const level& c = levels_[l];
        const std::size_t b = it.i * fanout, m = std::min(c.count - b, fanout);
        std::uint32_t met = 0;  // bit k: child k meets q
        if constexpr (std::is_same<Query, box_type>::value) {
            met = meeting(q, c, b, m);
        } else {
            for (std::size_t k = 0; k < m; ++k) met |= static_cast<std::uint32_t>(intersects(q, entry(l, b + k))) << k;
        }
        for (; met != 0; met &= met - 1) {
            const std::size_t j = b + detail::lowest_bit(met);
            if (l == 0) {
                if (!detail::go_on(f, ids_[j])) return false;
            } else if (contains(q, entry(l, j))) {
                if (!whole(l, j)) return false;
            } else {
                stack[depth++] = {l, j};
            }
        }
    }
    return true;
}

// Best first by (least squared distance, least id) over nodes, with the k best (squared
// distance, id) so far: a node whose pair is not below the k-th best holds no better box.
template <class T, std::size_t D, class Id>
void packed_box_index<T, D, Id>::nearest(const point_type& p, std::size_t k, std::vector<neighbor_type>& out) const {
    detail::check_k(k);
    detail::check_point(p, "query point");
    out.clear();
    if (ids_.empty()) return;
    k = std::min(k, size());
    struct node {
        T d2;
        Id least;
        std::size_t l, i;
        bool operator<(const node& o) const noexcept {  // (for a min-heap on (d2, least))
            return o.d2 < d2 || (!(d2 < o.d2) && o.least < least);
        }
    };
    const auto before = [](const neighbor_type& x, const neighbor_type& y) {
        return x.distance_sq < y.distance_sq || (!(y.distance_sq < x.distance_sq) && x.id < y.id);
    };
    std::vector<node> heap;  // (as std::priority_queue over a vector reserved once)
    heap.reserve(8 * fanout);
    std::priority_queue<node> queue(std::less<node>(), std::move(heap));
    std::vector<neighbor_type>& best = out;  // a max-heap on (distance, id) while searching
    best.reserve(k);
    const std::size_t top = levels_.size() - 1;
    queue.push({distance_sq(p, entry(top, 0)), levels_[top].least[0], top, 0});
    const auto offer = [&](const neighbor_type& cand) {
        if (best.size() < k) {
            best.push_back(cand);
            std::push_heap(best.begin(), best.end(), before);
        } else if (before(cand, best.front())) {
            std::pop_heap(best.begin(), best.end(), before);
            best.back() = cand;
            std::push_heap(best.begin(), best.end(), before);
        }
    };
    if (top == 0) queue.pop(), offer({ids_[0], distance_sq(p, entry(0, 0))});  // one box
    while (!queue.empty()) {
        const node n = queue.top();
        if (best.size() == k && !before(neighbor_type{n.least, n.d2}, best.front())) break;
        queue.pop();
        const std::size_t l = n.l - 1, b = n.i * fanout, m = std::min(levels_[l].count - b, fanout);
        for (std::size_t j = b; j < b + m; ++j) {
            const T d2 = distance_sq(p, entry(l, j));
            if (l == 0) {  // a box: straight to the k best
                offer({ids_[j], d2});
                continue;
            }
            const node child{d2, levels_[l].least[j], l, j};
            if (best.size() == k && !before(neighbor_type{child.least, child.d2}, best.front())) continue;
            queue.push(child);
        }
    }
    std::sort_heap(best.begin(), best.end(), before);
}

}  // namespace quoct

#endif  // QUOCT_PACKED_OBJECTS_HPP
