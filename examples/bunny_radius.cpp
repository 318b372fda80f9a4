// Radius search in a LiDAR-like point cloud: points sampled uniformly on the surface of
// the Stanford bunny, an octree over them, and balls around the mesh vertices, checked
// against brute force.
//
// Usage: bunny_radius [samples [radius [data_dir]]]
//   samples   points to sample on the surface (default 200000)
//   radius    ball radius in the mesh's units (default 0.25; the bunny is about 10 wide)
//   data_dir  folder holding bunny.csv and bunny_faces.csv (default: quoct's data/)
#include <quoct/io/csv.hpp>
#include <quoct/quoct.hpp>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using point3 = quoct::point<double, 3>;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

point3 lerp3(const point3& a, const point3& b, const point3& c, double wa, double wb, double wc) {
    point3 p{};
    for (std::size_t i = 0; i < 3; ++i) p[i] = wa * a[i] + wb * b[i] + wc * c[i];
    return p;
}

double triangle_area(const point3& a, const point3& b, const point3& c) {
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    return 0.5 * std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

// The faces as vertex indices; throws if one is not an index of `vertices`.
std::vector<std::array<std::size_t, 3>> to_triangles(const std::vector<point3>& faces, std::size_t vertex_count) {
    std::vector<std::array<std::size_t, 3>> triangles(faces.size());
    for (std::size_t t = 0; t < faces.size(); ++t)
        for (std::size_t i = 0; i < 3; ++i) {
            const double v = faces[t][i];
            if (!(v >= 0 && v < static_cast<double>(vertex_count) && v == std::floor(v)))
                throw std::runtime_error("face " + std::to_string(t) + " has a bad vertex index " + std::to_string(v));
            triangles[t][i] = static_cast<std::size_t>(v);
        }
    return triangles;
}

// `count` points uniformly distributed over the mesh surface: a triangle is picked with
// probability proportional to its area, then a point uniformly inside it (the square-root
// warp of Osada et al., "Shape distributions", 2002). Fixed seed: the same cloud every run.
std::vector<point3> sample_surface(const std::vector<point3>& vertices,
                                   const std::vector<std::array<std::size_t, 3>>& triangles, std::size_t count) {
    std::vector<double> areas(triangles.size());
    for (std::size_t t = 0; t < triangles.size(); ++t) {
        const auto& [a, b, c] = triangles[t];
        areas[t] = triangle_area(vertices[a], vertices[b], vertices[c]);
    }
    std::mt19937_64 rng(20240611);
    std::discrete_distribution<std::size_t> pick(areas.begin(), areas.end());
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<point3> points(count);
    for (point3& p : points) {
        const auto& [a, b, c] = triangles[pick(rng)];
        const double s = std::sqrt(unit(rng)), r = unit(rng);
        p = lerp3(vertices[a], vertices[b], vertices[c], 1 - s, s * (1 - r), s * r);
    }
    return points;
}

std::size_t brute_count(const std::vector<point3>& points, const quoct::ball<double, 3>& s) {
    std::size_t n = 0;
    for (const point3& p : points) n += quoct::contains(s, p) ? 1u : 0u;
    return n;
}

// Counts the points around every vertex with the tree, then checks every 50th vertex
// against brute force. Returns the number of disagreements.
std::size_t run_queries(const quoct::octree<double>& tree, const std::vector<point3>& cloud,
                        const std::vector<point3>& vertices, double radius) {
    const auto start = clock_type::now();
    std::vector<std::size_t> counts(vertices.size());
    for (std::size_t v = 0; v < vertices.size(); ++v) counts[v] = tree.count(quoct::ball<double, 3>{vertices[v], radius});
    const double tree_s = seconds_since(start);
    std::size_t total = 0;
    for (std::size_t c : counts) total += c;
    std::printf("%zu balls of radius %g, one per vertex: %zu points in all, %.1f on average\n", vertices.size(), radius,
                total, static_cast<double>(total) / static_cast<double>(vertices.size()));
    std::printf("  tree:        %.3f ms, %.2f us per query\n", tree_s * 1e3, tree_s * 1e6 / static_cast<double>(vertices.size()));

    const auto brute_start = clock_type::now();
    std::size_t checked = 0, wrong = 0;
    for (std::size_t v = 0; v < vertices.size(); v += 50, ++checked)
        wrong += brute_count(cloud, quoct::ball<double, 3>{vertices[v], radius}) != counts[v] ? 1u : 0u;
    const double brute_s = seconds_since(brute_start);
    std::printf("  brute force: %.2f us per query; agrees on %zu of %zu checked\n",
                brute_s * 1e6 / static_cast<double>(checked), checked - wrong, checked);
    return wrong;
}

}  // namespace

int main(int argc, char** argv) {
    const auto samples = argc > 1 ? quoct::io::parse_number(argv[1]) : std::optional<double>(200000);
    const auto radius = argc > 2 ? quoct::io::parse_number(argv[2]) : std::optional<double>(0.25);
    const std::string dir = argc > 3 ? argv[3] : QUOCT_DATA_DIR;
    if (argc > 4 || !samples || *samples < 1 || *samples != std::floor(*samples) || !radius || *radius < 0) {
        std::fprintf(stderr, "usage: %s [samples [radius [data_dir]]]\n", argv[0]);
        return 2;
    }
    try {
        const auto vertices = quoct::io::read_points<3>(dir + "/bunny.csv", {"x", "y", "z"});
        const auto faces = quoct::io::read_points<3>(dir + "/bunny_faces.csv", {"a", "b", "c"});
        const auto cloud = sample_surface(vertices, to_triangles(faces, vertices.size()),
                                          static_cast<std::size_t>(*samples));
        std::printf("bunny: %zu vertices, %zu triangles, %zu points sampled on the surface\n", vertices.size(),
                    faces.size(), cloud.size());

        const auto start = clock_type::now();
        const quoct::octree<double> tree(cloud);
        std::printf("octree build: %.2f ms, %zu nodes, depth %zu\n", seconds_since(start) * 1e3, tree.node_count(),
                    tree.depth());

        const quoct::ball<double, 3> around_first{vertices[0], *radius};
        std::printf("around vertex 0 (%g, %g, %g): %zu points; brute force: %zu\n", vertices[0][0], vertices[0][1],
                    vertices[0][2], tree.query(around_first).size(), brute_count(cloud, around_first));
        return run_queries(tree, cloud, vertices, *radius) == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bunny_radius: %s\n", e.what());
        return 1;
    }
}
