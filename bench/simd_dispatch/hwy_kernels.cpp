// bench_simd_dispatch: the kernel with Google Highway 1.0 (see peers.hpp for the contract),
// through its dynamic dispatch: foreach_target.h compiles this file once per target
// (SSSE3, SSE4, AVX2, AVX3 = AVX-512 F/VL/DQ/BW, and SCALAR for the x86-64 baseline), each
// in its own namespace with its own target attribute; HWY_EXPORT makes a table of them and
// HWY_DYNAMIC_DISPATCH calls the best one the CPU supports (chosen at the first call).
// Compiled with -ffp-contract=off: Highway's AVX2 and AVX3 targets enable FMA, and GCC
// would otherwise fuse dx * dx + ... into fused multiply-adds.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_dispatch/hwy_kernels.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h

#include <hwy/highway.h>

#include <cstddef>
#include <cstdint>

HWY_BEFORE_NAMESPACE();
namespace simd_dispatch {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DU = hn::RebindToUnsigned<DF>;

/// The lanes of candidates i.. within r2 of (px, py, pz), summed in quoct's order.
HWY_INLINE hn::Mask<DF> Within(DF d, hn::Vec<DF> px, hn::Vec<DF> py, hn::Vec<DF> pz, hn::Vec<DF> rr,
                               const float* const* c, std::size_t i) {
    const auto dx = hn::Sub(px, hn::LoadU(d, c[0] + i));
    const auto dy = hn::Sub(py, hn::LoadU(d, c[1] + i));
    const auto dz = hn::Sub(pz, hn::LoadU(d, c[2] + i));
    return hn::Le(hn::Add(hn::Add(hn::Mul(dx, dx), hn::Mul(dy, dy)), hn::Mul(dz, dz)), rr);
}

std::size_t CountWithin(const float* p, const float* const* c, std::size_t first, std::size_t last, float r2) {
    const DF d;
    const std::size_t lanes = hn::Lanes(d);
    const auto px = hn::Set(d, p[0]), py = hn::Set(d, p[1]), pz = hn::Set(d, p[2]), rr = hn::Set(d, r2);
    std::size_t n = 0;
    std::size_t i = first;
    for (; i + lanes <= last; i += lanes) n += hn::CountTrue(d, Within(d, px, py, pz, rr, c, i));
    if (i < last) n += hn::CountTrue(d, hn::And(Within(d, px, py, pz, rr, c, i), hn::FirstN(d, last - i)));
    return n;
}

/// Hit ids with Compress into a register and a whole-vector store (out has the room),
/// or with CompressStore.
template <bool compress_store>
HWY_INLINE std::size_t HitIdsImpl(const float* p, const float* const* c, const std::uint32_t* ids,
                                  std::size_t first, std::size_t last, float r2, std::uint32_t* out) {
    const DF d;
    const DU du;
    const std::size_t lanes = hn::Lanes(d);
    const auto px = hn::Set(d, p[0]), py = hn::Set(d, p[1]), pz = hn::Set(d, p[2]), rr = hn::Set(d, r2);
    std::size_t n = 0;
    for (std::size_t i = first; i < last; i += lanes) {
        auto in = Within(d, px, py, pz, rr, c, i);
        if (i + lanes > last) in = hn::And(in, hn::FirstN(d, last - i));
        if (hn::AllFalse(d, in)) continue;
        const auto m = hn::RebindMask(du, in);
        const auto id = hn::LoadU(du, ids + i);
        if constexpr (compress_store) {
            n += hn::CompressStore(id, m, du, out + n);
        } else {
            hn::StoreU(hn::Compress(id, m), du, out + n);
            n += hn::CountTrue(du, m);
        }
    }
    return n;
}

std::size_t HitIds(const float* p, const float* const* c, const std::uint32_t* ids, std::size_t first,
                   std::size_t last, float r2, std::uint32_t* out) {
    return HitIdsImpl<false>(p, c, ids, first, last, r2, out);
}
std::size_t HitIdsCompressStore(const float* p, const float* const* c, const std::uint32_t* ids,
                                std::size_t first, std::size_t last, float r2, std::uint32_t* out) {
    return HitIdsImpl<true>(p, c, ids, first, last, r2, out);
}

/// The target this copy was compiled for (to see which one the dispatch runs).
std::int64_t Target() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace simd_dispatch
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "simd_dispatch/peers.hpp"

namespace simd_dispatch {
HWY_EXPORT(CountWithin);
HWY_EXPORT(HitIds);
HWY_EXPORT(HitIdsCompressStore);
HWY_EXPORT(Target);

namespace hw {

namespace {
std::vector<std::int64_t> targets() {
    hwy::SetSupportedTargetsForTest(0);  // the CPU's own, not a level set earlier
    std::vector<std::int64_t> t = hwy::SupportedAndGeneratedTargets();  // best first
    return t;
}
}  // namespace

std::vector<std::string> levels() {
    std::vector<std::string> out;
    for (std::int64_t t : targets()) out.emplace_back(hwy::TargetName(t));
    return out;
}

std::string use_level(std::size_t level) {
    const std::vector<std::int64_t> t = targets();
    std::int64_t allowed = 0;  // level and every lower one
    for (std::size_t k = level; k < t.size(); ++k) allowed |= t[k];
    hwy::SetSupportedTargetsForTest(level == 0 ? 0 : allowed);
    return hwy::TargetName(HWY_DYNAMIC_DISPATCH(Target)());
}

std::size_t count_within(const float* p, const float* const* c, std::size_t first, std::size_t last, float r2) {
    return HWY_DYNAMIC_DISPATCH(CountWithin)(p, c, first, last, r2);
}
std::size_t hit_ids(const float* p, const float* const* c, const std::uint32_t* ids, std::size_t first,
                    std::size_t last, float r2, std::uint32_t* out) {
    return HWY_DYNAMIC_DISPATCH(HitIds)(p, c, ids, first, last, r2, out);
}
std::size_t hit_ids_compress_store(const float* p, const float* const* c, const std::uint32_t* ids,
                                   std::size_t first, std::size_t last, float r2, std::uint32_t* out) {
    return HWY_DYNAMIC_DISPATCH(HitIdsCompressStore)(p, c, ids, first, last, r2, out);
}

}  // namespace hw
}  // namespace simd_dispatch
#endif
