// quoct._core.LasReader: LAS files read through quoct::io::las_reader (<quoct/io/las.hpp>),
// a chunk at a time, into numpy arrays. quoct.read_las and quoct.iter_las (python/quoct)
// are the public forms. A quoct::io::parse_error reaches Python as ValueError (module.cpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <quoct/io/las.hpp>

namespace quoct_py {

namespace py = pybind11;

void bind_las(py::module_& m) {
    py::class_<quoct::io::las_reader>(m, "LasReader")
        .def(py::init([](const std::string& path, std::vector<std::string> fields, bool check_bounds) {
                 quoct::io::las_options o;
                 o.fields = std::move(fields);
                 o.check_bounds = check_bounds;
                 py::gil_scoped_release release;
                 return quoct::io::las_reader(path, o);
             }),
             py::arg("path"), py::arg("fields"), py::arg("check_bounds"))
        .def_property_readonly("header",
                               [](const quoct::io::las_reader& r) {
                                   const quoct::io::las_header& h = r.header();
                                   py::dict d;
                                   d["version"] = py::make_tuple(h.version_major, h.version_minor);
                                   d["point_format"] = h.point_format;
                                   d["record_length"] = h.record_length;
                                   d["point_count"] = h.point_count;
                                   d["point_offset"] = h.point_offset;
                                   d["scale"] = py::make_tuple(h.scale[0], h.scale[1], h.scale[2]);
                                   d["offset"] = py::make_tuple(h.offset[0], h.offset[1], h.offset[2]);
                                   d["min"] = py::make_tuple(h.min[0], h.min[1], h.min[2]);
                                   d["max"] = py::make_tuple(h.max[0], h.max[1], h.max[2]);
                                   d["system_identifier"] = h.system_identifier;
                                   d["generating_software"] = h.generating_software;
                                   d["fields"] = h.fields;
                                   d["notes"] = h.notes;
                                   return d;
                               })
        .def_property_readonly("points_read", &quoct::io::las_reader::points_read)
        // The next at most max_points points: (xyz (m, 3), values (m, fields)), float64.
        .def("read", [](quoct::io::las_reader& r, std::size_t max_points) {
            quoct::io::point_cloud c;
            {
                py::gil_scoped_release release;
                r.read(c, max_points);
            }
            const std::size_t n = c.size(), w = c.property_names.size();
            py::array_t<double> xyz({n, std::size_t{3}}), values({n, w});
            std::copy(c.xyz.begin(), c.xyz.end(), xyz.mutable_data());
            std::copy(c.properties.begin(), c.properties.end(), values.mutable_data());
            return py::make_tuple(xyz, values);
        }, py::arg("max_points"));
}

}  // namespace quoct_py
