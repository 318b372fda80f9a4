// quoct::io: named lon/lat locations from CSV and GeoJSON, and out as a table, CSV or GeoJSON.
#include <quoct/io/locations.hpp>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <optional>
#include <ostream>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "file_text.hpp"
#include "geojson_crs.hpp"
#include "ordered_json.hpp"

namespace quoct {
namespace io {

namespace {

// ordered_json keeps properties in the order written, for columns and for output.
using json = nlohmann::ordered_json;

// Reports a bad record by the policy: throws under stop, records and reports under skip.
class bad_rows {
public:
    bad_rows(const read_options& options, location_table& table) : options_(options), table_(table) {}

    void report(std::size_t where, const parse_error& error) {
        if (options_.on_bad_row == bad_row_policy::stop) throw error;
        leave_out(where, error);
    }

    // Leaves a record out under either policy (an unlocated GeoJSON feature), reported.
    void leave_out(std::size_t where, const parse_error& error) {
        table_.skipped.push_back({where, error.what()});
        if (options_.on_skip) options_.on_skip(table_.skipped.back());
    }

private:
    const read_options& options_;
    location_table& table_;
};

// The message for a coordinate outside its range, or "" when it is in range.
std::string range_problem(double value, double limit) {
    if (value >= -limit && value <= limit) return {};
    const std::string bound = limit == 90 ? "90" : "180";
    std::string message = shortest_decimal(value) + " is not in [-" + bound + ", " + bound + "]";
    if (std::fabs(value) > 360)  // no longitude or latitude written in degrees is this large
        message += "; it looks like a projected coordinate (metres, not degrees): read the file with its CRS "
                   "(the quoct command's --s-srs; io::gdal::source_options::source_srs)";
    return message;
}

// Number of characters a UTF-8 string shows as: its bytes less the continuation bytes.
std::size_t display_width(const std::string& s) {
    return static_cast<std::size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0u) != 0x80u; }));
}

// A field that would not read back as written is quoted: separators, quotes, line breaks,
// edge spaces, and a leading byte-order mark (the reader skips one at the start of a file).
std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos && !s.empty() && s.front() != ' ' && s.back() != ' ' &&
        s.rfind("\xEF\xBB\xBF", 0) != 0)
        return s;
    if (s.empty()) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

std::string kilometres(double metres) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", metres / 1000);
    return buf;
}

bool has_altitudes(const location_table& table) { return !table.altitudes.empty(); }
bool has_feature_ids(const location_table& table) { return !table.feature_ids.empty(); }

// Names `wanted` apart from every name in `reserved`: the name itself if free, else the first
// of name_2, name_3, ... that is neither taken (reserved, or given to an earlier name) nor one
// of the names still to come, which keep their own names that way.
//
// In time linear in the names' total length: taken names in a hash set, the names still to
// come counted in a hash map, and per name a counter of the suffix to try next. The counter
// never needs to go back: a suffixed name passed over stays unusable, since once taken it
// stays taken, and one still to come is taken when its turn comes (by itself, or already).
// A passed-over candidate is reserved or wanted (only `name` makes name_n, which splits back
// at its last '_'), each at most once, so the retries add up to at most their number.
std::vector<std::string> unique_names(const std::vector<std::string>& wanted, const std::vector<std::string>& reserved) {
    std::vector<std::string> out;
    out.reserve(wanted.size());  // never reallocated, so the views of `taken` into it stay valid
    std::unordered_set<std::string_view> taken(reserved.begin(), reserved.end());
    std::unordered_map<std::string_view, std::size_t> to_come, next_suffix;
    for (const std::string& name : wanted) ++to_come[name];
    const auto usable = [&](const std::string& candidate) {
        if (taken.count(candidate) != 0) return false;
        const auto later = to_come.find(candidate);
        return later == to_come.end() || later->second == 0;
    };
    for (const std::string& name : wanted) {
        --to_come[name];
        if (taken.count(name) == 0) {
            out.push_back(name);
        } else {
            std::size_t& n = next_suffix.try_emplace(name, 2).first->second;
            std::string candidate;
            do {
                candidate = name + "_" + std::to_string(n++);
            } while (!usable(candidate));
            out.push_back(std::move(candidate));
        }
        taken.insert(out.back());
    }
    return out;
}

// The text of the centre label of hit h, or "" when there is no centre column.
const std::string& center_label(const write_options& options, const hit& h) { return options.center_labels[h.center]; }

// Header and text cells of the rows to write, in output order.
std::vector<std::vector<std::string>> cells_of(const location_table& table, const std::vector<hit>& hits,
                                               const write_options& options) {
    std::vector<std::vector<std::string>> cells;
    cells.reserve(hits.size() + 1);
    cells.push_back(output_columns(table, options));
    const bool center = !options.center_column.empty();
    for (const hit& h : hits) {
        std::vector<std::string> row;
        row.reserve(cells.front().size());
        if (center) row.push_back(center_label(options, h));
        for (std::size_t c = 0; c < table.values.width(); ++c) row.emplace_back(table.values.field(h.id, c));
        if (has_feature_ids(table)) {
            const std::string& id = table.feature_ids[h.id];
            // A string id is written as its text, as string properties are.
            row.push_back(!id.empty() && id.front() == '"' ? json::parse(id).get<std::string>() : id);
        }
        row.push_back(shortest_decimal(table.locations[h.id].lon));
        row.push_back(shortest_decimal(table.locations[h.id].lat));
        if (has_altitudes(table))
            row.push_back(std::isnan(table.altitudes[h.id]) ? std::string() : shortest_decimal(table.altitudes[h.id]));
        if (options.with_distance) row.push_back(kilometres(h.metres));
        if (!options.extra_columns.empty())
            row.insert(row.end(), options.extra_values[h.extra].begin(), options.extra_values[h.extra].end());
        cells.push_back(std::move(row));
    }
    return cells;
}

void write_table(std::ostream& out, const std::vector<std::vector<std::string>>& cells) {
    const std::size_t n = cells.front().size();
    std::vector<std::size_t> width(n, 0);
    std::vector<bool> numeric(n, cells.size() > 1);
    for (std::size_t r = 0; r < cells.size(); ++r)
        for (std::size_t c = 0; c < n; ++c) {
            width[c] = std::max(width[c], display_width(cells[r][c]));
            if (r > 0 && !parse_number(cells[r][c])) numeric[c] = false;
        }
    for (const auto& row : cells) {
        std::string line;
        for (std::size_t c = 0; c < n; ++c) {
            const std::string pad(width[c] - display_width(row[c]), ' ');
            if (c > 0) line += "  ";
            line += numeric[c] ? pad + row[c] : row[c] + pad;
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out << line << '\n';
    }
}

void write_csv(std::ostream& out, const std::vector<std::vector<std::string>>& cells) {
    for (const auto& row : cells) {
        for (std::size_t c = 0; c < row.size(); ++c) out << (c > 0 ? "," : "") << csv_field(row[c]);
        out << "\r\n";
    }
}

// A value as JSON, by its kind; false when it is to be left out (a missing property).
bool json_value(std::string_view value, value_kind kind, json& out) {
    switch (kind) {
    case value_kind::missing: return false;
    case value_kind::null: out = nullptr; return true;
    case value_kind::json: out = json::parse(value); return true;
    case value_kind::text: break;
    }
    out = std::string(value);
    return true;
}

void write_geojson(std::ostream& out, const location_table& table, const std::vector<hit>& hits,
                   const write_options& options) {
    write_options as_geojson = options;
    as_geojson.format = output_format::geojson;
    const std::vector<std::string> names = output_columns(table, as_geojson);
    out << "{\"type\":\"FeatureCollection\",\"features\":[";
    for (std::size_t i = 0; i < hits.size(); ++i) {
        const hit& h = hits[i];
        json properties = json::object(), value;
        // The names are unique, so each is appended: properties[name] would compare it with
        // every earlier one (ordered_json searches), quadratic in the columns.
        auto& members = properties.get_ref<json::object_t&>();
        for_each_property(table, h, options, [&](std::size_t column, std::string_view text, value_kind kind) {
            if (json_value(text, kind, value)) members.emplace_back(names[column], std::move(value));
        });
        json coordinates = {table.locations[h.id].lon, table.locations[h.id].lat};
        if (has_altitudes(table) && !std::isnan(table.altitudes[h.id])) coordinates.push_back(table.altitudes[h.id]);
        json feature = {{"type", "Feature"}};
        if (has_feature_ids(table) && !table.feature_ids[h.id].empty()) feature["id"] = json::parse(table.feature_ids[h.id]);
        feature["geometry"] = {{"type", "Point"}, {"coordinates", std::move(coordinates)}};
        feature["properties"] = std::move(properties);
        out << (i > 0 ? ",\n" : "\n") << feature.dump(-1, ' ', false, json::error_handler_t::replace);
    }
    out << "\n]}\n";
}

// One GeoJSON feature's location and altitude (NaN when it has none), or a description of
// what is wrong with it.
// What point_of says of a Feature whose geometry is null: RFC 7946's unlocated feature,
// left out under either bad-row policy.
const std::string unlocated = "has a null geometry (an unlocated feature): left out";

std::string point_of(const json& feature, geo::lonlat& where, double& altitude) {
    if (!feature.is_object() || feature.value("type", json()) != "Feature") return "not a Feature object";
    const auto geometry = feature.find("geometry");
    if (geometry == feature.end()) return "has no geometry";
    if (geometry->is_null()) return unlocated;
    if (!geometry->is_object() || !geometry->contains("type") || !(*geometry)["type"].is_string())
        return "geometry has no type";
    const std::string type = (*geometry)["type"].get<std::string>();
    if (type != "Point") return "geometry is a " + type + ", not a Point";
    const auto coordinates = geometry->find("coordinates");
    if (coordinates == geometry->end() || !coordinates->is_array() || coordinates->size() < 2 || coordinates->size() > 3)
        return "Point coordinates are not [lon, lat] or [lon, lat, altitude]";
    for (const json& x : *coordinates)
        if (!x.is_number()) return "Point coordinate " + x.dump() + " is not a number";
    where = {(*coordinates)[0].get<double>(), (*coordinates)[1].get<double>()};
    altitude = coordinates->size() == 3 ? (*coordinates)[2].get<double>() : std::numeric_limits<double>::quiet_NaN();
    std::string problem = range_problem(where.lon, 180);
    if (!problem.empty()) return "longitude " + problem;
    problem = range_problem(where.lat, 90);
    if (!problem.empty()) return "latitude " + problem;
    return {};
}

// The properties object of a feature, or nullptr when it has none (absent, null, not an object).
const json* properties_of(const json& feature) {
    const auto properties = feature.find("properties");
    return properties == feature.end() || !properties->is_object() ? nullptr : &*properties;
}

// Adds to out.columns the property names of `feature` not there yet, in order; `column_of`
// maps each column's name (a view into the document) to its index. Counts a look-up a name.
void add_columns(const json& feature, std::unordered_map<std::string_view, std::size_t>& column_of,
                 location_table& out, std::size_t& probes) {
    if (const json* properties = properties_of(feature))
        for (const auto& item : properties->items()) {
            ++probes;
            if (column_of.emplace(item.key(), out.columns.size()).second) out.columns.push_back(item.key());
        }
}

// Appends the properties of `feature` as the next record's values and kinds, one per column
// (`column_of` maps a name to its column); a property it lacks is "" and value_kind::missing.
// Counts a look-up a name.
void keep_properties(const json& feature, const std::unordered_map<std::string_view, std::size_t>& column_of,
                     std::vector<std::string>& text, std::vector<std::string_view>& views, location_table& out,
                     std::size_t& probes) {
    const std::size_t first = out.kinds.size();
    text.assign(out.columns.size(), std::string());
    out.kinds.resize(first + out.columns.size(), value_kind::missing);
    if (const json* properties = properties_of(feature))
        for (const auto& item : properties->items()) {
            ++probes;
            const std::size_t c = column_of.at(item.key());
            const json& v = item.value();
            text[c] = v.is_string() ? v.get<std::string>() : v.is_null() ? std::string() : v.dump();
            out.kinds[first + c] = v.is_string() ? value_kind::text : v.is_null() ? value_kind::null : value_kind::json;
        }
    views.assign(text.begin(), text.end());
    out.values.push_row(views.data(), views.size());
}

// The index of the column `name` of `head`, as head.column(name); when there is none and a
// column has a usual name for the coordinate (`usual`, compared without case), the error
// says so and how to choose it: the quoct command's `option`, read_options' `field`.
std::size_t coordinate_column(const csv_table& head, const std::string& name, std::initializer_list<const char*> usual,
                              const char* option, const char* field) {
    try {
        return head.column(name);
    } catch (const parse_error&) {
        if (std::find(head.header.begin(), head.header.end(), name) != head.header.end()) throw;  // named twice
        for (const std::string& h : head.header) {
            std::string lower = h;
            for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            for (const char* u : usual)
                if (lower == u)
                    throw parse_error(head.source, 0,
                                      "no column '" + name + "'; '" + h + "' looks like it: name it with " + option +
                                          " (read_options::" + field + ")");
        }
        throw;
    }
}

// Turns the records of a CSV table into locations, one record at a time.
class location_builder {
public:
    // Checks the coordinate columns of `head` (its header and source) and sets up `out`.
    location_builder(const csv_table& head, const read_options& options, location_table& out)
        : head_(head),
          options_(options),
          out_(out),
          bad_(options, out),
          lon_col_(coordinate_column(head, options.lon_column, {"lon", "lng", "long", "longitude", "x"}, "--lon-column",
                                    "lon_column")),
          lat_col_(coordinate_column(head, options.lat_column, {"lat", "latitude", "y"}, "--lat-column", "lat_column")) {
        if (options.lon_column == options.lat_column)
            throw parse_error(head.source, 0,
                              "the longitude and latitude columns are both '" + options.lon_column +
                                  "'; give two different columns");
        out.source = head.source;
        for (std::size_t c = 0; c < head.header.size(); ++c)
            if (c != lon_col_ && c != lat_col_) out.columns.push_back(head.header[c]);
        out.values = text_fields(out.columns.size());
    }

    // Tells that the records come from a stream of `total` bytes, and that `consumed` of them
    // are read up to the end of the record add() gets next: the table then reserves room for
    // about the whole stream's records at once (detail::reserve_ahead).
    void expect(std::size_t total, std::size_t consumed) noexcept {
        total_ = total;
        consumed_ = consumed;
    }

    // Adds the record `fields` (as many as the header's columns) that starts on `line`, or
    // reports it as bad. Records are numbered from 1 in the order they are added, bad ones
    // included.
    void add(const std::string_view* fields, std::size_t line) {
        const std::size_t record = ++added_;
        geo::lonlat where{};
        const auto number = [&](std::size_t c) { return detail::number_at(fields[c], head_.header[c], head_.source, line); };
        try {
            where = {number(lon_col_), number(lat_col_)};
        } catch (const parse_error& e) {
            bad_.report(line, e);
            return;
        }
        const std::string lon_problem = range_problem(where.lon, 180), lat_problem = range_problem(where.lat, 90);
        if (!lon_problem.empty() || !lat_problem.empty()) {
            const bool lon_bad = !lon_problem.empty();
            const std::string& column = lon_bad ? options_.lon_column : options_.lat_column;
            bad_.report(line, parse_error(head_.source, line, "column '" + column + "': " + (lon_bad ? lon_problem : lat_problem)));
            return;
        }
        kept_.clear();
        std::size_t kept_bytes = 0;
        for (std::size_t c = 0; c < fields_width(); ++c)
            if (c != lon_col_ && c != lat_col_) {
                kept_.push_back(fields[c]);
                kept_bytes += fields[c].size();
            }
        if (total_ != 0) reserve_ahead(kept_bytes);
        out_.values.push_row(kept_.data(), kept_.size());
        out_.locations.push_back(where);
        out_.origins.push_back(line);
        out_.records.push_back(record);
    }

private:
    std::size_t fields_width() const noexcept { return head_.header.size(); }

    void reserve_ahead(std::size_t kept_bytes) {
        detail::reserve_ahead(out_.locations, consumed_, total_);
        detail::reserve_ahead(out_.origins, consumed_, total_);
        detail::reserve_ahead(out_.records, consumed_, total_);
        if (out_.values.text_size() + kept_bytes <= text_room_) return;
        // As reserve_ahead, for the kept text: its share of the stream so far, scaled up.
        const double share = static_cast<double>(out_.values.text_size() + kept_bytes) / static_cast<double>(consumed_);
        text_room_ = std::max(out_.values.text_size() + kept_bytes,
                              static_cast<std::size_t>(std::min(share * static_cast<double>(total_), static_cast<double>(total_)) * 1.1));
        out_.values.reserve_text(text_room_);
    }

    const csv_table& head_;
    const read_options& options_;
    location_table& out_;
    bad_rows bad_;
    std::size_t lon_col_, lat_col_;
    std::size_t added_ = 0;
    std::vector<std::string_view> kept_;
    std::size_t total_ = 0, consumed_ = 0, text_room_ = 0;
};

// True when a CSV field is a number that JSON and GDAL write back as the same number, the
// rule by which a CSV column is typed (type_number_columns):
// - an integer in JSON's form, -?(0|[1-9][0-9]*), that fits in 64 bits, but "-0"; or
// - a JSON number with a fraction or an exponent, of at most 15 significant digits (a double
//   keeps every such decimal), whose value is 0 or a normal finite double.
// Anything else stays text: "007", "+5", " 5", "1,5", "0x10", "inf", "NaN", 20 digits.
bool lossless_number(std::string_view s) noexcept {
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    std::size_t i = 0;
    if (i < s.size() && s[i] == '-') ++i;
    const std::size_t first = i;
    if (i == s.size() || !digit(s[i])) return false;
    if (s[i] == '0') {
        ++i;
    } else {
        while (i < s.size() && digit(s[i])) ++i;
    }
    std::size_t significant = 0;
    bool leading = true;
    const auto count = [&](std::size_t from, std::size_t to) {
        for (std::size_t k = from; k < to; ++k) {
            if (leading && s[k] == '0') continue;
            leading = false;
            ++significant;
        }
    };
    count(first, i);
    if (i == s.size()) {  // an integer
        if (s == "-0") return false;
        std::int64_t n = 0;
        const auto parsed = std::from_chars(s.data(), s.data() + s.size(), n);
        return parsed.ec == std::errc() && parsed.ptr == s.data() + s.size();
    }
    if (s[i] == '.') {
        const std::size_t from = ++i;
        while (i < s.size() && digit(s[i])) ++i;
        if (i == from) return false;
        count(from, i);
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        const std::size_t from = i;
        while (i < s.size() && digit(s[i])) ++i;
        if (i == from) return false;
    }
    if (i != s.size() || significant > 15) return false;
    double x = 0;
    const auto parsed = std::from_chars(s.data(), s.data() + s.size(), x);
    if (parsed.ec != std::errc() || parsed.ptr != s.data() + s.size()) return false;
    return x == 0 || std::fpclassify(x) == FP_NORMAL;
}

// Types the columns of a table read from CSV as GDAL's CSV driver and pandas do: a column
// whose values are all numbers (lossless_number; empty ones aside, at least one) is a number
// column: its values become value_kind::json, its empty ones value_kind::null. Kinds stay
// empty (every value text) when no column is a number.
void type_number_columns(location_table& t) {
    const std::size_t width = t.columns.size(), n = t.values.size();
    std::vector<char> number(width, 0);
    bool any = false;
    for (std::size_t c = 0; c < width; ++c) {
        bool seen = false, all = true;
        for (std::size_t r = 0; r < n && all; ++r) {
            const std::string_view v = t.values.field(r, c);
            if (v.empty()) continue;
            seen = true;
            all = lossless_number(v);
        }
        number[c] = seen && all;
        any = any || (seen && all);
    }
    if (!any) return;
    t.kinds.assign(n * width, value_kind::text);
    for (std::size_t r = 0; r < n; ++r)
        for (std::size_t c = 0; c < width; ++c)
            if (number[c]) t.kinds[r * width + c] = t.values.field(r, c).empty() ? value_kind::null : value_kind::json;
}

}  // namespace

std::size_t location_table::find_column(const std::string& name) const noexcept {
    return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
}

value_kind location_table::kind(std::size_t record, std::size_t column) const noexcept {
    return kinds.empty() ? value_kind::text : kinds[record * columns.size() + column];
}

void location_table::move_column_first(std::size_t column) noexcept {
    const auto to_front = [column](auto first) {
        std::rotate(first, first + static_cast<std::ptrdiff_t>(column), first + static_cast<std::ptrdiff_t>(column) + 1);
    };
    to_front(columns.begin());
    values.move_column_first(column);
    for (std::size_t at = 0; at < kinds.size(); at += columns.size()) to_front(kinds.begin() + static_cast<std::ptrdiff_t>(at));
}

location_table read_locations(const csv_table& table, const read_options& options) {
    location_table out;
    location_builder builder(table, options, out);
    std::vector<std::string_view> fields(table.header.size());
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
        for (std::size_t c = 0; c < fields.size(); ++c) fields[c] = table.rows.field(r, c);
        builder.add(fields.data(), table.lines[r]);
    }
    type_number_columns(out);
    return out;
}

namespace {

// Reads CSV locations from `in` record by record, a piece of the stream at a time, so that
// only the location table grows.
location_table read_csv_locations(std::istream& in, const std::string& source, const read_options& options) {
    csv_table head;  // the header, for the column and number checks
    head.source = source;
    location_table out;
    std::optional<location_builder> builder;
    std::size_t total = 0;
    detail::scan_csv(
        in, source, head.header,
        [&](std::size_t size_hint) {
            builder.emplace(head, options, out);
            total = size_hint;
        },
        [&](const std::vector<std::string_view>& fields, std::size_t line, std::size_t consumed) {
            builder->expect(total, consumed);
            builder->add(fields.data(), line);
        });
    if (!builder) location_builder(head, options, out);  // no records: the columns must still exist
    type_number_columns(out);
    return out;
}

constexpr std::string_view byte_order_mark = "\xEF\xBB\xBF";

bool json_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// True when `text` (a whole input) is GeoJSON by its content: its first byte that is not
// JSON white space, after an optional UTF-8 byte-order mark, is '{'.
bool looks_like_json(std::string_view text) noexcept {
    if (text.substr(0, byte_order_mark.size()) == byte_order_mark) text.remove_prefix(byte_order_mark.size());
    const auto first = std::find_if_not(text.begin(), text.end(), json_space);
    return first != text.end() && *first == '{';
}

// looks_like_json on the bytes of `in` up to its first byte that is not white space (or past
// the mark); reads them, so the caller rewinds. Throws parse_error naming `source` when the
// stream fails.
bool starts_like_json(std::istream& in, const std::string& source) {
    std::string head;
    for (int c; (c = in.get()) != std::char_traits<char>::eof();) {
        head += static_cast<char>(c);
        const bool in_mark = head.size() <= byte_order_mark.size() && byte_order_mark.substr(0, head.size()) == head;
        if (!in_mark && !json_space(static_cast<char>(c))) break;
    }
    if (in.bad()) throw parse_error(source, 0, "cannot read the file");
    return looks_like_json(head);
}

// Throws parse_error when `head` (the first bytes of `source`) is not text: a GeoPackage,
// a FlatGeobuf or Shapefile, any file with a NUL byte, saying what it is and what to do.
void refuse_binary(std::string_view head, const std::string& source) {
    const std::string kind = binary_kind(head.data(), head.size());
    if (kind.empty()) return;
    throw parse_error(source, 0, "is " + kind + ", not CSV or GeoJSON text: read it through GDAL (quoct::io::gdal, "
                                 "or the quoct command built with GDAL) or convert it first, e.g. "
                                 "ogr2ogr -f CSV out.csv FILE -lco GEOMETRY=AS_XY");
}

}  // namespace

location_table read_locations_csv(const std::string& path, const read_options& options) {
    std::ifstream in = detail::open_file(path);
    return read_csv_locations(in, path, options);
}

location_table detail::read_locations_geojson(std::istream& in, const std::string& source, const read_options& options,
                                              std::size_t* key_probes) {
    std::size_t probes = 0;
    json doc;
    try {
        doc = detail::parse_ordered_json(in, &probes);
    } catch (const json::exception& e) {
        throw parse_error(source, 0, std::string("invalid JSON: ") + e.what());
    }
    const json type = doc.is_object() ? doc.value("type", json()) : json();
    if (type != "FeatureCollection" && type != "Feature")
        throw parse_error(source, 0, "not a GeoJSON FeatureCollection or Feature");
    detail::check_crs(doc, source);
    // A lone Feature is read as a collection of one.
    if (type == "Feature") doc = json{{"type", "FeatureCollection"}, {"features", json::array({std::move(doc)})}};
    const auto features = doc.find("features");
    if (features == doc.end() || !features->is_array())
        throw parse_error(source, 0, "the FeatureCollection has no \"features\" array");

    location_table out;
    out.source = source;
    bad_rows bad(options, out);
    // First the good features and the columns (their property names, in order of first
    // appearance), then their values, stored flat once the width is known.
    std::vector<std::size_t> good;
    std::unordered_map<std::string_view, std::size_t> column_of;  // views of the document's keys
    for (std::size_t i = 0; i < features->size(); ++i) {
        const json& feature = (*features)[i];
        geo::lonlat where{};
        double altitude = 0;
        const std::string problem = point_of(feature, where, altitude);
        if (problem == unlocated) {
            bad.leave_out(i + 1, parse_error(source, 0, "feature " + std::to_string(i + 1) + ": " + problem));
            continue;
        }
        if (!problem.empty()) {
            bad.report(i + 1, parse_error(source, 0, "feature " + std::to_string(i + 1) + ": " + problem));
            continue;
        }
        good.push_back(i);
        out.locations.push_back(where);
        out.origins.push_back(i + 1);
        out.records.push_back(i + 1);
        add_columns(feature, column_of, out, probes);
        const auto id = feature.find("id");
        out.feature_ids.push_back(id != feature.end() ? id->dump() : std::string());
        out.altitudes.push_back(altitude);
    }
    out.values = text_fields(out.columns.size());
    out.kinds.reserve(good.size() * out.columns.size());
    std::vector<std::string> text;
    std::vector<std::string_view> views;
    for (const std::size_t i : good) keep_properties((*features)[i], column_of, text, views, out, probes);
    // Kept only when some feature has one.
    if (std::all_of(out.feature_ids.begin(), out.feature_ids.end(), [](const std::string& id) { return id.empty(); }))
        out.feature_ids.clear();
    if (std::all_of(out.altitudes.begin(), out.altitudes.end(), [](double z) { return std::isnan(z); }))
        out.altitudes.clear();
    if (key_probes != nullptr) *key_probes += probes;
    return out;
}

location_table read_locations_geojson(std::istream& in, const std::string& source, const read_options& options) {
    return detail::read_locations_geojson(in, source, options, nullptr);
}

location_table read_locations_geojson(const std::string& path, const read_options& options) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw parse_error(path, 0, "cannot open the file");
    return read_locations_geojson(in, path, options);
}

location_table read_locations_file(const std::string& path, const read_options& options) {
    std::ifstream in = detail::open_file(path);
    // A pipe (a named one, /dev/stdin) cannot be rewound after a look at its first bytes.
    if (in.tellg() == std::istream::pos_type(-1)) {
        in.clear();
        return read_locations_stream(in, path, options);
    }
    char head[512];
    in.read(head, sizeof head);
    if (in.bad()) throw parse_error(path, 0, "cannot read the file");
    refuse_binary(std::string_view(head, static_cast<std::size_t>(in.gcount())), path);
    in.clear();
    if (!in.seekg(0)) throw parse_error(path, 0, "cannot read the file");
    const bool geojson = starts_like_json(in, path);
    in.clear();
    if (!in.seekg(0)) throw parse_error(path, 0, "cannot read the file");
    return geojson ? read_locations_geojson(in, path, options) : read_csv_locations(in, path, options);
}

location_table read_locations_stream(std::istream& in, const std::string& source, const read_options& options) {
    std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) throw parse_error(source, 0, "cannot read the input");
    refuse_binary(std::string_view(text).substr(0, 512), source);
    const bool geojson = looks_like_json(text);
    std::istringstream whole(std::move(text));
    if (geojson) return read_locations_geojson(whole, source, options);
    return read_locations(read_csv(whole, source), options);
}

void for_each_property(const location_table& table, const hit& h, const write_options& options,
                       const std::function<void(std::size_t, std::string_view, value_kind)>& visit) {
    std::size_t column = 0;
    if (!options.center_column.empty()) {
        const value_kind kind = h.center < options.center_kinds.size() ? options.center_kinds[h.center] : value_kind::text;
        visit(column++, center_label(options, h), kind);
    }
    for (std::size_t c = 0; c < table.columns.size(); ++c) visit(column++, table.values.field(h.id, c), table.kind(h.id, c));
    // Kilometres as GeoJSON has always written them: whole metres, / 1000, a real ("1.0").
    if (options.with_distance) {
        std::string km = shortest_decimal(std::round(h.metres) / 1000);
        if (km.find_first_of(".e") == std::string::npos) km += ".0";
        visit(column++, km, value_kind::json);
    }
    const auto& kinds = options.extra_kinds;
    for (std::size_t k = 0; k < options.extra_columns.size(); ++k) {
        const value_kind kind = h.extra < kinds.size() && k < kinds[h.extra].size() ? kinds[h.extra][k] : value_kind::text;
        visit(column++, options.extra_values[h.extra][k], kind);
    }
}

std::vector<std::string> output_columns(const location_table& table, const write_options& options) {
    const bool geojson = options.format == output_format::geojson;
    std::vector<std::string> reserved, after;
    if (!geojson && has_feature_ids(table)) after.push_back("feature_id");
    if (!geojson) after.insert(after.end(), {"lon", "lat"});
    if (!geojson && has_altitudes(table)) after.push_back("altitude");
    if (options.with_distance) after.push_back("distance_km");
    after.insert(after.end(), options.extra_columns.begin(), options.extra_columns.end());
    reserved = after;
    std::vector<std::string> names;
    if (!options.center_column.empty()) {
        names.push_back(options.center_column);
        reserved.push_back(options.center_column);
    }
    const std::vector<std::string> kept = unique_names(table.columns, reserved);
    names.insert(names.end(), kept.begin(), kept.end());
    names.insert(names.end(), after.begin(), after.end());
    return names;
}

void write_locations(std::ostream& out, const location_table& table, const std::vector<hit>& hits,
                     const write_options& options) {
    if (options.format == output_format::geojson) {
        write_geojson(out, table, hits, options);
        return;
    }
    const auto cells = cells_of(table, hits, options);
    if (options.format == output_format::csv)
        write_csv(out, cells);
    else
        write_table(out, cells);
}

void write_rows(std::ostream& out, const std::vector<std::vector<std::string>>& cells, output_format format) {
    if (format == output_format::csv)
        write_csv(out, cells);
    else
        write_table(out, cells);
}

std::string binary_kind(const void* bytes, std::size_t size) {
    const std::string_view head(static_cast<const char*>(bytes), size);
    if (head.find('\0') == std::string_view::npos) return {};
    const auto starts = [&](std::string_view magic) { return head.substr(0, magic.size()) == magic; };
    if (starts(std::string_view("SQLite format 3\0", 16))) return "a GeoPackage or SQLite database";
    if (starts("fgb\x03")) return "a FlatGeobuf file";
    if (starts(std::string_view("\0\0\x27\x0a", 4))) return "an ESRI Shapefile";
    if (starts("PK\x03\x04")) return "a zip archive";
    if (starts("\x1f\x8b")) return "a gzip file";
    if (starts("\x89QUOCT\r\n")) return "a quoct index file (open it with quoct::open)";
    return "a binary file (it holds a NUL byte)";
}

std::string shortest_decimal(double x) {
    char buf[64];
    const auto result = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, result.ptr);
}

}  // namespace io
}  // namespace quoct
