// quoct::gdal (<quoct/io/gdal.hpp>) and the quoct command built with it, on files made by
// GDAL itself in the tests: points in GeoPackage, FlatGeobuf, Shapefile and GeoJSONSeq with
// typed fields, nulls and altitudes, read back against the values written; points and
// polygons in projected CRSs, reprojected, against the lon/lat they came from; Natural
// Earth's countries through GDAL against quoct's own GeoJSON reader (itself checked against
// Boost.Geometry brute force in test_cli_join.cpp); GeoPackage and FlatGeobuf output read
// back through OGR; and the errors: several layers, unknown layer, wrong geometry, a
// damaged file, a bad CRS, output without -o.
#include <catch2/catch.hpp>

#include "../test_cli_support.hpp"

#include <quoct/io/gdal.hpp>
#include <quoct/io/geojson_polygons.hpp>
#include <quoct/io/locations.hpp>

#include <quoct/io/wkt.hpp>

#include <boost/geometry/algorithms/area.hpp>
#include <boost/geometry/algorithms/covered_by.hpp>

#include <gdal.h>
#include <gdal_utils.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace io = quoct::io;

const std::string countries = std::string(QUOCT_DATA_DIR) + "/countries_110m.geojson";
const std::string cities = std::string(QUOCT_DATA_DIR) + "/cities.csv";

struct registered {
    registered() { GDALAllRegister(); }
};

void register_gdal() { static registered once; }

// One test point: where it is and its attributes, some null or unset.
struct sample {
    double lon, lat, z;
    std::string name;
    long long population;  // < 0: null
    double area;           // NaN: unset
    bool capital;
};

std::vector<sample> samples() {
    std::vector<sample> out;
    // Dyadic and integer coordinates, the extremes of the ranges, and a few decimal ones.
    const double lons[] = {-180, -179.5, -90.25, -0.125, 0, 2.3488, 45.75, 139.6917, 179.999999, 180};
    const double lats[] = {-90, -45.5, -0.5, 0, 12.0625, 48.85341, 64.125, 89.999, 90};
    int i = 0;
    for (double lon : lons)
        for (double lat : lats) {
            sample s{lon, lat, i % 3 == 0 ? 0.5 * i : 100.25, "p" + std::to_string(i) + (i % 7 == 0 ? " é,\"q\"" : ""),
                     i % 5 == 0 ? -1 : 1000LL * i + 7, i % 4 == 0 ? std::nan("") : i * 0.75, i % 2 == 0};
            out.push_back(s);
            ++i;
        }
    return out;
}

struct srs_deleter {
    void operator()(OGRSpatialReferenceH s) const { OSRRelease(s); }
};

// True when sample s can be projected to EPSG:epsg: Mercator cannot take the poles, and
// UTM zone 31N (central meridian 3 E) not points far from its zone.
bool fits(const sample& s, int epsg) {
    if (epsg == 0 || epsg == 4326) return true;
    if (std::abs(s.lat) > 80) return false;
    return epsg == 32631 ? std::abs(s.lon - 3) < 60 : std::abs(s.lon) <= 170;
}

// A layer "points" of the samples written by GDAL with `driver` at `path`, in EPSG:epsg
// (0: no CRS) with the coordinates transformed there by OGR; with altitudes if `z`.
void write_samples(const std::string& path, const char* driver_name, int epsg, bool z, const char* layer_name = "points") {
    register_gdal();
    GDALDriverH driver = GDALGetDriverByName(driver_name);
    REQUIRE(driver != nullptr);
    GDALDatasetH ds = GDALCreate(driver, path.c_str(), 0, 0, 0, GDT_Unknown, nullptr);
    REQUIRE(ds != nullptr);
    std::unique_ptr<std::remove_pointer_t<OGRSpatialReferenceH>, srs_deleter> srs, wgs84(OSRNewSpatialReference(nullptr));
    OSRImportFromEPSG(wgs84.get(), 4326);
    OSRSetAxisMappingStrategy(wgs84.get(), OAMS_TRADITIONAL_GIS_ORDER);
    OGRCoordinateTransformationH to = nullptr;
    if (epsg != 0) {
        srs.reset(OSRNewSpatialReference(nullptr));
        OSRImportFromEPSG(srs.get(), epsg);
        OSRSetAxisMappingStrategy(srs.get(), OAMS_TRADITIONAL_GIS_ORDER);
        if (epsg != 4326) to = OCTNewCoordinateTransformation(wgs84.get(), srs.get());
    }
    // FlatGeobuf without its spatial index, which would put the features in its own order;
    // GeoJSONSeq with every digit (it rounds to 7 decimals, 179.999999 to 180, by default).
    const char* no_index[] = {"SPATIAL_INDEX=NO", nullptr};
    const char* digits[] = {"COORDINATE_PRECISION=15", nullptr};
    const std::string d = driver_name;
    char** layer_options = const_cast<char**>(d == "FlatGeobuf" ? no_index : d == "GeoJSONSeq" ? digits : nullptr);
    OGRLayerH layer = GDALDatasetCreateLayer(ds, layer_name, srs.get(), z ? wkbPoint25D : wkbPoint, layer_options);
    REQUIRE(layer != nullptr);
    OGRFieldDefnH f = OGR_Fld_Create("name", OFTString);
    OGR_L_CreateField(layer, f, TRUE);
    OGR_Fld_Destroy(f);
    f = OGR_Fld_Create("population", OFTInteger64);
    OGR_L_CreateField(layer, f, TRUE);
    OGR_Fld_Destroy(f);
    f = OGR_Fld_Create("area", OFTReal);
    OGR_L_CreateField(layer, f, TRUE);
    OGR_Fld_Destroy(f);
    f = OGR_Fld_Create("capital", OFTInteger);
    OGR_Fld_SetSubType(f, OFSTBoolean);
    OGR_L_CreateField(layer, f, TRUE);
    OGR_Fld_Destroy(f);
    for (const sample& s : samples()) {
        if (!fits(s, epsg)) continue;
        OGRFeatureH feature = OGR_F_Create(OGR_L_GetLayerDefn(layer));
        OGR_F_SetFieldString(feature, 0, s.name.c_str());
        if (s.population < 0)
            OGR_F_SetFieldNull(feature, 1);
        else
            OGR_F_SetFieldInteger64(feature, 1, s.population);
        if (!std::isnan(s.area)) OGR_F_SetFieldDouble(feature, 2, s.area);
        OGR_F_SetFieldInteger(feature, 3, s.capital ? 1 : 0);
        double x = s.lon, y = s.lat, zz = s.z;
        if (to != nullptr) REQUIRE(OCTTransform(to, 1, &x, &y, nullptr));
        OGRGeometryH g = OGR_G_CreateGeometry(z ? wkbPoint25D : wkbPoint);
        if (z)
            OGR_G_SetPoint(g, 0, x, y, zz);
        else
            OGR_G_SetPoint_2D(g, 0, x, y);
        OGR_F_SetGeometryDirectly(feature, g);
        REQUIRE(OGR_L_CreateFeature(layer, feature) == OGRERR_NONE);
        OGR_F_Destroy(feature);
    }
    if (to != nullptr) OCTDestroyCoordinateTransformation(to);
    GDALClose(ds);
}

// The samples a layer in EPSG:epsg holds (see write_samples).
std::vector<sample> projectable(const std::vector<sample>& all, int epsg) {
    std::vector<sample> out;
    for (const sample& s : all)
        if (fits(s, epsg)) out.push_back(s);
    return out;
}

// GDAL's ogr2ogr as a library call: `source` (opened with `open_options`) translated to
// `target` with `args`.
void translate(const std::string& source, const std::string& target, std::vector<std::string> args,
               const std::vector<const char*>& open_options = {}) {
    register_gdal();
    std::vector<const char*> oo = open_options;
    oo.push_back(nullptr);
    GDALDatasetH in = GDALOpenEx(source.c_str(), GDAL_OF_VECTOR, nullptr, oo.data(), nullptr);
    REQUIRE(in != nullptr);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    GDALVectorTranslateOptions* options = GDALVectorTranslateOptionsNew(argv.data(), nullptr);
    REQUIRE(options != nullptr);
    int failed = 0;
    GDALDatasetH out = GDALVectorTranslate(target.c_str(), nullptr, 1, &in, options, &failed);
    GDALVectorTranslateOptionsFree(options);
    REQUIRE(out != nullptr);
    REQUIRE(failed == 0);
    GDALClose(out);
    GDALClose(in);
}

io::csv_table csv_of(const std::string& text) {
    std::istringstream in(text);
    return io::read_csv(in, "stdout");
}

// A field of record r by column name.
std::string value(const io::location_table& t, std::size_t r, const std::string& column) {
    const std::size_t c = t.find_column(column);
    REQUIRE(c < t.columns.size());
    return std::string(t.values[r][c]);
}

io::value_kind kind(const io::location_table& t, std::size_t r, const std::string& column) {
    return t.kind(r, t.find_column(column));
}

// `nulls`: the format keeps a null field as null (FlatGeobuf leaves it out: missing).
void check_samples(const io::location_table& t, const std::vector<sample>& expected, bool exact, bool z, bool nulls = true) {
    REQUIRE(t.locations.size() == expected.size());
    REQUIRE(t.skipped.empty());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const sample& s = expected[i];
        INFO("record " << i << " (" << s.lon << ", " << s.lat << ")");
        if (exact) {
            CHECK(t.locations[i].lon == s.lon);
            CHECK(t.locations[i].lat == s.lat);
        } else {
            CHECK(t.locations[i].lon == Approx(s.lon).margin(1e-9));
            CHECK(t.locations[i].lat == Approx(s.lat).margin(1e-9));
        }
        if (z) {
            REQUIRE(t.altitudes.size() == t.locations.size());
            CHECK(t.altitudes[i] == s.z);
        } else {
            CHECK(t.altitudes.empty());
        }
        CHECK(value(t, i, "name") == s.name);
        CHECK(kind(t, i, "name") == io::value_kind::text);
        if (s.population < 0) {
            CHECK(kind(t, i, "population") == (nulls ? io::value_kind::null : io::value_kind::missing));
        } else {
            CHECK(value(t, i, "population") == std::to_string(s.population));
            CHECK(kind(t, i, "population") == io::value_kind::json);
        }
        if (!std::isnan(s.area)) {
            CHECK(value(t, i, "area") == io::shortest_decimal(s.area));
            CHECK(kind(t, i, "area") == io::value_kind::json);
        }
        CHECK(value(t, i, "capital") == (s.capital ? "true" : "false"));
    }
}

}  // namespace

TEST_CASE("GDAL sources of points read as the values written: GeoPackage, FlatGeobuf, GeoJSONSeq", "[gdal]") {
    const std::vector<sample> all = samples();
    SECTION("GeoPackage, with altitudes and FIDs as ids") {
        const std::string path = quoct_test::temp_path("points.gpkg");
        write_samples(path, "GPKG", 4326, true);
        CHECK(io::gdal::identify(path) == "GPKG");
        CHECK(io::gdal::reads(path));
        const io::location_table t = io::gdal::read_locations(path);
        check_samples(t, all, true, true);
        REQUIRE(t.feature_ids.size() == all.size());
        CHECK(t.feature_ids.front() == "1");
        CHECK(t.feature_ids.back() == std::to_string(all.size()));
        // GeoPackage stores an unset field as NULL.
        CHECK(kind(t, 0, "area") == io::value_kind::null);
    }
    SECTION("FlatGeobuf: no FID column, so no ids") {
        const std::string path = quoct_test::temp_path("points.fgb");
        write_samples(path, "FlatGeobuf", 4326, false);
        CHECK(io::gdal::identify(path) == "FlatGeobuf");
        const io::location_table t = io::gdal::read_locations(path);
        check_samples(t, all, true, false, false);  // FlatGeobuf stores no nulls: they are unset
        CHECK(t.feature_ids.empty());
    }
    SECTION("GeoJSONSeq, named by content whatever its extension") {
        const std::string path = quoct_test::temp_path("points.geojsonl");
        write_samples(path, "GeoJSONSeq", 0, false);
        const std::string renamed = quoct_test::temp_path("points_seq.txt");
        std::filesystem::rename(path, renamed);
        CHECK(io::gdal::reads(renamed));
        check_samples(io::gdal::read_locations(renamed), all, true, false);
    }
    SECTION("CSV and GeoJSON are left to quoct's own readers") {
        CHECK_FALSE(io::gdal::reads(cities));
        CHECK_FALSE(io::gdal::reads(countries));
        CHECK(io::gdal::identify(quoct_test::temp_path("none.gpkg")).empty());
    }
}

TEST_CASE("GDAL sources in projected CRSs come back as the lon/lat they were made from", "[gdal]") {
    SECTION("Web Mercator declared by the layer") {
        const std::vector<sample> some = projectable(samples(), 3857);
        const std::string path = quoct_test::temp_path("mercator.gpkg");
        write_samples(path, "GPKG", 3857, false);
        check_samples(io::gdal::read_locations(path), some, false, false);
    }
    const std::vector<sample> some = projectable(samples(), 32631);
    SECTION("a layer without a CRS, given one with source_srs") {
        const std::string path = quoct_test::temp_path("bare_utm.fgb");
        write_samples(path, "FlatGeobuf", 32631, false);
        // FlatGeobuf keeps the CRS; strip it by translating with -a_srs None... instead make a
        // GeoJSONSeq copy, which has no CRS member at all, and name the CRS by hand.
        const std::string seq = quoct_test::temp_path("bare_utm.geojsonl");
        translate(path, seq, {"-f", "GeoJSONSeq", "-lco", "RS=NO", "-a_srs", "EPSG:4326"});
        // -a_srs 4326 leaves the UTM numbers as they are; read them as UTM zone 31N.
        io::gdal::source_options source;
        source.source_srs = "EPSG:32631";
        check_samples(io::gdal::read_locations(seq, {}, source), some, false, false, false);  // nulls lost in the .fgb
        // The same numbers as lon/lat are out of range: each is a bad record.
        io::read_options skip;
        skip.on_bad_row = io::bad_row_policy::skip;
        const io::location_table bad = io::gdal::read_locations(seq, skip);
        CHECK(bad.skipped.size() + bad.locations.size() == some.size());
        CHECK(bad.skipped.size() > some.size() / 2);
        REQUIRE_THROWS_WITH(io::gdal::read_locations(seq), Catch::Contains("feature 1: longitude"));
    }
    SECTION("a CSV of eastings and northings, through GDAL's CSV driver") {
        const std::string path = quoct_test::temp_path("utm_src.gpkg");
        write_samples(path, "GPKG", 32631, false);
        const std::string csv = quoct_test::temp_path("utm.csv");
        translate(path, csv, {"-f", "CSV", "-lco", "GEOMETRY=AS_XY"});
        io::read_options options;
        options.lon_column = "X";
        options.lat_column = "Y";
        io::gdal::source_options source;
        source.source_srs = "EPSG:32631";
        const io::location_table t = io::gdal::read_locations_csv(csv, options, source);
        REQUIRE(t.locations.size() == some.size());
        for (std::size_t i = 0; i < some.size(); ++i) {
            CHECK(t.locations[i].lon == Approx(some[i].lon).margin(1e-9));
            CHECK(t.locations[i].lat == Approx(some[i].lat).margin(1e-9));
            CHECK(value(t, i, "name") == some[i].name);
        }
        CHECK(t.find_column("X") == t.columns.size());  // the coordinates are not kept as columns
        options.lat_column = "northing";
        REQUIRE_THROWS_WITH(io::gdal::read_locations_csv(csv, options, source), Catch::Contains("no columns 'X' and 'northing'"));
    }
}

TEST_CASE("GDAL sources: errors name the source and the cause", "[gdal]") {
    const std::string path = quoct_test::temp_path("two_layers.gpkg");
    write_samples(path, "GPKG", 4326, false, "first");
    translate(countries, path, {"-f", "GPKG", "-update", "-nln", "countries"});
    REQUIRE_THROWS_WITH(io::gdal::read_locations(path), Catch::Contains("holds 2 layers ('first', 'countries'); name one"));
    io::gdal::source_options source;
    source.layer = "nope";
    REQUIRE_THROWS_WITH(io::gdal::read_locations(path, {}, source), Catch::Contains("no layer 'nope'"));
    source.layer = "countries";
    REQUIRE_THROWS_WITH(io::gdal::read_locations(path, {}, source),
                        Catch::Contains("feature 1: geometry is a MultiPolygon, not a Point"));
    io::read_options skip;
    skip.on_bad_row = io::bad_row_policy::skip;
    const io::location_table none = io::gdal::read_locations(path, skip, source);
    CHECK(none.locations.empty());
    CHECK(none.skipped.size() == 177);
    source.layer = "first";
    REQUIRE_THROWS_WITH(io::gdal::read_polygon_layer(path, source), Catch::Contains("geometry is a Point, not a Polygon"));
    source.source_srs = "EPSG:999999";
    REQUIRE_THROWS_WITH(io::gdal::read_locations(path, {}, source), Catch::Contains("cannot read the CRS 'EPSG:999999'"));
    // A damaged file (its first 64 KiB), a missing one, bytes that are no source at all.
    const std::string damaged = quoct_test::temp_path("damaged.gpkg");
    {
        const std::string whole = quoct_test::file_text(path);
        std::ofstream(damaged, std::ios::binary) << whole.substr(0, 65536);
    }
    REQUIRE_THROWS_AS(io::gdal::read_locations(damaged), io::parse_error);
    REQUIRE_THROWS_WITH(io::gdal::read_locations(quoct_test::temp_path("missing.gpkg")),
                        Catch::Contains("No such file or directory"));
    REQUIRE_THROWS_WITH(io::gdal::read_locations(std::string("\x01\x02garbage\0\0", 11), "stdin"),
                        Catch::Contains("stdin: not a vector source"));
}

TEST_CASE("GDAL polygon layers equal quoct's GeoJSON reader's, in every format and reprojected", "[gdal]") {
    std::ifstream in(countries, std::ios::binary);
    const io::polygon_layer expected = io::read_geojson_polygon_layer(in, countries);
    for (const char* format : {"GPKG", "FlatGeobuf", "ESRI Shapefile"}) {
        DYNAMIC_SECTION(format) {
            const std::string ext = std::string(format) == "GPKG" ? ".gpkg" : std::string(format) == "FlatGeobuf" ? ".fgb" : ".shp";
            const std::string path = quoct_test::temp_path(std::string("countries") + ext);
            std::vector<std::string> args{"-f", format, "-nlt", "MULTIPOLYGON"};
            // With a spatial index, FlatGeobuf stores its features in the index's order.
            if (std::string(format) == "FlatGeobuf") args.insert(args.end(), {"-lco", "SPATIAL_INDEX=NO"});
            translate(countries, path, args);
            const io::polygon_layer layer = io::gdal::read_polygon_layer(path);
            REQUIRE(layer.features.size() == expected.features.size());
            const std::size_t name = layer.find_column("name"), want = expected.find_column("name");
            REQUIRE(name < layer.columns.size());
            for (std::size_t f = 0; f < layer.features.size(); ++f) {
                INFO(expected.describe(f));
                CHECK(layer.features[f].values[name] == expected.features[f].values[want]);
                CHECK(layer.features[f].number == f + 1);
                // The same vertices; Shapefile may turn rings round (it stores shells clockwise).
                const auto& a = layer.features[f].polygons;
                const auto& b = expected.features[f].polygons;
                REQUIRE(a.size() == b.size());
                for (std::size_t p = 0; p < a.size(); ++p) {
                    REQUIRE(a[p].size() == b[p].size());
                    for (std::size_t r = 0; r < a[p].size(); ++r) {
                        std::vector<std::pair<double, double>> va, vb;
                        for (const auto& v : a[p][r]) va.emplace_back(v.lon, v.lat);
                        for (const auto& v : b[p][r]) vb.emplace_back(v.lon, v.lat);
                        std::sort(va.begin(), va.end());
                        std::sort(vb.begin(), vb.end());
                        CHECK(va == vb);
                    }
                }
            }
            // GeoPackage names a FID column, so its features carry their FIDs as ids.
            CHECK(layer.features.front().id == (std::string(format) == "GPKG" ? "1" : ""));
        }
    }
    SECTION("reprojected from Lambert azimuthal equal-area over Europe, vertex by vertex") {
        const std::string path = quoct_test::temp_path("europe_laea.gpkg");
        translate(countries, path, {"-f", "GPKG", "-t_srs", "EPSG:3035", "-where", "continent = 'Europe' AND name <> 'Russia'"});
        const io::polygon_layer layer = io::gdal::read_polygon_layer(path);
        REQUIRE(layer.features.size() > 30);
        const std::size_t name = layer.find_column("name"), want = expected.find_column("name");
        for (const auto& f : layer.features) {
            const auto match = std::find_if(expected.features.begin(), expected.features.end(),
                                            [&](const io::polygon_feature& e) { return e.values[want] == f.values[name]; });
            REQUIRE(match != expected.features.end());
            REQUIRE(f.polygons.size() == match->polygons.size());
            for (std::size_t p = 0; p < f.polygons.size(); ++p)
                for (std::size_t r = 0; r < f.polygons[p].size(); ++r)
                    for (std::size_t v = 0; v < f.polygons[p][r].size(); ++v) {
                        CHECK(f.polygons[p][r][v].lon == Approx(match->polygons[p][r][v].lon).margin(1e-8));
                        CHECK(f.polygons[p][r][v].lat == Approx(match->polygons[p][r][v].lat).margin(1e-8));
                    }
        }
    }
}

#ifdef QUOCT_CLI

TEST_CASE("quoct join through GDAL: the same rows as from GeoJSON and CSV", "[gdal][cli]") {
    const std::string polygons = quoct_test::temp_path("countries.fgb");
    const std::string points = quoct_test::temp_path("cities.gpkg");
    // Without a spatial index FlatGeobuf keeps the features' order, so polygon_id (the number) matches.
    translate(countries, polygons, {"-f", "FlatGeobuf", "-nlt", "MULTIPOLYGON", "-lco", "SPATIAL_INDEX=NO"});
    translate(cities, points, {"-f", "GPKG", "-a_srs", "EPSG:4326"},
              {"X_POSSIBLE_NAMES=lon", "Y_POSSIBLE_NAMES=lat", "KEEP_GEOM_COLUMNS=NO"});
    const auto via_gdal = quoct_test::run_cli("join --count --format csv --polygon-columns name --polygons '" + polygons +
                                              "' '" + points + "'");
    const auto via_text = quoct_test::run_cli("join --count --format csv --polygon-columns name --polygons '" + countries +
                                              "' '" + cities + "'");
    REQUIRE(via_gdal.status == 0);
    REQUIRE(via_text.status == 0);
    CHECK(via_gdal.out == via_text.out);
    // Row by row: the points' columns come through GDAL (gpkg adds its fid as feature_id).
    const auto rows_gdal = quoct_test::run_cli("join --inner --format csv --polygon-columns iso_a3 --polygons '" + polygons +
                                               "' '" + points + "'");
    const auto rows_text = quoct_test::run_cli("join --inner --format csv --polygon-columns iso_a3 --polygons '" + countries +
                                               "' '" + cities + "'");
    const io::csv_table a = csv_of(rows_gdal.out), b = csv_of(rows_text.out);
    REQUIRE(a.rows.size() == b.rows.size());
    const std::size_t ai = a.column("id"), bi = b.column("id"), ap = a.column("polygon_iso_a3"), bp = b.column("polygon_iso_a3");
    const std::size_t alon = a.column("lon"), blon = b.column("lon");
    for (std::size_t r = 0; r < a.rows.size(); ++r) {
        REQUIRE(a.rows[r][ai] == b.rows[r][bi]);
        REQUIRE(a.rows[r][ap] == b.rows[r][bp]);
        REQUIRE(a.rows[r][alon] == b.rows[r][blon]);
    }
    // A GeoPackage piped in on standard input.
    const auto piped = quoct_test::run_cli("near --lon 2.35 --lat 48.85 --km 5 --format csv - < '" + points + "'");
    const auto direct = quoct_test::run_cli("near --lon 2.35 --lat 48.85 --km 5 --format csv '" + cities + "'");
    REQUIRE(piped.status == 0);
    CHECK(csv_of(piped.out).rows.size() == csv_of(direct.out).rows.size());
}

TEST_CASE("quoct writes GeoPackage and FlatGeobuf that OGR reads back", "[gdal][cli]") {
    register_gdal();
    const std::string gpkg = quoct_test::temp_path("near.gpkg");
    const auto written = quoct_test::run_cli("near --lon 2.35 --lat 48.85 --km 20 -o '" + gpkg + "' '" + cities + "'");
    REQUIRE(written.status == 0);
    CHECK(written.out.empty());
    const io::csv_table expected = csv_of(quoct_test::run_cli("near --lon 2.35 --lat 48.85 --km 20 --format csv '" + cities + "'").out);
    GDALDatasetH ds = GDALOpenEx(gpkg.c_str(), GDAL_OF_VECTOR, nullptr, nullptr, nullptr);
    REQUIRE(ds != nullptr);
    OGRLayerH layer = GDALDatasetGetLayer(ds, 0);
    REQUIRE(OGR_L_GetFeatureCount(layer, TRUE) == static_cast<GIntBig>(expected.rows.size()));
    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(layer);
    const int distance = OGR_FD_GetFieldIndex(defn, "distance_km");
    REQUIRE(distance >= 0);
    CHECK(OGR_Fld_GetType(OGR_FD_GetFieldDefn(defn, distance)) == OFTReal);
    // The CSV's number columns are typed: integers, as GDAL's CSV driver reads them.
    const int population = OGR_FD_GetFieldIndex(defn, "population"), id = OGR_FD_GetFieldIndex(defn, "id");
    REQUIRE(population >= 0);
    REQUIRE(id >= 0);
    CHECK(OGR_Fld_GetType(OGR_FD_GetFieldDefn(defn, population)) == OFTInteger64);
    CHECK(OGR_Fld_GetType(OGR_FD_GetFieldDefn(defn, id)) == OFTInteger64);
    CHECK(OGR_Fld_GetType(OGR_FD_GetFieldDefn(defn, OGR_FD_GetFieldIndex(defn, "country"))) == OFTString);
    const std::size_t lon = expected.column("lon"), lat = expected.column("lat"), name = expected.column("name");
    const std::size_t expected_population = expected.column("population"), expected_id = expected.column("id");
    OGR_L_ResetReading(layer);
    for (std::size_t r = 0; r < expected.rows.size(); ++r) {
        OGRFeatureH f = OGR_L_GetNextFeature(layer);
        REQUIRE(f != nullptr);
        OGRGeometryH g = OGR_F_GetGeometryRef(f);
        CHECK(io::shortest_decimal(OGR_G_GetX(g, 0)) == expected.rows[r][lon]);
        CHECK(io::shortest_decimal(OGR_G_GetY(g, 0)) == expected.rows[r][lat]);
        CHECK(OGR_F_GetFieldAsString(f, OGR_FD_GetFieldIndex(defn, "name")) == expected.rows[r][name]);
        CHECK(std::to_string(OGR_F_GetFieldAsInteger64(f, population)) == expected.rows[r][expected_population]);
        CHECK(std::to_string(OGR_F_GetFieldAsInteger64(f, id)) == expected.rows[r][expected_id]);
        OGR_F_Destroy(f);
    }
    GDALClose(ds);
    // The whole table through the command: every sample, every value, back.
    const std::string typed = quoct_test::temp_path("typed.gpkg"), again = quoct_test::temp_path("again.gpkg");
    write_samples(typed, "GPKG", 4326, true);
    REQUIRE(quoct_test::run_cli("box --west -180 --east 180 --south -90 --north 90 -o '" + again + "' '" + typed + "'").status == 0);
    const io::location_table back = io::gdal::read_locations(again);
    check_samples(back, samples(), true, true);
    CHECK(back.find_column("feature_id") < back.columns.size());
    // Counts per polygon, with the polygons, as FlatGeobuf.
    const std::string counts = quoct_test::temp_path("counts.fgb");
    REQUIRE(quoct_test::run_cli("join --count --polygon-columns name --polygons '" + countries + "' -o '" + counts + "' '" +
                                cities + "'").status == 0);
    const io::polygon_layer layer_back = io::gdal::read_polygon_layer(counts);
    const io::csv_table counted = csv_of(quoct_test::run_cli("join --count --format csv --polygon-columns name --polygons '" +
                                                             countries + "' '" + cities + "'").out);
    REQUIRE(layer_back.features.size() == counted.rows.size());
    // FlatGeobuf keeps its features in its spatial index's order: match them by polygon_id.
    std::map<std::string, std::string> by_id;
    for (const auto& record : counted.rows) by_id[std::string(record[counted.column("polygon_id")])] = record[counted.column("count")];
    const std::size_t id_col = layer_back.find_column("polygon_id"), count_col = layer_back.find_column("count");
    for (const auto& f : layer_back.features) {
        CHECK(by_id.at(f.values[id_col]) == f.values[count_col]);
        CHECK_FALSE(f.polygons.empty());
    }
}

TEST_CASE("quoct with GDAL: a zipped Shapefile is read as it is, by path", "[gdal][cli]") {
    // GDAL writes the zips itself (.shp.zip), a Shapefile of points and one of polygons; renamed
    // to plain .zip, which no driver claims by name, so quoct must look inside.
    const std::string points_zip = quoct_test::temp_path("cities_shp.zip"), polygons_zip = quoct_test::temp_path("countries_shp.zip");
    translate(cities, points_zip + ".shp.zip", {"-f", "ESRI Shapefile", "-a_srs", "EPSG:4326"},
              {"X_POSSIBLE_NAMES=lon", "Y_POSSIBLE_NAMES=lat", "KEEP_GEOM_COLUMNS=NO"});
    translate(countries, polygons_zip + ".shp.zip", {"-f", "ESRI Shapefile", "-nlt", "MULTIPOLYGON"});
    std::filesystem::rename(points_zip + ".shp.zip", points_zip);
    std::filesystem::rename(polygons_zip + ".shp.zip", polygons_zip);
    REQUIRE(io::gdal::identify(points_zip).empty());
    const auto zipped = quoct_test::run_cli("join --count --format csv --polygons '" + polygons_zip + "' '" + points_zip + "'");
    const auto text = quoct_test::run_cli("join --count --format csv --polygons '" + countries + "' '" + cities + "'");
    REQUIRE(zipped.status == 0);
    CHECK(zipped.out == text.out);
    // A zip archive of something else is named as such.
    const std::string junk = quoct_test::temp_path("junk.zip");
    std::ofstream(junk, std::ios::binary) << std::string("PK\x03\x04\0\0garbage\0\0", 16);
    const std::string err = quoct_test::temp_path("zip_err.txt");
    CHECK(quoct_test::run_cli("near --lon 0 --lat 0 --k 1 '" + junk + "'", err).status == 1);
    CHECK_THAT(quoct_test::file_text(err), Catch::Contains("is a zip archive, which GDAL does not read as a vector source"));
}

TEST_CASE("quoct loads its GDAL module only when GDAL is needed, and names it when it is missing", "[gdal][cli]") {
    // The command alone in a directory of the build tree (a temporary directory may be
    // mounted noexec), without quoct-gdal.so beside it (or in ../lib/quoct).
    const std::filesystem::path top = std::filesystem::path(QUOCT_CLI).parent_path().parent_path() /
                                      ("gdal_module_test_" + std::to_string(::getpid()));
    struct removed {
        std::filesystem::path path;
        ~removed() {
            std::error_code ignored;
            std::filesystem::remove_all(path, ignored);
        }
    } cleanup{top};
    std::filesystem::create_directories(top / "bin");
    const std::filesystem::path dir = std::filesystem::canonical(top / "bin");
    const std::string alone = (dir / "quoct").string();
    std::filesystem::copy_file(QUOCT_CLI, alone);
    std::filesystem::permissions(alone, std::filesystem::perms::owner_exec, std::filesystem::perm_options::add);
    const std::string index = quoct_test::temp_path("alone.quoct");
    REQUIRE(quoct_test::run_cli("index -o '" + index + "' '" + cities + "'").status == 0);
    const std::string near = "near --lon 2.35 --lat 48.85 --km 5 --format csv ";
    const auto run = [&](const std::string& args, const std::string& err) { return quoct_test::run_program(alone, args, err); };
    // An index file never needs GDAL: the same answer as the whole command's.
    const std::string err = quoct_test::temp_path("alone.err");
    const auto from_index = run(near + "'" + index + "'", err);
    REQUIRE(from_index.status == 0);
    CHECK(from_index.out == quoct_test::run_cli(near + "'" + cities + "'").out);
    CHECK(quoct_test::file_text(err).empty());
    // A GeoPackage does: the error names the module and where it was looked for.
    const std::string gpkg = quoct_test::temp_path("alone.gpkg");
    translate(cities, gpkg, {"-f", "GPKG", "-a_srs", "EPSG:4326"},
              {"X_POSSIBLE_NAMES=lon", "Y_POSSIBLE_NAMES=lat", "KEEP_GEOM_COLUMNS=NO"});
    const auto from_gpkg = run(near + "'" + gpkg + "'", err);
    CHECK(from_gpkg.status == 1);
    const std::string message = quoct_test::file_text(err);
    CHECK(message.find("GDAL module, which cannot be loaded") != std::string::npos);
    CHECK(message.find((dir / "quoct-gdal.so").string()) != std::string::npos);
    // With the module, the GeoPackage gives what the CSV gives.
    const auto whole = quoct_test::run_cli(near + "'" + gpkg + "'");
    REQUIRE(whole.status == 0);
    CHECK(csv_of(whole.out).rows.size() == csv_of(from_index.out).rows.size());
}

TEST_CASE("quoct with GDAL: usage and data errors", "[gdal][cli]") {
    const std::string err = quoct_test::temp_path("gdal_err.txt");
    auto r = quoct_test::run_cli("near --lon 0 --lat 0 --km 1 --format gpkg '" + cities + "'", err);
    CHECK(r.status == 2);
    CHECK_THAT(quoct_test::file_text(err), Catch::Contains("--format gpkg writes a file: give -o FILE"));
    r = quoct_test::run_cli("near --lon 0 --lat 0 --km 1 --layer x '" + cities + "'", err);
    CHECK(r.status == 1);
    CHECK_THAT(quoct_test::file_text(err), Catch::Contains("--layer is for sources read through GDAL"));
    r = quoct_test::run_cli("near --lon 0 --lat 0 --km 1 -o /nonexistent-dir/out.gpkg '" + cities + "'", err);
    CHECK(r.status == 1);
    CHECK_THAT(quoct_test::file_text(err), Catch::Contains("/nonexistent-dir/out.gpkg: cannot create"));
    // A target that is not a regular file is refused, and no temporary file is left behind.
    const std::string dir = quoct_test::temp_path("a_directory.gpkg");
    std::filesystem::create_directories(dir);
    r = quoct_test::run_cli("near --lon 2.35 --lat 48.85 --km 3 -o '" + dir + "' '" + cities + "'", err);
    CHECK(r.status == 1);
    CHECK_THAT(quoct_test::file_text(err), Catch::Contains("not a regular file"));
    std::size_t partial = 0;
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(dir).parent_path()))
        partial += e.path().filename().string().rfind(".partial-", 0) == 0;
    CHECK(partial == 0);
}

TEST_CASE("GDAL output: typed fields, names GeoPackage would refuse, polygons without geometry", "[gdal]") {
    register_gdal();
    // Typed columns from a typed source keep their OGR types through quoct.
    const std::string typed = quoct_test::temp_path("typed_in.gpkg"), again = quoct_test::temp_path("typed_out.gpkg");
    write_samples(typed, "GPKG", 4326, true);
    const io::location_table in = io::gdal::read_locations(typed);
    std::vector<io::hit> hits;
    for (std::size_t i = 0; i < in.locations.size(); ++i) hits.push_back({i, 0});
    io::gdal::write_locations(again, io::gdal::output_driver("gpkg"), in, hits);
    GDALDatasetH ds = GDALOpenEx(again.c_str(), GDAL_OF_VECTOR, nullptr, nullptr, nullptr);
    REQUIRE(ds != nullptr);
    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(GDALDatasetGetLayer(ds, 0));
    const auto field = [&](const char* name) { return OGR_FD_GetFieldDefn(defn, OGR_FD_GetFieldIndex(defn, name)); };
    CHECK(OGR_Fld_GetType(field("name")) == OFTString);
    CHECK(OGR_Fld_GetType(field("population")) == OFTInteger64);
    CHECK(OGR_Fld_GetType(field("area")) == OFTReal);
    CHECK(OGR_Fld_GetType(field("capital")) == OFTInteger);
    CHECK(OGR_Fld_GetSubType(field("capital")) == OFSTBoolean);
    CHECK(OGR_Fld_GetType(field("feature_id")) == OFTInteger64);
    GDALClose(ds);
    check_samples(io::gdal::read_locations(again), samples(), true, true);

    // Columns called fid and geom, and two names equal but for case.
    io::location_table t;
    t.source = "by hand";
    t.columns = {"fid", "geom", "Name", "name"};
    t.values = io::text_fields(4);
    t.values.push_row({"a", "b", "c", "d"});
    t.locations = {{1.5, 2.5}};
    t.origins = t.records = {1};
    const std::string odd = quoct_test::temp_path("odd_names.gpkg");
    io::gdal::write_locations(odd, "GPKG", t, {{0, 0}});
    const io::location_table back = io::gdal::read_locations(odd);
    CHECK(back.columns == std::vector<std::string>{"fid", "geom", "Name", "name_2"});
    REQUIRE(back.locations.size() == 1);
    CHECK(back.values[0][0] == "a");
    CHECK(back.values[0][3] == "d");
    CHECK(back.locations[0].lon == 1.5);

    // A polygon without geometry keeps its row in GeoPackage; FlatGeobuf, which would drop it
    // without a word, is refused.
    std::istringstream layer_text(R"({"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"name":"A"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}},
        {"type":"Feature","properties":{"name":"none"},"geometry":null}]})");
    const io::polygon_layer layer = io::read_geojson_polygon_layer(layer_text, "layer");
    const std::string fgb = quoct_test::temp_path("with_null.fgb"), gpkg = quoct_test::temp_path("with_null.gpkg");
    REQUIRE_THROWS_WITH(io::gdal::write_polygon_counts(fgb, "FlatGeobuf", layer, {0, 1}, {3, 0}, {0}),
                        Catch::Contains("feature 2 (name none) has no geometry, which FlatGeobuf cannot hold"));
    CHECK_FALSE(std::filesystem::exists(fgb));
    io::gdal::write_polygon_counts(gpkg, "GPKG", layer, {0, 1}, {3, 0}, {0});
    const io::polygon_layer read_back = io::gdal::read_polygon_layer(gpkg);
    REQUIRE(read_back.features.size() == 2);
    std::map<std::string, std::size_t> polygons_of;
    for (const auto& f : read_back.features) polygons_of[f.values[read_back.find_column("polygon_name")]] = f.polygons.size();
    CHECK(polygons_of == std::map<std::string, std::size_t>{{"A", 1}, {"none", 0}});
}

TEST_CASE("GDAL repair: overlapping parts joined, a bow tie split, areas by Boost.Geometry", "[gdal]") {
    namespace bg = boost::geometry;
    // Two squares overlapping in a unit square: 4 + 4 - 1 = 7.
    const io::lonlat_polygons overlapping = {{{{0, 0}, {2, 0}, {2, 2}, {0, 2}, {0, 0}}}, {{{1, 1}, {3, 1}, {3, 3}, {1, 3}, {1, 1}}}};
    REQUIRE_THROWS(io::area_of(overlapping, "two squares"));
    const io::wkt_multi_polygon joined = io::area_of(io::gdal::make_valid(overlapping, "two squares"), "repaired");
    CHECK(bg::area(joined) == Approx(7.0));
    CHECK(bg::covered_by(io::wkt_point(1.5, 1.5), joined));  // in the overlap
    // A bow tie: two triangles of area 1 each.
    const io::lonlat_polygons bow = {{{{0, 0}, {2, 2}, {2, 0}, {0, 2}, {0, 0}}}};
    REQUIRE_THROWS(io::area_of(bow, "bow tie"));
    const io::wkt_multi_polygon split = io::area_of(io::gdal::make_valid(bow, "bow tie"), "repaired");
    CHECK(split.size() == 2);
    CHECK(bg::area(split) == Approx(2.0));
}

TEST_CASE("GDAL sources: a point that cannot be reprojected, or a CSV x that is not a number, is a bad row", "[gdal]") {
    const std::string seq = quoct_test::temp_path("far.geojsonl");
    std::ofstream(seq) << R"({"type":"Feature","properties":{"n":1},"geometry":{"type":"Point","coordinates":[500000,5400000]}})" "\n"
                       << R"({"type":"Feature","properties":{"n":2},"geometry":{"type":"Point","coordinates":[1e30,1e30]}})" "\n"
                       << R"({"type":"Feature","properties":{"n":3},"geometry":{"type":"Point","coordinates":[600000,5500000]}})" "\n";
    io::gdal::source_options utm;
    utm.source_srs = "EPSG:32631";
    REQUIRE_THROWS_WITH(io::gdal::read_locations(seq, {}, utm), Catch::Contains("feature 2: cannot be reprojected"));
    io::read_options skip;
    skip.on_bad_row = io::bad_row_policy::skip;
    const io::location_table t = io::gdal::read_locations(seq, skip, utm);
    CHECK(t.records == std::vector<std::size_t>{1, 3});
    REQUIRE(t.skipped.size() == 1);
    CHECK(t.skipped[0].where == 2);

    const std::string csv = quoct_test::temp_path("xy.csv");
    std::ofstream(csv) << "name,X,Y\na,500000,5400000\nb,abc,5400000\nc,600000,\nd,600000,5500000\n";
    io::read_options xy = skip;
    xy.lon_column = "X";
    xy.lat_column = "Y";
    const io::location_table u = io::gdal::read_locations_csv(csv, xy, utm);
    CHECK(u.records == std::vector<std::size_t>{1, 4});
    REQUIRE(u.skipped.size() == 2);
    CHECK_THAT(u.skipped[0].message, Catch::EndsWith("xy.csv: feature 2: column 'X' is not a number"));
    CHECK_THAT(u.skipped[1].message, Catch::EndsWith("xy.csv: feature 3: column 'Y' is not a number"));
    CHECK(u.columns == std::vector<std::string>{"name"});
    xy.on_bad_row = io::bad_row_policy::stop;
    REQUIRE_THROWS_WITH(io::gdal::read_locations_csv(csv, xy, utm), Catch::Contains("feature 2: column 'X'"));
}

#endif  // QUOCT_CLI
