// `quoct info`: what a LAS file (made by the tests, tests/las_test_file.hpp) and an index file
// hold, against what was written and what quoct::read_file_info reads; files that are
// neither, truncated or compressed, refused by name.
#include <catch2/catch.hpp>

#include "../las_test_file.hpp"
#include "test_cli_support.hpp"

#include <quoct/file.hpp>
#include <quoct/io/locations.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace test_cli_info {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST_CASE("quoct info: a LAS file's header, fields and bounds as written", "[cli][las]") {
    quoct_test::las_file_spec s;
    s.minor = 4;
    s.format = 8;
    s.scale = {{0.01, 0.5, 0.001}};
    s.offset = {{1000, -20, 0.5}};
    s.min = {{1000, -25.5, 0.25}};
    s.max = {{1010.25, 30, 0.75}};
    std::vector<quoct_test::las_point> pts(3);
    pts[0].X = 0, pts[1].X = 1025, pts[2].X = 500;
    pts[0].Y = -11, pts[1].Y = 100, pts[2].Y = 0;
    pts[0].Z = -250, pts[1].Z = 250, pts[2].Z = 0;
    const std::string path = quoct_test::temp_path("tile.las");
    write_bytes(path, quoct_test::las_file_bytes(s, pts));
    const auto r = quoct_test::run_cli("info '" + path + "'");
    REQUIRE(r.status == 0);
    CHECK(r.out == path + ": LAS 1.4, point format 8 (38-byte records), 3 points\n"
                          "  x: 1000 to 1010.25 (scale 0.01, offset 1000)\n"
                          "  y: -25.5 to 30 (scale 0.5, offset -20)\n"
                          "  z: 0.25 to 0.75 (scale 0.001, offset 0.5)\n"
                          "  fields: intensity, return_number, number_of_returns, scan_direction_flag, "
                          "edge_of_flight_line, classification, synthetic, key_point, withheld, overlap, "
                          "scanner_channel, scan_angle, user_data, point_source_id, gps_time, red, green, blue, nir\n"
                          "  written by: las_test_file.hpp\n"
                          "  system: quoct tests\n");

    // Damaged and compressed: refused with the reader's message, exit 1.
    std::vector<unsigned char> bytes = quoct_test::las_file_bytes(s, pts);
    bytes.pop_back();
    const std::string cut = quoct_test::temp_path("cut.las");
    write_bytes(cut, bytes);
    const std::string err = quoct_test::temp_path("info.err");
    CHECK(quoct_test::run_cli("info '" + cut + "'", err).status == 1);
    CHECK(quoct_test::file_text(err) == "quoct: error: " + cut +
                                            ": truncated: the header promises 3 points of 38 bytes from byte 375, "
                                            "the file holds 2\n");
    const std::string laz = quoct_test::temp_path("tile.laz");
    write_bytes(laz, quoct_test::las_file_bytes(s, pts));
    CHECK(quoct_test::run_cli("info '" + laz + "'", err).status == 1);
    CHECK(quoct_test::file_text(err).find("is a LAZ (compressed) file: LASzip is not available in quoct") != std::string::npos);
}

TEST_CASE("quoct info: an index file's type and sections as read_file_info reads them, other files refused", "[cli]") {
    const std::string index = quoct_test::temp_path("cities.quoct");
    REQUIRE(quoct_test::run_cli("index -o '" + index + "' '" QUOCT_DATA_DIR "/cities.csv'").status == 0);
    const quoct::file_info info = quoct::read_file_info(index);
    std::string want = index + ": quoct index file, format " + std::to_string(info.version) + ", " +
                       std::to_string(info.bytes) + " bytes: " + info.type + "\n  sections (name, offset, bytes):\n";
    for (const quoct::file_section& s : info.sections)
        want += "    " + s.name + " " + std::to_string(s.offset) + " " + std::to_string(s.bytes) + "\n";
    const auto r = quoct_test::run_cli("info '" + index + "'");
    REQUIRE(r.status == 0);
    CHECK(r.out == want);
    CHECK(info.sections.size() > 5);

    const std::string err = quoct_test::temp_path("info2.err");
    CHECK(quoct_test::run_cli("info '" QUOCT_DATA_DIR "/cities.csv'", err).status == 1);
    CHECK(quoct_test::file_text(err) == "quoct: error: " QUOCT_DATA_DIR
                                        "/cities.csv: neither a LAS file nor a quoct index file (quoct info reads those)\n");
    CHECK(quoct_test::run_cli("info /nonexistent/x.las", err).status == 1);
    CHECK(quoct_test::file_text(err).find("quoct: error: /nonexistent/x.las: cannot open") == 0);
    CHECK(quoct_test::run_cli("info", err).status == 2);  // FILE is required
}

}  // namespace test_cli_info
