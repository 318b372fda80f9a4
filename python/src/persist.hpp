// quoct's Python module: index files and pickling (quoct/file.hpp), one set of helpers for
// Tree, DynamicTree and geo.Index. An index pickles as the bytes of its file (no rebuild
// when unpickled); a mapped one can also be reopened from its path.
#ifndef QUOCT_PYTHON_PERSIST_HPP
#define QUOCT_PYTHON_PERSIST_HPP

#include <string>
#include <utility>
#include <vector>

#include <quoct/file.hpp>

#include "common.hpp"

namespace quoct_py {

/// The index's file as Python bytes.
template <class Index>
py::bytes bytes_of(const Index& index) {
    std::vector<unsigned char> bytes;
    {
        py::gil_scoped_release nogil;
        bytes = quoct::to_bytes(index);
    }
    return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

/// An index read from Python bytes (copied, checksums verified).
template <class Index>
Index from_py_bytes(const py::bytes& b) {
    char* data = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(b.ptr(), &data, &size) != 0) throw py::error_already_set();
    py::gil_scoped_release nogil;
    return quoct::from_bytes<Index>(data, static_cast<std::size_t>(size));
}

template <class Index>
void save_to(const Index& index, const std::string& path) {
    py::gil_scoped_release nogil;
    quoct::save(index, path);
}

/// An index read from a file: mapped (quoct::open) or loaded.
template <class Index>
Index read_from(const std::string& path, bool mapped) {
    py::gil_scoped_release nogil;
    return mapped ? quoct::open<Index>(path) : quoct::load<Index>(path);
}

/// The index type an index file or its bytes hold, as its header names it.
inline std::string file_type(const std::string& path) { return quoct::read_file_info(path).type; }
inline std::string bytes_type(const py::bytes& b) {
    char* data = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(b.ptr(), &data, &size) != 0) throw py::error_already_set();
    return quoct::read_file_info(data, static_cast<std::size_t>(size)).type;
}

}  // namespace quoct_py

#endif  // QUOCT_PYTHON_PERSIST_HPP
