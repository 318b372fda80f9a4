// quoct::mpi benchmark (Google Benchmark under mpiexec): time per step and bytes sent per
// rank for the distributed index's build, a batch of radius queries and a pair search,
// and the same steps with the serial quoct octree on one process as the peer (run only
// with one rank, where the two are in the same binary and run).
//
//   mpiexec -n 4 --oversubscribe build/bench/bench_mpi --benchmark_out=out.json
//
// Data: N points uniform in the unit cube (3D, double), point i a hash of i, so the set is
// the same for every rank count; rank r gives points [rN/P, (r+1)N/P), which lie anywhere
// in space, so the build moves almost all of them. Radius r: about 32 neighbours per ball.
//   mpi_build     the collective constructor
//   mpi_radius    N/50 balls in all, each rank asking for those centred on its own input
//                 points (mostly owned by other ranks), rows of global ids back
//   mpi_pairs     for_each_pair_within(r), counting pairs: halo exchange and local search
// Every iteration is timed as the slowest rank's time (all ranks start after a barrier),
// and its bytes are what each rank sent to the others (distributed_orthtree::bytes_sent):
// bytes_per_rank is the mean over ranks, bytes_max_rank the largest. model_bytes is the
// surface/volume model of bench/README.md ("Communication model") for the same step.
// N: QUOCT_BENCH_MPI_N (default 400000); QUOCT_BENCH_SMOKE=1 or --smoke: 20000.
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <quoct/mpi.hpp>
#include <quoct/orthtree.hpp>
#include <quoct/pairs.hpp>
#include <quoct/parallel.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr std::size_t D = 3;
using T = double;
using pt = quoct::point<T, D>;
using index_type = quoct::mpi::distributed_orthtree<T, D>;

int rank_here = 0, ranks = 1;
std::size_t total = 400000;

std::uint64_t mix(std::uint64_t x) {  // splitmix64
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
pt point_of(std::uint64_t i) {
    pt p;
    for (std::size_t a = 0; a < D; ++a) p[a] = double(mix(i * D + a) >> 11) * 0x1.0p-53;
    return p;
}
std::size_t slice_begin(int r) { return total * static_cast<std::size_t>(r) / static_cast<std::size_t>(ranks); }

std::vector<pt> my_points() {
    std::vector<pt> pts;
    for (std::size_t i = slice_begin(rank_here); i < slice_begin(rank_here + 1); ++i) pts.push_back(point_of(i));
    return pts;
}
T radius() { return std::cbrt(32.0 / (double(total) * 4.0 / 3.0 * M_PI)); }

std::vector<quoct::ball<T, D>> my_balls() {
    std::vector<quoct::ball<T, D>> balls;
    for (std::size_t i = slice_begin(rank_here); i < slice_begin(rank_here + 1); i += 50)
        balls.push_back({point_of(i), radius()});
    return balls;
}

/// The interior surface per rank of P Morton ranges of the unit cube (P = 2: two slabs,
/// one face of area 1; P = 4: four columns, two faces of area 1/2 each), and for other P
/// that of a cube of volume 1/P, 6 P^(-2/3).
double interior_area(int p) {
    if (p == 1) return 0;
    if (p == 2 || p == 4) return 1;
    return 6 * std::pow(double(p), -2.0 / 3.0);
}

/// Times one collective step: the slowest rank's seconds, and this rank's bytes.
template <class Step>
void timed(benchmark::State& state, const index_type* index, Step&& step, std::uint64_t& bytes) {
    MPI_Barrier(MPI_COMM_WORLD);
    const std::uint64_t before = index ? index->bytes_sent() : 0;
    const double t0 = MPI_Wtime();
    const std::uint64_t after = step();
    double seconds = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    state.SetIterationTime(seconds);
    bytes += after - before;
}

void report_bytes(benchmark::State& state, std::uint64_t bytes, double model) {
    const double per_iteration = double(bytes) / double(state.iterations());
    double mean = per_iteration, most = per_iteration;
    MPI_Allreduce(MPI_IN_PLACE, &mean, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    state.counters["bytes_per_rank"] = mean / ranks;
    state.counters["bytes_max_rank"] = most;
    state.counters["model_bytes"] = model;
    state.counters["ranks"] = ranks;
    state.counters["points"] = double(total);
}

void mpi_build(benchmark::State& state) {
    const std::vector<pt> mine = my_points();
    std::uint64_t bytes = 0;
    for (auto _ : state) {
        std::unique_ptr<index_type> index;
        timed(state, nullptr, [&] {
            index = std::make_unique<index_type>(MPI_COMM_WORLD, mine);
            return index->bytes_sent();
        }, bytes);
    }
    // Model: a point stays on its rank with probability 1/P; a record is 40 bytes.
    const double model = double(total) / ranks * (1 - 1.0 / ranks) * sizeof(quoct::mpi::detail::record<T, D>);
    report_bytes(state, bytes, model);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * total));
}

void mpi_radius(benchmark::State& state) {
    const index_type index(MPI_COMM_WORLD, my_points());
    const auto balls = my_balls();
    std::uint64_t bytes = 0, hits = 0;
    for (auto _ : state)
        timed(state, &index, [&] {
            const auto rows = index.query(balls);
            hits += rows.values.size();
            return index.bytes_sent();
        }, bytes);
    // Model: a ball (32 bytes) and its row (8 bytes a length, 8 an id) cross to another
    // rank when its centre is owned elsewhere, probability 1 - 1/P; balls near a cut also
    // go to the rank across it (fraction r * area * P, as the halo).
    const double q = double(balls.size()), per_row = double(hits) / double(state.iterations()) / std::max(q, 1.0);
    const double remote = 1 - 1.0 / ranks, crossing = radius() * interior_area(ranks) * ranks;
    const double model = q * ((remote + crossing) * (sizeof(quoct::ball<T, D>) + 8) + remote * 8 * per_row);
    report_bytes(state, bytes, model);
    state.counters["hits_per_ball"] = per_row;
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * balls.size() * static_cast<std::size_t>(ranks)));
}

void mpi_pairs(benchmark::State& state) {
    const index_type index(MPI_COMM_WORLD, my_points());
    std::uint64_t bytes = 0, pairs = 0;
    for (auto _ : state)
        timed(state, &index, [&] {
            index.for_each_pair_within(radius(), [&](std::uint64_t, std::uint64_t) { ++pairs; });
            return index.bytes_sent();
        }, bytes);
    // Model: the halo, every point within r of another rank's region, 32 bytes each:
    // N r A per rank for interior area A per rank (plus the edges' r^2 terms, left out).
    const double model = double(total) * radius() * interior_area(ranks) * sizeof(quoct::mpi::detail::halo_point<T, D>);
    report_bytes(state, bytes, model);
    state.counters["halo_fraction_model"] = radius() * interior_area(ranks) * ranks;
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * total));
}

// The serial peer: the same steps with one quoct::octree over all points, one process.
void serial_build(benchmark::State& state) {
    std::vector<pt> all;
    for (std::size_t i = 0; i < total; ++i) all.push_back(point_of(i));
    for (auto _ : state) benchmark::DoNotOptimize(quoct::octree<T>(all));
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * total));
}
void serial_radius(benchmark::State& state) {
    std::vector<pt> all;
    for (std::size_t i = 0; i < total; ++i) all.push_back(point_of(i));
    const quoct::octree<T> tree(all);
    const auto balls = my_balls();
    for (auto _ : state) {
        auto rows = quoct::batch_query(tree, balls);
        for (std::size_t q = 0; q < rows.rows(); ++q)  // sorted rows, as the distributed query gives
            std::sort(rows.values.begin() + static_cast<std::ptrdiff_t>(rows.offsets[q]),
                      rows.values.begin() + static_cast<std::ptrdiff_t>(rows.offsets[q + 1]));
        benchmark::DoNotOptimize(rows.values.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * balls.size()));
}
void serial_pairs(benchmark::State& state) {
    std::vector<pt> all;
    for (std::size_t i = 0; i < total; ++i) all.push_back(point_of(i));
    const quoct::octree<T> tree(all);
    std::uint64_t pairs = 0;
    for (auto _ : state) quoct::for_each_pair_within(tree, radius(), [&](std::uint32_t, std::uint32_t) { ++pairs; });
    benchmark::DoNotOptimize(pairs);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * total));
}

class silent_reporter : public benchmark::BenchmarkReporter {
public:
    bool ReportContext(const Context&) override { return true; }
    void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_here);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    bool smoke = std::getenv("QUOCT_BENCH_SMOKE") != nullptr;
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
        if (std::strcmp(argv[i], "--smoke") == 0) smoke = true;
        // Only rank 0 writes the output file.
        else if (rank_here == 0 || std::strncmp(argv[i], "--benchmark_out", 15) != 0) args.push_back(argv[i]);
    }
    if (const char* n = std::getenv("QUOCT_BENCH_MPI_N")) total = std::strtoull(n, nullptr, 10);
    if (smoke) total = 20000;
    const int iterations = smoke ? 1 : 5;
    // Fixed iteration counts: every rank must run the same collective steps.
    benchmark::RegisterBenchmark("mpi_build", mpi_build)->Iterations(iterations)->UseManualTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("mpi_radius", mpi_radius)->Iterations(iterations)->UseManualTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("mpi_pairs", mpi_pairs)->Iterations(iterations)->UseManualTime()->Unit(benchmark::kMillisecond);
    if (ranks == 1) {
        benchmark::RegisterBenchmark("serial_build", serial_build)->Iterations(iterations)->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark("serial_radius", serial_radius)->Iterations(iterations)->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark("serial_pairs", serial_pairs)->Iterations(iterations)->Unit(benchmark::kMillisecond);
    }
    int count = static_cast<int>(args.size());
    benchmark::Initialize(&count, args.data());
    if (rank_here == 0) {
        benchmark::RunSpecifiedBenchmarks();
    } else {
        silent_reporter quiet;
        benchmark::RunSpecifiedBenchmarks(&quiet);
    }
    benchmark::Shutdown();
    MPI_Finalize();
    return 0;
}
