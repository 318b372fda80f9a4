// `quoct svg` pictures of the README's examples and of every antimeridian and pole case:
// the picture has a sane size, the query's outline lies in the frame, and every hit of the
// query (as the matching `near`, `box` or `polygon` command lists them) is drawn, inside
// the frame. The pictures and the queries share one unwrapping of longitudes.
#include <catch2/catch.hpp>

#include "test_cli_support.hpp"

#ifdef QUOCT_CLI

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace test_cli_svg {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

struct drawing {
    double width = 0, height = 0;
    std::vector<std::pair<double, double>> hits;     // centres of the hit dots
    std::vector<std::pair<double, double>> outline;  // vertices of the query's path
};

drawing read_svg(const std::string& svg) {
    drawing d;
    std::smatch m;
    REQUIRE(std::regex_search(svg, m, std::regex(R"re(<svg [^>]*width="([0-9.]+)" height="([0-9.]+)")re")));
    d.width = std::stod(m[1]);
    d.height = std::stod(m[2]) - 24;  // the title band above the map
    const auto group = svg.find("<g fill=\"#d6336c\">");
    REQUIRE(group != std::string::npos);
    const std::string hit_part = svg.substr(group, svg.find("</g>", group) - group);
    const std::regex circle(R"re(<circle cx="(-?[0-9.]+)" cy="(-?[0-9.]+)")re");
    for (auto it = std::sregex_iterator(hit_part.begin(), hit_part.end(), circle); it != std::sregex_iterator(); ++it)
        d.hits.emplace_back(std::stod((*it)[1]), std::stod((*it)[2]));
    const auto path = svg.find("<path fill=\"#e8590c\"");
    if (path != std::string::npos) {
        const auto at = svg.find(" d=\"", path) + 4;
        const std::string coords = svg.substr(at, svg.find('"', at) - at);
        const std::regex pair(R"((-?[0-9.]+),(-?[0-9.]+))");
        for (auto it = std::sregex_iterator(coords.begin(), coords.end(), pair); it != std::sregex_iterator(); ++it)
            d.outline.emplace_back(std::stod((*it)[1]), std::stod((*it)[2]));
    }
    return d;
}

std::size_t rows_of(const std::string& csv) {
    std::size_t lines = 0;
    for (char c : csv) lines += c == '\n';
    return lines == 0 ? 0 : lines - 1;  // the header
}

// Draws `query` (svg options) and checks the picture against `listing` (the same query as
// a listing command), on the bundled cities.
void check_picture(const std::string& query, const std::string& listing) {
    INFO("svg " << query);
    const std::string file = quoct_test::temp_path("picture.svg");
    REQUIRE(quoct_test::run_cli("svg " + query + " -o '" + file + "'").status == 0);
    const drawing d = read_svg(quoct_test::file_text(file));
    const auto listed = quoct_test::run_cli(listing + " --format csv");
    REQUIRE(listed.status == 0);
    CHECK(d.hits.size() == rows_of(listed.out));
    CHECK(d.width == 900);
    CHECK(d.height > 20);
    CHECK(d.height < 4 * d.width);  // never a picture millions of pixels tall
    for (const auto& h : d.hits) {
        CHECK(h.first >= 0);
        CHECK(h.first <= d.width);
        CHECK(h.second >= 0);
        CHECK(h.second <= d.height + 0.1);
    }
    REQUIRE(!d.outline.empty());
    double lo = 1e300, hi = -1e300;
    for (const auto& v : d.outline) {
        lo = std::min(lo, v.first);
        hi = std::max(hi, v.first);
        CHECK(v.second >= -0.1);
        CHECK(v.second <= d.height + 0.1);
    }
    CHECK(lo >= -0.1);
    CHECK(hi <= d.width + 0.1);
    CHECK(hi - lo > d.width / 4);  // the query fills a good part of the picture
}

}  // namespace

TEST_CASE("quoct svg: README examples, lon 180 and the poles drawn where the queries find their hits", "[cli][svg]") {
    // The README's examples.
    check_picture("--lon 2.3522 --lat 48.8566 --km 25 --leaf-size 16", "near --lon 2.3522 --lat 48.8566 --km 25");
    check_picture("--west 178 --south -20 --east -178 --north -15", "box --west 178 --south -20 --east -178 --north -15");
    const std::string swiss = "'POLYGON((5.9 45.8, 10.5 45.8, 10.5 47.8, 5.9 47.8, 5.9 45.8))'";
    check_picture("--wkt " + swiss, "polygon --wkt " + swiss);
    // Everything north of 60 or south of -60, closed along the pole (edges 360 degrees
    // wide), with or without vertices at lon 0; half the world from lon 0 to 180; Fiji as
    // two parts either side of lon 180; a circle about lon 180.
    for (const char* wkt :
         {"POLYGON((-180 60, 180 60, 180 90, -180 90, -180 60))",
          "POLYGON((-180 60, 0 60, 180 60, 180 90, 0 90, -180 90, -180 60))",
          "POLYGON((-180 -90, 180 -90, 180 -60, -180 -60, -180 -90))", "POLYGON((0 0, 180 0, 180 10, 0 10, 0 0))",
          "POLYGON((-180 0, 0 0, 0 10, -180 10, -180 0))",
          "MULTIPOLYGON(((177 -19, 180 -19, 180 -16, 177 -16, 177 -19)),((-180 -19, -179 -19, -179 -16, -180 -16, -180 -19)))",
          "POLYGON((170 50, -170 50, -170 70, 170 70, 170 50))"}) {
        const std::string quoted = std::string("'") + wkt + "'";
        check_picture("--wkt " + quoted, "polygon --wkt " + quoted);
    }
    check_picture("--lon 180 --lat -17 --km 300", "near --lon 180 --lat -17 --km 300");
    check_picture("--lon -179.9 --lat 65 --km 500", "near --lon -179.9 --lat 65 --km 500");
    // Circles that hold a pole: centred on it, near it, and reaching over it.
    for (const char* circle : {"--lon 0 --lat 90 --km 2500", "--lon 0 --lat -90 --km 3000", "--lon 45 --lat 89.9 --km 50",
                               "--lon 45 --lat 89.9 --km 1500", "--lon -120 --lat -75 --km 2500"})
        check_picture(circle, std::string("near ") + circle);
}

TEST_CASE("quoct svg: a map with land, graticule, lon 180, scale, labels; cells on request", "[cli][svg]") {
    const std::string file = quoct_test::temp_path("map.svg");
    const std::string fiji =
        "--wkt 'MULTIPOLYGON(((177 -19, 180 -19, 180 -16, 177 -16, 177 -19)),((-180 -19, -179 -19, -179 -16, -180 -16, "
        "-180 -19)))'";
    REQUIRE(quoct_test::run_cli("svg " + fiji + " -o '" + file + "'").status == 0);
    std::string svg = quoct_test::file_text(file);
    CHECK(svg.find("<path fill=\"#f1eee6\"") != std::string::npos);  // land
    CHECK(svg.find(">178\u00b0E</text>") != std::string::npos);        // graticule labels
    CHECK(svg.find(">179\u00b0W</text>") != std::string::npos);
    CHECK(svg.find(">180\u00b0</text>") != std::string::npos);
    CHECK(svg.find("stroke=\"#c92a2a\"") != std::string::npos);       // lon 180 marked
    CHECK(svg.find(" km</text>") != std::string::npos);                 // scale bar
    CHECK(svg.find(">Suva</text>") != std::string::npos);               // hits labelled
    CHECK(svg.find("stroke=\"#4a7ab5\"") == std::string::npos);       // no cells unless asked
    REQUIRE(quoct_test::run_cli("svg --no-basemap --cells --lon 2.35 --lat 48.86 --km 25 -o '" + file + "'").status == 0);
    svg = quoct_test::file_text(file);
    CHECK(svg.find("<path fill=\"#f1eee6\"") == std::string::npos);
    CHECK(svg.find("stroke=\"#4a7ab5\"") != std::string::npos);
    CHECK(svg.find(">Paris</text>") == std::string::npos);  // 285 hits: too many to label
    CHECK(quoct_test::run_cli("svg --basemap /nonexistent.geojson --lon 2 --lat 48 --km 5 -o '" + file + "'").status == 1);
    // A basemap ring across lon 180 is drawn as the island it is, not inside out.
    const std::string island = quoct_test::temp_path("island.geojson");
    {
        std::ofstream out(island);
        out << R"({"type":"Polygon","coordinates":[[[178,-17],[-178,-17],[-178,-15],[178,-15],[178,-17]]]})";
    }
    REQUIRE(quoct_test::run_cli("svg --basemap '" + island + "' --west 170 --south -20 --east -170 --north -10 -o '" + file +
                                "'")
                .status == 0);
    svg = quoct_test::file_text(file);
    const auto land = svg.find("<path fill=\"#f1eee6\"");
    REQUIRE(land != std::string::npos);
    const auto d = svg.find(" d=\"", land) + 4;
    const std::string coords = svg.substr(d, svg.find('"', d) - d);
    const std::regex pair(R"re((-?[0-9.]+),(-?[0-9.]+))re");
    double lo = 1e300, hi = -1e300;
    for (auto it = std::sregex_iterator(coords.begin(), coords.end(), pair); it != std::sregex_iterator(); ++it) {
        lo = std::min(lo, std::stod((*it)[1]));
        hi = std::max(hi, std::stod((*it)[1]));
    }
    CHECK(lo > 0);
    CHECK(hi < 900);
    CHECK(hi - lo < 450);  // 4 of the view's 20 degrees
}

}  // namespace test_cli_svg

#endif  // QUOCT_CLI
