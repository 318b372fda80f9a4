// A consumer of an installed quoct: builds an octree, checks a ball query and a nearest
// query against brute force, and reads points from a CSV file with quoct::io.
// Usage: quoct_consumer <bunny.csv>. Exits nonzero on any mismatch.
#include <quoct/io/csv.hpp>
#include <quoct/quoct.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

using point3 = quoct::point<double, 3>;

std::vector<std::uint32_t> brute_ball(const std::vector<point3>& points, const quoct::ball<double, 3>& s) {
    std::vector<std::uint32_t> ids;
    for (std::size_t i = 0; i < points.size(); ++i)
        if (quoct::distance_sq(points[i], s.center) <= s.radius * s.radius) ids.push_back(static_cast<std::uint32_t>(i));
    return ids;
}

std::vector<std::uint32_t> brute_nearest(const std::vector<point3>& points, const point3& p, std::size_t k) {
    std::vector<std::uint32_t> ids(points.size());
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::uint32_t>(i);
    std::sort(ids.begin(), ids.end(), [&](std::uint32_t a, std::uint32_t b) {
        const double da = quoct::distance_sq(points[a], p), db = quoct::distance_sq(points[b], p);
        return da < db || (da == db && a < b);
    });
    ids.resize(std::min(k, ids.size()));
    return ids;
}

// Compares tree and brute force on `queries` random balls and nearest queries; returns
// the number of mismatches.
int check(const std::vector<point3>& points, double radius, int queries, const char* what) {
    const quoct::octree<double> tree(points);
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::size_t> pick(0, points.size() - 1);
    int failures = 0;
    for (int q = 0; q < queries; ++q) {
        const point3 c = points[pick(rng)];
        std::vector<std::uint32_t> got = tree.query(quoct::ball<double, 3>{c, radius});
        std::sort(got.begin(), got.end());
        if (got != brute_ball(points, {c, radius}) || got.empty()) {
            std::fprintf(stderr, "%s: ball query %d differs from brute force\n", what, q);
            ++failures;
        }
        if (tree.nearest(c, 5) != brute_nearest(points, c, 5)) {
            std::fprintf(stderr, "%s: nearest query %d differs from brute force\n", what, q);
            ++failures;
        }
    }
    return failures;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <bunny.csv>\n", argv[0]);
        return 2;
    }
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<point3> random(500);
    for (point3& p : random) p = point3{{unit(rng), unit(rng), unit(rng)}};
    int failures = check(random, 0.2, 50, "random points");

    try {
        const std::vector<point3> bunny = quoct::io::read_points<3>(argv[1], {"x", "y", "z"});
        if (bunny.size() != 1839) {
            std::fprintf(stderr, "bunny: read %zu points, expected 1839\n", bunny.size());
            ++failures;
        }
        failures += check(bunny, 0.3, 50, "bunny");
    } catch (const quoct::io::parse_error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        ++failures;
    }
    if (failures != 0) return 1;
    std::printf("quoct consumer: all checks passed\n");
    return 0;
}
