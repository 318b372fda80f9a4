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
// Every function here is reentrant: no global state, so threads may read files at once.
#ifndef QUOCT_IO_CLOUD_HPP
#define QUOCT_IO_CLOUD_HPP

#include <cstddef>
#include <iosfwd>
#include <string>
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

}  // namespace io
}  // namespace quoct

#endif  // QUOCT_IO_CLOUD_HPP
