// quoct boxes: see boxes.hpp.
#include "boxes.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstddef>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <quoct/io/csv.hpp>
#include <quoct/packed_objects.hpp>

namespace quoct {
namespace cli {
namespace {

// The header row's names, split at commas (enough to tell whether minz and maxz are there).
bool has_z(const std::string& header) {
    std::vector<std::string> names;
    std::stringstream s(header);
    for (std::string name; std::getline(s, name, ',');) {
        name.erase(std::remove_if(name.begin(), name.end(), [](char ch) { return ch == '"' || ch == '\r' || ch == ' '; }),
                   name.end());
        names.push_back(name);
    }
    const auto named = [&](const char* n) { return std::find(names.begin(), names.end(), n) != names.end(); };
    return named("minz") && named("maxz");
}

template <std::size_t D>
int run(const boxes_args& a, std::istream* in, const std::string& source) {
    const std::vector<std::string> columns =
        D == 2 ? std::vector<std::string>{"minx", "miny", "maxx", "maxy"}
               : std::vector<std::string>{"minx", "miny", "minz", "maxx", "maxy", "maxz"};
    const std::vector<double> v = in ? io::read_columns(*in, source, columns) : io::read_columns(a.file, columns);
    std::vector<box<double, D>> boxes(v.size() / (2 * D));
    for (std::size_t i = 0; i < boxes.size(); ++i)
        for (std::size_t k = 0; k < D; ++k) boxes[i].lo[k] = v[2 * D * i + k], boxes[i].hi[k] = v[2 * D * i + D + k];
    packed_box_index<double, D> index;
    try {
        index = packed_box_index<double, D>(boxes);
    } catch (const std::invalid_argument& e) {  // "... (box i)": the record, counted from 0
        std::string what = e.what();
        if (what.rfind("quoct: ", 0) == 0) what.erase(0, 7);
        throw std::invalid_argument(source + ": " + what + " (boxes are numbered from 0 in record order)");
    }
    const auto corner = [&](const std::vector<double>& c, const char* what) {
        if (c.size() != D)
            throw std::invalid_argument(std::string("--") + what + " has " + std::to_string(c.size()) +
                                        " coordinates, and the boxes of " + source + " have " + std::to_string(D));
        point<double, D> p;
        for (std::size_t k = 0; k < D; ++k) p[k] = c[k];
        return p;
    };
    std::ostringstream out;
    if (a.pairs) {
        out << "a,b\n";
        for (const auto& pr : index.colliding_pairs(0)) out << pr.first << ',' << pr.second << '\n';
    } else {
        std::vector<std::uint32_t> ids =
            a.point.empty() ? index.query(box<double, D>{corner(a.lo, "min"), corner(a.hi, "max")})
                            : index.containing(corner(a.point, "point"));
        std::sort(ids.begin(), ids.end());
        out << "id\n";
        for (const std::uint32_t id : ids) out << id << '\n';
    }
    std::cout << out.str();
    std::cout.flush();
    return std::cout ? 0 : 1;
}

}  // namespace

CLI::App* add_boxes_command(CLI::App& app, boxes_args& a) {
    CLI::App* cmd = app.add_subcommand("boxes", "axis-aligned boxes from a CSV file (columns minx, miny, maxx, maxy, and "
                                                "minz, maxz for 3D; ids are record numbers from 0): every pair that "
                                                "meets (--pairs), the boxes holding a point (--point) or meeting a box "
                                                "(--min, --max); faces and corners count as meeting");
    cmd->add_option("FILE", a.file, "a CSV file, or - for standard input")->required();
    const CLI::Validator finite(
        [](std::string& v) {
            double d = 0;
            return CLI::detail::lexical_cast(v, d) && std::isfinite(d) ? std::string() : "not a finite number: " + v;
        },
        "FINITE");
    CLI::Option* pairs = cmd->add_flag("--pairs", a.pairs, "every pair of boxes that meet: rows a,b with a < b, sorted");
    CLI::Option* point = cmd->add_option("--point", a.point, "x,y or x,y,z: the boxes holding it")->delimiter(',')->check(finite);
    CLI::Option* lo = cmd->add_option("--min", a.lo, "x,y or x,y,z: the query box's low corner")->delimiter(',')->check(finite);
    CLI::Option* hi = cmd->add_option("--max", a.hi, "x,y or x,y,z: the query box's high corner")->delimiter(',')->check(finite);
    lo->needs(hi);
    hi->needs(lo);
    pairs->excludes(point)->excludes(lo);
    point->excludes(lo);
    cmd->callback([pairs, point, lo] {
        if (pairs->count() == 0 && point->count() == 0 && lo->count() == 0)
            throw CLI::RequiredError("--pairs, --point or --min and --max");
    });
    return cmd;
}

int run_boxes(const boxes_args& a) {
    if (!a.lo.empty())
        for (std::size_t k = 0; k < std::min(a.lo.size(), a.hi.size()); ++k)
            if (a.lo[k] > a.hi[k]) throw std::invalid_argument("--min is above --max on axis " + std::to_string(k));
    if (a.file == "-") {  // read whole: its header says 2D or 3D before it is parsed
        const std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
        std::istringstream in(text);
        return has_z(text.substr(0, text.find('\n'))) ? run<3>(a, &in, "<stdin>") : run<2>(a, &in, "<stdin>");
    }
    std::ifstream f(a.file, std::ios::binary);
    if (!f) throw io::parse_error(a.file, 0, std::string("cannot open: ") + std::strerror(errno));
    std::string header;
    if (!std::getline(f, header)) throw io::parse_error(a.file, 0, "empty: no header row");
    return has_z(header) ? run<3>(a, nullptr, a.file) : run<2>(a, nullptr, a.file);
}

}  // namespace cli
}  // namespace quoct
