// quoct::io internals shared by the readers (not installed).
#ifndef QUOCT_SRC_FILE_TEXT_HPP
#define QUOCT_SRC_FILE_TEXT_HPP

#include <cstddef>
#include <fstream>
#include <functional>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace quoct {
namespace io {
namespace detail {

/// The whole of `in`, allocated once when the stream can tell its size. Throws parse_error
/// naming `source` when the stream fails.
std::string read_all(std::istream& in, const std::string& source);

/// `path` opened for binary reading. Throws parse_error naming it when it cannot be opened
/// or is a directory.
std::ifstream open_file(const std::string& path);

/// Reads CSV text (the format of quoct/io/csv.hpp) one record at a time: the header into
/// `header`, then on_record(fields, line) for each record, `line` the 1-based line it starts
/// on; on_record may take the fields' contents. Throws parse_error as read_csv does.
void scan_csv(std::string_view text, const std::string& source, std::vector<std::string>& header,
              const std::function<void(std::vector<std::string>& fields, std::size_t line)>& on_record);

}  // namespace detail
}  // namespace io
}  // namespace quoct

#endif  // QUOCT_SRC_FILE_TEXT_HPP
