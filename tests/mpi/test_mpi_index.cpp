// The distributed index against brute force: partition, queries, nearest and pairs, updates,
// bad input on one rank, empty ranks (tests/mpi/mpi_test_support.hpp says how).
#include "mpi_test_support.hpp"

// Every non-template member compiles (as tests/core/test_public_api.cpp does for the other
// indexes); the member templates, the constructor from a range and for_each_pair_within
// with f(i, j) and f(i, j, d2), are called by the cases below and mpi_test_support.hpp.
template class quoct::mpi::distributed_orthtree<double, 3>;

using namespace quoct_mpi_test;

TEMPLATE_TEST_CASE("distributed index: partition, queries, nearest and pairs match brute force", "[mpi]",
                   QUOCT_MPI_TEST_CONFIGS) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    for (const shape s : all_shapes) {
        INFO("data: " << name_of(s) << ", ranks: " << ranks());
        const auto all = global_points<T, D>(s, 1200);
        const quoct::mpi::distributed_orthtree<T, D> index(MPI_COMM_WORLD, my_slice(all));
        check_partition(index, all);
        check_queries(index, all, my_balls(all, 1));
        check_queries(index, all, my_boxes(all, 2));
        check_nearest(index, all, 1, 3);
        check_nearest(index, all, 9, 4);
        check_nearest(index, all, all.size() + 3, 5);
        check_pairs(index, all, T(2.5));
        check_pairs(index, all, T(0));  // equal points only
    }
}

TEMPLATE_TEST_CASE("distributed index: update migrates points and keeps the balance", "[mpi]", (config<float, 2>),
                   (config<double, 3>)) {
    using T = typename TestType::scalar;
    constexpr std::size_t D = TestType::dim;
    for (const shape s : all_shapes) {
        INFO("data: " << name_of(s) << ", ranks: " << ranks());
        auto all = global_points<T, D>(s, 1000);
        quoct::mpi::distributed_orthtree<T, D> index(MPI_COMM_WORLD, my_slice(all));
        for (int step = 0; step < 5; ++step) {
            INFO("step " << step);
            std::vector<quoct::point<T, D>> next(index.owned_size());
            for (std::size_t i = 0; i < next.size(); ++i) next[i] = moved(index.owned_ids()[i], index.owned_points()[i], step);
            for (std::size_t i = 0; i < all.size(); ++i) all[i] = moved(static_cast<gid>(i), all[i], step);
            index.update(next);
            check_partition(index, all);
            check_queries(index, all, my_balls(all, 10 + static_cast<unsigned>(step)));
            check_nearest(index, all, 4, 20 + static_cast<unsigned>(step));
            check_pairs(index, all, T(1.75));
        }
    }
}

TEST_CASE("distributed index: bad input on one rank throws on every rank, index unchanged", "[mpi]") {
    using P = quoct::point<double, 3>;
    const auto all = global_points<double, 3>(shape::uniform, 400);
    const bool last = rank_here() == ranks() - 1;
    auto mine = my_slice(all);
    if (last) mine.push_back(P{{1, std::nan(""), 2}});
    CHECK_THROWS_AS((quoct::mpi::distributed_octree<double>(MPI_COMM_WORLD, mine)), std::invalid_argument);
    if (last) mine.pop_back();

    quoct::mpi::distributed_octree<double> index(MPI_COMM_WORLD, mine);
    const std::vector<gid> before = index.owned_ids();
    std::vector<quoct::ball<double, 3>> balls{{{{1, 2, 3}}, 4.0}};
    if (last) balls.push_back({{{1, 2, 3}}, -1.0});
    CHECK_THROWS_AS(index.query(balls), std::invalid_argument);
    CHECK_THROWS_AS(index.count(balls), std::invalid_argument);
    CHECK_THROWS_AS(index.query_with_distances(balls), std::invalid_argument);
    std::vector<quoct::box<double, 3>> boxes{{{{0, 0, 0}}, {{1, 1, 1}}}};
    if (last) boxes.push_back({{{2, 0, 0}}, {{1, 1, 1}}});
    CHECK_THROWS_AS(index.query(boxes), std::invalid_argument);
    CHECK_THROWS_AS(index.nearest({P{{1, 2, 3}}}, last ? 0 : 3), std::invalid_argument);
    CHECK_THROWS_AS(index.nearest({P{{1, 2, last ? INFINITY : 3.0}}}, 3), std::invalid_argument);
    CHECK_THROWS_AS(index.neighbor_lists(last ? -1.0 : 1.0), std::invalid_argument);
    if (ranks() > 1) CHECK_THROWS_AS(index.neighbor_lists(last ? 2.0 : 1.0), std::invalid_argument);
    CHECK_THROWS_AS(index.for_each_pair_within(last ? std::nan("") : 1.0, [](gid, gid) {}), std::invalid_argument);
    std::vector<P> wrong_size(index.owned_points());
    if (last) wrong_size.push_back(P{{0, 0, 0}});
    CHECK_THROWS_AS(index.update(wrong_size), std::invalid_argument);
    std::vector<P> nan_move(index.owned_points());
    if (last && !nan_move.empty()) nan_move[0][1] = std::nan("");
    if (last && nan_move.empty()) nan_move.push_back(P{{0, 0, 0}});  // wrong size then: throws as well
    CHECK_THROWS_AS(index.update(nan_move), std::invalid_argument);
    // Unchanged: the same points, and answers still exact.
    CHECK(index.owned_ids() == before);
    check_partition(index, all);
    check_queries(index, all, my_balls(all, 7));
    check_pairs(index, all, 2.5);
    // The message names the rank that failed.
    try {
        index.query(balls);
    } catch (const std::invalid_argument& e) {
        CHECK(std::string(e.what()).find("rank " + std::to_string(ranks() - 1)) != std::string::npos);
    }
}

TEST_CASE("distributed index: empty index and fewer points than ranks", "[mpi]") {
    using P = quoct::point<float, 2>;
    for (const std::size_t n : {std::size_t{0}, std::size_t{2}, std::size_t{5}}) {
        INFO("points: " << n);
        const auto all = global_points<float, 2>(shape::uniform, n);
        quoct::mpi::distributed_quadtree<float> index(MPI_COMM_WORLD, my_slice(all));
        check_partition(index, all);
        const std::vector<quoct::ball<float, 2>> balls{{{{10, 10}}, 100.0f}, {{{0, 0}}, 0.0f}};
        const auto rows = index.query(balls);
        CHECK(rows.rows() == 2);
        CHECK(rows.row(0).size() == n);
        const auto near = index.nearest({P{{3, 4}}}, 3);
        CHECK(near.rows() == 1);
        CHECK(near.row(0).size() == std::min<std::size_t>(3, n));
        std::size_t pairs = 0;
        index.for_each_pair_within(1000.0f, [&](gid, gid) { ++pairs; });
        const std::vector<std::size_t> all_pairs = gather(std::vector<std::size_t>{pairs});
        if (rank_here() == 0) {
            std::size_t total = 0;
            for (const std::size_t c : all_pairs) total += c;
            CHECK(total == n * (n - (n != 0)) / 2);
        }
        std::vector<P> same(index.owned_points());
        index.update(same);
        check_partition(index, all);
    }
}
