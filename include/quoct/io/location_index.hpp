// quoct::io: a location_table and its geographic index, saved as one quoct index file. Part
// of the compiled companion library quoct::io (link quoct::io, include
// <quoct/io/location_index.hpp>).
//
// What `quoct index` writes and every `quoct` subcommand opens in place of a points file: the
// geographic index (<quoct/geo/index.hpp>) and the whole table it was built from (every kept column,
// the GeoJSON value kinds, feature ids and altitudes, record origins and numbers, the source's
// name and the skipped records), in the file format of <quoct/file.hpp> (docs/file-format.md;
// type "io::location_index<uint32>"), so the usual calls save and read it:
//
//   quoct::io::location_index x(quoct::io::read_locations_file("cities.csv"));
//   quoct::save(x, "cities.quoct");                                       // atomic
//   auto m = quoct::open<quoct::io::location_index>("cities.quoct");      // mapped
//   auto ids = m.index().in_box(2, 48, 3, 49);
//   quoct::io::write_locations(std::cout, m.rows({ids.begin(), ids.end()}), hits...);
//
// The index is a buffer: the table is kept as flat sections (every field's bytes back to back
// and where each ends), owned when built, views of the file when opened, so opening copies and
// parses nothing; rows() makes a location_table of just the records a query picked. Opening
// checks every section's size and that every field lies inside the file (so no read can leave
// it, whatever the bytes); load() and open_options::verify check the checksums too. Reading
// throws quoct::file_error.
#ifndef QUOCT_IO_LOCATION_INDEX_HPP
#define QUOCT_IO_LOCATION_INDEX_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "../detail/section.hpp"
#include "../file.hpp"
#include "../geo/index.hpp"
#include "locations.hpp"

namespace quoct {
namespace io {

class location_index;

}  // namespace io
namespace detail {

/// io::location_index in an index file: the index under "geo.", the table under "table."
/// (docs/file-format.md lists the sections).
template <>
struct file_codec<io::location_index> {
    static constexpr bool mappable = true;
    static std::string type_name();
    static void write(const io::location_index& x, file_writer& w, const std::string& prefix);
    static io::location_index read(const file_reader& r, const std::string& prefix);
};

}  // namespace detail
namespace io {

namespace detail {

/// Strings stored flat: their bytes back to back, and where each ends (32-bit when the bytes
/// allow, else 64-bit), owned or viewed (quoct::detail::section).
class flat_strings {
public:
    /// Stores the `count` strings get(0), ..., get(count - 1) (each a std::string_view or
    /// std::string), copied, in order. Calls get twice per string.
    template <class Get>
    static flat_strings of(std::size_t count, Get&& get) {
        flat_strings f;
        std::size_t bytes = 0;
        for (std::size_t i = 0; i < count; ++i) bytes += get(i).size();
        const bool narrow = bytes <= 0xFFFFFFFFu;
        f.text_.resize(bytes);
        narrow ? f.ends32_.resize(count) : f.ends64_.resize(count);
        std::size_t at = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const auto s = get(i);
            if (!s.empty()) std::memcpy(f.text_.data() + at, s.data(), s.size());
            at += s.size();
            if (narrow) f.ends32_[i] = static_cast<std::uint32_t>(at);
            else f.ends64_[i] = at;
        }
        return f;
    }
    std::size_t size() const noexcept { return ends32_.size() + ends64_.size(); }
    bool empty() const noexcept { return size() == 0; }
    /// String i. Precondition: i < size().
    std::string_view operator[](std::size_t i) const noexcept {
        const std::size_t begin = i == 0 ? 0 : end(i - 1);
        return std::string_view(text_.data() + begin, end(i) - begin);
    }

private:
    std::size_t end(std::size_t i) const noexcept {
        return ends32_.empty() ? static_cast<std::size_t>(ends64_[i]) : std::size_t{ends32_[i]};
    }
    friend struct quoct::detail::file_codec<location_index>;
    quoct::detail::section<char> text_;
    quoct::detail::section<std::uint32_t> ends32_;  // one of the two is empty
    quoct::detail::section<std::uint64_t> ends64_;
};

}  // namespace detail

/// A table of locations and the geographic index over them: id i of index() is record i of
/// the table. Built from a location_table, saved with quoct::save, read back with quoct::load
/// or quoct::open (see the top of this header). Const members may be called from several
/// threads at once.
class location_index {
public:
    /// An empty index of an empty table.
    location_index() = default;
    /// Builds the index over table.locations and keeps every other member of the table with
    /// it (copied). Throws as the geo::index constructor (std::invalid_argument for a location
    /// out of range, which a table from the readers never holds; std::length_error past
    /// 2^32 - 1 locations) and std::invalid_argument when the table's members disagree in size.
    explicit location_index(const location_table& table);

    /// The geographic index; its ids are the table's record numbers, from 0.
    const geo::index<>& index() const noexcept { return index_; }
    /// The number of records (locations).
    std::size_t size() const noexcept { return index_.size(); }
    /// location_table::source of the table indexed.
    const std::string& source() const noexcept { return source_; }
    /// location_table::columns of the table indexed.
    const std::vector<std::string>& columns() const noexcept { return columns_; }
    /// location_table::skipped of the table indexed.
    const std::vector<skipped_row>& skipped() const noexcept { return skipped_; }
    /// Whether the table has feature ids (location_table::feature_ids not empty).
    bool has_feature_ids() const noexcept { return !feature_ids_.empty(); }
    /// Whether the table has altitudes (location_table::altitudes not empty).
    bool has_altitudes() const noexcept { return !altitudes_.empty(); }

    /// The records `ids`, in that order (an id may repeat), as a table whose record j is record
    /// ids[j]: locations, values, kinds, feature ids, altitudes, origins and records; source and
    /// columns as the whole table's; skipped left empty. Its kinds, feature_ids and altitudes
    /// are empty exactly when the whole table's are, so it writes (write_locations) the same
    /// columns. O(ids and their text). Throws std::out_of_range for an id >= size().
    location_table rows(const std::vector<std::size_t>& ids) const;
    /// The whole table, skipped rows included: rows(0, ..., size() - 1) and skipped(). O(n).
    location_table table() const;

private:
    friend struct quoct::detail::file_codec<location_index>;
    geo::index<> index_;
    std::string source_;
    std::vector<std::string> columns_;
    std::vector<skipped_row> skipped_;
    detail::flat_strings values_;  // size() * columns_.size() fields, record by record
    quoct::detail::section<unsigned char> kinds_;  // as values_, or empty
    detail::flat_strings feature_ids_;             // by record, or empty
    quoct::detail::section<double> altitudes_;     // by record, or empty
    quoct::detail::section<std::uint64_t> origins_, records_;
};

/// Whether the `size` bytes at `data` start as a quoct index file does (its magic number).
bool is_index_file(const void* data, std::size_t size) noexcept;

/// Whether `path` is a regular file that starts as a quoct index file does (its magic number,
/// whatever the file's name). False for a file that cannot be read, a directory, a pipe or a
/// device, which are never opened. Reads at most 8 bytes. Never throws.
bool is_index_file(const std::string& path) noexcept;

}  // namespace io
}  // namespace quoct

#endif  // QUOCT_IO_LOCATION_INDEX_HPP
