// The object benchmarks' shared pieces (bench_objects, bench_objects_large, bench_moving):
// the heap an index holds, and Boost.Geometry's R-tree as a broad phase of spheres, the way
// its users write one: each sphere's box, one intersects query per sphere, each candidate
// then tested by quoct::intersects (the predicate quoct's indexes answer by).
#ifndef QUOCT_BENCH_OBJECT_PEERS_HPP
#define QUOCT_BENCH_OBJECT_PEERS_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <boost/geometry.hpp>
#include <boost/geometry/index/rtree.hpp>

#include <quoct/shapes.hpp>

namespace quoct_bench {

/// Bytes the heap holds now (glibc's mallinfo2; 0 elsewhere): an index's size is the
/// difference across its build, counting what its allocations really take.
inline std::size_t heap_bytes() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
#else
    return 0;
#endif
}

using sphere = quoct::ball<double, 3>;
using sphere_point = boost::geometry::model::point<double, 3, boost::geometry::cs::cartesian>;
using sphere_box = boost::geometry::model::box<sphere_point>;
using sphere_entry = std::pair<sphere_box, std::uint32_t>;
using pair_list = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

/// The box of a sphere, as Boost holds it.
inline sphere_box box_of(const sphere& s) {
    return sphere_box(sphere_point(s.center[0] - s.radius, s.center[1] - s.radius, s.center[2] - s.radius),
                      sphere_point(s.center[0] + s.radius, s.center[1] + s.radius, s.center[2] + s.radius));
}

/// Every pair (a, b), a < b, of `spheres` that overlap, sorted, from an R-tree of their boxes
/// (ids their positions): one query per sphere, candidates tested exactly.
template <class Tree>
pair_list boost_sphere_pairs(const Tree& tree, const std::vector<sphere>& spheres) {
    pair_list pairs;
    std::vector<sphere_entry> found;
    std::vector<std::uint32_t> row;
    for (std::uint32_t a = 0; a < spheres.size(); ++a) {
        found.clear();
        row.clear();
        tree.query(boost::geometry::index::intersects(box_of(spheres[a])), std::back_inserter(found));
        for (const sphere_entry& e : found)
            if (e.second > a && quoct::intersects(spheres[a], spheres[e.second])) row.push_back(e.second);
        std::sort(row.begin(), row.end());
        for (std::uint32_t b : row) pairs.emplace_back(a, b);
    }
    return pairs;
}

}  // namespace quoct_bench

#endif  // QUOCT_BENCH_OBJECT_PEERS_HPP
