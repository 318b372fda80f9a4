// bench_geo_centers: many query centres against the world cities in one process, as
// `quoct near --centers` answers them (issue 12): the nearest city to each of 10,000
// centres, and every city within 25 km of each, on one quoct::geo::index. Peers in the same
// binary, so that ratios come out of one run:
//   - brute force: every centre scans all 135k cities with geo::distance (the documented
//     predicate), on a sample of the centres (it is about 135k times slower per centre);
//   - per centre: what one `quoct near` process per centre does, reading data/cities.csv
//     and building the index for every centre, on a smaller sample.
// Every benchmark reports items_per_second = centres answered per second, so the ratios are
// of items/s. The set-up checks that the index and brute force give the same answers.
// The centres: 10,000 cities drawn with a fixed seed, each moved by up to 0.2 degrees (a
// sensor near a town). QUOCT_BENCH_SMOKE=1 shrinks every sample (for ctest).
//
//   build/bench/bench_geo_centers [--benchmark_filter=...]
#include <quoct/geo/index.hpp>
#include <quoct/io/locations.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

namespace geo = quoct::geo;

const std::string cities_csv = std::string(QUOCT_BENCH_DATA_DIR) + "/cities.csv";
constexpr double radius_m = 25000;

bool smoke() {
    const char* s = std::getenv("QUOCT_BENCH_SMOKE");
    return s != nullptr && *s != '\0' && std::string(s) != "0";
}

struct data {
    std::vector<geo::lonlat> cities, centres;
};

const data& the_data() {
    static const data d = [] {
        data out;
        out.cities = quoct::io::read_locations_csv(cities_csv).locations;
        std::mt19937_64 rng(20261123);
        std::uniform_int_distribution<std::size_t> pick(0, out.cities.size() - 1);
        std::uniform_real_distribution<double> jitter(-0.2, 0.2);
        const std::size_t n = smoke() ? 200 : 10000;
        for (std::size_t i = 0; i < n; ++i) {
            const geo::lonlat c = out.cities[pick(rng)];
            out.centres.push_back({std::clamp(c.lon + jitter(rng), -180.0, 180.0), std::clamp(c.lat + jitter(rng), -90.0, 90.0)});
        }
        return out;
    }();
    return d;
}

// The first n centres (all when n is larger).
std::vector<geo::lonlat> sample(std::size_t n) {
    const auto& c = the_data().centres;
    return {c.begin(), c.begin() + static_cast<std::ptrdiff_t>(std::min(n, c.size()))};
}

// Brute force for one centre: the nearest (smallest (distance, id)), or the count within r.
std::uint32_t brute_nearest(const std::vector<geo::lonlat>& cities, geo::lonlat c) {
    std::uint32_t best = 0;
    double best_d = geo::distance(c, cities[0]);
    for (std::uint32_t i = 1; i < cities.size(); ++i) {
        const double d = geo::distance(c, cities[i]);
        if (d < best_d) best = i, best_d = d;
    }
    return best;
}

std::size_t brute_count(const std::vector<geo::lonlat>& cities, geo::lonlat c) {
    std::size_t n = 0;
    for (const auto& p : cities) n += geo::distance(c, p) <= radius_m;
    return n;
}

// The index and brute force agree on a sample of the centres; returns false if not.
bool answers_agree(const geo::index<>& ix) {
    const auto& d = the_data();
    for (const auto& c : sample(smoke() ? 5 : 50))
        if (ix.nearest(c.lon, c.lat, 1).front().id != brute_nearest(d.cities, c) ||
            ix.count_within(c.lon, c.lat, radius_m) != brute_count(d.cities, c))
            return false;
    return true;
}

void set_items(benchmark::State& state, std::size_t centres) {
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(centres));
    state.counters["centres"] = static_cast<double>(centres);
}

// quoct: one index over the cities (built inside the timed loop), then every centre.
template <bool Within>
void one_index(benchmark::State& state) {
    const auto& d = the_data();
    if (!answers_agree(geo::index<>(d.cities))) state.SkipWithError("index and brute force disagree");
    std::size_t found = 0;
    for (auto _ : state) {
        const geo::index<> ix(d.cities);
        std::vector<std::uint32_t> ids;
        for (const auto& c : d.centres) {
            if (Within) {
                ix.within(c.lon, c.lat, radius_m, ids);
                found += ids.size();
            } else {
                found += ix.nearest(c.lon, c.lat, 1).front().id;
            }
        }
        benchmark::DoNotOptimize(found);
    }
    set_items(state, d.centres.size());
}

// Brute force over every city, per centre, on a sample of the centres.
template <bool Within>
void brute_force(benchmark::State& state) {
    const auto& d = the_data();
    const auto centres = sample(smoke() ? 5 : 100);
    std::size_t found = 0;
    for (auto _ : state) {
        for (const auto& c : centres) found += Within ? brute_count(d.cities, c) : brute_nearest(d.cities, c);
        benchmark::DoNotOptimize(found);
    }
    set_items(state, centres.size());
}

// One `quoct near` per centre: read the CSV, build the index, answer one centre.
template <bool Within>
void per_centre(benchmark::State& state) {
    const auto centres = sample(smoke() ? 1 : 10);
    std::size_t found = 0;
    for (auto _ : state) {
        for (const auto& c : centres) {
            const auto table = quoct::io::read_locations_csv(cities_csv);
            const geo::index<> ix(table.locations);
            found += Within ? ix.count_within(c.lon, c.lat, radius_m) : ix.nearest(c.lon, c.lat, 1).front().id;
        }
        benchmark::DoNotOptimize(found);
    }
    set_items(state, centres.size());
}

BENCHMARK_TEMPLATE(one_index, false)->Name("centres_nearest/quoct_one_index")->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(brute_force, false)->Name("centres_nearest/brute_force")->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(per_centre, false)->Name("centres_nearest/per_centre_reload")->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(one_index, true)->Name("centres_within_25km/quoct_one_index")->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(brute_force, true)->Name("centres_within_25km/brute_force")->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(per_centre, true)->Name("centres_within_25km/per_centre_reload")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
