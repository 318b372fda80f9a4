// What the lon/lat subcommands share (shared.hpp).
#include "shared.hpp"

#include <iostream>
#include <iterator>
#include <stdexcept>

#ifdef QUOCT_WITH_GDAL
#include <dlfcn.h>
#endif

namespace quoct {
namespace cli {

namespace {

/// Moves the name column, when present, to the front; --name-column given but missing is an error.
void name_first(io::location_table& table, const common& c, bool explicit_name) {
    const std::size_t col = table.find_column(c.name_column);
    if (col == table.columns.size()) {
        if (explicit_name) throw io::parse_error(table.source, 0, "no column '" + c.name_column + "'");
        return;
    }
    table.move_column_first(col);
}

}  // namespace

std::filesystem::path executable_dir() {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : self.parent_path();
}

#ifdef QUOCT_WITH_GDAL
const gdal_functions& gdal() {
    static const gdal_functions* const functions = [] {
        const std::filesystem::path dir = executable_dir();
        std::string tried;
        if (!dir.empty()) {
            for (const std::filesystem::path& place : {dir, dir / QUOCT_INSTALL_MODULE_RELATIVE}) {
                const std::string path = (place / QUOCT_GDAL_MODULE).lexically_normal().string();
                void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
                std::string why;
                if (!handle) {
                    // (dlerror names the module, or a library of GDAL's it could not load.)
                    const char* error = ::dlerror();
                    why = error ? error : "cannot be loaded";
                    if (why.compare(0, path.size(), path) != 0) why = path + ": " + why;
                } else {
                    using entry = const gdal_functions* (*)();
                    const auto f = reinterpret_cast<entry>(::dlsym(handle, "quoct_cli_gdal_functions"));
                    const gdal_functions* t = f ? f() : nullptr;
                    if (t && t->version == gdal_functions_version && t->size == sizeof(gdal_functions)) return t;
                    // (Left loaded: unloading GDAL's libraries again gains nothing.)
                    why = path + ": not the GDAL module of this build of quoct";
                }
                tried += (tried.empty() ? "" : "; ") + why;
            }
        }
        throw std::runtime_error("this quoct reads and writes GIS formats through its GDAL module, which cannot be loaded (" +
                                 (tried.empty() ? std::string("the executable's directory is unknown") : tried) +
                                 "): install quoct-gdal.so with the command, and GDAL's libraries");
    }();
    return *functions;
}

io::gdal::source_options gdal_source(const std::string& layer, const std::string& s_srs, const char* prefix) {
    io::gdal::source_options source;
    source.layer = layer;
    source.source_srs = s_srs;
    source.layer_option = std::string("--") + prefix + "layer";
    return source;
}
#endif

std::string read_stdin() {
    std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    if (std::cin.bad()) throw io::parse_error("stdin", 0, "cannot read the input");
    return text;
}

std::string cause_of(const quoct::file_error& e) {
    const std::string what = e.what(), head = "quoct: " + e.path() + ": ";
    return what.compare(0, head.size(), head) == 0 ? what.substr(head.size()) : what;
}

void clear_progress() {
    if (::isatty(STDERR_FILENO)) std::cerr << "\r\033[K" << std::flush;
}

io::output_format format_of(const std::string& name) {
    return name == "csv" ? io::output_format::csv : name == "geojson" ? io::output_format::geojson : io::output_format::table;
}

int write_hits(const common& c, const query& q, const io::location_table& table, const std::vector<io::hit>& hits,
               io::write_options options) {
#ifdef QUOCT_WITH_GDAL
    if (c.format == "gpkg" || c.format == "fgb") {
        gdal().write_locations(q.output, gdal().output_driver(c.format), table, hits, options);
        return 0;
    }
#endif
    options.format = format_of(c.format);
    if (!q.output.empty()) {
        write_file(q.output, [&](std::ostream& out) { io::write_locations(out, table, hits, options); });
        return 0;
    }
    io::write_locations(std::cout, table, hits, options);
    std::cout.flush();
    return std::cout ? 0 : 1;
}

int write_rows(const common& c, const query& q, const io::location_index& x, const std::vector<std::size_t>& ids,
               const std::string& name, bool explicit_name, const std::vector<io::hit>& hits,
               const io::write_options& options) {
    io::location_table table = x.rows(ids);
    table.source = name;
    name_first(table, c, explicit_name);
    return write_hits(c, q, table, hits, options);
}

}  // namespace cli
}  // namespace quoct
