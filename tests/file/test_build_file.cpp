// quoct/build_file.hpp: the out-of-core build writes the file save() writes for the tree
// built in memory from the same points, byte for byte (the oracle: that tree, checked
// against brute force elsewhere, and brute force here for the opened file), within a budget
// small enough that the points sort in many runs, merge in more than one pass, and build in
// many parts; bad points, a source that changes, a full disk and a missing temporary
// directory leave the target as it was and nothing behind.
#include <quoct/build_file.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <csignal>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.hpp"

namespace test_build_file {  // this file's own: the test files build in unity batches

namespace {

using namespace quoct_test;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

struct temp_dir {
    fs::path path;
    temp_dir() {
        static std::atomic<int> counter{0};
        path = fs::temp_directory_path() /
               ("quoct_test_build_file_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~temp_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string operator/(const std::string& name) const { return (path / name).string(); }
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }
};

std::vector<unsigned char> bytes_of(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The smallest budget build_file uses: parts of about 1,400 to 3,300 points, runs of about
// 4,600 to 6,500 points, 63 runs merged at once.
constexpr std::size_t tiny = 0;

template <class T, std::size_t D>
const T* flat(const points<T, D>& pts) {
    return pts.empty() ? nullptr : &pts[0][0];
}

// Builds the file from `pts` within `budget` and returns its bytes, with the stages told.
template <class T, std::size_t D, class Id>
std::vector<unsigned char> built(const points<T, D>& pts, const std::string& path, const quoct::build_options& o,
                                 std::size_t budget = tiny, std::vector<std::string>* stages = nullptr) {
    quoct::array_points<T, D> in(flat(pts), pts.size());
    quoct::build_file_options fo;
    fo.tree = o;
    fo.memory_limit = budget;
    if (stages)
        fo.progress = [stages](const quoct::build_progress& p) {
            if (stages->empty() || stages->back() != p.stage) stages->push_back(p.stage);
        };
    quoct::build_file<quoct::orthtree<T, D, Id>>(in, path, fo);
    return bytes_of(path);
}

template <class T, std::size_t D, class Id = std::uint32_t>
void same_as_in_memory(const points<T, D>& pts, const quoct::build_options& o = {}) {
    temp_dir dir;
    const quoct::orthtree<T, D, Id> tree(pts, o);
    const std::vector<unsigned char> want = quoct::to_bytes(tree);
    const std::vector<unsigned char> got = built<T, D, Id>(pts, dir / "t.quoct", o);
    CHECK(got.size() == want.size());
    CHECK(got == want);
    CHECK(dir.names() == std::vector<std::string>{"t.quoct"});
}

// Points the top of the tree must re-sort on a grid of their own: a cluster far smaller
// than a cell of the root grid, with more points than a part holds, and two far corners.
template <class T, std::size_t D>
points<T, D> cluster_and_corners(std::size_t n, std::uint64_t seed) {
    points<T, D> pts = uniform_points<T, D>(n, seed, 0, 1e-6);
    pts.push_back(splat<T, D>(T(-1e6)));
    pts.push_back(splat<T, D>(T(1e6)));
    return pts;
}

// Points that are all equal but a few: a leaf over more points than a part holds.
template <class T, std::size_t D>
points<T, D> equal_but_few(std::size_t n, std::uint64_t seed) {
    points<T, D> pts(n, splat<T, D>(T(3.5)));
    const points<T, D> few = uniform_points<T, D>(5, seed);
    std::copy(few.begin(), few.end(), pts.begin() + static_cast<std::ptrdiff_t>(n / 2));
    return pts;
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("build_file: the file save() writes for the tree built in memory, byte for byte",
                        "[file][build_file]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    SECTION("uniform") { same_as_in_memory<T, D>(uniform_points<T, D>(30000, 1)); }
    SECTION("clustered, with duplicates") { same_as_in_memory<T, D>(clustered_points<T, D>(30000, 2)); }
    SECTION("a lattice of integers: points on every cell edge") { same_as_in_memory<T, D>(lattice_points<T, D>(D == 2 ? 90 : 16)); }
    SECTION("dyadic coordinates") { same_as_in_memory<T, D>(dyadic_points<T, D>(30000, 3)); }
    SECTION("many scales: keys run out in many parts") { same_as_in_memory<T, D>(spread_points<T, D>(30000, 4)); }
    SECTION("keys run out above the parts: re-sorted from the file") {
        same_as_in_memory<T, D>(cluster_and_corners<T, D>(20000, 5));
    }
    SECTION("a leaf over more points than a part holds") { same_as_in_memory<T, D>(equal_but_few<T, D>(20000, 6)); }
    SECTION("nearest index off, leaves of one point") {
        quoct::build_options o;
        o.nearest_index = false;
        o.leaf_size = 1;
        same_as_in_memory<T, D>(uniform_points<T, D>(20000, 7), o);
    }
    SECTION("depth capped: leaves over the leaf size, and over a part") {
        quoct::build_options o;
        o.max_depth = 1;
        same_as_in_memory<T, D>(clustered_points<T, D>(30000, 8), o);
    }
    SECTION("-0 and +0 both extreme in a leaf over more points than a part holds: the same zero in its box") {
        quoct::build_options o;
        o.max_depth = 0;
        points<T, D> pts(20000, splat<T, D>(T(5)));
        for (quoct::point<T, D>& p : pts) p[0] = T(0);
        pts[0] = splat<T, D>(T(0));
        pts[0][0] = T(5);
        pts[1][0] = -T(0);
        same_as_in_memory<T, D>(pts, o);
    }
    SECTION("64-bit ids") { same_as_in_memory<T, D, std::uint64_t>(uniform_points<T, D>(20000, 9)); }
    SECTION("none, one, and few enough to build in memory") {
        same_as_in_memory<T, D>(points<T, D>{});
        same_as_in_memory<T, D>(uniform_points<T, D>(1, 10));
        same_as_in_memory<T, D>(uniform_points<T, D>(500, 11));
    }
}

TEST_CASE("build_file: more runs than merge at once, and the opened file answers as brute force", "[file][build_file]") {
    temp_dir dir;
    // About 6,500 points a run at the smallest budget, 63 merged at once: two passes.
    const points<float, 2> pts = dyadic_points<float, 2>(430000, 12);
    std::vector<std::string> stages;
    const std::vector<unsigned char> got = built<float, 2, std::uint32_t>(pts, dir / "big.quoct", {}, tiny, &stages);
    CHECK(got == quoct::to_bytes(quoct::quadtree<float>(pts)));
    CHECK(stages == std::vector<std::string>{"reading", "sorting", "merging", "building", "checking"});
    const auto tree = quoct::open<quoct::quadtree<float>>(dir / "big.quoct", {true});
    rng r(13);
    for (int q = 0; q < 20; ++q) {
        const quoct::point<float, 2> c = random_point<float, 2>(r, -100, 100);
        const float radius = static_cast<float>(r.uniform(0, 8));
        std::vector<std::uint32_t> got_ids = tree.query(quoct::ball<float, 2>{c, radius}), want;
        for (std::uint32_t i = 0; i < pts.size(); ++i) {
            const double dx = double(pts[i][0]) - c[0], dy = double(pts[i][1]) - c[1];
            if (dx * dx + dy * dy <= double(radius) * radius) want.push_back(i);
        }
        std::sort(got_ids.begin(), got_ids.end());
        CHECK(got_ids == want);
    }
}

// More than 2^32 points would need more than 100 GB of disk here. The id and count
// arithmetic is one template over Id, so 16-bit ids filled to the most an orthtree numbers
// (max / 2 points: a node's skip runs to about twice the points) test it where it would
// overflow first: every id and node offset near the top of its type, many runs and parts.
TEST_CASE("build_file: ids up to the top of their type, and one point more refused", "[file][build_file]") {
    using Id = std::uint16_t;
    constexpr std::size_t most = std::numeric_limits<Id>::max() / 2;
    temp_dir dir;
    const std::string path = dir / "t.quoct";
    SECTION("the most points: the bytes save() writes, and queries on the opened file as brute force") {
        const points<double, 3> pts = clustered_points<double, 3>(most, 21);
        CHECK(built<double, 3, Id>(pts, path, {}) == quoct::to_bytes(quoct::octree<double, Id>(pts)));
        const auto lazy = quoct::open<quoct::octree<double, Id>>(path);
        rng r(22);
        for (int q = 0; q < 10; ++q) {
            const std::size_t at = most - 1 - static_cast<std::size_t>(r.uniform(0, 100));  // ids at the top
            const quoct::ball<double, 3> b{pts[at], r.uniform(0, 0.3)};
            const std::vector<Id> got = sorted(lazy.query(b));
            CHECK(got == brute_ball<Id>(pts, b));
            CHECK(std::find(got.begin(), got.end(), static_cast<Id>(at)) != got.end());
            std::vector<quoct::neighbor<double, Id>> near;
            lazy.nearest(pts[at], 5, near);
            CHECK(neighbor_diff(near, brute_nearest<Id>(pts, pts[at], 5)) == "");
        }
        std::vector<bool> seen(most, false);
        const Id* ids = lazy.stored_ids();
        for (std::size_t i = 0; i < most; ++i) seen[ids[i]] = true;
        CHECK(std::count(seen.begin(), seen.end(), true) == static_cast<std::ptrdiff_t>(most));
    }
    SECTION("one point more: std::length_error, naming the count, and the target as it was") {
        quoct::save(quoct::octree<double, Id>(uniform_points<double, 3>(10, 23)), path);
        const std::vector<unsigned char> before = bytes_of(path);
        const points<double, 3> pts = uniform_points<double, 3>(most + 1, 24);
        CHECK_THROWS_AS((quoct::octree<double, Id>(pts)), std::length_error);
        CHECK_THROWS_WITH((built<double, 3, Id>(pts, path, {})), Contains(std::to_string(most + 1) + " points"));
        CHECK_THROWS_AS((built<double, 3, Id>(pts, path, {})), std::length_error);
        CHECK(bytes_of(path) == before);
        CHECK(dir.names() == std::vector<std::string>{"t.quoct"});
    }
}

TEST_CASE("build_file: bad points and bad options leave the target as it was", "[file][build_file]") {
    temp_dir dir;
    const std::string path = dir / "t.quoct";
    const points<double, 3> old = uniform_points<double, 3>(100, 14);
    quoct::save(quoct::octree<double>(old), path);
    const std::vector<unsigned char> before = bytes_of(path);
    points<double, 3> pts = uniform_points<double, 3>(20000, 15);
    SECTION("a NaN, named by its position") {
        pts[12345][1] = std::numeric_limits<double>::quiet_NaN();
        CHECK_THROWS_WITH((built<double, 3, std::uint32_t>(pts, path, {})),
                          Contains("point 12345") && Contains("NaN or infinite"));
    }
    SECTION("an infinity") {
        pts[19999][2] = -std::numeric_limits<double>::infinity();
        CHECK_THROWS_AS((built<double, 3, std::uint32_t>(pts, path, {})), std::invalid_argument);
    }
    SECTION("leaf size 0") {
        quoct::build_options o;
        o.leaf_size = 0;
        CHECK_THROWS_AS((built<double, 3, std::uint32_t>(pts, path, o)), std::invalid_argument);
    }
    SECTION("a temporary directory that does not exist") {
        quoct::array_points<double, 3> in(flat(pts), pts.size());
        quoct::build_file_options fo;
        fo.memory_limit = tiny;
        fo.temp_dir = dir / "nowhere";
        CHECK_THROWS_WITH(quoct::build_file<quoct::octree<double>>(in, path, fo),
                          Contains(path) && Contains("nowhere") && Contains("nothing was changed"));
    }
    CHECK(bytes_of(path) == before);
    CHECK(dir.names() == std::vector<std::string>{"t.quoct"});
}

namespace {
// A source that gives other points (or fewer, or more) on its second reading.
struct fickle_points {
    points<double, 3> first, second;
    int readings = 0;
    std::size_t next = 0;
    std::size_t read(quoct::point<double, 3>* out, std::size_t max) {
        const points<double, 3>& now = readings == 1 ? first : second;
        const std::size_t k = std::min(max, now.size() - next);
        std::copy(now.begin() + static_cast<std::ptrdiff_t>(next), now.begin() + static_cast<std::ptrdiff_t>(next + k), out);
        next += k;
        return k;
    }
    void rewind() { ++readings, next = 0; }
};
}  // namespace

TEST_CASE("build_file: a source that changes between its two readings is an error", "[file][build_file]") {
    temp_dir dir;
    const std::string path = dir / "t.quoct";
    for (const std::size_t n : {std::size_t{300}, std::size_t{20000}})  // in memory, and out of core
        for (int change = 0; change < 4; ++change) {
            CAPTURE(n, change);
            fickle_points in;
            in.first = uniform_points<double, 3>(n, 16);
            in.second = in.first;
            if (change == 0) in.second.pop_back();               // fewer points
            if (change == 1) in.second.push_back(in.first[0]);   // more
            if (change == 2) in.second[n / 2][0] = 1000;         // one moved outside the bounds
            if (change == 3) in.second[n / 3][1] /= 2;           // one moved inside them
            quoct::build_file_options fo;
            fo.memory_limit = tiny;
            CHECK_THROWS_WITH(quoct::build_file<quoct::octree<double>>(in, path, fo),
                              Contains(path) && Contains("second reading"));
            CHECK(dir.names().empty());
        }
}

// A file size limit makes a write fail midway, as a full disk does (a temporary file's; the
// target's own write is save()'s, tested in test_file.cpp). The old file stays whole and nothing is left beside it.
TEST_CASE("build_file: a disk that fills midway leaves the old file whole and nothing behind", "[file][build_file]") {
    temp_dir dir;
    const std::string path = dir / "keep.quoct";
    quoct::save(quoct::octree<double>(uniform_points<double, 3>(100, 17)), path);
    const std::vector<unsigned char> before = bytes_of(path);
    for (const rlim_t limit : {rlim_t{64} << 10}) {  // the sorted runs' scratch file fills
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            std::signal(SIGXFSZ, SIG_IGN);
            const rlimit l{limit, limit};
            ::setrlimit(RLIMIT_FSIZE, &l);
            int code = 1;
            try {
                built<double, 3, std::uint32_t>(uniform_points<double, 3>(60000, 18), path, {});
            } catch (const quoct::file_error& e) {
                code = std::string(e.what()).find("nothing was changed") != std::string::npos ? 0 : 3;
            } catch (...) {
                code = 2;
            }
            ::_exit(code);
        }
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
        CHECK(bytes_of(path) == before);
        CHECK(dir.names() == std::vector<std::string>{"keep.quoct"});
    }
}

}  // namespace test_build_file
