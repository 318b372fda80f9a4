// A stand-in for PCL's <pcl/point_types.h>, our own code: it exists only so that ikd-Tree
// (hku-mars/ikd-Tree, whose ikd_Tree.h includes this header and whose ikd_Tree.cpp ends with
// explicit instantiations for pcl::PointXYZ, PointXYZI and PointXYZINormal) builds for the
// benchmark without PCL. ikd-Tree touches only x, y, z and the default constructor of its
// point type; the other members are here so that the three names mean what they mean in PCL
// (without PCL's 16-byte alignment and unions, which nothing here needs). The benchmark's
// adapter (../ikdtree_peer.hpp) uses ikd-Tree's own ikdTree_PointType, not these.
//
// Also brings what PCL's header brings and ikd_Tree.h/.cpp use without including: Eigen's
// aligned_allocator (KD_TREE::PointVector), memcpy/memset, uint8_t.
#ifndef QUOCT_BENCH_IKDTREE_SHIM_PCL_POINT_TYPES_H
#define QUOCT_BENCH_IKDTREE_SHIM_PCL_POINT_TYPES_H

#include <Eigen/Core>

#include <cstdint>
#include <cstring>

namespace pcl {

struct PointXYZ {
    float x = 0.0f, y = 0.0f, z = 0.0f;
    PointXYZ() = default;
    PointXYZ(float px, float py, float pz) : x(px), y(py), z(pz) {}
};

struct PointXYZI {
    float x = 0.0f, y = 0.0f, z = 0.0f;
    float intensity = 0.0f;
    PointXYZI() = default;
    PointXYZI(float px, float py, float pz, float i = 0.0f) : x(px), y(py), z(pz), intensity(i) {}
};

struct PointXYZINormal {
    float x = 0.0f, y = 0.0f, z = 0.0f;
    float intensity = 0.0f;
    float normal_x = 0.0f, normal_y = 0.0f, normal_z = 0.0f;
    float curvature = 0.0f;
    PointXYZINormal() = default;
};

}  // namespace pcl

#endif
