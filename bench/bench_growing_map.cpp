// quoct benchmarks: the growing map of LiDAR odometry and of simulations, where the index
// changes between queries. quoct's dynamic_octree<float> against nanoflann's dynamic
// adaptor (KDTreeSingleIndexDynamicAdaptor) and, when their sources are given by path at
// configure time, i-Octree (Zhu et al., ICRA 2024: -DQUOCT_BENCH_IOCTREE_DIR=<checkout>) and
// ikd-Tree (Cai et al., 2021: -DQUOCT_BENCH_IKDTREE_DIR=<checkout>, with Eigen 3; see
// ikdtree_peer.hpp). Nothing of theirs is copied here; without a path, that peer is left out.
//
// Two workloads, one whole scenario per benchmark iteration, each phase timed apart in the
// thread's CPU time and reported as a counter in seconds:
//
// scan: 1M bunny points (float) arrive in their scan order in batches of 10,000. After each
//   batch, 1,000 knn5 queries and 1,000 radius queries (random inserted points, jittered).
//   Then 100 steps each move 1% of the points by about a neighbour spacing, each followed by
//   the same two kinds of queries.
// sliding: a sensor moves along the bunny's x axis in 100 scans. Each scan is 10,000 points
//   of the surface within 0.1 of the x extent of the sensor; the map answers knn5 for each
//   point of the scan (as a scan matcher asks), takes the scan in, then drops every point
//   outside a box of half-width 0.2 of the x extent around the sensor (a local map).
//
// Answers are checked before a figure counts: every peer's knn5 squared distances (as
// multisets, ties by distance) and radius counts must equal quoct's for every query of each
// run, else the benchmark fails (naming the query and, on the scan, the brute-force answer;
// quoct's reference answers come from a run of their own, untimed). nanoflann and i-Octree
// report points with d^2 < r^2, quoct and ikd-Tree the closed ball (d^2 <= r^2): quoct
// counts its boundary points apart, and a peer's count must equal quoct's under its own rule.
//
// Memory is the heap's growth (glibc mallinfo2) from before the index was made to the end
// of the inserts (scan) or of the run (sliding), per point held, the same measure for all.
// Moves: quoct moves a step's batch by id (move(ids, positions)); nanoflann by id one at a
// time (removing the old position and appending the new, as incremental.hpp explains);
// i-Octree and ikd-Tree have no ids, so they delete each old point by a box around its
// coordinates (ikd-Tree's own Delete_Points misses points: ikdtree_peer.hpp) and add the new
// ones in one batch. ikd-Tree rebuilds subtrees on a thread of its own, whose CPU time is not
// in the phases: its counter rebuild_thread_s gives it.
// Deleting outside a box: quoct's erase_outside; i-Octree's and ikd-Tree's box deletion of
// the six slabs around the box; nanoflann has none, so its user scans its live points and
// removes those outside.
//
//   bench_growing_map [--smoke] [--benchmark_repetitions=3]
#include <benchmark/benchmark.h>

#include <quoct/dynamic.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "datasets.hpp"
#include "incremental.hpp"
#include "object_peers.hpp"
#include "smoke.hpp"

#ifdef QUOCT_BENCH_HAVE_IOCTREE
#include <Octree.h>
#endif
#ifdef QUOCT_BENCH_HAVE_IKDTREE
#include "ikdtree_peer.hpp"
#endif

namespace quoct_bench {
namespace {

using map_point = quoct::point<float, 3>;
struct move_to {
    id_t id;
    map_point from, to;
};

// --- the plans: every input fixed before any peer runs ----------------------------------

struct scan_plan {
    std::vector<map_point> points;  // arrival order; id = position
    std::size_t batch = 10000;
    float radius = 0;
    std::vector<std::vector<map_point>> queries;  // after each batch, then after each move step
    std::vector<std::vector<move_to>> moves;
};

struct sliding_plan {
    std::vector<std::vector<map_point>> scans;
    std::vector<quoct::box<float, 3>> keep;  // the local map's box after each scan
    float extent = 0;                         // the bunny's width along x
};

map_point to_float(const point<3>& p) {
    return map_point{{static_cast<float>(p[0]), static_cast<float>(p[1]), static_cast<float>(p[2])}};
}

std::size_t scaled(std::size_t n) { return smoke() ? std::max<std::size_t>(1, n / 50) : n; }

const scan_plan& get_scan_plan() {
    static const scan_plan plan = [] {
        scan_plan s;
        const std::size_t n = scaled(1000000), steps = smoke() ? 5 : 100, per_phase = smoke() ? 100 : 1000;
        s.batch = n / 100;
        for (const auto& p : bunny_points(QUOCT_BENCH_DATA_DIR, n, 0x5eed0043)) s.points.push_back(to_float(p));
        rng r(0x43a);
        float lo[3], hi[3];
        for (std::size_t a = 0; a < 3; ++a) lo[a] = hi[a] = s.points[0][a];
        for (const auto& p : s.points)
            for (std::size_t a = 0; a < 3; ++a) lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
        const double spacing = static_cast<double>(hi[0] - lo[0]) * 0.002;  // about a neighbour's distance at 1M
        s.radius = static_cast<float>(spacing * 0.6);
        const auto jitter = [&](map_point p) {
            for (std::size_t a = 0; a < 3; ++a) p[a] += static_cast<float>((r.uniform() - 0.5) * spacing);
            return p;
        };
        const auto phase = [&](const std::vector<map_point>& now, std::size_t upto) {
            std::vector<map_point> q(per_phase);
            for (auto& c : q) c = jitter(now[r.index(upto)]);
            s.queries.push_back(std::move(q));
        };
        for (std::size_t done = 0; done < n;) {
            done = std::min(n, done + s.batch);
            phase(s.points, done);
        }
        std::vector<map_point> now = s.points;
        for (std::size_t step = 0; step < steps; ++step) {
            std::vector<move_to> m(n / 100);
            for (auto& mv : m) {
                mv.id = static_cast<id_t>(r.index(n));
                mv.from = now[mv.id];
                now[mv.id] = mv.to = jitter(now[mv.id]);
            }
            // One move per point a step (the first, whose from is where the point then is).
            std::stable_sort(m.begin(), m.end(), [](const move_to& x, const move_to& y) { return x.id < y.id; });
            m.erase(std::unique(m.begin(), m.end(), [](const move_to& x, const move_to& y) { return x.id == y.id; }),
                    m.end());
            for (auto& mv : m) mv.to = now[mv.id];
            s.moves.push_back(std::move(m));
            phase(now, n);
        }
        return s;
    }();
    return plan;
}

const sliding_plan& get_sliding_plan() {
    static const sliding_plan plan = [] {
        sliding_plan s;
        const std::size_t scans = smoke() ? 10 : 100, per_scan = scaled(10000);
        std::vector<map_point> pool;
        for (const auto& p : bunny_points(QUOCT_BENCH_DATA_DIR, per_scan * 40, 0x5eed0044)) pool.push_back(to_float(p));
        float lo[3], hi[3];
        for (std::size_t a = 0; a < 3; ++a) lo[a] = hi[a] = pool[0][a];
        for (const auto& p : pool)
            for (std::size_t a = 0; a < 3; ++a) lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
        const float extent = hi[0] - lo[0], seen = 0.1f * extent, half = 0.2f * extent;
        s.extent = extent;
        std::sort(pool.begin(), pool.end(), [](const map_point& x, const map_point& y) { return x[0] < y[0]; });
        rng r(0x44b);
        for (std::size_t k = 0; k < scans; ++k) {
            const float x = lo[0] + extent * static_cast<float>(k) / static_cast<float>(scans - 1);
            const auto first = std::lower_bound(pool.begin(), pool.end(), x - seen,
                                                [](const map_point& p, float v) { return p[0] < v; });
            const auto last = std::upper_bound(pool.begin(), pool.end(), x + seen,
                                               [](float v, const map_point& p) { return v < p[0]; });
            const auto in_range = static_cast<std::size_t>(last - first);
            std::vector<map_point> scan(std::min(per_scan, in_range));
            for (auto& p : scan) p = first[static_cast<std::ptrdiff_t>(r.index(in_range))];
            s.scans.push_back(std::move(scan));
            quoct::box<float, 3> b;
            b.lo = map_point{{x - half, lo[1], lo[2]}};
            b.hi = map_point{{x + half, hi[1], hi[2]}};
            s.keep.push_back(b);
        }
        return s;
    }();
    return plan;
}

// --- the peers ----------------------------------------------------------------------------
// Each: insert(batch) (ids are arrival positions), knn5(q, d) (squared distances ascending,
// +inf past the points held), radius(q, r) (count), move(step), erase_outside(box), size().

constexpr float inf = std::numeric_limits<float>::infinity();

struct quoct_map {
    static constexpr const char* name = "quoct";
    static constexpr bool closed_ball = true;
    quoct::dynamic_octree<float, id_t> index;
    std::vector<quoct::neighbor<float, id_t>> found;
    std::vector<id_t> ids;
    float radius_sq = 0;
    map_point at{};
    void insert(const std::vector<map_point>& pts) { index.insert_all(pts); }
    void knn5(const map_point& q, float* d) {
        index.nearest(q, 5, found);
        std::size_t i = 0;
        for (; i < found.size(); ++i) d[i] = found[i].distance_sq;
        for (; i < 5; ++i) d[i] = inf;
    }
    std::size_t radius(const map_point& q, float r) {
        index.query(quoct::ball<float, 3>{q, r}, ids);
        return ids.size();
    }
    // The points of the last radius() exactly at distance r (for the check, not timed).
    std::size_t on_boundary(const map_point& q, float r) const {
        std::size_t n = 0;
        index.visit(quoct::ball<float, 3>{q, r}, [&](id_t, const map_point& p) {
            n += quoct::distance_sq(p, q) == r * r ? 1u : 0u;
        });
        return n;
    }
    std::vector<id_t> move_ids;
    std::vector<map_point> move_points;
    void move(const std::vector<move_to>& step) {  // one batch: move(ids, positions)
        move_ids.resize(step.size());
        move_points.resize(step.size());
        for (std::size_t i = 0; i < step.size(); ++i) move_ids[i] = step[i].id, move_points[i] = step[i].to;
        index.move(move_ids, move_points);
    }
    void erase_outside(const quoct::box<float, 3>& b) { index.erase_outside(b); }
    std::size_t size() const { return index.size(); }
};

struct nanoflann_map {
    static constexpr const char* name = "nanoflann";
    using cloud = nanoflann_incremental::cloud;
    using index_type = nanoflann_incremental::index_type;
    cloud data;
    std::vector<std::size_t> position;  // id -> position in data.pts
    std::vector<id_t> id_at;            // position -> id (for the box deletion's scan)
    std::vector<char> alive;            // by position
    std::size_t live = 0;
    std::unique_ptr<index_type> index;
    std::vector<std::pair<std::size_t, float>> hits;
    nanoflann_map() { index = std::make_unique<index_type>(3, data, nanoflann::KDTreeSingleIndexAdaptorParams(16)); }
    std::size_t append(const map_point& p, id_t id) {
        data.pts.push_back(p);
        id_at.push_back(id);
        alive.push_back(1);
        ++live;
        return data.pts.size() - 1;
    }
    void insert(const std::vector<map_point>& pts) {
        const std::size_t first = data.pts.size();
        for (const auto& p : pts) position.push_back(append(p, static_cast<id_t>(position.size())));
        index->addPoints(first, data.pts.size() - 1);
    }
    void knn5(const map_point& q, float* d) {
        std::size_t idx[5];
        nanoflann::KNNResultSet<float> set(5);
        set.init(idx, d);
        index->findNeighbors(set, q.coords, nanoflann::SearchParams());
        for (std::size_t i = set.size(); i < 5; ++i) d[i] = inf;
    }
    std::size_t radius(const map_point& q, float r) {
        nanoflann::RadiusResultSet<float, std::size_t> set(r * r, hits);
        set.init();
        index->findNeighbors(set, q.coords, nanoflann::SearchParams(32, 0, false));
        return set.size();
    }
    void remove(std::size_t pos) {
        index->removePoint(pos);
        alive[pos] = 0;
        --live;
    }
    void move(const std::vector<move_to>& step) {
        for (const auto& m : step) {
            remove(position[m.id]);
            position[m.id] = append(m.to, m.id);
            index->addPoints(position[m.id], position[m.id]);
        }
    }
    void erase_outside(const quoct::box<float, 3>& b) {
        for (std::size_t pos = 0; pos < data.pts.size(); ++pos)
            if (alive[pos] && !quoct::contains(b, data.pts[pos])) remove(pos);
    }
    std::size_t size() const { return live; }
};

#ifdef QUOCT_BENCH_HAVE_IOCTREE
struct ioctree_map {
    static constexpr const char* name = "i-Octree";
    struct xyz {
        float x, y, z;
    };
    // Bucket 32 and minimum extent 0.01 are its defaults (its constructor without arguments):
    // a leaf splits past 32 points unless it is smaller than 0.01 m, below the bunny's spacing.
    thuni::Octree tree;
    std::vector<xyz> batch;
    std::vector<std::size_t> idx;
    std::vector<float> dist;
    static xyz of(const map_point& p) { return xyz{p[0], p[1], p[2]}; }
    void insert(const std::vector<map_point>& pts) {
        batch.resize(pts.size());
        for (std::size_t i = 0; i < pts.size(); ++i) batch[i] = of(pts[i]);
        tree.update(batch);
    }
    void knn5(const map_point& q, float* d) {
        tree.knnNeighbors(of(q), 5, idx, dist);
        std::size_t i = 0;
        for (; i < dist.size(); ++i) d[i] = dist[i];
        for (; i < 5; ++i) d[i] = inf;
    }
    std::size_t radius(const map_point& q, float r) {
        tree.radiusNeighbors(of(q), r, idx, dist);
        return idx.size();
    }
    void move(const std::vector<move_to>& step) {
        batch.resize(step.size());
        for (std::size_t i = 0; i < step.size(); ++i) {
            tree.boxWiseDelete(step[i].from.coords, step[i].from.coords, true);
            batch[i] = of(step[i].to);
        }
        tree.update(batch);
    }
    void erase_outside(const quoct::box<float, 3>& b) {
        for (const auto& [lo, hi] : slabs_around(b)) tree.boxWiseDelete(lo.coords, hi.coords, true);
    }
    std::size_t size() { return tree.size(); }

    // The six closed slabs that cover everything outside the closed box b and nothing of it.
    static std::vector<std::pair<map_point, map_point>> slabs_around(const quoct::box<float, 3>& b) {
        constexpr float far = 1e30f;
        std::vector<std::pair<map_point, map_point>> out;
        map_point lo = b.lo, hi = b.hi;  // the slabs shrink the rest as they go
        for (std::size_t a = 0; a < 3; ++a) {
            map_point s_lo{{-far, -far, -far}}, s_hi{{far, far, far}};
            for (std::size_t c = 0; c < a; ++c) s_lo[c] = lo[c], s_hi[c] = hi[c];
            map_point below_hi = s_hi;
            below_hi[a] = std::nextafter(lo[a], -inf);
            out.emplace_back(s_lo, below_hi);
            map_point above_lo = s_lo;
            above_lo[a] = std::nextafter(hi[a], inf);
            out.emplace_back(above_lo, s_hi);
        }
        return out;
    }
};
#endif

#ifdef QUOCT_BENCH_HAVE_IKDTREE
// ikdtree_map (ikdtree_peer.hpp) in this benchmark's terms; moves delete by box (exact).
struct ikdtree_map_peer {
    static constexpr const char* name = ikdtree_map::name;
    static constexpr bool closed_ball = true;
    ikdtree_map map;
    std::vector<std::pair<map_point, map_point>> pairs;
    ikdtree_map_peer() { map.move_deletes_by_box = true; }
    void insert(const std::vector<map_point>& pts) { map.insert(pts); }
    void knn5(const map_point& q, float* d) { map.knn5(q, d); }
    std::size_t radius(const map_point& q, float r) { return map.radius(q, r); }
    void move(const std::vector<move_to>& step) {
        pairs.clear();
        for (const auto& m : step) pairs.emplace_back(m.from, m.to);
        map.move(pairs);
    }
    void erase_outside(const quoct::box<float, 3>& b) { map.erase_outside(b.lo, b.hi); }
    std::size_t size() { return map.size(); }
    double background_seconds() const { return map.rebuild_thread_cpu_seconds(); }
};
#endif

// --- running a scenario -------------------------------------------------------------------

struct answers {
    std::vector<float> knn;             // 5 per query
    std::vector<std::size_t> in_ball;   // per radius query: hits (quoct: d^2 <= r^2)
    std::vector<std::size_t> boundary;  // quoct's: of those, how many at d^2 == r^2
};

struct times {
    double insert = 0, knn = 0, radius = 0, move = 0, knn_moved = 0, radius_moved = 0, erase = 0;
    double bytes_per_point = 0;
    double background = 0;  // CPU seconds of a peer's own threads, outside the phases
    std::size_t held = 0;   // points held at the end
};

// A peer's own threads' CPU time (ikd-Tree's rebuild thread), 0 for the others.
template <class Map>
auto background_of(const Map& map, int) -> decltype(map.background_seconds()) {
    return map.background_seconds();
}
template <class Map>
double background_of(const Map&, long) {
    return 0;
}

template <class Map>
void ask(Map& map, const std::vector<map_point>& qs, float r, answers& a, double& knn_s, double& radius_s) {
    std::size_t k0 = a.knn.size();
    a.knn.resize(k0 + 5 * qs.size());
    double t = steady::now();
    for (const auto& q : qs) {
        map.knn5(q, &a.knn[k0]);
        k0 += 5;
    }
    knn_s += seconds_since(t);
    if (r <= 0) return;
    const std::size_t r0 = a.in_ball.size();
    a.in_ball.resize(r0 + qs.size());
    a.boundary.resize(r0 + qs.size());
    t = steady::now();
    for (std::size_t i = 0; i < qs.size(); ++i) a.in_ball[r0 + i] = map.radius(qs[i], r);
    radius_s += seconds_since(t);
    // quoct's points exactly at distance r, for the check: counted after, untimed (a clock
    // read around each query would cost more than the query where it is a system call).
    if constexpr (std::is_same<Map, quoct_map>::value)
        for (std::size_t i = 0; i < qs.size(); ++i) a.boundary[r0 + i] = map.on_boundary(qs[i], r);
}

// Whether a peer's radius search counts the points at distance exactly r (a closed ball).
template <class Map, class = void>
struct closed_ball : std::false_type {};
template <class Map>
struct closed_ball<Map, std::enable_if_t<Map::closed_ball>> : std::true_type {};

template <class Map>
times run_scan(answers& a) {
    const scan_plan& plan = get_scan_plan();
    times t;
    a.knn.reserve(5 * plan.queries.size() * plan.queries[0].size());
    a.in_ball.reserve(plan.queries.size() * plan.queries[0].size());
    std::vector<map_point> batch;
    batch.reserve(plan.batch);
    const std::size_t heap0 = heap_bytes();
    Map map;
    std::size_t phase = 0;
    for (std::size_t done = 0; done < plan.points.size(); done += plan.batch) {
        const std::size_t end = std::min(plan.points.size(), done + plan.batch);
        batch.assign(plan.points.begin() + static_cast<std::ptrdiff_t>(done), plan.points.begin() + static_cast<std::ptrdiff_t>(end));
        const double s = steady::now();
        map.insert(batch);
        t.insert += seconds_since(s);
        ask(map, plan.queries[phase++], plan.radius, a, t.knn, t.radius);
    }
    t.bytes_per_point = static_cast<double>(heap_bytes() - heap0 - batch.capacity() * sizeof(map_point)) /
                        static_cast<double>(map.size());
    for (const auto& step : plan.moves) {
        const double s = steady::now();
        map.move(step);
        t.move += seconds_since(s);
        ask(map, plan.queries[phase++], plan.radius, a, t.knn_moved, t.radius_moved);
    }
    t.background = background_of(map, 0);
    return t;
}

template <class Map>
times run_sliding(answers& a) {
    const sliding_plan& plan = get_sliding_plan();
    times t;
    std::size_t queries = 0;
    for (const auto& scan : plan.scans) queries += scan.size();
    a.knn.reserve(5 * queries);
    const std::size_t heap0 = heap_bytes();
    Map map;
    for (std::size_t k = 0; k < plan.scans.size(); ++k) {
        if (k != 0) ask(map, plan.scans[k], 0, a, t.knn, t.radius);
        double s = steady::now();
        map.insert(plan.scans[k]);
        t.insert += seconds_since(s);
        s = steady::now();
        map.erase_outside(plan.keep[k]);
        t.erase += seconds_since(s);
    }
    t.bytes_per_point = static_cast<double>(heap_bytes() - heap0) / static_cast<double>(map.size());
    t.background = background_of(map, 0);
    t.held = map.size();
    return t;
}

// quoct's downsampling on insert: the sliding run with each scan thinned by
// insert_downsampled (at most one point per voxel, the first to come) to voxels 1/Per of
// the bunny's width. Its answers are its own (it holds fewer points), so they are not
// compared with the peers'; no peer runs it (i-Octree's option caps the points of its
// smallest leaves, another rule). Against sliding/bunny/quoct, the same run unthinned.
template <int Per>
struct quoct_thinned_map : quoct_map {
    float voxel = get_sliding_plan().extent / Per;
    void insert(const std::vector<map_point>& pts) { index.insert_downsampled(pts, voxel); }
};

template <int Per>
void bm_thinned(benchmark::State& state) {
    times sum;
    double runs = 0;
    for (auto _ : state) {
        answers a;
        const times t = run_sliding<quoct_thinned_map<Per>>(a);
        state.SetIterationTime(t.insert + t.knn + t.erase);
        sum.insert += t.insert, sum.knn += t.knn, sum.erase += t.erase;
        sum.bytes_per_point = t.bytes_per_point;
        sum.held = t.held;
        ++runs;
    }
    state.counters["insert_s"] = sum.insert / runs;
    state.counters["knn5_s"] = sum.knn / runs;
    state.counters["erase_outside_s"] = sum.erase / runs;
    state.counters["bytes_per_point"] = sum.bytes_per_point;
    state.counters["points_held"] = static_cast<double>(sum.held);
}

// quoct's answers, per workload, for the peers' check (computed once, untimed).
const answers& reference(bool sliding) {
    static answers scan, slide;
    static bool have[2] = {false, false};
    answers& a = sliding ? slide : scan;
    if (!have[sliding]) {
        if (sliding) run_sliding<quoct_map>(a);
        else run_scan<quoct_map>(a);
        have[sliding] = true;
    }
    return a;
}

// The true knn5 distances of scan query q (brute force over the points then live), to
// name who is wrong when two peers disagree.
std::string scan_truth(std::size_t q) {
    const scan_plan& plan = get_scan_plan();
    const std::size_t per = plan.queries[0].size(), phase = q / per;
    const std::size_t batches = plan.queries.size() - plan.moves.size();
    std::vector<map_point> live(plan.points.begin(),
                                plan.points.begin() + static_cast<std::ptrdiff_t>(std::min(plan.points.size(), (phase + 1) * plan.batch)));
    for (std::size_t s = 0; phase >= batches && s <= phase - batches; ++s)
        for (const auto& m : plan.moves[s]) live[m.id] = m.to;
    std::vector<float> d;
    for (const auto& p : live) d.push_back(quoct::distance_sq(p, plan.queries[phase][q % per]));
    std::partial_sort(d.begin(), d.begin() + 5, d.end());
    std::string out = " (brute force:";
    for (std::size_t i = 0; i < 5; ++i) out += " " + std::to_string(d[i]);
    return out + ")";
}

template <class Map>
void check_same(const answers& got, const answers& want) {
    const char* who = Map::name;
    if (got.knn.size() != want.knn.size() || got.in_ball.size() != want.in_ball.size())
        throw std::runtime_error(std::string(who) + ": a different number of answers than quoct's");
    for (std::size_t i = 0; i < got.knn.size(); ++i)
        if (got.knn[i] != want.knn[i])
            throw std::runtime_error(std::string(who) + ": knn5 query " + std::to_string(i / 5) + " answers " +
                                     std::to_string(got.knn[i]) + " as its distance_sq " + std::to_string(i % 5 + 1) +
                                     ", quoct " + std::to_string(want.knn[i]) +
                                     (want.in_ball.empty() ? std::string() : scan_truth(i / 5)));
    for (std::size_t i = 0; i < got.in_ball.size(); ++i) {
        const std::size_t expect = want.in_ball[i] - (closed_ball<Map>::value ? 0 : want.boundary[i]);
        if (got.in_ball[i] != expect)
            throw std::runtime_error(std::string(who) + ": radius query " + std::to_string(i) + " finds " +
                                     std::to_string(got.in_ball[i]) + " points, quoct " + std::to_string(expect) +
                                     (closed_ball<Map>::value ? " (closed ball)" : " (open ball)"));
    }
}

template <class Map, bool Sliding>
void bm_map(benchmark::State& state) {
    times sum;
    double runs = 0;
    try {
        const answers& want = reference(Sliding);
        for (auto _ : state) {
            answers a;
            const times t = Sliding ? run_sliding<Map>(a) : run_scan<Map>(a);
            check_same<Map>(a, want);
            state.SetIterationTime(t.insert + t.knn + t.radius + t.move + t.knn_moved + t.radius_moved + t.erase);
            sum.insert += t.insert, sum.knn += t.knn, sum.radius += t.radius, sum.move += t.move;
            sum.knn_moved += t.knn_moved, sum.radius_moved += t.radius_moved, sum.erase += t.erase;
            sum.bytes_per_point = t.bytes_per_point;
            sum.held = t.held;
            sum.background += t.background;
            ++runs;
        }
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return;
    }
    state.counters["insert_s"] = sum.insert / runs;
    state.counters["knn5_s"] = sum.knn / runs;
    if (Sliding) {
        state.counters["erase_outside_s"] = sum.erase / runs;
        state.counters["points_held"] = static_cast<double>(sum.held);
    } else {
        state.counters["radius_s"] = sum.radius / runs;
        state.counters["move_s"] = sum.move / runs;
        state.counters["knn5_moved_s"] = sum.knn_moved / runs;
        state.counters["radius_moved_s"] = sum.radius_moved / runs;
    }
    state.counters["bytes_per_point"] = sum.bytes_per_point;
    if (sum.background > 0) state.counters["rebuild_thread_s"] = sum.background / runs;
}

template <class Map>
void register_map() {
    benchmark::RegisterBenchmark((std::string("scan/bunny1M/") + Map::name).c_str(), bm_map<Map, false>)
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime()
        ->Iterations(1);
    benchmark::RegisterBenchmark((std::string("sliding/bunny/") + Map::name).c_str(), bm_map<Map, true>)
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime()
        ->Iterations(1);
}

}  // namespace
}  // namespace quoct_bench

int main(int argc, char** argv) {
    using namespace quoct_bench;
    take_smoke_flag(argc, argv);
    register_map<quoct_map>();
    for (const auto& bm : {std::make_pair("sliding-thinned/bunny/quoct/voxel:width/100", &bm_thinned<100>),
                           std::make_pair("sliding-thinned/bunny/quoct/voxel:width/400", &bm_thinned<400>)})
        benchmark::RegisterBenchmark(bm.first, bm.second)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(1);
    register_map<nanoflann_map>();
#ifdef QUOCT_BENCH_HAVE_IOCTREE
    register_map<ioctree_map>();
#endif
#ifdef QUOCT_BENCH_HAVE_IKDTREE
    register_map<ikdtree_map_peer>();
#endif
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
