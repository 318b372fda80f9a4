// quoct: all neighbour pairs within a radius, in one index or between two, serial or on
// std::threads, as callbacks, a pair list or CSR neighbour lists. Optional header;
// standard library only.
//
// The predicate is the core's: points p, q are neighbours when distance_sq(p, q) <= r * r,
// with r in coordinate units (never squared). On a periodic_index (quoct/periodic.hpp) the
// distance is its minimum-image distance instead.
//
// Methods. neighbor_lists, on float or double points with the Euclidean distance (an
// orthtree, a dynamic_orthtree, or arrays of points) on a CPU with AVX2 or AVX-512 (and
// with per-point radii everywhere), uses cells of the search radius
// (detail/cell_lists.hpp): the points are sorted into cells slightly wider than r, each
// cell gathers the points of the cells around it that lie within r of its bounding box,
// and every point tests those with vector kernels (detail/pair_kernels.hpp: AVX-512, AVX2
// or portable loops, chosen at run time, all computing distance_sq exactly as the core
// does). A first pass counts every row, a second writes each row, sorted, into its place
// in the table, so no list is ever copied. neighbor_order gives that engine's order;
// particles kept in it get rows that come out of the search already sorted.
//
// Everything else (pairs once each, callbacks, periodic indexes, long double, radii whose
// squares leave T's plain range, non-finite coordinates read from a file, other CPUs and
// compilers) uses blocks: the
// points are taken in the tree's Morton order and cut into blocks of nearby points (one
// cell of a grid aligned with the tree's Morton cells, about 2r wide, wider where that
// would hold only a few points; at most 128 points). One query per block, for the points
// within r of the block's bounds, gathers the candidates; every point of the block then
// tests every candidate with the exact predicate. for_each_pair_within and pairs_within
// also drop the candidates in grid cells that come before the block's (their pairs were
// found from the other side). Both methods give exactly what one ball query per point
// would give. Functions that take `threads` split the work among that many std::threads
// (0: one per hardware thread) and return the same result for any count.
//
// Works on quoct::orthtree, quoct::dynamic_orthtree and quoct::periodic_index. Reading
// only: the index must not be modified meanwhile.
#ifndef QUOCT_PAIRS_HPP
#define QUOCT_PAIRS_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/cell_lists.hpp"
#include "detail/pair_kernels.hpp"
#include "detail/callback.hpp"
#include "detail/morton.hpp"
#include "detail/pair_metric.hpp"
#include "detail/query_shapes.hpp"
#include "detail/sorting.hpp"
#include "detail/threads.hpp"
#include "detail/validate.hpp"
#include "shapes.hpp"
#include "parallel.hpp"
#include "concepts.hpp"

namespace quoct {
namespace detail {

/// The index's PairMetric (metric_of), checked: an index's metric() must be one.
template <class Index>
auto pair_metric_of(const Index& index) {
    using T = typename Index::scalar_type;
    constexpr std::size_t D = Index::dimension;
    static_assert(is_pair_metric_v<decltype(metric_of(index)), Index, T, D>,
                  "quoct: an index's metric() must be a PairMetric, which needs T distance_sq(a, b) const, T "
                  "axis_distance(axis, x, y) const, quoct::wide<T> wide_axis_distance(axis, x, y) const and bool "
                  "visit_near(index, region, r, f) const (docs/extending/pair-metric.md)");
    return metric_of(index);
}

/// The points of an index in its enumeration order (Morton order), with their ids, cut into blocks.
template <class T, std::size_t D, class Id>
struct ordered_points {
    std::vector<Id> ids;
    std::vector<point<T, D>> pts;
    std::vector<std::size_t> block_starts;  // blocks are [block_starts[b], block_starts[b + 1])
    // The block grid: cell a-coordinate of p is (p[a] - lo[a]) * scale[a], in [0, 2^level).
    double lo[D] = {};
    double scale[D] = {};
    double top = 0;  // 2^level - 1
    int level = 0;

    std::uint64_t cell(const point<T, D>& p, std::size_t a) const noexcept {
        const double t = (double(p[a]) - lo[a]) * scale[a];
        return static_cast<std::uint64_t>(t < 0 ? 0.0 : t < top ? t : top);
    }
    /// The row-major index of p's cell (on at most 63 / D bits per axis): a function of the
    /// coordinates alone, the same for all points of a block. Of the 3^D cells around a
    /// block's, about half come before it in this order.
    std::uint64_t key(const point<T, D>& p) const noexcept {
        const unsigned bits = std::min(static_cast<unsigned>(level), static_cast<unsigned>(63 / D));
        const unsigned drop = static_cast<unsigned>(level) - bits;
        std::uint64_t k = 0;
        for (std::size_t a = 0; a < D; ++a) k |= (cell(p, a) >> drop) << (a * bits);
        return k;
    }
};

// Tuned on uniform 3D data (30 neighbours): cells about 2r wide, measured best between
// 1.5r and 2.5r; a bigger cap only matters for dense clusters.
constexpr std::size_t block_max_points = 128;
constexpr double block_extent = 1.4;  // cells are in [1.4 r, 2.8 r)

// Coarsening of the block grid for sparse neighbourhoods (order_points): measured on
// uniform 3D data with 4 neighbours per point, where the 1.4 r cells hold a few points;
// below the 20 or more points per block of the tuned case (30 neighbours), so that is unchanged.
constexpr double block_min_points = 16;
constexpr int block_coarsen = 3;

/// The end of the block starting at b: the run of points in b's cell, at most
/// block_max_points long.
template <class T, std::size_t D, class Id>
std::size_t block_end(const ordered_points<T, D, Id>& o, std::size_t b) {
    std::size_t e = b + 1;
    for (; e < o.pts.size() && e - b < block_max_points; ++e) {
        bool same = true;
        for (std::size_t a = 0; a < D; ++a) same = same && o.cell(o.pts[e], a) == o.cell(o.pts[b], a);
        if (!same) break;
    }
    return e;
}

/// The mean over the points of the number of points in its block (o.block_starts set).
template <class T, std::size_t D, class Id>
double mean_block(const ordered_points<T, D, Id>& o) {
    double sum = 0;
    for (std::size_t b = 0; b + 1 < o.block_starts.size(); ++b) {
        const double size = double(o.block_starts[b + 1] - o.block_starts[b]);
        sum += size * size;
    }
    return sum / double(o.pts.size());
}

template <class Index>
auto order_points(const Index& index, typename Index::scalar_type r) {
    using T = typename Index::scalar_type;
    constexpr std::size_t D = Index::dimension;
    using Id = typename Index::id_type;
    ordered_points<T, D, Id> o;
    // The indexes enumerate in their trees' Morton order already (a dynamic index's recent
    // changes excepted, which then form blocks of one point).
    o.ids.reserve(index.size());
    o.pts.reserve(index.size());
    for_each_point(index, [&](Id id, const point<T, D>& p) {
        o.ids.push_back(id);
        o.pts.push_back(p);
    });
    // Blocks: runs of consecutive points in one cell of a grid aligned with the tree's
    // Morton cells (the bounds cut in 2^level per axis), the level chosen so that the
    // cells are about block_extent * r wide; at most block_max_points per block.
    const std::size_t n = o.pts.size();
    const box<T, D> all = bounds_of(o.pts.data(), n);
    double widest = 0;
    for (std::size_t a = 0; a < D && n != 0; ++a) widest = std::max(widest, double(all.hi[a]) - double(all.lo[a]));
    const double target = block_extent * static_cast<double>(r);
    int level = 0;
    while (level < 40 && widest / std::ldexp(1.0, level + 1) >= target) ++level;
    const auto set_level = [&](int l) {
        o.level = l;
        o.top = std::ldexp(1.0, l) - 1;
        for (std::size_t a = 0; a < D && n != 0; ++a) {
            const double extent = double(all.hi[a]) - double(all.lo[a]);
            o.lo[a] = double(all.lo[a]);
            o.scale[a] = extent > 0 && std::isfinite(extent) ? std::ldexp(1.0, l) / extent : 0.0;
        }
    };
    const auto cut_blocks = [&](int l) {
        set_level(l);
        o.block_starts.clear();
        for (std::size_t b = 0; b < n; b = block_end(o, b)) o.block_starts.push_back(b);
        o.block_starts.push_back(n);
    };
    cut_blocks(level);
    // Few neighbours per point leave few points per cell, and each block's tree descent
    // then serves only a handful: coarser cells (at most block_coarsen levels) while a
    // point's block holds fewer than block_min_points on average over the points.
    for (int c = 0; c < block_coarsen && level > 0 && n != 0 && mean_block(o) < block_min_points; ++c)
        cut_blocks(--level);
    return o;
}

/// Candidate points gathered for one block, axis by axis, reused between blocks.
template <class T, std::size_t D, class Id>
struct candidates {
    std::vector<Id> ids;
    std::vector<T> coords[D];
    std::vector<T> dist_sq;
    std::vector<std::uint32_t> hit;
    std::vector<unsigned char> after;  // half mode: the candidate's cell comes after the block's

    void clear() {
        ids.clear();
        for (auto& c : coords) c.clear();
        after.clear();
    }
};

/// For block [b, e) of `o`, calls emit(k, j, d2) for every stored point k in [b, e) and
/// every point j of `target` with metric distance_sq d2 <= r * r, grouped by k in
/// increasing k. Returns false if emit stopped it.
///
/// Half (target is the index `o` came from): only pairs with (key(p_k), id_k) <
/// (key(q), id_q) are emitted, so each unordered pair of distinct points comes out once,
/// from the point earlier in that order; candidates whose cell key is below the block's
/// are dropped before any distance is computed (about half of them).
template <bool Half = false, class Metric, class Target, class T, std::size_t D, class Id, class Emit>
bool block_neighbors(const Metric& metric, const Target& target, const ordered_points<T, D, Id>& o, std::size_t b,
                     std::size_t e, T r, candidates<T, D, typename Target::id_type>& cand, Emit&& emit) {
    using TId = typename Target::id_type;
    box<T, D> region{o.pts[b], o.pts[b]};
    for (std::size_t k = b + 1; k < e; ++k)
        for (std::size_t a = 0; a < D; ++a) {
            region.lo[a] = std::min(region.lo[a], o.pts[k][a]);
            region.hi[a] = std::max(region.hi[a], o.pts[k][a]);
        }
    cand.clear();
    const std::uint64_t block_key = Half ? o.key(o.pts[b]) : 0;
    metric.visit_near(target, region, r, [&](TId j, const point<T, D>& q) {
        if constexpr (Half) {
            const std::uint64_t k = o.key(q);
            if (k < block_key) return;
            cand.after.push_back(k > block_key ? 1u : 0u);
        }
        cand.ids.push_back(j);
        for (std::size_t a = 0; a < D; ++a) cand.coords[a].push_back(q[a]);
    });
    const std::size_t nc = cand.ids.size();
    cand.dist_sq.resize(nc);
    cand.hit.resize(nc);
    const radius_bound<T, D> bound(r);
    const T r_sq = bound.r_sq;
    for (std::size_t k = b; k < e; ++k) {
        const point<T, D>& p = o.pts[k];
        T* dist = cand.dist_sq.data();
        for (std::size_t c = 0; c < nc; ++c) dist[c] = 0;
        // Axis by axis, in the core's order, so the sums round exactly as distance_sq's.
        for (std::size_t a = 0; a < D; ++a) {
            const T* col = cand.coords[a].data();
            for (std::size_t c = 0; c < nc; ++c) {
                const T d = metric.axis_distance(a, p[a], col[c]);
                dist[c] += d * d;
            }
        }
        // Branch-free compaction of the hits, then the (few) calls. A radius at the ends of
        // T's range (not plain) takes radius_bound's test instead, point by point.
        std::size_t hits = 0;
        if (!bound.plain) {
            [[maybe_unused]] const TId me = static_cast<TId>(o.ids[k]);
            for (std::size_t c = 0; c < nc; ++c) {
                if constexpr (Half)
                    if (!(cand.after[c] != 0 || cand.ids[c] > me)) continue;
                const bool in = bound.admits(dist[c], [&](std::size_t a) {
                    return metric.wide_axis_distance(a, p[a], cand.coords[a][c]);
                });
                if (in) cand.hit[hits++] = static_cast<std::uint32_t>(c);
            }
        } else if constexpr (Half) {
            const TId me = static_cast<TId>(o.ids[k]);
            const unsigned char* after = cand.after.data();
            const TId* ids = cand.ids.data();
            for (std::size_t c = 0; c < nc; ++c) {
                cand.hit[hits] = static_cast<std::uint32_t>(c);
                hits += (dist[c] <= r_sq) & ((after[c] != 0) | (ids[c] > me)) ? 1u : 0u;
            }
        } else {
            for (std::size_t c = 0; c < nc; ++c) {
                cand.hit[hits] = static_cast<std::uint32_t>(c);
                hits += dist[c] <= r_sq ? 1u : 0u;
            }
        }
        for (std::size_t h = 0; h < hits; ++h) {
            const std::size_t c = cand.hit[h];
            if (!go_on(emit, k, cand.ids[c], dist[c])) return false;
        }
    }
    return true;
}

/// block_neighbors over the blocks [first, last) of o, in order; false as soon as emit
/// stopped one.
template <bool Half = false, class Metric, class Target, class T, std::size_t D, class Id, class Emit>
bool blocks_neighbors(const Metric& metric, const Target& target, const ordered_points<T, D, Id>& o, std::size_t first,
                      std::size_t last, T r, candidates<T, D, typename Target::id_type>& cand, Emit&& emit) {
    for (std::size_t bl = first; bl < last; ++bl)
        if (!block_neighbors<Half>(metric, target, o, o.block_starts[bl], o.block_starts[bl + 1], r, cand, emit)) return false;
    return true;
}

template <class T>
void check_pair_radius(T r) {
    check_radius(r, "pair search");
}

/// Calls f(i, j, d2) or f(i, j), whichever f takes.
template <class F, class Id, class T>
bool call_pair(F& f, Id i, Id j, T d2) {
    if constexpr (std::is_invocable<F&, Id, Id, T>::value) return go_on(f, i, j, d2);
    else return go_on(f, i, j);
}

/// Is Metric the plain Euclidean metric (the cell engine's distance)?
template <class Metric, class T, std::size_t D>
constexpr bool is_euclidean = std::is_same<Metric, euclidean_pair_metric<T, D>>::value;

/// Row filters of rows_within: every point but the row's own (one index), or every point
/// (two indexes). cell_engine: the cell engine knows the filter.
template <class IdA, class IdB>
struct keep_others {
    static constexpr bool cell_engine = true, self = true;
    bool operator()(IdA i, IdB j) const noexcept { return i != j; }
};
template <class IdA, class IdB>
struct keep_all {
    static constexpr bool cell_engine = true, self = false;
    bool operator()(IdA, IdB) const noexcept { return true; }
};

/// Neighbour rows for every point of `source` among the points of `target`, by source
/// id, sorted; keep(i, j) filters (self, half or all).
template <class Source, class Target, class Keep>
csr<typename Target::id_type> rows_within(const Source& source, const Target& target, typename Source::scalar_type r,
                                          unsigned threads, Keep&& keep) {
    using T = typename Source::scalar_type;
    constexpr std::size_t D = Source::dimension;
    using TId = typename Target::id_type;
    check_pair_radius(r);
    const auto metric = pair_metric_of(target);
    // Euclidean float or double with a plain radius, on a CPU with vector kernels: the cell
    // engine (detail/cell_lists.hpp). Without them the blocks below are faster (measured:
    // the portable loops leave the cell engine at 1.3x the blocks' time).
    if constexpr (is_euclidean<std::decay_t<decltype(metric)>, T, D> && std::decay_t<Keep>::cell_engine &&
                  kernels::has_vector_kernels<T>) {
        if (radius_bound<T, D>(r).plain && kernels::active_level() != kernels::level::portable) {
            csr<TId> table;
            const auto source_points = cells::points_of(source);
            bool done = false;
            if constexpr (std::decay_t<Keep>::self) {
                done = cells::neighbour_rows(source_points, source_points, r, id_bound(source), threads, true,
                                             table.offsets, table.values);
            } else {
                const auto target_points = cells::points_of(target);
                done = cells::neighbour_rows(source_points, target_points, r, id_bound(source), threads, false,
                                             table.offsets, table.values);
            }
            if (done) return table;
        }
    }
    const auto o = order_points(source, r);
    const std::size_t blocks = o.block_starts.size() - 1;
    constexpr std::size_t blocks_per_chunk = 64;
    const std::size_t chunks = (blocks + blocks_per_chunk - 1) / blocks_per_chunk;
    std::vector<chunk_rows<TId>> outs(chunks);
    const unsigned bits = id_bits(id_bound(target));
    for_each_chunk(chunks, threads, [&](std::size_t c) {
        candidates<T, D, TId> cand;
        std::vector<TId> scratch;
        chunk_rows<TId>& out = outs[c];
        const std::size_t b_end = std::min(blocks, (c + 1) * blocks_per_chunk);
        const std::size_t points_here = o.block_starts[b_end] - o.block_starts[c * blocks_per_chunk];
        out.ends.reserve(points_here);
        out.values.reserve(points_here * 32);  // a guess; grows if the rows are longer
        for (std::size_t bl = c * blocks_per_chunk; bl < b_end; ++bl) {
            const std::size_t b = o.block_starts[bl], e = o.block_starts[bl + 1];
            std::size_t current = b, row_start = out.values.size();
            auto close_until = [&](std::size_t k) {
                for (; current < k; ++current) {
                    sort_ids(out.values.data() + row_start, out.values.data() + out.values.size(), bits, scratch);
                    out.close_row(static_cast<std::size_t>(o.ids[current]));
                    row_start = out.values.size();
                }
            };
            block_neighbors(metric, target, o, b, e, r, cand, [&](std::size_t k, TId j, T) {
                close_until(k);
                if (keep(o.ids[k], j)) out.values.push_back(j);
            });
            close_until(e);
        }
    });
    return assemble(outs, id_bound(source), threads);
}

}  // namespace detail

/// Calls f(i, j, d2) (or f(i, j)) once for every unordered pair of distinct points of
/// `index` within distance r, with i < j and d2 their distance_sq; if f returns something
/// convertible to bool, false stops. The order is fixed for a given index but otherwise
/// unspecified. Serial. Returns false if stopped. Throws std::invalid_argument for a NaN or
/// negative r (nothing is called then), and passes on what f throws. An infinite r
/// takes every pair; r = 0 takes pairs of equal points.
template <class Index, class F>
bool for_each_pair_within(const Index& index, typename Index::scalar_type r, F&& f) {
    using T = typename Index::scalar_type;
    constexpr std::size_t D = Index::dimension;
    using Id = typename Index::id_type;
    detail::check_pair_radius(r);
    const auto o = detail::order_points(index, r);
    const auto metric = detail::pair_metric_of(index);
    detail::candidates<T, D, Id> cand;
    return detail::blocks_neighbors<true>(metric, index, o, 0, o.block_starts.size() - 1, r, cand,
                                          [&](std::size_t k, Id j, T d2) {
                                              const Id i = o.ids[k];
                                              return i < j ? detail::call_pair(f, i, j, d2) : detail::call_pair(f, j, i, d2);
                                          });
}

/// Calls f(i, j, d2) (or f(i, j)) once for every point i of `a` and point j of `b` within
/// distance r of each other (e.g. fluid and boundary particles). The distance is b's
/// (minimum-image when b is a periodic_index). Otherwise as for_each_pair_within(index, r, f).
template <class IndexA, class IndexB, class F>
bool for_each_pair_within(const IndexA& a, const IndexB& b, typename IndexA::scalar_type r, F&& f) {
    using T = typename IndexA::scalar_type;
    constexpr std::size_t D = IndexA::dimension;
    static_assert(std::is_same<T, typename IndexB::scalar_type>::value && D == IndexB::dimension,
                  "quoct: both indexes need the same scalar type and dimension");
    using IdB = typename IndexB::id_type;
    detail::check_pair_radius(r);
    const auto o = detail::order_points(a, r);
    const auto metric = detail::pair_metric_of(b);
    detail::candidates<T, D, IdB> cand;
    return detail::blocks_neighbors(metric, b, o, 0, o.block_starts.size() - 1, r, cand,
                                    [&](std::size_t k, IdB j, T d2) { return detail::call_pair(f, o.ids[k], j, d2); });
}

/// Neighbour lists of every point: row i holds, in increasing order, the ids j != i of
/// the points within distance r of point i. There are id_bound() rows (size() for an
/// orthtree); rows of erased ids are empty. Runs on `threads` std::threads (0: one per
/// hardware thread); the table is the same for any thread count. Throws
/// std::invalid_argument for a NaN or negative r.
template <class Index>
csr<typename Index::id_type> neighbor_lists(const Index& index, typename Index::scalar_type r, unsigned threads = 1) {
    using Id = typename Index::id_type;
    return detail::rows_within(index, index, r, threads, detail::keep_others<Id, Id>{});
}

/// Neighbour lists across two indexes: row i (an id of `a`) holds, in increasing order,
/// the ids of b's points within distance r of a's point i (b's distance). Otherwise as
/// neighbor_lists(index, r, threads).
template <class IndexA, class IndexB>
csr<typename IndexB::id_type> neighbor_lists(const IndexA& a, const IndexB& b, typename IndexA::scalar_type r,
                                             unsigned threads = 1) {
    static_assert(std::is_same<typename IndexA::scalar_type, typename IndexB::scalar_type>::value &&
                      IndexA::dimension == IndexB::dimension,
                  "quoct: both indexes need the same scalar type and dimension");
    using IdA = typename IndexA::id_type;
    using IdB = typename IndexB::id_type;
    return detail::rows_within(a, b, r, threads, detail::keep_all<IdA, IdB>{});
}

namespace detail {

/// Throws std::invalid_argument naming the first point with a NaN or infinite coordinate.
template <class T, std::size_t D>
void check_points(const std::vector<point<T, D>>& points, const char* what) {
    for (std::size_t i = 0; i < points.size(); ++i)
        if (!is_finite(points[i]))
            throw std::invalid_argument(std::string("quoct::neighbor_lists: ") + what + "[" + std::to_string(i) +
                                        "] has a NaN or infinite coordinate");
}

}  // namespace detail

/// As neighbor_lists(points, r, threads) below, into `lists`, whose memory is kept and reused:
/// the call for every time step of a simulation, which then allocates and zero-fills
/// nothing once the table has reached its size. Throws as neighbor_lists, before touching
/// `lists`; after any other exception (std::bad_alloc) its contents are unspecified.
template <class T, std::size_t D>
void neighbor_lists(const std::vector<point<T, D>>& points, typename point<T, D>::scalar_type r,
                    csr<std::uint32_t>& lists, unsigned threads = 1) {
    detail::check_pair_radius(r);
    if (points.size() > std::numeric_limits<std::uint32_t>::max())
        throw std::length_error("quoct::neighbor_lists: 2^32 points or more (ids are 32-bit)");
    detail::check_points(points, "points");
    if constexpr (detail::kernels::has_vector_kernels<T>) {
        if (detail::radius_bound<T, D>(r).plain &&
            detail::kernels::active_level() != detail::kernels::level::portable) {
            const auto l = detail::cells::points_at<T, D, std::uint32_t>(points.data(), points.size());
            if (detail::cells::neighbour_rows(l, l, r, points.size(), threads, true, lists.offsets, lists.values))
                return;
        }
    }
    // Through an index otherwise (whose constructor refuses non-finite coordinates).
    lists = neighbor_lists(orthtree<T, D>(points), r, threads);
}

/// Neighbour lists of the points of an array, with no index to build: row i holds, in
/// increasing order, the positions j != i of the points within distance r of points[i]
/// (the core's closed ball). The same table as neighbor_lists(orthtree<T, D>(points), r,
/// threads), without the tree: the call for a simulation step in which every particle
/// moves. Throws std::invalid_argument for a NaN or negative r or a NaN or infinite
/// coordinate, std::length_error for 2^32 points or more.
template <class T, std::size_t D>
csr<std::uint32_t> neighbor_lists(const std::vector<point<T, D>>& points, typename point<T, D>::scalar_type r,
                                  unsigned threads = 1) {
    csr<std::uint32_t> table;
    neighbor_lists(points, r, table, threads);
    return table;
}

/// As neighbor_lists(points, others, r, threads) (below), into `lists`, whose memory is
/// kept and reused, as neighbor_lists(points, r, lists, threads).
template <class T, std::size_t D>
void neighbor_lists(const std::vector<point<T, D>>& points, const std::vector<point<T, D>>& others,
                    typename point<T, D>::scalar_type r, csr<std::uint32_t>& lists, unsigned threads = 1) {
    detail::check_pair_radius(r);
    if (points.size() > std::numeric_limits<std::uint32_t>::max() ||
        others.size() > std::numeric_limits<std::uint32_t>::max())
        throw std::length_error("quoct::neighbor_lists: 2^32 points or more (ids are 32-bit)");
    detail::check_points(points, "points");
    detail::check_points(others, "others");
    if constexpr (detail::kernels::has_vector_kernels<T>) {
        if (detail::radius_bound<T, D>(r).plain &&
            detail::kernels::active_level() != detail::kernels::level::portable) {
            const auto a = detail::cells::points_at<T, D, std::uint32_t>(points.data(), points.size());
            const auto b = detail::cells::points_at<T, D, std::uint32_t>(others.data(), others.size());
            if (detail::cells::neighbour_rows(a, b, r, points.size(), threads, false, lists.offsets, lists.values))
                return;
        }
    }
    lists = neighbor_lists(orthtree<T, D>(points), orthtree<T, D>(others), r, threads);
}

/// Neighbour lists across two arrays of points (e.g. fluid and boundary particles): row i
/// (a position in `points`) holds, in increasing order, the positions in `others` of the
/// points within distance r of points[i]. Otherwise as neighbor_lists(points, r, threads).
template <class T, std::size_t D>
csr<std::uint32_t> neighbor_lists(const std::vector<point<T, D>>& points, const std::vector<point<T, D>>& others,
                                  typename point<T, D>::scalar_type r, unsigned threads = 1) {
    csr<std::uint32_t> table;
    neighbor_lists(points, others, r, table, threads);
    return table;
}

/// How per-point radii (SPH's variable smoothing lengths) pair points in neighbor_lists.
enum class radius_rule {
    /// j is in row i when it lies in i's own ball: contains(ball{p_i, h_i}, p_j), i.e.
    /// distance_sq(p_i, p_j) <= h_i * h_i (a gather list; rows need not be symmetric).
    own,
    /// j is in row i when either ball holds the other's centre: within the larger of the
    /// two radii, contains(ball{p_i, h_i}, p_j) || contains(ball{p_j, h_j}, p_i)
    /// (symmetric: j is in row i exactly when i is in row j).
    larger,
};

namespace detail {

/// neighbor_lists with per-point radii through an orthtree, one ball query per point, for
/// the cases the cell engine does not take (radii whose squares are not plain, long double).
template <class T, std::size_t D>
csr<std::uint32_t> radius_rows_by_queries(const std::vector<point<T, D>>& points, const std::vector<T>& radii,
                                          radius_rule rule, T largest, unsigned threads) {
    const orthtree<T, D> tree(points);
    const std::size_t n = points.size();
    const unsigned bits = id_bits(n);
    const auto row = [&](std::size_t i, std::vector<std::uint32_t>& out) {
        thread_local std::vector<std::uint32_t> scratch;
        const ball<T, D> mine{points[i], radii[i]};
        const std::size_t start = out.size();  // out holds the chunk's earlier rows too
        // Every j that either rule takes lies within the largest radius of p_i (the ball
        // predicate is monotone in the radius, and symmetric in its two points).
        tree.visit(ball<T, D>{points[i], rule == radius_rule::own ? radii[i] : largest},
                   [&](std::uint32_t j, const point<T, D>& q) {
                       if (j == i) return;
                       if (contains(mine, q) || (rule == radius_rule::larger && contains(ball<T, D>{q, radii[j]}, points[i])))
                           out.push_back(j);
                   });
        sort_ids(out.data() + start, out.data() + out.size(), bits, scratch);
    };
    return gather_rows<std::uint32_t>(n, {}, threads, row);
}

}  // namespace detail

/// Neighbour lists with a radius per point (variable smoothing lengths): row i holds, in
/// increasing order, the positions j != i paired with i by `rule` (radius_rule::own: within
/// i's radius; radius_rule::larger: within the larger of the two radii). Exact: each
/// test is the core's ball predicate. Cells are as wide as the largest radius, so a few
/// radii far above the rest slow it down; and when any radius is 0 or has a square at the
/// ends of T's range (where the ball predicate needs more than d^2 <= h^2 in T), the whole
/// call takes one ball query per point instead, exact but several times slower. Throws std::invalid_argument when radii and
/// points differ in size, for a NaN or negative radius (naming its position) or a NaN or
/// infinite coordinate; std::length_error for 2^32 points or more.
template <class T, std::size_t D>
csr<std::uint32_t> neighbor_lists(const std::vector<point<T, D>>& points, const std::vector<T>& radii,
                                  radius_rule rule, unsigned threads = 1) {
    if (radii.size() != points.size())
        throw std::invalid_argument("quoct::neighbor_lists: " + std::to_string(radii.size()) + " radii for " +
                                    std::to_string(points.size()) + " points");
    if (points.size() > std::numeric_limits<std::uint32_t>::max())
        throw std::length_error("quoct::neighbor_lists: 2^32 points or more (ids are 32-bit)");
    T largest = 0;
    bool plain = true;
    for (std::size_t i = 0; i < radii.size(); ++i) {
        if (!(radii[i] >= 0))  // NaN too
            throw std::invalid_argument("quoct::neighbor_lists: radius " + std::to_string(i) + " is " +
                                        (std::isnan(radii[i]) ? std::string("NaN") : std::string("negative")));
        largest = std::max(largest, radii[i]);
    }
    detail::check_points(points, "points");
    if constexpr (detail::kernels::has_vector_kernels<T>) {
        for (std::size_t i = 0; i < radii.size() && plain; ++i) plain = detail::radius_bound<T, D>(radii[i]).plain;
        if (plain) {
            const auto l = detail::cells::points_at<T, D, std::uint32_t>(points.data(), points.size());
            detail::cells::point_radii<T> pr;
            pr.source = pr.target = radii.data();
            pr.symmetric = rule == radius_rule::larger;
            pr.largest = largest;
            csr<std::uint32_t> table;
            if (detail::cells::neighbour_rows(l, l, largest, points.size(), threads, true, table.offsets, table.values,
                                              pr))
                return table;
        }
    }
    return detail::radius_rows_by_queries(points, radii, rule, largest, threads);
}

/// The order in which neighbor_lists visits points for radius r: order[k] is the position
/// in `points` of the point that comes k-th (cells about r wide, row by row; the points of
/// one cell in their input order). Reordering the particles' arrays by it (quoct::reorder)
/// before building the index, as SPH codes do with the z-sort of TreeNSearch or
/// CompactNSearch, keeps neighbours close in memory and makes the neighbour rows come out
/// of the search already sorted, its fastest case; after the particles move a little the
/// order stays nearly right, and it can be redone every few steps. Any order gives the
/// same lists (by id). Points with a non-finite coordinate make it a Morton order instead.
/// Throws std::invalid_argument for a NaN or negative r.
template <class T, std::size_t D>
std::vector<std::size_t> neighbor_order(const std::vector<point<T, D>>& points, typename point<T, D>::scalar_type r) {
    detail::check_pair_radius(r);
    const std::size_t n = points.size();
    const auto l = detail::cells::points_at<T, D, std::size_t>(points.data(), n);
    detail::cells::grid<D> g;
    const box<T, D> bounds = detail::bounds_of(points.data(), n);
    if (n == 0 || !detail::cells::all_finite(l) || !detail::cells::make_grid(bounds, n, r, g))
        return detail::morton_order(points.data(), n, bounds);
    unsigned index_bits = 0;
    const auto items = detail::cells::cell_sorted(l, g, index_bits);
    const std::uint64_t mask = (std::uint64_t{1} << index_bits) - 1;
    std::vector<std::size_t> order(n);
    for (std::size_t k = 0; k < n; ++k) order[k] = static_cast<std::size_t>(items[k] & mask);
    return order;
}

/// values reordered by `order` (a permutation such as neighbor_order's): out[k] =
/// values[order[k]]. Throws std::invalid_argument when the sizes differ or order is not a
/// permutation (an entry out of range or repeated); values is never modified (the result is
/// a new vector).
template <class V>
std::vector<V> reorder(const std::vector<V>& values, const std::vector<std::size_t>& order) {
    if (order.size() != values.size())
        throw std::invalid_argument("quoct::reorder: the order has " + std::to_string(order.size()) +
                                    " entries for " + std::to_string(values.size()) + " values");
    std::vector<bool> seen(values.size(), false);
    for (std::size_t k = 0; k < order.size(); ++k) {
        const std::size_t i = order[k];
        if (i >= values.size())
            throw std::invalid_argument("quoct::reorder: order[" + std::to_string(k) + "] = " + std::to_string(i) +
                                        " is out of range (" + std::to_string(values.size()) + " values)");
        if (seen[i])
            throw std::invalid_argument("quoct::reorder: order[" + std::to_string(k) + "] = " + std::to_string(i) +
                                        " repeats an earlier entry (not a permutation)");
        seen[i] = true;
    }
    std::vector<V> out;
    out.reserve(values.size());
    for (const std::size_t i : order) out.push_back(values[i]);
    return out;
}

/// Every unordered pair (i, j), i < j, of points of `index` within distance r, sorted by
/// (i, j). Runs on `threads` std::threads; the list is the same for any thread count.
/// Throws std::invalid_argument for a NaN or negative r.
template <class Index>
std::vector<std::pair<typename Index::id_type, typename Index::id_type>> pairs_within(const Index& index,
                                                                                      typename Index::scalar_type r,
                                                                                      unsigned threads = 1) {
    using T = typename Index::scalar_type;
    constexpr std::size_t D = Index::dimension;
    using Id = typename Index::id_type;
    using pair_type = std::pair<Id, Id>;
    detail::check_pair_radius(r);
    const auto o = detail::order_points(index, r);
    const auto metric = detail::pair_metric_of(index);
    // Each pair found once (the half search of for_each_pair_within: half the distances
    // of a search per point), as (smaller id, larger id), chunk by chunk of blocks.
    const std::size_t blocks = o.block_starts.size() - 1;
    constexpr std::size_t blocks_per_chunk = 64;
    const std::size_t chunks = (blocks + blocks_per_chunk - 1) / blocks_per_chunk;
    std::vector<std::vector<pair_type>> found(chunks);
    detail::for_each_chunk(chunks, threads, [&](std::size_t c) {
        detail::candidates<T, D, Id> cand;
        std::vector<pair_type>& out = found[c];
        detail::blocks_neighbors<true>(metric, index, o, c * blocks_per_chunk,
                                       std::min(blocks, (c + 1) * blocks_per_chunk), r, cand, [&](std::size_t k, Id j, T) {
                                           const Id i = o.ids[k];
                                           out.push_back(i < j ? pair_type{i, j} : pair_type{j, i});
                                       });
    });
    // Sorted by (i, j): counted and placed by i, then each run of one i sorted by j.
    const std::size_t ids = detail::id_bound(index);
    std::vector<std::size_t> start(ids + 1, 0);
    for (const auto& f : found)
        for (const pair_type& p : f) ++start[static_cast<std::size_t>(p.first) + 1];
    for (std::size_t i = 0; i < ids; ++i) start[i + 1] += start[i];
    std::vector<pair_type> out(start[ids]);
    {
        std::vector<std::size_t> next(start.begin(), start.end() - 1);
        for (auto& f : found) {
            for (const pair_type& p : f) out[next[static_cast<std::size_t>(p.first)]++] = p;
            std::vector<pair_type>().swap(f);
        }
    }
    parallel_for(ids, threads, [&](std::size_t i) {
        detail::sort_small(out.data() + start[i], out.data() + start[i + 1]);
    });
    return out;
}

}  // namespace quoct

#endif  // QUOCT_PAIRS_HPP
