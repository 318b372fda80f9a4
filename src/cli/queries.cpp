// quoct near, box and polygon: the points a query shape holds, as rows (queries.hpp).
#include "queries.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>

#include <quoct/geo/polygons.hpp>
#include <quoct/io/geojson_polygons.hpp>
#include <quoct/io/wkt.hpp>

#include "input.hpp"
#include "shared.hpp"

namespace quoct {
namespace cli {

namespace {

/// near --centers: every centre of the centres file in turn, on the one index; the output's
/// first column "center" is the centre's data row number (from 1) or its id column value.
std::vector<io::hit> run_near_centers(const geo::index<>& ix, const query& q, const common& c, io::write_options& out) {
    common centres_options = c;  // the same columns and policy; --layer and --s-srs are FILE's
    centres_options.layer.clear();
    centres_options.s_srs.clear();
    input in = read_input(centres_options, c.centers);
    const io::location_table centres = in.index ? in.index->table() : std::move(in.table);
    std::size_t id_column = centres.columns.size();
    if (!c.centers_id_column.empty()) {
        id_column = centres.find_column(c.centers_id_column);
        if (id_column == centres.columns.size())
            throw io::parse_error(centres.source, 0, "no column '" + c.centers_id_column + "' (--centers-id-column)");
    }
    out.center_column = "center";
    std::vector<io::hit> hits;
    for (std::size_t i = 0; i < centres.locations.size(); ++i) {
        const bool by_id = id_column < centres.columns.size();
        out.center_labels.push_back(by_id ? std::string(centres.values[i][id_column]) : std::to_string(centres.records[i]));
        out.center_kinds.push_back(by_id ? centres.kind(i, id_column) : io::value_kind::json);
        run_near(ix, q, centres.locations[i], i, hits);
    }
    return hits;
}

/// The box and polygon subcommands' ids as rows, in id (file) order.
std::vector<io::hit> as_hits(std::vector<std::uint32_t> ids) {
    std::sort(ids.begin(), ids.end());
    std::vector<io::hit> hits;
    for (std::uint32_t id : ids) hits.push_back({id, 0});
    return hits;
}

/// The polygon subcommand's area: --wkt, or --geojson as text (starting with '{'), '-' for
/// standard input, or a file.
io::wkt_multi_polygon polygon_area(const query& q, bool geojson) {
    if (!geojson) return io::read_wkt_area(q.wkt, "--wkt");
    if (q.geojson == "-") {
        std::istringstream in(read_stdin());
        return io::read_geojson_area(in, "stdin");
    }
    const std::size_t first = q.geojson.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && q.geojson[first] == '{') {
        std::istringstream in(q.geojson);
        return io::read_geojson_area(in, "--geojson");
    }
    std::ifstream in(q.geojson);
    if (!in) throw io::parse_error(q.geojson, 0, "cannot open");
    return io::read_geojson_area(in, q.geojson);
}

/// Declares near: --lon, --lat, --km, --k, --centers, --centers-id-column.
CLI::App* add_near(CLI::App& app, common& c, number_args& a) {
    CLI::App* near = app.add_subcommand("near", "points within --km of (--lon, --lat), nearest first; or the --k nearest; "
                                                "or either for every centre of --centers");
    add_centre(*near, a, false);
    near->add_option("--k", a.k, "the k nearest points (within --km, if given too), at least 1")->type_name("K");
    auto* centers = near->add_option("--centers", c.centers,
                                     "a file of query centres (CSV or GeoJSON points, read with the same column "
                                     "options; - for standard input) instead of --lon/--lat; output column 'center' "
                                     "is each centre's data row number, from 1");
    centers->excludes(near->get_option("--lon"))->excludes(near->get_option("--lat"));
    near->add_option("--centers-id-column", c.centers_id_column, "column of the centres file to show as 'center'")
        ->needs(centers);
    near->callback([near] {
        if (near->count("--centers") == 0 && near->count("--lon") == 0) throw CLI::RequiredError("--lon and --lat, or --centers,");
        if (near->count("--km") == 0 && near->count("--k") == 0) throw CLI::RequiredError("--km or --k");
    });
    return near;
}

/// Declares polygon: --wkt or --geojson, one of them.
CLI::App* add_polygon(CLI::App& app, query& q) {
    CLI::App* polygon = app.add_subcommand("polygon", "points in a WKT or GeoJSON polygon (lon lat degrees, boundary included), in "
                                                      "file order; an edge more than 180 degrees wide crosses lon 180 the short way");
    auto* wkt = polygon->add_option("--wkt", q.wkt, "POLYGON((lon lat, ...)) or MULTIPOLYGON(...), optionally after SRID=4326;");
    auto* geojson = polygon->add_option("--geojson", q.geojson, "a GeoJSON Polygon or MultiPolygon (geometry, Feature or "
                                                                 "FeatureCollection), as text starting with '{', a file, "
                                                                 "or - for standard input");
    wkt->excludes(geojson);
    polygon->callback([polygon] {
        if (polygon->count("--wkt") == 0 && polygon->count("--geojson") == 0) throw CLI::RequiredError("--wkt or --geojson");
    });
    return polygon;
}

}  // namespace

query_commands add_query_commands(CLI::App& app, common& c, query& q, number_args& a) {
    query_commands cmd{};
    cmd.near = add_near(app, c, a);
    cmd.box = app.add_subcommand("box", "points in a lon/lat box, in file order");
    add_box(*cmd.box, a, true);
    cmd.polygon = add_polygon(app, q);
    for (auto* sub : {cmd.near, cmd.box, cmd.polygon}) {
        add_common(*sub, c);
        sub->footer(rules_footer);
        add_output(*sub, c, q);
    }
    return cmd;
}

void run_near(const geo::index<>& ix, const query& q, geo::lonlat centre, std::size_t center, std::vector<io::hit>& hits) {
    if (q.k > 0) {
        for (const auto& n : ix.nearest(centre.lon, centre.lat, q.k))
            if (q.km < 0 || n.distance <= q.km * 1000) hits.push_back({n.id, n.distance, center});
        return;
    }
    const std::size_t first = hits.size();
    ix.visit_within(centre.lon, centre.lat, q.km * 1000,
                    [&](std::uint32_t id) { hits.push_back({id, geo::distance(centre, ix.location(id)), center}); });
    std::sort(hits.begin() + static_cast<std::ptrdiff_t>(first), hits.end(),
              [](const io::hit& a, const io::hit& b) { return a.metres < b.metres || (a.metres == b.metres && a.id < b.id); });
}

int run_query(const CLI::App* used, const query_commands& cmd, const common& c, const query& q,
              const io::location_index& x, const std::string& name, bool explicit_name) {
    const geo::index<>& ix = x.index();
    std::vector<io::hit> hits;
    io::write_options options;
    if (used == cmd.near && !c.centers.empty()) hits = run_near_centers(ix, q, c, options);
    if (used == cmd.near && c.centers.empty()) run_near(ix, q, {q.lon, q.lat}, 0, hits);
    if (used == cmd.box) hits = as_hits(ix.in_box(q.west, q.south, q.east, q.north));
    if (used == cmd.polygon) hits = as_hits(geo::covered_by(ix, polygon_area(q, used->count("--geojson") > 0)));
    options.with_distance = used == cmd.near;
    // Only the rows written are taken from the table (an index file's are read in place).
    std::vector<std::size_t> ids(hits.size());
    for (std::size_t i = 0; i < hits.size(); ++i) ids[i] = hits[i].id, hits[i].id = i;
    return write_rows(c, q, x, ids, name, explicit_name, hits, options);
}

}  // namespace cli
}  // namespace quoct
