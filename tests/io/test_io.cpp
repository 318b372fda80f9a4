// quoct::io CSV reader: the format rules, the error messages, and the bundled data files.
#include <catch2/catch.hpp>

#include <quoct/io/csv.hpp>
#include <quoct/quoct.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace test_io {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

namespace fs = std::filesystem;
using quoct::io::csv_table;
using quoct::io::parse_error;
using strings = std::vector<std::string>;

// The fields of one record, as strings.
strings fields(quoct::io::text_fields::row_view row) {
    strings out;
    for (std::size_t c = 0; c < row.size(); ++c) out.emplace_back(row[c]);
    return out;
}

const std::string data_dir = QUOCT_DATA_DIR;

csv_table parse(const std::string& text, const std::string& name = "test.csv") {
    std::istringstream in(text);
    return quoct::io::read_csv(in, name);
}

// The message parse() throws for `text`, or "" when it does not throw.
std::string parse_failure(const std::string& text, const std::string& name = "test.csv") {
    try {
        parse(text, name);
    } catch (const parse_error& e) {
        return e.what();
    }
    return "";
}

// A file in the temporary directory, removed when it goes out of scope.
class temp_file {
public:
    explicit temp_file(const std::string& contents) {
        std::random_device rd;
        path_ = fs::temp_directory_path() / ("quoct_test_io_" + std::to_string(rd()) + "_" + std::to_string(rd()) + ".csv");
        std::ofstream out(path_, std::ios::binary);
        out << contents;
    }
    temp_file(const temp_file&) = delete;
    temp_file& operator=(const temp_file&) = delete;
    ~temp_file() {
        std::error_code ec;
        fs::remove(path_, ec);
    }
    std::string path() const { return path_.string(); }

private:
    fs::path path_;
};

}  // namespace

TEST_CASE("csv: parse_number accepts whole finite numbers only", "[io]") {
    CHECK(quoct::io::parse_number("42") == 42.0);
    CHECK(quoct::io::parse_number("-1.5") == -1.5);
    CHECK(quoct::io::parse_number("+3") == 3.0);
    CHECK(quoct::io::parse_number(".5") == 0.5);
    CHECK(quoct::io::parse_number("2.") == 2.0);
    CHECK(quoct::io::parse_number("6.02e23") == 6.02e23);
    CHECK(quoct::io::parse_number("1E-3") == 1e-3);
    CHECK(quoct::io::parse_number(" \t2.25 ") == 2.25);
    CHECK(quoct::io::parse_number("1.65362") == 1.65362);  // correctly rounded, as the literal
    CHECK(quoct::io::parse_number("1e-400") == 0.0);       // underflow is a tiny number, not an error

    for (const char* bad : {"", "   ", "abc", "1.5x", "x1.5", "1,5", "1 5", "0x10", "--1", "+-1", "+", "-", "e5",
                            "1e", "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e400", "-1e400", "1.5\r"}) {
        INFO("field: '" << bad << "'");
        CHECK_FALSE(quoct::io::parse_number(bad).has_value());
    }
}

TEST_CASE("csv: header, rows and source lines", "[io]") {
    const csv_table t = parse("x,y\n1,2\n3,4\n");
    CHECK(t.source == "test.csv");
    CHECK(t.header == strings{"x", "y"});
    REQUIRE(t.rows.size() == 2);
    CHECK(fields(t.rows[0]) == strings{"1", "2"});
    CHECK(fields(t.rows[1]) == strings{"3", "4"});
    CHECK(t.lines == std::vector<std::size_t>{2, 3});
    CHECK(t.column("y") == 1);
    CHECK(t.number(1, 0) == 3.0);
}

TEST_CASE("csv: a missing final newline and empty fields", "[io]") {
    const csv_table t = parse("a,b,c\n,2,\n4,,6");
    REQUIRE(t.rows.size() == 2);
    CHECK(fields(t.rows[0]) == strings{"", "2", ""});
    CHECK(fields(t.rows[1]) == strings{"4", "", "6"});
}

TEST_CASE("csv: quoted fields with commas, doubled quotes and line breaks", "[io]") {
    const csv_table t = parse(
        "id,name,note\n"
        "1,\"Rüti / Dorfzentrum, Südl. Teil\",plain\n"
        "2,\"Poselok \"\"Klyazminskoe\"\"\",\"\"\n"
        "3,\"two\nlines\",\"a,\"\"b\"\",c\"\n"
        "4,last,x\n");
    REQUIRE(t.rows.size() == 4);
    CHECK(t.rows[0][1] == "Rüti / Dorfzentrum, Südl. Teil");
    CHECK(t.rows[1][1] == "Poselok \"Klyazminskoe\"");
    CHECK(t.rows[1][2].empty());
    CHECK(t.rows[2][1] == "two\nlines");
    CHECK(t.rows[2][2] == "a,\"b\",c");
    // The record with a line break inside a field starts on line 4 and ends on line 5.
    CHECK(t.lines == std::vector<std::size_t>{2, 3, 4, 6});
}

TEST_CASE("csv: UTF-8 names and header pass through untouched", "[io]") {
    const std::string names[] = {"Sant Julià de Lòria", "Ñuñoa", "東京", "Αθήνα", "Zürich 🏔"};
    std::string text = "höhe,name\n";
    for (const std::string& n : names) text += "1,\"" + n + "\"\n";
    const csv_table t = parse(text);
    REQUIRE(t.rows.size() == 5);
    for (std::size_t i = 0; i < 5; ++i) CHECK(t.rows[i][t.column("name")] == names[i]);
    CHECK(t.column("höhe") == 0);
    CHECK(t.number(0, t.column("höhe")) == 1.0);
}

TEST_CASE("csv: CRLF line endings, a byte-order mark and blank lines", "[io]") {
    const csv_table t = parse("\xEF\xBB\xBFx,y\r\n1,2\r\n\r\n\"a\r\nb\",4\r\n5,6\r");
    CHECK(t.header == strings{"x", "y"});  // the BOM is not part of the first name
    REQUIRE(t.rows.size() == 3);
    CHECK(fields(t.rows[0]) == strings{"1", "2"});
    CHECK(fields(t.rows[1]) == strings{"a\r\nb", "4"});  // inside quotes the line break is data
    CHECK(fields(t.rows[2]) == strings{"5", "6"});        // a final lone CR ends the line
    CHECK(t.lines == std::vector<std::size_t>{2, 4, 6});
}

TEST_CASE("csv: an empty file is an error, a header alone is an empty table", "[io]") {
    CHECK(parse_failure("", "empty.csv") == "empty.csv: the file is empty; expected a header row");
    CHECK(parse_failure("\n\r\n\n", "blank.csv") == "blank.csv: the file is empty; expected a header row");
    const csv_table t = parse("x,y,z\n");
    CHECK(t.header == strings{"x", "y", "z"});
    CHECK(t.rows.empty());
    CHECK(t.lines.empty());
    CHECK(quoct::io::read_points<3>(t, {"x", "y", "z"}).empty());
}

TEST_CASE("csv: malformed records name the file and line", "[io]") {
    CHECK(parse_failure("a,b\n1,2\n3\n", "f.csv") == "f.csv:3: expected 2 fields as in the header, found 1");
    CHECK(parse_failure("a,b\n1,2,3\n", "f.csv") == "f.csv:2: expected 2 fields as in the header, found 3");
    CHECK(parse_failure("a,b\n1,2\n3,\"open\n\n", "f.csv") ==
          "f.csv:3: a quoted field is not closed before the end of the file");
    CHECK(parse_failure("a,b\n1,\"x\"y\n", "f.csv") == "f.csv:2: unexpected text after a closing quote");
    CHECK(parse_failure("a,b\n1,2\n1,x\"y\"\n", "f.csv") ==
          "f.csv:3: a quote inside an unquoted field (quote the whole field and double the quote)");
}

TEST_CASE("csv: parse_error carries the source and the line", "[io]") {
    try {
        parse("a\n1\n\n1,2\n", "where.csv");
        FAIL("no exception");
    } catch (const parse_error& e) {
        CHECK(e.source() == "where.csv");
        CHECK(e.line() == 4);
        const std::runtime_error& base = e;  // catchable as the standard type too
        CHECK(std::string(base.what()).rfind("where.csv:4: ", 0) == 0);
    }
}

TEST_CASE("csv: a missing or repeated column is an error listing the columns", "[io]") {
    const csv_table t = parse("id,name,lon\n1,a,2\n", "data/x.csv");
    CHECK_THROWS_WITH(t.column("lat"), "data/x.csv: no column 'lat'; the columns are 'id', 'name', 'lon'");
    CHECK_THROWS_WITH(t.column("Lon"), "data/x.csv: no column 'Lon'; the columns are 'id', 'name', 'lon'");
    CHECK_THROWS_WITH((quoct::io::read_points<2>(t, {"lon", "lat"})),
                      "data/x.csv: no column 'lat'; the columns are 'id', 'name', 'lon'");
    const csv_table twice = parse("x,y,x\n1,2,3\n", "dup.csv");
    CHECK(twice.column("y") == 1);
    CHECK_THROWS_WITH(twice.column("x"), "dup.csv: column 'x' appears more than once in the header");
}

TEST_CASE("csv: a bad number names the file, line, column and field", "[io]") {
    const std::string text = "id,lon,lat\n1,2.5,3.5\n\n2,4.5,abc\n3,,1\n4,nan,1\n5,1e999,1\n";
    const csv_table t = parse(text, "data/x.csv");
    CHECK(t.number(0, 2) == 3.5);
    CHECK_THROWS_WITH(t.number(1, 2), "data/x.csv:4: column 'lat': 'abc' is not a number");
    CHECK_THROWS_WITH(t.number(2, 1), "data/x.csv:5: column 'lon': empty field, expected a number");
    CHECK_THROWS_WITH(t.number(3, 1), "data/x.csv:6: column 'lon': 'nan' is not a finite number");
    CHECK_THROWS_WITH(t.number(4, 1), "data/x.csv:7: column 'lon': '1e999' is not a finite number");
    CHECK_THROWS_WITH((quoct::io::read_points<2>(t, {"lon", "lat"})), "data/x.csv:4: column 'lat': 'abc' is not a number");

    const temp_file file(text);
    CHECK_THROWS_WITH((quoct::io::read_points<2>(file.path(), {"lon", "lat"})),
                      file.path() + ":4: column 'lat': 'abc' is not a number");
}

TEST_CASE("csv: read_points takes columns by name, in the order asked", "[io]") {
    const temp_file file("name,z,x,y\n\"a, b\",3,1,2\nc,-6,-4,-5\n");
    const auto points = quoct::io::read_points<3>(file.path(), {"x", "y", "z"});
    REQUIRE(points.size() == 2);
    CHECK(points[0] == quoct::point<double, 3>{{1, 2, 3}});
    CHECK(points[1] == quoct::point<double, 3>{{-4, -5, -6}});
    const auto flat = quoct::io::read_points<2>(file.path(), {"z", "x"});
    CHECK(flat[1] == quoct::point<double, 2>{{-6, -4}});
}

TEST_CASE("csv: a missing file or a directory is a clear error naming it", "[io]") {
    const std::string missing = data_dir + "/no_such_file.csv";
    CHECK_THROWS_WITH(quoct::io::read_csv(missing), missing + ": cannot open: No such file or directory");
    CHECK_THROWS_WITH(quoct::io::read_csv(data_dir), data_dir + ": cannot open: it is a directory");
    CHECK_THROWS_AS((quoct::io::read_points<2>(missing, {"x", "y"})), parse_error);
}

TEST_CASE("csv: data/cities.csv reads in full", "[io][data]") {
    const csv_table t = quoct::io::read_csv(data_dir + "/cities.csv");
    CHECK(t.header == strings{"id", "name", "country", "population", "lon", "lat"});
    REQUIRE(t.rows.size() == 135233);
    REQUIRE(t.lines.size() == t.rows.size());
    CHECK(t.lines.front() == 2);
    CHECK(t.lines.back() == 135234);

    CHECK(fields(t.rows[0]) == strings{"3039154", "El Tarter", "AD", "1052", "1.65362", "42.57952"});
    CHECK(t.rows[1][1] == "Sant Julià de Lòria");
    CHECK(t.rows[14632 - 2][1] == "Rüti / Dorfzentrum, Südl. Teil");
    CHECK(t.rows[108765 - 2][1] == "Poselok Turisticheskogo pansionata \"Klyazminskoe vodohranilische\"");
    CHECK(fields(t.rows[t.rows.size() - 1]) == strings{"1106542", "Chitungwiza", "ZW", "340360", "31.07555", "-18.01274"});

    const auto lonlat = quoct::io::read_points<2>(t, {"lon", "lat"});
    REQUIRE(lonlat.size() == t.rows.size());
    CHECK(lonlat[0] == quoct::point<double, 2>{{1.65362, 42.57952}});
    std::size_t outside = 0;
    for (const auto& p : lonlat) outside += (std::abs(p[0]) > 180 || std::abs(p[1]) > 90) ? 1u : 0u;
    CHECK(outside == 0);
    const std::size_t population = t.column("population");
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const double n = t.number(i, population);
        if (n < 0 || n != std::floor(n)) FAIL("line " << t.lines[i] << ": population " << n);
    }
}

TEST_CASE("csv: data/bunny.csv and its faces read in full", "[io][data]") {
    const auto vertices = quoct::io::read_points<3>(data_dir + "/bunny.csv", {"x", "y", "z"});
    REQUIRE(vertices.size() == 1839);
    CHECK(vertices.front() == quoct::point<double, 3>{{1.301895, 0.122622, 2.550061}});
    CHECK(vertices.back() == quoct::point<double, 3>{{-2.505459, 1.492266, 1.19295}});

    const auto faces = quoct::io::read_points<3>(data_dir + "/bunny_faces.csv", {"a", "b", "c"});
    REQUIRE(faces.size() == 3674);
    CHECK(faces.back() == quoct::point<double, 3>{{816, 589, 1838}});
    std::size_t bad = 0;
    for (const auto& f : faces)
        for (std::size_t a = 0; a < 3; ++a)
            bad += (f[a] < 0 || f[a] >= 1839 || f[a] != std::floor(f[a])) ? 1u : 0u;
    CHECK(bad == 0);

    // The points feed a tree directly, and its ids index the file's rows.
    const quoct::octree<double> tree(vertices);
    const auto nearest = tree.nearest(vertices[100], 1);
    REQUIRE(nearest.size() == 1);
    CHECK(vertices[nearest[0]] == vertices[100]);
}

}  // namespace test_io
