// quoct internals: argument checks shared by every index. Each throws std::invalid_argument
// with a message that says what was wrong, before anything is changed.
#ifndef QUOCT_DETAIL_VALIDATE_HPP
#define QUOCT_DETAIL_VALIDATE_HPP

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "../shapes.hpp"

namespace quoct {
namespace detail {

template <class T, std::size_t D>
void check_point(const point<T, D>& p, const char* what) {
    if (!is_finite(p)) throw std::invalid_argument(std::string("quoct: ") + what + " has a NaN or infinite coordinate");
}

template <class T>
void check_radius(T radius, const char* what) {
    if (std::isnan(radius)) throw std::invalid_argument(std::string("quoct: ") + what + " radius is NaN");
    if (radius < 0) throw std::invalid_argument(std::string("quoct: ") + what + " radius is negative");
}

template <class T, std::size_t D>
void check_ball(const ball<T, D>& s) {
    check_point(s.center, "ball centre");
    check_radius(s.radius, "ball");
}

/// A query box may reach to infinity (a half-space is a fine query), but not hold NaN or be inverted.
template <class T, std::size_t D>
void check_box(const box<T, D>& b) {
    for (std::size_t i = 0; i < D; ++i) {
        if (std::isnan(b.lo[i]) || std::isnan(b.hi[i]))
            throw std::invalid_argument("quoct: box has a NaN coordinate on axis " + std::to_string(i));
        if (b.lo[i] > b.hi[i])
            throw std::invalid_argument("quoct: box is inverted (lo > hi) on axis " + std::to_string(i));
    }
}

inline void check_k(std::size_t k) {
    if (k == 0) throw std::invalid_argument("quoct: nearest needs k >= 1");
}

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_VALIDATE_HPP
