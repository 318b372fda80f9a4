// LAS files made by the tests, byte by byte from the ASPRS LAS 1.4 R15 specification's
// tables (not by quoct's reader's code): a header of the asked version and point format,
// variable length records, point records with known integers and fields, and extended
// records or stray bytes after them.
#ifndef QUOCT_TEST_LAS_TEST_FILE_HPP
#define QUOCT_TEST_LAS_TEST_FILE_HPP

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace quoct_test {

/// One point as written: integer coordinates and the standard fields.
struct las_point {
    std::int32_t X = 0, Y = 0, Z = 0;
    std::uint16_t intensity = 0;
    unsigned return_number = 1, number_of_returns = 1;
    unsigned scan_direction = 0, edge = 0;
    unsigned classification = 0;  // 0-31 in formats 0-5, 0-255 in 6-10
    unsigned synthetic = 0, key_point = 0, withheld = 0, overlap = 0, channel = 0;
    int scan_angle = 0;  // whole degrees (0-5) or steps of 0.006 degrees (6-10), as stored
    unsigned user_data = 0;
    std::uint16_t point_source_id = 0;
    double gps_time = 0;
    std::uint16_t red = 0, green = 0, blue = 0, nir = 0;
    std::vector<unsigned char> extra;  // bytes after the format's own
};

/// One variable length record (or, after the points, an extended one).
struct las_record {
    std::string user_id;
    std::uint16_t record_id = 0;
    std::vector<unsigned char> payload;
};

struct las_file_spec {
    unsigned minor = 4;
    unsigned format = 0;
    unsigned format_byte_bits = 0;  // ORed into the format byte (0x80: LAZ's compression bit)
    std::size_t extra_bytes = 0;    // per record, after the format's own
    std::array<double, 3> scale{{0.01, 0.01, 0.01}};
    std::array<double, 3> offset{{0, 0, 0}};
    std::array<double, 3> min{{-1e9, -1e9, -1e9}}, max{{1e9, 1e9, 1e9}};
    std::vector<las_record> vlrs;
    std::vector<las_record> evlrs;       // LAS 1.4: after the points; 1.3: the first is the waveform record
    std::vector<unsigned char> trailing;  // stray bytes at the very end
    long long count_delta = 0;            // added to the header's point count (a lying header)
    long long legacy_count = -1;          // LAS 1.4's legacy count: -1 = as the specification says (the
                                          // count for formats 0-5 up to 2^32 - 1, else 0)
    bool zero_count64 = false;            // LAS 1.4: write the 64-bit count as 0
    std::size_t header_padding = 0;       // bytes added to the header's size (user data after it)
    bool header_227 = false;              // LAS 1.3 with the 227-byte header of 1.0-1.2 (no waveform field)
    long long evlr_start_delta = 0;       // added to the start of the extended records written in the header
    std::uint32_t evlr_count_extra = 0;   // LAS 1.4: added to the count of extended records in the header
};

inline std::size_t las_format_bytes(unsigned format) {
    static const std::size_t b[11] = {20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67};
    return b[format];
}

namespace las_detail {
inline void put(std::vector<unsigned char>& out, std::size_t at, const void* p, std::size_t n) {
    if (out.size() < at + n) out.resize(at + n);
    std::memcpy(out.data() + at, p, n);  // (the tests run on little-endian machines, as LAS is)
}
template <class U>
void put_as(std::vector<unsigned char>& out, std::size_t at, U v) {
    put(out, at, &v, sizeof v);
}
}  // namespace las_detail

/// The point record of p in `format`, with `extra` bytes after it.
inline std::vector<unsigned char> las_record_bytes(const las_point& p, unsigned format, std::size_t extra) {
    using namespace las_detail;
    std::vector<unsigned char> r(las_format_bytes(format) + extra, 0);
    put_as<std::int32_t>(r, 0, p.X);
    put_as<std::int32_t>(r, 4, p.Y);
    put_as<std::int32_t>(r, 8, p.Z);
    put_as<std::uint16_t>(r, 12, p.intensity);
    if (format < 6) {
        r[14] = static_cast<unsigned char>(p.return_number | p.number_of_returns << 3 | p.scan_direction << 6 | p.edge << 7);
        r[15] = static_cast<unsigned char>(p.classification | p.synthetic << 5 | p.key_point << 6 | p.withheld << 7);
        put_as<std::int8_t>(r, 16, static_cast<std::int8_t>(p.scan_angle));
        r[17] = static_cast<unsigned char>(p.user_data);
        put_as<std::uint16_t>(r, 18, p.point_source_id);
        std::size_t at = 20;
        if (format == 1 || format >= 3) put_as<double>(r, 20, p.gps_time), at = 28;
        if (format == 2 || format == 3 || format == 5) {
            put_as<std::uint16_t>(r, at, p.red);
            put_as<std::uint16_t>(r, at + 2, p.green);
            put_as<std::uint16_t>(r, at + 4, p.blue);
        }
    } else {
        r[14] = static_cast<unsigned char>(p.return_number | p.number_of_returns << 4);
        r[15] = static_cast<unsigned char>(p.synthetic | p.key_point << 1 | p.withheld << 2 | p.overlap << 3 |
                                           p.channel << 4 | p.scan_direction << 6 | p.edge << 7);
        r[16] = static_cast<unsigned char>(p.classification);
        r[17] = static_cast<unsigned char>(p.user_data);
        put_as<std::int16_t>(r, 18, static_cast<std::int16_t>(p.scan_angle));
        put_as<std::uint16_t>(r, 20, p.point_source_id);
        put_as<double>(r, 22, p.gps_time);
        if (format == 7 || format == 8 || format == 10) {
            put_as<std::uint16_t>(r, 30, p.red);
            put_as<std::uint16_t>(r, 32, p.green);
            put_as<std::uint16_t>(r, 34, p.blue);
        }
        if (format == 8 || format == 10) put_as<std::uint16_t>(r, 36, p.nir);
    }
    for (std::size_t i = 0; i < extra && i < p.extra.size(); ++i) r[las_format_bytes(format) + i] = p.extra[i];
    return r;
}

/// A whole LAS file.
inline std::vector<unsigned char> las_file_bytes(const las_file_spec& s, const std::vector<las_point>& points) {
    using namespace las_detail;
    const std::size_t header = (s.minor <= 2 || s.header_227 ? 227 : s.minor == 3 ? 235 : 375) + s.header_padding;
    std::vector<unsigned char> f(header, 0);
    std::memcpy(f.data(), "LASF", 4);
    f[24] = 1;
    f[25] = static_cast<unsigned char>(s.minor);
    std::memcpy(f.data() + 26, "quoct tests", 11);
    std::memcpy(f.data() + 58, "las_test_file.hpp", 17);
    put_as<std::uint16_t>(f, 94, static_cast<std::uint16_t>(header));
    put_as<std::uint32_t>(f, 100, static_cast<std::uint32_t>(s.vlrs.size()));
    f[104] = static_cast<unsigned char>(s.format | s.format_byte_bits);
    const std::size_t record = las_format_bytes(s.format) + s.extra_bytes;
    put_as<std::uint16_t>(f, 105, static_cast<std::uint16_t>(record));
    const auto count = static_cast<std::uint64_t>(static_cast<long long>(points.size()) + s.count_delta);
    std::uint32_t legacy = count > 0xFFFFFFFFu || (s.minor >= 4 && s.format >= 6) ? 0 : static_cast<std::uint32_t>(count);
    if (s.minor >= 4 && s.legacy_count >= 0) legacy = static_cast<std::uint32_t>(s.legacy_count);
    put_as<std::uint32_t>(f, 107, legacy);
    for (std::size_t a = 0; a < 3; ++a) {
        put_as<double>(f, 131 + 8 * a, s.scale[a]);
        put_as<double>(f, 155 + 8 * a, s.offset[a]);
        put_as<double>(f, 179 + 16 * a, s.max[a]);
        put_as<double>(f, 187 + 16 * a, s.min[a]);
    }
    if (s.minor >= 4) put_as<std::uint64_t>(f, 247, s.zero_count64 ? 0 : count);
    for (const las_record& v : s.vlrs) {
        const std::size_t at = f.size();
        f.resize(at + 54, 0);
        std::memcpy(f.data() + at + 2, v.user_id.data(), std::min<std::size_t>(v.user_id.size(), 16));
        put_as<std::uint16_t>(f, at + 18, v.record_id);
        put_as<std::uint16_t>(f, at + 20, static_cast<std::uint16_t>(v.payload.size()));
        f.insert(f.end(), v.payload.begin(), v.payload.end());
    }
    put_as<std::uint32_t>(f, 96, static_cast<std::uint32_t>(f.size()));
    for (const las_point& p : points) {
        const std::vector<unsigned char> r = las_record_bytes(p, s.format, s.extra_bytes);
        f.insert(f.end(), r.begin(), r.end());
    }
    if (!s.evlrs.empty() || s.evlr_count_extra != 0) {
        const auto start = static_cast<std::uint64_t>(static_cast<long long>(f.size()) + s.evlr_start_delta);
        if (s.minor >= 4) {
            put_as<std::uint64_t>(f, 235, start);
            put_as<std::uint32_t>(f, 243, static_cast<std::uint32_t>(s.evlrs.size()) + s.evlr_count_extra);
        } else if (s.minor == 3 && !s.header_227) {
            put_as<std::uint64_t>(f, 227, start);
        }
        for (const las_record& v : s.evlrs) {
            const std::size_t at = f.size();
            f.resize(at + 60, 0);
            std::memcpy(f.data() + at + 2, v.user_id.data(), std::min<std::size_t>(v.user_id.size(), 16));
            put_as<std::uint16_t>(f, at + 18, v.record_id);
            put_as<std::uint64_t>(f, at + 20, v.payload.size());
            f.insert(f.end(), v.payload.begin(), v.payload.end());
        }
    }
    f.insert(f.end(), s.trailing.begin(), s.trailing.end());
    return f;
}

/// One descriptor of an Extra Bytes record (192 bytes): a data type (1-10 scalars, 11-30 the
/// two- and three-value ones, 0 undefined with `options` bytes), options (8: scale set, 16:
/// offset set), name, and scale and offset per value.
inline std::vector<unsigned char> las_extra_descriptor(unsigned type, unsigned options, const std::string& name,
                                                       std::array<double, 3> scale = {{1, 1, 1}},
                                                       std::array<double, 3> offset = {{0, 0, 0}}) {
    using namespace las_detail;
    std::vector<unsigned char> d(192, 0);
    d[2] = static_cast<unsigned char>(type);
    d[3] = static_cast<unsigned char>(options);
    std::memcpy(d.data() + 4, name.data(), std::min<std::size_t>(name.size(), 32));
    for (std::size_t i = 0; i < 3; ++i) {
        put_as<double>(d, 112 + 8 * i, scale[i]);
        put_as<double>(d, 136 + 8 * i, offset[i]);
    }
    return d;
}

}  // namespace quoct_test

#endif  // QUOCT_TEST_LAS_TEST_FILE_HPP
