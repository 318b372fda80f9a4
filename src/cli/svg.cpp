// quoct svg: draws the quadtree's cells by splitting the points' bounding box while a cell
// counts more than leaf_size points (count(box) on a quoct::quadtree), so the picture shows
// how densely each region is indexed without needing the tree's internal nodes.
//
// The antimeridian. The view is a longitude window [lo, hi] at most 360 degrees wide that
// may reach past -180 or 180: a query across lon 180 is drawn with its longitudes unwrapped
// (a box from 178 to -178 runs from 178 to 182), and every point, cell and hit is drawn at
// whichever of lon - 360, lon, lon + 360 falls in the window.
#include "svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <ostream>
#include <stdexcept>

#include <quoct/orthtree.hpp>

namespace quoct {
namespace cli {

namespace {

using box2 = box<double, 2>;

// Maps lon/lat to picture coordinates, equirectangular about the view's middle latitude.
class projection {
public:
    projection(const box2& view, double width) : view_(view) {
        const double mid = (view.lo[1] + view.hi[1]) / 2;
        kx_ = std::max(std::cos(mid * geo::pi / 180), 0.05);
        scale_ = width / std::max((view.hi[0] - view.lo[0]) * kx_, 1e-9);
    }
    double x(double lon) const { return (lon - view_.lo[0]) * kx_ * scale_; }
    double y(double lat) const { return (view_.hi[1] - lat) * scale_; }
    double height() const { return y(view_.lo[1]); }

private:
    box2 view_;
    double kx_, scale_;
};

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

bool meets(const box2& a, const box2& b) {
    return a.lo[0] <= b.hi[0] && b.lo[0] <= a.hi[0] && a.lo[1] <= b.hi[1] && b.lo[1] <= a.hi[1];
}

// The location `metres` from (lon, lat) along `bearing` radians, on geo's sphere.
geo::lonlat destination(double lon, double lat, double metres, double bearing) {
    const double d = metres / geo::earth_radius, phi = lat * geo::pi / 180, lam = lon * geo::pi / 180;
    const double phi2 = std::asin(std::sin(phi) * std::cos(d) + std::cos(phi) * std::sin(d) * std::cos(bearing));
    const double lam2 =
        lam + std::atan2(std::sin(bearing) * std::sin(d) * std::cos(phi), std::cos(d) - std::sin(phi) * std::sin(phi2));
    double out_lon = lam2 * 180 / geo::pi;
    while (out_lon > 180) out_lon -= 360;
    while (out_lon < -180) out_lon += 360;
    return {out_lon, phi2 * 180 / geo::pi};
}

// The pole a circle holds: +1 the north pole, -1 the south pole, 0 neither (the north one
// when it holds both: its outline then bounds the south cap).
int pole_held(const svg_shape& s) {
    const double arc = s.metres / geo::earth_radius * 180 / geo::pi;  // the radius in degrees of arc
    if (90 - s.lat <= arc) return 1;
    if (s.lat + 90 <= arc) return -1;
    return 0;
}

// The outline of a circle that holds a pole, as the region it covers on the map: every
// meridian from s.lon - 180 to s.lon + 180 meets its edge once, so the edge is drawn west to
// east across the whole map and closed along the pole's line.
std::vector<geo::lonlat> polar_ring(const svg_shape& s, int pole) {
    const double west = s.lon - 180, east = s.lon + 180;
    std::vector<geo::lonlat> ring;
    if (std::abs(s.lat) == 90) {  // bearings mean nothing at the pole: the edge is a parallel
        const double lat = std::max(-90.0, std::min(90.0, pole * (90 - s.metres / geo::earth_radius * 180 / geo::pi)));
        for (int i = 0; i <= 96; ++i) ring.push_back({west + 360.0 * i / 96, lat});
    } else {
        for (int i = 0; i < 96; ++i) {
            geo::lonlat p = destination(s.lon, s.lat, s.metres, 2 * geo::pi * i / 96);
            p.lon = west + std::fmod(std::fmod(p.lon - west, 360) + 360, 360);  // in [west, east)
            ring.push_back(p);
        }
        std::sort(ring.begin(), ring.end(), [](const geo::lonlat& a, const geo::lonlat& b) { return a.lon < b.lon; });
        // The edge where it crosses the map's sides, between its last point and its first.
        const geo::lonlat a = ring.back(), b{ring.front().lon + 360, ring.front().lat};
        const double t = b.lon > a.lon ? (east - a.lon) / (b.lon - a.lon) : 0;
        const double lat = a.lat + t * (b.lat - a.lat);
        ring.insert(ring.begin(), {west, lat});
        ring.push_back({east, lat});
    }
    ring.push_back({east, 90.0 * pole});
    ring.push_back({west, 90.0 * pole});
    return ring;
}

// The circle's outline as a ring of lon/lat points (not wrapped at the antimeridian).
std::vector<geo::lonlat> circle_ring(const svg_shape& s) {
    if (const int pole = pole_held(s)) return polar_ring(s, pole);
    std::vector<geo::lonlat> ring;
    for (int i = 0; i <= 96; ++i) {
        geo::lonlat p = destination(s.lon, s.lat, s.metres, 2 * geo::pi * i / 96);
        if (p.lon - s.lon > 180) p.lon -= 360;
        if (s.lon - p.lon > 180) p.lon += 360;
        ring.push_back(p);
    }
    return ring;
}

// The bounding box of `pts` (longitudes as given, unwrapped or not); the world when empty.
box2 extent_of(const std::vector<geo::lonlat>& pts) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    box2 b{{{inf, inf}}, {{-inf, -inf}}};
    for (const auto& p : pts) {
        b.lo[0] = std::min(b.lo[0], p.lon), b.lo[1] = std::min(b.lo[1], p.lat);
        b.hi[0] = std::max(b.hi[0], p.lon), b.hi[1] = std::max(b.hi[1], p.lat);
    }
    if (b.lo[0] > b.hi[0]) b = box2{{{-180, -90}}, {{180, 90}}};
    return b;
}

// The polygon's rings (each shell followed by its holes) as the query tests them: the area
// comes from io::read_wkt_area, already unwrapped by geo::unwrap_longitudes (one unwrapping
// for queries and pictures), so its rings are drawn as they are. Only each polygon as a
// whole is moved by whole turns to start within 180 degrees of the first one's start, so
// that a multipolygon given in parts either side of lon 180 is drawn in one piece (a
// polygon moved by 360 degrees covers the same places).
std::vector<std::vector<geo::lonlat>> unwrapped_rings(const io::wkt_multi_polygon& area) {
    std::vector<std::vector<geo::lonlat>> rings;
    double reference = 0;
    for (std::size_t k = 0; k < area.size(); ++k) {
        const auto& polygon = area[k];
        if (polygon.outer().empty()) continue;
        const double first = polygon.outer().front().x();
        if (rings.empty()) reference = first;
        const double shift = 360 * std::floor((reference + 180 - first) / 360);  // first + shift in [ref - 180, ref + 180)
        const auto add = [&](const auto& ring) {
            std::vector<geo::lonlat> out;
            for (const auto& p : ring) out.push_back({p.x() + shift, p.y()});
            if (!out.empty()) rings.push_back(std::move(out));
        };
        add(polygon.outer());
        for (const auto& inner : polygon.inners()) add(inner);
    }
    return rings;
}

// The box's outline, east unwrapped past west when the box crosses lon 180.
std::vector<geo::lonlat> box_ring(const svg_shape& s) {
    const double east = s.west > s.east ? s.east + 360 : s.east;
    return {{s.west, s.south}, {east, s.south}, {east, s.north}, {s.west, s.north}};
}

// The region to draw: the shape's extent (unwrapped) grown by half on each side, at most
// 360 degrees of longitude and within [-90, 90] of latitude.
box2 view_of(const svg_shape& shape, const std::vector<geo::lonlat>& locations) {
    box2 e;
    if (shape.type == svg_shape::kind::none) return extent_of(locations);
    if (shape.type == svg_shape::kind::circle) {
        e = extent_of(circle_ring(shape));
    } else if (shape.type == svg_shape::kind::box) {
        e = extent_of(box_ring(shape));
    } else {
        std::vector<geo::lonlat> vertices;  // the rings' vertices bound the (straight-edged) area
        for (const auto& ring : unwrapped_rings(shape.area)) vertices.insert(vertices.end(), ring.begin(), ring.end());
        e = extent_of(vertices);
    }
    const double gx = std::min(std::max((e.hi[0] - e.lo[0]) / 2, 0.01), std::max(0.0, (360 - (e.hi[0] - e.lo[0])) / 2));
    const double gy = std::max((e.hi[1] - e.lo[1]) / 2, 0.01);
    box2 view{{{e.lo[0] - gx, std::max(e.lo[1] - gy, -90.0)}}, {{e.hi[0] + gx, std::min(e.hi[1] + gy, 90.0)}}};
    if (view.hi[0] - view.lo[0] > 360) view.hi[0] = view.lo[0] + 360;
    return view;
}

// The longitude at which `lon` is drawn in `view`: lon, lon - 360 or lon + 360, whichever is
// in [view.lo[0], view.hi[0]]; NaN when none is.
double in_view(double lon, const box2& view) {
    for (double shifted : {lon, lon - 360, lon + 360})
        if (shifted >= view.lo[0] && shifted <= view.hi[0]) return shifted;
    return std::numeric_limits<double>::quiet_NaN();
}

// Draws the leaf cells that meet the view, moved east by `shift` degrees, splitting a cell
// while it counts > leaf_size.
void draw_cells(std::ostream& out, const quadtree<double>& tree, const box2& view, const projection& pr,
                std::size_t leaf_size, double shift) {
    struct item {
        box2 cell;
        int depth;
    };
    std::vector<item> stack{{extent_of({}), 0}};
    if (tree.size() > 0) {
        box2 all{{{tree.bounds().lo[0], tree.bounds().lo[1]}}, {{tree.bounds().hi[0], tree.bounds().hi[1]}}};
        stack = {{all, 0}};
    }
    const box2 unshifted{{{view.lo[0] - shift, view.lo[1]}}, {{view.hi[0] - shift, view.hi[1]}}};
    while (!stack.empty()) {
        const item it = stack.back();
        stack.pop_back();
        if (!meets(it.cell, unshifted)) continue;
        const double w = pr.x(it.cell.hi[0]) - pr.x(it.cell.lo[0]);
        if (it.depth < 24 && w > 2 && tree.count(it.cell) > leaf_size) {
            const double mx = (it.cell.lo[0] + it.cell.hi[0]) / 2, my = (it.cell.lo[1] + it.cell.hi[1]) / 2;
            for (unsigned code = 0; code < 4; ++code) {
                box2 c = it.cell;
                (code & 1u ? c.lo[0] : c.hi[0]) = mx;
                (code & 2u ? c.lo[1] : c.hi[1]) = my;
                stack.push_back({c, it.depth + 1});
            }
            continue;
        }
        out << "<rect x=\"" << num(pr.x(it.cell.lo[0] + shift)) << "\" y=\"" << num(pr.y(it.cell.hi[1])) << "\" width=\""
            << num(w) << "\" height=\"" << num(pr.y(it.cell.lo[1]) - pr.y(it.cell.hi[1])) << "\"/>\n";
    }
}

void draw_ring(std::ostream& out, const std::vector<geo::lonlat>& ring, const projection& pr) {
    out << "M";
    for (std::size_t i = 0; i < ring.size(); ++i)
        out << (i ? " " : "") << num(pr.x(ring[i].lon)) << "," << num(pr.y(ring[i].lat));
    out << "Z";
}

void draw_shape(std::ostream& out, const svg_shape& shape, const projection& pr) {
    if (shape.type == svg_shape::kind::none) return;
    out << "<path fill=\"#e8590c\" fill-opacity=\"0.12\" stroke=\"#e8590c\" stroke-width=\"2\" fill-rule=\"evenodd\" d=\"";
    if (shape.type == svg_shape::kind::circle) {
        draw_ring(out, circle_ring(shape), pr);
    } else if (shape.type == svg_shape::kind::box) {
        draw_ring(out, box_ring(shape), pr);
    } else {
        for (const auto& ring : unwrapped_rings(shape.area)) draw_ring(out, ring, pr);
    }
    out << "\"/>\n";
}

void draw_points(std::ostream& out, const std::vector<geo::lonlat>& locations, const std::vector<std::size_t>& ids,
                 const box2& view, const projection& pr, const char* fill, const char* radius) {
    out << "<g fill=\"" << fill << "\">\n";
    for (std::size_t id : ids) {
        const auto& p = locations[id];
        const double lon = in_view(p.lon, view);
        if (std::isnan(lon) || p.lat < view.lo[1] || p.lat > view.hi[1]) continue;
        out << "<circle cx=\"" << num(pr.x(lon)) << "\" cy=\"" << num(pr.y(p.lat)) << "\" r=\"" << radius << "\"/>\n";
    }
    out << "</g>\n";
}

// Text safe inside an SVG element.
std::string escaped(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '&') out += "&amp;";
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '"') out += "&quot;";
        else if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') out += ' ';  // not XML
        else out += c;
    }
    return out;
}

// The land: every ring of the basemap that meets the view, moved by -360, 0 or 360 degrees.
void draw_basemap(std::ostream& out, const std::vector<std::vector<geo::lonlat>>& rings, const box2& view,
                  const projection& pr) {
    if (rings.empty()) return;
    out << "<path fill=\"#f1eee6\" stroke=\"#a9a39a\" stroke-width=\"0.7\" fill-rule=\"evenodd\" d=\"";
    for (const auto& raw : rings) {
        if (raw.size() < 3) continue;
        // Continuous longitudes along the ring, by the queries' edge rule (an edge more than
        // 180 degrees wide crosses lon 180 the short way), so a ring across lon 180 is not
        // drawn inside out.
        std::vector<geo::lonlat> ring(raw);
        int turns = 0;
        for (std::size_t i = 1; i < ring.size(); ++i) {
            turns += geo::detail::edge_turns(raw[i - 1].lon, raw[i].lon, geo::detail::along_pole(raw[i - 1].lat, raw[i].lat));
            ring[i].lon += 360.0 * turns;
        }
        const box2 b = extent_of(ring);
        for (double shift : {-360.0, 0.0, 360.0}) {
            const box2 moved{{{b.lo[0] + shift, b.lo[1]}}, {{b.hi[0] + shift, b.hi[1]}}};
            if (!meets(moved, view)) continue;
            out << "M";
            for (std::size_t i = 0; i < ring.size(); ++i)
                out << (i ? " " : "") << num(pr.x(ring[i].lon + shift)) << "," << num(pr.y(ring[i].lat));
            out << "Z";
        }
    }
    out << "\"/>\n";
}

// A round step for grid lines about `span / 6` apart (degrees).
double grid_step(double span) {
    for (double step : {0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 45.0, 90.0})
        if (span / step <= 8) return step;
    return 90;
}

// A longitude as a label: 170°E, 175°W, 180°, 0°.
std::string lon_label(double lon) {
    double l = lon - 360 * std::round(lon / 360);  // into [-180, 180]
    if (std::abs(std::abs(l) - 180) < 1e-9) return "180\u00b0";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g\u00b0%s", std::abs(l), l > 1e-9 ? "E" : l < -1e-9 ? "W" : "");
    return buf;
}
std::string lat_label(double lat) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g\u00b0%s", std::abs(lat), lat > 1e-9 ? "N" : lat < -1e-9 ? "S" : "");
    return buf;
}

// Meridians and parallels at round degrees, labelled at the picture's left and bottom
// edges; lon 180 (the antimeridian) dashed in red when it is in the view.
void draw_graticule(std::ostream& out, const box2& view, const projection& pr) {
    const double step = grid_step(std::max(view.hi[0] - view.lo[0], view.hi[1] - view.lo[1]));
    const double w = pr.x(view.hi[0]), h = pr.height();
    out << "<g stroke=\"#c9d3dd\" stroke-width=\"0.6\">\n";
    for (double lon = std::ceil(view.lo[0] / step) * step; lon <= view.hi[0]; lon += step)
        out << "<line x1=\"" << num(pr.x(lon)) << "\" y1=\"0\" x2=\"" << num(pr.x(lon)) << "\" y2=\"" << num(h) << "\"/>\n";
    for (double lat = std::ceil(view.lo[1] / step) * step; lat <= view.hi[1]; lat += step)
        out << "<line x1=\"0\" y1=\"" << num(pr.y(lat)) << "\" x2=\"" << num(w) << "\" y2=\"" << num(pr.y(lat)) << "\"/>\n";
    out << "</g>\n<g font-family=\"sans-serif\" font-size=\"10\" fill=\"#5b6b7a\">\n";
    for (double lon = std::ceil(view.lo[0] / step) * step; lon <= view.hi[0]; lon += step)
        out << "<text x=\"" << num(pr.x(lon) + 2) << "\" y=\"" << num(h - 3) << "\">" << lon_label(lon) << "</text>\n";
    for (double lat = std::ceil(view.lo[1] / step) * step; lat <= view.hi[1]; lat += step)
        out << "<text x=\"2\" y=\"" << num(pr.y(lat) - 2) << "\">" << lat_label(lat) << "</text>\n";
    out << "</g>\n";
    for (double lon : {-540.0, -180.0, 180.0, 540.0})
        if (lon >= view.lo[0] && lon <= view.hi[0])
            out << "<line stroke=\"#c92a2a\" stroke-width=\"1\" stroke-dasharray=\"6 4\" x1=\"" << num(pr.x(lon))
                << "\" y1=\"0\" x2=\"" << num(pr.x(lon)) << "\" y2=\"" << num(h) << "\"/>\n";
}

// A scale bar at the bottom right: a round distance about a fifth of the width, measured
// along the parallel at the view's middle latitude (exact there, approximate elsewhere).
void draw_scale(std::ostream& out, const box2& view, const projection& pr) {
    const double mid = (view.lo[1] + view.hi[1]) / 2;
    const double km_per_degree = geo::earth_radius / 1000 * geo::pi / 180 * std::cos(mid * geo::pi / 180);
    const double degrees_per_px = (view.hi[0] - view.lo[0]) / pr.x(view.hi[0]);
    const double target_km = pr.x(view.hi[0]) / 5 * degrees_per_px * km_per_degree;
    if (!(target_km > 0) || !std::isfinite(target_km) || pr.height() < 40) return;  // no room in a thin strip
    const double base = std::pow(10.0, std::floor(std::log10(target_km)));
    double km = base;
    for (double f : {2.0, 5.0})
        if (base * f <= target_km) km = base * f;
    const double px = km / km_per_degree / degrees_per_px;
    const double x1 = pr.x(view.hi[0]) - px - 14, y = pr.height() - 16;
    char label[64];
    std::snprintf(label, sizeof label, "%g km", km);
    out << "<g font-family=\"sans-serif\" font-size=\"11\"><rect x=\"" << num(x1 - 4) << "\" y=\"" << num(y - 14)
        << "\" width=\"" << num(px + 8) << "\" height=\"20\" fill=\"white\" fill-opacity=\"0.8\"/>"
        << "<line stroke=\"#222\" stroke-width=\"2\" x1=\"" << num(x1) << "\" y1=\"" << num(y) << "\" x2=\""
        << num(x1 + px) << "\" y2=\"" << num(y) << "\"/><text x=\"" << num(x1) << "\" y=\"" << num(y - 4) << "\">"
        << label << "</text></g>\n";
}

// Labels beside the hits' dots, when there are few enough to read.
void draw_labels(std::ostream& out, const std::vector<geo::lonlat>& locations, const std::vector<std::size_t>& hits,
                 const std::vector<std::string>& labels, std::size_t max_labels, const box2& view, const projection& pr) {
    if (labels.empty() || hits.size() > max_labels) return;
    out << "<g font-family=\"sans-serif\" font-size=\"11\" fill=\"#222\" stroke=\"white\" stroke-width=\"3\" "
           "paint-order=\"stroke\">\n";
    for (std::size_t k = 0; k < hits.size() && k < labels.size(); ++k) {
        const auto& p = locations[hits[k]];
        const double lon = in_view(p.lon, view);
        if (std::isnan(lon) || labels[k].empty()) continue;
        out << "<text x=\"" << num(pr.x(lon) + 4) << "\" y=\"" << num(pr.y(p.lat) - 4) << "\">" << escaped(labels[k])
            << "</text>\n";
    }
    out << "</g>\n";
}

}  // namespace

void write_svg(std::ostream& out, const std::vector<geo::lonlat>& locations, const std::vector<std::size_t>& hits,
               const svg_shape& shape, const svg_options& options) {
    if (options.leaf_size == 0) throw std::invalid_argument("quoct svg: leaf size must be at least 1");
    if (!(options.width > 0)) throw std::invalid_argument("quoct svg: width must be positive");
    const box2 view = view_of(shape, locations);
    const projection pr(view, options.width);
    std::vector<point<double, 2>> pts;
    pts.reserve(locations.size());
    for (const auto& p : locations) pts.push_back({{p.lon, p.lat}});
    const quadtree<double> tree(pts);

    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(options.width) << "\" height=\""
        << num(pr.height() + 24) << "\" viewBox=\"0 -24 " << num(options.width) << " " << num(pr.height() + 24)
        << "\">\n<rect x=\"0\" y=\"-24\" width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    out << "<rect x=\"0\" y=\"0\" width=\"" << num(options.width) << "\" height=\"" << num(pr.height())
        << "\" fill=\"#eaf2f8\"/>\n";  // the sea
    draw_basemap(out, options.basemap, view, pr);
    draw_graticule(out, view, pr);
    if (options.cells) {
        out << "<g fill=\"none\" stroke=\"#4a7ab5\" stroke-width=\"0.6\">\n";
        for (double shift : {-360.0, 0.0, 360.0}) draw_cells(out, tree, view, pr, options.leaf_size, shift);
        out << "</g>\n";
    }
    std::vector<std::size_t> all(locations.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    draw_points(out, locations, all, view, pr, "#555", "1.2");
    draw_shape(out, shape, pr);
    draw_points(out, locations, hits, view, pr, "#d6336c", "2.2");
    draw_labels(out, locations, hits, options.labels, options.max_labels, view, pr);
    draw_scale(out, view, pr);
    out << "<text x=\"6\" y=\"-7\" font-family=\"sans-serif\" font-size=\"14\">" << escaped(options.title)
        << "</text>\n</svg>\n";
}

}  // namespace cli
}  // namespace quoct
