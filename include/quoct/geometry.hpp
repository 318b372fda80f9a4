// quoct: <quoct/geometry.hpp> is the old name of <quoct/shapes.hpp> (points, boxes, balls and the
// predicates the trees prune with). It is kept for one release as this forwarding header: include
// <quoct/shapes.hpp> instead.
#ifndef QUOCT_FORWARD_GEOMETRY_HPP
#define QUOCT_FORWARD_GEOMETRY_HPP

#include "shapes.hpp"

#endif  // QUOCT_FORWARD_GEOMETRY_HPP
