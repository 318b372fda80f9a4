// quoct: the out-of-core builder of an orthtree's index file (quoct/build_file.hpp). POSIX.
//
// The file it writes is the one the in-memory builder's tree saves as, byte for byte. Steps:
//  1. read the stream once: the count, the bounds, every coordinate finite;
//  2. read it again, keying each point on the same grid the in-memory build uses (the
//     bounds, key_layout_for(n)); sort runs of (packed item, point) records that fit the
//     budget and write them to a scratch file; merge the runs (external_sort.hpp): the
//     points in the order the in-memory build stores them;
//  3. build the nodes top-down in pre-order: a node over more points than a part may hold
//     is split by binary searches over the sorted file's keys (split_runs, as the in-memory
//     build splits), and re-sorted there where its keys run out; a node over few enough is
//     a part, loaded and built by orthtree_builder::build_part as the in-memory build
//     builds that subtree. Points and ids go straight to their sections in the new file,
//     nodes, node keys and parents to scratch files, the top nodes (over parts) patched in
//     once their children are done;
//  4. copy the node sections in, checksum every section by reading the file back, write the
//     header, flush and rename over the target (detail::atomic_file).
// Where the whole tree fits the budget it is built in memory and saved.
#ifndef QUOCT_DETAIL_ORTHTREE_BUILD_FILE_HPP
#define QUOCT_DETAIL_ORTHTREE_BUILD_FILE_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../build_options.hpp"
#include "../file.hpp"
#include "../orthtree.hpp"
#include "external_sort.hpp"
#include "morton.hpp"
#include "orthtree_build.hpp"
#include "orthtree_data.hpp"

namespace quoct {
namespace detail {

template <class Index>
class orthtree_file_builder;

/// Whether Stream is a point stream of point<T, D>: read(point<T, D>*, std::size_t) giving
/// a count, and rewind().
template <class Stream, class T, std::size_t D, class = void>
struct is_point_stream : std::false_type {};
template <class Stream, class T, std::size_t D>
struct is_point_stream<Stream, T, D,
                       std::void_t<decltype(std::size_t{std::declval<Stream&>().read(std::declval<point<T, D>*>(),
                                                                                     std::size_t{})}),
                                   decltype(std::declval<Stream&>().rewind())>> : std::true_type {};

template <class T, std::size_t D, class Id>
class orthtree_file_builder<orthtree<T, D, Id>> {
public:
    using data = orthtree_data<T, D, Id>;
    using node = typename data::node;
    using point_type = point<T, D>;
    using box_type = box<T, D>;
    static constexpr std::size_t record = 8 + D * sizeof(T);  // packed item, then the point
    static constexpr std::size_t fanout = data::fanout;

    explicit orthtree_file_builder(const build_file_options& o) : o_(o), tree_(o.tree) {
        if (tree_.leaf_size == 0) throw std::invalid_argument("quoct: build_options::leaf_size must be at least 1");
        if (tree_.max_depth > max_depth_limit)
            throw std::invalid_argument("quoct: build_options::max_depth may not exceed " +
                                        std::to_string(max_depth_limit));
        if (tree_.leaf_size == build_options::auto_leaf_size) tree_.leaf_size = build_options::default_leaf_size(D);
        budget_ = std::max(o.memory_limit, min_budget);
        io_ = std::min<std::size_t>(std::size_t{1} << 20, std::max<std::size_t>(4096, budget_ / 64));
        const std::size_t per_node = sizeof(node) + 4 + sizeof(Id);
        part_bytes_ = 2 * D * sizeof(T) + 40 + sizeof(Id) + 2 * per_node / tree_.leaf_size + 8;
        const std::size_t room = budget_ - (D + 8) * io_;
        part_points_ = std::max<std::size_t>(room / part_bytes_, tree_.leaf_size + 1);
        run_points_ = std::max<std::size_t>(room / (32 + sizeof(point_type)), 2);
        merge_bytes_ = room;  // the output's buffers are open meanwhile (a re-sort above the parts)
        read_points_ = std::max<std::size_t>(1, std::min<std::size_t>(65536, budget_ / 16 / sizeof(point_type)));
    }

    /// The smallest budget used, whatever memory_limit says.
    static constexpr std::size_t min_budget = std::size_t{256} << 10;

    template <class Stream>
    void build(Stream& in, const std::string& path) {
        static_assert(is_point_stream<Stream, T, D>::value,
                      "quoct::build_file: the source must be a point stream of the index's points: "
                      "std::size_t read(quoct::point<T, D>* out, std::size_t max) and void rewind(), "
                      "as quoct::array_points and quoct::io::las_points have");
        path_ = path;
        try {
            if constexpr (is_point_stream<Stream, T, D>::value) run(in);  // (only the assertion above when not)
        } catch (const scratch_error& e) {
            throw file_error(path_, std::string(e.what()) + " (nothing was changed)");
        }
    }

private:
    // --- reading the stream -----------------------------------------------------------

    // Reads the stream through, calling each(point, position), and returns the count and a
    // checksum of the points' bytes (so that the two readings can be compared).
    template <class Stream, class Each>
    std::pair<std::uint64_t, std::uint64_t> each_point(Stream& in, const char* stage, std::uint64_t total, Each&& each) {
        std::vector<point_type> buf(read_points_);
        std::uint64_t count = 0;
        checksum64_stream sum;
        for (;;) {
            const std::size_t k = in.read(buf.data(), buf.size());
            if (k == 0) break;
            if (k > buf.size()) throw std::logic_error("quoct: a point stream's read() gave more points than asked for");
            for (std::size_t i = 0; i < k; ++i) each(buf[i], count + i);
            sum.update(reinterpret_cast<const unsigned char*>(buf.data()), k * sizeof(point_type));
            count += k;
            tell(stage, count, total);
        }
        return {count, sum.finish()};
    }

    template <class Stream>
    void first_reading(Stream& in) {
        bounds_ = data::empty_box();
        std::tie(n_, sum_) = each_point(in, "reading", 0, [&](const point_type& p, std::uint64_t i) {
            for (std::size_t a = 0; a < D; ++a) {
                if (!(std::abs(p[a]) <= std::numeric_limits<T>::max()))
                    throw std::invalid_argument("quoct: point " + std::to_string(i) + " has a NaN or infinite coordinate");
                bounds_.lo[a] = std::min(bounds_.lo[a], p[a]);
                bounds_.hi[a] = std::max(bounds_.hi[a], p[a]);
            }
        });
        if (n_ > std::uint64_t{std::numeric_limits<Id>::max()} / 2 || n_ > std::numeric_limits<std::size_t>::max() / 2)
            throw std::length_error("quoct: " + std::to_string(n_) + " points do not fit the Id type");
    }

    [[noreturn]] void changed(const std::string& what) const {
        throw file_error(path_, "the point source gave other points on its second reading (" + what +
                                    "); nothing was changed");
    }
    void check_same(const point_type& p, std::uint64_t i) const {
        if (i >= n_) changed("more than " + std::to_string(n_) + " points");
        for (std::size_t a = 0; a < D; ++a)
            if (!(p[a] >= bounds_.lo[a] && p[a] <= bounds_.hi[a])) changed("point " + std::to_string(i) + " moved");
    }

    // The second reading's count and checksum against the first's.
    void check_same_all(const std::pair<std::uint64_t, std::uint64_t>& seen) const {
        if (seen.first != n_) changed(std::to_string(seen.first) + " points, not " + std::to_string(n_));
        if (seen.second != sum_) changed("the points' checksums differ");
    }

    template <class Stream>
    void run(Stream& in) {
        in.rewind();
        first_reading(in);
        in.rewind();
        const std::size_t n = static_cast<std::size_t>(n_);
        if (n == 0 || n <= part_points_) return build_in_memory(in);
        layout_ = key_layout_for<D>(n);
        if (layout_.axis_bits == 0) throw std::length_error("quoct: too many points to sort");
        low_ = (std::uint64_t{1} << layout_.index_bits) - 1;
        grid_ = std::make_shared<const quantizer<T, D>>(bounds_, layout_.axis_bits);
        const unsigned key_bits = layout_.axis_bits * static_cast<unsigned>(D);
        key_shift_ = key_bits > 32 ? key_bits - 32 : 0;
        s_ = std::make_unique<sections>(*this);  // the new file beside the target: refused now, not after the sort
        // Sorted runs of the keyed points, merged.
        run_sorter runs(*this, *grid_);
        const auto seen = each_point(in, "sorting", n_, [&](const point_type& p, std::uint64_t i) {
            check_same(p, i);
            runs.add(p, i);
        });
        check_same_all(seen);
        sorted_ = std::make_unique<scratch_file>(runs.finish());
        write_tree();
    }

    // Small enough: the in-memory build, saved.
    template <class Stream>
    void build_in_memory(Stream& in) {
        std::vector<point_type> pts;
        pts.reserve(static_cast<std::size_t>(n_));
        const auto seen = each_point(in, "sorting", n_, [&](const point_type& p, std::uint64_t i) {
            check_same(p, i);
            pts.push_back(p);
        });
        check_same_all(seen);
        data d;
        orthtree_builder<T, D, Id>(d).build(point_source<T, D, point_type>{pts.data(), pts.size()}, o_.tree);
        std::vector<point_type>().swap(pts);
        file_writer w;
        d.write_sections(w, "");
        tell("building", n_, n_);
        w.write(file_codec<orthtree<T, D, Id>>::type_name(), path_);
    }

    // --- sorting ------------------------------------------------------------------------

    // Gathers keyed points in input order, sorts each full batch by item (Morton key, then
    // input position) and writes it as a run; finish() merges the runs.
    class run_sorter {
    public:
        run_sorter(orthtree_file_builder& b, const quantizer<T, D>& q)
            : b_(b), q_(q), runs_(b.temp_dir()), cap_(std::min(b.run_points_, static_cast<std::size_t>(b.n_))) {
            items_.reserve(cap_);
            pts_.reserve(cap_);
            ids_.reserve(cap_);
        }
        // Points must come in increasing input position among equal keys (so the batch
        // position breaks ties as the position does).
        void add(const point_type& p, std::uint64_t id) {
            items_.push_back(q_.key(p) << b_.layout_.index_bits | items_.size());
            pts_.push_back(p);
            ids_.push_back(id);
            if (items_.size() == cap_) flush();
        }
        scratch_file finish() {
            flush();
            raw_vector<std::uint64_t>().swap(items_), raw_vector<std::uint64_t>().swap(scratch_);
            std::vector<point_type>().swap(pts_), std::vector<std::uint64_t>().swap(ids_);
            std::uint64_t done = 0;
            return merge_runs(std::move(runs_), list_, record, b_.merge_bytes_, b_.temp_dir(), [&](std::size_t k) {
                done += k;
                b_.tell("merging", done, list_.size());
            });
        }

    private:
        void flush() {
            if (items_.empty()) return;
            radix_sort(items_, scratch_, b_.layout_.index_bits, b_.layout_.axis_bits * static_cast<unsigned>(D));
            buffered_writer<scratch_file> w(runs_, written_ * record, b_.io_);
            unsigned char r[record];
            for (const std::uint64_t it : items_) {
                const std::size_t j = static_cast<std::size_t>(it & b_.low_);
                const std::uint64_t item = (it & ~b_.low_) | ids_[j];
                std::memcpy(r, &item, 8);
                std::memcpy(r + 8, &pts_[j][0], D * sizeof(T));
                w.put(r, record);
            }
            w.flush();
            list_.push_back(record_run{written_, items_.size()});
            written_ += items_.size();
            items_.clear(), pts_.clear(), ids_.clear();
        }

        orthtree_file_builder& b_;
        const quantizer<T, D>& q_;
        scratch_file runs_;
        std::size_t cap_;
        raw_vector<std::uint64_t> items_, scratch_;
        std::vector<point_type> pts_;
        std::vector<std::uint64_t> ids_;
        std::vector<record_run> list_;
        std::uint64_t written_ = 0;
    };

    static void unpack(const unsigned char* r, std::uint64_t& item, point_type& p) noexcept {
        std::memcpy(&item, r, 8);
        std::memcpy(&p[0], r + 8, D * sizeof(T));
    }
    std::uint64_t key_at(std::size_t i) const {
        std::uint64_t item;
        sorted_->read(&item, 8, std::uint64_t{i} * record);
        return item >> layout_.index_bits;
    }
    template <class Each>
    void each_record(std::size_t b, std::size_t e, Each&& each) const {
        record_reader r(*sorted_, record, b, e - b, io_);
        std::uint64_t item;
        point_type p;
        for (std::size_t i = b; i < e; ++i) {
            unpack(r.next(), item, p);
            each(item, p, i);
        }
    }

    // Re-sorts the sorted file's [b, e) on a grid fitted to its points, as the in-memory
    // build's requantize does: its keys are all equal, so its points are in input order.
    void requantize(std::size_t b, std::size_t e) {
        box_type fit = data::empty_box();
        each_record(b, e, [&](std::uint64_t, const point_type& p, std::size_t) {
            for (std::size_t a = 0; a < D; ++a) fit.lo[a] = std::min(fit.lo[a], p[a]), fit.hi[a] = std::max(fit.hi[a], p[a]);
        });
        const quantizer<T, D> q(fit, layout_.axis_bits);
        run_sorter runs(*this, q);
        each_record(b, e, [&](std::uint64_t item, const point_type& p, std::size_t) { runs.add(p, item & low_); });
        const scratch_file resorted = runs.finish();
        record_reader r(resorted, record, 0, e - b, io_);
        buffered_writer<scratch_file> w(*sorted_, std::uint64_t{b} * record, io_);
        for (std::size_t i = b; i < e; ++i) w.put(r.next(), record);
        w.flush();
    }

    // --- the tree -----------------------------------------------------------------------

    // A node over more points than a part holds, open until its last child is done.
    struct top_node {
        std::size_t index, begin, children_left;
        box_type box;
        std::uint32_t key;
        bool keyed;
    };
    struct patch {
        std::size_t index;
        node n;
        std::uint32_t key;
    };
    // What a finished child hands its parent.
    struct done_child {
        box_type box;
        std::uint32_t key;
    };

    // The new file's sections and where they go.
    struct sections {
        atomic_file out;
        std::vector<std::uint64_t> at;  // offsets of meta, bounds, coords, ids
        std::vector<buffered_writer<atomic_file>> axis;
        buffered_writer<atomic_file> ids;
        scratch_file nodes, keys, parents;
        buffered_writer<scratch_file> node_w, key_w, parent_w;
        sections(const orthtree_file_builder& b)
            : out(b.path_), at(offsets(b.n_)), ids(out, at[3], b.io_), nodes(b.temp_dir()), keys(b.temp_dir()),
              parents(b.temp_dir()), node_w(nodes, 0, b.io_), key_w(keys, 0, b.io_), parent_w(parents, 0, b.io_) {
            for (std::size_t a = 0; a < D; ++a) axis.emplace_back(out, at[2] + a * b.n_ * sizeof(T), b.io_);
        }
        static std::vector<std::uint64_t> offsets(std::uint64_t n) {
            file_writer w;
            add_sections(w, n, 0);
            return w.offsets();
        }
    };
    static void add_sections(file_writer& w, std::uint64_t n, std::uint64_t nodes, bool keyed = false) {
        w.add_external("meta", 8 * data::meta_count, 8);
        w.add_external("bounds", 2 * D * sizeof(T), sizeof(T));
        w.add_external("coords", D * n * sizeof(T), sizeof(T));
        w.add_external("ids", n * sizeof(Id), sizeof(Id));
        w.add_external("nodes", (nodes + 1) * sizeof(node), sizeof(node));
        w.add_external("node_keys", keyed ? nodes * 4 : 0, 4);
        w.add_external("parents", keyed ? nodes * sizeof(Id) : 0, sizeof(Id));
    }

    void put_node(const node& nd, std::uint32_t key, std::size_t parent) {
        unsigned char bytes[sizeof(node)];
        data::node_bytes(nd, bytes);
        s_->node_w.put(bytes, sizeof(node));
        if (!tree_.nearest_index) return;
        s_->key_w.put(&key, 4);
        const Id p = static_cast<Id>(parent);
        s_->parent_w.put(&p, sizeof(Id));
    }
    void put_point(const point_type& p, std::uint64_t id) {
        for (std::size_t a = 0; a < D; ++a) s_->axis[a].put(&p[a], sizeof(T));
        const Id i = static_cast<Id>(id);
        s_->ids.put(&i, sizeof(Id));
    }
    static void set_box(node& nd, const box_type& b) noexcept {
        for (std::size_t a = 0; a < D; ++a) nd.lo[a] = b.lo[a], nd.hi[a] = b.hi[a];
    }
    static void grow(box_type& b, const box_type& by) noexcept {
        for (std::size_t a = 0; a < D; ++a) b.lo[a] = std::min(b.lo[a], by.lo[a]), b.hi[a] = std::max(b.hi[a], by.hi[a]);
    }
    std::uint32_t key_of(const point_type& p) const {
        return static_cast<std::uint32_t>(grid_->key(p) >> key_shift_);
    }

    // A part: the subtree over sorted [t.b, t.e), built in memory and appended.
    done_child write_part(const build_pending& t, std::size_t parent) {
        const std::size_t m = t.e - t.b;
        raw_vector<std::uint64_t> items(m);
        std::vector<point_type> pts(m);
        std::vector<std::uint64_t> ids(m);
        each_record(t.b, t.e, [&](std::uint64_t item, const point_type& p, std::size_t i) {
            const std::size_t j = i - t.b;
            items[j] = (item & ~low_) | j;
            pts[j] = p;
            ids[j] = item & low_;
        });
        data d;
        orthtree_builder<T, D, Id>(d).build_part(point_source<T, D, point_type>{pts.data(), m}, std::move(items),
                                                 layout_, build_pending{0, m, t.depth, t.bits_left, t.fresh}, bounds_,
                                                 tree_);
        const std::size_t first = count_, nodes = d.nodes_in_tree();
        for (std::size_t i = 0; i < nodes; ++i) {
            node nd = d.nodes_[i];
            nd.begin = static_cast<Id>(nd.begin + t.b);
            nd.skip = static_cast<Id>(nd.skip + first);
            put_node(nd, tree_.nearest_index ? d.node_keys_[i] : 0,
                     i == 0 ? parent : tree_.nearest_index ? d.parents_[i] + first : 0);
        }
        for (std::size_t i = 0; i < m; ++i) put_point(d.point_at(i), ids[d.ids_[i]]);
        count_ += nodes;
        depth_ = std::max(depth_, d.depth_);
        tell("building", t.e, n_);
        box_type root;
        for (std::size_t a = 0; a < D; ++a) root.lo[a] = d.nodes_[0].lo[a], root.hi[a] = d.nodes_[0].hi[a];
        return done_child{root, tree_.nearest_index ? d.node_keys_[0] : 0};
    }

    // A leaf over more points than a part holds (at max_depth, or all equal): streamed.
    done_child write_big_leaf(const build_pending& t, std::size_t parent) {
        // The box in two lanes, even and odd positions, combined as tight_bounds combines
        // them: where -0 and +0 are both extreme, the same zero as the in-memory build's.
        box_type lane[2] = {data::empty_box(), data::empty_box()};
        std::uint32_t key = 0;
        each_record(t.b, t.e, [&](std::uint64_t item, const point_type& p, std::size_t i) {
            if (i == t.b && tree_.nearest_index) key = key_of(p);
            box_type& l = lane[(i - t.b) & 1];
            for (std::size_t a = 0; a < D; ++a) l.lo[a] = std::min(l.lo[a], p[a]), l.hi[a] = std::max(l.hi[a], p[a]);
            put_point(p, item & low_);
        });
        box_type b;
        for (std::size_t a = 0; a < D; ++a)
            b.lo[a] = std::min(lane[0].lo[a], lane[1].lo[a]), b.hi[a] = std::max(lane[0].hi[a], lane[1].hi[a]);
        node nd{};
        set_box(nd, b);
        nd.begin = static_cast<Id>(t.b);
        nd.skip = static_cast<Id>(count_ + 1);
        put_node(nd, key, parent);
        ++count_;
        depth_ = std::max(depth_, t.depth);
        tell("building", t.e, n_);
        return done_child{b, key};
    }

    // The nodes in pre-order, as orthtree_builder::build_nodes makes them.
    void write_nodes() {
        std::vector<build_pending> todo;
        std::vector<top_node> up;
        std::size_t run_start[fanout + 1];
        const std::size_t n = static_cast<std::size_t>(n_);
        build_pending t{0, n, 0, layout_.axis_bits, true};
        for (;;) {
            const std::size_t parent = up.empty() ? 0 : up.back().index;
            done_child c;
            if (t.e - t.b <= part_points_) {
                c = write_part(t, parent);
            } else {
                const std::size_t ni = count_;
                const std::size_t runs =
                    t.depth >= tree_.max_depth
                        ? 0
                        : split_runs<D>([&](std::size_t i) { return key_at(i); },
                                        [&](const build_pending& r) { requantize(r.b, r.e); }, t, layout_.axis_bits,
                                        tree_.leaf_size, run_start);
                if (runs != 0) {
                    put_node(node{}, 0, parent);  // patched when its last child is done
                    ++count_;
                    up.push_back(top_node{ni, t.b, runs, data::empty_box(), 0, false});
                    for (std::size_t k = runs; k-- > 1;)
                        todo.push_back(build_pending{run_start[k], run_start[k + 1], t.depth + 1, t.bits_left - 1, false});
                    t = build_pending{run_start[0], run_start[1], t.depth + 1, t.bits_left - 1, false};
                    continue;
                }
                c = write_big_leaf(t, parent);
            }
            for (top_node& o : up)  // the open nodes this child begins: their first point's key
                if (!o.keyed) o.key = c.key, o.keyed = true;
            while (!up.empty()) {  // close the ancestors whose last child this was
                top_node& o = up.back();
                grow(o.box, c.box);
                if (--o.children_left != 0) break;
                node nd{};
                set_box(nd, o.box);
                nd.begin = static_cast<Id>(o.begin);
                nd.skip = static_cast<Id>(count_);
                patches_.push_back(patch{o.index, nd, o.key});
                c = done_child{o.box, o.key};
                up.pop_back();
            }
            if (todo.empty()) return;
            t = todo.back();
            todo.pop_back();
        }
    }

    void write_tree() {
        write_nodes();
        node end{};
        end.begin = static_cast<Id>(n_);
        unsigned char bytes[sizeof(node)];
        data::node_bytes(end, bytes);
        s_->node_w.put(bytes, sizeof(node));
        for (auto& w : s_->axis) w.flush();
        s_->ids.flush(), s_->node_w.flush(), s_->key_w.flush(), s_->parent_w.flush();
        sorted_.reset();
        for (const patch& p : patches_) {
            data::node_bytes(p.n, bytes);
            s_->nodes.write(bytes, sizeof(node), std::uint64_t{p.index} * sizeof(node));
            if (tree_.nearest_index) s_->keys.write(&p.key, 4, std::uint64_t{p.index} * 4);
        }
        finish_file();
    }

    // The node sections copied in, the small ones written, every checksum, the header.
    void finish_file() {
        const bool keyed = tree_.nearest_index;
        file_writer w;
        add_sections(w, n_, count_, keyed);
        const std::vector<std::uint64_t> at = w.offsets();
        atomic_file& out = s_->out;
        std::vector<unsigned char> buf(io_);
        const auto copy = [&](const scratch_file& from, std::uint64_t bytes, std::uint64_t to) {
            for (std::uint64_t done = 0; done < bytes;) {
                const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), bytes - done));
                from.read(buf.data(), k, done);
                out.write(buf.data(), k, to + done);
                done += k;
            }
        };
        copy(s_->nodes, (count_ + 1) * sizeof(node), at[4]);
        if (keyed) copy(s_->keys, count_ * 4, at[5]), copy(s_->parents, count_ * sizeof(Id), at[6]);
        const std::vector<std::uint64_t> meta =
            data::meta_values(static_cast<std::size_t>(n_), depth_, tree_, keyed ? layout_.axis_bits : 0u,
                              keyed ? key_shift_ : 0u, count_);
        out.write(meta.data(), meta.size() * 8, at[0]);
        T b[2 * D];
        for (std::size_t a = 0; a < D; ++a) b[a] = bounds_.lo[a], b[D + a] = bounds_.hi[a];
        out.write(b, sizeof b, at[1]);
        out.resize(at.back());
        const std::uint64_t bytes[7] = {8 * data::meta_count, 2 * D * sizeof(T), D * n_ * sizeof(T), n_ * sizeof(Id),
                                        (count_ + 1) * sizeof(node), keyed ? count_ * 4 : 0,
                                        keyed ? count_ * sizeof(Id) : 0};
        for (std::size_t i = 0; i < 7; ++i) {
            block_sums_stream c;
            for (std::uint64_t done = 0; done < bytes[i];) {
                const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), bytes[i] - done));
                out.read(buf.data(), k, at[i] + done);
                c.update(buf.data(), k);
                done += k;
            }
            w.set_block_sums(i, c.finish());
            tell("checking", i + 1, 7);
        }
        const std::vector<std::uint64_t> sums = w.sums_section();
        out.write(sums.data(), sums.size() * 8, at[7]);
        const std::vector<unsigned char> head = w.header(file_codec<orthtree<T, D, Id>>::type_name());
        out.write(head.data(), head.size(), 0);
        out.commit();
    }
    void tell(const char* stage, std::uint64_t done, std::uint64_t total) const {
        if (o_.progress) o_.progress(build_progress{stage, done, total});
    }
    std::string temp_dir() const {
        if (!o_.temp_dir.empty()) return o_.temp_dir;
        const std::string::size_type slash = path_.rfind('/');
        return slash == std::string::npos ? "." : slash == 0 ? "/" : path_.substr(0, slash);
    }

    const build_file_options& o_;
    build_options tree_;
    std::size_t budget_, io_, part_bytes_, part_points_, run_points_, read_points_, merge_bytes_;
    std::string path_;
    std::uint64_t n_ = 0, sum_ = 0;
    box_type bounds_;
    key_layout layout_{1, 0};
    std::uint64_t low_ = 0;
    std::shared_ptr<const quantizer<T, D>> grid_;
    unsigned key_shift_ = 0;
    std::unique_ptr<scratch_file> sorted_;
    std::unique_ptr<sections> s_;
    std::vector<patch> patches_;
    std::size_t count_ = 0, depth_ = 0;
};

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_ORTHTREE_BUILD_FILE_HPP
