// quoct's point cloud subcommands (see cloud.hpp).
#include "cloud.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <quoct/build_file.hpp>
#include <quoct/file.hpp>
#include <quoct/io/cloud.hpp>
#include <quoct/io/las.hpp>
#include <quoct/io/locations.hpp>
#include <quoct/neighbourhoods.hpp>
#include <quoct/orthtree.hpp>

#include "info.hpp"

namespace quoct {
namespace cli {

namespace {

using point3 = point<double, 3>;

// "2G", "512M", "1.5GiB", "1000000": bytes (K, M, G, T are powers of 1024).
std::size_t parse_memory(const std::string& text) {
    std::size_t used = 0;
    double v = -1;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
    }
    std::string unit = text.substr(std::min(used, text.size()));
    const auto ends = [&](const std::string& tail) {
        return unit.size() >= tail.size() && unit.compare(unit.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (ends("iB")) unit.resize(unit.size() - 2);
    else if (ends("B")) unit.resize(unit.size() - 1);
    const std::string units = "KMGT";
    double scale = 1;
    const char upper = unit.size() == 1 ? static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))) : ' ';
    if (units.find(upper) != std::string::npos)
        scale = std::ldexp(1.0, 10 * (1 + static_cast<int>(units.find(upper))));
    else if (!unit.empty())
        v = -1;
    if (!(v > 0) || !std::isfinite(v * scale) || v * scale > 1e18)
        throw std::invalid_argument("--memory " + text + ": give a size such as 512M or 2G");
    return static_cast<std::size_t>(v * scale);
}

// One line of progress on a terminal, at most twice a second: the stage, how far, the rate,
// the time left in the stage.
class progress_line {
public:
    progress_line() : on_(::isatty(STDERR_FILENO) != 0), start_(clock::now()), stage_start_(start_), last_(start_) {}
    void operator()(const build_progress& p) {
        if (!on_) return;
        const auto now = clock::now();
        if (stage_ != p.stage) stage_ = p.stage, stage_start_ = now;
        else if (now - last_ < std::chrono::milliseconds(500) && p.done != p.total) return;
        last_ = now;
        const double spent = std::chrono::duration<double>(now - stage_start_).count();
        std::cerr << "\r\033[Kquoct: " << p.stage << ' ' << p.done;
        if (p.total != 0) std::cerr << " of " << p.total;
        std::cerr << (stage_ == "merging" || stage_ == "checking" ? "" : " points");
        if (spent > 0.5 && p.done != 0) {
            const double rate = static_cast<double>(p.done) / spent;
            if (stage_ != "merging" && stage_ != "checking") std::cerr << ", " << rate / 1e6 << " M/s";
            if (p.total > p.done) std::cerr << ", " << std::lround(static_cast<double>(p.total - p.done) / rate) << " s left";
        }
        std::cerr << std::flush;
    }
    void clear() const {
        if (on_) std::cerr << "\r\033[K" << std::flush;
    }
    double seconds() const { return std::chrono::duration<double>(clock::now() - start_).count(); }

private:
    using clock = std::chrono::steady_clock;
    bool on_;
    std::string stage_;
    clock::time_point start_, stage_start_, last_;
};

// The extension of `path`, lower case ("" if none).
std::string extension(const std::string& path) {
    const std::size_t dot = path.find_last_of("./");
    if (dot == std::string::npos || path[dot] != '.') return "";
    std::string ext = path.substr(dot);
    for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return ext;
}

// Builds the index file of `file` (LAS, PLY or XYZ) with Id ids; returns its point count.
template <class Id>
std::uint64_t build_index(const std::string& file, const std::string& output, const cloud_args& a, progress_line& line) {
    build_file_options o;
    o.memory_limit = parse_memory(a.memory);
    o.temp_dir = a.temp_dir;
    o.progress = [&line](const build_progress& p) { line(p); };
    const std::string ext = extension(file);
    if (ext == ".ply") {
        io::ply_points in(file);
        build_file<octree<double, Id>>(in, output, o);
    } else if (ext == ".xyz") {
        io::xyz_points in(file);
        build_file<octree<double, Id>>(in, output, o);
    } else {
        io::las_points in(file);
        build_file<octree<double, Id>>(in, output, o);
    }
    return open<octree<double, Id>>(output).size();
}

// A point cloud to query: in memory (from a point file) or mapped (an index file).
struct cloud {
    std::string name;
    io::point_cloud points;  // a point file's, with the fields asked for
    std::unique_ptr<octree<double>> small;
    std::unique_ptr<octree<double, std::uint64_t>> large;  // an index file with 64-bit ids
};

cloud load_cloud(const cloud_args& a) {
    cloud c;
    c.name = a.file;
    const file_kind kind = kind_of(a.file);
    if (kind == file_kind::index) {
        if (!a.fields.empty())
            throw std::invalid_argument(a.file + ": --fields needs the LAS file; an index file holds x, y, z only");
        const std::string type = read_file_info(a.file).type;
        if (type == detail::file_codec<octree<double>>::type_name())
            c.small = std::make_unique<octree<double>>(open<octree<double>>(a.file));
        else if (type == detail::file_codec<octree<double, std::uint64_t>>::type_name())
            c.large = std::make_unique<octree<double, std::uint64_t>>(open<octree<double, std::uint64_t>>(a.file));
        else
            throw file_error(a.file, "holds " + type + "; radius, knn and box3d read octree<double, 3, uint32> or "
                                     "octree<double, 3, uint64> files (quoct index cloud.las -o FILE)");
        return c;
    }
    if (kind == file_kind::las) {
        c.points = io::read_las(a.file, {a.fields, true});
    } else if (is_point_file(a.file)) {
        if (!a.fields.empty()) throw std::invalid_argument(a.file + ": --fields reads LAS files");
        c.points = extension(a.file) == ".ply" ? io::read_ply(a.file) : io::read_xyz(a.file);
    } else {
        throw std::invalid_argument(a.file + ": neither a LAS, PLY or XYZ file nor an octree index file");
    }
    if (c.points.size() > std::size_t{std::numeric_limits<std::uint32_t>::max()} / 2)
        throw std::invalid_argument(a.file + ": over 2^31 points; index it first (quoct index FILE -o FILE.quoct)");
    c.small = std::make_unique<octree<double>>(c.points.xyz.data(), c.points.size());
    return c;
}

std::string number(double v) { return io::shortest_decimal(v); }

// A hit: its id, its point as stored, and (knn) its distance.
struct hit {
    std::uint64_t id;
    point3 p;
    double distance;
};

// Rows id,x,y,z[,distance][,fields].
int write_rows(const cloud& c, const std::vector<hit>& hits, bool with_distance, const cloud_args& a) {
    std::cout << "id,x,y,z" << (with_distance ? ",distance" : "");
    for (const std::string& f : a.fields) std::cout << ',' << f;
    std::cout << '\n';
    const std::size_t width = c.points.property_names.size();
    for (const hit& h : hits) {
        std::cout << h.id << ',' << number(h.p[0]) << ',' << number(h.p[1]) << ',' << number(h.p[2]);
        if (with_distance) std::cout << ',' << number(h.distance);
        for (std::size_t f = 0; f < width; ++f) std::cout << ',' << number(c.points.properties[h.id * width + f]);
        std::cout << '\n';
    }
    std::cout.flush();
    return std::cout ? 0 : 1;
}

// The points come from visits, which hand each hit's point over: tree.point(id) would build
// a map of every id first (4 or 8 bytes a point), too much for a file larger than memory.
template <class Tree>
int query(const CLI::App* used, const cloud_commands& cmd, const cloud_args& a, const cloud& c, const Tree& t) {
    using Id = typename Tree::id_type;
    const point3 q{{a.x, a.y, a.z}};
    std::vector<hit> hits;
    const auto keep = [&](Id id, const point3& p) { hits.push_back(hit{id, p, 0}); };
    if (used == cmd.knn) {
        std::vector<neighbor<double, Id>> found;
        t.nearest(q, a.k, found);
        // Their points: every point of a ball a little wider than the farthest, then the k
        // picked out in order (the visit sees each at most once).
        const double far = found.empty() ? 0 : std::sqrt(found.back().distance_sq);
        const double r = far * (1 + 1e-9) + std::numeric_limits<double>::denorm_min();
        std::vector<std::pair<Id, point3>> near;
        if (std::isfinite(r)) t.visit(ball<double, 3>{q, r}, [&](Id id, const point3& p) { near.emplace_back(id, p); });
        std::sort(near.begin(), near.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        for (const auto& f : found) {
            const auto at = std::lower_bound(near.begin(), near.end(), f.id,
                                             [](const std::pair<Id, point3>& x, Id id) { return x.first < id; });
            const point3 p = at != near.end() && at->first == f.id ? at->second : t.point(f.id);
            hits.push_back(hit{f.id, p, std::sqrt(f.distance_sq)});
        }
        return write_rows(c, hits, true, a);
    }
    if (used == cmd.neighbours) {
        std::cout << "id,neighbour,distance\n";
        const auto rows = [&](Id id, const std::vector<neighbor<double, Id>>& hood) {
            for (const auto& h : hood) std::cout << id << ',' << h.id << ',' << number(std::sqrt(h.distance_sq)) << '\n';
            return static_cast<bool>(std::cout);
        };
        if (a.k != 0) for_each_knn(t, a.k, rows);
        else for_each_within(t, a.r, rows);
        std::cout.flush();
        return std::cout ? 0 : 1;
    }
    if (used == cmd.radius) t.visit(ball<double, 3>{q, a.r}, keep);
    else t.visit(box<double, 3>{{{a.lo[0], a.lo[1], a.lo[2]}}, {{a.hi[0], a.hi[1], a.hi[2]}}}, keep);
    std::sort(hits.begin(), hits.end(), [](const hit& x, const hit& y) { return x.id < y.id; });
    return write_rows(c, hits, false, a);
}

}  // namespace

cloud_commands add_cloud_commands(CLI::App& app, CLI::App& index, cloud_args& a) {
    index.add_option("--memory", a.memory, "with a LAS FILE: the most memory the build may use (512M, 2G, ...); "
                                           "larger clouds are sorted on disk")
        ->capture_default_str();
    index.add_option("--temp-dir", a.temp_dir, "with a LAS FILE: where temporary files go (default: beside -o); "
                                                "about 64 bytes a point at the peak");
    cloud_commands cmd{};
    cmd.radius = app.add_subcommand("radius", "x, y, z points within --r of (--x, --y, --z), boundary included, by id: "
                                              "from a LAS, PLY or XYZ file or an index file of one (quoct index)");
    cmd.knn = app.add_subcommand("knn", "the --k points nearest (--x, --y, --z), nearest first (equal distances by "
                                        "smaller id), with their distance");
    cmd.box3d = app.add_subcommand("box3d", "x, y, z points in the box from --min to --max (faces included), by id");
    cmd.neighbours = app.add_subcommand("neighbours", "every x, y, z point's --k nearest (itself included) or its "
                                                      "points within --r: rows id,neighbour,distance, streamed in "
                                                      "the index's storage order (memory: one neighbourhood)");
    for (CLI::App* sub : {cmd.radius, cmd.knn, cmd.box3d}) {
        sub->add_option("FILE", a.file, "a LAS, PLY or XYZ file, or an octree index file made by quoct index")
            ->required();
        sub->add_option("--fields", a.fields, "with a LAS file: its fields to print after x, y, z (intensity, "
                                              "classification, gps_time, ...; quoct info FILE lists them)")
            ->delimiter(',');
    }
    const CLI::Validator finite(
        [](std::string& v) {
            double d = 0;
            return CLI::detail::lexical_cast(v, d) && std::isfinite(d) ? std::string() : "not a finite number: " + v;
        },
        "FINITE");
    for (CLI::App* sub : {cmd.radius, cmd.knn}) {
        sub->add_option("--x", a.x, "the centre's x")->required()->check(finite);
        sub->add_option("--y", a.y, "the centre's y")->required()->check(finite);
        sub->add_option("--z", a.z, "the centre's z")->required()->check(finite);
    }
    cmd.radius->add_option("--r", a.r, "the radius, at least 0")->required()->check(finite & CLI::NonNegativeNumber);
    cmd.knn->add_option("--k", a.k, "how many, at least 1")->required()->check(CLI::PositiveNumber);
    CLI::Option* hood_k = cmd.neighbours->add_option("--k", a.k, "how many nearest, at least 1")->check(CLI::PositiveNumber);
    CLI::Option* hood_r =
        cmd.neighbours->add_option("--r", a.r, "the radius, at least 0")->check(finite & CLI::NonNegativeNumber);
    hood_k->excludes(hood_r);
    cmd.neighbours->add_option("FILE", a.file, "a LAS, PLY or XYZ file, or an octree index file made by quoct index")
        ->required();
    cmd.neighbours->callback([hood_k, hood_r] {
        if (hood_k->count() == 0 && hood_r->count() == 0) throw CLI::RequiredError("--k or --r");
    });
    cmd.box3d->add_option("--min", a.lo, "the low corner: x,y,z")->delimiter(',')->expected(3)->required()->check(finite);
    cmd.box3d->add_option("--max", a.hi, "the high corner: x,y,z")->delimiter(',')->expected(3)->required()->check(finite);
    return cmd;
}

bool is_point_file(const std::string& path) {
    const std::string ext = extension(path);
    return ext == ".ply" || ext == ".xyz";
}

int run_cloud_index(const std::string& file, const std::string& output, const cloud_args& a) {
    if (output.empty()) throw std::invalid_argument(file + ": give -o FILE, the index file to write");
    // The most points the file can hold: the ids' width.
    const std::string ext = extension(file);
    const std::uint64_t most = ext == ".ply"   ? io::ply_reader(file).point_count()
                               : ext == ".xyz" ? (static_cast<std::uint64_t>(std::filesystem::file_size(file)) + 1) / 6
                                               : io::read_las_header(file).point_count;
    const bool wide = most > std::numeric_limits<std::uint32_t>::max() / 2;
    progress_line line;
    std::uint64_t count = 0;
    try {
        count = wide ? build_index<std::uint64_t>(file, output, a, line) : build_index<std::uint32_t>(file, output, a, line);
    } catch (...) {
        line.clear();
        throw;
    }
    line.clear();
    const file_info info = read_file_info(output);
    std::cout << output << ": " << info.type << ", " << count << " points, " << info.bytes << " bytes, built in "
              << number(std::round(line.seconds() * 100) / 100) << " s\n";
    std::cout.flush();
    return std::cout ? 0 : 1;
}

int run_cloud_query(const CLI::App* used, const cloud_commands& cmd, const cloud_args& a) {
    if (used != cmd.radius && used != cmd.knn && used != cmd.box3d && used != cmd.neighbours) return -1;
    const cloud c = load_cloud(a);
    return c.small ? query(used, cmd, a, c, *c.small) : query(used, cmd, a, c, *c.large);
}

}  // namespace cli
}  // namespace quoct
