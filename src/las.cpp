// quoct::io: LAS point clouds (see include/quoct/io/las.hpp for what is read and checked).
//
// Compiled with -ffp-contract=off (src/CMakeLists.txt): a coordinate is X * scale + offset
// with the product rounded before the sum, as the LAS specification writes it, never one
// fused multiply-add.
#include "quoct/io/las.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

#include <sys/stat.h>

namespace quoct {
namespace io {

namespace {

// The least header size by minor version: 1.3's waveform field is read only where the header
// holds it (LASlib reads 1.3 files with a 1.2 header too); 1.4's counts are needed.
constexpr std::size_t public_header_min[5] = {227, 227, 227, 227, 375};
constexpr std::size_t format_bytes[11] = {20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67};
constexpr std::size_t vlr_header = 54, evlr_header = 60, extra_descriptor = 192;

std::uint16_t u16(const unsigned char* p) { return static_cast<std::uint16_t>(p[0] | p[1] << 8); }
std::uint32_t u32(const unsigned char* p) {
    return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
           static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}
std::uint64_t u64(const unsigned char* p) { return u32(p) | static_cast<std::uint64_t>(u32(p + 4)) << 32; }
std::int32_t i32(const unsigned char* p) {
    const std::uint32_t u = u32(p);
    std::int32_t v;
    std::memcpy(&v, &u, 4);
    return v;
}
double f64(const unsigned char* p) {
    const std::uint64_t u = u64(p);
    double v;
    std::memcpy(&v, &u, 8);
    return v;
}
std::string text(const unsigned char* p, std::size_t most) {
    std::size_t n = 0;
    while (n < most && p[n] != 0) ++n;
    while (n > 0 && p[n - 1] == ' ') --n;
    return std::string(reinterpret_cast<const char*>(p), n);
}

std::string laz_advice() {
    return "LASzip is not available in quoct, so compressed LAS (LAZ) cannot be read; decompress it first, "
           "as with `laszip -i tile.laz -o tile.las` (LASzip, LAStools) or `pdal translate tile.laz tile.las` (PDAL)";
}

bool ends_with_laz(const std::string& path) {
    if (path.size() < 4) return false;
    std::string ext = path.substr(path.size() - 4);
    for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return ext == ".laz";
}

// Bytes at a position of a file or of memory.
class byte_source {
public:
    byte_source(const std::string& path, std::string source) : source_(std::move(source)) {
        struct stat st;
        if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail("is a directory, not a LAS file");
        file_.reset(std::fopen(path.c_str(), "rb"));
        if (!file_) fail("cannot open: " + std::string(std::strerror(errno)));
        if (::fseeko(file_.get(), 0, SEEK_END) != 0) fail("cannot seek: " + std::string(std::strerror(errno)));
        const off_t end = ::ftello(file_.get());
        if (end < 0) fail("cannot tell its size: " + std::string(std::strerror(errno)));
        size_ = static_cast<std::uint64_t>(end);
        at_ = size_;
    }
    byte_source(const void* data, std::size_t size, std::string source)
        : source_(std::move(source)), memory_(static_cast<const unsigned char*>(data)), size_(size) {}

    std::uint64_t size() const noexcept { return size_; }
    const std::string& source() const noexcept { return source_; }
    [[noreturn]] void fail(const std::string& cause) const { throw parse_error(source_, 0, cause); }

    // n bytes at pos, which the caller has checked lie inside the file.
    void read(std::uint64_t pos, unsigned char* out, std::size_t n) {
        if (n == 0) return;
        if (memory_ != nullptr) {
            std::memcpy(out, memory_ + pos, n);
            return;
        }
        if (pos != at_ && ::fseeko(file_.get(), static_cast<off_t>(pos), SEEK_SET) != 0)
            fail("cannot seek: " + std::string(std::strerror(errno)));
        at_ = pos;
        if (std::fread(out, 1, n, file_.get()) != n) {
            at_ = size_ + 1;  // unknown: seek next time
            if (std::ferror(file_.get())) fail("cannot read: " + std::string(std::strerror(errno)));
            fail("cannot read: the file became shorter while it was read");
        }
        at_ = pos + n;
    }

private:
    struct closer {
        void operator()(std::FILE* f) const noexcept { std::fclose(f); }
    };
    std::string source_;
    std::unique_ptr<std::FILE, closer> file_;
    const unsigned char* memory_ = nullptr;
    std::uint64_t size_ = 0;
    std::uint64_t at_ = 0;  // the file's position
};

// How one requested field is decoded from a record.
enum class kind : unsigned char { u8, i8, u16, i16, u32, i32, u64, i64, f32, f64, bits };
struct field_spec {
    kind type;
    std::size_t at;            // byte within the record
    unsigned shift = 0, width = 0;  // for bits: (byte >> shift) & ((1 << width) - 1)
    double scale = 1, offset = 0;   // applied as value * scale + offset when set
    bool scaled = false, offset_set = false;
};

double decode(const unsigned char* r, const field_spec& f) {
    const unsigned char* p = r + f.at;
    double v = 0;
    switch (f.type) {
    case kind::u8: v = p[0]; break;
    case kind::i8: v = static_cast<signed char>(p[0]); break;
    case kind::u16: v = u16(p); break;
    case kind::i16: v = static_cast<std::int16_t>(u16(p)); break;
    case kind::u32: v = u32(p); break;
    case kind::i32: v = i32(p); break;
    case kind::u64: v = static_cast<double>(u64(p)); break;
    case kind::i64: {
        const std::uint64_t u = u64(p);
        std::int64_t s;
        std::memcpy(&s, &u, 8);
        v = static_cast<double>(s);
        break;
    }
    case kind::f32: {
        const std::uint32_t u = u32(p);
        float x;
        std::memcpy(&x, &u, 4);
        v = x;
        break;
    }
    case kind::f64: v = f64(p); break;
    case kind::bits: v = (p[0] >> f.shift) & ((1u << f.width) - 1); break;
    }
    if (f.scaled) v = v * f.scale;
    if (f.offset_set) v = v + f.offset;
    return v;
}

// The fields of a format, by name, in the order las_header::fields lists them.
void standard_fields(unsigned format, unsigned minor, std::vector<std::pair<std::string, field_spec>>& out) {
    const auto add = [&](const char* name, kind k, std::size_t at, unsigned shift = 0, unsigned width = 0) {
        field_spec f{k, at};
        f.shift = shift;
        f.width = width;
        out.emplace_back(name, f);
    };
    add("intensity", kind::u16, 12);
    if (format < 6) {
        add("return_number", kind::bits, 14, 0, 3);
        add("number_of_returns", kind::bits, 14, 3, 3);
        add("scan_direction_flag", kind::bits, 14, 6, 1);
        add("edge_of_flight_line", kind::bits, 14, 7, 1);
        if (minor == 0) {  // LAS 1.0: the whole byte is the class
            add("classification", kind::u8, 15);
        } else {
            add("classification", kind::bits, 15, 0, 5);
            add("synthetic", kind::bits, 15, 5, 1);
            add("key_point", kind::bits, 15, 6, 1);
            add("withheld", kind::bits, 15, 7, 1);
        }
        add("scan_angle", kind::i8, 16);
        add("user_data", kind::u8, 17);
        add("point_source_id", kind::u16, 18);
        if (format == 1 || format >= 3) add("gps_time", kind::f64, 20);
        if (format == 2) add("red", kind::u16, 20), add("green", kind::u16, 22), add("blue", kind::u16, 24);
        if (format == 3 || format == 5) add("red", kind::u16, 28), add("green", kind::u16, 30), add("blue", kind::u16, 32);
    } else {
        add("return_number", kind::bits, 14, 0, 4);
        add("number_of_returns", kind::bits, 14, 4, 4);
        add("scan_direction_flag", kind::bits, 15, 6, 1);
        add("edge_of_flight_line", kind::bits, 15, 7, 1);
        add("classification", kind::u8, 16);
        add("synthetic", kind::bits, 15, 0, 1);
        add("key_point", kind::bits, 15, 1, 1);
        add("withheld", kind::bits, 15, 2, 1);
        add("overlap", kind::bits, 15, 3, 1);
        add("scanner_channel", kind::bits, 15, 4, 2);
        add("scan_angle", kind::i16, 18);
        out.back().second.scaled = true;
        out.back().second.scale = 0.006;
        add("user_data", kind::u8, 17);
        add("point_source_id", kind::u16, 20);
        add("gps_time", kind::f64, 22);
        if (format == 7 || format == 8 || format == 10)
            add("red", kind::u16, 30), add("green", kind::u16, 32), add("blue", kind::u16, 34);
        if (format == 8 || format == 10) add("nir", kind::u16, 36);
    }
}

// The extra bytes an Extra Bytes record (LASF_Spec 4) describes, after the format's own
// bytes: appended to `out`. Returns why the record cannot be used ("" when it can; then
// nothing is appended): the specification makes such a record invalid, not the file.
std::string extra_fields(const std::vector<unsigned char>& payload, std::size_t first, std::size_t record_length,
                         std::vector<std::pair<std::string, field_spec>>& out) {
    if (payload.size() % extra_descriptor != 0)
        return "it is " + std::to_string(payload.size()) + " bytes, not a whole number of 192-byte descriptors";
    std::vector<std::pair<std::string, field_spec>> found;
    static const kind kinds[10] = {kind::u8, kind::i8, kind::u16, kind::i16, kind::u32,
                                   kind::i32, kind::u64, kind::i64, kind::f32, kind::f64};
    static const std::size_t sizes[10] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
    std::size_t at = first;
    for (std::size_t d = 0; d < payload.size(); d += extra_descriptor) {
        const unsigned char* p = payload.data() + d;
        const unsigned type = p[2], options = p[3];
        const std::string name = text(p + 4, 32);
        if (type == 0) {  // undefined bytes: `options` of them, skipped
            at += options;
            continue;
        }
        if (type > 30) return "'" + name + "' has an unknown data type " + std::to_string(type);
        const unsigned base = (type - 1) % 10, count = (type - 1) / 10 + 1;
        for (unsigned c = 0; c < count; ++c) {
            field_spec f{kinds[base], at};
            f.scaled = (options & 8) != 0;
            f.offset_set = (options & 16) != 0;
            f.scale = f64(p + 112 + 8 * c);
            f.offset = f64(p + 136 + 8 * c);
            if ((f.scaled && !(std::isfinite(f.scale))) || (f.offset_set && !std::isfinite(f.offset)))
                return "'" + name + "' has a scale or offset that is not finite";
            found.emplace_back(count == 1 ? name : name + "[" + std::to_string(c) + "]", f);
            at += sizes[base];
        }
    }
    if (at > record_length)
        return "it describes " + std::to_string(at - first) + " bytes a point, but records have " +
               std::to_string(record_length - first) + " after the point format's";
    out.insert(out.end(), found.begin(), found.end());
    return "";
}

}  // namespace

struct las_reader::impl {
    byte_source src;
    las_header header;
    std::vector<field_spec> wanted;  // per requested field
    bool check_bounds = true;
    std::array<double, 3> lo{}, hi{};  // the accepted range per axis
    std::uint64_t next = 0;
    std::vector<unsigned char> buffer;
    std::vector<std::string> requested_names;

    impl(byte_source s, const las_options& options) : src(std::move(s)), requested_names(options.fields) {
        open(options);
    }

    // Reads and checks the header, its variable length records and what follows the points,
    // then the requested fields, in that order: the first fault found is the one reported.
    void open(const las_options& options) {
        header.source = src.source();
        if (ends_with_laz(src.source())) src.fail("is a LAZ (compressed) file: " + laz_advice());
        const std::uint64_t size = src.size();
        unsigned char h[375] = {};
        const std::size_t got = static_cast<std::size_t>(std::min<std::uint64_t>(size, sizeof h));
        src.read(0, h, got);
        const std::size_t header_size = read_layout(h, got);
        read_axes(h);
        read_point_count(h, options.check_bounds);
        std::vector<std::pair<std::string, field_spec>> fields;
        standard_fields(header.point_format, header.version_minor, fields);
        read_vlrs(h, header_size, fields);
        check_records(h, header_size);
        choose_fields(fields, options);
        check_bounds = options.check_bounds;
        for (std::size_t a = 0; a < 3; ++a) {
            const double step = std::abs(header.scale[a]);
            lo[a] = header.min[a] - step;
            hi[a] = header.max[a] + step;
        }
    }

    // The signature, version, header size, point format, record length and point offset of
    // the `got` header bytes at h; returns the header size.
    std::size_t read_layout(const unsigned char* h, std::size_t got) {
        const std::uint64_t size = src.size();
        if (got < 4 || std::memcmp(h, "LASF", 4) != 0) src.fail("not a LAS file (it does not start with 'LASF')");
        if (got < 227) src.fail("truncated: " + std::to_string(size) + " bytes, less than a LAS header");
        header.version_major = h[24];
        header.version_minor = h[25];
        if (header.version_major != 1 || header.version_minor > 4)
            src.fail("LAS version " + std::to_string(h[24]) + "." + std::to_string(h[25]) +
                     " is not one this reader knows (1.0 to 1.4)");
        const unsigned minor = header.version_minor;
        const std::size_t header_size = u16(h + 94);
        if (header_size < public_header_min[minor])
            src.fail("damaged: the header says it is " + std::to_string(header_size) + " bytes, LAS 1." +
                     std::to_string(minor) + "'s is at least " + std::to_string(public_header_min[minor]));
        if (header_size > size) src.fail("truncated: " + std::to_string(size) + " bytes, less than its header");
        const unsigned format_byte = h[104];
        if ((format_byte & 0xC0) != 0)
            src.fail("is compressed (LAZ: the point format's compression bit is set): " + laz_advice());
        header.point_format = format_byte;
        if (format_byte > 10) src.fail("point data record format " + std::to_string(format_byte) + " is not one of LAS's (0 to 10)");
        header.record_length = u16(h + 105);
        if (header.record_length < format_bytes[format_byte])
            src.fail("damaged: point records of " + std::to_string(header.record_length) + " bytes cannot hold format " +
                     std::to_string(format_byte) + " (" + std::to_string(format_bytes[format_byte]) + " bytes)");
        header.point_offset = u32(h + 96);
        if (header.point_offset < header_size)
            src.fail("damaged: the points start at byte " + std::to_string(header.point_offset) + ", inside the " +
                     std::to_string(header_size) + "-byte header");
        if (header.point_offset > size)
            src.fail("truncated: the points start at byte " + std::to_string(header.point_offset) + ", past the end (" +
                     std::to_string(size) + " bytes)");
        return header_size;
    }

    // The identifiers, and each axis's scale, offset and bounds.
    void read_axes(const unsigned char* h) {
        header.system_identifier = text(h + 26, 32);
        header.generating_software = text(h + 58, 32);
        for (std::size_t a = 0; a < 3; ++a) {
            header.scale[a] = f64(h + 131 + 8 * a);
            header.offset[a] = f64(h + 155 + 8 * a);
            header.max[a] = f64(h + 179 + 16 * a);
            header.min[a] = f64(h + 187 + 16 * a);
            const char axis = static_cast<char>('x' + a);
            if (!std::isfinite(header.scale[a]) || header.scale[a] == 0)
                src.fail(std::string("damaged: the ") + axis + " scale factor is " + std::to_string(header.scale[a]));
            if (!std::isfinite(header.offset[a])) src.fail(std::string("damaged: the ") + axis + " offset is not finite");
        }
    }

    // The point count: LAS 1.4's 64-bit one, which the legacy one must equal where not 0;
    // then, when there are points and they are checked, the header's bounds.
    void read_point_count(const unsigned char* h, bool check) {
        const std::uint32_t legacy = u32(h + 107);
        header.point_count = legacy;
        if (header.version_minor >= 4 && u64(h + 247) != 0) {  // (0 with a legacy count: the legacy count, as LASlib reads it)
            header.point_count = u64(h + 247);
            if (legacy != 0 && legacy != header.point_count)
                src.fail("damaged: the header's legacy point count (" + std::to_string(legacy) +
                         ") disagrees with its 64-bit count (" + std::to_string(header.point_count) + ")");
        }
        if (header.point_count != 0 && check)
            for (std::size_t a = 0; a < 3; ++a)
                if (!(std::isfinite(header.min[a]) && std::isfinite(header.max[a]) && header.min[a] <= header.max[a]))
                    src.fail(std::string("damaged: the header's ") + static_cast<char>('x' + a) +
                             " bounds are not a finite range (las_options::check_bounds = false reads the points anyway)");
    }

    // The variable length records, between the header and the points: each must end before
    // the points, none may be LASzip's, and the first Extra Bytes record adds its fields.
    void read_vlrs(const unsigned char* h, std::size_t header_size, std::vector<std::pair<std::string, field_spec>>& fields) {
        const std::uint32_t vlr_count = u32(h + 100);
        std::uint64_t at = header_size;
        bool extra_seen = false;
        for (std::uint32_t i = 0; i < vlr_count; ++i) {
            if (header.point_offset - at < vlr_header)
                src.fail("damaged: variable length record " + std::to_string(i + 1) + " of " + std::to_string(vlr_count) +
                         " runs past the start of the points");
            unsigned char v[vlr_header];
            src.read(at, v, vlr_header);
            const std::string user = text(v + 2, 16);
            const unsigned id = u16(v + 18);
            const std::size_t length = u16(v + 20);
            at += vlr_header;
            if (header.point_offset - at < length)
                src.fail("damaged: variable length record " + std::to_string(i + 1) + " ('" + user + "' " +
                         std::to_string(id) + ") runs past the start of the points");
            if (user == "laszip encoded") src.fail("is compressed (it holds LASzip's record): " + laz_advice());
            if (user == "LASF_Spec" && id == 4 && !extra_seen) {
                extra_seen = true;
                std::vector<unsigned char> payload(length);
                src.read(at, payload.data(), length);
                const std::string why = extra_fields(payload, format_bytes[header.point_format], header.record_length, fields);
                if (!why.empty()) header.notes.push_back("its Extra Bytes record is set aside (no extra fields): " + why);
            }
            at += length;
        }
    }

    // The records, and what follows them: nothing, or records that account for it.
    void check_records(const unsigned char* h, std::size_t header_size) {
        const std::uint64_t record = header.record_length;
        const std::uint64_t room = src.size() - header.point_offset;
        if (header.point_count > room / record)
            src.fail("truncated: the header promises " + std::to_string(header.point_count) + " points of " +
                     std::to_string(record) + " bytes from byte " + std::to_string(header.point_offset) +
                     ", the file holds " + std::to_string(room / record));
        const std::uint64_t points_end = header.point_offset + header.point_count * record;
        check_after_points(h, header_size, points_end);
    }

    // The names the file gives (header.fields), and the requested ones (wanted), each of
    // which must be among them.
    void choose_fields(const std::vector<std::pair<std::string, field_spec>>& fields, const las_options& options) {
        header.fields.clear();
        for (const auto& f : fields) header.fields.push_back(f.first);
        for (const std::string& name : options.fields) {
            const auto it = std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == name; });
            if (it == fields.end()) {
                std::string known;
                for (const auto& f : fields) known += (known.empty() ? "" : ", ") + f.first;
                src.fail("no field '" + name + "' in point format " + std::to_string(header.point_format) + " (it has " + known + ")");
            }
            wanted.push_back(it->second);
        }
    }

    // What follows the records. LAS 1.4's extended variable length records, or 1.3's
    // waveform data record, must start at or after the records' end (else the point count
    // is too large: records would be read from them), and every byte after the records must
    // be theirs, from the records' end to the file's (else it is too small).
    void check_after_points(const unsigned char* h, std::size_t header_size, std::uint64_t points_end) {
        const std::uint64_t size = src.size();
        std::uint64_t start = 0, count = 0;
        bool waveform = false;
        if (header.version_minor >= 4) {
            start = u64(h + 235);
            count = u32(h + 243);
        } else if (header.version_minor == 3 && header_size >= 235) {
            start = u64(h + 227);
            count = start != 0 ? 1 : 0;
            waveform = true;
        }
        if (count != 0 && start < points_end)
            src.fail("damaged: the header's " + std::to_string(header.point_count) + " point records run past byte " +
                     std::to_string(start) + ", where its extended variable length records start (the header's " +
                     "point count may be too large)");
        if (points_end == size) {
            // Nothing after the records. A 1.3 waveform start past them names external data.
            if (count != 0 && !waveform)
                src.fail("truncated: the header's extended variable length records start at byte " +
                         std::to_string(start) + ", at or past the end of the file");
            return;
        }
        const auto unaccounted = [&](std::uint64_t from) {
            src.fail("damaged: " + std::to_string(size - from) + " bytes after the last of the header's " +
                     std::to_string(header.point_count) + " point records that no extended variable length record " +
                     "accounts for (the header's point count may be too small)");
        };
        if (count == 0 || start != points_end) unaccounted(points_end);
        std::uint64_t at = start;
        for (std::uint64_t i = 0; i < count; ++i) {
            if (size - at < evlr_header)
                src.fail("truncated: extended variable length record " + std::to_string(i + 1) + " of " +
                         std::to_string(count) + " runs past the end of the file");
            unsigned char v[evlr_header];
            src.read(at, v, evlr_header);
            const std::uint64_t length = u64(v + 20);
            at += evlr_header;
            if (size - at < length)
                src.fail("truncated: extended variable length record " + std::to_string(i + 1) + " of " +
                         std::to_string(count) + " runs past the end of the file");
            at += length;
        }
        if (at != size) unaccounted(at);
    }

    std::size_t read(point_cloud& chunk, std::size_t max_points) {
        chunk.source = header.source;
        chunk.property_names = requested_names;
        chunk.xyz.clear();
        chunk.properties.clear();
        const std::uint64_t left = header.point_count - next;
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, std::max<std::size_t>(max_points, 1)));
        if (n == 0) return 0;
        try {
            fill(chunk, n);
        } catch (...) {
            next = header.point_count;  // a reader that failed is at the end
            chunk.xyz.clear();
            chunk.properties.clear();
            throw;
        }
        next += n;
        return n;
    }

    // Reads points [next, next + n) into chunk, whose names are set.
    void fill(point_cloud& chunk, std::size_t n) {
        const std::size_t record = header.record_length;
        // In pieces of at most 4 MiB of records, so that a large chunk needs no second copy.
        const std::size_t piece = std::max<std::size_t>(1, (std::size_t{4} << 20) / record);
        buffer.resize(std::min(n, piece) * record);
        chunk.xyz.resize(3 * n);
        chunk.properties.resize(wanted.size() * n);
        const std::size_t width = wanted.size();
        for (std::size_t done = 0; done < n;) {
            const std::size_t m = std::min(piece, n - done);
            src.read(header.point_offset + (next + done) * record, buffer.data(), m * record);
            for (std::size_t i = 0; i < m; ++i) {
                const unsigned char* r = buffer.data() + i * record;
                double* out = chunk.xyz.data() + 3 * (done + i);
                for (std::size_t a = 0; a < 3; ++a) {
                    const double product = static_cast<double>(i32(r + 4 * a)) * header.scale[a];
                    out[a] = product + header.offset[a];
                }
                double* values = chunk.properties.data() + width * (done + i);
                for (std::size_t f = 0; f < width; ++f) values[f] = decode(r, wanted[f]);
            }
            check_points(chunk.xyz.data() + 3 * done, m, next + done);
            done += m;
        }
    }

    void check_points(const double* xyz, std::size_t m, std::uint64_t first) const {
        bool ok = true;
        for (std::size_t i = 0; i < 3 * m; ++i) ok &= std::abs(xyz[i]) <= std::numeric_limits<double>::max();
        if (check_bounds)
            for (std::size_t i = 0; i < m; ++i)
                for (std::size_t a = 0; a < 3; ++a) ok &= lo[a] <= xyz[3 * i + a] && xyz[3 * i + a] <= hi[a];
        if (ok) return;
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t a = 0; a < 3; ++a) {
                const double v = xyz[3 * i + a];
                const std::string axis(1, static_cast<char>('x' + a));
                const std::string where = "point " + std::to_string(first + i) + ": ";
                if (!std::isfinite(v)) src.fail(where + axis + " is not finite (the scale or offset is too large)");
                if (check_bounds && !(lo[a] <= v && v <= hi[a]))
                    src.fail(where + axis + " = " + std::to_string(v) + " lies outside the header's bounds " +
                             std::to_string(header.min[a]) + " to " + std::to_string(header.max[a]) +
                             " (las_options::check_bounds = false reads it anyway)");
            }
    }

};

las_reader::las_reader(const std::string& path, las_options options)
    : impl_(std::make_unique<impl>(byte_source(path, path), options)) {}

las_reader::las_reader(const void* data, std::size_t size, const std::string& source, las_options options)
    : impl_(std::make_unique<impl>(byte_source(data, size, source), options)) {}

las_reader::las_reader(las_reader&&) noexcept = default;
las_reader& las_reader::operator=(las_reader&&) noexcept = default;
las_reader::~las_reader() = default;

const las_header& las_reader::header() const noexcept { return impl_->header; }
std::size_t las_reader::read(point_cloud& chunk, std::size_t max_points) { return impl_->read(chunk, max_points); }
std::uint64_t las_reader::points_read() const noexcept { return impl_->next; }

las_header read_las_header(const std::string& path) {
    las_options options;
    options.check_bounds = false;
    return las_reader(path, options).header();
}

point_cloud read_las(const std::string& path, const las_options& options) {
    las_reader in(path, options);
    const std::uint64_t n = in.header().point_count;
    if (n > std::numeric_limits<std::size_t>::max() / 3 / sizeof(double))
        throw parse_error(path, 0, std::to_string(n) + " points do not fit this machine's memory; read them in chunks (las_reader)");
    point_cloud out;
    in.read(out, static_cast<std::size_t>(n));
    return out;
}

}  // namespace io
}  // namespace quoct
