// quoct: checking a viewed section block by block, as queries first reach it.
// Dependency-free.
//
// An index file opened without reading it whole (quoct/file.hpp, open()) hands its sections
// out as views of the mapping, unread. Each section of the file is cut into blocks of
// block_bytes bytes, and the file holds a checksum of each block. A block_guard is one
// section's blocks: reach(from, to) makes sure every block that bytes [from, to) of the
// section touch has been read once and matched its checksum (and passed the index's own
// check of its values, when it has one), and otherwise throws, through the fail function
// the file layer gives, naming the file and the section. The blocks already checked are
// bits of a shared map, set once, so a block is read for checking at most once per opening
// (two threads reaching it at once may both check it; either sets the bit).
#ifndef QUOCT_DETAIL_BLOCK_CHECK_HPP
#define QUOCT_DETAIL_BLOCK_CHECK_HPP

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

// Keeps a function out of its callers, and its own inlining small: the searches' checked
// forms, so that the unchecked ones they sit beside are compiled as they would be alone
// (g++ otherwise inlines less into those, by its limits on the growth of the whole unit).
#ifndef QUOCT_CHECKED_PATH
#if defined(__GNUC__) || defined(__clang__)
#define QUOCT_CHECKED_PATH __attribute__((noinline, cold))
#elif defined(_MSC_VER)
#define QUOCT_CHECKED_PATH __declspec(noinline)
#else
#define QUOCT_CHECKED_PATH
#endif
#endif
// The checked forms' small checks, inlined into them although they are compiled for size.
#ifndef QUOCT_CHECK_INLINE
#if defined(__GNUC__) || defined(__clang__)
#define QUOCT_CHECK_INLINE inline __attribute__((always_inline))
#else
#define QUOCT_CHECK_INLINE inline
#endif
#endif

namespace quoct {
namespace detail {

class block_guard {
public:
    /// Bytes per block: every section of an index file is cut into blocks of this size (the
    /// last one shorter), each with a checksum of its own.
    static constexpr std::size_t block_bytes = std::size_t{1} << 16;
    static constexpr unsigned block_shift = 16;

    /// Computes a block's checksum.
    using sum_function = std::uint64_t (*)(const unsigned char*, std::size_t);
    /// The index's own check of a block's values (bytes [from, to) of the section, at p + from,
    /// whole values): returns an empty string, or the fault found.
    using value_check = std::function<std::string(const unsigned char* p, std::size_t from, std::size_t to)>;
    /// Throws (the file's error, naming the file) with the cause given.
    using fail_function = std::function<void(const std::string&)>;

    block_guard() = default;
    /// The section of `bytes` bytes at `data`, whose blocks' checksums are at `sums` (all
    /// three alive as long as the guard: the caller keeps them). `name` is used in messages.
    block_guard(std::string name, const unsigned char* data, std::size_t bytes, const std::uint64_t* sums,
                sum_function sum, fail_function fail, value_check check = nullptr)
        : name_(std::move(name)),
          data_(data),
          bytes_(bytes),
          sums_(sums),
          sum_(sum),
          fail_(std::move(fail)),
          check_(std::move(check)),
          words_((blocks() + 63) / 64),
          done_(new std::atomic<std::uint64_t>[words_]) {
        for (std::size_t i = 0; i < words_; ++i) done_[i].store(0, std::memory_order_relaxed);
    }
    block_guard(const block_guard&) = delete;
    block_guard& operator=(const block_guard&) = delete;

    /// Makes sure the blocks that bytes [from, to) touch are checked. Throws through the
    /// fail function, leaving them unchecked, if one's checksum or values are wrong.
    QUOCT_CHECK_INLINE void reach(std::size_t from, std::size_t to) const {
        const std::size_t first = from >> block_shift;
        if (from < to && ((to - 1) >> block_shift) == first && done(first)) return;  // the usual case
        reach_blocks(from, to);
    }
    /// Throws through the fail function (for faults the index finds in checked data).
    [[noreturn]] void fail(const std::string& cause) const {
        fail_(cause);
        throw std::runtime_error(cause);  // (fail_ throws: not reached)
    }
    /// Checks every block not yet checked.
    void reach_all() const { reach(0, bytes_); }
    /// The number of blocks.
    std::size_t blocks() const noexcept { return (bytes_ + block_bytes - 1) >> block_shift; }

    /// Which block of a section of `bytes` bytes is bytes [from, to), for a message: nothing
    /// when the section is one block.
    static std::string which(std::uint64_t from, std::uint64_t to, std::uint64_t bytes) {
        if (bytes <= block_bytes) return std::string();
        return " (bytes " + std::to_string(from) + " to " + std::to_string(to) + ")";
    }

private:
    QUOCT_CHECK_INLINE bool done(std::size_t b) const noexcept { return (done_[b >> 6].load(std::memory_order_relaxed) >> (b & 63) & 1u) != 0; }
    void reach_blocks(std::size_t from, std::size_t to) const {
        if (from >= to) return;
        const std::size_t last = (to - 1) >> block_shift;
        for (std::size_t b = from >> block_shift; b <= last; ++b)
            if (!done(b)) check_block(b);
    }
    void check_block(std::size_t b) const {
        const std::size_t from = b << block_shift;
        const std::size_t to = from + block_bytes < bytes_ ? from + block_bytes : bytes_;
        if (sum_(data_ + from, to - from) != sums_[b])
            fail_("damaged: checksum mismatch in section '" + name_ + "'" + which(from, to, bytes_));
        if (check_) {
            const std::string fault = check_(data_, from, to);
            if (!fault.empty()) fail_("damaged: " + fault);
        }
        done_[b >> 6].fetch_or(std::uint64_t{1} << (b & 63), std::memory_order_relaxed);
    }

    std::string name_;
    const unsigned char* data_ = nullptr;
    std::size_t bytes_ = 0;
    const std::uint64_t* sums_ = nullptr;
    sum_function sum_ = nullptr;
    fail_function fail_;
    value_check check_;
    std::size_t words_ = 0;
    std::unique_ptr<std::atomic<std::uint64_t>[]> done_;
};

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_BLOCK_CHECK_HPP
