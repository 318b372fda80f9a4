// quoct._core: the compiled half of the Python package quoct (python/quoct). The classes
// here are private; the package's Tree, DynamicTree and geo.Index check their arguments,
// give them scipy's shapes, and call these.
//
// Errors: quoct's std::invalid_argument and std::length_error reach Python as ValueError
// (pybind11's own translation), std::out_of_range as IndexError, and quoct::io::parse_error
// (a WKT polygon that cannot be read, a LAS file that cannot be read) as ValueError.
#include <quoct/io/csv.hpp>

#include "common.hpp"
#include "persist.hpp"

#ifndef QUOCT_VERSION
#define QUOCT_VERSION "0.0.0"
#endif

namespace py = pybind11;

PYBIND11_MODULE(_core, m) {
    m.doc() = "quoct's compiled extension (private: import quoct instead).";
    m.attr("__version__") = QUOCT_VERSION;
    // quoct::file_error (a file that cannot be read or written, is not an index file, holds
    // another type, is truncated or damaged) as quoct.FileError, an OSError.
    py::register_exception<quoct::file_error>(m, "FileError", PyExc_OSError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const quoct::io::parse_error& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        }
    });
    m.def("default_leaf_size", &quoct::build_options::default_leaf_size, py::arg("dimension"),
          "The leaf size quoct's C++ trees use by default in the given dimension.");
    quoct_py::bind_tree(m);
    quoct_py::bind_dynamic(m);
    quoct_py::bind_geo(m);
    quoct_py::bind_las(m);
    quoct_py::bind_build_file(m);
    quoct_py::bind_boxes(m);
}
