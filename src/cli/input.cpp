// Reading FILE, the points every lon/lat subcommand queries (input.hpp).
#include "input.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <utility>

#include "shared.hpp"

namespace quoct {
namespace cli {

namespace {

/// The bundled cities file: $QUOCT_DATA (a file, or a directory holding cities.csv); else
/// cities.csv where `cmake --install` puts it (share/quoct, found relative to this
/// executable, so a moved or relocated prefix works too); else, when running from the build
/// tree, the data directory of the sources it was built from.
std::string default_file() {
    const char* env = std::getenv("QUOCT_DATA");
    std::string where = env && *env ? env : "";
    if (where.empty()) {
        const std::filesystem::path dir = executable_dir();
        const std::filesystem::path installed = dir / QUOCT_INSTALL_DATA_RELATIVE / "cities.csv";
        std::error_code ec;
        where = !dir.empty() && std::filesystem::is_regular_file(installed, ec) ? installed.lexically_normal().string()
                                                                                 : std::string(QUOCT_DATA_DIR);
    }
    struct stat st {};
    if (::stat(where.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) where += "/cities.csv";
    return where;
}

/// The error `e` from opening an index file, for `path`. When the file's header (read again
/// by read_info) names another kind than `quoct index` writes (one saved from C++ or Python
/// without the points' table), it says what the file is and what to do instead.
template <class ReadInfo>
quoct::file_error index_error(const std::string& path, const quoct::file_error& e, ReadInfo read_info) {
    std::string held;
    try {
        held = read_info().type;
    } catch (const quoct::file_error&) {  // a damaged header: e says so
        return quoct::file_error(path, cause_of(e));
    }
    if (held == quoct::detail::file_codec<io::location_index>::type_name()) return quoct::file_error(path, cause_of(e));
    const std::string kind = held.rfind("geo::index<", 0) == 0 ? "a geographic index without a table (a C++ geo::index, "
                                                                  "or a quoct.geo.Index saved from Python)"
                             : held.rfind("orthtree<", 0) == 0 ? "a tree of points (a C++ orthtree, or a quoct.Tree saved from Python)"
                                                               : "an index of another kind";
    return quoct::file_error(path, "holds " + held + ", " + kind + "; the command reads the index files that `quoct index` "
                                   "writes, which keep each point's columns: make one from the points with "
                                   "`quoct index POINTS -o FILE`");
}

/// Reads the points of `text` (all of standard input): CSV or GeoJSON by its first
/// character, or, binary with GDAL, any vector source (a GeoPackage piped in).
io::location_table read_points_text(std::string text, const io::read_options& options, const common& c) {
#ifdef QUOCT_WITH_GDAL
    if (!io::binary_kind(text.data(), std::min<std::size_t>(text.size(), 512)).empty())
        return gdal().read_locations_bytes(text, "stdin", options, gdal_source(c.layer, c.s_srs));
#endif
    no_gdal_options(c.layer, c.s_srs, "stdin", "");
    std::istringstream in(std::move(text));
    return io::read_locations_stream(in, "stdin", options);
}

/// Reads the points file `file`: through GDAL when it is a vector source that quoct does not
/// read itself (and GDAL is built in), else as CSV or GeoJSON. With GDAL, --s-srs on CSV or
/// GeoJSON text reads it through GDAL too (CSV with its coordinate columns as x and y), as
/// does GeoJSON whose "crs" names another system.
io::location_table read_points_file(const std::string& file, const io::read_options& options, const common& c) {
#ifdef QUOCT_WITH_GDAL
    const io::gdal::source_options source = gdal_source(c.layer, c.s_srs);
    const std::string through_gdal = gdal_path(file);
    if (!through_gdal.empty()) return gdal().read_locations(through_gdal, options, source);
    const std::string driver = gdal().identify(file);
    if (!c.s_srs.empty()) {
        no_gdal_options(c.layer, "", file, "");
        return driver == "GeoJSON" ? gdal().read_locations(file, options, source)
                                   : gdal().read_locations_csv(file, options, source);
    }
    no_gdal_options(c.layer, "", file, "");
    try {
        return io::read_locations_file(file, options);
    } catch (const io::parse_error& e) {
        // quoct's GeoJSON reader takes WGS 84 only; GDAL reprojects any other crs it names.
        if (driver != "GeoJSON" || !refuses_crs(e)) throw;
        return gdal().read_locations(file, options, source);
    }
#else
    no_gdal_options(c.layer, c.s_srs, file, "");
    return io::read_locations_file(file, options);
#endif
}

}  // namespace

void no_gdal_options(const std::string& layer, const std::string& s_srs, const std::string& name, const char* prefix) {
    const std::string option = std::string("--") + prefix + (layer.empty() ? "s-srs" : "layer");
    if (!layer.empty() || !s_srs.empty())
        throw io::parse_error(name, 0, with_gdal ? option + " is for sources read through GDAL; this is CSV or GeoJSON text"
                                                 : needs_gdal(option));
}

#ifdef QUOCT_WITH_GDAL
bool refuses_crs(const io::parse_error& e) {
    const std::string what = e.what();
    return what.find(": crs ") != std::string::npos && what.find("is not WGS 84 longitude/latitude") != std::string::npos;
}
#endif

std::string binary_start(std::istream& in) {
    char head[512];
    in.read(head, sizeof head);
    const std::string kind = io::binary_kind(head, static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    in.clear();
    in.seekg(0);
    return kind;
}

#ifdef QUOCT_WITH_GDAL
std::string gdal_path(const std::string& file) {
    const std::string driver = gdal().identify(file);
    if (!driver.empty() && driver != "CSV" && driver != "GeoJSON") return file;
    std::ifstream in(file, std::ios::binary);
    const std::string kind = binary_start(in);
    if (kind.empty()) return "";
    if (kind == "a zip archive" && gdal().reads("/vsizip/" + file)) return "/vsizip/" + file;
    throw io::parse_error(file, 0, "is " + kind + ", which GDAL does not read as a vector source");
}
#endif

input read_input(const common& c, const std::string& path) {
    const std::string file = path.empty() ? default_file() : path;
    io::read_options options;
    options.lon_column = c.lon_column;
    options.lat_column = c.lat_column;
    options.on_bad_row = c.on_bad_row == "skip" ? io::bad_row_policy::skip : io::bad_row_policy::stop;
    options.on_skip = [](const io::skipped_row& row) { std::cerr << "quoct: skipped " << row.message << '\n'; };
    input in;
    in.name = file == "-" ? "stdin" : file;
    if (file == "-") {
        std::string text = read_stdin();
        if (io::is_index_file(text.data(), text.size())) {
            try {
                in.index = quoct::from_bytes<io::location_index>(text.data(), text.size());
            } catch (const quoct::file_error& e) {
                throw index_error("stdin", e, [&] { return quoct::read_file_info(text.data(), text.size()); });
            }
        } else {
            in.table = read_points_text(std::move(text), options, c);
        }
    } else if (io::is_index_file(file)) {
        try {
            in.index = quoct::open<io::location_index>(file, quoct::open_options{true});
        } catch (const quoct::file_error& e) {
            throw index_error(e.path(), e, [&] { return quoct::read_file_info(file); });
        }
    } else {
        struct stat st {};
        const bool progress = ::isatty(STDERR_FILENO) && ::stat(file.c_str(), &st) == 0 && st.st_size > (1 << 20);
        if (progress) std::cerr << "quoct: reading " << file << " (" << st.st_size / (1 << 20) << " MiB)..." << std::flush;
        in.table = read_points_file(file, options, c);
        if (progress) std::cerr << "\r\033[Kquoct: " << in.table.locations.size() << " points read, indexing..." << std::flush;
    }
    if (!in.index) {
        in.name = in.table.source;
        if (!in.table.skipped.empty()) std::cerr << "quoct: " << in.table.skipped.size() << " bad rows skipped\n";
    }
    return in;
}

io::location_index indexed(input& in) {
    if (in.index) return std::move(*in.index);
    io::location_index x(in.table);
    in.table = io::location_table();
    return x;
}

}  // namespace cli
}  // namespace quoct
