// quoct: <quoct/geo_boost.hpp> is the old name of <quoct/geo/polygons.hpp> (polygon queries on the
// geographic index, with Boost.Geometry). It is kept for one release as this forwarding header:
// include <quoct/geo/polygons.hpp> instead.
#ifndef QUOCT_FORWARD_GEO_BOOST_HPP
#define QUOCT_FORWARD_GEO_BOOST_HPP

#include "geo/polygons.hpp"

#endif  // QUOCT_FORWARD_GEO_BOOST_HPP
