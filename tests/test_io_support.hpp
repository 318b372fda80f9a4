// Helpers shared by the quoct::io tests.
#ifndef QUOCT_TEST_IO_SUPPORT_HPP
#define QUOCT_TEST_IO_SUPPORT_HPP

#include <string>

#include <quoct/io/csv.hpp>

namespace quoct_test {

/// The message of the quoct::io::parse_error that f() throws, or "no error" when it throws
/// none; any other exception passes through.
template <class F>
std::string failure(F&& f) {
    try {
        f();
    } catch (const quoct::io::parse_error& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace quoct_test

#endif  // QUOCT_TEST_IO_SUPPORT_HPP
