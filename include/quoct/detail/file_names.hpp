// quoct: what an index tells quoct/file.hpp about itself: the names its type is written
// under in an index file's header, and whether open() may map its file. Dependency-free.
//
// Each index kind owns its saved form: a private file_type_name(), write_sections(w,
// prefix) and read_sections(r, prefix) (with the checks that make read-back data safe to
// search), reached only through detail::file_codec, the door quoct/file.hpp reads and
// writes them through. Writer and Reader are file.hpp's file_writer and file_reader.
#ifndef QUOCT_DETAIL_FILE_NAMES_HPP
#define QUOCT_DETAIL_FILE_NAMES_HPP

#include <string>
#include <type_traits>

namespace quoct {
namespace detail {

template <class Index>
struct file_codec;  // quoct/file.hpp

/// "float" or "double", as an index file's type names write the coordinates.
template <class T>
std::string scalar_name() {
    static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value,
                  "quoct/file.hpp: index files hold float or double coordinates");
    return std::is_same<T, float>::value ? "float" : "double";
}
/// "uint32", "uint64", ...: an id type as index files' type names write it.
template <class Id>
std::string id_name() {
    return "uint" + std::to_string(8 * sizeof(Id));
}

/// Whether open() maps an index's file, its sections staying views of it (the default), or
/// loads it: an index that changes after it is read says `static constexpr bool
/// file_mappable = false` (public).
template <class Index, class = void>
struct file_mappable : std::true_type {};
template <class Index>
struct file_mappable<Index, std::void_t<decltype(Index::file_mappable)>>
    : std::integral_constant<bool, Index::file_mappable> {};

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_FILE_NAMES_HPP
