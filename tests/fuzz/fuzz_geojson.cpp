// Fuzz target: the GeoJSON reader, read_locations_geojson (<quoct/io/locations.hpp>). Only
// quoct::io::parse_error may escape, and what is read obeys the documented rules: valid
// locations only, unique property names, one value per column for every record, feature
// indexes increasing, skipped + kept = features under the skip policy; GeoJSON written by
// write_locations reads back to the same coordinates. Kept thin: the property checks are
// only those any reading of the properties must pass. The reader's JSON parse (linear in the
// text) reads what nlohmann::ordered_json::parse reads, or fails with the same message.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <quoct/io/locations.hpp>

#include <nlohmann/json.hpp>

#include "../../src/ordered_json.hpp"
#include "fuzz_support.hpp"

namespace {

// The value `parse` reads as compact JSON, or its error message.
template <class Parse>
std::string outcome(Parse&& parse) {
    try {
        return parse().dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    } catch (const nlohmann::json::exception& e) {
        return std::string("error: ") + e.what();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace io = quoct::io;
    using namespace quoct_fuzz;
    input in(data, size);
    io::read_options opt;
    opt.on_bad_row = in.byte() & 1 ? io::bad_row_policy::skip : io::bad_row_policy::stop;
    const std::string bytes = in.rest();
    const std::string expected = outcome([&] {
        std::istringstream whole(bytes);
        return nlohmann::ordered_json::parse(whole);
    });
    const std::string got = outcome([&] {
        std::istringstream whole(bytes);
        return io::detail::parse_ordered_json(whole);
    });
    QUOCT_FUZZ_CHECK(got == expected, "parse_ordered_json read " + got + ", ordered_json::parse " + expected);
    std::istringstream text(bytes);
    io::location_table loc;
    try {
        loc = io::read_locations_geojson(text, "fuzz.geojson", opt);
    } catch (const io::parse_error&) {
        return 0;
    }
    QUOCT_FUZZ_CHECK(loc.locations.size() == loc.values.size() && loc.values.size() == loc.origins.size(),
                     "locations, values and origins differ in length");
    // Under the stop policy only unlocated features (a null geometry) are left out.
    if (opt.on_bad_row == io::bad_row_policy::stop)
        for (const auto& s : loc.skipped)
            QUOCT_FUZZ_CHECK(s.message.find("has a null geometry (an unlocated feature)") != std::string::npos,
                             "stop policy skipped a feature that is not unlocated: " + s.message);
    QUOCT_FUZZ_CHECK(loc.values.width() == loc.columns.size() && loc.kinds.size() == loc.values.size() * loc.columns.size(),
                     "values or kinds of another shape");
    std::vector<std::string> names = sorted(loc.columns);
    QUOCT_FUZZ_CHECK(std::adjacent_find(names.begin(), names.end()) == names.end(), "a property name kept twice");
    for (std::size_t i = 0; i < loc.locations.size(); ++i) {
        const auto& p = loc.locations[i];
        QUOCT_FUZZ_CHECK(p.lon >= -180 && p.lon <= 180 && p.lat >= -90 && p.lat <= 90, "a bad location was kept");
        QUOCT_FUZZ_CHECK(loc.values[i].size() == loc.columns.size(), "a record with the wrong width");
        QUOCT_FUZZ_CHECK(i == 0 || loc.origins[i] > loc.origins[i - 1], "feature indexes do not increase");
    }
    // Kept and skipped features together are numbered 1, 2, 3, ... (as CSV counts lines),
    // with none twice; a kept feature's record number is its feature number.
    std::vector<std::size_t> where = loc.origins;
    for (const auto& s : loc.skipped) where.push_back(s.where);
    where = sorted(where);
    for (std::size_t i = 0; i < where.size(); ++i) QUOCT_FUZZ_CHECK(where[i] == i + 1, "features lost or counted twice");
    QUOCT_FUZZ_CHECK(loc.records == loc.origins, "record numbers are not the feature numbers");

    std::vector<io::hit> hits;
    for (std::size_t i = 0; i < loc.locations.size(); ++i) hits.push_back({i, 0});
    std::ostringstream out;
    io::write_options wo;
    wo.format = io::output_format::geojson;
    io::write_locations(out, loc, hits, wo);
    std::istringstream back_in(out.str());
    const io::location_table back = io::read_locations_geojson(back_in, "written.geojson");
    QUOCT_FUZZ_CHECK(back.locations.size() == loc.locations.size(), "written GeoJSON reads back with other features");
    for (std::size_t i = 0; i < loc.locations.size(); ++i)
        QUOCT_FUZZ_CHECK(back.locations[i].lon == loc.locations[i].lon && back.locations[i].lat == loc.locations[i].lat,
                         "written GeoJSON reads back with other coordinates");
    return 0;
}
