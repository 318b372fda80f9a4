// quoct::io: a location_table and its geographic index as one quoct index file.
#include <quoct/io/location_index.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <sys/stat.h>
#include <utility>
#include <vector>

namespace quoct {
namespace io {

namespace {

template <class U>
void copy_into(quoct::detail::section<U>& to, const std::vector<U>& from) {
    to.resize(from.size());
    if (!from.empty()) std::memcpy(to.data(), from.data(), from.size() * sizeof(U));
}

}  // namespace

location_index::location_index(const location_table& t) {
    const std::size_t n = t.locations.size(), width = t.columns.size();
    const bool consistent = t.values.size() == n && t.values.width() == width &&
                            (t.kinds.empty() || t.kinds.size() == n * width) &&
                            (t.feature_ids.empty() || t.feature_ids.size() == n) &&
                            (t.altitudes.empty() || t.altitudes.size() == n) && t.origins.size() == n &&
                            t.records.size() == n;
    if (!consistent) throw std::invalid_argument("quoct::io::location_index: the table's members disagree in size");
    index_ = geo::index<>(t.locations);
    source_ = t.source;
    columns_ = t.columns;
    skipped_ = t.skipped;
    values_ = detail::flat_strings::of(n * width, [&](std::size_t i) { return t.values.field(i / width, i % width); });
    kinds_.resize(t.kinds.size());
    for (std::size_t i = 0; i < t.kinds.size(); ++i) kinds_[i] = static_cast<unsigned char>(t.kinds[i]);
    feature_ids_ = detail::flat_strings::of(t.feature_ids.size(), [&](std::size_t i) { return std::string_view(t.feature_ids[i]); });
    copy_into(altitudes_, t.altitudes);
    origins_.resize(n);
    records_.resize(n);
    for (std::size_t i = 0; i < n; ++i) origins_[i] = t.origins[i], records_[i] = t.records[i];
}

location_table location_index::rows(const std::vector<std::size_t>& ids) const {
    const std::size_t n = size(), width = columns_.size();
    for (const std::size_t id : ids)
        if (id >= n) throw std::out_of_range("quoct::io::location_index: record " + std::to_string(id) + " of " + std::to_string(n));
    location_table t;
    t.source = source_;
    t.columns = columns_;
    t.values = text_fields(width);
    std::vector<std::string_view> fields(width);
    for (const std::size_t id : ids) {
        for (std::size_t c = 0; c < width; ++c) fields[c] = values_[id * width + c];
        t.values.push_row(fields.data(), width);
        t.locations.push_back(index_.location(static_cast<std::uint32_t>(id)));
        t.origins.push_back(static_cast<std::size_t>(origins_[id]));
        t.records.push_back(static_cast<std::size_t>(records_[id]));
        if (!kinds_.empty())
            for (std::size_t c = 0; c < width; ++c) t.kinds.push_back(static_cast<value_kind>(kinds_[id * width + c]));
        if (!feature_ids_.empty()) t.feature_ids.emplace_back(feature_ids_[id]);
        if (!altitudes_.empty()) t.altitudes.push_back(altitudes_[id]);
    }
    return t;
}

location_table location_index::table() const {
    std::vector<std::size_t> all(size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    location_table t = rows(all);
    t.skipped = skipped_;
    return t;
}

bool is_index_file(const void* data, std::size_t size) noexcept {
    return size >= sizeof quoct::detail::file_magic &&
           std::memcmp(data, quoct::detail::file_magic, sizeof quoct::detail::file_magic) == 0;
}

bool is_index_file(const std::string& path) noexcept {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return false;
    unsigned char head[sizeof quoct::detail::file_magic];
    const std::size_t got = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
    return is_index_file(head, got);
}

}  // namespace io

namespace detail {

namespace {

// A few strings (column names, skipped-row messages) as `<name>_ends` (u64: where each ends
// in the text) and `<name>_text` (their bytes back to back), copied into the file.
void add_strings(file_writer& w, const std::string& name, const std::vector<std::string>& strings) {
    std::vector<std::uint64_t> ends;
    std::vector<char> text;
    for (const std::string& s : strings) {
        text.insert(text.end(), s.begin(), s.end());
        ends.push_back(text.size());
    }
    w.add_copy(name + "_ends", ends);
    w.add_copy(name + "_text", text);
}

// Reads what add_strings wrote: `count` strings (any number when count is file_reader::any).
std::vector<std::string> get_strings(const file_reader& r, const std::string& name, std::size_t count) {
    const section<std::uint64_t> ends = r.get<std::uint64_t>(name + "_ends", count);
    const section<char> text = r.get<char>(name + "_text");
    std::vector<std::string> out;
    std::uint64_t begin = 0;
    for (const std::uint64_t end : ends) {
        if (end < begin || end > text.size()) r.fail("damaged: " + name + " has a string outside its text");
        out.emplace_back(text.data() + begin, static_cast<std::size_t>(end - begin));
        begin = end;
    }
    return out;
}

// The value size of a flat_strings' ends (4 or 8), for the meta section.
std::uint64_t ends_bytes(const section<std::uint64_t>& ends64) { return ends64.empty() ? 4 : 8; }

// Checks that `ends` never decrease and stay within `text` bytes, so that every string read
// lies inside the file. O(strings).
template <class U>
void check_ends(const file_reader& r, const std::string& name, const section<U>& ends, std::size_t text) {
    U last = 0;
    for (const U end : ends) {
        if (end < last) r.fail("damaged: " + name + " has a string ending before it starts");
        last = end;
    }
    if (last > text) r.fail("damaged: " + name + " has a string past its text");
}

// Reads a flat_strings' three sections as views: `<name>_text` and `<name>_ends`, of `bytes`
// (4 or 8) a value, `count` strings.
void read_flat(const file_reader& r, const std::string& name, std::size_t count, std::uint64_t bytes,
               section<char>& text, section<std::uint32_t>& ends32, section<std::uint64_t>& ends64) {
    text = r.get<char>(name + "_text");
    if (bytes == 4) {
        ends32 = r.get<std::uint32_t>(name + "_ends", count);
        check_ends(r, name, ends32, text.size());
    } else if (bytes == 8) {
        ends64 = r.get<std::uint64_t>(name + "_ends", count);
        check_ends(r, name, ends64, text.size());
    } else {
        r.fail("damaged: " + name + " ends are " + std::to_string(bytes) + "-byte values");
    }
}

constexpr std::size_t table_meta = 4;  // rows, columns, value sizes of values_ends and feature_id_ends

}  // namespace

std::string file_codec<io::location_index>::type_name() { return "io::location_index<uint32>"; }

void file_codec<io::location_index>::write(const io::location_index& x, file_writer& w, const std::string& prefix) {
    file_codec<geo::index<>>::write(x.index_, w, prefix + "geo.");
    const std::string t = prefix + "table.";
    const auto add_flat = [&](const std::string& name, const io::detail::flat_strings& f) {
        w.add(t + name + "_text", f.text_.data(), f.text_.size());
        if (f.ends64_.empty()) w.add(t + name + "_ends", f.ends32_.data(), f.ends32_.size());
        else w.add(t + name + "_ends", f.ends64_.data(), f.ends64_.size());
    };
    w.add_copy(t + "meta", std::vector<std::uint64_t>{x.size(), x.columns_.size(), ends_bytes(x.values_.ends64_),
                                                      ends_bytes(x.feature_ids_.ends64_)});
    w.add_copy(t + "source", std::vector<char>(x.source_.begin(), x.source_.end()));
    add_strings(w, t + "column", x.columns_);
    add_flat("values", x.values_);
    w.add(t + "kinds", x.kinds_.data(), x.kinds_.size());
    add_flat("feature_id", x.feature_ids_);
    w.add(t + "altitudes", x.altitudes_.data(), x.altitudes_.size());
    w.add(t + "origins", x.origins_.data(), x.origins_.size());
    w.add(t + "records", x.records_.data(), x.records_.size());
    std::vector<std::uint64_t> skipped_where;
    std::vector<std::string> skipped_messages;
    for (const io::skipped_row& s : x.skipped_) {
        skipped_where.push_back(s.where);
        skipped_messages.push_back(s.message);
    }
    w.add_copy(t + "skipped_where", skipped_where);
    add_strings(w, t + "skipped", skipped_messages);
}

io::location_index file_codec<io::location_index>::read(const file_reader& r, const std::string& prefix) {
    io::location_index x;
    x.index_ = file_codec<geo::index<>>::read(r, prefix + "geo.");
    const std::string t = prefix + "table.";
    const std::size_t n = x.index_.size();
    const section<std::uint64_t> m = r.get<std::uint64_t>(t + "meta", table_meta);
    if (m[0] != n) r.fail("damaged: the table has " + std::to_string(m[0]) + " rows, the index " + std::to_string(n));
    const section<char> source = r.get<char>(t + "source");
    x.source_.assign(source.begin(), source.end());
    x.columns_ = get_strings(r, t + "column", file_reader::to_size(m[1]));
    const std::size_t width = x.columns_.size();
    if (width != 0 && n > file_reader::any / width) r.fail("damaged: too many fields");
    io::detail::flat_strings& v = x.values_;
    read_flat(r, t + "values", n * width, m[2], v.text_, v.ends32_, v.ends64_);
    x.kinds_ = r.get<unsigned char>(t + "kinds");
    if (!x.kinds_.empty() && x.kinds_.size() != n * width) r.fail("damaged: " + t + "kinds has the wrong size");
    for (const unsigned char k : x.kinds_)
        if (k > static_cast<unsigned char>(io::value_kind::missing)) r.fail("damaged: " + t + "kinds holds an unknown kind");
    io::detail::flat_strings& f = x.feature_ids_;
    read_flat(r, t + "feature_id", file_reader::any, m[3], f.text_, f.ends32_, f.ends64_);
    if (!f.empty() && f.size() != n) r.fail("damaged: " + t + "feature_id has the wrong size");
    x.altitudes_ = r.get<double>(t + "altitudes");
    if (!x.altitudes_.empty() && x.altitudes_.size() != n) r.fail("damaged: " + t + "altitudes has the wrong size");
    x.origins_ = r.get<std::uint64_t>(t + "origins", n);
    x.records_ = r.get<std::uint64_t>(t + "records", n);
    const section<std::uint64_t> where = r.get<std::uint64_t>(t + "skipped_where");
    std::vector<std::string> messages = get_strings(r, t + "skipped", where.size());
    for (std::size_t i = 0; i < where.size(); ++i)
        x.skipped_.push_back({file_reader::to_size(where[i]), std::move(messages[i])});
    return x;
}

}  // namespace detail
}  // namespace quoct
