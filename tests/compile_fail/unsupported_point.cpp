// Must not compile: a point type quoct does not know. The compiler's only error is the
// static_assert of quoct/point_traits.hpp that says what to do.
#include <quoct/quoct.hpp>

#include <vector>

struct mystery {
    float a, b, c;
};

#if defined(QUOCT_FAIL_CASE_RANGE)
int main() {
    std::vector<mystery> pts(3);
    quoct::octree<float> tree(pts);
    return static_cast<int>(tree.size());
}
#elif defined(QUOCT_FAIL_CASE_DIMENSION)
int main() {
    std::vector<std::array<float, 2>> pts(3);
    quoct::octree<float> tree(pts);
    return static_cast<int>(tree.size());
}
#elif defined(QUOCT_FAIL_CASE_SCALARS)
int main() {
    std::vector<float> flat(9);
    quoct::octree<float> tree(flat);
    return static_cast<int>(tree.size());
}
#else
int main() {
    mystery pts[3] = {};
    quoct::octree<float> tree(pts, 3);
    return static_cast<int>(tree.size());
}
#endif
