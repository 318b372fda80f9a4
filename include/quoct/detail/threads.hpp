// quoct internals: the std::thread work splitter behind every threaded call (batch
// queries, pair searches and neighbour lists, parallel_for). Standard library only.
#ifndef QUOCT_DETAIL_THREADS_HPP
#define QUOCT_DETAIL_THREADS_HPP

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace quoct {
namespace detail {

/// The number of threads to use for `threads` (0 means one per hardware thread).
inline unsigned thread_count(unsigned threads) noexcept {
    if (threads != 0) return threads;
    const unsigned h = std::thread::hardware_concurrency();
    return h == 0 ? 1u : h;
}

/// The threaded part of for_each_chunk: calls call(work, chunk) for chunk = 0..chunks-1 on
/// `workers` threads (the calling thread is one of them). Not a template, so the thread
/// pool, its std::thread instantiations and its exception handling are compiled once per
/// program, not once for every caller's work type; the indirect call costs once a chunk.
inline void run_chunks(std::size_t chunks, std::size_t workers, void (*call)(void*, std::size_t), void* work) {
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex error_mutex;
    auto run = [&] {
        for (;;) {
            const std::size_t c = next.fetch_add(1);
            if (c >= chunks || failed.load()) return;
            try {
                call(work, c);
            } catch (...) {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (!error) error = std::current_exception();
                failed = true;
                return;
            }
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    try {
        for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(run);
    } catch (...) {
        failed = true;
        for (auto& t : pool) t.join();
        throw;
    }
    run();
    for (auto& t : pool) t.join();
    if (error) std::rethrow_exception(error);
}

/// Runs work(chunk) for chunk = 0..chunks-1 on up to `threads` std::threads (the calling
/// thread is one of them), handing chunks out in increasing order. The first exception
/// thrown by any call stops the hand-out and is rethrown after every thread has joined.
template <class Work>
void for_each_chunk(std::size_t chunks, unsigned threads, Work&& work) {
    const std::size_t workers = std::min<std::size_t>(thread_count(threads), chunks);
    if (workers <= 1) {
        for (std::size_t c = 0; c < chunks; ++c) work(c);
        return;
    }
    using W = std::remove_reference_t<Work>;
    run_chunks(chunks, workers, [](void* w, std::size_t c) { (*static_cast<W*>(w))(c); },
               const_cast<void*>(static_cast<const void*>(std::addressof(work))));
}

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_THREADS_HPP
