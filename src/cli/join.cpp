// quoct join: which polygon of a layer covers each point, or how many points each covers
// (join.hpp).
#include "join.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>

#include <quoct/geo/polygons.hpp>
#include <quoct/parallel.hpp>

#include "input.hpp"
#include "shared.hpp"

namespace quoct {
namespace cli {

namespace {

/// The area of feature f, checked; with --invalid repair an invalid one is made valid
/// (through GDAL) and checked again, with a message on stderr. Throws io::parse_error.
io::wkt_multi_polygon feature_area(const io::polygon_layer& layer, std::size_t f, [[maybe_unused]] const join_args& j) {
    const std::string name = layer.source + ": " + layer.describe(f);
    try {
        return io::area_of(layer.features[f].polygons, name);
    } catch (const io::parse_error& e) {
#ifdef QUOCT_WITH_GDAL  // (without GDAL, --invalid repair is refused before any file is read)
        if (j.invalid == "repair") {
            const io::lonlat_polygons repaired = gdal().make_valid(layer.features[f].polygons, name);
            if (repaired.empty()) throw io::parse_error(name, 0, "cannot repair: nothing of its area is left");
            io::wkt_multi_polygon area = io::area_of(repaired, name + " (repaired)");
            std::cerr << "quoct: repaired " << e.what() << '\n';
            return area;
        }
#endif
        throw;
    }
}

/// The places of the --polygon-columns among the layer's columns. Throws io::parse_error,
/// naming the columns there are, for one the layer does not have.
std::vector<std::size_t> polygon_columns(const io::polygon_layer& read, const join_args& j) {
    std::vector<std::size_t> columns;
    for (const std::string& col : j.columns) {
        const std::size_t k = read.find_column(col);
        if (k == read.columns.size()) {
            std::string known;
            for (std::size_t i = 0; i < read.columns.size(); ++i) known += (i ? ", '" : "'") + read.columns[i] + "'";
            throw io::parse_error(read.source, 0, "no polygon column '" + col + "' (--polygon-columns); the columns are " +
                                                       (known.empty() ? "none" : known));
        }
        columns.push_back(k);
    }
    return columns;
}

/// join --count: a row per polygon (none for one skipped as invalid), with its count, in
/// --format to standard output or -o. Returns the exit code.
int write_counts(const joined_layer& joined, const std::vector<std::size_t>& columns, const common& c, const query& q) {
    const io::polygon_layer& layer = joined.layer;
    std::vector<std::size_t> which, counts;
    for (std::size_t f = 0; f < layer.features.size(); ++f)
        if (joined.areas[f] || layer.features[f].polygons.empty()) {
            which.push_back(f);
            counts.push_back(joined.covered[f].size());
        }
#ifdef QUOCT_WITH_GDAL
    if (c.format == "gpkg" || c.format == "fgb") {
        gdal().write_polygon_counts(q.output, gdal().output_driver(c.format), layer, which, counts, columns);
        return 0;
    }
#endif
    const io::output_format format = format_of(c.format);
    if (!q.output.empty()) {
        write_file(q.output, [&](std::ostream& out) { io::write_polygon_counts(out, layer, which, counts, columns, format); });
        return 0;
    }
    io::write_polygon_counts(std::cout, layer, which, counts, columns, format);
    std::cout.flush();
    return std::cout ? 0 : 1;
}

/// The polygon columns each row gets: extra row 0 for a point no polygon covers (empty
/// columns; null in GeoJSON), row f + 1 for feature f (its id, then `columns`).
io::write_options polygon_values(const io::polygon_layer& layer, const std::vector<std::size_t>& columns) {
    io::write_options options;
    options.extra_columns = io::join_column_names(layer, columns);
    options.extra_values.emplace_back(options.extra_columns.size());
    options.extra_kinds.emplace_back(options.extra_columns.size(), io::value_kind::null);
    for (std::size_t f = 0; f < layer.features.size(); ++f) {
        const auto id = io::feature_id_of(layer, f);
        std::vector<std::string> values{id.first};
        std::vector<io::value_kind> kinds{id.second};
        for (std::size_t k : columns) {
            values.push_back(layer.features[f].values[k]);
            kinds.push_back(layer.features[f].kinds[k]);
        }
        options.extra_values.push_back(std::move(values));
        options.extra_kinds.push_back(std::move(kinds));
    }
    return options;
}

/// The rows of join, in point order, then polygon order: a hit per point and polygon
/// covering it (extra row f + 1), and (unless `inner`) one for a point in none (extra row
/// 0). `ids`: the point each hit is, the table rows the hits refer to.
void join_rows(const joined_layer& joined, std::size_t points, bool inner, std::vector<io::hit>& hits,
               std::vector<std::size_t>& ids) {
    // (point, feature) pairs in point order, then feature order.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (std::size_t f = 0; f < joined.covered.size(); ++f)
        for (std::uint32_t id : joined.covered[f]) pairs.emplace_back(id, static_cast<std::uint32_t>(f));
    std::sort(pairs.begin(), pairs.end());
    std::size_t p = 0;
    for (std::uint32_t point = 0; point < points; ++point) {
        const bool any = p < pairs.size() && pairs[p].first == point;
        if (!any && inner) continue;
        if (!any) {
            hits.push_back({ids.size(), 0, 0, 0});
            ids.push_back(point);
        }
        for (; p < pairs.size() && pairs[p].first == point; ++p) {
            hits.push_back({ids.size(), 0, 0, std::size_t{pairs[p].second} + 1});
            ids.push_back(point);
        }
    }
}

}  // namespace

CLI::App* add_join_command(CLI::App& app, common& c, query& q, join_args& j) {
    CLI::App* join = app.add_subcommand("join", "which polygon of a layer covers each point (boundary included): one row per "
                                                "point and polygon, a point in none with empty polygon columns; or the count "
                                                "of points per polygon");
    join->add_option("--polygons", j.polygons, "polygons, one per feature: GeoJSON (a FeatureCollection of Polygon or "
                                               "MultiPolygon features, a Feature or a geometry) or, with GDAL, any "
                                               "GIS vector source (GeoPackage, Shapefile, ...); - for standard input")
        ->required();
    join->add_option("--polygon-columns", j.columns, "properties of the polygons to add, comma separated, each as "
                                                     "polygon_<name>; polygon_id (the feature's id, else its "
                                                     "number from 1) always comes")
        ->delimiter(',');
    auto* inner = join->add_flag("--inner", j.inner, "leave out the points no polygon covers");
    auto* count = join->add_flag("--count", j.count, "one row per polygon: polygon_id, the polygon columns, count");
    inner->excludes(count);
    join->add_option("--invalid", j.invalid, "an invalid polygon (it intersects itself, ...) stops the run, is "
                                             "skipped with a message on stderr, or is repaired (GEOS MakeValid on its "
                                             "lon/lat as written, needs GDAL) with a message on stderr")
        ->check(CLI::IsMember({"stop", "skip", "repair"}))
        ->capture_default_str();
    join->add_option("--polygon-layer", j.layer, "the layer of --polygons to read, by name (needs GDAL)");
    join->add_option("--polygon-s-srs", j.s_srs, "the CRS of the polygons' coordinates, as --s-srs (needs GDAL)");
    add_common(*join, c);
    join->footer(rules_footer);
    add_output(*join, c, q);
    return join;
}

io::polygon_layer read_layer(const join_args& j) {
    const std::string& path = j.polygons;
    if (path == "-") {
        std::string text = read_stdin();
#ifdef QUOCT_WITH_GDAL
        if (!io::binary_kind(text.data(), std::min<std::size_t>(text.size(), 512)).empty())
            return gdal().read_polygon_layer_bytes(text, "stdin", gdal_source(j.layer, j.s_srs, "polygon-"));
#endif
        no_gdal_options(j.layer, j.s_srs, "stdin", "polygon-");
        std::istringstream in(std::move(text));
        return io::read_geojson_polygon_layer(in, "stdin");
    }
#ifdef QUOCT_WITH_GDAL
    // Through GDAL: a source quoct does not read itself, or GeoJSON whose CRS is given.
    const std::string through_gdal = gdal_path(path);
    if (!through_gdal.empty()) return gdal().read_polygon_layer(through_gdal, gdal_source(j.layer, j.s_srs, "polygon-"));
    if (!j.s_srs.empty() && gdal().identify(path) == "GeoJSON")
        return gdal().read_polygon_layer(path, gdal_source(j.layer, j.s_srs, "polygon-"));
#endif
    no_gdal_options(j.layer, j.s_srs, path, "polygon-");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw io::parse_error(path, 0, "cannot open");
    // (With GDAL, gdal_path has refused a binary file GDAL does not read.)
    const std::string kind = binary_start(in);
    if (!kind.empty()) throw io::parse_error(path, 0, "is " + kind + ", not GeoJSON: " + needs_gdal("reading it"));
#ifdef QUOCT_WITH_GDAL
    try {
        return io::read_geojson_polygon_layer(in, path);
    } catch (const io::parse_error& e) {
        if (!refuses_crs(e)) throw;
        return gdal().read_polygon_layer(path, gdal_source(j.layer, j.s_srs, "polygon-"));
    }
#else
    return io::read_geojson_polygon_layer(in, path);
#endif
}

joined_layer join_layer(io::polygon_layer layer_read, const join_args& j, const geo::index<>& ix) {
    joined_layer out{std::move(layer_read), {}, {}};
    const io::polygon_layer& layer = out.layer;
    const std::size_t features = layer.features.size();
    out.areas.resize(features);
    for (std::size_t f = 0; f < features; ++f) {
        if (layer.features[f].polygons.empty()) {
            std::cerr << "quoct: " << layer.source << ": " << layer.describe(f) << " has no geometry: it covers no point\n";
            continue;
        }
        try {
            out.areas[f] = feature_area(layer, f, j);
        } catch (const io::parse_error& e) {
            if (j.invalid == "stop") throw;
            std::cerr << "quoct: skipped " << e.what() << '\n';
        }
    }
    out.covered.resize(features);
    quoct::parallel_for(
        features, 0, [&](std::size_t f) {
            if (out.areas[f]) out.covered[f] = geo::covered_by(ix, *out.areas[f]);
        },
        1);
    return out;
}

int run_join(const join_args& j, const common& c, const query& q, const io::location_index& x, const std::string& name,
             bool explicit_name) {
    io::polygon_layer read = read_layer(j);
    const std::vector<std::size_t> columns = polygon_columns(read, j);
    const joined_layer joined = join_layer(std::move(read), j, x.index());
    if (j.count) return write_counts(joined, columns, c, q);
    const io::write_options options = polygon_values(joined.layer, columns);
    std::vector<io::hit> hits;
    std::vector<std::size_t> ids;  // the table rows the hits refer to
    join_rows(joined, x.index().size(), j.inner, hits, ids);
    return write_rows(c, q, x, ids, name, explicit_name, hits, options);
}

}  // namespace cli
}  // namespace quoct
