// quoct::io internals shared by the readers (not installed).
#ifndef QUOCT_SRC_FILE_TEXT_HPP
#define QUOCT_SRC_FILE_TEXT_HPP

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <functional>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include <quoct/io/csv.hpp>

namespace quoct {
namespace io {
namespace detail {

/// The whole of `in`, allocated once when the stream can tell its size. Throws parse_error
/// naming `source` when the stream fails.
std::string read_all(std::istream& in, const std::string& source);

/// `path` opened for binary reading. Throws parse_error naming it when it cannot be opened
/// or is a directory.
std::ifstream open_file(const std::string& path);

/// The value of `field`, in column `column` of record `line` of `source`, parsed as
/// parse_number does. Throws parse_error naming the source, line and column, as
/// csv_table::number.
double number_at(std::string_view field, const std::string& column, const std::string& source, std::size_t line);

/// Reads CSV text (the format of quoct/io/csv.hpp) from `in` to its end one record at a time,
/// holding a piece of the text at a time: the header into `header`, then, before the first
/// record only, on_header(size_hint) (size_hint: the bytes the stream held, or 0 when it cannot
/// tell), then on_record(fields, line, consumed) for each record, `line` the 1-based line it
/// starts on, `fields` views valid during the call, `consumed` the bytes of the stream read up
/// to the record's end. Throws parse_error as read_csv does.
void scan_csv(std::istream& in, const std::string& source, std::vector<std::string>& header,
              const std::function<void(std::size_t size_hint)>& on_header,
              const std::function<void(const std::vector<std::string_view>& fields, std::size_t line, std::size_t consumed)>& on_record);

/// read_csv(in, source), reading `piece` bytes of the stream at a time where read_csv reads
/// 1 MiB: for tests that a table does not depend on where the pieces end.
csv_table read_csv_in_pieces(std::istream& in, const std::string& source, std::size_t piece);

/// When `v` is full, reserves room for about as many elements as the whole stream will give:
/// its size scaled by total / consumed (bytes of the stream in all / read so far), plus a
/// tenth. One allocation of about the right size, where doubling would briefly hold the old
/// and the new array and leave up to half unused. Does nothing when total is 0 (unknown).
template <class V>
void reserve_ahead(V& v, std::size_t consumed, std::size_t total) {
    if (v.size() < v.capacity() || consumed == 0 || total == 0) return;
    const double expected = static_cast<double>(v.size() + 1) * (static_cast<double>(total) / static_cast<double>(consumed));
    const double limit = static_cast<double>(v.max_size()) / 2;
    v.reserve(std::max(v.size() + 1, static_cast<std::size_t>(std::min(expected * 1.1 + 16, limit))));
}

}  // namespace detail
}  // namespace io
}  // namespace quoct

#endif  // QUOCT_SRC_FILE_TEXT_HPP
