// quoct._core: the float32 trees of 5 to 8 dimensions (tree_core.hpp).
#include "tree_core.hpp"

namespace quoct_py {

void bind_trees_f32_high(py::module_& m) { bind_trees<float, 5, 6, 7, 8>(m); }

py::object tree_f32_high_from(const std::string& type, const std::string* path, bool mapped, const py::bytes* bytes) {
    return path ? tree_among_from_file<float, 5, 6, 7, 8>(type, *path, mapped) : tree_among_from_bytes<float, 5, 6, 7, 8>(type, *bytes);
}

}  // namespace quoct_py
