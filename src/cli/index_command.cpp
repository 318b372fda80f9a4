// quoct index and info: making an index file, and saying what a file holds
// (index_command.hpp).
#include "index_command.hpp"

#include <algorithm>
#include <iostream>

#include <quoct/file.hpp>
#include <quoct/io/location_index.hpp>
#include <quoct/io/locations.hpp>

#include "info.hpp"
#include "input.hpp"
#include "shared.hpp"

namespace quoct {
namespace cli {

namespace {

/// What index --help says about its output.
const char* const index_footer =
    "Prints what the index holds: the file written with -o; else FILE, when it is an index file;\n"
    "else (a points file, no -o) the index that would be written. One 'key: value' a line:\n"
    "file, type, format version, bytes, source, rows, columns (their number, then their names),\n"
    "feature ids, altitudes, bad rows skipped, bounds (the least and greatest lon and lat).\n"
    "Exit codes: 0 success, 1 data error (a file, a row), 2 bad arguments.";

/// What an index holds, for `quoct index`: one "key: value" a line (see index_footer).
void describe(std::ostream& out, const std::string& file, const std::string& type, std::uint32_t version,
              std::uint64_t bytes, const io::location_index& x) {
    out << "file: " << file << "\ntype: " << type << "\nformat version: " << version << "\nbytes: " << bytes
        << "\nsource: " << x.source() << "\nrows: " << x.size() << "\ncolumns: " << x.columns().size();
    for (std::size_t i = 0; i < x.columns().size(); ++i) out << (i == 0 ? " (" : ", ") << x.columns()[i];
    out << (x.columns().empty() ? "" : ")") << "\nfeature ids: " << (x.has_feature_ids() ? "yes" : "no")
        << "\naltitudes: " << (x.has_altitudes() ? "yes" : "no") << "\nbad rows skipped: " << x.skipped().size()
        << "\nbounds: ";
    if (x.size() == 0) {
        out << "none\n";
        return;
    }
    geo::lonlat lo = x.index().location(0), hi = lo;
    for (std::uint32_t i = 0; i < x.size(); ++i) {
        const geo::lonlat& p = x.index().location(i);
        lo = {std::min(lo.lon, p.lon), std::min(lo.lat, p.lat)};
        hi = {std::max(hi.lon, p.lon), std::max(hi.lat, p.lat)};
    }
    out << "lon [" << io::shortest_decimal(lo.lon) << ", " << io::shortest_decimal(hi.lon) << "], lat ["
        << io::shortest_decimal(lo.lat) << ", " << io::shortest_decimal(hi.lat) << "]\n";
}

}  // namespace

CLI::App* add_index_command(CLI::App& app, common& c, query& q) {
    CLI::App* index = app.add_subcommand("index", "index FILE once: the points, every column and the index in one file, "
                                                  "which the other subcommands open in place of FILE, fast; given an index "
                                                  "file, check it (every checksum) and say what it holds");
    index->add_option("-o,--output", q.output, "the index file to write (replaced only when complete); without it "
                                               "nothing is written (a LAS, PLY or XYZ FILE needs it)");
    add_input(*index, c);
    index->footer(index_footer);
    return index;
}

CLI::App* add_info_command(CLI::App& app, query& q) {
    CLI::App* info = app.add_subcommand("info", "what FILE holds, from its header (checked against the file; the points are "
                                                "not read): a LAS file's version, point format, count, bounds and fields, or "
                                                "a quoct index file's type and sections");
    info->add_option("FILE", q.info_file, "a LAS file or an index file made by 'quoct index'")->required();
    return info;
}

int run_index(const common& c, const query& q) {
    input in = read_input(c, c.file);
    const bool was_index = in.index.has_value();
    const io::location_index x = indexed(in);
    clear_progress();
    if (!q.output.empty()) {
        quoct::save(x, q.output);
        const quoct::file_info info = quoct::read_file_info(q.output);
        describe(std::cout, q.output, info.type, info.version, info.bytes, x);
    } else if (was_index && in.name != "stdin") {
        const quoct::file_info info = quoct::read_file_info(in.name);
        describe(std::cout, in.name, info.type, info.version, info.bytes, x);
    } else {
        describe(std::cout, was_index ? "stdin" : "(not written: no -o)",
                 quoct::detail::file_codec<io::location_index>::type_name(), quoct::file_format_version,
                 quoct::to_bytes(x).size(), x);
    }
    std::cout.flush();
    return std::cout ? 0 : 1;
}

int run_info(const query& q) {
    describe_file(std::cout, q.info_file);
    std::cout.flush();
    return std::cout ? 0 : 1;
}

}  // namespace cli
}  // namespace quoct
