// The broad phase of a simulation step: polydisperse spheres that move, then every pair of
// spheres that overlap, per step. quoct's moving_ball_index (updated), and its
// packed_ball_index built anew each step, against Boost.Geometry's R-tree of the spheres' boxes packed anew each step (the
// exact sphere test on its candidates), and against the workaround users would write with
// quoct's points alone: neighbour lists of the centres within twice the largest radius, each
// candidate tested exactly. One binary, one thread each, the same motions.
//
// Data: N spheres in a cube at a packing fraction of 0.4 (a liquid's: the sum of the spheres'
// volumes over the cube's), radii uniform over [r, 10 r], centres uniform. A step moves every
// sphere by up to 0.05 r on each axis and 1% of them (a different 1% each step) anywhere in
// the cube. A benchmark iteration runs `steps` steps from the same start; the time per step
// is the counter `per_step`. Before timing, each method's pairs after two steps are checked
// equal to the others'.
//
//   bench_moving [--smoke] [benchmark flags]
//   --smoke    20k spheres, 2 steps (also QUOCT_BENCH_SMOKE=1)
//   default    1M spheres, 5 steps
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include <boost/geometry.hpp>
#include <boost/geometry/index/rtree.hpp>

#include <quoct/packed_objects.hpp>
#include <quoct/pairs.hpp>

#include "object_peers.hpp"
#include "smoke.hpp"

namespace {

namespace bgi = boost::geometry::index;
using entry = quoct_bench::sphere_entry;
using sphere = quoct_bench::sphere;
using qpoint = quoct::point<double, 3>;
using quoct_bench::pair_list;
constexpr double r_min = 1.0, r_max = 10.0;

std::size_t count() { return quoct_bench::smoke() ? 20000 : 1000000; }
int steps() { return quoct_bench::smoke() ? 2 : 5; }

// The start, and the cube's side.
struct world {
    std::vector<sphere> start;
    double side = 0;
};

const world& initial() {
    static const world w = [] {
        world s;
        std::mt19937_64 g(20261129);
        std::uniform_real_distribution<double> radius(r_min, r_max), u(0, 1);
        s.start.resize(count());
        double volume = 0;
        for (auto& b : s.start) {
            b.radius = radius(g);
            volume += 4.0 / 3.0 * 3.14159265358979 * b.radius * b.radius * b.radius;
        }
        s.side = std::cbrt(volume / 0.4);
        for (auto& b : s.start) b.center = {{u(g) * s.side, u(g) * s.side, u(g) * s.side}};
        return s;
    }();
    return w;
}

// Step `t` (0, 1, ...) of the motion, in place: the same for every method.
void move(std::vector<sphere>& s, int t) {
    const double side = initial().side;
    std::mt19937_64 g(1000 + static_cast<std::uint64_t>(t));
    std::uniform_real_distribution<double> little(-0.05 * r_min, 0.05 * r_min), u(0, 1);
    const std::size_t far_from = static_cast<std::size_t>(t) % 100;
    for (std::size_t i = 0; i < s.size(); ++i) {
        for (std::size_t a = 0; a < 3; ++a) {
            double x = s[i].center[a] + little(g);
            if (x < 0) x += side;
            if (x >= side) x -= side;
            s[i].center[a] = x;
        }
        if (i % 100 == far_from) s[i].center = {{u(g) * side, u(g) * side, u(g) * side}};
    }
}

// The methods: each keeps what it keeps between steps and returns the pairs (a, b), a < b,
// sorted, of one step.
struct packed_rebuild {
    pair_list step(const std::vector<sphere>& s) {
        const quoct::packed_ball_index<double, 3> index(s);
        return index.colliding_pairs(1);
    }
};

struct moving {
    quoct::moving_ball_index<double, 3> index;
    pair_list step(const std::vector<sphere>& s) {
        if (index.size() != s.size())
            index = quoct::moving_ball_index<double, 3>(s);
        else
            index.update(s);
        return index.colliding_pairs(1);
    }
};

struct boost_repack {
    pair_list step(const std::vector<sphere>& s) {
        std::vector<entry> entries(s.size());
        for (std::size_t i = 0; i < s.size(); ++i) entries[i] = {quoct_bench::box_of(s[i]), static_cast<std::uint32_t>(i)};
        const bgi::rtree<entry, bgi::quadratic<16>> tree(entries.begin(), entries.end());  // packed (STR)
        return quoct_bench::boost_sphere_pairs(tree, s);
    }
};

struct centre_lists {
    std::vector<qpoint> centres;
    quoct::csr<std::uint32_t> lists;
    pair_list step(const std::vector<sphere>& s) {
        centres.resize(s.size());
        for (std::size_t i = 0; i < s.size(); ++i) centres[i] = s[i].center;
        quoct::neighbor_lists(centres, 2 * r_max, lists, 1);
        pair_list pairs;
        for (std::uint32_t a = 0; a < s.size(); ++a)
            for (std::uint32_t b : lists.row(a))
                if (b > a && quoct::intersects(s[a], s[b])) pairs.emplace_back(a, b);
        return pairs;
    }
};

template <class Method>
pair_list after_two_steps() {
    std::vector<sphere> s = initial().start;
    Method m;
    m.step(s);
    move(s, 0);
    m.step(s);
    move(s, 1);
    return m.step(s);
}

void check_once() {
    static bool checked = false;
    if (checked) return;
    const pair_list want = after_two_steps<packed_rebuild>();
    const bool same = after_two_steps<moving>() == want &&
                      after_two_steps<boost_repack>() == want &&
                      after_two_steps<centre_lists>() == want;
    if (!same) throw std::runtime_error("bench_moving: the methods' pairs differ");
    std::printf("checked: %zu spheres, %zu overlapping pairs, the same for every method\n", count(), want.size());
    const quoct::packed_ball_index<double, 3> packed(initial().start);
    const quoct::moving_ball_index<double, 3> moving(initial().start);
    std::printf("memory_bytes() a sphere: packed_ball_index %.1f, moving_ball_index %.1f (just built)\n",
                static_cast<double>(packed.memory_bytes()) / static_cast<double>(count()),
                static_cast<double>(moving.memory_bytes()) / static_cast<double>(count()));
    checked = true;
}

template <class Method>
void BM_step(benchmark::State& state) {
    check_once();
    std::size_t pairs = 0;
    for (auto _ : state) {
        state.PauseTiming();
        std::vector<sphere> s = initial().start;
        Method m;
        m.step(s);  // the index each method starts from (not timed)
        state.ResumeTiming();
        for (int t = 0; t < steps(); ++t) {
            move(s, t);
            pairs = m.step(s).size();
            benchmark::DoNotOptimize(pairs);
        }
    }
    state.counters["per_step"] =
        benchmark::Counter(static_cast<double>(steps()), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
    state.counters["pairs"] = static_cast<double>(pairs);
}

BENCHMARK_TEMPLATE(BM_step, moving)->Name("step/quoct_moving_update")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_TEMPLATE(BM_step, packed_rebuild)->Name("step/quoct_packed_rebuild")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_TEMPLATE(BM_step, centre_lists)->Name("step/quoct_centre_lists")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_TEMPLATE(BM_step, boost_repack)->Name("step/boost_rtree_repack")->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

int main(int argc, char** argv) {
    quoct_bench::take_smoke_flag(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
