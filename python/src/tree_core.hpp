// quoct._core.TreeD and TreeDf (D = 1..8; f: float32): the static tree behind quoct.Tree,
// plain or periodic, over float64 or float32 coordinates. The template lives here; the
// translation units tree64.cpp, tree64_high.cpp and tree32.cpp instantiate it for some
// dimensions each (so that they build in parallel), and tree.cpp binds the module-level
// functions.
#ifndef QUOCT_PYTHON_TREE_CORE_HPP
#define QUOCT_PYTHON_TREE_CORE_HPP

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <quoct/pairs.hpp>
#include <quoct/periodic.hpp>

#include "common.hpp"
#include "persist.hpp"

namespace quoct_py {

/// The coordinate arrays a tree of T is built from (float64 or float32, C-contiguous).
template <class T>
using coord_array = py::array_t<T, py::array::c_style | py::array::forcecast>;

/// A tree's coordinates as a numpy array of its own type.
template <class T>
using out_array = py::array_t<T>;

template <class T, std::size_t D>
class tree_core {
public:
    using tree_type = quoct::orthtree<T, D, id_type>;
    using periodic_type = quoct::periodic_orthtree<T, D, id_type>;
    using point_type = quoct::point<T, D>;
    using ball_type = quoct::ball<T, D>;

    // boxsize: empty for an ordinary tree, else D lengths (0: that axis does not wrap),
    // rounded to T.
    tree_core(const coord_array<T>& data, std::size_t leafsize, const darray& boxsize) {
        if (data.ndim() != 2 || static_cast<std::size_t>(data.shape(1)) != D)
            throw std::invalid_argument("quoct: data must have shape (n, " + std::to_string(D) + ")");
        const std::size_t n = static_cast<std::size_t>(data.shape(0));
        quoct::build_options options;
        options.leaf_size = leafsize;
        const T* pts = data.data();  // n rows of D coordinates: the flat constructors
        if (boxsize.size() == 0) {
            py::gil_scoped_release nogil;
            plain_.emplace(pts, n, options);
            release_free_memory(n);
            return;
        }
        if (boxsize.ndim() != 1 || static_cast<std::size_t>(boxsize.shape(0)) != D)
            throw std::invalid_argument("quoct: boxsize must have one length per dimension");
        quoct::periodic_domain<T, D> domain;
        for (std::size_t a = 0; a < D; ++a) domain.length[a] = static_cast<T>(boxsize.data()[a]);
        py::gil_scoped_release nogil;
        periodic_.emplace(domain, pts, n, options);
        release_free_memory(n);
    }

    explicit tree_core(tree_type t) : plain_(std::move(t)) {}
    explicit tree_core(periodic_type p) : periodic_(std::move(p)) {}

    std::size_t n() const noexcept { return base().size(); }
    std::size_t leafsize() const noexcept { return base().options().leaf_size; }
    // The periods (0: that axis does not wrap), or None.
    py::object boxsize() const {
        if (!periodic_) return py::none();
        point_type length;
        for (std::size_t a = 0; a < D; ++a) length[a] = periodic_->domain().length[a];
        return corner(length);
    }
    // The points by id, (n, D): what the tree stores, in input order, in its own type.
    out_array<T> points() const {
        out_array<T> out({n(), D});
        T* o = out.mutable_data();
        if (n() != 0) {
            py::gil_scoped_release nogil;
            (void)base().stored_ids();  // each id once (checked here on a tree mapped lazily)
            base().visit(base().bounds(), [&](id_type id, const point_type& p) {
                for (std::size_t a = 0; a < D; ++a) o[std::size_t{id} * D + a] = p[a];
            });
        }
        return out;
    }
    py::bytes to_bytes() const { return periodic_ ? bytes_of(*periodic_) : bytes_of(*plain_); }
    void save(const std::string& path) const { periodic_ ? save_to(*periodic_, path) : save_to(*plain_, path); }
    std::size_t node_count() const noexcept { return base().node_count(); }
    // The ids in storage order (cKDTree's indices): node i's points are a run of it.
    iarray indices() const {
        iarray out(static_cast<py::ssize_t>(n()));
        const id_type* ids = n() ? base().stored_ids() : nullptr;
        std::int64_t* o = out.mutable_data();
        for (std::size_t i = 0; i < n(); ++i) o[i] = ids[i];
        return out;
    }
    // The neighbourhoods of stored positions [start, start + count) (quoct/neighbourhoods.hpp's
    // queries, a chunk at a time): k nearest when k > 0, else every point within r, nearest
    // first by (distance, id). (ids, indices, distances, offsets): point j of the chunk has
    // id ids[j] and neighbours indices[offsets[j]:offsets[j + 1]].
    py::tuple neighbourhoods(std::size_t start, std::size_t count, std::size_t k, double r) const {
        if (periodic_) throw py::value_error("quoct: iter_neighbourhoods is not offered for a periodic tree");
        const tree_type& t = *plain_;
        const std::size_t end = std::min(t.size(), start + std::min(count, t.size()));
        std::vector<std::int64_t> ids, indices, offsets{0};
        std::vector<double> distances;
        {
            py::gil_scoped_release release;
            std::vector<quoct::neighbor<T, id_type>> hood;
            const T radius = static_cast<T>(r);
            for (std::size_t i = std::min(start, end); i < end; ++i) {
                const point_type p = t.stored_point(i);
                if (k != 0) t.nearest(p, k, hood);
                else t.query(quoct::ball<T, D>{p, radius}, hood, quoct::result_order::nearest_first);
                ids.push_back(t.stored_ids()[i]);
                for (const auto& h : hood) indices.push_back(h.id), distances.push_back(std::sqrt(double(h.distance_sq)));
                offsets.push_back(static_cast<std::int64_t>(indices.size()));
            }
        }
        const auto array = [](const auto& v) {
            using V = typename std::decay_t<decltype(v)>::value_type;
            py::array_t<V> out(static_cast<py::ssize_t>(v.size()));
            std::copy(v.begin(), v.end(), out.mutable_data());
            return out;
        };
        return py::make_tuple(array(ids), array(indices), array(distances), array(offsets));
    }
    // Node i: (begin, end, subtree_end, mins, maxes); see orthtree::node_info.
    py::tuple node(std::size_t i) const {
        const auto info = base().node_at(i);
        return py::make_tuple(info.begin, info.end, info.subtree_end, corner(info.box.lo), corner(info.box.hi));
    }
    bool periodic() const noexcept { return periodic_.has_value(); }
    py::array_t<double> mins() const { return corner(base().bounds().lo); }
    py::array_t<double> maxes() const { return corner(base().bounds().hi); }
    // numpy's name of the coordinate type.
    static const char* dtype() noexcept { return std::is_same<T, float>::value ? "float32" : "float64"; }

    // Ids within r[i] of x[i], one Python list per query, as a 1-D object array.
    py::array ball(const darray& x, const darray& r, unsigned threads, bool sorted) const {
        auto balls = balls_of<D, T>(x, r);
        rows_type rows;
        {
            py::gil_scoped_release nogil;
            wrap_centres(balls);
            rows = periodic_ ? quoct::batch_query(*periodic_, balls.data(), balls.size(), threads)
                             : quoct::batch_query(*plain_, balls.data(), balls.size(), threads);
            if (sorted) sort_rows(rows, n(), threads);
        }
        return object_array_of_lists(rows, n());
    }

    iarray ball_count(const darray& x, const darray& r, unsigned threads) const {
        auto balls = balls_of<D, T>(x, r);
        std::vector<std::size_t> counts;
        {
            py::gil_scoped_release nogil;
            wrap_centres(balls);
            counts = periodic_ ? quoct::batch_count(*periodic_, balls.data(), balls.size(), threads)
                               : quoct::batch_count(*plain_, balls.data(), balls.size(), threads);
        }
        return int_array(counts);
    }

    // Minkowski p (>= 1; 2 answers here too), plain or periodic (minimum image, query
    // points wrapped into the box as for p = 2): ball lists (sorted or not), ball counts,
    // k nearest with the distances themselves.
    py::array ball_norm(const darray& x, const darray& r, unsigned threads, bool sorted, double p) const {
        auto balls = balls_of<D, T>(x, r);
        rows_type rows;
        {
            py::gil_scoped_release nogil;
            wrap_centres(balls);
            with_view(p, [&](const auto& v) { rows = quoct::batch_query(v, balls.data(), balls.size(), threads); });
            if (sorted) sort_rows(rows, n(), threads);
        }
        return object_array_of_lists(rows, n());
    }
    iarray ball_count_norm(const darray& x, const darray& r, unsigned threads, double p) const {
        auto balls = balls_of<D, T>(x, r);
        std::vector<std::size_t> counts;
        {
            py::gil_scoped_release nogil;
            wrap_centres(balls);
            with_view(p, [&](const auto& v) { counts = quoct::batch_count(v, balls.data(), balls.size(), threads); });
        }
        return int_array(counts);
    }
    py::tuple knn_norm(const darray& x, std::size_t k, double bound, unsigned threads, double p) const {
        rows_of(x, D, "x");
        auto pts = points_of<D, T>(x);
        knn_result res = knn_arrays(pts.size(), k);
        {
            py::gil_scoped_release nogil;
            wrap_points(pts);
            with_view(p, [&](const auto& v) { fill_knn(v, pts, k, bound, n(), threads, res, false); });
        }
        return py::make_tuple(res.distances, res.ids);
    }

    // Every pair (i of ours, j of other's) within r by Minkowski p (other's minimum image
    // when periodic), ordered by (i, j), as int64 arrays i and j and float64 s: the value
    // the norm's predicate compares (the sum, the maximum, or the sum of p-th powers; for
    // p = 2 the squared distance rounded in float64), and float64 d: the distance (s itself,
    // its p-th root, or its square root).
    py::tuple pairs_norm(const tree_core& other, double r, unsigned threads, double p) const {
        const quoct::norm kind = norm_of(p);
        rows_type rows;
        std::vector<point_type> ours(n());
        iarray i_out, j_out;
        py::array_t<double> s_out, d_out;
        {
            py::gil_scoped_release nogil;
            std::vector<ball_type> balls(n());
            for (std::size_t i = 0; i < n(); ++i) {
                ours[i] = base().point(static_cast<id_type>(i));
                balls[i] = ball_type{ours[i], static_cast<T>(r)};
            }
            other.with_view(p, [&](const auto& v) { rows = quoct::batch_query(v, balls.data(), balls.size(), threads); });
            sort_rows(rows, other.n(), threads);
        }
        const std::size_t total = rows.values.size();
        i_out = iarray(static_cast<py::ssize_t>(total));
        j_out = iarray(static_cast<py::ssize_t>(total));
        s_out = py::array_t<double>(static_cast<py::ssize_t>(total));
        d_out = py::array_t<double>(static_cast<py::ssize_t>(total));
        std::int64_t* io = i_out.mutable_data();
        std::int64_t* jo = j_out.mutable_data();
        double* so = s_out.mutable_data();
        double* dout = d_out.mutable_data();
        {
            py::gil_scoped_release nogil;
            const quoct::detail::norm_terms<T> terms(kind);
            other.with_view(p, [&](const auto& v) {
                quoct::parallel_for(rows.rows(), threads, [&](std::size_t i) {
                    for (std::size_t at = rows.offsets[i]; at < rows.offsets[i + 1]; ++at) {
                        const id_type j = rows.values[at];
                        const point_type q = other.base().point(j);
                        io[at] = static_cast<std::int64_t>(i);
                        jo[at] = static_cast<std::int64_t>(j);
                        const T value = terms.template sum<D>([&](std::size_t a) { return v.gap(a, ours[i][a], q[a]); });
                        so[at] = static_cast<double>(value);
                        dout[at] = static_cast<double>(terms.distance_of(value));
                    }
                }, 64);
            });
        }
        return py::make_tuple(i_out, j_out, s_out, d_out);
    }

    // The k nearest of each x[i] within distance `bound` (closed), closest first.
    py::tuple knn(const darray& x, std::size_t k, double bound, unsigned threads) const {
        rows_of(x, D, "x");
        auto pts = points_of<D, T>(x);
        knn_result res = knn_arrays(pts.size(), k);
        {
            py::gil_scoped_release nogil;
            // As for balls: wrapped into the box (minimum image), a NaN or infinite point
            // left for the query to refuse.
            wrap_points(pts);
            if (periodic_) fill_knn(*periodic_, pts, k, bound, n(), threads, res);
            else fill_knn(*plain_, pts, k, bound, n(), threads, res);
        }
        return py::make_tuple(res.distances, res.ids);
    }

    // Every pair (i, j), i < j, within r, sorted, as an (m, 2) int64 array.
    iarray pairs(double r, unsigned threads) const {
        std::vector<std::pair<id_type, id_type>> found;
        {
            py::gil_scoped_release nogil;
            const T rt = static_cast<T>(r);
            found = periodic_ ? quoct::pairs_within(*periodic_, rt, threads) : quoct::pairs_within(*plain_, rt, threads);
        }
        iarray out({found.size(), std::size_t{2}});
        std::int64_t* o = out.mutable_data();
        {
            py::gil_scoped_release nogil;
            quoct::parallel_for(found.size(), threads, [&](std::size_t i) {
                o[2 * i] = found[i].first;
                o[2 * i + 1] = found[i].second;
            }, std::size_t{1} << 16);
        }
        return out;
    }

    // Row i: the ids of other's points within r of our point i, increasing. The distance
    // is other's (minimum image when other is periodic).
    py::list ball_tree(const tree_core& other, double r, unsigned threads) const {
        rows_type rows;
        {
            py::gil_scoped_release nogil;
            const T rt = static_cast<T>(r);
            rows = other.periodic_ ? quoct::neighbor_lists(base(), *other.periodic_, rt, threads)
                                   : quoct::neighbor_lists(base(), *other.plain_, rt, threads);
        }
        return list_of_lists(rows, other.n());
    }

    // counts[t]: pairs (i of ours, j of other's) within radii[t]; radii must be increasing.
    // One count query per point of ours and radius (count() takes whole nodes inside a
    // ball without visiting their points; no pair is listed), on `threads` threads.
    iarray count_pairs(const tree_core& other, const darray& radii, unsigned threads) const {
        if (radii.ndim() != 1) throw std::invalid_argument("quoct: radii must be 1-D");
        const std::size_t nr = static_cast<std::size_t>(radii.shape(0));
        const double* rr = radii.data();
        for (std::size_t t = 0; t < nr; ++t) {
            if (!(rr[t] >= 0)) throw std::invalid_argument("quoct: radius is NaN or negative");
            if (t > 0 && rr[t] < rr[t - 1]) throw std::invalid_argument("quoct: radii must be increasing");
        }
        std::vector<std::size_t> counts(nr, 0);
        if (nr > 0 && n() > 0 && other.n() > 0) {
            py::gil_scoped_release nogil;
            // Our points in the tree's order: neighbouring queries run one after another.
            std::vector<point_type> centres;
            centres.reserve(n());
            base().visit(base().bounds(), [&](id_type, const point_type& p) { centres.push_back(p); });
            // Every radius of one point before the next point: the nodes stay in cache.
            constexpr std::size_t chunk = 256;
            std::vector<std::size_t> sums(((centres.size() + chunk - 1) / chunk) * nr, 0);
            const auto count_chunk = [&](const auto& index, std::size_t c) {
                for (std::size_t i = c * chunk; i < std::min(centres.size(), (c + 1) * chunk); ++i)
                    for (std::size_t t = 0; t < nr; ++t)
                        sums[c * nr + t] += index.count(ball_type{centres[i], static_cast<T>(rr[t])});
            };
            quoct::parallel_for(sums.size() / nr, threads, [&](std::size_t c) {
                if (other.periodic_) count_chunk(*other.periodic_, c);
                else count_chunk(*other.plain_, c);
            }, 1);
            for (std::size_t c = 0; c < sums.size(); ++c) counts[c % nr] += sums[c];
        }
        return int_array(counts);
    }

    // What the predicate of Minkowski p compares a pair's value s with, per radius (each
    // rounded to T first): r, r * r or pow(r, p), in T.
    static py::array_t<double> norm_bounds(const darray& radii, double p) {
        const quoct::detail::norm_terms<T> terms(norm_of(p));
        py::array_t<double> out(radii.size());
        for (py::ssize_t i = 0; i < radii.size(); ++i)
            out.mutable_data()[i] = static_cast<double>(terms.bound_of(static_cast<T>(radii.data()[i])));
        return out;
    }

private:
    const tree_type& base() const noexcept { return periodic_ ? periodic_->base() : *plain_; }
    // f(view) with the tree seen through Minkowski p: plain or periodic.
    template <class F>
    void with_view(double p, F&& f) const {
        if (periodic_) f(minkowski_view<periodic_type>{*periodic_, norm_of(p)});
        else f(minkowski_view<tree_type>{*plain_, norm_of(p)});
    }

    // k-nearest query points wrapped into a periodic box, as for balls.
    void wrap_points(std::vector<point_type>& pts) const noexcept {
        if (!periodic_) return;
        for (auto& q : pts)
            if (quoct::is_finite(q)) q = periodic_->domain().wrap(q);
    }

    // scipy wraps query points into a periodic box; a NaN or infinite centre is left for
    // the query to refuse.
    void wrap_centres(std::vector<ball_type>& balls) const noexcept {
        if (!periodic_) return;
        for (auto& b : balls)
            if (quoct::is_finite(b.center)) b.center = periodic_->domain().wrap(b.center);
    }

    static py::array_t<double> corner(const point_type& p) {
        py::array_t<double> out(static_cast<py::ssize_t>(D));
        for (std::size_t a = 0; a < D; ++a) out.mutable_data()[a] = static_cast<double>(p[a]);
        return out;
    }

    std::optional<tree_type> plain_;
    std::optional<periodic_type> periodic_;
};

template <class T, std::size_t D>
void bind_tree_d(py::module_& m) {
    using core = tree_core<T, D>;
    const std::string name = "Tree" + std::to_string(D) + (std::is_same<T, float>::value ? "f" : "");
    py::class_<core> cls(m, name.c_str(), "The compiled tree behind quoct.Tree (private; use quoct.Tree).");
    def_point_queries(cls)
        .def(py::init<const coord_array<T>&, std::size_t, const darray&>(), py::arg("data"), py::arg("leafsize"),
             py::arg("boxsize"))
        .def_property_readonly("n", &core::n)
        .def_property_readonly("leafsize", &core::leafsize)
        .def_property_readonly("boxsize", &core::boxsize)
        .def_property_readonly_static("dtype", [](py::object) { return core::dtype(); })
        .def("points", &core::points)
        .def("to_bytes", &core::to_bytes)
        .def("save", &core::save, py::arg("path"))
        .def_property_readonly("node_count", &core::node_count)
        .def("indices", &core::indices)
        .def("node", &core::node, py::arg("i"))
        .def("neighbourhoods", &core::neighbourhoods, py::arg("start"), py::arg("count"), py::arg("k"), py::arg("r"))
        .def_property_readonly("periodic", &core::periodic)
        .def_property_readonly("mins", &core::mins)
        .def_property_readonly("maxes", &core::maxes)
        .def("pairs", &core::pairs, py::arg("r"), py::arg("threads"))
        .def("pairs_norm", &core::pairs_norm, py::arg("other"), py::arg("r"), py::arg("threads"), py::arg("p"))
        .def_static("norm_bounds", &core::norm_bounds, py::arg("radii"), py::arg("p"))
        .def("ball_tree", &core::ball_tree, py::arg("other"), py::arg("r"), py::arg("threads"))
        .def("count_pairs", &core::count_pairs, py::arg("other"), py::arg("radii"), py::arg("threads"));
}

/// Binds Tree<D><suffix> for T and each D in Ds.
template <class T, std::size_t... Ds>
void bind_trees(py::module_& m) {
    (bind_tree_d<T, Ds>(m), ...);
}

/// A tree core of the type a file holds, read by read(tag<Index>{}), among T's trees of the
/// dimensions Ds; an empty object if none matches.
template <class Index>
struct tag {
    using type = Index;
};
template <class T, std::size_t... Ds, class Read>
py::object read_tree_among(const std::string& type, const Read& read) {
    py::object out;
    const auto try_d = [&](auto dim) {
        constexpr std::size_t D = decltype(dim)::value;
        using core = tree_core<T, D>;
        using plain = typename core::tree_type;
        using periodic = typename core::periodic_type;
        if (out.ptr() != nullptr) return;
        if (type == quoct::detail::file_codec<plain>::type_name()) out = py::cast(core(read(tag<plain>{})));
        else if (type == quoct::detail::file_codec<periodic>::type_name()) out = py::cast(core(read(tag<periodic>{})));
    };
    (try_d(std::integral_constant<std::size_t, Ds>{}), ...);
    return out;
}

/// A file's tree among T's trees of dimensions Ds: from a path (mapped or loaded) or from
/// bytes. An empty object if the file holds none of them.
template <class T, std::size_t... Ds>
py::object tree_among_from_file(const std::string& type, const std::string& path, bool mapped) {
    return read_tree_among<T, Ds...>(type, [&](auto t) { return read_from<typename decltype(t)::type>(path, mapped); });
}
template <class T, std::size_t... Ds>
py::object tree_among_from_bytes(const std::string& type, const py::bytes& b) {
    return read_tree_among<T, Ds...>(type, [&](auto t) { return from_py_bytes<typename decltype(t)::type>(b); });
}

// Each translation unit's part: binds its trees; reads a file's tree if it is one of them.
void bind_trees_f64_low(py::module_& m);
void bind_trees_f64_high(py::module_& m);
void bind_trees_f32_low(py::module_& m);
void bind_trees_f32_high(py::module_& m);
py::object tree_f64_low_from(const std::string& type, const std::string* path, bool mapped, const py::bytes* bytes);
py::object tree_f64_high_from(const std::string& type, const std::string* path, bool mapped, const py::bytes* bytes);
py::object tree_f32_low_from(const std::string& type, const std::string* path, bool mapped, const py::bytes* bytes);
py::object tree_f32_high_from(const std::string& type, const std::string* path, bool mapped, const py::bytes* bytes);

}  // namespace quoct_py

#endif  // QUOCT_PYTHON_TREE_CORE_HPP
