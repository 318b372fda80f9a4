// quoct's neighbour lists against TreeNSearch and CompactNSearch (Google Benchmark), in one
// binary on the same float particles, so the ratios come out of one run. Built only when
// CMake is given a checkout of at least one peer (QUOCT_TREENSEARCH_DIR,
// QUOCT_COMPACTNSEARCH_DIR; see bench/README.md).
//
// Every library computes, for every particle, the ids of the others within radius r, in
// its own list format (quoct: csr, rows sorted; TreeNSearch: its per-thread lists;
// CompactNSearch: one std::vector per particle). Predicates: quoct and TreeNSearch keep
// d <= r (closed ball), CompactNSearch d < r (open ball), all in float.
//
// Workloads (particles sorted along a Z curve before any library sees them):
//   block          1M particles on a cubic lattice (spacing 1) jittered uniformly by up to
//                  0.25 per axis; r = 2 (about 32 neighbours each)
//   splash         the same block with a random 20% moved to uniform places in a sparse box
//                  beside it (10x the block's side, so 1/1000 of the block's density)
//   small          the block at 100k particles
//   block_random   the 1M block in random order (1 thread only)
//   *_cells        block, splash and small with the particles in quoct::neighbor_order
//                  (quoct's own order, as an SPH code that reorders with quoct keeps them)
// Operations, named operation/workload/library/threads:n:
//   first  set up and search from scratch (quoct: neighbor_lists on the array;
//          quoct_octree, on block and block_cells: build an octree<float>, neighbor_lists)
//   step   every particle kicked by up to 0.05 per axis (untimed, alternating sign), then
//          the lists brought up to date: TreeNSearch run() and CompactNSearch
//          find_neighbors() on the same point set, quoct neighbor_lists on the moved array
//          (quoct_octree: a new octree, then neighbor_lists).
// The previous iteration's lists are freed untimed. Wall time (UseRealTime); items/s are
// particles per second.
//
// Before a workload is timed, every library's lists are compared with quoct's as sets per
// particle (counters entries, missing, extra, missing_at_r: missing pairs at exactly
// distance_sq == r*r); --check runs only the checks, on every workload plus an integer
// lattice (50^3, r = 2, no jitter: d == r pairs by the hundred thousand) and brute force
// against quoct on sampled particles, and exits non-zero on a difference not explained
// by the predicates.
//
// Flags and environment: --smoke or QUOCT_BENCH_SMOKE=1 (20k particles), QUOCT_BENCH_N=<n>
// (the 1M size; small is n/10), --no-check (time without the checks),
// QUOCT_NSEARCH_ITERS=<k> (iterations per benchmark; default 3 at 1M, 10 below).
// Peak memory: QUOCT_NSEARCH_RSS=quoct|treensearch|compactnsearch runs that library's first
// search once, in this process, on QUOCT_NSEARCH_WORKLOAD (default block) with
// QUOCT_NSEARCH_THREADS (default 1) threads, and prints getrusage's ru_maxrss minus the
// resident size before the search (bench/nsearch_rss.sh runs it for each library).
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <malloc.h>

#include <quoct/orthtree.hpp>
#include <quoct/pairs.hpp>
#include <quoct/parallel.hpp>

#ifdef QUOCT_HAVE_TREENSEARCH
#include "nsearch_treensearch.hpp"
#endif
#ifdef QUOCT_HAVE_COMPACTNSEARCH
#include <CompactNSearch>
#include <omp.h>
#endif

namespace {

using pt = quoct::point<float, 3>;
static_assert(sizeof(pt) == 3 * sizeof(float), "the peers read the points as a flat xyzxyz... array");

bool smoke() {
    const char* s = std::getenv("QUOCT_BENCH_SMOKE");
    return s && *s && std::strcmp(s, "0") != 0;
}

std::size_t big_size() {
    if (const char* n = std::getenv("QUOCT_BENCH_N")) return std::max<std::size_t>(1000, std::strtoull(n, nullptr, 10));
    return smoke() ? 20000 : 1000000;
}

// --- data ------------------------------------------------------------------------------

// n points on a cubic lattice of spacing 1, side round(cbrt(n)), filled layer by layer,
// each moved by a uniform jitter in [-jitter, jitter] per axis.
std::vector<pt> lattice(std::size_t n, float jitter, std::uint64_t seed) {
    const auto side = static_cast<std::size_t>(std::lround(std::cbrt(static_cast<double>(n))));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(-jitter, jitter);
    std::vector<pt> pts(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t c[3] = {i % side, i / side % side, i / (side * side)};
        for (std::size_t a = 0; a < 3; ++a) pts[i][a] = static_cast<float>(c[a]) + (jitter > 0 ? u(rng) : 0.0f);
    }
    return pts;
}

// Moves a random fifth of the points to uniform places in a box of 10x the block's side
// beside it (x from 2 to 12 sides, y and z centred on the block).
void splash(std::vector<pt>& pts, std::uint64_t seed) {
    const float side = std::cbrt(static_cast<float>(pts.size()));
    std::mt19937_64 rng(seed);
    std::vector<std::size_t> ids(pts.size());
    std::iota(ids.begin(), ids.end(), std::size_t{0});
    std::shuffle(ids.begin(), ids.end(), rng);
    std::uniform_real_distribution<float> x(2 * side, 12 * side), yz(-4.5f * side, 5.5f * side);
    for (std::size_t k = 0; k < pts.size() / 5; ++k) pts[ids[k]] = {{x(rng), yz(rng), yz(rng)}};
}

// Sorts the points along a Z curve over their bounding box (21 bits per axis). A data
// preparation shared by every library, kept apart from quoct's own Morton code.
void morton_sort(std::vector<pt>& pts) {
    pt lo = pts[0], hi = pts[0];
    for (const pt& p : pts)
        for (std::size_t a = 0; a < 3; ++a) {
            lo[a] = std::min(lo[a], p[a]);
            hi[a] = std::max(hi[a], p[a]);
        }
    const auto spread = [](std::uint64_t v) {  // bit b of v to bit 3b
        std::uint64_t k = 0;
        for (unsigned b = 0; b < 21; ++b) k |= ((v >> b) & 1u) << (3 * b);
        return k;
    };
    std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed(pts.size());
    for (std::size_t i = 0; i < pts.size(); ++i) {
        std::uint64_t key = 0;
        for (std::size_t a = 0; a < 3; ++a) {
            const double extent = std::max(1e-30, static_cast<double>(hi[a]) - lo[a]);
            const double q = (static_cast<double>(pts[i][a]) - lo[a]) / extent * ((1u << 21) - 1);
            key |= spread(static_cast<std::uint64_t>(q)) << a;
        }
        keyed[i] = {key, static_cast<std::uint32_t>(i)};
    }
    std::sort(keyed.begin(), keyed.end());
    std::vector<pt> sorted(pts.size());
    for (std::size_t i = 0; i < pts.size(); ++i) sorted[i] = pts[keyed[i].second];
    pts.swap(sorted);
}

struct workload {
    std::string name;
    std::vector<pt> points;
    std::vector<pt> kicks;  // per-particle displacement of a step, applied with alternating sign
    float r = 2;
};

std::vector<pt> kicks_for(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(-0.05f, 0.05f);
    std::vector<pt> k(n);
    for (pt& p : k) p = {{u(rng), u(rng), u(rng)}};
    return k;
}

workload make_workload(const std::string& name) {
    workload w;
    w.name = name;
    // "<base>_cells": the base workload's particles in quoct::neighbor_order instead of a
    // Z curve, as an SPH code keeps them when it reorders with quoct (as it would with
    // TreeNSearch's or CompactNSearch's own sort).
    const std::string suffix = "_cells";
    const bool cells = name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    const std::string base = cells ? name.substr(0, name.size() - suffix.size()) : name;
    const std::size_t n = base == "small" ? std::max<std::size_t>(1000, big_size() / 10) : big_size();
    if (base == "integer") {
        w.points = lattice(125000, 0, 0);  // 50^3 integer points
    } else {
        w.points = lattice(n, 0.25f, 2024);
        if (base == "splash") splash(w.points, 7);
    }
    morton_sort(w.points);
    if (cells) w.points = quoct::reorder(w.points, quoct::neighbor_order(w.points, w.r));
    if (base == "block_random") std::shuffle(w.points.begin(), w.points.end(), std::mt19937_64(99));
    w.kicks = kicks_for(w.points.size(), 31);
    return w;
}

void kick(std::vector<pt>& pts, const std::vector<pt>& kicks, int step) {
    const float sign = step % 2 ? -1.0f : 1.0f;
    for (std::size_t i = 0; i < pts.size(); ++i)
        for (std::size_t a = 0; a < 3; ++a) pts[i][a] += sign * kicks[i][a];
}

// --- the libraries ----------------------------------------------------------------------
//
// Each: first(points, r, threads) sets up and searches, returning its state; step(state)
// searches again after the points (the same array) moved; rows(state) copies its lists
// into a csr with sorted rows, for the checks only.

using lists = quoct::csr<std::uint32_t>;

lists sorted_rows(std::size_t n, const std::function<void(std::size_t, std::vector<std::uint32_t>&)>& row) {
    lists out;
    out.offsets.assign(n + 1, 0);
    std::vector<std::uint32_t> r;
    for (std::size_t i = 0; i < n; ++i) {
        r.clear();
        row(i, r);
        std::sort(r.begin(), r.end());
        out.values.insert(out.values.end(), r.begin(), r.end());
        out.offsets[i + 1] = out.values.size();
    }
    return out;
}

// quoct as a simulation step calls it: neighbor_lists on the particles' array, no index.
struct quoct_lib {
    static constexpr const char* name = "quoct";
    struct state {
        const std::vector<pt>* pts;
        float r;
        unsigned threads;
        lists table;
    };
    static std::unique_ptr<state> first(const std::vector<pt>& pts, float r, unsigned threads) {
        return std::unique_ptr<state>(new state{&pts, r, threads, quoct::neighbor_lists(pts, r, threads)});
    }
    static void before_step(state&) {}
    // Into the same table every step, as a simulation calls it (as the peers keep their
    // buffers from step to step).
    static void step(state& s) { quoct::neighbor_lists(*s.pts, s.r, s.table, s.threads); }
    static std::size_t entries(const state& s, std::size_t) { return s.table.values.size(); }
    static lists rows(const state& s, std::size_t) { return s.table; }
};

// quoct through an index: an octree<float> built every step, then neighbor_lists on it.
struct quoct_octree_lib {
    static constexpr const char* name = "quoct_octree";
    using state = quoct_lib::state;
    static std::unique_ptr<state> first(const std::vector<pt>& pts, float r, unsigned threads) {
        const quoct::octree<float> tree(pts);
        return std::unique_ptr<state>(new state{&pts, r, threads, quoct::neighbor_lists(tree, r, threads)});
    }
    static void before_step(state& s) { s.table = lists(); }
    static void step(state& s) {
        const quoct::octree<float> tree(*s.pts);
        s.table = quoct::neighbor_lists(tree, s.r, s.threads);
    }
    static std::size_t entries(const state& s, std::size_t) { return s.table.values.size(); }
    static lists rows(const state& s, std::size_t) { return s.table; }
};

#ifdef QUOCT_HAVE_TREENSEARCH
struct treensearch_lib {
    static constexpr const char* name = "treensearch";
    using state = nsearch_peer::treensearch;
    static std::unique_ptr<state> first(const std::vector<pt>& pts, float r, unsigned threads) {
        return std::unique_ptr<state>(
            new state(pts.data()->coords, static_cast<int>(pts.size()), r, static_cast<int>(threads)));
    }
    static void before_step(state&) {}
    static void step(state& s) { s.run(); }
    static std::size_t entries(const state& s, std::size_t n) {
        std::size_t e = 0;
        for (std::size_t i = 0; i < n; ++i) e += static_cast<std::size_t>(s.count(static_cast<int>(i)));
        return e;
    }
    static lists rows(const state& s, std::size_t n) {
        return sorted_rows(n, [&](std::size_t i, std::vector<std::uint32_t>& r) {
            const int* p = s.row(static_cast<int>(i));
            r.assign(p, p + s.count(static_cast<int>(i)));
        });
    }
};
#endif

#ifdef QUOCT_HAVE_COMPACTNSEARCH
struct compactnsearch_lib {
    static constexpr const char* name = "compactnsearch";
    struct state {
        CompactNSearch::NeighborhoodSearch search;
        unsigned set = 0;
        explicit state(float r) : search(r) {}
    };
    // CompactNSearch runs on OpenMP (GNU parallel mode), so its thread count is OpenMP's.
    static std::unique_ptr<state> first(const std::vector<pt>& pts, float r, unsigned threads) {
        omp_set_num_threads(static_cast<int>(threads));
        std::unique_ptr<state> s(new state(r));
        s->set = s->search.add_point_set(pts.data()->coords, pts.size(), true, true);
        s->search.find_neighbors();
        return s;
    }
    static void before_step(state&) {}
    static void step(state& s) { s.search.find_neighbors(); }
    static std::size_t entries(const state& s, std::size_t n) {
        const CompactNSearch::PointSet& ps = s.search.point_set(s.set);
        std::size_t e = 0;
        for (std::size_t i = 0; i < n; ++i) e += ps.n_neighbors(s.set, static_cast<unsigned>(i));
        return e;
    }
    static lists rows(const state& s, std::size_t n) {
        const CompactNSearch::PointSet& ps = s.search.point_set(s.set);
        return sorted_rows(n, [&](std::size_t i, std::vector<std::uint32_t>& r) {
            const auto& l = ps.neighbor_list(s.set, static_cast<unsigned>(i));
            r.assign(l.begin(), l.end());
        });
    }
};
#endif

// --- checks -----------------------------------------------------------------------------

struct difference {
    std::size_t entries = 0, missing = 0, extra = 0;
    std::size_t missing_at_r = 0, extra_at_r = 0;      // distance_sq == r * r exactly
    std::size_t missing_near_r = 0, extra_near_r = 0;  // within 4 ulp of r * r, not equal
    std::size_t unexplained(bool open_ball) const {
        return (missing - missing_near_r - (open_ball ? missing_at_r : 0)) + (extra - extra_near_r);
    }
};

// got against the reference ref (both with sorted rows) over the points pts.
difference compare(const lists& ref, const lists& got, const std::vector<pt>& pts, float r) {
    difference d;
    d.entries = got.values.size();
    const float r_sq = r * r;
    const auto classify = [&](std::size_t i, std::uint32_t j, std::size_t& at, std::size_t& near) {
        const float d2 = quoct::distance_sq(pts[i], pts[j]);
        if (d2 == r_sq)
            ++at;
        else if (std::fabs(d2 - r_sq) <= 4 * std::numeric_limits<float>::epsilon() * r_sq)
            ++near;
    };
    for (std::size_t i = 0; i + 1 < ref.offsets.size(); ++i) {
        std::size_t a = ref.offsets[i], b = got.offsets[i];
        const std::size_t ae = ref.offsets[i + 1], be = got.offsets[i + 1];
        while (a < ae || b < be) {
            if (b == be || (a < ae && ref.values[a] < got.values[b])) {
                ++d.missing;
                classify(i, ref.values[a++], d.missing_at_r, d.missing_near_r);
            } else if (a == ae || got.values[b] < ref.values[a]) {
                ++d.extra;
                classify(i, got.values[b++], d.extra_at_r, d.extra_near_r);
            } else {
                ++a;
                ++b;
            }
        }
    }
    return d;
}

// Brute force against quoct's rows for `samples` particles (all when fewer): j != i with
// distance_sq(p_i, p_j) <= r * r in float. Returns the number of rows that differ.
std::size_t brute_force_check(const lists& table, const std::vector<pt>& pts, float r, std::size_t samples) {
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<std::size_t> pick(0, pts.size() - 1);
    const float r_sq = r * r;
    std::size_t bad = 0;
    std::vector<std::uint32_t> row;
    for (std::size_t s = 0; s < std::min(samples, pts.size()); ++s) {
        const std::size_t i = samples >= pts.size() ? s : pick(rng);
        row.clear();
        for (std::size_t j = 0; j < pts.size(); ++j)
            if (j != i && quoct::distance_sq(pts[i], pts[j]) <= r_sq) row.push_back(static_cast<std::uint32_t>(j));
        const bool same = std::equal(row.begin(), row.end(), table.values.begin() + static_cast<std::ptrdiff_t>(table.offsets[i]),
                                     table.values.begin() + static_cast<std::ptrdiff_t>(table.offsets[i + 1]));
        if (!same) ++bad;
    }
    return bad;
}

std::map<std::string, std::map<std::string, difference>>& check_results() {
    static std::map<std::string, std::map<std::string, difference>> results;
    return results;
}

std::size_t check_failures = 0;

void report(const std::string& what, std::size_t n, const char* lib, const difference& d, bool open_ball) {
    std::fprintf(stderr,
                 "check %-19s %-15s entries %zu (%.2f per particle)  missing %zu (at d == r: %zu, within 4 ulp: %zu)  "
                 "extra %zu (at d == r: %zu, within 4 ulp: %zu)  unexplained %zu\n",
                 what.c_str(), lib, d.entries, static_cast<double>(d.entries) / static_cast<double>(n), d.missing,
                 d.missing_at_r, d.missing_near_r, d.extra, d.extra_at_r, d.extra_near_r, d.unexplained(open_ball));
    check_failures += d.unexplained(open_ball);
}

// Compares every library with quoct on w (2 threads), after the first search and again
// after one step (the peers' update path), and quoct with brute force on sampled particles
// when w has at most 200k points.
void check(const workload& w) {
    std::vector<pt> pts = w.points;  // the peers keep a pointer to it, and see it move
    auto q = quoct_lib::first(pts, w.r, 2);
    auto& results = check_results()[w.name];
    results["quoct"].entries = q->table.values.size();
    report(w.name, pts.size(), "quoct", results["quoct"], false);
    if (pts.size() <= 200000) {
        const std::size_t samples = w.name == "integer" ? pts.size() / 25 : 1000;
        const std::size_t bad = brute_force_check(q->table, pts, w.r, samples);
        std::fprintf(stderr, "check %-19s quoct against brute force: %zu of %zu sampled rows differ\n", w.name.c_str(), bad,
                     std::min(samples, pts.size()));
        check_failures += bad;
    }
    {
        // The octree path gives the very same table.
        const auto t = quoct_octree_lib::first(pts, w.r, 2);
        const bool same = t->table.offsets == q->table.offsets && t->table.values == q->table.values;
        std::fprintf(stderr, "check %-19s quoct_octree: %s\n", w.name.c_str(), same ? "the same table" : "A DIFFERENT TABLE");
        check_failures += same ? 0 : 1;
    }
#ifdef QUOCT_HAVE_TREENSEARCH
    std::unique_ptr<treensearch_lib::state> tns;
    if (nsearch_peer::treensearch_supported()) {
        tns = treensearch_lib::first(pts, w.r, 2);
        results["treensearch"] = compare(q->table, treensearch_lib::rows(*tns, pts.size()), pts, w.r);
        report(w.name, pts.size(), "treensearch", results["treensearch"], false);
    }
#endif
#ifdef QUOCT_HAVE_COMPACTNSEARCH
    const auto cns = compactnsearch_lib::first(pts, w.r, 2);
    results["compactnsearch"] = compare(q->table, compactnsearch_lib::rows(*cns, pts.size()), pts, w.r);
    report(w.name, pts.size(), "compactnsearch", results["compactnsearch"], true);
#endif
    if (w.name == "integer") {
        // Interior particles have 6 lattice neighbours at exactly d == r = 2: (+-2, 0, 0) and
        // its permutations; 2 * 48 * 50^2 per axis in all.
        std::fprintf(stderr, "check %-19s pairs at exactly d == r on the lattice: %d (an open ball misses them)\n",
                     w.name.c_str(), 3 * 2 * 48 * 50 * 50);
        return;  // a step would leave the lattice
    }
    kick(pts, w.kicks, 0);
    const std::string stepped = w.name + " +step";
    q = quoct_lib::first(pts, w.r, 2);
    report(stepped, pts.size(), "quoct", difference{q->table.values.size()}, false);
#ifdef QUOCT_HAVE_TREENSEARCH
    if (tns) {
        treensearch_lib::step(*tns);
        report(stepped, pts.size(), "treensearch", compare(q->table, treensearch_lib::rows(*tns, pts.size()), pts, w.r), false);
    }
#endif
#ifdef QUOCT_HAVE_COMPACTNSEARCH
    compactnsearch_lib::step(*cns);
    report(stepped, pts.size(), "compactnsearch", compare(q->table, compactnsearch_lib::rows(*cns, pts.size()), pts, w.r), true);
#endif
}

bool run_checks = true;

// The workloads, made (and checked) on first use.
const workload& data(const std::string& name) {
    static std::map<std::string, std::unique_ptr<workload>> made;
    auto& w = made[name];
    if (!w) {
        w.reset(new workload(make_workload(name)));
        if (run_checks) check(*w);
    }
    return *w;
}

void set_counters(benchmark::State& state, const workload& w, const char* lib, std::size_t entries) {
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * w.points.size()));
    state.counters["particles"] = static_cast<double>(w.points.size());
    state.counters["neighbours"] = static_cast<double>(entries) / static_cast<double>(w.points.size());
    const auto wr = check_results().find(w.name);
    if (wr == check_results().end() || std::strcmp(lib, "quoct") == 0) return;
    const auto r = wr->second.find(lib);
    if (r == wr->second.end()) return;
    state.counters["missing"] = static_cast<double>(r->second.missing);
    state.counters["missing_at_r"] = static_cast<double>(r->second.missing_at_r);
    state.counters["extra"] = static_cast<double>(r->second.extra);
}

// --- benchmarks -------------------------------------------------------------------------

template <class Lib>
void bench_first(benchmark::State& state, const std::string& name, unsigned threads) {
    const workload& w = data(name);
    const std::vector<pt> pts = w.points;
    std::unique_ptr<typename Lib::state> s;
    for (auto _ : state) {
        state.PauseTiming();
        s.reset();
        state.ResumeTiming();
        s = Lib::first(pts, w.r, threads);
    }
    set_counters(state, w, Lib::name, Lib::entries(*s, pts.size()));
}

template <class Lib>
void bench_step(benchmark::State& state, const std::string& name, unsigned threads) {
    const workload& w = data(name);
    std::vector<pt> pts = w.points;
    const auto s = Lib::first(pts, w.r, threads);
    int step = 0;
    for (auto _ : state) {
        state.PauseTiming();
        kick(pts, w.kicks, step++);
        Lib::before_step(*s);
        state.ResumeTiming();
        Lib::step(*s);
    }
    set_counters(state, w, Lib::name, Lib::entries(*s, pts.size()));
}

int iterations(const std::string& name) {
    if (const char* k = std::getenv("QUOCT_NSEARCH_ITERS")) return std::max(1, std::atoi(k));
    return name == "small" || big_size() < 500000 ? 10 : 3;
}

// One benchmark: op ("first" or "step") of Lib on a workload.
template <class Lib>
void register_one(const std::string& op, const std::string& workload, unsigned threads) {
    const std::string name = op + "/" + workload + "/" + Lib::name + "/threads:" + std::to_string(threads);
    const auto fn = op == "first" ? &bench_first<Lib> : &bench_step<Lib>;
    benchmark::RegisterBenchmark(name.c_str(), [fn, workload, threads](benchmark::State& st) { fn(st, workload, threads); })
        ->Iterations(iterations(workload))
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
}

// Every benchmark, the libraries side by side for each operation, workload and thread count.
void register_all() {
    std::vector<std::pair<std::string, unsigned>> runs;
    for (const char* name : {"block", "splash", "small", "block_cells", "splash_cells", "small_cells"})
        for (unsigned threads : {1u, 2u}) runs.emplace_back(name, threads);
    runs.emplace_back("block_random", 1u);
#ifdef QUOCT_HAVE_TREENSEARCH
    const bool tns = nsearch_peer::treensearch_supported();
    if (!tns) std::fprintf(stderr, "bench_nsearch: this CPU lacks AVX2/FMA, so TreeNSearch is not timed\n");
#endif
    for (const char* op : {"first", "step"})
        for (const auto& run : runs) {
            register_one<quoct_lib>(op, run.first, run.second);
            if (run.first == "block" || run.first == "block_cells") register_one<quoct_octree_lib>(op, run.first, run.second);
#ifdef QUOCT_HAVE_TREENSEARCH
            if (tns) register_one<treensearch_lib>(op, run.first, run.second);
#endif
#ifdef QUOCT_HAVE_COMPACTNSEARCH
            register_one<compactnsearch_lib>(op, run.first, run.second);
#endif
        }
}

// --- peak memory ------------------------------------------------------------------------

long resident_kb() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
    return -1;
}

// The first search, its lists kept until the peak is read.
template <class Lib>
void first_search(const std::vector<pt>& pts, float r, unsigned threads, long before) {
    const auto s = Lib::first(pts, r, threads);
    struct rusage u {};
    getrusage(RUSAGE_SELF, &u);
    std::printf("search_peak_kb %ld (ru_maxrss %ld - rss_before %ld)\n", u.ru_maxrss - before, u.ru_maxrss, before);
    std::printf("entries %zu\n", Lib::entries(*s, pts.size()));
}

int rss_main(const std::string& lib) {
    bool known = lib == "quoct" || lib == "quoct_octree";
#ifdef QUOCT_HAVE_TREENSEARCH
    known = known || (lib == "treensearch" && nsearch_peer::treensearch_supported());
#endif
#ifdef QUOCT_HAVE_COMPACTNSEARCH
    known = known || lib == "compactnsearch";
#endif
    if (!known) {
        std::fprintf(stderr, "bench_nsearch: library %s is not built in (or not supported on this CPU)\n", lib.c_str());
        return 2;
    }
    const char* wl = std::getenv("QUOCT_NSEARCH_WORKLOAD");
    const char* th = std::getenv("QUOCT_NSEARCH_THREADS");
    const workload w = make_workload(wl && *wl ? wl : "block");
    const unsigned threads = th ? static_cast<unsigned>(std::max(1, std::atoi(th))) : 1u;
    malloc_trim(0);
    // Lower the kernel's high-water mark to the present size, so ru_maxrss is the peak of
    // the search (the data set's making could have been higher). Linux 4.0 or later.
    bool reset = false;
    if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
        reset = std::fputs("5", f) >= 0;
        reset = std::fclose(f) == 0 && reset;
    }
    const long before = resident_kb();
    struct rusage u {};
    getrusage(RUSAGE_SELF, &u);
    const long peak_before = u.ru_maxrss;
    std::printf("library %s workload %s particles %zu threads %u\n", lib.c_str(), w.name.c_str(), w.points.size(), threads);
    std::printf("rss_before_kb %ld (high-water mark %s: %ld)\n", before, reset ? "reset" : "NOT reset", peak_before);
    std::fflush(stdout);
    if (lib == "quoct")
        first_search<quoct_lib>(w.points, w.r, threads, before);
    else if (lib == "quoct_octree")
        first_search<quoct_octree_lib>(w.points, w.r, threads, before);
#ifdef QUOCT_HAVE_TREENSEARCH
    else if (lib == "treensearch" && nsearch_peer::treensearch_supported())
        first_search<treensearch_lib>(w.points, w.r, threads, before);
#endif
#ifdef QUOCT_HAVE_COMPACTNSEARCH
    else if (lib == "compactnsearch")
        first_search<compactnsearch_lib>(w.points, w.r, threads, before);
#endif
    return 0;
}

bool take_flag(int& argc, char** argv, const char* flag) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], flag) == 0) {
            for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
            --argc;
            return true;
        }
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    if (take_flag(argc, argv, "--smoke")) setenv("QUOCT_BENCH_SMOKE", "1", 1);
    const bool check_only = take_flag(argc, argv, "--check");
    if (take_flag(argc, argv, "--no-check")) run_checks = false;
    if (const char* lib = std::getenv("QUOCT_NSEARCH_RSS")) return rss_main(lib);
    if (check_only) {
        for (const char* name : {"integer", "small", "block", "splash", "block_random", "block_cells"}) data(name);
        std::fprintf(stderr, "check: %zu unexplained differences\n", check_failures);
        return check_failures == 0 ? 0 : 1;
    }

    register_all();
    benchmark::Initialize(&argc, argv);
    benchmark::AddCustomContext("particles (block, splash, block_random)", std::to_string(big_size()));
    benchmark::AddCustomContext("radius", "2 (lattice spacing 1)");
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return check_failures == 0 ? 0 : 1;
}
