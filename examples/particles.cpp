// A 2D particle simulation with quoct: soft discs with harmonic repulsion in a periodic
// box, integrated with velocity Verlet. Each step rebuilds a periodic quadtree
// over the new positions and takes the CSR neighbour lists (quoct::neighbor_lists) that
// the force loop consumes, as SPH and MD codes do.
//
// Prints the energies every 50 steps; every 50 steps the pair count is also checked
// against brute force over all pairs, and the program returns 1 if they differ.
//
//   particles [particles=2000] [steps=300] [threads=1]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <quoct/pairs.hpp>
#include <quoct/periodic.hpp>

namespace {

using T = double;
using vec = quoct::point<T, 2>;

constexpr T diameter = 1;   // discs interact when closer than this
constexpr T stiffness = 50;  // U(r) = stiffness / 2 * (1 - r / diameter)^2 for r < diameter
constexpr T dt = 0.005;

// The displacement from b to a under the minimum image, and the same distance that the
// periodic index uses (axis by axis: d = |a - b|, d = min(d, L - d)).
vec minimum_image(const vec& a, const vec& b, T length) {
    vec d;
    for (std::size_t k = 0; k < 2; ++k) {
        T x = a[k] - b[k];
        if (x > length / 2) x -= length;
        if (x < -length / 2) x += length;
        d[k] = x;
    }
    return d;
}

struct particle_system {
    T length;
    quoct::periodic_domain<T, 2> domain;
    std::vector<vec> pos, vel, force;
    T potential = 0;
    std::size_t pairs = 0;

    // Forces from the neighbour lists of the current positions.
    void compute_forces(unsigned threads) {
        quoct::periodic_orthtree<T, 2> index(domain, pos);
        const quoct::csr<std::uint32_t> lists = quoct::neighbor_lists(index, diameter, threads);
        potential = 0;
        pairs = 0;
        for (std::size_t i = 0; i < pos.size(); ++i) {
            vec f{};
            for (std::uint32_t j : lists.row(i)) {
                const vec d = minimum_image(pos[i], pos[j], length);
                const T r = std::sqrt(d[0] * d[0] + d[1] * d[1]);
                if (r >= diameter || r == 0) continue;
                const T overlap = 1 - r / diameter;
                const T magnitude = stiffness * overlap / diameter;  // -dU/dr
                f[0] += magnitude * d[0] / r;
                f[1] += magnitude * d[1] / r;
                potential += stiffness / 2 * overlap * overlap / 2;  // each pair is seen twice
            }
            force[i] = f;
            pairs += lists.row(i).size();
        }
        pairs /= 2;
    }

    T kinetic() const {
        T k = 0;
        for (const vec& v : vel) k += (v[0] * v[0] + v[1] * v[1]) / 2;
        return k;
    }

    void step(unsigned threads) {
        for (std::size_t i = 0; i < pos.size(); ++i) {
            for (std::size_t k = 0; k < 2; ++k) {
                vel[i][k] += dt / 2 * force[i][k];
                pos[i][k] += dt * vel[i][k];
            }
            pos[i] = domain.wrap(pos[i]);
        }
        compute_forces(threads);
        for (std::size_t i = 0; i < pos.size(); ++i)
            for (std::size_t k = 0; k < 2; ++k) vel[i][k] += dt / 2 * force[i][k];
    }

    std::size_t brute_force_pairs() const {
        std::size_t n = 0;
        for (std::size_t i = 0; i < pos.size(); ++i)
            for (std::size_t j = i + 1; j < pos.size(); ++j)
                n += domain.distance_sq(pos[i], pos[j]) <= diameter * diameter ? 1 : 0;
        return n;
    }
};

}  // namespace

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 2000;
    const int steps = argc > 2 ? std::atoi(argv[2]) : 300;
    const unsigned threads = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : 1;

    // A square lattice at about 0.6 area fraction, jiggled, with random velocities.
    particle_system s;
    const std::size_t side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
    const T spacing = 1.1 * diameter;
    s.length = spacing * static_cast<T>(side);
    s.domain.length = {s.length, s.length};
    std::mt19937_64 rng(1);
    std::normal_distribution<T> gauss(0, 0.5);
    for (std::size_t i = 0; i < n; ++i) {
        const vec p{{spacing * (static_cast<T>(i % side) + 0.5 + 0.1 * gauss(rng)),
                     spacing * (static_cast<T>(i / side) + 0.5 + 0.1 * gauss(rng))}};
        s.pos.push_back(s.domain.wrap(p));
        s.vel.push_back({{gauss(rng), gauss(rng)}});
    }
    vec mean{};
    for (const vec& v : s.vel) {
        mean[0] += v[0] / static_cast<T>(n);
        mean[1] += v[1] / static_cast<T>(n);
    }
    for (vec& v : s.vel) {
        v[0] -= mean[0];
        v[1] -= mean[1];
    }
    s.force.resize(n);
    s.compute_forces(threads);

    std::printf("%zu discs in a periodic %.1f x %.1f box, %d steps, %u thread(s)\n", n, s.length, s.length, steps,
                threads);
    std::printf("%6s %12s %12s %14s %8s\n", "step", "kinetic", "potential", "total", "pairs");
    const T start = s.kinetic() + s.potential;
    int failures = 0;
    for (int t = 0; t <= steps; ++t) {
        if (t > 0) s.step(threads);
        if (t % 50 == 0) {
            const T total = s.kinetic() + s.potential;
            std::printf("%6d %12.4f %12.4f %14.6f %8zu\n", t, s.kinetic(), s.potential, total, s.pairs);
            const std::size_t brute = s.brute_force_pairs();
            if (brute != s.pairs) {
                std::printf("  MISMATCH: brute force finds %zu pairs\n", brute);
                ++failures;
            }
        }
    }
    const T end = s.kinetic() + s.potential;
    std::printf("relative energy drift: %.2e\n", std::abs(end - start) / std::abs(start));
    std::printf(failures ? "FAILED: neighbour pairs differ from brute force\n" : "ok: neighbour pairs match brute force\n");
    return failures ? 1 : 0;
}
