// dynamic_orthtree against brute force over the live points, after random sequences of
// insert / erase / move interleaved with queries.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <quoct/dynamic.hpp>

#include "test_support.hpp"

namespace test_dynamic {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

template <class T, std::size_t D>
struct model {
    using point_type = quoct::point<T, D>;
    using neighbor_type = quoct::neighbor<T, std::uint32_t>;
    std::map<std::uint32_t, point_type> live;

    std::vector<std::uint32_t> in_ball(const quoct::ball<T, D>& s) const {
        std::vector<std::uint32_t> out;
        for (const auto& kv : live)
            if (quoct::contains(s, kv.second)) out.push_back(kv.first);
        return out;
    }
    std::vector<std::uint32_t> in_box(const quoct::box<T, D>& b) const {
        std::vector<std::uint32_t> out;
        for (const auto& kv : live)
            if (quoct::contains(b, kv.second)) out.push_back(kv.first);
        return out;
    }
    std::vector<neighbor_type> nearest(const point_type& p, std::size_t k) const {
        std::vector<neighbor_type> all;
        for (const auto& kv : live) all.push_back({kv.first, quoct::distance_sq(kv.second, p)});
        std::sort(all.begin(), all.end(), [](const neighbor_type& x, const neighbor_type& y) {
            return x.distance_sq < y.distance_sq || (x.distance_sq == y.distance_sq && x.id < y.id);
        });
        if (all.size() > k) all.resize(k);
        return all;
    }
};

template <class T, std::size_t D>
void check_same(const quoct::dynamic_orthtree<T, D>& index, const model<T, D>& m, quoct_test::rng& rng, int lattice) {
    using quoct_test::sorted;
    REQUIRE(index.size() == m.live.size());
    for (int q = 0; q < 6; ++q) {
        quoct::ball<T, D> s{lattice ? quoct_test::lattice_point<T, D>(rng, lattice)
                                    : quoct_test::random_point<T, D>(rng, T(-0.1), T(1.1)),
                            lattice ? T(q % 3) : static_cast<T>(0.05 * q)};
        const auto expect = m.in_ball(s);
        CHECK(sorted(index.query(s)) == expect);
        CHECK(index.count(s) == expect.size());
        std::vector<std::uint32_t> seen;
        index.visit(s, [&](std::uint32_t id, const quoct::point<T, D>& p) {
            CHECK(index.point(id) == p);
            seen.push_back(id);
        });
        CHECK(sorted(seen) == expect);

        auto c = quoct_test::random_point<T, D>(rng, T(-0.2), T(1.0));
        quoct::box<T, D> b{c, c};
        for (std::size_t a = 0; a < D; ++a) b.hi[a] += static_cast<T>(0.1 * (q + 1));
        const auto expect_box = m.in_box(b);
        CHECK(sorted(index.query(b)) == expect_box);
        CHECK(index.count(b) == expect_box.size());

        const std::size_t k = 1 + static_cast<std::size_t>(q) * 3;
        std::vector<quoct::neighbor<T, std::uint32_t>> got;
        index.nearest(s.center, k, got);
        const auto want = m.nearest(s.center, k);
        REQUIRE(got.size() == want.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            CHECK(got[i].id == want[i].id);
            CHECK(got[i].distance_sq == want[i].distance_sq);
        }
    }
}

// check_same's queries around live points (balls of radius 0 to 2, k nearest), for maps
// that have left the unit cube.
template <class T, std::size_t D>
void check_around(const quoct::dynamic_orthtree<T, D>& index, const model<T, D>& m, quoct_test::rng& rng) {
    using quoct_test::sorted;
    REQUIRE(index.size() == m.live.size());
    for (int q = 0; q < 8 && !m.live.empty(); ++q) {
        auto it = m.live.begin();
        std::advance(it, static_cast<std::ptrdiff_t>(rng.below(m.live.size())));
        const quoct::ball<T, D> s{it->second, static_cast<T>(q % 3)};
        const auto expect = m.in_ball(s);
        CHECK(sorted(index.query(s)) == expect);
        CHECK(index.count(s) == expect.size());
        std::vector<quoct::neighbor<T, std::uint32_t>> got;
        index.nearest(s.center, 5, got);
        const auto want = m.nearest(s.center, 5);
        REQUIRE(got.size() == want.size());
        for (std::size_t i = 0; i < got.size(); ++i) CHECK((got[i].id == want[i].id && got[i].distance_sq == want[i].distance_sq));
    }
}

}  // namespace

TEMPLATE_TEST_CASE("dynamic_orthtree matches brute force under random operations", "[dynamic]", QUOCT_TEST_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    for (int config = 0; config < 4; ++config) {
        const int lattice = config % 2 ? 6 : 0;
        quoct_test::rng rng(1234 + static_cast<unsigned>(config));
        auto make = [&] {
            return lattice ? quoct_test::lattice_point<T, D>(rng, lattice) : quoct_test::random_point<T, D>(rng, T(0), T(1));
        };
        std::vector<quoct::point<T, D>> initial(300);
        for (auto& p : initial) p = make();
        quoct::dynamic_options opt;
        opt.tail_limit = 8;  // exercise side-tree rebuilds often
        if (config >= 2) opt.rebuild_fraction = 1.0;  // let dead entries pile up in both trees
        quoct::dynamic_orthtree<T, D> index(initial, opt);
        model<T, D> m;
        for (std::uint32_t i = 0; i < initial.size(); ++i) m.live[i] = initial[i];
        check_same(index, m, rng, lattice);

        std::uniform_int_distribution<int> op(0, 9);
        std::size_t most_side_trees = 0;
        for (int step = 0; step < 1500; ++step) {
            const int o = op(rng);
            std::uniform_int_distribution<std::uint32_t> any_id(0, static_cast<std::uint32_t>(index.id_bound()));
            if (o < 3) {
                const auto p = make();
                const std::uint32_t id = index.insert(p);
                REQUIRE(id + 1 == index.id_bound());
                m.live[id] = p;
            } else if (o == 3 && step % 7 == 0) {  // a scan at once: up to 40 points, duplicates among them
                std::vector<quoct::point<T, D>> scan(static_cast<std::size_t>(step % 41));
                for (auto& p : scan) p = make();
                if (!scan.empty()) scan.back() = scan.front();
                const std::uint32_t first = index.insert_all(scan);
                REQUIRE(first + scan.size() == index.id_bound());
                for (std::size_t i = 0; i < scan.size(); ++i) m.live[first + static_cast<std::uint32_t>(i)] = scan[i];
            } else if (o == 4 && step % 5 == 0 && !m.live.empty()) {  // a batch of moves, an id twice
                std::vector<std::uint32_t> ids;
                std::vector<quoct::point<T, D>> to;
                for (int i = 0; i < 1 + step % 30; ++i) {
                    auto it = m.live.lower_bound(any_id(rng));
                    if (it == m.live.end()) it = m.live.begin();
                    ids.push_back(it->first);
                    to.push_back(make());
                }
                ids.push_back(ids.front());
                to.push_back(make());
                index.move(ids, to);
                for (std::size_t i = 0; i < ids.size(); ++i) m.live[ids[i]] = to[i];
            } else if (o < 5) {
                const std::uint32_t id = any_id(rng);
                CHECK(index.erase(id) == (m.live.erase(id) == 1));
            } else {
                const std::uint32_t id = any_id(rng);
                const auto p = make();
                if (m.live.count(id)) {
                    index.move(id, p);
                    m.live[id] = p;
                } else {
                    CHECK_THROWS_AS(index.move(id, p), std::out_of_range);
                }
            }
            most_side_trees = std::max(most_side_trees, index.side_trees());
            if (step % 50 == 0) check_same(index, m, rng, lattice);
        }
        // Without early rebuilds the changes pile up in several side trees (capacities
        // 32, 128, 512, ... for tail_limit 8), and every fold between them was checked above.
        if (config >= 2) CHECK(most_side_trees >= 3);
        check_same(index, m, rng, lattice);
        index.rebuild();
        CHECK(index.pending() == 0);
        CHECK(index.side_trees() == 0);
        check_same(index, m, rng, lattice);
    }
}

TEMPLATE_TEST_CASE("dynamic_orthtree erases the points in a box, or outside it, as brute force", "[dynamic]",
                   QUOCT_TEST_CONFIGS) {
    // A sliding local map: points keep coming, the map keeps what lies in a box around a
    // moving sensor (faces included), now and then a box of points is cut out; on a lattice
    // many points lie on the boxes' faces. After each step every query equals brute force.
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    for (const int lattice : {0, 8}) {
        quoct_test::rng rng(77 + static_cast<unsigned>(lattice));
        auto make = [&] {
            return lattice ? quoct_test::lattice_point<T, D>(rng, lattice) : quoct_test::random_point<T, D>(rng, T(0), T(1));
        };
        quoct::dynamic_options opt;
        opt.tail_limit = 8;
        quoct::dynamic_orthtree<T, D> index(opt);
        model<T, D> m;
        for (int step = 0; step < 60; ++step) {
            for (int i = 0; i < 40; ++i) {
                const auto p = make();
                m.live[index.insert(p)] = p;
            }
            if (step % 3 == 1) index.move(m.live.begin()->first, m.live.begin()->second);  // (a point in the tail)
            auto lo = lattice ? quoct_test::lattice_point<T, D>(rng, lattice) : quoct_test::random_point<T, D>(rng, T(0), T(0.5));
            quoct::box<T, D> b{lo, lo};
            for (std::size_t a = 0; a < D; ++a) b.hi[a] += lattice ? T(lattice / 2) : T(0.5);
            const bool outside = step % 4 != 3;
            std::size_t want = 0;
            for (auto it = m.live.begin(); it != m.live.end();) {
                if (quoct::contains(b, it->second) != outside) {
                    it = m.live.erase(it);
                    ++want;
                } else {
                    ++it;
                }
            }
            CHECK((outside ? index.erase_outside(b) : index.erase_in(b)) == want);
            check_same(index, m, rng, lattice);
        }
        // Bad boxes are refused, and the index is as it was.
        const std::size_t before = index.size();
        quoct::box<T, D> bad{};
        bad.lo[0] = T(1);
        CHECK_THROWS_AS(index.erase_outside(bad), std::invalid_argument);
        CHECK_THROWS_AS(index.erase_in(bad), std::invalid_argument);
        bad.lo[0] = std::numeric_limits<T>::quiet_NaN();
        CHECK_THROWS_AS(index.erase_outside(bad), std::invalid_argument);
        CHECK(index.size() == before);
        CHECK(index.erase_in(quoct::detail::everything<T, D>()) == before);
        CHECK(index.empty());
    }
}

TEMPLATE_TEST_CASE("dynamic_orthtree keeps a sliding window in memory for its live ids, not every id handed out",
                   "[dynamic]", QUOCT_TEST_CONFIGS) {
    // A sensor sweeps axis 0: each scan lies ahead of the last, and the map keeps a box
    // around the sensor, so the old scans' ids are all erased in turn. The index then holds
    // bookkeeping for the ids it still has (all it holds is less than the 5 bytes an id that
    // every id handed out would need), the old ids stay unknown (never handed out again),
    // and queries equal brute force.
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    using Id = std::uint32_t;
    for (const int lattice : {0, 1}) {
        quoct_test::rng rng(91 + static_cast<unsigned>(lattice));
        quoct::dynamic_options opt;
        opt.tail_limit = 16;
        quoct::dynamic_orthtree<T, D> index(opt);
        model<T, D> m;
        std::vector<Id> old;  // ids erased long ago
        for (int scan = 0; scan < 120; ++scan) {
            std::vector<quoct::point<T, D>> pts(100);
            for (auto& p : pts) {
                p = lattice ? quoct_test::lattice_point<T, D>(rng, 8) : quoct_test::random_point<T, D>(rng, T(0), T(8));
                p[0] = static_cast<T>(scan) + (lattice ? T(0) : p[0] / 8);  // the scan's slab along axis 0
            }
            const Id first = index.insert_all(pts);
            for (std::size_t i = 0; i < pts.size(); ++i) m.live[static_cast<Id>(first + i)] = pts[i];
            quoct::box<T, D> keep;
            for (std::size_t a = 0; a < D; ++a) keep.lo[a] = T(-1), keep.hi[a] = T(9);
            keep.lo[0] = static_cast<T>(scan - 5), keep.hi[0] = static_cast<T>(scan + 1);  // faces kept
            std::size_t want = 0;
            for (auto it = m.live.begin(); it != m.live.end();)
                if (!quoct::contains(keep, it->second)) {
                    if (old.size() < 50) old.push_back(it->first);
                    it = m.live.erase(it), ++want;
                } else {
                    ++it;
                }
            CHECK(index.erase_outside(keep) == want);
            if (scan % 10 == 9) check_around(index, m, rng);
        }
        CHECK(index.id_bound() == 12000);
        for (const auto& kv : m.live) REQUIRE(index.point(kv.first) == kv.second);
        // point() reads where each part stores the point: no id map is built, nothing grows.
        std::vector<quoct::point<T, D>> now;
        for (const auto& kv : m.live) now.push_back(kv.second);
        const quoct::dynamic_orthtree<T, D> fresh(now);
        const std::size_t bytes = fresh.memory_bytes();
        for (std::size_t i = 0; i < now.size(); ++i) REQUIRE(fresh.point(static_cast<Id>(i)) == now[i]);
        CHECK(fresh.memory_bytes() == bytes);
        CHECK(index.memory_bytes() < index.id_bound() * (1 + sizeof(Id)));  // less than the bookkeeping of every id
        for (const Id id : old) {
            CHECK_FALSE(index.contains(id));
            CHECK_FALSE(index.erase(id));
            CHECK_THROWS_AS(index.point(id), std::out_of_range);
            CHECK_THROWS_AS(index.move(id, quoct::point<T, D>{}), std::out_of_range);
        }
        // move_all still takes one point per id handed out (the forgotten ones unread).
        std::vector<quoct::point<T, D>> everywhere(index.id_bound(), quoct::point<T, D>{});
        for (auto& kv : m.live) {
            kv.second[0] += T(1);
            everywhere[kv.first] = kv.second;
        }
        for (const Id id : old) everywhere[id][0] = std::numeric_limits<T>::quiet_NaN();
        index.move_all(everywhere);
        check_around(index, m, rng);
        CHECK(index.insert(quoct::point<T, D>{}) == 12000);
    }
}

TEMPLATE_TEST_CASE("dynamic_orthtree takes scans at once, and refuses a bad one whole", "[dynamic]",
                   QUOCT_TEST_CONFIGS) {
    // Scans of every size around the tail limit and past the side trees' capacities, then
    // queries across the parts they make (k nearest from points where parts overlap).
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    for (const int lattice : {0, 5}) {
        quoct_test::rng rng(91 + static_cast<unsigned>(lattice));
        auto make = [&] {
            return lattice ? quoct_test::lattice_point<T, D>(rng, lattice) : quoct_test::random_point<T, D>(rng, T(0), T(1));
        };
        quoct::dynamic_options opt;
        opt.tail_limit = 16;
        quoct::dynamic_orthtree<T, D> index(opt);
        model<T, D> m;
        for (const std::size_t n : {0, 1, 15, 16, 17, 100, 3, 700, 40, 2000, 9}) {
            std::vector<quoct::point<T, D>> scan(n);
            for (auto& p : scan) p = make();
            const std::uint32_t first = index.insert_all(scan);
            REQUIRE(first == m.live.size());
            for (std::size_t i = 0; i < n; ++i) m.live[first + static_cast<std::uint32_t>(i)] = scan[i];
            check_same(index, m, rng, lattice);
        }
        // A NaN or a coordinate float cannot hold, anywhere in the scan: refused, nothing added.
        std::vector<quoct::point<T, D>> bad(30);
        for (auto& p : bad) p = make();
        bad[29][0] = std::numeric_limits<T>::quiet_NaN();
        const std::size_t bound = index.id_bound();
        CHECK_THROWS_AS(index.insert_all(bad), std::invalid_argument);
        // A batch of moves with one bad entry, at its end: refused whole.
        std::vector<std::uint32_t> ids{0, 1, 2};
        std::vector<quoct::point<T, D>> to{make(), make(), make()};
        CHECK_THROWS_AS(index.move(ids, std::vector<quoct::point<T, D>>{make()}), std::invalid_argument);
        to[2][0] = std::numeric_limits<T>::infinity();
        CHECK_THROWS_AS(index.move(ids, to), std::invalid_argument);
        to[2] = make();
        ids[2] = static_cast<std::uint32_t>(bound);  // not an id yet
        CHECK_THROWS_AS(index.move(ids, to), std::out_of_range);
        if (std::is_same<T, float>::value) {  // a double past float's range
            std::vector<std::array<double, D>> huge(2, std::array<double, D>{});
            huge[1][0] = 1e300;
            CHECK_THROWS_AS(index.insert_all(huge), std::invalid_argument);
        }
        CHECK(index.id_bound() == bound);
        check_same(index, m, rng, lattice);
    }
}

TEMPLATE_TEST_CASE("dynamic_orthtree inserts scans thinned to one point per voxel, as brute force", "[dynamic]",
                   QUOCT_TEST_CONFIGS) {
    // The documented rule, written out as the oracle: a point's voxel is floor(x / voxel) + 0
    // per axis in T; in order, a point goes in unless a live point (the smallest id of
    // those) or an earlier point of the call holds its voxel. Half-integer lattices put
    // points on voxel faces (-0 among them), random points and a voxel of 0.3 make the
    // divisions round; erasures free voxels between scans.
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    using P = quoct::point<T, D>;
    for (const int lattice : {0, 8}) {
        for (const T voxel : {T(0.5), T(2), T(0.3)}) {
            quoct_test::rng rng(131 + static_cast<unsigned>(lattice) + static_cast<unsigned>(voxel * 10));
            auto make = [&] {
                P p = lattice ? quoct_test::lattice_point<T, D>(rng, 2 * lattice) : quoct_test::random_point<T, D>(rng, T(-3), T(3));
                for (std::size_t a = 0; a < D; ++a) {
                    if (lattice) p[a] = (p[a] - T(lattice)) / 2;  // halves in [-lattice/2, lattice/2)
                    if (rng.below(16) == 0) p[a] = -T(0);
                }
                return p;
            };
            const auto cell = [&](T x) { return std::floor(x / voxel) + T(0); };
            const auto same_voxel = [&](const P& x, const P& y) {
                for (std::size_t a = 0; a < D; ++a)
                    if (cell(x[a]) != cell(y[a])) return false;
                return true;
            };
            quoct::dynamic_options opt;
            opt.tail_limit = 16;
            quoct::dynamic_orthtree<T, D> index(opt);
            model<T, D> m;
            for (int step = 0; step < 12; ++step) {
                if (step % 4 == 0) {  // unthinned points too: voxels held by several live points
                    std::vector<P> plain(step == 4 ? 3000 : 60);  // then a dense map: a query per voxel
                    for (auto& p : plain) p = make();
                    const std::uint32_t first = index.insert_all(plain);
                    for (std::size_t i = 0; i < plain.size(); ++i) m.live[first + static_cast<std::uint32_t>(i)] = plain[i];
                }
                std::vector<P> scan(static_cast<std::size_t>(rng.below(step % 2 ? 200 : 6)));
                for (auto& p : scan) p = rng.below(8) == 0 && !scan.empty() ? scan[rng.below(scan.size())] : make();
                constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
                std::vector<std::uint32_t> want(scan.size(), none);
                std::vector<std::pair<std::uint32_t, P>> added;
                auto next = static_cast<std::uint32_t>(index.id_bound());
                for (std::size_t i = 0; i < scan.size(); ++i) {
                    for (const auto& kv : m.live)
                        if (same_voxel(kv.second, scan[i]) && kv.first < want[i]) want[i] = kv.first;
                    for (const auto& a : added)
                        if (want[i] == none && same_voxel(a.second, scan[i])) want[i] = a.first;
                    if (want[i] == none) {
                        want[i] = next++;
                        added.push_back({want[i], scan[i]});
                    }
                }
                CHECK(index.insert_downsampled(scan, voxel) == want);
                for (const auto& a : added) m.live[a.first] = a.second;
                CHECK(index.id_bound() == next);
                check_same(index, m, rng, lattice);
                if (step % 3 == 2) {  // free the voxels of a box
                    quoct::box<T, D> b{make(), make()};
                    for (std::size_t a = 0; a < D; ++a)
                        if (b.lo[a] > b.hi[a]) std::swap(b.lo[a], b.hi[a]);
                    std::size_t gone = 0;
                    for (auto it = m.live.begin(); it != m.live.end();)
                        it = quoct::contains(b, it->second) ? (++gone, m.live.erase(it)) : std::next(it);
                    CHECK(index.erase_in(b) == gone);
                }
            }
            // Bad voxels and a bad point anywhere are refused, the index as it was.
            const std::size_t size = index.size(), bound = index.id_bound();
            std::vector<P> scan(20);
            for (auto& p : scan) p = make();
            for (const T bad : {T(0), -T(0), T(-1), std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity()})
                CHECK_THROWS_AS(index.insert_downsampled(scan, bad), std::invalid_argument);
            scan[7][D - 1] = std::numeric_limits<T>::quiet_NaN();
            CHECK_THROWS_AS(index.insert_downsampled(scan, voxel), std::invalid_argument);
            scan[7][D - 1] = -std::numeric_limits<T>::infinity();
            CHECK_THROWS_AS(index.insert_downsampled(scan.data(), scan.size(), voxel), std::invalid_argument);
            CHECK((index.size() == size && index.id_bound() == bound));
            check_same(index, m, rng, lattice);
        }
    }
}

TEMPLATE_TEST_CASE("dynamic_orthtree drops erased points from its trees without a rebuild, as brute force", "[dynamic]",
                   QUOCT_TEST_CONFIGS) {
    // Erasures alone (by box and by id) pass rebuild_fraction again and again: the trees are
    // compacted (the side trees stay, the erased entries go), with the nearest index on and
    // off, on a lattice (duplicates, points on the boxes' faces) and off it, down to empty.
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    for (const bool nearest_index : {false, true})
        for (const int lattice : {0, 7}) {
            quoct_test::rng rng(5150 + static_cast<unsigned>(lattice) + (nearest_index ? 1u : 0u));
            auto make = [&] {
                return lattice ? quoct_test::lattice_point<T, D>(rng, lattice) : quoct_test::random_point<T, D>(rng, T(0), T(1));
            };
            quoct::dynamic_options opt;
            opt.tail_limit = 8;
            opt.tree.nearest_index = nearest_index;
            opt.tree.leaf_size = 4;  // deep trees: many nodes to drop
            std::vector<quoct::point<T, D>> initial(1500);
            for (auto& p : initial) p = make();
            quoct::dynamic_orthtree<T, D> index(initial, opt);
            model<T, D> m;
            for (std::uint32_t i = 0; i < initial.size(); ++i) m.live[i] = initial[i];
            for (int i = 0; i < 40; ++i) {  // a few side trees
                const auto p = make();
                m.live[index.insert(p)] = p;
            }
            const std::size_t sides = index.side_trees();
            REQUIRE(sides > 0);
            int compactions = 0;
            for (int step = 0; !m.live.empty(); ++step) {
                const std::size_t pending_before = index.pending();
                if (step % 3 == 2) {
                    for (int e = 0; e < 25 && !m.live.empty(); ++e) {
                        std::uniform_int_distribution<std::uint32_t> any(0, static_cast<std::uint32_t>(index.id_bound() - 1));
                        const std::uint32_t id = any(rng);
                        CHECK(index.erase(id) == (m.live.erase(id) == 1));
                    }
                } else {
                    auto lo = lattice ? quoct_test::lattice_point<T, D>(rng, lattice) : quoct_test::random_point<T, D>(rng, T(0), T(0.8));
                    quoct::box<T, D> b{lo, lo};
                    for (std::size_t a = 0; a < D; ++a) b.hi[a] += lattice ? T(2) : T(0.3);
                    std::size_t want = 0;
                    for (auto it = m.live.begin(); it != m.live.end();)
                        if (quoct::contains(b, it->second)) it = m.live.erase(it), ++want;
                        else ++it;
                    CHECK(index.erase_in(b) == want);
                }
                // Compacted: the side trees as they were, the snapshot's erased entries gone.
                if (index.side_trees() == sides && index.pending() < pending_before) ++compactions;
                check_same(index, m, rng, lattice);
                if (step > 400) {  // boxes that miss every point left: the rest by id
                    for (auto it = m.live.begin(); it != m.live.end();) {
                        CHECK(index.erase(it->first));
                        it = m.live.erase(it);
                    }
                    check_same(index, m, rng, lattice);
                }
            }
            CHECK(compactions > 0);
            CHECK(index.empty());
        }
}

TEMPLATE_TEST_CASE("dynamic_orthtree folds through many side trees", "[dynamic]", QUOCT_TEST_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    quoct_test::rng rng(4321);
    quoct::dynamic_options opt;
    opt.tail_limit = 1;           // side trees of at most 4, 16, 64, 256, 1024, ...
    opt.rebuild_fraction = 1.0;  // never rebuild the snapshot early
    quoct::dynamic_orthtree<T, D> index(opt);
    model<T, D> m;
    // Lattice points, so distances tie across the snapshot, the side trees and the tail.
    std::size_t most_side_trees = 0;
    for (int i = 0; i < 1500; ++i) {
        const auto p = quoct_test::lattice_point<T, D>(rng, 5);
        m.live[index.insert(p)] = p;
        most_side_trees = std::max(most_side_trees, index.side_trees());
        if (i % 300 == 299) check_same(index, m, rng, 5);
    }
    CHECK(index.side_trees() >= 1);
    CHECK(most_side_trees >= 4);
    std::uniform_int_distribution<std::uint32_t> any_id(0, 1499);
    for (int i = 0; i < 1500; ++i) {
        const std::uint32_t id = any_id(rng);
        if (!m.live.count(id)) continue;
        if (i % 3 == 0) {
            index.erase(id);
            m.live.erase(id);
        } else {
            const auto p = quoct_test::lattice_point<T, D>(rng, 5);
            index.move(id, p);
            m.live[id] = p;
        }
        if (i % 300 == 299) check_same(index, m, rng, 5);
    }
    check_same(index, m, rng, 5);
}

TEMPLATE_TEST_CASE("dynamic_orthtree grows from empty and erases to empty", "[dynamic]", QUOCT_TEST_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    quoct_test::rng rng(7);
    quoct::dynamic_orthtree<T, D> index;
    model<T, D> m;
    check_same(index, m, rng, 0);
    for (int i = 0; i < 2000; ++i) {
        const auto p = quoct_test::random_point<T, D>(rng, T(0), T(1));
        m.live[index.insert(p)] = p;
    }
    check_same(index, m, rng, 0);
    for (std::uint32_t id = 0; id < 2000; id += 2) {
        REQUIRE(index.erase(id));
        m.live.erase(id);
        CHECK_FALSE(index.contains(id));
        CHECK_FALSE(index.erase(id));
    }
    check_same(index, m, rng, 0);
    for (std::uint32_t id = 1; id < 2000; id += 2) REQUIRE(index.erase(id));
    m.live.clear();
    CHECK(index.empty());
    check_same(index, m, rng, 0);
    // Erased ids are never handed out again.
    CHECK(index.insert(quoct_test::random_point<T, D>(rng, T(0), T(1))) == 2000u);
}

TEMPLATE_TEST_CASE("dynamic_orthtree rejects bad input and stays unchanged", "[dynamic]", QUOCT_TEST_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    quoct_test::rng rng(99);
    std::vector<quoct::point<T, D>> pts(100);
    for (auto& p : pts) p = quoct_test::random_point<T, D>(rng, T(0), T(1));
    quoct::dynamic_orthtree<T, D> index(pts);
    model<T, D> m;
    for (std::uint32_t i = 0; i < pts.size(); ++i) m.live[i] = pts[i];
    index.erase(5);
    m.live.erase(5);

    auto bad = pts[0];
    bad[D - 1] = std::numeric_limits<T>::quiet_NaN();
    CHECK_THROWS_AS(index.insert(bad), std::invalid_argument);
    CHECK_THROWS_AS(index.move(3, bad), std::invalid_argument);
    bad[D - 1] = std::numeric_limits<T>::infinity();
    CHECK_THROWS_AS(index.insert(bad), std::invalid_argument);
    CHECK_THROWS_AS(index.move(3, bad), std::invalid_argument);
    CHECK_THROWS_AS(index.move(5, pts[1]), std::out_of_range);     // erased
    CHECK_THROWS_AS(index.move(1000, pts[1]), std::out_of_range);  // never issued
    CHECK_THROWS_AS(index.point(5), std::out_of_range);
    CHECK_FALSE(index.erase(1000));
    CHECK_THROWS_AS(index.query(quoct::ball<T, D>{pts[0], T(-1)}), std::invalid_argument);
    CHECK_THROWS_AS(index.count(quoct::ball<T, D>{pts[0], std::numeric_limits<T>::quiet_NaN()}),
                    std::invalid_argument);
    std::vector<quoct::neighbor<T, std::uint32_t>> out;
    CHECK_THROWS_AS(index.nearest(pts[0], 0, out), std::invalid_argument);
    CHECK(index.id_bound() == 100u);
    CHECK(index.point(3) == pts[3]);
    check_same(index, m, rng, 0);

    std::vector<quoct::point<T, D>> with_nan(pts);
    with_nan[7] = bad;
    CHECK_THROWS_AS((quoct::dynamic_orthtree<T, D>(with_nan)), std::invalid_argument);
    quoct::dynamic_options opt;
    opt.rebuild_fraction = 0;
    CHECK_THROWS_AS((quoct::dynamic_orthtree<T, D>(opt)), std::invalid_argument);
}

TEST_CASE("dynamic_orthtree visit stops when the callback returns false, and nearest finds a moved point", "[dynamic]") {
    std::vector<quoct::point<double, 2>> pts;
    for (int i = 0; i < 50; ++i) pts.push_back({{double(i), 0.0}});
    quoct::dynamic_orthtree<double, 2> index(pts);
    index.move(10, {{0.5, 0.0}});
    int calls = 0;
    const bool finished = index.visit(quoct::ball<double, 2>{{{0, 0}}, 100.0}, [&](std::uint32_t, const auto&) {
        ++calls;
        return calls < 3;
    });
    CHECK_FALSE(finished);
    CHECK(calls == 3);
    CHECK(index.nearest({{0.4, 0.0}}, 2) == std::vector<std::uint32_t>{10, 0});
}

TEST_CASE("dynamic_orthtree's parts map tree ids to ids as runs, or one an entry, as the ids they were given", "[dynamic]") {
    using map = quoct::detail::part_ids<std::uint32_t>;
    const auto check = [](const std::vector<std::uint32_t>& ids) {
        INFO("ids: " << ids.size() << " from " << (ids.empty() ? 0u : ids.front()));
        const map m = map::of(ids);
        for (std::size_t i = 0; i < ids.size(); ++i) CHECK(m(static_cast<std::uint32_t>(i)) == ids[i]);
        std::vector<std::uint32_t> seen;
        m.each(ids.size(), [&](std::uint32_t pos, std::uint32_t id) {
            CHECK(pos == seen.size());
            seen.push_back(id);
        });
        CHECK(seen == ids);
        const std::vector<std::uint32_t> file = m.expanded(ids.size());
        CHECK((m.identity() ? file.empty() : file == ids));
        CHECK(map::of(std::vector<std::uint32_t>(ids))(static_cast<std::uint32_t>(ids.size() / 2)) ==
              (ids.empty() ? ids.size() / 2 : ids[ids.size() / 2]));
        return m;
    };
    std::vector<std::uint32_t> ids;
    CHECK(check(ids).identity());
    for (std::uint32_t i = 0; i < 1000; ++i) ids.push_back(i);
    CHECK(check(ids).identity());
    CHECK(map::of(ids).memory_bytes() == 0);
    for (auto& id : ids) id += 7;  // one run, not from 0
    CHECK_FALSE(check(ids).identity());
    CHECK(map::of(ids).memory_bytes() < 100);
    // Runs broken by gaps (erased ids): up to max_runs kept as runs, one more and one id an
    // entry; runs of one id among them.
    for (std::size_t runs = 2; runs <= map::max_runs + 1; ++runs) {
        std::vector<std::uint32_t> gappy;
        for (std::uint32_t r = 0; r < runs; ++r)
            for (std::uint32_t i = 0; i < (r % 3 == 1 ? 1u : 50u); ++i) gappy.push_back(r * 1000 + i);
        check(gappy);
        const bool as_runs = map::of(gappy).memory_bytes() < gappy.size() * sizeof(std::uint32_t);
        CHECK(as_runs == (runs <= map::max_runs));
    }
}

}  // namespace test_dynamic
