// quoct benchmarks: quoct against nanoflann, the Boost.Geometry rtree and brute force, in one
// binary, on the same points and the same queries. Names are operation/workload/peer, e.g.
// radius32/uniform3d/quoct. One iteration runs a fixed query set, so every peer answers
// exactly the same queries and results_per_query must agree between peers.
//
// Options of our own (the rest go to Google Benchmark):
//   --smoke          20k points, 256 queries, min time 0.01 s: checks it builds and runs
//                    (also QUOCT_BENCH_SMOKE=1 in the environment)
//   --size=N         points in the uniform, clustered and bunny sets (default 1000000)
//   --queries=N      random-order queries per iteration (default 4096)
//   --inorder=N      input-order queries per iteration, 0 for every point (default 131072)
//   --data_dir=DIR   where cities.csv and the bunny files are (default: the repository's data/)
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "incremental.hpp"
#include "workloads.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#ifndef QUOCT_BENCH_DATA_DIR
#define QUOCT_BENCH_DATA_DIR "data"
#endif

namespace quoct_bench {
namespace {

/// Runs before the timed loop: the workload (built on first use) and whether this peer
/// passed its correctness check on it.
template <std::size_t D, class Peer>
const workload<D>* prepare_run(benchmark::State& state, workload_id id) {
    const workload<D>& w = get_workload<D>(id);
    const auto failed = w.failures.find(Peer::name);
    if (failed != w.failures.end()) {
        state.SkipWithError(failed->second.c_str());
        return nullptr;
    }
    return &w;
}

template <std::size_t D, class Peer>
void bm_build(benchmark::State& state, workload_id id) {
    const workload<D>* w = prepare_run<D, Peer>(state, id);
    if (!w) return;
    Peer peer;
    peer.prepare(w->points);
    for (auto _ : state) peer.build();  // the previous tree is freed inside: small next to a build
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * w->points.size()));
    state.counters["bytes_per_point"] =
        static_cast<double>(peer.memory_bytes()) / static_cast<double>(w->points.size());
}

enum class order { random, input };

template <std::size_t D, class Peer>
void bm_radius(benchmark::State& state, workload_id id, double workload<D>::*radius, order o) {
    const workload<D>* w = prepare_run<D, Peer>(state, id);
    if (!w) return;
    const Peer& peer = w->template get<Peer>();
    const auto& queries = o == order::random ? w->random_queries : w->inorder_queries;
    const double r = w->*radius;
    typename Peer::buffers buf;
    std::size_t results = 0;
    for (auto _ : state)
        for (const auto& c : queries) results += peer.radius(c, r, buf);
    report_queries(state, queries.size(), results);
    state.counters["radius"] = r;
}

template <std::size_t D, class Peer>
void bm_count(benchmark::State& state, workload_id id) {
    const workload<D>* w = prepare_run<D, Peer>(state, id);
    if (!w) return;
    const Peer& peer = w->template get<Peer>();
    std::size_t results = 0;
    for (auto _ : state)
        for (const auto& c : w->random_queries) results += peer.count(c, w->r256);
    report_queries(state, w->random_queries.size(), results);
    state.counters["radius"] = w->r256;
}

template <std::size_t D, class Peer>
void bm_box(benchmark::State& state, workload_id id) {
    const workload<D>* w = prepare_run<D, Peer>(state, id);
    if (!w) return;
    const Peer& peer = w->template get<Peer>();
    std::vector<box<D>> boxes;
    for (const auto& c : w->random_queries) boxes.push_back(box_around(c, w->box_half256));
    typename Peer::buffers buf;
    std::size_t results = 0;
    for (auto _ : state)
        for (const auto& b : boxes) results += peer.in_box(b, buf);
    report_queries(state, boxes.size(), results);
    state.counters["half_width"] = w->box_half256;
}

template <std::size_t D, class Peer>
void bm_nearest(benchmark::State& state, workload_id id, std::size_t k) {
    const workload<D>* w = prepare_run<D, Peer>(state, id);
    if (!w) return;
    const Peer& peer = w->template get<Peer>();
    typename Peer::buffers buf;
    std::size_t results = 0;
    for (auto _ : state)
        for (const auto& c : w->nearest_queries) results += peer.nearest(c, k, buf);
    report_queries(state, w->nearest_queries.size(), results);
}

template <std::size_t D, class Peer>
void add(const std::string& op, workload_id id, std::function<void(benchmark::State&)> fn) {
    const std::string name = op + "/" + workload_name(id) + "/" + Peer::name;
    benchmark::RegisterBenchmark(name.c_str(), std::move(fn))->Unit(benchmark::kMillisecond);
}

/// Registers every benchmark of one peer on one workload.
template <std::size_t D, class Peer>
void register_peer(workload_id id) {
    constexpr bool brute = std::is_same<Peer, brute_peer<D>>::value;
    constexpr bool has_box = !std::is_same<Peer, nanoflann_peer<D>>::value;  // nanoflann has no box query
    if (brute && planned_size(id) > config().brute_limit) return;
    if (!brute) add<D, Peer>("build", id, [id](benchmark::State& s) { bm_build<D, Peer>(s, id); });
    add<D, Peer>("radius32", id, [id](benchmark::State& s) { bm_radius<D, Peer>(s, id, &workload<D>::r32, order::random); });
    add<D, Peer>("radius256", id, [id](benchmark::State& s) { bm_radius<D, Peer>(s, id, &workload<D>::r256, order::random); });
    if (!brute) {
        add<D, Peer>("radius32_inorder", id,
                     [id](benchmark::State& s) { bm_radius<D, Peer>(s, id, &workload<D>::r32, order::input); });
        add<D, Peer>("radius256_inorder", id,
                     [id](benchmark::State& s) { bm_radius<D, Peer>(s, id, &workload<D>::r256, order::input); });
    }
    add<D, Peer>("count256", id, [id](benchmark::State& s) { bm_count<D, Peer>(s, id); });
    if constexpr (has_box) add<D, Peer>("box256", id, [id](benchmark::State& s) { bm_box<D, Peer>(s, id); });
    add<D, Peer>("knn1", id, [id](benchmark::State& s) { bm_nearest<D, Peer>(s, id, 1); });
    add<D, Peer>("knn5", id, [id](benchmark::State& s) { bm_nearest<D, Peer>(s, id, 5); });
    add<D, Peer>("knn10", id, [id](benchmark::State& s) { bm_nearest<D, Peer>(s, id, 10); });
}

template <std::size_t D>
void register_workload(workload_id id) {
    register_peer<D, quoct_peer<D>>(id);
    register_peer<D, nanoflann_peer<D>>(id);
    register_peer<D, rtree_peer<D>>(id);
    register_peer<D, brute_peer<D>>(id);
}

// --- the incremental workload (see incremental.hpp) ---------------------------------------

const incremental_plan& get_incremental_plan() {
    static const incremental_plan plan = [] {
        const settings& s = config();
        return make_incremental_plan(bunny_points(s.data_dir, s.points, 0x5eed0003),
                                     std::max<std::size_t>(1, s.points / 100));
    }();
    return plan;
}

/// One whole scenario per iteration. items/s is knn5 queries per second; the counters
/// give inserts and moves per second and bytes per point after the inserts, each from its
/// own clock, and the checksum (sum of every answer's distances) agrees between peers.
template <class Peer>
void bm_incremental(benchmark::State& state) {
    const incremental_plan& plan = get_incremental_plan();
    incremental_result sum;
    for (auto _ : state) {
        const incremental_result r = Peer::run(plan);
        state.SetIterationTime(r.insert_seconds + r.query_seconds + r.move_seconds);
        sum.insert_seconds += r.insert_seconds;
        sum.query_seconds += r.query_seconds;
        sum.move_seconds += r.move_seconds;
        sum.inserted += r.inserted;
        sum.queries += r.queries;
        sum.moved += r.moved;
        sum.bytes_per_point = r.bytes_per_point;
        sum.checksum = r.checksum;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(sum.queries));
    state.counters["knn5_per_s"] = static_cast<double>(sum.queries) / sum.query_seconds;
    state.counters["insert_per_s"] = static_cast<double>(sum.inserted) / sum.insert_seconds;
    state.counters["move_per_s"] = static_cast<double>(sum.moved) / sum.move_seconds;
    state.counters["bytes_per_point"] = sum.bytes_per_point;
    state.counters["checksum"] = sum.checksum;
}

template <class Peer>
void register_incremental() {
    const std::string name = std::string("incremental/bunny3d/") + Peer::name;
    benchmark::RegisterBenchmark(name.c_str(), bm_incremental<Peer>)
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime()
        ->Iterations(1);
}

bool take_flag(const char* arg, const char* flag, std::string& value) {
    const std::size_t n = std::strlen(flag);
    if (std::strncmp(arg, flag, n) != 0 || arg[n] != '=') return false;
    value = arg + n + 1;
    return true;
}

/// Takes our own options out of argv; returns the rest for Google Benchmark.
std::vector<char*> parse_options(int argc, char** argv) {
    settings& s = config();
    s.data_dir = QUOCT_BENCH_DATA_DIR;
    if (const char* dir = std::getenv("QUOCT_DATA_DIR")) s.data_dir = dir;
    const char* smoke_env = std::getenv("QUOCT_BENCH_SMOKE");
    s.smoke = smoke_env && *smoke_env && std::strcmp(smoke_env, "0") != 0;
    std::vector<char*> rest{argv[0]};
    bool min_time_given = false;
    std::string size, queries, inorder;
    for (int i = 1; i < argc; ++i) {
        std::string value;
        if (std::strcmp(argv[i], "--smoke") == 0) s.smoke = true;
        else if (take_flag(argv[i], "--size", size) || take_flag(argv[i], "--queries", queries) ||
                 take_flag(argv[i], "--inorder", inorder)) continue;
        else if (take_flag(argv[i], "--data_dir", value)) s.data_dir = value;
        else {
            min_time_given = min_time_given || std::strncmp(argv[i], "--benchmark_min_time", 20) == 0;
            rest.push_back(argv[i]);
        }
    }
    if (s.smoke) {
        s.points = s.city_limit = 20000;
        s.queries = 256;
        s.inorder_limit = 0;
        static char min_time[] = "--benchmark_min_time=0.01";
        if (!min_time_given) rest.push_back(min_time);
    }
    if (!size.empty()) s.points = std::stoul(size);
    if (!queries.empty()) s.queries = std::stoul(queries);
    if (!inorder.empty()) s.inorder_limit = std::stoul(inorder);
    return rest;
}

void add_context() {
    const settings& s = config();
    benchmark::AddCustomContext("quoct_points", std::to_string(s.points));
    benchmark::AddCustomContext("quoct_queries", std::to_string(s.queries));
    benchmark::AddCustomContext("quoct_inorder_queries", s.inorder_limit == 0 ? "all" : std::to_string(s.inorder_limit));
    benchmark::AddCustomContext("quoct_smoke", s.smoke ? "yes" : "no");
    benchmark::AddCustomContext("quoct_compiler", __VERSION__);
#if defined(__FMA__) || defined(__AVX2__)
    benchmark::AddCustomContext("quoct_isa", "FMA/AVX2 enabled (not the portable x86-64 build)");
#else
    benchmark::AddCustomContext("quoct_isa", "portable x86-64 (no FMA, no AVX)");
#endif
#ifdef NDEBUG
    benchmark::AddCustomContext("quoct_asserts", "off (NDEBUG)");
#else
    benchmark::AddCustomContext("quoct_asserts", "ON: not a release build");
#endif
}

}  // namespace
}  // namespace quoct_bench

int main(int argc, char** argv) {
    using namespace quoct_bench;
#if defined(__GLIBC__)
    // Builds are timed in steady state: memory freed by one build is reused by the next,
    // never handed back to the kernel and faulted in again. Otherwise glibc's adaptive mmap
    // threshold decides, differently from one workload to the next, whether a build pays for
    // page faults (half its time at 1M points), and the ratios would measure the allocator.
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
    std::vector<char*> args = parse_options(argc, argv);
    register_workload<3>(workload_id::uniform3d);
    register_workload<3>(workload_id::clustered3d);
    register_workload<3>(workload_id::bunny3d);
    register_workload<2>(workload_id::cities2d);
    register_workload<2>(workload_id::uniform2d);
    register_incremental<quoct_incremental>();
    register_incremental<nanoflann_incremental>();
    add_context();
    int n = static_cast<int>(args.size());
    benchmark::Initialize(&n, args.data());
    if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
