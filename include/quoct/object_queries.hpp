// quoct::object_queries: the query conveniences of an index of objects with extent, derived
// from its primitives.
//
// Every object index (object_index, packed_object_index, moving_object_index) writes only
// what differs between them: visit(q, f), which calls f with the id of each object meeting
// the query q (a quoct::box or quoct::ball; f may take the object's shape too, where the
// index passes it), and nearest(p, k, out, ...), its k-nearest search. object_queries<Derived>
// turns them into the members below, the same in every object index, documented once (as
// point_queries does for the point indexes).

#ifndef QUOCT_OBJECT_QUERIES_HPP
#define QUOCT_OBJECT_QUERIES_HPP

#include <cstddef>
#include <type_traits>
#include <vector>

#include "detail/knn.hpp"
#include "neighbor.hpp"

namespace quoct {

/// The ids-returning queries of an object index (Derived), over its visit(q, f) and
/// nearest(p, k, out, ...). Point is the index's point type and Id its id type.
template <class Derived, class Point, class Id>
class object_queries {
public:
    /// Clears `out`, then fills it with the ids of the objects meeting the closed query q
    /// (a box or a ball: intersects(q, object)), in no particular order. Throws as
    /// visit(q, f): std::invalid_argument for a bad query.
    template <class Query>
    void query(const Query& q, std::vector<Id>& out) const {
        out.clear();
        self().visit(q, [&](Id id, const auto&...) { out.push_back(id); });
    }
    /// As query(q, out), returning the ids.
    template <class Query>
    std::vector<Id> query(const Query& q) const {
        std::vector<Id> out;
        query(q, out);
        return out;
    }
    /// Number of objects meeting q (the objects query(q) returns). Throws as visit(q, f).
    template <class Query>
    std::size_t count(const Query& q) const {
        std::size_t n = 0;
        self().visit(q, [&](Id, const auto&...) { ++n; });
        return n;
    }
    /// As nearest(p, k, out), returning the ids, nearest first. Throws as it does.
    std::vector<Id> nearest(const Point& p, std::size_t k) const {
        std::vector<neighbor<typename Point::scalar_type, Id>> found;
        self().nearest(p, k, found);
        return ids_of(found);
    }
    /// As nearest(p, k, out, rule), returning the ids (the packed and moving indexes, which
    /// take a quoct::ties). A template taking exactly ties, so that nearest(p, k, radius, out)
    /// with a radius of another arithmetic type still converts to the index's own overload.
    template <class Rule, std::enable_if_t<std::is_same<Rule, ties>::value, int> = 0>
    std::vector<Id> nearest(const Point& p, std::size_t k, Rule rule) const {
        std::vector<neighbor<typename Point::scalar_type, Id>> found;
        self().nearest(p, k, found, rule);
        return ids_of(found);
    }

private:
    const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }
    static std::vector<Id> ids_of(const std::vector<neighbor<typename Point::scalar_type, Id>>& found) {
        std::vector<Id> ids;
        detail::ids_of(found, ids);
        return ids;
    }
};

}  // namespace quoct

#endif  // QUOCT_OBJECT_QUERIES_HPP
