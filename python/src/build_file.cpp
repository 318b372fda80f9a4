// quoct._core.build_file: quoct::build_file (<quoct/build_file.hpp>) from a LAS file or from
// any numpy array of shape (n, 2) or (n, 3), a memmap included, read a chunk at a time (a
// memmap's pages are read as the chunks reach them; nothing is copied whole). The public
// form is quoct.Tree.build_file (python/quoct).
#include <cstddef>
#include <cstdint>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <quoct/build_file.hpp>
#include <quoct/io/cloud.hpp>
#include <quoct/io/las.hpp>

#include "common.hpp"

namespace quoct_py {

namespace {

// Rows [next, next + k) of a numpy array as point<T, D>, converted by numpy a chunk at a time
// (any dtype numpy converts, any strides). The build runs without the GIL; read() takes it.
template <class T, std::size_t D>
class array_rows {
public:
    array_rows(py::object array, std::size_t n) : array_(std::move(array)), n_(n) {}
    std::size_t read(quoct::point<T, D>* out, std::size_t max) {
        const std::size_t k = std::min(max, n_ - next_);
        if (k == 0) return 0;
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();  // Ctrl-C stops the build
        const py::object chunk = array_[py::slice(static_cast<py::ssize_t>(next_), static_cast<py::ssize_t>(next_ + k), 1)];
        const py::array_t<T, py::array::c_style | py::array::forcecast> rows(chunk);  // numpy's own error if it cannot
        const T* p = rows.data();
        for (std::size_t i = 0; i < k; ++i)
            for (std::size_t a = 0; a < D; ++a) out[i][a] = p[i * D + a];
        next_ += k;
        return k;
    }
    void rewind() { next_ = 0; }

private:
    py::object array_;
    std::size_t n_;
    std::size_t next_ = 0;
};

template <class T, std::size_t D, class Stream>
void build(Stream& in, const std::string& path, const quoct::build_file_options& o) {
    py::gil_scoped_release release;
    quoct::build_file<quoct::orthtree<T, D>>(in, path, o);
}

template <class T>
void build_array(const py::object& array, std::size_t n, std::size_t m, const std::string& path,
                 const quoct::build_file_options& o) {
    if (m == 2) {
        array_rows<T, 2> in(array, n);
        build<T, 2>(in, path, o);
    } else {
        array_rows<T, 3> in(array, n);
        build<T, 3>(in, path, o);
    }
}

}  // namespace

void bind_build_file(py::module_& m) {
    m.def(
        "build_file",
        [](const py::object& source, const std::string& path, std::size_t memory_limit, std::size_t leafsize,
           bool float32, const std::string& temp_dir) {
            quoct::build_file_options o;
            o.memory_limit = memory_limit;
            o.temp_dir = temp_dir;
            if (leafsize != 0) o.tree.leaf_size = leafsize;
            if (py::isinstance<py::str>(source)) {
                if (float32) throw py::value_error("a LAS, PLY or XYZ file builds a float64 tree");
                const std::string file = source.cast<std::string>();
                const std::size_t dot = file.find_last_of("./");
                std::string ext = dot != std::string::npos && file[dot] == '.' ? file.substr(dot) : "";
                for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
                if (ext == ".ply") {
                    quoct::io::ply_points in(file);
                    build<double, 3>(in, path, o);
                } else if (ext == ".xyz") {
                    quoct::io::xyz_points in(file);
                    build<double, 3>(in, path, o);
                } else {
                    quoct::io::las_points in(file);
                    build<double, 3>(in, path, o);
                }
                return;
            }
            const py::tuple shape = source.attr("shape");
            if (shape.size() != 2 || (shape[1].cast<std::size_t>() != 2 && shape[1].cast<std::size_t>() != 3))
                throw py::value_error("build_file reads arrays of shape (n, 2) or (n, 3)");
            const std::size_t n = shape[0].cast<std::size_t>(), dims = shape[1].cast<std::size_t>();
            if (float32) build_array<float>(source, n, dims, path, o);
            else build_array<double>(source, n, dims, path, o);
        },
        py::arg("source"), py::arg("path"), py::arg("memory_limit"), py::arg("leafsize"), py::arg("float32"),
        py::arg("temp_dir"));
}

}  // namespace quoct_py
