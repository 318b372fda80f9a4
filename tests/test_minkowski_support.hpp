// quoct tests: the Minkowski predicate written out as an oracle (<quoct/minkowski.hpp>): per-axis
// gaps, under the minimum image when the periods are given, combined for p = 1, 2, infinity
// and general p; every id within a radius and the first k by (value, id). Used by
// core/test_minkowski.cpp and periodic/test_periodic.cpp.
#ifndef QUOCT_TESTS_TEST_MINKOWSKI_SUPPORT_HPP
#define QUOCT_TESTS_TEST_MINKOWSKI_SUPPORT_HPP

#include <quoct/minkowski.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

// In a namespace of its own: brute_ball and brute_nearest here take a norm, and would be
// overloads of test_support.hpp's in quoct_test.
namespace quoct_test {
namespace minkowski_oracle {

// The predicate, written out here as the oracle: per-axis gaps (min-image when lengths are
// given), combined in axis order, compared with the radius's own term.
template <class T, std::size_t D>
T oracle_sum(const quoct::point<T, D>& a, const quoct::point<T, D>& b, quoct::norm n,
             const std::array<T, D>* lengths = nullptr) {
    T s = 0;
    for (std::size_t i = 0; i < D; ++i) {
        T g = std::abs(a[i] - b[i]);
        if (lengths && (*lengths)[i] > 0) g = std::min(g, (*lengths)[i] - g);
        switch (n.kind()) {
            case quoct::norm::kind_type::l1: s = s + g; break;
            case quoct::norm::kind_type::linf: s = std::max(s, g); break;
            case quoct::norm::kind_type::l2: s = s + g * g; break;
            case quoct::norm::kind_type::lp: s = s + std::pow(g, static_cast<T>(n.p())); break;
        }
    }
    return s;
}
template <class T>
T oracle_bound(T r, quoct::norm n) {
    switch (n.kind()) {
        case quoct::norm::kind_type::l2: return r * r;
        case quoct::norm::kind_type::lp: return std::pow(r, static_cast<T>(n.p()));
        default: return r;
    }
}
template <class T>
T oracle_distance(T s, quoct::norm n) {
    switch (n.kind()) {
        case quoct::norm::kind_type::l2: return std::sqrt(s);
        case quoct::norm::kind_type::lp: return std::pow(s, T(1) / static_cast<T>(n.p()));
        default: return s;
    }
}

inline std::string name_of(quoct::norm n) {
    switch (n.kind()) {
        case quoct::norm::kind_type::l1: return "l1";
        case quoct::norm::kind_type::l2: return "l2";
        case quoct::norm::kind_type::linf: return "linf";
        default: return "p = " + std::to_string(n.p());
    }
}

// Every id within r by the predicate, in increasing order.
template <class T, std::size_t D>
std::vector<std::uint32_t> brute_ball(const std::vector<quoct::point<T, D>>& pts, const quoct::point<T, D>& c, T r,
                                      quoct::norm n, const std::array<T, D>* lengths = nullptr) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 0; i < pts.size(); ++i)
        if (oracle_sum(pts[i], c, n, lengths) <= oracle_bound(r, n)) out.push_back(i);
    return out;
}

// The first k of every point within r sorted by (combined value, id), with the distances.
template <class T, std::size_t D>
std::vector<std::pair<T, std::uint32_t>> brute_nearest(const std::vector<quoct::point<T, D>>& pts,
                                                       const quoct::point<T, D>& c, std::size_t k, quoct::norm n, T r,
                                                       const std::array<T, D>* lengths = nullptr) {
    std::vector<std::pair<T, std::uint32_t>> all;
    for (std::uint32_t i = 0; i < pts.size(); ++i) {
        const T s = oracle_sum(pts[i], c, n, lengths);
        if (s <= oracle_bound(r, n)) all.emplace_back(s, i);
    }
    std::sort(all.begin(), all.end());
    all.resize(std::min(k, all.size()));
    for (auto& x : all) x.first = oracle_distance(x.first, n);
    return all;
}

inline const std::vector<quoct::norm> all_norms = {quoct::norm::l1, quoct::norm::linf, quoct::norm::l2,
                                                   quoct::norm::minkowski(3), quoct::norm::minkowski(1.5),
                                                   quoct::norm::minkowski(100)};

}  // namespace minkowski_oracle
}  // namespace quoct_test

#endif  // QUOCT_TESTS_TEST_MINKOWSKI_SUPPORT_HPP
