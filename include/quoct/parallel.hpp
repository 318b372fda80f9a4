// quoct: batch queries on std::threads, answered as a compressed-row table (quoct::csr,
// quoct/csr.hpp, which this header includes). Optional header; standard library only.
//
// Every function here works on any quoct index with const queries: quoct::orthtree,
// quoct::dynamic_orthtree, quoct::periodic_index. The index is only read, so it must not
// be modified while a batch runs. Results never depend on the number of threads.
#ifndef QUOCT_PARALLEL_HPP
#define QUOCT_PARALLEL_HPP

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "csr.hpp"
#include "detail/morton.hpp"
#include "detail/query_shapes.hpp"
#include "detail/threads.hpp"
#include "shapes.hpp"
#include "orthtree.hpp"

namespace quoct {
namespace detail {

// The point a query is ordered by: a ball's centre, a box's middle, a point itself.
template <class T, std::size_t D>
point<T, D> anchor(const point<T, D>& p) noexcept {
    return p;
}
template <class T, std::size_t D>
point<T, D> anchor(const ball<T, D>& s) noexcept {
    return s.center;
}
template <class T, std::size_t D>
point<T, D> anchor(const box<T, D>& b) noexcept {
    point<T, D> m;
    for (std::size_t a = 0; a < D; ++a) m[a] = b.lo[a] / 2 + b.hi[a] / 2;  // NaN for unbounded: sorts first
    return m;
}

/// Items handed out to workers in chunks of this many, in spatial order when asked.
constexpr std::size_t batch_chunk = 256;

/// What one chunk of work produced: its rows back to back, each tagged with the row number
/// it belongs to in the final table.
template <class V>
struct chunk_rows {
    std::vector<V> values;
    std::vector<std::pair<std::size_t, std::size_t>> ends;  // (row, end of that row in values)

    void close_row(std::size_t row) { ends.emplace_back(row, values.size()); }
};

/// Puts the rows of every chunk into one csr with `rows` rows (rows no chunk produced are
/// empty). Each row must come from one chunk only. Copies on `threads` threads.
template <class V>
csr<V> assemble(std::vector<chunk_rows<V>>& outs, std::size_t rows, unsigned threads) {
    csr<V> table;
    table.offsets.assign(rows + 1, 0);
    for (const auto& o : outs)
        for (std::size_t j = 0; j < o.ends.size(); ++j)
            table.offsets[o.ends[j].first + 1] = o.ends[j].second - (j == 0 ? 0 : o.ends[j - 1].second);
    for (std::size_t i = 0; i < rows; ++i) table.offsets[i + 1] += table.offsets[i];
    table.values.resize(table.offsets[rows]);
    for_each_chunk(outs.size(), threads, [&](std::size_t c) {
        chunk_rows<V>& o = outs[c];
        for (std::size_t j = 0; j < o.ends.size(); ++j) {
            const std::size_t from = j == 0 ? 0 : o.ends[j - 1].second;
            std::copy(o.values.begin() + static_cast<std::ptrdiff_t>(from),
                      o.values.begin() + static_cast<std::ptrdiff_t>(o.ends[j].second),
                      table.values.begin() + static_cast<std::ptrdiff_t>(table.offsets[o.ends[j].first]));
        }
        std::vector<V>().swap(o.values);
    });
    return table;
}

/// Runs row(i, out) for items 0..n-1 (appending row i to the std::vector<V> out) on
/// `threads` threads, items taken in `order` (empty: 0..n-1), and gathers the rows into a
/// csr by item.
template <class V, class Row>
csr<V> gather_rows(std::size_t n, const std::vector<std::size_t>& order, unsigned threads, Row&& row) {
    const std::size_t chunks = (n + batch_chunk - 1) / batch_chunk;
    std::vector<chunk_rows<V>> outs(chunks);
    for_each_chunk(chunks, threads, [&](std::size_t c) {
        chunk_rows<V>& o = outs[c];
        const std::size_t b = c * batch_chunk, e = std::min(n, b + batch_chunk);
        o.ends.reserve(e - b);
        for (std::size_t k = b; k < e; ++k) {
            const std::size_t item = order.empty() ? k : order[k];
            row(item, o.values);
            o.close_row(item);
        }
    });
    return assemble(outs, n, threads);
}

/// The rows of a table of pairs (row a holds the b of each pair (a, b)) as one list of
/// pairs, by row.
template <class Id>
std::vector<std::pair<Id, Id>> pairs_of_rows(const csr<Id>& rows) {
    std::vector<std::pair<Id, Id>> pairs;
    pairs.reserve(rows.values.size());
    for (std::size_t a = 0; a < rows.rows(); ++a)
        for (Id b : rows.row(a)) pairs.emplace_back(static_cast<Id>(a), b);
    return pairs;
}

template <class Query>
std::vector<std::size_t> query_order(const Query* queries, std::size_t n, bool spatial) {
    if (!spatial || n < 2 * batch_chunk) return {};
    using P = decltype(anchor(queries[0]));
    std::vector<P> anchors(n);
    for (std::size_t i = 0; i < n; ++i) anchors[i] = anchor(queries[i]);
    return detail::morton_order(anchors.data(), n, bounds_of(anchors.data(), n));
}

}  // namespace detail

/// Runs fn(i) for i = 0..n-1 on `threads` std::threads (0: one per hardware thread; the
/// calling thread takes part), in chunks of `grain`. fn must be safe to call concurrently
/// for different i. The first exception fn throws is rethrown after all threads joined
/// (some i may then not have run).
template <class Fn>
void parallel_for(std::size_t n, unsigned threads, Fn&& fn, std::size_t grain = 1024) {
    if (grain == 0) grain = 1;
    const std::size_t chunks = (n + grain - 1) / grain;
    detail::for_each_chunk(chunks, threads, [&](std::size_t c) {
        const std::size_t e = std::min(n, (c + 1) * grain);
        for (std::size_t i = c * grain; i < e; ++i) fn(i);
    });
}

/// Answers n queries (balls or boxes, anything index.query accepts) on `threads` threads
/// (0: one per hardware thread). Row i of the result holds exactly what index.query(
/// queries[i]) returns, in the same order, whatever the thread count. With
/// spatial_order the queries are run in Morton order of their centres, which keeps the
/// tree's nodes in cache (the rows are still by input position). Throws what
/// index.query throws (std::invalid_argument for a bad query); nothing is returned then.
template <class Index, class Query>
auto batch_query(const Index& index, const Query* queries, std::size_t n, unsigned threads = 1,
                 bool spatial_order = true) {
    using Id = typename Index::id_type;
    const auto order = detail::query_order(queries, n, spatial_order);
    return detail::gather_rows<Id>(n, order, threads, [&](std::size_t i, std::vector<Id>& out) {
        thread_local std::vector<Id> row;
        index.query(queries[i], row);
        out.insert(out.end(), row.begin(), row.end());
    });
}

/// As batch_query, for a std::vector of queries.
template <class Index, class Query>
auto batch_query(const Index& index, const std::vector<Query>& queries, unsigned threads = 1,
                 bool spatial_order = true) {
    return batch_query(index, queries.data(), queries.size(), threads, spatial_order);
}

/// index.count(queries[i]) for every i, on `threads` threads. Throws as batch_query.
template <class Index, class Query>
std::vector<std::size_t> batch_count(const Index& index, const Query* queries, std::size_t n,
                                     unsigned threads = 1, bool spatial_order = true) {
    const auto order = detail::query_order(queries, n, spatial_order);
    std::vector<std::size_t> counts(n);
    parallel_for(
        n, threads, [&](std::size_t k) {
            const std::size_t i = order.empty() ? k : order[k];
            counts[i] = index.count(queries[i]);
        },
        detail::batch_chunk);
    return counts;
}

/// Row i holds index.nearest(points[i], k) as quoct::neighbor values (id, distance_sq),
/// closest first, on `threads` threads. Throws as index.nearest.
template <class Index>
auto batch_nearest(const Index& index, const typename Index::point_type* points, std::size_t n, std::size_t k,
                   unsigned threads = 1, bool spatial_order = true) {
    using N = neighbor<typename Index::scalar_type, typename Index::id_type>;
    const auto order = detail::query_order(points, n, spatial_order);
    return detail::gather_rows<N>(n, order, threads, [&](std::size_t i, std::vector<N>& out) {
        thread_local std::vector<N> row;
        index.nearest(points[i], k, row);
        out.insert(out.end(), row.begin(), row.end());
    });
}

}  // namespace quoct

#endif  // QUOCT_PARALLEL_HPP
