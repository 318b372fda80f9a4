// bench_scales: data at every scale, quoct against nanoflann's kd-tree in one binary, on the
// same points and the same queries. A kd-tree splits at data medians and never notices the
// scale; an orthtree halves cells, so a set spanning 40 decades needs about 133 levels of
// nesting around its densest point, and points equal but for their last bits need levels
// below any one grid's resolution.
//
// Workloads (3D, --size points, default 1M):
//   loguniform20  distances from the origin log-uniform in [1e-20, 1e20], random directions
//   loguniform15  the same in [1e-15, 1e15]
//   ulps          every coordinate 1 + k ulp, k < 1024 (equal but for their last 10 bits)
//   ulpclusters   1000 clusters of 1000 points: centres as loguniform20, each coordinate
//                 the centre's moved up by 0 to 15 representable doubles
// Queries: --queries data points (default 10000) drawn with a fixed seed.
//   knn2, knn10     the k nearest (knn2: the point itself and its nearest other one)
//   ball32, count32 the closed ball of radius f |q| around each query q: a neighbourhood on
//                   the query's own scale, f calibrated (by bisection, nanoflann's counts over
//                   the first 1000 queries) for a mean of 32 points; reported as `f`
//   box32           the box of half-width 0.806 f |q| (the ball's volume); quoct only,
//                   nanoflann has no box query
//   build           the index from the points (items: points)
// Names are operation/workload/peer; items/s are queries (points for build) per CPU second.
// Each peer's answers to 16 queries of each kind are checked against brute force first
// (nanoflann's ball is open, d < r^2, which the check allows); a peer that disagrees is
// reported as an error instead of timed.
//
//   --smoke    20k points, 256 queries, min time 0.01 s (also QUOCT_BENCH_SMOKE=1)
//   --size=N, --queries=N
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "peers.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace quoct_bench {
namespace {

constexpr std::size_t D = 3;

struct scale_settings {
    bool smoke = false;
    std::size_t points = 1000000;
    std::size_t queries = 10000;
};

scale_settings& settings() {
    static scale_settings s;
    return s;
}

const char* const workload_names[] = {"loguniform20", "loguniform15", "ulps", "ulpclusters"};

std::vector<point<D>> make_set(const std::string& name, std::size_t n) {
    if (name == "loguniform20") return log_uniform_points<D>(n, 1e-20, 1e20, 0x5eed0011);
    if (name == "loguniform15") return log_uniform_points<D>(n, 1e-15, 1e15, 0x5eed0012);
    if (name == "ulps") return ulp_points<D>(n, 0x5eed0013);
    return ulp_cluster_points<D>(n, 1e-20, 1e20, 0x5eed0014);
}

struct scale_workload {
    std::string name;
    std::vector<point<D>> points;
    std::vector<point<D>> queries;
    std::vector<double> radius;  // f |q| for each query
    std::vector<box<D>> boxes;
    double factor = 0;
    quoct_peer<D> quoct;
    nanoflann_peer<D> nanoflann;
    brute_peer<D> brute;
    std::string quoct_failure, nanoflann_failure;

    template <class Peer>
    const Peer& get() const {
        if constexpr (std::is_same<Peer, quoct_peer<D>>::value) return quoct;
        else return nanoflann;
    }
    template <class Peer>
    const std::string& failure() const {
        if constexpr (std::is_same<Peer, quoct_peer<D>>::value) return quoct_failure;
        else return nanoflann_failure;
    }
};

double norm(const point<D>& p) { return std::sqrt(quoct::distance_sq(p, point<D>{})); }

/// Why the peer's answers differ from brute force on the first 16 queries, or "".
template <class Peer>
std::string check(const scale_workload& w, const Peer& peer) {
    typename Peer::buffers got;
    typename brute_peer<D>::buffers want;
    constexpr bool open_ball = std::is_same<Peer, nanoflann_peer<D>>::value;
    for (std::size_t q = 0; q < std::min<std::size_t>(16, w.queries.size()); ++q) {
        const point<D>& c = w.queries[q];
        const double r = w.radius[q];
        std::vector<id_t> a, b;
        const std::size_t found = peer.radius(c, r, got);
        a = Peer::ids(got, result_kind::region);
        w.brute.radius(c, r, want);
        for (id_t i : want.ids)
            if (!open_ball || quoct::distance_sq(w.points[i], c) < r * r) b.push_back(i);
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        if (a != b) return "ball " + std::to_string(q) + ": " + std::to_string(a.size()) + " ids, expected " + std::to_string(b.size());
        if (peer.count(c, r) != found) return "count " + std::to_string(q) + " differs from the ball";
        if constexpr (!open_ball) {
            peer.in_box(w.boxes[q], got);
            a = Peer::ids(got, result_kind::region);
            w.brute.in_box(w.boxes[q], want);
            b = want.ids;
            std::sort(a.begin(), a.end());
            std::sort(b.begin(), b.end());
            if (a != b) return "box " + std::to_string(q) + ": " + std::to_string(a.size()) + " ids, expected " + std::to_string(b.size());
        }
        for (std::size_t k : {std::size_t{2}, std::size_t{10}}) {
            peer.nearest(c, k, got);
            w.brute.nearest(c, k, want);
            const auto dists = [&](const std::vector<id_t>& ids) {
                std::vector<double> d;
                for (id_t i : ids) d.push_back(quoct::distance_sq(w.points[i], c));
                std::sort(d.begin(), d.end());
                return d;
            };
            if (dists(Peer::ids(got, result_kind::nearest)) != dists(brute_peer<D>::ids(want, result_kind::nearest)))
                return "knn" + std::to_string(k) + " " + std::to_string(q) + ": not the nearest";
        }
    }
    return "";
}

std::unique_ptr<scale_workload> load(const std::string& name) {
    const scale_settings& s = settings();
    auto w = std::make_unique<scale_workload>();
    w->name = name;
    w->points = make_set(name, s.points);
    rng pick(0x9e3779b97f4a7c15ULL ^ std::hash<std::string>{}(name));
    for (std::size_t i = 0; i < s.queries; ++i) w->queries.push_back(w->points[pick.index(w->points.size())]);
    w->quoct.prepare(w->points);
    w->nanoflann.prepare(w->points);
    w->brute.prepare(w->points);
    w->quoct.build();
    w->nanoflann.build();
    // f for a mean of 32 points in the balls of radius f |q|, on nanoflann's counts (the fast
    // peer whatever quoct's version; its open ball counts a point at exactly r one less).
    const std::size_t sample = std::min<std::size_t>(1000, w->queries.size());
    const auto mean = [&](double f) {
        double total = 0;
        for (std::size_t i = 0; i < sample; ++i) total += static_cast<double>(w->nanoflann.count(w->queries[i], f * norm(w->queries[i])));
        return total / static_cast<double>(sample);
    };
    double lo = 1e-18, hi = 10;
    for (int step = 0; step < 40; ++step) {
        const double mid = std::sqrt(lo * hi);
        (mean(mid) < 32 ? lo : hi) = mid;
    }
    w->factor = std::sqrt(lo * hi);
    const double box_factor = w->factor * std::cbrt(M_PI / 6);  // the ball's volume
    for (const point<D>& q : w->queries) {
        w->radius.push_back(w->factor * norm(q));
        box<D> b{q, q};
        for (std::size_t a = 0; a < D; ++a) {
            b.lo[a] -= box_factor * norm(q);
            b.hi[a] += box_factor * norm(q);
        }
        w->boxes.push_back(b);
    }
    w->quoct_failure = check(*w, w->quoct);
    w->nanoflann_failure = check(*w, w->nanoflann);
    for (const std::string* f : {&w->quoct_failure, &w->nanoflann_failure})
        if (!f->empty()) std::fprintf(stderr, "bench_scales: %s: %s\n", name.c_str(), f->c_str());
    std::fprintf(stderr, "bench_scales: %s: %zu points, %zu queries, f = %.6g\n", name.c_str(), w->points.size(),
                 w->queries.size(), w->factor);
    return w;
}

/// The one workload kept built.
const scale_workload& get(const std::string& name) {
    static std::unique_ptr<scale_workload> current;
    if (!current || current->name != name) {
        current.reset();
        current = load(name);
    }
    return *current;
}

template <class Peer>
const scale_workload* prepare(benchmark::State& state, const std::string& name) {
    const scale_workload& w = get(name);
    if (!w.failure<Peer>().empty()) {
        state.SkipWithError(w.failure<Peer>().c_str());
        return nullptr;
    }
    return &w;
}

template <class Peer>
void bm_build(benchmark::State& state, const std::string& name) {
    const scale_workload* w = prepare<Peer>(state, name);
    if (!w) return;
    Peer peer;
    peer.prepare(w->points);
    for (auto _ : state) peer.build();
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * w->points.size()));
}

template <class Peer>
void bm_nearest(benchmark::State& state, const std::string& name, std::size_t k) {
    const scale_workload* w = prepare<Peer>(state, name);
    if (!w) return;
    const Peer& peer = w->get<Peer>();
    typename Peer::buffers buf;
    std::size_t results = 0;
    for (auto _ : state)
        for (const auto& q : w->queries) results += peer.nearest(q, k, buf);
    report_queries(state, w->queries.size(), results);
}

template <class Peer>
void bm_ball(benchmark::State& state, const std::string& name, bool count_only) {
    const scale_workload* w = prepare<Peer>(state, name);
    if (!w) return;
    const Peer& peer = w->get<Peer>();
    typename Peer::buffers buf;
    std::size_t results = 0;
    for (auto _ : state)
        for (std::size_t i = 0; i < w->queries.size(); ++i)
            results += count_only ? peer.count(w->queries[i], w->radius[i]) : peer.radius(w->queries[i], w->radius[i], buf);
    report_queries(state, w->queries.size(), results);
    state.counters["f"] = w->factor;
}

template <class Peer>
void bm_box(benchmark::State& state, const std::string& name) {
    const scale_workload* w = prepare<Peer>(state, name);
    if (!w) return;
    const Peer& peer = w->get<Peer>();
    typename Peer::buffers buf;
    std::size_t results = 0;
    for (auto _ : state)
        for (const auto& b : w->boxes) results += peer.in_box(b, buf);
    report_queries(state, w->boxes.size(), results);
}

template <class Peer>
void add(const std::string& op, const std::string& name, std::function<void(benchmark::State&)> fn) {
    const std::string full = op + "/" + name + "/" + Peer::name;
    benchmark::RegisterBenchmark(full.c_str(), std::move(fn))->Unit(benchmark::kMillisecond);
}

template <class Peer>
void register_peer(const std::string& name) {
    add<Peer>("build", name, [name](benchmark::State& s) { bm_build<Peer>(s, name); });
    add<Peer>("knn2", name, [name](benchmark::State& s) { bm_nearest<Peer>(s, name, 2); });
    add<Peer>("knn10", name, [name](benchmark::State& s) { bm_nearest<Peer>(s, name, 10); });
    add<Peer>("ball32", name, [name](benchmark::State& s) { bm_ball<Peer>(s, name, false); });
    add<Peer>("count32", name, [name](benchmark::State& s) { bm_ball<Peer>(s, name, true); });
    if constexpr (!std::is_same<Peer, nanoflann_peer<D>>::value)
        add<Peer>("box32", name, [name](benchmark::State& s) { bm_box<Peer>(s, name); });
}

bool take_flag(const char* arg, const char* flag, std::string& value) {
    const std::size_t n = std::strlen(flag);
    if (std::strncmp(arg, flag, n) != 0 || arg[n] != '=') return false;
    value = arg + n + 1;
    return true;
}

std::vector<char*> parse_options(int argc, char** argv) {
    scale_settings& s = settings();
    const char* smoke_env = std::getenv("QUOCT_BENCH_SMOKE");
    s.smoke = smoke_env && *smoke_env && std::strcmp(smoke_env, "0") != 0;
    std::vector<char*> rest{argv[0]};
    bool min_time_given = false;
    std::string size, queries;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--smoke") == 0) s.smoke = true;
        else if (take_flag(argv[i], "--size", size) || take_flag(argv[i], "--queries", queries)) continue;
        else {
            min_time_given = min_time_given || std::strncmp(argv[i], "--benchmark_min_time", 20) == 0;
            rest.push_back(argv[i]);
        }
    }
    if (s.smoke) {
        s.points = 20000;
        s.queries = 256;
        static char min_time[] = "--benchmark_min_time=0.01";
        if (!min_time_given) rest.push_back(min_time);
    }
    if (!size.empty()) s.points = std::stoul(size);
    if (!queries.empty()) s.queries = std::stoul(queries);
    return rest;
}

}  // namespace
}  // namespace quoct_bench

int main(int argc, char** argv) {
    using namespace quoct_bench;
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);  // builds in steady state, as quoct_bench
    mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
    std::vector<char*> args = parse_options(argc, argv);
    for (const char* name : workload_names) {
        register_peer<quoct_peer<D>>(name);
        register_peer<nanoflann_peer<D>>(name);
    }
    benchmark::AddCustomContext("quoct_points", std::to_string(settings().points));
    benchmark::AddCustomContext("quoct_queries", std::to_string(settings().queries));
    int n = static_cast<int>(args.size());
    benchmark::Initialize(&n, args.data());
    if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
