// Fuzz target: quoct::periodic_index over an orthtree and over a dynamic_orthtree against
// brute force with the documented minimum-image predicate domain.distance_sq(p, q) <= r * r:
// ball queries, counts, visits, the pair searches, and (dynamic) insert, erase and move.
// Domains mix open axes (length 0), tiny, ordinary and huge lengths; points are wrapped
// into the domain, or now and then given as they are (outside: the call must throw).
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include <quoct/dynamic.hpp>
#include <quoct/orthtree.hpp>
#include <quoct/pairs.hpp>
#include <quoct/periodic.hpp>

#include "fuzz_support.hpp"

namespace {

using namespace quoct_fuzz;

template <class T, std::size_t D>
quoct::point<T, D> domain_point(input& in, std::vector<T>& seen, const std::vector<quoct::point<T, D>>& near,
                                const quoct::periodic_domain<T, D>& dom, bool sometimes_outside) {
    quoct::point<T, D> p = point<T, D>(in, seen, near, sometimes_outside ? 24 : 0);
    if (quoct::is_finite(p) && !(sometimes_outside && in.one_in(12))) p = dom.wrap(p);
    return p;
}

template <class Index, class T, std::size_t D, class Id>
void check_ball(input& in, const quoct::periodic_index<Index>& index, const std::vector<entry<T, D, Id>>& live,
                std::vector<T>& seen, const std::vector<quoct::point<T, D>>& near) {
    const auto& dom = index.domain();
    const quoct::ball<T, D> s{domain_point<T, D>(in, seen, near, dom, true), radius<T>(in, seen, 24)};
    const bool bad = !dom.contains(s.center) || !(s.radius >= 0);
    if (!QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, bad, (void)index.count(s))) return;
    const auto want = brute(live, [&](const quoct::point<T, D>& p) {
        return periodic_distance<T, D>{dom}.within(p, s.center, s.radius);
    });
    const auto got = sorted(index.query(s));
    if (got != want) {
        std::string msg = "periodic ball " + str(s.center) + " r " + str(s.radius) + ": query gave " +
                          std::to_string(got.size()) + " ids, brute force " + std::to_string(want.size()) + "; L =";
        for (std::size_t a = 0; a < D; ++a) msg += " " + str(dom.length[a]);
        for (const auto& e : live)
            if (std::binary_search(want.begin(), want.end(), e.id) != std::binary_search(got.begin(), got.end(), e.id))
                msg += "; id " + std::to_string(e.id) + " at " + str(e.p);
        fail(__FILE__, __LINE__, msg);
    }
    QUOCT_FUZZ_CHECK(index.count(s) == want.size(), "periodic count differs from query");
    std::size_t calls = 0;
    index.visit(s, [&](Id id, const quoct::point<T, D>&) {
        QUOCT_FUZZ_CHECK(std::binary_search(want.begin(), want.end(), id), "periodic visit gave a wrong id");
        ++calls;
    });
    QUOCT_FUZZ_CHECK(calls == want.size(), "periodic visit missed points");
}

struct target {
    template <class T, std::size_t D>
    static void run(input& in) {
        using Id = std::uint32_t;
        using point_t = quoct::point<T, D>;
        std::vector<T> seen;
        quoct::periodic_domain<T, D> dom;
        bool bad_domain = false;
        for (std::size_t a = 0; a < D; ++a) {
            const std::uint8_t k = in.byte();
            dom.length[a] = k % 4 == 0 ? T(0) : std::abs(coordinate<T>(in, seen));
            if (k == 255) dom.length[a] = in.one_in(2) ? -T(1) : std::numeric_limits<T>::infinity();
            bad_domain |= !(dom.length[a] >= 0 && std::isfinite(dom.length[a]));
        }
        std::vector<point_t> pts;
        bool outside = false;
        for (std::size_t n = in.below(40); n > 0; --n) {
            pts.push_back(domain_point<T, D>(in, seen, pts, dom, true));
            outside |= !dom.contains(pts.back());
        }
        const periodic_distance<T, D> dist{dom};
        std::vector<entry<T, D, Id>> live;
        for (std::size_t i = 0; i < pts.size(); ++i) live.push_back({static_cast<Id>(i), pts[i]});

        if (in.one_in(2)) {
            quoct::build_options opt;
            opt.leaf_size = 1 + in.below(8);
            std::optional<quoct::periodic_orthtree<T, D, Id>> index;
            if (!QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, bad_domain || outside, index.emplace(dom, pts, opt))) return;
            for (int ops = 0; ops < 32 && !in.empty(); ++ops) {
                if (in.one_in(4)) check_pairs(*index, live, dist, radius<T>(in, seen, 16), 1 + unsigned(in.below(3)), 1 + in.below(8));
                else check_ball(in, *index, live, seen, pts);
            }
            return;
        }
        quoct::dynamic_options dopt;
        dopt.tail_limit = 1 + in.below(4);
        std::optional<quoct::periodic_index<quoct::dynamic_orthtree<T, D, Id>>> index;
        if (!QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, bad_domain || outside, index.emplace(dom, pts, dopt))) return;
        std::vector<std::optional<point_t>> by_id(pts.begin(), pts.end());
        for (int ops = 0; ops < 48 && !in.empty(); ++ops) {
            const Id id = static_cast<Id>(in.below(by_id.size() + 2));
            const bool is_live = id < by_id.size() && by_id[id];
            switch (in.below(6)) {
                case 0: {
                    const point_t p = domain_point<T, D>(in, seen, pts, dom, true);
                    Id got = 0;
                    if (QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, !dom.contains(p), got = index->insert(p))) {
                        QUOCT_FUZZ_CHECK(got == by_id.size(), "periodic insert did not return id_bound()");
                        by_id.push_back(p);
                    }
                    break;
                }
                case 1:
                    QUOCT_FUZZ_CHECK(index->erase(id) == is_live, "periodic erase's result is wrong");
                    if (id < by_id.size()) by_id[id].reset();
                    break;
                case 2: {
                    const point_t p = domain_point<T, D>(in, seen, pts, dom, true);
                    if (!is_live) QUOCT_FUZZ_THROWS_IFF(std::out_of_range, true, index->move(id, p));
                    else if (QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, !dom.contains(p), index->move(id, p)))
                        by_id[id] = p;
                    break;
                }
                default: {
                    live.clear();
                    for (std::size_t i = 0; i < by_id.size(); ++i)
                        if (by_id[i]) live.push_back({static_cast<Id>(i), *by_id[i]});
                    if (in.one_in(3)) check_pairs(*index, live, dist, radius<T>(in, seen, 16), 1 + unsigned(in.below(3)), 1 + in.below(8));
                    else check_ball(in, *index, live, seen, pts);
                    break;
                }
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
