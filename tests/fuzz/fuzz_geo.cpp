// Fuzz target: quoct::geo::index against brute force with the documented predicates:
// within (geo::distance(centre, p) <= metres; half_circumference or more takes all), in_box
// (closed lon/lat bounds, west > east crossing the antimeridian) and nearest (the first k by
// (distance, id)). Locations favour the poles, the antimeridian, +-0, subnormals and values
// one ulp from the bounds; radii include the exact distance to a stored point.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <quoct/geo/index.hpp>

#include "fuzz_support.hpp"

namespace {

using namespace quoct_fuzz;
using quoct::geo::lonlat;

// A longitude (bound 180) or latitude (bound 90); rarely (bad = true) out of range or NaN.
double angle(input& in, double bound, std::vector<double>& seen, bool bad) {
    const double sign = in.one_in(2) ? -1.0 : 1.0;
    switch (in.below(10)) {
        case 0: return sign * bound;
        case 1: return sign * std::nextafter(bound, 0.0);
        case 2: return sign * 0.0;
        case 3: return sign * std::numeric_limits<double>::denorm_min() * double(1 + in.below(4));
        case 4: return double(in.small_int(int(bound)));
        case 5: return std::ldexp(double(in.small_int(127)), -int(in.below(40)));
        case 6: return sign * std::fmod(std::abs(coordinate<double>(in, seen)), bound);
        case 7: if (!seen.empty()) { const double x = seen[in.below(seen.size())]; if (std::abs(x) <= bound) return x; }
            return sign * bound / 2;
        case 8: if (bad && in.one_in(3)) {
                const double out[] = {std::nextafter(bound, 1e9), std::numeric_limits<double>::quiet_NaN(),
                                      std::numeric_limits<double>::infinity(), 1e300};
                return sign * out[in.below(4)];
            }
            return sign * bound;
        default: return sign * double(in.below(int(bound) * 8 + 1)) / 8;
    }
}

lonlat location(input& in, std::vector<double>& seen, const std::vector<lonlat>& near, bool bad) {
    if (!near.empty() && in.one_in(5)) return near[in.below(near.size())];
    const double lon = angle(in, 180, seen, bad);
    const double lat = angle(in, 90, seen, bad);
    seen.push_back(lon);
    seen.push_back(lat);
    return {lon, lat};
}

bool valid(const lonlat& p) { return p.lon >= -180 && p.lon <= 180 && p.lat >= -90 && p.lat <= 90; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using Id = std::uint32_t;
    namespace geo = quoct::geo;
    input in(data, size);
    std::vector<double> seen;
    std::vector<lonlat> pts;
    bool bad_point = false;
    for (std::size_t n = in.below(48); n > 0; --n) {
        pts.push_back(location(in, seen, pts, true));
        bad_point |= !valid(pts.back());
    }
    quoct::build_options opt;
    opt.leaf_size = 1 + in.below(8);
    geo::index<Id> index;
    if (!QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, bad_point, index = geo::index<Id>(pts, opt))) return 0;

    for (int ops = 0; ops < 48 && !in.empty(); ++ops) {
        const lonlat c = location(in, seen, pts, true);
        switch (in.below(3)) {
            case 0: {
                double metres = 0;
                switch (in.below(8)) {
                    case 0: metres = 0; break;
                    case 1: metres = std::numeric_limits<double>::infinity(); break;
                    case 2: metres = geo::half_circumference; break;
                    case 3: metres = std::nextafter(geo::half_circumference, 0.0); break;
                    case 4: metres = in.one_in(4) ? -1.0 : std::numeric_limits<double>::quiet_NaN(); break;
                    case 5: metres = std::abs(coordinate<double>(in, seen)); break;
                    default:
                        if (!pts.empty() && valid(c)) {
                            metres = geo::distance(c, pts[in.below(pts.size())]);
                            if (in.one_in(3)) metres = std::nextafter(metres, in.one_in(2) ? 0.0 : 1e300);
                        }
                        break;
                }
                if (!QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, !valid(c) || !(metres >= 0),
                                           (void)index.count_within(c.lon, c.lat, metres)))
                    break;
                std::vector<Id> want;
                for (std::size_t i = 0; i < pts.size(); ++i)
                    if (metres >= geo::half_circumference || geo::distance(c, pts[i]) <= metres) want.push_back(Id(i));
                QUOCT_FUZZ_CHECK(sorted(index.within(c.lon, c.lat, metres)) == want,
                                 "within(" + str(c.lon) + ", " + str(c.lat) + ", " + str(metres) + ") differs from brute force");
                QUOCT_FUZZ_CHECK(index.count_within(c.lon, c.lat, metres) == want.size(), "count_within differs");
                break;
            }
            case 1: {
                const lonlat d = location(in, seen, pts, true);
                const double west = c.lon, east = d.lon;
                double south = c.lat, north = d.lat;
                if (south > north && !in.one_in(16)) std::swap(south, north);
                const bool bad = !valid(c) || !valid(d) || south > north;
                if (!QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, bad, (void)index.count_in_box(west, south, east, north)))
                    break;
                std::vector<Id> want;
                for (std::size_t i = 0; i < pts.size(); ++i) {
                    const lonlat& p = pts[i];
                    const bool lon_ok = west > east ? (p.lon >= west || p.lon <= east) : (west <= p.lon && p.lon <= east);
                    if (lon_ok && south <= p.lat && p.lat <= north) want.push_back(Id(i));
                }
                QUOCT_FUZZ_CHECK(sorted(index.in_box(west, south, east, north)) == want,
                                 "in_box(" + str(west) + ", " + str(south) + ", " + str(east) + ", " + str(north) +
                                     ") differs from brute force");
                break;
            }
            default: {
                const std::size_t k = in.below(pts.size() + 3);
                std::vector<geo::neighbor<Id>> got;
                if (!QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, k == 0 || !valid(c), index.nearest(c.lon, c.lat, k, got)))
                    break;
                std::vector<std::pair<double, Id>> all;
                for (std::size_t i = 0; i < pts.size(); ++i) all.emplace_back(geo::distance(c, pts[i]), Id(i));
                std::sort(all.begin(), all.end());
                all.resize(std::min(k, all.size()));
                QUOCT_FUZZ_CHECK(got.size() == all.size(), "geo nearest: wrong number of neighbours");
                for (std::size_t i = 0; i < all.size(); ++i)
                    QUOCT_FUZZ_CHECK(got[i].id == all[i].second && got[i].distance == all[i].first,
                                     "geo nearest(" + str(c.lon) + ", " + str(c.lat) + ", " + std::to_string(k) +
                                         "): rank " + std::to_string(i) + " differs from brute force");
                break;
            }
        }
    }
    return 0;
}
