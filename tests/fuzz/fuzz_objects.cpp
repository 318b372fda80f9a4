// Fuzz target: quoct::ball_index and quoct::box_index against brute force with
// quoct::intersects, the documented predicate. One index of balls and one of boxes take a
// run of insert, erase, update, move, resize, ball and box queries, the broad phase of each
// (serial and on 1 to 3 threads) and the collisions between the two. Bad shapes and bad
// queries must throw the documented exception and leave the index as it was.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <quoct/objects.hpp>

#include "fuzz_support.hpp"

namespace {

using namespace quoct_fuzz;
using Id = std::uint32_t;

template <class T, std::size_t D>
bool valid_shape(const quoct::ball<T, D>& s) {
    return quoct::is_finite(s.center) && std::isfinite(s.radius) && s.radius >= 0;
}
template <class T, std::size_t D>
bool valid_shape(const quoct::box<T, D>& b) {
    return quoct::is_finite(b.lo) && quoct::is_finite(b.hi) && valid_query(b);
}

template <class T, std::size_t D>
quoct::ball<T, D> make(input& in, std::vector<T>& seen, const std::vector<quoct::point<T, D>>& near,
                       const quoct::ball<T, D>*) {
    return {point<T, D>(in, seen, near, 24), radius<T>(in, seen, 24)};
}
template <class T, std::size_t D>
quoct::box<T, D> make(input& in, std::vector<T>& seen, const std::vector<quoct::point<T, D>>& near,
                      const quoct::box<T, D>*) {
    return query_box<T, D>(in, seen, near, 24);
}

/// One object index and its oracle: the shape of every id, or nothing once erased.
template <class Shape>
struct tracked {
    using T = typename quoct::object_index<Shape, Id>::scalar_type;
    static constexpr std::size_t D = quoct::object_index<Shape, Id>::dimension;
    quoct::object_index<Shape, Id> index;
    std::vector<std::optional<Shape>> by_id;

    bool is_live(Id id) const { return id < by_id.size() && by_id[id].has_value(); }

    template <class Query>
    std::vector<Id> brute(const Query& q) const {
        std::vector<Id> out;
        for (std::size_t id = 0; id < by_id.size(); ++id)
            if (by_id[id] && quoct::intersects(*by_id[id], q)) out.push_back(static_cast<Id>(id));
        return out;
    }

    template <class Query>
    void check_query(const Query& q, const char* what) const {
        if (!QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, !valid_query(q), (void)index.count(q))) return;
        const std::vector<Id> want = brute(q), got = sorted(index.query(q));
        if (got != want) {
            std::string msg = std::string(what) + ": query gave " + std::to_string(got.size()) + " ids, brute force " +
                              std::to_string(want.size());
            for (Id id : want)
                if (!std::binary_search(got.begin(), got.end(), id)) msg += "; missing id " + std::to_string(id);
            fail(__FILE__, __LINE__, msg);
        }
        QUOCT_FUZZ_CHECK(index.count(q) == want.size(), std::string(what) + ": count differs from query");
    }

    void check_pairs(unsigned threads) const {
        std::vector<std::pair<Id, Id>> want, serial;
        for (std::size_t a = 0; a < by_id.size(); ++a)
            for (std::size_t b = a + 1; b < by_id.size(); ++b)
                if (by_id[a] && by_id[b] && quoct::intersects(*by_id[a], *by_id[b]))
                    want.emplace_back(static_cast<Id>(a), static_cast<Id>(b));
        index.for_each_colliding_pair([&](Id a, Id b) {
            QUOCT_FUZZ_CHECK(a < b, "for_each_colliding_pair: a pair with a >= b");
            serial.emplace_back(a, b);
        });
        QUOCT_FUZZ_CHECK(sorted(serial) == want, "for_each_colliding_pair differs from brute force (" +
                                                     std::to_string(serial.size()) + " pairs, brute force " +
                                                     std::to_string(want.size()) + ")");
        QUOCT_FUZZ_CHECK(index.colliding_pairs(threads) == want, "colliding_pairs differs from brute force");
    }

    // A change, checked for its exception; on success the oracle follows it.
    void mutate(input& in, std::vector<T>& seen, std::vector<quoct::point<T, D>>& near) {
        const Id id = static_cast<Id>(in.below(by_id.size() + 2));
        switch (in.below(6)) {
            case 0: case 1: {
                const Shape s = make<T, D>(in, seen, near, static_cast<const Shape*>(nullptr));
                Id got = 0;
                if (QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, !valid_shape(s), got = index.insert(s))) {
                    QUOCT_FUZZ_CHECK(got == by_id.size(), "insert did not return id_bound()");
                    by_id.push_back(s);
                }
                break;
            }
            case 2:
                QUOCT_FUZZ_CHECK(index.erase(id) == is_live(id), "erase's result is wrong");
                if (id < by_id.size()) by_id[id].reset();
                break;
            case 3: {
                const Shape s = make<T, D>(in, seen, near, static_cast<const Shape*>(nullptr));
                if (!is_live(id)) QUOCT_FUZZ_THROWS_IFF(std::out_of_range, true, index.update(id, s));
                else if (QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, !valid_shape(s), index.update(id, s)))
                    by_id[id] = s;
                break;
            }
            case 4: {
                const quoct::point<T, D> c = point<T, D>(in, seen, near, 16);
                if (!is_live(id)) {
                    QUOCT_FUZZ_THROWS_IFF(std::out_of_range, true, index.move(id, c));
                    break;
                }
                const Shape want = moved(*by_id[id], c);
                if (QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, !quoct::is_finite(c) || !valid_shape(want),
                                          index.move(id, c)))
                    by_id[id] = want;
                break;
            }
            default: resize(in, seen, near, id, static_cast<const Shape*>(nullptr)); break;
        }
        QUOCT_FUZZ_CHECK(index.size() == static_cast<std::size_t>(std::count_if(by_id.begin(), by_id.end(),
                                                                                 [](const auto& s) { return s.has_value(); })),
                         "size() is not the number of live objects");
        if (is_live(id)) QUOCT_FUZZ_CHECK(same(index.shape(id), *by_id[id]), "shape(id) is not the shape stored");
    }

    // The documented moves and resizes: a ball keeps its radius; a box keeps its half-widths
    // about its middle lo/2 + hi/2.
    static quoct::ball<T, D> moved(const quoct::ball<T, D>& s, const quoct::point<T, D>& c) { return {c, s.radius}; }
    static quoct::point<T, D> middle(const quoct::box<T, D>& b) {
        quoct::point<T, D> m;
        for (std::size_t a = 0; a < D; ++a) m[a] = b.lo[a] / 2 + b.hi[a] / 2;
        return m;
    }
    static quoct::box<T, D> moved(const quoct::box<T, D>& b, const quoct::point<T, D>& c) {
        const quoct::point<T, D> m = middle(b);
        quoct::box<T, D> r;
        for (std::size_t a = 0; a < D; ++a) r.lo[a] = c[a] - (m[a] - b.lo[a]), r.hi[a] = c[a] + (b.hi[a] - m[a]);
        return r;
    }
    void resize(input& in, std::vector<T>& seen, std::vector<quoct::point<T, D>>&, Id id, const quoct::ball<T, D>*) {
        const T r = radius<T>(in, seen, 8);
        if (!is_live(id)) QUOCT_FUZZ_THROWS_IFF(std::out_of_range, true, index.resize(id, r));
        else if (QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, !(std::isfinite(r) && r >= 0), index.resize(id, r)))
            by_id[id]->radius = r;
    }
    void resize(input& in, std::vector<T>& seen, std::vector<quoct::point<T, D>>&, Id id, const quoct::box<T, D>*) {
        quoct::point<T, D> half;
        for (std::size_t a = 0; a < D; ++a) half[a] = in.one_in(16) ? -T(1) : radius<T>(in, seen, 0);
        if (!is_live(id)) {
            QUOCT_FUZZ_THROWS_IFF(std::out_of_range, true, index.resize(id, half));
            return;
        }
        const quoct::point<T, D> m = middle(*by_id[id]);
        quoct::box<T, D> b;
        for (std::size_t a = 0; a < D; ++a) b.lo[a] = m[a] - half[a], b.hi[a] = m[a] + half[a];
        if (QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, !valid_shape(b), index.resize(id, half))) by_id[id] = b;
    }
    static bool same(const quoct::ball<T, D>& a, const quoct::ball<T, D>& b) {
        return a.center == b.center && a.radius == b.radius;
    }
    static bool same(const quoct::box<T, D>& a, const quoct::box<T, D>& b) { return a.lo == b.lo && a.hi == b.hi; }
};

struct target {
    template <class T, std::size_t D>
    static void run(input& in) {
        std::vector<T> seen;
        std::vector<quoct::point<T, D>> near;
        tracked<quoct::ball<T, D>> balls;
        tracked<quoct::box<T, D>> boxes;
        // A bulk-built start for each (the constructor takes another path than insert).
        {
            std::vector<quoct::ball<T, D>> b0;
            std::vector<quoct::box<T, D>> x0;
            for (std::size_t i = in.below(12); i > 0; --i) b0.push_back(make<T, D>(in, seen, near, b0.data()));
            for (std::size_t i = in.below(12); i > 0; --i) x0.push_back(make<T, D>(in, seen, near, x0.data()));
            bool bad_b = false, bad_x = false;
            for (const auto& s : b0) bad_b |= !valid_shape(s);
            for (const auto& s : x0) bad_x |= !valid_shape(s);
            if (QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, bad_b, balls.index = quoct::object_index<quoct::ball<T, D>, Id>(b0)))
                balls.by_id.assign(b0.begin(), b0.end());
            if (QUOCT_FUZZ_THROWS_IFF(std::invalid_argument, bad_x, boxes.index = quoct::object_index<quoct::box<T, D>, Id>(x0)))
                boxes.by_id.assign(x0.begin(), x0.end());
        }
        for (int ops = 0; ops < 64 && !in.empty(); ++ops) {
            switch (in.below(9)) {
                case 0: case 1: balls.mutate(in, seen, near); break;
                case 2: case 3: boxes.mutate(in, seen, near); break;
                case 4: {
                    const quoct::ball<T, D> q{point<T, D>(in, seen, near, 24), radius<T>(in, seen, 24)};
                    balls.check_query(q, "ball_index, ball query");
                    boxes.check_query(q, "box_index, ball query");
                    break;
                }
                case 5: {
                    const quoct::box<T, D> q = query_box<T, D>(in, seen, near, 24);
                    balls.check_query(q, "ball_index, box query");
                    boxes.check_query(q, "box_index, box query");
                    break;
                }
                case 6: balls.check_pairs(1 + static_cast<unsigned>(in.below(3))); break;
                case 7: boxes.check_pairs(1 + static_cast<unsigned>(in.below(3))); break;
                default: {
                    std::vector<std::pair<Id, Id>> want, got;
                    for (std::size_t a = 0; a < balls.by_id.size(); ++a)
                        for (std::size_t b = 0; b < boxes.by_id.size(); ++b)
                            if (balls.by_id[a] && boxes.by_id[b] && quoct::intersects(*balls.by_id[a], *boxes.by_id[b]))
                                want.emplace_back(static_cast<Id>(a), static_cast<Id>(b));
                    quoct::for_each_colliding_pair(balls.index, boxes.index, [&](Id a, Id b) { got.emplace_back(a, b); });
                    QUOCT_FUZZ_CHECK(sorted(got) == want, "for_each_colliding_pair(balls, boxes) differs from brute force (" +
                                                              std::to_string(got.size()) + " pairs, brute force " +
                                                              std::to_string(want.size()) + ")");
                    break;
                }
            }
        }
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    input in(data, size);
    with_type(in, target{});
    return 0;
}
