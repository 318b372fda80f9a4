// A plain interface to TreeNSearch for bench_nsearch. TreeNSearch's header needs AVX2 (it
// defines __AVX2__ itself and holds __m256i members), so it is included only by
// nsearch_treensearch.cpp, which is compiled with -mavx2 -mfma like TreeNSearch's own
// sources; this header and bench_nsearch.cpp stay portable x86-64.
#ifndef QUOCT_BENCH_NSEARCH_TREENSEARCH_HPP
#define QUOCT_BENCH_NSEARCH_TREENSEARCH_HPP

#include <memory>

namespace nsearch_peer {

/// Whether this CPU runs the AVX2 and FMA code TreeNSearch is compiled to.
bool treensearch_supported();

/// One TreeNSearch point set searching itself with a fixed radius.
class treensearch {
public:
    /// Sets TreeNSearch up on the n points xyz[0..3n) (kept by pointer, not copied), with
    /// search radius r on `threads` threads, and runs the first search.
    treensearch(const float* xyz, int n, float r, int threads);
    ~treensearch();
    treensearch(const treensearch&) = delete;
    treensearch& operator=(const treensearch&) = delete;

    /// Searches again after the points moved in place.
    void run();

    /// The neighbours of point i: count(i) ids from row(i), unordered, i itself not among them.
    int count(int i) const;
    const int* row(int i) const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace nsearch_peer

#endif
