// quoct: indexes that outlive the process. Saves an index to one self-contained file (its
// points, ids, nodes and nearest index: nothing else is needed to query it), loads it back
// as an owning copy, or opens it memory-mapped, read-only, so that many processes share one
// copy through the page cache and opening reads the header and the block checksums only
// (queries then check each 64 KiB block they read, once). Optional header: the standard
// library, and POSIX for mmap (elsewhere open() reads the file as load() does).
//
//   quoct::save(tree, "cloud.quoct");                              // atomic
//   auto t = quoct::load<quoct::octree<double>>("cloud.quoct");    // checksums verified
//   auto m = quoct::open<quoct::octree<double>>("cloud.quoct");    // mapped; checked as read
//
// Every index kind with a saved form: orthtree (quadtree, octree), geo::index and
// periodic_index over an orthtree (save, load, open), dynamic_orthtree and periodic_index
// over it (save, load: a loaded dynamic index goes on with the same ids). Answers after
// load or open are the answers of the index that was saved, bit for bit. Each index kind
// writes, reads and checks its own sections (orthtree: detail/orthtree_data.hpp; the
// others in their headers); this header is the file around them, and includes only the
// orthtree: include the header of any other index kind you save or read.
//
// The format (docs/file-format.md): a 128-byte header (magic, format version, byte order,
// file size, section count, the index type as text, a checksum of the header and the
// table), a table of named sections (offset, bytes, element size, checksum), then the
// sections, each at a multiple of 64 bytes, holding the index's arrays exactly as the
// searches read them, and last the checksums of every section's 64 KiB blocks. Files are
// little-endian; a big-endian machine refuses them.
//
// Errors: quoct::file_error (a std::runtime_error) naming the file and the cause.
#ifndef QUOCT_FILE_HPP
#define QUOCT_FILE_HPP

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/block_check.hpp"
#include "detail/section.hpp"
#include "detail/file_names.hpp"
#include "orthtree.hpp"  // the index most files hold; every other index kind brings its own header

#if defined(__unix__) || defined(__APPLE__)
#define QUOCT_FILE_POSIX 1
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "detail/posix_io.hpp"
#endif

namespace quoct {

/// What goes wrong with an index file: it cannot be read or written, it is not a quoct
/// index file, its format version is newer than this library reads, it holds another index
/// type than asked for (both are named), it is truncated, a checksum does not match (the
/// section is named), or its structure is damaged. what() names the file and the cause.
class file_error : public std::runtime_error {
public:
    /// The error for the file at `path` (or "<bytes>"), for the given cause.
    file_error(const std::string& path, const std::string& cause)
        : std::runtime_error("quoct: " + path + ": " + cause), path_(path) {}
    /// The file's path as given (or "<bytes>" for an index read from memory).
    const std::string& path() const noexcept { return path_; }

private:
    std::string path_;
};

/// How open() and view_bytes() check a file before its index answers queries. By default
/// they read the header, the section table and the table of block checksums (8 bytes for
/// every 64 KiB of the file), whatever the file's size, and an orthtree's searches then
/// check what they reach as they reach it: each node's links before they follow them, and
/// each 64 KiB block of nodes, points and ids against its checksum the first time a query
/// reads it (and the ids in it against the number of points). So no query reads outside
/// the file or loops, and damaged bytes a query reads are reported (file_error, naming the
/// section) rather than answered. Searches that check cost time: see docs/file-format.md.
struct open_options {
    /// Checksum every section at once, as load() does (reads the whole file), and check the
    /// whole structure: queries then run unchecked, at the speed of a tree in memory.
    bool verify = false;
    /// Check the whole structure at once (every node and id, not the points: about a fifth
    /// of the file), not the checksums: queries then run unchecked, and a damaged point is
    /// answered as it reads.
    bool check_structure = false;
};

/// The version of the file format this library writes and reads (docs/file-format.md).
constexpr std::uint32_t file_format_version = 2;

/// One section of an index file, as file_info lists them.
struct file_section {
    std::string name;             ///< what the section holds, as "coords" or "nodes"
    std::uint64_t offset;         ///< its first byte, from the start of the file
    std::uint64_t bytes;          ///< its length in bytes
    std::uint32_t element_bytes;  ///< the size of one of its elements (its alignment unit)
};

/// What an index file holds, from its header and section table (read_file_info).
struct file_info {
    std::string type;                    ///< the index type, as "orthtree<double, 3, uint32>"
    std::uint32_t version;               ///< the format version the file was written in
    std::uint64_t bytes;                 ///< the file's length
    std::vector<file_section> sections;  ///< its sections, in file order
};

namespace detail {

constexpr unsigned char file_magic[8] = {0x89, 'Q', 'U', 'O', 'C', 'T', '\r', '\n'};
constexpr std::uint32_t file_byte_order = 0x01020304;
constexpr std::size_t file_align = 64;     // every section starts at a multiple of this
constexpr std::size_t file_header = 128;   // magic .. type name
constexpr std::size_t file_entry = 64;     // one section in the table
constexpr std::size_t file_name = 32;      // a section's name, NUL-padded
constexpr std::size_t file_type = 88;      // the index type, NUL-padded
constexpr std::size_t file_checksum_at = 32;

// The text of a NUL-padded field of at most `most` bytes.
inline std::string padded_text(const unsigned char* p, std::size_t most) {
    std::size_t n = 0;
    while (n < most && p[n] != 0) ++n;
    return std::string(reinterpret_cast<const char*>(p), n);
}

inline bool little_endian() noexcept {
    const std::uint32_t one = 1;
    unsigned char first;
    std::memcpy(&first, &one, 1);
    return first == 1;
}

inline std::uint64_t load_u64(const unsigned char* p) noexcept {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
inline std::uint32_t load_u32(const unsigned char* p) noexcept {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
inline void store_u64(unsigned char* p, std::uint64_t v) noexcept { std::memcpy(p, &v, 8); }
inline void store_u32(unsigned char* p, std::uint32_t v) noexcept { std::memcpy(p, &v, 4); }

/// A 64-bit checksum of a run of bytes given in pieces of any size: four lanes of
/// multiply-rotate rounds over 8-byte words (the round of xxHash64, so several gigabytes a
/// second), then the tail bytes. Detects any change of one word, and damage in general with
/// probability 1 - 2^-64. The same bytes give the same value however they are cut.
class checksum64_stream {
public:
    void update(const unsigned char* p, std::size_t n) noexcept {
        if (n == 0) return;
        total_ += n;
        if (held_ != 0) {  // finish the block begun by the last piece
            const std::size_t take = std::min(n, std::size_t{32} - held_);
            std::memcpy(block_ + held_, p, take);
            held_ += take, p += take, n -= take;
            if (held_ < 32) return;
            blocks(block_, 32);
            held_ = 0;
        }
        const std::size_t whole = n / 32 * 32;
        blocks(p, whole);
        std::memcpy(block_, p + whole, n - whole);
        held_ = n - whole;
    }
    std::uint64_t finish() const noexcept {
        std::uint64_t h = rotl(lane_[0], 1) + rotl(lane_[1], 7) + rotl(lane_[2], 12) + rotl(lane_[3], 18);
        h ^= total_ * k3;
        std::size_t i = 0;
        for (; i + 8 <= held_; i += 8) h = rotl(h ^ round(0, load(block_ + i)), 27) * k1 + k2;
        for (; i < held_; ++i) h = rotl(h ^ (block_[i] * k3), 11) * k1;
        h ^= h >> 33;
        h *= k2;
        h ^= h >> 29;
        h *= k3;
        return h ^ (h >> 32);
    }

private:
    static constexpr std::uint64_t k1 = 0x9E3779B185EBCA87ull, k2 = 0xC2B2AE3D27D4EB4Full, k3 = 0x165667B19E3779F9ull;
    static std::uint64_t rotl(std::uint64_t x, unsigned r) noexcept { return (x << r) | (x >> (64 - r)); }
    static std::uint64_t round(std::uint64_t acc, std::uint64_t w) noexcept { return rotl(acc + w * k2, 31) * k1; }
    static std::uint64_t load(const unsigned char* p) noexcept {
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        return v;
    }
    void blocks(const unsigned char* p, std::size_t n) noexcept {  // n a multiple of 32
        for (std::size_t i = 0; i < n; i += 32)
            for (std::size_t j = 0; j < 4; ++j) lane_[j] = round(lane_[j], load(p + i + 8 * j));
    }

    std::uint64_t lane_[4] = {k1 + k2, k2, 0, 0 - k1};
    std::uint64_t total_ = 0;
    unsigned char block_[32];
    std::size_t held_ = 0;
};

/// The checksum64_stream of n bytes at p.
inline std::uint64_t checksum64(const unsigned char* p, std::size_t n) noexcept {
    checksum64_stream c;
    c.update(p, n);
    return c.finish();
}

/// Bytes per checksummed block of a section (format version 2 on).
constexpr std::size_t file_block = block_guard::block_bytes;
constexpr const char* file_sums_name = "block_sums";

/// The checksums of a run of bytes cut into blocks of file_block bytes (the last one
/// shorter; none for no bytes), given in pieces of any size.
class block_sums_stream {
public:
    void update(const unsigned char* p, std::size_t n) {
        while (n != 0) {
            const std::size_t take = std::min(n, file_block - held_);
            block_.update(p, take);
            held_ += take, p += take, n -= take;
            if (held_ == file_block) end_block();
        }
    }
    std::vector<std::uint64_t> finish() {
        if (held_ != 0) end_block();
        return std::move(sums_);
    }

private:
    void end_block() {
        sums_.push_back(block_.finish());
        block_ = checksum64_stream();
        held_ = 0;
    }
    checksum64_stream block_;
    std::size_t held_ = 0;
    std::vector<std::uint64_t> sums_;
};

/// A section's checksum in the table (format version 2 on): the checksum of its blocks'
/// checksums, as little-endian words.
inline std::uint64_t section_checksum(const std::uint64_t* sums, std::size_t blocks) noexcept {
    return checksum64(reinterpret_cast<const unsigned char*>(sums), blocks * 8);
}

/// Gathers an index's sections and writes them as one file (to a path, atomically, or to
/// memory). Sections are borrowed (the index outlives the writer) or copied in. The block
/// checksums go last, in a section of their own (`block_sums`: the block size, then every
/// other section's block checksums in table order).
class file_writer {
public:
    /// A section of n values at p, borrowed.
    template <class U>
    void add(const std::string& name, const U* p, std::size_t n) {
        static_assert(std::is_trivially_copyable<U>::value, "quoct: a section holds trivially copyable values");
        if (name.size() >= file_name) throw std::logic_error("quoct: section name too long: " + name);
        entries_.push_back(entry{name, reinterpret_cast<const unsigned char*>(p), n * sizeof(U),
                                 static_cast<std::uint32_t>(sizeof(U))});
    }
    /// A section of the values v, copied.
    template <class U>
    void add_copy(const std::string& name, const std::vector<U>& v) {
        kept_.emplace_back(reinterpret_cast<const unsigned char*>(v.data()),
                           reinterpret_cast<const unsigned char*>(v.data() + v.size()));
        add(name, reinterpret_cast<const U*>(kept_.back().data()), v.size());
    }
    /// A section of bytes the caller has already laid out (element_bytes each), copied.
    void add_bytes(const std::string& name, std::vector<unsigned char> bytes, std::uint32_t element_bytes) {
        kept_.push_back(std::move(bytes));
        add(name, kept_.back().data(), kept_.back().size());
        entries_.back().element_bytes = element_bytes;
    }

    /// A section of `bytes` bytes that the caller writes into the file itself, at the offset
    /// offsets() gives, and whose block checksums it sets (set_block_sums, from a
    /// block_sums_stream) before header() and sums_section(); for a section too large to
    /// hold in memory. Returns its number. emit() refuses a writer with one.
    std::size_t add_external(const std::string& name, std::uint64_t bytes, std::uint32_t element_bytes) {
        if (name.size() >= file_name) throw std::logic_error("quoct: section name too long: " + name);
        entries_.push_back(entry{name, nullptr, static_cast<std::size_t>(bytes), element_bytes, {}, true});
        return entries_.size() - 1;
    }
    void set_block_sums(std::size_t section, std::vector<std::uint64_t> sums) {
        entry& e = entries_.at(section);
        if (sums.size() != blocks_of(e.bytes)) throw std::logic_error("quoct: wrong number of block checksums");
        e.sums = std::move(sums);
    }
    /// Where each section starts in the file, in the order added, then where the block
    /// checksums start, then the file's size.
    std::vector<std::uint64_t> offsets() const {
        std::vector<std::uint64_t> at;
        std::size_t end = file_header + file_entry * (entries_.size() + 1);
        for (const entry& e : entries_) {
            end = align(end);
            at.push_back(end);
            end += e.bytes;
        }
        end = align(end);
        at.push_back(end);
        at.push_back(end + 8 * (1 + total_blocks()));
        return at;
    }
    /// The header and the section table, checksums filled in.
    std::vector<unsigned char> header(const std::string& type) const { return head(type, sums_table()); }
    /// The block checksums' section, to write at the offset offsets() gives it.
    std::vector<std::uint64_t> sums_section() const { return sums_table(); }

    /// The whole file in memory.
    std::vector<unsigned char> bytes(const std::string& type) const {
        std::vector<unsigned char> out;
        emit(type, [&](const unsigned char* p, std::size_t n) {
            out.insert(out.end(), p, p + n);
            return true;
        });
        return out;
    }

    /// Hands the whole file to sink(bytes, n) piece by piece, in order: the header and table,
    /// then each section after its zero padding. sink returns false to stop (a failed write);
    /// returns false if it was stopped.
    template <class Sink>
    bool emit(const std::string& type, Sink&& sink) const {
        static const unsigned char zeros[file_align] = {};
        for (const entry& e : entries_)
            if (e.external) throw std::logic_error("quoct: emit() with an external section");
        const std::vector<std::uint64_t> sums = sums_table();
        const std::vector<unsigned char> h = head(type, sums);
        std::size_t at = h.size();
        if (!sink(h.data(), h.size())) return false;
        const auto piece = [&](const unsigned char* p, std::size_t n) {
            const std::size_t pad = align(at) - at;
            at += pad + n;
            return sink(zeros, pad) && sink(p, n);
        };
        for (const entry& e : entries_)
            if (!piece(e.p, e.bytes)) return false;
        return piece(reinterpret_cast<const unsigned char*>(sums.data()), sums.size() * 8);
    }

    /// Writes the file to `path` atomically: into a new file in the same directory, flushed
    /// to disk, then renamed over `path`, so that a crash or a full disk mid-save leaves
    /// whatever was at `path` whole. Throws file_error naming the cause.
    void write(const std::string& type, const std::string& path) const;

    /// The number of blocks in a section of `bytes` bytes.
    static std::size_t blocks_of(std::uint64_t bytes) noexcept {
        return static_cast<std::size_t>((bytes + file_block - 1) / file_block);
    }

private:
    struct entry {
        std::string name;
        const unsigned char* p;
        std::size_t bytes;
        std::uint32_t element_bytes;
        std::vector<std::uint64_t> sums = {};  // an external section's block checksums
        bool external = false;
    };
    static std::size_t align(std::size_t n) noexcept { return (n + file_align - 1) / file_align * file_align; }
    std::size_t total_blocks() const noexcept {
        std::size_t n = 0;
        for (const entry& e : entries_) n += blocks_of(e.bytes);
        return n;
    }
    // The block_sums section: the block size, then each section's block checksums.
    std::vector<std::uint64_t> sums_table() const {
        std::vector<std::uint64_t> t;
        t.reserve(1 + total_blocks());
        t.push_back(file_block);
        for (const entry& e : entries_) {
            if (e.external) {
                if (e.sums.size() != blocks_of(e.bytes)) throw std::logic_error("quoct: block checksums not set");
                t.insert(t.end(), e.sums.begin(), e.sums.end());
                continue;
            }
            for (std::size_t from = 0; from < e.bytes; from += file_block)
                t.push_back(checksum64(e.p + from, std::min(file_block, e.bytes - from)));
        }
        return t;
    }

    // The header and the section table, checksums filled in, for the block checksums `sums`.
    std::vector<unsigned char> head(const std::string& type, const std::vector<std::uint64_t>& sums) const {
        if (type.size() >= file_type) throw std::logic_error("quoct: index type name too long: " + type);
        const std::size_t count = entries_.size() + 1;
        const std::size_t table_end = file_header + file_entry * count;
        std::vector<unsigned char> h(table_end, 0);
        std::memcpy(h.data(), file_magic, 8);
        store_u32(h.data() + 8, file_format_version);
        store_u32(h.data() + 12, file_byte_order);
        store_u32(h.data() + 24, static_cast<std::uint32_t>(count));
        std::memcpy(h.data() + 40, type.data(), type.size());
        const std::vector<std::uint64_t> at = offsets();
        std::size_t first = 1;  // this section's first block checksum in `sums`
        const auto row_of = [&](std::size_t i, const std::string& name, std::uint64_t bytes, std::uint64_t checksum,
                                std::uint32_t element_bytes) {
            unsigned char* row = h.data() + file_header + file_entry * i;
            std::memcpy(row, name.data(), name.size());
            store_u64(row + 32, at[i]);
            store_u64(row + 40, bytes);
            store_u64(row + 48, checksum);
            store_u32(row + 56, element_bytes);
        };
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            const entry& e = entries_[i];
            const std::size_t blocks = blocks_of(e.bytes);
            row_of(i, e.name, e.bytes, section_checksum(sums.data() + first, blocks), e.element_bytes);
            first += blocks;
        }
        row_of(entries_.size(), file_sums_name, sums.size() * 8,
               checksum64(reinterpret_cast<const unsigned char*>(sums.data()), sums.size() * 8), 8);
        store_u64(h.data() + 16, at.back());  // the file's size
        store_u64(h.data() + file_checksum_at, header_checksum(h.data(), h.size()));
        return h;
    }

public:
    // The header's checksum: of every byte of header and table but its own eight.
    static std::uint64_t header_checksum(const unsigned char* h, std::size_t n) noexcept {
        const std::uint64_t before = checksum64(h, file_checksum_at);
        const std::uint64_t after = checksum64(h + file_checksum_at + 8, n - file_checksum_at - 8);
        return before ^ (after * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull);
    }

private:
    std::vector<entry> entries_;
    std::deque<std::vector<unsigned char>> kept_;  // copied sections (a deque keeps them in place)
};

/// Reads an index file from bytes in memory (a loaded buffer, a mapping): checks the
/// header and the table at construction, and hands out sections as views that keep the
/// bytes alive. Every failure is a file_error naming the file.
class file_reader {
public:
    /// `owning`: sections are handed out as owned copies (for an index that outlives the
    /// bytes and changes, as a dynamic one), not views that keep the bytes alive. `lazy`:
    /// the index's data may check its sections as its searches reach them (guard()), when
    /// the file has block checksums and the reader does not verify.
    file_reader(std::string path, const unsigned char* data, std::size_t size, std::shared_ptr<const void> keep,
                bool verify, bool owning = false, bool lazy = false)
        : path_(std::move(path)), data_(data), size_(size), keep_(std::move(keep)), verify_(verify), owning_(owning) {
        check_head(data_, size_, path_, true);
        const std::size_t count = load_u32(data_ + 24);
        for (std::size_t i = 0; i < count; ++i) {
            const unsigned char* row = data_ + file_header + file_entry * i;
            entry e;
            e.name = padded_text(row, file_name);
            e.offset = load_u64(row + 32);
            e.bytes = load_u64(row + 40);
            e.checksum = load_u64(row + 48);
            e.element_bytes = load_u32(row + 56);
            if (e.offset % file_align != 0 || e.offset > size_ || e.bytes > size_ - e.offset ||
                e.offset < file_header + file_entry * count)
                fail("damaged: section '" + e.name + "' lies outside the file");
            entries_.push_back(std::move(e));
        }
        read_sums();
        lazy_ = lazy && !verify_ && !owning_;
    }

    /// True when the index may check its sections as queries reach them (see guard()).
    bool lazy() const noexcept { return lazy_; }
    /// The guard of section `name` (see detail/block_check.hpp): its blocks checked against
    /// their checksums as searches reach them, and each block's values by `check` (which
    /// returns a fault or an empty string). Only when lazy(). Holds what keeps the bytes.
    std::shared_ptr<const block_guard> guard(const std::string& name, block_guard::value_check check = nullptr) const {
        const entry& e = find(name);
        struct held {
            held(std::shared_ptr<const void> k, block_guard::value_check c, const std::string& n, const unsigned char* p,
                 std::size_t bytes, const std::uint64_t* sums, const std::string& file)
                : keep(std::move(k)),
                  guard(n, p, bytes, sums, &checksum64,
                        [file](const std::string& cause) { throw file_error(file, cause); }, std::move(c)) {}
            std::shared_ptr<const void> keep;
            block_guard guard;
        };
        auto h = std::make_shared<held>(keep_, std::move(check), name, data_ + e.offset, static_cast<std::size_t>(e.bytes),
                                        e.sums, path_);
        return std::shared_ptr<const block_guard>(h, &h->guard);
    }

    /// Checks a header (and, with `table`, that the table fits and its checksum matches),
    /// given at least file_header bytes, or all there are. Throws file_error.
    /// Checks the file size the header claims against the file's real size.
    static void check_size(std::uint64_t claimed, std::uint64_t size, const std::string& path) {
        if (claimed != size)
            throw file_error(path, (claimed > size ? "truncated: " : "damaged: ") + std::to_string(size) +
                                       " bytes, the header says " + std::to_string(claimed));
    }

    static void check_head(const unsigned char* h, std::size_t size, const std::string& path, bool table) {
        const auto fail = [&](const std::string& cause) { throw file_error(path, cause); };
        if (size < 8 || std::memcmp(h, file_magic, 8) != 0) fail("not a quoct index file");
        if (size < file_header) fail("truncated: " + std::to_string(size) + " bytes, not even a header");
        if (load_u32(h + 12) != file_byte_order) {
            if (load_u32(h + 12) == 0x04030201u) fail("written with another byte order than this machine's");
            fail("damaged: the header's byte-order mark is wrong");
        }
        const std::uint32_t version = load_u32(h + 8);
        if (version > file_format_version)
            fail("format version " + std::to_string(version) + " is newer than this library reads (" +
                 std::to_string(file_format_version) + ")");
        if (version == 0) fail("damaged: format version 0");
        if (version < file_format_version)
            fail("format version " + std::to_string(version) +
                 ", a layout of quoct before its first release, is not read: build the index again");
        if (!table) return;
        // The header's checksum before its size: a damaged size field is reported as damage,
        // not as a file cut short. Only where the table runs past the file's end is the
        // size all there is to go by.
        const std::uint64_t claimed = load_u64(h + 16);
        const std::uint64_t count = load_u32(h + 24);
        if (count > (size - file_header) / file_entry) {
            if (claimed > size && (claimed - file_header) / file_entry >= count) check_size(claimed, size, path);
            fail("damaged: the section table runs past the file");
        }
        const std::size_t table_end = file_header + file_entry * static_cast<std::size_t>(count);
        if (file_writer::header_checksum(h, table_end) != load_u64(h + file_checksum_at))
            fail("damaged: checksum mismatch in the header or section table");
        check_size(claimed, size, path);
    }
    static std::string type_of(const unsigned char* h) { return padded_text(h + 40, file_type); }

    const std::string& path() const noexcept { return path_; }
    /// True when every section handed out had its checksum verified.
    bool verified() const noexcept { return verify_; }
    std::string type() const { return type_of(data_); }
    [[noreturn]] void fail(const std::string& cause) const { throw file_error(path_, cause); }

    /// The section `name` as a view of `count` values of U (any count when count is
    /// `any`), its checksum verified when the reader verifies.
    static constexpr std::size_t any = std::numeric_limits<std::size_t>::max();
    template <class U>
    section<U> get(const std::string& name, std::size_t count = any) const {
        const entry& e = find(name);
        if (e.element_bytes != sizeof(U))
            fail("damaged: section '" + name + "' holds " + std::to_string(e.element_bytes) + "-byte values, not " +
                 std::to_string(sizeof(U)));
        if (e.bytes % sizeof(U) != 0 || (count != any && e.bytes / sizeof(U) != count))
            fail("damaged: section '" + name + "' has " + std::to_string(e.bytes) + " bytes, not " +
                 (count == any ? "a whole number of values" : std::to_string(count) + " values"));
        // Read lazily, a section of one block (meta, bounds, a periodic domain) is verified
        // at once: nothing checks it later.
        if (verify_ || (lazy_ && e.bytes <= file_block)) verify(e);
        const auto* p = reinterpret_cast<const U*>(data_ + e.offset);
        return owning_ ? section<U>::copy_of(p, e.bytes / sizeof(U)) : section<U>::view(p, e.bytes / sizeof(U), keep_);
    }
    /// The section `name` copied into a vector.
    template <class U>
    std::vector<U> copy(const std::string& name, std::size_t count = any) const {
        const section<U> s = get<U>(name, count);
        return std::vector<U>(s.begin(), s.end());
    }
    /// A size_t read from a section of 64-bit values, checked to fit.
    static std::size_t to_size(std::uint64_t v) noexcept {
        return v > std::numeric_limits<std::size_t>::max() ? std::numeric_limits<std::size_t>::max()
                                                           : static_cast<std::size_t>(v);
    }

private:
    struct entry {
        std::string name;
        std::uint64_t offset, bytes, checksum;
        std::uint32_t element_bytes;
        const std::uint64_t* sums = nullptr;  // its block checksums (version 2 on)
    };
    // The block checksums (version 2 on): the last section, the block size then every other
    // section's in table order, checked against its own checksum and, section by section,
    // against the table's (which covers them: a section's checksum is that of its blocks').
    // 8 bytes for every 64 KiB of the file are read.
    void read_sums() {
        if (entries_.empty() || entries_.back().name != file_sums_name) fail("damaged: no section 'block_sums'");
        const entry& t = entries_.back();
        std::uint64_t blocks = 0;
        for (std::size_t i = 0; i + 1 < entries_.size(); ++i) blocks += file_writer::blocks_of(entries_[i].bytes);
        if (t.element_bytes != 8 || t.bytes != 8 * (blocks + 1))
            fail("damaged: section 'block_sums' has " + std::to_string(t.bytes) + " bytes, not " +
                 std::to_string(8 * (blocks + 1)));
        const auto* sums = reinterpret_cast<const std::uint64_t*>(data_ + t.offset);
        if (checksum64(data_ + t.offset, static_cast<std::size_t>(t.bytes)) != t.checksum)
            fail("damaged: checksum mismatch in section 'block_sums'");
        if (sums[0] != file_block) fail("damaged: blocks of " + std::to_string(sums[0]) + " bytes");
        std::size_t first = 1;
        for (std::size_t i = 0; i + 1 < entries_.size(); ++i) {
            entry& e = entries_[i];
            const std::size_t n = file_writer::blocks_of(e.bytes);
            e.sums = sums + first;
            if (section_checksum(e.sums, n) != e.checksum)
                fail("damaged: checksum mismatch in the block checksums of section '" + e.name + "'");
            first += n;
        }
    }
    // Checks every byte of a section against its checksums.
    void verify(const entry& e) const {
        const unsigned char* p = data_ + e.offset;
        for (std::uint64_t from = 0, b = 0; from < e.bytes; from += file_block, ++b) {
            const std::uint64_t to = std::min<std::uint64_t>(from + file_block, e.bytes);
            if (checksum64(p + from, static_cast<std::size_t>(to - from)) != e.sums[b])
                fail("damaged: checksum mismatch in section '" + e.name + "'" + block_guard::which(from, to, e.bytes));
        }
    }
    const entry& find(const std::string& name) const {
        for (const entry& e : entries_)
            if (e.name == name) return e;
        fail("damaged: no section '" + name + "'");
    }

    std::string path_;
    const unsigned char* data_;
    std::size_t size_;
    std::shared_ptr<const void> keep_;
    bool verify_;
    bool owning_;
    bool lazy_ = false;
    std::vector<entry> entries_;
};

// --- the door to each index kind's saved form --------------------------------------------

// Each index writes, reads and checks its own sections (file_type_name, write_sections,
// read_sections, private: detail/file_names.hpp): this is the one way in, for the functions
// below and for indexes that hold another (a periodic index over its base).
template <class Index>
struct file_codec {
    static constexpr bool mappable = file_mappable<Index>::value;
    static std::string type_name() { return Index::file_type_name(); }
    static void write(const Index& x, file_writer& w, const std::string& prefix) { x.write_sections(w, prefix); }
    static Index read(const file_reader& r, const std::string& prefix) { return Index::read_sections(r, prefix); }
};

/// The whole file read into memory, 8-byte aligned (every section is 64-aligned in it).
struct file_buffer {
    raw_vector<std::uint64_t> words;
    std::size_t size = 0;
    const unsigned char* data() const noexcept { return reinterpret_cast<const unsigned char*>(words.data()); }
    unsigned char* data() noexcept { return reinterpret_cast<unsigned char*>(words.data()); }
    void resize(std::size_t n) {
        words.resize((n + 7) / 8);
        size = n;
    }
};

inline std::string errno_text(int e) { return std::strerror(e); }

// Reads a whole file: the header first (so that a foreign file is refused
// before a large allocation), then the rest. Linear in the file's size.
inline std::shared_ptr<file_buffer> read_file(const std::string& path) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) throw file_error(path, "cannot open: " + errno_text(errno));
    auto buf = std::make_shared<file_buffer>();
    buf->resize(file_header);
    const std::size_t got = std::fread(buf->data(), 1, file_header, f.get());
    if (std::ferror(f.get())) throw file_error(path, "cannot read: " + errno_text(errno));
    file_reader::check_head(buf->data(), got, path, false);
    if (std::fseek(f.get(), 0, SEEK_END) != 0) throw file_error(path, "cannot seek: " + errno_text(errno));
    const long end = std::ftell(f.get());
    if (end < 0) throw file_error(path, "cannot tell its size: " + errno_text(errno));
    const auto size = static_cast<std::uint64_t>(end);
    // A size that differs from the header's is judged (cut short, or a damaged header) once
    // the table is read, by check_head; the allocation is the file's real size.
    if (size > std::numeric_limits<std::size_t>::max() / 2) throw file_error(path, "too large for this machine");
    buf->resize(static_cast<std::size_t>(size));
    if (std::fseek(f.get(), 0, SEEK_SET) != 0) throw file_error(path, "cannot seek: " + errno_text(errno));
    if (std::fread(buf->data(), 1, buf->size, f.get()) != buf->size)
        throw file_error(path, "cannot read: " + errno_text(errno));
    return buf;
}

template <class Index>
Index read_index(const std::string& path, const unsigned char* data, std::size_t size, std::shared_ptr<const void> keep,
                 bool verify, bool lazy = false) {
    const file_reader r(path, data, size, std::move(keep), verify, !file_codec<Index>::mappable, lazy);
    const std::string want = file_codec<Index>::type_name();
    if (r.type() != want) r.fail("holds " + r.type() + ", asked for " + want);
    return file_codec<Index>::read(r, "");
}

template <class Index>
file_writer writer_of(const Index& index) {
    if (!little_endian()) throw std::runtime_error("quoct: index files are little-endian; this machine is not");
    file_writer w;
    file_codec<Index>::write(index, w, "");
    return w;
}

#ifdef QUOCT_FILE_POSIX
// Writes all n bytes at p to fd, through short writes and interruptions.
inline bool write_all(int fd, const unsigned char* p, std::size_t n) {
    while (n != 0) {
        const ssize_t k = ::write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        p += k;
        n -= static_cast<std::size_t>(k);
    }
    return true;
}
#endif

#ifdef QUOCT_FILE_POSIX
// The regular file a save at `given` replaces: `given` itself, or the file a symbolic link
// there leads to (the link stays a link). Anything else there (a directory, a device such as
// /dev/null, a pipe) is refused: renaming over it would replace it.
inline std::string save_target(const std::string& given) {
    struct stat st;
    if (::lstat(given.c_str(), &st) != 0) return given;  // nothing there yet
    std::string path = given;
    if (S_ISLNK(st.st_mode)) {
        std::unique_ptr<char, void (*)(void*)> real(::realpath(given.c_str(), nullptr), &std::free);
        if (!real) throw file_error(given, "is a symbolic link to nothing (nothing was changed)");
        path = real.get();
        if (::stat(path.c_str(), &st) != 0) return path;
    }
    if (!S_ISREG(st.st_mode)) throw file_error(given, "is not a regular file (nothing was changed)");
    return path;
}
#endif

#ifdef QUOCT_FILE_POSIX
/// A new file that takes the place of `given` only when committed: created beside it (a
/// unique name by pid, address and attempt, mode 0666 less the umask, or the old file's
/// mode), then flushed to disk and renamed over it by commit(). Destroyed uncommitted (an
/// error midway), it is removed and whatever was at `given` stays whole. Every failure is a
/// file_error naming `given`, the cause and "(nothing was changed)".
class atomic_file {
public:
    explicit atomic_file(const std::string& given) : given_(given), path_(save_target(given)) {
        for (unsigned attempt = 0; fd_ < 0 && attempt < 100; ++attempt) {
            temp_ = path_ + ".tmp-" + std::to_string(::getpid()) + "-" +
                    std::to_string(reinterpret_cast<std::uintptr_t>(this) % 100000) + "-" + std::to_string(attempt);
            fd_ = ::open(temp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (fd_ < 0 && errno != EEXIST) break;
        }
        if (fd_ < 0) throw file_error(given_, "cannot create a file beside it: " + errno_text(errno));
        struct stat old;
        if (::stat(path_.c_str(), &old) == 0 && ::fchmod(fd_, old.st_mode & 07777) != 0) fail("cannot keep its mode");
    }
    atomic_file(const atomic_file&) = delete;
    atomic_file& operator=(const atomic_file&) = delete;
    ~atomic_file() {
        if (fd_ >= 0) {
            ::close(fd_);
            ::unlink(temp_.c_str());
        }
    }
    int fd() const noexcept { return fd_; }
    /// Throws file_error with `what` and the current errno's text; the new file is removed.
    [[noreturn]] void fail(const std::string& what) {
        const int e = errno;
        ::close(fd_);
        ::unlink(temp_.c_str());
        fd_ = -1;
        throw file_error(given_, what + ": " + errno_text(e) + " (nothing was changed)");
    }
    /// Writes n bytes at `offset`.
    void write(const void* p, std::size_t n, std::uint64_t offset) {
        if (!pwrite_all(fd_, p, n, offset)) fail("cannot write");
    }
    /// Reads n bytes at `offset` back (all of them, or fails).
    void read(void* p, std::size_t n, std::uint64_t offset) {
        if (!pread_all(fd_, p, n, offset)) fail("cannot read back");
    }
    /// Sets the new file's size (bytes never written read as zeros).
    void resize(std::uint64_t size) {
        if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) fail("cannot write");
    }
    /// Flushes the new file to disk and renames it over the target.
    void commit() {
        if (::fsync(fd_) != 0) fail("cannot flush to disk");
        const int closed = ::close(fd_);
        fd_ = -1;
        if (closed != 0 || std::rename(temp_.c_str(), path_.c_str()) != 0) {
            const int e = errno;
            ::unlink(temp_.c_str());
            throw file_error(given_, std::string(closed != 0 ? "cannot write: " : "cannot replace: ") + errno_text(e) +
                                         " (nothing was changed)");
        }
        const std::string::size_type slash = path_.rfind('/');
        const std::string dir = slash == std::string::npos ? "." : path_.substr(0, slash + 1);
        const int dfd = ::open(dir.c_str(), O_RDONLY | O_CLOEXEC);  // make the rename itself durable
        if (dfd >= 0) {
            ::fsync(dfd);
            ::close(dfd);
        }
    }

private:
    std::string given_, path_, temp_;
    int fd_ = -1;
};
#endif

inline void file_writer::write(const std::string& type, const std::string& given) const {
#ifdef QUOCT_FILE_POSIX
    atomic_file out(given);
    if (!emit(type, [&](const unsigned char* p, std::size_t n) { return write_all(out.fd(), p, n); }))
        out.fail("cannot write");
    out.commit();
#else
    const std::string& path = given;
    const std::string temp = path + ".tmp";
    {
        std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(temp.c_str(), "wb"), &std::fclose);
        bool ok = f != nullptr && emit(type, [&](const unsigned char* p, std::size_t n) {
            return std::fwrite(p, 1, n, f.get()) == n;
        });
        ok = ok && std::fflush(f.get()) == 0;
        if (!ok) {
            f.reset();
            std::remove(temp.c_str());
            throw file_error(path, "cannot write (nothing was changed)");
        }
    }
    std::remove(path.c_str());
    if (std::rename(temp.c_str(), path.c_str()) != 0) throw file_error(path, "cannot replace");
#endif
}

}  // namespace detail

/// Saves `index` to the file `path` in one self-contained file: an orthtree (quadtree,
/// octree), geo::index, dynamic_orthtree, or periodic_index over either. Atomic: the file
/// is written beside `path`, flushed to disk and renamed over it, so a crash or a full disk
/// midway leaves whatever was at `path` whole. A symbolic link at `path` is followed (the
/// link stays, the file it leads to is replaced); anything else there that is not a regular
/// file (a directory, a device such as /dev/null, a pipe) is refused, since the rename would
/// replace it. The new file keeps the old one's permission bits (a new one gets 0666 less the
/// umask). On systems without POSIX the old file is removed before the rename, so a crash
/// between the two loses it. float and double coordinates only. Throws file_error (cannot
/// create, write, flush or rename, with the system's reason). Thread-safe against queries on
/// the index; the index must not be modified meanwhile.
template <class Index>
void save(const Index& index, const std::string& path) {
    detail::writer_of(index).write(detail::file_codec<Index>::type_name(), path);
}

/// The file save() writes, as bytes in memory (for pickling, sending, storing in a
/// database). from_bytes() reads them back.
template <class Index>
std::vector<unsigned char> to_bytes(const Index& index) {
    return detail::writer_of(index).bytes(detail::file_codec<Index>::type_name());
}

/// Reads an index file into memory: an index that owns its data and no longer needs the
/// file. Verifies the header, every section's checksum and the structure; reads the whole
/// file once, in time linear in its size. Throws file_error if the file cannot be read, is
/// not a quoct index file, has a newer format version, holds another index type ("holds
/// orthtree<double, 3, uint32>, asked for orthtree<float, 3, uint32>"), is truncated, or
/// is damaged (naming the section whose checksum does not match).
template <class Index>
Index load(const std::string& path) {
    std::shared_ptr<detail::file_buffer> buf = detail::read_file(path);
    const unsigned char* data = buf->data();
    const std::size_t size = buf->size;
    return detail::read_index<Index>(path, data, size, std::move(buf), true);
}

/// Reads an index from the bytes to_bytes() made (copied: the bytes need not outlive it).
/// Verifies and throws as load(), with "<bytes>" for the path.
template <class Index>
Index from_bytes(const void* data, std::size_t size) {
    auto buf = std::make_shared<detail::file_buffer>();
    const std::string where = "<bytes>";
    detail::file_reader::check_head(static_cast<const unsigned char*>(data), size, where, false);
    buf->resize(size);
    std::memcpy(buf->data(), data, size);
    const unsigned char* p = buf->data();
    return detail::read_index<Index>(where, p, size, std::move(buf), true);
}

/// An index over bytes in memory that hold an index file (what to_bytes() gives, a file
/// mapped or read by other means, shared memory), without copying them: the bytes must stay
/// alive and unchanged while the index or a copy of it lives, and `keep` (which may be null)
/// is held as long. They must be 8-byte aligned. Checks as open() does (see open_options)
/// and throws as it, with "<bytes>" for the path.
template <class Index>
Index view_bytes(const void* data, std::size_t size, std::shared_ptr<const void> keep = nullptr,
                 open_options options = {}) {
    if (reinterpret_cast<std::uintptr_t>(data) % 8 != 0) throw file_error("<bytes>", "not 8-byte aligned");
    return detail::read_index<Index>("<bytes>", static_cast<const unsigned char*>(data), size, std::move(keep),
                                     options.verify, !options.check_structure);
}

/// Opens an index file memory-mapped, read-only: pages are read when queries first touch
/// them, and shared through the page cache by every process that opens the file. The index
/// answers as the saved one did; copies share the mapping, which lives as long as any of
/// them. For orthtree, geo::index and periodic_index over an orthtree. By default reads
/// the header, the section table and the block checksums (8 bytes for every 64 KiB),
/// whatever the file's size, and the searches check every node and block they reach as they
/// reach it, so that a damaged file can neither make a query read outside it nor give an
/// answer from damaged bytes: the query throws file_error (see open_options, which also
/// offers checking everything at open, and docs/file-format.md). The file must not be modified while
/// open (save() replaces it with a new file, which is safe). Where mmap is not available,
/// reads the file as load() does. A dynamic_orthtree (or a periodic index over one), which
/// changes after it is read, is loaded, as load() does. Throws as load().
template <class Index>
Index open(const std::string& path, open_options options = {}) {
    if constexpr (!detail::file_codec<Index>::mappable) {
        (void)options;
        return load<Index>(path);
    } else {
#ifdef QUOCT_FILE_POSIX
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw file_error(path, "cannot open: " + detail::errno_text(errno));
    struct stat st;
    if (::fstat(fd, &st) != 0) {
        const int e = errno;
        ::close(fd);
        throw file_error(path, "cannot stat: " + detail::errno_text(e));
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size < detail::file_header || !S_ISREG(st.st_mode)) {
        // Too short to map usefully (or not a regular file, as a pipe): read it.
        ::close(fd);
        return load<Index>(path);
    }
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    const int e = errno;
    ::close(fd);  // the mapping keeps the file
    if (p == MAP_FAILED) throw file_error(path, "cannot map: " + detail::errno_text(e));
    std::shared_ptr<const void> keep(p, [size](const void* q) { ::munmap(const_cast<void*>(q), size); });
    const bool lazy = !options.verify && !options.check_structure;
    Index index = detail::read_index<Index>(path, static_cast<const unsigned char*>(p), size, keep, options.verify, lazy);
    // Checks that read the whole structure (or every page) touched it: let it go from this
    // process's resident set. It stays in the page cache, and queries map back in, at the
    // cost of a minor fault, only the pages they read.
    if (!lazy) ::madvise(p, size, MADV_DONTNEED);
    return index;
#else
    (void)options;
    return load<Index>(path);
#endif
    }
}

namespace detail {
inline file_info info_of(const unsigned char* head, std::size_t table_end) {
    file_info info{file_reader::type_of(head), load_u32(head + 8), load_u64(head + 16), {}};
    const std::size_t count = load_u32(head + 24);
    for (std::size_t i = 0; i < count && file_header + file_entry * (i + 1) <= table_end; ++i) {
        const unsigned char* row = head + file_header + file_entry * i;
        info.sections.push_back(
            file_section{padded_text(row, file_name), load_u64(row + 32), load_u64(row + 40), load_u32(row + 56)});
    }
    return info;
}
}  // namespace detail

/// What the index file at `path` holds: its index type, format version, size and sections,
/// from the header and the section table alone (checked, with their checksum, against the
/// file's size; no section is read, so this is quick on a file of any size). Throws
/// file_error as load() for a file that is not a readable index file.
inline file_info read_file_info(const std::string& path) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) throw file_error(path, "cannot open: " + detail::errno_text(errno));
    std::vector<unsigned char> head(detail::file_header);
    const std::size_t got = std::fread(head.data(), 1, head.size(), f.get());
    detail::file_reader::check_head(head.data(), got, path, false);
    const std::size_t count = detail::load_u32(head.data() + 24);
    if (std::fseek(f.get(), 0, SEEK_END) != 0) throw file_error(path, "cannot seek: " + detail::errno_text(errno));
    const long end = std::ftell(f.get());
    const auto size = static_cast<std::uint64_t>(end < 0 ? 0 : end);
    if (size >= detail::file_header && count <= (size - detail::file_header) / detail::file_entry) {
        // The table lies inside the file: read it, so that check_head judges its checksum
        // before the size (a damaged header is not reported as a file cut short).
        head.resize(detail::file_header + detail::file_entry * count);
        if (std::fseek(f.get(), static_cast<long>(detail::file_header), SEEK_SET) != 0 ||
            std::fread(head.data() + detail::file_header, 1, head.size() - detail::file_header, f.get()) !=
                head.size() - detail::file_header)
            throw file_error(path, "cannot read: " + detail::errno_text(errno));
    }
    detail::file_reader::check_head(head.data(), static_cast<std::size_t>(size), path, true);
    return detail::info_of(head.data(), head.size());
}

/// As read_file_info(path), for an index file's bytes in memory (to_bytes() output), with
/// "<bytes>" for the path.
inline file_info read_file_info(const void* data, std::size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    detail::file_reader::check_head(p, size, "<bytes>", true);
    return detail::info_of(p, size);
}

}  // namespace quoct

#endif  // QUOCT_FILE_HPP
