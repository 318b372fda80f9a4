// quoct::io: many names and keys read and written in work linear in the input. Fuzzing found
// a 2.7 KB CSV that took 22 s: output_columns copied the names still to come for every column
// and retried suffixes one by one. Column names are still written apart by the same rules;
// GeoJSON objects of many keys, and PLY properties of long names, had the same shape. Work is
// counted (allocations, key look-ups), never timed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <quoct/io/cloud.hpp>
#include <quoct/io/locations.hpp>

#include <nlohmann/json.hpp>

#include "../src/ordered_json.hpp"
#include "test_alloc_count.hpp"

namespace test_io_names {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

namespace io = quoct::io;
using strings = std::vector<std::string>;

// The renaming as first written (quadratic in the names and worse), kept as the oracle of
// its rules: a name keeps itself if free, else takes the first of name_2, name_3, ... that is
// neither taken nor one of the names still to come.
strings old_unique_names(const strings& wanted, strings taken) {
    strings out;
    const auto in = [](const strings& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); };
    for (std::size_t i = 0; i < wanted.size(); ++i) {
        std::string name = wanted[i];
        const strings later(wanted.begin() + static_cast<std::ptrdiff_t>(i) + 1, wanted.end());
        for (std::size_t n = 2; in(taken, name) || (name != wanted[i] && in(later, name)); ++n)
            name = wanted[i] + "_" + std::to_string(n);
        taken.push_back(name);
        out.push_back(std::move(name));
    }
    return out;
}

// output_columns as its documentation says, over old_unique_names.
strings model_columns(const io::location_table& t, const io::write_options& options) {
    const bool geojson = options.format == io::output_format::geojson;
    strings after;
    if (!geojson && !t.feature_ids.empty()) after.push_back("feature_id");
    if (!geojson) after.insert(after.end(), {"lon", "lat"});
    if (!geojson && !t.altitudes.empty()) after.push_back("altitude");
    if (options.with_distance) after.push_back("distance_km");
    strings reserved = after, names;
    if (!options.center_column.empty()) {
        names.push_back(options.center_column);
        reserved.push_back(options.center_column);
    }
    const strings kept = old_unique_names(t.columns, reserved);
    names.insert(names.end(), kept.begin(), kept.end());
    names.insert(names.end(), after.begin(), after.end());
    return names;
}

std::string joined(const strings& names) {
    std::string out;
    for (const std::string& name : names) out += (out.empty() ? "'" : ", '") + name + "'";
    return out;
}

// A CSV of `columns` columns all called "a" besides lon and lat, and two records.
std::string equal_names_csv(std::size_t columns) {
    std::string header = "lon,lat", row = "2.35,48.85";
    for (std::size_t c = 0; c < columns; ++c) {
        header += ",a";
        row += ",x";
    }
    return header + "\n" + row + "\n" + row + "\n";
}

// Reads `text` and writes all its records as `format`, counting what that allocates.
alloc_count::totals read_and_write(const std::string& text, io::output_format format, std::string& written) {
    alloc_count::start();
    {
        std::istringstream in(text);
        const io::location_table t = io::read_locations(io::read_csv(in, "names.csv"));
        io::write_options options;
        options.format = format;
        options.with_distance = true;
        std::ostringstream out;
        io::write_locations(out, t, {{0, 1000}, {1, 2000}}, options);
        written = out.str();
    }
    alloc_count::stop();
    return alloc_count::allocated();
}

// A random JSON text of nested objects and arrays whose keys repeat often, some objects
// past the size up to which parse_ordered_json searches the keys instead of hashing them.
std::string random_json(std::mt19937& rng, int depth) {
    const auto below = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    switch (depth > 0 ? below(6) : below(4)) {
    case 0: return std::to_string(static_cast<long>(below(2000)) - 1000);
    case 1: return below(2) ? "null" : below(2) ? "true" : "-2.5e-3";
    case 2: return "\"s" + std::to_string(below(10)) + "\"";
    case 3: return "\"\"";
    case 4: {
        std::string out = "[";
        for (std::size_t i = 0, n = below(5); i < n; ++i) out += (i ? "," : "") + random_json(rng, depth - 1);
        return out + "]";
    }
    default: {
        std::string out = "{";
        const std::size_t keys = below(3) == 0 ? 40 : 8;  // how many different keys
        for (std::size_t i = 0, n = below(60); i < n; ++i)
            out += std::string(i ? "," : "") + "\"k" + std::to_string(below(keys)) + "\":" + random_json(rng, depth - 1);
        return out + "}";
    }
    }
}

// The key probes of parse_ordered_json on `text`.
std::size_t probes_of(const std::string& text) {
    std::istringstream in(text);
    std::size_t probes = 0;
    quoct::io::detail::parse_ordered_json(in, &probes);
    return probes;
}

// An object of `n` keys made by key(i).
std::string object_of(std::size_t n, const std::function<std::string(std::size_t)>& key) {
    std::string out = "{";
    for (std::size_t i = 0; i < n; ++i) out += (i ? ",\"" : "\"") + key(i) + "\":" + std::to_string(i);
    return out + "}";
}

// A FeatureCollection of one Point feature with `n` properties p0, p1, ...
std::string many_properties(std::size_t n) {
    return R"({"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point",)"
           R"("coordinates":[2.35,48.85]},"properties":)" +
           object_of(n, [](std::size_t i) { return "p" + std::to_string(i); }) + "}]}";
}

}  // namespace

TEST_CASE("io names: repeated, suffixed and reserved names are renamed as the rules say", "[io][names]") {
    io::location_table t;
    t.columns = {"a", "a", "a_2", "lon", "a", "lon_2", "lon"};
    io::write_options csv;
    csv.format = io::output_format::csv;
    // The second "a" skips a_2, which a later column holds; "lon" is the writer's own.
    CHECK(io::output_columns(t, csv) == strings{"a", "a_3", "a_2", "lon_3", "a_4", "lon_2", "lon_4", "lon", "lat"});
    io::write_options geojson;
    geojson.format = io::output_format::geojson;
    geojson.center_column = "a_3";
    CHECK(io::output_columns(t, geojson) == strings{"a_3", "a", "a_4", "a_2", "lon", "a_5", "lon_2", "lon_3"});
}

TEST_CASE("io names: output_columns names as the first, quadratic renaming did, on random names", "[io][names]") {
    // Few names, many collisions: names that are each other's suffixed forms, the writer's
    // own names and the centre column's.
    const strings pool = {"a",   "a",   "a_2",         "a_3",           "a_2_2",      "a_10", "a_",        "_2",
                          "",    "b",   "b_2",         "lon",           "lat",        "lon_2", "lon_3",    "lat_2",
                          "feature_id", "feature_id_2", "altitude",     "altitude_2", "distance_km", "distance_km_2",
                          "center",     "center_2"};
    const strings centres = {"", "", "center", "a", "a_2", "lon", "distance_km_2"};
    std::mt19937 rng(20240611);
    const auto pick = [&](const strings& from) {
        return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng)];
    };
    for (int round = 0; round < 20000; ++round) {
        io::location_table t;
        const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 12)(rng);
        for (std::size_t c = 0; c < n; ++c) t.columns.push_back(pick(pool));
        if (rng() % 2) t.feature_ids = {"1"};
        if (rng() % 2) t.altitudes = {1.0};
        io::write_options options;
        options.format = std::vector<io::output_format>{io::output_format::table, io::output_format::csv,
                                                        io::output_format::geojson}[rng() % 3];
        options.with_distance = rng() % 2;
        options.center_column = pick(centres);
        const strings expected = model_columns(t, options);
        const strings got = io::output_columns(t, options);
        INFO("columns: " << joined(t.columns) << "; centre '" << options.center_column << "'");
        REQUIRE(got == expected);
    }
}

TEST_CASE("io names: a file of many equal column names is read and written in work linear in its size",
          "[io][names][alloc]") {
    // Work counted as the blocks and bytes allocated, which do not depend on the machine's
    // load: 8 times the columns may cost 8 times the work, give or take the hash tables'
    // and buffers' growth, not 64 times (the old renaming copied the names still to come for
    // every column: 62 times the bytes, and over 2 minutes for the 8000 columns).
    const std::string small = equal_names_csv(1000), large = equal_names_csv(8000);
    const auto check = [&](io::output_format format) {
        std::string small_out, large_out;
        const alloc_count::totals s = read_and_write(small, format, small_out);
        const alloc_count::totals l = read_and_write(large, format, large_out);
        INFO("1000 columns: " << s.blocks << " blocks, " << s.bytes << " bytes; 8000 columns: " << l.blocks
                              << " blocks, " << l.bytes << " bytes");
        CHECK(l.blocks < 16 * s.blocks);
        CHECK(l.bytes < 16 * s.bytes);
        return large_out;
    };
    SECTION("CSV") {
        std::string header = "a";
        for (int n = 2; n <= 8000; ++n) header += ",a_" + std::to_string(n);
        const std::string out = check(io::output_format::csv);
        CHECK(out.substr(0, out.find('\r')) == header + ",lon,lat,distance_km");
    }
    SECTION("table") { CHECK(check(io::output_format::table).rfind("a  a_2  a_3", 0) == 0); }
    SECTION("GeoJSON") {
        const std::string out = check(io::output_format::geojson);
        CHECK(out.find(R"("a":"x","a_2":"x")") != std::string::npos);
        CHECK(out.find(R"("a_8000":"x","distance_km":1.0})") != std::string::npos);
    }
}

TEST_CASE("io names: parse_ordered_json reads what ordered_json::parse reads, and fails as it fails", "[io][names][geo]") {
    std::mt19937 rng(7);
    for (int round = 0; round < 2000; ++round) {
        const std::string text = random_json(rng, 3);
        std::istringstream in(text);
        const nlohmann::ordered_json got = quoct::io::detail::parse_ordered_json(in);
        const nlohmann::ordered_json expected = nlohmann::ordered_json::parse(text);
        INFO(text);
        REQUIRE(got.dump() == expected.dump());  // members in the same order, last values of repeated keys
    }
    for (const std::string text : {"", " ", "{", "[1,]", R"({"a":})", R"({"a":1,"a"})", "{} x", "nul", R"("\u12")",
                                   R"({"k0":1,"k1":2,"k2":3,"k3":4,"k4":5,"k5":6,"k6":7,"k7":8,"k8":9,"k9":10,
                                   "k10":1,"k11":2,"k12":3,"k13":4,"k14":5,"k15":6,"k16":7,"k17":8,"k0":)"}) {
        std::string expected, got;
        try {
            expected = "no exception: " + nlohmann::ordered_json::parse(text).dump();
        } catch (const nlohmann::json::exception& e) {
            expected = e.what();
        }
        try {
            std::istringstream in(text);
            got = "no exception: " + quoct::io::detail::parse_ordered_json(in).dump();
        } catch (const nlohmann::json::exception& e) {
            got = e.what();
        }
        CHECK(got == expected);
    }
}

TEST_CASE("io names: JSON objects of many keys are parsed in work linear in their size", "[io][names][geo]") {
    // ordered_json::parse compares each key with all the earlier ones of its object:
    // 8 times the keys, 64 times the comparisons.
    const auto distinct = [](std::size_t i) { return "k" + std::to_string(i); };
    const auto equal = [](std::size_t) { return std::string("k"); };
    for (const auto& key : {std::function<std::string(std::size_t)>(distinct), std::function<std::string(std::size_t)>(equal)}) {
        const std::size_t small = probes_of(object_of(1000, key)), large = probes_of(object_of(8000, key));
        INFO("1000 keys: " << small << " probes; 8000 keys: " << large);
        CHECK(small >= 999);  // a probe at least for every key but the first
        CHECK(large < 16 * small);
    }
}

TEST_CASE("io names: a GeoJSON feature of many properties is read in work linear in its size", "[io][names][geo]") {
    // Counted: the parse's key probes, and a look-up a property for its column (a search of
    // the columns so far took 64 times the comparisons for 8 times the properties).
    const auto read = [&](std::size_t n, std::size_t& probes) {
        std::istringstream in(many_properties(n));
        return quoct::io::detail::read_locations_geojson(in, "many.geojson", {}, &probes);
    };
    std::size_t small_probes = 0, large_probes = 0;
    read(1000, small_probes);
    const io::location_table large = read(8000, large_probes);
    INFO("1000 properties: " << small_probes << " probes; 8000: " << large_probes);
    CHECK(large_probes < 16 * small_probes);
    REQUIRE(large.columns.size() == 8000);
    CHECK(large.columns[7999] == "p7999");
    CHECK(large.values[0][7999] == "7999");
}

TEST_CASE("io names: a PLY property of a long name is read in work linear in the file's size", "[io][names][cloud]") {
    // Each value's description (for an error message) was made whether needed or not: the
    // name's length in bytes per value: 62 times the bytes for 8 times the name and the points.
    const auto ply = [](std::size_t n) {
        std::string text = "ply\nformat ascii 1.0\nelement vertex " + std::to_string(n) +
                           "\nproperty float x\nproperty float y\nproperty float z\nproperty float " +
                           std::string(n, 'q') + "\nend_header\n";
        for (std::size_t i = 0; i < n; ++i) text += "1 2 3 4\n";
        return text;
    };
    const auto read = [](const std::string& text) {
        std::istringstream in(text);
        alloc_count::start();
        const quoct::io::point_cloud c = quoct::io::read_ply(in, "long.ply");
        alloc_count::stop();
        CHECK(c.properties.size() == c.size());
        return alloc_count::allocated();
    };
    const alloc_count::totals s = read(ply(2000)), l = read(ply(16000));
    INFO("2000: " << s.blocks << " blocks, " << s.bytes << " bytes; 16000: " << l.blocks << " blocks, " << l.bytes << " bytes");
    CHECK(l.blocks < 16 * s.blocks);
    CHECK(l.bytes < 16 * s.bytes);
}

TEST_CASE("io names: a GeoJSON feature of many properties is written in work linear in its size", "[io][names][geo]") {
    // Counted as allocations; the same properties come back in the same order. The count
    // cannot see the old writer's cost: it set each property by name, which ordered_json
    // finds by comparing it with every earlier one, allocating nothing. Names being unique,
    // the writer now appends them.
    const auto write = [](std::size_t n, std::string& text) {
        std::istringstream in(many_properties(n));
        const io::location_table t = io::read_locations_geojson(in, "many.geojson");
        io::write_options options;
        options.format = io::output_format::geojson;
        alloc_count::start();
        {
            std::ostringstream out;
            io::write_locations(out, t, {{0, 0}}, options);
            text = out.str();
        }
        alloc_count::stop();
        return alloc_count::allocated();
    };
    std::string small_text, large_text;
    const alloc_count::totals s = write(1000, small_text), l = write(8000, large_text);
    CHECK(l.blocks < 16 * s.blocks);
    CHECK(l.bytes < 16 * s.bytes);
    CHECK(nlohmann::ordered_json::parse(large_text)["features"][0]["properties"] ==
          nlohmann::ordered_json::parse(many_properties(8000))["features"][0]["properties"]);
}

}  // namespace test_io_names
