// Runtime SIMD dispatch compared (Google Benchmark): the hot kernel of the neighbour-list
// engine written three ways, each with its own runtime dispatch, in one binary on the same
// data, so that the ratios come out of one run (bench/README.md, "SIMD dispatch").
//
//   quoct     quoct::detail::kernels::count_within / hit_ids (float, 3D): intrinsics in
//             functions with their own target attribute, the level chosen once per process
//             by __builtin_cpu_supports and passed to every call (as the engine does).
//   xsimd     xsimd 8: one functor, instantiated per architecture in files compiled for it,
//             called through xsimd::dispatch over (avx512bw, avx2, sse2).
//   highway   Google Highway 1.0: foreach_target.h, HWY_EXPORT, HWY_DYNAMIC_DISPATCH.
//             highway_compressstore: hit ids with hn::CompressStore instead of Compress and
//             a whole-vector store.
//
// Every library at every level this CPU runs (lower levels: quoct's use_level, xsimd's
// dispatch over a shorter list, Highway's SetSupportedTargetsForTest).
//
// The kernel: a query point p and candidates stored axis by axis, [first, last) of the
// arrays c[0], c[1], c[2] (readable 16 entries past last); count the candidates with
// dx*dx + dy*dy + dz*dz <= r2, each square rounded before it is added (no fused
// multiply-add), or write the ids of those hits, compressed, to an output array.
//
//   count/cells/<library>/<level>, hit_ids/cells/...
//             the engine's work: a jittered lattice (spacing 1, every coordinate moved by a
//             uniform jitter in [-0.25, 0.25], 32^3 points), cells of width r = 2 spacings;
//             for 512 cells (fixed seed), the candidates are the points of the 27 cells
//             around that lie within r of the cell's bounding box (what the engine gathers,
//             about 150), and every point of the cell is a query against them.
//   count/long/..., hit_ids/long/...
//             one range of 1M candidates (a jittered 100^3 lattice), 4 queries with r = 20
//             spacings (about 3.4% of the candidates are hits).
//
// Counter ns_per_candidate: time per candidate tested. Before anything is timed, every
// variant's counts and ids are compared with quoct's portable loop on both workloads and on
// a set of ties (r2 equal to a candidate's exact unfused squared distance, where a fused
// multiply-add changes the answer); any difference aborts. `--check` runs the checks only.
#include "simd_dispatch/peers.hpp"

#include "datasets.hpp"

#include <quoct/detail/pair_kernels.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

namespace kernels = quoct::detail::kernels;
namespace xs = simd_dispatch::xs;
namespace hw = simd_dispatch::hw;

constexpr std::size_t pad = kernels::lanes_max;

/// Candidates of many ranges in one set of arrays (each range followed by `pad` entries
/// that would be hits if a kernel read them as candidates), and the query points.
struct workload {
    std::array<std::vector<float>, 3> cand;
    std::vector<std::uint32_t> ids;
    std::array<std::vector<float>, 3> query;
    struct range {
        std::size_t first, last;      // candidates
        std::size_t q_first, q_last;  // the queries against them
        float r2;
    };
    std::vector<range> ranges;
    std::size_t tests = 0;  // candidates tested per pass over every range and query

    const float* cols[3] = {nullptr, nullptr, nullptr};

    void add_candidate(const float* x, std::uint32_t id) {
        for (std::size_t a = 0; a < 3; ++a) cand[a].push_back(x[a]);
        ids.push_back(id);
    }
    std::size_t add_query(const float* x) {
        for (std::size_t a = 0; a < 3; ++a) query[a].push_back(x[a]);
        return query[0].size() - 1;
    }
    /// Ends a range begun at `first`: pads it with copies of the first query (a hit).
    void close_range(std::size_t first, std::size_t q_first, float r2) {
        const std::size_t last = ids.size();
        const float q[3] = {query[0][q_first], query[1][q_first], query[2][q_first]};
        for (std::size_t t = 0; t < pad; ++t) add_candidate(q, 0xfffffffeu);
        ranges.push_back({first, last, q_first, query[0].size(), r2});
        tests += (last - first) * (query[0].size() - q_first);
    }
    void finish() {
        for (std::size_t a = 0; a < 3; ++a) cols[a] = cand[a].data();
    }
    void point(std::size_t q, float (&p)[3]) const {
        for (std::size_t a = 0; a < 3; ++a) p[a] = query[a][q];
    }
    double mean_candidates() const {
        double s = 0;
        for (const range& r : ranges) s += static_cast<double>(r.last - r.first);
        return s / static_cast<double>(ranges.size());
    }
};

std::vector<std::array<float, 3>> jittered_lattice(std::size_t side, std::uint64_t seed) {
    quoct_bench::rng rng(seed);
    std::vector<std::array<float, 3>> pts;
    pts.reserve(side * side * side);
    for (std::size_t k = 0; k < side; ++k)
        for (std::size_t j = 0; j < side; ++j)
            for (std::size_t i = 0; i < side; ++i)
                pts.push_back({static_cast<float>(static_cast<double>(i) + rng.uniform(-0.25, 0.25)),
                               static_cast<float>(static_cast<double>(j) + rng.uniform(-0.25, 0.25)),
                               static_cast<float>(static_cast<double>(k) + rng.uniform(-0.25, 0.25))});
    return pts;
}

/// The engine's ranges: cells of width r (slightly above), each cell's candidates the points
/// of the 27 cells around it within r of its bounding box, each of its points a query.
workload make_cells(std::size_t side, float r, std::size_t sampled, std::uint64_t seed) {
    const std::vector<std::array<float, 3>> pts = jittered_lattice(side, seed);
    const double w = static_cast<double>(r) * (1.0 + 0x1.0p-16);
    const float lo = -0.25f;
    const auto cell_of = [&](float x) { return static_cast<std::size_t>(std::floor((static_cast<double>(x) - lo) / w)); };
    const std::size_t nc = cell_of(static_cast<float>(side) + 0.25f) + 1;
    std::vector<std::vector<std::uint32_t>> cells(nc * nc * nc);
    for (std::size_t i = 0; i < pts.size(); ++i)
        cells[(cell_of(pts[i][2]) * nc + cell_of(pts[i][1])) * nc + cell_of(pts[i][0])].push_back(
            static_cast<std::uint32_t>(i));

    quoct_bench::rng rng(seed + 1);
    std::vector<std::size_t> chosen;
    while (chosen.size() < sampled) {
        const std::size_t c = rng.index(cells.size());
        const std::size_t cx = c % nc, cy = c / nc % nc, cz = c / (nc * nc);
        const bool interior = cx > 0 && cy > 0 && cz > 0 && cx + 1 < nc && cy + 1 < nc && cz + 1 < nc;
        if (interior && !cells[c].empty() && std::find(chosen.begin(), chosen.end(), c) == chosen.end())
            chosen.push_back(c);
    }
    std::sort(chosen.begin(), chosen.end());  // the engine goes cell by cell

    workload ws;
    const float r2 = r * r;
    for (std::size_t c : chosen) {
        float bl[3], bh[3];
        for (std::size_t a = 0; a < 3; ++a) bl[a] = bh[a] = pts[cells[c][0]][a];
        for (std::uint32_t i : cells[c])
            for (std::size_t a = 0; a < 3; ++a) {
                bl[a] = std::min(bl[a], pts[i][a]);
                bh[a] = std::max(bh[a], pts[i][a]);
            }
        const std::size_t first = ws.ids.size(), q_first = ws.query[0].size();
        const std::size_t cx = c % nc, cy = c / nc % nc, cz = c / (nc * nc);
        for (std::size_t z = cz ? cz - 1 : 0; z <= std::min(cz + 1, nc - 1); ++z)
            for (std::size_t y = cy ? cy - 1 : 0; y <= std::min(cy + 1, nc - 1); ++y)
                for (std::size_t x = cx ? cx - 1 : 0; x <= std::min(cx + 1, nc - 1); ++x)
                    for (std::uint32_t i : cells[(z * nc + y) * nc + x]) {
                        float s = 0;  // distance_sq(point, box), as the engine's near_box
                        for (std::size_t a = 0; a < 3; ++a) {
                            const float g = pts[i][a] - std::max(bl[a], std::min(pts[i][a], bh[a]));
                            s += g * g;
                        }
                        if (s <= r2) ws.add_candidate(pts[i].data(), i);
                    }
        for (std::uint32_t i : cells[c]) ws.add_query(pts[i].data());
        ws.close_range(first, q_first, r2);
    }
    ws.finish();
    return ws;
}

/// One long range: every point of a jittered lattice, a few queries inside it.
workload make_long(std::size_t side, float r, std::uint64_t seed) {
    const std::vector<std::array<float, 3>> pts = jittered_lattice(side, seed);
    workload ws;
    for (std::size_t i = 0; i < pts.size(); ++i) ws.add_candidate(pts[i].data(), static_cast<std::uint32_t>(i));
    const float h = static_cast<float>(side) / 2;
    const float queries[4][3] = {{h, h, h}, {h / 2, h, h}, {h, 3 * h / 2, h / 3}, {h + 0.37f, h - 5.1f, h + 9.3f}};
    for (const auto& q : queries) ws.add_query(q);
    ws.close_range(0, 0, r * r);
    ws.finish();
    return ws;
}

/// Ties: ranges of random candidates around a random query whose r2 is exactly one
/// candidate's squared distance rounded as quoct rounds it (each square, then each sum);
/// a kernel that fuses a square into its sum disagrees on many of them.
workload make_ties(std::size_t ranges, std::size_t per_range, std::uint64_t seed) {
    quoct_bench::rng rng(seed);
    workload ws;
    for (std::size_t k = 0; k < ranges; ++k) {
        float q[3];
        for (float& x : q) x = static_cast<float>(rng.uniform(0.0, 1.0));
        const std::size_t first = ws.ids.size(), q_first = ws.add_query(q);
        for (std::size_t t = 0; t < per_range; ++t) {
            float x[3];
            for (std::size_t a = 0; a < 3; ++a) x[a] = q[a] + static_cast<float>(rng.uniform(-1.5, 1.5));
            ws.add_candidate(x, static_cast<std::uint32_t>(first + t));
        }
        const float* cols[3] = {ws.cand[0].data(), ws.cand[1].data(), ws.cand[2].data()};
        const float r2 = kernels::candidate_distance_sq<float, 3>(q, cols, first + k % per_range);
        ws.close_range(first, q_first, r2);
    }
    ws.finish();
    return ws;
}

/// One library at one level.
struct variant {
    std::string library, level;
    std::size_t level_index;       // quoct: kernels::level; xsimd: into level_names; highway: into hw::levels()
    std::function<void()> select;  // makes the calls below run at this level
    std::function<std::size_t(const float*, const float* const*, std::size_t, std::size_t, float)> count;
    std::function<std::size_t(const float*, const float* const*, const std::uint32_t*, std::size_t, std::size_t,
                              float, std::uint32_t*)>
        hit_ids;
};

std::vector<variant> all_variants() {
    std::vector<variant> out;
    const kernels::level best = kernels::cpu_level();
    for (int l = static_cast<int>(best); l >= 0; --l) {
        const auto lv = static_cast<kernels::level>(l);
        out.push_back({"quoct", kernels::level_name(lv), static_cast<std::size_t>(l), [] {},
                       [lv](const float* p, const float* const* c, std::size_t f, std::size_t e, float r2) {
                           return kernels::count_within<float, 3>(lv, p, c, nullptr, f, e, r2);
                       },
                       [lv](const float* p, const float* const* c, const std::uint32_t* ids, std::size_t f,
                            std::size_t e, float r2, std::uint32_t* o) {
                           return kernels::hit_ids<float, 3>(lv, p, c, nullptr, ids, f, e, r2, false, 0, o);
                       }});
    }
    for (std::size_t l : xs::levels())
        out.push_back({"xsimd", xs::level_names[l], l, [] {},
                       [l](const float* p, const float* const* c, std::size_t f, std::size_t e, float r2) {
                           return xs::count_within(l, p, c, f, e, r2);
                       },
                       [l](const float* p, const float* const* c, const std::uint32_t* ids, std::size_t f,
                           std::size_t e, float r2, std::uint32_t* o) { return xs::hit_ids(l, p, c, ids, f, e, r2, o); }});
    const std::vector<std::string> targets = hw::levels();
    for (std::size_t l = 0; l < targets.size(); ++l) {
        const auto select = [l, name = targets[l]] {
            if (hw::use_level(l) != name) {  // Highway did not switch: the timing would be mislabelled
                std::fprintf(stderr, "bench_simd_dispatch: Highway does not run %s when asked\n", name.c_str());
                std::abort();
            }
        };
        out.push_back({"highway", targets[l], l, select, hw::count_within, hw::hit_ids});
        out.push_back({"highway_compressstore", targets[l], l, select, nullptr, hw::hit_ids_compress_store});
    }
    return out;
}

/// Every count and every row of ids of v against quoct's portable loop; aborts on a
/// difference.
void check(const variant& v, const workload& ws, const char* what) {
    v.select();
    std::vector<std::uint32_t> want, got;
    for (std::size_t k = 0; k < ws.ranges.size(); ++k) {
        const workload::range& r = ws.ranges[k];
        want.resize(r.last - r.first + pad);
        got.resize(r.last - r.first + pad);
        for (std::size_t q = r.q_first; q < r.q_last; ++q) {
            float p[3];
            ws.point(q, p);
            const std::size_t n = kernels::hit_ids<float, 3>(kernels::level::portable, p, ws.cols, nullptr,
                                                             ws.ids.data(), r.first, r.last, r.r2, false, 0, want.data());
            bool same = true;
            if (v.count) same = v.count(p, ws.cols, r.first, r.last, r.r2) == n;
            const std::size_t m = v.hit_ids(p, ws.cols, ws.ids.data(), r.first, r.last, r.r2, got.data());
            same = same && m == n && std::equal(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(n), got.begin());
            if (!same) {
                std::fprintf(stderr, "bench_simd_dispatch: %s/%s differs from quoct's portable loop on %s, range %zu, "
                                     "query %zu (%zu hits expected)\n",
                             v.library.c_str(), v.level.c_str(), what, k, q, n);
                std::abort();
            }
        }
    }
}

template <class Kernel>
void run_count(benchmark::State& state, const workload& ws, Kernel kernel) {
    std::size_t total = 0;
    for (auto _ : state) {
        total = 0;
        for (const workload::range& r : ws.ranges)
            for (std::size_t q = r.q_first; q < r.q_last; ++q) {
                float p[3];
                ws.point(q, p);
                total += kernel(p, ws.cols, r.first, r.last, r.r2);
            }
        benchmark::DoNotOptimize(total);
    }
    state.counters["hits_per_query"] = static_cast<double>(total) / static_cast<double>(ws.query[0].size());
}

template <class Kernel>
void run_hit_ids(benchmark::State& state, const workload& ws, Kernel kernel) {
    std::size_t longest = 0;
    for (const workload::range& r : ws.ranges) longest = std::max(longest, r.last - r.first);
    std::vector<std::uint32_t> out(longest + pad);
    std::size_t total = 0;
    for (auto _ : state) {
        total = 0;
        for (const workload::range& r : ws.ranges)
            for (std::size_t q = r.q_first; q < r.q_last; ++q) {
                float p[3];
                ws.point(q, p);
                total += kernel(p, ws.cols, ws.ids.data(), r.first, r.last, r.r2, out.data());
                benchmark::ClobberMemory();
            }
        benchmark::DoNotOptimize(total);
    }
    state.counters["hits_per_query"] = static_cast<double>(total) / static_cast<double>(ws.query[0].size());
}

void counters(benchmark::State& state, const workload& ws) {
    // Inverted rate: seconds per (tests * 1e-9) = nanoseconds per candidate.
    state.counters["ns_per_candidate"] = benchmark::Counter(static_cast<double>(ws.tests) * 1e-9,
                                                            benchmark::Counter::kIsIterationInvariantRate |
                                                                benchmark::Counter::kInvert);
    state.counters["candidates_per_range"] = ws.mean_candidates();
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ws.tests));
}

// The kernels called straight, not through std::function, as their users call them.
void register_all(const std::vector<variant>& variants, const workload& cells, const workload& long_range) {
    const std::pair<const char*, const workload*> sets[] = {{"cells", &cells}, {"long", &long_range}};
    for (const auto& set : sets) {
        const workload* ws = set.second;
        for (const variant& v : variants) {
            const std::string tail = std::string("/") + set.first + "/" + v.library + "/" + v.level;
            const auto ql = static_cast<kernels::level>(v.level_index);
            const std::size_t xl = v.level_index;
            const std::function<void()> select = v.select;
            if (v.library == "quoct") {
                benchmark::RegisterBenchmark(("count" + tail).c_str(), [=](benchmark::State& s) {
                    run_count(s, *ws, [ql](const float* p, const float* const* c, std::size_t f, std::size_t e, float r2) {
                        return kernels::count_within<float, 3>(ql, p, c, nullptr, f, e, r2);
                    });
                    counters(s, *ws);
                });
                benchmark::RegisterBenchmark(("hit_ids" + tail).c_str(), [=](benchmark::State& s) {
                    run_hit_ids(s, *ws, [ql](const float* p, const float* const* c, const std::uint32_t* ids,
                                             std::size_t f, std::size_t e, float r2, std::uint32_t* o) {
                        return kernels::hit_ids<float, 3>(ql, p, c, nullptr, ids, f, e, r2, false, 0, o);
                    });
                    counters(s, *ws);
                });
            } else if (v.library == "xsimd") {
                benchmark::RegisterBenchmark(("count" + tail).c_str(), [=](benchmark::State& s) {
                    run_count(s, *ws, [xl](const float* p, const float* const* c, std::size_t f, std::size_t e, float r2) {
                        return xs::count_within(xl, p, c, f, e, r2);
                    });
                    counters(s, *ws);
                });
                benchmark::RegisterBenchmark(("hit_ids" + tail).c_str(), [=](benchmark::State& s) {
                    run_hit_ids(s, *ws, [xl](const float* p, const float* const* c, const std::uint32_t* ids,
                                             std::size_t f, std::size_t e, float r2,
                                             std::uint32_t* o) { return xs::hit_ids(xl, p, c, ids, f, e, r2, o); });
                    counters(s, *ws);
                });
            } else if (v.library == "highway") {
                benchmark::RegisterBenchmark(("count" + tail).c_str(), [=](benchmark::State& s) {
                    select();
                    run_count(s, *ws, hw::count_within);
                    counters(s, *ws);
                });
                benchmark::RegisterBenchmark(("hit_ids" + tail).c_str(), [=](benchmark::State& s) {
                    select();
                    run_hit_ids(s, *ws, hw::hit_ids);
                    counters(s, *ws);
                });
            } else {
                benchmark::RegisterBenchmark(("hit_ids" + tail).c_str(), [=](benchmark::State& s) {
                    select();
                    run_hit_ids(s, *ws, hw::hit_ids_compress_store);
                    counters(s, *ws);
                });
            }
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    bool check_only = false;
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
        if (std::strcmp(argv[i], "--check") == 0) check_only = true;
        else args.push_back(argv[i]);
    }
    int n_args = static_cast<int>(args.size());

    const workload cells = make_cells(32, 2.0f, 512, 20261126);
    const workload long_range = make_long(100, 20.0f, 20261127);
    const workload ties = make_ties(2000, 150, 20261128);
    const std::vector<variant> variants = all_variants();

    std::string levels;
    for (const variant& v : variants) {
        check(v, cells, "cells");
        check(v, long_range, "long");
        check(v, ties, "ties");
        levels += (levels.empty() ? "" : " ") + v.library + "/" + v.level;
    }
    hw::use_level(0);
    std::fprintf(stderr, "bench_simd_dispatch: every variant agrees with quoct's portable loop (cells: %zu ranges of "
                         "%.1f candidates on average; long: %zu candidates; %zu ties): %s\n",
                 cells.ranges.size(), cells.mean_candidates(), long_range.ranges[0].last, ties.ranges.size(),
                 levels.c_str());
    if (check_only) return 0;

    benchmark::AddCustomContext("variants", levels);
    benchmark::AddCustomContext("cells_mean_candidates", std::to_string(cells.mean_candidates()));
    register_all(variants, cells, long_range);
    benchmark::Initialize(&n_args, args.data());
    if (benchmark::ReportUnrecognizedArguments(n_args, args.data())) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    hw::use_level(0);
    return 0;
}
