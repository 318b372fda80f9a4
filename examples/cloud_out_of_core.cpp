// Index a cloud bigger than the memory you give it: quoct::build_file sorts the points on
// disk and writes the octree's index file (the file quoct::save writes for the octree built
// in memory), then quoct::open maps it and queries read only what they reach. The answers
// are checked against brute force over the points.
//
// Usage: cloud_out_of_core [file.las [memory_MB]]
//   file.las    a LAS file to index (default: 2 million points made here, streamed by a
//               source of our own, which shows what a point source is)
//   memory_MB   the build's memory limit (default 8 MB)
#include <quoct/build_file.hpp>
#include <quoct/io/las.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using point3 = quoct::point<double, 3>;

// A point source: read() fills up to max points and says how many (0 at the end), rewind()
// starts again. This one makes n points from a seeded generator as they are read.
struct made_points {
    std::uint64_t n, next = 0, state = 42;
    std::size_t read(point3* out, std::size_t max) {
        std::size_t k = 0;
        for (; k < max && next < n; ++k, ++next)
            for (std::size_t a = 0; a < 3; ++a) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                out[k][a] = static_cast<double>(state >> 11) * 0x1p-53 * 100.0;
            }
        return k;
    }
    void rewind() { next = 0, state = 42; }
};

// Every point again, for the check (a real program would not hold them).
template <class Source>
std::vector<point3> all_points(Source& in) {
    in.rewind();
    std::vector<point3> out, chunk(65536);
    for (std::size_t k; (k = in.read(chunk.data(), chunk.size())) != 0;) out.insert(out.end(), chunk.begin(), chunk.begin() + k);
    return out;
}

template <class Source>
int run(Source& in, std::size_t memory_mb) {
    const std::string path = "cloud_out_of_core.quoct";
    quoct::build_file_options options;
    options.memory_limit = memory_mb << 20;
    const auto t0 = std::chrono::steady_clock::now();
    quoct::build_file<quoct::octree<double>>(in, path, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto tree = quoct::open<quoct::octree<double>>(path);
    std::printf("%zu points indexed in %.2f s within %zu MB: %s\n", tree.size(), seconds, memory_mb, path.c_str());

    const std::vector<point3> pts = all_points(in);
    const quoct::box<double, 3> b = tree.bounds();
    int wrong = 0;
    for (int q = 0; q < 20; ++q) {
        point3 c;
        for (std::size_t a = 0; a < 3; ++a) c[a] = b.lo[a] + (b.hi[a] - b.lo[a]) * (q + 0.5) / 20;
        const double r = (b.hi[0] - b.lo[0]) / 50;
        std::size_t brute = 0;
        for (const point3& p : pts) {
            double d = 0;
            for (std::size_t a = 0; a < 3; ++a) d += (p[a] - c[a]) * (p[a] - c[a]);
            brute += d <= r * r;
        }
        wrong += tree.count(quoct::ball<double, 3>{c, r}) != brute;
    }
    std::printf("20 radius counts on the mapped file: %d differ from brute force\n", wrong);
    std::remove(path.c_str());
    return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t memory_mb = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 8;
    try {
        if (argc > 1) {
            quoct::io::las_points in(argv[1]);
            return run(in, memory_mb);
        }
        made_points in{2000000};
        return run(in, memory_mb);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cloud_out_of_core: %s\n", e.what());
        return 1;
    }
}
