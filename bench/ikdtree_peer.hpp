// quoct benchmarks: ikd-Tree (Cai, Xu, Zhang, 2021; hku-mars/ikd-Tree) as a peer of the
// growing-map benchmark. Nothing of ikd-Tree is copied here: its ikd_Tree.h is included and
// its ikd_Tree.cpp compiled from the checkout given by path, with ikdtree_shim/ first on the
// include path (its header includes <pcl/point_types.h>; the shim stands in for PCL) and
// Eigen 3 (its PointVector uses Eigen::aligned_allocator). ikd_Tree.cpp explicitly
// instantiates KD_TREE for its own ikdTree_PointType and three PCL types, so it is compiled
// once, as its own source, and this header only declares what it uses.
//
// How it is called, the way FAST-LIO calls it: KD_TREE(0.5, 0.6, 0.2) (its defaults: delete
// criterion 0.5, balance criterion 0.6, downsampling voxel 0.2, the voxel unused here since
// every Add_Points passes downsample_on = false, which skips the voxel code entirely); the
// first batch goes to Build (Add_Points on an empty tree dereferences its null root);
// Nearest_Search(q, 5) gives squared distances, ascending (but see below); Radius_Search;
// Delete_Points by coordinates; Delete_Point_Boxes. The point type is ikd-Tree's own ikdTree_PointType (three
// floats), the leanest it offers.
//
// Its background thread. KD_TREE starts a thread in its constructor that polls every 100 us
// and rebuilds any subtree of 1500 points or more that an update found unbalanced, while the
// updates go on and are logged to be replayed on the new subtree. By default this adapter
// waits, after every insert, move and erase_outside, until no such rebuild is pending or
// running (wait_for_rebuild), so that queries never overlap a rebuild: the answers are then
// deterministic and free of the thread's races (its Radius_Search, unlike Nearest_Search,
// does not wait on the rebuild's search counter), and the memory measured after an update has
// the replaced subtree freed. The rebuild's work is still done on that thread, so it is not in the calling
// thread's CPU time: rebuild_thread_cpu_seconds() gives the thread's CPU time, its rebuilds
// plus its polling (about 0.11 s of CPU per second of wall time even when idle), for a
// benchmark to report. ikdtree_map(false) leaves the thread asynchronous, as ikd-Tree is meant
// to run; then a query right after an update can overlap a rebuild, and Radius_Search has been
// seen to miss points then (49 found of 193 just after an erase_outside).
//
// ikd-Tree offers no way to wait for, or see, its thread: the wait reads its private
// Rebuild_Ptr under its own rebuild_ptr_mutex_lock, reached through pointers to members named
// in explicit instantiations (where C++ does not check access: [temp.explicit] in C++17), in an
// unnamed namespace so that each translation unit has its own. The same way the adapter frees
// the tree's sentinel node (STATIC_ROOT_NODE), which ~KD_TREE leaks.
//
// Memory: ikd-Tree has no memory call; measure heap deltas (mallinfo2, which sums every
// malloc arena, the rebuild thread's included). A KD_TREE holds its rebuild log, an array of
// Q_LEN = 10^6 logged operations (44 bytes each with this point type: 44 MB, constructed, so
// touched), inside the object itself, whatever the map's size; each point then costs one
// 136-byte node (a pthread mutex included), 144 bytes with malloc's header.
//
// Answers (checked against brute force and against quoct; see the report with this file):
// - knn5: Nearest_Search's distances are squared float distances computed as
//   (a.x-b.x)^2 + (a.y-b.y)^2 + (a.z-b.z)^2 in that order, the same floats as
//   quoct::distance_sq<float> without FMA contraction; fewer than 5 points pad with +inf.
//   Its heap orders two candidates whose squared distances differ by less than 1e-10 (an
//   absolute tolerance) by x instead, so when squared neighbour distances come within 1e-10
//   of each other (coordinates below about 1e-3 apart) its answer is out of order, which
//   knn5 sorts away, and can also hold a farther point in place of a nearer one, which it
//   cannot. On the bunny (d^2 around 1e-4) neither was seen in 1.2M queries.
// - radius: Radius_Search keeps every point with that d^2 <= r*r (the closed ball: boundary
//   points ARE counted), and in the last bits a few more: it accepts whole subtrees, a leaf
//   included, when sqrt(d^2 to the node's box centre) <= r - the box's half diagonal, in
//   float, so a point with d^2 just above r*r but sqrt(d^2) <= r can be counted. Never fewer.
// - Delete_Points deletes, per point given, the first live point met on the way down the tree
//   whose coordinates are within 1e-6 of it on every axis (ikd-Tree's EPSS, an absolute
//   tolerance, so with coordinates closer than that it can delete a neighbour instead): one
//   point, not all equal ones. The way down sends a coordinate equal to a node's split value
//   right, while Build and rebuilds (nth_element) may have put such points on the left, so a
//   point sharing its split coordinate with an ancestor is missed: nothing is deleted, nothing
//   reported, and the point stays as a ghost. Coordinates shared that way are common among
//   floats: the benchmark's scan (1M bunny points, 100 steps moving 1%) left 3 to 13 ghosts
//   per run, enough to change some knn5 answers. move_deletes_by_box avoids that.
// - erase_outside: Delete_Point_Boxes deletes the points with min <= p < max on every axis
//   (half-open). The six slabs around [lo, hi] are therefore [-inf, lo) below, exact, and
//   [nextafter(hi, +inf), +inf) above, so a point on a face stays.
//
// Its header puts `using namespace std;` at global scope and defines the global names
// KD_TREE, MANUAL_Q, BoxPointType, ikdTree_PointType and the enumerators of operation_set and
// delete_point_storage_set; its object-like macros are undefined again below. Its constructor
// prints "Multi thread started" and its destructor "Rebuild thread terminated normally" on
// stdout.
#ifndef QUOCT_BENCH_IKDTREE_PEER_HPP
#define QUOCT_BENCH_IKDTREE_PEER_HPP

#include <quoct/shapes.hpp>

#include <ikd_Tree.h>

#include <pthread.h>
#include <time.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

// ikd_Tree.h's object-like macros, used only by ikd_Tree.cpp (Q_LEN has been used already,
// by MANUAL_Q's array).
#undef EPSS
#undef Minimal_Unbalanced_Tree_Size
#undef Multi_Thread_Rebuild_Point_Num
#undef DOWNSAMPLE_SWITCH
#undef ForceRebuildPercentage
#undef Q_LEN

namespace quoct_bench {
namespace {
namespace ikdtree_access {

using tree = KD_TREE<ikdTree_PointType>;
using node = tree::KD_TREE_NODE;

// member(Tag{}) returns a pointer to the private member the explicit instantiation below names.
template <class Tag, typename Tag::type Member>
struct grant {
    friend typename Tag::type member(Tag) { return Member; }
};
struct rebuild_ptr {
    using type = node** tree::*;
    friend type member(rebuild_ptr);
};
struct rebuild_ptr_lock {
    using type = pthread_mutex_t tree::*;
    friend type member(rebuild_ptr_lock);
};
struct rebuild_thread {
    using type = pthread_t tree::*;
    friend type member(rebuild_thread);
};
struct static_root {
    using type = node* tree::*;
    friend type member(static_root);
};
template struct grant<rebuild_ptr, &tree::Rebuild_Ptr>;
template struct grant<rebuild_ptr_lock, &tree::rebuild_ptr_mutex_lock>;
template struct grant<rebuild_thread, &tree::rebuild_thread>;
template struct grant<static_root, &tree::STATIC_ROOT_NODE>;

}  // namespace ikdtree_access

// In the unnamed namespace too: it uses the grants above, which are each translation unit's own.
struct ikdtree_map {
    static constexpr const char* name = "ikd-Tree";
    using tree_type = KD_TREE<ikdTree_PointType>;
    using point_vector = tree_type::PointVector;
    using fpoint = quoct::point<float, 3>;

    ikdtree_map() : ikdtree_map(true) {}
    // wait_for_rebuilds: after each update, wait until no background rebuild is pending or
    // running (see the top of this file); false leaves ikd-Tree's thread asynchronous.
    explicit ikdtree_map(bool wait_for_rebuilds)
        : tree_(std::make_unique<tree_type>(0.5f, 0.6f, 0.2f)),  // 44 MB: never on the stack
          sync_(wait_for_rebuilds) {}
    ikdtree_map(const ikdtree_map&) = delete;
    ikdtree_map& operator=(const ikdtree_map&) = delete;
    ~ikdtree_map() {
        wait_for_rebuild();
        tree_type::KD_TREE_NODE* sentinel = tree_.get()->*member(ikdtree_access::static_root{});
        tree_.reset();  // stops and joins the thread, frees the nodes under the root
        free_sentinel(sentinel);
    }

    // A batch: Build when the tree is empty (its first batch, or after every point went),
    // else Add_Points without downsampling.
    void insert(const std::vector<fpoint>& pts) {
        to_vector(pts, buf_);
        add(buf_);
        settle();
    }

    // The 5 smallest squared distances, ascending, +inf past the points held. Sorted here:
    // Nearest_Search returns them in its heap's order, which is not ascending when two
    // differ by less than 1e-10 (see the top of this file).
    void knn5(const fpoint& q, float out[5]) {
        tree_->Nearest_Search(of(q), 5, found_, dist_);
        std::size_t i = 0;
        for (; i < dist_.size() && i < 5; ++i) out[i] = dist_[i];
        for (; i < 5; ++i) out[i] = std::numeric_limits<float>::infinity();
        for (std::size_t j = 1; j < 5; ++j)  // insertion sort of five
            for (std::size_t k = j; k > 0 && out[k] < out[k - 1]; --k) std::swap(out[k], out[k - 1]);
    }

    // The number of points Radius_Search finds: those with float d^2 <= r*r (closed ball),
    // but for its whole-subtree tests in the last bits (see the top of this file).
    std::size_t radius(const fpoint& q, float r) {
        tree_->Radius_Search(of(q), r, found_);
        return found_.size();
    }

    // Each pair is (old position, new position) of one point: Delete_Points on the old
    // coordinates (one point each, and it can miss one: see the top of this file), then the
    // new ones added. With move_deletes_by_box set, the old positions are deleted instead by
    // Delete_Point_Boxes, one box [p, nextafter(p, +inf)) per point, which misses none but
    // deletes every live point with exactly those coordinates.
    bool move_deletes_by_box = false;
    void move(const std::vector<std::pair<fpoint, fpoint>>& step) {
        if (move_deletes_by_box) {
            constexpr float inf = std::numeric_limits<float>::infinity();
            boxes_.resize(step.size());
            for (std::size_t i = 0; i < step.size(); ++i)
                for (std::size_t a = 0; a < 3; ++a) {
                    boxes_[i].vertex_min[a] = step[i].first[a];
                    boxes_[i].vertex_max[a] = std::nextafter(step[i].first[a], inf);
                }
            tree_->Delete_Point_Boxes(boxes_);
        } else {
            buf_.resize(step.size());
            for (std::size_t i = 0; i < step.size(); ++i) buf_[i] = of(step[i].first);
            tree_->Delete_Points(buf_);
        }
        buf_.resize(step.size());
        for (std::size_t i = 0; i < step.size(); ++i) buf_[i] = of(step[i].second);
        add(buf_);
        settle();
    }

    // Deletes every point outside the closed box [lo, hi] (points on its faces stay), by
    // Delete_Point_Boxes on six slabs: its boxes are half-open [min, max), so the slab below
    // a face ends at the face and the slab above starts one float past it.
    void erase_outside(const fpoint& lo, const fpoint& hi) {
        constexpr float inf = std::numeric_limits<float>::infinity();
        boxes_.clear();
        for (int a = 0; a < 3; ++a) {
            BoxPointType below, above;
            for (int c = 0; c < 3; ++c) {
                below.vertex_min[c] = above.vertex_min[c] = -inf;
                below.vertex_max[c] = above.vertex_max[c] = inf;
            }
            below.vertex_max[a] = lo[static_cast<std::size_t>(a)];
            above.vertex_min[a] = std::nextafter(hi[static_cast<std::size_t>(a)], inf);
            boxes_.push_back(below);
            boxes_.push_back(above);
        }
        tree_->Delete_Point_Boxes(boxes_);
        settle();
    }

    // Live points held (validnum(): nodes minus those marked deleted).
    std::size_t size() {
        int n = tree_->validnum();
        if (n < 0) {  // the root is being rebuilt (asynchronous mode only)
            wait_for_rebuild();
            n = tree_->validnum();
        }
        return static_cast<std::size_t>(n);
    }

    // Waits until ikd-Tree's thread has no rebuild pending or running.
    void wait_for_rebuild() {
        tree_type::KD_TREE_NODE** const& pending = tree_.get()->*member(ikdtree_access::rebuild_ptr{});
        pthread_mutex_t& lock = tree_.get()->*member(ikdtree_access::rebuild_ptr_lock{});
        for (;;) {
            pthread_mutex_lock(&lock);  // held by the thread for the whole of a rebuild
            const bool idle = pending == nullptr;
            pthread_mutex_unlock(&lock);
            if (idle) return;
            const timespec nap{0, 20000};  // the thread looks every 100 us
            nanosleep(&nap, nullptr);
        }
    }

    // CPU time of ikd-Tree's background thread so far (its rebuilds and its polling), in
    // seconds; -1 if it cannot be read.
    double rebuild_thread_cpu_seconds() const {
        clockid_t clock;
        if (pthread_getcpuclockid(tree_.get()->*member(ikdtree_access::rebuild_thread{}), &clock) != 0) return -1;
        timespec ts;
        if (clock_gettime(clock, &ts) != 0) return -1;
        return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
    }

    tree_type& tree() { return *tree_; }

private:
    std::unique_ptr<tree_type> tree_;
    bool sync_;
    point_vector buf_, found_;
    std::vector<float> dist_;
    std::vector<BoxPointType> boxes_;

    static ikdTree_PointType of(const fpoint& p) { return ikdTree_PointType(p[0], p[1], p[2]); }
    static void to_vector(const std::vector<fpoint>& pts, point_vector& out) {
        out.resize(pts.size());
        for (std::size_t i = 0; i < pts.size(); ++i) out[i] = of(pts[i]);
    }
    static void free_sentinel(tree_type::KD_TREE_NODE* sentinel) {
        if (sentinel == nullptr) return;
        pthread_mutex_destroy(&sentinel->push_down_mutex_lock);
        delete sentinel;
    }

    void add(point_vector& pts) {
        if (pts.empty()) return;
        if (tree_->Root_Node == nullptr) {
            // Empty: Add_Points would dereference the null root. Build makes a new sentinel
            // without freeing the old one (after the tree emptied): free it first.
            wait_for_rebuild();
            tree_type::KD_TREE_NODE*& sentinel = tree_.get()->*member(ikdtree_access::static_root{});
            free_sentinel(sentinel);
            sentinel = nullptr;
            tree_->Build(pts);
        } else {
            tree_->Add_Points(pts, false);
        }
    }
    void settle() {
        if (sync_) wait_for_rebuild();
    }
};

}  // namespace
}  // namespace quoct_bench

#endif
