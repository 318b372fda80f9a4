// The "unchanged when a call throws" promises under memory exhaustion. This file replaces
// the global operator new (for the whole test program) by one that, while armed, makes the
// n-th allocation throw std::bad_alloc (and, in the persistent mode, every one after it).
// Each mutating call is run on a copy of the index once for every n until it no longer
// reaches the failure, so every allocation point of the call fails in turn: after a throw
// the copy must answer exactly as the index did before the call, and after a return
// (memory trouble absorbed) exactly as a brute-force model with the change applied.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <random>
#include <utility>
#include <vector>

#include <quoct/dynamic.hpp>
#include <quoct/objects.hpp>
#include <quoct/pairs.hpp>
#include <quoct/parallel.hpp>
#include <quoct/periodic.hpp>

#include "test_alloc_count.hpp"
#include "test_support.hpp"

namespace {

struct allocation_limit {
    std::atomic<bool> armed{false};
    std::atomic<bool> persistent{false};
    std::atomic<bool> fired{false};
    std::atomic<long> left{0};

    bool fail_now() noexcept {
        if (!armed.load(std::memory_order_relaxed)) return false;
        if (left.fetch_sub(1) > 0) return false;
        fired = true;
        if (!persistent) armed = false;
        return true;
    }
};
allocation_limit limit;

// Byte accounting for alloc_count (test_alloc_count.hpp): each block carries its size and
// the counting round it was allocated in (0: none) in a header in front of it, so that
// delete subtracts exactly the blocks that were added.
struct byte_count {
    std::atomic<bool> on{false};
    std::atomic<std::uint64_t> round{0};
    std::atomic<long long> live{0};
    std::atomic<long long> peak{0};
    std::atomic<long long> blocks{0};  // all allocated in the round, freed or not
    std::atomic<long long> total{0};   // their bytes
};
byte_count bytes;
constexpr std::size_t header = alignof(std::max_align_t) < 2 * sizeof(std::uint64_t) ? 2 * sizeof(std::uint64_t)
                                                                                       : alignof(std::max_align_t);

void* allocate(std::size_t n) {
    if (limit.fail_now()) throw std::bad_alloc();
    if (n > static_cast<std::size_t>(-1) - header) throw std::bad_alloc();
    if (auto* p = static_cast<unsigned char*>(std::malloc(n + header))) {
        const std::uint64_t size = n, round = bytes.on.load(std::memory_order_relaxed) ? bytes.round.load() : 0;
        std::memcpy(p, &size, sizeof size);
        std::memcpy(p + sizeof size, &round, sizeof round);
        if (round != 0) {
            ++bytes.blocks;
            bytes.total += static_cast<long long>(n);
            const long long now = bytes.live += static_cast<long long>(n);
            for (long long was = bytes.peak.load(); now > was && !bytes.peak.compare_exchange_weak(was, now);) {
            }
        }
        return p + header;
    }
    throw std::bad_alloc();
}

void release(void* q) noexcept {
    if (q == nullptr) return;
    auto* p = static_cast<unsigned char*>(q) - header;
    std::uint64_t size, round;
    std::memcpy(&size, p, sizeof size);
    std::memcpy(&round, p + sizeof size, sizeof round);
    if (round != 0 && round == bytes.round.load() && bytes.on.load(std::memory_order_relaxed))
        bytes.live -= static_cast<long long>(size);
    std::free(p);
}

// Runs op with allocation n (counted from 0) failing, and every later one too when
// `persistent`. Says whether op threw std::bad_alloc and whether the failure was reached.
struct outcome {
    bool threw;
    bool fired;
};
template <class Op>
outcome run_failing_at(long n, bool persistent, Op&& op) {
    struct disarm {
        ~disarm() { limit.armed = false; }
    } guard;
    limit.left = n;
    limit.persistent = persistent;
    limit.fired = false;
    limit.armed = true;
    outcome o{false, false};
    try {
        op();
    } catch (const std::bad_alloc&) {
        o.threw = true;
    }
    limit.armed = false;
    o.fired = limit.fired;
    return o;
}

// Runs op(copy) on copies of `index`, failing at every allocation in turn (both modes),
// and checks each copy with check_before (after a throw) or check_after (after a return).
// Returns how many allocation points were tried.
template <class Index, class Op, class Before, class After>
long every_failure(const Index& index, Op&& op, Before&& check_before, After&& check_after) {
    long n = 0;
    for (bool persistent : {false, true}) {
        for (n = 0;; ++n) {
            Index copy(index);
            const outcome o = run_failing_at(n, persistent, [&] { op(copy); });
            if (o.threw) check_before(copy);
            else check_after(copy);
            if (!o.fired) break;
            REQUIRE(n < 100000);
        }
    }
    return n;
}

}  // namespace

// Every plain and nothrow form, so that no block is freed by another allocator's delete
// (the sanitizer runtime brings its own; the over-aligned forms stay all its own).
void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return allocate(n);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, const std::nothrow_t& tag) noexcept { return operator new(n, tag); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }

void alloc_count::start() noexcept {
    bytes.live = 0;
    bytes.peak = 0;
    bytes.blocks = 0;
    bytes.total = 0;
    ++bytes.round;
    bytes.on = true;
}

std::size_t alloc_count::stop() noexcept {
    bytes.on = false;
    return static_cast<std::size_t>(bytes.peak.load());
}

alloc_count::totals alloc_count::allocated() noexcept {
    return {static_cast<std::size_t>(bytes.blocks.load()), static_cast<std::size_t>(bytes.total.load())};
}

namespace {

using P = quoct::point<double, 2>;

// The points of a dynamic index as a model: id -> point.
using point_model = std::map<std::uint32_t, P>;

template <class Index>
void check_points(const Index& index, const point_model& m, std::size_t id_bound) {
    REQUIRE(index.size() == m.size());
    REQUIRE(index.id_bound() == id_bound);
    for (std::uint32_t id = 0; id <= id_bound; ++id) {
        REQUIRE(index.contains(id) == (m.count(id) == 1));
        if (m.count(id)) REQUIRE(index.point(id) == m.at(id));
    }
    // Centres and radius for which the periodic index's minimum image changes nothing.
    for (const P& c : {P{{0.5, 0.5}}, P{{0.4, 0.6}}, P{{0.6, 0.45}}}) {
        const quoct::ball<double, 2> s{c, 0.3};
        std::vector<std::uint32_t> expect;
        for (const auto& kv : m)
            if (quoct::contains(s, kv.second)) expect.push_back(kv.first);
        REQUIRE(quoct_test::sorted(index.query(s)) == expect);
        REQUIRE(index.count(s) == expect.size());
    }
}

template <class Index>
auto rebuild_if_any(Index& x, int) -> decltype(x.rebuild(), void()) {
    x.rebuild();
}
template <class Index>
void rebuild_if_any(Index&, long) {}

template <class Index>
void dynamic_under_failures(Index index, point_model m, unsigned seed) {
    quoct_test::rng rng(seed);
    for (int step = 0; step < 120; ++step) {
        const std::size_t bound = index.id_bound();
        const auto id = static_cast<std::uint32_t>(rng() % (bound + 1));
        const P p = quoct_test::random_point<double, 2>(rng, 0, 1);
        const int op = static_cast<int>(rng() % 4);
        point_model after = m;
        std::size_t bound_after = bound;
        if (op == 0) {
            after[static_cast<std::uint32_t>(bound)] = p;
            ++bound_after;
        } else if (op == 1) {
            after.erase(id);
        } else if (op == 2 && m.count(id)) {
            after[id] = p;
        }
        std::size_t answer = 0;  // what insert or erase returned
        const auto apply = [&](Index& x) {
            if (op == 0) answer = x.insert(p);
            else if (op == 1) answer = x.erase(id);
            else if (op == 2 && m.count(id)) x.move(id, p);
            else rebuild_if_any(x, 0);
        };
        const std::size_t expect = op == 0 ? bound : op == 1 ? m.count(id) : 0;
        every_failure(
            index, apply, [&](const Index& x) { check_points(x, m, bound); },
            [&](const Index& x) {
                REQUIRE(answer == expect);
                check_points(x, after, bound_after);
            });
        apply(index);
        m = after;
    }
}

}  // namespace

TEST_CASE("dynamic index: unchanged when an allocation fails", "[dynamic][alloc]") {
    quoct_test::rng rng(1);
    std::vector<P> pts(150);
    for (auto& p : pts) p = quoct_test::random_point<double, 2>(rng, 0, 1);
    point_model m;
    for (std::uint32_t i = 0; i < pts.size(); ++i) m[i] = pts[i];
    quoct::dynamic_options options;
    options.tail_limit = 3;  // folds and rebuilds every few calls
    options.rebuild_fraction = 0.2;
    dynamic_under_failures(quoct::dynamic_orthtree<double, 2>(pts, options), m, 2);
    quoct::periodic_domain<double, 2> dom{{1.0, 1.0}};
    dynamic_under_failures(quoct::periodic_index<quoct::dynamic_orthtree<double, 2>>(dom, pts, options), m, 3);
}

namespace {

template <class Shape>
using shape_model = std::map<std::uint32_t, Shape>;

template <class Shape>
void check_objects(const quoct::object_index<Shape>& index, const shape_model<Shape>& m, std::size_t id_bound) {
    REQUIRE(index.size() == m.size());
    REQUIRE(index.id_bound() == id_bound);
    for (std::uint32_t id = 0; id <= id_bound; ++id) {
        REQUIRE(index.contains(id) == (m.count(id) == 1));
        if (m.count(id)) {
            const Shape& s = index.shape(id);
            REQUIRE(std::memcmp(&s, &m.at(id), sizeof(Shape)) == 0);
        }
    }
    for (const P& c : {P{{0.5, 0.5}}, P{{0.1, 0.9}}}) {
        const quoct::ball<double, 2> q{c, 0.2};
        std::vector<std::uint32_t> expect;
        for (const auto& kv : m)
            if (quoct::intersects(kv.second, q)) expect.push_back(kv.first);
        REQUIRE(quoct_test::sorted(index.query(q)) == expect);
    }
}

template <class Shape>
Shape object_like(quoct_test::rng& rng, const Shape&);
template <>
quoct::ball<double, 2> object_like(quoct_test::rng& rng, const quoct::ball<double, 2>&) {
    const double sizes[] = {0, 0.01, 0.012, 0.05, 0.3};
    return {quoct_test::random_point<double, 2>(rng, 0, 1), sizes[rng() % 5]};
}
template <>
quoct::box<double, 2> object_like(quoct_test::rng& rng, const quoct::box<double, 2>&) {
    const double sizes[] = {0, 0.01, 0.012, 0.05, 0.3};
    quoct::box<double, 2> b{quoct_test::random_point<double, 2>(rng, 0, 1), {}};
    for (std::size_t a = 0; a < 2; ++a) b.hi[a] = b.lo[a] + sizes[rng() % 5];
    return b;
}

template <class Shape>
void objects_under_failures(unsigned seed) {
    quoct_test::rng rng(seed);
    const Shape tag{};
    std::vector<Shape> initial(80);
    for (auto& s : initial) s = object_like(rng, tag);
    quoct::object_index<Shape> index(initial);
    shape_model<Shape> m;
    for (std::uint32_t i = 0; i < initial.size(); ++i) m[i] = initial[i];
    for (int step = 0; step < 250; ++step) {
        const std::size_t bound = index.id_bound();
        const auto id = static_cast<std::uint32_t>(rng() % (bound + 1));
        const Shape s = object_like(rng, tag);
        // Mostly updates, which move objects between size classes (and compact them).
        const int op = static_cast<int>(rng() % 6);
        shape_model<Shape> after = m;
        std::size_t bound_after = bound;
        if (op == 0) {
            after[static_cast<std::uint32_t>(bound)] = s;
            ++bound_after;
        } else if (op == 1) {
            after.erase(id);
        } else if (m.count(id)) {
            after[id] = s;
        }
        std::size_t answer = 0;  // what insert or erase returned
        const auto apply = [&](quoct::object_index<Shape>& x) {
            if (op == 0) answer = x.insert(s);
            else if (op == 1) answer = x.erase(id);
            else if (m.count(id)) x.update(id, s);
        };
        const std::size_t expect = op == 0 ? bound : op == 1 ? m.count(id) : 0;
        every_failure(
            index, apply, [&](const quoct::object_index<Shape>& x) { check_objects(x, m, bound); },
            [&](const quoct::object_index<Shape>& x) {
                REQUIRE(answer == expect);
                check_objects(x, after, bound_after);
            });
        apply(index);
        m = after;
    }
    std::vector<std::pair<std::uint32_t, std::uint32_t>> expect;
    for (auto i = m.begin(); i != m.end(); ++i)
        for (auto j = std::next(i); j != m.end(); ++j)
            if (quoct::intersects(i->second, j->second)) expect.emplace_back(i->first, j->first);
    CHECK(index.colliding_pairs() == expect);
}

}  // namespace

TEST_CASE("object indexes: unchanged when an allocation fails", "[sim][objects][alloc]") {
    objects_under_failures<quoct::ball<double, 2>>(4);
    objects_under_failures<quoct::box<double, 2>>(5);
}

TEST_CASE("const calls under failing allocations: an exception or the exact answer", "[sim][alloc]") {
    quoct_test::rng rng(6);
    std::vector<P> pts(3000);
    for (auto& p : pts) p = quoct_test::random_point<double, 2>(rng, 0, 1);
    const quoct::orthtree<double, 2> tree(pts);
    const auto pairs = quoct::pairs_within(tree, 0.02);
    const auto lists = quoct::neighbor_lists(tree, 0.02);
    std::vector<quoct::ball<double, 2>> queries(700);
    for (auto& q : queries) q = {quoct_test::random_point<double, 2>(rng, 0, 1), 0.03};
    const auto rows = quoct::batch_query(tree, queries);
    for (unsigned threads : {1u, 4u}) {
        for (long n = 0;; n += 1 + n / 8) {
            std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
            const outcome o = run_failing_at(n, true, [&] { got = quoct::pairs_within(tree, 0.02, threads); });
            if (!o.threw) REQUIRE(got == pairs);
            if (!o.fired) break;
        }
        for (long n = 0;; n += 1 + n / 8) {
            quoct::csr<std::uint32_t> got;
            const outcome o = run_failing_at(n, true, [&] { got = quoct::neighbor_lists(tree, 0.02, threads); });
            if (!o.threw) REQUIRE((got.offsets == lists.offsets && got.values == lists.values));
            if (!o.fired) break;
        }
        for (long n = 0;; n += 1 + n / 8) {
            quoct::csr<std::uint32_t> got;
            const outcome o = run_failing_at(n, true, [&] { got = quoct::batch_query(tree, queries, threads); });
            if (!o.threw) REQUIRE((got.offsets == rows.offsets && got.values == rows.values));
            if (!o.fired) break;
        }
    }
    // A build either fails, leaving nothing behind (the sanitizer build checks for leaks),
    // or copes (std::stable_sort falls back when its buffer cannot be had) and is exact.
    const quoct::ball<double, 2> s{{{0.5, 0.5}}, 0.1};
    const auto in_s = quoct_test::sorted(tree.query(s));
    for (long n = 0;; ++n) {
        std::vector<std::uint32_t> got = in_s;
        const outcome o = run_failing_at(n, false, [&] {
            const quoct::orthtree<double, 2> t(pts, quoct::build_options{4, quoct::max_depth_limit});
            std::vector<std::uint32_t> r;
            t.query(s, r);
            got = std::move(r);
        });
        REQUIRE(quoct_test::sorted(got) == in_s);
        if (!o.fired) break;
    }
}
