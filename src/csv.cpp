// quoct::io: the CSV reader (see include/quoct/io/csv.hpp for the format).
#include "quoct/io/csv.hpp"

#include "file_text.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <istream>
#include <iterator>
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

// Splits CSV text into records of fields, tracking 1-based line numbers.
class record_reader {
public:
    record_reader(std::string_view text, const std::string& source) : text_(text), source_(source) {
        constexpr std::string_view bom = "\xEF\xBB\xBF";
        if (text_.substr(0, bom.size()) == bom) pos_ = bom.size();
    }

    // Reads the next non-blank record into `fields`, and the line it starts on into
    // `line`. Returns false at the end of the text.
    bool next(std::vector<std::string>& fields, std::size_t& line) {
        while (at_line_end()) skip_line_end();
        if (pos_ == text_.size()) return false;
        line = line_;
        fields.clear();
        for (;;) {
            fields.push_back(peek() == '"' ? quoted_field() : plain_field());
            if (peek() == ',') {
                ++pos_;
            } else if (at_line_end()) {
                skip_line_end();
                return true;
            } else if (pos_ == text_.size()) {
                return true;
            } else {
                throw parse_error(source_, line_, "unexpected text after a closing quote");
            }
        }
    }

private:
    char peek() const noexcept { return pos_ < text_.size() ? text_[pos_] : '\0'; }

    // A line ends at LF, at CRLF, or at a CR that is the last byte of the text.
    bool line_end_at(std::size_t i) const noexcept {
        if (i >= text_.size()) return false;
        return text_[i] == '\n' || (text_[i] == '\r' && (i + 1 == text_.size() || text_[i + 1] == '\n'));
    }
    bool at_line_end() const noexcept { return line_end_at(pos_); }
    void skip_line_end() noexcept {
        pos_ += text_[pos_] == '\r' && pos_ + 1 < text_.size() ? 2 : 1;
        ++line_;
    }

    // A field up to the next comma or line end, taken as is.
    std::string plain_field() {
        std::size_t end = pos_;
        for (; end < text_.size() && text_[end] != ',' && !line_end_at(end); ++end)
            if (text_[end] == '"')
                throw parse_error(source_, line_,
                                  "a quote inside an unquoted field (quote the whole field and double the quote)");
        std::string field(text_.substr(pos_, end - pos_));
        pos_ = end;
        return field;
    }

    // A field in double quotes; "" inside stands for one quote, line breaks are kept.
    std::string quoted_field() {
        const std::size_t first_line = line_;
        std::string field;
        ++pos_;
        for (;;) {
            const std::size_t quote = text_.find('"', pos_);
            if (quote == std::string_view::npos)
                throw parse_error(source_, first_line, "a quoted field is not closed before the end of the file");
            const std::string_view chunk = text_.substr(pos_, quote - pos_);
            for (char c : chunk) line_ += c == '\n' ? 1u : 0u;
            field += chunk;
            pos_ = quote + 1;
            if (peek() != '"') return field;
            field += '"';
            ++pos_;
        }
    }

    std::string_view text_;
    const std::string& source_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
};

// Reads the header into `header`, then calls on_record(fields, line) for every record, one
// at a time, so a caller keeps only what it needs of each.
template <class OnRecord>
void scan_records(std::string_view text, const std::string& source, std::vector<std::string>& header,
                  OnRecord&& on_record) {
    record_reader reader(text, source);
    std::size_t line = 0;
    if (!reader.next(header, line)) throw parse_error(source, 0, "the file is empty; expected a header row");
    std::vector<std::string> fields;
    while (reader.next(fields, line)) {
        if (fields.size() != header.size())
            throw parse_error(source, line,
                              "expected " + std::to_string(header.size()) + " fields as in the header, found " +
                                  std::to_string(fields.size()));
        on_record(fields, line);
    }
}

csv_table parse_csv(std::string_view text, const std::string& source) {
    csv_table table;
    table.source = source;
    scan_records(text, source, table.header, [&](std::vector<std::string>& fields, std::size_t line) {
        table.rows.push_back(std::move(fields));
        table.lines.push_back(line);
    });
    return table;
}

// The value of a field in column `column`, or parse_error naming the source, line and column.
double number_at(const std::string& field, const std::string& column, const std::string& source, std::size_t line) {
    const parsed_number n = parse_field(field);
    if (n.status == number_status::ok) return n.value;
    std::string what = "column '" + column + "': ";
    if (n.status == number_status::empty) what += "empty field, expected a number";
    else if (n.status == number_status::not_finite) what += "'" + field + "' is not a finite number";
    else what += "'" + field + "' is not a number";
    throw parse_error(source, line, what);
}

std::vector<double> parse_columns(std::string_view text, const std::string& source,
                                  const std::vector<std::string>& columns) {
    csv_table head;  // the header only, for column()'s checks and messages
    head.source = source;
    std::vector<std::size_t> index;
    std::vector<double> values;
    // An upper bound on the records, so the values are allocated once.
    const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    scan_records(text, source, head.header, [&](const std::vector<std::string>& fields, std::size_t line) {
        if (index.size() != columns.size()) {
            for (const std::string& c : columns) index.push_back(head.column(c));
            values.reserve(lines * columns.size());
        }
        for (std::size_t c = 0; c < columns.size(); ++c)
            values.push_back(number_at(fields[index[c]], columns[c], source, line));
    });
    if (index.size() != columns.size())  // no records: still check the columns exist
        for (const std::string& c : columns) head.column(c);
    return values;  // not shrunk: that would copy it, and the reserve is at most a few rows over
}

}  // namespace

namespace detail {

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

void scan_csv(std::string_view text, const std::string& source, std::vector<std::string>& header,
              const std::function<void(std::vector<std::string>& fields, std::size_t line)>& on_record) {
    scan_records(text, source, header, on_record);
}

}  // namespace detail

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
    return number_at(rows[row][col], header[col], source, lines[row]);
}

std::optional<double> parse_number(std::string_view field) noexcept {
    const parsed_number n = parse_field(field);
    if (n.status != number_status::ok) return std::nullopt;
    return n.value;
}

csv_table read_csv(std::istream& in, const std::string& source) { return parse_csv(detail::read_all(in, source), source); }

csv_table read_csv(const std::string& path) {
    std::ifstream in = detail::open_file(path);
    return read_csv(in, path);
}

std::vector<double> read_columns(std::istream& in, const std::string& source, const std::vector<std::string>& columns) {
    return parse_columns(detail::read_all(in, source), source, columns);
}

std::vector<double> read_columns(const std::string& path, const std::vector<std::string>& columns) {
    std::ifstream in = detail::open_file(path);
    return read_columns(in, path, columns);
}

}  // namespace io
}  // namespace quoct
