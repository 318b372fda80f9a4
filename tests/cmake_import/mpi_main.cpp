// A consumer of an installed quoct's optional component: find_package(quoct COMPONENTS
// mpi) and quoct::mpi. Runs as a one-rank MPI program (no mpiexec needed): a ball query
// and a pair count on a distributed quadtree, against brute force. Exits nonzero on a mismatch.
#include <mpi.h>
#include <quoct/mpi.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    std::vector<quoct::point<double, 2>> points;
    for (int i = 0; i < 400; ++i) points.push_back({{double(i % 20), double(i / 20)}});
    int failures = 0;
    {
        const quoct::mpi::distributed_quadtree<double> index(MPI_COMM_WORLD, points);
        const quoct::ball<double, 2> ball{{{7, 7}}, 3};
        const quoct::csr<std::uint64_t> rows = index.query(std::vector<quoct::ball<double, 2>>{ball});
        std::vector<std::uint64_t> expect;
        for (std::size_t i = 0; i < points.size(); ++i)
            if (quoct::contains(ball, points[i])) expect.push_back(i);
        failures += std::vector<std::uint64_t>(rows.row(0).begin(), rows.row(0).end()) != expect;
        std::size_t pairs = 0;
        index.for_each_pair_within(1.0, [&](std::uint64_t, std::uint64_t) { ++pairs; });
        failures += pairs != 2 * 19 * 20;  // grid neighbours at distance 1
    }
    MPI_Finalize();
    if (failures != 0) return 1;
    std::printf("quoct::mpi consumer: all checks passed\n");
    return 0;
}
