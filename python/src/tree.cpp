// quoct._core: the module-level functions of quoct.Tree (reading a tree from a file or
// bytes, whatever its dimension and type) and the binding of every TreeD / TreeDf.
#include "tree_core.hpp"

namespace quoct_py {
namespace {

// The tree core of the type a file names, from a path or from bytes.
py::object read_tree(const std::string& where, const std::string& type, const std::string* path, bool mapped,
                     const py::bytes* bytes) {
    for (auto part : {&tree_f64_low_from, &tree_f64_high_from, &tree_f32_low_from, &tree_f32_high_from}) {
        py::object out = part(type, path, mapped, bytes);
        if (out.ptr() != nullptr) return out;
    }
    throw quoct::file_error(where, "holds " + type +
                                       ", not a quoct.Tree (orthtree<double or float, 1 to 8, uint32>, or a "
                                       "periodic_index over one)");
}

}  // namespace

void bind_tree(py::module_& m) {
    bind_trees_f64_low(m);
    bind_trees_f64_high(m);
    bind_trees_f32_low(m);
    bind_trees_f32_high(m);
    m.def("tree_from_file", [](const std::string& path, bool mapped) {
        return read_tree(path, file_type(path), &path, mapped, nullptr);
    }, py::arg("path"), py::arg("mapped"));
    m.def("tree_from_bytes", [](const py::bytes& b) {
        return read_tree("<bytes>", bytes_type(b), nullptr, false, &b);
    }, py::arg("data"));
}

}  // namespace quoct_py
