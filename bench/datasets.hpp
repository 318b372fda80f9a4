// quoct benchmarks: the point sets. Every generator is deterministic: a fixed seed and our
// own uniform and normal draws (the std:: distributions differ between standard libraries),
// so every peer and every run sees the same coordinates.
#ifndef QUOCT_BENCH_DATASETS_HPP
#define QUOCT_BENCH_DATASETS_HPP

#include <quoct/shapes.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace quoct_bench {

template <std::size_t D>
using point = quoct::point<double, D>;

/// Deterministic random numbers: mt19937_64 bits turned into doubles by hand.
class rng {
public:
    explicit rng(std::uint64_t seed) : engine_(seed) {}
    /// Uniform in [0, 1), 53 random bits.
    double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    /// Uniform integer in [0, n), n > 0 (modulo bias is irrelevant at our sizes).
    std::size_t index(std::size_t n) { return static_cast<std::size_t>(engine_() % n); }
    /// Standard normal by Box-Muller.
    double normal() {
        const double u = 1.0 - uniform();  // (0, 1]: log stays finite
        const double v = uniform();
        return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
    }

private:
    std::mt19937_64 engine_;
};

/// n points uniform in the unit cube [0, 1)^D.
template <std::size_t D>
std::vector<point<D>> uniform_points(std::size_t n, std::uint64_t seed) {
    rng r(seed);
    std::vector<point<D>> pts(n);
    for (auto& p : pts)
        for (std::size_t a = 0; a < D; ++a) p[a] = r.uniform();
    return pts;
}

/// n points in Gaussian blobs of very different sizes and weights inside the unit cube,
/// plus 2% uniform background: the density spans several orders of magnitude.
template <std::size_t D>
std::vector<point<D>> clustered_points(std::size_t n, std::uint64_t seed) {
    rng r(seed);
    constexpr std::size_t blobs = 64;
    std::vector<point<D>> centers(blobs);
    std::vector<double> sigma(blobs), weight_cdf(blobs);
    double total = 0;
    for (std::size_t b = 0; b < blobs; ++b) {
        for (std::size_t a = 0; a < D; ++a) centers[b][a] = r.uniform(0.1, 0.9);
        sigma[b] = 0.0005 * std::pow(200.0, r.uniform());  // 0.0005 .. 0.1
        total += std::pow(r.uniform(), 3.0) + 0.01;         // a few heavy blobs, many light
        weight_cdf[b] = total;
    }
    std::vector<point<D>> pts(n);
    for (auto& p : pts) {
        if (r.uniform() < 0.02) {
            for (std::size_t a = 0; a < D; ++a) p[a] = r.uniform();
            continue;
        }
        const double w = r.uniform() * total;
        const std::size_t b = static_cast<std::size_t>(
            std::upper_bound(weight_cdf.begin(), weight_cdf.end(), w) - weight_cdf.begin());
        const std::size_t k = std::min(b, blobs - 1);
        for (std::size_t a = 0; a < D; ++a) p[a] = centers[k][a] + sigma[k] * r.normal();
    }
    return pts;
}

/// n points whose distances from the origin are log-uniform in [lo, hi], in uniformly random
/// directions: data at every scale at once (a zoom-in simulation, metres mixing planetary and
/// laboratory scales). Each factor of 2 in distance holds about the same number of points.
template <std::size_t D>
std::vector<point<D>> log_uniform_points(std::size_t n, double lo, double hi, std::uint64_t seed) {
    rng r(seed);
    const double log_lo = std::log(lo), log_hi = std::log(hi);
    std::vector<point<D>> pts(n);
    for (auto& p : pts) {
        double norm = 0;
        while (!(norm > 1e-3)) {  // a direction: a normal draw per axis, normalised
            norm = 0;
            for (std::size_t a = 0; a < D; ++a) {
                p[a] = r.normal();
                norm += p[a] * p[a];
            }
            norm = std::sqrt(norm);
        }
        const double distance = std::exp(r.uniform(log_lo, log_hi));
        for (std::size_t a = 0; a < D; ++a) p[a] = p[a] / norm * distance;
    }
    return pts;
}

/// x moved `steps` representable doubles up (std::nextafter, `steps` times).
inline double ulps_up(double x, std::size_t steps) {
    for (std::size_t i = 0; i < steps; ++i) x = std::nextafter(x, 2 * std::abs(x) + 1);
    return x;
}

/// n points equal but for their last bits: every coordinate is 1 plus 0 to 1023 units in the
/// last place (2^(10 D) possible points, so few repeat at 1M in 3D).
template <std::size_t D>
std::vector<point<D>> ulp_points(std::size_t n, std::uint64_t seed) {
    rng r(seed);
    const double ulp = std::nextafter(1.0, 2.0) - 1.0;
    std::vector<point<D>> pts(n);
    for (auto& p : pts)
        for (std::size_t a = 0; a < D; ++a) p[a] = 1.0 + ulp * static_cast<double>(r.index(1024));
    return pts;
}

/// Clusters of nextafter neighbours at every scale: n / 1000 centres drawn as
/// log_uniform_points(lo, hi), each with 1000 points whose coordinates are the centre's moved
/// up by 0 to 15 representable doubles (std::nextafter).
template <std::size_t D>
std::vector<point<D>> ulp_cluster_points(std::size_t n, double lo, double hi, std::uint64_t seed) {
    constexpr std::size_t per_cluster = 1000;
    const auto centres = log_uniform_points<D>((n + per_cluster - 1) / per_cluster, lo, hi, seed);
    rng r(seed + 1);
    std::vector<point<D>> pts(n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t a = 0; a < D; ++a) pts[i][a] = ulps_up(centres[i / per_cluster][a], r.index(16));
    return pts;
}

/// Splits one CSV line into fields; double-quoted fields may hold commas and "" escapes.
inline std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                fields.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                fields.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else if (c != '\r') {
            fields.back() += c;
        }
    }
    return fields;
}

/// Reads the named numeric columns of a CSV file with a header row.
inline std::vector<std::vector<double>> read_csv_columns(const std::string& path,
                                                         const std::vector<std::string>& names) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = split_csv(line);
    std::vector<std::size_t> column;
    for (const std::string& name : names) {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end()) throw std::runtime_error(path + ": no column " + name);
        column.push_back(static_cast<std::size_t>(it - header.begin()));
    }
    std::vector<std::vector<double>> rows;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const std::vector<std::string> f = split_csv(line);
        std::vector<double> row;
        for (std::size_t c : column) {
            if (c >= f.size()) throw std::runtime_error(path + ": short row: " + line);
            row.push_back(std::stod(f[c]));
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

/// World cities (GeoNames, 135k rows) as plane points (lon, lat). With limit < the row
/// count, every k-th city so the sample still spans the world.
inline std::vector<point<2>> city_points(const std::string& data_dir, std::size_t limit) {
    const auto rows = read_csv_columns(data_dir + "/cities.csv", {"lon", "lat"});
    const std::size_t step = limit < rows.size() ? (rows.size() + limit - 1) / limit : 1;
    std::vector<point<2>> pts;
    for (std::size_t i = 0; i < rows.size(); i += step) pts.push_back(point<2>{{rows[i][0], rows[i][1]}});
    return pts;
}

/// n points uniform by area on the Stanford bunny's surface, LiDAR-like. Each triangle's
/// share is drawn multinomially, then the points are generated triangle by triangle, so
/// consecutive points are close together (a spatially coherent input order).
inline std::vector<point<3>> bunny_points(const std::string& data_dir, std::size_t n, std::uint64_t seed) {
    const auto verts = read_csv_columns(data_dir + "/bunny.csv", {"x", "y", "z"});
    const auto faces = read_csv_columns(data_dir + "/bunny_faces.csv", {"a", "b", "c"});
    auto vertex = [&](double i) {
        const auto k = static_cast<std::size_t>(i);
        if (k >= verts.size()) throw std::runtime_error("bunny_faces.csv: vertex index out of range");
        return verts[k];
    };
    std::vector<double> area_cdf(faces.size());
    double total = 0;
    for (std::size_t t = 0; t < faces.size(); ++t) {
        const auto a = vertex(faces[t][0]), b = vertex(faces[t][1]), c = vertex(faces[t][2]);
        const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        const double x = u[1] * v[2] - u[2] * v[1], y = u[2] * v[0] - u[0] * v[2], z = u[0] * v[1] - u[1] * v[0];
        total += 0.5 * std::sqrt(x * x + y * y + z * z);
        area_cdf[t] = total;
    }
    rng r(seed);
    std::vector<std::size_t> per_triangle(faces.size(), 0);
    for (std::size_t i = 0; i < n; ++i) {
        const double w = r.uniform() * total;
        const auto t = static_cast<std::size_t>(std::upper_bound(area_cdf.begin(), area_cdf.end(), w) - area_cdf.begin());
        ++per_triangle[std::min(t, faces.size() - 1)];
    }
    std::vector<point<3>> pts;
    pts.reserve(n);
    for (std::size_t t = 0; t < faces.size(); ++t) {
        const auto a = vertex(faces[t][0]), b = vertex(faces[t][1]), c = vertex(faces[t][2]);
        for (std::size_t i = 0; i < per_triangle[t]; ++i) {
            const double s = std::sqrt(r.uniform()), w = r.uniform();  // uniform on the triangle
            point<3> p;
            for (std::size_t k = 0; k < 3; ++k) p[k] = (1 - s) * a[k] + s * (1 - w) * b[k] + s * w * c[k];
            pts.push_back(p);
        }
    }
    return pts;
}

}  // namespace quoct_bench

#endif  // QUOCT_BENCH_DATASETS_HPP
