// quoct-gdal.so: quoct::io::gdal's functions for the quoct command (see gdal_module.hpp).
#include "gdal_module.hpp"

namespace {

using namespace quoct;
namespace gdal = quoct::io::gdal;

const cli::gdal_functions table = {
    cli::gdal_functions_version,
    sizeof(cli::gdal_functions),
    [](const std::string& path) { return gdal::identify(path); },
    [](const std::string& path) { return gdal::reads(path); },
    [](const std::string& path, const io::read_options& options, const gdal::source_options& source) {
        return gdal::read_locations(path, options, source);
    },
    [](const std::string& bytes, const std::string& name, const io::read_options& options,
       const gdal::source_options& source) { return gdal::read_locations(bytes, name, options, source); },
    [](const std::string& path, const io::read_options& options, const gdal::source_options& source) {
        return gdal::read_locations_csv(path, options, source);
    },
    [](const std::string& path, const gdal::source_options& source) { return gdal::read_polygon_layer(path, source); },
    [](const std::string& bytes, const std::string& name, const gdal::source_options& source) {
        return gdal::read_polygon_layer(bytes, name, source);
    },
    [](const std::string& format) { return gdal::output_driver(format); },
    [](const std::string& path, const std::string& driver, const io::location_table& t,
       const std::vector<io::hit>& hits, const io::write_options& options) {
        gdal::write_locations(path, driver, t, hits, options);
    },
    [](const std::string& path, const std::string& driver, const io::polygon_layer& layer,
       const std::vector<std::size_t>& features, const std::vector<std::size_t>& counts,
       const std::vector<std::size_t>& columns) {
        gdal::write_polygon_counts(path, driver, layer, features, counts, columns);
    },
    [](const io::lonlat_polygons& polygons, const std::string& source) { return gdal::make_valid(polygons, source); },
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const quoct::cli::gdal_functions* quoct_cli_gdal_functions() {
    return &table;
}
