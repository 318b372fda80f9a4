// quoct: the result type of every nearest-neighbour query. Dependency-free.
#ifndef QUOCT_NEIGHBOR_HPP
#define QUOCT_NEIGHBOR_HPP

namespace quoct {

/// One result of a nearest-neighbour query: the point's id and its distance as the query
/// measures it. For the Euclidean queries of the trees (nearest, query_with_distances)
/// that is the squared distance, as the member's name says; quoct::nearest with a norm
/// (<quoct/minkowski.hpp>) stores the distance itself there, and says so.
template <class T, class Id>
struct neighbor {
    Id id;          ///< the point's id
    T distance_sq;  ///< its squared distance (the distance itself for a norm's nearest)
};

}  // namespace quoct

#endif  // QUOCT_NEIGHBOR_HPP
