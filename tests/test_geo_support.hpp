// quoct tests: helpers for the geographic index tests (test_geo.cpp, test_geo_boost.cpp).
// The world cities from data/cities.csv, a portable seeded random source, brute-force
// oracles over quoct::geo's own predicates, Boost.Geometry's haversine, and an order-free
// comparison of id lists.
#ifndef QUOCT_TESTS_TEST_GEO_SUPPORT_HPP
#define QUOCT_TESTS_TEST_GEO_SUPPORT_HPP

#include <quoct/geo/index.hpp>

#include <boost/geometry/algorithms/distance.hpp>
#include <boost/geometry/core/cs.hpp>
#include <boost/geometry/geometries/point.hpp>
#include <boost/geometry/strategies/spherical/distance_haversine.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace geo_test {

using quoct::geo::lonlat;
using ids = std::vector<std::uint32_t>;

// --- data ----------------------------------------------------------------------------

/// Path of a file in the repository's data/ folder: QUOCT_DATA_DIR if the build defines it,
/// else found from this header's own path, else relative to the working directory.
inline std::string data_path(const std::string& name) {
    std::vector<std::string> dirs;
#ifdef QUOCT_DATA_DIR
    dirs.push_back(QUOCT_DATA_DIR);
#endif
    const std::string here = __FILE__;
    const auto slash = here.find_last_of("/\\");
    if (slash != std::string::npos) dirs.push_back(here.substr(0, slash) + "/../data");
    for (const char* d : {"data", "../data", "../../data", "../../../data"}) dirs.push_back(d);
    for (const auto& d : dirs)
        if (std::ifstream(d + "/" + name).good()) return d + "/" + name;
    throw std::runtime_error("quoct geo tests: cannot find data/" + name + " (define QUOCT_DATA_DIR)");
}

/// The fields of one CSV record (RFC 4180 quoting: commas inside quotes, "" for a quote).
/// Throws on a quote left open, which would mean a record spanning lines (none here).
inline std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            fields.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            fields.emplace_back();
        } else if (c != '\r' || quoted) {
            fields.back() += c;
        }
    }
    if (quoted) throw std::runtime_error("quoct geo tests: unterminated quote in: " + line);
    return fields;
}

inline double parse_number(const std::string& s) {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used != s.size() || s.empty()) throw std::runtime_error("quoct geo tests: bad number '" + s + "'");
    return v;
}

/// data/cities.csv as locations, in file order (so a city's id is its row number, from 0).
/// Checks the header and the field count of every row.
inline const std::vector<lonlat>& cities() {
    static const std::vector<lonlat> all = [] {
        std::ifstream in(data_path("cities.csv"));
        std::string line;
        if (!std::getline(in, line) || csv_fields(line) != std::vector<std::string>{"id", "name", "country", "population", "lon", "lat"})
            throw std::runtime_error("quoct geo tests: cities.csv has an unexpected header");
        std::vector<lonlat> out;
        while (std::getline(in, line)) {
            if (line.empty() || line == "\r") continue;
            const auto f = csv_fields(line);
            if (f.size() != 6) throw std::runtime_error("quoct geo tests: cities.csv row with " + std::to_string(f.size()) + " fields: " + line);
            out.push_back(lonlat{parse_number(f[4]), parse_number(f[5])});
        }
        return out;
    }();
    return all;
}

// --- random numbers ------------------------------------------------------------------

/// A seeded source with the same sequence everywhere (mt19937_64 is fixed by the standard;
/// the conversions are written out because the standard distributions are not portable).
class rng {
public:
    explicit rng(std::uint64_t seed) : engine_(seed) {}
    double uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }
    std::size_t below(std::size_t n) { return static_cast<std::size_t>(engine_() % n); }
    /// A location uniform on the sphere.
    lonlat location() {
        const double lon = uniform(-180, 180);
        const double lat = std::asin(uniform(-1, 1)) * 180 / quoct::geo::pi;
        return lonlat{lon, std::max(-90.0, std::min(90.0, lat))};
    }

private:
    std::mt19937_64 engine_;
};

// --- oracles -------------------------------------------------------------------------

/// Every point's quoct::geo::distance from c, by id.
inline std::vector<double> distances_from(const std::vector<lonlat>& pts, lonlat c) {
    std::vector<double> d(pts.size());
    for (std::size_t i = 0; i < pts.size(); ++i) d[i] = quoct::geo::distance(c, pts[i]);
    return d;
}

/// Ids whose distance (from distances_from) is at most r: within's predicate, brute force.
inline ids ids_within(const std::vector<double>& dist, double r) {
    ids out;
    for (std::size_t i = 0; i < dist.size(); ++i)
        if (dist[i] <= r) out.push_back(static_cast<std::uint32_t>(i));
    return out;
}

/// in_box's predicate, brute force.
inline ids ids_in_box(const std::vector<lonlat>& pts, double west, double south, double east, double north) {
    ids out;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        const lonlat& p = pts[i];
        const bool lon_ok = west <= east ? (west <= p.lon && p.lon <= east) : (p.lon >= west || p.lon <= east);
        if (lon_ok && south <= p.lat && p.lat <= north) out.push_back(static_cast<std::uint32_t>(i));
    }
    return out;
}

/// The first k of all ids sorted by (distance, id).
inline std::vector<quoct::geo::neighbor<std::uint32_t>> nearest_brute(const std::vector<double>& dist, std::size_t k) {
    std::vector<quoct::geo::neighbor<std::uint32_t>> all(dist.size());
    for (std::size_t i = 0; i < dist.size(); ++i) all[i] = {static_cast<std::uint32_t>(i), dist[i]};
    k = std::min(k, all.size());
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end(), [](const auto& a, const auto& b) {
        return a.distance < b.distance || (a.distance == b.distance && a.id < b.id);
    });
    all.resize(k);
    return all;
}

/// Boost.Geometry's haversine distance in metres on the same sphere: the independent reference.
inline double haversine(lonlat a, lonlat b) {
    namespace bg = boost::geometry;
    using point = bg::model::point<double, 2, bg::cs::spherical_equatorial<bg::degree>>;
    static const bg::strategy::distance::haversine<double> strategy(quoct::geo::earth_radius);
    return bg::distance(point(a.lon, a.lat), point(b.lon, b.lat), strategy);
}

/// The documented band within which distance() and haversine() may disagree by rounding:
/// 1e-6 m + 1e-9 * d, away from the antipode (within 10 km of it the haversine degrades).
inline double rounding_band(double d) { return 1e-6 + 1e-9 * d; }

// --- comparison ----------------------------------------------------------------------

inline ids sorted(ids v) {
    if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
    return v;
}

/// "" when got and want hold the same ids (in any order, duplicates counted), else a
/// one-line account of the differences, for Catch's INFO. Linear time: results can be large.
inline std::string compare_ids(const ids& got, const ids& want) {
    std::uint32_t top = 0;
    for (auto id : got) top = std::max(top, id);
    for (auto id : want) top = std::max(top, id);
    std::vector<long> balance(got.empty() && want.empty() ? 0 : std::size_t{top} + 1, 0);
    for (auto id : got) ++balance[id];
    for (auto id : want) --balance[id];
    std::size_t extra = 0, missing = 0;
    long first_extra = -1, first_missing = -1;
    for (std::size_t i = 0; i < balance.size(); ++i) {
        if (balance[i] > 0 && extra++ == 0) first_extra = static_cast<long>(i);
        if (balance[i] < 0 && missing++ == 0) first_missing = static_cast<long>(i);
    }
    if (extra == 0 && missing == 0) return "";
    std::ostringstream s;
    s << "got " << got.size() << " ids, want " << want.size() << "; " << extra << " extra (first " << first_extra
      << "), " << missing << " missing (first " << first_missing << ")";
    return s.str();
}

}  // namespace geo_test

#endif  // QUOCT_TESTS_TEST_GEO_SUPPORT_HPP
