// quoct internals: Morton (Z-order) keys in D dimensions and an LSD radix sort for them.
#ifndef QUOCT_DETAIL_MORTON_HPP
#define QUOCT_DETAIL_MORTON_HPP

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace quoct {
namespace detail {

/// Bits per axis in a Morton key for dimension D. Keys hold about 33 bits in all, so they
/// sort in three radix passes; a node that needs a finer grid than that re-sorts its own
/// points on a grid fitted to them (see orthtree::requantize), so depth is not limited by it.
template <std::size_t D>
constexpr unsigned morton_bits() noexcept {
    return 33 / D >= 32 ? 32u : 33 / D >= 1 ? static_cast<unsigned>(33 / D) : 1u;
}

/// spread_table<D>()[v] places bit j of the byte v at bit j * D.
template <std::size_t D>
const std::array<std::uint64_t, 256>& spread_table() {
    static const std::array<std::uint64_t, 256> table = [] {
        std::array<std::uint64_t, 256> t{};
        for (std::uint64_t v = 0; v < 256; ++v)
            for (unsigned j = 0; j < 8 && j * D < 64; ++j)
                t[v] |= ((v >> j) & 1u) << (j * D);
        return t;
    }();
    return table;
}

/// Interleaves the low morton_bits<D>() bits of q[0..D-1]: bit b of q[a] lands at bit b * D + a,
/// so the top D bits of the key are the first-level child code, a D-bit mask.
template <std::size_t D>
std::uint64_t morton_key(const std::uint64_t (&q)[D]) {
    const auto& table = spread_table<D>();
    std::uint64_t key = 0;
    for (std::size_t a = 0; a < D; ++a) {
        std::uint64_t spread = 0;
        for (unsigned byte = 0; byte * 8 < morton_bits<D>(); ++byte) {
            const std::uint64_t chunk = table[(q[a] >> (8 * byte)) & 0xffu];
            const unsigned shift = byte * 8 * static_cast<unsigned>(D);
            if (shift < 64) spread |= chunk << shift;
        }
        key |= spread << a;
    }
    return key;
}

/// An allocator that leaves trivially constructible elements uninitialised on resize(),
/// for buffers that are written in full right after.
template <class T>
struct default_init_allocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = default_init_allocator<U>;
    };
    default_init_allocator() = default;
    template <class U>
    default_init_allocator(const default_init_allocator<U>&) noexcept {}
    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

/// A vector whose resize() does not zero-fill.
template <class T>
using raw_vector = std::vector<T, default_init_allocator<T>>;

/// Sorts packed items by bits [low, low + bits) (stable), using `scratch` as the second
/// buffer: 11-bit digits, all histograms from one read, and passes whose digit is the same
/// for every item skipped.
inline void radix_sort(raw_vector<std::uint64_t>& items, raw_vector<std::uint64_t>& scratch, unsigned low,
                       unsigned bits) {
    const std::size_t n = items.size();
    constexpr unsigned digit_bits = 11;
    constexpr std::size_t buckets = std::size_t{1} << digit_bits;
    const std::uint64_t key_mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    if (n < 256) {
        std::stable_sort(items.begin(), items.end(), [&](std::uint64_t a, std::uint64_t b) {
            return ((a >> low) & key_mask) < ((b >> low) & key_mask);
        });
        return;
    }
    const unsigned passes = (bits + digit_bits - 1) / digit_bits;
    unsigned shift[64 / digit_bits + 1];
    std::uint64_t mask[64 / digit_bits + 1];
    for (unsigned p = 0; p < passes; ++p) {
        shift[p] = low + p * digit_bits;
        mask[p] = (std::uint64_t{1} << std::min(digit_bits, bits - p * digit_bits)) - 1;
    }
    std::vector<std::size_t> count(buckets * passes);
    // All histograms in one read; the pass count as a constant, so the inner loop unrolls.
    const auto histogram = [&](auto constant_passes) {
        constexpr unsigned P = decltype(constant_passes)::value;
        for (const std::uint64_t it : items)
            for (unsigned p = 0; p < P; ++p) ++count[p * buckets + ((it >> shift[p]) & mask[p])];
    };
    switch (passes) {
        case 0: break;
        case 1: histogram(std::integral_constant<unsigned, 1>{}); break;
        case 2: histogram(std::integral_constant<unsigned, 2>{}); break;
        case 3: histogram(std::integral_constant<unsigned, 3>{}); break;
        case 4: histogram(std::integral_constant<unsigned, 4>{}); break;
        case 5: histogram(std::integral_constant<unsigned, 5>{}); break;
        default: histogram(std::integral_constant<unsigned, 6>{}); break;  // 64 bits / 11
    }
    scratch.resize(n);
    for (unsigned p = 0; p < passes; ++p) {
        std::size_t* c = count.data() + p * buckets;
        const unsigned sh = shift[p];
        const std::uint64_t mk = mask[p];
        if (c[(items[0] >> sh) & mk] == n) continue;
        std::size_t sum = 0;
        for (std::size_t d = 0; d < buckets; ++d) {
            const std::size_t here = c[d];
            c[d] = sum;
            sum += here;
        }
        for (const std::uint64_t it : items) scratch[c[(it >> sh) & mk]++] = it;
        items.swap(scratch);
    }
}

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_MORTON_HPP
