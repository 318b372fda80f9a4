// quoct internals: the pair search's vector kernels, each written once as a loop over the
// operations V of detail/pair_kernels.hpp (avx2_ops, avx512_ops). No include guard: that
// header reads this file twice, into namespace on_avx2 under the AVX2 target and into
// on_avx512 under the AVX-512 one (the way Highway compiles a kernel for each target), so
// each copy is compiled for its level and inlines that level's operations. Not for use on
// its own. Each kernel has the contract of its dispatching function in pair_kernels.hpp
// (count_within, hits_within, hit_ids, near_box, near_box_copy); the lanes past `last` are
// masked off (lanes_below).

// How many lanes a mask sets.
inline unsigned lanes_count(unsigned mask) noexcept { return static_cast<unsigned>(_mm_popcnt_u32(mask)); }

// The lanes of candidates i.. within r2 of p (or their own cr2), and of those within
// `bound` of the box [lo, hi]: the portable loops' arithmetic, a vector at a time.
template <class V, class T, std::size_t D>
inline unsigned lanes_within(const T* p, const T* const* c, const T* cr2, std::size_t i, T r2) noexcept {
    typename V::vec s = V::square(V::sub(V::splat(p[0]), V::load(c[0] + i)));
    for (std::size_t a = 1; a < D; ++a) s = V::add(s, V::square(V::sub(V::splat(p[a]), V::load(c[a] + i))));
    unsigned in = V::le(s, V::splat(r2));
    if (cr2 != nullptr) in |= V::le(s, V::load(cr2 + i));
    return in;
}
template <class V, class T, std::size_t D>
inline unsigned lanes_near_box(const T* lo, const T* hi, const T* const* c, std::size_t i, T bound) noexcept {
    typename V::vec s{};
    for (std::size_t a = 0; a < D; ++a) {
        const typename V::vec x = V::load(c[a] + i);
        const typename V::vec g = V::sub(x, V::max(V::splat(lo[a]), V::min(x, V::splat(hi[a]))));
        s = a == 0 ? V::square(g) : V::add(s, V::square(g));
    }
    return V::le(s, V::splat(bound));
}

template <class V, class T, std::size_t D>
std::size_t count(const T* p, const T* const* c, const T* cr2, std::size_t first, std::size_t last, T r2) noexcept {
    std::size_t n = 0;
    for (std::size_t i = first; i < last; i += V::lanes)
        n += lanes_count(lanes_within<V, T, D>(p, c, cr2, i, r2) & lanes_below(last - i));
    return n;
}

template <class V, class T, std::size_t D>
std::size_t hits(const T* p, const T* const* c, const T* cr2, std::size_t first, std::size_t last, T r2,
                 std::uint32_t* out) noexcept {
    std::size_t n = 0;
    for (std::size_t i = first; i < last; i += V::lanes) {
        const unsigned mask = lanes_within<V, T, D>(p, c, cr2, i, r2) & lanes_below(last - i);
        if (mask == 0) continue;
        V::store_positions(out + n, mask, i);
        n += lanes_count(mask);
    }
    return n;
}

template <class V, class T, std::size_t D>
std::size_t hit_ids(const T* p, const T* const* c, const T* cr2, const std::uint32_t* ids, std::size_t first,
                    std::size_t last, T r2, bool has_skip, std::uint32_t skip, std::uint32_t* out) noexcept {
    std::size_t n = 0;
    for (std::size_t i = first; i < last; i += V::lanes) {
        unsigned mask = lanes_within<V, T, D>(p, c, cr2, i, r2) & lanes_below(last - i);
        if (mask == 0) continue;
        if (has_skip) mask = V::drop_id(mask, ids + i, skip);
        V::store_selected_ids(out + n, V::select(mask), ids + i);
        n += lanes_count(mask);
    }
    return n;
}

template <class V, class T, std::size_t D>
std::size_t near_box(const T* lo, const T* hi, const T* const* c, std::size_t first, std::size_t last, T bound,
                     std::uint32_t* out) noexcept {
    std::size_t n = 0;
    for (std::size_t i = first; i < last; i += V::lanes) {
        const unsigned mask = lanes_near_box<V, T, D>(lo, hi, c, i, bound) & lanes_below(last - i);
        V::store_positions(out + n, mask, i);
        n += lanes_count(mask);
    }
    return n;
}

template <class V, class T, std::size_t D>
std::size_t near_box_copy(const T* lo, const T* hi, const T* const* c, const std::uint32_t* tags, const T* extra,
                          std::size_t first, std::size_t last, T bound, T* const* out_c, std::uint32_t* out_tag,
                          T* out_extra) noexcept {
    std::size_t n = 0;
    for (std::size_t i = first; i < last; i += V::lanes) {
        const unsigned mask = lanes_near_box<V, T, D>(lo, hi, c, i, bound) & lanes_below(last - i);
        if (mask == 0) continue;
        const typename V::selection s = V::select(mask);
        for (std::size_t a = 0; a < D; ++a) V::store_selected(out_c[a] + n, s, V::load(c[a] + i));
        if (extra != nullptr) V::store_selected(out_extra + n, s, V::load(extra + i));
        if (tags != nullptr) V::store_selected_ids(out_tag + n, s, tags + i);
        else V::store_positions(out_tag + n, mask, i);
        n += lanes_count(mask);
    }
    return n;
}
