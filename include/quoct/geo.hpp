// quoct: <quoct/geo.hpp> is the old name of <quoct/geo/index.hpp> (the geographic index (lon/lat
// points, great-circle distances)). It is kept for one release as this forwarding header: include
// <quoct/geo/index.hpp> instead.
#ifndef QUOCT_FORWARD_GEO_HPP
#define QUOCT_FORWARD_GEO_HPP

#include "geo/index.hpp"

#endif  // QUOCT_FORWARD_GEO_HPP
