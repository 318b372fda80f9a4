// quoct._core.DynamicD (D = 1..4): quoct::dynamic_orthtree behind quoct.DynamicTree.
//
// Queries run without the GIL, so a Python thread may mutate while another queries: a
// shared mutex lets queries run together and each mutation alone (the GIL is released
// before waiting on it, so the two locks never wait on each other).
#include <mutex>
#include <shared_mutex>

#include <quoct/dynamic.hpp>

#include "common.hpp"
#include "persist.hpp"

namespace quoct_py {
namespace {

template <std::size_t D>
class dynamic_core {
public:
    using index_type = quoct::dynamic_orthtree<double, D, id_type>;
    using point_type = quoct::point<double, D>;

    dynamic_core(const darray& data, std::size_t leafsize) {
        const std::size_t n = rows_of(data, D, "data");
        quoct::dynamic_options options;
        options.tree.leaf_size = leafsize;
        const double* pts = data.data();  // n rows of D coordinates: the flat constructor
        py::gil_scoped_release nogil;
        index_ = index_type(pts, n, options);
        release_free_memory(n);
    }

    explicit dynamic_core(index_type index) : index_(std::move(index)) {}

    std::size_t leafsize() const noexcept { return index_.options().tree.leaf_size; }
    // Both lock as the queries do: the GIL released first, then the index's lock.
    py::bytes to_bytes() const {
        std::vector<unsigned char> bytes;
        {
            py::gil_scoped_release nogil;
            std::shared_lock<std::shared_mutex> lock(mutex_);
            bytes = quoct::to_bytes(index_);
        }
        return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    void save(const std::string& path) const {
        py::gil_scoped_release nogil;
        std::shared_lock<std::shared_mutex> lock(mutex_);
        quoct::save(index_, path);
    }

    std::size_t size() const {
        py::gil_scoped_release nogil;
        std::shared_lock<std::shared_mutex> lock(mutex_);
        return index_.size();
    }
    std::size_t id_bound() const {
        py::gil_scoped_release nogil;
        std::shared_lock<std::shared_mutex> lock(mutex_);
        return index_.id_bound();
    }
    bool contains(std::int64_t id) const {
        if (id < 0 || static_cast<std::uint64_t>(id) > std::numeric_limits<id_type>::max()) return false;
        py::gil_scoped_release nogil;
        std::shared_lock<std::shared_mutex> lock(mutex_);
        return index_.contains(static_cast<id_type>(id));
    }
    py::array_t<double> point(std::int64_t id) const {
        point_type p;
        {
            py::gil_scoped_release nogil;
            std::shared_lock<std::shared_mutex> lock(mutex_);
            p = index_.point(checked_id(id));
        }
        py::array_t<double> out(static_cast<py::ssize_t>(D));
        for (std::size_t a = 0; a < D; ++a) out.mutable_data()[a] = p[a];
        return out;
    }

    std::size_t insert(const darray& p) {
        const point_type q = one_point(p);
        py::gil_scoped_release nogil;
        std::unique_lock<std::shared_mutex> lock(mutex_);
        return index_.insert(q);
    }
    bool erase(std::int64_t id) {
        if (id < 0 || static_cast<std::uint64_t>(id) > std::numeric_limits<id_type>::max()) return false;
        py::gil_scoped_release nogil;
        std::unique_lock<std::shared_mutex> lock(mutex_);
        return index_.erase(static_cast<id_type>(id));
    }
    void move(std::int64_t id, const darray& p) {
        const point_type q = one_point(p);
        py::gil_scoped_release nogil;
        std::unique_lock<std::shared_mutex> lock(mutex_);
        index_.move(checked_id(id), q);
    }
    std::size_t insert_all(const darray& points) {
        const std::size_t n = rows_of(points, D, "points");
        const double* v = points.data();
        py::gil_scoped_release nogil;
        std::unique_lock<std::shared_mutex> lock(mutex_);
        return index_.insert_all(v, n);
    }
    // One id per row: its own if kept, else that of the point holding its voxel.
    iarray insert_downsampled(const darray& points, double voxel) {
        const std::size_t n = rows_of(points, D, "points");
        const double* v = points.data();
        iarray out(static_cast<py::ssize_t>(n));  // made first: nothing may throw after the change
        std::int64_t* o = out.mutable_data();
        {
            py::gil_scoped_release nogil;
            std::unique_lock<std::shared_mutex> lock(mutex_);
            const std::vector<id_type> ids = index_.insert_downsampled(v, n, voxel);
            for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<std::int64_t>(ids[i]);
        }
        return out;
    }
    // ids (k,) int64 and points (k, D): one batch of moves, refused whole on a bad entry.
    void move_many(const iarray& ids, const darray& points) {
        const std::size_t n = rows_of(points, D, "points");
        if (ids.ndim() != 1 || static_cast<std::size_t>(ids.shape(0)) != n)
            throw std::invalid_argument("quoct: move: " + std::to_string(ids.ndim() == 1 ? ids.shape(0) : -1) +
                                        " ids for " + std::to_string(n) + " points");
        std::vector<id_type> which(n);
        std::vector<point_type> to(n);
        for (std::size_t i = 0; i < n; ++i) {
            which[i] = checked_id(ids.at(static_cast<py::ssize_t>(i)));
            for (std::size_t a = 0; a < D; ++a) to[i][a] = points.data()[i * D + a];
        }
        py::gil_scoped_release nogil;
        std::unique_lock<std::shared_mutex> lock(mutex_);
        index_.move(which, to);
    }
    std::size_t erase_box(const darray& lo, const darray& hi, bool outside) {
        quoct::box<double, D> b{one_point(lo), one_point(hi)};
        py::gil_scoped_release nogil;
        std::unique_lock<std::shared_mutex> lock(mutex_);
        return outside ? index_.erase_outside(b) : index_.erase_in(b);
    }
    void move_all(const darray& points) {
        const std::size_t n = rows_of(points, D, "points");
        const double* v = points.data();
        py::gil_scoped_release nogil;
        std::unique_lock<std::shared_mutex> lock(mutex_);
        index_.move_all(v, n);
    }
    void rebuild() {
        py::gil_scoped_release nogil;
        std::unique_lock<std::shared_mutex> lock(mutex_);
        index_.rebuild();
    }

    py::array ball(const darray& x, const darray& r, unsigned threads, bool sorted) const {
        const auto balls = balls_of<D>(x, r);
        rows_type rows;
        std::size_t bound = 0;
        {
            py::gil_scoped_release nogil;
            std::shared_lock<std::shared_mutex> lock(mutex_);
            rows = quoct::batch_query(index_, balls.data(), balls.size(), threads);
            bound = index_.id_bound();
            if (sorted) sort_rows(rows, index_.id_bound(), threads);
        }
        return object_array_of_lists(rows, bound);
    }

    iarray ball_count(const darray& x, const darray& r, unsigned threads) const {
        const auto balls = balls_of<D>(x, r);
        std::vector<std::size_t> counts;
        {
            py::gil_scoped_release nogil;
            std::shared_lock<std::shared_mutex> lock(mutex_);
            counts = quoct::batch_count(index_, balls.data(), balls.size(), threads);
        }
        return int_array(counts);
    }

    py::tuple knn(const darray& x, std::size_t k, double bound, unsigned threads) const {
        rows_of(x, D, "x");
        const auto pts = points_of<D>(x);
        knn_result res = knn_arrays(pts.size(), k);
        {
            py::gil_scoped_release nogil;
            std::shared_lock<std::shared_mutex> lock(mutex_);
            fill_knn(index_, pts, k, bound, index_.id_bound(), threads, res);
        }
        return py::make_tuple(res.distances, res.ids);
    }

    // Minkowski p (>= 1; 2 also answers here): as ball, ball_count and knn.
    py::array ball_norm(const darray& x, const darray& r, unsigned threads, bool sorted, double p) const {
        const auto balls = balls_of<D>(x, r);
        rows_type rows;
        std::size_t bound = 0;
        {
            py::gil_scoped_release nogil;
            std::shared_lock<std::shared_mutex> lock(mutex_);
            rows = quoct::batch_query(view(p), balls.data(), balls.size(), threads);
            bound = index_.id_bound();
            if (sorted) sort_rows(rows, bound, threads);
        }
        return object_array_of_lists(rows, bound);
    }
    iarray ball_count_norm(const darray& x, const darray& r, unsigned threads, double p) const {
        const auto balls = balls_of<D>(x, r);
        std::vector<std::size_t> counts;
        {
            py::gil_scoped_release nogil;
            std::shared_lock<std::shared_mutex> lock(mutex_);
            counts = quoct::batch_count(view(p), balls.data(), balls.size(), threads);
        }
        return int_array(counts);
    }
    py::tuple knn_norm(const darray& x, std::size_t k, double bound, unsigned threads, double p) const {
        rows_of(x, D, "x");
        const auto pts = points_of<D>(x);
        knn_result res = knn_arrays(pts.size(), k);
        {
            py::gil_scoped_release nogil;
            std::shared_lock<std::shared_mutex> lock(mutex_);
            fill_knn(view(p), pts, k, bound, index_.id_bound(), threads, res, false);
        }
        return py::make_tuple(res.distances, res.ids);
    }

private:
    minkowski_view<index_type> view(double p) const { return {index_, norm_of(p)}; }

    static point_type one_point(const darray& p) {
        if (p.ndim() != 1 || static_cast<std::size_t>(p.shape(0)) != D)
            throw std::invalid_argument("quoct: a point must have shape (" + std::to_string(D) + ",)");
        point_type q;
        for (std::size_t a = 0; a < D; ++a) q[a] = p.data()[a];
        return q;
    }
    // An id the index might hold; anything else is reported as not live, as the index would.
    static id_type checked_id(std::int64_t id) {
        if (id < 0 || static_cast<std::uint64_t>(id) > std::numeric_limits<id_type>::max())
            throw std::out_of_range("quoct: id " + std::to_string(id) + " is not a live point");
        return static_cast<id_type>(id);
    }

    index_type index_;
    mutable std::shared_mutex mutex_;
};

template <std::size_t D>
void bind_dynamic_d(py::module_& m) {
    using core = dynamic_core<D>;
    const std::string name = "Dynamic" + std::to_string(D);
    py::class_<core> cls(m, name.c_str(),
                         "The compiled index behind quoct.DynamicTree (private; use quoct.DynamicTree).");
    def_point_queries(cls)
        .def(py::init<const darray&, std::size_t>(), py::arg("data"), py::arg("leafsize"))
        .def_property_readonly("size", &core::size)
        .def_property_readonly("id_bound", &core::id_bound)
        .def_property_readonly("leafsize", &core::leafsize)
        .def("to_bytes", &core::to_bytes)
        .def("save", &core::save, py::arg("path"))
        .def("contains", &core::contains, py::arg("id"))
        .def("point", &core::point, py::arg("id"))
        .def("insert", &core::insert, py::arg("p"))
        .def("erase", &core::erase, py::arg("id"))
        .def("move", &core::move, py::arg("id"), py::arg("p"))
        .def("move_all", &core::move_all, py::arg("points"))
        .def("insert_all", &core::insert_all, py::arg("points"))
        .def("insert_downsampled", &core::insert_downsampled, py::arg("points"), py::arg("voxel"))
        .def("move_many", &core::move_many, py::arg("ids"), py::arg("points"))
        .def("erase_box", &core::erase_box, py::arg("lo"), py::arg("hi"), py::arg("outside"))
        .def("rebuild", &core::rebuild);
}

// A dynamic core of the type a file holds, read by read(index type); false if not of dimension D.
template <std::size_t D, class Read>
bool read_dynamic_d(const std::string& type, const Read& read, py::object& out) {
    using index_type = typename dynamic_core<D>::index_type;
    if (type != quoct::detail::file_codec<index_type>::type_name()) return false;
    // (The core holds a mutex, so it is made in place and handed over, not moved.)
    out = py::cast(new dynamic_core<D>(read(static_cast<index_type*>(nullptr))), py::return_value_policy::take_ownership);
    return true;
}

template <class Read>
py::object read_dynamic(const std::string& where, const std::string& type, const Read& read) {
    py::object out;
    if (read_dynamic_d<1>(type, read, out) || read_dynamic_d<2>(type, read, out) ||
        read_dynamic_d<3>(type, read, out) || read_dynamic_d<4>(type, read, out))
        return out;
    throw quoct::file_error(where, "holds " + type + ", not a quoct.DynamicTree (dynamic_orthtree<double, 1 to 4, uint32>)");
}

}  // namespace

void bind_dynamic(py::module_& m) {
    bind_dynamic_d<1>(m);
    bind_dynamic_d<2>(m);
    bind_dynamic_d<3>(m);
    bind_dynamic_d<4>(m);
    m.def("dynamic_from_file", [](const std::string& path) {
        return read_dynamic(path, file_type(path), [&](auto* t) { return read_from<std::remove_pointer_t<decltype(t)>>(path, false); });
    }, py::arg("path"));
    m.def("dynamic_from_bytes", [](const py::bytes& b) {
        return read_dynamic("<bytes>", bytes_type(b), [&](auto* t) { return from_py_bytes<std::remove_pointer_t<decltype(t)>>(b); });
    }, py::arg("data"));
}

}  // namespace quoct_py
