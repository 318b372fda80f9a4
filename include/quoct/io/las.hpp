// quoct::io: LiDAR point clouds from LAS files (the ASPRS LAS format, versions 1.0 to 1.4,
// point data record formats 0 to 10, uncompressed). Part of the compiled companion library
// quoct::io (link quoct::io, include <quoct/io/las.hpp>); the core headers do not need it.
//
//   quoct::io::point_cloud c = quoct::io::read_las("tile.las");      // every point at once
//   quoct::octree<double> tree(c.xyz.data(), c.size());
//
//   quoct::io::las_reader in("tile.las", {{"classification", "gps_time"}});
//   quoct::io::point_cloud chunk;
//   while (in.read(chunk, 1 << 20) != 0) { ... }                     // a million at a time
//
// Coordinates. A record stores integers X, Y, Z; the point is X * scale_x + offset_x (and Y,
// Z), computed in double exactly as the LAS specification writes it: the product rounded,
// then the sum rounded (never a fused multiply-add), so every reader that follows the
// specification gets the same bits.
//
// Fields. Besides x, y and z, a point's other values are returned on request
// (las_options::fields), as doubles, in the order asked for. Their names, for the formats
// that hold them (las_header::fields lists a file's):
//   every format   intensity, return_number, number_of_returns, scan_direction_flag,
//                  edge_of_flight_line, classification, synthetic, key_point, withheld
//                  (not in LAS 1.0, whose classification is the whole byte),
//                  scan_angle (degrees: formats 0-5 store whole degrees, 6-10 steps of
//                  0.006 degrees), user_data, point_source_id
//   6 to 10        overlap, scanner_channel
//   1, 3-10        gps_time
//   2, 3, 5, 7, 8, 10   red, green, blue
//   8, 10          nir
// and the extra bytes the file's first Extra Bytes record describes, by their names
// (scalar types, with the record's scale and offset applied where it sets them; the two-
// and three-value types, deprecated since LAS 1.4 R14, as name[0], name[1], name[2]). A
// value of an 8-byte integer extra field above 2^53 is rounded to the nearest double. An
// Extra Bytes record the reader cannot use is set aside, not the file (las_header::notes).
//
// What is checked, before any point is returned: the signature and version; the header's
// size, the point data offset and the variable length records lie inside the file and
// before the points; the record length holds the point format (extra bytes after it are
// kept per record); scale factors are finite and not 0, offsets finite; the point count
// (the 64-bit count of LAS 1.4, which the legacy 32-bit count, where not 0, must equal;
// the legacy count where the 64-bit one is 0) times the record length fits the file; the
// extended variable length records (LAS 1.4) or the waveform data record (1.3) start at
// or after the last record; and every byte after the last record belongs to them, from
// the records' end to the file's. So a count too small or too large is an error, never
// points dropped or read from elsewhere. Then, when bounds are checked
// (las_options::check_bounds) and the file has points, the header's bounds must be finite
// with min <= max, and as points are read every point must lie within them give or take
// one scale step; and every coordinate must be finite.
//
// Compressed files (LAZ) are refused with a message saying how to decompress them:
// quoct does not include LASzip. A file is compressed when its name ends in .laz, when the
// point format byte has a compression bit (0x80 or 0x40) set, or when it holds LASzip's
// variable length record.
//
// Errors throw quoct::io::parse_error naming the file and the cause ("tile.las: truncated:
// ..."; for a point, "tile.las: point 1234: ..."). Every function here is reentrant.
#ifndef QUOCT_IO_LAS_HPP
#define QUOCT_IO_LAS_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cloud.hpp"

namespace quoct {
namespace io {

/// What a LAS file's header says, as checked against the file (see the top of this header).
struct las_header {
    std::string source;               ///< the path or name it was read from
    unsigned version_major = 0;       ///< 1
    unsigned version_minor = 0;       ///< 0 to 4
    unsigned point_format = 0;        ///< the point data record format, 0 to 10
    std::size_t record_length = 0;    ///< bytes of one point record (the format's and any extra bytes)
    std::uint64_t point_count = 0;    ///< number of point records
    std::uint64_t point_offset = 0;   ///< where the first record starts, from the start of the file
    std::array<double, 3> scale{};    ///< scale factors of x, y, z
    std::array<double, 3> offset{};   ///< offsets of x, y, z
    std::array<double, 3> min{};      ///< the header's lower bounds of x, y, z
    std::array<double, 3> max{};      ///< the header's upper bounds of x, y, z
    std::string system_identifier;    ///< who made the data, as the header says
    std::string generating_software;  ///< what wrote the file
    std::vector<std::string> fields;  ///< the field names this file can give (las_options::fields)
    /// What the reader set aside and why, one sentence each: an Extra Bytes record it cannot
    /// use (not a whole number of descriptors, an unknown data type, more bytes than the
    /// records have) makes that record invalid, as the specification says, not the file; its
    /// fields are then not offered.
    std::vector<std::string> notes;
};

/// How a LAS file is read.
struct las_options {
    /// The fields to return besides x, y, z, in this order (as point_cloud::property_names).
    /// A name the file's point format does not hold is an error naming the ones it does.
    std::vector<std::string> fields;
    /// Refuse a point outside the header's bounds (by more than one scale step): a header
    /// that disagrees with its points is a damaged file. Off: the points are read as they
    /// are; the header's bounds are not used for anything else.
    bool check_bounds = true;
};

/// Reads and checks a LAS file's header, its variable length records and its size, not its
/// points: quick on a file of any size. The header's bounds are not checked (they are
/// checked against the points, which this does not read). Throws parse_error as las_reader
/// does.
las_header read_las_header(const std::string& path);

/// Reads every point of a LAS file, with the fields `options` asks for. Throws parse_error
/// naming the file (and the point, for a point outside the bounds) for anything the top of
/// this header lists, and when the file cannot be opened or read.
point_cloud read_las(const std::string& path, const las_options& options = {});

/// A LAS file read in chunks of at most the size the caller gives: memory bounded by the
/// chunk, whatever the file's size. Move-only.
class las_reader {
public:
    /// Opens `path` and checks its header (see read_las_header). Throws parse_error.
    explicit las_reader(const std::string& path, las_options options = {});
    /// Reads LAS bytes in memory (a buffer, a mapping), which must stay alive and unchanged
    /// while the reader lives; `source` names them in errors. Throws parse_error.
    las_reader(const void* data, std::size_t size, const std::string& source, las_options options = {});
    /// Takes over another reader's file and place in it; `other` may only be destroyed or
    /// assigned to.
    las_reader(las_reader&& other) noexcept;
    /// Takes over another reader's file and place in it, closing this one's.
    las_reader& operator=(las_reader&& other) noexcept;
    /// Closes the file.
    ~las_reader();

    /// The file's header.
    const las_header& header() const noexcept;
    /// Replaces `chunk` with the next at most max_points points (max_points 0 means 1) in
    /// file order, with the fields asked for; returns how many, 0 at the end. chunk.source is
    /// the file. Throws parse_error for a point outside the bounds or with a coordinate that
    /// is not finite, or when the file cannot be read (the reader is then at the end).
    std::size_t read(point_cloud& chunk, std::size_t max_points);
    /// Points returned so far: the next point's index in the file.
    std::uint64_t points_read() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// A LAS file's x, y, z as a point stream for quoct::build_file(): read(out, max) gives the
/// next at most max points in file order (0 at the end), rewind() starts again. Memory is
/// bounded by max. Throws parse_error as las_reader does (check_bounds as `options` says;
/// its fields are not read).
class las_points : public chunk_points<las_reader> {
public:
    /// Opens `path` and checks its header as las_reader does. Throws parse_error.
    explicit las_points(const std::string& path, las_options options = {})
        : chunk_points(opener{}, [path, o = xyz_only(std::move(options))] { return las_reader(path, o); }) {}
    /// The file's header.
    const las_header& header() const noexcept { return reader().header(); }

private:
    static las_options xyz_only(las_options o) {
        o.fields.clear();
        return o;
    }
};

}  // namespace io
}  // namespace quoct

#endif  // QUOCT_IO_LAS_HPP
