// quoct benchmarks: a workload is one point set with its query sets, the query sizes
// calibrated on it, and every peer built over it and checked against brute force.
// Workloads are built lazily and one at a time (benchmarks are registered workload by
// workload), so a 1M-point set and its four indexes are built once per run.
#ifndef QUOCT_BENCH_WORKLOADS_HPP
#define QUOCT_BENCH_WORKLOADS_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "datasets.hpp"
#include "peers.hpp"

namespace quoct_bench {

/// Run-wide sizes, fixed before any benchmark is registered.
struct settings {
    bool smoke = false;
    std::size_t points = 1000000;       // uniform, clustered and bunny sets
    std::size_t city_limit = 1000000;   // every city (135k) unless smaller
    std::size_t queries = 4096;         // random-order queries per iteration
    std::size_t inorder_limit = 1u << 17;  // input-order queries per iteration (0: every point)
    std::size_t brute_limit = 200000;   // brute force runs only on sets this small
    std::string data_dir;
};

inline settings& config() {
    static settings s;
    return s;
}

enum class workload_id { uniform3d, clustered3d, bunny3d, cities2d, uniform2d };

inline const char* workload_name(workload_id w) {
    switch (w) {
        case workload_id::uniform3d: return "uniform3d";
        case workload_id::clustered3d: return "clustered3d";
        case workload_id::bunny3d: return "bunny3d";
        case workload_id::cities2d: return "cities2d";
        case workload_id::uniform2d: return "uniform2d";
    }
    return "?";
}

/// Points a workload will have, known before it is built (for choosing peers).
inline std::size_t planned_size(workload_id w) {
    if (w == workload_id::cities2d) return std::min<std::size_t>(config().city_limit, 135233);
    return config().points;
}

template <std::size_t D>
struct workload {
    using peers = std::tuple<quoct_peer<D>, nanoflann_peer<D>, rtree_peer<D>, brute_peer<D>>;

    std::string name;
    std::vector<point<D>> points;
    std::vector<point<D>> random_queries;   // data points, random order
    std::vector<point<D>> nearest_queries;  // data points jittered by about r32
    std::vector<point<D>> inorder_queries;  // data points in input order
    double r32 = 0, r256 = 0, box_half256 = 0;
    std::unique_ptr<peers> built;
    std::map<std::string, std::string> failures;  // peer name -> first wrong answer

    template <class Peer>
    const Peer& get() const {
        return std::get<Peer>(*built);
    }
};

template <std::size_t D>
std::vector<point<D>> make_points(workload_id w) {
    const settings& s = config();
    if constexpr (D == 3) {
        if (w == workload_id::uniform3d) return uniform_points<3>(s.points, 0x5eed0001);
        if (w == workload_id::clustered3d) return clustered_points<3>(s.points, 0x5eed0002);
        if (w == workload_id::bunny3d) return bunny_points(s.data_dir, s.points, 0x5eed0003);
    } else {
        if (w == workload_id::cities2d) return city_points(s.data_dir, s.city_limit);
        if (w == workload_id::uniform2d) return uniform_points<2>(s.points, 0x5eed0005);
    }
    throw std::logic_error("workload of the wrong dimension");
}

/// The box of half-width `half` around c.
template <std::size_t D>
box<D> box_around(const point<D>& c, double half) {
    box<D> b{c, c};
    for (std::size_t a = 0; a < D; ++a) {
        b.lo[a] -= half;
        b.hi[a] += half;
    }
    return b;
}

/// The value in [lo, hi] (log scale) where mean(x) crosses target; mean increases with x.
template <class F>
double calibrate(F mean, double target, double lo, double hi) {
    for (int step = 0; step < 48; ++step) {
        const double mid = std::sqrt(lo * hi);
        (mean(mid) < target ? lo : hi) = mid;
    }
    return std::sqrt(lo * hi);
}

template <std::size_t D>
void calibrate(workload<D>& w) {
    const auto& tree = w.template get<quoct_peer<D>>();
    const std::size_t sample = w.random_queries.size();  // the mean over exactly the timed queries
    double extent = 0;
    for (std::size_t a = 0; a < D; ++a) {
        const auto [lo, hi] = std::minmax_element(w.points.begin(), w.points.end(),
                                                  [a](const point<D>& p, const point<D>& q) { return p[a] < q[a]; });
        extent = std::max(extent, (*hi)[a] - (*lo)[a]);
    }
    auto mean_in_ball = [&](double r) {
        double total = 0;
        for (std::size_t i = 0; i < sample; ++i) total += static_cast<double>(tree.count(w.random_queries[i], r));
        return total / static_cast<double>(sample);
    };
    auto mean_in_box = [&](double h) {
        double total = 0;
        typename quoct_peer<D>::buffers buf;
        for (std::size_t i = 0; i < sample; ++i) total += static_cast<double>(tree.in_box(box_around(w.random_queries[i], h), buf));
        return total / static_cast<double>(sample);
    };
    w.r32 = calibrate(mean_in_ball, 32, extent * 1e-9, extent);
    w.r256 = calibrate(mean_in_ball, 256, extent * 1e-9, extent);
    w.box_half256 = calibrate(mean_in_box, 256, extent * 1e-9, extent);
}

// --- checking every peer against brute force ------------------------------------------------

/// Why `got` is not the closed-ball answer `want`, or "" if it is. An open-ball peer
/// (nanoflann keeps d < r^2) may miss points at exactly distance r.
template <std::size_t D>
std::string compare_ids(std::vector<id_t> got, std::vector<id_t> want, const workload<D>& w, const point<D>& c,
                        double r, bool open_ball) {
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    if (std::adjacent_find(got.begin(), got.end()) != got.end()) return "duplicate ids";
    if (open_ball) {
        want.erase(std::remove_if(want.begin(), want.end(),
                                  [&](id_t i) { return quoct::distance_sq(w.points[i], c) == r * r; }),
                   want.end());
    }
    if (got == want) return "";
    std::ostringstream msg;
    msg << got.size() << " results, expected " << want.size();
    return msg.str();
}

/// Why `got` are not k nearest neighbours (compared by distance, so ties may differ).
template <std::size_t D>
std::string compare_nearest(const std::vector<id_t>& got, const std::vector<id_t>& want, const workload<D>& w,
                            const point<D>& c) {
    auto dists = [&](const std::vector<id_t>& ids) {
        std::vector<double> d;
        for (id_t i : ids) d.push_back(quoct::distance_sq(w.points[i], c));
        std::sort(d.begin(), d.end());
        return d;
    };
    if (dists(got) == dists(want)) return "";
    std::ostringstream msg;
    msg << got.size() << " neighbours, not the nearest " << want.size();
    return msg.str();
}

template <class Peer, std::size_t D>
std::string check_peer(const workload<D>& w) {
    const Peer& peer = w.template get<Peer>();
    const auto& oracle = w.template get<brute_peer<D>>();
    typename Peer::buffers got;
    typename brute_peer<D>::buffers want;
    const bool open_ball = std::is_same<Peer, nanoflann_peer<D>>::value;
    const std::size_t checks = std::min<std::size_t>(16, w.random_queries.size());
    for (std::size_t q = 0; q < checks; ++q) {
        const point<D>& c = w.random_queries[q];
        std::string why;
        for (double r : {w.r32, w.r256}) {
            const std::size_t found = peer.radius(c, r, got);
            oracle.radius(c, r, want);
            if (why.empty()) why = compare_ids(Peer::ids(got, result_kind::region), want.ids, w, c, r, open_ball);
            const std::size_t counted = peer.count(c, r);
            if (why.empty() && counted != found)
                why = "count gives " + std::to_string(counted) + ", radius " + std::to_string(found);
        }
        if constexpr (!std::is_same<Peer, nanoflann_peer<D>>::value) {
            const box<D> b = box_around(c, w.box_half256);
            peer.in_box(b, got);
            oracle.in_box(b, want);
            if (why.empty()) why = compare_ids(Peer::ids(got, result_kind::region), want.ids, w, c, 0, false);
        }
        for (std::size_t k : {std::size_t{1}, std::size_t{10}}) {
            const point<D>& p = w.nearest_queries[q];
            peer.nearest(p, k, got);
            oracle.nearest(p, k, want);
            if (why.empty())
                why = compare_nearest(Peer::ids(got, result_kind::nearest),
                                      brute_peer<D>::ids(want, result_kind::nearest), w, p);
        }
        if (!why.empty()) return std::string(Peer::name) + " disagrees with brute force on query " + std::to_string(q) + ": " + why;
    }
    return "";
}

// --- building a workload ----------------------------------------------------------------------

template <std::size_t D>
std::unique_ptr<workload<D>> load(workload_id id) {
    const settings& s = config();
    auto w = std::make_unique<workload<D>>();
    w->name = workload_name(id);
    w->points = make_points<D>(id);
    const std::size_t n = w->points.size();
    rng r(0x9e3779b97f4a7c15ULL ^ static_cast<std::uint64_t>(id));
    for (std::size_t i = 0; i < s.queries; ++i) w->random_queries.push_back(w->points[r.index(n)]);
    const std::size_t inorder = s.inorder_limit == 0 ? n : std::min(n, s.inorder_limit);
    w->inorder_queries.assign(w->points.begin(), w->points.begin() + static_cast<std::ptrdiff_t>(inorder));

    w->built = std::make_unique<typename workload<D>::peers>();
    std::apply([&](auto&... peer) { (peer.prepare(w->points), ...); }, *w->built);
    std::apply([&](auto&... peer) { (peer.build(), ...); }, *w->built);
    calibrate(*w);
    for (const point<D>& p : w->random_queries) {
        point<D> q = p;
        for (std::size_t a = 0; a < D; ++a) q[a] += w->r32 * r.uniform(-1, 1);
        w->nearest_queries.push_back(q);
    }
    std::apply(
        [&](const auto&... peer) {
            (..., [&](const auto& one) {
                using Peer = std::decay_t<decltype(one)>;
                const std::string why = check_peer<Peer>(*w);
                if (!why.empty()) {
                    w->failures[Peer::name] = why;
                    std::fprintf(stderr, "quoct_bench: %s: %s\n", w->name.c_str(), why.c_str());
                }
            }(peer));
        },
        *w->built);
    std::fprintf(stderr, "quoct_bench: %s: %zu points, r32 = %.6g, r256 = %.6g, box256 half-width = %.6g\n",
                 w->name.c_str(), n, w->r32, w->r256, w->box_half256);
    return w;
}

/// The one workload kept built (of either dimension).
struct workload_cache {
    std::unique_ptr<workload<2>> two;
    std::unique_ptr<workload<3>> three;
    int current = -1;
};

inline workload_cache& cache() {
    static workload_cache c;
    return c;
}

/// The workload, built on first use. Building one drops the previous one.
template <std::size_t D>
const workload<D>& get_workload(workload_id id) {
    workload_cache& c = cache();
    if (c.current != static_cast<int>(id)) {
        c.two.reset();
        c.three.reset();
        c.current = static_cast<int>(id);
    }
    if constexpr (D == 2) {
        if (!c.two) c.two = load<2>(id);
        return *c.two;
    } else {
        if (!c.three) c.three = load<3>(id);
        return *c.three;
    }
}

}  // namespace quoct_bench

#endif  // QUOCT_BENCH_WORKLOADS_HPP
