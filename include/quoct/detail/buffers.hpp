// quoct internals: buffers. raw_vector, a std::vector whose resize() leaves trivially
// constructible elements unwritten, for the arrays the builders fill in full right after.
// Dependency-free.
#ifndef QUOCT_DETAIL_BUFFERS_HPP
#define QUOCT_DETAIL_BUFFERS_HPP

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace quoct {
namespace detail {

/// An allocator that leaves trivially constructible elements uninitialised on resize(),
/// for buffers that are written in full right after.
template <class T>
struct default_init_allocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = default_init_allocator<U>;
    };
    default_init_allocator() = default;
    template <class U>
    default_init_allocator(const default_init_allocator<U>&) noexcept {}
    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

/// A vector whose resize() does not zero-fill.
template <class T>
using raw_vector = std::vector<T, default_init_allocator<T>>;

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_BUFFERS_HPP
