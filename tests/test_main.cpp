// The test runner's main() (Catch's own code is compiled once, in catch_runner.cpp).
#include "catch_runner.hpp"

int main(int argc, char** argv) {
    return quoct_test::run_catch(argc, argv);
}
