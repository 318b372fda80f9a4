// A ResultSet of your own: the nearest point that carries a given label (a LiDAR class,
// say), kept by a set that holds one candidate, fed through orthtree::search_nearest and
// checked against brute force.
//
// A ResultSet (docs/extending/result-set.md) is what the search reads while it runs:
// bound(), beyond which a candidate cannot enter (the search skips every node farther
// than it), and full(), true once the set has all it wants (then a metric's ball_in_box
// may end the search early). The sink decides what to offer: here, only points with the
// label. quoct::knn_set is the set every k-nearest query uses.
#include <quoct/quoct.hpp>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

namespace {

using point3 = quoct::point<float, 3>;

// The best candidate by (distance, id). bound() is its distance: the search still offers
// candidates at that very distance (it skips only what is strictly farther), so a tie goes
// to the smaller id.
struct nearest_one {
    float best = std::numeric_limits<float>::infinity();
    std::uint32_t id = 0;
    bool found = false;

    float bound() const { return best; }
    bool full() const { return found; }
    void offer(std::uint32_t i, float d) {
        if (!found || d < best || (d == best && i < id)) best = d, id = i, found = true;
    }
};
static_assert(quoct::is_result_set_v<nearest_one, float>, "nearest_one is a ResultSet");

}  // namespace

int main() {
    std::mt19937_64 rng(29);
    std::uniform_int_distribution<int> coordinate(0, 200);  // integer coordinates: many ties
    std::uniform_int_distribution<int> label_of(0, 9);
    std::vector<point3> points(50000);
    std::vector<int> label(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        for (std::size_t a = 0; a < 3; ++a) points[i][a] = static_cast<float>(coordinate(rng));
        label[i] = label_of(rng);
    }
    const quoct::octree<float> tree(points);

    for (int q = 0; q < 500; ++q) {
        const point3 at{{static_cast<float>(coordinate(rng)), static_cast<float>(coordinate(rng)),
                         static_cast<float>(coordinate(rng))}};
        const int wanted = q % 10;
        nearest_one set;
        tree.search_nearest(quoct::euclidean_nearest_metric<float, 3>{at}, set, [&](std::uint32_t i, float d) {
            if (label[i] == wanted) set.offer(i, d);
        });
        nearest_one brute;
        for (std::uint32_t i = 0; i < points.size(); ++i)
            if (label[i] == wanted) brute.offer(i, quoct::distance_sq(points[i], at));
        if (set.found != brute.found || set.id != brute.id || set.best != brute.best) {
            std::printf("query %d: point %u at %g, brute force %u at %g\n", q, set.id, static_cast<double>(set.best),
                        brute.id, static_cast<double>(brute.best));
            return 1;
        }
    }
    std::printf("500 queries, the nearest point of a label, each as brute force finds it\n");
    return 0;
}
