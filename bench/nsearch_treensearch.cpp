// Compiled with TreeNSearch's flags (-mavx2 -mfma); see nsearch_treensearch.hpp.
#include "nsearch_treensearch.hpp"

#include <TreeNSearch>

namespace nsearch_peer {

bool treensearch_supported() {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("popcnt");
}

struct treensearch::impl {
    tns::TreeNSearch search;
};

treensearch::treensearch(const float* xyz, int n, float r, int threads) : impl_(new impl) {
    tns::TreeNSearch& s = impl_->search;
    s.set_n_threads(threads);
    s.set_search_radius(r);
    const int set = s.add_point_set(xyz, n);
    s.set_active_search(set, set);
    s.run();
}

treensearch::~treensearch() = default;

void treensearch::run() { impl_->search.run(); }

int treensearch::count(int i) const { return impl_->search.get_neighborlist(0, 0, i).size(); }

const int* treensearch::row(int i) const { return impl_->search.get_neighborlist(0, 0, i).get_ptr(); }

}  // namespace nsearch_peer
