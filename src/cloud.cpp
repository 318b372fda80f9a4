// quoct::io: XYZ and PLY point clouds (see include/quoct/io/cloud.hpp for the formats).
#include "quoct/io/cloud.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <istream>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>

#include "file_text.hpp"

namespace quoct {
namespace io {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Splits one line into tokens separated by blanks (and commas, when `commas`).
void split(std::string_view line, bool commas, std::vector<std::string_view>& out) {
    out.clear();
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (is_blank(line[i]) || (commas && line[i] == ','))) ++i;
        const std::size_t start = i;
        while (i < line.size() && !is_blank(line[i]) && !(commas && line[i] == ',')) ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
}

// Walks text line by line, counting from 1.
class lines {
public:
    explicit lines(std::string_view text, std::size_t pos = 0) : text_(text), pos_(pos) {}
    bool next(std::string_view& line) {
        if (pos_ >= text_.size()) return false;
        const std::size_t end = std::min(text_.find('\n', pos_), text_.size());
        line = text_.substr(pos_, end - pos_);
        pos_ = end + 1;
        ++number_;
        return true;
    }
    std::size_t number() const noexcept { return number_; }
    std::size_t position() const noexcept { return std::min(pos_, text_.size()); }

private:
    std::string_view text_;
    std::size_t pos_;
    std::size_t number_ = 0;
};

// A stream read a piece at a time, handed out as lines or as bytes from a buffer of about
// one piece (grown to hold the longest line or value asked for): what the readers below hold
// of a file, whatever its size.
class piece_reader {
public:
    // (A stream at its end from an earlier reading is read from where it is: its end and
    // fail marks are cleared first, as they were when the readers read it whole.)
    piece_reader(std::istream& in, std::string source, std::size_t piece)
        : in_(&in), source_(std::move(source)), buf_(std::max<std::size_t>(piece, 16)) {
        in.clear(in.rdstate() & ~(std::ios::failbit | std::ios::eofbit));
    }
    // The next line without its '\n' (valid until the next call); false at the end. A line
    // longer than `most` bytes (not held whole) is an error naming `what`.
    bool next_line(std::string_view& line, std::size_t most = std::numeric_limits<std::size_t>::max(),
                   const char* what = "a line") {
        for (std::size_t from = pos_;;) {
            const void* nl = std::memchr(buf_.data() + from, '\n', end_ - from);
            if (nl || (eof_ && pos_ != end_)) {
                const std::size_t stop = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - buf_.data()) : end_;
                line = std::string_view(buf_.data() + pos_, stop - pos_);
                pos_ = std::min(stop + 1, end_);
                ++lines_;
                return true;
            }
            if (eof_) return false;
            from = end_ - pos_;  // (where the search goes on once fill() moves the rest to the front)
            if (from > most)
                throw parse_error(source_, lines_ + 1, std::string(what) + " longer than " + std::to_string(most) + " bytes");
            fill();
        }
    }
    // The next n bytes (valid until the next call), or null when the stream ends first.
    const unsigned char* take(std::size_t n) {
        while (end_ - pos_ < n && !eof_) fill(n);
        if (end_ - pos_ < n) return nullptr;
        const auto* p = reinterpret_cast<const unsigned char*>(buf_.data() + pos_);
        pos_ += n;
        return p;
    }
    // Reads past n bytes; false when the stream ends first.
    bool skip(std::uint64_t n) {
        for (;;) {
            const std::size_t here = static_cast<std::size_t>(std::min<std::uint64_t>(n, end_ - pos_));
            pos_ += here, n -= here;
            if (n == 0) return true;
            if (eof_) return false;
            fill();
        }
    }
    // Lines handed out so far: the last one's number.
    std::size_t line_number() const noexcept { return lines_; }

private:
    // Moves what is left to the front and reads more after it: a piece, or at least `need`
    // bytes in all (the buffer grown when what is left fills it).
    void fill(std::size_t need = 0) {
        std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
        end_ -= pos_, pos_ = 0;
        if (end_ == buf_.size() || need > buf_.size()) buf_.resize(std::max(2 * buf_.size(), need));
        in_->read(buf_.data() + end_, static_cast<std::streamsize>(buf_.size() - end_));
        const auto got = static_cast<std::size_t>(in_->gcount());
        if (in_->bad()) throw parse_error(source_, 0, "cannot read the file");
        end_ += got;
        if (got == 0 || in_->eof()) eof_ = true;
    }
    std::istream* in_;
    std::string source_;
    std::vector<char> buf_;
    std::size_t pos_ = 0, end_ = 0, lines_ = 0;
    bool eof_ = false;
};

// The value of `token`, or parse_error naming it what() when it is not a finite number. The
// name is made only then: made for every value, it cost a PLY the length of a property's name
// per value, whatever that length (a file of long names read in time quadratic in its size).
template <class What>
double finite_number(std::string_view token, const std::string& source, std::size_t line, What&& what) {
    const std::optional<double> v = parse_number(token);
    if (!v) throw parse_error(source, line, what() + ": '" + std::string(token) + "' is not a finite number");
    return *v;
}

// --- PLY -------------------------------------------------------------------------------

enum class ply_type { int8, uint8, int16, uint16, int32, uint32, float32, float64 };

std::optional<ply_type> type_named(std::string_view name) {
    if (name == "char" || name == "int8") return ply_type::int8;
    if (name == "uchar" || name == "uint8") return ply_type::uint8;
    if (name == "short" || name == "int16") return ply_type::int16;
    if (name == "ushort" || name == "uint16") return ply_type::uint16;
    if (name == "int" || name == "int32") return ply_type::int32;
    if (name == "uint" || name == "uint32") return ply_type::uint32;
    if (name == "float" || name == "float32") return ply_type::float32;
    if (name == "double" || name == "float64") return ply_type::float64;
    return std::nullopt;
}

std::size_t size_of(ply_type t) {
    switch (t) {
        case ply_type::int8: case ply_type::uint8: return 1;
        case ply_type::int16: case ply_type::uint16: return 2;
        case ply_type::int32: case ply_type::uint32: case ply_type::float32: return 4;
        default: return 8;
    }
}

// A little-endian value of type t at p, as a double (exact for every PLY type).
double decode(const unsigned char* p, ply_type t) {
    std::uint64_t bits = 0;
    const std::size_t n = size_of(t);
    for (std::size_t i = 0; i < n; ++i) bits |= std::uint64_t{p[i]} << (8 * i);
    switch (t) {
        case ply_type::int8: return static_cast<std::int8_t>(static_cast<std::uint8_t>(bits));
        case ply_type::uint8: return static_cast<double>(bits);
        case ply_type::int16: return static_cast<std::int16_t>(static_cast<std::uint16_t>(bits));
        case ply_type::uint16: return static_cast<double>(bits);
        case ply_type::int32: return static_cast<std::int32_t>(static_cast<std::uint32_t>(bits));
        case ply_type::uint32: return static_cast<double>(bits);
        case ply_type::float32: {
            const std::uint32_t b = static_cast<std::uint32_t>(bits);
            float f;
            std::memcpy(&f, &b, sizeof f);
            return f;
        }
        default: {
            double d;
            std::memcpy(&d, &bits, sizeof d);
            return d;
        }
    }
}

struct ply_property {
    std::string name;
    ply_type type;           // the value type, or a list's item type
    bool list = false;
    ply_type count_type{};   // a list's count type
};

struct ply_element {
    std::string name;
    std::size_t count = 0;
    std::vector<ply_property> properties;
};

struct ply_header {
    bool binary = false;
    std::vector<ply_element> elements;
    std::size_t data_start = 0;  // offset of the first byte after end_header's line
    std::size_t lines = 0;       // header lines
};

ply_header parse_ply_header(std::string_view text, const std::string& source) {
    ply_header h;
    lines in(text);
    std::string_view line;
    std::vector<std::string_view> tok;
    if (!in.next(line) || (split(line, false, tok), tok.size() != 1 || tok[0] != "ply"))
        throw parse_error(source, 1, "not a PLY file (the first line is not 'ply')");
    bool have_format = false;
    for (;;) {
        if (!in.next(line)) throw parse_error(source, in.number(), "the PLY header has no 'end_header'");
        const std::size_t n = in.number();
        split(line, false, tok);
        if (tok.empty() || tok[0] == "comment" || tok[0] == "obj_info") continue;
        if (tok[0] == "end_header") break;
        if (tok[0] == "format") {
            if (tok.size() != 3) throw parse_error(source, n, "a PLY format line reads 'format <kind> 1.0'");
            if (tok[1] == "ascii") h.binary = false;
            else if (tok[1] == "binary_little_endian") h.binary = true;
            else if (tok[1] == "binary_big_endian")
                throw parse_error(source, n, "big-endian PLY is not supported; convert it to little-endian or ASCII");
            else throw parse_error(source, n, "unknown PLY format '" + std::string(tok[1]) + "'");
            have_format = true;
        } else if (tok[0] == "element") {
            if (tok.size() != 3) throw parse_error(source, n, "a PLY element line reads 'element <name> <count>'");
            const std::optional<double> count = parse_number(tok[2]);
            if (!count || *count < 0 || *count != std::floor(*count))
                throw parse_error(source, n, "element count '" + std::string(tok[2]) + "' is not a whole number");
            if (*count >= 0x1p64)
                throw parse_error(source, n, "element count '" + std::string(tok[2]) + "' is beyond 2^64");
            h.elements.push_back({std::string(tok[1]), static_cast<std::size_t>(*count), {}});
        } else if (tok[0] == "property") {
            if (h.elements.empty()) throw parse_error(source, n, "a PLY property comes before any element");
            ply_property p;
            const bool list = tok.size() == 5 && tok[1] == "list";
            if (!list && tok.size() != 3)
                throw parse_error(source, n, "a PLY property line reads 'property <type> <name>' or "
                                             "'property list <count type> <item type> <name>'");
            const std::string_view type_name = list ? tok[3] : tok[1];
            const std::optional<ply_type> t = type_named(type_name);
            if (!t) throw parse_error(source, n, "unknown PLY property type '" + std::string(type_name) + "'");
            p.type = *t;
            p.list = list;
            p.name = std::string(list ? tok[4] : tok[2]);
            if (list) {
                const std::optional<ply_type> ct = type_named(tok[2]);
                if (!ct || *ct == ply_type::float32 || *ct == ply_type::float64)
                    throw parse_error(source, n, "a PLY list's count type must be an integer type");
                p.count_type = *ct;
            }
            h.elements.back().properties.push_back(p);
        } else {
            throw parse_error(source, n, "unknown PLY header line '" + std::string(tok[0]) + "'");
        }
    }
    if (!have_format) throw parse_error(source, in.number(), "the PLY header has no 'format' line");
    h.data_start = in.position();
    h.lines = in.number();
    return h;
}

// Where the vertex element's x, y, z and other scalar properties are.
struct vertex_layout {
    std::size_t element = 0;
    std::size_t axis[3] = {0, 0, 0};  // property indices of x, y, z
    std::vector<std::size_t> others;  // property indices of the other scalars
};

vertex_layout find_vertices(const ply_header& h, const std::string& source, point_cloud& out) {
    vertex_layout v;
    v.element = h.elements.size();
    for (std::size_t e = 0; e < h.elements.size(); ++e)
        if (h.elements[e].name == "vertex") v.element = e;
    if (v.element == h.elements.size()) throw parse_error(source, h.lines, "the PLY header has no 'vertex' element");
    const ply_element& el = h.elements[v.element];
    const char* names[3] = {"x", "y", "z"};
    for (std::size_t a = 0; a < 3; ++a) {
        std::size_t found = el.properties.size();
        for (std::size_t p = 0; p < el.properties.size(); ++p)
            if (el.properties[p].name == names[a]) found = p;
        if (found == el.properties.size() || el.properties[found].list)
            throw parse_error(source, h.lines, std::string("the PLY vertex element has no scalar property '") +
                                                   names[a] + "'");
        v.axis[a] = found;
    }
    for (std::size_t p = 0; p < el.properties.size(); ++p)
        if (!el.properties[p].list && p != v.axis[0] && p != v.axis[1] && p != v.axis[2]) {
            v.others.push_back(p);
            out.property_names.push_back(el.properties[p].name);
        }
    return v;
}

// Stores one vertex's values (all scalar properties, by index; lists left at 0).
void store_vertex(const vertex_layout& v, const std::vector<double>& values, point_cloud& out) {
    for (std::size_t a = 0; a < 3; ++a) out.xyz.push_back(values[v.axis[a]]);
    for (std::size_t p : v.others) out.properties.push_back(values[p]);
}

void check_finite(const ply_element& el, const std::vector<double>& values, const std::string& source, std::size_t line,
                  std::size_t index) {
    for (std::size_t p = 0; p < el.properties.size(); ++p)
        if (!el.properties[p].list && !std::isfinite(values[p]))
            throw parse_error(source, line,
                              el.name + " " + std::to_string(index) + ": property '" + el.properties[p].name +
                                  "' is not a finite number");
}

}  // namespace

std::vector<point<double, 3>> point_cloud::points() const {
    std::vector<point<double, 3>> pts(size());
    for (std::size_t i = 0; i < pts.size(); ++i) pts[i] = point<double, 3>{{xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]}};
    return pts;
}

// --- the readers: a file a chunk at a time ----------------------------------------------------

// The bytes `in` holds from where it is, where it can tell (a file); else 0.
std::uint64_t stream_bytes(std::istream& in) {
    const std::istream::pos_type start = in.tellg();
    if (start == std::istream::pos_type(-1) || !in.seekg(0, std::ios::end)) return in.clear(), 0;
    const std::istream::pos_type end = in.tellg();
    in.seekg(start);
    return end != std::istream::pos_type(-1) && end >= start ? static_cast<std::uint64_t>(end - start) : 0;
}

// The chunk a read() fills: emptied, named, its property names set.
void start_chunk(point_cloud& chunk, const std::string& source, const std::vector<std::string>& names) {
    chunk.source = source;
    chunk.property_names = names;
    chunk.xyz.clear();
    chunk.properties.clear();
}

struct xyz_reader::impl {
    std::ifstream file;  // when opened by path
    piece_reader in;
    std::string source;
    std::size_t width = 0;  // numbers per point line, from the first
    std::vector<std::string> names;
    std::vector<std::string_view> tok;
    std::uint64_t done = 0;
    bool ended = false;

    impl(std::istream& stream, std::string name, std::size_t piece) : in(stream, name, piece), source(std::move(name)) {}
    impl(const std::string& path, std::size_t piece) : file(detail::open_file(path)), in(file, path, piece), source(path) {}

    // Reads one point line into `chunk`; false at the end.
    bool next(point_cloud& chunk) {
        std::string_view line;
        do {
            if (!in.next_line(line)) return false;
            split(line, true, tok);
        } while (tok.empty() || tok[0].front() == '#');
        const std::size_t n = in.line_number();
        if (width == 0) {
            if (tok.size() < 3)
                throw parse_error(source, n, "expected at least 3 numbers (x y z), found " + std::to_string(tok.size()));
            width = tok.size();
            for (std::size_t c = 3; c < width; ++c) names.push_back("column" + std::to_string(c + 1));
            chunk.property_names = names;
        } else if (tok.size() != width) {
            throw parse_error(source, n,
                              "expected " + std::to_string(width) + " numbers as on the first point line, found " +
                                  std::to_string(tok.size()));
        }
        for (std::size_t c = 0; c < width; ++c) {
            const double v = finite_number(tok[c], source, n, [c] { return "column " + std::to_string(c + 1); });
            (c < 3 ? chunk.xyz : chunk.properties).push_back(v);
        }
        return true;
    }
};

xyz_reader::xyz_reader(const std::string& path, std::size_t piece_bytes) : impl_(std::make_unique<impl>(path, piece_bytes)) {}
xyz_reader::xyz_reader(std::istream& in, const std::string& source, std::size_t piece_bytes)
    : impl_(std::make_unique<impl>(in, source, piece_bytes)) {}
xyz_reader::xyz_reader(xyz_reader&&) noexcept = default;
xyz_reader& xyz_reader::operator=(xyz_reader&&) noexcept = default;
xyz_reader::~xyz_reader() = default;

std::size_t xyz_reader::read(point_cloud& chunk, std::size_t max_points) {
    impl& r = *impl_;
    start_chunk(chunk, r.source, r.names);
    std::size_t k = 0;
    while (k < std::max<std::size_t>(max_points, 1) && !r.ended) {
        if (r.next(chunk)) ++k;
        else r.ended = true;
    }
    if (r.ended && r.width == 0) throw parse_error(r.source, 0, "no points (expected lines of 'x y z')");
    r.done += k;
    return k;
}

std::uint64_t xyz_reader::points_read() const noexcept { return impl_->done; }

struct ply_reader::impl {
    std::ifstream file;
    piece_reader in;
    std::string source;
    ply_header h;
    vertex_layout v;
    std::vector<std::string> names;
    std::size_t element = 0, index = 0;  // the next record
    std::vector<std::string_view> tok;
    std::vector<double> values;
    std::uint64_t done = 0;
    std::uint64_t bytes = 0;        // the stream's bytes, where it can tell (else 0)
    std::size_t record_bytes = 1;   // the least a vertex record takes (at least 3: x, y, z)

    impl(std::istream& stream, std::string name, std::size_t piece) : in(stream, name, piece), source(std::move(name)) {
        start(stream);
    }
    impl(const std::string& path, std::size_t piece) : file(detail::open_file(path)), in(file, path, piece), source(path) {
        start(file);
    }
    std::uint64_t point_count() const noexcept { return h.elements[v.element].count; }

    // Reads the header: its lines up to end_header (or the first line, when that is not
    // "ply": the file is refused from it), parsed as a text of its own.
    void start(std::istream& stream) {
        bytes = stream_bytes(stream);
        std::string text;
        std::string_view line;
        constexpr std::size_t most = std::size_t{64} << 20;
        while (in.next_line(line, in.line_number() == 0 ? 4096 : most,
                            in.line_number() == 0 ? "not a PLY file: the first line is" : "a PLY header line is")) {
            text.append(line.data(), line.size()).push_back('\n');
            split(line, false, tok);
            if (in.line_number() == 1 ? tok.size() != 1 || tok[0] != "ply" : !tok.empty() && tok[0] == "end_header") break;
            if (text.size() > most)
                throw parse_error(source, in.line_number(), "the PLY header has no 'end_header' in its first 64 MiB");
        }
        h = parse_ply_header(text, source);
        point_cloud names_of;
        v = find_vertices(h, source, names_of);
        names = std::move(names_of.property_names);
        record_bytes = 0;  // the least a vertex takes: each value a byte and a separator in text
        for (const ply_property& p : h.elements[v.element].properties)
            record_bytes += h.binary ? size_of(p.list ? p.count_type : p.type) : 2;
    }

    [[noreturn]] void ends_early(const ply_element& el) const {
        throw parse_error(source, 0,
                          el.name + " " + std::to_string(index) + ": the file ends early (the header promises " +
                              std::to_string(el.count) + ")");
    }

    // Reads the next record of `el` into values (its scalars; lists read past).
    void record(const ply_element& el) {
        values.assign(el.properties.size(), 0.0);
        if (h.binary) binary_record(el);
        else ascii_record(el);
    }

    void ascii_record(const ply_element& el) {
        std::string_view line;
        do {
            if (!in.next_line(line)) ends_early(el);
            split(line, false, tok);
        } while (tok.empty());
        if (element != v.element) return;  // another element: one line each, skipped
        const std::size_t n = in.line_number();
        const std::string what = el.name + " " + std::to_string(index);
        std::size_t t = 0;
        for (std::size_t p = 0; p < el.properties.size(); ++p) {
            const ply_property& prop = el.properties[p];
            const auto take = [&]() -> double {
                if (t == tok.size()) throw parse_error(source, n, what + ": too few values");
                return finite_number(tok[t++], source, n, [&] { return what + ": property '" + prop.name + "'"; });
            };
            if (!prop.list) {
                values[p] = take();
                continue;
            }
            const double count = take();
            if (count < 0 || count != std::floor(count)) throw parse_error(source, n, what + ": bad list length");
            for (double k = 0; k < count; ++k) take();
        }
        if (t != tok.size()) throw parse_error(source, n, what + ": too many values");
    }

    void binary_record(const ply_element& el) {
        for (std::size_t p = 0; p < el.properties.size(); ++p) {
            const ply_property& prop = el.properties[p];
            const unsigned char* at = in.take(size_of(prop.list ? prop.count_type : prop.type));
            if (!at) ends_early(el);
            if (!prop.list) {
                values[p] = decode(at, prop.type);
                continue;
            }
            const double count = decode(at, prop.count_type);
            if (count < 0) throw parse_error(source, 0, el.name + " " + std::to_string(index) + ": negative list length");
            if (!in.skip(static_cast<std::uint64_t>(count) * size_of(prop.type))) ends_early(el);
        }
        if (element == v.element) check_finite(el, values, source, 0, index);
    }

    // Reads the next vertex into `chunk`, past the elements before the vertices; false at
    // the end of the vertices (what follows them is not read).
    bool next(point_cloud& chunk) {
        for (; element <= v.element; ++element, index = 0) {
            const ply_element& el = h.elements[element];
            if (h.binary && el.properties.empty()) continue;  // its records take no byte: all read
            for (; index < el.count; ++index) {
                record(el);
                if (element == v.element) {
                    store_vertex(v, values, chunk);
                    ++index;
                    return true;
                }
            }
        }
        return false;
    }
};

ply_reader::ply_reader(const std::string& path, std::size_t piece_bytes) : impl_(std::make_unique<impl>(path, piece_bytes)) {}
ply_reader::ply_reader(std::istream& in, const std::string& source, std::size_t piece_bytes)
    : impl_(std::make_unique<impl>(in, source, piece_bytes)) {}
ply_reader::ply_reader(ply_reader&&) noexcept = default;
ply_reader& ply_reader::operator=(ply_reader&&) noexcept = default;
ply_reader::~ply_reader() = default;

std::size_t ply_reader::read(point_cloud& chunk, std::size_t max_points) {
    impl& r = *impl_;
    start_chunk(chunk, r.source, r.names);
    max_points = std::max<std::size_t>(max_points, 1);
    // Room for the points at once where the file can hold them (a damaged count cannot make
    // a large allocation: the records take a byte each at least).
    const std::uint64_t left = std::min<std::uint64_t>(r.point_count() - r.done, r.bytes / std::max<std::size_t>(r.record_bytes, 1));
    if (max_points >= left && left != 0) {
        chunk.xyz.reserve(3 * left);
        chunk.properties.reserve(r.v.others.size() * left);
    }
    std::size_t k = 0;
    while (k < max_points && r.next(chunk)) ++k;
    r.done += k;
    return k;
}

std::uint64_t ply_reader::points_read() const noexcept { return impl_->done; }

std::uint64_t ply_reader::point_count() const noexcept { return impl_->point_count(); }

namespace {
// Every point of a reader, in one chunk.
template <class Reader>
point_cloud read_whole(Reader&& r) {
    point_cloud out;
    r.read(out, std::numeric_limits<std::size_t>::max());
    return out;
}
}  // namespace

point_cloud read_xyz(std::istream& in, const std::string& source) { return read_whole(xyz_reader(in, source)); }
point_cloud read_xyz(const std::string& path) { return read_whole(xyz_reader(path)); }
point_cloud read_ply(std::istream& in, const std::string& source) { return read_whole(ply_reader(in, source)); }
point_cloud read_ply(const std::string& path) { return read_whole(ply_reader(path)); }

}  // namespace io
}  // namespace quoct
