// quoct: building an index file from points that need not fit in memory. POSIX.
//
//   quoct::array_points<double, 3> in(xyz, n);               // or io::las_points("cloud.las")
//   quoct::build_file_options o;
//   o.memory_limit = std::size_t{1} << 30;                  // 1 GiB
//   quoct::build_file<quoct::octree<double>>(in, "cloud.quoct", o);
//   auto tree = quoct::open<quoct::octree<double>>("cloud.quoct");
//
// The file is the one quoct::save() writes for a tree built in memory from the same points
// with the same build options, byte for byte: the same answers, the same format. The points
// are read twice (their bounds, then their keys); between the two readings the source must
// give the same points.
//
// The build keeps to the memory limit by sorting the points in runs that fit it, merging
// the runs from temporary files, and building the tree part by part, each part small enough
// to build in memory; the top of the tree, over parts, is built from the sorted file.
// docs/build-file.md gives the disk space it needs and its speed.
#ifndef QUOCT_BUILD_FILE_HPP
#define QUOCT_BUILD_FILE_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "build_options.hpp"
#include "file.hpp"
#include "point_traits.hpp"

#ifndef QUOCT_FILE_POSIX
#error "quoct/build_file.hpp needs POSIX (pread, pwrite, mkstemp)"
#endif

namespace quoct {

/// How far a build_file() has come, as told to build_file_options::progress.
struct build_progress {
    /// "reading" (the bounds), "sorting" (runs), "merging", "building" (the tree) or "checking" (checksums).
    const char* stage;
    /// Points done in this stage (for "merging": runs merged; for "checking": sections).
    std::uint64_t done;
    /// Of how many (0 while "reading": the count is not known yet).
    std::uint64_t total;
};

/// How build_file() builds.
struct build_file_options {
    /// The tree's options, as for a build in memory.
    build_options tree;
    /// The most memory the build may use for its data, in bytes (at least 256 KiB is used). The
    /// process also holds its code, the source's buffers and what the system counts of the
    /// files it maps: measured figures are in docs/build-file.md.
    std::size_t memory_limit = std::size_t{1} << 30;
    /// Where temporary files go; empty: the directory of the target. They are unlinked as
    /// soon as they are made, so they go with the process whatever happens (the target's
    /// new file, TARGET.tmp-..., is removed on an error, but not if the process is killed).
    std::string temp_dir;
    /// Told, now and then, how far the build has come (from the calling thread).
    std::function<void(const build_progress&)> progress;
};

/// Points of D coordinates of T, row-major, in memory (an array, a numpy memmap): point i
/// is [D i, D i + D). A point stream for build_file(): read(out, max) copies up to max
/// points and returns how many (0 at the end); rewind() starts again.
template <class T, std::size_t D>
class array_points {
public:
    /// The n points at `coords` (D n values), which must outlive the stream.
    array_points(const T* coords, std::size_t n) noexcept : coords_(coords), n_(n) {}
    /// Copies the next at most max points to out; returns how many, 0 at the end.
    std::size_t read(point<T, D>* out, std::size_t max) noexcept {
        const std::size_t k = std::min(max, n_ - next_);
        for (std::size_t i = 0; i < k; ++i)
            for (std::size_t a = 0; a < D; ++a) out[i][a] = coords_[(next_ + i) * D + a];
        next_ += k;
        return k;
    }
    /// Starts again at the first point.
    void rewind() noexcept { next_ = 0; }

private:
    const T* coords_;
    std::size_t n_;
    std::size_t next_ = 0;
};

}  // namespace quoct

#include "detail/orthtree_build_file.hpp"

namespace quoct {

/// Builds the index file `path` from a point stream (array_points, io::las_points, or any
/// type with read(point<T, D>*, max) and rewind() as array_points has) within
/// options.memory_limit: the file save() writes for an Index (orthtree<T, D, Id>) built in
/// memory from the points, byte for byte; ids are the points' positions in the stream. Id
/// must number every point (std::uint64_t beyond 2^31 points). Atomic as save(): the file
/// is written beside `path` and renamed over it when whole, so an error midway leaves
/// whatever was at `path` as it was. Throws std::invalid_argument (a NaN or infinite
/// coordinate, naming the point; options out of range), std::length_error (more points than
/// Id numbers), file_error naming `path` (the source gave other points on its second
/// reading; a temporary file or the target cannot be written, as on a full disk), and
/// whatever the stream throws.
template <class Index, class Stream>
void build_file(Stream& points, const std::string& path, const build_file_options& options = {}) {
    detail::orthtree_file_builder<Index>(options).build(points, path);
}

}  // namespace quoct

#endif  // QUOCT_BUILD_FILE_HPP
