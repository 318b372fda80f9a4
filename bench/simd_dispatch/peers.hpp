// bench_simd_dispatch: the neighbour-list kernel written with xsimd and with Google Highway,
// each behind its library's own runtime dispatch. The same contract as quoct's
// detail::kernels::count_within / hit_ids for float in 3D without per-candidate radii:
// candidate i (first <= i < last) is c[0][i], c[1][i], c[2][i]; it is within when
// dx*dx + dy*dy + dz*dz <= r2 with each square rounded before it is added (no fused
// multiply-add; these files are compiled with -ffp-contract=off). The arrays are readable
// 16 entries past last (whatever they hold), and out has room for a vector past the last hit.
#ifndef QUOCT_BENCH_SIMD_DISPATCH_PEERS_HPP
#define QUOCT_BENCH_SIMD_DISPATCH_PEERS_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace simd_dispatch {

namespace xs {
/// The architectures the xsimd kernels are compiled for, best first. Level k dispatches
/// with xsimd::dispatch over the list from entry k on (level 0: the whole list).
inline const char* const level_names[] = {"avx512bw", "avx2", "sse2"};
/// The levels this CPU runs (xsimd's cpuid), best first.
std::vector<std::size_t> levels();
std::size_t count_within(std::size_t level, const float* p, const float* const* c, std::size_t first,
                         std::size_t last, float r2);
std::size_t hit_ids(std::size_t level, const float* p, const float* const* c, const std::uint32_t* ids,
                    std::size_t first, std::size_t last, float r2, std::uint32_t* out);
}  // namespace xs

namespace hw {
/// The Highway targets compiled in and supported by this CPU, best first (hwy::TargetName,
/// e.g. "AVX3", "AVX2", "SSE4", "SSSE3", "SCALAR").
std::vector<std::string> levels();
/// Restricts Highway's dynamic dispatch to level k of levels() and below (k = 0: all, the
/// default); returns the name of the target the dispatch now runs.
std::string use_level(std::size_t level);
std::size_t count_within(const float* p, const float* const* c, std::size_t first, std::size_t last, float r2);
std::size_t hit_ids(const float* p, const float* const* c, const std::uint32_t* ids, std::size_t first,
                    std::size_t last, float r2, std::uint32_t* out);
/// hit_ids with hn::CompressStore (the obvious call) instead of Compress + StoreU.
std::size_t hit_ids_compress_store(const float* p, const float* const* c, const std::uint32_t* ids,
                                   std::size_t first, std::size_t last, float r2, std::uint32_t* out);
}  // namespace hw

}  // namespace simd_dispatch

#endif
