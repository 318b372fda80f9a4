// quoct: sorting records bigger than memory, for the out-of-core build. POSIX.
//
// Records are fixed-size byte strings whose first 8 bytes are a 64-bit key (native order),
// every key distinct. A caller writes sorted runs into one scratch file (each run sorted in
// memory); merge_runs() merges them, within a memory budget, into one sorted scratch file,
// merging groups of runs first when there are too many to read at once. Scratch files are
// unlinked as soon as they are made, so nothing is left on disk whatever happens.
#ifndef QUOCT_DETAIL_EXTERNAL_SORT_HPP
#define QUOCT_DETAIL_EXTERNAL_SORT_HPP

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include "posix_io.hpp"

namespace quoct {
namespace detail {

/// A failure of a scratch file: it cannot be made, written (a full disk) or read.
class scratch_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A temporary file in a directory, unlinked at once: it lives as long as this object (or
/// the process) and leaves nothing behind. Reads and writes are whole, at given offsets.
class scratch_file {
public:
    explicit scratch_file(const std::string& dir) : dir_(dir.empty() ? "." : dir) {
        std::string name = dir_ + "/quoct-scratch-XXXXXX";
        fd_ = ::mkostemp(&name[0], O_CLOEXEC);
        if (fd_ < 0) fail("cannot create a temporary file");
        ::unlink(name.c_str());
    }
    scratch_file(const scratch_file&) = delete;
    scratch_file& operator=(const scratch_file&) = delete;
    scratch_file(scratch_file&& o) noexcept : dir_(std::move(o.dir_)), fd_(o.fd_) { o.fd_ = -1; }
    scratch_file& operator=(scratch_file&& o) noexcept {
        std::swap(dir_, o.dir_);
        std::swap(fd_, o.fd_);
        return *this;
    }
    ~scratch_file() {
        if (fd_ >= 0) ::close(fd_);
    }

    void write(const void* p, std::size_t n, std::uint64_t at) {
        if (!pwrite_all(fd_, p, n, at)) fail("cannot write a temporary file");
    }
    void read(void* p, std::size_t n, std::uint64_t at) const {
        if (!pread_all(fd_, p, n, at)) fail("cannot read a temporary file");
    }
    /// Frees the file's disk space (its contents are no longer needed).
    void release() noexcept {
        if (fd_ >= 0 && ::ftruncate(fd_, 0) != 0) {
        }
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        const int e = errno;
        throw scratch_error(what + " in " + dir_ + ": " + std::strerror(e));
    }
    std::string dir_;
    int fd_ = -1;
};

/// Appends bytes to a file (one with write(p, n, offset), as scratch_file) at a moving
/// offset through a buffer. flush() before the bytes are read or the writer goes.
template <class File>
class buffered_writer {
public:
    buffered_writer(File& f, std::uint64_t at, std::size_t buffer) : f_(&f), at_(at), buf_(std::max<std::size_t>(buffer, 1)) {}
    void put(const void* p, std::size_t n) {
        const auto* b = static_cast<const unsigned char*>(p);
        while (n != 0) {
            const std::size_t take = std::min(n, buf_.size() - held_);
            std::memcpy(buf_.data() + held_, b, take);
            held_ += take, b += take, n -= take;
            if (held_ == buf_.size()) flush();
        }
    }
    void flush() {
        f_->write(buf_.data(), held_, at_);
        at_ += held_;
        held_ = 0;
    }
    std::uint64_t offset() const noexcept { return at_ + held_; }

private:
    File* f_;
    std::uint64_t at_;
    std::vector<unsigned char> buf_;
    std::size_t held_ = 0;
};

/// Reads fixed-size records [first, first + count) of a scratch file in order, through a buffer.
class record_reader {
public:
    record_reader(const scratch_file& f, std::size_t record, std::uint64_t first, std::uint64_t count, std::size_t buffer)
        : f_(&f), record_(record), next_(first), left_(count),
          buf_(std::max<std::size_t>(buffer / record, 1) * record) {}
    /// The next record, or null at the end; valid until the next call.
    const unsigned char* next() {
        if (pos_ == held_) {
            if (left_ == 0) return nullptr;
            const std::uint64_t take = std::min<std::uint64_t>(left_, buf_.size() / record_);
            f_->read(buf_.data(), static_cast<std::size_t>(take) * record_, next_ * record_);
            next_ += take, left_ -= take;
            held_ = static_cast<std::size_t>(take) * record_;
            pos_ = 0;
        }
        const unsigned char* r = buf_.data() + pos_;
        pos_ += record_;
        return r;
    }

private:
    const scratch_file* f_;
    std::size_t record_;
    std::uint64_t next_, left_;
    std::vector<unsigned char> buf_;
    std::size_t held_ = 0, pos_ = 0;
};

inline std::uint64_t record_key(const unsigned char* r) noexcept {
    std::uint64_t k;
    std::memcpy(&k, r, 8);
    return k;
}

/// A run of sorted records in a scratch file: records [first, first + count).
struct record_run {
    std::uint64_t first, count;
};

/// Merges the sorted runs of `from` (records of `record` bytes) into one sorted run in a new
/// scratch file in `dir`, with at most `memory` bytes of buffers (at least 2 records' worth
/// per run is used whatever the budget). Where more runs than fit the budget at once, groups
/// are merged first into intermediate files (more passes). `merged(k)` is told of every
/// k-way merge done (for progress). `from` is released once read.
inline scratch_file merge_runs(scratch_file from, std::vector<record_run> runs, std::size_t record, std::size_t memory,
                               const std::string& dir, const std::function<void(std::size_t)>& merged = {}) {
    if (runs.size() <= 1) return from;  // sorted already
    constexpr std::size_t min_buffer = 4096;
    const std::size_t fan = std::max<std::size_t>(2, memory / std::max(min_buffer, 2 * record) - 1);
    for (;;) {
        scratch_file to(dir);
        std::vector<record_run> out;
        std::uint64_t written = 0;
        for (std::size_t g = 0; g < runs.size(); g += fan) {
            const std::size_t k = std::min(fan, runs.size() - g);
            const std::size_t buffer = std::max(2 * record, memory / (k + 1));
            std::vector<record_reader> in;
            in.reserve(k);
            for (std::size_t i = 0; i < k; ++i) in.emplace_back(from, record, runs[g + i].first, runs[g + i].count, buffer);
            buffered_writer<scratch_file> w(to, written * record, buffer);
            using head = std::pair<std::uint64_t, std::size_t>;  // (key, reader)
            std::priority_queue<head, std::vector<head>, std::greater<head>> heap;
            std::vector<const unsigned char*> cur(k);
            for (std::size_t i = 0; i < k; ++i)
                if ((cur[i] = in[i].next()) != nullptr) heap.push({record_key(cur[i]), i});
            std::uint64_t count = 0;
            while (!heap.empty()) {
                const std::size_t i = heap.top().second;
                heap.pop();
                w.put(cur[i], record);
                ++count;
                if ((cur[i] = in[i].next()) != nullptr) heap.push({record_key(cur[i]), i});
            }
            w.flush();
            out.push_back(record_run{written, count});
            written += count;
            if (merged) merged(k);
        }
        from.release();
        if (out.size() <= 1) return to;
        from = std::move(to);
        runs = std::move(out);
    }
}

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_EXTERNAL_SORT_HPP
