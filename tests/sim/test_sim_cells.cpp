// The cell engine of the neighbour lists (detail/cell_lists.hpp) and its vector kernels
// (detail/pair_kernels.hpp), at every instruction-set level this CPU runs, against the
// portable loop and brute force: ties at exactly d = r on integer and dyadic lattices,
// coordinates far from the origin, a dense block with a sparse splash, r = 0 with
// duplicates, radii far below the extent, 1 to 4 dimensions, two threads.
#include <catch2/catch.hpp>

#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <quoct/dynamic.hpp>
#include <quoct/orthtree.hpp>
#include <quoct/pairs.hpp>

namespace test_sim_cells {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

namespace kn = quoct::detail::kernels;

// Restores the kernels' level when a test ends.
struct level_guard {
    ~level_guard() { kn::use_level(kn::cpu_level()); }
};

std::vector<kn::level> levels_here() {
    std::vector<kn::level> out;
    for (int l = 0; l <= static_cast<int>(kn::cpu_level()); ++l) out.push_back(static_cast<kn::level>(l));
    return out;
}

template <class T, std::size_t D>
quoct::csr<std::uint32_t> brute_lists(const std::vector<quoct::point<T, D>>& from,
                                      const std::vector<quoct::point<T, D>>& to, T r, bool skip_self) {
    quoct::csr<std::uint32_t> t;
    for (std::uint32_t i = 0; i < from.size(); ++i) {
        for (std::uint32_t j = 0; j < to.size(); ++j)
            if (!(skip_self && i == j) && quoct::distance_sq(from[i], to[j]) <= r * r) t.values.push_back(j);
        t.offsets.push_back(t.values.size());
    }
    return t;
}

// A value for the kernels' inputs: mostly ordinary, some ties, NaN, infinities, huge and tiny.
template <class T>
T odd_value(quoct_test::rng& rng) {
    switch (rng.below(20)) {
        case 0: return std::numeric_limits<T>::quiet_NaN();
        case 1: return std::numeric_limits<T>::infinity();
        case 2: return -std::numeric_limits<T>::infinity();
        case 3: return std::numeric_limits<T>::max();
        case 4: return std::numeric_limits<T>::denorm_min();
        case 5: return T(1);
        case 6: return T(0);
        default: return static_cast<T>(rng.uniform(-2, 2));
    }
}

// Equal, or both NaN (the kernels copy NaN coordinates like any other).
template <class T>
bool same_value(T a, T b) {
    return a == b || (std::isnan(a) && std::isnan(b));
}

template <class T, std::size_t D>
void kernels_agree(quoct_test::rng& rng) {
    const std::size_t n = 203;
    std::vector<T> cols[D];
    for (auto& c : cols) {
        c.resize(n + kn::lanes_max);
        for (auto& x : c) x = odd_value<T>(rng);
    }
    const T* c[D];
    for (std::size_t a = 0; a < D; ++a) c[a] = cols[a].data();
    std::vector<std::uint32_t> ids(n + kn::lanes_max);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::uint32_t>(i * 7 % 11);  // repeats
    std::vector<T> radii2(n + kn::lanes_max);
    for (auto& x : radii2) x = odd_value<T>(rng);
    std::vector<std::uint32_t> want(n + kn::lanes_max), want_near(n + kn::lanes_max), want_ids(n + kn::lanes_max),
        got(n + kn::lanes_max);
    for (int round = 0; round < 80; ++round) {
        T p[D], lo[D], hi[D];
        for (std::size_t a = 0; a < D; ++a) {
            p[a] = odd_value<T>(rng);
            lo[a] = odd_value<T>(rng);
            hi[a] = round % 3 == 0 ? lo[a] : odd_value<T>(rng);
        }
        T r2 = round % 5 == 0 ? T(0) : round % 7 == 0 ? std::numeric_limits<T>::infinity() : T(1.5);
        if (round % 3 == 2) {
            // A tie at an inexact distance: r2 is a candidate's own distance_sq from p (a
            // fused multiply-add would round it differently and lose the tie).
            for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(rng.uniform(-2, 2));
            for (std::size_t k = 0; k < n; ++k) {
                const T d = kn::candidate_distance_sq<T, D>(p, c, (k + static_cast<std::size_t>(round)) % n);
                if (std::isfinite(d) && d > 0) {
                    r2 = d;
                    break;
                }
            }
        }
        const T* cr2 = round % 2 == 0 ? nullptr : radii2.data();  // the candidates' own squared radii
        const bool has_skip = round % 4 == 1;
        const std::uint32_t skip = static_cast<std::uint32_t>(round % 11);
        std::size_t first = rng.below(n + 1), last = rng.below(n + 1);
        if (first > last) std::swap(first, last);
        const std::size_t count = kn::count_within<T, D>(kn::level::portable, p, c, cr2, first, last, r2);
        const std::size_t hits = kn::hits_within<T, D>(kn::level::portable, p, c, cr2, first, last, r2, want.data());
        REQUIRE(count == hits);
        const std::size_t near = kn::near_box<T, D>(kn::level::portable, lo, hi, c, first, last, r2, want_near.data());
        const std::size_t hit_ids =
            kn::hit_ids<T, D>(kn::level::portable, p, c, cr2, ids.data(), first, last, r2, has_skip, skip, want_ids.data());
        // The portable loops against the core's own functions.
        std::size_t expect_hits = 0, expect_ids = 0;
        for (std::size_t i = first; i < last; ++i) {
            quoct::point<T, D> q, pp;
            for (std::size_t a = 0; a < D; ++a) {
                q[a] = c[a][i];
                pp[a] = p[a];
            }
            const T d2 = quoct::distance_sq(pp, q);
            const bool in = d2 <= r2 || (cr2 != nullptr && d2 <= cr2[i]);
            if (in) {
                CHECK(want[expect_hits] == i);
                ++expect_hits;
            }
            if (in && !(has_skip && ids[i] == skip)) {
                CHECK(want_ids[expect_ids] == ids[i]);
                ++expect_ids;
            }
        }
        CHECK(hits == expect_hits);
        CHECK(hit_ids == expect_ids);
        std::size_t expect_near = 0;
        for (std::size_t i = first; i < last; ++i) {
            quoct::point<T, D> q;
            quoct::box<T, D> b;
            for (std::size_t a = 0; a < D; ++a) {
                q[a] = c[a][i];
                b.lo[a] = lo[a];
                b.hi[a] = hi[a];
            }
            expect_near += quoct::distance_sq(q, b) <= r2 ? 1u : 0u;
        }
        CHECK(near == expect_near);
        // The copying box filter: the candidates near_box selects, their coordinates, tags
        // (ids, or positions without tags) and extra values (radii), in order.
        const std::uint32_t* tags = round % 3 == 1 ? nullptr : ids.data();
        const T* extra = round % 2 == 0 ? radii2.data() : nullptr;
        std::vector<T> copy_c[D], copy_x(n + kn::lanes_max);
        std::vector<std::uint32_t> copy_t(n + kn::lanes_max);
        T* copy_out[D];
        for (std::size_t a = 0; a < D; ++a) {
            copy_c[a].resize(n + kn::lanes_max);
            copy_out[a] = copy_c[a].data();
        }
        const auto copied_as_near_box = [&](kn::level l) {
            const std::size_t m = kn::near_box_copy<T, D>(l, lo, hi, c, tags, extra, first, last, r2, copy_out,
                                                          copy_t.data(), extra != nullptr ? copy_x.data() : nullptr);
            REQUIRE(m == near);
            for (std::size_t h = 0; h < m; ++h) {
                const std::size_t i = want_near[h];
                for (std::size_t a = 0; a < D; ++a) CHECK(same_value(copy_c[a][h], c[a][i]));
                CHECK(copy_t[h] == (tags != nullptr ? tags[i] : static_cast<std::uint32_t>(i)));
                if (extra != nullptr) CHECK(same_value(copy_x[h], extra[i]));
            }
        };
        copied_as_near_box(kn::level::portable);
        for (kn::level l : levels_here()) {
            INFO("level " << kn::level_name(l) << ", D " << D << ", round " << round);
            CHECK(kn::count_within<T, D>(l, p, c, cr2, first, last, r2) == count);
            const std::size_t h = kn::hits_within<T, D>(l, p, c, cr2, first, last, r2, got.data());
            REQUIRE(h == hits);
            CHECK(std::equal(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(h), want.begin()));
            const std::size_t nb = kn::near_box<T, D>(l, lo, hi, c, first, last, r2, got.data());
            REQUIRE(nb == near);
            CHECK(std::equal(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(nb), want_near.begin()));
            copied_as_near_box(l);
            const std::size_t hi_ids = kn::hit_ids<T, D>(l, p, c, cr2, ids.data(), first, last, r2, has_skip, skip, got.data());
            REQUIRE(hi_ids == hit_ids);
            CHECK(std::equal(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(hi_ids), want_ids.begin()));
        }
    }
}

template <class T, std::size_t D>
void lists_match(const std::vector<quoct::point<T, D>>& pts, T r) {
    level_guard guard;
    const quoct::orthtree<T, D> tree(pts);
    const auto expect = brute_lists(pts, pts, r, true);
    for (kn::level l : levels_here()) {
        kn::use_level(l);
        for (unsigned threads : {1u, 2u}) {
            INFO("level " << kn::level_name(l) << ", threads " << threads << ", r " << r << ", D " << D);
            const auto got = quoct::neighbor_lists(tree, r, threads);
            CHECK(got.offsets == expect.offsets);
            CHECK(got.values == expect.values);
            const auto direct = quoct::neighbor_lists(pts, r, threads);  // no index
            CHECK(direct.offsets == expect.offsets);
            CHECK(direct.values == expect.values);
        }
    }
}

template <class T, std::size_t D>
std::vector<quoct::point<T, D>> lattice(quoct_test::rng& rng, int side, double jitter, double step, double origin) {
    std::vector<quoct::point<T, D>> pts;
    std::size_t total = 1;
    for (std::size_t a = 0; a < D; ++a) total *= static_cast<std::size_t>(side);
    for (std::size_t i = 0; i < total; ++i) {
        quoct::point<T, D> p;
        std::size_t rest = i;
        for (std::size_t a = 0; a < D; ++a) {
            const double cell = static_cast<double>(rest % static_cast<std::size_t>(side));
            rest /= static_cast<std::size_t>(side);
            // Jitter on the dyadic grid of `step` so that ties stay exact.
            const double off = jitter > 0 ? std::round(rng.uniform(-jitter, jitter) / step) * step : 0;
            p[a] = static_cast<T>(origin + cell + off);
        }
        pts.push_back(p);
    }
    std::shuffle(pts.begin(), pts.end(), rng);
    return pts;
}

}  // namespace

TEST_CASE("vector kernels return what the portable loops return, at every level", "[sim][cells]") {
    quoct_test::rng rng(11);
    INFO("this CPU runs up to " << kn::level_name(kn::cpu_level()));
    kernels_agree<float, 1>(rng);
    kernels_agree<float, 2>(rng);
    kernels_agree<float, 3>(rng);
    kernels_agree<double, 2>(rng);
    kernels_agree<double, 3>(rng);
    kernels_agree<double, 4>(rng);
}

TEST_CASE("cell neighbour lists: ties at d = r on integer and dyadic lattices", "[sim][cells]") {
    quoct_test::rng rng(3);
    // Integer lattice: many pairs at exactly r = 1, 2 and sqrt-free radii.
    lists_match(lattice<float, 3>(rng, 9, 0, 1, 0), 2.0f);
    lists_match(lattice<double, 3>(rng, 9, 0, 1, 0), 1.0);
    lists_match(lattice<float, 2>(rng, 25, 0, 1, 0), 3.0f);
    lists_match(lattice<double, 1>(rng, 300, 0, 1, 0), 2.0);
    lists_match(lattice<double, 4>(rng, 5, 0, 1, 0), 1.0);
    // Dyadic jitter (multiples of 1/8): still exact ties, cells cut through clusters.
    lists_match(lattice<float, 3>(rng, 10, 0.25, 0.125, 0), 1.5f);
    lists_match(lattice<double, 2>(rng, 30, 0.5, 0.125, 0), 1.25);
    // Far from the origin, where float's spacing is coarse (2^-4 at 2^19).
    lists_match(lattice<float, 3>(rng, 8, 0.25, 0.0625, 524288), 2.0f);
    lists_match(lattice<double, 3>(rng, 8, 0.25, 0.0625, -1e9), 2.0);
}

TEST_CASE("cell neighbour lists: ties at inexact distances on random coordinates", "[sim][cells]") {
    quoct_test::rng rng(12);
    auto random_points = [&](auto zero, std::size_t n) {
        using P = quoct::point<decltype(zero), 3>;
        std::vector<P> pts(n);
        for (auto& p : pts)
            for (std::size_t a = 0; a < 3; ++a) p[a] = static_cast<decltype(zero)>(rng.uniform(-3, 3));
        return pts;
    };
    const auto f = random_points(0.0f, 1500);
    const auto d = random_points(0.0, 1500);
    // r is the distance of real pairs, so some pair lies at exactly distance_sq == r * r
    // with every square and sum inexact (pairs whose rounded sqrt squares back exactly).
    int ties_f = 0, ties_d = 0;
    for (std::size_t k = 0; k + 7 < f.size() && (ties_f < 2 || ties_d < 2); ++k) {
        const float d2f = quoct::distance_sq(f[k], f[k + 7]);
        const float rf = std::sqrt(d2f);
        if (ties_f < 2 && d2f < 1 && rf * rf == d2f) {
            lists_match(f, rf);
            ++ties_f;
        }
        const double d2d = quoct::distance_sq(d[k], d[k + 7]);
        const double rd = std::sqrt(d2d);
        if (ties_d < 2 && d2d < 1 && rd * rd == d2d) {
            lists_match(d, rd);
            ++ties_d;
        }
    }
    CHECK(ties_f == 2);
    CHECK(ties_d == 2);
    lists_match(f, 0.4f);
    lists_match(d, 0.4);
}

TEST_CASE("cell neighbour lists with 64-bit ids", "[sim][cells]") {
    level_guard guard;
    quoct_test::rng rng(6);
    const auto pts = lattice<float, 3>(rng, 9, 0.25, 0.125, 0);
    const quoct::orthtree<float, 3, std::uint64_t> tree(pts);
    const auto expect = brute_lists(pts, pts, 1.5f, true);
    for (kn::level l : levels_here()) {
        kn::use_level(l);
        const auto got = quoct::neighbor_lists(tree, 1.5f, 2);
        CHECK(got.offsets == expect.offsets);
        CHECK(std::equal(got.values.begin(), got.values.end(), expect.values.begin(), expect.values.end()));
    }
}

TEST_CASE("cell neighbour lists: splash, duplicates, r = 0, radii far below the extent", "[sim][cells]") {
    quoct_test::rng rng(8);
    // A dense block with 20% of the points splashed over a region 50 times wider.
    auto pts = lattice<float, 3>(rng, 10, 0.3, 1.0 / 64, 0);
    for (std::size_t i = 0; i < pts.size() / 5; ++i)
        for (std::size_t a = 0; a < 3; ++a) pts[i][a] = static_cast<float>(rng.uniform(-200, 300));
    lists_match(pts, 2.0f);
    // Duplicates: r = 0 pairs exactly the equal points.
    auto dup = lattice<double, 2>(rng, 12, 0, 1, 0);
    dup.insert(dup.end(), dup.begin(), dup.begin() + 50);
    lists_match(dup, 0.0);
    lists_match(dup, 1.0);
    // Two far clusters: the radius is far below the extent / 2^bits, so cells are wider than r.
    std::vector<quoct::point<double, 3>> apart = lattice<double, 3>(rng, 6, 0.25, 0.125, 0);
    for (std::size_t i = 0; i < apart.size(); i += 2) apart[i][0] += 1e9;
    lists_match(apart, 1.0);
    std::vector<quoct::point<float, 3>> apart_f = lattice<float, 3>(rng, 6, 0.25, 0.125, 0);
    for (std::size_t i = 0; i < apart_f.size(); i += 2) apart_f[i][0] += 1e6f;  // float spacing 1/16 there
    lists_match(apart_f, 1.0f);
    // One point, two equal points.
    lists_match(std::vector<quoct::point<float, 3>>{{{1, 2, 3}}}, 1.0f);
    lists_match(std::vector<quoct::point<float, 3>>{{{1, 2, 3}}, {{1, 2, 3}}}, 0.0f);
}

TEST_CASE("cell neighbour lists across two indexes and on a dynamic index, at every level", "[sim][cells]") {
    level_guard guard;
    quoct_test::rng rng(21);
    const auto fluid = lattice<float, 3>(rng, 9, 0.25, 0.125, 0);
    auto wall = lattice<float, 3>(rng, 5, 0, 1, 2);
    for (auto& p : wall) p[2] -= 3;  // below the fluid, touching it at exact distances
    const quoct::orthtree<float, 3> fluid_tree(fluid), wall_tree(wall);
    quoct::dynamic_orthtree<float, 3> moving(fluid);
    std::vector<quoct::point<float, 3>> now = fluid;
    for (std::uint32_t id = 0; id < now.size(); id += 5) {
        now[id][0] += 0.5f;
        moving.move(id, now[id]);
    }
    const auto expect = brute_lists(fluid, wall, 1.5f, false);
    const auto expect_moving = brute_lists(now, now, 1.5f, true);
    for (kn::level l : levels_here()) {
        kn::use_level(l);
        INFO("level " << kn::level_name(l));
        for (unsigned threads : {1u, 2u}) {
            const auto got = quoct::neighbor_lists(fluid_tree, wall_tree, 1.5f, threads);
            CHECK(got.offsets == expect.offsets);
            CHECK(got.values == expect.values);
            const auto self = quoct::neighbor_lists(moving, 1.5f, threads);
            CHECK(self.offsets == expect_moving.offsets);
            CHECK(self.values == expect_moving.values);
        }
    }
}

TEST_CASE("rows are sorted alike at every level: sorted, nearly sorted, random, with repeats", "[sim][cells]") {
    quoct_test::rng rng(5);
    for (kn::level l : levels_here())
        for (std::size_t n = 0; n <= 80; ++n)
            for (int kind = 0; kind < 4; ++kind) {
                std::vector<std::uint32_t> row(n);
                for (auto& v : row) v = static_cast<std::uint32_t>(kind == 3 ? rng.below(8) : rng.bits() & 0xffffffffu);
                if (kind == 0) std::sort(row.begin(), row.end());
                if (kind == 1 && n > 3) {
                    std::sort(row.begin(), row.end());
                    std::swap(row[1], row[n - 2]);
                }
                std::vector<std::uint32_t> expect = row;
                std::sort(expect.begin(), expect.end());
                std::vector<std::uint64_t> wide(row.begin(), row.end());
                kn::sort_row(l, row.data(), row.data() + n);
                kn::sort_row(l, wide.data(), wide.data() + n);
                INFO("level " << kn::level_name(l) << ", n " << n << ", kind " << kind);
                CHECK(row == expect);
                CHECK(std::equal(wide.begin(), wide.end(), expect.begin(), expect.end()));
            }
}

namespace {

// Brute force of the radius rules, with the core's ball predicate.
template <class T, std::size_t D>
quoct::csr<std::uint32_t> brute_radius_lists(const std::vector<quoct::point<T, D>>& pts, const std::vector<T>& h,
                                             quoct::radius_rule rule) {
    quoct::csr<std::uint32_t> t;
    for (std::uint32_t i = 0; i < pts.size(); ++i) {
        for (std::uint32_t j = 0; j < pts.size(); ++j) {
            if (i == j) continue;
            const bool own = quoct::contains(quoct::ball<T, D>{pts[i], h[i]}, pts[j]);
            const bool theirs = quoct::contains(quoct::ball<T, D>{pts[j], h[j]}, pts[i]);
            if (own || (rule == quoct::radius_rule::larger && theirs)) t.values.push_back(j);
        }
        t.offsets.push_back(t.values.size());
    }
    return t;
}

template <class T, std::size_t D>
void radius_lists_match(const std::vector<quoct::point<T, D>>& pts, const std::vector<T>& h) {
    level_guard guard;
    for (auto rule : {quoct::radius_rule::own, quoct::radius_rule::larger}) {
        const auto expect = brute_radius_lists(pts, h, rule);
        for (kn::level l : levels_here()) {
            kn::use_level(l);
            for (unsigned threads : {1u, 2u}) {
                INFO("level " << kn::level_name(l) << ", threads " << threads << ", rule " << static_cast<int>(rule));
                const auto got = quoct::neighbor_lists(pts, h, rule, threads);
                CHECK(got.offsets == expect.offsets);
                CHECK(got.values == expect.values);
            }
        }
    }
}

}  // namespace

TEST_CASE("per-point radii, own and larger, equal brute force with the ball predicate", "[sim][cells]") {
    quoct_test::rng rng(77);
    // Integer lattice, radii 1, 1.5 or 2: ties at exactly d = h_i and d = h_j.
    const auto pts = lattice<float, 3>(rng, 8, 0, 1, 0);
    std::vector<float> h(pts.size());
    for (auto& x : h) x = 1.0f + 0.5f * static_cast<float>(rng.below(3));
    radius_lists_match(pts, h);
    // Dyadic jitter in 2D double, radii 0 (never anyone's own neighbour) to 3.
    const auto flat = lattice<double, 2>(rng, 20, 0.5, 0.125, 0);
    std::vector<double> hd(flat.size());
    for (auto& x : hd) x = static_cast<double>(rng.below(25)) / 8.0;
    radius_lists_match(flat, hd);  // radius 0 among them: one ball query per point
    for (auto& x : hd) x = (1 + static_cast<double>(rng.below(25))) / 8.0;
    radius_lists_match(flat, hd);  // all plain: the cells
    // One radius far above the rest (cells as wide as it), and the query fallback: a
    // radius whose square underflows (not plain), an infinite one.
    auto wide = h;
    wide[3] = 30.0f;
    radius_lists_match(pts, wide);
    auto tiny = h;
    tiny[5] = 1e-30f;
    radius_lists_match(pts, tiny);
    auto all = hd;
    all[7] = std::numeric_limits<double>::infinity();
    radius_lists_match(flat, all);
}

TEST_CASE("neighbour lists on arrays: two sets, order, reorder, bad input", "[sim][cells]") {
    quoct_test::rng rng(4);
    const auto fluid = lattice<double, 3>(rng, 7, 0.25, 0.125, 0);
    auto wall = lattice<double, 3>(rng, 4, 0, 1, 1);
    for (auto& p : wall) p[1] -= 2.5;
    const auto cross = brute_lists(fluid, wall, 1.5, false);
    for (unsigned threads : {1u, 2u}) {
        const auto got = quoct::neighbor_lists(fluid, wall, 1.5, threads);
        CHECK(got.offsets == cross.offsets);
        CHECK(got.values == cross.values);
    }
    CHECK(quoct::neighbor_lists(fluid, std::vector<quoct::point<double, 3>>{}, 1.5).values.empty());
    CHECK(quoct::neighbor_lists(std::vector<quoct::point<double, 3>>{}, 1.5).offsets.size() == 1);

    // neighbor_order: a permutation; the reordered points give the same lists, relabelled.
    const auto order = quoct::neighbor_order(fluid, 1.5);
    REQUIRE(order.size() == fluid.size());
    std::vector<std::size_t> seen(order);
    std::sort(seen.begin(), seen.end());
    for (std::size_t i = 0; i < seen.size(); ++i) CHECK(seen[i] == i);
    const auto moved = quoct::reorder(fluid, order);
    for (std::size_t k = 0; k < order.size(); ++k) CHECK(moved[k] == fluid[order[k]]);
    const auto lists = quoct::neighbor_lists(moved, 1.5);
    const auto expect = brute_lists(moved, moved, 1.5, true);
    CHECK(lists.offsets == expect.offsets);
    CHECK(lists.values == expect.values);
    CHECK_THROWS_AS(quoct::reorder(fluid, std::vector<std::size_t>{0, 1}), std::invalid_argument);
    auto bad_order = order;
    bad_order[0] = fluid.size();
    CHECK_THROWS_AS(quoct::reorder(fluid, bad_order), std::invalid_argument);
    bad_order = order;
    bad_order[1] = bad_order[0];
    CHECK_THROWS_WITH(quoct::reorder(fluid, bad_order), Catch::Matchers::Contains("not a permutation"));
    CHECK(quoct::neighbor_order(std::vector<quoct::point<float, 2>>{{{1, 2}}, {{0, 0}}}, 1.0).size() == 2);
    CHECK_THROWS_AS(quoct::neighbor_order(fluid, -1.0), std::invalid_argument);

    // Bad input: a clear exception, nothing computed.
    auto broken = fluid;
    broken[3][1] = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH(quoct::neighbor_lists(broken, 1.5), Catch::Matchers::Contains("points[3]"));
    CHECK_THROWS_WITH(quoct::neighbor_lists(fluid, broken, 1.5), Catch::Matchers::Contains("others[3]"));
    CHECK_THROWS_AS(quoct::neighbor_lists(broken, std::vector<quoct::point<double, 3>>{}, 1.5), std::invalid_argument);
    CHECK_THROWS_AS(quoct::neighbor_lists(fluid, std::nan("")), std::invalid_argument);
    std::vector<double> h(fluid.size(), 1.0);
    CHECK_THROWS_AS(quoct::neighbor_lists(fluid, std::vector<double>(3, 1.0), quoct::radius_rule::own), std::invalid_argument);
    h[9] = -1;
    CHECK_THROWS_WITH(quoct::neighbor_lists(fluid, h, quoct::radius_rule::own),
                      Catch::Matchers::Contains("radius 9 is negative"));
    h[9] = std::nan("");
    CHECK_THROWS_WITH(quoct::neighbor_lists(fluid, h, quoct::radius_rule::larger),
                      Catch::Matchers::Contains("radius 9 is NaN"));
}

TEST_CASE("neighbour lists into a reused table, step after step, at every level", "[sim][cells]") {
    level_guard guard;
    quoct_test::rng rng(8);
    auto pts = lattice<float, 3>(rng, 9, 0.25, 0.125, 0);
    for (kn::level l : levels_here()) {
        kn::use_level(l);
        quoct::csr<std::uint32_t> table;
        table.values.assign(5000, 77);  // stale contents: every entry must be rewritten
        // Growing (more pairs), shrinking (fewer points, then a smaller radius), empty, and
        // growing again, each into the same table.
        const std::size_t sizes[] = {pts.size(), pts.size(), pts.size() / 2, pts.size() / 2, 0, pts.size()};
        const float radii[] = {1.0f, 2.0f, 2.0f, 1.0f, 1.0f, 1.5f};
        for (std::size_t step = 0; step < 6; ++step) {
            const std::vector<quoct::point<float, 3>> now(pts.begin(), pts.begin() + static_cast<std::ptrdiff_t>(sizes[step]));
            INFO("level " << kn::level_name(l) << ", step " << step);
            quoct::neighbor_lists(now, radii[step], table, step % 2 ? 2u : 1u);
            const auto expect = brute_lists(now, now, radii[step], true);
            CHECK(table.offsets == expect.offsets);
            CHECK(table.values == expect.values);
        }
        // Bad input throws before the table is touched.
        auto broken = pts;
        broken[5][2] = std::numeric_limits<float>::infinity();
        const auto before = table.values;
        CHECK_THROWS_WITH(quoct::neighbor_lists(broken, 1.0f, table), Catch::Matchers::Contains("points[5]"));
        CHECK_THROWS_AS(quoct::neighbor_lists(pts, -1.0f, table), std::invalid_argument);
        CHECK(table.values == before);
    }
}

namespace {

// Ball queries and counts at every kernel level against brute force with the core's
// predicate, on a tree of Id ids: balls centred on the points themselves at radii that are
// real squared distances (ties at inexact distances), and balls around the last stored
// points (the kernels stop short of the end of the storage).
template <class T, std::size_t D, class Id>
void ball_queries_match(const std::vector<quoct::point<T, D>>& pts) {
    level_guard guard;
    const quoct::orthtree<T, D, Id> tree(pts);
    quoct_test::rng rng(pts.size());
    std::vector<Id> got;
    for (int round = 0; round < 60; ++round) {
        const std::size_t i = round < 10 ? pts.size() - 1 - static_cast<std::size_t>(round) % pts.size() : rng.below(pts.size());
        const std::size_t j = rng.below(pts.size());
        const quoct::point<T, D> c = pts[i];
        // A radius whose square is a real distance_sq (some of them tie exactly), or not.
        T r = std::sqrt(quoct::distance_sq(c, pts[j]));
        if (round % 3 == 0) r = std::nextafter(r, T(0));
        const T r2 = r * r;
        std::vector<Id> expect;
        for (std::size_t k = 0; k < pts.size(); ++k)
            if (quoct::distance_sq(pts[k], c) <= r2) expect.push_back(static_cast<Id>(k));
        for (kn::level l : levels_here()) {
            kn::use_level(l);
            INFO("level " << kn::level_name(l) << ", round " << round << ", n " << pts.size() << ", D " << D);
            tree.query(quoct::ball<T, D>{c, r}, got);
            std::sort(got.begin(), got.end());
            CHECK(got == expect);
            CHECK(tree.count(quoct::ball<T, D>{c, r}) == expect.size());
        }
    }
}

}  // namespace

TEST_CASE("ball queries and counts use the kernels at every level, exactly", "[sim][cells][kernels]") {
    quoct_test::rng rng(21);
    for (std::size_t n : {5u, 17u, 40u, 3000u}) {
        std::vector<quoct::point<float, 3>> f(n);
        std::vector<quoct::point<double, 2>> d(n);
        for (auto& p : f)
            for (std::size_t a = 0; a < 3; ++a) p[a] = static_cast<float>(rng.uniform(-1, 1));
        for (auto& p : d)
            for (std::size_t a = 0; a < 2; ++a) p[a] = rng.uniform(-1, 1);
        ball_queries_match<float, 3, std::uint32_t>(f);
        ball_queries_match<double, 2, std::uint32_t>(d);
        ball_queries_match<float, 3, std::uint64_t>(f);
    }
    // Integer lattices: pairs at exactly d = r by the thousand.
    auto lat = lattice<float, 3>(rng, 12, 0, 1, 0);
    ball_queries_match<float, 3, std::uint32_t>(lat);
    auto lat2 = lattice<double, 2>(rng, 40, 0.5, 0.25, -7);
    ball_queries_match<double, 2, std::uint32_t>(lat2);
}

}  // namespace test_sim_cells
