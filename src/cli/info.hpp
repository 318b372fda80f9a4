// quoct info: what a file holds, read from its header alone (a LAS file, a quoct index file).
#ifndef QUOCT_CLI_INFO_HPP
#define QUOCT_CLI_INFO_HPP

#include <iosfwd>
#include <string>

namespace quoct {
namespace cli {

/// What a file is, by its first bytes (a LAS file also by a .laz or .LAZ name, so that
/// LAZ gets LAS's message): a LAS file, a quoct index file, or another. Throws
/// quoct::io::parse_error when it cannot be opened or read.
enum class file_kind { las, index, other };
file_kind kind_of(const std::string& path);

/// Writes what the file at `path` holds: a LAS file's version, point format, point count,
/// bounds, scale and offset, and fields (its header checked against the file as
/// quoct::io::read_las_header does), or a quoct index file's type, format version, size and
/// sections (its header and section table checked, as quoct::read_file_info does). Neither
/// reads the points. Throws quoct::io::parse_error (a LAS file, or a file that is neither)
/// or quoct::file_error (an index file) naming the file and the cause.
void describe_file(std::ostream& out, const std::string& path);

}  // namespace cli
}  // namespace quoct

#endif  // QUOCT_CLI_INFO_HPP
