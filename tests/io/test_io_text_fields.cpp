// quoct::io::text_fields (the flat storage of CSV records and kept location values), the CSV
// reader read a piece at a time, and the readers' memory bounds (the CSV reader peaks at no
// more than about twice the file's size).
#include <catch2/catch.hpp>

#include <quoct/io/csv.hpp>
#include <quoct/io/locations.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../src/file_text.hpp"
#include "test_alloc_count.hpp"

namespace test_io_text_fields {  // this file's own: the test files build in unity batches (tests/CMakeLists.txt)

namespace {

namespace io = quoct::io;
using strings = std::vector<std::string>;
using rows = std::vector<strings>;

// The table's rows as strings, for comparison with a model.
rows rows_of(const io::text_fields& t) {
    rows out;
    for (const auto row : t) {
        strings r;
        for (std::size_t c = 0; c < row.size(); ++c) r.emplace_back(row[c]);
        out.push_back(std::move(r));
    }
    return out;
}

io::text_fields table_of(std::size_t width, const rows& model) {
    io::text_fields t(width);
    for (const strings& r : model) {
        const std::vector<std::string_view> views(r.begin(), r.end());
        t.push_row(views.data(), views.size());
    }
    return t;
}

// Random field text over a small alphabet, lengths spread so that row lengths cross 255 and
// 65535 (the ends' 1- and 2-byte widths).
std::string random_field(std::mt19937& rng, std::size_t max_length) {
    static const char alphabet[] = "ab,\"\r\n \xC3\xA9";
    std::uniform_int_distribution<std::size_t> length(0, max_length), pick(0, sizeof alphabet - 2);
    std::string s(length(rng), 'a');
    for (char& c : s) c = alphabet[pick(rng)];
    return s;
}

}  // namespace

TEST_CASE("text_fields: rows of fields read back as pushed, whatever their lengths", "[io][text_fields]") {
    std::mt19937 rng(13);
    for (const std::size_t width : {0u, 1u, 3u, 7u})
        for (const std::size_t max_length : {0u, 5u, 100u, 30000u}) {
            rows model;
            for (int r = 0; r < 40; ++r) {
                strings row;
                for (std::size_t c = 0; c < width; ++c) row.push_back(random_field(rng, max_length));
                model.push_back(row);
            }
            const io::text_fields t = table_of(width, model);
            REQUIRE(t.width() == width);
            REQUIRE(t.size() == model.size());
            CHECK(rows_of(t) == model);
            std::size_t bytes = 0;
            for (std::size_t r = 0; r < model.size(); ++r)
                for (std::size_t c = 0; c < width; ++c) {
                    CHECK(t.field(r, c) == model[r][c]);
                    CHECK(t[r][c] == model[r][c]);
                    bytes += model[r][c].size();
                }
            CHECK(t.text_size() == bytes);
            CHECK(t == table_of(width, model));
            io::text_fields reserved(width);
            reserved.reserve_text(bytes);  // a hint only: the same table
            for (const strings& r : model) {
                const std::vector<std::string_view> views(r.begin(), r.end());
                reserved.push_row(views.data(), views.size());
            }
            CHECK(reserved == t);
            CHECK(reserved.empty() == model.empty());
        }
}

TEST_CASE("text_fields: a row of the wrong width throws and leaves the table as it was", "[io][text_fields]") {
    io::text_fields t(2);
    t.push_row({"a", "b"});
    const io::text_fields before = t;
    CHECK_THROWS_AS(t.push_row({"x"}), std::invalid_argument);
    CHECK_THROWS_AS(t.push_row({"x", "y", "z"}), std::invalid_argument);
    CHECK(t == before);
    CHECK(rows_of(t) == rows{{"a", "b"}});
    io::text_fields none;
    none.push_row({});
    none.push_row({});
    CHECK(none.size() == 2);
    CHECK(none.width() == 0);
}

TEST_CASE("text_fields: equality is field by field", "[io][text_fields]") {
    CHECK(table_of(2, {{"ab", "c"}}) != table_of(2, {{"a", "bc"}}));  // same bytes, other split
    CHECK(table_of(2, {{"a", "b"}, {"c", "d"}}) != table_of(2, {{"a", "b"}}));
    CHECK(io::text_fields(1) != io::text_fields(2));
    CHECK(io::text_fields(1) == io::text_fields(1));
}

TEST_CASE("text_fields: move_column_first moves one field of every row to the front", "[io][text_fields]") {
    std::mt19937 rng(7);
    for (const std::size_t max_length : {3u, 300u}) {
        rows model;
        for (int r = 0; r < 30; ++r) {
            strings row;
            for (int c = 0; c < 5; ++c) row.push_back(random_field(rng, max_length));
            model.push_back(row);
        }
        for (std::size_t column = 0; column < 5; ++column) {
            io::text_fields t = table_of(5, model);
            t.move_column_first(column);
            rows expect = model;
            for (strings& row : expect) std::rotate(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(column),
                                                    row.begin() + static_cast<std::ptrdiff_t>(column) + 1);
            CHECK(rows_of(t) == expect);
            CHECK(t == table_of(5, expect));
        }
    }
}

namespace {

// A CSV text of `model` (header first), each field quoted when it must be or at random, lines
// ended by LF or CRLF at random, blank lines here and there; `lines` gets the line each
// record starts on (the model's oracle, counted as the format says).
std::string write_csv(const rows& model, std::mt19937& rng, std::vector<std::size_t>& lines) {
    std::string text;
    std::size_t line = 1;
    std::bernoulli_distribution coin(0.3);
    for (std::size_t r = 0; r < model.size(); ++r) {
        while (r > 0 && coin(rng)) {
            text += coin(rng) ? "\r\n" : "\n";
            ++line;
        }
        if (r > 0) lines.push_back(line);
        for (std::size_t c = 0; c < model[r].size(); ++c) {
            const std::string& f = model[r][c];
            if (c > 0) text += ',';
            // A lone field that is empty would make a blank line: quote it.
            const bool must = f.find_first_of(",\"\r\n") != std::string::npos || (model[r].size() == 1 && f.empty());
            if (must || coin(rng)) {
                text += '"';
                for (char ch : f) {
                    if (ch == '"') text += '"';
                    text += ch;
                    line += ch == '\n' ? 1 : 0;
                }
                text += '"';
            } else {
                text += f;
            }
        }
        text += coin(rng) ? "\r\n" : "\n";
        ++line;
    }
    return text;
}

// What reading `text` gives: the table, or the error message.
struct outcome {
    std::string error;
    io::csv_table table;
};
template <class Read>
outcome read_with(const std::string& text, Read&& read) {
    outcome o;
    std::istringstream in(text);
    try {
        o.table = read(in);
    } catch (const io::parse_error& e) {
        o.error = e.what();
    }
    return o;
}

}  // namespace

TEST_CASE("csv: records read a piece of the file at a time are the records written", "[io][csv]") {
    // The oracle is the model the text was written from; the reader is run with pieces of 1 to
    // 40 bytes so that every record, field, quote pair and CRLF is split somewhere.
    std::mt19937 rng(2026);
    for (int round = 0; round < 60; ++round) {
        const std::size_t width = 1 + round % 4;
        rows model;
        for (int r = 0; r < 1 + round % 7; ++r) {
            strings row;
            for (std::size_t c = 0; c < width; ++c) {
                std::string f = random_field(rng, round % 3 == 0 ? 12 : 4);
                if (c == 0 && !f.empty() && f[0] == ' ' && round % 2 == 0) f[0] = 'x';
                row.push_back(f);
            }
            model.push_back(row);
        }
        std::vector<std::size_t> lines;
        std::string text = write_csv(model, rng, lines);
        if (round % 5 == 0) text = "\xEF\xBB\xBF" + text;  // a byte-order mark, skipped
        const rows records(model.begin() + 1, model.end());
        for (std::size_t piece = 1; piece <= 40; ++piece) {
            const outcome got = read_with(text, [&](std::istream& in) { return io::detail::read_csv_in_pieces(in, "t.csv", piece); });
            INFO("round " << round << ", piece " << piece);
            REQUIRE(got.error.empty());
            CHECK(got.table.header == model[0]);
            CHECK(rows_of(got.table.rows) == records);
            CHECK(got.table.lines == lines);
        }
    }
}

TEST_CASE("csv: malformed text reads the same, error for error, whatever the pieces", "[io][csv]") {
    // Random bytes from the format's special characters: mostly errors, some tables. Reading
    // in pieces of any size must give what reading all at once gives, message for message.
    std::mt19937 rng(99);
    static const char alphabet[] = "a,\"\r\n \xEF\xBB\xBF";
    std::uniform_int_distribution<std::size_t> length(0, 30), pick(0, sizeof alphabet - 2);
    std::size_t tables = 0;
    for (int round = 0; round < 400; ++round) {
        std::string text(length(rng), 'a');
        for (char& c : text) c = alphabet[pick(rng)];
        const outcome whole = read_with(text, [](std::istream& in) { return io::read_csv(in, "t.csv"); });
        tables += whole.error.empty() ? 1 : 0;
        for (std::size_t piece = 1; piece <= 12; ++piece) {
            const outcome got = read_with(text, [&](std::istream& in) { return io::detail::read_csv_in_pieces(in, "t.csv", piece); });
            INFO("text '" << text << "', piece " << piece);
            CHECK(got.error == whole.error);
            CHECK(got.table.header == whole.table.header);
            CHECK(got.table.rows == whole.table.rows);
            CHECK(got.table.lines == whole.table.lines);
        }
    }
    CHECK(tables > 20);  // the random texts reach the tables too, not only the errors
}

namespace {

// A CSV text as bench/make_csv.py "places" writes (name,lon,lat,population), `n` records.
std::string places_csv(std::size_t n) {
    std::mt19937 rng(2);
    std::uniform_real_distribution<double> lon(-180, 180), lat(-90, 90);
    std::uniform_int_distribution<long> population(1000, 10000000);
    std::string text = "name,lon,lat,population\n";
    char line[128];
    for (std::size_t i = 0; i < n; ++i) {
        std::snprintf(line, sizeof line, "place%zu,%.6f,%.6f,%ld\n", i, lon(rng), lat(rng), population(rng));
        text += line;
    }
    return text;
}

}  // namespace

TEST_CASE("csv: read_csv and read_locations_csv hold at most about twice the file's size", "[io][csv][alloc]") {
    // The bytes live at once during the call, counted by the test program's operator new:
    // before the fields were stored flat, read_csv held about 5x the text and
    // read_locations_csv about 4x (a std::string per field, the whole text besides).
    const std::string text = places_csv(200000);  // 8.2 MB
    const std::string path = (std::filesystem::temp_directory_path() / "quoct_test_places.csv").string();
    std::ofstream(path, std::ios::binary) << text;

    std::size_t records = 0;
    alloc_count::start();
    {
        const io::csv_table t = io::read_csv(path);
        records = t.rows.size();
    }
    const std::size_t csv_peak = alloc_count::stop();
    CHECK(records == 200000);

    alloc_count::start();
    {
        const io::location_table t = io::read_locations_csv(path);
        records = t.locations.size();
    }
    const std::size_t locations_peak = alloc_count::stop();
    CHECK(records == 200000);
    std::filesystem::remove(path);

    INFO("file " << text.size() << " bytes, read_csv peak " << csv_peak << ", read_locations_csv peak " << locations_peak);
    CHECK(csv_peak <= 2 * text.size());
    CHECK(locations_peak <= 2 * text.size());
}

}  // namespace test_io_text_fields
