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

/// A choropleth: polygons filled by how many points each covers (quoct svg --polygons, the
/// counts of quoct join --count). Positive counts fall into `classes` classes of about
/// equal numbers of polygons (quantile breaks: class c ends at the count of the polygon
/// ranked c/classes of the way up), each a shade of one colour ramp, darker for more; a
/// count of 0 has a class of its own, and a legend gives each class's range.
struct svg_choropleth {
    /// Each polygon's area, as io::area_of gives it (longitudes unwrapped).
    std::vector<io::wkt_multi_polygon> areas;
    /// The points each covers, one per area.
    std::vector<std::size_t> counts;
    /// A label per area ("" for none): the largest counts are labelled, without overlaps,
    /// at the middle of each one's largest ring.
    std::vector<std::string> names;
    /// The number of classes for the positive counts, 1 to 7 (fewer when fewer distinct
    /// counts).
    std::size_t classes = 5;
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
    /// A label per hit (same order as hits), drawn beside its dot; empty for none. At most
    /// max_labels are drawn, and none over another, the map's edge, the legend or the
    /// scale bar: the hits are taken by `label_rank` (largest first; NaN last), then in
    /// order, and a label that would overlap one already placed is left out.
    std::vector<std::string> labels;
    /// A number per hit (same order as hits) ranking its label; empty: the hits' order.
    std::vector<double> label_rank;
    std::size_t max_labels = 60;
    /// A line under the legend saying how the labels were chosen ("" for none).
    std::string label_note;
    /// When it has areas, the map is this choropleth: the polygons filled by class, the
    /// legend giving the classes, no points or query drawn, the view the polygons' extent.
    svg_choropleth choropleth;
};

/// Writes an SVG map to `out`: the basemap's land, a graticule with degree labels (lon 180
/// marked when in view; none under the title, the legend or the scale bar, none in the
/// corner where the two edges' labels meet), every location in the view as a dot, the hits
/// (indices into `locations`) highlighted and labelled, the shape outlined, a legend, a
/// scale bar, and with
/// options.cells the cells of a quadtree built over the locations' lon/lat (split while
/// count(cell) > leaf_size). The view is the
/// shape's extent grown by half on each side (at most 360 degrees of longitude), or the
/// points' extent when there is no shape; a shape across lon 180 is measured and drawn with
/// its longitudes unwrapped (a box from 178 to -178 spans 178 to 182, a polygon edge whose
/// ends differ by more than 180 degrees goes the short way), and points, cells and hits are
/// drawn at lon, lon - 360 or lon + 360, whichever is in the view. Lon/lat are drawn
/// equirectangular, scaled by cos(latitude) at the view's middle.
/// With options.choropleth, the map is the choropleth instead (see svg_choropleth).
/// Throws std::invalid_argument if leaf_size is 0, width is not positive (NaN included), or
/// the choropleth's classes are not 1 to 7 or its counts or names not one per area.
void write_svg(std::ostream& out, const std::vector<geo::lonlat>& locations, const std::vector<std::size_t>& hits,
               const svg_shape& shape, const svg_options& options);

}  // namespace cli
}  // namespace quoct

#endif  // QUOCT_CLI_SVG_HPP
