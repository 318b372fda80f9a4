// quoct::io internals: JSON text into nlohmann::ordered_json in time linear in the text.
#include "ordered_json.hpp"

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace quoct {
namespace io {
namespace detail {

namespace {

using json = nlohmann::ordered_json;

// Builds the value from nlohmann's parse events as its own builder (json_sax_dom_parser)
// does, but finds a repeated key through a hash index of the object's keys once it has more
// than a few, where nlohmann::ordered_map searches them all.
class ordered_builder {
public:
    ordered_builder(json& root, std::size_t* probes) : root_(root), probes_(probes) {}

    bool null() { return put(nullptr); }
    bool boolean(bool v) { return put(v); }
    bool number_integer(json::number_integer_t v) { return put(v); }
    bool number_unsigned(json::number_unsigned_t v) { return put(v); }
    bool number_float(json::number_float_t v, const json::string_t&) { return put(v); }
    bool string(json::string_t& v) { return put(std::move(v)); }
    bool binary(json::binary_t& v) { return put(std::move(v)); }
    bool start_object(std::size_t) { return open(json::value_t::object); }
    bool start_array(std::size_t) { return open(json::value_t::array); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(json::string_t& k);

    template <class Exception>
    bool parse_error(std::size_t, const std::string&, const Exception& e) {
        throw e;
    }

private:
    // An object or array being read, and for a large object the index of its keys.
    struct open_value {
        json* value;
        std::unordered_map<std::string, std::size_t> index;  // key -> member position
    };

    // Objects up to this many keys are searched, at most this many comparisons a key.
    static constexpr std::size_t searched = 16;

    void count(std::size_t probes) {
        if (probes_ != nullptr) *probes_ += probes;
    }

    // Stores `v` where the next value goes: the root, the end of the open array, or the
    // member of the open object whose key came last. Returns where it went.
    template <class V>
    json* place(V&& v) {
        if (open_.empty()) {
            root_ = json(std::forward<V>(v));
            return &root_;
        }
        json& top = *open_.back().value;
        if (top.is_array()) {
            top.get_ref<json::array_t&>().emplace_back(std::forward<V>(v));
            return &top.get_ref<json::array_t&>().back();
        }
        *member_ = json(std::forward<V>(v));
        return member_;
    }
    template <class V>
    bool put(V&& v) {
        place(std::forward<V>(v));
        return true;
    }
    bool open(json::value_t type) {
        open_.push_back({place(type), {}});
        return true;
    }
    bool close() {
        open_.pop_back();
        return true;
    }

    json& root_;
    std::size_t* probes_;
    std::vector<open_value> open_;
    json* member_ = nullptr;  // the value slot of the open object's last key
};

bool ordered_builder::key(json::string_t& k) {
    open_value& object = open_.back();
    // The members as the vector they are (ordered_map's operator[] takes a key).
    json::object_t::Container& members = object.value->get_ref<json::object_t&>();
    const std::size_t size = members.size();
    if (size <= searched) {
        for (std::size_t i = 0; i < size; ++i) {
            count(1);
            if (members[i].first == k) {
                member_ = &members[i].second;
                return true;
            }
        }
        if (size == searched) {  // the object grows past the searched size: index it
            count(size);
            for (std::size_t i = 0; i < size; ++i) object.index.emplace(members[i].first, i);
        }
    } else {
        count(1);
        const auto found = object.index.find(k);
        if (found != object.index.end()) {
            member_ = &members[found->second].second;
            return true;
        }
    }
    if (size >= searched) object.index.emplace(k, size);
    // A new key: appended, as ordered_map::operator[] does (its search is done above).
    members.emplace_back(std::move(k), nullptr);
    member_ = &members.back().second;
    return true;
}

}  // namespace

nlohmann::ordered_json parse_ordered_json(std::istream& in, std::size_t* key_probes) {
    json root;
    ordered_builder builder(root, key_probes);
    json::sax_parse(in, &builder);
    return root;
}

}  // namespace detail
}  // namespace io
}  // namespace quoct
