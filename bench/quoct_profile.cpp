// quoct_profile: one quoct operation in a loop, for profilers. Under callgrind only the
// operation itself is measured (instrumentation starts after the data and, for queries,
// the tree are built):
//
//   valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=cg.out
//            build/bench/quoct_profile radius 200000 20000
//   callgrind_annotate cg.out | head -40
//
// Usage: quoct_profile OP [POINTS [QUERIES]]
//   OP: build | radius | count | box | knn1 | knn10 on uniform 3D points in the unit cube;
//   radius, count and box are sized for about 256 results, radius also comes as radius32.
#include <quoct/quoct.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "datasets.hpp"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define QUOCT_PROFILE_START() CALLGRIND_START_INSTRUMENTATION
#define QUOCT_PROFILE_STOP() CALLGRIND_STOP_INSTRUMENTATION
#else
#define QUOCT_PROFILE_START() ((void)0)
#define QUOCT_PROFILE_STOP() ((void)0)
#endif

int main(int argc, char** argv) {
    using namespace quoct_bench;
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s build|radius|radius32|count|box|knn1|knn10 [points [queries]]\n", argv[0]);
        return 2;
    }
    const std::string op = argv[1];
    const std::size_t n = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 200000;
    const std::size_t queries = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 20000;
    const auto pts = uniform_points<3>(n, 0x5eed0001);
    // Uniform in the unit cube, so a ball of volume k / n holds about k points.
    const auto radius_for = [n](double k) { return std::cbrt(3.0 * k / (4.0 * 3.141592653589793 * static_cast<double>(n))); };
    const double r = radius_for(op == "radius32" ? 32 : 256);
    const double half = std::cbrt(256.0 / static_cast<double>(n)) / 2;
    rng pick(7);
    std::vector<point<3>> centers(queries);
    for (auto& c : centers) c = pts[pick.index(n)];

    enum class kind { build, radius, count, box, nearest } what;
    if (op == "build") what = kind::build;
    else if (op == "radius" || op == "radius32") what = kind::radius;
    else if (op == "count") what = kind::count;
    else if (op == "box") what = kind::box;
    else if (op == "knn1" || op == "knn10") what = kind::nearest;
    else {
        std::fprintf(stderr, "unknown operation %s\n", op.c_str());
        return 2;
    }
    const std::size_t k = op == "knn1" ? 1 : 10;

    std::size_t total = 0;
    if (what == kind::build) {
        QUOCT_PROFILE_START();
        for (std::size_t i = 0; i < std::max<std::size_t>(queries / 10000, 1); ++i)
            total += quoct::orthtree<double, 3>(pts).node_count();
        QUOCT_PROFILE_STOP();
    } else {
        const quoct::orthtree<double, 3> tree(pts);
        std::vector<std::uint32_t> ids;
        std::vector<quoct::neighbor<double, std::uint32_t>> near;
        QUOCT_PROFILE_START();
        for (const auto& c : centers) {
            switch (what) {
                case kind::radius:
                    tree.query(quoct::ball<double, 3>{c, r}, ids);
                    total += ids.size();
                    break;
                case kind::count: total += tree.count(quoct::ball<double, 3>{c, r}); break;
                case kind::box: {
                    quoct::box<double, 3> b{c, c};
                    for (std::size_t a = 0; a < 3; ++a) b.lo[a] -= half, b.hi[a] += half;
                    tree.query(b, ids);
                    total += ids.size();
                    break;
                }
                default:
                    tree.nearest(c, k, near);
                    total += near.size();
            }
        }
        QUOCT_PROFILE_STOP();
    }
    std::printf("%s: %zu points, %zu queries, %zu results in all\n", op.c_str(), n, queries, total);
    return 0;
}
