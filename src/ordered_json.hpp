// quoct::io internals: JSON text into nlohmann::ordered_json in time linear in the text, and
// GeoJSON points read through it (not installed).
#ifndef QUOCT_SRC_ORDERED_JSON_HPP
#define QUOCT_SRC_ORDERED_JSON_HPP

#include <cstddef>
#include <istream>
#include <string>

#include <nlohmann/json.hpp>

#include <quoct/io/locations.hpp>

namespace quoct {
namespace io {
namespace detail {

/// Parses JSON text from `in` to its end as nlohmann::ordered_json::parse(in) does: the same
/// value, members in the order written, a repeated key's last value in the place of its
/// first, the same exceptions (nlohmann::json::parse_error and the others) with the same
/// messages. But in time linear in the text, where ordered_json::parse compares every key
/// with each earlier key of its object: quadratic in an object's keys (1.9 s for one object
/// of 50,000 keys, 0.7 MB).
///
/// `key_probes`, when not null, is increased by the key comparisons and hash look-ups made
/// to find repeated keys: a measure of the work for tests that count it.
nlohmann::ordered_json parse_ordered_json(std::istream& in, std::size_t* key_probes = nullptr);

/// read_locations_geojson(in, source, options), which it is, with the work counted as for
/// parse_ordered_json: the parse's, and a look-up a property name to find its column.
location_table read_locations_geojson(std::istream& in, const std::string& source, const read_options& options,
                                      std::size_t* key_probes);

}  // namespace detail
}  // namespace io
}  // namespace quoct

#endif  // QUOCT_SRC_ORDERED_JSON_HPP
