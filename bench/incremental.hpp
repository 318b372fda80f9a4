// quoct benchmarks: the incremental workload. Points of the bunny set arrive in batches in
// their input (scan) order, as from a LiDAR sweep; after each batch a fixed set of knn5
// queries is answered (random points among those inserted so far). Then a few steps each
// move 1% of the points (random ones, by a small random offset) and answer the queries
// again. quoct's dynamic_orthtree against nanoflann's KDTreeSingleIndexDynamicAdaptor, on
// the same points and queries, in the same binary; insert, knn5 and move are timed apart
// with a steady clock, one whole scenario per iteration.
//
// nanoflann's dynamic adaptor indexes the positions of a point array it reads on every
// query, so a moved point is appended to that array under a new position and the old
// position removed (removePoint); a table maps positions back to ids. Its memory is its
// trees' node pools and index arrays, its tree-of-each-position table and the point array.
// Both answers are checked against each other: the same distances for every query.
#ifndef QUOCT_BENCH_INCREMENTAL_HPP
#define QUOCT_BENCH_INCREMENTAL_HPP

#include <quoct/dynamic.hpp>

// nanoflann 1.4's dynamic adaptor copies a half-initialised tree in init(); GCC warns there.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <nanoflann.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "datasets.hpp"

namespace quoct_bench {

/// What an incremental run measured (seconds, and bytes at the end of the inserts).
struct incremental_result {
    double insert_seconds = 0;
    double query_seconds = 0;
    double move_seconds = 0;
    std::size_t inserted = 0, queries = 0, moved = 0;
    double bytes_per_point = 0;
    double checksum = 0;  // sum of every knn5 distance_sq (float): must agree between peers
};

using fpoint = quoct::point<float, 3>;

/// The scenario's fixed inputs: points in arrival order, query points per phase, moves.
struct incremental_plan {
    std::vector<fpoint> points;
    std::size_t batch = 10000;
    std::size_t queries_per_phase = 1000;
    std::size_t move_steps = 10;
    std::vector<std::vector<fpoint>> queries;  // after batch b (then after move step s)
    std::vector<std::vector<std::pair<id_t, fpoint>>> moves;  // per move step: id -> new point
};

inline incremental_plan make_incremental_plan(const std::vector<point<3>>& pts, std::size_t batch) {
    incremental_plan plan;
    plan.points.resize(pts.size());
    for (std::size_t i = 0; i < pts.size(); ++i)
        for (std::size_t a = 0; a < 3; ++a) plan.points[i][a] = static_cast<float>(pts[i][a]);
    plan.batch = batch;
    const std::size_t n = plan.points.size();
    if (n < 2) throw std::invalid_argument("incremental: too few points");
    rng r(0x1ace);
    // Offsets of about the spacing of neighbours: a hundredth of the extent's cube root share.
    float lo[3], hi[3];
    for (std::size_t a = 0; a < 3; ++a) lo[a] = hi[a] = plan.points[0][a];
    for (const auto& p : plan.points)
        for (std::size_t a = 0; a < 3; ++a) lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
    const double step = (hi[0] - lo[0]) * 0.002;
    const auto jitter = [&](fpoint p) {
        for (std::size_t a = 0; a < 3; ++a) p[a] += static_cast<float>((r.uniform() - 0.5) * step);
        return p;
    };
    for (std::size_t done = 0; done < n;) {
        done = std::min(n, done + batch);
        std::vector<fpoint> q(plan.queries_per_phase);
        for (auto& c : q) c = jitter(plan.points[r.index(done)]);
        plan.queries.push_back(std::move(q));
    }
    std::vector<fpoint> now = plan.points;
    for (std::size_t s = 0; s < plan.move_steps; ++s) {
        std::vector<std::pair<id_t, fpoint>> m(n / 100);
        for (auto& mv : m) {
            const std::size_t id = r.index(n);
            now[id] = jitter(now[id]);
            mv = {static_cast<id_t>(id), now[id]};
        }
        plan.moves.push_back(std::move(m));
        std::vector<fpoint> q(plan.queries_per_phase);
        for (auto& c : q) c = jitter(now[r.index(n)]);
        plan.queries.push_back(std::move(q));
    }
    return plan;
}

using steady = std::chrono::steady_clock;
inline double seconds_since(steady::time_point t) {
    return std::chrono::duration<double>(steady::now() - t).count();
}

/// quoct::dynamic_octree<float>: insert one by one, nearest(p, 5), move(id, p).
struct quoct_incremental {
    static constexpr const char* name = "quoct";
    static incremental_result run(const incremental_plan& plan) {
        incremental_result res;
        quoct::dynamic_octree<float, id_t> index;
        std::vector<quoct::neighbor<float, id_t>> found;
        const auto answer = [&](const std::vector<fpoint>& qs) {
            const auto t = steady::now();
            for (const auto& c : qs) {
                index.nearest(c, 5, found);
                for (const auto& f : found) res.checksum += f.distance_sq;
            }
            res.query_seconds += seconds_since(t);
            res.queries += qs.size();
        };
        std::size_t phase = 0;
        for (std::size_t done = 0; done < plan.points.size();) {
            const std::size_t end = std::min(plan.points.size(), done + plan.batch);
            const auto t = steady::now();
            for (; done < end; ++done) index.insert(plan.points[done]);
            res.insert_seconds += seconds_since(t);
            answer(plan.queries[phase++]);
        }
        res.inserted = plan.points.size();
        res.bytes_per_point = static_cast<double>(index.memory_bytes()) / static_cast<double>(res.inserted);
        for (const auto& step : plan.moves) {
            const auto t = steady::now();
            for (const auto& [id, p] : step) index.move(id, p);
            res.move_seconds += seconds_since(t);
            res.moved += step.size();
            answer(plan.queries[phase++]);
        }
        return res;
    }
};

/// nanoflann's KDTreeSingleIndexDynamicAdaptor (leaf size 16, as the static peer).
struct nanoflann_incremental {
    static constexpr const char* name = "nanoflann";
    struct cloud {
        std::vector<fpoint> pts;
        std::size_t kdtree_get_point_count() const { return pts.size(); }
        float kdtree_get_pt(std::size_t i, std::size_t axis) const { return pts[i][axis]; }
        template <class Bbox>
        bool kdtree_get_bbox(Bbox&) const {
            return false;
        }
    };
    using index_type =
        nanoflann::KDTreeSingleIndexDynamicAdaptor<nanoflann::L2_Simple_Adaptor<float, cloud, float>, cloud, 3>;

    static incremental_result run(const incremental_plan& plan) {
        incremental_result res;
        cloud data;
        data.pts.reserve(plan.points.size() + plan.moves.size() * plan.points.size() / 100);
        std::vector<std::size_t> position(plan.points.size());  // id -> current position
        index_type index(3, data, nanoflann::KDTreeSingleIndexAdaptorParams(16));
        std::size_t ids[5];
        float dist[5];
        const auto answer = [&](const std::vector<fpoint>& qs) {
            const auto t = steady::now();
            for (const auto& c : qs) {
                nanoflann::KNNResultSet<float> set(5);
                set.init(ids, dist);
                index.findNeighbors(set, c.coords, nanoflann::SearchParams());
                for (std::size_t i = 0; i < set.size(); ++i) res.checksum += dist[i];
            }
            res.query_seconds += seconds_since(t);
            res.queries += qs.size();
        };
        std::size_t phase = 0;
        for (std::size_t done = 0; done < plan.points.size();) {
            const std::size_t end = std::min(plan.points.size(), done + plan.batch);
            const auto t = steady::now();
            data.pts.insert(data.pts.end(), plan.points.begin() + static_cast<std::ptrdiff_t>(done),
                            plan.points.begin() + static_cast<std::ptrdiff_t>(end));
            index.addPoints(done, end - 1);
            for (; done < end; ++done) position[done] = done;
            res.insert_seconds += seconds_since(t);
            answer(plan.queries[phase++]);
        }
        res.inserted = plan.points.size();
        res.bytes_per_point = static_cast<double>(memory_bytes(index, data)) / static_cast<double>(res.inserted);
        for (const auto& step : plan.moves) {
            const auto t = steady::now();
            for (const auto& [id, p] : step) {
                index.removePoint(position[id]);
                position[id] = data.pts.size();
                data.pts.push_back(p);
                index.addPoints(position[id], position[id]);
            }
            res.move_seconds += seconds_since(t);
            res.moved += step.size();
            answer(plan.queries[phase++]);
        }
        return res;
    }

    static std::size_t memory_bytes(const index_type& index, const cloud& data) {
        std::size_t bytes = data.pts.capacity() * sizeof(fpoint);
        for (const auto& tree : index.getAllIndices())
            bytes += tree.pool.usedMemory + tree.pool.wastedMemory + tree.vAcc.capacity() * sizeof(tree.vAcc[0]);
        return bytes + data.pts.size() * sizeof(int);  // its tree-of-each-position table
    }
};

}  // namespace quoct_bench

#endif  // QUOCT_BENCH_INCREMENTAL_HPP
