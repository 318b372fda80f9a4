// quoct::io: GeoJSON Polygon and MultiPolygon geometries into plain rings of lon/lat.
#include "quoct/io/geojson_polygons.hpp"

#include <algorithm>
#include <istream>
#include <unordered_map>
#include <vector>
#include <string>

#include <nlohmann/json.hpp>

#include "geojson_crs.hpp"
#include "ordered_json.hpp"

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
    detail::check_crs(doc, source);
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

std::size_t polygon_layer::find_column(const std::string& name) const noexcept {
    for (std::size_t c = 0; c < columns.size(); ++c)
        if (columns[c] == name) return c;
    return columns.size();
}

std::string polygon_layer::describe(std::size_t f) const {
    const polygon_feature& feature = features[f];
    std::string out = "feature " + std::to_string(feature.number);
    std::vector<std::string> notes;
    if (!feature.id.empty()) notes.push_back("id " + feature.id);
    std::size_t name = find_column("name");
    if (name == columns.size()) name = find_column("NAME");
    for (std::size_t c = 0; c < columns.size() && name == columns.size(); ++c)
        if (c < feature.kinds.size() && feature.kinds[c] == value_kind::text) name = c;
    if (name < feature.values.size() && !feature.values[name].empty())
        notes.push_back(columns[name] + " " + feature.values[name]);
    for (std::size_t i = 0; i < notes.size(); ++i) out += (i == 0 ? " (" : ", ") + notes[i];
    return out + (notes.empty() ? "" : ")");
}

polygon_layer read_geojson_polygon_layer(std::istream& in, const std::string& source) {
    using ojson = nlohmann::ordered_json;
    ojson doc;
    try {
        doc = detail::parse_ordered_json(in);
    } catch (const nlohmann::json::exception& e) {
        throw parse_error(source, 0, std::string("invalid JSON: ") + e.what());
    }
    detail::check_crs(doc, source);
    polygon_layer layer;
    layer.source = source;
    std::unordered_map<std::string, std::size_t> column_of;
    // Adds one feature (a Feature object, or a bare geometry when `bare`).
    const auto add = [&](const ojson& object, std::size_t number, bool bare) {
        polygon_feature f;
        f.number = number;
        const ojson* geometry = &object;
        if (!bare) {
            const auto id = object.find("id");
            if (id != object.end() && !id->is_null()) f.id = id->dump();
            const auto properties = object.find("properties");
            if (properties != object.end() && properties->is_object())
                for (const auto& item : properties->items()) {
                    const auto c = column_of.emplace(item.key(), layer.columns.size());
                    if (c.second) layer.columns.push_back(item.key());
                    const ojson& v = item.value();
                    if (f.values.size() <= c.first->second) {
                        f.values.resize(c.first->second + 1);
                        f.kinds.resize(c.first->second + 1, value_kind::missing);
                    }
                    f.values[c.first->second] = v.is_string() ? v.get<std::string>() : v.is_null() ? "" : v.dump();
                    f.kinds[c.first->second] =
                        v.is_string() ? value_kind::text : v.is_null() ? value_kind::null : value_kind::json;
                }
            const auto g = object.find("geometry");
            if (g == object.end()) {
                layer.features.push_back(std::move(f));
                throw parse_error(source, 0, layer.describe(layer.features.size() - 1) + " has no \"geometry\"");
            }
            geometry = &*g;
        }
        f.geometry = geometry->dump();
        layer.features.push_back(std::move(f));
        if (geometry->is_null()) return;
        // The rings through the plain reader's checks, the feature named in its errors.
        const json plain = json::parse(layer.features.back().geometry);
        add_geometry(plain, bare ? "" : layer.describe(layer.features.size() - 1), source, layer.features.back().polygons);
    };
    const auto type = doc.is_object() ? doc.find("type") : doc.end();
    const std::string kind = type != doc.end() && type->is_string() ? type->get<std::string>() : "";
    if (kind == "Feature") {
        add(doc, 1, false);
    } else if (kind == "FeatureCollection") {
        const auto features = doc.find("features");
        if (features == doc.end() || !features->is_array())
            throw parse_error(source, 0, "the FeatureCollection has no \"features\" array");
        for (std::size_t i = 0; i < features->size(); ++i) {
            const ojson& feature = (*features)[i];
            if (!feature.is_object() || feature.value("type", ojson()) != "Feature")
                throw parse_error(source, 0, "feature " + std::to_string(i + 1) + ": not a Feature");
            add(feature, i + 1, false);
        }
    } else {
        add(doc, 1, true);
    }
    for (polygon_feature& f : layer.features) {
        f.values.resize(layer.columns.size());
        f.kinds.resize(layer.columns.size(), value_kind::missing);
    }
    return layer;
}

std::pair<std::string, value_kind> feature_id_of(const polygon_layer& layer, std::size_t f) {
    const std::string& id = layer.features[f].id;
    if (id.empty()) return {std::to_string(layer.features[f].number), value_kind::json};
    if (id.front() == '"') return {json::parse(id).get<std::string>(), value_kind::text};
    return {id, value_kind::json};
}

std::vector<std::string> join_column_names(const polygon_layer& layer, const std::vector<std::size_t>& columns) {
    std::vector<std::string> names{"polygon_id"};
    for (std::size_t c : columns) {
        const std::string base = "polygon_" + layer.columns[c];
        std::string name = base;
        for (std::size_t n = 2; std::find(names.begin(), names.end(), name) != names.end(); ++n)
            name = base + "_" + std::to_string(n);
        names.push_back(name);
    }
    return names;
}

void write_polygon_counts(std::ostream& out, const polygon_layer& layer, const std::vector<std::size_t>& features,
                          const std::vector<std::size_t>& counts, const std::vector<std::size_t>& columns,
                          output_format format) {
    std::vector<std::string> header = join_column_names(layer, columns);
    const std::vector<std::string> names = header;
    header.push_back(std::find(names.begin(), names.end(), "count") == names.end() ? "count" : "count_2");
    if (format != output_format::geojson) {
        std::vector<std::vector<std::string>> cells{header};
        for (std::size_t i = 0; i < features.size(); ++i) {
            std::vector<std::string> row{feature_id_of(layer, features[i]).first};
            for (std::size_t c : columns) row.push_back(layer.features[features[i]].values[c]);
            row.push_back(std::to_string(counts[i]));
            cells.push_back(std::move(row));
        }
        write_rows(out, cells, format);
        return;
    }
    using ojson = nlohmann::ordered_json;
    out << "{\"type\":\"FeatureCollection\",\"features\":[";
    for (std::size_t i = 0; i < features.size(); ++i) {
        const polygon_feature& f = layer.features[features[i]];
        ojson feature = {{"type", "Feature"}};
        if (!f.id.empty()) feature["id"] = ojson::parse(f.id);
        feature["geometry"] = ojson::parse(f.geometry);
        ojson properties = ojson::object();
        const auto id = feature_id_of(layer, features[i]);
        properties[names[0]] = id.second == value_kind::text ? ojson(id.first) : ojson::parse(id.first);
        for (std::size_t k = 0; k < columns.size(); ++k) {
            const std::size_t c = columns[k];
            const std::string& name = names[k + 1];
            switch (f.kinds[c]) {
            case value_kind::missing: break;
            case value_kind::null: properties[name] = nullptr; break;
            case value_kind::json: properties[name] = ojson::parse(f.values[c]); break;
            case value_kind::text: properties[name] = f.values[c]; break;
            }
        }
        properties[header.back()] = counts[i];
        feature["properties"] = std::move(properties);
        out << (i > 0 ? ",\n" : "\n") << feature.dump(-1, ' ', false, json::error_handler_t::replace);
    }
    out << "\n]}\n";
}

}  // namespace io
}  // namespace quoct
