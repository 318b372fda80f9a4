// quoct simulation benchmarks (Google Benchmark): one particle-simulation step at 1M
// particles in 3D, quoct against a plain uniform-grid cell list and nanoflann, in one
// binary on the same data so the ratios come out of one run; and the dynamic index's
// partial update against a full rebuild.
//
//   step/*      every particle moves a little, the index is brought up to date, and every
//               pair within r (about 30 neighbours per particle) adds to a density sum,
//               as an SPH density loop does. quoct: rebuild an orthtree, then
//               for_each_pair_within (each pair once, added to both ends). cell list:
//               cell size r, particles sorted by cell, each particle scans the 3^D cells
//               around its own (each pair seen from both ends). nanoflann: rebuild the
//               kd-tree, one radiusSearch per particle (open ball d < r; on random data
//               the two predicates agree).
//   lists/*     the same step producing CSR neighbour lists (quoct::neighbor_lists, rows
//               sorted) on 1 and 2 threads, and the cell list's lists (rows unsorted).
//   rebuild/*   the rebuild alone: orthtree build, dynamic_orthtree::rebuild, cell sort.
//   batch_*     n/10 random ball queries (radius r) through quoct::batch_query, on 1 and 2
//               threads, in input order or sorted along the Morton curve.
//   dynamic/*   move 1% of the particles (a fresh random 1% each iteration, so automatic
//               rebuilds are paid for in the average) and answer 1000 ball queries, against
//               rebuilding an orthtree from scratch and answering the same queries;
//               rebuild_at_1_over is dynamic_options::rebuild_fraction's denominator
//               (16 is the default); dynamic_move_1pct_fresh starts each iteration from a fresh snapshot
//               (untimed), the cost of one step when no automatic rebuild falls due;
//               dynamic_fresh_phase times its parts apart: phase 0 the moves (items: moves),
//               1 the queries after them, 2 the same queries on a freshly built octree.
//
// Items/s are particles per second for step/lists/rebuild, queries per second for
// dynamic. QUOCT_BENCH_SMOKE=1 (or --smoke) runs on 20k particles for a quick check;
// QUOCT_BENCH_N=<n> picks another size.
#include <benchmark/benchmark.h>
#include <nanoflann.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <quoct/dynamic.hpp>
#include <quoct/orthtree.hpp>
#include <quoct/pairs.hpp>
#include <quoct/parallel.hpp>

#include "smoke.hpp"

namespace {

constexpr std::size_t D = 3;
using T = double;
using pt = quoct::point<T, D>;

struct setup {
    std::size_t n = 1000000;
    double neighbours = 30;
    T r = 0;
    std::vector<pt> points;
    std::vector<pt> kicks;  // per-particle displacement, applied with alternating sign
};

setup& data() {
    static setup s = [] {
        setup s;
        if (quoct_bench::smoke()) s.n = 20000;
        if (const char* n = std::getenv("QUOCT_BENCH_N")) s.n = std::max<std::size_t>(1000, std::strtoull(n, nullptr, 10));
        // n * (4/3) pi r^3 = neighbours in the unit cube.
        s.r = std::cbrt(s.neighbours / (4.0 / 3.0 * M_PI * static_cast<double>(s.n)));
        std::mt19937_64 rng(2024);
        std::uniform_real_distribution<double> u(0, 1), k(-0.05, 0.05);
        s.points.resize(s.n);
        s.kicks.resize(s.n);
        for (std::size_t i = 0; i < s.n; ++i)
            for (std::size_t a = 0; a < D; ++a) {
                s.points[i][a] = u(rng);
                s.kicks[i][a] = k(rng) * s.r;
            }
        return s;
    }();
    return s;
}

void kick(std::vector<pt>& pts, const std::vector<pt>& kicks, int step) {
    const T sign = step % 2 ? -1 : 1;
    for (std::size_t i = 0; i < pts.size(); ++i)
        for (std::size_t a = 0; a < D; ++a) pts[i][a] += sign * kicks[i][a];
}

T weight(T d2, T r2) { return r2 - d2; }  // a stand-in kernel: cheap, so the search dominates

// --- cell list: cell size r, particles sorted by cell, 3^D neighbour cells ---------------

struct cell_list {
    T lo[D], inv;
    std::size_t dims[D];
    std::vector<std::uint32_t> start;  // cell c holds sorted particles [start[c], start[c + 1])
    std::vector<pt> sorted;
    std::vector<std::uint32_t> ids;

    void build(const std::vector<pt>& pts, T r) {
        const auto b = [&] {
            quoct::box<T, D> bb{pts[0], pts[0]};
            for (const pt& p : pts)
                for (std::size_t a = 0; a < D; ++a) {
                    bb.lo[a] = std::min(bb.lo[a], p[a]);
                    bb.hi[a] = std::max(bb.hi[a], p[a]);
                }
            return bb;
        }();
        inv = 1 / r;
        std::size_t cells = 1;
        for (std::size_t a = 0; a < D; ++a) {
            lo[a] = b.lo[a];
            dims[a] = static_cast<std::size_t>((b.hi[a] - b.lo[a]) * inv) + 1;
            cells *= dims[a];
        }
        std::vector<std::uint32_t> cell_of(pts.size());
        start.assign(cells + 1, 0);
        for (std::size_t i = 0; i < pts.size(); ++i) {
            cell_of[i] = static_cast<std::uint32_t>(cell(pts[i]));
            ++start[cell_of[i] + 1];
        }
        for (std::size_t c = 0; c < cells; ++c) start[c + 1] += start[c];
        std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
        sorted.resize(pts.size());
        ids.resize(pts.size());
        for (std::size_t i = 0; i < pts.size(); ++i) {
            const std::uint32_t at = fill[cell_of[i]]++;
            sorted[at] = pts[i];
            ids[at] = static_cast<std::uint32_t>(i);
        }
    }
    std::size_t coord(const pt& p, std::size_t a) const {
        return std::min(dims[a] - 1, static_cast<std::size_t>((p[a] - lo[a]) * inv));
    }
    std::size_t cell(const pt& p) const {
        std::size_t c = 0;
        for (std::size_t a = D; a-- > 0;) c = c * dims[a] + coord(p, a);
        return c;
    }
    // f(sorted index j) for every particle in the 3^D cells around sorted particle i.
    template <class F>
    void around(std::size_t i, F&& f) const {
        std::size_t q[D];
        for (std::size_t a = 0; a < D; ++a) q[a] = coord(sorted[i], a);
        int off[D];
        for (std::size_t a = 0; a < D; ++a) off[a] = -1;
        for (;;) {
            bool inside = true;
            std::size_t c = 0;
            for (std::size_t a = D; a-- > 0;) {
                const long v = static_cast<long>(q[a]) + off[a];
                inside = inside && v >= 0 && v < static_cast<long>(dims[a]);
                c = c * dims[a] + static_cast<std::size_t>(v);
            }
            if (inside)
                for (std::uint32_t j = start[c]; j < start[c + 1]; ++j) f(j);
            std::size_t a = 0;
            while (a < D && off[a] == 1) off[a++] = -1;
            if (a == D) break;
            ++off[a];
        }
    }
};

// --- nanoflann ------------------------------------------------------------------------

struct cloud {
    const std::vector<pt>* pts;
    std::size_t kdtree_get_point_count() const { return pts->size(); }
    T kdtree_get_pt(std::size_t i, std::size_t a) const { return (*pts)[i][a]; }
    template <class B>
    bool kdtree_get_bbox(B&) const {
        return false;
    }
};
using kd_tree = nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<T, cloud>, cloud, D, std::uint32_t>;

// --- step: move, update, density over all pairs --------------------------------------

void step_quoct(benchmark::State& state) {
    auto& s = data();
    std::vector<pt> pts = s.points;
    std::vector<T> rho(s.n);
    const T r2 = s.r * s.r;
    int step = 0;
    std::size_t pairs = 0;
    for (auto _ : state) {
        kick(pts, s.kicks, step++);
        quoct::octree<T> tree(pts);
        std::fill(rho.begin(), rho.end(), T(0));
        pairs = 0;
        quoct::for_each_pair_within(tree, s.r, [&](std::uint32_t i, std::uint32_t j, T d2) {
            const T w = weight(d2, r2);
            rho[i] += w;
            rho[j] += w;
            ++pairs;
        });
        benchmark::DoNotOptimize(rho.data());
    }
    state.counters["neighbours"] = 2.0 * static_cast<double>(pairs) / static_cast<double>(s.n);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.n));
}

void step_cell_list(benchmark::State& state) {
    auto& s = data();
    std::vector<pt> pts = s.points;
    std::vector<T> rho(s.n);
    const T r2 = s.r * s.r;
    cell_list cells;
    int step = 0;
    std::size_t seen = 0;
    for (auto _ : state) {
        kick(pts, s.kicks, step++);
        cells.build(pts, s.r);
        seen = 0;
        for (std::size_t i = 0; i < s.n; ++i) {
            const pt p = cells.sorted[i];
            T sum = 0;
            cells.around(i, [&](std::uint32_t j) {
                const T d2 = quoct::distance_sq(p, cells.sorted[j]);
                if (d2 <= r2 && j != i) {
                    sum += weight(d2, r2);
                    ++seen;
                }
            });
            rho[cells.ids[i]] = sum;
        }
        benchmark::DoNotOptimize(rho.data());
    }
    state.counters["neighbours"] = static_cast<double>(seen) / static_cast<double>(s.n);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.n));
}

void step_nanoflann(benchmark::State& state) {
    auto& s = data();
    std::vector<pt> pts = s.points;
    std::vector<T> rho(s.n);
    const T r2 = s.r * s.r;
    int step = 0;
    std::size_t seen = 0;
    std::vector<std::pair<std::uint32_t, T>> found;
    for (auto _ : state) {
        kick(pts, s.kicks, step++);
        cloud c{&pts};
        kd_tree tree(D, c, nanoflann::KDTreeSingleIndexAdaptorParams(16));
        seen = 0;
        for (std::size_t i = 0; i < s.n; ++i) {
            tree.radiusSearch(pts[i].coords, r2, found, nanoflann::SearchParams(32, 0.0f, false));
            T sum = 0;
            for (const auto& f : found)
                if (f.first != i) {
                    sum += weight(f.second, r2);
                    ++seen;
                }
            rho[i] = sum;
        }
        benchmark::DoNotOptimize(rho.data());
    }
    state.counters["neighbours"] = static_cast<double>(seen) / static_cast<double>(s.n);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.n));
}

// --- lists: the step producing CSR neighbour lists --------------------------------------

void lists_quoct(benchmark::State& state) {
    auto& s = data();
    const unsigned threads = static_cast<unsigned>(state.range(0));
    std::vector<pt> pts = s.points;
    int step = 0;
    for (auto _ : state) {
        kick(pts, s.kicks, step++);
        quoct::octree<T> tree(pts);
        auto lists = quoct::neighbor_lists(tree, s.r, threads);
        benchmark::DoNotOptimize(lists.values.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.n));
}

void lists_cell_list(benchmark::State& state) {
    auto& s = data();
    std::vector<pt> pts = s.points;
    const T r2 = s.r * s.r;
    cell_list cells;
    int step = 0;
    for (auto _ : state) {
        kick(pts, s.kicks, step++);
        cells.build(pts, s.r);
        std::vector<std::uint32_t> count(s.n);
        std::vector<std::uint32_t> flat;  // by sorted particle, then scattered to id rows
        std::vector<std::size_t> sorted_end(s.n);
        for (std::size_t i = 0; i < s.n; ++i) {
            const pt p = cells.sorted[i];
            cells.around(i, [&](std::uint32_t j) {
                if (j != i && quoct::distance_sq(p, cells.sorted[j]) <= r2) flat.push_back(cells.ids[j]);
            });
            sorted_end[i] = flat.size();
            count[cells.ids[i]] = static_cast<std::uint32_t>(sorted_end[i] - (i ? sorted_end[i - 1] : 0));
        }
        quoct::csr<std::uint32_t> lists;
        lists.offsets.assign(s.n + 1, 0);
        for (std::size_t i = 0; i < s.n; ++i) lists.offsets[i + 1] = lists.offsets[i] + count[i];
        lists.values.resize(flat.size());
        for (std::size_t i = 0; i < s.n; ++i) {
            const std::size_t b = i ? sorted_end[i - 1] : 0;
            std::copy(flat.begin() + static_cast<std::ptrdiff_t>(b), flat.begin() + static_cast<std::ptrdiff_t>(sorted_end[i]),
                      lists.values.begin() + static_cast<std::ptrdiff_t>(lists.offsets[cells.ids[i]]));
        }
        benchmark::DoNotOptimize(lists.values.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.n));
}

// --- rebuild alone ---------------------------------------------------------------------

void rebuild_orthtree(benchmark::State& state) {
    auto& s = data();
    for (auto _ : state) {
        quoct::octree<T> tree(s.points);
        benchmark::DoNotOptimize(&tree);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.n));
}

void rebuild_dynamic(benchmark::State& state) {
    auto& s = data();
    quoct::dynamic_octree<T> index(s.points);
    for (auto _ : state) {
        index.rebuild();
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.n));
}

void rebuild_cell_list(benchmark::State& state) {
    auto& s = data();
    cell_list cells;
    for (auto _ : state) {
        cells.build(s.points, s.r);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.n));
}

void rebuild_nanoflann(benchmark::State& state) {
    auto& s = data();
    cloud c{&s.points};
    for (auto _ : state) {
        kd_tree tree(D, c, nanoflann::KDTreeSingleIndexAdaptorParams(16));
        benchmark::DoNotOptimize(&tree);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.n));
}

// --- dynamic: move 1% and re-answer, against a full rebuild -----------------------------

constexpr std::size_t dynamic_queries = 1000;

std::vector<quoct::ball<T, D>> query_balls() {
    auto& s = data();
    std::mt19937_64 rng(77);
    std::uniform_int_distribution<std::size_t> pick(0, s.n - 1);
    std::vector<quoct::ball<T, D>> q(dynamic_queries);
    for (auto& b : q) b = {s.points[pick(rng)], s.r};
    return q;
}

// Moves a random 1% of the particles by their kick.
void move_1pct(quoct::dynamic_octree<T>& index, std::mt19937_64& rng) {
    auto& s = data();
    std::uniform_int_distribution<std::uint32_t> pick(0, static_cast<std::uint32_t>(s.n - 1));
    for (std::size_t m = 0; m < s.n / 100; ++m) {
        const std::uint32_t id = pick(rng);
        pt p = index.point(id);
        for (std::size_t a = 0; a < D; ++a) p[a] += s.kicks[id][a];
        index.move(id, p);
    }
}

template <class Index>
std::size_t answer(const Index& index, const std::vector<quoct::ball<T, D>>& queries, std::vector<std::uint32_t>& out) {
    std::size_t found = 0;
    for (const auto& q : queries) {
        index.query(q, out);
        found += out.size();
    }
    return found;
}

void dynamic_move_1pct(benchmark::State& state) {
    auto& s = data();
    quoct::dynamic_options options;
    options.rebuild_fraction = 1.0 / static_cast<double>(state.range(0));
    quoct::dynamic_octree<T> index(s.points, options);
    const auto queries = query_balls();
    std::mt19937_64 rng(5);
    std::vector<std::uint32_t> out;
    std::size_t found = 0;
    for (auto _ : state) {
        move_1pct(index, rng);
        found += answer(index, queries, out);
    }
    benchmark::DoNotOptimize(found);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * dynamic_queries));
}

// One step from a fresh snapshot (rebuilt untimed each time), no automatic rebuild due yet.
// Timed part: 0 the moves of 1% (with the folds into side trees they cause), 1 the queries
// after them, 2 the same queries on an octree freshly built over the moved points (for
// comparison), 3 the whole step, moves and queries.
void fresh_step(benchmark::State& state, int timed) {
    auto& s = data();
    quoct::dynamic_octree<T> index(s.points);
    const auto queries = query_balls();
    std::mt19937_64 rng(5);
    std::vector<std::uint32_t> out;
    std::size_t found = 0;
    for (auto _ : state) {
        state.PauseTiming();
        index.rebuild();
        if (timed == 1 || timed == 2) move_1pct(index, rng);
        std::vector<pt> moved;
        if (timed == 2)
            for (std::size_t id = 0; id < s.n; ++id) moved.push_back(index.point(static_cast<std::uint32_t>(id)));
        const quoct::octree<T> tree(moved);
        state.ResumeTiming();
        if (timed == 0 || timed == 3) move_1pct(index, rng);
        if (timed == 1 || timed == 3) found += answer(index, queries, out);
        if (timed == 2) found += answer(tree, queries, out);
    }
    benchmark::DoNotOptimize(found);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * (timed == 0 ? s.n / 100 : dynamic_queries)));
}

void dynamic_move_1pct_fresh(benchmark::State& state) { fresh_step(state, 3); }
void dynamic_fresh_phase(benchmark::State& state) { fresh_step(state, static_cast<int>(state.range(0))); }

void dynamic_full_rebuild(benchmark::State& state) {
    auto& s = data();
    std::vector<pt> pts = s.points;
    const auto queries = query_balls();
    std::vector<std::uint32_t> out;
    std::size_t found = 0;
    int step = 0;
    for (auto _ : state) {
        kick(pts, s.kicks, step++);  // stands in for the 1% move: a rebuild costs the same
        quoct::octree<T> tree(pts);
        found += answer(tree, queries, out);
    }
    benchmark::DoNotOptimize(found);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * dynamic_queries));
}

// --- dynamic: every point moves each step ----------------------------------------------
// The same kick of every particle, then: each moved with move() (one by one), all moved
// with move_all(), or a fresh octree built (rebuild_orthtree's work, plus the kick).

void dynamic_move_every_point(benchmark::State& state) {
    auto& s = data();
    std::vector<pt> pts = s.points;
    quoct::dynamic_octree<T> index(pts);
    int step = 0;
    for (auto _ : state) {
        kick(pts, s.kicks, step++);
        for (std::size_t id = 0; id < pts.size(); ++id) index.move(static_cast<std::uint32_t>(id), pts[id]);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.n));
}

void dynamic_move_all(benchmark::State& state) {
    auto& s = data();
    std::vector<pt> pts = s.points;
    quoct::dynamic_octree<T> index(pts);
    int step = 0;
    for (auto _ : state) {
        kick(pts, s.kicks, step++);
        index.move_all(pts);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.n));
}

void orthtree_rebuild_after_kick(benchmark::State& state) {
    auto& s = data();
    std::vector<pt> pts = s.points;
    int step = 0;
    for (auto _ : state) {
        kick(pts, s.kicks, step++);
        quoct::octree<T> tree(pts);
        benchmark::DoNotOptimize(&tree);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.n));
}

// --- batch queries: many ball queries at once ------------------------------------------

void batch_queries(benchmark::State& state) {
    auto& s = data();
    const unsigned threads = static_cast<unsigned>(state.range(0));
    const bool spatial = state.range(1) != 0;
    quoct::octree<T> tree(s.points);
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<quoct::ball<T, D>> balls(s.n / 10);
    for (auto& b : balls) b = {{{u(rng), u(rng), u(rng)}}, s.r};
    for (auto _ : state) {
        auto rows = quoct::batch_query(tree, balls, threads, spatial);
        benchmark::DoNotOptimize(rows.values.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * balls.size()));
}

}  // namespace

BENCHMARK(step_quoct)->Unit(benchmark::kMillisecond);
BENCHMARK(step_cell_list)->Unit(benchmark::kMillisecond);
BENCHMARK(step_nanoflann)->Unit(benchmark::kMillisecond);
// Threaded benchmarks in wall time: CPU time counts the main thread only.
BENCHMARK(lists_quoct)->Arg(1)->Arg(2)->ArgName("threads")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(lists_cell_list)->Unit(benchmark::kMillisecond);
BENCHMARK(rebuild_orthtree)->Unit(benchmark::kMillisecond);
BENCHMARK(rebuild_dynamic)->Unit(benchmark::kMillisecond);
BENCHMARK(rebuild_cell_list)->Unit(benchmark::kMillisecond);
BENCHMARK(rebuild_nanoflann)->Unit(benchmark::kMillisecond);
BENCHMARK(batch_queries)->ArgsProduct({{1, 2}, {0, 1}})->ArgNames({"threads", "morton"})->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(dynamic_move_1pct)->Arg(16)->Arg(8)->ArgName("rebuild_at_1_over")->Unit(benchmark::kMillisecond);
BENCHMARK(dynamic_move_1pct_fresh)->Unit(benchmark::kMillisecond);
BENCHMARK(dynamic_fresh_phase)->DenseRange(0, 2)->ArgName("phase")->Unit(benchmark::kMillisecond);
BENCHMARK(dynamic_full_rebuild)->Unit(benchmark::kMillisecond);
BENCHMARK(dynamic_move_every_point)->Unit(benchmark::kMillisecond);
BENCHMARK(dynamic_move_all)->Unit(benchmark::kMillisecond);
BENCHMARK(orthtree_rebuild_after_kick)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    quoct_bench::take_smoke_flag(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::AddCustomContext("particles", std::to_string(data().n));
    benchmark::AddCustomContext("radius", std::to_string(data().r));
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
