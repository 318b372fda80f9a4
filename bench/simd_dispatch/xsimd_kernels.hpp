// bench_simd_dispatch: the kernel with xsimd 8 (see peers.hpp for the contract). xsimd's
// runtime dispatch is its documented pattern: a functor whose operator() is a template on
// the architecture, explicitly instantiated once per architecture in a translation unit
// compiled for it (xsimd_avx2.cpp with -mavx2, xsimd_avx512bw.cpp with -mavx512bw and the
// rest), and xsimd::dispatch<arch_list<...>> choosing one by cpuid (xsimd_dispatch.cpp).
#ifndef QUOCT_BENCH_SIMD_DISPATCH_XSIMD_KERNELS_HPP
#define QUOCT_BENCH_SIMD_DISPATCH_XSIMD_KERNELS_HPP

#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace simd_dispatch {
namespace xs {

/// 0, 1, 2, ...: the lane numbers, for the tail's mask.
alignas(64) inline constexpr std::int32_t lane_numbers[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

/// The lanes of candidates i.. within r2 of (px, py, pz). The sum is written in quoct's
/// order, ((dx dx + dy dy) + dz dz); -ffp-contract=off keeps every product rounded.
template <class Arch>
inline xsimd::batch_bool<float, Arch> within(const xsimd::batch<float, Arch>& px, const xsimd::batch<float, Arch>& py,
                                             const xsimd::batch<float, Arch>& pz, const xsimd::batch<float, Arch>& rr,
                                             const float* const* c, std::size_t i) noexcept {
    using B = xsimd::batch<float, Arch>;
    const B dx = px - B::load_unaligned(c[0] + i);
    const B dy = py - B::load_unaligned(c[1] + i);
    const B dz = pz - B::load_unaligned(c[2] + i);
    return dx * dx + dy * dy + dz * dz <= rr;
}

/// The lanes below `left` (as an int32 mask), for the last, partial vector.
template <class Arch>
inline xsimd::batch_bool<float, Arch> lanes_below(std::size_t left) noexcept {
    using I = xsimd::batch<std::int32_t, Arch>;
    const I lane = I::load_aligned(lane_numbers);
    return xsimd::bool_cast(lane < I(static_cast<std::int32_t>(std::min<std::size_t>(left, I::size))));
}

struct count_fn {
    template <class Arch>
    std::size_t operator()(Arch, const float* p, const float* const* c, std::size_t first, std::size_t last,
                           float r2) const noexcept;
};

struct hit_ids_fn {
    template <class Arch>
    std::size_t operator()(Arch, const float* p, const float* const* c, const std::uint32_t* ids, std::size_t first,
                           std::size_t last, float r2, std::uint32_t* out) const noexcept;
};

// Counting: the hits of each vector as 1s in an int32 accumulator (xsimd 8 has no mask to
// bits and no popcount), summed across lanes at the end.
template <class Arch>
std::size_t count_fn::operator()(Arch, const float* p, const float* const* c, std::size_t first, std::size_t last,
                                 float r2) const noexcept {
    using B = xsimd::batch<float, Arch>;
    using I = xsimd::batch<std::int32_t, Arch>;
    constexpr std::size_t lanes = B::size;
    const B px(p[0]), py(p[1]), pz(p[2]), rr(r2);
    const I one(1), zero(0);
    I sum(0);
    std::size_t i = first;
    for (; i + lanes <= last; i += lanes)
        sum += xsimd::select(xsimd::bool_cast(within<Arch>(px, py, pz, rr, c, i)), one, zero);
    if (i < last)
        sum += xsimd::select(xsimd::bool_cast(within<Arch>(px, py, pz, rr, c, i) & lanes_below<Arch>(last - i)), one,
                             zero);
    return static_cast<std::size_t>(xsimd::hadd(sum));
}

// Hit ids: xsimd 8 has no compress and no mask to bits either, so the mask goes out as
// bools and the ids are compressed by the branch-free scalar loop (vectors without a hit
// are skipped first, as quoct's kernels do).
template <class Arch>
std::size_t hit_ids_fn::operator()(Arch, const float* p, const float* const* c, const std::uint32_t* ids,
                                   std::size_t first, std::size_t last, float r2, std::uint32_t* out) const noexcept {
    using B = xsimd::batch<float, Arch>;
    constexpr std::size_t lanes = B::size;
    const B px(p[0]), py(p[1]), pz(p[2]), rr(r2);
    std::size_t n = 0;
    for (std::size_t i = first; i < last; i += lanes) {
        xsimd::batch_bool<float, Arch> in = within<Arch>(px, py, pz, rr, c, i);
        if (i + lanes > last) in = in & lanes_below<Arch>(last - i);
        if (!xsimd::any(in)) continue;
        alignas(64) bool hit[lanes];
        in.store_aligned(hit);
        for (std::size_t t = 0; t < lanes; ++t) {
            out[n] = ids[i + t];
            n += hit[t] ? 1u : 0u;
        }
    }
    return n;
}

}  // namespace xs
}  // namespace simd_dispatch

/// One architecture's explicit instantiations (in its own translation unit), or their
/// extern declarations (in the dispatching one).
#define QUOCT_XSIMD_INSTANTIATE(prefix, Arch)                                                                      \
    prefix template std::size_t simd_dispatch::xs::count_fn::operator()<Arch>(Arch, const float*, const float* const*, \
                                                                            std::size_t, std::size_t, float)     \
        const noexcept;                                                                                           \
    prefix template std::size_t simd_dispatch::xs::hit_ids_fn::operator()<Arch>(                                  \
        Arch, const float*, const float* const*, const std::uint32_t*, std::size_t, std::size_t, float,          \
        std::uint32_t*) const noexcept;

#endif
