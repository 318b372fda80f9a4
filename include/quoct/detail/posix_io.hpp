// quoct: whole reads and writes at an offset of a POSIX file descriptor, through short
// transfers and interruptions. POSIX.
#ifndef QUOCT_DETAIL_POSIX_IO_HPP
#define QUOCT_DETAIL_POSIX_IO_HPP

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include <sys/types.h>
#include <unistd.h>

namespace quoct {
namespace detail {

/// Writes all n bytes at p to fd at offset `at`. False on failure, errno saying why
/// (ENOSPC where the system wrote nothing and gave no reason).
inline bool pwrite_all(int fd, const void* p, std::size_t n, std::uint64_t at) noexcept {
    const auto* b = static_cast<const unsigned char*>(p);
    while (n != 0) {
        const ssize_t k = ::pwrite(fd, b, n, static_cast<off_t>(at));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            if (k == 0) errno = ENOSPC;
            return false;
        }
        b += k, n -= static_cast<std::size_t>(k), at += static_cast<std::uint64_t>(k);
    }
    return true;
}

/// Reads all n bytes at offset `at` of fd into p. False on failure, errno saying why (EIO
/// where the file ends first).
inline bool pread_all(int fd, void* p, std::size_t n, std::uint64_t at) noexcept {
    auto* b = static_cast<unsigned char*>(p);
    while (n != 0) {
        const ssize_t k = ::pread(fd, b, n, static_cast<off_t>(at));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            if (k == 0) errno = EIO;
            return false;
        }
        b += k, n -= static_cast<std::size_t>(k), at += static_cast<std::uint64_t>(k);
    }
    return true;
}

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_POSIX_IO_HPP
