// The --smoke flag of the benchmark programs: a small run that checks they build and run
// (ctest's *_smoke tests). QUOCT_BENCH_SMOKE=1 in the environment means the same.
#ifndef QUOCT_BENCH_SMOKE_HPP
#define QUOCT_BENCH_SMOKE_HPP

#include <cstdlib>
#include <cstring>

namespace quoct_bench {

/// True when QUOCT_BENCH_SMOKE is set and not "0".
inline bool smoke() {
    const char* s = std::getenv("QUOCT_BENCH_SMOKE");
    return s && *s && std::strcmp(s, "0") != 0;
}

/// Takes --smoke out of argv (before benchmark::Initialize sees it) and sets
/// QUOCT_BENCH_SMOKE=1, so that smoke() says so.
inline void take_smoke_flag(int& argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--smoke") == 0) {
            setenv("QUOCT_BENCH_SMOKE", "1", 1);
            for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
            --argc;
            return;
        }
}

}  // namespace quoct_bench

#endif  // QUOCT_BENCH_SMOKE_HPP
