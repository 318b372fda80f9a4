// Helpers for the tests that run the built `quoct` command (its path comes from CMake as
// QUOCT_CLI): run it through the shell and collect its output and exit code.
#ifndef QUOCT_TEST_CLI_SUPPORT_HPP
#define QUOCT_TEST_CLI_SUPPORT_HPP

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace quoct_test {

struct cli_result {
    int status;       // the exit code, or -1 if it did not exit normally
    std::string out;  // stdout
};

// Runs `env 'program' args 2>err_file` through the shell (stderr dropped when err_file is empty).
inline cli_result run_program(const std::string& program, const std::string& args, const std::string& err_file = "",
                              const std::string& env = "") {
    const std::string cmd = env + " '" + program + "' " + args + " 2>" +
                            (err_file.empty() ? std::string("/dev/null") : "'" + err_file + "'");
    FILE* pipe = ::popen(cmd.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    const int status = ::pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// Runs `env quoct args 2>err_file`: run_program on the quoct command built with the tests.
inline cli_result run_cli(const std::string& args, const std::string& err_file = "", const std::string& env = "") {
    return run_program(QUOCT_CLI, args, err_file, env);
}

inline std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// A path in a directory of this test process's own (under the system's temporary
// directory, removed when the process exits): ctest runs test cases in parallel processes,
// and a shared file name let one case overwrite another's input.
inline std::string temp_path(const std::string& name) {
    struct directory {
        std::filesystem::path path;
        directory() {
            std::random_device rd;
            path = std::filesystem::temp_directory_path() /
                   ("quoct_test_" + std::to_string(rd()) + "_" + std::to_string(rd()));
            std::filesystem::create_directories(path);
        }
        ~directory() {
            std::error_code ignored;
            std::filesystem::remove_all(path, ignored);
        }
    };
    static const directory dir;
    return (dir.path / name).string();
}

}  // namespace quoct_test

#endif  // QUOCT_TEST_CLI_SUPPORT_HPP
