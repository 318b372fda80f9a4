// The point cloud subcommands: `quoct index` of a LAS, PLY or XYZ file (made by the tests) within a memory
// limit writes the file of the octree built in memory, byte for byte; `quoct radius`, `knn`
// and `box3d` on the LAS file and on the index file print the rows brute force selects;
// bad arguments and files are refused by name.
#include <catch2/catch.hpp>

#include "../las_test_file.hpp"
#include "test_cli_support.hpp"

#include <quoct/file.hpp>
#include <quoct/io/las.hpp>
#include <quoct/io/locations.hpp>
#include <quoct/orthtree.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace test_cli_cloud {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

using Catch::Matchers::Contains;

void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// 6,000 points on a grid of quarter units (distances exact), many on each other.
std::string make_las(const std::string& name) {
    quoct_test::las_file_spec s;
    s.minor = 2;
    s.format = 1;
    s.scale = {{0.25, 0.25, 0.25}};
    s.offset = {{100, 200, 0}};
    s.min = {{100, 200, 0}};
    s.max = {{150, 250, 10}};
    std::mt19937_64 rng(5);
    std::vector<quoct_test::las_point> pts(6000);
    for (std::size_t i = 0; i < pts.size(); ++i) {
        pts[i].X = static_cast<std::int32_t>(rng() % 201);
        pts[i].Y = static_cast<std::int32_t>(rng() % 201);
        pts[i].Z = static_cast<std::int32_t>(rng() % 41);
        pts[i].intensity = static_cast<std::uint16_t>(i);
    }
    const std::string path = quoct_test::temp_path(name);
    write_bytes(path, quoct_test::las_file_bytes(s, pts));
    return path;
}

std::string row(std::size_t id, const double* p) {
    using quoct::io::shortest_decimal;
    return std::to_string(id) + "," + shortest_decimal(p[0]) + "," + shortest_decimal(p[1]) + "," + shortest_decimal(p[2]);
}

double dist2(const double* p, const double* q) {
    double d = 0;
    for (int a = 0; a < 3; ++a) d += (p[a] - q[a]) * (p[a] - q[a]);
    return d;
}

}  // namespace

TEST_CASE("quoct index: a LAS file within a memory limit gives the octree's index file", "[cli][las][build_file]") {
    const std::string las = make_las("cloud.las");
    const std::string out = quoct_test::temp_path("cloud.quoct");
    const auto r = quoct_test::run_cli("index '" + las + "' -o '" + out + "' --memory 300K");
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Contains(out + ": orthtree<double, 3, uint32>, 6000 points, "));
    const quoct::io::point_cloud c = quoct::io::read_las(las);
    std::ifstream f(out, std::ios::binary);
    const std::vector<unsigned char> got((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    CHECK(got == quoct::to_bytes(quoct::octree<double>(c.xyz.data(), c.size())));
}

TEST_CASE("quoct index: PLY and XYZ files within a memory limit give the octree's index file", "[cli][build_file]") {
    const quoct::io::point_cloud c = quoct::io::read_las(make_las("points.las"));
    const std::vector<unsigned char> want = quoct::to_bytes(quoct::octree<double>(c.xyz.data(), c.size()));
    const std::string xyz = quoct_test::temp_path("points.XYZ"), ply = quoct_test::temp_path("points.ply");
    {
        std::ofstream x(xyz), p(ply, std::ios::binary);
        p << "ply\nformat ascii 1.0\nelement vertex " << c.size() << "\nproperty double x\nproperty double y\n"
          << "property double z\nend_header\n";
        for (std::size_t i = 0; i < c.size(); ++i) {
            const std::string line = quoct::io::shortest_decimal(c.xyz[3 * i]) + " " +
                                     quoct::io::shortest_decimal(c.xyz[3 * i + 1]) + " " +
                                     quoct::io::shortest_decimal(c.xyz[3 * i + 2]) + "\n";
            x << line;
            p << line;
        }
    }
    for (const std::string& file : {xyz, ply}) {
        CAPTURE(file);
        const std::string out = quoct_test::temp_path("points.quoct");
        const auto r = quoct_test::run_cli("index '" + file + "' -o '" + out + "' --memory 300K");
        REQUIRE(r.status == 0);
        CHECK_THAT(r.out, Contains(out + ": orthtree<double, 3, uint32>, 6000 points, "));
        std::ifstream f(out, std::ios::binary);
        CHECK(std::vector<unsigned char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>()) == want);
    }
    const std::string bad = quoct_test::temp_path("bad.xyz");
    std::ofstream(bad) << "1 2 3\n4 5 x\n";
    const std::string err = quoct_test::temp_path("bad.err");
    CHECK(quoct_test::run_cli("index '" + bad + "' -o '" + quoct_test::temp_path("bad.quoct") + "'", err).status == 1);
    CHECK_THAT(quoct_test::file_text(err), Contains(bad + ":2: column 3: 'x' is not a finite number"));
}

TEST_CASE("quoct radius, knn, box3d: on a LAS file and its index file, the rows brute force selects", "[cli][las]") {
    const std::string las = make_las("q.las");
    const std::string index = quoct_test::temp_path("q.quoct");
    REQUIRE(quoct_test::run_cli("index '" + las + "' -o '" + index + "'").status == 0);
    const quoct::io::point_cloud c = quoct::io::read_las(las, {{"intensity"}, true});
    const double q[3] = {125, 225, 5};
    const std::string at = " --x 125 --y 225 --z 5";
    for (const std::string& file : {las, index}) {
        CAPTURE(file);
        for (const double radius : {0.0, 0.25, 1.5, 3.0}) {
            std::string want = "id,x,y,z\n";
            for (std::size_t i = 0; i < c.size(); ++i)
                if (dist2(&c.xyz[3 * i], q) <= radius * radius) want += row(i, &c.xyz[3 * i]) + "\n";
            CHECK(quoct_test::run_cli("radius '" + file + "'" + at + " --r " + quoct::io::shortest_decimal(radius)).out ==
                  want);
        }
        std::vector<std::pair<double, std::size_t>> order;
        for (std::size_t i = 0; i < c.size(); ++i) order.emplace_back(dist2(&c.xyz[3 * i], q), i);
        std::sort(order.begin(), order.end());
        std::string want = "id,x,y,z,distance\n";
        for (std::size_t j = 0; j < 12; ++j)
            want += row(order[j].second, &c.xyz[3 * order[j].second]) + "," +
                    quoct::io::shortest_decimal(std::sqrt(order[j].first)) + "\n";
        CHECK(quoct_test::run_cli("knn '" + file + "'" + at + " --k 12").out == want);
        want = "id,x,y,z\n";
        for (std::size_t i = 0; i < c.size(); ++i) {
            const double* p = &c.xyz[3 * i];
            if (p[0] >= 120 && p[0] <= 122.5 && p[1] >= 230 && p[1] <= 231 && p[2] >= 0 && p[2] <= 10)
                want += row(i, p) + "\n";
        }
        CHECK(quoct_test::run_cli("box3d '" + file + "' --min 120,230,0 --max 122.5,231,10").out == want);
    }
    // LAS fields after the coordinates.
    std::string want = "id,x,y,z,intensity\n";
    for (std::size_t i = 0; i < c.size(); ++i)
        if (dist2(&c.xyz[3 * i], q) <= 1)
            want += row(i, &c.xyz[3 * i]) + "," + quoct::io::shortest_decimal(c.properties[i]) + "\n";
    CHECK(quoct_test::run_cli("radius '" + las + "'" + at + " --r 1 --fields intensity").out == want);
}

TEST_CASE("quoct neighbours: every point's k nearest and points within r, as brute force", "[cli][las][neighbourhoods]") {
    const std::string las = make_las("hoods.las");
    const std::string index = quoct_test::temp_path("hoods.quoct");
    REQUIRE(quoct_test::run_cli("index '" + las + "' -o '" + index + "'").status == 0);
    const quoct::io::point_cloud c = quoct::io::read_las(las);
    // Brute force: each point's neighbourhood as rows, keyed by the point's id.
    const auto expected = [&](std::size_t k, double r) {
        std::vector<std::string> rows(c.size());
        for (std::size_t i = 0; i < c.size(); ++i) {
            std::vector<std::pair<double, std::size_t>> order;
            for (std::size_t j = 0; j < c.size(); ++j) {
                const double d = dist2(&c.xyz[3 * i], &c.xyz[3 * j]);
                if (k != 0 || d <= r * r) order.emplace_back(d, j);
            }
            const std::size_t keep = k != 0 ? k : order.size();
            std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end());
            for (std::size_t j = 0; j < keep; ++j)
                rows[i] += std::to_string(i) + "," + std::to_string(order[j].second) + "," +
                           quoct::io::shortest_decimal(std::sqrt(order[j].first)) + "\n";
        }
        return rows;
    };
    for (const std::string args : {" --k 5", " --r 0.75"}) {
        const std::vector<std::string> want = args == " --k 5" ? expected(5, 0) : expected(0, 0.75);
        for (const std::string& file : {las, index}) {
            CAPTURE(file, args);
            const auto r = quoct_test::run_cli("neighbours '" + file + "'" + args);
            REQUIRE(r.status == 0);
            REQUIRE(r.out.compare(0, 22, "id,neighbour,distance\n") == 0);
            // Group the rows by point (each point's rows are together, in storage order).
            std::vector<std::string> got(c.size());
            std::vector<int> groups(c.size(), 0);
            std::size_t at = 22, last = c.size();
            while (at < r.out.size()) {
                const std::size_t end = r.out.find('\n', at) + 1;
                const std::string line = r.out.substr(at, end - at);
                const std::size_t id = std::stoul(line.substr(0, line.find(',')));
                if (id != last) ++groups[id], last = id;
                got[id] += line;
                at = end;
            }
            CHECK(std::count(groups.begin(), groups.end(), 1) == static_cast<long>(c.size()));
            CHECK(got == want);
        }
    }
}

TEST_CASE("quoct index, radius, knn: bad arguments and files are refused by name", "[cli][las]") {
    const std::string las = make_las("bad.las");
    const std::string err = quoct_test::temp_path("cloud.err");
    const auto fails = [&](const std::string& args, int status, const std::string& says) {
        CAPTURE(args);
        CHECK(quoct_test::run_cli(args, err).status == status);
        CHECK_THAT(quoct_test::file_text(err), Contains(says));
    };
    fails("index '" + las + "'", 1, "give -o FILE");
    fails("index '" + las + "' -o x.quoct --memory lots", 1, "--memory lots: give a size such as 512M or 2G");
    fails("radius '" + las + "' --x 1 --y 2 --z 3 --r -1", 2, "--r");
    fails("radius '" + las + "' --x nan --y 2 --z 3 --r 1", 2, "not a finite number: nan");
    fails("knn '" + las + "' --x 1 --y 2 --z 3 --k 0", 2, "--k");
    fails("neighbours '" + las + "'", 2, "--k or --r");
    fails("neighbours '" + las + "' --k 2 --r 1", 2, "excludes");
    fails("radius '" + las + "' --x 1 --y 2 --z 3 --r 1 --fields colour", 1, "colour");
    const std::string laz = quoct_test::temp_path("c.laz");
    write_bytes(laz, {1, 2, 3});
    fails("radius '" + laz + "' --x 1 --y 2 --z 3 --r 1", 1, "laszip");
    const std::string geo = quoct_test::temp_path("g.quoct");
    quoct::save(quoct::quadtree<double>(std::vector<quoct::point<double, 2>>{{{1, 2}}}), geo);
    fails("knn '" + geo + "' --x 1 --y 2 --z 3 --k 1", 1, "holds orthtree<double, 2, uint32>");
    fails("radius /no/such.las --x 1 --y 2 --z 3 --r 1", 1, "/no/such.las");
}

}  // namespace test_cli_cloud
