// quoct: dynamic_orthtree, an index of points that may be inserted, erased and moved
// between queries, with ids that stay stable. Optional header; standard library only.
//
// Design. A static quoct::orthtree "snapshot" holds most points. Points inserted or moved
// since the snapshot was built go to the side: a flat "tail" of at most
// options.tail_limit recent changes, scanned by every query, and a few small orthtrees,
// the "levels", where level j holds at most tail_limit * 4^(j+1) points (the logarithmic
// method of Bentley and Saxe). Snapshot and level entries whose point was erased or moved
// away are marked dead in a bitmap and skipped by queries. Every mutating call keeps the
// parts in shape: a full tail is folded, with the levels below the first one that has
// room for them all, into that level (one rebuild of a small tree, whose inputs are joined
// or merged in id order, not sorted, from the points the parts and the tail hold; each
// part keeps its ids as a few runs where it can), and everything is rebuilt into a
// new snapshot when its dead entries exceed options.rebuild_fraction of the live points,
// or when the points outside it exceed that fraction and outnumber its own (so a growing
// index rebuilds its snapshot once per doubling). A nearest query feeds one result set
// (detail/knn.hpp) from the part nearest the query first, then the tail, then the other
// parts top down within the bound found (search_nearest). A query thus scans at most
// tail_limit points and visits the snapshot and O(log(n / tail_limit)) small trees. Each id
// knows its part and its stored position there, so point() reads it straight (no id map).
// Queries never change anything: they are const and may run from any number of threads at
// once as long as no thread mutates the index meanwhile.
//
// Moving 1% of the points costs a small fraction of a rebuild (bench/bench_sim.cpp
// measures it); moving all of them each step is better served by move_all(), one rebuild
// from the new positions, or by building a fresh quoct::orthtree.
#ifndef QUOCT_DYNAMIC_HPP
#define QUOCT_DYNAMIC_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/knn.hpp"
#include "detail/bitmap.hpp"
#include "detail/callback.hpp"
#include "detail/query_shapes.hpp"
#include "detail/validate.hpp"
#include "shapes.hpp"
#include "orthtree.hpp"

namespace quoct {

namespace detail {
inline build_options without_nearest_index() {
    build_options o;
    o.nearest_index = false;
    return o;
}

/// The voxels of dynamic_orthtree::insert_downsampled: a point x lies in the voxel whose
/// index on axis a is cell(x[a]) = floor(x[a] / size) (+ 0, so that -0 is 0), computed in T.
template <class T, std::size_t D>
struct voxel_grid {
    T size;
    T cell(T x) const noexcept { return std::floor(x / size) + T(0); }
    point<T, D> of(const point<T, D>& p) const noexcept {
        point<T, D> k;
        for (std::size_t a = 0; a < D; ++a) k[a] = cell(p[a]);
        return k;
    }
};

/// The points of a block of voxels (cells lo[a] to hi[a] on each axis a), as a Shape.
/// x -> cell(x) is monotone (a division by a positive number and floor, each rounded
/// monotonically), so a box's points have cells between those of its faces: the box is
/// outside when the cells of its faces miss the block's on an axis, inside when they lie
/// within it on every axis. Exact.
template <class T, std::size_t D>
struct voxel_block_query {
    voxel_grid<T, D> grid;
    point<T, D> lo, hi;  // the first and last cell on each axis

    relation classify(const box<T, D>& b) const noexcept {
        bool inside = true;
        for (std::size_t a = 0; a < D; ++a) {
            const T first = grid.cell(b.lo[a]), last = grid.cell(b.hi[a]);
            if (last < lo[a] || first > hi[a]) return relation::outside;
            inside = inside && first >= lo[a] && last <= hi[a];
        }
        return inside ? relation::inside : relation::partial;
    }
    bool contains(const point<T, D>& p) const noexcept {
        for (std::size_t a = 0; a < D; ++a) {
            const T c = grid.cell(p[a]);
            if (c < lo[a] || c > hi[a]) return false;
        }
        return true;
    }
};
}  // namespace detail

/// How a dynamic_orthtree keeps itself in shape.
struct dynamic_options {
    /// Options for the snapshot and side trees: build_options' defaults but nearest_index,
    /// which is off here: a dynamic index's nearest searches several trees, and the bytes
    /// weigh more than the speed there.
    /// \hideinitializer
    build_options tree = detail::without_nearest_index();
    /// Rebuild the snapshot when its dead entries (erased or moved-away points) exceed this
    /// fraction of the live points, or when the live points outside it exceed both this
    /// fraction and the snapshot's own live points (so a growing index rebuilds it each
    /// time it doubles). Must be in (0, 1].
    double rebuild_fraction = 1.0 / 16;
    /// The flat tail of recent changes, scanned by every query, is folded into the side
    /// trees once it holds more than tail_limit points; side tree j (the levels) holds at
    /// most tail_limit * 4^(j+1). At least 1.
    std::size_t tail_limit = 256;
};

namespace detail {

/// A part's map from tree ids (input positions 0, 1, ...) to our ids, which increase with
/// them: the identity (nothing held), a few runs of consecutive ids (two ids a run: a
/// growing map's parts, whose scans take consecutive ids, are one run or a few), or one id
/// an entry (where erasures and moves have broken the runs up).
template <class Id>
class part_ids {
public:
    /// At most this many runs are kept as runs (each lookup walks them).
    static constexpr std::size_t max_runs = 8;

    /// The map for these ids (increasing), one per tree id.
    static part_ids of(const std::vector<Id>& ids) {
        part_ids m;
        if (m.take_runs(ids)) m.each_ = ids;
        return m;
    }
    /// As of(ids), taking the vector where it keeps one id an entry.
    static part_ids of(std::vector<Id>&& ids) {
        part_ids m;
        if (m.take_runs(ids)) m.each_ = std::move(ids);
        return m;
    }

    /// Our id of tree id pos.
    Id operator()(Id pos) const noexcept {
        if (!runs_.empty()) {
            const run* r = runs_.data() + (runs_.size() - 1);
            while (r->at > pos) --r;  // the first run is at 0
            return static_cast<Id>(r->id + (pos - r->at));
        }
        return each_.empty() ? pos : each_[pos];
    }
    /// True where tree ids are our ids.
    bool identity() const noexcept { return each_.empty() && runs_.empty(); }
    /// The ids, one per tree id, where they are kept so (else empty).
    const std::vector<Id>& each_ids() const noexcept { return each_; }
    /// Calls f(pos, id) for tree ids pos = 0 .. n - 1 in order (n: the part's entries),
    /// without a lookup each.
    template <class F>
    void each(std::size_t n, F&& f) const {
        if (runs_.empty()) {
            for (std::size_t i = 0; i < n; ++i) f(static_cast<Id>(i), each_.empty() ? static_cast<Id>(i) : each_[i]);
            return;
        }
        for (std::size_t r = 0; r < runs_.size(); ++r) {
            const std::size_t end = r + 1 < runs_.size() ? runs_[r + 1].at : n;
            for (std::size_t i = runs_[r].at; i < end; ++i) f(static_cast<Id>(i), static_cast<Id>(runs_[r].id + (i - runs_[r].at)));
        }
    }
    /// One id per tree id for n entries, or none for the identity (a file's form).
    std::vector<Id> expanded(std::size_t n) const {
        if (runs_.empty()) return each_;
        std::vector<Id> ids(n);
        each(n, [&](Id pos, Id id) { ids[pos] = id; });
        return ids;
    }
    std::size_t memory_bytes() const noexcept { return each_.capacity() * sizeof(Id) + runs_.capacity() * sizeof(run); }

private:
    struct run {
        Id at, id;  // tree ids from `at` on map to id + (pos - at)
    };
    // Keeps the ids as runs (none for the identity) where they are at most max_runs runs;
    // else returns true, for the caller to keep them one an entry.
    bool take_runs(const std::vector<Id>& ids) {
        run found[max_runs];
        std::size_t runs = 0;
        for (std::size_t i = 0; i < ids.size(); ++i)
            if (i == 0 || ids[i] != ids[i - 1] + 1) {
                if (runs == max_runs) return true;
                found[runs++] = run{static_cast<Id>(i), ids[i]};
            }
        if (runs == 0 || (runs == 1 && found[0].id == 0)) return false;  // the identity
        runs_.assign(found, found + runs);
        return false;
    }

    std::vector<Id> each_;   // one per tree id, or empty
    std::vector<run> runs_;  // or the runs, by tree id
};

/// A built orthtree over some (id, point) pairs, with a dead mark per stored entry.
/// Entries are given to the tree in increasing id order, so tree ids (input positions)
/// and our ids sort alike; nearest() ties then break the same way in both.
template <class T, std::size_t D, class Id>
struct frozen_part {
    orthtree<T, D, Id> tree;
    part_ids<Id> ids;  // tree id -> our id
    bitmap dead;
    std::size_t dead_count = 0;
    std::size_t stored = 0;

    Id id_of(Id pos) const noexcept { return ids(pos); }
    std::size_t memory_bytes() const noexcept { return tree.memory_bytes() + ids.memory_bytes() + dead.memory_bytes(); }
    std::size_t live() const noexcept { return stored - dead_count; }
    bool is_dead(Id pos) const noexcept { return dead_count != 0 && dead.test(pos); }
    void kill(Id pos) noexcept {
        dead.set(pos);
        ++dead_count;
    }

    // Builds over the ids `which` (increasing) with points pts[i] for which[i].
    static frozen_part make(const std::vector<Id>& which, const std::vector<point<T, D>>& pts,
                            const build_options& options) {
        frozen_part f;
        f.tree = orthtree<T, D, Id>(pts, options);
        f.ids = part_ids<Id>::of(which);
        f.dead.assign(which.size());
        f.stored = which.size();
        return f;
    }
};

}  // namespace detail

/// An orthtree whose points can be inserted, erased and moved. Ids are stable: a point
/// keeps its id until erased, and an erased id is never handed out again, so ids run
/// from 0 to id_bound() - 1 with gaps where points were erased. Queries answer exactly
/// as the same queries on a quoct::orthtree over the live points would (same predicates,
/// same tie order for nearest), with our ids.
template <class T, std::size_t D, class Id = std::uint32_t>
class dynamic_orthtree : public point_queries<dynamic_orthtree<T, D, Id>, T, D, Id>, private detail::plain_space<T, D> {
    static_assert(std::is_integral<Id>::value && std::is_unsigned<Id>::value,
                  "quoct::dynamic_orthtree: Id must be an unsigned integer type");

public:
    /// @name Types
    /// The index's scalar, id, point, box, ball and neighbour types, and its dimension.
    ///@{
    using scalar_type = T;  ///< the coordinate type
    using id_type = Id;  ///< the point ids
    using point_type = quoct::point<T, D>;  ///< a point
    using box_type = box<T, D>;  ///< a closed box
    using ball_type = ball<T, D>;  ///< a closed ball
    using neighbor_type = neighbor<T, Id>;  ///< one result of nearest()
    using tree_type = orthtree<T, D, Id>;  ///< the static tree the index's parts are
    static constexpr std::size_t dimension = D;  ///< the number of coordinates
    ///@}
    /// quoct::open loads this index's file rather than map it: its parts change later.
    static constexpr bool file_mappable = false;

    /// An empty index.
    dynamic_orthtree() = default;
    /// An empty index. Throws std::invalid_argument if the options are out of range.
    explicit dynamic_orthtree(dynamic_options options) : options_(options) { check_options(); }

    /// Holds n points at `points` (quoct::point<T, D>, std::array<S, D>, S[D] or a type
    /// described by quoct::point_traits); point i gets id i. Throws std::invalid_argument for
    /// a NaN or infinite coordinate or bad options, std::length_error if n does not fit Id.
    template <class P>
    dynamic_orthtree(const P* points, std::size_t n, dynamic_options options = {}) : options_(options) {
        init(detail::point_source<T, D, P>{points, n});
    }
    /// Holds n points stored flat, coordinate a of point i at coords[i * D + a] (n counts
    /// points). Throws as the constructor above.
    dynamic_orthtree(const T* coords, std::size_t n, dynamic_options options = {}) : options_(options) {
        init(detail::flat_source<T, D>{coords, n});
    }
    /// Holds the points of a contiguous range (std::vector, std::array, C array) of any point
    /// type the pointer form takes; ids are positions in the range. Throws as it.
    template <class Range, class = std::enable_if_t<detail::is_contiguous_range<Range>::value>>
    explicit dynamic_orthtree(const Range& points, dynamic_options options = {}) : options_(options) {
        init(detail::range_source<T, D>(points));
    }

    // --- state ----------------------------------------------------------------------------

    /// Number of live points.
    std::size_t size() const noexcept { return live_; }
    /// True when no point is live.
    bool empty() const noexcept { return live_ == 0; }
    /// Every id handed out so far is below this (the next insert returns it).
    std::size_t id_bound() const noexcept { return base_ + where_.size(); }
    /// The options the index keeps itself in shape with.
    const dynamic_options& options() const noexcept { return options_; }
    /// True when `id` names a live point.
    bool contains(Id id) const noexcept {
        return id >= base_ && id - base_ < where_.size() && where_[id - base_] != erased;
    }
    /// The point with this id, read from where the part that holds it stores it (O(1)).
    /// Throws std::out_of_range if the id is not live.
    point_type point(Id id) const {
        check_live(id);
        return point_of(id);
    }
    /// How far the index has drifted from its snapshot: the larger of the number of live
    /// points held outside it and the number of its dead entries (a moved point counts in
    /// both, so once). 0 right after rebuild(). For tuning and tests.
    std::size_t pending() const noexcept { return std::max(outside(), snap_.dead_count); }
    /// Bytes held: the bookkeeping per id, the snapshot, the side trees and the tail (vector
    /// capacities, not malloc's overhead).
    std::size_t memory_bytes() const noexcept {
        std::size_t n = where_.capacity() + slot_.capacity() * sizeof(Id) +
                        tail_.capacity() * sizeof(Id) + tail_points_.capacity() * sizeof(point_type) +
                        snap_.memory_bytes();
        for (const part& level : levels_) n += level.memory_bytes();
        return n;
    }
    /// Number of side trees (levels) in use besides the snapshot; O(log(pending() /
    /// options.tail_limit)). For tuning and tests.
    std::size_t side_trees() const noexcept {
        std::size_t n = 0;
        for (const part& level : levels_) n += level.stored != 0 ? 1u : 0u;
        return n;
    }

    // --- mutation (not thread-safe: no other call may run meanwhile) -----------------------

    /// Adds a point and returns its id (id_bound() before the call). Amortised O(log n).
    /// Throws std::invalid_argument for a NaN or infinite coordinate, std::length_error
    /// when the ids are used up and std::bad_alloc when memory runs out; the index is then
    /// unchanged. (Reorganising after the change is put off when memory is short.)
    Id insert(const point_type& p) {
        detail::check_point(p, "inserted point");
        check_capacity(id_bound() + 1);
        reserve_one();
        const Id id = static_cast<Id>(id_bound());
        where_.push_back(in_tail);
        slot_.push_back(static_cast<Id>(tail_.size()));
        tail_.push_back(id);
        tail_points_.push_back(p);
        ++live_;
        maintain();
        return id;
    }

    /// Adds n points at once (a scan) and returns the first one's id: they get ids first,
    /// first + 1, ... in their order. Cheaper than n insert() calls: the points are reorganised
    /// once, not every options.tail_limit. Takes the same point types as the constructors.
    /// Throws std::invalid_argument for a NaN or infinite coordinate (naming its position),
    /// std::length_error when the ids are used up and std::bad_alloc when memory runs out;
    /// the index is then unchanged.
    template <class P>
    Id insert_all(const P* points, std::size_t n) {
        return insert_all_from(detail::point_source<T, D, P>{points, n});
    }
    /// As insert_all(points, n), for n points stored flat (coords[i * D + a]).
    Id insert_all(const T* coords, std::size_t n) { return insert_all_from(detail::flat_source<T, D>{coords, n}); }
    /// As insert_all(points, n), for a contiguous range of points.
    template <class Range, class = std::enable_if_t<detail::is_contiguous_range<Range>::value>>
    Id insert_all(const Range& points) {
        return insert_all_from(detail::range_source<T, D>(points));
    }

    /// Adds the points of a scan thinned to one point per voxel, as a LiDAR map is kept:
    /// the voxels are the cubes of side `voxel` on a grid through the origin, point p lying
    /// in the one with index floor(p[a] / voxel) on each axis a, computed in T (so two points
    /// share a voxel exactly when those values agree on every axis). In the order given, a
    /// point is inserted unless a live point of the index, or an earlier point of this
    /// call, lies in its voxel. Returns one id per point: its own if it was inserted (the
    /// inserted points get ids first, first + 1, ... in their order, as insert_all gives),
    /// else the id of the point that holds its voxel (of the index's live points there,
    /// the smallest id; or the earlier point's). Costs a sort of the points by voxel and
    /// one query of a voxel per voxel the call meets, then insert_all of the kept points.
    /// Throws std::invalid_argument for a voxel that is not positive and finite or a point
    /// with a NaN or infinite coordinate (naming its position), std::length_error and
    /// std::bad_alloc; the index is then unchanged.
    template <class P>
    std::vector<Id> insert_downsampled(const P* points, std::size_t n, T voxel) {
        return insert_downsampled_from(detail::point_source<T, D, P>{points, n}, voxel);
    }
    /// As insert_downsampled(points, n, voxel), for n points stored flat (coords[i * D + a]).
    std::vector<Id> insert_downsampled(const T* coords, std::size_t n, T voxel) {
        return insert_downsampled_from(detail::flat_source<T, D>{coords, n}, voxel);
    }
    /// As insert_downsampled(points, n, voxel), for a contiguous range of points.
    template <class Range, class = std::enable_if_t<detail::is_contiguous_range<Range>::value>>
    std::vector<Id> insert_downsampled(const Range& points, T voxel) {
        return insert_downsampled_from(detail::range_source<T, D>(points), voxel);
    }

    /// Removes the point with this id; returns false (and changes nothing) if the id is not
    /// live. The id is never handed out again. Amortised O(log n). Does not throw.
    bool erase(Id id) {
        if (!contains(id)) return false;
        detach(id);
        tag(id) = erased;
        --live_;
        maintain();
        return true;
    }

    /// Removes every live point in the closed box b (the points query(b) finds: lo <= p <=
    /// hi on every axis, faces included) and returns how many; their ids are never handed
    /// out again. Costs the query and O(1) a point erased, then one upkeep: once the erased
    /// entries pass options.rebuild_fraction, the parts are compacted (a linear pass, no
    /// sort) or, if as many points wait outside the snapshot, rebuilt. Throws
    /// std::invalid_argument for a box with a NaN or lo > hi on an axis and std::bad_alloc,
    /// the index then unchanged.
    std::size_t erase_in(const box_type& b) {
        std::vector<Id> ids;
        this->query(b, ids);
        return erase_found(ids);
    }
    /// Removes every live point outside the closed box b (a local map kept around a moving
    /// sensor: the points on its faces stay) and returns how many. Costs a search of the
    /// nodes not inside b (those inside are skipped whole), then as erase_in. Throws as
    /// erase_in.
    std::size_t erase_outside(const box_type& b) {
        detail::check_box(b);
        std::vector<Id> ids;
        query_shape(detail::outside_box_query<T, D>(b), ids);
        return erase_found(ids);
    }

    /// Moves the point with this id to p; the id stays. Amortised O(log n). Throws
    /// std::out_of_range if the id is not live, std::invalid_argument for a NaN or
    /// infinite coordinate and std::bad_alloc when memory runs out; the index is then
    /// unchanged.
    void move(Id id, const point_type& p) {
        check_live(id);
        detail::check_point(p, "moved-to point");
        if (tag(id) == in_tail) {
            tail_points_[place(id)] = p;
            return;
        }
        reserve_one();
        into_tail(id, p);
        maintain();
    }

    /// Moves n points at once, ids[i] to positions[i] (a step that moves a few percent of
    /// the points): checked whole first, then reorganised once, where n move() calls
    /// reorganise every options.tail_limit moves. An id given twice ends at its last
    /// position. Throws std::out_of_range if an id is not live, std::invalid_argument for a
    /// NaN or infinite coordinate (naming its position in the batch) and std::bad_alloc;
    /// the index is then unchanged.
    void move(const Id* ids, const point_type* positions, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) {
            check_live(ids[i]);
            if (!is_finite(positions[i]))
                throw std::invalid_argument("quoct: move: position " + std::to_string(i) +
                                            " of the batch has a NaN or infinite coordinate");
        }
        make_room(tail_, n);
        make_room(tail_points_, n);
        // Nothing below throws.
        for (std::size_t i = 0; i < n; ++i) {
            if (tag(ids[i]) == in_tail) tail_points_[place(ids[i])] = positions[i];
            else into_tail(ids[i], positions[i]);
        }
        maintain();
    }
    /// As move(ids, positions, n), for two vectors of the same length (else
    /// std::invalid_argument).
    void move(const std::vector<Id>& ids, const std::vector<point_type>& positions) {
        if (ids.size() != positions.size())
            throw std::invalid_argument("quoct: move: " + std::to_string(ids.size()) + " ids but " +
                                        std::to_string(positions.size()) + " positions");
        move(ids.data(), positions.data(), ids.size());
    }

    /// Moves every live point at once: the point with id i goes to points[i], for n ==
    /// id_bound() points given by id (the entries of erased ids are not read). Costs about
    /// one rebuild(), whatever moved, where moving the points one by one costs much more
    /// once more than a few percent of them move (README: "when to move, when to rebuild").
    /// Takes the same point types as the constructors. Throws std::invalid_argument if
    /// n != id_bound() or a live point's new coordinate is NaN or infinite (naming its id);
    /// the index is then unchanged.
    template <class P>
    void move_all(const P* points, std::size_t n) {
        move_all_from(detail::point_source<T, D, P>{points, n});
    }
    /// As move_all(points, n), for points stored flat (coords[i * D + a] for id i).
    void move_all(const T* coords, std::size_t n) { move_all_from(detail::flat_source<T, D>{coords, n}); }
    /// As move_all(points, n), for a contiguous range of id_bound() points.
    template <class Range, class = std::enable_if_t<detail::is_contiguous_range<Range>::value>>
    void move_all(const Range& points) {
        move_all_from(detail::range_source<T, D>(points));
    }

    /// Builds a new snapshot from all live points (O(n log n)); queries are fastest right
    /// after. Called automatically by the mutating calls when needed (see dynamic_options).
    /// If it throws (std::bad_alloc) the index is unchanged.
    void rebuild() {
        std::vector<Id> which;
        std::vector<point_type> pts;
        std::vector<const part*> parts{&snap_};
        bool dead = snap_.dead_count != 0;
        for (const part& level : levels_) parts.push_back(&level), dead = dead || level.dead_count != 0;
        if (dead || !concatenate_in_id_order(parts, tail_in_id_order(), live_, which, pts)) {
            which.reserve(live_);
            for (std::size_t i = 0; i < where_.size(); ++i)
                if (where_[i] != erased) which.push_back(static_cast<Id>(base_ + i));
            pts.resize(which.size());
            // Each part read once in its storage order (no id map), each live point written
            // to its id's place among the live ids.
            std::vector<Id> rank(where_.size());
            for (std::size_t i = 0; i < which.size(); ++i) rank[which[i] - base_] = static_cast<Id>(i);
            each_part([&](const part& pp) {
                each_stored(pp, [&](Id slot, const point_type& p) {
                    if (!pp.is_dead(slot)) pts[rank[pp.id_of(slot) - base_]] = p;
                });
                return true;
            });
            for (std::size_t i = 0; i < tail_.size(); ++i) pts[rank[tail_[i] - base_]] = tail_points_[i];
        }
        part fresh = part::make(which, std::move(pts), options_.tree);
        snap_ = std::move(fresh);
        levels_.clear();
        tail_.clear();
        tail_points_.clear();
        place_part(snap_, at_snapshot);
    }

    // --- queries (const; thread-safe while nobody mutates) --------------------------------

    // (The ball, box and nearest queries come from point_queries, over the live points,
    // through the primitives below and query_shape, count_shape and visit_shape.)
    friend class point_queries<dynamic_orthtree, T, D, Id>;

    /// Advanced: query() for a shape of your own, with the contract of
    /// orthtree::query_shape (classify(box) and contains(point)).
    template <class Shape>
    void query_shape(const Shape& shape, std::vector<Id>& out) const {
        collect([&](const tree_type& t, std::vector<Id>& o) { t.query_shape(shape, o); },
                [&](const tree_type& t, auto&& g) { return t.visit_shape(shape, g); },
                [&](const point_type& p) { return shape.contains(p); }, out);
    }
    /// Advanced: count() for a shape of your own.
    template <class Shape>
    std::size_t count_shape(const Shape& shape) const {
        return count_in([&](const tree_type& t) { return t.count_shape(shape); },
                        [&](const tree_type& t, auto&& g) { return t.visit_shape(shape, g); },
                        [&](const point_type& p) { return shape.contains(p); });
    }
    /// Advanced: visit() for a shape of your own.
    template <class Shape, class F>
    bool visit_shape(const Shape& shape, F&& f) const {
        return visit_in([&](const tree_type& t, auto&& g) { return t.visit_shape(shape, g); },
                        [&](const point_type& p) { return shape.contains(p); }, f);
    }

    /// Advanced: orthtree::search_nearest over the live points (snapshot, side trees and
    /// tail, all feeding one set), calling sink(id, distance) with our ids. Same contract.
    ///
    /// First the part nearest the query by its points' box (of those, the largest), from
    /// the query's leaf up, as a static tree is searched; then the tail; then each other
    /// part top down, entered only where its nodes lie within the bound the points found so
    /// far have set. Most of those parts' nodes then lie beyond it, and going down from
    /// their roots visits fewer nodes than finding the query's leaf in each and climbing back.
    template <class Metric, class Set, class Sink>
    void search_nearest(const Metric& metric, const Set& set, Sink&& sink) const {
        const auto search = [&](const part& pp, bool first) {
            if (pp.live() == 0 || metric.to_box(box_of(pp)) > set.bound()) return;
            const auto in_tree = [&](auto&& s) {
                if (first || !pp.tree.can_search_top_down()) pp.tree.search_nearest(metric, set, s);
                else pp.tree.search_nearest_top_down(metric, set, s);
            };
            if (pp.dead_count == 0 && pp.ids.identity()) {
                in_tree(sink);
            } else {
                in_tree([&](Id pos, T d) {
                    if (!pp.is_dead(pos)) sink(pp.id_of(pos), d);
                });
            }
        };
        // The first part: the nearest to the query by its box, of those the largest.
        const part* largest = &snap_;
        T nearest = snap_.live() == 0 ? std::numeric_limits<T>::infinity() : metric.to_box(box_of(snap_));
        for (const part& level : levels_) {
            if (level.live() == 0) continue;
            const T d = metric.to_box(box_of(level));
            if (d < nearest || (d == nearest && level.live() > largest->live())) largest = &level, nearest = d;
        }
        search(*largest, true);
        for (std::size_t i = 0; i < tail_.size(); ++i) {
            const T d = metric.to_point(tail_points_[i]);
            if (d <= set.bound()) sink(tail_[i], d);
        }
        each_part([&](const part& pp) {
            if (&pp != largest) search(pp, false);
            return true;
        });
    }

private:
    // --- point_queries' primitives
    // (with_ball, with_box and result_distance_sq: detail::plain_space's.)
    void capped_nearest(const point_type& p, std::size_t k, T radius, std::vector<neighbor_type>& out) const {
        detail::check_point(p, "nearest query point");
        detail::check_k(k);
        detail::check_radius(radius, "nearest");
        detail::run_nearest_sq<T, D, Id>(
            out, k, live_, radius,
            [&](const auto& set, auto&& sink) { search_nearest(detail::euclidean_nearest_metric<T, D>{p}, set, sink); },
            [&](Id id) { return point_of(id) == p; },
            [&](T upper, auto&& f) {
                visit_shape(detail::ball_query<T, D>(p, detail::radius_bound<T, D>::at_most(upper)), f);
            },
            [&](const point_type& q) { return detail::point_offsets<T, D>{q, p}; });
    }

    using part = detail::frozen_part<T, D, Id>;
    // A part's box: its points' where it is built here, else its tree's bounds.
    static box_type box_of(const part& pp) noexcept {
        return pp.tree.can_compact() && !pp.tree.empty() ? pp.tree.points_box() : pp.tree.bounds();
    }

    // tag(id): erased, at_snapshot, in_tail, or in_level + j for level j; place(id): where
    // that part's tree stores the point (its stored position, not its input position: the
    // dead marks go by input position, stored_ids() maps one to the other), or its place
    // in the tail. Both for base_ <= id <
    // id_bound() (the ids below base_ are all erased, their bookkeeping dropped).
    enum : unsigned char { erased, at_snapshot, in_tail, in_level };
    // Each level holds this many times the one below. Capacities saturate at SIZE_MAX, so
    // there are at most about 32 levels and in_level + j always fits the tag byte.
    static constexpr std::size_t level_growth = 4;

    void check_options() const {
        if (!(options_.rebuild_fraction > 0 && options_.rebuild_fraction <= 1))
            throw std::invalid_argument("quoct: dynamic_options::rebuild_fraction must be in (0, 1]");
        if (options_.tail_limit == 0) throw std::invalid_argument("quoct: dynamic_options::tail_limit must be >= 1");
        tree_type probe(static_cast<const point_type*>(nullptr), 0, options_.tree);  // checks the build options
    }
    template <class Source>
    void init(const Source& points) {
        const std::size_t n = points.size();
        check_options();
        check_capacity(n);
        snap_.tree = tree_type(points.data, n, options_.tree);  // validates the points
        where_.assign(n, at_snapshot);
        slot_.resize(n);
        snap_.dead.assign(n);
        snap_.stored = n;
        place_part(snap_, at_snapshot);
        live_ = n;
    }

    template <class Source>
    void move_all_from(const Source& points) {
        const std::size_t n = id_bound();
        if (points.size() != n)
            throw std::invalid_argument("quoct: move_all needs id_bound() = " + std::to_string(n) +
                                        " points, one per id; got " + std::to_string(points.size()));
        for (std::size_t id = 0; id < n; ++id)
            if (contains(static_cast<Id>(id)) && !is_finite(points[id]))
                throw std::invalid_argument("quoct: move_all: the point for id " + std::to_string(id) +
                                            " has a NaN or infinite coordinate");
        // The new snapshot first (only it can fail, for memory), then the rest in place.
        part fresh;
        std::vector<Id> which;
        if (live_ == n) {  // no erased ids: the tree reads the caller's points straight in
            fresh.tree = tree_type(points.data, points.count, options_.tree);
        } else {
            which.reserve(live_);
            for (std::size_t id = 0; id < n; ++id)
                if (contains(static_cast<Id>(id))) which.push_back(static_cast<Id>(id));
            std::vector<point_type> live(which.size());
            for (std::size_t i = 0; i < which.size(); ++i) live[i] = points[which[i]];
            fresh.tree = tree_type(live.data(), live.size(), options_.tree);
            fresh.ids = detail::part_ids<Id>::of(std::move(which));
        }
        fresh.dead.assign(live_);
        fresh.stored = live_;
        // Nothing below throws.
        snap_ = std::move(fresh);
        levels_.clear();
        tail_.clear();
        tail_points_.clear();
        place_part(snap_, at_snapshot);
    }

    // Erases the live ids found by a query (each once), then does the upkeep once.
    std::size_t erase_found(const std::vector<Id>& ids) noexcept {
        for (const Id id : ids) {
            detach(id);
            tag(id) = erased;
        }
        live_ -= ids.size();
        maintain();
        return ids.size();
    }

    // Voxel indexes in lexicographic order.
    static bool voxel_less(const point_type& x, const point_type& y) noexcept {
        return std::lexicographical_compare(x.coords, x.coords + D, y.coords, y.coords + D);
    }
    // For each of the voxels (increasing), the smallest id of the live points in it, or
    // max(Id) if none: one pass over the block of voxels around them when it holds few points
    // for their number (a scan over a thinned map); where that pass finds too many, it stops
    // and a query per voxel in the trees and a pass over the tail finish (a scan in a
    // corner of a dense map).
    std::vector<Id> voxel_holders(const detail::voxel_grid<T, D>& grid, const std::vector<point_type>& voxels) const {
        std::vector<Id> holder(voxels.size(), std::numeric_limits<Id>::max());
        const auto offer = [&](Id id, const point_type& p) {
            const point_type cell = grid.of(p);
            const auto at = std::lower_bound(voxels.begin(), voxels.end(), cell, voxel_less);
            if (at != voxels.end() && *at == cell) {
                Id& h = holder[static_cast<std::size_t>(at - voxels.begin())];
                if (id < h) h = id;
            }
        };
        if (voxels.empty()) return holder;
        detail::voxel_block_query<T, D> block{grid, voxels.front(), voxels.front()};
        for (const point_type& v : voxels)
            for (std::size_t a = 0; a < D; ++a) {
                block.lo[a] = std::min(block.lo[a], v[a]);
                block.hi[a] = std::max(block.hi[a], v[a]);
            }
        // One visit of the block, offering its points, that stops past 8 points a voxel: a
        // dense block costs no more than that limit before the per-voxel path takes over
        // (the holders found so far stand: both paths keep the smallest id offered).
        const std::size_t limit = 8 * voxels.size();
        std::size_t seen = 0;
        if (visit_shape(block, [&](Id id, const point_type& p) {
                offer(id, p);
                return ++seen <= limit;
            }))
            return holder;
        for (std::size_t i = 0; i < tail_.size(); ++i) offer(tail_[i], tail_points_[i]);
        for (const point_type& v : voxels)
            each_part([&](const part& pp) {
                return pp.tree.visit_shape(detail::voxel_block_query<T, D>{grid, v, v}, [&](Id pos, const point_type& p) {
                    if (!pp.is_dead(pos)) offer(pp.id_of(pos), p);
                });
            });
        return holder;
    }

    template <class Source>
    std::vector<Id> insert_downsampled_from(const Source& points, T voxel) {
        if (!(voxel > 0) || !std::isfinite(voxel))
            throw std::invalid_argument("quoct: insert_downsampled: the voxel size must be positive and finite");
        const std::size_t n = points.size();
        const detail::voxel_grid<T, D> grid{voxel};
        std::vector<point_type> cells(n);
        for (std::size_t i = 0; i < n; ++i) {
            const point_type p = points[i];
            if (!is_finite(p))
                throw std::invalid_argument("quoct: insert_downsampled: point " + std::to_string(i) +
                                            " has a NaN or infinite coordinate");
            cells[i] = grid.of(p);
        }
        // The points by voxel, each voxel's in their order: its first is the candidate.
        std::vector<std::size_t> order(n);
        for (std::size_t i = 0; i < n; ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return voxel_less(cells[x], cells[y]); });
        std::vector<point_type> voxels;        // the batch's voxels, increasing
        std::vector<std::size_t> first_of(n);  // for each point: its voxel's first point here
        std::vector<std::size_t> voxel_of(n);  // for each point: its voxel's place in voxels
        for (std::size_t r = 0; r < n; ++r) {
            const std::size_t i = order[r];
            if (r == 0 || voxel_less(cells[order[r - 1]], cells[i])) voxels.push_back(cells[i]);
            first_of[i] = r != 0 && !voxel_less(cells[order[r - 1]], cells[i]) ? first_of[order[r - 1]] : i;
            voxel_of[i] = voxels.size() - 1;
        }
        // Each voxel's holder among the live points (none: max(Id)); the rest go in.
        constexpr Id none = std::numeric_limits<Id>::max();
        const std::vector<Id> holder = voxel_holders(grid, voxels);
        std::vector<point_type> kept;
        std::vector<std::size_t> kept_at;      // input position of each kept point
        for (std::size_t i = 0; i < n; ++i)
            if (holder[voxel_of[i]] == none && first_of[i] == i) {
                kept.push_back(points[i]);
                kept_at.push_back(i);
            }
        std::vector<std::size_t> rank(n);
        for (std::size_t j = 0; j < kept_at.size(); ++j) rank[kept_at[j]] = j;
        std::vector<Id> ids(n);                // allocated before the change: nothing throws after it
        const Id first_id = insert_all(kept);  // the one change, all or nothing
        for (std::size_t i = 0; i < n; ++i)
            ids[i] = holder[voxel_of[i]] != none ? holder[voxel_of[i]] : static_cast<Id>(first_id + rank[first_of[i]]);
        return ids;
    }

    template <class Source>
    Id insert_all_from(const Source& points) {
        const std::size_t n = points.size();
        for (std::size_t i = 0; i < n; ++i)
            if (!is_finite(points[i]))
                throw std::invalid_argument("quoct: insert_all: point " + std::to_string(i) +
                                            " has a NaN or infinite coordinate");
        check_capacity(id_bound() + n);
        const Id first = static_cast<Id>(id_bound());
        // Room first, so that nothing changes if memory runs out; then nothing throws.
        make_room(where_, n);
        make_room(slot_, n);
        make_room(tail_, n);
        make_room(tail_points_, n);
        const std::size_t w = where_.size(), t = tail_.size();
        where_.resize(w + n, in_tail);  // within the room made: no allocation
        slot_.resize(w + n);
        tail_.resize(t + n);
        tail_points_.resize(t + n);
        for (std::size_t i = 0; i < n; ++i) {
            slot_[w + i] = static_cast<Id>(t + i);
            tail_[t + i] = static_cast<Id>(first + i);
            tail_points_[t + i] = points[i];
        }
        live_ += n;
        maintain();
        return first;
    }

    static void check_capacity(std::size_t n) {
        // The orthtree takes at most max(Id) / 2 points; ids stay within that as well.
        if (n > std::size_t{std::numeric_limits<Id>::max()} / 2)
            throw std::length_error("quoct: dynamic_orthtree ids exhausted for this Id type");
    }
    void check_live(Id id) const {
        if (!contains(id)) throw std::out_of_range("quoct: id " + std::to_string(id) + " is not a live point");
    }
    // The point of a live id, from where the part that holds it stores it.
    point_type point_of(Id id) const {
        const Id s = place(id);
        switch (tag(id)) {
            case at_snapshot: return snap_.tree.stored_point(s);
            case in_tail: return tail_points_[s];
            default: return levels_[tag(id) - in_level].tree.stored_point(s);
        }
    }
    // Grows every vector a push may touch first, so a failed allocation changes nothing.
    void reserve_one() {
        make_room(where_, 1);
        make_room(slot_, 1);
        make_room(tail_, 1);
        make_room(tail_points_, 1);
    }
    // Room for n more pushes, growing by 1/8 (push_back grows by 2x): batches still cost
    // amortised O(n) (each entry is copied about 8 times as the vectors grow, 5 bytes an
    // id), and the per-id arrays keep at most 1/8 of their bytes spare (at 1M ids in
    // batches of 10,000: 2.4% against 41% growing by 1.5x, 2 bytes a point fewer).
    template <class V>
    static void make_room(V& v, std::size_t n) {
        if (v.capacity() - v.size() < n) v.reserve(std::max(v.size() + n, v.size() + v.size() / 8 + 16));
    }
    // Takes live id out of its part into the tail at p (room made by the caller).
    void into_tail(Id id, const point_type& p) noexcept {
        detach(id);
        tag(id) = in_tail;
        place(id) = static_cast<Id>(tail_.size());
        tail_.push_back(id);
        tail_points_.push_back(p);
    }
    // Makes every live entry of a part its id's place: through a map from input to stored
    // positions, so that the ids (increasing with input positions) are written in order;
    // entry by entry, in storage order, if there is no memory for the map.
    void place_part(const part& pp, unsigned char where) noexcept {
        const Id* input = pp.tree.stored_ids();
        std::vector<Id> stored_at;
        try {
            stored_at.resize(pp.stored);
        } catch (const std::bad_alloc&) {
            for (std::size_t at = 0; at < pp.stored; ++at) {
                if (pp.is_dead(input[at])) continue;
                const Id id = pp.id_of(input[at]);
                tag(id) = where;
                place(id) = static_cast<Id>(at);
            }
            return;
        }
        for (std::size_t at = 0; at < pp.stored; ++at) stored_at[input[at]] = static_cast<Id>(at);
        pp.ids.each(pp.stored, [&](Id i, Id id) {
            if (pp.is_dead(i)) return;
            tag(id) = where;
            place(id) = stored_at[i];
        });
    }
    // Calls f(slot, point) for every entry a part stores, dead ones included, in its
    // storage order: one pass, no id map.
    template <class F>
    static void each_stored(const part& pp, F&& f) {
        const Id* slots = pp.tree.stored_ids();
        for (std::size_t at = 0; at < pp.tree.size(); ++at) f(slots[at], pp.tree.stored_point(at));
    }

    unsigned char& tag(Id id) noexcept { return where_[id - base_]; }
    unsigned char tag(Id id) const noexcept { return where_[id - base_]; }
    Id& place(Id id) noexcept { return slot_[id - base_]; }
    Id place(Id id) const noexcept { return slot_[id - base_]; }

    // Drops the bookkeeping of the erased ids at the front (a map that keeps a window of
    // recent points, whose old ids are all erased, then holds 5 bytes an id it still has,
    // not an id ever handed out), once they are at least half of it: amortised O(1) an id,
    // as erased_below_ passes each id once. Changes nothing if it throws (std::bad_alloc).
    void drop_erased_prefix() {
        while (erased_below_ < id_bound() && tag(static_cast<Id>(erased_below_)) == erased) ++erased_below_;
        const std::size_t gone = erased_below_ - base_;
        if (gone < 1024 || gone < where_.size() / 2) return;
        const std::size_t keep = where_.size() - gone;
        std::vector<unsigned char> where(where_.begin() + static_cast<std::ptrdiff_t>(gone), where_.end());
        std::vector<Id> slot(slot_.begin() + static_cast<std::ptrdiff_t>(gone), slot_.end());
        where.reserve(keep + keep / 2 + 16);
        slot.reserve(keep + keep / 2 + 16);
        // Nothing below throws.
        where_.swap(where);
        slot_.swap(slot);
        base_ = erased_below_;
    }

    // Takes id out of whichever part holds it (the caller sets tag(id)).
    void detach(Id id) noexcept {
        const Id s = place(id);
        switch (tag(id)) {
            case erased: break;
            case at_snapshot: snap_.kill(snap_.tree.stored_ids()[s]); break;
            case in_tail: {
                const Id last = tail_.back();
                tail_[s] = last;
                tail_points_[s] = tail_points_.back();
                place(last) = s;
                tail_.pop_back();
                tail_points_.pop_back();
                break;
            }
            default: {
                part& level = levels_[tag(id) - in_level];
                level.kill(level.tree.stored_ids()[s]);
                break;
            }
        }
    }

    // Live points held outside the snapshot.
    std::size_t outside() const noexcept {
        std::size_t n = tail_.size();
        for (const part& level : levels_) n += level.live();
        return n;
    }
    // Most points level j may hold: tail_limit * level_growth^(j+1), saturating.
    std::size_t level_capacity(std::size_t j) const noexcept {
        constexpr std::size_t top = std::numeric_limits<std::size_t>::max();
        std::size_t c = options_.tail_limit;
        for (std::size_t i = 0; i <= j; ++i) c = c > top / level_growth ? top : c * level_growth;
        return c;
    }

    // The upkeep after a change. Each step either finishes or changes nothing, so when one
    // runs out of memory it is put off to a later call: the change stands, queries stay
    // exact (only slower), and the mutating call returns normally.
    // Dead snapshot entries slow every query, so once they pass the fraction they go: by a
    // rebuild if as many live points wait outside the snapshot (moved ones, mostly, which
    // the rebuild brings back into it), else by compacting the parts (orthtree::without, a
    // linear pass with no sort: what erasures, box-wise ones above all, need). Live points
    // outside the snapshot sit in trees of their own, nearly as fast, so they force a
    // rebuild only once they also outnumber the snapshot's live entries: a growing index
    // then rebuilds its snapshot each time it doubles (each point is rebuilt into a
    // snapshot O(1) times, amortised), not every rebuild_fraction of growth.
    void maintain() noexcept {
        try {
            const double limit = options_.rebuild_fraction * static_cast<double>(live_);
            const std::size_t out = outside();
            const bool stale = static_cast<double>(snap_.dead_count) > limit;
            const bool outgrown = static_cast<double>(out) > limit && out > snap_.live();
            if (pending() > 16) {
                if (outgrown || (stale && static_cast<double>(out) > limit)) return rebuild();
                if (stale) compact_parts();
            }
            if (tail_.size() > options_.tail_limit) fold_tail();
            if (live_ < where_.size() / 2) drop_erased_prefix();
        } catch (const std::bad_alloc&) {
        }
    }

    // Every part with dead entries made again without them (orthtree::without: the same
    // order and nodes, no sort), or the whole index rebuilt where a part cannot be (read
    // lazily). Each part either finishes or is left as it was (std::bad_alloc).
    void compact_parts() {
        const auto compact = [&](part& pp, unsigned char where) {
            if (pp.dead_count == 0) return;
            part fresh;
            fresh.tree = pp.tree.without([&](std::size_t slot) { return pp.dead.test(slot); });
            const std::size_t m = pp.live();
            std::vector<Id> ids;
            ids.reserve(m);
            for (std::size_t slot = 0; slot < pp.stored; ++slot)
                if (!pp.dead.test(slot)) ids.push_back(pp.id_of(static_cast<Id>(slot)));
            fresh.dead.assign(m);
            fresh.stored = m;
            fresh.ids = detail::part_ids<Id>::of(std::move(ids));
            // Nothing below throws.
            pp = std::move(fresh);
            place_part(pp, where);
        };
        if (!snap_.tree.can_compact()) return rebuild();
        for (const part& level : levels_)
            if (level.dead_count != 0 && !level.tree.can_compact()) return rebuild();
        compact(snap_, at_snapshot);
        for (std::size_t j = 0; j < levels_.size(); ++j) compact(levels_[j], static_cast<unsigned char>(in_level + j));
    }

    // The tail's places in id order: inserts append increasing ids, so it is mostly in
    // order already; moves and erasures disorder it.
    std::vector<std::size_t> tail_in_id_order() const {
        std::vector<std::size_t> order(tail_.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        if (!std::is_sorted(tail_.begin(), tail_.end()))
            std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return tail_[x] < tail_[y]; });
        return order;
    }
    // The live entries of `parts` and of the tail (its places in id order: `order`), in
    // increasing id order, into which and pts (`total` entries), where that is their
    // concatenation: no part has dead entries and the id ranges do not overlap (a growing
    // map: each level holds older points than the one below it, the tail the newest).
    // Each part's points go from its storage order straight to their place. Returns false,
    // changing nothing, where it is not.
    bool concatenate_in_id_order(const std::vector<const part*>& parts, const std::vector<std::size_t>& order,
                                 std::size_t total, std::vector<Id>& which, std::vector<point_type>& pts) const {
        struct run {
            const part* source;  // nullptr: the tail
            Id first, last;
        };
        std::vector<run> runs;
        for (const part* pp : parts) {
            if (pp->dead_count != 0) return false;
            if (pp->stored != 0) runs.push_back(run{pp, pp->id_of(0), pp->id_of(static_cast<Id>(pp->stored - 1))});
        }
        if (!order.empty()) runs.push_back(run{nullptr, tail_[order.front()], tail_[order.back()]});
        std::sort(runs.begin(), runs.end(), [](const run& x, const run& y) { return x.first < y.first; });
        for (std::size_t r = 1; r < runs.size(); ++r)
            if (!(runs[r - 1].last < runs[r].first)) return false;
        which.resize(total);
        pts.resize(total);
        std::size_t at = 0;
        for (const run& rn : runs) {
            if (rn.source == nullptr) {
                for (const std::size_t i : order) which[at] = tail_[i], pts[at++] = tail_points_[i];
                continue;
            }
            const part& pp = *rn.source;
            pp.ids.each(pp.stored, [&](Id slot, Id id) { which[at + slot] = id; });
            each_stored(pp, [&](Id slot, const point_type& p) { pts[at + slot] = p; });
            at += pp.stored;
        }
        return true;
    }
    // The live entries of the tail and levels 0..m-1 (`total` of them) in increasing id
    // order, into which and pts: concatenated where they can be, else a k-way merge over
    // the few sources, each in id order.
    void gather_in_id_order(std::size_t m, std::size_t total, std::vector<Id>& which, std::vector<point_type>& pts) const {
        const std::vector<std::size_t> order = tail_in_id_order();
        std::vector<const part*> parts;
        for (std::size_t l = 0; l < m; ++l) parts.push_back(&levels_[l]);
        if (concatenate_in_id_order(parts, order, total, which, pts)) return;
        which.reserve(total);
        pts.reserve(total);
        std::vector<std::size_t> cursor(m + 1, 0);  // last one: the tail
        const auto skip_dead = [&](std::size_t l) {
            const part& level = levels_[l];
            while (cursor[l] < level.stored && level.is_dead(static_cast<Id>(cursor[l]))) ++cursor[l];
        };
        for (std::size_t l = 0; l < m; ++l) skip_dead(l);
        // Each merged level's points by slot, read once in storage order (no id map).
        std::vector<std::vector<point_type>> by_slot(m);
        for (std::size_t l = 0; l < m; ++l) {
            by_slot[l].resize(levels_[l].stored);
            each_stored(levels_[l], [&](Id slot, const point_type& p) { by_slot[l][slot] = p; });
        }
        constexpr Id none = std::numeric_limits<Id>::max();  // above every id (ids < max / 2)
        for (;;) {
            std::size_t best = m;
            Id best_id = cursor[m] < order.size() ? tail_[order[cursor[m]]] : none;
            for (std::size_t l = 0; l < m; ++l) {
                const part& level = levels_[l];
                if (cursor[l] < level.stored) {
                    const Id id = level.id_of(static_cast<Id>(cursor[l]));
                    if (id < best_id) best = l, best_id = id;
                }
            }
            if (best_id == none) break;
            which.push_back(best_id);
            ++cursor[best];
            pts.push_back(best == m ? tail_points_[order[cursor[best] - 1]] : by_slot[best][cursor[best] - 1]);
            if (best != m) skip_dead(best);
        }
    }

    // Moves the tail and levels 0..j-1 into level j, the first level with room for them
    // all (a new one if none has), rebuilding it; the levels below are left empty. Their
    // live entries go in in id order (gather_in_id_order: joined end to end where they can
    // be, else merged). If it throws (std::bad_alloc) the index is unchanged.
    void fold_tail() {
        std::size_t j = 0, total = tail_.size();
        for (; j < levels_.size(); ++j) {
            total += levels_[j].live();
            if (total <= level_capacity(j)) break;
        }
        const std::size_t merged_levels = std::min(j + 1, levels_.size());
        std::vector<Id> which;
        std::vector<point_type> pts;
        gather_in_id_order(merged_levels, total, which, pts);
        part fresh = part::make(which, std::move(pts), options_.tree);
        if (j == levels_.size()) levels_.emplace_back();
        // Nothing below throws.
        levels_[j] = std::move(fresh);
        for (std::size_t l = 0; l < j; ++l) levels_[l] = part{};
        tail_.clear();
        tail_points_.clear();
        place_part(levels_[j], static_cast<unsigned char>(in_level + j));
    }

    // Calls f(part) for the snapshot and each level.
    template <class F>
    bool each_part(F&& f) const {
        if (!f(snap_)) return false;
        for (const part& level : levels_)
            if (!f(level)) return false;
        return true;
    }

    // --- query plumbing: tree_visit(tree, g) runs the shape's visit on one tree, test(p)
    // is the shape's membership predicate for the tail.

    template <class TreeVisit, class Test, class F>
    bool visit_in(TreeVisit&& tree_visit, Test&& test, F& f) const {
        const bool went_on = each_part([&](const part& pp) {
            return tree_visit(pp.tree, [&](Id pos, const point_type& p) {
                return pp.is_dead(pos) || detail::go_on(f, pp.id_of(pos), p);
            });
        });
        if (!went_on) return false;
        for (std::size_t i = 0; i < tail_.size(); ++i) {
            const point_type& p = tail_points_[i];
            if (test(p) && !detail::go_on(f, tail_[i], p)) return false;
        }
        return true;
    }

    template <class TreeQuery, class TreeVisit, class Test>
    void collect(TreeQuery&& tree_query, TreeVisit&& tree_visit, Test&& test, std::vector<Id>& out) const {
        tree_query(snap_.tree, out);  // the core's fast collector, then drop the dead and map
        if (snap_.dead_count != 0 || !snap_.ids.identity()) {
            std::size_t k = 0;
            for (Id pos : out)
                if (!snap_.is_dead(pos)) out[k++] = snap_.id_of(pos);
            out.resize(k);
        }
        for (const part& level : levels_)
            tree_visit(level.tree, [&](Id pos, const point_type&) {
                if (!level.is_dead(pos)) out.push_back(level.id_of(pos));
            });
        for (std::size_t i = 0; i < tail_.size(); ++i)
            if (test(tail_points_[i])) out.push_back(tail_[i]);
    }

    template <class TreeCount, class TreeVisit, class Test>
    std::size_t count_in(TreeCount&& tree_count, TreeVisit&& tree_visit, Test&& test) const {
        std::size_t n = 0;
        each_part([&](const part& pp) {
            if (pp.dead_count == 0) {
                n += tree_count(pp.tree);
            } else {
                tree_visit(pp.tree, [&](Id pos, const point_type&) { n += pp.is_dead(pos) ? 0u : 1u; });
            }
            return true;
        });
        for (const point_type& p : tail_points_) n += test(p) ? 1u : 0u;
        return n;
    }

    // Its saved form, read and written by quoct/file.hpp through detail::file_codec, with
    // the checks that make a read-back index safe to update: detail/dynamic_sections.hpp.
    template <class>
    friend struct detail::file_codec;
    static std::string file_type_name() {
        return "dynamic_orthtree<" + detail::scalar_name<T>() + ", " + std::to_string(D) + ", " + detail::id_name<Id>() + ">";
    }
    template <class Writer>
    void write_sections(Writer& w, const std::string& prefix) const;
    template <class Reader>
    static dynamic_orthtree read_sections(const Reader& r, const std::string& prefix);
    template <class Writer>
    static void write_part(const part& p, Writer& w, const std::string& prefix);
    template <class Reader>
    static part read_part(const Reader& r, const std::string& prefix, std::size_t id_bound);
    template <class Reader>
    void check_places(const Reader& r) const;

    dynamic_options options_;
    std::vector<unsigned char> where_;  // by id - base_: erased, at_snapshot, in_tail or in_level + j
    std::vector<Id> slot_;              // by id - base_: position in the snapshot, the tail or level j
    std::size_t base_ = 0;              // the ids below are all erased (and not in where_, slot_)
    std::size_t erased_below_ = 0;      // and so are those below this (base_ <= erased_below_)
    part snap_;
    std::vector<part> levels_;               // level j holds at most level_capacity(j) entries
    std::vector<Id> tail_;                   // ids of the points changed since the last fold
    std::vector<point_type> tail_points_;  // and their points, contiguous for the scan
    std::size_t live_ = 0;
};

/// A dynamic quadtree: dynamic_orthtree in 2D.
template <class T, class Id = std::uint32_t>
using dynamic_quadtree = dynamic_orthtree<T, 2, Id>;
/// A dynamic octree: dynamic_orthtree in 3D.
template <class T, class Id = std::uint32_t>
using dynamic_octree = dynamic_orthtree<T, 3, Id>;

}  // namespace quoct

#include "detail/dynamic_sections.hpp"

#endif  // QUOCT_DYNAMIC_HPP
