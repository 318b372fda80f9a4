// quoct::io's LAS reader: files made by the tests (tests/las_test_file.hpp) for every LAS
// version and point format, read back whole and in chunks and compared with what was
// written (coordinates as the specification computes them, every field, extra bytes); and
// every damage the reader must refuse, by name.
#include <catch2/catch.hpp>

#include "../las_test_file.hpp"
#include "../test_io_support.hpp"

#include <quoct/build_file.hpp>
#include <quoct/io/las.hpp>
#include <quoct/quoct.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace test_io_las {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

namespace fs = std::filesystem;
using quoct_test::failure;
using quoct_test::las_file_spec;
using quoct_test::las_point;

// A file in the temporary directory, removed when it goes out of scope.
class temp_las {
public:
    temp_las(const std::vector<unsigned char>& bytes, const std::string& ext = ".las") {
        std::random_device rd;
        path_ = (fs::temp_directory_path() / ("quoct_test_las_" + std::to_string(rd()) + "_" + std::to_string(rd()) + ext))
                    .string();
        std::ofstream out(path_, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    ~temp_las() {
        std::error_code ec;
        fs::remove(path_, ec);
    }
    temp_las(const temp_las&) = delete;
    temp_las& operator=(const temp_las&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// The specification's coordinate: the product rounded, then the sum (volatile keeps the
// compiler from fusing the two, whatever this file's flags).
double las_coordinate(std::int32_t v, double scale, double offset) {
    volatile double product = static_cast<double>(v) * scale;
    return product + offset;
}

bool has_gps(unsigned f) { return f == 1 || f >= 3; }
bool has_rgb(unsigned f) { return f == 2 || f == 3 || f == 5 || f == 7 || f == 8 || f == 10; }
bool has_nir(unsigned f) { return f == 8 || f == 10; }

std::vector<las_point> random_points(unsigned format, std::size_t n, std::mt19937_64& rng) {
    std::vector<las_point> pts(n);
    const bool wide = format >= 6;
    for (las_point& p : pts) {
        p.X = static_cast<std::int32_t>(rng() % 2000001) - 1000000;
        p.Y = static_cast<std::int32_t>(rng() % 2000001) - 1000000;
        p.Z = static_cast<std::int32_t>(rng() % 20001) - 10000;
        p.intensity = static_cast<std::uint16_t>(rng());
        p.return_number = static_cast<unsigned>(rng() % (wide ? 16 : 8));
        p.number_of_returns = static_cast<unsigned>(rng() % (wide ? 16 : 8));
        p.scan_direction = rng() & 1;
        p.edge = rng() & 1;
        p.classification = static_cast<unsigned>(rng() % (wide ? 256 : 32));
        p.synthetic = rng() & 1;
        p.key_point = rng() & 1;
        p.withheld = rng() & 1;
        p.overlap = wide ? rng() & 1 : 0;
        p.channel = wide ? rng() % 4 : 0;
        p.scan_angle = wide ? static_cast<int>(rng() % 30001) - 15000 : static_cast<int>(rng() % 181) - 90;
        p.user_data = rng() % 256;
        p.point_source_id = static_cast<std::uint16_t>(rng());
        p.gps_time = static_cast<double>(rng() % 1000000) / 64;
        p.red = static_cast<std::uint16_t>(rng());
        p.green = static_cast<std::uint16_t>(rng());
        p.blue = static_cast<std::uint16_t>(rng());
        p.nir = static_cast<std::uint16_t>(rng());
    }
    return pts;
}

// The value the reader must give for `name` of point p in `format` of LAS 1.`minor`.
double expected_field(const las_point& p, unsigned format, const std::string& name, unsigned minor = 4) {
    if (name == "classification" && minor == 0)  // the whole byte, flag bits included
        return p.classification | p.synthetic << 5 | p.key_point << 6 | p.withheld << 7;
    if (name == "intensity") return p.intensity;
    if (name == "return_number") return p.return_number;
    if (name == "number_of_returns") return p.number_of_returns;
    if (name == "scan_direction_flag") return p.scan_direction;
    if (name == "edge_of_flight_line") return p.edge;
    if (name == "classification") return p.classification;
    if (name == "synthetic") return p.synthetic;
    if (name == "key_point") return p.key_point;
    if (name == "withheld") return p.withheld;
    if (name == "overlap") return p.overlap;
    if (name == "scanner_channel") return p.channel;
    if (name == "scan_angle") return format >= 6 ? p.scan_angle * 0.006 : p.scan_angle;
    if (name == "user_data") return p.user_data;
    if (name == "point_source_id") return p.point_source_id;
    if (name == "gps_time") return p.gps_time;
    if (name == "red") return p.red;
    if (name == "green") return p.green;
    if (name == "blue") return p.blue;
    if (name == "nir") return p.nir;
    FAIL("no expected value for " << name);
    return 0;
}

std::vector<std::string> expected_names(unsigned format, unsigned minor = 4) {
    std::vector<std::string> n = {"intensity", "return_number", "number_of_returns", "scan_direction_flag",
                                  "edge_of_flight_line", "classification"};
    if (minor != 0) n.insert(n.end(), {"synthetic", "key_point", "withheld"});
    if (format >= 6) n.insert(n.end(), {"overlap", "scanner_channel"});
    n.insert(n.end(), {"scan_angle", "user_data", "point_source_id"});
    if (has_gps(format)) n.push_back("gps_time");
    if (has_rgb(format)) n.insert(n.end(), {"red", "green", "blue"});
    if (has_nir(format)) n.push_back("nir");
    return n;
}

las_file_spec spec_for(unsigned minor, unsigned format) {
    las_file_spec s;
    s.minor = minor;
    s.format = format;
    s.scale = {{0.001, 0.01, 0.25}};
    s.offset = {{500000.125, 4000000.5, -12.0}};
    for (std::size_t a = 0; a < 3; ++a) {
        const double range = a == 2 ? 10000 : 1000000;
        s.min[a] = las_coordinate(-static_cast<std::int32_t>(range), s.scale[a], s.offset[a]);
        s.max[a] = las_coordinate(static_cast<std::int32_t>(range), s.scale[a], s.offset[a]);
    }
    return s;
}

void check_cloud(const quoct::io::point_cloud& c, const std::vector<las_point>& pts, const las_file_spec& s,
                 const std::vector<std::string>& names, std::size_t first = 0) {
    REQUIRE(c.property_names == names);
    REQUIRE(c.xyz.size() == 3 * c.size());
    REQUIRE(c.properties.size() == names.size() * c.size());
    for (std::size_t i = 0; i < c.size(); ++i) {
        const las_point& p = pts[first + i];
        const std::int32_t ints[3] = {p.X, p.Y, p.Z};
        for (std::size_t a = 0; a < 3; ++a) REQUIRE(c.xyz[3 * i + a] == las_coordinate(ints[a], s.scale[a], s.offset[a]));
        for (std::size_t f = 0; f < names.size(); ++f)
            REQUIRE(c.properties[names.size() * i + f] == expected_field(p, s.format, names[f], s.minor));
    }
}

}  // namespace

TEST_CASE("LAS: every version and point format reads back what was written", "[io][las]") {
    std::mt19937_64 rng(41);
    for (unsigned minor = 0; minor <= 4; ++minor)
        for (unsigned format = 0; format <= 10; ++format) {
            if (format >= 6 && minor < 4) continue;  // formats 6 to 10 are LAS 1.4's
            CAPTURE(minor, format);
            const las_file_spec s = spec_for(minor, format);
            const std::vector<las_point> pts = random_points(format, 257, rng);
            const temp_las file(quoct_test::las_file_bytes(s, pts));
            const quoct::io::las_header h = quoct::io::read_las_header(file.path());
            CHECK(h.version_major == 1);
            CHECK(h.version_minor == minor);
            CHECK(h.point_format == format);
            CHECK(h.point_count == pts.size());
            CHECK(h.record_length == quoct_test::las_format_bytes(format));
            CHECK(h.system_identifier == "quoct tests");
            CHECK(h.generating_software == "las_test_file.hpp");
            CHECK(h.fields == expected_names(format, minor));
            CHECK(h.notes.empty());
            quoct::io::las_options o;
            o.fields = expected_names(format, minor);
            const quoct::io::point_cloud c = quoct::io::read_las(file.path(), o);
            CHECK(c.source == file.path());
            REQUIRE(c.size() == pts.size());
            check_cloud(c, pts, s, o.fields);
            // No fields asked: coordinates only.
            const quoct::io::point_cloud bare = quoct::io::read_las(file.path());
            CHECK(bare.property_names.empty());
            CHECK(bare.xyz == c.xyz);
        }
}

TEST_CASE("LAS: read in chunks of any size, the same points in order, bytes in memory as a file", "[io][las]") {
    std::mt19937_64 rng(7);
    const las_file_spec s = spec_for(4, 7);
    const std::vector<las_point> pts = random_points(7, 1000, rng);
    const std::vector<unsigned char> bytes = quoct_test::las_file_bytes(s, pts);
    const temp_las file(bytes);
    const std::vector<std::string> names = {"gps_time", "classification", "red"};
    for (const std::size_t chunk_size : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{999}, std::size_t{5000}}) {
        CAPTURE(chunk_size);
        quoct::io::las_reader in(file.path(), {names, true});
        quoct::io::point_cloud chunk;
        std::size_t seen = 0;
        while (const std::size_t got = in.read(chunk, chunk_size)) {
            CHECK(got == chunk.size());
            CHECK(got <= std::max<std::size_t>(chunk_size, 1));
            check_cloud(chunk, pts, s, names, seen);
            seen += got;
            CHECK(in.points_read() == seen);
        }
        CHECK(seen == pts.size());
        CHECK(chunk.size() == 0);
        CHECK(chunk.property_names == names);
        CHECK(in.read(chunk, 10) == 0);
    }
    quoct::io::las_reader mem(bytes.data(), bytes.size(), "in-memory.las", {names, true});
    quoct::io::point_cloud all;
    CHECK(mem.read(all, 1u << 20) == pts.size());
    CHECK(all.source == "in-memory.las");
    check_cloud(all, pts, s, names);
}

TEST_CASE("LAS: coordinates are the product rounded, then the sum, never one fused multiply-add", "[io][las]") {
    // Integers, scales and offsets for which fma(X, scale, offset) rounds differently.
    std::mt19937_64 rng(3);
    std::vector<las_point> pts;
    las_file_spec s = spec_for(2, 0);
    s.scale = {{0.1, 0.3, 0.7}};
    s.offset = {{0.01, 1e-3, 123.456}};
    for (std::size_t a = 0; a < 3; ++a) s.min[a] = -1e12, s.max[a] = 1e12;
    std::size_t differ = 0;
    while (pts.size() < 200) {
        las_point p;
        p.X = static_cast<std::int32_t>(rng() % 2000000000) - 1000000000;
        p.Y = static_cast<std::int32_t>(rng() % 2000000000) - 1000000000;
        p.Z = static_cast<std::int32_t>(rng() % 2000000000) - 1000000000;
        const bool d = std::fma(static_cast<double>(p.X), s.scale[0], s.offset[0]) != las_coordinate(p.X, s.scale[0], s.offset[0]);
        if (d || pts.size() < 100) pts.push_back(p), differ += d;
    }
    REQUIRE(differ >= 100);
    const temp_las file(quoct_test::las_file_bytes(s, pts));
    check_cloud(quoct::io::read_las(file.path()), pts, s, {});
}

TEST_CASE("LAS: extra bytes by the names their record gives, scaled and offset where it says", "[io][las]") {
    using quoct_test::las_extra_descriptor;
    las_file_spec s = spec_for(4, 6);
    // u8 "a"; i16 "height" scaled 0.01, offset 100; 3 undefined bytes; u16[2] "pair"; f64 "w"; i32 "offs" offset only.
    std::vector<unsigned char> payload;
    for (const auto& d : {las_extra_descriptor(1, 0, "a"), las_extra_descriptor(4, 8 | 16, "height", {{0.01, 1, 1}}, {{100, 0, 0}}),
                          las_extra_descriptor(0, 3, "skipped"), las_extra_descriptor(13, 8, "pair", {{2, 0.5, 1}}),
                          las_extra_descriptor(10, 0, "w"), las_extra_descriptor(6, 16, "offs", {{1, 1, 1}}, {{-7.5, 0, 0}})})
        payload.insert(payload.end(), d.begin(), d.end());
    s.vlrs.push_back({"LASF_Spec", 4, payload});
    s.vlrs.push_back({"another", 1, std::vector<unsigned char>(10, 0xAB)});
    s.extra_bytes = 1 + 2 + 3 + 4 + 8 + 4 + 5;  // 5 bytes no descriptor covers
    std::vector<las_point> pts(3);
    const std::int16_t heights[3] = {-300, 0, 12345};
    const double ws[3] = {0.5, -1e300, 3.25};
    for (std::size_t i = 0; i < pts.size(); ++i) {
        las_point& p = pts[i];
        p.X = static_cast<std::int32_t>(i);
        p.extra.assign(s.extra_bytes, 0);
        p.extra[0] = static_cast<unsigned char>(200 + i);
        std::memcpy(p.extra.data() + 1, &heights[i], 2);
        const std::uint16_t pair[2] = {static_cast<std::uint16_t>(1000 * i), static_cast<std::uint16_t>(65535 - i)};
        std::memcpy(p.extra.data() + 6, pair, 4);
        std::memcpy(p.extra.data() + 10, &ws[i], 8);
        const std::int32_t offs = -static_cast<std::int32_t>(i) * 1000;
        std::memcpy(p.extra.data() + 18, &offs, 4);
    }
    const temp_las file(quoct_test::las_file_bytes(s, pts));
    const quoct::io::las_header h = quoct::io::read_las_header(file.path());
    std::vector<std::string> names = expected_names(6);
    names.insert(names.end(), {"a", "height", "pair[0]", "pair[1]", "w", "offs"});
    CHECK(h.fields == names);
    const quoct::io::point_cloud c = quoct::io::read_las(file.path(), {{"offs", "w", "pair[1]", "pair[0]", "height", "a"}, true});
    REQUIRE(c.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        const double* v = c.properties.data() + 6 * i;
        CHECK(v[0] == -1000.0 * static_cast<double>(i) - 7.5);
        CHECK(v[1] == ws[i]);
        CHECK(v[2] == (65535.0 - static_cast<double>(i)) * 0.5);
        CHECK(v[3] == 1000.0 * static_cast<double>(i) * 2);
        volatile double product = heights[i] * 0.01;
        CHECK(v[4] == product + 100);
        CHECK(v[5] == 200.0 + static_cast<double>(i));
    }
    // An Extra Bytes record the reader cannot use makes that record invalid, not the file:
    // descriptors that need more bytes than the records have, a length that is not a whole
    // number of descriptors, an unknown type.
    s.extra_bytes = 20;
    for (las_point& p : pts) p.extra.resize(20);
    const auto set_aside = [&](const std::string& why) {
        const temp_las f(quoct_test::las_file_bytes(s, pts));
        const quoct::io::las_header bad = quoct::io::read_las_header(f.path());
        CHECK(bad.fields == expected_names(6));
        REQUIRE(bad.notes.size() == 1);
        CHECK(bad.notes[0] == "its Extra Bytes record is set aside (no extra fields): " + why);
        CHECK(quoct::io::read_las(f.path()).size() == 3);
        CHECK(failure([&] { quoct::io::read_las(f.path(), {{"w"}, true}); }).find("no field 'w' in point format 6") !=
              std::string::npos);
    };
    set_aside("it describes 22 bytes a point, but records have 20 after the point format's");
    s.vlrs[0].payload.push_back(0);
    set_aside("it is 1153 bytes, not a whole number of 192-byte descriptors");
    s.vlrs[0].payload.pop_back();
    s.vlrs[0].payload[2] = 31;
    set_aside("'a' has an unknown data type 31");
}

TEST_CASE("LAS: extended records and waveform data after the points are accounted for, stray bytes are not", "[io][las]") {
    std::mt19937_64 rng(5);
    const std::vector<las_point> pts = random_points(1, 50, rng);
    las_file_spec s = spec_for(4, 1);
    s.evlrs.push_back({"some", 7, std::vector<unsigned char>(100, 1)});
    s.evlrs.push_back({"other", 8, {}});
    const temp_las with_evlrs(quoct_test::las_file_bytes(s, pts));
    CHECK(quoct::io::read_las(with_evlrs.path()).size() == 50);
    las_file_spec w = spec_for(3, 4);
    w.evlrs.push_back({"LASF_Spec", 65535, std::vector<unsigned char>(333, 2)});
    const temp_las waveform(quoct_test::las_file_bytes(w, random_points(4, 20, rng)));
    CHECK(quoct::io::read_las(waveform.path()).size() == 20);

    for (const unsigned minor : {2u, 3u, 4u}) {
        CAPTURE(minor);
        las_file_spec t = spec_for(minor, 1);
        t.trailing.assign(28, 0);  // exactly one more record's worth
        const temp_las stray(quoct_test::las_file_bytes(t, pts));
        CHECK(failure([&] { quoct::io::read_las(stray.path()); }) ==
              stray.path() + ": damaged: 28 bytes after the last of the header's 50 point records that no extended "
                             "variable length record accounts for (the header's point count may be too small)");
    }
    s.trailing.assign(3, 0);  // after the extended records
    const temp_las after(quoct_test::las_file_bytes(s, pts));
    CHECK(failure([&] { quoct::io::read_las(after.path()); }).find("3 bytes after the last") != std::string::npos);
    s.trailing.clear();

    // A count too large by exactly the extended records' bytes: the records would end at the
    // file's end, reading the extended records as points.
    las_file_spec big = spec_for(4, 0);
    big.evlrs.push_back({"some", 7, std::vector<unsigned char>(40, 1)});  // 60 + 40 bytes: 5 records of 20
    big.count_delta = 5;
    const std::vector<las_point> pts0 = random_points(0, 10, rng);
    const temp_las too_many(quoct_test::las_file_bytes(big, pts0));
    CHECK(failure([&] { quoct::io::read_las(too_many.path()); }) ==
          too_many.path() + ": damaged: the header's 15 point records run past byte " + std::to_string(375 + 10 * 20) +
              ", where its extended variable length records start (the header's point count may be too large)");
    // A gap before the extended records (a count too small); extended records promised but absent.
    big.count_delta = 0;
    big.evlr_start_delta = 20;
    big.trailing.assign(20, 0);
    const temp_las gap(quoct_test::las_file_bytes(big, pts0));
    CHECK(failure([&] { quoct::io::read_las(gap.path()); }).find("120 bytes after the last of the header's 10") !=
          std::string::npos);
    las_file_spec absent = spec_for(4, 0);
    absent.evlr_count_extra = 2;
    const temp_las none(quoct_test::las_file_bytes(absent, pts0));
    CHECK(failure([&] { quoct::io::read_las(none.path()); }) ==
          none.path() + ": truncated: the header's extended variable length records start at byte " +
              std::to_string(375 + 10 * 20) + ", at or past the end of the file");
    // LAS 1.3: a waveform start past the records names external data when nothing follows them.
    las_file_spec w3 = spec_for(3, 1);
    w3.evlr_start_delta = 1000;
    w3.evlr_count_extra = 0;
    w3.evlrs.clear();
    const std::vector<las_point> pts1 = random_points(1, 4, rng);
    std::vector<unsigned char> w3bytes = quoct_test::las_file_bytes(w3, pts1);
    const std::uint64_t external = w3bytes.size() + 1000;
    std::memcpy(w3bytes.data() + 227, &external, 8);
    const temp_las external_waveform(w3bytes);
    CHECK(quoct::io::read_las(external_waveform.path()).size() == 4);
}

TEST_CASE("LAS: headers real files have that the specification bends: 1.3 with 1.2's header, 1.4 with only a legacy count",
          "[io][las]") {
    std::mt19937_64 rng(13);
    las_file_spec s = spec_for(3, 1);
    s.header_227 = true;
    const std::vector<las_point> pts = random_points(1, 30, rng);
    const temp_las short_header(quoct_test::las_file_bytes(s, pts));
    check_cloud(quoct::io::read_las(short_header.path()), pts, s, {});
    las_file_spec t = spec_for(4, 1);
    t.zero_count64 = true;  // legacy count 30, 64-bit count 0: read with the legacy count, as LASlib does
    const temp_las legacy_only(quoct_test::las_file_bytes(t, pts));
    CHECK(quoct::io::read_las_header(legacy_only.path()).point_count == 30);
    check_cloud(quoct::io::read_las(legacy_only.path()), pts, t, {});
    // Header bounds that are not a range: the header alone reads; the points do not, unless
    // bounds are not checked.
    t.min[1] = std::numeric_limits<double>::quiet_NaN();
    const temp_las nan_bounds(quoct_test::las_file_bytes(t, pts));
    CHECK(std::isnan(quoct::io::read_las_header(nan_bounds.path()).min[1]));
    CHECK(failure([&] { quoct::io::read_las(nan_bounds.path()); }).find("the header's y bounds are not a finite range") !=
          std::string::npos);
    CHECK(quoct::io::read_las(nan_bounds.path(), {{}, false}).size() == 30);
}

TEST_CASE("LAS: damaged, foreign and compressed files are refused by name", "[io][las]") {
    std::mt19937_64 rng(11);
    const std::vector<las_point> pts = random_points(3, 10, rng);
    const las_file_spec good = spec_for(2, 3);
    const std::vector<unsigned char> ok = quoct_test::las_file_bytes(good, pts);
    const auto error_of = [](const std::vector<unsigned char>& bytes, const std::string& ext = ".las") {
        const temp_las f(bytes, ext);
        const std::string e = failure([&] { quoct::io::read_las(f.path()); });
        if (e != "no error") CHECK(e.rfind(f.path() + ": ", 0) == 0);
        return e;
    };
    const auto contains = [](const std::string& e, const std::string& part) {
        INFO(e);
        CHECK(e.find(part) != std::string::npos);
    };
    CHECK(error_of(ok) == "no error");

    contains(error_of({'P', 'K', 3, 4}), "not a LAS file");
    contains(error_of(std::vector<unsigned char>(ok.begin(), ok.begin() + 100)), "truncated: 100 bytes, less than a LAS header");
    // Truncated in the records: the header promises more than the file holds.
    contains(error_of(std::vector<unsigned char>(ok.begin(), ok.end() - 1)),
             "truncated: the header promises 10 points of 34 bytes from byte 227, the file holds 9");
    {
        las_file_spec s = good;
        s.count_delta = 5;
        contains(error_of(quoct_test::las_file_bytes(s, pts)), "the header promises 15 points");
        s.count_delta = -1;
        contains(error_of(quoct_test::las_file_bytes(s, pts)), "34 bytes after the last of the header's 9 point records");
    }
    {
        std::vector<unsigned char> v = ok;
        v[24] = 2;
        contains(error_of(v), "LAS version 2.2 is not one this reader knows (1.0 to 1.4)");
        v = ok;
        v[105] = 27;  // record length 27 < format 3's 34
        v[106] = 0;
        contains(error_of(v), "point records of 27 bytes cannot hold format 3 (34 bytes)");
        v = ok;
        v[104] = 11;
        contains(error_of(v), "point data record format 11 is not one of LAS's");
        v = ok;
        v[94] = 200;  // header size below 1.2's 227
        contains(error_of(v), "the header says it is 200 bytes");
        v = ok;
        std::memset(v.data() + 131, 0, 8);  // x scale 0
        contains(error_of(v), "the x scale factor is 0");
    }
    {  // the compression bit in a file named .las; a .laz name; LASzip's record
        las_file_spec s = good;
        s.format_byte_bits = 0x80;
        const std::string e = error_of(quoct_test::las_file_bytes(s, pts));
        contains(e, "is compressed (LAZ: the point format's compression bit is set)");
        contains(e, "LASzip is not available in quoct");
        contains(e, "laszip -i tile.laz -o tile.las");
        contains(error_of(ok, ".LAZ"), "is a LAZ (compressed) file: LASzip is not available");
        s = good;
        s.vlrs.push_back({"laszip encoded", 22204, std::vector<unsigned char>(34, 0)});
        contains(error_of(quoct_test::las_file_bytes(s, pts)), "is compressed (it holds LASzip's record)");
    }
    {  // LAS 1.4: legacy and 64-bit counts disagree
        las_file_spec s = spec_for(4, 1);
        s.legacy_count = 3;
        contains(error_of(quoct_test::las_file_bytes(s, random_points(1, 10, rng))),
                 "the header's legacy point count (3) disagrees with its 64-bit count (10)");
    }
    {  // a variable length record past the start of the points
        std::vector<unsigned char> v = ok;
        v[100] = 1;  // one record claimed, none there: the points start right after the header
        contains(error_of(v), "variable length record 1 of 1 runs past the start of the points");
        las_file_spec s = good;
        s.vlrs.push_back({"x", 1, std::vector<unsigned char>(40, 0)});
        v = quoct_test::las_file_bytes(s, pts);
        v[227 + 20] = 100;  // its length past the points' start
        contains(error_of(v), "variable length record 1 ('x' 1) runs past the start of the points");
    }
    {  // points start inside the header, or past the end
        std::vector<unsigned char> v = ok;
        v[96] = 100, v[97] = 0, v[98] = 0, v[99] = 0;
        contains(error_of(v), "the points start at byte 100, inside the 227-byte header");
        v[96] = 0xFF, v[97] = 0xFF, v[98] = 0xFF, v[99] = 0x7F;
        contains(error_of(v), "truncated: the points start at byte 2147483647, past the end");
    }
    // Files that are not there or not files.
    CHECK(failure([] { quoct::io::read_las("/nonexistent/quoct.las"); }).rfind("/nonexistent/quoct.las: cannot open", 0) == 0);
    CHECK(failure([] { quoct::io::read_las(fs::temp_directory_path().string()); }).find("is a directory") != std::string::npos);
    // A field the format lacks.
    {
        const temp_las f(ok);
        const std::string e = failure([&] { quoct::io::read_las(f.path(), {{"nir"}, true}); });
        CHECK(e.find("no field 'nir' in point format 3 (it has intensity, return_number") != std::string::npos);
    }
}

TEST_CASE("LAS: a point outside the header's bounds is an error naming it, unless bounds are not checked", "[io][las]") {
    las_file_spec s = spec_for(2, 0);
    s.scale = {{0.5, 0.5, 0.5}};
    s.offset = {{0, 0, 0}};
    s.min = {{0, 0, 0}};
    s.max = {{10, 10, 10}};
    std::vector<las_point> pts(5);
    for (std::size_t i = 0; i < pts.size(); ++i) pts[i].X = pts[i].Y = pts[i].Z = static_cast<std::int32_t>(4 * i);  // 0..8
    pts[3].Y = 21;  // 10.5: one step over, accepted
    pts[4].Z = 22;  // 11: two steps over
    const temp_las f(quoct_test::las_file_bytes(s, pts));
    CHECK(failure([&] { quoct::io::read_las(f.path()); }) ==
          f.path() + ": point 4: z = 11.000000 lies outside the header's bounds 0.000000 to 10.000000 "
                     "(las_options::check_bounds = false reads it anyway)");
    quoct::io::las_reader in(f.path());
    quoct::io::point_cloud chunk;
    CHECK(in.read(chunk, 4) == 4);  // the four before it are fine
    CHECK(failure([&] { in.read(chunk, 4); }).find("point 4: z") != std::string::npos);
    CHECK(in.read(chunk, 4) == 0);  // a reader that failed is at the end
    const quoct::io::point_cloud c = quoct::io::read_las(f.path(), {{}, false});
    REQUIRE(c.size() == 5);
    CHECK(c.xyz[3 * 4 + 2] == 11.0);
    CHECK(c.xyz[3 * 3 + 1] == 10.5);
}

TEST_CASE("LAS: an empty file of no points, and an octree built from a LAS file answers as brute force", "[io][las]") {
    const temp_las empty(quoct_test::las_file_bytes(spec_for(4, 6), {}));
    const quoct::io::point_cloud none = quoct::io::read_las(empty.path(), {{"intensity"}, true});
    CHECK(none.size() == 0);
    CHECK(none.property_names == std::vector<std::string>{"intensity"});

    std::mt19937_64 rng(9);
    las_file_spec s = spec_for(4, 6);
    s.scale = {{0.25, 0.25, 0.25}};  // dyadic: distances are exact
    s.offset = {{1000, -2000, 0}};
    std::vector<las_point> pts(4000);
    for (las_point& p : pts) {
        p.X = static_cast<std::int32_t>(rng() % 401);
        p.Y = static_cast<std::int32_t>(rng() % 401);
        p.Z = static_cast<std::int32_t>(rng() % 41);
    }
    s.min = {{1000, -2000, 0}};
    s.max = {{1100, -1900, 10}};
    const temp_las f(quoct_test::las_file_bytes(s, pts));
    const quoct::io::point_cloud c = quoct::io::read_las(f.path());
    const quoct::octree<double> tree(c.xyz.data(), c.size());
    const quoct::point<double, 3> q{{1050, -1950, 5}};
    for (const double r : {0.0, 1.0, 7.25, 30.0}) {
        std::vector<std::uint32_t> got = tree.query(quoct::ball<double, 3>{q, r}), want;
        for (std::uint32_t i = 0; i < c.size(); ++i) {
            double d = 0;
            for (std::size_t a = 0; a < 3; ++a) d += (c.xyz[3 * i + a] - q[a]) * (c.xyz[3 * i + a] - q[a]);
            if (d <= r * r) want.push_back(i);
        }
        std::sort(got.begin(), got.end());
        CHECK(got == want);
    }
}

TEST_CASE("LAS: every version and point format indexed out of core gives the file of the tree built in memory",
          "[io][las][build_file]") {
    std::mt19937_64 rng(43);
    for (unsigned minor = 0; minor <= 4; ++minor)
        for (unsigned format = 0; format <= 10; ++format) {
            if (format >= 6 && minor < 4) continue;
            CAPTURE(minor, format);
            const las_file_spec s = spec_for(minor, format);
            // More points than a part of the smallest budget holds: sorted in runs, built in parts.
            const temp_las file(quoct_test::las_file_bytes(s, random_points(format, 5000, rng)));
            const quoct::io::point_cloud c = quoct::io::read_las(file.path());
            const std::vector<unsigned char> want = quoct::to_bytes(quoct::octree<double>(c.xyz.data(), c.size()));
            quoct::io::las_points in(file.path());
            CHECK(in.header().point_count == 5000);
            const temp_las out(std::vector<unsigned char>{}, ".quoct");
            quoct::build_file_options o;
            o.memory_limit = 0;  // the smallest
            quoct::build_file<quoct::octree<double>>(in, out.path(), o);
            std::ifstream f(out.path(), std::ios::binary);
            const std::vector<unsigned char> got((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
            CHECK(got == want);
        }
}

TEST_CASE("LAS: a damaged file stops an out-of-core build by name and leaves the target as it was", "[io][las][build_file]") {
    std::mt19937_64 rng(44);
    las_file_spec s = spec_for(4, 6);
    s.count_delta = 1;  // one point more than the file holds
    const temp_las bad(quoct_test::las_file_bytes(s, random_points(6, 3000, rng)));
    CHECK_THROWS_WITH(quoct::io::las_points(bad.path()), Catch::Matchers::Contains(bad.path()));
    s.count_delta = 0;
    std::vector<las_point> pts = random_points(6, 3000, rng);
    pts[2999].X = 2000000;  // outside the header's bounds
    const temp_las outside(quoct_test::las_file_bytes(s, pts));
    const temp_las out(std::vector<unsigned char>{1, 2, 3}, ".quoct");
    quoct::io::las_points in(outside.path());
    CHECK_THROWS_WITH(quoct::build_file<quoct::octree<double>>(in, out.path()),
                      Catch::Matchers::Contains(outside.path()) && Catch::Matchers::Contains("point 2999"));
    std::ifstream f(out.path(), std::ios::binary);
    CHECK(std::vector<unsigned char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>()) ==
          std::vector<unsigned char>{1, 2, 3});
}

}  // namespace test_io_las
