// Fuzz target: quoct::orthtree against brute force. The bytes give the scalar type and
// dimension, the Id type, the build options, the points (sometimes one with a NaN or
// infinite coordinate, which must make the build throw) and then a run of ball, box and
// nearest queries, each compared exactly with the documented predicate.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <quoct/orthtree.hpp>

#include "fuzz_support.hpp"

namespace {

using namespace quoct_fuzz;

template <class Id>
struct with_id {
    template <class T, std::size_t D>
    static void run(input& in) {
        std::vector<T> seen;
        quoct::build_options opt;
        opt.leaf_size = in.below(9);                           // 0 is invalid
        // Mostly the default; else a small cap of the user's, or one next to max_depth_limit
        // (a tree of 64 points is never that deep; above it is invalid).
        opt.max_depth = !in.one_in(4) ? quoct::max_depth_limit
                        : in.one_in(2) ? in.below(80)
                                       : quoct::max_depth_limit - 2 + in.below(5);
        std::vector<quoct::point<T, D>> pts;
        const std::size_t n = in.below(65);
        bool bad_point = false;
        for (std::size_t i = 0; i < n; ++i) {
            pts.push_back(point<T, D>(in, seen, pts, 64));
            bad_point |= !quoct::is_finite(pts.back());
        }
        const bool bad = bad_point || opt.leaf_size == 0 || opt.max_depth > quoct::max_depth_limit;
        quoct::orthtree<T, D, Id> tree;
        if (!QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, bad, tree = quoct::orthtree<T, D, Id>(pts, opt))) {
            QUOCT_FUZZ_CHECK(tree.empty(), "a throwing build changed the tree");
            return;
        }
        QUOCT_FUZZ_CHECK(tree.size() == pts.size(), "size() differs from the input");
        std::vector<entry<T, D, Id>> live;
        for (std::size_t i = 0; i < pts.size(); ++i) live.push_back({static_cast<Id>(i), pts[i]});
        // bounds(): the smallest box holding every point.
        const auto bb = tree.bounds();
        for (std::size_t a = 0; a < D && !pts.empty(); ++a) {
            T lo = pts[0][a], hi = pts[0][a];
            for (const auto& p : pts) lo = std::min(lo, p[a]), hi = std::max(hi, p[a]);
            QUOCT_FUZZ_CHECK(bb.lo[a] == lo && bb.hi[a] == hi, "bounds() is not the points' bounding box");
        }
        for (int ops = 0; ops < 64 && !in.empty(); ++ops) point_query(in, tree, live, seen, pts);
    }
};

struct pick_id {
    template <class T, std::size_t D>
    static void run(input& in) {
        if (in.one_in(4)) with_id<std::uint16_t>::run<T, D>(in);
        else with_id<std::uint32_t>::run<T, D>(in);
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    input in(data, size);
    with_type(in, pick_id{});
    return 0;
}
