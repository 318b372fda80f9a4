// quoct's Python module: what the binding files share. The Python package (python/quoct)
// checks shapes and dtypes and hands these functions C-contiguous float64 arrays of the
// right shape; everything here answers through quoct's C++ API with the GIL released.
#ifndef QUOCT_PYTHON_COMMON_HPP
#define QUOCT_PYTHON_COMMON_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <quoct/minkowski.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <quoct/orthtree.hpp>
#include <quoct/parallel.hpp>
#include <quoct/periodic.hpp>
#include <quoct/detail/sorting.hpp>

namespace quoct_py {

namespace py = pybind11;

/// Point ids: a tree holds fewer than 2^31 points.
using id_type = std::uint32_t;
/// A float64 array, C-contiguous (pybind11 copies anything else into one).
using darray = py::array_t<double, py::array::c_style | py::array::forcecast>;
/// The integer arrays handed back to Python.
using iarray = py::array_t<std::int64_t>;

/// The rows of an (m, D) float64 array as quoct points of T (a small copy: query points
/// only; trees read their data straight from the array through the flat constructors).
/// For T = float each coordinate is rounded to the nearest float.
template <std::size_t D, class T = double>
std::vector<quoct::point<T, D>> points_of(const darray& a) {
    const std::size_t m = static_cast<std::size_t>(a.shape(0));
    const double* v = a.data();
    std::vector<quoct::point<T, D>> out(m);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t k = 0; k < D; ++k) out[i][k] = static_cast<T>(v[i * D + k]);
    return out;
}

/// After a big build: hands the pages the build's temporaries (sort keys and buffers)
/// leave free back to the system (glibc's malloc_trim), so that what a process keeps is
/// what the index holds, not the heap it grew to while building. Without glibc, nothing.
/// Call without the GIL; cheap next to a build of `points` points, skipped for small ones.
inline void release_free_memory(std::size_t points) noexcept {
#if defined(__GLIBC__)
    if (points >= (std::size_t{1} << 16)) malloc_trim(0);
#else
    (void)points;
#endif
}

/// Rows of ids, one per query.
using rows_type = quoct::csr<id_type>;

/// Sorts every row in increasing id order (ids below id_bound), rows in parallel on
/// `threads` threads, each row by the core's sort_ids (detail/morton.hpp). Call without
/// the GIL. (Two counting sorts that transpose the whole table, tried before, are linear in
/// the ids but serial and scatter over all of them: slower on one thread too, measured in
/// docs/benchmarks.md, "Python: quoct against scipy's cKDTree".)
inline void sort_rows(rows_type& rows, std::size_t id_bound, unsigned threads) {
    const unsigned bits = quoct::detail::id_bits(id_bound);
    quoct::parallel_for(rows.rows(), threads, [&](std::size_t i) {
        thread_local std::vector<id_type> scratch;
        id_type* row = rows.values.data() + rows.offsets[i];
        quoct::detail::sort_ids(row, row + (rows.offsets[i + 1] - rows.offsets[i]), bits, scratch);
    }, 256);
}

/// The Python ints of one result's ids, made while the result is built and released with
/// it: nothing is kept with the index between calls. When the result holds at least one id
/// per eight the index could give, each id's int is made once and shared by every list that
/// holds it (a list entry is then a reference count increment, not an allocation, which
/// costs more than the search for lists of hundreds of ids); the table for that, one
/// pointer per possible id, lives only during the call. A smaller result makes an int per
/// entry. Python ints are immutable, so sharing them is invisible. Every member needs the GIL.
class result_ints {
public:
    result_ints(const rows_type& rows, std::size_t id_bound)
        : shared_(rows.values.size() >= id_bound / 8 ? id_bound : 0, nullptr) {}
    ~result_ints() {
        for (PyObject* v : shared_) Py_XDECREF(v);
    }
    result_ints(const result_ints&) = delete;
    result_ints& operator=(const result_ints&) = delete;

    /// A new Python list of the ids in [first, last), each below id_bound.
    PyObject* list(const id_type* first, const id_type* last) {
        PyObject* list = PyList_New(last - first);
        if (!list) throw py::error_already_set();
        PyObject** items = reinterpret_cast<PyListObject*>(list)->ob_item;
        for (; first != last; ++first, ++items) {
            PyObject* v = shared_.empty() ? nullptr : shared_[*first];
            if (v == nullptr) {
                v = PyLong_FromSize_t(*first);
                if (!v) {
                    Py_DECREF(list);  // its entries still NULL are skipped
                    throw py::error_already_set();
                }
                if (!shared_.empty()) shared_[*first] = v;  // the table's reference
            }
            if (!shared_.empty()) Py_INCREF(v);  // the list's reference
            *items = v;
        }
        return list;
    }

private:
    std::vector<PyObject*> shared_;
};

/// Keeps Python's cyclic garbage collector off while it lives. Making a hundred thousand
/// lists would otherwise start a collection every few hundred of them, and each older-
/// generation one walks every list made so far: most of the time of a big result went there.
class gc_paused {
public:
    gc_paused() {
#if PY_VERSION_HEX >= 0x030A0000
        was_enabled_ = PyGC_Disable() != 0;
#else
        py::module_ gc = py::module_::import("gc");
        was_enabled_ = gc.attr("isenabled")().cast<bool>();
        gc.attr("disable")();
#endif
    }
    ~gc_paused() {
        if (!was_enabled_) return;
#if PY_VERSION_HEX >= 0x030A0000
        PyGC_Enable();
#else
        py::module_::import("gc").attr("enable")();
#endif
    }
    gc_paused(const gc_paused&) = delete;
    gc_paused& operator=(const gc_paused&) = delete;

private:
    bool was_enabled_ = false;
};

/// A 1-D numpy array of dtype object whose element i is row i as a Python list (the shape
/// scipy's query_ball_point gives). Needs the GIL.
inline py::array object_array_of_lists(const rows_type& rows, std::size_t id_bound) {
    const std::size_t m = rows.rows();
    const gc_paused no_gc;
    result_ints ints(rows, id_bound);
    py::array out = py::module_::import("numpy").attr("empty")(m, py::arg("dtype") = "object");
    auto** slot = static_cast<PyObject**>(out.mutable_data());
    for (std::size_t i = 0; i < m; ++i) {
        PyObject* list = ints.list(rows.values.data() + rows.offsets[i], rows.values.data() + rows.offsets[i + 1]);
        Py_XDECREF(slot[i]);
        slot[i] = list;
    }
    return out;
}

/// A Python list of Python lists, row i = row i of `rows`. Needs the GIL.
inline py::list list_of_lists(const rows_type& rows, std::size_t id_bound) {
    const gc_paused no_gc;
    result_ints ints(rows, id_bound);
    py::list out(rows.rows());
    for (std::size_t i = 0; i < rows.rows(); ++i)
        PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i),
                        ints.list(rows.values.data() + rows.offsets[i], rows.values.data() + rows.offsets[i + 1]));
    return out;
}

/// A 1-D int64 array of the values.
template <class V>
iarray int_array(const std::vector<V>& values) {
    iarray out(static_cast<py::ssize_t>(values.size()));
    std::int64_t* o = out.mutable_data();
    for (std::size_t i = 0; i < values.size(); ++i) o[i] = static_cast<std::int64_t>(values[i]);
    return out;
}

/// Checks a query array: m rows of D coordinates. The Python layer shapes it so; this
/// guards the memory against a direct call to the private extension.
inline std::size_t rows_of(const darray& x, std::size_t d, const char* what) {
    if (x.ndim() != 2 || static_cast<std::size_t>(x.shape(1)) != d)
        throw std::invalid_argument(std::string("quoct: ") + what + " must have shape (m, " + std::to_string(d) + ")");
    return static_cast<std::size_t>(x.shape(0));
}

/// Balls of centres x (m, D) and radii r (m,), in T (rounded to nearest for float).
template <std::size_t D, class T = double>
std::vector<quoct::ball<T, D>> balls_of(const darray& x, const darray& r) {
    const std::size_t m = rows_of(x, D, "x");
    if (r.ndim() != 1 || static_cast<std::size_t>(r.shape(0)) != m)
        throw std::invalid_argument("quoct: r must have one radius per query point");
    const auto c = points_of<D, T>(x);
    const double* rr = r.data();
    std::vector<quoct::ball<T, D>> balls(m);
    for (std::size_t i = 0; i < m; ++i) balls[i] = quoct::ball<T, D>{c[i], static_cast<T>(rr[i])};
    return balls;
}

/// scipy's query result for k neighbours per point: distances (m, k), padded with inf,
/// and ids (m, k), padded with `missing` (the number of points).
struct knn_result {
    py::array_t<double> distances;
    iarray ids;
};

/// Uninitialised arrays for m queries of k neighbours. Needs the GIL.
inline knn_result knn_arrays(std::size_t m, std::size_t k) {
    return knn_result{py::array_t<double>({m, k}), iarray({m, k})};
}

/// Fills `res` (from knn_arrays(m, k), m = pts.size()) with the k nearest points of each
/// pts[i] within the closed ball of radius `bound` (index.nearest(p, k, bound, out): the
/// bound prunes from the start), closest first, Euclidean distances, the rest padded with
/// inf and `missing`. Queries run in Morton order of the points on `threads` threads, each
/// row written in place (no intermediate table). Throws what index.nearest throws. Call
/// without the GIL.
template <class Index, class P>
void fill_knn(const Index& index, const std::vector<P>& pts, std::size_t k, double bound, std::size_t missing,
              unsigned threads, knn_result& res, bool squared = true) {
    using T = typename Index::scalar_type;
    using N = quoct::neighbor<T, typename Index::id_type>;
    double* d = res.distances.mutable_data();
    std::int64_t* ids = res.ids.mutable_data();
    const auto order = quoct::detail::query_order(pts.data(), pts.size(), true);
    // The points copied into that order: the searches then read them in sequence.
    std::vector<P> ordered;
    if (!order.empty()) {
        ordered.resize(pts.size());
        for (std::size_t q = 0; q < pts.size(); ++q) ordered[q] = pts[order[q]];
    }
    const P* at = order.empty() ? pts.data() : ordered.data();
    quoct::parallel_for(pts.size(), threads, [&](std::size_t q) {
        const std::size_t i = order.empty() ? q : order[q];
        thread_local std::vector<N> row;
        index.nearest(at[q], k, static_cast<T>(bound), row);
        double* di = d + i * k;
        std::int64_t* ii = ids + i * k;
        std::size_t j = 0;
        for (; j < row.size(); ++j) {
            di[j] = static_cast<double>(squared ? std::sqrt(row[j].distance_sq) : row[j].distance_sq);
            ii[j] = static_cast<std::int64_t>(row[j].id);
        }
        for (; j < k; ++j) {
            di[j] = std::numeric_limits<double>::infinity();
            ii[j] = static_cast<std::int64_t>(missing);
        }
    }, quoct::detail::batch_chunk);
}

/// How minkowski_view reaches a tree: the tree its shapes run on, the norm's ball, and the
/// per-axis gap the norm's predicate takes. An orthtree or a dynamic_orthtree here; a
/// periodic_index below (minimum-image gaps, quoct/periodic.hpp).
template <class Tree>
struct norm_access {
    using T = typename Tree::scalar_type;
    static const Tree& shapes(const Tree& t) noexcept { return t; }
    static auto ball(const Tree&, const typename Tree::point_type& c, T r, const quoct::norm& n) {
        return quoct::make_minkowski_ball(c, r, n);
    }
    static T gap(const Tree&, std::size_t, T a, T b) noexcept { return std::abs(a - b); }
};
template <class Index>
struct norm_access<quoct::periodic_index<Index>> {
    using tree_type = quoct::periodic_index<Index>;
    using T = typename tree_type::scalar_type;
    static const Index& shapes(const tree_type& t) noexcept { return t.base(); }
    static auto ball(const tree_type& t, const typename tree_type::point_type& c, T r, const quoct::norm& n) {
        return quoct::make_periodic_minkowski_ball(t, c, r, n);
    }
    static T gap(const tree_type& t, std::size_t a, T x, T y) noexcept { return t.domain().axis_distance(a, x, y); }
};

/// A tree seen through a Minkowski norm (<quoct/minkowski.hpp>), with the query, count and
/// nearest members batch_query, batch_count and fill_knn call: a query ball is the norm's
/// ball of its centre and radius; nearest gives the distances themselves.
template <class Tree>
struct minkowski_view {
    using id_type = typename Tree::id_type;
    using scalar_type = typename Tree::scalar_type;
    using point_type = typename Tree::point_type;
    static constexpr std::size_t dimension = Tree::dimension;
    using access = norm_access<Tree>;
    const Tree& tree;
    quoct::norm kind;

    void query(const quoct::ball<scalar_type, dimension>& b, std::vector<id_type>& out) const {
        out.clear();
        access::shapes(tree).query_shape(access::ball(tree, b.center, b.radius, kind), out);
    }
    std::size_t count(const quoct::ball<scalar_type, dimension>& b) const {
        return access::shapes(tree).count_shape(access::ball(tree, b.center, b.radius, kind));
    }
    void nearest(const point_type& p, std::size_t k, scalar_type bound,
                 std::vector<quoct::neighbor<scalar_type, id_type>>& out) const {
        out = quoct::nearest(tree, p, k, kind, bound);
    }
    /// The per-axis gap between two points as the norm's predicate takes it.
    scalar_type gap(std::size_t a, scalar_type x, scalar_type y) const noexcept { return access::gap(tree, a, x, y); }
};

/// The norm of Minkowski p (>= 1), for the _norm methods.
inline quoct::norm norm_of(double p) { return quoct::norm::minkowski(p); }

/// Binds the queries every point index's core has (Tree and DynamicTree): ball lists and
/// counts and k nearest, Euclidean and by Minkowski p. Returns cls.
template <class Class>
Class& def_point_queries(Class& cls) {
    using core = typename Class::type;
    cls.def("ball", &core::ball, py::arg("x"), py::arg("r"), py::arg("threads"), py::arg("sorted"))
        .def("ball_count", &core::ball_count, py::arg("x"), py::arg("r"), py::arg("threads"))
        .def("knn", &core::knn, py::arg("x"), py::arg("k"), py::arg("bound"), py::arg("threads"))
        .def("ball_norm", &core::ball_norm, py::arg("x"), py::arg("r"), py::arg("threads"), py::arg("sorted"),
             py::arg("p"))
        .def("ball_count_norm", &core::ball_count_norm, py::arg("x"), py::arg("r"), py::arg("threads"), py::arg("p"))
        .def("knn_norm", &core::knn_norm, py::arg("x"), py::arg("k"), py::arg("bound"), py::arg("threads"), py::arg("p"));
    return cls;
}

void bind_tree(py::module_& m);
void bind_dynamic(py::module_& m);
void bind_geo(py::module_& m);
void bind_las(py::module_& m);
void bind_build_file(py::module_& m);
void bind_boxes(py::module_& m);

}  // namespace quoct_py

#endif  // QUOCT_PYTHON_COMMON_HPP
