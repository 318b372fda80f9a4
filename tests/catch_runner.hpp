// Catch2's runner, compiled once (catch_runner.cpp) for every test executable's main().
#pragma once

namespace quoct_test {

/// Runs the Catch test cases linked into this executable over the command line (the same as
/// Catch's own main()); returns the process's exit code.
int run_catch(int argc, char** argv);

}  // namespace quoct_test
