// quoct internals: the one grid and key module. The quantizer (coordinates to grid cells),
// Morton (Z-order) keys in D dimensions, the packing of a key and a position into 64 bits,
// and the Morton order of a set of points. The tree's build, the nearest-search start index,
// the distributed index's partition and the Morton order of points and query batches
// (detail/parallel, quoct::neighbor_order) all use it; the packed items sort with
// detail/sorting.hpp's radix sort.
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
#include "buffers.hpp"
#include "sorting.hpp"

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
    key_layout l{position_bits(n), 0};
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

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_MORTON_HPP
