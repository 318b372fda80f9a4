// quoct: a quadtree and an octree, one dimension-generic template, for exact radius,
// box, count and nearest-neighbour queries. Include this header for the core library;
// optional parts (quoct/interop/boost_geometry.hpp, ...) are separate headers.
#ifndef QUOCT_QUOCT_HPP
#define QUOCT_QUOCT_HPP

#include "shapes.hpp"
#include "orthtree.hpp"

#endif  // QUOCT_QUOCT_HPP
