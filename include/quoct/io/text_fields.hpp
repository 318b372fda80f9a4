// quoct::io: rows of text fields stored flat, as the CSV and location readers keep them.
// Part of the compiled companion library quoct::io (include <quoct/io/csv.hpp>, which
// includes this header).
//
// A text_fields holds rows of the same number of fields (its width) in one character buffer:
// the fields' bytes back to back, with per row its start in the buffer and per field its end
// relative to the row's start. Those numbers are stored in the fewest bytes that hold the
// largest one so far (1, 2, 4 or 8, widened when needed), so a typical CSV record costs its
// characters, one or two bytes per field and four bytes per row, where a std::string per
// field cost 32 bytes per field and a heap block for each one longer than 15 characters.
#ifndef QUOCT_IO_TEXT_FIELDS_HPP
#define QUOCT_IO_TEXT_FIELDS_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <string_view>
#include <vector>

namespace quoct {
namespace io {

namespace detail {

// Unsigned integers stored in 1, 2, 4 or 8 bytes each, all the same width: the narrowest that
// holds every value pushed so far (widened, all values rewritten, when a larger one comes).
class packed_uints {
public:
    std::size_t size() const noexcept { return bytes_.size() / width_; }
    std::size_t width() const noexcept { return width_; }

    std::size_t operator[](std::size_t i) const noexcept {
        const unsigned char* p = bytes_.data() + i * width_;
        switch (width_) {
        case 1: return *p;
        case 2: return load<std::uint16_t>(p);
        case 4: return load<std::uint32_t>(p);
        default: return static_cast<std::size_t>(load<std::uint64_t>(p));
        }
    }

    // Appends `value`, widening first if it does not fit. Strong guarantee.
    void push_back(std::size_t value);

    // Overwrites value i with `value`. Precondition: i < size() and `value` fits the current
    // width (as any value not above one already stored does).
    void set(std::size_t i, std::size_t value) noexcept { store(bytes_.data() + i * width_, value); }

    // Keeps the first n values. Precondition: n <= size().
    void truncate(std::size_t n) noexcept { bytes_.resize(n * width_); }

private:
    template <class U>
    static U load(const unsigned char* p) noexcept {
        U u;
        std::memcpy(&u, p, sizeof u);
        return u;
    }
    void store(unsigned char* p, std::size_t value) const noexcept;

    std::vector<unsigned char> bytes_;
    std::size_t width_ = 1;
};

}  // namespace detail

/// Rows of text fields, every row with the same number of fields (the width), stored flat
/// (see the top of this header). Fields are raw bytes, returned as std::string_view.
///
/// A view returned by field() or a row_view stays valid until the table is changed (push_row,
/// move_column_first, assignment) or destroyed. Const members may be called from several
/// threads at once; changing members may not run alongside any other member.
class text_fields {
public:
    /// One row of a text_fields: row[c] is field c of that row. Valid as field() views are.
    class row_view {
    public:
        /// The number of fields: the table's width.
        std::size_t size() const noexcept { return table_->width(); }
        /// Field `column` of the row. Precondition: column < size(). Never throws.
        std::string_view operator[](std::size_t column) const noexcept { return table_->field(row_, column); }

    private:
        friend class text_fields;
        row_view(const text_fields& table, std::size_t row) noexcept : table_(&table), row_(row) {}
        const text_fields* table_;
        std::size_t row_;
    };

    /// Walks the rows in order (for range-for: `for (auto row : table) use(row[0]);`).
    class const_iterator {
    public:
        /// @name Iterator types
        /// A forward iterator whose value (and reference) is a row_view.
        ///@{
        using iterator_category = std::forward_iterator_tag;  ///< a forward iterator
        using value_type = row_view;  ///< a row_view
        using difference_type = std::ptrdiff_t;  ///< a row distance
        using pointer = void;  ///< none (rows are views)
        using reference = row_view;  ///< a row_view, by value
        ///@}

        /// The row it points at. Precondition: not end().
        row_view operator*() const noexcept { return row_view(*table_, row_); }
        /// The next row.
        const_iterator& operator++() noexcept {
            ++row_;
            return *this;
        }
        /// The next row; returns the iterator as it was.
        const_iterator operator++(int) noexcept {
            const_iterator old = *this;
            ++row_;
            return old;
        }
        /// The same row (of the same table).
        friend bool operator==(const const_iterator& a, const const_iterator& b) noexcept { return a.row_ == b.row_; }
        /// Not a == b.
        friend bool operator!=(const const_iterator& a, const const_iterator& b) noexcept { return a.row_ != b.row_; }

    private:
        friend class text_fields;
        const_iterator(const text_fields& table, std::size_t row) noexcept : table_(&table), row_(row) {}
        const text_fields* table_;
        std::size_t row_;
    };

    /// An empty table of width 0.
    text_fields() noexcept = default;
    /// An empty table whose rows will have `width` fields each.
    explicit text_fields(std::size_t width) noexcept : width_(width) {}

    /// The number of fields in every row.
    std::size_t width() const noexcept { return width_; }
    /// The number of rows.
    std::size_t size() const noexcept { return starts_.size(); }
    /// Whether there are no rows.
    bool empty() const noexcept { return size() == 0; }
    /// The bytes of all fields together.
    std::size_t text_size() const noexcept { return chars_.size(); }

    /// Field `column` of row `row`. Preconditions: row < size(), column < width(). Never throws.
    std::string_view field(std::size_t row, std::size_t column) const noexcept {
        const std::size_t at = row * width_ + column;
        const std::size_t begin = column == 0 ? 0 : ends_[at - 1];
        return std::string_view(chars_.data() + starts_[row] + begin, ends_[at] - begin);
    }
    /// Row `row`, for row[column]. Precondition: row < size(). Never throws.
    row_view operator[](std::size_t row) const noexcept { return row_view(*this, row); }
    /// The first row; valid as field() views are.
    const_iterator begin() const noexcept { return const_iterator(*this, 0); }
    /// Past the last row.
    const_iterator end() const noexcept { return const_iterator(*this, size()); }

    /// Appends a row of the `count` fields at `fields` (copied). Throws std::invalid_argument
    /// when count differs from width(), and std::bad_alloc; the table is unchanged when it throws.
    void push_row(const std::string_view* fields, std::size_t count);
    /// As push_row(fields.begin(), fields.size()): t.push_row({"Paris", "2138551"}).
    void push_row(std::initializer_list<std::string_view> fields) { push_row(fields.begin(), fields.size()); }

    /// Reserves room for `bytes` bytes of field text in all, exactly (a hint: rows may add
    /// more, and the room then grows by doubling). Throws std::length_error or std::bad_alloc,
    /// the table unchanged.
    void reserve_text(std::size_t bytes) { chars_.reserve(bytes); }

    /// Moves field `column` of every row to the front, the others keeping their order.
    /// Precondition: column < width(). Never throws.
    void move_column_first(std::size_t column) noexcept;

    /// Whether two tables have the same width and the same rows, field for field.
    friend bool operator==(const text_fields& a, const text_fields& b) noexcept;
    /// Not a == b.
    friend bool operator!=(const text_fields& a, const text_fields& b) noexcept { return !(a == b); }

private:
    std::vector<char> chars_;     // every field's bytes, row after row (a vector: reserve is exact)
    detail::packed_uints starts_;  // per row: where it starts in chars_
    detail::packed_uints ends_;    // per field: where it ends, counted from its row's start
    std::size_t width_ = 0;
};

}  // namespace io
}  // namespace quoct

#endif  // QUOCT_IO_TEXT_FIELDS_HPP
