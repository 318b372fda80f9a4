// quoct: static indexes of objects with extent (boxes, or balls) packed into a bounding
// hierarchy of the objects themselves: built in one pass, queried by box, ball or point
// (the objects that contain it), by k nearest, for every pair of objects that meet (the
// broad phase) and every pair between two sets (a join); refitted in place when the objects
// move. Optional header; standard library only.
//
//   std::vector<quoct::box<double, 2>> parcels = ...;
//   const quoct::packed_box_index<double, 2> index(parcels);        // ids 0..n-1, as given
//   std::vector<std::uint32_t> hit = index.query(window);           // boxes meeting the window
//   std::vector<std::uint32_t> at = index.containing(p);            // boxes holding the point
//   std::vector<quoct::neighbor<double, std::uint32_t>> near;
//   index.nearest(p, 10, near);                                     // the 10 nearest boxes
//   auto overlaps = index.colliding_pairs(2);                       // (a, b), a < b, on 2 threads
//
//   quoct::packed_ball_index<double, 3> grains(spheres);            // balls: the same queries
//   quoct::moving_ball_index<double, 3> bodies(spheres);            // objects that move:
//   bodies.update(moved);                                           // after each time step
//   auto contacts = bodies.colliding_pairs();
//
// Design (a packed R-tree, as flatbush and Boost.Geometry's bulk load build one). The objects
// are ordered top down, each node's objects cut into its children's by halving across the
// longest extent of their centres (each child a tile of space), and cut into nodes of
// `fanout` objects; those nodes into parents of `fanout` nodes, and so on up to one root.
// Level 0 is the objects' bounds (a box is its own bounds; a ball's are the box around it,
// rounded outwards), level l + 1 the bounding boxes of level l's runs of `fanout`: entry j of
// level l + 1 holds entries [fanout j, fanout j + fanout) of level l, so no links are
// stored, and the objects under any node are one run of the sorted order. Every level keeps
// its bounds axis by axis (all low x, all high x, ...), so that a node's children are tested
// against a query in one loop (two doubles at a time with SSE2). A node whose box lies
// inside the query is taken whole (its run of ids, copied), without testing its objects.
// refit() keeps the order and recomputes the bounds bottom up, in O(n). The broad phase
// traverses the tree with itself: a pair of entries that meet goes to the pairs of their
// children that meet, each child of one tested against all the other's in one pass, so that
// the upper levels are shared by all the pairs below. A join searches this tree with each
// object of the other set, in that set's order (neighbours after neighbours).
//
// Moving objects (moving_object_index). A refit tree stays exact but slows as objects travel:
// one far mover stretches its leaf's box and every box above it over the space between. So
// each leaf keeps a fat box (its box at the build, grown by a quarter of its largest width);
// an object whose new bounds leave its leaf's fat box is parked in the main tree (its entry
// given bounds that meet nothing) and joins a small loose tree built anew on each update.
// Queries ask both; pairs are the main tree's, the loose tree's, and the loose objects'
// against the main tree. Past one object in eight loose, the main tree is built anew.
//
// Answers. Each query returns exactly the objects its predicate accepts, by the closed
// predicates of shapes.hpp: intersects(query, object) for a box or ball query,
// contains(object, p) for a point, intersects(a, b) for pairs. Pruning never drops an
// object the predicate accepts:
// - A node's box holds its entries' boxes exactly (unions of bounds need no rounding), and a
//   predicate of a box can only grow with the box it is given.
// - A ball's box is its centre plus and minus reach(r) = r (1 + (D + 4) eps), rounded
//   outwards. The ball predicate rounds in T but never overflows or underflows, so it
//   accepts only points within r (1 + (D + 4) eps / 4) of the centre, all in the box; and
//   intersects(q, ball) with q a box or a point then implies q meets the box.
// - Two balls meet when |c1 - c2|^2 <= (r1 + r2)^2 rounded: then the query ball grown to
//   reach(r1) meets the other's box, so a ball query descends the nodes its grown form
//   meets, and reports only the balls its own predicate accepts.
// - A node taken whole lies inside the query as given: its objects' centres lie in it, and
//   an object whose centre is in a box or ball query meets it.
//
// nearest() ranks objects by distance_sq(p, object) (0 for a point inside), ties by smaller
// id: exactly the first k of all objects sorted by (squared distance, id). A node is
// searched while its key, a lower bound of its objects' distances and their least id, may
// still beat the k-th best; depth first, each node's children by that key, in two passes:
// first only the children at distance 0 (the nodes holding p, where a point inside many
// objects finds its k best), setting aside the nodes with others left, then those, the
// nearest first. The least id of a node says little about its objects at distance 0, so
// where p lies inside many objects most of them are visited; ties::any ranks by (distance,
// position in the tree) instead, whose least under a node is its first, and stops after k
// of them. For a box the bound is distance_sq(p, node box), exact as the pruning above. For balls, whose distance
// is sqrt(distance_sq(p, c)) - r rounded step by step (a measure that may fall short of the
// real distance by a few roundings of |p - c|), it is the distance to the node's box less
// (D + 8) eps of the node's farthest corner distance: see ball_floor() below.
//
// Thread-safety: queries are const and may run from any number of threads; refit() and
// update() may not run alongside anything else.
#ifndef QUOCT_PACKED_OBJECTS_HPP
#define QUOCT_PACKED_OBJECTS_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "csr.hpp"
#include "detail/bits.hpp"
#include "detail/callback.hpp"
#include "detail/file_names.hpp"
#include "detail/knn.hpp"
#include "detail/morton.hpp"
#include "detail/pair_kernels.hpp"
#include "detail/rounding.hpp"
#include "detail/validate.hpp"
#include "neighbor.hpp"
#include "object_queries.hpp"
#include "parallel.hpp"
#include "shapes.hpp"

namespace quoct {
namespace detail {

/// The pairs (a, b), a < b < n, of all `parts` as one list sorted by (a, b): counted into
/// rows by a, then each row sorted.
template <class Id>
std::vector<std::pair<Id, Id>> sorted_pairs(const std::vector<std::vector<std::pair<Id, Id>>>& parts, std::size_t n) {
    std::vector<std::size_t> starts(n + 1, 0);
    for (const auto& part : parts)
        for (const auto& p : part) ++starts[p.first + 1];
    for (std::size_t a = 0; a < n; ++a) starts[a + 1] += starts[a];
    std::vector<std::pair<Id, Id>> pairs(starts.back());
    std::vector<std::size_t> next(starts.begin(), starts.end() - 1);
    for (const auto& part : parts)
        for (const auto& p : part) pairs[next[p.first]++] = p;
    for (std::size_t a = 0; a < n; ++a)
        std::sort(pairs.begin() + static_cast<std::ptrdiff_t>(starts[a]), pairs.begin() + static_cast<std::ptrdiff_t>(starts[a + 1]));
    return pairs;
}

/// How a packed index holds one kind of object: its checks, and the box the hierarchy
/// holds it by.
template <class Shape>
struct packed_shape;

template <class T, std::size_t D>
struct packed_shape<box<T, D>> {
    using scalar = T;
    static constexpr std::size_t dimension = D;
    static constexpr const char* noun = "box";
    static constexpr bool bounds_are_shape = true;  // the box tests are the predicates
    static void check(const box<T, D>& b) {
        check_point(b.lo, "box corner");
        check_point(b.hi, "box corner");
        check_box(b);
    }
    static box<T, D> bounds(const box<T, D>& b) noexcept { return b; }
};

template <class T, std::size_t D>
struct packed_shape<ball<T, D>> {
    using scalar = T;
    static constexpr std::size_t dimension = D;
    static constexpr const char* noun = "ball";
    static constexpr bool bounds_are_shape = false;
    static void check(const ball<T, D>& s) {
        check_point(s.center, "ball centre");
        check_radius(s.radius, "ball");
        if (!std::isfinite(s.radius)) throw std::invalid_argument("quoct: ball radius is infinite");
    }
    /// r (1 + (D + 4) eps), rounded up: more than any point the ball predicate accepts
    /// lies from the centre (see the top of this header).
    static T reach(T r) noexcept { return plus_up(r, r * (T(D + 4) * std::numeric_limits<T>::epsilon())); }
    static box<T, D> bounds(const ball<T, D>& s) noexcept {
        const T e = reach(s.radius);
        box<T, D> b;
        for (std::size_t a = 0; a < D; ++a) {
            b.lo[a] = minus_down(s.center[a], e);
            b.hi[a] = plus_up(s.center[a], e);
        }
        return b;
    }
};

#ifdef QUOCT_X86_DISPATCH
// A full node's 16 children against a query box, with AVX2 (4 doubles or 8 floats a step),
// chosen at run time (kernels::active_level()): the scalar form's comparisons, lane by lane.
// (Measured: floats' box queries 1.9x faster than scalar; doubles' level with SSE2. The
// distances of nearest() stay on SSE2, which AVX2 did not beat.)

/// Bit k: child b + k (columns lo[a], hi[a]) meets the box [qlo, qhi] (closed).
template <class T, std::size_t D, std::size_t N>
QUOCT_TARGET_AVX2 inline std::uint32_t avx2_children_meeting(const T* const* lo, const T* const* hi, std::size_t b,
                                                             const T* qlo, const T* qhi) noexcept {
    using V = kernels::avx2_ops<T>;
    constexpr std::size_t lanes = 32 / sizeof(T);
    std::uint32_t met = 0;
    for (std::size_t g = 0; g < N; g += lanes) {
        unsigned in = (1u << lanes) - 1;
        for (std::size_t a = 0; a < D; ++a)
            in &= V::le(V::splat(qlo[a]), V::load(hi[a] + b + g)) & V::le(V::load(lo[a] + b + g), V::splat(qhi[a]));
        met |= static_cast<std::uint32_t>(in) << g;
    }
    return met;
}
#endif

}  // namespace detail

/// A static index of objects with extent (see the top of this header): Shape is
/// quoct::box<T, D> (packed_box_index) or quoct::ball<T, D> (packed_ball_index). Ids are the
/// objects' positions in the input. Id must number every object (std::uint64_t beyond
/// 2^32 - 1).
template <class Shape, class Id = std::uint32_t>
class packed_object_index : public object_queries<packed_object_index<Shape, Id>, typename Shape::point_type, Id> {
    using traits = detail::packed_shape<Shape>;
    using queries = object_queries<packed_object_index, typename Shape::point_type, Id>;
    static_assert(std::is_floating_point<typename traits::scalar>::value,
                  "quoct::packed_object_index: the coordinates must be a floating-point type");
    static_assert(std::is_integral<Id>::value && std::is_unsigned<Id>::value,
                  "quoct::packed_object_index: Id must be an unsigned integer type");

public:
    using shape_type = Shape;                            ///< the indexed objects
    using scalar_type = typename traits::scalar;         ///< the coordinate type
    using id_type = Id;                                  ///< the object ids
    static constexpr std::size_t dimension = traits::dimension;  ///< the number of coordinates
    using point_type = point<scalar_type, dimension>;    ///< a point
    using box_type = box<scalar_type, dimension>;        ///< a closed box (a query)
    using ball_type = ball<scalar_type, dimension>;      ///< a closed ball (a query)
    using neighbor_type = neighbor<scalar_type, Id>;     ///< one result of nearest()
    /// Children per node (and objects per leaf).
    static constexpr std::size_t fanout = 16;
    /// quoct/file.hpp's open() reads a packed index into memory rather than mapping it:
    /// its file holds the objects in the tree's order and their ids, and reading it
    /// recomputes the bounds (in O(n), no sort).
    static constexpr bool file_mappable = false;

    /// An empty index.
    packed_object_index() = default;
    /// Indexes the n objects at `objects` (ids 0..n-1). Throws std::invalid_argument for a
    /// box with a NaN or infinite corner or lo > hi on an axis, or a ball with a NaN or
    /// infinite centre or a NaN, negative or infinite radius (naming the first such object),
    /// std::length_error if Id cannot number n objects, std::bad_alloc.
    packed_object_index(const Shape* objects, std::size_t n) { build(objects, n); }
    /// Indexes the objects of `objects` (ids 0..size-1); throws as the constructor above.
    explicit packed_object_index(const std::vector<Shape>& objects)
        : packed_object_index(objects.data(), objects.size()) {}

    /// Objects indexed.
    std::size_t size() const noexcept { return ids_.size(); }
    /// True when no object is indexed.
    bool empty() const noexcept { return ids_.empty(); }
    /// Object `id` as given (stored as is). Throws std::out_of_range if id >= size().
    Shape shape(Id id) const {
        if (id >= size()) throw std::out_of_range("quoct: id " + std::to_string(id) + " is not an object of the index");
        return stored(position_[id]);
    }
    /// Bytes the index holds (its bounds, levels, objects, ids and the id map).
    std::size_t memory_bytes() const noexcept {
        std::size_t n = 0;
        for (const level& l : levels_) n += (2 * dimension * sizeof(scalar_type) + sizeof(Id)) * l.count;
        return n + shapes_.size() * sizeof(Shape) + (ids_.size() + position_.size()) * sizeof(Id);
    }

    /// Moves the objects: object i becomes objects[i], for all n == size() of them, in O(n).
    /// The tree keeps its order and its bounds are recomputed, so every query stays exact;
    /// as objects travel far from where they were built the nodes grow and queries slow,
    /// and building anew restores them. Throws std::invalid_argument if n != size() or for
    /// a bad object (as the constructor), leaving the index as it was.
    void refit(const Shape* objects, std::size_t n) {
        if (n != size())
            throw std::invalid_argument("quoct: refit needs " + std::to_string(size()) + " objects, got " +
                                        std::to_string(n));
        check_all(objects, n);
        if (n == 0) return;
        for (std::size_t s = 0; s < n; ++s) {
            fetch(objects, s);
            place(s, objects[ids_[s]]);
        }
        raise_levels();
        parked_ = false;
    }
    /// As refit(objects, n) with the objects of `objects`.
    void refit(const std::vector<Shape>& objects) { refit(objects.data(), objects.size()); }

    /// @name Queries
    /// Each gives exactly the objects its predicate accepts (closed sets: touching counts),
    /// in no particular order. Throws std::invalid_argument for a query with a NaN, a box
    /// with lo > hi, a negative radius, a NaN or infinite point.
    ///@{
    /// Calls f(id) for every object meeting `q` (intersects(q, object)); f returning false
    /// (when it returns a bool) stops the search. Returns false if stopped.
    template <class F>
    bool visit(const box_type& q, F&& f) const {
        detail::check_box(q);
        return search(q, f);
    }
    /// As visit(box, f), for the objects meeting the ball `q` (intersects(q, object)).
    template <class F>
    bool visit(const ball_type& q, F&& f) const {
        detail::check_ball(q);
        return search(q, f);
    }
    /// Ids of the objects that contain `p` (contains(object, p)).
    std::vector<Id> containing(const point_type& p) const {
        detail::check_point(p, "query point");
        std::vector<Id> out;
        auto add = [&](Id id) { out.push_back(id); };
        search(p, add);
        return out;
    }
    /// The min(k, size()) objects nearest `p` by distance_sq(p, object) (0 inside), nearest
    /// first, ties by smaller id; with ties::any, equally distant objects in an unspecified
    /// order and any of them at the k-th distance (see quoct::ties), which stops early where
    /// a point lies inside many objects. Throws std::invalid_argument if k == 0 or p has a
    /// NaN or infinite coordinate.
    void nearest(const point_type& p, std::size_t k, std::vector<neighbor_type>& out,
                 ties rule = ties::smallest_id) const;
    using queries::nearest;
    /// The broad phase: calls f(a, b) once for every pair of objects that meet
    /// (intersects(a, b), closed: touching counts), a < b; false from f stops (then returns
    /// false). Serial; the order is fixed for a given index but otherwise unspecified.
    template <class F>
    bool for_each_colliding_pair(F&& f) const {
        if (size() < 2) return true;
        const std::size_t top = levels_.size() - 1;
        return self_join({top, 0, 0}, f);
    }
    /// Every pair (a, b) of objects that meet, a < b, sorted by (a, b), found on `threads`
    /// std::threads (0: one per hardware thread); the list is the same for any thread count.
    std::vector<std::pair<Id, Id>> colliding_pairs(unsigned threads = 1) const;
    /// A join: row i lists, sorted, the ids of this index's objects that meet object i of
    /// `other` (intersects), found on `threads` std::threads (0: one per hardware thread).
    /// The rows are the same for any thread count.
    template <class OtherShape, class OtherId>
    csr<Id> meeting(const packed_object_index<OtherShape, OtherId>& other, unsigned threads = 1) const {
        static_assert(std::is_same<typename packed_object_index<OtherShape, OtherId>::point_type, point_type>::value,
                      "quoct::packed_object_index::meeting: both sets need the same coordinate type and dimension");
        std::vector<std::size_t> order(other.ids_.begin(), other.ids_.end());  // theirs, near to near
        return detail::gather_rows<Id>(other.size(), order, threads, [&](std::size_t i, std::vector<Id>& out) {
            const std::size_t from = out.size();
            auto add = [&](Id id) { out.push_back(id); };
            search(other.stored(other.position_[i]), add);
            std::sort(out.begin() + static_cast<std::ptrdiff_t>(from), out.end());
        });
    }
    /// A join with points: row i lists, sorted, the ids of the objects that contain
    /// points[i] (contains(object, p)), on `threads` std::threads (0: one per hardware
    /// thread). Throws std::invalid_argument for a NaN or infinite point (naming it) before
    /// any search.
    csr<Id> containing(const std::vector<point_type>& points, unsigned threads = 1) const {
        for (std::size_t i = 0; i < points.size(); ++i) {
            if (!is_finite(points[i]))
                throw std::invalid_argument("quoct: point " + std::to_string(i) + " has a NaN or infinite coordinate");
        }
        return detail::gather_rows<Id>(points.size(), {}, threads, [&](std::size_t i, std::vector<Id>& out) {
            const std::size_t from = out.size();
            auto add = [&](Id id) { out.push_back(id); };
            search(points[i], add);
            std::sort(out.begin() + static_cast<std::ptrdiff_t>(from), out.end());
        });
    }
    ///@}

private:
    template <class, class>
    friend class packed_object_index;
    // Its saved form (quoct/file.hpp, through detail::file_codec): "meta" (the count), "ids"
    // (by sorted position) and "objects" (by sorted position). A file read back is checked
    // as the constructor checks its input, and its ids must number the objects once each.
    template <class>
    friend struct detail::file_codec;
    static std::string file_type_name() {
        return std::string(traits::bounds_are_shape ? "packed_box_index<" : "packed_ball_index<") +
               detail::scalar_name<scalar_type>() + ", " + std::to_string(dimension) + ", " + detail::id_name<Id>() + ">";
    }
    template <class Writer>
    void write_sections(Writer& w, const std::string& prefix) const {
        std::vector<Shape> objects(size());
        for (std::size_t s = 0; s < size(); ++s) objects[s] = stored(s);
        w.add_copy(prefix + "meta", std::vector<std::uint64_t>{size()});
        w.add(prefix + "ids", ids_.data(), ids_.size());
        w.add_copy(prefix + "objects", objects);
    }
    template <class Reader>
    static packed_object_index read_sections(const Reader& r, const std::string& prefix) {
        const std::size_t n = Reader::to_size(r.template get<std::uint64_t>(prefix + "meta", 1)[0]);
        if (n > std::size_t{std::numeric_limits<Id>::max()})
            r.fail("damaged: " + std::to_string(n) + " objects do not fit the Id type");
        packed_object_index x;
        const std::vector<Id> ids = r.template copy<Id>(prefix + "ids", n);
        x.ids_.assign(ids.begin(), ids.end());
        const std::vector<Shape> objects = r.template copy<Shape>(prefix + "objects", n);
        x.position_.assign(n, 0);
        std::vector<char> seen(n, 0);
        for (std::size_t s = 0; s < n; ++s) {
            const Id id = x.ids_[s];
            if (id >= n || seen[id]) r.fail("damaged: the ids do not number the " + std::to_string(n) + " objects once each");
            seen[id] = 1;
            x.position_[id] = static_cast<Id>(s);
        }
        try {
            x.check_all(objects.data(), n);
        } catch (const std::invalid_argument& e) {
            r.fail(std::string("damaged: ") + e.what());
        }
        if constexpr (!traits::bounds_are_shape) x.shapes_.resize(n);
        x.levels_.assign(1, level{});
        x.levels_[0].resize(n);
        for (std::size_t s = 0; s < n; ++s) {
            x.levels_[0].least[s] = x.ids_[s];
            x.place(s, objects[s]);
        }
        x.raise_levels();
        return x;
    }
    template <class, class>
    friend class moving_object_index;
    using T = scalar_type;
    static constexpr std::size_t D = dimension;

    // One level: its entries' bounds axis by axis, and the least id under each entry.
    struct level {
        std::size_t count = 0;
        detail::raw_vector<T> lo[D], hi[D];  // (resize() leaves new entries to be written)
        detail::raw_vector<Id> least;
        void resize(std::size_t n) {
            count = n;
            for (std::size_t a = 0; a < D; ++a) lo[a].resize(n), hi[a].resize(n);
            least.resize(n);
        }
    };

    box_type entry(std::size_t l, std::size_t i) const noexcept {
        box_type b;
        for (std::size_t a = 0; a < D; ++a) b.lo[a] = levels_[l].lo[a][i], b.hi[a] = levels_[l].hi[a][i];
        return b;
    }
    // The object at sorted position s.
    Shape stored(std::size_t s) const noexcept {
        if constexpr (traits::bounds_are_shape) {
            return entry(0, s);
        } else {
            return shapes_[s];
        }
    }
    // Puts `object`, whose bounds are b, at sorted position s of level 0.
    void place(std::size_t s, const Shape& object) noexcept { place(s, object, traits::bounds(object)); }
    void place(std::size_t s, const Shape& object, const box_type& b) noexcept {
        level& base = levels_[0];
        for (std::size_t a = 0; a < D; ++a) base.lo[a][s] = b.lo[a], base.hi[a][s] = b.hi[a];
        if constexpr (!traits::bounds_are_shape) shapes_[s] = object;
    }
    // The run of sorted positions under entry i of level l.
    std::pair<std::size_t, std::size_t> run(std::size_t l, std::size_t i) const noexcept {
        std::size_t span = 1;
        for (std::size_t j = 0; j < l; ++j) span *= fanout;
        return {i * span, std::min(ids_.size(), (i + 1) * span)};
    }

    // A query's three tests: which children of a node may hold an object it accepts, a node
    // whose every object it accepts, and whether it accepts the object at a sorted position.
    static box_type region(const point_type& p) noexcept { return box_type{p, p}; }
    static const box_type& region(const box_type& q) noexcept { return q; }
    static const ball_type& region(const ball_type& q) noexcept { return q; }
    template <class Query>
    static auto node_query(const Query& q) noexcept {
        if constexpr (std::is_same<Query, ball_type>::value && !traits::bounds_are_shape) {
            return ball_type{q.center, traits::reach(q.radius)};
        } else {
            return region(q);  // (by value: a box or a ball)
        }
    }
    template <class Query>
    bool accepts(const Query& q, std::size_t s) const noexcept {
        if constexpr (traits::bounds_are_shape) {
            return true;  // the level-0 test was the predicate
        } else if constexpr (std::is_same<Query, point_type>::value) {
            return contains(shapes_[s], q);
        } else {
            return intersects(q, shapes_[s]);
        }
    }

    void build(const Shape* objects, std::size_t n);
    void check_all(const Shape* objects, std::size_t n) const;
    void raise_levels();
    struct centred {  // an object's centre on the build's grid, and its id
        std::uint32_t q[D];
        Id id;
    };
    static void tile(detail::raw_vector<centred>& order, std::size_t b, std::size_t e, std::size_t chunk, const point_type& width);
    static void bisect(detail::raw_vector<centred>& order, std::size_t b, std::size_t e, std::size_t chunk, const point_type& width);
    template <class Query, class F>
    bool search(const Query& q, F& f) const;
    // A pair of entries of one level (i == j: an entry with itself) whose objects' meeting
    // pairs are still to be found.
    struct task {
        std::size_t l, i, j;
    };
    template <class Next>
    bool split(const task& t, Next&& next) const;
    template <class F>
    bool self_join(task start, F& f) const;
    static std::uint32_t meeting(const box_type& q, const level& c, std::size_t b, std::size_t m) noexcept;
    static T ball_floor(const point_type& p, const box_type& node) noexcept;
    static void box_floors(const point_type& p, const level& c, std::size_t b, std::size_t m, T* out) noexcept;
    struct nearest_search;  // nearest()'s state and steps

    // Parking (for moving_object_index): refits every object by id, except those marked
    // loose, whose entries get the empty bounds (+inf, -inf) that meet nothing. Queries then
    // take no node whole and pass parked entries by.
    void park(const Shape* objects, const std::vector<char>& loose) {
        if (size() == 0) return;
        for (std::size_t s = 0; s < size(); ++s) {
            fetch(objects, s);
            if (!loose[ids_[s]]) {
                place(s, objects[ids_[s]]);
                continue;
            }
            park_entry(s);
        }
        raise_levels();
        parked_ = true;
    }
    void park_entry(std::size_t s) noexcept {
        level& base = levels_[0];
        for (std::size_t a = 0; a < D; ++a)
            base.lo[a][s] = std::numeric_limits<T>::infinity(), base.hi[a][s] = -std::numeric_limits<T>::infinity();
    }
    bool is_parked(std::size_t s) const noexcept { return levels_[0].hi[0][s] < levels_[0].lo[0][s]; }
    // Passes over the sorted positions read objects by id, all over memory: each step asks
    // early for the object a few steps ahead.
    void fetch(const Shape* objects, std::size_t s) const noexcept {
        constexpr std::size_t ahead = 48;
#if defined(__GNUC__) || defined(__clang__)
        if (s + ahead < ids_.size()) __builtin_prefetch(objects + ids_[s + ahead]);
#else
        (void)objects, (void)s;
#endif
    }

    std::vector<level> levels_;    // levels_[0]: the objects' bounds in sorted order; back(): the root
    detail::raw_vector<Shape> shapes_;  // balls only: the objects by sorted position
    detail::raw_vector<Id> ids_;        // by sorted position
    detail::raw_vector<Id> position_;   // by id: its sorted position
    bool parked_ = false;          // some entries are parked (see park())
};

template <class Shape, class Id>
class moving_object_index;

/// Static boxes (see quoct::packed_object_index).
template <class T, std::size_t D, class Id = std::uint32_t>
using packed_box_index = packed_object_index<box<T, D>, Id>;
/// Static balls: circles in 2D, spheres in 3D (see quoct::packed_object_index).
template <class T, std::size_t D, class Id = std::uint32_t>
using packed_ball_index = packed_object_index<ball<T, D>, Id>;
/// quoct::packed_box_index in 2D.
template <class T, class Id = std::uint32_t>
using packed_rectangle_index = packed_box_index<T, 2, Id>;

template <class Shape, class Id>
void packed_object_index<Shape, Id>::check_all(const Shape* objects, std::size_t n) const {
    for (std::size_t i = 0; i < n; ++i) {
        try {
            traits::check(objects[i]);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(std::string(e.what()) + " (" + traits::noun + " " + std::to_string(i) + ")");
        }
    }
}

template <class Shape, class Id>
void packed_object_index<Shape, Id>::build(const Shape* objects, std::size_t n) {
    if (n > std::size_t{std::numeric_limits<Id>::max()})
        throw std::length_error("quoct: " + std::to_string(n) + " objects do not fit the Id type");
    check_all(objects, n);
    // The centres on a grid of 2^32 cells an axis over their bounds: the sort moves 4 bytes
    // a coordinate, and a cell's width per axis weighs the axes when choosing where to cut.
    const auto centre = [&](std::size_t i) {
        if constexpr (traits::bounds_are_shape) {
            point_type c;
            for (std::size_t a = 0; a < D; ++a) c[a] = objects[i].lo[a] / 2 + objects[i].hi[a] / 2;
            return c;
        } else {
            return objects[i].center;
        }
    };
    box_type region{};
    if (n != 0) region.lo = region.hi = centre(0);
    for (std::size_t i = 1; i < n; ++i) {
        const point_type c = centre(i);
        for (std::size_t a = 0; a < D; ++a) region.lo[a] = std::min(region.lo[a], c[a]), region.hi[a] = std::max(region.hi[a], c[a]);
    }
    const detail::quantizer<T, D> grid(region, 32);
    point_type width;  // of a cell, per axis (halved both sides where the extent overflows)
    for (std::size_t a = 0; a < D; ++a) width[a] = std::ldexp(region.hi[a] / 2 - region.lo[a] / 2, -31);
    detail::raw_vector<centred> order(n);
    for (std::size_t i = 0; i < n; ++i) {
        const point_type c = centre(i);
        for (std::size_t a = 0; a < D; ++a) order[i].q[a] = static_cast<std::uint32_t>(grid.cell(c[a], a));
        order[i].id = static_cast<Id>(i);
    }
    std::size_t span = 1;  // objects under the root
    while (span < n) span *= fanout;
    tile(order, 0, n, span / fanout, width);
    ids_.resize(n);
    position_.resize(n);
    if constexpr (!traits::bounds_are_shape) shapes_.resize(n);
    levels_.assign(1, level{});
    levels_[0].resize(n);
    constexpr std::size_t ahead = 16;  // objects are read in the tree's order, not theirs: fetch early
    for (std::size_t s = 0; s < n; ++s) {
#if defined(__GNUC__) || defined(__clang__)
        if (s + ahead < n) {
            __builtin_prefetch(objects + order[s + ahead].id);
            __builtin_prefetch(position_.data() + order[s + ahead].id, 1);
        }
#endif
        const Id i = order[s].id;
        ids_[s] = i;
        position_[i] = static_cast<Id>(s);
        levels_[0].least[s] = i;
        place(s, objects[i]);
    }
    raise_levels();
}

// Levels 1 and up from level 0: each entry the union of its run of `fanout` below.
template <class Shape, class Id>
void packed_object_index<Shape, Id>::raise_levels() {
    std::size_t l = 0;
    for (; levels_[l].count > 1; ++l) {
        const std::size_t below = levels_[l].count, count = (below + fanout - 1) / fanout;
        if (levels_.size() == l + 1) levels_.emplace_back();
        level& up = levels_[l + 1];
        up.resize(count);
        const level& child = levels_[l];
        for (std::size_t j = 0; j < count; ++j) {
            const std::size_t b = j * fanout, e = std::min(below, b + fanout);
            for (std::size_t a = 0; a < D; ++a) {
                T lo = child.lo[a][b], hi = child.hi[a][b];
                for (std::size_t k = b + 1; k < e; ++k) lo = std::min(lo, child.lo[a][k]), hi = std::max(hi, child.hi[a][k]);
                up.lo[a][j] = lo, up.hi[a][j] = hi;
            }
            Id least = child.least[b];
            for (std::size_t k = b + 1; k < e; ++k) least = std::min(least, child.least[k]);
            up.least[j] = least;
        }
    }
    levels_.resize(l + 1);
}

// Top down: orders [b, e) so that each run of `chunk` objects (a child of the node over
// [b, e)) is a tile of space, then each run for its own children.
template <class Shape, class Id>
void packed_object_index<Shape, Id>::tile(detail::raw_vector<centred>& order, std::size_t b, std::size_t e,
                                          std::size_t chunk, const point_type& width) {
    if (chunk <= 1 || e - b <= 1) return;  // (the order inside a leaf does not matter)
    bisect(order, b, e, chunk, width);
    for (std::size_t s = b; s < e; s += chunk) tile(order, s, std::min(e, s + chunk), chunk / fanout, width);
}

// Cuts [b, e) into tiles of whole chunks by halving: at a chunk boundary near the middle,
// across the longest extent of the centres (cells times the cell's width, over a sample of
// about 64 of them: so tiles come out about square whatever the data's shape), each half
// again, in O(n log chunks).
template <class Shape, class Id>
void packed_object_index<Shape, Id>::bisect(detail::raw_vector<centred>& order, std::size_t b, std::size_t e,
                                            std::size_t chunk, const point_type& width) {
    const std::size_t chunks = (e - b + chunk - 1) / chunk;
    if (chunks <= 1) return;
    std::uint32_t lo[D], hi[D];
    for (std::size_t a = 0; a < D; ++a) lo[a] = hi[a] = order[b].q[a];
    const std::size_t stride = std::max<std::size_t>(1, (e - b) / 64);  // a sample is enough to choose
    for (std::size_t s = b + stride; s < e; s += stride)
        for (std::size_t a = 0; a < D; ++a) {
            lo[a] = std::min(lo[a], order[s].q[a]);
            hi[a] = std::max(hi[a], order[s].q[a]);
        }
    std::size_t axis = 0;
    T longest = 0;
    for (std::size_t a = 0; a < D; ++a) {
        const T extent = static_cast<T>(hi[a] - lo[a]) * width[a];
        if (extent > longest) longest = extent, axis = a;
    }
    const std::size_t cut = b + chunks / 2 * chunk;
    std::nth_element(order.begin() + static_cast<std::ptrdiff_t>(b), order.begin() + static_cast<std::ptrdiff_t>(cut),
                     order.begin() + static_cast<std::ptrdiff_t>(e),
                     [axis](const centred& x, const centred& y) { return x.q[axis] < y.q[axis]; });
    bisect(order, b, cut, chunk, width);
    bisect(order, cut, e, chunk, width);
}

// Bit k: entry b + k of level c (k < m) meets q, by intersects(q, box) (closed; nothing
// here is NaN). Two doubles at a time with SSE2 (every x86-64 has it) for a full node.
template <class Shape, class Id>
std::uint32_t packed_object_index<Shape, Id>::meeting(const box_type& q, const level& c, std::size_t b,
                                                      std::size_t m) noexcept {
#ifdef QUOCT_X86_DISPATCH
    if constexpr (std::is_same<T, double>::value || std::is_same<T, float>::value) {
        if (m == fanout && detail::kernels::active_level() != detail::kernels::level::portable) {
            const T* lo[D];
            const T* hi[D];
            for (std::size_t a = 0; a < D; ++a) lo[a] = c.lo[a].data(), hi[a] = c.hi[a].data();
            return detail::avx2_children_meeting<T, D, fanout>(lo, hi, b, q.lo.coords, q.hi.coords);
        }
    }
#endif
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

// distance_sq(p, entry) for the m entries of c from b, into out: for double, two entries
// a step, with the scalar form's operations in its order (min, max, difference, square,
// sum over the axes from the first), so each value equals it.
template <class Shape, class Id>
void packed_object_index<Shape, Id>::box_floors(const point_type& p, const level& c, std::size_t b, std::size_t m,
                                                T* out) noexcept {
#if defined(__SSE2__) && !defined(__FMA__)  // (where the compiler may fuse the scalar d * d + s, the scalar form)
    if constexpr (std::is_same<T, double>::value && fanout % 2 == 0) {
        if (m == fanout) {
            __m128d sum[fanout / 2];
            for (std::size_t a = 0; a < D; ++a) {
                const __m128d x = _mm_set1_pd(p[a]);
                const double* lo = c.lo[a].data() + b;
                const double* hi = c.hi[a].data() + b;
                for (std::size_t q = 0; q < fanout / 2; ++q) {
                    // axis_nearest: (x < hi ? x : hi), then (lo > that ? lo : that)
                    const __m128d nearest = _mm_max_pd(_mm_loadu_pd(lo + 2 * q), _mm_min_pd(x, _mm_loadu_pd(hi + 2 * q)));
                    const __m128d d = _mm_sub_pd(x, nearest);
                    sum[q] = a == 0 ? _mm_mul_pd(d, d) : _mm_add_pd(sum[q], _mm_mul_pd(d, d));
                }
            }
            for (std::size_t q = 0; q < fanout / 2; ++q) _mm_storeu_pd(out + 2 * q, sum[q]);
            return;
        }
    }
#endif
    for (std::size_t k = 0; k < m; ++k) {
        box_type e;
        for (std::size_t a = 0; a < D; ++a) e.lo[a] = c.lo[a][b + k], e.hi[a] = c.hi[a][b + k];
        out[k] = distance_sq(p, e);
    }
}

// Depth first from the root: a node's children tested in one pass (against a box: one
// vectorised loop), the ones inside the query taken whole, the others met descended (or,
// on level 0, tested by the query's predicate and reported).
template <class Shape, class Id>
template <class Query, class F>
bool packed_object_index<Shape, Id>::search(const Query& q, F& f) const {
    if (ids_.empty()) return true;
    const auto nq = node_query(q);   // the shape nodes are tested against
    const auto& whole_q = region(q);  // a node inside it is taken whole
    // A ball's box: a box a ball meets meets it, as the ball's nearest point of that box is
    // a point the ball holds, and bounds() holds every such point.
    box_type nq_box{};
    if constexpr (std::is_same<std::decay_t<decltype(nq)>, ball_type>::value) nq_box = detail::packed_shape<ball_type>::bounds(nq);
    const std::size_t top = levels_.size() - 1;
    if (!intersects(nq, entry(top, 0))) return true;
    if (top == 0) return (parked_ && is_parked(0)) || !accepts(q, 0) || detail::go_on(f, ids_[0]);  // one object
    struct item {
        std::size_t l, i;
    };
    // Depth first holds at most fanout - 1 siblings a level, and a level more is a factor
    // fanout more objects: 64 levels would number more objects than memory holds.
    item stack[64 * fanout];
    std::size_t depth = 0;
    const auto whole = [&](std::size_t l, std::size_t i) {
        const std::pair<std::size_t, std::size_t> r = run(l, i);
        for (std::size_t s = r.first; s < r.second; ++s)
            if (!detail::go_on(f, ids_[s])) return false;
        return true;
    };
    if (!parked_ && contains(whole_q, entry(top, 0))) return whole(top, 0);
    stack[depth++] = {top, 0};
    while (depth != 0) {
        const item it = stack[--depth];
        const std::size_t l = it.l - 1;
        const level& c = levels_[l];
        const std::size_t b = it.i * fanout, m = std::min(c.count - b, fanout);
        std::uint32_t met = 0;  // bit k: child k meets the node query
        if constexpr (std::is_same<std::decay_t<decltype(nq)>, box_type>::value) {
            met = meeting(nq, c, b, m);
        } else {  // a ball: the children meeting its box (one pass), then those meeting it
            met = meeting(nq_box, c, b, m);
            // (Ball objects on level 0: their predicate decides next, and the box test is
            // enough before it, as every ball the grown query meets meets its box.)
            const bool predicate_next = !traits::bounds_are_shape && l == 0;
            for (std::uint32_t x = predicate_next ? 0 : met; x != 0; x &= x - 1) {
                const std::size_t k = detail::lowest_bit(x);
                if (!intersects(nq, entry(l, b + k))) met &= ~(std::uint32_t{1} << k);
            }
        }
        for (; met != 0; met &= met - 1) {
            const std::size_t j = b + detail::lowest_bit(met);
            if (l == 0) {  // (a parked entry's empty bounds still meet a query infinite on every axis)
                if ((!parked_ || !is_parked(j)) && accepts(q, j) && !detail::go_on(f, ids_[j])) return false;
            } else if (!parked_ && contains(whole_q, entry(l, j))) {
                if (!whole(l, j)) return false;
            } else {
                stack[depth++] = {l, j};
            }
        }
    }
    return true;
}

// The broad phase as one traversal of the tree with itself (a dual-tree join): an entry
// with itself goes to each child with itself and each pair of its children that meet; two
// entries that meet go to each pair of their children that meet (each child of one tested
// against all the other's in one pass). On level 0 a pair of objects whose bounds meet is
// decided by the predicate. Every pair of objects is reached at most once: from the deepest
// entry holding both.
template <class Shape, class Id>
template <class Next>
bool packed_object_index<Shape, Id>::split(const task& t, Next&& next) const {
    const std::size_t l = t.l - 1;
    const level& c = levels_[l];
    const std::size_t bi = t.i * fanout, mi = std::min(c.count - bi, fanout);
    const std::size_t bj = t.j * fanout, mj = std::min(c.count - bj, fanout);
    for (std::size_t x = bi; x < bi + mi; ++x) {
        std::uint32_t met = meeting(entry(l, x), c, bj, mj);
        if (t.i == t.j) {  // the children after x, and x with itself above level 0
            met &= ~((std::uint32_t{2} << (x - bi)) - 1);
            if (l != 0 && !next(task{l, x, x})) return false;
        }
        for (; met != 0; met &= met - 1)
            if (!next(task{l, x, bj + detail::lowest_bit(met)})) return false;
    }
    return true;
}

template <class Shape, class Id>
template <class F>
bool packed_object_index<Shape, Id>::self_join(task start, F& f) const {
    std::vector<task> stack{start};
    const auto push = [&](const task& t) {
        stack.push_back(t);
        return true;
    };
    const auto pair = [&](const task& t) {  // two objects whose bounds meet
        if (parked_ && (is_parked(t.i) || is_parked(t.j))) return true;
        if (!traits::bounds_are_shape && !intersects(stored(t.i), stored(t.j))) return true;
        const Id a = ids_[t.i], b = ids_[t.j];
        return a < b ? detail::go_on(f, a, b) : detail::go_on(f, b, a);
    };
    if (start.l == 0) return pair(start);
    while (!stack.empty()) {
        const task t = stack.back();
        stack.pop_back();
        if (!(t.l == 1 ? split(t, pair) : split(t, push))) return false;
    }
    return true;
}

template <class Shape, class Id>
std::vector<std::pair<Id, Id>> packed_object_index<Shape, Id>::colliding_pairs(unsigned threads) const {
    using pair_type = std::pair<Id, Id>;
    std::vector<pair_type> pairs;
    if (size() < 2) return pairs;
    // Tasks: the traversal's pairs of entries some levels below the root (enough to share
    // among threads), each joined on its own; then the pairs counted into rows by a.
    std::vector<task> tasks{{levels_.size() - 1, 0, 0}};
    while (!tasks.empty() && tasks.size() < 64 * std::max(1u, threads) && tasks.front().l > 1) {
        std::vector<task> below;
        for (const task& t : tasks)
            split(t, [&](const task& u) {
                below.push_back(u);
                return true;
            });
        tasks.swap(below);
    }
    std::vector<std::vector<pair_type>> found(tasks.size());
    detail::for_each_chunk(tasks.size(), threads, [&](std::size_t k) {
        auto keep = [&](Id a, Id b) { found[k].emplace_back(a, b); };
        self_join(tasks[k], keep);
    });
    return detail::sorted_pairs(found, size());
}

// A lower bound of distance_sq(p, s) for every ball s whose box lies in `node`. With u the
// unit roundoff, d the real distance from p to the node and F to its farthest corner, a
// ball's rounded measure is at least (d - (D / 2 + 3) u F)^2 (1 - 3u): the real gap
// |p - c| - r is at least d (the ball lies in the node), |p - c| at most F (the centre
// does), and each of the measure's roundings is relative to |p - c| (its squares never
// overflow here, and an underflow costs less than the square root of the least normal).
// The bound subtracts (D + 8) eps (4 times that) of the computed distances, and that least
// normal's root, before squaring: the roundings of this bound itself stay inside the
// margin. An overflowing distance gives NaN below, so 0.
template <class Shape, class Id>
typename packed_object_index<Shape, Id>::T packed_object_index<Shape, Id>::ball_floor(const point_type& p,
                                                                                       const box_type& node) noexcept {
    const T near = std::sqrt(distance_sq(p, node));
    if (!(near > 0)) return 0;
    const T far = std::sqrt(farthest_distance_sq(p, node));
    constexpr T slack = T(D + 8) * std::numeric_limits<T>::epsilon();
    const T g = near - (near + far) * slack - std::sqrt(std::numeric_limits<T>::min());
    return g > 0 ? g * g * (1 - 2 * std::numeric_limits<T>::epsilon()) : T(0);
}

// nearest()'s search, one member a step: the query, the k best (squared distance, key) so
// far and the depth-first stack. Objects are ranked by (distance, key) and nodes by (a lower
// bound of their objects' distances, their least key). The key is the id
// (ties::smallest_id), or else the sorted position, whose least under a node is its first:
// the search then runs through tied objects in storage order and stops after k of them.
//
// Depth first, each node's children in the order of (floor, least key), a child taken only
// while it may still hold one of the k best, in two passes. The first takes only children
// whose floor is 0 (the nodes around p: where p lies inside many objects, the k best are
// there), and sets aside the nodes with other children left. The second searches those,
// the nearest first, depth first again.
/// \cond QUOCT_INTERNAL
// (Private to packed_object_index, defined out of its class: not in the API reference.)
template <class Shape, class Id>
struct packed_object_index<Shape, Id>::nearest_search {
    // A node being searched: its children's floors and least keys, and the children still
    // to take.
    struct frame {
        std::size_t l, b;    // the children: entries b.. of level l
        std::uint32_t left;  // the children still to take
        T d2[fanout];
        Id least[fanout];
    };
    static constexpr auto before = detail::knn_set<T, Id>::before;  // (distance, key)

    const packed_object_index& index;
    const point_type& p;
    const std::size_t k;
    const bool by_position;
    std::vector<neighbor_type>& best;  // a max-heap on (distance, key) while searching
    std::vector<frame>& aside;         // the nodes the first pass set aside
    std::size_t first[64];  // by_position: the sorted position of entry 1 of each level
    frame stack[24];  // (a level more is a factor fanout more objects: 17 levels number 2^64)
    std::size_t depth = 0;

    nearest_search(const packed_object_index& ix, const point_type& query, std::size_t wanted, bool position,
                   std::vector<neighbor_type>& out, std::vector<frame>& set_aside)
        : index(ix), p(query), k(wanted), by_position(position), best(out), aside(set_aside) {
        first[0] = 1;
        for (std::size_t l = 1; l < index.levels_.size(); ++l) first[l] = first[l - 1] * fanout;
        best.reserve(k);
    }

    // The least key of entry j of level l, and the key of the object at sorted position s.
    Id least(std::size_t l, std::size_t j) const { return by_position ? static_cast<Id>(j * first[l]) : index.levels_[l].least[j]; }
    Id key(std::size_t s) const { return by_position ? static_cast<Id>(s) : index.ids_[s]; }
    bool parked(std::size_t s) const { return index.parked_ && index.is_parked(s); }

    // Keeps cand if it is among the k best so far.
    void offer(const neighbor_type& cand) {
        if (best.size() < k) {
            best.push_back(cand);
            std::push_heap(best.begin(), best.end(), before);
        } else if (before(cand, best.front())) {
            std::pop_heap(best.begin(), best.end(), before);
            best.back() = cand;
            std::push_heap(best.begin(), best.end(), before);
        }
    }

    // Entry i of level `parent`: its objects straight to the k best, or its children pushed
    // as a frame.
    void open(std::size_t parent, std::size_t i) {
        const std::size_t l = parent - 1, b = i * fanout, m = std::min(index.levels_[l].count - b, fanout);
        if (l == 0) {  // objects: straight to the k best
            if constexpr (traits::bounds_are_shape) {
                T d2[fanout];
                box_floors(p, index.levels_[0], b, m, d2);  // (a box's floor is its distance)
                for (std::size_t j = 0; j < m; ++j)
                    if (!parked(b + j)) offer({key(b + j), d2[j]});
            } else {
                for (std::size_t j = 0; j < m; ++j)
                    if (!parked(b + j)) offer({key(b + j), distance_sq(p, index.shapes_[b + j])});
            }
            return;
        }
        frame& f = stack[depth++];
        f.l = l, f.b = b;
        f.left = m == 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << m) - 1;
        if constexpr (traits::bounds_are_shape) {
            box_floors(p, index.levels_[l], b, m, f.d2);
        } else {
            for (std::size_t j = 0; j < m; ++j) f.d2[j] = ball_floor(p, index.entry(l, b + j));
        }
        for (std::size_t j = 0; j < m; ++j) f.least[j] = least(l, b + j);
    }

    // The first child of f left to take (of floor 0 only, when `zero`), dropping those that
    // can no longer hold one of the k best (the k-th best only gets nearer); fanout if none.
    std::size_t first_left(frame& f, bool zero) {
        std::size_t pick = fanout;
        for (std::uint32_t left = f.left; left != 0; left &= left - 1) {
            const std::size_t j = detail::lowest_bit(left);
            const neighbor_type c{f.least[j], f.d2[j]};
            if (best.size() == k && !before(c, best.front())) {
                f.left &= ~(std::uint32_t{1} << j);
            } else if ((!zero || f.d2[j] == T(0)) && (pick == fanout || before(c, neighbor_type{f.least[pick], f.d2[pick]}))) {
                pick = j;
            }
        }
        return pick;
    }

    // Depth first from the frames on the stack (floor-0 children only, when `zero`, setting
    // aside the frames with other children left).
    void run(bool zero) {
        while (depth != 0) {
            frame& f = stack[depth - 1];
            const std::size_t pick = first_left(f, zero);
            if (pick == fanout) {
                if (zero && f.left != 0) aside.push_back(f);
                --depth;
                continue;
            }
            f.left &= ~(std::uint32_t{1} << pick);
            open(f.l, f.b + pick);
        }
    }

    // The first pass, from the root.
    void first_pass() {
        const std::size_t top = index.levels_.size() - 1;
        if (top == 0) {  // one object
            if (!parked(0)) offer({key(0), distance_sq(p, index.stored(0))});
        } else {
            open(top, 0);  // (the root's own floor is not needed)
            run(true);
        }
    }

    // The second pass: the frames set aside, by (floor, least key) of their first child
    // left, while that may still hold one of the k best. `order` is scratch.
    void second_pass(std::vector<std::pair<neighbor_type, std::size_t>>& order) {
        order.clear();
        for (std::size_t a = 0; a < aside.size(); ++a) {
            const std::size_t pick = first_left(aside[a], false);
            if (pick != fanout) order.push_back({neighbor_type{aside[a].least[pick], aside[a].d2[pick]}, a});
        }
        std::sort(order.begin(), order.end(), [&](const auto& x, const auto& y) { return before(x.first, y.first); });
        for (const auto& o : order) {
            if (best.size() == k && !before(o.first, best.front())) break;  // (nor any later)
            stack[0] = aside[o.second];
            depth = 1;
            run(false);
        }
    }
};
/// \endcond

// Depth first in two passes (see the top of this header and nearest_search), with the k
// best (squared distance, key) so far: a node whose (floor, least key) is not below the
// k-th best holds no better object.
template <class Shape, class Id>
void packed_object_index<Shape, Id>::nearest(const point_type& p, std::size_t k, std::vector<neighbor_type>& out,
                                             ties rule) const {
    detail::check_k(k);
    detail::check_point(p, "query point");
    out.clear();
    if (ids_.empty()) return;
    k = std::min(k, size());
    using frame = typename nearest_search::frame;
    static thread_local std::vector<frame> aside;  // (kept from one query to the next)
    static thread_local std::vector<std::pair<neighbor_type, std::size_t>> order;  // (first child left, frame)
    const bool by_position = rule == ties::any;
    nearest_search search(*this, p, k, by_position, out, aside);
    aside.clear();
    search.first_pass();
    if (!aside.empty()) search.second_pass(order);
    std::sort_heap(out.begin(), out.end(), nearest_search::before);
    if (by_position)
        for (neighbor_type& x : out) x.id = ids_[x.id];
    if (aside.capacity() > 4096) std::vector<frame>().swap(aside);  // (keep no more than a few pages)
    if (order.capacity() > 4096) std::vector<std::pair<neighbor_type, std::size_t>>().swap(order);
}

/// Objects that move every step (a simulation's particles, a game's bodies): a
/// packed_object_index of where they were at the last build, refitted as they move, beside a
/// second, small one of the objects that went far (see the top of this header). Queries and
/// pairs answer for where the objects are now, exactly as a packed_object_index built anew
/// would (the same ids, the same predicates, pairs sorted the same).
///
/// update() takes every object's new shape. An object stays in the main tree while its
/// bounds stay inside its leaf's fat box (the leaf's box at the build, grown by a quarter of
/// its largest width on every side): its entry is refitted in place. One that leaves it goes
/// loose until the next build: its entry is parked (meets nothing), and it joins the loose
/// index, built anew (small) on each update. When more than a loose_limit() of the objects
/// are loose, update() builds the main tree anew and no object is loose.
template <class Shape, class Id = std::uint32_t>
class moving_object_index : public object_queries<moving_object_index<Shape, Id>, typename Shape::point_type, Id> {
    using packed = packed_object_index<Shape, Id>;
    using traits = detail::packed_shape<Shape>;
    using queries = object_queries<moving_object_index, typename Shape::point_type, Id>;

public:
    using shape_type = Shape;                                ///< the indexed objects
    using scalar_type = typename packed::scalar_type;        ///< the coordinate type
    using id_type = Id;                                      ///< the object ids
    static constexpr std::size_t dimension = packed::dimension;  ///< the number of coordinates
    using point_type = typename packed::point_type;          ///< a point
    using box_type = typename packed::box_type;              ///< a closed box (a query)
    using ball_type = typename packed::ball_type;            ///< a closed ball (a query)
    using neighbor_type = typename packed::neighbor_type;    ///< one result of nearest()

    /// An empty index.
    moving_object_index() = default;
    /// Indexes the objects of `objects` (ids 0..size-1); throws as packed_object_index's
    /// constructor.
    explicit moving_object_index(const std::vector<Shape>& objects) : objects_(objects) { build(); }

    /// Objects indexed.
    std::size_t size() const noexcept { return objects_.size(); }
    /// True when no object is indexed.
    bool empty() const noexcept { return objects_.empty(); }
    /// Object `id` as last given. Throws std::out_of_range if id >= size().
    Shape shape(Id id) const {
        if (id >= size()) throw std::out_of_range("quoct: id " + std::to_string(id) + " is not an object of the index");
        return objects_[id];
    }
    /// Objects now in the loose index (0 after a build).
    std::size_t loose() const noexcept { return loose_.size(); }
    /// How many objects may be loose before update() builds anew: one in eight.
    std::size_t loose_limit() const noexcept { return size() / 8; }
    /// Times the main tree was built (the constructor's included).
    std::size_t builds() const noexcept { return builds_; }
    /// Bytes the index holds: both trees, the objects, the fat boxes and the loose ids.
    std::size_t memory_bytes() const noexcept {
        return main_.memory_bytes() + side_.memory_bytes() + objects_.size() * (sizeof(Shape) + 1) +
               fat_.size() * sizeof(box_type) + loose_.size() * sizeof(Id);
    }

    /// Moves the objects: object i becomes objects[i], for all n == size() of them. Throws
    /// std::invalid_argument if n != size() or for a bad object (as the constructor),
    /// std::bad_alloc, leaving the index as it was.
    void update(const Shape* objects, std::size_t n);
    /// As update(objects, n) with the objects of `objects`.
    void update(const std::vector<Shape>& objects) { update(objects.data(), objects.size()); }

    /// @name Queries
    /// As packed_object_index's, over the objects as last given.
    ///@{
    /// Calls f(id) for every object meeting `q` (a box or a ball); false from f stops (then
    /// returns false).
    template <class Query, class F>
    bool visit(const Query& q, F&& f) const {
        if (!main_.visit(q, f)) return false;
        return side_.visit(q, [&](Id k) { return detail::go_on(f, loose_[k]); });
    }
    /// Ids of the objects that contain `p`, in no particular order.
    std::vector<Id> containing(const point_type& p) const {
        std::vector<Id> out = main_.containing(p);
        for (const Id k : side_.containing(p)) out.push_back(loose_[k]);
        return out;
    }
    /// The min(k, size()) objects nearest `p`, nearest first, ties by smaller id (or as
    /// `rule` says: see quoct::ties).
    void nearest(const point_type& p, std::size_t k, std::vector<neighbor_type>& out,
                 ties rule = ties::smallest_id) const {
        std::vector<neighbor_type> other;
        main_.nearest(p, k, out, rule);
        side_.nearest(p, k, other, rule);
        for (neighbor_type& x : other) x.id = loose_[x.id];
        const auto middle = out.insert(out.end(), other.begin(), other.end());  // two sorted runs
        if (rule == ties::any)
            std::inplace_merge(out.begin(), middle, out.end(),
                               [](const neighbor_type& a, const neighbor_type& b) { return a.distance_sq < b.distance_sq; });
        else
            std::inplace_merge(out.begin(), middle, out.end(), detail::knn_set<scalar_type, Id>::before);
        if (out.size() > k) out.resize(k);
    }
    using queries::nearest;
    /// Calls f(a, b) once for every pair of objects that meet, a < b; false from f stops
    /// (then returns false). Serial; the order is unspecified.
    template <class F>
    bool for_each_colliding_pair(F&& f) const {
        const auto ordered = [&](Id a, Id b) { return a < b ? detail::go_on(f, a, b) : detail::go_on(f, b, a); };
        if (!main_.for_each_colliding_pair(f)) return false;
        if (!side_.for_each_colliding_pair([&](Id a, Id b) { return ordered(loose_[a], loose_[b]); })) return false;
        for (std::size_t k = 0; k < loose_.size(); ++k) {
            auto with = [&](Id b) { return ordered(loose_[k], b); };
            if (!main_.search(objects_[loose_[k]], with)) return false;
        }
        return true;
    }
    /// Every pair (a, b) of objects that meet, a < b, sorted by (a, b), on `threads`
    /// std::threads (0: one per hardware thread); the same list for any thread count.
    std::vector<std::pair<Id, Id>> colliding_pairs(unsigned threads = 1) const {
        std::vector<std::vector<std::pair<Id, Id>>> parts(3);
        parts[0] = main_.colliding_pairs(threads);
        for (const auto& p : side_.colliding_pairs(threads)) {
            const Id a = loose_[p.first], b = loose_[p.second];
            parts[1].emplace_back(std::min(a, b), std::max(a, b));
        }
        const csr<Id> cross = main_.meeting(side_, threads);  // row k: the main objects loose k meets
        for (std::size_t k = 0; k < loose_.size(); ++k)
            for (const Id b : cross.row(k)) parts[2].emplace_back(std::min(loose_[k], b), std::max(loose_[k], b));
        return detail::sorted_pairs(parts, size());
    }
    ///@}

private:
    void build();

    std::vector<Shape> objects_;   // by id, as last given
    packed main_, side_;           // where the objects were at the build; the loose ones
    std::vector<box_type> fat_;    // per leaf of main_: its box at the build, grown
    std::vector<Id> loose_;        // side_'s ids: the loose objects' ids, increasing after update()
    std::vector<char> is_loose_;   // by id
    std::size_t builds_ = 0;
};

/// Moving balls (see quoct::moving_object_index).
template <class T, std::size_t D, class Id = std::uint32_t>
using moving_ball_index = moving_object_index<ball<T, D>, Id>;
/// Moving boxes (see quoct::moving_object_index).
template <class T, std::size_t D, class Id = std::uint32_t>
using moving_box_index = moving_object_index<box<T, D>, Id>;

template <class Shape, class Id>
void moving_object_index<Shape, Id>::build() {
    packed fresh(objects_);
    std::vector<box_type> fat;
    if (fresh.levels_.size() > 1) {
        fat.resize(fresh.levels_[1].count);
        for (std::size_t j = 0; j < fat.size(); ++j) {
            const box_type b = fresh.entry(1, j);
            scalar_type grow = 0;
            for (std::size_t a = 0; a < dimension; ++a) grow = std::max(grow, (b.hi[a] - b.lo[a]) / 4);
            for (std::size_t a = 0; a < dimension; ++a)
                fat[j].lo[a] = detail::minus_down(b.lo[a], grow), fat[j].hi[a] = detail::plus_up(b.hi[a], grow);
        }
    }
    main_ = std::move(fresh);
    fat_ = std::move(fat);
    side_ = packed();
    loose_.clear();
    is_loose_.assign(objects_.size(), 0);
    ++builds_;
}

template <class Shape, class Id>
void moving_object_index<Shape, Id>::update(const Shape* objects, std::size_t n) {
    if (n != size())
        throw std::invalid_argument("quoct: update needs " + std::to_string(size()) + " objects, got " + std::to_string(n));
    main_.check_all(objects, n);
    const auto rebuild = [&] {
        std::vector<Shape> copy(objects, objects + n);
        std::swap(objects_, copy);
        try {
            build();
        } catch (...) {
            std::swap(objects_, copy);
            throw;
        }
    };
    if (fat_.empty()) return rebuild();
    loose_.reserve(loose_limit() + 1);
    // One pass in the tree's order (a leaf after another): each object refitted in place, or
    // parked and made loose. What throws after it is undone by parking the old objects again.
    const std::size_t before = loose_.size();
    const auto undo = [&] {
        for (std::size_t k = before; k < loose_.size(); ++k) is_loose_[loose_[k]] = 0;
        loose_.resize(before);
        main_.park(objects_.data(), is_loose_);
    };
    for (std::size_t s = 0; s < n; ++s) {
        main_.fetch(objects, s);
        const Id id = main_.ids_[s];
        if (is_loose_[id]) continue;  // parked already
        const box_type b = traits::bounds(objects[id]);
        if (contains(fat_[s / packed::fanout], b)) {
            main_.place(s, objects[id], b);
        } else if (loose_.size() < loose_limit()) {
            main_.park_entry(s);
            is_loose_[id] = 1;
            loose_.push_back(id);
        } else {  // past the limit: build anew
            undo();
            return rebuild();
        }
    }
    try {  // the loose tree numbers its objects in increasing id: its ties fall as the ids'
        std::vector<Id> by_id(loose_);
        std::sort(by_id.begin(), by_id.end());
        std::vector<Shape> side_objects(by_id.size());
        for (std::size_t k = 0; k < by_id.size(); ++k) side_objects[k] = objects[by_id[k]];
        side_ = packed(side_objects);
        loose_.swap(by_id);
    } catch (...) {
        undo();
        throw;
    }
    main_.raise_levels();
    main_.parked_ = true;
    std::copy(objects, objects + n, objects_.begin());
}

}  // namespace quoct

#endif  // QUOCT_PACKED_OBJECTS_HPP
