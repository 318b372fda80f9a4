// `quoct index` and index files in place of FILE: every subcommand and output format prints,
// from the index file, byte for byte what it prints from the points file it was made from (the
// run on the points file is the oracle); damaged, cut and foreign index files fail with
// "quoct: error: <path>: <cause>"; io::location_index round-trips a table through a file.
#include <catch2/catch.hpp>

#include "test_cli_support.hpp"

#include <quoct/file.hpp>
#include <quoct/io/location_index.hpp>
#include <quoct/io/locations.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace test_cli_index {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

namespace io = quoct::io;

// A GeoJSON file with what a table can hold: typed properties (numbers, booleans, null, an
// object, a missing one), a property named "lon", feature ids (string, number, none),
// altitudes (some missing), "name" not the first property, and one bad feature.
const char* const rich_geojson = R"({"type":"FeatureCollection","features":[
 {"type":"Feature","id":"a-1","geometry":{"type":"Point","coordinates":[2.35,48.86,35.5]},
  "properties":{"pop":2138551,"name":"Paris","capital":true,"lon":"east","meta":{"k":[1,2]}}},
 {"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[2.29,48.80]},
  "properties":{"name":"Malakoff, \"south\"","pop":null,"capital":false}},
 {"type":"Feature","geometry":{"type":"Point","coordinates":[200,48]},"properties":{"name":"bad"}},
 {"type":"Feature","geometry":{"type":"Point","coordinates":[2.45,48.90,-2]},
  "properties":{"pop":30000,"name":"Bobigny"}},
 {"type":"Feature","id":"z","geometry":{"type":"Point","coordinates":[179.9,-16.5]},
  "properties":{"name":"Fiji east","pop":1}},
 {"type":"Feature","geometry":{"type":"Point","coordinates":[-179.9,-16.6]},
  "properties":{"name":"Fiji west","pop":2,"note":"é ü"}}]})";

struct run_pair {
    quoct_test::cli_result source, index;
};

// `quoct <query> <source_args>` and `quoct <query> <index_args>`.
run_pair both(const std::string& query, const std::string& source_args, const std::string& index_args) {
    return {quoct_test::run_cli(query + " " + source_args), quoct_test::run_cli(query + " " + index_args)};
}

// Checks that every query, in every format, prints the same from the index file.
void check_same_outputs(const std::vector<std::string>& queries, const std::string& source_args,
                        const std::string& index_args) {
    for (const std::string& q : queries)
        for (const char* format : {"table", "csv", "geojson"}) {
            const std::string query = q + " --format " + format;
            INFO(query);
            const run_pair r = both(query, source_args, index_args);
            CHECK(r.source.status == 0);
            CHECK(r.index.status == 0);
            CHECK(r.source.out.size() > 0);
            CHECK(r.index.out == r.source.out);
        }
}

// The same SVG picture from both.
void check_same_svg(const std::string& query, const std::string& source_args, const std::string& index_args) {
    const std::string a = quoct_test::temp_path("from_source.svg"), b = quoct_test::temp_path("from_index.svg");
    REQUIRE(quoct_test::run_cli("svg " + query + " -o '" + a + "' " + source_args).status == 0);
    REQUIRE(quoct_test::run_cli("svg " + query + " -o '" + b + "' " + index_args).status == 0);
    CHECK(quoct_test::file_text(a).find("</svg>") != std::string::npos);
    CHECK(quoct_test::file_text(b) == quoct_test::file_text(a));
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// The first line of stderr of `quoct args` and its exit code.
std::pair<int, std::string> error_of(const std::string& args) {
    const std::string err = quoct_test::temp_path("index_stderr.txt");
    const int status = quoct_test::run_cli(args, err).status;
    const std::string text = quoct_test::file_text(err);
    return {status, text.substr(0, text.find('\n'))};
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

TEST_CASE("location_index: a table through a file, whole and by rows", "[cli_index][io]") {
    std::istringstream in(rich_geojson);
    io::read_options options;
    options.on_bad_row = io::bad_row_policy::skip;
    const io::location_table t = io::read_locations_geojson(in, "rich.geojson", options);
    REQUIRE(t.locations.size() == 5);
    const io::location_index x(t);
    const std::string path = quoct_test::temp_path("rich_table.quoct");
    quoct::save(x, path);
    for (const io::location_index& y : {quoct::load<io::location_index>(path), quoct::open<io::location_index>(path)}) {
        const io::location_table u = y.table();
        CHECK(u.source == t.source);
        CHECK(u.columns == t.columns);
        CHECK(u.values == t.values);
        CHECK(u.kinds == t.kinds);
        CHECK(u.feature_ids == t.feature_ids);
        REQUIRE(u.altitudes.size() == t.altitudes.size());
        for (std::size_t i = 0; i < u.altitudes.size(); ++i)
            CHECK(std::memcmp(&u.altitudes[i], &t.altitudes[i], sizeof(double)) == 0);  // NaN too
        CHECK(u.origins == t.origins);
        CHECK(u.records == t.records);
        REQUIRE(u.skipped.size() == 1);
        CHECK(u.skipped[0].where == 3);
        CHECK(u.skipped[0].message == t.skipped[0].message);
        for (std::size_t i = 0; i < u.locations.size(); ++i)
            CHECK((u.locations[i].lon == t.locations[i].lon && u.locations[i].lat == t.locations[i].lat));
        CHECK(y.index().nearest(2.35, 48.86, 5).size() == 5);
        const io::location_table two = y.rows({3, 0, 3});
        CHECK(two.values.size() == 3);
        CHECK(two.values[0][0] == t.values[3][0]);
        CHECK(two.feature_ids == std::vector<std::string>{t.feature_ids[3], t.feature_ids[0], t.feature_ids[3]});
        CHECK_THROWS_AS(y.rows({5}), std::out_of_range);
    }
    // A table without GeoJSON extras keeps none, and an empty one round-trips too.
    const io::location_index empty(io::location_table{});
    quoct::save(empty, path);
    CHECK(quoct::open<io::location_index>(path).size() == 0);
    CHECK_FALSE(quoct::open<io::location_index>(path).has_feature_ids());
}

#ifdef QUOCT_CLI

TEST_CASE("cli index: the bundled cities from an index file print what the CSV prints, byte for byte",
          "[cli][cli_index]") {
    const std::string index = quoct_test::temp_path("cities.quoct");
    const auto made = quoct_test::run_cli("index -o " + quoted(index));
    REQUIRE(made.status == 0);
    CHECK(made.out.find("rows: 135233\n") != std::string::npos);
    const std::string centres = quoct_test::temp_path("centres.csv");
    std::ofstream(centres) << "station,lon,lat\nParis,2.35,48.86\nFiji,179.5,-17\nNowhere,0,0\n";
    const std::vector<std::string> queries = {
        "near --lon 2.35 --lat 48.86 --k 5",
        "near --lon 2.35 --lat 48.86 --km 8",
        "near --lon 2.35 --lat 48.86 --km 30 --k 7 --name-column country",
        "near --centers " + quoted(centres) + " --centers-id-column station --k 3",
        "near --centers " + quoted(centres) + " --km 20",
        "box --west 178 --south -20 --east -178 --north -15",
        "polygon --wkt 'POLYGON((5.9 45.8, 10.5 45.8, 10.5 47.8, 5.9 47.8, 5.9 45.8))'",
    };
    check_same_outputs(queries, "", quoted(index));
    check_same_svg("--lon 2.35 --lat 48.86 --km 40", "", quoted(index));
    // Found by its content whatever its name; also through $QUOCT_DATA, and as the centres.
    const std::string renamed = quoct_test::temp_path("cities.csv");
    std::filesystem::copy_file(index, renamed, std::filesystem::copy_options::overwrite_existing);
    const run_pair r = both("near --lon 13.4 --lat 52.52 --k 4 --format csv", "", quoted(renamed));
    CHECK(r.index.status == 0);
    CHECK(r.index.out == r.source.out);
    CHECK(quoct_test::run_cli("near --lon 13.4 --lat 52.52 --k 4 --format csv", "", "QUOCT_DATA=" + quoted(index)).out ==
          r.source.out);
}

TEST_CASE("cli index: GeoJSON with typed properties, feature ids, altitudes and a skipped feature", "[cli][cli_index]") {
    const std::string source = quoct_test::temp_path("rich.geojson"), index = quoct_test::temp_path("rich.quoct");
    write_bytes(source, rich_geojson);
    const std::string centres = quoct_test::temp_path("rich_centres.csv");
    std::ofstream(centres) << "lat,lon\n48.85,2.3\n-16,180\n";
    const std::string err = quoct_test::temp_path("index_err.txt");
    const auto made = quoct_test::run_cli("index --on-bad-row skip " + quoted(source) + " -o " + quoted(index), err);
    REQUIRE(made.status == 0);
    CHECK(quoct_test::file_text(err).find("quoct: skipped " + source + ": feature 3: longitude 200") == 0);
    const std::vector<std::string> queries = {
        "near --lon 2.35 --lat 48.86 --k 10",
        "near --lon 2.35 --lat 48.86 --km 12 --name-column pop",
        "near --lon 180 --lat -16.5 --km 50",
        "near --centers " + quoted(centres) + " --k 2",
        "box --west 170 --south -20 --east -170 --north 0",
        "box --west -180 --south -90 --east 180 --north 90",
        "polygon --wkt 'POLYGON((2 48, 3 48, 3 49, 2 49, 2 48))'",
    };
    check_same_outputs(queries, "--on-bad-row skip " + quoted(source), quoted(index));
    check_same_svg("--west 2 --south 48 --east 3 --north 49", "--on-bad-row skip " + quoted(source), quoted(index));
    // The centres from the index file too.
    check_same_outputs({"near --k 2"}, "--on-bad-row skip --centers " + quoted(source) + " " + quoted(source),
                       "--centers " + quoted(index) + " " + quoted(index));

    // An oracle apart from the shared writer: GeoJSON in, GeoJSON out loses nothing, so every
    // good input feature comes back as it was (properties compared by name).
    const auto world = quoct_test::run_cli("box --west -180 --south -90 --east 180 --north 90 --format geojson " + quoted(index));
    REQUIRE(world.status == 0);
    nlohmann::json expected_features = nlohmann::json::parse(rich_geojson)["features"];
    expected_features.erase(2);  // the bad one
    CHECK(nlohmann::json::parse(world.out)["features"] == expected_features);

    // Standard input: a points file piped in and indexed, and an index file piped in.
    const std::string piped = quoct_test::temp_path("piped.quoct");
    REQUIRE(quoct_test::run_cli("index --on-bad-row skip - -o " + quoted(piped) + " < " + quoted(source)).status == 0);
    const std::string q = "near --lon 2.35 --lat 48.86 --k 10 --format geojson ";
    const auto expected = quoct_test::run_cli(q + "--on-bad-row skip " + quoted(source));
    CHECK(quoct_test::run_cli(q + quoted(piped)).out.find("\"id\":\"a-1\"") != std::string::npos);
    CHECK(quoct_test::run_cli(q + "- < " + quoted(index)).out == expected.out);
}

TEST_CASE("cli index: column options with an index file are not used, bad rows skipped once", "[cli][cli_index]") {
    const std::string source = quoct_test::temp_path("xy.csv"), index = quoct_test::temp_path("xy.quoct");
    std::ofstream(source) << "city,x,y,lon\nA,1,2,west\nB,1,100,?\nC,abc,3,?\nD,1.5,2,\"q, r\"\n";
    const std::string columns = "--lon-column x --lat-column y --on-bad-row skip ";
    REQUIRE(quoct_test::run_cli("index " + columns + quoted(source) + " -o " + quoted(index)).status == 0);
    const std::vector<std::string> queries = {"near --lon 1 --lat 2 --km 100 --name-column city", "box --west 0 --south 0 --east 2 --north 3"};
    check_same_outputs(queries, columns + quoted(source), quoted(index));
    CHECK(quoct_test::run_cli("box --west -180 --south -90 --east 180 --north 90 --format csv " + quoted(index)).out ==
          "city,lon_2,lon,lat\r\nA,west,1,2\r\nD,\"q, r\",1.5,2\r\n");
    check_same_outputs(queries, columns + quoted(source), "--lon-column nope --lat-column nada --on-bad-row stop " + quoted(index));
    // No "skipped" messages from the index file: they were said when it was made.
    const std::string err = quoct_test::temp_path("xy_err.txt");
    CHECK(quoct_test::run_cli("near --lon 1 --lat 2 --k 1 " + quoted(index), err).status == 0);
    CHECK(quoct_test::file_text(err).empty());
    CHECK(error_of("near --lon 1 --lat 2 --k 1 --name-column nope " + quoted(index)) ==
          std::pair<int, std::string>{1, "quoct: error: " + index + ": no column 'nope'"});
}

TEST_CASE("cli index: quoct index of an index file says what it holds, checksums checked", "[cli][cli_index]") {
    const std::string source = quoct_test::temp_path("say.geojson"), index = quoct_test::temp_path("say.quoct");
    write_bytes(source, rich_geojson);
    const auto made = quoct_test::run_cli("index --on-bad-row skip " + quoted(source) + " -o " + quoted(index));
    REQUIRE(made.status == 0);
    const std::string bytes = std::to_string(std::filesystem::file_size(index));
    const std::string expected = "type: io::location_index<uint32>\nformat version: 2\nbytes: " + bytes +
                                 "\nsource: " + source +
                                 "\nrows: 5\ncolumns: 6 (pop, name, capital, lon, meta, note)\nfeature ids: yes\n"
                                 "altitudes: yes\nbad rows skipped: 1\nbounds: lon [-179.9, 179.9], lat [-16.6, 48.9]\n";
    CHECK(made.out == "file: " + index + "\n" + expected);
    const auto said = quoct_test::run_cli("index " + quoted(index));
    CHECK(said.status == 0);
    CHECK(said.out == "file: " + index + "\n" + expected);
    // Written again with -o: the same bytes.
    const std::string again = quoct_test::temp_path("again.quoct");
    CHECK(quoct_test::run_cli("index " + quoted(index) + " -o " + quoted(again)).out == "file: " + again + "\n" + expected);
    CHECK(quoct_test::file_text(again) == quoct_test::file_text(index));
    // Without -o a points file is indexed and described, nothing written.
    const auto dry = quoct_test::run_cli("index --on-bad-row skip " + quoted(source));
    CHECK(dry.out == "file: (not written: no -o)\n" + expected);
}

TEST_CASE("cli index: cut, damaged and foreign index files fail with the path and the cause", "[cli][cli_index]") {
    const std::string source = quoct_test::temp_path("dmg.geojson"), index = quoct_test::temp_path("dmg.quoct");
    write_bytes(source, rich_geojson);
    REQUIRE(quoct_test::run_cli("index --on-bad-row skip " + quoted(source) + " -o " + quoted(index)).status == 0);
    const std::string good = quoct_test::file_text(index);
    const std::string bad = quoct_test::temp_path("bad.quoct");
    const std::string query = "near --lon 2.35 --lat 48.86 --k 3 " + quoted(bad);
    using result = std::pair<int, std::string>;

    write_bytes(bad, good.substr(0, good.size() - 100));
    CHECK(error_of(query) == result{1, "quoct: error: " + bad + ": truncated: " + std::to_string(good.size() - 100) +
                                           " bytes, the header says " + std::to_string(good.size())});
    write_bytes(bad, good.substr(0, 50));
    CHECK(error_of(query) == result{1, "quoct: error: " + bad + ": truncated: 50 bytes, not even a header"});
    std::string flipped = good;
    flipped[200] = static_cast<char>(flipped[200] ^ 1);  // in the section table
    write_bytes(bad, flipped);
    CHECK(error_of(query) == result{1, "quoct: error: " + bad + ": damaged: checksum mismatch in the header or section table"});

    // A field's end moved past the text, its checksum not mended: the command verifies the
    // checksums, as the library's open does for a section of one block; with the structure
    // checked at open instead, the bounds are what catch it.
    const quoct::file_info info = quoct::read_file_info(index);
    std::string forged = good;
    for (const quoct::file_section& s : info.sections)
        if (s.name == "table.values_ends") {
            REQUIRE(s.element_bytes == 4);
            const std::uint32_t far = 0x7FFFFFFF;
            std::memcpy(&forged[s.offset + s.bytes - 4], &far, 4);
        }
    write_bytes(bad, forged);
    CHECK(error_of(query) ==
          result{1, "quoct: error: " + bad + ": damaged: checksum mismatch in section 'table.values_ends'"});
    CHECK_THROWS_WITH(quoct::open<io::location_index>(bad),
                      "quoct: " + bad + ": damaged: checksum mismatch in section 'table.values_ends'");
    CHECK_THROWS_WITH(quoct::open<io::location_index>(bad, quoct::open_options{false, true}),
                      "quoct: " + bad + ": damaged: table.values has a string past its text");
    // A changed byte of text: quoct index checks every checksum.
    std::string text_changed = good;
    for (const quoct::file_section& s : info.sections)
        if (s.name == "table.values_text") text_changed[s.offset] = static_cast<char>(text_changed[s.offset] ^ 0x20);
    write_bytes(bad, text_changed);
    CHECK(error_of("index " + quoted(bad)) ==
          result{1, "quoct: error: " + bad + ": damaged: checksum mismatch in section 'table.values_text'"});

    // Index files of other types, saved from C++.
    const quoct::geo::index<> geo(std::vector<quoct::geo::lonlat>{{1, 2}, {3, 4}});
    quoct::save(geo, bad);
    // The error names what the file holds and how to make a file the command reads.
    const std::string make = "; the command reads the index files that `quoct index` writes, which keep each point's "
                             "columns: make one from the points with `quoct index POINTS -o FILE`";
    CHECK(error_of(query) ==
          result{1, "quoct: error: " + bad + ": holds geo::index<uint32>, a geographic "
                    "index without a table (a C++ geo::index, or a quoct.geo.Index saved from Python)" + make});
    CHECK(error_of("index " + quoted(bad)).second.find("a quoct.geo.Index saved from Python") != std::string::npos);
    CHECK(error_of("near --lon 0 --lat 0 --k 1 - < " + quoted(bad)) ==
          result{1, "quoct: error: stdin: holds geo::index<uint32>, a geographic "
                    "index without a table (a C++ geo::index, or a quoct.geo.Index saved from Python)" + make});
    const std::vector<quoct::point<double, 3>> points{{{0, 0, 0}}, {{1, 1, 1}}};
    quoct::save(quoct::octree<double>(points), bad);
    CHECK(error_of("box --west 0 --south 0 --east 1 --north 1 " + quoted(bad)) ==
          result{1, "quoct: error: " + bad + ": holds orthtree<double, 3, uint32>, "
                    "a tree of points (a C++ orthtree, or a quoct.Tree saved from Python)" + make});
    // The same damage through standard input names stdin.
    write_bytes(bad, good.substr(0, good.size() - 100));
    CHECK(error_of("near --lon 0 --lat 0 --k 1 - < " + quoted(bad)).second.rfind("quoct: error: stdin: truncated", 0) == 0);
    // A failed write leaves no file.
    CHECK(error_of("index " + quoted(source) + " --on-bad-row skip -o /nonexistent/dir/x.quoct").first == 1);
}

TEST_CASE("cli index: a byte changed anywhere in an index file is an error in every subcommand, never an answer",
          "[cli][cli_index]") {
    const std::string source = quoct_test::temp_path("flip.geojson"), index = quoct_test::temp_path("flip.quoct");
    write_bytes(source, rich_geojson);
    REQUIRE(quoct_test::run_cli("index --on-bad-row skip " + quoted(source) + " -o " + quoted(index)).status == 0);
    const std::string good = quoct_test::file_text(index);
    const std::string bad = quoct_test::temp_path("flipped.quoct");
    const std::string square = quoct_test::temp_path("flip_square.geojson");
    write_bytes(square, R"({"type":"FeatureCollection","features":[{"type":"Feature","properties":{"n":1},)"
                        R"("geometry":{"type":"Polygon","coordinates":[[[0,40],[10,40],[10,50],[0,50],[0,40]]]}}]})");
    const std::string svg = quoct_test::temp_path("flip.svg");
    // Every subcommand that reads FILE, and near's --centers.
    const std::vector<std::string> commands{
        "near --lon 2.35 --lat 48.86 --km 20000 " + quoted(bad),
        "near --lon 2.35 --lat 48.86 --k 3 --format geojson " + quoted(bad),
        "box --west -180 --south -90 --east 180 --north 90 --format csv " + quoted(bad),
        "polygon --wkt 'POLYGON((-180 -90, 180 -90, 180 90, -180 90, -180 -90))' " + quoted(bad),
        "join --polygons " + quoted(square) + " " + quoted(bad),
        "svg --lon 2.35 --lat 48.86 --km 500 -o " + quoted(svg) + " " + quoted(bad),
        "index " + quoted(bad),
        "near --km 100 --centers " + quoted(bad) + " " + quoted(index),
    };
    // The good file answers every one of them.
    write_bytes(bad, good);
    for (const std::string& command : commands) {
        INFO(command);
        CHECK(quoct_test::run_cli(command).status == 0);
    }
    // One byte changed in the middle of each section, and in the header's size, section count
    // and type fields and in the section table.
    const quoct::file_info info = quoct::read_file_info(index);
    std::vector<std::pair<std::string, std::size_t>> places{
        {"header: size", 16}, {"header: section count", 24}, {"header: type", 40}, {"section table", 128 + 40}};
    for (const quoct::file_section& section : info.sections)
        if (section.bytes > 0) places.emplace_back("section " + section.name, section.offset + section.bytes / 2);
    REQUIRE(places.size() > 10);
    for (const auto& [where, at] : places) {
        std::string flipped = good;
        flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
        write_bytes(bad, flipped);
        for (const std::string& command : commands) {
            INFO(where << " (byte " << at << "): quoct " << command);
            const std::string err = quoct_test::temp_path("flip_stderr.txt");
            const quoct_test::cli_result r = quoct_test::run_cli(command, err);
            CHECK(r.status == 1);
            CHECK(r.out.empty());
            CHECK(quoct_test::file_text(err).rfind("quoct: error: " + bad + ": damaged: ", 0) == 0);
        }
        // Through standard input too.
        const std::string err = quoct_test::temp_path("flip_stderr.txt");
        const quoct_test::cli_result r = quoct_test::run_cli("box --west -180 --south -90 --east 180 --north 90 - < " + quoted(bad), err);
        INFO(where << ", standard input");
        CHECK(r.status == 1);
        CHECK(r.out.empty());
        CHECK(quoct_test::file_text(err).rfind("quoct: error: stdin: damaged: ", 0) == 0);
    }
}

#endif  // QUOCT_CLI

}  // namespace test_cli_index
