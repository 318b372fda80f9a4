// quoct: geometry kernel. Points, closed boxes and closed balls in any dimension D,
// and the handful of predicates the trees prune with. Dependency-free.
//
// Every predicate treats shapes as closed sets: touching counts as meeting, a point
// at exactly distance r from a ball's centre is inside it.
//
// Exactness. Membership in a ball is decided by one predicate,
//     distance_sq(p, c) <= r * r,
// with the differences, their squares and the sum over axes 0..D-1 each rounded to T, in
// that order, as if T's exponent had no bounds: a square or a sum never overflows to
// infinity and never underflows to a subnormal or to zero. Where nothing overflows or
// underflows that is plain IEEE arithmetic in T, bit for bit; at the ends of T's range the
// same rounded values are formed as m * 2^e with m in T (detail::wide below) on a slow path
// that only radii near the ends of the range and points at extreme distances take. So a
// point 3e200 from the centre is outside a ball of radius 2e200 (in T the squares 9e400 and
// 4e400 both overflow to infinity), and a point 1e-200 away is outside a ball of radius 0.
//
// The pruning tests below are built so that rounding can never make them disagree with the
// predicate: for a point p inside a box b, each axis term of distance_sq(c, b) is computed
// from a difference that is no larger in magnitude than the corresponding term for p, and
// IEEE rounding (overflow and underflow included) is monotone, so distance_sq(c, b) <=
// distance_sq(c, p) holds for the rounded values as well. The same argument bounds
// distance_sq(c, p) by farthest_distance_sq(c, b). detail::radius_bound turns such a
// rounded value into a sure answer where it can and says when the slow path must decide.
// This needs IEEE arithmetic evaluated as written: no x87 excess precision and no FMA
// contraction (the default for x86-64 builds; with -mfma or -march=native add
// -ffp-contract=off).
#ifndef QUOCT_SHAPES_HPP
#define QUOCT_SHAPES_HPP

#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <utility>

namespace quoct {

/// How a box relates to a query shape: no point of the box is in the shape (outside),
/// every point is (inside), or it cannot be told without looking at the points (partial).
enum class relation { outside, partial, inside };

/// A point in D dimensions: an aggregate, so `point<double, 2>{x, y}` works.
template <class T, std::size_t D>
struct point {
    static_assert(std::is_floating_point<T>::value, "quoct: the scalar type must be float, double or long double");
    static_assert(D >= 1, "quoct: the dimension must be at least 1");
    using scalar_type = T;                           ///< the coordinate type
    static constexpr std::size_t dimension = D;      ///< the number of coordinates

    T coords[D];  ///< the coordinates, axis 0 first

    /// Coordinate i (i < D, unchecked).
    constexpr T& operator[](std::size_t i) noexcept { return coords[i]; }
    /// Coordinate i (i < D, unchecked).
    constexpr const T& operator[](std::size_t i) const noexcept { return coords[i]; }

    /// Equal coordinates on every axis (IEEE ==: -0 equals 0, NaN equals nothing).
    friend constexpr bool operator==(const point& a, const point& b) noexcept {
        for (std::size_t i = 0; i < D; ++i)
            if (!(a.coords[i] == b.coords[i])) return false;
        return true;
    }
    /// Not a == b.
    friend constexpr bool operator!=(const point& a, const point& b) noexcept { return !(a == b); }
};

/// A closed axis-aligned box [lo, hi]. Valid when lo[i] <= hi[i] on every axis;
/// lo == hi gives a degenerate (zero-size) box, which still contains that point.
template <class T, std::size_t D>
struct box {
    using point_type = point<T, D>;  ///< its corners' type
    point<T, D> lo;  ///< the lower corner: the smallest coordinate on each axis
    point<T, D> hi;  ///< the upper corner: the largest coordinate on each axis
};

/// A closed ball: every point at distance <= radius from center. A circle (disc) in 2D,
/// a sphere in 3D. The radius is in the same units as the coordinates, never squared.
template <class T, std::size_t D>
struct ball {
    using point_type = point<T, D>;  ///< its centre's type
    point<T, D> center;  ///< the centre
    T radius;            ///< the radius (>= 0 for a query; the same units as the coordinates)
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
constexpr T axis_nearest(T c, T lo, T hi) noexcept {
    const T nearest = c < hi ? c : hi;
    return lo > nearest ? lo : nearest;
}
template <class T>
constexpr T axis_gap(T c, T lo, T hi) noexcept {
    return c - axis_nearest(c, lo, hi);
}
template <class T>
constexpr T axis_reach(T c, T lo, T hi) noexcept {
    const T down = c - lo;
    const T up = hi - c;
    return down > up ? down : up;
}
// The sum over the axes, in axis order, of term(p[a], b.lo[a], b.hi[a]) squared, rounded in T
// (the first square is the sum's start, not 0 + it).
template <class T, std::size_t D, class Term>
constexpr T axis_sum_sq(const point<T, D>& p, const box<T, D>& b, Term term) noexcept {
    T d = term(p[0], b.lo[0], b.hi[0]);
    T s = d * d;
    for (std::size_t i = 1; i < D; ++i) {
        d = term(p[i], b.lo[i], b.hi[i]);
        s += d * d;
    }
    return s;
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
    return detail::axis_sum_sq(p, b, [](T x, T lo, T hi) { return detail::axis_gap(x, lo, hi); });
}

namespace detail {

/// max(0, sqrt(d2) - r) squared, rounded in T: the squared distance to a ball of radius
/// r whose centre lies at squared distance d2. Non-decreasing in d2 and non-increasing in
/// r, rounding included (each step is monotone), so a smaller d2 or a larger r gives a
/// lower bound; 0 when sqrt(d2) - r is NaN (both infinite).
template <class T>
T gap_sq(T d2, T r) noexcept {
    using std::sqrt;
    const T g = sqrt(d2) - r;
    return g > 0 ? g * g : T(0);
}

}  // namespace detail

/// Squared distance from p to the closest point of the closed ball s (0 when p is in s):
/// (|p - s.center| - s.radius)^2, computed as sqrt(distance_sq(p, s.center)) - s.radius and
/// squared, each step rounded in T. The value object_index::nearest orders balls by. It is
/// a measure, not the ball predicate: near the boundary it may disagree with
/// contains(s, p) and intersects by a rounding, and where distance_sq(p, s.center)
/// overflows T it is infinite.
template <class T, std::size_t D>
T distance_sq(const point<T, D>& p, const ball<T, D>& s) noexcept {
    return detail::gap_sq(distance_sq(p, s.center), s.radius);
}

/// Squared distance from p to the farthest corner of the closed box b.
template <class T, std::size_t D>
constexpr T farthest_distance_sq(const point<T, D>& p, const box<T, D>& b) noexcept {
    return detail::axis_sum_sq(p, b, [](T x, T lo, T hi) { return detail::axis_reach(x, lo, hi); });
}

namespace detail {
// --- Squares with an unbounded exponent ------------------------------------------------
//
// The slow path of the ball predicate. A value is m * 2^e with m = 0 or 0.5 <= m < 1 in T,
// so each difference, square and sum is rounded to T's precision exactly as T rounds it,
// but never overflows or underflows: scaling by a power of two is exact, and m * m and the
// aligned sums below stay in T's normal range.

/// A non-negative m * 2^e, m = 0 (then e = 0) or in [0.5, 1).
template <class T>
struct wide {
    T m;
    long e;
};

/// |x| for a finite x, exactly.
template <class T>
wide<T> to_wide(T x) noexcept {
    int e = 0;
    const T m = std::frexp(std::abs(x), &e);
    return wide<T>{m, m == 0 ? 0L : static_cast<long>(e)};
}

/// |a - b| rounded to T's precision, for finite a and b. Where a - b is finite in T it is
/// that value (a subnormal difference is exact). It overflows only when both are at least
/// 2^(max_exponent - digits - 1) in magnitude, so their halves are exact and a / 2 - b / 2
/// rounds to half the difference.
template <class T>
wide<T> wide_difference(T a, T b) noexcept {
    // An infinite (or NaN) coordinate, which only the free functions let through: farther
    // than any finite distance.
    if (!std::isfinite(a) || !std::isfinite(b)) return wide<T>{T(0.5), std::numeric_limits<long>::max() / 8};
    const T d = a - b;
    if (std::abs(d) <= std::numeric_limits<T>::max()) return to_wide(d);
    wide<T> w = to_wide(a / 2 - b / 2);
    ++w.e;
    return w;
}

/// x * x rounded to T's precision: m * m lies in [0.25, 1), where T rounds as unbounded.
template <class T>
wide<T> wide_square(wide<T> x) noexcept {
    if (x.m == 0) return x;
    wide<T> w = to_wide(x.m * x.m);
    w.e += 2 * x.e;
    return w;
}

/// a + b rounded to T's precision. With b the smaller, b's m scaled to a's exponent stays
/// normal (at least 2^-(digits + 2)) and the aligned sum is below 2, so T rounds it as
/// unbounded; a b further down is under a quarter of a's last place and leaves a unchanged.
template <class T>
wide<T> wide_add(wide<T> a, wide<T> b) noexcept {
    if (a.m == 0) return b;
    if (b.m == 0) return a;
    if (a.e < b.e) std::swap(a, b);
    const long shift = a.e - b.e;
    if (shift > std::numeric_limits<T>::digits + 1) return a;
    wide<T> w = to_wide(a.m + std::ldexp(b.m, -static_cast<int>(shift)));
    w.e += a.e;
    return w;
}

/// a <= b.
template <class T>
bool wide_less_equal(wide<T> a, wide<T> b) noexcept {
    if (a.m == 0) return true;
    if (b.m == 0) return false;
    return a.e != b.e ? a.e < b.e : a.m <= b.m;
}

/// a < b.
template <class T>
bool wide_less(wide<T> a, wide<T> b) noexcept {
    return !wide_less_equal(b, a);
}

/// The value in T: rounded to a subnormal or zero, or infinity, where T's range ends.
template <class T>
T wide_value(wide<T> w) noexcept {
    const long cap = 1L << 20;  // beyond every T's range, within int's
    return std::ldexp(w.m, static_cast<int>(w.e < -cap ? -cap : w.e > cap ? cap : w.e));
}

/// The sum over axes 0..D-1 of the squares of axis(a), a wide<T> each, in axis order.
template <class T, std::size_t D, class Axis>
wide<T> wide_sum_sq(Axis&& axis) {
    wide<T> s = wide_square<T>(axis(std::size_t{0}));
    for (std::size_t a = 1; a < D; ++a) s = wide_add(s, wide_square<T>(axis(a)));
    return s;
}

/// 2^e in T, exactly (for e in T's range), in a constant expression.
template <class T>
constexpr T power_of_two(long e) noexcept {
    T x = 1;
    for (long i = 0; i < e; ++i) x *= 2;
    for (long i = 0; i > e; --i) x /= 2;
    return x;
}

/// A radius squared once, and how a squared distance s, as T rounds it (overflow and
/// underflow included), is compared with it under the predicate. Underflow can make such
/// an s differ from the unbounded one only while both are at most flip_bound() (an
/// underflowed square errs by under a subnormal step, and each further sum can carry a
/// changed rounding up by at most 2^(digits + 3)), and overflow only where s is infinite.
/// So when r * r is finite and above flip_bound() the comparison in T is the predicate
/// (`plain`); otherwise s <= sure_in is inside, s > sure_out outside, and the few s between
/// are decided by within(), the unbounded sum. Pruning with the rounded bounds of a box
/// keeps its promise: a box whose least s exceeds sure_out holds no point inside, and one
/// whose greatest s is at most sure_in holds none outside.
template <class T, std::size_t D>
struct radius_bound {
    T r_sq;      // r * r in T
    T sure_in;   // a rounded s <= sure_in is inside
    T sure_out;  // a rounded s > sure_out is outside
    bool plain;  // sure_in == sure_out == r_sq

    /// 2^(min_exponent - 1 + (digits + 3) (D - 1)): float 2^-72 in 3D, double 2^-910.
    static constexpr T flip_bound() noexcept { return flip_; }

    /// For a radius r >= 0 (infinity takes every point).
    explicit radius_bound(T r) noexcept : radius_bound(r, wide<T>{}, false) {}

    /// For a radius given in T and as the unbounded value it rounds (they differ only
    /// where r overflowed to infinity: a sum of two radii).
    radius_bound(T r, wide<T> exact) noexcept : radius_bound(r, exact, true) {}

private:
    static constexpr long flip_exponent = (std::numeric_limits<T>::min_exponent - 1) +
                                          static_cast<long>(std::numeric_limits<T>::digits + 3) * static_cast<long>(D - 1);
    static constexpr T flip_ = flip_exponent >= std::numeric_limits<T>::max_exponent
                                   ? std::numeric_limits<T>::infinity()
                                   : power_of_two<T>(flip_exponent);
    T r_;            // the radius, for the slow path (unless exact_ is given)
    wide<T> exact_;  // the unbounded radius, when it is not r_ itself
    bool has_exact_;

    radius_bound(T r, wide<T> exact, bool has_exact) noexcept
        : r_sq(r * r), plain(false), r_(r), exact_(exact), has_exact_(has_exact) {
        const T flip = flip_;
        if (std::isnan(r)) {  // (the indexes refuse it) no point
            sure_in = T(-1);
            sure_out = -std::numeric_limits<T>::infinity();
        } else if (std::isinf(r) && !(has_exact && exact.m != 0)) {  // an infinite radius: every point
            sure_in = sure_out = r_sq;
            plain = true;
        } else if (std::isinf(r_sq)) {  // every finite s is inside
            sure_in = std::numeric_limits<T>::max();
            sure_out = r_sq;
        } else if (r_sq > flip) {
            sure_in = sure_out = r_sq;
            plain = true;
        } else {  // a radius at the bottom of T's range: small s are decided one by one
            sure_in = T(-1);
            sure_out = flip;
        }
    }

public:
    /// A bound that admits exactly the rounded s <= most (a filter, not a radius).
    static radius_bound at_most(T most) noexcept {
        radius_bound b{T(0)};
        b.sure_in = b.sure_out = b.r_sq = most;
        b.plain = true;
        return b;
    }

    /// The unbounded squared distance s is within the radius.
    bool within(wide<T> s) const noexcept {
        if (std::isinf(r_) && !has_exact_) return true;
        return wide_less_equal(s, wide_square(has_exact_ ? exact_ : to_wide(r_)));
    }

    /// The predicate for a squared distance s as T rounds it, axis(a) giving the axis
    /// differences as wide<T> for the rare s that needs them.
    template <class Axis>
    bool admits(T s, Axis&& axis) const {
        if (s <= sure_in) return true;
        if (!(s <= sure_out)) return false;  // NaN too
        return within(wide_sum_sq<T, D>(axis));
    }

    /// How a box relates to the ball, from lower and upper bounds of s over its points.
    relation classify(T least, T most) const noexcept {
        if (least > sure_out) return relation::outside;
        return most <= sure_in ? relation::inside : relation::partial;
    }
};

/// The unbounded |p - c| of each axis, for radius_bound::admits.
template <class T, std::size_t D>
struct point_offsets {
    const point<T, D>& p;
    const point<T, D>& c;
    wide<T> operator()(std::size_t a) const noexcept { return wide_difference(p[a], c[a]); }
};
}  // namespace detail

/// Point in closed ball: distance_sq(p, center) <= radius^2, the predicate of the note at
/// the top of this header (rounded in T, with no overflow or underflow).
template <class T, std::size_t D>
bool contains(const ball<T, D>& s, const point<T, D>& p) noexcept {
    const detail::radius_bound<T, D> bound(s.radius);
    return bound.admits(distance_sq(p, s.center), detail::point_offsets<T, D>{p, s.center});
}

/// Point in closed box: lo[i] <= p[i] <= hi[i] on every axis.
template <class T, std::size_t D>
constexpr bool contains(const box<T, D>& b, const point<T, D>& p) noexcept {
    for (std::size_t i = 0; i < D; ++i)
        if (!(b.lo[i] <= p[i] && p[i] <= b.hi[i])) return false;
    return true;
}

/// Box inside ball: every point of b is in s, i.e. the farthest corner is within the
/// radius (by the predicate of contains(ball, point)). An unbounded box is inside only a
/// ball of infinite radius.
template <class T, std::size_t D>
bool contains(const ball<T, D>& s, const box<T, D>& b) noexcept {
    const detail::radius_bound<T, D> bound(s.radius);
    const T most = farthest_distance_sq(s.center, b);
    if (most <= bound.sure_in) return true;
    if (most > bound.sure_out) return false;
    for (std::size_t a = 0; a < D; ++a)
        if (std::isinf(b.lo[a]) || std::isinf(b.hi[a])) return false;
    return bound.within(detail::wide_sum_sq<T, D>([&](std::size_t a) {
        const detail::wide<T> down = detail::wide_difference(s.center[a], b.lo[a]);
        const detail::wide<T> up = detail::wide_difference(b.hi[a], s.center[a]);
        return detail::wide_less_equal(down, up) ? up : down;
    }));
}

/// Box inside box: inner is a subset of outer.
template <class T, std::size_t D>
constexpr bool contains(const box<T, D>& outer, const box<T, D>& inner) noexcept {
    for (std::size_t i = 0; i < D; ++i)
        if (!(outer.lo[i] <= inner.lo[i] && inner.hi[i] <= outer.hi[i])) return false;
    return true;
}

/// Ball meets box (closed sets, tangent contact included): the box's closest point to
/// the centre is within the radius (by the predicate of contains(ball, point)).
template <class T, std::size_t D>
bool intersects(const ball<T, D>& s, const box<T, D>& b) noexcept {
    const detail::radius_bound<T, D> bound(s.radius);
    return bound.admits(distance_sq(s.center, b), [&](std::size_t a) {
        const T c = s.center[a];
        return detail::wide_difference(c, detail::axis_nearest(c, b.lo[a], b.hi[a]));
    });
}

/// Box meets ball: same as intersects(s, b).
template <class T, std::size_t D>
bool intersects(const box<T, D>& b, const ball<T, D>& s) noexcept {
    return intersects(s, b);
}

/// Box meets box (closed: sharing a face, an edge or a corner counts).
template <class T, std::size_t D>
constexpr bool intersects(const box<T, D>& a, const box<T, D>& b) noexcept {
    for (std::size_t i = 0; i < D; ++i)
        if (a.hi[i] < b.lo[i] || b.hi[i] < a.lo[i]) return false;
    return true;
}

/// Ball meets ball, with no square root: |ca - cb|^2 <= (ra + rb)^2, the sum ra + rb
/// rounded in T like the squares (with no overflow). The bounding-circle (2D) and
/// bounding-sphere (3D) collision test; touching counts.
template <class T, std::size_t D>
bool intersects(const ball<T, D>& a, const ball<T, D>& b) noexcept {
    const T r = a.radius + b.radius;
    // The common case first: radii >= 0 whose sum squares to a finite value above
    // radius_bound's flip_bound(), where the comparison in T is the predicate (the bound
    // below would be `plain`), with no unbounded sum to form.
    const T r_sq = r * r;
    if (a.radius >= 0 && b.radius >= 0 && r_sq <= std::numeric_limits<T>::max() &&
        r_sq > detail::radius_bound<T, D>::flip_bound())
        return distance_sq(a.center, b.center) <= r_sq;
    const bool infinite = std::isinf(a.radius) || std::isinf(b.radius);
    const bool sum = !infinite && a.radius >= 0 && b.radius >= 0;  // (a negative radius: as r rounds)
    const detail::radius_bound<T, D> bound(
        r, sum ? detail::wide_add(detail::to_wide(a.radius), detail::to_wide(b.radius))
               : infinite ? detail::wide<T>{} : detail::to_wide(r));
    return bound.admits(distance_sq(a.center, b.center), detail::point_offsets<T, D>{a.center, b.center});
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
    // The root of the farthest corner's squared distance taken from its unbounded form, so
    // that no overflowed or underflowed square misleads it; sqrt rounds to nearest, so then
    // nudge up (a step or two) until the ball holds the box by the predicate.
    bool bounded = true;
    for (std::size_t i = 0; i < D; ++i) bounded &= std::isfinite(b.lo[i]) && std::isfinite(b.hi[i]);
    if (!bounded) {
        s.radius = std::numeric_limits<T>::infinity();
        return s;
    }
    detail::wide<T> far = detail::wide_sum_sq<T, D>([&](std::size_t a) {
        const detail::wide<T> down = detail::wide_difference(s.center[a], b.lo[a]);
        const detail::wide<T> up = detail::wide_difference(b.hi[a], s.center[a]);
        return detail::wide_less_equal(down, up) ? up : down;
    });
    if (far.e % 2 != 0) far.m *= 2, far.e -= 1;  // an even exponent halves exactly
    s.radius = std::ldexp(std::sqrt(far.m), static_cast<int>(far.e / 2));
    while (!contains(s, b)) s.radius = std::nextafter(s.radius, std::numeric_limits<T>::infinity());
    return s;
}

}  // namespace quoct

#endif  // QUOCT_SHAPES_HPP
