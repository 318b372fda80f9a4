// The indexes stored in tests/data/format1_*.quoct, files written by an earlier version of
// the library (format version 1 with sections it no longer writes: a dynamic index's
// `points`, a geographic index's `unit`). make_format1.cpp wrote them from this recipe;
// test_file.cpp replays it with the current library and compares the answers. Public API
// only, integer coordinates, so that both versions build the same indexes.
#ifndef QUOCT_TESTS_FORMAT1_RECIPE_HPP
#define QUOCT_TESTS_FORMAT1_RECIPE_HPP

#include <quoct/dynamic.hpp>
#include <quoct/geo/index.hpp>

#include <array>
#include <vector>

namespace format1 {

inline quoct::point<double, 3> at(unsigned i) {
    return {double((i * 37u) % 101u), double((i * 53u) % 97u), double((i * 11u) % 89u)};
}

// 600 points, a fifth erased, one in seven moved, 150 inserted, with a small tail limit so
// that the index has side trees and a tail when it is saved.
inline quoct::dynamic_orthtree<double, 3> dynamic_index() {
    std::vector<quoct::point<double, 3>> pts;
    for (unsigned i = 0; i < 600; ++i) pts.push_back(at(i));
    quoct::dynamic_options o;
    o.tail_limit = 16;
    quoct::dynamic_orthtree<double, 3> x(pts, o);
    for (unsigned i = 0; i < 600; i += 5) x.erase(i);
    for (unsigned i = 1; i < 600; i += 7)
        if (x.contains(i)) x.move(i, at(i + 1000));
    for (unsigned i = 0; i < 150; ++i) x.insert(at(i + 2000));
    return x;
}

// 500 places on a lattice of whole degrees, poles and both antimeridians included.
inline quoct::geo::index<> geo_index() {
    std::vector<std::array<double, 2>> ll;
    for (unsigned i = 0; i < 500; ++i) ll.push_back({double(int((i * 73u) % 361u) - 180), double(int((i * 29u) % 181u) - 90)});
    return quoct::geo::index<>(ll);
}

}  // namespace format1

#endif
