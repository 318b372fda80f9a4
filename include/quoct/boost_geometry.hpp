// quoct: <quoct/boost_geometry.hpp> is the old name of <quoct/interop/boost_geometry.hpp>
// (Boost.Geometry interop for points, boxes and trees). It is kept for one release as this
// forwarding header: include <quoct/interop/boost_geometry.hpp> instead.
#ifndef QUOCT_FORWARD_BOOST_GEOMETRY_HPP
#define QUOCT_FORWARD_BOOST_GEOMETRY_HPP

#include "interop/boost_geometry.hpp"

#endif  // QUOCT_FORWARD_BOOST_GEOMETRY_HPP
