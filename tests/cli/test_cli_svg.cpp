// `quoct svg` pictures of the README's examples and of every antimeridian and pole case:
// the picture has a sane size, the query's outline lies in the frame, and every hit of the
// query (as the matching `near`, `box` or `polygon` command lists them) is drawn, inside
// the frame. The pictures and the queries share one unwrapping of longitudes.
#include <catch2/catch.hpp>

#include "test_cli_support.hpp"

#ifdef QUOCT_CLI

#include <algorithm>
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
    const auto group = svg.find("<g fill=\"#d6336c\">");  // none in a choropleth
    const std::string hit_part = group == std::string::npos ? "" : svg.substr(group, svg.find("</g>", group) - group);
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

// A label or legend text: its box, estimated as svg.cpp estimates it (0.6 em a character).
struct text_box {
    std::string text;
    double x0, y0, x1, y1;
};

std::size_t code_points(const std::string& s) {
    std::size_t n = 0;
    for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}

// The texts of the group that starts with `group_start`, with their boxes at `size` px.
std::vector<text_box> texts_in(const std::string& svg, const std::string& group_start, double size) {
    std::vector<text_box> out;
    const auto at = svg.find(group_start);
    if (at == std::string::npos) return out;
    const std::string part = svg.substr(at, svg.find("</g>", at) - at);
    const std::regex text(R"re(<text x="(-?[0-9.]+)" y="(-?[0-9.]+)"[^>]*>([^<]*)</text>)re");
    for (auto it = std::sregex_iterator(part.begin(), part.end(), text); it != std::sregex_iterator(); ++it) {
        const double x = std::stod((*it)[1]), y = std::stod((*it)[2]);
        const std::string t = (*it)[3];
        out.push_back({t, x, y - size, x + 0.6 * size * static_cast<double>(code_points(t)) - 0.5, y});
    }
    return out;
}

bool overlap(const text_box& a, const text_box& b) {
    return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

const char* const label_group = "<g font-family=\"sans-serif\" font-size=\"11\" fill=\"#222\" stroke=\"white\"";
const char* const graticule_group = "<g font-family=\"sans-serif\" font-size=\"10\" fill=\"#5b6b7a\">";

// The legend's box (x0, y0, x1, y1), from its white rectangle.
std::vector<double> legend_box(const std::string& svg) {
    std::smatch m;
    const std::regex rect(R"re(fill="#222">\n<rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)")re");
    if (!std::regex_search(svg, m, rect)) return {};
    const double x = std::stod(m[1]), y = std::stod(m[2]);
    return {x, y, x + std::stod(m[3]), y + std::stod(m[4])};
}

// Every label on the map: inside it, none over another, the legend or a degree label; at
// most 60. The degree labels: below the title's band, none over another or the legend.
void check_labels(const std::string& svg, double width, double height) {
    const auto labels = texts_in(svg, label_group, 11);
    const auto degrees = texts_in(svg, graticule_group, 10);
    const auto legend = legend_box(svg);
    CHECK(labels.size() <= 60);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        INFO(labels[i].text);
        CHECK(labels[i].x0 >= -0.5);
        CHECK(labels[i].x1 <= width + 0.5);
        CHECK(labels[i].y0 >= -0.5);
        CHECK(labels[i].y1 <= height + 3.5);
        for (std::size_t k = 0; k < i; ++k) CHECK_FALSE(overlap(labels[i], labels[k]));
        for (const auto& degree : degrees) CHECK_FALSE(overlap(labels[i], degree));
        if (legend.size() == 4) CHECK_FALSE(overlap(labels[i], {"", legend[0], legend[1], legend[2], legend[3]}));
    }
    for (std::size_t i = 0; i < degrees.size(); ++i) {
        INFO(degrees[i].text);
        CHECK(degrees[i].y0 >= -0.5);  // not up in the title's band
        for (std::size_t k = 0; k < i; ++k) CHECK_FALSE(overlap(degrees[i], degrees[k]));
        if (legend.size() == 4) CHECK_FALSE(overlap(degrees[i], {"", legend[0], legend[1], legend[2], legend[3]}));
    }
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
    // The k nearest, alone (the circle through the farthest) and within a radius.
    check_picture("--lon 139.69 --lat 35.69 --k 5", "near --lon 139.69 --lat 35.69 --k 5");
    check_picture("--lon 2.35 --lat 48.86 --k 400 --km 10", "near --lon 2.35 --lat 48.86 --k 400 --km 10");
    // Circles that hold a pole: centred on it, near it, and reaching over it.
    for (const char* circle : {"--lon 0 --lat 90 --km 2500", "--lon 0 --lat -90 --km 3000", "--lon 45 --lat 89.9 --km 50",
                               "--lon 45 --lat 89.9 --km 1500", "--lon -120 --lat -75 --km 2500"})
        check_picture(circle, std::string("near ") + circle);
}

TEST_CASE("quoct svg: a map with land, graticule, lon 180, scale, labels, cells on request", "[cli][svg]") {
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
    CHECK(svg.find(">Paris</text>") != std::string::npos);  // 285 hits: the most populous labelled
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

TEST_CASE("quoct svg: labels without overlaps, the largest first, degree labels clear of the title, legend and corner",
          "[cli][svg]") {
    const std::string file = quoct_test::temp_path("labels.svg");
    for (const char* query : {"--lon 2.3522 --lat 48.8566 --km 25", "--lon 2.3522 --lat 48.8566 --km 400",
                              "--west -180 --south -90 --east 180 --north 90", "--lon 0 --lat 90 --km 2500",
                              "--lon 139.69 --lat 35.69 --k 100", "--wkt 'POLYGON((5.9 45.8, 10.5 45.8, 10.5 47.8, 5.9 47.8, 5.9 45.8))'"}) {
        INFO(query);
        REQUIRE(quoct_test::run_cli(std::string("svg ") + query + " -o '" + file + "'").status == 0);
        const std::string svg = quoct_test::file_text(file);
        const drawing d = read_svg(svg);
        check_labels(svg, d.width, d.height);
        const auto labels = texts_in(svg, label_group, 11);
        CHECK(!labels.empty());
        CHECK(svg.find(">hits: ") != std::string::npos);  // the legend
    }
    // Around Paris, 285 hits: Paris, the most populous, is labelled; so is the largest hit
    // in 400 km.
    REQUIRE(quoct_test::run_cli("svg --lon 2.3522 --lat 48.8566 --km 400 -o '" + file + "'").status == 0);
    CHECK(quoct_test::file_text(file).find(">Paris</text>") != std::string::npos);
    CHECK(quoct_test::file_text(file).find("labelled: the largest by population") != std::string::npos);
    // Ranked by another column, or in hit order when the column is absent; a named column
    // that is not there is an error.
    REQUIRE(quoct_test::run_cli("svg --label-by id --lon 2.3522 --lat 48.8566 --km 25 -o '" + file + "'").status == 0);
    CHECK(quoct_test::run_cli("svg --label-by nope --lon 2.3522 --lat 48.8566 --km 25 -o '" + file + "'").status == 1);
    // A named column with no hits to label is no error.
    CHECK(quoct_test::run_cli("svg --label-by population --lon 0 --lat 0 --km 1 -o '" + file + "'").status == 0);
}

TEST_CASE("quoct svg --polygons: a choropleth of join --count's counts, in quantile classes, with a legend",
          "[cli][svg]") {
    const std::string file = quoct_test::temp_path("choropleth.svg");
    const std::string countries = std::string(QUOCT_DATA_DIR) + "/countries_110m.geojson";
    REQUIRE(quoct_test::run_cli("svg --polygons '" + countries + "' -o '" + file + "'").status == 0);
    const std::string svg = quoct_test::file_text(file);
    const drawing d = read_svg(svg);
    check_labels(svg, d.width, d.height);
    // The oracle: join --count's counts, classed by the rule the docs state.
    const auto listed = quoct_test::run_cli("join --count --polygon-columns name --polygons '" + countries + "' --format csv");
    REQUIRE(listed.status == 0);
    std::vector<std::size_t> counts;
    std::vector<std::string> names;
    {
        std::istringstream in(listed.out);
        std::string line;
        std::getline(in, line);
        REQUIRE(line == "polygon_id,polygon_name,count\r");  // CSV lines end in CRLF (RFC 4180)
        while (std::getline(in, line)) {
            line.pop_back();
            const auto first = line.find(','), last = line.rfind(',');
            counts.push_back(std::stoul(line.substr(last + 1)));
            names.push_back(line.substr(first + 1, last - first - 1));
        }
    }
    REQUIRE(counts.size() == 177);
    std::vector<std::size_t> positive;
    for (std::size_t v : counts)
        if (v > 0) positive.push_back(v);
    std::sort(positive.begin(), positive.end());
    std::vector<std::size_t> ends;  // quantile breaks, 5 classes
    for (std::size_t c = 1; c <= 5; ++c) {
        const std::size_t end = positive[(c * positive.size() + 4) / 5 - 1];
        if (ends.empty() || end > ends.back()) ends.push_back(end);
    }
    REQUIRE(ends.size() == 5);
    const char* const ramp[] = {"#ffffb2", "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a", "#e31a1c", "#b10026"};
    const char* const five[] = {ramp[0], ramp[2], ramp[3], ramp[5], ramp[6]};  // 5 of the 7, spread evenly
    // Every polygon drawn once or more (across lon 180: twice), filled by its class.
    const std::regex path(R"re(<path data-count="([0-9]+)" fill="(#[0-9a-f]+)")re");
    std::vector<std::size_t> drawn;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), path); it != std::sregex_iterator(); ++it) {
        const std::size_t count = std::stoul((*it)[1]);
        const std::string fill = (*it)[2];
        drawn.push_back(count);
        if (count == 0) {
            CHECK(fill == "#ffffff");
        } else {
            const std::size_t c = static_cast<std::size_t>(std::lower_bound(ends.begin(), ends.end(), count) - ends.begin());
            CHECK(fill == five[c]);
        }
    }
    std::vector<std::size_t> want = counts, got = drawn;
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    got.erase(std::unique(got.begin(), got.end()), got.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    CHECK(got == want);
    CHECK(drawn.size() >= counts.size());
    // The legend: each class's range, most first, then 0 (some countries hold no city).
    const std::string top = ">" + std::to_string(ends[3] + 1) + " \u2013 ";
    CHECK(svg.find(top) != std::string::npos);
    CHECK(svg.find(">0</text>") != std::string::npos);
    // The largest count labelled, with its name (the country with the most cities).
    const std::size_t most = static_cast<std::size_t>(std::max_element(counts.begin(), counts.end()) - counts.begin());
    std::string digits = std::to_string(counts[most]), grouped;
    for (std::size_t i = 0; i < digits.size(); ++i) grouped += (i > 0 && (digits.size() - i) % 3 == 0 ? "," : "") + digits.substr(i, 1);
    CHECK(svg.find(">" + names[most] + " " + grouped + "</text>") != std::string::npos);
    // Fewer classes; bad options.
    REQUIRE(quoct_test::run_cli("svg --classes 2 --polygons '" + countries + "' -o '" + file + "'").status == 0);
    CHECK(quoct_test::file_text(file).find("fill=\"#fd8d3c\"") == std::string::npos);  // only the two ends of the ramp
    CHECK(quoct_test::run_cli("svg --classes 0 --polygons '" + countries + "' -o '" + file + "'").status == 2);
    CHECK(quoct_test::run_cli("svg --classes 8 --polygons '" + countries + "' -o '" + file + "'").status == 2);
    CHECK(quoct_test::run_cli("svg --km 5 --lon 0 --lat 0 --polygons '" + countries + "' -o '" + file + "'").status == 2);
    CHECK(quoct_test::run_cli("svg --classes 3 -o '" + file + "'").status == 2);  // --classes needs --polygons
    CHECK(quoct_test::run_cli("svg --polygons - -o '" + file + "' - < /dev/null").status == 2);  // stdin twice
    const std::string err = quoct_test::temp_path("choropleth.err");
    CHECK(quoct_test::run_cli("svg --polygon-label-column nope --polygons '" + countries + "' -o '" + file + "'", err)
              .status == 1);
    CHECK(quoct_test::file_text(err).find("no polygon column 'nope' (--polygon-label-column)") != std::string::npos);
}

}  // namespace test_cli_svg

#endif  // QUOCT_CLI
