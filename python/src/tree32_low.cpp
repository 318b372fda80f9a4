// quoct._core: the float32 trees of 1 to 4 dimensions (tree_core.hpp).
#include "tree_core.hpp"

namespace quoct_py {

void bind_trees_f32_low(py::module_& m) { bind_trees<float, 1, 2, 3, 4>(m); }

py::object tree_f32_low_from(const std::string& type, const std::string* path, bool mapped, const py::bytes* bytes) {
    return path ? tree_among_from_file<float, 1, 2, 3, 4>(type, *path, mapped) : tree_among_from_bytes<float, 1, 2, 3, 4>(type, *bytes);
}

}  // namespace quoct_py
