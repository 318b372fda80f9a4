// Fuzz target: the pair searches of <quoct/pairs.hpp> against brute force with
// distance_sq(p, q) <= r * r: for_each_pair_within (with early stops), pairs_within and
// neighbor_lists on 1 to 3 threads, on an orthtree and on a dynamic_orthtree with some
// points erased and moved, and across the two indexes.
#include <cstdint>
#include <vector>

#include <quoct/dynamic.hpp>
#include <quoct/orthtree.hpp>
#include <quoct/pairs.hpp>

#include "fuzz_support.hpp"

namespace {

using namespace quoct_fuzz;

struct target {
    template <class T, std::size_t D>
    static void run(input& in) {
        using Id = std::uint32_t;
        using point_t = quoct::point<T, D>;
        std::vector<T> seen;
        const std::vector<point_t> pts = points<T, D>(in, seen, 48);
        quoct::build_options opt;
        opt.leaf_size = 1 + in.below(8);
        const quoct::orthtree<T, D, Id> tree(pts, opt);
        std::vector<entry<T, D, Id>> live;
        for (std::size_t i = 0; i < pts.size(); ++i) live.push_back({static_cast<Id>(i), pts[i]});

        // A dynamic index over other points, changed a little.
        const std::vector<point_t> more = points<T, D>(in, seen, 24);
        quoct::dynamic_options dopt;
        dopt.tail_limit = 1 + in.below(4);
        quoct::dynamic_orthtree<T, D, Id> dyn(more, dopt);
        std::vector<entry<T, D, Id>> dlive;
        for (std::size_t i = 0; i < more.size(); ++i) dlive.push_back({static_cast<Id>(i), more[i]});
        for (std::size_t n = in.below(16); n > 0 && !dlive.empty(); --n) {
            const std::size_t k = in.below(dlive.size());
            if (in.one_in(3)) {
                dyn.erase(dlive[k].id);
                dlive.erase(dlive.begin() + static_cast<std::ptrdiff_t>(k));
            } else {
                const point_t p = point<T, D>(in, seen, pts);
                dyn.move(dlive[k].id, p);
                dlive[k].p = p;
            }
        }

        const quoct_fuzz::euclidean_distance<T, D> dist;
        for (int ops = 0; ops < 8 && !in.empty(); ++ops) {
            const T r = radius<T>(in, seen, 16);
            const unsigned threads = 1 + static_cast<unsigned>(in.below(3));
            const std::size_t stop_after = 1 + in.below(8);
            switch (in.below(3)) {
                case 0: check_pairs(tree, live, dist, r, threads, stop_after); break;
                case 1: check_pairs(dyn, dlive, dist, r, threads, stop_after); break;
                default:
                    if (in.one_in(2)) check_cross_pairs(tree, live, dyn, dlive, dist, r, threads);
                    else check_cross_pairs(dyn, dlive, tree, live, dist, r, threads);
                    break;
            }
        }
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    input in(data, size);
    with_type(in, target{});
    return 0;
}
