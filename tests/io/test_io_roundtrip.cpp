// quoct::io round trips (issues 11.5 and 12): what is written reads back with nothing lost.
// Every output format is read back by quoct's own readers (and GeoJSON by nlohmann::json
// too), and compared with the table it was written from.
#include <catch2/catch.hpp>

#include "test_io_support.hpp"

#include <quoct/io/locations.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace test_io_roundtrip {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

namespace io = quoct::io;
using strings = std::vector<std::string>;

io::location_table csv_text(const std::string& text, const io::read_options& options = {}) {
    std::istringstream in(text);
    return io::read_locations(io::read_csv(in, "t.csv"), options);
}

io::location_table geojson_text(const std::string& text, const io::read_options& options = {}) {
    std::istringstream in(text);
    return io::read_locations_geojson(in, "t.geojson", options);
}

std::vector<io::hit> all_rows(const io::location_table& t) {
    std::vector<io::hit> hits;
    for (std::size_t i = 0; i < t.locations.size(); ++i) hits.push_back({i, 1000.0 * static_cast<double>(i)});
    return hits;
}

std::string write(const io::location_table& t, io::output_format format, bool with_distance = false) {
    std::ostringstream out;
    io::write_options options;
    options.format = format;
    options.with_distance = with_distance;
    io::write_locations(out, t, all_rows(t), options);
    return out.str();
}

using quoct_test::failure;

}  // namespace

TEST_CASE("io round trip: duplicate column names survive GeoJSON output, renamed apart", "[io][geo][roundtrip]") {
    const auto t = csv_text("name,name,lon,lat\nParis,Paname,2.35,48.85\nLyon,Lugdunum,4.83,45.76\n");
    REQUIRE(t.columns == strings{"name", "name"});
    const std::string text = write(t, io::output_format::geojson);
    const auto doc = nlohmann::json::parse(text);
    REQUIRE(doc["features"].size() == 2);
    const auto& properties = doc["features"][1]["properties"];
    CHECK(properties.size() == 2);  // both columns, not one
    std::istringstream in(text);
    const auto back = io::read_locations_geojson(in, "back.geojson");
    REQUIRE(back.columns.size() == 2);
    for (std::size_t r = 0; r < t.locations.size(); ++r) {
        for (std::size_t c = 0; c < t.values.width(); ++c) CHECK(back.values[r][c] == t.values[r][c]);
        CHECK(back.locations[r].lon == t.locations[r].lon);
        CHECK(back.locations[r].lat == t.locations[r].lat);
    }
    CHECK(back.columns[0] == "name");
    CHECK(back.columns[1] != "name");
}

TEST_CASE("io round trip: CSV output reads back when a kept column is called lon, lat or distance_km",
          "[io][geo][roundtrip]") {
    // GeoJSON properties may have any name, the coordinates' included.
    const auto t = geojson_text(R"({"type":"FeatureCollection","features":[
        {"type":"Feature","geometry":{"type":"Point","coordinates":[10.5,20.25]},
         "properties":{"lon":"east","lat":"north","distance_km":7,"name":"a"}},
        {"type":"Feature","geometry":{"type":"Point","coordinates":[-3,4]},
         "properties":{"lon":"west","lat":"south","distance_km":8,"name":"b"}}]})");
    for (bool with_distance : {false, true}) {
        const std::string text = write(t, io::output_format::csv, with_distance);
        std::istringstream in(text);
        const io::csv_table csv = io::read_csv(in, "back.csv");
        const auto back = io::read_locations(csv);  // default lon/lat columns: the coordinates
        REQUIRE(back.locations.size() == t.locations.size());
        for (std::size_t r = 0; r < t.locations.size(); ++r) {
            CHECK(back.locations[r].lon == t.locations[r].lon);
            CHECK(back.locations[r].lat == t.locations[r].lat);
            // Every kept value is still there, under a name that says where it came from.
            for (std::size_t c = 0; c < t.columns.size(); ++c) {
                bool found = false;
                for (std::size_t k = 0; k < back.columns.size(); ++k)
                    found = found || (back.columns[k].rfind(t.columns[c], 0) == 0 && back.values[r][k] == t.values[r][c]);
                CHECK(found);
            }
        }
        // No two columns of the written header share a name.
        for (std::size_t a = 0; a < csv.header.size(); ++a)
            for (std::size_t b = a + 1; b < csv.header.size(); ++b) CHECK(csv.header[a] != csv.header[b]);
    }
}

TEST_CASE("io round trip: one column for both longitude and latitude is refused", "[io][geo][roundtrip]") {
    io::read_options options;
    options.lon_column = "lat";
    CHECK(failure([&] { csv_text("name,lon,lat\na,1,2\n", options); }) ==
          "t.csv: the longitude and latitude columns are both 'lat'; give two different columns");
}

TEST_CASE("io round trip: GeoJSON keeps property types, feature ids and altitudes", "[io][geo][roundtrip]") {
    const auto input = nlohmann::ordered_json::parse(R"({"type":"FeatureCollection","features":[
      {"type":"Feature","id":"a-1","geometry":{"type":"Point","coordinates":[1,2,120.5]},
       "properties":{"name":"a","pop":1200,"ratio":0.1,"capital":true,"note":null,"tags":["x",{"y":1}]}},
      {"type":"Feature","geometry":{"type":"Point","coordinates":[-1.5,-2]},"properties":null},
      {"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[3,4,-0.25]},
       "properties":{"pop":-3e300,"name":"c","meta":{"k":[1,2]},"empty":""}}]})");
    const auto t = geojson_text(input.dump());
    REQUIRE(t.locations.size() == 3);
    CHECK(t.feature_ids == strings{"\"a-1\"", "", "7"});
    REQUIRE(t.altitudes.size() == 3);
    CHECK(t.altitudes[0] == 120.5);
    CHECK(std::isnan(t.altitudes[1]));
    CHECK(t.altitudes[2] == -0.25);
    CHECK(t.kind(0, t.find_column("pop")) == io::value_kind::json);
    CHECK(t.kind(0, t.find_column("note")) == io::value_kind::null);
    CHECK(t.kind(1, t.find_column("name")) == io::value_kind::missing);
    CHECK(t.kind(2, t.find_column("empty")) == io::value_kind::text);

    // GeoJSON out is the input again, feature for feature (missing properties left out;
    // properties come in column order, the order of first appearance, so compared unordered).
    const auto out = nlohmann::json::parse(write(t, io::output_format::geojson));
    REQUIRE(out["features"].size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        auto expected = nlohmann::json::parse(input["features"][i].dump());
        if (expected["properties"].is_null()) expected["properties"] = nlohmann::json::object();
        CHECK(out["features"][i] == expected);
    }

    // CSV out reads back: the same coordinates, the ids and altitudes as columns, every value as text.
    std::istringstream in(write(t, io::output_format::csv, true));
    const auto csv = io::read_csv(in, "back.csv");
    CHECK(csv.header == strings{"name", "pop", "ratio", "capital", "note", "tags", "meta", "empty", "feature_id", "lon",
                                "lat", "altitude", "distance_km"});
    const auto back = io::read_locations(csv);
    REQUIRE(back.locations.size() == 3);
    for (std::size_t r = 0; r < 3; ++r) {
        CHECK(back.locations[r].lon == t.locations[r].lon);
        CHECK(back.locations[r].lat == t.locations[r].lat);
        for (std::size_t c = 0; c < t.columns.size(); ++c) CHECK(back.values[r][c] == t.values[r][c]);
    }
    CHECK(csv.rows[0][8] == "a-1");
    CHECK(csv.rows[2][8] == "7");
    CHECK(csv.rows[0][11] == "120.5");
    CHECK(csv.rows[1][11] == "");
    CHECK(csv.rows[0][5] == R"(["x",{"y":1}])");
}

TEST_CASE("io round trip: records count data rows from 1, skipped ones included, streams are sniffed",
          "[io][geo][roundtrip]") {
    io::read_options skip;
    skip.on_bad_row = io::bad_row_policy::skip;
    const auto t = csv_text("name,lon,lat\n\"two\nlines\",1,2\nbad,x,1\n\nc,3,4\n", skip);
    CHECK(t.origins == std::vector<std::size_t>{2, 6});  // line 5 is blank
    CHECK(t.records == std::vector<std::size_t>{1, 3});

    std::istringstream csv("name,lon,lat\na,1,2\n");
    io::text_fields a(1);
    a.push_row({"a"});
    CHECK(io::read_locations_stream(csv, "stdin").values == a);
    std::istringstream geojson(R"(  {"type":"FeatureCollection","features":[{"type":"Feature",
        "geometry":{"type":"Point","coordinates":[5,6]},"properties":{"name":"g"}}]})");
    const auto g = io::read_locations_stream(geojson, "stdin");
    REQUIRE(g.locations.size() == 1);
    CHECK(g.locations[0].lon == 5);
    std::istringstream empty("");
    CHECK(failure([&] { io::read_locations_stream(empty, "stdin"); }) == "stdin: the file is empty; expected a header row");
}

TEST_CASE("io round trip: a centre column comes first, named apart from the kept columns", "[io][geo][roundtrip]") {
    const auto t = csv_text("center,lon,lat\nx,1,2\ny,3,4\n");
    io::write_options options;
    options.format = io::output_format::csv;
    options.center_column = "center";
    options.center_labels = {"1", "2"};
    options.center_kinds = {io::value_kind::json, io::value_kind::json};
    CHECK(io::output_columns(t, options) == strings{"center", "center_2", "lon", "lat"});
    std::ostringstream out;
    io::write_locations(out, t, {{1, 0, 0}, {0, 0, 1}}, options);
    CHECK(out.str() == "center,center_2,lon,lat\r\n1,y,3,4\r\n2,x,1,2\r\n");
    options.format = io::output_format::geojson;
    std::ostringstream gj;
    io::write_locations(gj, t, {{1, 0, 1}}, options);
    const auto doc = nlohmann::ordered_json::parse(gj.str());
    CHECK(doc["features"][0]["properties"] == nlohmann::ordered_json::parse(R"({"center":2,"center_2":"y"})"));
}

TEST_CASE("io round trip: a first column named with a leading byte-order mark keeps it in CSV", "[io][roundtrip]") {
    // Found by fuzz_csv: the reader skips a BOM at the start of a file, so the writer must
    // quote a field that starts with one, or the first column loses its first three bytes.
    io::location_table t;
    t.source = "t";
    t.columns = {"\xEF\xBB\xBFlct"};
    t.locations = {{1.5, 2.5}};
    t.values = io::text_fields(1);
    t.values.push_row({"x"});
    t.origins = {1};
    t.records = {1};
    const auto back = csv_text(write(t, io::output_format::csv));
    REQUIRE(back.columns == t.columns);
    REQUIRE(back.values == t.values);
}

}  // namespace test_io_roundtrip
