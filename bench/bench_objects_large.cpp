// Objects with extent at scale: quoct's packed indexes against Boost.Geometry's R-trees, all
// three of its kinds (packed by its bulk load, and R* and quadratic built by insertion), on two
// workloads of a million objects, in one binary on the same data.
//
// GIS-like feature boxes (2D, degrees): the bounding boxes of a vector layer. Each box lies
// near a GeoNames city of data/cities.csv (drawn uniformly, so clustered as the cities are),
// moved by a log-normal offset (median 0.03 degrees), and its half-widths are log-normal from
// metres to continents: log10 of the half-width in degrees is normal with mean -3.2 and
// standard deviation 1.1, clamped to [-5, 1.5] (1 m to 3,500 km); the other axis is that times
// 10^u, u uniform in [-0.5, 0.5]. Queries, Q points drawn the same way:
//   - window: the boxes meeting a window around the point, half-width log-uniform in
//     [1e-3, 1e-1] degrees (100 m to 11 km);
//   - stabbing: the boxes holding the point (boundary included);
//   - nearest10 and nearest1: the nearest boxes by the distance from the point to the box
//     (0 inside). Inside many boxes, the k nearest are all at 0: quoct returns the smallest
//     ids among ties, Boost any of them; the checks compare distances.
// Polydisperse spheres (3D): at a packing fraction of 0.4 (a liquid's), radii uniform in
// [1, 10], centres uniform in the cube (bench_moving's start). Queries:
//   - ball: the spheres meeting a ball of radius uniform in [1, 10] at a uniform point;
//   - pairs: every pair of spheres that overlap, (a, b) with a < b, sorted. Boost: one query
//     per sphere.
// Boost's trees hold each sphere's box; a candidate is then tested exactly by
// quoct::intersects(ball, ball), the predicate quoct's index answers by.
//
// The build rows time quoct's build against Boost's packing; the insertion trees are built
// once, their time printed (they are not what a static set is built with). Every build row
// reports heap_bytes_per_object (glibc's mallinfo2, across one more build). Before any
// timing, each peer's answers to every query are checked equal to quoct's (ids for window,
// stabbing, ball and pairs; distances for nearest).
//
//   bench_objects_large [--smoke] [benchmark flags]
//   --smoke    20k objects, 256 queries (also QUOCT_BENCH_SMOKE=1)
//   default    1M objects, 10k queries
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <boost/geometry.hpp>
#include <boost/geometry/index/rtree.hpp>

#include <quoct/geo/index.hpp>
#include <quoct/io/locations.hpp>
#include <quoct/packed_objects.hpp>

#include "object_peers.hpp"
#include "smoke.hpp"

namespace {

namespace bg = boost::geometry;
namespace bgi = boost::geometry::index;
using quoct_bench::heap_bytes;
using quoct_bench::pair_list;

std::size_t object_count() { return quoct_bench::smoke() ? 20000 : 1000000; }
std::size_t query_count() { return quoct_bench::smoke() ? 256 : 10000; }

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Boost's three trees over the same values: packed (bulk load), R* and quadratic (inserted).
template <class Entry>
struct peers {
    bgi::rtree<Entry, bgi::quadratic<16>> packed;
    bgi::rtree<Entry, bgi::rstar<16>> rstar;
    bgi::rtree<Entry, bgi::quadratic<16>> quadratic;
};

// Calls f(tree) with peer `which` (0 packed, 1 R*, 2 quadratic).
template <class Entry, class F>
void with_peer(const peers<Entry>& p, int which, F&& f) {
    if (which == 0) f(p.packed);
    else if (which == 1) f(p.rstar);
    else f(p.quadratic);
}

template <class Entry>
peers<Entry> make_peers(const std::vector<Entry>& entries, const char* set) {
    peers<Entry> p;
    p.packed = decltype(p.packed)(entries.begin(), entries.end());
    auto t0 = std::chrono::steady_clock::now();
    for (const Entry& e : entries) p.rstar.insert(e);
    const double rstar_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    for (const Entry& e : entries) p.quadratic.insert(e);
    std::printf("%s: Boost R-trees built by inserting %zu objects: rstar<16> %.2f s, quadratic<16> %.2f s\n", set,
                entries.size(), rstar_s, seconds_since(t0));
    return p;
}

// ---- GIS-like feature boxes (2D) ----

using gbox = quoct::box<double, 2>;
using gpoint = quoct::point<double, 2>;
using g_bpoint = bg::model::point<double, 2, bg::cs::cartesian>;
using g_bbox = bg::model::box<g_bpoint>;
using g_entry = std::pair<g_bbox, std::uint32_t>;

struct gis_set {
    std::vector<gbox> boxes;
    std::vector<gpoint> points;
    std::vector<gbox> windows;
    std::vector<g_entry> entries;
};

g_bbox to_peer(const gbox& b) { return g_bbox(g_bpoint(b.lo[0], b.lo[1]), g_bpoint(b.hi[0], b.hi[1])); }

const gis_set& gis() {
    static const gis_set s = [] {
        gis_set out;
        const auto cities = quoct::io::read_locations_csv(std::string(QUOCT_BENCH_DATA_DIR) + "/cities.csv").locations;
        std::mt19937_64 g(20261129);
        std::uniform_int_distribution<std::size_t> pick(0, cities.size() - 1);
        std::normal_distribution<double> offset_log(std::log(0.03), 1.5), width_log10(-3.2, 1.1);
        std::uniform_real_distribution<double> u(0, 1), aspect(-0.5, 0.5), window_log10(-3, -1);
        const auto near_a_city = [&] {
            const quoct::geo::lonlat c = cities[pick(g)];
            const double d = std::exp(offset_log(g)), angle = 6.283185307179586 * u(g);
            return gpoint{{c.lon + d * std::cos(angle), c.lat + d * std::sin(angle)}};
        };
        out.boxes.resize(object_count());
        for (gbox& b : out.boxes) {
            const gpoint c = near_a_city();
            const double hx = std::pow(10.0, std::clamp(width_log10(g), -5.0, 1.5)), hy = hx * std::pow(10.0, aspect(g));
            b.lo = {{c[0] - hx, c[1] - hy}};
            b.hi = {{c[0] + hx, c[1] + hy}};
        }
        for (std::size_t i = 0; i < query_count(); ++i) {
            const gpoint p = near_a_city();
            const double h = std::pow(10.0, window_log10(g));
            out.points.push_back(p);
            out.windows.push_back({{{p[0] - h, p[1] - h}}, {{p[0] + h, p[1] + h}}});
        }
        out.entries.resize(out.boxes.size());
        for (std::size_t i = 0; i < out.boxes.size(); ++i) out.entries[i] = {to_peer(out.boxes[i]), static_cast<std::uint32_t>(i)};
        return out;
    }();
    return s;
}

const quoct::packed_box_index<double, 2>& gis_index() {
    static const quoct::packed_box_index<double, 2> index(gis().boxes);
    return index;
}

const peers<g_entry>& gis_peers() {
    static const peers<g_entry> p = make_peers(gis().entries, "gis");
    return p;
}

template <class Tree, class Predicate>
std::vector<std::uint32_t> peer_ids(const Tree& t, const Predicate& pred, std::vector<g_entry>& found) {
    found.clear();
    t.query(pred, std::back_inserter(found));
    std::vector<std::uint32_t> ids;
    for (const g_entry& e : found) ids.push_back(e.second);
    return ids;
}

// Every query of the GIS set answered by every peer, checked against quoct's once.
void check_gis() {
    static bool done = false;
    if (done) return;
    const gis_set& s = gis();
    const auto& index = gis_index();
    const auto& p = gis_peers();
    std::vector<g_entry> found;
    std::vector<quoct::neighbor<double, std::uint32_t>> near;
    std::size_t window_hits = 0, stab_hits = 0, zero_nearest = 0;
    for (int which = 0; which < 3; ++which)
        with_peer(p, which, [&](const auto& tree) {
            for (std::size_t q = 0; q < s.points.size(); ++q) {
                std::vector<std::uint32_t> mine = index.query(s.windows[q]), theirs = peer_ids(tree, bgi::intersects(to_peer(s.windows[q])), found);
                std::sort(mine.begin(), mine.end());
                std::sort(theirs.begin(), theirs.end());
                if (mine != theirs) throw std::runtime_error("bench_objects_large: window answers differ");
                window_hits += mine.size();
                mine = index.containing(s.points[q]);
                theirs = peer_ids(tree, bgi::intersects(g_bpoint(s.points[q][0], s.points[q][1])), found);
                std::sort(mine.begin(), mine.end());
                std::sort(theirs.begin(), theirs.end());
                if (mine != theirs) throw std::runtime_error("bench_objects_large: stabbing answers differ");
                stab_hits += mine.size();
                for (unsigned k : {1u, 10u}) {
                    found.clear();
                    tree.query(bgi::nearest(g_bpoint(s.points[q][0], s.points[q][1]), k), std::back_inserter(found));
                    std::vector<double> d;
                    for (const g_entry& e : found) d.push_back(quoct::distance_sq(s.points[q], s.boxes[e.second]));
                    std::sort(d.begin(), d.end());
                    for (quoct::ties rule : {quoct::ties::smallest_id, quoct::ties::any}) {
                        index.nearest(s.points[q], k, near, rule);
                        if (d.size() != near.size()) throw std::runtime_error("bench_objects_large: nearest sizes differ");
                        for (std::size_t j = 0; j < d.size(); ++j)
                            if (d[j] != near[j].distance_sq || quoct::distance_sq(s.points[q], s.boxes[near[j].id]) != d[j])
                                throw std::runtime_error("bench_objects_large: nearest distances differ");
                    }
                    if (k == 10 && which == 0) zero_nearest += static_cast<std::size_t>(std::count_if(d.begin(), d.end(), [](double x) { return x == 0; }));
                }
            }
        });
    const double q = static_cast<double>(s.points.size()) * 3;
    std::printf("gis: %zu boxes, %zu queries, answers equal for every peer; per query: %.1f boxes in the window, %.1f "
                "holding the point, %.1f of the 10 nearest at distance 0\n",
                s.boxes.size(), s.points.size(), static_cast<double>(window_hits) / q, static_cast<double>(stab_hits) / q,
                static_cast<double>(zero_nearest) * 3 / q);
    done = true;
}

// ---- polydisperse spheres (3D) ----

using quoct_bench::box_of;
using quoct_bench::sphere;
using s_entry = quoct_bench::sphere_entry;

struct sphere_set {
    std::vector<sphere> spheres, probes;
    std::vector<s_entry> entries;
};

const sphere_set& spheres() {
    static const sphere_set s = [] {
        sphere_set out;
        std::mt19937_64 g(20261129);
        std::uniform_real_distribution<double> radius(1, 10), u(0, 1);
        out.spheres.resize(object_count());
        double volume = 0;
        for (sphere& b : out.spheres) {
            b.radius = radius(g);
            volume += 4.0 / 3.0 * 3.14159265358979 * b.radius * b.radius * b.radius;
        }
        const double side = std::cbrt(volume / 0.4);
        for (sphere& b : out.spheres) b.center = {{u(g) * side, u(g) * side, u(g) * side}};
        out.probes.resize(query_count());
        for (sphere& b : out.probes) b = {{{u(g) * side, u(g) * side, u(g) * side}}, radius(g)};
        out.entries.resize(out.spheres.size());
        for (std::size_t i = 0; i < out.spheres.size(); ++i) out.entries[i] = {box_of(out.spheres[i]), static_cast<std::uint32_t>(i)};
        return out;
    }();
    return s;
}

const quoct::packed_ball_index<double, 3>& sphere_index() {
    static const quoct::packed_ball_index<double, 3> index(spheres().spheres);
    return index;
}

const peers<s_entry>& sphere_peers() {
    static const peers<s_entry> p = make_peers(spheres().entries, "spheres");
    return p;
}

// The peer's spheres meeting ball b: its boxes meeting b's box, then the exact test.
template <class Tree>
void peer_ball(const Tree& t, const sphere& b, std::vector<s_entry>& found, std::vector<std::uint32_t>& out) {
    const auto& all = spheres().spheres;
    found.clear();
    out.clear();
    t.query(bgi::intersects(box_of(b)), std::back_inserter(found));
    for (const s_entry& e : found)
        if (quoct::intersects(b, all[e.second])) out.push_back(e.second);
}

template <class Tree>
pair_list peer_pairs(const Tree& t) {
    return quoct_bench::boost_sphere_pairs(t, spheres().spheres);
}

void check_spheres() {
    static bool done = false;
    if (done) return;
    const sphere_set& s = spheres();
    const auto& index = sphere_index();
    const auto& p = sphere_peers();
    const pair_list pairs = index.colliding_pairs(1);
    std::vector<s_entry> found;
    std::vector<std::uint32_t> theirs;
    std::size_t hits = 0;
    for (int which = 0; which < 3; ++which)
        with_peer(p, which, [&](const auto& tree) {
            for (const sphere& probe : s.probes) {
                std::vector<std::uint32_t> mine = index.query(probe);
                peer_ball(tree, probe, found, theirs);
                std::sort(mine.begin(), mine.end());
                std::sort(theirs.begin(), theirs.end());
                if (mine != theirs) throw std::runtime_error("bench_objects_large: ball answers differ");
                hits += mine.size();
            }
            if (peer_pairs(tree) != pairs) throw std::runtime_error("bench_objects_large: pairs differ");
        });
    std::printf("spheres: %zu spheres, %zu queries, answers equal for every peer; %.1f spheres per ball query, %zu "
                "overlapping pairs\n",
                s.spheres.size(), s.probes.size(), static_cast<double>(hits) / (3.0 * static_cast<double>(s.probes.size())),
                pairs.size());
    done = true;
}

// ---- benchmarks ----

template <class Build>
void report_heap(benchmark::State& state, Build&& build, std::size_t n) {
    const std::size_t before = heap_bytes();
    {
        auto index = build();
        state.counters["heap_bytes_per_object"] = static_cast<double>(heap_bytes() - before) / static_cast<double>(n);
        benchmark::DoNotOptimize(index);
    }
}

void gis_build_quoct(benchmark::State& state) {
    check_gis();
    const auto& boxes = gis().boxes;
    for (auto _ : state) {
        quoct::packed_box_index<double, 2> index(boxes);
        benchmark::DoNotOptimize(index.size());
    }
    report_heap(state, [&] { return quoct::packed_box_index<double, 2>(boxes); }, boxes.size());
}

void gis_build_boost_packed(benchmark::State& state) {
    check_gis();
    const auto& entries = gis().entries;
    for (auto _ : state) {
        bgi::rtree<g_entry, bgi::quadratic<16>> tree(entries.begin(), entries.end());
        benchmark::DoNotOptimize(tree.size());
    }
    report_heap(state, [&] { return bgi::rtree<g_entry, bgi::quadratic<16>>(entries.begin(), entries.end()); }, entries.size());
}

// Query rows: argument 0 quoct, 1-3 Boost's packed, R* and quadratic trees (4: quoct's
// nearest with ties::any).
const char* const row_names[] = {"quoct_packed", "boost_packed", "boost_rstar", "boost_quadratic", "quoct_packed_ties_any"};
template <class Quoct, class Peer>
void run_rows(benchmark::State& state, Quoct&& mine, Peer&& theirs) {
    const int which = static_cast<int>(state.range(0));
    state.SetLabel(row_names[which]);
    for (auto _ : state) {
        if (which == 0 || which == 4) mine(which == 4 ? quoct::ties::any : quoct::ties::smallest_id);
        else theirs(which - 1);
    }
}

void gis_window(benchmark::State& state) {
    check_gis();
    const auto& s = gis();
    std::vector<std::uint32_t> ids;
    std::vector<g_entry> found;
    run_rows(
        state,
        [&](quoct::ties) {
            for (const gbox& w : s.windows) {
                gis_index().query(w, ids);
                benchmark::DoNotOptimize(ids.data());
            }
        },
        [&](int which) {
            with_peer(gis_peers(), which, [&](const auto& tree) {
                for (const gbox& w : s.windows) {
                    found.clear();
                    tree.query(bgi::intersects(to_peer(w)), std::back_inserter(found));
                    benchmark::DoNotOptimize(found.data());
                }
            });
        });
}

void gis_stabbing(benchmark::State& state) {
    check_gis();
    const auto& s = gis();
    std::vector<std::uint32_t> ids;
    std::vector<g_entry> found;
    run_rows(
        state,
        [&](quoct::ties) {
            for (const gpoint& p : s.points) {
                ids = gis_index().containing(p);
                benchmark::DoNotOptimize(ids.data());
            }
        },
        [&](int which) {
            with_peer(gis_peers(), which, [&](const auto& tree) {
                for (const gpoint& p : s.points) {
                    found.clear();
                    tree.query(bgi::intersects(g_bpoint(p[0], p[1])), std::back_inserter(found));
                    benchmark::DoNotOptimize(found.data());
                }
            });
        });
}

void gis_nearest(benchmark::State& state, unsigned k) {
    check_gis();
    const auto& s = gis();
    std::vector<quoct::neighbor<double, std::uint32_t>> near;
    std::vector<g_entry> found;
    run_rows(
        state,
        [&](quoct::ties rule) {
            for (const gpoint& p : s.points) {
                gis_index().nearest(p, k, near, rule);
                benchmark::DoNotOptimize(near.data());
            }
        },
        [&](int which) {
            with_peer(gis_peers(), which, [&](const auto& tree) {
                for (const gpoint& p : s.points) {
                    found.clear();
                    tree.query(bgi::nearest(g_bpoint(p[0], p[1]), k), std::back_inserter(found));
                    benchmark::DoNotOptimize(found.data());
                }
            });
        });
}

void gis_nearest10(benchmark::State& state) { gis_nearest(state, 10); }
void gis_nearest1(benchmark::State& state) { gis_nearest(state, 1); }

void spheres_build_quoct(benchmark::State& state) {
    check_spheres();
    const auto& all = spheres().spheres;
    for (auto _ : state) {
        quoct::packed_ball_index<double, 3> index(all);
        benchmark::DoNotOptimize(index.size());
    }
    report_heap(state, [&] { return quoct::packed_ball_index<double, 3>(all); }, all.size());
}

void spheres_build_boost_packed(benchmark::State& state) {
    check_spheres();
    const auto& s = spheres();
    for (auto _ : state) {  // the spheres' boxes made, then packed: all a static set needs
        std::vector<s_entry> entries(s.spheres.size());
        for (std::size_t i = 0; i < s.spheres.size(); ++i) entries[i] = {box_of(s.spheres[i]), static_cast<std::uint32_t>(i)};
        bgi::rtree<s_entry, bgi::quadratic<16>> tree(entries.begin(), entries.end());
        benchmark::DoNotOptimize(tree.size());
    }
    report_heap(state, [&] { return bgi::rtree<s_entry, bgi::quadratic<16>>(s.entries.begin(), s.entries.end()); },
                s.entries.size());
}

void spheres_ball(benchmark::State& state) {
    check_spheres();
    const auto& s = spheres();
    std::vector<std::uint32_t> ids;
    std::vector<s_entry> found;
    run_rows(
        state,
        [&](quoct::ties) {
            for (const sphere& b : s.probes) {
                sphere_index().query(b, ids);
                benchmark::DoNotOptimize(ids.data());
            }
        },
        [&](int which) {
            with_peer(sphere_peers(), which, [&](const auto& tree) {
                for (const sphere& b : s.probes) {
                    peer_ball(tree, b, found, ids);
                    benchmark::DoNotOptimize(ids.data());
                }
            });
        });
}

void spheres_pairs(benchmark::State& state) {
    check_spheres();
    run_rows(
        state,
        [&](quoct::ties) {
            const pair_list pairs = sphere_index().colliding_pairs(1);
            benchmark::DoNotOptimize(pairs.data());
        },
        [&](int which) {
            with_peer(sphere_peers(), which, [&](const auto& tree) {
                const pair_list pairs = peer_pairs(tree);
                benchmark::DoNotOptimize(pairs.data());
            });
        });
}

BENCHMARK(gis_build_quoct)->Unit(benchmark::kMillisecond);
BENCHMARK(gis_build_boost_packed)->Unit(benchmark::kMillisecond);
BENCHMARK(gis_window)->DenseRange(0, 3)->ArgName("peer")->Unit(benchmark::kMillisecond);
BENCHMARK(gis_stabbing)->DenseRange(0, 3)->ArgName("peer")->Unit(benchmark::kMillisecond);
BENCHMARK(gis_nearest10)->DenseRange(0, 4)->ArgName("peer")->Unit(benchmark::kMillisecond);
BENCHMARK(gis_nearest1)->DenseRange(0, 4)->ArgName("peer")->Unit(benchmark::kMillisecond);
BENCHMARK(spheres_build_quoct)->Unit(benchmark::kMillisecond);
BENCHMARK(spheres_build_boost_packed)->Unit(benchmark::kMillisecond);
BENCHMARK(spheres_ball)->DenseRange(0, 3)->ArgName("peer")->Unit(benchmark::kMillisecond);
BENCHMARK(spheres_pairs)->DenseRange(0, 3)->ArgName("peer")->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

int main(int argc, char** argv) {
    quoct_bench::take_smoke_flag(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
