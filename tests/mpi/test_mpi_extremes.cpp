// The distributed nearest search where squared distances overflow, underflow or become
// subnormal, against one orthtree over every point (tests/mpi/mpi_test_support.hpp).
#include "mpi_test_support.hpp"

using namespace quoct_mpi_test;

TEMPLATE_TEST_CASE("distributed nearest is exact where squares overflow or underflow", "[mpi]", (config<float, 3>),
                   (config<double, 2>)) {
    // Coordinates near the top and the bottom of T's range, where squared distances
    // overflow to infinity or underflow to 0 and so tie in T: the answer must still be the
    // first k by the unbounded squares, as one orthtree over every point gives it.
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    const T huge = std::is_same<T, float>::value ? T(1e30) : T(1e200);
    const T tiny = std::is_same<T, float>::value ? T(1e-30) : T(1e-200);
    // Where squares become subnormal: rounded to a few bits, so a nearer point's rounded
    // square can exceed a farther one's.
    const T partial = std::ldexp(T(1), std::is_same<T, float>::value ? -67 : -537);
    std::mt19937_64 rng(51);  // the same sequence on every rank
    const auto integer = [&rng] { return static_cast<T>(static_cast<int>(rng() % 81) - 40); };
    std::vector<quoct::point<T, D>> all(800);
    for (std::size_t i = 0; i < all.size(); ++i) {
        const T scale = i % 4 == 0 ? huge : i % 4 == 1 ? T(1) : i % 4 == 2 ? tiny : partial;
        for (std::size_t a = 0; a < D; ++a)
            all[i][a] = i % 4 == 3 ? (integer() + static_cast<T>(rng() % 1024) / 1024) * scale : integer() * scale;
    }
    all[7] = all[1];  // a duplicate
    const quoct::mpi::distributed_orthtree<T, D> index(MPI_COMM_WORLD, my_slice(all));
    const quoct::orthtree<T, D> oracle(all);
    std::vector<quoct::point<T, D>> queries = {quoct::point<T, D>{}, all[0], all[1], all[2]};
    for (int i = 0; i < 9; ++i) {
        quoct::point<T, D> p;
        for (std::size_t a = 0; a < D; ++a) p[a] = integer() * (i % 3 == 0 ? huge : i % 3 == 1 ? tiny : partial);
        queries.push_back(p);
    }
    for (const std::size_t k : {std::size_t{1}, std::size_t{5}, std::size_t{60}}) {
        INFO("k " << k << ", ranks " << ranks());
        const auto rows = index.nearest(queries, k);  // every rank asks the same queries
        REQUIRE(rows.rows() == queries.size());
        std::size_t wrong = 0;
        for (std::size_t q = 0; q < queries.size(); ++q) {
            std::vector<quoct::neighbor<T, std::uint32_t>> want;
            oracle.nearest(queries[q], k, want);
            bool same = rows.row(q).size() == want.size();
            for (std::size_t i = 0; same && i < want.size(); ++i)
                same = rows.row(q)[i].id == want[i].id && rows.row(q)[i].distance_sq == want[i].distance_sq;
            wrong += !same;
        }
        CHECK(wrong == 0);
    }
}

TEST_CASE("distributed nearest: a nearer point whose rounded square is larger, on another rank", "[mpi]") {
    // Y's squared distance from the origin is 1.3 * 2^-1074 and X's 1.2 * 2^-1074: X is
    // nearer, but in double Y's rounds to one subnormal step and X's to two. Rank 0 gives Y
    // and the last rank X (one rank: both); the answer must be X, as one orthtree gives it.
    using P = quoct::point<double, 2>;
    const double y = std::sqrt(1.3) * std::ldexp(1.0, -537), x = std::sqrt(0.6) * std::ldexp(1.0, -537);
    const std::vector<P> all = {P{{y, 0}}, P{{x, x}}};
    std::vector<P> mine;
    if (rank_here() == 0) mine.push_back(all[0]);
    if (rank_here() == ranks() - 1) mine.push_back(all[1]);
    const quoct::mpi::distributed_orthtree<double, 2> index(MPI_COMM_WORLD, mine);
    REQUIRE(quoct::distance_sq(all[0], P{}) < quoct::distance_sq(all[1], P{}));  // the rounded squares disagree
    const auto rows = index.nearest({P{}}, 1);
    std::vector<quoct::neighbor<double, std::uint32_t>> want;
    quoct::orthtree<double, 2>(all).nearest(P{}, 1, want);
    REQUIRE(want.size() == 1);
    CHECK(want[0].id == 1);
    REQUIRE(rows.row(0).size() == 1);
    CHECK(rows.row(0)[0].id == want[0].id);
    CHECK(rows.row(0)[0].distance_sq == want[0].distance_sq);
}
