// Index a point cloud once, use it from any process: build an octree, save it to one file,
// then open that file memory-mapped (no parse, no build) and query it, as a second program
// would. The answers are checked against brute force over the points.
//
// Usage: cloud_file [points [file]]
//   points  how many uniform points in the unit cube (default 1000000)
//   file    where the index goes (default: cloud.quoct in the system's temp directory)
#include <quoct/file.hpp>
#include <quoct/quoct.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

using point3 = quoct::point<double, 3>;
using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point start) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
    const char* tmp = std::getenv("TMPDIR");
    const std::string path = argc > 2 ? argv[2] : std::string(tmp && *tmp ? tmp : "/tmp") + "/cloud.quoct";

    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<point3> pts(n);
    for (auto& p : pts) p = point3{{u(rng), u(rng), u(rng)}};

    // Once: build and save.
    auto start = clock_type::now();
    const quoct::octree<double> built(pts);
    const double build_ms = ms_since(start);
    start = clock_type::now();
    quoct::save(built, path);
    std::printf("built %zu points in %.1f ms, saved to %s in %.1f ms\n", n, build_ms, path.c_str(), ms_since(start));

    // Any process, any number of times: open and query.
    try {
        start = clock_type::now();
        const auto tree = quoct::open<quoct::octree<double>>(path);
        std::printf("opened in %.3f ms: %zu points, %zu nodes, depth %zu\n", ms_since(start), tree.size(),
                    tree.node_count(), tree.depth());
        int bad = 0;
        for (std::size_t q = 0; q < 20 && n > 0; ++q) {
            const quoct::ball<double, 3> ball{pts[(q * 7919) % n], 0.02};
            std::vector<std::uint32_t> got = tree.query(ball), want;
            for (std::size_t i = 0; i < n; ++i)
                if (quoct::contains(ball, pts[i])) want.push_back(static_cast<std::uint32_t>(i));
            std::sort(got.begin(), got.end());
            bad += got != want;
            const std::vector<std::uint32_t> near = tree.nearest(ball.center, 1);
            bad += near.empty() || pts[near[0]] != ball.center;
        }
        std::remove(path.c_str());
        std::printf(bad == 0 ? "20 balls and nearest points agree with brute force\n" : "%d queries disagree\n", bad);
        return bad == 0 ? 0 : 1;
    } catch (const quoct::file_error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
