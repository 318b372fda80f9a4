// bench_simd_dispatch: xsimd's runtime dispatch over the kernels of xsimd_kernels.hpp. This
// file is compiled for the x86-64 baseline, so it holds the SSE2 instantiation too; the
// others are only declared here (their own files are compiled for their instruction sets).
#include "peers.hpp"
#include "xsimd_kernels.hpp"

QUOCT_XSIMD_INSTANTIATE(extern, xsimd::avx2)
QUOCT_XSIMD_INSTANTIATE(extern, xsimd::avx512bw)
QUOCT_XSIMD_INSTANTIATE(, xsimd::sse2)

namespace simd_dispatch {
namespace xs {
namespace {

// Level k dispatches over the list from entry k on, so that a lower level can be timed on a
// CPU that has a higher one; level 0 is the whole list, the call a user writes.
using list0 = xsimd::arch_list<xsimd::avx512bw, xsimd::avx2, xsimd::sse2>;
using list1 = xsimd::arch_list<xsimd::avx2, xsimd::sse2>;
using list2 = xsimd::arch_list<xsimd::sse2>;

template <class F, class... Args>
std::size_t call(std::size_t level, Args... args) {
    static auto d0 = xsimd::dispatch<list0>(F{});
    static auto d1 = xsimd::dispatch<list1>(F{});
    static auto d2 = xsimd::dispatch<list2>(F{});
    switch (level) {
        case 0: return d0(args...);
        case 1: return d1(args...);
        default: return d2(args...);
    }
}

}  // namespace

std::vector<std::size_t> levels() {
    const auto& have = xsimd::available_architectures();
    std::vector<std::size_t> out;
    if (have.avx512bw) out.push_back(0);
    if (have.avx2) out.push_back(1);
    out.push_back(2);
    return out;
}

std::size_t count_within(std::size_t level, const float* p, const float* const* c, std::size_t first,
                         std::size_t last, float r2) {
    return call<count_fn>(level, p, c, first, last, r2);
}

std::size_t hit_ids(std::size_t level, const float* p, const float* const* c, const std::uint32_t* ids,
                    std::size_t first, std::size_t last, float r2, std::uint32_t* out) {
    return call<hit_ids_fn>(level, p, c, ids, first, last, r2, out);
}

}  // namespace xs
}  // namespace simd_dispatch
