// bench_file: indexes that outlive the process (quoct/file.hpp) against building them, and
// against nanoflann's saveIndex/loadIndex, in one binary on the same points (uniform in the
// unit cube, 3D double, --size points; default 1M and 10M).
//
//   build/quoct, build/nanoflann       the index from points in memory
//   save/quoct, save/nanoflann         to a file in --dir (default: the system's temp dir)
//   load/quoct                         quoct::load: read the file, every checksum verified
//   load/nanoflann                     loadIndex from its file; the points must already be
//                                      in memory (nanoflann saves only its tree), which is
//                                      not timed: in its favour
//   open/quoct                         quoct::open: map the file, read its header and block
//                                      checksums (queries check what they reach)
//   open/quoct_structure               the same with open_options::check_structure: every
//                                      node and id read and checked at open (queries unchecked)
//   open_knn10_cold/quoct              the file's pages dropped from the page cache first
//                                      (posix_fadvise DONTNEED), then open and one 10-nearest
//                                      query: what a new process pays for its first answer
//   open_knn10_warm/quoct              the same with the file in the page cache
//   build_save/quoct                   the index built in memory and saved: what
//                                      build_file/quoct is measured against
//   build_file/quoct                   quoct::build_file from the points to the same file
//                                      (byte for byte) within a memory limit of 8 bytes a
//                                      point (a fifth of the in-memory build's peak): sorted
//                                      runs on disk, merged, the tree built part by part
//   knn10_x1000/memory, knn10_x1000/mapped_warm, knn10_x1000/mapped_cold
//                                      1,000 10-nearest queries on the tree in memory, on
//                                      the opened file in the page cache, and opened (its
//                                      checks included) after its pages were dropped; the
//                                      _structure rows opened with check_structure
//   (open_knn10_*/quoct_structure: the same as open_knn10_* with check_structure)
// Counters: points_per_s (builds), file_MB (bytes on disk), memory_MB (a built index's memory_bytes; nanoflann's
// usedMemory plus the points it needs), rss_open_MB and rss_query_MB (resident memory the
// process gained by open and by the first query; the page cache is not counted).
//
//   --smoke    20k points, one iteration each (ctest bench_file_smoke)
//   --size=N   one size instead of 1M and 10M
//   --dir=PATH where the files go (removed at the end)
#include <benchmark/benchmark.h>

#include <quoct/build_file.hpp>
#include <quoct/file.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "peers.hpp"

namespace quoct_bench {
namespace {

constexpr std::size_t D = 3;
using tree_type = quoct::octree<double>;

struct file_settings {
    bool smoke = false;
    std::vector<std::size_t> sizes{1000000, 10000000};
    std::string dir;
};
file_settings& settings() {
    static file_settings s;
    return s;
}

double resident_mb() {
    long pages = 0, resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(f);
    }
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

// Drops a file's pages from the page cache (they are clean: the kernel may discard them).
void drop_cache(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return;
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
}

double file_mb(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    return static_cast<double>(in.tellg()) / (1 << 20);
}

// The data of one size, made once.
struct fixture {
    std::vector<point<D>> pts;
    std::vector<quoct::point<double, D>> queries;
    std::string quoct_path, nano_path;
};
fixture& data(std::size_t n) {
    static std::map<std::size_t, std::unique_ptr<fixture>> all;
    auto& f = all[n];
    if (!f) {
        f = std::make_unique<fixture>();
        f->pts = uniform_points<D>(n, 7);
        for (const auto& p : uniform_points<D>(1000, 8)) f->queries.push_back({{p[0], p[1], p[2]}});
        const std::string base = settings().dir + "/quoct_bench_file_" + std::to_string(::getpid()) + "_" + std::to_string(n);
        f->quoct_path = base + ".quoct";
        f->nano_path = base + ".nanoflann";
    }
    return *f;
}

tree_type build_quoct(const fixture& f) { return tree_type(f.pts.data(), f.pts.size()); }

// The quoct file of a fixture, saved once when a benchmark reads it before save/quoct ran.
const std::string& saved(fixture& f) {
    if (std::FILE* file = std::fopen(f.quoct_path.c_str(), "rb")) std::fclose(file);
    else quoct::save(build_quoct(f), f.quoct_path);
    return f.quoct_path;
}

void register_size(std::size_t n) {
    const std::string suffix = "/" + std::to_string(n);
    const auto reg = [&](const std::string& name, std::function<void(benchmark::State&)> fn, int iterations) {
        auto* b = benchmark::RegisterBenchmark((name + suffix).c_str(), std::move(fn))->Unit(benchmark::kMillisecond);
        b->Iterations(settings().smoke ? 1 : iterations);
        b->UseRealTime();
    };
    const int big = n >= 5000000 ? 3 : 10;

    reg("build/quoct", [n](benchmark::State& st) {
        fixture& f = data(n);
        double mem = 0;
        for (auto _ : st) {
            tree_type t = build_quoct(f);
            mem = static_cast<double>(t.memory_bytes()) / (1 << 20);
            benchmark::DoNotOptimize(t);
        }
        st.counters["memory_MB"] = mem;
    }, big);
    reg("build/nanoflann", [n](benchmark::State& st) {
        fixture& f = data(n);
        nanoflann_peer<D> peer;
        peer.prepare(f.pts);
        for (auto _ : st) peer.build();
        st.counters["memory_MB"] = static_cast<double>(peer.memory_bytes()) / (1 << 20);
    }, big);
    reg("save/quoct", [n](benchmark::State& st) {
        fixture& f = data(n);
        const tree_type t = build_quoct(f);
        for (auto _ : st) quoct::save(t, f.quoct_path);
        st.counters["file_MB"] = file_mb(f.quoct_path);
    }, big);
    reg("save/nanoflann", [n](benchmark::State& st) {
        fixture& f = data(n);
        nanoflann_peer<D> peer;
        peer.prepare(f.pts);
        peer.build();
        for (auto _ : st) {
            std::ofstream out(f.nano_path, std::ios::binary | std::ios::trunc);
            peer.index().saveIndex(out);
            out.flush();
            st.PauseTiming();  // its file is the tree only; the points go elsewhere
            out.close();
            st.ResumeTiming();
        }
        st.counters["file_MB"] = file_mb(f.nano_path);
        st.counters["points_MB"] = static_cast<double>(f.pts.size() * sizeof(point<D>)) / (1 << 20);
    }, big);
    reg("load/quoct", [n](benchmark::State& st) {
        fixture& f = data(n);
        for (auto _ : st) {
            tree_type t = quoct::load<tree_type>(saved(f));
            benchmark::DoNotOptimize(t);
        }
    }, big);
    reg("load/nanoflann", [n](benchmark::State& st) {
        fixture& f = data(n);
        nanoflann_peer<D> peer;
        peer.prepare(f.pts);
        peer.build();
        for (auto _ : st) {
            std::ifstream in(f.nano_path, std::ios::binary);
            peer.index().loadIndex(in);
        }
    }, big);
    reg("build_save/quoct", [n](benchmark::State& st) {
        fixture& f = data(n);
        for (auto _ : st) quoct::save(build_quoct(f), f.quoct_path);
        st.counters["points_per_s"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
    }, big);
    reg("build_file/quoct", [n](benchmark::State& st) {
        fixture& f = data(n);
        const std::string path = f.quoct_path + ".built";
        quoct::build_file_options o;
        o.memory_limit = 8 * n;
        for (auto _ : st) {
            quoct::array_points<double, D> in(&f.pts[0][0], f.pts.size());
            quoct::build_file<tree_type>(in, path, o);
        }
        st.counters["points_per_s"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
        st.counters["file_MB"] = file_mb(path);
        std::remove(path.c_str());
    }, big);
    const auto knn_batch = [](const tree_type& t, const fixture& f) {
        std::vector<quoct::neighbor<double, std::uint32_t>> out;
        std::size_t sum = 0;
        for (const auto& q : f.queries) t.nearest(q, 10, out), sum += out[0].id;
        benchmark::DoNotOptimize(sum);
    };
    reg("knn10_x1000/memory", [n, knn_batch](benchmark::State& st) {
        fixture& f = data(n);
        const tree_type t = build_quoct(f);
        for (auto _ : st) knn_batch(t, f);
    }, 10);
    for (const bool structure : {false, true}) {
        const std::string tail = structure ? "_structure" : "";
        const quoct::open_options how{false, structure};
        reg("knn10_x1000/mapped_warm" + tail, [n, knn_batch, how](benchmark::State& st) {
            fixture& f = data(n);
            const tree_type t = quoct::open<tree_type>(saved(f), how);
            knn_batch(t, f);  // the pages the queries read are in the cache
            for (auto _ : st) knn_batch(t, f);
        }, 10);
        reg("knn10_x1000/mapped_cold" + tail, [n, knn_batch, how](benchmark::State& st) {
            fixture& f = data(n);
            for (auto _ : st) {
                st.PauseTiming();
                drop_cache(saved(f));  // (pages a live mapping holds are not dropped: open anew)
                st.ResumeTiming();
                const tree_type t = quoct::open<tree_type>(f.quoct_path, how);
                knn_batch(t, f);
            }
        }, 10);
        reg("open/quoct" + tail, [n, how](benchmark::State& st) {
            fixture& f = data(n);
            for (auto _ : st) {
                tree_type t = quoct::open<tree_type>(saved(f), how);
                benchmark::DoNotOptimize(t);
            }
        }, 20);
        for (const bool cold : {true, false}) {
            reg((cold ? "open_knn10_cold/quoct" : "open_knn10_warm/quoct") + tail, [n, cold, how](benchmark::State& st) {
                fixture& f = data(n);
                double rss_open = 0, rss_query = 0;
                std::size_t q = 0;
                std::vector<quoct::neighbor<double, std::uint32_t>> out;
                for (auto _ : st) {
                    st.PauseTiming();
                    if (cold) drop_cache(saved(f));
                    const double before = resident_mb();
                    st.ResumeTiming();
                    tree_type t = quoct::open<tree_type>(f.quoct_path, how);
                    const double opened = resident_mb();
                    t.nearest(f.queries[q++ % f.queries.size()], 10, out);
                    benchmark::DoNotOptimize(out);
                    rss_open = opened - before;
                    rss_query = resident_mb() - opened;
                }
                st.counters["rss_open_MB"] = rss_open;
                st.counters["rss_query_MB"] = rss_query;
            }, 10);
        }
    }
}

}  // namespace
}  // namespace quoct_bench

int main(int argc, char** argv) {
    using namespace quoct_bench;
    file_settings& s = settings();
    const char* tmp = std::getenv("TMPDIR");
    s.dir = tmp && *tmp ? tmp : "/tmp";
    std::vector<char*> args{argv[0]};
    bool sized = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--smoke") == 0) s.smoke = true;
        else if (std::strncmp(argv[i], "--size=", 7) == 0) s.sizes = {std::strtoull(argv[i] + 7, nullptr, 10)}, sized = true;
        else if (std::strncmp(argv[i], "--dir=", 6) == 0) s.dir = argv[i] + 6;
        else args.push_back(argv[i]);
    }
    if (s.smoke && !sized) s.sizes = {20000};
    for (const std::size_t n : s.sizes) register_size(n);
    int count = static_cast<int>(args.size());
    benchmark::Initialize(&count, args.data());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    for (const std::size_t n : s.sizes) {
        std::remove(data(n).quoct_path.c_str());
        std::remove(data(n).nano_path.c_str());
    }
    return 0;
}
