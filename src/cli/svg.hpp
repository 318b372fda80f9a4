// quoct svg: a picture of the quadtree over lon/lat points, with a query and its hits.
#ifndef QUOCT_CLI_SVG_HPP
#define QUOCT_CLI_SVG_HPP

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include <quoct/geo/index.hpp>
#include <quoct/io/wkt.hpp>

namespace quoct {
namespace cli {

/// The query shape drawn over the picture, in lon/lat degrees.
struct svg_shape {
    enum class kind { none, circle, box, polygon } type = kind::none;
    /// circle: centre and radius in metres.
    double lon = 0, lat = 0, metres = 0;
    /// box: bounds; west > east crosses the antimeridian.
    double west = 0, south = 0, east = 0, north = 0;
    /// polygon: the area as read by io::read_wkt_area.
    io::wkt_multi_polygon area;
};

/// What to draw.
struct svg_options {
    /// Width of the picture in pixels; the height follows from the view's aspect.
    double width = 900;
    /// Draw the quadtree's cells (split while a cell holds more than leaf_size points).
    bool cells = false;
    /// A quadtree cell is split while it holds more than this many points.
    std::size_t leaf_size = 32;
    /// Title line at the top of the picture.
    std::string title;
    /// Land under everything: polygons as rings of lon/lat (countries' borders and coasts),
    /// drawn as given (and 360 degrees east or west, where that is in the view).
    std::vector<std::vector<geo::lonlat>> basemap;
    /// A label per hit (same order as hits), drawn beside its dot when there are at most
    /// max_labels hits; empty for none.
    std::vector<std::string> labels;
    std::size_t max_labels = 60;
};

/// Writes an SVG map to `out`: the basemap's land, a graticule with degree labels (lon 180
/// marked when in view), every location in the view as a dot, the hits (indices into
/// `locations`) highlighted and labelled, the shape outlined, a scale bar, and with
/// options.cells the cells of a quadtree built over the locations' lon/lat (split while
/// count(cell) > leaf_size). The view is the
/// shape's extent grown by half on each side (at most 360 degrees of longitude), or the
/// points' extent when there is no shape; a shape across lon 180 is measured and drawn with
/// its longitudes unwrapped (a box from 178 to -178 spans 178 to 182, a polygon edge whose
/// ends differ by more than 180 degrees goes the short way), and points, cells and hits are
/// drawn at lon, lon - 360 or lon + 360, whichever is in the view. Lon/lat are drawn
/// equirectangular, scaled by cos(latitude) at the view's middle.
/// Throws std::invalid_argument if leaf_size is 0 or width is not positive (NaN included).
void write_svg(std::ostream& out, const std::vector<geo::lonlat>& locations, const std::vector<std::size_t>& hits,
               const svg_shape& shape, const svg_options& options);

}  // namespace cli
}  // namespace quoct

#endif  // QUOCT_CLI_SVG_HPP
