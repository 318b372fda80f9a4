// `quoct boxes`: every pair of boxes that meet, the boxes holding a point and the boxes
// meeting a box, from a CSV file or standard input, 2D and 3D, against brute force over
// integer boxes (shared faces and corners, degenerate boxes, duplicates); bad input refused
// by name.
#include <catch2/catch.hpp>

#include "test_cli_support.hpp"

#include <cstddef>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace test_cli_boxes {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

using Catch::Matchers::Contains;

struct boxes {
    std::size_t dims;
    std::vector<std::vector<int>> lo, hi;
};

boxes make(std::size_t n, std::size_t dims, unsigned seed) {
    std::mt19937 rng(seed);
    boxes b{dims, {}, {}};
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<int> l(dims), h(dims);
        for (std::size_t a = 0; a < dims; ++a) {
            l[a] = static_cast<int>(rng() % 30);
            h[a] = l[a] + static_cast<int>(rng() % 4);
        }
        b.lo.push_back(l);
        b.hi.push_back(h);
    }
    return b;
}

std::string csv(const boxes& b) {
    std::string s = b.dims == 2 ? "name,minx,miny,maxx,maxy\n" : "minx,miny,minz,maxx,maxy,maxz,name\n";
    for (std::size_t i = 0; i < b.lo.size(); ++i) {
        if (b.dims == 2) s += "b" + std::to_string(i) + ",";
        for (const auto* c : {&b.lo[i], &b.hi[i]})
            for (std::size_t a = 0; a < b.dims; ++a) s += std::to_string((*c)[a]) + ",";
        if (b.dims == 2) s.pop_back();
        else s += "\"b" + std::to_string(i) + "\"";
        s += "\n";
    }
    return s;
}

bool meet(const boxes& b, std::size_t i, const std::vector<int>& lo, const std::vector<int>& hi) {
    for (std::size_t a = 0; a < b.dims; ++a)
        if (b.hi[i][a] < lo[a] || hi[a] < b.lo[i][a]) return false;
    return true;
}

std::string written(const std::string& text, const std::string& name) {
    const std::string path = quoct_test::temp_path(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

}  // namespace

TEST_CASE("cli boxes: pairs, points and boxes equal brute force, from a file and from stdin", "[cli]") {
    for (const std::size_t dims : {std::size_t{2}, std::size_t{3}}) {
        CAPTURE(dims);
        const boxes b = make(400, dims, static_cast<unsigned>(dims));
        const std::string path = written(csv(b), "boxes" + std::to_string(dims) + ".csv");
        std::string want = "a,b\n";
        for (std::size_t i = 0; i < b.lo.size(); ++i)
            for (std::size_t j = i + 1; j < b.lo.size(); ++j)
                if (meet(b, j, b.lo[i], b.hi[i])) want += std::to_string(i) + "," + std::to_string(j) + "\n";
        const auto pairs = quoct_test::run_cli("boxes '" + path + "' --pairs");
        CHECK(pairs.status == 0);
        CHECK(pairs.out == want);
        const auto piped = quoct_test::run_cli("boxes - --pairs < '" + path + "'");
        CHECK(piped.out == want);
        for (int q = 0; q < 5; ++q) {
            const std::vector<int> p(dims, 3 + 6 * q);
            std::string at = "id\n";
            for (std::size_t i = 0; i < b.lo.size(); ++i)
                if (meet(b, i, p, p)) at += std::to_string(i) + "\n";
            std::string arg;
            for (const int c : p) arg += std::to_string(c) + ",";
            arg.pop_back();
            CHECK(quoct_test::run_cli("boxes '" + path + "' --point " + arg).out == at);
            std::vector<int> hi = p;
            for (auto& c : hi) c += 2;
            std::string box = "id\n", harg;
            for (std::size_t i = 0; i < b.lo.size(); ++i)
                if (meet(b, i, p, hi)) box += std::to_string(i) + "\n";
            for (const int c : hi) harg += std::to_string(c) + ",";
            harg.pop_back();
            CHECK(quoct_test::run_cli("boxes '" + path + "' --min " + arg + " --max " + harg).out == box);
        }
    }
}

TEST_CASE("cli boxes: bad files and arguments are refused by name", "[cli]") {
    const std::string err = quoct_test::temp_path("boxes.err");
    const std::string inverted = written("minx,miny,maxx,maxy\n0,0,1,1\n0,3,1,2\n", "inverted.csv");
    CHECK(quoct_test::run_cli("boxes '" + inverted + "' --pairs", err).status == 1);
    CHECK_THAT(quoct_test::file_text(err), Contains("inverted.csv") && Contains("box 1") && Contains("axis 1"));
    const std::string other = written("x,y\n1,2\n", "points.csv");
    CHECK(quoct_test::run_cli("boxes '" + other + "' --pairs", err).status == 1);
    CHECK_THAT(quoct_test::file_text(err), Contains("no column 'minx'"));
    const std::string nan = written("minx,miny,maxx,maxy\n0,0,nan,1\n", "nan.csv");
    CHECK(quoct_test::run_cli("boxes '" + nan + "' --pairs", err).status == 1);
    CHECK_THAT(quoct_test::file_text(err), Contains("nan.csv"));
    const std::string good = written("minx,miny,maxx,maxy\n0,0,1,1\n", "good.csv");
    CHECK(quoct_test::run_cli("boxes '" + good + "' --point 1,1,1", err).status == 1);
    CHECK_THAT(quoct_test::file_text(err), Contains("3 coordinates"));
    CHECK(quoct_test::run_cli("boxes '" + good + "'", err).status == 2);
    CHECK(quoct_test::run_cli("boxes '" + good + "' --min 2,2 --max 1,1", err).status == 1);
    CHECK(quoct_test::run_cli("boxes /nonexistent/boxes.csv --pairs", err).status == 1);
    CHECK_THAT(quoct_test::file_text(err), Contains("cannot open"));
}

}  // namespace test_cli_boxes
