// Objects with extent: quoct's box_index and packed_box_index against Boost.Geometry's R-tree of boxes (the
// peer with the same answer: its nearest query ranks boxes by the squared distance from the
// point to the box, quoct::distance_sq(point, box)), in one binary on the same data.
//
// The build rows report heap_bytes_per_box: the heap an index holds (glibc's mallinfo2, 0
// elsewhere), measured across one more build.
//
// Data: N axis-aligned boxes in the unit cube (3D, double), centres uniform, half-widths
// log-uniform over two decades, so several size classes; Q query points uniform in the
// cube. Two sets (the benchmark's argument): sparse, half-widths 1e-4 to 1e-2 (a query point
// lies in about 0.01 boxes at 200k), and overlapping, 1e-3 to 1e-1 (about 12 boxes hold
// each query point: the 10 nearest are all at distance 0, and quoct must find every box at
// 0 to return the smallest ids, where the peer stops at any 10). Benchmarks: the build, k = 10 nearest boxes per query point,
// the boxes meeting a query box (a box of 0.02 around each query point), and every pair of
// boxes that meet (sorted (a, b), a < b; the peer: one query per box). Before timing,
// every answer is checked against the peer's: the same distances for nearest (ties, at
// distance 0 inside overlapping boxes, may take other ids), the same ids for the box query.
//
//   bench_objects [--smoke] [benchmark flags]
//   --smoke    20k boxes, 256 queries (also QUOCT_BENCH_SMOKE=1)
//   default    200k boxes, 10k queries
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <boost/geometry.hpp>
#include <boost/geometry/index/rtree.hpp>

#include <quoct/objects.hpp>
#include <quoct/packed_objects.hpp>

#include "object_peers.hpp"
#include "smoke.hpp"

namespace {

namespace bg = boost::geometry;
namespace bgi = boost::geometry::index;
using bpoint = bg::model::point<double, 3, bg::cs::cartesian>;
using bbox = bg::model::box<bpoint>;
using entry = std::pair<bbox, std::uint32_t>;
using peer_tree = bgi::rtree<entry, bgi::quadratic<16>>;
using qbox = quoct::box<double, 3>;
using qpoint = quoct::point<double, 3>;
constexpr std::size_t k = 10;

struct dataset {
    std::vector<qbox> boxes;
    std::vector<qpoint> queries;
};
const char* const set_names[] = {"sparse", "overlapping"};

dataset make_data(int which) {
        dataset s;
        const std::size_t n = quoct_bench::smoke() ? 20000 : 200000, q = quoct_bench::smoke() ? 256 : 10000;
        std::mt19937_64 g(20261126);
        std::uniform_real_distribution<double> u(0, 1), e(which == 0 ? -4 : -3, which == 0 ? -2 : -1);
        s.boxes.resize(n);
        for (auto& b : s.boxes)
            for (std::size_t a = 0; a < 3; ++a) {
                const double c = u(g), h = std::pow(10.0, e(g));
                b.lo[a] = c - h;
                b.hi[a] = c + h;
            }
        s.queries.resize(q);
        for (auto& p : s.queries) p = {{u(g), u(g), u(g)}};
        return s;
}

const dataset& data(int which) {
    static const dataset sets[2] = {make_data(0), make_data(1)};
    return sets[which];
}

using quoct_bench::heap_bytes;

bbox to_peer(const qbox& b) { return bbox(bpoint(b.lo[0], b.lo[1], b.lo[2]), bpoint(b.hi[0], b.hi[1], b.hi[2])); }

qbox around(const qpoint& p) {
    qbox b;
    for (std::size_t a = 0; a < 3; ++a) {
        b.lo[a] = p[a] - 0.01;
        b.hi[a] = p[a] + 0.01;
    }
    return b;
}

peer_tree make_peer(const std::vector<qbox>& boxes) {
    std::vector<entry> entries(boxes.size());
    for (std::size_t i = 0; i < boxes.size(); ++i) entries[i] = {to_peer(boxes[i]), static_cast<std::uint32_t>(i)};
    return peer_tree(entries.begin(), entries.end());  // packed (STR) bulk load
}

// The peer's k nearest distances, in the value quoct reports (squared).
std::vector<double> peer_nearest(const peer_tree& t, const std::vector<qbox>& boxes, const qpoint& p) {
    std::vector<entry> found;
    t.query(bgi::nearest(bpoint(p[0], p[1], p[2]), static_cast<unsigned>(k)), std::back_inserter(found));
    std::vector<double> d;
    for (const entry& e : found) d.push_back(quoct::distance_sq(p, boxes[e.second]));
    std::sort(d.begin(), d.end());
    return d;
}

// Every pair of boxes that meet, (a, b) with a < b, sorted: the peer's broad phase, one
// intersects query per box.
std::vector<std::pair<std::uint32_t, std::uint32_t>> peer_pairs(const peer_tree& t, const std::vector<qbox>& boxes) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    std::vector<entry> found;
    std::vector<std::uint32_t> row;
    for (std::uint32_t a = 0; a < boxes.size(); ++a) {
        found.clear();
        row.clear();
        t.query(bgi::intersects(to_peer(boxes[a])), std::back_inserter(found));
        for (const entry& e : found)
            if (e.second > a) row.push_back(e.second);
        std::sort(row.begin(), row.end());
        for (std::uint32_t b : row) pairs.emplace_back(a, b);
    }
    return pairs;
}

// Every answer checked against the peer once per set, before any timing.
void check_once(int which) {
    static bool checked[2] = {false, false};
    if (checked[which]) return;
    {
        const dataset& d = data(which);
        const quoct::box_index<double, 3> index(d.boxes);
        const quoct::packed_box_index<double, 3> packed(d.boxes);
        const peer_tree peer = make_peer(d.boxes);
        std::vector<quoct::neighbor<double, std::uint32_t>> got, got_packed;
        for (const qpoint& p : d.queries) {
            index.nearest(p, k, got);
            std::vector<double> mine;
            for (const auto& n : got) mine.push_back(n.distance_sq);
            if (mine != peer_nearest(peer, d.boxes, p)) throw std::runtime_error("bench_objects: nearest differs from the peer");
            packed.nearest(p, k, got_packed);  // the same ids too: both break ties by smaller id
            for (std::size_t j = 0; j < got.size(); ++j)
                if (got_packed.size() != got.size() || got_packed[j].id != got[j].id || got_packed[j].distance_sq != got[j].distance_sq)
                    throw std::runtime_error("bench_objects: packed nearest differs from box_index");
            std::vector<std::uint32_t> in_packed = packed.query(around(p));
            std::sort(in_packed.begin(), in_packed.end());
            std::vector<std::uint32_t> ids = index.query(around(p)), theirs;
            std::vector<entry> hits;
            peer.query(bgi::intersects(to_peer(around(p))), std::back_inserter(hits));
            for (const entry& e : hits) theirs.push_back(e.second);
            std::sort(ids.begin(), ids.end());
            std::sort(theirs.begin(), theirs.end());
            if (ids != theirs || in_packed != theirs) throw std::runtime_error("bench_objects: box query differs from the peer");
        }
        const auto pairs = peer_pairs(peer, d.boxes);
        if (index.colliding_pairs(1) != pairs || packed.colliding_pairs(1) != pairs)
            throw std::runtime_error("bench_objects: colliding pairs differ from the peer's");
    }
    checked[which] = true;
}

// The set a benchmark runs on (its argument), checked against the peer first and named.
int set_of(benchmark::State& state) {
    const int which = static_cast<int>(state.range(0));
    check_once(which);
    state.SetLabel(set_names[which]);
    return which;
}

void build_quoct(benchmark::State& state) {
    const int which = set_of(state);
    for (auto _ : state) {
        quoct::box_index<double, 3> index(data(which).boxes);
        benchmark::DoNotOptimize(index.size());
    }
    const std::size_t before = heap_bytes();
    const quoct::box_index<double, 3> kept(data(which).boxes);
    state.counters["heap_bytes_per_box"] = static_cast<double>(heap_bytes() - before) / static_cast<double>(kept.size());
    state.counters["boxes"] = static_cast<double>(data(which).boxes.size());
}

void build_quoct_packed(benchmark::State& state) {
    const int which = set_of(state);
    for (auto _ : state) {
        quoct::packed_box_index<double, 3> index(data(which).boxes);
        benchmark::DoNotOptimize(index.size());
    }
    const std::size_t before = heap_bytes();
    const quoct::packed_box_index<double, 3> kept(data(which).boxes);
    state.counters["heap_bytes_per_box"] = static_cast<double>(heap_bytes() - before) / static_cast<double>(kept.size());
    state.counters["boxes"] = static_cast<double>(data(which).boxes.size());
}

void build_boost_rtree(benchmark::State& state) {
    const int which = set_of(state);
    for (auto _ : state) {
        const peer_tree t = make_peer(data(which).boxes);
        benchmark::DoNotOptimize(t.size());
    }
    const std::size_t before = heap_bytes();
    const peer_tree kept = make_peer(data(which).boxes);  // (its input entries freed on return)
    state.counters["heap_bytes_per_box"] = static_cast<double>(heap_bytes() - before) / static_cast<double>(kept.size());
    state.counters["boxes"] = static_cast<double>(data(which).boxes.size());
}

// Times query(p) for every query point of the set, per iteration.
template <class Query>
void time_queries(benchmark::State& state, int which, Query&& query) {
    for (auto _ : state)
        for (const qpoint& p : data(which).queries) query(p);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * data(which).queries.size()));
}

void nearest_quoct(benchmark::State& state) {
    const int which = set_of(state);
    const quoct::box_index<double, 3> index(data(which).boxes);
    std::vector<quoct::neighbor<double, std::uint32_t>> got;
    time_queries(state, which, [&](const qpoint& p) {
        index.nearest(p, k, got);
        benchmark::DoNotOptimize(got.data());
    });
}

void nearest_quoct_packed(benchmark::State& state) {
    const int which = set_of(state);
    const quoct::packed_box_index<double, 3> index(data(which).boxes);
    std::vector<quoct::neighbor<double, std::uint32_t>> got;
    time_queries(state, which, [&](const qpoint& p) {
        index.nearest(p, k, got);
        benchmark::DoNotOptimize(got.data());
    });
}

void nearest_boost_rtree(benchmark::State& state) {
    const int which = set_of(state);
    const peer_tree t = make_peer(data(which).boxes);
    std::vector<entry> found;
    time_queries(state, which, [&](const qpoint& p) {
        found.clear();
        t.query(bgi::nearest(bpoint(p[0], p[1], p[2]), static_cast<unsigned>(k)), std::back_inserter(found));
        benchmark::DoNotOptimize(found.data());
    });
}

void box_query_quoct(benchmark::State& state) {
    const int which = set_of(state);
    const quoct::box_index<double, 3> index(data(which).boxes);
    std::vector<std::uint32_t> got;
    time_queries(state, which, [&](const qpoint& p) {
        index.query(around(p), got);
        benchmark::DoNotOptimize(got.data());
    });
}

void box_query_quoct_packed(benchmark::State& state) {
    const int which = set_of(state);
    const quoct::packed_box_index<double, 3> index(data(which).boxes);
    std::vector<std::uint32_t> got;
    time_queries(state, which, [&](const qpoint& p) {
        index.query(around(p), got);
        benchmark::DoNotOptimize(got.data());
    });
}

void box_query_boost_rtree(benchmark::State& state) {
    const int which = set_of(state);
    const peer_tree t = make_peer(data(which).boxes);
    std::vector<entry> found;
    time_queries(state, which, [&](const qpoint& p) {
        found.clear();
        t.query(bgi::intersects(to_peer(around(p))), std::back_inserter(found));
        benchmark::DoNotOptimize(found.data());
    });
}

void pairs_quoct(benchmark::State& state) {
    const int which = set_of(state);
    const quoct::box_index<double, 3> index(data(which).boxes);
    for (auto _ : state) benchmark::DoNotOptimize(index.colliding_pairs(1).size());
}

void pairs_quoct_packed(benchmark::State& state) {
    const int which = set_of(state);
    const quoct::packed_box_index<double, 3> index(data(which).boxes);
    std::size_t n = 0;
    for (auto _ : state) benchmark::DoNotOptimize(n = index.colliding_pairs(1).size());
    state.counters["pairs"] = static_cast<double>(n);
}

void pairs_boost_rtree(benchmark::State& state) {
    const int which = set_of(state);
    const peer_tree t = make_peer(data(which).boxes);
    for (auto _ : state) benchmark::DoNotOptimize(peer_pairs(t, data(which).boxes).size());
}

}  // namespace

BENCHMARK(build_quoct)->DenseRange(0, 1)->ArgName("set")->Unit(benchmark::kMillisecond);
BENCHMARK(build_quoct_packed)->DenseRange(0, 1)->ArgName("set")->Unit(benchmark::kMillisecond);
BENCHMARK(build_boost_rtree)->DenseRange(0, 1)->ArgName("set")->Unit(benchmark::kMillisecond);
BENCHMARK(nearest_quoct)->DenseRange(0, 1)->ArgName("set")->Unit(benchmark::kMillisecond);
BENCHMARK(nearest_quoct_packed)->DenseRange(0, 1)->ArgName("set")->Unit(benchmark::kMillisecond);
BENCHMARK(nearest_boost_rtree)->DenseRange(0, 1)->ArgName("set")->Unit(benchmark::kMillisecond);
BENCHMARK(box_query_quoct)->DenseRange(0, 1)->ArgName("set")->Unit(benchmark::kMillisecond);
BENCHMARK(box_query_quoct_packed)->DenseRange(0, 1)->ArgName("set")->Unit(benchmark::kMillisecond);
BENCHMARK(box_query_boost_rtree)->DenseRange(0, 1)->ArgName("set")->Unit(benchmark::kMillisecond);
BENCHMARK(pairs_quoct)->DenseRange(0, 1)->ArgName("set")->Unit(benchmark::kMillisecond);
BENCHMARK(pairs_quoct_packed)->DenseRange(0, 1)->ArgName("set")->Unit(benchmark::kMillisecond);
BENCHMARK(pairs_boost_rtree)->DenseRange(0, 1)->ArgName("set")->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    quoct_bench::take_smoke_flag(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::AddCustomContext("boxes", std::to_string(data(0).boxes.size()));
    benchmark::AddCustomContext("queries", std::to_string(data(0).queries.size()));
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
