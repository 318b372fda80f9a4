// quoct fuzz targets: the one place where fuzzer bytes become points, numbers and
// operations, and where a disagreement with an oracle becomes a crash libFuzzer reports.
// Every target includes this header; none decodes bytes on its own.
//
// The decoders favour the values where spatial code goes wrong: small integers and dyadic
// fractions (exact boundaries), +0 and -0, subnormals, the smallest normals, values at and
// near the largest finite value, whole duplicated points, neighbours one ulp apart (tiny
// extents), and, for query shapes only, infinite radii and boxes reaching to +-inf. Bad
// values (NaN, +-inf) appear in inputs now and then, so the documented exceptions are
// exercised too. When the bytes run out every read returns 0, so any input decodes.
#ifndef QUOCT_FUZZ_SUPPORT_HPP
#define QUOCT_FUZZ_SUPPORT_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <quoct/shapes.hpp>
#include <quoct/orthtree.hpp>
#include <quoct/pairs.hpp>
#include <quoct/periodic.hpp>

namespace quoct_fuzz {

/// Prints what went wrong and aborts: libFuzzer saves the input as a crash.
[[noreturn]] inline void fail(const char* file, int line, const std::string& what) {
    std::fprintf(stderr, "\n*** quoct fuzz oracle mismatch at %s:%d: %s\n", file, line, what.c_str());
    std::fflush(stderr);
    std::abort();
}
#define QUOCT_FUZZ_CHECK(cond, what)                                      \
    do {                                                                  \
        if (!(cond)) ::quoct_fuzz::fail(__FILE__, __LINE__, (what));      \
    } while (0)

/// Shortest round-trip text of a number, for messages.
template <class T>
std::string str(T x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%La", static_cast<long double>(x));  // exact, in hex
    return buf;
}
template <class T, std::size_t D>
std::string str(const quoct::point<T, D>& p) {
    std::string s = "(";
    for (std::size_t a = 0; a < D; ++a) s += (a ? ", " : "") + str(p[a]);
    return s + ")";
}

/// The fuzzer's bytes, read front to back. Reads past the end give zeros.
class input {
public:
    input(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}

    bool empty() const noexcept { return n_ == 0; }
    std::size_t left() const noexcept { return n_; }

    std::uint8_t byte() noexcept {
        if (n_ == 0) return 0;
        --n_;
        return *p_++;
    }
    /// An unsigned number from `bytes` bytes (little-endian).
    std::uint64_t bits(unsigned bytes) noexcept {
        std::uint64_t v = 0;
        for (unsigned i = 0; i < bytes; ++i) v |= std::uint64_t{byte()} << (8 * i);
        return v;
    }
    /// A number in [0, n), n >= 1, from one byte (two when n > 256).
    std::size_t below(std::size_t n) noexcept { return n <= 256 ? byte() % n : static_cast<std::size_t>(bits(2) % n); }
    /// True with probability about 1 / n.
    bool one_in(unsigned n) noexcept { return below(n) == 0; }
    /// A signed small integer in [-lim, lim].
    int small_int(int lim) noexcept { return static_cast<int>(below(static_cast<std::size_t>(2 * lim + 1))) - lim; }
    /// The raw bits of a T.
    template <class T>
    T raw() noexcept {
        unsigned char b[sizeof(T)] = {};
        for (std::size_t i = 0; i < sizeof(T); ++i) b[i] = byte();
        T x;
        std::memcpy(&x, b, sizeof(T));
        return x;
    }
    /// Up to max_len bytes as a string (length from one byte first).
    std::string text(std::size_t max_len) {
        const std::size_t len = std::min<std::size_t>(below(max_len + 1), n_);
        std::string s(reinterpret_cast<const char*>(p_), len);
        p_ += len;
        n_ -= len;
        return s;
    }
    /// All remaining bytes.
    std::string rest() {
        std::string s(reinterpret_cast<const char*>(p_), n_);
        p_ += n_;
        n_ = 0;
        return s;
    }

private:
    const std::uint8_t* p_;
    std::size_t n_;
};

/// A finite coordinate, drawn from the families above. `seen` holds the coordinates drawn
/// so far (this call adds to it), so duplicates and one-ulp neighbours can be made.
template <class T>
T coordinate(input& in, std::vector<T>& seen) {
    using lim = std::numeric_limits<T>;
    const std::uint8_t kind = in.byte();
    const T sign = kind & 0x80 ? T(-1) : T(1);
    T x = 0;
    switch (kind % 16) {
        case 0: case 1: case 2: case 3: x = T(in.small_int(16)); break;             // exact integers
        case 4: case 5: x = std::ldexp(T(in.small_int(127)), -int(in.below(12))); break;  // dyadic
        case 6: x = sign * T(0); break;                                                   // +-0
        case 7: x = sign * lim::denorm_min() * T(1 + in.below(4)); break;                 // subnormals
        case 8: x = sign * std::ldexp(T(1 + in.below(8)), lim::min_exponent - 1 - int(in.below(4))); break;
        case 9: {                                                                         // near max
            const T m = lim::max();
            const T near[] = {m, std::nextafter(m, T(0)), m / 2, m / 3, std::ldexp(m, -1 - int(in.below(8)))};
            x = sign * near[in.below(5)];
            break;
        }
        case 10: x = sign * std::ldexp(T(1 + in.below(64)), lim::max_exponent - 8 - int(in.below(24))); break;
        case 11: x = sign * std::ldexp(T(in.small_int(64)), int(in.below(40)) - 20); break;  // spread scales
        case 12: {                                                                         // raw bits, finite
            x = in.raw<T>();
            if (!std::isfinite(x)) x = T(in.small_int(4));
            break;
        }
        case 13: case 14: if (!seen.empty()) { x = seen[in.below(seen.size())]; break; }  // duplicate
            x = 1;
            break;
        default:                                                                           // one ulp away
            if (!seen.empty()) {
                const T base = seen[in.below(seen.size())];
                const T to = kind & 0x40 ? lim::infinity() : -lim::infinity();
                x = std::nextafter(base, to);
                if (!std::isfinite(x)) x = base;
            }
            break;
    }
    seen.push_back(x);
    return x;
}

/// A point: usually fresh coordinates, sometimes a copy of an earlier point (kept in `pts`
/// by the caller), rarely (1 in bad_odds, 0: never) with a NaN or infinite coordinate.
template <class T, std::size_t D>
quoct::point<T, D> point(input& in, std::vector<T>& seen, const std::vector<quoct::point<T, D>>& earlier,
                         unsigned bad_odds = 0) {
    quoct::point<T, D> p{};
    if (!earlier.empty() && in.one_in(6)) return earlier[in.below(earlier.size())];
    for (std::size_t a = 0; a < D; ++a) p[a] = coordinate<T>(in, seen);
    if (bad_odds && in.one_in(bad_odds)) {
        const T bad[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                         -std::numeric_limits<T>::infinity()};
        p[in.below(D)] = bad[in.below(3)];
    }
    return p;
}

/// Up to max_n points for building an index (no bad coordinates).
template <class T, std::size_t D>
std::vector<quoct::point<T, D>> points(input& in, std::vector<T>& seen, std::size_t max_n) {
    std::vector<quoct::point<T, D>> pts;
    const std::size_t n = in.below(max_n + 1);
    for (std::size_t i = 0; i < n; ++i) pts.push_back(point<T, D>(in, seen, pts));
    return pts;
}

/// A radius: usually a finite coordinate's magnitude; sometimes 0, +inf, the largest
/// value, or (1 in bad_odds) NaN or negative.
template <class T>
T radius(input& in, std::vector<T>& seen, unsigned bad_odds = 0) {
    using lim = std::numeric_limits<T>;
    switch (in.below(16)) {
        case 0: return 0;
        case 1: return lim::infinity();
        case 2: return lim::max();
        case 3: return std::sqrt(lim::max());
        default: break;
    }
    if (bad_odds && in.one_in(bad_odds)) return in.one_in(2) ? lim::quiet_NaN() : -T(1 + in.below(4));
    return std::abs(coordinate<T>(in, seen));
}

/// A query box: two corners sorted per axis, sometimes reaching to +-inf on an axis,
/// rarely (1 in bad_odds) inverted or with a NaN.
template <class T, std::size_t D>
quoct::box<T, D> query_box(input& in, std::vector<T>& seen, const std::vector<quoct::point<T, D>>& earlier,
                           unsigned bad_odds = 0) {
    using lim = std::numeric_limits<T>;
    quoct::box<T, D> b{point<T, D>(in, seen, earlier), point<T, D>(in, seen, earlier)};
    for (std::size_t a = 0; a < D; ++a) {
        if (b.hi[a] < b.lo[a]) std::swap(b.lo[a], b.hi[a]);
        const std::uint8_t k = in.byte();
        if (k & 1) b.lo[a] = -lim::infinity();
        if (k & 2) b.hi[a] = lim::infinity();
    }
    if (bad_odds && in.one_in(bad_odds)) {
        const std::size_t a = in.below(D);
        if (in.one_in(2)) b.lo[a] = lim::quiet_NaN();
        else if (b.lo[a] < b.hi[a]) std::swap(b.lo[a], b.hi[a]);
    }
    return b;
}

/// True when the query box is valid as the indexes define it (no NaN, lo <= hi).
template <class T, std::size_t D>
bool valid_query(const quoct::box<T, D>& b) {
    for (std::size_t a = 0; a < D; ++a)
        if (!(b.lo[a] <= b.hi[a])) return false;
    return true;
}
/// True when the query ball is valid (finite centre, radius >= 0 and not NaN; +inf is fine).
template <class T, std::size_t D>
bool valid_query(const quoct::ball<T, D>& s) {
    return quoct::is_finite(s.center) && s.radius >= 0;
}

/// Runs f, which must throw E exactly when `should_throw`; returns true when f completed.
/// Any other exception escapes (libFuzzer reports it as a crash).
template <class E, class F>
bool throws_iff(bool should_throw, F&& f, const char* file, int line, const char* what) {
    if (!should_throw) {
        f();
        return true;
    }
    try {
        f();
    } catch (const E&) {
        return false;
    }
    fail(file, line, std::string("expected an exception, none thrown: ") + what);
}
#define QUOCT_FUZZ_THROWS_IFF(E, cond, ...) \
    ::quoct_fuzz::throws_iff<E>((cond), [&] { __VA_ARGS__; }, __FILE__, __LINE__, #cond)

/// Sorted copy, for order-free comparison.
template <class V>
std::vector<V> sorted(std::vector<V> v) {
    std::sort(v.begin(), v.end());
    return v;
}

// --- the brute-force oracle for point indexes (orthtree, dynamic_orthtree) ---------------

/// A live point of the oracle: the id the index should report and its coordinates.
template <class T, std::size_t D, class Id>
struct entry {
    Id id;
    quoct::point<T, D> p;
};

/// Ids of the entries `keep` accepts, sorted.
template <class T, std::size_t D, class Id, class Keep>
std::vector<Id> brute(const std::vector<entry<T, D, Id>>& live, Keep&& keep) {
    std::vector<Id> out;
    for (const auto& e : live)
        if (keep(e.p)) out.push_back(e.id);
    return sorted(out);
}

/// Checks one query shape q (ball or box) on `index` against the brute-force ids `want`:
/// query, count, and visit stopped after `stop_after` calls.
template <class Index, class Query, class T, std::size_t D, class Id>
void check_shape_query(const Index& index, const Query& q, const std::vector<Id>& want,
                       const std::vector<entry<T, D, Id>>& live, std::size_t stop_after, const char* what) {
    const std::vector<Id> got = sorted(index.query(q));
    if (got != want) {
        std::string msg = std::string(what) + ": query gave " + std::to_string(got.size()) + " ids, brute force " +
                          std::to_string(want.size()) + ";";
        for (const auto& e : live) {
            const bool g = std::binary_search(got.begin(), got.end(), e.id);
            const bool w = std::binary_search(want.begin(), want.end(), e.id);
            if (g != w) msg += " id " + std::to_string(e.id) + " at " + str(e.p) + (g ? " extra;" : " missing;");
        }
        fail(__FILE__, __LINE__, msg);
    }
    QUOCT_FUZZ_CHECK(index.count(q) == want.size(), std::string(what) + ": count differs from query");
    std::size_t calls = 0;
    const bool went_on = index.visit(q, [&](Id id, const quoct::point<T, D>& p) {
        QUOCT_FUZZ_CHECK(std::binary_search(want.begin(), want.end(), id), std::string(what) + ": visit gave a wrong id");
        const auto e = std::find_if(live.begin(), live.end(), [&](const entry<T, D, Id>& x) { return x.id == id; });
        QUOCT_FUZZ_CHECK(e != live.end() && p == e->p, std::string(what) + ": visit gave a wrong point");
        return ++calls < stop_after;
    });
    const bool stopped = stop_after <= want.size();
    QUOCT_FUZZ_CHECK(went_on == !stopped, std::string(what) + ": visit's return value is wrong");
    QUOCT_FUZZ_CHECK(calls == (stopped ? stop_after : want.size()), std::string(what) + ": visit call count is wrong");
}

/// One query on a point index (orthtree or dynamic_orthtree) checked against brute force
/// over `live`: a ball, a box or k nearest, each sometimes invalid (then it must throw
/// std::invalid_argument).
template <class Index, class T, std::size_t D, class Id>
void point_query(input& in, const Index& index, const std::vector<entry<T, D, Id>>& live, std::vector<T>& seen,
                 const std::vector<quoct::point<T, D>>& near) {
    using point_t = quoct::point<T, D>;
    const std::size_t stop_after = 1 + in.below(8);
    switch (in.below(3)) {
        case 0: {
            const quoct::ball<T, D> s{point<T, D>(in, seen, near, 24), radius<T>(in, seen, 24)};
            if (!QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, !valid_query(s), (void)index.count(s))) return;
            const auto want = brute(live, [&](const point_t& p) { return quoct::contains(s, p); });
            check_shape_query(index, s, want, live, stop_after, ("ball " + str(s.center) + " r " + str(s.radius)).c_str());
            break;
        }
        case 1: {
            const quoct::box<T, D> b = query_box<T, D>(in, seen, near, 24);
            if (!QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, !valid_query(b), (void)index.count(b))) return;
            const auto want = brute(live, [&](const point_t& p) { return quoct::contains(b, p); });
            check_shape_query(index, b, want, live, stop_after, ("box " + str(b.lo) + " " + str(b.hi)).c_str());
            break;
        }
        default: {
            const point_t c = point<T, D>(in, seen, near, 24);
            const std::size_t k = in.below(live.size() + 3);
            std::vector<quoct::neighbor<T, Id>> got;
            if (!QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, k == 0 || !quoct::is_finite(c), index.nearest(c, k, got)))
                return;
            // By the predicate's unbounded squared distance, ties by id, reported rounded to T.
            struct measured {
                quoct::detail::wide<T> d;
                Id id;
            };
            std::vector<measured> by;
            for (const auto& e : live)
                by.push_back({quoct::detail::wide_sum_sq<T, D>(quoct::detail::point_offsets<T, D>{e.p, c}), e.id});
            std::sort(by.begin(), by.end(), [](const measured& x, const measured& y) {
                return quoct::detail::wide_less(x.d, y.d) || (!quoct::detail::wide_less(y.d, x.d) && x.id < y.id);
            });
            std::vector<std::pair<T, Id>> all;
            for (std::size_t i = 0; i < std::min(k, by.size()); ++i)
                all.emplace_back(quoct::detail::wide_value(by[i].d), by[i].id);
            QUOCT_FUZZ_CHECK(got.size() == all.size(), "nearest: wrong number of neighbours");
            for (std::size_t i = 0; i < all.size(); ++i)
                QUOCT_FUZZ_CHECK(got[i].id == all[i].second && got[i].distance_sq == all[i].first,
                                 "nearest " + str(c) + " k " + std::to_string(k) + ": rank " + std::to_string(i) +
                                     " is id " + std::to_string(got[i].id) + ", brute force id " +
                                     std::to_string(all[i].second));
            break;
        }
    }
}

// --- the brute-force oracle for pair searches (pairs.hpp, on any point index) -------------

/// The Euclidean squared distance and ball predicate, for check_pairs.
template <class T, std::size_t D>
struct euclidean_distance {
    T operator()(const quoct::point<T, D>& p, const quoct::point<T, D>& q) const { return quoct::distance_sq(p, q); }
    bool within(const quoct::point<T, D>& p, const quoct::point<T, D>& q, T r) const {
        return quoct::contains(quoct::ball<T, D>{q, r}, p);
    }
};

/// The minimum-image squared distance and ball predicate of a periodic domain.
template <class T, std::size_t D>
struct periodic_distance {
    quoct::periodic_domain<T, D> dom;
    T operator()(const quoct::point<T, D>& p, const quoct::point<T, D>& q) const { return dom.distance_sq(p, q); }
    bool within(const quoct::point<T, D>& p, const quoct::point<T, D>& q, T r) const {
        const quoct::detail::radius_bound<T, D> bound(r);
        return bound.admits(dom.distance_sq(p, q), [&](std::size_t a) { return dom.wide_axis_distance(a, p[a], q[a]); });
    }
};

/// Checks for_each_pair_within, pairs_within and neighbor_lists on one index for radius r
/// (invalid when NaN or negative: each must throw std::invalid_argument) against brute
/// force over `live` with dist(p, q), the index's documented squared distance, and
/// dist.within(p, q, r), its ball predicate (euclidean_distance, periodic_distance).
template <class Index, class T, std::size_t D, class Id, class Dist>
void check_pairs(const Index& index, const std::vector<entry<T, D, Id>>& live, Dist&& dist, T r, unsigned threads,
                 std::size_t stop_after) {
    const bool bad = !(r >= 0);
    std::size_t calls = 0;
    const auto each = [&](Id, Id, T) { ++calls; };
    if (!QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, bad, quoct::for_each_pair_within(index, r, each))) {
        QUOCT_FUZZ_CHECK(calls == 0, "for_each_pair_within called f before throwing");
        QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, true, (void)quoct::pairs_within(index, r, threads));
        QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, true, (void)quoct::neighbor_lists(index, r, threads));
        return;
    }
    std::vector<std::pair<Id, Id>> want;
    std::vector<std::vector<Id>> rows(quoct::detail::id_bound(index));
    for (const auto& a : live)
        for (const auto& b : live)
            if (a.id != b.id && dist.within(a.p, b.p, r)) {
                if (a.id < b.id) want.emplace_back(a.id, b.id);
                rows[a.id].push_back(b.id);
            }
    want = sorted(want);
    const std::string at = " (r " + str(r) + ", " + std::to_string(live.size()) + " points)";

    std::vector<std::pair<Id, Id>> got;
    quoct::for_each_pair_within(index, r, [&](Id i, Id j, T d2) {
        QUOCT_FUZZ_CHECK(i < j, "for_each_pair_within: a pair with i >= j" + at);
        const auto pi = std::find_if(live.begin(), live.end(), [&](const entry<T, D, Id>& e) { return e.id == i; });
        const auto pj = std::find_if(live.begin(), live.end(), [&](const entry<T, D, Id>& e) { return e.id == j; });
        QUOCT_FUZZ_CHECK(pi != live.end() && pj != live.end(), "for_each_pair_within: an id that is not live" + at);
        QUOCT_FUZZ_CHECK(d2 == dist(pi->p, pj->p), "for_each_pair_within: d2 is not the distance" + at);
        got.emplace_back(i, j);
    });
    if (sorted(got) != want) {
        std::string msg = "for_each_pair_within gave " + std::to_string(got.size()) + " pairs, brute force " +
                          std::to_string(want.size()) + at;
        got = sorted(got);
        for (const auto& w : want)
            if (!std::binary_search(got.begin(), got.end(), w))
                msg += "; missing (" + std::to_string(w.first) + ", " + std::to_string(w.second) + ")";
        fail(__FILE__, __LINE__, msg);
    }
    calls = 0;
    const bool went_on = quoct::for_each_pair_within(index, r, [&](Id, Id) { return ++calls < stop_after; });
    QUOCT_FUZZ_CHECK(went_on == (stop_after > want.size()) && calls == std::min(stop_after, want.size()),
                     "for_each_pair_within: stopping early went wrong" + at);
    QUOCT_FUZZ_CHECK(quoct::pairs_within(index, r, threads) == want, "pairs_within differs from brute force" + at);
    const auto lists = quoct::neighbor_lists(index, r, threads);
    QUOCT_FUZZ_CHECK(lists.rows() == rows.size(), "neighbor_lists: wrong number of rows" + at);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto row = lists.row(i);
        QUOCT_FUZZ_CHECK(std::vector<Id>(row.begin(), row.end()) == sorted(rows[i]),
                         "neighbor_lists: row " + std::to_string(i) + " differs from brute force" + at);
    }
}

/// Checks the two-index for_each_pair_within and neighbor_lists(a, b, r): every point of
/// `a` against every point of `b`, by dist (b's distance).
template <class IndexA, class IndexB, class T, std::size_t D, class IdA, class IdB, class Dist>
void check_cross_pairs(const IndexA& a, const std::vector<entry<T, D, IdA>>& live_a, const IndexB& b,
                       const std::vector<entry<T, D, IdB>>& live_b, Dist&& dist, T r, unsigned threads) {
    if (!QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, !(r >= 0), (void)quoct::neighbor_lists(a, b, r, threads))) {
        QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, true, quoct::for_each_pair_within(a, b, r, [](IdA, IdB) {}));
        return;
    }
    std::vector<std::pair<IdA, IdB>> want, got;
    std::vector<std::vector<IdB>> rows(quoct::detail::id_bound(a));
    for (const auto& p : live_a)
        for (const auto& q : live_b)
            if (dist.within(p.p, q.p, r)) want.emplace_back(p.id, q.id), rows[p.id].push_back(q.id);
    quoct::for_each_pair_within(a, b, r, [&](IdA i, IdB j, T d2) {
        got.emplace_back(i, j);
        const auto pi = std::find_if(live_a.begin(), live_a.end(), [&](const entry<T, D, IdA>& e) { return e.id == i; });
        const auto pj = std::find_if(live_b.begin(), live_b.end(), [&](const entry<T, D, IdB>& e) { return e.id == j; });
        QUOCT_FUZZ_CHECK(pi != live_a.end() && pj != live_b.end() && d2 == dist(pi->p, pj->p),
                         "for_each_pair_within(a, b): wrong id or distance");
    });
    const std::string at = " (r " + str(r) + ")";
    QUOCT_FUZZ_CHECK(sorted(got) == sorted(want), "for_each_pair_within(a, b) differs from brute force (" +
                                                      std::to_string(got.size()) + " pairs, brute force " +
                                                      std::to_string(want.size()) + ")" + at);
    const auto lists = quoct::neighbor_lists(a, b, r, threads);
    QUOCT_FUZZ_CHECK(lists.rows() == rows.size(), "neighbor_lists(a, b): wrong number of rows" + at);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto row = lists.row(i);
        QUOCT_FUZZ_CHECK(std::vector<IdB>(row.begin(), row.end()) == sorted(rows[i]),
                         "neighbor_lists(a, b): row " + std::to_string(i) + " differs from brute force" + at);
    }
}

/// Calls f.template operator()<T, D>() ... for one (scalar, dimension) pair picked by one
/// byte: float and double in 2 and 3 dimensions, double in 1 and float in 4.
template <class F>
void with_type(input& in, F&& f) {
    switch (in.below(6)) {
        case 0: f.template run<float, 2>(in); break;
        case 1: f.template run<float, 3>(in); break;
        case 2: f.template run<double, 2>(in); break;
        case 3: f.template run<double, 3>(in); break;
        case 4: f.template run<double, 1>(in); break;
        default: f.template run<float, 4>(in); break;
    }
}

}  // namespace quoct_fuzz

#endif  // QUOCT_FUZZ_SUPPORT_HPP
