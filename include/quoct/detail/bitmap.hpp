// quoct internals: a bitmap, one bit per position (the dead entries of a dynamic index's
// parts, saved as they are in its files).
#ifndef QUOCT_DETAIL_BITMAP_HPP
#define QUOCT_DETAIL_BITMAP_HPP

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace quoct {
namespace detail {

/// One bit per position.
class bitmap {
public:
    void assign(std::size_t n) { words_.assign((n + 63) / 64, 0); }
    bool test(std::size_t i) const noexcept { return (words_[i >> 6] >> (i & 63)) & 1u; }
    void set(std::size_t i) noexcept { words_[i >> 6] |= std::uint64_t{1} << (i & 63); }
    std::size_t memory_bytes() const noexcept { return words_.capacity() * sizeof(std::uint64_t); }
    /// The bits, 64 to a word, position i at bit i % 64 of word i / 64 (for quoct/file.hpp).
    const std::vector<std::uint64_t>& words() const noexcept { return words_; }
    void assign_words(std::vector<std::uint64_t> words) noexcept { words_ = std::move(words); }

private:
    std::vector<std::uint64_t> words_;
};

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_BITMAP_HPP
