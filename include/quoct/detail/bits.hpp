// quoct: bit tricks on masks (which children of a node, which points of a leaf).
// Dependency-free.
#ifndef QUOCT_DETAIL_BITS_HPP
#define QUOCT_DETAIL_BITS_HPP

#include <cstdint>

namespace quoct {
namespace detail {

/// The index of the lowest set bit of x, which is not 0.
inline unsigned lowest_bit(std::uint64_t x) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    return static_cast<unsigned>(__builtin_ctzll(x));
#else
    unsigned i = 0;
    for (; (x & 1) == 0; x >>= 1) ++i;
    return i;
#endif
}

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_BITS_HPP
