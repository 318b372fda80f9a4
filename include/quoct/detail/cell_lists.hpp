// quoct internals: neighbour lists by cells of the search radius, the engine behind
// quoct::neighbor_lists for Euclidean indexes (quoct/pairs.hpp). Dependency-free.
//
// Method (the cell lists of MD codes, written once into the final table):
//  - The points of both sides go into cells of a grid of width w slightly above r (wider
//    where the bounds hold more than 2^bits cells per axis), sorted by cell in row-major
//    order (axis 0 fastest), coordinates axis by axis for the vector kernels
//    (detail/pair_kernels.hpp). Every point a query point p's ball can accept lies in p's
//    cell or a neighbouring one (below), and the 3 neighbouring cells along axis 0 are
//    one contiguous run: 3^(D-1) runs per cell, found by binary search in the sorted keys.
//  - Each cell of the source side then tests its points against those runs: a first pass
//    counts every row (the offsets) straight over the runs, a second copies the targets
//    within reach of the cell's bounding box into one range (one vector kernel tests and
//    compresses them) and writes each row, sorted, into its place. No list is copied, and
//    the table is the only allocation that grows with the pairs. Bucketing is parallel
//    but for the radix sort and the scan for cell starts.
//
// Why neighbouring cells suffice. If the core's predicate accepts q for p, then on every
// axis the rounded square of the rounded difference is at most r^2 (a sum of non-negative
// rounded terms is at least each term), so |p[a] - q[a]| <= r (1 + 4u) for T's unit
// roundoff u when r^2 is plain (radius_bound). The cell coordinates floor((x - lo) / w)
// are computed in double from w = r (1 + 2^-16), whose margin exceeds every rounding
// involved for float and double, so they differ by at most 1. Other scalar types, radii
// at the ends of T's range and non-finite coordinates take the block engine instead.
#ifndef QUOCT_DETAIL_CELL_LISTS_HPP
#define QUOCT_DETAIL_CELL_LISTS_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "../shapes.hpp"
#include "pair_kernels.hpp"
#include "pair_metric.hpp"
#include "query_shapes.hpp"
#include "sorting.hpp"
#include "threads.hpp"

namespace quoct {
namespace detail {
namespace cells {

/// The grid: cell coordinate of x on axis a is floor((x - lo[a]) * inv_w), clamped to
/// [0, 2^bits - 1]; a cell's key holds its coordinates, axis 0 in the lowest bits.
template <std::size_t D>
struct grid {
    double lo[D] = {};
    double inv_w = 0;
    unsigned bits = 0;
    std::uint64_t top = 0;  // 2^bits - 1

    template <class T>
    std::uint64_t coordinate(T x, std::size_t a) const noexcept {
        const double t = (static_cast<double>(x) - lo[a]) * inv_w;
        return t <= 0 ? 0 : t >= static_cast<double>(top) ? top : static_cast<std::uint64_t>(t);
    }
    std::uint64_t key_of(const std::uint64_t* c) const noexcept {
        std::uint64_t k = 0;
        for (std::size_t a = 0; a < D; ++a) k |= c[a] << (bits * a);
        return k;
    }
    std::uint64_t axis_of(std::uint64_t key, std::size_t a) const noexcept { return (key >> (bits * a)) & top; }
};

/// Points sorted by cell: coordinates axis by axis and their ids (both readable
/// kernels::lanes_max entries past the end), and the occupied cells.
template <class T, std::size_t D, class Id>
struct bucketed {
    std::vector<T> coords[D];
    std::vector<Id> ids;
    std::vector<std::uint64_t> keys;   // occupied cells, increasing
    std::vector<std::size_t> starts;   // cell c holds points [starts[c], starts[c + 1])
    std::vector<T> r2;                 // with per-point radii: each point's radius squared

    std::size_t size() const noexcept { return starts.empty() ? 0 : starts.back(); }
    void pointers(const T* (&p)[D]) const noexcept {
        for (std::size_t a = 0; a < D; ++a) p[a] = coords[a].data();
    }
};

/// Points with their ids: point i is pts[i], with id ids[i]; `own` holds the points when
/// the list made them (an index's), else pts views the caller's array.
template <class T, std::size_t D, class Id>
struct point_list {
    std::vector<Id> ids;
    std::vector<point<T, D>> own;
    const point<T, D>* pts = nullptr;

    std::size_t size() const noexcept { return ids.size(); }
};

/// A caller's array: ids are the positions.
template <class T, std::size_t D, class Id>
point_list<T, D, Id> points_at(const point<T, D>* p, std::size_t n) {
    point_list<T, D, Id> l;
    l.ids.resize(n);
    for (std::size_t i = 0; i < n; ++i) l.ids[i] = static_cast<Id>(i);
    l.pts = p;
    return l;
}

/// The points of an index in increasing id order (so that the points of a cell keep that
/// order, and callers whose ids follow the cells get rows that come out sorted).
template <class Index>
auto points_of(const Index& index) {
    using T = typename Index::scalar_type;
    constexpr std::size_t D = Index::dimension;
    using Id = typename Index::id_type;
    const std::size_t bound = id_bound(index);
    point_list<T, D, Id> l;
    if (bound == index.size()) {
        // Ids 0..n-1, each once (an orthtree; a dynamic index with nothing erased). A point
        // the enumeration skips (a NaN coordinate in a tree read from a file) stays NaN, so
        // all_finite sends the call to the block method, which leaves it out as brute force does.
        point<T, D> nan_point;
        for (std::size_t a = 0; a < D; ++a) nan_point[a] = std::numeric_limits<T>::quiet_NaN();
        l.own.assign(bound, nan_point);
        l.ids.resize(bound);
        for_each_point(index, [&](Id id, const point<T, D>& p) { l.own[static_cast<std::size_t>(id)] = p; });
        for (std::size_t i = 0; i < bound; ++i) l.ids[i] = static_cast<Id>(i);
    } else {
        constexpr std::size_t none = ~std::size_t{0};
        std::vector<std::size_t> slot(bound, none);
        std::vector<point<T, D>> seen;
        seen.reserve(index.size());
        for_each_point(index, [&](Id id, const point<T, D>& p) {
            slot[static_cast<std::size_t>(id)] = seen.size();
            seen.push_back(p);
        });
        l.ids.reserve(seen.size());
        l.own.reserve(seen.size());
        for (std::size_t i = 0; i < bound; ++i)
            if (slot[i] != none) {
                l.ids.push_back(static_cast<Id>(i));
                l.own.push_back(seen[slot[i]]);
            }
    }
    l.pts = l.own.data();
    return l;
}

/// Chooses the grid for points within `bounds`, n points in all, radius r. False when the
/// cell engine cannot promise its argument (a non-finite bound).
template <class T, std::size_t D>
bool make_grid(const box<T, D>& bounds, std::size_t n, T r, grid<D>& g) {
    // Keys and positions share 64 bits in the sort.
    const unsigned index_bits = std::min(63u, position_bits(n));
    g.bits = std::min<unsigned>(21, (64 - index_bits) / static_cast<unsigned>(D));
    if (g.bits == 0) return false;
    g.top = (std::uint64_t{1} << g.bits) - 1;
    double widest = 0;
    for (std::size_t a = 0; a < D; ++a) {
        if (!std::isfinite(static_cast<double>(bounds.lo[a])) || !std::isfinite(static_cast<double>(bounds.hi[a])))
            return false;
        g.lo[a] = static_cast<double>(bounds.lo[a]);
        widest = std::max(widest, static_cast<double>(bounds.hi[a]) - g.lo[a]);
    }
    double w = static_cast<double>(r) * (1 + std::ldexp(1.0, -16));
    // No more than 2^bits - 2 cells across the widest axis (wider cells only add candidates).
    w = std::max(w, widest / static_cast<double>(g.top - 1));
    if (!(w > 0)) w = 1;  // every point equal (and r = 0): one cell
    if (!std::isfinite(w)) return false;
    g.inv_w = 1 / w;
    return std::isfinite(g.inv_w) && g.inv_w > 0;
}

/// Runs work(first, last) over [0, n) in blocks, on up to `threads` threads (0: all).
template <class Work>
void for_each_block(std::size_t n, unsigned threads, Work&& work) {
    constexpr std::size_t block = std::size_t{1} << 16;
    for_each_chunk((n + block - 1) / block, threads,
                        [&](std::size_t b) { work(b * block, std::min(n, (b + 1) * block)); });
}

/// The points' cell keys with their positions (key << index_bits | position), sorted by
/// key, stably (points of one cell keep their order).
template <class T, std::size_t D, class Id>
raw_vector<std::uint64_t> cell_sorted(const point_list<T, D, Id>& l, const grid<D>& g, unsigned& index_bits,
                                      unsigned threads = 1) {
    const std::size_t n = l.size();
    index_bits = std::min(63u, position_bits(n));
    raw_vector<std::uint64_t> items(n), scratch;
    const unsigned shift = index_bits;
    for_each_block(n, threads, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) {
            std::uint64_t c[D];
            for (std::size_t a = 0; a < D; ++a) c[a] = g.coordinate(l.pts[i][a], a);
            items[i] = (g.key_of(c) << shift) | i;
        }
    });
    radix_sort(items, scratch, index_bits, g.bits * static_cast<unsigned>(D));
    return items;
}

/// Sorts the points into g's cells (stable: points of one cell keep their order), with
/// their radii squared when `radii` (by position in l) is given.
template <class T, std::size_t D, class Id>
bucketed<T, D, Id> bucket(const point_list<T, D, Id>& l, const grid<D>& g, const T* radii = nullptr,
                          unsigned threads = 1) {
    const std::size_t n = l.size();
    unsigned index_bits = 0;
    const raw_vector<std::uint64_t> items = cell_sorted(l, g, index_bits, threads);
    bucketed<T, D, Id> b;
    b.ids.assign(n + kernels::lanes_max, Id{});
    for (std::size_t a = 0; a < D; ++a) b.coords[a].assign(n + kernels::lanes_max, std::numeric_limits<T>::quiet_NaN());
    if (radii != nullptr) b.r2.assign(n + kernels::lanes_max, std::numeric_limits<T>::quiet_NaN());
    const std::uint64_t index_mask = (std::uint64_t{1} << index_bits) - 1;
    for_each_block(n, threads, [&](std::size_t first, std::size_t last) {
        for (std::size_t s = first; s < last; ++s) {
            const std::size_t i = static_cast<std::size_t>(items[s] & index_mask);
            b.ids[s] = l.ids[i];
            for (std::size_t a = 0; a < D; ++a) b.coords[a][s] = l.pts[i][a];
            if (radii != nullptr) b.r2[s] = radii[i] * radii[i];
        }
    });
    for (std::size_t s = 0; s < n; ++s) {
        const std::uint64_t key = items[s] >> index_bits;
        if (s == 0 || key != b.keys.back()) {
            b.keys.push_back(key);
            b.starts.push_back(s);
        }
    }
    b.starts.push_back(n);
    return b;
}

/// Finds the runs of `target` that hold the cells around a cell: at most 3^(D-1) ranges of
/// point positions (the 3 cells along axis 0 are one run). Cells must be asked for in
/// increasing key order; each run's start then only moves forward, so it is found by
/// galloping from where it was (amortised O(1) when cells are dense, a binary search at
/// worst).
template <class T, std::size_t D, class Id>
class run_finder {
public:
    static constexpr std::size_t combos = [] {
        std::size_t c = 1;
        for (std::size_t a = 1; a < D; ++a) c *= 3;
        return c;
    }();

    run_finder(const grid<D>& g, const bucketed<T, D, Id>& target) : g_(g), t_(target) {
        for (auto& c : cursor_) c = 0;
    }

    void find(std::uint64_t key, std::vector<std::pair<std::size_t, std::size_t>>& runs) {
        std::uint64_t c[D];
        for (std::size_t a = 0; a < D; ++a) c[a] = g_.axis_of(key, a);
        const std::size_t n = t_.keys.size();
        const std::uint64_t* keys = t_.keys.data();
        for (std::size_t k = 0; k < combos; ++k) {
            std::uint64_t lo[D], hi[D];
            std::size_t rest = k;
            bool inside = true;
            for (std::size_t a = 1; a < D; ++a) {
                const int d = static_cast<int>(rest % 3) - 1;
                rest /= 3;
                if ((d < 0 && c[a] == 0) || (d > 0 && c[a] == g_.top)) inside = false;
                lo[a] = hi[a] = static_cast<std::uint64_t>(static_cast<std::int64_t>(c[a]) + d);
            }
            if (!inside) continue;
            lo[0] = c[0] == 0 ? 0 : c[0] - 1;
            hi[0] = c[0] == g_.top ? c[0] : c[0] + 1;
            const std::uint64_t lo_key = g_.key_of(lo), hi_key = g_.key_of(hi);
            // Gallop from the cursor to the first key >= lo_key.
            std::size_t from = cursor_[k];
            if (from < n && keys[from] < lo_key) {
                std::size_t step = 1;
                for (;;) {
                    const std::size_t probe = from + step;
                    if (probe >= n || keys[probe] >= lo_key) {
                        from = static_cast<std::size_t>(
                            std::lower_bound(keys + from + 1, keys + std::min(probe, n), lo_key) - keys);
                        break;
                    }
                    from = probe;
                    step *= 2;
                }
            }
            cursor_[k] = from;
            std::size_t to = from;
            while (to < n && keys[to] <= hi_key) ++to;
            if (from != to) runs.emplace_back(t_.starts[from], t_.starts[to]);
        }
    }

private:
    const grid<D>& g_;
    const bucketed<T, D, Id>& t_;
    std::size_t cursor_[combos];
};

/// Asks the kernel to back [p, p + bytes) with huge pages where it can (Linux, when
/// transparent huge pages are in madvise mode): a table of lists is written once right after
/// it is allocated, and 4 KiB page faults are then a good part of its cost. A hint only.
inline void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t huge = std::uintptr_t{1} << 21;
    const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
    if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/// Whether every point is finite (the cell engine's precondition).
template <class T, std::size_t D, class Id>
bool all_finite(const point_list<T, D, Id>& l) {
    for (std::size_t i = 0; i < l.size(); ++i)
        for (std::size_t a = 0; a < D; ++a)
            if (!std::isfinite(l.pts[i][a])) return false;
    return true;
}

/// Per-point radii for neighbour_rows: source[i] and target[i] by position in the point
/// lists (target may be the same array), all finite, non-negative and with plain squares
/// (radius_bound), `largest` the largest of them. Gather: j is in row i when distance_sq
/// <= source[i]^2; symmetric: when it is <= source[i]^2 or <= target[j]^2 (within the
/// larger of the two radii). Each square is rounded in T.
template <class T>
struct point_radii {
    const T* source = nullptr;
    const T* target = nullptr;
    bool symmetric = false;
    T largest = 0;
};

/// One neighbour_rows search (see there), set up on the grid g: the points sorted into
/// their cells, the kernels' inputs, and the two passes over the source cells. Holds a
/// pointer to its own member (the source cells are the target's when self): not copied.
template <class T, std::size_t D, class SId, class TId>
class row_search {
public:
    row_search(const point_list<T, D, SId>& source, const point_list<T, D, TId>& tl, const grid<D>& g, T r,
               bool self, const point_radii<T>& radii, unsigned threads)
        : g_(g), self_(self), variable_(radii.source != nullptr), symmetric_(radii.symmetric), r2_(r * r),
          level_(kernels::active_level()) {
        // Radii go with the targets for the symmetric rule, and with the sources (which are
        // the targets when self) for both rules.
        target_ = bucket(tl, g, variable_ && (symmetric_ || self) ? radii.target : nullptr, threads);
        src_ = &source_own_;
        if constexpr (std::is_same<SId, TId>::value) {
            if (self) src_ = &target_;
        }
        if (src_ == &source_own_) source_own_ = bucket(source, g, variable_ ? radii.source : nullptr, threads);
        target_.pointers(cols_);
        // The targets' own squared radii, which pair points under the symmetric rule.
        target_r2_ = variable_ && symmetric_ ? target_.r2.data() : nullptr;
        if constexpr (ids32) target_tags_ = target_.ids.data();
    }
    row_search(const row_search&) = delete;
    row_search& operator=(const row_search&) = delete;

    /// Pass 1: the length of every row, at offsets[id + 1].
    void count_rows(std::vector<std::size_t>& offsets, unsigned threads) const {
        for_each_chunk(chunks(), threads, [&](std::size_t chunk) {
            near_cell nc;
            run_finder<T, D, TId> finder(g_, target_);
            for (std::size_t c = chunk * cells_per_chunk; c < chunk_end(chunk); ++c) count_cell(c, nc, finder, offsets);
        });
    }

    /// Pass 2: every row, sorted, into its place in values (offsets complete).
    void fill_rows(const std::vector<std::size_t>& offsets, std::vector<TId>& values, unsigned threads) const {
        for_each_chunk(chunks(), threads, [&](std::size_t chunk) {
            near_cell nc;
            std::vector<std::uint32_t> hits;
            std::vector<TId> row_ids;
            run_finder<T, D, TId> finder(g_, target_);
            for (std::size_t c = chunk * cells_per_chunk; c < chunk_end(chunk); ++c)
                fill_cell(c, nc, finder, hits, row_ids, offsets, values);
        });
    }

private:
    static constexpr bool ids32 = std::is_same<TId, std::uint32_t>::value;
    static constexpr std::size_t cells_per_chunk = 256;

    // The candidates of one source cell: the target points in the runs around it within r
    // of the cell's bounding box (every point within r of one of its points is), copied
    // axis by axis into one range for the kernels.
    struct near_cell {
        std::vector<std::pair<std::size_t, std::size_t>> runs;
        std::vector<T> coords[D];
        std::vector<std::uint32_t> tags;  // 32-bit ids: candidate h's id; others: its position in target
        std::vector<TId> ids;             // others: candidate h's id
        std::vector<T> r2s;               // its radius squared (symmetric radii)
        const T* cols[D];
        const T* cand_r2 = nullptr;
        std::size_t count = 0;
    };

    const bucketed<T, D, SId>& src() const noexcept { return *src_; }
    std::size_t cells() const noexcept { return src().keys.size(); }
    std::size_t chunks() const noexcept { return (cells() + cells_per_chunk - 1) / cells_per_chunk; }
    std::size_t chunk_end(std::size_t chunk) const noexcept { return std::min(cells(), (chunk + 1) * cells_per_chunk); }
    // The squared radius of source point k (a position in src).
    T radius2_at(std::size_t k) const noexcept { return variable_ ? src().r2[k] : r2_; }
    void point_at(std::size_t k, T (&p)[D]) const noexcept {
        for (std::size_t a = 0; a < D; ++a) p[a] = src().coords[a][k];
    }
    void find_runs(std::size_t c, near_cell& nc, run_finder<T, D, TId>& finder) const {
        nc.runs.clear();
        finder.find(src().keys[c], nc.runs);
    }

    // Pass 1 for the points of source cell c. Counts straight over the runs: gathering the
    // candidates near the cell's box (as pass 2 does) costs more here than the distance
    // tests it saves.
    void count_cell(std::size_t c, near_cell& nc, run_finder<T, D, TId>& finder,
                    std::vector<std::size_t>& offsets) const {
        find_runs(c, nc, finder);
        if (self_ && nc.runs.size() == 1 && nc.runs[0].second - nc.runs[0].first == 1) {
            // A point alone with nothing in the cells around it (the sparse part of a
            // splash): its row is empty.
            offsets[static_cast<std::size_t>(src().ids[src().starts[c]]) + 1] = 0;
            return;
        }
        for (std::size_t k = src().starts[c]; k < src().starts[c + 1]; ++k) {
            T p[D];
            point_at(k, p);
            std::size_t n = 0;
            for (const auto& run : nc.runs)
                n += kernels::count_within<T, D>(level_, p, cols_, target_r2_, run.first, run.second, radius2_at(k));
            // The point itself is among its cell's candidates and a hit (its distance to
            // itself is 0, the coordinates being finite, and radii are >= 0).
            if (self_) --n;
            offsets[static_cast<std::size_t>(src().ids[k]) + 1] = n;
        }
    }

    // The candidates of source cell c (its runs found) into nc, NaN-padded for the kernels.
    void gather(std::size_t c, near_cell& nc) const {
        T lo[D], hi[D];
        const std::size_t first = src().starts[c], last = src().starts[c + 1];
        // The reach of the cell's points: r, the largest radius (symmetric radii), or the
        // largest radius among them (gather).
        T reach2 = r2_;
        if (variable_ && !symmetric_) {
            reach2 = 0;
            for (std::size_t k = first; k < last; ++k) reach2 = std::max(reach2, src().r2[k]);
        }
        for (std::size_t a = 0; a < D; ++a) {
            lo[a] = hi[a] = src().coords[a][first];
            for (std::size_t k = first + 1; k < last; ++k) {
                lo[a] = std::min(lo[a], src().coords[a][k]);
                hi[a] = std::max(hi[a], src().coords[a][k]);
            }
        }
        const bool with_r2 = target_r2_ != nullptr;
        std::size_t room = kernels::lanes_max;
        for (const auto& run : nc.runs) room += run.second - run.first;
        for (auto& v : nc.coords)
            if (v.size() < room) v.resize(room);
        if (nc.tags.size() < room) nc.tags.resize(room);
        if (with_r2 && nc.r2s.size() < room) nc.r2s.resize(room);
        std::size_t m = 0;
        for (const auto& run : nc.runs) {
            T* out[D];
            for (std::size_t a = 0; a < D; ++a) out[a] = nc.coords[a].data() + m;
            m += kernels::near_box_copy<T, D>(level_, lo, hi, cols_, target_tags_, target_r2_, run.first, run.second,
                                              reach2, out, nc.tags.data() + m, with_r2 ? nc.r2s.data() + m : nullptr);
        }
        pad(nc, m);
    }
    // The kernels read whole vectors: NaN past the last of the m candidates is never a hit.
    void pad(near_cell& nc, std::size_t m) const {
        constexpr T nan = std::numeric_limits<T>::quiet_NaN();
        for (std::size_t a = 0; a < D; ++a) {
            std::fill(nc.coords[a].data() + m, nc.coords[a].data() + m + kernels::lanes_max, nan);
            nc.cols[a] = nc.coords[a].data();
        }
        nc.cand_r2 = nullptr;
        if (target_r2_ != nullptr) {
            std::fill(nc.r2s.data() + m, nc.r2s.data() + m + kernels::lanes_max, nan);
            nc.cand_r2 = nc.r2s.data();
        }
        if (!ids32) {
            nc.ids.resize(m);
            for (std::size_t h = 0; h < m; ++h) nc.ids[h] = target_.ids[nc.tags[h]];
        }
        nc.count = m;
    }

    // Pass 2 for the points of source cell c: their rows, sorted, into values.
    void fill_cell(std::size_t c, near_cell& nc, run_finder<T, D, TId>& finder, std::vector<std::uint32_t>& hits,
                   std::vector<TId>& row_ids, const std::vector<std::size_t>& offsets, std::vector<TId>& values) const {
        bool rows_here = false;
        for (std::size_t k = src().starts[c]; k < src().starts[c + 1] && !rows_here; ++k) {
            const std::size_t i = static_cast<std::size_t>(src().ids[k]);
            rows_here = offsets[i + 1] != offsets[i];
        }
        if (!rows_here) return;  // pass 1 found no neighbour for any point of the cell
        find_runs(c, nc, finder);
        gather(c, nc);
        if (!ids32 && hits.size() < nc.count + kernels::lanes_max)
            hits.resize(nc.count + kernels::lanes_max);  // positions, for ids other than 32-bit
        row_ids.resize(nc.count + kernels::lanes_max);  // whole vectors are stored
        for (std::size_t k = src().starts[c]; k < src().starts[c + 1]; ++k) {
            T p[D];
            point_at(k, p);
            const auto me = static_cast<TId>(src().ids[k]);
            std::size_t n = 0;
            if constexpr (ids32) {
                // The ids straight from the kernel.
                n = kernels::hit_ids<T, D>(level_, p, nc.cols, nc.cand_r2, nc.tags.data(), 0, nc.count, radius2_at(k),
                                           self_, me, row_ids.data());
            } else {
                const std::size_t h =
                    kernels::hits_within<T, D>(level_, p, nc.cols, nc.cand_r2, 0, nc.count, radius2_at(k), hits.data());
                for (std::size_t t = 0; t < h; ++t) {
                    const TId j = nc.ids[hits[t]];
                    row_ids[n] = j;
                    n += (!self_ || j != me) ? 1u : 0u;
                }
            }
            const std::size_t i = static_cast<std::size_t>(src().ids[k]);
            if (n != offsets[i + 1] - offsets[i])
                throw std::logic_error("quoct: neighbour lists: a row's two passes disagree");
            kernels::sort_row(level_, row_ids.data(), row_ids.data() + n);
            if (n != 0) std::memcpy(values.data() + offsets[i], row_ids.data(), n * sizeof(TId));
        }
    }

    const grid<D>& g_;
    bool self_, variable_, symmetric_;
    T r2_;
    kernels::level level_;
    bucketed<T, D, TId> target_;
    bucketed<T, D, SId> source_own_;
    const bucketed<T, D, SId>* src_ = nullptr;
    const T* cols_[D];
    const T* target_r2_ = nullptr;
    // What the candidates carry through the box filter: their ids when 32-bit (read as whole
    // vectors, so padded), else their positions.
    const std::uint32_t* target_tags_ = nullptr;
};

/// Neighbour rows (see the note at the top) of every point of `source` among the points of
/// `target`: row i (i a source id < rows) the sorted target ids within r (or within the
/// radii of `radii` when it has any), without i itself when `self` (then source and target
/// are the same list). Fills offsets (rows + 1) and values as a csr, reusing their memory;
/// returns false, touching neither, when the cell engine does not apply (see make_grid and
/// all_finite; 2^31 points or more). After an exception their contents are unspecified.
template <class T, std::size_t D, class SId, class TId>
bool neighbour_rows(const point_list<T, D, SId>& source, const point_list<T, D, TId>& tl, T r, std::size_t rows,
                    unsigned threads, bool self, std::vector<std::size_t>& offsets_out, std::vector<TId>& values_out,
                    const point_radii<T>& radii = {}) {
    const std::size_t total = source.ids.size() + (self ? 0 : tl.ids.size());
    if (total >= (std::size_t{1} << 31)) return false;
    if (!all_finite(source) || (!self && !all_finite(tl))) return false;
    if (source.ids.empty() || tl.ids.empty()) {
        offsets_out.assign(rows + 1, 0);
        values_out.clear();
        return true;
    }
    box<T, D> bounds = bounds_of(source.pts, source.size());
    if (!self) {
        const box<T, D> tb = bounds_of(tl.pts, tl.size());
        for (std::size_t a = 0; a < D; ++a) {
            bounds.lo[a] = std::min(bounds.lo[a], tb.lo[a]);
            bounds.hi[a] = std::max(bounds.hi[a], tb.hi[a]);
        }
    }
    if (radii.source != nullptr) r = radii.largest;
    grid<D> g;
    if (!make_grid(bounds, total, r, g)) return false;
    const row_search<T, D, SId, TId> search(source, tl, g, r, self, radii, threads);

    // The table goes straight into the caller's vectors, whose memory is reused (a
    // simulation asks for the lists of every step into the same table).
    std::vector<std::size_t>& offsets = offsets_out;
    offsets.assign(rows + 1, 0);
    search.count_rows(offsets, threads);
    for (std::size_t i = 0; i < rows; ++i) offsets[i + 1] += offsets[i];
    std::vector<TId>& values = values_out;
    if (values.capacity() < offsets[rows]) {
        values = std::vector<TId>();  // the old table goes before the new one comes
        values.reserve(offsets[rows]);
        advise_huge_pages(values.data(), values.capacity() * sizeof(TId));
    }
    values.resize(offsets[rows]);  // zero-fills only what it did not hold before
    search.fill_rows(offsets, values, threads);
    return true;
}

}  // namespace cells
}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_CELL_LISTS_HPP
