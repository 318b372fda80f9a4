// Fuzz target: the CSV reader (<quoct/io/csv.hpp>, <quoct/io/locations.hpp>). Only
// quoct::io::parse_error may escape, and what is read obeys the documented rules: every
// record has the header's number of fields, lines increase, column() finds unique names and
// refuses repeated ones, number() agrees with parse_number(), which agrees with strtod;
// read_locations keeps only valid locations and every other column; a CSV written by
// write_locations reads back to the same locations and values. The reader takes its input a
// piece at a time (1 MiB); read in pieces of a few bytes, the same text must give the same
// table or the same error.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <quoct/io/csv.hpp>
#include <quoct/io/locations.hpp>

#include "../../src/file_text.hpp"
#include "fuzz_support.hpp"

namespace {

using namespace quoct_fuzz;
namespace io = quoct::io;

void check_number(std::string_view field) {
    const auto v = io::parse_number(field);
    if (!v) return;
    QUOCT_FUZZ_CHECK(std::isfinite(*v), "parse_number gave a non-finite value");
    std::string t(field);
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.pop_back();
    const std::size_t b = t.find_first_not_of(" \t");
    t = b == std::string::npos ? "" : t.substr(b);
    char* end = nullptr;
    const double s = std::strtod(t.c_str(), &end);
    QUOCT_FUZZ_CHECK(end == t.c_str() + t.size() && s == *v && std::signbit(s) == std::signbit(*v),
                     "parse_number('" + std::string(field) + "') = " + str(*v) + ", strtod " + str(s));
}

// Reading `text` in small pieces gives `table`, or the error `error` when that is not empty.
void check_pieces(const std::string& text, const io::csv_table& table, const std::string& error) {
    for (const std::size_t piece : {1, 2, 3, 7}) {
        std::istringstream in(text);
        try {
            const io::csv_table t = io::detail::read_csv_in_pieces(in, "fuzz.csv", piece);
            QUOCT_FUZZ_CHECK(error.empty(), "read in pieces, the text reads; whole, it threw " + error);
            QUOCT_FUZZ_CHECK(t.header == table.header && t.rows == table.rows && t.lines == table.lines,
                             "read in pieces of " + std::to_string(piece) + " bytes, the table differs");
        } catch (const io::parse_error& e) {
            QUOCT_FUZZ_CHECK(e.what() == error, "read in pieces of " + std::to_string(piece) + " bytes, the error is " +
                                                    e.what() + ", not " + error);
        }
    }
}

void check_locations(const io::csv_table& table, const io::read_options& opt) {
    io::location_table loc;
    try {
        loc = io::read_locations(table, opt);
    } catch (const io::parse_error&) {
        return;
    }
    QUOCT_FUZZ_CHECK(loc.locations.size() == loc.values.size() && loc.values.size() == loc.origins.size(),
                     "read_locations: locations, values and origins differ in length");
    if (opt.on_bad_row == io::bad_row_policy::skip)
        QUOCT_FUZZ_CHECK(loc.locations.size() + loc.skipped.size() == table.rows.size(), "read_locations lost records");
    else
        QUOCT_FUZZ_CHECK(loc.locations.size() == table.rows.size() && loc.skipped.empty(), "stop policy skipped records");
    QUOCT_FUZZ_CHECK(loc.columns.size() + 2 == table.header.size(), "read_locations: kept columns are not the others");
    QUOCT_FUZZ_CHECK(loc.values.width() == loc.columns.size() &&
                         (loc.kinds.empty() || loc.kinds.size() == loc.values.size() * loc.columns.size()),
                     "read_locations: values of another shape");
    // A number column's values are JSON numbers (empty ones null), every other column text.
    for (std::size_t c = 0; c < loc.columns.size() && !loc.kinds.empty(); ++c) {
        bool text = false, typed = false;
        for (std::size_t i = 0; i < loc.values.size(); ++i) {
            const io::value_kind k = loc.kind(i, c);
            const std::string_view v = loc.values.field(i, c);
            text = text || k == io::value_kind::text;
            typed = typed || k != io::value_kind::text;
            QUOCT_FUZZ_CHECK(k == io::value_kind::text || (k == io::value_kind::null) == v.empty(),
                             "read_locations: a null that is not empty, or an empty number");
            if (k == io::value_kind::json) {
                QUOCT_FUZZ_CHECK(io::parse_number(v).has_value(), "read_locations: a number column holds " + std::string(v));
            }
        }
        QUOCT_FUZZ_CHECK(!(text && typed), "read_locations: a column both text and numbers");
    }
    for (std::size_t i = 0; i < loc.locations.size(); ++i) {
        const auto& p = loc.locations[i];
        QUOCT_FUZZ_CHECK(p.lon >= -180 && p.lon <= 180 && p.lat >= -90 && p.lat <= 90, "read_locations kept a bad location");
        QUOCT_FUZZ_CHECK(loc.values[i].size() == loc.columns.size(), "read_locations: a record with the wrong width");
        QUOCT_FUZZ_CHECK(i == 0 || loc.origins[i] > loc.origins[i - 1], "read_locations: origins do not increase");
    }

    // Round trip through write_locations' CSV, when the kept names are unique and none is
    // a name the writer adds itself (lon, lat).
    std::vector<std::string> names = sorted(loc.columns);
    if (std::adjacent_find(names.begin(), names.end()) != names.end()) return;
    for (const auto& c : loc.columns)
        if (c == "lon" || c == "lat") return;
    std::vector<io::hit> hits;
    for (std::size_t i = 0; i < loc.locations.size(); ++i) hits.push_back({i, 0});
    std::ostringstream out;
    io::write_options wo;
    wo.format = io::output_format::csv;
    io::write_locations(out, loc, hits, wo);
    std::istringstream back_in(out.str());
    const io::location_table back = io::read_locations(io::read_csv(back_in, "written.csv"));
    QUOCT_FUZZ_CHECK(back.columns == loc.columns, "written CSV reads back with other columns");
    QUOCT_FUZZ_CHECK(back.values == loc.values, "written CSV reads back with other values");
    QUOCT_FUZZ_CHECK(back.kinds == loc.kinds, "written CSV reads back with other column types");
    QUOCT_FUZZ_CHECK(back.locations.size() == loc.locations.size(), "written CSV reads back with other records");
    for (std::size_t i = 0; i < loc.locations.size(); ++i)
        QUOCT_FUZZ_CHECK(back.locations[i].lon == loc.locations[i].lon && back.locations[i].lat == loc.locations[i].lat,
                         "written CSV reads back with other coordinates");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    input in(data, size);
    const std::uint8_t mode = in.byte();
    const std::string bytes = in.rest();
    std::istringstream text(bytes);
    io::csv_table table;
    try {
        table = io::read_csv(text, "fuzz.csv");
    } catch (const io::parse_error& e) {
        check_pieces(bytes, table, e.what());
        return 0;
    }
    check_pieces(bytes, table, "");
    QUOCT_FUZZ_CHECK(table.rows.size() == table.lines.size(), "read_csv: rows and lines differ in length");
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
        QUOCT_FUZZ_CHECK(table.rows[i].size() == table.header.size(), "read_csv: a record with the wrong width");
        QUOCT_FUZZ_CHECK(table.lines[i] > (i ? table.lines[i - 1] : 1), "read_csv: lines do not increase");
        for (std::size_t c = 0; c < table.header.size(); ++c) {
            check_number(table.rows[i][c]);
            const bool ok = io::parse_number(table.rows[i][c]).has_value();
            try {
                const double v = table.number(i, c);
                QUOCT_FUZZ_CHECK(ok && v == *io::parse_number(table.rows[i][c]), "number() differs from parse_number()");
            } catch (const io::parse_error&) {
                QUOCT_FUZZ_CHECK(!ok, "number() refused what parse_number() reads");
            }
        }
    }
    for (std::size_t c = 0; c < table.header.size(); ++c) {
        const auto n = std::count(table.header.begin(), table.header.end(), table.header[c]);
        try {
            const std::size_t k = table.column(table.header[c]);
            QUOCT_FUZZ_CHECK(n == 1 && k == c, "column() found the wrong column, or a repeated name");
        } catch (const io::parse_error&) {
            QUOCT_FUZZ_CHECK(n > 1, "column() refused a unique name");
        }
    }
    io::read_options opt;
    if (table.header.size() >= 2) {
        opt.lon_column = table.header[mode % table.header.size()];
        opt.lat_column = table.header[(mode / 16) % table.header.size()];
    }
    opt.on_bad_row = mode & 1 ? io::bad_row_policy::skip : io::bad_row_policy::stop;
    if (opt.lon_column != opt.lat_column) check_locations(table, opt);
    return 0;
}
