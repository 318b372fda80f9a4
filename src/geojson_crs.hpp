// quoct::io internals: the GeoJSON 2008 "crs" member, checked by every GeoJSON reader (not
// installed).
#ifndef QUOCT_SRC_GEOJSON_CRS_HPP
#define QUOCT_SRC_GEOJSON_CRS_HPP

#include <cctype>
#include <string>

#include <quoct/io/csv.hpp>

namespace quoct {
namespace io {
namespace detail {

/// True when `name` (a named crs, any letter case) is WGS 84 with longitude first: CRS84 in
/// its URN and URL forms, or EPSG:4326, whose official axis order is latitude first but
/// which GDAL and the GeoJSON 2008 examples write longitude first all the same.
inline bool lonlat_crs_name(const std::string& name) {
    static const char* const accepted[] = {
        "urn:ogc:def:crs:OGC:1.3:CRS84", "urn:ogc:def:crs:OGC::CRS84",  "http://www.opengis.net/def/crs/OGC/1.3/CRS84",
        "EPSG:4326",                     "urn:ogc:def:crs:EPSG::4326", "http://www.opengis.net/def/crs/EPSG/0/4326"};
    const auto lower = [](std::string s) {
        for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    for (const char* a : accepted)
        if (lower(name) == lower(a)) return true;
    return false;
}

/// Checks the top-level "crs" member of a GeoJSON document `doc` (nlohmann json or
/// ordered_json) read from `source`: none, null, or a named crs lonlat_crs_name accepts.
/// RFC 7946 dropped the member (its coordinates are always WGS 84 lon/lat), but files in the
/// 2008 form still carry it, and projected metres must not be read as degrees. Throws
/// parse_error naming the crs otherwise.
template <class Json>
void check_crs(const Json& doc, const std::string& source) {
    if (!doc.is_object()) return;
    const auto crs = doc.find("crs");
    if (crs == doc.end() || crs->is_null()) return;
    std::string name = crs->dump();
    if (crs->is_object() && crs->value("type", Json()) == "name") {
        const auto properties = crs->find("properties");
        if (properties != crs->end() && properties->is_object()) {
            const auto n = properties->find("name");
            if (n != properties->end() && n->is_string()) name = n->template get<std::string>();
        }
    }
    if (lonlat_crs_name(name)) return;
    throw parse_error(source, 0,
                      "crs " + name + " is not WGS 84 longitude/latitude; reproject first, e.g. ogr2ogr -t_srs EPSG:4326");
}

}  // namespace detail
}  // namespace io
}  // namespace quoct

#endif  // QUOCT_SRC_GEOJSON_CRS_HPP
