// quoct::mpi: one spatial index over points spread across the ranks of an MPI
// communicator. Optional header: needs MPI (link quoct::mpi, found with
// find_package(quoct COMPONENTS mpi)); the rest of quoct does not.
//
// Partition. Every point gets a Morton key on a grid over the global bounds (the core's
// quantizer and keys, include/quoct/detail/morton.hpp) and the points are ordered by
// (key, global id). Rank r owns one contiguous run of that order, the runs cut so that the
// ranks hold equal counts: the approach of cornerstone-octree and p4est (a space-filling
// curve cut into ranges by count). Ties broken by id let the cut fall inside a run of equal
// keys, so duplicate-heavy and clustered data balance as well as uniform data. Each rank
// keeps its points in a quoct::orthtree and publishes its region: the tight bounding boxes
// of at most `region_boxes` runs of its points that share a Morton prefix.
//
// Communication. A query goes only to the ranks whose region meets it (the core's closed
// predicates: ball meets box, box meets box), and comes back as global ids. Pair searches
// send each rank the points of other ranks within r of its region (its halo), and no
// more. Every member marked collective must be called by every rank of the communicator,
// in the same order; the communicator must outlive the index.
//
// Errors. Bad input on any rank (NaN or infinite coordinates, a negative or NaN radius,
// an inverted box, k = 0, a wrong number of new positions) throws on every rank, the same
// exception type with the message of the lowest failing rank ("quoct::mpi: rank 2: ..."),
// before anything is sent or changed: no rank is left waiting and the index is unchanged.
//
// Threads. Not thread-safe: call the collective members from one thread per rank (MPI's
// FUNNELED level is enough). The local tree (local_tree()) may be queried from many threads.
#ifndef QUOCT_MPI_HPP
#define QUOCT_MPI_HPP

#include <mpi.h>

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

#include "detail/knn.hpp"
#include "detail/morton.hpp"
#include "detail/mpi_exchange.hpp"
#include "detail/pair_metric.hpp"
#include "detail/query_shapes.hpp"
#include "detail/validate.hpp"
#include "shapes.hpp"
#include "orthtree.hpp"
#include "pairs.hpp"
#include "parallel.hpp"

namespace quoct {
namespace mpi {

/// Regions published per rank: at most this many boxes (see the header comment).
constexpr std::size_t region_boxes = 32;

namespace detail {

/// A point with its place in the global order: Morton key, then global id.
template <class T, std::size_t D>
struct record {
    std::uint64_t key;
    std::uint64_t id;
    point<T, D> p;
};

/// A position in the global order.
struct order_key {
    std::uint64_t key;
    std::uint64_t id;
    friend bool operator<(const order_key& a, const order_key& b) noexcept {
        return a.key < b.key || (a.key == b.key && a.id < b.id);
    }
};

template <class T, std::size_t D>
order_key key_of(const record<T, D>& r) noexcept {
    return {r.key, r.id};
}

/// Reorders records by one unsigned field, stably: the core's radix sort (morton.hpp) on
/// (field - least) packed above each record's position, when that fits 64 bits.
template <class T, std::size_t D, class Field>
void sort_stably_by(std::vector<record<T, D>>& records, Field field) {
    const std::size_t n = records.size();
    if (n < 2) return;
    std::uint64_t least = field(records[0]), most = least;
    for (const auto& r : records) least = std::min(least, field(r)), most = std::max(most, field(r));
    const unsigned index_bits = quoct::detail::position_bits(n), value_bits = quoct::detail::bit_width(most - least);
    if (index_bits + value_bits > 64) {
        std::stable_sort(records.begin(), records.end(),
                         [&](const record<T, D>& a, const record<T, D>& b) { return field(a) < field(b); });
        return;
    }
    quoct::detail::raw_vector<std::uint64_t> items(n), scratch;
    for (std::size_t i = 0; i < n; ++i) items[i] = value_bits == 0 ? i : (field(records[i]) - least) << index_bits | i;
    if (value_bits != 0) quoct::detail::radix_sort(items, scratch, index_bits, value_bits);
    std::vector<record<T, D>> sorted(n);
    const std::uint64_t mask = index_bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << index_bits) - 1;
    for (std::size_t i = 0; i < n; ++i) sorted[i] = records[static_cast<std::size_t>(items[i] & mask)];
    records.swap(sorted);
}

/// Records in increasing id order, reordered by (key, id).
template <class T, std::size_t D>
void sort_by_key(std::vector<record<T, D>>& records) {
    sort_stably_by(records, [](const record<T, D>& r) { return r.key; });
}

/// Records that form sorted runs [offsets[i], offsets[i + 1]), merged into one sorted run
/// (pairs of neighbouring runs at a time).
template <class T, std::size_t D>
void merge_runs(std::vector<record<T, D>>& records, std::vector<std::size_t> offsets) {
    const auto less = [](const record<T, D>& a, const record<T, D>& b) { return key_of(a) < key_of(b); };
    while (offsets.size() > 2) {
        std::vector<std::size_t> merged{0};
        for (std::size_t i = 0; i + 1 < offsets.size(); i += 2) {
            const std::size_t end = offsets[std::min(i + 2, offsets.size() - 1)];
            std::inplace_merge(records.begin() + static_cast<std::ptrdiff_t>(offsets[i]),
                               records.begin() + static_cast<std::ptrdiff_t>(offsets[i + 1]),
                               records.begin() + static_cast<std::ptrdiff_t>(end), less);
            merged.push_back(end);
        }
        offsets.swap(merged);
    }
}

/// A nearest-neighbour request: the point, the k wanted, and a bound on distance_sq beyond
/// which the asking rank needs nothing.
template <class T, std::size_t D>
struct nearest_request {
    point<T, D> p;
    T bound_sq;
    std::uint64_t k;
};

/// One rank's candidate for a distributed nearest search: its global id and its squared
/// distance with an unbounded exponent (wide), so that the candidates of all ranks merge in
/// the exact (distance, id) order even where T's squares overflow or underflow.
template <class T>
struct nearest_candidate {
    std::uint64_t id;
    quoct::detail::wide<T> d;
};

/// A halo point: its global id and coordinates.
template <class T, std::size_t D>
struct halo_point {
    std::uint64_t id;
    point<T, D> p;
};

/// The index of the first Morton digit (from the top, `digits` of D bits each) in which
/// a and b differ; `digits` when they are equal.
template <std::size_t D>
unsigned first_difference(std::uint64_t a, std::uint64_t b, unsigned digits) noexcept {
    std::uint64_t x = a ^ b;
    if (x == 0) return digits;
#if defined(__GNUC__) || defined(__clang__)
    const unsigned top = 63u - static_cast<unsigned>(__builtin_clzll(x));  // the highest set bit of x
#else
    unsigned top = 0;
    while (x >>= 1) ++top;
#endif
    return (digits * static_cast<unsigned>(D) - 1 - top) / static_cast<unsigned>(D);
}

}  // namespace detail

/// A D-dimensional point index distributed over the ranks of an MPI communicator, with
/// global ids: point i given by rank r has id (number of points given by ranks < r) + i.
/// Answers are whatever the whole point set says, with the core's closed predicates
/// (distance_sq(p, c) <= r * r), identical for any number of ranks. T is float or double.
template <class T, std::size_t D>
class distributed_orthtree {
public:
    /// @name Types
    /// The index's scalar, global id, point, box, ball and neighbour types, the tree each
    /// rank holds, and the dimension.
    ///@{
    using scalar_type = T;  ///< the coordinate type
    using id_type = std::uint64_t;  ///< the point ids
    using point_type = point<T, D>;  ///< a point
    using box_type = box<T, D>;  ///< a closed box
    using ball_type = ball<T, D>;  ///< a closed ball
    using neighbor_type = neighbor<T, id_type>;  ///< one result of nearest()
    using local_tree_type = orthtree<T, D, std::uint32_t>;  ///< the tree each rank holds
    static constexpr std::size_t dimension = D;  ///< the number of coordinates
    ///@}

    /// Builds the index from the n points at `points` that this rank holds. Collective.
    /// Throws std::invalid_argument (on every rank) if any rank passes a NaN or infinite
    /// coordinate or bad options, std::length_error if a rank would hold more points than
    /// the local tree's 32-bit ids can number (2^31). Nothing is built when it throws.
    distributed_orthtree(MPI_Comm comm, const point_type* points, std::size_t n, build_options options = {})
        : channel_(comm), options_(options) {
        build(points, n);
    }
    /// As above, from a contiguous range of point_type (std::vector, std::array, ...).
    template <class Range, class = std::enable_if_t<std::is_convertible<
                               decltype(std::data(std::declval<const Range&>())), const point_type*>::value>>
    distributed_orthtree(MPI_Comm comm, const Range& points, build_options options = {})
        : distributed_orthtree(comm, std::data(points), std::size(points), options) {}

    /// Global number of points (all ranks).
    std::uint64_t size() const noexcept { return global_size_; }
    /// Number of points this rank holds.
    std::size_t owned_size() const noexcept { return owned_ids_.size(); }
    /// Global ids of the points this rank holds, increasing. Row i of neighbor_lists and
    /// owned_points()[i] belong to owned_ids()[i].
    const std::vector<id_type>& owned_ids() const noexcept { return owned_ids_; }
    /// Coordinates of the points this rank holds, in owned_ids() order.
    const std::vector<point_type>& owned_points() const noexcept { return owned_points_; }
    /// The tree over this rank's points; its ids are positions in owned_ids().
    const local_tree_type& local_tree() const noexcept { return tree_; }
    /// Bytes this rank has addressed to other ranks through this index so far: the payload
    /// and counts of every exchange, and for gathers and reductions its contribution once
    /// per other rank (a logical count: MPI's own algorithms may move a little more or less
    /// for those small messages); nothing for sends to itself. Not collective.
    std::uint64_t bytes_sent() const noexcept { return channel_.bytes_sent(); }

    /// Row q holds the global ids of every point in the closed ball balls[q], increasing.
    /// Collective; each rank passes its own balls (any number, none included). Throws
    /// std::invalid_argument on every rank if a ball on any rank has a NaN or infinite
    /// centre or a NaN or negative radius.
    csr<id_type> query(const std::vector<ball_type>& balls) const {
        channel_.agree([&] {
            for (const ball_type& s : balls) quoct::detail::check_ball(s);
        });
        return sorted_rows(answer_routed<id_type>(
            balls, [](const ball_type& s, const box_type& b) { return intersects(s, b); },
            [&](const ball_type& s, std::vector<id_type>& out) { local_query(s, out); }));
    }
    /// Row q holds the points of query(balls)'s row q, each with its distance_sq from
    /// balls[q].center (the value the ball predicate compares with the radius squared),
    /// nearest first, equal distances by smaller global id. Collective; throws as
    /// query(balls).
    csr<neighbor_type> query_with_distances(const std::vector<ball_type>& balls) const {
        channel_.agree([&] {
            for (const ball_type& s : balls) quoct::detail::check_ball(s);
        });
        csr<neighbor_type> rows = answer_routed<neighbor_type>(
            balls, [](const ball_type& s, const box_type& b) { return intersects(s, b); },
            [&](const ball_type& s, std::vector<neighbor_type>& out) {
                thread_local std::vector<neighbor<T, std::uint32_t>> local;
                tree_.query(s, local);
                for (const auto& n : local) out.push_back(neighbor_type{owned_ids_[n.id], n.distance_sq});
            });
        for (std::size_t q = 0; q < rows.rows(); ++q)
            std::sort(rows.values.begin() + static_cast<std::ptrdiff_t>(rows.offsets[q]),
                      rows.values.begin() + static_cast<std::ptrdiff_t>(rows.offsets[q + 1]),
                      quoct::detail::knn_set<T, id_type, neighbor_type>::before);
        return rows;
    }
    /// As query(balls), for closed boxes (lo <= p <= hi). Throws std::invalid_argument on
    /// every rank for a NaN coordinate or an inverted box on any rank.
    csr<id_type> query(const std::vector<box_type>& boxes) const {
        channel_.agree([&] {
            for (const box_type& b : boxes) quoct::detail::check_box(b);
        });
        return sorted_rows(answer_routed<id_type>(
            boxes, [](const box_type& q, const box_type& b) { return intersects(q, b); },
            [&](const box_type& q, std::vector<id_type>& out) { local_query(q, out); }));
    }

    /// Number of points in each closed ball: the row sizes of query(balls). Collective;
    /// throws as query(balls).
    std::vector<std::uint64_t> count(const std::vector<ball_type>& balls) const {
        channel_.agree([&] {
            for (const ball_type& s : balls) quoct::detail::check_ball(s);
        });
        return summed(answer_routed<std::uint64_t>(
            balls, [](const ball_type& s, const box_type& b) { return intersects(s, b); },
            [&](const ball_type& s, std::vector<std::uint64_t>& out) { out.push_back(tree_.count(s)); }));
    }
    /// Number of points in each closed box. Collective; throws as query(boxes).
    std::vector<std::uint64_t> count(const std::vector<box_type>& boxes) const {
        channel_.agree([&] {
            for (const box_type& b : boxes) quoct::detail::check_box(b);
        });
        return summed(answer_routed<std::uint64_t>(
            boxes, [](const box_type& q, const box_type& b) { return intersects(q, b); },
            [&](const box_type& q, std::vector<std::uint64_t>& out) { out.push_back(tree_.count(q)); }));
    }

    /// Row q holds the min(k, size()) points nearest to points[q] over all ranks, closest
    /// first, equal distances by smaller global id, with their distance_sq: exactly the
    /// first k of all points by (squared distance, id), the squares unbounded where they
    /// overflow or underflow T, as orthtree::nearest orders them. Collective; k
    /// may differ between ranks. Two rounds: the rank whose region is nearest answers
    /// first, which bounds the distance; then only the ranks whose region lies within that
    /// bound are asked. Throws std::invalid_argument on every rank if k == 0 or a point has
    /// a NaN or infinite coordinate on any rank.
    csr<neighbor_type> nearest(const std::vector<point_type>& points, std::size_t k) const;

    /// Calls f(i, j, d2) (or f(i, j)) once for every pair of global ids i < j whose points lie within
    /// distance r (d2 = distance_sq <= r * r), on exactly one rank (one that owns i or j).
    /// Collective; r must be the same on every rank. f's return value, if any, is ignored
    /// (a distributed search does not stop early); an exception from f propagates on that
    /// rank only, after every collective step of the call. Throws std::invalid_argument
    /// on every rank for a NaN or negative r, or when the ranks pass different r.
    template <class F>
    void for_each_pair_within(T r, F&& f) const;

    /// Neighbour lists of this rank's points: row i holds, increasing, the global ids
    /// j != owned_ids()[i] of all points (any rank) within distance r of owned point i.
    /// Collective; throws as for_each_pair_within.
    csr<id_type> neighbor_lists(T r) const;

    /// Moves this rank's points: new_positions[i] is the new place of owned_points()[i]
    /// (global ids stay). Points that left this rank's key range migrate to their new
    /// owners; when that leaves some rank above the balance bound, the ranges are cut
    /// again by count. Collective. Throws std::invalid_argument on every rank if any rank
    /// passes the wrong number of positions or a NaN or infinite coordinate; the index is
    /// unchanged then.
    void update(const std::vector<point_type>& new_positions);

    /// The most points any rank may hold after build and update: the larger of
    /// ceil(size() / ranks) and floor(1.1 * size() / ranks), i.e. 1.1x the average once
    /// there are 10 points per rank or more.
    std::uint64_t balance_limit() const noexcept { return limit_for(global_size_); }

private:
    using record_type = detail::record<T, D>;

    void build(const point_type* points, std::size_t n);
    void check_points(const point_type* points, std::size_t n) const;
    box_type global_bounds(const point_type* points, std::size_t n) const;
    std::vector<record_type> make_records(const point_type* points, const std::uint64_t* ids, std::size_t n) const;
    void sample_sort(std::vector<record_type>& records) const;
    void route_by_splitters(std::vector<record_type>& records) const;
    void balance_exactly(std::vector<record_type>& records) const;
    void finish(std::vector<record_type>& records);
    std::vector<record_type> send_to(const std::vector<record_type>& records, const std::vector<std::size_t>& dest,
                                     std::vector<std::size_t>& recv_offsets) const;
    std::uint64_t limit_for(std::uint64_t n) const noexcept;

    template <class Shape>
    void local_query(const Shape& s, std::vector<id_type>& out) const {
        thread_local std::vector<std::uint32_t> local;
        tree_.query(s, local);
        std::sort(local.begin(), local.end());
        for (const std::uint32_t i : local) out.push_back(owned_ids_[i]);
    }

    /// Ranks whose region meets the shape (meets(shape, box) on one of its boxes).
    template <class Query, class Meets>
    void ranks_meeting(const Query& q, Meets& meets, std::vector<int>& out) const {
        out.clear();
        for (std::size_t r = 0; r < channel_.ranks(); ++r)
            for (std::size_t b = region_offsets_[r]; b < region_offsets_[r + 1]; ++b)
                if (meets(q, regions_[b])) {
                    out.push_back(static_cast<int>(r));
                    break;
                }
    }

    template <class V, class Query, class Meets, class Answer>
    csr<V> answer_routed(const std::vector<Query>& queries, Meets meets, Answer answer) const;

    /// nearest's two rounds: for each query, the candidate rows of the rank whose region is
    /// nearest (found), then of every other rank whose region lies within the bound that
    /// distance_of(k-th candidate found) gives (more); that bound also caps their searches.
    /// answer(request, rows) appends a rank's candidates.
    template <class V, class Answer, class DistanceOf>
    void nearest_rounds(const std::vector<point_type>& points, std::size_t k, Answer answer, DistanceOf distance_of,
                        csr<V>& found, csr<V>& more) const;
    /// nearest's two algorithms: in T, true with the answer in `out` unless a rank's squares
    /// may have overflowed or underflowed T (then nothing written); else the exact one.
    /// Collective, both.
    bool nearest_rounded(const std::vector<point_type>& points, std::size_t k, csr<neighbor_type>& out) const;
    void nearest_exact(const std::vector<point_type>& points, std::size_t k, csr<neighbor_type>& out) const;
    /// This rank's best within the request's bound, left in `local` nearest first (at most
    /// nearest_take(rq) of them); true when a kept distance may have overflowed or underflowed.
    bool local_nearest(const detail::nearest_request<T, D>& rq, std::vector<neighbor<T, std::uint32_t>>& local) const;
    std::size_t nearest_take(const detail::nearest_request<T, D>& rq) const;

    /// Sends requests[i] to rank to[i] (-1: nowhere); each receiver appends answer(request)
    /// as one row; returns, per request, the row it got (empty if not sent). Collective.
    template <class V, class Request, class Answer>
    csr<V> ask(const std::vector<Request>& requests, const std::vector<std::vector<int>>& to, Answer answer) const;

    static csr<id_type> sorted_rows(csr<id_type> rows) {
        for (std::size_t q = 0; q < rows.rows(); ++q)
            std::sort(rows.values.begin() + static_cast<std::ptrdiff_t>(rows.offsets[q]),
                      rows.values.begin() + static_cast<std::ptrdiff_t>(rows.offsets[q + 1]));
        return rows;
    }
    static std::vector<std::uint64_t> summed(const csr<std::uint64_t>& rows) {
        std::vector<std::uint64_t> out(rows.rows());
        for (std::size_t q = 0; q < rows.rows(); ++q)
            for (const std::uint64_t c : rows.row(q)) out[q] += c;
        return out;
    }

    /// The points of other ranks within r of this rank's region, sorted by global id.
    void gather_halo(T r, std::vector<id_type>& ids, std::vector<point_type>& pts) const;
    void check_pair_radius(T r) const;

    quoct::mpi::detail::channel channel_;
    build_options options_;
    std::uint64_t global_size_ = 0;
    box_type frame_{};  // the grid of the Morton keys
    std::vector<detail::order_key> lower_;  // rank r owns [lower_[r], lower_[r + 1]) (r >= 1 of size()-1 cuts)
    std::vector<id_type> owned_ids_;
    std::vector<point_type> owned_points_;
    local_tree_type tree_;
    std::vector<box_type> regions_;  // every rank's boxes
    std::vector<std::size_t> region_offsets_;  // rank r's are [region_offsets_[r], region_offsets_[r + 1])
};

/// A distributed quadtree (D = 2).
template <class T>
using distributed_quadtree = distributed_orthtree<T, 2>;
/// A distributed octree (D = 3).
template <class T>
using distributed_octree = distributed_orthtree<T, 3>;

// ---------------------------------------------------------------------------------------
// Implementation

template <class T, std::size_t D>
std::uint64_t distributed_orthtree<T, D>::limit_for(std::uint64_t n) const noexcept {
    const std::uint64_t p = channel_.ranks();
    // floor(11 n / (10 p)) without overflow: n = 10 p q + rem.
    const std::uint64_t q = n / (10 * p), rem = n % (10 * p);
    return std::max(n / p + (n % p != 0 ? 1 : 0), 11 * q + 11 * rem / (10 * p));
}

template <class T, std::size_t D>
void distributed_orthtree<T, D>::check_points(const point_type* points, std::size_t n) const {
    for (std::size_t i = 0; i < n; ++i)
        if (!is_finite(points[i]))
            throw std::invalid_argument("quoct: point " + std::to_string(i) + " has a NaN or infinite coordinate");
}

template <class T, std::size_t D>
auto distributed_orthtree<T, D>::global_bounds(const point_type* points, std::size_t n) const -> box_type {
    const box_type mine = quoct::detail::bounds_of(points, n);
    T lo[D], hi[D];
    for (std::size_t a = 0; a < D; ++a) lo[a] = mine.lo[a], hi[a] = mine.hi[a];
    channel_.all_reduce(lo, D, MPI_MIN);
    channel_.all_reduce(hi, D, MPI_MAX);
    box_type all;
    for (std::size_t a = 0; a < D; ++a) all.lo[a] = lo[a], all.hi[a] = hi[a];
    return all;
}

template <class T, std::size_t D>
auto distributed_orthtree<T, D>::make_records(const point_type* points, const std::uint64_t* ids, std::size_t n) const
    -> std::vector<record_type> {
    std::vector<record_type> records(n);
    if (n == 0) return records;
    const quoct::detail::quantizer<T, D> quant(frame_, quoct::detail::morton_bits<D>());
    for (std::size_t i = 0; i < n; ++i) records[i] = record_type{quant.key(points[i]), ids[i], points[i]};
    return records;
}

template <class T, std::size_t D>
void distributed_orthtree<T, D>::build(const point_type* points, std::size_t n) {
    channel_.agree([&] {
        if (options_.leaf_size == 0 || options_.max_depth > max_depth_limit)
            throw std::invalid_argument("quoct: build_options out of range");
        check_points(points, n);
    });
    const std::uint64_t first = channel_.exclusive_sum(n);
    global_size_ = channel_.all_reduce<std::uint64_t>(n, MPI_SUM);
    if (limit_for(global_size_) > std::numeric_limits<std::uint32_t>::max() / 2)
        throw std::length_error("quoct::mpi: " + std::to_string(global_size_) +
                                " points are too many for this number of ranks (2^31 per rank at most)");
    frame_ = global_bounds(points, n);
    std::vector<std::uint64_t> ids(n);
    for (std::size_t i = 0; i < n; ++i) ids[i] = first + i;
    std::vector<record_type> records = make_records(points, ids.data(), n);
    sample_sort(records);
    balance_exactly(records);
    finish(records);
}

// Sends records[i] to rank dest[i]; returns what arrived, in source-rank order.
template <class T, std::size_t D>
auto distributed_orthtree<T, D>::send_to(const std::vector<record_type>& records, const std::vector<std::size_t>& dest,
                                         std::vector<std::size_t>& recv_offsets) const -> std::vector<record_type> {
    const std::size_t p = channel_.ranks();
    std::vector<std::size_t> offsets(p + 1, 0);
    for (const std::size_t d : dest) ++offsets[d + 1];
    for (std::size_t r = 0; r < p; ++r) offsets[r + 1] += offsets[r];
    std::vector<record_type> out(records.size());
    std::vector<std::size_t> at(offsets.begin(), offsets.end() - 1);
    for (std::size_t i = 0; i < records.size(); ++i) out[at[dest[i]]++] = records[i];
    return channel_.exchange(out, offsets, recv_offsets);
}

// Sorts the records globally: local radix sort, splitters from weighted regular samples of
// every rank, one exchange, a merge of the sorted runs that arrive. The counts come out only roughly equal;
// balance_exactly evens them.
template <class T, std::size_t D>
void distributed_orthtree<T, D>::sample_sort(std::vector<record_type>& records) const {
    const std::size_t p = channel_.ranks();
    detail::sort_by_key(records);  // they come in id order
    if (p == 1) return;
    struct sample {
        detail::order_key at;
        double weight;
    };
    const std::size_t m = records.size(), s = std::min(m, 32 * p);
    std::vector<sample> mine(s);
    for (std::size_t i = 0; i < s; ++i)
        mine[i] = sample{detail::key_of(records[(2 * i + 1) * m / (2 * s)]), double(m) / double(s)};
    std::vector<std::size_t> offsets;
    std::vector<sample> all = channel_.all_gather(mine, offsets);
    std::sort(all.begin(), all.end(), [](const sample& a, const sample& b) { return a.at < b.at; });
    std::vector<detail::order_key> cuts;  // rank r gets [cuts[r - 1], cuts[r])
    double seen = 0;
    const double share = double(global_size_) / double(p);
    for (const sample& x : all) {
        seen += x.weight;
        while (cuts.size() + 1 < p && seen >= share * double(cuts.size() + 1)) cuts.push_back(x.at);
    }
    std::vector<std::size_t> dest(m);
    for (std::size_t i = 0; i < m; ++i)
        dest[i] = static_cast<std::size_t>(std::upper_bound(cuts.begin(), cuts.end(), detail::key_of(records[i])) -
                                           cuts.begin());
    std::vector<std::size_t> runs;
    records = send_to(records, dest, runs);
    detail::merge_runs(records, runs);
}

// Sends each record to the rank that owns it under the current cuts (lower_).
template <class T, std::size_t D>
void distributed_orthtree<T, D>::route_by_splitters(std::vector<record_type>& records) const {
    detail::sort_by_key(records);  // they come in id order
    std::vector<std::size_t> dest(records.size());
    for (std::size_t i = 0; i < records.size(); ++i)
        dest[i] = static_cast<std::size_t>(
            std::upper_bound(lower_.begin() + 1, lower_.end(), detail::key_of(records[i])) - (lower_.begin() + 1));
    std::vector<std::size_t> runs;
    records = send_to(records, dest, runs);
    detail::merge_runs(records, runs);
}

// The records are sorted within each rank and across ranks in rank order. Gives rank r
// exactly the global positions [r * N / P, (r + 1) * N / P): every rank floor or ceil of
// N / P. Each rank sends contiguous slices, mostly to its neighbours; what arrives is in
// order already.
template <class T, std::size_t D>
void distributed_orthtree<T, D>::balance_exactly(std::vector<record_type>& records) const {
    const std::uint64_t p = channel_.ranks(), n = global_size_;
    const std::uint64_t start = channel_.exclusive_sum(records.size());
    const auto bound = [&](std::uint64_t r) { return (n / p) * r + (n % p) * r / p; };
    std::vector<std::size_t> offsets(p + 1, 0);
    for (std::uint64_t r = 0; r < p; ++r) {
        const std::uint64_t b = std::max(start, bound(r)), e = std::min(start + records.size(), bound(r + 1));
        offsets[r + 1] = offsets[r] + static_cast<std::size_t>(e > b ? e - b : 0);
    }
    std::vector<std::size_t> recv_offsets;
    records = channel_.exchange(records, offsets, recv_offsets);
}

// Publishes the cuts and the region boxes, and builds the local tree, from this rank's
// records (sorted by key and id).
template <class T, std::size_t D>
void distributed_orthtree<T, D>::finish(std::vector<record_type>& records) {
    const std::size_t p = channel_.ranks();
    // Cuts: rank r starts at its first record; an empty rank at the next rank's start.
    struct first_record {
        detail::order_key at;
        std::uint64_t present;
    };
    std::vector<first_record> mine{{records.empty() ? detail::order_key{} : detail::key_of(records.front()),
                                    records.empty() ? 0u : 1u}};
    std::vector<std::size_t> offsets;
    const std::vector<first_record> firsts = channel_.all_gather(mine, offsets);
    const detail::order_key top{std::numeric_limits<std::uint64_t>::max(), std::numeric_limits<std::uint64_t>::max()};
    lower_.assign(p + 1, top);
    lower_[0] = detail::order_key{0, 0};
    for (std::size_t r = p - 1; r >= 1; --r) lower_[r] = firsts[r].present ? firsts[r].at : lower_[r + 1];

    // Region: runs of records sharing the longest Morton prefix that gives at most
    // region_boxes runs (counted for every prefix length in one pass), one tight box each.
    const unsigned digits = quoct::detail::morton_bits<D>();
    std::vector<std::size_t> differ_at(digits + 1, 0);
    std::vector<unsigned char> first_digit(records.size(), 0);  // where record i's key leaves record i - 1's
    for (std::size_t i = 1; i < records.size(); ++i)
        ++differ_at[first_digit[i] = static_cast<unsigned char>(
                        detail::first_difference<D>(records[i - 1].key, records[i].key, digits))];
    unsigned level = 0;
    for (std::size_t runs = 1; level < digits && runs + differ_at[level] <= region_boxes; ++level)
        runs += differ_at[level];
    std::vector<box_type> boxes;
    for (std::size_t i = 0; i < records.size(); ++i) {
        if (i == 0 || first_digit[i] < level)
            boxes.push_back(box_type{records[i].p, records[i].p});
        box_type& b = boxes.back();
        for (std::size_t a = 0; a < D; ++a) {
            b.lo[a] = std::min(b.lo[a], records[i].p[a]);
            b.hi[a] = std::max(b.hi[a], records[i].p[a]);
        }
    }
    regions_ = channel_.all_gather(boxes, region_offsets_);

    // The local tree, over the points in global id order (so local ids order as global ids).
    detail::sort_stably_by(records, [](const record_type& r) { return r.id; });
    owned_ids_.resize(records.size());
    owned_points_.resize(records.size());
    for (std::size_t i = 0; i < records.size(); ++i) owned_ids_[i] = records[i].id, owned_points_[i] = records[i].p;
    tree_ = local_tree_type(owned_points_, options_);
}

template <class T, std::size_t D>
void distributed_orthtree<T, D>::update(const std::vector<point_type>& new_positions) {
    channel_.agree([&] {
        if (new_positions.size() != owned_ids_.size())
            throw std::invalid_argument("quoct: update got " + std::to_string(new_positions.size()) +
                                        " positions for " + std::to_string(owned_ids_.size()) + " owned points");
        check_points(new_positions.data(), new_positions.size());
    });
    // Keys stay put while the points stay inside the grid; when some leave it, the grid
    // grows by a quarter of its extent on that side (so drifting points rarely re-key all).
    const box_type now = global_bounds(new_positions.data(), new_positions.size());
    for (std::size_t a = 0; a < D && global_size_ != 0; ++a) {
        T margin = (std::max(frame_.hi[a], now.hi[a]) - std::min(frame_.lo[a], now.lo[a])) / 4;
        if (!std::isfinite(margin)) margin = 0;
        if (now.lo[a] < frame_.lo[a]) frame_.lo[a] = std::max(now.lo[a] - margin, -std::numeric_limits<T>::max());
        if (now.hi[a] > frame_.hi[a]) frame_.hi[a] = std::min(now.hi[a] + margin, std::numeric_limits<T>::max());
    }
    std::vector<record_type> records = make_records(new_positions.data(), owned_ids_.data(), owned_ids_.size());
    route_by_splitters(records);
    const std::uint64_t most = channel_.all_reduce<std::uint64_t>(records.size(), MPI_MAX);
    if (most > limit_for(global_size_)) balance_exactly(records);
    finish(records);
}

template <class T, std::size_t D>
template <class V, class Request, class Answer>
csr<V> distributed_orthtree<T, D>::ask(const std::vector<Request>& requests, const std::vector<std::vector<int>>& to,
                                       Answer answer) const {
    const std::size_t p = channel_.ranks();
    // Requests grouped by destination, remembering which of ours each one is.
    std::vector<std::size_t> offsets(p + 1, 0);
    for (const auto& ranks : to)
        for (const int r : ranks) ++offsets[static_cast<std::size_t>(r) + 1];
    for (std::size_t r = 0; r < p; ++r) offsets[r + 1] += offsets[r];
    std::vector<Request> outgoing(offsets[p]);
    std::vector<std::size_t> origin(offsets[p]);
    {
        std::vector<std::size_t> at(offsets.begin(), offsets.end() - 1);
        for (std::size_t q = 0; q < requests.size(); ++q)
            for (const int r : to[q]) {
                origin[at[static_cast<std::size_t>(r)]] = q;
                outgoing[at[static_cast<std::size_t>(r)]++] = requests[q];
            }
    }
    std::vector<std::size_t> in_offsets;
    const std::vector<Request> incoming = channel_.exchange(outgoing, offsets, in_offsets);

    // Answers: one row per incoming request, lengths and values sent back separately.
    std::vector<std::uint64_t> lengths(incoming.size());
    std::vector<V> values;
    for (std::size_t i = 0; i < incoming.size(); ++i) {
        const std::size_t before = values.size();
        answer(incoming[i], values);
        lengths[i] = values.size() - before;
    }
    std::vector<int> asked(p);
    for (std::size_t r = 0; r < p; ++r) asked[r] = static_cast<int>(offsets[r + 1] - offsets[r]);
    std::vector<std::size_t> length_offsets;
    const std::vector<std::uint64_t> got_lengths = channel_.exchange_known(lengths, in_offsets, asked, length_offsets);
    std::vector<std::size_t> value_offsets(p + 1, 0);
    for (std::size_t r = 0; r < p; ++r) {
        std::size_t sum = 0;
        for (std::size_t i = in_offsets[r]; i < in_offsets[r + 1]; ++i) sum += lengths[i];
        value_offsets[r + 1] = value_offsets[r] + sum;
    }
    std::vector<int> expected(p);
    for (std::size_t r = 0; r < p; ++r) {
        std::uint64_t sum = 0;
        for (std::size_t i = offsets[r]; i < offsets[r + 1]; ++i) sum += got_lengths[i];
        expected[r] = quoct::mpi::detail::checked_count(sum, channel_.comm());
    }
    std::vector<std::size_t> got_offsets;
    const std::vector<V> got = channel_.exchange_known(values, value_offsets, expected, got_offsets);

    // Rows back by request: replies arrive in the order the requests were sent.
    csr<V> rows;
    rows.offsets.assign(requests.size() + 1, 0);
    for (std::size_t i = 0; i < origin.size(); ++i) rows.offsets[origin[i] + 1] += got_lengths[i];
    for (std::size_t q = 0; q < requests.size(); ++q) rows.offsets[q + 1] += rows.offsets[q];
    rows.values.resize(rows.offsets.back());
    std::vector<std::size_t> fill(rows.offsets.begin(), rows.offsets.end() - 1);
    std::size_t from = 0;
    for (std::size_t i = 0; i < origin.size(); ++i) {
        const std::size_t len = static_cast<std::size_t>(got_lengths[i]);
        std::copy(got.begin() + static_cast<std::ptrdiff_t>(from), got.begin() + static_cast<std::ptrdiff_t>(from + len),
                  rows.values.begin() + static_cast<std::ptrdiff_t>(fill[origin[i]]));
        fill[origin[i]] += len;
        from += len;
    }
    return rows;
}

template <class T, std::size_t D>
template <class V, class Query, class Meets, class Answer>
csr<V> distributed_orthtree<T, D>::answer_routed(const std::vector<Query>& queries, Meets meets, Answer answer) const {
    std::vector<std::vector<int>> to(queries.size());
    for (std::size_t q = 0; q < queries.size(); ++q) ranks_meeting(queries[q], meets, to[q]);
    return ask<V>(queries, to, answer);
}

template <class T, std::size_t D>
template <class V, class Answer, class DistanceOf>
void distributed_orthtree<T, D>::nearest_rounds(const std::vector<point_type>& points, std::size_t k, Answer answer,
                                                DistanceOf distance_of, csr<V>& found, csr<V>& more) const {
    using request = detail::nearest_request<T, D>;
    const T inf = std::numeric_limits<T>::infinity();
    // Round 1: the rank whose region is nearest (ties: the lowest rank).
    std::vector<request> requests(points.size());
    std::vector<std::vector<int>> first(points.size());
    std::vector<int> chosen(points.size(), -1);
    for (std::size_t q = 0; q < points.size(); ++q) {
        requests[q] = request{points[q], inf, k};
        T best = inf;
        for (std::size_t r = 0; r < channel_.ranks(); ++r)
            for (std::size_t b = region_offsets_[r]; b < region_offsets_[r + 1]; ++b) {
                const T d = distance_sq(points[q], regions_[b]);
                if (chosen[q] < 0 || d < best) best = d, chosen[q] = static_cast<int>(r);
            }
        if (chosen[q] >= 0) first[q].push_back(chosen[q]);
    }
    found = ask<V>(requests, first, answer);

    // Round 2: every other rank with a region box no farther than the k-th distance so far
    // (inclusive: a point tied with it may have a smaller id). A rounded distance_sq is
    // monotone in the unbounded one, and a region's is at most its points', so no rank
    // holding a point that can enter is left out.
    std::vector<std::vector<int>> second(points.size());
    for (std::size_t q = 0; q < points.size(); ++q) {
        const auto row = found.row(q);
        requests[q].bound_sq = row.size() == k ? distance_of(row[k - 1]) : inf;
        for (std::size_t r = 0; r < channel_.ranks(); ++r) {
            if (static_cast<int>(r) == chosen[q]) continue;
            for (std::size_t b = region_offsets_[r]; b < region_offsets_[r + 1]; ++b)
                if (distance_sq(points[q], regions_[b]) <= requests[q].bound_sq) {
                    second[q].push_back(static_cast<int>(r));
                    break;
                }
        }
    }
    more = ask<V>(requests, second, answer);
}

template <class T, std::size_t D>
auto distributed_orthtree<T, D>::nearest(const std::vector<point_type>& points, std::size_t k) const
    -> csr<neighbor_type> {
    channel_.agree([&] {
        quoct::detail::check_k(k);
        for (const point_type& p : points) quoct::detail::check_point(p, "nearest query point");
    });
    csr<neighbor_type> out;
    out.offsets.assign(points.size() + 1, 0);
    if (!nearest_rounded(points, k, out)) nearest_exact(points, k, out);
    return out;
}

template <class T, std::size_t D>
std::size_t distributed_orthtree<T, D>::nearest_take(const detail::nearest_request<T, D>& rq) const {
    return static_cast<std::size_t>(std::min<std::uint64_t>(rq.k, tree_.size()));
}

template <class T, std::size_t D>
bool distributed_orthtree<T, D>::local_nearest(const detail::nearest_request<T, D>& rq,
                                               std::vector<neighbor<T, std::uint32_t>>& local) const {
    const T flip = quoct::detail::radius_bound<T, D>::flip_bound();
    quoct::detail::knn_set<T, std::uint32_t> set(local, nearest_take(rq), rq.bound_sq);
    tree_.search_nearest(quoct::detail::euclidean_nearest_metric<T, D>{rq.p}, set,
                         [&set](std::uint32_t id, T d) { set.offer(id, d); });
    const bool odd = set.kept_at_the_ends(flip, [&](std::uint32_t id) { return owned_points_[id] == rq.p; });
    set.finish();
    return odd;
}

// The usual path, distances in T: a rank answers with its k best within the bound, the
// core's search feeding the one k-nearest engine (detail/knn.hpp), its limit the bound in
// distance_sq. A rank that kept a distance outside (flip_bound, infinity), other than a
// query's own point, says so: that square may have overflowed or underflowed T, where ties
// in T are not ties of the distances.
template <class T, std::size_t D>
bool distributed_orthtree<T, D>::nearest_rounded(const std::vector<point_type>& points, std::size_t k,
                                                 csr<neighbor_type>& out) const {
    using request = detail::nearest_request<T, D>;
    bool doubtful = false;
    const auto answer = [&](const request& rq, std::vector<neighbor_type>& rows) {
        if (tree_.empty()) return;
        thread_local std::vector<neighbor<T, std::uint32_t>> local;
        if (local_nearest(rq, local)) doubtful = true;
        for (const auto& x : local) rows.push_back(neighbor_type{owned_ids_[x.id], x.distance_sq});
    };
    csr<neighbor_type> found, more;
    nearest_rounds<neighbor_type>(points, k, answer, [](const neighbor_type& v) { return v.distance_sq; }, found, more);
    if (channel_.all_reduce(std::uint64_t{doubtful}, MPI_MAX) != 0) return false;
    // Every distance is the unbounded one rounded, so the order in T is exact: every rank's
    // candidates offered to one k-nearest set per query (the ranks hold disjoint points, so
    // each id is offered once).
    std::vector<neighbor_type> best;
    for (std::size_t q = 0; q < points.size(); ++q) {
        quoct::detail::knn_set<T, id_type> set(best, k);
        for (const neighbor_type& c : found.row(q)) set.offer(c.id, c.distance_sq);
        for (const neighbor_type& c : more.row(q)) set.offer(c.id, c.distance_sq);
        set.finish();
        out.values.insert(out.values.end(), best.begin(), best.end());
        out.offsets[q + 1] = out.values.size();
    }
    return true;
}

// Some rank's squares may have overflowed or underflowed T (coordinates near the ends of its
// range; rare): the two rounds again, each rank answering with its k best in the exact order
// (the tree's exact nearest where its own search was doubtful, uncapped: a superset of what
// can enter) and each candidate's unbounded squared distance, measured from its copy of the
// point; the ranks' answers merge by (that distance, id), each reported rounded to T, as
// orthtree::nearest reports it.
template <class T, std::size_t D>
void distributed_orthtree<T, D>::nearest_exact(const std::vector<point_type>& points, std::size_t k,
                                               csr<neighbor_type>& out) const {
    using request = detail::nearest_request<T, D>;
    using candidate = detail::nearest_candidate<T>;
    const T flip = quoct::detail::radius_bound<T, D>::flip_bound();
    const auto answer_exact = [&](const request& rq, std::vector<candidate>& rows) {
        if (tree_.empty()) return;
        thread_local std::vector<neighbor<T, std::uint32_t>> local;
        if (local_nearest(rq, local)) tree_.nearest(rq.p, nearest_take(rq), local);
        for (const auto& x : local)
            rows.push_back(candidate{owned_ids_[x.id], quoct::detail::wide_sum_sq<T, D>(quoct::detail::point_offsets<T, D>{
                                                           owned_points_[x.id], rq.p})});
    };
    csr<candidate> found_exact, more_exact;
    // Round 2's bound: the k-th distance rounded to T, and never below flip_bound, where a
    // point's rounded square may exceed that of a farther point (as run_nearest_sq bounds
    // its exact pass): every point that can enter then passes it, rounded as T rounds it.
    nearest_rounds<candidate>(
        points, k, answer_exact,
        [flip](const candidate& c) { return std::max(flip, quoct::detail::wide_value(c.d)); }, found_exact,
        more_exact);
    std::vector<candidate> all;
    for (std::size_t q = 0; q < points.size(); ++q) {
        all.assign(found_exact.row(q).begin(), found_exact.row(q).end());
        all.insert(all.end(), more_exact.row(q).begin(), more_exact.row(q).end());
        quoct::detail::append_wide_best(all, k, out.values);  // (run_nearest_sq's merge)
        out.offsets[q + 1] = out.values.size();
    }
}

template <class T, std::size_t D>
void distributed_orthtree<T, D>::check_pair_radius(T r) const {
    channel_.agree([&] { quoct::detail::check_radius(r, "pair search"); });
    const T lo = channel_.all_reduce(r, MPI_MIN), hi = channel_.all_reduce(r, MPI_MAX);
    channel_.agree([&] {
        if (lo != hi) throw std::invalid_argument("quoct: the ranks passed different pair search radii");
    });
}

template <class T, std::size_t D>
void distributed_orthtree<T, D>::gather_halo(T r, std::vector<id_type>& ids, std::vector<point_type>& pts) const {
    using halo = detail::halo_point<T, D>;
    using near_box = typename quoct::detail::euclidean_pair_metric<T, D>::near_box;
    const std::size_t p = channel_.ranks();
    std::vector<halo> outgoing;
    std::vector<std::size_t> offsets(p + 1, 0);
    std::vector<char> taken(owned_ids_.size(), 0);
    std::vector<std::uint32_t> picked;
    for (std::size_t q = 0; q < p; ++q) {
        if (static_cast<int>(q) != channel_.rank()) {
            // Points within r of one of q's boxes (a superset of those within r of a point of
            // the box by the ball predicate: radius_bound's sure_out).
            picked.clear();
            const quoct::detail::radius_bound<T, D> bound(r);
            for (std::size_t b = region_offsets_[q]; b < region_offsets_[q + 1]; ++b)
                tree_.visit_shape(near_box{regions_[b], bound.sure_in, bound.sure_out}, [&](std::uint32_t i, const point_type&) {
                    if (!taken[i]) taken[i] = 1, picked.push_back(i);
                });
            for (const std::uint32_t i : picked) {
                taken[i] = 0;
                outgoing.push_back(halo{owned_ids_[i], owned_points_[i]});
            }
        }
        offsets[q + 1] = outgoing.size();
    }
    std::vector<std::size_t> in_offsets;
    std::vector<halo> incoming = channel_.exchange(outgoing, offsets, in_offsets);
    std::sort(incoming.begin(), incoming.end(), [](const halo& a, const halo& b) { return a.id < b.id; });
    ids.resize(incoming.size());
    pts.resize(incoming.size());
    for (std::size_t i = 0; i < incoming.size(); ++i) ids[i] = incoming[i].id, pts[i] = incoming[i].p;
}

template <class T, std::size_t D>
template <class F>
void distributed_orthtree<T, D>::for_each_pair_within(T r, F&& f) const {
    check_pair_radius(r);
    std::vector<id_type> halo_ids;
    std::vector<point_type> halo_points;
    gather_halo(r, halo_ids, halo_points);
    const local_tree_type halo_tree(halo_points, options_);
    const auto call = [&](id_type i, id_type j, T d2) {
        if constexpr (std::is_invocable<F&, id_type, id_type, T>::value) f(i, j, d2);
        else f(i, j);
    };
    // Local ids order as global ids, so i < j locally means the same globally.
    quoct::for_each_pair_within(tree_, r, [&](std::uint32_t i, std::uint32_t j, T d2) {
        call(owned_ids_[i], owned_ids_[j], d2);
    });
    // A pair across two ranks is seen from both; the rank that owns the smaller id reports it.
    quoct::for_each_pair_within(tree_, halo_tree, r, [&](std::uint32_t i, std::uint32_t j, T d2) {
        if (owned_ids_[i] < halo_ids[j]) call(owned_ids_[i], halo_ids[j], d2);
    });
}

template <class T, std::size_t D>
auto distributed_orthtree<T, D>::neighbor_lists(T r) const -> csr<id_type> {
    check_pair_radius(r);
    std::vector<id_type> halo_ids;
    std::vector<point_type> halo_points;
    gather_halo(r, halo_ids, halo_points);
    const local_tree_type halo_tree(halo_points, options_);
    const csr<std::uint32_t> mine = quoct::neighbor_lists(tree_, r);
    const csr<std::uint32_t> theirs = quoct::neighbor_lists(tree_, halo_tree, r);
    csr<id_type> out;
    out.offsets.assign(owned_ids_.size() + 1, 0);
    out.values.reserve(mine.values.size() + theirs.values.size());
    for (std::size_t i = 0; i < owned_ids_.size(); ++i) {
        // Both rows are increasing in local ids, hence in global ids: merge them.
        const auto a = mine.row(i), b = theirs.row(i);
        const std::uint32_t *x = a.begin(), *y = b.begin();
        while (x != a.end() || y != b.end()) {
            if (y == b.end() || (x != a.end() && owned_ids_[*x] < halo_ids[*y])) out.values.push_back(owned_ids_[*x++]);
            else out.values.push_back(halo_ids[*y++]);
        }
        out.offsets[i + 1] = out.values.size();
    }
    return out;
}

}  // namespace mpi
}  // namespace quoct

#endif  // QUOCT_MPI_HPP
