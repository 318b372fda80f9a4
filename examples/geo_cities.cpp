// The geographic index on the world's cities: within a distance, the nearest few, and a
// lon/lat box, all across the antimeridian with no special handling by the caller.
//
// Usage: geo_cities [lon lat km [cities.csv]]
//   default: within 800 km of Suva, Fiji (178.4419, -18.1416), whose neighbours lie on both
//   sides of lon 180, in quoct's data/cities.csv
//
// quoct::geo::index answers exactly: its results are what a loop over every city with
// quoct::geo::distance (or the box test) gives, to the last bit. The program checks that
// and returns 1 if not.
#include <quoct/geo/index.hpp>
#include <quoct/io/csv.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace geo = quoct::geo;

namespace {

void print_city(const quoct::io::csv_table& table, std::uint32_t id, double metres) {
    const auto row = table.rows[id];  // fields as std::string_view
    std::printf("%9.1f km  %-2s %-28s (%.4f, %.4f)\n", metres / 1000, std::string(row[table.column("country")]).c_str(),
                std::string(row[table.column("name")]).c_str(), table.number(id, table.column("lon")),
                table.number(id, table.column("lat")));
}

// Brute-force checks: the same predicates over every city.
std::size_t count_within(const std::vector<geo::lonlat>& cities, geo::lonlat c, double metres) {
    std::size_t n = 0;
    for (const auto& p : cities) n += geo::distance(c, p) <= metres ? 1u : 0u;
    return n;
}

std::size_t count_in_box(const std::vector<geo::lonlat>& cities, double west, double south, double east, double north) {
    std::size_t n = 0;
    for (const auto& p : cities) {
        const bool lon_ok = west <= east ? (west <= p.lon && p.lon <= east) : (p.lon >= west || p.lon <= east);
        n += lon_ok && south <= p.lat && p.lat <= north ? 1u : 0u;
    }
    return n;
}

}  // namespace

int main(int argc, char** argv) {
    const auto lon = argc > 1 ? quoct::io::parse_number(argv[1]) : std::optional<double>(178.4419);
    const auto lat = argc > 2 ? quoct::io::parse_number(argv[2]) : std::optional<double>(-18.1416);
    const auto km = argc > 3 ? quoct::io::parse_number(argv[3]) : std::optional<double>(800.0);
    const std::string file = argc > 4 ? argv[4] : std::string(QUOCT_DATA_DIR) + "/cities.csv";
    if (argc > 5 || argc == 2 || argc == 3 || !lon || !lat || !km) {
        std::fprintf(stderr, "usage: %s [lon lat km [cities.csv]]  (degrees; km >= 0)\n", argv[0]);
        return 2;
    }
    try {
        const quoct::io::csv_table table = quoct::io::read_csv(file);
        std::vector<geo::lonlat> cities;
        for (const auto& p : quoct::io::read_points<2>(table, {"lon", "lat"})) cities.push_back({p[0], p[1]});
        const geo::index<> index(cities);  // throws std::invalid_argument for a lon/lat out of range

        const double metres = *km * 1000;
        const std::vector<std::uint32_t> near = index.within(*lon, *lat, metres);
        std::printf("%zu of %zu cities within %g km of (%g, %g); the 10 nearest:\n", near.size(), cities.size(), *km,
                    *lon, *lat);
        for (const auto& n : index.nearest(*lon, *lat, 10)) print_city(table, n.id, n.distance);

        // Ten degrees of longitude around the place; near lon 180 that gives west > east, a
        // box across the antimeridian.
        const auto wrap = [](double x) { return x > 180 ? x - 360 : x < -180 ? x + 360 : x; };
        const double west = wrap(*lon - 5), east = wrap(*lon + 5);
        const double south = std::max(-90.0, *lat - 5), north = std::min(90.0, *lat + 5);
        const std::size_t boxed = index.count_in_box(west, south, east, north);
        std::printf("%zu cities in the box lon %g..%g, lat %g..%g\n", boxed, west, east, south, north);

        const std::size_t want_near = count_within(cities, {*lon, *lat}, metres);
        const std::size_t want_box = count_in_box(cities, west, south, east, north);
        if (near.size() != want_near || boxed != want_box) {
            std::fprintf(stderr, "geo_cities: brute force finds %zu and %zu, the index %zu and %zu\n", want_near, want_box,
                         near.size(), boxed);
            return 1;
        }
        std::printf("a brute-force scan of all %zu cities agrees\n", cities.size());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "geo_cities: %s\n", e.what());
        return 1;
    }
}
