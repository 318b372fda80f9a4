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

/// Which of equally distant objects a k-nearest query of an object index returns
/// (packed_object_index, moving_object_index).
enum class ties {
    /// The smallest ids: the first k of all objects sorted by (distance, id), the answer of
    /// brute force and of every index. Where a point lies inside many objects (all at
    /// distance 0), finding the smallest ids among them visits most of them.
    smallest_id,
    /// Any of them: the k smallest distances, each with an object at that distance, but
    /// which of equally distant objects is not specified (it is fixed for a given index:
    /// the first in its storage order). It stops after k objects wherever they tie.
    any,
};

}  // namespace quoct

#endif  // QUOCT_NEIGHBOR_HPP
