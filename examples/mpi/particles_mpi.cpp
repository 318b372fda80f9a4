// A particle step on MPI with quoct::mpi: particles drift in the unit cube (wrapping
// around), the distributed octree follows them with update() (particles that leave a
// rank's key range migrate), then every rank gets neighbour lists for its own particles
// and an SPH-style density sum over all pairs within h. Each step checks itself against
// the serial quoct result on the same positions, and the program exits nonzero on any
// difference.
//
//   mpiexec -n 4 --oversubscribe ./build/examples/particles_mpi [particles] [steps]
//
// The check gathers every position on every rank to build the serial octree, which only a
// small example can afford; the distributed part never does that. For brevity the density
// sums go through one dense array reduced over all ranks; a large code would send each
// pair's contribution only to the rank that owns the particle.
#include <mpi.h>

#include <quoct/mpi.hpp>
#include <quoct/orthtree.hpp>
#include <quoct/pairs.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

using pt = quoct::point<double, 3>;

double kernel(double d2, double h2) {  // (h^2 - d^2)^3, zero beyond h: the poly6 shape
    const double x = h2 - d2;
    return x > 0 ? x * x * x : 0.0;
}

pt velocity(std::uint64_t id) {  // a fixed drift per particle
    std::mt19937_64 rng(id);
    std::uniform_real_distribution<double> v(-0.02, 0.02);
    return pt{{v(rng), v(rng), v(rng)}};
}

double wrap(double x) { return x - std::floor(x); }

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20000;
    const int steps = argc > 2 ? std::atoi(argv[2]) : 3;
    const double h = std::cbrt(30.0 / (double(n) * 4.0 / 3.0 * M_PI));  // about 30 neighbours

    // Every rank starts with its own slice of the particles (ids are given by that order).
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<pt> all(n), mine;
    for (pt& p : all) p = pt{{unit(rng), unit(rng), unit(rng)}};
    const std::size_t b = n * static_cast<std::size_t>(rank) / static_cast<std::size_t>(ranks);
    const std::size_t e = n * static_cast<std::size_t>(rank + 1) / static_cast<std::size_t>(ranks);
    mine.assign(all.begin() + static_cast<std::ptrdiff_t>(b), all.begin() + static_cast<std::ptrdiff_t>(e));
    quoct::mpi::distributed_octree<double> index(MPI_COMM_WORLD, mine);

    long failures = 0;
    for (int step = 0; step < steps; ++step) {
        // Move: each rank moves the particles it owns now, then the index follows.
        std::vector<pt> moved(index.owned_points());
        for (std::size_t i = 0; i < moved.size(); ++i) {
            const pt v = velocity(index.owned_ids()[i]);
            for (std::size_t a = 0; a < 3; ++a) moved[i][a] = wrap(moved[i][a] + v[a]);
        }
        const std::uint64_t bytes_before = index.bytes_sent();
        index.update(moved);

        // Neighbour lists of the owned particles, and the density sum over all pairs.
        const quoct::csr<std::uint64_t> lists = index.neighbor_lists(h);
        std::vector<double> density(n, 0.0);
        index.for_each_pair_within(h, [&](std::uint64_t i, std::uint64_t j, double d2) {
            const double w = kernel(d2, h * h);
            density[i] += w;
            density[j] += w;
        });
        MPI_Allreduce(MPI_IN_PLACE, density.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

        // The check: the serial quoct octree over the same positions, gathered by id.
        std::vector<std::uint64_t> ids = index.owned_ids();
        std::vector<pt> pts = index.owned_points();
        int count = static_cast<int>(ids.size());
        std::vector<int> counts(static_cast<std::size_t>(ranks)), displs(static_cast<std::size_t>(ranks));
        MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
        for (int r = 1; r < ranks; ++r) displs[static_cast<std::size_t>(r)] = displs[static_cast<std::size_t>(r - 1)] + counts[static_cast<std::size_t>(r - 1)];
        std::vector<std::uint64_t> all_ids(n);
        std::vector<pt> all_pts(n);
        MPI_Allgatherv(ids.data(), count, MPI_UINT64_T, all_ids.data(), counts.data(), displs.data(), MPI_UINT64_T, MPI_COMM_WORLD);
        for (int& c : counts) c *= 3;
        for (int& d : displs) d *= 3;
        MPI_Allgatherv(pts.data(), count * 3, MPI_DOUBLE, all_pts.data(), counts.data(), displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
        for (std::size_t k = 0; k < n; ++k) all[all_ids[k]] = all_pts[k];
        const quoct::octree<double> serial(all);
        const quoct::csr<std::uint32_t> serial_lists = quoct::neighbor_lists(serial, h);
        std::vector<double> serial_density(n, 0.0);
        quoct::for_each_pair_within(serial, h, [&](std::uint32_t i, std::uint32_t j, double d2) {
            const double w = kernel(d2, h * h);
            serial_density[i] += w;
            serial_density[j] += w;
        });
        long wrong = 0;
        std::size_t neighbours = 0;
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const auto row = lists.row(i);
            const auto expect = serial_lists.row(ids[i]);
            bool same = row.size() == expect.size();
            for (std::size_t k = 0; same && k < row.size(); ++k) same = row[k] == expect[k];
            // The sums add the same terms in another order: equal to rounding.
            const double d = density[ids[i]], s = serial_density[ids[i]];
            wrong += !same || std::abs(d - s) > 1e-12 * std::max(1.0, std::abs(s));
            neighbours += row.size();
        }
        std::uint64_t bytes = index.bytes_sent() - bytes_before;
        unsigned long long most = ids.size(), sum_neighbours = neighbours, bytes_all = bytes;
        MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &sum_neighbours, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &bytes_all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        failures += wrong;
        if (rank == 0)
            std::printf("step %d: %zu particles on %d ranks, at most %llu on one (average %.1f), %.1f neighbours each, "
                        "%.1f kB sent per rank; %s\n",
                        step, n, ranks, most, double(n) / ranks, double(sum_neighbours) / double(n),
                        double(bytes_all) / ranks / 1000.0,
                        wrong == 0 ? "lists and densities match serial quoct" : "MISMATCH with serial quoct");
    }
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
