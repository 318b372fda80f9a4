// Shared helpers for the simulation tests (tests/test_sim_*.cpp): fixed-seed random
// points and order-free comparison.
#ifndef QUOCT_TESTS_SIM_COMMON_HPP
#define QUOCT_TESTS_SIM_COMMON_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include <quoct/shapes.hpp>

namespace sim_test {

// The TEMPLATE_TEST_CASE parameter: scalar and dimension together.
template <class T, std::size_t D>
struct space {
    using scalar = T;
    static constexpr std::size_t dim = D;
};
#define SIM_SPACES (sim_test::space<float, 2>), (sim_test::space<float, 3>), (sim_test::space<double, 2>), \
                   (sim_test::space<double, 3>)

template <class T, std::size_t D>
quoct::point<T, D> random_point(std::mt19937_64& rng, T lo, T hi) {
    std::uniform_real_distribution<double> u(static_cast<double>(lo), static_cast<double>(hi));
    quoct::point<T, D> p;
    for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(u(rng));
    return p;
}

// Points on a coarse integer lattice with some duplicates: exact ties and boundary hits.
template <class T, std::size_t D>
quoct::point<T, D> lattice_point(std::mt19937_64& rng, int cells) {
    std::uniform_int_distribution<int> u(0, cells - 1);
    quoct::point<T, D> p;
    for (std::size_t a = 0; a < D; ++a) p[a] = static_cast<T>(u(rng));
    return p;
}

template <class Id>
std::vector<Id> sorted(std::vector<Id> v) {
    std::sort(v.begin(), v.end());
    return v;
}

}  // namespace sim_test

#endif  // QUOCT_TESTS_SIM_COMMON_HPP
