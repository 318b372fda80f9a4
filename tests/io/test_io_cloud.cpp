// quoct::io point clouds (XYZ, PLY ASCII and binary little-endian) and the CSV column
// reader: files written here, read back and compared with what was written; the errors
// name the file and the line or element.
#include <catch2/catch.hpp>

#include "test_io_support.hpp"

#include <quoct/build_file.hpp>
#include <quoct/io/cloud.hpp>
#include <quoct/io/csv.hpp>
#include <quoct/quoct.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iterator>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace test_io_cloud {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

namespace fs = std::filesystem;
using quoct::io::parse_error;

// A file in the temporary directory, removed when it goes out of scope.
class temp_file {
public:
    temp_file(const std::string& contents, const std::string& ext) {
        std::random_device rd;
        path_ = fs::temp_directory_path() / ("quoct_test_cloud_" + std::to_string(rd()) + "_" + std::to_string(rd()) + ext);
        std::ofstream out(path_, std::ios::binary);
        out << contents;
    }
    temp_file(const temp_file&) = delete;
    temp_file& operator=(const temp_file&) = delete;
    ~temp_file() {
        std::error_code ec;
        fs::remove(path_, ec);
    }
    std::string path() const { return path_.string(); }

private:
    fs::path path_;
};

// Random points with a few extra values each, from a fixed seed; coordinates of every
// magnitude, written so that they read back exactly.
struct sample {
    std::vector<double> xyz;
    std::vector<double> extra;  // 2 per point
};

sample make_sample(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 r(seed);
    sample s;
    for (std::size_t i = 0; i < n; ++i) {
        for (int a = 0; a < 3; ++a)
            s.xyz.push_back(std::ldexp(static_cast<double>(r() >> 11) * 0x1.0p-53 - 0.5, static_cast<int>(r() % 40) - 20));
        s.extra.push_back(static_cast<double>(r() % 256));
        s.extra.push_back(static_cast<double>(static_cast<float>(static_cast<double>(r() >> 40) / 7.0)));
    }
    return s;
}

std::string g17(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

template <class V>
void put(std::string& out, V v) {
    unsigned char b[sizeof(V)];
    std::memcpy(b, &v, sizeof v);
    // Written little-endian whatever the host.
    const std::uint16_t probe = 1;
    const bool little = *reinterpret_cast<const unsigned char*>(&probe) == 1;
    for (std::size_t i = 0; i < sizeof v; ++i) out += static_cast<char>(b[little ? i : sizeof v - 1 - i]);
}

using quoct_test::failure;

}  // namespace

namespace {

// A PLY of the sample's points: a camera element before the vertices, a list property among
// the vertex's, and faces after (all read past); the coordinates it holds into want_xyz.
std::string ply_text(const sample& s, bool binary, bool doubles, std::vector<double>& want_xyz) {
    const std::size_t n = s.xyz.size() / 3;
    std::string text = std::string("ply\nformat ") + (binary ? "binary_little_endian" : "ascii") +
                       " 1.0\ncomment written by quoct's tests\nelement camera 1\nproperty float view\n"
                       "property list uchar int tags\nelement vertex " + std::to_string(n) + "\n";
    const char* coord = doubles ? "double" : "float";
    text += std::string("property ") + coord + " x\nproperty uchar red\nproperty " + coord + " y\n" +
            "property list uchar int neighbours\nproperty " + coord + " z\nproperty float quality\n"
            "element face 1\nproperty list uchar int vertex_indices\nend_header\n";
    want_xyz.clear();
    for (double v : s.xyz) want_xyz.push_back(doubles ? v : static_cast<double>(static_cast<float>(v)));
    if (binary) {
        put(text, 0.5f);
        put(text, std::uint8_t{2});
        put(text, std::int32_t{7});
        put(text, std::int32_t{8});
        for (std::size_t i = 0; i < n; ++i) {
            const auto coordinate = [&](double v) {
                if (doubles) put(text, v);
                else put(text, static_cast<float>(v));
            };
            coordinate(s.xyz[3 * i]);
            put(text, static_cast<std::uint8_t>(s.extra[2 * i]));
            coordinate(s.xyz[3 * i + 1]);
            put(text, static_cast<std::uint8_t>(i % 3));
            for (std::size_t k = 0; k < i % 3; ++k) put(text, static_cast<std::int32_t>(k));
            coordinate(s.xyz[3 * i + 2]);
            put(text, static_cast<float>(s.extra[2 * i + 1]));
        }
        put(text, std::uint8_t{3});
        for (std::int32_t k = 0; k < 3; ++k) put(text, k);
    } else {
        text += "0.5 2 7 8\n";
        for (std::size_t i = 0; i < n; ++i) {
            text += g17(want_xyz[3 * i]) + " " + g17(s.extra[2 * i]) + " " + g17(want_xyz[3 * i + 1]) + " " +
                    std::to_string(i % 3);
            for (std::size_t k = 0; k < i % 3; ++k) text += " " + std::to_string(k);
            text += " " + g17(want_xyz[3 * i + 2]) + " " + g17(s.extra[2 * i + 1]) + "\n";
        }
        text += "3 0 1 2\n";
    }
    return text;
}

// An XYZ of the sample's points: comments, blank lines, commas, tabs and CRLF.
std::string xyz_text(const sample& s) {
    std::string text = "# a scanner's export\n\n";
    for (std::size_t i = 0; i < s.xyz.size() / 3; ++i) {
        const char* sep = i % 3 == 0 ? "," : i % 3 == 1 ? " \t" : " ";
        text += g17(s.xyz[3 * i]) + sep + g17(s.xyz[3 * i + 1]) + sep + g17(s.xyz[3 * i + 2]) + sep +
                g17(s.extra[2 * i]) + sep + g17(s.extra[2 * i + 1]) + (i % 2 ? "\r\n" : "\n");
        if (i == 100) text += "\n# halfway\n";
    }
    return text;
}

}  // namespace

TEST_CASE("xyz: points and extra columns read back exactly, comments, blank lines, commas", "[io][cloud]") {
    const sample s = make_sample(500, 1);
    const std::string text = xyz_text(s);
    const temp_file file(text, ".xyz");
    const quoct::io::point_cloud c = quoct::io::read_xyz(file.path());
    CHECK(c.source == file.path());
    CHECK(c.xyz == s.xyz);
    CHECK(c.properties == s.extra);
    CHECK(c.property_names == std::vector<std::string>{"column4", "column5"});
    REQUIRE(c.size() == 500);
    const quoct::octree<double> tree(c.xyz.data(), c.size());
    CHECK(tree.point(7) == c.points()[7]);
}

TEST_CASE("xyz: errors name the file and line", "[io][cloud]") {
    const auto read = [](const std::string& text) {
        std::istringstream in(text);
        return quoct::io::read_xyz(in, "cloud.xyz");
    };
    CHECK(failure([&] { read("1 2 3\n4 5 x\n"); }) == "cloud.xyz:2: column 3: 'x' is not a finite number");
    CHECK(failure([&] { read("# c\n1 2\n"); }) == "cloud.xyz:2: expected at least 3 numbers (x y z), found 2");
    CHECK(failure([&] { read("1 2 3 4\n1 2 3\n"); }) ==
          "cloud.xyz:2: expected 4 numbers as on the first point line, found 3");
    CHECK(failure([&] { read("1 2 3\n1 nan 3\n"); }) == "cloud.xyz:2: column 2: 'nan' is not a finite number");
    CHECK(failure([&] { read("# nothing\n\n"); }) == "cloud.xyz: no points (expected lines of 'x y z')");
    CHECK(failure([] { quoct::io::read_xyz("/nonexistent/quoct.xyz"); }).rfind("/nonexistent/quoct.xyz: cannot open", 0) == 0);
}

TEST_CASE("ply: ASCII and binary little-endian read back the vertices and their properties", "[io][cloud]") {
    const sample s = make_sample(300, 2);
    for (bool binary : {false, true}) {
        for (bool doubles : {false, true}) {
            INFO((binary ? "binary" : "ascii") << (doubles ? ", double" : ", float"));
            std::vector<double> want_xyz;
            const temp_file file(ply_text(s, binary, doubles, want_xyz), ".ply");
            const quoct::io::point_cloud c = quoct::io::read_ply(file.path());
            CHECK(c.xyz == want_xyz);
            CHECK(c.property_names == std::vector<std::string>{"red", "quality"});
            CHECK(c.properties == s.extra);
        }
    }
}

TEST_CASE("ply: errors name the file and the header line, data line or element", "[io][cloud]") {
    const auto read = [](const std::string& text) {
        std::istringstream in(text);
        return quoct::io::read_ply(in, "cloud.ply");
    };
    const std::string head = "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\n"
                             "property float z\nend_header\n";
    CHECK(read(head + "1 2 3\n4 5 6\n").xyz == std::vector<double>{1, 2, 3, 4, 5, 6});
    CHECK(failure([&] { read("plx\n"); }) == "cloud.ply:1: not a PLY file (the first line is not 'ply')");
    CHECK(failure([&] { read("ply\nformat binary_big_endian 1.0\nend_header\n"); }) ==
          "cloud.ply:2: big-endian PLY is not supported; convert it to little-endian or ASCII");
    CHECK(failure([&] { read("ply\nformat ascii 1.0\nelement vertex 1\nproperty quad x\nend_header\n"); }) ==
          "cloud.ply:4: unknown PLY property type 'quad'");
    CHECK(failure([&] { read("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nend_header\n"); }) ==
          "cloud.ply:6: the PLY vertex element has no scalar property 'z'");
    CHECK(failure([&] { read("ply\nformat ascii 1.0\nelement face 1\nend_header\n"); }) ==
          "cloud.ply:4: the PLY header has no 'vertex' element");
    CHECK(failure([&] { read("ply\nformat ascii 1.0\nelement vertex 1e30\nend_header\n"); }) ==
          "cloud.ply:3: element count '1e30' is beyond 2^64");
    CHECK(failure([&] { read(head + "1 2 3\n4 five 6\n"); }) ==
          "cloud.ply:9: vertex 1: property 'y': 'five' is not a finite number");
    CHECK(failure([&] { read(head + "1 2 3\n4 5\n"); }) == "cloud.ply:9: vertex 1: too few values");
    CHECK(failure([&] { read(head + "1 2 3\n"); }) == "cloud.ply: vertex 1: the file ends early (the header promises 2)");

    std::string bin = "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty double x\nproperty double y\n"
                      "property double z\nend_header\n";
    for (double v : {1.0, 2.0, 3.0, 4.0, std::numeric_limits<double>::quiet_NaN(), 6.0}) put(bin, v);
    CHECK(failure([&] { read(bin); }) == "cloud.ply: vertex 1: property 'y' is not a finite number");
    bin.resize(bin.size() - 6 * 8);
    for (double v : {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0}) put(bin, v);
    CHECK(failure([&] { read(bin); }) == "cloud.ply: vertex 2: the file ends early (the header promises 3)");
}

TEST_CASE("csv: read_columns gives read_points' numbers flat, with the same errors", "[io]") {
    const std::string bunny = std::string(QUOCT_DATA_DIR) + "/bunny.csv";
    const auto table = quoct::io::read_csv(bunny);
    const auto want = quoct::io::read_points<3>(table, {"x", "y", "z"});
    const std::vector<double> flat = quoct::io::read_columns(bunny, {"x", "y", "z"});
    REQUIRE(flat.size() == 3 * want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
        for (std::size_t a = 0; a < 3; ++a) REQUIRE(flat[3 * i + a] == want[i][a]);
    CHECK(quoct::io::read_points<3>(bunny, {"x", "y", "z"}) == want);
    const quoct::octree<double> tree(flat.data(), flat.size() / 3);
    CHECK(tree.size() == want.size());

    const auto columns = [](const std::string& text, std::vector<std::string> names) {
        std::istringstream in(text);
        return quoct::io::read_columns(in, "t.csv", names);
    };
    CHECK(columns("a,b,c\n1,2,3\n4,5,6\n", {"c", "a"}) == std::vector<double>{3, 1, 6, 4});
    CHECK(columns("a,b\n", {"b"}).empty());
    CHECK(failure([&] { columns("a,b\n", {"q"}); }) == "t.csv: no column 'q'; the columns are 'a', 'b'");
    CHECK(failure([&] { columns("a,b\n1,2\n3,x\n", {"b"}); }) == "t.csv:3: column 'b': 'x' is not a number");
    CHECK(failure([&] { columns("a,b\n1,2\n3\n", {"a"}); }) == "t.csv:3: expected 2 fields as in the header, found 1");
}

TEST_CASE("xyz and ply: read in chunks of any size, through pieces of any size, as read whole", "[io][cloud]") {
    const sample s = make_sample(400, 3);
    const auto chunked = [](auto make, std::size_t piece, std::size_t max) {
        auto reader = make(piece);
        quoct::io::point_cloud all, chunk;
        std::size_t k;
        while ((k = reader.read(chunk, max)) != 0) {
            CHECK(k <= std::max<std::size_t>(max, 1));
            CHECK(chunk.size() == k);
            all.xyz.insert(all.xyz.end(), chunk.xyz.begin(), chunk.xyz.end());
            all.properties.insert(all.properties.end(), chunk.properties.begin(), chunk.properties.end());
            all.property_names = chunk.property_names;
        }
        CHECK(reader.read(chunk, max) == 0);
        CHECK(reader.points_read() == all.size());
        return all;
    };
    for (const std::size_t piece : {std::size_t{16}, std::size_t{61}, std::size_t{1} << 20})
        for (const std::size_t max : {std::size_t{0}, std::size_t{7}, std::size_t{100000}}) {
            CAPTURE(piece, max);
            const std::string xyz = xyz_text(s);
            std::istringstream in(xyz);
            const quoct::io::point_cloud x = chunked([&](std::size_t p) { return quoct::io::xyz_reader(in, "c.xyz", p); }, piece, max);
            CHECK(x.xyz == s.xyz);
            CHECK(x.properties == s.extra);
            CHECK(x.property_names == std::vector<std::string>{"column4", "column5"});
            for (bool binary : {false, true}) {
                std::vector<double> want;
                const temp_file file(ply_text(s, binary, true, want), ".ply");
                const quoct::io::point_cloud c = chunked([&](std::size_t p) { return quoct::io::ply_reader(file.path(), p); }, piece, max);
                CHECK(c.xyz == want);
                CHECK(c.properties == s.extra);
                CHECK(c.property_names == std::vector<std::string>{"red", "quality"});
                CHECK(quoct::io::ply_reader(file.path(), piece).point_count() == 400);
            }
        }
    // Errors as read whole, from pieces smaller than a line.
    std::istringstream bad("1 2 3\n" + std::string(100, ' ') + "4 5 x\n");
    quoct::io::xyz_reader r(bad, "cloud.xyz", 16);
    quoct::io::point_cloud chunk;
    CHECK(r.read(chunk, 1) == 1);
    CHECK(failure([&] { r.read(chunk, 1); }) == "cloud.xyz:2: column 3: 'x' is not a finite number");
    std::istringstream cut("ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty double x\n"
                           "property double y\nproperty double z\nend_header\n" + std::string(30, '\0'));
    CHECK(failure([&] { quoct::io::ply_reader(cut, "cloud.ply", 16).read(chunk, 5); }) ==
          "cloud.ply: vertex 1: the file ends early (the header promises 2)");
}

TEST_CASE("xyz and ply: a stream read before, an element of no bytes, a line with no end", "[io][cloud]") {
    // A stream at its end from an earlier reading, given new text: read from where it is.
    std::istringstream in("1 2 3\n");
    CHECK(quoct::io::read_xyz(in, "a").size() == 1);
    in.str("4 5 6\n7 8 9\n");
    CHECK(quoct::io::read_xyz(in, "b").xyz == std::vector<double>{4, 5, 6, 7, 8, 9});
    // An element of no property before the vertices takes no byte however many it counts.
    std::string bin = "ply\nformat binary_little_endian 1.0\nelement pad 10000000000000000000\nelement vertex 1\n"
                      "property uchar x\nproperty uchar y\nproperty uchar z\nend_header\n";
    bin += std::string("\1\2\3", 3);
    std::istringstream pad(bin);
    CHECK(quoct::io::read_ply(pad, "pad.ply").xyz == std::vector<double>{1, 2, 3});
    // A first line with no end is refused within 4 KiB, not read whole.
    std::istringstream junk(std::string(1 << 20, 'x'));
    CHECK(failure([&] { quoct::io::read_ply(junk, "junk.ply"); }) ==
          "junk.ply:1: not a PLY file: the first line is longer than 4096 bytes");
}

TEST_CASE("xyz and ply: indexed out of core, the file of the tree built in memory", "[io][cloud][build_file]") {
    const sample s = make_sample(9000, 4);  // more points than a part of the smallest budget
    const auto built = [](auto& in) {
        const temp_file out("", ".quoct");
        quoct::build_file_options o;
        o.memory_limit = 0;  // the smallest
        quoct::build_file<quoct::octree<double>>(in, out.path(), o);
        std::ifstream f(out.path(), std::ios::binary);
        return std::vector<unsigned char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    };
    const temp_file xyz(xyz_text(s), ".xyz");
    quoct::io::xyz_points xin(xyz.path());
    CHECK(built(xin) == quoct::to_bytes(quoct::octree<double>(s.xyz.data(), s.xyz.size() / 3)));
    for (bool binary : {false, true}) {
        std::vector<double> want;
        const temp_file ply(ply_text(s, binary, false, want), ".ply");
        quoct::io::ply_points pin(ply.path());
        CHECK(built(pin) == quoct::to_bytes(quoct::octree<double>(want.data(), want.size() / 3)));
    }
    // A bad line stops the build by name; the target is not made.
    const temp_file bad("1 2 3\n4 5 x\n", ".xyz");
    quoct::io::xyz_points bin(bad.path());
    const std::string target = bad.path() + ".quoct";
    quoct::build_file_options o;
    CHECK_THROWS_WITH(quoct::build_file<quoct::octree<double>>(bin, target, o),
                      Catch::Matchers::Contains(bad.path() + ":2"));
    CHECK(!fs::exists(target));
}

}  // namespace test_io_cloud
