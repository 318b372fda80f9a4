// Catch2's implementation (its runner, reporters and matchers), compiled once for every test
// executable: test_main.cpp's main() and the MPI tests' (inside MPI_Init) call run_catch.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "catch_runner.hpp"

int quoct_test::run_catch(int argc, char** argv) {
    return Catch::Session().run(argc, argv);
}
