// quoct internals: calling a user's visitor. Every traversal (orthtree, dynamic_orthtree,
// the object and geographic indexes, the pair searches) calls f through go_on, so that a
// visitor may return void (go on) or something convertible to bool (false stops) in all of
// them alike.
#ifndef QUOCT_DETAIL_CALLBACK_HPP
#define QUOCT_DETAIL_CALLBACK_HPP

#include <type_traits>
#include <utility>

namespace quoct {
namespace detail {

/// Calls f(args...) and says whether to go on: f may return void (go on) or something
/// convertible to bool (false stops).
template <class F, class... Args>
bool go_on(F& f, Args&&... args) {
    if constexpr (std::is_void<decltype(f(std::forward<Args>(args)...))>::value) {
        f(std::forward<Args>(args)...);
        return true;
    } else {
        return static_cast<bool>(f(std::forward<Args>(args)...));
    }
}

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_CALLBACK_HPP
