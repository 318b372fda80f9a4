// quoct_profile: one quoct operation in a loop, for profilers. Under callgrind only the
// operation itself is measured (instrumentation starts after the data and, for queries,
// the tree are built):
//
//   valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=cg.out
//            build/bench/quoct_profile radius 200000 20000
//   callgrind_annotate cg.out | head -40
//
// Usage: quoct_profile OP [POINTS [QUERIES [SET]]]
//   OP: build | radius | count | box | knnK (any k: knn1, knn5, knn10, ...);
//   radius, count and box are sized for about 256 results, radius also comes as radius32;
//   knn queries are data points jittered by about the radius of 32 results, as in quoct_bench.
//   SET: uniform3d (default), clustered3d, bunny3d, cities2d or uniform2d, the sets of
//   quoct_bench (cities2d: POINTS is a limit), or loguniform20, loguniform15, ulps or
//   ulpclusters, the sets of bench_scales, on which radii and jitters are relative: a
//   query c gets r |c| (r sized as above), a neighbourhood on its own scale.
//   QUOCT_BENCH_LEAF=<n> sets the leaf size.
//   nanoflann_knnK runs the same k-nearest queries on nanoflann's kd-tree (leaf size 16, as
//   quoct_bench's peer), for scale, when nanoflann's header is found.
#include <quoct/quoct.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <string>
#include <vector>

#include "datasets.hpp"

#if __has_include(<nanoflann.hpp>)
#include <nanoflann.hpp>
#define QUOCT_PROFILE_NANOFLANN 1
#endif

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define QUOCT_PROFILE_START() CALLGRIND_START_INSTRUMENTATION
#define QUOCT_PROFILE_STOP() CALLGRIND_STOP_INSTRUMENTATION
#else
#define QUOCT_PROFILE_START() ((void)0)
#define QUOCT_PROFILE_STOP() ((void)0)
#endif

namespace {

using namespace quoct_bench;

#ifdef QUOCT_PROFILE_NANOFLANN
template <std::size_t D>
struct cloud {
    const std::vector<point<D>>* points;
    std::size_t kdtree_get_point_count() const { return points->size(); }
    double kdtree_get_pt(std::uint32_t i, std::size_t axis) const { return (*points)[i][axis]; }
    template <class Bbox>
    bool kdtree_get_bbox(Bbox&) const {
        return false;
    }
};
#endif

template <std::size_t D>
std::vector<point<D>> load_set(const std::string& set, std::size_t n) {
    const char* dir = std::getenv("QUOCT_DATA_DIR") ? std::getenv("QUOCT_DATA_DIR") : QUOCT_PROFILE_DATA_DIR;
    if constexpr (D == 3) {
        if (set == "loguniform20") return log_uniform_points<3>(n, 1e-20, 1e20, 0x5eed0011);
        if (set == "loguniform15") return log_uniform_points<3>(n, 1e-15, 1e15, 0x5eed0012);
        if (set == "ulps") return ulp_points<3>(n, 0x5eed0013);
        if (set == "ulpclusters") return ulp_cluster_points<3>(n, 1e-20, 1e20, 0x5eed0014);
        if (set == "clustered3d") return clustered_points<3>(n, 0x5eed0002);
        if (set == "bunny3d") return bunny_points(dir, n, 0x5eed0003);
        return uniform_points<3>(n, 0x5eed0001);
    } else {
        if (set == "cities2d") return city_points(dir, n);
        return uniform_points<2>(n, 0x5eed0005);
    }
}

template <std::size_t D>
int run(const std::string& op, std::size_t n, std::size_t queries, const std::string& set) {
    const auto pts = load_set<D>(set, n);
    n = pts.size();
    quoct::build_options options;
    // QUOCT_BENCH_LEAF=<n> overrides the default leaf size, as in quoct_bench.
    if (const char* leaf = std::getenv("QUOCT_BENCH_LEAF")) options.leaf_size = std::strtoul(leaf, nullptr, 10);
    rng pick(7);
    std::vector<point<D>> centers(queries);
    for (auto& c : centers) c = pts[pick.index(n)];
    if (op == "build") {
        std::size_t total = 0;
        QUOCT_PROFILE_START();
        for (std::size_t i = 0; i < std::max<std::size_t>(queries / 10000, 1); ++i)
            total += quoct::orthtree<double, D>(pts, options).node_count();
        QUOCT_PROFILE_STOP();
        std::printf("build: %zu points, %zu nodes\n", n, total);
        return 0;
    }
    const quoct::orthtree<double, D> tree(pts, options);
    // The scale of a query's neighbourhood: its distance from the origin on the sets of
    // bench_scales, 1 on the others.
    const bool relative = set == "loguniform20" || set == "loguniform15" || set == "ulps" || set == "ulpclusters";
    const auto scale = [&](const point<D>& c) { return relative ? std::sqrt(quoct::distance_sq(c, point<D>{})) : 1.0; };
    // Radii holding about 32 and 256 points on average over the query centres, as the bench.
    const auto radius_for = [&](double target) {
        double lo = relative ? 1e-20 : 1e-12, hi = 1e12;
        for (int step = 0; step < 80; ++step) {
            const double mid = std::sqrt(lo * hi);
            double total = 0;
            for (std::size_t i = 0; i < std::min<std::size_t>(queries, 256); ++i)
                total += static_cast<double>(tree.count(quoct::ball<double, D>{centers[i], mid * scale(centers[i])}));
            (total / static_cast<double>(std::min<std::size_t>(queries, 256)) < target ? lo : hi) = mid;
        }
        return std::sqrt(lo * hi);
    };
    const double r32 = radius_for(32);
    const double r = op == "radius32" ? r32 : radius_for(256);
    const double half = r * 0.8;
    std::size_t k = 0;
    const bool nano = op.compare(0, 10, "nanoflann_") == 0;
    const std::string qop = nano ? op.substr(10) : op;
    if (qop.compare(0, 3, "knn") == 0) {
        k = std::strtoul(qop.c_str() + 3, nullptr, 10);
        // Data points jittered by about r32, as quoct_bench's nearest queries.
        for (auto& c : centers) {
            const double jitter = r32 * scale(c);
            for (std::size_t a = 0; a < D; ++a) c[a] += jitter * pick.uniform(-1, 1);
        }
    } else if (nano || (op != "radius" && op != "radius32" && op != "count" && op != "box")) {
        std::fprintf(stderr, "unknown operation %s\n", op.c_str());
        return 2;
    }
    std::size_t total = 0;
    std::vector<std::uint32_t> ids;
    std::vector<quoct::neighbor<double, std::uint32_t>> near;
    if (nano) {
#ifdef QUOCT_PROFILE_NANOFLANN
        const cloud<D> data{&pts};
        using index_type = nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<double, cloud<D>, double, std::uint32_t>,
                                                               cloud<D>, static_cast<int>(D), std::uint32_t>;
        const index_type index(static_cast<int>(D), data, nanoflann::KDTreeSingleIndexAdaptorParams(16));
        std::vector<std::uint32_t> nid(k);
        std::vector<double> nd(k);
        QUOCT_PROFILE_START();
        for (const auto& c : centers) total += index.knnSearch(c.coords, k, nid.data(), nd.data());
        QUOCT_PROFILE_STOP();
        std::printf("%s on %s: %zu points, %zu queries, %zu results in all\n", op.c_str(), set.c_str(), n, queries, total);
        return 0;
#else
        std::fprintf(stderr, "%s: built without nanoflann\n", op.c_str());
        return 2;
#endif
    }
    QUOCT_PROFILE_START();
    for (const auto& c : centers) {
        if (k != 0) {
            tree.nearest(c, k, near);
            total += near.size();
        } else if (op == "count") {
            total += tree.count(quoct::ball<double, D>{c, r * scale(c)});
        } else if (op == "box") {
            quoct::box<double, D> b{c, c};
            for (std::size_t a = 0; a < D; ++a) b.lo[a] -= half * scale(c), b.hi[a] += half * scale(c);
            tree.query(b, ids);
            total += ids.size();
        } else {
            tree.query(quoct::ball<double, D>{c, r * scale(c)}, ids);
            total += ids.size();
        }
    }
    QUOCT_PROFILE_STOP();
    std::printf("%s on %s: %zu points, %zu queries, %zu results in all\n", op.c_str(), set.c_str(), n, queries, total);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s build|radius|radius32|count|box|knnK|nanoflann_knnK [points [queries [set]]]\n", argv[0]);
        return 2;
    }
    const std::string op = argv[1];
    const std::size_t n = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 200000;
    const std::size_t queries = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 20000;
    const std::string set = argc > 4 ? argv[4] : "uniform3d";
    if (set == "cities2d" || set == "uniform2d") return run<2>(op, n, queries, set);
    return run<3>(op, n, queries, set);
}
