// quoct::io: the CSV reader (see include/quoct/io/csv.hpp for the format).
#include "quoct/io/csv.hpp"

#include "file_text.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <iterator>
#include <stdexcept>
#include <system_error>

#include <fast_float/fast_float.h>

namespace quoct {
namespace io {

namespace {

std::string located(const std::string& source, std::size_t line, const std::string& message) {
    return line == 0 ? source + ": " + message : source + ":" + std::to_string(line) + ": " + message;
}

enum class number_status { ok, empty, not_a_number, not_finite };

struct parsed_number {
    number_status status;
    double value;
};

parsed_number parse_field(std::string_view field) noexcept {
    const auto blank = [](char c) { return c == ' ' || c == '\t'; };
    while (!field.empty() && blank(field.front())) field.remove_prefix(1);
    while (!field.empty() && blank(field.back())) field.remove_suffix(1);
    if (field.empty()) return {number_status::empty, 0.0};
    // fast_float follows std::from_chars, which refuses a leading '+'; spreadsheets write it.
    if (field.size() > 1 && field[0] == '+' && field[1] != '-' && field[1] != '+') field.remove_prefix(1);
    double value = 0.0;
    const char* end = field.data() + field.size();
    const auto result = fast_float::from_chars(field.data(), end, value);
    if (result.ptr != end || (result.ec != std::errc() && result.ec != std::errc::result_out_of_range))
        return {number_status::not_a_number, 0.0};
    if (result.ec == std::errc::result_out_of_range || !std::isfinite(value)) return {number_status::not_finite, 0.0};
    return {number_status::ok, value};
}

// Splits CSV text read from a stream into records of fields, tracking 1-based line numbers.
// The text passes through a buffer a piece at a time (it grows only to hold a record longer
// than a piece), so the whole file is never in memory. A record is parsed from its first
// byte; when it runs past the bytes read so far, the buffer is refilled and the record parsed
// again from its start, so every decision sees the same bytes as on the whole text.
class record_reader {
public:
    // Reads `piece` bytes of the stream at a time (more when one record is longer).
    record_reader(std::istream& in, const std::string& source, std::size_t piece = std::size_t(1) << 20)
        : in_(in), source_(source) {
        // As read_all did: an earlier end of file or failed read does not stop this one.
        in_.clear(in_.rdstate() & ~(std::ios::failbit | std::ios::eofbit));
        const std::istream::pos_type start = in_.tellg();
        bool sized = false;
        if (start != std::istream::pos_type(-1) && in_.seekg(0, std::ios::end)) {
            const std::istream::pos_type end = in_.tellg();
            sized = end != std::istream::pos_type(-1) && end >= start;
            if (sized) size_hint_ = static_cast<std::size_t>(end - start);
            in_.seekg(start);
        }
        in_.clear(in_.rdstate() & ~(std::ios::failbit | std::ios::eofbit));
        // A small stream gets a small buffer: its size and one byte, to see the end at once.
        buf_.resize(std::max<std::size_t>(sized ? std::min(piece, size_hint_ + 1) : piece, 1));
        refill();
        while (end_ < bom.size() && !eof_) refill();
        if (std::string_view(buf_.data(), std::min(end_, bom.size())) == bom) pos_ = bom.size();
    }

    // The bytes left in the stream when it was opened, when the stream could tell; else 0.
    std::size_t size_hint() const noexcept { return size_hint_; }
    // The bytes of the stream read up to the end of the last record.
    std::size_t consumed() const noexcept { return dropped_ + pos_; }

    // Reads the next non-blank record into `fields` (views into the buffer, valid until the
    // next call), and the line it starts on into `line`. Returns false at the end of the text.
    bool next(std::vector<std::string_view>& fields, std::size_t& line) {
        for (;;) {
            const std::size_t start = pos_, start_line = line_;
            const step s = parse(fields, line);
            if (s != step::more) return s == step::record;
            pos_ = start;
            line_ = start_line;
            refill();
        }
    }

private:
    static constexpr std::string_view bom = "\xEF\xBB\xBF";

    enum class step { record, end, more };

    // A field's bytes in the buffer; `escaped` when it holds doubled quotes still to undo.
    struct span {
        std::size_t begin, end;
        bool escaped;
    };

    // Keeps the bytes from pos_ on, moved to the front, and reads more after them.
    void refill() {
        if (pos_ > 0) {
            std::memmove(&buf_[0], &buf_[pos_], end_ - pos_);
            end_ -= pos_;
            dropped_ += pos_;
            pos_ = 0;
        }
        if (end_ == buf_.size()) buf_.resize(2 * buf_.size());
        in_.read(&buf_[end_], static_cast<std::streamsize>(buf_.size() - end_));
        end_ += static_cast<std::size_t>(in_.gcount());
        if (in_.bad()) throw parse_error(source_, 0, "cannot read the file");
        if (!in_) eof_ = true;  // a short read: the stream has ended
    }

    // Parses one record from pos_: step::more when it needs bytes not read yet.
    step parse(std::vector<std::string_view>& fields, std::size_t& line) {
        step s = skip_blank_lines();
        if (s != step::record) return s;
        line = line_;
        spans_.clear();
        for (;;) {
            span field{pos_, pos_, false};
            s = pos_ < end_ && buf_[pos_] == '"' ? quoted_field(field) : plain_field(field);
            if (s == step::more) return s;
            spans_.push_back(field);
            if (pos_ == end_) {
                if (!eof_) return step::more;
                break;
            }
            if (buf_[pos_] == ',') {
                ++pos_;
                continue;
            }
            s = line_end(pos_);
            if (s == step::more) return s;
            if (s == step::end) throw parse_error(source_, line_, "unexpected text after a closing quote");
            skip_line_end();
            break;
        }
        fields.clear();
        for (const span& f : spans_) fields.push_back(unescape(f));
        return step::record;
    }

    // Whether a line ends at byte i: step::record if so, step::end if not, step::more when that
    // depends on bytes not read yet. A line ends at LF, at CRLF, or at a CR that is the last
    // byte of the text. Precondition: i < end_.
    step line_end(std::size_t i) const noexcept {
        if (buf_[i] == '\n') return step::record;
        if (buf_[i] != '\r') return step::end;
        if (i + 1 < end_) return buf_[i + 1] == '\n' ? step::record : step::end;
        return eof_ ? step::record : step::more;
    }
    void skip_line_end() noexcept {
        pos_ += buf_[pos_] == '\r' && pos_ + 1 < end_ ? 2 : 1;
        ++line_;
    }

    // Skips blank lines: step::record when a record starts at pos_, step::end at the end of
    // the text.
    step skip_blank_lines() {
        for (;;) {
            if (pos_ == end_) return eof_ ? step::end : step::more;
            const step s = line_end(pos_);
            if (s != step::record) return s == step::end ? step::record : s;
            skip_line_end();
        }
    }

    // A field up to the next comma or line end, taken as is.
    step plain_field(span& field) {
        std::size_t i = pos_;
        for (; i < end_; ++i) {
            const char c = buf_[i];
            if (c == ',' || c == '\n') break;
            if (c == '\r') {
                const step s = line_end(i);
                if (s == step::more) return s;
                if (s == step::record) break;
            } else if (c == '"') {
                throw parse_error(source_, line_,
                                  "a quote inside an unquoted field (quote the whole field and double the quote)");
            }
        }
        if (i == end_ && !eof_) return step::more;
        field.end = pos_ = i;
        return step::record;
    }

    // A field in double quotes; "" inside stands for one quote, line breaks are kept.
    step quoted_field(span& field) {
        std::size_t from = field.begin = pos_ + 1;
        for (;;) {
            const void* found = std::memchr(buf_.data() + from, '"', end_ - from);
            if (found == nullptr) {
                if (!eof_) return step::more;
                throw parse_error(source_, line_, "a quoted field is not closed before the end of the file");
            }
            const std::size_t quote = static_cast<std::size_t>(static_cast<const char*>(found) - buf_.data());
            if (quote + 1 == end_ && !eof_) return step::more;
            if (quote + 1 < end_ && buf_[quote + 1] == '"') {
                field.escaped = true;
                from = quote + 2;
                continue;
            }
            field.end = quote;
            pos_ = quote + 1;
            line_ += static_cast<std::size_t>(std::count(buf_.begin() + static_cast<std::ptrdiff_t>(field.begin),
                                                         buf_.begin() + static_cast<std::ptrdiff_t>(quote), '\n'));
            return step::record;
        }
    }

    // The text of a field, its doubled quotes made single in place (the record is complete,
    // so its bytes are not parsed again).
    std::string_view unescape(const span& f) noexcept {
        std::size_t out = f.begin;
        if (!f.escaped) out = f.end;
        else
            for (std::size_t i = f.begin; i < f.end; ++i, ++out) {
                buf_[out] = buf_[i];
                if (buf_[i] == '"') ++i;
            }
        return std::string_view(buf_.data() + f.begin, out - f.begin);
    }

    std::istream& in_;
    const std::string& source_;
    std::string buf_;
    std::size_t pos_ = 0, end_ = 0;
    bool eof_ = false;
    std::size_t line_ = 1;
    std::size_t size_hint_ = 0;
    std::size_t dropped_ = 0;  // bytes moved out of the buffer's front
    std::vector<span> spans_;
};

// Reads the header into `header`, then calls on_record(fields, line) for every record, one
// at a time, so a caller keeps only what it needs of each.
template <class OnRecord>
void scan_records(record_reader& reader, const std::string& source, std::vector<std::string>& header,
                  OnRecord&& on_record) {
    std::vector<std::string_view> fields;
    std::size_t line = 0;
    if (!reader.next(fields, line)) throw parse_error(source, 0, "the file is empty; expected a header row");
    header.assign(fields.begin(), fields.end());
    while (reader.next(fields, line)) {
        if (fields.size() != header.size())
            throw parse_error(source, line,
                              "expected " + std::to_string(header.size()) + " fields as in the header, found " +
                                  std::to_string(fields.size()));
        on_record(fields, line);
    }
}

csv_table parse_csv(const std::string& source, record_reader& reader) {
    csv_table table;
    table.source = source;
    bool first = true;
    scan_records(reader, source, table.header, [&](const std::vector<std::string_view>& fields, std::size_t line) {
        if (first) {  // the whole stream is an upper bound on the fields' text
            table.rows = text_fields(table.header.size());
            table.rows.reserve_text(reader.size_hint());
            first = false;
        }
        table.rows.push_row(fields.data(), fields.size());
        detail::reserve_ahead(table.lines, reader.consumed(), reader.size_hint());
        table.lines.push_back(line);
    });
    if (first) table.rows = text_fields(table.header.size());
    return table;
}

std::vector<double> parse_columns(std::istream& in, const std::string& source, const std::vector<std::string>& columns) {
    csv_table head;  // the header only, for column()'s checks and messages
    head.source = source;
    std::vector<std::size_t> index;
    std::vector<double> values;
    record_reader reader(in, source);
    scan_records(reader, source, head.header, [&](const std::vector<std::string_view>& fields, std::size_t line) {
        if (index.size() != columns.size())
            for (const std::string& c : columns) index.push_back(head.column(c));
        detail::reserve_ahead(values, reader.consumed(), reader.size_hint());
        for (std::size_t c = 0; c < columns.size(); ++c)
            values.push_back(detail::number_at(fields[index[c]], columns[c], source, line));
    });
    if (index.size() != columns.size())  // no records: still check the columns exist
        for (const std::string& c : columns) head.column(c);
    return values;
}

}  // namespace

namespace detail {

double number_at(std::string_view field, const std::string& column, const std::string& source, std::size_t line) {
    const parsed_number n = parse_field(field);
    if (n.status == number_status::ok) return n.value;
    std::string what = "column '" + column + "': ";
    if (n.status == number_status::empty) what += "empty field, expected a number";
    else if (n.status == number_status::not_finite) what += "'" + std::string(field) + "' is not a finite number";
    else what += "'" + std::string(field) + "' is not a number";
    throw parse_error(source, line, what);
}

csv_table read_csv_in_pieces(std::istream& in, const std::string& source, std::size_t piece) {
    record_reader reader(in, source, piece);
    return parse_csv(source, reader);
}

// The whole of `in`, allocated once when the stream can tell its size.
std::string read_all(std::istream& in, const std::string& source) {
    std::string text;
    const std::istream::pos_type start = in.tellg();
    if (start != std::istream::pos_type(-1) && in.seekg(0, std::ios::end)) {
        const std::istream::pos_type end = in.tellg();
        in.seekg(start);
        if (end != std::istream::pos_type(-1) && end >= start) {
            text.resize(static_cast<std::size_t>(end - start));
            in.read(&text[0], static_cast<std::streamsize>(text.size()));
            text.resize(static_cast<std::size_t>(in.gcount()));
        }
    }
    in.clear(in.rdstate() & ~(std::ios::failbit | std::ios::eofbit));
    text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) throw parse_error(source, 0, "cannot read the file");
    return text;
}

std::ifstream open_file(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw parse_error(path, 0, "cannot open: it is a directory");
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const int err = errno;
        throw parse_error(path, 0,
                          "cannot open: " + (err != 0 ? std::generic_category().message(err) : std::string("unknown error")));
    }
    return in;
}

void scan_csv(std::istream& in, const std::string& source, std::vector<std::string>& header,
              const std::function<void(std::size_t size_hint)>& on_header,
              const std::function<void(const std::vector<std::string_view>& fields, std::size_t line, std::size_t consumed)>& on_record) {
    record_reader reader(in, source);
    bool first = true;
    scan_records(reader, source, header, [&](const std::vector<std::string_view>& fields, std::size_t line) {
        if (first) on_header(reader.size_hint());
        first = false;
        on_record(fields, line, reader.consumed());
    });
}

}  // namespace detail

void detail::packed_uints::store(unsigned char* p, std::size_t value) const noexcept {
    switch (width_) {
    case 1: *p = static_cast<unsigned char>(value); break;
    case 2: { const auto u = static_cast<std::uint16_t>(value); std::memcpy(p, &u, sizeof u); } break;
    case 4: { const auto u = static_cast<std::uint32_t>(value); std::memcpy(p, &u, sizeof u); } break;
    default: { const auto u = static_cast<std::uint64_t>(value); std::memcpy(p, &u, sizeof u); } break;
    }
}

void detail::packed_uints::push_back(std::size_t value) {
    std::size_t need = width_;
    while (need < sizeof(std::uint64_t) && (static_cast<std::uint64_t>(value) >> (8 * need)) != 0) need *= 2;
    if (need != width_) {  // rewrite every value wider, into new storage, then take it
        packed_uints wider;
        wider.width_ = need;
        wider.bytes_.reserve((size() + size() / 2 + 1) * need);
        wider.bytes_.resize(size() * need);
        for (std::size_t i = 0; i < size(); ++i) wider.set(i, (*this)[i]);
        *this = std::move(wider);
    }
    const std::size_t n = bytes_.size();
    bytes_.resize(n + width_);
    store(bytes_.data() + n, value);
}

void text_fields::push_row(const std::string_view* fields, std::size_t count) {
    if (count != width_)
        throw std::invalid_argument("text_fields::push_row: " + std::to_string(count) + " fields for rows of " +
                                    std::to_string(width_));
    const std::size_t start = chars_.size(), ends = ends_.size();
    try {
        for (std::size_t c = 0; c < count; ++c) {
            chars_.insert(chars_.end(), fields[c].begin(), fields[c].end());
            ends_.push_back(chars_.size() - start);
        }
        starts_.push_back(start);
    } catch (...) {
        chars_.resize(start);
        ends_.truncate(ends);
        throw;
    }
}

void text_fields::move_column_first(std::size_t column) noexcept {
    if (column == 0) return;
    for (std::size_t r = 0; r < size(); ++r) {
        const std::size_t base = r * width_, begin = ends_[base + column - 1], end = ends_[base + column];
        const auto row = chars_.begin() + static_cast<std::ptrdiff_t>(starts_[r]);
        std::rotate(row, row + static_cast<std::ptrdiff_t>(begin), row + static_cast<std::ptrdiff_t>(end));
        // Field `column` now comes first; the ones before it move up by its length. No new end
        // exceeds the old end of `column`, so each fits the ends' width.
        for (std::size_t c = column; c > 0; --c) ends_.set(base + c, ends_[base + c - 1] + (end - begin));
        ends_.set(base, end - begin);
    }
}

bool operator==(const text_fields& a, const text_fields& b) noexcept {
    if (a.width_ != b.width_ || a.size() != b.size() || a.chars_ != b.chars_) return false;
    for (std::size_t r = 0; r < a.size(); ++r)
        if (a.starts_[r] != b.starts_[r]) return false;
    for (std::size_t i = 0; i < a.ends_.size(); ++i)
        if (a.ends_[i] != b.ends_[i]) return false;
    return true;
}

parse_error::parse_error(const std::string& source, std::size_t line, const std::string& message)
    : std::runtime_error(located(source, line, message)), source_(source), line_(line) {}

std::size_t csv_table::column(std::string_view name) const {
    std::size_t found = header.size();
    for (std::size_t i = 0; i < header.size(); ++i) {
        if (header[i] != name) continue;
        if (found != header.size())
            throw parse_error(source, 0, "column '" + std::string(name) + "' appears more than once in the header");
        found = i;
    }
    if (found != header.size()) return found;
    std::string present;
    for (const std::string& h : header) present += (present.empty() ? "'" : ", '") + h + "'";
    throw parse_error(source, 0, "no column '" + std::string(name) + "'; the columns are " + present);
}

double csv_table::number(std::size_t row, std::size_t col) const {
    return detail::number_at(rows.field(row, col), header[col], source, lines[row]);
}

std::optional<double> parse_number(std::string_view field) noexcept {
    const parsed_number n = parse_field(field);
    if (n.status != number_status::ok) return std::nullopt;
    return n.value;
}

csv_table read_csv(std::istream& in, const std::string& source) {
    record_reader reader(in, source);
    return parse_csv(source, reader);
}

csv_table read_csv(const std::string& path) {
    std::ifstream in = detail::open_file(path);
    return read_csv(in, path);
}

std::vector<double> read_columns(std::istream& in, const std::string& source, const std::vector<std::string>& columns) {
    return parse_columns(in, source, columns);
}

std::vector<double> read_columns(const std::string& path, const std::vector<std::string>& columns) {
    std::ifstream in = detail::open_file(path);
    return read_columns(in, path, columns);
}

}  // namespace io
}  // namespace quoct
