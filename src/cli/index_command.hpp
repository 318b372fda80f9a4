// quoct's index and info subcommands: making a quoct index file of lon/lat points, and
// saying what a file holds.
//   quoct index [FILE] -o FILE.quoct    the points, every column and the index in one file
//   quoct info FILE                     a LAS file's or an index file's header (info.hpp)
// (index of a LAS, PLY or XYZ file builds an octree file instead: cloud.hpp.)
#ifndef QUOCT_CLI_INDEX_COMMAND_HPP
#define QUOCT_CLI_INDEX_COMMAND_HPP

#include <CLI/CLI.hpp>

#include "arguments.hpp"

namespace quoct {
namespace cli {

/// Declares index with -o and FILE's options.
CLI::App* add_index_command(CLI::App& app, common& c, query& q);

/// Declares info with its FILE.
CLI::App* add_info_command(CLI::App& app, query& q);

/// The index subcommand: FILE indexed (or, an index file, opened with every checksum checked
/// as by every subcommand), written to -o when given, and described: one "key: value" a
/// line. Returns the exit code; throws on data errors.
int run_index(const common& c, const query& q);

/// The info subcommand: what q.info_file holds (describe_file). Returns the exit code;
/// throws on data errors.
int run_info(const query& q);

}  // namespace cli
}  // namespace quoct

#endif  // QUOCT_CLI_INDEX_COMMAND_HPP
