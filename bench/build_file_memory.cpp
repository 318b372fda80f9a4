// build_file_memory: quoct::build_file at scale, for /usr/bin/time -v and memory cgroups.
// The points are made as they are read (uniform in a 1000 x 1000 x 100 box, 3D double, from
// a seeded generator), so the program holds none of them itself: what it holds is the build's.
//
//   build_file_memory build N MEMORY_MB FILE     quoct::build_file within MEMORY_MB
//   build_file_memory memory N FILE              the octree built in memory, then saved
//   build_file_memory query N FILE [Q [structure]]
//                                                Q (default 20) radius, count and 10-nearest
//                                                queries on the opened FILE against brute
//                                                force over the generated points; opened as
//                                                open() does by default (the header and the
//                                                block checksums read, the rest checked as
//                                                queries reach it), or with "structure"
//                                                open_options::check_structure
// Each prints seconds, points a second and the peak resident memory (getrusage); query
// prints how many answers differ (0 expected). docs/build-file.md has figures and commands.
#include <quoct/build_file.hpp>
#include <quoct/file.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <sys/resource.h>

namespace {

using point3 = quoct::point<double, 3>;

struct generated_points {
    std::uint64_t n, next = 0, state = 1;
    std::size_t read(point3* out, std::size_t max) {
        const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(max, n - next));
        for (std::size_t i = 0; i < k; ++i)
            for (std::size_t a = 0; a < 3; ++a) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                out[i][a] = static_cast<double>(state >> 11) * 0x1p-53 * (a == 2 ? 100.0 : 1000.0);
            }
        next += k;
        return k;
    }
    void rewind() { next = 0, state = 1; }
};

double peak_rss_mb() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024;
}

struct clock_s {
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
};

int query(std::uint64_t n, const std::string& path, int queries, bool structure) {
    clock_s open_clock;
    const auto tree = quoct::open<quoct::octree<double>>(path, quoct::open_options{false, structure});
    const double open_s = open_clock.seconds();
    generated_points qs{1000, 0, 12345};
    std::vector<point3> centres(static_cast<std::size_t>(queries));
    qs.read(centres.data(), centres.size());
    const double r = 0.5;  // about 50 points a ball at 100M points
    std::vector<std::vector<std::uint32_t>> got(centres.size());
    std::vector<std::vector<quoct::neighbor<double, std::uint32_t>>> near(centres.size());
    std::vector<std::size_t> counts(centres.size());
    clock_s q_clock;
    for (std::size_t i = 0; i < centres.size(); ++i) {
        got[i] = tree.query(quoct::ball<double, 3>{centres[i], r});
        counts[i] = tree.count(quoct::ball<double, 3>{centres[i], r});
        tree.nearest(centres[i], 10, near[i]);
    }
    const double q_s = q_clock.seconds();
    // Brute force in one pass over the generated points: the balls and the 10 nearest.
    std::vector<std::vector<std::uint32_t>> want(centres.size());
    std::vector<std::vector<std::pair<double, std::uint32_t>>> best(centres.size());
    generated_points all{n};
    std::vector<point3> buf(1 << 16);
    std::uint64_t id = 0;
    for (std::size_t k; (k = all.read(buf.data(), buf.size())) != 0; id += k)
        for (std::size_t j = 0; j < k; ++j)
            for (std::size_t i = 0; i < centres.size(); ++i) {
                double d = 0;
                for (std::size_t a = 0; a < 3; ++a) d += (buf[j][a] - centres[i][a]) * (buf[j][a] - centres[i][a]);
                const auto pid = static_cast<std::uint32_t>(id + j);
                if (d <= r * r) want[i].push_back(pid);
                auto& b = best[i];
                if (b.size() < 10 || std::make_pair(d, pid) < b.back()) {
                    b.insert(std::upper_bound(b.begin(), b.end(), std::make_pair(d, pid)), std::make_pair(d, pid));
                    if (b.size() > 10) b.pop_back();
                }
            }
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < centres.size(); ++i) {
        std::sort(got[i].begin(), got[i].end());
        wrong += got[i] != want[i];
        wrong += counts[i] != want[i].size();
        for (std::size_t j = 0; j < 10; ++j) wrong += near[i][j].id != best[i][j].second;
    }
    std::printf("query: open %.3f s, %d x (radius, count, 10-nearest) %.3f s, %zu answers wrong of %d, peak RSS %.1f MB\n",
                open_s, queries, q_s, wrong, queries * 12, peak_rss_mb());
    return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: build_file_memory build N MEMORY_MB FILE | memory N FILE | query N FILE [Q [structure]]\n");
        return 2;
    }
    const std::string mode = argv[1];
    const std::uint64_t n = std::strtoull(argv[2], nullptr, 10);
    generated_points in{n};
    clock_s c;
    if (mode == "build" && argc >= 5) {
        quoct::build_file_options o;
        o.memory_limit = static_cast<std::size_t>(std::strtoull(argv[3], nullptr, 10)) << 20;
        quoct::build_file<quoct::octree<double>>(in, argv[4], o);
    } else if (mode == "memory") {
        std::vector<point3> pts(static_cast<std::size_t>(n));
        in.read(pts.data(), pts.size());
        c = clock_s{};  // the build and the save, not making the points
        quoct::save(quoct::octree<double>(pts), argv[3]);
    } else if (mode == "query") {
        return query(n, argv[3], argc >= 5 ? std::atoi(argv[4]) : 20, argc >= 6 && std::string(argv[5]) == "structure");
    } else {
        std::fprintf(stderr, "build_file_memory: unknown mode %s\n", mode.c_str());
        return 2;
    }
    const double s = c.seconds();
    std::printf("%s: %llu points in %.2f s, %.2f M points/s, peak RSS %.1f MB\n", mode.c_str(),
                static_cast<unsigned long long>(n), s, static_cast<double>(n) / s / 1e6, peak_rss_mb());
    return 0;
}
