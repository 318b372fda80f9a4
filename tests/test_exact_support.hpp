// quoct tests: the exact oracle of the ball predicate at the ends of the floating-point range.
// It computes with big-integer dyadic numbers (boost::multiprecision::cpp_int mantissas),
// rounding each difference, square and sum to T's precision, ties to even, with an unbounded
// exponent: the rule of shapes.hpp, written a second time in a way that shares nothing with
// the library's. With it, values at every scale of T (subnormals to the largest finite).
// Used by core/test_extremes.cpp and periodic/test_periodic.cpp; apart from test_support.hpp
// because cpp_int is a heavy include that the other test files do not need.
#ifndef QUOCT_TESTS_TEST_EXACT_SUPPORT_HPP
#define QUOCT_TESTS_TEST_EXACT_SUPPORT_HPP

#include "test_support.hpp"

#include <boost/multiprecision/cpp_int.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>

namespace quoct_test {
namespace exact_oracle {

using big = boost::multiprecision::cpp_int;

/// m * 2^e, exactly.
struct dyadic {
    big m;
    long e = 0;
};

template <class T>
dyadic exact(T x) {
    if (!std::isfinite(x)) throw std::logic_error("the oracle takes finite values only");
    if (x == 0) return {};
    int k = 0;
    const T f = std::frexp(x, &k);  // x = f 2^k, 0.5 <= |f| < 1
    constexpr int p = std::numeric_limits<T>::digits;
    const auto m = static_cast<long long>(std::ldexp(f, p));  // exact: f has p bits
    return {big(m), static_cast<long>(k) - p};
}

inline dyadic align_add(const dyadic& a, const dyadic& b, bool subtract) {
    if (a.m == 0) return subtract ? dyadic{-b.m, b.e} : b;
    if (b.m == 0) return a;
    const long e = std::min(a.e, b.e);
    const big x = a.m << static_cast<unsigned>(a.e - e);
    const big y = b.m << static_cast<unsigned>(b.e - e);
    return {subtract ? big(x - y) : big(x + y), e};
}

inline dyadic times(const dyadic& a, const dyadic& b) { return {a.m * b.m, a.e + b.e}; }

/// Rounded to p significant bits, ties to even, with no bound on the exponent.
inline dyadic round_to(dyadic v, int p) {
    if (v.m == 0) return {};
    const bool negative = v.m < 0;
    big mag = negative ? big(-v.m) : v.m;
    const long bits = static_cast<long>(boost::multiprecision::msb(mag)) + 1;
    if (bits > p) {
        const auto shift = static_cast<unsigned>(bits - p);
        const big rest = mag & ((big(1) << shift) - 1);
        const big half = big(1) << (shift - 1);
        mag >>= shift;
        if (rest > half || (rest == half && (mag & 1) != 0)) ++mag;
        v.e += static_cast<long>(shift);
    }
    return {negative ? big(-mag) : mag, v.e};
}

inline bool less_equal(const dyadic& a, const dyadic& b) { return align_add(a, b, true).m <= 0; }

/// The oracle's distance_sq: the sum of the squares of offset(a), every operation rounded
/// to T's precision.
template <class T, std::size_t D, class Offset>
dyadic oracle_sum(Offset offset) {
    constexpr int p = std::numeric_limits<T>::digits;
    dyadic s;
    for (std::size_t a = 0; a < D; ++a) {
        const dyadic d = offset(a);
        const dyadic sq = round_to(times(d, d), p);
        s = a == 0 ? sq : round_to(align_add(s, sq, false), p);
    }
    return s;
}

/// The oracle: distance_sq(p, c) <= r * r with every operation rounded to T's precision.
template <class T, std::size_t D, class Offset>
bool oracle_within(Offset offset, T r) {
    if (std::isinf(r)) return true;
    const dyadic rr = round_to(times(exact(r), exact(r)), std::numeric_limits<T>::digits);
    return less_equal(oracle_sum<T, D>(offset), rr);
}

/// The order of nearest answers on the oracle's (distance, id) pairs.
inline bool oracle_before(const std::pair<dyadic, std::uint32_t>& x, const std::pair<dyadic, std::uint32_t>& y) {
    const bool xy = less_equal(x.first, y.first), yx = less_equal(y.first, x.first);
    return xy != yx ? xy : x.second < y.second;
}

/// A value at any scale of T: a small odd or even integer times a power of two between
/// the subnormals and the top of the range, or one of the edge values themselves.
template <class T>
T extreme_value(rng& g) {
    using lim = std::numeric_limits<T>;
    switch (g.below(8)) {
        case 0: return T(0);
        case 1: return lim::denorm_min() * T(g.integer(1, 40));
        case 2: return lim::max() / T(g.integer(1, 8));
        case 3: return std::sqrt(lim::max()) * T(g.integer(1, 6)) / T(2);
        case 4: return std::sqrt(lim::denorm_min()) * T(g.integer(1, 6));
        default: {
            const int lo = lim::min_exponent - lim::digits, hi = lim::max_exponent - 5;
            return std::ldexp(T(g.integer(1, 31)), static_cast<int>(g.integer(lo, hi)));
        }
    }
}

template <class T>
T signed_extreme(rng& g) {
    const T v = extreme_value<T>(g);
    return g.coin() ? -v : v;
}


}  // namespace exact_oracle
}  // namespace quoct_test

#endif  // QUOCT_TESTS_TEST_EXACT_SUPPORT_HPP
