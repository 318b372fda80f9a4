// quoct::io: reading points from CSV files. Part of the compiled companion library
// quoct::io (link quoct::io, include <quoct/io/csv.hpp>); the core quoct headers do not
// need it.
//
// The format is RFC 4180 with a header row: fields separated by commas, records by LF or
// CRLF; a field in double quotes may hold commas, line breaks and doubled quotes ("").
// Bytes pass through untouched, so UTF-8 names come back exactly as written; a UTF-8
// byte-order mark at the start of the file is skipped. Blank lines between records are
// skipped. Columns are chosen by name, never by position.
//
// Every function here is reentrant: no global state, so threads may read files at once.
#ifndef QUOCT_IO_CSV_HPP
#define QUOCT_IO_CSV_HPP

#include <array>
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../shapes.hpp"
#include "text_fields.hpp"

namespace quoct {
namespace io {

/// Thrown when a file cannot be read or its contents are not what was asked for.
/// what() reads "<source>:<line>: <message>", or "<source>: <message>" when the problem is
/// not on one line (a missing file, a missing column).
class parse_error : public std::runtime_error {
public:
    /// An error about `source` (a file name or display name) at 1-based `line`, or about the
    /// whole source when `line` is 0.
    parse_error(const std::string& source, std::size_t line, const std::string& message);
    /// The file name or display name the error is about.
    const std::string& source() const noexcept { return source_; }
    /// The 1-based line the error is about, or 0 when it is about the whole source.
    std::size_t line() const noexcept { return line_; }

private:
    std::string source_;
    std::size_t line_;
};

/// A CSV file read into memory: its header and its records, all as text. The records are
/// stored flat (text_fields), so a table takes about the file's size plus a few bytes per
/// field and eight per record (the line numbers).
struct csv_table {
    /// Where the table came from (a path or display name); error messages name it.
    std::string source;
    /// The column names, from the first record.
    std::vector<std::string> header;
    /// The records after the header, each with exactly header.size() fields: rows.size()
    /// records, rows[r][c] (or rows.field(r, c)) the text of field c of record r, a
    /// std::string_view valid while the table lives unchanged.
    text_fields rows;
    /// The 1-based source line on which each record starts (records may span lines).
    std::vector<std::size_t> lines;

    /// The index of the column called `name` (exact, case-sensitive byte comparison).
    /// Throws parse_error listing the columns present if there is none, or if the name
    /// appears more than once in the header.
    std::size_t column(std::string_view name) const;

    /// Field `col` of record `row`, parsed as parse_number() does. Preconditions:
    /// row < rows.size(), col < header.size(). Throws parse_error naming the source, the
    /// record's line and the column, e.g. "x.csv:17: column 'lat': 'abc' is not a number".
    double number(std::size_t row, std::size_t col) const;
};

/// Parses a whole field as a finite double: decimal or scientific notation, as written
/// by printf or any spreadsheet ("-1.5", "2.", ".5", "6.02e23", "+3"), rounded to nearest.
/// Spaces and tabs around the number are allowed; anything else that is not part of the
/// number makes it fail, as do an empty field, NaN, infinities and numbers beyond the
/// range of double. Returns std::nullopt on failure; never throws.
std::optional<double> parse_number(std::string_view field) noexcept;

/// Reads the CSV file at `path` (format described at the top of this header), 1 MiB at a
/// time into the table: it peaks at about 1.5x the file's size (see text_fields).
/// Throws parse_error naming the file when it cannot be opened or read, when it is empty
/// (no header row), and, with the line number, for an unterminated quoted field, text
/// after a closing quote, a quote inside an unquoted field, or a record whose number of
/// fields differs from the header's.
csv_table read_csv(const std::string& path);

/// Reads CSV text from `in` to its end; `source` names it in the table and in errors.
/// Throws as read_csv(path).
csv_table read_csv(std::istream& in, const std::string& source);

/// The points of a table, one per record, coordinate a taken from the column called
/// columns[a] (e.g. {"lon", "lat"} or {"x", "y", "z"}), in record order: point i comes
/// from rows[i], so a tree built from them reports ids that index the table's rows.
/// Throws parse_error for a missing column or a field that is not a finite number.
template <std::size_t D>
std::vector<point<double, D>> read_points(const csv_table& table, const std::array<std::string, D>& columns) {
    std::array<std::size_t, D> index{};
    for (std::size_t a = 0; a < D; ++a) index[a] = table.column(columns[a]);
    std::vector<point<double, D>> points(table.rows.size());
    for (std::size_t i = 0; i < points.size(); ++i)
        for (std::size_t a = 0; a < D; ++a) points[i][a] = table.number(i, index[a]);
    return points;
}

/// Reads the numbers in the named columns of the CSV file at `path`, flat and record by
/// record: value c of record i at [i * columns.size() + c], ready for the flat-array
/// constructors (quoct::octree<double> tree(v.data(), v.size() / 3)). Keeps only those
/// numbers (the file passes through 1 MiB at a time): it peaks at about the values' size plus
/// a MiB, where read_csv holds every field's text. Throws parse_error as read_csv does, and
/// for a missing column or a
/// field that is not a finite number (as read_points).
std::vector<double> read_columns(const std::string& path, const std::vector<std::string>& columns);

/// As read_columns(path, columns), reading `in` to its end; `source` names it in errors.
std::vector<double> read_columns(std::istream& in, const std::string& source, const std::vector<std::string>& columns);

/// Reads the CSV file at `path` and returns its points: the points read_points(read_csv(path),
/// columns) returns, read through read_columns (so without holding the table of fields).
/// Throws as read_csv and read_points.
template <std::size_t D>
std::vector<point<double, D>> read_points(const std::string& path, const std::array<std::string, D>& columns) {
    std::vector<double> flat = read_columns(path, std::vector<std::string>(columns.begin(), columns.end()));
    std::vector<point<double, D>> points(flat.size() / D);
    for (std::size_t i = 0; i < points.size(); ++i)
        for (std::size_t a = 0; a < D; ++a) points[i][a] = flat[i * D + a];
    return points;
}

}  // namespace io
}  // namespace quoct

#endif  // QUOCT_IO_CSV_HPP
