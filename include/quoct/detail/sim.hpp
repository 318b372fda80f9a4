// quoct internals for the simulation headers (dynamic, pairs, periodic, objects,
// parallel): callbacks that may stop, a bitmap, a Morton order for loose points, and a
// std::thread work splitter. Dependency-free apart from the standard library.
#ifndef QUOCT_DETAIL_SIM_HPP
#define QUOCT_DETAIL_SIM_HPP

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "../shapes.hpp"

namespace quoct {
namespace detail {
namespace sim {

/// Calls f(args...) and says whether to go on: f may return void (go on) or something
/// convertible to bool (false stops).
template <class F, class... Args>
bool go_on(F& f, Args&&... args) {
    if constexpr (std::is_void<decltype(f(std::forward<Args>(args)...))>::value) {
        f(std::forward<Args>(args)...);
        return true;
    } else {
        return static_cast<bool>(f(std::forward<Args>(args)...));
    }
}

/// One bit per position.
class bitmap {
public:
    void assign(std::size_t n) { words_.assign((n + 63) / 64, 0); }
    bool test(std::size_t i) const noexcept { return (words_[i >> 6] >> (i & 63)) & 1u; }
    void set(std::size_t i) noexcept { words_[i >> 6] |= std::uint64_t{1} << (i & 63); }
    std::size_t memory_bytes() const noexcept { return words_.capacity() * sizeof(std::uint64_t); }
    /// The bits, 64 to a word, position i at bit i % 64 of word i / 64 (for quoct/file.hpp).
    const std::vector<std::uint64_t>& words() const noexcept { return words_; }
    void assign_words(std::vector<std::uint64_t> words) noexcept { words_ = std::move(words); }

private:
    std::vector<std::uint64_t> words_;
};

/// The box that holds every point: a query that enumerates an index.
template <class T, std::size_t D>
box<T, D> everything() noexcept {
    box<T, D> b;
    for (std::size_t a = 0; a < D; ++a) {
        b.lo[a] = -std::numeric_limits<T>::infinity();
        b.hi[a] = std::numeric_limits<T>::infinity();
    }
    return b;
}

/// The smallest box around the points (lo = +inf, hi = -inf when there are none).
template <class T, std::size_t D>
box<T, D> bounds_of(const point<T, D>* p, std::size_t n) noexcept {
    box<T, D> b = everything<T, D>();
    std::swap(b.lo, b.hi);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t a = 0; a < D; ++a) {
            b.lo[a] = std::min(b.lo[a], p[i][a]);
            b.hi[a] = std::max(b.hi[a], p[i][a]);
        }
    return b;
}

/// Sorts a short run (a neighbour row, tens of ids): insertion sort, std::sort if long.
template <class Id>
void sort_small(Id* first, Id* last) {
    if (last - first > 48) return std::sort(first, last);
    for (Id* i = first + (first != last); i < last; ++i) {
        const Id v = *i;
        Id* j = i;
        for (; j > first && *(j - 1) > v; --j) *j = *(j - 1);
        *j = v;
    }
}

/// The number of threads to use for `threads` (0 means one per hardware thread).
inline unsigned thread_count(unsigned threads) noexcept {
    if (threads != 0) return threads;
    const unsigned h = std::thread::hardware_concurrency();
    return h == 0 ? 1u : h;
}

/// Runs work(chunk) for chunk = 0..chunks-1 on up to `threads` std::threads (the calling
/// thread is one of them), handing chunks out in increasing order. The first exception
/// thrown by any call stops the hand-out and is rethrown after every thread has joined.
template <class Work>
void for_each_chunk(std::size_t chunks, unsigned threads, Work&& work) {
    const std::size_t workers = std::min<std::size_t>(thread_count(threads), chunks);
    if (workers <= 1) {
        for (std::size_t c = 0; c < chunks; ++c) work(c);
        return;
    }
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex error_mutex;
    auto run = [&] {
        for (;;) {
            const std::size_t c = next.fetch_add(1);
            if (c >= chunks || failed.load()) return;
            try {
                work(c);
            } catch (...) {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (!error) error = std::current_exception();
                failed = true;
                return;
            }
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    try {
        for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(run);
    } catch (...) {
        failed = true;
        for (auto& t : pool) t.join();
        throw;
    }
    run();
    for (auto& t : pool) t.join();
    if (error) std::rethrow_exception(error);
}

// Member detection, so the generic algorithms work on quoct::orthtree (which has none of
// these) and on the simulation indexes (which may have them).
template <class I, class = void>
struct has_id_bound : std::false_type {};
template <class I>
struct has_id_bound<I, std::void_t<decltype(std::declval<const I&>().id_bound())>> : std::true_type {};

template <class I, class = void>
struct has_metric : std::false_type {};
template <class I>
struct has_metric<I, std::void_t<decltype(std::declval<const I&>().metric())>> : std::true_type {};

/// All ids of the index are below this: id_bound() if the index has one, else size().
template <class Index>
std::size_t id_bound(const Index& index) {
    if constexpr (has_id_bound<Index>::value) return index.id_bound();
    else return index.size();
}

template <class I, class = void>
struct has_base : std::false_type {};
template <class I>
struct has_base<I, std::void_t<decltype(std::declval<const I&>().base())>> : std::true_type {};

/// The plain Euclidean pair metric: the core's distance_sq, and candidate regions as boxes.
///
/// The pair-metric protocol (what pairs.hpp's searches call; docs/concepts.md, "the
/// pair-search protocol"): `T distance_sq(a, b)`, the value compared with r^2;
/// `T axis_distance(axis, x, y)`, the per-axis difference whose squares distance_sq sums in
/// axis order; `wide<T> wide_axis_distance(axis, x, y)`, the same with an unbounded exponent
/// (radius_bound's slow path); and `bool visit_near(index, region, r, f)`, which visits a
/// superset of the points within r of some point of the box `region`. The other pair
/// metric is periodic_pair_metric (periodic.hpp). A nearest search takes a nearest metric
/// instead (euclidean_nearest_metric in orthtree.hpp states that protocol).
template <class T, std::size_t D>
struct euclidean_pair_metric {
    T distance_sq(const point<T, D>& a, const point<T, D>& b) const noexcept { return quoct::distance_sq(a, b); }
    /// The signed per-axis difference whose square distance_sq sums.
    T axis_distance(std::size_t, T x, T y) const noexcept { return x - y; }
    /// |x - y| with an unbounded exponent (radius_bound's slow path).
    wide<T> wide_axis_distance(std::size_t, T x, T y) const noexcept { return wide_difference(x, y); }

    /// Visits (id, point) for a superset of the points q within distance r of some point p
    /// of the box `region` by the ball predicate (those with distance_sq(q, region) at most
    /// radius_bound's sure_out).
    template <class Index, class F>
    bool visit_near(const Index& index, const box<T, D>& region, T r, F&& f) const {
        const radius_bound<T, D> bound(r);
        return index.visit_shape(near_box{region, bound.sure_in, bound.sure_out}, f);
    }

    /// The points within distance r of a box. Every point q with distance_sq(q, p) <= r^2
    /// for some p in the box passes contains(q): on each axis the gap from q to the box is
    /// no larger than |q - p| and rounding is monotone (the argument of shapes.hpp).
    struct near_box {
        box<T, D> region;
        T sure_in;   // radius_bound's: every point within the radius has distance_sq(q,
        T sure_out;  // region) <= sure_out, and a box within sure_in is inside

        relation classify(const box<T, D>& b) const noexcept {
            T near = 0, far = 0;
            for (std::size_t a = 0; a < D; ++a) {
                T g = 0;  // the smallest gap from a point of b to region on this axis
                if (b.hi[a] < region.lo[a]) g = region.lo[a] - b.hi[a];
                else if (b.lo[a] > region.hi[a]) g = b.lo[a] - region.hi[a];
                near += g * g;
                // the largest: from b's farthest face beyond region's (0 when inside it;
                // NaN, from faces at the same infinity, counts as 0 too)
                const T below = region.lo[a] - b.lo[a], above = b.hi[a] - region.hi[a];
                T h = 0;
                if (below > h) h = below;
                if (above > h) h = above;
                far += h * h;
            }
            if (near > sure_out) return relation::outside;
            return far <= sure_in ? relation::inside : relation::partial;
        }
        bool contains(const point<T, D>& q) const noexcept { return quoct::distance_sq(q, region) <= sure_out; }
    };
};

/// The metric of an index: its metric() if it has one (periodic indexes), else Euclidean.
template <class Index>
auto metric_of(const Index& index) {
    if constexpr (has_metric<Index>::value) return index.metric();
    else return euclidean_pair_metric<typename Index::scalar_type, Index::dimension>{};
}

/// Calls f(id, point) for every point of the index (of its base() index if it wraps one).
template <class Index, class F>
void for_each_point(const Index& index, F&& f) {
    if constexpr (has_base<Index>::value) {
        for_each_point(index.base(), f);
    } else {
        using T = typename Index::scalar_type;
        constexpr std::size_t D = Index::dimension;
        index.visit(everything<T, D>(), f);
    }
}

}  // namespace sim
}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_SIM_HPP
