// quoct::io: GeoJSON Polygon and MultiPolygon geometries into plain rings of lon/lat.
#include "quoct/io/geojson_polygons.hpp"

#include <istream>
#include <string>

#include <nlohmann/json.hpp>

namespace quoct {
namespace io {

namespace {

using json = nlohmann::json;

std::string kind_of(const json& geometry) {
    if (!geometry.is_object()) return std::string("a JSON ") + geometry.type_name();
    const auto type = geometry.find("type");
    return type != geometry.end() && type->is_string() ? "a " + type->get<std::string>() : "an object without a \"type\"";
}

// The rings of one polygon: an array of rings, each an array of [lon, lat(, alt)] positions.
std::vector<std::vector<geo::lonlat>> polygon_of(const json& rings, const std::string& path, const std::string& source) {
    if (!rings.is_array()) throw parse_error(source, 0, path + ": not an array of rings");
    std::vector<std::vector<geo::lonlat>> out;
    for (std::size_t r = 0; r < rings.size(); ++r) {
        const std::string ring_path = path + "[" + std::to_string(r) + "]";
        if (!rings[r].is_array()) throw parse_error(source, 0, ring_path + ": not an array of positions");
        out.emplace_back();
        for (std::size_t i = 0; i < rings[r].size(); ++i) {
            const json& p = rings[r][i];
            if (!p.is_array() || p.size() < 2 || p.size() > 3 || !p[0].is_number() || !p[1].is_number() ||
                (p.size() == 3 && !p[2].is_number()))
                throw parse_error(source, 0, ring_path + "[" + std::to_string(i) + "]: not a [lon, lat] position");
            out.back().push_back({p[0].get<double>(), p[1].get<double>()});
        }
    }
    return out;
}

// Appends the polygons of a Polygon or MultiPolygon geometry; `where` prefixes errors.
void add_geometry(const json& geometry, const std::string& where, const std::string& source, lonlat_polygons& out) {
    const std::string kind = kind_of(geometry);
    if (kind != "a Polygon" && kind != "a MultiPolygon") {
        const std::string message = where.empty() ? "not a GeoJSON Polygon or MultiPolygon (" + kind + ")"
                                                  : where + ": geometry is " + kind + ", not a Polygon or MultiPolygon";
        throw parse_error(source, 0, message);
    }
    const std::string path = (where.empty() ? "" : where + ".geometry.") + "coordinates";
    const auto coordinates = geometry.find("coordinates");
    if (coordinates == geometry.end() || !coordinates->is_array()) throw parse_error(source, 0, path + ": missing or not an array");
    if (kind == "a Polygon") {
        out.push_back(polygon_of(*coordinates, path, source));
        return;
    }
    for (std::size_t p = 0; p < coordinates->size(); ++p)
        out.push_back(polygon_of((*coordinates)[p], path + "[" + std::to_string(p) + "]", source));
}

void add_feature(const json& feature, const std::string& where, const std::string& source, lonlat_polygons& out) {
    const auto geometry = feature.find("geometry");
    if (geometry == feature.end()) throw parse_error(source, 0, (where.empty() ? "the Feature" : where) + " has no \"geometry\"");
    if (geometry->is_null() && !where.empty()) return;  // a feature of a collection without a location
    add_geometry(*geometry, where.empty() ? "the Feature" : where, source, out);
}

}  // namespace

lonlat_polygons read_geojson_polygons(std::istream& in, const std::string& source) {
    json doc;
    try {
        doc = json::parse(in);
    } catch (const json::exception& e) {
        throw parse_error(source, 0, std::string("invalid JSON: ") + e.what());
    }
    lonlat_polygons out;
    const std::string kind = kind_of(doc);
    if (kind == "a Feature") {
        add_feature(doc, "", source, out);
    } else if (kind == "a FeatureCollection") {
        const auto features = doc.find("features");
        if (features == doc.end() || !features->is_array())
            throw parse_error(source, 0, "the FeatureCollection has no \"features\" array");
        for (std::size_t i = 0; i < features->size(); ++i) {
            const std::string where = "features[" + std::to_string(i) + "]";
            if (kind_of((*features)[i]) != "a Feature") throw parse_error(source, 0, where + ": not a Feature");
            add_feature((*features)[i], where, source, out);
        }
    } else {
        add_geometry(doc, "", source, out);
    }
    return out;
}

}  // namespace io
}  // namespace quoct
