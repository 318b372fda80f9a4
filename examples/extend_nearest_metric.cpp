// A NearestMetric of your own: k nearest by a weighted distance (axis a counts w[a] times
// as much), through orthtree::search_nearest and quoct::knn_set, checked against brute force.
//
// A NearestMetric (docs/extending/nearest-metric.md) has to_point(p), the value the answer
// is ordered by, and to_box(box), a lower bound of it over the closed box, rounding
// included: the search skips a node only when to_box exceeds the set's bound.
#include <quoct/quoct.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

using point3 = quoct::point<double, 3>;
using box3 = quoct::box<double, 3>;

// The sum over the axes, in axis order, of (w[a] * difference)^2. to_box uses the same
// expression with the gap from the query to the box on each axis, which is at most the
// difference to any point of the box, rounded or not (each step is monotone), so it is a
// lower bound of to_point over the box.
struct weighted_metric {
    point3 query;
    double w[3];

    double to_point(const point3& p) const {
        double s = 0;
        for (std::size_t a = 0; a < 3; ++a) {
            const double d = w[a] * (p[a] - query[a]);
            s += d * d;
        }
        return s;
    }
    double to_box(const box3& b) const {
        double s = 0;
        for (std::size_t a = 0; a < 3; ++a) {
            double gap = 0;
            if (query[a] < b.lo[a]) gap = b.lo[a] - query[a];
            else if (query[a] > b.hi[a]) gap = query[a] - b.hi[a];
            const double d = w[a] * gap;
            s += d * d;
        }
        return s;
    }
    // Optional: the search starts at the leaf that holds this point.
    const point3& origin() const { return query; }
};
static_assert(quoct::is_nearest_metric_v<weighted_metric, double, 3>, "weighted_metric is a NearestMetric");

}  // namespace

int main() {
    std::mt19937_64 rng(23);
    std::uniform_real_distribution<double> coordinate(0, 100);
    std::vector<point3> points(100000);
    for (auto& p : points) p = point3{{coordinate(rng), coordinate(rng), coordinate(rng)}};
    const quoct::octree<double> tree(points);

    const std::size_t k = 8;
    for (int q = 0; q < 200; ++q) {
        const weighted_metric metric{point3{{coordinate(rng), coordinate(rng), coordinate(rng)}}, {1.0, 4.0, 0.25}};
        std::vector<quoct::neighbor<double, std::uint32_t>> got;
        quoct::knn_set<double, std::uint32_t> set(got, k);
        tree.search_nearest(metric, set, [&](std::uint32_t id, double d) { set.offer(id, d); });
        set.finish();  // got: nearest first, ties by the smaller id

        std::vector<quoct::neighbor<double, std::uint32_t>> want;
        for (std::uint32_t i = 0; i < points.size(); ++i) want.push_back({i, metric.to_point(points[i])});
        std::partial_sort(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(k), want.end(),
                          [](const auto& x, const auto& y) {
                              return x.distance_sq < y.distance_sq || (x.distance_sq == y.distance_sq && x.id < y.id);
                          });
        for (std::size_t i = 0; i < k; ++i)
            if (got.size() != k || got[i].id != want[i].id || got[i].distance_sq != want[i].distance_sq) {
                std::printf("query %d: neighbour %zu differs from brute force\n", q, i);
                return 1;
            }
    }
    std::printf("200 queries, the 8 nearest by a weighted distance, each as brute force finds them\n");
    return 0;
}
