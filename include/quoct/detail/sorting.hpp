// quoct internals: sorting. radix_sort orders whole point sets by packed 64-bit items (a key
// above a position: detail/morton.hpp's keys, the neighbour lists' cell keys); sort_small
// and sort_ids order short rows of ids (a neighbour row, a batch query's row), and
// insertion_sort the nearly sorted ones. Dependency-free.
#ifndef QUOCT_DETAIL_SORTING_HPP
#define QUOCT_DETAIL_SORTING_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "buffers.hpp"

namespace quoct {
namespace detail {

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

/// Sorts [first, last) by insertion with operator<: linear on a run that is sorted but for
/// a few values, quadratic otherwise (sort_small bounds it).
template <class V>
void insertion_sort(V* first, V* last) {
    for (V* i = first + (first != last); i < last; ++i) {
        V v = std::move(*i);
        V* j = i;
        for (; j > first && v < *(j - 1); --j) *j = std::move(*(j - 1));
        *j = std::move(v);
    }
}

/// Sorts a short run of any values with operator< (a neighbour row, tens of ids; the pairs
/// of one id): insertion sort, std::sort past 48 values.
template <class V>
void sort_small(V* first, V* last) {
    if (last - first > 48) return std::sort(first, last);
    insertion_sort(first, last);
}

/// The bits a value needs (0 for 0), at most 64.
inline unsigned bit_width(std::uint64_t v) noexcept {
    unsigned bits = 0;
    while (bits < 64 && (v >> bits) != 0) ++bits;
    return bits;
}

/// The bits an id below `bound` needs (0 for a bound of 0 or 1), at most 64.
inline unsigned id_bits(std::size_t bound) noexcept { return bound < 2 ? 0 : bit_width(bound - 1); }

/// The bits of a position below n in a packed sort item (a key above it): id_bits(n), at
/// least 1.
inline unsigned position_bits(std::size_t n) noexcept { return std::max(1u, id_bits(n)); }

/// Sorts a row of unsigned ids [first, last), every one below 2^bits, in increasing order:
/// sort_small up to 64 ids; longer rows (a batch query's, a dense neighbour row) by a
/// least-significant-digit radix sort of at most 8 bits a digit, a few passes over a row
/// that stays in L1 and no comparison to mispredict, using `scratch`. The short-row
/// counterpart of radix_sort, which sorts whole point sets by wide keys.
template <class Id>
void sort_ids(Id* first, Id* last, unsigned bits, std::vector<Id>& scratch) {
    static_assert(std::is_unsigned<Id>::value, "quoct: sort_ids sorts unsigned ids");
    const std::size_t n = static_cast<std::size_t>(last - first);
    bits = std::min<unsigned>(bits, std::numeric_limits<Id>::digits);
    if (n <= 64 || bits == 0) return sort_small(first, last);
    const unsigned passes = (bits + 7) / 8;
    const unsigned width = (bits + passes - 1) / passes;
    const std::size_t buckets = std::size_t{1} << width;
    const Id mask = static_cast<Id>(buckets - 1);
    scratch.resize(n);
    Id* from = first;
    Id* to = scratch.data();
    std::size_t count[256];
    for (unsigned p = 0, shift = 0; p < passes; ++p, shift += width) {
        std::fill(count, count + buckets, std::size_t{0});
        for (std::size_t i = 0; i < n; ++i) ++count[(from[i] >> shift) & mask];
        std::size_t sum = 0;
        for (std::size_t d = 0; d < buckets; ++d) {
            const std::size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (std::size_t i = 0; i < n; ++i) to[count[(from[i] >> shift) & mask]++] = from[i];
        std::swap(from, to);
    }
    if (from != first) std::copy(from, from + n, first);
}

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_SORTING_HPP
