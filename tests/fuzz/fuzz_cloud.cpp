// Fuzz target: the XYZ and PLY readers (<quoct/io/cloud.hpp>) on any bytes. Only
// quoct::io::parse_error may escape and nothing is read outside the input (ASan); what they
// accept is finite, with as many values per point as names; and reading it in chunks of any
// size, through a buffer of any size (a piece at a time, lines and lists split across
// pieces), gives the same points and values as reading it whole, or the same error. The
// first input byte picks the format, the piece size and the chunk size; the rest is the file.
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <quoct/io/cloud.hpp>

#include "fuzz_support.hpp"

namespace {

using namespace quoct_fuzz;
namespace io = quoct::io;

struct outcome {
    io::point_cloud all;
    std::string error;
};

template <class Reader>
outcome read_in_chunks(const std::string& text, std::size_t piece, std::size_t chunk) {
    outcome r;
    std::istringstream in(text);
    try {
        Reader reader(in, "fuzz", piece);
        io::point_cloud c;
        while (reader.read(c, chunk) != 0) {
            QUOCT_FUZZ_CHECK(c.size() <= std::max<std::size_t>(chunk, 1), "a chunk larger than asked for");
            QUOCT_FUZZ_CHECK(c.properties.size() == c.size() * c.property_names.size(), "values per point");
            r.all.xyz.insert(r.all.xyz.end(), c.xyz.begin(), c.xyz.end());
            r.all.properties.insert(r.all.properties.end(), c.properties.begin(), c.properties.end());
            r.all.property_names = c.property_names;
            QUOCT_FUZZ_CHECK(reader.points_read() == r.all.size(), "points_read disagrees with the points returned");
        }
    } catch (const io::parse_error& e) {
        r.error = e.what();
    }
    return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const unsigned pick = data[0];
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    static const std::size_t pieces[8] = {16, 17, 23, 31, 64, 100, 4096, std::size_t{1} << 20};
    static const std::size_t chunks[4] = {0, 1, 3, 1000};
    const std::size_t piece = pieces[(pick >> 1) % 8], chunk = chunks[(pick >> 4) % 4];
    const bool ply = (pick & 1) != 0;
    outcome whole, parts;
    std::istringstream in(text);
    try {
        whole.all = ply ? io::read_ply(in, "fuzz") : io::read_xyz(in, "fuzz");
    } catch (const io::parse_error& e) {
        whole.error = e.what();
    }
    parts = ply ? read_in_chunks<io::ply_reader>(text, piece, chunk) : read_in_chunks<io::xyz_reader>(text, piece, chunk);
    QUOCT_FUZZ_CHECK(whole.error == parts.error, "chunked reading failed otherwise: '" + whole.error + "' vs '" + parts.error + "'");
    if (!whole.error.empty()) return 0;
    QUOCT_FUZZ_CHECK(whole.all.xyz == parts.all.xyz, "chunked reading gave other coordinates");
    QUOCT_FUZZ_CHECK(whole.all.properties == parts.all.properties, "chunked reading gave other values");
    QUOCT_FUZZ_CHECK(whole.all.size() == 0 || whole.all.property_names == parts.all.property_names, "other names");
    QUOCT_FUZZ_CHECK(whole.all.properties.size() == whole.all.size() * whole.all.property_names.size(), "values per point");
    for (const double v : whole.all.xyz) QUOCT_FUZZ_CHECK(std::isfinite(v), "a coordinate that is not finite accepted");
    for (const double v : whole.all.properties) QUOCT_FUZZ_CHECK(std::isfinite(v), "a value that is not finite accepted");
    return 0;
}
