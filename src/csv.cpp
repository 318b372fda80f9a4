// quoct::io: the CSV reader (see include/quoct/io/csv.hpp for the format).
#include "quoct/io/csv.hpp"

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

csv_table parse_csv(std::string_view text, const std::string& source) {
    csv_table table;
    table.source = source;
    record_reader reader(text, source);
    std::size_t line = 0;
    if (!reader.next(table.header, line)) throw parse_error(source, 0, "the file is empty; expected a header row");
    std::vector<std::string> fields;
    while (reader.next(fields, line)) {
        if (fields.size() != table.header.size())
            throw parse_error(source, line,
                              "expected " + std::to_string(table.header.size()) + " fields as in the header, found " +
                                  std::to_string(fields.size()));
        table.rows.push_back(std::move(fields));
        table.lines.push_back(line);
    }
    return table;
}

}  // namespace

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
    const std::string& field = rows[row][col];
    const parsed_number n = parse_field(field);
    if (n.status == number_status::ok) return n.value;
    std::string what = "column '" + header[col] + "': ";
    if (n.status == number_status::empty) what += "empty field, expected a number";
    else if (n.status == number_status::not_finite) what += "'" + field + "' is not a finite number";
    else what += "'" + field + "' is not a number";
    throw parse_error(source, lines[row], what);
}

std::optional<double> parse_number(std::string_view field) noexcept {
    const parsed_number n = parse_field(field);
    if (n.status != number_status::ok) return std::nullopt;
    return n.value;
}

csv_table read_csv(std::istream& in, const std::string& source) {
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) throw parse_error(source, 0, "cannot read the file");
    return parse_csv(text, source);
}

csv_table read_csv(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw parse_error(path, 0, "cannot open: it is a directory");
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const int err = errno;
        throw parse_error(path, 0,
                          "cannot open: " + (err != 0 ? std::generic_category().message(err) : std::string("unknown error")));
    }
    return read_csv(in, path);
}

}  // namespace io
}  // namespace quoct
