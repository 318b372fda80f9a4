// A Shape of your own: the points of a spherical shell (between two radii around a
// centre), queried through orthtree::query_shape and checked against brute force.
//
// A Shape (docs/extending/shape.md) has two members: classify(box), which may say outside
// only if no point of the closed box is in the shape and inside only if every point is
// (partial is always safe), and contains(point), the membership predicate. The answer is
// then exactly the points contains() accepts: the tree takes an inside node whole and
// never opens an outside one.
#include <quoct/quoct.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

using point3 = quoct::point<double, 3>;
using box3 = quoct::box<double, 3>;

// The closed shell inner <= |p - centre| <= outer, measured as squared distances in double.
// distance_sq(centre, box) is at most distance_sq(centre, p) for every p in the box, and
// farthest_distance_sq(centre, box) at least it, rounding included (quoct/shapes.hpp), so
// the bounds below never contradict contains().
struct shell {
    point3 centre;
    double inner_sq, outer_sq;

    quoct::relation classify(const box3& b) const {
        const double near = quoct::distance_sq(centre, b), far = quoct::farthest_distance_sq(centre, b);
        if (near > outer_sq || far < inner_sq) return quoct::relation::outside;
        if (near >= inner_sq && far <= outer_sq) return quoct::relation::inside;
        return quoct::relation::partial;
    }
    bool contains(const point3& p) const {
        const double d = quoct::distance_sq(p, centre);
        return inner_sq <= d && d <= outer_sq;
    }
};
static_assert(quoct::is_shape_v<shell, double, 3>, "shell is a Shape");

}  // namespace

int main() {
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> coordinate(-1, 1);
    std::vector<point3> points(200000);
    for (auto& p : points) p = point3{{coordinate(rng), coordinate(rng), coordinate(rng)}};
    const quoct::octree<double> tree(points);

    std::size_t found = 0;
    for (int q = 0; q < 20; ++q) {
        const shell s{points[static_cast<std::size_t>(q) * 997], 0.09, 0.16};  // radii 0.3 and 0.4
        std::vector<std::uint32_t> got;
        tree.query_shape(s, got);
        std::sort(got.begin(), got.end());
        std::vector<std::uint32_t> want;
        for (std::uint32_t i = 0; i < points.size(); ++i)
            if (s.contains(points[i])) want.push_back(i);
        if (got != want || tree.count_shape(s) != want.size()) {
            std::printf("shell %d: %zu points, brute force %zu\n", q, got.size(), want.size());
            return 1;
        }
        found += got.size();
    }
    std::printf("20 shells, %zu points in all, each as brute force finds them\n", found);
    return 0;
}
