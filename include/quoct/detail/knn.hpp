// quoct: the k-nearest-neighbour engine. One result set (the best k so far, the bound a
// candidate must meet, ties broken by smaller id) that every nearest search feeds: the
// orthtree's own, the dynamic index's snapshot, levels and tail, the geographic and the
// periodic index, and any merge of partial answers (from threads or ranks). Best-k
// bookkeeping, the tie rule and the pruning bound live here and nowhere else.
//
// The answer of a search fed through a knn_set is exactly the first k of all offered
// candidates sorted by (distance, id), restricted to distance <= the initial bound, as
// long as every candidate that could belong to it is offered: a source may skip a
// candidate only when its distance is strictly greater than bound() at that moment (a
// candidate at exactly bound() may still enter with a smaller id).
#ifndef QUOCT_DETAIL_KNN_HPP
#define QUOCT_DETAIL_KNN_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "../neighbor.hpp"
#include "../shapes.hpp"

namespace quoct {
namespace detail {

/// The identity: candidates offered by their ids.
struct same_id {
    template <class Id>
    Id operator()(Id id) const noexcept {
        return id;
    }
};

/// The ids of nearest-neighbour results, in their order, into `out` (resized).
template <class T, class Id>
void ids_of(const std::vector<neighbor<T, Id>>& found, std::vector<Id>& out) {
    out.resize(found.size());
    for (std::size_t i = 0; i < found.size(); ++i) out[i] = found[i].id;
}

/// The best k candidates so far by (distance, id), left in a caller's vector so that a
/// query reuses its capacity. Distances are whatever the search measures (squared
/// Euclidean for the trees, metres for geo); smaller is nearer.
///
/// Candidates are offered by a key that IdOf maps to their id (same_id: the key is the
/// id). A tree offers its points by storage position: the id, a load from another array
/// and often a cache miss, is then read only to break a tie and for the k answers.
///
/// For k up to sorted_up_to the kept ones form a sorted array, distances and keys apart
/// (insertion beats a heap there and nothing is left to sort); above, a max-heap on
/// (distance, id). Not thread-safe: one set per search.
template <class T, class Id, class Neighbor = neighbor<T, Id>, class IdOf = same_id>
class knn_set {
public:
    static constexpr std::size_t sorted_up_to = 32;

    /// Starts a search for the k nearest with distance <= limit (infinity: no limit),
    /// clearing `storage` and keeping the answers in it. Precondition: k >= 1, limit not NaN.
    knn_set(std::vector<Neighbor>& storage, std::size_t k, T limit = std::numeric_limits<T>::infinity(),
            IdOf id_of = IdOf{})
        : out_(storage), id_of_(id_of), k_(k), bound_(limit), sorted_(k <= sorted_up_to) {
        out_.clear();
        // The heap grows, and a set asked for more than it can be given must not reserve
        // for all of it.
        if (!sorted_) out_.reserve(std::min<std::size_t>(k, 4096));
        dist_[0] = -std::numeric_limits<T>::infinity();  // the sentinel below the nearest
    }

    /// Candidates with a distance strictly greater than this cannot enter: the distance
    /// of the worst kept one once k are kept, the initial limit before.
    T bound() const noexcept { return bound_; }
    /// True once k candidates are kept.
    bool full() const noexcept { return size() == k_; }
    /// How many are kept (at most k).
    std::size_t size() const noexcept { return sorted_ ? count_ : out_.size(); }
    /// The k asked for.
    std::size_t k() const noexcept { return k_; }

    /// Offers the candidate with key `key` (id id_of(key)); it is kept if it is among the
    /// best k so far by (distance, id) and distance <= the initial limit. Each candidate
    /// should be offered once per search. Precondition: distance is neither NaN nor
    /// -infinity (the sorted array's sentinel).
    void offer(Id key, T distance) {
        if (!(distance <= bound_)) return;
        if (sorted_) {
            // Slots 1 to count_ hold the kept ones, nearest first; slot 0 is a sentinel at
            // -infinity, so the shifts below need no test of the index.
            std::size_t i = count_ + 1;
            if (count_ == k_) {
                // distance <= the worst's; at equal distances the smaller id goes first.
                if (distance == bound_ && id_of_(key) > id_of_(key_[k_])) return;
                --i;  // the worst drops out
            } else {
                ++count_;
            }
            for (; dist_[i - 1] > distance; --i) {
                dist_[i] = dist_[i - 1];
                key_[i] = key_[i - 1];
            }
            for (; dist_[i - 1] == distance && id_of_(key_[i - 1]) > id_of_(key); --i) {  // ties: rare
                dist_[i] = dist_[i - 1];
                key_[i] = key_[i - 1];
            }
            dist_[i] = distance;
            key_[i] = key;
            if (count_ == k_) bound_ = dist_[k_];
            return;
        }
        // The heap holds keys; its order compares ids.
        const auto heap_before = [this](const Neighbor& x, const Neighbor& y) {
            return dist(x) < dist(y) || (dist(x) == dist(y) && id_of_(x.id) < id_of_(y.id));
        };
        const Neighbor c = make(key, distance);
        if (out_.size() < k_) {
            out_.push_back(c);
            std::push_heap(out_.begin(), out_.end(), heap_before);
            if (out_.size() == k_) bound_ = dist(out_.front());
        } else if (heap_before(c, out_.front())) {
            // Replace the worst (the root) and sift the newcomer down.
            Neighbor* h = out_.data();
            std::size_t i = 0;
            for (std::size_t child = 1; child < k_; child = 2 * i + 1) {
                if (child + 1 < k_ && heap_before(h[child], h[child + 1])) ++child;
                if (!heap_before(c, h[child])) break;
                h[i] = h[child];
                i = child;
            }
            h[i] = c;
            bound_ = dist(h[0]);
        }
    }

    /// Puts the kept ones in order, nearest first (ties by smaller id), in the storage
    /// vector given at construction; the set is not to be fed afterwards.
    void finish() {
        if (sorted_) {
            out_.resize(count_);
            for (std::size_t i = 0; i < count_; ++i) out_[i] = make(id_of_(key_[i + 1]), dist_[i + 1]);
        } else {
            for (Neighbor& x : out_) x.id = id_of_(x.id);
            std::sort(out_.begin(), out_.end(), before);  // cheaper than sort_heap
        }
    }

    /// True if a kept distance lies at an end of T's range, outside (low, infinity), unless
    /// it is 0 and exact_zero(key) says that candidate is truly at distance 0: where a
    /// rounded square may have underflowed or overflowed (see run_nearest_sq).
    template <class ExactZero>
    bool kept_at_the_ends(T low, ExactZero&& exact_zero) const {
        const T inf = std::numeric_limits<T>::infinity();
        const auto odd = [&](T d, Id key) { return !(d > low && d < inf) && !(d == 0 && exact_zero(key)); };
        if (sorted_) {
            if (count_ == 0 || (dist_[1] > low && dist_[count_] < inf)) return false;
            for (std::size_t i = 1; i <= count_; ++i)
                if (odd(dist_[i], key_[i])) return true;
            return false;
        }
        for (const Neighbor& x : out_)
            if (odd(dist(x), x.id)) return true;
        return false;
    }

    /// (distance, id) order: the order of every nearest answer.
    static bool before(const Neighbor& x, const Neighbor& y) noexcept {
        return dist(x) < dist(y) || (dist(x) == dist(y) && x.id < y.id);
    }

private:
    // Neighbor is an aggregate {id, distance} whose second member may be named otherwise
    // (geo::neighbor's is `distance`): reach it by position.
    static T dist(const Neighbor& n) noexcept {
        const auto& [id, d] = n;
        (void)id;
        return d;
    }
    static Neighbor make(Id id, T d) noexcept { return Neighbor{id, d}; }

    std::vector<Neighbor>& out_;
    IdOf id_of_;
    std::size_t count_ = 0;  // how many are kept (sorted mode)
    std::size_t k_;
    T bound_;
    bool sorted_;
    T dist_[sorted_up_to + 1];  // sorted mode: slot 0 the sentinel, then the kept ones
    Id key_[sorted_up_to + 1];
};

/// The one k-nearest query every point index runs: the best min(k, n) of the n points
/// (one slot kept for an empty index) within the closed radius, by (distance_sq, id),
/// left in `out` nearest first. `search(set, sink)` feeds the index's candidates, calling
/// sink(key, distance_sq), where id_of(key) is the candidate's id; the caller has checked
/// k, the radius and the query point.
template <class T, class Id, class Search, class IdOf = same_id>
void run_nearest(std::vector<neighbor<T, Id>>& out, std::size_t k, std::size_t n, T radius, Search&& search,
                 IdOf id_of = IdOf{}) {
    knn_set<T, Id, neighbor<T, Id>, IdOf> set(out, std::min(k, std::max<std::size_t>(n, 1)), radius * radius, id_of);
    search(set, [&set](Id key, T d) { set.offer(key, d); });
    set.finish();
}

/// The exact merge of candidates measured as wide<T> (run_nearest_sq's, and the ranks'
/// answers in quoct::mpi): the first min(k, found.size()) of `found` by (unbounded
/// distance_sq, id), appended to `out`, each distance rounded to T (infinity where it
/// exceeds T's range). Measured has members `d` (a wide<T>) and `id`, one candidate per id;
/// `found` is reordered.
template <class T, class Id, class Measured>
void append_wide_best(std::vector<Measured>& found, std::size_t k, std::vector<neighbor<T, Id>>& out) {
    const auto before = [](const Measured& x, const Measured& y) {
        return wide_less(x.d, y.d) || (!wide_less(y.d, x.d) && x.id < y.id);
    };
    const std::size_t keep = std::min(k, found.size());
    std::partial_sort(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(keep), found.end(), before);
    for (std::size_t i = 0; i < keep; ++i) out.push_back(neighbor<T, Id>{found[i].id, wide_value(found[i].d)});
}

/// run_nearest for the squared distances of the ball predicate (shapes.hpp), exact where
/// a square or a sum would overflow or underflow T: the best min(k, n) by (unbounded
/// distance_sq, id) within the closed radius, each reported as that distance rounded to T
/// (infinity where it exceeds T's range). The search in T answers unless a radius at the
/// ends of T's range or a kept distance outside (flip_bound, infinity) makes it doubtful
/// (the query's own point, at distance 0 exactly, is not doubtful); then every point whose
/// rounded distance_sq is at most a bound of the answer's is measured as wide<T> and sorted.
/// That bound is the larger of flip_bound and the k-th rounded distance (a kept distance
/// differs from its unbounded value only when both are at most flip_bound), or the radius
/// bound's sure_out when fewer than k were found. Only an answer whose distances overflow
/// T needs every point.
///
/// search(set, sink) as run_nearest's; at_query(key): the candidate's point equals the
/// query on every axis; gather(upper, f): f(id, point) for every point whose rounded
/// distance_sq is at most upper (a superset will do); offsets(point)(a): the unbounded
/// |point - query| on axis a, as wide<T>.
template <class T, std::size_t D, class Id, class Search, class AtQuery, class Gather, class Offsets,
          class IdOf = same_id>
void run_nearest_sq(std::vector<neighbor<T, Id>>& out, std::size_t k, std::size_t n, T radius, Search&& search,
                    AtQuery&& at_query, Gather&& gather, Offsets&& offsets, IdOf id_of = IdOf{}) {
    const radius_bound<T, D> cap(radius);
    const T flip = radius_bound<T, D>::flip_bound();
    const std::size_t kk = std::min(k, std::max<std::size_t>(n, 1));
    T upper = cap.sure_out;
    if (cap.plain || std::isinf(cap.r_sq)) {
        knn_set<T, Id, neighbor<T, Id>, IdOf> set(out, kk, cap.r_sq, id_of);
        search(set, [&set](Id key, T d) { set.offer(key, d); });
        if (!set.kept_at_the_ends(flip, at_query)) return set.finish();
        if (set.full()) upper = std::min(upper, std::max(set.bound(), flip));
    }
    struct measured {
        wide<T> d;
        Id id;
    };
    std::vector<measured> found;
    gather(upper, [&](Id id, const point<T, D>& p) {
        const wide<T> d = wide_sum_sq<T, D>(offsets(p));
        if (std::isinf(radius) || cap.within(d)) found.push_back(measured{d, id});
    });
    out.clear();
    append_wide_best(found, kk, out);
}

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_KNN_HPP
