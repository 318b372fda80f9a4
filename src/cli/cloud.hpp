// quoct's point cloud subcommands: x, y, z points from LAS files and octree index files.
//   quoct index cloud.las -o cloud.quoct --memory 2G     the octree file, within the memory given
//   quoct radius cloud.quoct --x X --y Y --z Z --r R     points within R, by id
//   quoct knn cloud.quoct --x X --y Y --z Z --k K        the K nearest, nearest first
//   quoct box3d cloud.quoct --min X,Y,Z --max X,Y,Z      points in the box, by id
//   quoct neighbours cloud.quoct --k K (or --r R)        every point's neighbourhood, streamed
#ifndef QUOCT_CLI_CLOUD_HPP
#define QUOCT_CLI_CLOUD_HPP

#include <cstddef>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace quoct {
namespace cli {

/// The point cloud subcommands' arguments.
struct cloud_args {
    std::string file;                 // a LAS file or an octree index file
    std::string memory = "1G";        // index: the build's memory limit
    std::string temp_dir;             // index: where its temporary files go
    double x = 0, y = 0, z = 0, r = 0;
    std::size_t k = 0;
    std::vector<double> lo, hi;       // box3d
    std::vector<std::string> fields;  // LAS fields to print (FILE a LAS file)
};

struct cloud_commands {
    CLI::App* radius;
    CLI::App* knn;
    CLI::App* box3d;
    CLI::App* neighbours;
};

/// Declares radius, knn and box3d, and index's --memory and --temp-dir.
cloud_commands add_cloud_commands(CLI::App& app, CLI::App& index, cloud_args& a);

/// True for a PLY or XYZ file, by its extension (.ply, .xyz, either case).
bool is_point_file(const std::string& path);

/// quoct index FILE -o OUT where FILE is a LAS, PLY or XYZ file: the octree index file built
/// within --memory, read a chunk at a time, with progress on a terminal. Ids are uint32 where
/// the points cannot number more than 2^31 - 1 (by a LAS or PLY header's count; for XYZ, by
/// the file's size: a point line takes 6 bytes at least), else uint64. Without -o it is an
/// error (std::invalid_argument) saying so.
int run_cloud_index(const std::string& file, const std::string& output, const cloud_args& a);

/// Runs radius, knn, box3d or neighbours; -1 when `used` is none of them. Prints CSV: id,
/// x, y, z (and distance for knn, then the fields asked for); for neighbours, one row
/// id,neighbour,distance per pair. Throws on bad input, naming it.
int run_cloud_query(const CLI::App* used, const cloud_commands& cmd, const cloud_args& a);

}  // namespace cli
}  // namespace quoct

#endif  // QUOCT_CLI_CLOUD_HPP
