// quoct: the one customisation point through which every index reads your points.
// Dependency-free (standard library and quoct/shapes.hpp only).
//
// An index builds from
//   - a contiguous range (std::vector, std::array, a C array, std::span, ...) of points, or
//     a pointer and a count, where a point is quoct::point<T, D>, std::array<S, D>, S[D],
//     or any type P you describe with a specialisation of quoct::point_traits<P>;
//   - a flat `const T*` to n * D coordinates, point after point (x0 y0 z0 x1 y1 z1 ...):
//     a C-contiguous numpy array of shape (n, D), a row-major Eigen matrix, an interleaved
//     buffer. T must then be the index's own scalar type.
// Coordinates are read once, while building, straight into the index's own layout;
// nothing is kept pointing at your data and no intermediate copy is made.
//
// Describing your own type, for example a PCL-like struct:
//
//   struct xyz { float x, y, z; };
//   template <> struct quoct::point_traits<xyz> {
//       static constexpr std::size_t dimension = 3;
//       static float get(const xyz& p, std::size_t axis) { return axis == 0 ? p.x : axis == 1 ? p.y : p.z; }
//   };
//   quoct::octree<float> tree(cloud);   // std::vector<xyz>
//
// get() may return any arithmetic type; it is converted to the index's scalar type T as
// static_cast<T> does (so doubles read into a float tree are rounded to float, and the
// tree answers for the rounded points). A type that fits none of these fails to compile
// with one static_assert naming what to do.
#ifndef QUOCT_POINT_TRAITS_HPP
#define QUOCT_POINT_TRAITS_HPP

#include <array>
#include <cstddef>
#include <iterator>
#include <type_traits>
#include <utility>

#include "shapes.hpp"

namespace quoct {

/// Tells quoct how to read a point type P: specialise it with
///   static constexpr std::size_t dimension;                 // number of coordinates
///   static Scalar get(const P& p, std::size_t axis);       // coordinate `axis`, 0 <= axis < dimension
/// where Scalar is any arithmetic type. The second parameter is for enable_if-style partial
/// specialisations; leave it out in yours. get() should not throw.
template <class P, class Enable = void>
struct point_traits {};

/// quoct's own point.
template <class S, std::size_t D>
struct point_traits<point<S, D>> {
    static constexpr std::size_t dimension = D;  ///< the number of coordinates
    /// Coordinate `axis` of p.
    static S get(const point<S, D>& p, std::size_t axis) noexcept { return p[axis]; }
};

/// std::array<S, D> of an arithmetic S.
template <class S, std::size_t D>
struct point_traits<std::array<S, D>, std::enable_if_t<std::is_arithmetic<S>::value>> {
    static constexpr std::size_t dimension = D;  ///< the number of coordinates
    /// Coordinate `axis` of p.
    static S get(const std::array<S, D>& p, std::size_t axis) noexcept { return p[axis]; }
};

/// A C array S[D] of an arithmetic S.
template <class S, std::size_t D>
struct point_traits<S[D], std::enable_if_t<std::is_arithmetic<S>::value>> {
    static constexpr std::size_t dimension = D;  ///< the number of coordinates
    /// Coordinate `axis` of p.
    static S get(const S (&p)[D], std::size_t axis) noexcept { return p[axis]; }
};

namespace detail {

template <class P, class = void>
struct has_point_traits : std::false_type {};
template <class P>
struct has_point_traits<P, std::void_t<decltype(point_traits<P>::dimension),
                                       decltype(point_traits<P>::get(std::declval<const P&>(), std::size_t{}))>>
    : std::is_arithmetic<std::decay_t<decltype(point_traits<P>::get(std::declval<const P&>(), std::size_t{}))>> {};

template <class P, bool = has_point_traits<P>::value>
struct traits_dimension : std::integral_constant<std::size_t, 0> {};
template <class P>
struct traits_dimension<P, true> : std::integral_constant<std::size_t, point_traits<P>::dimension> {};

/// Checks at compile time that P can be read as a point of an index over D dimensions.
template <class P, std::size_t D>
constexpr bool check_point_type() {
    constexpr bool known = has_point_traits<P>::value;
    static_assert(known,
                  "quoct: unsupported point type: use quoct::point<T, D>, std::array<T, D>, T[D], a flat const T* "
                  "of n * D coordinates of the index's own scalar type T, or specialise quoct::point_traits "
                  "for your type (see quoct/point_traits.hpp)");
    static_assert(!known || traits_dimension<P>::value == D,
                  "quoct: the points' dimension (point_traits<P>::dimension) differs from the index's D");
    return known && traits_dimension<P>::value == D;
}

/// n points of type P read as quoct::point<T, D>.
template <class T, std::size_t D, class P>
struct point_source {
    const P* data;
    std::size_t count;

    std::size_t size() const noexcept { return count; }
    point<T, D> operator[](std::size_t i) const noexcept {
        point<T, D> q;
        if constexpr (check_point_type<P, D>())
            for (std::size_t a = 0; a < D; ++a) q[a] = static_cast<T>(point_traits<P>::get(data[i], a));
        return q;
    }
};

/// n points stored flat: coordinate a of point i at data[i * D + a].
template <class T, std::size_t D>
struct flat_source {
    const T* data;
    std::size_t count;

    std::size_t size() const noexcept { return count; }
    point<T, D> operator[](std::size_t i) const noexcept {
        point<T, D> q;
        for (std::size_t a = 0; a < D; ++a) q[a] = data[i * D + a];
        return q;
    }
};

/// The element type of a contiguous range (what std::data points to), without const.
template <class Range>
using range_element = std::remove_const_t<std::remove_pointer_t<decltype(std::data(std::declval<const Range&>()))>>;

/// True for what the range constructors take: std::data and std::size work on it.
template <class Range, class = void>
struct is_contiguous_range : std::false_type {};
template <class Range>
struct is_contiguous_range<Range, std::void_t<decltype(std::data(std::declval<const Range&>())),
                                              decltype(std::size(std::declval<const Range&>()))>>
    : std::true_type {};

/// The points of a contiguous range. A range of scalars is refused: its length counts
/// coordinates, not points, so the (pointer, count) form says which is meant.
template <class T, std::size_t D, class Range,
          class E = std::conditional_t<std::is_arithmetic<range_element<Range>>::value, point<T, D>, range_element<Range>>>
point_source<T, D, E> range_source(const Range& r) noexcept {
    static_assert(!std::is_arithmetic<range_element<Range>>::value,
                  "quoct: a range of scalars is ambiguous: pass (data, n) with n the number of points, "
                  "coordinates stored point after point");
    if constexpr (std::is_arithmetic<range_element<Range>>::value) return {nullptr, 0};
    else return {std::data(r), static_cast<std::size_t>(std::size(r))};
}

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_POINT_TRAITS_HPP
