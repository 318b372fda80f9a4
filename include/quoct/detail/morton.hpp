// quoct internals: Morton (Z-order) keys in D dimensions and an LSD radix sort for them.
#ifndef QUOCT_DETAIL_MORTON_HPP
#define QUOCT_DETAIL_MORTON_HPP

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace quoct {
namespace detail {

/// Bits per axis in a 64-bit Morton key for dimension D (at most 32, so that a quantised
/// coordinate always fits a double's and a float's exponent range when scaled).
template <std::size_t D>
constexpr unsigned morton_bits() noexcept {
    return 64 / D < 32 ? static_cast<unsigned>(64 / D) : 32u;
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

/// A key and the position of the item it belongs to.
template <class Index>
struct keyed {
    std::uint64_t key;
    Index index;
};

/// Sorts items by key (stable), using `scratch` as the second buffer. Passes over 11-bit
/// digits; a pass whose digit is the same for every item is skipped.
template <class Index>
void radix_sort(std::vector<keyed<Index>>& items, std::vector<keyed<Index>>& scratch) {
    const std::size_t n = items.size();
    if (n < 64) {
        std::stable_sort(items.begin(), items.end(),
                         [](const keyed<Index>& a, const keyed<Index>& b) { return a.key < b.key; });
        return;
    }
    constexpr unsigned digit_bits = 11;
    constexpr std::size_t buckets = std::size_t{1} << digit_bits;
    scratch.resize(n);
    std::vector<std::size_t> count(buckets);
    for (unsigned shift = 0; shift < 64; shift += digit_bits) {
        std::fill(count.begin(), count.end(), 0);
        for (const auto& it : items) ++count[(it.key >> shift) & (buckets - 1)];
        if (count[(items[0].key >> shift) & (buckets - 1)] == n) continue;
        std::size_t sum = 0;
        for (auto& c : count) {
            const std::size_t here = c;
            c = sum;
            sum += here;
        }
        for (const auto& it : items) scratch[count[(it.key >> shift) & (buckets - 1)]++] = it;
        items.swap(scratch);
    }
}

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_MORTON_HPP
