// Fuzz target: the index file reader (quoct/file.hpp) on damaged and forged files. A small
// index (quadtree, octree, geographic or dynamic) is built from the fuzzer's points and
// saved to bytes; first those bytes are read back and must answer as the index did. Then
// the fuzzer changes them (bytes xored anywhere, the file cut or lengthened) and the header
// checksum and file size are put right again, as a forger could, and the file is read
// unverified (no checksums: the header, size and structure checks alone stand between the
// bytes and the searches), then queried (the pair engine too), and a dynamic index changed.
// A tree is also read lazily, as open() reads it by default, with its block checksums
// mended too: then the searches' own checks of what they reach are all there is.
// A file_error is the right answer to damage; any crash, sanitizer report or hang is a finding.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <quoct/dynamic.hpp>
#include <quoct/file.hpp>
#include <quoct/geo/index.hpp>
#include <quoct/pairs.hpp>

#include "fuzz_support.hpp"

namespace {

using namespace quoct_fuzz;

// Puts the block checksums right for the bytes as they are, where the table allows it, as a
// forger could (the sections' checksums in the table, the block checksums' own).
void mend_blocks(std::vector<unsigned char>& bytes) {
    namespace d = quoct::detail;
    if (bytes.size() < d::file_header) return;
    const std::size_t count = d::load_u32(bytes.data() + 24);
    if (count == 0 || count > (bytes.size() - d::file_header) / d::file_entry) return;
    const auto row = [&](std::size_t i) { return bytes.data() + d::file_header + d::file_entry * i; };
    const auto fits = [&](std::uint64_t at, std::uint64_t n) { return at <= bytes.size() && n <= bytes.size() - at; };
    std::vector<std::uint64_t> sums{d::file_block};
    for (std::size_t i = 0; i + 1 < count; ++i) {
        const std::uint64_t at = d::load_u64(row(i) + 32), n = d::load_u64(row(i) + 40);
        if (!fits(at, n)) return;
        const std::size_t first = sums.size();
        for (std::uint64_t from = 0; from < n; from += d::file_block)
            sums.push_back(d::checksum64(bytes.data() + at + from, static_cast<std::size_t>(std::min<std::uint64_t>(d::file_block, n - from))));
        d::store_u64(row(i) + 48, d::section_checksum(sums.data() + first, sums.size() - first));
    }
    const std::uint64_t at = d::load_u64(row(count - 1) + 32);
    if (d::load_u64(row(count - 1) + 40) != sums.size() * 8 || !fits(at, sums.size() * 8)) return;
    std::memcpy(bytes.data() + at, sums.data(), sums.size() * 8);
    d::store_u64(row(count - 1) + 48, d::checksum64(bytes.data() + at, sums.size() * 8));
}

// Xors bytes, cuts or lengthens the file, then mends the header's size and checksum (and
// with `blocks`, the block checksums first).
void damage(input& in, std::vector<unsigned char>& bytes, bool blocks = false) {
    namespace d = quoct::detail;
    const std::size_t changes = in.below(8);
    for (std::size_t i = 0; i < changes && !bytes.empty(); ++i) {
        // Mostly in the header, the table and the small sections after it.
        const std::size_t span = in.one_in(2) ? std::min<std::size_t>(bytes.size(), 2048) : bytes.size();
        bytes[in.below(span)] ^= static_cast<unsigned char>(1 + in.byte() % 255);
    }
    if (in.one_in(8)) bytes.resize(in.below(bytes.size() + 1));
    if (in.one_in(16)) bytes.resize(bytes.size() + in.below(200), 0);
    if (bytes.size() < d::file_header) return;
    if (blocks) mend_blocks(bytes);
    if (!in.one_in(8)) d::store_u64(bytes.data() + 16, bytes.size());
    const std::size_t count = d::load_u32(bytes.data() + 24);
    if (count <= (bytes.size() - d::file_header) / d::file_entry && !in.one_in(16)) {
        const std::size_t table_end = d::file_header + d::file_entry * count;
        d::store_u64(bytes.data() + d::file_checksum_at, d::file_writer::header_checksum(bytes.data(), table_end));
    }
}

// Reads the damaged bytes unverified (lazily: as open() does by default), from an aligned
// copy that the index keeps alive.
template <class Index>
bool read_damaged(const std::vector<unsigned char>& bytes, Index& out, bool lazy = false) {
    auto aligned = std::make_shared<std::vector<std::uint64_t>>((bytes.size() + 7) / 8);
    if (!bytes.empty()) std::memcpy(aligned->data(), bytes.data(), bytes.size());
    const auto* p = reinterpret_cast<const unsigned char*>(aligned->data());
    try {
        out = quoct::detail::read_index<Index>("<fuzz>", p, bytes.size(), std::move(aligned), false, lazy);
        return true;
    } catch (const quoct::file_error&) {
        return false;
    }
}

template <class T, std::size_t D>
void query_tree(input& in, std::vector<T>& seen, const std::vector<quoct::point<T, D>>& pts,
                const quoct::orthtree<T, D>& same, const quoct::orthtree<T, D>& d);

template <class T, std::size_t D>
void run_tree(input& in) {
    using tree = quoct::orthtree<T, D>;
    std::vector<T> seen;
    const auto pts = points<T, D>(in, seen, 300);
    quoct::build_options o;
    o.leaf_size = 1 + in.below(8);
    o.nearest_index = !in.one_in(4);
    const tree t(pts, o);
    std::vector<unsigned char> bytes = quoct::to_bytes(t);
    const tree same = quoct::from_bytes<tree>(bytes.data(), bytes.size());
    QUOCT_FUZZ_CHECK(quoct::to_bytes(same) == bytes, "a tree read back saves to other bytes");
    const bool lazy = in.one_in(2);
    damage(in, bytes, lazy);
    tree d;
    if (!read_damaged(bytes, d, lazy)) return;
    try {  // read lazily, a query may find damage: a file_error
        query_tree(in, seen, pts, same, d);
    } catch (const quoct::file_error&) {
        if (!lazy) throw;
    }
}

template <class T, std::size_t D>
void query_tree(input& in, std::vector<T>& seen, const std::vector<quoct::point<T, D>>& pts,
                const quoct::orthtree<T, D>& same, const quoct::orthtree<T, D>& d) {
    for (int q = 0; q < 4; ++q) {
        const quoct::point<T, D> c = point<T, D>(in, seen, pts);
        const quoct::ball<T, D> s{c, radius<T>(in, seen)};
        (void)d.query(s);
        (void)d.count(s);
        (void)d.query_with_distances(s, quoct::result_order::nearest_first);
        const quoct::box<T, D> b = query_box<T, D>(in, seen, pts);
        (void)d.query(b);
        (void)d.count(b);
        std::vector<quoct::neighbor<T, std::uint32_t>> nn;
        d.nearest(c, 1 + in.below(12), nn);
        d.nearest(c, 1 + in.below(12), radius<T>(in, seen), nn);
        try {
            (void)d.point(static_cast<std::uint32_t>(in.below(d.size() + 2)));
        } catch (const std::out_of_range&) {
        }
    }
    // The pair engine indexes its own arrays by id: a forged tree must not reach outside them.
    const T r = std::abs(coordinate<T>(in, seen));
    if (std::isfinite(r)) {
        (void)quoct::pairs_within(d, r);
        (void)quoct::neighbor_lists(d, r);
        (void)quoct::neighbor_lists(d, same, r);
    }
}

void run_geo(input& in) {
    std::vector<double> seen;
    std::vector<quoct::geo::lonlat> where;
    const std::size_t n = in.below(200);
    for (std::size_t i = 0; i < n; ++i)
        where.push_back({std::fmod(coordinate<double>(in, seen), 180.0), std::fmod(coordinate<double>(in, seen), 90.0)});
    const quoct::geo::index<> g(where);
    std::vector<unsigned char> bytes = quoct::to_bytes(g);
    damage(in, bytes);
    quoct::geo::index<> d;
    if (!read_damaged(bytes, d)) return;
    for (int q = 0; q < 4; ++q) {
        const double lon = std::fmod(coordinate<double>(in, seen), 180.0), lat = std::fmod(coordinate<double>(in, seen), 90.0);
        (void)d.within(lon, lat, std::abs(coordinate<double>(in, seen)));
        (void)d.in_box(lon, -90, std::fmod(coordinate<double>(in, seen), 180.0), lat);
        (void)d.nearest(lon, lat, 1 + in.below(8));
    }
}

void run_dynamic(input& in) {
    using index = quoct::dynamic_orthtree<float, 2>;
    std::vector<float> seen;
    const auto pts = points<float, 2>(in, seen, 200);
    quoct::dynamic_options o;
    o.tail_limit = 1 + in.below(8);
    index x(pts, o);
    const std::size_t changes = in.below(40);
    for (std::size_t i = 0; i < changes; ++i) {
        const auto id = static_cast<std::uint32_t>(in.below(x.id_bound() + 1));
        if (in.one_in(2)) x.insert(point<float, 2>(in, seen, pts));
        else if (x.contains(id)) x.move(id, point<float, 2>(in, seen, pts));
        else x.erase(id);
    }
    std::vector<unsigned char> bytes = quoct::to_bytes(x);
    damage(in, bytes);
    index d;
    if (!read_damaged(bytes, d)) return;
    try {
        for (int q = 0; q < 6; ++q) {
            const quoct::point<float, 2> c = point<float, 2>(in, seen, pts);
            const quoct::ball<float, 2> s{c, radius<float>(in, seen)};
            (void)d.query(s);
            (void)d.count(s);
            std::vector<quoct::neighbor<float, std::uint32_t>> nn;
            d.nearest(c, 1 + in.below(12), nn);
            const auto id = static_cast<std::uint32_t>(in.below(d.id_bound() + 1));
            if (in.one_in(2)) d.insert(c);
            else if (d.contains(id)) d.move(id, c);
            else d.erase(id);
        }
    } catch (const std::invalid_argument&) {  // a forged non-finite point met by a rebuild
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    input in(data, size);
    switch (in.below(4)) {
        case 0: run_tree<float, 2>(in); break;
        case 1: run_tree<double, 3>(in); break;
        case 2: run_geo(in); break;
        default: run_dynamic(in); break;
    }
    return 0;
}
