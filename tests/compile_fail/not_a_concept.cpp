// Must not compile: a Shape, a NearestMetric or a ResultSet that lacks a member. The
// compiler's only error is the static_assert of quoct/orthtree.hpp that names the members
// the concept needs (quoct/concepts.hpp).
#include <quoct/quoct.hpp>

#include <cstdint>
#include <vector>

using point3 = quoct::point<double, 3>;
using box3 = quoct::box<double, 3>;

struct no_contains {  // a Shape without its membership predicate
    quoct::relation classify(const box3&) const { return quoct::relation::partial; }
};
struct no_to_box {  // a NearestMetric without its lower bound over a box
    double to_point(const point3&) const { return 0; }
};
struct no_full {  // a ResultSet without full()
    double bound() const { return 1; }
};

int main() {
    const std::vector<point3> pts{{{0, 0, 0}}, {{1, 1, 1}}};
    const quoct::octree<double> tree(pts);
#if defined(QUOCT_FAIL_CASE_METRIC)
    quoct::knn_set<double, std::uint32_t>* set = nullptr;
    tree.search_nearest(no_to_box{}, *set, [](std::uint32_t, double) {});
#elif defined(QUOCT_FAIL_CASE_SET)
    tree.search_nearest(quoct::euclidean_nearest_metric<double, 3>{{{0, 0, 0}}}, no_full{}, [](std::uint32_t, double) {});
#else
    std::vector<std::uint32_t> out;
    tree.query_shape(no_contains{}, out);
#endif
    return 0;
}
