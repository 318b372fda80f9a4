// quoct/file.hpp: indexes saved, loaded and opened memory-mapped answer every query as the
// index that was saved (the oracle: that index, itself checked against brute force
// elsewhere, and brute force directly for the mapped tree); damaged, truncated, foreign and
// mismatched files get a file_error; save is atomic.
#include <quoct/dynamic.hpp>
#include <quoct/file.hpp>
#include <quoct/geo/index.hpp>
#include <quoct/packed_objects.hpp>
#include <quoct/pairs.hpp>
#include <quoct/periodic.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <csignal>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#define QUOCT_TEST_FORK 1
#endif

#include "test_support.hpp"

namespace test_file {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

using namespace quoct_test;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

// A fresh directory for one test, removed with everything in it at the end.
struct scratch_dir {
    fs::path path;
    scratch_dir() {
        static std::atomic<int> counter{0};
        path = fs::temp_directory_path() / ("quoct_test_file_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~scratch_dir() {
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

std::vector<unsigned char> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Every query kind of an orthtree-like index at `probes` centres: ball and box ids (order
// free), counts, distances nearest first, k-nearest (1, 10, capped), point(id). One string
// a query, so a mismatch names the query.
template <class Tree, class T, std::size_t D>
std::vector<std::string> answers(const Tree& t, const points<T, D>& probes, double radius) {
    std::vector<std::string> out;
    const auto text = [](const auto& v) {
        std::ostringstream s;
        s.precision(17);
        for (const auto& x : v) s << x << ' ';
        return s.str();
    };
    for (const auto& c : probes) {
        const quoct::ball<T, D> s{c, static_cast<T>(radius)};
        quoct::box<T, D> b;
        for (std::size_t a = 0; a < D; ++a) b.lo[a] = c[a] - static_cast<T>(radius), b.hi[a] = c[a] + static_cast<T>(radius / 2);
        out.push_back("ball " + text(sorted(t.query(s))) + "count " + std::to_string(t.count(s)));
        out.push_back("box " + text(sorted(t.query(b))) + "count " + std::to_string(t.count(b)));
        std::string near = "with distances ";
        for (const auto& n : t.query_with_distances(s, quoct::result_order::nearest_first))
            near += std::to_string(n.id) + ":" + text(std::vector<T>{n.distance_sq}) + " ";
        out.push_back(near);
        for (const std::size_t k : {std::size_t{1}, std::size_t{10}}) {
            std::vector<quoct::neighbor<T, typename Tree::id_type>> nn;
            t.nearest(c, k, nn);
            std::string line = "knn" + std::to_string(k) + " ";
            for (const auto& n : nn) line += std::to_string(n.id) + ":" + text(std::vector<T>{n.distance_sq}) + " ";
            t.nearest(c, k, static_cast<T>(radius / 3), nn);
            line += "| capped ";
            for (const auto& n : nn) line += std::to_string(n.id) + " ";
            out.push_back(line);
        }
    }
    for (std::size_t id = 0; id < t.size(); id += 1 + t.size() / 7) {
        const auto p = t.point(static_cast<typename Tree::id_type>(id));
        out.push_back("point " + text(std::vector<T>(p.coords, p.coords + D)));
    }
    return out;
}

template <class T, std::size_t D>
points<T, D> probes_for(const points<T, D>& pts, std::uint64_t seed) {
    rng r(seed);
    points<T, D> out;
    for (int i = 0; i < 12 && !pts.empty(); ++i) out.push_back(pts[r.below(pts.size())]);
    for (int i = 0; i < 4; ++i) {
        quoct::point<T, D> p;
        for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(r.uniform(-150, 150));
        out.push_back(p);
    }
    return out;
}

template <class T, std::size_t D>
std::vector<std::pair<std::string, points<T, D>>> data_sets() {
    return {{"uniform", uniform_points<T, D>(3000, 1)},
            {"clustered", clustered_points<T, D>(3000, 2)},
            {"duplicates", duplicate_points<T, D>(200, 300, 3)},
            {"dyadic", dyadic_points<T, D>(1000, 4)},
            {"log-uniform (deep)", log_uniform_points<T, D>(2000, 5)},
            {"one point", uniform_points<T, D>(1, 6)},
            {"empty", {}}};
}

// Puts every checksum right again after a change, as a forger could: the block checksums,
// the sections' (each the checksum of its blocks'), the block checksums' own and the
// header's. The structure checks, not the checksums, must then refuse the file.
void mend(std::vector<unsigned char>& bytes) {
    namespace d = quoct::detail;
    const std::size_t count = d::load_u32(bytes.data() + 24);
    const auto row = [&](std::size_t i) { return bytes.data() + d::file_header + d::file_entry * i; };
    std::vector<std::uint64_t> sums{d::file_block};
    for (std::size_t i = 0; i + 1 < count; ++i) {
        const unsigned char* p = bytes.data() + d::load_u64(row(i) + 32);
        const std::size_t n = d::load_u64(row(i) + 40), first = sums.size();
        for (std::size_t from = 0; from < n; from += d::file_block)
            sums.push_back(d::checksum64(p + from, std::min(d::file_block, n - from)));
        d::store_u64(row(i) + 48, d::section_checksum(sums.data() + first, sums.size() - first));
    }
    unsigned char* table = bytes.data() + d::load_u64(row(count - 1) + 32);
    REQUIRE(d::load_u64(row(count - 1) + 40) == sums.size() * 8);
    std::memcpy(table, sums.data(), sums.size() * 8);
    d::store_u64(row(count - 1) + 48, d::checksum64(table, sums.size() * 8));
    const std::size_t table_end = d::file_header + d::file_entry * count;
    d::store_u64(bytes.data() + d::file_checksum_at, d::file_writer::header_checksum(bytes.data(), table_end));
}

// The bytes of section `name` in an index file.
unsigned char* section_bytes(std::vector<unsigned char>& bytes, const std::string& name) {
    for (const auto& sec : quoct::read_file_info(bytes.data(), bytes.size()).sections)
        if (sec.name == name) return bytes.data() + sec.offset;
    throw std::logic_error("no section " + name);
}

}  // namespace

TEST_CASE("file: forged files with their checksums mended are refused by the structure checks", "[file]") {
    const auto pts = uniform_points<double, 3>(400, 91);
    const quoct::octree<double> t(pts);
    const auto good = quoct::to_bytes(t);
    SECTION("two points with one id") {
        auto bytes = good;
        auto* ids = reinterpret_cast<std::uint32_t*>(section_bytes(bytes, "ids"));
        ids[1] = ids[0];
        mend(bytes);
        CHECK_THROWS_WITH((quoct::from_bytes<quoct::octree<double>>(bytes.data(), bytes.size())), Contains("not a permutation"));
    }
    SECTION("NaN coordinates: a tree read from a file assumes nothing of them") {
        auto bytes = good;
        auto* coords = reinterpret_cast<double*>(section_bytes(bytes, "coords"));
        for (std::size_t i = 0; i < 3 * pts.size(); i += 7) coords[i] = std::numeric_limits<double>::quiet_NaN();
        mend(bytes);
        const auto forged = quoct::from_bytes<quoct::octree<double>>(bytes.data(), bytes.size());
        std::vector<quoct::neighbor<double, std::uint32_t>> out;
        for (const auto& c : probes_for(pts, 92)) {  // no crash, no sanitizer report; answers unspecified
            forged.nearest(c, 5, out);
            forged.query(quoct::ball<double, 3>{c, 40.0}, out, quoct::result_order::nearest_first);
            for (std::size_t i = 1; i < out.size(); ++i)
                if (!std::isnan(out[i].distance_sq)) CHECK(!std::isnan(out[i - 1].distance_sq));  // NaN last
        }
    }
    SECTION("a tree of points whose leaf size is left unresolved (only a tree never built has none)") {
        auto bytes = good;
        reinterpret_cast<std::uint64_t*>(section_bytes(bytes, "meta"))[2] = quoct::build_options::auto_leaf_size;
        mend(bytes);
        CHECK_THROWS_WITH((quoct::from_bytes<quoct::octree<double>>(bytes.data(), bytes.size())), Contains("build options out of range"));
    }
    SECTION("a dynamic index whose places disagree") {
        quoct::dynamic_options o;
        o.tail_limit = 8;
        quoct::dynamic_orthtree<double, 3> x(pts, o);
        for (int i = 0; i < 30; ++i) x.insert(pts[static_cast<std::size_t>(i)]);
        x.erase(3);
        const auto dyn = quoct::to_bytes(x);
        using dyn_t = quoct::dynamic_orthtree<double, 3>;
        CHECK_NOTHROW(quoct::from_bytes<dyn_t>(dyn.data(), dyn.size()));
        auto bytes = dyn;
        section_bytes(bytes, "where")[5] = 0;  // a live point said erased: its entry is orphaned
        mend(bytes);
        CHECK_THROWS_WITH(quoct::from_bytes<dyn_t>(bytes.data(), bytes.size()), Contains("damaged"));
        bytes = dyn;
        section_bytes(bytes, "where")[3] = 1;  // an erased point said live at its dead entry
        mend(bytes);
        CHECK_THROWS_WITH(quoct::from_bytes<dyn_t>(bytes.data(), bytes.size()), Contains("damaged"));
        bytes = dyn;
        reinterpret_cast<std::uint32_t*>(section_bytes(bytes, "slot"))[7] = 8;  // two ids, one place
        mend(bytes);
        CHECK_THROWS_WITH(quoct::from_bytes<dyn_t>(bytes.data(), bytes.size()), Contains("damaged"));
        bytes = dyn;  // a NaN in the snapshot: a later rebuild would read it back
        reinterpret_cast<double*>(section_bytes(bytes, "snap.tree.coords"))[11] = std::numeric_limits<double>::quiet_NaN();
        mend(bytes);
        CHECK_THROWS_WITH(quoct::from_bytes<dyn_t>(bytes.data(), bytes.size()), Contains("NaN or infinite"));
        bytes = dyn;  // and in a side tree
        reinterpret_cast<double*>(section_bytes(bytes, "level0.tree.coords"))[2] = -std::numeric_limits<double>::infinity();
        mend(bytes);
        CHECK_THROWS_WITH(quoct::from_bytes<dyn_t>(bytes.data(), bytes.size()), Contains("NaN or infinite"));
    }
}

TEMPLATE_LIST_TEST_CASE("file: save, load and open give the saved tree's answers", "[file]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    using tree = typename TestType::tree;
    scratch_dir dir;
    for (const auto& [name, pts] : data_sets<T, D>()) {
        for (const bool keyed : {true, false}) {
            INFO(name << (keyed ? "" : ", no nearest index"));
            quoct::build_options o;
            o.nearest_index = keyed;
            o.leaf_size = keyed ? quoct::build_options::auto_leaf_size : 3;
            const tree t(pts, o);
            const std::string path = dir / "t.quoct";
            quoct::save(t, path);
            const tree loaded = quoct::load<tree>(path);
            const tree mapped = quoct::open<tree>(path);
            const tree verified = quoct::open<tree>(path, quoct::open_options{true});
            const tree structured = quoct::open<tree>(path, quoct::open_options{false, true});
            const auto bytes = quoct::to_bytes(t);
            CHECK(bytes == read_bytes(path));
            const tree from = quoct::from_bytes<tree>(bytes.data(), bytes.size());
            const double radius = pts.empty() ? 10 : extent(pts) / 12 + 1e-30;
            const points<T, D> probes = probes_for(pts, 7);
            const auto expected = answers(t, probes, radius);
            for (const tree* other : {&loaded, &mapped, &verified, &structured, &from}) {
                CHECK(other->size() == t.size());
                CHECK(other->depth() == t.depth());
                CHECK(other->node_count() == t.node_count());
                CHECK(answers(*other, probes, radius) == expected);
                CHECK(quoct::to_bytes(*other) == bytes);  // saved again: the same bytes
            }
            // The mapped tree by brute force too, and its copies share the mapping.
            const tree copy = mapped;
            for (const auto& c : probes) {
                const quoct::ball<T, D> s{c, static_cast<T>(radius)};
                CHECK(sorted(copy.query(s)) == brute_ball(pts, s));
            }
        }
    }
}

TEST_CASE("file: options() and read_file_info say what an index was built with and holds", "[file]") {
    scratch_dir dir;
    const auto pts = uniform_points<float, 3>(500, 95);
    CHECK(quoct::octree<float>(pts).options().leaf_size == quoct::build_options::default_leaf_size(3));
    CHECK(quoct::octree<float>().options().leaf_size == quoct::build_options::auto_leaf_size);  // nothing built
    quoct::build_options o;
    o.leaf_size = 7;
    o.max_depth = 9;
    o.nearest_index = false;
    quoct::save(quoct::octree<float>(pts, o), dir / "t.quoct");
    const auto back = quoct::open<quoct::octree<float>>(dir / "t.quoct");
    CHECK((back.options().leaf_size == 7 && back.options().max_depth == 9 && !back.options().nearest_index));
    const auto info = quoct::read_file_info(dir / "t.quoct");
    CHECK(info.type == "orthtree<float, 3, uint32>");
    CHECK(info.version == quoct::file_format_version);
    CHECK(info.bytes == fs::file_size(dir / "t.quoct"));
    std::vector<std::string> names;
    for (const auto& sec : info.sections) {
        names.push_back(sec.name);
        CHECK(sec.offset % 64 == 0);
        CHECK(sec.offset + sec.bytes <= info.bytes);
    }
    CHECK(names ==
          std::vector<std::string>{"meta", "bounds", "coords", "ids", "nodes", "node_keys", "parents", "block_sums"});
    quoct::dynamic_options d;
    d.tail_limit = 33;
    d.rebuild_fraction = 0.25;
    quoct::save(quoct::dynamic_orthtree<float, 3>(pts, d), dir / "d.quoct");
    const auto dyn = quoct::load<quoct::dynamic_orthtree<float, 3>>(dir / "d.quoct");
    CHECK((dyn.options().tail_limit == 33 && dyn.options().rebuild_fraction == 0.25));
}

TEST_CASE("file: view_bytes reads an index in memory without copying it", "[file]") {
    const auto pts = uniform_points<double, 2>(3000, 81);
    const quoct::quadtree<double> t(pts);
    const auto bytes = quoct::to_bytes(t);
    auto aligned = std::make_shared<std::vector<std::uint64_t>>((bytes.size() + 8) / 8);
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<unsigned char*>(aligned->data()));
    const auto* p = reinterpret_cast<const unsigned char*>(aligned->data());
    const auto v = quoct::view_bytes<quoct::quadtree<double>>(p, bytes.size(), aligned);
    aligned.reset();  // the index keeps the bytes alive
    const quoct::ball<double, 2> s{pts[5], 9.0};
    CHECK(sorted(v.query(s)) == brute_ball(pts, s));
    CHECK(v.memory_bytes() >= 3000 * (2 * sizeof(double) + sizeof(std::uint32_t)));
    const auto info = quoct::read_file_info(bytes.data(), bytes.size());
    CHECK(info.type == "orthtree<double, 2, uint32>");
    CHECK(info.bytes == bytes.size());
    // Misaligned bytes are refused, not read.
    std::vector<unsigned char> shifted(1, 0);
    shifted.insert(shifted.end(), bytes.begin(), bytes.end());
    const bool odd = reinterpret_cast<std::uintptr_t>(shifted.data() + 1) % 8 != 0;
    if (odd) CHECK_THROWS_WITH((quoct::view_bytes<quoct::quadtree<double>>(shifted.data() + 1, bytes.size())), Contains("not 8-byte aligned"));
}

TEST_CASE("file: view_bytes with no keep reads bytes the caller keeps alive", "[file][regression]") {
    // keep may be null: the caller keeps the bytes. The index's views must stay views (not
    // be taken for owned arrays, which a move or copy would lose) and answer as the saved
    // tree, its copies too.
    const auto pts = uniform_points<double, 3>(5000, 83);
    const quoct::octree<double> t(pts);
    const auto bytes = quoct::to_bytes(t);
    std::vector<std::uint64_t> aligned((bytes.size() + 8) / 8);
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<unsigned char*>(aligned.data()));
    for (const bool verify : {false, true}) {
        quoct::open_options o;
        o.verify = verify;
        const auto v = quoct::view_bytes<quoct::octree<double>>(aligned.data(), bytes.size(), nullptr, o);
        const auto copy = v;
        quoct::octree<double> copied(v);
        const quoct::octree<double> moved = std::move(copied);
        for (int q = 0; q < 20; ++q) {
            const quoct::ball<double, 3> s{pts[static_cast<std::size_t>(q) * 211], 12.0};
            const auto want = brute_ball(pts, s);
            CHECK(sorted(v.query(s)) == want);
            CHECK(sorted(copy.query(s)) == want);
            CHECK(sorted(moved.query(s)) == want);
        }
        CHECK(v.memory_bytes() == copy.memory_bytes());
    }
}

TEST_CASE("file: a mapped tree outlives its file's replacement and removal", "[file]") {
    scratch_dir dir;
    const auto pts = uniform_points<double, 3>(5000, 11);
    const quoct::octree<double> t(pts);
    const std::string path = dir / "cloud.quoct";
    quoct::save(t, path);
    const quoct::octree<double> mapped = quoct::open<quoct::octree<double>>(path);
    const quoct::ball<double, 3> s{pts[17], 20.0};
    const auto expected = sorted(t.query(s));
    quoct::save(quoct::octree<double>(uniform_points<double, 3>(10, 12)), path);  // replaced: a new file
    CHECK(sorted(mapped.query(s)) == expected);
    fs::remove(path);
    CHECK(sorted(mapped.query(s)) == expected);
    CHECK(dir.names().empty());  // no temporary left behind
}

#ifdef QUOCT_TEST_FORK
// The child opens the file the parent saved and compares with answers the parent computed
// from the tree it built: the file alone carries the index to another process.
TEST_CASE("file: another process opens the saved tree and answers the same", "[file]") {
    scratch_dir dir;
    const auto pts = clustered_points<float, 3>(20000, 21);
    const quoct::octree<float> t(pts);
    const std::string path = dir / "shared.quoct";
    quoct::save(t, path);
    const auto probes = probes_for(pts, 22);
    const auto expected = answers(t, probes, extent(pts) / 20);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        int code = 0;
        try {
            const auto mapped = quoct::open<quoct::octree<float>>(path);
            const auto loaded = quoct::load<quoct::octree<float>>(path);
            code = answers(mapped, probes, extent(pts) / 20) == expected && answers(loaded, probes, extent(pts) / 20) == expected ? 0 : 1;
        } catch (...) {
            code = 2;
        }
        ::_exit(code);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

// A file size limit makes the write fail midway, as a full disk does: the old file stays
// whole and no temporary is left.
TEST_CASE("file: a save that fails midway leaves the old file whole", "[file]") {
    scratch_dir dir;
    const std::string path = dir / "keep.quoct";
    const quoct::quadtree<double> small(uniform_points<double, 2>(100, 31));
    quoct::save(small, path);
    const auto before = read_bytes(path);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        const rlimit limit{4096, 4096};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        int code = 1;
        try {
            quoct::save(quoct::quadtree<double>(uniform_points<double, 2>(100000, 32)), path);
        } catch (const quoct::file_error& e) {
            code = std::string(e.what()).find("nothing was changed") != std::string::npos ? 0 : 3;
        } catch (...) {
            code = 2;
        }
        ::_exit(code);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(read_bytes(path) == before);
    CHECK(dir.names() == std::vector<std::string>{"keep.quoct"});
}
#endif

TEST_CASE("file: errors name the file and the cause", "[file]") {
    scratch_dir dir;
    using tree = quoct::octree<double>;
    const std::string path = dir / "t.quoct";
    const auto pts = uniform_points<double, 3>(500, 41);
    quoct::save(tree(pts), path);
    const auto good = read_bytes(path);

    SECTION("no such file") {
        CHECK_THROWS_WITH(quoct::load<tree>(dir / "missing.quoct"), Contains("missing.quoct") && Contains("cannot open"));
        CHECK_THROWS_AS(quoct::open<tree>(dir / "missing.quoct"), quoct::file_error);
    }
    SECTION("a target that is not a regular file is refused; a symbolic link is followed") {
        const std::string fifo = dir / "pipe";
        REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
        CHECK_THROWS_WITH(quoct::save(tree(pts), fifo), Contains("is not a regular file (nothing was changed)"));
        CHECK(fs::is_fifo(fifo));
        CHECK_THROWS_WITH(quoct::save(tree(pts), dir.path.string()), Contains("is not a regular file"));
        fs::create_symlink(path, dir / "link.quoct");
        const tree other(uniform_points<double, 3>(50, 43));
        quoct::save(other, dir / "link.quoct");
        CHECK(fs::is_symlink(dir / "link.quoct"));
        CHECK(quoct::load<tree>(path).size() == 50);  // the file it leads to was replaced
        fs::create_symlink(dir.path / "nowhere" / "x.quoct", dir / "dangling.quoct");
        CHECK_THROWS_WITH(quoct::save(other, dir / "dangling.quoct"), Contains("symbolic link to nothing"));
        CHECK(dir.names() == std::vector<std::string>{"dangling.quoct", "link.quoct", "pipe", "t.quoct"});
    }
    SECTION("a saved file keeps the old one's permissions") {
        fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
        quoct::save(tree(uniform_points<double, 3>(20, 44)), path);
        CHECK(fs::status(path).permissions() == (fs::perms::owner_read | fs::perms::owner_write));
    }
    SECTION("a directory that does not exist: nothing is created") {
        CHECK_THROWS_AS(quoct::save(tree(pts), dir / "no/such/dir/t.quoct"), quoct::file_error);
    }
    SECTION("not a quoct file") {
        write_bytes(path, {'l', 'o', 'n', ',', 'l', 'a', 't', '\n', '1', ',', '2', '\n'});
        CHECK_THROWS_WITH(quoct::load<tree>(path), Contains("not a quoct index file"));
        CHECK_THROWS_WITH(quoct::open<tree>(path), Contains("not a quoct index file"));
        write_bytes(path, {});
        CHECK_THROWS_WITH(quoct::open<tree>(path), Contains("not a quoct index file"));
    }
    SECTION("another index type: both are named") {
        CHECK_THROWS_WITH(quoct::load<quoct::octree<float>>(path),
                          Contains("holds orthtree<double, 3, uint32>, asked for orthtree<float, 3, uint32>"));
        CHECK_THROWS_WITH(quoct::open<quoct::quadtree<double>>(path), Contains("asked for orthtree<double, 2, uint32>"));
        CHECK_THROWS_WITH((quoct::load<quoct::octree<double, std::uint64_t>>(path)), Contains("uint64"));
        CHECK_THROWS_WITH(quoct::load<quoct::geo::index<>>(path), Contains("asked for geo::index<uint32>"));
    }
    SECTION("a newer format version") {
        auto bytes = good;
        bytes[8] = 3;
        write_bytes(path, bytes);
        CHECK_THROWS_WITH(quoct::load<tree>(path), Contains("format version 3 is newer than this library reads (2)"));
        CHECK_THROWS_WITH(quoct::open<tree>(path), Contains("format version 3"));
    }
    SECTION("the development layout before the first release (format version 1)") {
        auto bytes = good;
        bytes[8] = 1;
        write_bytes(path, bytes);
        CHECK_THROWS_WITH(quoct::load<tree>(path), Contains("format version 1, a layout of quoct before its first release"));
        CHECK_THROWS_WITH(quoct::open<tree>(path), Contains("build the index again"));
        CHECK_THROWS_WITH(quoct::from_bytes<tree>(bytes.data(), bytes.size()), Contains("format version 1"));
    }
    SECTION("truncated anywhere") {
        for (std::size_t n = 0; n < good.size(); n += 1 + n / 16) {
            INFO("first " << n << " bytes");
            write_bytes(path, std::vector<unsigned char>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n)));
            CHECK_THROWS_AS(quoct::load<tree>(path), quoct::file_error);
            CHECK_THROWS_AS(quoct::open<tree>(path), quoct::file_error);
            CHECK_THROWS_AS(quoct::from_bytes<tree>(good.data(), n), quoct::file_error);
        }
        write_bytes(path, std::vector<unsigned char>(good.begin(), good.end() - 1));
        CHECK_THROWS_WITH(quoct::load<tree>(path), Contains("truncated"));
        auto longer = good;
        longer.push_back(0);
        write_bytes(path, longer);
        CHECK_THROWS_WITH(quoct::load<tree>(path), Contains("the header says"));
    }
    SECTION("a changed coordinate: load names the section, and so does open (a section of one block is checked at once)") {
        const auto info = quoct::read_file_info(path);
        std::uint64_t at = 0;
        for (const auto& s : info.sections)
            if (s.name == "coords") at = s.offset + s.bytes / 2;
        REQUIRE(at != 0);
        auto bytes = good;
        bytes[at] ^= 0x10;
        write_bytes(path, bytes);
        CHECK_THROWS_WITH(quoct::load<tree>(path), Contains("checksum mismatch in section 'coords'"));
        CHECK_THROWS_WITH(quoct::open<tree>(path, quoct::open_options{true}), Contains("section 'coords'"));
        REQUIRE(info.sections.size() > 2);
        CHECK_THROWS_WITH(quoct::open<tree>(path), Contains("section 'coords'"));
        CHECK_NOTHROW(quoct::open<tree>(path, quoct::open_options{false, true}));  // the structure alone
    }
}

// Every single byte changed in turn: load and verified open either refuse with a file_error
// or (a change in padding between sections, which no checksum covers) answer as the saved
// tree; an unverified open refuses, or answers something without leaving the file (the
// sanitizer build checks that). Also the header and table changed to values a forger could
// write with correct checksums: caught by the structure checks.
TEST_CASE("file: packed box and ball indexes saved, loaded and read back answer as the saved one", "[file][objects]") {
    scratch_dir dir;
    rng r(61);
    std::vector<quoct::ball<double, 3>> balls(900);
    std::vector<quoct::box<float, 2>> boxes(700);
    for (auto& b : balls) b = {{{r.uniform(0, 1), r.uniform(0, 1), r.uniform(0, 1)}}, r.uniform(0, 0.05)};
    for (auto& b : boxes) {
        b.lo = {{static_cast<float>(r() % 40), static_cast<float>(r() % 40)}};
        b.hi = {{b.lo[0] + static_cast<float>(r() % 3), b.lo[1] + static_cast<float>(r() % 3)}};
    }
    using ball_index = quoct::packed_ball_index<double, 3>;
    using box_index = quoct::packed_box_index<float, 2, std::uint16_t>;
    const ball_index sb(balls);
    const box_index xb(boxes);
    quoct::save(sb, dir / "balls.quoct");
    quoct::save(xb, dir / "boxes.quoct");
    const auto same_balls = [&](const ball_index& x) {
        REQUIRE(x.size() == sb.size());
        CHECK(x.colliding_pairs() == sb.colliding_pairs());
        for (int q = 0; q < 20; ++q) {
            const quoct::point<double, 3> p{{r.uniform(0, 1), r.uniform(0, 1), r.uniform(0, 1)}};
            CHECK(x.nearest(p, 6) == sb.nearest(p, 6));
            CHECK(sorted(x.query(quoct::ball<double, 3>{p, 0.1})) == sorted(sb.query(quoct::ball<double, 3>{p, 0.1})));
        }
        for (std::uint32_t id = 0; id < balls.size(); id += 50) CHECK(x.shape(id).radius == balls[id].radius);
    };
    same_balls(quoct::load<ball_index>(dir / "balls.quoct"));
    same_balls(quoct::open<ball_index>(dir / "balls.quoct"));
    const auto bytes = quoct::to_bytes(sb);
    same_balls(quoct::from_bytes<ball_index>(bytes.data(), bytes.size()));
    const box_index lb = quoct::load<box_index>(dir / "boxes.quoct");
    CHECK(lb.colliding_pairs(2) == xb.colliding_pairs(2));
    CHECK(sorted(lb.containing(quoct::point<float, 2>{{10, 10}})) == sorted(xb.containing(quoct::point<float, 2>{{10, 10}})));
    CHECK(quoct::load<box_index>(dir / "boxes.quoct").memory_bytes() == xb.memory_bytes());
    // Another kind, another scalar: refused by name.
    using other_box_index = quoct::packed_box_index<double, 3>;
    using wider_box_index = quoct::packed_box_index<double, 2, std::uint16_t>;
    CHECK_THROWS_WITH(quoct::load<other_box_index>(dir / "balls.quoct"), Contains("packed_ball_index"));
    CHECK_THROWS_AS(quoct::load<wider_box_index>(dir / "boxes.quoct"), quoct::file_error);
    // Forged: a repeated id, a negative radius, an inverted box (checksums mended).
    auto forged = bytes;
    reinterpret_cast<std::uint32_t*>(section_bytes(forged, "ids"))[4] = reinterpret_cast<std::uint32_t*>(section_bytes(forged, "ids"))[3];
    mend(forged);
    CHECK_THROWS_WITH(quoct::from_bytes<ball_index>(forged.data(), forged.size()), Contains("once each"));
    forged = bytes;
    reinterpret_cast<quoct::ball<double, 3>*>(section_bytes(forged, "objects"))[9].radius = -1;
    mend(forged);
    CHECK_THROWS_WITH(quoct::from_bytes<ball_index>(forged.data(), forged.size()), Contains("damaged") && Contains("negative"));
    auto box_bytes = quoct::to_bytes(xb);
    auto* b = reinterpret_cast<quoct::box<float, 2>*>(section_bytes(box_bytes, "objects"));
    b[2].lo[0] = b[2].hi[0] + 1;
    mend(box_bytes);
    CHECK_THROWS_WITH(quoct::from_bytes<box_index>(box_bytes.data(), box_bytes.size()), Contains("inverted"));
    // Every byte changed in turn: refused, or read to the same answers.
    const auto small_bytes = quoct::to_bytes(ball_index(std::vector<quoct::ball<double, 3>>(balls.begin(), balls.begin() + 40)));
    const ball_index small(std::vector<quoct::ball<double, 3>>(balls.begin(), balls.begin() + 40));
    std::size_t refused = 0;
    for (std::size_t i = 0; i < small_bytes.size(); ++i) {
        auto changed = small_bytes;
        changed[i] ^= static_cast<unsigned char>(1u << (i % 8));
        try {
            const ball_index x = quoct::from_bytes<ball_index>(changed.data(), changed.size());
            CHECK(x.colliding_pairs() == small.colliding_pairs());
        } catch (const quoct::file_error&) {
            ++refused;
        }
    }
    CHECK(refused > small_bytes.size() * 9 / 10);
}

TEST_CASE("file: every byte changed in turn", "[file]") {
    scratch_dir dir;
    using tree = quoct::quadtree<float>;
    const auto pts = clustered_points<float, 2>(160, 51);
    quoct::build_options o;
    o.leaf_size = 4;
    const tree t(pts, o);
    const auto good = quoct::to_bytes(t);
    auto probes = probes_for(pts, 52);
    probes.erase(probes.begin() + 4, probes.end() - 2);  // 4 points of the set, 2 beyond it
    const auto expected = answers(t, probes, extent(pts) / 10);
    std::size_t refused = 0;
    for (std::size_t i = 0; i < good.size(); ++i) {
        INFO("byte " << i);
        auto bytes = good;
        bytes[i] ^= static_cast<unsigned char>(1u << (i % 8));
        try {
            const tree loaded = quoct::from_bytes<tree>(bytes.data(), bytes.size());
            CHECK(answers(loaded, probes, extent(pts) / 10) == expected);
        } catch (const quoct::file_error&) {
            ++refused;
        }
        write_bytes(dir / "t.quoct", bytes);
        try {  // opened lazily: the blocks a query reads are checked, so never a changed answer
            const tree mapped = quoct::open<tree>(dir / "t.quoct");
            const auto got = answers(mapped, probes, extent(pts) / 10);
            CHECK(got == expected);
        } catch (const quoct::file_error&) {
        }
        try {  // the structure checked at open, not the points: no read outside, any answer
            const tree mapped = quoct::open<tree>(dir / "t.quoct", quoct::open_options{false, true});
            (void)answers(mapped, probes, extent(pts) / 10);
        } catch (const quoct::file_error&) {
        }
    }
    CHECK(refused > good.size() * 9 / 10);
}

TEST_CASE("file: open reads the header and the block checksums, and queries check the blocks they reach", "[file]") {
    scratch_dir dir;
    using tree = quoct::octree<double>;
    // 30,000 points on a 31^3 integer grid and beyond: several 64 KiB blocks a section.
    std::vector<quoct::point<double, 3>> pts;
    for (std::uint32_t i = 0; i < 30000; ++i)
        pts.push_back({{double(i % 31), double(i / 31 % 31), double(i / 961)}});
    const tree t(pts);
    const std::string path = dir / "t.quoct";
    quoct::save(t, path);
    const auto good = read_bytes(path);
    const auto info = quoct::read_file_info(path);
    const auto section_of = [&](const std::string& name) {
        for (const auto& sec : info.sections)
            if (sec.name == name) return sec;
        throw std::logic_error("no section " + name);
    };
    REQUIRE(section_of("coords").bytes > 4 * quoct::detail::file_block);
    REQUIRE(section_of("ids").bytes > quoct::detail::file_block);

    SECTION("damage in the sections is not read by open, and is found by the query that reads it") {
        // The last point's z, in the last block of the coordinates (z of the last 8,080
        // points stored: the far corner's).
        auto bytes = good;
        const auto coords = section_of("coords");
        const std::size_t n = t.size();
        bytes[coords.offset + (2 * n + n - 1) * 8] ^= 0x10;
        write_bytes(path, bytes);
        const tree lazy = quoct::open<tree>(path);  // reads none of it
        CHECK_THROWS_WITH(quoct::open<tree>(path, quoct::open_options{true}), Contains("checksum mismatch in section"));
        // A query near the first stored point reads none of the damaged blocks.
        const quoct::point<double, 3> first = t.stored_point(0);
        const quoct::ball<double, 3> near{first, 2.0};
        CHECK(sorted(lazy.query(near)) == brute_ball(pts, near));
        std::vector<quoct::neighbor<double, std::uint32_t>> a, b;
        lazy.nearest(first, 5, a);
        t.nearest(first, 5, b);
        REQUIRE(a.size() == b.size());
        for (std::size_t k = 0; k < a.size(); ++k) CHECK((a[k].id == b[k].id && a[k].distance_sq == b[k].distance_sq));
        // One that reads the damaged point meets the damage; one that takes it whole by its
        // node, reading its id alone, does not need it.
        const quoct::point<double, 3> far = t.stored_point(n - 1);
        CHECK_THROWS_WITH(lazy.query(quoct::ball<double, 3>{far, 1.5}),
                          Contains(path) && Contains("damaged: checksum mismatch in section 'coords'"));
        CHECK_THROWS_AS(lazy.nearest(far, 3, a), quoct::file_error);
        const quoct::ball<double, 3> all{{{15, 15, 15}}, 100.0};
        CHECK(lazy.count(all) == t.size());
        CHECK_THROWS_AS(lazy.query_with_distances(all), quoct::file_error);
        // Saved again, the damage is found, not given new checksums.
        CHECK_THROWS_WITH(quoct::to_bytes(lazy), Contains("checksum mismatch in section 'coords'"));
        CHECK_THROWS_AS(quoct::save(lazy, dir / "again.quoct"), quoct::file_error);
        // Opened with the structure checked at once, not the points: answered as read.
        const tree structured = quoct::open<tree>(path, quoct::open_options{false, true});
        CHECK(structured.count(all) == t.size());
    }
    SECTION("forged links, checksums mended: every query answers or throws, never reads outside") {
        rng r(17);
        const std::vector<std::string> names = {"nodes", "parents", "node_keys", "ids"};
        std::size_t thrown = 0, tried = 0;
        for (int round = 0; round < 120; ++round) {
            auto bytes = good;
            const auto sec = section_of(names[static_cast<std::size_t>(round) % names.size()]);
            for (int k = 0; k < 3; ++k) bytes[sec.offset + r.below(sec.bytes)] ^= static_cast<unsigned char>(1 + r.below(255));
            mend(bytes);
            write_bytes(path, bytes);
            tree lazy;
            try {  // open checks the blocks of nodes holding the root and the end node
                lazy = quoct::open<tree>(path);
            } catch (const quoct::file_error& e) {
                ++thrown, ++tried;
                CHECK_THAT(e.what(), Contains("damaged"));
                continue;
            }
            for (int q = 0; q < 6; ++q) {
                const quoct::point<double, 3> c = pts[r.below(pts.size())];
                std::vector<quoct::neighbor<double, std::uint32_t>> nn;
                ++tried;
                try {
                    (void)lazy.query(quoct::ball<double, 3>{c, 3.0});
                    (void)lazy.count(quoct::ball<double, 3>{c, 6.0});
                    (void)lazy.query(quoct::box<double, 3>{{{c[0] - 2, c[1] - 2, c[2] - 2}}, {{c[0] + 2, c[1] + 2, c[2] + 2}}});
                    lazy.nearest(c, 1, nn);
                    lazy.nearest(c, 7, nn);
                    for (const auto& x : nn) CHECK(x.id < t.size());
                } catch (const quoct::file_error& e) {
                    ++thrown;
                    CHECK_THAT(e.what(), Contains("damaged"));
                }
            }
        }
        CHECK(thrown > 0);
        CHECK(thrown < tried);
    }
    SECTION("a forged skip and a forged id are named when reached") {
        using node = quoct::detail::orthtree_node<double, 3, std::uint32_t>;
        auto bytes = good;
        auto* nodes = reinterpret_cast<node*>(bytes.data() + section_of("nodes").offset);
        nodes[1].skip = static_cast<std::uint32_t>(t.node_count() + 5);
        mend(bytes);
        write_bytes(path, bytes);
        // (Node 1 is in the first block of nodes, which open reads for the root.)
        CHECK_THROWS_WITH(quoct::open<tree>(path), Contains("node 1 skips out of the tree"));
        {  // a tree of many blocks of nodes, one forged in the middle: found when reached
            quoct::build_options o;
            o.leaf_size = 1;
            const tree fine(pts, o);
            auto many = quoct::to_bytes(fine);
            const auto sec = [&] {
                for (const auto& x : quoct::read_file_info(many.data(), many.size()).sections)
                    if (x.name == "nodes") return x;
                throw std::logic_error("no nodes");
            }();
            REQUIRE(sec.bytes > 8 * quoct::detail::file_block);
            const std::size_t mid = fine.node_count() / 2;
            reinterpret_cast<node*>(many.data() + sec.offset)[mid].skip = static_cast<std::uint32_t>(mid);
            mend(many);
            write_bytes(path, many);
            const tree lazy = quoct::open<tree>(path);
            CHECK_THROWS_WITH(lazy.node_at(mid), Contains("node " + std::to_string(mid) + " skips out of the tree"));
            const quoct::ball<double, 3> near{fine.stored_point(0), 1.0};
            CHECK(sorted(lazy.query(near)) == brute_ball(pts, near));
        }
        // Every recorded parent a grandparent: each still holds its "child", but a nearest
        // search going up would search the same subtrees again at every level.
        bytes = good;
        auto* parents = reinterpret_cast<std::uint32_t*>(bytes.data() + section_of("parents").offset);
        const std::vector<std::uint32_t> was(parents, parents + t.node_count());
        for (std::size_t i = 0; i < t.node_count(); ++i) parents[i] = was[was[i]];
        mend(bytes);
        write_bytes(path, bytes);
        const tree skipped = quoct::open<tree>(path);
        std::vector<quoct::neighbor<double, std::uint32_t>> out;
        CHECK_THROWS_WITH(skipped.nearest(t.stored_point(100), 5, out), Contains("is not a child of the node recorded as its parent"));
        bytes = good;
        auto* ids = reinterpret_cast<std::uint32_t*>(bytes.data() + section_of("ids").offset);
        ids[0] = static_cast<std::uint32_t>(t.size());
        mend(bytes);
        write_bytes(path, bytes);
        const tree forged = quoct::open<tree>(path);
        CHECK_THROWS_WITH(forged.query(quoct::ball<double, 3>{t.stored_point(0), 1.0}),
                          Contains("the id of point 0 is not below 30000"));
        CHECK_THROWS_AS(forged.stored_ids(), quoct::file_error);
        // Two points with one id, each block right: found where every id must come once.
        bytes = good;
        ids = reinterpret_cast<std::uint32_t*>(bytes.data() + section_of("ids").offset);
        ids[1] = ids[0];
        mend(bytes);
        write_bytes(path, bytes);
        const tree twice = quoct::open<tree>(path);
        CHECK_THROWS_WITH(twice.stored_ids(), Contains("not a permutation"));
        CHECK_THROWS_WITH(twice.point(5), Contains("not a permutation"));
        CHECK_THROWS_WITH(quoct::neighbor_lists(twice, 1.0), Contains("not a permutation"));
        CHECK_THROWS_WITH(quoct::pairs_within(twice, 1.0), Contains("not a permutation"));
    }
}

TEST_CASE("file: the geographic index", "[file][geo]") {
    scratch_dir dir;
    const auto& cities = cities_lon_lat();
    const quoct::geo::index<> g(cities);
    const std::string path = dir / "cities.quoct";
    quoct::save(g, path);
    const auto loaded = quoct::load<quoct::geo::index<>>(path);
    const auto mapped = quoct::open<quoct::geo::index<>>(path);
    const std::vector<std::array<double, 2>> centres{{2.35, 48.86}, {180, 0}, {-180, -90}, {0, 90}, {139.69, 35.69}, {-179.9, 65.0}};
    for (const auto* other : {&loaded, &mapped}) {
        REQUIRE(other->size() == g.size());
        for (const auto& c : centres) {
            INFO(c[0] << ", " << c[1]);
            CHECK(sorted(other->within(c[0], c[1], 300e3)) == sorted(g.within(c[0], c[1], 300e3)));
            CHECK(other->count_within(c[0], c[1], 50e3) == g.count_within(c[0], c[1], 50e3));
            // 15 degrees wide from 5 west of the centre, across the antimeridian where it must.
            const double west = c[0] - 5 < -180 ? c[0] + 355 : c[0] - 5;
            const double east = c[0] + 10 > 180 ? c[0] - 350 : c[0] + 10;
            CHECK(sorted(other->in_box(west, -10, east, 60)) == sorted(g.in_box(west, -10, east, 60)));
            const auto a = other->nearest(c[0], c[1], 7), b = g.nearest(c[0], c[1], 7);
            REQUIRE(a.size() == b.size());
            for (std::size_t i = 0; i < a.size(); ++i) CHECK((a[i].id == b[i].id && a[i].distance == b[i].distance));
        }
        for (std::size_t id = 0; id < g.size(); id += 997)
            CHECK((other->point(static_cast<std::uint32_t>(id)).lon == cities[id][0] && other->point(static_cast<std::uint32_t>(id)).lat == cities[id][1]));
    }
    CHECK_THROWS_WITH(quoct::load<quoct::octree<double>>(path), Contains("holds geo::index<uint32>"));
}

TEST_CASE("file: periodic indexes", "[file][periodic]") {
    scratch_dir dir;
    quoct::periodic_domain<double, 3> domain;
    domain.length = {10.0, 10.0, 0.0};
    rng r(61);
    points<double, 3> pts;
    for (int i = 0; i < 4000; ++i) pts.push_back({{r.uniform(0, 10), r.uniform(0, 10), r.uniform(-5, 5)}});
    const quoct::periodic_orthtree<double, 3> p(domain, pts);
    quoct::save(p, dir / "p.quoct");
    for (const auto& other : {quoct::load<quoct::periodic_orthtree<double, 3>>(dir / "p.quoct"),
                              quoct::open<quoct::periodic_orthtree<double, 3>>(dir / "p.quoct")}) {
        CHECK(other.domain().length == domain.length);
        for (int i = 0; i < 20; ++i) {
            const quoct::ball<double, 3> s{pts[r.below(pts.size())], 1.5};
            CHECK(sorted(other.query(s)) == sorted(p.query(s)));
            std::vector<quoct::neighbor<double, std::uint32_t>> a, b;
            other.nearest(s.center, 5, a);
            p.nearest(s.center, 5, b);
            REQUIRE(a.size() == b.size());
            for (std::size_t k = 0; k < a.size(); ++k) CHECK((a[k].id == b[k].id && a[k].distance_sq == b[k].distance_sq));
        }
    }
    using dyn = quoct::periodic_index<quoct::dynamic_orthtree<double, 3>>;
    dyn d(domain, pts);
    d.erase(3);
    quoct::save(d, dir / "d.quoct");
    const quoct::ball<double, 3> s{pts[4], 2.0};
    for (const dyn& back : {quoct::load<dyn>(dir / "d.quoct"), quoct::open<dyn>(dir / "d.quoct")}) {
        CHECK(sorted(back.query(s)) == sorted(d.query(s)));
        CHECK(back.size() == d.size());
    }
    // A dynamic index is never mapped: open() loads it, checksums verified.
    auto bytes = read_bytes(dir / "d.quoct");
    for (const auto& sec : quoct::read_file_info(dir / "d.quoct").sections)
        if (sec.name == "base.snap.tree.coords") bytes[sec.offset + sec.bytes / 2] ^= 1;
    write_bytes(dir / "d.quoct", bytes);
    CHECK_THROWS_WITH(quoct::open<dyn>(dir / "d.quoct"), Contains("checksum mismatch"));
}

TEMPLATE_LIST_TEST_CASE("file: a loaded dynamic index goes on with the same ids", "[file][dynamic]", all_configs) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    using index = quoct::dynamic_orthtree<T, D>;
    scratch_dir dir;
    quoct::dynamic_options opt;
    opt.tail_limit = 16;  // side trees and a tail after a few hundred changes
    const auto pts = uniform_points<T, D>(2000, 71);
    index x(pts, opt);
    rng r(72);
    for (int step = 0; step < 700; ++step) {
        const auto p = uniform_points<T, D>(1, 1000 + static_cast<std::uint64_t>(step))[0];
        const std::size_t op = r.below(3);
        const auto id = static_cast<std::uint32_t>(r.below(x.id_bound()));
        if (op == 0) x.insert(p);
        else if (op == 1) x.erase(id);
        else if (x.contains(id)) x.move(id, p);
    }
    REQUIRE(x.side_trees() > 0);
    quoct::save(x, dir / "x.quoct");
    index y = quoct::load<index>(dir / "x.quoct");
    CHECK(y.size() == x.size());
    CHECK(y.id_bound() == x.id_bound());
    CHECK(y.side_trees() == x.side_trees());
    const auto compare = [&] {
        for (int i = 0; i < 10; ++i) {
            const quoct::ball<T, D> s{pts[r.below(pts.size())], T(30)};
            CHECK(sorted(y.query(s)) == sorted(x.query(s)));
            CHECK(y.count(s) == x.count(s));
            std::vector<quoct::neighbor<T, std::uint32_t>> a, b;
            y.nearest(s.center, 8, a);
            x.nearest(s.center, 8, b);
            REQUIRE(a.size() == b.size());
            for (std::size_t k = 0; k < a.size(); ++k) CHECK((a[k].id == b[k].id && a[k].distance_sq == b[k].distance_sq));
        }
    };
    compare();
    // The same changes on both: the same new ids and the same answers.
    for (int step = 0; step < 300; ++step) {
        const auto p = uniform_points<T, D>(1, 5000 + static_cast<std::uint64_t>(step))[0];
        CHECK(y.insert(p) == x.insert(p));
        const auto id = static_cast<std::uint32_t>(r.below(x.id_bound()));
        CHECK(y.erase(id) == x.erase(id));
    }
    compare();
    CHECK_THROWS_WITH((quoct::load<quoct::orthtree<T, D>>(dir / "x.quoct")), Contains("holds dynamic_orthtree<"));
}

TEMPLATE_LIST_TEST_CASE("file: a growing map's dynamic index (scans inserted whole) saves and loads", "[file][dynamic]",
                        all_configs) {
    // Scans only: every fold and rebuild joins parts whose ids follow one another (the
    // newest level first in the index, the oldest ids last), which must still reach each
    // tree in increasing id order, as the file's checks require on load.
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    using index = quoct::dynamic_orthtree<T, D>;
    scratch_dir dir;
    quoct::dynamic_options opt;
    opt.tail_limit = 16;
    index x(opt);  // made empty: its snapshot is a tree never built, saved and loaded as one
    quoct::save(x, dir / "empty.quoct");
    CHECK(quoct::load<index>(dir / "empty.quoct").empty());
    quoct::save(quoct::orthtree<T, D>(), dir / "empty_tree.quoct");
    CHECK(quoct::load<quoct::orthtree<T, D>>(dir / "empty_tree.quoct").empty());
    std::size_t most_side_trees = 0;
    std::uint64_t seed = 300;
    for (const std::size_t n : {40, 3, 100, 17, 250, 64, 500, 1, 90, 33, 5, 700, 20, 8, 300}) {
        const std::uint32_t first = x.insert_all(uniform_points<T, D>(n, seed++));
        // A small scan stays in the tail: erasing its first point puts the tail out of id
        // order (the last entry takes its place) for the next fold to sort.
        if (n > 1 && n <= 16) x.erase(first);
        most_side_trees = std::max(most_side_trees, x.side_trees());
        quoct::save(x, dir / "g.quoct");
        const index y = quoct::load<index>(dir / "g.quoct");
        REQUIRE(y.size() == x.size());
        CHECK(y.side_trees() == x.side_trees());
        rng r(seed);
        for (int i = 0; i < 5; ++i) {
            const auto c = uniform_points<T, D>(1, seed * 7 + static_cast<std::uint64_t>(i))[0];
            const quoct::ball<T, D> s{c, T(100)};
            CHECK(sorted(y.query(s)) == sorted(x.query(s)));
            std::vector<quoct::neighbor<T, std::uint32_t>> a, b;
            y.nearest(c, 6, a);
            x.nearest(c, 6, b);
            REQUIRE(a.size() == b.size());
            for (std::size_t k = 0; k < a.size(); ++k) CHECK((a[k].id == b[k].id && a[k].distance_sq == b[k].distance_sq));
        }
    }
    CHECK(most_side_trees >= 2);
}

TEMPLATE_LIST_TEST_CASE("file: a dynamic index whose trees dropped erased points saves and loads", "[file][dynamic]", all_configs) {
    // Box erasures compact the trees (their nodes made anew without the erased points): the
    // file's checks (every tree validated whole on load) pass, and the loaded index answers
    // as the saved one, the nearest index on and off.
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    using index = quoct::dynamic_orthtree<T, D>;
    scratch_dir dir;
    for (const bool nearest_index : {false, true}) {
        quoct::dynamic_options opt;
        opt.tail_limit = 16;
        opt.tree.nearest_index = nearest_index;
        const auto pts = uniform_points<T, D>(3000, 91);
        index x(pts, opt);
        for (int i = 0; i < 50; ++i) x.insert(uniform_points<T, D>(1, 2000 + static_cast<std::uint64_t>(i))[0]);
        const std::size_t sides = x.side_trees();
        quoct::box<T, D> b;
        for (std::size_t a = 0; a < D; ++a) b.lo[a] = T(0), b.hi[a] = T(300);
        const std::size_t erased = x.erase_in(b);
        REQUIRE(erased * 16 > x.size() + erased);  // past rebuild_fraction 1/16: compacted
        CHECK(x.side_trees() == sides);  // compacted, not rebuilt
        quoct::save(x, dir / "c.quoct");
        const index y = quoct::load<index>(dir / "c.quoct");
        REQUIRE(y.size() == x.size());
        rng r(93);
        for (int i = 0; i < 20; ++i) {
            const quoct::ball<T, D> s{pts[r.below(pts.size())], T(60)};
            CHECK(sorted(y.query(s)) == sorted(x.query(s)));
            std::vector<quoct::neighbor<T, std::uint32_t>> u, v;
            y.nearest(s.center, 6, u);
            x.nearest(s.center, 6, v);
            REQUIRE(u.size() == v.size());
            for (std::size_t k = 0; k < u.size(); ++k) CHECK((u[k].id == v[k].id && u[k].distance_sq == v[k].distance_sq));
        }
    }
}

TEMPLATE_LIST_TEST_CASE("file: a dynamic index that forgot its old erased ids saves and loads", "[file][dynamic]",
                        all_configs) {
    // A window swept along axis 0 erases its oldest ids whole, and the index drops their
    // bookkeeping: the file still has an entry for every id handed out (the dropped ones
    // erased), and the loaded index answers, and goes on, as the saved one.
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    using index = quoct::dynamic_orthtree<T, D>;
    scratch_dir dir;
    quoct::dynamic_options opt;
    opt.tail_limit = 16;
    index x(opt);
    for (int scan = 0; scan < 60; ++scan) {
        auto pts = uniform_points<T, D>(200, 300 + static_cast<std::uint64_t>(scan));
        for (auto& p : pts) p[0] = static_cast<T>(scan) + p[0] / T(1000);
        x.insert_all(pts);
        quoct::box<T, D> keep;
        for (std::size_t a = 0; a < D; ++a) keep.lo[a] = T(-101), keep.hi[a] = T(101);
        keep.lo[0] = static_cast<T>(scan - 1), keep.hi[0] = static_cast<T>(scan + 1);
        x.erase_outside(keep);
    }
    REQUIRE(x.memory_bytes() < x.id_bound() * (1 + sizeof(std::uint32_t)));  // the old ids' bookkeeping dropped
    quoct::save(x, dir / "w.quoct");
    index y = quoct::load<index>(dir / "w.quoct");
    CHECK(y.size() == x.size());
    CHECK(y.id_bound() == x.id_bound());
    CHECK(y.memory_bytes() < y.id_bound() * (1 + sizeof(std::uint32_t)));
    for (std::uint32_t id = 0; id < x.id_bound(); ++id) REQUIRE(y.contains(id) == x.contains(id));
    rng r(301);
    for (int i = 0; i < 20; ++i) {
        quoct::point<T, D> c{};
        c[0] = static_cast<T>(58 + r.below(2));
        for (std::size_t a = 1; a < D; ++a) c[a] = static_cast<T>(r.below(200)) - T(100);
        const quoct::ball<T, D> s{c, T(60)};
        CHECK(sorted(y.query(s)) == sorted(x.query(s)));
        std::vector<quoct::neighbor<T, std::uint32_t>> u, v;
        y.nearest(c, 6, u);
        x.nearest(c, 6, v);
        REQUIRE(u.size() == v.size());
        for (std::size_t k = 0; k < u.size(); ++k) CHECK((u[k].id == v[k].id && u[k].distance_sq == v[k].distance_sq));
    }
    CHECK(y.insert(quoct::point<T, D>{}) == x.insert(quoct::point<T, D>{}));
}

}  // namespace test_file
