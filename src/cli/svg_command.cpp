// quoct svg: a map of the points with one query and its hits, or a choropleth of the points
// each polygon covers (svg_command.hpp); svg.cpp draws the picture.
#include "svg_command.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <quoct/geo/polygons.hpp>
#include <quoct/io/geojson_polygons.hpp>
#include <quoct/io/wkt.hpp>

#include "join.hpp"
#include "queries.hpp"
#include "shared.hpp"
#include "svg.hpp"

namespace quoct {
namespace cli {

namespace {

/// The svg subcommand's shape, from whichever query options were given.
svg_shape shape_of(const CLI::App& svg, const query& q) {
    svg_shape shape;
    if (svg.count("--km") > 0 || svg.count("--k") > 0) {  // with --k alone, the radius is set by its hits
        shape.type = svg_shape::kind::circle;
        shape.lon = q.lon, shape.lat = q.lat, shape.metres = std::max(q.km, 0.0) * 1000;
    } else if (svg.count("--west") > 0) {
        shape.type = svg_shape::kind::box;
        shape.west = q.west, shape.south = q.south, shape.east = q.east, shape.north = q.north;
    } else if (svg.count("--wkt") > 0) {
        shape.type = svg_shape::kind::polygon;
        shape.area = io::read_wkt_area(q.wkt, "--wkt");
    }
    return shape;
}

/// The hits of the svg subcommand's shape; with --k, the k nearest of its centre (within
/// --km when given), as near lists them.
std::vector<std::size_t> svg_hits(const geo::index<>& ix, const svg_shape& shape, const query& q) {
    std::vector<std::uint32_t> ids;
    using kind = svg_shape::kind;
    if (q.k > 0) {
        std::vector<io::hit> near;
        run_near(ix, q, {q.lon, q.lat}, 0, near);
        std::vector<std::size_t> out;
        for (const auto& h : near) out.push_back(h.id);
        return out;
    }
    if (shape.type == kind::circle) ids = ix.within(shape.lon, shape.lat, shape.metres);
    if (shape.type == kind::box) ids = ix.in_box(shape.west, shape.south, shape.east, shape.north);
    if (shape.type == kind::polygon) geo::visit_covered_by(ix, shape.area, [&](std::uint32_t id) { ids.push_back(id); });
    return std::vector<std::size_t>(ids.begin(), ids.end());
}

/// The map under svg pictures: --basemap, else the bundled countries next to the bundled
/// cities (installed, or the build tree's data), else none.
std::vector<std::vector<geo::lonlat>> basemap_rings(const query& q) {
    std::string path = q.basemap;
    if (path.empty()) {
        const std::filesystem::path dir = executable_dir();
        std::error_code ec;
        const std::filesystem::path installed = dir / QUOCT_INSTALL_DATA_RELATIVE / "countries_110m.geojson";
        const std::filesystem::path source = std::filesystem::path(QUOCT_DATA_DIR) / "countries_110m.geojson";
        if (!dir.empty() && std::filesystem::is_regular_file(installed, ec)) path = installed.string();
        else if (std::filesystem::is_regular_file(source, ec)) path = source.string();
        else return {};
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw io::parse_error(path, 0, "cannot open (--basemap)");
    std::vector<std::vector<geo::lonlat>> rings;
    for (const auto& polygon : io::read_geojson_polygons(in, path))
        for (const auto& ring : polygon) rings.push_back(ring);
    return rings;
}

/// The values of column `col` of `table`, one per row, as io::parse_number reads them (NaN
/// where a value is not a number).
std::vector<double> numbers_of(const io::location_table& table, std::size_t col) {
    std::vector<double> out;
    for (const auto& row : table.values) out.push_back(io::parse_number(row[col]).value_or(std::nan("")));
    return out;
}

/// The title's last part: where the land comes from.
std::string land_note(const query& q, const svg_options& options) {
    return options.basemap.empty() ? "" : q.basemap.empty() ? "; land: Natural Earth 1:110m" : "; land: " + q.basemap;
}

/// svg --polygons: the choropleth of the points each polygon covers, as join --count counts
/// them; the largest counts labelled with --polygon-label-column.
void run_choropleth(const CLI::App& svg, const join_args& j, const query& q, const io::location_index& x,
                    svg_options& options) {
    io::polygon_layer read = read_layer(j);
    const std::size_t label = read.find_column(j.label_column);
    if (label == read.columns.size() && svg.count("--polygon-label-column") > 0)
        throw io::parse_error(read.source, 0, "no polygon column '" + j.label_column + "' (--polygon-label-column)");
    const joined_layer joined = join_layer(std::move(read), j, x.index());
    const io::polygon_layer& layer = joined.layer;
    auto& map = options.choropleth;
    map.classes = q.classes;
    std::vector<bool> in_some(x.size());  // a point in overlapping polygons counts once in the title
    for (std::size_t f = 0; f < layer.features.size(); ++f) {
        if (!joined.areas[f]) continue;  // no geometry, or skipped: nothing to draw
        map.areas.push_back(*joined.areas[f]);
        map.counts.push_back(joined.covered[f].size());
        for (std::uint32_t id : joined.covered[f]) in_some[id] = true;
        if (label < layer.columns.size()) map.names.push_back(layer.features[f].values[label]);
    }
    if (map.areas.empty()) throw io::parse_error(layer.source, 0, "no polygon to draw");
    options.title = std::to_string(std::count(in_some.begin(), in_some.end(), true)) + " of " + std::to_string(x.size()) + " points in " +
                    std::to_string(map.areas.size()) + " polygons: points per polygon" + land_note(q, options);
    if (!map.names.empty()) options.label_note = "labelled: the largest counts, where room";
    write_file(q.output, [&](std::ostream& out) { write_svg(out, {}, {}, {}, options); });
}

/// svg's --polygons and the options that go with it (as join's, for its layer).
void add_choropleth_options(CLI::App& svg, join_args& j, number_args& a) {
    auto* choropleth = svg.add_option("--polygons", j.polygons, "a choropleth instead: these polygons (as join "
                                                                "--polygons) filled by the number of points each "
                                                                "covers, in --classes classes, with a legend");
    svg.add_option("--polygon-label-column", j.label_column, "with --polygons: the polygons' column labelling "
                                                             "the largest counts (ignored when absent, unless given)")
        ->capture_default_str()
        ->needs(choropleth);
    svg.add_option("--classes", a.classes, "with --polygons: colour classes for the positive counts, 1 to 7, of "
                                           "about equal numbers of polygons (quantiles); 0 has its own")
        ->capture_default_str()
        ->needs(choropleth);
    svg.add_option("--polygon-layer", j.layer, "with --polygons: the layer to read, by name (needs GDAL)")->needs(choropleth);
    svg.add_option("--polygon-s-srs", j.s_srs, "with --polygons: the CRS of their coordinates, as --s-srs (needs GDAL)")
        ->needs(choropleth);
    svg.add_option("--invalid", j.invalid, "with --polygons: an invalid polygon stops the run, is skipped or is "
                                           "repaired, as for join")
        ->check(CLI::IsMember({"stop", "skip", "repair"}))
        ->capture_default_str()
        ->needs(choropleth);
}

}  // namespace

CLI::App* add_svg_command(CLI::App& app, common& c, query& q, number_args& a, join_args& j) {
    CLI::App* svg = app.add_subcommand("svg", "an SVG map of the points, with one query, its hits labelled, and optionally the "
                                              "quadtree's cells; or, with --polygons, a choropleth of the points each polygon "
                                              "covers (join --count's counts)");
    add_centre(*svg, a, true);
    svg->add_option("--k", a.k, "the k nearest points of (--lon, --lat) (within --km, if given too), at least 1")
        ->type_name("K")
        ->needs(svg->get_option("--lon"));
    add_box(*svg, a, false);
    svg->add_option("--wkt", q.wkt, "a WKT polygon to query and draw");
    svg->add_option("--label-by", q.label_by, "a column of numbers ranking the hits' labels: the largest are "
                                              "labelled first, at most 60, none over another (ignored when FILE "
                                              "has no such column, unless given)")
        ->capture_default_str();
    add_choropleth_options(*svg, j, a);
    svg->add_option("-o,--output", q.output, "the SVG file to write (replaced only when the picture is complete)")
        ->required();
    svg->add_option("--width", a.width, "picture width in pixels, in [16, 20000]")->capture_default_str();
    svg->add_flag("--cells", q.cells, "draw the quadtree's cells over the points");
    svg->add_option("--leaf-size", a.leaf_size, "with --cells: split a drawn cell while it holds more points, at least 1")
        ->capture_default_str();
    auto* basemap = svg->add_option("--basemap", q.basemap, "GeoJSON polygons drawn as land under the points; default: "
                                                            "the bundled Natural Earth countries");
    svg->add_flag("--no-basemap", q.no_basemap, "no land, only the points")->excludes(basemap);
    add_common(*svg, c);
    svg->footer(rules_footer);
    svg->callback([svg] {
        const int shapes = (svg->count("--km") > 0 || svg->count("--k") > 0) + (svg->count("--west") > 0) +
                           (svg->count("--wkt") > 0) + (svg->count("--polygons") > 0);
        if (shapes > 1)
            throw CLI::ValidationError("give at most one of --km or --k (with --lon, --lat), the box, --wkt, --polygons");
    });
    return svg;
}

void run_svg(const CLI::App& svg, const query& q, const join_args& j, const io::location_index& x, const common& c) {
    const geo::index<>& ix = x.index();
    svg_options options;
    options.width = q.width;
    options.leaf_size = q.leaf_size;
    options.cells = q.cells;
    if (!q.no_basemap) options.basemap = basemap_rings(q);
    if (svg.count("--polygons") > 0) return run_choropleth(svg, j, q, x, options);
    svg_shape shape = shape_of(svg, q);
    const std::vector<std::size_t> hits = svg_hits(ix, shape, q);
    if (q.k > 0 && q.km < 0)  // --k alone: the circle through the farthest of the k
        for (std::size_t id : hits) shape.metres = std::max(shape.metres, geo::distance({q.lon, q.lat}, ix.location(static_cast<std::uint32_t>(id))));
    const io::location_table named = x.rows(hits);
    const std::size_t col = named.find_column(c.name_column);
    if (col < named.columns.size())
        for (std::size_t k = 0; k < hits.size(); ++k) options.labels.emplace_back(named.values[k][col]);
    const auto rank = static_cast<std::size_t>(std::find(x.columns().begin(), x.columns().end(), q.label_by) - x.columns().begin());
    if (rank == x.columns().size() && svg.count("--label-by") > 0)
        throw io::parse_error(x.source(), 0, "no column '" + q.label_by + "' (--label-by)");
    if (rank < x.columns().size()) options.label_rank = numbers_of(named, named.find_column(q.label_by));
    if (!options.labels.empty())
        options.label_note = options.label_rank.empty() ? "labelled: the first hits, where room"
                                                         : "labelled: the largest by " + q.label_by + ", where room";
    std::vector<geo::lonlat> locations(ix.size());
    for (std::size_t i = 0; i < locations.size(); ++i) locations[i] = ix.location(static_cast<std::uint32_t>(i));
    options.title = std::to_string(hits.size()) + " of " + std::to_string(ix.size()) + " points" +
                    (q.cells ? "; quadtree cells split above " + std::to_string(q.leaf_size) + " points" : "") +
                    land_note(q, options);
    write_file(q.output, [&](std::ostream& out) { write_svg(out, locations, hits, shape, options); });
}

}  // namespace cli
}  // namespace quoct
