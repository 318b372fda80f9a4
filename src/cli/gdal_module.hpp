// The quoct command's GDAL functions, built as a module of their own (quoct-gdal.so) that the
// command loads only when an input or output needs GDAL. Linked into the command, GDAL and
// the hundred libraries it pulls in cost every call about 40 ms of dynamic linking, even
// `quoct near` on an index file that GDAL never reads.
//
// The module exports one C function, quoct_cli_gdal_functions, giving this table of
// quoct::io::gdal's functions (see <quoct/io/gdal.hpp> for what each does and throws).
// The command and the module are built together by the same compiler from the same
// headers; `version` and `size` guard against a module left over from another build.
#ifndef QUOCT_CLI_GDAL_MODULE_HPP
#define QUOCT_CLI_GDAL_MODULE_HPP

#include <quoct/io/gdal.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace quoct {
namespace cli {

/// Bumped whenever gdal_functions changes.
constexpr unsigned gdal_functions_version = 1;

/// quoct::io::gdal's functions, as the module gives them.
struct gdal_functions {
    unsigned version;  ///< gdal_functions_version of the module's build
    std::size_t size;  ///< sizeof(gdal_functions) in the module's build
    std::string (*identify)(const std::string& path);
    bool (*reads)(const std::string& path);
    io::location_table (*read_locations)(const std::string& path, const io::read_options& options,
                                         const io::gdal::source_options& source);
    io::location_table (*read_locations_bytes)(const std::string& bytes, const std::string& name,
                                               const io::read_options& options,
                                               const io::gdal::source_options& source);
    io::location_table (*read_locations_csv)(const std::string& path, const io::read_options& options,
                                             const io::gdal::source_options& source);
    io::polygon_layer (*read_polygon_layer)(const std::string& path, const io::gdal::source_options& source);
    io::polygon_layer (*read_polygon_layer_bytes)(const std::string& bytes, const std::string& name,
                                                  const io::gdal::source_options& source);
    std::string (*output_driver)(const std::string& format);
    void (*write_locations)(const std::string& path, const std::string& driver, const io::location_table& table,
                            const std::vector<io::hit>& hits, const io::write_options& options);
    void (*write_polygon_counts)(const std::string& path, const std::string& driver,
                                 const io::polygon_layer& layer, const std::vector<std::size_t>& features,
                                 const std::vector<std::size_t>& counts, const std::vector<std::size_t>& columns);
    io::lonlat_polygons (*make_valid)(const io::lonlat_polygons& polygons, const std::string& source);
};

}  // namespace cli
}  // namespace quoct

/// The module's one entry point (looked up by this name with dlsym).
extern "C" const quoct::cli::gdal_functions* quoct_cli_gdal_functions();

#endif  // QUOCT_CLI_GDAL_MODULE_HPP
