// The runner of the distributed index's tests: Catch2's session inside MPI_Init and
// MPI_Finalize, in a file of its own so that Catch's runner is compiled apart from the tests.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <mpi.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int result = Catch::Session().run(argc, argv);
    // Any rank's failure fails every rank's exit code, so mpiexec reports it whatever rank.
    MPI_Allreduce(MPI_IN_PLACE, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return result;
}
