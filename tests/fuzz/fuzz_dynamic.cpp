// Fuzz target: quoct::dynamic_orthtree against brute force over the live points. The bytes
// give the type, the options (small tails and fractions, so folds into side trees and
// rebuilds happen often), the starting points, then a run of insert, erase, move, rebuild
// and queries. Bad calls (NaN or infinite points, ids that are not live) must throw the
// documented exception and leave the index as it was, which the following queries check.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include <quoct/dynamic.hpp>

#include "fuzz_support.hpp"

namespace {

using namespace quoct_fuzz;

struct target {
    template <class T, std::size_t D>
    static void run(input& in) {
        using Id = std::uint32_t;
        using point_t = quoct::point<T, D>;
        std::vector<T> seen;
        quoct::dynamic_options opt;
        opt.tail_limit = in.below(9);  // 0 is invalid
        const double fractions[] = {1.0 / 16, 1.0 / 4, 1.0, 0.01, 0.0, 1.5};
        opt.rebuild_fraction = fractions[in.below(6)];
        opt.tree.leaf_size = 1 + in.below(8);
        const bool bad_options = opt.tail_limit == 0 || !(opt.rebuild_fraction > 0 && opt.rebuild_fraction <= 1);
        const std::vector<point_t> start = points<T, D>(in, seen, 32);

        quoct::dynamic_orthtree<T, D, Id> index;
        if (!QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, bad_options,
                                   index = quoct::dynamic_orthtree<T, D, Id>(start, opt)))
            return;
        std::vector<std::optional<point_t>> by_id(start.begin(), start.end());
        std::vector<point_t> near = start;

        const auto live = [&] {
            std::vector<entry<T, D, Id>> out;
            for (std::size_t id = 0; id < by_id.size(); ++id)
                if (by_id[id]) out.push_back({static_cast<Id>(id), *by_id[id]});
            return out;
        };
        const auto some_id = [&] { return static_cast<Id>(in.below(by_id.size() + 2)); };
        const auto is_live = [&](Id id) { return id < by_id.size() && by_id[id].has_value(); };

        for (int ops = 0; ops < 96 && !in.empty(); ++ops) {
            switch (in.below(8)) {
                case 0: case 1: {
                    const point_t p = point<T, D>(in, seen, near, 16);
                    Id id = 0;
                    if (QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, !quoct::is_finite(p), id = index.insert(p))) {
                        QUOCT_FUZZ_CHECK(id == by_id.size(), "insert did not return id_bound()");
                        by_id.push_back(p);
                        near.push_back(p);
                    }
                    break;
                }
                case 2: {
                    const Id id = some_id();
                    QUOCT_FUZZ_CHECK(index.erase(id) == is_live(id), "erase's result is wrong");
                    if (id < by_id.size()) by_id[id].reset();
                    break;
                }
                case 3: case 4: {
                    const Id id = some_id();
                    const point_t p = point<T, D>(in, seen, near, 16);
                    if (!is_live(id)) {
                        QUOCT_FUZZ_THROWS_IFF(std::out_of_range, true, index.move(id, p));
                    } else if (QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, !quoct::is_finite(p), index.move(id, p))) {
                        by_id[id] = p;
                        near.push_back(p);
                    }
                    break;
                }
                case 5: {
                    if (in.one_in(4)) index.rebuild();
                    const Id id = some_id();
                    if (QUOCT_FUZZ_THROWS_IFF(std::out_of_range, !is_live(id), (void)index.point(id)))
                        QUOCT_FUZZ_CHECK(index.point(id) == *by_id[id], "point(id) is not the point stored");
                    break;
                }
                default: point_query(in, index, live(), seen, near); break;
            }
            QUOCT_FUZZ_CHECK(index.size() == live().size(), "size() is not the number of live points");
            QUOCT_FUZZ_CHECK(index.id_bound() == by_id.size(), "id_bound() is wrong");
        }
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    input in(data, size);
    with_type(in, target{});
    return 0;
}
