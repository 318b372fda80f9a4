// quoct internals: the one grid and key module. The quantizer (coordinates to grid cells),
// Morton (Z-order) keys in D dimensions, the packing of a key and a position into 64 bits,
// the LSD radix sort of packed items, and the Morton order of a set of points. The tree's
// build, the nearest-search start index, the distributed index's partition and the Morton
// order of points and query batches (detail/parallel, quoct::neighbor_order) all use it; the
// neighbour lists' cell grid (detail/cell_lists.hpp) sorts with its radix sort. Rows of ids
// (neighbour rows, a batch query's rows in Python) are sorted by sort_ids, at the end.
#ifndef QUOCT_DETAIL_MORTON_HPP
#define QUOCT_DETAIL_MORTON_HPP

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "../shapes.hpp"

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

/// How n items sort packed into 64 bits: a position in the low index_bits, a Morton key of
/// axis_bits per axis above it (morton_bits<D>() at most, fewer when n is so large that
/// the positions need the room).
struct key_layout {
    unsigned index_bits;  ///< bits of a position (at least 1)
    unsigned axis_bits;   ///< bits of the key per axis
};

/// The layout for n items; axis_bits is 0 when not even one bit per axis is left (n near
/// 2^64, or D above 63).
template <std::size_t D>
key_layout key_layout_for(std::size_t n) noexcept {
    key_layout l{1, 0};
    while (l.index_bits < 64 && (std::uint64_t{1} << l.index_bits) < n) ++l.index_bits;
    l.axis_bits = std::min(morton_bits<D>(), static_cast<unsigned>((64 - l.index_bits) / D));
    return l;
}

/// Maps coordinates inside `region` to integers in [0, 2^bits) per axis, monotonically (see
/// cell() for points outside it).
template <class T, std::size_t D>
class quantizer {
public:
    quantizer(const box<T, D>& region, unsigned bits)
        : cells_(std::ldexp(T(1), static_cast<int>(bits))), last_((std::uint64_t{1} << bits) - 1) {
        for (std::size_t a = 0; a < D; ++a) {
            // Work on halves only where the extent itself would overflow: halving loses the
            // smallest subnormals, which a full-width extent keeps.
            pre_[a] = std::isfinite(region.hi[a] - region.lo[a]) ? T(1) : T(0.5);
            lo_[a] = region.lo[a] * pre_[a];
            extent_[a] = region.hi[a] * pre_[a] - lo_[a];
            scale_[a] = extent_[a] > 0 ? cells_ / extent_[a] : T(0);
            divide_[a] = !std::isfinite(scale_[a]);  // extents so tiny the scale overflows
        }
    }

    std::uint64_t key(const point<T, D>& p) const {
        std::uint64_t q[D];
        for (std::size_t a = 0; a < D; ++a) q[a] = cell(p[a], a);
        return morton_key<D>(q);
    }

    /// The cell of coordinate v on axis a, in [0, 2^bits).
    std::uint64_t cell(T v, std::size_t a) const {
        const T offset = v * pre_[a] - lo_[a];
        const T t = divide_[a] ? offset / extent_[a] * cells_ : offset * scale_[a];
        // For a point of the region t is in [0, cells]: t == cells maps to the last cell, and
        // t < cells truncates to at most cells - 1 (cells is a power of two, at most 2^32, so
        // the signed conversion, one instruction, is exact). A finite point outside the region
        // (a nearest query) maps to the nearest cell: below, t is clamped to 0 before the
        // conversion, which would be undefined for a large negative t. A NaN (t is NaN) maps
        // to the last cell, as does an infinite coordinate outside an axis of the region that
        // has no finite, non-zero extent (its scale is 0, and inf * 0 is NaN): every index
        // keeps its infinities inside its region, and never queries with them.
        return t < cells_ ? static_cast<std::uint64_t>(static_cast<std::int64_t>(std::max(t, T(0)))) : last_;
    }

private:

    T cells_;
    std::uint64_t last_;
    T pre_[D];
    T lo_[D];
    T extent_[D];
    T scale_[D];
    bool divide_[D];
};

/// Positions 0..n-1 of the points along a Z (Morton) curve on the quantizer's grid over
/// `region` (their bounds, usually), points in one cell in input order: neighbours in the
/// order are mostly neighbours in space. Any coordinate is taken: a finite one outside the
/// region takes the nearest cell on its axis, a NaN the last (see quantizer::cell), and an
/// axis of the region with no finite extent is not split. Where the key would have no bit an axis (key_layout_for),
/// the order is the input order. Throws std::bad_alloc.
template <class T, std::size_t D>
std::vector<std::size_t> morton_order(const point<T, D>* p, std::size_t n, const box<T, D>& region) {
    const key_layout l = key_layout_for<D>(n);
    if (l.axis_bits == 0) {
        std::vector<std::size_t> order(n);
        std::iota(order.begin(), order.end(), std::size_t{0});
        return order;
    }
    const quantizer<T, D> quant(region, l.axis_bits);
    raw_vector<std::uint64_t> items(n), scratch;
    for (std::size_t i = 0; i < n; ++i) items[i] = quant.key(p[i]) << l.index_bits | i;
    radix_sort(items, scratch, l.index_bits, l.axis_bits * static_cast<unsigned>(D));
    const std::uint64_t mask = (std::uint64_t{1} << l.index_bits) - 1;
    std::vector<std::size_t> order(n);
    for (std::size_t k = 0; k < n; ++k) order[k] = static_cast<std::size_t>(items[k] & mask);
    return order;
}

/// Sorts a short run of any values with operator< (a neighbour row, tens of ids; the pairs
/// of one id): insertion sort, std::sort past 48 values.
template <class V>
void sort_small(V* first, V* last) {
    if (last - first > 48) return std::sort(first, last);
    for (V* i = first + (first != last); i < last; ++i) {
        V v = std::move(*i);
        V* j = i;
        for (; j > first && v < *(j - 1); --j) *j = std::move(*(j - 1));
        *j = std::move(v);
    }
}

/// The bits an id below `bound` needs (0 for a bound of 0 or 1), at most 64.
inline unsigned id_bits(std::size_t bound) noexcept {
    unsigned bits = 0;
    while (bits < static_cast<unsigned>(std::numeric_limits<std::size_t>::digits) && (std::size_t{1} << bits) < bound) ++bits;
    return bits;
}

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

#endif  // QUOCT_DETAIL_MORTON_HPP
