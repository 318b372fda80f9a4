// quoct: outward rounding, a step of the representation at a time: bounds that hold every
// real value a rounded computation may stand for. Dependency-free.
#ifndef QUOCT_DETAIL_ROUNDING_HPP
#define QUOCT_DETAIL_ROUNDING_HPP

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace quoct {
namespace detail {

/// std::nextafter(x, +-inf) for a non-NaN x: for IEEE float and double a step of the
/// representation (the queries call it per point, where the library call would dominate).
template <class T>
T step(T x, bool up) noexcept {
    constexpr T inf = std::numeric_limits<T>::infinity();
    if constexpr (std::numeric_limits<T>::is_iec559 && (sizeof(T) == 4 || sizeof(T) == 8)) {
        using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
        constexpr unsigned top = 8 * sizeof(T) - 1;
        constexpr U inf_bits = static_cast<U>(sizeof(T) == 4 ? 0x7f800000ull : 0x7ff0000000000000ull);
        U u;
        std::memcpy(&u, &x, sizeof u);
        const U magnitude = u & ~(U{1} << top);
        if (magnitude - 1 >= inf_bits - 1) {  // (0 or infinite: the one test for both)
            if (x == (up ? inf : -inf)) return x;
            if (x == 0) return up ? std::numeric_limits<T>::denorm_min() : -std::numeric_limits<T>::denorm_min();
        }
        u = ((u >> top) == 0) == up ? u + 1 : u - 1;  // away from zero: the magnitude bits grow
        std::memcpy(&x, &u, sizeof u);
        return x;
    } else {
        return std::nextafter(x, up ? inf : -inf);
    }
}

/// x - g rounded down and x + g rounded up: every real value within g of x lies between
/// them (a step past the nearest rounding is enough). An infinite x or g gives the
/// infinity on that side, never NaN.
template <class T>
T minus_down(T x, T g) noexcept {
    constexpr T inf = std::numeric_limits<T>::infinity();
    return g == inf || x == -inf ? -inf : step(x - g, false);
}
template <class T>
T plus_up(T x, T g) noexcept {
    constexpr T inf = std::numeric_limits<T>::infinity();
    return g == inf || x == inf ? inf : step(x + g, true);
}

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_ROUNDING_HPP
