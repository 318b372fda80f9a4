// quoct internals: the distance kernels of the pair search (quoct/pairs.hpp), with
// runtime dispatch so that one binary runs on any x86-64 and uses AVX2 or AVX-512 where
// the CPU has them. Dependency-free: compiler intrinsics in functions that carry their
// own target attribute (GCC and Clang), chosen once per process by __builtin_cpu_supports;
// other compilers and other CPUs take the portable loops.
//
// Exactness. Every kernel computes distance_sq as the core does (quoct/shapes.hpp):
// per axis the difference in T, squared, summed over the axes in increasing order, each
// step rounded in T (no fused multiply-add: each square is made opaque before it is added,
// QUOCT_UNFUSED, since AVX-512F would let the compiler fuse them), then compared with <=
// (false for NaN, as the core's test). So every level returns exactly what the portable
// loop returns; the tests run them all, on ties at inexact distances too.
//
// Candidates are ranges [first, last) of coordinate arrays (one per axis) that can be read
// lanes_max entries past last (the vector levels load whole vectors and mask the tail), and
// `out` has room for a vector past the last hit (they store whole vectors).
#ifndef QUOCT_DETAIL_PAIR_KERNELS_HPP
#define QUOCT_DETAIL_PAIR_KERNELS_HPP

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "sorting.hpp"

#if !defined(QUOCT_NO_SIMD) && (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define QUOCT_X86_DISPATCH 1
#include <immintrin.h>
#endif

namespace quoct {
namespace detail {
namespace kernels {

/// Coordinate arrays must be readable this many entries past a range's end (the widest
/// vector, and the portable loops' step).
constexpr std::size_t lanes_max = 16;

/// Instruction-set levels, best last.
enum class level : int { portable = 0, avx2 = 1, avx512 = 2 };

inline const char* level_name(level l) noexcept {
    switch (l) {
        case level::avx2: return "avx2";
        case level::avx512: return "avx512";
        default: return "portable";
    }
}

/// The best level this CPU runs (portable where dispatch is not compiled in). The
/// environment variable QUOCT_SIMD=portable|avx2|avx512 lowers it (never raises it).
inline level cpu_level() noexcept {
    static const level best = [] {
        level l = level::portable;
#ifdef QUOCT_X86_DISPATCH
        __builtin_cpu_init();
        const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") &&
                          __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
        if (avx2) l = level::avx2;
        if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
            __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
            l = level::avx512;
#endif
        if (const char* want = std::getenv("QUOCT_SIMD")) {
            level w = l;
            if (std::strcmp(want, "portable") == 0) w = level::portable;
            else if (std::strcmp(want, "avx2") == 0) w = level::avx2;
            else if (std::strcmp(want, "avx512") == 0) w = level::avx512;
            if (static_cast<int>(w) < static_cast<int>(l)) l = w;
        }
        return l;
    }();
    return best;
}

/// The level the kernels use: cpu_level(), or a lower one set by use_level (for tests and
/// benchmarks that compare levels).
inline std::atomic<int>& chosen_level() noexcept {
    static std::atomic<int> chosen{-1};
    return chosen;
}
inline level active_level() noexcept {
    const int c = chosen_level().load(std::memory_order_relaxed);
    return c < 0 ? cpu_level() : static_cast<level>(c);
}
/// Makes the kernels use `l` if the CPU runs it (else the best it runs); returns the
/// level now in use.
inline level use_level(level l) noexcept {
    if (static_cast<int>(l) > static_cast<int>(cpu_level())) l = cpu_level();
    chosen_level().store(static_cast<int>(l), std::memory_order_relaxed);
    return l;
}

// --- Portable ----------------------------------------------------------------------------

/// distance_sq from p to candidate i, as the core computes it.
template <class T, std::size_t D>
inline T candidate_distance_sq(const T* p, const T* const* c, std::size_t i) noexcept {
    T d = p[0] - c[0][i];
    T s = d * d;
    for (std::size_t a = 1; a < D; ++a) {
        d = p[a] - c[a][i];
        s += d * d;
    }
    return s;
}

/// Whether candidate i is within: distance_sq <= r2, or <= cr2[i] when there is cr2 (the
/// candidates' own squared radii).
template <class T, std::size_t D>
inline bool candidate_within(const T* p, const T* const* c, const T* cr2, std::size_t i, T r2) noexcept {
    const T s = candidate_distance_sq<T, D>(p, c, i);
    return s <= r2 || (cr2 != nullptr && s <= cr2[i]);
}

/// The portable loops go 16 candidates at a time: the 16 distances in a loop of fixed
/// length that the compiler vectorises for the baseline, then the scalar tests.
constexpr std::size_t portable_step = 16;

/// Sets in[t] for the candidates first + t, t < portable_step (read past last: padded).
template <class T, std::size_t D>
inline void portable_within(const T* p, const T* const* c, const T* cr2, std::size_t first, T r2,
                            bool (&in)[portable_step]) noexcept {
    T s[portable_step];
    for (std::size_t t = 0; t < portable_step; ++t) s[t] = candidate_distance_sq<T, D>(p, c, first + t);
    if (cr2 == nullptr)
        for (std::size_t t = 0; t < portable_step; ++t) in[t] = s[t] <= r2;
    else
        for (std::size_t t = 0; t < portable_step; ++t) in[t] = s[t] <= r2 || s[t] <= cr2[first + t];
}

template <class T, std::size_t D>
std::size_t count_portable(const T* p, const T* const* c, const T* cr2, std::size_t first, std::size_t last,
                           T r2) noexcept {
    std::size_t n = 0;
    bool in[portable_step];
    for (std::size_t i = first; i < last; i += portable_step) {
        portable_within<T, D>(p, c, cr2, i, r2, in);
        const std::size_t len = std::min(portable_step, last - i);
        for (std::size_t t = 0; t < len; ++t) n += in[t] ? 1u : 0u;
    }
    return n;
}

template <class T, std::size_t D>
std::size_t hits_portable(const T* p, const T* const* c, const T* cr2, std::size_t first, std::size_t last, T r2,
                          std::uint32_t* out) noexcept {
    std::size_t n = 0;
    bool in[portable_step];
    for (std::size_t i = first; i < last; i += portable_step) {
        portable_within<T, D>(p, c, cr2, i, r2, in);
        const std::size_t len = std::min(portable_step, last - i);
        for (std::size_t t = 0; t < len; ++t) {
            out[n] = static_cast<std::uint32_t>(i + t);
            n += in[t] ? 1u : 0u;
        }
    }
    return n;
}

/// The ids of the candidates in [first, last) within r2 of p (ids[i] is candidate i's),
/// leaving out `skip` when has_skip, in order, written to out; returns how many.
template <class T, std::size_t D>
std::size_t hit_ids_portable(const T* p, const T* const* c, const T* cr2, const std::uint32_t* ids,
                             std::size_t first, std::size_t last, T r2, bool has_skip, std::uint32_t skip,
                             std::uint32_t* out) noexcept {
    std::size_t n = 0;
    bool in[portable_step];
    for (std::size_t i = first; i < last; i += portable_step) {
        portable_within<T, D>(p, c, cr2, i, r2, in);
        const std::size_t len = std::min(portable_step, last - i);
        for (std::size_t t = 0; t < len; ++t) {
            out[n] = ids[i + t];
            n += in[t] && !(has_skip && ids[i + t] == skip) ? 1u : 0u;
        }
    }
    return n;
}

/// distance_sq(candidate i, box [lo, hi]), as the core computes distance_sq(point, box)
/// (detail::axis_gap's min and max, NaN included).
template <class T, std::size_t D>
inline T candidate_box_distance_sq(const T* lo, const T* hi, const T* const* c, std::size_t i) noexcept {
    T s = 0;
    for (std::size_t a = 0; a < D; ++a) {
        const T x = c[a][i];
        const T below_hi = x < hi[a] ? x : hi[a];
        const T nearest = lo[a] > below_hi ? lo[a] : below_hi;
        const T g = x - nearest;
        s = a == 0 ? g * g : s + g * g;
    }
    return s;
}

template <class T, std::size_t D>
std::size_t near_box_portable(const T* lo, const T* hi, const T* const* c, std::size_t first, std::size_t last,
                              T bound, std::uint32_t* out) noexcept {
    std::size_t n = 0;
    for (std::size_t i = first; i < last; ++i) {
        out[n] = static_cast<std::uint32_t>(i);
        n += candidate_box_distance_sq<T, D>(lo, hi, c, i) <= bound ? 1u : 0u;
    }
    return n;
}

template <class T, std::size_t D>
std::size_t near_box_copy_portable(const T* lo, const T* hi, const T* const* c, const std::uint32_t* tags,
                                   const T* extra, std::size_t first, std::size_t last, T bound, T* const* out_c,
                                   std::uint32_t* out_tag, T* out_extra) noexcept {
    std::size_t n = 0;
    for (std::size_t i = first; i < last; ++i) {
        for (std::size_t a = 0; a < D; ++a) out_c[a][n] = c[a][i];
        out_tag[n] = tags != nullptr ? tags[i] : static_cast<std::uint32_t>(i);
        if (extra != nullptr) out_extra[n] = extra[i];
        n += candidate_box_distance_sq<T, D>(lo, hi, c, i) <= bound ? 1u : 0u;
    }
    return n;
}

#ifdef QUOCT_X86_DISPATCH
// GCC 12 warns about its own _mm512_undefined_* inside the AVX-512 intrinsics.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#define QUOCT_TARGET_AVX2 __attribute__((target("avx2,popcnt,bmi,bmi2")))
// Makes a product opaque, so that the compiler cannot fuse it with the addition after it:
// GCC contracts a * b + c into a fused multiply-add wherever the target has one (AVX-512F
// does; so does AVX2 in a build with -mfma), and a fused sum rounds once where the core
// rounds twice. constraint: "x" for AVX2 registers, "v" for AVX-512 ones.
#define QUOCT_UNFUSED(value, constraint) __asm__("" : "+" constraint(value))
#define QUOCT_TARGET_AVX512 \
    __attribute__((target("avx2,popcnt,bmi,bmi2,avx512f,avx512vl,avx512bw,avx512dq")))

/// For each 8-bit mask, the positions of its set bits in increasing order, a nibble each.
struct compress_table {
    std::uint32_t packed[256];
    constexpr compress_table() : packed{} {
        for (unsigned mask = 0; mask < 256; ++mask) {
            std::uint32_t v = 0;
            unsigned k = 0;
            for (unsigned bit = 0; bit < 8; ++bit)
                if (mask & (1u << bit)) v |= bit << (4 * k++);
            packed[mask] = v;
        }
    }
};
inline constexpr compress_table compress_lut{};

/// The lanes below `left` (all of them when left >= 16).
inline unsigned lanes_below(std::size_t left) noexcept {
    return left >= 16 ? 0xffffu : (1u << left) - 1u;
}

// --- The vector operations: AVX2 (8 floats or 4 doubles a step), AVX-512 (16 or 8) ------
// Each kernel below is written once over these: V::lanes, arithmetic on V::vec, le() giving
// a mask of lanes, and the stores of the lanes a mask selects (their
// positions, values or ids), through V::select(mask): a permutation vector on AVX2, the
// mask itself on AVX-512. square() makes its result opaque (QUOCT_UNFUSED); min(x, h) is
// x < h ? x : h and max(l, v) is l > v ? l : v: the portable clamp, NaN included.

/// AVX2 stores of selected lanes, for Lanes lanes (8; or 4, for doubles, whose ids take
/// the low half of a register: the upper 4 lanes are never selected).
template <std::size_t Lanes>
struct avx2_lanes {
    static constexpr std::size_t lanes = Lanes;
    using selection = __m256i;
    /// The lanes set in an 8-bit mask, in increasing order, as a permutation vector.
    QUOCT_TARGET_AVX2 static selection select(unsigned mask) noexcept {
        const __m256i packed = _mm256_set1_epi32(static_cast<int>(compress_lut.packed[mask & 0xffu]));
        return _mm256_and_si256(_mm256_srlv_epi32(packed, _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28)),
                                _mm256_set1_epi32(15));
    }
    /// Stores i + the positions of mask's set lanes, in order, at out.
    QUOCT_TARGET_AVX2 static void store_positions(std::uint32_t* out, unsigned mask, std::size_t i) noexcept {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                            _mm256_add_epi32(select(mask), _mm256_set1_epi32(static_cast<int>(i))));
    }
    QUOCT_TARGET_AVX2 static __m256i load_ids(const std::uint32_t* ids) noexcept {
        return Lanes == 8 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ids))
                          : _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ids)));
    }
    /// mask without the lanes whose id (ids[lane]) is skip.
    QUOCT_TARGET_AVX2 static unsigned drop_id(unsigned mask, const std::uint32_t* ids, std::uint32_t skip) noexcept {
        const __m256i same = _mm256_cmpeq_epi32(load_ids(ids), _mm256_set1_epi32(static_cast<int>(skip)));
        return mask & ~static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(same)));
    }
    /// Stores the selected ones of ids[0..Lanes), in order, at out (a whole register).
    QUOCT_TARGET_AVX2 static void store_selected_ids(std::uint32_t* out, selection s,
                                                     const std::uint32_t* ids) noexcept {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permutevar8x32_epi32(load_ids(ids), s));
    }
};

/// The AVX2 operations on T.
template <class T>
struct avx2_ops;
template <>
struct avx2_ops<float> : avx2_lanes<8> {
    using vec = __m256;
    QUOCT_TARGET_AVX2 static vec load(const float* p) noexcept { return _mm256_loadu_ps(p); }
    QUOCT_TARGET_AVX2 static vec splat(float x) noexcept { return _mm256_set1_ps(x); }
    QUOCT_TARGET_AVX2 static vec sub(vec a, vec b) noexcept { return _mm256_sub_ps(a, b); }
    QUOCT_TARGET_AVX2 static vec add(vec a, vec b) noexcept { return _mm256_add_ps(a, b); }
    QUOCT_TARGET_AVX2 static vec min(vec a, vec b) noexcept { return _mm256_min_ps(a, b); }
    QUOCT_TARGET_AVX2 static vec max(vec a, vec b) noexcept { return _mm256_max_ps(a, b); }
    QUOCT_TARGET_AVX2 static vec square(vec a) noexcept {
        vec s = _mm256_mul_ps(a, a);
        QUOCT_UNFUSED(s, "x");
        return s;
    }
    QUOCT_TARGET_AVX2 static unsigned le(vec a, vec b) noexcept {
        return static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_LE_OQ)));
    }
    /// Stores the lanes of v that s selects, in order, at out (a whole register).
    QUOCT_TARGET_AVX2 static void store_selected(float* out, selection s, vec v) noexcept {
        _mm256_storeu_ps(out, _mm256_permutevar8x32_ps(v, s));
    }
};
template <>
struct avx2_ops<double> : avx2_lanes<4> {
    using vec = __m256d;
    QUOCT_TARGET_AVX2 static vec load(const double* p) noexcept { return _mm256_loadu_pd(p); }
    QUOCT_TARGET_AVX2 static vec splat(double x) noexcept { return _mm256_set1_pd(x); }
    QUOCT_TARGET_AVX2 static vec sub(vec a, vec b) noexcept { return _mm256_sub_pd(a, b); }
    QUOCT_TARGET_AVX2 static vec add(vec a, vec b) noexcept { return _mm256_add_pd(a, b); }
    QUOCT_TARGET_AVX2 static vec min(vec a, vec b) noexcept { return _mm256_min_pd(a, b); }
    QUOCT_TARGET_AVX2 static vec max(vec a, vec b) noexcept { return _mm256_max_pd(a, b); }
    QUOCT_TARGET_AVX2 static vec square(vec a) noexcept {
        vec s = _mm256_mul_pd(a, a);
        QUOCT_UNFUSED(s, "x");
        return s;
    }
    QUOCT_TARGET_AVX2 static unsigned le(vec a, vec b) noexcept {
        return static_cast<unsigned>(_mm256_movemask_pd(_mm256_cmp_pd(a, b, _CMP_LE_OQ)));
    }
    QUOCT_TARGET_AVX2 static void store_selected(double* out, selection s, vec v) noexcept {
        // Double lane k is float lanes 2k and 2k + 1.
        const __m256i pairs = _mm256_add_epi32(
            _mm256_slli_epi32(_mm256_permutevar8x32_epi32(s, _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3)), 1),
            _mm256_setr_epi32(0, 1, 0, 1, 0, 1, 0, 1));
        _mm256_storeu_pd(out, _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(v), pairs)));
    }
};

/// AVX-512 stores of selected lanes, for Lanes lanes (16, or 8): compressed in a register,
/// then stored whole (a compressing store is slow on some CPUs).
template <std::size_t Lanes>
struct avx512_lanes {
    static constexpr std::size_t lanes = Lanes;
    using selection = unsigned;
    QUOCT_TARGET_AVX512 static selection select(unsigned mask) noexcept { return mask; }
    QUOCT_TARGET_AVX512 static void store_positions(std::uint32_t* out, unsigned mask, std::size_t i) noexcept {
        const __m512i positions = _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                                   _mm512_set1_epi32(static_cast<int>(i)));
        if constexpr (Lanes == 16)
            _mm512_storeu_si512(out, _mm512_maskz_compress_epi32(static_cast<__mmask16>(mask), positions));
        else
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                                _mm256_maskz_compress_epi32(static_cast<__mmask8>(mask), _mm512_castsi512_si256(positions)));
    }
    QUOCT_TARGET_AVX512 static unsigned drop_id(unsigned mask, const std::uint32_t* ids, std::uint32_t skip) noexcept {
        if constexpr (Lanes == 16)
            return mask & _mm512_cmpneq_epi32_mask(_mm512_loadu_si512(ids), _mm512_set1_epi32(static_cast<int>(skip)));
        else
            return mask & _mm256_cmpneq_epi32_mask(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(ids)),
                                                   _mm256_set1_epi32(static_cast<int>(skip)));
    }
    QUOCT_TARGET_AVX512 static void store_selected_ids(std::uint32_t* out, selection mask,
                                                       const std::uint32_t* ids) noexcept {
        if constexpr (Lanes == 16)
            _mm512_storeu_si512(out, _mm512_maskz_compress_epi32(static_cast<__mmask16>(mask), _mm512_loadu_si512(ids)));
        else
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                                _mm256_maskz_compress_epi32(static_cast<__mmask8>(mask),
                                                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ids))));
    }
};

/// The AVX-512 operations on T (as avx2_ops; comparisons give masks).
template <class T>
struct avx512_ops;
template <>
struct avx512_ops<float> : avx512_lanes<16> {
    using vec = __m512;
    QUOCT_TARGET_AVX512 static vec load(const float* p) noexcept { return _mm512_loadu_ps(p); }
    QUOCT_TARGET_AVX512 static vec splat(float x) noexcept { return _mm512_set1_ps(x); }
    QUOCT_TARGET_AVX512 static vec sub(vec a, vec b) noexcept { return _mm512_sub_ps(a, b); }
    QUOCT_TARGET_AVX512 static vec add(vec a, vec b) noexcept { return _mm512_add_ps(a, b); }
    QUOCT_TARGET_AVX512 static vec min(vec a, vec b) noexcept { return _mm512_min_ps(a, b); }
    QUOCT_TARGET_AVX512 static vec max(vec a, vec b) noexcept { return _mm512_max_ps(a, b); }
    QUOCT_TARGET_AVX512 static vec square(vec a) noexcept {
        vec s = _mm512_mul_ps(a, a);
        QUOCT_UNFUSED(s, "v");
        return s;
    }
    QUOCT_TARGET_AVX512 static unsigned le(vec a, vec b) noexcept { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
    QUOCT_TARGET_AVX512 static void store_selected(float* out, selection mask, vec v) noexcept {
        _mm512_storeu_ps(out, _mm512_maskz_compress_ps(static_cast<__mmask16>(mask), v));
    }
};
template <>
struct avx512_ops<double> : avx512_lanes<8> {
    using vec = __m512d;
    QUOCT_TARGET_AVX512 static vec load(const double* p) noexcept { return _mm512_loadu_pd(p); }
    QUOCT_TARGET_AVX512 static vec splat(double x) noexcept { return _mm512_set1_pd(x); }
    QUOCT_TARGET_AVX512 static vec sub(vec a, vec b) noexcept { return _mm512_sub_pd(a, b); }
    QUOCT_TARGET_AVX512 static vec add(vec a, vec b) noexcept { return _mm512_add_pd(a, b); }
    QUOCT_TARGET_AVX512 static vec min(vec a, vec b) noexcept { return _mm512_min_pd(a, b); }
    QUOCT_TARGET_AVX512 static vec max(vec a, vec b) noexcept { return _mm512_max_pd(a, b); }
    QUOCT_TARGET_AVX512 static vec square(vec a) noexcept {
        vec s = _mm512_mul_pd(a, a);
        QUOCT_UNFUSED(s, "v");
        return s;
    }
    QUOCT_TARGET_AVX512 static unsigned le(vec a, vec b) noexcept { return _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ); }
    QUOCT_TARGET_AVX512 static void store_selected(double* out, selection mask, vec v) noexcept {
        _mm512_storeu_pd(out, _mm512_maskz_compress_pd(static_cast<__mmask8>(mask), v));
    }
};

// --- The kernels, once for both levels ------------------------------------------------
// detail/pair_kernel_loops.ipp writes each kernel once, as a loop over the operations V;
// it is read twice, into namespace on_avx2 with the AVX2 target and into on_avx512 with
// the AVX-512 one, so that each copy is compiled for its level alone (and calls the
// operations of that level inline).

// Compiles the functions defined between QUOCT_BEGIN_TARGET(t) and QUOCT_END_TARGET for
// the target t (GCC's target pragma, Clang's attribute pragma).
#define QUOCT_PRAGMA(x) _Pragma(#x)
#if defined(__clang__)
#define QUOCT_BEGIN_TARGET(t) QUOCT_PRAGMA(clang attribute push(__attribute__((target(t))), apply_to = function))
#define QUOCT_END_TARGET QUOCT_PRAGMA(clang attribute pop)
#else
#define QUOCT_BEGIN_TARGET(t) QUOCT_PRAGMA(GCC push_options) QUOCT_PRAGMA(GCC target(t))
#define QUOCT_END_TARGET QUOCT_PRAGMA(GCC pop_options)
#endif

namespace on_avx2 {
QUOCT_BEGIN_TARGET("avx2,popcnt,bmi,bmi2")
#include "pair_kernel_loops.ipp"
QUOCT_END_TARGET
}  // namespace on_avx2

namespace on_avx512 {
QUOCT_BEGIN_TARGET("avx2,popcnt,bmi,bmi2,avx512f,avx512vl,avx512bw,avx512dq")
#include "pair_kernel_loops.ipp"
QUOCT_END_TARGET
}  // namespace on_avx512

// --- Sorting short rows: a bitonic network in 1 to 8 registers of 8 (AVX2) ---------------

/// Sorts n <= 8 R unsigned 32-bit values in place (the same network as the AVX-512 one).
template <int R>
QUOCT_TARGET_AVX2 void avx2_sort_u32(std::uint32_t* p, std::size_t n) noexcept {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i zero = _mm256_setzero_si256(), all = _mm256_set1_epi32(-1);
    __m256i v[R];
    for (int r = 0; r < R; ++r) {
        const std::size_t at = static_cast<std::size_t>(8 * r);
        const std::size_t here = n > at ? std::min<std::size_t>(n - at, 8) : 0;
        // Lanes below `here` from p, the rest the largest value (they sort last).
        const __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(here)), lane);
        const __m256i got = _mm256_maskload_epi32(reinterpret_cast<const int*>(p + (here ? at : 0)), in);
        v[r] = _mm256_blendv_epi8(all, got, in);
    }
    for (int k = 2; k <= 8 * R; k *= 2)
        for (int j = k / 2; j > 0; j /= 2) {
            if (j < 8) {
                const __m256i partner = _mm256_xor_si256(lane, _mm256_set1_epi32(j));
                const __m256i low = _mm256_cmpeq_epi32(_mm256_and_si256(lane, _mm256_set1_epi32(j)), zero);
                for (int r = 0; r < R; ++r) {
                    const __m256i index = _mm256_add_epi32(lane, _mm256_set1_epi32(8 * r));
                    const __m256i ascending = _mm256_cmpeq_epi32(_mm256_and_si256(index, _mm256_set1_epi32(k)), zero);
                    const __m256i other = _mm256_permutevar8x32_epi32(v[r], partner);
                    const __m256i lo = _mm256_min_epu32(v[r], other), hi = _mm256_max_epu32(v[r], other);
                    // Keep the smaller where (i & j) == 0 and the run ascends, or neither.
                    v[r] = _mm256_blendv_epi8(hi, lo, _mm256_cmpeq_epi32(low, ascending));
                }
                continue;
            }
            if constexpr (R > 1) {
                const int jr = j / 8;
                for (int r = 0; r < R; ++r) {
                    const int o = r ^ jr;
                    if (o < r || o >= R) continue;
                    const bool ascending = ((8 * r) & k) == 0;
                    const __m256i lo = _mm256_min_epu32(v[r], v[o]), hi = _mm256_max_epu32(v[r], v[o]);
                    v[r] = ascending ? lo : hi;
                    v[o] = ascending ? hi : lo;
                }
            }
        }
    for (int r = 0; r < R; ++r) {
        const std::size_t at = static_cast<std::size_t>(8 * r);
        if (n <= at) break;
        const std::size_t here = std::min<std::size_t>(n - at, 8);
        _mm256_maskstore_epi32(reinterpret_cast<int*>(p + at),
                               _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(here)), lane), v[r]);
    }
}

// --- Sorting short rows: a bitonic network in 1, 2 or 4 registers of 16 ---------------

/// One compare-exchange step of the bitonic network within registers: lane i meets lane
/// i ^ j; it keeps the smaller when (i & j) == 0 and the run (of length k) ascends.
template <int R>
QUOCT_TARGET_AVX512 inline void avx512_bitonic_lanes(__m512i (&v)[R], int k, int j) noexcept {
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i partner = _mm512_xor_si512(lane, _mm512_set1_epi32(j));
    const __mmask16 low = _mm512_testn_epi32_mask(lane, _mm512_set1_epi32(j));  // (i & j) == 0
    for (int r = 0; r < R; ++r) {
        // Ascending where ((16 r + i) & k) == 0.
        const __m512i index = _mm512_add_epi32(lane, _mm512_set1_epi32(16 * r));
        const __mmask16 ascending = _mm512_testn_epi32_mask(index, _mm512_set1_epi32(k));
        const __m512i other = _mm512_permutexvar_epi32(partner, v[r]);
        const __m512i lo = _mm512_min_epu32(v[r], other), hi = _mm512_max_epu32(v[r], other);
        const __mmask16 take_lo = static_cast<__mmask16>(~(low ^ ascending));
        v[r] = _mm512_mask_blend_epi32(take_lo, hi, lo);
    }
}

/// Sorts n <= 16 R unsigned 32-bit values in place.
template <int R>
QUOCT_TARGET_AVX512 void avx512_sort_u32(std::uint32_t* p, std::size_t n) noexcept {
    __m512i v[R];
    for (int r = 0; r < R; ++r) {
        const std::size_t at = static_cast<std::size_t>(16 * r);
        const std::size_t here = n > at ? n - at : 0;
        const __mmask16 m = static_cast<__mmask16>(lanes_below(here));
        v[r] = _mm512_mask_loadu_epi32(_mm512_set1_epi32(-1), m, p + (here ? at : 0));
    }
    for (int k = 2; k <= 16 * R; k *= 2)
        for (int j = k / 2; j > 0; j /= 2) {
            if (j < 16) {
                avx512_bitonic_lanes<R>(v, k, j);
                continue;
            }
            // Registers r and r ^ (j / 16) meet; ascending where (16 r & k) == 0.
            if constexpr (R > 1) {
                const int jr = j / 16;
                for (int r = 0; r < R; ++r) {
                    const int o = r ^ jr;
                    if (o < r || o >= R) continue;
                    const bool ascending = ((16 * r) & k) == 0;
                    const __m512i lo = _mm512_min_epu32(v[r], v[o]), hi = _mm512_max_epu32(v[r], v[o]);
                    v[r] = ascending ? lo : hi;
                    v[o] = ascending ? hi : lo;
                }
            }
        }
    for (int r = 0; r < R; ++r) {
        const std::size_t at = static_cast<std::size_t>(16 * r);
        if (n <= at) break;
        _mm512_mask_storeu_epi32(p + at, static_cast<__mmask16>(lanes_below(n - at)), v[r]);
    }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif  // QUOCT_X86_DISPATCH

/// True when T has vector kernels (float and double); other types take the portable loops.
template <class T>
constexpr bool has_vector_kernels = std::is_same<T, float>::value || std::is_same<T, double>::value;

/// The number of candidates i in [first, last) with distance_sq(p, candidate i) <= r2, or
/// <= cr2[i] when cr2 (the candidates' own squared radii) is not null. The arrays c[a]
/// (and cr2) must be readable lanes_max entries past last.
template <class T, std::size_t D>
std::size_t count_within(level l, const T* p, const T* const* c, const T* cr2, std::size_t first, std::size_t last,
                         T r2) noexcept {
#ifdef QUOCT_X86_DISPATCH
    if constexpr (has_vector_kernels<T>) {
        if (l == level::avx512) return on_avx512::count<avx512_ops<T>, T, D>(p, c, cr2, first, last, r2);
        if (l == level::avx2) return on_avx2::count<avx2_ops<T>, T, D>(p, c, cr2, first, last, r2);
    }
#endif
    (void)l;
    return count_portable<T, D>(p, c, cr2, first, last, r2);
}

/// Writes the positions i in [first, last) (increasing) of the candidates with
/// distance_sq(p, candidate i) <= r2 to out, which must have room for last - first +
/// lanes_max entries; returns how many. Arrays as for count_within.
template <class T, std::size_t D>
std::size_t hits_within(level l, const T* p, const T* const* c, const T* cr2, std::size_t first, std::size_t last,
                        T r2, std::uint32_t* out) noexcept {
#ifdef QUOCT_X86_DISPATCH
    if constexpr (has_vector_kernels<T>) {
        if (l == level::avx512) return on_avx512::hits<avx512_ops<T>, T, D>(p, c, cr2, first, last, r2, out);
        if (l == level::avx2) return on_avx2::hits<avx2_ops<T>, T, D>(p, c, cr2, first, last, r2, out);
    }
#endif
    (void)l;
    return hits_portable<T, D>(p, c, cr2, first, last, r2, out);
}

/// Writes the ids (ids[i] for candidate i; ids readable as far as the coordinates) of the
/// candidates in [first, last) with distance_sq(p, candidate) <= r2, leaving out the id
/// `skip` when has_skip, in candidate order, to out (room as for hits_within); returns
/// how many.
template <class T, std::size_t D>
std::size_t hit_ids(level l, const T* p, const T* const* c, const T* cr2, const std::uint32_t* ids,
                    std::size_t first, std::size_t last, T r2, bool has_skip, std::uint32_t skip,
                    std::uint32_t* out) noexcept {
#ifdef QUOCT_X86_DISPATCH
    if constexpr (has_vector_kernels<T>) {
        if (l == level::avx512)
            return on_avx512::hit_ids<avx512_ops<T>, T, D>(p, c, cr2, ids, first, last, r2, has_skip, skip, out);
        if (l == level::avx2)
            return on_avx2::hit_ids<avx2_ops<T>, T, D>(p, c, cr2, ids, first, last, r2, has_skip, skip, out);
    }
#endif
    (void)l;
    return hit_ids_portable<T, D>(p, c, cr2, ids, first, last, r2, has_skip, skip, out);
}

/// Sorts a short row of ids (a few tens) in place. Rows that are sorted or nearly (ids
/// that follow the cells: points in neighbor_order) take insertion sort, which is then
/// linear; others a bitonic network in vector registers for up to 64 32-bit ids (AVX-512
/// or AVX2), else insertion sort (std::sort past 48 values).
template <class Id>
void sort_row(level l, Id* first, Id* last) noexcept {
    const std::size_t n = static_cast<std::size_t>(last - first);
    std::size_t descents = 0;
    for (std::size_t i = 1; i < n; ++i) descents += first[i] < first[i - 1] ? 1u : 0u;
    if (descents == 0) return;
#ifdef QUOCT_X86_DISPATCH
    if constexpr (std::is_same<Id, std::uint32_t>::value) {
        if (l == level::avx512 && descents > 2 && n > 8 && n <= 64) {
            if (n <= 16) return avx512_sort_u32<1>(first, n);
            if (n <= 32) return avx512_sort_u32<2>(first, n);
            return avx512_sort_u32<4>(first, n);
        }
        if (l == level::avx2 && descents > 2 && n > 8 && n <= 64) {
            if (n <= 16) return avx2_sort_u32<2>(first, n);
            if (n <= 32) return avx2_sort_u32<4>(first, n);
            return avx2_sort_u32<8>(first, n);
        }
    }
#endif
    (void)l;
    if (descents > 2) return sort_small(first, last);
    insertion_sort(first, last);  // nearly sorted: linear
}

/// Writes the positions i in [first, last) (increasing) of the candidates with
/// distance_sq(candidate i, box [lo, hi]) <= bound to out (room as for hits_within);
/// returns how many.
template <class T, std::size_t D>
std::size_t near_box(level l, const T* lo, const T* hi, const T* const* c, std::size_t first, std::size_t last,
                     T bound, std::uint32_t* out) noexcept {
#ifdef QUOCT_X86_DISPATCH
    if constexpr (has_vector_kernels<T>) {
        if (l == level::avx512) return on_avx512::near_box<avx512_ops<T>, T, D>(lo, hi, c, first, last, bound, out);
        if (l == level::avx2) return on_avx2::near_box<avx2_ops<T>, T, D>(lo, hi, c, first, last, bound, out);
    }
#endif
    (void)l;
    return near_box_portable<T, D>(lo, hi, c, first, last, bound, out);
}

/// Copies the candidates i in [first, last) with distance_sq(candidate i, box [lo, hi]) <=
/// bound, in increasing i: their coordinates to out_c[a], their tags (tags[i], or i itself
/// when tags is null) to out_tag and, when extra is not null, extra[i] to out_extra;
/// returns how many. Inputs readable lanes_max entries past last; outputs with room for
/// last - first + lanes_max entries (whole vectors are stored).
template <class T, std::size_t D>
std::size_t near_box_copy(level l, const T* lo, const T* hi, const T* const* c, const std::uint32_t* tags,
                          const T* extra, std::size_t first, std::size_t last, T bound, T* const* out_c,
                          std::uint32_t* out_tag, T* out_extra) noexcept {
#ifdef QUOCT_X86_DISPATCH
    if constexpr (has_vector_kernels<T>) {
        if (l == level::avx512)
            return on_avx512::near_box_copy<avx512_ops<T>, T, D>(lo, hi, c, tags, extra, first, last, bound, out_c,
                                                                 out_tag, out_extra);
        if (l == level::avx2)
            return on_avx2::near_box_copy<avx2_ops<T>, T, D>(lo, hi, c, tags, extra, first, last, bound, out_c,
                                                             out_tag, out_extra);
    }
#endif
    (void)l;
    return near_box_copy_portable<T, D>(lo, hi, c, tags, extra, first, last, bound, out_c, out_tag, out_extra);
}

}  // namespace kernels
}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_PAIR_KERNELS_HPP
