// quoct._core.BoxesD (D = 2, 3): quoct::packed_box_index behind quoct.BoxTree. Every
// batch runs without the GIL on the threads asked for; rows come back as a csr (offsets,
// values: the Python layer splits them), each row sorted.
#include <quoct/packed_objects.hpp>

#include "common.hpp"

namespace quoct_py {
namespace {

template <std::size_t D>
class boxes_core {
public:
    using index_type = quoct::packed_box_index<double, D, id_type>;
    using box_type = quoct::box<double, D>;

    boxes_core(const darray& mins, const darray& maxes) {
        const std::vector<box_type> boxes = boxes_of(mins, maxes, "mins");
        py::gil_scoped_release nogil;
        index_ = index_type(boxes);
    }

    std::size_t size() const noexcept { return index_.size(); }
    std::size_t memory_bytes() const noexcept { return index_.memory_bytes(); }
    // The boxes as given: (mins, maxes), each (n, D).
    py::tuple bounds() const {
        py::array_t<double> lo({index_.size(), D}), hi({index_.size(), D});
        double* l = lo.mutable_data();
        double* h = hi.mutable_data();
        for (std::size_t i = 0; i < index_.size(); ++i) {
            const box_type b = index_.shape(static_cast<id_type>(i));
            for (std::size_t a = 0; a < D; ++a) l[i * D + a] = b.lo[a], h[i * D + a] = b.hi[a];
        }
        return py::make_tuple(lo, hi);
    }

    py::tuple query_boxes(const darray& mins, const darray& maxes, unsigned threads) const {
        const std::vector<box_type> q = boxes_of(mins, maxes, "query mins");
        for (const box_type& b : q) quoct::detail::check_box(b);
        return rows(q.size(), threads, [&](std::size_t i, std::vector<id_type>& out) { index_.query(q[i], out); });
    }
    py::tuple query_balls(const darray& x, const darray& r, unsigned threads) const {
        const auto q = balls_of<D>(x, r);
        for (const auto& s : q) quoct::detail::check_ball(s);
        return rows(q.size(), threads, [&](std::size_t i, std::vector<id_type>& out) { index_.query(q[i], out); });
    }
    py::tuple query_points(const darray& x, unsigned threads) const {
        rows_of(x, D, "x");
        const auto p = points_of<D>(x);
        rows_type table;
        {
            py::gil_scoped_release nogil;
            table = index_.containing(p, threads);
        }
        return as_tuple(table);
    }
    // The k nearest boxes of each point: Euclidean distances (0 inside) and ids, (m, k),
    // padded with inf and n where fewer than k boxes exist; ties by smaller id, or any.
    py::tuple nearest(const darray& x, std::size_t k, bool any_tie, unsigned threads) const {
        rows_of(x, D, "x");
        const auto p = points_of<D>(x);
        for (const auto& q : p) quoct::detail::check_point(q, "query point");
        quoct::detail::check_k(k);
        py::array_t<double> dist({p.size(), k});
        iarray ids({p.size(), k});
        double* d = dist.mutable_data();
        std::int64_t* o = ids.mutable_data();
        {
            py::gil_scoped_release nogil;
            quoct::parallel_for(p.size(), threads, [&](std::size_t i) {
                thread_local std::vector<quoct::neighbor<double, id_type>> found;
                index_.nearest(p[i], k, found, any_tie ? quoct::ties::any : quoct::ties::smallest_id);
                for (std::size_t j = 0; j < k; ++j) {
                    const bool have = j < found.size();
                    d[i * k + j] = have ? std::sqrt(found[j].distance_sq) : std::numeric_limits<double>::infinity();
                    o[i * k + j] = have ? static_cast<std::int64_t>(found[j].id) : static_cast<std::int64_t>(index_.size());
                }
            });
        }
        return py::make_tuple(dist, ids);
    }
    // Every pair (a, b), a < b, of boxes that meet, sorted: an (m, 2) int64 array.
    iarray pairs(unsigned threads) const {
        std::vector<std::pair<id_type, id_type>> found;
        {
            py::gil_scoped_release nogil;
            found = index_.colliding_pairs(threads);
        }
        iarray out({found.size(), std::size_t{2}});
        std::int64_t* o = out.mutable_data();
        for (std::size_t i = 0; i < found.size(); ++i) o[2 * i] = found[i].first, o[2 * i + 1] = found[i].second;
        return out;
    }
    // Row i: the boxes of this tree that meet box i of `other`.
    py::tuple join(const boxes_core& other, unsigned threads) const {
        rows_type table;
        {
            py::gil_scoped_release nogil;
            table = index_.meeting(other.index_, threads);
        }
        return as_tuple(table);
    }

private:
    static std::vector<box_type> boxes_of(const darray& mins, const darray& maxes, const char* what) {
        const std::size_t n = rows_of(mins, D, what);
        if (rows_of(maxes, D, "maxes") != n) throw std::invalid_argument("quoct: mins and maxes must have the same shape");
        std::vector<box_type> boxes(n);
        const double* l = mins.data();
        const double* h = maxes.data();
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t a = 0; a < D; ++a) boxes[i].lo[a] = l[i * D + a], boxes[i].hi[a] = h[i * D + a];
        return boxes;
    }
    template <class Row>
    py::tuple rows(std::size_t m, unsigned threads, Row&& row) const {
        rows_type table;
        {
            py::gil_scoped_release nogil;
            table = quoct::detail::gather_rows<id_type>(m, {}, threads, [&](std::size_t i, std::vector<id_type>& out) {
                thread_local std::vector<id_type> one;
                row(i, one);
                std::sort(one.begin(), one.end());
                out.insert(out.end(), one.begin(), one.end());
            });
        }
        return as_tuple(table);
    }
    static py::tuple as_tuple(const rows_type& table) {
        return py::make_tuple(int_array(table.offsets), int_array(table.values));
    }

    index_type index_;
};

template <std::size_t D>
void bind_boxes_d(py::module_& m) {
    using core = boxes_core<D>;
    const std::string name = "Boxes" + std::to_string(D);
    py::class_<core>(m, name.c_str())
        .def(py::init<const darray&, const darray&>(), py::arg("mins"), py::arg("maxes"))
        .def_property_readonly("size", &core::size)
        .def("memory_bytes", &core::memory_bytes)
        .def("bounds", &core::bounds)
        .def("query_boxes", &core::query_boxes, py::arg("mins"), py::arg("maxes"), py::arg("threads"))
        .def("query_balls", &core::query_balls, py::arg("x"), py::arg("r"), py::arg("threads"))
        .def("query_points", &core::query_points, py::arg("x"), py::arg("threads"))
        .def("nearest", &core::nearest, py::arg("x"), py::arg("k"), py::arg("any_tie"), py::arg("threads"))
        .def("pairs", &core::pairs, py::arg("threads"))
        .def("join", &core::join, py::arg("other"), py::arg("threads"));
}

}  // namespace

void bind_boxes(py::module_& m) {
    bind_boxes_d<2>(m);
    bind_boxes_d<3>(m);
}

}  // namespace quoct_py
