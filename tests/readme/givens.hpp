// The names the README's C++ blocks take as given (`tree`, `points`, `places`, ...): a block
// is a fragment of a program, so tests/readme/run_readme_blocks.py compiles each one as the
// body of a function placed after these declarations (its #include lines and its
// namespace-scope declarations go before the function). A name a block declares itself
// hides the one here.
#pragma once

#include <quoct/quoct.hpp>
#include <quoct/dynamic.hpp>
#include <quoct/file.hpp>
#include <quoct/geo/index.hpp>
#include <quoct/minkowski.hpp>
#include <quoct/pairs.hpp>
#include <quoct/parallel.hpp>
#include <quoct/periodic.hpp>
#ifdef QUOCT_README_MPI
#include <quoct/mpi.hpp>
#endif

#include <cstdint>
#include <vector>

namespace readme_givens {

inline std::vector<quoct::point<double, 3>> points, positions, new_positions;
inline quoct::octree<double> tree;
inline quoct::point<double, 3> c{};
inline double h = 0.1;
inline std::vector<quoct::geo::lonlat> places;
inline std::vector<quoct::point<double, 2>> wrapped;
inline quoct::box<double, 3> around_sensor{};
inline std::vector<quoct::point<double, 3>> scan, moved_to;
inline std::vector<std::uint32_t> moved_ids;
#ifdef QUOCT_README_MPI
inline std::vector<quoct::point<double, 3>> my_points, my_query_points, new_positions_of_owned_points;
inline std::vector<quoct::ball<double, 3>> my_balls;
inline std::vector<quoct::box<double, 3>> my_boxes;
#endif

}  // namespace readme_givens

using namespace readme_givens;
