// A PairMetric of your own: every pair of points within r by a weighted distance (axis a
// counts w[a] times as much), found by quoct::for_each_pair_within over an index that
// offers the metric, and checked against brute force.
//
// A PairMetric (docs/extending/pair-metric.md) gives the pair searches a pair's distance
// axis by axis: axis_distance(a, x, y), whose squares, added in axis order, are
// distance_sq (the engine adds them itself and compares the sum with r * r), the same
// magnitude with an unbounded exponent (wide_axis_distance, for radii at the ends of the
// scalar's range), and visit_near(index, region, r, f), which visits a superset of the
// points within r of a box. An index hands it to the pair searches as metric(); this one
// wraps an octree and forwards the two visits the searches make.
#include <quoct/pairs.hpp>
#include <quoct/quoct.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

namespace {

using point3 = quoct::point<double, 3>;
using box3 = quoct::box<double, 3>;

struct weighted_pair_metric {
    double w[3];

    double axis_distance(std::size_t a, double x, double y) const { return w[a] * (x - y); }
    double distance_sq(const point3& p, const point3& q) const {
        double s = 0;
        for (std::size_t a = 0; a < 3; ++a) {
            const double d = axis_distance(a, p[a], q[a]);
            s += d * d;
        }
        return s;
    }
    // |w (x - y)| exactly as a wide value (the product is finite for the coordinates here).
    quoct::wide<double> wide_axis_distance(std::size_t a, double x, double y) const {
        return quoct::to_wide(axis_distance(a, x, y));
    }
    // A point within r of a point p of the region is within r / w[a] of p on axis a: the box
    // grown by that (and a margin for rounding) holds every one of them.
    template <class Index, class F>
    bool visit_near(const Index& index, const box3& region, double r, F&& f) const {
        box3 grown = region;
        for (std::size_t a = 0; a < 3; ++a) {
            const double m = r / w[a] * (1 + 1e-9);
            grown.lo[a] -= m;
            grown.hi[a] += m;
        }
        return index.visit_shape(quoct::box_query<double, 3>(grown), f);
    }
};

// An octree with a metric: what the pair searches ask of an index (docs/concepts.md, "the
// pair-search protocol").
struct weighted_index {
    using scalar_type = double;
    using id_type = std::uint32_t;
    static constexpr std::size_t dimension = 3;

    const quoct::octree<double>& tree;
    weighted_pair_metric weights;

    std::size_t size() const { return tree.size(); }
    weighted_pair_metric metric() const { return weights; }
    template <class F>
    bool visit(const box3& b, F&& f) const {
        return tree.visit(b, f);
    }
    template <class Shape, class F>
    bool visit_shape(const Shape& shape, F&& f) const {
        return tree.visit_shape(shape, f);
    }
};
static_assert(quoct::is_pair_metric_v<weighted_pair_metric, weighted_index, double, 3>,
              "weighted_pair_metric is a PairMetric");

}  // namespace

int main() {
    std::mt19937_64 rng(31);
    std::uniform_real_distribution<double> coordinate(0, 1);
    std::vector<point3> points(4000);
    for (auto& p : points) p = point3{{coordinate(rng), coordinate(rng), coordinate(rng)}};
    const quoct::octree<double> tree(points);
    const weighted_index index{tree, weighted_pair_metric{{1.0, 3.0, 0.5}}};
    const double r = 0.06;

    std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
    quoct::for_each_pair_within(index, r, [&](std::uint32_t i, std::uint32_t j) { got.emplace_back(i, j); });
    std::sort(got.begin(), got.end());

    std::vector<std::pair<std::uint32_t, std::uint32_t>> want;
    for (std::uint32_t i = 0; i < points.size(); ++i)
        for (std::uint32_t j = i + 1; j < points.size(); ++j)
            if (index.weights.distance_sq(points[i], points[j]) <= r * r) want.emplace_back(i, j);
    if (got != want) {
        std::printf("%zu pairs, brute force %zu\n", got.size(), want.size());
        return 1;
    }
    std::printf("%zu pairs within %g by a weighted distance, as brute force finds them\n", got.size(), r);
    return 0;
}
