// quoct: one flat array of an index's data, owned or viewed. Dependency-free.
//
// An index's data is a few flat arrays (coordinates, ids, nodes, ...). Each lives in a
// section: either owned (a vector the builder fills) or a read-only view of bytes that
// something else keeps alive (a memory-mapped file, a Python bytes object). Searches read
// a section only through data(), size() and operator[], which are the same two loads
// whichever it is, so one search code serves a built tree and a mapped one.
#ifndef QUOCT_DETAIL_SECTION_HPP
#define QUOCT_DETAIL_SECTION_HPP

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "buffers.hpp"

namespace quoct {
namespace detail {

template <class U>
class section {
    static_assert(std::is_trivially_copyable<U>::value, "quoct: a section holds trivially copyable values");

public:
    section() = default;
    section(const section& o) : own_(o.own_), keep_(o.keep_), viewed_(o.viewed_) { adopt(o); }
    section(section&& o) noexcept : own_(std::move(o.own_)), keep_(std::move(o.keep_)), viewed_(o.viewed_) {
        adopt(o);
        o.data_ = nullptr;
        o.size_ = 0;
    }
    section& operator=(const section& o) {
        if (this != &o) {
            section copy(o);
            *this = std::move(copy);
        }
        return *this;
    }
    section& operator=(section&& o) noexcept {
        if (this != &o) {
            own_ = std::move(o.own_);
            keep_ = std::move(o.keep_);
            viewed_ = o.viewed_;
            adopt(o);
            o.data_ = nullptr;
            o.size_ = 0;
        }
        return *this;
    }

    /// An owned copy of n values at p.
    static section copy_of(const U* p, std::size_t n) {
        section s;
        s.own_.assign(p, p + n);
        s.sync();
        return s;
    }
    /// A read-only view of n values at p, valid while `keep` lives (or, when keep is null,
    /// while whoever made the view keeps the values).
    static section view(const U* p, std::size_t n, std::shared_ptr<const void> keep) {
        section s;
        s.data_ = p;
        s.size_ = n;
        s.keep_ = std::move(keep);
        s.viewed_ = true;
        return s;
    }

    const U* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    const U& operator[](std::size_t i) const noexcept { return data_[i]; }
    const U* begin() const noexcept { return data_; }
    const U* end() const noexcept { return data_ + size_; }
    const U& back() const noexcept { return data_[size_ - 1]; }
    /// True when this section owns its values (the builder may write them).
    bool owned() const noexcept { return !viewed_; }
    /// Bytes the values take, owned (with spare capacity) or viewed.
    std::size_t memory_bytes() const noexcept { return (owned() ? own_.capacity() : size_) * sizeof(U); }

    // The builder's writes: only on an owned section (a view is never written). They read
    // what the const forms read, so that reading through them is right on a view too.
    U* data() noexcept { return const_cast<U*>(data_); }
    U& operator[](std::size_t i) noexcept { return data()[i]; }
    U& back() noexcept { return data()[size_ - 1]; }
    void resize(std::size_t n) { own_.resize(n), sync(); }
    void reserve(std::size_t n) { own_.reserve(n), sync(); }
    void push_back(const U& u) { own_.push_back(u), sync(); }
    void shrink_to_fit() { own_.shrink_to_fit(), sync(); }
    void clear() noexcept { *this = section(); }

private:
    void sync() noexcept {
        data_ = own_.data();
        size_ = own_.size();
    }
    void adopt(const section& o) noexcept {
        if (owned()) sync();
        else data_ = o.data_, size_ = o.size_;
    }

    raw_vector<U> own_;
    const U* data_ = nullptr;
    std::size_t size_ = 0;
    std::shared_ptr<const void> keep_;  // what keeps a view's bytes alive (null when owned, or
    bool viewed_ = false;               // a view whose bytes its maker keeps)
};

}  // namespace detail
}  // namespace quoct

#endif  // QUOCT_DETAIL_SECTION_HPP
