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

// `ring` moved east by `shift` degrees.
std::vector<geo::lonlat> shifted(std::vector<geo::lonlat> ring, double shift) {
    for (auto& p : ring) p.lon += shift;
    return ring;
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

// A rectangle of the picture, in pixels.
struct rect {
    double x0, y0, x1, y1;
    bool overlaps(const rect& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

bool overlaps_any(const rect& r, const std::vector<rect>& others) {
    return std::any_of(others.begin(), others.end(), [&](const rect& o) { return r.overlaps(o); });
}

// The width of `text` in a sans-serif font of `size` pixels, estimated (0.6 em a
// character, a little over most fonts' average, so estimated boxes rarely underlap).
double text_width(const std::string& text, double size) {
    std::size_t chars = 0;
    for (char c : text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // UTF-8 code points
    return 0.6 * size * static_cast<double>(chars);
}

// Meridians and parallels at round degrees, labelled at the picture's left and bottom
// edges; lon 180 (the antimeridian) dashed in red when it is in the view. No label goes
// over a `reserved` rectangle (the legend, the scale bar), within 12 px of the top (the
// title is above it), past the right edge, or where the two edges' labels meet (the
// parallels' labels stop 16 px above the bottom). Returns the labels' rectangles.
std::vector<rect> draw_graticule(std::ostream& out, const box2& view, const projection& pr, const std::vector<rect>& reserved) {
    std::vector<rect> labels;
    const double step = grid_step(std::max(view.hi[0] - view.lo[0], view.hi[1] - view.lo[1]));
    const double w = pr.x(view.hi[0]), h = pr.height();
    out << "<g stroke=\"#c9d3dd\" stroke-width=\"0.6\">\n";
    for (double lon = std::ceil(view.lo[0] / step) * step; lon <= view.hi[0]; lon += step)
        out << "<line x1=\"" << num(pr.x(lon)) << "\" y1=\"0\" x2=\"" << num(pr.x(lon)) << "\" y2=\"" << num(h) << "\"/>\n";
    for (double lat = std::ceil(view.lo[1] / step) * step; lat <= view.hi[1]; lat += step)
        out << "<line x1=\"0\" y1=\"" << num(pr.y(lat)) << "\" x2=\"" << num(w) << "\" y2=\"" << num(pr.y(lat)) << "\"/>\n";
    out << "</g>\n<g font-family=\"sans-serif\" font-size=\"10\" fill=\"#5b6b7a\">\n";
    for (double lon = std::ceil(view.lo[0] / step) * step; lon <= view.hi[0]; lon += step) {
        const std::string label = lon_label(lon);
        const rect r{pr.x(lon) + 2, h - 12, pr.x(lon) + 2 + text_width(label, 10), h};
        if (r.x1 > w || overlaps_any(r, reserved)) continue;
        labels.push_back(r);
        out << "<text x=\"" << num(r.x0) << "\" y=\"" << num(h - 3) << "\">" << label << "</text>\n";
    }
    for (double lat = std::ceil(view.lo[1] / step) * step; lat <= view.hi[1]; lat += step) {
        const std::string label = lat_label(lat);
        const rect r{2, pr.y(lat) - 11, 2 + text_width(label, 10), pr.y(lat)};
        if (r.y0 < 12 || r.y1 > h - 16 || overlaps_any(r, reserved)) continue;
        labels.push_back(r);
        out << "<text x=\"2\" y=\"" << num(pr.y(lat) - 2) << "\">" << label << "</text>\n";
    }
    out << "</g>\n";
    for (double lon : {-540.0, -180.0, 180.0, 540.0})
        if (lon >= view.lo[0] && lon <= view.hi[0])
            out << "<line stroke=\"#c92a2a\" stroke-width=\"1\" stroke-dasharray=\"6 4\" x1=\"" << num(pr.x(lon))
                << "\" y1=\"0\" x2=\"" << num(pr.x(lon)) << "\" y2=\"" << num(h) << "\"/>\n";
    return labels;
}

// A scale bar at the bottom right: a round distance about a fifth of the width, measured
// along the parallel at the view's middle latitude (exact there, approximate elsewhere).
struct scale_bar {
    double x1 = 0, y = 0, px = 0;
    std::string label;
    bool shown() const { return px > 0; }
    rect area() const { return {x1 - 4, y - 14, x1 + px + 4, y + 6}; }
};

scale_bar scale_of(const box2& view, const projection& pr) {
    const double mid = (view.lo[1] + view.hi[1]) / 2;
    const double km_per_degree = geo::earth_radius / 1000 * geo::pi / 180 * std::cos(mid * geo::pi / 180);
    const double degrees_per_px = (view.hi[0] - view.lo[0]) / pr.x(view.hi[0]);
    const double target_km = pr.x(view.hi[0]) / 5 * degrees_per_px * km_per_degree;
    if (!(target_km > 0) || !std::isfinite(target_km) || pr.height() < 40) return {};  // no room in a thin strip
    const double base = std::pow(10.0, std::floor(std::log10(target_km)));
    double km = base;
    for (double f : {2.0, 5.0})
        if (base * f <= target_km) km = base * f;
    scale_bar bar;
    bar.px = km / km_per_degree / degrees_per_px;
    bar.x1 = pr.x(view.hi[0]) - bar.px - 14;
    bar.y = pr.height() - 16;
    char label[64];
    std::snprintf(label, sizeof label, "%g km", km);
    bar.label = label;
    return bar;
}

void draw_scale(std::ostream& out, const scale_bar& bar) {
    if (!bar.shown()) return;
    const rect r = bar.area();
    out << "<g font-family=\"sans-serif\" font-size=\"11\"><rect x=\"" << num(r.x0) << "\" y=\"" << num(r.y0)
        << "\" width=\"" << num(r.x1 - r.x0) << "\" height=\"" << num(r.y1 - r.y0) << "\" fill=\"white\" fill-opacity=\"0.8\"/>"
        << "<line stroke=\"#222\" stroke-width=\"2\" x1=\"" << num(bar.x1) << "\" y1=\"" << num(bar.y) << "\" x2=\""
        << num(bar.x1 + bar.px) << "\" y2=\"" << num(bar.y) << "\"/><text x=\"" << num(bar.x1) << "\" y=\"" << num(bar.y - 4)
        << "\">" << bar.label << "</text></g>\n";
}

// One line of the legend: a dot, an outline or a filled swatch in `colour`, then text.
struct legend_item {
    enum class mark { dot, outline, swatch } kind;
    std::string colour, text;
};

// A label to place: its text, where its anchor is, and its rank (larger first).
struct label_candidate {
    std::string text;
    double x, y, rank;
    bool centred;  // centred on (x, y); else starting at (x + 4, y - 4), beside a dot
};

// The legend's box, with `note` as a last line of its own: in the corner of the map, of
// those it fits in, that holds the fewest label anchors (top right on a tie; the bottom corners clear of the
// degree labels, the bottom right of the scale bar too).
rect legend_area(const std::vector<legend_item>& items, const std::string& note, double width, double height,
                 const std::vector<label_candidate>& labels) {
    double text = note.empty() ? 0 : text_width(note, 10) - 20;
    for (const auto& item : items) text = std::max(text, text_width(item.text, 11));
    const double w = text + 34, h = 16.0 * static_cast<double>(items.size() + (note.empty() ? 0 : 1)) + 10;
    const rect corners[] = {{width - 8 - w, 8, width - 8, 8 + h},
                            {8, 8, 8 + w, 8 + h},
                            {8, height - 22 - h, 8 + w, height - 22},
                            {width - 8 - w, height - 40 - h, width - 8, height - 40}};
    const rect* best = &corners[0];
    std::size_t fewest = labels.size() + 1;
    for (const rect& r : corners) {
        if (r.y0 < 0 || r.y1 > height - 8) continue;  // no room there
        std::size_t n = 0;
        for (const auto& c : labels) n += c.x >= r.x0 && c.x <= r.x1 && c.y >= r.y0 && c.y <= r.y1;
        if (n < fewest) fewest = n, best = &r;
    }
    return *best;
}

void draw_legend(std::ostream& out, const std::vector<legend_item>& items, const std::string& note, const rect& box) {
    if (items.empty()) return;
    out << "<g font-family=\"sans-serif\" font-size=\"11\" fill=\"#222\">\n<rect x=\"" << num(box.x0) << "\" y=\""
        << num(box.y0) << "\" width=\"" << num(box.x1 - box.x0) << "\" height=\"" << num(box.y1 - box.y0)
        << "\" fill=\"white\" fill-opacity=\"0.9\" stroke=\"#a9a39a\" stroke-width=\"0.7\"/>\n";
    double y = box.y0 + 17;
    for (const auto& item : items) {
        const double x = box.x0 + 10;
        if (item.kind == legend_item::mark::dot)
            out << "<circle cx=\"" << num(x + 6) << "\" cy=\"" << num(y - 4) << "\" r=\"3\" fill=\"" << item.colour << "\"/>";
        else
            out << "<rect x=\"" << num(x) << "\" y=\"" << num(y - 10) << "\" width=\"12\" height=\"11\" fill=\""
                << (item.kind == legend_item::mark::swatch ? item.colour : "none") << "\" stroke=\""
                << (item.kind == legend_item::mark::swatch ? "#8a8580" : item.colour) << "\" stroke-width=\""
                << (item.kind == legend_item::mark::swatch ? "0.6" : "2") << "\"/>";
        out << "<text x=\"" << num(x + 20) << "\" y=\"" << num(y) << "\">" << escaped(item.text) << "</text>\n";
        y += 16;
    }
    if (!note.empty())
        out << "<text x=\"" << num(box.x0 + 10) << "\" y=\"" << num(y) << "\" font-size=\"10\" fill=\"#5b6b7a\">"
            << escaped(note) << "</text>\n";
    out << "</g>\n";
}

// Places labels largest rank first (NaN last, ties in the given order), each only where it
// overlaps no label placed before it, no `reserved` rectangle and no edge of the map, at
// most `most` of them; writes the placed ones.
void place_labels(std::ostream& out, std::vector<label_candidate> candidates, std::size_t most,
                  const std::vector<rect>& reserved, double width, double height) {
    std::stable_sort(candidates.begin(), candidates.end(), [](const label_candidate& a, const label_candidate& b) {
        if (std::isnan(a.rank) || std::isnan(b.rank)) return !std::isnan(a.rank) && std::isnan(b.rank);
        return a.rank > b.rank;
    });
    std::vector<rect> placed;
    out << "<g font-family=\"sans-serif\" font-size=\"11\" fill=\"#222\" stroke=\"white\" stroke-width=\"3\" "
           "paint-order=\"stroke\">\n";
    for (const auto& c : candidates) {
        if (placed.size() >= most) break;
        if (c.text.empty() || !std::isfinite(c.x) || !std::isfinite(c.y)) continue;
        const double w = text_width(c.text, 11);
        const double x = c.centred ? c.x - w / 2 : c.x + 4, y = c.centred ? c.y + 4 : c.y - 4;  // the baseline
        const rect r{x - 1, y - 10, x + w + 1, y + 3};
        if (r.x0 < 0 || r.x1 > width || r.y0 < 0 || r.y1 > height || overlaps_any(r, placed) || overlaps_any(r, reserved))
            continue;
        placed.push_back(r);
        out << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\">" << escaped(c.text) << "</text>\n";
    }
    out << "</g>\n";
}

// --- choropleths ---------------------------------------------------------------------

// The classes of the positive counts: each class's largest count, increasing (quantile
// breaks: class c of k ends at the count ranked ceil(c n / k) of the n positive ones;
// classes that would end at the same count are one).
std::vector<std::size_t> class_ends(std::vector<std::size_t> counts, std::size_t classes) {
    counts.erase(std::remove(counts.begin(), counts.end(), std::size_t{0}), counts.end());
    std::sort(counts.begin(), counts.end());
    std::vector<std::size_t> ends;
    const std::size_t n = counts.size();
    for (std::size_t c = 1; c <= classes && n > 0; ++c) {
        const std::size_t end = counts[(c * n + classes - 1) / classes - 1];
        if (ends.empty() || end > ends.back()) ends.push_back(end);
    }
    return ends;
}

// The fill of class c of k (0-based): k shades spread over one yellow-to-red ramp.
const char* class_colour(std::size_t c, std::size_t k) {
    static const char* const ramp[] = {"#ffffb2", "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a", "#e31a1c", "#b10026"};
    return ramp[k <= 1 ? 4 : (c * 6 + (k - 1) / 2) / (k - 1)];
}
const char* const zero_colour = "#ffffff";

std::string with_thousands(std::size_t v) {
    const std::string digits = std::to_string(v);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

// The view of a choropleth: its polygons' extent, a little grown; lon -180 to 180 when
// that is over 300 degrees wide (polygons across lon 180 are drawn on both sides).
box2 view_of_areas(const std::vector<io::wkt_multi_polygon>& areas) {
    std::vector<geo::lonlat> vertices;
    for (const auto& area : areas)
        for (const auto& ring : unwrapped_rings(area)) vertices.insert(vertices.end(), ring.begin(), ring.end());
    const box2 e = extent_of(vertices);
    const double gx = std::max((e.hi[0] - e.lo[0]) * 0.02, 0.01), gy = std::max((e.hi[1] - e.lo[1]) * 0.02, 0.01);
    box2 view{{{e.lo[0] - gx, std::max(e.lo[1] - gy, -90.0)}}, {{e.hi[0] + gx, std::min(e.hi[1] + gy, 90.0)}}};
    if (view.hi[0] - view.lo[0] > 300) view.lo[0] = -180, view.hi[0] = 180;  // (nearly) the whole world: as maps draw it
    return view;
}

// The area-weighted middle of the largest ring of `rings` (shoelace, in degrees), where a
// polygon's label goes; NaN when every ring is degenerate.
geo::lonlat label_point(const std::vector<std::vector<geo::lonlat>>& rings) {
    double best = 0;
    geo::lonlat at{std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
    for (const auto& ring : rings) {
        double a = 0, cx = 0, cy = 0;
        for (std::size_t i = 0; i < ring.size(); ++i) {
            const geo::lonlat& p = ring[i];
            const geo::lonlat& q = ring[(i + 1) % ring.size()];
            const double cross = p.lon * q.lat - q.lon * p.lat;
            a += cross, cx += (p.lon + q.lon) * cross, cy += (p.lat + q.lat) * cross;
        }
        if (std::abs(a) > best) best = std::abs(a), at = {cx / (3 * a), cy / (3 * a)};
    }
    return at;
}

// The choropleth's polygons filled by class, and its labels' candidates; the legend's lines.
std::vector<legend_item> draw_choropleth(std::ostream& out, const svg_choropleth& map, const box2& view,
                                         const projection& pr, std::vector<label_candidate>& labels) {
    const std::vector<std::size_t> ends = class_ends(map.counts, map.classes);
    out << "<g stroke=\"#6b6660\" stroke-width=\"0.5\" fill-rule=\"evenodd\">\n";
    for (std::size_t f = 0; f < map.areas.size(); ++f) {
        const auto rings = unwrapped_rings(map.areas[f]);
        if (rings.empty()) continue;
        const std::size_t count = map.counts[f];
        const auto c = static_cast<std::size_t>(std::lower_bound(ends.begin(), ends.end(), count) - ends.begin());
        const char* fill = count == 0 ? zero_colour : class_colour(c, ends.size());
        std::vector<geo::lonlat> all;
        for (const auto& ring : rings) all.insert(all.end(), ring.begin(), ring.end());
        const box2 b = extent_of(all);
        const geo::lonlat middle = label_point(rings);
        for (double shift : {-360.0, 0.0, 360.0}) {
            const box2 moved{{{b.lo[0] + shift, b.lo[1]}}, {{b.hi[0] + shift, b.hi[1]}}};
            if (!meets(moved, view)) continue;
            out << "<path data-count=\"" << count << "\" fill=\"" << fill << "\" d=\"";
            for (const auto& ring : rings) draw_ring(out, shifted(ring, shift), pr);
            out << "\"/>\n";
            const double lon = middle.lon + shift;
            if (f < map.names.size() && !map.names[f].empty() && lon >= view.lo[0] && lon <= view.hi[0])
                labels.push_back({map.names[f] + " " + with_thousands(count), pr.x(lon), pr.y(middle.lat),
                                  static_cast<double>(count), true});
        }
    }
    out << "</g>\n";
    // The legend: the classes, most first, each from one more than the class below it ends
    // (the first from the smallest positive count), then 0 when a polygon has none.
    std::size_t smallest = 0;
    for (std::size_t v : map.counts)
        if (v > 0 && (smallest == 0 || v < smallest)) smallest = v;
    std::vector<legend_item> legend;
    for (std::size_t c = ends.size(); c-- > 0;) {
        const std::size_t first = c == 0 ? smallest : ends[c - 1] + 1;
        legend.push_back({legend_item::mark::swatch, class_colour(c, ends.size()),
                          first == ends[c] ? with_thousands(first)
                                           : with_thousands(first) + " \u2013 " + with_thousands(ends[c])});
    }
    if (std::find(map.counts.begin(), map.counts.end(), std::size_t{0}) != map.counts.end())
        legend.push_back({legend_item::mark::swatch, zero_colour, "0"});
    return legend;
}

}  // namespace

void write_svg(std::ostream& out, const std::vector<geo::lonlat>& locations, const std::vector<std::size_t>& hits,
               const svg_shape& shape, const svg_options& options) {
    if (options.leaf_size == 0) throw std::invalid_argument("quoct svg: leaf size must be at least 1");
    if (!(options.width > 0)) throw std::invalid_argument("quoct svg: width must be positive");
    const svg_choropleth& map = options.choropleth;
    const bool choropleth = !map.areas.empty();
    if (choropleth && (map.classes < 1 || map.classes > 7))
        throw std::invalid_argument("quoct svg: the number of classes must be 1 to 7");
    if (choropleth && (map.counts.size() != map.areas.size() || (!map.names.empty() && map.names.size() != map.areas.size())))
        throw std::invalid_argument("quoct svg: a choropleth needs one count (and one name, if any) per polygon");
    const box2 view = choropleth ? view_of_areas(map.areas) : view_of(shape, locations);
    const projection pr(view, options.width);
    const double h = pr.height();

    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(options.width) << "\" height=\""
        << num(h + 24) << "\" viewBox=\"0 -24 " << num(options.width) << " " << num(h + 24)
        << "\">\n<rect x=\"0\" y=\"-24\" width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    out << "<rect x=\"0\" y=\"0\" width=\"" << num(options.width) << "\" height=\"" << num(h)
        << "\" fill=\"#eaf2f8\"/>\n";  // the sea
    draw_basemap(out, options.basemap, view, pr);

    std::vector<label_candidate> labels;
    std::vector<legend_item> legend;
    if (choropleth) {
        legend = draw_choropleth(out, map, view, pr, labels);
    } else {
        legend.push_back({legend_item::mark::dot, "#d6336c", "hits: " + with_thousands(hits.size())});
        legend.push_back({legend_item::mark::dot, "#555", "points: " + with_thousands(locations.size())});
        if (shape.type != svg_shape::kind::none) legend.push_back({legend_item::mark::outline, "#e8590c", "query"});
        if (options.cells) legend.push_back({legend_item::mark::outline, "#4a7ab5", "quadtree cells"});
    }
    if (!choropleth)
        for (std::size_t k = 0; k < hits.size() && k < options.labels.size(); ++k) {
            const auto& p = locations[hits[k]];
            const double lon = in_view(p.lon, view);
            const double rank = k < options.label_rank.size() ? options.label_rank[k] : 0.0;
            labels.push_back({options.labels[k], pr.x(lon), pr.y(p.lat), rank, false});
        }
    // The legend and the scale bar are placed first: the graticule's and the hits' labels
    // keep off them. A legend taller than the map is left out.
    const scale_bar bar = scale_of(view, pr);
    const rect legend_box = legend_area(legend, options.label_note, options.width, h, labels);
    const bool legend_fits = legend_box.x0 > 0 && legend_box.y0 > 0 && legend_box.y1 < h - 8;
    std::vector<rect> reserved;
    if (legend_fits) reserved.push_back(legend_box);
    if (bar.shown()) reserved.push_back(bar.area());
    const std::vector<rect> degree_labels = draw_graticule(out, view, pr, reserved);
    reserved.insert(reserved.end(), degree_labels.begin(), degree_labels.end());

    if (!choropleth) {
        std::vector<point<double, 2>> pts;
        pts.reserve(locations.size());
        for (const auto& p : locations) pts.push_back({{p.lon, p.lat}});
        if (options.cells) {
            const quadtree<double> tree(pts);
            out << "<g fill=\"none\" stroke=\"#4a7ab5\" stroke-width=\"0.6\">\n";
            for (double shift : {-360.0, 0.0, 360.0}) draw_cells(out, tree, view, pr, options.leaf_size, shift);
            out << "</g>\n";
        }
        std::vector<std::size_t> all(locations.size());
        for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
        draw_points(out, locations, all, view, pr, "#555", "1.2");
        draw_shape(out, shape, pr);
        draw_points(out, locations, hits, view, pr, "#d6336c", "2.2");
    }
    place_labels(out, std::move(labels), options.max_labels, reserved, options.width, h);
    if (legend_fits) draw_legend(out, legend, options.label_note, legend_box);
    draw_scale(out, bar);
    out << "<text x=\"6\" y=\"-7\" font-family=\"sans-serif\" font-size=\"14\">" << escaped(options.title)
        << "</text>\n</svg>\n";
}

}  // namespace cli
}  // namespace quoct
