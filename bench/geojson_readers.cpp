// geojson_readers: why quoct::io reads GeoJSON with nlohmann/json, in numbers. Turns
// data/cities.csv (135k cities) into a GeoJSON FeatureCollection in memory with quoct::io,
// then times, best of 5, reading it back into lon, lat and string properties with
//   - quoct::io::read_locations_csv on the CSV file itself, for scale,
//   - quoct::io::read_locations_geojson (nlohmann::ordered_json, all checks, the shipped reader),
//   - nlohmann::json and nlohmann::ordered_json, parse and extract only,
//   - simdjson's DOM and On-Demand APIs, parse and extract only.
// Built only when CMake finds simdjson (Debian: libsimdjson-dev). Usage:
//   build/bench/geojson_readers [path/to/cities.csv]
#include <quoct/io/locations.hpp>

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

struct row {
    double lon = 0, lat = 0;
    std::vector<std::pair<std::string, std::string>> properties;
};

template <class F>
double best_ms(F&& f) {
    double best = 1e300;
    for (int i = 0; i < 5; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        const auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    return best;
}

template <class Json>
std::vector<row> with_nlohmann(const std::string& text) {
    const Json doc = Json::parse(text);
    std::vector<row> out;
    for (const auto& f : doc.at("features")) {
        row r;
        const auto& c = f.at("geometry").at("coordinates");
        r.lon = c.at(0).template get<double>();
        r.lat = c.at(1).template get<double>();
        for (const auto& item : f.at("properties").items())
            r.properties.emplace_back(item.key(), item.value().is_string() ? item.value().template get<std::string>()
                                                                           : item.value().dump());
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<row> with_simdjson_dom(const simdjson::padded_string& text) {
    simdjson::dom::parser parser;
    const simdjson::dom::element doc = parser.parse(text);
    std::vector<row> out;
    for (const simdjson::dom::element f : doc["features"]) {
        row r;
        const simdjson::dom::array c = f["geometry"]["coordinates"];
        r.lon = double(c.at(0));
        r.lat = double(c.at(1));
        for (const auto field : simdjson::dom::object(f["properties"]))
            r.properties.emplace_back(std::string(field.key), field.value.is_string()
                                                                  ? std::string(std::string_view(field.value))
                                                                  : simdjson::minify(field.value));
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<row> with_simdjson_ondemand(const simdjson::padded_string& text) {
    simdjson::ondemand::parser parser;
    auto doc = parser.iterate(text);
    std::vector<row> out;
    for (auto f : doc["features"]) {
        row r;
        for (auto field : f.get_object()) {
            const std::string_view key = field.unescaped_key();
            if (key == "geometry") {
                auto c = field.value()["coordinates"].get_array();
                auto it = c.begin();
                r.lon = double(*it);
                ++it;
                r.lat = double(*it);
            } else if (key == "properties") {
                for (auto p : field.value().get_object()) {
                    std::string name(std::string_view(p.unescaped_key()));
                    auto v = p.value();
                    if (v.type() == simdjson::ondemand::json_type::string)
                        r.properties.emplace_back(std::move(name), std::string(std::string_view(v.get_string())));
                    else
                        r.properties.emplace_back(std::move(name), std::string(std::string_view(v.raw_json_token())));
                }
            }
        }
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string csv = argc > 1 ? argv[1] : QUOCT_BENCH_DATA_DIR "/cities.csv";
    const quoct::io::location_table cities = quoct::io::read_locations_csv(csv);
    std::vector<quoct::io::hit> all(cities.locations.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i].id = i;
    std::ostringstream geojson;
    quoct::io::write_options geo;
    geo.format = quoct::io::output_format::geojson;
    quoct::io::write_locations(geojson, cities, all, geo);
    const std::string text = geojson.str();
    const simdjson::padded_string padded(text);

    std::size_t rows = 0;
    std::printf("%zu features, %.1f MB of GeoJSON; best of 5, ms\n", all.size(), static_cast<double>(text.size()) / 1e6);
    std::printf("quoct::io::read_locations_csv      %7.1f   (the same cities from CSV, for scale)\n",
                best_ms([&] { rows += quoct::io::read_locations_csv(csv).locations.size(); }));
    std::printf("quoct::io::read_locations_geojson  %7.1f\n", best_ms([&] {
                    std::istringstream in(text);
                    rows += quoct::io::read_locations_geojson(in, "memory").locations.size();
                }));
    std::printf("nlohmann::ordered_json             %7.1f\n",
                best_ms([&] { rows += with_nlohmann<nlohmann::ordered_json>(text).size(); }));
    std::printf("nlohmann::json                     %7.1f\n",
                best_ms([&] { rows += with_nlohmann<nlohmann::json>(text).size(); }));
    std::printf("simdjson DOM                       %7.1f\n", best_ms([&] { rows += with_simdjson_dom(padded).size(); }));
    std::printf("simdjson On-Demand                 %7.1f\n", best_ms([&] { rows += with_simdjson_ondemand(padded).size(); }));
    if (rows != 6 * 5 * all.size()) {
        std::fprintf(stderr, "geojson_readers: the readers disagree on the number of features\n");
        return 1;
    }
    return 0;
}
