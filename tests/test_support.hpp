// quoct tests: shared helpers. Configurations for TEMPLATE_LIST_TEST_CASE, a portable
// random source, data generators (synthetic and the real files in data/), brute-force
// oracles built on the geometry kernel's predicates, Boost.Geometry conversions,
// order-free comparison that explains a mismatch in one line, and one check of radius
// results with distances made of Catch assertions (check_within).
#ifndef QUOCT_TESTS_TEST_SUPPORT_HPP
#define QUOCT_TESTS_TEST_SUPPORT_HPP

#include <quoct/quoct.hpp>

#include <catch2/catch.hpp>

// Boost 1.74's algorithms include a header it has since deprecated; its #pragma message is noise.
#ifndef BOOST_ALLOW_DEPRECATED_HEADERS
#define BOOST_ALLOW_DEPRECATED_HEADERS
#endif
#include <boost/geometry/algorithms/comparable_distance.hpp>
#include <boost/geometry/algorithms/covered_by.hpp>
#include <boost/geometry/algorithms/intersects.hpp>
#include <boost/geometry/core/access.hpp>
#include <boost/geometry/core/cs.hpp>
#include <boost/geometry/geometries/box.hpp>
#include <boost/geometry/geometries/point.hpp>
#include <boost/geometry/strategies/strategies.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace quoct_test {

// --- configurations ------------------------------------------------------------------

/// One (scalar, dimension) pair for TEMPLATE_LIST_TEST_CASE.
template <class T, std::size_t D>
struct cfg {
    using scalar = T;
    static constexpr std::size_t dim = D;
    using point = quoct::point<T, D>;
    using box = quoct::box<T, D>;
    using ball = quoct::ball<T, D>;
    using tree = quoct::orthtree<T, D>;
};

#ifndef QUOCT_TEST_TWO_CONFIGS
/// (float, double) x (2D, 3D): every test that can runs on all four.
using all_configs = std::tuple<cfg<float, 2>, cfg<float, 3>, cfg<double, 2>, cfg<double, 3>>;
/// The same four for TEMPLATE_TEST_CASE (the simulation tests).
#define QUOCT_TEST_CONFIGS (quoct_test::cfg<float, 2>), (quoct_test::cfg<float, 3>), (quoct_test::cfg<double, 2>), \
                           (quoct_test::cfg<double, 3>)
#else
// Two of the four, each scalar and each dimension once (CMake's QUOCT_TEST_CONFIGS=two: CI's
// sanitizer build, whose compile time is mostly these instantiations; the Release build runs
// all four, and the fuzz targets run every scalar and dimension under the sanitizers).
using all_configs = std::tuple<cfg<float, 2>, cfg<double, 3>>;
#define QUOCT_TEST_CONFIGS (quoct_test::cfg<float, 2>), (quoct_test::cfg<double, 3>)
#endif

// --- random numbers ------------------------------------------------------------------

/// A seeded source whose sequence is the same on every platform: std::mt19937_64 output
/// is fixed by the standard, and the conversions below are written out (the standard
/// distributions are not portable).
/// It is also a UniformRandomBitGenerator (its bits are std::mt19937_64's for the same seed),
/// for std::shuffle and the like.
class rng {
public:
    using result_type = std::uint64_t;
    explicit rng(std::uint64_t seed = 5489) : engine_(seed) {}
    static constexpr result_type min() { return std::mt19937_64::min(); }
    static constexpr result_type max() { return std::mt19937_64::max(); }
    result_type operator()() { return engine_(); }
    std::uint64_t bits() { return engine_(); }
    /// Uniform in [0, 1), 53 random bits.
    double uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
    /// Uniform in [lo, hi); written so that it cannot overflow for finite lo and hi.
    double uniform(double lo, double hi) {
        const double u = uniform01();
        return (1 - u) * lo + u * hi;
    }
    /// Uniform integer in [0, n), n > 0 (the modulo bias is irrelevant here).
    std::size_t below(std::size_t n) { return static_cast<std::size_t>(engine_() % n); }
    std::int64_t integer(std::int64_t lo, std::int64_t hi) {
        return lo + static_cast<std::int64_t>(below(static_cast<std::size_t>(hi - lo + 1)));
    }
    bool coin() { return (engine_() >> 63) != 0; }
    /// Standard normal, Box-Muller.
    double normal() {
        const double u = 1.0 - uniform01();  // (0, 1]
        const double v = uniform01();
        return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
    }

private:
    std::mt19937_64 engine_;
};

// --- points --------------------------------------------------------------------------

template <class T, std::size_t D>
using points = std::vector<quoct::point<T, D>>;

/// A point whose every coordinate is v.
template <class T, std::size_t D>
quoct::point<T, D> splat(T v) {
    quoct::point<T, D> p{};
    for (std::size_t a = 0; a < D; ++a) p[a] = v;
    return p;
}

/// The point (x0, x1, ...) taking the first D values of `xs` (missing ones are 0).
template <class T, std::size_t D>
quoct::point<T, D> make_point(std::initializer_list<double> xs) {
    quoct::point<T, D> p{};
    std::size_t a = 0;
    for (double x : xs) {
        if (a == D) break;
        p[a++] = static_cast<T>(x);
    }
    return p;
}

/// A point uniform in [lo, hi]^D (rounded to T).
template <class T, std::size_t D>
quoct::point<T, D> random_point(rng& r, double lo, double hi) {
    quoct::point<T, D> p;
    for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(r.uniform(lo, hi));
    return p;
}

/// A point of the integer lattice [0, cells)^D: drawn often, such points tie exactly and
/// fall on boundaries.
template <class T, std::size_t D>
quoct::point<T, D> lattice_point(rng& r, int cells) {
    quoct::point<T, D> p;
    for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(r.below(static_cast<std::size_t>(cells)));
    return p;
}

/// The smallest box around the points, computed by brute force (lo=+inf, hi=-inf if none).
template <class T, std::size_t D>
quoct::box<T, D> brute_bounds(const points<T, D>& pts) {
    quoct::box<T, D> b;
    for (std::size_t a = 0; a < D; ++a) {
        b.lo[a] = std::numeric_limits<T>::infinity();
        b.hi[a] = -std::numeric_limits<T>::infinity();
    }
    for (const auto& p : pts)
        for (std::size_t a = 0; a < D; ++a) {
            if (p[a] < b.lo[a]) b.lo[a] = p[a];
            if (p[a] > b.hi[a]) b.hi[a] = p[a];
        }
    return b;
}

/// The widest axis extent of the points, in double (0 for none or one point).
template <class T, std::size_t D>
double extent(const points<T, D>& pts) {
    if (pts.empty()) return 0;
    const auto b = brute_bounds(pts);
    double e = 0;
    for (std::size_t a = 0; a < D; ++a) e = std::max(e, static_cast<double>(b.hi[a]) - static_cast<double>(b.lo[a]));
    return e;
}

// --- synthetic data sets -------------------------------------------------------------

/// Uniform in [lo, hi]^D.
template <class T, std::size_t D>
points<T, D> uniform_points(std::size_t n, std::uint64_t seed, double lo = -100, double hi = 100) {
    rng r(seed);
    points<T, D> out(n);
    for (auto& p : out) p = random_point<T, D>(r, lo, hi);
    return out;
}

/// Gaussian blobs of very different density: spreads from 1e-6 to 100 around centres in
/// [-1000, 1000]^D, blob sizes from a handful to most of the points.
template <class T, std::size_t D>
points<T, D> clustered_points(std::size_t n, std::uint64_t seed) {
    rng r(seed);
    const double spreads[] = {1e-6, 1e-3, 1.0, 100.0, 1e-6, 1.0, 0.05};
    const double shares[] = {0.30, 0.05, 0.40, 0.10, 0.001, 0.10, 0.049};
    points<T, D> out;
    out.reserve(n);
    for (std::size_t c = 0; c < 7; ++c) {
        quoct::point<double, D> centre{};
        for (std::size_t a = 0; a < D; ++a) centre[a] = r.uniform(-1000, 1000);
        const std::size_t m = c + 1 == 7 ? n - out.size() : std::min(n - out.size(), std::max<std::size_t>(1, static_cast<std::size_t>(shares[c] * static_cast<double>(n))));
        for (std::size_t i = 0; i < m; ++i) {
            quoct::point<T, D> p;
            for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(centre[a] + spreads[c] * r.normal());
            out.push_back(p);
        }
    }
    return out;
}

/// The point duplicate_points repeats.
template <class T, std::size_t D>
quoct::point<T, D> duplicated_point() {
    return make_point<T, D>({0.25, -3.5, 7.125});
}

/// `copies` copies of duplicated_point(), then `others` uniform points around it, shuffled
/// so the copies are not one run of ids.
template <class T, std::size_t D>
points<T, D> duplicate_points(std::size_t copies, std::size_t others, std::uint64_t seed) {
    rng r(seed);
    const auto dup = duplicated_point<T, D>();
    points<T, D> out(copies, dup);
    for (std::size_t i = 0; i < others; ++i) {
        quoct::point<T, D> p;
        for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(r.uniform(-10, 10));
        out.push_back(p);
    }
    for (std::size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[r.below(i)]);
    return out;
}

/// Points on one line: a random direction through a random origin when `axis_aligned` is
/// false (rounded, so only nearly collinear), exactly on the x axis (other coordinates 1.5) when true.
template <class T, std::size_t D>
points<T, D> collinear_points(std::size_t n, std::uint64_t seed, bool axis_aligned) {
    rng r(seed);
    quoct::point<double, D> origin{}, dir{};
    for (std::size_t a = 0; a < D; ++a) {
        origin[a] = axis_aligned ? 1.5 : r.uniform(-50, 50);
        dir[a] = axis_aligned ? (a == 0 ? 1.0 : 0.0) : r.uniform(-1, 1);
    }
    points<T, D> out(n);
    for (auto& p : out) {
        const double t = r.uniform(-100, 100);
        for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(origin[a] + t * dir[a]);
    }
    return out;
}

/// Every integer point of [-half, half]^D, in lexicographic order.
template <class T, std::size_t D>
points<T, D> lattice_points(int half) {
    points<T, D> out;
    std::array<int, D> idx;
    idx.fill(-half);
    for (;;) {
        quoct::point<T, D> p;
        for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(idx[a]);
        out.push_back(p);
        std::size_t a = 0;
        while (a < D && idx[a] == half) idx[a++] = -half;
        if (a == D) break;
        ++idx[a];
    }
    return out;
}

/// Dyadic coordinates k / 1024 with |k| <= 4096 (all exact in float and double), with
/// repeats, so that query boundaries built from the same grid are hit exactly.
template <class T, std::size_t D>
points<T, D> dyadic_points(std::size_t n, std::uint64_t seed) {
    rng r(seed);
    points<T, D> out(n);
    for (auto& p : out)
        for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(static_cast<double>(r.integer(-4096, 4096)) / 1024.0);
    return out;
}

/// The largest decimal exponent `spread_points` uses: 300 for double, 30 for float.
template <class T>
constexpr int spread_exponent() {
    return std::is_same<T, float>::value ? 30 : 300;
}

/// Coordinates of magnitude 10^u, u uniform in [-E, E] (E = spread_exponent<T>()), random
/// signs, plus a few zeros: a tree over this must stay shallow and exact.
template <class T, std::size_t D>
points<T, D> spread_points(std::size_t n, std::uint64_t seed) {
    rng r(seed);
    const double e = spread_exponent<T>();
    points<T, D> out(n);
    for (auto& p : out)
        for (std::size_t a = 0; a < D; ++a) {
            const double mag = r.below(50) == 0 ? 0.0 : std::pow(10.0, r.uniform(-e, e));
            p[a] = static_cast<T>(r.coin() ? -mag : mag);
        }
    return out;
}

/// Distances from the origin log-uniform in [lo, hi], in uniformly random directions: data at
/// every scale at once (a zoom-in simulation, metres mixing planetary and laboratory scales).
/// With the default 1e-20 and 1e20 (normal numbers in float too) every factor of 2 in
/// distance holds about 1/133 of the points, so an orthtree nests about 133 levels deep.
template <class T, std::size_t D>
points<T, D> log_uniform_points(std::size_t n, std::uint64_t seed, double lo = 1e-20, double hi = 1e20) {
    rng r(seed);
    points<T, D> out(n);
    for (auto& p : out) {
        double dir[D];
        double norm_sq = 0;
        do {  // uniform in the unit ball (rejection), so its direction is uniform
            norm_sq = 0;
            for (std::size_t a = 0; a < D; ++a) {
                dir[a] = r.uniform(-1, 1);
                norm_sq += dir[a] * dir[a];
            }
        } while (norm_sq > 1 || norm_sq < 1e-6);
        const double distance = std::exp(r.uniform(std::log(lo), std::log(hi)));
        for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(dir[a] / std::sqrt(norm_sq) * distance);
    }
    return out;
}

/// Points equal but for their last bits, in two halves: every coordinate 1 plus 0 to 1023
/// units in the last place of T; and clusters of 50 nextafter neighbours (each coordinate the
/// cluster's centre moved up by 0 to 7 representable values of T) at centres drawn as
/// log_uniform_points. Some points repeat.
template <class T, std::size_t D>
points<T, D> nearly_equal_points(std::size_t n, std::uint64_t seed) {
    rng r(seed);
    const T ulp = std::nextafter(T(1), T(2)) - T(1);
    points<T, D> out(n);
    const std::size_t half = n / 2;
    for (std::size_t i = 0; i < half; ++i)
        for (std::size_t a = 0; a < D; ++a) out[i][a] = T(1) + ulp * static_cast<T>(r.below(1024));
    const auto centres = log_uniform_points<T, D>((n - half) / 50 + 1, seed + 1);
    for (std::size_t i = half; i < n; ++i)
        for (std::size_t a = 0; a < D; ++a) {
            T v = centres[(i - half) / 50][a];
            for (std::size_t step = r.below(8); step > 0; --step) v = std::nextafter(v, std::numeric_limits<T>::infinity());
            out[i][a] = v;
        }
    return out;
}

// --- real data: data/*.csv ------------------------------------------------------------

/// Path of a file in the repository's data/ folder: QUOCT_DATA_DIR if the build defines it,
/// else found from this header's own path, else relative to the working directory.
inline std::string data_file(const std::string& name) {
    std::vector<std::string> dirs;
#ifdef QUOCT_DATA_DIR
    dirs.push_back(QUOCT_DATA_DIR);
#endif
    const std::string here = __FILE__;  // .../tests/test_support.hpp
    const auto slash = here.find_last_of("/\\");
    if (slash != std::string::npos) dirs.push_back(here.substr(0, slash) + "/../data");
    for (const char* d : {"data", "../data", "../../data", "../../../data"}) dirs.push_back(d);
    for (const auto& d : dirs) {
        const std::string path = d + "/" + name;
        if (std::ifstream(path).good()) return path;
    }
    throw std::runtime_error("quoct tests: cannot find data/" + name + " (define QUOCT_DATA_DIR)");
}

/// Splits one CSV record (RFC 4180: fields may be double-quoted, with commas inside and ""
/// for a quote). A trailing '\r' is dropped.
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

/// Reads a CSV file with a header line; returns the records (the header is dropped).
inline std::vector<std::vector<std::string>> read_csv(const std::string& name) {
    std::ifstream in(data_file(name));
    if (!in) throw std::runtime_error("quoct tests: cannot open " + name);
    std::vector<std::vector<std::string>> rows;
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line))
        if (!line.empty() && line != "\r") rows.push_back(split_csv(line));
    return rows;
}

inline double to_double(const std::string& s) {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used != s.size()) throw std::runtime_error("quoct tests: bad number '" + s + "'");
    return v;
}

/// The world cities as (lon, lat) in degrees, from data/cities.csv (columns 5 and 6).
inline const std::vector<std::array<double, 2>>& cities_lon_lat() {
    static const std::vector<std::array<double, 2>> cities = [] {
        std::vector<std::array<double, 2>> out;
        for (const auto& f : read_csv("cities.csv")) {
            if (f.size() != 6) throw std::runtime_error("quoct tests: cities.csv record with " + std::to_string(f.size()) + " fields");
            out.push_back({to_double(f[4]), to_double(f[5])});
        }
        return out;
    }();
    return cities;
}

/// The cities as points: (lon, lat) in 2D, on the unit sphere (ECEF direction) in 3D.
template <class T, std::size_t D>
points<T, D> city_points() {
    static_assert(D == 2 || D == 3, "cities are 2D or 3D");
    points<T, D> out;
    for (const auto& c : cities_lon_lat()) {
        if (D == 2) {
            out.push_back(make_point<T, D>({c[0], c[1]}));
        } else {
            const double lon = c[0] * 3.141592653589793 / 180, lat = c[1] * 3.141592653589793 / 180;
            out.push_back(make_point<T, D>({std::cos(lat) * std::cos(lon), std::cos(lat) * std::sin(lon), std::sin(lat)}));
        }
    }
    return out;
}

struct mesh {
    std::vector<std::array<double, 3>> vertices;
    std::vector<std::array<std::size_t, 3>> faces;
};

/// The Stanford bunny: data/bunny.csv (x,y,z) and data/bunny_faces.csv (0-based a,b,c).
inline const mesh& bunny() {
    static const mesh m = [] {
        mesh out;
        for (const auto& f : read_csv("bunny.csv")) out.vertices.push_back({to_double(f.at(0)), to_double(f.at(1)), to_double(f.at(2))});
        for (const auto& f : read_csv("bunny_faces.csv")) {
            std::array<std::size_t, 3> t;
            for (std::size_t k = 0; k < 3; ++k) {
                t[k] = static_cast<std::size_t>(std::stoul(f.at(k)));
                if (t[k] >= out.vertices.size()) throw std::runtime_error("quoct tests: bunny face index out of range");
            }
            out.faces.push_back(t);
        }
        return out;
    }();
    return m;
}

/// n points sampled uniformly (by area) on the bunny's surface; in 2D, projected on (x, y).
template <class T, std::size_t D>
points<T, D> bunny_points(std::size_t n, std::uint64_t seed) {
    static_assert(D == 2 || D == 3, "the bunny is 2D (projected) or 3D");
    const mesh& m = bunny();
    std::vector<double> cumulative;
    double total = 0;
    for (const auto& f : m.faces) {
        const auto &a = m.vertices[f[0]], &b = m.vertices[f[1]], &c = m.vertices[f[2]];
        const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        const double x = u[1] * v[2] - u[2] * v[1], y = u[2] * v[0] - u[0] * v[2], z = u[0] * v[1] - u[1] * v[0];
        total += std::sqrt(x * x + y * y + z * z) / 2;
        cumulative.push_back(total);
    }
    rng r(seed);
    points<T, D> out(n);
    for (auto& p : out) {
        const double pick = r.uniform01() * total;
        const std::size_t fi = std::min<std::size_t>(
            static_cast<std::size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), pick) - cumulative.begin()),
            m.faces.size() - 1);
        const auto& f = m.faces[fi];
        double s = r.uniform01(), t = r.uniform01();
        if (s + t > 1) {
            s = 1 - s;
            t = 1 - t;
        }
        const auto &a = m.vertices[f[0]], &b = m.vertices[f[1]], &c = m.vertices[f[2]];
        for (std::size_t k = 0; k < D; ++k) p[k] = static_cast<T>(a[k] + s * (b[k] - a[k]) + t * (c[k] - a[k]));
    }
    return out;
}

// --- named data sets ---------------------------------------------------------------------

enum class kind { uniform, clustered, duplicates, identical, collinear, axis_line, lattice, dyadic, spread, bunny, cities };

inline const char* name_of(kind k) {
    switch (k) {
        case kind::uniform: return "uniform";
        case kind::clustered: return "clustered";
        case kind::duplicates: return "duplicates";
        case kind::identical: return "identical";
        case kind::collinear: return "collinear";
        case kind::axis_line: return "axis_line";
        case kind::lattice: return "lattice";
        case kind::dyadic: return "dyadic";
        case kind::spread: return "spread";
        case kind::bunny: return "bunny";
        case kind::cities: return "cities";
    }
    return "?";
}

/// About n points of the given kind (lattice: the nearest full lattice; cities: all of them).
template <class T, std::size_t D>
points<T, D> make_points(kind k, std::size_t n, std::uint64_t seed) {
    switch (k) {
        case kind::uniform: return uniform_points<T, D>(n, seed);
        case kind::clustered: return clustered_points<T, D>(n, seed);
        case kind::duplicates: return duplicate_points<T, D>(n - n / 100, n / 100, seed);
        case kind::identical: return points<T, D>(n, make_point<T, D>({-1.75, 2.5, 1e-3}));
        case kind::collinear: return collinear_points<T, D>(n, seed, false);
        case kind::axis_line: return collinear_points<T, D>(n, seed, true);
        case kind::lattice: {
            const int half = static_cast<int>(std::pow(static_cast<double>(n), 1.0 / static_cast<double>(D)) / 2);
            return lattice_points<T, D>(std::max(half, 1));
        }
        case kind::dyadic: return dyadic_points<T, D>(n, seed);
        case kind::spread: return spread_points<T, D>(n, seed);
        case kind::bunny:
        case kind::cities:
            if constexpr (D == 2 || D == 3) return k == kind::bunny ? bunny_points<T, D>(n, seed) : city_points<T, D>();
            throw std::invalid_argument("quoct tests: the bunny and the cities are 2D or 3D");
    }
    return {};
}

// --- query generators --------------------------------------------------------------------

/// Ball queries that probe every regime against the data: radius 0 and tiny around data
/// points, radius exactly the distance to another data point (boundary hits), radii at every
/// scale from the data's extent down, huge and infinite radii, centres far outside, and
/// random centres inside the bounds.
template <class T, std::size_t D>
std::vector<quoct::ball<T, D>> make_balls(const points<T, D>& pts, std::size_t count, std::uint64_t seed) {
    rng r(seed);
    std::vector<quoct::ball<T, D>> out;
    const auto bb = brute_bounds(pts);
    const double ext = std::max(extent(pts), 1e-30);
    const T inf = std::numeric_limits<T>::infinity();
    auto random_inside = [&] {
        quoct::point<T, D> c;
        for (std::size_t a = 0; a < D; ++a) c[a] = static_cast<T>(r.uniform(bb.lo[a], bb.hi[a]));
        return c;
    };
    auto data_point = [&] { return pts[r.below(pts.size())]; };
    for (std::size_t q = 0; q < count; ++q) {
        quoct::ball<T, D> s;
        switch (q % 10) {
            case 0: s = {data_point(), T(0)}; break;
            case 1: s = {data_point(), static_cast<T>(ext * 1e-7)}; break;
            case 2: {  // through another data point: it lies exactly on the sphere's rounding boundary
                s.center = data_point();
                s.radius = std::sqrt(quoct::distance_sq(s.center, data_point()));
                break;
            }
            case 3: s = {data_point(), static_cast<T>(ext * std::pow(10.0, r.uniform(-6, 0)))}; break;
            case 4: s = {random_inside(), static_cast<T>(ext * std::pow(10.0, r.uniform(-4, 0)))}; break;
            case 5: s = {random_inside(), static_cast<T>(ext * r.uniform(0, 0.3))}; break;
            case 6: s = {random_inside(), q % 20 == 6 ? inf : static_cast<T>(ext * 10)}; break;
            case 7: {  // far outside, reaching partway in (or not at all)
                s.center = bb.hi;
                for (std::size_t a = 0; a < D; ++a) s.center[a] = static_cast<T>(static_cast<double>(bb.hi[a]) + ext * r.uniform(0.5, 3));
                s.radius = static_cast<T>(ext * r.uniform(0, 3));
                break;
            }
            case 8: {  // around a data point, scale taken from its own magnitude (spread data)
                s.center = data_point();
                double m = 0;
                for (std::size_t a = 0; a < D; ++a) m = std::max(m, std::fabs(static_cast<double>(s.center[a])));
                s.radius = static_cast<T>(std::max(m, 1e-30) * std::pow(10.0, r.uniform(-3, 0.5)));
                break;
            }
            default: s = {data_point(), static_cast<T>(ext * r.uniform(0, 0.05))}; break;
        }
        // Scales derived from an infinite extent (data at +-max) may overflow: keep every
        // query valid (finite centre, radius not NaN).
        if (!std::isfinite(s.radius) && s.radius != inf) s.radius = inf;
        for (std::size_t a = 0; a < D; ++a)
            if (!std::isfinite(s.center[a])) s.center[a] = s.center[a] < 0 ? -std::numeric_limits<T>::max() : std::numeric_limits<T>::max();
        out.push_back(s);
    }
    return out;
}

/// Box queries: spanned by two data points (points on every face), degenerate at a data
/// point, around random centres at every scale, unbounded on some sides, far outside.
template <class T, std::size_t D>
std::vector<quoct::box<T, D>> make_boxes(const points<T, D>& pts, std::size_t count, std::uint64_t seed) {
    rng r(seed);
    std::vector<quoct::box<T, D>> out;
    const auto bb = brute_bounds(pts);
    const double ext = std::max(extent(pts), 1e-30);
    const T inf = std::numeric_limits<T>::infinity();
    auto data_point = [&] { return pts[r.below(pts.size())]; };
    for (std::size_t q = 0; q < count; ++q) {
        quoct::box<T, D> b;
        switch (q % 6) {
            case 0: {
                const auto p = data_point(), s = data_point();
                for (std::size_t a = 0; a < D; ++a) {
                    b.lo[a] = std::min(p[a], s[a]);
                    b.hi[a] = std::max(p[a], s[a]);
                }
                break;
            }
            case 1: b.lo = b.hi = data_point(); break;
            case 2:
            case 3: {
                const auto c = data_point();
                const double scale = ext * std::pow(10.0, r.uniform(-6, 0));
                for (std::size_t a = 0; a < D; ++a) {
                    b.lo[a] = static_cast<T>(static_cast<double>(c[a]) - scale * r.uniform01());
                    b.hi[a] = static_cast<T>(static_cast<double>(c[a]) + scale * r.uniform01());
                }
                break;
            }
            case 4: {  // unbounded on random sides
                const auto c = data_point();
                for (std::size_t a = 0; a < D; ++a) {
                    b.lo[a] = r.coin() ? -inf : c[a];
                    b.hi[a] = r.coin() ? inf : std::max(c[a], bb.hi[a]);
                }
                break;
            }
            default: {  // beyond the data on axis 0, or touching its upper face
                b.lo = bb.lo;
                b.hi = bb.hi;
                b.lo[0] = q % 12 == 5 ? bb.hi[0] : static_cast<T>(static_cast<double>(bb.hi[0]) + ext * r.uniform(1e-6, 1));
                b.hi[0] = std::max(b.lo[0], static_cast<T>(static_cast<double>(b.lo[0]) + ext));
                break;
            }
        }
        for (std::size_t a = 0; a < D; ++a) {
            if (std::isnan(b.lo[a])) b.lo[a] = -inf;  // inf * 0 from an infinite extent
            if (std::isnan(b.hi[a])) b.hi[a] = inf;
            if (!(b.lo[a] <= b.hi[a])) std::swap(b.lo[a], b.hi[a]);
        }
        out.push_back(b);
    }
    return out;
}

/// The points as one flat array of coordinates, D per point (the flat `const T*` input).
template <class T, std::size_t D>
std::vector<T> flatten(const points<T, D>& pts) {
    std::vector<T> flat;
    for (const auto& p : pts)
        for (std::size_t a = 0; a < D; ++a) flat.push_back(p[a]);
    return flat;
}

/// The points as std::array (the std::array input).
template <class T, std::size_t D>
std::vector<std::array<T, D>> as_arrays(const points<T, D>& pts) {
    std::vector<std::array<T, D>> out(pts.size());
    for (std::size_t i = 0; i < pts.size(); ++i)
        for (std::size_t a = 0; a < D; ++a) out[i][a] = pts[i][a];
    return out;
}

// --- brute-force oracles ----------------------------------------------------------------

/// Ids (ascending) of the points in the closed ball, by the kernel's membership predicate.
template <class Id = std::uint32_t, class T, std::size_t D>
std::vector<Id> brute_ball(const points<T, D>& pts, const quoct::ball<T, D>& s) {
    std::vector<Id> out;
    for (std::size_t i = 0; i < pts.size(); ++i)
        if (quoct::contains(s, pts[i])) out.push_back(static_cast<Id>(i));
    return out;
}

/// Ids (ascending) of the points in the closed box.
template <class Id = std::uint32_t, class T, std::size_t D>
std::vector<Id> brute_box(const points<T, D>& pts, const quoct::box<T, D>& b) {
    std::vector<Id> out;
    for (std::size_t i = 0; i < pts.size(); ++i)
        if (quoct::contains(b, pts[i])) out.push_back(static_cast<Id>(i));
    return out;
}

/// Ids (ascending) of the points a predicate accepts.
template <class Id = std::uint32_t, class T, std::size_t D, class Pred>
std::vector<Id> brute_if(const points<T, D>& pts, Pred pred) {
    std::vector<Id> out;
    for (std::size_t i = 0; i < pts.size(); ++i)
        if (pred(pts[i])) out.push_back(static_cast<Id>(i));
    return out;
}

/// The min(k, n) nearest points to p by distance_sq, ties by smaller id: the squared
/// distances of the ball predicate, with no overflow or underflow (detail::wide, itself
/// checked against an exact big-integer oracle in test_extremes.cpp), reported rounded to T.
template <class Id = std::uint32_t, class T, std::size_t D>
std::vector<quoct::neighbor<T, Id>> brute_nearest(const points<T, D>& pts, const quoct::point<T, D>& p, std::size_t k) {
    struct measured {
        quoct::detail::wide<T> d;
        Id id;
    };
    std::vector<measured> all(pts.size());
    for (std::size_t i = 0; i < pts.size(); ++i)
        all[i] = {quoct::detail::wide_sum_sq<T, D>(quoct::detail::point_offsets<T, D>{pts[i], p}), static_cast<Id>(i)};
    const auto before = [](const measured& x, const measured& y) {
        return quoct::detail::wide_less(x.d, y.d) || (!quoct::detail::wide_less(y.d, x.d) && x.id < y.id);
    };
    k = std::min(k, all.size());
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end(), before);
    std::vector<quoct::neighbor<T, Id>> out(k);
    for (std::size_t i = 0; i < k; ++i) out[i] = {all[i].id, quoct::detail::wide_value(all[i].d)};
    return out;
}

/// Brute force with distances, by the ball predicate, sorted by (distance_sq, id).
template <class T, std::size_t D, class Dist>
std::vector<quoct::neighbor<T, std::uint32_t>> brute_within(const points<T, D>& pts, const quoct::ball<T, D>& s,
                                                            Dist dist, const std::vector<bool>* live = nullptr) {
    std::vector<quoct::neighbor<T, std::uint32_t>> out;
    const T r_sq = s.radius * s.radius;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        if (live && !(*live)[i]) continue;
        const T d = dist(pts[i], s.center);
        if (d <= r_sq) out.push_back({static_cast<std::uint32_t>(i), d});
    }
    quoct::detail::order_results(out, quoct::result_order::nearest_first);
    return out;
}

/// The order of nearest answers: by distance_sq, ties by smaller id.
template <class T, class Id>
bool nb_before(const quoct::neighbor<T, Id>& x, const quoct::neighbor<T, Id>& y) {
    return x.distance_sq < y.distance_sq || (x.distance_sq == y.distance_sq && x.id < y.id);
}

/// The first min(k, n) of all (id, distance) pairs with distance <= limit, by (distance, id).
template <class T, class Id = std::uint32_t>
std::vector<quoct::neighbor<T, Id>> first_k(std::vector<quoct::neighbor<T, Id>> all, std::size_t k, T limit) {
    all.erase(std::remove_if(all.begin(), all.end(), [&](const auto& n) { return !(n.distance_sq <= limit); }),
              all.end());
    std::sort(all.begin(), all.end(), nb_before<T, Id>);
    if (all.size() > k) all.resize(k);
    return all;
}

/// The k of the nearest tests: small ones, each side of 32 (knn_set's switch from a sorted
/// array to a heap) and more than most data sets hold.
inline constexpr std::size_t ks[] = {1, 2, 5, 10, 31, 32, 33, 64, 200, 5000};

// --- comparison --------------------------------------------------------------------------

template <class Id>
std::vector<Id> sorted(std::vector<Id> v) {
    std::sort(v.begin(), v.end());
    return v;
}

/// "" when `got` holds the same ids as `want` (any order, same multiplicity), else a
/// one-line explanation: sizes and the first unexpected and missing ids. Linear time (a
/// tally per id, not a sort), so results of 10^5 ids stay cheap. Use as
/// CHECK(id_diff(got, want) == "").
template <class Id>
std::string id_diff(const std::vector<Id>& got, const std::vector<Id>& want) {
    if (got == want) return "";
    std::size_t top = 0;
    for (const Id id : got) top = std::max(top, static_cast<std::size_t>(id) + 1);
    for (const Id id : want) top = std::max(top, static_cast<std::size_t>(id) + 1);
    std::vector<long> tally(top, 0);  // +1 per time got has it, -1 per time want has it
    for (const Id id : got) ++tally[static_cast<std::size_t>(id)];
    for (const Id id : want) --tally[static_cast<std::size_t>(id)];
    std::size_t extra = 0, missing = 0, first_extra = 0, first_missing = 0;
    for (std::size_t id = 0; id < top; ++id) {
        if (tally[id] > 0 && extra++ == 0) first_extra = id;
        if (tally[id] < 0 && missing++ == 0) first_missing = id;
    }
    if (extra == 0 && missing == 0) return "";
    std::ostringstream s;
    s << "got " << got.size() << " ids, want " << want.size();
    if (extra) s << "; " << extra << " unexpected (or repeated), first " << first_extra;
    if (missing) s << "; " << missing << " missing, first " << first_missing;
    return s.str();
}

/// "" when two nearest-neighbour lists agree exactly (ids, order and distances).
template <class T, class Id>
std::string neighbor_diff(const std::vector<quoct::neighbor<T, Id>>& got, const std::vector<quoct::neighbor<T, Id>>& want) {
    std::ostringstream s;
    if (got.size() != want.size()) s << "got " << got.size() << " neighbours, want " << want.size() << "; ";
    for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i)
        if (got[i].id != want[i].id || !(got[i].distance_sq == want[i].distance_sq)) {
            s.precision(17);
            s << "rank " << i << ": got (" << +got[i].id << ", " << got[i].distance_sq << "), want (" << +want[i].id
              << ", " << want[i].distance_sq << ")";
            break;
        }
    return s.str();
}

/// "" when `got` is a right answer of a nearest query with ties::any, whose answer with
/// ties by smaller id is `want`: the same distances rank by rank, each id distinct and of an
/// object at that distance (`measure(id)`); else what differs.
template <class T, class Id, class Measure>
std::string any_tie_diff(const std::vector<quoct::neighbor<T, Id>>& got, const std::vector<quoct::neighbor<T, Id>>& want,
                         Measure&& measure) {
    std::ostringstream s;
    s.precision(17);
    if (got.size() != want.size()) return "got " + std::to_string(got.size()) + " neighbours, want " + std::to_string(want.size());
    std::vector<Id> ids;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (!(got[i].distance_sq == want[i].distance_sq) || !(measure(got[i].id) == got[i].distance_sq)) {
            s << "rank " << i << ": got (" << +got[i].id << ", " << got[i].distance_sq << "), its distance "
              << measure(got[i].id) << ", want distance " << want[i].distance_sq;
            return s.str();
        }
        ids.push_back(got[i].id);
    }
    std::sort(ids.begin(), ids.end());
    if (std::adjacent_find(ids.begin(), ids.end()) != ids.end()) return "an id twice";
    return "";
}

/// A readable rendering of a point or box for INFO.
template <class T, std::size_t D>
std::string str(const quoct::point<T, D>& p) {
    std::ostringstream s;
    s.precision(std::numeric_limits<T>::max_digits10);
    s << '(';
    for (std::size_t a = 0; a < D; ++a) s << (a ? ", " : "") << p[a];
    s << ')';
    return s.str();
}
template <class T, std::size_t D>
std::string str(const quoct::box<T, D>& b) {
    return "box[" + str(b.lo) + " .. " + str(b.hi) + "]";
}
template <class T, std::size_t D>
std::string str(const quoct::ball<T, D>& s) {
    std::ostringstream r;
    r.precision(std::numeric_limits<T>::max_digits10);
    r << "ball{" << str(s.center) << ", r=" << s.radius << "}";
    return r.str();
}

// --- checks (Catch assertions) -----------------------------------------------------------

/// Checks one radius-with-distances answer against brute_within: sorted, equal exactly;
/// unsorted, the same set once sorted, and the same ids as query().
template <class Index, class T, std::size_t D, class Dist>
void check_within(const Index& index, const points<T, D>& pts, const quoct::ball<T, D>& s, Dist dist,
                  const std::vector<bool>* live = nullptr) {
    INFO("ball " << str(s));
    const auto want = brute_within(pts, s, dist, live);
    const auto sorted_got = index.query_with_distances(s, quoct::result_order::nearest_first);
    CHECK(neighbor_diff(sorted_got, want) == "");
    std::vector<quoct::neighbor<T, std::uint32_t>> any;
    index.query(s, any);
    std::vector<std::uint32_t> any_ids;
    for (const auto& n : any) any_ids.push_back(n.id);
    CHECK(id_diff(sorted(any_ids), sorted(index.query(s))) == "");
    quoct::detail::order_results(any, quoct::result_order::nearest_first);
    CHECK(neighbor_diff(any, want) == "");
}

// --- Boost.Geometry, as an independent reference -----------------------------------------

template <class T, std::size_t D>
using bg_point = boost::geometry::model::point<T, D, boost::geometry::cs::cartesian>;
template <class T, std::size_t D>
using bg_box = boost::geometry::model::box<bg_point<T, D>>;

namespace detail {
template <class T, std::size_t D, std::size_t... I>
bg_point<T, D> to_bg(const quoct::point<T, D>& p, std::index_sequence<I...>) {
    bg_point<T, D> q;
    (boost::geometry::set<I>(q, p[I]), ...);
    return q;
}
}  // namespace detail

/// The same point as a Boost.Geometry cartesian point (written here, independently of
/// quoct/interop/boost_geometry.hpp, so the kernel tests do not trust the adapter).
template <class T, std::size_t D>
bg_point<T, D> to_bg(const quoct::point<T, D>& p) {
    return detail::to_bg(p, std::make_index_sequence<D>{});
}
template <class T, std::size_t D>
bg_box<T, D> to_bg(const quoct::box<T, D>& b) {
    return bg_box<T, D>(to_bg(b.lo), to_bg(b.hi));
}

/// Boost.Geometry's squared distance between points, computed in T: the comparable
/// pythagoras strategy returns the sum of squares (no sqrt); by default it would promote
/// float to double, so the strategy is given the calculation type explicitly.
template <class T, std::size_t D>
T bg_distance_sq(const quoct::point<T, D>& a, const quoct::point<T, D>& b) {
    return boost::geometry::comparable_distance(to_bg(a), to_bg(b),
                                                boost::geometry::strategy::distance::comparable::pythagoras<T>());
}
/// Boost.Geometry's squared distance from a point to a box (0 inside), computed in T.
template <class T, std::size_t D>
T bg_distance_sq(const quoct::point<T, D>& p, const quoct::box<T, D>& b) {
    return boost::geometry::comparable_distance(
        to_bg(p), to_bg(b), boost::geometry::strategy::distance::comparable::pythagoras_point_box<T>());
}

}  // namespace quoct_test

#endif  // QUOCT_TESTS_TEST_SUPPORT_HPP
