// quoct::io: point clouds from XYZ text and PLY files. Part of the compiled companion library
// quoct::io (link quoct::io, include <quoct/io/cloud.hpp>); the core headers do not need it.
//
// XYZ: plain text, one point per line, "x y z" and optionally more numbers, separated by
// spaces, tabs or commas. Blank lines and lines starting with '#' are skipped; every point
// line must hold as many numbers as the first (at least 3). Numbers beyond the third are
// returned as properties "column4", "column5", ...
//
// PLY (Stanford polygon format): "format ascii 1.0" or "format binary_little_endian 1.0".
// The points are the "vertex" element's x, y and z properties (any scalar type); its other
// scalar properties are returned by name, as doubles; its list properties and every other
// element (faces, edges, ...) are read past and ignored. Big-endian PLY is refused.
//
// Errors throw quoct::io::parse_error naming the file and the place: "cloud.xyz:12: ..."
// (a line), "cloud.ply:7: ..." (a header or ASCII data line), "cloud.ply: vertex 1234: ..."
// (a binary vertex). Coordinates and properties must be finite numbers.
//
// read_xyz and read_ply read a whole file; xyz_reader and ply_reader read it in chunks of
// bounded size (the same parse, the same errors), and xyz_points and ply_points give its
// points to quoct::build_file, which indexes a file of any size within a memory limit.
//
// Every function here is reentrant: no global state, so threads may read files at once.
#ifndef QUOCT_IO_CLOUD_HPP
#define QUOCT_IO_CLOUD_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../shapes.hpp"
#include "csv.hpp"

namespace quoct {
namespace io {

/// Points read from a file, flat, with their other per-point values.
struct point_cloud {
    /// Where it came from (a path or display name).
    std::string source;
    /// x, y, z of point i at [3 i, 3 i + 3): build with quoct::octree<double> tree(xyz.data(), size()).
    std::vector<double> xyz;
    /// The names of the other values of each point (PLY vertex properties such as "red" or
    /// "nx"; "column4", ... for XYZ), in file order.
    std::vector<std::string> property_names;
    /// Value p of point i at [i * property_names.size() + p].
    std::vector<double> properties;

    /// Number of points.
    std::size_t size() const noexcept { return xyz.size() / 3; }
    /// The points as quoct::point<double, 3>, in file order. Throws std::bad_alloc only.
    std::vector<point<double, 3>> points() const;
};

/// Reads an XYZ text file (see the top of this header). Throws parse_error naming the file
/// when it cannot be opened or has no point, and with the line for a line whose numbers do
/// not parse, are not finite, are fewer than 3 or differ in count from the first line's.
point_cloud read_xyz(const std::string& path);
/// As read_xyz(path), reading `in` to its end; `source` names it in errors.
point_cloud read_xyz(std::istream& in, const std::string& source);

/// Reads an ASCII or binary little-endian PLY file (see the top of this header). Throws
/// parse_error naming the file when it cannot be opened, with the header line for a bad
/// header (not PLY, big-endian, an unknown type, no vertex element, no x, y or z
/// property), and with the line (ASCII) or the element and its number (binary) for data
/// that is missing, does not parse or is not finite.
point_cloud read_ply(const std::string& path);
/// As read_ply(path), reading `in` to its end; `source` names it in errors.
point_cloud read_ply(std::istream& in, const std::string& source);

/// An XYZ file read in chunks of at most the size the caller gives: memory bounded by the
/// chunk and a buffer of about piece_bytes (grown to the longest line), whatever the file's
/// size. Reads and throws as read_xyz. Move-only.
class xyz_reader {
public:
    /// Opens `path`. Throws parse_error when it cannot be opened.
    explicit xyz_reader(const std::string& path, std::size_t piece_bytes = std::size_t{1} << 20);
    /// Reads `in`, which must outlive the reader; `source` names it in errors.
    xyz_reader(std::istream& in, const std::string& source, std::size_t piece_bytes = std::size_t{1} << 20);
    /// Takes over another reader's file and place in it.
    xyz_reader(xyz_reader&& other) noexcept;
    /// Takes over another reader's file and place in it, closing this one's.
    xyz_reader& operator=(xyz_reader&& other) noexcept;
    /// Closes the file.
    ~xyz_reader();
    /// Replaces `chunk` with the next at most max_points points (max_points 0 means 1) in
    /// file order, with their columns; returns how many, 0 at the end. Throws as read_xyz
    /// (a file of no points when the end is reached).
    std::size_t read(point_cloud& chunk, std::size_t max_points);
    /// Points returned so far.
    std::uint64_t points_read() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// A PLY file read in chunks of at most the size the caller gives: the header read at once,
/// then the vertices, memory bounded by the chunk and a buffer of about piece_bytes (grown to
/// the longest line or list), whatever the file's size. Reads and throws as read_ply. Move-only.
class ply_reader {
public:
    /// Opens `path` and reads its header. Throws parse_error.
    explicit ply_reader(const std::string& path, std::size_t piece_bytes = std::size_t{1} << 20);
    /// Reads `in`, which must outlive the reader; `source` names it in errors. Reads its header.
    ply_reader(std::istream& in, const std::string& source, std::size_t piece_bytes = std::size_t{1} << 20);
    /// Takes over another reader's file and place in it.
    ply_reader(ply_reader&& other) noexcept;
    /// Takes over another reader's file and place in it, closing this one's.
    ply_reader& operator=(ply_reader&& other) noexcept;
    /// Closes the file.
    ~ply_reader();
    /// Replaces `chunk` with the next at most max_points vertices (max_points 0 means 1) in
    /// file order, with their other scalar properties; returns how many, 0 at the end.
    /// Throws as read_ply.
    std::size_t read(point_cloud& chunk, std::size_t max_points);
    /// Points returned so far.
    std::uint64_t points_read() const noexcept;
    /// The vertex count the header gives.
    std::uint64_t point_count() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// A file read in chunks (Reader: xyz_reader, ply_reader, las_reader) as a point stream for
/// quoct::build_file(): read(out, max) gives the next at most max points' x, y, z in file
/// order (0 at the end), rewind() opens the file anew. Throws as the reader.
template <class Reader>
class chunk_points {
public:
    /// Opens `path` as Reader(path) does.
    explicit chunk_points(const std::string& path) : chunk_points(opener{}, [path] { return Reader(path); }) {}
    /// Copies the next at most max points to out; returns how many, 0 at the end.
    std::size_t read(point<double, 3>* out, std::size_t max) {
        if (max == 0) return 0;
        const std::size_t k = reader_.read(chunk_, max);
        for (std::size_t i = 0; i < k; ++i)
            for (std::size_t a = 0; a < 3; ++a) out[i][a] = chunk_.xyz[3 * i + a];
        return k;
    }
    /// Starts again at the first point (the file opened anew).
    void rewind() { reader_ = open_(); }

protected:
    /// Picks the constructor below, for streams built on this one (io::las_points).
    struct opener {};
    /// Reads what open() opens (and opens again on rewind()).
    chunk_points(opener, std::function<Reader()> open) : open_(std::move(open)), reader_(open_()) {}
    /// The reader of the file.
    const Reader& reader() const noexcept { return reader_; }

private:
    std::function<Reader()> open_;
    Reader reader_;
    point_cloud chunk_;
};
/// An XYZ file as a point stream for quoct::build_file().
using xyz_points = chunk_points<xyz_reader>;
/// A PLY file's vertices as a point stream for quoct::build_file().
using ply_points = chunk_points<ply_reader>;

}  // namespace io
}  // namespace quoct

#endif  // QUOCT_IO_CLOUD_HPP
