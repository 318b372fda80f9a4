// quoct: the compressed-row table (CSR) that batch queries (quoct/parallel.hpp), pair
// searches and neighbour lists (quoct/pairs.hpp) and the distributed index return.
// Dependency-free.
#ifndef QUOCT_CSR_HPP
#define QUOCT_CSR_HPP

#include <cstddef>
#include <vector>

namespace quoct {

/// One row of a csr table: a contiguous run of values.
template <class V>
struct csr_row {
    const V* first = nullptr;  ///< the row's first value
    const V* last = nullptr;   ///< one past its last value
    /// The first value.
    const V* begin() const noexcept { return first; }
    /// Past the last value.
    const V* end() const noexcept { return last; }
    /// Number of values in the row.
    std::size_t size() const noexcept { return static_cast<std::size_t>(last - first); }
    /// True when the row has no values.
    bool empty() const noexcept { return first == last; }
    /// Value i of the row (unchecked).
    const V& operator[](std::size_t i) const noexcept { return first[i]; }
};

/// Rows of values in compressed-row form, as SPH and MD codes consume neighbour lists:
/// row i is values[offsets[i], offsets[i + 1]). offsets has rows() + 1 entries and
/// starts at 0.
template <class V>
struct csr {
    std::vector<std::size_t> offsets{0};  ///< row i is values[offsets[i], offsets[i + 1])
    std::vector<V> values;                ///< every row's values, row after row

    /// Number of rows.
    std::size_t rows() const noexcept { return offsets.size() - 1; }
    /// Row i (i < rows(), unchecked).
    csr_row<V> row(std::size_t i) const noexcept {
        return {values.data() + offsets[i], values.data() + offsets[i + 1]};
    }
};

}  // namespace quoct

#endif  // QUOCT_CSR_HPP
