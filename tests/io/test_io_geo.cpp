// quoct::io locations: CSV and GeoJSON reading with the bad-row policies, WKT polygons, and
// the three output formats read back (CSV by quoct's reader, GeoJSON by nlohmann::json).
#include <catch2/catch.hpp>

#include "test_io_support.hpp"

#include <quoct/geo/polygons.hpp>
#include <quoct/io/locations.hpp>
#include <quoct/io/wkt.hpp>

#include <boost/geometry/algorithms/area.hpp>
#include <boost/geometry/algorithms/covered_by.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace test_io_geo {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

namespace io = quoct::io;
using io::parse_error;
using strings = std::vector<std::string>;

// The fields of one record, as strings.
strings fields(quoct::io::text_fields::row_view row) {
    strings out;
    for (std::size_t c = 0; c < row.size(); ++c) out.emplace_back(row[c]);
    return out;
}

io::location_table from_csv(const std::string& text, const io::read_options& options = {}) {
    std::istringstream in(text);
    return io::read_locations(io::read_csv(in, "t.csv"), options);
}

io::location_table from_geojson(const std::string& text, const io::read_options& options = {}) {
    std::istringstream in(text);
    return io::read_locations_geojson(in, "t.geojson", options);
}

using quoct_test::failure;

std::string point_feature(const std::string& coordinates, const std::string& properties = "{}") {
    return R"({"type":"Feature","geometry":{"type":"Point","coordinates":)" + coordinates +
           R"(},"properties":)" + properties + "}";
}

std::string collection(const strings& features) {
    std::string out = R"({"type":"FeatureCollection","features":[)";
    for (std::size_t i = 0; i < features.size(); ++i) out += (i ? "," : "") + features[i];
    return out + "]}";
}

std::string written(const io::location_table& t, const std::vector<io::hit>& hits, io::output_format format,
                    bool with_distance = false) {
    std::ostringstream out;
    io::write_locations(out, t, hits, {format, with_distance});
    return out.str();
}

std::vector<io::hit> every(const io::location_table& t) {
    std::vector<io::hit> hits;
    for (std::size_t i = 0; i < t.locations.size(); ++i) hits.push_back({i, 1234.5 * static_cast<double>(i)});
    return hits;
}

const std::string sample = "name,lat,pop,lon\n"
                           "\"Saint-Étienne, \"\"Loire\"\"\",45.4339,172565,4.39\n"
                           "Zürich,47.36667,341730,8.55\n"
                           "\"Line\nbreak\",-33.86785,4627345,151.20732\n";

}  // namespace

TEST_CASE("geo io: CSV locations keep every other column, UTF-8 and quotes intact", "[io][geo]") {
    const auto t = from_csv(sample);
    CHECK(t.columns == strings{"name", "pop"});
    REQUIRE(t.locations.size() == 3);
    CHECK(t.locations[0].lon == 4.39);
    CHECK(t.locations[0].lat == 45.4339);
    CHECK(fields(t.values[0]) == strings{"Saint-Étienne, \"Loire\"", "172565"});
    CHECK(t.values[1][0] == "Zürich");
    CHECK(t.values[2][0] == "Line\nbreak");
    CHECK(t.origins == std::vector<std::size_t>{2, 3, 4});
    CHECK(t.skipped.empty());

    io::read_options options;
    options.lon_column = "pop";  // a column of numbers outside [-180, 180]
    // A value no coordinate in degrees can have gets the hint that the file is projected.
    CHECK(failure([&] { from_csv(sample, options); }) ==
          "t.csv:2: column 'pop': 172565 is not in [-180, 180]; it looks like a projected coordinate (metres, not "
          "degrees): read the file with its CRS (the quoct command's --s-srs; io::gdal::source_options::source_srs)");
    options.lon_column = "longitude";
    CHECK(failure([&] { from_csv(sample, options); }).find("t.csv: no column 'longitude'") == 0);
    // Columns with the usual names in other spellings are named in the error, not guessed.
    CHECK(failure([&] { from_csv("name,LONGITUDE,Latitude\na,1,2\n"); }) ==
          "t.csv: no column 'lon'; 'LONGITUDE' looks like it: name it with --lon-column (read_options::lon_column)");
    CHECK(failure([&] { from_csv("name,lon,Y\na,1,2\n"); }) ==
          "t.csv: no column 'lat'; 'Y' looks like it: name it with --lat-column (read_options::lat_column)");
    CHECK(failure([&] { from_csv("name,east,north\na,1,2\n"); }) ==
          "t.csv: no column 'lon'; the columns are 'name', 'east', 'north'");
}

TEST_CASE("geo io: CSV bad rows stop with file:line, or are skipped and counted", "[io][geo]") {
    const std::string text = "name,lon,lat\n"
                             "a,1,2\n"
                             "b,abc,2\n"
                             "c,3,95\n"
                             "d,-180.5,0\n"
                             "e,180,-90\n"
                             "f,,1\n";
    CHECK(failure([&] { from_csv(text); }) == "t.csv:3: column 'lon': 'abc' is not a number");

    io::read_options options;
    options.on_bad_row = io::bad_row_policy::skip;
    std::vector<io::skipped_row> reported;
    options.on_skip = [&](const io::skipped_row& row) { reported.push_back(row); };
    const auto t = from_csv(text, options);
    REQUIRE(t.locations.size() == 2);
    CHECK(t.values[0][0] == "a");
    CHECK(t.values[1][0] == "e");
    CHECK(t.locations[1].lon == 180);
    CHECK(t.locations[1].lat == -90);
    REQUIRE(t.skipped.size() == 4);
    REQUIRE(reported.size() == 4);
    CHECK(reported[1].message == t.skipped[1].message);
    CHECK(t.skipped[0].where == 3);
    CHECK(t.skipped[1].message == "t.csv:4: column 'lat': 95 is not in [-90, 90]");
    CHECK(t.skipped[2].message == "t.csv:5: column 'lon': -180.5 is not in [-180, 180]");
    CHECK(t.skipped[3].message == "t.csv:7: column 'lon': empty field, expected a number");
}

TEST_CASE("geo io: GeoJSON Point features with their properties", "[io][geo]") {
    const auto t = from_geojson(collection({
        point_feature("[2.3488, 48.85341]", R"({"name":"Paris","population":2138551,"capital":true})"),
        point_feature("[-0.12574, 51.50853, 35]", R"({"name":"London","note":null,"tags":["a","b"]})"),
        point_feature("[139.69171, 35.6895]", "null"),
    }));
    CHECK(t.columns == strings{"name", "population", "capital", "note", "tags"});
    REQUIRE(t.locations.size() == 3);
    CHECK(fields(t.values[0]) == strings{"Paris", "2138551", "true", "", ""});
    CHECK(fields(t.values[1]) == strings{"London", "", "", "", R"(["a","b"])"});
    CHECK(fields(t.values[2]) == strings{"", "", "", "", ""});
    CHECK(t.locations[1].lon == -0.12574);
    CHECK(t.locations[1].lat == 51.50853);
    CHECK(t.origins == std::vector<std::size_t>{1, 2, 3});  // features count from 1, as lines do
    CHECK(t.records == std::vector<std::size_t>{1, 2, 3});
    CHECK(from_geojson(collection({})).locations.empty());
}

TEST_CASE("geo io: GeoJSON errors name the source and the feature number, from 1", "[io][geo]") {
    CHECK(failure([] { from_geojson(R"({"type":"FeatureCollection","features":[)"); }).find("t.geojson: invalid JSON: ") == 0);
    CHECK(failure([] { from_geojson("[1, 2]"); }) == "t.geojson: not a GeoJSON FeatureCollection or Feature");
    CHECK(failure([] { from_geojson(R"({"type":"FeatureCollection"})"); }) ==
          "t.geojson: the FeatureCollection has no \"features\" array");
    CHECK(failure([] { io::read_locations_geojson("/nonexistent/x.geojson"); }) ==
          "/nonexistent/x.geojson: cannot open the file");

    const std::string line = R"({"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]},"properties":{}})";
    const strings features = {
        point_feature("[1, 2]"),                                      // 1: good
        line,                                                         // 2
        point_feature("[10, 91]"),                                    // 3
        point_feature("[-181, 0]"),                                   // 4
        point_feature(R"(["1", 2])"),                                 // 5
        point_feature("[1]"),                                         // 6
        R"({"type":"Feature","geometry":null,"properties":{}})",      // 7
        R"({"type":"Point","coordinates":[1,2]})",                    // 8: a bare geometry
        point_feature("[3, 4]"),                                      // 9: good
    };
    const std::string text = collection(features);
    CHECK(failure([&] { from_geojson(text); }) == "t.geojson: feature 2: geometry is a LineString, not a Point");

    io::read_options options;
    options.on_bad_row = io::bad_row_policy::skip;
    const auto t = from_geojson(text, options);
    CHECK(t.origins == std::vector<std::size_t>{1, 9});
    CHECK(t.records == std::vector<std::size_t>{1, 9});
    REQUIRE(t.skipped.size() == 7);
    const strings expected = {
        "t.geojson: feature 2: geometry is a LineString, not a Point",
        "t.geojson: feature 3: latitude 91 is not in [-90, 90]",
        "t.geojson: feature 4: longitude -181 is not in [-180, 180]",
        "t.geojson: feature 5: Point coordinate \"1\" is not a number",
        "t.geojson: feature 6: Point coordinates are not [lon, lat] or [lon, lat, altitude]",
        "t.geojson: feature 7: has a null geometry (an unlocated feature): left out",
        "t.geojson: feature 8: not a Feature object",
    };
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CHECK(t.skipped[i].where == i + 2);
        CHECK(t.skipped[i].message == expected[i]);
    }
    // A feature without a "geometry" member is bad; one whose geometry is null is unlocated,
    // left out and reported under the stop policy too.
    CHECK(failure([&] { from_geojson(collection({features[0], R"({"type":"Feature","properties":{}})"})); }) ==
          "t.geojson: feature 2: has no geometry");
    std::vector<std::string> seen;
    io::read_options stop;
    stop.on_skip = [&](const io::skipped_row& row) { seen.push_back(row.message); };
    const auto unlocated = from_geojson(collection({features[6], features[0], features[6]}), stop);
    CHECK(unlocated.records == std::vector<std::size_t>{2});
    REQUIRE(unlocated.skipped.size() == 2);
    CHECK(unlocated.skipped[1].where == 3);
    CHECK(seen == strings{"t.geojson: feature 1: has a null geometry (an unlocated feature): left out",
                          "t.geojson: feature 3: has a null geometry (an unlocated feature): left out"});
}

TEST_CASE("geo io: a lone GeoJSON Feature is read as a collection of one", "[io][geo]") {
    const auto t = from_geojson(R"({"type":"Feature","id":"x","geometry":{"type":"Point","coordinates":[2.5,-3.25,7]},)"
                                R"("properties":{"name":"solo","n":3}})");
    REQUIRE(t.locations.size() == 1);
    CHECK(t.locations[0].lon == 2.5);
    CHECK(t.locations[0].lat == -3.25);
    CHECK(t.altitudes == std::vector<double>{7});
    CHECK(t.feature_ids == strings{"\"x\""});
    CHECK(t.columns == strings{"name", "n"});
    CHECK(t.values[0][0] == "solo");
    CHECK(t.records == std::vector<std::size_t>{1});
    CHECK(failure([] { from_geojson(R"({"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}})"); }) ==
          "t.geojson: feature 1: geometry is a LineString, not a Point");
}

TEST_CASE("geo io: WKT polygons are corrected, checked, and match Boost.Geometry", "[io][geo]") {
    namespace bg = boost::geometry;
    // Counter-clockwise and open: corrected to Boost's clockwise closed default.
    const auto area = io::read_wkt_area("  polygon ((0 0, 10 0, 10 10, 0 10), (2 2, 2 4, 4 4, 4 2))", "--wkt");
    REQUIRE(area.size() == 1);
    CHECK(bg::area(area) == Approx(96.0));
    const auto multi = io::read_wkt_area("MULTIPOLYGON(((0 0,0 1,1 1,1 0,0 0)),((5 5,5 6,6 6,6 5,5 5)))", "w");
    CHECK(multi.size() == 2);

    CHECK(failure([] { io::read_wkt_area("POLYGON((0 0, 1 0, 1 1", "--wkt"); }).find("--wkt: invalid WKT: ") == 0);
    CHECK(failure([] { io::read_wkt_area("LINESTRING(0 0, 1 1)", "--wkt"); }) ==
          "--wkt: invalid WKT: expected POLYGON or MULTIPOLYGON, not 'LINESTRING'");
    CHECK(failure([] { io::read_wkt_area("POLYGON((0 0, x 1, 1 1, 0 0))", "--wkt"); }).find("--wkt: invalid WKT: ") == 0);
    CHECK(failure([] { io::read_wkt_area("POLYGON((0 0, 2 2, 2 0, 0 2, 0 0))", "--wkt"); })  // a bow tie
              .find("--wkt: invalid polygon: ") == 0);

    // Against Boost.Geometry directly: the same points as bg::covered_by on every point.
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> lon(-5, 15), lat(-5, 15);
    std::vector<quoct::geo::lonlat> points(2000);
    for (auto& p : points) p = {lon(rng), lat(rng)};
    points.push_back({2, 3});  // on a hole's edge: covered
    points.push_back({3, 3});  // inside the hole
    const quoct::geo::index<> ix(points);
    std::vector<std::uint32_t> expected;
    for (std::uint32_t i = 0; i < points.size(); ++i)
        if (bg::covered_by(io::wkt_point(points[i].lon, points[i].lat), area)) expected.push_back(i);
    auto got = quoct::geo::covered_by(ix, area);
    std::sort(got.begin(), got.end());
    CHECK(got == expected);
    CHECK(std::count(got.begin(), got.end(), 2000u) == 1);
    CHECK(std::count(got.begin(), got.end(), 2001u) == 0);
}

TEST_CASE("geo io: CSV output reads back to the same values and coordinates", "[io][geo]") {
    auto t = from_csv(sample);
    t.locations[1] = {0.1 + 0.2, -1.0 / 3};  // full-precision doubles must survive
    const auto hits = every(t);
    const std::string text = written(t, hits, io::output_format::csv, true);
    std::istringstream in(text);
    const auto table = io::read_csv(in, "out.csv");
    CHECK(table.header == strings{"name", "pop", "lon", "lat", "distance_km"});
    const auto back = io::read_locations(table);
    REQUIRE(back.locations.size() == t.locations.size());
    for (std::size_t i = 0; i < t.locations.size(); ++i) {
        CHECK(back.locations[i].lon == t.locations[i].lon);
        CHECK(back.locations[i].lat == t.locations[i].lat);
        CHECK(back.values[i][0] == t.values[i][0]);
        CHECK(back.values[i][1] == t.values[i][1]);
    }
    CHECK(table.rows[2][4] == "2.469");
    CHECK(io::shortest_decimal(0.1 + 0.2) == "0.30000000000000004");
}

TEST_CASE("geo io: GeoJSON output is a FeatureCollection that reads back", "[io][geo]") {
    auto t = from_csv(sample);
    t.locations[2] = {-1.0 / 3, 1e-300};
    const std::vector<io::hit> hits = {{2, 1500.0}, {0, 0.4}};
    const std::string text = written(t, hits, io::output_format::geojson, true);
    const auto doc = nlohmann::json::parse(text);
    CHECK(doc["type"] == "FeatureCollection");
    REQUIRE(doc["features"].size() == 2);
    const auto& f = doc["features"][0];
    CHECK(f["geometry"]["type"] == "Point");
    CHECK(f["geometry"]["coordinates"][0].get<double>() == -1.0 / 3);
    CHECK(f["geometry"]["coordinates"][1].get<double>() == 1e-300);
    CHECK(f["properties"]["name"] == "Line\nbreak");
    CHECK(f["properties"]["distance_km"].get<double>() == 1.5);

    std::istringstream in(text);
    const auto back = io::read_locations_geojson(in, "out.geojson");
    CHECK(back.columns == strings{"name", "pop", "distance_km"});
    REQUIRE(back.locations.size() == 2);
    CHECK(back.locations[0].lon == -1.0 / 3);
    CHECK(back.values[1][0] == "Saint-Étienne, \"Loire\"");
    CHECK(back.values[1][1] == "172565");
    CHECK(back.values[1][2] == "0.0");  // 0.4 m rounds to 0 km; a number, so read back as its JSON
    CHECK(written(t, {}, io::output_format::geojson) == "{\"type\":\"FeatureCollection\",\"features\":[\n]}\n");
}

TEST_CASE("geo io: CSV number columns are typed, losslessly, and keep their types through GeoJSON", "[io][geo]") {
    // id: integers; pop: integers and an empty value; code: a leading zero; big: past 64 bits;
    // ratio: decimals; mixed: a word among numbers; blank: no value at all.
    const auto t = from_csv("name,lon,lat,id,pop,code,big,ratio,mixed,blank\n"
                            "a,1,2,7,27949,007,12345678901234567890,0.5,1,\n"
                            "b,3,4,-3,,010,1,1e3,x,\n"
                            "c,5,6,0,100,1,2,-2.25E-2,2,\n");
    REQUIRE(t.columns == strings{"name", "id", "pop", "code", "big", "ratio", "mixed", "blank"});
    REQUIRE(t.kinds.size() == 3 * t.columns.size());
    using k = io::value_kind;
    const std::vector<std::vector<k>> want = {{k::text, k::json, k::json, k::text, k::text, k::json, k::text, k::text},
                                              {k::text, k::json, k::null, k::text, k::text, k::json, k::text, k::text},
                                              {k::text, k::json, k::json, k::text, k::text, k::json, k::text, k::text}};
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = 0; c < t.columns.size(); ++c) {
            INFO("record " << r << ", column " << t.columns[c]);
            CHECK(t.kind(r, c) == want[r][c]);
        }
    CHECK(fields(t.values[0]) == strings{"a", "7", "27949", "007", "12345678901234567890", "0.5", "1", ""});

    // One column at a time: which values make a number column (the rule lossless_number
    // documents: JSON's number form, 64-bit integers, at most 15 significant digits, normal).
    const std::vector<std::pair<std::string, bool>> cases = {
        {"0", true}, {"-7", true}, {"9223372036854775807", true}, {"-9223372036854775808", true},
        {"9223372036854775808", false}, {"-0", false}, {"+5", false}, {"05", false}, {" 5", false}, {"5 ", false},
        {"1.", false}, {".5", false}, {"1e", false}, {"1e+", false}, {"0x10", false}, {"inf", false}, {"NaN", false},
        {"1.50", true}, {"0e5", true}, {"-0.0", true}, {"1E-5", true}, {"12345678901234.5", true}, {"123456789012345.0", false},
        {"0.1234567890123456", false}, {"1e400", false}, {"1e-310", false}, {"2e-308", false},
        {"1,5", false}};
    for (const auto& [value, number] : cases) {
        INFO("value \"" << value << "\"");
        const auto one = from_csv("lon,lat,v\n1,2,\"" + value + "\"\n");
        CHECK(one.kind(0, 0) == (number ? k::json : k::text));
        CHECK(one.kinds.empty() == !number);  // no number column: every value text, as before
    }

    // Written as GeoJSON: numbers and null, the text columns strings; read back, the same kinds.
    const auto doc = nlohmann::json::parse(written(t, every(t), io::output_format::geojson));
    const auto& first = doc["features"][0]["properties"];
    CHECK(first["id"] == 7);
    CHECK(first["pop"] == 27949);
    CHECK(first["code"] == "007");
    CHECK(first["big"] == "12345678901234567890");
    CHECK(first["ratio"] == 0.5);
    CHECK(first["mixed"] == "1");
    CHECK(first["blank"] == "");
    CHECK(doc["features"][1]["properties"]["pop"].is_null());
    CHECK(doc["features"][1]["properties"]["ratio"] == 1000.0);
    std::istringstream in(written(t, every(t), io::output_format::geojson));
    const auto back = io::read_locations_geojson(in, "out.geojson");
    REQUIRE(back.columns == t.columns);
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = 0; c < t.columns.size(); ++c) {
            INFO("record " << r << ", column " << t.columns[c]);
            CHECK(back.kind(r, c) == want[r][c]);
        }
    // Written as CSV, the same text; read back, the same kinds.
    const auto again = from_csv(written(t, every(t), io::output_format::csv));
    CHECK(again.kinds == t.kinds);
}

TEST_CASE("geo io: the table format aligns columns by displayed characters", "[io][geo]") {
    const auto t = from_csv("name,lon,lat\nZürich,8.55,47.36667\nA,-0.5,1\n");
    const std::string text = written(t, every(t), io::output_format::table, true);
    CHECK(text == "name     lon       lat  distance_km\n"
                  "Zürich  8.55  47.36667        0.000\n"
                  "A       -0.5         1        1.234\n");
}

}  // namespace test_io_geo
