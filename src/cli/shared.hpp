// What quoct's lon/lat subcommands share besides their arguments: the GDAL module, standard
// input, the words of an error, and writing rows or a file whole.
#ifndef QUOCT_CLI_SHARED_HPP
#define QUOCT_CLI_SHARED_HPP

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <unistd.h>
#include <vector>

#include <quoct/file.hpp>
#include <quoct/io/location_index.hpp>
#include <quoct/io/locations.hpp>

#ifdef QUOCT_WITH_GDAL
#include "gdal_module.hpp"
#endif

#include "arguments.hpp"

namespace quoct {
namespace cli {

/// The directory holding the running executable, or "" when it cannot be found.
std::filesystem::path executable_dir();

#ifdef QUOCT_WITH_GDAL
/// quoct::io::gdal's functions, from the module quoct-gdal.so (gdal_module.hpp), loaded the
/// first time an input or output needs GDAL: beside this executable (the build tree), else
/// where `cmake --install` puts it (lib/quoct, found relative to this executable). Throws
/// std::runtime_error naming every place tried when none holds this build's module.
const gdal_functions& gdal();

/// GDAL's view of the source options (--layer, --s-srs and their --polygon- forms).
/// `prefix`: "" for FILE's options, "polygon-" for --polygons'.
io::gdal::source_options gdal_source(const std::string& layer, const std::string& s_srs, const char* prefix = "");
#endif

/// All of standard input. Throws io::parse_error ("stdin: cannot read the input").
std::string read_stdin();

/// The cause in a file_error's message, without the "quoct: <path>: " before it.
std::string cause_of(const quoct::file_error& e);

/// Clears the progress line read_input() may have left on a terminal.
void clear_progress();

/// The io::output_format named by --format (table for those written through GDAL).
io::output_format format_of(const std::string& name);

/// Writes `path` through a temporary file in the same directory, renamed over it only when
/// `write` has finished and everything is flushed: a failure leaves no partial file and an
/// old file as it was. A path that exists and is not a regular file (/dev/stdout) is written
/// directly. Throws io::parse_error when it cannot write, and whatever `write` throws.
template <class Write>
void write_file(const std::string& path, Write&& write) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool special = fs::exists(path, ec) && !fs::is_regular_file(path, ec);
    const std::string temporary = special ? path : path + ".partial-" + std::to_string(::getpid());
    try {
        std::ofstream out(temporary, std::ios::binary);
        if (!out) throw io::parse_error(path, 0, "cannot open for writing");
        write(out);
        if (!out.flush()) throw io::parse_error(path, 0, "cannot write");
        out.close();
        if (!special && std::rename(temporary.c_str(), path.c_str()) != 0)
            throw io::parse_error(path, 0, "cannot replace: " + std::generic_category().message(errno));
    } catch (...) {
        if (!special) fs::remove(temporary, ec);
        throw;
    }
}

/// Writes the rows `hits` of `table` in --format: to standard output, or to -o (through
/// write_file; GeoPackage and FlatGeobuf through GDAL). Returns the exit code.
int write_hits(const common& c, const query& q, const io::location_table& table, const std::vector<io::hit>& hits,
               io::write_options options);

/// Writes the rows `ids` of the index `x` of FILE (called `name` in messages), `hits`
/// referring to them by their place in `ids`, the name column first when present (when
/// missing, an error if `explicit_name`), as write_hits does. Returns the exit code.
int write_rows(const common& c, const query& q, const io::location_index& x, const std::vector<std::size_t>& ids,
               const std::string& name, bool explicit_name, const std::vector<io::hit>& hits,
               const io::write_options& options);

}  // namespace cli
}  // namespace quoct

#endif  // QUOCT_CLI_SHARED_HPP
