// quoct._core.GeoIndex: quoct::geo::index behind quoct.geo.Index, and geo distances.
#include <quoct/geo/index.hpp>
#include <quoct/geo/polygons.hpp>
#include <quoct/io/wkt.hpp>

#include <exception>
#include <sstream>
#include <utility>

#include <quoct/parallel.hpp>

#include "common.hpp"
#include "persist.hpp"

namespace quoct_py {
namespace {

namespace geo = quoct::geo;

// Kilometres (the Python unit) to the C++ index's metres, and back.
constexpr double metres_per_km = 1000.0;

class geo_core {
public:
    // lon_lat: (n, 2), longitude then latitude in each row (the flat constructor's layout).
    geo_core(const darray& lon_lat, std::size_t leafsize) {
        const std::size_t n = rows_of(lon_lat, 2, "lon_lat");
        quoct::build_options options;
        options.leaf_size = leafsize;
        const double* v = lon_lat.data();
        py::gil_scoped_release nogil;
        index_ = geo::index<id_type>(v, n, options);
        release_free_memory(n);
    }

    explicit geo_core(geo::index<id_type> index) : index_(std::move(index)) {}

    std::size_t size() const noexcept { return index_.size(); }
    // (n, 2): the locations by id, lon then lat, as given.
    py::array_t<double> locations() const {
        py::array_t<double> out({index_.size(), std::size_t{2}});
        double* o = out.mutable_data();
        for (std::size_t i = 0; i < index_.size(); ++i) {
            const geo::lonlat& p = index_.location(static_cast<id_type>(i));
            o[2 * i] = p.lon;
            o[2 * i + 1] = p.lat;
        }
        return out;
    }
    py::bytes to_bytes() const { return bytes_of(index_); }
    void save(const std::string& path) const { save_to(index_, path); }

    // A geo core from an index file or its bytes, which must hold a geo::index<uint32>.
    static geo_core from_file(const std::string& path, bool mapped) {
        return geo_core(read_from<geo::index<id_type>>(path, mapped));
    }
    static geo_core from_bytes(const py::bytes& b) { return geo_core(from_py_bytes<geo::index<id_type>>(b)); }

    iarray within(double lon, double lat, double km) const {
        std::vector<id_type> ids;
        {
            py::gil_scoped_release nogil;
            index_.within(lon, lat, km * metres_per_km, ids);
            std::sort(ids.begin(), ids.end());
        }
        return int_array(ids);
    }

    iarray count_within(const darray& lon, const darray& lat, const darray& km, unsigned threads) const {
        const std::size_t m = static_cast<std::size_t>(lon.size());
        if (static_cast<std::size_t>(lat.size()) != m || static_cast<std::size_t>(km.size()) != m)
            throw std::invalid_argument("quoct: lon, lat and km must have one length");
        std::vector<std::size_t> counts(m);
        {
            py::gil_scoped_release nogil;
            quoct::parallel_for(m, threads, [&](std::size_t i) {
                counts[i] = index_.count_within(lon.data()[i], lat.data()[i], km.data()[i] * metres_per_km);
            });
        }
        return int_array(counts);
    }

    py::tuple nearest(double lon, double lat, std::size_t k) const {
        std::vector<geo::neighbor<id_type>> found;
        {
            py::gil_scoped_release nogil;
            index_.nearest(lon, lat, k, found);
        }
        py::array_t<double> km(static_cast<py::ssize_t>(found.size()));
        iarray ids(static_cast<py::ssize_t>(found.size()));
        for (std::size_t i = 0; i < found.size(); ++i) {
            km.mutable_data()[i] = found[i].distance / metres_per_km;
            ids.mutable_data()[i] = found[i].id;
        }
        return py::make_tuple(km, ids);
    }

    iarray box(double west, double south, double east, double north) const {
        std::vector<id_type> ids;
        {
            py::gil_scoped_release nogil;
            index_.in_box(west, south, east, north, ids);
            std::sort(ids.begin(), ids.end());
        }
        return int_array(ids);
    }

    iarray polygon(const std::string& wkt) const {
        std::vector<id_type> ids;
        {
            py::gil_scoped_release nogil;
            const auto area = quoct::io::read_wkt_area(wkt, "wkt");
            geo::visit_covered_by(index_, area, [&](id_type id) { ids.push_back(id); });
            std::sort(ids.begin(), ids.end());
        }
        return int_array(ids);
    }

    // Every (point, polygon) pair with the point covered by polygons[j], sorted by point then
    // polygon: polygons given as text, each WKT or (when `geojson[j]`) a GeoJSON geometry or
    // Feature; tested on `threads` threads. Throws parse_error naming "polygons[j]".
    py::tuple join(const std::vector<std::string>& polygons, const std::vector<bool>& geojson, unsigned threads) const {
        std::vector<std::pair<id_type, std::int64_t>> pairs;
        {
            py::gil_scoped_release nogil;
            const std::size_t m = polygons.size();
            // Every polygon read and checked first, so that an invalid one raises before any
            // work (the first by position), then tested, both on `threads` threads (0: all).
            std::vector<quoct::io::wkt_multi_polygon> areas(m);
            std::vector<std::exception_ptr> errors(m);
            quoct::parallel_for(
                m, threads, [&](std::size_t j) {
                    const std::string name = "polygons[" + std::to_string(j) + "]";
                    try {
                        if (geojson[j]) {
                            std::istringstream in(polygons[j]);
                            areas[j] = quoct::io::read_geojson_area(in, name);
                        } else {
                            areas[j] = quoct::io::read_wkt_area(polygons[j], name);
                        }
                    } catch (const quoct::io::parse_error&) {
                        errors[j] = std::current_exception();
                    }
                },
                1);
            for (const auto& e : errors)
                if (e) std::rethrow_exception(e);
            std::vector<std::vector<id_type>> covered(m);
            quoct::parallel_for(
                m, threads,
                [&](std::size_t j) {
                    geo::visit_covered_by(index_, areas[j], [&](id_type id) { covered[j].push_back(id); });
                },
                1);
            for (std::size_t j = 0; j < m; ++j)
                for (id_type id : covered[j]) pairs.emplace_back(id, static_cast<std::int64_t>(j));
            std::sort(pairs.begin(), pairs.end());
        }
        iarray points(static_cast<py::ssize_t>(pairs.size())), which(static_cast<py::ssize_t>(pairs.size()));
        for (std::size_t k = 0; k < pairs.size(); ++k) {
            points.mutable_data()[k] = static_cast<std::int64_t>(pairs[k].first);
            which.mutable_data()[k] = pairs[k].second;
        }
        return py::make_tuple(points, which);
    }

private:
    geo::index<id_type> index_;
};

// Great-circle distances in km between (lon1[i], lat1[i]) and (lon2[i], lat2[i]).
py::array_t<double> distance_km(const darray& lon1, const darray& lat1, const darray& lon2, const darray& lat2) {
    const std::size_t m = static_cast<std::size_t>(lon1.size());
    if (static_cast<std::size_t>(lat1.size()) != m || static_cast<std::size_t>(lon2.size()) != m ||
        static_cast<std::size_t>(lat2.size()) != m)
        throw std::invalid_argument("quoct: the four coordinate arrays must have one length");
    py::array_t<double> out(static_cast<py::ssize_t>(m));
    double* o = out.mutable_data();
    {
        py::gil_scoped_release nogil;
        for (std::size_t i = 0; i < m; ++i)
            o[i] = geo::distance(geo::lonlat{lon1.data()[i], lat1.data()[i]},
                                 geo::lonlat{lon2.data()[i], lat2.data()[i]}) /
                   metres_per_km;
    }
    return out;
}

}  // namespace

void bind_geo(py::module_& m) {
    py::class_<geo_core>(m, "GeoIndex", "The compiled index behind quoct.geo.Index (private; use quoct.geo.Index).")
        .def(py::init<const darray&, std::size_t>(), py::arg("lon_lat"), py::arg("leafsize"))
        .def("locations", &geo_core::locations)
        .def("to_bytes", &geo_core::to_bytes)
        .def("save", &geo_core::save, py::arg("path"))
        .def_static("from_file", &geo_core::from_file, py::arg("path"), py::arg("mapped"))
        .def_static("from_bytes", &geo_core::from_bytes, py::arg("data"))
        .def_property_readonly("size", &geo_core::size)
        .def("within", &geo_core::within, py::arg("lon"), py::arg("lat"), py::arg("km"))
        .def("count_within", &geo_core::count_within, py::arg("lon"), py::arg("lat"), py::arg("km"),
             py::arg("threads"))
        .def("nearest", &geo_core::nearest, py::arg("lon"), py::arg("lat"), py::arg("k"))
        .def("box", &geo_core::box, py::arg("west"), py::arg("south"), py::arg("east"), py::arg("north"))
        .def("polygon", &geo_core::polygon, py::arg("wkt"))
        .def("join", &geo_core::join, py::arg("polygons"), py::arg("geojson"), py::arg("threads"));
    m.def("geo_distance_km", &distance_km, py::arg("lon1"), py::arg("lat1"), py::arg("lon2"), py::arg("lat2"));
    m.attr("earth_radius_km") = geo::earth_radius / metres_per_km;
}

}  // namespace quoct_py
