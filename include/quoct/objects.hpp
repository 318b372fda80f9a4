// quoct: indexes of objects with extent, balls (circles, spheres) or boxes, each with a
// stable id: queries by ball or box, insert / erase / move / resize, and the broad phase
// of collision detection (every intersecting pair once). Optional header; standard
// library only.
//
// Design: a loose tree by size classes. An object's extent e is its radius (ball) or its
// largest half-width (box); objects with e in [2^(k-1), 2^k) form class k, whose centres
// live in a quoct::dynamic_orthtree. A query looks in each class for centres within the
// query grown by that class's bound 2^k, then tests each candidate exactly with
// quoct::intersects (closed sets: touching counts). Big and small objects stay cheap
// together: a few big ones never inflate the search for the many small ones.
//
// Predicate. An object meets a query shape, and two objects collide, exactly when
// quoct::intersects says so, by the ball predicate of shapes.hpp: a ball and a box when
// distance_sq(centre, box) <= radius * radius, two balls when distance_sq(c1, c2) <=
// (r1 + r2) * (r1 + r2), two boxes when they overlap on every axis. Squares and sums round
// in T as every quoct distance does, with no overflow or underflow: a float box at 1e-30
// from the centre of a ball of radius 0 does not meet it, and a ball of radius 2e200 does
// not meet a box 3e200 away. The candidate searches are built so that rounding never
// drops an object the predicate accepts. Queries are checked as the orthtree checks them: a query box may reach to
// infinity and a query ball may have an infinite radius.
//
// Thread-safety: queries are const and may run concurrently; mutations may not run
// alongside anything else.
#ifndef QUOCT_OBJECTS_HPP
#define QUOCT_OBJECTS_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/callback.hpp"
#include "detail/knn.hpp"
#include "detail/pair_metric.hpp"
#include "detail/rounding.hpp"
#include "detail/validate.hpp"
#include "dynamic.hpp"
#include "neighbor.hpp"
#include "object_queries.hpp"
#include "parallel.hpp"
#include "queries.hpp"
#include "shapes.hpp"

namespace quoct {
namespace detail {

template <class Shape>
struct object_traits;

template <class T, std::size_t D>
struct object_traits<ball<T, D>> {
    using scalar = T;
    static constexpr std::size_t dimension = D;
    static void check(const ball<T, D>& s) {
        check_point(s.center, "object ball centre");
        check_radius(s.radius, "object");
        if (!std::isfinite(s.radius)) throw std::invalid_argument("quoct: object ball radius is infinite");
    }
    static point<T, D> center(const ball<T, D>& s) noexcept { return s.center; }
    static T extent(const ball<T, D>& s) noexcept { return s.radius; }
    static ball<T, D> moved_to(const ball<T, D>& s, const point<T, D>& c) noexcept { return {c, s.radius}; }
};

template <class T, std::size_t D>
struct object_traits<box<T, D>> {
    using scalar = T;
    static constexpr std::size_t dimension = D;
    static void check(const box<T, D>& b) {
        check_point(b.lo, "object box corner");
        check_point(b.hi, "object box corner");
        check_box(b);
    }
    static point<T, D> center(const box<T, D>& b) noexcept {
        point<T, D> m;
        for (std::size_t a = 0; a < D; ++a) m[a] = b.lo[a] / 2 + b.hi[a] / 2;
        return m;
    }
    // At least the real distance from the centre to the farthest face on every axis.
    static T extent(const box<T, D>& b) noexcept {
        const point<T, D> m = center(b);
        T e = 0;
        for (std::size_t a = 0; a < D; ++a) e = std::max({e, m[a] - b.lo[a], b.hi[a] - m[a]});
        return e > 0 ? std::nextafter(e, std::numeric_limits<T>::infinity()) : e;
    }
    // The box translated so that its centre is c (its widths may change by rounding).
    static box<T, D> moved_to(const box<T, D>& b, const point<T, D>& c) noexcept {
        const point<T, D> m = center(b);
        box<T, D> r;
        for (std::size_t a = 0; a < D; ++a) {
            r.lo[a] = c[a] - (m[a] - b.lo[a]);
            r.hi[a] = c[a] + (b.hi[a] - m[a]);
        }
        return r;
    }
};

/// The size class of an extent: k with e in [2^(k-1), 2^k), a class of its own for 0, and
/// one above every finite class for an infinite extent (a box whose half-width, rounded
/// up, passed the largest finite value); its bound 2^k is then infinite.
template <class T>
int size_class(T e) noexcept {
    if (e == 0) return std::numeric_limits<int>::min();
    if (!(e <= std::numeric_limits<T>::max())) return std::numeric_limits<T>::max_exponent + 1;
    int k = 0;
    std::frexp(e, &k);
    return k;
}

/// The box b grown by g on every side, rounded outwards.
template <class T, std::size_t D>
box<T, D> grown(const box<T, D>& b, T g) noexcept {
    box<T, D> r;
    for (std::size_t a = 0; a < D; ++a) {
        r.lo[a] = minus_down(b.lo[a], g);
        r.hi[a] = plus_up(b.hi[a], g);
    }
    return r;
}

/// The centres m of boxes with half-widths at most `grow` that may meet a closed ball by
/// quoct::intersects: those whose box grown(m, grow) meets it by the same test. Such a box
/// holds the object's box, so its distance_sq to the centre is no larger, with rounding
/// too (axis_gap only shrinks as the faces move out); the same holds for grown(node box),
/// and every m of a node whose farthest corner is within the radius passes.
template <class T, std::size_t D>
struct grown_ball {
    point<T, D> center;
    T sure_in;   // radius_bound's: a box whose rounded distance_sq exceeds sure_out does not
    T sure_out;  // meet the ball, one whose farthest corner is within sure_in lies inside it
    T grow;
    T reach;  // no axis gap of a box that passes exceeds this (see contains)

    grown_ball(const point<T, D>& c, const radius_bound<T, D>& bound, T g) noexcept
        : center(c), sure_in(bound.sure_in), sure_out(bound.sure_out), grow(g),
          reach(2 * std::sqrt(bound.sure_out) + 2 * std::sqrt(std::numeric_limits<T>::denorm_min())) {}

    relation classify(const box<T, D>& b) const noexcept {
        if (distance_sq(center, grown(b, grow)) > sure_out) return relation::outside;
        return farthest_distance_sq(center, b) <= sure_in ? relation::inside : relation::partial;
    }
    // First a cheap rejection that never rejects a centre the exact test keeps. A box
    // passes only if each axis term, the rounded square of its gap, is at most sure_out
    // (the sum of terms >= 0 rounds to no less than any of them), so each gap is at most
    // sqrt(sure_out) (1 + eps) + sqrt(denorm_min) (a rounded square errs relatively, or
    // by denorm_min at most), well under reach. |m - c| - grow, as rounded, differs from
    // the grown box's gap by a few ulps of |m| + |c| + grow, under the slack term. NaN
    // (from infinities) rejects nothing.
    bool contains(const point<T, D>& m) const noexcept {
        constexpr T slack = 8 * std::numeric_limits<T>::epsilon();
        for (std::size_t a = 0; a < D; ++a) {
            const T x = std::abs(m[a] - center[a]) - grow;
            if (x > reach + (std::abs(m[a]) + std::abs(center[a]) + grow) * slack) return false;
        }
        return distance_sq(center, grown(box<T, D>{m, m}, grow)) <= sure_out;
    }
};

/// The nearest metric of one size class of object_index (docs/concepts.md, "feeding a
/// nearest search"), over the class's centres: a lower bound of distance_sq(p, object) for
/// every object of extent at most `extent` whose centre is c (to_point), and over every
/// centre in a box (to_box). A ball object's value, gap_sq(distance_sq(p, c), r), is at
/// least gap_sq(distance_sq(p, c), extent) since r <= extent, and distance_sq(p, b) is at
/// most distance_sq(p, c) for c in b (the argument of shapes.hpp). A box object lies in
/// grown({c, c}, extent) (extent rounds up, grown rounds out), which lies in grown(b,
/// extent), and distance_sq to a box only shrinks as its faces move out.
template <class Shape>
struct object_nearest_metric;

template <class T, std::size_t D>
struct object_nearest_metric<ball<T, D>> {
    point<T, D> p;
    T extent;
    T to_point(const point<T, D>& c) const noexcept { return gap_sq(quoct::distance_sq(p, c), extent); }
    T to_box(const box<T, D>& b) const noexcept { return gap_sq(quoct::distance_sq(p, b), extent); }
    const point<T, D>& origin() const noexcept { return p; }
};

template <class T, std::size_t D>
struct object_nearest_metric<box<T, D>> {
    point<T, D> p;
    T extent;
    // distance_sq(p, grown({c, c}, extent)), written out: the same terms in the same order.
    T to_point(const point<T, D>& c) const noexcept {
        T s = 0;
        for (std::size_t a = 0; a < D; ++a) {
            const T g = axis_gap(p[a], minus_down(c[a], extent), plus_up(c[a], extent));
            s += g * g;
        }
        return s;
    }
    T to_box(const box<T, D>& b) const noexcept { return quoct::distance_sq(p, grown(b, extent)); }
    const point<T, D>& origin() const noexcept { return p; }
};

}  // namespace detail

/// An index of objects of one shape type: quoct::ball<T, D> or quoct::box<T, D>. Ids are
/// stable and never reused, from 0 to id_bound() - 1, like dynamic_orthtree's.
template <class Shape, class Id = std::uint32_t>
class object_index : public object_queries<object_index<Shape, Id>, typename Shape::point_type, Id> {
    using traits = detail::object_traits<Shape>;
    using queries = object_queries<object_index, typename Shape::point_type, Id>;

public:
    using queries::count;
    using queries::nearest;
    using queries::query;

    /// @name Types
    /// The objects' shape, and the index's scalar, id, point, box and ball types and dimension.
    ///@{
    using shape_type = Shape;  ///< the objects' shape (a ball or a box)
    using scalar_type = typename traits::scalar;  ///< the coordinate type
    static constexpr std::size_t dimension = traits::dimension;  ///< the number of coordinates
    using id_type = Id;  ///< the point ids
    using point_type = quoct::point<scalar_type, dimension>;  ///< a point
    using box_type = quoct::box<scalar_type, dimension>;  ///< a closed box
    using ball_type = quoct::ball<scalar_type, dimension>;  ///< a closed ball
    using neighbor_type = neighbor<scalar_type, Id>;  ///< an object id with its squared distance
    ///@}

    /// An empty index.
    object_index() = default;

    /// The most objects an index holds over its lifetime (ids are never reused): half the
    /// largest Id, as for the orthtree.
    static constexpr std::size_t max_objects = std::size_t{std::numeric_limits<Id>::max()} / 2;

    /// Indexes n objects; object i gets id i. Throws std::invalid_argument for a bad shape
    /// (NaN or infinite coordinate or radius, negative radius, inverted box) and
    /// std::length_error for more than max_objects.
    object_index(const Shape* shapes, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) traits::check(shapes[i]);
        if (n > max_objects) throw std::length_error("quoct: too many objects for this Id type");
        // Build each class's tree in one go rather than by inserts.
        objects_.resize(n);
        std::vector<std::pair<int, Id>> by_class(n);
        for (std::size_t i = 0; i < n; ++i) {
            objects_[i] = record{shapes[i], detail::size_class(traits::extent(shapes[i])), 0, true};
            by_class[i] = {objects_[i].cls, static_cast<Id>(i)};
        }
        std::sort(by_class.begin(), by_class.end());
        for (std::size_t b = 0; b < n;) {
            std::size_t e = b;
            std::vector<point_type> centres;
            klass k{by_class[b].first, bound_of(by_class[b].first), {}, {}};
            for (; e < n && by_class[e].first == k.key; ++e) {
                const Id id = by_class[e].second;
                objects_[id].local = static_cast<Id>(e - b);
                centres.push_back(traits::center(shapes[id]));
                k.owner.push_back(id);
            }
            k.centres = dynamic_orthtree<scalar_type, dimension, Id>(centres);
            classes_.push_back(std::move(k));
            b = e;
        }
        live_ = n;
    }
    /// As above, for a std::vector.
    explicit object_index(const std::vector<Shape>& shapes) : object_index(shapes.data(), shapes.size()) {}

    /// Number of live objects.
    std::size_t size() const noexcept { return live_; }
    /// True when there are none.
    bool empty() const noexcept { return live_ == 0; }
    /// Every id handed out so far is below this.
    std::size_t id_bound() const noexcept { return objects_.size(); }
    /// True when id names a live object.
    bool contains(Id id) const noexcept { return id < objects_.size() && objects_[id].live; }
    /// The shape of a live object. Throws std::out_of_range otherwise.
    const Shape& shape(Id id) const {
        check_live(id);
        return objects_[id].shape;
    }
    /// Number of size classes in use (each a tree). For tuning and tests.
    std::size_t class_count() const noexcept { return classes_.size(); }
    /// Bytes held: the objects by id, and each class's tree and id map (capacities). A
    /// class whose erased entries outnumber its live ones is renumbered densely (compacted),
    /// so after many erasures this falls with the number of live objects.
    std::size_t memory_bytes() const noexcept {
        std::size_t n = objects_.capacity() * sizeof(record) + classes_.capacity() * sizeof(klass);
        for (const klass& k : classes_) n += k.centres.memory_bytes() + k.owner.capacity() * sizeof(Id);
        return n;
    }

    // --- mutation (not thread-safe) ---------------------------------------------------------

    /// Adds an object and returns its id. Throws std::invalid_argument for a bad shape,
    /// std::length_error when the ids are used up (max_objects) and std::bad_alloc when
    /// memory runs out; the index is then unchanged.
    Id insert(const Shape& s) {
        traits::check(s);
        if (objects_.size() >= max_objects)
            throw std::length_error("quoct: object_index ids exhausted for this Id type");
        const Id id = static_cast<Id>(objects_.size());
        objects_.push_back(record{s, 0, 0, false});
        try {
            const auto where = place(id, s);
            objects_.back() = record{s, where.first, where.second, true};
        } catch (...) {
            objects_.pop_back();
            throw;
        }
        ++live_;
        return id;
    }

    /// Removes an object; returns false (changing nothing) if the id is not live. Does
    /// not throw.
    bool erase(Id id) {
        if (!contains(id)) return false;
        unplace(objects_[id].cls, objects_[id].local);
        objects_[id].live = false;
        --live_;
        return true;
    }

    /// Replaces the shape of a live object (a move, a resize or both). Throws
    /// std::out_of_range for an id that is not live, std::invalid_argument for a bad
    /// shape and std::bad_alloc when memory runs out; the index is then unchanged.
    void update(Id id, const Shape& s) {
        check_live(id);
        traits::check(s);
        record& o = objects_[id];
        const int key = detail::size_class(traits::extent(s));
        if (key == o.cls) {
            class_of(o.cls).centres.move(o.local, traits::center(s));
            o.shape = s;
            return;
        }
        // Into the new class first (which may throw, changing nothing), then out of the
        // old one (which does not throw).
        const auto where = place(id, s);
        unplace(o.cls, o.local);
        o = record{s, where.first, where.second, true};
    }

    /// Moves a live object so that its centre is c (a ball's centre, a box's middle; a
    /// box keeps its half-widths up to rounding). Throws as update.
    void move(Id id, const point_type& c) {
        check_live(id);
        detail::check_point(c, "moved-to centre");
        update(id, traits::moved_to(objects_[id].shape, c));
    }

    /// Resizes a live ball to radius r, keeping its centre. Throws as update.
    template <class S = Shape, class = std::enable_if_t<std::is_same<S, ball_type>::value>>
    void resize(Id id, scalar_type r) {
        check_live(id);
        update(id, ball_type{objects_[id].shape.center, r});
    }
    /// Resizes a live box to the given half-widths, keeping its centre. Throws as update
    /// (a negative half-width makes an inverted box).
    template <class S = Shape, class = std::enable_if_t<std::is_same<S, box_type>::value>>
    void resize(Id id, const point_type& half) {
        check_live(id);
        const point_type m = traits::center(objects_[id].shape);
        box_type b;
        for (std::size_t a = 0; a < dimension; ++a) {
            b.lo[a] = m[a] - half[a];
            b.hi[a] = m[a] + half[a];
        }
        update(id, b);
    }

    // --- queries (const, thread-safe while nobody mutates) -------------------------------

    /// Calls f(id, shape) for every live object whose shape meets the closed query shape
    /// q (a quoct::ball or quoct::box), by quoct::intersects (the predicate note above);
    /// false from f stops (then returns false). The query may be unbounded (box faces at
    /// infinity, an infinite radius). Throws std::invalid_argument for a bad query, as
    /// orthtree::query: a NaN or infinite centre, a NaN or negative radius, a NaN box
    /// coordinate or lo > hi.
    template <class Query, class F>
    bool visit(const Query& q, F&& f) const {
        check_query(q);
        return visit_classes_from(q, 0, [&](Id id, const Shape& s) { return detail::go_on(f, id, s); });
    }
    /// Clears `out`, then fills it with the live objects meeting the closed ball s (the
    /// objects query(s) returns), each with quoct::distance_sq(s.center, shape): the squared
    /// distance from the centre to the object, 0 when the centre lies in it. In no particular
    /// order, or nearest first by (distance, id) with result_order::nearest_first. Throws as
    /// visit.
    void query(const ball_type& s, std::vector<neighbor_type>& out, result_order order = result_order::any) const {
        out.clear();
        visit(s, [&](Id id, const Shape& o) { out.push_back(neighbor_type{id, distance_sq(s.center, o)}); });
        detail::order_results(out, order);
    }
    /// As query(s, out, order), returning the objects with their distances.
    std::vector<neighbor_type> query_with_distances(const ball_type& s, result_order order = result_order::any) const {
        std::vector<neighbor_type> out;
        query(s, out, order);
        return out;
    }

    /// The min(k, size()) live objects nearest to p, nearest first: exactly the first k of
    /// all live objects sorted by (quoct::distance_sq(p, shape), id), the squared distance
    /// from p to the object's closest point (0 when p lies in it; see distance_sq(point,
    /// ball) for how a ball's is rounded). Each class's centres are searched best first,
    /// pruned by a lower bound of that distance. Throws
    /// std::invalid_argument if k == 0 or p has a NaN or infinite coordinate.
    void nearest(const point_type& p, std::size_t k, std::vector<neighbor_type>& out) const {
        detail::check_point(p, "nearest query point");
        detail::check_k(k);
        detail::knn_set<scalar_type, Id> set(out, std::min(k, std::max<std::size_t>(live_, 1)));
        for (const klass& c : classes_) {
            c.centres.search_nearest(detail::object_nearest_metric<Shape>{p, c.bound}, set,
                                     [&](Id local, scalar_type) {
                                         const Id id = c.owner[local];
                                         set.offer(id, distance_sq(p, objects_[id].shape));
                                     });
        }
        set.finish();
    }
    /// Capped k-nearest: the k objects nearest to p, as nearest(p, k, out), among those that
    /// meet the closed ball of the given radius around p (query(ball{p, radius})'s objects,
    /// by quoct::intersects); fewer when fewer meet it. It measures every object meeting the
    /// ball, so it costs that query. An infinite radius is nearest(p, k, out). Throws as
    /// nearest(p, k, out), and std::invalid_argument for a NaN or negative radius.
    void nearest(const point_type& p, std::size_t k, scalar_type radius, std::vector<neighbor_type>& out) const {
        detail::check_point(p, "nearest query point");
        detail::check_k(k);
        detail::check_radius(radius, "nearest");
        if (std::isinf(radius)) return nearest(p, k, out);
        detail::knn_set<scalar_type, Id> set(out, k);
        visit(ball_type{p, radius}, [&](Id id, const Shape& o) { set.offer(id, distance_sq(p, o)); });
        set.finish();
    }

    /// Calls f(id, shape) for every live object, in no particular order.
    template <class F>
    void for_each(F&& f) const {
        for (std::size_t id = 0; id < objects_.size(); ++id)
            if (objects_[id].live) f(static_cast<Id>(id), objects_[id].shape);
    }

    /// The broad phase: calls f(a, b) once for every pair of live objects whose shapes
    /// intersect (closed: touching counts), with a < b; false from f stops (then returns
    /// false). Serial; the order is fixed for a given index but otherwise unspecified.
    template <class F>
    bool for_each_colliding_pair(F&& f) const {
        // An object looks only into its own class and the classes after it, so each pair
        // is met once across classes; within a class it is met twice, and kept once.
        for (std::size_t ci = 0; ci < classes_.size(); ++ci) {
            const klass& k = classes_[ci];
            for (std::size_t local = 0; local < k.owner.size(); ++local) {
                if (!k.centres.contains(static_cast<Id>(local))) continue;
                const Id a = k.owner[local];
                const Shape& sa = objects_[a].shape;
                const bool went_on = visit_classes_from(sa, ci, [&](Id b, const Shape&) {
                    if (b == a || (objects_[b].cls == k.key && b < a)) return true;
                    return detail::go_on(f, std::min(a, b), std::max(a, b));
                });
                if (!went_on) return false;
            }
        }
        return true;
    }

    /// Every colliding pair (a, b), a < b, sorted by (a, b), found on `threads` std::threads
    /// (0: one per hardware thread); the list is the same for any thread count.
    std::vector<std::pair<Id, Id>> colliding_pairs(unsigned threads = 1) const {
        std::vector<std::size_t> order;  // by position in objects_: rows by id
        auto rows = detail::gather_rows<Id>(objects_.size(), order, threads, [&](std::size_t a, std::vector<Id>& out) {
            if (!objects_[a].live) return;
            const std::size_t from = out.size();
            visit_classes_from(objects_[a].shape, 0, [&](Id b, const Shape&) {
                if (b > a) out.push_back(b);
                return true;
            });
            std::sort(out.begin() + static_cast<std::ptrdiff_t>(from), out.end());
        });
        return detail::pairs_of_rows(rows);
    }

private:
    struct record {
        Shape shape;
        int cls;   // size class key
        Id local;  // id in that class's tree
        bool live;
    };
    struct klass {
        int key;
        scalar_type bound;  // every extent in the class is <= bound
        dynamic_orthtree<scalar_type, dimension, Id> centres;
        std::vector<Id> owner;  // local id -> object id
    };

    void check_live(Id id) const {
        if (!contains(id)) throw std::out_of_range("quoct: id " + std::to_string(id) + " is not a live object");
    }
    static void check_query(const ball_type& s) { detail::check_ball(s); }
    static void check_query(const box_type& b) { detail::check_box(b); }

    static scalar_type bound_of(int key) noexcept {
        return key == std::numeric_limits<int>::min() ? scalar_type(0) : std::ldexp(scalar_type(1), key);
    }

    klass& class_of(int key) {
        return *std::lower_bound(classes_.begin(), classes_.end(), key,
                                 [](const klass& k, int v) { return k.key < v; });
    }

    // Files object id, of shape s, in its size class and returns (class key, local id);
    // its record is left to the caller. If it throws, nothing has changed.
    std::pair<int, Id> place(Id id, const Shape& s) {
        const int key = detail::size_class(traits::extent(s));
        auto it = std::lower_bound(classes_.begin(), classes_.end(), key, [](const klass& k, int v) { return k.key < v; });
        const bool fresh = it == classes_.end() || it->key != key;
        if (fresh) it = classes_.insert(it, klass{key, bound_of(key), {}, {}});
        try {
            if (it->owner.size() == it->owner.capacity()) it->owner.reserve(2 * it->owner.size() + 16);
            // The class's tree never reuses a local id: renumber before they run out.
            if (it->centres.id_bound() >= max_objects) compact(*it);
            const Id local = it->centres.insert(traits::center(s));
            it->owner.push_back(id);
            return {key, local};
        } catch (...) {
            if (fresh) classes_.erase(it);
            throw;
        }
    }

    // Takes the entry `local` out of class `key`; drops or compacts the class when worth
    // it. Does not throw: a compaction that finds no memory is put off (the class answers
    // exactly without it).
    void unplace(int key, Id local) noexcept {
        auto it = std::lower_bound(classes_.begin(), classes_.end(), key,
                                   [](const klass& k, int v) { return k.key < v; });
        it->centres.erase(local);
        if (it->centres.empty()) {
            classes_.erase(it);
        } else if (it->centres.id_bound() > 2 * it->centres.size() + 64) {
            try {
                compact(*it);
            } catch (const std::bad_alloc&) {
            }
        }
    }

    // Renumbers a class's local ids densely (they are never reused by the tree). If it
    // throws, nothing has changed.
    void compact(klass& k) {
        std::vector<point_type> pts;
        std::vector<Id> owner;
        for (std::size_t local = 0; local < k.owner.size(); ++local)
            if (k.centres.contains(static_cast<Id>(local))) {
                pts.push_back(k.centres.point(static_cast<Id>(local)));
                owner.push_back(k.owner[local]);
            }
        dynamic_orthtree<scalar_type, dimension, Id> fresh(pts);
        k.centres = std::move(fresh);
        k.owner = std::move(owner);
        for (std::size_t local = 0; local < k.owner.size(); ++local) objects_[k.owner[local]].local = static_cast<Id>(local);
    }

    // g(id, shape) for the live objects meeting q in classes [first, end); g returns bool.
    template <class Query, class G>
    bool visit_classes_from(const Query& q, std::size_t first, G&& g) const {
        for (std::size_t ci = first; ci < classes_.size(); ++ci) {
            const klass& k = classes_[ci];
            const bool went_on = candidates(k, q, [&](Id local, const point_type&) {
                const Id id = k.owner[local];
                const Shape& s = objects_[id].shape;
                return !intersects(s, q) || g(id, s);
            });
            if (!went_on) return false;
        }
        return true;
    }

    // The centres in class k that may belong to an object meeting q: a superset of those
    // for which intersects(object, q) holds, as evaluated in T (see the predicate note
    // above the class). Each is argued in the comment of its case; none computes q's
    // centre +- radius, so unbounded and huge queries need no special case.
    template <class V>
    static bool candidates(const klass& k, const ball_type& q, V&& v) {
        if constexpr (std::is_same<Shape, ball_type>::value) {
            // intersects(a, q): distance_sq <= (ra + R)^2 and ra <= bound, so the rounded
            // ra + R is at most the rounded bound + R: a ball query finds them all.
            return k.centres.visit(ball_type{q.center, q.radius + k.bound}, v);
        } else {
            const detail::radius_bound<scalar_type, dimension> bound(q.radius);
            const detail::grown_ball<scalar_type, dimension> near(q.center, bound, k.bound);
            return k.centres.visit_shape(near, v);
        }
    }
    template <class V>
    static bool candidates(const klass& k, const box_type& q, V&& v) {
        if constexpr (std::is_same<Shape, ball_type>::value) {
            // intersects(a, q): distance_sq(centre, q) <= ra^2 <= bound^2, the same sum, which
            // radius_bound(bound) rejects only above its sure_out.
            using near_box = typename detail::euclidean_pair_metric<scalar_type, dimension>::near_box;
            const detail::radius_bound<scalar_type, dimension> bound(k.bound);
            return k.centres.visit_shape(near_box{q, bound.sure_in, bound.sure_out}, v);
        } else {
            // A meeting box has a point x in q, and its centre is within bound of x.
            return k.centres.visit(detail::grown(q, k.bound), v);
        }
    }

    std::vector<record> objects_;
    std::vector<klass> classes_;  // sorted by key
    std::size_t live_ = 0;
};

/// An index of balls (circles in 2D, spheres in 3D).
template <class T, std::size_t D, class Id = std::uint32_t>
using ball_index = object_index<ball<T, D>, Id>;
/// An index of axis-aligned boxes.
template <class T, std::size_t D, class Id = std::uint32_t>
using box_index = object_index<box<T, D>, Id>;

/// Collisions between two object indexes (balls against boxes, say): calls f(a, b) once
/// for every live object a of `first` and b of `second` whose shapes intersect; false
/// from f stops (then returns false). Serial.
template <class ShapeA, class ShapeB, class Id, class F>
bool for_each_colliding_pair(const object_index<ShapeA, Id>& first, const object_index<ShapeB, Id>& second, F&& f) {
    bool go = true;
    first.for_each([&](Id a, const ShapeA& s) {
        if (!go) return;
        go = second.visit(s, [&](Id b, const ShapeB&) { return detail::go_on(f, a, b); });
    });
    return go;
}

}  // namespace quoct

#endif  // QUOCT_OBJECTS_HPP
