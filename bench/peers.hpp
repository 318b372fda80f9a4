// quoct benchmarks: quoct and its peers behind one small interface, so every benchmark is
// one template over the peer. Each peer is used the way its own users write it:
//
//  - quoct: orthtree<double, D> with default build_options.
//  - nanoflann (1.4.x): KDTreeSingleIndexAdaptor, leaf size 16, over an adaptor that
//    references the points (nanoflann keeps no copy, but needs them for its whole life, so
//    they count in its memory). radiusSearch takes the SQUARED radius and keeps d < r^2
//    (an open ball); results unsorted (SearchParams sorted = false).
//  - Boost.Geometry rtree: bgi::quadratic<16>, values std::pair<point, id>, built with the
//    packing constructor (the fastest build and the best tree Boost offers). It has no ball
//    predicate, so the radius query is the idiom its users write:
//        intersects(bounding box of the ball) && satisfies(comparable_distance(v, c) <= r*r)
//    comparable_distance is the squared distance, summed in the same order as quoct's.
//  - brute: a linear scan over the input array, the reference every answer is checked against.
//
// The interface: prepare(points) untimed (rtree: make its values; others keep a pointer),
// build() timed, then radius/count/box/nearest, each returning the number of results and
// leaving them in the peer's own buffers type, and memory_bytes().
#ifndef QUOCT_BENCH_PEERS_HPP
#define QUOCT_BENCH_PEERS_HPP

#include <benchmark/benchmark.h>
#include <quoct/quoct.hpp>

#include <nanoflann.hpp>

#include <boost/geometry.hpp>
#include <boost/geometry/index/rtree.hpp>
#include <boost/iterator/function_output_iterator.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "datasets.hpp"

namespace quoct_bench {

/// Items per second from `queries` queries an iteration, and the mean results a query.
inline void report_queries(benchmark::State& state, std::size_t queries, std::size_t results) {
    const auto total = static_cast<double>(state.iterations()) * static_cast<double>(queries);
    state.SetItemsProcessed(static_cast<std::int64_t>(total));
    state.counters["results_per_query"] = total > 0 ? static_cast<double>(results) / total : 0.0;
}

using id_t = std::uint32_t;

template <std::size_t D>
using box = quoct::box<double, D>;

/// The ids a query left in a peer's buffers, for checking.
enum class result_kind { region, nearest };

// --- quoct ---------------------------------------------------------------------------------

template <std::size_t D>
class quoct_peer {
public:
    static constexpr const char* name = "quoct";
    using tree_type = quoct::orthtree<double, D, id_t>;
    struct buffers {
        std::vector<id_t> ids;
        std::vector<typename tree_type::neighbor_type> nearest;
    };

    void prepare(const std::vector<point<D>>& pts) {
        points_ = &pts;
        // QUOCT_BENCH_LEAF=<n> overrides the default leaf size, for tuning experiments.
        if (const char* leaf = std::getenv("QUOCT_BENCH_LEAF")) options_.leaf_size = std::strtoul(leaf, nullptr, 10);
    }
    void build() { tree_.emplace(*points_, options_); }
    std::size_t memory_bytes() const { return tree_->memory_bytes(); }

    std::size_t radius(const point<D>& c, double r, buffers& b) const {
        tree_->query(quoct::ball<double, D>{c, r}, b.ids);
        return b.ids.size();
    }
    std::size_t count(const point<D>& c, double r) const { return tree_->count(quoct::ball<double, D>{c, r}); }
    std::size_t in_box(const box<D>& q, buffers& b) const {
        tree_->query(q, b.ids);
        return b.ids.size();
    }
    std::size_t nearest(const point<D>& c, std::size_t k, buffers& b) const {
        tree_->nearest(c, k, b.nearest);
        return b.nearest.size();
    }
    static std::vector<id_t> ids(const buffers& b, result_kind kind) {
        if (kind == result_kind::region) return b.ids;
        std::vector<id_t> out;
        for (const auto& n : b.nearest) out.push_back(n.id);
        return out;
    }

private:
    const std::vector<point<D>>* points_ = nullptr;
    quoct::build_options options_;
    std::optional<tree_type> tree_;
};

// --- nanoflann -----------------------------------------------------------------------------

/// nanoflann's dataset adaptor: a view of the caller's points.
template <std::size_t D>
struct nanoflann_cloud {
    const std::vector<point<D>>* points = nullptr;
    std::size_t kdtree_get_point_count() const { return points->size(); }
    double kdtree_get_pt(id_t i, std::size_t axis) const { return (*points)[i][axis]; }
    template <class Bbox>
    bool kdtree_get_bbox(Bbox&) const {
        return false;
    }
};

/// A nanoflann result set that only counts: the cheapest count nanoflann offers. It keeps
/// what RadiusResultSet keeps (d < radius, radius squared).
struct nanoflann_counter {
    double radius_sq;
    std::size_t found = 0;
    std::size_t size() const { return found; }
    bool full() const { return true; }
    bool addPoint(double d, id_t) {
        if (d < radius_sq) ++found;
        return true;
    }
    double worstDist() const { return radius_sq; }
};

template <std::size_t D>
class nanoflann_peer {
public:
    static constexpr const char* name = "nanoflann";
    static constexpr std::size_t leaf_size = 16;
    using index_type = nanoflann::KDTreeSingleIndexAdaptor<
        nanoflann::L2_Simple_Adaptor<double, nanoflann_cloud<D>, double, id_t>, nanoflann_cloud<D>,
        static_cast<int>(D), id_t>;
    struct buffers {
        std::vector<std::pair<id_t, double>> pairs;
        std::vector<id_t> nearest_ids;
        std::vector<double> nearest_dist_sq;
    };

    nanoflann_peer() = default;
    nanoflann_peer(const nanoflann_peer&) = delete;  // the index refers to cloud_
    nanoflann_peer& operator=(const nanoflann_peer&) = delete;

    void prepare(const std::vector<point<D>>& pts) { cloud_.points = &pts; }
    void build() {
        index_ = std::make_unique<index_type>(static_cast<int>(D), cloud_,
                                              nanoflann::KDTreeSingleIndexAdaptorParams(leaf_size));
    }
    /// nanoflann's own index (for its saveIndex / loadIndex).
    index_type& index() { return *index_; }
    /// The index (node pool and permutation) plus the points it reads.
    std::size_t memory_bytes() const {
        return index_->usedMemory(*index_) + cloud_.points->size() * sizeof(point<D>);
    }

    std::size_t radius(const point<D>& c, double r, buffers& b) const {
        return index_->radiusSearch(c.coords, r * r, b.pairs, nanoflann::SearchParams(32, 0.0f, false));
    }
    std::size_t count(const point<D>& c, double r) const {
        nanoflann_counter counter{r * r};
        return index_->radiusSearchCustomCallback(c.coords, counter, nanoflann::SearchParams(32, 0.0f, false));
    }
    std::size_t nearest(const point<D>& c, std::size_t k, buffers& b) const {
        b.nearest_ids.resize(k);
        b.nearest_dist_sq.resize(k);
        const std::size_t n = index_->knnSearch(c.coords, k, b.nearest_ids.data(), b.nearest_dist_sq.data());
        b.nearest_ids.resize(n);
        return n;
    }
    static std::vector<id_t> ids(const buffers& b, result_kind kind) {
        if (kind == result_kind::nearest) return b.nearest_ids;
        std::vector<id_t> out;
        for (const auto& p : b.pairs) out.push_back(p.first);
        return out;
    }

private:
    nanoflann_cloud<D> cloud_;
    std::unique_ptr<index_type> index_;
};

// --- Boost.Geometry rtree ------------------------------------------------------------------

/// A std::allocator that keeps a running total of the bytes it has handed out and not yet
/// taken back: the rtree's own memory, measured rather than estimated (malloc's per-block
/// overhead is not included).
template <class T>
struct counting_allocator {
    using value_type = T;
    std::size_t* live;

    explicit counting_allocator(std::size_t* l) noexcept : live(l) {}
    template <class U>
    counting_allocator(const counting_allocator<U>& o) noexcept : live(o.live) {}

    T* allocate(std::size_t n) {
        *live += n * sizeof(T);
        return std::allocator<T>{}.allocate(n);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        *live -= n * sizeof(T);
        std::allocator<T>{}.deallocate(p, n);
    }
    template <class U>
    bool operator==(const counting_allocator<U>& o) const noexcept {
        return live == o.live;
    }
    template <class U>
    bool operator!=(const counting_allocator<U>& o) const noexcept {
        return live != o.live;
    }
};

template <std::size_t D>
class rtree_peer {
public:
    static constexpr const char* name = "rtree";
    using bpoint = boost::geometry::model::point<double, D, boost::geometry::cs::cartesian>;
    using bbox = boost::geometry::model::box<bpoint>;
    using value = std::pair<bpoint, id_t>;
    using params = boost::geometry::index::quadratic<16>;
    using tree_type = boost::geometry::index::rtree<value, params, boost::geometry::index::indexable<value>,
                                                    boost::geometry::index::equal_to<value>, counting_allocator<value>>;
    struct buffers {
        std::vector<value> values;
    };

    rtree_peer() = default;
    rtree_peer(const rtree_peer&) = delete;  // the allocator refers to live_
    rtree_peer& operator=(const rtree_peer&) = delete;

    /// Makes the (point, id) values the rtree is built from: the caller's data, not timed.
    void prepare(const std::vector<point<D>>& pts) {
        values_.clear();
        values_.reserve(pts.size());
        for (std::size_t i = 0; i < pts.size(); ++i) values_.emplace_back(to_boost(pts[i]), static_cast<id_t>(i));
    }
    void build() {
        tree_.reset();
        tree_.emplace(values_.begin(), values_.end(), params(), boost::geometry::index::indexable<value>(),
                      boost::geometry::index::equal_to<value>(), counting_allocator<value>(&live_));
    }
    std::size_t memory_bytes() const { return live_; }

    std::size_t radius(const point<D>& p, double r, buffers& b) const {
        namespace bgi = boost::geometry::index;
        const bpoint c = to_boost(p);
        const double r_sq = r * r;
        b.values.clear();
        tree_->query(bgi::intersects(ball_box(p, r)) && bgi::satisfies([&](const value& v) {
                         return boost::geometry::comparable_distance(v.first, c) <= r_sq;
                     }),
                     std::back_inserter(b.values));
        return b.values.size();
    }
    std::size_t count(const point<D>& p, double r) const {
        namespace bgi = boost::geometry::index;
        const bpoint c = to_boost(p);
        const double r_sq = r * r;
        std::size_t found = 0;
        tree_->query(bgi::intersects(ball_box(p, r)) && bgi::satisfies([&](const value& v) {
                         return boost::geometry::comparable_distance(v.first, c) <= r_sq;
                     }),
                     boost::make_function_output_iterator([&found](const value&) { ++found; }));
        return found;
    }
    std::size_t in_box(const box<D>& q, buffers& b) const {
        b.values.clear();
        tree_->query(boost::geometry::index::intersects(bbox(to_boost(q.lo), to_boost(q.hi))),
                     std::back_inserter(b.values));
        return b.values.size();
    }
    std::size_t nearest(const point<D>& p, std::size_t k, buffers& b) const {
        b.values.clear();
        tree_->query(boost::geometry::index::nearest(to_boost(p), static_cast<unsigned>(k)),
                     std::back_inserter(b.values));
        return b.values.size();
    }
    static std::vector<id_t> ids(const buffers& b, result_kind) {
        std::vector<id_t> out;
        for (const auto& v : b.values) out.push_back(v.second);
        return out;
    }

private:
    static bpoint to_boost(const point<D>& p) {
        bpoint b;
        set_all(b, p, std::make_index_sequence<D>());
        return b;
    }
    template <std::size_t... A>
    static void set_all(bpoint& b, const point<D>& p, std::index_sequence<A...>) {
        (boost::geometry::set<A>(b, p[A]), ...);
    }
    static bbox ball_box(const point<D>& c, double r) {
        point<D> lo = c, hi = c;
        for (std::size_t a = 0; a < D; ++a) {
            lo[a] -= r;
            hi[a] += r;
        }
        return bbox(to_boost(lo), to_boost(hi));
    }

    std::vector<value> values_;
    std::size_t live_ = 0;
    std::optional<tree_type> tree_;
};

// --- brute force ---------------------------------------------------------------------------

/// A linear scan over the input: the reference answer (closed ball, closed box, nearest by
/// (distance, id)), and a peer at small sizes.
template <std::size_t D>
class brute_peer {
public:
    static constexpr const char* name = "brute";
    struct buffers {
        std::vector<id_t> ids;
        std::vector<std::pair<double, id_t>> nearest;
    };

    void prepare(const std::vector<point<D>>& pts) { points_ = &pts; }
    void build() {}
    std::size_t memory_bytes() const { return points_->size() * sizeof(point<D>); }

    std::size_t radius(const point<D>& c, double r, buffers& b) const {
        const double r_sq = r * r;
        b.ids.clear();
        const auto& pts = *points_;
        for (std::size_t i = 0; i < pts.size(); ++i)
            if (quoct::distance_sq(pts[i], c) <= r_sq) b.ids.push_back(static_cast<id_t>(i));
        return b.ids.size();
    }
    std::size_t count(const point<D>& c, double r) const {
        const double r_sq = r * r;
        std::size_t found = 0;
        for (const auto& p : *points_) found += quoct::distance_sq(p, c) <= r_sq ? 1u : 0u;
        return found;
    }
    std::size_t in_box(const box<D>& q, buffers& b) const {
        b.ids.clear();
        const auto& pts = *points_;
        for (std::size_t i = 0; i < pts.size(); ++i)
            if (quoct::contains(q, pts[i])) b.ids.push_back(static_cast<id_t>(i));
        return b.ids.size();
    }
    std::size_t nearest(const point<D>& c, std::size_t k, buffers& b) const {
        auto& heap = b.nearest;  // max-heap on (distance_sq, id): the worst kept is on top
        heap.clear();
        const auto& pts = *points_;
        for (std::size_t i = 0; i < pts.size(); ++i) {
            const std::pair<double, id_t> cand{quoct::distance_sq(pts[i], c), static_cast<id_t>(i)};
            if (heap.size() < k) {
                heap.push_back(cand);
                std::push_heap(heap.begin(), heap.end());
            } else if (cand < heap.front()) {
                std::pop_heap(heap.begin(), heap.end());
                heap.back() = cand;
                std::push_heap(heap.begin(), heap.end());
            }
        }
        std::sort_heap(heap.begin(), heap.end());
        return heap.size();
    }
    static std::vector<id_t> ids(const buffers& b, result_kind kind) {
        if (kind == result_kind::region) return b.ids;
        std::vector<id_t> out;
        for (const auto& n : b.nearest) out.push_back(n.second);
        return out;
    }

private:
    const std::vector<point<D>>* points_ = nullptr;
};

}  // namespace quoct_bench

#endif  // QUOCT_BENCH_PEERS_HPP
