// quoct::io: XYZ and PLY point clouds (see include/quoct/io/cloud.hpp for the formats).
#include "quoct/io/cloud.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
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

void read_ply_ascii(std::string_view text, const ply_header& h, const vertex_layout& v, const std::string& source,
                    point_cloud& out) {
    lines in(text, h.data_start);
    std::string_view line;
    std::vector<std::string_view> tok;
    std::vector<double> values;
    for (std::size_t e = 0; e <= v.element; ++e) {
        const ply_element& el = h.elements[e];
        for (std::size_t i = 0; i < el.count; ++i) {
            do {
                if (!in.next(line))
                    throw parse_error(source, 0,
                                      el.name + " " + std::to_string(i) + ": the file ends early (the header promises " +
                                          std::to_string(el.count) + ")");
                split(line, false, tok);
            } while (tok.empty());
            const std::size_t n = h.lines + in.number();
            if (e != v.element) continue;  // another element: one line each, skipped
            values.assign(el.properties.size(), 0.0);
            std::size_t t = 0;
            for (std::size_t p = 0; p < el.properties.size(); ++p) {
                const ply_property& prop = el.properties[p];
                const auto take = [&]() -> double {
                    if (t == tok.size())
                        throw parse_error(source, n, el.name + " " + std::to_string(i) + ": too few values");
                    return finite_number(tok[t++], source, n, [&] {
                        return el.name + " " + std::to_string(i) + ": property '" + prop.name + "'";
                    });
                };
                if (!prop.list) {
                    values[p] = take();
                    continue;
                }
                const double count = take();
                if (count < 0 || count != std::floor(count))
                    throw parse_error(source, n, el.name + " " + std::to_string(i) + ": bad list length");
                for (double k = 0; k < count; ++k) take();
            }
            if (t != tok.size()) throw parse_error(source, n, el.name + " " + std::to_string(i) + ": too many values");
            store_vertex(v, values, out);
        }
    }
}

void read_ply_binary(std::string_view text, const ply_header& h, const vertex_layout& v, const std::string& source,
                     point_cloud& out) {
    const auto* data = reinterpret_cast<const unsigned char*>(text.data());
    std::size_t pos = h.data_start;
    std::vector<double> values;
    for (std::size_t e = 0; e <= v.element; ++e) {
        const ply_element& el = h.elements[e];
        for (std::size_t i = 0; i < el.count; ++i) {
            const auto need = [&](std::size_t bytes) {
                if (text.size() - pos < bytes)
                    throw parse_error(source, 0,
                                      el.name + " " + std::to_string(i) + ": the file ends early (the header promises " +
                                          std::to_string(el.count) + ")");
            };
            values.assign(el.properties.size(), 0.0);
            for (std::size_t p = 0; p < el.properties.size(); ++p) {
                const ply_property& prop = el.properties[p];
                if (!prop.list) {
                    need(size_of(prop.type));
                    values[p] = decode(data + pos, prop.type);
                    pos += size_of(prop.type);
                    continue;
                }
                need(size_of(prop.count_type));
                const double count = decode(data + pos, prop.count_type);
                pos += size_of(prop.count_type);
                if (count < 0) throw parse_error(source, 0, el.name + " " + std::to_string(i) + ": negative list length");
                const std::size_t bytes = static_cast<std::size_t>(count) * size_of(prop.type);
                need(bytes);
                pos += bytes;
            }
            if (e != v.element) continue;
            check_finite(el, values, source, 0, i);
            store_vertex(v, values, out);
        }
    }
}

}  // namespace

std::vector<point<double, 3>> point_cloud::points() const {
    std::vector<point<double, 3>> pts(size());
    for (std::size_t i = 0; i < pts.size(); ++i) pts[i] = point<double, 3>{{xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]}};
    return pts;
}

point_cloud read_xyz(std::istream& in, const std::string& source) {
    const std::string text = detail::read_all(in, source);
    point_cloud out;
    out.source = source;
    lines rows(text);
    std::string_view line;
    std::vector<std::string_view> tok;
    std::size_t width = 0;
    while (rows.next(line)) {
        split(line, true, tok);
        if (tok.empty() || tok[0].front() == '#') continue;
        const std::size_t n = rows.number();
        if (width == 0) {
            if (tok.size() < 3)
                throw parse_error(source, n, "expected at least 3 numbers (x y z), found " + std::to_string(tok.size()));
            width = tok.size();
            for (std::size_t c = 3; c < width; ++c) out.property_names.push_back("column" + std::to_string(c + 1));
        } else if (tok.size() != width) {
            throw parse_error(source, n,
                              "expected " + std::to_string(width) + " numbers as on the first point line, found " +
                                  std::to_string(tok.size()));
        }
        for (std::size_t c = 0; c < width; ++c) {
            const double v = finite_number(tok[c], source, n, [c] { return "column " + std::to_string(c + 1); });
            (c < 3 ? out.xyz : out.properties).push_back(v);
        }
    }
    if (width == 0) throw parse_error(source, 0, "no points (expected lines of 'x y z')");
    return out;
}

point_cloud read_xyz(const std::string& path) {
    std::ifstream in = detail::open_file(path);
    return read_xyz(in, path);
}

point_cloud read_ply(std::istream& in, const std::string& source) {
    const std::string text = detail::read_all(in, source);
    const ply_header h = parse_ply_header(text, source);
    point_cloud out;
    out.source = source;
    const vertex_layout v = find_vertices(h, source, out);
    const std::size_t n = h.elements[v.element].count;
    if (n <= text.size()) {  // a count no file could hold is caught as an early end instead
        out.xyz.reserve(3 * n);
        out.properties.reserve(v.others.size() * n);
    }
    if (h.binary) read_ply_binary(text, h, v, source, out);
    else read_ply_ascii(text, h, v, source, out);
    return out;
}

point_cloud read_ply(const std::string& path) {
    std::ifstream in = detail::open_file(path);
    return read_ply(in, path);
}

}  // namespace io
}  // namespace quoct
