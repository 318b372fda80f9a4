// quoct info (see info.hpp).
#include "info.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>

#include <quoct/file.hpp>
#include <quoct/io/las.hpp>
#include <quoct/io/locations.hpp>

namespace quoct {
namespace cli {

namespace {

// The first bytes of the file (fewer if it is shorter). Throws parse_error when it cannot be
// opened or read.
std::string first_bytes(const std::string& path, std::size_t n) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) throw io::parse_error(path, 0, std::string("cannot open: ") + std::strerror(errno));
    std::string head(n, '\0');
    head.resize(std::fread(&head[0], 1, n, f.get()));
    if (std::ferror(f.get())) throw io::parse_error(path, 0, std::string("cannot read: ") + std::strerror(errno));
    return head;
}

std::string number(double v) { return io::shortest_decimal(v); }

void describe_las(std::ostream& out, const std::string& path) {
    const io::las_header h = io::read_las_header(path);
    out << path << ": LAS " << h.version_major << '.' << h.version_minor << ", point format " << h.point_format << " ("
        << h.record_length << "-byte records), " << h.point_count << (h.point_count == 1 ? " point" : " points") << '\n';
    for (std::size_t a = 0; a < 3; ++a)
        out << "  " << static_cast<char>('x' + a) << ": " << number(h.min[a]) << " to " << number(h.max[a]) << " (scale "
            << number(h.scale[a]) << ", offset " << number(h.offset[a]) << ")\n";
    out << "  fields:";
    for (std::size_t f = 0; f < h.fields.size(); ++f) out << (f == 0 ? " " : ", ") << h.fields[f];
    out << '\n';
    if (!h.generating_software.empty()) out << "  written by: " << h.generating_software << '\n';
    if (!h.system_identifier.empty()) out << "  system: " << h.system_identifier << '\n';
    for (const std::string& note : h.notes) out << "  note: " << note << '\n';
}

void describe_index(std::ostream& out, const std::string& path) {
    const file_info info = read_file_info(path);
    out << path << ": quoct index file, format " << info.version << ", " << info.bytes << " bytes: " << info.type << '\n';
    out << "  sections (name, offset, bytes):\n";
    for (const file_section& s : info.sections) out << "    " << s.name << ' ' << s.offset << ' ' << s.bytes << '\n';
}

}  // namespace

file_kind kind_of(const std::string& path) {
    const std::string head = first_bytes(path, 8);
    if (head.compare(0, 4, "LASF") == 0 || (path.size() >= 4 && (path.substr(path.size() - 4) == ".laz" ||
                                                                 path.substr(path.size() - 4) == ".LAZ")))
        return file_kind::las;
    if (head.size() == 8 && std::memcmp(head.data(), detail::file_magic, 8) == 0) return file_kind::index;
    return file_kind::other;
}

void describe_file(std::ostream& out, const std::string& path) {
    const file_kind kind = kind_of(path);
    if (kind == file_kind::las) return describe_las(out, path);
    if (kind == file_kind::index) return describe_index(out, path);
    throw io::parse_error(path, 0, "neither a LAS file nor a quoct index file (quoct info reads those)");
}

}  // namespace cli
}  // namespace quoct
