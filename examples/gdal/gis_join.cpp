// A spatial join with GIS files through quoct::gdal: points and polygons from any vector
// source GDAL reads (GeoPackage, Shapefile, FlatGeobuf, GeoJSON, ...; reprojected to lon/lat
// when they are in another CRS), the points counted per polygon on one geographic index,
// and the polygons written with their counts to a GeoPackage, ready for a choropleth.
//
// Usage: gis_join [points polygons out.gpkg]
//   default: quoct's data/cities.csv (read by GDAL's CSV driver, columns lon and lat) and
//   data/countries_110m.geojson, written to country_counts.gpkg
//
// Each count is checked against brute force (Boost.Geometry's covered_by on every point);
// the program returns 1 if one differs.
#include <quoct/geo/index.hpp>
#include <quoct/geo/polygons.hpp>
#include <quoct/io/gdal.hpp>
#include <quoct/io/wkt.hpp>

#include <boost/geometry/algorithms/covered_by.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace geo = quoct::geo;
namespace io = quoct::io;

int main(int argc, char** argv) {
    if (argc != 1 && argc != 4) {
        std::fprintf(stderr, "usage: %s [points polygons out.gpkg]\n", argv[0]);
        return 2;
    }
    const std::string data = QUOCT_DATA_DIR;
    const std::string points_file = argc > 1 ? argv[1] : data + "/cities.csv";
    const std::string polygons_file = argc > 2 ? argv[2] : data + "/countries_110m.geojson";
    const std::string out = argc > 3 ? argv[3] : "country_counts.gpkg";
    try {
        // A CSV goes through GDAL's CSV driver with its lon and lat columns; anything else
        // through whichever driver recognises it.
        const io::location_table points = points_file.size() > 4 && points_file.substr(points_file.size() - 4) == ".csv"
                                               ? io::gdal::read_locations_csv(points_file)
                                               : io::gdal::read_locations(points_file);
        const io::polygon_layer layer = io::gdal::read_polygon_layer(polygons_file);
        const geo::index<> index(points.locations);

        std::vector<std::size_t> features, counts;
        int wrong = 0;
        for (std::size_t f = 0; f < layer.features.size(); ++f) {
            if (layer.features[f].polygons.empty()) continue;  // no geometry: covers nothing
            const io::wkt_multi_polygon area = io::area_of(layer.features[f].polygons, layer.describe(f));
            const std::size_t n = geo::covered_by(index, area).size();
            // Brute force: every point, also shifted by 360 degrees for areas unwrapped past
            // lon 180 (the area's bounding box only skips the sure misses quickly).
            double west = 1e300, south = 1e300, east = -1e300, north = -1e300;
            for (const auto& polygon : area)
                for (const auto& v : polygon.outer()) {
                    west = std::min(west, v.x()), east = std::max(east, v.x());
                    south = std::min(south, v.y()), north = std::max(north, v.y());
                }
            std::size_t expected = 0;
            for (const geo::lonlat& p : points.locations) {
                bool in = false;
                for (double shift : {0.0, -360.0, 360.0}) {
                    const double x = p.lon + shift;
                    in = in || (x >= west && x <= east && p.lat >= south && p.lat <= north &&
                                boost::geometry::covered_by(io::wkt_point(x, p.lat), area));
                }
                expected += in;
            }
            if (n != expected) {
                std::fprintf(stderr, "%s: %zu points, brute force %zu\n", layer.describe(f).c_str(), n, expected);
                ++wrong;
            }
            features.push_back(f);
            counts.push_back(n);
        }
        const std::size_t name = layer.find_column("name");
        const std::vector<std::size_t> columns = name < layer.columns.size() ? std::vector<std::size_t>{name}
                                                                             : std::vector<std::size_t>{};
        io::gdal::write_polygon_counts(out, io::gdal::output_driver("gpkg"), layer, features, counts, columns);

        std::vector<std::size_t> order(features.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return counts[a] > counts[b]; });
        std::printf("%zu points, %zu polygons; the most points:\n", points.locations.size(), features.size());
        for (std::size_t i = 0; i < std::min<std::size_t>(5, order.size()); ++i)
            std::printf("  %6zu  %s\n", counts[order[i]], layer.describe(features[order[i]]).c_str());
        std::printf("written to %s%s\n", out.c_str(), wrong ? "" : "; every count equals brute force");
        return wrong ? 1 : 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gis_join: %s\n", e.what());
        return 1;
    }
}
