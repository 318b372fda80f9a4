// quoct: geometry kernel. Points, closed boxes and closed balls in any dimension D,
// and the handful of predicates the trees prune with. Dependency-free.
//
// Every predicate treats shapes as closed sets: touching counts as meeting, a point
// at exactly distance r from a ball's centre is inside it.
//
// Exactness. Membership in a ball is decided by one predicate,
//     distance_sq(p, c) <= r * r,
// with the squares summed over axes 0..D-1 in the scalar type T. The pruning tests below
// are built so that rounding can never make them disagree with it: for a point p inside
// a box b, each axis term of distance_sq(c, b) is computed from a difference that is no
// larger in magnitude than the corresponding term for p, and IEEE rounding is monotone,
// so distance_sq(c, b) <= distance_sq(c, p) holds for the rounded values as well. The
// same argument bounds distance_sq(c, p) by farthest_distance_sq(c, b). This needs
// IEEE arithmetic evaluated as written: no x87 excess precision and no FMA contraction
// (the default for x86-64 builds; with -mfma or -march=native add -ffp-contract=off).
#ifndef QUOCT_GEOMETRY_HPP
#define QUOCT_GEOMETRY_HPP

#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

namespace quoct {

/// How a box relates to a query shape: no point of the box is in the shape (outside),
/// every point is (inside), or it cannot be told without looking at the points (partial).
enum class relation { outside, partial, inside };

/// A point in D dimensions: an aggregate, so `point<double, 2>{x, y}` works.
template <class T, std::size_t D>
struct point {
    static_assert(std::is_floating_point<T>::value, "quoct: the scalar type must be float, double or long double");
    static_assert(D >= 1, "quoct: the dimension must be at least 1");
    using scalar_type = T;
    static constexpr std::size_t dimension = D;

    T coords[D];

    constexpr T& operator[](std::size_t i) noexcept { return coords[i]; }
    constexpr const T& operator[](std::size_t i) const noexcept { return coords[i]; }

    friend constexpr bool operator==(const point& a, const point& b) noexcept {
        for (std::size_t i = 0; i < D; ++i)
            if (!(a.coords[i] == b.coords[i])) return false;
        return true;
    }
    friend constexpr bool operator!=(const point& a, const point& b) noexcept { return !(a == b); }
};

/// A closed axis-aligned box [lo, hi]. Valid when lo[i] <= hi[i] on every axis;
/// lo == hi gives a degenerate (zero-size) box, which still contains that point.
template <class T, std::size_t D>
struct box {
    point<T, D> lo;
    point<T, D> hi;
};

/// A closed ball: every point at distance <= radius from center. A circle (disc) in 2D,
/// a sphere in 3D. The radius is in the same units as the coordinates, never squared.
template <class T, std::size_t D>
struct ball {
    point<T, D> center;
    T radius;
};

/// True when every coordinate is finite (not NaN, not infinite).
template <class T, std::size_t D>
bool is_finite(const point<T, D>& p) noexcept {
    for (std::size_t i = 0; i < D; ++i)
        if (!std::isfinite(p[i])) return false;
    return true;
}

/// Squared Euclidean distance between two points, summed over axes 0..D-1 in T, in that
/// order: ((d0^2 + d1^2) + d2^2) in 3D. This is the one distance every quoct query agrees with.
template <class T, std::size_t D>
constexpr T distance_sq(const point<T, D>& a, const point<T, D>& b) noexcept {
    T d = a[0] - b[0];
    T s = d * d;
    for (std::size_t i = 1; i < D; ++i) {
        d = a[i] - b[i];
        s += d * d;
    }
    return s;
}

namespace detail {
// The per-axis terms of the box tests. gap: how far c lies outside [lo, hi] (0 inside),
// measured from the nearer face itself. reach: how far the farther face lies from c.
// For any x in [lo, hi], |gap| <= |x - c| <= reach holds for the rounded values too,
// because each is a rounded difference against a bound that is no nearer (no farther).
//
// axis_gap is c minus c clamped to [lo, hi]: signed (negative below the box), and exactly
// c - lo, c - hi or 0 (IEEE subtraction is symmetric in sign), so its square is the square
// of the gap; a min and a max, with no branch on the zone c lies in. A NaN bound gives NaN
// (never a smaller value), which no pruning test takes as "outside".
template <class T>
constexpr T axis_gap(T c, T lo, T hi) noexcept {
    T nearest = c < hi ? c : hi;
    nearest = lo > nearest ? lo : nearest;
    return c - nearest;
}
template <class T>
constexpr T axis_reach(T c, T lo, T hi) noexcept {
    const T down = c - lo;
    const T up = hi - c;
    return down > up ? down : up;
}
}  // namespace detail

/// Squared distance from p to the closest point of the closed box b (0 when p is in b).
///
/// The zone test of Shaffer (Graphics Gems) and Arvo in sum-of-axes form: on each axis the
/// centre lies below the box, within it, or above it (3 zones per axis, 3^D in all), and
/// only the axes where it lies outside contribute, by their gap to the nearer face. Each
/// gap is measured from the face itself (lo or hi), not from the box centre with a
/// half-width, so no rounding separates it from the points that sit on that face.
template <class T, std::size_t D>
constexpr T distance_sq(const point<T, D>& p, const box<T, D>& b) noexcept {
    T d = detail::axis_gap(p[0], b.lo[0], b.hi[0]);
    T s = d * d;
    for (std::size_t i = 1; i < D; ++i) {
        d = detail::axis_gap(p[i], b.lo[i], b.hi[i]);
        s += d * d;
    }
    return s;
}

/// Squared distance from p to the farthest corner of the closed box b.
template <class T, std::size_t D>
constexpr T farthest_distance_sq(const point<T, D>& p, const box<T, D>& b) noexcept {
    T d = detail::axis_reach(p[0], b.lo[0], b.hi[0]);
    T s = d * d;
    for (std::size_t i = 1; i < D; ++i) {
        d = detail::axis_reach(p[i], b.lo[i], b.hi[i]);
        s += d * d;
    }
    return s;
}

/// Point in closed ball: distance_sq(p, center) <= radius^2.
template <class T, std::size_t D>
constexpr bool contains(const ball<T, D>& s, const point<T, D>& p) noexcept {
    return distance_sq(p, s.center) <= s.radius * s.radius;
}

/// Point in closed box: lo[i] <= p[i] <= hi[i] on every axis.
template <class T, std::size_t D>
constexpr bool contains(const box<T, D>& b, const point<T, D>& p) noexcept {
    for (std::size_t i = 0; i < D; ++i)
        if (!(b.lo[i] <= p[i] && p[i] <= b.hi[i])) return false;
    return true;
}

/// Box inside ball: every point of b is in s, i.e. the farthest corner is within the radius.
template <class T, std::size_t D>
constexpr bool contains(const ball<T, D>& s, const box<T, D>& b) noexcept {
    return farthest_distance_sq(s.center, b) <= s.radius * s.radius;
}

/// Box inside box: inner is a subset of outer.
template <class T, std::size_t D>
constexpr bool contains(const box<T, D>& outer, const box<T, D>& inner) noexcept {
    for (std::size_t i = 0; i < D; ++i)
        if (!(outer.lo[i] <= inner.lo[i] && inner.hi[i] <= outer.hi[i])) return false;
    return true;
}

/// Ball meets box (closed sets, tangent contact included): the box's closest point to
/// the centre is within the radius.
template <class T, std::size_t D>
constexpr bool intersects(const ball<T, D>& s, const box<T, D>& b) noexcept {
    return distance_sq(s.center, b) <= s.radius * s.radius;
}

/// Box meets ball: same as intersects(s, b).
template <class T, std::size_t D>
constexpr bool intersects(const box<T, D>& b, const ball<T, D>& s) noexcept {
    return intersects(s, b);
}

/// Box meets box (closed: sharing a face, an edge or a corner counts).
template <class T, std::size_t D>
constexpr bool intersects(const box<T, D>& a, const box<T, D>& b) noexcept {
    for (std::size_t i = 0; i < D; ++i)
        if (a.hi[i] < b.lo[i] || b.hi[i] < a.lo[i]) return false;
    return true;
}

/// Ball meets ball, with no square root: |ca - cb|^2 <= (ra + rb)^2. The bounding-circle
/// (2D) and bounding-sphere (3D) collision test; touching counts.
template <class T, std::size_t D>
constexpr bool intersects(const ball<T, D>& a, const ball<T, D>& b) noexcept {
    const T r = a.radius + b.radius;
    return distance_sq(a.center, b.center) <= r * r;
}

/// The smallest ball around the box: centred on it, through its corners. The radius is
/// rounded so that the ball contains the box under the predicates above.
template <class T, std::size_t D>
ball<T, D> bounding_ball(const box<T, D>& b) noexcept {
    ball<T, D> s{};
    for (std::size_t i = 0; i < D; ++i) {
        // Halves first, so that boxes wider than the largest finite value keep a finite centre.
        const T c = b.lo[i] / 2 + b.hi[i] / 2;
        s.center[i] = c < b.lo[i] ? b.lo[i] : c > b.hi[i] ? b.hi[i] : c;  // subnormal halves may round out
    }
    T r = std::sqrt(farthest_distance_sq(s.center, b));
    // sqrt rounds to nearest; nudge up until r * r covers the farthest corner.
    const T need = farthest_distance_sq(s.center, b);
    while (r * r < need) r = std::nextafter(r, std::numeric_limits<T>::infinity());
    s.radius = r;
    return s;
}

}  // namespace quoct

#endif  // QUOCT_GEOMETRY_HPP
