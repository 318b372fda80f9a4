// SPH-style neighbour lists: a block of fluid particles above a wall of boundary
// particles, a few time steps in which every particle moves, lists redone each step on
// the particles' arrays (no index), the arrays kept in the search's own order, and
// variable smoothing lengths. Every table is checked against brute force; the program
// returns nonzero on any difference.
//
//   sph_neighbours [particles per side, default 16]
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <quoct/pairs.hpp>

using point = quoct::point<float, 3>;

namespace {

// Brute force with the core's ball predicate: within h of point i (own rule), or of
// either point (larger rule).
bool same_as_brute_force(const quoct::csr<std::uint32_t>& lists, const std::vector<point>& from,
                         const std::vector<point>& to, const std::vector<float>& h_from,
                         const std::vector<float>& h_to, bool larger, bool skip_self) {
    if (lists.rows() != from.size()) return false;
    for (std::size_t i = 0; i < from.size(); ++i) {
        std::vector<std::uint32_t> expect;
        for (std::size_t j = 0; j < to.size(); ++j) {
            if (skip_self && i == j) continue;
            const bool own = quoct::contains(quoct::ball<float, 3>{from[i], h_from[i]}, to[j]);
            const bool theirs = larger && quoct::contains(quoct::ball<float, 3>{to[j], h_to[j]}, from[i]);
            if (own || theirs) expect.push_back(static_cast<std::uint32_t>(j));
        }
        const auto row = lists.row(i);
        if (!std::equal(row.begin(), row.end(), expect.begin(), expect.end())) {
            std::fprintf(stderr, "row %zu differs from brute force\n", i);
            return false;
        }
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    const int side = argc > 1 ? std::max(2, std::atoi(argv[1])) : 16;
    const float spacing = 1.0f, h = 2.0f * spacing;  // about 30 neighbours inside the block
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> jitter(-0.2f, 0.2f), kick(-0.05f, 0.05f);

    std::vector<point> fluid, wall;
    for (int x = 0; x < side; ++x)
        for (int y = 0; y < side; ++y) {
            for (int z = 0; z < side; ++z)
                fluid.push_back({{x + jitter(rng), y + jitter(rng), 1.5f + z + jitter(rng)}});
            wall.push_back({{float(x), float(y), 0.0f}});
        }
    std::vector<point> velocity(fluid.size(), point{{0, 0, 0}});
    const std::vector<float> h_fluid(fluid.size(), h), h_wall(wall.size(), h);

    // Keep the fluid arrays in the search's own order: rows then come out sorted already.
    std::vector<std::size_t> order = quoct::neighbor_order(fluid, h);
    fluid = quoct::reorder(fluid, order);
    velocity = quoct::reorder(velocity, order);

    bool ok = true;
    double total_ms = 0;
    // The tables live across steps: each step's lists go into the memory of the last.
    quoct::csr<std::uint32_t> lists, boundary;
    for (int step = 0; step < 4; ++step) {
        for (std::size_t i = 0; i < fluid.size(); ++i)
            for (std::size_t a = 0; a < 3; ++a) {
                velocity[i][a] += kick(rng);
                fluid[i][a] += velocity[i][a];
            }
        if (step == 2) {  // now and then, as codes redo their z-sort
            order = quoct::neighbor_order(fluid, h);
            fluid = quoct::reorder(fluid, order);
            velocity = quoct::reorder(velocity, order);
        }
        const auto t0 = std::chrono::steady_clock::now();
        quoct::neighbor_lists(fluid, h, lists, /*threads=*/2);
        quoct::neighbor_lists(fluid, wall, h, boundary, 2);
        total_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        ok = ok && same_as_brute_force(lists, fluid, fluid, h_fluid, h_fluid, false, true);
        ok = ok && same_as_brute_force(boundary, fluid, wall, h_fluid, h_wall, false, false);
        std::printf("step %d: %zu fluid particles, %.1f fluid and %.2f wall neighbours each\n", step, fluid.size(),
                    double(lists.values.size()) / double(fluid.size()),
                    double(boundary.values.size()) / double(fluid.size()));
    }

    // Variable smoothing lengths: within each particle's own radius, or the larger of the two.
    std::vector<float> radii(fluid.size());
    std::uniform_int_distribution<int> pick(0, 4);
    for (float& r : radii) r = h * (0.75f + 0.125f * float(pick(rng)));
    const auto gather = quoct::neighbor_lists(fluid, radii, quoct::radius_rule::own, 2);
    const auto symmetric = quoct::neighbor_lists(fluid, radii, quoct::radius_rule::larger, 2);
    ok = ok && same_as_brute_force(gather, fluid, fluid, radii, radii, false, true);
    ok = ok && same_as_brute_force(symmetric, fluid, fluid, radii, radii, true, true);
    std::printf("variable radii: %.1f (own) and %.1f (larger) neighbours each\n",
                double(gather.values.size()) / double(fluid.size()),
                double(symmetric.values.size()) / double(fluid.size()));
    std::printf("lists in %.1f ms over 4 steps; %s\n", total_ms, ok ? "all equal to brute force" : "DIFFERENCES");
    return ok ? 0 : 1;
}
