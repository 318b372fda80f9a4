// Fuzz target: the LAS reader (<quoct/io/las.hpp>) on any bytes. Only quoct::io::parse_error
// may escape and nothing is read outside the bytes (ASan); a file it accepts gives exactly
// the header's number of points, each finite and within the header's bounds give or take
// a scale step when they are checked, every field asked for; and reading it in chunks of
// any size gives the same points and values as reading it in one, or fails at the same
// point. The first input byte picks the chunk size, whether bounds are checked and which of
// the file's fields are asked for; the rest is the file.
#include <cstdint>
#include <cmath>
#include <string>
#include <vector>

#include <quoct/io/las.hpp>

#include "fuzz_support.hpp"

namespace {

using namespace quoct_fuzz;
namespace io = quoct::io;

// All of the reader's points, or the error it stopped with.
struct outcome {
    std::vector<double> xyz, values;
    std::string error;
};

outcome read_in_chunks(const std::uint8_t* data, std::size_t size, const io::las_options& o, std::size_t chunk) {
    outcome r;
    try {
        io::las_reader in(data, size, "fuzz.las", o);
        io::point_cloud c;
        while (in.read(c, chunk) != 0) {
            QUOCT_FUZZ_CHECK(c.size() <= std::max<std::size_t>(chunk, 1), "a chunk larger than asked for");
            QUOCT_FUZZ_CHECK(c.property_names == o.fields, "the chunk's names are not the fields asked for");
            QUOCT_FUZZ_CHECK(c.properties.size() == c.size() * o.fields.size(), "values per point");
            r.xyz.insert(r.xyz.end(), c.xyz.begin(), c.xyz.end());
            r.values.insert(r.values.end(), c.properties.begin(), c.properties.end());
            QUOCT_FUZZ_CHECK(in.points_read() * 3 == r.xyz.size(), "points_read disagrees with the points returned");
        }
        QUOCT_FUZZ_CHECK(in.points_read() == in.header().point_count, "fewer points than the header's count");
    } catch (const io::parse_error& e) {
        r.error = e.what();
    }
    return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const unsigned pick = data[0];
    ++data, --size;
    io::las_options o;
    o.check_bounds = (pick & 1) != 0;
    io::las_header h;
    try {
        h = io::las_reader(data, size, "fuzz.las", o).header();
    } catch (const io::parse_error&) {
        return 0;
    }
    QUOCT_FUZZ_CHECK(h.version_major == 1 && h.version_minor <= 4 && h.point_format <= 10, "an unknown version or format accepted");
    QUOCT_FUZZ_CHECK(h.point_offset + h.point_count * h.record_length <= size, "records past the end accepted");
    // Every third field the file has, from one the first byte picks.
    for (std::size_t f = (pick >> 1) % 3; f < h.fields.size(); f += 3) o.fields.push_back(h.fields[f]);
    const std::size_t chunk = std::size_t{1} << ((pick >> 3) % 8);
    const outcome whole = read_in_chunks(data, size, o, static_cast<std::size_t>(-1) / 64);
    const outcome parts = read_in_chunks(data, size, o, chunk);
    QUOCT_FUZZ_CHECK(whole.error == parts.error, "chunked reading failed otherwise: '" + whole.error + "' vs '" + parts.error + "'");
    if (!whole.error.empty()) return 0;
    QUOCT_FUZZ_CHECK(whole.xyz.size() == 3 * h.point_count, "not the header's number of points");
    QUOCT_FUZZ_CHECK(whole.xyz == parts.xyz, "chunked reading gave other coordinates");
    QUOCT_FUZZ_CHECK(whole.values.size() == parts.values.size(), "chunked reading gave other values");
    for (std::size_t i = 0; i < whole.values.size(); ++i)  // (a NaN extra field is NaN both ways)
        QUOCT_FUZZ_CHECK(whole.values[i] == parts.values[i] || (std::isnan(whole.values[i]) && std::isnan(parts.values[i])),
                         "chunked reading gave another value");
    for (std::size_t i = 0; i < whole.xyz.size(); ++i) {
        const std::size_t a = i % 3;
        QUOCT_FUZZ_CHECK(std::isfinite(whole.xyz[i]), "a coordinate that is not finite accepted");
        if (o.check_bounds) {
            const double step = std::abs(h.scale[a]);
            QUOCT_FUZZ_CHECK(h.min[a] - step <= whole.xyz[i] && whole.xyz[i] <= h.max[a] + step,
                             "a point outside the header's bounds accepted: " + str(whole.xyz[i]));
        }
    }
    return 0;
}
