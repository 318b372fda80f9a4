// quoct tests: counting the bytes the test program allocates, for bounds on a call's memory
// and work that do not depend on the machine's load (no timing, no resident-set sizes). The
// global operator new and delete that count are the ones test_alloc_failure.cpp replaces.
#ifndef QUOCT_TESTS_TEST_ALLOC_COUNT_HPP
#define QUOCT_TESTS_TEST_ALLOC_COUNT_HPP

#include <cstddef>

namespace alloc_count {

/// Starts counting the bytes allocated through operator new from now on (blocks allocated
/// before and freed meanwhile do not count).
void start() noexcept;

/// Stops counting and returns the most bytes live at once since start(): the peak of what
/// was allocated minus what was freed. Not for calls that run on other threads meanwhile.
std::size_t stop() noexcept;

/// Everything allocated through operator new between the last start() and stop(), freed or
/// not: the blocks and their bytes. A measure of work: a call whose count grows faster than
/// its input copies or rebuilds more than its input. Not for calls that run on other threads.
struct totals {
    std::size_t blocks;
    std::size_t bytes;
};
totals allocated() noexcept;

}  // namespace alloc_count

#endif  // QUOCT_TESTS_TEST_ALLOC_COUNT_HPP
