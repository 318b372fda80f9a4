// quoct::io::gdal: vector sources read and written through GDAL/OGR's C API (see the header).
#include "quoct/io/gdal.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <unistd.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_vsi.h>
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>

#include <nlohmann/json.hpp>

namespace quoct {
namespace io {
namespace gdal {

namespace {

using json = nlohmann::json;

void register_drivers() {
    static std::once_flag once;
    std::call_once(once, [] { GDALAllRegister(); });
}

// GDAL's messages go to the thread's error state only, not to stderr, while one lives.
struct quiet_errors {
    quiet_errors() {
        CPLPushErrorHandler(CPLQuietErrorHandler);
        CPLErrorReset();
    }
    ~quiet_errors() { CPLPopErrorHandler(); }
    quiet_errors(const quiet_errors&) = delete;
    quiet_errors& operator=(const quiet_errors&) = delete;
};

// GDAL's last message on this thread, as ": message", or "" when it left none.
std::string gdal_says() {
    const char* message = CPLGetLastErrorMsg();
    return message != nullptr && *message != '\0' ? std::string(": ") + message : std::string();
}

// GDAL's handles owned: each freed by its own function.
template <auto Free>
struct freer {
    template <class Handle>
    void operator()(Handle h) const noexcept {
        Free(h);
    }
};
using dataset_ptr = std::unique_ptr<std::remove_pointer_t<GDALDatasetH>, freer<&GDALClose>>;
using feature_ptr = std::unique_ptr<std::remove_pointer_t<OGRFeatureH>, freer<&OGR_F_Destroy>>;
using geometry_ptr = std::unique_ptr<std::remove_pointer_t<OGRGeometryH>, freer<&OGR_G_DestroyGeometry>>;
using srs_ptr = std::unique_ptr<std::remove_pointer_t<OGRSpatialReferenceH>, freer<&OSRRelease>>;
using transform_ptr =
    std::unique_ptr<std::remove_pointer_t<OGRCoordinateTransformationH>, freer<&OCTDestroyCoordinateTransformation>>;

// A source held in memory, as a /vsimem/ file for as long as this lives.
class memory_file {
public:
    explicit memory_file(const std::string& bytes) {
        static std::atomic<unsigned long> serial{0};
        path_ = "/vsimem/quoct-" + std::to_string(::getpid()) + "-" + std::to_string(serial++);
        VSILFILE* f = VSIFileFromMemBuffer(path_.c_str(),
                                           reinterpret_cast<GByte*>(const_cast<char*>(bytes.data())),
                                           static_cast<vsi_l_offset>(bytes.size()), FALSE);
        if (f == nullptr) throw std::bad_alloc();
        VSIFCloseL(f);
    }
    ~memory_file() { VSIUnlink(path_.c_str()); }
    memory_file(const memory_file&) = delete;
    memory_file& operator=(const memory_file&) = delete;
    const std::string& path() const noexcept { return path_; }

private:
    std::string path_;
};

// The names of a dataset's layers, quoted and comma separated.
std::string layer_names(GDALDatasetH ds) {
    std::string names;
    for (int i = 0; i < GDALDatasetGetLayerCount(ds); ++i)
        names += (i ? ", '" : "'") + std::string(OGR_L_GetName(GDALDatasetGetLayer(ds, i))) + "'";
    return names;
}

// An opened source and the layer asked for, and the transformation of its coordinates to
// WGS 84 lon/lat (none when they are that already).
struct opened_layer {
    dataset_ptr dataset;
    OGRLayerH layer = nullptr;
    transform_ptr to_wgs84;
};

// Opens `path` (through `drivers` only, when given, with `open_options`), its layer and
// the transformation to WGS 84.
// True when data in `srs` are stored x then y, lon then lat: its data axis mapping is the
// one the traditional GIS order gives.
bool traditional_order(OGRSpatialReferenceH srs) {
    const srs_ptr traditional(OSRClone(srs));
    OSRSetAxisMappingStrategy(traditional.get(), OAMS_TRADITIONAL_GIS_ORDER);
    int n = 0, m = 0;
    const int* a = OSRGetDataAxisToSRSAxisMapping(srs, &n);
    const int* b = OSRGetDataAxisToSRSAxisMapping(traditional.get(), &m);
    return n == m && std::equal(a, a + n, b);
}

opened_layer open_layer(const std::string& path, const std::string& name, const source_options& source,
                        const char* const* drivers = nullptr, const char* const* open_options = nullptr) {
    register_drivers();
    quiet_errors quiet;
    opened_layer out;
    out.dataset.reset(GDALOpenEx(path.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, drivers, open_options, nullptr));
    if (!out.dataset) {
        std::error_code ec;
        const std::string file = path.rfind("CSV:", 0) == 0 ? path.substr(4) : path;
        if (file.rfind("/vsi", 0) != 0 && !std::filesystem::exists(file, ec))
            throw parse_error(name, 0, "cannot open: No such file or directory");
        throw parse_error(name, 0, "not a vector source GDAL can read" + gdal_says());
    }
    GDALDatasetH ds = out.dataset.get();
    const int layers = GDALDatasetGetLayerCount(ds);
    const std::string how = source.layer_option.empty() ? "" : " (" + source.layer_option + ")";
    if (!source.layer.empty()) {
        out.layer = GDALDatasetGetLayerByName(ds, source.layer.c_str());
        if (out.layer == nullptr)
            throw parse_error(name, 0, "no layer '" + source.layer + "'" + how + "; the layers are " +
                                           (layers == 0 ? std::string("none") : layer_names(ds)));
    } else if (layers == 1) {
        out.layer = GDALDatasetGetLayer(ds, 0);
    } else if (layers == 0) {
        throw parse_error(name, 0, "has no vector layer");
    } else {
        throw parse_error(name, 0, "holds " + std::to_string(layers) + " layers (" + layer_names(ds) +
                                       "); name one" + how);
    }
    srs_ptr from;
    if (!source.source_srs.empty()) {
        from.reset(OSRNewSpatialReference(nullptr));
        if (OSRSetFromUserInput(from.get(), source.source_srs.c_str()) != OGRERR_NONE)
            throw parse_error(name, 0, "cannot read the CRS '" + source.source_srs + "' (--s-srs)" + gdal_says());
    } else if (OGRSpatialReferenceH declared = OGR_L_GetSpatialRef(out.layer)) {
        from.reset(OSRClone(declared));
    }
    if (!from) return out;  // no CRS: lon/lat as stored
    // A CRS given by the user describes x then y as stored; a layer's own keeps the axis
    // mapping its driver gave it (the traditional one for almost every driver).
    if (!source.source_srs.empty()) OSRSetAxisMappingStrategy(from.get(), OAMS_TRADITIONAL_GIS_ORDER);
    srs_ptr wgs84(OSRNewSpatialReference(nullptr));
    OSRImportFromEPSG(wgs84.get(), 4326);
    OSRSetAxisMappingStrategy(wgs84.get(), OAMS_TRADITIONAL_GIS_ORDER);
    const char* same_options[] = {"CRITERION=EQUIVALENT_EXCEPT_AXIS_ORDER_GEOGCRS", nullptr};
    if (OSRIsSameEx(from.get(), wgs84.get(), same_options) && traditional_order(from.get())) return out;
    out.to_wgs84.reset(OCTNewCoordinateTransformation(from.get(), wgs84.get()));
    if (!out.to_wgs84) {
        const char* crs_name = OSRGetName(from.get());
        throw parse_error(name, 0, "cannot transform its CRS (" + std::string(crs_name ? crs_name : "unnamed") +
                                       ") to WGS 84" + gdal_says());
    }
    return out;
}

// A geometry type's name as GeoJSON spells it, for messages.
std::string type_name(OGRGeometryH g) {
    switch (wkbFlatten(OGR_G_GetGeometryType(g))) {
    case wkbPoint: return "Point";
    case wkbLineString: return "LineString";
    case wkbPolygon: return "Polygon";
    case wkbMultiPoint: return "MultiPoint";
    case wkbMultiLineString: return "MultiLineString";
    case wkbMultiPolygon: return "MultiPolygon";
    case wkbGeometryCollection: return "GeometryCollection";
    default: return OGR_G_GetGeometryName(g);
    }
}

std::string two_digits(int n) { return (n < 10 ? "0" : "") + std::to_string(n); }

// A date, time or date-time field in ISO 8601.
std::string iso8601(OGRFeatureH f, int i, OGRFieldType type) {
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, tz = 0;
    float second = 0;
    OGR_F_GetFieldAsDateTimeEx(f, i, &year, &month, &day, &hour, &minute, &second, &tz);
    std::string out;
    if (type != OFTTime) {
        char date[32];
        std::snprintf(date, sizeof date, "%04d-%02d-%02d", year, month, day);
        out = date;
        if (type == OFTDate) return out;
        out += 'T';
    }
    out += two_digits(hour) + ":" + two_digits(minute) + ":";
    char seconds[16];
    const bool whole = second == std::floor(second);
    std::snprintf(seconds, sizeof seconds, whole ? "%02.0f" : "%06.3f", static_cast<double>(second));
    out += seconds;
    if (tz == 100) {
        out += 'Z';
    } else if (tz > 1) {  // 0 unknown, 1 local time, else 100 + quarter hours east of UTC
        const int quarters = tz - 100, minutes = std::abs(quarters) * 15;
        out += (quarters < 0 ? "-" : "+") + two_digits(minutes / 60) + ":" + two_digits(minutes % 60);
    }
    return out;
}

// Field i of feature f as kept text and its kind (see the header).
void field_value(OGRFeatureH f, OGRFieldDefnH field, int i, std::string& text, value_kind& kind) {
    text.clear();
    if (!OGR_F_IsFieldSet(f, i)) {
        kind = value_kind::missing;
        return;
    }
    if (OGR_F_IsFieldNull(f, i)) {
        kind = value_kind::null;
        return;
    }
    kind = value_kind::json;
    const OGRFieldType type = OGR_Fld_GetType(field);
    int count = 0;
    switch (type) {
    case OFTInteger:
        if (OGR_Fld_GetSubType(field) == OFSTBoolean)
            text = OGR_F_GetFieldAsInteger(f, i) ? "true" : "false";
        else
            text = std::to_string(OGR_F_GetFieldAsInteger(f, i));
        return;
    case OFTInteger64: text = std::to_string(OGR_F_GetFieldAsInteger64(f, i)); return;
    case OFTReal: {
        const double x = OGR_F_GetFieldAsDouble(f, i);
        if (std::isfinite(x))
            text = shortest_decimal(x);
        else
            kind = value_kind::null;  // JSON has no NaN or infinity
        return;
    }
    case OFTIntegerList: {
        const int* v = OGR_F_GetFieldAsIntegerList(f, i, &count);
        text = json(std::vector<int>(v, v + count)).dump();
        return;
    }
    case OFTInteger64List: {
        const GIntBig* v = OGR_F_GetFieldAsInteger64List(f, i, &count);
        text = json(std::vector<std::int64_t>(v, v + count)).dump();
        return;
    }
    case OFTRealList: {
        const double* v = OGR_F_GetFieldAsDoubleList(f, i, &count);
        json list = json::array();
        for (int k = 0; k < count; ++k) list.push_back(std::isfinite(v[k]) ? json(v[k]) : json());
        text = list.dump();
        return;
    }
    case OFTStringList: {
        json list = json::array();
        if (char** v = OGR_F_GetFieldAsStringList(f, i))
            for (; *v != nullptr; ++v) list.push_back(*v);
        text = list.dump(-1, ' ', false, json::error_handler_t::replace);
        return;
    }
    case OFTDate:
    case OFTTime:
    case OFTDateTime:
        kind = value_kind::text;
        text = iso8601(f, i, type);
        return;
    default:
        kind = value_kind::text;
        text = OGR_F_GetFieldAsString(f, i);
        return;
    }
}

// The layer's field names, in order.
std::vector<std::string> field_names(OGRFeatureDefnH defn) {
    std::vector<std::string> names;
    for (int i = 0; i < OGR_FD_GetFieldCount(defn); ++i) names.emplace_back(OGR_Fld_GetNameRef(OGR_FD_GetFieldDefn(defn, i)));
    return names;
}

// True when the layer names a FID column (GeoPackage's "fid"): its FIDs are then ids.
bool has_named_fid(OGRLayerH layer) {
    const char* column = OGR_L_GetFIDColumn(layer);
    return column != nullptr && *column != '\0';
}

// The location (and altitude, NaN when none) of a point feature's geometry, reprojected, or
// a description of what is wrong with it.
std::string point_of(OGRGeometryH g, OGRCoordinateTransformationH to_wgs84, geo::lonlat& where, double& altitude) {
    if (g == nullptr) return "has no geometry";
    if (wkbFlatten(OGR_G_GetGeometryType(g)) != wkbPoint) return "geometry is a " + type_name(g) + ", not a Point";
    if (OGR_G_IsEmpty(g)) return "geometry is an empty Point";
    double x = OGR_G_GetX(g, 0), y = OGR_G_GetY(g, 0);
    const bool has_z = OGR_G_GetCoordinateDimension(g) == 3;
    double z = has_z ? OGR_G_GetZ(g, 0) : 0;
    if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z)) return "a coordinate is not a finite number";
    if (to_wgs84 != nullptr && !OCTTransform(to_wgs84, 1, &x, &y, has_z ? &z : nullptr))
        return "cannot be reprojected to WGS 84 (" + shortest_decimal(OGR_G_GetX(g, 0)) + ", " +
               shortest_decimal(OGR_G_GetY(g, 0)) + ")";
    if (!(x >= -180 && x <= 180))
        return "longitude " + shortest_decimal(x) + " is not in [-180, 180]" +
               (to_wgs84 == nullptr && std::fabs(x) > 360
                    ? "; it looks like a projected coordinate (metres, not degrees) in a layer that declares no CRS: "
                      "give its CRS (the quoct command's --s-srs; source_options::source_srs)"
                    : "");
    if (!(y >= -90 && y <= 90)) return "latitude " + shortest_decimal(y) + " is not in [-90, 90]";
    where = {x, y};
    altitude = has_z ? z : std::numeric_limits<double>::quiet_NaN();
    return {};
}

// `csv`: read `path` with GDAL's CSV driver, x and y from options.lon_column and lat_column
// (kept as fields too, to name a value that is not a number, but not as columns).
location_table read_points(const std::string& path, const std::string& name, const read_options& options,
                           const source_options& source, bool csv = false) {
    quiet_errors quiet;  // first, so that it outlives the dataset, whose closing may speak
    const std::string x = "X_POSSIBLE_NAMES=" + options.lon_column, y = "Y_POSSIBLE_NAMES=" + options.lat_column;
    const char* const csv_driver[] = {"CSV", nullptr};
    const char* const csv_options[] = {x.c_str(), y.c_str(), "KEEP_GEOM_COLUMNS=YES", "EMPTY_STRING_AS_NULL=NO", nullptr};
    opened_layer in = csv ? open_layer("CSV:" + path, name, source, csv_driver, csv_options) : open_layer(path, name, source);
    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(in.layer);
    int x_field = -1, y_field = -1;  // the CSV coordinate columns
    if (csv) {
        x_field = OGR_FD_GetFieldIndex(defn, options.lon_column.c_str());
        y_field = OGR_FD_GetFieldIndex(defn, options.lat_column.c_str());
        if (OGR_FD_GetGeomFieldCount(defn) == 0 || x_field < 0 || y_field < 0)
            throw parse_error(name, 0, "no columns '" + options.lon_column + "' and '" + options.lat_column +
                                           "' holding x and y");
    }
    location_table out;
    out.source = name;
    std::vector<int> fields;  // the layer's fields kept as columns
    for (int i = 0; i < OGR_FD_GetFieldCount(defn); ++i)
        if (i != x_field && i != y_field) {
            fields.push_back(i);
            out.columns.emplace_back(OGR_Fld_GetNameRef(OGR_FD_GetFieldDefn(defn, i)));
        }
    out.values = text_fields(out.columns.size());
    const bool ids = has_named_fid(in.layer);
    std::vector<std::string> text(out.columns.size());
    std::vector<std::string_view> views(out.columns.size());
    OGR_L_ResetReading(in.layer);
    std::size_t number = 0;
    for (;;) {
        CPLErrorReset();  // a feature that failed to reproject leaves an error behind
        const feature_ptr f{OGR_L_GetNextFeature(in.layer)};
        if (!f) break;
        ++number;
        geo::lonlat where{};
        double altitude = 0;
        OGRGeometryH g = OGR_F_GetGeometryRef(f.get());
        std::string problem = point_of(g, in.to_wgs84.get(), where, altitude);
        if (csv && g == nullptr) {
            // GDAL's CSV driver types the coordinate columns as reals: one that is not a
            // number reads as unset, its text gone.
            const bool x_bad = !OGR_F_IsFieldSetAndNotNull(f.get(), x_field);
            const std::string& column = x_bad ? options.lon_column : options.lat_column;
            problem = "column '" + column + "' is not a number";
        }
        if (!problem.empty()) {
            const parse_error error(name, 0, "feature " + std::to_string(number) + ": " + problem);
            if (options.on_bad_row == bad_row_policy::stop) throw error;
            out.skipped.push_back({number, error.what()});
            if (options.on_skip) options.on_skip(out.skipped.back());
            continue;
        }
        for (std::size_t c = 0; c < fields.size(); ++c) {
            value_kind kind{};
            field_value(f.get(), OGR_FD_GetFieldDefn(defn, fields[c]), fields[c], text[c], kind);
            out.kinds.push_back(kind);
            views[c] = text[c];
        }
        out.values.push_row(views.data(), views.size());
        out.locations.push_back(where);
        out.origins.push_back(number);
        out.records.push_back(number);
        out.altitudes.push_back(altitude);
        if (ids) out.feature_ids.push_back(std::to_string(OGR_F_GetFID(f.get())));
    }
    if (CPLGetLastErrorType() >= CE_Failure)
        throw parse_error(name, 0, "cannot read feature " + std::to_string(number + 1) + gdal_says());
    if (std::all_of(out.altitudes.begin(), out.altitudes.end(), [](double z) { return std::isnan(z); }))
        out.altitudes.clear();
    return out;
}

// Appends the polygons of geometry g (a Polygon or MultiPolygon, linear) to `out`.
void add_polygons(OGRGeometryH g, lonlat_polygons& out) {
    if (wkbFlatten(OGR_G_GetGeometryType(g)) == wkbMultiPolygon) {
        for (int i = 0; i < OGR_G_GetGeometryCount(g); ++i) add_polygons(OGR_G_GetGeometryRef(g, i), out);
        return;
    }
    out.emplace_back();
    for (int r = 0; r < OGR_G_GetGeometryCount(g); ++r) {
        OGRGeometryH ring = OGR_G_GetGeometryRef(g, r);
        std::vector<geo::lonlat> points(static_cast<std::size_t>(OGR_G_GetPointCount(ring)));
        for (std::size_t i = 0; i < points.size(); ++i)
            points[i] = {OGR_G_GetX(ring, static_cast<int>(i)), OGR_G_GetY(ring, static_cast<int>(i))};
        out.back().push_back(std::move(points));
    }
}

// Polygons as a GeoJSON geometry: a Polygon when there is one, else a MultiPolygon.
std::string geojson_of(const lonlat_polygons& polygons) {
    json rings_of = json::array();
    for (const auto& polygon : polygons) {
        json rings = json::array();
        for (const auto& ring : polygon) {
            json positions = json::array();
            for (const geo::lonlat& p : ring) positions.push_back({p.lon, p.lat});
            rings.push_back(std::move(positions));
        }
        rings_of.push_back(std::move(rings));
    }
    if (rings_of.size() == 1) return json{{"type", "Polygon"}, {"coordinates", rings_of[0]}}.dump();
    return json{{"type", "MultiPolygon"}, {"coordinates", std::move(rings_of)}}.dump();
}

polygon_layer read_polygons(const std::string& path, const std::string& name, const source_options& source) {
    quiet_errors quiet;  // first, so that it outlives the dataset
    opened_layer in = open_layer(path, name, source);
    polygon_layer out;
    out.source = name;
    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(in.layer);
    out.columns = field_names(defn);
    const bool ids = has_named_fid(in.layer);
    OGR_L_ResetReading(in.layer);
    std::size_t number = 0;
    for (;;) {
        CPLErrorReset();
        const feature_ptr f{OGR_L_GetNextFeature(in.layer)};
        if (!f) break;
        polygon_feature feature;
        feature.number = ++number;
        if (ids) feature.id = std::to_string(OGR_F_GetFID(f.get()));
        feature.values.resize(out.columns.size());
        feature.kinds.resize(out.columns.size());
        for (int i = 0; i < static_cast<int>(out.columns.size()); ++i)
            field_value(f.get(), OGR_FD_GetFieldDefn(defn, i), i, feature.values[static_cast<std::size_t>(i)],
                        feature.kinds[static_cast<std::size_t>(i)]);
        out.features.push_back(std::move(feature));
        OGRGeometryH g = OGR_F_GetGeometryRef(f.get());
        polygon_feature& kept = out.features.back();
        if (g == nullptr || OGR_G_IsEmpty(g)) {
            kept.geometry = "null";
            continue;
        }
        geometry_ptr linear;
        if (OGR_G_HasCurveGeometry(g, TRUE)) {
            linear.reset(OGR_G_GetLinearGeometry(g, 0, nullptr));
            if (!linear) throw parse_error(name, 0, out.describe(out.features.size() - 1) + ": cannot make its curves linear" + gdal_says());
            g = linear.get();
        }
        const OGRwkbGeometryType type = wkbFlatten(OGR_G_GetGeometryType(g));
        if (type != wkbPolygon && type != wkbMultiPolygon)
            throw parse_error(name, 0, out.describe(out.features.size() - 1) + ": geometry is a " + type_name(g) +
                                           ", not a Polygon or MultiPolygon");
        if (in.to_wgs84) {
            if (!linear) {
                linear.reset(OGR_G_Clone(g));
                g = linear.get();
            }
            if (OGR_G_Transform(g, in.to_wgs84.get()) != OGRERR_NONE)
                throw parse_error(name, 0, out.describe(out.features.size() - 1) + ": cannot be reprojected to WGS 84" + gdal_says());
        }
        add_polygons(g, kept.polygons);
        kept.geometry = geojson_of(kept.polygons);
    }
    if (CPLGetLastErrorType() >= CE_Failure)
        throw parse_error(name, 0, "cannot read feature " + std::to_string(number + 1) + gdal_says());
    return out;
}

// An OGR Polygon or MultiPolygon of lon/lat polygons.
geometry_ptr geometry_of(const lonlat_polygons& polygons) {
    geometry_ptr multi(OGR_G_CreateGeometry(wkbMultiPolygon));
    for (const auto& polygon : polygons) {
        OGRGeometryH p = OGR_G_CreateGeometry(wkbPolygon);
        for (const auto& ring : polygon) {
            OGRGeometryH r = OGR_G_CreateGeometry(wkbLinearRing);
            for (const geo::lonlat& v : ring) OGR_G_AddPoint_2D(r, v.lon, v.lat);
            OGR_G_AddGeometryDirectly(p, r);
        }
        OGR_G_AddGeometryDirectly(multi.get(), p);
    }
    OGR_G_CloseRings(multi.get());
    if (polygons.size() != 1) return multi;
    return geometry_ptr(OGR_G_Clone(OGR_G_GetGeometryRef(multi.get(), 0)));
}

// How a column's values are written: the narrowest OGR type that holds all of them.
struct column_type {
    bool any = false, integers = true, numbers = true, booleans = true;

    void see(std::string_view value, value_kind kind) {
        if (kind == value_kind::missing || kind == value_kind::null) return;
        any = true;
        if (kind != value_kind::json) {
            integers = numbers = booleans = false;
            return;
        }
        const bool boolean = value == "true" || value == "false";
        const bool number = !value.empty() && (value.front() == '-' || (value.front() >= '0' && value.front() <= '9'));
        std::int64_t n = 0;
        const auto parsed = std::from_chars(value.data(), value.data() + value.size(), n);
        const bool integer = number && parsed.ec == std::errc() && parsed.ptr == value.data() + value.size();
        booleans = booleans && boolean;
        numbers = numbers && number;
        integers = integers && integer;
    }
    OGRFieldType type() const {
        return !any ? OFTString : booleans ? OFTInteger : integers ? OFTInteger64 : numbers ? OFTReal : OFTString;
    }
    OGRFieldSubType subtype() const { return any && booleans ? OFSTBoolean : OFSTNone; }
};

// Sets field i of f to value as kind says, for a field of type `type`.
void set_field(OGRFeatureH f, int i, std::string_view value, value_kind kind, const column_type& type) {
    if (kind == value_kind::missing) return;
    if (kind == value_kind::null) {
        OGR_F_SetFieldNull(f, i);
        return;
    }
    // Numbers parsed with from_chars, whatever the C locale says a decimal point is.
    const char* first = value.data();
    const char* last = value.data() + value.size();
    if (type.subtype() == OFSTBoolean) {
        OGR_F_SetFieldInteger(f, i, value == "true" ? 1 : 0);
    } else if (type.type() == OFTInteger64) {
        std::int64_t n = 0;
        std::from_chars(first, last, n);
        OGR_F_SetFieldInteger64(f, i, n);
    } else if (type.type() == OFTReal) {
        double x = 0;
        std::from_chars(first, last, x);
        OGR_F_SetFieldDouble(f, i, x);
    } else {
        OGR_F_SetFieldString(f, i, std::string(value).c_str());
    }
}

// ASCII lower case, as SQLite compares column names.
std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// `base`, or base_2, base_3, ...: the first that no name of `taken` equals, ignoring case.
std::string free_name(const std::string& base, const std::vector<std::string>& taken) {
    std::vector<std::string> lowered;
    for (const std::string& t : taken) lowered.push_back(lower(t));
    std::string name = base;
    for (std::size_t n = 2; std::find(lowered.begin(), lowered.end(), lower(name)) != lowered.end(); ++n)
        name = base + "_" + std::to_string(n);
    return name;
}

// The names made unique ignoring case (GeoPackage's columns are SQLite's): a later name
// equal to an earlier one but for case gets "_2", "_3", ...
std::vector<std::string> unique_ignoring_case(const std::vector<std::string>& names) {
    std::vector<std::string> out;
    for (const std::string& name : names) out.push_back(free_name(name, out));
    return out;
}

// A new file written under a temporary name in the same directory, renamed over `path` by
// commit(); removed unless committed.
class new_file {
public:
    new_file(const std::string& path, const std::string& driver_name) : path_(path) {
        register_drivers();
        std::error_code ec;
        if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
            throw parse_error(path, 0, "not a regular file: " + driver_name + " is written to a file, renamed into place");
        driver_ = GDALGetDriverByName(driver_name.c_str());
        if (driver_ == nullptr) throw parse_error(path, 0, "GDAL has no driver '" + driver_name + "'");
        const std::filesystem::path p(path);
        // The temporary name ends as the driver expects (FlatGeobuf makes a directory of a
        // name without ".fgb").
        const char* extension = GDALGetMetadataItem(driver_, GDAL_DMD_EXTENSION, nullptr);
        std::string suffix = extension != nullptr && *extension != '\0' ? std::string(".") + extension : std::string();
        if (p.extension() == suffix) suffix.clear();
        temporary_ = (p.parent_path() / (".partial-" + std::to_string(::getpid()) + "-" + p.filename().string() + suffix)).string();
        quiet_errors quiet;
        remove_temporary();
        dataset_.reset(GDALCreate(driver_, temporary_.c_str(), 0, 0, 0, GDT_Unknown, nullptr));
        if (!dataset_) {
            const std::string says = gdal_says();
            remove_temporary();
            throw parse_error(path, 0, "cannot create" + says);
        }
    }
    ~new_file() {
        if (committed_) return;
        quiet_errors quiet;
        dataset_.reset();
        remove_temporary();
    }
    new_file(const new_file&) = delete;
    new_file& operator=(const new_file&) = delete;

    GDALDatasetH get() const noexcept { return dataset_.get(); }

    // A layer named for the file, in EPSG:4326 lon/lat, of geometry `type`, to hold fields
    // named `fields` (a GeoPackage's FID and geometry columns are named apart from them).
    OGRLayerH create_layer(OGRwkbGeometryType type, const std::vector<std::string>& fields) {
        srs_ptr wgs84(OSRNewSpatialReference(nullptr));
        OSRImportFromEPSG(wgs84.get(), 4326);
        OSRSetAxisMappingStrategy(wgs84.get(), OAMS_TRADITIONAL_GIS_ORDER);
        const std::string name = std::filesystem::path(path_).stem().string();
        std::vector<std::string> settings;
        if (std::string(GDALGetDriverShortName(driver_)) == "GPKG")
            settings = {"FID=" + free_name("fid", fields), "GEOMETRY_NAME=" + free_name("geom", fields)};
        std::vector<const char*> options;
        for (const std::string& setting : settings) options.push_back(setting.c_str());
        options.push_back(nullptr);
        OGRLayerH layer = GDALDatasetCreateLayer(get(), name.empty() ? "quoct" : name.c_str(), wgs84.get(), type,
                                                 const_cast<char**>(options.data()));
        if (layer == nullptr) throw parse_error(path_, 0, "cannot create a layer" + gdal_says());
        // One transaction for every feature (GeoPackage would otherwise commit, and sync, each).
        in_transaction_ = GDALDatasetStartTransaction(get(), FALSE) == OGRERR_NONE;
        return layer;
    }

    void commit() {
        quiet_errors quiet;
        CPLErrorReset();
        if (in_transaction_ && GDALDatasetCommitTransaction(get()) != OGRERR_NONE)
            throw parse_error(path_, 0, "cannot write" + gdal_says());
        GDALClose(dataset_.release());  // writes what is buffered; GDAL 3.6 returns no status
        if (CPLGetLastErrorType() >= CE_Failure)
            throw parse_error(path_, 0, "cannot write" + gdal_says());
        if (std::rename(temporary_.c_str(), path_.c_str()) != 0)
            throw parse_error(path_, 0, "cannot replace: " + std::generic_category().message(errno));
        committed_ = true;
    }

private:
    void remove_temporary() noexcept {
        GDALDeleteDataset(driver_, temporary_.c_str());
        std::error_code ec;
        std::filesystem::remove(temporary_, ec);
    }

    std::string path_, temporary_;
    GDALDriverH driver_ = nullptr;
    dataset_ptr dataset_;
    bool committed_ = false, in_transaction_ = false;
};

// Adds fields named `names` of types `types` to the layer; their indexes in the layer.
std::vector<int> add_fields(OGRLayerH layer, const std::vector<std::string>& names, const std::vector<column_type>& types,
                            const std::string& path) {
    std::vector<int> index;
    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(layer);
    for (std::size_t c = 0; c < names.size(); ++c) {
        OGRFieldDefnH field = OGR_Fld_Create(names[c].c_str(), types[c].type());
        OGR_Fld_SetSubType(field, types[c].subtype());
        const OGRErr err = OGR_L_CreateField(layer, field, TRUE);
        OGR_Fld_Destroy(field);
        if (err != OGRERR_NONE) throw parse_error(path, 0, "cannot create the field '" + names[c] + "'" + gdal_says());
        // A driver may rename a field (Shapefile cuts names to 10 bytes): the last one added.
        index.push_back(OGR_FD_GetFieldCount(defn) - 1);
    }
    return index;
}

void add_feature(OGRLayerH layer, OGRFeatureH f, const std::string& path) {
    if (OGR_L_CreateFeature(layer, f) != OGRERR_NONE) throw parse_error(path, 0, "cannot write a feature" + gdal_says());
}

// Extracts the polygons of a geometry (a collection's polygon parts; lines and points left out).
void polygon_parts(OGRGeometryH g, lonlat_polygons& out) {
    const OGRwkbGeometryType type = wkbFlatten(OGR_G_GetGeometryType(g));
    if (type == wkbPolygon) {
        add_polygons(g, out);
    } else if (type == wkbMultiPolygon || type == wkbGeometryCollection) {
        for (int i = 0; i < OGR_G_GetGeometryCount(g); ++i) polygon_parts(OGR_G_GetGeometryRef(g, i), out);
    }
}

}  // namespace

std::string identify(const std::string& path) {
    register_drivers();
    quiet_errors quiet;
    GDALDriverH driver = GDALIdentifyDriverEx(path.c_str(), GDAL_OF_VECTOR, nullptr, nullptr);
    return driver != nullptr ? GDALGetDriverShortName(driver) : std::string();
}

bool reads(const std::string& path) {
    const std::string driver = identify(path);
    return !driver.empty() && driver != "CSV" && driver != "GeoJSON";
}

location_table read_locations(const std::string& path, const read_options& options, const source_options& source) {
    return read_points(path, path, options, source);
}

location_table read_locations(const std::string& bytes, const std::string& name, const read_options& options,
                              const source_options& source) {
    register_drivers();
    const memory_file file(bytes);
    return read_points(file.path(), name, options, source);
}

location_table read_locations_csv(const std::string& path, const read_options& options, const source_options& source) {
    return read_points(path, path, options, source, true);
}

polygon_layer read_polygon_layer(const std::string& path, const source_options& source) {
    return read_polygons(path, path, source);
}

polygon_layer read_polygon_layer(const std::string& bytes, const std::string& name, const source_options& source) {
    register_drivers();
    const memory_file file(bytes);
    return read_polygons(file.path(), name, source);
}

std::string output_driver(const std::string& format) {
    if (format == "gpkg") return "GPKG";
    if (format == "fgb") return "FlatGeobuf";
    throw std::invalid_argument("unknown output format '" + format + "': table, csv, geojson, gpkg or fgb");
}

void write_locations(const std::string& path, const std::string& driver, const location_table& table,
                     const std::vector<hit>& hits, const write_options& options) {
    write_options as_geojson = options;
    as_geojson.format = output_format::geojson;
    std::vector<std::string> names = output_columns(table, as_geojson);
    const bool ids = !table.feature_ids.empty();
    std::vector<column_type> types(names.size());
    for (const hit& h : hits)
        for_each_property(table, h, options, [&](std::size_t c, std::string_view v, value_kind k) { types[c].see(v, k); });
    if (ids) {
        std::string name = "feature_id";
        for (std::size_t n = 2; std::find(names.begin(), names.end(), name) != names.end(); ++n)
            name = "feature_id_" + std::to_string(n);
        names.push_back(name);
        types.emplace_back();
        for (const hit& h : hits) {
            const std::string& id = table.feature_ids[h.id];
            types.back().see(id, id.empty() ? value_kind::missing : id.front() == '"' ? value_kind::text : value_kind::json);
        }
    }
    names = unique_ignoring_case(names);
    quiet_errors quiet;  // first, so that it outlives the file
    new_file file(path, driver);
    const bool z = !table.altitudes.empty();
    OGRLayerH layer = file.create_layer(z ? wkbPoint25D : wkbPoint, names);
    const std::vector<int> field = add_fields(layer, names, types, path);
    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(layer);
    for (const hit& h : hits) {
        feature_ptr f(OGR_F_Create(defn));
        for_each_property(table, h, options, [&](std::size_t c, std::string_view v, value_kind k) {
            set_field(f.get(), field[c], v, k, types[c]);
        });
        if (ids && !table.feature_ids[h.id].empty()) {
            const std::string& id = table.feature_ids[h.id];
            const bool text = id.front() == '"';
            set_field(f.get(), field.back(), text ? json::parse(id).get<std::string>() : id,
                      text ? value_kind::text : value_kind::json, types.back());
        }
        geometry_ptr point(OGR_G_CreateGeometry(z ? wkbPoint25D : wkbPoint));
        const geo::lonlat& p = table.locations[h.id];
        if (z)
            OGR_G_SetPoint(point.get(), 0, p.lon, p.lat, table.altitudes[h.id]);  // NaN where it has none
        else
            OGR_G_SetPoint_2D(point.get(), 0, p.lon, p.lat);
        OGR_F_SetGeometryDirectly(f.get(), point.release());
        add_feature(layer, f.get(), path);
    }
    file.commit();
}

void write_polygon_counts(const std::string& path, const std::string& driver, const polygon_layer& layer,
                          const std::vector<std::size_t>& features, const std::vector<std::size_t>& counts,
                          const std::vector<std::size_t>& columns) {
    std::vector<std::string> names = join_column_names(layer, columns);
    names.push_back("count");
    std::vector<column_type> types(names.size());
    for (std::size_t f : features) {
        const auto id = feature_id_of(layer, f);
        types[0].see(id.first, id.second);
        for (std::size_t k = 0; k < columns.size(); ++k)
            types[k + 1].see(layer.features[f].values[columns[k]], layer.features[f].kinds[columns[k]]);
    }
    types.back().see("0", value_kind::json);
    names = unique_ignoring_case(names);
    // FlatGeobuf leaves out, without a word, a feature that has no geometry (or an empty one).
    if (driver == "FlatGeobuf")
        for (std::size_t f : features)
            if (layer.features[f].polygons.empty())
                throw parse_error(path, 0, layer.describe(f) + " has no geometry, which FlatGeobuf cannot hold; "
                                                               "write GeoPackage (.gpkg) instead");
    quiet_errors quiet;  // first, so that it outlives the file
    new_file file(path, driver);
    OGRLayerH out = file.create_layer(wkbMultiPolygon, names);
    const std::vector<int> field = add_fields(out, names, types, path);
    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(out);
    for (std::size_t i = 0; i < features.size(); ++i) {
        const polygon_feature& pf = layer.features[features[i]];
        feature_ptr f(OGR_F_Create(defn));
        const auto id = feature_id_of(layer, features[i]);
        set_field(f.get(), field[0], id.first, id.second, types[0]);
        for (std::size_t k = 0; k < columns.size(); ++k)
            set_field(f.get(), field[k + 1], pf.values[columns[k]], pf.kinds[columns[k]], types[k + 1]);
        set_field(f.get(), field.back(), std::to_string(counts[i]), value_kind::json, types.back());
        // Always a MultiPolygon: some drivers (FlatGeobuf) want one type per layer.
        if (!pf.polygons.empty())
            OGR_F_SetGeometryDirectly(f.get(), OGR_G_ForceToMultiPolygon(geometry_of(pf.polygons).release()));
        add_feature(out, f.get(), path);
    }
    file.commit();
}

lonlat_polygons make_valid(const lonlat_polygons& polygons, const std::string& source) {
    register_drivers();
    quiet_errors quiet;
    geometry_ptr g = geometry_of(polygons);
    // GEOS's "structure" method keeps the area the rings enclose (overlapping parts joined,
    // a self-crossing shell split); the default "linework" one keeps an odd-even area.
    const char* method[] = {"METHOD=STRUCTURE", nullptr};
    geometry_ptr valid(OGR_G_MakeValidEx(g.get(), const_cast<char**>(method)));
    if (!valid) throw parse_error(source, 0, "cannot repair the polygon" + gdal_says());
    lonlat_polygons out;
    polygon_parts(valid.get(), out);
    return out;
}

}  // namespace gdal
}  // namespace io
}  // namespace quoct
