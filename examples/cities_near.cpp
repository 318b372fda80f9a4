// Cities within a great-circle distance of a place, exactly, with a 3D octree.
//
// Usage: cities_near [lon lat km [cities.csv]]
//   default: within 30 km of Paris (2.3522, 48.8566) in quoct's data/cities.csv
//
// On a sphere, the points within great-circle distance d of a place are exactly the points
// within straight-line (chord) distance 2R sin(d / 2R) of it, so a ball query in 3D finds
// them with no special case at the antimeridian or the poles. The ball is made a hair
// larger than the chord so rounding cannot lose a city at the edge, and the haversine
// distance then decides, exactly as the brute-force check below does.
#include <quoct/io/csv.hpp>
#include <quoct/quoct.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr double earth_radius_km = 6371.0088;  // the mean Earth radius (IUGG)
constexpr double pi = 3.14159265358979323846;

using point3 = quoct::point<double, 3>;

double radians(double degrees) { return degrees * (pi / 180.0); }

// The point at (lon, lat) in degrees on the sphere of radius earth_radius_km, in km.
point3 to_sphere(double lon, double lat) {
    const double l = radians(lon), p = radians(lat);
    return point3{{earth_radius_km * std::cos(p) * std::cos(l), earth_radius_km * std::cos(p) * std::sin(l),
                   earth_radius_km * std::sin(p)}};
}

// Great-circle distance in km between two (lon, lat) places in degrees: the haversine formula.
double haversine_km(double lon1, double lat1, double lon2, double lat2) {
    const double dlat = std::sin(radians(lat2 - lat1) / 2), dlon = std::sin(radians(lon2 - lon1) / 2);
    const double h = dlat * dlat + std::cos(radians(lat1)) * std::cos(radians(lat2)) * dlon * dlon;
    return 2 * earth_radius_km * std::asin(std::sqrt(std::min(1.0, h)));
}

// The chord length (km) spanning a great-circle distance of `km`, padded against rounding.
double chord_km(double km) {
    const double half_angle = std::min(km / (2 * earth_radius_km), pi / 2);
    return 2 * earth_radius_km * std::sin(half_angle) * (1 + 1e-9) + 1e-9;
}

struct hit {
    std::size_t row;
    double km;
};

// The rows within `km` of (lon, lat), nearest first (ties by row).
std::vector<hit> cities_within(const quoct::octree<double>& tree, const std::vector<quoct::point<double, 2>>& lonlat,
                               double lon, double lat, double km) {
    std::vector<hit> hits;
    tree.visit(quoct::ball<double, 3>{to_sphere(lon, lat), chord_km(km)}, [&](std::uint32_t id, const point3&) {
        const double d = haversine_km(lon, lat, lonlat[id][0], lonlat[id][1]);
        if (d <= km) hits.push_back(hit{id, d});
    });
    std::sort(hits.begin(), hits.end(), [](const hit& a, const hit& b) { return a.km < b.km || (a.km == b.km && a.row < b.row); });
    return hits;
}

std::size_t brute_force_count(const std::vector<quoct::point<double, 2>>& lonlat, double lon, double lat, double km) {
    std::size_t n = 0;
    for (const auto& p : lonlat) n += haversine_km(lon, lat, p[0], p[1]) <= km ? 1u : 0u;
    return n;
}

}  // namespace

int main(int argc, char** argv) {
    const auto lon = argc > 1 ? quoct::io::parse_number(argv[1]) : std::optional<double>(2.3522);
    const auto lat = argc > 2 ? quoct::io::parse_number(argv[2]) : std::optional<double>(48.8566);
    const auto km = argc > 3 ? quoct::io::parse_number(argv[3]) : std::optional<double>(30.0);
    const std::string file = argc > 4 ? argv[4] : std::string(QUOCT_DATA_DIR) + "/cities.csv";
    if (argc > 5 || argc == 2 || argc == 3 || !lon || !lat || !km || std::abs(*lon) > 180 || std::abs(*lat) > 90 ||
        *km < 0) {
        std::fprintf(stderr, "usage: %s [lon lat km [cities.csv]]  (degrees, -180..180 and -90..90; km >= 0)\n",
                     argv[0]);
        return 2;
    }
    try {
        const quoct::io::csv_table table = quoct::io::read_csv(file);
        const auto lonlat = quoct::io::read_points<2>(table, {"lon", "lat"});
        std::vector<point3> on_sphere(lonlat.size());
        for (std::size_t i = 0; i < lonlat.size(); ++i) on_sphere[i] = to_sphere(lonlat[i][0], lonlat[i][1]);
        const quoct::octree<double> tree(on_sphere);

        const std::vector<hit> hits = cities_within(tree, lonlat, *lon, *lat, *km);
        const std::size_t name = table.column("name"), country = table.column("country"),
                          population = table.column("population");
        std::printf("%zu of %zu cities within %g km of (%g, %g):\n", hits.size(), table.rows.size(), *km, *lon, *lat);
        for (const hit& h : hits) {
            const auto row = table.rows[h.row];  // fields as std::string_view
            std::printf("%9.2f km  %-2s %10s  %s\n", h.km, std::string(row[country]).c_str(),
                        std::string(row[population]).c_str(), std::string(row[name]).c_str());
        }
        const std::size_t expected = brute_force_count(lonlat, *lon, *lat, *km);
        if (expected != hits.size()) {
            std::fprintf(stderr, "cities_near: brute force finds %zu cities, the tree %zu\n", expected, hits.size());
            return 1;
        }
        std::printf("%zu cities within %g km; a brute-force scan of all %zu agrees\n", hits.size(), *km,
                    table.rows.size());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cities_near: %s\n", e.what());
        return 1;
    }
}
