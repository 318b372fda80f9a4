// The runner of the distributed index's tests: Catch2's session inside MPI_Init and
// MPI_Finalize (Catch's own code is compiled once, in ../catch_runner.cpp).
#include "../catch_runner.hpp"

#include <mpi.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int result = quoct_test::run_catch(argc, argv);
    // Any rank's failure fails every rank's exit code, so mpiexec reports it whatever rank.
    MPI_Allreduce(MPI_IN_PLACE, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return result;
}
