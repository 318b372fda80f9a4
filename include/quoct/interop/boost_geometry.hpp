// quoct: optional Boost.Geometry interop. Converts points and boxes of any type registered
// with Boost.Geometry's traits (bg::model::point, bg::model::d2::point_xy, your own struct
// after BOOST_GEOMETRY_REGISTER_POINT_2D/3D, bg::model::box of any of them) to and from
// quoct's, builds an orthtree from a range of such points, and queries a tree with a
// Boost.Geometry box or with a ball given as (Boost.Geometry centre, radius).
//
// Only this header includes Boost (its small core/ headers, no algorithms); the rest of
// quoct does not depend on it. Coordinate systems must be cartesian, coordinates floating
// point: anything else is a compile-time error that says so.
#ifndef QUOCT_INTEROP_BOOST_GEOMETRY_HPP
#define QUOCT_INTEROP_BOOST_GEOMETRY_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/geometry/core/access.hpp>
#include <boost/geometry/core/coordinate_dimension.hpp>
#include <boost/geometry/core/coordinate_system.hpp>
#include <boost/geometry/core/coordinate_type.hpp>
#include <boost/geometry/core/cs.hpp>
#include <boost/geometry/core/tag.hpp>
#include <boost/geometry/core/tags.hpp>

#include "../shapes.hpp"
#include "../orthtree.hpp"
#include "../point_traits.hpp"

namespace quoct {
namespace detail {
namespace bgx {

namespace bg = boost::geometry;

// Tags are asked first: for a type Boost.Geometry does not know, the tag is void and
// nothing else about it may be instantiated (its other traits are hard errors).
template <class G>
constexpr bool is_point = std::is_same<typename bg::tag<G>::type, bg::point_tag>::value;
template <class G>
constexpr bool is_box = std::is_same<typename bg::tag<G>::type, bg::box_tag>::value;

template <class G>
using coordinate_t = typename bg::coordinate_type<G>::type;
template <class G>
constexpr std::size_t dimension_v = static_cast<std::size_t>(bg::dimension<G>::value);

// The checks every registered point or box must pass; only call once G is known to be one.
// Used as `if constexpr (supported<G>())`, so that the messages below come first and
// nothing is built from an unsupported type (no cascade of follow-on errors).
template <class G>
constexpr bool supported() {
    constexpr bool cartesian = std::is_same<typename bg::cs_tag<G>::type, bg::cartesian_tag>::value;
    constexpr bool floating = std::is_floating_point<coordinate_t<G>>::value;
    static_assert(cartesian,
                  "quoct/interop/boost_geometry.hpp: only cartesian coordinate systems are supported "
                  "(bg::cs::cartesian); project geographic or spherical coordinates first");
    static_assert(floating, "quoct/interop/boost_geometry.hpp: coordinates must be float, double or long double");
    return cartesian && floating;
}

template <class T, std::size_t D, class P, std::size_t... I>
point<T, D> get_point(const P& p, std::index_sequence<I...>) {
    return point<T, D>{{static_cast<T>(bg::get<I>(p))...}};
}

template <class T, std::size_t D, class B, std::size_t... I>
box<T, D> get_box(const B& b, std::index_sequence<I...>) {
    return box<T, D>{point<T, D>{{static_cast<T>(bg::get<bg::min_corner, I>(b))...}},
                     point<T, D>{{static_cast<T>(bg::get<bg::max_corner, I>(b))...}}};
}

// A registered point as quoct::point<T, D> (T: the tree's scalar), checked.
template <class T, std::size_t D, class P>
point<T, D> as_point(const P& p) {
    static_assert(is_point<P>, "quoct: expected a Boost.Geometry point (a type registered with its point traits)");
    if constexpr (is_point<P>) {
        static_assert(dimension_v<P> == D, "quoct: the Boost.Geometry point's dimension differs from the tree's");
        if constexpr (supported<P>() && dimension_v<P> == D) return get_point<T, D>(p, std::make_index_sequence<D>{});
        else return point<T, D>{};
    } else {
        return point<T, D>{};
    }
}

// A registered box as quoct::box<T, D>, checked.
template <class T, std::size_t D, class B>
box<T, D> as_box(const B& b) {
    static_assert(is_box<B>,
                  "quoct: expected a Boost.Geometry box (bg::model::box<P> or a registered box); "
                  "for a ball pass (centre, radius)");
    if constexpr (is_box<B>) {
        static_assert(dimension_v<B> == D, "quoct: the Boost.Geometry box's dimension differs from the tree's");
        if constexpr (supported<B>() && dimension_v<B> == D) return get_box<T, D>(b, std::make_index_sequence<D>{});
        else return box<T, D>{};
    } else {
        return box<T, D>{};
    }
}

template <class G, class T, std::size_t D, std::size_t... I>
void set_point(G& g, const point<T, D>& p, std::index_sequence<I...>) {
    (bg::set<I>(g, static_cast<coordinate_t<G>>(p[I])), ...);
}

template <class G, class T, std::size_t D, std::size_t... I>
void set_box(G& g, const box<T, D>& b, std::index_sequence<I...>) {
    (bg::set<bg::min_corner, I>(g, static_cast<coordinate_t<G>>(b.lo[I])), ...);
    (bg::set<bg::max_corner, I>(g, static_cast<coordinate_t<G>>(b.hi[I])), ...);
}

// Types quoct reads without Boost's help (some may be registered with Boost too).
template <class P>
struct quoct_native : std::false_type {};
template <class S, std::size_t D>
struct quoct_native<point<S, D>> : std::true_type {};
template <class S, std::size_t D>
struct quoct_native<std::array<S, D>> : std::true_type {};
template <class S, std::size_t D>
struct quoct_native<S[D]> : std::true_type {};

}  // namespace bgx
}  // namespace detail

/// Every point type registered with Boost.Geometry is a quoct point type too, so the
/// indexes build straight from ranges of them (no intermediate copy). Non-cartesian or
/// integer-coordinate types fail to compile with a message when read.
template <class P>
struct point_traits<P, std::enable_if_t<detail::bgx::is_point<P> && !detail::bgx::quoct_native<P>::value>> {
    static constexpr std::size_t dimension = detail::bgx::dimension_v<P>;
    static auto get(const P& p, std::size_t axis) {
        return get_from(p, axis, std::make_index_sequence<dimension>{});
    }

private:
    template <std::size_t... I>
    static detail::bgx::coordinate_t<P> get_from(const P& p, std::size_t axis, std::index_sequence<I...>) {
        detail::bgx::coordinate_t<P> v{};
        if constexpr (detail::bgx::supported<P>()) ((axis == I ? (v = boost::geometry::get<I>(p), 0) : 0), ...);
        return v;
    }
};

/// Converts a Boost.Geometry point or box to quoct's: a registered point P gives
/// quoct::point<coordinate_type<P>, dimension<P>>, a box of such points gives quoct::box.
/// Coordinates are copied exactly. A type that is neither, a non-cartesian coordinate system
/// or integer coordinates fail to compile with a message. Never throws.
template <class G>
auto from_boost(const G& g) {
    namespace bgx = detail::bgx;
    static_assert(bgx::is_point<G> || bgx::is_box<G>,
                  "quoct::from_boost: the argument must be a Boost.Geometry point or box "
                  "(a type registered with Boost.Geometry's traits)");
    if constexpr (bgx::is_point<G>) {
        if constexpr (bgx::supported<G>())
            return bgx::get_point<bgx::coordinate_t<G>, bgx::dimension_v<G>>(g, std::make_index_sequence<bgx::dimension_v<G>>{});
    } else if constexpr (bgx::is_box<G>) {
        if constexpr (bgx::supported<G>())
            return bgx::get_box<bgx::coordinate_t<G>, bgx::dimension_v<G>>(g, std::make_index_sequence<bgx::dimension_v<G>>{});
    }
}

/// Converts a quoct point to the Boost.Geometry point type G (default-constructed, then set
/// axis by axis; coordinates converted to G's coordinate type). G's dimension must be D.
template <class G, class T, std::size_t D>
G to_boost(const point<T, D>& p) {
    namespace bgx = detail::bgx;
    static_assert(bgx::is_point<G>, "quoct::to_boost: the target of a point must be a Boost.Geometry point type");
    G g{};
    if constexpr (bgx::is_point<G>) {
        static_assert(bgx::dimension_v<G> == D, "quoct::to_boost: the point types' dimensions differ");
        bgx::set_point(g, p, std::make_index_sequence<D>{});
    }
    return g;
}

/// Converts a quoct box to the Boost.Geometry box type G (e.g. bg::model::box<P>). G's
/// dimension must be D.
template <class G, class T, std::size_t D>
G to_boost(const box<T, D>& b) {
    namespace bgx = detail::bgx;
    static_assert(bgx::is_box<G>, "quoct::to_boost: the target of a box must be a Boost.Geometry box type");
    G g{};
    if constexpr (bgx::is_box<G>) {
        static_assert(bgx::dimension_v<G> == D, "quoct::to_boost: the box types' dimensions differ");
        bgx::set_box(g, b, std::make_index_sequence<D>{});
    }
    return g;
}

/// Builds an orthtree<coordinate_type<P>, dimension<P>, Id> from any input range of a
/// registered Boost.Geometry point type P (vector, list, deque, ...). Point i of the range
/// gets id i. A contiguous range (std::vector, std::array, C array) is read straight into
/// the tree, as orthtree's own constructor does (registered points are quoct point types
/// here); another range is first gathered into a temporary vector. Throws as the orthtree
/// constructor does (invalid_argument for NaN/inf coordinates or bad options, length_error
/// if the points do not fit Id).
template <class Id = std::uint32_t, class Range>
auto make_orthtree(const Range& bg_points, build_options options = {}) {
    namespace bgx = detail::bgx;
    using P = std::decay_t<decltype(*std::begin(bg_points))>;
    static_assert(bgx::is_point<P>, "quoct::make_orthtree: the range's elements must be Boost.Geometry points");
    if constexpr (bgx::is_point<P>) {
        if constexpr (bgx::supported<P>()) {
            using T = bgx::coordinate_t<P>;
            constexpr std::size_t D = bgx::dimension_v<P>;
            if constexpr (quoct::detail::is_contiguous_range<Range>::value) {
                return orthtree<T, D, Id>(bg_points, options);
            } else {
                std::vector<point<T, D>> pts;
                for (const auto& p : bg_points) pts.push_back(bgx::get_point<T, D>(p, std::make_index_sequence<D>{}));
                return orthtree<T, D, Id>(pts.data(), pts.size(), options);
            }
        }
    }
}

/// tree.query(box, out) for a Boost.Geometry box (corners converted to the tree's scalar
/// type): clears `out`, then fills it with the ids of the points in the closed box, in no
/// particular order. Throws std::invalid_argument for a NaN corner or min > max on an axis.
/// Const and thread-safe like the tree's own queries.
template <class T, std::size_t D, class Id, class BgBox>
void query(const orthtree<T, D, Id>& tree, const BgBox& b, std::vector<Id>& out) {
    tree.query(detail::bgx::as_box<T, D>(b), out);
}

/// As query(tree, b, out), returning the ids.
template <class T, std::size_t D, class Id, class BgBox>
std::vector<Id> query(const orthtree<T, D, Id>& tree, const BgBox& b) {
    return tree.query(detail::bgx::as_box<T, D>(b));
}

/// tree.count(box) for a Boost.Geometry box: the number of points in the closed box. Throws as query.
template <class T, std::size_t D, class Id, class BgBox>
std::size_t count(const orthtree<T, D, Id>& tree, const BgBox& b) {
    return tree.count(detail::bgx::as_box<T, D>(b));
}

/// tree.visit(box, f) for a Boost.Geometry box: calls f(id, quoct point) for each point in
/// the closed box; f may return false to stop. Returns false if stopped. Throws as query.
template <class T, std::size_t D, class Id, class BgBox, class F>
bool visit(const orthtree<T, D, Id>& tree, const BgBox& b, F&& f) {
    return tree.visit(detail::bgx::as_box<T, D>(b), std::forward<F>(f));
}

/// tree.query(ball, out) for the closed ball of `radius` (in coordinate units, not squared)
/// around a Boost.Geometry point: clears `out`, then fills it with the ids of the points p
/// with distance_sq(p, centre) <= radius^2. Throws std::invalid_argument for a NaN or
/// infinite centre or a NaN or negative radius.
template <class T, std::size_t D, class Id, class BgPoint>
void query(const orthtree<T, D, Id>& tree, const BgPoint& centre, typename orthtree<T, D, Id>::scalar_type radius,
           std::vector<Id>& out) {
    tree.query(ball<T, D>{detail::bgx::as_point<T, D>(centre), radius}, out);
}

/// As query(tree, centre, radius, out), returning the ids.
template <class T, std::size_t D, class Id, class BgPoint>
std::vector<Id> query(const orthtree<T, D, Id>& tree, const BgPoint& centre,
                      typename orthtree<T, D, Id>::scalar_type radius) {
    return tree.query(ball<T, D>{detail::bgx::as_point<T, D>(centre), radius});
}

/// The number of points within `radius` of a Boost.Geometry point (closed ball). Throws as query.
template <class T, std::size_t D, class Id, class BgPoint>
std::size_t count(const orthtree<T, D, Id>& tree, const BgPoint& centre, typename orthtree<T, D, Id>::scalar_type radius) {
    return tree.count(ball<T, D>{detail::bgx::as_point<T, D>(centre), radius});
}

/// Calls f(id, quoct point) for each point within `radius` of a Boost.Geometry point; f
/// may return false to stop. Returns false if stopped. Throws as query.
template <class T, std::size_t D, class Id, class BgPoint, class F>
bool visit(const orthtree<T, D, Id>& tree, const BgPoint& centre, typename orthtree<T, D, Id>::scalar_type radius,
           F&& f) {
    return tree.visit(ball<T, D>{detail::bgx::as_point<T, D>(centre), radius}, std::forward<F>(f));
}

}  // namespace quoct

#endif  // QUOCT_INTEROP_BOOST_GEOMETRY_HPP
